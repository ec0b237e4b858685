#!/bin/bash
# h-tune11's device call (one H100): (1) where one kernel's time differs
# between processes: Bai_cryg2500's near-tied candidates in 3 processes
# (as the evaluation timed), in rounds at the same addresses and in rounds
# at other addresses (bench_spmm --rounds/--shift-kib), and 3 tunes with
# the finalists; (2) DIMACS10_luxembourg_osm's tunes: cold at 512, a
# record hit, cached at 256 and 512; (3) tune_eval with the finalists
# against the exhaustive search, re-measured as the median of 3 fresh
# processes of 3 rounds each; (4) time left: bench_sddmm on cora,
# pubmed, citeseer (the SDDMM model's picks are scored on the host).
cd "$(dirname "$0")/../.."
D=$PWD/.devdata/h-tune11; B=$D/bin; E=$D/examples
export PYTHONUNBUFFERED=1
L=$OUT/log.txt; N=/tmp/noise; W=/tmp/w
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; nproc; } > $L 2>&1
mkdir -p $W $N /tmp/cold && tar xzf $D/cache.tgz -C $W
export STIR_CACHE_DIR=$W/cache
G=$D/data/Bai_cryg2500.mtx.gz; C=11,28,34,32,12,35,3,7,46
if [ -z "$ONLY_EVAL" ]; then
bs() { timeout 30 $B/bench_spmm --no-csr --features 32,128 --candidates $C "$@" $G; }
for i in 1 2 3; do bs --json $N/proc_$i.json > $N/proc_$i.txt 2>&1; done
for i in 1 2; do bs --reps 30 --rounds 5 --json $N/same_$i.json > $N/same_$i.txt 2>&1; done
for i in 1 2; do bs --reps 30 --rounds 5 --shift-kib 2112 --json $N/shift_$i.json > $N/shift_$i.txt 2>&1; done
for i in 1 2 3; do timeout 30 $B/stirc tune $E/csrmm.stir --mtx A=$G --size feat=32 --no-record -o /dev/null 2> $N/tune32_$i.err; done
echo "noise done at $(el) s" >> $L
tw() { local s=$(date +%s%N); timeout 40 $B/stirc tune $E/csrmm.stir --mtx A=$D/data/DIMACS10_luxembourg_osm.mtx.gz --size feat=$1 -o /dev/null "${@:2}" 2> $N/lux.err; local rc=$?; echo "luxembourg_osm $1 $2 $(cat /tmp/what): rc $rc wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E 'the search|finalists|fastest measured|record' $N/lux.err | tr '\n' ' ' | cut -c1-600)" >> $L; }
echo cold > /tmp/what; STIR_CACHE_DIR=/tmp/cold tw 512
echo hit > /tmp/what; STIR_CACHE_DIR=/tmp/cold tw 512
echo cached > /tmp/what; tw 256 --no-record; tw 512 --no-record
echo "luxembourg done at $(el) s" >> $L
fi
timeout ${TL:-210} python3 $D/tune_eval.py --stirc $B/stirc --bench $B/bench_spmm --program $E/csrmm.stir --data $D/data --graphs ${GRAPHS:-Bai_cryg2500,AG-Monien_whitaker3,vanHeukelum_cage8,HB_zenios,DIMACS10_data,Pothen_commanche_dual,HB_bcsstk13,AG-Monien_3elt,citeseer,cora,SNAP_ca-GrQc,AG-Monien_crack,DIMACS10_fe_4elt2,wiki-chameleon,pubmed,musae-github,twitch-DE,wiki-crocodile,DIMACS10_luxembourg_osm} --cold 0 --hits 0 --search-reps 10 --reps 30 --remeasure 3 --remeasure-procs 3 --rounds 3 --shift-kib 2112 --model-picks $D/picks.json --work $W --json $OUT/spmm.json --deadline-s ${DL:-${DLS:-170}} > $OUT/spmm.txt 2>&1
echo "tune_eval rc $? done at $(el) s" >> $L
if [ -z "$ONLY_EVAL" ] && [ $(el) -lt ${SDL:-235} ]; then
  mkdir -p /tmp/sd && tar xzf $D/sddmm_cache.tgz -C /tmp/sd
  STIR_CACHE_DIR=/tmp/sd/cache timeout 45 $B/bench_sddmm --reps 30 --json $OUT/sddmm.json $D/data/cora.mtx.gz $D/data/pubmed.mtx.gz $D/data/citeseer.mtx.gz > $N/sddmm.txt 2>&1
  echo "bench_sddmm rc $? done at $(el) s" >> $L
fi
(cd /tmp && tar czf $OUT/raw.tgz noise $(cd /tmp && ls -d w/* | grep -v '^w/cache$'))
date -u >> $L
cat $L
grep -E "^#" $OUT/spmm.txt | grep -v "^# deadline" | tail -20
