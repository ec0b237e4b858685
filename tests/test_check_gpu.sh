#!/bin/sh
# stirc check --gpu (docs/cuda.md "Checking a kernel for the GPU"): every
# program of tests/gpu_refusals is refused with exit 1 and exactly the
# located errors of its .err file, and stirc cuda with the same errors
# (the emitter runs the verifier and refuses nothing else; tests/test_cuda.c
# asserts messages through stir_kernel_to_cuda too);
# the catalogue and the CUDA test programs pass; the options are checked.
set -u
srcdir=${STIR_SRCDIR:-.}
stirc=${STIR_BUILDDIR:-.}/tools/stirc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# refused FILE CMD...: stirc CMD... exits 1 and prints the errors of
# FILE's .err (directories left out), and nothing on stdout.
refused() {
	f=$1
	shift
	"$stirc" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	grep -E ': (error|warning|note): ' "$tmp/err" | sed 's|^[^:]*/||' \
		> "$tmp/got"
	if [ "$rc" != 1 ] || [ -s "$tmp/out" ] ||
	    ! cmp -s "$tmp/got" "${f%.stir}.err"; then
		echo "FAIL: stirc $*: exit $rc"
		diff "${f%.stir}.err" "$tmp/got"
		fail=1
	fi
}

# check_refused FILE: stirc check FILE --gpu refuses it with the errors of
# its .err, and so does the emitter (stirc cuda), which runs the verifier
# first and refuses nothing of its own (verify/).
check_refused() {
	refused "$1" check "$1" --gpu
	refused "$1" cuda "$1"
}

n=0
for f in "$srcdir"/tests/gpu_refusals/*.stir; do
	check_refused "$f"
	n=$((n + 1))
done
[ "$n" -ge 30 ] || { echo "FAIL: only $n refusal programs"; fail=1; }

# what stirc cuda emits, stirc check --gpu accepts (printing nothing)
for f in "$srcdir"/examples/*.stir "$srcdir"/tests/cuda/*.stir; do
	out=$("$stirc" check "$f" --gpu 2>&1)
	rc=$?
	if [ "$rc" != 0 ] || [ -n "$out" ]; then
		echo "FAIL: stirc check $f --gpu: exit $rc"; echo "$out" | head
		fail=1
	fi
done
# with a schedule file, as stirc cuda takes it
for y in csrmm_hyb sddmm_rows; do
	prog=$y
	[ "$y" = csrmm_hyb ] && prog=csrmm
	out=$("$stirc" check "$srcdir/examples/$prog.stir" --gpu \
		--schedule "$srcdir/examples/$y.yaml" 2>&1)
	rc=$?
	if [ "$rc" != 0 ] || [ -n "$out" ]; then
		echo "FAIL: stirc check $prog.stir --gpu --schedule $y.yaml: exit $rc"
		echo "$out" | head
		fail=1
	fi
done

# a schedule whose cache in shared memory has no literal size (the
# schedule of examples/sddmm_rows.yaml up to stage II, without the
# specialize that makes the features a literal): refused, located at the
# launch since the buffer the schedule made has no place in the source
awk '/^stage3:/ { exit } { print }' "$srcdir/examples/sddmm_rows.yaml" |
	grep -v 'specialize\|^stage1:' > "$tmp/nospec.yaml"
"$stirc" check "$srcdir/examples/sddmm_rows.stir" --gpu \
	--schedule "$tmp/nospec.yaml" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" != 1 ] || ! grep -q "sddmm_rows.stir:13:12: error: shared buffer \
'X_shared' needs a positive literal extent" "$tmp/err"; then
	echo "FAIL: a shared cache of no literal size: exit $rc"; cat "$tmp/err"
	fail=1
fi

# options: --schedule needs --gpu; --gpu is a flag of check only
"$stirc" check "$srcdir/examples/csrmm.stir" \
	--schedule "$srcdir/examples/csrmm_hyb.yaml" > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" = 2 ] && grep -q -- "--schedule applies to --gpu only" "$tmp/err" ||
	{ echo "FAIL: check --schedule without --gpu: exit $rc"; fail=1; }
"$stirc" print "$srcdir/examples/csrmm.stir" --gpu > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" = 2 ] && grep -q "does not take --gpu" "$tmp/err" ||
	{ echo "FAIL: print --gpu: exit $rc"; cat "$tmp/err"; fail=1; }
"$stirc" check --help > "$tmp/out"
grep -q -- "--gpu" "$tmp/out" || { echo "FAIL: check --help"; fail=1; }
exit $fail
