#!/bin/sh
# sh .devdata/final/bench.sh: bench_sddmm --tiles on three long-row graphs, then HB_bcsstk13 at 128-512 in a fresh process
cd "$(dirname "$0")/../.." && D=.devdata
export STIR_CACHE_DIR=$PWD/$D/final/cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/log.txt; date -u >> $OUT/log.txt
timeout 200 $D/final/b/bench/bench_sddmm --vblock-csr --tiles --program examples/sddmm.stir --features 32,64,128,256,512 --json $OUT/bench.json $D/HB_bcsstk13.mtx.gz $D/FIDAP_ex6.mtx.gz $D/HB_bcsstk33.mtx.gz > $OUT/bench.txt 2>&1; echo "bench rc=$?" >> $OUT/log.txt
timeout 80 $D/final/b/bench/bench_sddmm --vblock-csr --tiles --program examples/sddmm.stir --features 128,256,512 $D/HB_bcsstk13.mtx.gz > $OUT/fresh.txt 2>&1; echo "fresh rc=$?" >> $OUT/log.txt
for f in 128 256 512; do timeout 60 $D/final/b/tools/stirc tune examples/sddmm_tiles_csr.stir --mtx S=$D/HB_bcsstk13.mtx.gz --size feat=$f -o $OUT/tune$f.yaml > $OUT/tune$f.txt 2>&1; echo "tune $f rc=$?" >> $OUT/log.txt; done
date -u >> $OUT/log.txt
