#!/bin/sh
# sh .devdata/bsrw/swz.sh: the rows with A's rows swizzled by their stride (4096x4096 at 512 and 2048, blocks of 64 and 32; the masks)
cd "$(dirname "$0")/../.." && B=.devdata/final/b
export STIR_CACHE_DIR=/tmp/stircache
L=$OUT/log.txt; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $L; date -u >> $L
for b in 64 32; do
  timeout 100 $B/bench/bench_bsr --program bench/bsrmm$b.stir --schedule bench/bsrmm${b}_tc_rows.yaml --block $b --cases weights --shape 4096x4096 --widths 512,2048 > $OUT/b${b}_rows_swz.txt 2>&1; echo "$b rc=$?" >> $L; date -u >> $L
done
timeout 60 $B/bench/bench_bsr --program bench/bsrmm64.stir --schedule bench/bsrmm64_tc_rows.yaml --block 64 --cases attention > $OUT/attn_rows_swz.txt 2>&1; echo "attn rc=$?" >> $L; date -u >> $L
