#!/bin/bash
# h-tune7's second call: record hits after the sched_check_scopes fix; one more cold case.
D=.devdata/h-tune7; B=$D/bin
export LD_LIBRARY_PATH=$PWD/.devdata/lib
TIMEFORMAT='wall %R s user %U s sys %S s'
L=$OUT/log2.txt
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; } > $L 2>&1
tune() { # name file feat program cache kind
  echo "== $1 $3 $(basename $4) $6"
  { time STIR_CACHE_DIR=$5 $B/stirc tune $4 --mtx ${7:-A}=$2 --size feat=$3 -o /dev/null 2>/tmp/err ; } 2>&1
  grep -v "candidate [0-9]*: [0-9.]* ms" /tmp/err
}
{
f=$D/data/twitch-DE.mtx.gz; c=/tmp/c_tw
tune twitch-DE $f 256 examples/csrmm.stir $c cold
for i in 1 2 3; do tune twitch-DE $f 256 examples/csrmm.stir $c hit; done
f=$D/data/wiki-squirrel.mtx.gz; c=/tmp/c_sq
tune wiki-squirrel $f 512 examples/csrmm.stir $c cold
for i in 1 2; do tune wiki-squirrel $f 512 examples/csrmm.stir $c hit; done
rm -rf $c/tune; tune wiki-squirrel $f 512 examples/csrmm.stir $c cached
date -u
} >> $L 2>&1
