#!/bin/bash
# h-sdt2: SDDMM over SR-BCRS(8, 16) tiles on tensor cores, now with Y's
# gathered pairs loaded with no per-lane test (aligned buffers), the
# group's guard tested once before the steps, the steps' fragments
# loaded before their mma chain (pieces of 4/8/16 steps), and the slots
# written straight into CSR order through Dst (one launch, no gather):
# bench_sddmm --tiles beside the library's candidates, the group
# candidates (--vblock-csr) and cuSPARSE in one process; then
# HB_bcsstk13 again in a fresh process; the SASS of the old and new
# tile kernel at 512 (host-compiled cubins).  NVRTC cache filled on the
# host.
D=.devdata/h-sdt2
S=.devdata/suitesparse
export STIR_CACHE_DIR=$PWD/$D/cache
t0=$(date +%s)
log() { echo "== $* at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/log.txt
date -u >> $OUT/log.txt
G="$S/HB_bcsstk13.mtx.gz $S/FIDAP_ex6.mtx.gz $S/HB_zenios.mtx.gz $S/HB_bcsstk33.mtx.gz $S/DIMACS10_data.mtx.gz"
timeout 240 $D/bench_sddmm --vblock-csr --tiles --program $D/examples/sddmm.stir \
  --features 32,64,128,256,512 --json $OUT/bench.json $G > $OUT/bench.txt 2>&1
log bench rc $?
timeout 120 $D/bench_sddmm --vblock-csr --tiles --program $D/examples/sddmm.stir \
  --features 64,128,256,512 $S/HB_bcsstk13.mtx.gz > $OUT/fresh.txt 2>&1
log fresh bench rc $?
for g in HB_bcsstk33 FIDAP_ex6; do
  timeout 60 $D/bench_sddmm --vblock-csr --tiles --program $D/examples/sddmm.stir \
    --features 32,128,256 $S/$g.mtx.gz > $OUT/fresh_$g.txt 2>&1
  log fresh $g rc $?
done
