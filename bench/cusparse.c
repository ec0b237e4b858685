/* cuSPARSE through dlopen; see cusparse.h.  The function types come from
 * the toolkit's cusparse.h (declarations only): the library is resolved at
 * run time. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
/* the deprecated parts of the header are not used */
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparse.h>
#include "bench/cusparse.h"
#include "ir/diag.h"

/* The entry points used, as an X-macro: name. */
#define CUSPARSE_FUNCS(X) \
	X(cusparseCreate) X(cusparseDestroy) X(cusparseGetErrorString) \
	X(cusparseCreateCsr) X(cusparseDestroySpMat) \
	X(cusparseCreateDnMat) X(cusparseDestroyDnMat) \
	X(cusparseSpMM_bufferSize) X(cusparseSpMM_preprocess) X(cusparseSpMM) \
	X(cusparseSDDMM_bufferSize) X(cusparseSDDMM_preprocess) X(cusparseSDDMM) \
	X(cusparseCreateBsr) X(cusparseCreateBlockedEll)

struct bench_cusparse {
	stir_ctx *ctx;
	void *lib;                 /* dlopen handle */
	cusparseHandle_t handle;
#define FIELD(f) __typeof__(&f) f;
	CUSPARSE_FUNCS(FIELD)
#undef FIELD
	/* the runtime's allocator for workspaces: cudaMalloc through the
	 * driver would need a device; cuSPARSE's own libcudart is used */
	void *cudart;
	int (*cudaMalloc)(void **, size_t);
	int (*cudaFree)(void *);
	/* cuBLAS, opened by the first bench_gemm_create */
	void *cublas;
	void *blas;                /* cublasHandle_t */
	int (*cublasGemmEx)(void *, int, int, int, int, int, const void *,
		const void *, int, int, const void *, int, int, const void *,
		void *, int, int, int, int);
	int (*cublasDestroy)(void *);
};

struct bench_op {
	bench_cusparse *cs;
	bool sddmm;
	bool gemm;                 /* cuBLAS: C = A B, dense */
	int64_t gm, gn, gk;        /* gemm: rows of C, its columns, inner */
	uint64_t ga, gb, gc;       /* gemm: A (gm x gk), B (gk x gn), C */
	cudaDataType ctype;        /* SpMM: the type of C and of the sums */
	cusparseSpMatDescr_t sp;
	cusparseDnMatDescr_t d1, d2;
	void *work;                /* workspace (cudaMalloc) */
	int alg;
};

static const struct {
	cusparseSpMMAlg_t alg;
	const char *name;
} spmm_algs[] = {
	{ CUSPARSE_SPMM_ALG_DEFAULT, "default" },
	{ CUSPARSE_SPMM_CSR_ALG1, "csr_alg1" },
	{ CUSPARSE_SPMM_CSR_ALG2, "csr_alg2" },
	{ CUSPARSE_SPMM_CSR_ALG3, "csr_alg3" },
};

int bench_spmm_n_algs(void)
{
	return (int)(sizeof(spmm_algs) / sizeof(spmm_algs[0]));
}

const char *bench_spmm_alg_name(int alg)
{
	return alg >= 0 && alg < bench_spmm_n_algs() ? spmm_algs[alg].name : "?";
}

/* cs, st, what: 0 when st is success, else -1 with a diagnostic. */
static int check(bench_cusparse *cs, cusparseStatus_t st, const char *what)
{
	if (st == CUSPARSE_STATUS_SUCCESS)
		return 0;
	stir_error(cs->ctx, stir_loc_none(), "%s failed: %s", what,
		cs->cusparseGetErrorString ? cs->cusparseGetErrorString(st) : "?");
	return -1;
}

/* names: the first of the libraries that opens. */
static void *open_first(const char *const *names)
{
	for (; *names; names++) {
		void *h = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
		if (h)
			return h;
	}
	return NULL;
}

bench_cusparse *bench_cusparse_open(stir_ctx *ctx)
{
	static const char *const libs[] = { "libcusparse.so.12",
		"/usr/local/cuda/lib64/libcusparse.so.12", "libcusparse.so", NULL };
	static const char *const rts[] = { "libcudart.so.13",
		"/usr/local/cuda/lib64/libcudart.so.13", "libcudart.so.12",
		"libcudart.so", NULL };
	bench_cusparse *cs = calloc(1, sizeof(*cs));
	if (!cs)
		return NULL;
	cs->ctx = ctx;
	cs->lib = open_first(libs);
	cs->cudart = open_first(rts);
	if (!cs->lib || !cs->cudart) {
		stir_error(ctx, stir_loc_none(), "cannot load %s: %s",
			cs->lib ? "libcudart" : "libcusparse", dlerror());
		bench_cusparse_close(cs);
		return NULL;
	}
#define LOAD(f) \
	if (!(*(void **)&cs->f = dlsym(cs->lib, #f))) { \
		stir_error(ctx, stir_loc_none(), "libcusparse has no %s", #f); \
		bench_cusparse_close(cs); \
		return NULL; \
	}
	CUSPARSE_FUNCS(LOAD)
#undef LOAD
	*(void **)&cs->cudaMalloc = dlsym(cs->cudart, "cudaMalloc");
	*(void **)&cs->cudaFree = dlsym(cs->cudart, "cudaFree");
	if (!cs->cudaMalloc || !cs->cudaFree ||
	    check(cs, cs->cusparseCreate(&cs->handle), "cusparseCreate") < 0) {
		if (!cs->cudaMalloc || !cs->cudaFree)
			stir_error(ctx, stir_loc_none(), "libcudart has no cudaMalloc");
		bench_cusparse_close(cs);
		return NULL;
	}
	return cs;
}

void bench_cusparse_close(bench_cusparse *cs)
{
	if (!cs)
		return;
	if (cs->handle)
		cs->cusparseDestroy(cs->handle);
	if (cs->blas)
		cs->cublasDestroy(cs->blas);
	if (cs->cublas)
		dlclose(cs->cublas);
	if (cs->lib)
		dlclose(cs->lib);
	if (cs->cudart)
		dlclose(cs->cudart);
	free(cs);
}

/* cs, op, size: give op a workspace of "size" bytes. */
static int workspace(bench_cusparse *cs, bench_op *op, size_t size)
{
	if (size == 0)
		return 0;
	if (cs->cudaMalloc(&op->work, size) != 0) {
		stir_error(cs->ctx, stir_loc_none(), "cudaMalloc of a %zu-byte "
			"cuSPARSE workspace failed", size);
		return -1;
	}
	return 0;
}

/* cs, m, n, nnz, indptr, indices, values: a CSR descriptor (i32, f32). */
static int make_csr(bench_cusparse *cs, bench_op *op, int64_t m, int64_t n,
	int64_t nnz, uint64_t indptr, uint64_t indices, uint64_t values)
{
	return check(cs, cs->cusparseCreateCsr(&op->sp, m, n, nnz,
		(void *)(uintptr_t)indptr, (void *)(uintptr_t)indices,
		(void *)(uintptr_t)values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
		CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F), "cusparseCreateCsr");
}

/* rows, cols, ptr, order: a dense f32 descriptor, leading dimension cols
 * for row-major, rows for column-major. */
static int make_dense(bench_cusparse *cs, cusparseDnMatDescr_t *d, int64_t rows,
	int64_t cols, uint64_t ptr, cusparseOrder_t order)
{
	int64_t ld = order == CUSPARSE_ORDER_ROW ? cols : rows;
	return check(cs, cs->cusparseCreateDnMat(d, rows, cols, ld,
		(void *)(uintptr_t)ptr, CUDA_R_32F, order), "cusparseCreateDnMat");
}

bench_op *bench_spmm_create(bench_cusparse *cs, int64_t m, int64_t n,
	int64_t nnz, uint64_t indptr, uint64_t indices, uint64_t values,
	int64_t feat, uint64_t b, uint64_t c, int alg)
{
	bench_op *op = calloc(1, sizeof(*op));
	if (!op || alg < 0 || alg >= bench_spmm_n_algs()) {
		free(op);
		return NULL;
	}
	op->cs = cs;
	op->alg = alg;
	float alpha = 1, beta = 0;
	size_t size = 0;
	cusparseSpMMAlg_t a = spmm_algs[alg].alg;
	if (make_csr(cs, op, m, n, nnz, indptr, indices, values) < 0 ||
	    make_dense(cs, &op->d1, n, feat, b, CUSPARSE_ORDER_ROW) < 0 ||
	    make_dense(cs, &op->d2, m, feat, c, CUSPARSE_ORDER_ROW) < 0 ||
	    check(cs, cs->cusparseSpMM_bufferSize(cs->handle,
		CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
		&alpha, op->sp, op->d1, &beta, op->d2, CUDA_R_32F, a, &size),
		"cusparseSpMM_bufferSize") < 0 ||
	    workspace(cs, op, size) < 0 ||
	    check(cs, cs->cusparseSpMM_preprocess(cs->handle,
		CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
		&alpha, op->sp, op->d1, &beta, op->d2, CUDA_R_32F, a, op->work),
		"cusparseSpMM_preprocess") < 0) {
		bench_op_free(op);
		return NULL;
	}
	return op;
}

bench_op *bench_sddmm_create(bench_cusparse *cs, int64_t m, int64_t n,
	int64_t nnz, uint64_t indptr, uint64_t indices, uint64_t values,
	int64_t feat, uint64_t x, uint64_t y)
{
	bench_op *op = calloc(1, sizeof(*op));
	if (!op)
		return NULL;
	op->cs = cs;
	op->sddmm = true;
	float alpha = 1, beta = 0;
	size_t size = 0;
	/* X is m x feat row-major; Y^T is feat x n, which is Y (n x feat
	 * row-major) read as column-major */
	if (make_csr(cs, op, m, n, nnz, indptr, indices, values) < 0 ||
	    make_dense(cs, &op->d1, m, feat, x, CUSPARSE_ORDER_ROW) < 0 ||
	    make_dense(cs, &op->d2, feat, n, y, CUSPARSE_ORDER_COL) < 0 ||
	    check(cs, cs->cusparseSDDMM_bufferSize(cs->handle,
		CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
		&alpha, op->d1, op->d2, &beta, op->sp, CUDA_R_32F,
		CUSPARSE_SDDMM_ALG_DEFAULT, &size), "cusparseSDDMM_bufferSize") < 0 ||
	    workspace(cs, op, size) < 0 ||
	    check(cs, cs->cusparseSDDMM_preprocess(cs->handle,
		CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
		&alpha, op->d1, op->d2, &beta, op->sp, CUDA_R_32F,
		CUSPARSE_SDDMM_ALG_DEFAULT, op->work), "cusparseSDDMM_preprocess") < 0) {
		bench_op_free(op);
		return NULL;
	}
	return op;
}

bench_op *bench_blocked_create(bench_cusparse *cs, bool ell, int64_t m,
	int64_t n, int64_t block, int64_t nblocks, uint64_t ptr, uint64_t idx,
	uint64_t values, bool f16, int64_t feat, uint64_t b, uint64_t c)
{
	bench_op *op = calloc(1, sizeof(*op));
	if (!op)
		return NULL;
	op->cs = cs;
	op->alg = ell ? -2 : -1;
	float alpha = 1, beta = 0;
	size_t size = 0;
	cudaDataType vt = f16 ? CUDA_R_16F : CUDA_R_32F;
	cusparseSpMMAlg_t a = ell ? CUSPARSE_SPMM_BLOCKED_ELL_ALG1 :
		CUSPARSE_SPMM_BSR_ALG1;
	cusparseStatus_t st = ell ? cs->cusparseCreateBlockedEll(&op->sp, m, n,
		block, nblocks * block, (void *)(uintptr_t)idx,
		(void *)(uintptr_t)values, CUSPARSE_INDEX_32I,
		CUSPARSE_INDEX_BASE_ZERO, vt) : cs->cusparseCreateBsr(&op->sp,
		m / block, n / block, nblocks, block, block,
		(void *)(uintptr_t)ptr, (void *)(uintptr_t)idx,
		(void *)(uintptr_t)values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
		CUSPARSE_INDEX_BASE_ZERO, vt, CUSPARSE_ORDER_ROW);
	if (check(cs, st, ell ? "cusparseCreateBlockedEll" :
		"cusparseCreateBsr") < 0 ||
	    check(cs, cs->cusparseCreateDnMat(&op->d1, n, feat, feat,
		(void *)(uintptr_t)b, vt, CUSPARSE_ORDER_ROW),
		"cusparseCreateDnMat") < 0 ||
	    make_dense(cs, &op->d2, m, feat, c, CUSPARSE_ORDER_ROW) < 0 ||
	    check(cs, cs->cusparseSpMM_bufferSize(cs->handle,
		CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
		&alpha, op->sp, op->d1, &beta, op->d2, CUDA_R_32F, a, &size),
		"cusparseSpMM_bufferSize") < 0 ||
	    workspace(cs, op, size) < 0) {
		bench_op_free(op);
		return NULL;
	}
	return op;
}

bench_op *bench_gemm_create(bench_cusparse *cs, int64_t m, int64_t n,
	int64_t k, uint64_t a, uint64_t b, uint64_t c)
{
	static const char *const libs[] = { "libcublas.so.13",
		"/usr/local/cuda/lib64/libcublas.so.13", "libcublas.so.12",
		"libcublas.so", NULL };
	if (!cs->cublas) {
		int (*create)(void **) = NULL;
		cs->cublas = open_first(libs);
		if (cs->cublas) {
			*(void **)&create = dlsym(cs->cublas, "cublasCreate_v2");
			*(void **)&cs->cublasGemmEx = dlsym(cs->cublas,
				"cublasGemmEx");
			*(void **)&cs->cublasDestroy = dlsym(cs->cublas,
				"cublasDestroy_v2");
		}
		if (!create || !cs->cublasGemmEx || !cs->cublasDestroy ||
		    create(&cs->blas) != 0) {
			stir_error(cs->ctx, stir_loc_none(), "cannot load "
				"cuBLAS (libcublas.so.13 or .12) or create its "
				"handle");
			if (cs->cublas)
				dlclose(cs->cublas);
			cs->cublas = NULL;
			cs->blas = NULL;
			return NULL;
		}
	}
	bench_op *op = calloc(1, sizeof(*op));
	if (!op)
		return NULL;
	op->cs = cs;
	op->gemm = true;
	op->gm = m;
	op->gn = n;
	op->gk = k;
	op->ga = a;
	op->gb = b;
	op->gc = c;
	return op;
}

int bench_op_run(bench_op *op)
{
	bench_cusparse *cs = op->cs;
	float alpha = 1, beta = 0;
	if (op->sddmm)
		return check(cs, cs->cusparseSDDMM(cs->handle,
			CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
			&alpha, op->d1, op->d2, &beta, op->sp, CUDA_R_32F,
			CUSPARSE_SDDMM_ALG_DEFAULT, op->work), "cusparseSDDMM");
	if (op->gemm) {
		/* row-major C = A B is column-major C^T = B^T A^T; f16 in,
		 * f32 sums and C (CUBLAS_COMPUTE_32F = 68, GEMM_DEFAULT =
		 * -1, which uses the tensor cores) */
		int st = cs->cublasGemmEx(cs->blas, 0, 0, (int)op->gn,
			(int)op->gm, (int)op->gk, &alpha,
			(void *)(uintptr_t)op->gb, CUDA_R_16F, (int)op->gn,
			(void *)(uintptr_t)op->ga, CUDA_R_16F, (int)op->gk, &beta,
			(void *)(uintptr_t)op->gc, CUDA_R_32F, (int)op->gn, 68, -1);
		if (st != 0) {
			stir_error(cs->ctx, stir_loc_none(), "cublasGemmEx "
				"failed with status %d", st);
			return -1;
		}
		return 0;
	}
	if (op->alg < 0)
		return check(cs, cs->cusparseSpMM(cs->handle,
			CUSPARSE_OPERATION_NON_TRANSPOSE,
			CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, op->sp, op->d1,
			&beta, op->d2, CUDA_R_32F, op->alg == -1 ?
			CUSPARSE_SPMM_BSR_ALG1 : CUSPARSE_SPMM_BLOCKED_ELL_ALG1,
			op->work), "cusparseSpMM");
	return check(cs, cs->cusparseSpMM(cs->handle,
		CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
		&alpha, op->sp, op->d1, &beta, op->d2, CUDA_R_32F,
		spmm_algs[op->alg].alg, op->work), "cusparseSpMM");
}

void bench_op_free(bench_op *op)
{
	if (!op)
		return;
	bench_cusparse *cs = op->cs;
	if (op->sp)
		cs->cusparseDestroySpMat(op->sp);
	if (op->d1)
		cs->cusparseDestroyDnMat(op->d1);
	if (op->d2)
		cs->cusparseDestroyDnMat(op->d2);
	if (op->work)
		cs->cudaFree(op->work);
	free(op);
}
