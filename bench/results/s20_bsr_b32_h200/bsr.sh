#!/bin/sh
# sh .devdata/final/bsr.sh: bench_bsr --recipe (blocks of 16, 32 and 64) on the weight cases at 128 and 512; stirc run's RGMS default on AIFB and MUTAG at 64
cd "$(dirname "$0")/../.." && D=.devdata; B=$D/final/b
export STIR_CACHE_DIR=/tmp/stircache
L=$OUT/bsr-log.txt; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $L; date -u >> $L
for g in aifb mutag; do for p in rgms_agg rgms_edge; do echo "== $g $p default" >> $OUT/rgms_default.txt
  timeout 60 $B/tools/stirc run examples/$p.stir --backend cuda --hetero A=$D/$g.hetero.gz --size fin=64 --size fout=64 --random 1 --time >> $OUT/rgms_default.txt 2>&1; done; done
date -u >> $L
timeout 330 $B/bench/bench_bsr --recipe --cases weights --widths 128,512 > $OUT/bsr_recipe_b32.txt 2>&1; echo "bsr rc=$?" >> $L
date -u >> $L
