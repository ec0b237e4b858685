#!/bin/bash
# h-srp's device call.  The device gets main's checkout (ed77296, clean),
# and h-srp's tree (git archive), the graphs and an NVRTC cache filled on
# the host in main's ignored .devdata/h-srp/.  Both built side by side,
# then bench_spmm --srbcrs on the 23 shared graphs at 128/256/512: main's
# binary first (its 4 schedules), then h-srp's (main's 4 as its emitter
# prints them, and steps2, steps4).  Run from main's root.
top=$PWD
d=$top/.devdata/h-srp
export STIR_CACHE_DIR=$d/cache
(autoreconf -fi >/dev/null 2>&1 && mkdir -p b-main && cd b-main && ../configure -q >/dev/null && make -j8 -s >/dev/null 2>&1; echo "main build rc $?") &
(cd $d/srp && autoreconf -fi >/dev/null 2>&1 && mkdir -p b && cd b && ../configure -q >/dev/null && make -j8 -s >/dev/null 2>&1; echo "h-srp build rc $?") &
wait
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
date -u | tee -a $OUT/device.txt
G=$(ls $d/data/*.mtx.gz)
args="--srbcrs --no-csr --candidates 44 --features 128,256,512 --reps 50"
timeout 120 b-main/bench/bench_spmm $args --json $OUT/main.json $G > $OUT/main.txt 2> $OUT/main.err; echo "main rc $?"
date -u | tee -a $OUT/device.txt
(cd $d/srp && timeout 160 b/bench/bench_spmm $args --json $OUT/steps.json $G > $OUT/steps.txt 2> $OUT/steps.err; echo "steps rc $?")
date -u | tee -a $OUT/device.txt
tail -4 $OUT/main.txt; tail -9 $OUT/steps.txt; tail -3 $OUT/main.err $OUT/steps.err
