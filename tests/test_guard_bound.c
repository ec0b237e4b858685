/* guard_to_bound (stir_guard_to_bound; docs/schedules.md, "Tensor cores:
 * RGMS"): the tile loop of tests/tensorize/rgms_tc_tstaged_bound.yaml
 * bounded by its pieces' tail guard, the guards made true, the step as
 * the schedule log prints it; and the loops it refuses, with why and
 * where, each leaving the kernel as it was (tests/stages/
 * guard_bound.stage3.stir).  (test_cuda_emu runs the schedule's CUDA
 * against the interpreter.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>
#include "tests/testdiag.h"
#include "tests/testutil.h"

static const char bounded[] = "tests/tensorize/rgms_tc_tstaged_bound.yaml";

/* ctx, m, cut: kernel rgms_agg of a fresh module under bounded's
 * steps, at stage III, up to the line holding "cut"; or (cut NULL) all
 * of them, ready for the GPU. */
static stir_kernel *scheduled(stir_ctx *ctx, stir_module **m, const char *cut)
{
	return test_scheduled(ctx, m, "examples/rgms_agg.stir", "rgms_agg",
		bounded, cut);
}

/* The tile loop runs min(its pieces' share, the tiles left), no guard
 * tests the tiles any more, and the log has the step. */
START_TEST(test_bounded)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = scheduled(ctx, &m, "  - guard_to_bound:");
	stir_kernel_set_schedule_log(k, true);
	ck_assert_int_eq(stir_guard_to_bound(k, "apply1", "i_0_1"), 0);
	char *log = stir_kernel_schedule_to_str(k, NULL);
	ck_assert_ptr_nonnull(log);
	ck_assert_ptr_nonnull(strstr(log, "guard_to_bound: {block: apply1, "
		"loop: i_0_1}"));
	free(log);
	char *t = stir_kernel_to_str(k);
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(strstr(t, "for i_0_1 in [0, min(((I_indptr[vrr + "
		"1] - I_indptr[vrr] + 15) / 16 + 1) / 2, (I_indptr[vrr + 1] - "
		"I_indptr[vrr] + 15) / 16 - i_0_0 * (((I_indptr[vrr + 1] - "
		"I_indptr[vrr] + 15) / 16 + 1) / 2))) {"));
	ck_assert_ptr_nonnull(strstr(t, "if (true) {"));
	ck_assert_ptr_null(strstr(t, "+ i_0_1 < (I_indptr"));
	free(t);
	stir_module_free(m);

	/* the whole file, for the GPU: the bound in the CUDA */
	k = scheduled(ctx, &m, NULL);
	char *cu = stir_kernel_to_cuda(k);
	if (!cu)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "for (int i_0_1 = 0, stir_n0 = min("));
	free(cu);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* kernel "name" of guard_bound.stage3.stir: guard_to_bound of block
 * "block" at loop "loop" fails saying "says", the kernel unchanged. */
static void refused(const char *name, const char *block, const char *loop,
	const char *says)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx,
		test_path("tests/stages/guard_bound.stage3.stir"));
	ck_assert_ptr_nonnull(m);
	stir_kernel *k = stir_module_find_kernel(m, name);
	ck_assert_ptr_nonnull(k);
	char *before = stir_kernel_to_str(k);
	ck_assert_int_eq(stir_guard_to_bound(k, block, loop), -1);
	ck_assert(test_said(ctx, says));
	char *after = stir_kernel_to_str(k);
	ck_assert_str_eq(after, before);
	free(after);
	free(before);
	stir_module_free(m);
	stir_ctx_free(ctx);
}

/* What is refused, where, and why. */
START_TEST(test_refused)
{
	refused("outside", "copy", "t", "12:9: error: guard_to_bound: this "
		"statement in loop 't' is not under its tail guard 'p * ((m + 3) "
		"/ 4) + t < m'");
	refused("written", "count", "t", "21:3: error: guard_to_bound: the tail "
		"guard 't < N_data[0]' of loop 't' reads 'N_data', which the loop "
		"writes");
	refused("inner", "diag", "t", "33:3: error: guard_to_bound: the tail "
		"guard 'u + t < m' of loop 't' uses a variable bound inside the loop");
	refused("inner", "diag", "u", "34:5: error: guard_to_bound: loop 'u' has "
		"no tail guard '... + u < ...' in its body");
	refused("inner", "diag", "w", "36:9: error: guard_to_bound: block 'diag' "
		"has no enclosing loop 'w'");
	refused("warps", "copy", "t", "48:5: error: guard_to_bound: the tail "
		"guard 'w * ((m + 3) / 4) + t < m' of loop 't' differs between "
		"the threads of a block and the loop holds a barrier: they would "
		"pass it a different number of times");
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = scheduled(ctx, &m, "  - guard_to_bound:");
	ck_assert_int_eq(stir_guard_to_bound(k, "apply1", "i_0_0"), -1);
	ck_assert(test_said(ctx, "guard_to_bound: loop 'i_0_0' is bound to "
		"blockIdx.y, not serial"));
	ck_assert_int_eq(stir_guard_to_bound(k, "apply1", "fi_0"), -1);
	ck_assert(test_said(ctx, "guard_to_bound: loop 'fi_0' is unrolled, not "
		"serial"));
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("guard_bound");
	TCase *tc = tcase_create("guard_bound");
	tcase_add_test(tc, test_bounded);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
