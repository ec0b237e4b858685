#!/usr/bin/env python3
"""gen.py DIR: block-sparse weight matrices in Matrix Market form (blocks
of b fully dense, random values), seed 1: the shapes of bench_bsr's weight
cases, uniform (every block row the same count) and skewed (power law)."""
import sys
import numpy as np

def write(path, m, n, b, dens, skew, rng):
    mb, nb = m // b, n // b
    per = max(1, int(round(dens * nb)))
    if skew:
        w = 1.0 / np.arange(1, mb + 1) ** 0.8
        counts = np.maximum(1, np.round(w / w.sum() * per * mb)).astype(int)
        counts = np.minimum(counts, nb)
        rng.shuffle(counts)
    else:
        counts = np.full(mb, per)
    rows, cols = [], []
    for ib in range(mb):
        bc = np.sort(rng.choice(nb, counts[ib], replace=False))
        r = ib * b + np.repeat(np.arange(b), b)
        c = np.tile(np.arange(b), b)
        for j in bc:
            rows.append(r)
            cols.append(j * b + c)
    r = np.concatenate(rows); c = np.concatenate(cols)
    v = rng.uniform(-1, 1, r.size)
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (m, n, r.size))
        np.savetxt(f, np.column_stack([r + 1, c + 1, v]), fmt="%d %d %.6f")

if __name__ == "__main__":
    rng = np.random.default_rng(1)
    d = sys.argv[1]
    for m, n, dens, skew in [(4096, 4096, 0.1, False), (4096, 4096, 0.1, True),
                             (768, 3072, 0.2, False), (3072, 768, 0.2, True),
                             (4096, 4096, 0.5, False)]:
        name = "w%dx%d_d%d_%s" % (m, n, int(dens * 100), "skew" if skew else "unif")
        write("%s/%s.mtx" % (d, name), m, n, 16, dens, skew, rng)
        print(name)
