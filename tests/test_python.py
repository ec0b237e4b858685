"""Host tests of the Python package (run by tests/test_python.sh):
loading and running kernels on the interpreter, stir.spmm and stir.sddmm
against SciPy on Cora, diagnostics as exceptions with their locations,
and the arrays that are refused."""
import ctypes
import gzip
import os
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp

import stir

SRC = sys.argv[1] if len(sys.argv) > 1 else "."
failures = []


def check(cond, what):
    """Record a failure "what" unless cond holds."""
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def raises(exc, fn, *args, **kw):
    """The exception of type exc that fn(*args, **kw) raises, or None (a
    failure)."""
    try:
        fn(*args, **kw)
    except exc as e:
        return e
    failures.append("%s did not raise %s" % (fn.__name__, exc.__name__))
    print("FAIL:", failures[-1])
    return None


def close(got, want, what):
    """got equals want within float32 rounding of sums of products."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    check(got.shape == want.shape, "%s: shape %s, expected %s"
          % (what, got.shape, want.shape))
    if got.shape == want.shape:
        err = np.abs(got - want) / (1.0 + np.abs(want))
        check(err.max(initial=0.0) <= 1e-5, "%s: differs by %g"
              % (what, err.max(initial=0.0)))


def read_mtx(name):
    """The Matrix Market file at path "name" (gzip or not) as float32
    CSR."""
    opener = gzip.open if name.endswith(".gz") else open
    with opener(name, "rb") as f:
        return sp.csr_matrix(scipy.io.mmread(f)).astype(np.float32)


rng = np.random.default_rng(20261126)

# --- load and run on the interpreter: examples/csrmm.stir on a small graph
k = stir.load(os.path.join(SRC, "examples", "csrmm.stir"))
check(k.name == "csrmm", "kernel name %r" % k.name)
check(k.stage == 1, "stage %d" % k.stage)
check(k.array_names == ["J.indptr", "J.indices", "A", "B", "C"],
      "array names %r" % k.array_names)
small = read_mtx(os.path.join(SRC, "tests", "data", "graphs", "small.mtx"))
small.data = rng.uniform(-1, 1, small.nnz).astype(np.float32)
B = rng.standard_normal((small.shape[1], 7)).astype(np.float32)
out = k.run(backend="interp", A=small, B=B)
check(set(out) == {"C"}, "outputs %r" % sorted(out))
close(out["C"], small.toarray().astype(np.float64) @ B, "csrmm small")

# the same with the structure as named arrays, sizes given
out2 = k.run(sizes={"n": small.shape[1]},
             **{"J.indptr": small.indptr, "J.indices": small.indices,
                "A": small.data, "B": B})
check(np.array_equal(out2["C"], out["C"]), "csrmm by arrays")

# an output passed in is written in place
C = np.full((small.shape[0], 7), 5.0, dtype=np.float32)
check(k.run(A=small, B=B, C=C) == {}, "no output returned when C passed")
check(np.array_equal(C, out["C"]), "C written in place")

# with a schedule: examples/csrmm.yaml applied, same result
ks = stir.load(os.path.join(SRC, "examples", "csrmm.stir"),
               schedule=os.path.join(SRC, "examples", "csrmm.yaml"))
check(ks.stage >= 2, "scheduled kernel at stage %d" % ks.stage)
close(ks.run(A=small, B=B)["C"], out["C"], "csrmm scheduled")

# --- stir.spmm and stir.sddmm on Cora against SciPy
cora = read_mtx(os.path.join(SRC, "examples", "data", "cora.mtx.gz"))
cora.data = rng.uniform(0.1, 1.0, cora.nnz).astype(np.float32)
for feat in (1, 16, 33):
    B = rng.standard_normal((cora.shape[1], feat)).astype(np.float32)
    close(stir.spmm(cora, B), cora @ B, "spmm feat %d" % feat)
g = stir.Graph(cora)
B = rng.standard_normal((cora.shape[1], 32)).astype(np.float32)
close(g.spmm(B), cora @ B, "Graph.spmm")
close(g.spmm(B.astype(np.float64)), cora @ B, "Graph.spmm float64 B")
X = rng.standard_normal((cora.shape[0], 8)).astype(np.float32)
Y = rng.standard_normal((cora.shape[1], 8)).astype(np.float32)
S = stir.sddmm(cora, X, Y)
check(sp.isspmatrix_csr(S) or getattr(S, "format", "") == "csr",
      "sddmm gives CSR")
check(np.array_equal(S.indptr, cora.indptr) and
      np.array_equal(S.indices, cora.indices), "sddmm keeps the pattern")
r = np.repeat(np.arange(cora.shape[0]), np.diff(cora.indptr))
close(S.data, (X[r].astype(np.float64) * Y[cora.indices]).sum(1),
      "sddmm values")
close(g.sddmm(X, Y).data, S.data, "Graph.sddmm")
# a rectangular matrix
R = sp.random(50, 70, density=0.1, format="csr", dtype=np.float32,
              random_state=3)
B = rng.standard_normal((70, 5)).astype(np.float32)
close(stir.spmm(R, B), R @ B, "spmm rectangular")

# --- diagnostics as exceptions with their locations
bad = os.path.join(SRC, "tests", "broken", "call_arity.stir")
e = raises(stir.StirError, stir.load, bad)
if e is not None:
    d = [x for x in e.diagnostics if x.severity == "error"]
    check(len(d) >= 1, "an error diagnostic")
    check(all(x.file and x.file.endswith("call_arity.stir") and x.line > 0
              and x.col > 0 for x in d), "errors located: %r" % d)
    check("call_arity.stir:%d:%d: error:" % (d[0].line, d[0].col) in str(e),
          "file:line:col in the text: %s" % e)
e = raises(stir.StirError, stir.loads,
           "kernel k(n: i32) {\n  axis I = dense_fixed(q);\n}\n", "t.stir")
if e is not None:
    check(any(x.file == "t.stir" and x.line == 2 and x.col > 0
              for x in e.diagnostics), "loads error at t.stir:2: %s" % e)
e = raises(stir.StirError, stir.load, os.path.join(SRC, "no", "such.stir"))
if e is not None:
    check("no/such.stir" in str(e) or "such.stir" in str(e),
          "missing file named: %s" % e)
raises(ValueError, stir.load, os.path.join(SRC, "examples", "csrmm.stir"),
       kernel="nope")

# --- a Graph's fast SpMM (python/stir/_fast.py): the cost model's pick of
# the hybrid candidates, its format and its stage III kernel, run on the
# interpreter; the arrays its launches take are the format's, B and C
from stir import _fast
odd = sp.lil_matrix((70, 90), dtype=np.float32)
odd[0, :] = rng.random(90)            # a row of every column
odd[3, ::3] = 1.0                     # a long row
odd[7, 5] = 2.0
for i in range(10, 70, 4):
    odd[i, (i * 7) % 90] = 0.5 + i
odd = sp.csr_matrix(odd)              # rows 1, 2, 4, ... empty
for name, M, feats in (("cora", cora, (7, 16, 64)), ("odd", odd, (1, 5, 32))):
    for F in feats:
        h = _fast.HybridSpmm.of_scipy(M, F, n_sms=132)
        check(0 <= h.candidate < _fast.lib.stir_spmm_hybrid_n_candidates(),
              "%s F=%d: candidate %d" % (name, F, h.candidate))
        B = rng.standard_normal((M.shape[1], F)).astype(np.float32)
        close(h.interpret(B), M.astype(np.float64) @ B,
              "%s F=%d: hybrid %s on the interpreter"
              % (name, F, _fast.describe(h.candidate)))
        sz = h.format.sizes()
        check(any(k.startswith("rows_hyb_") for k in sz) and
              all(v >= 0 for v in sz.values()),
              "%s F=%d: the format's sizes %s" % (name, F, sz))
        # the GPU binds with the sizes alone (_fast.GpuSpmm): they give
        # every launch its sizes as the whole format does
        plan = _fast.lib.stir_cuda_plan_alloc(h.kernel.k, 0)
        only = _fast.lib.stir_bindings_alloc()
        full = _fast.lib.stir_bindings_copy(h.format.b)
        more = {"m": M.shape[0], "n": M.shape[1], "feat": F, "nnz": M.nnz}
        _fast._set_sizes(only, sz)
        for b in (only, full):
            _fast._set_sizes(b, more)
        for i in range(_fast.lib.stir_cuda_plan_n_launches(plan)):
            dims = []
            for b in (only, full):
                g3, b3 = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
                rc = _fast.lib.stir_cuda_plan_get_launch_dims(plan, i, b,
                                                              g3, b3)
                dims.append((rc, list(g3), list(b3)))
            check(dims[0] == dims[1] and dims[0][0] == 0,
                  "%s F=%d launch %d: sizes alone %s, format %s"
                  % (name, F, i, dims[0], dims[1]))
        _fast.lib.stir_bindings_free(only)
        _fast.lib.stir_bindings_free(full)
        _fast.lib.stir_cuda_plan_free(plan)
        fmt = set(h.format.arrays())
        names = set(n for n, local in h.taken if not local)
        check(names - fmt == {"B", "C"} and len(names & fmt) >= 3,
              "%s F=%d: the launches take %s" % (name, F, sorted(names)))
print("hybrid SpMM picks on cora:", ", ".join(
    "F=%d %s" % (F, _fast.describe(_fast.HybridSpmm.of_scipy(cora, F)
                                   .candidate)) for F in (8, 16, 64, 128)))

# --- bad arrays refused, with the array's name
B = rng.standard_normal((small.shape[1], 4)).astype(np.float32)
e = raises(stir.StirError, k.run, A=small, B=B[:-1])
if e is not None:
    check("B" in str(e), "short B named: %s" % e)
e = raises(TypeError, k.run, A=small, B=B.astype(np.complex64))
if e is not None:
    check("B" in str(e) and "complex64" in str(e), "complex named: %s" % e)
e = raises(TypeError, k.run, A=small, B=np.array([["x"]], dtype=object))
bad_csr = small.copy()
bad_csr.indices = bad_csr.indices.copy()
bad_csr.indices[0] = small.shape[1] + 3
e = raises(stir.StirError, k.run, A=bad_csr, B=B)
if e is not None:
    check("indices" in str(e), "index out of range named: %s" % e)
frac = {"J.indptr": small.indptr.astype(np.float64) + 0.5,
        "J.indices": small.indices, "A": small.data, "B": B}
raises(stir.StirError, k.run, sizes={"n": small.shape[1]}, **frac)
raises(stir.StirError, k.run, A=small, Q=B)
raises(ValueError, k.run, backend="nope", A=small, B=B)
raises(ValueError, stir.spmm, cora, np.ones((3, 3), dtype=np.float32))
raises(TypeError, stir.spmm, np.ones((3, 3)), np.ones((3, 3)))
raises(ValueError, stir.sddmm, cora, X, Y[:, :3])

if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
print("test_python: all passed")
