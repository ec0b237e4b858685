/* BSR SpMM on tensor cores through the C API: examples/bsrmm.stir (16x16
 * blocks of f16, f32 sums) under a tensor-core schedule file (default
 * examples/bsrmm_tc16.yaml: each block times a 16x8 tile of B is one
 * mma.sync m16n8k16), on a random block-sparse A and a random B (seeded),
 * checked against the unscheduled program run by the stage I interpreter
 * on the same inputs.  The kernel runs on the GPU when there is one (with
 * its time), and otherwise as its stage III program on the host, where the
 * interpreter runs each tensorized nest as its loops.
 *
 * usage: bsrmm_tc [BLOCK_ROWS [BLOCK_COLS [FEATURES [SCHEDULE.yaml]]]]
 *        (defaults 32, 32, the features the schedule specializes (else
 *        64), examples/bsrmm_tc16.yaml, which specializes 64)
 * Files are read under $STIR_SRCDIR (default: the current directory, the
 * repository's root).  Exit status 0 when the kernel agrees with stage I,
 * 1 when not or on an error, 2 on bad arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stir/stir.h>

/* s, out: parse a size from 1 to 65536 into *out; false when s is not
 * one. */
static bool parse_size(const char *s, int64_t *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || v < 1 || v > 65536)
		return false;
	*out = v;
	return true;
}

/* ctx, k, s, dev, sizes: schedule a copy of k (stage I) with s, run it on
 * random inputs of sizes (block rows, block columns, features: 0 for the
 * schedule's) on dev (NULL: the host) and compare C with stage I.  0 when
 * it agrees, 1 when not, -1 on an error (diagnostics in ctx). */
static int check(stir_ctx *ctx, const stir_kernel *k, const stir_schedule *s,
	stir_device *dev, const int64_t sizes[3])
{
	stir_module *owner = NULL;
	stir_kernel *ks = stir_kernel_copy(k, &owner);
	stir_bindings *in = stir_bindings_alloc(), *want = NULL, *got = NULL;
	stir_gpu_kernel *gk = NULL;
	double ms = 0;
	int rc = -1;
	if (!ks || stir_schedule_prepare_for_gpu(s, ks) < 0)
		goto out;
	/* a schedule that specializes the features fixes them */
	int64_t feat;
	if (stir_schedule_bind_sizes(s, in) < 0)
		goto out;
	if (!stir_bindings_get_size(in, "feat", &feat))
		feat = sizes[2] ? sizes[2] : 64;
	else if (sizes[2] && sizes[2] != feat) {
		fprintf(stderr, "bsrmm_tc: the schedule specializes the features "
			"to %lld, not %lld\n", (long long)feat, (long long)sizes[2]);
		goto out;
	}
	stir_bindings_set_size(in, "mb", sizes[0]);
	stir_bindings_set_size(in, "nb", sizes[1]);
	stir_bindings_set_size(in, "feat", feat);
	if (stir_kernel_bind_random(k, in, 1) < 0 ||
	    stir_kernel_bind_outputs(k, in) < 0 ||
	    !(want = stir_bindings_copy(in)) || !(got = stir_bindings_copy(in)) ||
	    stir_kernel_interpret(k, want) < 0)
		goto out;
	if (dev) {
		stir_compile_options co = { .device = dev };
		gk = stir_gpu_kernel_compile(ks, &co);
		if (!gk || stir_gpu_kernel_run(gk, dev, got, STIR_GPU_RUN_TIME,
		    &ms) < 0)
			goto out;
	} else if (stir_kernel_interpret(ks, got) < 0) {
		goto out;
	}
	const stir_array *a = stir_bindings_get_array(want, "C");
	const stir_array *b = stir_bindings_get_array(got, "C");
	double worst = 0;
	for (int64_t i = 0; i < stir_array_get_len(a); i++)
		worst = fmax(worst, fabs(stir_array_get_double(a, i) -
			stir_array_get_double(b, i)) /
			(1 + fabs(stir_array_get_double(a, i))));
	/* the f32 sums, added in another order: the kernel's tolerance */
	rc = worst <= stir_kernel_get_tolerance(ks, stir_array_get_dtype(a)) ?
		0 : 1;
	int64_t nnzb = 0;
	stir_bindings_get_size(in, "nnzb", &nnzb);
	printf("bsrmm, %lld x %lld blocks of 16 (%lld stored), %lld features: ",
		(long long)sizes[0], (long long)sizes[1], (long long)nnzb,
		(long long)feat);
	if (dev)
		printf("%.4f ms on the GPU (one run, with the copies), ", ms);
	else
		printf("stage III on the host, ");
	printf("max relative difference from stage I %.2g: %s\n", worst,
		rc ? "MISMATCH" : "ok");
out:
	stir_gpu_kernel_free(gk);
	stir_bindings_free(in);
	stir_bindings_free(want);
	stir_bindings_free(got);
	stir_module_free(owner);
	return rc;
}

int main(int argc, char **argv)
{
	/* block rows, block columns, features (0: the schedule's, or 64) */
	int64_t sizes[3] = { 32, 32, 0 };
	if (argc > 5) {
		fprintf(stderr, "usage: %s [BLOCK_ROWS [BLOCK_COLS [FEATURES "
			"[SCHEDULE.yaml]]]]\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc && i < 4; i++)
		if (!parse_size(argv[i], &sizes[i - 1])) {
			fprintf(stderr, "%s: '%s' is not a size from 1 to 65536\n",
				argv[0], argv[i]);
			return 2;
		}
	const char *srcdir = getenv("STIR_SRCDIR") ? getenv("STIR_SRCDIR") : ".";
	char prog[4096], sched[4096];
	snprintf(prog, sizeof(prog), "%s/examples/bsrmm.stir", srcdir);
	if (argc == 5)
		snprintf(sched, sizeof(sched), "%s", argv[4]);
	else
		snprintf(sched, sizeof(sched), "%s/examples/bsrmm_tc16.yaml", srcdir);
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx, prog);
	stir_schedule *s = m ? stir_schedule_read_from_file(ctx, sched) : NULL;
	stir_kernel *k = s ? stir_schedule_find_kernel(s, m) : NULL;
	stir_device *dev = k ? stir_device_alloc(ctx, 0) : NULL;
	if (k && !dev)
		stir_ctx_clear_diagnostics(ctx);   /* no GPU: the host runs it */
	int rc = k && check(ctx, k, s, dev, sizes) == 0 ? 0 : 1;
	stir_ctx_print_diagnostics(ctx, stderr);
	stir_device_free(dev);
	stir_schedule_free(s);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}
