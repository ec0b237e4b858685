/* stirc check, print and cuda: read a program, and check it, print it
 * at a stage or after a pass, or print its CUDA (LANGUAGE.md section 7). */
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

/* argc, argv: stirc check. */
int cmd_check(int argc, char **argv)
{
	static const int allowed[] = { OPT_KERNEL, OPT_GPU, OPT_SCHEDULE, 0 };
	options o;
	int rc = parse_options("check", usage_check, argc, argv, allowed, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (o.schedule && !o.gpu)
		return usage_error("check ", "%s", "--schedule applies to --gpu "
			"only");
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx, o.file);
	stir_kernel *k = NULL;
	stir_schedule *s = NULL;
	if (!m)
		rc = EXIT_WRONG;
	else if (o.schedule)
		rc = load_schedule(ctx, &o, m, &s, &k);
	else
		rc = select_kernel(m, &o, false, &k);
	/* --gpu: the kernel chosen, or every kernel, as 'stirc cuda' takes
	 * it, checked by the GPU verifier instead of emitted */
	int n = rc == 0 && o.gpu ? (k ? 1 : stir_module_n_kernels(m)) : 0;
	for (int i = 0; i < n; i++) {
		stir_kernel *g = k ? k : stir_module_get_kernel(m, i);
		if ((s ? stir_schedule_prepare_for_gpu(s, g) :
		    stir_kernel_prepare_for_gpu(g)) < 0 ||
		    stir_kernel_verify_gpu(g) < 0)
			rc = EXIT_WRONG;
	}
	rc = finish(ctx, rc);
	stir_schedule_free(s);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}

/* p, prefix, after: make p stop after pass "after"; when p has no such
 * pass, a usage error that lists the passes it has. */
static int stop_after(stir_pipeline *p, const char *prefix, const char *after)
{
	if (stir_pipeline_set_stop_after(p, after) == 0)
		return 0;
	size_t len = 1;
	for (int i = 0; i < stir_pipeline_n_passes(p); i++)
		len += strlen(stir_pipeline_get_pass_name(p, i)) + 2;
	char *names = malloc(len);
	if (!names) {
		fprintf(stderr, "stirc: out of memory\n");
		return EXIT_WRONG;
	}
	names[0] = '\0';
	for (int i = 0; i < stir_pipeline_n_passes(p); i++) {
		if (i)
			strcat(names, ", ");
		strcat(names, stir_pipeline_get_pass_name(p, i));
	}
	int rc = usage_error(prefix, "--after: unknown pass '%s' (the passes: "
		"%s)", after, names);
	free(names);
	return rc;
}

/* o, m, s, k: print --after: run the GPU pipeline (with schedule s: the
 * schedule's, on its kernel k) up to pass o->after on kernel k (NULL:
 * every kernel of m).  0, EXIT_WRONG or EXIT_USAGE. */
static int run_until_after(const options *o, stir_module *m,
	const stir_schedule *s, stir_kernel *k)
{
	stir_pipeline *p = s ? stir_pipeline_alloc_for_schedule(s, k,
		STIR_STAGE_3, true) : stir_pipeline_alloc_for_gpu();
	int rc = 0;
	if (!p) {
		if (!s)
			fprintf(stderr, "stirc: out of memory\n");
		return EXIT_WRONG;
	}
	if ((rc = stop_after(p, "print ", o->after)) == 0 &&
	    (k ? stir_pipeline_run(p, k) : stir_pipeline_run_module(p, m)) < 0)
		rc = EXIT_WRONG;
	stir_pipeline_free(p);
	return rc;
}

/* argc, argv: stirc print. */
int cmd_print(int argc, char **argv)
{
	static const int allowed[] = { OPT_KERNEL, OPT_STAGE, OPT_SCHEDULE,
		OPT_AFTER, 0 };
	options o;
	int rc = parse_options("print", usage_print, argc, argv, allowed, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (o.after && o.stage)
		return usage_error("print ", "%s", "--after and --stage cannot go "
			"together: --after PASS stops right after PASS");
	if (o.after && !o.schedule) {
		/* a misspelt pass is named before anything is read */
		stir_pipeline *p = stir_pipeline_alloc_for_gpu();
		rc = p ? stop_after(p, "print ", o.after) : EXIT_WRONG;
		stir_pipeline_free(p);
		if (rc)
			return rc;
	}
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = read_at_stage(ctx, &o, o.schedule ? 0 : o.stage, &rc);
	stir_kernel *k = NULL;
	stir_schedule *s = NULL;
	if (rc == 0 && o.schedule) {
		/* the scheduled kernel alone: the others stay as they were */
		rc = load_schedule(ctx, &o, m, &s, &k);
		if (rc == 0 && !o.after && stir_schedule_apply(s, k,
		    schedule_stage(&o, s, k)) < 0)
			rc = EXIT_WRONG;
	} else if (rc == 0) {
		rc = select_kernel(m, &o, false, &k);
	}
	if (rc == 0 && o.after)
		rc = run_until_after(&o, m, s, k);
	if (rc == 0) {
		char *text = k ? stir_kernel_to_str(k) : stir_module_to_str(m);
		if (text)
			fputs(text, stdout);
		else
			rc = EXIT_WRONG;
		free(text);
	}
	rc = finish(ctx, rc);
	stir_schedule_free(s);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}

/* argc, argv: stirc cuda. */
int cmd_cuda(int argc, char **argv)
{
	static const int allowed[] = { OPT_KERNEL, OPT_SCHEDULE, OPT_ARCH,
		OPT_MIN_BLOCKS, OPT_COMPILE, OPT_OUTPUT, 0 };
	options o;
	int rc = parse_options("cuda", usage_cuda, argc, argv, allowed, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (o.arch && !o.compile)
		return usage_error("cuda ", "%s", "--arch applies to --compile "
			"only");
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = read_at_stage(ctx, &o, 0, &rc);
	stir_kernel *k = NULL;
	stir_schedule *s = NULL;
	char *source = NULL;
	if (rc == 0)
		rc = o.schedule ? load_schedule(ctx, &o, m, &s, &k) :
			select_kernel(m, &o, true, &k);
	if (rc == 0 && ((s ? stir_schedule_prepare_for_gpu(s, k) :
	    stir_kernel_prepare_for_gpu(k)) < 0 ||
	    (o.min_blocks && stir_kernel_set_min_blocks_per_sm(k,
	    o.min_blocks) < 0) || !(source = stir_kernel_to_cuda(k))))
		rc = EXIT_WRONG;
	if (rc == 0) {
		FILE *f = o.output ? fopen(o.output, "w") : stdout;
		if (!f) {
			fprintf(stderr, "stirc: cannot write %s: %s\n", o.output,
				strerror(errno));
			rc = EXIT_WRONG;
		} else {
			fputs(source, f);
			if (ferror(f) | (o.output ? fclose(f) : fflush(f))) {
				fprintf(stderr, "stirc: cannot write %s\n",
					o.output ? o.output : "the standard output");
				rc = EXIT_WRONG;
			}
		}
	}
	if (rc == 0 && o.compile) {
		char name[256];
		snprintf(name, sizeof(name), "%s.cu", stir_kernel_get_name(k));
		stir_compile_options co = { .arch = o.arch ? o.arch : "sm_90" };
		stir_gpu_code *code = stir_gpu_code_compile(ctx, name, source, &co);
		if (!code)
			rc = EXIT_WRONG;
		else if (*stir_gpu_code_get_log(code))
			fputs(stir_gpu_code_get_log(code), stderr);
		stir_gpu_code_free(code);
	}
	rc = finish(ctx, rc);
	free(source);
	stir_schedule_free(s);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}
