#!/bin/bash
# h-rg9 call 3: RGMS at 64 and 128 on AIFB, MUTAG, BGS, AM: the CUDA-core best
# (aggruns_*, runs_*_o with float4 zeroing) and tc_tsh_*_u_zf4 with and without
# the pieces' tail guard as the tile loop's bound (_gb); pass A, then each
# case's CUDA-core and tensor-core winners again in fresh processes (B, C).
# Then the new test schedule on the GPU: run --check and verify --backend cuda.
D=$(cd "$(dirname "$0")" && pwd); S=$D/s; E=$D/ex; L=$OUT/rgms.txt
export STIR_CACHE_DIR=/tmp/stircache
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u +%T; } > $L
mkdir -p /tmp/g && cp $D/../aifb.hetero.gz $D/../mutag.hetero.gz /tmp/g/
$D/heterogen 94806 672884 200 1 > /tmp/g/bgs.hetero & $D/heterogen 881680 5668682 260 1 > /tmp/g/am.hetero; wait
gf() { case $1 in aifb|mutag) echo /tmp/g/$1.hetero.gz;; *) echo /tmp/g/$1.hetero;; esac; }
t() { local prog=rgms_agg reps=100; case $4 in runs_*) prog=rgms_edge;; esac; [ $2 = am ] && reps=30
  echo "$1 $2 $3 $4 $($D/stirc run $E/$prog.stir --backend cuda --schedule $S/$4.yaml --hetero A=$(gf $2) \
    --size fin=$3 --size fout=$3 --random 1 --time --reps $reps 2>&1 | awk '/^time:/{t=$2} /^Y:/{y=$0} END{print t, y}')" >> $L; }
best() { awk -v g=$1 -v F=$2 -v k="$3" '$1=="A" && $2==g && $3==F && $5 ~ /^[0-9.]+$/ { n=split(k,ks," "); ok=0; for(i=1;i<=n;i++) if (index($4,ks[i])==1) ok=1; if (ok && (b=="" || $5<b)) {b=$5; s=$4} } END{print s}' $L; }
run() { local g=$1 F=$2 R=$3; shift 3; for c in "$@"; do t A $g $F $c; done
  for r in $R; do for k in "aggruns runs" "tc_"; do w=$(best $g $F "$k"); [ -n "$w" ] && t $r $g $F $w; done; done; }
tc() { for p in "$@"; do echo tc_f${F}_tc_tsh_k4_p${p}_t2_u_zf4; done; }
gb() { for p in "$@"; do echo tc_f${F}_tc_tsh_k4_p${p}_t2_u_zf4_gb; done; }
F=64
run aifb 64 "B C" aggruns_f64_q4_k8_zf4 aggruns_f64_q4_k4_zf4 $(tc 32) $(gb 32 64 128)
run mutag 64 "B C" aggruns_f64_q4_k8_zf4 runs_f64_v4_k4_o_zf4 $(tc 128) $(gb 64 128 256)
run bgs 64 "B" runs_f64_v4_k4_o_zf4 aggruns_f64_q4_k8_zf4 $(tc 128) $(gb 128 256 512)
run am 64 "B" runs_f64_v4_k4_o_zf4 $(tc 512) $(gb 512 1024)
F=128
run aifb 128 "B" aggruns_f128_q4_k8_zf4 $(tc 32) $(gb 32 64)
run mutag 128 "B" aggruns_f128_q4_k8_zf4 $(tc 128) $(gb 128 256)
run bgs 128 "B" aggruns_f128_q4_k8_zf4 $(tc 128) $(gb 128 256)
run am 128 "B" aggruns_f128_q4_k8_zf4 $(tc 512) $(gb 512 1024)
date -u +%T >> $L
cat $L
