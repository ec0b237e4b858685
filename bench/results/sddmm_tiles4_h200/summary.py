#!/usr/bin/env python3
# The best CSR-order tile kernel per graph and feature size of a
# bench_sddmm --tiles output, with cuSPARSE and the best earlier
# candidate of the same process; with --groups, every "N groups" row.
import re, sys
rows = {}
groups = '--groups' in sys.argv
for line in open(sys.argv[1]):
    m = re.match(r'(\S+)\s+tiles (\S+)\s+(.*?) feat\s+(\d+):.*CSR order, one launch: ([\d.]+) ms.*cuSPARSE ([\d.]+) ms.*best candidate ([\d.]+) ms', line)
    if not m:
        continue
    g, intr, shape, f, t, cs, best = m.groups()
    if 'tf32' in intr and '3x' not in intr:
        continue  # tf32 alone: 2e-3 error, not comparable
    t, cs, best = float(t), float(cs), float(best)
    if groups and 'groups' in shape:
        print(f'{g:12s} {f:>4s} {shape:32s} {t*1000:6.1f} us  {cs/t:.2f}x')
    k = (g, int(f))
    if k not in rows or t < rows[k][1]:
        rows[k] = (shape, t, cs, best)
if not groups:
    for (g, f), (shape, t, cs, best) in sorted(rows.items()):
        print(f'{g:12s} {f:4d} cuSPARSE {cs*1000:5.1f} us  earlier best {best*1000:5.1f} ({cs/best:.2f}x)  best tile {t*1000:5.1f} ({cs/t:.2f}x) {shape}')
