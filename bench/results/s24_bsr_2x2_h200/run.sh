#!/bin/bash
# The device calls of 2026-11-29 18:50-19:02 UTC (H200), from the repository root with
# the static build in .devdata/b (build-gpu, --disable-shared); D = this folder.
# 1. (verify.txt) the GPU against the interpreter for the two new test schedules
for f in "bench/bsrmm64.stir tests/tensorize/bsrmm64_tc_2x2.yaml" \
         "bench/bsrmm32.stir tests/tensorize/bsrmm32_tc_1x2.yaml"; do
  set -- $f
  stirc verify $1 --schedule $2 --backend cuda --seeds 3
done
# 2. (b*_*.txt, attn_*.txt) the tile candidates (bench/bsrmm{64,32}_tc_tile.yaml, the
#    recipe's 8 and 9) and the warps split over both indices ($D/bsrmm64_tc_2x2.yaml) or
#    over the features ($D/bsrmm32_tc_1x2.yaml), one process each
for b in 64 32; do
  if [ $b = 64 ]; then new=$D/bsrmm64_tc_2x2.yaml; else new=$D/bsrmm32_tc_1x2.yaml; fi
  for s in bench/bsrmm${b}_tc_tile.yaml $new; do
    bench_bsr --program bench/bsrmm$b.stir --schedule $s --block $b --cases weights --widths 512,2048
  done
done
for s in bench/bsrmm64_tc_tile.yaml $D/bsrmm64_tc_2x2.yaml; do
  bench_bsr --program bench/bsrmm64.stir --schedule $s --block 64 --cases attention
done
# 3. (profile/) Nsight Compute of both kernels of blocks of 64 on one launch of a 4096x4096
#    uniform case at N = 2048 (the 71st launch of stir's kernel in the run)
for s in bench/bsrmm64_tc_tile.yaml $D/bsrmm64_tc_2x2.yaml; do
  ncu --set full --clock-control none --kernel-name bsrmm_k0 --launch-skip 70 --launch-count 1 \
    bench_bsr --cases weights --shape 4096x4096 --block 64 --program bench/bsrmm64.stir \
    --schedule $s --widths 2048 --reps 5
done
