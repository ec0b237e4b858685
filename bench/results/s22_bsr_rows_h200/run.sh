#!/bin/sh
# The two device calls of 2026-11-29 11:15-11:46 UTC (H200), from the repository root with
# the static build in .devdata/final/b (build-gpu, --disable-shared):
# 1. strips (main) against the warps on a block row's rows, blocks of 64 and 32
#    (b*_f64_s3.yaml became bench/bsrmm{64,32}_tc_rows.yaml); the call ran out of its
#    600 s during b32_f64_s3, so b32's other variants were not timed.
for b in 64 32; do
  cases=weights; [ $b = 64 ] && cases=weights,attention
  for s in bench/bsrmm${b}_tc_strips.yaml $D/b${b}_f64_s3.yaml $D/b${b}_f64_s4.yaml $D/b${b}_f128_s3.yaml $D/b${b}_f128_s4.yaml; do
    bench_bsr --program bench/bsrmm$b.stir --schedule $s --block $b --cases $cases --widths 128,512,2048
  done
done
# 2. (recipe/) the library's recipe with the new rule on every case, and 2 stages
bench_bsr --recipe --widths 128,512,2048
for b in 64 32; do for s in $D/b${b}_f64_s2.yaml bench/bsrmm${b}_tc_rows.yaml; do
  bench_bsr --program bench/bsrmm$b.stir --schedule $s --block $b --cases weights --shape 4096x4096 --widths 512,2048
done; done
