/* Shared parts of the benchmark programs; see common.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
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
	return stir_mtx_read_from_file(ctx, spec);
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
	stir_event *e0 = stir_event_alloc(dev), *e1 = stir_event_alloc(dev);
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
	stir_event_free(e0);
	stir_event_free(e1);
	return rc;
}

int bench_time_stir(stir_gpu_run *run, int reps, double *ms)
{
	stir_gpu_timing t;
	if (stir_gpu_run_time(run, BENCH_WARMUP, reps, &t) < 0)
		return -1;
	*ms = t.median_ms;
	return 0;
}

double bench_copy_bandwidth(stir_device *dev)
{
	size_t bytes = (size_t)1 << 30;
	stir_gpu_buf *a = stir_gpu_buf_alloc(dev, bytes);
	stir_gpu_buf *b = stir_gpu_buf_alloc(dev, bytes);
	stir_event *e0 = stir_event_alloc(dev), *e1 = stir_event_alloc(dev);
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
	stir_event_free(e0);
	stir_event_free(e1);
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

int bench_must(stir_ctx *ctx, int rc, const char *what)
{
	if (rc < 0)
		bench_fail(ctx, what);
	return rc;
}

/* argv0, flags, rounds, status: print the usage line (on stdout for
 * --help, status 0, else on stderr) and exit with status. */
static void usage(const char *argv0, const char *const *flags, bool rounds,
	int status)
{
	FILE *f = status ? stderr : stdout;
	fprintf(f, "usage: %s [--features 32,64,...] [--reps N] "
		"[--json FILE] [--program FILE.stir] [--compile-only ARCH] "
		"[--candidates I,J,...]%s", argv0,
		rounds ? " [--rounds R] [--shift-kib K]" : "");
	for (int i = 0; flags && flags[i]; i++)
		fprintf(f, " [%s]", flags[i]);
	fprintf(f, " GRAPH...\n  GRAPH: a Matrix Market file, or "
		"synthetic:arxiv|proteins|reddit\n  (bench/README.md, "
		"\"Options\")\n");
	exit(status);
}

/* flags, arg: the index of flag "arg" among flags, or -1. */
static int flag_index(const char *const *flags, const char *arg)
{
	for (int i = 0; flags && flags[i] && i < 8; i++)
		if (!strcmp(flags[i], arg))
			return i;
	return -1;
}

void bench_parse_options(int argc, char **argv, const char *program,
	const char *const *flags, bool rounds, bench_options *o)
{
	static const int64_t defaults[] = { 32, 64, 128, 256, 512 };
	memset(o, 0, sizeof(*o));
	memcpy(o->feats, defaults, sizeof(defaults));
	o->n_feats = 5;
	o->reps = BENCH_REPS;
	o->rounds = 1;
	o->program = program;
	o->candidates[0] = o->candidates[1] = ~(uint64_t)0;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--help")) {
			usage(argv[0], flags, rounds, 0);
		} else if (!strcmp(argv[i], "--features") && i + 1 < argc) {
			o->n_feats = 0;
			for (char *s = strtok(argv[++i], ","); s && o->n_feats < 8;
			     s = strtok(NULL, ",")) {
				o->feats[o->n_feats] = atoll(s);
				if (o->feats[o->n_feats++] < 1)
					usage(argv[0], flags, rounds, 2);
			}
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			o->reps = atoi(argv[++i]);
		} else if (rounds && !strcmp(argv[i], "--rounds") && i + 1 < argc) {
			o->rounds = atoi(argv[++i]);
		} else if (rounds && !strcmp(argv[i], "--shift-kib") && i + 1 < argc) {
			o->shift_kib = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			o->json = argv[++i];
		} else if (!strcmp(argv[i], "--program") && i + 1 < argc) {
			o->program = argv[++i];
		} else if (!strcmp(argv[i], "--candidates") && i + 1 < argc) {
			o->candidates[0] = o->candidates[1] = 0;
			for (char *s = strtok(argv[++i], ","); s; s = strtok(NULL, ",")) {
				char *end;
				long c = strtol(s, &end, 10);
				if (*end || c < 0 || c > 127)
					usage(argv[0], flags, rounds, 2);
				o->candidates[c / 64] |= (uint64_t)1 << c % 64;
			}
		} else if (!strcmp(argv[i], "--compile-only") && i + 1 < argc) {
			o->arch = argv[++i];
		} else if (flag_index(flags, argv[i]) >= 0) {
			o->flags |= 1u << flag_index(flags, argv[i]);
		} else {
			usage(argv[0], flags, rounds, 2);
		}
	}
	if (i >= argc || o->reps < 1 || o->n_feats < 1 || o->rounds < 1 ||
	    o->rounds > BENCH_MAX_ROUNDS || o->shift_kib < 0 || o->shift_kib > 65536) {
		fprintf(stderr, "%s: no graph given (or bad --reps/--features/"
			"--rounds/--shift-kib)\n",
			argv[0]);
		usage(argv[0], flags, rounds, 2);
	}
	o->graphs = argv + i;
	o->n_graphs = argc - i;
#ifdef BENCH_SRCDIR
	/* run from a build folder: the default program of the source tree */
	static char path[4096];
	if (o->program == program && access(program, R_OK) != 0) {
		snprintf(path, sizeof(path), "%s/%s", BENCH_SRCDIR, program);
		if (access(path, R_OK) == 0)
			o->program = path;
	}
#endif
}

bool bench_candidate_selected(const bench_options *o, int i)
{
	return i >= 0 && i < 128 && (o->candidates[i / 64] >> i % 64 & 1);
}

void bench_random_floats(float *v, int64_t n, uint64_t seed)
{
	uint64_t s = seed;
	for (int64_t i = 0; i < n; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		v[i] = (float)((double)(s >> 11) * 0x1p-53 * 2 - 1);
	}
}

void bench_bind_copy(stir_ctx *ctx, stir_bindings *b, const char *name,
	stir_dtype dtype, int64_t n, const void *data)
{
	stir_array *a = stir_array_alloc(ctx, dtype, 1, &n);
	if (!a)
		bench_fail(ctx, "allocating an array");
	memcpy(stir_array_get_data(a), data, (size_t)n * stir_dtype_get_size(dtype));
	stir_bindings_set_array(b, name, a);
}

int bench_run_stir(stir_gpu_kernel *gk, stir_device *dev, stir_bindings *b,
	const char *out, const float *want, int64_t n_out, int reps, double *ms,
	double *err)
{
	stir_array *o = stir_bindings_get_array(b, out);
	if (!o)
		return -1;
	/* an element the kernel does not write shows as NaN */
	stir_array_fill(o, NAN);
	stir_gpu_run *run = stir_gpu_run_alloc(gk, dev);
	int rc = run && stir_gpu_run_upload(run, b) == 0 &&
		stir_gpu_run_launch(run, 0) == 0 &&
		stir_gpu_run_download(run, b) == 0 ? 0 : -1;
	if (rc == 0) {
		*err = bench_max_rel_diff(stir_array_get_const_data(o), want, n_out);
		rc = bench_time_stir(run, reps, ms);
	}
	if (rc == 0 && getenv("BENCH_VERBOSE")) {
		/* the launches of the last timed run */
		const stir_cuda_plan *p = stir_gpu_kernel_get_plan(gk);
		for (int i = 0; i < stir_cuda_plan_n_launches(p); i++)
			fprintf(stderr, "  %s: %.4f ms\n",
				stir_cuda_plan_get_launch_name(p, i),
				stir_gpu_run_get_launch_ms(run, i));
	}
	stir_gpu_run_free(run);
	return rc;
}

void bench_start(stir_ctx *ctx, const bench_options *o,
	bench_compile_fn *compile, bench_gpu *g)
{
	if (o->arch) {
		for (int i = 0; i < o->n_graphs; i++)
			compile(ctx, o, o->graphs[i]);
		printf("compiled every kernel for %s into the cache\n", o->arch);
		stir_ctx_free(ctx);
		exit(0);
	}
	memset(g, 0, sizeof(*g));
	if (!(g->dev = stir_device_alloc(ctx, 0)))
		bench_fail(ctx, "opening the GPU");
	if (!(g->cs = bench_cusparse_open(ctx)))
		bench_fail(ctx, "loading cuSPARSE");
	g->co.device = g->dev;
	g->copy_bw = bench_copy_bandwidth(g->dev);
	printf("# %s, copy bandwidth %.2f TB/s (read + write)\n",
		stir_device_get_name(g->dev), g->copy_bw * 1e-12);
}

void bench_finish(bench_gpu *g)
{
	bench_cusparse_close(g->cs);
	stir_device_free(g->dev);
	memset(g, 0, sizeof(*g));
}

FILE *bench_json_begin(stir_ctx *ctx, const char *path, const bench_gpu *g)
{
	if (!path)
		return NULL;
	FILE *f = fopen(path, "w");
	if (!f) {
		stir_ctx_report(ctx, STIR_ERROR, (stir_loc){ 0, 0, 0 },
			"cannot write %s", path);
		bench_fail(ctx, "opening the JSON file");
	}
	fprintf(f, "{\n  \"device\": \"%s\", \"copy_bandwidth\": %.0f,\n"
		"  \"results\": [\n", stir_device_get_name(g->dev), g->copy_bw);
	return f;
}

void bench_json_end(FILE *f)
{
	if (!f)
		return;
	fprintf(f, "  ]\n}\n");
	fclose(f);
}

double bench_geomean(const double *speedup, int n, double *worst,
	int *used)
{
	double log_sum = 0;
	*worst = INFINITY;
	*used = 0;
	for (int i = 0; i < n; i++) {
		if (!isfinite(speedup[i]) || speedup[i] <= 0)
			continue;
		log_sum += log(speedup[i]);
		*worst = speedup[i] < *worst ? speedup[i] : *worst;
		++*used;
	}
	return *used ? exp(log_sum / *used) : NAN;
}

void bench_json_num(FILE *f, const char *key, double x)
{
	if (isfinite(x))
		fprintf(f, "\"%s\": %.6g, ", key, x);
	else
		fprintf(f, "\"%s\": null, ", key);
}

void bench_json_search(FILE *f, const double *ms, int n)
{
	fprintf(f, "\"search_ms\": [");
	for (int i = 0; i < n; i++) {
		if (ms[i] < 0)
			fprintf(f, "%snull", i ? ", " : "");
		else
			fprintf(f, "%s%.6g", i ? ", " : "", ms[i]);
	}
	fprintf(f, "]");
}

void bench_json_rounds(FILE *f, const double *ms, int n, int rounds)
{
	if (rounds < 2)
		return;
	fprintf(f, ", \"search_rounds_ms\": [");
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s[", i ? ", " : "");
		for (int q = 0; q < rounds; q++) {
			double x = ms[i * rounds + q];
			if (x < 0)
				fprintf(f, "%snull", q ? ", " : "");
			else
				fprintf(f, "%s%.6g", q ? ", " : "", x);
		}
		fprintf(f, "]");
	}
	fprintf(f, "]");
}

stir_gpu_buf *bench_round_spacer(stir_device *dev, const bench_options *o,
	int q)
{
	if (q == 0 || o->shift_kib == 0)
		return NULL;
	return stir_gpu_buf_alloc(dev, (size_t)q * (size_t)o->shift_kib * 1024);
}

/* The programs read so far, each once (bench_read_kernel). */
static struct {
	char *path;           /* owned */
	stir_module *m;       /* owned: the program as read */
} programs[16];
static int n_programs;

/* ctx, path: the program at path, read once and kept; NULL with
 * diagnostics. */
static stir_module *read_program(stir_ctx *ctx, const char *path)
{
	for (int i = 0; i < n_programs; i++)
		if (!strcmp(programs[i].path, path))
			return programs[i].m;
	stir_module *m = stir_module_read_from_file(ctx, path);
	char *copy = m ? strdup(path) : NULL;
	if (!copy || n_programs == (int)(sizeof(programs) / sizeof(programs[0])))
		return m;  /* not kept: the caller's own module */
	programs[n_programs].path = copy;
	programs[n_programs++].m = m;
	return m;
}

/* (none): see common.h. */
void bench_forget_programs(void)
{
	for (int i = 0; i < n_programs; i++) {
		free(programs[i].path);
		stir_module_free(programs[i].m);
	}
	n_programs = 0;
}

/* ctx, path, name, mod: see common.h. */
stir_kernel *bench_read_kernel(stir_ctx *ctx, const char *path,
	const char *name, stir_module **mod)
{
	*mod = NULL;
	stir_module *m = read_program(ctx, path);
	bool kept = false;
	for (int i = 0; i < n_programs && !kept; i++)
		kept = programs[i].m == m;
	stir_kernel *k = m ? stir_module_find_kernel(m, name) : NULL;
	if (m && !k)
		stir_ctx_report(ctx, STIR_ERROR, (stir_loc){ 0, 0, 0 },
			"%s has no kernel '%s'", path, name);
	if (!kept) {
		*mod = m;
		return k;
	}
	return k ? stir_kernel_copy(k, mod) : NULL;
}
