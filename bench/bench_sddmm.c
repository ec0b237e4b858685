/* SDDMM benchmark: S = (X Y^T) on the non-zeros of a sparse graph, stir's
 * fast SDDMM schedules (schedule/recipes/sddmm.c) against cuSPARSE's
 * cusparseSDDMM, in one process, on one GPU.
 *
 * usage: bench_sddmm [--features 32,64,...] [--reps N] [--json FILE]
 *                    [--program examples/sddmm.stir] [--fused-only]
 *                    [--rows-only] [--vblock] [--vblock-csr] [--tiles]
 *                    [--candidates I,J,..] [--compile-only ARCH] GRAPH...
 * GRAPH: a Matrix Market file, or synthetic:arxiv|proteins|reddit.
 * --program names the fused program; the row program is sddmm_rows.stir
 * in the same folder.
 *
 * For each graph and feature size: cuSPARSE (CSR, its one algorithm,
 * descriptors and workspace made once; its result is the reference);
 * stir's kernel for every candidate of a small search: the fused
 * schedule (one flat loop over the non-zeros, for short rows) and the row
 * schedule (a row per thread block, for long rows), each with a few
 * numbers of lanes per non-zero (the default mapping of
 * stir_sddmm_map_features first); the fastest correct one is reported,
 * the search recorded.  With --vblock-csr the group candidates of 4 rows
 * (stir_sddmm_vblock_get_candidate) on sddmm_vb4_csr.stir, which writes
 * S in the matrix's order through the row groups' Dst in one launch,
 * compete too, numbered after the library's SDDMM candidates
 * (N_CANDIDATES + the group candidate's index, also in --candidates).
 * With --tiles the SDDMM over SR-BCRS(8, 16) tiles on tensor cores
 * (sddmm_tiles.stir with a gather after it, sddmm_tiles_csr.stir
 * straight into the matrix's order; run_tiles) is timed beside them,
 * not competing.
 * Every timing is
 * the median of BENCH_REPS runs after BENCH_WARMUP, each run starting with
 * the L2 cache flushed.  The achieved bandwidth counts the bytes the
 * operation must move: X, Y, the structure (indptr, indices) read once and
 * S written once.  With --compile-only ARCH every kernel is compiled for
 * ARCH into the NVRTC cache (STIR_CACHE_DIR) and nothing runs: no GPU is
 * needed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench/common.h"

/* The candidates are the library's (stir_sddmm_get_candidate): each
 * schedule with at most so many lanes per non-zero. */
#define N_CANDIDATES stir_sddmm_n_candidates()
/* and after them (--vblock-csr) the group candidates */
#define N_ALL (N_CANDIDATES + stir_sddmm_vblock_n_candidates())
#define MAX_CANDIDATES 64
static const char *const schedule_name[] = { "fused", "rows", "vb4_csr" };

/* The program's own flags (bits of bench_options.flags). */
static const char *const flags[] = { "--fused-only", "--rows-only",
	"--vblock", "--vblock-csr", "--tiles", NULL };
#define FUSED_ONLY 1u
#define ROWS_ONLY 2u
#define VBLOCK 4u
#define VBLOCK_CSR 8u
#define TILES 16u

/* One result, for the table and the JSON. */
typedef struct result {
	char graph[64];
	int64_t m, nnz, feat;
	double cusparse_ms, stir_ms;
	double err;                 /* stir against cuSPARSE */
	stir_sddmm_map map;        /* the fastest candidate */
	int schedule;               /* its schedule: 0 fused, 1 rows, 2 the
	                               groups of 4 rows in CSR order */
	int candidate;              /* its index (stir_sddmm_get_candidate;
	                               N_CANDIDATES + the group candidate's) */
	double bytes;               /* bytes the operation must move */
	double search_ms[MAX_CANDIDATES]; /* each candidate; -1 (null in the
	                               JSON): a duplicate of an earlier one,
	                               or it failed */
} result;

/* o, feat, i: candidate i for "feat" features; false when it is not run:
 * its schedule is left out (--fused-only, --rows-only), or it maps like an
 * earlier one of its schedule (fewer lanes than the features allow change
 * nothing). */
static bool candidate(const bench_options *o, int64_t feat, int i,
	stir_sddmm_map *fm)
{
	const stir_sddmm_candidate *p = stir_sddmm_get_candidate(i);
	if (o->flags & (p->rows ? FUSED_ONLY : ROWS_ONLY) ||
	    !bench_candidate_selected(o, i))
		return false;
	*fm = stir_sddmm_candidate_map(p, feat);
	for (int j = 0; j < i; j++) {
		const stir_sddmm_candidate *q = stir_sddmm_get_candidate(j);
		stir_sddmm_map qm = stir_sddmm_candidate_map(q, feat);
		if (q->rows == p->rows && qm.lanes == fm->lanes &&
		    qm.vec == fm->vec && qm.nnz == fm->nnz &&
		    qm.chunks == fm->chunks && q->x_global == p->x_global &&
		    qm.row_tile == fm->row_tile)
			return false;
	}
	return true;
}

static stir_kernel *vblock_kernel(stir_ctx *ctx, const bench_options *o,
	int64_t rows, const char *name, stir_module **mod);

/* The kernel of schedule "rows" (0 fused, 1 rows). */
static const char *kernel_name(int rows)
{
	return rows ? "sddmm_rows" : "sddmm";
}

/* o, rows, buf, size: the program of schedule "rows": --program, or
 * sddmm_rows.stir in its folder (in buf). */
static const char *program_path(const bench_options *o, int rows, char *buf,
	size_t size)
{
	if (!rows)
		return o->program;
	const char *slash = strrchr(o->program, '/');
	int dir = slash ? (int)(slash - o->program) + 1 : 0;
	snprintf(buf, size, "%.*ssddmm_rows.stir", dir, o->program);
	return buf;
}

/* ctx, o, i, feat, co, mod: candidate i's kernel (its program's kernel
 * sddmm or sddmm_rows) scheduled for "feat" features
 * (stir_recipe_sddmm_candidate) and compiled; *mod receives the module
 * (to free, also on failure).  NULL with diagnostics. */
static stir_gpu_kernel *sddmm_kernel(stir_ctx *ctx, const bench_options *o,
	int i, int64_t feat, const stir_compile_options *co,
	stir_module **mod)
{
	char buf[4096];
	const stir_sddmm_candidate *p = stir_sddmm_get_candidate(i);
	const char *program = program_path(o, p->rows, buf, sizeof(buf));
	stir_kernel *k = bench_read_kernel(ctx, program, kernel_name(p->rows),
		mod);
	if (!k || stir_recipe_sddmm_candidate(k, p, feat) < 0)
		return NULL;
	return stir_gpu_kernel_compile(k, co);
}

/* o, c: whether group candidate c runs on sddmm_vb4_csr.stir: with
 * --vblock-csr, of 4 rows, selected (as N_CANDIDATES + c). */
static bool csr_candidate(const bench_options *o, int c)
{
	return (o->flags & VBLOCK_CSR) &&
		stir_sddmm_vblock_get_candidate(c)->rows == 4 &&
		bench_candidate_selected(o, N_CANDIDATES + c);
}

/* ctx, o, c, feat, co, mod: group candidate c on kernel sddmm_vb_csr of
 * sddmm_vb4_csr.stir (in the folder of --program), scheduled for "feat"
 * features and compiled; *mod receives the module (to free, also on
 * failure).  NULL with diagnostics. */
static stir_gpu_kernel *vb_csr_kernel(stir_ctx *ctx, const bench_options *o,
	int c, int64_t feat, const stir_compile_options *co, stir_module **mod)
{
	char buf[4096];
	const char *slash = strrchr(o->program, '/');
	int dir = slash ? (int)(slash - o->program) + 1 : 0;
	snprintf(buf, sizeof(buf), "%.*ssddmm_vb4_csr.stir", dir, o->program);
	stir_kernel *k = bench_read_kernel(ctx, buf, "sddmm_vb_csr", mod);
	if (!k || stir_recipe_sddmm_vblock_candidate(k,
	    stir_sddmm_vblock_get_candidate(c), feat) < 0)
		return NULL;
	return stir_gpu_kernel_compile(k, co);
}

/* The tile kernels: 3xTF32 (about f32's error) and tf32, each with a
 * window's groups over 4, 8 or 16 warps; the steps over the features a
 * loop, or unrolled (unroll: all of them; steps: in pieces of that many,
 * each piece's fragments loaded before its mma, docs/cuda.md); the slots
 * stored as they are (then gathered into the matrix's order), or
 * straight into the matrix's order (csr: sddmm_tiles_csr.stir, one
 * launch); with chain, the features also split over feat / 8 / chain
 * thread blocks (at least 2, blockIdx.y) of chain steps each, unrolled,
 * whose fragments are added atomically into S, zeroed by a launch of its
 * own first; with kwarps, the features split over that many warps of the
 * thread block instead (threadIdx.z, the groups over "warps" warps on
 * threadIdx.y), their partial tiles summed in shared memory and stored
 * through Dst (sddmm_tiles_csr_kwarps.yaml: one launch, no atomics);
 * with tiles, that many groups a warp, each its own mma chain over the
 * same rows of X (sddmm_tiles_csr_tiles2.yaml: the steps in pieces of
 * "steps"). */
static const struct {
	const char *intrinsic;
	int warps;
	bool unroll;
	int steps;
	bool csr;
	int chain;
	int kwarps;
	int tiles;
} tile_kernels[] = { { "mma_m16n8k8_3xtf32", 8, false, 0, false, 0, 0, 0 },
	{ "mma_m16n8k8_tf32", 8, false, 0, false, 0, 0, 0 },
	{ "mma_m16n8k8_3xtf32", 8, false, 0, true, 0, 0, 0 },
	{ "mma_m16n8k8_3xtf32", 8, false, 8, true, 0, 0, 0 },
	{ "mma_m16n8k8_tf32", 8, false, 8, true, 0, 0, 0 },
	{ "mma_m16n8k8_3xtf32", 8, false, 16, true, 0, 0, 0 },
	{ "mma_m16n8k8_3xtf32", 16, false, 8, true, 0, 0, 0 },
	{ "mma_m16n8k8_3xtf32", 8, false, 0, true, 4, 0, 0 },
	{ "mma_m16n8k8_3xtf32", 8, false, 0, true, 8, 0, 0 },
	{ "mma_m16n8k8_tf32", 8, false, 0, true, 4, 0, 0 },
	{ "mma_m16n8k8_3xtf32", 4, false, 0, true, 0, 4, 0 },
	{ "mma_m16n8k8_3xtf32", 4, false, 0, true, 0, 8, 0 },
	{ "mma_m16n8k8_3xtf32", 8, false, 0, true, 0, 4, 0 },
	{ "mma_m16n8k8_3xtf32", 2, false, 0, true, 0, 8, 0 },
	{ "mma_m16n8k8_tf32", 4, false, 0, true, 0, 4, 0 },
	{ "mma_m16n8k8_3xtf32", 8, false, 8, true, 0, 0, 2 },
	{ "mma_m16n8k8_3xtf32", 4, false, 8, true, 0, 0, 2 },
	{ "mma_m16n8k8_3xtf32", 4, false, 8, true, 0, 0, 4 },
	{ "mma_m16n8k8_3xtf32", 8, false, 4, true, 0, 0, 2 },
	{ "mma_m16n8k8_3xtf32", 4, false, 16, true, 0, 0, 2 },
	{ "mma_m16n8k8_3xtf32", 2, false, 8, true, 0, 0, 4 },
	{ "mma_m16n8k8_tf32", 4, false, 8, true, 0, 0, 2 },
	{ "mma_m16n8k8_3xtf32", 8, false, 16, true, 0, 0, 2 },
	{ "mma_m16n8k8_3xtf32", 8, false, 8, true, 0, 0, 4 },
	{ "mma_m16n8k8_3xtf32", 16, false, 8, true, 0, 0, 2 },
	{ "mma_m16n8k8_3xtf32", 4, false, 16, true, 0, 0, 4 } };
#define N_TILE_KERNELS (int)(sizeof(tile_kernels) / sizeof(tile_kernels[0]))

/* i, feat: the thread blocks over the features of tile kernel i (1: no
 * split). */
static int64_t tile_kblocks(int i, int64_t feat)
{
	int chain = tile_kernels[i].chain;
	return chain == 0 ? 1 : feat / 8 / chain >= 2 ? feat / 8 / chain : 2;
}

/* i, feat: the warps over the features of tile kernel i (1: none). */
static int64_t tile_kwarps(int i, int64_t feat)
{
	int64_t kw = tile_kernels[i].kwarps;
	return kw == 0 ? 1 : kw < feat / 8 ? kw : feat / 8;
}

/* i, feat, text, size: the schedule of tile kernel i with the features
 * over the warps of a block (examples/sddmm_tiles_csr_kwarps.yaml), into
 * text. */
static void kwarps_schedule(int i, int64_t feat, char *text, size_t size)
{
	int64_t kw = tile_kwarps(i, feat), g = tile_kernels[i].warps;
	const char *in = tile_kernels[i].intrinsic;
	snprintf(text, size,
		"kernel: sddmm_tiles_csr\n"
		"stage1:\n"
		"  - specialize: {param: feat, value: %lld}\n"
		"stage2:\n"
		"  - split: {block: sddmm_tiles1, loop: k, factors: [null, 8]}\n"
		"  - split: {block: sddmm_tiles1, loop: k_0, factors: [%lld, null]}\n"
		"  - split: {block: sddmm_tiles1, loop: g, factors: [null, %lld]}\n"
		"  - reorder: {block: sddmm_tiles1, loops: [g_0, k_0_0, g_1, k_0_1, "
		"c, r, k_1]}\n"
		"  - bind: {block: sddmm_tiles0, loop: w, to: blockIdx.x}\n"
		"%s"
		"stage3:\n"
		"  - cache_write_over_init: {block: sddmm_tiles1, buffer: S_data, "
		"loop: k_0_0, scope: shared, per: k_0_0}\n"
		"  - cache_write: {block: sddmm_tiles1, buffer: S_data_shared, "
		"loop: k_0_1, scope: local}\n"
		"  - tensorize: {block: S_data_shared_local_init, loop: ax0, "
		"intrinsic: %s}\n"
		"  - tensorize: {block: sddmm_tiles1, loop: c, intrinsic: %s}\n"
		"  - tensorize: {block: S_data_shared_local, loop: ax0, "
		"intrinsic: %s}\n"
		"  - bind: {block: sddmm_tiles1, loop: k_0_0, to: threadIdx.z}\n"
		"  - bind: {block: sddmm_tiles1, loop: g_1, to: threadIdx.y}\n"
		"  - fuse: {block: S_data_shared_init, loops: [ax0, ax1, ax2]}\n"
		"  - split: {block: S_data_shared_init, loop: ax0_ax1_ax2, "
		"factors: [null, %lld, 32]}\n"
		"  - bind: {block: S_data_shared_init, loop: s, to: threadIdx.z}\n"
		"  - bind: {block: S_data_shared_init, loop: ax0_ax1_ax2_1, "
		"to: threadIdx.y}\n"
		"  - bind: {block: S_data_shared_init, loop: ax0_ax1_ax2_2, "
		"to: threadIdx.x}\n"
		"  - fuse: {block: S_data_shared, loops: [ax0, ax1, ax2]}\n"
		"  - split: {block: S_data_shared, loop: ax0_ax1_ax2, "
		"factors: [null, %lld, %lld, 32]}\n"
		"  - bind: {block: S_data_shared, loop: ax0_ax1_ax2_1, "
		"to: threadIdx.z}\n"
		"  - bind: {block: S_data_shared, loop: ax0_ax1_ax2_2, "
		"to: threadIdx.y}\n"
		"  - bind: {block: S_data_shared, loop: ax0_ax1_ax2_3, "
		"to: threadIdx.x}\n",
		(long long)feat, (long long)kw, (long long)g,
		feat / 8 / kw <= 16 ?
		"  - unroll: {block: sddmm_tiles1, loop: k_0_1}\n" : "",
		in, in, in, (long long)g, (long long)kw, (long long)g);
}

/* i, feat, text, size: the schedule of tile kernel i with several
 * groups a warp (examples/sddmm_tiles_csr_tiles2.yaml), into text. */
static void tiles_schedule(int i, int64_t feat, char *text, size_t size)
{
	int64_t steps = tile_kernels[i].steps < feat / 8 ?
		tile_kernels[i].steps : feat / 8;
	const char *in = tile_kernels[i].intrinsic;
	snprintf(text, size,
		"kernel: sddmm_tiles_csr\n"
		"stage1:\n"
		"  - specialize: {param: feat, value: %lld}\n"
		"stage2:\n"
		"  - split: {block: sddmm_tiles1, loop: k, factors: [null, 8]}\n"
		"  - split: {block: sddmm_tiles1, loop: k_0, factors: [null, %lld]}\n"
		"  - split: {block: sddmm_tiles1, loop: g, factors: [null, %d, %d]}\n"
		"  - reorder: {block: sddmm_tiles1, loops: [g_0, g_1, k_0_0, g_2, "
		"k_0_1, c, r, k_1]}\n"
		"  - bind: {block: sddmm_tiles0, loop: w, to: blockIdx.x}\n"
		"  - bind: {block: sddmm_tiles1, loop: g_1, to: threadIdx.y}\n"
		"  - unroll: {block: sddmm_tiles1, loop: k_0_1}\n"
		"stage3:\n"
		"  - cache_write_over_init: {block: sddmm_tiles1, buffer: S_data, "
		"loop: k_0_0, scope: local}\n"
		"  - unroll: {block: sddmm_tiles1, loop: g_2}\n"
		"  - unroll: {block: S_data_local_init, loop: ax0}\n"
		"  - unroll: {block: S_data_local, loop: ax0}\n"
		"  - tensorize: {block: S_data_local_init, loop: ax1, intrinsic: %s}\n"
		"  - tensorize: {block: sddmm_tiles1, loop: c, intrinsic: %s}\n"
		"  - tensorize: {block: S_data_local, loop: ax1, intrinsic: %s}\n",
		(long long)feat, (long long)steps, tile_kernels[i].warps,
		tile_kernels[i].tiles, in, in, in);
}

/* i, feat, text, size: the schedule of tile kernel i at "feat" features
 * without the features over warps: examples/sddmm_tiles_tc.yaml
 * (examples/sddmm_tiles_csr_tc.yaml for the CSR order, and
 * sddmm_tiles_csr_splitk.yaml with chain) with the features specialized,
 * the warps, the steps and the intrinsic of the kernel, into text. */
static void tile_schedule(int i, int64_t feat, char *text, size_t size)
{
	bool csr = tile_kernels[i].csr;
	const char *name = csr ? "sddmm_tiles_csr" : "sddmm_tiles";
	const char *buf = csr ? "S_data" : "St_data";
	const char *in = tile_kernels[i].intrinsic;
	int steps = tile_kernels[i].steps;
	int64_t kb = tile_kblocks(i, feat);
	/* pieces of "steps" steps when there are more, else all unrolled */
	bool pieces = steps > 0 && feat / 8 > steps;
	bool unroll = tile_kernels[i].unroll || (steps > 0 && !pieces);
	char split[256] = "", order[64] = "k_0", bind[512] = "";
	const char *unrolled = unroll ? "k_0" : NULL, *cached = "k_0";
	if (kb > 1) {
		snprintf(split, sizeof(split), "  - split: {block: sddmm_tiles1, "
			"loop: k_0, factors: [%lld, null]}\n", (long long)kb);
		snprintf(order, sizeof(order), "k_0_0, g_0, g_1, k_0_1");
		snprintf(bind, sizeof(bind),
			"  - set_atomic: {block: sddmm_tiles1}\n"
			"  - bind: {block: sddmm_tiles1, loop: k_0_0, to: blockIdx.y}\n"
			"  - bind: {block: sddmm_tiles_init0, loop: w, to: blockIdx.x}\n"
			"  - bind: {block: sddmm_tiles_init1, loop: c, to: threadIdx.y}\n"
			"  - bind: {block: sddmm_tiles_init1, loop: r, to: threadIdx.x}\n");
		unrolled = cached = "k_0_1";
	} else if (pieces) {
		snprintf(split, sizeof(split), "  - split: {block: sddmm_tiles1, "
			"loop: k_0, factors: [null, %d]}\n", steps);
		snprintf(order, sizeof(order), "g_0, g_1, k_0_0, k_0_1");
		unrolled = "k_0_1";
		cached = "k_0_0";
	} else {
		snprintf(order, sizeof(order), "g_0, g_1, k_0");
	}
	char unroll_line[128] = "";
	if (unrolled)
		snprintf(unroll_line, sizeof(unroll_line), "  - unroll: {block: "
			"sddmm_tiles1, loop: %s}\n", unrolled);
	snprintf(text, size,
		"kernel: %s\n"
		"stage1:\n"
		"  - specialize: {param: feat, value: %lld}\n"
		"stage2:\n"
		"  - split: {block: sddmm_tiles1, loop: k, factors: [null, 8]}\n"
		"%s"
		"  - split: {block: sddmm_tiles1, loop: g, factors: [null, %d]}\n"
		"  - reorder: {block: sddmm_tiles1, loops: [%s, c, r, k_1]}\n"
		"  - bind: {block: sddmm_tiles0, loop: w, to: blockIdx.x}\n"
		"  - bind: {block: sddmm_tiles1, loop: g_1, to: threadIdx.y}\n"
		"%s%s"
		"stage3:\n"
		"  - %s: {block: sddmm_tiles1, buffer: %s, loop: %s, scope: local}\n"
		"  - tensorize: {block: %s_local_init, loop: ax0, intrinsic: %s}\n"
		"  - tensorize: {block: sddmm_tiles1, loop: c, intrinsic: %s}\n"
		"  - tensorize: {block: %s_local, loop: ax0, intrinsic: %s}\n",
		name, (long long)feat, split, tile_kernels[i].warps, order, bind,
		unroll_line, kb > 1 ? "cache_write" : "cache_write_over_init", buf,
		cached, buf, in, in, buf, in);
}

/* ctx, o, i, feat, co, mod: tile kernel i (tile_kernels) for "feat"
 * features, compiled (tile_schedule, kwarps_schedule); *mod receives the
 * module to free; NULL with diagnostics. */
static stir_gpu_kernel *tile_kernel(stir_ctx *ctx, const bench_options *o,
	int i, int64_t feat, const stir_compile_options *co, stir_module **mod)
{
	char path[4096], text[4096];
	const char *slash = strrchr(o->program, '/');
	int dir = slash ? (int)(slash - o->program) + 1 : 0;
	const char *name = tile_kernels[i].csr ? "sddmm_tiles_csr" :
		"sddmm_tiles";
	snprintf(path, sizeof(path), "%.*s%s.stir", dir, o->program, name);
	if (tile_kernels[i].kwarps)
		kwarps_schedule(i, feat, text, sizeof(text));
	else if (tile_kernels[i].tiles > 1)
		tiles_schedule(i, feat, text, sizeof(text));
	else
		tile_schedule(i, feat, text, sizeof(text));
	stir_kernel *k = bench_read_kernel(ctx, path, name, mod);
	stir_schedule *s = k ? stir_schedule_read_from_mem(ctx,
		"tile schedule", text, strlen(text)) : NULL;
	/* (the GPU's stage III passes too: the guards lifted before the
	 * steps, the barriers of the shared sums) */
	int rc = s ? stir_schedule_prepare_for_gpu(s, k) : -1;
	stir_schedule_free(s);
	return rc == 0 ? stir_gpu_kernel_compile(k, co) : NULL;
}

/* i, feat, buf, size: how tile kernel i takes the steps over the
 * features, for its line of output, into buf. */
static const char *steps_label(int i, int64_t feat, char *buf, size_t size)
{
	if (tile_kernels[i].kwarps > 0)
		snprintf(buf, size, " x %lld warps over the features, %lld steps",
			(long long)tile_kwarps(i, feat),
			(long long)(feat / 8 / tile_kwarps(i, feat)));
	else if (tile_kernels[i].chain > 0)
		snprintf(buf, size, " %lld blocks x %lld steps",
			(long long)tile_kblocks(i, feat),
			(long long)(feat / 8 / tile_kblocks(i, feat)));
	else if (tile_kernels[i].tiles > 1)
		snprintf(buf, size, " x %d groups, steps %d", tile_kernels[i].tiles,
			tile_kernels[i].steps);
	else if (tile_kernels[i].steps > 0)
		snprintf(buf, size, " steps %d", tile_kernels[i].steps);
	else
		snprintf(buf, size, "%s", tile_kernels[i].unroll ? " unrolled" : "");
	return buf;
}

/* ctx, o, spec: --compile-only: every candidate for every feature size
 * (the kernels do not depend on the graph, which is not read). */
static void compile_graph(stir_ctx *ctx, const bench_options *o,
	const char *spec)
{
	stir_compile_options co = { .arch = o->arch };
	for (int fi = 0; fi < o->n_feats; fi++) {
		for (int i = 0; i < N_CANDIDATES; i++) {
			stir_sddmm_map fm;
			if (!candidate(o, o->feats[fi], i, &fm))
				continue;
			stir_module *m = NULL;
			stir_gpu_kernel *gk = sddmm_kernel(ctx, o, i,
				o->feats[fi], &co, &m);
			if (!gk)
				bench_fail(ctx, "compiling an SDDMM kernel");
			stir_gpu_kernel_free(gk);
			stir_module_free(m);
		}
		for (int c = 0; (o->flags & VBLOCK) &&
		     c < stir_sddmm_vblock_n_candidates(); c++) {
			const stir_sddmm_vblock_candidate *p =
				stir_sddmm_vblock_get_candidate(c);
			stir_module *m = NULL;
			stir_kernel *k = vblock_kernel(ctx, o, p->rows,
				"sddmm_vb", &m);
			stir_gpu_kernel *gk = k && stir_recipe_sddmm_vblock_candidate(
				k, p, o->feats[fi]) == 0 ?
				stir_gpu_kernel_compile(k, &co) : NULL;
			if (!gk)
				bench_fail(ctx, "compiling the vblock kernel");
			stir_gpu_kernel_free(gk);
			stir_module_free(m);
		}
		for (int c = 0; c < stir_sddmm_vblock_n_candidates(); c++) {
			if (!csr_candidate(o, c))
				continue;
			stir_module *m = NULL;
			stir_gpu_kernel *gk = vb_csr_kernel(ctx, o, c, o->feats[fi],
				&co, &m);
			if (!gk)
				bench_fail(ctx, "compiling the CSR-order group kernel");
			stir_gpu_kernel_free(gk);
			stir_module_free(m);
		}
		for (int i = 0; (o->flags & TILES) && i < N_TILE_KERNELS; i++) {
			stir_module *m = NULL;
			stir_gpu_kernel *gk = tile_kernel(ctx, o, i, o->feats[fi],
				&co, &m);
			if (!gk)
				bench_fail(ctx, "compiling a tile kernel");
			stir_gpu_kernel_free(gk);
			stir_module_free(m);
		}
	}
	(void)spec;
}

/* i: candidate i's schedule (0 fused, 1 rows, 2 groups of 4 rows in CSR
 * order). */
static int search_schedule(int i)
{
	return i < N_CANDIDATES ? stir_sddmm_get_candidate(i)->rows : 2;
}

/* i: candidate i's lanes at most. */
static int64_t search_lanes(int i)
{
	return i < N_CANDIDATES ? stir_sddmm_get_candidate(i)->max_lanes :
		stir_sddmm_vblock_get_candidate(i - N_CANDIDATES)->max_lanes;
}
/* i, feat: candidate i's mapping at "feat" features. */
static stir_sddmm_map search_map(int i, int64_t feat)
{
	return i < N_CANDIDATES ? stir_sddmm_candidate_map(
		stir_sddmm_get_candidate(i), feat) : stir_sddmm_vblock_candidate_map(
		stir_sddmm_vblock_get_candidate(i - N_CANDIDATES), feat);
}
/* i, feat: candidate i's threads a block at "feat" features. */
static int64_t search_threads(int i, int64_t feat)
{
	stir_sddmm_map fm = search_map(i, feat);
	return fm.lanes * fm.nnz;
}
/* i, feat: candidate i's thread blocks a row (the row schedule) or a
 * group (the groups); 1 for the fused schedule. */
static int64_t search_chunks(int i, int64_t feat)
{
	stir_sddmm_map fm = search_map(i, feat);
	return fm.chunks > 1 ? fm.chunks : 1;
}

/* f, r, last, copy_bw, n: one JSON object for result r, its search over
 * the first n candidates. */
static void json_result(FILE *f, const result *r, bool last, double copy_bw,
	int n)
{
	fprintf(f, "    {\"graph\": \"%s\", \"rows\": %lld, \"nnz\": %lld, "
		"\"features\": %lld, \"bytes\": %.0f,\n     ", r->graph,
		(long long)r->m, (long long)r->nnz, (long long)r->feat, r->bytes);
	bench_json_num(f, "cusparse_ms", r->cusparse_ms);
	bench_json_num(f, "stir_ms", r->stir_ms);
	bench_json_num(f, "speedup", r->cusparse_ms / r->stir_ms);
	bench_json_num(f, "max_rel_err", r->err);
	fprintf(f, "\n     ");
	bench_json_num(f, "cusparse_gbs", r->bytes / (r->cusparse_ms * 1e6));
	bench_json_num(f, "stir_gbs", r->bytes / (r->stir_ms * 1e6));
	bench_json_num(f, "cusparse_bw_fraction",
		r->bytes / (r->cusparse_ms * 1e-3) / copy_bw);
	bench_json_num(f, "stir_bw_fraction",
		r->bytes / (r->stir_ms * 1e-3) / copy_bw);
	fprintf(f, "\"schedule\": \"%s\", \"lanes\": %lld, \"vec\": %lld, "
		"\"nnz_per_block\": %lld,\n     \"search_schedule\": [",
		schedule_name[r->schedule], (long long)r->map.lanes,
		(long long)r->map.vec, (long long)r->map.nnz);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "",
			schedule_name[search_schedule(i)]);
	fprintf(f, "],\n     \"search_max_lanes\": [");
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%lld", i ? ", " : "", (long long)search_lanes(i));
	fprintf(f, "],\n     \"search_threads\": [");
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%lld", i ? ", " : "",
			(long long)search_threads(i, r->feat));
	fprintf(f, "],\n     \"search_x_global\": [");
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? ", " : "", i < N_CANDIDATES &&
			stir_sddmm_get_candidate(i)->x_global);
	fprintf(f, "],\n     \"search_chunks\": [");
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%lld", i ? ", " : "",
			(long long)search_chunks(i, r->feat));
	fprintf(f, "], \"candidate\": %d, ", r->candidate);
	bench_json_search(f, r->search_ms, n);
	fprintf(f, "}%s\n", last ? "" : ",");
}

/* ctx, o, dev, co, a, r, x, y, want: every candidate of
 * stir's kernel, checked against "want" and timed; the fastest correct
 * one into r (stir_ms INFINITY when none is). */
static void run_candidates(stir_ctx *ctx, const bench_options *o,
	stir_device *dev, const stir_compile_options *co, const bench_csr32 *a,
	result *r, const float *x, const float *y, const float *want)
{
	r->stir_ms = INFINITY;
	for (int i = 0; i < N_CANDIDATES; i++) {
		stir_sddmm_map fm;
		r->search_ms[i] = -1;
		if (!candidate(o, r->feat, i, &fm))
			continue;
		int rows = stir_sddmm_get_candidate(i)->rows;
		stir_module *m = NULL;
		stir_gpu_kernel *gk = sddmm_kernel(ctx, o, i, r->feat, co, &m);
		stir_bindings *b = stir_bindings_alloc();
		double ms, err;
		int rc = -1;
		if (gk) {
			stir_bindings_set_size(b, "m", a->m);
			stir_bindings_set_size(b, "n", a->n);
			stir_bindings_set_size(b, "nnz", a->nnz);
			bench_bind_copy(ctx, b, "J.indptr", STIR_I32, a->m + 1,
				a->indptr);
			bench_bind_copy(ctx, b, "J.indices", STIR_I32, a->nnz,
				a->indices);
			bench_bind_copy(ctx, b, "X", STIR_F32, a->m * r->feat, x);
			bench_bind_copy(ctx, b, "Y", STIR_F32, a->n * r->feat, y);
			rc = stir_kernel_bind_outputs(stir_module_find_kernel(m,
				kernel_name(rows)), b);
		}
		if (rc == 0)
			rc = bench_run_stir(gk, dev, b, "S", want, a->nnz, o->reps,
				&ms, &err);
		if (rc < 0) {
			fprintf(stderr, "bench: %s feat %lld: the %s kernel with "
				"%lld lanes fails:\n", r->graph, (long long)r->feat,
				schedule_name[rows], (long long)fm.lanes);
			stir_ctx_print_diagnostics(ctx, stderr);
		} else if (err > 1e-3) {
			fprintf(stderr, "bench: %s feat %lld: the %s kernel with "
				"%lld lanes differs from cuSPARSE by %g\n", r->graph,
				(long long)r->feat, schedule_name[rows],
				(long long)fm.lanes, err);
		} else {
			r->search_ms[i] = ms;
			if (ms < r->stir_ms) {
				r->stir_ms = ms;
				r->err = err;
				r->map = fm;
				r->schedule = rows;
				r->candidate = i;
			}
		}
		stir_ctx_clear_diagnostics(ctx);
		stir_bindings_free(b);
		stir_gpu_kernel_free(gk);
		stir_module_free(m);
	}
}

/* ctx, o, rows, name, mod: kernel "name" of sddmm_vbROWS.stir (rows > 0)
 * or sddmm_vb_gather.stir (rows 0) in the folder of --program, NULL with
 * diagnostics. */
static stir_kernel *vblock_kernel(stir_ctx *ctx, const bench_options *o,
	int64_t rows, const char *name, stir_module **mod)
{
	char buf[4096];
	const char *slash = strrchr(o->program, '/');
	int dir = slash ? (int)(slash - o->program) + 1 : 0;
	if (rows > 0)
		snprintf(buf, sizeof(buf), "%.*ssddmm_vb%lld.stir", dir,
			o->program, (long long)rows);
	else
		snprintf(buf, sizeof(buf), "%.*ssddmm_vb_gather.stir", dir,
			o->program);
	return bench_read_kernel(ctx, buf, name, mod);
}

/* ctx, o, dev, co, nnz, nv, pos, sv, want, ms, err: sddmm_vb_gather
 * (sddmm_vb_gather.stir in the folder of --program): the nnz values
 * S[p] = sv[pos[p]] out of nv slots, checked against "want" and timed
 * into *ms and *err; -1 (and *ms -1) with diagnostics on failure. */
static int run_gather(stir_ctx *ctx, const bench_options *o,
	stir_device *dev, const stir_compile_options *co, int64_t nnz,
	int64_t nv, const int32_t *pos, const float *sv, const float *want,
	double *ms, double *err)
{
	stir_module *m = NULL;
	stir_kernel *k = vblock_kernel(ctx, o, 0, "sddmm_vb_gather", &m);
	stir_gpu_kernel *g = k && stir_kernel_prepare_for_gpu(k) == 0 ?
		stir_gpu_kernel_compile(k, co) : NULL;
	stir_bindings *b = stir_bindings_alloc();
	stir_bindings_set_size(b, "nnz", nnz);
	stir_bindings_set_size(b, "nv", nv);
	bench_bind_copy(ctx, b, "Pos", STIR_I32, nnz, pos);
	bench_bind_copy(ctx, b, "Sv", STIR_F32, nv, sv);
	int rc = g && stir_kernel_bind_outputs(k, b) == 0 &&
		bench_run_stir(g, dev, b, "S", want, nnz, o->reps, ms, err) == 0 ?
		0 : -1;
	if (rc < 0)
		*ms = -1;
	stir_bindings_free(b);
	stir_gpu_kernel_free(g);
	stir_module_free(m);
	return rc;
}

/* ctx, o, dev, co, csr, r, x, y, want, rows: --vblock: the SDDMM over
 * groups of "rows" rows (the library's row groups of the graph,
 * stir_csr_to_row_groups), every group candidate of that many rows
 * (stir_recipe_sddmm_vblock_candidate) checked against a float64
 * reference of every slot and timed, then the gather of the slots' values
 * into the matrix's order (sddmm_vb_gather), checked against cuSPARSE's
 * result "want" and timed; each candidate's time, its bytes (Y's rows
 * of the groups' columns, X's rows, the slots written) and bandwidth,
 * and the best plus the gather against cuSPARSE printed. */
static void run_vblock(stir_ctx *ctx, const bench_options *o,
	stir_device *dev, const stir_compile_options *co, const stir_csr *csr,
	const result *r, const float *x, const float *y, const float *want,
	int64_t rows)
{
	int64_t feat = r->feat, m = csr->nrows, nnz = csr->nnz;
	stir_row_groups *v = stir_csr_to_row_groups(ctx, csr, rows);
	if (!v)
		bench_fail(ctx, "grouping the rows");
	int64_t nv = v->ncols_union * rows;
	float *xp = calloc((size_t)(v->ngroups * rows * feat) + 1, 4);
	float *ref = malloc((size_t)nv * 4 + 4);
	int32_t *ptr = malloc((size_t)(v->ngroups + 1) * 4);
	int32_t *ind = malloc((size_t)v->ncols_union * 4 + 4);
	int32_t *pos = malloc((size_t)nnz * 4 + 4);
	if (!xp || !ref || !ptr || !ind || !pos)
		bench_fail(ctx, "allocating the groups");
	for (int64_t i = 0; i <= v->ngroups; i++)
		ptr[i] = (int32_t)v->indptr[i];
	for (int64_t i = 0; i < v->ncols_union; i++)
		ind[i] = (int32_t)v->indices[i];
	for (int64_t i = 0; i < nnz; i++)
		pos[i] = (int32_t)v->pos[i];
	memcpy(xp, x, (size_t)(m * feat) * 4);
	for (int64_t b = 0; b < v->ngroups; b++)
		for (int64_t q = v->indptr[b]; q < v->indptr[b + 1]; q++)
			for (int g = 0; g < rows; g++) {
				const float *xr = xp + (b * rows + g) * feat;
				const float *yr = y + v->indices[q] * feat;
				double d = 0;
				for (int64_t f = 0; f < feat; f++)
					d += (double)xr[f] * yr[f];
				ref[q * rows + g] = (float)d;
			}
	/* what a group kernel moves at least: Y's row of every column of
	 * every group, the groups' rows of X, their indices and the slots */
	double bytes = (double)v->ncols_union * feat * 4 +
		(double)v->ngroups * rows * feat * 4 + (double)v->ncols_union * 4 +
		(double)nv * 4;
	stir_bindings *b1 = stir_bindings_alloc();
	double best = -1, ms2 = -1, e2 = 0;
	int best_c = -1;
	if (run_gather(ctx, o, dev, co, nnz, nv, pos, ref, want, &ms2,
	    &e2) == 0) {
		stir_bindings_set_size(b1, "m", v->ngroups);
		stir_bindings_set_size(b1, "n", csr->ncols);
		stir_bindings_set_size(b1, "nnz", v->ncols_union);
		bench_bind_copy(ctx, b1, "J.indptr", STIR_I32, v->ngroups + 1,
			ptr);
		bench_bind_copy(ctx, b1, "J.indices", STIR_I32, v->ncols_union,
			ind);
		bench_bind_copy(ctx, b1, "X", STIR_F32, v->ngroups * rows * feat,
			xp);
		bench_bind_copy(ctx, b1, "Y", STIR_F32, csr->ncols * feat, y);
	}
	for (int c = 0; ms2 >= 0 && c < stir_sddmm_vblock_n_candidates(); c++) {
		const stir_sddmm_vblock_candidate *p =
			stir_sddmm_vblock_get_candidate(c);
		if (p->rows != rows)
			continue;
		stir_module *m1 = NULL;
		stir_kernel *k1 = vblock_kernel(ctx, o, rows, "sddmm_vb", &m1);
		stir_gpu_kernel *g1 = k1 && stir_recipe_sddmm_vblock_candidate(
			k1, p, feat) == 0 ? stir_gpu_kernel_compile(k1, co) : NULL;
		double ms1 = -1, e1 = 0;
		stir_sddmm_map fm = stir_sddmm_vblock_candidate_map(p, feat);
		if (!g1 || stir_kernel_bind_outputs(k1, b1) < 0 ||
		    bench_run_stir(g1, dev, b1, "S", ref, nv, o->reps, &ms1,
		    &e1) < 0) {
			fprintf(stderr, "bench: %s feat %lld: group candidate %d "
				"fails:\n", r->graph, (long long)feat, c);
			stir_ctx_print_diagnostics(ctx, stderr);
		} else {
			printf("%-16s vblock%lld feat %5lld cand %2d (%2lld lanes x "
				"%3lld cols): slots/nnz %.3f | %.4f ms %7.1f GB/s (err "
				"%.2g) + gather %.4f ms = %.4f ms | cuSPARSE %.4f ms: "
				"%.2fx (best candidate %.4f ms)\n", r->graph,
				(long long)rows, (long long)feat, c,
				(long long)fm.lanes, (long long)fm.nnz,
				(double)nv / (double)(nnz > 0 ? nnz : 1), ms1,
				bytes / (ms1 * 1e6), e1, ms2, ms1 + ms2,
				r->cusparse_ms, r->cusparse_ms / (ms1 + ms2),
				r->stir_ms);
			if (best < 0 || ms1 < best) {
				best = ms1;
				best_c = c;
			}
		}
		stir_ctx_clear_diagnostics(ctx);
		stir_gpu_kernel_free(g1);
		stir_module_free(m1);
	}
	if (ms2 < 0) {
		fprintf(stderr, "bench: %s feat %lld: the gather fails:\n",
			r->graph, (long long)feat);
		stir_ctx_print_diagnostics(ctx, stderr);
	} else if (best >= 0) {
		printf("%-16s vblock%lld feat %5lld best cand %2d: %.4f ms + "
			"gather %.4f ms (err %.2g) = %.4f ms | cuSPARSE %.4f ms: "
			"%.2fx, kernel alone %.2fx (best candidate %.4f ms)\n",
			r->graph, (long long)rows, (long long)feat, best_c, best,
			ms2, e2, best + ms2, r->cusparse_ms,
			r->cusparse_ms / (best + ms2), r->cusparse_ms / best,
			r->stir_ms);
	}
	fflush(stdout);
	stir_ctx_clear_diagnostics(ctx);
	stir_bindings_free(b1);
	free(xp);
	free(ref);
	free(ptr);
	free(ind);
	free(pos);
	stir_row_groups_free(v);
}

/* The SR-BCRS(8, 16) tiles of a graph, for sddmm_tiles.stir: the
 * library's tile groups (stir_csr_to_tile_groups) in i32. */
typedef struct tiles {
	int64_t nw, maxg, ng, nslots;
	int32_t *ptr;   /* G.indptr: nw + 1 */
	int32_t *cols;  /* C.indices: ng * 16 */
	int32_t *pos;   /* the slot of each non-zero, for the gather */
	int32_t *dst;   /* each slot's place in the matrix's order */
} tiles;

/* n, v: the n values v as a new i32 array (NULL when out of memory). */
static int32_t *to_i32(int64_t n, const int64_t *v)
{
	int32_t *a = malloc((size_t)n * 4 + 4);
	for (int64_t i = 0; a && i < n; i++)
		a[i] = (int32_t)v[i];
	return a;
}

/* ctx, csr, t: the tiles of csr; false on failure. */
static bool make_tiles(stir_ctx *ctx, const stir_csr *csr, tiles *t)
{
	stir_tile_groups *g = stir_csr_to_tile_groups(ctx, csr, 8, 16);
	if (!g)
		return false;
	*t = (tiles){ .nw = g->nwindows, .maxg = g->maxg, .ng = g->ngroups,
		.nslots = g->nslots, .ptr = to_i32(g->nwindows + 1, g->indptr),
		.cols = to_i32(g->ngroups * 16, g->indices),
		.pos = to_i32(g->nnz, g->pos), .dst = to_i32(g->nslots, g->dst) };
	stir_tile_groups_free(g);
	return t->ptr && t->cols && t->pos && t->dst;
}

/* ctx, o, dev, co, csr, r, x, y, want: --tiles: the SDDMM over
 * SR-BCRS(8, 16) tiles on tensor cores (sddmm_tiles.stir, one kernel per
 * kernel of tile_kernels) checked against a float64 reference of
 * every slot and timed, then the gather of the slots' values into the
 * matrix's order (sddmm_vb_gather.stir), checked against the float64
 * reference of the non-zeros and timed; the largest relative error
 * against float64 printed for each and for cuSPARSE's result "want". */
static void run_tiles(stir_ctx *ctx, const bench_options *o,
	stir_device *dev, const stir_compile_options *co, const stir_csr *csr,
	const result *r, const float *x, const float *y, const float *want)
{
	int64_t feat = r->feat, m = csr->nrows, nnz = csr->nnz;
	tiles t = { 0 };
	if (!make_tiles(ctx, csr, &t))
		bench_fail(ctx, "building the SR-BCRS(8, 16) tiles");
	float *xp = calloc((size_t)(t.nw * 8 * feat) + 1, 4);
	float *ref = malloc((size_t)t.nslots * 4 + 4);
	float *ref_nz = malloc((size_t)nnz * 4 + 4);
	if (!xp || !ref || !ref_nz)
		bench_fail(ctx, "allocating the tiles");
	memcpy(xp, x, (size_t)(m * feat) * 4);
	for (int64_t w = 0; w < t.nw; w++)
		for (int64_t q = t.ptr[w] * 16; q < t.ptr[w + 1] * 16; q++)
			for (int64_t i = 0; i < 8; i++) {
				const float *xr = xp + (w * 8 + i) * feat;
				const float *yr = y + (int64_t)t.cols[q] * feat;
				double d = 0;
				for (int64_t f = 0; f < feat; f++)
					d += (double)xr[f] * yr[f];
				ref[q * 8 + i] = (float)d;
			}
	for (int64_t p = 0; p < nnz; p++)
		ref_nz[p] = ref[t.pos[p]];
	stir_bindings *b1 = stir_bindings_alloc();
	double ms2 = -1, e2 = 0;
	stir_bindings_set_size(b1, "nw", t.nw);
	stir_bindings_set_size(b1, "n", csr->ncols);
	stir_bindings_set_size(b1, "maxg", t.maxg);
	stir_bindings_set_size(b1, "ng", t.ng);
	bench_bind_copy(ctx, b1, "G.indptr", STIR_I32, t.nw + 1, t.ptr);
	bench_bind_copy(ctx, b1, "C.indices", STIR_I32, t.ng * 16, t.cols);
	bench_bind_copy(ctx, b1, "X", STIR_F32, t.nw * 8 * feat, xp);
	bench_bind_copy(ctx, b1, "Y", STIR_F32, csr->ncols * feat, y);
	/* the CSR-order kernels: each slot's place, the non-zeros' in the
	 * matrix's order, the padding's from nnz upwards */
	stir_bindings *b2 = stir_bindings_alloc();
	if (!b2)
		bench_fail(ctx, "allocating the tiles");
	stir_bindings_set_size(b2, "nw", t.nw);
	stir_bindings_set_size(b2, "n", csr->ncols);
	stir_bindings_set_size(b2, "maxg", t.maxg);
	stir_bindings_set_size(b2, "ng", t.ng);
	stir_bindings_set_size(b2, "nv", t.nslots);
	bench_bind_copy(ctx, b2, "G.indptr", STIR_I32, t.nw + 1, t.ptr);
	bench_bind_copy(ctx, b2, "C.indices", STIR_I32, t.ng * 16, t.cols);
	bench_bind_copy(ctx, b2, "X", STIR_F32, t.nw * 8 * feat, xp);
	bench_bind_copy(ctx, b2, "Y", STIR_F32, csr->ncols * feat, y);
	bench_bind_copy(ctx, b2, "Dst", STIR_I32, t.nslots, t.dst);
	if (run_gather(ctx, o, dev, co, nnz, t.nslots, t.pos, ref, ref_nz,
	    &ms2, &e2) < 0) {
		fprintf(stderr, "bench: %s feat %lld: the gather fails:\n",
			r->graph, (long long)feat);
		stir_ctx_print_diagnostics(ctx, stderr);
	}
	double e_cs = bench_max_rel_diff(want, ref_nz, nnz);
	for (int i = 0; ms2 >= 0 && i < N_TILE_KERNELS; i++) {
		stir_module *m1 = NULL;
		stir_gpu_kernel *g1 = tile_kernel(ctx, o, i, feat, co, &m1);
		bool csr_order = tile_kernels[i].csr;
		stir_kernel *k1 = m1 ? stir_module_find_kernel(m1, csr_order ?
			"sddmm_tiles_csr" : "sddmm_tiles") : NULL;
		stir_bindings *b = csr_order ? b2 : b1;
		double ms1 = -1, e1 = 0;
		char label[96];
		if (!g1 || !k1 || stir_kernel_bind_outputs(k1, b) < 0 ||
		    bench_run_stir(g1, dev, b, csr_order ? "S" : "St",
		    csr_order ? ref_nz : ref, csr_order ? nnz : t.nslots, o->reps,
		    &ms1, &e1) < 0) {
			fprintf(stderr, "bench: %s feat %lld: the tile kernel on %s, "
				"%d warps, fails:\n", r->graph, (long long)feat,
				tile_kernels[i].intrinsic, tile_kernels[i].warps);
			stir_ctx_print_diagnostics(ctx, stderr);
		} else if (csr_order) {
			printf("%-16s tiles %-18s %d warps%s feat %5lld: %lld tiles, "
				"slots/nnz %.2f | CSR order, %s: %.4f ms "
				"(err vs f64 %.2g) | cuSPARSE %.4f ms (err vs f64 %.2g): "
				"%.2fx (best candidate %.4f ms: %.2fx)\n", r->graph,
				tile_kernels[i].intrinsic, tile_kernels[i].warps,
				steps_label(i, feat, label, sizeof(label)),
				(long long)feat, (long long)t.ng,
				(double)t.nslots / (double)(nnz > 0 ? nnz : 1),
				tile_kblocks(i, feat) > 1 ? "2 launches (zeroed, added)" :
				"one launch", ms1, e1,
				r->cusparse_ms, e_cs, r->cusparse_ms / ms1, r->stir_ms,
				r->cusparse_ms / r->stir_ms);
		} else {
			printf("%-16s tiles %-18s %d warps%s feat %5lld: %lld tiles, "
				"slots/nnz "
				"%.2f | %.4f ms (err %.2g) + gather %.4f ms = %.4f ms "
				"(err vs f64 %.2g) | cuSPARSE %.4f ms (err vs f64 %.2g): "
				"%.2fx (best candidate %.4f ms: %.2fx)\n", r->graph,
				tile_kernels[i].intrinsic, tile_kernels[i].warps,
				steps_label(i, feat, label, sizeof(label)),
				(long long)feat, (long long)t.ng,
				(double)t.nslots / (double)(nnz > 0 ? nnz : 1), ms1, e1,
				ms2, ms1 + ms2, e1 > e2 ? e1 : e2, r->cusparse_ms, e_cs,
				r->cusparse_ms / (ms1 + ms2), r->stir_ms,
				r->cusparse_ms / r->stir_ms);
		}
		stir_ctx_clear_diagnostics(ctx);
		stir_gpu_kernel_free(g1);
		stir_module_free(m1);
	}
	fflush(stdout);
	stir_ctx_clear_diagnostics(ctx);
	stir_bindings_free(b1);
	stir_bindings_free(b2);
	free(t.dst);
	free(xp);
	free(ref);
	free(ref_nz);
	free(t.ptr);
	free(t.cols);
	free(t.pos);
}

/* ctx, o, dev, co, csr, r, x, y, want: --vblock-csr: the group
 * candidates of 4 rows on sddmm_vb4_csr.stir (the library's row groups
 * of the graph, Dst their places in the matrix's order), each checked
 * against cuSPARSE's result "want" (S's first nnz values) and timed, one
 * launch and no gather; each competes in r (schedule 2, candidate
 * N_CANDIDATES + its index). */
static void run_vblock_csr(stir_ctx *ctx, const bench_options *o,
	stir_device *dev, const stir_compile_options *co, const stir_csr *csr,
	result *r, const float *x, const float *y, const float *want)
{
	int64_t feat = r->feat, nnz = csr->nnz;
	stir_row_groups *v = stir_csr_to_row_groups(ctx, csr, 4);
	if (!v)
		bench_fail(ctx, "grouping the rows");
	int64_t nv = v->ncols_union * 4;
	float *xp = calloc((size_t)(v->ngroups * 4 * feat) + 1, 4);
	int32_t *ptr = malloc((size_t)(v->ngroups + 1) * 4);
	int32_t *ind = malloc((size_t)v->ncols_union * 4 + 4);
	int32_t *dst = malloc((size_t)nv * 4 + 4);
	if (!xp || !ptr || !ind || !dst)
		bench_fail(ctx, "allocating the groups");
	for (int64_t i = 0; i <= v->ngroups; i++)
		ptr[i] = (int32_t)v->indptr[i];
	for (int64_t i = 0; i < v->ncols_union; i++)
		ind[i] = (int32_t)v->indices[i];
	for (int64_t i = 0; i < nv; i++)
		dst[i] = (int32_t)v->dst[i];
	memcpy(xp, x, (size_t)(csr->nrows * feat) * 4);
	stir_bindings *b = stir_bindings_alloc();
	stir_bindings_set_size(b, "m", v->ngroups);
	stir_bindings_set_size(b, "n", csr->ncols);
	stir_bindings_set_size(b, "nnz", v->ncols_union);
	stir_bindings_set_size(b, "nv", nv);
	bench_bind_copy(ctx, b, "J.indptr", STIR_I32, v->ngroups + 1, ptr);
	bench_bind_copy(ctx, b, "J.indices", STIR_I32, v->ncols_union, ind);
	bench_bind_copy(ctx, b, "Dst", STIR_I32, nv, dst);
	bench_bind_copy(ctx, b, "X", STIR_F32, v->ngroups * 4 * feat, xp);
	bench_bind_copy(ctx, b, "Y", STIR_F32, csr->ncols * feat, y);
	for (int c = 0; c < stir_sddmm_vblock_n_candidates(); c++) {
		int i = N_CANDIDATES + c;
		r->search_ms[i] = -1;
		if (!csr_candidate(o, c))
			continue;
		stir_module *m = NULL;
		stir_gpu_kernel *gk = vb_csr_kernel(ctx, o, c, feat, co, &m);
		double ms, err;
		if (!gk || stir_kernel_bind_outputs(stir_module_find_kernel(m,
		    "sddmm_vb_csr"), b) < 0 || bench_run_stir(gk, dev, b, "S",
		    want, nnz, o->reps, &ms, &err) < 0) {
			fprintf(stderr, "bench: %s feat %lld: CSR-order group "
				"candidate %d fails:\n", r->graph, (long long)feat, c);
			stir_ctx_print_diagnostics(ctx, stderr);
		} else if (err > 1e-3) {
			fprintf(stderr, "bench: %s feat %lld: CSR-order group "
				"candidate %d differs from cuSPARSE by %g\n", r->graph,
				(long long)feat, c, err);
		} else {
			r->search_ms[i] = ms;
			if (ms < r->stir_ms) {
				r->stir_ms = ms;
				r->err = err;
				r->map = stir_sddmm_vblock_candidate_map(
					stir_sddmm_vblock_get_candidate(c), feat);
				r->schedule = 2;
				r->candidate = i;
			}
		}
		stir_ctx_clear_diagnostics(ctx);
		stir_gpu_kernel_free(gk);
		stir_module_free(m);
	}
	stir_bindings_free(b);
	free(xp);
	free(ptr);
	free(ind);
	free(dst);
	stir_row_groups_free(v);
}

/* ctx, o, g, spec, results, n: run one graph at every feature size,
 * appending to results[*n]. */
static void run_graph(stir_ctx *ctx, const bench_options *o,
	const bench_gpu *g, const char *spec, result *results, int *n)
{
	stir_device *dev = g->dev;
	char gname[64];
	bench_graph_name(spec, gname, sizeof(gname));
	stir_csr *csr = bench_load_graph(ctx, spec);
	bench_csr32 a;
	if (!csr || bench_csr32_init(ctx, &a, csr) < 0)
		bench_fail(ctx, "loading a graph");
	size_t nnz_bytes = (size_t)a.nnz * 4;
	stir_gpu_buf *d_ptr = bench_upload(dev, a.indptr, (size_t)(a.m + 1) * 4);
	stir_gpu_buf *d_ind = bench_upload(dev, a.indices, nnz_bytes);
	/* cuSPARSE writes the values of S; they start as the graph's */
	stir_gpu_buf *d_val = bench_upload(dev, a.values, nnz_bytes);
	float *want = malloc(nnz_bytes ? nnz_bytes : 4);
	if (!d_ptr || !d_ind || !d_val || !want)
		bench_fail(ctx, "uploading a graph");
	for (int fi = 0; fi < o->n_feats; fi++) {
		int64_t feat = o->feats[fi];
		result *r = &results[(*n)++];
		snprintf(r->graph, sizeof(r->graph), "%s", gname);
		r->m = a.m;
		r->nnz = a.nnz;
		r->feat = feat;
		r->bytes = (double)(a.m + a.n) * feat * 4 + (double)(a.m + 1) * 4 +
			(double)a.nnz * 8;
		size_t xb = (size_t)(a.m * feat) * 4, yb = (size_t)(a.n * feat) * 4;
		float *x = malloc(xb ? xb : 4), *y = malloc(yb ? yb : 4);
		if (!x || !y)
			bench_fail(ctx, "allocating the features");
		bench_random_floats(x, a.m * feat, 42 + (uint64_t)feat);
		bench_random_floats(y, a.n * feat, 4242 + (uint64_t)feat);
		stir_gpu_buf *d_x = bench_upload(dev, x, xb);
		stir_gpu_buf *d_y = bench_upload(dev, y, yb);
		/* cuSPARSE: the reference, then its time */
		bench_op *op = d_x && d_y ? bench_sddmm_create(g->cs, a.m, a.n, a.nnz,
			stir_gpu_buf_get_ptr(d_ptr), stir_gpu_buf_get_ptr(d_ind),
			stir_gpu_buf_get_ptr(d_val), feat, stir_gpu_buf_get_ptr(d_x),
			stir_gpu_buf_get_ptr(d_y)) : NULL;
		if (!op || bench_op_run(op) < 0 ||
		    stir_gpu_buf_copy_to_host(d_val, 0, want, nnz_bytes) < 0 ||
		    bench_time_cusparse(dev, op, o->reps, &r->cusparse_ms) < 0)
			bench_fail(ctx, "cuSPARSE SDDMM");
		bench_op_free(op);
		run_candidates(ctx, o, dev, &g->co, &a, r, x, y, want);
		run_vblock_csr(ctx, o, dev, &g->co, csr, r, x, y, want);
		for (int64_t rows = 4; (o->flags & VBLOCK) && rows <= 8;
		     rows *= 2)
			run_vblock(ctx, o, dev, &g->co, csr, r, x, y, want, rows);
		if (o->flags & TILES)
			run_tiles(ctx, o, dev, &g->co, csr, r, x, y, want);
		printf("%-16s %8lld %10lld %5lld | %10.4f %8.1f | %10.4f %8.1f "
			"%7.2fx %9.2g | %-5s %2lldx%lld cand %d\n", gname, (long long)a.m,
			(long long)a.nnz, (long long)feat, r->cusparse_ms,
			r->bytes / (r->cusparse_ms * 1e6), r->stir_ms,
			r->bytes / (r->stir_ms * 1e6), r->cusparse_ms / r->stir_ms,
			r->err, schedule_name[r->schedule], (long long)r->map.lanes,
			(long long)r->map.vec, r->candidate);
		fflush(stdout);
		stir_gpu_buf_free(d_x);
		stir_gpu_buf_free(d_y);
		free(x);
		free(y);
	}
	free(want);
	stir_gpu_buf_free(d_ptr);
	stir_gpu_buf_free(d_ind);
	stir_gpu_buf_free(d_val);
	bench_csr32_release(&a);
	stir_csr_free(csr);
}

int main(int argc, char **argv)
{
	bench_options o;
	bench_gpu g;
	bench_parse_options(argc, argv, "examples/sddmm.stir", flags, false, &o);
	if ((o.flags & FUSED_ONLY) && (o.flags & ROWS_ONLY)) {
		fprintf(stderr, "%s: --fused-only and --rows-only leave no "
			"kernel\n", argv[0]);
		return 2;
	}
	if (N_ALL > MAX_CANDIDATES) {
		fprintf(stderr, "%s: the library has %d SDDMM candidates, more than "
			"the %d this benchmark can hold\n", argv[0], N_ALL,
			MAX_CANDIDATES);
		return 1;
	}
	stir_ctx *ctx = stir_ctx_alloc();
	bench_start(ctx, &o, compile_graph, &g);
	printf("%-16s %8s %10s %5s | %10s %8s | %10s %8s %8s %9s | %s\n",
		"graph", "rows", "nnz", "feat", "cuSPARSE", "GB/s", "stir", "GB/s",
		"speedup", "max err", "kernel lanes x vec");
	int cap = o.n_graphs * o.n_feats, n = 0;
	result *results = calloc((size_t)cap, sizeof(result));
	double *speedup = calloc((size_t)cap, sizeof(double));
	if (!results || !speedup)
		bench_fail(ctx, "allocating the results");
	for (int i = 0; i < o.n_graphs; i++)
		run_graph(ctx, &o, &g, o.graphs[i], results, &n);
	for (int i = 0; i < n; i++)
		speedup[i] = results[i].cusparse_ms / results[i].stir_ms;
	double worst;
	int used;
	double mean = bench_geomean(speedup, n, &worst, &used);
	printf("# geometric-mean speedup over cuSPARSE: %.3fx (worst case "
		"%.3fx) over %d cases (%d ran)\n", mean, worst, n, used);
	FILE *f = bench_json_begin(ctx, o.json, &g);
	for (int i = 0; f && i < n; i++)
		json_result(f, &results[i], i == n - 1, g.copy_bw,
			(o.flags & VBLOCK_CSR) ? N_ALL : N_CANDIDATES);
	bench_json_end(f);
	free(results);
	free(speedup);
	bench_finish(&g);
	bench_forget_programs();
	stir_ctx_free(ctx);
	return 0;
}
