#!/bin/bash
# h-rg9 call 2 (12:21 UTC): AIFB (A_*) and MUTAG (M_*) at 64: tc_tsh_k4_pP_t2_u_zf4 against the
# same with the pieces' tail guard made the tile loop's bound (_gb, P 32-512), and the CUDA-core
# aggruns_f64_q4_k8_zf4 (cc); each time in its own process, three rounds (A, B, C); ncu of the
# _gb apply in 32 pieces.
cd "$(dirname "$0")"
export STIR_CACHE_DIR=$PWD/cache
L=$OUT/times.txt; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $L; date -u >> $L
t() { g=aifb; case $2 in M_*) g=mutag;; esac
  echo "$1 $2 $(./stirc run rgms_agg.stir --backend cuda --schedule s/$2.yaml --hetero A=../$g.hetero.gz --size fin=64 --size fout=64 --random 1 --time --reps 100 2>&1 | awk '/^time:/{t=$2} /^Y:/{y=$0} END{print t, y}')" >> $L; }
for r in A B C; do for f in s/*.yaml; do t $r $(basename $f .yaml); done; done
ncu --clock-control none --kernel-name rgms_agg_k2 --launch-skip 1 --launch-count 1 --section SpeedOfLight --section LaunchStats --section Occupancy --section InstructionStats --section WarpStateStats ./stirc run rgms_agg.stir --backend cuda --schedule s/A_gb_p32.yaml --hetero A=../aifb.hetero.gz --size fin=64 --size fout=64 --random 1 --time --warmups 1 --reps 1 > $OUT/ncu_gb.txt 2>&1
date -u >> $L; sort -k2,2 -k1,1 $L
