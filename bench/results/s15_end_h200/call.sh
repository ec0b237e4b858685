#!/bin/bash
# integrator, session 15, call 2: run-gpu-tests on the merged main, h-rg8's run3
# (AIFB at 64 with every tc_tsh_*_zf4; BGS and AM at 128 with _zf4), and the
# refactored bench_sddmm --tiles on HB_bcsstk13 at 64 (NVRTC cache filled on the host).
cd "$(dirname "$0")/.."
R=$OUT
mkdir -p $R/gpu $R/rg8 $R/sdt
OUT=$R/gpu sh .devdata/final/run.sh 330 > $R/gpu/summary.txt 2>&1
OUT=$R/rg8 timeout 150 bash .devdata/h-rg8/run3.sh > /dev/null 2>&1; echo "rg8 rc $?" >> $R/rg8/rgms3.txt
cd .devdata/s15b && STIR_CACHE_DIR=$PWD/cache timeout 60 ./bench_sddmm --tiles --candidates 0 --program ./sddmm.stir --features 64 HB_bcsstk13.mtx.gz > $R/sdt/tiles64.txt 2>&1; echo "rc $?" >> $R/sdt/tiles64.txt
cat $R/gpu/summary.txt | tail -15; cat $R/rg8/rgms3.txt; tail -25 $R/sdt/tiles64.txt
