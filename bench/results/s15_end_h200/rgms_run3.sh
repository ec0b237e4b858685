#!/bin/bash
# h-rg8's prepared (not run) third call, about 80 s of command: AIFB at 64 with every tc_tsh_*_u_zf4
# (AIFB is the one graph below 1.5x at 64: 1.41x) and BGS, AM at 128 with _zf4 (not run with it),
# pass A then each case's winners in fresh processes (B). carry: .devdata/h-rg8
D=.devdata/h-rg8; S=$D/s; E=$D/ex; L=$OUT/rgms3.txt
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u +%T; } > $L
mkdir -p /tmp/g && cp $D/aifb.hetero.gz /tmp/g/
$D/heterogen 94806 672884 200 1 > /tmp/g/bgs.hetero & $D/heterogen 881680 5668682 260 1 > /tmp/g/am.hetero; wait
gf() { case $1 in aifb|mutag) echo /tmp/g/$1.hetero.gz;; *) echo /tmp/g/$1.hetero;; esac; }
t() { local prog=rgms_agg reps=100; case $4 in runs_*) prog=rgms_edge;; esac; [ $2 = am ] && reps=30
  echo "$1 $2 $3 $4 $($D/stirc run $E/$prog.stir --backend cuda --schedule $S/$4.yaml --hetero A=$(gf $2) \
    --size fin=$3 --size fout=$3 --random 1 --time --reps $reps 2>&1 | awk '/^time:/{t=$2} /^Y:/{y=$0} END{print t, y}')" >> $L; }
best() { awk -v g=$1 -v F=$2 -v k="$3" '$1=="A" && $2==g && $3==F && $5 ~ /^[0-9.]+$/ { n=split(k,ks," "); ok=0; for(i=1;i<=n;i++) if (index($4,ks[i])==1) ok=1; if (ok && (b=="" || $5<b)) {b=$5; s=$4} } END{print s}' $L; }
run() { local g=$1 F=$2; shift 2; for c in "$@"; do t A $g $F $c; done
  for k in "aggruns runs" "tc_"; do w=$(best $g $F "$k"); [ -n "$w" ] && t B $g $F $w; done; }
run aifb 64 aggruns_f64_q4_k4_zf4 aggruns_f64_q4_k8_zf4 $(cd $S && ls tc_f64_tc_tsh_*_u_zf4.yaml | sed 's/\.yaml$//')
run bgs 128 aggruns_f128_q4_k4_zf4 aggruns_f128_q4_k8_zf4 tc_f128_tc_tsh_k4_p128_t2_u_zf4 tc_f128_tc_tsh_k4_p512_t2_u_zf4
run am 128 aggruns_f128_q4_k8_zf4 tc_f128_tc_tsh_k4_p512_t2_u_zf4
date -u +%T >> $L
cat $L
