#!/bin/sh
# The stirc command line (LANGUAGE.md section 7): help, exit codes,
# diagnostics, the data options, stages, and verify on the catalogue.
set -u
srcdir=${STIR_SRCDIR:-.}
stirc=${STIR_BUILDDIR:-.}/tools/stirc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect STATUS CMD...: run CMD, compare its exit status.
expect() {
	want=$1; shift
	"$@" > "$tmp/out" 2> "$tmp/err"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: exit $got, expected $want: $*"
		cat "$tmp/out" "$tmp/err" | head -20
		fail=1
	fi
}

# grep_in FILE TEXT: FILE must contain TEXT.
grep_in() {
	if ! grep -qF -- "$2" "$1"; then
		echo "FAIL: expected '$2' in:"; head -20 "$1"; fail=1
	fi
}

expect 0 "$stirc" --help
grep_in "$tmp/out" "usage: stirc COMMAND"
for cmd in check print run verify; do
	expect 0 "$stirc" $cmd --help
	grep_in "$tmp/out" "usage: stirc $cmd"
done
expect 2 "$stirc"
expect 2 "$stirc" frobnicate
expect 2 "$stirc" run "$srcdir/examples/csrmm.stir" --bogus
expect 2 "$stirc" run "$srcdir/examples/csrmm.stir" --size feat
expect 2 "$stirc" print "$srcdir/examples/csrmm.stir" --stage 4
expect 2 "$stirc" check "$srcdir/examples/csrmm.stir" --kernel nope
expect 1 "$stirc" check "$tmp/missing.stir"
grep_in "$tmp/err" "missing.stir: error: cannot open file"

# a broken program: gcc-style diagnostic, source line, caret, exit 1
printf 'kernel k(m: i32) {\n  axis I = dense_fixed(m);\n  tensor A: f32[I];\n  iter x (i) in [I] "S" { A[i] = q; }\n}\n' > "$tmp/bad.stir"
expect 1 "$stirc" check "$tmp/bad.stir"
grep_in "$tmp/err" "bad.stir:4:34: error: undefined name 'q'"
grep_in "$tmp/err" "   iter x (i) in [I] \"S\" { A[i] = q; }"
grep_in "$tmp/err" "                                  ^"
expect 0 "$stirc" check "$srcdir/examples/csrmm.stir"

# print is canonical and reads back identically, at every stage
for stage in 1 2 3; do
	expect 0 "$stirc" print "$srcdir/examples/sddmm.stir" --stage $stage
	cp "$tmp/out" "$tmp/p$stage.stir"
	expect 0 "$stirc" print "$tmp/p$stage.stir"
	cmp -s "$tmp/out" "$tmp/p$stage.stir" || { echo "FAIL: stage $stage round trip"; fail=1; }
done
expect 2 "$stirc" print "$tmp/p3.stir" --stage 2

# run: --mtx, --random, --out; then the same inputs again through --in
expect 0 "$stirc" run "$srcdir/examples/csrmm.stir" \
	--mtx A="$srcdir/examples/data/citeseer.mtx.gz" --size feat=8 --random 5 \
	--out B="$tmp/B.npy" --out C="$tmp/C.npy"
expect 0 "$stirc" run "$srcdir/examples/csrmm.stir" \
	--mtx A="$srcdir/examples/data/citeseer.mtx.gz" --in B="$tmp/B.npy" \
	--out C="$tmp/C2.npy"
cmp -s "$tmp/C.npy" "$tmp/C2.npy" || { echo "FAIL: --in does not reproduce --out"; fail=1; }
expect 1 "$stirc" run "$srcdir/examples/csrmm.stir" \
	--mtx A="$srcdir/examples/data/citeseer.mtx.gz" --in B="$tmp/B.npy" --size feat=9
expect 1 "$stirc" run "$srcdir/examples/csrmm.stir" --random 1 --in Q="$tmp/B.npy"
grep_in "$tmp/err" "kernel 'csrmm' has no array 'Q'"
for stage in 2 3; do
	expect 0 "$stirc" run "$srcdir/examples/rgcn_homo.stir" --random 3 --stage $stage --check
	grep_in "$tmp/out" "check: rgcn_homo matches the stage I interpreter"
done
# the structure check names the array and the entry
expect 1 "$stirc" run "$srcdir/examples/segment_sum.stir" --random 2 --size m=2 \
	--size maxlen=4 --in J.indptr="$srcdir/tests/data/io/i4-v2.npy"
grep_in "$tmp/err" "J.indptr"

# verify: stages I, II, III agree on 20 seeds for every catalogue program
for src in "$srcdir"/examples/*.stir; do
	expect 0 "$stirc" verify "$src" --seeds 20
	grep_in "$tmp/out" ": ok"
done

[ $fail = 0 ] && echo "stirc: all checks passed"
exit $fail
