/* Every catalogue program (examples/*.stir, LANGUAGE.md section 6) runs on
 * the interpreter with seeded random data and matches a reference written
 * plainly here, from the same input arrays, in double precision; lowered to
 * stages II and III it computes the same on the same inputs. */
#include <math.h>
#include <stir/stir.h>
#include "tests/testutil.h"

#define N_SEEDS 12

/* The inputs (copied before the run) and the outputs of one run. */
typedef struct run {
	stir_bindings *in;
	stir_bindings *out;
} run;

static double at(const stir_bindings *b, const char *name, int64_t i)
{
	const stir_array *a = stir_bindings_get_array(b, name);
	ck_assert_msg(a != NULL, "no array %s", name);
	ck_assert_msg(i >= 0 && i < stir_array_get_len(a), "%s[%lld] out of range",
		name, (long long)i);
	return stir_array_get_double(a, i);
}

static int64_t iat(const stir_bindings *b, const char *name, int64_t i)
{
	return (int64_t)at(b, name, i);
}

static int64_t size(const stir_bindings *b, const char *name)
{
	int64_t v = -1;
	ck_assert_msg(stir_bindings_get_size(b, name, &v), "no size %s", name);
	return v;
}

/* got, want, what: a float result against its reference. */
static void expect_close(double got, double want, double tol, const char *what,
	int64_t i)
{
	ck_assert_msg(fabs(got - want) <= tol * (1 + fabs(want)),
		"%s[%lld]: got %.9g, expected %.9g", what, (long long)i, got, want);
}

/* Dense row i of CSR (indptr/indices/values named by prefix) at column c. */
static double csr_at(const stir_bindings *b, const char *indptr,
	const char *indices, const char *values, int64_t i, int64_t c)
{
	for (int64_t p = iat(b, indptr, i); p < iat(b, indptr, i + 1); p++)
		if (iat(b, indices, p) == c)
			return at(b, values, p);
	return 0;
}

static void ref_csrmm(const run *r)
{
	int64_t m = size(r->in, "m"), n = size(r->in, "n"), f = size(r->in, "feat");
	for (int64_t i = 0; i < m; i++)
		for (int64_t k = 0; k < f; k++) {
			double s = 0;
			for (int64_t c = 0; c < n; c++)
				s += csr_at(r->in, "J.indptr", "J.indices", "A", i, c) *
					at(r->in, "B", c * f + k);
			expect_close(at(r->out, "C", i * f + k), s, 1e-5, "C", i * f + k);
		}
}

static void ref_sddmm(const run *r)
{
	int64_t m = size(r->in, "m"), n = size(r->in, "n"), f = size(r->in, "feat");
	for (int64_t i = 0; i < m; i++)
		for (int64_t c = 0; c < n; c++) {
			/* the dense product, masked by the structure */
			double s = 0;
			for (int64_t k = 0; k < f; k++)
				s += at(r->in, "X", i * f + k) * at(r->in, "Y", c * f + k);
			for (int64_t p = iat(r->in, "J.indptr", i);
			     p < iat(r->in, "J.indptr", i + 1); p++)
				if (iat(r->in, "J.indices", p) == c)
					expect_close(at(r->out, "S", p), s, 1e-5, "S", p);
		}
}

static void ref_bsrmm(const run *r)
{
	int64_t mb = size(r->in, "mb"), nb = size(r->in, "nb"),
		f = size(r->in, "feat");
	/* dense (mb*16) x (nb*16) matrix times dense (nb*16) x f */
	for (int64_t row = 0; row < mb * 16; row++)
		for (int64_t k = 0; k < f; k++) {
			double s = 0;
			int64_t i = row / 16, bi = row % 16;
			for (int64_t col = 0; col < nb * 16; col++) {
				int64_t j = col / 16, bj = col % 16;
				double a = 0;
				for (int64_t p = iat(r->in, "J.indptr", i);
				     p < iat(r->in, "J.indptr", i + 1); p++)
					if (iat(r->in, "J.indices", p) == j)
						a = at(r->in, "A", (p * 16 + bi) * 16 + bj);
				s += a * at(r->in, "B", (j * 16 + bj) * f + k);
			}
			expect_close(at(r->out, "C", (i * 16 + bi) * f + k), s, 1e-4,
				"C", row * f + k);
		}
}

static void ref_ellmv(const run *r)
{
	int64_t m = size(r->in, "m"), c = size(r->in, "c");
	for (int64_t i = 0; i < m; i++) {
		double s = 0;
		for (int64_t q = 0; q < c; q++)
			s += at(r->in, "A", i * c + q) *
				at(r->in, "x", iat(r->in, "J.indices", i * c + q));
		expect_close(at(r->out, "y", i), s, 1e-5, "y", i);
	}
}

static void ref_segment_sum(const run *r)
{
	int64_t m = size(r->in, "m");
	for (int64_t i = 0; i < m; i++) {
		double s = 0;
		for (int64_t p = iat(r->in, "J.indptr", i);
		     p < iat(r->in, "J.indptr", i + 1); p++)
			s += at(r->in, "A", p);
		expect_close(at(r->out, "B", i), s, 1e-5, "B", i);
	}
}

static void ref_csf_square_sum(const run *r)
{
	int64_t m = size(r->in, "m");
	for (int64_t i = 0; i < m; i++) {
		double s = 0;
		for (int64_t p = iat(r->in, "J.indptr", i);
		     p < iat(r->in, "J.indptr", i + 1); p++)
			for (int64_t q = iat(r->in, "K.indptr", p);
			     q < iat(r->in, "K.indptr", p + 1); q++)
				s += at(r->in, "A", q) * at(r->in, "A", q);
		expect_close(at(r->out, "B", i), s, 1e-5, "B", i);
	}
}

/* r, i, fo, w_in_out: sum over relations of (A_r X W_r^T)[i, fo], with A_r
 * dense; W[r] is fout x fin (rgms.stir), or with w_in_out fin x fout
 * (rgms_agg.stir, rgms_edge.stir, rgcn_layer.stir). */
static double rgms_at(const run *r, int64_t i, int64_t fo, bool w_in_out)
{
	int64_t nr = size(r->in, "r"), n = size(r->in, "n"),
		fin = size(r->in, "fin"), fout = size(r->in, "fout");
	double s = 0;
	for (int64_t rr = 0; rr < nr; rr++)
		for (int64_t pi = iat(r->in, "I.indptr", rr);
		     pi < iat(r->in, "I.indptr", rr + 1); pi++) {
			if (iat(r->in, "I.indices", pi) != i)
				continue;
			for (int64_t j = 0; j < n; j++) {
				double a = csr_at(r->in, "J.indptr", "J.indices", "A", pi, j);
				for (int64_t fi = 0; fi < fin; fi++)
					s += a * at(r->in, "W", w_in_out ?
						(rr * fin + fi) * fout + fo :
						(rr * fout + fo) * fin + fi) *
						at(r->in, "X", j * fin + fi);
			}
		}
	return s;
}

/* r, w_in_out: Y = sum over relations of A_r X W_r^T (rgms_at). */
static void check_rgms(const run *r, bool w_in_out)
{
	int64_t m = size(r->in, "m"), fout = size(r->in, "fout");
	for (int64_t i = 0; i < m; i++)
		for (int64_t fo = 0; fo < fout; fo++)
			expect_close(at(r->out, "Y", i * fout + fo),
				rgms_at(r, i, fo, w_in_out), 1e-4, "Y", i * fout + fo);
}

static void ref_rgms(const run *r)
{
	check_rgms(r, false);
}

static void ref_rgms_agg(const run *r)
{
	check_rgms(r, true);
}

/* One RGCN layer: X W0 (X read at row i, 0 past its n rows) plus the
 * relational sum, then ReLU when relu is not 0. */
static void ref_rgcn_layer(const run *r)
{
	int64_t m = size(r->in, "m"), n = size(r->in, "n"),
		fin = size(r->in, "fin"), fout = size(r->in, "fout");
	bool relu = size(r->in, "relu") != 0;
	for (int64_t i = 0; i < m; i++)
		for (int64_t fo = 0; fo < fout; fo++) {
			double s = rgms_at(r, i, fo, true);
			for (int64_t fi = 0; i < n && fi < fin; fi++)
				s += at(r->in, "X", i * fin + fi) *
					at(r->in, "W0", fi * fout + fo);
			if (relu && s < 0)
				s = 0;
			expect_close(at(r->out, "Y", i * fout + fo), s, 1e-4, "Y",
				i * fout + fo);
		}
}

static void ref_rgcn_homo(const run *r)
{
	int64_t m = size(r->in, "m"), fin = size(r->in, "fin"),
		fout = size(r->in, "fout"), nr = size(r->in, "r");
	for (int64_t i = 0; i < m; i++)
		for (int64_t fo = 0; fo < fout; fo++) {
			double s = 0;
			for (int64_t p = iat(r->in, "J.indptr", i);
			     p < iat(r->in, "J.indptr", i + 1); p++) {
				int64_t e = iat(r->in, "E", p);
				ck_assert(e >= 0 && e < nr);
				for (int64_t fi = 0; fi < fin; fi++)
					s += at(r->in, "W", (e * fout + fo) * fin + fi) *
						at(r->in, "X", iat(r->in, "J.indices", p) * fin + fi);
			}
			expect_close(at(r->out, "Y", i * fout + fo), s, 1e-4, "Y",
				i * fout + fo);
		}
}

static void ref_csr_softmax(const run *r)
{
	int64_t m = size(r->in, "m");
	for (int64_t i = 0; i < m; i++) {
		int64_t lo = iat(r->in, "J.indptr", i), hi = iat(r->in, "J.indptr", i + 1);
		double mx = -INFINITY, s = 0;
		for (int64_t p = lo; p < hi; p++)
			mx = fmax(mx, at(r->in, "A", p));
		for (int64_t p = lo; p < hi; p++)
			s += exp(at(r->in, "A", p) - mx);
		for (int64_t p = lo; p < hi; p++)
			expect_close(at(r->out, "B", p), exp(at(r->in, "A", p) - mx) / s,
				1e-5, "B", p);
	}
}

static void ref_csr2bsr(const run *r)
{
	int64_t m = size(r->in, "m"), nnzb = size(r->in, "nnzb");
	/* start from B's old values; copy every entry whose block exists */
	int64_t len = nnzb * 16;
	double *want = malloc((size_t)(len ? len : 1) * sizeof(double));
	for (int64_t q = 0; q < len; q++)
		want[q] = at(r->in, "B", q);
	int64_t mb = size(r->in, "mb");
	for (int64_t i = 0; i < m; i++)
		for (int64_t p = iat(r->in, "J.indptr", i);
		     p < iat(r->in, "J.indptr", i + 1); p++) {
			int64_t j = iat(r->in, "J.indices", p);
			if (i / 4 >= mb)
				continue;
			for (int64_t pb = iat(r->in, "JO.indptr", i / 4);
			     pb < iat(r->in, "JO.indptr", i / 4 + 1); pb++)
				if (iat(r->in, "JO.indices", pb) == j / 4)
					want[(pb * 4 + i % 4) * 4 + j % 4] = at(r->in, "A", p);
		}
	for (int64_t q = 0; q < len; q++)
		ck_assert_msg(at(r->out, "B", q) == (float)want[q],
			"B[%lld]: got %g, expected %g", (long long)q, at(r->out, "B", q),
			want[q]);
	free(want);
}

/* A catalogue program, sizes that make its random data meaningful, and its
 * reference. */
typedef struct program {
	const char *file;
	const char *sizes[4];   /* NAME=VALUE pairs bound before --random */
	void (*reference)(const run *r);
} program;

static const program programs[] = {
	{ "examples/csrmm.stir", { 0 }, ref_csrmm },
	{ "examples/sddmm.stir", { 0 }, ref_sddmm },
	{ "examples/sddmm_rows.stir", { 0 }, ref_sddmm },
	{ "examples/bsrmm.stir", { "feat=3", "mb=3", "nb=3" }, ref_bsrmm },
	{ "examples/ellmv.stir", { 0 }, ref_ellmv },
	{ "examples/segment_sum.stir", { 0 }, ref_segment_sum },
	{ "examples/csf_square_sum.stir", { 0 }, ref_csf_square_sum },
	{ "examples/rgms.stir", { "fin=3", "fout=2" }, ref_rgms },
	/* the aggregated order: the same Y (its T is an intermediate) */
	{ "examples/rgms_agg.stir", { "fin=3", "fout=2" }, ref_rgms_agg },
	{ "examples/rgms_edge.stir", { "fin=3", "fout=2" }, ref_rgms_agg },
	{ "examples/rgcn_layer.stir", { "fin=3", "fout=2", "relu=1" },
	  ref_rgcn_layer },
	{ "examples/rgcn_homo.stir", { 0 }, ref_rgcn_homo },
	{ "examples/csr_softmax.stir", { 0 }, ref_csr_softmax },
	/* mb, nb cover the CSR matrix's blocks so that most entries land */
	{ "examples/csr2bsr.stir", { "m=9", "n=10", "mb=3", "nb=3" }, ref_csr2bsr },
};

#define N_PROGRAMS (int)(sizeof(programs) / sizeof(programs[0]))

/* p, k, in, want, stage: lower a copy of k's program to "stage", run it on
 * a copy of the inputs "in" and compare every tensor with the stage I
 * results "want". */
static void check_stage(const program *p, const stir_kernel *k,
	const stir_bindings *in, const stir_bindings *want, int stage)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx, test_path(p->file));
	ck_assert_ptr_nonnull(m);
	int rc = stir_module_lower_sparse_iter(m);
	if (rc == 0 && stage == 3)
		rc = stir_module_lower_sparse_buffer(m);
	if (rc)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_msg(rc == 0, "%s does not lower to stage %d", p->file, stage);
	stir_kernel *lk = stir_module_get_kernel(m, 0);
	ck_assert_int_eq(stir_kernel_get_stage(lk), stage);
	stir_bindings *b = stir_bindings_copy(in);
	rc = stir_kernel_interpret(lk, b);
	if (rc)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_msg(rc == 0, "%s fails at stage %d", p->file, stage);
	for (int i = 0; i < stir_kernel_n_buffers(k); i++) {
		const stir_buffer *buf = stir_kernel_get_buffer(k, i);
		if (stir_buffer_get_kind(buf) != STIR_BUFFER_TENSOR)
			continue;
		const char *name = stir_buffer_get_name(buf);
		const stir_array *got = stir_bindings_get_array(b, name);
		int64_t n = stir_array_get_len(got);
		ck_assert_int_eq(n, stir_array_get_len(stir_bindings_get_array(want,
			name)));
		for (int64_t j = 0; j < n; j++)
			expect_close(stir_array_get_double(got, j), at(want, name, j),
				1e-6, name, j);
	}
	stir_bindings_free(b);
	stir_module_free(m);
	stir_ctx_free(ctx);
}

/* p, seed: read, bind, run and compare one program with one seed. */
static void run_program(const program *p, uint64_t seed)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx, test_path(p->file));
	if (!m)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_msg(m != NULL, "%s does not read", p->file);
	ck_assert_int_eq(stir_module_n_kernels(m), 1);
	stir_kernel *k = stir_module_get_kernel(m, 0);
	stir_bindings *b = stir_bindings_alloc();
	for (int i = 0; i < 4 && p->sizes[i]; i++) {
		char name[32];
		long long v;
		ck_assert(sscanf(p->sizes[i], "%31[^=]=%lld", name, &v) == 2);
		stir_bindings_set_size(b, name, v);
	}
	ck_assert_int_eq(stir_kernel_bind_random(k, b, seed), 0);
	run r = { stir_bindings_copy(b), b };
	int rc = stir_kernel_interpret(k, b);
	if (rc)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_int_eq(rc, 0);
	p->reference(&r);
	for (int stage = 2; stage <= 3; stage++)
		check_stage(p, k, r.in, b, stage);
	stir_bindings_free(r.in);
	stir_bindings_free(b);
	stir_module_free(m);
	stir_ctx_free(ctx);
}

START_TEST(test_program)
{
	for (uint64_t seed = 1; seed <= N_SEEDS; seed++)
		run_program(&programs[_i], seed);
}
END_TEST

/* The example on real graphs: csrmm on cora and citeseer, against a plain
 * CSR product computed from the Matrix Market file directly. */
static void run_graph(const char *file, int64_t feat)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx, test_path("examples/csrmm.stir"));
	ck_assert_ptr_nonnull(m);
	stir_kernel *k = stir_module_get_kernel(m, 0);
	stir_csr *csr = stir_mtx_read_from_file(ctx, test_path(file));
	ck_assert_ptr_nonnull(csr);
	stir_bindings *b = stir_bindings_alloc();
	stir_bindings_set_size(b, "feat", feat);
	/* a matrix without its values is refused, with the tensor's name */
	double *v = csr->values;
	csr->values = NULL;
	ck_assert_int_eq(stir_kernel_bind_csr(k, b, "A", csr), -1);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert(strstr(stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 0)),
		"the matrix bound to 'A' has no values (NULL)") != NULL);
	stir_ctx_clear_diagnostics(ctx);
	csr->values = v;
	ck_assert_int_eq(stir_kernel_bind_csr(k, b, "A", csr), 0);
	ck_assert_int_eq(stir_kernel_bind_random(k, b, 42), 0);
	stir_bindings *in = stir_bindings_copy(b);
	ck_assert_int_eq(stir_kernel_interpret(k, b), 0);
	for (int64_t i = 0; i < csr->nrows; i++)
		for (int64_t f = 0; f < feat; f++) {
			double s = 0;
			for (int64_t p = csr->indptr[i]; p < csr->indptr[i + 1]; p++)
				s += csr->values[p] * at(in, "B", csr->indices[p] * feat + f);
			expect_close(at(b, "C", i * feat + f), s, 1e-5, "C", i * feat + f);
		}
	stir_csr_free(csr);
	stir_bindings_free(in);
	stir_bindings_free(b);
	stir_module_free(m);
	stir_ctx_free(ctx);
}

START_TEST(test_cora)
{
	run_graph("examples/data/cora.mtx.gz", 16);
}
END_TEST

START_TEST(test_citeseer)
{
	run_graph("examples/data/citeseer.mtx.gz", 16);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("catalogue");
	TCase *tc = tcase_create("programs");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_program, 0, N_PROGRAMS);
	suite_add_tcase(s, tc);
	TCase *tg = tcase_create("graphs");
	tcase_set_timeout(tg, 60);
	tcase_add_test(tg, test_cora);
	tcase_add_test(tg, test_citeseer);
	suite_add_tcase(s, tg);
	return test_run_suite(s);
}
