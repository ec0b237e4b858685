#!/bin/sh
# sh .devdata/rg/tune.sh T GRAPH...: stirc tune of rgms_agg --tf32, rgms_agg and rgms_edge at
# 16-128 features on each graph (the rules' pick --model-only; the measured search, stored;
# a second call, the record hit; wall times), then bench_rgms.py --no-pyg (every candidate:
# the exhaustive reference) in the same call, within T seconds; bgs/am by heterogen (seed 1);
# FEATS="F ..." other feature sizes
cd "$(dirname "$0")/../.." && D=.devdata; T=$1; shift
end=$(( $(date +%s) + T ))
export STIR_CACHE_DIR=/tmp/stircache; mkdir -p $STIR_CACHE_DIR; cp -n $D/rg/cache/* $STIR_CACHE_DIR/ 2>/dev/null
L=$OUT/tune-log.txt; { nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } >> $L
G=
for g in "$@"; do case $g in
  bgs) [ -f /tmp/bgs.hetero ] || $D/rg/heterogen 94806 672884 200 1 > /tmp/bgs.hetero; G="$G /tmp/bgs.hetero";;
  am) [ -f /tmp/am.hetero ] || $D/rg/heterogen 881680 5668682 260 1 > /tmp/am.hetero; G="$G /tmp/am.hetero";;
  *) G="$G $D/$g.hetero.gz";; esac; done
date -u >> $L
O=$OUT/tune.txt
for g in $G; do for f in ${FEATS:-16 32 64 128}; do for p in rgms_agg:--tf32 rgms_agg: rgms_edge:; do
  [ $(date +%s) -lt $end ] || { echo "out of time" >> $L; break 3; }
  prog=examples/${p%%:*}.stir; fl=${p#*:}
  echo "== $g f=$f ${p%%:*} $fl" >> $O
  $D/rg/stirc tune $prog --hetero A=$g --size feat=$f $fl --model-only --no-record -o /dev/null 2>> $O
  for run in search hit; do
    s=$(date +%s%N)
    $D/rg/stirc tune $prog --hetero A=$g --size feat=$f $fl -o /tmp/t.yaml 2>> $O
    echo "rc=$? $run wall $(( ($(date +%s%N) - s) / 1000000 )) ms" >> $O
  done
done; done; done
date -u >> $L
left=$(( end - $(date +%s) ))
[ $left -gt 30 ] && timeout $left python3 bench/bench_rgms.py $G --no-pyg --features $(echo ${FEATS:-16 32 64 128} | tr " " ,) --stirc $D/rg/stirc > $OUT/bench_rgms.txt 2>&1; echo "bench rc=$?" >> $L
date -u >> $L; ls $STIR_CACHE_DIR | wc -l >> $L
