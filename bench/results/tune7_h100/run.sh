#!/bin/bash
# h-tune7's device call: cold/cached/hit tunes with phases, the c_0 A/B,
# tune_eval SpMM (then SDDMM) within a deadline.
D=.devdata/h-tune7; B=$D/bin
export LD_LIBRARY_PATH=$PWD/.devdata/lib PYTHONUNBUFFERED=1
TIMEFORMAT='wall %R s user %U s sys %S s'
L=$OUT/log.txt
T0=$(date +%s)
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; nproc; } > $L 2>&1
tune() { # name file feat program cache kind
  echo "== $1 $3 $(basename $4) $6 (cache $5)"
  { time STIR_CACHE_DIR=$5 $B/stirc tune $4 --mtx ${7:-A}=$2 --size feat=$3 -o /dev/null 2>/tmp/err ; } 2>&1
  grep -v "candidate [0-9]*: [0-9.]* ms" /tmp/err
}
{
for g in wiki-chameleon:$D/data/wiki-chameleon.mtx.gz HB_bcsstk13:$D/data/suitesparse/HB_bcsstk13.mtx.gz; do
  n=${g%%:*}; f=${g#*:}; c=/tmp/c_$n
  tune $n $f 512 examples/csrmm.stir $c cold
  tune $n $f 512 examples/csrmm.stir $c hit
  rm -rf $c/tune; tune $n $f 512 examples/csrmm.stir $c cached
done
c=/tmp/c_tw; f=$D/data/twitch-DE.mtx.gz
tune twitch-DE $f 256 examples/csrmm.stir $c cold
for i in 1 2 3; do tune twitch-DE $f 256 examples/csrmm.stir $c hit; done
c=/tmp/c_mg; f=$D/data/musae-github.mtx.gz
tune musae-github $f 512 examples/sddmm_rows.stir $c cold S
rm -rf $c/tune; tune musae-github $f 512 examples/sddmm_rows.stir $c cached S
tune musae-github $f 512 examples/sddmm_rows.stir $c hit S
echo "== phase 1 done at $(( $(date +%s) - T0 )) s"
# A/B: the warp-cached candidates wider than a piece, old (pieces unrolled) and new
CA=38,39,40,43,44,45,48,52,53,54,59
mkdir -p /tmp/ab; cp -r $D/cache_old /tmp/ab/old
for v in old new; do
  bin=$B/bench_spmm; [ $v = old ] && bin=$B/bench_spmm_old
  { time STIR_CACHE_DIR=/tmp/ab/$v $bin --candidates $CA --features 256,512 --no-csr --reps 100 --json /tmp/ab/$v.json $D/data/twitch-DE.mtx.gz $D/data/suitesparse/HB_bcsstk33.mtx.gz $D/data/musae-github.mtx.gz > /tmp/ab/$v.txt 2>&1 ; } 2>&1
  echo "A/B $v done"
done
echo "== phase 2 done at $(( $(date +%s) - T0 )) s"
} >> $L 2>&1
tar czf $OUT/ab.tgz -C /tmp/ab old.json new.json old.txt new.txt 2>/dev/null
G=$(cat $D/graphs)
python3 bench/tune_eval.py --stirc $B/stirc --bench $B/bench_spmm --data $D/data --graphs $G --cold 0 --hits 1 --search-reps 20 --remeasure 2 --model-picks $D/picks.json --work /tmp/w --json $OUT/spmm.json --deadline-s ${SPMM_DL:-150} > $OUT/spmm.txt 2>&1
echo "== spmm done at $(( $(date +%s) - T0 )) s" >> $L
if [ $(( $(date +%s) - T0 )) -lt ${SDDMM_START:-200} ]; then
python3 bench/tune_eval.py --op sddmm --stirc $B/stirc --bench $B/bench_sddmm --data $D/data --graphs vanHeukelum_cage8,wiki-chameleon,wiki-crocodile,wiki-squirrel --cold 0 --hits 1 --search-reps 20 --remeasure 2 --model-picks $D/picks_sddmm.json --work /tmp/ws --json $OUT/sddmm.json --deadline-s 40 > $OUT/sddmm.txt 2>&1
fi
echo "== all done at $(( $(date +%s) - T0 )) s" >> $L
(cd /tmp/w && tar czf $OUT/spmm_raw.tgz $(ls | grep -v '^cache$') 2>/dev/null)
