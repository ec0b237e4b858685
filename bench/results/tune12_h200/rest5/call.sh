#!/bin/bash
# integrator, session 15, call 1: bsr12's 2-warp candidates, then h-tune12's
# evaluation on the 5 graphs the H200 did not reach.
cd "$(dirname "$0")/.."
mkdir -p $OUT/bsr $OUT/tune
OUT=$OUT/bsr bash .devdata/h-bsr12/run2.sh > $OUT/bsr/summary.txt 2>&1
echo "bsr done $(date -u)" >> $OUT/bsr/summary.txt
OUT=$OUT/tune TE=480 TS=400 GRAPHS=HB_bcsstk13,AG-Monien_3elt,citeseer,wiki-crocodile,DIMACS10_luxembourg_osm bash .devdata/h-tune12/run.sh > $OUT/tune/stdout.txt 2>&1
tail -30 $OUT/bsr/summary.txt; tail -40 $OUT/tune/stdout.txt
