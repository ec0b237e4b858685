#!/bin/sh
# The device calls of 2026-11-29 14:56-15:32 UTC (H200), from the repository root with
# the static build in .devdata/final/b (build-gpu, --disable-shared); D = this folder.
# 1. (first/) the warps on a block row's rows against a warp on 32 rows (the outer
#    product), both in one process: bench_bsr keeps the last program's time, so these
#    files hold the tile's times (the rows' are in ../s22_bsr_rows_h200).
for b in 64 32; do
  bench_bsr --program bench/bsrmm$b.stir --schedule bench/bsrmm${b}_tc_rows.yaml \
    --program bench/bsrmm$b.stir --schedule bench/bsrmm${b}_tc_tile.yaml --block $b --cases weights --widths 128,512
  bench_bsr --program bench/bsrmm$b.stir --schedule bench/bsrmm${b}_tc_rows.yaml \
    --program bench/bsrmm$b.stir --schedule bench/bsrmm${b}_tc_tile.yaml --block $b --cases weights \
    --shape 4096x4096 --widths 2048
done
bench_bsr --program bench/bsrmm64.stir --schedule bench/bsrmm64_tc_rows.yaml \
  --program bench/bsrmm64.stir --schedule bench/bsrmm64_tc_tile.yaml --block 64 --cases attention
# 2. (sweep/) variants on 4096x4096 at 512 and 2048, one process each, in this order:
#    rows, tile, tile with 2 stages (b*_s2.yaml), 128 features a warp (b*_f128.yaml,
#    b*_f128_s2.yaml), and for blocks of 64 one warp on all 64 rows (b64_w1.yaml).
#    The machine sent back 8 of the 11 files; the other three's summary lines
#    (geomean over Blocked-ELL f16, all 16 cases / the 8 uniform):
#      b64 rows 1.018 / 0.743, b64 tile 0.894 / 0.763, b64_w1 0.850 / 0.754
for b in 64 32; do
  for s in bench/bsrmm${b}_tc_rows.yaml bench/bsrmm${b}_tc_tile.yaml $D/b${b}_s2.yaml \
      $D/b${b}_f128.yaml $D/b${b}_f128_s2.yaml; do
    bench_bsr --program bench/bsrmm$b.stir --schedule $s --block $b --cases weights \
      --shape 4096x4096 --widths 512,2048
  done
done
bench_bsr --program bench/bsrmm64.stir --schedule $D/b64_w1.yaml --block 64 --cases weights \
  --shape 4096x4096 --widths 512,2048
# 3. (profile/) Nsight Compute of both kernels on one launch of a 4096x4096 uniform case
#    at N = 2048 (the 71st launch of stir's kernel in the run)
for s in bsrmm64_tc_tile bsrmm64_tc_rows; do
  ncu --set full --clock-control none --kernel-name bsrmm_k0 --launch-skip 70 --launch-count 1 \
    bench_bsr --cases weights --shape 4096x4096 --block 64 --program bench/bsrmm64.stir \
    --schedule bench/$s.yaml --widths 2048 --reps 5
done
# 4. tools/run-gpu-tests (gpu-tests.txt), then the library's recipe with the new rule on
#    every case (recipe.txt)
bench_bsr --recipe --widths 128,512,2048
# 5. (store/, 15:53-15:58 UTC) with the accumulators stored and loaded as float2 pairs
#    (codegen/mma_prelude.c, stir_pairs_aligned): tools/run-gpu-tests, then the recipe at
#    512 and 2048 (the same cases as recipe.txt at those widths)
bench_bsr --recipe --widths 512,2048
