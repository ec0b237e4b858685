"""A 2-layer GCN (Kipf & Welling) trained for 200 epochs with stir's SpMM
in the forward and backward passes, and the same with torch.sparse.mm:
test accuracy and time per epoch of both, on the GPU.

    python3 examples/python/gcn.py examples/data/cora.mtx.gz [pubmed.mtx.gz]

The shared data hold the graphs only (no node features or labels), so the
task is planted: features drawn at random (fixed seed), labels the argmax
of a fixed random linear map of the features propagated over two hops of
the normalized graph, which a GCN can learn; split 20 per class for
training, 500 validation, 1000 test nodes, as Planetoid.  Both runs start
from the same weights and draw the same dropout masks."""
import gzip
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
import torch

import stir


def normalized(path):
    """D^-1/2 (A + I) D^-1/2 of the graph at "path" (symmetrized), CSR."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        A = sp.csr_matrix(scipy.io.mmread(f))
    A = ((A + A.T) > 0).astype(np.float32)
    A = A + sp.eye(A.shape[0], dtype=np.float32, format="csr")
    d = np.asarray(A.sum(1)).ravel() ** -0.5
    return sp.csr_matrix(sp.diags(d) @ A @ sp.diags(d)).astype(np.float32)


def task(A, n_feat=128, n_class=7, seed=0):
    """Planted features, labels and the train/val/test split on A."""
    rng = np.random.default_rng(seed)
    n = A.shape[0]
    X = rng.standard_normal((n, n_feat)).astype(np.float32)
    W = rng.standard_normal((n_feat, n_class)).astype(np.float32)
    y = np.asarray(A @ (A @ (X @ W))).argmax(1)
    perm = rng.permutation(n)
    train = np.concatenate([perm[y[perm] == c][:20] for c in range(n_class)])
    rest = np.setdiff1d(perm, train)
    rest = rest[rng.permutation(len(rest))]
    return X, y, train, rest[:500], rest[500:1500]


def train(spmm, X, y, idx, epochs=200, hidden=16, seed=1):
    """Train the GCN with SpMM "spmm"; (test accuracy, s per epoch)."""
    torch.manual_seed(seed)
    n_class = int(y.max()) + 1
    W1 = torch.nn.Linear(X.shape[1], hidden).cuda()
    W2 = torch.nn.Linear(hidden, n_class).cuda()
    opt = torch.optim.Adam(list(W1.parameters()) + list(W2.parameters()),
                           lr=0.01, weight_decay=5e-4)
    tr, te = idx[0], idx[2]

    def forward(training):
        h = torch.nn.functional.dropout(X, 0.5, training)
        h = torch.relu(spmm(W1(h)))
        h = torch.nn.functional.dropout(h, 0.5, training)
        return spmm(W2(h))

    times = []
    for epoch in range(epochs):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(forward(True)[tr], y[tr])
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    with torch.no_grad():
        acc = (forward(False)[te].argmax(1) == y[te]).float().mean().item()
    # the first epochs compile and warm up: the median of the rest
    return acc, float(np.median(times[5:]))


def main(paths):
    """Both trainings on each graph of "paths"; prints one line each."""
    for path in paths:
        A = normalized(path)
        Xn, yn, *split = task(A)
        X = torch.from_numpy(Xn).cuda()
        y = torch.from_numpy(yn).cuda()
        idx = [torch.from_numpy(s).cuda() for s in split]
        At = torch.sparse_csr_tensor(
            torch.from_numpy(A.indptr.astype(np.int64)),
            torch.from_numpy(A.indices.astype(np.int64)),
            torch.from_numpy(A.data), A.shape).cuda()
        G = stir.Graph(At)
        acc_s, t_s = train(lambda H: stir.spmm(G, H), X, y, idx)
        acc_t, t_t = train(lambda H: torch.sparse.mm(At, H), X, y, idx)
        print("%s: %d nodes, %d entries: stir test acc %.1f%%, %.3f ms/epoch;"
              " torch.sparse.mm test acc %.1f%%, %.3f ms/epoch"
              % (path, A.shape[0], A.nnz, 100 * acc_s, 1e3 * t_s,
                 100 * acc_t, 1e3 * t_t))
        # the kernels the Graph prepared (the tuning record's or the cost
        # model's picks), for A and for its transpose (the backward)
        info = G.kernel_info()
        for what, key in (("A", "spmm"), ("A^T", "spmm_t")):
            print("  stir SpMM on %s: %s" % (what, "; ".join(
                "F=%d %s (%s)" % (F, k["describe"], k["how"])
                for F, k in sorted(info[key].items()))))


if __name__ == "__main__":
    main(sys.argv[1:] or ["examples/data/cora.mtx.gz"])
