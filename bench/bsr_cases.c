/* bench_bsr's cases (bench/bench_bsr.c): block-sparse matrices generated
 * from a seed (pruned-transformer weights, attention masks) or read from a
 * Matrix Market file, and a digest of their structure (--list). */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench/bsr_cases.h"
#include "ir/diag.h"

/* *s: the next 64 random bits of a splitmix64 generator. */
static uint64_t next_random(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* a, b: compare two int32 for qsort. */
static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* c, counts, seed: the structure of c from the number of blocks of each
 * block row (counts, at most nb each): distinct block columns drawn with
 * a partial Fisher-Yates shuffle from "seed", sorted.  Values in [-1, 1)
 * rounded to f16.  0 or -1 (memory). */
static int fill_structure(bsr_case *c, const int64_t *counts, uint64_t seed)
{
	int64_t total = 0;
	for (int64_t i = 0; i < c->mb; i++)
		total += counts[i];
	c->nnzb = total;
	c->ptr = malloc((size_t)(c->mb + 1) * sizeof(*c->ptr));
	c->cols = malloc((size_t)(total ? total : 1) * sizeof(*c->cols));
	int32_t *perm = malloc((size_t)c->nb * sizeof(*perm));
	size_t nv = (size_t)total * (size_t)(c->b * c->b);
	c->vals = malloc((nv ? nv : 1) * sizeof(*c->vals));
	if (!c->ptr || !c->cols || !perm || !c->vals) {
		free(perm);
		return -1;
	}
	uint64_t s = seed;
	int64_t k = 0;
	c->ptr[0] = 0;
	for (int64_t i = 0; i < c->mb; i++) {
		for (int64_t j = 0; j < c->nb; j++)
			perm[j] = (int32_t)j;
		for (int64_t j = 0; j < counts[i]; j++) {
			int64_t r = j + (int64_t)(next_random(&s) %
				(uint64_t)(c->nb - j));
			int32_t t = perm[j];
			perm[j] = perm[r];
			perm[r] = t;
		}
		qsort(perm, (size_t)counts[i], sizeof(*perm), cmp_i32);
		memcpy(c->cols + k, perm, (size_t)counts[i] * sizeof(*perm));
		k += counts[i];
		c->ptr[i + 1] = (int32_t)k;
	}
	for (size_t v = 0; v < nv; v++)
		c->vals[v] = stir_f16_from_double(
			(double)(next_random(&s) >> 11) * 0x1p-52 - 1.0);
	free(perm);
	return 0;
}

/* c, density, uniform, seed: a weight matrix of c->mb x c->nb blocks
 * holding round(density * mb * nb) blocks exactly: the same number per
 * block row (the first rows one more) when uniform, else a power law
 * (block row r of a seeded permutation gets a share 1 / (r + 1), at most
 * nb).  0 or -1. */
int gen_weights(bsr_case *c, double density, bool uniform,
	uint64_t seed)
{
	int64_t total = llround(density * (double)(c->mb * c->nb));
	int64_t *counts = calloc((size_t)c->mb, sizeof(*counts));
	if (!counts)
		return -1;
	if (uniform) {
		for (int64_t i = 0; i < c->mb; i++)
			counts[i] = total / c->mb + (i < total % c->mb);
	} else {
		uint64_t s = seed ^ 0x5bd1e995u;
		int64_t *order = malloc((size_t)c->mb * sizeof(*order));
		if (!order) {
			free(counts);
			return -1;
		}
		for (int64_t i = 0; i < c->mb; i++)
			order[i] = i;
		for (int64_t i = c->mb - 1; i > 0; i--) {
			int64_t r = (int64_t)(next_random(&s) % (uint64_t)(i + 1));
			int64_t t = order[i];
			order[i] = order[r];
			order[r] = t;
		}
		double h = 0;
		for (int64_t i = 0; i < c->mb; i++)
			h += 1.0 / (double)(i + 1);
		int64_t left = total;
		for (int64_t i = 0; i < c->mb; i++) {
			int64_t want = (int64_t)((double)total / h / (double)(i + 1));
			if (want > c->nb)
				want = c->nb;
			counts[order[i]] = want;
			left -= want;
		}
		/* what the rounding left, one block a row from the heaviest
		 * rows down, until none is left (total <= mb nb) */
		while (left > 0)
			for (int64_t i = 0; i < c->mb && left > 0; i++)
				if (counts[order[i]] < c->nb) {
					counts[order[i]]++;
					left--;
				}
		free(order);
	}
	int rc = fill_structure(c, counts, seed);
	free(counts);
	return rc;
}

/* c, band, global, seed: an attention mask of 64-token blocks: block (i,
 * j) when |i - j| <= band or when i or j is one of the first "global"
 * block rows (global tokens).  0 or -1. */
int gen_attention(bsr_case *c, int64_t band, int64_t global,
	uint64_t seed)
{
	int64_t total = 0;
	c->ptr = malloc((size_t)(c->mb + 1) * sizeof(*c->ptr));
	c->cols = malloc((size_t)(c->mb * c->nb) * sizeof(*c->cols));
	if (!c->ptr || !c->cols)
		return -1;
	c->ptr[0] = 0;
	for (int64_t i = 0; i < c->mb; i++) {
		for (int64_t j = 0; j < c->nb; j++)
			if (i < global || j < global || llabs(i - j) <= band)
				c->cols[total++] = (int32_t)j;
		c->ptr[i + 1] = (int32_t)total;
	}
	c->nnzb = total;
	size_t nv = (size_t)total * (size_t)(c->b * c->b);
	c->vals = malloc(nv * sizeof(*c->vals));
	if (!c->vals)
		return -1;
	uint64_t s = seed;
	for (size_t v = 0; v < nv; v++)
		c->vals[v] = stir_f16_from_double(
			(double)(next_random(&s) >> 11) * 0x1p-52 - 1.0);
	return 0;
}

/* ctx, c, path, block: c from the Matrix Market file "path" in blocks of
 * "block" (dividing both sizes), the values rounded to f16.  0 or -1 with
 * a diagnostic. */
int load_mtx(stir_ctx *ctx, bsr_case *c, const char *path,
	int64_t block)
{
	if (access(path, R_OK) != 0) {
		stir_error(ctx, stir_loc_none(), "%s: cannot read the file", path);
		return -1;
	}
	stir_csr *csr = bench_load_graph(ctx, path);
	bench_csr32 a;
	if (!csr || bench_csr32_init(ctx, &a, csr) < 0) {
		stir_csr_free(csr);
		return -1;
	}
	stir_csr_free(csr);
	if (block <= 0 || a.m % block || a.n % block) {
		stir_error(ctx, stir_loc_none(), "%s: the block size %" PRId64
			" does not divide the %" PRId64 " x %" PRId64 " matrix",
			path, block, a.m, a.n);
		bench_csr32_release(&a);
		return -1;
	}
	stir_bindings *b = stir_bindings_alloc();
	stir_csr *back = NULL;
	int rc = -1;
	/* the BSR builder of the library, then its arrays */
	if ((csr = bench_load_graph(ctx, path)) != NULL) {
		stir_host_format *f = stir_csr_to_bsr(ctx, csr, block, STIR_I32,
			STIR_F32, "", b);
		const stir_array *pa = f ? stir_bindings_get_array(b, "JB.indptr") : NULL;
		const stir_array *ja = f ? stir_bindings_get_array(b, "JB.indices") : NULL;
		const stir_array *va = f ? stir_bindings_get_array(b, "A") : NULL;
		c->m = a.m;
		c->n = a.n;
		c->b = block;
		c->mb = a.m / block;
		c->nb = a.n / block;
		c->nnzb = ja ? stir_array_get_len(ja) : 0;
		c->ptr = malloc((size_t)(c->mb + 1) * sizeof(*c->ptr));
		c->cols = malloc((size_t)(c->nnzb + 1) * sizeof(*c->cols));
		size_t nv = (size_t)c->nnzb * (size_t)(block * block);
		c->vals = malloc((nv + 1) * sizeof(*c->vals));
		if (c->ptr && c->cols && c->vals && (pa || c->nnzb == 0)) {
			for (int64_t i = 0; i <= c->mb; i++)
				c->ptr[i] = pa ? (int32_t)stir_array_get_int(pa, i) : 0;
			for (int64_t k = 0; k < c->nnzb; k++)
				c->cols[k] = (int32_t)stir_array_get_int(ja, k);
			for (size_t v = 0; v < nv; v++)
				c->vals[v] = stir_f16_from_double(
					stir_array_get_double(va, (int64_t)v));
			rc = 0;
		}
		stir_host_format_free(f);
		stir_csr_free(csr);
	}
	stir_csr_free(back);
	stir_bindings_free(b);
	bench_csr32_release(&a);
	c->mtx = true;
	return rc;
}

/* c: free its arrays. */
void case_release(bsr_case *c)
{
	free(c->ptr);
	free(c->cols);
	free(c->vals);
}

/* c: a digest (FNV-1a) of its structure, the same for the same case. */
uint64_t case_digest(const bsr_case *c)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (int64_t i = 0; i <= c->mb; i++)
		h = (h ^ (uint64_t)c->ptr[i]) * 0x100000001b3ull;
	for (int64_t k = 0; k < c->nnzb; k++)
		h = (h ^ (uint64_t)c->cols[k]) * 0x100000001b3ull;
	return h;
}
