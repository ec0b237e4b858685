/* stir: recipes, the library's fast schedules for the kernels GNNs use,
 * as parameterized functions with their candidate spaces as data
 * (docs/recipes.md).  A recipe schedules a stage I kernel of a known
 * program through the C API and brings it to stage III, ready for
 * stir_gpu_kernel_compile:
 *
 * - SpMM, C[i, k] = sum_j A[i, j] * B[j, k] with A in CSR (kernel csrmm
 *   of examples/csrmm.stir): SparseTIR's hybrid ELL schedule, A
 *   decomposed into hybrid(c, buckets), every part a nest of its own, all
 *   in one launch (stir_recipe_spmm_hybrid); and the plain CSR schedule
 *   (stir_recipe_spmm_csr);
 * - SDDMM, S[i, j] = sum_k X[i, k] * Y[j, k] over the non-zeros (i, j) of
 *   S: fused over the non-zeros for graphs of short rows (kernel sddmm of
 *   examples/sddmm.stir, stir_recipe_sddmm), or row by row for graphs of
 *   long rows (kernel sddmm_rows of examples/sddmm_rows.stir,
 *   stir_recipe_sddmm_rows);
 * - BSR SpMM on tensor cores (kernel bsrmm of examples/bsrmm.stir and
 *   bench/bsrmm64.stir, stir_recipe_bsr_tc_candidate);
 * - CSR SpMM through SR-BCRS on tensor cores (kernel csrmm of
 *   examples/csrmm.stir, stir_recipe_srbcrs_tc_candidate);
 * - RGMS (one RGCN layer) in the aggregated order (kernel rgms_agg of
 *   examples/rgms_agg.stir), on tensor cores (stir_recipe_rgms_tc_candidate,
 *   its piece count picked by stir_rgms_tc_pick) or CUDA cores
 *   (stir_recipe_rgms_candidate), and edge by edge (kernel rgms_edge of
 *   examples/rgms_edge.stir, stir_recipe_rgms_edge_candidate).
 *
 * The benchmarks (bench/), the examples and the tests use them. */
#ifndef STIR_RECIPES_H
#define STIR_RECIPES_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stir/formats.h>
#include <stir/io.h>
#include <stir/schedule.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- SpMM ------------------------------------------------------------- */

/* How the features of a row map onto threads: "lanes" threads along
 * threadIdx.x, each "vec" consecutive features (vector loads); "chunks"
 * such pieces of the row along threadIdx.z, or, when "serial", one after
 * another in each thread (a thread's features lanes * vec apart, so its
 * loads stay coalesced across the lanes, and each column's index and value
 * serve all its chunks); "rows" rows per thread block along threadIdx.y,
 * so that a block has 256 threads. */
typedef struct stir_spmm_map {
	int64_t feat;           /* the features, a literal in the kernel */
	int64_t lanes, vec, chunks, rows;
	/* > 1: "group" threads along threadIdx.x share each row of a hybrid
	 * part, each taking every group-th column, and their sums are
	 * combined by warp shuffles; the feature lanes are then on
	 * threadIdx.y, the chunks a loop inside the thread, and the rows on
	 * threadIdx.z (stir_spmm_map_grouped) */
	int64_t group;
	/* the hybrid parts read a row's column indices and values once per
	 * lane group, into warp caches (cache_read with scope warp: one
	 * coalesced load, then a shuffle per column), instead of every lane
	 * loading each; parts with one lane or grouped rows do not */
	bool warp_cache;
	bool serial;            /* the chunks in each thread (not threadIdx.z) */
} stir_spmm_map;

/* The mapping for "feat" features (feat >= 1): the widest vector (4, 2
 * or 1) that divides them, as many lanes (a power of two up to a warp) as
 * divide the vectors, the rest in chunks; every split is exact, so no
 * feature needs a guard.  Warp caches on. */
STIR_EXPORT stir_spmm_map stir_spmm_map_features(int64_t feat);

/* The mapping for "feat" features with "group" threads a row (a power of
 * two from 2 to 16): as stir_spmm_map_features, with at most 32 / group
 * lanes, so that a row's threads lie in one warp.  group 1 is
 * stir_spmm_map_features. */
STIR_EXPORT stir_spmm_map stir_spmm_map_grouped(int64_t feat,
	int64_t group);

/* The mapping for "feat" features with "lanes" lanes (a power of two up
 * to 32) and the chunks serial in each thread: as
 * stir_spmm_map_features otherwise.  stir_spmm_map_fits says whether
 * the lanes divide the features into at least two chunks. */
STIR_EXPORT stir_spmm_map stir_spmm_map_serial(int64_t feat,
	int64_t lanes);

/* Whether stir_recipe_spmm_hybrid can use mapping fm: a grouped row
 * keeps its thread's sums in at most 32 registers (chunks * vec <= 32,
 * the most a cross-thread reduction into a register array takes); a
 * serial one has at least two chunks, of lanes * vec features each, that
 * make up the features, at most 32 values a thread. */
STIR_EXPORT bool stir_spmm_map_fits(stir_spmm_map fm);

/* The flags to build hybrid(c, ..) with (stir_csr_to_hybrid_flags) for
 * the kernel of stir_recipe_spmm_hybrid: every part bound, a row that
 * fills every column padded at one of its own, and with one column range
 * the rows covered (STIR_HYBRID_COVER_ROWS). */
STIR_EXPORT unsigned stir_spmm_hybrid_format_flags(int c);

/* Schedule kernel "k", the stage I kernel csrmm, for the hybrid format
 * hybrid(c, buckets[0..nb-1]) of its A and mapping "fm", and bring it to
 * stage III, ready for stir_gpu_kernel_compile.  The kernel holds every
 * part (q, t), q < c, t < nb, so that it serves any matrix whose format
 * is built with stir_spmm_hybrid_format_flags(c) and suffix "_hyb"; its sizes
 * stay symbolic except the features.  Each part: its rows over blockIdx.x
 * and threadIdx.y, the features over threadIdx.x in vectors (and
 * threadIdx.z in chunks), the row's columns unrolled with the sums in
 * registers.  Only the parts that may share rows of C add atomically;
 * the others are declared disjoint for the one horizontally fused launch.
 * With c = 1 the rules cover the rows (stir_format_rule_set_cover_rows):
 * the rows longer than the widest bucket, split over several rows of
 * their own part 0_NB, add atomically into rows that a launch of their
 * own zeroes first (none when no row is split), and every other part
 * stores its rows of C once (cache_write_over_init).  With c > 1, C is
 * zeroed first and every part adds into it atomically.  With fm.group >
 * 1, the parts of width fm.group or more give each row fm.group threads
 * whose sums a cross-thread reduction combines (a long row's gathers run
 * in parallel without atomics or a second launch); the narrower parts put
 * fm.group rows on those threads instead.  0, or -1 with diagnostics in
 * k's context. */
STIR_EXPORT int stir_recipe_spmm_hybrid(__stir_keep stir_kernel *k, int c,
	int nb, const int64_t *buckets, stir_spmm_map fm);

/* Schedule kernel "k", the stage I kernel csrmm, for A in CSR: rows over
 * blockIdx.x and threadIdx.y, features over threadIdx.x, the row's sum in
 * a register, stored once (cache_write_over_init: one launch); brought to
 * stage III.  0 or -1. */
STIR_EXPORT int stir_recipe_spmm_csr(__stir_keep stir_kernel *k,
	stir_spmm_map fm);

/* A candidate of the hybrid SpMM: the format hybrid(c, buckets) and the
 * schedule's parameters.  stir_spmm_hybrid_map gives its mapping at a
 * feature size; stir_spmm_hybrid_fits whether it applies there. */
typedef struct stir_spmm_hybrid_candidate {
	int c;                  /* column partitions */
	int nb;                 /* buckets */
	int64_t buckets[8];     /* bucket widths, ascending */
	int threads;            /* threads per thread block */
	int min_blocks;         /* stir_compile_options.min_blocks_per_sm */
	int group;              /* threads a row (stir_spmm_map_grouped) */
	bool locality;          /* rows in a locality order
	                           (STIR_HYBRID_LOCALITY_ORDER) */
	bool warp_cache;        /* the rows' columns in warp caches
	                           (stir_spmm_map.warp_cache) */
	int serial_lanes;       /* > 0: a row's features over these lanes,
	                           the chunks serial in each thread
	                           (stir_spmm_map_serial) */
} stir_spmm_hybrid_candidate;

/* The candidate space of the hybrid SpMM: the configurations the search
 * of bench_spmm tries (bench/README.md says why each is there), in a
 * fixed order (bench_spmm --candidates names them by index). */
STIR_EXPORT int stir_spmm_hybrid_n_candidates(void);
/* Candidate i (0 <= i < stir_spmm_hybrid_n_candidates()), or NULL. */
STIR_EXPORT const stir_spmm_hybrid_candidate *stir_spmm_hybrid_get_candidate(
	int i);
/* The candidates the measured search (stir_tune) times before the cost
 * model's order, whatever it is: those most often fastest where the
 * model's first picks miss (docs/recipes.md, "The tuner").  Their count,
 * and the candidate index at position i (-1 when i is out of range). */
STIR_EXPORT int stir_spmm_hybrid_n_often_fastest(void);
STIR_EXPORT int stir_spmm_hybrid_get_often_fastest(int i);
/* The mapping of candidate p at "feat" features: its lanes (serial or
 * grouped), warp caches and rows per block for its thread count. */
STIR_EXPORT stir_spmm_map stir_spmm_hybrid_map(
	const stir_spmm_hybrid_candidate *p, int64_t feat);
/* Whether candidate p applies at "feat" features (stir_spmm_map_fits of
 * its mapping). */
STIR_EXPORT bool stir_spmm_hybrid_fits(const stir_spmm_hybrid_candidate *p,
	int64_t feat);
/* The flags to build candidate p's format with: those of
 * stir_spmm_hybrid_format_flags(p->c), and the locality order. */
STIR_EXPORT unsigned stir_spmm_hybrid_candidate_format_flags(
	const stir_spmm_hybrid_candidate *p);
/* Candidate p at "feat" features applied to csrmm kernel k:
 * stir_recipe_spmm_hybrid with its mapping (stir_spmm_hybrid_map) and its
 * launch bound (stir_kernel_set_min_blocks_per_sm); with the schedule log
 * on, the logged hybrid rule says the candidate's locality order too, so
 * that its schedule file builds the same format.  0, or -1 with
 * diagnostics. */
STIR_EXPORT int stir_recipe_spmm_hybrid_candidate(__stir_keep stir_kernel *k,
	const stir_spmm_hybrid_candidate *p, int64_t feat);

/* The tuner's cost model (docs/recipes.md): an estimate, in arbitrary
 * units, of candidate p's time on matrix "a" (CSR) at "feat" features on
 * a GPU of "n_sms" SMs (< 1: 132), from the bytes it moves (padding from
 * its buckets over a's row lengths, gathers of B with the share L2
 * holds and the L1 hits of neighbouring rows that share columns, writes
 * of C, atomics, a second launch), its blocks, rows' serial steps and
 * waves.  Deterministic; -1 when p does not apply at feat or out of
 * memory. */
STIR_EXPORT double stir_spmm_hybrid_model_cost(
	const stir_spmm_hybrid_candidate *p, __stir_keep const stir_csr *a,
	int64_t feat, int n_sms);
/* The candidates that apply at "feat", cheapest first by the model (ties
 * by index) into order[] (room for stir_spmm_hybrid_n_candidates()),
 * their costs into costs[] when not NULL.  The count, or -1 when out of
 * memory. */
STIR_EXPORT int stir_spmm_hybrid_model_rank(__stir_keep const stir_csr *a,
	int64_t feat, int n_sms, int *order, double *costs);

/* The structure of a matrix a tuning record keys on: its sizes and its
 * rows' lengths in log2 buckets, hist[0] the empty rows, hist[b] those
 * of 2^(b-1) to 2^b - 1 columns (the last bucket also longer ones).  A
 * relational graph's (stir_hetero_get_sig): its (relation, row) pairs as
 * the rows, its nodes as the columns, its relations in rels (1 for a
 * matrix). */
#define STIR_MATRIX_SIG_BUCKETS 40
typedef struct stir_matrix_sig {
	int64_t rows, cols, nnz;
	int64_t hist[STIR_MATRIX_SIG_BUCKETS];
	int64_t rels;
} stir_matrix_sig;
/* Matrix a's signature into *s. */
STIR_EXPORT void stir_csr_get_sig(__stir_keep const stir_csr *a,
	stir_matrix_sig *s);
/* Relational graph h's signature into *s: rows its (relation, row) pairs
 * (h->nrows), cols its nodes, nnz its entries, rels its relations, hist
 * the pairs by their entries. */
STIR_EXPORT void stir_hetero_get_sig(__stir_keep const stir_hetero *h,
	stir_matrix_sig *s);
/* Whether signatures a and b are alike within tol (>= 0): rows, columns,
 * non-zeros and relations each within tol of the larger, and the histograms, as
 * shares of the rows, at most tol apart (the sum of the differences).
 * tol 0: equal. */
STIR_EXPORT bool stir_matrix_sig_is_similar(const stir_matrix_sig *a,
	const stir_matrix_sig *b, double tol);

/* ---- SDDMM ------------------------------------------------------------ */

/* How the work maps onto a thread block: "lanes" threads per non-zero
 * (threadIdx.x), each loading "vec" consecutive features of X's and Y's
 * rows at a time, their parts combined by warp shuffles; "nnz" non-zeros
 * per thread block at a time (threadIdx.y), lanes * nnz threads (256 from
 * stir_sddmm_map_features and _lanes; stir_sddmm_candidate_map may set
 * fewer).
 * The row schedule gives a thread block one row, whose non-zeros it takes
 * "nnz" at a time. */
typedef struct stir_sddmm_map {
	int64_t feat;           /* the features, a literal in the kernel */
	int64_t lanes;          /* a power of two <= 32 dividing feat / vec */
	int64_t vec;            /* 4, 2 or 1 (no vector loads) */
	int64_t nnz;            /* non-zeros per thread block */
	int64_t chunks;         /* thread blocks a group (the group
	                           schedule) or a row (the row schedule),
	                           on blockIdx.y, taking its steps of nnz
	                           columns in turn; 0 or 1: one */
	int64_t row_tile;       /* the row tile schedule: consecutive rows
	                           a thread block, side by side on
	                           threadIdx.y, each row's non-zeros nnz
	                           at a time on threadIdx.x (lanes 1);
	                           0: not that schedule */
} stir_sddmm_map;

/* The default mapping for "feat" features (feat >= 1): the widest vector
 * that divides them, then as many lanes as divide the vectors of a row,
 * up to a warp (so every split is exact and no feature needs a guard). */
STIR_EXPORT stir_sddmm_map stir_sddmm_map_features(int64_t feat);

/* The same with at most "max_lanes" lanes (a power of two): fewer lanes,
 * more vectors per lane, fewer shuffles per non-zero. */
STIR_EXPORT stir_sddmm_map stir_sddmm_map_lanes(int64_t feat,
	int64_t max_lanes);

/* Schedule kernel "k", the stage I kernel sddmm of examples/sddmm.stir,
 * for mapping "fm" and bring it to stage III, ready for
 * stir_gpu_kernel_compile (its block names are those of that program:
 * sddmm0 and its init sddmm_init0).  0, or -1 with diagnostics in k's
 * context (k may be partly scheduled then). */
STIR_EXPORT int stir_recipe_sddmm(__stir_keep stir_kernel *k, stir_sddmm_map fm);

/* The same for kernel "k", the stage I kernel sddmm_rows of
 * examples/sddmm_rows.stir (blocks sddmm0 over the rows, sddmm1 over a
 * row's non-zeros and the features, the init sddmm_init0/1): one row per
 * thread block (blockIdx.x), X's row copied to shared memory once, the
 * row's non-zeros fm.nnz at a time (threadIdx.y), fm.lanes lanes each
 * (threadIdx.x) with vector loads, S zeroed in the same launch; with
 * fm.chunks > 1 a row's steps taken in turn by that many thread blocks
 * (blockIdx.y), each copying X's row.  No search for a row remains.  0,
 * or -1 with diagnostics. */
STIR_EXPORT int stir_recipe_sddmm_rows(__stir_keep stir_kernel *k,
	stir_sddmm_map fm);

/* The same for kernel "k", sddmm_rows of examples/sddmm_rows.stir, with
 * fm.row_tile consecutive rows a thread block (blockIdx.x), side by side
 * on threadIdx.y, and one thread a non-zero: a row's non-zeros fm.nnz at
 * a time on threadIdx.x (fm.lanes must be 1), each thread's dot product
 * over all the features in a register (vector loads of X's row, read from
 * global memory, the same address across the row's threads, and of Y's
 * row), stored once (cache_write_over_init: no zeroing, one launch).  The
 * rows of a block read many of the same rows of Y at about the same time
 * (L1 hits on banded matrices).  0, or -1 with diagnostics. */
STIR_EXPORT int stir_recipe_sddmm_row_tile(__stir_keep stir_kernel *k,
	stir_sddmm_map fm);

/* The same for kernel "k", the stage I kernel sddmm_vb of
 * examples/sddmm_vb4.stir or sddmm_vb8.stir (the matrix's rows in groups
 * of 4 or 8 over the union of their columns, X padded to whole groups;
 * bench_sddmm --vblock builds the groups): a group per thread block, X's
 * rows of the group copied to shared memory, its columns fm.nnz at a time
 * (threadIdx.y), fm.lanes lanes each (threadIdx.x) that read a vector of
 * Y's row once for all the group's rows, S zeroed in the same launch.
 * stir_kernel_bind_csr builds the groups from a CSR matrix (ir/bind.c);
 * not a candidate of the tuner.  0, or -1 with diagnostics. */
STIR_EXPORT int stir_recipe_sddmm_vblock(__stir_keep stir_kernel *k,
	stir_sddmm_map fm);

/* A candidate of the SDDMM over groups of rows (stir_recipe_sddmm_vblock
 * on examples/sddmm_vb4.stir or sddmm_vb8.stir): the rows a group, at
 * most how many lanes a union column (1: a thread owns a column's slots
 * of all the group's rows and sums them in registers, no shuffles; the
 * register tile of a small dense product, X's rows shared by the
 * block's threads) and the threads a block. */
typedef struct stir_sddmm_vblock_candidate {
	int64_t rows;           /* 4 (sddmm_vb4.stir) or 8 (sddmm_vb8.stir) */
	int64_t max_lanes;      /* a power of two up to 32 */
	int64_t threads;        /* a power of two, 32 to 256; 0: 256 */
	int64_t chunks;         /* thread blocks a group (stir_sddmm_map) */
} stir_sddmm_vblock_candidate;

/* The candidate space of the SDDMM over groups of rows (bench_sddmm
 * --vblock times them by index; schedule/recipes/sddmm.c says why each
 * is there). */
STIR_EXPORT int stir_sddmm_vblock_n_candidates(void);
/* Candidate i (0 <= i < stir_sddmm_vblock_n_candidates()), or NULL. */
STIR_EXPORT const stir_sddmm_vblock_candidate *stir_sddmm_vblock_get_candidate(
	int i);
/* The mapping of group candidate "p" for "feat" features (feat >= 1):
 * stir_sddmm_map_lanes(feat, p->max_lanes) with p->threads / lanes
 * columns of the group per thread block at a time. */
STIR_EXPORT stir_sddmm_map stir_sddmm_vblock_candidate_map(
	const stir_sddmm_vblock_candidate *p, int64_t feat);
/* Schedule stage I kernel k (sddmm_vb of examples/sddmm_vb4.stir when
 * p->rows is 4, sddmm_vb8.stir when 8: the caller picks the program; the
 * schedule itself holds for any group size) with group candidate p at
 * "feat" features: stir_recipe_sddmm_vblock with
 * stir_sddmm_vblock_candidate_map's mapping.  0, or -1 with diagnostics in
 * k's context. */
STIR_EXPORT int stir_recipe_sddmm_vblock_candidate(__stir_keep stir_kernel *k,
	const stir_sddmm_vblock_candidate *p, int64_t feat);

/* A candidate of the SDDMM: which schedule (fused over the non-zeros, or
 * row by row on examples/sddmm_rows.stir), at most how many lanes per
 * non-zero (stir_sddmm_map_lanes) and how many threads per thread block
 * (stir_sddmm_candidate_map gives its mapping). */
typedef struct stir_sddmm_candidate {
	bool rows;              /* stir_recipe_sddmm_rows, else stir_recipe_sddmm */
	int64_t max_lanes;      /* a power of two up to 32 */
	int64_t threads;        /* a power of two, 32 to 256; 0: 256 */
	bool x_global;          /* the row schedule: X's row read from
	                           global memory, not copied to shared */
	int64_t chunks;         /* the row schedule: thread blocks a row
	                           (blockIdx.y), taking its steps of
	                           non-zeros in turn; 0 or 1: one */
	int64_t row_tile;       /* the row schedule: that many consecutive
	                           rows a thread block (the row tile
	                           schedule, max_lanes 1, X read from
	                           global memory); 0: one row a block */
} stir_sddmm_candidate;

/* The candidate space of the SDDMM, as bench_sddmm searches it: the fused
 * schedule with 32, 16, 8 and 4 lanes at most, then the row schedule with
 * the same (256 threads); then, for long rows and small matrices, the row
 * schedule in thread blocks of 128 and of 64 threads, both schedules with
 * 2 lanes at most, the fused one with 8 and 4 lanes in blocks of 128;
 * then the row schedule with X read from global memory in blocks of 64
 * and 32 threads; then the row schedule with a row cut over 2 or 4
 * thread blocks (chunks); then the row tile schedule, 8, 4 and 2 rows a
 * block (bench_sddmm --candidates names them by index). */
STIR_EXPORT int stir_sddmm_n_candidates(void);
/* Candidate i (0 <= i < stir_sddmm_n_candidates()), or NULL. */
STIR_EXPORT const stir_sddmm_candidate *stir_sddmm_get_candidate(int i);


/* Schedule stage I kernel k with SDDMM candidate p at "feat" features:
 * stir_recipe_sddmm (k the kernel sddmm of examples/sddmm.stir) or, for
 * a row candidate, the row schedule of stir_recipe_sddmm_rows (k the
 * kernel sddmm_rows of examples/sddmm_rows.stir), X's row in shared
 * memory unless p->x_global, or stir_recipe_sddmm_row_tile when
 * p->row_tile; with
 * stir_sddmm_candidate_map's mapping.  0, or -1 with diagnostics in k's
 * context. */
STIR_EXPORT int stir_recipe_sddmm_candidate(__stir_keep stir_kernel *k,
	const stir_sddmm_candidate *p, int64_t feat);

/* The mapping of candidate "p" for "feat" features (feat >= 1):
 * stir_sddmm_map_lanes(feat, p->max_lanes) with p->threads / lanes
 * non-zeros per thread block at a time. */
STIR_EXPORT stir_sddmm_map stir_sddmm_candidate_map(
	const stir_sddmm_candidate *p, int64_t feat);

/* The SDDMM cost model (docs/recipes.md): an estimate, in arbitrary
 * units, of candidate p's time on matrix "a" (CSR, the mask) at "feat"
 * features on a GPU of "n_sms" SMs (< 1: 132), from the bytes it moves
 * (Y's gathered rows with the share L2 holds, X, the indices, S) over the
 * bandwidth its threads in flight draw, and its threads' serial steps
 * (vectors per lane, shuffles, the fused schedule's row search, the row
 * schedule's steps per row and idle lanes), blocks and waves.
 * Deterministic; -1 when p or a is unusable (NULL, feat < 1, no rows). */
STIR_EXPORT double stir_sddmm_model_cost(const stir_sddmm_candidate *p,
	__stir_keep const stir_csr *a, int64_t feat, int n_sms);
/* The candidates, cheapest first by the model (ties by index, so that of
 * candidates that map alike the first comes first) into order[] (room for
 * stir_sddmm_n_candidates()), their costs into costs[] when not NULL.
 * The count, or -1 when out of memory. */
STIR_EXPORT int stir_sddmm_model_rank(__stir_keep const stir_csr *a,
	int64_t feat, int n_sms, int *order, double *costs);

/* The cost model of group candidate p (stir_sddmm_model_cost's terms over
 * the row groups of "a": a group's union columns its non-zeros, each
 * column's Y row read once for the group's rows, plus the gather of the
 * slots into the matrix's order).  -1 when p or a is unusable. */
STIR_EXPORT double stir_sddmm_vblock_model_cost(
	const stir_sddmm_vblock_candidate *p, __stir_keep const stir_csr *a,
	int64_t feat, int n_sms);
/* The group candidates, cheapest first by that model (ties by index),
 * into order[] (room for stir_sddmm_vblock_n_candidates()), their costs
 * into costs[] when not NULL.  The count, or -1 when out of memory. */
STIR_EXPORT int stir_sddmm_vblock_model_rank(__stir_keep const stir_csr *a,
	int64_t feat, int n_sms, int *order, double *costs);

/* ---- SDDMM over tiles, on tensor cores --------------------------------- */

/* A candidate of the SDDMM over SR-BCRS(8, 16) tiles on tensor cores,
 * 3xTF32, S written straight into the matrix's order through Dst (kernel
 * sddmm_tiles_csr of examples/sddmm_tiles_csr.stir; stirc run and
 * stir_kernel_bind_csr build its tiles from a CSR matrix,
 * stir_csr_to_tile_groups): a window of 8 rows a thread block, its
 * groups (16 x 8 tiles) "warps" at a time over the warps of the block
 * (threadIdx.y), "groups" of them a warp, each its own mma chain over the
 * features' steps of 8, unrolled in pieces of "piece" steps; or, with
 * "kwarps" > 0 (piece 0, groups 1), the steps split over that many warps
 * (threadIdx.z) whose partial tiles are summed in shared memory
 * (docs/recipes.md, "The SDDMM over tiles"). */
typedef struct stir_sddmm_tiles_candidate {
	int64_t warps;          /* warps over a window's groups */
	int64_t piece;          /* steps unrolled a piece; 0 with kwarps */
	int64_t kwarps;         /* warps over the features; 0: none */
	int64_t groups;         /* groups a warp */
} stir_sddmm_tiles_candidate;

/* The candidate space (schedule/recipes/sddmm_tiles.c says why each is
 * there; bench_sddmm --tiles times them by index). */
STIR_EXPORT int stir_sddmm_tiles_n_candidates(void);
/* Candidate i (0 <= i < stir_sddmm_tiles_n_candidates()), or NULL. */
STIR_EXPORT const stir_sddmm_tiles_candidate *stir_sddmm_tiles_get_candidate(
	int i);
/* Whether candidate p applies at "feat" features: feat a multiple of 8
 * whose steps (feat / 8) its warps over the features and its pieces
 * divide (a piece larger than a warp's steps takes them all). */
STIR_EXPORT bool stir_sddmm_tiles_fits(const stir_sddmm_tiles_candidate *p,
	int64_t feat);
/* The warps over the features of p at "feat" (p->kwarps, at most the
 * steps; 1 without), and the steps of one of its pieces (p->piece, at
 * most a warp's steps; with kwarps a warp's steps). */
STIR_EXPORT int64_t stir_sddmm_tiles_kwarps(
	const stir_sddmm_tiles_candidate *p, int64_t feat);
STIR_EXPORT int64_t stir_sddmm_tiles_piece(
	const stir_sddmm_tiles_candidate *p, int64_t feat);
/* Schedule stage I kernel k, sddmm_tiles_csr of
 * examples/sddmm_tiles_csr.stir, with candidate p at "feat" features (the
 * features specialized) and bring it to stage III, ready for
 * stir_gpu_kernel_compile.  0, or -1 with a located error in k's context
 * (p does not fit feat, or k is not that kernel). */
STIR_EXPORT int stir_recipe_sddmm_tiles_candidate(__stir_keep stir_kernel *k,
	const stir_sddmm_tiles_candidate *p, int64_t feat);

/* The cost model of tile candidate p (docs/recipes.md): an estimate, in
 * arbitrary units, of its time on matrix "a" (CSR, the mask; its windows
 * of 8 rows and their groups of 16 union columns as
 * stir_csr_to_tile_groups makes them) at "feat" features on n_sms SMs
 * (< 1: 132), from the bytes moved (Y's gathered rows a tile, X's rows of
 * a window once a warp, the tiles' stores through Dst), the warps'
 * serial pieces of mma steps and stores, and the waves of windows.  -1
 * when p does not apply at feat (stir_sddmm_tiles_fits), a has no rows
 * or memory runs out. */
STIR_EXPORT double stir_sddmm_tiles_model_cost(
	const stir_sddmm_tiles_candidate *p, __stir_keep const stir_csr *a,
	int64_t feat, int n_sms);
/* The tile candidates that apply at "feat", cheapest first by that model
 * (ties by index), into order[] (room for stir_sddmm_tiles_n_candidates()),
 * their costs into costs[] when not NULL.  The count, or -1 when out of
 * memory. */
STIR_EXPORT int stir_sddmm_tiles_model_rank(__stir_keep const stir_csr *a,
	int64_t feat, int n_sms, int *order, double *costs);

/* ---- BSR SpMM on tensor cores ---------------------------------------- */

/* A candidate of the BSR SpMM on tensor cores (kernel bsrmm of
 * examples/bsrmm.stir, blocks of 16, bench/bsrmm32.stir, 32, or
 * bench/bsrmm64.stir, 64; f16 inputs, f32 accumulation on mma.m16n8k16, A's blocks and B's
 * rows staged in shared memory by cp.async in a pipeline of "stages"
 * over a row's blocks, "batch" blocks a wait): a block row a thread
 * block, "warp_feat" features a warp (blockIdx.y), the row's blocks
 * walked by one warp or split over "warps" warps whose partial strips are
 * summed in shared memory; blocks of 32 and 64 with one warp a 16-row
 * strip a thread block, with block / warp_rows warps a block row a
 * thread block and a warp on "warp_rows" of its rows (one fragment of 16
 * rows, or two: the warp's tiles then an outer product of A's two
 * fragments and B's), their accumulators in registers and A's block and
 * B's rows shared (docs/recipes.md, "BSR on tensor cores"). */
typedef struct stir_bsr_tc_candidate {
	int64_t block;          /* the block size: 16, 32 or 64 */
	int64_t warps;          /* warps over a block row's blocks (16), or
	                           over its rows (32, 64) */
	int64_t warp_rows;      /* a block's rows a warp: 16, or 32 (blocks
	                           of 32 and 64, warps = block / 32) */
	int64_t warp_feat;      /* features a warp */
	int64_t stages;         /* the pipeline's stages */
	int64_t batch;          /* blocks a wait of the pipeline */
} stir_bsr_tc_candidate;

/* The candidate space (schedule/recipes/bsr.c says why each is there). */
STIR_EXPORT int stir_bsr_tc_n_candidates(void);
/* Candidate i (0 <= i < stir_bsr_tc_n_candidates()), or NULL. */
STIR_EXPORT const stir_bsr_tc_candidate *stir_bsr_tc_get_candidate(int i);
/* Whether candidate p applies at "feat" features (a multiple of its
 * features a warp). */
STIR_EXPORT bool stir_bsr_tc_fits(const stir_bsr_tc_candidate *p,
	int64_t feat);
/* The candidate the shape rule picks for a BSR matrix of blocks b x b
 * (16, 32 or 64), mb block rows whose blocks start at indptr[0..mb], times
 * a dense operand "width" columns wide (a multiple of 32): blocks of 32
 * and 64 (width a multiple of 64), when the grid has 1024 warps of a
 * strip of 16 rows (mb x width / 64 x b / 16), a warp on 32 rows of a
 * block row where no row is much longer than the mean (5/4 of it), else
 * a warp on a strip of a block row; on smaller grids a thread block a
 * strip; blocks of 16 a warp a row with 64 features while the grid has
 * 1024 such warps and no row is much longer than the mean (5/4 of it) or
 * any longer than 64 blocks; else a warp a row with 32 features while
 * the longest row is at most the grid's warps / 32; else the row's blocks
 * over 4 warps, 64 features a warp on a grid of even rows of half 1024
 * warps of 32 or of skewed rows beyond 1024, else 32.  Its index, or -1
 * when none applies. */
STIR_EXPORT int stir_bsr_tc_pick(int64_t b, int64_t mb, const int32_t *indptr,
	int64_t width);
/* The candidates of blocks of "block" (16, 32 or 64) that apply at
 * "feat" features to matrix "a" in BSR(block) (a block stored when it
 * holds an entry), in the tuner's order into order[] (room for
 * stir_bsr_tc_n_candidates()), each one's place into costs[] when not
 * NULL (a rule, not a cost model): stir_bsr_tc_pick's first, then the
 * others in index order.  The count (0: none applies), or -1 for
 * another block size, an empty matrix or no memory. */
STIR_EXPORT int stir_bsr_rank(int64_t block, __stir_keep const stir_csr *a,
	int64_t feat, int *order, double *costs);
/* Schedule stage I kernel k (bsrmm of examples/bsrmm.stir,
 * bench/bsrmm32.stir or bench/bsrmm64.stir, as p->block) with candidate p at "feat" features
 * (specialized) and bring it to stage III, ready for
 * stir_gpu_kernel_compile.  0, or -1 with a located error in k's
 * context (p does not fit feat, or a step does not apply to k). */
STIR_EXPORT int stir_recipe_bsr_tc_candidate(__stir_keep stir_kernel *k,
	const stir_bsr_tc_candidate *p, int64_t feat);

/* ---- CSR SpMM through SR-BCRS on tensor cores ----------------------- */

/* A candidate of the CSR SpMM through SR-BCRS(16, 8) on tensor cores
 * (kernel csrmm of examples/csrmm.stir; tf32 on mma.m16n8k8, f32
 * accumulation): A decomposed into windows of 16 rows covering the rows,
 * a window (or a chunk of one) a thread block, 32 features a warp.
 * "chunk" 0: whole windows, each stored once; else the windows of more
 * than "chunk" groups cut into chunks added atomically, the others whole,
 * in one launch; "order" (only with chunks; STIR_ROWS_NATURAL without) the
 * windows' rows in a row order (docs/formats.md, "Row orders"), both
 * parts then added atomically, in two launches (docs/recipes.md, "SR-BCRS
 * on tensor cores"). */
typedef struct stir_srbcrs_tc_candidate {
	int chunk;              /* groups a chunk, or 0: whole windows */
	stir_row_order order;   /* the windows' row order */
} stir_srbcrs_tc_candidate;

/* The candidate space (schedule/recipes/srbcrs.c says why each is
 * there). */
STIR_EXPORT int stir_srbcrs_tc_n_candidates(void);
/* Candidate i (0 <= i < stir_srbcrs_tc_n_candidates()), or NULL. */
STIR_EXPORT const stir_srbcrs_tc_candidate *stir_srbcrs_tc_get_candidate(
	int i);
/* Whether candidate p applies at "feat" features (a multiple of 32, a
 * warp's 4 tiles of 8). */
STIR_EXPORT bool stir_srbcrs_tc_fits(const stir_srbcrs_tc_candidate *p,
	int64_t feat);
/* The format candidate p decomposes A into, built on the host from csr
 * (stir_csr_to_sr_bcrs or stir_csr_to_sr_bcrs_chunks, suffix "_srbcrs")
 * and bound into b for the kernel the recipe made, with A's sizes m and
 * n: the preprocessing that replaces the kernel csrmm_copy.  NULL with an
 * error in ctx. */
STIR_EXPORT __stir_give stir_host_format *stir_srbcrs_tc_format(
	__stir_keep stir_ctx *ctx, __stir_keep const stir_csr *csr,
	const stir_srbcrs_tc_candidate *p, stir_dtype index_type,
	stir_dtype value_type, __stir_keep stir_bindings *b);
/* Schedule stage I kernel k (csrmm of examples/csrmm.stir) with
 * candidate p at "feat" features (specialized): A decomposed, then
 * brought to stage III, ready for stir_gpu_kernel_compile.  0, or -1 with
 * a located error in k's context (p does not fit feat, or a step does not
 * apply to k). */
STIR_EXPORT int stir_recipe_srbcrs_tc_candidate(__stir_keep stir_kernel *k,
	const stir_srbcrs_tc_candidate *p, int64_t feat);

/* ---- RGMS on tensor cores ------------------------------------------- */

/* A candidate of RGMS on tensor cores in the aggregated order (kernel
 * rgms_agg of examples/rgms_agg.stir, tf32 on mma.m16n8k8): T and Y
 * zeroed by float4 stores; the aggregation over the edges with COO
 * arrays, "edges" consecutive edges a thread, a pair's run of edges
 * summed in registers and added into T by float4 atomics; the apply a
 * thread block per relation and piece of its tiles of 16 rows ("pieces"
 * a relation), each tile of T staged in shared memory, a warp per 2
 * tiles of 8 output features; three launches that overlap
 * (docs/recipes.md, "RGMS on tensor cores"). */
typedef struct stir_rgms_tc_candidate {
	int64_t edges;          /* consecutive edges a thread (aggregation) */
	int64_t pieces;         /* thread blocks over a relation's tiles */
} stir_rgms_tc_candidate;

/* The candidate space (schedule/recipes/rgms.c says why each is there). */
STIR_EXPORT int stir_rgms_tc_n_candidates(void);
/* Candidate i (0 <= i < stir_rgms_tc_n_candidates()), or NULL. */
STIR_EXPORT const stir_rgms_tc_candidate *stir_rgms_tc_get_candidate(int i);
/* Whether candidate p applies at fin = fout = "feat" features (a multiple
 * of 16 from 16 to 128). */
STIR_EXPORT bool stir_rgms_tc_fits(const stir_rgms_tc_candidate *p,
	int64_t feat);
/* The candidate the pieces rule picks for a relational graph of nrels
 * relations whose (relation, row) pairs start at rel_ptr[0..nrels]
 * (stir_hetero's rel_ptr): the piece count P minimizing the tiles of 16
 * pairs the busiest thread block runs one after another, ceil(tiles of
 * the largest relation / P), plus the thread blocks nrels x P over 4096
 * (about what an H100 or H200, 132 SMs, starts in the time of a tile;
 * fitted on AIFB, MUTAG and the synthetic BGS and AM, bench/RESULTS.md).
 * Its index, or -1 when nrels < 1 or rel_ptr is NULL. */
STIR_EXPORT int stir_rgms_tc_pick(int64_t nrels, const int64_t *rel_ptr);
/* Schedule stage I kernel k (rgms_agg of examples/rgms_agg.stir) with
 * candidate p at fin = fout = "feat" (specialized) and bring it to stage
 * III, ready for stir_gpu_kernel_compile.  0, or -1 with a located error
 * in k's context (p does not fit feat, or a step does not apply to k). */
STIR_EXPORT int stir_recipe_rgms_tc_candidate(__stir_keep stir_kernel *k,
	const stir_rgms_tc_candidate *p, int64_t feat);

/* A candidate of RGMS on CUDA cores in the aggregated order (kernel
 * rgms_agg of examples/rgms_agg.stir, f32): T and Y zeroed by float4
 * stores; the aggregation of stir_rgms_tc_candidate ("edges" consecutive
 * edges a thread); the apply a (relation, row) pair a group of feat / 4
 * lanes, 4 output features a lane summed in registers and added
 * atomically into Y; three launches that overlap (docs/recipes.md, "RGMS
 * on tensor cores"). */
typedef struct stir_rgms_candidate {
	int64_t edges;          /* consecutive edges a thread (aggregation) */
} stir_rgms_candidate;

/* The CUDA-core candidate space (schedule/recipes/rgms.c). */
STIR_EXPORT int stir_rgms_n_candidates(void);
/* Candidate i (0 <= i < stir_rgms_n_candidates()), or NULL. */
STIR_EXPORT const stir_rgms_candidate *stir_rgms_get_candidate(int i);
/* Whether candidate p applies at fin = fout = "feat" features (a multiple
 * of 4 from 16 to 128). */
STIR_EXPORT bool stir_rgms_fits(const stir_rgms_candidate *p, int64_t feat);
/* Schedule stage I kernel k (rgms_agg of examples/rgms_agg.stir) with
 * CUDA-core candidate p at fin = fout = "feat" (specialized) and bring it
 * to stage III.  0, or -1 with a located error in k's context. */
STIR_EXPORT int stir_recipe_rgms_candidate(__stir_keep stir_kernel *k,
	const stir_rgms_candidate *p, int64_t feat);

/* A candidate of RGMS edge by edge on CUDA cores (kernel rgms_edge of
 * examples/rgms_edge.stir, f32, no intermediate): Y zeroed by float4
 * stores; the edges flattened over relation, row and column with COO
 * arrays, feat / 4 lanes an edge, 4 consecutive output features a lane
 * summed over the input features (X's and W[r]'s loaded by float4) and
 * added into Y by one float4 atomic; with "edges" above 1, that many
 * consecutive edges a thread, a row's run of them summed in registers
 * first (cache_write_runs); two launches that overlap (docs/recipes.md,
 * "RGMS on tensor cores"). */
typedef struct stir_rgms_edge_candidate {
	int64_t edges;          /* consecutive edges a thread */
} stir_rgms_edge_candidate;

/* The edge-by-edge candidate space (schedule/recipes/rgms.c). */
STIR_EXPORT int stir_rgms_edge_n_candidates(void);
/* Candidate i (0 <= i < stir_rgms_edge_n_candidates()), or NULL. */
STIR_EXPORT const stir_rgms_edge_candidate *stir_rgms_edge_get_candidate(
	int i);
/* Whether candidate p applies at fin = fout = "feat" features (a multiple
 * of 4 from 16 to 128). */
STIR_EXPORT bool stir_rgms_edge_fits(const stir_rgms_edge_candidate *p,
	int64_t feat);
/* Schedule stage I kernel k (rgms_edge of examples/rgms_edge.stir) with
 * candidate p at fin = fout = "feat" (specialized) and bring it to stage
 * III.  0, or -1 with a located error in k's context. */
STIR_EXPORT int stir_recipe_rgms_edge_candidate(__stir_keep stir_kernel *k,
	const stir_rgms_edge_candidate *p, int64_t feat);

/* ---- the tuner ------------------------------------------------------- */

/* The recipes a tuner knows, by the kernel they schedule. */
typedef enum stir_tune_recipe {
	STIR_TUNE_NONE = 0,
	STIR_TUNE_SPMM,         /* csrmm of examples/csrmm.stir: hybrid SpMM */
	STIR_TUNE_SDDMM,        /* sddmm of examples/sddmm.stir: fused */
	STIR_TUNE_SDDMM_ROWS,   /* sddmm_rows of examples/sddmm_rows.stir */
	STIR_TUNE_SDDMM_VB4,    /* sddmm_vb of examples/sddmm_vb4.stir: the
	                           group candidates of 4 rows */
	STIR_TUNE_SDDMM_VB8,    /* sddmm_vb of examples/sddmm_vb8.stir */
	STIR_TUNE_SDDMM_VB4_CSR, /* sddmm_vb_csr of examples/sddmm_vb4_csr.stir:
	                           the group candidates of 4 rows, S written
	                           in the matrix's order through Dst */
	STIR_TUNE_SDDMM_VB8_CSR, /* sddmm_vb_csr with groups of 8 rows */
	STIR_TUNE_SDDMM_TILES,  /* sddmm_tiles_csr of
	                           examples/sddmm_tiles_csr.stir: the SDDMM
	                           over tiles on tensor cores */
	STIR_TUNE_RGMS,         /* rgms_agg of examples/rgms_agg.stir: the
	                           CUDA-core candidates (stir_rgms_candidate),
	                           f32 throughout */
	STIR_TUNE_RGMS_TF32,    /* rgms_agg with the tensor-core candidates
	                           too (stir_rgms_tc_candidate, inputs rounded
	                           to tf32): a key's recipe when
	                           stir_tune_options.tf32 asks for them */
	STIR_TUNE_RGMS_EDGE,    /* rgms_edge of examples/rgms_edge.stir */
	STIR_TUNE_BSR16,        /* bsrmm of examples/bsrmm.stir (A in blocks
	                           of 16): stir_bsr_tc_candidate */
	STIR_TUNE_BSR32,        /* bsrmm of bench/bsrmm32.stir */
	STIR_TUNE_BSR64         /* bsrmm of bench/bsrmm64.stir */
} stir_tune_recipe;

/* The recipe that covers kernel k (by its name; the recipe itself checks
 * the kernel's structure when applied), or STIR_TUNE_NONE; for rgms_agg
 * STIR_TUNE_RGMS (STIR_TUNE_RGMS_TF32 is asked for, not found). */
STIR_EXPORT stir_tune_recipe stir_kernel_get_tune_recipe(
	__stir_keep const stir_kernel *k);
/* Whether recipe r schedules a kernel over a relational graph (the RGMS
 * recipes: stir_tune_hetero), not over a CSR matrix (stir_tune). */
STIR_EXPORT bool stir_tune_recipe_is_hetero(stir_tune_recipe r);
/* Whether a cost model ranks recipe r's candidates (the SpMM's and the
 * SDDMM's: a cost each), not rules (RGMS, BSR: stir_rgms_rank,
 * stir_bsr_rank, whose cost is a candidate's place in their order). */
STIR_EXPORT bool stir_tune_recipe_is_model_ranked(stir_tune_recipe r);

/* The candidates of RGMS recipe r (STIR_TUNE_RGMS: the CUDA-core ones,
 * 0 .. stir_rgms_n_candidates() - 1; STIR_TUNE_RGMS_TF32: those, then
 * the tensor-core ones from stir_rgms_n_candidates() on;
 * STIR_TUNE_RGMS_EDGE: the edge-by-edge ones) that apply at fin = fout =
 * "feat" on graph h, in the rules' order into order[] (room for
 * stir_rgms_n_candidates() + stir_rgms_tc_n_candidates() or
 * stir_rgms_edge_n_candidates()), each one's place in it into costs[]
 * when not NULL (RGMS has rules, not a cost model).  The rules: 4 edges a
 * thread first on CUDA cores (within 6% and 22% of the fastest in the
 * benchmark's 16 cases, bench/RESULTS.md "RGMS through the library's
 * three recipes"), then 8 (rgms_edge: then 1); with tf32, the tensor-core
 * candidates before them (1.6-2.2x the CUDA cores at 64-128 features),
 * stir_rgms_tc_pick's first, then by the pieces rule's cost.  The
 * count (0: none applies), or -1 for a recipe that is not RGMS's. */
STIR_EXPORT int stir_rgms_rank(stir_tune_recipe r,
	__stir_keep const stir_hetero *h, int64_t feat, int *order,
	double *costs);

/* The SDDMM candidates that apply to recipe r (fused or by rows) at
 * "feat" features on matrix "a", best first, into order[] (room for
 * stir_sddmm_n_candidates()), their costs into costs[] when not NULL:
 * stir_sddmm_model_rank's order, kept to the recipe's candidates.  For
 * the groups of rows (STIR_TUNE_SDDMM_VB4, _VB8) the group candidates of
 * that many rows (room for stir_sddmm_vblock_n_candidates()) in
 * stir_sddmm_vblock_model_rank's order.  The count, or -1 when out of
 * memory. */
STIR_EXPORT int stir_sddmm_rank(stir_tune_recipe r,
	__stir_keep const stir_csr *a, int64_t feat, int n_sms, int *order,
	double *costs);

/* The model's pick (--model-only): schedule stage I kernel k, which a
 * recipe covers (stir_kernel_get_tune_recipe), with the candidate the cost
 * model ranks first for matrix "a" (A of SpMM, S of SDDMM) at "feat"
 * features on a GPU of n_sms SMs (< 1: 132), with the schedule log on
 * (stir_kernel_print_schedule then prints it as a schedule file, the
 * format's parameters included).  The candidate's index in *cand and its
 * cost in *cost when not NULL.  0, or -1 with diagnostics in k's
 * context. */
STIR_EXPORT int stir_tune_model_apply(__stir_keep stir_kernel *k,
	__stir_keep const stir_csr *a, int64_t feat, int n_sms, int *cand,
	double *cost);

/* The model's pick for a kernel of an RGMS recipe (rgms_agg,
 * rgms_edge) on relational graph h at fin = fout = "feat": the first of
 * stir_rgms_rank's order (with "tf32", STIR_TUNE_RGMS_TF32's), as
 * stir_tune_model_apply.  0, or -1 with diagnostics in k's context. */
STIR_EXPORT int stir_tune_model_apply_hetero(__stir_keep stir_kernel *k,
	__stir_keep const stir_hetero *h, int64_t feat, bool tf32, int *cand,
	double *cost);

/* Schedule stage I kernel k with candidate "cand" of the recipe that
 * covers it at "feat" features, the schedule log on (the hybrid SpMM's
 * locality order in its logged decomposition; for rgms_agg, the
 * candidates of STIR_TUNE_RGMS_TF32).  0, or -1 with
 * diagnostics. */
STIR_EXPORT int stir_tune_apply_candidate(__stir_keep stir_kernel *k,
	int64_t feat, int cand);

/* ---- the tuning record (docs/recipes.md) ---- */

/* One entry: its key (program, recipe, device, feat, sig) and what was
 * chosen. */
typedef struct stir_tune_entry {
	char program[65];       /* SHA-256 of the program's text, hex */
	stir_tune_recipe recipe;
	char device[64];        /* the GPU's name, or "model-smsN" for the
	                           cost model's pick; no spaces */
	int64_t feat;
	stir_matrix_sig sig;
	int cand;               /* the candidate chosen */
	char how[16];           /* "model" or "measured" */
	double cost;            /* the model's cost of cand */
	double time_ms;         /* its measured time, or -1 */
} stir_tune_entry;

/* The similarity a record hit for a similar graph allows
 * (stir_matrix_sig_is_similar). */
#define STIR_TUNE_SIMILAR_TOL 0.1

/* text: the program's text; its SHA-256 in hex into hex[]. */
STIR_EXPORT void stir_tune_program_hash(const char *text, char hex[65]);
/* The entry for "key" in the record of cache directory "dir" (NULL: the
 * kernel cache's, $STIR_CACHE_DIR or ~/.cache/stir; the record is its
 * directory tune/) into *out: 1 for the key itself, 2 for a similar
 * graph (same program, recipe, device and feat, signatures within
 * "tol"; of several, the first by file name), 0 for none.  A damaged
 * entry is ignored with a warning in ctx. */
STIR_EXPORT int stir_tune_record_find(__stir_keep stir_ctx *ctx,
	const char *dir, const stir_tune_entry *key, double tol,
	stir_tune_entry *out);
/* Store entry e (replacing its key's), written whole to a temporary
 * file and renamed (safe with several processes).  0, or -1 with an
 * error in ctx. */
STIR_EXPORT int stir_tune_record_store(__stir_keep stir_ctx *ctx,
	const char *dir, const stir_tune_entry *e);
/* Store "text" (len bytes), the schedule file of entry e's candidate,
 * beside e in the record (as stir_tune_record_store), so that a record
 * hit need not schedule the candidate again to print it.  0, or -1 with
 * an error in ctx. */
STIR_EXPORT int stir_tune_record_store_schedule(__stir_keep stir_ctx *ctx,
	const char *dir, const stir_tune_entry *e, const char *text,
	size_t len);
/* The schedule file stored beside entry e, when it is whole and of e's
 * candidate and feature size: a heap string (the caller's to free) of
 * *len bytes; else NULL (a damaged file with a warning in ctx). */
STIR_EXPORT char *stir_tune_record_find_schedule(__stir_keep stir_ctx *ctx,
	const char *dir, const stir_tune_entry *e, size_t *len);
/* Print the record's entries to "out", one a line, sorted.  0 or -1. */
STIR_EXPORT int stir_tune_record_print(__stir_keep stir_ctx *ctx,
	const char *dir, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
