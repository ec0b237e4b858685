/* decompose_format end to end: for every shipped format, the decomposed
 * CSR SpMM (and RGMS for ELL3D), run on arrays the host builders made,
 * computes what the original computes on the same matrix; and the
 * preprocessing kernel KERNEL_copy fills the new format's values exactly
 * as the host builder did.  Refusals leave the kernel untouched. */
#include <math.h>
#include <stir/stir.h>
#include "tests/testutil.h"

typedef struct loaded {
	stir_ctx *ctx;
	stir_module *m;
	stir_kernel *k;
} loaded;

static loaded load(const char *file)
{
	loaded l = { stir_ctx_alloc(), NULL, NULL };
	l.m = stir_module_read_file(l.ctx, test_path(file));
	ck_assert_ptr_nonnull(l.m);
	l.k = stir_module_get_kernel(l.m, 0);
	return l;
}

static void unload(loaded *l)
{
	stir_module_free(l->m);
	stir_ctx_free(l->ctx);
}

/* b, name: array "name" of b as int64 (heap). */
static int64_t *ints(const stir_bindings *b, const char *name, int64_t *n)
{
	const stir_array *a = stir_bindings_get_array(b, name);
	ck_assert_ptr_nonnull(a);
	*n = stir_array_get_len(a);
	int64_t *v = malloc((size_t)(*n ? *n : 1) * sizeof(int64_t));
	for (int64_t i = 0; i < *n; i++)
		v[i] = stir_array_get_int(a, i);
	return v;
}

static double *doubles(const stir_bindings *b, const char *name)
{
	const stir_array *a = stir_bindings_get_array(b, name);
	ck_assert_ptr_nonnull(a);
	int64_t n = stir_array_get_len(a);
	double *v = malloc((size_t)(n ? n : 1) * sizeof(double));
	for (int64_t i = 0; i < n; i++)
		v[i] = stir_array_get_double(a, i);
	return v;
}

static int64_t size(const stir_bindings *b, const char *name)
{
	int64_t v;
	ck_assert(stir_bindings_get_size(b, name, &v));
	return v;
}

/* b: the CSR matrix of csrmm's A in b (caller frees). */
static stir_csr *csr_of(const stir_bindings *b)
{
	stir_csr *c = calloc(1, sizeof(*c));
	int64_t n;
	c->nrows = size(b, "m");
	c->ncols = size(b, "n");
	c->indptr = ints(b, "J.indptr", &n);
	c->indices = ints(b, "J.indices", &c->nnz);
	c->values = doubles(b, "A");
	return c;
}

/* Which format a case builds and the rules that decompose for it. */
typedef struct fcase {
	const char *name;
	stir_format *(*build)(stir_ctx *, const stir_csr *, stir_bindings *);
	int (*rules)(const stir_format *, stir_format_rule **);
} fcase;

static int64_t longest_row(const stir_csr *c)
{
	int64_t w = 1;
	for (int64_t i = 0; i < c->nrows; i++)
		if (c->indptr[i + 1] - c->indptr[i] > w)
			w = c->indptr[i + 1] - c->indptr[i];
	return w;
}

static stir_format *b_ell(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	return stir_csr_to_ell(ctx, c, longest_row(c), STIR_I32, STIR_F32, "_ell", b);
}
static int r_ell(const stir_format *f, stir_format_rule **r)
{
	r[0] = stir_format_ell("_ell", stir_format_get_part(f, 0)->width);
	return 1;
}
static stir_format *b_bsr(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	return stir_csr_to_bsr(ctx, c, 3, STIR_I32, STIR_F32, "_bsr", b);
}
static int r_bsr(const stir_format *f, stir_format_rule **r)
{
	(void)f;
	r[0] = stir_format_bsr("_bsr", 3);
	return 1;
}
static stir_format *b_pad(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	return stir_csr_to_padding(ctx, c, 3, STIR_I32, STIR_F32, "_pad", b);
}
static int r_pad(const stir_format *f, stir_format_rule **r)
{
	(void)f;
	r[0] = stir_format_padding("_pad", 3);
	return 1;
}
static stir_format *b_dbsr(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	return stir_csr_to_dbsr(ctx, c, 2, STIR_I32, STIR_F32, "_dbsr", b);
}
static int r_dbsr(const stir_format *f, stir_format_rule **r)
{
	(void)f;
	r[0] = stir_format_dbsr("_dbsr", 2);
	return 1;
}
static stir_format *b_sr(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	return stir_csr_to_sr_bcrs(ctx, c, 2, 2, STIR_I32, STIR_F32, "_sr", b);
}
static int r_sr(const stir_format *f, stir_format_rule **r)
{
	(void)f;
	r[0] = stir_format_sr_bcrs("_sr", 2, 2);
	return 1;
}
static stir_format *b_hyb1(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	const int64_t buckets[] = { 1, 2, 4 };
	return stir_csr_to_hybrid(ctx, c, 1, buckets, 3, STIR_I32, STIR_F32,
		"_hyb", b);
}
static stir_format *b_hyb2(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	const int64_t buckets[] = { 1, 3 };
	return stir_csr_to_hybrid(ctx, c, 2, buckets, 2, STIR_I32, STIR_F32,
		"_hyb", b);
}
/* one rule per part the builder made */
static int r_hyb(const stir_format *f, stir_format_rule **r)
{
	int n = stir_format_n_parts(f);
	for (int i = 0; i < n; i++) {
		const stir_format_part *p = stir_format_get_part(f, i);
		r[i] = stir_format_hybrid_part("_hyb", p->range, p->bucket, p->width);
	}
	return n;
}

static const fcase cases[] = {
	{ "ell", b_ell, r_ell }, { "bsr", b_bsr, r_bsr }, { "padding", b_pad, r_pad },
	{ "dbsr", b_dbsr, r_dbsr }, { "sr_bcrs", b_sr, r_sr },
	{ "hybrid c=1", b_hyb1, r_hyb }, { "hybrid c=2", b_hyb2, r_hyb },
};

/* a, b, name, tol: arrays "name" of a and b agree within tol (relative). */
static void expect_close(const stir_bindings *a, const stir_bindings *b,
	const char *name, double tol, const char *what)
{
	const stir_array *x = stir_bindings_get_array(a, name);
	const stir_array *y = stir_bindings_get_array(b, name);
	ck_assert_int_eq(stir_array_get_len(x), stir_array_get_len(y));
	for (int64_t i = 0; i < stir_array_get_len(x); i++) {
		double u = stir_array_get_double(x, i), v = stir_array_get_double(y, i);
		ck_assert_msg(fabs(u - v) <= tol * (1 + fabs(v)),
			"%s: %s[%lld] is %g, expected %g", what, name, (long long)i, u, v);
	}
}

/* l, b: interpret l's kernel "name" on b, failing the test on errors. */
static void run(loaded *l, const char *name, stir_bindings *b)
{
	stir_kernel *k = stir_module_find_kernel(l->m, name);
	ck_assert_ptr_nonnull(k);
	int rc = stir_kernel_bind_outputs(k, b) == 0 ? stir_kernel_interpret(k, b) : -1;
	if (rc)
		stir_ctx_print_diagnostics(l->ctx, stderr);
	ck_assert_int_eq(rc, 0);
}

START_TEST(test_csrmm_formats)
{
	const fcase *fc = &cases[_i];
	for (uint64_t seed = 1; seed <= 8; seed++) {
		loaded orig = load("examples/csrmm.stir");
		stir_bindings *in = stir_bindings_alloc();
		stir_bindings_set_size(in, "feat", 3);
		stir_bindings_set_size(in, "m", 7);
		/* wide enough for every bucket width: a full row of 12 fills
		 * chunks of 1, 2, 3 or 4 exactly, others leave absent columns
		 * to pad with */
		stir_bindings_set_size(in, "n", 12);
		ck_assert_int_eq(stir_kernel_bind_random(orig.k, in, seed), 0);
		stir_bindings *want = stir_bindings_copy(in);
		run(&orig, "csrmm", want);
		stir_csr *csr = csr_of(in);

		/* the new format, built on the host */
		loaded dec = load("examples/csrmm.stir");
		stir_bindings *fb = stir_bindings_alloc();
		stir_format *f = fc->build(dec.ctx, csr, fb);
		if (!f)
			stir_ctx_print_diagnostics(dec.ctx, stderr);
		ck_assert_ptr_nonnull(f);
		stir_format_rule *rules[64];
		int n = fc->rules(f, rules);
		int rc = stir_decompose_format(dec.k, "A", n, rules);
		if (rc)
			stir_ctx_print_diagnostics(dec.ctx, stderr);
		ck_assert_int_eq(rc, 0);

		/* the computation on host-built arrays */
		stir_bindings *b = stir_bindings_copy(fb);
		stir_bindings_set_size(b, "m", csr->nrows);
		stir_bindings_set_size(b, "n", csr->ncols);
		stir_bindings_set_size(b, "feat", 3);
		stir_bindings_set_array(b, "B", stir_array_copy(dec.ctx,
			stir_bindings_get_array(in, "B")));
		run(&dec, "csrmm", b);
		expect_close(b, want, "C", 1e-5, fc->name);

		/* the value copies reproduce the host-built values */
		stir_bindings *cb = stir_bindings_copy(fb);
		for (int i = 0; i < stir_bindings_n_arrays(fb); i++) {
			const char *name = stir_bindings_array_name(fb, i);
			if (!strchr(name, '.'))
				stir_array_fill(stir_bindings_get_array(cb, name), 0);
		}
		for (int i = 0; i < stir_bindings_n_sizes(in); i++) {
			const char *name = stir_bindings_size_name(in, i);
			stir_bindings_set_size(cb, name, size(in, name));
		}
		const char *orig_arrays[] = { "J.indptr", "J.indices", "A" };
		for (int i = 0; i < 3; i++)
			stir_bindings_set_array(cb, orig_arrays[i], stir_array_copy(dec.ctx,
				stir_bindings_get_array(in, orig_arrays[i])));
		run(&dec, "csrmm_copy", cb);
		for (int i = 0; i < stir_bindings_n_arrays(fb); i++) {
			const char *name = stir_bindings_array_name(fb, i);
			if (!strchr(name, '.'))
				expect_close(cb, fb, name, 0, fc->name);
		}
		for (int i = 0; i < n; i++)
			stir_format_rule_free(rules[i]);
		stir_format_free(f);
		stir_bindings_free(cb);
		stir_bindings_free(b);
		stir_bindings_free(fb);
		unload(&dec);
		stir_csr_free(csr);
		stir_bindings_free(want);
		stir_bindings_free(in);
		unload(&orig);
	}
}
END_TEST

START_TEST(test_rgms_ell3d)
{
	for (uint64_t seed = 1; seed <= 6; seed++) {
		loaded orig = load("examples/rgms.stir");
		stir_bindings *in = stir_bindings_alloc();
		stir_bindings_set_size(in, "fin", 2);
		stir_bindings_set_size(in, "fout", 2);
		ck_assert_int_eq(stir_kernel_bind_random(orig.k, in, seed), 0);
		stir_bindings *want = stir_bindings_copy(in);
		run(&orig, "rgms", want);
		int64_t n_ri, n_ii, n_jp, n_ji;
		int64_t *ri = ints(in, "I.indptr", &n_ri);
		int64_t *ii = ints(in, "I.indices", &n_ii);
		int64_t *jp = ints(in, "J.indptr", &n_jp);
		int64_t *ji = ints(in, "J.indices", &n_ji);
		double *av = doubles(in, "A");
		stir_csf csf = { size(in, "r"), size(in, "m"), size(in, "n"), n_ii,
			n_ji, ri, ii, jp, ji, av };
		int64_t w = 1;
		for (int64_t p = 0; p < n_ii; p++)
			w = jp[p + 1] - jp[p] > w ? jp[p + 1] - jp[p] : w;
		loaded dec = load("examples/rgms.stir");
		stir_bindings *b = stir_bindings_alloc();
		stir_format *f = stir_csf_to_ell3d(dec.ctx, &csf, w, STIR_I32, STIR_F32,
			"_e3", b);
		ck_assert_ptr_nonnull(f);
		stir_format_rule *rule = stir_format_ell3d("_e3", w);
		int rc = stir_decompose_format(dec.k, "A", 1, &rule);
		if (rc)
			stir_ctx_print_diagnostics(dec.ctx, stderr);
		ck_assert_int_eq(rc, 0);
		/* ELL3D keeps R and I: their arrays and the other inputs carry over */
		const char *keep[] = { "I.indptr", "I.indices", "W", "X" };
		for (int i = 0; i < 4; i++)
			stir_bindings_set_array(b, keep[i], stir_array_copy(dec.ctx,
				stir_bindings_get_array(in, keep[i])));
		for (int i = 0; i < stir_bindings_n_sizes(in); i++)
			stir_bindings_set_size(b, stir_bindings_size_name(in, i),
				size(in, stir_bindings_size_name(in, i)));
		run(&dec, "rgms", b);
		expect_close(b, want, "Y", 1e-5, "ell3d");
		stir_format_rule_free(rule);
		stir_format_free(f);
		free(ri); free(ii); free(jp); free(ji); free(av);
		stir_bindings_free(b);
		unload(&dec);
		stir_bindings_free(want);
		stir_bindings_free(in);
		unload(&orig);
	}
}
END_TEST

/* file, tensor, msg: decomposition refused with message "msg", the module
 * printed the same before and after. */
static void expect_refused(const char *file, const char *tensor, const char *msg)
{
	loaded l = load(file);
	char *before = stir_module_to_str(l.m);
	stir_format_rule *rule = stir_format_ell("_ell", 4);
	ck_assert_int_eq(stir_decompose_format(l.k, tensor, 1, &rule), -1);
	const stir_diag *d = stir_ctx_get_diagnostic(l.ctx, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(stir_diag_get_message(d), msg);
	char *after = stir_module_to_str(l.m);
	ck_assert_str_eq(after, before);
	free(before);
	free(after);
	stir_format_rule_free(rule);
	unload(&l);
}

START_TEST(test_refused)
{
	expect_refused("tests/lower/lookups.stir", "A",
		"decompose_format: 'A' is read at other coordinates than the "
		"iterators of its own axes");
	expect_refused("examples/csr2bsr.stir", "B",
		"decompose_format: 'B' is written; only tensors that are read can be "
		"decomposed");
	expect_refused("examples/csr_softmax.stir", "A",
		"decompose_format: iteration 'rows' does not iterate the axes of 'A' "
		"in order, as plain axes");
	expect_refused("examples/csrmm.stir", "Q",
		"decompose_format: kernel 'csrmm' has no tensor 'Q'");
	/* a rule that does not fit the tensor */
	loaded l = load("examples/bsrmm.stir");
	stir_format_rule *rule = stir_format_ell("_ell", 4);
	ck_assert_int_eq(stir_decompose_format(l.k, "A", 1, &rule), -1);
	ck_assert_str_eq(stir_diag_get_message(stir_ctx_get_diagnostic(l.ctx, 0)),
		"decompose_format: iteration 'bsrmm' does not iterate the axes of 'A' "
		"in order, as plain axes");
	stir_format_rule_free(rule);
	unload(&l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("decompose");
	TCase *tc = tcase_create("formats");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_csrmm_formats, 0,
		(int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_rgms_ell3d);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
