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
it measured.

It prints a line per case -- the tuned time over the exhaustive best and
cuSPARSE's time over the tuned one -- then the fraction of cases within 3%
of the best, the geometric mean, the worst, the cases below 0.9x of
cuSPARSE, and the wall times.  The tuned and the exhaustive times come from
different processes on the same card: differences of 1-2% are noise.

usage: bench/tune_eval.py [--stirc build/tools/stirc]
         [--bench build/bench/bench_spmm] [--program examples/csrmm.stir]
         [--data ../shared/data] [--graphs NAME,..] [--features 32,64,..]
         [--cold 1] [--reps 100] [--work DIR] [--json FILE]
"""
import argparse
import glob
import json
import math
import os
import re
import shutil
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


def run_tune(args, graph, feat, cache):
    """One `stirc tune` of "graph" at "feat" features with kernel cache and
    record in "cache": (wall seconds, candidate, ms or None, stderr), or
    None when it failed."""
    env = dict(os.environ, STIR_CACHE_DIR=cache)
    cmd = [args.stirc, "tune", args.program, "--mtx", "A=" + graph,
           "--size", "feat=%d" % feat, "-o", os.devnull]
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                       timeout=args.timeout)
    wall = time.monotonic() - t0
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stirc", default="build/tools/stirc")
    ap.add_argument("--bench", default="build/bench/bench_spmm")
    ap.add_argument("--program", default="examples/csrmm.stir")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--graphs", default="")
    ap.add_argument("--features", default="32,64,128,256,512")
    ap.add_argument("--cold", type=int, default=1,
                    help="cases per feature size tuned with an empty "
                    "kernel cache (default 1)")
    ap.add_argument("--reps", type=int, default=100,
                    help="bench_spmm's timed runs (default 100)")
    ap.add_argument("--work", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    feats = [int(f) for f in args.features.split(",") if f]
    graphs = graphs_of(args.data, [g for g in args.graphs.split(",") if g])
    work = args.work or tempfile.mkdtemp(prefix="tune_eval-")
    cache = os.path.join(work, "cache")
    os.makedirs(cache, exist_ok=True)

    cases = []
    device = "?"
    print("%-26s %4s %9s %9s %7s %9s %7s %6s %8s %6s %5s" %
          ("graph", "feat", "tuned_ms", "best_ms", "t/best", "cusp_ms",
           "cusp/t", "kernel", "wall_s", "hit_s", "nvrtc"))
    for i, (name, path) in enumerate(graphs):
        # 1. the exhaustive search and cuSPARSE on this graph
        ex_json = os.path.join(work, "exhaustive-%s.json" % name)
        t0 = time.monotonic()
        p = subprocess.run([args.bench, "--no-csr", "--features",
                            ",".join(map(str, feats)), "--reps",
                            str(args.reps), "--program", args.program,
                            "--json", ex_json, path],
                           env=dict(os.environ, STIR_CACHE_DIR=cache),
                           capture_output=True, text=True)
        if p.returncode != 0:
            print("# %s: bench_spmm failed (exit %d): %s" %
                  (name, p.returncode, p.stderr[-500:].replace("\n", " ")))
            for f in feats:
                cases.append({"graph": name, "features": f, "failed": True})
            continue
        ex = json.load(open(ex_json))
        if device == "?":
            device = ex.get("device", "?")
            print("# device: %s" % device)
        print("# %s: bench_spmm %.1f s" % (name, time.monotonic() - t0))
        best = {r["features"]: r for r in ex["results"]}
        # 2, 3. the tuner, cold or with the kernels cached, then a hit
        for f in feats:
            cold = i < args.cold
            cdir = os.path.join(work, "cold-%d-%d" % (f, i)) if cold else cache
            shutil.rmtree(os.path.join(cdir, "tune"), ignore_errors=True)
            os.makedirs(cdir, exist_ok=True)
            before = kernels_in(cdir)
            t = run_tune(args, path, f, cdir)
            hit = run_tune(args, path, f, cdir) if t else None
            b = best.get(f)
            if not t or not b:
                print("%-26s %4d  failed" % (name, f))
                cases.append({"graph": name, "features": f, "failed": True})
                continue
            c = {"graph": name, "features": f, "candidate": t[1],
                 "tuned_ms": t[2], "best_ms": b["stir_hyb_ms"],
                 "cusparse_ms": b["cusparse_ms"], "cold": cold,
                 "wall_s": t[0], "hit_s": hit[0] if hit else None,
                 "compiled": kernels_in(cdir) - before,
                 "hit_ok": bool(hit and "from the tuning record" in hit[3])}
            c["tuned_over_best"] = c["tuned_ms"] / c["best_ms"]
            c["cusparse_over_tuned"] = c["cusparse_ms"] / c["tuned_ms"]
            cases.append(c)
            print("%-26s %4d %9.4f %9.4f %7.3f %9.4f %7.2f %6s %8.2f %6s %5d" %
                  (name, f, c["tuned_ms"], c["best_ms"], c["tuned_over_best"],
                   c["cusparse_ms"], c["cusparse_over_tuned"],
                   "cold" if cold else "cached", c["wall_s"],
                   "%.2f" % c["hit_s"] if c["hit_s"] is not None else "-",
                   c["compiled"]))
            sys.stdout.flush()
        if args.json:
            json.dump({"device": device, "cases": cases},
                      open(args.json, "w"), indent=1)

    ok = [c for c in cases if not c.get("failed")]
    if not ok:
        sys.exit("tune_eval: no case succeeded")
    within = [c for c in ok if c["tuned_over_best"] <= 1.03]
    gm = math.exp(sum(math.log(c["tuned_over_best"]) for c in ok) / len(ok))
    worst = max(ok, key=lambda c: c["tuned_over_best"])
    slow = [c for c in ok if c["cusparse_over_tuned"] < 0.9]
    cached = sorted(c["wall_s"] for c in ok if not c["cold"])
    coldw = sorted(c["wall_s"] for c in ok if c["cold"])
    hits = sorted(c["hit_s"] for c in ok if c["hit_s"] is not None)
    print("# %d of %d cases within 3%% of the exhaustive best (%.0f%%); "
          "geometric mean tuned/best %.3f; worst %.3f (%s at %d)" %
          (len(within), len(ok), 100.0 * len(within) / len(ok), gm,
           worst["tuned_over_best"], worst["graph"], worst["features"]))
    print("# below 0.9x of cuSPARSE: %s" % (", ".join(
        "%s at %d (%.2fx)" % (c["graph"], c["features"],
                              c["cusparse_over_tuned"]) for c in slow)
        or "none"))
    for what, w in (("cold", coldw), ("kernels cached", cached),
                    ("record hit", hits)):
        if w:
            print("# wall, %s: median %.2f s, max %.2f s (%d cases)" %
                  (what, w[len(w) // 2], w[-1], len(w)))
    failed = len(cases) - len(ok)
    if failed:
        print("# %d cases failed" % failed)
    if args.json:
        json.dump({"device": device, "cases": cases}, open(args.json, "w"),
                  indent=1)
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
