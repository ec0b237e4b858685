/* The fast SDDMM schedules (docs/schedules.md, "SDDMM"), built through
 * the C API: S[i, j] = sum_k X[i, k] * Y[j, k] over the non-zeros (i, j)
 * of S.  Two programs compute it: examples/sddmm.stir, one flat loop over
 * the non-zeros (the iteration's fuse(I, J), which is sparse_fuse written
 * in the program), for graphs of short rows; examples/sddmm_rows.stir,
 * row by row, for graphs of long rows (no non-zero searches for its row,
 * X's row is read once per row).
 *
 * Shared by bench/bench_sddmm.c and tests/test_cuda_emu.c, which runs the
 * scheduled kernel on the emulated GPU against the interpreter. */
#ifndef STIR_BENCH_SDDMM_SCHEDULE_H
#define STIR_BENCH_SDDMM_SCHEDULE_H

#include <stdint.h>
#include <stir/stir.h>

/* How the work maps onto a thread block: "lanes" threads per non-zero
 * (threadIdx.x), each loading "vec" consecutive features of X's and Y's
 * rows at a time, their parts combined by warp shuffles; "nnz" non-zeros
 * per thread block at a time (threadIdx.y), lanes * nnz = 256 threads.
 * The row schedule gives a thread block one row, whose non-zeros it takes
 * "nnz" at a time. */
typedef struct bench_sddmm_map {
	int64_t feat;           /* the features, a literal in the kernel */
	int64_t lanes;          /* a power of two <= 32 dividing feat / vec */
	int64_t vec;            /* 4, 2 or 1 (no vector loads) */
	int64_t nnz;            /* non-zeros per thread block */
} bench_sddmm_map;

/* The default mapping for "feat" features (feat >= 1): the widest vector
 * that divides them, then as many lanes as divide the vectors of a row,
 * up to a warp (so every split is exact and no feature needs a guard). */
bench_sddmm_map bench_sddmm_map_features(int64_t feat);

/* The same with at most "max_lanes" lanes (a power of two): fewer lanes,
 * more vectors per lane, fewer shuffles per non-zero. */
bench_sddmm_map bench_sddmm_map_lanes(int64_t feat, int64_t max_lanes);

/* Schedule kernel "k", the stage I kernel sddmm of examples/sddmm.stir,
 * for mapping "fm" and bring it to stage III, ready for
 * stir_gpu_kernel_compile (its block names are those of that program:
 * sddmm0 and its init sddmm_init0).  0, or -1 with diagnostics in k's
 * context (k may be partly scheduled then). */
int bench_sddmm_schedule(stir_kernel *k, bench_sddmm_map fm);

/* The same for kernel "k", the stage I kernel sddmm_rows of
 * examples/sddmm_rows.stir (blocks sddmm0 over the rows, sddmm1 over a
 * row's non-zeros and the features, the init sddmm_init0/1): one row per
 * thread block (blockIdx.x), X's row copied to shared memory once, the
 * row's non-zeros fm.nnz at a time (threadIdx.y), fm.lanes lanes each
 * (threadIdx.x) with vector loads, S zeroed in the same launch.  No
 * search for a row remains.  0, or -1 with diagnostics. */
int bench_sddmm_rows_schedule(stir_kernel *k, bench_sddmm_map fm);

#endif
