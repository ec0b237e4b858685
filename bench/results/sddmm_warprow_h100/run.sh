#!/bin/bash
# h-sdd13: SDDMM, a warp per row with U non-zeros a lane (schedule files
# yaml/<shape>_<feat>.yaml from gen.sh and shape_list.txt; the timings come back as $OUT/shapes.txt, kept as timings.txt), the cross-lane sums
# reduced plainly (one xor butterfly per sum) and by the transposing
# butterfly (STIR_PROTO_TRANSPOSE=1, a prototype build of codegen/cuda_reduce.c),
# beside bench_sddmm's earlier winners and cuSPARSE.
D=.devdata/h-sdd13
S=.devdata/suitesparse
export STIR_CACHE_DIR=$PWD/$D/cache
export LD_LIBRARY_PATH=$PWD/.devdata/lib
t0=$(date +%s)
log() { echo "== $* at $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/log.txt
date -u >> $OUT/log.txt
G="$S/HB_bcsstk13.mtx.gz $S/FIDAP_ex6.mtx.gz $S/HB_zenios.mtx.gz"
$D/bench_sddmm --vblock-csr --program $D/examples/sddmm.stir --features 32,64,128,256,512 \
  --json $OUT/bench.json $G > $OUT/bench.txt 2>&1
log bench rc $?
shape() { # graph feat shape mode [--check]
  local g=$1 f=$2 s=$3 m=$4 c=$5
  echo "== $g $s $m $f" >> $OUT/shapes.txt
  if [ $m = T ]; then export STIR_PROTO_TRANSPOSE=1; else unset STIR_PROTO_TRANSPOSE; fi
  timeout 30 $D/stirc run $D/examples/sddmm_rows.stir --backend cuda --time $c \
    --mtx S=$S/$g.mtx.gz --random 1 --schedule $D/yaml/${s}_$f.yaml 2>&1 \
    | grep -v '^[XYS]:' >> $OUT/shapes.txt
}
# the plain reduction is main's codegen; the transposing one is checked
for f in 32 64 128 256 512; do for s in w8 w4 h8; do
  shape HB_bcsstk13 $f $s P; shape HB_bcsstk13 $f $s T --check; done; done
log bcsstk13 shapes
for s in w8 w4 h8; do
  shape FIDAP_ex6 64 $s P; shape FIDAP_ex6 64 $s T --check
  shape HB_zenios 32 $s P; shape HB_zenios 32 $s T --check; done
log other shapes
$D/bench_sddmm --vblock-csr --program $D/examples/sddmm.stir --features 64,128,256,512 \
  $S/HB_bcsstk13.mtx.gz > $OUT/fresh.txt 2>&1
log fresh bench rc $?
for f in 64 128 256 512; do for s in w8 w4 h8; do
  echo "== fresh" >> $OUT/shapes.txt; shape HB_bcsstk13 $f $s T; done; done
log all done
