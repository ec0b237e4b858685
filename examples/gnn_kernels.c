/* The GNN kernels built through the C API: CSR SpMM, hybrid ELL SpMM
 * (decompose_format into hybrid(1, [1, 2, 4, 8, 16, 32]) covering the rows,
 * with SparseTIR's schedule, each part storing its rows of C once) and SDDMM (fused non-zeros, lanes per non-zero, warp
 * shuffles, vector loads), each checked against the unscheduled program
 * run by the stage I interpreter on the same inputs.  The schedules are
 * those of the benchmarks (schedule/recipes/spmm.c, schedule/recipes/sddmm.c).
 *
 * Each kernel runs on the GPU when there is one, and otherwise as its
 * stage III program on the host interpreter (the same scheduled program
 * the GPU would run, threads one after another).
 *
 * usage: gnn_kernels GRAPH.mtx[.gz] [FEATURES]     (FEATURES: default 32)
 * The programs are read from examples/ under $STIR_SRCDIR (default: the
 * current directory, the repository's root).  Exit status 0 when every
 * kernel agrees with stage I. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>

/* What one kernel needs: its program, the sparse tensor the graph gives,
 * the output to compare, and its schedule. */
typedef struct gnn_kernel {
	const char *title;
	const char *program;       /* relative to the source tree */
	const char *kernel;
	const char *sparse;        /* the tensor bound from the graph */
	const char *output;
	bool hybrid;               /* A in hybrid(1, buckets), built here */
} gnn_kernel;

static const int64_t buckets[] = { 1, 2, 4, 8, 16, 32 };
#define N_BUCKETS (int)(sizeof(buckets) / sizeof(buckets[0]))

/* g, k, feat: schedule kernel k of g for "feat" features, to stage III. */
static int schedule(const gnn_kernel *g, stir_kernel *k, int64_t feat)
{
	if (g->hybrid)
		return stir_recipe_spmm_hybrid(k, 1, N_BUCKETS, buckets,
			stir_spmm_map_features(feat));
	if (!strcmp(g->kernel, "csrmm"))
		return stir_recipe_spmm_csr(k, stir_spmm_map_features(feat));
	return stir_recipe_sddmm(k, stir_sddmm_map_features(feat));
}

/* ctx, srcdir, g, graph, feat, dev: build, run and check kernel g; 0 when
 * it agrees with stage I, 1 when not, -1 on an error (diagnostics in
 * ctx). */
static int check_kernel(stir_ctx *ctx, const char *srcdir, const gnn_kernel *g,
	const stir_csr *graph, int64_t feat, stir_device *dev)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", srcdir, g->program);
	stir_module *plain = NULL, *m = stir_module_read_from_file(ctx, path);
	stir_kernel *k = m ? stir_module_find_kernel(m, g->kernel) : NULL;
	/* the unscheduled reference: a copy taken before k is scheduled */
	stir_kernel *k0 = k ? stir_kernel_copy(k, &plain) : NULL;
	stir_bindings *in = stir_bindings_alloc(), *want = NULL, *got = NULL;
	stir_gpu_kernel *gk = NULL;
	stir_host_format *f = NULL;
	int rc = -1;
	if (!k0 || !k || schedule(g, k, feat) < 0)
		goto out;
	/* the inputs: the graph, random dense operands; the hybrid format is
	 * built on the host from the same matrix, its rows in a locality order
	 * (neighbouring rows share columns: more of B from L1 on the GPU) */
	stir_bindings_set_size(in, "feat", feat);
	if (stir_kernel_bind_csr(k0, in, g->sparse, graph) < 0 ||
	    stir_kernel_bind_random(k0, in, 1) < 0 ||
	    stir_kernel_bind_outputs(k0, in) < 0)
		goto out;
	want = stir_bindings_copy(in);
	got = stir_bindings_copy(in);
	if (g->hybrid && !(f = stir_csr_to_hybrid_flags(ctx, graph, 1, N_BUCKETS,
	    buckets, STIR_I32, STIR_F32, "_hyb", stir_spmm_hybrid_format_flags(1) |
	    STIR_HYBRID_LOCALITY_ORDER, got)))
		goto out;
	if (stir_kernel_interpret(k0, want) < 0)
		goto out;
	if (dev) {
		stir_compile_options co = { .device = dev };
		gk = stir_gpu_kernel_compile(k, &co);
		if (!gk || stir_gpu_kernel_run(gk, dev, got, 0, NULL) < 0)
			goto out;
	} else if (stir_kernel_interpret(k, got) < 0) {
		goto out;
	}
	const stir_array *a = stir_bindings_get_array(want, g->output);
	const stir_array *b = stir_bindings_get_array(got, g->output);
	double worst = 0;
	for (int64_t i = 0; i < stir_array_get_len(a); i++)
		worst = fmax(worst, fabs(stir_array_get_double(a, i) -
			stir_array_get_double(b, i)) /
			(1 + fabs(stir_array_get_double(a, i))));
	rc = worst <= 1e-4 ? 0 : 1;
	printf("%-12s %s: max relative difference from stage I %.2g: %s\n",
		g->title, dev ? "on the GPU" : "stage III on the host", worst,
		rc ? "MISMATCH" : "ok");
out:
	stir_gpu_kernel_free(gk);
	stir_host_format_free(f);
	stir_bindings_free(in);
	stir_bindings_free(want);
	stir_bindings_free(got);
	stir_module_free(plain);
	stir_module_free(m);
	return rc;
}

int main(int argc, char **argv)
{
	static const gnn_kernel kernels[] = {
		{ "CSR SpMM", "examples/csrmm.stir", "csrmm", "A", "C", false },
		{ "hybrid SpMM", "examples/csrmm.stir", "csrmm", "A", "C", true },
		{ "SDDMM", "examples/sddmm.stir", "sddmm", "S", "S", false },
	};
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s GRAPH.mtx[.gz] [FEATURES]\n", argv[0]);
		return 2;
	}
	int64_t feat = argc == 3 ? atoll(argv[2]) : 32;
	if (feat < 1) {
		fprintf(stderr, "%s: FEATURES must be a positive integer\n", argv[0]);
		return 2;
	}
	const char *srcdir = getenv("STIR_SRCDIR") ? getenv("STIR_SRCDIR") : ".";
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *graph = stir_mtx_read_from_file(ctx, argv[1]);
	stir_device *dev = graph ? stir_device_alloc(ctx, 0) : NULL;
	if (graph && !dev)
		stir_ctx_clear_diagnostics(ctx);   /* no GPU: the host runs them */
	int rc = graph ? 0 : 1;
	for (size_t i = 0; graph && i < sizeof(kernels) / sizeof(kernels[0]); i++)
		if (check_kernel(ctx, srcdir, &kernels[i], graph, feat, dev) != 0)
			rc = 1;
	stir_ctx_print_diagnostics(ctx, stderr);
	stir_device_free(dev);
	stir_csr_free(graph);
	stir_ctx_free(ctx);
	return rc;
}
