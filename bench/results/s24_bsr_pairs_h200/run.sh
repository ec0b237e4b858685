#!/bin/bash
# The device call of 2026-11-29 19:08-19:15 UTC (H200), from the repository root with
# the static build in .devdata/b (build-gpu, --disable-shared): B's fragments of the
# outer product loaded two at a time (_ldsm_b2, one ldmatrix.x4.trans).
# 1. (gpu-tests.txt) tools/run-gpu-tests .devdata/b (the shared graphs not carried: the
#    checks on PubMed, HB_bcsstk13, AIFB and MUTAG skipped)
# 2. (b64_tile.txt, b32_tile.txt, attn_tile.txt) the recipe's candidates 8 and 9, the same
#    commands as bench/results/s24_bsr_2x2_h200/run.sh ran 16 minutes earlier with the
#    fragments of B one at a time (b64_tile.txt, b32_tile.txt, attn_tile.txt there)
for b in 64 32; do
  bench_bsr --program bench/bsrmm$b.stir --schedule bench/bsrmm${b}_tc_tile.yaml --block $b \
    --cases weights --widths 512,2048
done
bench_bsr --program bench/bsrmm64.stir --schedule bench/bsrmm64_tc_tile.yaml --block 64 \
  --cases attention
# 3. (recipe.txt) the library's recipe on every case at 512 and 2048 (as
#    bench/results/s23_bsr_tile_h200/store/recipe.txt)
bench_bsr --recipe --widths 512,2048
# 4. (large/, 19:19-19:23 UTC, a second call) on 4096x4096 at 512 and 2048, each schedule in
#    its own process: candidate 8, the 2 x 2 warps with 3 and 2 stages, candidate 9, the
#    1 x 2 warps with 3, 2 and 4 stages, candidate 8 again; all with B's fragments in pairs
S=bench/results/s24_bsr_2x2_h200; L=bench/results/s24_bsr_pairs_h200/large
run() { bench_bsr --program bench/bsrmm$1.stir --schedule $2 --block $1 --cases weights \
  --shape 4096x4096 --widths 512,2048; }
run 64 bench/bsrmm64_tc_tile.yaml; run 64 $S/bsrmm64_tc_2x2.yaml; run 64 $L/b64_2x2_s2.yaml
run 32 bench/bsrmm32_tc_tile.yaml; run 32 $S/bsrmm32_tc_1x2.yaml; run 32 $L/b32_1x2_s2.yaml
run 32 $L/b32_1x2_s4.yaml; run 64 bench/bsrmm64_tc_tile.yaml
# 5. (invariant/, 19:28-19:34 UTC, a third call) with B's fragments in pairs also in the
#    loops with A's tile loaded before them (cuda_mma_invariant_a_pairs: candidates 0-7):
#    tools/run-gpu-tests with the shared graphs carried (STIR_DATA_DIR), then the recipe
STIR_DATA_DIR=$PWD/.devdata tools/run-gpu-tests .devdata/b
bench_bsr --recipe --widths 512,2048
