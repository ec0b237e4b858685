/* Shared parts of the benchmark programs: graphs, timing, checks, output.
 *
 * Measuring follows shared/design/GPU.md: results are checked before
 * anything is timed; every timed run starts with the L2 cache flushed;
 * 10 warm-up runs, then the median of 100; CUDA events on the GPU. */
#ifndef STIR_BENCH_COMMON_H
#define STIR_BENCH_COMMON_H

#include <stdio.h>
#include <stdint.h>
#include <stir/stir.h>
#include "bench/cusparse.h"

#define BENCH_WARMUP 10
#define BENCH_REPS 100

/* A graph to run on: a Matrix Market file, or "synthetic:NAME" for the
 * seeded power-law graphs at the sizes of ogbn-arxiv, ogbn-proteins and
 * reddit.  NULL with a diagnostic. */
stir_csr *bench_load_graph(stir_ctx *ctx, const char *spec);
/* The short name of a graph spec ("cora" for ".../cora.mtx.gz"). */
const char *bench_graph_name(const char *spec, char *buf, size_t size);

/* Milliseconds since an arbitrary start (the host clock). */
double bench_now_ms(void);
/* The median of n values (reorders them). */
double bench_median(double *v, int n);

/* The time of one cuSPARSE operation: warm-ups, then "reps" runs each
 * after an L2 flush, timed with events on the default stream; the median
 * in *ms.  0 or -1. */
int bench_time_cusparse(stir_device *dev, bench_op *op, int reps, double *ms);
/* The same for a stir kernel already uploaded. */
int bench_time_stir(stir_gpu_run *run, int reps, double *ms);
/* Device-to-device copy bandwidth in bytes per second (bytes read plus
 * bytes written), the median of 20 copies of 1 GiB. */
double bench_copy_bandwidth(stir_device *dev);

/* The largest relative difference between two float arrays of n
 * elements: |a - b| / (1 + |b|). */
double bench_max_rel_diff(const float *a, const float *b, int64_t n);

/* A device buffer holding "n" floats or ints copied from the host. */
stir_gpu_buf *bench_upload(stir_device *dev, const void *data, size_t bytes);

/* The CSR matrix with 32-bit indices and f32 values on the host. */
typedef struct bench_csr32 {
	int64_t m, n, nnz;
	int32_t *indptr, *indices;
	float *values;
} bench_csr32;

int bench_csr32_init(stir_ctx *ctx, bench_csr32 *c, const stir_csr *csr);
void bench_csr32_release(bench_csr32 *c);

/* Print the context's diagnostics and exit with status 1. */
void bench_fail(stir_ctx *ctx, const char *what) __attribute__((noreturn));

#endif
