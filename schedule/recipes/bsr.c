/* BSR SpMM on tensor cores (kernel bsrmm of examples/bsrmm.stir, blocks
 * of 16, bench/bsrmm32.stir, 32, and bench/bsrmm64.stir, 64; f16 inputs, f32
 * accumulation on mma.m16n8k16; recipes.h, docs/recipes.md "BSR on
 * tensor cores").
 *
 * Every candidate reorders the block iteration to [i, j, bi, f, bj] (a
 * block row i, its blocks j, the block's rows bi, the features f, the
 * block's columns bj), binds block row i to blockIdx.x and the features,
 * "warp_feat" a warp, to blockIdx.y, copies each block of A and the 16
 * rows of B it meets into shared memory with cp.async, pipelined over
 * the blocks ("stages" deep, "batch" blocks a wait), and keeps a warp's
 * 16 x warp_feat strip of C in fragments:
 *  - blocks of 16, one warp (warps 1): the warp walks the row's blocks;
 *    bench/RESULTS.md "BSR on tensor cores: two blocks a wait";
 *  - blocks of 16, "warps" warps: the row's blocks split over the warps
 *    (threadIdx.y), each with its own shared slots and strip of partial
 *    sums, summed into C after the walk; "Several warps on a block row";
 *  - blocks of 32 or 64, one warp: each 16-row strip of the block a
 *    thread block (blockIdx.z), the block's 16-column pieces unrolled;
 *  - blocks of 32 or 64, block / 16 warps: a block row a thread block,
 *    its rows split [16, warps] so that warp w takes rows w, w + warps,
 *    .. (its 16-row "strip") and the warps' accumulators lie side by side
 *    in one local cache, each warp keeping its own fragments
 *    (docs/schedules.md "Accumulators split over warps"); A's block and
 *    B's rows copied once a block for all the warps, each copying a
 *    share.  Slower than the strips on small grids (a barrier a block),
 *    faster on large ones (B's rows read once, not once a strip):
 *    bench/RESULTS.md "BSR blocks of 32 and 64: the warps on a block
 *    row's rows";
 *  - blocks of 32 or 64, block / 32 warps (warp_rows 32): as the last,
 *    each warp on two fragments of rows, so that its 2 x 8 tiles print
 *    as an outer product (docs/cuda.md): per 16 columns A's 2 fragments
 *    and B's 8 loaded, then 16 mma, each B fragment serving 2.  Faster
 *    than the last on large grids of even rows, slower on skewed ones
 *    (half the warps on the longest row): bench/RESULTS.md "BSR blocks
 *    of 32 and 64: a warp's tiles as an outer product".
 * The names below are those the primitives give (docs/schedules.md); the
 * schedule log prints a candidate as the schedule file it is. */
#include <stdbool.h>
#include <stdlib.h>
#include <stir/stir.h>
#include <stir/recipes.h>
#include "schedule/recipes/steps.h"

/* The candidates: block, warps, rows a warp, features a warp, stages,
 * batch.  The ones the shape rule (stir_bsr_tc_pick) chooses from, in
 * its order; the first five won their cases in bench_bsr
 * (bench/RESULTS.md, the BSR sections); blocks of 32 take the strips of
 * blocks of 64. */
static const stir_bsr_tc_candidate candidates[] = {
	{ 16, 1, 16, 32, 4, 2 }, /* a warp a row, 32 features, two blocks a wait */
	{ 16, 1, 16, 64, 4, 1 }, /* a warp a row, 64 features */
	{ 16, 4, 16, 32, 4, 1 }, /* 4 warps a row, 32 features a warp */
	{ 16, 4, 16, 64, 2, 1 }, /* 4 warps a row, 64 features a warp */
	{ 64, 1, 16, 64, 4, 1 }, /* blocks of 64: a 16-row strip a block */
	{ 32, 1, 16, 64, 4, 1 }, /* blocks of 32: a 16-row strip a block */
	{ 64, 4, 16, 64, 3, 1 }, /* blocks of 64: a warp a strip of a row */
	{ 32, 2, 16, 64, 3, 1 }, /* blocks of 32: a warp a strip of a row */
	{ 64, 2, 32, 64, 3, 1 }, /* blocks of 64: a warp 32 rows of a row */
	{ 32, 1, 32, 64, 3, 1 }, /* blocks of 32: a warp a row */
};
#define N_CANDIDATES (int)(sizeof(candidates) / sizeof(candidates[0]))

/* The warps that keep the GPU busy: 8 on each of 132 multiprocessors. */
#define FULL_WARPS 1024

/* The count of candidates. */
int stir_bsr_tc_n_candidates(void)
{
	return N_CANDIDATES;
}

/* i: the candidate's index. */
const stir_bsr_tc_candidate *stir_bsr_tc_get_candidate(int i)
{
	return i >= 0 && i < N_CANDIDATES ? &candidates[i] : NULL;
}

/* b, mb, indptr, width: see recipes.h. */
int stir_bsr_tc_pick(int64_t b, int64_t mb, const int32_t *indptr,
	int64_t width)
{
	if (width < 32 || width % 32 || mb < 1 || !indptr ||
	    (b != 16 && b != 32 && b != 64))
		return -1;
	int64_t lmax = 0;
	for (int64_t i = 0; i < mb; i++)
		if (indptr[i + 1] - indptr[i] > lmax)
			lmax = indptr[i + 1] - indptr[i];
	int64_t mean = (indptr[mb] - indptr[0]) / mb;
	bool even = lmax <= mean + mean / 4 + 1;
	if (b == 64 || b == 32) {
		bool rows = mb * (width / 64) * (b / 16) >= FULL_WARPS;
		return width % 64 ? -1 : !rows ? (b == 64 ? 4 : 5) :
			even ? (b == 64 ? 8 : 9) : (b == 64 ? 6 : 7);
	}
	int64_t warps32 = mb * (width / 32);
	int64_t strips64 = width % 64 ? 0 : mb * (width / 64);
	if (strips64 >= FULL_WARPS && (even || lmax <= 64))
		return 1;
	if (32 * lmax <= warps32)
		return 0;
	if (strips64 && (even ? 2 * warps32 >= FULL_WARPS :
	    warps32 > FULL_WARPS))
		return 3;
	return 2;
}

/* p, feat: see recipes.h. */
bool stir_bsr_tc_fits(const stir_bsr_tc_candidate *p, int64_t feat)
{
	return p && (p->block == 16 || p->block == 32 || p->block == 64) &&
		p->warps >= 1 &&
		p->warp_feat >= 8 && p->warp_feat % 8 == 0 && feat > 0 &&
		feat % p->warp_feat == 0 && p->stages >= 2 && p->batch >= 1 &&
		(p->warp_rows == 16 ? p->block == 16 || p->warps == 1 ||
		 p->warps == p->block / 16 :
		 p->warp_rows == 32 && p->block != 16 &&
		 p->warps == p->block / 32);
}

/* k, loop, per: A's block and B's rows at "loop" copied into
 * shared memory by cp.async (a copy per iteration of "per" when not
 * NULL). */
static int stage_operands(stir_kernel *k, const char *loop, const char *per)
{
	return stir_cache_read_per(k, "bsrmm1", "B_data", loop,
			STIR_SCOPE_SHARED, per) < 0 ||
		stir_cache_read_per(k, "bsrmm1", "A_data", loop,
			STIR_SCOPE_SHARED, per) < 0 ||
		stir_tensorize(k, "B_data_shared", "ax0", "cp_async_16") < 0 ||
		stir_tensorize(k, "A_data_shared", "ax0", "cp_async_16") < 0 ?
		-1 : 0;
}

/* k, acc, inner: the accumulator's zeroing (acc_init) and store (acc)
 * nests tile by tile, the mma nest at loop "inner" of bsrmm1, all three
 * on mma.m16n8k16_f16 (the feature loop f_1 unrolled first). */
static int tensorize_acc(stir_kernel *k, const char *acc, const char *inner)
{
	char init[64];
	snprintf(init, sizeof(init), "%s_init", acc);
	return recipe_unroll_tiles(k, acc) < 0 ||
		stir_unroll(k, "bsrmm1", "f_1") < 0 ||
		stir_tensorize(k, init, "ax0", "mma_m16n8k16_f16") < 0 ||
		stir_tensorize(k, "bsrmm1", inner, "mma_m16n8k16_f16") < 0 ||
		stir_tensorize(k, acc, "ax0", "mma_m16n8k16_f16") < 0 ? -1 : 0;
}

/* k, p: stages II and III of a candidate of blocks of 16 (one warp or
 * p->warps). */
static int schedule16(stir_kernel *k, const stir_bsr_tc_candidate *p)
{
	const int64_t ff[] = { 0, p->warp_feat / 8, 8 }, fj[] = { 0, p->warps };
	bool one = p->warps == 1;
	const char *walk = one ? "j" : "j_0";
	if (stir_split(k, "bsrmm1", "f", 3, ff) < 0 ||
	    (!one && stir_split(k, "bsrmm1", "j", 2, fj) < 0) ||
	    (one ? REORDER(k, "bsrmm1", "f_0", "j", "f_1", "bi", "f_2", "bj") :
	     REORDER(k, "bsrmm1", "f_0", "j_1", "j_0", "f_1", "bi", "f_2",
		"bj")) < 0 ||
	    stir_bind(k, "bsrmm1", "i", STIR_BLOCK_X) < 0 ||
	    stir_bind(k, "bsrmm1", "f_0", STIR_BLOCK_Y) < 0 ||
	    stir_lower_sparse_buffer(k) < 0)
		return -1;
	if (one) {
		if (stir_cache_write_over_init(k, "bsrmm1", "C_data", "j",
			STIR_SCOPE_LOCAL) < 0 ||
		    stage_operands(k, "f_1", NULL) < 0 ||
		    tensorize_acc(k, "C_data_local", "bi") < 0)
			return -1;
	} else {
		/* the warps' partial strips of C in shared memory, a warp's
		 * in its fragments while it walks its blocks */
		if (stir_cache_write_per(k, "bsrmm1", "C_data", "j_1",
			STIR_SCOPE_SHARED, true, "j_1") < 0 ||
		    stir_cache_write(k, "bsrmm1", "C_data_shared", "j_0",
			STIR_SCOPE_LOCAL) < 0 ||
		    stage_operands(k, "f_1", "j_1") < 0 ||
		    tensorize_acc(k, "C_data_shared_local", "bi") < 0)
			return -1;
	}
	if ((p->batch > 1 ?
	     stir_software_pipeline_batched(k, "bsrmm1", walk, p->stages,
		p->batch) :
	     stir_software_pipeline(k, "bsrmm1", walk, p->stages)) < 0)
		return -1;
	if (one)
		return 0;
	/* each warp its own blocks, slots and strip; the strips zeroed and
	 * summed into C by the warps x 32 threads */
	const char *all[] = { "ax0", "ax1", "ax2" };
	const int64_t f32[] = { 0, 32 }, fw32[] = { 0, p->warps, 32 };
	return stir_bind(k, "bsrmm1", "j_1", STIR_THREAD_Y) < 0 ||
		stir_fuse(k, "C_data_shared_init", 3, all) < 0 ||
		stir_split(k, "C_data_shared_init", "ax0_ax1_ax2", 2, f32) < 0 ||
		stir_bind(k, "C_data_shared_init", "s", STIR_THREAD_Y) < 0 ||
		stir_bind(k, "C_data_shared_init", "ax0_ax1_ax2_1",
			STIR_THREAD_X) < 0 ||
		stir_fuse(k, "C_data_shared", 3, all) < 0 ||
		stir_split(k, "C_data_shared", "ax0_ax1_ax2", 3, fw32) < 0 ||
		stir_bind(k, "C_data_shared", "ax0_ax1_ax2_1",
			STIR_THREAD_Y) < 0 ||
		stir_bind(k, "C_data_shared", "ax0_ax1_ax2_2",
			STIR_THREAD_X) < 0 ? -1 : 0;
}

/* k, p: the loops of a candidate of blocks of 32 or 64, to stage III
 * with C's local cache at the blocks' loop j: the block's rows split into
 * 16-row strips, one a thread block (bi_0, blockIdx.z) outside j with one
 * warp; else [16, warps] with the warps' loop bi_1 inside j (warp w takes
 * rows w, w + warps, ..: its tiles side by side with the others'); with
 * 32 rows a warp [16, warps, 2] (warp bi_1 takes rows 2 bi_1 + bi_2 + 4
 * r, its two fragments bi_2 side by side with the other warp's), or
 * [16, 2] with one warp, the fragment loop just outside the feature loop
 * f_1 (cuda_mma_outer). */
static int split_block(stir_kernel *k, const stir_bsr_tc_candidate *p)
{
	bool tile = p->warp_rows == 32, one = p->warps == 1;
	bool strips = one && !tile;
	const int64_t ff[] = { 0, p->warp_feat / 8, 8 };
	const int64_t f16[] = { p->block / 16, 16 }, fw[] = { 16, p->warps };
	const int64_t fw2[] = { 16, p->warps, 2 }, f2[] = { 16, 2 };
	const int64_t *fb = strips ? f16 : !tile ? fw : one ? f2 : fw2;
	int rc = stir_split(k, "bsrmm1", "f", 3, ff) < 0 ||
		stir_split(k, "bsrmm1", "bi", tile && !one ? 3 : 2, fb) < 0 ||
		stir_split(k, "bsrmm1", "bj", 2, f16) < 0 ? -1 : 0;
	if (rc == 0)
		rc = strips ? REORDER(k, "bsrmm1", "f_0", "bi_0", "j", "bj_0",
			"f_1", "bi_1", "f_2", "bj_1") :
		     !tile ? REORDER(k, "bsrmm1", "f_0", "j", "bi_1", "bj_0",
			"f_1", "bi_0", "f_2", "bj_1") :
		     one ? REORDER(k, "bsrmm1", "f_0", "j", "bj_0", "bi_1",
			"f_1", "bi_0", "f_2", "bj_1") :
		     REORDER(k, "bsrmm1", "f_0", "j", "bi_1", "bj_0", "bi_2",
			"f_1", "bi_0", "f_2", "bj_1");
	return rc < 0 ||
		stir_bind(k, "bsrmm1", "i", STIR_BLOCK_X) < 0 ||
		stir_bind(k, "bsrmm1", "f_0", STIR_BLOCK_Y) < 0 ||
		(strips && stir_bind(k, "bsrmm1", "bi_0", STIR_BLOCK_Z) < 0) ||
		stir_lower_sparse_buffer(k) < 0 ||
		stir_cache_write_over_init(k, "bsrmm1", "C_data", "j",
			STIR_SCOPE_LOCAL) < 0 ? -1 : 0;
}

/* The accumulator's zeroing and store nests (C's local cache at j). */
static const char *const acc_nests[] = { "C_data_local_init",
	"C_data_local" };

/* k, p: the accumulator's nests and the products of split_block's
 * warps on mma.m16n8k16 (the loops around them unrolled before), the
 * blocks' loop j pipelined. */
static int tensorize_products(stir_kernel *k, const stir_bsr_tc_candidate *p)
{
	return stir_tensorize(k, acc_nests[0], "ax0", "mma_m16n8k16_f16") < 0 ||
		stir_tensorize(k, "bsrmm1", "bi_0", "mma_m16n8k16_f16") < 0 ||
		stir_tensorize(k, acc_nests[1], "ax0", "mma_m16n8k16_f16") < 0 ||
		stir_software_pipeline(k, "bsrmm1", "j", p->stages) < 0 ? -1 : 0;
}

/* k, b_loop, a_loop: the warps' loop bi_1 and the accumulator's nests'
 * ax1 bound to threadIdx.y, and the copies' loops b_loop of B's and
 * a_loop of A's, each warp copying its share. */
static int bind_warps(stir_kernel *k, const char *b_loop, const char *a_loop)
{
	return stir_bind(k, "bsrmm1", "bi_1", STIR_THREAD_Y) < 0 ||
		stir_bind(k, acc_nests[0], "ax1", STIR_THREAD_Y) < 0 ||
		stir_bind(k, acc_nests[1], "ax1", STIR_THREAD_Y) < 0 ||
		stir_bind(k, "B_data_shared", b_loop, STIR_THREAD_Y) < 0 ||
		stir_bind(k, "A_data_shared", a_loop, STIR_THREAD_Y) < 0 ? -1 : 0;
}

/* k, p: stages II and III of a candidate of blocks of 32 or 64 (16-row
 * strips). */
static int schedule_strips(stir_kernel *k, const stir_bsr_tc_candidate *p)
{
	return split_block(k, p) < 0 ||
		stage_operands(k, "bj_0", NULL) < 0 ||
		stir_unroll(k, "bsrmm1", "bj_0") < 0 ||
		tensorize_acc(k, "C_data_local", "bi_1") < 0 ||
		stir_software_pipeline(k, "bsrmm1", "j", p->stages) < 0 ? -1 : 0;
}

/* k, p: stages II and III of a candidate of blocks of 32 or 64 with a
 * warp on each of a block row's block / 16 strips of rows: A's block and
 * B's rows copied at j for all the warps, each copying a share. */
static int schedule_rows(stir_kernel *k, const stir_bsr_tc_candidate *p)
{
	const int64_t fa[] = { p->warps, 0 };
	if (split_block(k, p) < 0 ||
	    stir_cache_read(k, "bsrmm1", "B_data", "bi_1",
		STIR_SCOPE_SHARED) < 0 ||
	    stir_cache_read(k, "bsrmm1", "A_data", "bi_1",
		STIR_SCOPE_SHARED) < 0 ||
	    stir_split(k, "A_data_shared", "ax0", 2, fa) < 0 ||
	    stir_tensorize(k, "B_data_shared", "ax1", "cp_async_16") < 0 ||
	    stir_tensorize(k, "A_data_shared", "ax0_1", "cp_async_16") < 0)
		return -1;
	/* the accumulator's nests: warp, tile, rows, columns */
	for (int i = 0; i < 2; i++)
		if (REORDER(k, acc_nests[i], "ax1", "ax2", "ax0", "ax3") < 0 ||
		    stir_unroll(k, acc_nests[i], "ax2") < 0)
			return -1;
	return stir_unroll(k, "bsrmm1", "bj_0") < 0 ||
		stir_unroll(k, "bsrmm1", "f_1") < 0 ||
		tensorize_products(k, p) < 0 ||
		bind_warps(k, "ax0", "ax0_0") < 0 ? -1 : 0;
}

/* k, p: stages II and III of a candidate of blocks of 32 or 64 with a
 * warp on 32 of a block row's rows in two fragments (split_block), both
 * the fragment loop and the feature loop unrolled, so that the emitter
 * prints the warp's tiles as an outer product (cuda_mma_outer).  A's
 * block and B's rows copied at the warps' loop (at bj_0 with one warp),
 * each warp copying its own rows of A and a share of B's. */
static int schedule_tile(stir_kernel *k, const stir_bsr_tc_candidate *p)
{
	bool one = p->warps == 1;
	const int64_t fb[] = { p->warps, 0 };
	if (split_block(k, p) < 0)
		return -1;
	if (one ? stage_operands(k, "bj_0", NULL) < 0 :
	    stir_cache_read(k, "bsrmm1", "B_data", "bi_1",
		STIR_SCOPE_SHARED) < 0 ||
	    stir_cache_read(k, "bsrmm1", "A_data", "bi_1",
		STIR_SCOPE_SHARED) < 0 ||
	    REORDER(k, "A_data_shared", "ax1", "ax0") < 0 ||
	    stir_split(k, "B_data_shared", "ax0", 2, fb) < 0 ||
	    stir_tensorize(k, "B_data_shared", "ax0_1", "cp_async_16") < 0 ||
	    stir_tensorize(k, "A_data_shared", "ax0", "cp_async_16") < 0)
		return -1;
	/* the accumulator's nests: (warp,) fragment, tile, rows, columns */
	for (int i = 0; i < 2; i++)
		if ((one ? REORDER(k, acc_nests[i], "ax1", "ax2", "ax0", "ax3") :
		     REORDER(k, acc_nests[i], "ax1", "ax2", "ax3", "ax0",
			"ax4")) < 0 ||
		    stir_unroll(k, acc_nests[i], one ? "ax1" : "ax2") < 0 ||
		    stir_unroll(k, acc_nests[i], one ? "ax2" : "ax3") < 0)
			return -1;
	if (stir_unroll(k, "bsrmm1", "bj_0") < 0 ||
	    stir_unroll(k, "bsrmm1", one ? "bi_1" : "bi_2") < 0 ||
	    stir_unroll(k, "bsrmm1", "f_1") < 0 ||
	    tensorize_products(k, p) < 0)
		return -1;
	return one ? 0 : bind_warps(k, "ax0_0", "ax1");
}

/* k, p, feat: see recipes.h. */
int stir_recipe_bsr_tc_candidate(stir_kernel *k,
	const stir_bsr_tc_candidate *p, int64_t feat)
{
	if (!k)
		return -1;
	if (!stir_bsr_tc_fits(p, feat))
		return recipe_refuse(k, "stir_recipe_bsr_tc_candidate", p, feat,
			"a multiple of the candidate's features a warp");
	const char *order[] = { "i", "j", "bi", "f", "bj" };
	if (stir_specialize(k, "feat", feat) < 0 ||
	    stir_sparse_reorder(k, "bsrmm", 5, order) < 0 ||
	    stir_lower_sparse_iter(k) < 0)
		return -1;
	int rc = p->block == 16 ? schedule16(k, p) : p->warp_rows == 32 ?
		schedule_tile(k, p) : p->warps == 1 ? schedule_strips(k, p) :
		schedule_rows(k, p);
	return rc < 0 ? -1 : stir_kernel_prepare_for_gpu(k);
}

/* ---- the tuner's order (stir_bsr_rank) ---- */

/* a, block, mb: the block rows' pointers of a's BSR(block) structure (a
 * block stored when it holds an entry), mb + 1 of them (heap); NULL when
 * out of memory or past 32-bit counts. */
static int32_t *block_row_ptr(const stir_csr *a, int64_t block, int64_t mb)
{
	int64_t nb = (a->ncols + block - 1) / block;
	int32_t *ptr = malloc((size_t)(mb + 1) * sizeof(*ptr));
	int64_t *seen = malloc((size_t)(nb ? nb : 1) * sizeof(*seen));
	int64_t n = 0;
	for (int64_t j = 0; seen && j < nb; j++)
		seen[j] = -1;
	for (int64_t ib = 0; ptr && seen && ib < mb && n <= INT32_MAX; ib++) {
		ptr[ib] = (int32_t)n;
		int64_t end = (ib + 1) * block < a->nrows ? (ib + 1) * block :
			a->nrows;
		for (int64_t i = ib * block; i < end; i++)
			for (int64_t p = a->indptr[i]; p < a->indptr[i + 1]; p++) {
				int64_t bc = a->indices[p] / block;
				if (bc >= 0 && bc < nb && seen[bc] != ib) {
					seen[bc] = ib;
					n++;
				}
			}
	}
	free(seen);
	if (!ptr || n > INT32_MAX) {
		free(ptr);
		return NULL;
	}
	ptr[mb] = (int32_t)n;
	return ptr;
}

/* block, a, feat, order, costs: see recipes.h. */
int stir_bsr_rank(int64_t block, const stir_csr *a, int64_t feat,
	int *order, double *costs)
{
	if (!a || a->nrows < 1 || (block != 16 && block != 32 && block != 64))
		return -1;
	int64_t mb = (a->nrows + block - 1) / block;
	int32_t *ptr = block_row_ptr(a, block, mb);
	if (!ptr)
		return -1;
	int pick = stir_bsr_tc_pick(block, mb, ptr, feat);
	free(ptr);
	int n = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < N_CANDIDATES; i++) {
			if ((pass == 0) != (i == pick) ||
			    candidates[i].block != block ||
			    !stir_bsr_tc_fits(&candidates[i], feat))
				continue;
			if (costs)
				costs[n] = n;
			order[n++] = i;
		}
	return n;
}
