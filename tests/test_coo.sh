#!/bin/sh
# Fused iterations with COO arrays (sparse_fuse with coo, docs/schedules.md
# "Stored rows of a fused iteration") through stirc: the text of
# fuse(.., coo = true) reads back, lowering reads J.pos_I instead of
# searching, every stage and the schedules match stage I (verify, run
# --check), and the refusals are located; then --check's tolerance for
# sums whose terms cancel (relative to the sum of their magnitudes).
set -u
srcdir=${srcdir:-.}
stirc=${STIRC:-tools/stirc}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
ex=$srcdir/examples

# expect STATUS PATTERN CMD...: CMD exits with STATUS and prints PATTERN
expect() {
	want=$1 pat=$2
	shift 2
	"$@" > "$tmp/out" 2>&1
	got=$?
	if [ "$got" != "$want" ] || ! grep -q -- "$pat" "$tmp/out"; then
		echo "FAIL ($got, want $want; '$pat'): $*"; cat "$tmp/out"; fail=1
	fi
}

# the text: fuse(I, J, coo = true) prints and reads back the same
sed 's/fuse(I, J)/fuse(I, J, coo = true)/' "$ex/sddmm.stir" > "$tmp/sddmm_coo.stir"
"$stirc" print "$tmp/sddmm_coo.stir" > "$tmp/p1.stir" &&
	"$stirc" print "$tmp/p1.stir" > "$tmp/p2.stir" &&
	cmp -s "$tmp/p1.stir" "$tmp/p2.stir" &&
	grep -q "fuse(I, J, coo = true)" "$tmp/p1.stir" ||
	{ echo "FAIL: fuse(I, J, coo = true) does not read back"; fail=1; }
# lowered: a COO buffer, read once per non-zero, and no search; stage II
# reads back too
"$stirc" print "$tmp/sddmm_coo.stir" --after lower_sparse_iter > "$tmp/s2.stir"
grep -q "buffer J_pos_I: i32\[nnz\] = J.pos_I in \[0, m);" "$tmp/s2.stir" &&
	grep -q "let vi = J_pos_I\[vij\];" "$tmp/s2.stir" &&
	! grep -q upper_bound "$tmp/s2.stir" ||
	{ echo "FAIL: stage II of the COO program"; cat "$tmp/s2.stir"; fail=1; }
"$stirc" print "$tmp/s2.stir" | cmp -s - "$tmp/s2.stir" ||
	{ echo "FAIL: stage II with J.pos_I does not read back"; fail=1; }

# every stage against stage I: the program, COO SpMM, RGMS edge by edge
expect 0 "ok" "$stirc" verify "$tmp/sddmm_coo.stir" --seeds 3
expect 0 "ok" "$stirc" verify "$tmp/sddmm_coo.stir" --seeds 2 \
	--schedule "$ex/sddmm_fast.yaml"
expect 0 "ok" "$stirc" verify "$ex/csrmm.stir" --seeds 3 \
	--schedule "$srcdir/tests/coo/csrmm_coo.yaml"
expect 0 "ok" "$stirc" verify "$ex/rgms_edge.stir" --seeds 3 \
	--schedule "$ex/rgms_coo.yaml"
expect 0 "matches the stage I interpreter" "$stirc" run "$ex/rgms_edge.stir" \
	--schedule "$ex/rgms_coo.yaml" --random 1 --check \
	--hetero A="$srcdir/tests/data/graphs/small.hetero"
expect 0 "matches the stage I interpreter" "$stirc" run "$tmp/sddmm_coo.stir" \
	--mtx S="$srcdir/tests/data/graphs/small.mtx" --size feat=8 --random 1 \
	--stage 3 --check

# refusals, located
sed 's/fuse(I, J)/fuse(I, J, cool = true)/' "$ex/sddmm.stir" > "$tmp/bad1.stir"
expect 1 "bad1.stir:10:39: error: unknown option 'cool' of fuse: expected coo" \
	"$stirc" print "$tmp/bad1.stir"
sed 's/\[I, J\] "SR"/[fuse(I, J, coo = true)] "SR"/' "$ex/ellmv.stir" > "$tmp/bad2.stir"
expect 1 "bad2.stir:9:3: error: fuse with coo stores the rows that searches of indptr arrays find, but axis 'J' is sparse_fixed" \
	"$stirc" print "$tmp/bad2.stir"
sed 's/iters: \[rr, i, j\]}/iters: [rr, i, j], coo: yes}/' "$ex/rgms_edge.yaml" > "$tmp/bad3.yaml"
expect 1 "bad3.yaml:[0-9]*:[0-9]*: error: sparse_fuse: unknown value 'yes' (expected false or true)" \
	"$stirc" print "$ex/rgms_edge.stir" --schedule "$tmp/bad3.yaml"
printf 'kernel: csrmm\nstage1:\n  - sparse_fuse: {iter: nope, iters: [i, j], coo: true}\n' > "$tmp/bad4.yaml"
expect 1 "bad4.yaml:3:25: error: sparse_fuse: no iteration of kernel 'csrmm' matches 'nope'" \
	"$stirc" run "$ex/csrmm.stir" --schedule "$tmp/bad4.yaml" --random 1

# an array that disagrees with the structure: its first bad entry, the
# file it came from, exit 1, on either route
if command -v python3 > /dev/null 2>&1; then
	python3 - "$tmp" <<'PY'
import struct, sys
def save(path, code, shape, vals):
    hdr = "{'descr': '<%s', 'fortran_order': False, 'shape': (%s), }" % (
        code, ''.join('%d,' % d for d in shape))
    hdr += ' ' * ((64 - (10 + len(hdr) + 1) % 64) % 64) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode())
        f.write(struct.pack('<%d%s' % (len(vals), code[0]),
                            *vals))
d = sys.argv[1]
save(d + '/zero.npy', 'i4', (764,), [0] * 764)
save(d + '/short.npy', 'i4', (5,), [0] * 5)
# SDDMM terms that cancel: +1e4 in the first 32 features, -1e4 after
n, f = 120, 64
save(d + '/x.npy', 'f4', (n, f), [(1e4 if k < 32 else -1e4) +
     0.01 * ((i * 7 + k * 3) % 11) for i in range(n) for k in range(f)])
save(d + '/y.npy', 'f4', (n, f), [1.0 + 0.001 * ((j * 5 + k) % 7)
     for j in range(n) for k in range(f)])
PY
	expect 1 "error: array 'J.pos_I': entry 90 is 0, but position 90 of axis 'J' lies under position 1 of axis 'I'" \
		"$stirc" run "$tmp/sddmm_coo.stir" --size feat=8 --random 1 \
		--mtx S="$srcdir/tests/data/graphs/small.mtx" --in J.pos_I="$tmp/zero.npy"
	grep -q "array 'J.pos_I' was read from --in J.pos_I=" "$tmp/out" ||
		{ echo "FAIL: the --in file is not named"; fail=1; }
	expect 1 "error: array 'J.pos_I' has 5 elements, expected 764" \
		"$stirc" run "$tmp/sddmm_coo.stir" --size feat=8 --random 1 \
		--mtx S="$srcdir/tests/data/graphs/small.mtx" --in J.pos_I="$tmp/short.npy"
	# --check: the partial sums (rfactor) differ from stage I's order by
	# far more than f32's tolerance relative to results whose terms
	# cancel, and within it relative to the sum of their magnitudes
	expect 0 "S is within the float-sum bound of the stage I interpreter" \
		"$stirc" run "$ex/sddmm.stir" --mtx S="$srcdir/tests/data/graphs/small.mtx" \
		--in X="$tmp/x.npy" --in Y="$tmp/y.npy" --check \
		--schedule "$srcdir/tests/coo/sddmm_rfactor.yaml"
	grep -q "max |diff| 0\.0[0-9]" "$tmp/out" ||
		{ echo "FAIL: the cancelling sums did not differ"; cat "$tmp/out"; fail=1; }
fi
exit $fail
