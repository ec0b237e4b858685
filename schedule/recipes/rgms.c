/* RGMS on tensor cores, the aggregated order (kernel rgms_agg of
 * examples/rgms_agg.stir: T[r, i] = sum_j A[r, i, j] X[j], then Y[i] =
 * sum_r T[r, i] W[r]; tf32 on mma.m16n8k8, f32 accumulation; recipes.h,
 * docs/recipes.md "RGMS on tensor cores").
 *
 * Every candidate is bench_rgms.py's tc_tsh_k4_pP_t2_u_zf4_gb
 * (bench/RESULTS.md, "RGMS on tensor cores: empty pieces ended"), in
 * three launches that overlap:
 *  - T and Y zeroed in one launch by float4 stores (feat / 4 lanes a row,
 *    4 rows a thread);
 *  - the aggregation over the edges, flattened over relation, row and
 *    column with COO arrays (no search): "edges" consecutive edges a
 *    thread, feat / 4 lanes an edge, a run of edges of one (relation,
 *    row) pair summed in registers and added into T by one float4 atomic;
 *  - the apply: a thread block per relation and piece of its tiles of 16
 *    (relation, row) pairs ("pieces" a relation, blockIdx.y), each tile
 *    of T copied into shared memory once (rows padded by 8 floats) for
 *    the thread block's warps, a warp per 2 tiles of 8 output features
 *    with the input features' steps unrolled, Y added atomically; a piece
 *    past its relation's last tile runs no tile (guard_to_bound).
 * The names below are those the primitives give (docs/schedules.md); the
 * schedule log prints a candidate as the schedule file it is. */
#include <stdbool.h>
#include <stdio.h>
#include <stir/stir.h>
#include <stir/recipes.h>
#include "schedule/recipes/steps.h"

/* The threads of a thread block in the zeroing and the aggregation. */
#define THREADS 256
/* Tiles of 8 output features a warp in the apply. */
#define TILES 2
/* The intrinsic of every tensorized nest. */
#define MMA "mma_m16n8k8_tf32"

/* The candidates: the edges a thread, the pieces of a relation's tiles.
 * In bench_rgms the best pieces depend on the graph: its relations'
 * tiles against the thread blocks the GPU holds (bench/RESULTS.md). */
static const stir_rgms_tc_candidate candidates[] = {
	{ 4, 32 }, { 4, 64 }, { 4, 128 }, { 4, 256 }, { 4, 512 }, { 4, 1024 },
};
#define N_CANDIDATES (int)(sizeof(candidates) / sizeof(candidates[0]))

/* The count of candidates. */
int stir_rgms_tc_n_candidates(void)
{
	return N_CANDIDATES;
}

/* i: the candidate's index. */
const stir_rgms_tc_candidate *stir_rgms_tc_get_candidate(int i)
{
	return i >= 0 && i < N_CANDIDATES ? &candidates[i] : NULL;
}

/* p, feat: see recipes.h. */
bool stir_rgms_tc_fits(const stir_rgms_tc_candidate *p, int64_t feat)
{
	return p && p->edges >= 1 && p->pieces >= 1 && feat >= 16 &&
		feat <= 128 && feat % 16 == 0;
}

/* Thread blocks the GPU starts in the time of one tile of the apply
 * (stir_rgms_tc_pick). */
#define BLOCKS_A_TILE 4096

/* nrels, most, pieces: the pieces rule's cost of "pieces" pieces a
 * relation, the largest of nrels relations "most" tiles long
 * (stir_rgms_tc_pick). */
static double pieces_cost(int64_t nrels, int64_t most, int64_t pieces)
{
	return (double)((most + pieces - 1) / pieces) +
		(double)(nrels * pieces) / BLOCKS_A_TILE;
}

/* nrels, rel_ptr: the tiles of 16 pairs of the largest relation. */
static int64_t most_tiles(int64_t nrels, const int64_t *rel_ptr)
{
	int64_t most = 0;
	for (int64_t r = 0; r < nrels; r++) {
		int64_t tiles = (rel_ptr[r + 1] - rel_ptr[r] + 15) / 16;
		most = tiles > most ? tiles : most;
	}
	return most;
}

/* nrels, rel_ptr: see recipes.h. */
int stir_rgms_tc_pick(int64_t nrels, const int64_t *rel_ptr)
{
	if (nrels < 1 || !rel_ptr)
		return -1;
	int64_t most = most_tiles(nrels, rel_ptr);
	int best = -1;
	double best_cost = 0;
	for (int i = 0; i < N_CANDIDATES; i++) {
		double cost = pieces_cost(nrels, most, candidates[i].pieces);
		if (best < 0 || cost < best_cost) {
			best = i;
			best_cost = cost;
		}
	}
	return best;
}

/* k, block, loop, fl, lanes: block's zeroing nest (rows "loop", features
 * "fl") by float4 stores, "lanes" a row, 4 rows a thread. */
static int zero_by_float4(stir_kernel *k, const char *block,
	const char *loop, const char *fl, int64_t lanes)
{
	const int64_t rows[] = { 0, THREADS / lanes, 4 }, f4[] = { 0, 4 };
	const char *l[3], *f[2];
	if (recipe_split(k, block, loop, 3, rows, l) < 0 ||
	    stir_bind(k, block, l[0], STIR_BLOCK_X) < 0 ||
	    stir_bind(k, block, l[1], STIR_THREAD_Y) < 0 ||
	    recipe_split(k, block, fl, 2, f4, f) < 0)
		return -1;
	const char *order[] = { l[0], l[1], f[0], l[2], f[1] };
	return stir_reorder(k, block, 5, order) < 0 ||
		stir_bind(k, block, f[0], STIR_THREAD_X) < 0 ||
		stir_unroll(k, block, l[2]) < 0 ||
		stir_vectorize(k, block, f[1]) < 0 ? -1 : 0;
}

/* k, edges, lanes: stage II of the aggregation (block agg0, its edges
 * fused with COO arrays): "edges" consecutive edges a thread, "lanes" (a
 * quarter of the features) an edge, THREADS threads a thread block, the
 * features 4 a lane. */
static int aggregate_loops(stir_kernel *k, int64_t edges, int64_t lanes)
{
	const int64_t e[] = { 0, THREADS / lanes, edges }, f4[] = { 0, 4 };
	return stir_set_atomic(k, "agg0") < 0 ||
		stir_split(k, "agg0", "rrij", 3, e) < 0 ||
		stir_bind(k, "agg0", "rrij_0", STIR_BLOCK_X) < 0 ||
		stir_bind(k, "agg0", "rrij_1", STIR_THREAD_Y) < 0 ||
		stir_split(k, "agg0", "fi", 2, f4) < 0 ||
		REORDER(k, "agg0", "rrij_0", "rrij_1", "fi_0", "rrij_2", "fi_1") < 0 ||
		stir_bind(k, "agg0", "fi_0", STIR_THREAD_X) < 0 ? -1 : 0;
}

/* k, buffer: the write-back of cache_write_runs of "buffer" (blocks
 * BUFFER_local_run, _zero and BUFFER_local) by float4: a run's 4 sums
 * added by one float4 atomic. */
static int runs_by_float4(stir_kernel *k, const char *buffer)
{
	char run[64], zero[64], local[64];
	snprintf(run, sizeof(run), "%s_local_run", buffer);
	snprintf(zero, sizeof(zero), "%s_local_zero", buffer);
	snprintf(local, sizeof(local), "%s_local", buffer);
	return stir_vectorize(k, run, "ax0") < 0 ||
		stir_unroll(k, zero, "ax0") < 0 ||
		stir_vectorize(k, local, "ax0") < 0 ? -1 : 0;
}

/* k: stage III of the aggregation: a run of edges of one (relation, row)
 * pair summed in registers and added into T by one float4 atomic, X's
 * features loaded 4 at a time. */
static int aggregate_buffers(stir_kernel *k)
{
	return stir_cache_write_runs(k, "agg0", "T_data", "rrij_2",
			STIR_SCOPE_LOCAL) < 0 ||
		stir_cache_read(k, "agg0", "X_data", "fi_1",
			STIR_SCOPE_LOCAL) < 0 ||
		stir_vectorize(k, "X_data_local", "ax0") < 0 ||
		stir_unroll(k, "agg0", "fi_1") < 0 ||
		runs_by_float4(k, "T_data") < 0 ? -1 : 0;
}

/* k, feat, apply: stage I of both recipes: fin = fout = feat; T's
 * zeroing over its (relation, row) pairs, the aggregation's edges fused
 * over relation, row and column with COO arrays; with "apply", the
 * apply's pairs fused too. */
static int fuse_iterations(stir_kernel *k, int64_t feat, bool apply)
{
	const char *rr_i[] = { "rr", "i" }, *rr_i_j[] = { "rr", "i", "j" };
	const char *order[] = { "rr", "i", "j", "fi" };
	return stir_specialize(k, "fin", feat) < 0 ||
		stir_specialize(k, "fout", feat) < 0 ||
		stir_sparse_fuse(k, "zero_t", 2, rr_i) < 0 ||
		stir_sparse_reorder(k, "agg", 4, order) < 0 ||
		stir_sparse_fuse_coo(k, "agg", 3, rr_i_j) < 0 ||
		(apply && stir_sparse_fuse(k, "apply", 2, rr_i) < 0) ? -1 : 0;
}

/* k, p, feat: stage II: the zeroing, the aggregation's and the apply's
 * loops. */
static int schedule_loops(stir_kernel *k, const stir_rgms_tc_candidate *p,
	int64_t feat)
{
	const char *zero[] = { "zero_t0", "zero0" };
	const int64_t lanes = feat / 4;
	const int64_t f16[] = { 0, 16 }, fo[] = { 0, TILES, 8 }, f8[] = { 0, 8 };
	const int64_t pieces[] = { p->pieces, 0 };
	if (zero_by_float4(k, "zero_t0", "rri", "fi", lanes) < 0 ||
	    zero_by_float4(k, "zero0", "i", "fo", lanes) < 0 ||
	    stir_horizontal_fuse(k, 2, zero) < 0 ||
	    aggregate_loops(k, p->edges, lanes) < 0)
		return -1;
	return stir_split(k, "apply1", "i", 2, f16) < 0 ||
		stir_split(k, "apply1", "fo", 3, fo) < 0 ||
		stir_split(k, "apply1", "fi", 2, f8) < 0 ||
		stir_split(k, "apply1", "i_0", 2, pieces) < 0 ||
		REORDER(k, "apply1", "i_0_0", "i_0_1", "fo_0", "fi_0", "fo_1",
			"i_1", "fo_2", "fi_1") < 0 ||
		stir_set_atomic(k, "apply1") < 0 ||
		stir_bind(k, "apply0", "rr", STIR_BLOCK_X) < 0 ||
		stir_bind(k, "apply1", "i_0_0", STIR_BLOCK_Y) < 0 ? -1 : 0;
}

/* k, feat: stage III: the aggregation's runs in registers, the apply's
 * staged tiles of T, fragments and mma nests. */
static int schedule_buffers(stir_kernel *k, int64_t feat)
{
	const char *all[] = { "ax0", "ax1", "ax2" };
	const int64_t copy[] = { 0, feat / (8 * TILES), 32 };
	if (aggregate_buffers(k) < 0)
		return -1;
	return stir_cache_read_padded(k, "apply1", "T_data", "fo_0",
			STIR_SCOPE_SHARED, NULL, feat, 8) < 0 ||
		stir_cache_write(k, "apply1", "Y_data", "fi_0",
			STIR_SCOPE_LOCAL) < 0 ||
		recipe_unroll_tiles(k, "Y_data_local") < 0 ||
		stir_unroll(k, "apply1", "fo_1") < 0 ||
		stir_unroll(k, "apply1", "fi_0") < 0 ||
		stir_tensorize(k, "Y_data_local_init", "ax0", MMA) < 0 ||
		stir_tensorize(k, "apply1", "i_1", MMA) < 0 ||
		stir_tensorize(k, "Y_data_local", "ax0", MMA) < 0 ||
		stir_bind(k, "apply1", "fo_0", STIR_THREAD_Y) < 0 ||
		stir_fuse(k, "T_data_shared", 3, all) < 0 ||
		stir_split(k, "T_data_shared", "ax0_ax1_ax2", 3, copy) < 0 ||
		stir_bind(k, "T_data_shared", "ax0_ax1_ax2_1",
			STIR_THREAD_Y) < 0 ||
		stir_bind(k, "T_data_shared", "ax0_ax1_ax2_2",
			STIR_THREAD_X) < 0 ||
		stir_guard_to_bound(k, "apply1", "i_0_1") < 0 ? -1 : 0;
}

/* k, p, feat: see recipes.h. */
int stir_recipe_rgms_tc_candidate(stir_kernel *k,
	const stir_rgms_tc_candidate *p, int64_t feat)
{
	if (!k)
		return -1;
	if (!stir_rgms_tc_fits(p, feat))
		return recipe_refuse(k, "stir_recipe_rgms_tc_candidate", p, feat,
			"a multiple of 16 from 16 to 128");
	if (fuse_iterations(k, feat, false) < 0 ||
	    stir_lower_sparse_iter(k) < 0 ||
	    schedule_loops(k, p, feat) < 0 ||
	    stir_lower_sparse_buffer(k) < 0 ||
	    schedule_buffers(k, feat) < 0 ||
	    stir_kernel_set_overlap_launches(k, true) < 0)
		return -1;
	return stir_kernel_prepare_for_gpu(k);
}

/* ---- RGMS on CUDA cores (the same zeroing and aggregation) ---- */

/* The CUDA-core candidates: the edges a thread (bench_rgms.py's
 * aggruns_fF_q4_kK_zf4, the CUDA-core winner on AIFB and MUTAG at 64 and
 * 128 features in bench/RESULTS.md's RGMS runs). */
static const stir_rgms_candidate cuda_candidates[] = { { 4 }, { 8 } };
#define N_CUDA_CANDIDATES \
	(int)(sizeof(cuda_candidates) / sizeof(cuda_candidates[0]))

/* The output features a lane in the CUDA-core apply. */
#define APPLY_FEATURES 4

/* The count of candidates. */
int stir_rgms_n_candidates(void)
{
	return N_CUDA_CANDIDATES;
}

/* i: the candidate's index. */
const stir_rgms_candidate *stir_rgms_get_candidate(int i)
{
	return i >= 0 && i < N_CUDA_CANDIDATES ? &cuda_candidates[i] : NULL;
}

/* p, feat: see recipes.h. */
bool stir_rgms_fits(const stir_rgms_candidate *p, int64_t feat)
{
	return p && p->edges >= 1 && feat >= 16 && feat <= 128 &&
		feat % 4 == 0;
}

/* k, feat: stage II of the CUDA-core apply (block apply0 over the
 * (relation, row) pairs): feat / 4 lanes a pair, each APPLY_FEATURES
 * output features strided by feat / 4 (a warp's loads of W[r]
 * contiguous), summed in registers and added atomically into Y, THREADS
 * threads a thread block. */
static int apply_loops(stir_kernel *k, int64_t feat)
{
	const int64_t rows[] = { 0, THREADS / (feat / APPLY_FEATURES) };
	const int64_t fo[] = { APPLY_FEATURES, 0 };
	return stir_set_atomic(k, "apply0") < 0 ||
		stir_split(k, "apply0", "rri", 2, rows) < 0 ||
		stir_bind(k, "apply0", "rri_0", STIR_BLOCK_X) < 0 ||
		stir_bind(k, "apply0", "rri_1", STIR_THREAD_Y) < 0 ||
		stir_split(k, "apply0", "fo", 2, fo) < 0 ||
		REORDER(k, "apply0", "rri_0", "rri_1", "fo_1", "fi", "fo_0") < 0 ||
		stir_bind(k, "apply0", "fo_1", STIR_THREAD_X) < 0 ||
		stir_unroll(k, "apply0", "fo_0") < 0 ? -1 : 0;
}

/* k, p, feat: see recipes.h. */
int stir_recipe_rgms_candidate(stir_kernel *k, const stir_rgms_candidate *p,
	int64_t feat)
{
	if (!k)
		return -1;
	if (!stir_rgms_fits(p, feat))
		return recipe_refuse(k, "stir_recipe_rgms_candidate", p, feat,
			"a multiple of 4 from 16 to 128");
	const char *zero[] = { "zero_t0", "zero0" };
	const int64_t lanes = feat / 4;
	if (fuse_iterations(k, feat, true) < 0 ||
	    stir_lower_sparse_iter(k) < 0 ||
	    zero_by_float4(k, "zero_t0", "rri", "fi", lanes) < 0 ||
	    zero_by_float4(k, "zero0", "i", "fo", lanes) < 0 ||
	    apply_loops(k, feat) < 0 ||
	    aggregate_loops(k, p->edges, lanes) < 0 ||
	    stir_horizontal_fuse(k, 2, zero) < 0 ||
	    stir_lower_sparse_buffer(k) < 0 ||
	    stir_cache_write(k, "apply0", "Y_data", "fi", STIR_SCOPE_LOCAL) < 0 ||
	    aggregate_buffers(k) < 0 ||
	    stir_kernel_set_overlap_launches(k, true) < 0)
		return -1;
	return stir_kernel_prepare_for_gpu(k);
}

/* ---- RGMS edge by edge on CUDA cores (kernel rgms_edge) ---- */

/* The edge-by-edge candidates: the edges a thread.  1 is bench_rgms.py's
 * coo_fF_v4_t256_a_o (fastest on AIFB at 32 features), 4 and 8 its
 * runs_fF_v4_kK_o (fastest on MUTAG at 16 and 32, and on the synthetic
 * BGS and AM at 32 and 64; bench/RESULTS.md's RGMS runs), each with Y
 * zeroed by float4 stores as the aggregated order's are. */
static const stir_rgms_edge_candidate edge_candidates[] = { { 1 }, { 4 },
	{ 8 } };
#define N_EDGE_CANDIDATES \
	(int)(sizeof(edge_candidates) / sizeof(edge_candidates[0]))

/* The count of candidates. */
int stir_rgms_edge_n_candidates(void)
{
	return N_EDGE_CANDIDATES;
}

/* i: the candidate's index. */
const stir_rgms_edge_candidate *stir_rgms_edge_get_candidate(int i)
{
	return i >= 0 && i < N_EDGE_CANDIDATES ? &edge_candidates[i] : NULL;
}

/* p, feat: see recipes.h. */
bool stir_rgms_edge_fits(const stir_rgms_edge_candidate *p, int64_t feat)
{
	return p && p->edges >= 1 && feat >= 16 && feat <= 128 &&
		feat % 4 == 0;
}

/* k, p, lanes: stage II of the edges (block rgms0, fused with COO
 * arrays): "lanes" (a quarter of the output features) an edge, THREADS
 * threads a thread block, "edges" consecutive edges a thread (one after
 * another: loop rrij_2) when more than 1; each lane 4 consecutive output
 * features over the input features in steps of 4. */
static int edge_loops(stir_kernel *k, const stir_rgms_edge_candidate *p,
	int64_t lanes)
{
	const bool runs = p->edges > 1;
	const int64_t e[] = { 0, THREADS / lanes, p->edges }, f4[] = { 0, 4 };
	if (stir_set_atomic(k, "rgms0") < 0 ||
	    stir_split(k, "rgms0", "rrij", runs ? 3 : 2, e) < 0 ||
	    stir_bind(k, "rgms0", "rrij_0", STIR_BLOCK_X) < 0 ||
	    stir_bind(k, "rgms0", "rrij_1", STIR_THREAD_Y) < 0 ||
	    stir_split(k, "rgms0", "fo", 2, f4) < 0 ||
	    stir_split(k, "rgms0", "fi", 2, f4) < 0)
		return -1;
	if (runs ? REORDER(k, "rgms0", "rrij_0", "rrij_1", "fo_0", "rrij_2",
			"fi_0", "fi_1", "fo_1") < 0 :
		   REORDER(k, "rgms0", "rrij_0", "rrij_1", "fo_0", "fi_0",
			"fi_1", "fo_1") < 0)
		return -1;
	return stir_bind(k, "rgms0", "fo_0", STIR_THREAD_X);
}

/* k, p: stage III of the edges: X's and W[r]'s 4 features a float4 load;
 * the lane's 4 sums kept in registers over the input features (one edge)
 * or over a run of edges into one row (cache_write_runs), added into Y by
 * one float4 atomic. */
static int edge_buffers(stir_kernel *k, const stir_rgms_edge_candidate *p)
{
	if ((p->edges > 1 ?
	     stir_cache_write_runs(k, "rgms0", "Y_data", "rrij_2",
		STIR_SCOPE_LOCAL) :
	     stir_cache_write(k, "rgms0", "Y_data", "fi_0",
		STIR_SCOPE_LOCAL)) < 0 ||
	    stir_cache_read(k, "rgms0", "X_data", "fi_1", STIR_SCOPE_LOCAL) < 0 ||
	    stir_cache_read(k, "rgms0", "W_data", "fo_1", STIR_SCOPE_LOCAL) < 0 ||
	    stir_vectorize(k, "X_data_local", "ax0") < 0 ||
	    stir_vectorize(k, "W_data_local", "ax0") < 0 ||
	    stir_unroll(k, "rgms0", "fi_1") < 0 ||
	    stir_unroll(k, "rgms0", "fo_1") < 0)
		return -1;
	return p->edges > 1 ? runs_by_float4(k, "Y_data") :
		stir_vectorize(k, "Y_data_local", "ax0");
}

/* k, p, feat: see recipes.h. */
int stir_recipe_rgms_edge_candidate(stir_kernel *k,
	const stir_rgms_edge_candidate *p, int64_t feat)
{
	if (!k)
		return -1;
	if (!stir_rgms_edge_fits(p, feat))
		return recipe_refuse(k, "stir_recipe_rgms_edge_candidate", p,
			feat, "a multiple of 4 from 16 to 128");
	const char *rr_i_j[] = { "rr", "i", "j" };
	const int64_t lanes = feat / 4;
	if (stir_specialize(k, "fin", feat) < 0 ||
	    stir_specialize(k, "fout", feat) < 0 ||
	    stir_sparse_fuse_coo(k, "rgms", 3, rr_i_j) < 0 ||
	    stir_lower_sparse_iter(k) < 0 ||
	    zero_by_float4(k, "zero0", "i", "fo", lanes) < 0 ||
	    edge_loops(k, p, lanes) < 0 ||
	    stir_lower_sparse_buffer(k) < 0 ||
	    edge_buffers(k, p) < 0 ||
	    stir_kernel_set_overlap_launches(k, true) < 0)
		return -1;
	return stir_kernel_prepare_for_gpu(k);
}

/* ---- the tuner's order (stir_rgms_rank) ---- */

/* order, costs, n, cand: candidate "cand" appended to order[0 .. *n - 1]
 * with its place as its cost. */
static void rank_push(int *order, double *costs, int *n, int cand)
{
	if (costs)
		costs[*n] = *n;
	order[(*n)++] = cand;
}

/* r, h, feat, order, costs: see recipes.h. */
int stir_rgms_rank(stir_tune_recipe r, const stir_hetero *h, int64_t feat,
	int *order, double *costs)
{
	int n = 0;
	if (r == STIR_TUNE_RGMS_EDGE) {
		static const int edge_order[] = { 1, 2, 0 };
		for (int i = 0; i < N_EDGE_CANDIDATES; i++)
			if (stir_rgms_edge_fits(&edge_candidates[edge_order[i]],
			    feat))
				rank_push(order, costs, &n, edge_order[i]);
		return n;
	}
	if (r != STIR_TUNE_RGMS && r != STIR_TUNE_RGMS_TF32)
		return -1;
	if (r == STIR_TUNE_RGMS_TF32 && h && h->nrels >= 1 &&
	    stir_rgms_tc_fits(&candidates[0], feat)) {
		/* by the pieces rule's cost, ties by index (a stable
		 * insertion) */
		int64_t most = most_tiles(h->nrels, h->rel_ptr);
		int tc[N_CANDIDATES];
		double c[N_CANDIDATES];
		for (int i = 0; i < N_CANDIDATES; i++) {
			double ci = pieces_cost(h->nrels, most,
				candidates[i].pieces);
			int at = i;
			while (at > 0 && c[at - 1] > ci) {
				c[at] = c[at - 1];
				tc[at] = tc[at - 1];
				at--;
			}
			c[at] = ci;
			tc[at] = i;
		}
		for (int i = 0; i < N_CANDIDATES; i++)
			rank_push(order, costs, &n, N_CUDA_CANDIDATES + tc[i]);
	}
	for (int i = 0; i < N_CUDA_CANDIDATES; i++)
		if (stir_rgms_fits(&cuda_candidates[i], feat))
			rank_push(order, costs, &n, i);
	return n;
}
