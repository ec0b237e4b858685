#!/bin/bash
# h-srp's device call, run from main's root (the device gets main's
# checkout, ed77296, clean).  Carried: .devdata/final/b (main's static
# build, whose bench_spmm --compile-only makes exactly the kernels of
# main's build), and .devdata/h-srp: h-srp's tree (git archive) with its
# static bench_spmm in bin/ (libyaml in lib/), the 23 graphs, and the NVRTC
# cache filled on the host by both binaries.  bench_spmm --srbcrs on the
# 23 shared graphs at 128/256/512: main's binary first (its 4 schedules),
# then h-srp's (main's 4 as its emitter prints them, steps2, steps4).
top=$PWD
d=$top/.devdata/h-srp
export STIR_CACHE_DIR=$d/cache LD_LIBRARY_PATH=$d/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
date -u | tee -a $OUT/device.txt
G=$(ls $d/data/*.mtx.gz)
args="--srbcrs --no-csr --candidates 44 --features 128,256,512 --reps 50"
timeout 110 .devdata/final/b/bench/bench_spmm $args --json $OUT/main.json $G > $OUT/main.txt 2> $OUT/main.err; echo "main rc $?"
date -u | tee -a $OUT/device.txt
(cd $d/srp && timeout 150 $d/bin/bench_spmm $args --json $OUT/steps.json $G > $OUT/steps.txt 2> $OUT/steps.err; echo "steps rc $?")
date -u | tee -a $OUT/device.txt
tail -n 4 $OUT/main.txt; tail -n 9 $OUT/steps.txt; tail -n 3 $OUT/main.err $OUT/steps.err
