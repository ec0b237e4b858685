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
