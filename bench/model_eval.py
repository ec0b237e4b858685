#!/usr/bin/env python3
"""The tuner's cost model (docs/recipes.md, "The cost model") against a
benchmark's exhaustive search: for every case of a bench_spmm results file
(bench/results/spmm_shared.json by default), the model's ranking of the
hybrid SpMM candidates for that graph and feature size, and the time the
search measured for its first pick (and the best of its first 3 and 5)
against the search's best, and how many of its first picks the tuner must
time to be within 3% of the best in 90% of the cases.  --half 0 or 1
keeps the graphs of even or odd index (by name).  The model's constants
were fitted on the H100's and the H200's exhaustive files together
(bench/model_fit.py, whose --logo gives the figures held out by graph), so
every figure of those files is in-sample.  It also replays the tuner's
measured search on the file's times: the candidates stir_tune times for
the SpMM (stir_tune_get_search_order: the model's pick, the library's
often-fastest list, the rest of the model's order; --top of them,
default the library's, stir_tune_get_top) and how often the fastest of
those is within 3%.  Several FILEs (an exhaustive search per file, e.g.
bench/results/tune8_h100/exhaustive-*.json) are replayed together;
bench/model_figures.sh names the stored ones of each card.  With
--max-model G and --min-search F it exits 1 when the first pick's
geometric mean is above G or the search's share within 3% under F.  No
GPU: the model runs on the host, through libstir (ctypes), on the graphs
of /work/shared/data or --data.

    python3 bench/model_eval.py --lib build/.libs/libstir.so [-v] [FILE..]
"""
import argparse, ctypes, json, math, os, sys

ap = argparse.ArgumentParser()
ap.add_argument("file", nargs="*", default=["bench/results/spmm_shared.json"])
ap.add_argument("--lib", default="build/.libs/libstir.so")
ap.add_argument("--data", default="/work/shared/data")
ap.add_argument("--sms", type=int, default=132)
ap.add_argument("--half", type=int, choices=(0, 1),
    help="only the graphs of even (0) or odd (1) index by name")
ap.add_argument("-v", action="store_true", help="one line a case")
ap.add_argument("--max-model", type=float,
    help="exit 1 when the first pick's geometric mean over the best is above")
ap.add_argument("--min-search", type=float,
    help="exit 1 when the tuner's search is within 3%% in a smaller share")
ap.add_argument("--top", type=int, default=0,
    help="the candidates the tuner's search times (stirc tune's --top; "
    "default the library's, stir_tune_get_top)")
a = ap.parse_args()

lib = ctypes.CDLL(a.lib)
lib.stir_ctx_alloc.restype = ctypes.c_void_p
lib.stir_mtx_read_from_file.restype = ctypes.c_void_p
lib.stir_mtx_read_from_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
lib.stir_csr_free.argtypes = [ctypes.c_void_p]
lib.stir_spmm_hybrid_model_rank.argtypes = [ctypes.c_void_p,
    ctypes.c_int64, ctypes.c_int, ctypes.POINTER(ctypes.c_int),
    ctypes.c_void_p]
n = lib.stir_spmm_hybrid_n_candidates()
ctx = lib.stir_ctx_alloc()

files = [json.load(open(f)) for f in a.file]
print("results of", ", ".join(sorted(set(str(d.get("device"))
    for d in files))), "(%s)" % " ".join(a.file))
results = [r for d in files for r in d["results"]]
lib.stir_tune_get_search_order.argtypes = [ctypes.c_int, ctypes.c_void_p,
    ctypes.c_int64, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int),
    ctypes.c_void_p]
STIR_TUNE_SPMM = 1  # stir_tune_recipe (include/stir/recipes.h)
if a.top < 1:
    a.top = lib.stir_tune_get_top(STIR_TUNE_SPMM)
often = [lib.stir_spmm_hybrid_get_often_fastest(i)
         for i in range(lib.stir_spmm_hybrid_n_often_fastest())]
csrs, ratios, within, top3, top5, need, untimed = {}, [], 0, 0, 0, [], 0
searched = []
names = sorted(set(r["graph"] for r in results))
for r in results:
    g, f = r["graph"], r["features"]
    if a.half is not None and names.index(g) % 2 != a.half:
        continue
    if g not in csrs:
        path = next((p for p in (os.path.join(a.data, g + ".mtx.gz"),
            os.path.join(a.data, "suitesparse", g + ".mtx.gz"))
            if os.path.exists(p)), None)
        csrs[g] = lib.stir_mtx_read_from_file(ctx, path.encode()) \
            if path else None
    if not csrs[g]:
        print("skipped (no graph file):", g, file=sys.stderr)
        continue
    order = (ctypes.c_int * n)()
    m = lib.stir_spmm_hybrid_model_rank(csrs[g], f, a.sms, order, None)
    sm = r["search_ms"]
    timed = [t for t in sm if t is not None]
    # the candidates the file timed (one made after it has no time:
    # ranked among those, the model's order of the others)
    t = [sm[i] for i in order[:m] if i < len(sm) and sm[i] is not None]
    untimed += sum(i >= len(sm) for i in order[:1])
    if not timed or not t:
        print("skipped (pick not timed):", g, f, file=sys.stderr)
        continue
    best = min(timed)
    ratio = t[0] / best
    b3 = min(x for x in t[:3] if x is not None) / best
    b5 = min(x for x in t[:5] if x is not None) / best
    ratios.append(ratio)
    # the tuner's search: stir_tune_get_search_order (the model's pick,
    # the often-fastest list, the rest of the model's order)
    searched_order = (ctypes.c_int * n)()
    lib.stir_tune_get_search_order(STIR_TUNE_SPMM, csrs[g], f, a.sms, -1,
        searched_order, None)
    timed_first = list(searched_order[:m])
    s16 = [sm[i] for i in timed_first if i < len(sm) and sm[i] is not None]
    searched.append(min(s16[:a.top]) / best)
    within += ratio <= 1.03
    top3 += b3 <= 1.03
    top5 += b5 <= 1.03
    need.append(next(j + 1 for j, x in enumerate(t)
                     if x is not None and x / best <= 1.03))
    if a.v:
        print("%-28s %4d pick %2d %.3fx, best of first 3 %.3fx"
              % (g, f, order[0], ratio, b3))
k = len(ratios)
if not k:
    sys.exit("no case with its graph file and the pick timed")
print("%d cases: first pick at %.3fx the best on the geometric mean "
      "(worst %.3fx), within 3%% in %d; one of the first 3 within 3%% in %d"
      % (k, math.exp(sum(map(math.log, ratios)) / k), max(ratios),
         within, top3))
print("the tuner's search (the model's pick, the %d often-fastest candidates, "
      "then the model's order; %d timed): within 3%% in %d of %d, geometric mean %.3fx"
      % (len(often), a.top, sum(x <= 1.03 for x in searched), k,
         math.exp(sum(map(math.log, searched)) / k)))
need.sort()
if untimed:
    print("in %d cases the model's first pick is a candidate the file has "
          "no time for (added since): not counted" % untimed)
print("one of the first 5 within 3%% in %d; the first %d picks hold one "
      "within 3%% in 90%% of the cases" % (top5, need[math.ceil(0.9 * k) - 1]))
model = math.exp(sum(map(math.log, ratios)) / k)
share = sum(x <= 1.03 for x in searched) / k
if a.max_model and model > a.max_model:
    sys.exit("FAIL: the model's pick at %.3fx, above %.3fx" % (model,
                                                               a.max_model))
if a.min_search and share < a.min_search:
    sys.exit("FAIL: the search within 3%% in %.1f%% of the cases, under "
             "%.1f%%" % (100 * share, 100 * a.min_search))
