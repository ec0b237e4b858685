#!/usr/bin/env python3
"""The tuner against the exhaustive search, on one GPU, in one call.

For every graph (the .mtx.gz files of the data directory and of its
suitesparse/, or those --graphs names), one after another:

1. bench_spmm on the graph at every feature size of --features (the
   exhaustive search: every candidate of the hybrid SpMM timed, the median
   of --reps runs, default 100, with the L2 cache flushed before each, and
   cuSPARSE's best algorithm), its kernels compiled into the work
   directory's kernel cache (the first graph compiles them; no kernel
   depends on the graph);
2. at each feature size, `stirc tune PROGRAM --mtx A=G --size feat=F` with
   an empty tuning record: for the first --cold graphs with an empty kernel
   cache too (cold: every candidate compiled by NVRTC), for the others with
   the kernel cache step 1 filled (the kernels cached: the issue's <= 3 s
   target); its wall time, the candidate and its time (the median of 100,
   re-measured as the benchmark measures);
3. the same command again: a record hit, its wall time.

Each case is printed when it is done, so that a call cut short keeps what
it measured; --deadline-s S starts no graph after S seconds.

--op sddmm measures the SDDMM instead: bench_sddmm's exhaustive search
(every candidate of stir_sddmm_get_candidate, fused and by rows, against
cusparseSDDMM), and the tuner on both programs of the SDDMM,
examples/sddmm.stir (the fused candidates) and examples/sddmm_rows.stir
(the row candidates), with --mtx S=G: a program covers only its own
candidates, so the case's tuned time is the faster of the two (both are
printed).  The model's pick (`stirc tune --model-only`, host only) is
looked up in the exhaustive search's times of every candidate: "model/best"
(for the SDDMM, the better of the two programs' picks).

It prints a line per case -- the tuned time over the exhaustive best and
cuSPARSE's time over the tuned one -- then the fraction of cases within 3%
of the best, the geometric mean, the worst, the cases below 0.9x of
cuSPARSE, and the wall times.  The tuned and the exhaustive times come from
different processes on the same card: differences of 1-2% are noise.  So
it also looks the tuner's pick up in the exhaustive search's own times
("the tuned pick in the exhaustive run's own timing": the pick and the
best timed by one process, one after the other).

For a lean run over many cases: --search-reps N times the exhaustive
search with N runs per candidate instead of --reps, and --remeasure K then
times, per graph, the tuner's picks, the model's picks and the search's K
fastest of each feature size again in --remeasure-procs fresh benchmark
processes (default 1) with --reps runs (`--candidates`), each in --rounds
rounds (default 1; every candidate once a round, at other device
addresses each round with --shift-kib): each candidate's time is its
median over the processes, and "re t/best" is the pick over the fastest
of those medians, the comparison the issue's target asks for, as are "re
m/best" and "re vend/t" (the first process alone is printed too).  --write-model-picks FILE runs only the model
(`stirc tune --model-only`, no GPU) on every case and writes its picks;
--model-picks FILE takes them on the GPU machine instead of running the
model there.

usage: bench/tune_eval.py [--op spmm|sddmm] [--stirc build/tools/stirc]
         [--bench build/bench/bench_spmm] [--program examples/csrmm.stir]
         [--data ../shared/data] [--graphs NAME,..] [--features 32,64,..]
         [--cold 1] [--reps 100] [--work DIR] [--json FILE]
         [--deadline-s S] [--hits N] [--no-model] [--model-from JSON]
         [--search-reps N] [--remeasure K] [--remeasure-procs P]
         [--rounds R] [--shift-kib K] [--model-picks JSON]
         [--write-model-picks JSON]
"""
import argparse
import glob
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def graphs_of(data, names):
    """The graph files of directory "data" and data/suitesparse, by name
    (the file's name without .mtx.gz), sorted; only "names" when given."""
    files = sorted(glob.glob(os.path.join(data, "*.mtx.gz")) +
                   glob.glob(os.path.join(data, "suitesparse", "*.mtx.gz")))
    by = {os.path.basename(f)[:-len(".mtx.gz")]: f for f in files}
    if not names:
        return sorted(by.items())
    missing = [n for n in names if n not in by]
    if missing:
        sys.exit("tune_eval: no graph %s in %s" % (", ".join(missing), data))
    return [(n, by[n]) for n in names]


def run_tune(args, graph, feat, cache, program=None, model_only=False):
    """One `stirc tune` of "graph" at "feat" features with kernel cache and
    record in "cache" (of "program", default --program): (wall seconds,
    candidate, ms or None, stderr), or None when it failed.  With
    model_only, the model's pick (no record): its ms is None."""
    env = dict(os.environ, STIR_CACHE_DIR=cache)
    cmd = [args.stirc, "tune", program or args.program, "--mtx",
           ("S=" if args.op == "sddmm" else "A=") + graph,
           "--size", "feat=%d" % feat, "-o", os.devnull]
    if model_only:
        cmd += ["--model-only", "--no-record"]
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                       timeout=args.timeout)
    wall = time.monotonic() - t0
    if model_only:
        m = re.search(r"candidate (\d+), the cost model's pick", p.stderr)
        if p.returncode == 0 and m:
            return wall, int(m.group(1)), None, p.stderr
    m = re.search(r"candidate (\d+), .*?the fastest measured, ([0-9.]+) ms",
                  p.stderr)
    if p.returncode != 0 or not m:
        sys.stderr.write("tune_eval: %s failed (exit %d):\n%s\n" %
                         (" ".join(cmd), p.returncode, p.stderr[-2000:]))
        return None
    return wall, int(m.group(1)), float(m.group(2)), p.stderr


def kernels_in(cache):
    """The compiled kernels in kernel cache "cache"."""
    return len(glob.glob(os.path.join(cache, "*.kc")))


def model_ratio(ex_case, cand):
    """The exhaustive search's time of candidate "cand" over its best in
    one case of the benchmark's JSON, or None (not timed: a duplicate of
    an earlier candidate, or failed)."""
    ms = ex_case.get("search_ms") or []
    best = ex_case.get("stir_ms", ex_case.get("stir_hyb_ms"))
    if cand is None or cand >= len(ms) or ms[cand] is None or not best:
        return None
    return ms[cand] / best


def tune_case(args, path, f, cdir, hit_too):
    """The tuner on one case: per program, (tuned run, record hit or None
    unless hit_too, model pick or None with --no-model), each run_tune's
    answer or None."""
    out = {}
    for prog in args.programs:
        shutil.rmtree(os.path.join(cdir, "tune"), ignore_errors=True)
        t = run_tune(args, path, f, cdir, prog)
        hit = run_tune(args, path, f, cdir, prog) if t and hit_too else None
        key = model_key(path, f, prog)
        if args.model_picks is not None:
            pick = args.model_picks.get(key)
            model = (0.0, pick, None, "") if pick is not None else None
        else:
            model = None if args.no_model else \
                run_tune(args, path, f, cdir, prog, model_only=True)
        out[prog] = (t, hit, model)
    return out


def model_key(path, feat, prog):
    """The key of one case and program in a --model-picks file."""
    return "%s %d %s" % (os.path.basename(path)[:-len(".mtx.gz")], feat,
                         os.path.basename(prog))


def write_model_picks(args, feats, graphs):
    """--write-model-picks: the model's pick of every case and program
    (`stirc tune --model-only`, no GPU), as JSON {key: candidate}."""
    picks = {}
    with tempfile.TemporaryDirectory() as cache:
        for name, path in graphs:
            for f in feats:
                for prog in args.programs:
                    m = run_tune(args, path, f, cache, prog, model_only=True)
                    if m:
                        picks[model_key(path, f, prog)] = m[1]
    json.dump(picks, open(args.write_model_picks, "w"), indent=1,
              sort_keys=True)
    print("# %d model picks written to %s" % (len(picks),
                                              args.write_model_picks))
    return 0


def search_fastest(ex_case, k):
    """The indices of the k fastest candidates of one case's search."""
    ms = ex_case.get("search_ms") or []
    timed = sorted((t, i) for i, t in enumerate(ms) if t is not None)
    return [i for _, i in timed[:k]]


def median_over_processes(runs):
    """runs: the search_ms lists of one case from several benchmark
    processes (None for a candidate not timed).  Each candidate's median
    over the processes, or None where a process did not time it."""
    n = max((len(r) for r in runs), default=0)
    out = []
    for i in range(n):
        v = [r[i] if i < len(r) else None for r in runs]
        out.append(None if not v or None in v else statistics.median(v))
    return out


def remeasure(args, name, path, feats, cache, best, cases):
    """--remeasure: the tuner's and the model's picks of this graph's
    "cases" and the search's --remeasure fastest of each feature size
    ("best": the search's case per feature size) timed again in
    --remeasure-procs fresh benchmark processes, one after another, each
    with --rounds rounds of --reps runs (every candidate once a round, at
    other device addresses each round: --shift-kib); each candidate's time
    is its median over the processes, the pick, the model's pick and
    every other candidate alike.  Adds re_* ratios to the cases (and
    re1_tuned_over_best: the first process alone, the earlier
    comparison)."""
    want = set()
    for c in cases:
        want.add(c["candidate"])
        want.add(c.get("search_candidate", c["candidate"]))
        want.update(p["model_candidate"] for p in c["per_program"].values()
                    if p["model_candidate"] is not None)
    for f in feats:
        if f in best:
            want.update(search_fastest(best[f], args.remeasure))
    runs = []
    for q in range(args.remeasure_procs):
        ex_json = os.path.join(args.work_dir, "remeasure-%s-%d.json" %
                               (name, q))
        cmd = bench_cmd(args, feats, args.reps, ex_json, path)
        cmd[1:1] = ["--candidates", ",".join(map(str, sorted(want))),
                    "--rounds", str(args.rounds),
                    "--shift-kib", str(args.shift_kib)]
        p = subprocess.run(cmd, env=dict(os.environ, STIR_CACHE_DIR=cache),
                           capture_output=True, text=True)
        if p.returncode != 0:
            print("# %s: re-measure failed (exit %d): %s" %
                  (name, p.returncode, p.stderr[-500:].replace("\n", " ")))
            return
        runs.append({r["features"]: r for r in
                     json.load(open(ex_json))["results"]})
    for c in cases:
        per = [run.get(c["features"]) for run in runs]
        if None in per:
            continue
        ms = median_over_processes([r.get("search_ms") or [] for r in per])
        first = per[0].get("search_ms") or []
        timed = [t for t in ms if t is not None]
        pick = ms[c["candidate"]] if c["candidate"] < len(ms) else None
        if not timed or pick is None:
            continue
        fastest = min(timed)
        models = [ms[p["model_candidate"]]
                  for p in c["per_program"].values()
                  if p["model_candidate"] is not None and
                  p["model_candidate"] < len(ms) and
                  ms[p["model_candidate"]] is not None]
        cusparse = statistics.median(r["cusparse_ms"] for r in per)
        c["re_pick_ms"] = pick
        c["re_best_ms"] = fastest
        c["re_best_candidate"] = ms.index(fastest)
        c["re_cusparse_ms"] = cusparse
        c["re_processes"] = len(per)
        c["re_rounds"] = args.rounds
        c["re_tuned_over_best"] = pick / fastest
        c["re_model_over_best"] = min(models) / fastest if models else None
        c["re_cusparse_over_tuned"] = cusparse / pick
        c["re1_tuned_over_best"] = first[c["candidate"]] / \
            min(t for t in first if t is not None)
        sc = c.get("search_candidate", c["candidate"])
        if sc < len(ms) and ms[sc] is not None:
            c["re_search_over_best"] = ms[sc] / fastest
        print("%-26s %4d re-measured: pick %.4f best %.4f (cand %d) "
              "t/best %.3f m/best %s vend/t %.2f (first process t/best "
              "%.3f)" %
              (name, c["features"], pick, fastest, c["re_best_candidate"],
               c["re_tuned_over_best"],
               "%.3f" % c["re_model_over_best"]
               if c["re_model_over_best"] is not None else "-",
               c["re_cusparse_over_tuned"], c["re1_tuned_over_best"]))


def bench_cmd(args, feats, reps, json_file, path):
    """The benchmark's command on one graph: every candidate (or those
    --candidates names, inserted after the program by the caller)."""
    cmd = [args.bench, "--features", ",".join(map(str, feats)),
           "--reps", str(reps), "--program", args.program,
           "--json", json_file, path]
    if args.op == "spmm":
        cmd.insert(1, "--no-csr")
    return cmd


def model_from(args, feats, graphs):
    """--model-from: the model's picks (on the host) of the cases of an
    earlier run's --json, looked up in its exhaustive searches (the
    exhaustive-NAME.json files of --work); prints model/best per case and
    the geometric mean."""
    done = json.load(open(args.model_from))
    paths = dict(graphs)
    ratios = []
    for c in done["cases"]:
        if c.get("failed") or c.get("not_run") or c["graph"] not in paths:
            continue
        ex = json.load(open(os.path.join(args.work, "exhaustive-%s.json" %
                                         c["graph"])))
        b = {r["features"]: r for r in ex["results"]}.get(c["features"])
        got = [model_ratio(b, m[1]) if m else None for m in
               (run_tune(args, paths[c["graph"]], c["features"], args.work,
                         prog, model_only=True) for prog in args.programs)]
        got = [g for g in got if g is not None]
        if b and got:
            ratios.append(min(got))
            print("%-26s %4d model/best %.3f" % (c["graph"], c["features"],
                                                 min(got)))
    if ratios:
        print("# model-only (%s, exhaustive times from %s): geometric mean "
              "model/best %.3f over %d cases, worst %.3f, within 10%%: %d" %
              (args.op, done.get("device", "?"),
               geomean(ratios),
               len(ratios), max(ratios), sum(r <= 1.10 for r in ratios)))
    return 0


def geomean(xs):
    """The geometric mean of the positive numbers xs."""
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--op", choices=("spmm", "sddmm"), default="spmm")
    ap.add_argument("--stirc", default="build/tools/stirc")
    ap.add_argument("--bench", default="")
    ap.add_argument("--program", default="")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--graphs", default="")
    ap.add_argument("--features", default="32,64,128,256,512")
    ap.add_argument("--cold", type=int, default=1,
                    help="cases per feature size tuned with an empty "
                    "kernel cache (default 1)")
    ap.add_argument("--reps", type=int, default=100,
                    help="the benchmark's timed runs (default 100)")
    ap.add_argument("--work", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--deadline-s", type=float, default=0,
                    help="start no graph after this many seconds")
    ap.add_argument("--hits", type=int, default=-1,
                    help="time a record hit on the first N graphs only")
    ap.add_argument("--no-model", action="store_true",
                    help="leave the model's picks out (--model-from "
                    "scores them later, on the host)")
    ap.add_argument("--model-from", default="",
                    help="score the model's picks of an earlier --json "
                    "against the exhaustive searches in --work; no GPU")
    ap.add_argument("--search-reps", type=int, default=0,
                    help="the exhaustive search's timed runs per candidate "
                    "(default --reps)")
    ap.add_argument("--remeasure", type=int, default=0,
                    help="time the picks and the search's K fastest again "
                    "in fresh processes per graph, with --reps runs")
    ap.add_argument("--remeasure-procs", type=int, default=1,
                    help="the re-measure's fresh processes per graph; each "
                    "candidate's time is its median over them (default 1)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="the re-measure's rounds per process, each "
                    "candidate once a round (bench_spmm --rounds)")
    ap.add_argument("--shift-kib", type=int, default=0,
                    help="bench_spmm --shift-kib in the re-measure")
    ap.add_argument("--model-picks", default="",
                    help="the model's picks from --write-model-picks")
    ap.add_argument("--write-model-picks", default="",
                    help="write the model's picks of every case; no GPU")
    args = ap.parse_args()
    start = time.monotonic()
    sddmm = args.op == "sddmm"
    if not args.bench:
        args.bench = "build/bench/bench_" + args.op
    if not args.program:
        args.program = "examples/sddmm.stir" if sddmm else \
            "examples/csrmm.stir"
    args.programs = [args.program]
    if sddmm:
        args.programs.append(os.path.join(os.path.dirname(args.program),
                                          "sddmm_rows.stir"))
    best_key = "stir_ms" if sddmm else "stir_hyb_ms"
    feats = [int(f) for f in args.features.split(",") if f]
    graphs = graphs_of(args.data, [g for g in args.graphs.split(",") if g])
    work = args.work or tempfile.mkdtemp(prefix="tune_eval-")
    if args.model_from:
        return model_from(args, feats, graphs)
    if args.write_model_picks:
        return write_model_picks(args, feats, graphs)
    args.model_picks = json.load(open(args.model_picks)) \
        if args.model_picks else None
    args.work_dir = work
    cache = os.path.join(work, "cache")
    os.makedirs(cache, exist_ok=True)

    cases = []
    device = "?"
    print("%-26s %4s %9s %9s %7s %7s %9s %7s %6s %8s %6s %5s %s" %
          ("graph", "feat", "tuned_ms", "best_ms", "t/best", "m/best",
           "vend_ms", "vend/t", "kernel", "wall_s", "hit_s", "nvrtc",
           "cand"))
    for i, (name, path) in enumerate(graphs):
        if args.deadline_s and time.monotonic() - start > args.deadline_s:
            print("# deadline: %s and the graphs after it not run" % name)
            for f in feats:
                cases.append({"graph": name, "features": f,
                              "not_run": True})
            continue
        first = len(cases)
        # 1. the exhaustive search and the vendor library on this graph
        ex_json = os.path.join(work, "exhaustive-%s.json" % name)
        t0 = time.monotonic()
        cmd = bench_cmd(args, feats, args.search_reps or args.reps, ex_json,
                        path)
        p = subprocess.run(cmd, env=dict(os.environ, STIR_CACHE_DIR=cache),
                           capture_output=True, text=True)
        if p.returncode != 0:
            print("# %s: %s failed (exit %d): %s" %
                  (name, os.path.basename(args.bench), p.returncode,
                   p.stderr[-500:].replace("\n", " ")))
            for f in feats:
                cases.append({"graph": name, "features": f, "failed": True})
            continue
        ex = json.load(open(ex_json))
        if device == "?":
            device = ex.get("device", "?")
            print("# device: %s" % device)
        print("# %s: %s %.1f s" % (name, os.path.basename(args.bench),
                                   time.monotonic() - t0))
        best = {r["features"]: r for r in ex["results"]}
        # 2, 3. the tuner, cold or with the kernels cached, then a hit
        for f in feats:
            cold = i < args.cold
            cdir = os.path.join(work, "cold-%d-%d" % (f, i)) if cold else cache
            os.makedirs(cdir, exist_ok=True)
            before = kernels_in(cdir)
            per = tune_case(args, path, f, cdir,
                            args.hits < 0 or i < args.hits)
            b = best.get(f)
            runs = [(prog, r) for prog, r in per.items() if r[0]]
            if not runs or not b or len(runs) < len(per):
                print("%-26s %4d  failed" % (name, f))
                cases.append({"graph": name, "features": f, "failed": True})
                continue
            prog, (t, hit, _) = min(runs, key=lambda pr: pr[1][0][2])
            models = [model_ratio(b, r[2][1]) for r in per.values() if r[2]]
            models = [m for m in models if m is not None]
            c = {"graph": name, "features": f, "candidate": t[1],
                 "program": os.path.basename(prog),
                 "tuned_ms": t[2], "best_ms": b[best_key],
                 "best_candidate": b.get("candidate"),
                 "cusparse_ms": b["cusparse_ms"], "cold": cold,
                 "wall_s": sum(r[0][0] for r in per.values()),
                 "hit_s": max(r[1][0] for r in per.values() if r[1])
                 if all(r[1] for r in per.values()) else None,
                 "compiled": kernels_in(cdir) - before,
                 "hit_ok": all(r[1] and "from the tuning record" in r[1][3]
                               for r in per.values()),
                 "model_over_best": min(models) if models else None,
                 "per_program": {os.path.basename(pg): {
                     "candidate": r[0][1], "tuned_ms": r[0][2],
                     "wall_s": r[0][0], "hit_s": r[1][0] if r[1] else None,
                     "model_candidate": r[2][1] if r[2] else None,
                     # what stirc tune said: every candidate's time, and
                     # the seconds scheduling, compiling and timing
                     "stderr": r[0][3]}
                     for pg, r in per.items()}}
            # the fastest of the search's first round (one sequential
            # timing each)
            m = re.search(r"round's fastest candidate (\d+)\)", t[3])
            c["search_candidate"] = int(m.group(1)) if m else t[1]
            c["tuned_over_best"] = c["tuned_ms"] / c["best_ms"]
            # the pick timed by the exhaustive run itself: both times from
            # one process, one after the other (None: the pick not timed)
            c["pick_over_best"] = model_ratio(b, t[1])
            c["cusparse_over_tuned"] = c["cusparse_ms"] / c["tuned_ms"]
            cases.append(c)
            print("%-26s %4d %9.4f %9.4f %7.3f %7s %9.4f %7.2f %6s %8.2f "
                  "%6s %5d %s" %
                  (name, f, c["tuned_ms"], c["best_ms"], c["tuned_over_best"],
                   "%.3f" % c["model_over_best"]
                   if c["model_over_best"] is not None else "-",
                   c["cusparse_ms"], c["cusparse_over_tuned"],
                   "cold" if cold else "cached", c["wall_s"],
                   "%.2f" % c["hit_s"] if c["hit_s"] is not None else "-",
                   c["compiled"], " ".join(
                       "%s:%d" % (os.path.basename(pg)[:-5], r[0][1])
                       for pg, r in per.items())))
            sys.stdout.flush()
        if args.remeasure:
            remeasure(args, name, path, feats, cache, best,
                      [c for c in cases[first:] if not c.get("failed")])
            sys.stdout.flush()
        if args.json:
            json.dump({"op": args.op, "device": device, "cases": cases},
                      open(args.json, "w"), indent=1)

    ok = [c for c in cases if not c.get("failed") and not c.get("not_run")]
    if not ok:
        sys.exit("tune_eval: no case succeeded")
    within = [c for c in ok if c["tuned_over_best"] <= 1.03]
    gm = geomean([c["tuned_over_best"] for c in ok])
    worst = max(ok, key=lambda c: c["tuned_over_best"])
    mod = [c["model_over_best"] for c in ok
           if c["model_over_best"] is not None]
    pick = [c["pick_over_best"] for c in ok
            if c.get("pick_over_best") is not None]
    slow = [c for c in ok if c["cusparse_over_tuned"] < 0.9]
    cached = sorted(c["wall_s"] for c in ok if not c["cold"])
    coldw = sorted(c["wall_s"] for c in ok if c["cold"])
    hits = sorted(c["hit_s"] for c in ok if c["hit_s"] is not None)
    print("# %s on %s: %d of %d cases within 3%% of the exhaustive best "
          "(%.0f%%); geometric mean tuned/best %.3f; worst %.3f (%s at %d)" %
          (args.op, device, len(within), len(ok),
           100.0 * len(within) / len(ok), gm, worst["tuned_over_best"],
           worst["graph"], worst["features"]))
    if pick:
        print("# the tuned pick in the exhaustive run's own timing (one "
              "process): %d of %d within 3%%; geometric mean %.3f, worst %.3f"
              % (len([x for x in pick if x <= 1.03]), len(pick),
                 geomean(pick), max(pick)))
    if mod:
        print("# model-only: geometric mean model/best %.3f over %d cases, "
              "worst %.3f" % (geomean(mod),
                              len(mod), max(mod)))
    rem = [c for c in ok if c.get("re_tuned_over_best") is not None]
    if rem:
        t = [c["re_tuned_over_best"] for c in rem]
        m = [c["re_model_over_best"] for c in rem
             if c["re_model_over_best"] is not None]
        v = [c["re_cusparse_over_tuned"] for c in rem]
        t1 = [c["re1_tuned_over_best"] for c in rem]
        print("# re-measured, the median of %d fresh processes per graph "
              "(%d rounds each): %d of %d "
              "within 3%% of the best (%.0f%%); geometric mean t/best %.3f, "
              "worst %.3f; model/best %.3f over %d, worst %.3f; vendor/tuned "
              "%.3f, worst %.3f, below 0.9x: %s" %
              (args.remeasure_procs, args.rounds,
               sum(x <= 1.03 for x in t), len(t),
               100.0 * sum(x <= 1.03 for x in t) / len(t), geomean(t),
               max(t), geomean(m) if m else float("nan"), len(m),
               max(m) if m else float("nan"), geomean(v), min(v),
               ", ".join("%s at %d (%.2fx)" % (c["graph"], c["features"],
                                               c["re_cusparse_over_tuned"])
                         for c in rem if c["re_cusparse_over_tuned"] < 0.9)
               or "none"))
        print("# the first re-measure process alone: %d of %d within 3%% "
              "(%.0f%%)" % (sum(x <= 1.03 for x in t1), len(t1),
                            100.0 * sum(x <= 1.03 for x in t1) / len(t1)))
        sr = [c["re_search_over_best"] for c in rem
              if c.get("re_search_over_best") is not None]
        if sr:
            print("# the fastest of the search's first round, "
                  "re-measured alike: %d of %d within 3%% (%.0f%%); changed "
                  "by the rounds in %d cases" %
                  (sum(x <= 1.03 for x in sr), len(sr),
                   100.0 * sum(x <= 1.03 for x in sr) / len(sr),
                   sum(c.get("search_candidate", c["candidate"]) !=
                       c["candidate"] for c in rem)))
    print("# below 0.9x of the vendor library: %s" % (", ".join(
        "%s at %d (%.2fx)" % (c["graph"], c["features"],
                              c["cusparse_over_tuned"]) for c in slow)
        or "none"))
    vend = [c["cusparse_over_tuned"] for c in ok]
    print("# vendor/tuned: geometric mean %.3f, worst %.3f" %
          (geomean(vend), min(vend)))
    for what, w in (("cold", coldw), ("kernels cached", cached),
                    ("record hit", hits)):
        if w:
            print("# wall, %s: median %.2f s, max %.2f s (%d cases)" %
                  (what, w[len(w) // 2], w[-1], len(w)))
    failed = len([c for c in cases if c.get("failed")])
    skipped = len([c for c in cases if c.get("not_run")])
    if failed:
        print("# %d cases failed" % failed)
    if skipped:
        print("# %d cases not run (deadline)" % skipped)
    if args.json:
        json.dump({"op": args.op, "device": device, "cases": cases},
                  open(args.json, "w"), indent=1)
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
