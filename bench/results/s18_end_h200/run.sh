#!/bin/sh
# sh .devdata/final/run.sh: run-gpu-tests with the carried static build
cd "$(dirname "$0")/../.." && top=$PWD
STIR_DATA_DIR=$top/.devdata STIR_LIBRARY=/nonexistent timeout ${1:-500} tools/run-gpu-tests .devdata/final/b > $OUT/gpu-tests.log 2>&1; echo "rc=$?"
grep -c "^PASS\|: ok" $OUT/gpu-tests.log; grep -n "FAIL" $OUT/gpu-tests.log | head -20; tail -5 $OUT/gpu-tests.log
