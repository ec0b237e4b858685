#!/bin/bash
# integrator s15: AIFB at 64, tc_tsh_*_u_zf4 in 4-32 pieces against the CUDA-core best (A: one pass; B: the winners again)
cd "$(dirname "$0")"
L=$OUT/aifb64.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $L
t() { echo "$1 $2 $(./stirc run rgms_agg.stir --backend cuda --schedule s/$2.yaml --hetero A=aifb.hetero.gz --size fin=64 --size fout=64 --random 1 --time --reps 100 2>&1 | awk '/^time:/{t=$2} /^Y:/{y=$0} END{print t, y}')" >> $L; }
t A aggruns_f64_q4_k8_zf4
for f in s/tc_*.yaml; do n=$(basename $f .yaml); t A $n; done
w=$(awk '$1=="A" && $2 ~ /^tc_/ {print $3, $2}' $L | sort -g | head -2 | awk '{print $2}')
t B aggruns_f64_q4_k8_zf4; for n in $w; do t B $n; done
t C aggruns_f64_q4_k8_zf4; for n in $w; do t C $n; done
cat $L
