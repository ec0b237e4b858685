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
	stir_host_format *(*build)(stir_ctx *, const stir_csr *, stir_bindings *);
	int (*rules)(const stir_host_format *, stir_format_rule **);
} fcase;

static int64_t longest_row(const stir_csr *c)
{
	int64_t w = 1;
	for (int64_t i = 0; i < c->nrows; i++)
		if (c->indptr[i + 1] - c->indptr[i] > w)
			w = c->indptr[i + 1] - c->indptr[i];
	return w;
}

static stir_host_format *b_ell(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	return stir_csr_to_ell(ctx, c, longest_row(c), STIR_I32, STIR_F32, "_ell", b);
}
static int r_ell(const stir_host_format *f, stir_format_rule **r)
{
	r[0] = stir_format_rule_ell("_ell", stir_host_format_get_part(f, 0)->width);
	return 1;
}
static stir_host_format *b_bsr(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	return stir_csr_to_bsr(ctx, c, 3, STIR_I32, STIR_F32, "_bsr", b);
}
static int r_bsr(const stir_host_format *f, stir_format_rule **r)
{
	(void)f;
	r[0] = stir_format_rule_bsr("_bsr", 3);
	return 1;
}
static stir_host_format *b_pad(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	return stir_csr_to_padding(ctx, c, 3, STIR_I32, STIR_F32, "_pad", b);
}
static int r_pad(const stir_host_format *f, stir_format_rule **r)
{
	(void)f;
	r[0] = stir_format_rule_padding("_pad", 3);
	return 1;
}
static stir_host_format *b_dbsr(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	return stir_csr_to_dbsr(ctx, c, 2, STIR_I32, STIR_F32, "_dbsr", b);
}
static int r_dbsr(const stir_host_format *f, stir_format_rule **r)
{
	(void)f;
	r[0] = stir_format_rule_dbsr("_dbsr", 2);
	return 1;
}
static stir_host_format *b_sr(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	return stir_csr_to_sr_bcrs(ctx, c, 2, 2, STIR_I32, STIR_F32, "_sr", b);
}
static int r_sr(const stir_host_format *f, stir_format_rule **r)
{
	(void)f;
	r[0] = stir_format_rule_sr_bcrs("_sr", 2, 2);
	return 1;
}
/* SR-BCRS(2, 2) with chunks of 1 group, the windows' rows in the
 * locality order: C's rows through P_sr_split and P_sr_whole */
static stir_host_format *b_sr_rows(stir_ctx *ctx, const stir_csr *c,
	stir_bindings *b)
{
	return stir_csr_to_sr_bcrs_chunks(ctx, c, 2, 2, 1, STIR_ROWS_LOCALITY,
		STIR_I32, STIR_F32, "_sr", b);
}
static int r_sr_rows(const stir_host_format *f, stir_format_rule **r)
{
	(void)f;
	for (int i = 0; i < 2; i++)
		r[i] = stir_format_rule_sr_bcrs_chunks("_sr", 2, 2, i, true);
	return 2;
}
static stir_host_format *b_hyb1(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	const int64_t buckets[] = { 1, 2, 4 };
	return stir_csr_to_hybrid(ctx, c, 1, 3, buckets, STIR_I32, STIR_F32,
		"_hyb", b);
}
static stir_host_format *b_hyb2(stir_ctx *ctx, const stir_csr *c, stir_bindings *b)
{
	const int64_t buckets[] = { 1, 3 };
	return stir_csr_to_hybrid(ctx, c, 2, 2, buckets, STIR_I32, STIR_F32,
		"_hyb", b);
}
/* one rule per part the builder made */
static int r_hyb(const stir_host_format *f, stir_format_rule **r)
{
	int n = stir_host_format_n_parts(f);
	for (int i = 0; i < n; i++) {
		const stir_host_format_part *p = stir_host_format_get_part(f, i);
		r[i] = stir_format_rule_hybrid_part("_hyb", p->range, p->bucket, p->width);
	}
	return n;
}

static const fcase cases[] = {
	{ "ell", b_ell, r_ell }, { "bsr", b_bsr, r_bsr }, { "padding", b_pad, r_pad },
	{ "dbsr", b_dbsr, r_dbsr }, { "sr_bcrs", b_sr, r_sr },
	{ "hybrid c=1", b_hyb1, r_hyb }, { "hybrid c=2", b_hyb2, r_hyb },
	{ "sr_bcrs rows", b_sr_rows, r_sr_rows },
};

/* name: whether bound array "name" holds a format's values (A_S), which
 * the copy kernel fills, rather than its structure. */
static bool is_values(const char *name)
{
	return !strchr(name, '.') && name[0] == 'A';
}

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

/* dec, in, fb, what: the value copies of dec's csrmm_copy, run on the
 * original matrix of "in", reproduce the values the host builder put in
 * fb. */
static void expect_copies(loaded *dec, const stir_bindings *in,
	const stir_bindings *fb, const char *what)
{
	stir_bindings *cb = stir_bindings_copy(fb);
	for (int i = 0; i < stir_bindings_n_arrays(fb); i++) {
		const char *name = stir_bindings_get_array_name(fb, i);
		if (is_values(name))
			stir_array_fill(stir_bindings_get_array(cb, name), 0);
	}
	for (int i = 0; i < stir_bindings_n_sizes(in); i++) {
		const char *name = stir_bindings_get_size_name(in, i);
		stir_bindings_set_size(cb, name, size(in, name));
	}
	const char *orig_arrays[] = { "J.indptr", "J.indices", "A" };
	for (int i = 0; i < 3; i++)
		stir_bindings_set_array(cb, orig_arrays[i], stir_array_copy(dec->ctx,
			stir_bindings_get_array(in, orig_arrays[i])));
	run(dec, "csrmm_copy", cb);
	for (int i = 0; i < stir_bindings_n_arrays(fb); i++) {
		const char *name = stir_bindings_get_array_name(fb, i);
		if (is_values(name))
			expect_close(cb, fb, name, 0, what);
	}
	stir_bindings_free(cb);
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
		stir_host_format *f = fc->build(dec.ctx, csr, fb);
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

		expect_copies(&dec, in, fb, fc->name);
		/* a row order that is no permutation is refused when bound */
		stir_array *pa = stir_bindings_get_array(b, "P_sr_whole");
		if (pa && stir_array_get_len(pa) > 1) {
			stir_array_set_int(pa, 1, stir_array_get_int(pa, 0));
			ck_assert_int_ne(stir_kernel_interpret(stir_module_find_kernel(
				dec.m, "csrmm"), b), 0);
			ck_assert_ptr_nonnull(strstr(stir_diag_get_message(
				stir_ctx_get_diagnostic(dec.ctx, stir_ctx_n_diagnostics(
				dec.ctx) - 1)), "entries 0 and 1 are both"));
		}
		for (int i = 0; i < n; i++)
			stir_format_rule_free(rules[i]);
		stir_host_format_free(f);
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

/* The 7 x 12 matrix of the tests that cover the rows (caller frees):
 * rows 0 and 4 empty; row 1 one entry; row 2 full (three chunks of 4);
 * row 3 six entries (two chunks, the last padded); row 5 two entries and
 * row 6 three (padded to 4). */
static stir_csr *cover_matrix(void)
{
	static const int64_t indptr[] = { 0, 0, 1, 13, 19, 19, 21, 24 };
	static const int64_t indices[] = { 5,  0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
		10, 11,  0, 2, 3, 7, 9, 11,  1, 8,  4, 6, 10 };
	stir_csr *c = calloc(1, sizeof(*c));
	ck_assert_ptr_nonnull(c);
	c->nrows = 7;
	c->ncols = 12;
	c->nnz = 24;
	c->indptr = malloc(sizeof(indptr));
	c->indices = malloc(sizeof(indices));
	c->values = malloc(24 * sizeof(double));
	ck_assert(c->indptr && c->indices && c->values);
	memcpy(c->indptr, indptr, sizeof(indptr));
	memcpy(c->indices, indices, sizeof(indices));
	for (int p = 0; p < 24; p++)
		c->values[p] = (p % 7 - 3) / 4.0 + 0.125;
	return c;
}

/* text, part: the iteration of part "part" of hybrid's csrmm decomposition
 * in text begins with the init of C over its own rows. */
static void expect_part_init(const char *text, const char *part)
{
	char head[128];
	snprintf(head, sizeof(head), "  iter csrmm%s (o, r, c, k) in ", part);
	const char *it = strstr(text, head);
	ck_assert_msg(it != NULL, "no iteration for part %s", part);
	const char *body = strchr(it, '\n');
	ck_assert_ptr_nonnull(body);
	const char *init = "\n    init {\n      C[r, k] = 0.0;\n    }\n"
		"    C[r, k] += ";
	ck_assert_msg(!strncmp(body, init, strlen(init)), "part %s: no init of "
		"its own", part);
}

/* Hybrid parts that cover the rows (STIR_HYBRID_COVER_ROWS): no separate
 * init iteration, each part's iteration initializes its own rows of C,
 * and on a matrix with empty rows (rows of padding in part 0_0) and long
 * ones (split into part 0_3) the decomposed kernel, at every stage, writes
 * every row of C as the original does, whatever C held before. */
START_TEST(test_csrmm_cover_rows)
{
	static const int64_t buckets[] = { 1, 2, 4 };
	static const char *const parts[] = { "_hyb_0_0", "_hyb_0_1",
		"_hyb_0_2", "_hyb_0_3" };
	stir_csr *csr = cover_matrix();
	for (uint64_t seed = 1; seed <= 4; seed++) {
		loaded orig = load("examples/csrmm.stir");
		stir_bindings *in = stir_bindings_alloc();
		stir_bindings_set_size(in, "feat", 3);
		ck_assert_int_eq(stir_kernel_bind_csr(orig.k, in, "A", csr), 0);
		/* B, and C with random values that a missed row would keep */
		ck_assert_int_eq(stir_kernel_bind_random(orig.k, in, seed), 0);
		stir_bindings *want = stir_bindings_copy(in);
		run(&orig, "csrmm", want);

		loaded dec = load("examples/csrmm.stir");
		stir_bindings *fb = stir_bindings_alloc();
		stir_host_format *f = stir_csr_to_hybrid_flags(dec.ctx, csr, 1, 3,
			buckets, STIR_I32, STIR_F32, "_hyb", STIR_HYBRID_COVER_ROWS, fb);
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(stir_host_format_n_parts(f), 4);
		ck_assert(stir_host_format_get_part(f, 3)->split);
		stir_format_rule *rules[4];
		int n = r_hyb(f, rules);
		for (int i = 0; i < n; i++)
			stir_format_rule_set_cover_rows(rules[i], true);
		int rc = stir_decompose_format(dec.k, "A", n, rules);
		if (rc)
			stir_ctx_print_diagnostics(dec.ctx, stderr);
		ck_assert_int_eq(rc, 0);
		char *text = stir_kernel_to_str(dec.k);
		ck_assert_ptr_null(strstr(text, "csrmm_init"));
		for (int i = 0; i < 4; i++)
			expect_part_init(text, parts[i]);
		free(text);

		stir_bindings *b = stir_bindings_copy(fb);
		stir_bindings_set_size(b, "m", csr->nrows);
		stir_bindings_set_size(b, "n", csr->ncols);
		stir_bindings_set_size(b, "feat", 3);
		stir_bindings_set_array(b, "B", stir_array_copy(dec.ctx,
			stir_bindings_get_array(in, "B")));
		stir_bindings_set_array(b, "C", stir_array_copy(dec.ctx,
			stir_bindings_get_array(in, "C")));
		for (int stage = 1; stage <= 3; stage++) {
			if (stage == 2 && stir_lower_sparse_iter(dec.k))
				stir_ctx_print_diagnostics(dec.ctx, stderr);
			if (stage == 3 && stir_lower_sparse_buffer(dec.k))
				stir_ctx_print_diagnostics(dec.ctx, stderr);
			ck_assert_int_eq(stir_kernel_get_stage(dec.k), stage);
			stir_bindings *got = stir_bindings_copy(b);
			run(&dec, "csrmm", got);
			char what[64];
			snprintf(what, sizeof(what), "cover rows, stage %d seed %d",
				stage, (int)seed);
			expect_close(got, want, "C", 1e-5, what);
			stir_bindings_free(got);
		}
		/* the copies fill the rows of padding with 0 */
		expect_copies(&dec, in, fb, "cover rows");
		for (int i = 0; i < n; i++)
			stir_format_rule_free(rules[i]);
		stir_host_format_free(f);
		stir_bindings_free(b);
		stir_bindings_free(fb);
		unload(&dec);
		stir_bindings_free(want);
		stir_bindings_free(in);
		unload(&orig);
	}
	stir_csr_free(csr);
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
		stir_host_format *f = stir_csf_to_ell3d(dec.ctx, &csf, w, STIR_I32, STIR_F32,
			"_e3", b);
		ck_assert_ptr_nonnull(f);
		stir_format_rule *rule = stir_format_rule_ell3d("_e3", w);
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
			stir_bindings_set_size(b, stir_bindings_get_size_name(in, i),
				size(in, stir_bindings_get_size_name(in, i)));
		run(&dec, "rgms", b);
		expect_close(b, want, "Y", 1e-5, "ell3d");
		stir_format_rule_free(rule);
		stir_host_format_free(f);
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
	stir_format_rule *rule = stir_format_rule_ell("_ell", 4);
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
	stir_format_rule *rule = stir_format_rule_ell("_ell", 4);
	ck_assert_int_eq(stir_decompose_format(l.k, "A", 1, &rule), -1);
	ck_assert_str_eq(stir_diag_get_message(stir_ctx_get_diagnostic(l.ctx, 0)),
		"decompose_format: iteration 'bsrmm' does not iterate the axes of 'A' "
		"in order, as plain axes");
	stir_format_rule_free(rule);
	unload(&l);

	/* rules that cover the rows and rules that do not, in either order */
	for (int first = 0; first < 2; first++) {
		l = load("examples/csrmm.stir");
		char *before = stir_module_to_str(l.m);
		stir_format_rule *rules[2] = {
			stir_format_rule_hybrid_part("_hyb", 0, 0, 1),
			stir_format_rule_hybrid_part("_hyb", 0, 1, 2),
		};
		stir_format_rule_set_cover_rows(rules[first], true);
		ck_assert_int_eq(stir_decompose_format(l.k, "A", 2, rules), -1);
		ck_assert_int_eq(stir_ctx_n_diagnostics(l.ctx), 1);
		ck_assert_str_eq(stir_diag_get_message(stir_ctx_get_diagnostic(
			l.ctx, 0)), first == 0 ?
			"decompose_format: rule '_hyb_0_0' covers the rows and rule "
			"'_hyb_0_1' does not; either every rule covers them or none" :
			"decompose_format: rule '_hyb_0_1' covers the rows and rule "
			"'_hyb_0_0' does not; either every rule covers them or none");
		char *after = stir_module_to_str(l.m);
		ck_assert_str_eq(after, before);
		free(before);
		free(after);
		stir_format_rule_free(rules[0]);
		stir_format_rule_free(rules[1]);
		unload(&l);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("decompose");
	TCase *tc = tcase_create("formats");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_csrmm_formats, 0,
		(int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_csrmm_cover_rows);
	tcase_add_test(tc, test_rgms_ell3d);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
