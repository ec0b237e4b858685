/* Shared parts of the benchmark programs; see common.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench/common.h"
#include "bench/graphgen.h"

/* The synthetic graphs: sizes of the graphs named (SparseTIR Table 1 and
 * the OGB statistics), maximum degrees close to theirs. */
static const struct {
	const char *name;
	int64_t nodes, edges, max_degree;
} synthetic[] = {
	{ "arxiv", 169343, 1166243, 13161 },
	{ "proteins", 132534, 39561252, 7750 },
	{ "reddit", 232965, 114615892, 21657 },
};

stir_csr *bench_load_graph(stir_ctx *ctx, const char *spec)
{
	if (!strncmp(spec, "synthetic:", 10)) {
		for (size_t i = 0; i < sizeof(synthetic) / sizeof(synthetic[0]); i++)
			if (!strcmp(spec + 10, synthetic[i].name))
				return stir_bench_powerlaw(ctx, synthetic[i].nodes,
					synthetic[i].edges, 2.0, synthetic[i].max_degree,
					1000 + i);
		stir_ctx_report(ctx, STIR_ERROR, (stir_loc){ 0, 0, 0 },
			"unknown synthetic graph '%s' (arxiv, proteins, reddit)",
			spec + 10);
		return NULL;
	}
	return stir_mtx_read(ctx, spec);
}

const char *bench_graph_name(const char *spec, char *buf, size_t size)
{
	const char *s = strrchr(spec, '/');
	s = s ? s + 1 : spec;
	if (!strncmp(s, "synthetic:", 10))
		s += 10;
	snprintf(buf, size, "%s", s);
	char *dot = strstr(buf, ".mtx");
	if (dot)
		*dot = '\0';
	return buf;
}

double bench_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int bench_time_cusparse(stir_device *dev, bench_op *op, int reps, double *ms)
{
	stir_event *e0 = stir_event_create(dev), *e1 = stir_event_create(dev);
	double *t = malloc((size_t)reps * sizeof(double));
	int rc = e0 && e1 && t ? 0 : -1;
	for (int i = 0; rc == 0 && i < BENCH_WARMUP; i++)
		rc = bench_op_run(op);
	for (int i = 0; rc == 0 && i < reps; i++) {
		float f;
		if (stir_device_flush_l2(dev, NULL) < 0 || stir_event_record(e0, NULL) < 0 ||
		    bench_op_run(op) < 0 || stir_event_record(e1, NULL) < 0 ||
		    stir_event_elapsed_ms(e0, e1, &f) < 0)
			rc = -1;
		else
			t[i] = f;
	}
	if (rc == 0)
		*ms = bench_median(t, reps);
	free(t);
	stir_event_destroy(e0);
	stir_event_destroy(e1);
	return rc;
}

int bench_time_stir(stir_gpu_run *run, int reps, double *ms)
{
	double *t = malloc((size_t)reps * sizeof(double));
	int rc = t ? 0 : -1;
	for (int i = 0; rc == 0 && i < BENCH_WARMUP; i++)
		rc = stir_gpu_run_launch(run, 0);
	for (int i = 0; rc == 0 && i < reps; i++) {
		rc = stir_gpu_run_launch(run, STIR_GPU_RUN_FLUSH_L2);
		t[i] = stir_gpu_run_get_ms(run);
	}
	if (rc == 0)
		*ms = bench_median(t, reps);
	free(t);
	return rc;
}

double bench_copy_bandwidth(stir_device *dev)
{
	size_t bytes = (size_t)1 << 30;
	stir_gpu_buf *a = stir_gpu_buf_alloc(dev, bytes);
	stir_gpu_buf *b = stir_gpu_buf_alloc(dev, bytes);
	stir_event *e0 = stir_event_create(dev), *e1 = stir_event_create(dev);
	double t[20], bw = 0;
	int n = 0;
	if (a && b && e0 && e1 && stir_gpu_buf_memset(a, 0, 1, bytes) == 0) {
		stir_gpu_buf_copy(b, 0, a, 0, bytes); /* warm up */
		for (; n < 20; n++) {
			float f;
			if (stir_event_record(e0, NULL) < 0 ||
			    stir_gpu_buf_copy(b, 0, a, 0, bytes) < 0 ||
			    stir_event_record(e1, NULL) < 0 ||
			    stir_event_elapsed_ms(e0, e1, &f) < 0)
				break;
			t[n] = f;
		}
		if (n == 20)
			bw = 2.0 * (double)bytes / (bench_median(t, n) * 1e-3);
	}
	stir_event_destroy(e0);
	stir_event_destroy(e1);
	stir_gpu_buf_free(a);
	stir_gpu_buf_free(b);
	return bw;
}

double bench_max_rel_diff(const float *a, const float *b, int64_t n)
{
	double worst = 0;
	for (int64_t i = 0; i < n; i++) {
		double d = fabs((double)a[i] - b[i]) / (1 + fabs((double)b[i]));
		if (isnan(d))
			return INFINITY;
		worst = d > worst ? d : worst;
	}
	return worst;
}

stir_gpu_buf *bench_upload(stir_device *dev, const void *data, size_t bytes)
{
	stir_gpu_buf *b = stir_gpu_buf_alloc(dev, bytes ? bytes : 4);
	if (b && bytes && stir_gpu_buf_copy_from_host(b, 0, data, bytes) < 0) {
		stir_gpu_buf_free(b);
		return NULL;
	}
	return b;
}

int bench_csr32_init(stir_ctx *ctx, bench_csr32 *c, const stir_csr *csr)
{
	memset(c, 0, sizeof(*c));
	if (csr->nnz > INT32_MAX || csr->nrows >= INT32_MAX || csr->ncols > INT32_MAX) {
		stir_ctx_report(ctx, STIR_ERROR, (stir_loc){ 0, 0, 0 },
			"the graph needs 64-bit indices");
		return -1;
	}
	c->m = csr->nrows;
	c->n = csr->ncols;
	c->nnz = csr->nnz;
	c->indptr = malloc((size_t)(c->m + 1) * sizeof(int32_t));
	c->indices = malloc((size_t)(c->nnz ? c->nnz : 1) * sizeof(int32_t));
	c->values = malloc((size_t)(c->nnz ? c->nnz : 1) * sizeof(float));
	if (!c->indptr || !c->indices || !c->values) {
		bench_csr32_release(c);
		return -1;
	}
	for (int64_t i = 0; i <= c->m; i++)
		c->indptr[i] = (int32_t)csr->indptr[i];
	for (int64_t i = 0; i < c->nnz; i++) {
		c->indices[i] = (int32_t)csr->indices[i];
		c->values[i] = (float)csr->values[i];
	}
	return 0;
}

void bench_csr32_release(bench_csr32 *c)
{
	free(c->indptr);
	free(c->indices);
	free(c->values);
	memset(c, 0, sizeof(*c));
}

void bench_fail(stir_ctx *ctx, const char *what)
{
	fprintf(stderr, "bench: %s failed\n", what);
	stir_ctx_print_diagnostics(ctx, stderr);
	exit(1);
}
