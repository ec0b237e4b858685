#!/usr/bin/env python3
# h-sdt3, host counts (no GPU): for windows of R rows and groups of C
# columns (SR-BCRS(R, C)), the slots a non-zero and the 32-byte row
# segments a tile reads a step of 8 features (C gathered rows of Y and R
# rows of X), a non-zero.  Usage: tile_counts.py GRAPH.mtx.gz...
import collections, gzip, sys

def read(path):
    with gzip.open(path, 'rt') as f:
        symmetric = 'symmetric' in f.readline()
        line = f.readline()
        while line.startswith('%'):
            line = f.readline()
        entries = set()
        for line in f:
            i, j = (int(v) - 1 for v in line.split()[:2])
            entries.add((i, j))
            if symmetric:
                entries.add((j, i))
    return entries

for path in sys.argv[1:]:
    entries = read(path)
    nnz = len(entries)
    parts = []
    for rows, cols in [(8, 16), (16, 8), (8, 8), (16, 16), (4, 16)]:
        window = collections.defaultdict(set)
        for i, j in entries:
            window[i // rows].add(j)
        tiles = sum((len(s) + cols - 1) // cols for s in window.values())
        parts.append('%dx%d: slots/nnz %.2f segs/nnz %.2f tiles %d' % (
            rows, cols, tiles * rows * cols / nnz, tiles * (rows + cols) / nnz,
            tiles))
    print(path, nnz, '|', ' | '.join(parts))
