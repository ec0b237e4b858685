#!/bin/sh
# sh .devdata/bt/run.sh: block-sparse weights (gen.py, seed 1, blocks of 16) tuned by stirc tune
# (bsrmm, blocks of 16: the rule's pick --model-only, then the measured search of its 4
# candidates, every time printed) at widths 128 and 512
cd "$(dirname "$0")/../.." && D=.devdata; mkdir -p /tmp/bt
export STIR_CACHE_DIR=/tmp/btcache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $OUT/bsr_tune.txt; date -u >> $OUT/bsr_tune.txt
python3 $D/bt/gen.py /tmp/bt >> $OUT/bsr_tune.txt 2>&1
for f in /tmp/bt/*.mtx; do for w in 128 512; do
  echo "== $(basename $f .mtx) w=$w" >> $OUT/bsr_tune.txt
  $D/final/b/tools/stirc tune examples/bsrmm.stir --mtx A=$f --size feat=$w --model-only --no-record -o /dev/null 2>> $OUT/bsr_tune.txt
  $D/final/b/tools/stirc tune examples/bsrmm.stir --mtx A=$f --size feat=$w --no-record -o /dev/null 2>> $OUT/bsr_tune.txt
done; done
date -u >> $OUT/bsr_tune.txt
