#!/bin/sh
# the sixteenth session's end: run-gpu-tests, then the RGMS figures (.devdata/h100-rgms/run.sh)
cd "$(dirname "$0")/../.."
sh .devdata/final/run.sh 300
mkdir -p $OUT/rgms && OUT=$OUT/rgms timeout 260 bash .devdata/h100-rgms/run.sh > $OUT/rgms.log 2>&1; echo "rgms rc $?"
tail -45 $OUT/rgms/rgms.txt
