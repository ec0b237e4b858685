/* A software pipeline whose copies are waited for a batch of iterations
 * at a time (stir_software_pipeline_batched, the schedule files'
 * "pipeline: {.., batch: U}", the IR's pipeline(S, U); docs/schedules.md
 * "Software pipelines"): the CUDA's steps of a batch, the text read back,
 * the schedule log, and the refusals of a batch out of range by the
 * primitive, the schedule file, the parser and the verifier.  The host
 * emulation of the CUDA against the interpreter is test_cuda_emu's
 * (tests/tensorize/bsrmm_tc_pipe_batch.yaml). */
#include <stir/stir.h>
#include "ir/nodes.h"
#include "ir/visit.h"
#include "tests/testutil.h"
#include "tests/testdiag.h"

#define BATCH_FILE "tests/tensorize/bsrmm_tc_pipe_batch.yaml"

/* ctx, from, to, m: examples/bsrmm.stir's kernel scheduled by BATCH_FILE
 * with its text "from" replaced by "to" (both NULL: as it is), for the
 * GPU; NULL when a step fails.  The kernel's schedule log is on. */
static stir_kernel *batch_kernel(stir_ctx *ctx, const char *from,
	const char *to, stir_module **m)
{
	*m = stir_module_read_from_file(ctx, test_path("examples/bsrmm.stir"));
	ck_assert_ptr_nonnull(*m);
	stir_kernel *k = stir_module_find_kernel(*m, "bsrmm");
	stir_kernel_set_schedule_log(k, true);
	FILE *f = fopen(test_path(BATCH_FILE), "r");
	ck_assert_ptr_nonnull(f);
	char text[8192], out[8192];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	const char *at = from ? strstr(text, from) : NULL;
	ck_assert(!from || at);
	if (at)
		n = (size_t)snprintf(out, sizeof(out), "%.*s%s%s",
			(int)(at - text), text, to, at + strlen(from));
	else
		n = (size_t)snprintf(out, sizeof(out), "%s", text);
	ck_assert_uint_lt(n, sizeof(out));
	stir_schedule *s = stir_schedule_read_from_mem(ctx, BATCH_FILE, out, n);
	ck_assert_ptr_nonnull(s);
	int rc = stir_schedule_prepare_for_gpu(s, k);
	stir_schedule_free(s);
	return rc == 0 ? k : NULL;
}

START_TEST(test_batch_cuda)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = batch_kernel(ctx, NULL, NULL, &m);
	if (!k)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(k);
	char *log = stir_kernel_schedule_to_str(k, NULL);
	ck_assert_ptr_nonnull(strstr(log, "- pipeline: {block: bsrmm1, loop: j, "
		"stages: 4, batch: 2}"));
	free(log);
	char *t = stir_kernel_to_str(k);
	ck_assert_ptr_nonnull(strstr(t, " pipeline(4, 2) {"));
	char *cu = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cu);
	/* the prologue issues 2 iterations, each step the next 2, waits for
	 * its own 2 and runs their products between one pair of barriers;
	 * the last, partial batch guards its second iteration */
	ck_assert_ptr_nonnull(strstr(cu, "for (int stir_p0 = 0; stir_p0 < 2; "
		"++stir_p0) {"));
	ck_assert_ptr_nonnull(strstr(cu, "for (int stir_j0 = 0; stir_j0 < "
		"stir_n0; stir_j0 += 2) {"));
	ck_assert_ptr_nonnull(strstr(cu, "for (int stir_p0 = stir_j0 + 2; "
		"stir_p0 < stir_j0 + 4; ++stir_p0) {"));
	const char *w = strstr(cu, "stir_cp_async_wait_group<2>();");
	ck_assert_ptr_nonnull(w);
	ck_assert_ptr_nonnull(strstr(w, "__syncthreads();\n"));
	const char *full = strstr(w, "if (stir_j0 + 2 <= stir_n0) {");
	ck_assert_ptr_nonnull(full);
	const char *second = strstr(full, "const int j = stir_j0 + 1;");
	const char *tail = strstr(full, "} else {  // the last, partial batch");
	ck_assert(second && tail && second < tail);
	ck_assert_ptr_nonnull(strstr(tail, "if (stir_j0 + 1 < stir_n0)"));
	/* one barrier between the two products of a full batch */
	const char *bar = strstr(full, "__syncthreads();");
	ck_assert(bar && bar > tail);
	free(cu);
	/* the text reads back and prints the same; a batch over half the
	 * stages is an error where it is written */
	test_reads_back(t, "pipeline(4, 2)", "pipeline(4, 3)",
		"error: a pipeline of 4 stages waits for 2 to 2 iterations' copies "
		"together, not 3");
	free(t);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* s, user: stmt_pre: the first pipelined loop into *user. */
static stir_visit_step find_pipeline(stir_stmt *s, void *user)
{
	if (s->kind == STIR_STMT_FOR && s->u.for_.kind == STIR_LOOP_PIPELINE) {
		*(stir_stmt **)user = s;
		return STIR_VISIT_STOP;
	}
	return STIR_VISIT_GO;
}

START_TEST(test_batch_refused)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	/* by the primitive, the kernel left as it was */
	static const struct {
		int64_t stages, batch;
		const char *says;
	} refused[] = {
		{ 4, 3, "a pipeline of 4 stages waits for 2 to 2 iterations' copies "
		  "together, not 3" },
		{ 4, 0, "a pipeline of 4 stages waits for 2 to 2 iterations' copies "
		  "together, not 0" },
		{ 3, 2, "a pipeline of 3 stages waits for 2 to 1 iterations' copies "
		  "together, not 2" },
		{ 9, 2, "a pipeline has 2 to 8 stages, not 9" },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		/* (the schedule up to the pipeline: its step made a comment) */
		stir_kernel *k = batch_kernel(ctx, "  - pipeline:", "  # pipeline:",
			&m);
		ck_assert_ptr_nonnull(k);
		char *before = stir_kernel_to_str(k);
		ck_assert_int_eq(stir_software_pipeline_batched(k, "bsrmm1", "j",
			refused[i].stages, refused[i].batch), -1);
		ck_assert(test_said(ctx, refused[i].says));
		char *after = stir_kernel_to_str(k);
		ck_assert_str_eq(after, before);
		free(after);
		free(before);
		stir_module_free(m);
	}
	/* by the schedule file, at the step */
	ck_assert_ptr_null(batch_kernel(ctx, "stages: 4, batch: 2",
		"stages: 4, batch: 3", &m));
	ck_assert(test_said(ctx, "note: while applying pipeline to block "
		"'bsrmm1'"));
	stir_module_free(m);
	/* by the verifier, for a kernel built otherwise */
	stir_kernel *k = batch_kernel(ctx, NULL, NULL, &m);
	ck_assert_ptr_nonnull(k);
	stir_stmt *l = NULL;
	stir_visitor v = { .stmt_pre = find_pipeline, .user = &l };
	stir_visit_list(&v, &k->body);
	ck_assert_ptr_nonnull(l);
	l->u.for_.batch = 3;
	ck_assert_int_eq(stir_kernel_verify(k), -1);
	ck_assert(test_said(ctx, "loop 'j' is a pipeline of 4 stages waiting "
		"for 3 iterations' copies together; a batch is at most half the "
		"stages"));
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pipeline_batch");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_batch_cuda);
	tcase_add_test(tc, test_batch_refused);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
