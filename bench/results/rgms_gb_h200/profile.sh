#!/bin/bash
# h-rg9 call 1 (12:09 UTC): AIFB at 64: times of tc_tsh_k4_p32_t2_u_zf4 (tsh), the CUDA-core
# aggruns_f64_q4_k8_zf4 (cc) and variants (each in its own process, two rounds: tsh_noov and
# cc_noov without overlap_launches, tsh_ucopy with the tile copy's loop unrolled, tsh_c4 with it
# 4 elements a thread, tsh_p24 and tsh_p48 in 24 and 48 pieces), then ncu (full set, real clocks)
# of one timed run of tsh and cc: details and the apply's SASS source page.
cd "$(dirname "$0")"
G=../aifb.hetero.gz
export STIR_CACHE_DIR=$PWD/cache
L=$OUT/times.txt; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $L; date -u >> $L
run() { ./stirc run rgms_agg.stir --backend cuda --schedule s/$1.yaml --hetero A=$G --size fin=64 --size fout=64 --random 1 "${@:2}"; }
t() { echo "$1 $2 $(run $2 --time --reps 100 2>&1 | awk '/^time:/{t=$2} /^Y:/{y=$0} END{print t, y}')" >> $L; }
for r in A B; do for f in s/*.yaml; do t $r $(basename $f .yaml); done; done
N=$OUT/ncu.log
for n in tsh cc; do
  ncu --clock-control none --kernel-name regex:rgms_agg --launch-skip 3 --launch-count 3 --set full --import-source no -o $OUT/$n ./stirc run rgms_agg.stir --backend cuda --schedule s/$n.yaml --hetero A=$G --size fin=64 --size fout=64 --random 1 --time --warmups 1 --reps 1 >> $N 2>&1
  ncu --import $OUT/$n.ncu-rep --page details > $OUT/ncu_$n.txt 2>&1
  ncu --import $OUT/$n.ncu-rep --page source --csv --print-source sass --kernel-name rgms_agg_k2 2>&1 | gzip > $OUT/sass_$n.csv.gz
done
date -u >> $L; cat $L
