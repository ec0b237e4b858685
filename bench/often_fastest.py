#!/usr/bin/env python3
"""How the SpMM tuner's often-fastest list (stir_spmm_hybrid_get_often_fastest)
is extended, and how well a list so chosen does on graphs it was not chosen on.

On the exhaustive searches of the FILEs (bench_spmm results, every
candidate timed), the search's order is rebuilt as stir_tune_get_search_order
builds it -- the model's pick, the list, the rest of the model's order
(stir_spmm_hybrid_model_rank, through libstir) -- with the library's
first --keep entries of the list (default 9) and candidates added one by
one, each the one that brings the most cases (a graph at a feature size)
a candidate within 3% of the fastest among the first --top of the order
(default 32), until none brings more (at most --add, default 8).  Printed:
the additions chosen on all the FILEs and the cases covered with --top and
with --timed (default 24) timed; then, held out, each graph's cases
replayed with the additions chosen on the other graphs alone; and the
same additions on the --check files (another device's searches).  No GPU.

    python3 bench/often_fastest.py --lib build/.libs/libstir.so FILE.. \\
        --check bench/results/spmm_shared.json
"""
import argparse, ctypes, json, os

ap = argparse.ArgumentParser()
ap.add_argument("file", nargs="+")
ap.add_argument("--check", nargs="*", default=[])
ap.add_argument("--lib", default="build/.libs/libstir.so")
ap.add_argument("--data", default="/work/shared/data")
ap.add_argument("--keep", type=int, default=9)
ap.add_argument("--add", type=int, default=8)
ap.add_argument("--top", type=int, default=32)
ap.add_argument("--timed", type=int, default=24)
a = ap.parse_args()

lib = ctypes.CDLL(a.lib)
lib.stir_ctx_alloc.restype = ctypes.c_void_p
lib.stir_mtx_read_from_file.restype = ctypes.c_void_p
lib.stir_mtx_read_from_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
lib.stir_spmm_hybrid_model_rank.argtypes = [ctypes.c_void_p, ctypes.c_int64,
    ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_void_p]
n = lib.stir_spmm_hybrid_n_candidates()
ctx = lib.stir_ctx_alloc()
kept = [lib.stir_spmm_hybrid_get_often_fastest(i) for i in range(a.keep)]


def load(files):
    """(graph, the model's order, the candidates within 3% of the fastest)
    for every case of the files whose graph file is found."""
    out, csrs = [], {}
    for f in files:
        for r in json.load(open(f))["results"]:
            g = r["graph"]
            if g not in csrs:
                path = next((p for p in (os.path.join(a.data, g + ".mtx.gz"),
                    os.path.join(a.data, "suitesparse", g + ".mtx.gz"))
                    if os.path.exists(p)), None)
                csrs[g] = path and lib.stir_mtx_read_from_file(ctx,
                                                               path.encode())
            if not csrs[g]:
                continue
            order = (ctypes.c_int * n)()
            m = lib.stir_spmm_hybrid_model_rank(csrs[g], r["features"], 132,
                                                order, None)
            sm = r["search_ms"]
            best = min(t for t in sm if t is not None)
            good = {c for c, t in enumerate(sm)
                    if t is not None and t / best <= 1.03}
            out.append((g, list(order[:m]), good))
    return out


def covered(cases, added, top):
    """The cases whose search's first "top" hold one within 3%."""
    k = 0
    for _, model, good in cases:
        order = [model[0]] + [c for c in kept + added
                              if c in model and c != model[0]]
        order += [c for c in model if c not in order]
        k += bool(set(order[:top]) & good)
    return k


def choose(cases):
    added = []
    while len(added) < a.add:
        c = max((c for c in range(n) if c not in kept + added),
                key=lambda c: (covered(cases, added + [c], a.top), -c))
        if covered(cases, added + [c], a.top) <= covered(cases, added, a.top):
            break
        added.append(c)
    return added


cases, check = load(a.file), load(a.check)
added = choose(cases)
print("added on %d cases: %s" % (len(cases), added))
for top in sorted({a.timed, a.top}):
    print("  %d timed: %d of %d within 3%% (the library's first %d alone: %d)"
          % (top, covered(cases, added, top), len(cases), a.keep,
             covered(cases, [], top)))
held = 0
for g in sorted({c[0] for c in cases}):
    held += covered([c for c in cases if c[0] == g],
                    choose([c for c in cases if c[0] != g]), a.timed)
print("held out (each graph with the additions chosen without it), %d "
      "timed: %d of %d" % (a.timed, held, len(cases)))
if check:
    print("--check files, %d timed: %d of %d (the library's first %d alone: "
          "%d)" % (a.timed, covered(check, added, a.timed), len(check),
                   a.keep, covered(check, [], a.timed)))
