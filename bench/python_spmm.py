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

    python3 bench/python_spmm.py [--features 32,64,128] GRAPH.mtx.gz ...

The kernel is the hybrid candidate the library's cost model picks for the
graph and feature size (printed as bench_spmm names it: `bench_spmm
--candidates I --features F GRAPH` times the same candidate from C)."""
import gzip
import sys
import time

import numpy as np
import scipy.io
import torch

import stir
from stir._lib import lib


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


def host_us(fn, n=2000):
    """Host microseconds per call of n calls of fn() queued back to back
    (after a synchronization; the GPU catches up afterwards)."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6


def main(argv):
    """Time every graph of argv at every feature size."""
    feats = [64]
    if len(argv) > 1 and argv[0] == "--features":
        feats = [int(f) for f in argv[1].split(",")]
        argv = argv[2:]
    print("%-14s %4s %-34s %9s %9s %6s %9s %9s %9s %9s %9s" % (
        "graph", "F", "candidate", "stir.spmm", "launch", "ratio",
        "C timing", "sparse.mm", "host/call", "wall/call", "launches"))
    for path in argv:
        A = scipy.io.mmread(gzip.open(path)).tocsr().astype(np.float32)
        At = torch.sparse_csr_tensor(
            torch.from_numpy(A.indptr.astype(np.int64)),
            torch.from_numpy(A.indices.astype(np.int64)),
            torch.from_numpy(A.data), A.shape).cuda()
        G = stir.Graph(At)
        for F in feats:
            B = torch.randn(A.shape[1], F, device="cuda")
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
                h = host_us(lambda: stir.spmm(G, B))
                w = (time.perf_counter() - w0) * 1e6 / 2020
                # the same loop of bare launches (the GPU's own pace)
                w0 = time.perf_counter()
                host_us(lambda: lib.stir_gpu_run_launch(run, 4))
                lw = (time.perf_counter() - w0) * 1e6 / 2020
            print("%-14s %4d %-34s %7.1fus %7.1fus %6.3f %7.1fus %7.1fus "
                  "%7.1fus %7.1fus %7.1fus" % (
                      path.split("/")[-1].split(".")[0], F, fast.describe,
                      1e3 * s, 1e3 * r, s / r, 1e3 * c, 1e3 * t, h, w, lw))
            sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
