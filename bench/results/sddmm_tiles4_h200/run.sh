#!/bin/bash
# h-sdx: SDDMM tile kernels with 2-4 groups (tiles) of a window a warp,
# X's fragments now loaded once before the tile loop
# (cuda_mma_invariant_steps), beside every other tile kernel, the group
# candidates (the earlier winners) and cusparseSDDMM in one process on
# three graphs at 32-512; the same bench built from main before the rule
# (bench_sddmm_old: its tiles2 kernels load X per tile) on HB_bcsstk13;
# then HB_bcsstk13 at 128-512 again in a fresh process.  NVRTC cache
# filled on the host (bench_sddmm --compile-only sm_90, both binaries).
# (Run from the main checkout, which the device tool sends, with
# .devdata/sdx (the two binaries, the graphs, libyaml, the NVRTC cache)
# copied to .devdata/h-sdx there and D set to it.)
D=.devdata/sdx
export STIR_CACHE_DIR=$PWD/$D/cache
export LD_LIBRARY_PATH=$PWD/$D/lib
t0=$(date +%s)
log() { echo "== $* at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/log.txt
date -u >> $OUT/log.txt
G="$D/HB_bcsstk13.mtx.gz $D/FIDAP_ex6.mtx.gz $D/HB_bcsstk33.mtx.gz"
timeout 200 $D/bench_sddmm --vblock-csr --tiles --program examples/sddmm.stir \
  --features 32,64,128,256,512 --json $OUT/bench.json $G > $OUT/bench.txt 2>&1
log bench rc $?
timeout 80 $D/bench_sddmm_old --vblock-csr --tiles --program examples/sddmm.stir \
  --features 128,256,512 $D/HB_bcsstk13.mtx.gz > $OUT/old.txt 2>&1
log old rc $?
timeout 80 $D/bench_sddmm --vblock-csr --tiles --program examples/sddmm.stir \
  --features 128,256,512 $D/HB_bcsstk13.mtx.gz > $OUT/fresh.txt 2>&1
log fresh rc $?
date -u >> $OUT/log.txt
