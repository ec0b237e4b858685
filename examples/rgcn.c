/* Two-layer RGCN inference through the C API: each layer is
 * examples/rgcn_layer.stir (RGMS in the aggregated order plus the
 * self-loop transform X W0, then ReLU after the first layer) scheduled by
 * examples/rgcn_layer.yaml, on a relational graph read from a .hetero file
 * (docs/formats.md).  Random input features and weights (seeded); the
 * second layer takes the first layer's output as computed by the scheduled
 * kernel.  Each layer is checked against the unscheduled program run by the
 * stage I interpreter on the same inputs.
 *
 * Each layer runs on the GPU when there is one (with its time), and
 * otherwise as its stage III program on the host interpreter.
 *
 * usage: rgcn GRAPH.hetero[.gz] [FEATURES [HIDDEN [CLASSES]]]
 *        (defaults 16, 16, 4)
 * The program and schedule are read from examples/ under $STIR_SRCDIR
 * (default: the current directory, the repository's root).  Exit status
 * 0 when both layers agree with stage I, 1 when not or on an error, 2 on
 * bad arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stir/stir.h>

/* What stays the same from one layer to the next. */
typedef struct rgcn {
	stir_ctx *ctx;
	const stir_kernel *layer;     /* rgcn_layer at stage I */
	const stir_schedule *sched;   /* examples/rgcn_layer.yaml */
	const stir_hetero *graph;
	stir_device *dev;             /* NULL: the host interpreter */
} rgcn;

/* g, x, fin, fout, relu, seed: run one layer on features x (NULL: random
 * ones, fin wide) with random weights from "seed"; return its output Y
 * (m x fout, as the scheduled kernel computed it) after checking it
 * against stage I, or NULL on an error or a mismatch (*mismatch set). */
static stir_array *run_layer(const rgcn *g, const stir_array *x, int64_t fin,
	int64_t fout, int relu, uint64_t seed, bool *mismatch)
{
	stir_module *owner = NULL;
	stir_kernel *k = stir_kernel_copy(g->layer, &owner);
	stir_bindings *in = stir_bindings_alloc(), *want = NULL, *got = NULL;
	stir_gpu_kernel *gk = NULL;
	stir_array *y = NULL;
	double ms = 0;
	if (!k || stir_schedule_prepare_for_gpu(g->sched, k) < 0)
		goto out;
	stir_bindings_set_size(in, "fin", fin);
	stir_bindings_set_size(in, "fout", fout);
	stir_bindings_set_size(in, "relu", relu);
	if (stir_kernel_bind_hetero(g->layer, in, "A", g->graph) < 0 ||
	    (x && stir_kernel_bind_array(g->layer, in, "X",
	    stir_array_copy(g->ctx, x)) < 0) ||
	    stir_kernel_bind_random(g->layer, in, seed) < 0 ||
	    stir_kernel_bind_outputs(g->layer, in) < 0)
		goto out;
	want = stir_bindings_copy(in);
	got = stir_bindings_copy(in);
	if (!want || !got || stir_kernel_interpret(g->layer, want) < 0)
		goto out;
	if (g->dev) {
		stir_compile_options co = { .device = g->dev };
		gk = stir_gpu_kernel_compile(k, &co);
		if (!gk || stir_gpu_kernel_run(gk, g->dev, got, STIR_GPU_RUN_TIME,
		    &ms) < 0)
			goto out;
	} else if (stir_kernel_interpret(k, got) < 0) {
		goto out;
	}
	const stir_array *a = stir_bindings_get_array(want, "Y");
	const stir_array *b = stir_bindings_get_array(got, "Y");
	double worst = 0;
	for (int64_t i = 0; i < stir_array_get_len(a); i++)
		worst = fmax(worst, fabs(stir_array_get_double(a, i) -
			stir_array_get_double(b, i)) /
			(1 + fabs(stir_array_get_double(a, i))));
	*mismatch = !(worst <= 1e-4);
	printf("layer %d -> %d%s: ", (int)fin, (int)fout, relu ? ", ReLU" : "");
	if (g->dev)
		printf("%.4f ms on the GPU (one run, with the copies), ", ms);
	else
		printf("stage III on the host, ");
	printf("max relative difference from stage I %.2g: %s\n", worst,
		*mismatch ? "MISMATCH" : "ok");
	if (!*mismatch)
		y = stir_array_copy(g->ctx, b);
out:
	stir_gpu_kernel_free(gk);
	stir_bindings_free(in);
	stir_bindings_free(want);
	stir_bindings_free(got);
	stir_module_free(owner);
	return y;
}

/* s, out: parse a positive size from s into *out; false when it is not. */
static bool parse_size(const char *s, int64_t *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || v < 1 || v > 4096)
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	int64_t sizes[3] = { 16, 16, 4 };   /* features, hidden, classes */
	if (argc < 2 || argc > 5) {
		fprintf(stderr, "usage: %s GRAPH.hetero[.gz] [FEATURES [HIDDEN "
			"[CLASSES]]]\n", argv[0]);
		return 2;
	}
	for (int i = 2; i < argc; i++)
		if (!parse_size(argv[i], &sizes[i - 2])) {
			fprintf(stderr, "%s: '%s' is not a size from 1 to 4096\n",
				argv[0], argv[i]);
			return 2;
		}
	const char *srcdir = getenv("STIR_SRCDIR") ? getenv("STIR_SRCDIR") : ".";
	char prog[4096], sched[4096];
	snprintf(prog, sizeof(prog), "%s/examples/rgcn_layer.stir", srcdir);
	snprintf(sched, sizeof(sched), "%s/examples/rgcn_layer.yaml", srcdir);
	stir_ctx *ctx = stir_ctx_alloc();
	stir_hetero *graph = stir_hetero_read_from_file(ctx, argv[1]);
	stir_module *m = graph ? stir_module_read_from_file(ctx, prog) : NULL;
	stir_schedule *s = m ? stir_schedule_read_from_file(ctx, sched) : NULL;
	stir_kernel *k = s ? stir_schedule_find_kernel(s, m) : NULL;
	stir_device *dev = k ? stir_device_alloc(ctx, 0) : NULL;
	if (k && !dev)
		stir_ctx_clear_diagnostics(ctx);   /* no GPU: the host runs it */
	int rc = 1;
	if (k) {
		rgcn g = { ctx, k, s, graph, dev };
		bool mismatch = false;
		stir_array *h = run_layer(&g, NULL, sizes[0], sizes[1], 1, 1,
			&mismatch);
		stir_array *out = h ? run_layer(&g, h, sizes[1], sizes[2], 0, 2,
			&mismatch) : NULL;
		if (out) {
			/* the predicted class of each node: its largest output */
			int64_t nodes = stir_array_get_len(out) / sizes[2];
			int64_t count[4096] = { 0 };
			for (int64_t v = 0; v < nodes; v++) {
				int64_t best = 0;
				for (int64_t c = 1; c < sizes[2]; c++)
					if (stir_array_get_double(out, v * sizes[2] + c) >
					    stir_array_get_double(out, v * sizes[2] + best))
						best = c;
				count[best]++;
			}
			printf("%lld nodes; nodes per predicted class:",
				(long long)nodes);
			for (int64_t c = 0; c < sizes[2]; c++)
				printf(" %lld", (long long)count[c]);
			printf("\n");
			rc = 0;
		}
		stir_array_free(h);
		stir_array_free(out);
	}
	stir_ctx_print_diagnostics(ctx, stderr);
	stir_device_free(dev);
	stir_schedule_free(s);
	stir_module_free(m);
	stir_hetero_free(graph);
	stir_ctx_free(ctx);
	return rc;
}
