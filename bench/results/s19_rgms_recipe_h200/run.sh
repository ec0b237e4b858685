#!/bin/sh
# sh .devdata/rg/run.sh: bench_rgms.py with the library's RGMS recipes (stirc recipe) on AIFB and MUTAG at 64 and 128, no PyG
cd "$(dirname "$0")/../.." && D=.devdata
export STIR_CACHE_DIR=/tmp/stircache
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } > $OUT/rg-log.txt
timeout 420 python3 bench/bench_rgms.py $D/aifb.hetero.gz $D/mutag.hetero.gz --features 64,128 --no-pyg --stirc $D/rg/stirc --candidates 'aggruns_*_zf4' --tc-candidates 'tc_tsh_*_gb' > $OUT/rgms.txt 2>&1; echo "rc=$?" >> $OUT/rg-log.txt
date -u >> $OUT/rg-log.txt
