/* stirc verify: run a program at every stage (and on the GPU) on seeded
 * random inputs and compare each with stage I. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stir/stir.h>
#include "config.h"
#include "tools/stirc_cmd.h"

/* k, gk, dev, in, worst: run GPU kernel gk against stage I kernel k
 * on a copy of inputs "in" whose outputs start poisoned.  Returns the
 * number of mismatches, or -1 on an error. */
static int verify_gpu(stir_kernel *k, const stir_gpu_kernel *gk,
	stir_device *dev, const stir_bindings *in, double *worst)
{
	stir_bindings *got = stir_bindings_copy(in), *want = NULL;
	int bad = -1;
	if (!got)
		return -1;
	stir_cuda_plan_poison_outputs(stir_gpu_kernel_get_plan(gk), got);
	if (!(want = stir_bindings_copy(got)) ||
	    stir_kernel_interpret(k, want) < 0 ||
	    stir_gpu_kernel_run(gk, dev, got, 0, NULL) < 0)
		goto out;
	double d;
	bad = compare_outputs(k, stir_cuda_plan_get_kernel(
		stir_gpu_kernel_get_plan(gk)), got, want, in, "stage I (vs cuda)",
		&d);
	*worst = fmax(*worst, d);
out:
	stir_bindings_free(got);
	stir_bindings_free(want);
	return bad;
}

/* ctx, k, kn, gk, dev, o, sched, seed, worst: one seed of stirc verify: bind
 * random inputs to stage I kernel k, run it and its lowered (and, with
 * schedule sched, scheduled) forms kn[0..1] (stages II and III) and, when gk
 * is set, GPU kernel gk on dev, and compare.  worst[i] grows to the
 * largest difference of each stage (i = 2: the GPU).  Returns the number
 * of mismatches, or -1 on an error. */
static int verify_seed(stir_ctx *ctx, stir_kernel *k, stir_kernel *const *kn,
	const stir_gpu_kernel *gk, stir_device *dev, const options *o,
	const stir_schedule *sched, uint64_t seed, double *worst)
{
	stir_bindings *in = stir_bindings_alloc(), *want = NULL;
	int bad = -1;
	if (!in)
		return -1;
	if (bind_sizes(in, o, sched) < 0 ||
	    stir_kernel_bind_random(k, in, seed) < 0 ||
	    (sched && stir_schedule_bind_formats(sched, k, in) < 0) ||
	    !(want = stir_bindings_copy(in)) || stir_kernel_interpret(k, want) < 0)
		goto out;
	bad = 0;
	for (int s = 0; s < 2; s++) {
		static const char *const what[] = { "stage I (vs stage II)",
			"stage I (vs stage III)" };
		stir_bindings *got = stir_bindings_copy(in);
		double d;
		if (!got || stir_kernel_interpret(kn[s], got) < 0) {
			stir_bindings_free(got);
			bad = -1;
			goto out;
		}
		bad += compare_outputs(k, kn[s], got, want, in, what[s], &d);
		worst[s] = fmax(worst[s], d);
		stir_bindings_free(got);
	}
	if (gk) {
		int r = verify_gpu(k, gk, dev, in, &worst[2]);
		if (r < 0) {
			bad = -1;
			goto out;
		}
		bad += r;
	}
	if (bad)
		fprintf(stderr, "stirc: kernel '%s' seed %" PRIu64 " mismatches\n",
			stir_kernel_get_name(k), seed);
out:
	stir_bindings_free(in);
	stir_bindings_free(want);
	(void)ctx;
	return bad;
}

/* argc, argv: stirc verify. */
int cmd_verify(int argc, char **argv)
{
	static const int allowed[] = { OPT_KERNEL, OPT_SCHEDULE, OPT_SEED,
		OPT_SEEDS, OPT_SIZE, OPT_BACKEND, OPT_ARCH, OPT_MIN_BLOCKS, 0 };
	options o;
	int rc = parse_options("verify", usage_verify, argc, argv, allowed, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	bool cuda = use_cuda(&o);
	if ((o.arch || o.min_blocks) && !cuda)
		return usage_error("verify ", "%s", "--arch and --min-blocks apply "
			"to --backend cuda only");
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m[4] = { NULL, NULL, NULL, NULL };
	stir_device *dev = NULL;
	stir_schedule *sched = NULL;
	/* with a schedule, every copy stays at stage I: the schedule lowers
	 * its kernel between its sections */
	for (int s = 0; s < 3 && rc == 0; s++)
		m[s] = read_at_stage(ctx, &o, o.schedule ? 1 : s + 1, &rc);
	if (rc == 0 && cuda) {
		/* a copy for the GPU, prepared kernel by kernel */
		m[3] = read_at_stage(ctx, &o, 1, &rc);
		if (rc == 0 && !(dev = stir_device_alloc(ctx, 0)))
			rc = EXIT_WRONG;
	}
	stir_kernel *only = NULL;
	if (rc == 0)
		rc = o.schedule ? load_schedule(ctx, &o, m[0], &sched, &only) :
			select_kernel(m[0], &o, false, &only);
	/* every --size names a size of the kernel verified, or of one of
	 * them when there are several */
	for (int i = 0; rc == 0 && i < o.n_sizes; i++) {
		bool found = false;
		for (int j = 0; j < stir_module_n_kernels(m[0]) && !found; j++) {
			stir_kernel *k = stir_module_get_kernel(m[0], j);
			found = (!only || k == only) && has_param(k, o.sizes[i].name);
		}
		if (!found) {
			if (only)
				fprintf(stderr, "stirc: --size %s=%s: kernel '%s' has no "
					"size parameter '%s'\n", o.sizes[i].name,
					o.sizes[i].value, stir_kernel_get_name(only),
					o.sizes[i].name);
			else
				fprintf(stderr, "stirc: --size %s=%s: no kernel of %s has "
					"a size parameter '%s'\n", o.sizes[i].name,
					o.sizes[i].value, o.file, o.sizes[i].name);
			rc = EXIT_WRONG;
		}
	}
	for (int s = 1; rc == 0 && sched && s < 3; s++)
		if (stir_schedule_apply(sched, same_kernel(m[s], only),
		    (stir_stage)(s + 1)) < 0)
			rc = EXIT_WRONG;
	for (int i = 0; rc == 0 && i < stir_module_n_kernels(m[0]); i++) {
		stir_kernel *k = stir_module_get_kernel(m[0], i);
		if (only && k != only)
			continue;
		stir_kernel *kn[2] = { same_kernel(m[1], k), same_kernel(m[2], k) };
		stir_gpu_kernel *gk = NULL;
		if (cuda && !(gk = compile_for_gpu(same_kernel(m[3], k), &o, sched,
		    dev))) {
			rc = EXIT_WRONG;
			break;
		}
		double worst[3] = { 0, 0, 0 };
		int bad = 0;
		for (int64_t s = 0; s < o.seeds && bad >= 0; s++) {
			int r = verify_seed(ctx, k, kn, gk, dev, &o, sched,
				o.seed + (uint64_t)s, worst);
			bad = r < 0 ? -1 : bad + r;
		}
		stir_gpu_kernel_free(gk);
		if (bad < 0) {
			rc = EXIT_WRONG;
			break;
		}
		printf("%s: %" PRId64 " seed%s from %" PRIu64 ": stage II max |diff| "
			"%g, stage III max |diff| %g", stir_kernel_get_name(k),
			o.seeds, o.seeds == 1 ? "" : "s", o.seed, worst[0], worst[1]);
		if (cuda)
			printf(", cuda max |diff| %g", worst[2]);
		printf(": %s\n", bad ? "MISMATCH" : "ok");
		if (bad)
			rc = EXIT_WRONG;
	}
	rc = finish(ctx, rc);
	stir_device_free(dev);
	stir_schedule_free(sched);
	for (int s = 0; s < 4; s++)
		stir_module_free(m[s]);
	stir_ctx_free(ctx);
	return rc;
}
