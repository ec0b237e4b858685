#!/bin/sh
# sh .devdata/final/sr.sh: bench_spmm --srbcrs through the library's recipe on five graphs at 64 and 128
cd "$(dirname "$0")/../.." && D=.devdata
export STIR_CACHE_DIR=$PWD/$D/final/cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/sr-log.txt; date -u >> $OUT/sr-log.txt
timeout 240 $D/final/b/bench/bench_spmm --srbcrs --no-csr --candidates 0 --features 64,128 --json $OUT/sr.json $D/cora.mtx.gz $D/pubmed.mtx.gz $D/musae-github.mtx.gz $D/HB_bcsstk13.mtx.gz $D/FIDAP_ex6.mtx.gz > $OUT/sr.txt 2>&1; echo "sr rc=$?" >> $OUT/sr-log.txt
date -u >> $OUT/sr-log.txt
