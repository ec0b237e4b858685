/* What the fake CUDA driver (tests/fake_cuda.c) lets a test observe.  The
 * test loads it through STIR_LIBCUDA and finds fake_cuda_stats_get()
 * with dlsym. */
#ifndef STIR_TESTS_FAKE_CUDA_H
#define STIR_TESTS_FAKE_CUDA_H

typedef struct fake_cuda_stats {
	int live_allocs;       /* cuMemAlloc minus cuMemFree */
	int primary_refs;      /* primary context retains minus releases */
	int ctx_depth;         /* pushes minus pops: 0 between API calls */
	int max_ctx_depth;     /* the deepest the stack ever was */
	int live_streams;      /* streams created and not destroyed */
	int live_events;       /* events created and not destroyed */
	int live_modules;      /* modules loaded and not unloaded */
	int launches;          /* successful cuLaunchKernel calls */
	int getproc_calls;     /* cuGetProcAddress_v2 calls */
	unsigned last_grid[3]; /* the shape of the last launch */
	unsigned last_block[3];
	unsigned last_shared;  /* its dynamic shared memory */
	int shared_optin;      /* the last MAX_DYNAMIC_SHARED_SIZE_BYTES set */
	int memset32_async;    /* cuMemsetD32Async calls (the L2 flush) */
	int htod_copies;       /* cuMemcpyHtoD calls */
	void *last_stream;     /* the stream of the last launch */
	int primary_retains;   /* cuDevicePrimaryCtxRetain calls (contexts
	                          a process made or reused) */
	int ctx_pushes;        /* cuCtxPushCurrent calls that pushed */
	int overlap_launches;  /* cuLaunchKernelEx calls allowing programmatic
	                          stream serialization (overlap) */
} fake_cuda_stats;
/* Besides the calls stir uses, the fake has cuCtxSetCurrent(ctx), which a
 * test calls (through dlsym) to make the primary context current as the
 * CUDA runtime does for PyTorch; cuCtxGetCurrent sees it under the pushed
 * contexts. */

/* The kernels the fake "runs" on the host:
 *   vadd(const float *a, const float *b, float *c, int n): c = a + b;
 *   mix(double *out, long long i64, float f32, double f64, unsigned u32,
 *       unsigned long long u64, int i32): out[0..5] = the scalars in order;
 *   noparams(): counts its launches in "launches";
 *   histogram and half_to_float of tests/gpu/test_runtime_gpu.c, so that
 *   the GPU test program can run against the fake in make check;
 *   twostep_k0(int n, const float *X, float *T): T = 2 X (T must start
 *   zeroed) and twostep_k1(int n, const float *T, float *Y): Y = T + 1,
 *   the launches of the kernel "twostep" of tests/test_cuda.c.
 * Any module image starting with "\x7fELF" or holding ".version" loads. */

#endif
