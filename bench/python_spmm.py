"""stir.spmm on a prepared stir.Graph (torch CUDA tensors), timed as
bench/ times kernels (shared/design/GPU.md: warm-ups, L2 flushed before
each call, CUDA events, the median), against, in the same run:

- the same kernel launched alone (one ctypes call of stir_gpu_run_launch
  on the Graph's bound run), timed the same way: the ratio stir.spmm /
  launch is what the Python layer costs on the GPU's clock;
- the same kernel timed from C by the library (stir_gpu_run_time on the
  Graph's own run: the method of bench_spmm and stirc run --time);
- torch.sparse.mm (cuSPARSE) on the same graph and features;

and the host time of a call: N calls queued back to back on a prepared
Graph (no synchronization between them), timed on the host, per call
("host/call"; "wall/call" with the final synchronization), beside the
same loop of bare launches ("launches": the pace of the GPU's own work,
L2 warm): when stir.spmm's wall time per call is that of the bare
launches, the host overhead is hidden behind the kernels.

    python3 bench/python_spmm.py [--features 32,64,128] [--tune S]
                                 [--overhead] GRAPH.mtx.gz ...

The kernel is the one a Graph takes: the tuning record's entry for the
graph, feature size and GPU, else the hybrid candidate the library's cost
model picks (printed as bench_spmm names it: `bench_spmm --candidates I
--features F GRAPH` times the same candidate from C; "how" says where it
came from).  With --tune S, each graph and feature size is timed twice:
first a Graph as it comes (the record as it is), then a Graph made with
tune=S (the measured search of the library's stir_tune with a budget of
S seconds, for what the record lacks).  --overhead first prints the host
time per call on a tiny graph (the kernel costs nothing there): stir.spmm
without autograd, through the autograd Function as stir.spmm calls it and
through torch's Function.apply, a sparse tensor passed directly (its
cached Graph), the same with new values each call, and the parts: the
floors of autograd Functions (forward only allocating, forward making a
view), a Function whose forward is the kernel call alone, a
torch.library.custom_op with its autograd, the allocations, and the
foreign calls; then torch alone on the same tiny graph (torch.sparse.mm
without and with B requiring grad, an empty custom Function) and the
breakdown: stir's autograd call less torch's floor (the empty
Function's C apply) is what stir adds to an autograd op; of that, the
ctx bookkeeping (the C apply with a forward setting one attribute of ctx,
less the same without), the foreign call (stir_gpu_run_relaunch), the
output's allocation and the rest (stir's Python)."""
import gzip
import sys
import time

import numpy as np
import scipy.io
import torch

import stir
from stir._lib import lib

from python_probes import FLOOR, SPARSE_MM, SPARSE_MM_GRAD, WARM, Kept, \
    KeptCtx, Lean, host_us, tiny, torch_rows


def timed(fn, reps=50, warm=10):
    """Median milliseconds of fn() with the L2 flushed before each."""
    flush = torch.empty(64 << 20, dtype=torch.int32, device="cuda")
    for _ in range(warm):
        fn()
    ms = []
    for _ in range(reps):
        flush.add_(1)
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ms.append(a.elapsed_time(b))
    return float(np.median(ms))


class _Floor(torch.autograd.Function):
    """An autograd Function whose forward only allocates its output: the
    floor of any Function's host time."""

    @staticmethod
    def forward(ctx, g, B):
        ctx.g = g
        return torch.empty((2, 4), device="cuda")

    @staticmethod
    def backward(ctx, dC):
        return None, dC


def _custom_op(g):
    """The Graph's SpMM as a torch.library.custom_op with its autograd
    registered (None where this torch has no custom_op)."""
    lib_ = getattr(torch, "library", None)
    if lib_ is None or not hasattr(lib_, "custom_op"):
        return None
    graphs = {0: g}

    @lib_.custom_op("stirbench::spmm", mutates_args=())
    def op(B: torch.Tensor, gid: int) -> torch.Tensor:
        return graphs[gid].spmm(B)

    @op.register_fake
    def _(B, gid):
        return B.new_empty((graphs[gid].shape[0], B.shape[1]))

    def setup(ctx, inputs, output):
        ctx.gid = inputs[1]

    def backward(ctx, dC):
        return graphs[ctx.gid].transpose()[0].spmm(dC.contiguous()), None

    op.register_autograd(backward, setup_context=setup)
    return lambda B: op(B, 0)


def overhead():
    """Print the host time per call on a tiny graph, by way of call."""
    from stir import _torch
    Ts, B, Bg = tiny()
    T = stir.Graph(Ts)
    v = torch.ones(2, device="cuda")
    vg = v.clone().requires_grad_()
    stir.spmm(T, B)
    g = T._torch
    fast = g._fast_spmm[4]
    L = fast.launch
    tmpl = torch.empty((2, 4), device="cuda")
    tmpl_x = torch.empty((1,), device="cuda").expand(2, 4)
    from stir._lib import relaunch_raw
    import ctypes
    run_p = ctypes.c_void_p(L.run)
    rows = [
        ("stir.spmm, no autograd", lambda: stir.spmm(T, B)),
        ("stir.spmm, B requires grad", lambda: stir.spmm(T, Bg)),
        ("stir.spmm(the sparse tensor itself, B): its cached Graph",
         lambda: stir.spmm(Ts, B)),
        ("  the same, B requires grad", lambda: stir.spmm(Ts, Bg)),
        ("GraphSpMM.apply (torch's Python apply)",
         lambda: _torch.GraphSpMM.apply(g, Bg)),
        ("stir.spmm, values= (a new tensor each call), no autograd",
         lambda: stir.spmm(T, B, values=v + 0)),
        ("  the new tensor alone (v + 0)", lambda: v + 0),
        ("stir.spmm, values= requiring grad",
         lambda: stir.spmm(T, B, values=vg)),
        ("floor: a Function allocating only (Function.apply)",
         lambda: _Floor.apply(g, Bg)),
        ("floor: the same through the raw C apply",
         lambda: _torch._raw_apply(_Floor)(g, Bg)),
        ("torch.empty alone", lambda: torch.empty((2, 4), device="cuda")),
        ("B.new_empty alone", lambda: B.new_empty((2, 4))),
        ("the Graph's kernel call alone (GpuSpmm.call1, no checks)",
         lambda: fast.call1(B, B.data_ptr())),
        ("stir_gpu_run_launch alone (ctypes)",
         lambda: lib.stir_gpu_run_launch(g._fast_spmm[4].launch.run, 4)),
        ("stir_gpu_run_rebind_launch alone (declared ctypes types)",
         lambda: lib.stir_gpu_run_rebind_launch(L.run, L.n_var, L.var, 4)),
        ("stir_gpu_run_relaunch through relaunch_raw (call1's foreign "
         "call)", lambda: relaunch_raw(run_p, 4)),
        ("torch.empty_like(a tensor of the output's shape)",
         lambda: torch.empty_like(tmpl)),
        ("torch.empty_like(an expanded one-element tensor: call1's)",
         lambda: torch.empty_like(tmpl_x)),
        ("torch.empty_strided", lambda: torch.empty_strided(
            (2, 4), (4, 1), dtype=torch.float32, device="cuda")),
        ("floor: the C apply, forward returning a kept tensor",
         lambda: _torch._raw_apply(Kept)(tmpl, Bg)),
        ("  the same, forward setting ctx.k (the ctx bookkeeping)",
         lambda: _torch._raw_apply(KeptCtx)(tmpl, Bg)),
        ("a lean Function: the C apply, forward = call1 only",
         lambda: _torch._raw_apply(Lean)(fast.call1, Bg)),
    ]
    op = _custom_op(g)
    if op is not None:
        rows.append(("torch.library.custom_op with register_autograd",
                     lambda: op(Bg)))
    rows += torch_rows(Ts, B, Bg)
    us = {}
    for name, fn in rows:
        us[name] = host_us(fn, 5000)
        print("host/call %-58s %6.1f us" % (name, us[name]))
    floor = us[FLOOR]
    grad = us["stir.spmm, B requires grad"]
    ctx = us["  the same, forward setting ctx.k (the ctx bookkeeping)"] - \
        us["floor: the C apply, forward returning a kept tensor"]
    launch = us["stir_gpu_run_relaunch through relaunch_raw (call1's "
                "foreign call)"]
    alloc = us["torch.empty_like(an expanded one-element tensor: call1's)"]
    print("breakdown: stir.spmm with grad %.1f us = torch's floor (empty "
          "Function) %.1f + stir's own %.1f (plain call %.1f); of stir's "
          "own: ctx bookkeeping %.1f, foreign call %.1f, allocation %.1f, "
          "the rest %.1f; torch.sparse.mm with grad %.1f (plain %.1f)"
          % (grad, floor, grad - floor, us["stir.spmm, no autograd"], ctx,
             launch, alloc, grad - floor - ctx - launch - alloc,
             us[SPARSE_MM_GRAD], us[SPARSE_MM]))
    sys.stdout.flush()


def main(argv):
    """Time every graph of argv at every feature size."""
    feats = [64]
    tune = None
    while argv and argv[0].startswith("--"):
        if argv[0] == "--features" and len(argv) > 1:
            feats = [int(f) for f in argv[1].split(",")]
            argv = argv[2:]
        elif argv[0] == "--tune" and len(argv) > 1:
            tune = float(argv[1])
            argv = argv[2:]
        elif argv[0] == "--overhead":
            overhead()
            argv = argv[1:]
        else:
            sys.exit("python_spmm: unknown option %s" % argv[0])
    print("%-14s %4s %-34s %9s %9s %6s %9s %9s %9s %9s %9s  %s" % (
        "graph", "F", "candidate", "stir.spmm", "launch", "ratio",
        "C timing", "sparse.mm", "host/call", "wall/call", "launches",
        "how"))
    for path in argv:
        A = scipy.io.mmread(gzip.open(path)).tocsr().astype(np.float32)
        At = torch.sparse_csr_tensor(
            torch.from_numpy(A.indptr.astype(np.int64)),
            torch.from_numpy(A.indices.astype(np.int64)),
            torch.from_numpy(A.data), A.shape).cuda()
        for F in feats:
            for G in [stir.Graph(At)] + ([stir.Graph(At, tune=tune)]
                                         if tune else []):
                one(path, At, G, F)


def one(path, At, G, F):
    """Time Graph G (of At) at F features; print a row."""
    B = torch.randn(At.shape[1], F, device="cuda")
    with torch.no_grad():
        stir.spmm(G, B)     # prepares (format, compile) once
        fast = G._torch._fast_spmm[F]
        s = timed(lambda: stir.spmm(G, B))
        c = fast.launch.time(B)[0]
        run = fast.launch.run
        r = timed(lambda: lib.stir_gpu_run_launch(run, 4))
        t = timed(lambda: torch.sparse.mm(At, B))
        # host time per call; wall time per call of the same
        # back-to-back loop, synchronization at its end included
        torch.cuda.synchronize()
        w0 = time.perf_counter()
        h = host_us(lambda: stir.spmm(G, B), 2000)
        w = (time.perf_counter() - w0) * 1e6 / (2000 + WARM)
        # the same loop of bare launches (the GPU's own pace)
        w0 = time.perf_counter()
        host_us(lambda: lib.stir_gpu_run_launch(run, 4), 2000)
        lw = (time.perf_counter() - w0) * 1e6 / (2000 + WARM)
    print("%-14s %4d %-34s %7.1fus %7.1fus %6.3f %7.1fus %7.1fus "
          "%7.1fus %7.1fus %7.1fus  %s" % (
              path.split("/")[-1].split(".")[0], F, fast.describe,
              1e3 * s, 1e3 * r, s / r, 1e3 * c, 1e3 * t, h, w, lw,
              fast.how))
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
