/* The SpMM schedules (stir/recipes.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <stir/stir.h>
#include <stir/recipes.h>
#include "ir/nodes.h"
#include "schedule/recipes/steps.h"

/* feat, group: see recipes.h. */
stir_spmm_map stir_spmm_map_grouped(int64_t feat, int64_t group)
{
	stir_spmm_map f = { feat, 32 / group, 4, 1, 8, group, true, false };
	while (f.vec > 1 && feat % f.vec)
		f.vec /= 2;
	while (f.lanes > 1 && (feat / f.vec) % f.lanes)
		f.lanes /= 2;
	f.chunks = feat / (f.lanes * f.vec);
	/* 256 threads: the chunks on threadIdx.z, or in grouped rows a loop */
	f.rows = 256 / (f.lanes * (group > 1 ? group : f.chunks));
	if (f.rows < 1)
		f.rows = 1;
	if (group > 1 && f.rows > 64)
		f.rows = 64;  /* threadIdx.z's limit */
	return f;
}

/* feat, lanes: see recipes.h. */
stir_spmm_map stir_spmm_map_serial(int64_t feat, int64_t lanes)
{
	stir_spmm_map f = stir_spmm_map_features(feat);
	f.lanes = lanes;
	f.chunks = feat / (lanes * f.vec);
	f.rows = 256 / lanes;
	f.serial = true;
	return f;
}

/* fm: see recipes.h. */
bool stir_spmm_map_fits(stir_spmm_map fm)
{
	if (fm.serial)
		return fm.lanes >= 1 && fm.lanes <= 32 && fm.chunks >= 2 &&
			fm.chunks * fm.lanes * fm.vec == fm.feat &&
			fm.chunks * fm.vec <= 32;
	return fm.group <= 1 || fm.chunks * fm.vec <= 32;
}

/* feat: see recipes.h. */
stir_spmm_map stir_spmm_map_features(int64_t feat)
{
	return stir_spmm_map_grouped(feat, 1);
}

/* width, fm: the columns of a row of a part WIDTH wide that its warp
 * caches hold at a time: all of them, or when the row is wider than the
 * lanes, the widest piece that divides it (so that no tail needs a
 * guard); 0 when the part has no warp caches. */
static int64_t warp_piece(int64_t width, stir_spmm_map fm)
{
	if (!fm.warp_cache || fm.group > 1 || fm.lanes < 2)
		return 0;
	int64_t f = width <= fm.lanes ? width : fm.lanes;
	while (width % f)
		f /= 2;
	return f;
}

/* k, block, width, fm, atomic: schedule_part for fm.group > 1 (threads
 * x, y, z: a row's group, the feature lanes, the rows).  A thread's
 * features are consecutive, so that its sums are one range of C (loop
 * k_1, split into vectors at stage III).  A part at least fm.group wide:
 * loops o_0 (blockIdx.x), o_1 (z), r, k_0 (y), c_1 (the row's columns
 * modulo the group, bound to x at stage III with the reduction), c_0,
 * k_1.  A narrower one: o_0 (blockIdx.x), o_1 (z), o_2 (x, fm.group
 * rows), r, k_0 (y), c, k_1. */
static int schedule_part_grouped(stir_kernel *k, const char *block,
	int64_t width, stir_spmm_map fm, bool atomic)
{
	const char *kc[] = { "k", "c" }, *ck[] = { "c", "k_1" };
	const char *c10[] = { "c_1", "c_0" };
	const int64_t fk[] = { 0, fm.chunks * fm.vec }, fc[] = { 0, fm.group };
	const int64_t fo[] = { 0, fm.rows }, fog[] = { 0, fm.rows, fm.group };
	if (stir_reorder(k, block, 2, kc) < 0 ||
	    stir_split(k, block, "k", 2, fk) < 0 ||
	    stir_reorder(k, block, 2, ck) < 0 ||
	    (atomic && stir_set_atomic(k, block) < 0) ||
	    stir_bind(k, block, "k_0", STIR_THREAD_Y) < 0)
		return -1;
	if (width < fm.group)
		return stir_split(k, block, "o", 3, fog) < 0 ||
			stir_bind(k, block, "o_0", STIR_BLOCK_X) < 0 ||
			stir_bind(k, block, "o_1", STIR_THREAD_Z) < 0 ||
			stir_bind(k, block, "o_2", STIR_THREAD_X) < 0 ||
			stir_unroll(k, block, "c") < 0 ? -1 : 0;
	return stir_split(k, block, "c", 2, fc) < 0 ||
		stir_reorder(k, block, 2, c10) < 0 ||
		stir_split(k, block, "o", 2, fo) < 0 ||
		stir_bind(k, block, "o_0", STIR_BLOCK_X) < 0 ||
		stir_bind(k, block, "o_1", STIR_THREAD_Z) < 0 ||
		stir_unroll(k, block, "c_0") < 0 ? -1 : 0;
}

/* k, block, width, fm, atomic: the schedule of one bucket part (of
 * WIDTH columns) at stage II
 * (block BLOCK over loops o, r, c, k): the part's rows over blockIdx.x
 * and threadIdx.y, the features over threadIdx.x in vectors of fm.vec
 * (and threadIdx.z in chunks, or serial chunks k_0 inside the row's
 * columns, unrolled), the row's columns (c) serially and unrolled; atomic
 * adds into C when "atomic".  stage3_part finishes it after lowering.
 * Grouped rows (fm.group > 1): schedule_part_grouped. */
static int schedule_part(stir_kernel *k, const char *block, int64_t width,
	stir_spmm_map fm, bool atomic)
{
	if (fm.group > 1)
		return schedule_part_grouped(k, block, width, fm, atomic);
	/* the columns inside the lanes; serial chunks inside the columns */
	const char *kc[] = { "k", "c" }, *ck[] = { "c", "k_2" };
	const char *serial[] = { "k_1", "c", "k_0", "k_2" };
	const int64_t fk[] = { 0, fm.lanes, fm.vec }, fo[] = { 0, fm.rows };
	if (stir_reorder(k, block, 2, kc) < 0 ||
	    stir_split(k, block, "k", 3, fk) < 0 ||
	    stir_reorder(k, block, fm.serial ? 4 : 2, fm.serial ? serial : ck) < 0 ||
	    (fm.serial && stir_unroll(k, block, "k_0") < 0) ||
	    stir_split(k, block, "o", 2, fo) < 0 ||
	    (atomic && stir_set_atomic(k, block) < 0) ||
	    stir_bind(k, block, "o_0", STIR_BLOCK_X) < 0 ||
	    stir_bind(k, block, "o_1", STIR_THREAD_Y) < 0 ||
	    stir_bind(k, block, "k_1", STIR_THREAD_X) < 0 ||
	    (fm.chunks > 1 && !fm.serial &&
	    stir_bind(k, block, "k_0", STIR_THREAD_Z) < 0))
		return -1;
	/* a row wider than its warp caches hold: pieces c_0 of c_1 columns,
	 * each piece unrolled, the pieces a loop (unrolled too, a 256-wide
	 * part's 8 pieces x 32 columns x 4 chunks at 512 features took
	 * NVRTC 25 s of CPU and ran up to 2x slower: bench/RESULTS.md,
	 * "Cold tuning, the model's pick first, record hits") */
	int64_t piece = warp_piece(width, fm);
	const int64_t fc[] = { 0, piece };
	if (piece && piece < width)
		return stir_split(k, block, "c", 2, fc) < 0 ||
			stir_unroll(k, block, "c_1") < 0 ? -1 : 0;
	return stir_unroll(k, block, "c") < 0 ? -1 : 0;
}

/* k, block, out, width, fm, over_init: stage3_part for fm.group > 1:
 * the sums of the thread's features in registers over the row's columns
 * (c_1 for a shared row, whose threads then combine them by shuffles:
 * every one holds the row's sums, one stores them; c for a narrow part),
 * the features in vectors (k_1_1, and ax0_1 in the write-back). */
static int stage3_part_grouped(stir_kernel *k, const char *block,
	const char *out, int64_t width, stir_spmm_map fm, bool over_init)
{
	bool shared = width >= fm.group;
	const int64_t fv[] = { 0, fm.vec };
	if ((over_init ? stir_cache_write_over_init : stir_cache_write)(k, block,
	    out, shared ? "c_1" : "c", STIR_SCOPE_LOCAL) < 0)
		return -1;
	/* the write-back block and its loop over the features */
	const char *back = stir_kernel_get_made(k, STIR_MADE_BLOCK, 0);
	const char *ax = stir_kernel_get_made_from(k, STIR_MADE_LOOP, back, 0);
	if ((shared && (stir_cross_thread_reduce(k, block, "c_1") < 0 ||
	    stir_bind(k, block, "c_1", STIR_THREAD_X) < 0)) ||
	    stir_split(k, block, "k_1", 2, fv) < 0)
		return -1;
	const char *kv[] = { stir_kernel_get_made(k, STIR_MADE_LOOP, 0),
		stir_kernel_get_made(k, STIR_MADE_LOOP, 1) };
	if (stir_unroll(k, block, kv[0]) < 0 ||
	    stir_split(k, back, ax, 2, fv) < 0)
		return -1;
	const char *av[] = { stir_kernel_get_made(k, STIR_MADE_LOOP, 0),
		stir_kernel_get_made(k, STIR_MADE_LOOP, 1) };
	if (stir_unroll(k, back, av[0]) < 0)
		return -1;
	return fm.vec > 1 && (stir_vectorize(k, block, kv[1]) < 0 ||
		stir_vectorize(k, back, av[1]) < 0) ? -1 : 0;
}

/* k, block, idx, val, width, fm: the column indices (buffer idx) and
 * values (val) of the rows of a part (WIDTH columns) in warp caches: the
 * lanes of a row (threadIdx.x) load them together, warp_piece columns at
 * a time (loop c_1 of the split schedule_part made when the row is
 * wider), and each column's index and value come to every lane by a
 * shuffle. */
static int warp_cache_part(stir_kernel *k, const char *block,
	const char *idx, const char *val, int64_t width, stir_spmm_map fm)
{
	const char *loop = warp_piece(width, fm) < width ? "c_1" : "c";
	return stir_cache_read(k, block, idx, loop, STIR_SCOPE_WARP) < 0 ||
		stir_cache_read(k, block, val, loop, STIR_SCOPE_WARP) < 0 ? -1 : 0;
}

/* k, block, out, width, fm, over_init: at stage III, the row's fm.vec
 * sums of a part in registers (a local cache of the output "out" over the
 * loop of columns, written back by the block the cache write makes;
 * "over_init": taking over the part's init nest, so that the part stores
 * its rows of C once), the vector loops vectorized: the loads of B and
 * the write-back (float4 stores, or float4 atomic adds on sm_90). */
static int stage3_part(stir_kernel *k, const char *block, const char *out,
	int64_t width, stir_spmm_map fm, bool over_init)
{
	if (fm.group > 1)
		return stage3_part_grouped(k, block, out, width, fm, over_init);
	int64_t piece = warp_piece(width, fm);
	if ((over_init ? stir_cache_write_over_init : stir_cache_write)(k, block,
	    out, piece && piece < width ? "c_0" : "c", STIR_SCOPE_LOCAL) < 0)
		return -1;
	/* the write-back block and its loops: serial chunks, over the chunks
	 * and the vector; else over the features */
	const char *back = stir_kernel_get_made(k, STIR_MADE_BLOCK, 0);
	const char *ax0 = stir_kernel_get_made_from(k, STIR_MADE_LOOP, back, 0);
	const char *ax1 = stir_kernel_get_made_from(k, STIR_MADE_LOOP, back, 1);
	if (fm.serial && stir_unroll(k, back, ax0) < 0)
		return -1;
	if (fm.vec == 1)
		return 0;
	return stir_vectorize(k, block, "k_2") < 0 ||
		stir_vectorize(k, back, fm.serial ? ax1 : ax0) < 0 ? -1 : 0;
}

/* k, block, fm: the schedule of an init nest (block BLOCK over ROWS, k:
 * C = 0) like the computation's: rows over blockIdx.x and threadIdx.y,
 * features over threadIdx.x in vectors of fm.vec, the chunks serially. */
static int schedule_init(stir_kernel *k, const char *block, const char *rows,
	stir_spmm_map fm)
{
	const int64_t fk[] = { 0, fm.lanes, fm.vec };
	/* 256 threads (the grouped rows' threads become rows here) */
	const int64_t fi[] = { 0, fm.rows * (fm.group > 1 ? fm.group :
		fm.serial ? 1 : fm.chunks) };
	const char *kl[3], *rl[2];
	return recipe_split(k, block, "k", 3, fk, kl) < 0 ||
		recipe_split(k, block, rows, 2, fi, rl) < 0 ||
		stir_bind(k, block, rl[0], STIR_BLOCK_X) < 0 ||
		stir_bind(k, block, rl[1], STIR_THREAD_Y) < 0 ||
		stir_bind(k, block, kl[1], STIR_THREAD_X) < 0 ||
		(fm.vec > 1 && stir_vectorize(k, block, kl[2]) < 0) ? -1 : 0;
}

/* c: see recipes.h. */
unsigned stir_spmm_hybrid_format_flags(int c)
{
	return STIR_HYBRID_ALL_PARTS | STIR_HYBRID_PAD_ANY_COLUMN |
		(c == 1 ? STIR_HYBRID_COVER_ROWS : 0);
}

/* The parts of a hybrid schedule, one array element per part (heap), in
 * the order of stir_format_hybrid_get_part; the names are those the
 * primitives made (stir_kernel_get_made). */
typedef struct hyb_parts {
	stir_format_rule **rules;
	const char **iters;      /* the part's iteration */
	const char **tensors;    /* its tensor (A_hyb_q_t at stage I) */
	const char **cols;       /* its axis of columns (C_hyb_q_t) */
	const char **blocks;     /* its block, the outer one of its nest */
	const char **idx, **val; /* at stage III, its columns and values */
	bool *atomic;
	int64_t *width;
} hyb_parts;

/* k, c, buckets, nb, fm, locality, n, hp: stir_recipe_spmm_hybrid for
 * its n parts, with hp's arrays to fill; locality: the format's rows in
 * a locality order, which only the logged rule says (the kernel is the
 * same). */
static int hybrid_parts(stir_kernel *k, int c, const int64_t *buckets,
	int nb, stir_spmm_map fm, bool locality, int n, const hyb_parts *hp)
{
	bool cover = c == 1;
	int rc = 0;
	/* covering the rows, first the split rows' part 0_NB (the widest
	 * width): its init nest then runs before the one launch of all the
	 * parts; it alone adds atomically */
	for (int r = 0; r < n; r++) {
		int q, t;
		rc |= stir_format_hybrid_get_part(c, nb, cover, r, &q, &t);
		hp->width[r] = buckets[t < nb ? t : nb - 1];
		hp->rules[r] = stir_format_rule_hybrid("_hyb", c, nb, buckets,
			cover, r);
		rc |= hp->rules[r] ? 0 : -1;
		hp->atomic[r] = cover ? t == nb : c > 1 || t == nb - 1;
	}
	if (rc == 0)
		rc = stir_decompose_format(k, "A", n, hp->rules);
	/* the schedule log (stir_kernel_print_schedule): the parts as the
	 * one hybrid rule of a schedule file */
	char *bl = rc == 0 && k->log_on ? stir_log_ints(nb, buckets) : NULL;
	if (rc == 0 && k->log_on)
		rc = bl ? stir_kernel_log_step(k, 0, "decompose: {tensor: A, "
			"rules: [{hybrid: {column_parts: %d, buckets: %s%s%s}}]}", c,
			bl, cover ? ", cover_rows: true" : "",
			locality ? ", locality_order: true" : "") : -1;
	free(bl);
	for (int i = 0; i < n; i++)
		stir_format_rule_free(hp->rules[i]);
	if (rc < 0)
		return -1;
	/* what the decomposition made: per part an iteration over a tensor
	 * whose third axis (O, R, C) holds the columns; without covering the
	 * rows, one init iteration over all of them */
	for (int i = 0; i < n; i++) {
		hp->iters[i] = stir_kernel_get_made(k, STIR_MADE_ITER, i);
		hp->tensors[i] = stir_kernel_get_made(k, STIR_MADE_BUFFER, i);
		hp->cols[i] = stir_kernel_get_made_from(k, STIR_MADE_AXIS,
			hp->tensors[i], 2);
	}
	const char *init_iter = cover ? NULL :
		stir_kernel_get_made(k, STIR_MADE_INIT_ITER, 0);
	if (stir_module_lower_sparse_iter(stir_kernel_get_module(k)) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		hp->blocks[i] = stir_kernel_get_made_from(k, STIR_MADE_BLOCK,
			hp->iters[i], 0);
		hp->idx[i] = stir_kernel_get_made_from(k, STIR_MADE_INDICES,
			hp->cols[i], 0);
	}
	const char *init = cover ? stir_kernel_get_made_from(k,
		STIR_MADE_INIT_BLOCK, hp->iters[0], 0) : stir_kernel_get_made_from(k,
		STIR_MADE_BLOCK, init_iter, 0);
	for (int i = 0; i < n; i++)
		if (schedule_part(k, hp->blocks[i], hp->width[i], fm,
		    hp->atomic[i]) < 0)
			return -1;
	if (schedule_init(k, init, cover ? "o" : "i", fm) < 0 ||
	    stir_default_schedule(k) < 0 ||
	    stir_lower_sparse_buffer(k) < 0)
		return -1;
	/* what lowering the buffers made: the flat output and values */
	const char *out = stir_kernel_get_made_from(k, STIR_MADE_BUFFER, "C", 0);
	for (int i = 0; i < n; i++)
		hp->val[i] = stir_kernel_get_made_from(k, STIR_MADE_BUFFER,
			hp->tensors[i], 0);
	/* the parts that do not add atomically hold distinct rows of C: they
	 * store them once, taking over their init nests */
	for (int i = 0; i < n; i++)
		if (stage3_part(k, hp->blocks[i], out, hp->width[i], fm,
		    cover && !hp->atomic[i]) < 0)
			return -1;
	/* then the columns of every part in warp caches */
	for (int i = 0; i < n; i++)
		if (warp_piece(hp->width[i], fm) && warp_cache_part(k,
		    hp->blocks[i], hp->idx[i], hp->val[i], hp->width[i], fm) < 0)
			return -1;
	const char *outs[] = { out };
	/* last, the GPU's stage III rewrites */
	return (n > 1 && stir_horizontal_fuse_disjoint(k, n, hp->blocks, 1,
		outs) < 0) || stir_kernel_prepare_for_gpu(k) < 0 ? -1 : 0;
}

/* k, c, nb, buckets, fm, locality: stir_recipe_spmm_hybrid, logging the
 * hybrid rule with the locality order when "locality". */
static int recipe_hybrid(stir_kernel *k, int c, int nb,
	const int64_t *buckets, stir_spmm_map fm, bool locality)
{
	/* the feature count is the kernel's, so that its splits need no tail
	 * guards; the matrix's sizes stay symbolic */
	int n = stir_format_hybrid_n_parts(c, nb, c == 1);
	if (n < 1 || stir_specialize(k, "feat", fm.feat) < 0)
		return -1;
	size_t m = (size_t)n;
	hyb_parts hp = {
		calloc(m, sizeof(*hp.rules)), calloc(m, sizeof(*hp.iters)),
		calloc(m, sizeof(*hp.tensors)), calloc(m, sizeof(*hp.cols)),
		calloc(m, sizeof(*hp.blocks)), calloc(m, sizeof(*hp.idx)),
		calloc(m, sizeof(*hp.val)), calloc(m, sizeof(*hp.atomic)),
		calloc(m, sizeof(*hp.width)),
	};
	int rc = hp.rules && hp.iters && hp.tensors && hp.cols && hp.blocks &&
		hp.idx && hp.val && hp.atomic && hp.width ? hybrid_parts(k, c,
		buckets, nb, fm, locality, n, &hp) : -1;
	free(hp.rules);
	free(hp.iters);
	free(hp.tensors);
	free(hp.cols);
	free(hp.blocks);
	free(hp.idx);
	free(hp.val);
	free(hp.atomic);
	free(hp.width);
	return rc;
}

/* k, c, nb, buckets, fm: see recipes.h. */
int stir_recipe_spmm_hybrid(stir_kernel *k, int c, int nb,
	const int64_t *buckets, stir_spmm_map fm)
{
	return recipe_hybrid(k, c, nb, buckets, fm, false);
}

/* k, p, feat: see recipes.h. */
int stir_recipe_spmm_hybrid_candidate(stir_kernel *k,
	const stir_spmm_hybrid_candidate *p, int64_t feat)
{
	return recipe_hybrid(k, p->c, p->nb, p->buckets,
		stir_spmm_hybrid_map(p, feat), p->locality) < 0 ||
		stir_kernel_set_min_blocks_per_sm(k, p->min_blocks) < 0 ? -1 : 0;
}

/* k, fm: see recipes.h (blocks csrmm0 over rows, csrmm1 over a
 * row's columns and the features). */
int stir_recipe_spmm_csr(stir_kernel *k, stir_spmm_map fm)
{
	const char *kj[] = { "k", "j" };
	const int64_t fk[] = { 0, fm.lanes }, fi[] = { 0, fm.rows * fm.chunks };
	return stir_specialize(k, "feat", fm.feat) < 0 ||
		stir_module_lower_sparse_iter(stir_kernel_get_module(k)) < 0 ||
		stir_reorder(k, "csrmm1", 2, kj) < 0 ||
		stir_split(k, "csrmm1", "k", 2, fk) < 0 ||
		stir_split(k, "csrmm1", "i", 2, fi) < 0 ||
		stir_bind(k, "csrmm1", "i_0", STIR_BLOCK_X) < 0 ||
		stir_bind(k, "csrmm1", "i_1", STIR_THREAD_Y) < 0 ||
		stir_bind(k, "csrmm1", "k_1", STIR_THREAD_X) < 0 ||
		stir_cache_write_over_init(k, "csrmm1", "C", "j",
			STIR_SCOPE_LOCAL) < 0 ||
		stir_kernel_prepare_for_gpu(k) < 0 ? -1 : 0;
}

/* ---- the candidate space ---- */

/* Wide buckets for long rows; narrow ones, splitting long rows into more
 * pieces that run in parallel; smaller thread blocks, spreading a small
 * graph over more multiprocessors; two blocks per multiprocessor, or one,
 * which gives a thread the registers to keep its row's loads in flight (a
 * small graph, with few blocks, is bound by their latency); rows shared
 * by 2 or 4 threads whose sums warp shuffles combine (a long row's
 * gathers in parallel, without atomics or the split rows' launch); buckets
 * of widths between the powers of two, padding long rows less; the rows
 * of each part in a locality order (the same kernels on a format whose
 * neighbouring rows share columns, so that a thread block's gathers of B
 * hit its L1 cache more often); the columns of a row in warp caches, read
 * once by its lanes together instead of by every lane (the configurations
 * at full occupancy that they made faster on 2026-11-26, bench/RESULTS.md;
 * with a register budget they were slower); last, a row's features over
 * 32, 16 or 8 lanes with the chunks serial in each thread (its loads of a
 * column's row of B spread over the chunks; they apply where the lanes
 * leave at least two chunks, 64 features and up), with warp caches. */
static const stir_spmm_hybrid_candidate candidates[] = {
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, false, false, 0 },
	{ 1, 6, { 2, 4, 8, 16, 32, 64 }, 256, 0, 1, false, false, 0 },
	{ 1, 8, { 1, 2, 4, 8, 16, 32, 64, 128 }, 256, 0, 1, false, false, 0 },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 }, 256, 0, 1, false, false, 0 },
	{ 2, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, false, false, 0 },
	{ 2, 8, { 1, 2, 4, 8, 16, 32, 64, 128 }, 256, 0, 1, false, false, 0 },
	{ 1, 3, { 1, 2, 4 }, 256, 0, 1, false, false, 0 },
	{ 1, 4, { 1, 2, 4, 8 }, 256, 0, 1, false, false, 0 },
	{ 1, 4, { 1, 2, 4, 8 }, 64, 0, 1, false, false, 0 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 64, 0, 1, false, false, 0 },
	{ 1, 3, { 1, 2, 4 }, 256, 2, 1, false, false, 0 },
	{ 1, 4, { 1, 2, 4, 8 }, 256, 2, 1, false, false, 0 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 256, 2, 1, false, false, 0 },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 }, 256, 2, 1, false, false, 0 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 256, 1, 1, false, false, 0 },
	{ 1, 8, { 1, 2, 4, 8, 16, 32, 64, 128 }, 256, 1, 1, false, false, 0 },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 }, 256, 1, 1, false, false, 0 },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 }, 256, 0, 4, false, false, 0 },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 }, 256, 1, 4, false, false, 0 },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 }, 64, 0, 4, false, false, 0 },
	{ 1, 6, { 2, 4, 8, 16, 32, 64 }, 256, 0, 2, false, false, 0 },
	{ 1, 8, { 8, 16, 24, 32, 48, 64, 96, 128 }, 256, 0, 4, false, false, 0 },
	{ 1, 8, { 8, 16, 24, 32, 48, 64, 96, 128 }, 256, 1, 4, false, false, 0 },
	{ 1, 8, { 8, 16, 24, 32, 48, 64, 96, 128 }, 256, 0, 1, false, false, 0 },
	{ 1, 8, { 8, 16, 24, 32, 48, 64, 96, 128 }, 256, 1, 1, false, false, 0 },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 }, 64, 0, 1, false, false, 0 },
	{ 1, 8, { 8, 16, 24, 32, 48, 64, 96, 128 }, 64, 0, 1, false, false, 0 },
	{ 1, 3, { 1, 2, 4 }, 256, 0, 1, true, false, 0 },
	{ 1, 4, { 1, 2, 4, 8 }, 256, 2, 1, true, false, 0 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, true, false, 0 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 64, 0, 1, true, false, 0 },
	{ 1, 6, { 2, 4, 8, 16, 32, 64 }, 256, 0, 1, true, false, 0 },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 }, 256, 2, 1, true, false, 0 },
	{ 2, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, true, false, 0 },
	{ 1, 4, { 1, 2, 4, 8 }, 256, 4, 1, false, false, 0 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 256, 4, 1, false, false, 0 },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 }, 256, 4, 1, false, false, 0 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, false, true, 0 },
	{ 1, 6, { 2, 4, 8, 16, 32, 64 }, 256, 0, 1, false, true, 0 },
	{ 1, 8, { 1, 2, 4, 8, 16, 32, 64, 128 }, 256, 0, 1, false, true, 0 },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 }, 256, 0, 1, false, true, 0 },
	{ 2, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, false, true, 0 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 64, 0, 1, false, true, 0 },
	{ 1, 8, { 8, 16, 24, 32, 48, 64, 96, 128 }, 256, 0, 1, false, true, 0 },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 }, 64, 0, 1, false, true, 0 },
	{ 1, 8, { 8, 16, 24, 32, 48, 64, 96, 128 }, 64, 0, 1, false, true, 0 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, true, true, 0 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 64, 0, 1, true, true, 0 },
	{ 1, 6, { 2, 4, 8, 16, 32, 64 }, 256, 0, 1, true, true, 0 },
	{ 2, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, true, true, 0 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, false, true, 32 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, true, true, 32 },
	{ 1, 6, { 2, 4, 8, 16, 32, 64 }, 256, 0, 1, false, true, 32 },
	{ 1, 8, { 8, 16, 24, 32, 48, 64, 96, 128 }, 256, 0, 1, false, true, 32 },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 }, 256, 0, 1, false, true, 32 },
	{ 2, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, false, true, 32 },
	{ 2, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, true, true, 32 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, false, true, 16 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, true, true, 16 },
	{ 1, 8, { 8, 16, 24, 32, 48, 64, 96, 128 }, 256, 0, 1, false, true, 16 },
	{ 1, 4, { 1, 2, 4, 8 }, 256, 0, 1, false, true, 16 },
	{ 1, 6, { 1, 2, 4, 8, 16, 32 }, 256, 0, 1, true, true, 8 },
	{ 1, 4, { 1, 2, 4, 8 }, 256, 0, 1, false, true, 8 },
	/* small matrices of long rows (finite elements, 2000 rows of 25 to
	 * 45 columns): at 32 features the best above was 4 threads a row
	 * with a register budget of one block (18), still below cuSPARSE;
	 * 8 threads a row, and 64-thread blocks that spread the few rows
	 * over more multiprocessors */
	{ 1, 6, { 8, 16, 32, 64, 128, 256 }, 256, 1, 8, false, false, 0 },
	{ 1, 6, { 8, 16, 32, 64, 128, 256 }, 64, 1, 8, false, false, 0 },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 }, 64, 1, 4, false, false, 0 },
};
#define N_CANDIDATES (int)(sizeof(candidates) / sizeof(candidates[0]))

/* The count of candidates. */
int stir_spmm_hybrid_n_candidates(void)
{
	return N_CANDIDATES;
}

/* i: the candidate's index. */
const stir_spmm_hybrid_candidate *stir_spmm_hybrid_get_candidate(int i)
{
	return i >= 0 && i < N_CANDIDATES ? &candidates[i] : NULL;
}

/* The candidates most often within 3% of the fastest in the exhaustive
 * search of bench/results/spmm_shared.json (NVIDIA H200, 23 shared graphs
 * x 5 feature sizes) where the cost model's first 16 held none, chosen one
 * by one, each covering most of the cases left: the measured search times
 * them whatever the model's order (the model, fitted on that file, ranks
 * the fastest 22nd to 59th on the H100's finite-element matrices:
 * bench/RESULTS.md, "The tuner over the full set").  Then 65, which that
 * file predates: on the H100 (the 20-run times of 22 shared graphs) the
 * fastest at 32 features on the small matrices of long rows (FIDAP_ex6,
 * HB_bcsstk13; within 1% on cora and vanHeukelum_cage8), where the model,
 * crediting the locality order's candidates with L1 hits these banded
 * matrices already get in their own order, ranks it 13th or 14th, past
 * the 16 timed (bench/RESULTS.md, "The tuner's list with candidate 65").
 * Then 7, 52, 12, 16, 53 and 60, chosen one by one on the H100's
 * exhaustive searches (tune_full_spmm_search20_h100.json and
 * tune6_spmm_h100/, 22 graphs x 5 sizes), each covering most of the cases
 * left where the search's first 32 held none within 3% (bests the model
 * ranks 33rd to 54th: Pothen_commanche_dual, HB_bcsstk33, citeseer,
 * DIMACS10_data, AG-Monien_3elt; bench/RESULTS.md, "The tuner's list of
 * 15, 24 timed"). */
static const int often_fastest[] = { 8, 35, 44, 24, 43, 55, 3, 54, 65,
	7, 52, 12, 16, 53, 60 };

/* The count of those candidates. */
int stir_spmm_hybrid_n_often_fastest(void)
{
	return (int)(sizeof(often_fastest) / sizeof(often_fastest[0]));
}

/* i: the position in the list. */
int stir_spmm_hybrid_get_often_fastest(int i)
{
	return i >= 0 && i < stir_spmm_hybrid_n_often_fastest() ?
		often_fastest[i] : -1;
}

/* p, feat: see recipes.h. */
stir_spmm_map stir_spmm_hybrid_map(const stir_spmm_hybrid_candidate *p,
	int64_t feat)
{
	stir_spmm_map fm = p->serial_lanes ?
		stir_spmm_map_serial(feat, p->serial_lanes) :
		stir_spmm_map_grouped(feat, p->group);
	fm.warp_cache = p->warp_cache;
	if (p->threads != 256) {
		/* fewer rows per block; the features keep their threads */
		fm.rows = fm.rows * p->threads / 256;
		if (fm.rows < 1)
			fm.rows = 1;
	}
	return fm;
}

/* p, feat: see recipes.h. */
bool stir_spmm_hybrid_fits(const stir_spmm_hybrid_candidate *p, int64_t feat)
{
	return stir_spmm_map_fits(stir_spmm_hybrid_map(p, feat));
}

/* p: see recipes.h. */
unsigned stir_spmm_hybrid_candidate_format_flags(
	const stir_spmm_hybrid_candidate *p)
{
	return stir_spmm_hybrid_format_flags(p->c) |
		(p->locality ? STIR_HYBRID_LOCALITY_ORDER : 0);
}
