#!/bin/sh
# sh .devdata/prof/run.sh: ncu of the rows kernel (blocks of 64) on 4096x4096 d20 uniform at N = 2048
cd "$(dirname "$0")/../.." && B=.devdata/final/b
export STIR_CACHE_DIR=/tmp/stircache
python3 bench/results/s22_bsr_rows_h200/profile/gen1.py /tmp/u.mtx || exit 1
which ncu || ls /usr/local/cuda*/bin/ncu
NCU=$(which ncu || ls /usr/local/cuda*/bin/ncu | head -1)
: $B/bench/bench_bsr --mtx /tmp/u.mtx --block 64 --program bench/bsrmm64.stir --schedule bench/bsrmm64_tc_rows.yaml --widths 2048 --reps 20 > $OUT/bench.txt 2>&1
timeout 300 $NCU --set full --clock-control none --kernel-name bsrmm_k0 --launch-skip 131 --launch-count 1 $B/bench/bench_bsr --mtx /tmp/u.mtx --block 64 --cases weights --shape 768x768 --program bench/bsrmm64.stir --schedule bench/bsrmm64_tc_rows.yaml --widths 2048 --reps 5 > $OUT/ncu.txt 2>&1
echo "ncu rc=$?"
