#!/bin/bash
# h-tune8's second device call: tune_eval SpMM on graphs the first left out.
D=.devdata/h-tune8; B=$D/bin; E=$D/examples
export PYTHONUNBUFFERED=1
mkdir -p /tmp/pc /tmp/w && tar xzf $D/cache.tgz -C /tmp/pc && cp -r /tmp/pc/cache /tmp/w/cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u
timeout 90 python3 $D/tune_eval.py --stirc $B/stirc --bench $B/bench_spmm --program $E/csrmm.stir --data $D/data --graphs wiki-squirrel,citeseer,cora,musae-facebook,Bai_cryg2500,DIMACS10_fe_4elt2,DIMACS10_luxembourg_osm,AG-Monien_whitaker3 --cold 0 --hits 1 --search-reps 10 --remeasure 3 --model-picks $D/picks.json --work /tmp/w --json $OUT/spmm2.json --deadline-s ${DL:-40} > $OUT/spmm2.txt 2>&1
echo "tune_eval rc $?"; date -u
(cd /tmp/w && tar czf $OUT/spmm2_raw.tgz $(ls | grep -v '^cache$'))
grep -v "^# deadline" $OUT/spmm2.txt | tail -n 45
