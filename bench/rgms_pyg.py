# RGMS against PyG: RGCNConv and FastRGCNConv (aggr 'add', no root weight,
# no bias) on a .hetero.gz graph with the W and X that stirc wrote (.npy),
# each timed like stir (GPU.md: 5 warm-ups, then the median of 30 runs with
# CUDA events, the L2 cache flushed before each), its peak extra GPU memory
# (torch.cuda.max_memory_allocated around the layer), and its Y checked
# against stir's Y (.npy).  Usage (bench/README.md):
#   python3 bench/rgms_pyg.py GRAPH.hetero.gz W.npy X.npy Y.npy
# An edge "src dst r" of the file is A[r, dst, src] in rgms.stir: the
# message of src reaches dst through W[r]; stir's W[r] is fout x fin and
# PyG's weight[r] fin x fout, so PyG gets W transposed.
import gzip, sys, numpy as np, torch
from torch_geometric.nn import RGCNConv, FastRGCNConv
if len(sys.argv) != 5:
    sys.exit('usage: rgms_pyg.py GRAPH.hetero.gz W.npy X.npy Y.npy')
g, wf, xf, yf = sys.argv[1:5]
with gzip.open(g, 'rt') as f:
    head = f.readline().split()
    n, e, R = int(head[1]), int(head[2]), int(head[3])
    a = np.loadtxt(f, dtype=np.int64).reshape(-1, 3)
dev = 'cuda'
ei = torch.tensor(a[:, :2].T.copy(), device=dev)
et = torch.tensor(a[:, 2], device=dev)
W = torch.tensor(np.load(wf), device=dev)      # [R, fo, fi]
X = torch.tensor(np.load(xf), device=dev)
Y = np.load(yf)
fi, fo = W.shape[2], W.shape[1]
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
for name, cls in (('RGCNConv', RGCNConv), ('FastRGCNConv', FastRGCNConv)):
    conv = cls(fi, fo, R, aggr='add', root_weight=False, bias=False).to(dev)
    with torch.no_grad():
        conv.weight.copy_(W.transpose(1, 2))
        try:
            for _ in range(5): out = conv(X, ei, et)
            torch.cuda.synchronize()
            ts = []
            for _ in range(30):
                flush.zero_()
                s, t = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record(); out = conv(X, ei, et); t.record()
                torch.cuda.synchronize(); ts.append(s.elapsed_time(t))
            del out; torch.cuda.synchronize()
            base = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            out = conv(X, ei, et); torch.cuda.synchronize()
            peak = torch.cuda.max_memory_allocated() - base
            err = float(np.abs(out.cpu().numpy() - Y).max())
            print(f"{g} f={fi} {name}: median {np.median(ts):.4f} ms, peak extra {peak/2**20:.2f} MiB, max|Y_pyg - Y_stir| {err:.3g}", flush=True)
        except Exception as ex:
            print(f"{g} f={fi} {name}: failed: {ex}", flush=True)
