# rgms_counts: what RGMS kernels move and issue on a relational graph,
# counted on the host (no GPU): the (relation, row) pairs, the tiles of 16
# edges of one relation that the tensor-core edge tiles
# (tests/tensorize/rgms_tc_edges.yaml; bench_rgms.py's tc_edges_* until
# f4dd87a) run and how many of them one thread block runs one after
# another in P pieces, the atomic adds into Y of the edge-by-edge
# CUDA-core kernel (runs_fF_v4_k4, now the rgms_edge recipe's candidate of
# 4 edges a thread: a run of one row's edges summed in registers, one
# float4 a lane and run) and of
# the edge tiles (one float2 a lane pair and edge), W[r]'s loads, and how
# many relations a tile of 16 destination rows meets.  Usage:
#
#   python3 bench/rgms_counts.py GRAPH.hetero[.gz]... [--features 64]
#
# bench/RESULTS.md, "RGMS on tensor cores: why the edge tiles are slow".
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_rgms import read_hetero


def counts(n, r, a, feat):
    """The lines of counts for the graph (n nodes, r relations, edges a:
    src, dst, rel) at fin = fout = feat."""
    import numpy as np
    # the relational format's order: relation, row (dst), column (src)
    order = np.lexsort((a[:, 0], a[:, 1], a[:, 2]))
    dst, rel = a[order, 1], a[order, 2]
    e = len(a)
    newpair = np.ones(e, bool)
    newpair[1:] = (dst[1:] != dst[:-1]) | (rel[1:] != rel[:-1])
    pairs = int(newpair.sum())
    per_rel = np.bincount(rel, minlength=r)
    tiles = (per_rel + 15) // 16
    out = ["edges %d relations %d pairs %d edges/pair %.2f largest relation "
           "%d edges (%.1f%%)" % (e, r, pairs, e / max(pairs, 1), per_rel.max(),
                                  100.0 * per_rel.max() / max(e, 1))]
    for p in (128, 512, 1024):
        busy = np.minimum(tiles, p).sum()
        out.append("edge tiles in %d pieces: %d tiles, at most %d a thread "
                   "block, %.1f on average" % (p, tiles.sum(), (-(-tiles // p)).max(),
                                               tiles.sum() / max(busy, 1)))
    runs = int((newpair | (np.arange(e) % 4 == 0)).sum())
    row_bytes = feat * 4
    out.append("runs_f%d_v4_k4: %d runs, %d float4 atomics into Y (%.1f MB)"
               % (feat, runs, runs * feat // 4, runs * row_bytes / 1e6))
    out.append("tc_edges: %d float2 atomics into Y (%.1f MB), W[r] %.1f MB "
               "(a tile's); the CUDA-core kernel reads W[r] an edge: %.1f MB"
               % (e * feat // 2, e * row_bytes / 1e6,
                  tiles.sum() * feat * row_bytes / 1e6, e * feat * row_bytes / 1e6))
    rows = np.unique(dst)
    row_tile = np.searchsorted(rows, dst) // 16
    met = len(np.unique(row_tile * r + rel))
    out.append("tiles of 16 destination rows: %d, %.1f relations a tile "
               "(a W[r] load each: %.1f MB)" % (row_tile.max() + 1 if e else 0,
                                               met / max(row_tile.max() + 1, 1),
                                               met * feat * row_bytes / 1e6))
    size = np.diff(np.flatnonzero(np.r_[newpair, True]))
    out.append("largest pair %d edges, largest in-degree %d"
               % (size.max(), np.bincount(dst, minlength=n).max()))
    return out


def main(argv):
    feat = 64
    paths = []
    i = 0
    while i < len(argv):
        if argv[i] == "--features" and i + 1 < len(argv):
            feat = int(argv[i + 1])
            i += 2
            continue
        paths.append(argv[i])
        i += 1
    if not paths:
        sys.stderr.write("usage: rgms_counts.py GRAPH.hetero[.gz]... [--features F]\n")
        return 2
    for path in paths:
        n, r, a = read_hetero(path)
        print("%s (F = %d):" % (os.path.basename(path), feat))
        for line in counts(n, r, a, feat):
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
