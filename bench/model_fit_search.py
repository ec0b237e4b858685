"""What bench/model_fit.py (SpMM) and bench/model_fit_sddmm.py (SDDMM)
share: a graph read through libstir, and the weight search (a case is
(label, graph, features, [(candidate, terms, time)], the best time), a
model a cost function of weights P and a candidate's terms)."""
import ctypes, json, math, os


class Csr(ctypes.Structure):
    _fields_ = [("nrows", ctypes.c_int64), ("ncols", ctypes.c_int64),
                ("nnz", ctypes.c_int64),
                ("indptr", ctypes.POINTER(ctypes.c_int64)),
                ("indices", ctypes.c_void_p), ("values", ctypes.c_void_p)]


def read_graph(lib, data, g):
    """Graph g of the folder "data" (or its suitesparse/) as a pointer to
    a Csr; lib is libstir (ctypes)."""
    path = next(p for p in (os.path.join(data, g + ".mtx.gz"),
        os.path.join(data, "suitesparse", g + ".mtx.gz"))
        if os.path.exists(p))
    lib.stir_ctx_alloc.restype = ctypes.c_void_p
    lib.stir_mtx_read_from_file.restype = ctypes.POINTER(Csr)
    lib.stir_mtx_read_from_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    return lib.stir_mtx_read_from_file(lib.stir_ctx_alloc(), path.encode())


def load(files, graph, terms, n, label):
    """One case a result of the FILEs: (label(the file's JSON, its
    name), graph, features, [(candidate, terms, time)] of the n
    candidates timed that apply, the best time); graph(name) reads a
    graph, terms(i, graph, features) are candidate i's (None: it does not
    apply).  Also the graphs, by name."""
    cases, graphs = [], {}
    for name in files:
        d = json.load(open(name))
        for r in d["results"]:
            g, f, sm = r["graph"], r["features"], r["search_ms"]
            if g not in graphs:
                graphs[g] = graph(g)
            cs = [(i, terms(i, graphs[g], f), sm[i]) for i in range(n)
                  if i < len(sm) and sm[i] is not None]
            cs = [x for x in cs if x[1] is not None]
            if cs:
                cases.append((label(d, name), g, f, cs,
                              min(t for t in sm if t is not None)))
    return cases, graphs


def gmean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def picks(cost, P, cases):
    """The time of the model's first pick over the best, a case each
    (ties by candidate index, as libstir ranks)."""
    return [min(cs, key=lambda x: (cost(P, x[1]), x[0]))[2] / best
            for _, _, _, cs, best in cases]


def fit(cost, P, cases, keys, steps=(4.0, 2.0, 1.4, 1.15, 2.0, 1.4, 1.15)):
    """Coordinate descent on the weights "keys" of P (each step a factor
    each way; "blend" at most 1) on the geometric mean of picks."""
    best = math.log(gmean(picks(cost, P, cases)))
    for s in steps:
        improved = True
        while improved:
            improved = False
            for k in sorted(keys):
                for m in (s, 1 / s):
                    Q = dict(P)
                    Q[k] = min(1.0, P[k] * m) if k == "blend" else P[k] * m
                    v = math.log(gmean(picks(cost, Q, cases)))
                    if v < best - 1e-4:
                        P, best, improved = Q, v, True
    return P


def report(label, cases, ratios):
    for dev in sorted({c[0] for c in cases}):
        r = [x for c, x in zip(cases, ratios) if c[0] == dev]
        print("%s, %s: %d cases, model's pick / best %.3f (worst %.3f), "
              "within 3%% in %d" % (label, dev, len(r), gmean(r), max(r),
                                   sum(x <= 1.03 for x in r)))
