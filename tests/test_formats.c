/* Tests of the host format builders and the conservation checker
 * (formats/ell.c, block.c, hybrid.c, verify.c; docs/formats.md):
 * - small hand-made matrices whose expected arrays are written out below;
 * - seeded random matrices with empty rows, rows of one entry, full rows
 *   and long rows (cut into several hybrid chunks), every format checked
 *   for conservation, with 32- and 64-bit indices agreeing;
 * - cora and citeseer from examples/data, and ELL3D on a prefix of the
 *   AIFB heterograph (tests/data/formats/aifb-head.hetero.gz: the first
 *   4000 edges of /work/shared/data/aifb.hetero.gz, "src dst relation");
 * - invalid inputs and parameters with their exact messages, and built
 *   arrays tampered with so that the checker must name the violation. */
#include <inttypes.h>
#include <math.h>
#include <stir/formats.h>
#include "formats/format_internal.h"
#include "tests/testio.h"

/* ---- helpers ---- */

/* nrows, ncols, indptr, indices, values: a CSR matrix holding copies of
 * the arrays (indptr has nrows + 1 entries, the others indptr[nrows]). */
static stir_csr *make_csr(int64_t nrows, int64_t ncols, const int64_t *indptr,
	const int64_t *indices, const double *values)
{
	stir_csr *m = calloc(1, sizeof(*m));
	ck_assert_ptr_nonnull(m);
	m->nrows = nrows;
	m->ncols = ncols;
	m->nnz = indptr[nrows];
	m->indptr = malloc((nrows + 1) * sizeof(int64_t));
	m->indices = malloc((m->nnz ? m->nnz : 1) * sizeof(int64_t));
	m->values = malloc((m->nnz ? m->nnz : 1) * sizeof(double));
	ck_assert(m->indptr && m->indices && m->values);
	memcpy(m->indptr, indptr, (nrows + 1) * sizeof(int64_t));
	if (m->nnz) {
		memcpy(m->indices, indices, m->nnz * sizeof(int64_t));
		memcpy(m->values, values, m->nnz * sizeof(double));
	}
	return m;
}

/* The 5 x 6 matrix most hand-made tests use:
 *   row 0: (0) 1, (2) 2
 *   row 1: empty
 *   row 2: (1) 3, (2) 4, (3) 5, (5) 6
 *   row 3: (4) 7
 *   row 4: every column, 8 .. 13 */
static stir_csr *matrix_m(void)
{
	static const int64_t indptr[] = { 0, 2, 2, 6, 7, 13 };
	static const int64_t indices[] = { 0, 2, 1, 2, 3, 5, 4,
		0, 1, 2, 3, 4, 5 };
	static const double values[] = { 1, 2, 3, 4, 5, 6, 7,
		8, 9, 10, 11, 12, 13 };
	return make_csr(5, 6, indptr, indices, values);
}

/* A 6 x 4 matrix with an empty block row for b = 2:
 *   row 0: (1) 1; row 1: (3) 2; rows 2, 3: empty;
 *   row 4: (0) 3, (2) 4; row 5: (2) 5 */
static stir_csr *matrix_m2(void)
{
	static const int64_t indptr[] = { 0, 1, 2, 2, 2, 4, 5 };
	static const int64_t indices[] = { 1, 3, 0, 2, 2 };
	static const double values[] = { 1, 2, 3, 4, 5 };
	return make_csr(6, 4, indptr, indices, values);
}

/* b, name, n, want: array "name" must be bound to n integers equal to
 * want, with index type "type". */
static void expect_ints(const stir_bindings *b, const char *name,
	stir_dtype type, int64_t n, const int64_t *want)
{
	const stir_array *a = stir_bindings_get_array(b, name);
	ck_assert_msg(a != NULL, "array %s not bound", name);
	ck_assert_int_eq(stir_array_get_dtype(a), type);
	ck_assert_int_eq(stir_array_get_len(a), n);
	for (int64_t i = 0; i < n; i++)
		if (stir_array_get_int(a, i) != want[i])
			ck_abort_msg("%s[%" PRId64 "] = %" PRId64 ", expected %"
				PRId64, name, i, stir_array_get_int(a, i),
				want[i]);
}

/* b, name, n, want: array "name" must be bound to n f32 values equal to
 * want. */
static void expect_vals(const stir_bindings *b, const char *name, int64_t n,
	const double *want)
{
	const stir_array *a = stir_bindings_get_array(b, name);
	ck_assert_msg(a != NULL, "array %s not bound", name);
	ck_assert_int_eq(stir_array_get_dtype(a), STIR_F32);
	ck_assert_int_eq(stir_array_get_len(a), n);
	for (int64_t i = 0; i < n; i++)
		if (stir_array_get_double(a, i) != want[i])
			ck_abort_msg("%s[%" PRId64 "] = %g, expected %g", name,
				i, stir_array_get_double(a, i), want[i]);
}

/* b, name, want: size "name" must be bound to want. */
static void expect_size(const stir_bindings *b, const char *name, int64_t want)
{
	int64_t v;
	ck_assert_msg(stir_bindings_get_size(b, name, &v), "size %s not bound",
		name);
	ck_assert_int_eq(v, want);
}

/* ctx, msg: the context holds exactly one diagnostic, an error with this
 * message; it is then cleared. */
static void expect_error(stir_ctx *ctx, const char *msg)
{
	ck_assert_str_eq(test_only_error(ctx), msg);
	stir_ctx_clear_diagnostics(ctx);
}

/* ctx, f, csr, b: f, built without diagnostics, passes the checker. */
static void expect_conserved(stir_ctx *ctx, const stir_host_format *f,
	const stir_csr *csr, const stir_bindings *b)
{
	ck_assert_msg(f != NULL, "build failed: %s", stir_ctx_n_diagnostics(ctx)
		? stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 0)) : "?");
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	int r = stir_host_format_verify(ctx, f, csr, b);
	ck_assert_msg(r == 0, "not conserved: %s", stir_ctx_n_diagnostics(ctx)
		? stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 0)) : "?");
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
}

/* f, i: part i of f, which must exist. */
static const stir_host_format_part *part_at(const stir_host_format *f, int i)
{
	const stir_host_format_part *p = stir_host_format_get_part(f, i);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* b32, b64: the same format built with i32 and i64 indices: the same
 * names, lengths and sizes, equal values, equal indices. */
static void expect_same_bindings(const stir_bindings *b32,
	const stir_bindings *b64)
{
	ck_assert_int_eq(stir_bindings_n_arrays(b32), stir_bindings_n_arrays(b64));
	ck_assert_int_eq(stir_bindings_n_sizes(b32), stir_bindings_n_sizes(b64));
	for (int i = 0; i < stir_bindings_n_sizes(b64); i++) {
		const char *name = stir_bindings_get_size_name(b64, i);
		int64_t v64, v32;
		ck_assert(stir_bindings_get_size(b64, name, &v64));
		ck_assert_msg(stir_bindings_get_size(b32, name, &v32), "%s", name);
		ck_assert_int_eq(v32, v64);
	}
	for (int i = 0; i < stir_bindings_n_arrays(b64); i++) {
		const char *name = stir_bindings_get_array_name(b64, i);
		const stir_array *a64 = stir_bindings_get_array(b64, name);
		const stir_array *a32 = stir_bindings_get_array(b32, name);
		ck_assert_msg(a32 != NULL, "%s only in the i64 build", name);
		int64_t n = stir_array_get_len(a64);
		ck_assert_int_eq(stir_array_get_len(a32), n);
		bool index = stir_array_get_dtype(a64) == STIR_I64;
		ck_assert_int_eq(stir_array_get_dtype(a32),
			index ? STIR_I32 : stir_array_get_dtype(a64));
		/* (ck_assert marks a point per call: too slow for arrays) */
		for (int64_t k = 0; k < n; k++) {
			if (index ? stir_array_get_int(a32, k) !=
				stir_array_get_int(a64, k) :
			    stir_array_get_double(a32, k) !=
				stir_array_get_double(a64, k))
				ck_abort_msg("%s differs at %" PRId64, name, k);
		}
	}
}

/* The formats the random and graph tests build, with their parameters. */
typedef struct fmt_case {
	stir_format_kind kind;
	int64_t p1;              /* w, p, b, t; hybrid: c */
	int64_t p2;              /* SR-BCRS: g */
	int nbuckets;            /* hybrid */
	int64_t buckets[8];      /* hybrid */
} fmt_case;

/* ctx, csr, fc, itype, vtype, b: build case fc of csr into b. */
static stir_host_format *build_case(stir_ctx *ctx, const stir_csr *csr,
	const fmt_case *fc, stir_dtype itype, stir_dtype vtype, stir_bindings *b)
{
	switch (fc->kind) {
	case STIR_FORMAT_ELL:
		return stir_csr_to_ell(ctx, csr, fc->p1, itype, vtype, "_x", b);
	case STIR_FORMAT_PADDING:
		return stir_csr_to_padding(ctx, csr, fc->p1, itype, vtype, "_x",
			b);
	case STIR_FORMAT_HYBRID:
		return stir_csr_to_hybrid(ctx, csr, (int)fc->p1, fc->nbuckets,
			fc->buckets, itype, vtype, "_x", b);
	case STIR_FORMAT_BSR:
		return stir_csr_to_bsr(ctx, csr, fc->p1, itype, vtype, "_x", b);
	case STIR_FORMAT_DBSR:
		return stir_csr_to_dbsr(ctx, csr, fc->p1, itype, vtype, "_x", b);
	case STIR_FORMAT_SR_BCRS:
		return stir_csr_to_sr_bcrs(ctx, csr, fc->p1, fc->p2, itype,
			vtype, "_x", b);
	default:
		ck_abort_msg("no such case");
		return NULL;
	}
}

/* ctx, csr, fc: build fc with i32 and i64 indices and f32 values, check
 * both for conservation and that they agree; also build with vtype
 * values (f16, bf16, f64) and check conservation.  The i64 description,
 * for the caller to inspect, is returned with its bindings in *out. */
static stir_host_format *check_case(stir_ctx *ctx, const stir_csr *csr,
	const fmt_case *fc, stir_dtype vtype, stir_bindings **out)
{
	stir_bindings *b32 = stir_bindings_alloc();
	stir_bindings *b64 = stir_bindings_alloc();
	stir_host_format *f32 = build_case(ctx, csr, fc, STIR_I32, STIR_F32, b32);
	expect_conserved(ctx, f32, csr, b32);
	stir_host_format *f64 = build_case(ctx, csr, fc, STIR_I64, STIR_F32, b64);
	expect_conserved(ctx, f64, csr, b64);
	expect_same_bindings(b32, b64);
	ck_assert_int_eq(stir_host_format_n_parts(f32), stir_host_format_n_parts(f64));
	for (int i = 0; i < stir_host_format_n_parts(f64); i++) {
		const stir_host_format_part *p = part_at(f32, i), *q = part_at(f64, i);
		ck_assert_str_eq(p->suffix, q->suffix);
		ck_assert_int_eq(p->rows, q->rows);
		ck_assert_int_eq(p->slots, q->slots);
	}
	stir_host_format_free(f32);
	stir_bindings_free(b32);
	stir_bindings *bv = stir_bindings_alloc();
	stir_host_format *fv = build_case(ctx, csr, fc, STIR_I32, vtype, bv);
	expect_conserved(ctx, fv, csr, bv);
	stir_host_format_free(fv);
	stir_bindings_free(bv);
	*out = b64;
	return f64;
}

/* f, csr: general properties of every description: the real entries of
 * the parts add up to the matrix's, rows are never 0, and the slots are
 * rows x width for the row formats. */
static void check_description(const stir_host_format *f, const stir_csr *csr)
{
	int64_t nnz = 0;
	for (int i = 0; i < stir_host_format_n_parts(f); i++) {
		const stir_host_format_part *p = part_at(f, i);
		ck_assert_int_gt(p->rows, 0);
		ck_assert_int_ge(p->slots, p->nnz);
		nnz += p->nnz;
		if (stir_host_format_get_kind(f) == STIR_FORMAT_ELL ||
		    stir_host_format_get_kind(f) == STIR_FORMAT_HYBRID)
			ck_assert_int_eq(p->slots, p->rows * p->width);
	}
	ck_assert_int_eq(nnz, csr->nnz);
}

/* ---- hand-made matrices ---- */

START_TEST(test_ell_small)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_m();
	stir_bindings *b = stir_bindings_alloc();
	stir_host_format *f = stir_csr_to_ell(ctx, m, 6, STIR_I32, STIR_F32, "_e", b);
	expect_conserved(ctx, f, m, b);
	/* padding at the smallest column absent from the row */
	const int64_t j[] = {
		0, 2, 1, 1, 1, 1,
		0, 0, 0, 0, 0, 0,
		1, 2, 3, 5, 0, 0,
		4, 0, 0, 0, 0, 0,
		0, 1, 2, 3, 4, 5 };
	const double a[] = {
		1, 2, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0,
		3, 4, 5, 6, 0, 0,
		7, 0, 0, 0, 0, 0,
		8, 9, 10, 11, 12, 13 };
	expect_ints(b, "J_e.indices", STIR_I32, 30, j);
	expect_vals(b, "A_e", 30, a);
	ck_assert_int_eq(stir_bindings_n_arrays(b), 2);
	ck_assert_int_eq(stir_bindings_n_sizes(b), 0);
	ck_assert_int_eq(stir_host_format_get_kind(f), STIR_FORMAT_ELL);
	ck_assert_str_eq(stir_host_format_get_suffix(f), "_e");
	ck_assert_int_eq(stir_host_format_get_index_type(f), STIR_I32);
	ck_assert_int_eq(stir_host_format_get_value_type(f), STIR_F32);
	ck_assert_int_eq(stir_host_format_n_parts(f), 1);
	const stir_host_format_part *p = part_at(f, 0);
	ck_assert_str_eq(p->suffix, "_e");
	ck_assert_int_eq(p->rows, 5);
	ck_assert_int_eq(p->width, 6);
	ck_assert(!p->split);
	ck_assert_int_eq(p->nnz, 13);
	ck_assert_int_eq(p->slots, 30);
	ck_assert_ptr_null(stir_host_format_get_part(f, 1));
	stir_host_format_free(f);

	/* too narrow, and too wide for the full row 4 */
	f = stir_csr_to_ell(ctx, m, 4, STIR_I32, STIR_F32, "_e", b);
	ck_assert_ptr_null(f);
	expect_error(ctx, "ELL: row 4 has 6 entries, more than the width 4");
	f = stir_csr_to_ell(ctx, m, 7, STIR_I32, STIR_F32, "_e", b);
	ck_assert_ptr_null(f);
	const stir_diag *d = stir_ctx_get_diagnostic(ctx, 0);
	ck_assert_int_eq(stir_diag_n_notes(d), 1);
	ck_assert_str_eq(stir_diag_get_message(stir_diag_get_note(d, 0)),
		"row 4 holds every column, so no column is left to pad it");
	expect_error(ctx, "ELL: width 7 exceeds the 6 columns of the matrix");
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_padding_small)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_m();
	stir_bindings *b = stir_bindings_alloc();
	stir_host_format *f = stir_csr_to_padding(ctx, m, 3, STIR_I64, STIR_F32,
		"_p", b);
	expect_conserved(ctx, f, m, b);
	const int64_t ptr[] = { 0, 3, 3, 9, 12, 18 };
	const int64_t j[] = { 0, 2, 1, 1, 2, 3, 5, 0, 0, 4, 0, 0,
		0, 1, 2, 3, 4, 5 };
	const double a[] = { 1, 2, 0, 3, 4, 5, 6, 0, 0, 7, 0, 0,
		8, 9, 10, 11, 12, 13 };
	expect_ints(b, "J_p.indptr", STIR_I64, 6, ptr);
	expect_ints(b, "J_p.indices", STIR_I64, 18, j);
	expect_vals(b, "A_p", 18, a);
	expect_size(b, "nnz_p", 18);
	ck_assert_int_eq(stir_host_format_n_parts(f), 1);
	ck_assert_int_eq(part_at(f, 0)->slots, 18);
	ck_assert_int_eq(part_at(f, 0)->width, 3);
	stir_host_format_free(f);

	/* a multiple of 1 is the CSR itself */
	f = stir_csr_to_padding(ctx, m, 1, STIR_I64, STIR_F32, "_p", b);
	expect_conserved(ctx, f, m, b);
	expect_ints(b, "J_p.indptr", STIR_I64, 6, m->indptr);
	expect_ints(b, "J_p.indices", STIR_I64, 13, m->indices);
	expect_vals(b, "A_p", 13, m->values);
	expect_size(b, "nnz_p", 13);
	stir_host_format_free(f);

	f = stir_csr_to_padding(ctx, m, 4, STIR_I64, STIR_F32, "_p", b);
	ck_assert_ptr_null(f);
	expect_error(ctx, "padding: row 4 holds all 6 columns of the matrix, "
		"so no column is left to pad its 6 entries to a multiple of 4");
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_bsr_small)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_m();
	stir_bindings *b = stir_bindings_alloc();
	stir_host_format *f = stir_csr_to_bsr(ctx, m, 2, STIR_I32, STIR_F32, "_b", b);
	expect_conserved(ctx, f, m, b);
	const int64_t ptr[] = { 0, 2, 5, 8 };
	const int64_t j[] = { 0, 1, 0, 1, 2, 0, 1, 2 };
	/* the last block row lies half outside the 5 rows */
	const double a[] = {
		1, 0, 0, 0,   2, 0, 0, 0,
		0, 3, 0, 0,   4, 5, 0, 0,   0, 6, 7, 0,
		8, 9, 0, 0,   10, 11, 0, 0, 12, 13, 0, 0 };
	expect_ints(b, "JB_b.indptr", STIR_I32, 4, ptr);
	expect_ints(b, "JB_b.indices", STIR_I32, 8, j);
	expect_vals(b, "A_b", 32, a);
	expect_size(b, "mb_b", 3);
	expect_size(b, "nb_b", 3);
	expect_size(b, "nnzb_b", 8);
	const stir_array *va = stir_bindings_get_array(b, "A_b");
	ck_assert_int_eq(stir_array_get_ndim(va), 3);
	ck_assert_int_eq(stir_array_get_dim(va, 1), 2);
	const stir_host_format_part *p = part_at(f, 0);
	ck_assert_int_eq(p->rows, 3);
	ck_assert_int_eq(p->mb, 3);
	ck_assert_int_eq(p->nb, 3);
	ck_assert_int_eq(p->nnzb, 8);
	ck_assert_int_eq(p->slots, 32);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m);

	/* an empty block row stays in BSR */
	m = matrix_m2();
	b = stir_bindings_alloc();
	f = stir_csr_to_bsr(ctx, m, 2, STIR_I64, STIR_F32, "", b);
	expect_conserved(ctx, f, m, b);
	const int64_t ptr2[] = { 0, 2, 2, 4 };
	const int64_t j2[] = { 0, 1, 0, 1 };
	expect_ints(b, "JB.indptr", STIR_I64, 4, ptr2);
	expect_ints(b, "JB.indices", STIR_I64, 4, j2);
	expect_size(b, "nnzb", 4);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_dbsr_small)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_m2();
	stir_bindings *b = stir_bindings_alloc();
	stir_host_format *f = stir_csr_to_dbsr(ctx, m, 2, STIR_I32, STIR_F32, "_d",
		b);
	expect_conserved(ctx, f, m, b);
	const int64_t rb[] = { 0, 2 };
	const int64_t ptr[] = { 0, 2, 4 };
	const int64_t j[] = { 0, 1, 0, 1 };
	const double a[] = { 0, 1, 0, 0,   0, 0, 0, 2,
		3, 0, 0, 0,   4, 0, 5, 0 };
	expect_ints(b, "RB_d.indices", STIR_I32, 2, rb);
	expect_ints(b, "JB_d.indptr", STIR_I32, 3, ptr);
	expect_ints(b, "JB_d.indices", STIR_I32, 4, j);
	expect_vals(b, "A_d", 16, a);
	expect_size(b, "nbr_d", 2);
	expect_size(b, "mb_d", 3);
	expect_size(b, "nb_d", 2);
	expect_size(b, "nnzb_d", 4);
	const stir_host_format_part *p = part_at(f, 0);
	ck_assert_int_eq(p->rows, 2);
	ck_assert_int_eq(p->nbr, 2);
	ck_assert_int_eq(p->nnzb, 4);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m);

	/* b = 1: the non-empty rows of the CSR */
	m = matrix_m();
	b = stir_bindings_alloc();
	f = stir_csr_to_dbsr(ctx, m, 1, STIR_I32, STIR_F32, "_d", b);
	expect_conserved(ctx, f, m, b);
	const int64_t rb1[] = { 0, 2, 3, 4 };
	const int64_t ptr1[] = { 0, 2, 6, 7, 13 };
	expect_ints(b, "RB_d.indices", STIR_I32, 4, rb1);
	expect_ints(b, "JB_d.indptr", STIR_I32, 5, ptr1);
	expect_ints(b, "JB_d.indices", STIR_I32, 13, m->indices);
	expect_vals(b, "A_d", 13, m->values);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_sr_bcrs_small)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_m();
	stir_bindings *b = stir_bindings_alloc();
	stir_host_format *f = stir_csr_to_sr_bcrs(ctx, m, 2, 2, STIR_I32, STIR_F32,
		"_s", b);
	expect_conserved(ctx, f, m, b);
	const int64_t g[] = { 0, 1, 4, 7 };
	/* row block 1 has 5 tiles: its last group gets column 0, the
	 * smallest absent from rows 2 and 3 */
	const int64_t t[] = { 0, 2,   1, 2, 3, 4, 5, 0,   0, 1, 2, 3, 4, 5 };
	const double a[] = { 1, 0, 2, 0,
		3, 0, 4, 0, 5, 0, 0, 7, 6, 0, 0, 0,
		8, 0, 9, 0, 10, 0, 11, 0, 12, 0, 13, 0 };
	expect_ints(b, "G_s.indptr", STIR_I32, 4, g);
	expect_ints(b, "T_s.indices", STIR_I32, 14, t);
	expect_vals(b, "A_s", 28, a);
	expect_size(b, "mt_s", 3);
	expect_size(b, "maxg_s", 3);
	expect_size(b, "ngroups_s", 7);
	const stir_host_format_part *p = part_at(f, 0);
	ck_assert_int_eq(p->rows, 3);
	ck_assert_int_eq(p->width, 2);
	ck_assert_int_eq(p->ngroups, 7);
	ck_assert_int_eq(p->maxg, 3);
	ck_assert_int_eq(p->slots, 28);
	stir_host_format_free(f);

	/* t = 1: row 4 holds all 6 columns, so its last group repeats its
	 * last column 5 (values 0); the other windows pad with a column
	 * absent from them */
	f = stir_csr_to_sr_bcrs(ctx, m, 1, 4, STIR_I32, STIR_F32, "_s", b);
	ck_assert_ptr_nonnull(f);
	expect_conserved(ctx, f, m, b);
	const int64_t g1[] = { 0, 1, 1, 2, 3, 5 };
	const int64_t t1[] = { 0, 2, 1, 1,   1, 2, 3, 5,   4, 0, 0, 0,
		0, 1, 2, 3,   4, 5, 5, 5 };
	const double a1[] = { 1, 2, 0, 0,   3, 4, 5, 6,   7, 0, 0, 0,
		8, 9, 10, 11,   12, 13, 0, 0 };
	expect_ints(b, "G_s.indptr", STIR_I32, 6, g1);
	expect_ints(b, "T_s.indices", STIR_I32, 20, t1);
	expect_vals(b, "A_s", 20, a1);
	expect_size(b, "maxg_s", 2);
	expect_size(b, "ngroups_s", 5);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_hybrid_small_c1)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_m();
	stir_bindings *b = stir_bindings_alloc();
	const int64_t buckets[] = { 1, 2, 3 };
	stir_host_format *f = stir_csr_to_hybrid(ctx, m, 1, 3, buckets, STIR_I32,
		STIR_F32, "_h", b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 3);
	const int64_t r0[] = { 3 }, c0[] = { 4 };
	const double a0[] = { 7 };
	expect_ints(b, "R_h_0_0.indices", STIR_I32, 1, r0);
	expect_ints(b, "C_h_0_0.indices", STIR_I32, 1, c0);
	expect_vals(b, "A_h_0_0", 1, a0);
	expect_size(b, "rows_h_0_0", 1);
	const int64_t r1[] = { 0 }, c1[] = { 0, 2 };
	const double a1[] = { 1, 2 };
	expect_ints(b, "R_h_0_1.indices", STIR_I32, 1, r1);
	expect_ints(b, "C_h_0_1.indices", STIR_I32, 2, c1);
	expect_vals(b, "A_h_0_1", 2, a1);
	expect_size(b, "rows_h_0_1", 1);
	/* rows 2 (4 entries) and 4 (6) are cut into chunks of 3 */
	const int64_t r2[] = { 2, 2, 4, 4 };
	const int64_t c2[] = { 1, 2, 3,  5, 0, 0,  0, 1, 2,  3, 4, 5 };
	const double a2[] = { 3, 4, 5,  6, 0, 0,  8, 9, 10,  11, 12, 13 };
	expect_ints(b, "R_h_0_2.indices", STIR_I32, 4, r2);
	expect_ints(b, "C_h_0_2.indices", STIR_I32, 12, c2);
	expect_vals(b, "A_h_0_2", 12, a2);
	expect_size(b, "rows_h_0_2", 4);
	ck_assert_int_eq(stir_bindings_n_arrays(b), 9);
	ck_assert_int_eq(stir_bindings_n_sizes(b), 3);
	const char *sfx[] = { "_h_0_0", "_h_0_1", "_h_0_2" };
	const int64_t rows[] = { 1, 1, 4 }, nnz[] = { 1, 2, 10 };
	for (int i = 0; i < 3; i++) {
		const stir_host_format_part *p = part_at(f, i);
		ck_assert_str_eq(p->suffix, sfx[i]);
		ck_assert_int_eq(p->range, 0);
		ck_assert_int_eq(p->bucket, i);
		ck_assert_int_eq(p->width, buckets[i]);
		ck_assert_int_eq(p->rows, rows[i]);
		ck_assert_int_eq(p->nnz, nnz[i]);
		ck_assert_int_eq(p->split, i == 2);
	}
	stir_host_format_free(f);
	stir_bindings_free(b);

	/* empty buckets (widths 3 and 16) give no part and bind nothing */
	b = stir_bindings_alloc();
	const int64_t sparse[] = { 1, 2, 3, 6, 16 };
	f = stir_csr_to_hybrid(ctx, m, 1, 5, sparse, STIR_I32, STIR_F32, "_h",
		b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 3);
	ck_assert_str_eq(part_at(f, 0)->suffix, "_h_0_0");
	ck_assert_str_eq(part_at(f, 1)->suffix, "_h_0_1");
	ck_assert_str_eq(part_at(f, 2)->suffix, "_h_0_3");
	ck_assert_int_eq(part_at(f, 2)->bucket, 3);
	ck_assert(!part_at(f, 2)->split);
	ck_assert_ptr_null(stir_bindings_get_array(b, "A_h_0_2"));
	ck_assert_ptr_null(stir_bindings_get_array(b, "R_h_0_2.indices"));
	ck_assert_ptr_null(stir_bindings_get_array(b, "C_h_0_4.indices"));
	int64_t v;
	ck_assert(!stir_bindings_get_size(b, "rows_h_0_2", &v));
	ck_assert(!stir_bindings_get_size(b, "rows_h_0_4", &v));
	ck_assert_int_eq(stir_bindings_n_arrays(b), 9);
	ck_assert_int_eq(stir_bindings_n_sizes(b), 3);
	const int64_t r3[] = { 2, 4 };
	const int64_t c3[] = { 1, 2, 3, 5, 0, 0,  0, 1, 2, 3, 4, 5 };
	const double a3[] = { 3, 4, 5, 6, 0, 0,  8, 9, 10, 11, 12, 13 };
	expect_ints(b, "R_h_0_3.indices", STIR_I32, 2, r3);
	expect_ints(b, "C_h_0_3.indices", STIR_I32, 12, c3);
	expect_vals(b, "A_h_0_3", 12, a3);
	stir_host_format_free(f);
	stir_bindings_free(b);

	/* the full row 4 cannot be padded to a width above 6, nor its last
	 * chunk to a multiple of 4 */
	b = stir_bindings_alloc();
	const int64_t wide[] = { 1, 2, 8 };
	f = stir_csr_to_hybrid(ctx, m, 1, 3, wide, STIR_I32, STIR_F32, "_h", b);
	ck_assert_ptr_null(f);
	const stir_diag *d = stir_ctx_get_diagnostic(ctx, 0);
	ck_assert_int_eq(stir_diag_n_notes(d), 1);
	ck_assert_str_eq(stir_diag_get_message(stir_diag_get_note(d, 0)),
		"row 4 holds every column, so no column is left to pad its 6 "
		"entries in column range 0");
	expect_error(ctx, "hybrid: bucket width 8 exceeds the 6 columns of the "
		"matrix");
	const int64_t four[] = { 1, 2, 4 };
	f = stir_csr_to_hybrid(ctx, m, 1, 3, four, STIR_I32, STIR_F32, "_h", b);
	ck_assert_ptr_null(f);
	expect_error(ctx, "hybrid: row 4 holds all 6 columns of the matrix, so "
		"no column is left to pad its 6 entries in column range 0 to a "
		"multiple of 4");
	ck_assert_int_eq(stir_bindings_n_arrays(b), 0);
	ck_assert_int_eq(stir_bindings_n_sizes(b), 0);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_hybrid_flags)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_m();
	/* every part bound: the empty buckets 2 (width 3) and 4 (16) as
	 * arrays without elements and rows 0; the description unchanged */
	stir_bindings *b = stir_bindings_alloc();
	const int64_t sparse[] = { 1, 2, 3, 6, 16 };
	stir_host_format *f = stir_csr_to_hybrid_flags(ctx, m, 1, 5, sparse,
		STIR_I32, STIR_F32, "_h", STIR_HYBRID_ALL_PARTS, b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 3);
	ck_assert_int_eq(stir_bindings_n_arrays(b), 15);
	ck_assert_int_eq(stir_bindings_n_sizes(b), 5);
	for (int t = 2; t <= 4; t += 2) {
		char name[64];
		snprintf(name, sizeof(name), "R_h_0_%d.indices", t);
		expect_ints(b, name, STIR_I32, 0, NULL);
		snprintf(name, sizeof(name), "C_h_0_%d.indices", t);
		expect_ints(b, name, STIR_I32, 0, NULL);
		snprintf(name, sizeof(name), "A_h_0_%d", t);
		expect_vals(b, name, 0, NULL);
		snprintf(name, sizeof(name), "rows_h_0_%d", t);
		expect_size(b, name, 0);
	}
	const int64_t r3[] = { 2, 4 };
	expect_ints(b, "R_h_0_3.indices", STIR_I32, 2, r3);
	stir_host_format_free(f);
	stir_bindings_free(b);

	/* 8 ranges of one column over 6 columns: ranges 6 and 7 lie past
	 * the last column and are bound empty too */
	b = stir_bindings_alloc();
	const int64_t one[] = { 1 };
	f = stir_csr_to_hybrid_flags(ctx, m, 8, 1, one, STIR_I64, STIR_F32,
		"_h", STIR_HYBRID_ALL_PARTS, b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 6);
	ck_assert_int_eq(stir_bindings_n_sizes(b), 8);
	expect_size(b, "rows_h_7_0", 0);
	expect_ints(b, "C_h_6_0.indices", STIR_I64, 0, NULL);
	expect_size(b, "rows_h_5_0", 2); /* rows 2 and 4 hold column 5 */
	stir_host_format_free(f);
	stir_bindings_free(b);

	/* the full row 4 padded at a column of its own run (0: the run's
	 * first), with value 0; row 2 still at its first absent column */
	b = stir_bindings_alloc();
	const int64_t wide[] = { 1, 2, 8 };
	f = stir_csr_to_hybrid_flags(ctx, m, 1, 3, wide, STIR_I32, STIR_F32,
		"_h", STIR_HYBRID_PAD_ANY_COLUMN, b);
	ck_assert_ptr_nonnull(f);
	const int64_t r2[] = { 2, 4 };
	const int64_t c2[] = { 1, 2, 3, 5, 0, 0, 0, 0,  0, 1, 2, 3, 4, 5, 0, 0 };
	const double a2[] = { 3, 4, 5, 6, 0, 0, 0, 0,  8, 9, 10, 11, 12, 13, 0,
		0 };
	expect_ints(b, "R_h_0_2.indices", STIR_I32, 2, r2);
	expect_ints(b, "C_h_0_2.indices", STIR_I32, 16, c2);
	expect_vals(b, "A_h_0_2", 16, a2);
	/* the checker sees the slot at a column the row holds */
	ck_assert_int_eq(stir_host_format_verify(ctx, f, m, b), -1);
	stir_ctx_clear_diagnostics(ctx);
	stir_host_format_free(f);
	stir_bindings_free(b);

	/* a split full row: its last chunk padded at the chunk's first
	 * column */
	b = stir_bindings_alloc();
	const int64_t four[] = { 1, 2, 4 };
	f = stir_csr_to_hybrid_flags(ctx, m, 1, 3, four, STIR_I32, STIR_F32,
		"_h", STIR_HYBRID_PAD_ANY_COLUMN | STIR_HYBRID_ALL_PARTS, b);
	ck_assert_ptr_nonnull(f);
	const int64_t r4[] = { 2, 4, 4 };
	const int64_t c4[] = { 1, 2, 3, 5,  0, 1, 2, 3,  4, 5, 4, 4 };
	const double a4[] = { 3, 4, 5, 6,  8, 9, 10, 11,  12, 13, 0, 0 };
	expect_ints(b, "R_h_0_2.indices", STIR_I32, 3, r4);
	expect_ints(b, "C_h_0_2.indices", STIR_I32, 12, c4);
	expect_vals(b, "A_h_0_2", 12, a4);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* The 7 x 8 matrix of the tests that cover the rows:
 *   rows 0 and 3: empty
 *   row 1: (3) 1
 *   row 2: (0) 2, (1) 3, (2) 4, (4) 5, (5) 6, (7) 7   (longer than 4)
 *   row 4: (1) 8, (6) 9
 *   row 5: (0) 10, (2) 11, (7) 12
 *   row 6: every column, 13 .. 20                      (longer than 4) */
static stir_csr *matrix_cover(void)
{
	static const int64_t indptr[] = { 0, 0, 1, 7, 7, 9, 12, 20 };
	static const int64_t indices[] = { 3,  0, 1, 2, 4, 5, 7,  1, 6,
		0, 2, 7,  0, 1, 2, 3, 4, 5, 6, 7 };
	static const double values[] = { 1,  2, 3, 4, 5, 6, 7,  8, 9,
		10, 11, 12,  13, 14, 15, 16, 17, 18, 19, 20 };
	return make_csr(7, 8, indptr, indices, values);
}

/* f, i, sfx, bucket, width, rows, nnz, split: part i of hybrid f (column
 * range 0) is described so. */
static void expect_hybrid_part(const stir_host_format *f, int i, const char *sfx,
	int bucket, int64_t width, int64_t rows, int64_t nnz, bool split)
{
	const stir_host_format_part *p = part_at(f, i);
	ck_assert_str_eq(p->suffix, sfx);
	ck_assert_int_eq(p->range, 0);
	ck_assert_int_eq(p->bucket, bucket);
	ck_assert_int_eq(p->width, width);
	ck_assert_int_eq(p->rows, rows);
	ck_assert_int_eq(p->slots, rows * width);
	ck_assert_int_eq(p->nnz, nnz);
	ck_assert_int_eq(p->split, split);
}

static stir_csr *random_csr(uint64_t seed, int64_t m, int64_t n);

/* b, name: the indices of array "name" (i32 or i64), sorted, in a new
 * array of *n entries. */
static int64_t *sorted_ints(const stir_bindings *b, const char *name,
	int64_t *n)
{
	const stir_array *a = stir_bindings_get_array(b, name);
	ck_assert_msg(a != NULL, "array %s not bound", name);
	*n = stir_array_get_len(a);
	int64_t *v = malloc((size_t)(*n ? *n : 1) * sizeof(*v));
	ck_assert_ptr_nonnull(v);
	for (int64_t i = 0; i < *n; i++)
		v[i] = stir_array_get_dtype(a) == STIR_I32 ?
			((const int32_t *)stir_array_get_const_data(a))[i] :
			((const int64_t *)stir_array_get_const_data(a))[i];
	for (int64_t i = 1; i < *n; i++)  /* insertion sort: small arrays */
		for (int64_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			int64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v;
}

/* The locality order (STIR_HYBRID_LOCALITY_ORDER): rows sharing columns
 * next to each other, the traversal starting at a row of fewest
 * entries; the same entries as without it. */
START_TEST(test_hybrid_locality_order)
{
	stir_ctx *ctx = stir_ctx_alloc();
	/* rows 0 and 3 hold columns 0, 1; rows 1 and 4 columns 2, 3; rows 2
	 * and 5 columns 4, 5; row 6 column 3 alone */
	static const int64_t indptr[] = { 0, 2, 4, 6, 8, 10, 12, 13 };
	static const int64_t indices[] = { 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5,
		3 };
	static const double values[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
		13 };
	stir_csr *m = make_csr(7, 6, indptr, indices, values);
	const int64_t widths[] = { 1, 2 };
	stir_bindings *b = stir_bindings_alloc();
	stir_host_format *f = stir_csr_to_hybrid_flags(ctx, m, 1, 2, widths,
		STIR_I32, STIR_F32, "_h", STIR_HYBRID_LOCALITY_ORDER, b);
	expect_conserved(ctx, f, m, b);
	/* from row 6 (one entry) through column 3 to rows 1 and 4, then row
	 * 0 and, through column 0, row 3; then rows 2 and 5 */
	const int64_t r1[] = { 1, 4, 0, 3, 2, 5 };
	const int64_t c1[] = { 2, 3, 2, 3, 0, 1, 0, 1, 4, 5, 4, 5 };
	const double a1[] = { 3, 4, 9, 10, 1, 2, 7, 8, 5, 6, 11, 12 };
	const int64_t r0[] = { 6 };
	expect_ints(b, "R_h_0_1.indices", STIR_I32, 6, r1);
	expect_ints(b, "C_h_0_1.indices", STIR_I32, 12, c1);
	expect_vals(b, "A_h_0_1", 12, a1);
	expect_ints(b, "R_h_0_0.indices", STIR_I32, 1, r0);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m);

	/* random matrices, covering the rows or in two column ranges, 32-
	 * and 64-bit indices: conserved, every part the same rows as
	 * without the order, and the same order when built again (the full
	 * rows of 80 entries, and their runs of 40, split into chunks of 8
	 * without padding) */
	for (int seed = 1; seed <= 4; seed++) {
		m = random_csr((uint64_t)seed + 100, 120, 80);
		const int64_t bk[] = { 1, 2, 4, 8 };
		int c = seed % 2 ? 1 : 2;
		stir_dtype it = seed <= 2 ? STIR_I32 : STIR_I64;
		unsigned flags = STIR_HYBRID_ALL_PARTS |
			(c == 1 ? STIR_HYBRID_COVER_ROWS : 0);
		stir_bindings *plain = stir_bindings_alloc();
		stir_bindings *lo[2] = { stir_bindings_alloc(),
			stir_bindings_alloc() };
		stir_host_format *fp = stir_csr_to_hybrid_flags(ctx, m, c, 4, bk, it,
			STIR_F32, "_h", flags, plain);
		ck_assert_ptr_nonnull(fp);
		for (int k = 0; k < 2; k++) {
			stir_host_format *fl = stir_csr_to_hybrid_flags(ctx, m, c, 4,
				bk, it, STIR_F32, "_h", flags |
				STIR_HYBRID_LOCALITY_ORDER, lo[k]);
			ck_assert_ptr_nonnull(fl);
			ck_assert_int_eq(stir_host_format_verify(ctx, fl, m, lo[k]), 0);
			stir_host_format_free(fl);
		}
		for (int p = 0; p < stir_host_format_n_parts(fp); p++) {
			char name[64];
			snprintf(name, sizeof(name), "R%s.indices",
				stir_host_format_get_part(fp, p)->suffix);
			int64_t n0, n1;
			int64_t *want = sorted_ints(plain, name, &n0);
			int64_t *got = sorted_ints(lo[0], name, &n1);
			ck_assert_int_eq(n0, n1);
			for (int64_t i = 0; i < n0; i++)
				ck_assert_int_eq(got[i], want[i]);
			free(want);
			free(got);
			const stir_array *x = stir_bindings_get_array(lo[0], name);
			const stir_array *y = stir_bindings_get_array(lo[1], name);
			ck_assert_int_eq(memcmp(stir_array_get_const_data(x),
				stir_array_get_const_data(y), (size_t)n0 *
				(it == STIR_I32 ? 4 : 8)), 0);
		}
		ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
		stir_host_format_free(fp);
		stir_bindings_free(plain);
		stir_bindings_free(lo[0]);
		stir_bindings_free(lo[1]);
		stir_csr_free(m);
	}
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_hybrid_cover_rows)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_cover();
	const int64_t buckets[] = { 1, 2, 4 };
	/* the same parts with 32- and 64-bit indices */
	static const stir_dtype itypes[] = { STIR_I32, STIR_I64 };
	stir_bindings *bs[2];
	for (int ti = 0; ti < 2; ti++) {
		stir_dtype it = itypes[ti];
		stir_bindings *b = bs[ti] = stir_bindings_alloc();
		stir_host_format *f = stir_csr_to_hybrid_flags(ctx, m, 1, 3, buckets,
			it, STIR_F32, "_c", STIR_HYBRID_COVER_ROWS, b);
		expect_conserved(ctx, f, m, b);
		/* the buckets' parts, then the split rows' part 0_3 */
		ck_assert_int_eq(stir_host_format_n_parts(f), 4);
		expect_hybrid_part(f, 0, "_c_0_0", 0, 1, 3, 1, false);
		expect_hybrid_part(f, 1, "_c_0_1", 1, 2, 1, 2, false);
		expect_hybrid_part(f, 2, "_c_0_2", 2, 4, 1, 3, false);
		expect_hybrid_part(f, 3, "_c_0_3", 3, 4, 4, 14, true);
		ck_assert_int_eq(stir_bindings_n_arrays(b), 12);
		ck_assert_int_eq(stir_bindings_n_sizes(b), 4);
		/* the empty rows 0 and 3 are rows of padding (column 0, value
		 * 0) in their places among the rows of part 0_0 */
		const int64_t r0[] = { 0, 1, 3 }, c0[] = { 0, 3, 0 };
		const double a0[] = { 0, 1, 0 };
		expect_ints(b, "R_c_0_0.indices", it, 3, r0);
		expect_ints(b, "C_c_0_0.indices", it, 3, c0);
		expect_vals(b, "A_c_0_0", 3, a0);
		expect_size(b, "rows_c_0_0", 3);
		const int64_t r1[] = { 4 }, c1[] = { 1, 6 };
		const double a1[] = { 8, 9 };
		expect_ints(b, "R_c_0_1.indices", it, 1, r1);
		expect_ints(b, "C_c_0_1.indices", it, 2, c1);
		expect_vals(b, "A_c_0_1", 2, a1);
		expect_size(b, "rows_c_0_1", 1);
		/* the widest bucket keeps only row 5, padded at column 1 */
		const int64_t r2[] = { 5 }, c2[] = { 0, 2, 7, 1 };
		const double a2[] = { 10, 11, 12, 0 };
		expect_ints(b, "R_c_0_2.indices", it, 1, r2);
		expect_ints(b, "C_c_0_2.indices", it, 4, c2);
		expect_vals(b, "A_c_0_2", 4, a2);
		expect_size(b, "rows_c_0_2", 1);
		/* rows 2 and 6 in chunks of 4, consecutive; row 2's last chunk
		 * padded at its first absent column, 3 */
		const int64_t r3[] = { 2, 2, 6, 6 };
		const int64_t c3[] = { 0, 1, 2, 4,  5, 7, 3, 3,  0, 1, 2, 3,
			4, 5, 6, 7 };
		const double a3[] = { 2, 3, 4, 5,  6, 7, 0, 0,  13, 14, 15, 16,
			17, 18, 19, 20 };
		expect_ints(b, "R_c_0_3.indices", it, 4, r3);
		expect_ints(b, "C_c_0_3.indices", it, 16, c3);
		expect_vals(b, "A_c_0_3", 16, a3);
		expect_size(b, "rows_c_0_3", 4);
		stir_host_format_free(f);
	}
	expect_same_bindings(bs[0], bs[1]);
	stir_bindings_free(bs[0]);
	stir_bindings_free(bs[1]);

	/* without the flag: no row for the empty rows, the long rows in the
	 * widest bucket's part beside row 5 */
	stir_bindings *b = stir_bindings_alloc();
	stir_host_format *f = stir_csr_to_hybrid(ctx, m, 1, 3, buckets, STIR_I32,
		STIR_F32, "_c", b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 3);
	expect_hybrid_part(f, 2, "_c_0_2", 2, 4, 5, 17, true);
	const int64_t r01[] = { 1 }, r2[] = { 2, 2, 5, 6, 6 };
	expect_ints(b, "R_c_0_0.indices", STIR_I32, 1, r01);
	expect_ints(b, "R_c_0_2.indices", STIR_I32, 5, r2);
	stir_host_format_free(f);
	stir_bindings_free(b);

	/* a narrowest bucket of 2: a padding row fills both slots with
	 * column 0 */
	b = stir_bindings_alloc();
	const int64_t two[] = { 2, 4 };
	f = stir_csr_to_hybrid_flags(ctx, m, 1, 2, two, STIR_I64, STIR_F32,
		"_c", STIR_HYBRID_COVER_ROWS, b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 3);
	expect_hybrid_part(f, 0, "_c_0_0", 0, 2, 4, 3, false);
	expect_hybrid_part(f, 1, "_c_0_1", 1, 4, 1, 3, false);
	expect_hybrid_part(f, 2, "_c_0_2", 2, 4, 4, 14, true);
	const int64_t r0[] = { 0, 1, 3, 4 };
	const int64_t c0[] = { 0, 0,  3, 0,  0, 0,  1, 6 };
	const double a0[] = { 0, 0,  1, 0,  0, 0,  8, 9 };
	expect_ints(b, "R_c_0_0.indices", STIR_I64, 4, r0);
	expect_ints(b, "C_c_0_0.indices", STIR_I64, 8, c0);
	expect_vals(b, "A_c_0_0", 8, a0);
	const int64_t r3[] = { 2, 2, 6, 6 };
	expect_ints(b, "R_c_0_2.indices", STIR_I64, 4, r3);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_hybrid_cover_all_parts)
{
	stir_ctx *ctx = stir_ctx_alloc();
	/* no row of matrix_m2 is longer than 2: the split rows' part 0_2 is
	 * bound without rows (of the widest width) and not described */
	stir_csr *m2 = matrix_m2();
	stir_bindings *b = stir_bindings_alloc();
	const int64_t buckets[] = { 1, 2 };
	stir_host_format *f = stir_csr_to_hybrid_flags(ctx, m2, 1, 2, buckets,
		STIR_I32, STIR_F32, "_x", STIR_HYBRID_ALL_PARTS |
		STIR_HYBRID_COVER_ROWS, b);
	expect_conserved(ctx, f, m2, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 2);
	expect_hybrid_part(f, 0, "_x_0_0", 0, 1, 5, 3, false);
	expect_hybrid_part(f, 1, "_x_0_1", 1, 2, 1, 2, false);
	const int64_t r0[] = { 0, 1, 2, 3, 5 }, c0[] = { 1, 3, 0, 0, 2 };
	expect_ints(b, "R_x_0_0.indices", STIR_I32, 5, r0);
	expect_ints(b, "C_x_0_0.indices", STIR_I32, 5, c0);
	ck_assert_int_eq(stir_bindings_n_arrays(b), 9);
	ck_assert_int_eq(stir_bindings_n_sizes(b), 3);
	expect_ints(b, "R_x_0_2.indices", STIR_I32, 0, NULL);
	expect_ints(b, "C_x_0_2.indices", STIR_I32, 0, NULL);
	expect_vals(b, "A_x_0_2", 0, NULL);
	expect_size(b, "rows_x_0_2", 0);
	const stir_array *ca = stir_bindings_get_array(b, "C_x_0_2.indices");
	ck_assert_int_eq(stir_array_get_ndim(ca), 2);
	ck_assert_int_eq(stir_array_get_dim(ca, 1), 2);
	stir_host_format_free(f);
	stir_bindings_free(b);

	/* with split rows, 0_4 is described and bound with its rows; the
	 * empty bucket 3 (width 4: no row has 4 entries) is bound without
	 * rows */
	stir_csr *m = matrix_cover();
	b = stir_bindings_alloc();
	const int64_t four[] = { 1, 2, 3, 4 };
	f = stir_csr_to_hybrid_flags(ctx, m, 1, 4, four, STIR_I64, STIR_F32,
		"_x", STIR_HYBRID_ALL_PARTS | STIR_HYBRID_COVER_ROWS, b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 4);
	expect_hybrid_part(f, 0, "_x_0_0", 0, 1, 3, 1, false);
	expect_hybrid_part(f, 1, "_x_0_1", 1, 2, 1, 2, false);
	expect_hybrid_part(f, 2, "_x_0_2", 2, 3, 1, 3, false);
	expect_hybrid_part(f, 3, "_x_0_4", 4, 4, 4, 14, true);
	expect_size(b, "rows_x_0_3", 0);
	expect_ints(b, "R_x_0_3.indices", STIR_I64, 0, NULL);
	const int64_t r4[] = { 2, 2, 6, 6 };
	expect_ints(b, "R_x_0_4.indices", STIR_I64, 4, r4);
	ck_assert_int_eq(stir_bindings_n_arrays(b), 15);
	ck_assert_int_eq(stir_bindings_n_sizes(b), 5);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_csr_free(m2);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_hybrid_cover_errors)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_cover();
	stir_bindings *b = stir_bindings_alloc();
	const int64_t buckets[] = { 1, 2, 4 };
	/* several column ranges would put a row in several parts */
	ck_assert_ptr_null(stir_csr_to_hybrid_flags(ctx, m, 2, 3, buckets,
		STIR_I32, STIR_F32, "_c", STIR_HYBRID_COVER_ROWS, b));
	expect_error(ctx, "hybrid: covering the rows needs one column range, "
		"not 2: with several, a row lies in several parts");
	ck_assert_ptr_null(stir_csr_to_hybrid_flags(ctx, m, 3, 3, buckets,
		STIR_I64, STIR_F32, "_c", STIR_HYBRID_COVER_ROWS |
		STIR_HYBRID_ALL_PARTS, b));
	expect_error(ctx, "hybrid: covering the rows needs one column range, "
		"not 3: with several, a row lies in several parts");
	/* rows without a column to pad them with */
	const int64_t zeros[] = { 0, 0, 0, 0 };
	stir_csr *m30 = make_csr(3, 0, zeros, NULL, NULL);
	ck_assert_ptr_null(stir_csr_to_hybrid_flags(ctx, m30, 1, 3, buckets,
		STIR_I32, STIR_F32, "_c", STIR_HYBRID_COVER_ROWS, b));
	expect_error(ctx, "hybrid: row 0 is empty and the matrix has no column "
		"to pad it with, so the rows cannot be covered");
	ck_assert_int_eq(stir_bindings_n_arrays(b), 0);
	ck_assert_int_eq(stir_bindings_n_sizes(b), 0);
	/* the same matrix without rows needs no padding: nothing to cover */
	const int64_t none[] = { 0 };
	stir_csr *m00 = make_csr(0, 0, none, NULL, NULL);
	stir_host_format *f = stir_csr_to_hybrid_flags(ctx, m00, 1, 3, buckets,
		STIR_I32, STIR_F32, "_c", STIR_HYBRID_COVER_ROWS, b);
	expect_conserved(ctx, f, m00, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 0);
	ck_assert_int_eq(stir_bindings_n_arrays(b), 0);
	stir_host_format_free(f);
	stir_csr_free(m00);
	stir_csr_free(m30);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_hybrid_small_c3)
{
	/* three ranges of 2 columns: [0, 2), [2, 4), [4, 6) */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_m();
	stir_bindings *b = stir_bindings_alloc();
	const int64_t buckets[] = { 1, 2 };
	stir_host_format *f = stir_csr_to_hybrid(ctx, m, 3, 2, buckets, STIR_I64,
		STIR_F32, "_h", b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 6);
	static const char *const sfx[] = { "_h_0_0", "_h_0_1", "_h_1_0",
		"_h_1_1", "_h_2_0", "_h_2_1" };
	for (int i = 0; i < 6; i++) {
		const stir_host_format_part *p = part_at(f, i);
		ck_assert_str_eq(p->suffix, sfx[i]);
		ck_assert_int_eq(p->range, i / 2);
		ck_assert_int_eq(p->bucket, i % 2);
		ck_assert(!p->split);
	}
	const int64_t r00[] = { 0, 2 }, c00[] = { 0, 1 };
	const double a00[] = { 1, 3 };
	expect_ints(b, "R_h_0_0.indices", STIR_I64, 2, r00);
	expect_ints(b, "C_h_0_0.indices", STIR_I64, 2, c00);
	expect_vals(b, "A_h_0_0", 2, a00);
	const int64_t r01[] = { 4 }, c01[] = { 0, 1 };
	const double a01[] = { 8, 9 };
	expect_ints(b, "R_h_0_1.indices", STIR_I64, 1, r01);
	expect_ints(b, "C_h_0_1.indices", STIR_I64, 2, c01);
	expect_vals(b, "A_h_0_1", 2, a01);
	const int64_t r10[] = { 0 }, c10[] = { 2 };
	const double a10[] = { 2 };
	expect_ints(b, "R_h_1_0.indices", STIR_I64, 1, r10);
	expect_ints(b, "C_h_1_0.indices", STIR_I64, 1, c10);
	expect_vals(b, "A_h_1_0", 1, a10);
	const int64_t r11[] = { 2, 4 }, c11[] = { 2, 3, 2, 3 };
	const double a11[] = { 4, 5, 10, 11 };
	expect_ints(b, "R_h_1_1.indices", STIR_I64, 2, r11);
	expect_ints(b, "C_h_1_1.indices", STIR_I64, 4, c11);
	expect_vals(b, "A_h_1_1", 4, a11);
	const int64_t r20[] = { 2, 3 }, c20[] = { 5, 4 };
	const double a20[] = { 6, 7 };
	expect_ints(b, "R_h_2_0.indices", STIR_I64, 2, r20);
	expect_ints(b, "C_h_2_0.indices", STIR_I64, 2, c20);
	expect_vals(b, "A_h_2_0", 2, a20);
	const int64_t r21[] = { 4 }, c21[] = { 4, 5 };
	const double a21[] = { 12, 13 };
	expect_ints(b, "R_h_2_1.indices", STIR_I64, 1, r21);
	expect_ints(b, "C_h_2_1.indices", STIR_I64, 2, c21);
	expect_vals(b, "A_h_2_1", 2, a21);
	expect_size(b, "rows_h_1_1", 2);
	stir_host_format_free(f);
	stir_bindings_free(b);

	/* one bucket of 2: the padding column is the smallest absent from
	 * the whole row, even outside the range */
	b = stir_bindings_alloc();
	const int64_t two[] = { 2 };
	f = stir_csr_to_hybrid(ctx, m, 3, 1, two, STIR_I32, STIR_F32, "_h", b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 3);
	const int64_t r0[] = { 0, 2, 4 }, c0[] = { 0, 1, 1, 0, 0, 1 };
	const double a0[] = { 1, 0, 3, 0, 8, 9 };
	expect_ints(b, "R_h_0_0.indices", STIR_I32, 3, r0);
	expect_ints(b, "C_h_0_0.indices", STIR_I32, 6, c0);
	expect_vals(b, "A_h_0_0", 6, a0);
	const int64_t r1[] = { 0, 2, 4 }, c1[] = { 2, 1, 2, 3, 2, 3 };
	const double a1[] = { 2, 0, 4, 5, 10, 11 };
	expect_ints(b, "R_h_1_0.indices", STIR_I32, 3, r1);
	expect_ints(b, "C_h_1_0.indices", STIR_I32, 6, c1);
	expect_vals(b, "A_h_1_0", 6, a1);
	const int64_t r2[] = { 2, 3, 4 }, c2[] = { 5, 0, 4, 0, 4, 5 };
	const double a2[] = { 6, 0, 7, 0, 12, 13 };
	expect_ints(b, "R_h_2_0.indices", STIR_I32, 3, r2);
	expect_ints(b, "C_h_2_0.indices", STIR_I32, 6, c2);
	expect_vals(b, "A_h_2_0", 6, a2);
	stir_host_format_free(f);
	stir_bindings_free(b);

	/* c larger than the columns: ranges of one column, the last ones
	 * empty */
	b = stir_bindings_alloc();
	const int64_t one[] = { 1 };
	f = stir_csr_to_hybrid(ctx, m, 10, 1, one, STIR_I32, STIR_F32, "_h", b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 6);
	ck_assert_str_eq(part_at(f, 5)->suffix, "_h_5_0");
	expect_size(b, "rows_h_5_0", 2);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_hybrid_spec_message)
{
	/* docs/formats.md's example: a full row of 20 columns in a bucket
	 * of width 32 */
	stir_ctx *ctx = stir_ctx_alloc();
	int64_t indptr[] = { 0, 1, 21, 21 };
	int64_t indices[21];
	double values[21];
	indices[0] = 7;
	values[0] = 1;
	for (int j = 0; j < 20; j++) {
		indices[j + 1] = j;
		values[j + 1] = j;
	}
	stir_csr *m = make_csr(3, 20, indptr, indices, values);
	stir_bindings *b = stir_bindings_alloc();
	const int64_t buckets[] = { 4, 32 };
	stir_host_format *f = stir_csr_to_hybrid(ctx, m, 1, 2, buckets, STIR_I32,
		STIR_F32, "_hyb", b);
	ck_assert_ptr_null(f);
	expect_error(ctx, "hybrid: bucket width 32 exceeds the 20 columns of "
		"the matrix");
	ck_assert_int_eq(stir_bindings_n_arrays(b), 0);
	/* with two ranges of 10 and a bucket of 10, the full row needs no
	 * padding */
	const int64_t ten[] = { 4, 10 };
	f = stir_csr_to_hybrid(ctx, m, 2, 2, ten, STIR_I32, STIR_F32, "_hyb",
		b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 3);
	ck_assert_str_eq(part_at(f, 0)->suffix, "_hyb_0_0");
	ck_assert_str_eq(part_at(f, 1)->suffix, "_hyb_0_1");
	ck_assert_str_eq(part_at(f, 2)->suffix, "_hyb_1_1");
	ck_assert_int_eq(part_at(f, 1)->width, 10);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* The CSF tensor of the ELL3D tests: 2 relations of 3 x 4 matrices.
 *   relation 0: row 0: (1) 1, (3) 2; row 2: (0) 3
 *   relation 1: row 1: (0) 4, (1) 5, (2) 6 */
static const int64_t csf_rel_indptr[] = { 0, 2, 3 };
static const int64_t csf_row_indices[] = { 0, 2, 1 };
static const int64_t csf_row_indptr[] = { 0, 2, 3, 6 };
static const int64_t csf_col_indices[] = { 1, 3, 0, 0, 1, 2 };
static const double csf_values[] = { 1, 2, 3, 4, 5, 6 };

/* A stir_csf over the arrays above. */
static stir_csf small_csf(void)
{
	stir_csf t = { 2, 3, 4, 3, 6, csf_rel_indptr, csf_row_indices,
		csf_row_indptr, csf_col_indices, csf_values };
	return t;
}

START_TEST(test_ell3d_small)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csf t = small_csf();
	stir_bindings *b = stir_bindings_alloc();
	stir_host_format *f = stir_csf_to_ell3d(ctx, &t, 3, STIR_I32, STIR_F32,
		"_r", b);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(stir_host_format_verify_csf(ctx, f, &t, b), 0);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	const int64_t j[] = { 1, 3, 0,  0, 1, 1,  0, 1, 2 };
	const double a[] = { 1, 2, 0,  3, 0, 0,  4, 5, 6 };
	expect_ints(b, "J_r.indices", STIR_I32, 9, j);
	expect_vals(b, "A_r", 9, a);
	ck_assert_int_eq(stir_bindings_n_arrays(b), 2);
	ck_assert_int_eq(stir_host_format_get_kind(f), STIR_FORMAT_ELL3D);
	ck_assert_int_eq(part_at(f, 0)->rows, 3);
	ck_assert_int_eq(part_at(f, 0)->width, 3);

	/* tampering is reported with the relation and row */
	stir_array *va = stir_bindings_get_array(b, "A_r");
	stir_array_set_double(va, 5, 2);
	ck_assert_int_eq(stir_host_format_verify_csf(ctx, f, &t, b), -1);
	expect_error(ctx, "ELL3D format: array 'A_r': slot 5 pads (relation 0, "
		"row 2, column 1), absent from the original, but holds 2, not 0");
	stir_array_set_double(va, 5, 0);
	stir_array_set_double(va, 7, -5);
	ck_assert_int_eq(stir_host_format_verify_csf(ctx, f, &t, b), -1);
	expect_error(ctx, "ELL3D format: array 'A_r': slot 7 holds -5 for "
		"entry (relation 1, row 1, column 1), expected 5");
	stir_array_set_double(va, 7, 5);
	stir_csr *m = matrix_m();
	ck_assert_int_eq(stir_host_format_verify(ctx, f, m, b), -1);
	expect_error(ctx, "an ELL3D format is checked against its CSF tensor "
		"(stir_host_format_verify_csf)");
	stir_host_format_free(f);

	f = stir_csr_to_ell(ctx, m, 6, STIR_I32, STIR_F32, "_e", b);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(stir_host_format_verify_csf(ctx, f, &t, b), -1);
	expect_error(ctx, "only an ELL3D format is checked against a CSF "
		"tensor; a ELL format takes its CSR matrix (stir_host_format_verify)");
	stir_host_format_free(f);
	stir_csr_free(m);

	f = stir_csf_to_ell3d(ctx, &t, 2, STIR_I32, STIR_F32, "_r", b);
	ck_assert_ptr_null(f);
	expect_error(ctx, "ELL3D: row 1 of relation 1 has 3 entries, more than "
		"the width 2");
	f = stir_csf_to_ell3d(ctx, &t, 5, STIR_I64, STIR_F32, "_r", b);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(stir_host_format_verify_csf(ctx, f, &t, b), 0);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- invalid inputs and parameters ---- */

/* The six CSR builders with fixed valid parameters, so that a bad input
 * must be reported by each of them. */
static stir_host_format *build_any(int which, stir_ctx *ctx, const stir_csr *m,
	stir_bindings *b)
{
	static const int64_t buckets[] = { 1, 2 };
	switch (which) {
	case 0: return stir_csr_to_ell(ctx, m, 4, STIR_I32, STIR_F32, "", b);
	case 1: return stir_csr_to_bsr(ctx, m, 2, STIR_I32, STIR_F32, "", b);
	case 2: return stir_csr_to_padding(ctx, m, 2, STIR_I32, STIR_F32, "",
			b);
	case 3: return stir_csr_to_hybrid(ctx, m, 1, 2, buckets, STIR_I32,
			STIR_F32, "", b);
	case 4: return stir_csr_to_dbsr(ctx, m, 2, STIR_I32, STIR_F32, "", b);
	default: return stir_csr_to_sr_bcrs(ctx, m, 2, 2, STIR_I32, STIR_F32,
			"", b);
	}
}

/* A CSR input that must be refused, and the message. */
typedef struct bad_csr {
	int64_t nrows;
	int64_t nnz;
	int64_t indptr[3];
	int64_t indices[3];
	const char *msg;
} bad_csr;

START_TEST(test_invalid_csr)
{
	static const bad_csr cases[] = {
		{ 2, 3, { 1, 2, 3 }, { 0, 1, 2 },
		  "CSR indptr: entry 0 is 1, expected 0" },
		{ 2, 3, { 0, 2, 1 }, { 0, 1, 2 },
		  "CSR indptr: entry 2 is 1, less than entry 1 (2)" },
		{ 2, 3, { 0, 5, 3 }, { 0, 1, 2 },
		  "CSR indptr: entry 1 is 5, more than nnz = 3" },
		{ 2, 3, { 0, 1, 2 }, { 0, 1, 2 },
		  "CSR indptr: entry 2 (the last) is 2, expected nnz = 3" },
		{ 2, 3, { 0, 2, 3 }, { 1, 4, 0 },
		  "CSR indices: entry 1 (row 0) is 4, outside [0, 4)" },
		{ 2, 3, { 0, 2, 3 }, { 1, 1, 0 },
		  "CSR indices: entry 1 (row 0) is 1, not greater than entry 0 "
		  "(1)" },
		{ 2, 3, { 0, 2, 3 }, { 2, 1, 0 },
		  "CSR indices: entry 1 (row 0) is 1, not greater than entry 0 "
		  "(2)" },
		{ 2, 3, { 0, 2, 3 }, { 0, 1, -1 },
		  "CSR indices: entry 2 (row 1) is -1, outside [0, 4)" },
		{ -1, 0, { 0 }, { 0 }, "CSR: nrows is negative (-1)" },
		{ 2, -2, { 0 }, { 0 }, "CSR: nnz is negative (-2)" },
	};
	stir_ctx *ctx = stir_ctx_alloc();
	stir_bindings *b = stir_bindings_alloc();
	double values[3] = { 1, 2, 3 };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		stir_csr m = { cases[i].nrows, 4, cases[i].nnz,
			(int64_t *)cases[i].indptr, (int64_t *)cases[i].indices,
			values };
		for (int which = 0; which < 6; which++) {
			ck_assert_ptr_null(build_any(which, ctx, &m, b));
			expect_error(ctx, cases[i].msg);
		}
	}
	stir_csr m = { 2, 4, 3, (int64_t []){ 0, 2, 3 }, (int64_t []){ 0, 1, 2 },
		NULL };
	for (int which = 0; which < 6; which++) {
		ck_assert_ptr_null(build_any(which, ctx, &m, b));
		expect_error(ctx, "CSR values is NULL");
		ck_assert_ptr_null(build_any(which, ctx, NULL, b));
		expect_error(ctx, "no CSR matrix");
	}
	m.indptr = NULL;
	ck_assert_ptr_null(build_any(0, ctx, &m, b));
	expect_error(ctx, "CSR indptr is NULL");
	ck_assert_int_eq(stir_bindings_n_arrays(b), 0);
	ck_assert_int_eq(stir_bindings_n_sizes(b), 0);
	stir_bindings_free(b);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_invalid_csf)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_bindings *b = stir_bindings_alloc();
	stir_csf t = small_csf();
	const int64_t rel_short[] = { 0, 2, 2 };
	t.rel_indptr = rel_short;
	ck_assert_ptr_null(stir_csf_to_ell3d(ctx, &t, 4, STIR_I32, STIR_F32,
		"", b));
	expect_error(ctx, "CSF rel_indptr: entry 2 (the last) is 2, expected "
		"nnz_i = 3");
	t = small_csf();
	const int64_t rows_desc[] = { 2, 0, 1 };
	t.row_indices = rows_desc;
	ck_assert_ptr_null(stir_csf_to_ell3d(ctx, &t, 4, STIR_I32, STIR_F32,
		"", b));
	expect_error(ctx, "CSF row_indices: entry 1 (relation 0) is 0, not "
		"greater than entry 0 (2)");
	t = small_csf();
	const int64_t rows_big[] = { 0, 2, 3 };
	t.row_indices = rows_big;
	ck_assert_ptr_null(stir_csf_to_ell3d(ctx, &t, 4, STIR_I32, STIR_F32,
		"", b));
	expect_error(ctx, "CSF row_indices: entry 2 (relation 1) is 3, outside "
		"[0, 3)");
	t = small_csf();
	const int64_t ptr_bad[] = { 0, 2, 3, 5 };
	t.row_indptr = ptr_bad;
	ck_assert_ptr_null(stir_csf_to_ell3d(ctx, &t, 4, STIR_I32, STIR_F32,
		"", b));
	expect_error(ctx, "CSF row_indptr: entry 3 (the last) is 5, expected "
		"nnz = 6");
	t = small_csf();
	const int64_t cols_big[] = { 1, 3, 0, 0, 4, 5 };
	t.col_indices = cols_big;
	ck_assert_ptr_null(stir_csf_to_ell3d(ctx, &t, 4, STIR_I32, STIR_F32,
		"", b));
	expect_error(ctx, "CSF col_indices: entry 4 (row position 2) is 4, "
		"outside [0, 4)");
	t = small_csf();
	t.nrels = -3;
	ck_assert_ptr_null(stir_csf_to_ell3d(ctx, &t, 4, STIR_I32, STIR_F32,
		"", b));
	expect_error(ctx, "CSF: nrels is negative (-3)");
	ck_assert_ptr_null(stir_csf_to_ell3d(ctx, NULL, 4, STIR_I32, STIR_F32,
		"", b));
	expect_error(ctx, "no CSF tensor");
	ck_assert_int_eq(stir_bindings_n_arrays(b), 0);
	stir_bindings_free(b);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_invalid_params)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_m();
	stir_csf t = small_csf();
	stir_bindings *b = stir_bindings_alloc();
	ck_assert_ptr_null(stir_csr_to_ell(ctx, m, 0, STIR_I32, STIR_F32, "",
		b));
	expect_error(ctx, "ELL: the width must be positive (got 0)");
	ck_assert_ptr_null(stir_csf_to_ell3d(ctx, &t, -1, STIR_I32, STIR_F32,
		"", b));
	expect_error(ctx, "ELL3D: the width must be positive (got -1)");
	ck_assert_ptr_null(stir_csr_to_bsr(ctx, m, 0, STIR_I32, STIR_F32, "",
		b));
	expect_error(ctx, "BSR: the block size must be positive (got 0)");
	ck_assert_ptr_null(stir_csr_to_bsr(ctx, m, 4000000000, STIR_I64,
		STIR_F32, "", b));
	expect_error(ctx, "BSR: block size 4000000000 is too large");
	ck_assert_ptr_null(stir_csr_to_dbsr(ctx, m, -2, STIR_I32, STIR_F32, "",
		b));
	expect_error(ctx, "DBSR: the block size must be positive (got -2)");
	ck_assert_ptr_null(stir_csr_to_padding(ctx, m, 0, STIR_I32, STIR_F32,
		"", b));
	expect_error(ctx, "padding: the multiple must be positive (got 0)");
	ck_assert_ptr_null(stir_csr_to_sr_bcrs(ctx, m, 0, 2, STIR_I32,
		STIR_F32, "", b));
	expect_error(ctx, "SR-BCRS: the tile height must be positive (got 0)");
	ck_assert_ptr_null(stir_csr_to_sr_bcrs(ctx, m, 2, -4, STIR_I32,
		STIR_F32, "", b));
	expect_error(ctx, "SR-BCRS: the group size must be positive (got -4)");

	const int64_t ok[] = { 1, 2 }, zero[] = { 0, 2 }, same[] = { 1, 4, 4 },
		down[] = { 8, 4 };
	ck_assert_ptr_null(stir_csr_to_hybrid(ctx, m, 0, 2, ok, STIR_I32,
		STIR_F32, "", b));
	expect_error(ctx, "hybrid: the number of column ranges must be at "
		"least 1 (got 0)");
	ck_assert_ptr_null(stir_csr_to_hybrid(ctx, m, 1, 0, ok, STIR_I32,
		STIR_F32, "", b));
	expect_error(ctx, "hybrid: at least one bucket is needed (got 0)");
	ck_assert_ptr_null(stir_csr_to_hybrid(ctx, m, 1, 2, NULL, STIR_I32,
		STIR_F32, "", b));
	expect_error(ctx, "hybrid: at least one bucket is needed (got 0)");
	ck_assert_ptr_null(stir_csr_to_hybrid(ctx, m, 1, 2, zero, STIR_I32,
		STIR_F32, "", b));
	expect_error(ctx, "hybrid: bucket widths must be positive (bucket 0 "
		"has width 0)");
	ck_assert_ptr_null(stir_csr_to_hybrid(ctx, m, 1, 3, same, STIR_I32,
		STIR_F32, "", b));
	expect_error(ctx, "hybrid: bucket widths must be strictly increasing "
		"(bucket 1 has width 4, bucket 2 has 4)");
	ck_assert_ptr_null(stir_csr_to_hybrid(ctx, m, 1, 2, down, STIR_I32,
		STIR_F32, "", b));
	expect_error(ctx, "hybrid: bucket widths must be strictly increasing "
		"(bucket 0 has width 8, bucket 1 has 4)");

	ck_assert_ptr_null(stir_csr_to_ell(ctx, m, 6, STIR_F32, STIR_F32, "",
		b));
	expect_error(ctx, "ELL: the index type must be i32 or i64, not f32");
	ck_assert_ptr_null(stir_csr_to_ell(ctx, m, 6, STIR_I64, STIR_I32, "",
		b));
	expect_error(ctx, "ELL: the value type must be f16, bf16, f32 or f64, "
		"not i32");
	ck_assert_ptr_null(stir_csr_to_ell(ctx, m, 6, STIR_I64, STIR_F32, "a-b",
		b));
	expect_error(ctx, "ELL: suffix 'a-b' may hold only letters, digits and "
		"'_'");
	char longsfx[200];
	memset(longsfx, 'x', 199);
	longsfx[199] = 0;
	ck_assert_ptr_null(stir_csr_to_ell(ctx, m, 6, STIR_I64, STIR_F32,
		longsfx, b));
	expect_error(ctx, "ELL: the suffix has 199 characters, more than 160");
	ck_assert_int_eq(stir_bindings_n_arrays(b), 0);
	ck_assert_int_eq(stir_bindings_n_sizes(b), 0);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_i32_limits)
{
	/* a single entry at column 2999999999: i32 refused by every builder
	 * before anything is allocated; i64 works without a pass over the
	 * columns */
	stir_ctx *ctx = stir_ctx_alloc();
	const int64_t indptr[] = { 0, 1 }, indices[] = { 2999999999 };
	const double values[] = { 4 };
	stir_csr *m = make_csr(1, 3000000000, indptr, indices, values);
	static const char *const names[] = { "ELL", "BSR", "padding", "hybrid",
		"DBSR", "SR-BCRS" };
	stir_bindings *b = stir_bindings_alloc();
	char msg[200];
	for (int which = 0; which < 6; which++) {
		ck_assert_ptr_null(build_any(which, ctx, m, b));
		snprintf(msg, sizeof(msg), "%s: the number of columns "
			"(3000000000) does not fit in i32 indices: build the format "
			"with i64 indices",
			names[which]);
		expect_error(ctx, msg);
	}
	ck_assert_int_eq(stir_bindings_n_arrays(b), 0);
	const int64_t buckets[] = { 1, 2 };
	stir_host_format *f[6] = {
		stir_csr_to_ell(ctx, m, 4, STIR_I64, STIR_F32, "_0", b),
		stir_csr_to_bsr(ctx, m, 2, STIR_I64, STIR_F32, "_1", b),
		stir_csr_to_padding(ctx, m, 2, STIR_I64, STIR_F32, "_2", b),
		stir_csr_to_hybrid(ctx, m, 3, 2, buckets, STIR_I64, STIR_F32,
			"_3", b),
		stir_csr_to_dbsr(ctx, m, 2, STIR_I64, STIR_F32, "_4", b),
		stir_csr_to_sr_bcrs(ctx, m, 2, 2, STIR_I64, STIR_F32, "_5", b),
	};
	for (int i = 0; i < 6; i++) {
		expect_conserved(ctx, f[i], m, b);
		stir_host_format_free(f[i]);
	}
	const int64_t j0[] = { 2999999999, 0, 0, 0 };
	expect_ints(b, "J_0.indices", STIR_I64, 4, j0);
	const int64_t jb[] = { 1499999999 };
	expect_ints(b, "JB_1.indices", STIR_I64, 1, jb);
	expect_size(b, "nb_1", 1500000000);
	expect_size(b, "rows_3_2_0", 1);
	stir_csr_free(m);
	stir_bindings_free(b);

	/* lengths: a width of 3e9 slots per row */
	const int64_t small_ptr[] = { 0, 1 }, small_idx[] = { 3 };
	m = make_csr(1, 10, small_ptr, small_idx, values);
	b = stir_bindings_alloc();
	ck_assert_ptr_null(stir_csr_to_ell(ctx, m, 3000000000, STIR_I32,
		STIR_F32, "_e", b));
	expect_error(ctx, "ELL: the length of array 'J_e.indices' (3000000000) "
		"does not fit in i32 indices: build the format with i64 "
		"indices");
	const int64_t huge[] = { 3000000000 };
	ck_assert_ptr_null(stir_csr_to_hybrid(ctx, m, 1, 1, huge, STIR_I32,
		STIR_F32, "_h", b));
	expect_error(ctx, "hybrid: the length of array 'C_h_0_0.indices' "
		"(3000000000) does not fit in i32 indices: build the format "
			"with i64 indices");
	ck_assert_ptr_null(stir_csr_to_sr_bcrs(ctx, m, 1 << 20, 1 << 12,
		STIR_I32, STIR_F32, "_s", b));
	expect_error(ctx, "SR-BCRS: the length of array 'A_s' (4294967296) "
		"does not fit in i32 indices: build the format with i64 "
		"indices");
	ck_assert_int_eq(stir_bindings_n_arrays(b), 0);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- the checker finds violations ---- */

/* ctx, f, m, b, msg: the checker must refuse f with exactly this message. */
static void expect_violation(stir_ctx *ctx, const stir_host_format *f,
	const stir_csr *m, const stir_bindings *b, const char *msg)
{
	ck_assert_int_eq(stir_host_format_verify(ctx, f, m, b), -1);
	expect_error(ctx, msg);
}

START_TEST(test_verify_violations)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_m();
	stir_bindings *b = stir_bindings_alloc();
	stir_host_format *f = stir_csr_to_ell(ctx, m, 6, STIR_I32, STIR_F32, "_e", b);
	expect_conserved(ctx, f, m, b);
	stir_array *ja = stir_bindings_get_array(b, "J_e.indices");
	stir_array *va = stir_bindings_get_array(b, "A_e");
	stir_array_set_double(va, 1, 2.5);
	expect_violation(ctx, f, m, b, "ELL format: array 'A_e': slot 1 holds "
		"2.5 for entry (0, 2), expected 2");
	stir_array_set_double(va, 1, 2);
	stir_array_set_double(va, 2, 1);
	expect_violation(ctx, f, m, b, "ELL format: array 'A_e': slot 2 pads "
		"(0, 1), absent from the original, but holds 1, not 0");
	stir_array_set_double(va, 2, 0);
	stir_array_set_int(ja, 2, 0);
	expect_violation(ctx, f, m, b, "ELL format: entry (0, 0) of the "
		"original is stored more than once (again in slot 2 of 'A_e')");
	stir_array_set_int(ja, 2, 1);
	stir_array_set_int(ja, 1, 1);
	stir_array_set_double(va, 1, 0);
	expect_violation(ctx, f, m, b, "ELL format: entry (0, 2) of the "
		"original (value 2) is in no part");
	stir_array_set_int(ja, 1, 2);
	stir_array_set_double(va, 1, 2);
	stir_array_set_int(ja, 3, 6);
	expect_violation(ctx, f, m, b, "ELL format: array 'J_e.indices': entry "
		"3 is 6, outside [0, 6)");
	stir_array_set_int(ja, 3, 1);
	expect_conserved(ctx, f, m, b);
	stir_array *wide = stir_array_convert(ctx, va, STIR_F64);
	stir_bindings_set_array(b, "A_e", wide);
	expect_violation(ctx, f, m, b, "ELL format: array 'A_e' has type f64, "
		"expected f32");
	stir_bindings_remove_array(b, "A_e");
	expect_violation(ctx, f, m, b, "ELL format: array 'A_e' is not bound");
	stir_csr *m2 = matrix_m2();
	expect_violation(ctx, f, m2, b, "ELL format: it was built from a 5 x 6 "
		"matrix with 13 entries, not from this 6 x 4 one with 5");
	stir_host_format_free(f);

	/* hybrid: sizes, rows, column ranges */
	const int64_t buckets[] = { 1, 2, 3 };
	f = stir_csr_to_hybrid(ctx, m, 1, 3, buckets, STIR_I32, STIR_F32, "_h",
		b);
	expect_conserved(ctx, f, m, b);
	stir_bindings_set_size(b, "rows_h_0_1", 2);
	expect_violation(ctx, f, m, b, "hybrid format: size 'rows_h_0_1' is 2, "
		"expected 1");
	stir_bindings_set_size(b, "rows_h_0_1", 1);
	stir_array *ra = stir_bindings_get_array(b, "R_h_0_2.indices");
	stir_array_set_int(ra, 0, 9);
	expect_violation(ctx, f, m, b, "hybrid format: array 'R_h_0_2.indices': "
		"entry 0 is 9, outside [0, 5)");
	stir_array_set_int(ra, 0, 2);
	stir_host_format_free(f);
	const int64_t two[] = { 2 };
	f = stir_csr_to_hybrid(ctx, m, 3, 1, two, STIR_I32, STIR_F32, "_h", b);
	expect_conserved(ctx, f, m, b);
	stir_array_set_int(stir_bindings_get_array(b, "C_h_0_0.indices"), 1, 2);
	stir_array_set_double(stir_bindings_get_array(b, "A_h_0_0"), 1, 2);
	expect_violation(ctx, f, m, b, "hybrid format: array 'A_h_0_0': slot 1 "
		"holds entry (0, 2), outside column range 0 [0, 2)");
	stir_host_format_free(f);

	/* BSR: a slot outside the matrix must stay 0 */
	f = stir_csr_to_bsr(ctx, m, 2, STIR_I32, STIR_F32, "_b", b);
	expect_conserved(ctx, f, m, b);
	stir_array_set_double(stir_bindings_get_array(b, "A_b"), 22, 1);
	expect_violation(ctx, f, m, b, "BSR format: array 'A_b': slot 22 lies at "
		"(5, 0), outside the 5 x 6 matrix, but holds 1, not 0");
	stir_host_format_free(f);

	/* SR-BCRS: the group pointers */
	f = stir_csr_to_sr_bcrs(ctx, m, 2, 2, STIR_I32, STIR_F32, "_s", b);
	expect_conserved(ctx, f, m, b);
	stir_array_set_int(stir_bindings_get_array(b, "G_s.indptr"), 1, 5);
	expect_violation(ctx, f, m, b, "SR-BCRS format: array 'G_s.indptr': "
		"entry 2 is 4, less than entry 1 (5)");
	stir_host_format_free(f);

	/* DBSR: the block-row count */
	f = stir_csr_to_dbsr(ctx, m2, 2, STIR_I32, STIR_F32, "_d", b);
	expect_conserved(ctx, f, m2, b);
	stir_bindings_set_size(b, "nbr_d", 3);
	expect_violation(ctx, f, m2, b, "DBSR format: size 'nbr_d' is 3, "
		"expected 2");
	stir_host_format_free(f);

	/* padding: row lengths */
	f = stir_csr_to_padding(ctx, m, 3, STIR_I32, STIR_F32, "_p", b);
	expect_conserved(ctx, f, m, b);
	stir_array *pa = stir_bindings_get_array(b, "J_p.indptr");
	stir_array_set_int(pa, 1, 2);
	expect_violation(ctx, f, m, b, "padding format: array 'J_p.indptr': "
		"row 0 has 2 slots, not a multiple of 3");
	stir_host_format_free(f);
	stir_csr_free(m2);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* b, name, n, ctx: array "name" of b cut to its first n elements (one
 * dimension), as if the builder had made it so. */
static void truncate_array(stir_ctx *ctx, stir_bindings *b, const char *name,
	int64_t n)
{
	const stir_array *a = stir_bindings_get_array(b, name);
	ck_assert_ptr_nonnull(a);
	stir_array *t = stir_array_alloc(ctx, stir_array_get_dtype(a), 1, &n);
	ck_assert_ptr_nonnull(t);
	for (int64_t i = 0; i < n; i++)
		stir_array_set_double(t, i, stir_array_get_double(a, i));
	ck_assert_int_eq(stir_bindings_set_array(b, name, t), 0);
}

/* SR-BCRS with chunks: the windows of more than c groups in chunks (part
 * _split), the others whole (part _whole); the checker wants every window
 * in exactly one item, or in consecutive items of the split part. */
START_TEST(test_sr_bcrs_chunks)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_m();
	stir_bindings *b = stir_bindings_alloc();
	/* t = g = 2 (test_sr_bcrs_small): windows of 1, 3 and 3 groups; c =
	 * 2 cuts windows 1 and 2 into 2 + 1 groups */
	stir_host_format *f = stir_csr_to_sr_bcrs_chunks(ctx, m, 2, 2, 2,
		STIR_ROWS_NATURAL, STIR_I32, STIR_F32, "_s", b);
	expect_conserved(ctx, f, m, b);
	const int64_t w0[] = { 1, 1, 2, 2 }, g0[] = { 0, 2, 3, 5, 6 };
	const int64_t t0[] = { 1, 2, 3, 4, 5, 0,   0, 1, 2, 3, 4, 5 };
	const int64_t w1[] = { 0 }, g1[] = { 0, 1 }, t1[] = { 0, 2 };
	const double a0[] = { 3, 0, 4, 0, 5, 0, 0, 7, 6, 0, 0, 0,
		8, 0, 9, 0, 10, 0, 11, 0, 12, 0, 13, 0 };
	const double a1[] = { 1, 0, 2, 0 };
	expect_ints(b, "W_s_split.indices", STIR_I32, 4, w0);
	expect_ints(b, "G_s_split.indptr", STIR_I32, 5, g0);
	expect_ints(b, "T_s_split.indices", STIR_I32, 12, t0);
	expect_vals(b, "A_s_split", 24, a0);
	expect_ints(b, "W_s_whole.indices", STIR_I32, 1, w1);
	expect_ints(b, "G_s_whole.indptr", STIR_I32, 2, g1);
	expect_ints(b, "T_s_whole.indices", STIR_I32, 2, t1);
	expect_vals(b, "A_s_whole", 4, a1);
	expect_size(b, "items_s_split", 4);
	expect_size(b, "maxg_s_split", 2);
	expect_size(b, "ngroups_s_split", 6);
	expect_size(b, "mt_s_split", 3);
	expect_size(b, "items_s_whole", 1);
	expect_size(b, "maxg_s_whole", 1);
	ck_assert_int_eq(stir_host_format_n_parts(f), 2);
	const stir_host_format_part *p = part_at(f, 0);
	ck_assert_str_eq(p->suffix, "_s_split");
	ck_assert(p->split);
	ck_assert_int_eq(p->rows, 4);
	ck_assert_int_eq(p->nnz, 11);
	ck_assert_int_eq(p->slots, 24);
	ck_assert(!part_at(f, 1)->split);
	ck_assert_int_eq(part_at(f, 1)->nnz, 2);
	/* a chunk moved to another window */
	stir_array_set_int(stir_bindings_get_array(b, "W_s_split.indices"), 1, 0);
	expect_violation(ctx, f, m, b, "SR-BCRS format: array 'A_s_split': "
		"slot 8 pads (0, 5), absent from the original, but holds 6, not 0");
	stir_host_format_free(f);

	/* c = 3: every window whole; the split part bound without items */
	f = stir_csr_to_sr_bcrs_chunks(ctx, m, 2, 2, 3, STIR_ROWS_NATURAL,
		STIR_I32, STIR_F32, "_s", b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(stir_host_format_n_parts(f), 1);
	const int64_t gz[] = { 0 }, ww[] = { 0, 1, 2 }, gw[] = { 0, 1, 4, 7 };
	expect_ints(b, "G_s_split.indptr", STIR_I32, 1, gz);
	expect_size(b, "items_s_split", 0);
	expect_ints(b, "W_s_whole.indices", STIR_I32, 3, ww);
	expect_ints(b, "G_s_whole.indptr", STIR_I32, 4, gw);
	/* a window twice, another in no item */
	stir_array_set_int(stir_bindings_get_array(b, "W_s_whole.indices"), 2, 1);
	expect_violation(ctx, f, m, b, "SR-BCRS format: array "
		"'W_s_whole.indices': item 2 holds window 1, which another item "
		"holds already");
	stir_host_format_free(f);

	ck_assert_ptr_null(stir_csr_to_sr_bcrs_chunks(ctx, m, 2, 2, 0,
		STIR_ROWS_NATURAL, STIR_I32, STIR_F32, "_s", b));
	expect_error(ctx, "SR-BCRS: the chunk size must be positive (got 0)");
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* SR-BCRS with chunks over the rows in an order: by degree, matrix_m's
 * rows 4, 2 | 0, 3 | 1 share windows and need 3 + 2 + 0 groups, not the
 * 1 + 3 + 3 of their own order; P_P says which row each window
 * row holds, and the checker refuses one that is no permutation. */
START_TEST(test_sr_bcrs_row_order)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_m();
	stir_bindings *b = stir_bindings_alloc();
	stir_host_format *f = stir_csr_to_sr_bcrs_chunks(ctx, m, 2, 2, 2,
		STIR_ROWS_DEGREE, STIR_I32, STIR_F32, "_s", b);
	expect_conserved(ctx, f, m, b);
	const int64_t rows[] = { 4, 2, 0, 3, 1, 5 };
	expect_ints(b, "P_s_split", STIR_I32, 6, rows);
	expect_ints(b, "P_s_whole", STIR_I32, 6, rows);
	const int64_t w0[] = { 0, 0 }, w1[] = { 1, 2 }, g1[] = { 0, 2, 2 };
	const int64_t t1[] = { 0, 2, 4, 1 };
	/* window 1: row 0 (columns 0 and 2) in TI 0, row 3 (column 4) in 1 */
	const double a1[] = { 1, 0, 2, 0, 0, 7, 0, 0 };
	expect_ints(b, "W_s_split.indices", STIR_I32, 2, w0);
	expect_ints(b, "W_s_whole.indices", STIR_I32, 2, w1);
	expect_ints(b, "G_s_whole.indptr", STIR_I32, 3, g1);
	expect_ints(b, "T_s_whole.indices", STIR_I32, 4, t1);
	expect_vals(b, "A_s_whole", 8, a1);
	ck_assert_int_eq(part_at(f, 0)->slots + part_at(f, 1)->slots, 20);
	ck_assert_int_eq(part_at(f, 0)->nnz, 10);
	/* a window row twice, then a row out of range */
	stir_array *pa = stir_bindings_get_array(b, "P_s_whole");
	stir_array_set_int(pa, 1, 4);
	expect_violation(ctx, f, m, b, "SR-BCRS format: array "
		"'P_s_whole': entries 0 and 1 are both 4, but it must "
		"be a permutation (each window row a row of its own)");
	stir_array_set_int(pa, 1, 9);
	expect_violation(ctx, f, m, b, "SR-BCRS format: array "
		"'P_s_whole': entry 1 is 9, outside [0, 6)");
	/* window 1's row 3 swapped with window 0's row 2: (2, 2) again */
	stir_array_set_int(pa, 1, 3);
	stir_array_set_int(pa, 3, 2);
	expect_violation(ctx, f, m, b, "SR-BCRS format: entry (2, 2) of the "
		"original is stored more than once (again in slot 3 of "
		"'A_s_whole')");
	stir_host_format_free(f);

	/* the locality order, with i64 indices */
	f = stir_csr_to_sr_bcrs_chunks(ctx, m, 2, 2, 2, STIR_ROWS_LOCALITY,
		STIR_I64, STIR_F64, "_s", b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(part_at(f, 0)->row_order, STIR_ROWS_LOCALITY);
	stir_host_format_free(f);
	/* the fewest slots: by degree here; for one row, its own order (P
	 * then says so) */
	f = stir_csr_to_sr_bcrs_chunks(ctx, m, 2, 2, 2, STIR_ROWS_FEWEST_SLOTS,
		STIR_I32, STIR_F32, "_s", b);
	expect_conserved(ctx, f, m, b);
	ck_assert_int_eq(part_at(f, 0)->row_order, STIR_ROWS_DEGREE);
	expect_ints(b, "P_s_whole", STIR_I32, 6, rows);
	stir_host_format_free(f);
	static const int64_t ip1[] = { 0, 2 }, ix1[] = { 1, 3 };
	static const double v1[] = { 1, 2 };
	stir_csr *one = make_csr(1, 4, ip1, ix1, v1);
	f = stir_csr_to_sr_bcrs_chunks(ctx, one, 2, 2, 2,
		STIR_ROWS_FEWEST_SLOTS, STIR_I32, STIR_F32, "_s", b);
	expect_conserved(ctx, f, one, b);
	ck_assert_int_eq(part_at(f, 0)->row_order, STIR_ROWS_NATURAL);
	const int64_t own[] = { 0, 1 };
	expect_ints(b, "P_s_whole", STIR_I32, 2, own);
	stir_host_format_free(f);
	stir_csr_free(one);
	ck_assert_ptr_null(stir_csr_to_sr_bcrs_chunks(ctx, m, 2, 2, 2,
		(stir_row_order)7, STIR_I32, STIR_F32, "_s", b));
	expect_error(ctx, "SR-BCRS: unknown row order 7");
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* Covering the rows, the checker also requires every row in exactly one
 * part, and more than once only in the split rows' part; conservation
 * alone allows rows of padding anywhere. */
START_TEST(test_verify_cover)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = matrix_cover();
	stir_bindings *b = stir_bindings_alloc();
	const int64_t buckets[] = { 1, 2, 4 };
	stir_host_format *f = stir_csr_to_hybrid_flags(ctx, m, 1, 3, buckets,
		STIR_I32, STIR_F32, "_c", STIR_HYBRID_COVER_ROWS, b);
	expect_conserved(ctx, f, m, b);
	/* R_c_0_0 = { 0, 1, 3 }: empty row 3's padding row given to row 0,
	 * which then fills two rows of a part that is not split */
	stir_array *r0 = stir_bindings_get_array(b, "R_c_0_0.indices");
	stir_array *c0 = stir_bindings_get_array(b, "C_c_0_0.indices");
	stir_array_set_int(r0, 2, 0);
	expect_violation(ctx, f, m, b, "hybrid format: row 0 fills more than "
		"one row of part '_c_0_0', which is not the split rows' part");
	/* ... to row 5 of part 0_2 (at a column row 5 lacks, so that the
	 * padding still conserves) */
	stir_array_set_int(r0, 2, 5);
	stir_array_set_int(c0, 2, 3);
	expect_violation(ctx, f, m, b, "hybrid format: row 5 lies in parts "
		"'_c_0_0' and '_c_0_2', so the rows are not covered once");
	/* ... to the split row 2 */
	stir_array_set_int(r0, 2, 2);
	expect_violation(ctx, f, m, b, "hybrid format: row 2 lies in parts "
		"'_c_0_0' and '_c_0_3', so the rows are not covered once");
	stir_array_set_int(r0, 2, 3);
	stir_array_set_int(c0, 2, 0);
	expect_conserved(ctx, f, m, b);
	/* the split rows' part 0_3 is one only for a format that covers
	 * the rows */
	f->cover_rows = false;
	expect_violation(ctx, f, m, b, "hybrid format: the description of "
		"part '_c_0_3' does not match the format");
	f->cover_rows = true;
	/* part 0_0 without its last row, row 3's padding (the description
	 * changed with the arrays): every entry is still there, row 3 is
	 * not */
	f->parts[0].rows = 2;
	f->parts[0].slots = 2;
	truncate_array(ctx, b, "R_c_0_0.indices", 2);
	truncate_array(ctx, b, "C_c_0_0.indices", 2);
	truncate_array(ctx, b, "A_c_0_0", 2);
	stir_bindings_set_size(b, "rows_c_0_0", 2);
	expect_violation(ctx, f, m, b, "hybrid format: row 3 lies in no part, "
		"so the rows are not covered");
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- value types and empty matrices ---- */

START_TEST(test_value_types)
{
	stir_ctx *ctx = stir_ctx_alloc();
	const int64_t indptr[] = { 0, 3, 4 }, indices[] = { 0, 1, 3, 2 };
	const double values[] = { 0.1, 1.0 / 3, -1e-6, 65504 };
	stir_csr *m = make_csr(2, 4, indptr, indices, values);
	static const stir_dtype types[] = { STIR_F16, STIR_BF16, STIR_F32,
		STIR_F64 };
	for (int i = 0; i < 4; i++) {
		stir_bindings *b = stir_bindings_alloc();
		stir_host_format *f = stir_csr_to_ell(ctx, m, 3, STIR_I32, types[i],
			"", b);
		expect_conserved(ctx, f, m, b);
		const stir_array *a = stir_bindings_get_array(b, "A");
		ck_assert_int_eq(stir_array_get_dtype(a), types[i]);
		double want[] = { 0.1, 1.0 / 3, -1e-6, 65504 };
		for (int k = 0; k < 4; k++) {
			switch (types[i]) {
			case STIR_F16:
				want[k] = stir_f16_to_double(
					stir_f16_from_double(want[k]));
				break;
			case STIR_BF16:
				want[k] = stir_bf16_to_double(
					stir_bf16_from_double(want[k]));
				break;
			case STIR_F32:
				want[k] = (float)want[k];
				break;
			default:
				break;
			}
		}
		ck_assert(stir_array_get_double(a, 0) == want[0]);
		ck_assert(stir_array_get_double(a, 1) == want[1]);
		ck_assert(stir_array_get_double(a, 2) == want[2]);
		ck_assert(stir_array_get_double(a, 3) == want[3]);
		ck_assert(stir_array_get_double(a, 5) == 0);
		/* a value that only f64 keeps exactly tells the types apart */
		ck_assert_int_eq(stir_array_get_double(a, 0) == 0.1,
			types[i] == STIR_F64);
		stir_host_format_free(f);
		stir_bindings_free(b);
	}
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_empty)
{
	stir_ctx *ctx = stir_ctx_alloc();
	const int64_t none[] = { 0 }, zeros[] = { 0, 0, 0, 0 };
	stir_csr *m0 = make_csr(0, 0, none, NULL, NULL);
	stir_csr *m3 = make_csr(3, 4, zeros, NULL, NULL);
	/* no rows: no part and nothing bound, whatever the format */
	for (int which = 0; which < 6; which++) {
		stir_bindings *b = stir_bindings_alloc();
		stir_host_format *f = build_any(which, ctx, m0, b);
		expect_conserved(ctx, f, m0, b);
		ck_assert_int_eq(stir_host_format_n_parts(f), 0);
		ck_assert_int_eq(stir_bindings_n_arrays(b), 0);
		ck_assert_int_eq(stir_bindings_n_sizes(b), 0);
		stir_host_format_free(f);
		stir_bindings_free(b);
	}
	/* rows without entries: the row formats keep them, DBSR and
	 * hybrid have no part */
	static const int want_parts[] = { 1, 1, 1, 0, 0, 1 };
	for (int which = 0; which < 6; which++) {
		stir_bindings *b = stir_bindings_alloc();
		stir_host_format *f = build_any(which, ctx, m3, b);
		expect_conserved(ctx, f, m3, b);
		ck_assert_int_eq(stir_host_format_n_parts(f), want_parts[which]);
		if (!want_parts[which])
			ck_assert_int_eq(stir_bindings_n_arrays(b), 0);
		stir_host_format_free(f);
		stir_bindings_free(b);
	}
	stir_bindings *b = stir_bindings_alloc();
	stir_host_format *f = stir_csr_to_ell(ctx, m3, 2, STIR_I32, STIR_F32, "", b);
	const int64_t j[] = { 0, 0, 0, 0, 0, 0 };
	expect_ints(b, "J.indices", STIR_I32, 6, j);
	stir_host_format_free(f);
	f = stir_csr_to_sr_bcrs(ctx, m3, 2, 2, STIR_I32, STIR_F32, "", b);
	expect_size(b, "ngroups", 0);
	expect_size(b, "mt", 2);
	expect_size(b, "maxg", 0);
	stir_host_format_free(f);
	stir_bindings_free(b);
	stir_csr_free(m0);
	stir_csr_free(m3);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- random matrices ---- */

/* s: the next number of a xorshift64* sequence. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* seed, m, n: a random m x n matrix (m >= 5) whose first rows are an empty
 * row, a row of one entry, a full row, a long row and a row holding only
 * the last column; the others are drawn from the same kinds or hold 2 to
 * 20 random entries.  Values are multiples of 1/64 in [-16, 16). */
static stir_csr *random_csr(uint64_t seed, int64_t m, int64_t n)
{
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
	int64_t *indptr = malloc((m + 1) * sizeof(int64_t));
	int64_t *indices = malloc(m * n * sizeof(int64_t));
	double *values = malloc(m * n * sizeof(double));
	ck_assert(indptr && indices && values);
	indptr[0] = 0;
	int64_t nnz = 0;
	for (int64_t i = 0; i < m; i++) {
		int kind = i < 5 ? (int)i : (int)(rng_next(&s) % 20);
		int64_t len;
		switch (kind) {
		case 0: case 5: len = 0; break;
		case 1: case 6: len = 1; break;
		case 2: case 7: len = n; break;
		case 3: case 8: len = n / 2 + rng_next(&s) % (n / 2); break;
		case 4: len = -1; break;
		default: len = 2 + rng_next(&s) % 19; break;
		}
		if (len < 0) {
			indices[nnz] = n - 1;
			values[nnz++] = 0.5;
		} else {
			/* selection sampling: sorted, distinct */
			int64_t need = len;
			for (int64_t j = 0; j < n && need > 0; j++) {
				if ((int64_t)(rng_next(&s) % (n - j)) >= need)
					continue;
				indices[nnz] = j;
				values[nnz++] = ((int64_t)(rng_next(&s) % 2048) -
					1024) / 64.0;
				need--;
			}
		}
		indptr[i + 1] = nnz;
	}
	stir_csr *c = make_csr(m, n, indptr, indices, values);
	free(indptr);
	free(indices);
	free(values);
	return c;
}

/* csr, fc, f: the parts of a hybrid description against rows counted
 * here from the matrix: part (q, t) holds the runs of L entries in range
 * q with b(t-1) < L <= b(t), and the last bucket also ceil(L / bk) chunks
 * of each longer run, which makes it split. */
static void check_hybrid_counts(const stir_csr *csr, const fmt_case *fc,
	const stir_host_format *f)
{
	int64_t c = fc->p1, n = csr->ncols, k = fc->nbuckets;
	int64_t cw = (n + c - 1) / c;
	int64_t *rows = calloc(c * k, sizeof(int64_t));
	bool *split = calloc(c * k, sizeof(bool));
	ck_assert(rows && split);
	for (int64_t i = 0; i < csr->nrows; i++) {
		for (int64_t q = 0; q < c; q++) {
			int64_t len = 0;
			for (int64_t e = csr->indptr[i]; e < csr->indptr[i + 1];
			     e++)
				len += csr->indices[e] / cw == q;
			if (len == 0)
				continue;
			int64_t t = 0;
			while (t < k && fc->buckets[t] < len)
				t++;
			if (t == k) {
				rows[q * k + k - 1] += (len + fc->buckets[k - 1]
					- 1) / fc->buckets[k - 1];
				split[q * k + k - 1] = true;
			} else {
				rows[q * k + t]++;
			}
		}
	}
	int i = 0;
	for (int64_t pi = 0; pi < c * k; pi++) {
		if (rows[pi] == 0)
			continue;
		const stir_host_format_part *p = part_at(f, i++);
		ck_assert_int_eq(p->range, pi / k);
		ck_assert_int_eq(p->bucket, pi % k);
		ck_assert_int_eq(p->rows, rows[pi]);
		ck_assert_int_eq(p->split, split[pi]);
		ck_assert_int_eq(p->width, fc->buckets[pi % k]);
	}
	ck_assert_int_eq(stir_host_format_n_parts(f), i);
	free(rows);
	free(split);
}

/* csr, rb, cb: the number of (rb x cb) blocks holding an entry, counted
 * on a dense grid. */
static int64_t count_blocks(const stir_csr *csr, int64_t rb, int64_t cb)
{
	int64_t mb = (csr->nrows + rb - 1) / rb, nb = (csr->ncols + cb - 1) / cb;
	bool *grid = calloc(mb * nb + 1, sizeof(bool));
	ck_assert_ptr_nonnull(grid);
	int64_t count = 0;
	for (int64_t i = 0; i < csr->nrows; i++)
		for (int64_t e = csr->indptr[i]; e < csr->indptr[i + 1]; e++) {
			bool *g = &grid[(i / rb) * nb + csr->indices[e] / cb];
			count += !*g;
			*g = true;
		}
	free(grid);
	return count;
}

/* The cases built on the random matrices (96 columns, so that full rows
 * fill whole ranges and buckets). */
static const fmt_case random_cases[] = {
	{ STIR_FORMAT_ELL, 96, 0, 0, { 0 } },
	{ STIR_FORMAT_PADDING, 1, 0, 0, { 0 } },
	{ STIR_FORMAT_PADDING, 3, 0, 0, { 0 } },
	{ STIR_FORMAT_PADDING, 32, 0, 0, { 0 } },
	{ STIR_FORMAT_HYBRID, 1, 0, 6, { 1, 2, 4, 8, 16, 32 } },
	{ STIR_FORMAT_HYBRID, 3, 0, 6, { 1, 2, 4, 8, 16, 32 } },
	{ STIR_FORMAT_HYBRID, 1, 0, 2, { 4, 32 } },
	{ STIR_FORMAT_HYBRID, 3, 0, 2, { 4, 32 } },
	{ STIR_FORMAT_HYBRID, 3, 0, 4, { 1, 2, 4, 8 } },
	{ STIR_FORMAT_HYBRID, 4, 0, 3, { 1, 5, 24 } },
	{ STIR_FORMAT_HYBRID, 1, 0, 1, { 96 } },
	{ STIR_FORMAT_BSR, 1, 0, 0, { 0 } },
	{ STIR_FORMAT_BSR, 3, 0, 0, { 0 } },
	{ STIR_FORMAT_BSR, 16, 0, 0, { 0 } },
	{ STIR_FORMAT_BSR, 200, 0, 0, { 0 } },
	{ STIR_FORMAT_DBSR, 2, 0, 0, { 0 } },
	{ STIR_FORMAT_DBSR, 5, 0, 0, { 0 } },
	{ STIR_FORMAT_SR_BCRS, 1, 1, 0, { 0 } },
	{ STIR_FORMAT_SR_BCRS, 2, 4, 0, { 0 } },
	{ STIR_FORMAT_SR_BCRS, 8, 8, 0, { 0 } },
	{ STIR_FORMAT_SR_BCRS, 16, 3, 0, { 0 } },
	{ STIR_FORMAT_SR_BCRS, 3, 32, 0, { 0 } },
};

START_TEST(test_random)
{
	static const stir_dtype vtypes[] = { STIR_F16, STIR_BF16, STIR_F64 };
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = random_csr((uint64_t)_i + 1, 150, 96);
	int ncases = sizeof(random_cases) / sizeof(random_cases[0]);
	for (int ci = 0; ci < ncases; ci++) {
		const fmt_case *fc = &random_cases[ci];
		stir_bindings *b;
		stir_host_format *f = check_case(ctx, m, fc, vtypes[ci % 3], &b);
		check_description(f, m);
		const stir_host_format_part *p = part_at(f, 0);
		switch (fc->kind) {
		case STIR_FORMAT_HYBRID:
			check_hybrid_counts(m, fc, f);
			break;
		case STIR_FORMAT_BSR:
			ck_assert_int_eq(p->nnzb, count_blocks(m, fc->p1,
				fc->p1));
			break;
		case STIR_FORMAT_DBSR: {
			ck_assert_int_eq(p->nnzb, count_blocks(m, fc->p1,
				fc->p1));
			/* row blocks holding a block: counted with one
			 * column block spanning every column */
			ck_assert_int_eq(p->nbr, count_blocks(m, fc->p1,
				m->ncols));
			break;
		}
		case STIR_FORMAT_SR_BCRS: {
			ck_assert_int_eq(p->rows, (m->nrows + fc->p1 - 1) /
				fc->p1);
			/* groups: ceil(tiles / g) per row block */
			int64_t groups = 0;
			for (int64_t k = 0; k < p->rows; k++) {
				stir_csr sub = *m;
				sub.nrows = m->nrows - k * fc->p1 < fc->p1 ?
					m->nrows - k * fc->p1 : fc->p1;
				sub.indptr = m->indptr + k * fc->p1;
				int64_t tiles = count_blocks(&sub, fc->p1, 1);
				groups += (tiles + fc->p2 - 1) / fc->p2;
			}
			ck_assert_int_eq(p->ngroups, groups);
			break;
		}
		default:
			break;
		}
		stir_host_format_free(f);
		stir_bindings_free(b);
	}
	/* the full rows make these refuse */
	stir_bindings *b = stir_bindings_alloc();
	const int64_t b5[] = { 2, 20 };
	ck_assert_ptr_null(stir_csr_to_hybrid(ctx, m, 5, 2, b5, STIR_I32,
		STIR_F32, "", b));
	expect_error(ctx, "hybrid: row 2 holds all 96 columns of the matrix, so "
		"no column is left to pad its 16 entries in column range 4 to 20");
	ck_assert_ptr_null(stir_csr_to_padding(ctx, m, 5, STIR_I32, STIR_F32,
		"", b));
	expect_error(ctx, "padding: row 2 holds all 96 columns of the matrix, "
		"so no column is left to pad its 96 entries to a multiple of 5");
	ck_assert_ptr_null(stir_csr_to_ell(ctx, m, 95, STIR_I32, STIR_F32, "",
		b));
	expect_error(ctx, "ELL: row 2 has 96 entries, more than the width 95");
	stir_bindings_free(b);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- graphs ---- */

/* The cases built on cora and citeseer (no full rows there). */
static const fmt_case graph_cases[] = {
	{ STIR_FORMAT_ELL, 168, 0, 0, { 0 } },
	{ STIR_FORMAT_PADDING, 4, 0, 0, { 0 } },
	{ STIR_FORMAT_HYBRID, 1, 0, 6, { 1, 2, 4, 8, 16, 32 } },
	{ STIR_FORMAT_HYBRID, 3, 0, 6, { 1, 2, 4, 8, 16, 32 } },
	{ STIR_FORMAT_HYBRID, 1, 0, 2, { 4, 32 } },
	{ STIR_FORMAT_HYBRID, 3, 0, 2, { 4, 32 } },
	{ STIR_FORMAT_BSR, 16, 0, 0, { 0 } },
	{ STIR_FORMAT_DBSR, 4, 0, 0, { 0 } },
	{ STIR_FORMAT_SR_BCRS, 16, 8, 0, { 0 } },
};

START_TEST(test_graphs)
{
	static const char *const files[] = { "examples/data/cora.mtx.gz",
		"examples/data/citeseer.mtx.gz" };
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = stir_mtx_read_from_file(ctx, test_path(files[_i]));
	ck_assert_ptr_nonnull(m);
	int ncases = sizeof(graph_cases) / sizeof(graph_cases[0]);
	for (int ci = 0; ci < ncases; ci++) {
		const fmt_case *fc = &graph_cases[ci];
		stir_bindings *b;
		stir_host_format *f = check_case(ctx, m, fc,
			ci % 2 ? STIR_F16 : STIR_BF16, &b);
		check_description(f, m);
		if (fc->kind == STIR_FORMAT_HYBRID)
			check_hybrid_counts(m, fc, f);
		if (fc->kind == STIR_FORMAT_BSR)
			ck_assert_int_eq(part_at(f, 0)->nnzb,
				count_blocks(m, 16, 16));
		stir_host_format_free(f);
		stir_bindings_free(b);
	}
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* An edge of the heterograph file while the CSF tensor is built. */
typedef struct hetero_edge {
	int64_t rel, dst, src;
} hetero_edge;

/* a, b: order edges by relation, destination, source. */
static int edge_cmp(const void *a, const void *b)
{
	const hetero_edge *x = a, *y = b;
	if (x->rel != y->rel)
		return x->rel < y->rel ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return (x->src > y->src) - (x->src < y->src);
}

/* The CSF tensor of a heterograph: relation -> destination -> source,
 * each value 1 / (the row's length), with the arrays it points to. */
typedef struct hetero_csf {
	stir_csf t;
	int64_t *rel_indptr, *row_indices, *row_indptr, *col_indices;
	double *values;
} hetero_csf;

/* ctx, rel, h: read heterograph file "rel" ("%%hetero nodes edges
 * relations", then "src dst relation" lines) into h. */
static void read_hetero(stir_ctx *ctx, const char *rel, hetero_csf *h)
{
	char *text;
	size_t len;
	ck_assert_int_eq(stir_bytes_read_from_file(ctx, test_path(rel), &text, &len), 0);
	long long nodes, edges, rels;
	int at;
	ck_assert_int_eq(sscanf(text, "%%%%hetero %lld %lld %lld%n", &nodes,
		&edges, &rels, &at), 3);
	hetero_edge *e = malloc(edges * sizeof(*e));
	ck_assert_ptr_nonnull(e);
	const char *p = text + at;
	for (long long i = 0; i < edges; i++) {
		long long src, dst, r;
		int used;
		if (sscanf(p, "%lld %lld %lld%n", &src, &dst, &r, &used) != 3)
			ck_abort_msg("%s: bad edge %lld", rel, i);
		p += used;
		e[i].rel = r;
		e[i].dst = dst;
		e[i].src = src;
	}
	free(text);
	qsort(e, edges, sizeof(*e), edge_cmp);
	h->rel_indptr = calloc(rels + 1, sizeof(int64_t));
	h->row_indices = malloc(edges * sizeof(int64_t));
	h->row_indptr = malloc((edges + 1) * sizeof(int64_t));
	h->col_indices = malloc(edges * sizeof(int64_t));
	h->values = malloc(edges * sizeof(double));
	int64_t nnz_i = 0;
	h->row_indptr[0] = 0;
	for (long long i = 0; i < edges; i++) {
		if (i == 0 || e[i].rel != e[i - 1].rel ||
		    e[i].dst != e[i - 1].dst) {
			h->row_indices[nnz_i++] = e[i].dst;
			h->rel_indptr[e[i].rel + 1]++;
		}
		h->col_indices[i] = e[i].src;
		h->row_indptr[nnz_i] = i + 1;
	}
	for (long long r = 0; r < rels; r++)
		h->rel_indptr[r + 1] += h->rel_indptr[r];
	for (int64_t i = 0; i < nnz_i; i++)
		for (int64_t k = h->row_indptr[i]; k < h->row_indptr[i + 1]; k++)
			h->values[k] = 1.0 / (h->row_indptr[i + 1] -
				h->row_indptr[i]);
	free(e);
	stir_csf t = { rels, nodes, nodes, nnz_i, edges, h->rel_indptr,
		h->row_indices, h->row_indptr, h->col_indices, h->values };
	h->t = t;
}

/* h: free its arrays. */
static void free_hetero(hetero_csf *h)
{
	free(h->rel_indptr);
	free(h->row_indices);
	free(h->row_indptr);
	free(h->col_indices);
	free(h->values);
}

START_TEST(test_ell3d_aifb)
{
	/* the first 4000 edges of AIFB: 13 of its 104 relations hold edges,
	 * 1409 (relation, destination) rows, the longest (destination 1813
	 * of relation 5) with 129 sources */
	stir_ctx *ctx = stir_ctx_alloc();
	hetero_csf h;
	read_hetero(ctx, "tests/data/formats/aifb-head.hetero.gz", &h);
	ck_assert_int_eq(h.t.nrels, 104);
	ck_assert_int_eq(h.t.nnz_i, 1409);
	ck_assert_int_eq(h.t.nnz, 4000);
	stir_bindings *b32 = stir_bindings_alloc();
	stir_bindings *b64 = stir_bindings_alloc();
	stir_host_format *f32 = stir_csf_to_ell3d(ctx, &h.t, 129, STIR_I32, STIR_F32,
		"_aifb", b32);
	stir_host_format *f64 = stir_csf_to_ell3d(ctx, &h.t, 129, STIR_I64, STIR_F32,
		"_aifb", b64);
	ck_assert(f32 && f64);
	ck_assert_int_eq(stir_host_format_verify_csf(ctx, f32, &h.t, b32), 0);
	ck_assert_int_eq(stir_host_format_verify_csf(ctx, f64, &h.t, b64), 0);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	expect_same_bindings(b32, b64);
	const stir_host_format_part *p = part_at(f64, 0);
	ck_assert_int_eq(p->rows, 1409);
	ck_assert_int_eq(p->width, 129);
	ck_assert_int_eq(p->nnz, 4000);
	ck_assert_int_eq(p->slots, 1409 * 129);
	ck_assert_ptr_nonnull(stir_bindings_get_array(b64, "J_aifb.indices"));
	stir_host_format_free(f32);
	stir_host_format_free(f64);
	stir_bindings_free(b32);
	stir_bindings_free(b64);

	stir_bindings *bh = stir_bindings_alloc();
	stir_host_format *fh = stir_csf_to_ell3d(ctx, &h.t, 200, STIR_I32, STIR_F16,
		"_aifb", bh);
	ck_assert_int_eq(stir_host_format_verify_csf(ctx, fh, &h.t, bh), 0);
	stir_host_format_free(fh);
	ck_assert_ptr_null(stir_csf_to_ell3d(ctx, &h.t, 128, STIR_I32,
		STIR_F32, "_aifb", bh));
	expect_error(ctx, "ELL3D: row 1813 of relation 5 has 129 entries, more "
		"than the width 128");
	stir_bindings_free(bh);
	free_hetero(&h);
	stir_ctx_free(ctx);
}
END_TEST

static Suite *formats_suite(void)
{
	Suite *s = suite_create("formats");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ell_small);
	tcase_add_test(tc, test_padding_small);
	tcase_add_test(tc, test_bsr_small);
	tcase_add_test(tc, test_dbsr_small);
	tcase_add_test(tc, test_sr_bcrs_small);
	tcase_add_test(tc, test_sr_bcrs_chunks);
	tcase_add_test(tc, test_sr_bcrs_row_order);
	tcase_add_test(tc, test_hybrid_small_c1);
	tcase_add_test(tc, test_hybrid_small_c3);
	tcase_add_test(tc, test_hybrid_flags);
	tcase_add_test(tc, test_hybrid_locality_order);
	tcase_add_test(tc, test_hybrid_cover_rows);
	tcase_add_test(tc, test_hybrid_cover_all_parts);
	tcase_add_test(tc, test_hybrid_cover_errors);
	tcase_add_test(tc, test_hybrid_spec_message);
	tcase_add_test(tc, test_ell3d_small);
	tcase_add_test(tc, test_invalid_csr);
	tcase_add_test(tc, test_invalid_csf);
	tcase_add_test(tc, test_invalid_params);
	tcase_add_test(tc, test_i32_limits);
	tcase_add_test(tc, test_verify_violations);
	tcase_add_test(tc, test_verify_cover);
	tcase_add_test(tc, test_value_types);
	tcase_add_test(tc, test_empty);
	tcase_add_loop_test(tc, test_random, 0, 6);
	tcase_add_loop_test(tc, test_graphs, 0, 2);
	tcase_add_test(tc, test_ell3d_aifb);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run_suite(formats_suite());
}
