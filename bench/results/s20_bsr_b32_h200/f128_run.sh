#!/bin/sh
# sh .devdata/x/run.sh: bench_bsr with 128 features a warp on the strips of blocks of 32 and 64 (weights, N = 128 and 512)
cd "$(dirname "$0")/../.." && D=.devdata; B=$D/final/b
export STIR_CACHE_DIR=/tmp/stircache
date -u > $OUT/x-log.txt
timeout 250 $B/bench/bench_bsr --program bench/bsrmm32.stir --schedule $D/x/b32_f128.yaml --program bench/bsrmm64.stir --schedule $D/x/b64_f128.yaml --cases weights --widths 128,512 > $OUT/bsr_f128.txt 2>&1; echo "rc=$?" >> $OUT/x-log.txt
date -u >> $OUT/x-log.txt
