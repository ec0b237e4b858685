#!/bin/bash
# h-tune8's device call: cold/cached/hit tunes with phases (screening,
# stored schedule files), csrmm_hyb.yaml on Cora and PubMed, then
# tune_eval SpMM within a deadline.
D=.devdata/h-tune8; B=$D/bin; E=$D/examples
export PYTHONUNBUFFERED=1
TIMEFORMAT='wall %R s user %U s sys %S s'
L=$OUT/log.txt
T0=$(date +%s)
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; nproc; } > $L 2>&1
mkdir -p /tmp/pc && tar xzf $D/cache.tgz -C /tmp/pc
tune() { # name file feat program cache kind [tensor]
  echo "== $1 $3 $(basename $4) $6"
  { time STIR_CACHE_DIR=$5 $B/stirc tune $4 --mtx ${7:-A}=$2 --size feat=$3 -o /dev/null 2>/tmp/err ; } 2>&1
  grep -v "candidate [0-9]*: [0-9.]* ms" /tmp/err
}
{
for g in wiki-chameleon:$D/data/wiki-chameleon.mtx.gz:512 HB_bcsstk13:$D/data/suitesparse/HB_bcsstk13.mtx.gz:32; do
  n=${g%%:*}; r=${g#*:}; f=${r%:*}; ft=${r##*:}; c=/tmp/c_$n
  tune $n $f $ft $E/csrmm.stir $c cold
  tune $n $f $ft $E/csrmm.stir $c hit
  tune $n $f $ft $E/csrmm.stir $c hit
  rm -rf $c/tune; tune $n $f $ft $E/csrmm.stir $c cached
done
c=/tmp/c_tw; cp -r /tmp/pc/cache $c; f=$D/data/twitch-DE.mtx.gz
tune twitch-DE $f 256 $E/csrmm.stir $c cached
for i in 1 2 3; do tune twitch-DE $f 256 $E/csrmm.stir $c hit; done
c=/tmp/c_mg; f=$D/data/musae-github.mtx.gz
tune musae-github $f 512 $E/sddmm_rows.stir $c cold S
rm -rf $c/tune; tune musae-github $f 512 $E/sddmm_rows.stir $c cached S
tune musae-github $f 512 $E/sddmm_rows.stir $c hit S
tune musae-github $f 512 $E/sddmm_rows.stir $c hit S
echo "== phase 1 done at $(( $(date +%s) - T0 )) s"
STIR_CACHE_DIR=/tmp/pc/cache $B/bench_spmm --candidates 37 --features 64 --no-csr --json $OUT/hyb.json $D/data/cora.mtx.gz $D/data/pubmed.mtx.gz 2>&1 | tail -n 12
for g in cora pubmed; do
  echo "== csrmm_hyb.yaml $g 64"
  STIR_CACHE_DIR=/tmp/pc/cache $B/stirc run $E/csrmm.stir --mtx A=$D/data/$g.mtx.gz --size feat=64 --random 1 --schedule $E/csrmm_hyb.yaml --backend cuda --time --reps 100 2>&1 | tail -n 3
done
echo "== phase 2 done at $(( $(date +%s) - T0 )) s"
} >> $L 2>&1
mkdir -p /tmp/w; cp -r /tmp/pc/cache /tmp/w/cache
timeout ${TL:-150} python3 $D/tune_eval.py --stirc $B/stirc --bench $B/bench_spmm --program $E/csrmm.stir --data $D/data --graphs $(cat $D/graphs) --cold 0 --hits 1 --search-reps 10 --remeasure 3 --model-picks $D/picks.json --work /tmp/w --json $OUT/spmm.json --deadline-s ${DL:-100} > $OUT/spmm.txt 2>&1
echo "== all done at $(( $(date +%s) - T0 )) s (tune_eval rc $?)" >> $L
(cd /tmp/w && tar czf $OUT/spmm_raw.tgz $(ls | grep -v '^cache$'))
tail -n 40 $L
tail -n 30 $OUT/spmm.txt
