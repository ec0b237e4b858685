#!/bin/bash
# integrator s15: AIFB at 64, the aggregation's edges a thread (k = 2..16) for both paths, 32 pieces
cd "$(dirname "$0")"
L=$OUT/aifb64_k.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $L
t() { echo "$1 $2 $(./stirc run rgms_agg.stir --backend cuda --schedule s/$2.yaml --hetero A=aifb.hetero.gz --size fin=64 --size fout=64 --random 1 --time --reps 100 2>&1 | awk '/^time:/{t=$2} /^Y:/{y=$0} END{print t, y}')" >> $L; }
for f in s/*.yaml; do t A $(basename $f .yaml); done
wc=$(awk '$1=="A" && $2 ~ /^agg/ {print $3, $2}' $L | sort -g | head -1 | awk '{print $2}')
wt=$(awk '$1=="A" && $2 ~ /^tc_/ {print $3, $2}' $L | sort -g | head -2 | awk '{print $2}')
for r in B C; do t $r $wc; for n in $wt; do t $r $n; done; done
cat $L
