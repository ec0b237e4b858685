/* CSR SpMM through SR-BCRS(16, 8) on tensor cores (kernel csrmm of
 * examples/csrmm.stir; tf32 on mma.m16n8k8, f32 accumulation; recipes.h,
 * docs/recipes.md "SR-BCRS on tensor cores").
 *
 * Every candidate decomposes A into SR-BCRS(16, 8) covering the rows
 * (windows of 16 rows, a tile of 16 rows per column of the window, tiles
 * in groups of 8: an mma's A operand), runs a window (or a chunk of one)
 * a thread block and 32 features a warp (threadIdx.y: 4 tiles of 8 side
 * by side), and keeps the warp's 16 x 32 strip of C in fragments while it
 * walks the window's groups:
 *  - whole windows (chunk 0): one part; a thread block stores its
 *    window's rows once (cache_write_over_init: C neither zeroed nor
 *    read), bench/RESULTS.md "SR-BCRS";
 *  - chunks of "chunk" groups: the windows of more groups cut into chunks
 *    (part _split, added atomically into rows its own init zeroes), the
 *    others whole (part _whole, stored once), both parts in one launch
 *    (horizontal_fuse); a hub row's window no longer runs all its groups
 *    in one thread block;
 *  - chunks with a row order (the windows' rows gathered through P): the
 *    tensor-core store of gathered rows adds atomically, so both parts
 *    are zeroed by their inits and added into, in two launches.
 * The names below are those the primitives give (docs/schedules.md); the
 * schedule log prints a candidate as the schedule file it is. */
#include <stdbool.h>
#include <stir/stir.h>
#include <stir/recipes.h>
#include "ir/diag.h"
#include "ir/nodes.h"
#include "schedule/recipes/steps.h"

/* The window's rows and a group's tiles: an mma.m16n8k8's A. */
#define WINDOW 16
#define GROUP 8
/* The features a warp: 4 tiles of 8. */
#define WARP_FEAT 32
/* The intrinsic of every tensorized nest. */
#define MMA "mma_m16n8k8_tf32"

/* The candidates, each one of bench_spmm --srbcrs's schedule files
 * (bench/csrmm_srbcrs_tc*.yaml, the same kernels). */
static const stir_srbcrs_tc_candidate candidates[] = {
	{ 0, STIR_ROWS_NATURAL },       /* whole windows */
	{ 32, STIR_ROWS_NATURAL },      /* chunks of 32 groups */
	{ 8, STIR_ROWS_NATURAL },       /* chunks of 8 groups */
	{ 8, STIR_ROWS_FEWEST_SLOTS },  /* chunks of 8, rows reordered */
};
#define N_CANDIDATES (int)(sizeof(candidates) / sizeof(candidates[0]))

/* The count of candidates. */
int stir_srbcrs_tc_n_candidates(void)
{
	return N_CANDIDATES;
}

/* i: the candidate's index. */
const stir_srbcrs_tc_candidate *stir_srbcrs_tc_get_candidate(int i)
{
	return i >= 0 && i < N_CANDIDATES ? &candidates[i] : NULL;
}

/* p, feat: see recipes.h. */
bool stir_srbcrs_tc_fits(const stir_srbcrs_tc_candidate *p, int64_t feat)
{
	return p && p->chunk >= 0 && (int)p->order >= STIR_ROWS_NATURAL &&
		p->order <= STIR_ROWS_FEWEST_SLOTS &&
		(p->chunk || p->order == STIR_ROWS_NATURAL) && feat > 0 &&
		feat % WARP_FEAT == 0;
}

/* ctx, csr, p, index_type, value_type, b: see recipes.h. */
stir_host_format *stir_srbcrs_tc_format(stir_ctx *ctx, const stir_csr *csr,
	const stir_srbcrs_tc_candidate *p, stir_dtype index_type,
	stir_dtype value_type, stir_bindings *b)
{
	if (!p || !csr) {
		stir_error(ctx, stir_loc_none(), "stir_srbcrs_tc_format: no %s",
			p ? "matrix" : "candidate");
		return NULL;
	}
	/* the kernel's sizes of A, which the decomposition kept */
	if (stir_bindings_set_size(b, "m", csr->nrows) < 0 ||
	    stir_bindings_set_size(b, "n", csr->ncols) < 0) {
		stir_error_oom(ctx);
		return NULL;
	}
	return p->chunk ? stir_csr_to_sr_bcrs_chunks(ctx, csr, WINDOW, GROUP,
		p->chunk, p->order, index_type, value_type, "_srbcrs", b) :
		stir_csr_to_sr_bcrs(ctx, csr, WINDOW, GROUP, index_type,
		value_type, "_srbcrs", b);
}

/* k, p: A decomposed into p's SR-BCRS rules covering the rows, logged as
 * the one rule of a schedule file. */
static int decompose(stir_kernel *k, const stir_srbcrs_tc_candidate *p)
{
	static const char *const orders[] = { "natural", "degree", "locality",
		"fewest_slots" };
	stir_format_rule *rules[2] = { NULL, NULL };
	int n = p->chunk ? 2 : 1, rc = 0;
	for (int i = 0; i < n; i++) {
		rules[i] = p->chunk ? stir_format_rule_sr_bcrs_chunks("_srbcrs",
			WINDOW, GROUP, i, p->order != STIR_ROWS_NATURAL) :
			stir_format_rule_sr_bcrs("_srbcrs", WINDOW, GROUP);
		if (!rules[i])
			rc = -1;
		else
			stir_format_rule_set_cover_rows(rules[i], true);
	}
	if (rc == 0)
		rc = stir_decompose_format(k, "A", n, rules);
	else
		stir_error_oom(stir_kernel_ctx(k));
	for (int i = 0; i < n; i++)
		stir_format_rule_free(rules[i]);
	char chunk[64] = "", order[64] = "";
	if (p->chunk)
		snprintf(chunk, sizeof(chunk), ", chunk: %d", p->chunk);
	if (p->order != STIR_ROWS_NATURAL)
		snprintf(order, sizeof(order), ", row_order: %s",
			orders[p->order]);
	return stir_kernel_log_step(k, rc, "decompose: {tensor: A, rules: "
		"[{sr_bcrs: {t: %d, g: %d, cover_rows: true%s%s}}]}", WINDOW,
		GROUP, chunk, order);
}

/* k, block: the mma nest's loops: the features split into warps (k_0),
 * 4 tiles (k_1) and 8 (k_2), a warp's tiles walked under each group. */
static int split_features(stir_kernel *k, const char *block)
{
	const int64_t fk[] = { 0, WARP_FEAT / 8, 8 };
	return stir_split(k, block, "k", 3, fk) < 0 ||
		REORDER(k, block, "k_0", "g", "k_1", "ti", "k_2", "t") < 0 ?
		-1 : 0;
}

/* k: the candidate of whole windows, stages II and III. */
static int schedule_whole(stir_kernel *k)
{
	return split_features(k, "csrmm_srbcrs1") < 0 ||
		stir_bind(k, "csrmm_srbcrs0", "ib", STIR_BLOCK_X) < 0 ||
		stir_bind(k, "csrmm_srbcrs1", "k_0", STIR_THREAD_Y) < 0 ||
		stir_lower_sparse_buffer(k) < 0 ||
		stir_cache_write_over_init(k, "csrmm_srbcrs1", "C_data", "g",
			STIR_SCOPE_LOCAL) < 0 ||
		recipe_unroll_tiles(k, "C_data_local") < 0 ||
		stir_unroll(k, "csrmm_srbcrs1", "k_1") < 0 ||
		stir_tensorize(k, "C_data_local_init", "ax0", MMA) < 0 ||
		stir_tensorize(k, "csrmm_srbcrs1", "ti", MMA) < 0 ||
		stir_tensorize(k, "C_data_local", "ax0", MMA) < 0 ? -1 : 0;
}

/* k, init: a part's init nest over an item's rows, 16 rows (threadIdx.y)
 * x 32 features (threadIdx.x) at a time. */
static int bind_init(stir_kernel *k, const char *init)
{
	const int64_t f32[] = { 0, 32 };
	return stir_split(k, init, "k", 2, f32) < 0 ||
		stir_bind(k, init, "ib", STIR_BLOCK_X) < 0 ||
		stir_bind(k, init, "ti", STIR_THREAD_Y) < 0 ||
		stir_bind(k, init, "k_1", STIR_THREAD_X) < 0 ? -1 : 0;
}

/* k, p: a candidate of chunks (p->chunk > 0), stages II and III: the
 * split part (its fragments added atomically) and the whole part (stored
 * once, or with a row order added atomically too). */
static int schedule_chunks(stir_kernel *k, const stir_srbcrs_tc_candidate *p)
{
	bool gathered = p->order != STIR_ROWS_NATURAL;
	const char *fuse[] = { "csrmm_srbcrs_split0", "csrmm_srbcrs_whole0" };
	const char *disjoint[] = { "C_data" };
	if (split_features(k, "csrmm_srbcrs_split1") < 0 ||
	    split_features(k, "csrmm_srbcrs_whole1") < 0 ||
	    stir_bind(k, "csrmm_srbcrs_split0", "ib", STIR_BLOCK_X) < 0 ||
	    stir_bind(k, "csrmm_srbcrs_whole0", "ib", STIR_BLOCK_X) < 0 ||
	    stir_bind(k, "csrmm_srbcrs_split1", "k_0", STIR_THREAD_Y) < 0 ||
	    stir_bind(k, "csrmm_srbcrs_whole1", "k_0", STIR_THREAD_Y) < 0 ||
	    stir_set_atomic(k, "csrmm_srbcrs_split1") < 0 ||
	    (gathered && stir_set_atomic(k, "csrmm_srbcrs_whole1") < 0) ||
	    bind_init(k, "csrmm_srbcrs_split_init0") < 0 ||
	    (gathered && bind_init(k, "csrmm_srbcrs_whole_init0") < 0) ||
	    stir_lower_sparse_buffer(k) < 0 ||
	    stir_cache_write(k, "csrmm_srbcrs_split1", "C_data", "g",
		STIR_SCOPE_LOCAL) < 0 ||
	    (gathered ? stir_cache_write(k, "csrmm_srbcrs_whole1", "C_data", "g",
		STIR_SCOPE_LOCAL) : stir_cache_write_over_init(k,
		"csrmm_srbcrs_whole1", "C_data", "g", STIR_SCOPE_LOCAL)) < 0 ||
	    recipe_unroll_tiles(k, "C_data_local") < 0 ||
	    recipe_unroll_tiles(k, "C_data_local1") < 0 ||
	    stir_unroll(k, "csrmm_srbcrs_split1", "k_1") < 0 ||
	    stir_unroll(k, "csrmm_srbcrs_whole1", "k_1") < 0 ||
	    stir_tensorize(k, "C_data_local_init", "ax0", MMA) < 0 ||
	    stir_tensorize(k, "C_data_local1_init", "ax0", MMA) < 0 ||
	    stir_tensorize(k, "csrmm_srbcrs_split1", "ti", MMA) < 0 ||
	    stir_tensorize(k, "csrmm_srbcrs_whole1", "ti", MMA) < 0 ||
	    stir_tensorize(k, "C_data_local", "ax0", MMA) < 0 ||
	    stir_tensorize(k, "C_data_local1", "ax0", MMA) < 0)
		return -1;
	return gathered ? 0 : stir_horizontal_fuse_disjoint(k, 2, fuse, 1,
		disjoint);
}

/* k, p, feat: see recipes.h. */
int stir_recipe_srbcrs_tc_candidate(stir_kernel *k,
	const stir_srbcrs_tc_candidate *p, int64_t feat)
{
	if (!k)
		return -1;
	if (!stir_srbcrs_tc_fits(p, feat))
		return recipe_refuse(k, "stir_recipe_srbcrs_tc_candidate", p,
			feat, "a multiple of 32, a warp's 4 tiles of 8");
	if (stir_specialize(k, "feat", feat) < 0 || decompose(k, p) < 0 ||
	    stir_lower_sparse_iter(k) < 0)
		return -1;
	int rc = p->chunk ? schedule_chunks(k, p) : schedule_whole(k);
	return rc < 0 ? -1 : stir_kernel_prepare_for_gpu(k);
}
