/* The SDDMM over SR-BCRS(8, 16) tiles on tensor cores, straight into the
 * matrix's order (kernel sddmm_tiles_csr of examples/sddmm_tiles_csr.stir;
 * recipes.h, docs/recipes.md "The SDDMM over tiles").
 *
 * At stage II the nest is a window per iteration of w (block
 * sddmm_tiles0), and inside it (block sddmm_tiles1) the window's groups
 * g, each a 16 x 8 tile of slots (c, r) summed over the features k:
 *
 *   for w { for g in [0, groups(w)) for c in 16 for r in 8 for k in feat
 *     S[Dst[w, g, c, r]] += X[w, r, k] * Y[C[w, g, c], k] }
 *
 * Every candidate splits the features into steps of 8 (k_0, k_1: one
 * mma_m16n8k8_3xtf32 a step, c r k_1 its nest), binds the window to
 * blockIdx.x and a window's groups, p->warps at a time, to the warps of
 * the block (threadIdx.y).  Then one of three shapes:
 *  - one group a warp (groups 1, kwarps 0): the tile's accumulator in the
 *    warp's fragment (cache_write_over_init at the steps: one launch, no
 *    zeroing), the steps unrolled in pieces of p->piece (each piece's
 *    fragments loaded before its mma chain; all of them unrolled when
 *    there are no more than a piece), the fragment stored through Dst;
 *    examples/sddmm_tiles_csr_tc.yaml;
 *  - p->groups groups a warp: the groups split [.., warps, groups], the
 *    tile loop g_2 unrolled between the pieces and the steps, so that a
 *    warp runs that many independent mma chains over the same rows of X;
 *    the accumulator holds the tiles one after another;
 *    examples/sddmm_tiles_csr_tiles2.yaml;
 *  - the features over p->kwarps warps (threadIdx.z; piece 0): each warp
 *    a part of the steps into its own copy of the window's tiles in
 *    shared memory (cache_write_over_init per part), summed after a
 *    barrier and stored through Dst; the steps unrolled when there are at
 *    most 16 a warp; examples/sddmm_tiles_csr_kwarps.yaml.
 * The features are specialized to the call's size; a candidate takes
 * the sizes whose steps its pieces (or warps) divide
 * (stir_sddmm_tiles_fits). */
#include <stir/stir.h>
#include <stir/recipes.h>
#include "ir/diag.h"
#include "ir/nodes.h"
#include "schedule/recipes/steps.h"

#define TILE_INTRINSIC "mma_m16n8k8_3xtf32"

/* The candidates, (warps, piece, kwarps, groups).  The first five are
 * one group a warp: 16 warps (HB_bcsstk13's windows hold at most 13
 * groups, so a window's groups all at once: its winner at 32-512 and
 * HB_zenios' at 32-128) or 8 (FIDAP_ex6's at 32-256, HB_bcsstk33's at
 * 256-512, DIMACS10_data's at 32), in pieces of 8 or 16 steps, and 4
 * warps for small windows.  Then the features over the warps of a block
 * (FIDAP_ex6 and HB_zenios at 512, HB_zenios at 256, DIMACS10_data at
 * 64-512 of the 3xTF32 kernels).  Last, 4 groups on each of 4 warps
 * (HB_bcsstk33 at 32-128) and 2 groups on each of 16 warps (the fastest
 * tile kernel on HB_bcsstk13 at 256-512 once X's fragments are loaded
 * once for a warp's groups).  bench/RESULTS.md, "SDDMM tiles: X's
 * fragments loaded once", "SDDMM tiles: several groups a warp" and
 * "SDDMM tiles on tensor cores: no per-lane branch"
 * (the tf32 kernels, the features over thread blocks and the other
 * several-groups shapes never won a case and are not candidates). */
static const stir_sddmm_tiles_candidate candidates[] = {
	{ 16, 8, 0, 1 }, { 8, 8, 0, 1 }, { 16, 16, 0, 1 }, { 8, 16, 0, 1 },
	{ 4, 8, 0, 1 },
	{ 8, 0, 4, 1 }, { 4, 0, 4, 1 }, { 4, 0, 8, 1 }, { 2, 0, 8, 1 },
	{ 4, 8, 0, 4 }, { 16, 8, 0, 2 },
};
#define N_CANDIDATES (int)(sizeof(candidates) / sizeof(candidates[0]))

/* The count of candidates. */
int stir_sddmm_tiles_n_candidates(void)
{
	return N_CANDIDATES;
}

/* i: the candidate's index. */
const stir_sddmm_tiles_candidate *stir_sddmm_tiles_get_candidate(int i)
{
	return i >= 0 && i < N_CANDIDATES ? &candidates[i] : NULL;
}

/* p, feat: the warps over the features of candidate p at "feat" (1: not
 * that shape): p->kwarps, fewer when the steps are fewer. */
int64_t stir_sddmm_tiles_kwarps(const stir_sddmm_tiles_candidate *p,
	int64_t feat)
{
	return p->kwarps < 1 ? 1 : p->kwarps < feat / 8 ? p->kwarps : feat / 8;
}

/* p, feat: the steps of a piece of candidate p at "feat" features (all
 * of a warp's steps when they are no more than a piece). */
int64_t stir_sddmm_tiles_piece(const stir_sddmm_tiles_candidate *p,
	int64_t feat)
{
	int64_t steps = feat / 8 / stir_sddmm_tiles_kwarps(p, feat);
	return p->piece > 0 && p->piece < steps ? p->piece : steps;
}

/* p, feat: see recipes.h. */
bool stir_sddmm_tiles_fits(const stir_sddmm_tiles_candidate *p, int64_t feat)
{
	if (!p || feat < 8 || feat % 8 || p->warps < 1 || p->groups < 1 ||
	    (p->kwarps > 0) == (p->piece > 0) ||
	    (p->kwarps > 0 && p->groups > 1))
		return false;
	int64_t kw = stir_sddmm_tiles_kwarps(p, feat);
	return (feat / 8) % kw == 0 &&
		(feat / 8 / kw) % stir_sddmm_tiles_piece(p, feat) == 0;
}

/* The names a cache of S made (cache_write's "Made"): the buffer, its
 * write-back and zeroing blocks, and the first four loops of each
 * block's nest (NULL past its last). */
typedef struct cache_made {
	const char *buf, *wb, *init;
	const char *wl[4], *zl[4];
} cache_made;

/* k, c: the names the last cache_write made into *c; -1, with an error,
 * when it made no buffer or blocks. */
static int made_cache(stir_kernel *k, cache_made *c)
{
	c->buf = stir_kernel_get_made(k, STIR_MADE_BUFFER, 0);
	c->wb = stir_kernel_get_made(k, STIR_MADE_BLOCK, 0);
	c->init = stir_kernel_get_made(k, STIR_MADE_INIT_BLOCK, 0);
	if (!c->buf || !c->wb || !c->init) {
		stir_error(stir_kernel_ctx(k), k->loc, "stir_recipe_sddmm_tiles_"
			"candidate: the cache of S in kernel '%s' made no write-back "
			"and zeroing blocks", k->name);
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		c->wl[i] = stir_kernel_get_made_from(k, STIR_MADE_LOOP, c->wb, i);
		c->zl[i] = stir_kernel_get_made_from(k, STIR_MADE_LOOP, c->init, i);
	}
	return 0;
}

/* k, blk, c, loop: the three tensorized nests of an accumulator in a
 * warp's fragment: its zeroing's and write-back's nests at their loop
 * "loop" (ax0, or ax1 inside the tile loop ax0), the product at c. */
static int tensorize3(stir_kernel *k, const char *blk, const cache_made *c,
	int loop)
{
	if (!c->zl[loop] || !c->wl[loop]) {
		stir_error(stir_kernel_ctx(k), k->loc, "stir_recipe_sddmm_tiles_"
			"candidate: the cache of S in kernel '%s' has no loop %d to "
			"tensorize", k->name, loop);
		return -1;
	}
	return stir_tensorize(k, c->init, c->zl[loop], TILE_INTRINSIC) < 0 ||
		stir_tensorize(k, blk, "c", TILE_INTRINSIC) < 0 ||
		stir_tensorize(k, c->wb, c->wl[loop], TILE_INTRINSIC) < 0 ? -1 : 0;
}

/* k, blk, p, feat, kl: one group a warp or several (the file's header),
 * kl[0] the steps k_0 (split already into steps of 8). */
static int groups_schedule(stir_kernel *k, const char *win, const char *blk,
	const stir_sddmm_tiles_candidate *p, int64_t feat, const char **kl)
{
	int64_t piece = stir_sddmm_tiles_piece(p, feat);
	bool pieces = p->groups > 1 || piece < feat / 8;
	const int64_t fp[] = { 0, piece }, fg[] = { 0, p->warps, p->groups };
	const char *pl[2] = { kl[0], kl[0] }, *gl[3];
	if ((pieces && recipe_split(k, blk, kl[0], 2, fp, pl) < 0) ||
	    recipe_split(k, blk, "g", p->groups > 1 ? 3 : 2, fg, gl) < 0)
		return -1;
	const char *order[8];
	int n = 0;
	order[n++] = gl[0];
	order[n++] = gl[1];
	order[n++] = pl[0];
	if (p->groups > 1)
		order[n++] = gl[2];
	if (pieces)
		order[n++] = pl[1];
	order[n++] = "c";
	order[n++] = "r";
	order[n++] = kl[1];
	if (stir_reorder(k, blk, n, order) < 0 ||
	    stir_bind(k, win, "w", STIR_BLOCK_X) < 0 ||
	    stir_bind(k, blk, gl[1], STIR_THREAD_Y) < 0 ||
	    stir_unroll(k, blk, pl[1]) < 0 ||
	    stir_lower_sparse_buffer(k) < 0)
		return -1;
	const char *s = stir_kernel_get_made_from(k, STIR_MADE_BUFFER, "S", 0);
	if (stir_cache_write_over_init(k, blk, s, pl[0], STIR_SCOPE_LOCAL) < 0)
		return -1;
	cache_made c;
	if (made_cache(k, &c) < 0)
		return -1;
	if (p->groups == 1)
		return tensorize3(k, blk, &c, 0);
	/* the tile loop ax0 of the zeroing and the write-back unrolled,
	 * the tensorized nests inside it */
	return stir_unroll(k, blk, gl[2]) < 0 ||
		stir_unroll(k, c.init, c.zl[0]) < 0 ||
		stir_unroll(k, c.wb, c.wl[0]) < 0 ||
		tensorize3(k, blk, &c, 1) < 0 ? -1 : 0;
}

/* k, block, n, loops, factors, threads: the n loops of "block" fused,
 * the fused loop split by "factors" (n + 1 of them, the first 0) and its
 * inner loops bound to threads[] in turn (the copies of the sums in
 * shared memory over all the block's threads). */
static int fuse_spread(stir_kernel *k, const char *block, int n,
	const char *const *loops, const int64_t *factors,
	const stir_thread *threads, int n_threads)
{
	const char *sl[4];
	if (stir_fuse(k, block, n, loops) < 0)
		return -1;
	const char *f = stir_kernel_get_made(k, STIR_MADE_LOOP, 0);
	if (!f || recipe_split(k, block, f, n_threads + 1, factors, sl) < 0)
		return -1;
	for (int i = 0; i < n_threads; i++)
		if (stir_bind(k, block, sl[i + 1], threads[i]) < 0)
			return -1;
	return 0;
}

/* k, blk, p, feat, kl: the features over the warps (the file's
 * header). */
static int kwarps_schedule(stir_kernel *k, const char *win, const char *blk,
	const stir_sddmm_tiles_candidate *p, int64_t feat, const char **kl)
{
	int64_t kw = stir_sddmm_tiles_kwarps(p, feat);
	const int64_t fk[] = { kw, 0 }, fg[] = { 0, p->warps };
	const char *pl[2], *gl[2];
	if (recipe_split(k, blk, kl[0], 2, fk, pl) < 0 ||
	    recipe_split(k, blk, "g", 2, fg, gl) < 0)
		return -1;
	const char *order[] = { gl[0], pl[0], gl[1], pl[1], "c", "r", kl[1] };
	if (stir_reorder(k, blk, 7, order) < 0 ||
	    stir_bind(k, win, "w", STIR_BLOCK_X) < 0 ||
	    (feat / 8 / kw <= 16 && stir_unroll(k, blk, pl[1]) < 0) ||
	    stir_lower_sparse_buffer(k) < 0)
		return -1;
	const char *s = stir_kernel_get_made_from(k, STIR_MADE_BUFFER, "S", 0);
	if (stir_cache_write_per(k, blk, s, pl[0], STIR_SCOPE_SHARED, true,
	    pl[0]) < 0)
		return -1;
	/* the copies' zeroing nest, s (the copies) outermost, and their
	 * write-back's nest, over the window's tiles' slots */
	cache_made sh, fr;
	if (made_cache(k, &sh) < 0 || !sh.zl[3] || !sh.wl[2]) {
		if (sh.buf)
			stir_error(stir_kernel_ctx(k), k->loc, "stir_recipe_sddmm_"
				"tiles_candidate: the copies of S in kernel '%s' are not "
				"over the copies and three loops of slots", k->name);
		return -1;
	}
	if (stir_cache_write(k, blk, sh.buf, pl[1], STIR_SCOPE_LOCAL) < 0 ||
	    made_cache(k, &fr) < 0)
		return -1;
	const int64_t fi[] = { 0, p->warps, 32 }, fw[] = { 0, kw, p->warps, 32 };
	const stir_thread ti[] = { STIR_THREAD_Y, STIR_THREAD_X };
	const stir_thread tw[] = { STIR_THREAD_Z, STIR_THREAD_Y, STIR_THREAD_X };
	return tensorize3(k, blk, &fr, 0) < 0 ||
		stir_bind(k, blk, pl[0], STIR_THREAD_Z) < 0 ||
		stir_bind(k, blk, gl[1], STIR_THREAD_Y) < 0 ||
		fuse_spread(k, sh.init, 3, sh.zl + 1, fi, ti, 2) < 0 ||
		stir_bind(k, sh.init, sh.zl[0], STIR_THREAD_Z) < 0 ||
		fuse_spread(k, sh.wb, 3, sh.wl, fw, tw, 3) < 0 ? -1 : 0;
}

/* k, p, feat: see recipes.h. */
int stir_recipe_sddmm_tiles_candidate(stir_kernel *k,
	const stir_sddmm_tiles_candidate *p, int64_t feat)
{
	if (!k)
		return -1;
	if (!stir_sddmm_tiles_fits(p, feat)) {
		stir_error(stir_kernel_ctx(k), k->loc,
			"stir_recipe_sddmm_tiles_candidate: %s%s at %lld features "
			"(the features in steps of 8 that the candidate's pieces "
			"and warps divide)", p ? "the candidate does not apply to "
			"kernel '" : "no candidate for kernel '", k->name,
			(long long)feat);
		return -1;
	}
	const int64_t f8[] = { 0, 8 };
	const char *kl[2];
	if (stir_specialize(k, "feat", feat) < 0 ||
	    stir_lower_sparse_iter(k) < 0)
		return -1;
	/* the window's block, then the groups' */
	const char *win = stir_kernel_get_made(k, STIR_MADE_BLOCK, 0);
	const char *blk = stir_kernel_get_made(k, STIR_MADE_BLOCK, 1);
	if (!win || !blk || stir_kernel_find_buffer(k, "Dst") == NULL) {
		stir_error(stir_kernel_ctx(k), k->loc,
			"stir_recipe_sddmm_tiles_candidate: kernel '%s' is not the "
			"SDDMM over tiles of examples/sddmm_tiles_csr.stir", k->name);
		return -1;
	}
	if (recipe_split(k, blk, "k", 2, f8, kl) < 0)
		return -1;
	int rc = p->kwarps > 0 ? kwarps_schedule(k, win, blk, p, feat, kl) :
		groups_schedule(k, win, blk, p, feat, kl);
	return rc < 0 ? -1 : stir_kernel_prepare_for_gpu(k);
}
