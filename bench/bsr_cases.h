/* bench_bsr's cases (bench/bsr_cases.c): the block-sparse matrices it
 * runs on. */
#ifndef STIR_BENCH_BSR_CASES_H
#define STIR_BENCH_BSR_CASES_H

#include <stdbool.h>
#include <stdint.h>
#include "bench/common.h"

/* A block-sparse matrix: m x n in blocks of b x b, the block columns of
 * each block row ascending. */
typedef struct bsr_case {
	char name[128];
	int64_t m, n, b;
	int64_t mb, nb, nnzb;
	int32_t *ptr;            /* owned: mb + 1 */
	int32_t *cols;           /* owned: nnzb */
	uint16_t *vals;          /* owned: nnzb x b x b f16, row-major blocks */
	bool uniform;            /* a weight case with uniform block rows */
	bool mtx;                /* from a Matrix Market file */
	int64_t width;           /* the dense operand's width, or 0: --widths */
} bsr_case;

/* c, density, uniform, seed: a weight matrix of c->mb x c->nb blocks
 * holding round(density * mb * nb) blocks exactly: the same number per
 * block row (the first rows one more) when uniform, else a power law
 * (block row r of a seeded permutation gets a share 1 / (r + 1), at most
 * nb).  0 or -1. */
int gen_weights(bsr_case *c, double density, bool uniform,
	uint64_t seed);

/* c, band, global, seed: an attention mask of 64-token blocks: block (i,
 * j) when |i - j| <= band or when i or j is one of the first "global"
 * block rows (global tokens).  0 or -1. */
int gen_attention(bsr_case *c, int64_t band, int64_t global,
	uint64_t seed);

/* ctx, c, path, block: c from the Matrix Market file "path" in blocks of
 * "block" (dividing both sizes), the values rounded to f16.  0 or -1 with
 * a diagnostic. */
int load_mtx(stir_ctx *ctx, bsr_case *c, const char *path,
	int64_t block);

/* c: free its arrays. */
void case_release(bsr_case *c);

/* c: a digest (FNV-1a) of its structure, the same for the same case. */
uint64_t case_digest(const bsr_case *c);

#endif
