/* The vendor baseline of the benchmarks: cuSPARSE's SpMM and SDDMM, loaded
 * with dlopen so that nothing in stir links against cuSPARSE.  Device
 * memory comes from stir's runtime (the driver API's primary context, which
 * cuSPARSE shares); everything runs on the default stream. */
#ifndef STIR_BENCH_CUSPARSE_H
#define STIR_BENCH_CUSPARSE_H

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

/* Run the operation once (asynchronously, default stream).  0 or -1. */
int bench_op_run(bench_op *op);
void bench_op_free(bench_op *op);

#endif
