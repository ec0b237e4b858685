#!/bin/sh
# Every refusal names a real place (docs/language.md, "Source locations":
# nodes made by lowering and by schedule primitives take the location of the
# source they come from).  Each schedule of tests/refusal_locs is refused
# with exit 1; every error line begins FILE:LINE:COL with a line and column
# of at least 1, no message cites the empty location ("?:0"), and the
# message expected of it is there.  The expected errors of
# tests/gpu_refusals cite no empty location either.
set -u
srcdir=${STIR_SRCDIR:-.}
stirc=${STIR_BUILDDIR:-.}/tools/stirc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# located: the errors of $tmp/err (into $tmp/errors) are there, each begins
# FILE:LINE:COL, and nothing there cites "?:0".
located() {
	grep -E '(^|: )error: ' "$tmp/err" > "$tmp/errors"
	[ -s "$tmp/errors" ] &&
	    ! grep -v -E '^[^: ]+:[1-9][0-9]*:[1-9][0-9]*: error: ' \
		"$tmp/errors" > /dev/null &&
	    ! grep -F '?:0' "$tmp/err" > /dev/null
}

# refused YAML TEXT: stirc cuda examples/bsrmm.stir with schedule YAML exits
# 1 with located errors only, one of them holding TEXT.
refused() {
	y=$srcdir/tests/refusal_locs/$1
	"$stirc" cuda "$srcdir/examples/bsrmm.stir" --schedule "$y" \
		> "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ "$rc" != 1 ] || ! located ||
	    ! grep -F -- "$2" "$tmp/errors" > /dev/null; then
		echo "FAIL: $1: exit $rc, expected located errors with: $2"
		cat "$tmp/err"
		fail=1
	fi
}

# the barrier check: a copy made by cache_read, cited at the source
# statement it caches for (it was '?:0')
refused bsrmm_rows_barrier.yaml "bsrmm.stir:14:5: error: threads of a block \
must synchronize between the accesses to 'A_data_shared' at bsrmm.stir:14 and \
at bsrmm.stir:14"
# a primitive's refusal at a lowered block (it had no location)
refused bsrmm_rows_nospec.yaml "bsrmm.stir:14:5: error: cache_write_over_init: \
a local buffer needs a literal size"
refused bsrmm_rows_shared.yaml "bsrmm.stir:14:5: error: cache_read: the region \
of 'B_data' under loop 'f_1' depends on loop 'i_1'"

# the schedule files of bench/ and tests/tensorize/: those refused (some
# need sizes stirc cuda does not bind) give located errors only
n=0
for y in "$srcdir"/bench/*.yaml "$srcdir"/tests/tensorize/*.yaml; do
	k=$(sed -n 's/^kernel: *\([A-Za-z0-9_]*\).*/\1/p' "$y")
	p=
	for c in "$(dirname "$y")/$k.stir" "$srcdir/examples/$k.stir" \
	    "$srcdir/bench/$k.stir"; do
		[ -z "$p" ] && [ -r "$c" ] && p=$c
	done
	[ -n "$p" ] || continue
	"$stirc" cuda "$p" --kernel "$k" --schedule "$y" > /dev/null \
		2> "$tmp/err" && continue
	n=$((n + 1))
	if ! located; then
		echo "FAIL: $y: an error without a location"; cat "$tmp/err"
		fail=1
	fi
done
[ "$n" -ge 20 ] || { echo "FAIL: only $n refused schedule files"; fail=1; }

if grep -l -F '?:0' "$srcdir"/tests/gpu_refusals/*.err; then
	echo "FAIL: an expected refusal above cites '?:0'"
	fail=1
fi
exit $fail
