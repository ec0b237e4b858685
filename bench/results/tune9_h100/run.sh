#!/bin/bash
# h-tune9's device call: one cold-cache tune (the largest graph at 512
# features, 24 candidates by NVRTC) and its record hit, then tune_eval SpMM
# with the 15-candidate list and 24 timed, within a deadline.
D=.devdata/h-tune9; B=$D/bin; E=$D/examples
export PYTHONUNBUFFERED=1
TIMEFORMAT='wall %R s user %U s sys %S s'
L=$OUT/log.txt
T0=$(date +%s)
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; nproc; } > $L 2>&1
mkdir -p /tmp/w && tar xzf $D/cache.tgz -C /tmp/w
tune() { # name file feat cache kind
  echo "== $1 $3 $5"
  { time STIR_CACHE_DIR=$4 $B/stirc tune $E/csrmm.stir --mtx A=$2 --size feat=$3 -o /dev/null 2>/tmp/err ; } 2>&1
  grep -v "candidate [0-9]*: [0-9.]* ms" /tmp/err
}
{
f=$D/data/suitesparse/DIMACS10_luxembourg_osm.mtx.gz
tune DIMACS10_luxembourg_osm $f 512 /tmp/cold cold
tune DIMACS10_luxembourg_osm $f 512 /tmp/cold hit
echo "== cold done at $(( $(date +%s) - T0 )) s"
} >> $L 2>&1
timeout ${TL:-45} python3 $D/tune_eval.py --stirc $B/stirc --bench $B/bench_spmm --program $E/csrmm.stir --data $D/data --graphs $(cat $D/graphs) --cold 0 --hits 1 --search-reps 10 --remeasure 3 --model-picks $D/picks.json --work /tmp/w --json $OUT/spmm.json --deadline-s ${DL:-18} > $OUT/spmm.txt 2>&1
echo "== all done at $(( $(date +%s) - T0 )) s (tune_eval rc $?)" >> $L
(cd /tmp/w && tar czf $OUT/spmm_raw.tgz $(ls | grep -v '^cache$'))
cat $L
grep -v "^# deadline" $OUT/spmm.txt | tail -n 30
