/* The SpMM schedules (bench/spmm_schedule.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stir/codegen.h>
#include "bench/spmm_schedule.h"

/* feat, group: see spmm_schedule.h. */
bench_spmm_map bench_spmm_map_grouped(int64_t feat, int64_t group)
{
	bench_spmm_map f = { feat, 32 / group, 4, 1, 8, group, true, false };
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

/* feat, lanes: see spmm_schedule.h. */
bench_spmm_map bench_spmm_map_serial(int64_t feat, int64_t lanes)
{
	bench_spmm_map f = bench_spmm_map_features(feat);
	f.lanes = lanes;
	f.chunks = feat / (lanes * f.vec);
	f.rows = 256 / lanes;
	f.serial = true;
	return f;
}

/* fm: see spmm_schedule.h. */
bool bench_spmm_map_fits(bench_spmm_map fm)
{
	if (fm.serial)
		return fm.lanes >= 1 && fm.lanes <= 32 && fm.chunks >= 2 &&
			fm.chunks * fm.lanes * fm.vec == fm.feat &&
			fm.chunks * fm.vec <= 32;
	return fm.group <= 1 || fm.chunks * fm.vec <= 32;
}

/* feat: see spmm_schedule.h. */
bench_spmm_map bench_spmm_map_features(int64_t feat)
{
	return bench_spmm_map_grouped(feat, 1);
}

/* width, fm: the columns of a row of a part WIDTH wide that its warp
 * caches hold at a time: all of them, or when the row is wider than the
 * lanes, the widest piece that divides it (so that no tail needs a
 * guard); 0 when the part has no warp caches. */
static int64_t warp_piece(int64_t width, bench_spmm_map fm)
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
	int64_t width, bench_spmm_map fm, bool atomic)
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
	bench_spmm_map fm, bool atomic)
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
	/* a row wider than its warp caches hold: pieces c_0 of c_1 columns */
	int64_t piece = warp_piece(width, fm);
	const int64_t fc[] = { 0, piece };
	if (piece && piece < width)
		return stir_split(k, block, "c", 2, fc) < 0 ||
			stir_unroll(k, block, "c_0") < 0 ||
			stir_unroll(k, block, "c_1") < 0 ? -1 : 0;
	return stir_unroll(k, block, "c") < 0 ? -1 : 0;
}

/* k, block, back, width, fm, over_init: stage3_part for fm.group > 1:
 * the sums of the thread's features in registers over the row's columns
 * (c_1 for a shared row, whose threads then combine them by shuffles:
 * every one holds the row's sums, one stores them; c for a narrow part),
 * the features in vectors (k_1_1, and ax0_1 in the write-back BACK). */
static int stage3_part_grouped(stir_kernel *k, const char *block,
	const char *back, int64_t width, bench_spmm_map fm, bool over_init)
{
	bool shared = width >= fm.group;
	const int64_t fv[] = { 0, fm.vec };
	if ((over_init ? stir_cache_write_over_init : stir_cache_write)(k, block,
	    "C_data", shared ? "c_1" : "c", STIR_SCOPE_LOCAL) < 0 ||
	    (shared && (stir_cross_thread_reduce(k, block, "c_1") < 0 ||
	    stir_bind(k, block, "c_1", STIR_THREAD_X) < 0)) ||
	    stir_split(k, block, "k_1", 2, fv) < 0 ||
	    stir_unroll(k, block, "k_1_0") < 0 ||
	    stir_split(k, back, "ax0", 2, fv) < 0 ||
	    stir_unroll(k, back, "ax0_0") < 0)
		return -1;
	return fm.vec > 1 && (stir_vectorize(k, block, "k_1_1") < 0 ||
		stir_vectorize(k, back, "ax0_1") < 0) ? -1 : 0;
}

/* k, block, q, t, width, fm: the column indices and values of the rows
 * of part (q, t) (WIDTH columns) in warp caches: the lanes of a row
 * (threadIdx.x) load them together, warp_piece columns at a time (loop
 * c_1 of the split schedule_part made when the row is wider), and each
 * column's index and value come to every lane by a shuffle. */
static int warp_cache_part(stir_kernel *k, const char *block, int q, int t,
	int64_t width, bench_spmm_map fm)
{
	char idx[64], val[64];
	snprintf(idx, sizeof(idx), "C_hyb_%d_%d_indices", q, t);
	snprintf(val, sizeof(val), "A_hyb_%d_%d_data", q, t);
	const char *loop = warp_piece(width, fm) < width ? "c_1" : "c";
	return stir_cache_read(k, block, idx, loop, STIR_SCOPE_WARP) < 0 ||
		stir_cache_read(k, block, val, loop, STIR_SCOPE_WARP) < 0 ? -1 : 0;
}

/* k, block, i, fm, over_init: at stage III, the row's fm.vec sums of part
 * i in registers (a local cache of C_data over the loop of columns,
 * written back by block C_data_local, C_data_local1, ... in the order of
 * the parts; "over_init": taking over the part's init nest, so that the
 * part stores its rows of C once), the vector loops vectorized: the loads
 * of B and the write-back (float4 stores, or float4 atomic adds on
 * sm_90). */
static int stage3_part(stir_kernel *k, const char *block, int i,
	int64_t width, bench_spmm_map fm, bool over_init)
{
	char back[32];
	if (i == 0)
		snprintf(back, sizeof(back), "C_data_local");
	else
		snprintf(back, sizeof(back), "C_data_local%d", i);
	if (fm.group > 1)
		return stage3_part_grouped(k, block, back, width, fm, over_init);
	int64_t piece = warp_piece(width, fm);
	if ((over_init ? stir_cache_write_over_init : stir_cache_write)(k, block,
	    "C_data", piece && piece < width ? "c_0" : "c", STIR_SCOPE_LOCAL) < 0)
		return -1;
	/* serial chunks: the write-back over the chunks (ax0) and the vector
	 * (ax1) */
	if (fm.serial && stir_unroll(k, back, "ax0") < 0)
		return -1;
	if (fm.vec == 1)
		return 0;
	return stir_vectorize(k, block, "k_2") < 0 ||
		stir_vectorize(k, back, fm.serial ? "ax1" : "ax0") < 0 ? -1 : 0;
}

/* k, block, fm: the schedule of an init nest (block BLOCK over ROWS, k:
 * C = 0) like the computation's: rows over blockIdx.x and threadIdx.y,
 * features over threadIdx.x in vectors of fm.vec, the chunks serially. */
static int schedule_init(stir_kernel *k, const char *block, const char *rows,
	bench_spmm_map fm)
{
	const int64_t fk[] = { 0, fm.lanes, fm.vec };
	/* 256 threads (the grouped rows' threads become rows here) */
	const int64_t fi[] = { 0, fm.rows * (fm.group > 1 ? fm.group :
		fm.serial ? 1 : fm.chunks) };
	char r0[32], r1[32];
	snprintf(r0, sizeof(r0), "%s_0", rows);
	snprintf(r1, sizeof(r1), "%s_1", rows);
	return stir_split(k, block, "k", 3, fk) < 0 ||
		stir_split(k, block, rows, 2, fi) < 0 ||
		stir_bind(k, block, r0, STIR_BLOCK_X) < 0 ||
		stir_bind(k, block, r1, STIR_THREAD_Y) < 0 ||
		stir_bind(k, block, "k_1", STIR_THREAD_X) < 0 ||
		(fm.vec > 1 && stir_vectorize(k, block, "k_2") < 0) ? -1 : 0;
}

/* c: see spmm_schedule.h. */
unsigned bench_spmm_hybrid_flags(int c)
{
	return STIR_HYBRID_ALL_PARTS | STIR_HYBRID_PAD_ANY_COLUMN |
		(c == 1 ? STIR_HYBRID_COVER_ROWS : 0);
}

/* The parts of a hybrid schedule, one array element per part (heap). */
typedef struct hyb_parts {
	stir_format_rule **rules;
	const char **blocks;
	char (*names)[64];
	bool *atomic;
	int64_t *width;
	int *part_q, *part_t;
} hyb_parts;

/* k, c, buckets, nb, fm, n, hp: bench_spmm_hybrid_schedule for its n
 * parts, with hp's arrays to fill. */
static int hybrid_parts(stir_kernel *k, int c, const int64_t *buckets,
	int nb, bench_spmm_map fm, int n, const hyb_parts *hp)
{
	bool cover = c == 1;
	stir_format_rule **rules = hp->rules;
	const char **blocks = hp->blocks;
	char (*names)[64] = hp->names, init[64] = "";
	bool *atomic = hp->atomic;
	int64_t *width = hp->width;
	int *part_q = hp->part_q, *part_t = hp->part_t;
	int rc = 0;
	/* covering the rows, first the split rows' part 0_NB (the widest
	 * width): its init nest then runs before the one launch of all the
	 * parts; it alone adds atomically */
	for (int r = 0; r < n; r++) {
		int q = cover ? 0 : r / nb;
		int t = cover ? (r == 0 ? nb : r - 1) : r % nb;
		width[r] = buckets[t < nb ? t : nb - 1];
		part_q[r] = q;
		part_t[r] = t;
		rules[r] = stir_format_hybrid_part("_hyb", q, t, width[r]);
		rc |= rules[r] ? 0 : -1;
		stir_format_rule_set_cover_rows(rules[r], cover);
		snprintf(names[r], sizeof(names[r]), "csrmm_hyb_%d_%d0", q, t);
		blocks[r] = names[r];
		atomic[r] = cover ? t == nb : c > 1 || t == nb - 1;
	}
	if (cover)
		snprintf(init, sizeof(init), "csrmm_hyb_0_%d_init0", nb);
	if (rc == 0)
		rc = stir_decompose_format(k, "A", n, (stir_format_rule **)rules);
	for (int i = 0; i < n; i++)
		stir_format_rule_free(rules[i]);
	if (rc < 0 || stir_lower_sparse_iter(stir_kernel_get_module(k)) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (schedule_part(k, blocks[i], width[i], fm, atomic[i]) < 0)
			return -1;
	if (schedule_init(k, cover ? init : "csrmm_init0", cover ? "o" : "i",
	    fm) < 0 || stir_default_schedule(k) < 0 ||
	    stir_kernel_lower_sparse_buffer(k) < 0)
		return -1;
	/* the parts that do not add atomically hold distinct rows of C: they
	 * store them once, taking over their init nests */
	for (int i = 0; i < n; i++)
		if (stage3_part(k, blocks[i], i, width[i], fm,
		    cover && !atomic[i]) < 0)
			return -1;
	/* then the columns of every part in warp caches */
	for (int i = 0; i < n; i++)
		if (warp_piece(width[i], fm) && warp_cache_part(k, blocks[i],
		    part_q[i], part_t[i], width[i], fm) < 0)
			return -1;
	const char *out[] = { "C_data" };
	/* last, the GPU's stage III rewrites */
	return (n > 1 && stir_horizontal_fuse_disjoint(k, n, blocks, 1, out) <
		0) || stir_kernel_prepare_for_gpu(k) < 0 ? -1 : 0;
}

/* k, c, buckets, nb, fm: see spmm_schedule.h. */
int bench_spmm_hybrid_schedule(stir_kernel *k, int c, const int64_t *buckets,
	int nb, bench_spmm_map fm)
{
	/* the feature count is the kernel's, so that its splits need no tail
	 * guards; the matrix's sizes stay symbolic */
	if (c < 1 || nb < 1 || stir_specialize(k, "feat", fm.feat) < 0)
		return -1;
	bool cover = c == 1;
	int n = c * nb + cover;
	size_t m = (size_t)n;
	hyb_parts hp = {
		calloc(m, sizeof(*hp.rules)), calloc(m, sizeof(*hp.blocks)),
		calloc(m, sizeof(*hp.names)), calloc(m, sizeof(*hp.atomic)),
		calloc(m, sizeof(*hp.width)), calloc(m, sizeof(*hp.part_q)),
		calloc(m, sizeof(*hp.part_t)),
	};
	int rc = hp.rules && hp.blocks && hp.names && hp.atomic && hp.width &&
		hp.part_q && hp.part_t ? hybrid_parts(k, c, buckets, nb, fm, n,
		&hp) : -1;
	free(hp.rules);
	free(hp.blocks);
	free(hp.names);
	free(hp.atomic);
	free(hp.width);
	free(hp.part_q);
	free(hp.part_t);
	return rc;
}

/* k, fm: see spmm_schedule.h (blocks csrmm0 over rows, csrmm1 over a
 * row's columns and the features). */
int bench_spmm_csr_schedule(stir_kernel *k, bench_spmm_map fm)
{
	const char *kj[] = { "k", "j" };
	const int64_t fk[] = { 0, fm.lanes }, fi[] = { 0, fm.rows * fm.chunks };
	return stir_specialize(k, "feat", fm.feat) < 0 ||
		stir_lower_sparse_iter(stir_kernel_get_module(k)) < 0 ||
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
