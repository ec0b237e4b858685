#!/bin/sh
# Function comments that open with a list of parameters ("/* k, n, src:
# ...") name only parameters the function has (tests/lint/comment_params.awk
# says how it reads them).  First the lint must find exactly the stale
# names of the sample tests/lint/stale.c (a renamed parameter, a removed
# one, ...) and nothing else there; then it must find none in the tree.
set -u
srcdir=${STIR_SRCDIR:-.}
AWK=${AWK:-awk}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cd "$srcdir" || exit 1
lint=tests/lint/comment_params.awk

"$AWK" -f "$lint" tests/lint/stale.c > "$tmp/sample"
rc=$?
if [ "$rc" -ne 1 ] || ! cmp -s "$tmp/sample" tests/lint/stale.expected; then
	echo "FAIL: the lint on tests/lint/stale.c (exit $rc) does not give" \
		"tests/lint/stale.expected:"
	diff -u tests/lint/stale.expected "$tmp/sample"
	fail=1
fi

# Every C source and header of the tree, but the sample and what bison and
# flex generate (in a distribution, lang/parser.c beside lang/parser.y).
find bench codegen examples formats include ir lang passes runtime schedule \
	tests tools verify -type f \( -name '*.c' -o -name '*.h' \) \
	! -path 'tests/lint/*' | LC_ALL=C sort > "$tmp/all"
: > "$tmp/files"
while read -r f; do
	stem=${f%.*}
	[ -f "$stem.y" ] || [ -f "$stem.l" ] || echo "$f" >> "$tmp/files"
done < "$tmp/all"
if [ "$(wc -l < "$tmp/files")" -lt 100 ]; then
	echo "FAIL: only $(wc -l < "$tmp/files") sources found under $srcdir"
	fail=1
fi
xargs "$AWK" -f "$lint" < "$tmp/files" > "$tmp/tree"
rc=$?
if [ "$rc" -ne 0 ] || [ -s "$tmp/tree" ]; then
	echo "FAIL: function comments name parameters that do not exist" \
		"(fix the comment or the name):"
	cat "$tmp/tree"
	fail=1
fi
exit $fail
