#!/bin/sh
# Golden CUDA: the CUDA C that stirc emits for every hand-written stage III
# program tests/cuda/NAME.stir (kernel NAME) must match tests/golden/NAME.cu,
# and for every written schedule examples/NAME.yaml (of the catalogue
# program examples/KERNEL.stir it names) tests/golden/NAME.sched.cu;
# `make golden` regenerates them (review the diff before committing).
# Then every emitted kernel -- those, and the unscheduled stage III
# catalogue programs of tests/golden -- must compile with NVRTC for sm_90
# (skipped, not failed, when stir was built without NVRTC).
set -u
srcdir=${STIR_SRCDIR:-.}
stirc=${STIR_BUILDDIR:-.}/tools/stirc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect_golden GOLDEN ARGS...: "stirc cuda ARGS" prints exactly GOLDEN.
expect_golden() {
	golden=$1; shift
	if ! "$stirc" cuda "$@" > "$tmp/out" 2> "$tmp/err"; then
		echo "FAIL: stirc cuda $*"; cat "$tmp/err"; fail=1
	elif ! cmp -s "$tmp/out" "$golden"; then
		echo "FAIL: stirc cuda $* differs from $golden:"
		diff -u "$golden" "$tmp/out" | head -40
		fail=1
	fi
}

# kernel_of S.yaml: the kernel a schedule file names
kernel_of() {
	sed -n 's/^kernel: *\([A-Za-z0-9_]*\).*/\1/p' "$1"
}

for src in "$srcdir"/tests/cuda/*.stir; do
	name=$(basename "$src" .stir)
	expect_golden "$srcdir/tests/golden/$name.cu" "$src" --kernel "$name"
done
for sched in "$srcdir"/examples/*.yaml; do
	expect_golden "$srcdir/tests/golden/$(basename "$sched" .yaml).sched.cu" \
		"$srcdir/examples/$(kernel_of "$sched").stir" --schedule "$sched"
done
[ $fail = 0 ] && echo "golden CUDA: all match"

# NVRTC: a private cache, so that every kernel is really compiled
STIR_CACHE_DIR="$tmp/cache"
export STIR_CACHE_DIR
compiled=0
for src in "$srcdir"/tests/cuda/*.stir "$srcdir"/tests/golden/*.stage3.stir \
	"$srcdir"/examples/*.yaml; do
	case $src in
	*/tests/cuda/*) kernel="--kernel $(basename "$src" .stir)" ;;
	*.yaml) kernel="--schedule $src"
		src="$srcdir/examples/$(kernel_of "$src").stir" ;;
	*) kernel= ;;
	esac
	if "$stirc" cuda "$src" $kernel --compile --arch sm_90 -o "$tmp/k.cu" \
		> "$tmp/out" 2> "$tmp/err"; then
		compiled=$((compiled + 1))
		# NVRTC's warnings are printed; the emitted code should have none
		if [ -s "$tmp/err" ]; then
			echo "FAIL: NVRTC warns about $src $kernel:"; cat "$tmp/err"; fail=1
		fi
	elif grep -q "built without NVRTC" "$tmp/err"; then
		echo "SKIP: stir was built without NVRTC: nothing compiled"
		break
	else
		echo "FAIL: NVRTC rejects the CUDA of $src $kernel:"; head -40 "$tmp/err"
		fail=1
	fi
done
echo "NVRTC compiled $compiled kernels for sm_90"
exit $fail
