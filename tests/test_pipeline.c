/* The pipeline object (include/stir/pipeline.h): the registry, the
 * standard pipelines against the passes called one by one, printing and
 * stopping after a pass, the hook, skipped passes, a failing pass and the
 * verifier between passes; and stir_kernel_copy (include/stir/lang.h). */
#include <stir/stir.h>
#include "ir/nodes.h"
#include "tests/testutil.h"

/* ctx: examples/csrmm.stir's kernel, read (its module in *m). */
static stir_kernel *read_csrmm(stir_ctx *ctx, stir_module **m)
{
	*m = stir_module_read_from_file(ctx, test_path("examples/csrmm.stir"));
	ck_assert_ptr_nonnull(*m);
	return stir_module_find_kernel(*m, "csrmm");
}

/* k: k's text (the caller frees it). */
static char *text_of(const stir_kernel *k)
{
	char *t = stir_kernel_to_str(k);
	ck_assert_ptr_nonnull(t);
	return t;
}

START_TEST(test_registry)
{
	ck_assert_int_eq(stir_pass_registry_n_passes(), 8);
	ck_assert_str_eq(stir_pass_registry_get_pass_name(0), "lower_sparse_iter");
	ck_assert_str_eq(stir_pass_registry_get_pass_name(1), "default_schedule");
	ck_assert_str_eq(stir_pass_registry_get_pass_name(2), "lower_sparse_buffer");
	ck_assert_str_eq(stir_pass_registry_get_pass_name(3), "lift_guards");
	ck_assert_str_eq(stir_pass_registry_get_pass_name(4), "hoist_invariants");
	ck_assert_str_eq(stir_pass_registry_get_pass_name(5), "hoist_warp_reads");
	ck_assert_str_eq(stir_pass_registry_get_pass_name(6), "insert_barriers");
	ck_assert_str_eq(stir_pass_registry_get_pass_name(7), "plan_vectors");
	ck_assert_ptr_null(stir_pass_registry_get_pass_name(8));
	stir_pipeline *p = stir_pipeline_alloc();
	ck_assert_int_eq(stir_pipeline_add(p, "lower_sparse_iter"), 0);
	ck_assert_int_eq(stir_pipeline_add(p, "lower_sparse_iter"), -1);
	ck_assert_int_eq(stir_pipeline_add(p, "no_such_pass"), -1);
	ck_assert_int_eq(stir_pipeline_n_passes(p), 1);
	ck_assert_int_eq(stir_pipeline_find_pass(p, "lower_sparse_iter"), 0);
	ck_assert_int_eq(stir_pipeline_find_pass(p, "default_schedule"), -1);
	ck_assert_int_eq(stir_pipeline_set_stop_after(p, "default_schedule"), -1);
	ck_assert_int_eq(stir_pipeline_set_print_after(p, "nope", stderr), -1);
	stir_pipeline_free(p);
	p = stir_pipeline_alloc_for_gpu();
	ck_assert_int_eq(stir_pipeline_n_passes(p), stir_pass_registry_n_passes());
	for (int i = 0; i < stir_pass_registry_n_passes(); i++)
		ck_assert_str_eq(stir_pipeline_get_pass_name(p, i),
			stir_pass_registry_get_pass_name(i));
	stir_pipeline_free(p);
	ck_assert_ptr_null(stir_pipeline_alloc_to_stage((stir_stage)4));
	p = stir_pipeline_alloc_to_stage(STIR_STAGE_2);
	ck_assert_int_eq(stir_pipeline_n_passes(p), 1);
	stir_pipeline_free(p);
}
END_TEST

/* The standard pipelines give what the public passes give, called one
 * by one on a copy. */
START_TEST(test_same_as_passes)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m, *mc, *mg;
	stir_kernel *k = read_csrmm(ctx, &m);
	stir_kernel *c = stir_kernel_copy(k, &mc);
	stir_kernel *g = stir_kernel_copy(k, &mg);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(g);
	stir_pipeline *p = stir_pipeline_alloc_to_stage(STIR_STAGE_3);
	ck_assert_int_eq(stir_pipeline_run(p, k), 0);
	stir_pipeline_free(p);
	ck_assert_int_eq(stir_lower_sparse_iter(c), 0);
	ck_assert_int_eq(stir_lower_sparse_buffer(c), 0);
	char *a = text_of(k), *b = text_of(c);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	/* the GPU pipeline: stir_kernel_prepare_for_gpu runs it */
	ck_assert_int_eq(stir_lower_sparse_iter(c = g), 0);
	ck_assert_int_eq(stir_default_schedule(c), 0);
	ck_assert_int_eq(stir_lower_sparse_buffer(c), 0);
	ck_assert_int_eq(stir_lift_guards(c), 0);
	ck_assert_int_eq(stir_hoist_invariants(c), 0);
	ck_assert_int_eq(stir_insert_barriers(c), 0);
	stir_module_free(m);
	k = read_csrmm(ctx, &m);
	ck_assert_int_eq(stir_kernel_prepare_for_gpu(k), 0);
	a = text_of(k);
	b = text_of(c);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
	stir_module_free(m);
	stir_module_free(mc);
	stir_module_free(mg);
	stir_ctx_free(ctx);
}
END_TEST

/* A hook's record of the passes it saw. */
typedef struct seen {
	char names[256];
	int stop_at;           /* return 1 after this many calls; 0: never */
	int calls;
} seen;

/* pass, k, user: append the pass's name and k's stage to the record. */
static int record(const char *pass, stir_kernel *k, void *user)
{
	seen *s = user;
	size_t n = strlen(s->names);
	snprintf(s->names + n, sizeof(s->names) - n, "%s%s@%d", n ? " " : "",
		pass, (int)stir_kernel_get_stage(k));
	return ++s->calls == s->stop_at ? 1 : 0;
}

START_TEST(test_print_and_stop_after)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m, *mc;
	stir_kernel *k = read_csrmm(ctx, &m);
	stir_kernel *c = stir_kernel_copy(k, &mc);
	ck_assert_int_eq(stir_lower_sparse_iter(c), 0);
	char *stage2 = text_of(c);
	FILE *f = tmpfile();
	stir_pipeline *p = stir_pipeline_alloc_for_gpu();
	seen s = { .stop_at = 0 };
	stir_pipeline_set_hook(p, record, &s);
	ck_assert_int_eq(stir_pipeline_set_print_after(p, "lower_sparse_iter",
		f), 0);
	ck_assert_int_eq(stir_pipeline_set_stop_after(p, "default_schedule"), 0);
	ck_assert_int_eq(stir_pipeline_run(p, k), 0);
	ck_assert_str_eq(s.names, "lower_sparse_iter@2 default_schedule@2");
	/* stopped after default_schedule: stage II, its nests bound */
	ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_2);
	char *t = text_of(k);
	ck_assert_ptr_nonnull(strstr(t, "bind(threadIdx.x)"));
	free(t);
	/* the print after lower_sparse_iter: a heading, then the kernel */
	long len = ftell(f);
	char *got = calloc(1, (size_t)len + 1);
	rewind(f);
	ck_assert_int_eq(fread(got, 1, (size_t)len, f), len);
	const char *head = "// after lower_sparse_iter\n";
	ck_assert_int_eq(strncmp(got, head, strlen(head)), 0);
	ck_assert_str_eq(got + strlen(head), stage2);
	free(got);
	fclose(f);
	free(stage2);
	stir_pipeline_free(p);
	stir_module_free(mc);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* A stage III kernel goes through the GPU pipeline unchanged: every
 * lowering pass skipped, insert_barriers finding no shared buffer, the
 * hook still told; a hook returning 1 ends the run. */
START_TEST(test_skip_and_hook_stop)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_csrmm(ctx, &m);
	stir_pipeline *p = stir_pipeline_alloc_to_stage(STIR_STAGE_3);
	ck_assert_int_eq(stir_pipeline_run(p, k), 0);
	stir_pipeline_free(p);
	char *before = text_of(k);
	p = stir_pipeline_alloc_for_gpu();
	seen s = { .stop_at = 0 };
	stir_pipeline_set_hook(p, record, &s);
	ck_assert_int_eq(stir_pipeline_run(p, k), 0);
	ck_assert_str_eq(s.names, "lower_sparse_iter@3 default_schedule@3 "
		"lower_sparse_buffer@3 lift_guards@3 hoist_invariants@3 "
		"hoist_warp_reads@3 insert_barriers@3 plan_vectors@3");
	char *after = text_of(k);
	ck_assert_str_eq(before, after);
	free(after);
	free(before);
	stir_module_free(m);
	k = read_csrmm(ctx, &m);
	s = (seen){ .stop_at = 1 };
	ck_assert_int_eq(stir_pipeline_run(p, k), 0);
	ck_assert_str_eq(s.names, "lower_sparse_iter@2");
	ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_2);
	stir_pipeline_free(p);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* k, arg: a pass that refuses, with an error. */
static int refuse(stir_kernel *k, void *arg)
{
	stir_ctx_report(stir_module_get_ctx(stir_kernel_get_module(k)),
		STIR_ERROR, (stir_loc){ 0, 0, 0 }, "%s", (const char *)arg);
	return -1;
}

/* k, arg: a pass that breaks the kernel without saying so: a stage I
 * kernel that claims to be at stage III. */
static int corrupt(stir_kernel *k, void *arg)
{
	(void)arg;
	k->stage = STIR_STAGE_3;
	return 0;
}

START_TEST(test_failures)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_csrmm(ctx, &m);
	stir_pipeline *p = stir_pipeline_alloc();
	seen s = { .stop_at = 0 };
	stir_pipeline_set_hook(p, record, &s);
	ck_assert_int_eq(stir_pipeline_add_pass(p, "refuse", STIR_STAGE_1, 0,
		refuse, "refused"), 0);
	ck_assert_int_eq(stir_pipeline_add_pass(p, "refuse", 0, 0, refuse,
		"twice"), -1);
	ck_assert_int_eq(stir_pipeline_add(p, "lower_sparse_iter"), 0);
	ck_assert_int_eq(stir_pipeline_run(p, k), -1);
	ck_assert_str_eq(s.names, "");
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_str_eq(stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 0)),
		"refused");
	ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_1);
	stir_pipeline_free(p);
	/* a pass at another stage is skipped: it never refuses */
	p = stir_pipeline_alloc();
	ck_assert_int_eq(stir_pipeline_add_pass(p, "refuse", STIR_STAGE_2, 0,
		refuse, "refused"), 0);
	ck_assert_int_eq(stir_pipeline_run(p, k), 0);
	stir_pipeline_free(p);
	/* the verifier runs after a pass that does not verify itself: the
	 * broken kernel is caught before the next pass */
	p = stir_pipeline_alloc();
	s = (seen){ .stop_at = 0 };
	stir_pipeline_set_hook(p, record, &s);
	ck_assert_int_eq(stir_pipeline_add_pass(p, "corrupt", 0, 0, corrupt,
		NULL), 0);
	ck_assert_int_eq(stir_pipeline_add(p, "lower_sparse_buffer"), 0);
	int errors = stir_ctx_n_errors(ctx);
	ck_assert_int_eq(stir_pipeline_run(p, k), -1);
	ck_assert_int_gt(stir_ctx_n_errors(ctx), errors);
	ck_assert_str_eq(s.names, "");
	stir_pipeline_free(p);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* The public lowering passes (passes/pipeline.c, stir_lowering_run):
 * a kernel at another stage is refused with a message naming the pass and
 * left as it was, a NULL kernel is refused, and the module forms lower
 * only the kernels at their stage. */
START_TEST(test_lowering_stage_refused)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_csrmm(ctx, &m);
	char *before = text_of(k);
	ck_assert_int_eq(stir_lower_sparse_buffer(k), -1);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_str_eq(stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 0)),
		"lower_sparse_buffer: kernel 'csrmm' is at stage 1, not stage 2");
	char *after = text_of(k);
	ck_assert_str_eq(after, before);
	free(after);
	ck_assert_int_eq(stir_lower_sparse_iter(NULL), -1);
	ck_assert_int_eq(stir_lower_sparse_buffer(NULL), -1);
	/* no stage II kernel: nothing to do */
	ck_assert_int_eq(stir_module_lower_sparse_buffer(m), 0);
	ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_1);
	ck_assert_int_eq(stir_module_lower_sparse_iter(m), 0);
	ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_2);
	ck_assert_int_eq(stir_lower_sparse_iter(k), -1);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 2);
	ck_assert_str_eq(stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 1)),
		"lower_sparse_iter: kernel 'csrmm' is at stage 2, not stage 1");
	ck_assert_int_eq(stir_module_lower_sparse_buffer(m), 0);
	ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_3);
	free(before);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* The schedule's pipeline: its passes, and a kernel past its steps. */
START_TEST(test_schedule_pipeline)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_csrmm(ctx, &m);
	stir_schedule *s = stir_schedule_read_from_file(ctx,
		test_path("examples/csrmm.yaml"));
	ck_assert_ptr_nonnull(s);
	static const char *const names[] = { "format", "stage1",
		"lower_sparse_iter", "stage2.1", "stage2.2", "stage2.3", "stage2.4",
		"stage2.5", "stage2.6", "stage2", "lower_sparse_buffer", "stage3",
		"default_schedule", "lift_guards", "hoist_invariants",
		"hoist_warp_reads", "insert_barriers", "plan_vectors" };
	stir_pipeline *p = stir_pipeline_alloc_for_schedule(s, k, STIR_STAGE_3,
		true);
	ck_assert_int_eq(stir_pipeline_n_passes(p), 18);
	for (int i = 0; i < 18; i++)
		ck_assert_str_eq(stir_pipeline_get_pass_name(p, i), names[i]);
	stir_pipeline_free(p);
	/* stopped after the third step: the kernel of a schedule of those
	 * three steps alone */
	stir_module *m3;
	stir_kernel *k3 = stir_kernel_copy(k, &m3);
	p = stir_pipeline_alloc_for_schedule(s, k3, STIR_STAGE_2, false);
	ck_assert_int_eq(stir_pipeline_n_passes(p), 10);
	ck_assert_int_eq(stir_pipeline_set_stop_after(p, "stage2.3"), 0);
	ck_assert_int_eq(stir_pipeline_run(p, k3), 0);
	stir_pipeline_free(p);
	static const char three[] = "kernel: csrmm\nstage2:\n"
		"  - reorder: {block: csrmm1, loops: [k, j]}\n"
		"  - split: {block: csrmm1, loop: i, factors: [null, 8]}\n"
		"  - bind: {block: csrmm1, loop: i_0, to: blockIdx.x}\n";
	stir_schedule *s3 = stir_schedule_read_from_mem(ctx, "three.yaml", three,
		strlen(three));
	ck_assert_ptr_nonnull(s3);
	stir_module *mw;
	stir_kernel *want = stir_kernel_copy(k, &mw);
	ck_assert_int_eq(stir_schedule_apply(s3, want, STIR_STAGE_2), 0);
	char *a = text_of(k3), *b = text_of(want);
	ck_assert_str_eq(a, b);
	ck_assert_ptr_nonnull(strstr(a, "bind(blockIdx.x)"));
	free(a);
	free(b);
	stir_schedule_free(s3);
	stir_module_free(mw);
	stir_module_free(m3);
	p = stir_pipeline_alloc_for_schedule(s, k, STIR_STAGE_2, false);
	ck_assert_int_eq(stir_pipeline_run(p, k), 0);
	stir_pipeline_free(p);
	/* stage2 steps on a kernel at stage III: refused at the first step */
	p = stir_pipeline_alloc_to_stage(STIR_STAGE_3);
	ck_assert_int_eq(stir_pipeline_run(p, k), 0);
	stir_pipeline_free(p);
	ck_assert_ptr_null(stir_pipeline_alloc_for_schedule(s, k, STIR_STAGE_3,
		true));
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	const stir_diag *d = stir_ctx_get_diagnostic(ctx, 0);
	ck_assert_str_eq(stir_diag_get_message(d), "the steps of stage2 apply "
		"to a stage 2 kernel, but kernel 'csrmm' is at stage 3");
	ck_assert_int_eq(stir_diag_get_loc(d).line, 7);
	stir_schedule_free(s);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* stir_kernel_copy: a deep copy in a module of its own; changing one
 * leaves the other as it was; a scheduled stage III kernel copies to the
 * same text and the same CUDA. */
START_TEST(test_kernel_copy)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m, *mc, *mc2;
	stir_kernel *k = read_csrmm(ctx, &m);
	ck_assert_ptr_null(stir_kernel_copy(NULL, &mc));
	ck_assert_ptr_null(mc);
	char *orig = text_of(k);
	stir_kernel *c = stir_kernel_copy(k, &mc);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_ne(mc, m);
	ck_assert_ptr_eq(stir_kernel_get_module(c), mc);
	ck_assert_int_eq(stir_module_n_kernels(mc), 1);
	ck_assert_int_eq(stir_module_n_kernels(m), 1);
	char *t = text_of(c);
	ck_assert_str_eq(t, orig);
	free(t);
	ck_assert_str_eq(c->loc.file, k->loc.file);
	ck_assert_int_eq(c->loc.line, k->loc.line);
	ck_assert_int_eq(stir_kernel_prepare_for_gpu(c), 0);
	t = text_of(k);
	ck_assert_str_eq(t, orig);
	free(t);
	/* a scheduled stage III kernel */
	stir_schedule *s = stir_schedule_read_from_file(ctx,
		test_path("examples/csrmm_hyb.yaml"));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_schedule_prepare_for_gpu(s, k), 0);
	stir_kernel *c2 = stir_kernel_copy(k, &mc2);
	ck_assert_ptr_nonnull(c2);
	char *a = text_of(k), *b = text_of(c2);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	a = stir_kernel_to_cuda(k);
	b = stir_kernel_to_cuda(c2);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
	stir_schedule_free(s);
	free(orig);
	stir_module_free(m);
	stir_module_free(mc);
	stir_module_free(mc2);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pipeline");
	TCase *tc = tcase_create("pipeline");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_registry);
	tcase_add_test(tc, test_same_as_passes);
	tcase_add_test(tc, test_print_and_stop_after);
	tcase_add_test(tc, test_skip_and_hook_stop);
	tcase_add_test(tc, test_failures);
	tcase_add_test(tc, test_lowering_stage_refused);
	tcase_add_test(tc, test_schedule_pipeline);
	tcase_add_test(tc, test_kernel_copy);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
