# bench_rgms: RGMS (one RGCN layer, Y = sum_r A_r X W_r) on a relational graph,
# stir's RGMS recipes against PyG's RGCNConv and FastRGCNConv in the same
# process on the same card (bench/README.md, "bench_rgms").  Usage:
#
#   python3 bench/bench_rgms.py GRAPH.hetero[.gz]... [--features 16,32,64,128]
#       [--stirc build/tools/stirc] [--reps 100] [--no-pyg] [--no-tc]
#       [--candidates PATTERN,...] [--schedule S.yaml [--program P.stir]]
#       [--schedules-only DIR]
#
# stir: every candidate of the library's RGMS recipes (docs/recipes.md,
# "RGMS on tensor cores") at fin = fout = F, each written by `stirc recipe`:
# rgms_tc (tensor cores, tf32, examples/rgms_agg.stir; rgms_tc_pP: its
# apply in P pieces a relation), rgms (CUDA cores, the same program;
# rgms_kK: K edges a thread in the aggregation) and rgms_edge (CUDA cores,
# edge by edge, examples/rgms_edge.stir; rgms_edge_kK); with --schedule, a
# schedule file of the user's too (on --program, by default
# examples/rgms_agg.stir); --candidates keeps those whose names match one
# of its shell patterns, --no-tc drops rgms_tc.  Each candidate runs
# through `stirc run --backend cuda --time --reps 30` (GPU.md: warm-ups,
# the L2 cache flushed before each run, the median); the fastest on
# tensor cores and the fastest on CUDA cores are re-measured in fresh runs
# with --reps runs, their Y checked against a float64 product of the same
# A, X and W; the rule's pick of pieces (`stirc recipe --hetero`,
# stir_rgms_tc_pick) is reported against the fastest rgms_tc.  PyG
# (aggr 'add', no root weight, no bias) gets the W and X of stir's faster
# kernel, is timed the same way (5 warm-ups, the median of 30 runs, L2
# flushed), and its Y is checked against stir's.  Peak extra memory:
# PyG's is torch.cuda.max_memory_allocated around one layer call, less
# what was allocated before; stir's is every device buffer its run
# allocates beyond the inputs X and W: the relational format's arrays
# (I.indptr, I.indices, J.indptr, J.indices, A), the intermediate T (the
# aggregated order's), the COO arrays J.pos_I and J.pos_R and the output
# Y.  The host time to read the graph and build the format is stirc's
# ("inputs:").  --schedules-only DIR writes the candidates' schedule files
# (NAME_fF.yaml) and runs nothing (no GPU).
import fnmatch, gzip, os, re, subprocess, sys, tempfile

FEATURES = [16, 32, 64, 128]
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "examples")

# The library's RGMS recipes: (recipe, program in examples/, name prefix).
RECIPES = [("rgms_tc", "rgms_agg.stir", "rgms_tc_p"),
           ("rgms", "rgms_agg.stir", "rgms_k"),
           ("rgms_edge", "rgms_edge.stir", "rgms_edge_k")]


def run_stirc(stirc, args):
    """stirc with args: (returncode, stdout, stderr)."""
    try:
        r = subprocess.run([stirc] + args, capture_output=True, text=True)
    except OSError as ex:
        sys.exit("bench_rgms: cannot run %s (--stirc): %s" % (stirc, ex))
    return r.returncode, r.stdout, r.stderr


def stirc_recipe(stirc, recipe, feat, candidate=None, graph=None):
    """`stirc recipe` of recipe at fin = fout = feat, candidate i (or the
    rule's pick for graph): (returncode, schedule text, stderr)."""
    prog = os.path.join(EXAMPLES, dict((r, p) for r, p, _ in RECIPES)[recipe])
    args = ["recipe", prog, "--recipe", recipe, "--size", "feat=%d" % feat]
    args += ["--candidate", str(candidate)] if graph is None else ["--hetero", graph]
    return run_stirc(stirc, args)


def recipe_counts(stirc):
    """{recipe: its count of candidates}, from `stirc recipe --list`."""
    rc, out, err = run_stirc(stirc, ["recipe", "--list"])
    if rc != 0:
        sys.exit("bench_rgms: stirc recipe --list: %s" % err.strip())
    return {w[0]: int(w[1]) for w in (l.split() for l in out.splitlines())
            if len(w) > 2 and w[2] == "candidates"}


def candidate_name(prefix, text):
    """The candidate's name from its schedule: rgms_tc_pP (the apply's
    pieces), rgms_kK and rgms_edge_kK (the edges a thread)."""
    if prefix == "rgms_tc_p":
        return prefix + re.search(r"loop: i_0, factors: \[(\d+), null\]", text).group(1)
    m = re.search(r"loop: rrij, factors: \[null, \d+(?:, (\d+))?\]", text)
    return prefix + (m.group(1) or "1")


def candidates(feat, args):
    """The candidates at fin = fout = feat: (name, schedule text, program,
    tensor cores?), every candidate of each recipe that fits feat, then
    --schedule's, those matching --candidates when given."""
    out = []
    counts = recipe_counts(args["stirc"])
    for recipe, prog, prefix in RECIPES:
        if recipe == "rgms_tc" and not args["tc"]:
            continue
        for i in range(counts.get(recipe, 0)):
            rc, text, err = stirc_recipe(args["stirc"], recipe, feat, i)
            if rc == 0:
                out.append((candidate_name(prefix, text), text,
                            os.path.join(EXAMPLES, prog), recipe == "rgms_tc"))
            elif "does not apply" not in err:
                sys.exit("bench_rgms: stirc recipe %s --candidate %d at %d: %s"
                         % (recipe, i, feat, err.strip()))
    if args["schedule"]:
        with open(args["schedule"]) as f:
            out.append((os.path.basename(args["schedule"]).rsplit(".", 1)[0],
                        f.read(), args["program"], False))
    if args["candidates"]:
        pats = args["candidates"].split(",")
        out = [c for c in out if any(fnmatch.fnmatch(c[0], p) for p in pats)]
    return out


def stirc_time(args, sched_text, path, feat, reps, program, outs=None):
    """Run stirc on one schedule of program: (median ms, stirc's output)."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(sched_text)
        sf = f.name
    cmd = [args["stirc"], "run", program, "--backend", "cuda",
           "--schedule", sf, "--hetero", "A=" + path,
           "--size", "fin=%d" % feat, "--size", "fout=%d" % feat,
           "--random", "1", "--time", "--reps", str(reps)]
    for k, v in (outs or {}).items():
        cmd += ["--out", "%s=%s" % (k, v)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    os.unlink(sf)
    text = p.stdout + p.stderr
    for line in text.splitlines():
        if line.startswith("time:") and p.returncode == 0:
            return float(line.split()[1]), text
    return None, text


def rgms_reference(n, r, a, x, w):
    """Y64 in float64: Y64[dst] += X[src] W[rel] over the edges (src, dst,
    rel) of a, one relation at a time (with torch on the GPU when there
    is one: the large graphs)."""
    import numpy as np
    try:
        import torch
        dev = "cuda" if torch.cuda.is_available() else None
    except ImportError:
        dev = None
    if dev:
        X, W = (torch.tensor(v, dtype=torch.float64, device=dev) for v in (x, w))
        E = torch.tensor(a, device=dev)
        Y = torch.zeros((n, w.shape[2]), dtype=torch.float64, device=dev)
        for rel in range(r):
            e = E[E[:, 2] == rel]
            if len(e):
                agg = torch.zeros((n, x.shape[1]), dtype=torch.float64,
                                  device=dev)
                agg.index_add_(0, e[:, 1], X[e[:, 0]])
                Y += agg @ W[rel]
        return Y.cpu().numpy()
    y64 = np.zeros((n, w.shape[2]))
    for rel in range(r):
        e = a[a[:, 2] == rel]
        if len(e):
            agg = np.zeros((n, x.shape[1]))
            np.add.at(agg, e[:, 1], x[e[:, 0]])
            y64 += agg @ w[rel]
    return y64


def read_hetero(path):
    """The graph's sizes and edges (numpy arrays src, dst, rel)."""
    import numpy as np
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        head = f.readline().split()
        n, e, r = int(head[1]), int(head[2]), int(head[3])
        a = np.loadtxt(f, dtype=np.int64, comments="%").reshape(-1, 3)
    return n, r, a


def pyg_layer(path, n, r, a, w, x, y_stir, reps=30):
    """PyG's two layers on the same W, X: [(name, median ms, peak extra
    MiB, max |Y - Y_stir|)]."""
    import numpy as np, torch
    from torch_geometric.nn import RGCNConv, FastRGCNConv
    dev = "cuda"
    ei = torch.tensor(a[:, :2].T.copy(), device=dev)
    et = torch.tensor(a[:, 2], device=dev)
    W = torch.tensor(w, device=dev)          # [R, fin, fout], PyG's layout
    X = torch.tensor(x, device=dev)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    res = []
    for name, cls in (("RGCNConv", RGCNConv), ("FastRGCNConv", FastRGCNConv)):
        try:
            conv = cls(W.shape[1], W.shape[2], r, aggr="add",
                       root_weight=False, bias=False).to(dev)
            with torch.no_grad():
                conv.weight.copy_(W)
                for _ in range(5):
                    out = conv(X, ei, et)
                torch.cuda.synchronize()
                ts = []
                for _ in range(reps):
                    flush.zero_()
                    s = torch.cuda.Event(enable_timing=True)
                    t = torch.cuda.Event(enable_timing=True)
                    s.record(); out = conv(X, ei, et); t.record()
                    torch.cuda.synchronize(); ts.append(s.elapsed_time(t))
                del out
                torch.cuda.synchronize()
                base = torch.cuda.memory_allocated()
                torch.cuda.reset_peak_memory_stats()
                out = conv(X, ei, et)
                torch.cuda.synchronize()
                peak = torch.cuda.max_memory_allocated() - base
                err = float(np.abs(out.cpu().numpy() - y_stir).max())
            res.append((name, float(np.median(ts)), peak / 2**20, err))
            del conv, out
            torch.cuda.empty_cache()
        except Exception as ex:   # out of memory on the large graphs
            res.append((name, None, None, str(ex).splitlines()[0][:80]))
            torch.cuda.empty_cache()
    return res


def remeasure(args, path, n, r, a, feat, flat_rows, best, tmp):
    """Candidate best (name, text, program, tc) re-measured in a fresh run
    with --reps runs: (ms, extra MiB, its W, X, Y, error against the
    float64 product), the line printed; None when it fails."""
    import numpy as np
    name, text, prog, tc = best
    files = {k: os.path.join(tmp, "%s_%s.npy" % (name, k)) for k in "WXY"}
    t, out = stirc_time(args, text, path, feat, args["reps"], prog, files)
    if t is None:
        print("  f=%d %s failed again: %s" % (feat, name, out), flush=True)
        return None
    # the edge by edge program has no intermediate T; with COO arrays it
    # has the row and relation of every edge
    t_elems = 0 if prog.endswith("rgms_edge.stir") else flat_rows * feat
    coo = 2 * len(a) if "coo: true" in text else 0
    mib = 4 * ((r + 1) + 2 * flat_rows + 1 + 2 * len(a) + t_elems + coo +
               n * feat) / 2**20
    w, x, y = (np.load(files[k]) for k in "WXY")
    y64 = rgms_reference(n, r, a, x.astype(np.float64), w.astype(np.float64))
    err = np.abs(y - y64).max() / max(np.abs(y64).max(), 1e-30)
    line = ("f=%d stir %s %s: %.4f ms (re-measured, %d runs), peak extra "
            "%.2f MiB, max|Y - Y64| / max|Y64| %.2e" %
            (feat, "tensor cores" if tc else "CUDA cores", name, t,
             args["reps"], mib, err))
    host = [l for l in out.splitlines() if l.startswith("inputs:")]
    if host:   # stirc's read of the graph into the format
        line += "; host " + host[0][len("inputs: "):]
    print(line, flush=True)
    return t, mib, w, x, y


def bench_graph(args, path, tmp):
    """Every feature size of args on graph path: the candidates, the
    re-measured winners, the rule's pick, PyG."""
    import numpy as np
    n, r, a = read_hetero(path)
    flat_rows = len(np.unique(a[:, 2] * (n + 1) + a[:, 1]))
    print("%s: %d nodes, %d edges, %d relations, %d (relation, row) pairs"
          % (path, n, len(a), r, flat_rows), flush=True)
    for feat in args["features"]:
        best = {}
        times = {}
        cands = candidates(feat, args)
        if not cands:
            print("f=%d: no candidate (the recipes take multiples of 4 from "
                  "16 to 128 features, tensor cores multiples of 16)" % feat,
                  flush=True)
        for cand in cands:
            t, out = stirc_time(args, cand[1], path, feat, 30, cand[2])
            print("  f=%d %s: %s" % (feat, cand[0], "%.4f ms" % t if t else
                  "failed: " + out.strip().splitlines()[-1][:120]), flush=True)
            if t is not None:
                times[cand[0]] = t
                if cand[3] not in best or t < best[cand[3]][0]:
                    best[cand[3]] = (t, cand)
        if not best:
            continue
        if True in best:
            rc, text, err = stirc_recipe(args["stirc"], "rgms_tc", feat, graph=path)
            pick = candidate_name("rgms_tc_p", text) if rc == 0 else None
            if pick in times:
                print("f=%d the rule's pick %s: %.4f ms, %.3f of the fastest "
                      "rgms_tc (%s, %.4f ms)" % (feat, pick, times[pick],
                      best[True][0] / times[pick], best[True][1][0], best[True][0]),
                      flush=True)
        won = {tc: remeasure(args, path, n, r, a, feat, flat_rows, c, tmp)
               for tc, (_, c) in sorted(best.items())}
        if won.get(True) and won.get(False):
            print("f=%d tensor cores against CUDA cores: %.2fx"
                  % (feat, won[False][0] / won[True][0]), flush=True)
        done = [v for v in won.values() if v]
        if not done or not args["pyg"]:
            continue
        t, mib, w, x, y = min(done, key=lambda v: v[0])
        fastest = None
        for name, ms, pmib, err in pyg_layer(path, n, r, a, w, x, y):
            if ms is None:
                print("f=%d %s: failed: %s" % (feat, name, err), flush=True)
                continue
            print("f=%d %s: %.4f ms, peak extra %.2f MiB, max|Y - Y_stir| "
                  "%.3g; stir is %.2fx faster, with %.4f of its memory"
                  % (feat, name, ms, pmib, err, ms / t,
                     mib / pmib if pmib else float("nan")), flush=True)
            if fastest is None or ms < fastest:
                fastest = ms
        if fastest:
            print("f=%d stir against the faster PyG layer: %.2fx"
                  % (feat, fastest / t), flush=True)


def main(argv):
    args = {"stirc": "build/tools/stirc", "program": os.path.join(EXAMPLES,
            "rgms_agg.stir"), "schedule": None, "candidates": None,
            "reps": 100, "pyg": True, "features": FEATURES, "only": None,
            "tc": True}
    graphs = []
    i = 0
    while i < len(argv):
        o = argv[i]
        if o in ("--stirc", "--program", "--schedule", "--reps",
                 "--candidates", "--features", "--schedules-only"):
            if i + 1 == len(argv):
                sys.exit("bench_rgms: %s needs a value" % o)
            v = argv[i + 1]
            i += 2
            if o == "--features":
                try:
                    args["features"] = [int(t) for t in v.split(",")]
                except ValueError:
                    sys.exit("bench_rgms: --features takes sizes like 16,32")
                if any(f < 1 for f in args["features"]):
                    sys.exit("bench_rgms: a feature size must be positive")
            elif o == "--reps":
                try:
                    args["reps"] = int(v)
                except ValueError:
                    sys.exit("bench_rgms: --reps takes a count")
            elif o == "--schedules-only":
                args["only"] = v
            else:
                args[o[2:].replace("-", "_")] = v
        elif o == "--no-pyg":
            args["pyg"] = False
            i += 1
        elif o == "--no-tc":
            args["tc"] = False
            i += 1
        elif o in ("-h", "--help"):
            print(open(__file__).read().split("\nimport")[0])
            return 0
        elif o.startswith("-"):
            sys.exit("bench_rgms: unknown option %s (see the head of %s)"
                     % (o, __file__))
        else:
            graphs.append(o)
            i += 1
    if args["only"]:
        os.makedirs(args["only"], exist_ok=True)
        for feat in args["features"]:
            for name, text, _, _ in candidates(feat, args):
                with open(os.path.join(args["only"], "%s_f%d.yaml" % (name, feat)),
                          "w") as f:
                    f.write(text)
        return 0
    if not graphs:
        sys.exit("bench_rgms: no graph (GRAPH.hetero[.gz])")
    tmp = tempfile.mkdtemp()
    for path in graphs:
        bench_graph(args, path, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
