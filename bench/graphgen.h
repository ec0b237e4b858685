/* Seeded synthetic power-law graphs for benchmarks at the sizes of graphs
 * the repository cannot ship (ogbn-arxiv, ogbn-proteins, reddit). */
#ifndef STIR_BENCH_GRAPHGEN_H
#define STIR_BENCH_GRAPHGEN_H

#include <stdint.h>
#include <stir/ctx.h>
#include <stir/io.h>

/* A square CSR matrix with exactly "nodes" rows and "edges" entries:
 * row lengths follow a power law of exponent "alpha" (about 2 for social
 * graphs) whose largest row has about "max_degree" entries (0: no target;
 * never more than "nodes"); the columns of a row are distinct, sorted,
 * and drawn with probability proportional to the same power-law weights
 * (popular nodes are popular targets too).  Values are 1.  Deterministic
 * for a given seed.  NULL with a diagnostic when edges > nodes * nodes or
 * memory runs out. */
stir_csr *stir_bench_powerlaw(stir_ctx *ctx, int64_t nodes, int64_t edges,
	double alpha, int64_t max_degree, uint64_t seed);

#endif
