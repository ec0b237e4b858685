#!/usr/bin/env python3
"""How the SDDMM cost model's weights (schedule/recipes/model_sddmm.c)
are fitted, and how well they hold on graphs left out of the fit: the
SDDMM's counterpart of bench/model_fit.py.

A Python copy of stir_sddmm_model_cost with its constants as weights:
the terms that depend only on the matrix, the candidate and the feature
size (a row's steps, the row tiles' longest and columns, the bytes, the
threads in flight) are computed once per case, as coefficients of the
weights (the cost is linear in them but for the max of the memory and
latency sides); the weights are fitted by coordinate descent on the
geometric mean of the model's first pick's time over the best, against
the exhaustive searches of the FILEs (bench_sddmm results, the H100's and
the H200's together: one model for both cards).  --logo also fits once
per graph without that graph's cases and reports the left-out graph's
picks.  --eval only ranks with the weights of model_sddmm.c and checks
the ranking against the C model's (stir_sddmm_model_rank, through
ctypes): keep it in step with model_sddmm.c.  No GPU.

    python3 bench/model_fit_sddmm.py [--eval] [--logo] [-v] FILE..
"""
import argparse, collections, ctypes, json, os, sys
import model_fit_search as search
from model_fit_search import Csr, gmean, read_graph, report

ap = argparse.ArgumentParser()
ap.add_argument("file", nargs="+")
ap.add_argument("--lib", default="build/.libs/libstir.so")
ap.add_argument("--data", default="/work/shared/data")
ap.add_argument("--logo", action="store_true",
    help="also fit without each graph and report it held out")
ap.add_argument("--eval", action="store_true",
    help="only rank with the weights of model_sddmm.c (and check them "
    "against the C model)")
ap.add_argument("--keys", default="load,issue,search,block,smbw,l2bw,blend",
    help="the weights fitted (comma-separated)")
ap.add_argument("-v", action="store_true", help="one line a case")
args = ap.parse_args()
lib = ctypes.CDLL(args.lib)


class Cand(ctypes.Structure):
    _fields_ = [("rows", ctypes.c_bool), ("max_lanes", ctypes.c_int64),
                ("threads", ctypes.c_int64), ("x_global", ctypes.c_bool),
                ("chunks", ctypes.c_int64), ("row_tile", ctypes.c_int64)]


class Map(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int64) for n in
                ("feat", "lanes", "vec", "nnz", "chunks", "row_tile")]


lib.stir_sddmm_get_candidate.restype = ctypes.POINTER(Cand)
lib.stir_sddmm_candidate_map.restype = Map
lib.stir_sddmm_candidate_map.argtypes = [ctypes.POINTER(Cand), ctypes.c_int64]
lib.stir_sddmm_model_rank.argtypes = [ctypes.POINTER(Csr), ctypes.c_int64,
    ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_void_p]
N = lib.stir_sddmm_n_candidates()
N_SMS = 132
DRAM_BW = 3000.0
L2_BYTES = 50.0 * 1024 * 1024
L1_BYTES = 128.0 * 1024

# the weights as model_sddmm.c has them (smbw: SM_BW, l2bw: L2_BW_FACTOR,
# xl2: the share of the fused schedule's reads of X that cost, blend: the
# smaller side's share)
P0 = dict(load=100.0, issue=5.6, search=80.0, block=1200.0, smbw=28.5714,
          l2bw=0.0134, xl2=0.5, blend=1.0)
# where a fit starts: the weights model_sddmm.c had before they were
# fitted (set by hand); a fit from model_sddmm.c's own would tell nothing
# held out
START = dict(load=400.0, issue=4.0, search=20.0, block=300.0, smbw=40.0,
             l2bw=0.3, xl2=0.5, blend=0.25)


def log2_ceil(x):
    l, v = 0, 1
    while v < x:
        v, l = v * 2, l + 1
    return l


def graph(g):
    cp = read_graph(lib, args.data, g)
    c = cp.contents
    ip = c.indptr[:c.nrows + 1]
    ix = ctypes.cast(c.indices, ctypes.POINTER(ctypes.c_int64))[:c.nnz]
    degs = collections.Counter(ip[i + 1] - ip[i] for i in range(c.nrows))
    return dict(csr=cp, nrows=c.nrows, ncols=c.ncols, nnz=c.nnz, ip=ip,
                ix=ix, degs=sorted(degs.items()), tiles={})


def tiles(G, R):
    """Each tile of R rows: its row degrees and its columns (the union)."""
    if R not in G["tiles"]:
        ip, ix, out = G["ip"], G["ix"], []
        for r0 in range(0, G["nrows"], R):
            r1 = min(r0 + R, G["nrows"])
            out.append(([ip[i + 1] - ip[i] for i in range(r0, r1)],
                        len(set(ix[ip[r0]:ip[r1]]))))
        G["tiles"][R] = out
    return G["tiles"][R]


def terms(i, G, feat):
    """The weight-free terms of candidate i's cost on graph G at feat
    features: model_sddmm.c's loops, each serial time as coefficients of
    (a non-zero's steps, LOAD_NS, 1 / SM_BW)."""
    pp = lib.stir_sddmm_get_candidate(i)
    p = pp.contents
    fm = lib.stir_sddmm_candidate_map(pp, feat)
    f, nnz, nrows = float(feat), float(G["nnz"]), G["nrows"]
    vecs = f / (fm.lanes * fm.vec)
    ic, sc = vecs * 2 + log2_ceil(fm.lanes), 0.0
    if not p.rows:
        lg = log2_ceil(nrows + 1)
        sc, ic = lg, ic + vecs * lg
    y_bytes = G["ncols"] * f * 4
    hit = 1.0 if y_bytes <= L2_BYTES else L2_BYTES / y_bytes
    t = dict(ic=ic, sc=sc, hit=hit, xl2=0.0, threads=float(fm.lanes * fm.nnz))
    busy = used = 0.0
    work = [0.0, 0.0, 0.0]
    if fm.row_tile > 0:
        R = fm.row_tile
        t["threads"] = float(R * fm.nnz)
        gathered, longest = 0.0, set()
        for ds, cols in tiles(G, R):
            most = max((d + fm.nnz - 1) // fm.nnz for d in ds)
            d_all = sum(ds)
            busy += d_all
            used += sum((d + fm.nnz - 1) // fm.nnz for d in ds) * fm.nnz
            work[0] += most
            work[2] += d_all * f * 4
            longest.add((most, 0, d_all * f * 4))
            gathered += cols if cols * f * 4 <= L1_BYTES else d_all
        t.update(blocks=float(len(tiles(G, R))), gather=gathered * f * 4,
                 x=nrows * f * 4, other=nnz * 8 + nrows * 4, block_wt=0.5)
    elif p.rows:
        nc = fm.chunks if fm.chunks > 1 else 1
        longest = set()
        for d, cnt in G["degs"]:
            steps = ((d + fm.nnz - 1) // fm.nnz + nc - 1) // nc
            s = (steps, 0 if p.x_global else 1, d * f * 4 / nc)
            for k in range(3):
                work[k] += s[k] * nc * cnt
            busy += d * cnt
            used += steps * fm.nnz * nc * cnt
            longest.add(s)
        t.update(blocks=float(nrows * nc), gather=nnz * f * 4,
                 x=nrows * nc * f * 4, other=nnz * 8 + nrows * 4,
                 block_wt=0.5 if p.x_global else 1.0)
    else:
        blocks = max(1.0, (nnz + fm.nnz - 1) / fm.nnz)
        work = [blocks, 0.0, blocks * fm.nnz * f * 4]
        busy, used = nnz, blocks * fm.nnz
        longest = {(1, 0, fm.nnz * f * 4)}
        t.update(blocks=blocks, gather=nnz * f * 4, x=nrows * f * 4,
                 xl2=nnz * f * 4, other=nnz * 8 + nrows * 4, block_wt=0.5)
    # the longest block's candidates: those no other beats in every term
    longest = [a for a in longest if not any(
        b != a and all(b[k] >= a[k] for k in range(3)) for b in longest)]
    fill = t["blocks"] * t["threads"] / (N_SMS * 2048)
    if used > 0:
        fill *= busy / used
    t.update(work=work, longest=longest, fill=max(0.1, min(1.0, fill)))
    return t


def cost(P, t):
    """stir_sddmm_model_cost with weights P on terms t."""
    nz = P["load"] + P["issue"] * t["ic"] + P["search"] * t["sc"]
    w = (nz, P["load"], 1 / P["smbw"])
    work = sum(a * b for a, b in zip(t["work"], w))
    longest = max(sum(a * b for a, b in zip(x, w)) for x in t["longest"])
    resident = min(32.0, 2048.0 / t["threads"])
    slots = N_SMS * resident
    lat = work / slots + longest + t["blocks"] / slots * P["block"] * \
        t["block_wt"]
    hit = t["hit"]
    mem = (t["gather"] * (hit * P["l2bw"] + 1 - hit) + t["x"] +
           t["xl2"] * P["l2bw"] * P["xl2"] + t["other"]) / DRAM_BW / t["fill"]
    return mem + P["blend"] * lat if mem > lat else lat + P["blend"] * mem


def pick(P, cs):
    return min(cs, key=lambda x: (cost(P, x[1]), x[0]))


def picks(P, cases):
    """The time of the model's first pick over the best, a case each."""
    return search.picks(cost, P, cases)


def fit(P, cases):
    return search.fit(cost, P, cases, KEYS)


cases, graphs = search.load(args.file, graph, terms, N, lambda d, name:
    "%s, %s" % (d.get("device"), os.path.basename(name)))
KEYS = args.keys.split(",")
if args.eval:
    # the C model's first pick among the timed candidates, against ours
    differ = 0
    for c in cases:
        order = (ctypes.c_int * N)()
        m = lib.stir_sddmm_model_rank(graphs[c[1]]["csr"], c[2], N_SMS,
                                      order, None)
        timed = {x[0] for x in c[3]}
        first = next(i for i in order[:m] if i in timed)
        differ += first != pick(P0, c[3])[0]
    ratios = picks(P0, cases)
    if args.v:
        for c, x in zip(cases, ratios):
            print("%-28s %-28s %4d %.3f" % (c[0][-28:], c[1], c[2], x))
    report("model_sddmm.c's weights", cases, ratios)
    print("first picks that differ from the C model's: %d of %d"
          % (differ, len(cases)))
    sys.exit(1 if differ else 0)
P = fit(dict(START), cases)
print("fitted on all:", json.dumps({k: round(v, 4) for k, v in P.items()}))
report("in sample", cases, picks(P, cases))
if args.logo:
    held = []
    for g in sorted({c[1] for c in cases}):
        Q = fit(dict(START), [c for c in cases if c[1] != g])
        out = [c for c in cases if c[1] == g]
        held += list(zip(out, picks(Q, out)))
    report("held out by graph", [c for c, _ in held], [x for _, x in held])
