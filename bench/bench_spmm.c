/* SpMM benchmark: C = A B for a sparse graph A and dense features B, stir's
 * hybrid ELL kernel (and its plain CSR kernel) against cuSPARSE's
 * cusparseSpMM with its best algorithm, in one process, on one GPU.
 *
 * usage: bench_spmm [--features 32,64,...] [--reps N] [--json FILE]
 *                   [--program examples/csrmm.stir] GRAPH...
 * GRAPH: a Matrix Market file, or synthetic:arxiv|proteins|reddit.
 *
 * For each graph and feature size: cuSPARSE with each algorithm (the
 * fastest is the baseline, its result the reference every stir result is
 * checked against); stir's CSR kernel; stir's hybrid kernel for every
 * candidate of a small search over column partitions and bucket sets (the
 * fastest is reported, the search recorded).  Every timing is the median
 * of BENCH_REPS runs after BENCH_WARMUP, each run starting with the L2
 * cache flushed.  The host time to build the hybrid format is reported
 * separately; it is not part of any kernel time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench/common.h"

/* A candidate configuration of the hybrid format. */
typedef struct hyb_config {
	int c;                  /* column partitions */
	int nb;                 /* buckets */
	int64_t buckets[8];     /* bucket widths, ascending */
} hyb_config;

static const hyb_config configs[] = {
	{ 1, 6, { 1, 2, 4, 8, 16, 32 } },
	{ 1, 8, { 1, 2, 4, 8, 16, 32, 64, 128 } },
	{ 1, 6, { 2, 4, 8, 16, 32, 64 } },
	{ 1, 4, { 4, 8, 16, 32 } },
	{ 1, 4, { 1, 4, 16, 64 } },
	{ 2, 6, { 1, 2, 4, 8, 16, 32 } },
};
#define N_CONFIGS (int)(sizeof(configs) / sizeof(configs[0]))

/* How the features of a row map onto a warp: "lanes" threads along
 * threadIdx.x, each "vec" consecutive features (vector loads), and as many
 * rows per thread block (threadIdx.y) as make 256 threads. */
typedef struct feat_map {
	int64_t feat;           /* the features, a literal in the kernel */
	int64_t lanes, vec, rows;
} feat_map;

/* feat: the mapping for "feat" features: 4-wide vectors when they divide
 * the features, as many lanes as cover them up to a warp. */
static feat_map map_features(int64_t feat)
{
	feat_map f = { feat, 32, feat % 4 == 0 ? 4 : 1, 8 };
	while (f.lanes > 1 && f.lanes * f.vec > feat)
		f.lanes /= 2;
	f.rows = 256 / f.lanes;
	return f;
}

/* One result of a run, for the table and the JSON. */
typedef struct result {
	char graph[64];
	int64_t m, nnz, feat;
	double cusparse_ms;
	const char *cusparse_alg;
	double csr_ms, hyb_ms;
	double csr_err, hyb_err;
	hyb_config hyb;         /* the best configuration */
	double build_ms;        /* host time to build the best hybrid format */
	double padding;         /* padded slots / non-zeros of the best */
	double search_ms[N_CONFIGS]; /* each candidate, -1 when it failed */
	double bytes;           /* bytes the operation must move */
} result;

/* ctx, what, rc: rc, or exit with the diagnostics when it is -1. */
static int must(stir_ctx *ctx, int rc, const char *what)
{
	if (rc < 0)
		bench_fail(ctx, what);
	return rc;
}

/* k, block, fm, atomic: the hybrid schedule of one bucket part at stage
 * II (block BLOCK over loops o, r, c, k): the part's rows over blockIdx.x
 * and threadIdx.y, the features over threadIdx.x in vectors of fm.vec,
 * the row's columns (c) serially and unrolled.  Only a part whose rows
 * share rows of C with other parts or with each other (split rows, or
 * several column ranges) adds into C atomically.  stage3_part finishes
 * it after lowering. */
static int schedule_part(stir_kernel *k, const char *block, feat_map fm,
	bool atomic)
{
	const char *kc[] = { "k", "c" }, *ck[] = { "c", "k_2" };
	const int64_t fk[] = { 0, fm.lanes, fm.vec }, fo[] = { 0, fm.rows };
	return stir_reorder(k, block, 2, kc) < 0 ||
		stir_split(k, block, "k", 3, fk) < 0 ||
		stir_reorder(k, block, 2, ck) < 0 ||
		stir_split(k, block, "o", 2, fo) < 0 ||
		(atomic && stir_set_atomic(k, block) < 0) ||
		stir_bind(k, block, "o_0", STIR_BLOCK_X) < 0 ||
		stir_bind(k, block, "o_1", STIR_THREAD_Y) < 0 ||
		stir_bind(k, block, "k_1", STIR_THREAD_X) < 0 ||
		stir_unroll(k, block, "c") < 0 ? -1 : 0;
}

/* k, block, i, fm, atomic: at stage III, the row's fm.vec sums of part i
 * in registers (a local cache of C_data over the loop of columns, written
 * back by block C_data_local, C_data_local1, ... in the order of the
 * parts), the vector loops vectorized: the loads of B, and the write-back
 * of a part that needs no atomics. */
static int stage3_part(stir_kernel *k, const char *block, int i, feat_map fm,
	bool atomic)
{
	char back[32];
	if (i == 0)
		snprintf(back, sizeof(back), "C_data_local");
	else
		snprintf(back, sizeof(back), "C_data_local%d", i);
	if (stir_cache_write(k, block, "C_data", "c", STIR_SCOPE_LOCAL) < 0)
		return -1;
	if (fm.vec == 1)
		return 0;
	return stir_vectorize(k, block, "k_2") < 0 ||
		(!atomic && stir_vectorize(k, back, "ax0") < 0) ? -1 : 0;
}

/* k: the schedule of the init nest (block csrmm_init0 over i, k: C = 0)
 * like the computation's: rows over blockIdx.x and threadIdx.y, features
 * over threadIdx.x in vectors of fm.vec. */
static int schedule_init(stir_kernel *k, feat_map fm)
{
	const int64_t fk[] = { 0, fm.lanes, fm.vec }, fi[] = { 0, fm.rows };
	return stir_split(k, "csrmm_init0", "k", 3, fk) < 0 ||
		stir_split(k, "csrmm_init0", "i", 2, fi) < 0 ||
		stir_bind(k, "csrmm_init0", "i_0", STIR_BLOCK_X) < 0 ||
		stir_bind(k, "csrmm_init0", "i_1", STIR_THREAD_Y) < 0 ||
		stir_bind(k, "csrmm_init0", "k_1", STIR_THREAD_X) < 0 ||
		(fm.vec > 1 && stir_vectorize(k, "csrmm_init0", "k_2") < 0) ? -1 : 0;
}

/* k: the CSR schedule (blocks csrmm0 over rows, csrmm1 over a row's
 * columns and the features): rows over blockIdx.x and threadIdx.y,
 * features over threadIdx.x, the row's sum in a register. */
static int schedule_csr(stir_kernel *k, feat_map fm)
{
	const char *kj[] = { "k", "j" };
	const int64_t fk[] = { 0, fm.lanes }, fi[] = { 0, fm.rows };
	return stir_reorder(k, "csrmm1", 2, kj) < 0 ||
		stir_split(k, "csrmm1", "k", 2, fk) < 0 ||
		stir_split(k, "csrmm1", "i", 2, fi) < 0 ||
		stir_bind(k, "csrmm1", "i_0", STIR_BLOCK_X) < 0 ||
		stir_bind(k, "csrmm1", "i_1", STIR_THREAD_Y) < 0 ||
		stir_bind(k, "csrmm1", "k_1", STIR_THREAD_X) < 0 ||
		stir_cache_write(k, "csrmm1", "C", "j", STIR_SCOPE_LOCAL) < 0 ? -1 : 0;
}

/* ctx, program, f, dev: the hybrid kernel for the parts of format f:
 * decomposed, scheduled, all parts in one launch, compiled. */
static stir_gpu_kernel *hyb_kernel(stir_ctx *ctx, const char *program,
	const stir_format *f, feat_map fm, const stir_compile_options *co,
	stir_module **mod)
{
	stir_module *m = stir_module_read_file(ctx, program);
	if (!m)
		return NULL;
	*mod = m;
	stir_kernel *k = stir_module_find_kernel(m, "csrmm");
	/* the feature count is the kernel's, so that its splits need no tail
	 * guards; the matrix's sizes stay symbolic */
	if (!k || stir_specialize(k, "feat", fm.feat) < 0)
		return NULL;
	int n = stir_format_n_parts(f);
	stir_format_rule *rules[n > 0 ? n : 1];
	const char *blocks[n > 0 ? n : 1];
	char names[n > 0 ? n : 1][64];
	for (int i = 0; i < n; i++) {
		const stir_format_part *p = stir_format_get_part(f, i);
		rules[i] = stir_format_hybrid_part("_hyb", p->range, p->bucket, p->width);
		snprintf(names[i], sizeof(names[i]), "csrmm%s0", p->suffix);
		blocks[i] = names[i];
	}
	int rc = k && stir_decompose_format(k, "A", n, rules) == 0 &&
		stir_lower_sparse_iter(m) == 0 ? 0 : -1;
	for (int i = 0; i < n; i++)
		stir_format_rule_free(rules[i]);
	/* the parts of one column range hold disjoint rows, and only split
	 * rows repeat a row within a part */
	bool ranges = false, atomic[n > 0 ? n : 1];
	for (int i = 1; i < n; i++)
		ranges |= stir_format_get_part(f, i)->range !=
			stir_format_get_part(f, 0)->range;
	for (int i = 0; i < n; i++)
		atomic[i] = stir_format_get_part(f, i)->split || ranges;
	for (int i = 0; i < n && rc == 0; i++)
		rc = schedule_part(k, blocks[i], fm, atomic[i]);
	const char *out[] = { "C" };
	if (rc == 0 && n > 1)
		rc = stir_horizontal_fuse_disjoint(k, n, blocks, 1, out);
	if (rc == 0)
		rc = schedule_init(k, fm);
	if (rc < 0 || stir_kernel_prepare_for_gpu(k) < 0)
		return NULL;
	for (int i = 0; i < n; i++)
		if (stage3_part(k, blocks[i], i, fm, atomic[i]) < 0)
			return NULL;
	return stir_gpu_kernel_compile(k, co);
}

/* ctx, program, dev: the CSR kernel, scheduled and compiled. */
static stir_gpu_kernel *csr_kernel(stir_ctx *ctx, const char *program,
	feat_map fm, const stir_compile_options *co, stir_module **mod)
{
	stir_module *m = stir_module_read_file(ctx, program);
	if (!m)
		return NULL;
	*mod = m;
	stir_kernel *k = stir_module_find_kernel(m, "csrmm");
	if (!k || stir_specialize(k, "feat", fm.feat) < 0 ||
	    stir_lower_sparse_iter(m) < 0 || schedule_csr(k, fm) < 0 ||
	    schedule_init(k, fm) < 0 || stir_kernel_prepare_for_gpu(k) < 0)
		return NULL;
	return stir_gpu_kernel_compile(k, co);
}

/* b, name, dtype, n, data: bind a 1-D array copied from "data". */
static void bind_copy(stir_ctx *ctx, stir_bindings *b, const char *name,
	stir_dtype dtype, int64_t n, const void *data)
{
	stir_array *a = stir_array_alloc(ctx, dtype, 1, &n);
	if (!a)
		bench_fail(ctx, "allocating an array");
	memcpy(stir_array_get_data(a), data, (size_t)n * stir_dtype_size(dtype));
	stir_bindings_set_array(b, name, a);
}

/* ctx, gk, dev, b, want, n_out, reps, ms, err: upload b, run gk once and
 * compare C with "want", then time it. */
static int run_stir(stir_ctx *ctx, stir_gpu_kernel *gk, stir_device *dev,
	stir_bindings *b, const float *want, int64_t n_out, int reps, double *ms,
	double *err)
{
	stir_gpu_run *run = stir_gpu_run_alloc(gk, dev);
	int rc = run && stir_gpu_run_upload(run, b) == 0 &&
		stir_gpu_run_launch(run, 0) == 0 &&
		stir_gpu_run_download(run, b) == 0 ? 0 : -1;
	if (rc == 0) {
		const float *c = stir_array_get_const_data(stir_bindings_get_array(b, "C"));
		*err = bench_max_rel_diff(c, want, n_out);
		rc = bench_time_stir(run, reps, ms);
		if (rc == 0 && getenv("BENCH_VERBOSE")) {
			/* the launches of the last timed run */
			const stir_cuda_plan *p = stir_gpu_kernel_get_plan(gk);
			for (int i = 0; i < stir_cuda_plan_n_launches(p); i++)
				fprintf(stderr, "  %s: %.4f ms\n",
					stir_cuda_plan_get_launch_name(p, i),
					stir_gpu_run_get_launch_ms(run, i));
		}
	}
	stir_gpu_run_free(run);
	(void)ctx;
	return rc;
}

/* The command line. */
typedef struct options {
	int64_t feats[8];
	int n_feats;
	int reps;
	const char *json;
	const char *program;
	const char *arch;       /* --compile-only: compile for it, run nothing */
	int n_graphs;
	char **graphs;
} options;

static void parse_options(int argc, char **argv, options *o)
{
	static const int64_t defaults[] = { 32, 64, 128, 256, 512 };
	memset(o, 0, sizeof(*o));
	memcpy(o->feats, defaults, sizeof(defaults));
	o->n_feats = 5;
	o->reps = BENCH_REPS;
	o->program = "examples/csrmm.stir";
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--features") && i + 1 < argc) {
			o->n_feats = 0;
			for (char *s = strtok(argv[++i], ","); s && o->n_feats < 8;
			     s = strtok(NULL, ","))
				o->feats[o->n_feats++] = atoll(s);
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			o->reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			o->json = argv[++i];
		} else if (!strcmp(argv[i], "--program") && i + 1 < argc) {
			o->program = argv[++i];
		} else if (!strcmp(argv[i], "--compile-only") && i + 1 < argc) {
			o->arch = argv[++i];
		} else {
			fprintf(stderr, "usage: %s [--features 32,64,...] [--reps N] "
				"[--json FILE] [--program FILE.stir] [--compile-only ARCH] "
				"GRAPH...\n", argv[0]);
			exit(2);
		}
	}
	if (i >= argc || o->reps < 1 || o->n_feats < 1) {
		fprintf(stderr, "%s: no graph given (or bad --reps/--features)\n",
			argv[0]);
		exit(2);
	}
	o->graphs = argv + i;
	o->n_graphs = argc - i;
}

/* r, f, json: one JSON object for result r. */
static void json_result(FILE *f, const result *r, bool last)
{
	fprintf(f, "    {\"graph\": \"%s\", \"rows\": %lld, \"nnz\": %lld, "
		"\"features\": %lld,\n     \"cusparse_ms\": %.6f, \"cusparse_alg\": "
		"\"%s\", \"stir_csr_ms\": %.6f, \"stir_hyb_ms\": %.6f,\n"
		"     \"speedup_hyb\": %.4f, \"speedup_csr\": %.4f, "
		"\"max_rel_err_hyb\": %.3g, \"max_rel_err_csr\": %.3g,\n"
		"     \"hyb_column_parts\": %d, \"hyb_buckets\": [", r->graph,
		(long long)r->m, (long long)r->nnz, (long long)r->feat,
		r->cusparse_ms, r->cusparse_alg, r->csr_ms, r->hyb_ms,
		r->cusparse_ms / r->hyb_ms, r->cusparse_ms / r->csr_ms, r->hyb_err,
		r->csr_err, r->hyb.c);
	for (int i = 0; i < r->hyb.nb; i++)
		fprintf(f, "%s%lld", i ? ", " : "", (long long)r->hyb.buckets[i]);
	fprintf(f, "], \"hyb_padding\": %.4f, \"host_build_ms\": %.3f,\n"
		"     \"bytes\": %.0f, \"search_ms\": [", r->padding, r->build_ms,
		r->bytes);
	for (int i = 0; i < N_CONFIGS; i++)
		fprintf(f, "%s%.6f", i ? ", " : "", r->search_ms[i]);
	fprintf(f, "]}%s\n", last ? "" : ",");
}

/* ctx, o, graph: build (and, with --compile-only, only compile) every
 * kernel a graph needs, for every feature size: the CSR kernel and one
 * hybrid kernel per candidate.  No GPU is needed. */
static void compile_graph(stir_ctx *ctx, const options *o, const char *spec)
{
	stir_csr *csr = bench_load_graph(ctx, spec);
	if (!csr)
		bench_fail(ctx, "loading a graph");
	stir_compile_options co = { .arch = o->arch };
	for (int fi = 0; fi < o->n_feats; fi++) {
		feat_map fm = map_features(o->feats[fi]);
		stir_module *m = NULL;
		stir_gpu_kernel *gk = csr_kernel(ctx, o->program, fm, &co, &m);
		if (!gk)
			bench_fail(ctx, "compiling the CSR kernel");
		stir_gpu_kernel_free(gk);
		stir_module_free(m);
		for (int i = 0; i < N_CONFIGS; i++) {
			stir_bindings *b = stir_bindings_alloc();
			stir_format *f = stir_csr_to_hybrid(ctx, csr, configs[i].c,
				configs[i].buckets, configs[i].nb, STIR_I32, STIR_F32, "_hyb", b);
			m = NULL;
			gk = f ? hyb_kernel(ctx, o->program, f, fm, &co, &m) : NULL;
			if (gk && i == 0 && getenv("BENCH_SOURCE"))
				fputs(stir_cuda_plan_get_source(stir_gpu_kernel_get_plan(gk)), stderr);
			if (!gk)
				stir_ctx_print_diagnostics(ctx, stderr);
			stir_ctx_clear_diagnostics(ctx);
			stir_gpu_kernel_free(gk);
			stir_module_free(m);
			stir_format_free(f);
			stir_bindings_free(b);
		}
	}
	stir_csr_free(csr);
}

int main(int argc, char **argv)
{
	options o;
	parse_options(argc, argv, &o);
	stir_ctx *ctx = stir_ctx_alloc();
	if (o.arch) {
		for (int g = 0; g < o.n_graphs; g++)
			compile_graph(ctx, &o, o.graphs[g]);
		printf("compiled every kernel for %s into the cache\n", o.arch);
		stir_ctx_free(ctx);
		return 0;
	}
	stir_device *dev = stir_device_open(ctx, 0);
	if (!dev)
		bench_fail(ctx, "opening the GPU");
	bench_cusparse *cs = bench_cusparse_open(ctx);
	if (!cs)
		bench_fail(ctx, "loading cuSPARSE");
	stir_compile_options co = { .device = dev };
	double copy_bw = bench_copy_bandwidth(dev);
	printf("# %s, copy bandwidth %.2f TB/s (read + write)\n",
		stir_device_get_name(dev), copy_bw * 1e-12);
	printf("%-16s %8s %10s %5s | %10s %-9s | %10s %7s | %10s %7s | %-22s %8s\n",
		"graph", "rows", "nnz", "feat", "cuSPARSE", "alg", "stir CSR", "speedup",
		"stir hyb", "speedup", "hyb config", "build");
	result *results = calloc((size_t)(o.n_graphs * o.n_feats), sizeof(result));
	int n_results = 0;
	for (int g = 0; g < o.n_graphs; g++) {
		char gname[64];
		bench_graph_name(o.graphs[g], gname, sizeof(gname));
		stir_csr *csr = bench_load_graph(ctx, o.graphs[g]);
		bench_csr32 a;
		if (!csr || bench_csr32_init(ctx, &a, csr) < 0)
			bench_fail(ctx, "loading a graph");
		stir_gpu_buf *d_ptr = bench_upload(dev, a.indptr, (size_t)(a.m + 1) * 4);
		stir_gpu_buf *d_ind = bench_upload(dev, a.indices, (size_t)a.nnz * 4);
		stir_gpu_buf *d_val = bench_upload(dev, a.values, (size_t)a.nnz * 4);
		/* the hybrid formats of every candidate, built once per graph */
		stir_bindings *fb[N_CONFIGS];
		stir_format *fmt[N_CONFIGS];
		double build_ms[N_CONFIGS];
		for (int i = 0; i < N_CONFIGS; i++) {
			fb[i] = stir_bindings_alloc();
			double t0 = bench_now_ms();
			fmt[i] = stir_csr_to_hybrid(ctx, csr, configs[i].c,
				configs[i].buckets, configs[i].nb, STIR_I32, STIR_F32, "_hyb",
				fb[i]);
			build_ms[i] = bench_now_ms() - t0;
			if (!fmt[i]) {
				stir_ctx_print_diagnostics(ctx, stderr);
				stir_ctx_clear_diagnostics(ctx);
			}
		}
		for (int fi = 0; fi < o.n_feats; fi++) {
			int64_t feat = o.feats[fi];
			feat_map fm = map_features(feat);
			result *r = &results[n_results++];
			snprintf(r->graph, sizeof(r->graph), "%s", gname);
			r->m = a.m;
			r->nnz = a.nnz;
			r->feat = feat;
			r->bytes = (double)a.nnz * 8 + (double)(a.m + 1) * 4 +
				(double)a.n * feat * 4 + (double)a.m * feat * 4;
			size_t nb_bytes = (size_t)(a.n * feat) * 4;
			size_t nc = (size_t)(a.m * feat);
			float *bh = malloc(nb_bytes ? nb_bytes : 4);
			float *want = malloc((nc ? nc : 1) * sizeof(float));
			uint64_t s = 42 + (uint64_t)feat;
			for (int64_t i = 0; i < a.n * feat; i++) {
				s = s * 6364136223846793005ull + 1442695040888963407ull;
				bh[i] = (float)((double)(s >> 11) * 0x1p-53 * 2 - 1);
			}
			stir_gpu_buf *d_b = bench_upload(dev, bh, nb_bytes);
			stir_gpu_buf *d_c = stir_gpu_buf_alloc(dev, nc ? nc * 4 : 4);
			/* cuSPARSE: every algorithm, the fastest kept */
			r->cusparse_ms = INFINITY;
			for (int alg = 0; alg < bench_spmm_n_algs(); alg++) {
				bench_op *op = bench_spmm_create(cs, a.m, a.n, a.nnz,
					stir_gpu_buf_get_ptr(d_ptr), stir_gpu_buf_get_ptr(d_ind),
					stir_gpu_buf_get_ptr(d_val), feat, stir_gpu_buf_get_ptr(d_b),
					stir_gpu_buf_get_ptr(d_c), alg);
				double ms;
				if (op && bench_time_cusparse(dev, op, o.reps, &ms) == 0 &&
				    ms < r->cusparse_ms) {
					r->cusparse_ms = ms;
					r->cusparse_alg = bench_spmm_alg_name(alg);
					stir_gpu_buf_copy_to_host(d_c, 0, want, nc * 4);
				}
				bench_op_free(op);
				stir_ctx_clear_diagnostics(ctx);
			}
			if (!r->cusparse_alg)
				bench_fail(ctx, "cuSPARSE SpMM");
			/* stir CSR */
			stir_module *csr_mod = NULL;
			stir_gpu_kernel *csr_gk = csr_kernel(ctx, o.program, fm, &co, &csr_mod);
			if (!csr_gk)
				bench_fail(ctx, "building the CSR kernel");
			stir_bindings *b = stir_bindings_alloc();
			stir_bindings_set_size(b, "m", a.m);
			stir_bindings_set_size(b, "n", a.n);
			stir_bindings_set_size(b, "nnz", a.nnz);
			stir_bindings_set_size(b, "feat", feat);
			bind_copy(ctx, b, "J.indptr", STIR_I32, a.m + 1, a.indptr);
			bind_copy(ctx, b, "J.indices", STIR_I32, a.nnz, a.indices);
			bind_copy(ctx, b, "A", STIR_F32, a.nnz, a.values);
			bind_copy(ctx, b, "B", STIR_F32, a.n * feat, bh);
			must(ctx, stir_kernel_bind_outputs(stir_module_find_kernel(csr_mod,
				"csrmm"), b), "binding C");
			must(ctx, run_stir(ctx, csr_gk, dev, b, want, (int64_t)nc, o.reps,
				&r->csr_ms, &r->csr_err), "the CSR kernel");
			stir_bindings_free(b);
			stir_gpu_kernel_free(csr_gk);
			stir_module_free(csr_mod);
			/* stir hybrid: every candidate */
			r->hyb_ms = INFINITY;
			for (int i = 0; i < N_CONFIGS; i++) {
				r->search_ms[i] = -1;
				stir_module *hyb_mod = NULL;
				stir_gpu_kernel *hyb_gk = fmt[i] ? hyb_kernel(ctx, o.program,
					fmt[i], fm, &co, &hyb_mod) : NULL;
				if (!hyb_gk) {
					fprintf(stderr, "bench: hybrid candidate %d fails on %s:\n",
						i, gname);
					stir_ctx_print_diagnostics(ctx, stderr);
					stir_ctx_clear_diagnostics(ctx);
					stir_module_free(hyb_mod);
					continue;
				}
				stir_bindings *hb = stir_bindings_copy(fb[i]);
				stir_bindings_set_size(hb, "m", a.m);
				stir_bindings_set_size(hb, "n", a.n);
				stir_bindings_set_size(hb, "feat", feat);
				bind_copy(ctx, hb, "B", STIR_F32, a.n * feat, bh);
				stir_kernel_bind_outputs(stir_module_find_kernel(hyb_mod,
					"csrmm"), hb);
				double ms, err;
				if (run_stir(ctx, hyb_gk, dev, hb, want, (int64_t)nc,
					o.reps, &ms, &err) == 0) {
					r->search_ms[i] = ms;
					if (err > 1e-3)
						fprintf(stderr, "bench: %s feat %lld: hybrid candidate "
							"%d differs from cuSPARSE by %g\n", gname,
							(long long)feat, i, err);
					else if (ms < r->hyb_ms) {
						r->hyb_ms = ms;
						r->hyb_err = err;
						r->hyb = configs[i];
						r->build_ms = build_ms[i];
						int64_t slots = 0;
						for (int p = 0; p < stir_format_n_parts(fmt[i]); p++)
							slots += stir_format_get_part(fmt[i], p)->slots;
						r->padding = a.nnz ? (double)(slots - a.nnz) / a.nnz : 0;
					}
				} else {
					stir_ctx_print_diagnostics(ctx, stderr);
				}
				stir_ctx_clear_diagnostics(ctx);
				stir_bindings_free(hb);
				stir_gpu_kernel_free(hyb_gk);
				stir_module_free(hyb_mod);
			}
			char config[64];
			int len = snprintf(config, sizeof(config), "c=%d [", r->hyb.c);
			for (int i = 0; i < r->hyb.nb; i++)
				len += snprintf(config + len, sizeof(config) - (size_t)len,
					"%s%lld", i ? "," : "", (long long)r->hyb.buckets[i]);
			snprintf(config + len, sizeof(config) - (size_t)len, "]");
			printf("%-16s %8lld %10lld %5lld | %10.4f %-9s | %10.4f %6.2fx | "
				"%10.4f %6.2fx | %-22s %6.0fms\n", gname, (long long)a.m,
				(long long)a.nnz, (long long)feat, r->cusparse_ms,
				r->cusparse_alg, r->csr_ms, r->cusparse_ms / r->csr_ms,
				r->hyb_ms, r->cusparse_ms / r->hyb_ms, config, r->build_ms);
			fflush(stdout);
			stir_gpu_buf_free(d_b);
			stir_gpu_buf_free(d_c);
			free(bh);
			free(want);
		}
		for (int i = 0; i < N_CONFIGS; i++) {
			stir_format_free(fmt[i]);
			stir_bindings_free(fb[i]);
		}
		stir_gpu_buf_free(d_ptr);
		stir_gpu_buf_free(d_ind);
		stir_gpu_buf_free(d_val);
		bench_csr32_release(&a);
		stir_csr_free(csr);
	}
	/* summary: geometric means of the speedups */
	double log_hyb = 0, log_csr = 0, worst = INFINITY;
	for (int i = 0; i < n_results; i++) {
		double sh = results[i].cusparse_ms / results[i].hyb_ms;
		log_hyb += log(sh);
		log_csr += log(results[i].cusparse_ms / results[i].csr_ms);
		worst = sh < worst ? sh : worst;
	}
	printf("# geometric-mean speedup over cuSPARSE: hybrid %.3fx (worst case "
		"%.3fx), CSR %.3fx, over %d cases\n", exp(log_hyb / n_results), worst,
		exp(log_csr / n_results), n_results);
	if (o.json) {
		FILE *f = fopen(o.json, "w");
		if (f) {
			fprintf(f, "{\n  \"device\": \"%s\", \"copy_bandwidth\": %.0f,\n"
				"  \"results\": [\n", stir_device_get_name(dev), copy_bw);
			for (int i = 0; i < n_results; i++)
				json_result(f, &results[i], i == n_results - 1);
			fprintf(f, "  ]\n}\n");
			fclose(f);
		}
	}
	free(results);
	bench_cusparse_close(cs);
	stir_device_close(dev);
	stir_ctx_free(ctx);
	return 0;
}
