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
write(sys.argv[1], 4096, 4096, 64, 0.2, False, np.random.default_rng(1))
