#!/bin/bash
# tuner noise study: the same tune 4 times (2 s idle before each), and the near-tied candidates in 3 bench processes
f=$PWD/.devdata/final
mkdir -p /tmp/nw && tar xzf $f/cache.tgz -C /tmp/nw; export STIR_CACHE_DIR=/tmp/nw/cache
nvidia-smi --query-gpu=name --format=csv,noheader
for F in 32 128; do for i in 1 2 3 4; do sleep 2
  $f/build/tools/stirc tune $f/examples/csrmm.stir --mtx A=$f/data/Bai_cryg2500.mtx.gz --size feat=$F --no-record -o /dev/null 2> $OUT/tune_${F}_$i.err
  echo "tune $F run $i: $(grep -o 'candidate [0-9]*, measured.*fastest measured, [0-9.]* ms' $OUT/tune_${F}_$i.err)"
done; done
for i in 1 2 3; do
  $f/build/bench_spmm --no-csr --features 32,128 --candidates 11,28,34,32,12,35,3,7 --json $OUT/bench_$i.json $f/data/Bai_cryg2500.mtx.gz > $OUT/bench_$i.txt 2>&1
done
python3 - <<'PY'
import json,os,re,glob
o=os.environ['OUT']
for F in (32,128):
    print("F",F,"bench processes (us): cand: p1 p2 p3")
    rows={}
    for i in (1,2,3):
        d=json.load(open(f"{o}/bench_{i}.json"))
        x=[r for r in d['results'] if r['features']==F][0]['search_ms']
        for c,v in enumerate(x):
            if v: rows.setdefault(c,[]).append(v*1000)
    for c,v in sorted(rows.items(), key=lambda kv: kv[1][0]): print("  ",c," ".join("%.3f"%t for t in v))
    print("F",F,"tuner runs (us) of those candidates")
    for i in (1,2,3,4):
        e=open(f"{o}/tune_{F}_{i}.err").read()
        tt={int(a):float(b)*1000 for a,b in re.findall(r"candidate (\d+): ([0-9.]+) ms",e)}
        print("   run",i," ".join(f"{c}:{tt[c]:.1f}" for c in sorted(rows) if c in tt))
PY
