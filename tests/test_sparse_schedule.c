/* The stage I schedules sparse_reorder and sparse_fuse: legal requests
 * keep what the program computes (checked on random inputs at every
 * stage), illegal ones are diagnostics that leave the kernel untouched. */
#include <stir/stir.h>
#include "tests/testutil.h"

/* The catalogue program "file" read fresh. */
typedef struct loaded {
	stir_ctx *ctx;
	stir_module *m;
	stir_kernel *k;
} loaded;

static loaded load(const char *file)
{
	loaded l = { stir_ctx_alloc(), NULL, NULL };
	l.m = stir_module_read_from_file(l.ctx, test_path(file));
	ck_assert_ptr_nonnull(l.m);
	l.k = stir_module_get_kernel(l.m, 0);
	return l;
}

static void unload(loaded *l)
{
	stir_module_free(l->m);
	stir_ctx_free(l->ctx);
}

/* l, in, stage: run l's kernel lowered to "stage" on a copy of in. */
static stir_bindings *run(loaded *l, const stir_bindings *in, int stage)
{
	if (stage >= 2 && stir_kernel_get_stage(l->k) < 2)
		ck_assert_int_eq(stir_module_lower_sparse_iter(l->m), 0);
	if (stage >= 3 && stir_kernel_get_stage(l->k) < 3)
		ck_assert_int_eq(stir_module_lower_sparse_buffer(l->m), 0);
	stir_bindings *b = stir_bindings_copy(in);
	ck_assert_int_eq(stir_kernel_interpret(l->k, b), 0);
	return b;
}

/* a, b, name: arrays "name" of two bindings are equal within 1e-5. */
static void expect_same(stir_bindings *a, stir_bindings *b, const char *name)
{
	stir_array *x = stir_bindings_get_array(a, name);
	stir_array *y = stir_bindings_get_array(b, name);
	ck_assert_int_eq(stir_array_get_len(x), stir_array_get_len(y));
	for (int64_t i = 0; i < stir_array_get_len(x); i++) {
		double u = stir_array_get_double(x, i), v = stir_array_get_double(y, i);
		ck_assert_msg(u - v < 1e-5 && v - u < 1e-5, "%s[%lld]: %g vs %g",
			name, (long long)i, u, v);
	}
}

/* file, out, apply: the program scheduled by "apply" computes "out" as
 * the unscheduled one does, at stages I, II and III, on several seeds. */
static void expect_equivalent(const char *file, const char *out,
	void (*apply)(stir_kernel *))
{
	for (uint64_t seed = 1; seed <= 8; seed++) {
		loaded plain = load(file);
		stir_bindings *in = stir_bindings_alloc();
		ck_assert_int_eq(stir_kernel_bind_random(plain.k, in, seed), 0);
		stir_bindings *want = run(&plain, in, 1);
		for (int stage = 1; stage <= 3; stage++) {
			loaded sched = load(file);
			apply(sched.k);
			stir_bindings *got = run(&sched, in, stage);
			expect_same(got, want, out);
			stir_bindings_free(got);
			unload(&sched);
		}
		stir_bindings_free(want);
		stir_bindings_free(in);
		unload(&plain);
	}
}

static void fuse_csrmm(stir_kernel *k)
{
	const char *ij[] = { "i", "j" };
	ck_assert_int_eq(stir_sparse_fuse(k, "csrmm", 2, ij), 0);
}

static void reorder_bsrmm(stir_kernel *k)
{
	const char *order[] = { "i", "j", "bi", "f", "bj" };
	ck_assert_int_eq(stir_sparse_reorder(k, "bsrmm", 5, order), 0);
}

static void reorder_csrmm(stir_kernel *k)
{
	const char *order[] = { "k", "i", "j" };
	ck_assert_int_eq(stir_sparse_reorder(k, "csrmm", 3, order), 0);
}

static void fuse_csf(stir_kernel *k)
{
	const char *ijk[] = { "i", "j", "k" };
	ck_assert_int_eq(stir_sparse_fuse(k, "sq", 3, ijk), 0);
}

START_TEST(test_legal)
{
	expect_equivalent("examples/csrmm.stir", "C", fuse_csrmm);
	expect_equivalent("examples/bsrmm.stir", "C", reorder_bsrmm);
	expect_equivalent("examples/csrmm.stir", "C", reorder_csrmm);
	expect_equivalent("examples/csf_square_sum.stir", "B", fuse_csf);
}
END_TEST

/* file, msg, r: a request that must fail with message "msg" and leave the
 * program as it was. */
static void expect_refused(const char *file, int r, loaded *l, const char *msg,
	const char *before)
{
	ck_assert_int_eq(r, -1);
	const stir_diag *d = stir_ctx_get_diagnostic(l->ctx, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(stir_diag_get_message(d), msg);
	char *after = stir_module_to_str(l->m);
	ck_assert_str_eq(after, before);
	free(after);
	(void)file;
}

START_TEST(test_illegal)
{
	loaded l = load("examples/csrmm.stir");
	char *before = stir_module_to_str(l.m);
	const char *jik[] = { "j", "i", "k" };
	expect_refused("csrmm", stir_sparse_reorder(l.k, "csrmm", 3, jik), &l,
		"sparse_reorder: axis 'J' would be iterated before its parent 'I'",
		before);
	stir_ctx_clear_diagnostics(l.ctx);
	const char *ik[] = { "i", "k" };
	expect_refused("csrmm", stir_sparse_fuse(l.k, "csrmm", 2, ik), &l,
		"sparse_fuse: the iterators to fuse must be adjacent and in order "
		"in iteration 'csrmm'", before);
	stir_ctx_clear_diagnostics(l.ctx);
	const char *jk[] = { "j", "k" };
	expect_refused("csrmm", stir_sparse_fuse(l.k, "csrmm", 2, jk), &l,
		"sparse_fuse: 'J' is not the parent of 'K': fused axes must form a "
		"parent chain", before);
	stir_ctx_clear_diagnostics(l.ctx);
	const char *ij[] = { "i", "j" };
	expect_refused("csrmm", stir_sparse_fuse(l.k, "nope", 2, ij), &l,
		"sparse_fuse: kernel 'csrmm' has no iteration 'nope'", before);
	stir_ctx_clear_diagnostics(l.ctx);
	const char *two[] = { "i", "k" };
	expect_refused("csrmm", stir_sparse_reorder(l.k, "csrmm", 2, two), &l,
		"sparse_reorder: iteration 'csrmm' has 3 iterators, the order lists 2",
		before);
	free(before);
	unload(&l);

	/* fused iterators move together */
	l = load("examples/sddmm.stir");
	before = stir_module_to_str(l.m);
	const char *kij[] = { "i", "k", "j" };
	expect_refused("sddmm", stir_sparse_reorder(l.k, "sddmm", 3, kij), &l,
		"sparse_reorder: the fused iterators of 'sddmm' must stay together "
		"and in order", before);
	free(before);
	unload(&l);

	/* a reorder that makes init illegal is refused after verification */
	l = load("tests/lower/attach.stir");
	before = stir_module_to_str(l.m);
	const char *ji[] = { "j", "i2" };
	expect_refused("attach", stir_sparse_reorder(l.k, "a", 2, ji), &l,
		"sparse_reorder: axis 'J' would be iterated before its parent 'I2'",
		before);
	free(before);
	unload(&l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sparse_schedule");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_legal);
	tcase_add_test(tc, test_illegal);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
