#!/bin/sh
# sh .devdata/bsrw/final.sh: run-gpu-tests, then bench_bsr --recipe on the blocks of 64 (weights and masks, N = 128 and 512)
cd "$(dirname "$0")/../.." && B=.devdata/final/b
sh .devdata/final/run.sh 300
export STIR_CACHE_DIR=/tmp/stircache
timeout 150 $B/bench/bench_bsr --recipe --block 64 > $OUT/recipe64.txt 2>&1; echo "recipe64 rc=$?"
