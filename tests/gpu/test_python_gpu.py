"""The Python package on the GPU (tools/run-gpu-tests): stir.spmm and
stir.sddmm on torch CUDA tensors against torch, their gradients, the
refusals, and the host overhead of a call.  Exit 77 without torch or a
GPU."""
import gzip
import os
import sys
import time

try:
    import numpy as np
    import scipy.io
    import torch
except ImportError as e:
    print("SKIP: %s" % e)
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: no CUDA device for torch")
    sys.exit(77)

import tempfile

# the tuning record (and kernel cache) of this test: a directory of its own
_CACHE = tempfile.TemporaryDirectory(prefix="stir-test-python-gpu-")
os.environ["STIR_CACHE_DIR"] = _CACHE.name

import stir  # noqa: E402
from stir import _fast  # noqa: E402

SRC = sys.argv[1] if len(sys.argv) > 1 else "."
fails = []


def check(cond, what):
    """Record failure "what" unless cond."""
    if not cond:
        fails.append(what)
        print("FAIL:", what)


def close(got, want, what, tol=1e-4):
    """got == want within float32 rounding."""
    err = ((got.double() - want.double()).abs() /
           (1 + want.double().abs())).max().item()
    check(err <= tol, "%s: differs by %g" % (what, err))


def graph(name):
    """The Matrix Market graph "name" as a float32 CSR tensor on the GPU."""
    for d in (os.environ.get("STIR_DATA_DIR", ""), os.path.join(SRC, ".devdata"),
              os.path.join(SRC, "examples", "data")):
        p = os.path.join(d, name + ".mtx.gz")
        if d and os.path.exists(p):
            A = scipy.io.mmread(gzip.open(p)).tocsr().astype(np.float32)
            return torch.sparse_csr_tensor(
                torch.from_numpy(A.indptr.astype(np.int64)),
                torch.from_numpy(A.indices.astype(np.int64)),
                torch.from_numpy(A.data), A.shape).cuda()
    return None


dev = torch.device("cuda")
g = torch.Generator(device="cpu").manual_seed(19)
A = graph("cora")
A = torch.sparse_csr_tensor(A.crow_indices(), A.col_indices(),
                            torch.rand(A.values().shape, generator=g).cuda(),
                            A.shape)
Ad = A.to_dense()
for F in (1, 16, 64, 100):
    B = torch.randn(A.shape[1], F, generator=g).cuda()
    close(stir.spmm(A, B), Ad @ B, "spmm F=%d" % F)
G = stir.Graph(A)
B = torch.randn(A.shape[1], 32, generator=g).cuda()
close(G.spmm(B), Ad @ B, "Graph.spmm")
# on another stream: ordered after the caller's work on that stream
s = torch.cuda.Stream()
with torch.cuda.stream(s):
    B2 = B * 2
    C2 = stir.spmm(G, B2)
s.synchronize()
close(C2, Ad @ (B * 2), "spmm on a side stream")
# SDDMM
X = torch.randn(A.shape[0], 8, generator=g).cuda()
Y = torch.randn(A.shape[1], 8, generator=g).cuda()
rows = torch.repeat_interleave(torch.arange(A.shape[0], device=dev),
                               A.crow_indices().diff())
want = (X[rows] * Y[A.col_indices()]).sum(1)
close(stir.sddmm(A, X, Y), want, "sddmm")
# gradients against torch's dense product
B = torch.randn(A.shape[1], 16, generator=g).cuda().requires_grad_()
v = A.values().clone().requires_grad_()
Av = torch.sparse_csr_tensor(A.crow_indices(), A.col_indices(), v, A.shape)
C = stir.spmm(Av, B)
W = torch.randn(C.shape, generator=g).cuda()
(C * W).sum().backward()
B_ref = B.detach().clone().requires_grad_()
Ad_ref = Ad.clone().requires_grad_()
(Ad_ref @ B_ref * W).sum().backward()
close(B.grad, B_ref.grad, "spmm dB")
close(v.grad, Ad_ref.grad[rows, A.col_indices()], "spmm dvalues")
Xg = X.clone().requires_grad_()
Yg = Y.clone().requires_grad_()
w = torch.randn(want.shape, generator=g).cuda()
(stir.sddmm(A, Xg, Yg) * w).sum().backward()
Xr = X.clone().requires_grad_()
Yr = Y.clone().requires_grad_()
((Xr[rows] * Yr[A.col_indices()]).sum(1) * w).sum().backward()
close(Xg.grad, Xr.grad, "sddmm dX")
close(Yg.grad, Yr.grad, "sddmm dY")
# a Graph's prepared kernels (the model's hybrid SpMM, the SDDMM recipe):
# results against torch.sparse.mm, gradients against torch's autograd
G = stir.Graph(A)
for F in (1, 7, 16, 32, 64, 100):
    B = torch.randn(A.shape[1], F, generator=g).cuda()
    close(stir.spmm(G, B), torch.sparse.mm(A, B), "Graph fast spmm F=%d" % F)
    check(F in G._torch._fast_spmm, "Graph spmm F=%d: prepared kernel "
          "not used" % F)
    print("Graph F=%d: %s" % (F, G._torch._fast_spmm[F].describe
                              if F in G._torch._fast_spmm else "-"))
Bv = torch.randn(A.shape[1] + 1, 16, generator=g).cuda()[1:]   # unaligned
close(stir.spmm(G, Bv), torch.sparse.mm(A, Bv), "Graph spmm, unaligned B")
B = torch.randn(A.shape[1], 16, generator=g).cuda().requires_grad_()
C = stir.spmm(G, B)
W = torch.randn(C.shape, generator=g).cuda()
(C * W).sum().backward()
B_ref = B.detach().clone().requires_grad_()
(torch.sparse.mm(A, B_ref) * W).sum().backward()
close(B.grad, B_ref.grad, "Graph spmm dB (prepared transpose)")
check(16 in G._torch.transpose()[0]._fast_spmm,
      "Graph spmm dB: the transpose's prepared kernel not used")
# the autograd call of the prepared kernel (GpuSpmm.fast_apply: a
# Function class of its own, entered in _fast1g): taken again by a second
# call; under create_graph its backward (the transpose's call) is itself
# differentiable: d/dB of sum(dB * W2) with dB = d sum(C * C) / dB
check(16 in G._torch._fast1g, "Graph spmm with grad: no autograd call "
      "of the prepared kernel in _fast1g")
B.grad = None
(stir.spmm(G, B) * W).sum().backward()
close(B.grad, B_ref.grad, "Graph spmm dB, second call")
C = stir.spmm(G, B)
(dB,) = torch.autograd.grad((C * C).sum(), B, create_graph=True)
W2 = torch.randn(dB.shape, generator=g).cuda()
B.grad = None
(dB * W2).sum().backward()
Bd = B.detach().clone().requires_grad_()
Cd = Ad @ Bd
(dBd,) = torch.autograd.grad((Cd * Cd).sum(), Bd, create_graph=True)
close(dB, dBd, "Graph spmm dB under create_graph", 1e-3)
(dBd * W2).sum().backward()
close(B.grad, Bd.grad, "Graph spmm: the gradient of dB (double backward)",
      1e-3)
# a Graph dropped while its backward is pending: the backward still runs
# (ctx keeps the transpose's call); a Graph dropped after it: its kernel
# and transpose go at once, without the cyclic collector (the kernel's
# Function class lives in a cycle and must not keep them)
import gc  # noqa: E402
import weakref  # noqa: E402
# (each Graph's first call prepares the kernel; the second, with B
# requiring grad, takes the kernel's autograd call)
B.grad = None
Gd = stir.Graph(A)
stir.spmm(Gd, B.detach())
C = stir.spmm(Gd, B)
check(16 in Gd._torch._fast1g, "Gd: the kernel's autograd call")
del Gd
(C * W).sum().backward()
close(B.grad, B_ref.grad, "spmm dB of a Graph dropped before the backward")
gc.disable()
Gw = stir.Graph(A)
stir.spmm(Gw, B.detach())
(stir.spmm(Gw, B) * W).sum().backward()
refs = [weakref.ref(Gw._torch._fast_spmm[16].launch),
        weakref.ref(Gw._torch.transpose()[0])]
check(16 in Gw._torch._fast1g, "Gw: the kernel's autograd call")
del Gw
check(all(r() is None for r in refs), "a Graph's kernel and transpose "
      "kept after the Graph is gone (without a cyclic collection)")
gc.enable()
Xg = X.clone().requires_grad_()
Yg = Y.clone().requires_grad_()
s_g = stir.sddmm(G, Xg, Yg)
close(s_g, want, "Graph fast sddmm")
check(8 in G._torch._fast_sddmm, "Graph sddmm: prepared kernel not used")
(s_g * torch.ones_like(s_g)).sum().backward()
Xr = X.clone().requires_grad_()
Yr = Y.clone().requires_grad_()
(Xr[rows] * Yr[A.col_indices()]).sum(1).sum().backward()
close(Xg.grad, Xr.grad, "Graph sddmm dX")
close(Yg.grad, Yr.grad, "Graph sddmm dY")
# a rectangular graph with empty rows and columns, and a long row
R = torch.zeros(300, 500)
R[0, :] = torch.rand(500)
R[5, ::7] = 1.0
R[299, 3] = 2.0
Rs = R.to_sparse_csr().cuda()
GR = stir.Graph(Rs)
for F in (4, 33):
    B = torch.randn(500, F, generator=g).cuda()
    close(stir.spmm(GR, B), R.cuda() @ B, "rectangular Graph spmm F=%d" % F)
B = torch.randn(500, 8, generator=g).cuda().requires_grad_()
(stir.spmm(GR, B) * 3).sum().backward()
close(B.grad, (R.t() @ torch.full((300, 8), 3.0)).cuda(),
      "rectangular Graph spmm dB")
# what a Graph runs: the cost model's pick (the record is empty here),
# the SDDMM model's pick
Gi = stir.Graph(A)
B = torch.randn(A.shape[1], 32, generator=g).cuda()
stir.spmm(Gi, B)
stir.sddmm(Gi, X, Y)
info = Gi.kernel_info()
At_host = A.to("cpu")
ip64 = At_host.crow_indices().numpy().astype(np.int64)
ix64 = At_host.col_indices().numpy().astype(np.int64)
csr = _fast.Csr(A.shape[0], A.shape[1], len(ix64),
                ip64.ctypes.data_as(_fast.ctypes.POINTER(_fast.ctypes.c_int64)),
                ix64.ctypes.data_as(_fast.ctypes.POINTER(_fast.ctypes.c_int64)),
                None)
sms = torch.cuda.get_device_properties(0).multi_processor_count
check(info["spmm"][32]["how"] == "cost model" and
      info["spmm"][32]["candidate"] == _fast.model_pick(csr, 32, sms),
      "Graph F=32 runs the model's pick: %s" % info["spmm"][32])
check(info["sddmm"][8]["candidate"] == _fast.sddmm_pick(csr, 8, sms) and
      info["sddmm"][8]["how"] == "SDDMM cost model",
      "Graph SDDMM F=8 runs the SDDMM model's pick: %s" % info["sddmm"])
print("kernel_info:", info)
# tune=5 (a budget of 5 s): the measured search (the library's stir_tune)
# runs once, its record entry is taken then, and by a later Graph of the
# same graph
t0 = time.perf_counter()
Gt = stir.Graph(A, tune=5)
close(stir.spmm(Gt, B), torch.sparse.mm(A, B), "tuned Graph spmm F=32")
it = Gt.kernel_info()["spmm"][32]
print("tuned F=32 in %.1f s: %s" % (time.perf_counter() - t0, it))
check(it["how"].startswith("measured"), "tune=5: %s" % it)
G2 = stir.Graph(A)
stir.spmm(G2, B)
it2 = G2.kernel_info()["spmm"][32]
check(it2["how"] == it["how"] and it2["candidate"] == it["candidate"],
      "a later Graph takes the record's entry: %s" % it2)
# tune= for the SDDMM: the measured search of both SDDMM programs
# (tune_sddmm) runs when the record has no measured entry for this GPU
# (Gi above used the model), and a later Graph takes its pick
t0 = time.perf_counter()
close(stir.sddmm(Gt, X, Y), want, "tuned Graph sddmm F=8")
its = Gt.kernel_info()["sddmm"][8]
print("tuned SDDMM F=8 in %.1f s: %s" % (time.perf_counter() - t0, its))
check(its["how"].startswith("measured"), "tune=5 SDDMM: %s" % its)
G3 = stir.Graph(A)
close(stir.sddmm(G3, X, Y), want, "sddmm of a later Graph")
its2 = G3.kernel_info()["sddmm"][8]
check(its2["how"] == its["how"] and its2["candidate"] == its["candidate"],
      "a later Graph takes the SDDMM's measured entry: %s" % its2)
# a sparse CSR tensor passed directly: a prepared Graph cached on the
# tensor (made once, kept while the tensor lives and its structure is the
# same), its values passed each call (changed in place: gathered again)
from stir import _torch as st_torch  # noqa: E402
A3 = torch.sparse_csr_tensor(A.crow_indices(), A.col_indices(),
                             A.values().clone(), A.shape)
B = torch.randn(A.shape[1], 24, generator=g).cuda()
close(stir.spmm(A3, B), Ad @ B, "direct spmm (cached Graph), first call")
ent = st_torch._SPARSE_GRAPHS.get(id(A3))
check(ent is not None and ent[3].prepared and 24 in ent[3]._fast_spmm,
      "direct spmm: a prepared Graph cached on the tensor")
fast24 = ent[3]._fast_spmm.get(24) if ent is not None else None
for _ in range(3):
    close(stir.spmm(A3, B), Ad @ B, "direct spmm, the same A again")
ent2 = st_torch._SPARSE_GRAPHS.get(id(A3))
check(ent is not None and ent2 is not None and ent2[3] is ent[3] and
      ent[3]._fast_spmm.get(24) is fast24,
      "direct spmm: the cached Graph and kernel taken again")
check(fast24 is not None and not fast24._gathers and not fast24.dirty,
      "direct spmm: A's values unchanged are the graph's own (nothing "
      "gathered)")
# with B requiring grad: the same way (the kernel's autograd call), dB
# through the cached Graph's transpose
B24g = B.clone().requires_grad_()
(stir.spmm(A3, B24g) * 2).sum().backward()
close(B24g.grad, 2 * Ad.t() @ torch.ones(A.shape[0], 24, device=dev),
      "direct spmm dB, A's own values")
check(ent is not None and 24 in ent[3]._fast1g,
      "direct spmm with grad: the kernel's autograd call")
A3.values().mul_(2)
close(stir.spmm(A3, B), 2 * (Ad @ B), "direct spmm, values changed in place")
check(fast24 is not None and fast24._cur[0]() is A3 and fast24.dirty,
      "direct spmm: values changed in place gathered, known as A's")
close(stir.spmm(A3, B), 2 * (Ad @ B), "direct spmm, changed values again")
check(st_torch._SPARSE_GRAPHS.get(id(A3))[3] is ent[3],
      "direct spmm: values changed in place keep the cached Graph")
close(stir.sddmm(A3, X, Y), want, "direct sddmm on the cached Graph")
check(ent is not None and 8 in ent[3]._fast_sddmm,
      "direct sddmm: the cached Graph's prepared SDDMM")
# SDDMM's backward runs the cached Graph's SpMM with other values (dS):
# the next stir.spmm(A3, .) takes A3's own again
Xg3 = X.clone().requires_grad_()
(stir.sddmm(A3, Xg3, Y) * 3).sum().backward()
close(Xg3.grad, 3 * (2 * Ad).ne(0).float() @ Y,
      "direct sddmm dX on the cached Graph")
B8 = torch.randn(A.shape[1], 8, generator=g).cuda()
close(stir.spmm(A3, B8), 2 * (Ad @ B8),
      "direct spmm after the SDDMM backward: A's own values")
B8g = B8.clone().requires_grad_()
(stir.spmm(A3, B8g) * 5).sum().backward()
close(B8g.grad, 2 * Ad.t() @ torch.full((A.shape[0], 8), 5.0, device=dev),
      "direct spmm dB on the cached Graph's transpose")
n_before = len(st_torch._SPARSE_GRAPHS)
del A3, ent, ent2, fast24
import gc  # noqa: E402
gc.collect()
check(len(st_torch._SPARSE_GRAPHS) == n_before - 1,
      "the cached Graph goes with its tensor (%d entries, %d before)"
      % (len(st_torch._SPARSE_GRAPHS), n_before))
# values that change, GAT-style: attention = edge softmax of SDDMM
# scores, then SpMM with them as values, on the Graph's fast kernels;
# against the same in dense torch
cols = A.col_indices().to(torch.int64)
Gv = stir.Graph(A)
for F in (16, 64):
    H0 = torch.randn(A.shape[0], F, generator=g).cuda() * 0.3
    W0 = torch.randn(A.shape[1], F, generator=g).cuda()
    outs = []
    for use_stir in (True, False):
        H = H0.clone().requires_grad_()
        Wt = W0.clone().requires_grad_()
        if use_stir:
            e = stir.sddmm(Gv, H, H)
        else:
            e = (H[rows] * H[cols]).sum(1)
        ex = torch.exp(e - e.max())
        den = torch.zeros(A.shape[0], device=dev).index_add(0, rows, ex)
        att = ex / den[rows]
        if use_stir:
            out = stir.spmm(Gv, Wt, values=att)
        else:
            D = torch.zeros(A.shape, device=dev).index_put(
                (rows, cols), att, accumulate=True)
            out = D @ Wt
        Wo = torch.randn(out.shape, generator=torch.Generator(
            device="cpu").manual_seed(F)).cuda()
        (out * Wo).sum().backward()
        outs.append((out.detach(), H.grad, Wt.grad))
    close(outs[0][0], outs[1][0], "GAT F=%d: forward" % F)
    close(outs[0][1], outs[1][1], "GAT F=%d: dH (through SDDMM and the "
          "values' SDDMM)" % F, tol=1e-3)
    close(outs[0][2], outs[1][2], "GAT F=%d: dW (the transpose with the "
          "values)" % F)
    fast = Gv._torch._fast_spmm.get(F)
    check(fast is not None and fast.dirty and
          F in Gv._torch.transpose()[0]._fast_spmm and
          F in Gv._torch._fast_sddmm,
          "GAT F=%d: the fast kernels not used" % F)
    # the graph's own values again, then other values without autograd
    Bf = torch.randn(A.shape[1], F, generator=g).cuda()
    close(stir.spmm(Gv, Bf), torch.sparse.mm(A, Bf),
          "F=%d: own values after others" % F)
    # with B requiring grad: the kernel's autograd call, entered while
    # the format holds the graph's own values, dropped while other values
    Bfg = Bf.clone().requires_grad_()
    (stir.spmm(Gv, Bfg) * 3).sum().backward()
    close(Bfg.grad, Ad.t() @ torch.full((A.shape[0], F), 3.0, device=dev),
          "F=%d: dB with own values after others" % F)
    check(F in Gv._torch._fast1g, "F=%d: own values with grad: no "
          "autograd call of the kernel" % F)
    v2 = torch.rand(A._nnz(), generator=g).cuda()
    A2 = torch.sparse_csr_tensor(A.crow_indices(), A.col_indices(), v2,
                                 A.shape)
    with torch.no_grad():
        close(stir.spmm(Gv, Bf, values=v2), torch.sparse.mm(A2, Bf),
              "F=%d: values= without autograd" % F)
        check(F not in Gv._torch._fast1g and F not in Gv._torch._fast1,
              "F=%d: the kernel's calls kept with other values" % F)
        v2.mul_(2)       # changed in place: gathered again
        A2 = torch.sparse_csr_tensor(A.crow_indices(), A.col_indices(),
                                     v2.clone(), A.shape)
        close(stir.spmm(Gv, Bf, values=v2), torch.sparse.mm(A2, Bf),
              "F=%d: values changed in place" % F)
try:
    stir.spmm(Gv, Bf, values=torch.ones(5, device=dev))
    check(False, "short values accepted")
except ValueError as e:
    check("values" in str(e), "short values: %s" % e)
# the host time of a call with new values (the gather: two torch ops)
Tv = torch.ones(A._nnz(), device=dev)
torch.cuda.synchronize()
t0 = time.perf_counter()
for i in range(500):
    Tv = Tv + 0   # a new tensor each time, as attention values are
    stir.spmm(Gv, Bf, values=Tv)
torch.cuda.synchronize()
print("host+GPU time per call with new values (cora, F=%d): %.1f us"
      % (Bf.shape[1], (time.perf_counter() - t0) / 500 * 1e6))
# refusals
k = stir.loads(stir._kernels.SPMM_SOURCE, "k.stir")
sizes = {"m": 4, "n": 4, "feat": 2, "nnz": 2}
good = {"J.indptr": torch.tensor([0, 1, 1, 2, 2], dtype=torch.int32,
                                 device=dev),
        "J.indices": torch.tensor([1, 3], dtype=torch.int32, device=dev),
        "A": torch.ones(2, device=dev), "B": torch.ones(4, 2, device=dev)}
out = k.run(backend="cuda", sizes=sizes, **good)
close(out["C"], torch.tensor([[1., 1], [0, 0], [1, 1], [0, 0]], device=dev),
      "run cuda small")
for name, badv, exc in (("B", torch.ones(3, 2, device=dev), stir.StirError),
                        ("A", torch.ones(2, dtype=torch.float64,
                                         device=dev), stir.StirError),
                        ("A", torch.ones(2), TypeError),
                        ("B", torch.ones(2, 4, device=dev).t(), ValueError)):
    bad = dict(good)
    bad[name] = badv
    try:
        k.run(backend="cuda", sizes=sizes, **bad)
        check(False, "bad %s accepted" % name)
    except exc as e:
        check(name in str(e), "error names %s: %s" % (name, e))
# a Graph's call on the fewest steps (_torch.graph_call, GpuSpmm.call1):
# each call a new output, the checks that send B elsewhere or refuse it,
# a refused address, and the calls after it
Gf = stir.Graph(A)
Bf1 = torch.randn(A.shape[1], 16, generator=g).cuda()
Bf2 = torch.randn(A.shape[1], 16, generator=g).cuda()
stir.spmm(Gf, Bf1)
f16 = Gf._torch._fast1.get(16)
check(f16 is not None, "Graph F=16: no fast call after the first call")
C1 = stir.spmm(Gf, Bf1)
C2 = stir.spmm(Gf, Bf2)
check(C1.data_ptr() != C2.data_ptr() and C1.is_contiguous() and
      C1.shape == (A.shape[0], 16) and C1.dtype == torch.float32,
      "fast call: a new contiguous float32 output each call")
close(C1, torch.sparse.mm(A, Bf1), "fast call: first output kept")
close(C2, torch.sparse.mm(A, Bf2), "fast call: second output")
for what, Bx in (("float64 B", Bf1.double()), ("transposed B",
                 Bf1.t().contiguous().t()), ("B 4 bytes off 16",
                 torch.cat([Bf1.reshape(-1)[:1], Bf1.reshape(-1)])[1:]
                 .view(Bf1.shape))):
    close(stir.spmm(Gf, Bx), torch.sparse.mm(A, Bf1), "fast call: " + what)
for what, Bx in (("B of one row too many", torch.randn(A.shape[1] + 1, 16,
                                                       device=dev)),
                 ("B on the CPU", Bf1.cpu()),
                 ("1-D B", Bf1.reshape(-1))):
    try:
        stir.spmm(Gf, Bx)
        check(False, "fast call: %s accepted" % what)
    except (ValueError, RuntimeError) as e:
        check("stir.spmm" in str(e), "fast call, %s: %s" % (what, e))
with torch.no_grad():
    check(not stir.spmm(Gf, Bf1.clone().requires_grad_()).requires_grad,
          "fast call under no_grad: an output without grad")
# an address the kernel cannot take, given to the closure directly: the
# library refuses it (nothing launched), and the next call binds again
if f16 is not None:
    try:
        f16(Bf1, Bf1.data_ptr() + 4)
        check(False, "fast call: an unaligned address accepted")
    except stir.StirError as e:
        check("aligned" in str(e), "fast call, unaligned address: %s" % e)
    close(stir.spmm(Gf, Bf2), torch.sparse.mm(A, Bf2),
          "fast call after a refused one")
# the current stream changed between calls, and back
s2 = torch.cuda.Stream()
with torch.cuda.stream(s2):
    Bs = Bf1 * 3
    Cs = stir.spmm(Gf, Bs)
s2.synchronize()
close(Cs, 3 * torch.sparse.mm(A, Bf1), "fast call on a side stream")
close(stir.spmm(Gf, Bf2), torch.sparse.mm(A, Bf2),
      "fast call back on the default stream")
# host overhead per call: a tiny graph, calls queued back to back
torch.cuda.synchronize()
T = stir.Graph(torch.sparse_csr_tensor(
    torch.tensor([0, 1, 2], dtype=torch.int64),
    torch.tensor([1, 0], dtype=torch.int64), torch.ones(2), (2, 2)).cuda())
Bt = torch.ones(2, 4, device=dev)
for _ in range(50):
    stir.spmm(T, Bt)
torch.cuda.synchronize()
n = 2000
t0 = time.perf_counter()
for _ in range(n):
    stir.spmm(T, Bt)
t1 = time.perf_counter()
torch.cuda.synchronize()
per = (t1 - t0) / n * 1e6
t0 = time.perf_counter()
for _ in range(n):
    T._torch.spmm(Bt)
t1 = time.perf_counter()
torch.cuda.synchronize()
alone = (t1 - t0) / n * 1e6
Btg = Bt.clone().requires_grad_()
t0 = time.perf_counter()
for _ in range(n):
    stir.spmm(T, Btg)
t1 = time.perf_counter()
torch.cuda.synchronize()
grad_us = (t1 - t0) / n * 1e6
Ts = torch.sparse_csr_tensor(
    torch.tensor([0, 1, 2], dtype=torch.int64),
    torch.tensor([1, 0], dtype=torch.int64), torch.ones(2), (2, 2)).cuda()
for _ in range(50):
    stir.spmm(Ts, Bt)
torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(n):
    stir.spmm(Ts, Bt)
t1 = time.perf_counter()
torch.cuda.synchronize()
print("host time per call, tiny graph (prepared kernel, %s): stir.spmm "
      "%.1f us, through autograd (B requires grad) %.1f us; Graph kernel "
      "call alone %.1f us; a sparse tensor directly (cached Graph) %.1f us"
      % (T._torch._fast_spmm[4].describe, per, grad_us, alone,
         (t1 - t0) / n * 1e6))
if fails:
    print("%d failures" % len(fails))
    sys.exit(1)
print("test_python_gpu: all passed")
