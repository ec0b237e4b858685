#!/bin/bash
# h-sdt3: SDDMM tile kernels with 2-4 groups (tiles) of a window a warp
# (sddmm_tiles_csr_tiles2.yaml: independent mma chains over the same rows
# of X) beside the earlier tile kernels, the library's candidates, the
# group candidates and cuSPARSE in one process on five graphs at 32-512;
# then HB_bcsstk13 at 64-512 again in a fresh process.  NVRTC cache
# filled on the host (bench_sddmm --compile-only sm_90).
D=.devdata/h-sdt3
S=.devdata/suitesparse
export STIR_CACHE_DIR=$PWD/$D/cache
export LD_LIBRARY_PATH=$PWD/.devdata/lib
t0=$(date +%s)
log() { echo "== $* at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/log.txt
date -u >> $OUT/log.txt
G="$S/HB_bcsstk13.mtx.gz $S/FIDAP_ex6.mtx.gz $S/HB_zenios.mtx.gz $S/HB_bcsstk33.mtx.gz $S/DIMACS10_data.mtx.gz"
timeout 170 $D/bench_sddmm --vblock-csr --tiles --program $D/examples/sddmm.stir \
  --features 32,64,128,256,512 --json $OUT/bench.json $G > $OUT/bench.txt 2>&1
log bench rc $?
timeout 60 $D/bench_sddmm --vblock-csr --tiles --program $D/examples/sddmm.stir \
  --features 128,256,512 $S/HB_bcsstk13.mtx.gz > $OUT/fresh.txt 2>&1
log fresh rc $?
date -u >> $OUT/log.txt
