#!/bin/bash
# h-tune12's device call (one GPU; the integrator runs it: carry
# .devdata/h-tune12 alone). The search timed in 3 interleaved rounds
# (branch h-tune12): (1) DIMACS10_luxembourg_osm's tunes: cold at 512, a
# record hit, cached at 256 and 512 (targets: cached at 512 <= 3 s, cold
# <= 20 s, hit <= 0.5 s); 3 tunes of Bai_cryg2500 at 32 and 128 (does the
# pick hold from process to process?); (2) tune_eval against the
# exhaustive search, re-measured as h-tune11 did (the median of 3 fresh
# processes of 3 rounds each), the 10 graphs not yet run first, then the 9
# of most misses; a deadline so that the whole command ends within 520 s.
# Everything under $OUT (log.txt, spmm.txt, spmm.json, raw.tgz).
# DRY=1: on the host, model-only, to check the script (no GPU).
cd "$(dirname "$0")/../.."
D=$PWD/.devdata/h-tune12; B=$D/bin; E=$D/examples
export PYTHONUNBUFFERED=1
: "${OUT:=/tmp/h-tune12-out}"; mkdir -p $OUT
L=$OUT/log.txt; N=/tmp/h12noise; W=/tmp/h12w
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; nproc; } > $L 2>&1
rm -rf $W $N /tmp/h12cold; mkdir -p $W $N /tmp/h12cold && tar xzf $D/cache.tgz -C $W
export STIR_CACHE_DIR=$W/cache
MO=${DRY:+--model-only}
tw() { local s=$(date +%s%N); timeout 40 $B/stirc tune $E/csrmm.stir --mtx A=$D/data/DIMACS10_luxembourg_osm.mtx.gz --size feat=$1 $MO -o /dev/null "${@:2}" 2> $N/lux.err; local rc=$?; echo "luxembourg_osm $1 $2 $(cat $N/what): rc $rc wall $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E 'the search|finalists|rounds|kernel csrmm|error' $N/lux.err | tr '\n' ' ' | cut -c1-700)" >> $L; }
echo cold > $N/what; STIR_CACHE_DIR=/tmp/h12cold tw 512
echo hit > $N/what; STIR_CACHE_DIR=/tmp/h12cold tw 512
echo cached > $N/what; tw 256 --no-record; tw 512 --no-record
for f in 32 128; do for i in 1 2 3; do
  timeout 30 $B/stirc tune $E/csrmm.stir --mtx A=$D/data/Bai_cryg2500.mtx.gz --size feat=$f $MO --no-record -o /dev/null 2> $N/cryg_${f}_$i.err
  echo "Bai_cryg2500 $f #$i rc $?: $(grep -E 'kernel csrmm|rounds|finalists' $N/cryg_${f}_$i.err | tr '\n' ' ' | cut -c1-400)" >> $L
done; done
echo "tunes done at $(el) s" >> $L
[ -n "$DRY" ] && { cat $L; exit 0; }
G10=SNAP_ca-GrQc,AG-Monien_crack,DIMACS10_fe_4elt2,cora,wiki-chameleon,pubmed,musae-github,twitch-DE,wiki-crocodile,DIMACS10_luxembourg_osm
G9=Bai_cryg2500,AG-Monien_whitaker3,vanHeukelum_cage8,HB_zenios,DIMACS10_data,Pothen_commanche_dual,HB_bcsstk13,AG-Monien_3elt,citeseer
# start no graph after 400 s from the start; end tune_eval by 490 s
LEFT=$(( 490 - $(el) )); DLS=$(( 400 - $(el) ))
timeout $LEFT python3 $D/tune_eval.py --stirc $B/stirc --bench $B/bench_spmm --program $E/csrmm.stir --data $D/data --graphs ${GRAPHS:-$G10,$G9} --cold 0 --hits 0 --search-reps 10 --reps 30 --remeasure 3 --remeasure-procs 3 --rounds 3 --shift-kib 2112 --model-picks $D/picks.json --work $W --json $OUT/spmm.json --deadline-s $DLS > $OUT/spmm.txt 2>&1
echo "tune_eval rc $? done at $(el) s" >> $L
(cd /tmp && tar czf $OUT/raw.tgz h12noise $(cd /tmp && ls -d h12w/* | grep -v '^h12w/cache$'))
date -u >> $L
cat $L
grep -E "^#" $OUT/spmm.txt | grep -v "^# deadline" | tail -20
