#!/usr/bin/env python3
"""The SDDMM cost model (docs/recipes.md, "The SDDMM cost model") against
a benchmark's exhaustive search: for every case of a bench_sddmm results
file (bench/results/sddmm_shared_h100.json by default), the model's ranking of
the SDDMM candidates for that graph and feature size, and the time the
search measured for its first pick (and the best of its first three)
against the search's best, the pick ranked among the candidates the file
timed (candidates are appended, so an older file's indices hold).  No GPU: the model runs on the host, through
libstir (ctypes), on the graphs of /work/shared/data or --data.

--max-model X exits 1 when the first pick's geometric mean over the best
is above X (issue 18's target: 1.10).

    python3 bench/model_eval_sddmm.py --lib build/.libs/libstir.so [-v] \
        [--max-model X] [FILE]
"""
import argparse, ctypes, json, math, os, sys

ap = argparse.ArgumentParser()
ap.add_argument("file", nargs="?", default="bench/results/sddmm_shared_h100.json")
ap.add_argument("--lib", default="build/.libs/libstir.so")
ap.add_argument("--data", default="/work/shared/data")
ap.add_argument("--sms", type=int, default=132)
ap.add_argument("--max-model", type=float,
    help="exit 1 when the first pick / best is above this")
ap.add_argument("-v", action="store_true", help="one line a case")
a = ap.parse_args()

lib = ctypes.CDLL(a.lib)
lib.stir_ctx_alloc.restype = ctypes.c_void_p
lib.stir_mtx_read_from_file.restype = ctypes.c_void_p
lib.stir_mtx_read_from_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
lib.stir_csr_free.argtypes = [ctypes.c_void_p]
lib.stir_sddmm_model_rank.argtypes = [ctypes.c_void_p,
    ctypes.c_int64, ctypes.c_int, ctypes.POINTER(ctypes.c_int),
    ctypes.c_void_p]
n = lib.stir_sddmm_n_candidates()
ctx = lib.stir_ctx_alloc()

d = json.load(open(a.file))
print("results of", d.get("device"), "(%s)" % a.file)
csrs, ratios, within, top3 = {}, [], 0, 0
for r in d["results"]:
    g, f = r["graph"], r["features"]
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
    m = lib.stir_sddmm_model_rank(csrs[g], f, a.sms, order, None)
    sm = r["search_ms"]
    timed = [t for t in sm if t is not None]
    # ranked among the candidates the file timed (a candidate made after
    # it, or one it did not time, has no time)
    t = [sm[i] for i in order[:m] if i < len(sm) and sm[i] is not None]
    if not timed or not t:
        print("skipped (pick not timed):", g, f, file=sys.stderr)
        continue
    best = min(timed)
    ratio = t[0] / best
    b3 = min(t[:3]) / best
    ratios.append(ratio)
    within += ratio <= 1.03
    top3 += b3 <= 1.03
    if a.v:
        print("%-28s %4d pick %2d %.3fx, best of first 3 %.3fx"
              % (g, f, order[0], ratio, b3))
k = len(ratios)
gm = math.exp(sum(map(math.log, ratios)) / k)
print("%d cases: first pick at %.3fx the best on the geometric mean "
      "(worst %.3fx), within 3%% in %d; one of the first 3 within 3%% in %d"
      % (k, gm, max(ratios), within, top3))
if a.max_model is not None and gm > a.max_model:
    print("the first pick / best %.3f is above %.2f" % (gm, a.max_model))
    sys.exit(1)
