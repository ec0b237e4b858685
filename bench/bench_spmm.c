/* SpMM benchmark: C = A B for a sparse graph A and dense features B, stir's
 * hybrid ELL kernel (and its plain CSR kernel) against cuSPARSE's
 * cusparseSpMM with its best algorithm, in one process, on one GPU.
 *
 * usage: bench_spmm [--features 32,64,...] [--reps N] [--json FILE]
 *                   [--program examples/csrmm.stir] [--compile-only ARCH]
 *                   [--no-csr] GRAPH...
 * --no-csr skips stir's plain CSR kernel (our own baseline, slow on graphs
 * with very long rows); --compile-only only fills the NVRTC cache.
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
	{ 1, 6, { 2, 4, 8, 16, 32, 64 } },
	{ 1, 8, { 1, 2, 4, 8, 16, 32, 64, 128 } },
	{ 1, 7, { 4, 8, 16, 32, 64, 128, 256 } },
	{ 2, 6, { 1, 2, 4, 8, 16, 32 } },
	{ 2, 8, { 1, 2, 4, 8, 16, 32, 64, 128 } },
};
#define N_CONFIGS (int)(sizeof(configs) / sizeof(configs[0]))

/* How the features of a row map onto threads: "lanes" threads along
 * threadIdx.x, each "vec" consecutive features (vector loads); "chunks"
 * such pieces of the row along threadIdx.z; as many rows per thread block
 * (threadIdx.y) as make 256 threads. */
typedef struct feat_map {
	int64_t feat;           /* the features, a literal in the kernel */
	int64_t lanes, vec, chunks, rows;
} feat_map;

/* feat: the mapping for "feat" features: 4-wide vectors when they divide
 * the features, as many lanes as cover them up to a warp, the rest in
 * chunks. */
static feat_map map_features(int64_t feat)
{
	feat_map f = { feat, 32, feat % 4 == 0 ? 4 : 1, 1, 8 };
	while (f.lanes > 1 && f.lanes * f.vec > feat)
		f.lanes /= 2;
	f.chunks = (feat + f.lanes * f.vec - 1) / (f.lanes * f.vec);
	f.rows = 256 / (f.lanes * f.chunks);
	if (f.rows < 1)
		f.rows = 1;
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
		(fm.chunks > 1 && stir_bind(k, block, "k_0", STIR_THREAD_Z) < 0) ||
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
 * over threadIdx.x in vectors of fm.vec, the chunks serially. */
static int schedule_init(stir_kernel *k, feat_map fm)
{
	const int64_t fk[] = { 0, fm.lanes, fm.vec };
	const int64_t fi[] = { 0, fm.rows * fm.chunks };  /* 256 threads */
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
	const int64_t fk[] = { 0, fm.lanes }, fi[] = { 0, fm.rows * fm.chunks };
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

/* ctx, o, fm, co, dev, a, bh, want, r: time stir's CSR kernel on graph a
 * with features bh, its result checked against "want", into r. */
static void time_csr(stir_ctx *ctx, const bench_options *o, feat_map fm,
	const stir_compile_options *co, stir_device *dev, const bench_csr32 *a,
	const float *bh, const float *want, result *r)
{
	stir_module *csr_mod = NULL;
	stir_gpu_kernel *csr_gk = csr_kernel(ctx, o->program, fm, co, &csr_mod);
	if (!csr_gk)
		bench_fail(ctx, "building the CSR kernel");
	stir_bindings *b = stir_bindings_alloc();
	stir_bindings_set_size(b, "m", a->m);
	stir_bindings_set_size(b, "n", a->n);
	stir_bindings_set_size(b, "nnz", a->nnz);
	stir_bindings_set_size(b, "feat", fm.feat);
	bench_bind_copy(ctx, b, "J.indptr", STIR_I32, a->m + 1, a->indptr);
	bench_bind_copy(ctx, b, "J.indices", STIR_I32, a->nnz, a->indices);
	bench_bind_copy(ctx, b, "A", STIR_F32, a->nnz, a->values);
	bench_bind_copy(ctx, b, "B", STIR_F32, a->n * fm.feat, bh);
	bench_must(ctx, stir_kernel_bind_outputs(stir_module_find_kernel(csr_mod,
		"csrmm"), b), "binding C");
	bench_must(ctx, bench_run_stir(csr_gk, dev, b, "C", want, a->m * fm.feat,
		o->reps, &r->csr_ms, &r->csr_err), "the CSR kernel");
	stir_bindings_free(b);
	stir_gpu_kernel_free(csr_gk);
	stir_module_free(csr_mod);
}

/* r, f, last, copy_bw: one JSON object for result r. */
static void json_result(FILE *f, const result *r, bool last, double copy_bw)
{
	fprintf(f, "    {\"graph\": \"%s\", \"rows\": %lld, \"nnz\": %lld, "
		"\"features\": %lld, \"cusparse_alg\": \"%s\",\n     ", r->graph,
		(long long)r->m, (long long)r->nnz, (long long)r->feat,
		r->cusparse_alg);
	bench_json_num(f, "cusparse_ms", r->cusparse_ms);
	bench_json_num(f, "stir_csr_ms", r->csr_ms);
	bench_json_num(f, "stir_hyb_ms", r->hyb_ms);
	bench_json_num(f, "speedup_hyb", r->cusparse_ms / r->hyb_ms);
	bench_json_num(f, "speedup_csr", r->cusparse_ms / r->csr_ms);
	fprintf(f, "\n     ");
	bench_json_num(f, "max_rel_err_hyb", r->hyb_err);
	bench_json_num(f, "max_rel_err_csr", r->csr_err);
	bench_json_num(f, "bytes", r->bytes);
	bench_json_num(f, "cusparse_bw_fraction", r->bytes / (r->cusparse_ms * 1e-3) / copy_bw);
	bench_json_num(f, "hyb_bw_fraction", r->bytes / (r->hyb_ms * 1e-3) / copy_bw);
	fprintf(f, "\n     \"hyb_column_parts\": %d, \"hyb_buckets\": [", r->hyb.c);
	for (int i = 0; i < r->hyb.nb; i++)
		fprintf(f, "%s%lld", i ? ", " : "", (long long)r->hyb.buckets[i]);
	fprintf(f, "], ");
	bench_json_num(f, "hyb_padding", r->padding);
	bench_json_num(f, "host_build_ms", r->build_ms);
	bench_json_search(f, r->search_ms, N_CONFIGS);
	fprintf(f, "}%s\n", last ? "" : ",");
}

/* ctx, o, graph: build (and, with --compile-only, only compile) every
 * kernel a graph needs, for every feature size: the CSR kernel and one
 * hybrid kernel per candidate.  No GPU is needed. */
static void compile_graph(stir_ctx *ctx, const bench_options *o,
	const char *spec)
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
	static const char *const flags[] = { "--no-csr", NULL };
	bench_options o;
	bench_gpu gpu;
	bench_parse_options(argc, argv, "examples/csrmm.stir", flags, &o);
	bool no_csr = o.flags & 1;
	stir_ctx *ctx = stir_ctx_alloc();
	bench_start(ctx, &o, compile_graph, &gpu);
	stir_device *dev = gpu.dev;
	bench_cusparse *cs = gpu.cs;
	stir_compile_options co = gpu.co;
	double copy_bw = gpu.copy_bw;
	printf("%-16s %8s %10s %5s | %10s %-9s | %10s %7s | %10s %7s | %5s %5s | "
		"%-22s %8s\n", "graph", "rows", "nnz", "feat", "cuSPARSE", "alg",
		"stir CSR", "speedup", "stir hyb", "speedup", "cs bw", "hyb bw",
		"hyb config", "build");
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
			bench_random_floats(bh, a.n * feat, 42 + (uint64_t)feat);
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
			r->csr_ms = NAN;
			r->csr_err = NAN;
			if (!no_csr)
				time_csr(ctx, &o, fm, &co, dev, &a, bh, want, r);
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
				bench_bind_copy(ctx, hb, "B", STIR_F32, a.n * feat, bh);
				stir_kernel_bind_outputs(stir_module_find_kernel(hyb_mod,
					"csrmm"), hb);
				double ms, err;
				if (bench_run_stir(hyb_gk, dev, hb, "C", want, (int64_t)nc,
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
				"%10.4f %6.2fx | %4.0f%% %4.0f%% | %-22s %6.0fms\n", gname,
				(long long)a.m, (long long)a.nnz, (long long)feat,
				r->cusparse_ms, r->cusparse_alg, r->csr_ms,
				r->cusparse_ms / r->csr_ms, r->hyb_ms,
				r->cusparse_ms / r->hyb_ms,
				100 * r->bytes / (r->cusparse_ms * 1e-3) / copy_bw,
				100 * r->bytes / (r->hyb_ms * 1e-3) / copy_bw, config,
				r->build_ms);
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
	/* summary: geometric means of the speedups (CSR: where it ran) */
	double *sh = calloc((size_t)n_results + 1, sizeof(double));
	double *sc = calloc((size_t)n_results + 1, sizeof(double));
	if (!sh || !sc)
		bench_fail(ctx, "allocating the summary");
	for (int i = 0; i < n_results; i++) {
		sh[i] = results[i].cusparse_ms / results[i].hyb_ms;
		sc[i] = results[i].cusparse_ms / results[i].csr_ms;
	}
	double worst, unused;
	int n_hyb, n_csr;
	double hyb = bench_geomean(sh, n_results, &worst, &n_hyb);
	double csr = bench_geomean(sc, n_results, &unused, &n_csr);
	printf("# geometric-mean speedup over cuSPARSE: hybrid %.3fx (worst case "
		"%.3fx), CSR %.3fx (%d cases), over %d cases\n", hyb, worst, csr,
		n_csr, n_results);
	FILE *f = bench_json_begin(ctx, o.json, &gpu);
	for (int i = 0; f && i < n_results; i++)
		json_result(f, &results[i], i == n_results - 1, copy_bw);
	bench_json_end(f);
	free(sh);
	free(sc);
	free(results);
	bench_finish(&gpu);
	stir_ctx_free(ctx);
	return 0;
}
