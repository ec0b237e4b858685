/* SpMM benchmark: C = A B for a sparse graph A and dense features B, stir's
 * hybrid ELL kernel (and its plain CSR kernel) against cuSPARSE's
 * cusparseSpMM with its best algorithm, in one process, on one GPU.
 *
 * usage: bench_spmm [--features 32,64,...] [--reps N] [--json FILE]
 *                   [--program examples/csrmm.stir] [--compile-only ARCH]
 *                   [--candidates I,J,...] [--rounds R] [--shift-kib K]
 *                   [--no-csr] GRAPH...
 * --rounds R times the candidates in R rounds, each candidate once a
 * round, and reports each one's median over the rounds (every round's
 * in the JSON's "search_rounds_ms"); --shift-kib K uploads round q's
 * arrays after a spacer of q * K KiB, at other device addresses.
 * --no-csr skips stir's plain CSR kernel (our own baseline, slow on graphs
 * with very long rows); --candidates runs only those of the search;
 * --compile-only only fills the NVRTC cache.  --srbcrs adds stir's
 * SR-BCRS(16, 8) SpMM on tensor cores (tf32), each candidate of the
 * library's recipe (stir_recipe_srbcrs_tc_candidate: whole windows, or
 * windows cut into chunks of 32 or 8 groups), the format built from the
 * graph on the host (stir_srbcrs_tc_format), not timed, and the largest relative error of cuSPARSE and of them against
 * an fp64 product computed on the host (|x - ref| / (1 + |ref|)).
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

/* --srbcrs: the library's SR-BCRS candidates (stir_srbcrs_tc_get_candidate,
 * schedule/recipes/srbcrs.c), their names in the output: srbcrs_tc
 * (whole windows), srbcrs_chunksC (chunks of C groups), srbcrs_rowsC
 * (chunks, the windows' rows reordered). */
#define N_SRBCRS 4
static char SRBCRS_NAMES[N_SRBCRS][32];

/* Name every SR-BCRS candidate (main checks there are N_SRBCRS). */
static void name_srbcrs(void)
{
	for (int i = 0; i < N_SRBCRS; i++) {
		const stir_srbcrs_tc_candidate *p = stir_srbcrs_tc_get_candidate(i);
		if (!p->chunk)
			snprintf(SRBCRS_NAMES[i], sizeof(SRBCRS_NAMES[i]),
				"srbcrs_tc");
		else
			snprintf(SRBCRS_NAMES[i], sizeof(SRBCRS_NAMES[i]),
				"srbcrs_%s%d", p->order == STIR_ROWS_NATURAL ?
				"chunks" : "rows", p->chunk);
	}
}

/* The hybrid candidates are the library's (stir_spmm_hybrid_get_candidate);
 * --candidates (bench_options.candidates) names at most 128 of them. */
#define MAX_CONFIGS 128
#define N_CONFIGS n_configs()

/* The number of hybrid candidates (main checks it is at most
 * MAX_CONFIGS). */
static int n_configs(void)
{
	return stir_spmm_hybrid_n_candidates();
}

/* i: hybrid candidate i. */
static const stir_spmm_hybrid_candidate *config(int i)
{
	return stir_spmm_hybrid_get_candidate(i);
}

/* One result of a run, for the table and the JSON. */
typedef struct result {
	char graph[64];
	int64_t m, nnz, feat;
	double cusparse_ms;
	const char *cusparse_alg;
	double csr_ms, hyb_ms;
	double csr_err, hyb_err;
	stir_spmm_hybrid_candidate hyb;         /* the best configuration */
	double build_ms;        /* host time to build the best hybrid format */
	double padding;         /* padded slots / non-zeros of the best */
	double search_ms[MAX_CONFIGS]; /* each candidate, -1 when it failed */
	int rounds;             /* --rounds */
	double *rounds_ms;      /* each candidate's time in each round
	                           (rounds_ms[i * rounds + q]), -1 when not
	                           timed */
	double bytes;           /* bytes the operation must move */
	/* --srbcrs: SR-BCRS on tensor cores, each schedule; the errors
	 * against fp64 */
	double sr_ms[N_SRBCRS], sr_err[N_SRBCRS], cusparse_err64;
} result;

/* a, b, feat, out: out = A B in fp64 on the host, rounded to f32 (the
 * reference of the errors --srbcrs reports). */
static void spmm_f64(const bench_csr32 *a, const float *b, int64_t feat,
	float *out)
{
	double *row = malloc((size_t)(feat ? feat : 1) * sizeof(double));
	if (!row)
		return;
	for (int64_t i = 0; i < a->m; i++) {
		for (int64_t f = 0; f < feat; f++)
			row[f] = 0;
		for (int64_t p = a->indptr[i]; p < a->indptr[i + 1]; p++) {
			double v = a->values[p];
			const float *br = b + (int64_t)a->indices[p] * feat;
			for (int64_t f = 0; f < feat; f++)
				row[f] += v * br[f];
		}
		for (int64_t f = 0; f < feat; f++)
			out[i * feat + f] = (float)row[f];
	}
	free(row);
}

/* ctx, o, i, feat, co, csr, b, mod: the SR-BCRS kernel of --srbcrs
 * under the library's candidate i at feature size feat, compiled with co,
 * its module in *mod; with csr, the format the candidate decomposes A
 * into, built from csr, bound into b.  NULL (with diagnostics) when it
 * cannot be. */
static stir_gpu_kernel *srbcrs_kernel(stir_ctx *ctx, const bench_options *o,
	int i, int64_t feat, const stir_compile_options *co,
	const stir_csr *csr, stir_bindings *b, stir_module **mod)
{
	stir_kernel *k = bench_read_kernel(ctx, o->program, "csrmm", mod);
	const stir_srbcrs_tc_candidate *p = stir_srbcrs_tc_get_candidate(i);
	stir_host_format *f = NULL;
	if (!k || stir_recipe_srbcrs_tc_candidate(k, p, feat) < 0 ||
	    (csr && !(f = stir_srbcrs_tc_format(ctx, csr, p, STIR_I32,
	    STIR_F32, b))))
		return NULL;
	stir_host_format_free(f);
	return stir_gpu_kernel_compile(k, co);
}

/* ctx, o, i, co, dev, a, csr, feat, bh, ref, r: stir's SR-BCRS SpMM on
 * tensor cores under the library's candidate i at feat features on graph
 * csr with features bh, checked against the fp64 product
 * ref and timed, into r (NaN when it fails). */
static void time_srbcrs(stir_ctx *ctx, const bench_options *o, int i,
	const stir_compile_options *co, stir_device *dev, const bench_csr32 *a,
	const stir_csr *csr, int64_t feat, const float *bh, const float *ref,
	result *r)
{
	stir_module *m = NULL;
	stir_bindings *b = stir_bindings_alloc();
	stir_gpu_kernel *gk = NULL;
	r->sr_ms[i] = r->sr_err[i] = NAN;
	if (feat % 32) {
		fprintf(stderr, "bench: SR-BCRS on tensor cores takes features in "
			"multiples of 32 (a warp's 4 tiles of 8), not %lld\n",
			(long long)feat);
		goto out;
	}
	if (!b || !(gk = srbcrs_kernel(ctx, o, i, feat, co, csr, b, &m)))
		goto out;
	bench_bind_copy(ctx, b, "B", STIR_F32, a->n * feat, bh);
	if (stir_kernel_bind_outputs(stir_module_find_kernel(m, "csrmm"), b) < 0 ||
	    bench_run_stir(gk, dev, b, "C", ref, a->m * feat, o->reps,
	    &r->sr_ms[i], &r->sr_err[i]) < 0)
		r->sr_ms[i] = r->sr_err[i] = NAN;
out:
	if (isnan(r->sr_ms[i]) && stir_ctx_n_diagnostics(ctx)) {
		fprintf(stderr, "bench: SR-BCRS on tensor cores (%s) failed:\n",
			SRBCRS_NAMES[i]);
		stir_ctx_print_diagnostics(ctx, stderr);
	}
	stir_ctx_clear_diagnostics(ctx);
	stir_gpu_kernel_free(gk);
	stir_bindings_free(b);
	stir_module_free(m);
}

/* ctx, program, cfg, fm, mod: kernel csrmm scheduled for the hybrid
 * format of configuration cfg (every part, so that it serves any graph),
 * or for CSR when cfg is NULL; its module in *mod.  NULL on failure. */
static stir_kernel *spmm_scheduled(stir_ctx *ctx, const char *program,
	const stir_spmm_hybrid_candidate *cfg, stir_spmm_map fm, stir_module **mod)
{
	stir_kernel *k = bench_read_kernel(ctx, program, "csrmm", mod);
	if (cfg)
		fm = stir_spmm_hybrid_map(cfg, fm.feat);
	else
		fm.warp_cache = false;
	if (!k || (cfg ? stir_recipe_spmm_hybrid(k, cfg->c, cfg->nb,
	    cfg->buckets, fm) : stir_recipe_spmm_csr(k, fm)) < 0)
		return NULL;
	return k;
}

/* ctx, program, cfg, fm, co, mod: the same kernel, compiled. */
static stir_gpu_kernel *spmm_kernel(stir_ctx *ctx, const char *program,
	const stir_spmm_hybrid_candidate *cfg, stir_spmm_map fm,
	const stir_compile_options *co, stir_module **mod)
{
	stir_kernel *k = spmm_scheduled(ctx, program, cfg, fm, mod);
	if (!k)
		return NULL;
	stir_compile_options bounded = *co;
	bounded.min_blocks_per_sm = cfg ? cfg->min_blocks : 0;
	return stir_gpu_kernel_compile(k, &bounded);
}

/* One candidate scheduled on a thread (stir_parallel_for): the program read
 * into a context of its own (a context is not shared between threads). */
typedef struct scheduling {
	const char *program;
	int cand;
	stir_spmm_map fm;
	stir_ctx *ctx;             /* its own; kept with the module */
	stir_module *mod;
	stir_kernel *k;            /* scheduled; NULL on failure */
} scheduling;

/* arg, i: schedule item i of the scheduling array arg. */
static void schedule_one(void *arg, int i)
{
	scheduling *w = &((scheduling *)arg)[i];
	const stir_spmm_hybrid_candidate *cfg = config(w->cand);
	stir_spmm_map fm = stir_spmm_hybrid_map(cfg, w->fm.feat);
	w->ctx = stir_ctx_alloc();
	w->mod = w->ctx ? stir_module_read_from_file(w->ctx, w->program) : NULL;
	w->k = w->mod ? stir_module_find_kernel(w->mod, "csrmm") : NULL;
	if (w->k && stir_recipe_spmm_hybrid(w->k, cfg->c, cfg->nb, cfg->buckets,
	    fm) < 0)
		w->k = NULL;
}

/* ctx, o, fm, co, want, gks, mods, ctxs: every hybrid candidate i with
 * want[i] that fits feature size fm.feat, scheduled on a thread per
 * processor, each in a context of its own (into ctxs[i], to be freed after
 * mods[i]), and compiled on all processors at once
 * (stir_gpu_kernel_compile_all) into gks[i] and its module into mods[i];
 * NULL for the others and where one fails (its diagnostics in ctx).  The
 * number that failed. */
static int compile_candidates(stir_ctx *ctx, const bench_options *o,
	stir_spmm_map fm, const stir_compile_options *co, const bool *want,
	stir_gpu_kernel **gks, stir_module **mods, stir_ctx **ctxs)
{
	const stir_kernel *ks[MAX_CONFIGS];
	stir_compile_options cos[MAX_CONFIGS];
	scheduling w[MAX_CONFIGS];
	int n = 0, failed = 0;
	for (int i = 0; i < N_CONFIGS; i++) {
		mods[i] = NULL;
		ctxs[i] = NULL;
		ks[i] = NULL;
		cos[i] = *co;
		cos[i].min_blocks_per_sm = config(i)->min_blocks;
		if (want[i] && stir_spmm_hybrid_fits(config(i), fm.feat) &&
		    bench_candidate_selected(o, i))
			w[n++] = (scheduling){ .program = o->program, .cand = i,
				.fm = fm };
	}
	stir_parallel_for(n, schedule_one, w);
	for (int j = 0; j < n; j++) {
		int i = w[j].cand;
		mods[i] = w[j].mod;
		ctxs[i] = w[j].ctx;
		ks[i] = w[j].k;
		if (!ks[i]) {
			char *d = w[j].ctx ? stir_ctx_diagnostics_to_str(w[j].ctx) :
				NULL;
			stir_ctx_report(ctx, STIR_ERROR, (stir_loc){ 0, 0, 0 },
				"hybrid candidate %d failed:\n%s", i,
				d ? d : "(out of memory)");
			free(d);
			failed++;
		}
	}
	int not_compiled = stir_gpu_kernel_compile_all(N_CONFIGS, ks, cos, 0,
		gks);
	for (int i = 0; not_compiled && i < N_CONFIGS; i++)
		if (ks[i] && !gks[i] && stir_ctx_n_diagnostics(ctxs[i])) {
			char *d = stir_ctx_diagnostics_to_str(ctxs[i]);
			stir_ctx_report(ctx, STIR_ERROR, (stir_loc){ 0, 0, 0 },
				"hybrid candidate %d failed to compile:\n%s", i,
				d ? d : "(out of memory)");
			free(d);
		}
	return failed + not_compiled;
}

/* ctx, o, fm, co, dev, a, bh, want, r: time stir's CSR kernel on graph a
 * with features bh, its result checked against "want", into r. */
static void time_csr(stir_ctx *ctx, const bench_options *o, stir_spmm_map fm,
	const stir_compile_options *co, stir_device *dev, const bench_csr32 *a,
	const float *bh, const float *want, result *r)
{
	stir_module *csr_mod = NULL;
	stir_gpu_kernel *csr_gk = spmm_kernel(ctx, o->program, NULL, fm, co, &csr_mod);
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
	fprintf(f, "], \"hyb_threads\": %d, \"hyb_min_blocks\": %d, "
		"\"hyb_group\": %d, \"hyb_locality\": %s, \"hyb_warp_cache\": %s, "
		"\"hyb_serial_lanes\": %d, ", r->hyb.threads, r->hyb.min_blocks,
		r->hyb.group, r->hyb.locality ? "true" : "false",
		r->hyb.warp_cache ? "true" : "false", r->hyb.serial_lanes);
	bench_json_num(f, "hyb_padding", r->padding);
	bench_json_num(f, "host_build_ms", r->build_ms);
	if (!isnan(r->cusparse_err64)) {
		/* --srbcrs */
		for (int i = 0; i < N_SRBCRS; i++) {
			char key[160];
			snprintf(key, sizeof(key), "%s_ms", SRBCRS_NAMES[i]);
			bench_json_num(f, key, r->sr_ms[i]);
			snprintf(key, sizeof(key), "speedup_%s", SRBCRS_NAMES[i]);
			bench_json_num(f, key, r->cusparse_ms / r->sr_ms[i]);
			snprintf(key, sizeof(key), "max_rel_err64_%s",
				SRBCRS_NAMES[i]);
			bench_json_num(f, key, r->sr_err[i]);
		}
		bench_json_num(f, "max_rel_err64_cusparse", r->cusparse_err64);
	}
	bench_json_search(f, r->search_ms, N_CONFIGS);
	bench_json_rounds(f, r->rounds_ms, N_CONFIGS, r->rounds);
	fprintf(f, "}%s\n", last ? "" : ",");
}

/* ctx, o, spec: compile every kernel, for every feature size: the CSR
 * kernel and one hybrid kernel per candidate.  The kernels do not depend
 * on the graph (spec), and no GPU is needed. */
static void compile_graph(stir_ctx *ctx, const bench_options *o,
	const char *spec)
{
	stir_compile_options co = { .arch = o->arch };
	for (int fi = 0; fi < o->n_feats; fi++) {
		stir_spmm_map fm = stir_spmm_map_features(o->feats[fi]);
		stir_module *m = NULL;
		stir_gpu_kernel *gk = spmm_kernel(ctx, o->program, NULL, fm, &co, &m);
		if (!gk)
			bench_fail(ctx, "compiling the CSR kernel");
		stir_gpu_kernel_free(gk);
		stir_module_free(m);
		bool all[MAX_CONFIGS];
		stir_gpu_kernel *gks[MAX_CONFIGS];
		stir_module *mods[MAX_CONFIGS];
		stir_ctx *ctxs[MAX_CONFIGS];
		for (int i = 0; i < N_CONFIGS; i++)
			all[i] = true;
		if (compile_candidates(ctx, o, fm, &co, all, gks, mods, ctxs))
			bench_fail(ctx, "compiling a hybrid kernel");
		if ((o->flags & 2) && o->feats[fi] % 32 == 0) {
			/* --srbcrs */
			for (int i = 0; i < N_SRBCRS; i++) {
				stir_gpu_kernel *sk = srbcrs_kernel(ctx, o, i,
					o->feats[fi], &co, NULL, NULL, &m);
				if (!sk)
					bench_fail(ctx, "compiling an SR-BCRS kernel");
				stir_gpu_kernel_free(sk);
				stir_module_free(m);
			}
		}
		for (int i = 0; i < N_CONFIGS; i++) {
			stir_gpu_kernel_free(gks[i]);
			stir_module_free(mods[i]);
			stir_ctx_free(ctxs[i]);
		}
	}
	(void)spec;
}

int main(int argc, char **argv)
{
	static const char *const flags[] = { "--no-csr", "--srbcrs", NULL };
	bench_options o;
	bench_gpu gpu;
	bench_parse_options(argc, argv, "examples/csrmm.stir", flags, true, &o);
	bool no_csr = o.flags & 1, srbcrs = o.flags & 2;
	if (stir_srbcrs_tc_n_candidates() != N_SRBCRS) {
		fprintf(stderr, "bench: the library has %d SR-BCRS candidates, "
			"not the %d this benchmark reports\n",
			stir_srbcrs_tc_n_candidates(), N_SRBCRS);
		return 1;
	}
	name_srbcrs();
	if (N_CONFIGS > MAX_CONFIGS) {
		fprintf(stderr, "bench: the library has %d hybrid candidates, more "
			"than the %d this benchmark can hold\n", N_CONFIGS, MAX_CONFIGS);
		return 1;
	}
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
		stir_bindings *fb[MAX_CONFIGS];
		stir_host_format *fmt[MAX_CONFIGS];
		double build_ms[MAX_CONFIGS];
		for (int i = 0; i < N_CONFIGS; i++) {
			fb[i] = stir_bindings_alloc();
			fmt[i] = NULL;
			build_ms[i] = 0;
			if (!bench_candidate_selected(&o, i))
				continue;
			double t0 = bench_now_ms();
			fmt[i] = stir_csr_to_hybrid_flags(ctx, csr, config(i)->c,
				config(i)->nb, config(i)->buckets, STIR_I32, STIR_F32, "_hyb",
				stir_spmm_hybrid_candidate_format_flags(config(i)),
				fb[i]);
			build_ms[i] = bench_now_ms() - t0;
			if (!fmt[i]) {
				stir_ctx_print_diagnostics(ctx, stderr);
				stir_ctx_clear_diagnostics(ctx);
			}
		}
		for (int fi = 0; fi < o.n_feats; fi++) {
			int64_t feat = o.feats[fi];
			stir_spmm_map fm = stir_spmm_map_features(feat);
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
			r->cusparse_err64 = NAN;
			for (int i = 0; i < N_SRBCRS; i++)
				r->sr_ms[i] = r->sr_err[i] = NAN;
			if (srbcrs) {
				float *ref = malloc((nc ? nc : 1) * sizeof(float));
				if (!ref)
					bench_fail(ctx, "allocating the fp64 reference");
				spmm_f64(&a, bh, feat, ref);
				r->cusparse_err64 = bench_max_rel_diff(want, ref,
					(int64_t)nc);
				for (int i = 0; i < N_SRBCRS; i++)
					time_srbcrs(ctx, &o, i, &co, dev, &a, csr, feat,
						bh, ref, r);
				free(ref);
			}
			/* stir CSR */
			r->csr_ms = NAN;
			r->csr_err = NAN;
			if (!no_csr)
				time_csr(ctx, &o, fm, &co, dev, &a, bh, want, r);
			/* stir hybrid: every candidate, compiled at once, then
			 * timed one after another */
			r->hyb_ms = INFINITY;
			bool built[MAX_CONFIGS];
			stir_gpu_kernel *gks[MAX_CONFIGS];
			stir_module *mods[MAX_CONFIGS];
			stir_ctx *ctxs[MAX_CONFIGS];
			for (int i = 0; i < N_CONFIGS; i++)
				built[i] = fmt[i] != NULL;
			if (compile_candidates(ctx, &o, fm, &co, built, gks, mods,
			    ctxs)) {
				fprintf(stderr, "bench: hybrid candidates fail on %s:\n",
					gname);
				stir_ctx_print_diagnostics(ctx, stderr);
				stir_ctx_clear_diagnostics(ctx);
			}
			/* the rounds (--rounds): in each, every candidate timed
			 * once, on arrays uploaded after the round's spacer
			 * (--shift-kib) */
			r->rounds = o.rounds;
			r->rounds_ms = malloc((size_t)N_CONFIGS * (size_t)o.rounds *
				sizeof(double));
			if (!r->rounds_ms)
				bench_fail(ctx, "allocating the rounds' times");
			for (int i = 0; i < N_CONFIGS * o.rounds; i++)
				r->rounds_ms[i] = -1;
			double errs[MAX_CONFIGS] = { 0 };
			for (int q = 0; q < o.rounds; q++) {
				stir_gpu_buf *spacer = bench_round_spacer(dev, &o, q);
				for (int i = 0; i < N_CONFIGS; i++) {
					if (!gks[i] || (q > 0 && r->rounds_ms[i * o.rounds] < 0))
						continue;  /* null in the search */
					stir_bindings *hb = stir_bindings_copy(fb[i]);
					stir_bindings_set_size(hb, "m", a.m);
					stir_bindings_set_size(hb, "n", a.n);
					stir_bindings_set_size(hb, "feat", feat);
					bench_bind_copy(ctx, hb, "B", STIR_F32, a.n * feat, bh);
					stir_kernel_bind_outputs(stir_module_find_kernel(
						mods[i], "csrmm"), hb);
					double ms;
					if (bench_run_stir(gks[i], dev, hb, "C", want,
					    (int64_t)nc, o.reps, &ms, &errs[i]) == 0)
						r->rounds_ms[i * o.rounds + q] = ms;
					else
						stir_ctx_print_diagnostics(ctx, stderr);
					stir_ctx_clear_diagnostics(ctx);
					stir_bindings_free(hb);
				}
				stir_gpu_buf_free(spacer);
			}
			for (int i = 0; i < N_CONFIGS; i++) {
				double *rms = &r->rounds_ms[i * o.rounds];
				double med[BENCH_MAX_ROUNDS];
				bool timed = gks[i] != NULL;
				for (int q = 0; q < o.rounds; q++) {
					timed = timed && rms[q] >= 0;
					med[q] = rms[q];
				}
				double err = errs[i];
				r->search_ms[i] = -1;
				if (timed) {
					double ms = bench_median(med, o.rounds);
					r->search_ms[i] = ms;
					if (err > 1e-3)
						fprintf(stderr, "bench: %s feat %lld: hybrid candidate "
							"%d differs from cuSPARSE by %g\n", gname,
							(long long)feat, i, err);
					else if (ms < r->hyb_ms) {
						r->hyb_ms = ms;
						r->hyb_err = err;
						r->hyb = *config(i);
						r->build_ms = build_ms[i];
						int64_t slots = 0;
						for (int p = 0; p < stir_host_format_n_parts(fmt[i]); p++)
							slots += stir_host_format_get_part(fmt[i], p)->slots;
						r->padding = a.nnz ? (double)(slots - a.nnz) / a.nnz : 0;
					}
				}
				stir_gpu_kernel_free(gks[i]);
				stir_module_free(mods[i]);
				stir_ctx_free(ctxs[i]);
			}
			char config[64];
			int len = snprintf(config, sizeof(config), "c=%d [", r->hyb.c);
			for (int i = 0; i < r->hyb.nb; i++)
				len += snprintf(config + len, sizeof(config) - (size_t)len,
					"%s%lld", i ? "," : "", (long long)r->hyb.buckets[i]);
			len += snprintf(config + len, sizeof(config) - (size_t)len, "]");
			if (r->hyb.group > 1)
				len += snprintf(config + len, sizeof(config) - (size_t)len,
					" g%d", r->hyb.group);
			if (r->hyb.threads != 256)
				len += snprintf(config + len, sizeof(config) - (size_t)len,
					" %dt", r->hyb.threads);
			if (r->hyb.locality)
				len += snprintf(config + len, sizeof(config) - (size_t)len,
					" lo");
			if (r->hyb.warp_cache)
				len += snprintf(config + len, sizeof(config) - (size_t)len,
					" wc");
			if (r->hyb.serial_lanes)
				len += snprintf(config + len, sizeof(config) - (size_t)len,
					" s%d", r->hyb.serial_lanes);
			if (r->hyb.min_blocks)
				snprintf(config + len, sizeof(config) - (size_t)len, " mb%d",
					r->hyb.min_blocks);
			printf("%-16s %8lld %10lld %5lld | %10.4f %-9s | %10.4f %6.2fx | "
				"%10.4f %6.2fx | %4.0f%% %4.0f%% | %-22s %6.0fms\n", gname,
				(long long)a.m, (long long)a.nnz, (long long)feat,
				r->cusparse_ms, r->cusparse_alg, r->csr_ms,
				r->cusparse_ms / r->csr_ms, r->hyb_ms,
				r->cusparse_ms / r->hyb_ms,
				100 * r->bytes / (r->cusparse_ms * 1e-3) / copy_bw,
				100 * r->bytes / (r->hyb_ms * 1e-3) / copy_bw, config,
				r->build_ms);
			for (int i = 0; srbcrs && i < N_SRBCRS; i++)
				printf("%-16s %8s %10s %5lld | SR-BCRS(16,8) %-13s "
					"%10.4f %6.2fx | err vs fp64: SR-BCRS %.2e "
					"cuSPARSE %.2e\n", gname, "", "", (long long)feat,
					SRBCRS_NAMES[i], r->sr_ms[i],
					r->cusparse_ms / r->sr_ms[i], r->sr_err[i],
					r->cusparse_err64);
			fflush(stdout);
			stir_gpu_buf_free(d_b);
			stir_gpu_buf_free(d_c);
			free(bh);
			free(want);
		}
		for (int i = 0; i < N_CONFIGS; i++) {
			stir_host_format_free(fmt[i]);
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
		"%.3fx) over %d cases", hyb, worst, n_results);
	if (n_csr)
		printf("; stir CSR %.3fx over %d cases", csr, n_csr);
	printf("\n");
	if (srbcrs) {
		double *ss = calloc((size_t)n_results + 1, sizeof(double));
		if (!ss)
			bench_fail(ctx, "allocating the summary");
		for (int k = 0; k < N_SRBCRS; k++) {
			for (int i = 0; i < n_results; i++)
				ss[i] = results[i].cusparse_ms / results[i].sr_ms[k];
			int n_sr;
			double sr = bench_geomean(ss, n_results, &worst, &n_sr);
			printf("# geometric-mean speedup over cuSPARSE: SR-BCRS(16,8) "
				"tf32 %s %.3fx (worst case %.3fx) over %d cases\n",
				SRBCRS_NAMES[k], sr, worst, n_sr);
		}
		free(ss);
	}
	FILE *f = bench_json_begin(ctx, o.json, &gpu);
	for (int i = 0; f && i < n_results; i++)
		json_result(f, &results[i], i == n_results - 1, copy_bw);
	bench_json_end(f);
	free(sh);
	free(sc);
	for (int i = 0; i < n_results; i++)
		free(results[i].rounds_ms);
	free(results);
	bench_finish(&gpu);
	bench_forget_programs();
	stir_ctx_free(ctx);
	return 0;
}
