/* The cost model of the SDDMM candidates (docs/recipes.md, "The SDDMM
 * cost model"): an estimate of a candidate's time on a matrix at a
 * feature size, from the bytes it moves (the gathered rows of Y, with the
 * share L2 holds, X's rows, the indices, S) over the bandwidth its
 * threads in flight can draw, and the serial steps of its threads: a
 * non-zero's vectors per lane and shuffles, the fused schedule's row
 * search per vector, the row schedule's steps of fm.nnz non-zeros per row
 * (the last one part idle), its copy of X's row and barrier, and the
 * waves of thread blocks over the SMs.  The figures are relative: only
 * the order of the candidates matters. */
#include <stdlib.h>
#include <stir/recipes.h>
#include "formats/format_internal.h"
#include "schedule/recipes/rank.h"

/* Modeled machine: H100-like bandwidth (bytes per ns) and L2 size. */
#define DRAM_BW 3000.0
#define L2_BYTES (50.0 * 1024 * 1024)
#define L1_BYTES (128.0 * 1024)  /* what a thread block's rows of Y keep */

/* The model's weights (ns, bytes per ns, shares). */
typedef struct weights {
	double load;       /* a gather's latency, a serial step */
	double issue;      /* a vector load or shuffle issued */
	double search;     /* a step of the fused row search */
	double block;      /* a thread block's start, copy, barrier */
	double sm_bw;      /* bytes per ns one SM draws from L2 */
	double l2_bw;      /* a gather that hits L2, against DRAM */
	double blend;      /* the smaller of the memory and latency sides'
	                      share of the estimate */
} weights;

/* The candidates' weights, fitted by bench/model_fit_sddmm.py on the
 * H100's and the H200's exhaustive searches together (docs/recipes.md);
 * the group candidates' are the hand-set ones those started from (no
 * search of them to fit on). */
static const weights fitted = { 100.0, 5.6, 80.0, 1200.0, 28.5714, 0.0134,
	1.0 };
static const weights by_hand = { 400.0, 4.0, 20.0, 300.0, 40.0, 0.3, 0.25 };

/* x: ceil(log2(x)) for x >= 1. */
static double log2_ceil(int64_t x)
{
	double l = 0;
	for (int64_t v = 1; v < x; v *= 2)
		l += 1;
	return l;
}

/* The serial side of a launch, as both models count it. */
typedef struct steps {
	double blocks;     /* thread blocks */
	double threads;    /* threads a block */
	double work;       /* the blocks' serial steps (ns), all together */
	double longest;    /* the slowest block's */
	double busy;       /* the lanes' useful steps ... */
	double used;       /* ... of those they take (0: all useful) */
	double block_wt;   /* the share of w->block a wave of blocks costs */
} steps;

/* mem_ns, st, n_sms, w: the estimate of a launch that moves its bytes in
 * mem_ns at full bandwidth: the threads in flight against the GPU's
 * room of n_sms multiprocessors (lanes idle in a block's last step draw
 * nothing) slow the bytes down; the steps of st over the thread slots,
 * the longest block's and the waves of blocks are the latency; the
 * larger of the two plus w->blend of the smaller. */
static double estimate(double mem_ns, const steps *st, int n_sms,
	const weights *w)
{
	double resident = 2048.0 / st->threads;
	if (resident > 32)
		resident = 32;
	double slots = (double)n_sms * resident;
	double fill = st->blocks * st->threads / ((double)n_sms * 2048);
	if (st->used > 0)
		fill *= st->busy / st->used;
	if (fill > 1)
		fill = 1;
	mem_ns /= fill < 0.1 ? 0.1 : fill;
	double lat_ns = st->work / slots + st->longest +
		st->blocks / slots * w->block * st->block_wt;
	return mem_ns > lat_ns ? mem_ns + w->blend * lat_ns :
		lat_ns + w->blend * mem_ns;
}

static int64_t group_columns(const stir_csr *a, int64_t rows, int64_t *cols);

/* a, fm, nz_steps, n_sms, w: the row tile schedule's estimate (the row
 * schedule's terms over tiles of fm.row_tile rows, one lane a non-zero,
 * X's row from global memory): a tile's serial steps are its longest
 * row's; the bytes from L2 are Y's rows of each tile's union of columns
 * (the tile's rows find each other's rows of Y in L1) where they fit in
 * L1, else every non-zero's.  -1 when memory runs out. */
static double row_tile_cost(const stir_csr *a, stir_sddmm_map fm,
	double nz_steps, int n_sms, const weights *w)
{
	int64_t R = fm.row_tile, nt = (a->nrows + R - 1) / R;
	int64_t *cols = malloc((size_t)nt * sizeof(*cols));
	int64_t total = cols ? group_columns(a, R, cols) : -1;
	if (total < 0) {
		free(cols);
		return -1;
	}
	double f = (double)fm.feat, work = 0, longest = 0, busy = 0, used = 0;
	double gathered = 0;
	for (int64_t t = 0; t < nt; t++) {
		int64_t r1 = (t + 1) * R < a->nrows ? (t + 1) * R : a->nrows;
		int64_t most = 0, d_all = 0;
		for (int64_t i = t * R; i < r1; i++) {
			int64_t d = a->indptr[i + 1] - a->indptr[i];
			int64_t st = (d + fm.nnz - 1) / fm.nnz;
			most = st > most ? st : most;
			busy += (double)d;
			used += (double)(st * fm.nnz);
			d_all += d;
		}
		double s = (double)most * nz_steps +
			(double)d_all * f * 4 / w->sm_bw;
		work += s;
		longest = s > longest ? s : longest;
		gathered += (double)cols[t] * f * 4 <= L1_BYTES ?
			(double)cols[t] : (double)d_all;
	}
	free(cols);
	double y_bytes = (double)a->ncols * f * 4;
	double hit = y_bytes <= L2_BYTES ? 1.0 : L2_BYTES / y_bytes;
	double gather = gathered * f * 4 * (hit * w->l2_bw + (1 - hit));
	double mem_ns = (gather + (double)a->nrows * f * 4 +
		(double)a->nnz * 8 + (double)a->nrows * 4) / DRAM_BW;
	steps st = { (double)nt, (double)(R * fm.nnz), work, longest, busy,
		used, 0.5 };
	return estimate(mem_ns, &st, n_sms, w);
}

/* p, a, feat, n_sms: see recipes.h. */
double stir_sddmm_model_cost(const stir_sddmm_candidate *p, const stir_csr *a,
	int64_t feat, int n_sms)
{
	if (!p || !a || feat < 1 || p->max_lanes < 1 || p->threads < 0 ||
	    a->nrows < 1)
		return -1;
	if (n_sms < 1)
		n_sms = 132;
	const weights *w = &fitted;
	stir_sddmm_map fm = stir_sddmm_candidate_map(p, feat);
	double f = (double)feat, nnz = (double)a->nnz;
	double threads = (double)(fm.lanes * fm.nnz);
	/* a non-zero's serial steps in each of its lanes: its vectors, the
	 * shuffles of the sum; the fused schedule searches the row once per
	 * vector */
	double vecs = f / (double)(fm.lanes * fm.vec);
	double nz_steps = w->load + w->issue * (vecs * 2 +
		log2_ceil(fm.lanes));
	if (!p->rows)
		nz_steps += w->search * log2_ceil(a->nrows + 1) +
			w->issue * vecs * log2_ceil(a->nrows + 1);
	if (fm.row_tile > 0)
		return row_tile_cost(a, fm, nz_steps, n_sms, w);
	/* thread blocks, and the steps of the slowest and of all */
	double blocks, work = 0, longest = 0, busy = 0, used = 0;
	/* with chunks, a row's steps shared by that many blocks, each
	 * copying X's row */
	int64_t nc = fm.chunks > 1 ? fm.chunks : 1;
	if (p->rows) {
		blocks = (double)(a->nrows * nc);
		for (int64_t i = 0; i < a->nrows; i++) {
			int64_t d = a->indptr[i + 1] - a->indptr[i];
			int64_t all = (d + fm.nnz - 1) / fm.nnz;
			double steps = (double)((all + nc - 1) / nc);
			/* the copy of X's row (none when it is read from
			 * global memory) and a long row's gathers, all on one
			 * SM */
			double s = steps * nz_steps +
				(p->x_global ? 0 : w->load) +
				(double)d * f * 4 / w->sm_bw / (double)nc;
			work += s * (double)nc;
			busy += (double)d;
			used += steps * (double)(fm.nnz * nc);
			if (s > longest)
				longest = s;
		}
	} else {
		blocks = (nnz + (double)fm.nnz - 1) / (double)fm.nnz;
		if (blocks < 1)
			blocks = 1;
		work = blocks * (nz_steps + (double)fm.nnz * f * 4 / w->sm_bw);
		busy = nnz;
		used = blocks * (double)fm.nnz;
		longest = nz_steps + (double)fm.nnz * f * 4 / w->sm_bw;
	}
	/* bytes: Y's rows gathered (L2 holds a share of Y), X's rows (once
	 * a row in the row schedule; per non-zero, mostly L2 hits, fused),
	 * the indices, S */
	double y_bytes = (double)a->ncols * f * 4;
	double hit = y_bytes <= L2_BYTES ? 1.0 : L2_BYTES / y_bytes;
	double gather = nnz * f * 4 * (hit * w->l2_bw + (1 - hit));
	double x_bytes = p->rows ? (double)(a->nrows * nc) * f * 4 :
		(double)a->nrows * f * 4 + nnz * f * 4 * w->l2_bw * 0.5;
	double mem_ns = (gather + x_bytes + nnz * 8 +
		(double)a->nrows * 4) / DRAM_BW;
	steps st = { blocks, threads, work, longest, busy, used,
		p->rows && !p->x_global ? 1.0 : 0.5 };
	return estimate(mem_ns, &st, n_sms, w);
}

/* i, arg (none), a, feat, n_sms: the SDDMM model's cost of candidate i. */
static double sddmm_cost(int i, const void *arg, const stir_csr *a,
	int64_t feat, int n_sms)
{
	return stir_sddmm_model_cost(stir_sddmm_get_candidate(i), a, feat,
		n_sms);
}

/* a, feat, n_sms, order, costs: see recipes.h. */
int stir_sddmm_model_rank(const stir_csr *a, int64_t feat, int n_sms,
	int *order, double *costs)
{
	return recipe_rank(stir_sddmm_n_candidates(), sddmm_cost, NULL, a, feat,
		n_sms, order, costs);
}

/* a, rows, cols: the number of columns of each group of "rows"
 * consecutive rows of a (the union of theirs, as stir_csr_to_row_groups
 * groups them) into cols[b]; the total, or -1 when memory runs out. */
static int64_t group_columns(const stir_csr *a, int64_t rows, int64_t *cols)
{
	int64_t ng = (a->nrows + rows - 1) / rows, total = 0;
	int64_t *mark = malloc((size_t)(a->ncols > 0 ? a->ncols : 1) *
		sizeof(*mark));
	if (!mark)
		return -1;
	for (int64_t c = 0; c < a->ncols; c++)
		mark[c] = -1;
	for (int64_t b = 0; b < ng; b++) {
		int64_t r1 = (b + 1) * rows < a->nrows ? (b + 1) * rows : a->nrows;
		cols[b] = fmt_group_union(a->indptr, a->indices, b * rows, r1, b,
			mark, NULL);
		total += cols[b];
	}
	free(mark);
	return total;
}

/* p, a, feat, n_sms: see recipes.h.  The row schedule's model (above)
 * over the groups: a group's columns are its "non-zeros", each one's
 * lanes load vectors of Y's row once and multiply them with the group's
 * rows (rows FMAs a vector, issued), their shuffles are rows per
 * halving of the lanes; the bytes are Y's rows of every group's columns,
 * X's rows, the slots written, and the gather of the slots into the
 * matrix's order (sddmm_vb_gather: a launch of its own, 12 bytes a
 * non-zero). */
double stir_sddmm_vblock_model_cost(const stir_sddmm_vblock_candidate *p,
	const stir_csr *a, int64_t feat, int n_sms)
{
	if (!p || !a || feat < 1 || p->rows < 1 || p->max_lanes < 1 ||
	    p->threads < 0 || a->nrows < 1)
		return -1;
	if (n_sms < 1)
		n_sms = 132;
	int64_t ng = (a->nrows + p->rows - 1) / p->rows;
	int64_t *cols = malloc((size_t)ng * sizeof(*cols));
	int64_t total = cols ? group_columns(a, p->rows, cols) : -1;
	if (total < 0) {
		free(cols);
		return -1;
	}
	const weights *w = &by_hand;
	stir_sddmm_map fm = stir_sddmm_vblock_candidate_map(p, feat);
	double f = (double)feat, R = (double)p->rows;
	double threads = (double)(fm.lanes * fm.nnz);
	double vecs = f / (double)(fm.lanes * fm.vec);
	/* a column's serial steps in each lane: its vector loads of Y (in
	 * flight together), a vector of X's rows from shared memory and
	 * the products for each, the shuffles of the group's sums */
	double col_steps = w->load + w->issue * (vecs * (1 + R * 0.5) +
		R * log2_ceil(fm.lanes));
	/* with chunks, a group's steps shared by that many blocks, each
	 * copying X's rows of the group */
	int64_t nc = fm.chunks > 1 ? fm.chunks : 1;
	double work = 0, longest = 0, busy = 0, used = 0;
	for (int64_t b = 0; b < ng; b++) {
		int64_t all = (cols[b] + fm.nnz - 1) / fm.nnz;
		double steps = (double)((all + nc - 1) / nc);
		double s = steps * col_steps + w->load +
			(double)cols[b] * f * 4 / w->sm_bw / (double)nc;
		work += s * (double)nc;
		busy += (double)cols[b];
		used += (double)all * (double)fm.nnz;
		if (s > longest)
			longest = s;
	}
	free(cols);
	double y_bytes = (double)a->ncols * f * 4;
	double hit = y_bytes <= L2_BYTES ? 1.0 : L2_BYTES / y_bytes;
	double gather = (double)total * f * 4 * (hit * w->l2_bw + (1 - hit));
	double mem_ns = (gather + (double)(ng * nc) * R * f * 4 +
		(double)total * 4 + (double)total * R * 4) / DRAM_BW;
	steps st = { (double)(ng * nc), threads, work, longest, busy, used,
		1.0 };
	double gather_ns = (double)a->nnz * 12 / DRAM_BW + w->block;
	return estimate(mem_ns, &st, n_sms, w) + gather_ns;
}

/* i, arg (none), a, feat, n_sms: the model's cost of group candidate
 * i. */
static double vblock_cost(int i, const void *arg, const stir_csr *a,
	int64_t feat, int n_sms)
{
	return stir_sddmm_vblock_model_cost(stir_sddmm_vblock_get_candidate(i),
		a, feat, n_sms);
}

/* a, feat, n_sms, order, costs: see recipes.h. */
int stir_sddmm_vblock_model_rank(const stir_csr *a, int64_t feat, int n_sms,
	int *order, double *costs)
{
	return recipe_rank(stir_sddmm_vblock_n_candidates(), vblock_cost, NULL,
		a, feat, n_sms, order, costs);
}

/* ---- the SDDMM over tiles ---- */

/* Hand-set costs (ns) of the tile kernels' steps: a piece's gathered
 * loads (issued together, one latency), a 3xTF32 step (three mma of a
 * dependent chain), a tile's store through Dst (128 slots, Dst read
 * first), and the sum of the copies in shared memory of the features
 * over warps (zeroing, a barrier, the sum, each a window). */
#define TILE_LOAD_NS 500.0
#define TILE_MMA_NS 40.0
#define TILE_STORE_NS 400.0
#define TILE_KWARPS_NS 4000.0
/* and an SM's throughput of tile steps (ns a step of one tile, its loads
 * through L1 and its mma), however the steps are spread over its warps */
#define TILE_SM_STEP_NS 60.0

/* p, a, feat, n_sms: see recipes.h.  A window of 8 rows is a thread
 * block of 32 x warps x kwarps threads; its groups (its union of
 * columns, 16 a group) go warps x groups at a time (rounds); a round of
 * a warp is, per piece of its steps, one load latency and the piece's
 * mma over its groups, then the groups' stores.  The bytes: Y's rows of
 * every tile's 16 columns (the share L2 holds), X's rows of a window
 * once per warp that runs a round, the tiles' slots stored and Dst read
 * (8 bytes a slot), and the SMs' throughput of tile steps (every tile's
 * feat / 8 steps spread over the SMs). */
double stir_sddmm_tiles_model_cost(const stir_sddmm_tiles_candidate *p,
	const stir_csr *a, int64_t feat, int n_sms)
{
	if (!p || !a || a->nrows < 1 || !stir_sddmm_tiles_fits(p, feat))
		return -1;
	if (n_sms < 1)
		n_sms = 132;
	int64_t nw = (a->nrows + 7) / 8;
	int64_t *cols = malloc((size_t)nw * sizeof(*cols));
	int64_t total = cols ? group_columns(a, 8, cols) : -1;
	if (total < 0) {
		free(cols);
		return -1;
	}
	const weights *w = &by_hand;
	double f = (double)feat;
	int64_t kw = stir_sddmm_tiles_kwarps(p, feat);
	int64_t n_steps = feat / 8 / kw, piece = stir_sddmm_tiles_piece(p, feat);
	int64_t at_once = p->warps * p->groups;
	double round = (double)(n_steps / piece) * TILE_LOAD_NS +
		(double)(n_steps * p->groups) * TILE_MMA_NS +
		(double)p->groups * TILE_STORE_NS;
	double work = 0, longest = 0, busy = 0, used = 0, groups = 0;
	double x_reads = 0;
	for (int64_t b = 0; b < nw; b++) {
		int64_t g = (cols[b] + 15) / 16;
		int64_t rounds = (g + at_once - 1) / at_once;
		double s = (double)rounds * round +
			(kw > 1 ? TILE_KWARPS_NS : 0);
		int64_t warps = (g + p->groups - 1) / p->groups;
		work += s;
		longest = s > longest ? s : longest;
		busy += (double)g;
		used += (double)(rounds * at_once);
		groups += (double)g;
		x_reads += (double)(warps < p->warps ? warps : p->warps) *
			(double)kw;
	}
	free(cols);
	double y_bytes = (double)a->ncols * f * 4;
	double hit = y_bytes <= L2_BYTES ? 1.0 : L2_BYTES / y_bytes;
	double gather = groups * 16 * f * 4 * (hit * w->l2_bw + (1 - hit));
	double mem_ns = (gather + x_reads * 8 * (f / (double)kw) * 4 +
		groups * 128 * 8) / DRAM_BW;
	/* a tensor-core warp's loads are many and independent: the bytes
	 * do not wait for threads in flight as a CUDA-core lane's do, so no
	 * fill factor (estimate's); the blocks' serial time over the SMs'
	 * slots, the longest's, and the SMs' throughput of tile steps */
	double resident = 2048.0 / (double)(32 * p->warps * kw);
	double slots = (double)n_sms * (resident > 32 ? 32 : resident);
	double lat_ns = work / slots + longest;
	(void)busy, (void)used;
	return (mem_ns > lat_ns ? mem_ns + w->blend * lat_ns :
		lat_ns + w->blend * mem_ns) +
		groups * (double)(feat / 8) * TILE_SM_STEP_NS / (double)n_sms;
}

/* i, arg (none), a, feat, n_sms: the model's cost of tile candidate i. */
static double tiles_cost(int i, const void *arg, const stir_csr *a,
	int64_t feat, int n_sms)
{
	(void)arg;
	return stir_sddmm_tiles_model_cost(stir_sddmm_tiles_get_candidate(i), a,
		feat, n_sms);
}

/* a, feat, n_sms, order, costs: see recipes.h. */
int stir_sddmm_tiles_model_rank(const stir_csr *a, int64_t feat, int n_sms,
	int *order, double *costs)
{
	return recipe_rank(stir_sddmm_tiles_n_candidates(), tiles_cost, NULL,
		a, feat, n_sms, order, costs);
}
