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

import stir

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
print("host time per call, tiny graph: stir.spmm %.1f us (autograd "
      "wrapper included), Graph kernel call alone %.1f us"
      % (per, (t1 - t0) / n * 1e6))
if fails:
    print("%d failures" % len(fails))
    sys.exit(1)
print("test_python_gpu: all passed")
