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

/* l, in, stage: run l's kernel lowered to "stage" on a copy of in, with
 * the COO arrays of its fuse groups with coo derived first (stage III
 * has no axes to derive them from). */
static stir_bindings *run(loaded *l, const stir_bindings *in, int stage)
{
	stir_bindings *b = stir_bindings_copy(in);
	ck_assert_int_eq(stir_kernel_bind_coo(l->k, b), 0);
	if (stage >= 2 && stir_kernel_get_stage(l->k) < 2)
		ck_assert_int_eq(stir_module_lower_sparse_iter(l->m), 0);
	if (stage >= 3 && stir_kernel_get_stage(l->k) < 3)
		ck_assert_int_eq(stir_module_lower_sparse_buffer(l->m), 0);
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

/* k: COO SpMM, the row of each non-zero read from J.pos_I. */
static void fuse_csrmm_coo(stir_kernel *k)
{
	const char *ij[] = { "i", "j" };
	ck_assert_int_eq(stir_sparse_fuse_coo(k, "csrmm", 2, ij), 0);
}

/* k: RGMS edge by edge, each edge's row and relation read from
 * J.pos_I and J.pos_R. */
static void fuse_rgms_coo(stir_kernel *k)
{
	const char *rij[] = { "rr", "i", "j" };
	ck_assert_int_eq(stir_sparse_fuse_coo(k, "rgms", 3, rij), 0);
}

/* k: a CSF fused over all three levels with coo. */
static void fuse_csf_coo(stir_kernel *k)
{
	const char *ijk[] = { "i", "j", "k" };
	ck_assert_int_eq(stir_sparse_fuse_coo(k, "sq", 3, ijk), 0);
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
	expect_equivalent("examples/csrmm.stir", "C", fuse_csrmm_coo);
	expect_equivalent("examples/rgms_edge.stir", "Y", fuse_rgms_coo);
	expect_equivalent("examples/csf_square_sum.stir", "B", fuse_csf_coo);
}
END_TEST

/* l, b, msg: the bindings b of l's kernel are refused with an error
 * that contains msg. */
static void expect_bad_binding(loaded *l, const stir_bindings *b,
	const char *msg)
{
	stir_ctx_clear_diagnostics(l->ctx);
	ck_assert_int_eq(stir_kernel_verify_bindings(l->k, b), -1);
	const stir_diag *d = stir_ctx_get_diagnostic(l->ctx, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_msg(strstr(stir_diag_get_message(d), msg), "%s",
		stir_diag_get_message(d));
}

/* The COO arrays: the text of a fused group with coo reads back the same,
 * lowering makes one COO buffer per (last axis, ancestor) and reads it
 * instead of searching, binding derives the arrays, and an array that
 * disagrees with the indptr arrays is refused at stages I and II. */
START_TEST(test_coo)
{
	loaded l = load("examples/rgms_edge.stir");
	fuse_rgms_coo(l.k);
	char *text = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(text, "[fuse(R, I, J, coo = true), Fo, Fi]"));
	stir_module *back = stir_module_read_from_mem(l.ctx, "coo.stir", text, strlen(text));
	ck_assert_ptr_nonnull(back);
	char *text2 = stir_kernel_to_str(stir_module_get_kernel(back, 0));
	ck_assert_str_eq(text2, text);
	free(text2);
	stir_module_free(back);
	free(text);
	/* fusing the group again without coo keeps it (a no-op) */
	const char *rij[] = { "rr", "i", "j" };
	ck_assert_int_eq(stir_sparse_fuse(l.k, "rgms", 3, rij), 0);
	text = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(text, "coo = true"));
	free(text);

	stir_bindings *b = stir_bindings_alloc();
	ck_assert_int_eq(stir_kernel_bind_random(l.k, b, 7), 0);
	stir_array *pi = stir_bindings_get_array(b, "J.pos_I");
	stir_array *pr = stir_bindings_get_array(b, "J.pos_R");
	ck_assert_ptr_nonnull(pi);
	ck_assert_ptr_nonnull(pr);
	stir_array *ji = stir_bindings_get_array(b, "J.indptr");
	stir_array *ii = stir_bindings_get_array(b, "I.indptr");
	/* every position lies in the row and relation the arrays say */
	for (int64_t e = 0; e < stir_array_get_len(pi); e++) {
		int64_t p = stir_array_get_int(pi, e), r = stir_array_get_int(pr, e);
		ck_assert(stir_array_get_int(ji, p) <= e &&
			e < stir_array_get_int(ji, p + 1));
		ck_assert(stir_array_get_int(ii, r) <= p &&
			p < stir_array_get_int(ii, r + 1));
	}
	const char *names[16];
	int n = stir_kernel_get_array_names(l.k, 16, names);
	int found = 0;
	for (int i = 0; i < n && i < 16; i++)
		found += !strcmp(names[i], "J.pos_I") || !strcmp(names[i], "J.pos_R");
	ck_assert_int_eq(found, 2);
	ck_assert_int_eq(stir_kernel_verify_bindings(l.k, b), 0);

	/* an entry moved to the next row is found, at stage I and II */
	ck_assert_int_ge(stir_array_get_len(pi), 2);
	int64_t e = stir_array_get_len(pi) - 1;
	int64_t old = stir_array_get_int(pi, e);
	stir_array_set_int(pi, e, old ? old - 1 : old + 1);
	expect_bad_binding(&l, b, "array 'J.pos_I': entry");
	stir_ctx_clear_diagnostics(l.ctx);
	ck_assert_int_eq(stir_kernel_bind_coo(l.k, b), -1);
	ck_assert_int_eq(stir_module_lower_sparse_iter(l.m), 0);
	expect_bad_binding(&l, b, "array 'J.pos_I': entry");
	stir_array_set_int(pi, e, old);
	ck_assert_int_eq(stir_kernel_verify_bindings(l.k, b), 0);
	/* a missing one is named */
	stir_bindings_remove_array(b, "J.pos_R");
	expect_bad_binding(&l, b, "array 'J.pos_R' is not bound");
	ck_assert_int_eq(stir_kernel_bind_coo(l.k, b), 0);
	ck_assert_int_eq(stir_kernel_verify_bindings(l.k, b), 0);

	/* the stage II kernel reads the arrays, with no search left */
	stir_buffer *buf = stir_kernel_find_buffer(l.k, "J_pos_I");
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(stir_buffer_get_kind(buf), STIR_BUFFER_COO);
	text = stir_kernel_to_str(l.k);
	ck_assert_ptr_null(strstr(text, "upper_bound"));
	ck_assert_ptr_nonnull(strstr(text, "let vi = J_pos_I[vrrij];"));
	ck_assert_ptr_nonnull(strstr(text, "= J.pos_R in [0, r);"));
	/* and reads back as the same stage II kernel */
	back = stir_module_read_from_mem(l.ctx, "coo2.stir", text,
		strlen(text));
	ck_assert_ptr_nonnull(back);
	text2 = stir_kernel_to_str(stir_module_get_kernel(back, 0));
	ck_assert_str_eq(text2, text);
	ck_assert_int_eq(stir_kernel_verify_bindings(stir_module_get_kernel(back,
		0), b), 0);
	free(text2);
	stir_module_free(back);
	free(text);
	stir_bindings_free(b);
	unload(&l);

	/* a fused axis without indptr (its rows come by division) is refused,
	 * leaving the program as it was */
	l = load("examples/ellmv.stir");
	char *before = stir_module_to_str(l.m);
	const char *ij[] = { "i", "j" };
	ck_assert_int_eq(stir_sparse_fuse_coo(l.k, "ellmv", 2, ij), -1);
	const stir_diag *d = stir_ctx_get_diagnostic(l.ctx, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(stir_diag_get_message(d), "fuse with coo stores the "
		"rows that searches of indptr arrays find, but axis 'J' is "
		"sparse_fixed (its rows come by division): fuse it without coo");
	ck_assert_int_eq(stir_diag_get_loc(d).line, 9);
	char *after = stir_module_to_str(l.m);
	ck_assert_str_eq(after, before);
	free(after);
	free(before);
	unload(&l);
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
	tcase_add_test(tc, test_coo);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
