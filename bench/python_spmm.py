"""stir.spmm on torch CUDA tensors, timed as bench/ times kernels
(docs GPU.md: warm-ups, L2 flushed before each call, CUDA events, the
median), beside torch.sparse.mm, on the graphs given; F = 64.  The
kernel is the one stir.spmm uses (csrmm.stir under the default GPU
schedule), so `stirc run examples/csrmm.stir --backend cuda --time` on
the same graph times the same kernel from C.

    python3 bench/python_spmm.py examples/data/cora.mtx.gz ..."""
import gzip
import sys

import numpy as np
import scipy.io
import torch

import stir


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


for path in sys.argv[1:]:
    A = scipy.io.mmread(gzip.open(path)).tocsr().astype(np.float32)
    At = torch.sparse_csr_tensor(torch.from_numpy(A.indptr.astype(np.int64)),
                                 torch.from_numpy(A.indices.astype(np.int64)),
                                 torch.from_numpy(A.data), A.shape).cuda()
    G = stir.Graph(At)
    B = torch.randn(A.shape[1], 64, device="cuda")
    with torch.no_grad():
        s = timed(lambda: stir.spmm(G, B))
        k = timed(lambda: G._torch.spmm(B))
        t = timed(lambda: torch.sparse.mm(At, B))
    print("%s F=64: stir.spmm %.1f us (Graph kernel call %.1f us), "
          "torch.sparse.mm %.1f us" % (path, 1e3 * s, 1e3 * k, 1e3 * t))
