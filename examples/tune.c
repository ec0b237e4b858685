/* The tuner from C (include/stir/tune.h): stir_tune picks the schedule of
 * a program a recipe covers (examples/csrmm.stir, sddmm.stir or
 * sddmm_rows.stir) for one graph and feature size -- on the GPU when
 * there is one (the model's best candidates compiled and timed), else the
 * cost model's pick -- and returns it as a schedule file.  The schedule
 * is then applied to the program, its inputs bound (the format the
 * schedule decomposes into built on the host), and the kernel run on the
 * GPU, or without one as its stage III program on the host interpreter,
 * and checked against the unscheduled program.
 *
 * usage: tune PROGRAM GRAPH.mtx[.gz] FEATURES
 * The record is the kernel cache's ($STIR_CACHE_DIR, else ~/.cache/stir):
 * a second call for the same graph is a record hit.  Exit status 0 when
 * the tuned kernel agrees with stage I. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>

/* ctx, k, graph, feat, dev, r: apply r's schedule to a copy of stage I
 * kernel k, run it on graph at feat features (on dev, or on the host
 * when NULL) and compare every tensor with k's own run.  0 when they
 * agree, 1 when not, -1 on an error (diagnostics in ctx). */
static int run_tuned(stir_ctx *ctx, const stir_kernel *k,
	const stir_csr *graph, int64_t feat, stir_device *dev,
	const stir_tune_result *r)
{
	stir_module *cm = NULL;
	stir_kernel *c = stir_kernel_copy(k, &cm);
	stir_schedule *s = stir_schedule_read_from_mem(ctx, "(tuned)",
		r->schedule, r->schedule_len);
	stir_bindings *in = stir_bindings_alloc(), *want = NULL, *got = NULL;
	stir_gpu_kernel *gk = NULL;
	const char *sparse = stir_kernel_get_tune_recipe(k) == STIR_TUNE_SPMM ? "A" :
		"S";
	int rc = -1;
	if (!c || !s || !in || stir_schedule_prepare_for_gpu(s, c) < 0)
		goto out;
	/* the inputs of the unscheduled kernel, then the schedule's format */
	if (stir_bindings_set_size(in, "feat", feat) < 0 ||
	    stir_schedule_bind_sizes(s, in) < 0 ||
	    stir_kernel_bind_csr(k, in, sparse, graph) < 0 ||
	    stir_kernel_bind_random(k, in, 1) < 0 ||
	    stir_kernel_bind_outputs(k, in) < 0)
		goto out;
	want = stir_bindings_copy(in);
	got = stir_bindings_copy(in);
	if (!want || !got || stir_schedule_bind_formats(s, k, got) < 0 ||
	    stir_kernel_interpret(k, want) < 0)
		goto out;
	if (dev) {
		stir_compile_options co = { .device = dev };
		gk = stir_gpu_kernel_compile(c, &co);
		if (!gk || stir_gpu_kernel_run(gk, dev, got, 0, NULL) < 0)
			goto out;
	} else if (stir_kernel_interpret(c, got) < 0) {
		goto out;
	}
	const char *out = sparse[0] == 'A' ? "C" : "S";
	const stir_array *a = stir_bindings_get_array(want, out);
	const stir_array *b = stir_bindings_get_array(got, out);
	double worst = 0;
	for (int64_t i = 0; i < stir_array_get_len(a); i++)
		worst = fmax(worst, fabs(stir_array_get_double(a, i) -
			stir_array_get_double(b, i)) /
			(1 + fabs(stir_array_get_double(a, i))));
	rc = worst <= 1e-4 ? 0 : 1;
	printf("%s %s: max relative difference from stage I %.2g: %s\n",
		stir_kernel_get_name(k), dev ? "on the GPU" : "stage III on the "
		"host", worst, rc ? "MISMATCH" : "ok");
out:
	stir_gpu_kernel_free(gk);
	stir_bindings_free(in);
	stir_bindings_free(want);
	stir_bindings_free(got);
	stir_schedule_free(s);
	stir_module_free(cm);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 4 || atoll(argv[3]) < 1) {
		fprintf(stderr, "usage: %s PROGRAM GRAPH.mtx[.gz] FEATURES\n",
			argv[0]);
		return 2;
	}
	int64_t feat = atoll(argv[3]);
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx, argv[1]);
	stir_kernel *k = m && stir_module_n_kernels(m) == 1 ?
		stir_module_get_kernel(m, 0) : NULL;
	stir_csr *graph = k ? stir_mtx_read_from_file(ctx, argv[2]) : NULL;
	stir_device *dev = graph ? stir_device_alloc(ctx, 0) : NULL;
	if (graph && !dev)
		stir_ctx_clear_diagnostics(ctx);   /* no GPU: the model picks */
	stir_tune_options opt = { .feat = feat, .model_only = !dev,
		.device = dev };
	stir_tune_result r;
	int rc = 1;
	if (m && !k)
		fprintf(stderr, "%s: the program must hold one kernel\n", argv[1]);
	if (graph && stir_tune(ctx, k, graph, &opt, &r) == 0) {
		static const char *const from[] = { "", "the tuning record",
			"the cost model", "the measured search" };
		printf("%s at %lld features: candidate %d from %s (cost %.4g",
			stir_kernel_get_name(k), (long long)feat, r.cand, from[r.from],
			r.cost);
		if (r.time_ms >= 0)
			printf(", %.4f ms", r.time_ms);
		printf(")\n");
		rc = run_tuned(ctx, k, graph, feat, dev, &r) == 0 ? 0 : 1;
		stir_tune_result_clear(&r);
	}
	stir_ctx_print_diagnostics(ctx, stderr);
	stir_device_free(dev);
	stir_csr_free(graph);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}
