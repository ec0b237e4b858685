/* The tuner's cost model for the hybrid SpMM (docs/recipes.md, "The cost
 * model"): an estimate of a candidate's time on a matrix at a feature
 * size, from the bytes it moves (its padded slots, the gathered rows of
 * B, the writes of C), how well L2 holds B, and its parallelism (rows and
 * warps per block, the serial steps of a row, waves over the SMs).  The
 * figures are relative: only the order of the candidates matters. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>
#include <stir/recipes.h>
#include "ir/diag.h"
#include "ir/nodes.h"
#include "schedule/recipes/rank.h"

/* Modeled machine: H100-like bandwidths (bytes per ns) and L2 size.  The
 * weights below are those of a ranking, not measured machine constants:
 * fitted (bench/model_fit.py: coordinate descent on the log of the first
 * pick's time over the best) to the exhaustive searches' per-candidate
 * times, first of bench/results/spmm_shared.json (H200), then the six
 * marked "refitted" (and the latency's form: STEP_NS, BLEND) on the
 * H100's and the H200's searches together (330 cases, 23 graphs x 5
 * feature sizes); docs/recipes.md gives the figures held out by graph. */
#define DRAM_BW 3000.0
#define L2_BYTES (50.0 * 1024 * 1024)
#define L2_BW_FACTOR 2.4        /* a gather's byte when B fits in L2,
                                   against the other bytes moved */
#define LOCALITY_L2 0.375       /* the L2 share of a locality order */
#define LOCALITY_GATHER 0.0543  /* a locality order's gathers (L1 hits;
                                   refitted) */
#define LOCALITY_SHARE_EXP 1.4286 /* ... times the matrix's column share
                                   (column_share) to this power (refitted) */
#define NATURAL_SHARE_EXP 1.0   /* the matrix's own order's gathers: its
                                   column share to this power (refitted) */
#define GROUP_GATHER 0.2875     /* a grouped row's gathers, per halving */
#define STEP_NS 36.8            /* one serial column step of a thread */
#define ATOMIC_FACTOR 0.1225    /* an atomic add against a store
                                   (refitted) */
#define NO_WARP_CACHE 0.5       /* every lane loading a row's columns */
#define MIN_BLOCKS_1_2 0.0625   /* latency with a register budget of 1 or 2
                                   blocks an SM (loads kept in flight;
                                   refitted) */
#define SERIAL_STEPS 2.8571     /* latency of serial chunks */
#define BLEND 0.01              /* the smaller of memory and latency */
#define LAUNCH_NS 125.0         /* a second launch (C zeroed first;
                                   refitted) */
#define SHARE_ROWS 8            /* the rows of column_share's windows */

/* a, share: *share = the distinct columns of each window of SHARE_ROWS
 * consecutive rows of a, summed over the windows, over a's non-zeros:
 * near 1 when neighbouring rows share no column (a social graph), a
 * fraction when they share most (a banded finite-element matrix, whose
 * rows then hit L1 in their own order).  0, or -1 when out of memory. */
static int column_share(const stir_csr *a, double *share)
{
	int64_t *seen = malloc(sizeof(*seen) * (size_t)(a->ncols > 0 ?
		a->ncols : 1));
	if (!seen)
		return -1;
	for (int64_t j = 0; j < a->ncols; j++)
		seen[j] = -1;
	int64_t distinct = 0;
	for (int64_t i = 0; i < a->nrows; i++)
		for (int64_t e = a->indptr[i]; e < a->indptr[i + 1]; e++) {
			int64_t j = a->indices[e];
			if (j >= 0 && j < a->ncols && seen[j] != i / SHARE_ROWS) {
				seen[j] = i / SHARE_ROWS;
				distinct++;
			}
		}
	free(seen);
	*share = a->nnz > 0 ? (double)distinct / (double)a->nnz : 1.0;
	return 0;
}

/* w, nb, buckets: the index of the narrowest bucket at least w wide, or
 * nb when w is wider than all. */
static int bucket_of(int64_t w, int nb, const int64_t *buckets)
{
	for (int t = 0; t < nb; t++)
		if (w <= buckets[t])
			return t;
	return nb;
}

/* p, a, feat, n_sms: see recipes.h; share: column_share's of a. */
static double hybrid_cost(const stir_spmm_hybrid_candidate *p,
	const stir_csr *a, int64_t feat, int n_sms, double share)
{
	if (!p || !a || feat < 1 || p->nb < 1 || p->nb > 8 || p->c < 1 ||
	    !stir_spmm_hybrid_fits(p, feat))
		return -1;
	if (n_sms < 1)
		n_sms = 132;
	stir_spmm_map fm = stir_spmm_hybrid_map(p, feat);
	int64_t widest = p->buckets[p->nb - 1];
	/* rows of each part (bucket t, or the split rows' part nb) */
	double part_rows[9] = { 0 };
	double slots = 0, split_rows = 0;
	for (int64_t i = 0; i < a->nrows; i++) {
		int64_t d = a->indptr[i + 1] - a->indptr[i];
		for (int q = 0; q < p->c; q++) {
			/* with c column parts, a row's columns spread over them */
			int64_t dq = (d + p->c - 1 - q) / p->c;
			if (dq == 0 && (p->c > 1 || q > 0))
				continue;       /* no padding row for a part's gap */
			int t = bucket_of(dq, p->nb, p->buckets);
			if (t < p->nb) {
				part_rows[t] += 1;
				slots += (double)p->buckets[t];
			} else {
				int64_t pieces = (dq + widest - 1) / widest;
				part_rows[p->nb] += (double)pieces;
				slots += (double)(pieces * widest);
				split_rows += 1;
			}
		}
	}
	double f = (double)feat;
	/* bytes: each slot's index and value; the gathered row of B;
	 * the writes of C, atomic (and zeroed first) where rows share them */
	double b_bytes = (double)a->ncols * f * 4;
	double hit = b_bytes <= L2_BYTES ? 1.0 :
		(L2_BYTES / b_bytes) * (p->locality ? LOCALITY_L2 : 1.0);
	if (hit > 1)
		hit = 1;
	double gather = slots * f * 4 * (hit * L2_BW_FACTOR + (1 - hit));
	/* neighbouring rows that share columns hit L1: more in a locality
	 * order, in both the more the matrix's rows share */
	gather *= p->locality ? LOCALITY_GATHER * pow(share,
		LOCALITY_SHARE_EXP) : pow(share, NATURAL_SHARE_EXP);
	/* a grouped row's lanes gather a piece of B's row each, more rows'
	 * gathers in flight per warp (fitted on groups of 2 and 4: no more
	 * for wider groups) */
	for (int64_t g = fm.group < 4 ? fm.group : 4; g > 1; g /= 2)
		gather *= GROUP_GATHER;
	double index = slots * 8;
	if (!p->warp_cache && fm.group <= 1)
		index += slots * 8 * NO_WARP_CACHE *
			(double)(fm.lanes > 1);
	double out = (double)a->nrows * f * 4;
	int launches = 1;
	if (p->c > 1) {
		out *= 1 + p->c * ATOMIC_FACTOR;
		launches = 2;
	} else if (split_rows > 0) {
		/* each piece adds atomically into its row, zeroed first */
		out += (part_rows[p->nb] * ATOMIC_FACTOR + split_rows) * f * 4;
		launches = 2;
	}
	double mem_ns = (gather + index + out) / DRAM_BW;
	/* parallelism: blocks of fm.rows rows, each row's serial steps its
	 * width over the threads sharing it, times the serial chunks; the
	 * blocks resident on an SM from the threads per block */
	double resident = 2048.0 / p->threads;
	if (resident > 32)
		resident = 32;
	/* serial chunks, and a grouped row's chunks, loop in each thread */
	double chunks = fm.serial || fm.group > 1 ? (double)fm.chunks : 1.0;
	double work = 0, longest = 0;
	for (int t = 0; t <= p->nb; t++) {
		if (part_rows[t] == 0)
			continue;
		int64_t w = p->buckets[t < p->nb ? t : p->nb - 1];
		double g = (double)(fm.group > 1 && w >= fm.group ?
			fm.group : 1);
		double steps = ((double)w / g) * chunks;
		/* a shared row's sums: log2(g) shuffles of each register */
		for (double x = g; x > 1; x /= 2)
			steps += chunks * (double)fm.vec;
		double rows = (double)fm.rows;
		if (fm.group > 1 && w < fm.group)
			rows *= (double)fm.group;  /* the narrow parts' rows */
		double nblk = part_rows[t] / rows;
		if (nblk < 1)
			nblk = 1;
		work += nblk * steps;
		if (steps > longest)
			longest = steps;
	}
	double slots_sm = (double)n_sms * resident;
	double lat_ns = (work / slots_sm + longest) * STEP_NS;
	/* a register budget of one or two blocks an SM gives a thread the
	 * registers to keep its loads in flight */
	if (p->min_blocks == 1 || p->min_blocks == 2)
		lat_ns *= MIN_BLOCKS_1_2;
	if (p->serial_lanes > 0)
		lat_ns *= SERIAL_STEPS;
	return (mem_ns > lat_ns ? mem_ns + BLEND * lat_ns :
		lat_ns + BLEND * mem_ns) + (launches - 1) * LAUNCH_NS;
}

/* p, a, feat, n_sms: see recipes.h. */
double stir_spmm_hybrid_model_cost(const stir_spmm_hybrid_candidate *p,
	const stir_csr *a, int64_t feat, int n_sms)
{
	double share;
	if (!a || column_share(a, &share) < 0)
		return -1;
	return hybrid_cost(p, a, feat, n_sms, share);
}

/* The candidates and their costs, for ranking. */
typedef struct ranked {
	int index;
	double cost;
} ranked;

/* a, b: two ranked candidates; cheaper first, then by index. */
static int cmp_ranked(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	if (x->cost != y->cost)
		return x->cost < y->cost ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* n, cost, a, feat, n_sms, order, costs: see rank.h. */
int recipe_rank(int n, recipe_cost_fn cost, const void *arg,
	const stir_csr *a, int64_t feat, int n_sms, int *order, double *costs)
{
	int m = 0;
	ranked *r = malloc(sizeof(*r) * (size_t)(n > 0 ? n : 1));
	if (!r)
		return -1;
	for (int i = 0; i < n; i++) {
		double c = cost(i, arg, a, feat, n_sms);
		if (c >= 0)
			r[m++] = (ranked){ i, c };
	}
	qsort(r, (size_t)m, sizeof(*r), cmp_ranked);
	for (int i = 0; i < m; i++) {
		order[i] = r[i].index;
		if (costs)
			costs[i] = r[i].cost;
	}
	free(r);
	return m;
}

/* i, share, a, feat, n_sms: the hybrid SpMM model's cost of candidate i,
 * share the column share of a. */
static double spmm_cost(int i, const void *share, const stir_csr *a,
	int64_t feat, int n_sms)
{
	return hybrid_cost(stir_spmm_hybrid_get_candidate(i), a, feat, n_sms,
		*(const double *)share);
}

/* a, feat, n_sms, order, costs: see recipes.h. */
int stir_spmm_hybrid_model_rank(const stir_csr *a, int64_t feat, int n_sms,
	int *order, double *costs)
{
	double share;
	if (!a || column_share(a, &share) < 0)
		return -1;
	return recipe_rank(stir_spmm_hybrid_n_candidates(), spmm_cost, &share,
		a, feat, n_sms, order, costs);
}

/* s, d: a row (or pair) of d entries counted in s's histogram. */
static void sig_count(stir_matrix_sig *s, int64_t d)
{
	int b = 0;
	while (d > 0 && b < STIR_MATRIX_SIG_BUCKETS - 1) {
		d >>= 1;
		b++;
	}
	s->hist[b]++;
}

/* a, s: see recipes.h. */
void stir_csr_get_sig(const stir_csr *a, stir_matrix_sig *s)
{
	*s = (stir_matrix_sig){ a->nrows, a->ncols, a->nnz, { 0 }, 1 };
	for (int64_t i = 0; i < a->nrows; i++)
		sig_count(s, a->indptr[i + 1] - a->indptr[i]);
}

/* h, s: see recipes.h. */
void stir_hetero_get_sig(const stir_hetero *h, stir_matrix_sig *s)
{
	*s = (stir_matrix_sig){ h->nrows, h->nnodes, h->nnz, { 0 }, h->nrels };
	for (int64_t i = 0; i < h->nrows; i++)
		sig_count(s, h->row_ptr[i + 1] - h->row_ptr[i]);
}

/* x, y, tol: whether x and y lie within tol of each other, relative to
 * the larger. */
static bool near(int64_t x, int64_t y, double tol)
{
	double m = (double)(x > y ? x : y);
	double diff = (double)(x > y ? x - y : y - x);
	return diff <= tol * m;
}

/* a, b, tol: see recipes.h. */
bool stir_matrix_sig_is_similar(const stir_matrix_sig *a,
	const stir_matrix_sig *b, double tol)
{
	if (!near(a->rows, b->rows, tol) || !near(a->cols, b->cols, tol) ||
	    !near(a->nnz, b->nnz, tol) || !near(a->rels, b->rels, tol))
		return false;
	double dist = 0;
	for (int i = 0; i < STIR_MATRIX_SIG_BUCKETS; i++) {
		double x = a->rows ? (double)a->hist[i] / (double)a->rows : 0;
		double y = b->rows ? (double)b->hist[i] / (double)b->rows : 0;
		dist += x > y ? x - y : y - x;
	}
	return dist <= tol;
}

/* ---- the tuner's model pick ---- */

/* k, name: the rows a group of tensor "name" of kernel k (S of sddmm_vb,
 * Dst of sddmm_vb_csr: over [I, J, G], G dense_fixed of a literal
 * length), or 0. */
static int64_t vb_rows(const stir_kernel *k, const char *name)
{
	const stir_buffer *s = stir_kernel_find_buffer((stir_kernel *)k, name);
	if (!s || s->n_axes != 3 || s->axes[2]->kind != STIR_DENSE_FIXED ||
	    s->axes[2]->len->kind != STIR_EXPR_INT)
		return 0;
	return s->axes[2]->len->u.i;
}

/* k: whether kernel k has the structure of sddmm_tiles_csr of
 * examples/sddmm_tiles_csr.stir: Dst over [W, G, C, R], its tiles C
 * sparse_fixed of 16 columns and R dense_fixed of 8 rows, as the tile
 * groups stir_kernel_bind_csr builds (stir_csr_to_tile_groups). */
static bool is_tiles(const stir_kernel *k)
{
	const stir_buffer *d = stir_kernel_find_buffer((stir_kernel *)k, "Dst");
	if (!d || d->n_axes != 4)
		return false;
	const stir_axis *c = d->axes[2], *r = d->axes[3];
	return c->kind == STIR_SPARSE_FIXED && r->kind == STIR_DENSE_FIXED &&
		r->len->kind == STIR_EXPR_INT && r->len->u.i == 8;
}

/* k: the block size of kernel k's A over BSR blocks [I, J, BI, BJ]
 * (BI of a literal length), or 0. */
static int64_t bsr_block(const stir_kernel *k)
{
	const stir_buffer *a = stir_kernel_find_buffer((stir_kernel *)k, "A");
	if (!a || a->n_axes != 4 || a->axes[2]->kind != STIR_DENSE_FIXED ||
	    a->axes[2]->len->kind != STIR_EXPR_INT)
		return 0;
	return a->axes[2]->len->u.i;
}

/* r: see rank.h. */
int64_t recipe_block(stir_tune_recipe r)
{
	return r == STIR_TUNE_BSR16 ? 16 : r == STIR_TUNE_BSR32 ? 32 :
		r == STIR_TUNE_BSR64 ? 64 : 0;
}

/* k: see recipes.h. */
stir_tune_recipe stir_kernel_get_tune_recipe(const stir_kernel *k)
{
	const char *n = k ? stir_kernel_get_name(k) : NULL;
	if (!n)
		return STIR_TUNE_NONE;
	if (!strcmp(n, "bsrmm"))
		return bsr_block(k) == 16 ? STIR_TUNE_BSR16 : bsr_block(k) == 32 ?
			STIR_TUNE_BSR32 : bsr_block(k) == 64 ? STIR_TUNE_BSR64 :
			STIR_TUNE_NONE;
	if (!strcmp(n, "sddmm_vb"))
		return vb_rows(k, "S") == 4 ? STIR_TUNE_SDDMM_VB4 :
			vb_rows(k, "S") == 8 ? STIR_TUNE_SDDMM_VB8 : STIR_TUNE_NONE;
	if (!strcmp(n, "sddmm_tiles_csr"))
		return is_tiles(k) ? STIR_TUNE_SDDMM_TILES : STIR_TUNE_NONE;
	if (!strcmp(n, "sddmm_vb_csr"))
		return vb_rows(k, "Dst") == 4 ? STIR_TUNE_SDDMM_VB4_CSR :
			vb_rows(k, "Dst") == 8 ? STIR_TUNE_SDDMM_VB8_CSR :
			STIR_TUNE_NONE;
	return !strcmp(n, "csrmm") ? STIR_TUNE_SPMM :
		!strcmp(n, "sddmm") ? STIR_TUNE_SDDMM :
		!strcmp(n, "sddmm_rows") ? STIR_TUNE_SDDMM_ROWS :
		!strcmp(n, "rgms_agg") ? STIR_TUNE_RGMS :
		!strcmp(n, "rgms_edge") ? STIR_TUNE_RGMS_EDGE : STIR_TUNE_NONE;
}

/* r: see recipes.h. */
bool stir_tune_recipe_is_model_ranked(stir_tune_recipe r)
{
	return r >= STIR_TUNE_SPMM && r <= STIR_TUNE_SDDMM_TILES;
}

/* r: see recipes.h. */
bool stir_tune_recipe_is_hetero(stir_tune_recipe r)
{
	return r == STIR_TUNE_RGMS || r == STIR_TUNE_RGMS_TF32 ||
		r == STIR_TUNE_RGMS_EDGE;
}

/* r: the rows a group of group recipe r, 0 for the others. */
static int64_t recipe_rows(stir_tune_recipe r)
{
	return r == STIR_TUNE_SDDMM_VB4 || r == STIR_TUNE_SDDMM_VB4_CSR ? 4 :
		r == STIR_TUNE_SDDMM_VB8 || r == STIR_TUNE_SDDMM_VB8_CSR ? 8 : 0;
}

/* r: see rank.h. */
int recipe_n_candidates(stir_tune_recipe r)
{
	return r == STIR_TUNE_NONE ? 0 :
		r == STIR_TUNE_SPMM ? stir_spmm_hybrid_n_candidates() :
		r == STIR_TUNE_SDDMM_TILES ? stir_sddmm_tiles_n_candidates() :
		r == STIR_TUNE_RGMS ? stir_rgms_n_candidates() :
		r == STIR_TUNE_RGMS_TF32 ? stir_rgms_n_candidates() +
		stir_rgms_tc_n_candidates() :
		r == STIR_TUNE_RGMS_EDGE ? stir_rgms_edge_n_candidates() :
		recipe_block(r) ? stir_bsr_tc_n_candidates() :
		recipe_rows(r) ? stir_sddmm_vblock_n_candidates() :
		stir_sddmm_n_candidates();
}

/* r, a, feat, n_sms, order, costs: see recipes.h: the SDDMM cost model's
 * ranking (model_sddmm.c) of the candidates of recipe r. */
int stir_sddmm_rank(stir_tune_recipe r, const stir_csr *a, int64_t feat,
	int n_sms, int *order, double *costs)
{
	if (r == STIR_TUNE_SDDMM_TILES)
		return stir_sddmm_tiles_model_rank(a, feat, n_sms, order, costs);
	int64_t rows = recipe_rows(r);
	int n = rows ? stir_sddmm_vblock_model_rank(a, feat, n_sms, order,
		costs) : stir_sddmm_model_rank(a, feat, n_sms, order, costs);
	int kept = 0;
	for (int i = 0; i < n; i++) {
		const stir_sddmm_candidate *p = stir_sddmm_get_candidate(order[i]);
		const stir_sddmm_vblock_candidate *q =
			stir_sddmm_vblock_get_candidate(order[i]);
		if (rows ? q->rows != rows : p->rows != (r == STIR_TUNE_SDDMM_ROWS))
			continue;
		if (costs)
			costs[kept] = costs[i];
		order[kept++] = order[i];
	}
	return n < 0 ? n : kept;
}

/* k, a, feat, n_sms, cand, cost: see recipes.h. */
int stir_tune_model_apply(stir_kernel *k, const stir_csr *a, int64_t feat,
	int n_sms, int *cand, double *cost)
{
	stir_tune_recipe r = stir_kernel_get_tune_recipe(k);
	if (!k || !a)
		return -1;
	stir_ctx *ctx = stir_kernel_ctx(k);
	if (r == STIR_TUNE_NONE || stir_tune_recipe_is_hetero(r)) {
		stir_error(ctx, k->loc, r == STIR_TUNE_NONE ? "no recipe covers "
			"kernel '%s' (the tuner knows csrmm, sddmm, sddmm_rows, "
			"sddmm_vb, sddmm_vb_csr, sddmm_tiles_csr, bsrmm, rgms_agg "
			"and rgms_edge of examples/)" : "kernel '%s' takes a relational "
			"graph: stir_tune_model_apply_hetero", k->name);
		return -1;
	}
	if (feat < 1) {
		stir_error(ctx, k->loc, "the feature size must be at least 1, not "
			"%lld", (long long)feat);
		return -1;
	}
	int nc = recipe_n_candidates(r);
	int *order = malloc((size_t)nc * sizeof(*order));
	double *costs = malloc((size_t)nc * sizeof(*costs));
	int n = !order || !costs ? -1 : r == STIR_TUNE_SPMM ?
		stir_spmm_hybrid_model_rank(a, feat, n_sms, order, costs) :
		recipe_block(r) ? stir_bsr_rank(recipe_block(r), a, feat, order,
		costs) : stir_sddmm_rank(r, a, feat, n_sms, order, costs);
	int best = n > 0 ? order[0] : -1;
	double best_cost = n > 0 ? costs[0] : 0;
	free(order);
	free(costs);
	if (n < 0) {
		stir_error_oom(ctx);
		return -1;
	}
	if (best < 0) {
		stir_error(ctx, k->loc, "no candidate of the recipe for kernel "
			"'%s' applies at %lld features", k->name, (long long)feat);
		return -1;
	}
	int rc = stir_tune_apply_candidate(k, feat, best);
	if (rc == 0 && cand)
		*cand = best;
	if (rc == 0 && cost)
		*cost = best_cost;
	return rc;
}

/* k, h, feat, tf32, cand, cost: see recipes.h. */
int stir_tune_model_apply_hetero(stir_kernel *k, const stir_hetero *h,
	int64_t feat, bool tf32, int *cand, double *cost)
{
	stir_tune_recipe r = stir_kernel_get_tune_recipe(k);
	if (!k || !h)
		return -1;
	if (!stir_tune_recipe_is_hetero(r)) {
		stir_error(stir_kernel_ctx(k), k->loc, "kernel '%s' is not an RGMS "
			"kernel a recipe covers (rgms_agg of examples/rgms_agg.stir, "
			"rgms_edge of examples/rgms_edge.stir)", k->name);
		return -1;
	}
	if (r == STIR_TUNE_RGMS && tf32)
		r = STIR_TUNE_RGMS_TF32;
	int order[64];
	double costs[64];
	int n = stir_rgms_rank(r, h, feat, order, costs);
	if (n < 1) {
		stir_error(stir_kernel_ctx(k), k->loc, "no candidate of the recipe "
			"for kernel '%s' applies at %lld features (fin = fout, a "
			"multiple of 4 from 16 to 128)", k->name, (long long)feat);
		return -1;
	}
	int rc = stir_tune_apply_candidate(k, feat, order[0]);
	if (rc == 0 && cand)
		*cand = order[0];
	if (rc == 0 && cost)
		*cost = costs[0];
	return rc;
}

/* k, feat, cand: an RGMS recipe's candidate "cand" applied to k (recipe
 * r): rgms_agg's CUDA-core candidates, then its tensor-core ones; or
 * rgms_edge's. */
static int apply_rgms(stir_kernel *k, stir_tune_recipe r, int64_t feat,
	int cand)
{
	int n_cuda = stir_rgms_n_candidates();
	const stir_rgms_candidate *c = stir_rgms_get_candidate(cand);
	const stir_rgms_tc_candidate *t = stir_rgms_tc_get_candidate(cand -
		n_cuda);
	const stir_rgms_edge_candidate *e = stir_rgms_edge_get_candidate(cand);
	bool fits = r == STIR_TUNE_RGMS_EDGE ? stir_rgms_edge_fits(e, feat) :
		c ? stir_rgms_fits(c, feat) : stir_rgms_tc_fits(t, feat);
	if (!fits) {
		stir_error(stir_kernel_ctx(k), k->loc, "candidate %d does not "
			"apply to kernel '%s' at %lld features", cand, k->name,
			(long long)feat);
		return -1;
	}
	stir_kernel_set_schedule_log(k, true);
	return r == STIR_TUNE_RGMS_EDGE ? stir_recipe_rgms_edge_candidate(k, e,
		feat) : c ? stir_recipe_rgms_candidate(k, c, feat) :
		stir_recipe_rgms_tc_candidate(k, t, feat);
}

/* k, feat, cand: see recipes.h. */
int stir_tune_apply_candidate(stir_kernel *k, int64_t feat, int cand)
{
	stir_tune_recipe r = stir_kernel_get_tune_recipe(k);
	if (stir_tune_recipe_is_hetero(r))
		return apply_rgms(k, r, feat, cand);
	if (recipe_block(r)) {
		const stir_bsr_tc_candidate *b = stir_bsr_tc_get_candidate(cand);
		if (!b || b->block != recipe_block(r) ||
		    !stir_bsr_tc_fits(b, feat)) {
			stir_error(stir_kernel_ctx(k), k->loc, "candidate %d does not "
				"apply to kernel '%s' (blocks of %lld) at %lld features",
				cand, k->name, (long long)recipe_block(r),
				(long long)feat);
			return -1;
		}
		stir_kernel_set_schedule_log(k, true);
		return stir_recipe_bsr_tc_candidate(k, b, feat);
	}
	const stir_spmm_hybrid_candidate *p = stir_spmm_hybrid_get_candidate(cand);
	const stir_sddmm_candidate *q = stir_sddmm_get_candidate(cand);
	const stir_sddmm_vblock_candidate *v =
		stir_sddmm_vblock_get_candidate(cand);
	if (r == STIR_TUNE_SDDMM_TILES) {
		const stir_sddmm_tiles_candidate *t =
			stir_sddmm_tiles_get_candidate(cand);
		if (!t || !stir_sddmm_tiles_fits(t, feat)) {
			stir_error(stir_kernel_ctx(k), k->loc, "candidate %d does "
				"not apply to kernel '%s' (the SDDMM over tiles) at "
				"%lld features", cand, k->name, (long long)feat);
			return -1;
		}
		stir_kernel_set_schedule_log(k, true);
		return stir_recipe_sddmm_tiles_candidate(k, t, feat);
	}
	if (recipe_rows(r)) {
		if (!v || v->rows != recipe_rows(r) || feat < 1) {
			stir_error(stir_kernel_ctx(k), k->loc, "candidate %d does "
				"not apply to kernel '%s' (groups of %lld rows) at "
				"%lld features", cand, k->name,
				(long long)recipe_rows(r), (long long)feat);
			return -1;
		}
		stir_kernel_set_schedule_log(k, true);
		return stir_recipe_sddmm_vblock_candidate(k, v, feat);
	}
	if (r == STIR_TUNE_NONE || feat < 1 || (r == STIR_TUNE_SPMM ? !p ||
	    !stir_spmm_hybrid_fits(p, feat) : !q || q->rows !=
	    (r == STIR_TUNE_SDDMM_ROWS))) {
		if (k)
			stir_error(stir_kernel_ctx(k), k->loc, "candidate %d does not "
				"apply to kernel '%s' at %lld features", cand, k->name,
				(long long)feat);
		return -1;
	}
	stir_kernel_set_schedule_log(k, true);
	if (r == STIR_TUNE_SPMM) {
		return stir_recipe_spmm_hybrid_candidate(k, p, feat);
	}
	return stir_recipe_sddmm_candidate(k, q, feat);
}
