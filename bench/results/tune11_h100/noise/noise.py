#!/usr/bin/env python3
"""The noise study of bench/RESULTS.md, "The tuner's finalists and the
re-measure over three processes": for the nine candidates timed in
proc_*.json (3 bench_spmm processes, 100 runs each), same_*.json (5
interleaved rounds of 30 runs at the same device addresses) and
shift_*.json (5 rounds at other addresses, --shift-kib 2112), each
round's (or process's) level -- its mean log time over the nine -- and
each candidate's own noise, the sd of what is left after that level.

usage: noise.py DIR > noise.txt
"""
import json,statistics as st,math,sys
N=sys.argv[1]
C=[11,28,34,32,12,35,3,7,46]
def load(f):
    d=json.load(open(f)); return {r['features']:r for r in d['results']}
for F in (32,128):
    print("== %d features" % F)
    for kind in ("same","shift"):
        for i in (1,2):
            r=load(f"{N}/{kind}_{i}.json")[F]['search_rounds_ms']
            R=len(r[C[0]])
            # log times; round effect = mean over candidates of the round
            lg={c:[math.log(x) for x in r[c]] for c in C}
            cand_mean={c:st.mean(lg[c]) for c in C}
            round_eff=[st.mean(lg[c][q]-cand_mean[c] for c in C) for q in range(R)]
            resid=[lg[c][q]-cand_mean[c]-round_eff[q] for c in C for q in range(R)]
            raw=[lg[c][q]-cand_mean[c] for c in C for q in range(R)]
            print("  %-5s p%d: round levels %s (range %.1f%%); per-candidate sd %.2f%% raw, %.2f%% with the round's level removed" % (
                kind,i," ".join("%+.1f%%"%(100*e) for e in round_eff),100*(max(round_eff)-min(round_eff)),
                100*st.pstdev(raw),100*st.pstdev(resid)))
    procs=[load(f"{N}/proc_{i}.json")[F]['search_ms'] for i in (1,2,3)]
    lg={c:[math.log(p[c]) for p in procs] for c in C}
    cm={c:st.mean(lg[c]) for c in C}
    pe=[st.mean(lg[c][q]-cm[c] for c in C) for q in range(3)]
    resid=[lg[c][q]-cm[c]-pe[q] for c in C for q in range(3)]
    raw=[lg[c][q]-cm[c] for c in C for q in range(3)]
    print("  3 processes of 100 runs: process levels %s; per-candidate sd %.2f%% raw, %.2f%% with the process's level removed" % (
        " ".join("%+.1f%%"%(100*e) for e in pe),100*st.pstdev(raw),100*st.pstdev(resid)))
