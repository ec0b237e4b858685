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

import subprocess
import tempfile

# the tuning record of these tests: an empty directory of their own
_CACHE = tempfile.TemporaryDirectory(prefix="stir-test-python-")
os.environ["STIR_CACHE_DIR"] = _CACHE.name

import stir  # noqa: E402

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


def stirc_path():
    """The stirc of the build whose library the package opened ($STIR_STIRC
    first), for the checks that the record's keys are stirc's; None
    where there is none."""
    env = os.environ.get("STIR_STIRC")
    if env:
        return env
    libdir = os.path.dirname(os.path.abspath(stir._fast.lib._name))
    for d in (os.path.join(libdir, "..", "tools"),
              os.path.join(libdir, "tools"),
              os.path.join(SRC, "build", "tools")):
        p = os.path.normpath(os.path.join(d, "stirc"))
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


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

# --- the Graph's kernel choice: the tuning record ('stirc run''s key),
# else the cost model
h = _fast.HybridSpmm.of_scipy(cora, 16, n_sms=132, device="Fake GPU 1")
check(h.how == "cost model", "empty record: %s" % h.how)
model16 = h.candidate
# stirc tune --model-only stores the model's entry under stirc's key:
# the Python key must be the same (program hash, signature, device)
stirc = stirc_path()
check(stirc is not None and os.path.isfile(stirc), "stirc: %r" % stirc)
if stirc:
    r = subprocess.run([stirc, "tune", "--model-only", "--sms", "132",
                        os.path.join(SRC, "examples", "csrmm.stir"),
                        "--mtx", "A=" + os.path.join(SRC, "examples", "data",
                                                     "cora.mtx.gz"),
                        "--size", "feat=16", "-o", os.devnull],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    check(r.returncode == 0, "stirc tune --model-only: %s" % r.stderr)
    h = _fast.HybridSpmm.of_scipy(cora, 16, n_sms=132, device="Fake GPU 1")
    check(h.how == "record: model" and h.candidate == model16 and
          ("candidate %d," % model16) in r.stderr,
          "stirc's model entry found: %s, #%d (%s)" % (h.how, h.candidate,
                                                       r.stderr.strip()))
    h = _fast.HybridSpmm.of_scipy(cora, 16, n_sms=132, record=False)
    check(h.how == "cost model", "record=False: %s" % h.how)
# a measured entry of this GPU wins: another candidate, stored by hand
order = (ctypes.c_int * _fast.lib.stir_spmm_hybrid_n_candidates())()
ip64 = np.ascontiguousarray(cora.indptr, dtype=np.int64)
ix64 = np.ascontiguousarray(cora.indices, dtype=np.int64)
# with its values: stir_csr has them (the measured search below, on a GPU,
# reads them)
cv64 = np.ascontiguousarray(cora.data, dtype=np.float64)
c = _fast.Csr(cora.shape[0], cora.shape[1], cora.nnz,
              ip64.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
              ix64.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
              cv64.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
n_rank = _fast.lib.stir_spmm_hybrid_model_rank(ctypes.byref(c), 16, 132,
                                               order, None)
other = order[1] if n_rank > 1 else order[0]
e = _fast.record_key(c, 16, "Fake GPU 1")
check(e.device == b"Fake_GPU_1", "device key %r" % e.device)
e.cand, e.how, e.cost, e.time_ms = other, b"measured", 1.0, 0.5
check(_fast.lib.stir_tune_record_store(_fast._ctx(), None,
                                       ctypes.byref(e)) == 0,
      "storing a record entry")
h = _fast.HybridSpmm.of_scipy(cora, 16, n_sms=132, device="Fake GPU 1")
check(h.candidate == other and
      h.how == "measured 0.5000 ms on Fake_GPU_1",
      "the measured entry: #%d %s (want #%d)" % (h.candidate, h.how, other))
B = rng.standard_normal((cora.shape[1], 16)).astype(np.float32)
close(h.interpret(B), cora.astype(np.float64) @ B,
      "the record's candidate on the interpreter")
h2 = _fast.HybridSpmm.of_scipy(cora, 16, n_sms=132, device="Other GPU")
check(h2.candidate == model16 and h2.how == "record: model",
      "another GPU takes the model's entry: #%d %s" % (h2.candidate, h2.how))
# the library's tuner (stir_tune) through tune_spmm: the model's pick
# (no GPU) stored under the model's key, which a Graph's choice finds
cand, how = _fast.tune_spmm(c, 32, n_sms=100, model_only=True)
h = _fast.HybridSpmm.of_scipy(cora, 32, n_sms=100, device="Fake GPU 1")
check(how == "record: model" and h.how == "record: model" and
      h.candidate == cand == _fast.model_pick(c, 32, 100),
      "tune_spmm(model_only): #%d %s; the Graph's: #%d %s"
      % (cand, how, h.candidate, h.how))
# the measured search needs a GPU: without one, the library's message as
# a StirError; with one, a measured entry afterwards
try:
    cand, how = _fast.tune_spmm(c, 8, budget_s=5)
    h = _fast.HybridSpmm.of_scipy(cora, 8, device=how.split(" on ")[-1])
    check(how.startswith("measured") and h.candidate == cand and
          h.how == how, "tune_spmm: #%d %s; then #%d %s"
          % (cand, how, h.candidate, h.how))
except stir.StirError as err:
    print("tune_spmm without a GPU:", str(err).replace("\n", " "))
    check("CUDA" in str(err) or "GPU" in str(err),
          "tune_spmm without a GPU: %s" % err)
# the package's programs are the examples' texts (the record's keys hash
# them)
for which, name in (("spmm", "csrmm"), ("sddmm", "sddmm"),
                    ("sddmm_rows", "sddmm_rows")):
    with open(os.path.join(SRC, "examples", name + ".stir")) as f:
        check(f.read() == _fast._SOURCES[which],
              "%s: the text of examples/%s.stir" % (which, name))

# --- values that change: a format slot holds the value of one CSR
# position (slot_positions); new values gathered into the slots run on
# the same kernel
for name, M, feats in (("cora", cora, (7, 32)), ("odd", odd, (1, 16))):
    for F in feats:
        h = _fast.HybridSpmm.of_scipy(M, F, n_sms=132, record=False)
        slots = h.slots()
        allpos = np.concatenate(list(slots.values()))
        real = np.sort(allpos[allpos >= 0])
        check(np.array_equal(real, np.arange(M.nnz)) and
              set(slots) == set(n for n in h.format.arrays()
                                if n.startswith("A_hyb")),
              "%s F=%d: every CSR position in one slot" % (name, F))
        v = rng.standard_normal(M.nnz).astype(np.float32)
        M2 = M.copy()
        M2.data = v
        B = rng.standard_normal((M.shape[1], F)).astype(np.float32)
        close(h.interpret(B, v), M2.astype(np.float64) @ B,
              "%s F=%d: new values gathered into the format" % (name, F))
        close(h.interpret(B), M.astype(np.float64) @ B,
              "%s F=%d: the graph's own values after" % (name, F))
        close(stir.spmm(stir.Graph(M), B, values=v),
              M2.astype(np.float64) @ B,
              "%s F=%d: stir.spmm(Graph, B, values=)" % (name, F))
# the gather program itself (the GPU's gather of new values): padding
# slots (-1) read as 0
check(np.array_equal(_fast.gather_host([2, -1, 0, 1, -1], [1.5, 2.5, 3.5]),
                     np.array([3.5, 0, 1.5, 2.5, 0], dtype=np.float32)),
      "gather_host: values at the positions, 0 for padding")
raises(ValueError, _fast.HybridSpmm.of_scipy(odd, 4).interpret,
       np.ones((90, 4), np.float32), np.ones(3, np.float32))
raises(ValueError, stir.spmm, stir.Graph(odd), np.ones((90, 4)),
       values=np.ones(3))
raises(ValueError, stir.spmm, odd, np.ones((90, 4)), values=np.ones(3))

# --- the SDDMM a Graph prepares: the SDDMM model's pick, and every
# candidate (fused and by rows) on the interpreter
rows_of = np.repeat(np.arange(odd.shape[0]), np.diff(odd.indptr))
for F in (4, 16, 64):
    hs = _fast.HostSddmm(cora, F, n_sms=132)
    check(hs.candidate == _fast.sddmm_pick(c, F, 132),
          "SDDMM F=%d: the model's pick" % F)
    X = rng.standard_normal((cora.shape[0], F)).astype(np.float32)
    Y = rng.standard_normal((cora.shape[1], F)).astype(np.float32)
    r = np.repeat(np.arange(cora.shape[0]), np.diff(cora.indptr))
    close(hs.interpret(X, Y), (X[r].astype(np.float64) * Y[cora.indices])
          .sum(1), "SDDMM F=%d %s on cora" % (F,
                                              _fast.describe_sddmm(
                                                  hs.candidate)))
X = rng.standard_normal((odd.shape[0], 8)).astype(np.float32)
Y = rng.standard_normal((odd.shape[1], 8)).astype(np.float32)
want = (X[rows_of].astype(np.float64) * Y[odd.indices]).sum(1)
# the record's SDDMM entries: stirc's model entries under the keys the
# package makes (stir_kernel_get_tune_key), then measured ones of a GPU by
# hand: the fastest of the two programs wins there, the model elsewhere
oi64 = np.ascontiguousarray(odd.indptr, dtype=np.int64)
ox64 = np.ascontiguousarray(odd.indices, dtype=np.int64)
ov64 = np.ascontiguousarray(odd.data, dtype=np.float64)
oc = _fast.Csr(odd.shape[0], odd.shape[1], odd.nnz,
               oi64.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
               ox64.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
               ov64.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
if stirc:
    for which in ("sddmm", "sddmm_rows"):
        r = subprocess.run([stirc, "tune", "--model-only", "--sms", "132",
                            os.path.join(SRC, "examples", which + ".stir"),
                            "--mtx", "S=" + os.path.join(
                                SRC, "examples", "data", "cora.mtx.gz"),
                            "--size", "feat=8", "-o", os.devnull],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        check(r.returncode == 0, "stirc tune --model-only %s: %s"
              % (which, r.stderr))
        e = _fast._record_find(_fast.record_key(c, 8, 132, which))
        check(e is not None and ("candidate %d," % e.cand) in r.stderr and
              _fast.lib.stir_sddmm_get_candidate(e.cand).contents.rows ==
              (which == "sddmm_rows"),
              "stirc's %s model entry found under the package's key (%s)"
              % (which, r.stderr.strip()))
model8 = _fast.sddmm_pick(oc, 8, 132)
hs = _fast.HostSddmm(odd, 8, n_sms=132, device="Fake GPU 1")
check(hs.candidate == model8 and hs.how == "SDDMM cost model",
      "SDDMM, no measured entry: #%d %s" % (hs.candidate, hs.how))
kinds = {}
for cand in range(_fast.lib.stir_sddmm_n_candidates()):
    kinds.setdefault(bool(_fast.lib.stir_sddmm_get_candidate(cand)
                          .contents.rows), []).append(cand)
fused = [x for x in kinds[False] if x != model8][0]
rowc = [x for x in kinds[True] if x != model8][0]
for which, cand, ms in (("sddmm", fused, 0.7), ("sddmm_rows", rowc, 0.4)):
    e = _fast.record_key(oc, 8, "Fake GPU 1", which)
    e.cand, e.how, e.cost, e.time_ms = cand, b"measured", 1.0, ms
    check(_fast.lib.stir_tune_record_store(_fast._ctx(), None,
                                           ctypes.byref(e)) == 0,
          "storing an SDDMM record entry")
hs = _fast.HostSddmm(odd, 8, n_sms=132, device="Fake GPU 1")
check(hs.candidate == rowc and hs.how == "measured 0.4000 ms on Fake_GPU_1",
      "SDDMM: the faster measured entry: #%d %s (want #%d)"
      % (hs.candidate, hs.how, rowc))
close(hs.interpret(X, Y), want, "SDDMM: the record's candidate")
hs = _fast.HostSddmm(odd, 8, n_sms=132, device="Other GPU")
check(hs.candidate == model8 and hs.how == "SDDMM cost model",
      "SDDMM on another GPU: #%d %s" % (hs.candidate, hs.how))
# the library's tuner on both SDDMM programs (tune_sddmm, what a Graph's
# tune= runs for its SDDMM): without a GPU, each program's model entry
# stored under the model's key, the model's pick over both returned
cand, how = _fast.tune_sddmm(oc, 16, n_sms=120, model_only=True)
check(cand == _fast.sddmm_pick(oc, 16, 120) and how == "SDDMM cost model",
      "tune_sddmm(model_only): #%d %s" % (cand, how))
for which in ("sddmm", "sddmm_rows"):
    e = _fast._record_find(_fast.record_key(oc, 16, 120, which))
    check(e is not None and e.time_ms < 0 and
          bool(_fast.lib.stir_sddmm_get_candidate(e.cand).contents.rows) ==
          (which == "sddmm_rows"),
          "tune_sddmm(model_only): the %s model entry stored" % which)
# a stir_csr without its values (NULL): refused before the library
# reads them
nov = _fast.Csr(odd.shape[0], odd.shape[1], odd.nnz,
                oi64.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                ox64.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)), None)
raises(ValueError, _fast.tune_sddmm, nov, 8, budget_s=1)
raises(ValueError, _fast.tune_spmm, nov, 8, budget_s=1)
# the measured search: the library's error without a GPU; with one, a
# measured entry of each program, the faster of which sddmm_choice takes
try:
    cand, how = _fast.tune_sddmm(oc, 8, budget_s=4)
    gpu = how.split(" on ")[-1]
    hs = _fast.HostSddmm(odd, 8, device=gpu)
    check(how.startswith("measured") and hs.candidate == cand and
          hs.how == how, "tune_sddmm: #%d %s; then #%d %s"
          % (cand, how, hs.candidate, hs.how))
    close(hs.interpret(X, Y), want, "SDDMM: the measured pick")
except stir.StirError as err:
    print("tune_sddmm without a GPU:", str(err).replace("\n", " "))
    check("CUDA" in str(err) or "GPU" in str(err),
          "tune_sddmm without a GPU: %s" % err)
n_rows = n_x_global = 0
for cand in range(_fast.lib.stir_sddmm_n_candidates()):
    hs = _fast.HostSddmm(odd, 8, cand=cand)
    p = _fast.lib.stir_sddmm_get_candidate(cand).contents
    n_rows += bool(p.rows)
    n_x_global += bool(p.x_global)
    close(hs.interpret(X, Y), want, "SDDMM candidate %s on odd"
          % _fast.describe_sddmm(cand))
check(n_rows > 0, "no row candidate tried")
# the ctypes struct reads the C one's last field (x_global: row
# candidates only, include/stir/recipes.h)
check(n_x_global > 0, "no candidate reads X from global memory")
check(any(_fast.lib.stir_sddmm_get_candidate(c).contents.row_tile > 0
          for c in range(_fast.lib.stir_sddmm_n_candidates())),
      "no row tile candidate (the struct's last field)")

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
