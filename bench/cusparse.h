/* The vendor baseline of the benchmarks: cuSPARSE's SpMM and SDDMM, loaded
 * with dlopen so that nothing in stir links against cuSPARSE.  Device
 * memory comes from stir's runtime (the driver API's primary context, which
 * cuSPARSE shares); everything runs on the default stream. */
#ifndef STIR_BENCH_CUSPARSE_H
#define STIR_BENCH_CUSPARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stir/ctx.h>

typedef struct bench_cusparse bench_cusparse;
typedef struct bench_op bench_op;

/* Load libcusparse and create a handle.  NULL with a diagnostic. */
bench_cusparse *bench_cusparse_open(stir_ctx *ctx);
void bench_cusparse_close(bench_cusparse *cs);

/* The SpMM algorithms tried (CUSPARSE_SPMM_ALG_DEFAULT, CSR_ALG1, ALG2,
 * ALG3) and their names. */
int bench_spmm_n_algs(void);
const char *bench_spmm_alg_name(int alg);

/* C = A B: A is CSR (m x n, nnz entries; i32 indptr/indices, f32 values),
 * B is row-major n x feat, C row-major m x feat; all device pointers.
 * Creates the descriptors and the workspace once.  NULL with a diagnostic
 * (an algorithm that does not support the case is an error too). */
bench_op *bench_spmm_create(bench_cusparse *cs, int64_t m, int64_t n,
	int64_t nnz, uint64_t indptr, uint64_t indices, uint64_t values,
	int64_t feat, uint64_t b, uint64_t c, int alg);

/* S = (X Y^T) on the pattern of S: X row-major m x feat, Y row-major
 * n x feat, S CSR (i32, f32 values written).  cusparseSDDMM computes
 * alpha (X Y^T) * spy(S) + beta S; beta is 0. */
bench_op *bench_sddmm_create(bench_cusparse *cs, int64_t m, int64_t n,
	int64_t nnz, uint64_t indptr, uint64_t indices, uint64_t values,
	int64_t feat, uint64_t x, uint64_t y);

/* C = A B with A block-sparse (m x n, blocks "block" x "block", both
 * dividing): BSR when !ell (ptr: m / block + 1 i32 block-row offsets, idx:
 * "nblocks" i32 block columns, values: the blocks row-major, one after
 * the other; cusparseSpMM with CUSPARSE_SPMM_BSR_ALG1), or Blocked-ELL
 * when ell ("nblocks" block columns per block row, idx: m / block x
 * nblocks i32, -1 for none; values: m x nblocks * block row-major;
 * CUSPARSE_SPMM_BLOCKED_ELL_ALG1).  A and B (n x feat, row-major) in f16
 * when f16, else f32; C (m x feat, row-major) and the sums f32.  NULL
 * with a diagnostic when cuSPARSE refuses the case. */
bench_op *bench_blocked_create(bench_cusparse *cs, bool ell, int64_t m,
	int64_t n, int64_t block, int64_t nblocks, uint64_t ptr, uint64_t idx,
	uint64_t values, bool f16, int64_t feat, uint64_t b, uint64_t c);

/* C = A B dense with cuBLAS (loaded by the first call): A m x k and B
 * k x n f16, C m x n f32, all row-major; cublasGemmEx, f32 sums, tensor
 * cores.  NULL with a diagnostic. */
bench_op *bench_gemm_create(bench_cusparse *cs, int64_t m, int64_t n,
	int64_t k, uint64_t a, uint64_t b, uint64_t c);

/* Run the operation once (asynchronously, default stream).  0 or -1. */
int bench_op_run(bench_op *op);
void bench_op_free(bench_op *op);

#endif
