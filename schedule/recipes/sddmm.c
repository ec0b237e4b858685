/* The fast SDDMM schedules; see recipes.h and docs/schedules.md.
 *
 * The fused schedule (stir_recipe_sddmm).
 * The program's stage III nest is one loop over the non-zeros (ij) around
 * the loop over the features (k), the row of a non-zero found by a binary
 * search of J_indptr:
 *
 *   for ij in [0, nnz) { init: S_data[ij] = 0 }
 *   for ij in [0, nnz) for k in [0, feat)
 *     S_data[ij] += X_data[row(ij) * feat + k] * Y_data[J_indices[ij] * feat + k]
 *
 * The schedule, after the features become a literal (stir_specialize):
 *  1. decompose_reduction moves the init into the nest, before k: one
 *     launch, and S is written once where two launches would write it,
 *     read it and write it again;
 *  2. k splits into k_0 (serial), k_1 (the lanes) and k_2 (a vector),
 *     reordered to k_1, k_0, k_2: lane k_1 takes vectors k_1, k_1 + lanes,
 *     ..., so that the lanes of a non-zero read a contiguous piece of the
 *     rows at each step;
 *  3. ij splits into thread blocks of fm.nnz non-zeros; the split's guard
 *     goes on the init and inside the loops over the features, so every
 *     lane reaches the reduction;
 *  4. the reduction over k_1 is cross-thread (warp shuffles within the
 *     lanes of a non-zero, several non-zeros per warp when lanes < 32);
 *     ij_0, ij_1, k_1 are bound to blockIdx.x, threadIdx.y, threadIdx.x;
 *  5. the vec features of X and of Y that one k_2 loop multiplies are
 *     read into registers first (cache_read, local, at k_2), and the copy
 *     loops are vectorized: one float4 (float2) load each; the row search
 *     is then done once per vector, not once per feature.  A reduction
 *     loop cannot be vectorized itself (its lanes all add to one sum), but
 *     its loads can, through the cache.
 *
 * The row schedule (stir_recipe_sddmm_rows): at stage II the nest of
 * examples/sddmm_rows.stir is
 *
 *   for i in [0, m) { block sddmm0(vi) {
 *     for j in [0, len(vi)) for k in [0, feat)
 *       block sddmm1(vj, vk): S[vi, vj] += X[vi, vk] * Y[J[vi, vj], vk] } }
 *
 * and the init a nest of the same shape.  At stage II, where S and X are
 * indexed by the row (at stage III a flat position in S_data is not a
 * variable of the init):
 *  1. decompose_reduction moves the init into the row, before j: the
 *     init's own loop over the row's non-zeros stays inside its block;
 *  2. X's row is read into shared memory before j (cache_read), by all
 *     threads of the block (its copy loop split over threadIdx.y, .x);
 *  3. the init's j splits like the sum's (step 4), with a third loop of
 *     one iteration bound to threadIdx.x: lane 0 of a non-zero zeroes it,
 *     the lane that adds the shuffled sum into it afterwards, so no
 *     barrier is needed between the zeroing and the sum;
 *  4. k splits and reorders as in the fused schedule; j splits into
 *     j_0 (serial) and j_1 (threadIdx.y), i is bound to blockIdx.x: one
 *     row per thread block, fm.nnz of its non-zeros at a time;
 *  5. at stage III, the vector loads of X's row (from shared memory) and
 *     Y's row as in the fused schedule.
 * No search remains: the row is the thread block's.
 *
 * The row tile schedule (stir_recipe_sddmm_row_tile) gives a thread block
 * fm.row_tile consecutive rows side by side and each non-zero one thread:
 *  1. i splits into i_0 (blockIdx.x) and i_1 (threadIdx.y), a row's
 *     non-zeros j into j_0 (serial) and j_1 (fm.nnz of them, threadIdx.x),
 *     the features k into k_0 (serial, unrolled) and k_1 (a vector);
 *  2. at stage III, S is cached in a register at k_0 over the init
 *     (cache_write_over_init: the init nest goes, each sum is stored
 *     once, by the thread that made it, so no barrier and no shuffle);
 *  3. the vector loads of X's row (from global memory: one address across
 *     a row's threads, a broadcast) and of Y's rows as in the fused
 *     schedule.  A thread's loads of its non-zero's row of Y are many and
 *     independent (feat / vec of them), and the rows of a block, neighbours
 *     in a banded matrix, read many of the same rows of Y at about the
 *     same time, from L1. */
#include <stir/stir.h>
#include <stir/recipes.h>
#include "ir/diag.h"
#include "ir/nodes.h"
#include "schedule/recipes/steps.h"

/* feat, vec, max_lanes: the mapping with vectors of "vec" features and
 * at most max_lanes lanes. */
static stir_sddmm_map make_map(int64_t feat, int64_t vec, int64_t max_lanes)
{
	stir_sddmm_map fm = { feat, 1, vec, 0, 0, 0 };
	int64_t q = feat / vec;
	while (fm.lanes * 2 <= max_lanes && q % (fm.lanes * 2) == 0)
		fm.lanes *= 2;
	fm.nnz = 256 / fm.lanes;
	return fm;
}

/* feat, max_lanes: see recipes.h. */
stir_sddmm_map stir_sddmm_map_lanes(int64_t feat, int64_t max_lanes)
{
	int64_t vec = feat % 4 == 0 ? 4 : feat % 2 == 0 ? 2 : 1;
	return make_map(feat, vec, max_lanes < 32 ? max_lanes : 32);
}

/* feat: see recipes.h. */
stir_sddmm_map stir_sddmm_map_features(int64_t feat)
{
	return stir_sddmm_map_lanes(feat, 32);
}

/* k, block, buffer, loop, copy, copy_loop: stir_cache_read of "buffer"
 * at "loop" into local memory, with the copy block it made in *copy and
 * that block's loop in *copy_loop. */
static int cache_local(stir_kernel *k, const char *block, const char *buffer,
	const char *loop, const char **copy, const char **copy_loop)
{
	if (stir_cache_read(k, block, buffer, loop, STIR_SCOPE_LOCAL) < 0)
		return -1;
	*copy = stir_kernel_get_made(k, STIR_MADE_BLOCK, 0);
	*copy_loop = stir_kernel_get_made_from(k, STIR_MADE_LOOP, *copy, 0);
	return 0;
}

/* k, block, x, y, k2: the vector loads (step 5 of both schedules): the
 * features of X (buffer "x") and Y (buffer "y") that one k2 loop (k_2) of
 * block "block" multiplies copied to registers by vectorized loops, the
 * products unrolled. */
static int vector_loads(stir_kernel *k, const char *block, const char *x,
	const char *y, const char *k2)
{
	const char *xc, *xl, *yc, *yl;
	return cache_local(k, block, x, k2, &xc, &xl) < 0 ||
		cache_local(k, block, y, k2, &yc, &yl) < 0 ||
		stir_vectorize(k, xc, xl) < 0 ||
		stir_vectorize(k, yc, yl) < 0 ||
		stir_unroll(k, block, k2) < 0 ? -1 : 0;
}

/* k, block, loop, fm, kl, nz: the lanes of both schedules: the features k
 * of "block" split into kl[0] (k_0: serial, unrolled), kl[1] (k_1:
 * fm.lanes lanes on threadIdx.x, reduced across them) and kl[2] (k_2: a
 * vector of fm.vec, when fm.vec > 1), lane k_1 taking vectors k_1, k_1 +
 * lanes, ..; the non-zeros "loop" split into nz[0] and nz[1] (LOOP_0 and
 * LOOP_1), fm.nnz of them at a time on threadIdx.y (loop NULL: nz[0] and
 * nz[1] are the caller's, split already). */
static int lanes_per_nonzero(stir_kernel *k, const char *block,
	const char *loop, stir_sddmm_map fm, const char **kl, const char **nz)
{
	const int64_t fk3[] = { 0, fm.lanes, fm.vec }, fk2[] = { 0, fm.lanes };
	const int64_t fnz[] = { 0, fm.nnz };
	bool vec = fm.vec > 1;
	if (recipe_split(k, block, "k", vec ? 3 : 2, vec ? fk3 : fk2, kl) < 0)
		return -1;
	const char *k10[] = { kl[1], kl[0] };
	return stir_reorder(k, block, 2, k10) < 0 ||
		(loop && recipe_split(k, block, loop, 2, fnz, nz) < 0) ||
		stir_cross_thread_reduce(k, block, kl[1]) < 0 ||
		stir_bind(k, block, nz[1], STIR_THREAD_Y) < 0 ||
		stir_bind(k, block, kl[1], STIR_THREAD_X) < 0 ||
		stir_unroll(k, block, kl[0]) < 0 ? -1 : 0;
}

/* k, fm: see recipes.h. */
int stir_recipe_sddmm(stir_kernel *k, stir_sddmm_map fm)
{
	/* the features a literal, so that the splits of k need no guard; the
	 * graph's sizes stay parameters */
	const char *kl[3], *nz[2];
	if (stir_specialize(k, "feat", fm.feat) < 0 ||
	    stir_lower_sparse_iter(k) < 0)
		return -1;
	/* the block of the sum (the nest's one block) */
	const char *blk = stir_kernel_get_made(k, STIR_MADE_BLOCK, 0);
	if (stir_lower_sparse_buffer(k) < 0)
		return -1;
	const char *x = stir_kernel_get_made_from(k, STIR_MADE_BUFFER, "X", 0);
	const char *y = stir_kernel_get_made_from(k, STIR_MADE_BUFFER, "Y", 0);
	if (stir_decompose_reduction(k, blk, "k") < 0 ||
	    lanes_per_nonzero(k, blk, "ij", fm, kl, nz) < 0 ||
	    stir_bind(k, blk, nz[0], STIR_BLOCK_X) < 0)
		return -1;
	/* last, the GPU's stage III rewrites */
	return (fm.vec > 1 && vector_loads(k, blk, x, y, kl[2]) < 0) ||
		stir_kernel_prepare_for_gpu(k) < 0 ? -1 : 0;
}

/* k, block, fm, init, jl: the row's non-zeros j of "block" (the sum's,
 * or the init's when "init") cut into fm.chunks thread blocks: j split
 * {steps, chunks, fm.nnz}, the chunks outermost on blockIdx.y; jl[0] the
 * steps, jl[1] the fm.nnz non-zeros of a step (for threadIdx.y); the
 * init's split has a last loop of one iteration, jl[2] (for threadIdx.x,
 * as in the row schedule without chunks). */
static int row_chunks(stir_kernel *k, const char *block, stir_sddmm_map fm,
	bool init, const char **jl)
{
	const int64_t fjc[] = { 0, fm.chunks, fm.nnz, 1 };
	const char *l[4];
	if (recipe_split(k, block, "j", init ? 4 : 3, fjc, l) < 0 ||
	    stir_reorder(k, block, 2, (const char *[]){ l[1], l[0] }) < 0 ||
	    stir_bind(k, block, l[1], STIR_BLOCK_Y) < 0)
		return -1;
	jl[0] = l[0];
	jl[1] = l[2];
	if (init)
		jl[2] = l[3];
	return 0;
}

/* k, fm, x_shared: the row schedule (the file's header), X's row in
 * shared memory when x_shared.  Without it, each non-zero's lanes read
 * X's row from global memory (L1 hits after the row's first non-zeros),
 * so that no copy of it and no zeroed shared memory delay a short row's
 * gathers (one barrier, between S's zeroing and the sums, remains): for
 * small matrices, whose time is a few dependent loads. */
static int rows_schedule(stir_kernel *k, stir_sddmm_map fm, bool x_shared)
{
	/* the init's j_2 (one iteration) on threadIdx.x: lane 0 zeroes the
	 * element that it alone stores into after the shuffles */
	const int64_t fji[] = { 0, fm.nnz, 1 };
	const int64_t fx[] = { 0, fm.nnz, fm.lanes };
	const char *kl[3], *nz[2], *xl[3], *jl[3], *xs = NULL;
	bool chunks = fm.chunks > 1;
	if (stir_specialize(k, "feat", fm.feat) < 0 ||
	    stir_lower_sparse_iter(k) < 0)
		return -1;
	/* the nest's blocks: the row's, then the sum's; the init's over the
	 * row's non-zeros */
	const char *blk = stir_kernel_get_made(k, STIR_MADE_BLOCK, 1);
	const char *init = stir_kernel_get_made(k, STIR_MADE_INIT_BLOCK, 1);
	/* stage II, where S and X are indexed by the row */
	if (stir_decompose_reduction(k, blk, "j") < 0)
		return -1;
	/* with chunks, the row's steps of fm.nnz non-zeros taken in turn by
	 * fm.chunks thread blocks (blockIdx.y), the init's and the sum's
	 * alike, so that the thread that zeroes an element adds into it */
	const char *xat = "j";
	if (chunks && (row_chunks(k, blk, fm, false, nz) < 0 ||
	    row_chunks(k, init, fm, true, jl) < 0))
		return -1;
	if (chunks)
		xat = nz[0];
	if (x_shared) {
		if (stir_cache_read(k, blk, "X", xat, STIR_SCOPE_SHARED) < 0)
			return -1;
		xs = stir_kernel_get_made(k, STIR_MADE_BUFFER, 0);
		const char *xc = stir_kernel_get_made(k, STIR_MADE_BLOCK, 0);
		const char *xa = stir_kernel_get_made_from(k, STIR_MADE_LOOP,
			xc, 0);
		if (recipe_split(k, xc, xa, 3, fx, xl) < 0 ||
		    stir_bind(k, xc, xl[1], STIR_THREAD_Y) < 0 ||
		    stir_bind(k, xc, xl[2], STIR_THREAD_X) < 0)
			return -1;
	}
	if ((!chunks && recipe_split(k, init, "j", 3, fji, jl) < 0) ||
	    stir_bind(k, init, jl[1], STIR_THREAD_Y) < 0 ||
	    stir_bind(k, init, jl[2], STIR_THREAD_X) < 0 ||
	    lanes_per_nonzero(k, blk, chunks ? NULL : "j", fm, kl, nz) < 0 ||
	    stir_bind(k, blk, "i", STIR_BLOCK_X) < 0 ||
	    stir_lower_sparse_buffer(k) < 0)
		return -1;
	const char *y = stir_kernel_get_made_from(k, STIR_MADE_BUFFER, "Y", 0);
	if (!x_shared)
		xs = stir_kernel_get_made_from(k, STIR_MADE_BUFFER, "X", 0);
	/* last, the GPU's stage III rewrites */
	return (fm.vec > 1 && vector_loads(k, blk, xs, y, kl[2]) < 0) ||
		stir_kernel_prepare_for_gpu(k) < 0 ? -1 : 0;
}

/* k, fm: see recipes.h.  The nest of examples/sddmm_vb4.stir (vb8) at
 * stage II is the row schedule's with the loop g over the group's G = 4
 * (8) rows between j and k; the schedule is the row schedule's (X's rows
 * of the group in shared memory, the group's columns fm.nnz at a time on
 * threadIdx.y, fm.lanes lanes on threadIdx.x) with g moved inside the
 * lanes' vectors (k_1, k_0, g, k_2): each lane reads a vector of Y's row
 * once (cache_read at g) and multiplies it with the G rows of X, so the
 * sum over the lanes (cross_thread_reduce) is of a register array of G
 * elements, one a row (a cache of S at k_1, in registers).  The cache
 * takes over the init nest (cache_write_over_init: S is not zeroed
 * first), and is stored once after the lanes' shuffles: legal because
 * the init and the sum run over the same (group, column, row) points, and
 * each point's slot is its own (S[i, j, g], or S[Dst[i, j, g]] with Dst
 * distinct), so no two write-backs reach one element.  With fm.chunks >
 * 1 the group's steps of columns are split among that many thread blocks
 * (blockIdx.y, j = (j_0 * chunks + j_1) * nnz + j_2), each copying X's
 * rows: more blocks where the groups are too few to fill the GPU. */
int stir_recipe_sddmm_vblock(stir_kernel *k, stir_sddmm_map fm)
{
	const int64_t fk[] = { 0, fm.lanes, fm.vec }, fk2[] = { 0, fm.lanes };
	const int64_t fj[] = { 0, fm.nnz }, fx[] = { 0, fm.nnz, fm.lanes };
	const int64_t fjc[] = { 0, fm.chunks, fm.nnz };
	bool vec = fm.vec > 1, chunks = fm.chunks > 1;
	const char *kl[3], *jl[3], *xl[3];
	if (stir_specialize(k, "feat", fm.feat) < 0 ||
	    stir_lower_sparse_iter(k) < 0)
		return -1;
	const char *blk = stir_kernel_get_made(k, STIR_MADE_BLOCK, 1);
	/* with chunks, the group's steps of columns taken in turn by
	 * fm.chunks thread blocks (blockIdx.y), each with its own copy of
	 * X's rows: j split {steps, chunks, nnz}, the chunks outermost */
	const char *xat = "j";
	if (chunks && (recipe_split(k, blk, "j", 3, fjc, jl) < 0 ||
	    stir_reorder(k, blk, 2, (const char *[]){ jl[1], jl[0] }) < 0))
		return -1;
	if (chunks)
		xat = jl[0];
	if (stir_cache_read(k, blk, "X", xat, STIR_SCOPE_SHARED) < 0)
		return -1;
	/* the group's rows of X in shared memory, copied by all the block's
	 * threads */
	const char *xs = stir_kernel_get_made(k, STIR_MADE_BUFFER, 0);
	const char *xc = stir_kernel_get_made(k, STIR_MADE_BLOCK, 0);
	const char *xa[] = { stir_kernel_get_made_from(k, STIR_MADE_LOOP, xc, 0),
		stir_kernel_get_made_from(k, STIR_MADE_LOOP, xc, 1) };
	if (!xs || !xc || !xa[0] || !xa[1]) {
		stir_loc loc = { 0, 0, 0 };
		stir_ctx_report(stir_module_get_ctx(stir_kernel_get_module(k)),
			STIR_ERROR, loc, "stir_recipe_sddmm_vblock: kernel '%s' "
			"is not the SDDMM over groups of rows of "
			"examples/sddmm_vb4.stir (its X is not [I, G, K])",
			stir_kernel_get_name(k));
		return -1;
	}
	if (stir_fuse(k, xc, 2, xa) < 0)
		return -1;
	const char *xf = stir_kernel_get_made(k, STIR_MADE_LOOP, 0);
	if (!xf || recipe_split(k, xc, xf, 3, fx, xl) < 0 ||
	    stir_bind(k, xc, xl[1], STIR_THREAD_Y) < 0 ||
	    stir_bind(k, xc, xl[2], STIR_THREAD_X) < 0 ||
	    recipe_split(k, blk, "k", vec ? 3 : 2, vec ? fk : fk2, kl) < 0)
		return -1;
	const char *order[] = { kl[1], kl[0], "g" };
	if (stir_reorder(k, blk, 3, order) < 0 ||
	    (!chunks && recipe_split(k, blk, "j", 2, fj, jl) < 0) ||
	    stir_bind(k, blk, "i", STIR_BLOCK_X) < 0 ||
	    (chunks && stir_bind(k, blk, jl[1], STIR_BLOCK_Y) < 0) ||
	    stir_bind(k, blk, jl[chunks ? 2 : 1], STIR_THREAD_Y) < 0 ||
	    stir_unroll(k, blk, kl[0]) < 0 ||
	    stir_unroll(k, blk, "g") < 0 ||
	    stir_lower_sparse_buffer(k) < 0)
		return -1;
	const char *y = stir_kernel_get_made_from(k, STIR_MADE_BUFFER, "Y", 0);
	const char *s = stir_kernel_get_made_from(k, STIR_MADE_BUFFER, "S", 0);
	if (stir_cache_write_over_init(k, blk, s, kl[1], STIR_SCOPE_LOCAL) < 0 ||
	    stir_cross_thread_reduce(k, blk, kl[1]) < 0 ||
	    stir_bind(k, blk, kl[1], STIR_THREAD_X) < 0)
		return -1;
	if (vec) {
		const char *xc2, *xl2, *yc, *yl;
		if (cache_local(k, blk, y, "g", &yc, &yl) < 0 ||
		    cache_local(k, blk, xs, kl[2], &xc2, &xl2) < 0 ||
		    stir_vectorize(k, yc, yl) < 0 ||
		    stir_vectorize(k, xc2, xl2) < 0 ||
		    stir_unroll(k, blk, kl[2]) < 0)
			return -1;
	}
	return stir_kernel_prepare_for_gpu(k);
}

/* k, fm: see recipes.h. */
int stir_recipe_sddmm_rows(stir_kernel *k, stir_sddmm_map fm)
{
	return rows_schedule(k, fm, true);
}

/* k, fm: see recipes.h and the file's header. */
int stir_recipe_sddmm_row_tile(stir_kernel *k, stir_sddmm_map fm)
{
	const int64_t fi[] = { 0, fm.row_tile }, fj[] = { 0, fm.nnz };
	const int64_t fk[] = { 0, fm.vec };
	const char *il[2], *jl[2], *kl[2] = { "k", NULL };
	bool vec = fm.vec > 1;
	if (fm.lanes != 1 || fm.row_tile < 1 || fm.nnz < 1) {
		stir_error(stir_kernel_ctx(k), k->loc, "stir_recipe_sddmm_row_tile: "
			"kernel '%s' needs one lane a non-zero and at least one "
			"row and one non-zero a block (lanes %lld, row_tile %lld, "
			"nnz %lld)", k->name, (long long)fm.lanes,
			(long long)fm.row_tile, (long long)fm.nnz);
		return -1;
	}
	if (stir_specialize(k, "feat", fm.feat) < 0 ||
	    stir_lower_sparse_iter(k) < 0)
		return -1;
	/* the nest's blocks: the row's, then the sum's */
	const char *blk = stir_kernel_get_made(k, STIR_MADE_BLOCK, 1);
	if (recipe_split(k, blk, "i", 2, fi, il) < 0 ||
	    recipe_split(k, blk, "j", 2, fj, jl) < 0 ||
	    (vec && recipe_split(k, blk, "k", 2, fk, kl) < 0) ||
	    stir_bind(k, blk, il[0], STIR_BLOCK_X) < 0 ||
	    stir_bind(k, blk, il[1], STIR_THREAD_Y) < 0 ||
	    stir_bind(k, blk, jl[1], STIR_THREAD_X) < 0 ||
	    stir_unroll(k, blk, kl[0]) < 0 ||
	    stir_lower_sparse_buffer(k) < 0)
		return -1;
	const char *x = stir_kernel_get_made_from(k, STIR_MADE_BUFFER, "X", 0);
	const char *y = stir_kernel_get_made_from(k, STIR_MADE_BUFFER, "Y", 0);
	const char *s = stir_kernel_get_made_from(k, STIR_MADE_BUFFER, "S", 0);
	/* last, the GPU's stage III rewrites */
	return stir_cache_write_over_init(k, blk, s, kl[0],
		STIR_SCOPE_LOCAL) < 0 ||
		(vec && vector_loads(k, blk, x, y, kl[1]) < 0) ||
		stir_kernel_prepare_for_gpu(k) < 0 ? -1 : 0;
}

/* k, p, feat: see recipes.h. */
int stir_recipe_sddmm_candidate(stir_kernel *k, const stir_sddmm_candidate *p,
	int64_t feat)
{
	if (!p || feat < 1) {
		stir_loc loc = { 0, 0, 0 };
		if (k)
			stir_ctx_report(stir_module_get_ctx(
				stir_kernel_get_module(k)), STIR_ERROR, loc,
				"stir_recipe_sddmm_candidate: %s", !p ? "no "
				"candidate" : "the feature size must be at least 1");
		return -1;
	}
	stir_sddmm_map fm = stir_sddmm_candidate_map(p, feat);
	if (!p->rows)
		return stir_recipe_sddmm(k, fm);
	if (fm.row_tile > 0)
		return stir_recipe_sddmm_row_tile(k, fm);
	return rows_schedule(k, fm, !p->x_global);
}

/* ---- the candidate space ---- */

/* The first eight: the fused schedule, then the row schedule, with 32 to
 * 4 lanes at most and thread blocks of 256 threads.  The rest are for the
 * long rows of finite-element matrices and for small matrices, where
 * those eight leave threads idle: the row schedule with thread blocks of
 * 128 and 64 threads (fewer of a row's non-zeros at a time, so less of the
 * last step of a row of 50-100 non-zeros is wasted, and more thread blocks
 * resident per multiprocessor), and both schedules with 2 lanes at most
 * (more non-zeros per warp, more features per lane at short feature
 * sizes), the fused one also in blocks of 128 threads (twice the thread
 * blocks for a small matrix).  The last three are for the same matrices,
 * where those twenty still lost to cusparseSDDMM: rows whose lanes read
 * X's row from global memory instead of a shared copy (no copy: a small
 * matrix's short rows are a few dependent loads), in blocks of 64 and 32
 * threads; on an H100 they gain up to 10% on Bai_cryg2500, DIMACS10_data,
 * HB_zenios and HB_bcsstk33 at 32-128 features (bench/RESULTS.md, which
 * also has the thread blocks over several consecutive rows that were
 * tried for L1 reuse of Y's rows and never won: 2 or 4 one after
 * another, 4 to 16 side by side as whole warps on threadIdx.z).  The
 * last eight cut a row's non-zeros into 2 or 4 thread blocks (chunks on
 * blockIdx.y, each taking every chunks-th step of the row, each with its
 * own copy of X's row): for matrices of a few thousand rows of 30-100
 * non-zeros (HB_bcsstk13, FIDAP_ex6), where a row's steps one after
 * another are the kernel's latency and a row a block is about one wave
 * of the GPU.  The last three are the row tile schedule: 8, 4 or 2
 * consecutive rows a thread block, one thread a non-zero, 32 of a row's
 * non-zeros at a time (no shuffle; X's and Y's rows in float4 loads).
 * Built after cuSPARSE's block of 8 rows (bench/RESULTS.md, "what limits
 * them"), they are 1.2-3.9x slower than the best on the long rows (a
 * warp's vector load touches 32 rows of Y: L1's throughput bounds them)
 * but the fastest at 32 features on DIMACS10_data and HB_zenios (and tie
 * on Bai_cryg2500), small matrices of short rows where a non-zero's few
 * loads are its time (bench/RESULTS.md, "a thread block over consecutive
 * rows"); of the eight timed, the three that won or came within 1%. */
static const stir_sddmm_candidate candidates[] = {
	{ false, 32, 0, false, 0, 0 }, { false, 16, 0, false, 0, 0 },
	{ false, 8, 0, false, 0, 0 }, { false, 4, 0, false, 0, 0 },
	{ true, 32, 0, false, 0, 0 }, { true, 16, 0, false, 0, 0 },
	{ true, 8, 0, false, 0, 0 }, { true, 4, 0, false, 0, 0 },
	{ true, 32, 128, false, 0, 0 }, { true, 16, 128, false, 0, 0 },
	{ true, 8, 128, false, 0, 0 }, { true, 4, 128, false, 0, 0 },
	{ true, 32, 64, false, 0, 0 }, { true, 16, 64, false, 0, 0 },
	{ true, 8, 64, false, 0, 0 }, { true, 4, 64, false, 0, 0 },
	{ true, 2, 0, false, 0, 0 }, { false, 2, 0, false, 0, 0 },
	{ false, 8, 128, false, 0, 0 }, { false, 4, 128, false, 0, 0 },
	{ true, 4, 64, true, 0, 0 }, { true, 8, 64, true, 0, 0 },
	{ true, 4, 32, true, 0, 0 },
	{ true, 4, 128, false, 2, 0 }, { true, 8, 128, false, 2, 0 },
	{ true, 8, 256, false, 2, 0 }, { true, 16, 128, false, 4, 0 },
	{ true, 16, 256, false, 2, 0 }, { true, 32, 256, false, 4, 0 },
	{ true, 4, 64, false, 2, 0 }, { true, 8, 64, false, 4, 0 },
	{ true, 1, 256, true, 0, 8 }, { true, 1, 128, true, 0, 4 },
	{ true, 1, 64, true, 0, 2 },
};
#define N_CANDIDATES (int)(sizeof(candidates) / sizeof(candidates[0]))

/* The count of candidates. */
int stir_sddmm_n_candidates(void)
{
	return N_CANDIDATES;
}

/* i: the candidate's index. */
const stir_sddmm_candidate *stir_sddmm_get_candidate(int i)
{
	return i >= 0 && i < N_CANDIDATES ? &candidates[i] : NULL;
}

/* p, feat: see recipes.h. */
stir_sddmm_map stir_sddmm_candidate_map(const stir_sddmm_candidate *p,
	int64_t feat)
{
	stir_sddmm_map fm = stir_sddmm_map_lanes(feat, p->max_lanes);
	int64_t threads = p->threads > 0 ? p->threads : 256;
	int64_t rows = p->rows && p->row_tile > 0 ? p->row_tile : 1;
	fm.nnz = threads / (fm.lanes * rows) > 0 ?
		threads / (fm.lanes * rows) : 1;
	fm.chunks = p->rows ? p->chunks : 0;
	fm.row_tile = p->rows ? p->row_tile : 0;
	return fm;
}

/* ---- the candidate space over groups of rows ---- */

/* The first is the kernel of the first measurement (32 lanes a column,
 * bench/RESULTS.md): latency-bound, a group's ~100 columns 8 at a time,
 * each lane 1-4 vectors of a column, 25 shuffles a column.  The rest are
 * the register tile of a small dense product: a thread owns a union
 * column's slots of all the group's rows (4 or 8 sums in registers), X's
 * rows of the group in shared memory (read by all the block's columns: a
 * broadcast), Y's row of the column read once, in vectors, by the
 * column's 1 to 8 lanes.  With one lane there is no shuffle at all; with
 * 2-8 the lanes of a column read 32-128 contiguous bytes of Y's row
 * (whole sectors) and add up with 1-3 shuffles per row of the group.
 * Y is not staged through shared memory: each of its elements is used
 * by one thread only (the group's rows are that thread's registers), so
 * a shared copy would add traffic and a barrier without reuse.  The
 * threads a block are chosen so that a group's ~100 columns (4 rows of a
 * finite-element matrix, 1.4 slots a non-zero) fill most of them.  The
 * last seven cut each group's columns into 2 or 4 thread blocks, for
 * matrices of a few hundred groups (under a wave of 256-thread blocks on
 * an H100), with 2 to 16 lanes a column and 128 or 256 threads. */
static const stir_sddmm_vblock_candidate vb_candidates[] = {
	{ 4, 32, 0, 0 }, { 4, 8, 0, 0 }, { 4, 4, 0, 0 }, { 4, 4, 128, 0 },
	{ 4, 2, 256, 0 }, { 4, 2, 128, 0 }, { 4, 1, 128, 0 }, { 4, 1, 64, 0 },
	{ 8, 8, 0, 0 }, { 8, 4, 0, 0 }, { 8, 4, 128, 0 }, { 8, 2, 256, 0 },
	{ 8, 1, 128, 0 }, { 8, 1, 64, 0 },
	{ 4, 8, 0, 2 }, { 4, 8, 0, 4 },
	{ 4, 4, 128, 2 }, { 4, 16, 0, 2 }, { 4, 8, 128, 2 }, { 4, 2, 128, 2 },
	{ 4, 4, 0, 2 },
};
#define N_VB_CANDIDATES (int)(sizeof(vb_candidates) / sizeof(vb_candidates[0]))

/* The count of group candidates. */
int stir_sddmm_vblock_n_candidates(void)
{
	return N_VB_CANDIDATES;
}

/* i: the group candidate's index. */
const stir_sddmm_vblock_candidate *stir_sddmm_vblock_get_candidate(int i)
{
	return i >= 0 && i < N_VB_CANDIDATES ? &vb_candidates[i] : NULL;
}

/* p, feat: see recipes.h. */
stir_sddmm_map stir_sddmm_vblock_candidate_map(
	const stir_sddmm_vblock_candidate *p, int64_t feat)
{
	stir_sddmm_map fm = stir_sddmm_map_lanes(feat, p->max_lanes);
	int64_t threads = p->threads > 0 ? p->threads : 256;
	fm.nnz = threads / fm.lanes > 0 ? threads / fm.lanes : 1;
	fm.chunks = p->chunks;
	return fm;
}

/* k, p, feat: see recipes.h. */
int stir_recipe_sddmm_vblock_candidate(stir_kernel *k,
	const stir_sddmm_vblock_candidate *p, int64_t feat)
{
	if (!p || feat < 1) {
		stir_loc loc = { 0, 0, 0 };
		if (k)
			stir_ctx_report(stir_module_get_ctx(
				stir_kernel_get_module(k)), STIR_ERROR, loc,
				"stir_recipe_sddmm_vblock_candidate: %s", !p ?
				"no candidate" : "the feature size must be at "
				"least 1");
		return -1;
	}
	return stir_recipe_sddmm_vblock(k, stir_sddmm_vblock_candidate_map(p,
		feat));
}
