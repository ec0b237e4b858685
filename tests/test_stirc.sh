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
grep_in "$tmp/out" "stirc --help | --version"
for cmd in check print cuda run verify tune; do
	expect 0 "$stirc" $cmd --help
	grep_in "$tmp/out" "usage: stirc $cmd"
	expect 0 "$stirc" $cmd -h
	grep_in "$tmp/out" "usage: stirc $cmd"
done

# each command's --help names exactly the options it takes: an option of
# any command missing from a command's help is refused by that command
for cmd in check print cuda run verify tune; do
	"$stirc" $cmd --help | sed -n 's/^  \(-h, \)\{0,1\}\(--[a-z-]*\|-o\) .*/\2/p' |
		sort -u > "$tmp/help-$cmd"
done
sort -u "$tmp"/help-* > "$tmp/help-all"
for cmd in check print cuda run verify tune; do
	while read -r opt; do
		# the value a path in $tmp: -o writes there, not in the build folder
		"$stirc" $cmd "$srcdir/examples/csrmm.stir" $opt "$tmp/1" > "$tmp/out" 2> "$tmp/err"
		refused=no
		grep -qE "does not take $opt\$|unknown (or ambiguous )?option '$opt'" "$tmp/err" && refused=yes
		named=no
		grep -qx -- "$opt" "$tmp/help-$cmd" && named=yes
		if [ $refused = $named ]; then
			echo "FAIL: stirc $cmd $opt: refused: $refused, named by its --help: $named"
			fail=1
		fi
	done < "$tmp/help-all"
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

# --schedule: a schedule file applied on print, run, verify (and cuda,
# tests/test_cuda_golden.sh)
for cmd in print cuda run verify; do
	expect 0 "$stirc" $cmd --help
	grep_in "$tmp/out" "--schedule S"
done
expect 0 "$stirc" print "$srcdir/examples/csrmm.stir" --schedule "$srcdir/examples/csrmm.yaml"
grep_in "$tmp/out" "kernel csrmm(m: i32, n: i32, feat: i32, nnz: i32) stage 2 {"
grep_in "$tmp/out" "for k in [0, feat) bind(threadIdx.x) {"
expect 0 "$stirc" print "$srcdir/examples/csrmm.stir" --schedule "$srcdir/examples/csrmm.yaml" --stage 3
grep_in "$tmp/out" "buffer C_local: f32[1] local;"
expect 0 "$stirc" print "$srcdir/examples/csrmm.stir" --schedule "$srcdir/examples/csrmm_hyb.yaml" --stage 1
grep_in "$tmp/out" "iter csrmm_hyb_0_5 (o, r, c, k) in [O_hyb_0_5, R_hyb_0_5, C_hyb_0_5, K]"
expect 0 "$stirc" run "$srcdir/examples/csrmm.stir" --schedule "$srcdir/examples/csrmm_hyb.yaml" \
	--mtx A="$srcdir/examples/data/cora.mtx.gz" --random 1 --check
grep_in "$tmp/out" "check: csrmm matches the stage I interpreter"
grep_in "$tmp/out" "C: f32[2708, 64]"
expect 0 "$stirc" run "$srcdir/examples/csrmm.stir" --schedule "$srcdir/examples/csrmm_hyb.yaml" \
	--mtx A="$srcdir/examples/data/cora.mtx.gz" --random 1 --check --stage 1 --time
grep_in "$tmp/out" "(interp, stage 1)"
grep_in "$tmp/out" "check: csrmm matches the stage I interpreter"
expect 0 "$stirc" run "$srcdir/examples/sddmm.stir" --schedule "$srcdir/examples/sddmm_fast.yaml" \
	--mtx S="$srcdir/examples/data/cora.mtx.gz" --random 1 --check --stage 2
grep_in "$tmp/out" "check: sddmm matches the stage I interpreter"
expect 0 "$stirc" verify "$srcdir/examples/rgms.stir" --schedule "$srcdir/examples/rgms.yaml" --seeds 5
grep_in "$tmp/out" "rgms: 5 seeds from 1: stage II"
# a cache of gathered rows, each row's copy under the rows' tail guard
expect 0 "$stirc" verify "$srcdir/examples/rgms_agg.stir" --schedule "$srcdir/tests/tensorize/rgms_rows_read.yaml" --seeds 5
grep_in "$tmp/out" "rgms_agg: 5 seeds from 1: stage II"
expect 0 "$stirc" print "$srcdir/examples/rgms_agg.stir" --stage 3 --schedule "$srcdir/tests/tensorize/rgms_rows_read.yaml"
grep_in "$tmp/out" "X_data_shared[(v1 * 2 + v2) * 8 + v3] = X_data[v0 + J_indices[rrij_0 * 8 + v1] * 16 + v2 * 8 + v3];"
grep_in "$tmp/out" "if (rrij_0 * 8 + v1 < nnz_j) {"
# caches per loop on stage II buffers (a slot per iteration of j_1)
expect 0 "$stirc" verify "$srcdir/examples/bsrmm.stir" --schedule "$srcdir/tests/tensorize/bsrmm_per_stage2.yaml" --seeds 3
grep_in "$tmp/out" "bsrmm: 3 seeds from 1: stage II"
# errors: the schedule's line and a caret, exit 1; a kernel that is not
# the schedule's, exit 2
printf 'kernel: csrmm\nstage2:\n  - bind: {block: csrmm1, loop: k, to: threadIdx.q}\n' > "$tmp/bad.yaml"
expect 1 "$stirc" print "$srcdir/examples/csrmm.stir" --schedule "$tmp/bad.yaml"
grep_in "$tmp/err" "bad.yaml:3:40: error: bind: unknown thread index 'threadIdx.q'"
grep_in "$tmp/err" "   - bind: {block: csrmm1, loop: k, to: threadIdx.q}"
grep_in "$tmp/err" "                                        ^"
printf 'kernel: csrmm\nstage2:\n  - unroll: {block: csrmm7, loop: k}\n' > "$tmp/bad.yaml"
expect 1 "$stirc" run "$srcdir/examples/csrmm.stir" --schedule "$tmp/bad.yaml" --random 1
grep_in "$tmp/err" "bad.yaml:3:21: error: unroll: no block of kernel 'csrmm' matches 'csrmm7'"
expect 2 "$stirc" print "$srcdir/examples/csrmm.stir" --schedule "$srcdir/examples/sddmm.yaml" --kernel csrmm
expect 1 "$stirc" print "$srcdir/examples/csrmm.stir" --schedule "$srcdir/examples/sddmm.yaml"
grep_in "$tmp/err" "sddmm.yaml:4:9: error: the program has no kernel 'sddmm'"
expect 1 "$stirc" run "$srcdir/examples/csrmm.stir" --schedule "$srcdir/examples/csrmm_hyb.yaml" \
	--random 1 --size feat=32
grep_in "$tmp/err" "error: size 'feat' is bound to 32, but the schedule specializes the kernel for 64"
expect 1 "$stirc" verify "$srcdir/examples/csrmm.stir" --schedule "$tmp/missing.yaml"
grep_in "$tmp/err" "missing.yaml: error: cannot open file"

# print --after PASS: the program right after a pass of the GPU pipeline
# (docs/schedules.md, "Pipelines"); every pass, skipped ones too
# noloc FILE: the CUDA C in FILE without its comments that point at .stir
# lines (a printed program has lines of its own, the statements schedules
# made among them)
noloc() { sed -E -e 's@  // [A-Za-z0-9_]+\.stir:[0-9]+$@@' -e 's/[A-Za-z0-9_]+\.stir:[0-9]+/STIR:LINE/g' "$1"; }
expect 0 "$stirc" print --help
grep_in "$tmp/out" "--after PASS"
csrmm="$srcdir/examples/csrmm.stir"
expect 0 "$stirc" print "$csrmm" --stage 2
cp "$tmp/out" "$tmp/stage2.stir"
expect 0 "$stirc" print "$csrmm" --after lower_sparse_iter
cmp -s "$tmp/out" "$tmp/stage2.stir" || { echo "FAIL: --after lower_sparse_iter is not --stage 2"; fail=1; }
expect 0 "$stirc" print "$csrmm" --after default_schedule
grep_in "$tmp/out" "kernel csrmm(m: i32, n: i32, feat: i32, nnz: i32) stage 2 {"
grep_in "$tmp/out" "for i_1 in [0, 256) bind(threadIdx.x) {"
# after the last pass: the very kernel stirc cuda emits
expect 0 "$stirc" print "$csrmm" --after lower_sparse_buffer
cp "$tmp/out" "$tmp/gpu3.stir"
grep_in "$tmp/gpu3.stir" "stage 3 {"
expect 0 "$stirc" cuda "$csrmm"
noloc "$tmp/out" > "$tmp/want.cu"
expect 0 "$stirc" cuda "$tmp/gpu3.stir"
noloc "$tmp/out" | cmp -s - "$tmp/want.cu" || { echo "FAIL: --after lower_sparse_buffer is not what cuda emits"; fail=1; }
# a stage III program passes every pass unchanged
for pass in lower_sparse_iter default_schedule lower_sparse_buffer; do
	expect 0 "$stirc" print "$tmp/gpu3.stir" --after $pass
	cmp -s "$tmp/out" "$tmp/gpu3.stir" || { echo "FAIL: --after $pass changed a stage III program"; fail=1; }
done
# a schedule step on planned stage III text: the plans are made again for
# the rewritten bodies (a cache between a vectorized copy and its source
# leaves the copy's loop without vectors)
expect 0 "$stirc" print "$srcdir/examples/sddmm.stir" --schedule "$srcdir/examples/sddmm_fast.yaml" --after plan_vectors
cp "$tmp/out" "$tmp/planned.stir"
printf 'kernel: sddmm\nstage3:\n  - cache_read: {block: X_data_local, buffer: X_data, loop: ax0, scope: local}\n' > "$tmp/replan.yaml"
expect 0 "$stirc" print "$tmp/planned.stir" --schedule "$tmp/replan.yaml"
grep_in "$tmp/out" "for ax0 in [0, 4) vectorize() {"
grep_in "$tmp/out" "vectorize(Y_data[J_indices"
cp "$tmp/out" "$tmp/replanned.stir"
expect 0 "$stirc" print "$tmp/replanned.stir" --after plan_vectors
cmp -s "$tmp/out" "$tmp/replanned.stir" || { echo "FAIL: the plans made after a step are not plan_vectors'"; fail=1; }
# several kernels: each one, up to the pass
printf 'kernel a(m: i32) {\n  axis I = dense_fixed(m);\n  tensor X: f32[I];\n  iter a (i) in [I] "S" { X[i] = 1.0; }\n}\n\nkernel b(m: i32) {\n  axis I = dense_fixed(m);\n  tensor Y: f32[I];\n  iter b (i) in [I] "S" { Y[i] = 2.0; }\n}\n' > "$tmp/two.stir"
expect 0 "$stirc" print "$tmp/two.stir" --after lower_sparse_buffer
grep_in "$tmp/out" "kernel a(m: i32) stage 3 {"
grep_in "$tmp/out" "kernel b(m: i32) stage 3 {"
expect 0 "$stirc" print "$tmp/two.stir" --after lower_sparse_iter --kernel b
grep_in "$tmp/out" "kernel b(m: i32) stage 2 {"
# with --schedule: the schedule's sections are passes too
yaml="$srcdir/examples/csrmm.yaml"
expect 0 "$stirc" print "$csrmm" --schedule "$yaml"
cp "$tmp/out" "$tmp/sched2.stir"
expect 0 "$stirc" print "$csrmm" --schedule "$yaml" --after stage2
cmp -s "$tmp/out" "$tmp/sched2.stir" || { echo "FAIL: --schedule --after stage2"; fail=1; }
expect 0 "$stirc" print "$csrmm" --schedule "$yaml" --after stage1
grep_in "$tmp/out" "iter csrmm (i, j, k) in [I, J, K] \"SRS\" {"
expect 0 "$stirc" print "$csrmm" --schedule "$yaml" --after default_schedule
cp "$tmp/out" "$tmp/sched3.stir"
expect 0 "$stirc" cuda "$csrmm" --schedule "$yaml"
noloc "$tmp/out" > "$tmp/want.cu"
expect 0 "$stirc" cuda "$tmp/sched3.stir"
noloc "$tmp/out" | cmp -s - "$tmp/want.cu" || { echo "FAIL: --schedule --after default_schedule is not what cuda emits"; fail=1; }
# cuda --min-blocks N: every launch bounded for N blocks per SM, the rest
# of the CUDA unchanged (docs/schedules.md, min_blocks_per_sm)
expect 0 "$stirc" cuda "$csrmm" --schedule "$yaml" --min-blocks 3
grep_in "$tmp/out" "__launch_bounds__(256, 3) csrmm_k0("
sed 's/__launch_bounds__(\([0-9]*\), 3)/__launch_bounds__(\1)/' "$tmp/out" | noloc - |
	cmp -s - "$tmp/want.cu" || { echo "FAIL: cuda --min-blocks changes more than the launch bounds"; fail=1; }
# ... and it overrides the schedule file's min_blocks_per_sm
{ cat "$yaml"; echo "min_blocks_per_sm: 2"; } > "$tmp/mb2.yaml"
expect 0 "$stirc" cuda "$csrmm" --schedule "$tmp/mb2.yaml"
grep_in "$tmp/out" "__launch_bounds__(256, 2) csrmm_k0("
expect 0 "$stirc" cuda "$csrmm" --schedule "$tmp/mb2.yaml" --min-blocks 3
grep_in "$tmp/out" "__launch_bounds__(256, 3) csrmm_k0("
expect 2 "$stirc" cuda "$csrmm" --min-blocks 33
grep_in "$tmp/err" "--min-blocks takes 1 to 32, not '33'"
# an unknown pass: exit 2, naming the passes there are
expect 2 "$stirc" print "$csrmm" --after lower
grep_in "$tmp/err" "stirc: --after: unknown pass 'lower' (the passes: lower_sparse_iter, default_schedule, lower_sparse_buffer, lift_guards, hoist_invariants, hoist_warp_reads, insert_barriers, plan_vectors)"
expect 2 "$stirc" print "$tmp/missing.stir" --after lower
expect 2 "$stirc" print "$csrmm" --schedule "$yaml" --after lower_sparse_iterr
grep_in "$tmp/err" "stirc: --after: unknown pass 'lower_sparse_iterr' (the passes: format, stage1, lower_sparse_iter, stage2.1, stage2.2, stage2.3, stage2.4, stage2.5, stage2.6, stage2, lower_sparse_buffer, stage3, default_schedule, lift_guards, hoist_invariants, hoist_warp_reads, insert_barriers, plan_vectors)"
expect 2 "$stirc" print "$csrmm" --after lower_sparse_iter --stage 2
grep_in "$tmp/err" "--after and --stage cannot go together"
expect 2 "$stirc" print "$csrmm" --after
grep_in "$tmp/err" "--after needs a value (a pass name)"
expect 2 "$stirc" print "$csrmm" --after stage1 --after stage2
grep_in "$tmp/err" "--after is given twice"
expect 2 "$stirc" cuda "$csrmm" --after lower_sparse_iter
grep_in "$tmp/err" "'stirc cuda' does not take --after"
# a pass that fails: its diagnostic, exit 1
printf 'kernel: csrmm\nstage2:\n  - unroll: {block: csrmm7, loop: k}\n' > "$tmp/bad.yaml"
expect 0 "$stirc" print "$csrmm" --schedule "$tmp/bad.yaml" --after lower_sparse_iter
expect 1 "$stirc" print "$csrmm" --schedule "$tmp/bad.yaml" --after stage2.1
grep_in "$tmp/err" "bad.yaml:3:21: error: unroll: no block of kernel 'csrmm' matches 'csrmm7'"
# each step is a pass: after the second, the kernel of the first two
head -8 "$yaml" > "$tmp/two.yaml"
expect 0 "$stirc" print "$csrmm" --schedule "$tmp/two.yaml"
cp "$tmp/out" "$tmp/two_steps.stir"
grep_in "$tmp/two_steps.stir" "for i_1 in [0, 8) {"
expect 0 "$stirc" print "$csrmm" --schedule "$yaml" --after stage2.2
cmp -s "$tmp/out" "$tmp/two_steps.stir" || { echo "FAIL: --after stage2.2 is not the first two steps"; fail=1; }

# cuda: the CUDA C of a stage III program, to the standard output or a file
expect 0 "$stirc" cuda "$srcdir/tests/cuda/spmv_warp.stir" --kernel spmv_warp
grep_in "$tmp/out" 'extern "C" __global__ void __launch_bounds__(32) spmv_warp_k0('
grep_in "$tmp/out" "__shfl_down_sync(0xffffffffu, stir_red0, 16, 32);"
cmp -s "$tmp/out" "$srcdir/tests/golden/spmv_warp.cu" || { echo "FAIL: stirc cuda differs from the golden file"; fail=1; }
expect 0 "$stirc" cuda "$srcdir/tests/cuda/spmv_warp.stir" --kernel spmv_warp -o "$tmp/k.cu"
cmp -s "$tmp/k.cu" "$srcdir/tests/golden/spmv_warp.cu" || { echo "FAIL: stirc cuda -o"; fail=1; }
expect 2 "$stirc" cuda "$srcdir/tests/cuda/spmv_warp.stir"
grep_in "$tmp/err" "holds 2 kernels; choose one with --kernel"
expect 2 "$stirc" cuda "$srcdir/tests/cuda/spmv_warp.stir" --kernel spmv_warp --seed 3
# a program the emitter refuses
printf 'kernel k(m: i32) stage 3 {\n  buffer A: f32[m] = A;\n  for i in [0, m) bind(threadIdx.x) {\n    for j in [0, m) bind(threadIdx.x) {\n      A[j] = 1.0;\n    }\n  }\n}\n' > "$tmp/twice.stir"
expect 1 "$stirc" cuda "$tmp/twice.stir"
grep_in "$tmp/err" "twice.stir:4:5: error: loop 'j' is bound to threadIdx.x inside loop 'i', bound to the same index"
# --compile: NVRTC, when stir has it
STIR_CACHE_DIR="$tmp/cache" "$stirc" cuda "$srcdir/tests/cuda/tiled_mv.stir" \
	--kernel tiled_mv --compile --arch sm_90 -o "$tmp/k.cu" > "$tmp/out" 2> "$tmp/err"
case $? in
0) [ -s "$tmp/err" ] && { echo "FAIL: NVRTC warns"; cat "$tmp/err"; fail=1; } ;;
*) grep -q "built without NVRTC" "$tmp/err" || { echo "FAIL: stirc cuda --compile"; cat "$tmp/err"; fail=1; } ;;
esac
STIR_CACHE_DIR="$tmp/cache" "$stirc" cuda "$srcdir/tests/cuda/tiled_mv.stir" \
	--kernel tiled_mv --compile --arch sm_12 > "$tmp/out" 2> "$tmp/err"
[ $? = 1 ] || { echo "FAIL: stirc cuda --compile --arch sm_12 should fail"; fail=1; }

# the GPU backend without a driver: a clear error, exit 1
expect 1 env STIR_LIBCUDA=/nonexistent/libcuda.so.1 "$stirc" run \
	"$srcdir/tests/cuda/twostep.stir" --kernel twostep --backend cuda --random 1
grep_in "$tmp/err" "no CUDA driver"
expect 1 env STIR_LIBCUDA=/nonexistent/libcuda.so.1 "$stirc" verify \
	"$srcdir/examples/csrmm.stir" --backend cuda
grep_in "$tmp/err" "no CUDA driver"
expect 2 "$stirc" run "$srcdir/tests/cuda/twostep.stir" --kernel twostep \
	--backend cuda --stage 3
expect 2 "$stirc" run "$srcdir/tests/cuda/twostep.stir" --kernel twostep \
	--arch sm_90
expect 2 "$stirc" run "$srcdir/tests/cuda/twostep.stir" --backend gpu
expect 2 "$stirc" run "$srcdir/tests/cuda/twostep.stir" --kernel twostep \
	--min-blocks 2
grep_in "$tmp/err" "--arch and --min-blocks apply to --backend cuda only"
expect 2 "$stirc" --version run
grep_in "$tmp/err" "unexpected argument 'run' after --version"
expect 2 "$stirc" --help tir --random 1
grep_in "$tmp/err" "unexpected argument 'tir' after --help"
expect 2 "$stirc" cuda "$srcdir/examples/csrmm.stir" --compile --arch sm_xx
grep_in "$tmp/err" "--arch takes an architecture such as sm_90 or sm_90a, not 'sm_xx'"
expect 2 "$stirc" run "$srcdir/examples/csrmm.stir" --backend cuda --arch 90
expect 2 "$stirc" cuda "$srcdir/examples/csrmm.stir" --arch sm_90
grep_in "$tmp/err" "--arch applies to --compile only"
expect 2 "$stirc" verify "$srcdir/examples/csrmm.stir" --backend cuda \
	--min-blocks 33
grep_in "$tmp/err" "--min-blocks takes 1 to 32, not '33'"
# the benchmark's timing: its options only with --time on the GPU
expect 2 "$stirc" run "$srcdir/tests/cuda/twostep.stir" --kernel twostep \
	--time --reps 5
grep_in "$tmp/err" "--warmups and --reps apply to --time with --backend cuda only"
expect 2 "$stirc" run "$srcdir/tests/cuda/twostep.stir" --kernel twostep \
	--backend cuda --warmups 3
grep_in "$tmp/err" "--warmups and --reps apply to --time with --backend cuda only"
expect 2 "$stirc" run "$srcdir/tests/cuda/twostep.stir" --backend cuda \
	--time --reps 0
grep_in "$tmp/err" "--reps takes 1 to 100000, not '0'"
expect 2 "$stirc" run "$srcdir/tests/cuda/twostep.stir" --backend cuda \
	--time --warmups -1
grep_in "$tmp/err" "--warmups takes 0 to 10000, not '-1'"
# ... and with the fake driver of the tests, which runs "twostep": the
# kernel compiled with NVRTC, uploaded, launched, timed, downloaded and
# checked against the interpreter (skipped without NVRTC)
fake=${STIR_BUILDDIR:-.}/tests/.libs/libfakecuda.so
if [ -r "$fake" ]; then
	STIR_LIBCUDA=$fake STIR_CACHE_DIR="$tmp/cache" "$stirc" run \
		"$srcdir/tests/cuda/twostep.stir" --kernel twostep --backend cuda \
		--random 4 --size n=200 --check --time --min-blocks 2 --reps 4 \
		--out Y="$tmp/Y.npy" \
		> "$tmp/out" 2> "$tmp/err"
	case $? in
	0)
		grep_in "$tmp/out" "time: 1.5000 ms, the median of 4 runs after 10 warm-ups, the L2 cache flushed before each (min 1.5000, max 1.5000; Fake CUDA Device; code compiled by NVRTC)"
		grep_in "$tmp/out" "check: twostep matches the stage III interpreter"
		grep_in "$tmp/out" "inputs: read, generated and formats built on the host in"
		"$stirc" run "$srcdir/tests/cuda/twostep.stir" --kernel twostep \
			--random 4 --size n=200 --out Y="$tmp/Y2.npy" > /dev/null &&
		cmp -s "$tmp/Y.npy" "$tmp/Y2.npy" ||
			{ echo "FAIL: GPU and interpreter outputs differ"; fail=1; }
		;;
	*)
		grep -q "built without NVRTC" "$tmp/err" ||
			{ echo "FAIL: stirc run --backend cuda (fake)"; cat "$tmp/err"; fail=1; }
		;;
	esac
fi

# npy FILE DESCR SHAPE DATA: write a .npy file (version 1.0) whose data
# bytes are the printf format DATA (little-endian).
npy() {
	printf '\223NUMPY\001\000\166\000' > "$1"
	printf '%-117s\n' "{'descr': '$2', 'fortran_order': False, 'shape': $3, }" >> "$1"
	printf "$4" >> "$1"
}
csrmm=$srcdir/examples/csrmm.stir
cora=$srcdir/examples/data/cora.mtx.gz

# options say what is wrong with them (issue 14, item 6)
expect 2 "$stirc" run "$csrmm" --size
grep_in "$tmp/err" "stirc: --size needs a value (NAME=INT)"
expect 2 "$stirc" run "$csrmm" --random 1 --out
grep_in "$tmp/err" "stirc: --out needs a value (ARRAY=FILE)"
expect 2 "$stirc" cuda "$csrmm" -o
grep_in "$tmp/err" "stirc: -o needs a value (a file name)"
expect 2 "$stirc" check "$csrmm" --stage 3
grep_in "$tmp/err" "stirc: 'stirc check' does not take --stage"
expect 2 "$stirc" run "$csrmm" --seeds 3
grep_in "$tmp/err" "stirc: 'stirc run' does not take --seeds"
expect 2 "$stirc" run "$csrmm" --check=yes
grep_in "$tmp/err" "stirc: --check takes no value"
expect 2 "$stirc" run "$csrmm" -q
grep_in "$tmp/err" "stirc: unknown option '-q'"
expect 2 "$stirc" run "$csrmm" --random 1 --random 2
grep_in "$tmp/err" "stirc: --random is given twice"
expect 2 "$stirc" print "$csrmm" --kernel csrmm --kernel csrmm
grep_in "$tmp/err" "stirc: --kernel is given twice"
expect 2 "$stirc" run "$csrmm" --random 1 --size feat=2 --size feat=2
grep_in "$tmp/err" "stirc: --size feat is given twice"
expect 2 "$stirc" run "$csrmm" --random 1 --size feat=-2
grep_in "$tmp/err" "stirc: --size: '-2' is negative"
for bad in 99999999999999999999 12x ' 12' '' 0x10; do
	expect 2 "$stirc" run "$csrmm" --random 1 --size "feat=$bad"
done
expect 2 "$stirc" run "$csrmm" --random 99999999999999999999
grep_in "$tmp/err" "--random takes a non-negative integer, not '99999999999999999999'"
expect 2 "$stirc" verify "$csrmm" --seeds 0
expect 2 "$stirc" verify "$csrmm" --seed -1
# a size the kernel does not have, even with --random
expect 1 "$stirc" run "$csrmm" --random 1 --size feta=8
grep_in "$tmp/err" "stirc: --size feta=8: kernel 'csrmm' has no size parameter 'feta'"
expect 1 "$stirc" verify "$csrmm" --size feta=8
grep_in "$tmp/err" "has a size parameter 'feta'"
# --out: an array of the kernel, once, to a file nothing else reads or writes
expect 2 "$stirc" run "$csrmm" --random 1 --out Q="$tmp/q.npy"
grep_in "$tmp/err" "stirc: --out Q=$tmp/q.npy: kernel 'csrmm' has no array 'Q'"
[ -e "$tmp/q.npy" ] && { echo "FAIL: --out Q wrote a file"; fail=1; }
expect 2 "$stirc" run "$csrmm" --random 1 --out C="$tmp/f.npy" --out B="$tmp/f.npy"
grep_in "$tmp/err" "stirc: --out $tmp/f.npy and --out $tmp/f.npy write the same file"
expect 2 "$stirc" run "$csrmm" --random 1 --out C="$tmp/f.npy" --out B="$tmp/../$(basename "$tmp")/f.npy"
grep_in "$tmp/err" "write the same file"
expect 2 "$stirc" run "$csrmm" --random 1 --out C="$tmp/c1.npy" --out C="$tmp/c2.npy"
grep_in "$tmp/err" "stirc: --out C is given twice"
cp "$csrmm" "$tmp/prog.stir"
cp "$tmp/prog.stir" "$tmp/prog.orig"
ln -s "$tmp/prog.stir" "$tmp/link.stir"
expect 2 "$stirc" run "$tmp/prog.stir" --random 1 --out C="$tmp/prog.stir"
grep_in "$tmp/err" "stirc: --out $tmp/prog.stir would overwrite the program $tmp/prog.stir"
expect 2 "$stirc" run "$tmp/prog.stir" --random 1 --out C="$tmp/link.stir"
grep_in "$tmp/err" "would overwrite the program"
expect 2 "$stirc" cuda "$tmp/link.stir" -o "$tmp/prog.stir"
grep_in "$tmp/err" "stirc: -o $tmp/prog.stir would overwrite the program $tmp/link.stir"
cmp -s "$tmp/prog.stir" "$tmp/prog.orig" || { echo "FAIL: the program was overwritten"; fail=1; }
expect 2 "$stirc" cuda "$csrmm" --schedule "$srcdir/examples/csrmm.yaml" -o "$srcdir/examples/csrmm.yaml"
grep_in "$tmp/err" "would overwrite --schedule"
expect 0 "$stirc" run "$csrmm" --random 1 --size feat=4 --out B="$tmp/B4.npy"
expect 2 "$stirc" run "$csrmm" --random 1 --size feat=4 --in B="$tmp/B4.npy" --out C="$tmp/B4.npy"
grep_in "$tmp/err" "stirc: --out $tmp/B4.npy would overwrite --in $tmp/B4.npy"
expect 2 "$stirc" run "$csrmm" --mtx A="$cora" --random 1 --out C="$cora"
grep_in "$tmp/err" "would overwrite --mtx"

# an array bound by two options, in either order (item 2)
expect 0 "$stirc" run "$csrmm" --random 1 --size m=2 --size n=3 --size nnz=2 \
	--size feat=1 --out J.indices="$tmp/ji.npy"
expect 2 "$stirc" run "$csrmm" --mtx A="$cora" --in J.indices="$tmp/ji.npy"
grep_in "$tmp/err" "stirc: --mtx A=$cora and --in J.indices=$tmp/ji.npy both bind array 'J.indices'"
expect 2 "$stirc" run "$csrmm" --in J.indices="$tmp/ji.npy" --mtx A="$cora"
grep_in "$tmp/err" "stirc: --mtx A=$cora and --in J.indices=$tmp/ji.npy both bind array 'J.indices'"
expect 2 "$stirc" run "$csrmm" --mtx A="$cora" --mtx A="$cora"
grep_in "$tmp/err" "both bind array 'A'"
expect 2 "$stirc" run "$csrmm" --mtx A="$cora" --in A="$tmp/ji.npy"
grep_in "$tmp/err" "both bind array 'A'"
expect 2 "$stirc" run "$csrmm" --in B="$tmp/B4.npy" --in B="$tmp/B4.npy"
grep_in "$tmp/err" "stirc: --in B=$tmp/B4.npy and --in B=$tmp/B4.npy both bind array 'B'"
# a size given by --size and implied otherwise must agree
expect 1 "$stirc" run "$csrmm" --mtx A="$cora" --size m=5 --random 1
grep_in "$tmp/err" "error: the matrix bound to 'A' has rows 2708, but size 'm' is bound to 5"

# input data converted only when exact (item 3), quoting the file's value
npy "$tmp/jp2.npy" '<i8' '(2,)' '\000\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000'
npy "$tmp/ji-wide.npy" '<i8' '(1,)' '\001\000\000\000\001\000\000\000'
expect 1 "$stirc" run "$csrmm" --size n=2 --size feat=1 --in J.indptr="$tmp/jp2.npy" \
	--in J.indices="$tmp/ji-wide.npy" --random 1
grep_in "$tmp/err" "error: array 'J.indices': entry 0 is 4294967297 (i64), which is out of the range of i32"
grep_in "$tmp/err" "$tmp/ji-wide.npy: note: read for --in J.indices=$tmp/ji-wide.npy"
npy "$tmp/jp-frac.npy" '<f8' '(2,)' '\000\000\000\000\000\000\000\000\000\000\000\000\000\000\004\100'
expect 1 "$stirc" run "$csrmm" --size n=2 --size feat=1 --in J.indptr="$tmp/jp-frac.npy" --random 1
grep_in "$tmp/err" "error: array 'J.indptr': entry 1 is 2.5 (f64), which is not exactly representable in i32"
npy "$tmp/ji-nan.npy" '<f4' '(1,)' '\000\000\300\177'
expect 1 "$stirc" run "$csrmm" --size n=2 --size feat=1 --in J.indptr="$tmp/jp2.npy" \
	--in J.indices="$tmp/ji-nan.npy" --random 1
grep_in "$tmp/err" "error: array 'J.indices': entry 0 is nan (f32), which is not exactly representable in i32"
npy "$tmp/ji-f1.npy" '<f4' '(1,)' '\000\000\200\077'
expect 0 "$stirc" run "$csrmm" --size n=2 --size feat=1 --in J.indptr="$tmp/jp2.npy" \
	--in J.indices="$tmp/ji-f1.npy" --random 1
npy "$tmp/b-big.npy" '<f8' '(1, 1)' '\000\000\000\000\000\000\360\107'
expect 1 "$stirc" run "$srcdir/examples/csrmm.stir" --size n=1 --size feat=1 --in B="$tmp/b-big.npy" --random 1
grep_in "$tmp/err" "error: array 'B': entry 0 is 3.402823669209385e+38 (f64), which overflows f32"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 2.5\n' > "$tmp/frac.mtx"
printf 'kernel k(m: i32, n: i32, nnz: i32) {\n  axis I = dense_fixed(m);\n  axis J = sparse_variable(I, n, nnz);\n  tensor A: i32[I, J];\n  tensor C: i32[I];\n  iter s (i, j) in [I, J] "SR" { C[i] += A[i, j]; }\n}\n' > "$tmp/isum.stir"
expect 1 "$stirc" run "$tmp/isum.stir" --mtx A="$tmp/frac.mtx"
grep_in "$tmp/err" "error: array 'A': entry 0 is 2.5 (f64), which is not exactly representable in i32"

# both backends validate the structure before anything runs (item 7):
# here before the GPU is even looked for
npy "$tmp/jp-dec.npy" '<i4' '(3,)' '\000\000\000\000\002\000\000\000\001\000\000\000'
npy "$tmp/jp-22.npy" '<i4' '(3,)' '\000\000\000\000\002\000\000\000\002\000\000\000'
npy "$tmp/ji-uns.npy" '<i4' '(2,)' '\001\000\000\000\000\000\000\000'
for backend in interp cuda; do
	expect 1 env STIR_LIBCUDA=/nonexistent/libcuda.so.1 "$stirc" run "$csrmm" \
		--backend $backend --size n=2 --size feat=1 --in J.indptr="$tmp/jp-dec.npy" --random 1
	grep_in "$tmp/err" "error: array 'J.indptr': entry 2 is 1, less than entry 1 (2)"
	expect 1 env STIR_LIBCUDA=/nonexistent/libcuda.so.1 "$stirc" run "$csrmm" \
		--backend $backend --size n=2 --size feat=1 --in J.indptr="$tmp/jp-22.npy" \
		--in J.indices="$tmp/ji-uns.npy" --random 1
	grep_in "$tmp/err" "error: array 'J.indices': entry 1 is 0, not greater than entry 0 (1) in the same row"
done
expect 1 "$stirc" run "$csrmm" --stage 3 --size n=2 --size feat=1 \
	--in J.indptr="$tmp/jp-22.npy" --in J.indices="$tmp/ji-uns.npy" --random 1
grep_in "$tmp/err" "error: array 'J.indices': entry 1 is 0, not greater than entry 0 (1) in the same row"

# a stage III program, whose axes are gone, checks its structure arrays
# as far as its buffers tell: an indptr does not decrease; the indices
# that it searches ascend in each row
npy "$tmp/ji01.npy" '<i4' '(2,)' '\000\000\000\000\001\000\000\000'
npy "$tmp/jo.npy" '<i4' '(2,)' '\000\000\000\000\002\000\000\000'
for backend in interp cuda; do
	expect 1 env STIR_LIBCUDA=/nonexistent/libcuda.so.1 "$stirc" run \
		"$srcdir/tests/golden/csrmm.stage3.stir" --backend $backend \
		--size m=2 --size nnz=2 --size n=2 --size feat=1 \
		--in J.indptr="$tmp/jp-dec.npy" --in J.indices="$tmp/ji01.npy" --random 1
	grep_in "$tmp/err" "error: array 'J.indptr': entry 2 is 1, less than entry 1 (2)"
	expect 1 env STIR_LIBCUDA=/nonexistent/libcuda.so.1 "$stirc" run \
		"$srcdir/tests/golden/csr2bsr.stage3.stir" --backend $backend \
		--size m=2 --size nnz=2 --size mb=1 --size nnzb=2 --size n=8 --size nb=2 \
		--in J.indptr="$tmp/jp-22.npy" --in J.indices="$tmp/ji01.npy" \
		--in JO.indptr="$tmp/jo.npy" --in JO.indices="$tmp/ji-uns.npy" --random 1
	grep_in "$tmp/err" "error: array 'JO.indices': entry 1 is 0, not greater than entry 0 (1) in the same row"
done
# only a bisection needs sorted indices: the same program searching JO
# by find (a scan) takes JO.indices in any order
sed 's/lower_bound(JO_indices/find(JO_indices/' \
	"$srcdir/tests/golden/csr2bsr.stage3.stir" > "$tmp/csr2bsr_find.stir"
grep_in "$tmp/csr2bsr_find.stir" "let JO_pos = find(JO_indices"
expect 0 "$stirc" run "$tmp/csr2bsr_find.stir" \
	--size m=2 --size nnz=2 --size mb=1 --size nnzb=2 --size n=8 --size nb=2 \
	--in J.indptr="$tmp/jp-22.npy" --in J.indices="$tmp/ji01.npy" \
	--in JO.indptr="$tmp/jo.npy" --in JO.indices="$tmp/ji-uns.npy" --random 1

# a format built on the host for a schedule file's decompose step that
# needs 64-bit indices: advice in the program's terms, at the step
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 2.5\n' > "$tmp/one.mtx"
printf 'kernel: csrmm\nformat:\n  - decompose: {tensor: A, rules: [{bsr: {block: 65536}}]}\n' > "$tmp/bsr.yaml"
expect 1 "$stirc" run "$csrmm" --schedule "$tmp/bsr.yaml" --mtx A="$tmp/one.mtx" --random 1 --stage 1
grep_in "$tmp/err" "bsr.yaml:3:37: note: while building the bsr format of tensor 'A' on the host: its indices take the type of axis 'I' (i32); declare it with idtype = i64 in the program"

# hostile inputs end quickly in a located error (exit 1): devices that
# never end, random bytes, control bytes, sizes a kernel cannot hold, and
# programs beyond the size limit
for dev in /dev/zero /dev/urandom; do
	[ -r $dev ] || continue
	expect 1 timeout 10 "$stirc" check $dev
	grep_in "$tmp/err" "$dev:"
	grep_in "$tmp/err" ": error: control character"
	grep_in "$tmp/err" "in the program"
	expect 1 timeout 10 "$stirc" run "$csrmm" --mtx A=$dev --random 1
	grep_in "$tmp/err" "$dev:1:"
	# random bytes may fail the banner before any control byte
	if [ $dev = /dev/zero ]; then
		grep_in "$tmp/err" "in a Matrix Market file"
	fi
	expect 1 timeout 10 "$stirc" run "$csrmm" --in B=$dev --random 1
	grep_in "$tmp/err" "$dev: error: not a .npy file (bad magic string) at byte offset 0"
	expect 1 timeout 10 "$stirc" print "$csrmm" --schedule $dev
	grep_in "$tmp/err" "in the schedule"
	if [ $dev = /dev/zero ]; then
		grep_in "$tmp/err" "/dev/zero:1:1: error: control character NUL in the schedule"
	fi
done
printf '%%%%MatrixMarket matrix coordinate real general\n2147483648 4 1\n1 1 1.0\n' > "$tmp/rows.mtx"
expect 1 "$stirc" run "$csrmm" --mtx A="$tmp/rows.mtx" --random 1
grep_in "$tmp/err" "rows.mtx:2:1: error: number of rows 2147483648 too large for the i32 sizes of tensor 'A' (at most 2147483647)"
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 1\n1 1 1\0005\n' > "$tmp/nul.mtx"
expect 1 "$stirc" run "$csrmm" --mtx A="$tmp/nul.mtx" --random 1
grep_in "$tmp/err" "nul.mtx:3:6: error: control character NUL in a Matrix Market file"
printf 'kernel k(m: i32) {\n  axis I = dense_fixed(m);\001\n}\n' > "$tmp/ctl.stir"
expect 1 "$stirc" check "$tmp/ctl.stir"
grep_in "$tmp/err" "ctl.stir:2:27: error: control character 0x01 in the program"
head -c 17000000 /dev/zero | tr '\0' ' ' > "$tmp/huge.stir"
expect 1 "$stirc" check "$tmp/huge.stir"
grep_in "$tmp/err" "huge.stir: error: program larger than 16777216 bytes"
printf 'kernel: csrmm\nstage2:\n  - split: {loop: csrmm.i,\000 factor: 4}\n' > "$tmp/nul.yaml"
expect 1 "$stirc" print "$csrmm" --schedule "$tmp/nul.yaml"
grep_in "$tmp/err" "nul.yaml:3:27: error: control character NUL in the schedule"
if command -v mkfifo > /dev/null && mkfifo "$tmp/fifo"; then
	# a pipe that never ends
	(cat /dev/zero > "$tmp/fifo" 2> /dev/null &)
	expect 1 timeout 10 "$stirc" check "$tmp/fifo"
	grep_in "$tmp/err" "fifo:1:1: error: control character NUL in the program"
fi

# --hetero: a relational graph bound to rgms.stir's A (sizes from the
# file), plain and with its schedule; a malformed file is exit 1 at its
# line and column; a tensor that is not [R, I, J] is refused
small_h=$srcdir/tests/data/graphs/small.hetero
expect 0 "$stirc" run "$srcdir/examples/rgms.stir" --hetero A="$small_h" \
	--size fin=4 --size fout=3 --random 1 --check
grep_in "$tmp/out" "check: rgms matches the stage I interpreter"
grep_in "$tmp/out" "Y: f32[12, 3]"
expect 0 "$stirc" run "$srcdir/examples/rgms.stir" --schedule "$srcdir/examples/rgms.yaml" \
	--hetero A="$small_h" --size fin=4 --size fout=3 --random 2 --check
grep_in "$tmp/out" "check: rgms matches the stage I interpreter"
printf '%%%%hetero 3 1 2\n0 3 0\n' > "$tmp/bad.hetero"
expect 1 "$stirc" run "$srcdir/examples/rgms.stir" --hetero A="$tmp/bad.hetero" \
	--size fin=4 --size fout=3 --random 1
grep_in "$tmp/err" "bad.hetero:2:3: error: destination node 3 out of range"
expect 1 "$stirc" run "$srcdir/examples/rgms.stir" --hetero W="$small_h" \
	--size fin=4 --size fout=3 --random 1
grep_in "$tmp/err" "tensor 'W' is not a relational matrix"
expect 1 "$stirc" run "$srcdir/examples/rgms.stir" --hetero A="$small_h" \
	--size r=5 --size fin=4 --size fout=3 --random 1
grep_in "$tmp/err" "has relations 4, but size 'r' is bound to 5"
expect 2 "$stirc" run "$srcdir/examples/rgms.stir" --hetero A="$small_h" \
	--in J.indices="$tmp/x.npy"
grep_in "$tmp/err" "both bind array 'J.indices'"
# bench/heterogen's graphs read back: the same seed gives the same file,
# and rgms runs on one
heterogen=${STIR_BUILDDIR:-.}/bench/heterogen
"$heterogen" 40 300 6 5 > "$tmp/g1.hetero" || { echo "FAIL: heterogen"; fail=1; }
"$heterogen" 40 300 6 5 > "$tmp/g2.hetero"
cmp -s "$tmp/g1.hetero" "$tmp/g2.hetero" || { echo "FAIL: heterogen differs"; fail=1; }
grep_in "$tmp/g1.hetero" "%%hetero 40 300 6"
expect 0 "$stirc" run "$srcdir/examples/rgms.stir" --hetero A="$tmp/g1.hetero" \
	--size fin=2 --size fout=3 --random 1 --check
grep_in "$tmp/out" "A: f32[300]"
grep_in "$tmp/out" "check: rgms matches the stage I interpreter"
expect 1 "$heterogen" 4 300 6 5

# the tuning record of these tests in $tmp, never the user's
STIR_CACHE_DIR="$tmp/tunecache"
export STIR_CACHE_DIR
# stirc tune --model-only (docs/recipes.md, "The tuner"): the model's
# pick, written as a schedule file that run --schedule applies and checks
# against the interpreter, for the SpMM and both SDDMM programs at two
# feature sizes; deterministic; bad input refused
for f in 128 20; do
	expect 0 "$stirc" tune "$srcdir/examples/csrmm.stir" --mtx A="$cora" \
		--size feat=$f --model-only -o "$tmp/s.yaml"
	grep_in "$tmp/err" "the cost model's pick"
	grep_in "$tmp/s.yaml" "value: $f}"
	grep_in "$tmp/s.yaml" "{hybrid: {column_parts:"
	expect 0 "$stirc" run "$srcdir/examples/csrmm.stir" --mtx A="$cora" \
		--size feat=$f --random 1 --schedule "$tmp/s.yaml" --check
	grep_in "$tmp/out" "check: csrmm matches"
	for p in sddmm sddmm_rows; do
		expect 0 "$stirc" tune "$srcdir/examples/$p.stir" --mtx S="$cora" \
			--size feat=$f --model-only -o "$tmp/d.yaml"
		expect 0 "$stirc" run "$srcdir/examples/$p.stir" --mtx S="$cora" \
			--size feat=$f --random 1 --schedule "$tmp/d.yaml" --check
		grep_in "$tmp/out" "check: $p matches"
	done
done
# the SDDMM over groups of 4 and 8 rows: --mtx S= binds the row groups the
# library builds from the matrix (for sddmm_vb4_csr.stir also Dst, the
# slots' places in the matrix's order, and S over them); the model's pick
# at 32 and 6 features runs and matches the interpreter
for p in sddmm_vb4 sddmm_vb8 sddmm_vb4_csr; do
	kn=sddmm_vb
	[ $p = sddmm_vb4_csr ] && kn=sddmm_vb_csr
	for f in 32 6; do
		expect 0 "$stirc" tune "$srcdir/examples/$p.stir" --mtx S="$cora" \
			--size feat=$f --model-only --no-record -o "$tmp/d.yaml"
		grep_in "$tmp/err" "the cost model's pick"
		expect 0 "$stirc" run "$srcdir/examples/$p.stir" --mtx S="$cora" \
			--size feat=$f --random 1 --schedule "$tmp/d.yaml" --check
		grep_in "$tmp/out" "check: $kn matches"
	done
done
# the SDDMM over SR-BCRS(8, 16) tiles straight into CSR order: --mtx S=
# binds the tiles the library builds from the matrix (G.indptr, C.indices,
# Dst and S over the slots, the sizes nw, maxg, ng, n, nv), and the
# tensor-core schedule matches the interpreter on Cora; a size that
# disagrees with the matrix, and the map bound as the matrix, refused with
# their locations
tiles=$srcdir/examples/sddmm_tiles_csr.stir
expect 0 "$stirc" run "$tiles" --mtx S="$cora" --size feat=32 --random 1 \
	--schedule "$srcdir/examples/sddmm_tiles_csr_tc.yaml" --check
grep_in "$tmp/out" "check: sddmm_tiles_csr matches the stage I interpreter (max |diff| 0)"
grep_in "$tmp/out" "Dst: i32[98048]"
grep_in "$tmp/out" "X: f32[339, 8, 32]"
expect 1 "$stirc" run "$tiles" --mtx S="$cora" --size feat=32 --size nw=5 \
	--random 1
grep_in "$tmp/err" "sddmm_tiles_csr.stir:12:24: error: the matrix bound to 'S' has windows of rows 339, but size 'nw' is bound to 5"
expect 1 "$stirc" run "$tiles" --mtx Dst="$cora" --size feat=32 --random 1
grep_in "$tmp/err" "sddmm_tiles_csr.stir:21:10: error: tensor 'Dst' is not a CSR matrix"
# the tile recipe (schedule/recipes/sddmm_tiles.c): the model's pick at
# 64 and 24 features written by tune --model-only, accepted by run --check
# on Cora; the record holds its entry; 12 features (not steps of 8): no
# candidate, refused at the kernel
rm -rf "$tmp/tunecache"
for f in 64 24; do
	expect 0 "$stirc" tune "$tiles" --mtx S="$cora" --size feat=$f \
		--model-only -o "$tmp/tiles.yaml"
	grep_in "$tmp/err" "kernel sddmm_tiles_csr at $f features: candidate"
	grep_in "$tmp/tiles.yaml" "intrinsic: mma_m16n8k8_3xtf32"
	expect 0 "$stirc" run "$tiles" --mtx S="$cora" --size feat=$f --random 1 \
		--schedule "$tmp/tiles.yaml" --check
	grep_in "$tmp/out" "check: sddmm_tiles_csr matches the stage I interpreter"
done
expect 0 "$stirc" tune --list
grep_in "$tmp/out" "# 2 entries"
grep_in "$tmp/out" "sddmm_tiles  feat 64  rows 2708"
expect 1 "$stirc" tune "$tiles" --mtx S="$cora" --size feat=12 --model-only
grep_in "$tmp/err" "sddmm_tiles_csr.stir:10:8: error: no candidate of the recipe for kernel 'sddmm_tiles_csr' applies at 12 features"
rm -rf "$tmp/tunecache"
# a read through a distinct index (docs/schedules.md, "Writes through a
# distinct index"): cache_read of A[P[i, k]] at loop k holds A at P of the
# region's 4 entries of P, and stages II and III agree with stage I on
# random inputs (P drawn as a permutation); without 'distinct' the region
# is the whole of A, which a local cache cannot hold
cat > "$tmp/through.stir" <<'EOF'
kernel g(n: i32, m: i32) {
  axis I = dense_fixed(n);
  axis K = dense_fixed(4);
  axis V = dense_fixed(m);
  tensor P: i32[I, K] in [0, m) distinct;
  tensor A: f32[V];
  tensor B: f32[I, K];
  iter e (i, k) in [I, K] "SS" { B[i, k] = A[P[i, k]] * 2.0 + A[P[i, k]]; }
}
EOF
printf 'kernel: g\nstage3:\n  - cache_read: {block: e0, buffer: A_data, loop: k, scope: local}\n' \
	> "$tmp/through.yaml"
expect 0 "$stirc" verify "$tmp/through.stir" --schedule "$tmp/through.yaml" --seeds 10
grep_in "$tmp/out" "g: 10 seeds from 1: stage II max |diff| 0, stage III max |diff| 0: ok"
expect 0 "$stirc" print "$tmp/through.stir" --stage 3 --schedule "$tmp/through.yaml"
grep_in "$tmp/out" "A_data_local[v1] = A_data[P_data[v0 + v1]];"
sed 's/ distinct//' "$tmp/through.stir" > "$tmp/plain.stir"
expect 1 "$stirc" verify "$tmp/plain.stir" --schedule "$tmp/through.yaml" --seeds 1
grep_in "$tmp/err" "a local buffer needs a literal size, but the region of 'A_data' under loop 'k' has m elements"
# each SDDMM program covers its own candidates; stirc tune says when the
# model ranks the other program's first: Cora's short rows the fused
# schedule, a band of 69 non-zeros a row the row schedule
expect 0 "$stirc" tune "$srcdir/examples/sddmm_rows.stir" --mtx S="$cora" \
	--size feat=32 --model-only --no-record -o "$tmp/d.yaml"
grep_in "$tmp/err" "ranks the fused schedule first for this matrix (candidate"
grep_in "$tmp/err" "of examples/sddmm.stir"
expect 0 "$stirc" tune "$srcdir/examples/sddmm.stir" --mtx S="$cora" \
	--size feat=32 --model-only --no-record -o "$tmp/d.yaml"
if grep -q "ranks the" "$tmp/err"; then
	echo "FAIL: a note for the program the model ranks first"; fail=1
fi
awk 'BEGIN { n = 4000; w = 34; print "%%MatrixMarket matrix coordinate real general"
	print n, n, n * (2 * w + 1) - w * (w + 1)
	for (i = 1; i <= n; i++) for (j = i - w; j <= i + w; j++)
		if (j >= 1 && j <= n) print i, j, 1 }' > "$tmp/band.mtx"
expect 0 "$stirc" tune "$srcdir/examples/sddmm.stir" --mtx S="$tmp/band.mtx" \
	--size feat=32 --model-only --no-record -o "$tmp/d.yaml"
grep_in "$tmp/err" "ranks the row schedule first for this matrix (candidate"
grep_in "$tmp/err" "of examples/sddmm_rows.stir"
expect 0 "$stirc" tune "$srcdir/examples/csrmm.stir" --mtx A="$cora" \
	--size feat=64 --model-only
cp "$tmp/out" "$tmp/s1.yaml"
expect 0 "$stirc" tune "$srcdir/examples/csrmm.stir" --mtx A="$cora" \
	--size feat=64 --model-only
cmp -s "$tmp/out" "$tmp/s1.yaml" || { echo "FAIL: tune differs"; fail=1; }
expect 0 "$stirc" tune --help
grep_in "$tmp/out" "usage: stirc tune"
# without --model-only, the measured search: it needs a GPU (where there
# is one, it tunes)
"$stirc" tune "$srcdir/examples/csrmm.stir" --mtx A="$cora" --size feat=64 \
	--no-record > "$tmp/out" 2> "$tmp/err"
case $? in
0) grep_in "$tmp/err" "measured" ;;
1) grep_in "$tmp/err" "the measured search needs a GPU" ;;
*) echo "FAIL: stirc tune without --model-only"; fail=1 ;;
esac
expect 2 "$stirc" tune "$srcdir/examples/csrmm.stir" --mtx A="$cora" \
	--size feat=64 --budget-s 0
grep_in "$tmp/err" "--budget-s takes seconds"
expect 2 "$stirc" tune "$srcdir/examples/csrmm.stir" --mtx A="$cora" \
	--size feat=64 --top x
grep_in "$tmp/err" "--top takes a count"
expect 2 "$stirc" tune "$srcdir/examples/csrmm.stir" --mtx A="$cora" \
	--size feat=0 --model-only
expect 2 "$stirc" tune "$srcdir/examples/csrmm.stir" --size feat=8 \
	--model-only
expect 2 "$stirc" tune "$srcdir/examples/csrmm.stir" --mtx A="$cora" \
	--size feat=8 --model-only --bogus
expect 1 "$stirc" tune "$srcdir/examples/csr_softmax.stir" --mtx A="$cora" \
	--size feat=8 --model-only
grep_in "$tmp/err" "no recipe covers kernel 'csr_softmax'"
expect 1 "$stirc" tune "$srcdir/examples/bsrmm.stir" --mtx A="$cora" \
	--size feat=8 --model-only
grep_in "$tmp/err" "no candidate of the recipe for kernel 'bsrmm' applies at 8 features"
expect 1 "$stirc" tune "$srcdir/examples/csrmm.stir" --mtx A="$tmp/none.mtx" \
	--size feat=8 --model-only
grep_in "$tmp/err" "none.mtx"
# a kernel named csrmm that is not the SpMM: the recipe refuses it
sed 's/sddmm/csrmm/g' "$srcdir/examples/sddmm.stir" > "$tmp/fake.stir"
expect 1 "$stirc" tune "$tmp/fake.stir" --mtx A="$cora" --size feat=8 \
	--model-only
grep_in "$tmp/err" "error:"

# the tuning record: a miss stores, the same key hits (same schedule), a
# similar graph is reported, a damaged entry is ignored with a warning,
# two processes at once both succeed and leave whole entries
rm -rf "$tmp/tunecache"
csrmm="$srcdir/examples/csrmm.stir"
expect 0 "$stirc" tune "$csrmm" --mtx A="$cora" --size feat=64 --model-only
cp "$tmp/out" "$tmp/t1.yaml"
grep_in "$tmp/err" "the cost model's pick"
expect 0 "$stirc" tune --list
grep_in "$tmp/out" "# 1 entries"
grep_in "$tmp/out" "spmm_hybrid  feat 64  rows 2708"
expect 0 "$stirc" tune "$csrmm" --mtx A="$cora" --size feat=64 --model-only
grep_in "$tmp/err" "from the tuning record"
cmp -s "$tmp/out" "$tmp/t1.yaml" || { echo "FAIL: record hit differs"; fail=1; }
# the hit printed the schedule file stored beside the entry: one that is
# damaged, or of another candidate (a sum that holds), is not used, and
# the candidate is scheduled again, stored anew
sched=$(ls "$tmp"/tunecache/tune/*.schedule)
[ -f "$sched" ] || { echo "FAIL: no schedule stored"; fail=1; }
printf '# stir-tune schedule: candidate 0, feat 64, 2 bytes\nx\n' > "$sched"
expect 0 "$stirc" tune "$csrmm" --mtx A="$cora" --size feat=64 --model-only
grep_in "$tmp/err" "schedule $sched is damaged; ignored"
cmp -s "$tmp/out" "$tmp/t1.yaml" || { echo "FAIL: damaged schedule"; fail=1; }
body=$(printf '# stir-tune schedule: candidate 9999, feat 64, 2 bytes\nx\n')
{ printf '%s\n' "$body"
  printf '# sum %s\n' "$(printf '%s\n' "$body" | sha256sum | cut -c1-64)"; } > "$sched"
expect 0 "$stirc" tune "$csrmm" --mtx A="$cora" --size feat=64 --model-only
grep -q damaged "$tmp/err" && { echo "FAIL: a whole schedule called damaged"; fail=1; }
cmp -s "$tmp/out" "$tmp/t1.yaml" || { echo "FAIL: other candidate's schedule"; fail=1; }
grep_in "$sched" "# stir-tune schedule: candidate"
sed '1d;$d' "$sched" > "$tmp/stored.yaml"
cmp -s "$tmp/stored.yaml" "$tmp/t1.yaml" || { echo "FAIL: schedule not stored anew"; fail=1; }
# another feature size, another program: other keys
expect 0 "$stirc" tune "$csrmm" --mtx A="$cora" --size feat=32 --model-only
expect 0 "$stirc" tune "$srcdir/examples/sddmm.stir" --mtx S="$cora" \
	--size feat=64 --model-only
expect 0 "$stirc" tune --list
grep_in "$tmp/out" "# 3 entries"
# cora without its last edge (both directions): a similar graph
gzip -dc "$cora" | awk 'BEGIN { n = 0 } /^%/ { print; next }
	n == 0 { n = 1; print $1, $2, $3 - 1; next } { l[++k] = $0 }
	END { for (i = 1; i < k; i++) print l[i] }' > "$tmp/cora1.mtx"
expect 0 "$stirc" tune "$csrmm" --mtx A="$tmp/cora1.mtx" --size feat=64 \
	--model-only
grep_in "$tmp/err" "similar graph's entry"
expect 0 "$stirc" tune --list
grep_in "$tmp/out" "# 4 entries"
# damaged entries: ignored with a warning, then written anew
for e in "$tmp"/tunecache/tune/*; do printf 'stir-tune 1\nprogram x\n' > "$e"; done
expect 0 "$stirc" tune "$csrmm" --mtx A="$cora" --size feat=64 --model-only
grep_in "$tmp/err" "damaged; ignored"
cmp -s "$tmp/out" "$tmp/t1.yaml" || { echo "FAIL: after damage"; fail=1; }
expect 0 "$stirc" tune "$csrmm" --mtx A="$cora" --size feat=64 --model-only
grep_in "$tmp/err" "from the tuning record"
# two processes at once, on the same key and on another
rm -rf "$tmp/tunecache"
"$stirc" tune "$csrmm" --mtx A="$cora" --size feat=128 --model-only \
	-o "$tmp/p1.yaml" 2> "$tmp/p1.err" &
pid1=$!
"$stirc" tune "$csrmm" --mtx A="$cora" --size feat=128 --model-only \
	-o "$tmp/p2.yaml" 2> "$tmp/p2.err" &
pid2=$!
"$stirc" tune "$csrmm" --mtx A="$cora" --size feat=16 --model-only \
	-o "$tmp/p3.yaml" 2> "$tmp/p3.err"
wait $pid1 || { echo "FAIL: concurrent tune 1"; cat "$tmp/p1.err"; fail=1; }
wait $pid2 || { echo "FAIL: concurrent tune 2"; cat "$tmp/p2.err"; fail=1; }
cmp -s "$tmp/p1.yaml" "$tmp/p2.yaml" || { echo "FAIL: concurrent differ"; fail=1; }
expect 0 "$stirc" tune --list
grep_in "$tmp/out" "# 2 entries"
ls "$tmp/tunecache/tune" | grep -v '\.schedule$' | grep -q '\.' &&
	{ echo "FAIL: temporary left"; fail=1; }
expect 2 "$stirc" tune --list "$csrmm"

# stirc run --tune: on the interpreter the model's pick, through the
# record (a miss, then a hit), run and checked; the SDDMM too; refusals
rm -rf "$tmp/tunecache"
for i in 1 2; do
	expect 0 "$stirc" run "$csrmm" --mtx A="$cora" --size feat=24 --random 1 \
		--tune --check
	grep_in "$tmp/out" "check: csrmm matches the stage I interpreter"
done
grep_in "$tmp/err" "from the tuning record, the cost model's pick"
expect 0 "$stirc" tune --list
grep_in "$tmp/out" "spmm_hybrid  feat 24  rows 2708"
expect 0 "$stirc" run "$srcdir/examples/sddmm_rows.stir" --mtx S="$cora" \
	--size feat=8 --random 1 --tune --check
grep_in "$tmp/err" "tuned: the cost model's pick"
grep_in "$tmp/out" "check: sddmm_rows matches"
expect 2 "$stirc" run "$csrmm" --mtx A="$cora" --random 1 --tune
grep_in "$tmp/err" "--tune needs the matrix"
expect 2 "$stirc" run "$csrmm" --mtx A="$cora" --size feat=8 --random 1 \
	--tune --schedule "$srcdir/examples/csrmm_hyb.yaml"
grep_in "$tmp/err" "--tune chooses the schedule"
expect 2 "$stirc" run "$csrmm" --mtx A="$cora" --size feat=8 --random 1 \
	--tune --budget-s 2
grep_in "$tmp/err" "--budget-s applies to --tune with --backend cuda only"
expect 2 "$stirc" run "$csrmm" --mtx A="$cora" --size feat=8 --random 1 \
	--tune --backend cuda --budget-s 0
grep_in "$tmp/err" "--budget-s takes seconds"
expect 1 "$stirc" run "$srcdir/examples/bsrmm.stir" --mtx A="$cora" \
	--size feat=8 --random 1 --tune
grep_in "$tmp/err" "no candidate of the recipe for kernel 'bsrmm' applies at 8 features"
# on cuda, the measured search: without a GPU, refused with the note
expect 1 env STIR_LIBCUDA=/nonexistent/libcuda.so.1 "$stirc" run "$csrmm" \
	--mtx A="$cora" --size feat=8 --random 1 --tune --backend cuda
grep_in "$tmp/err" "the measured search needs a GPU"
expect 0 "$stirc" run --help
grep_in "$tmp/out" "--tune"

# One rule of sizes (stir_size_offender): what the verifier accepts in a
# size, binding evaluates.  abs() was accepted by 'check' and refused by
# 'run' ("calls a function other than min or max").
cat > "$tmp/abs.stir" <<'EOF'
kernel k(m: i32, n: i32) {
  axis I = dense_fixed(abs(m - n) + min(m, n));
  tensor A: f32[I];
  iter s (i) in [I] "S" {
    A[i] = 1.0;
  }
}
EOF
expect 0 "$stirc" check "$tmp/abs.stir"
for stage in 1 2 3; do
	expect 0 "$stirc" run "$tmp/abs.stir" --size m=2 --size n=7 \
		--stage $stage
	grep_in "$tmp/out" "A: f32[7] sum 7"
done
expect 0 "$stirc" verify "$tmp/abs.stir" --size m=9 --size n=4

[ $fail = 0 ] && echo "stirc: all checks passed"
# stirc recipe (docs/recipes.md, "A recipe as a schedule file"): the
# list; a candidate of each recipe written as a schedule file that stirc
# run --check then applies to the same program; the refusals
expect 0 "$stirc" recipe --list
for r in spmm_hybrid sddmm sddmm_vblock sddmm_tiles bsr_tc srbcrs_tc rgms_tc rgms rgms_edge; do
	grep_in "$tmp/out" "$r "
done
expect 0 "$stirc" recipe --help
grep_in "$tmp/out" "usage: stirc recipe"
expect 0 "$stirc" recipe "$srcdir/examples/csrmm.stir" --recipe srbcrs_tc \
	--candidate 2 --size feat=32 -o "$tmp/sr.yaml"
grep_in "$tmp/sr.yaml" "sr_bcrs: {t: 16, g: 8, cover_rows: true, chunk: 8}"
expect 0 "$stirc" run "$srcdir/examples/csrmm.stir" --schedule "$tmp/sr.yaml" \
	--mtx A="$srcdir/tests/data/graphs/small.mtx" --random 1 --check
expect 0 "$stirc" recipe "$srcdir/examples/csrmm.stir" --recipe spmm_hybrid \
	--candidate 0 --size feat=64 -o "$tmp/hyb.yaml"
expect 0 "$stirc" run "$srcdir/examples/csrmm.stir" --schedule "$tmp/hyb.yaml" \
	--mtx A="$srcdir/tests/data/graphs/small.mtx" --random 1 --check
expect 0 "$stirc" recipe "$srcdir/examples/rgms_agg.stir" --recipe rgms_tc \
	--candidate 0 --size feat=16
grep_in "$tmp/out" "guard_to_bound: {block: apply1, loop: i_0_1}"
cp "$tmp/out" "$tmp/rg.yaml"
expect 0 "$stirc" run "$srcdir/examples/rgms_agg.stir" --schedule "$tmp/rg.yaml" \
	--hetero A="$srcdir/tests/data/graphs/small.hetero" --size fin=16 \
	--size fout=16 --random 3 --check
# the CUDA-core RGMS recipe writes examples/rgms_aggruns.yaml's schedule,
# which runs against stage I
expect 0 "$stirc" recipe "$srcdir/examples/rgms_agg.stir" --recipe rgms \
	--candidate 1 --size feat=64 -o "$tmp/rgc.yaml"
grep -v '^#' "$srcdir/examples/rgms_aggruns.yaml" | grep -v '^overlap' > "$tmp/want"
grep -v '^#' "$tmp/rgc.yaml" | grep -v '^overlap' > "$tmp/got"
cmp -s "$tmp/want" "$tmp/got" || { echo "FAIL: stirc recipe rgms 1 is not examples/rgms_aggruns.yaml"; diff "$tmp/want" "$tmp/got" | head; fail=1; }
expect 0 "$stirc" run "$srcdir/examples/rgms_agg.stir" \
	--schedule "$srcdir/examples/rgms_aggruns.yaml" \
	--hetero A="$srcdir/tests/data/graphs/small.hetero" --random 3 --check
# the edge-by-edge RGMS recipe (4 edges a thread) against stage I
expect 0 "$stirc" recipe "$srcdir/examples/rgms_edge.stir" --recipe rgms_edge \
	--candidate 1 --size feat=16 -o "$tmp/rge.yaml"
grep_in "$tmp/rge.yaml" "cache_write_runs: {block: rgms0, buffer: Y_data, loop: rrij_2, scope: local}"
expect 0 "$stirc" run "$srcdir/examples/rgms_edge.stir" --schedule "$tmp/rge.yaml" \
	--hetero A="$srcdir/tests/data/graphs/small.hetero" --size fin=16 \
	--size fout=16 --random 3 --check
# (a record of their own)
STIR_CACHE_DIR="$tmp/rgcache"
# stirc run --backend cuda without --schedule on the RGMS programs takes
# the rules' pick (the CUDA-core candidate of 4 edges a thread), said on
# stderr (here no GPU runs it: the exit status is not checked); a feature
# size no recipe takes, or fin != fout, keeps the default schedule
for p in rgms_agg:0 rgms_edge:1; do
	"$stirc" run "$srcdir/examples/${p%%:*}.stir" \
		--backend cuda --random 1 \
		--hetero A="$srcdir/tests/data/graphs/small.hetero" --size fin=16 \
		--size fout=16 > "$tmp/out" 2> "$tmp/err"
	grep_in "$tmp/err" "kernel ${p%%:*} at 16 features under the recipe's candidate ${p#*:} (the recipe's rules' pick"
	"$stirc" run "$srcdir/examples/${p%%:*}.stir" \
		--backend cuda --random 1 \
		--hetero A="$srcdir/tests/data/graphs/small.hetero" --size fin=16 \
		--size fout=8 > "$tmp/out" 2> "$tmp/err"
	if grep -q "recipe's candidate" "$tmp/err"; then
		echo "FAIL: fin 16, fout 8 took a recipe"; fail=1
	fi
done
# stirc tune on a relational graph (--hetero): the rules' pick without a
# GPU, which stirc run --check accepts; with --tf32 rgms_agg's tensor-core
# candidate of the pieces rule (candidate 2: the fewest pieces on the
# small graph); the record then answers stirc run without --schedule
# (f32: not the tf32 entry), and --list shows the relations
het="$srcdir/tests/data/graphs/small.hetero"
for p in rgms_agg:0 rgms_edge:1; do
	expect 0 "$stirc" tune "$srcdir/examples/${p%%:*}.stir" \
		--hetero A="$het" --size feat=16 --model-only -o "$tmp/rgt.yaml"
	grep_in "$tmp/err" "kernel ${p%%:*} at 16 features: candidate ${p#*:}, the rules' pick (place 0 in the rules' order"
	expect 0 "$stirc" run "$srcdir/examples/${p%%:*}.stir" --schedule "$tmp/rgt.yaml" \
		--hetero A="$het" --size fin=16 --size fout=16 --random 2 --check
done
expect 0 "$stirc" tune "$srcdir/examples/rgms_agg.stir" \
	--hetero A="$het" --size feat=16 --model-only --tf32 -o "$tmp/rgt.yaml"
grep_in "$tmp/err" "kernel rgms_agg at 16 features: candidate 2, the rules' pick"
grep_in "$tmp/rgt.yaml" "mma_m16n8k8_tf32"
expect 0 "$stirc" run "$srcdir/examples/rgms_agg.stir" --schedule "$tmp/rgt.yaml" \
	--hetero A="$het" --size fin=16 --size fout=16 --random 2
"$stirc" run "$srcdir/examples/rgms_agg.stir" \
	--backend cuda --random 1 --hetero A="$het" --size fin=16 \
	--size fout=16 > "$tmp/out" 2> "$tmp/err"
grep_in "$tmp/err" "under the recipe's candidate 0 (from the tuning record, the recipe's rules' pick"
expect 0 "$stirc" run "$srcdir/examples/rgms_agg.stir" \
	--tune --random 1 --hetero A="$het" --size fin=16 --size fout=16 --check
grep_in "$tmp/err" "under the recipe's candidate 0 (from the tuning record"
expect 0 "$stirc" tune --list
grep_in "$tmp/out" "rgms_tf32  feat 16  rows 11 nnz 22 rels 4"
# refused: a graph for a matrix's program, a matrix for RGMS, --tf32
# where no candidate has it, --tune without fin = fout
expect 2 "$stirc" tune "$srcdir/examples/csrmm.stir" --hetero A="$het" \
	--size feat=16 --model-only
grep_in "$tmp/err" "kernel 'csrmm' takes a matrix (--mtx), not --hetero"
expect 2 "$stirc" tune "$srcdir/examples/rgms_agg.stir" \
	--mtx A="$srcdir/examples/data/cora.mtx.gz" --size feat=16 --model-only
grep_in "$tmp/err" "kernel 'rgms_agg' takes a relational graph (--hetero), not --mtx"
expect 2 "$stirc" tune "$srcdir/examples/rgms_edge.stir" --hetero A="$het" \
	--size feat=16 --model-only --tf32
grep_in "$tmp/err" "--tf32: the recipe of kernel 'rgms_edge' has no tf32 candidates"
expect 2 "$stirc" tune "$srcdir/examples/rgms_agg.stir" --hetero A="$het" \
	--mtx A="$srcdir/examples/data/cora.mtx.gz" --size feat=16
grep_in "$tmp/err" "give one of --mtx and --hetero, once"
expect 1 "$stirc" tune "$srcdir/examples/rgms_agg.stir" --hetero A="$het" \
	--size feat=12 --model-only --no-record
grep_in "$tmp/err" "no candidate of the recipe for kernel 'rgms_agg' applies at 12 features"
expect 2 "$stirc" run "$srcdir/examples/rgms_agg.stir" --tune --random 1 \
	--hetero A="$het" --size fin=16 --size fout=8
grep_in "$tmp/err" "--tune needs the relational graph (--hetero, once) and --size fin=F --size fout=F"
# BSR: a matrix bound to bsrmm's blocks (--mtx); stirc tune's rules' pick
# (blocks of 16 and of 64), which stirc run --check accepts; stirc run on
# cuda without --schedule takes the record's (here no GPU runs it)
sm="$srcdir/tests/data/graphs/small.mtx"
for p in examples/bsrmm.stir:2 bench/bsrmm64.stir:4; do
	expect 0 "$stirc" tune "$srcdir/${p%%:*}" --mtx A="$sm" --size feat=64 \
		--model-only -o "$tmp/bt.yaml"
	grep_in "$tmp/err" "kernel bsrmm at 64 features: candidate ${p#*:}, the rules' pick (place 0 in the rules' order"
	expect 0 "$stirc" run "$srcdir/${p%%:*}" --schedule "$tmp/bt.yaml" \
		--mtx A="$sm" --size feat=64 --random 2 --check
	grep_in "$tmp/out" "check: bsrmm matches the stage I interpreter"
done
"$stirc" run "$srcdir/examples/bsrmm.stir" --backend cuda --random 1 \
	--mtx A="$sm" --size feat=64 > "$tmp/out" 2> "$tmp/err"
grep_in "$tmp/err" "kernel bsrmm at 64 features under the recipe's candidate 2 (from the tuning record, the recipe's rules' pick"
STIR_CACHE_DIR="$tmp/tunecache"
# the pieces rule (stir_rgms_tc_pick) on a graph: the small one's
# relations of at most a tile take the fewest pieces, said on stderr
expect 0 "$stirc" recipe "$srcdir/examples/rgms_agg.stir" --recipe rgms_tc \
	--hetero "$srcdir/tests/data/graphs/small.hetero" --size feat=16 -o "$tmp/pick.yaml"
grep_in "$tmp/err" "recipe rgms_tc's rule picks candidate 0"
grep_in "$tmp/pick.yaml" "loop: i_0, factors: [32, null]"
expect 2 "$stirc" recipe "$srcdir/examples/rgms_agg.stir" --recipe rgms \
	--hetero "$srcdir/tests/data/graphs/small.hetero" --size feat=16
grep_in "$tmp/err" "recipe rgms has no rule that picks from a relational graph"
expect 1 "$stirc" recipe "$srcdir/examples/rgms_agg.stir" --recipe rgms_tc \
	--hetero "$tmp/none.hetero" --size feat=16
grep_in "$tmp/err" "none.hetero"
expect 1 "$stirc" recipe "$srcdir/examples/csrmm.stir" --recipe rgms_tc \
	--candidate 0 --size feat=64
grep_in "$tmp/err" "recipe rgms_tc's candidate 0 does not apply to kernel 'csrmm' at 64 features (it schedules rgms_agg of examples/rgms_agg.stir"
expect 1 "$stirc" recipe "$srcdir/examples/rgms_agg.stir" --recipe rgms_tc \
	--candidate 0 --size feat=40
grep_in "$tmp/err" "the candidate does not apply to kernel 'rgms_agg' at 40 features"
expect 2 "$stirc" recipe "$srcdir/examples/csrmm.stir" --recipe bsr_tc \
	--candidate 10 --size feat=64
grep_in "$tmp/err" "recipe bsr_tc has candidates 0 to 9, not 10"
expect 2 "$stirc" recipe "$srcdir/examples/csrmm.stir" --recipe nope \
	--candidate 0 --size feat=64
grep_in "$tmp/err" "no recipe 'nope'"
expect 2 "$stirc" recipe "$srcdir/examples/csrmm.stir" --recipe bsr_tc \
	--size feat=64
grep_in "$tmp/err" "one of --candidate I and --hetero G are required"
expect 2 "$stirc" recipe "$srcdir/examples/rgms_agg.stir" --recipe rgms_tc \
	--candidate 0 --hetero "$srcdir/tests/data/graphs/small.hetero" --size feat=16
grep_in "$tmp/err" "one of --candidate I and --hetero G are required"
expect 2 "$stirc" recipe "$srcdir/examples/csrmm.stir" --recipe bsr_tc \
	--candidate x --size feat=64
expect 2 "$stirc" recipe --list --recipe bsr_tc
expect 2 "$stirc" recipe "$srcdir/examples/csrmm.stir" --recipe bsr_tc \
	--candidate 0 --size feat=64 --bogus

exit $fail
