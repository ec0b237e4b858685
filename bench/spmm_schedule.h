/* The SpMM schedules (bench/README.md, "The hybrid SpMM schedule"), built
 * through the C API for kernel csrmm of examples/csrmm.stir:
 * C[i, k] = sum_j A[i, j] * B[j, k] with A in CSR.
 *
 * - the hybrid ELL schedule of SparseTIR: A decomposed into hybrid(c,
 *   buckets), every part a nest of its own, all in one launch;
 * - the plain CSR schedule, stir's own baseline.
 *
 * Shared by bench/bench_spmm.c, examples/gnn_kernels.c and the tests. */
#ifndef STIR_BENCH_SPMM_SCHEDULE_H
#define STIR_BENCH_SPMM_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>
#include <stir/stir.h>

/* How the features of a row map onto threads: "lanes" threads along
 * threadIdx.x, each "vec" consecutive features (vector loads); "chunks"
 * such pieces of the row along threadIdx.z, or, when "serial", one after
 * another in each thread (a thread's features lanes * vec apart, so its
 * loads stay coalesced across the lanes, and each column's index and value
 * serve all its chunks); "rows" rows per thread block along threadIdx.y,
 * so that a block has 256 threads. */
typedef struct bench_spmm_map {
	int64_t feat;           /* the features, a literal in the kernel */
	int64_t lanes, vec, chunks, rows;
	/* > 1: "group" threads along threadIdx.x share each row of a hybrid
	 * part, each taking every group-th column, and their sums are
	 * combined by warp shuffles; the feature lanes are then on
	 * threadIdx.y, the chunks a loop inside the thread, and the rows on
	 * threadIdx.z (bench_spmm_map_grouped) */
	int64_t group;
	/* the hybrid parts read a row's column indices and values once per
	 * lane group, into warp caches (cache_read with scope warp: one
	 * coalesced load, then a shuffle per column), instead of every lane
	 * loading each; parts with one lane or grouped rows do not */
	bool warp_cache;
	bool serial;            /* the chunks in each thread (not threadIdx.z) */
} bench_spmm_map;

/* The mapping for "feat" features (feat >= 1): the widest vector (4, 2
 * or 1) that divides them, as many lanes (a power of two up to a warp) as
 * divide the vectors, the rest in chunks; every split is exact, so no
 * feature needs a guard.  Warp caches on. */
bench_spmm_map bench_spmm_map_features(int64_t feat);

/* The mapping for "feat" features with "group" threads a row (a power of
 * two from 2 to 16): as bench_spmm_map_features, with at most 32 / group
 * lanes, so that a row's threads lie in one warp.  group 1 is
 * bench_spmm_map_features. */
bench_spmm_map bench_spmm_map_grouped(int64_t feat, int64_t group);

/* The mapping for "feat" features with "lanes" lanes (a power of two up
 * to 32) and the chunks serial in each thread: as
 * bench_spmm_map_features otherwise.  bench_spmm_map_fits says whether
 * the lanes divide the features into at least two chunks. */
bench_spmm_map bench_spmm_map_serial(int64_t feat, int64_t lanes);

/* Whether bench_spmm_hybrid_schedule can use mapping fm: a grouped row
 * keeps its thread's sums in at most 32 registers (chunks * vec <= 32,
 * the most a cross-thread reduction into a register array takes); a
 * serial one has at least two chunks, of lanes * vec features each, that
 * make up the features, at most 32 values a thread. */
bool bench_spmm_map_fits(bench_spmm_map fm);

/* The flags to build hybrid(c, ..) with (stir_csr_to_hybrid_flags) for
 * the kernel of bench_spmm_hybrid_schedule: every part bound, a row that
 * fills every column padded at one of its own, and with one column range
 * the rows covered (STIR_HYBRID_COVER_ROWS). */
unsigned bench_spmm_hybrid_flags(int c);

/* Schedule kernel "k", the stage I kernel csrmm, for the hybrid format
 * hybrid(c, buckets[0..nb-1]) of its A and mapping "fm", and bring it to
 * stage III, ready for stir_gpu_kernel_compile.  The kernel holds every
 * part (q, t), q < c, t < nb, so that it serves any matrix whose format
 * is built with bench_spmm_hybrid_flags(c) and suffix "_hyb"; its sizes
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
int bench_spmm_hybrid_schedule(stir_kernel *k, int c, const int64_t *buckets,
	int nb, bench_spmm_map fm);

/* Schedule kernel "k", the stage I kernel csrmm, for A in CSR: rows over
 * blockIdx.x and threadIdx.y, features over threadIdx.x, the row's sum in
 * a register, stored once (cache_write_over_init: one launch); brought to
 * stage III.  0 or -1. */
int bench_spmm_csr_schedule(stir_kernel *k, bench_spmm_map fm);

#endif
