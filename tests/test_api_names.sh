#!/bin/sh
# The public API keeps the naming convention of include/stir/stir.h, as far
# as tests/lint/api_names.sh can see it (lifecycle verbs, owned and
# borrowed handles, readers, counts, checks, bools, passes, "params", the
# order of a count and its array).  First the lint must find exactly the
# breaches of its samples, then none in include/stir/.
set -u
srcdir=${STIR_SRCDIR:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cd "$srcdir" || exit 1
lint=tests/lint/api_names.sh

sh "$lint" tests/lint/api_names_bad.h tests/lint/api_names_passes.h \
	> "$tmp/sample"
if ! cmp -s "$tmp/sample" tests/lint/api_names_bad.expected; then
	echo "FAIL: the lint on its samples does not give" \
		"tests/lint/api_names_bad.expected:"
	diff -u tests/lint/api_names_bad.expected "$tmp/sample"
	fail=1
fi

n=$(ls include/stir/*.h | wc -l)
if [ "$n" -lt 10 ]; then
	echo "FAIL: only $n public headers found under $srcdir"
	fail=1
fi
sh "$lint" include/stir/*.h > "$tmp/tree"
if [ -s "$tmp/tree" ]; then
	echo "FAIL: public names that break the convention of" \
		"include/stir/stir.h (rule, name):"
	cat "$tmp/tree"
	fail=1
fi
[ "$fail" -eq 0 ] && echo "test_api_names: all passed"
exit "$fail"
