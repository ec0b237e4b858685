/* Tests of the Matrix Market reader (formats/mtx.c): small files of every
 * supported kind with their CSR written out by hand, one malformed file
 * per error with its exact message, line and column, and the two graphs
 * shipped with the examples. */
#include <stir/io.h>
#include "tests/testio.h"

/* m: a matrix that must be nrows x ncols with CSR arrays equal to the
 * given ones. */
static void check_csr(const stir_csr *m, int64_t nrows, int64_t ncols,
	const int64_t *indptr, const int64_t *indices, const double *values)
{
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->nrows, nrows);
	ck_assert_int_eq(m->ncols, ncols);
	for (int64_t i = 0; i <= nrows; i++)
		ck_assert_int_eq(m->indptr[i], indptr[i]);
	ck_assert_int_eq(m->nnz, indptr[nrows]);
	for (int64_t k = 0; k < m->nnz; k++) {
		ck_assert_int_eq(m->indices[k], indices[k]);
		ck_assert_double_eq(m->values[k], values[k]);
	}
}

/* ctx, rel: read fixture "rel" through stir_mtx_read. */
static stir_csr *read_fixture(stir_ctx *ctx, const char *rel)
{
	stir_csr *m = stir_mtx_read(ctx, test_path(rel));
	ck_assert_msg(m != NULL, "%s: %s", rel, stir_ctx_n_diagnostics(ctx) ?
		stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 0)) : "?");
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	return m;
}

START_TEST(test_general_real)
{
	/* out of order, a blank line, and (1, 2) twice: 1e-3 + 0.5 */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = read_fixture(ctx, "tests/data/io/general.mtx");
	const int64_t indptr[] = { 0, 2, 3, 5 };
	const int64_t indices[] = { 1, 3, 2, 0, 3 };
	const double values[] = { 0.501, 2, 4.25, -1.5, 7 };
	check_csr(m, 3, 4, indptr, indices, values);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_symmetric_integer)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = read_fixture(ctx, "tests/data/io/symmetric.mtx");
	const int64_t indptr[] = { 0, 2, 4, 6, 8 };
	const int64_t indices[] = { 0, 1, 0, 3, 2, 3, 1, 2 };
	const double values[] = { 10, -3, -3, 7, 1, 2, 7, 2 };
	check_csr(m, 4, 4, indptr, indices, values);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_symmetric_real)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = read_fixture(ctx, "tests/data/io/real-symmetric.mtx");
	const int64_t indptr[] = { 0, 2, 3, 5 };
	const int64_t indices[] = { 0, 2, 1, 0, 2 };
	const double values[] = { 1, -2.5, 3, -2.5, 0.25 };
	check_csr(m, 3, 3, indptr, indices, values);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_pattern)
{
	/* the banner in capitals; plain and gzipped */
	static const char *const files[] = { "tests/data/io/pattern.mtx",
		"tests/data/io/pattern.mtx.gz" };
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = read_fixture(ctx, files[_i]);
	const int64_t indptr[] = { 0, 2, 3, 4 };
	const int64_t indices[] = { 0, 2, 1, 0 };
	const double values[] = { 1, 1, 1, 1 };
	check_csr(m, 3, 3, indptr, indices, values);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_integer_duplicates)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = read_fixture(ctx, "tests/data/io/integer.mtx");
	const int64_t indptr[] = { 0, 1, 2 };
	const int64_t indices[] = { 0, 2 };
	const double values[] = { 12, 2 };
	check_csr(m, 2, 3, indptr, indices, values);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* ctx, text: parse text (not NUL-terminated: an exact copy) as "m.mtx". */
static stir_csr *read_text(stir_ctx *ctx, const char *text)
{
	size_t n = strlen(text);
	uint8_t *p = test_copy_exact((const uint8_t *)text, n);
	stir_csr *m = stir_mtx_read_from_mem(ctx, "m.mtx", p, n);
	free(p);
	return m;
}

START_TEST(test_from_mem_variants)
{
	stir_ctx *ctx = stir_ctx_alloc();
	/* CRLF line ends, tabs, comments and blank lines among the entries,
	 * no line break at the end, pattern duplicates merged, a long row
	 * in reverse order (sorted with qsort) */
	char text[4096];
	int n = snprintf(text, sizeof(text),
		"%%%%MatrixMarket matrix coordinate pattern symmetric\r\n"
		"%% comment\r\n\r\n  \t\r\n"
		"40 40 42\r\n"
		"1\t1\r\n"
		"%% in between\r\n"
		"\r\n"
		"1 1\r\n");
	for (int i = 40; i >= 1; i--)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "40 %d%s", i,
			i > 1 ? "\r\n" : "");
	stir_csr *m = read_text(ctx, text);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->nnz, 1 + 40 + 39);
	ck_assert_int_eq(m->indptr[1], 2);  /* (1,1) and (1,40) */
	ck_assert_int_eq(m->indices[0], 0);
	ck_assert_int_eq(m->indices[1], 39);
	int64_t *row = m->indices + m->indptr[39];
	ck_assert_int_eq(m->indptr[40] - m->indptr[39], 40);
	for (int j = 0; j < 40; j++)
		ck_assert_int_eq(row[j], j);
	for (int64_t k = 0; k < m->nnz; k++)
		ck_assert_double_eq(m->values[k], 1.0);
	stir_csr_free(m);

	/* a value longer than any fixed buffer; the most negative integer */
	char *big = malloc(512);
	strcpy(big, "%%MatrixMarket matrix coordinate real general\n1 2 2\n"
		"1 1 0.");
	for (int i = 0; i < 300; i++)
		strcat(big, "0");
	strcat(big, "15e301\n1 2 -1\n");
	m = read_text(ctx, big);
	free(big);
	ck_assert_ptr_nonnull(m);
	ck_assert_double_eq_tol(m->values[0], 1.5, 1e-12);
	ck_assert_double_eq(m->values[1], -1.0);
	stir_csr_free(m);
	m = read_text(ctx, "%%MatrixMarket matrix coordinate integer general\n"
		"1 1 1\n1 1 -9223372036854775808\n");
	ck_assert_ptr_nonnull(m);
	ck_assert_double_eq(m->values[0], -9223372036854775808.0);
	stir_csr_free(m);

	/* an empty matrix */
	m = read_text(ctx, "%%MatrixMarket matrix coordinate real general\n0 0 0\n");
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->nrows, 0);
	ck_assert_int_eq(m->nnz, 0);
	ck_assert_int_eq(m->indptr[0], 0);
	stir_csr_free(m);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	stir_ctx_free(ctx);
}
END_TEST

#define BANNER_REAL "%%MatrixMarket matrix coordinate real general\n"
#define BANNER_INT "%%MatrixMarket matrix coordinate integer general\n"
#define BANNER_PAT "%%MatrixMarket matrix coordinate pattern general\n"
#define BANNER_SYM "%%MatrixMarket matrix coordinate real symmetric\n"

/* A malformed file and the error it must give. */
static const struct {
	const char *text;
	int line, col;
	const char *message;
} bad_texts[] = {
	{ "", 1, 0, "empty file: missing the %%MatrixMarket banner" },
	{ "3 3 1\n1 1\n", 1, 1, "missing the %%MatrixMarket banner (expected "
		"'%%MatrixMarket matrix coordinate <pattern|real|integer> "
		"<general|symmetric>')" },
	{ "%%MatrixMarket vector coordinate real general\n", 1, 16,
		"unsupported Matrix Market object 'vector' (only 'matrix')" },
	{ "%%MatrixMarket matrix array real general\n", 1, 23,
		"unsupported Matrix Market format 'array' (only 'coordinate')" },
	{ "%%MatrixMarket matrix coordinate complex general\n", 1, 34,
		"unsupported Matrix Market field 'complex' (expected pattern, "
		"real or integer)" },
	{ "%%MatrixMarket matrix coordinate real hermitian\n", 1, 39,
		"unsupported Matrix Market symmetry 'hermitian' (expected general "
		"or symmetric)" },
	{ "%%MatrixMarket matrix coordinate real skew-symmetric\n", 1, 39,
		"unsupported Matrix Market symmetry 'skew-symmetric' (expected "
		"general or symmetric)" },
	{ "%%MatrixMarket matrix coordinate real\n", 1, 38,
		"incomplete %%MatrixMarket banner: missing the symmetry" },
	{ "%%MatrixMarket matrix coordinate real general extra\n", 1, 47,
		"unexpected text 'extra' after the banner" },
	{ BANNER_REAL "%c\n", 3, 0,
		"missing the size line 'rows columns entries'" },
	{ BANNER_REAL "3 x 2\n", 2, 3, "invalid number of columns 'x' in the "
		"size line (expected an integer)" },
	{ BANNER_REAL "3 3\n", 2, 4, "incomplete size line: missing the number "
		"of entries (expected 'rows columns entries')" },
	{ BANNER_REAL "3 3 1 1\n1 1 1\n", 2, 7,
		"unexpected text '1' after the size line" },
	{ BANNER_REAL "3 -3 1\n", 2, 3, "negative number of columns -3" },
	{ BANNER_REAL "3 3 99999999999999999999\n", 2, 5,
		"number of entries '99999999999999999999' out of range" },
	{ BANNER_REAL "% x\n9223372036854775807 1 0\n", 3, 1,
		"number of rows 9223372036854775807 too large" },
	{ BANNER_SYM "3 4 1\n", 2, 1,
		"a symmetric matrix must be square (3 x 4)" },
	{ BANNER_REAL "3 3 2\n1 1 1.0\n4 1 1.0\n", 4, 1,
		"row index 4 out of range 1..3" },
	{ BANNER_REAL "3 3 1\n 2  0 1.0\n", 3, 5,
		"column index 0 out of range 1..3" },
	{ BANNER_REAL "3 3 1\n1 99999999999999999999 1.0\n", 3, 3,
		"column index 99999999999999999999 out of range 1..3" },
	{ BANNER_REAL "3 3 1\n1.0 1 1.0\n", 3, 1, "invalid row index '1.0'" },
	{ BANNER_REAL "3 3 1\n1\n", 3, 2, "missing the column index" },
	{ BANNER_REAL "3 3 1\n1 2\n", 3, 4,
		"missing the value of entry (1, 2)" },
	{ BANNER_REAL "3 3 1\n1 2 abc\n", 3, 5, "invalid real value 'abc'" },
	{ BANNER_REAL "3 3 1\n1 2 1e999\n", 3, 5,
		"real value 1e999 out of range" },
	{ BANNER_INT "3 3 1\n1 2 1.5\n", 3, 5, "invalid integer value '1.5'" },
	{ BANNER_INT "3 3 1\n1 2 -9223372036854775809\n", 3, 5,
		"integer value -9223372036854775809 out of range" },
	{ BANNER_REAL "3 3 1\n1 2 2.0 junk\n", 3, 9,
		"unexpected text 'junk' after the entry" },
	{ BANNER_PAT "3 3 1\n1 2 1\n", 3, 5,
		"unexpected text '1' after the entry" },
	{ BANNER_REAL "3 3 3\n1 1 1\n2 2 1\n", 5, 0,
		"file ends after 2 of the 3 entries the size line announces" },
	{ BANNER_REAL "3 3 3\n1 1 1\n2 2 1", 4, 0,
		"file ends after 2 of the 3 entries the size line announces" },
	{ BANNER_REAL "3 3 1\n1 1 1\n\n% c\n2 2 1\n", 6, 1,
		"more entries than the 1 the size line announces" },
	{ BANNER_SYM "3 3 2\n1 1 1\n1 2 1\n", 4, 3, "entry (1, 2) above the "
		"diagonal of a symmetric matrix (only the lower triangle is "
		"stored)" },
};

START_TEST(test_bad_text)
{
	stir_ctx *ctx = stir_ctx_alloc();
	ck_assert_ptr_null(read_text(ctx, bad_texts[_i].text));
	ck_assert_str_eq(test_only_error(ctx), bad_texts[_i].message);
	stir_loc loc = test_only_loc(ctx);
	ck_assert_str_eq(loc.file, "m.mtx");
	ck_assert_int_eq(loc.line, bad_texts[_i].line);
	ck_assert_int_eq(loc.col, bad_texts[_i].col);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_formatted)
{
	/* the diagnostic quotes the line, with a caret under the column */
	stir_ctx *ctx = stir_ctx_alloc();
	ck_assert_ptr_null(read_text(ctx, BANNER_REAL "2 2 1\n2 7 1.5\n"));
	char *s = stir_ctx_diagnostics_to_str(ctx);
	ck_assert_str_eq(s, "m.mtx:3:3: error: column index 7 out of range 1..2\n"
		" 2 7 1.5\n"
		"   ^\n");
	free(s);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_file_errors)
{
	stir_ctx *ctx = stir_ctx_alloc();
	const char *path = test_path("tests/data/io/missing.mtx");
	ck_assert_ptr_null(stir_mtx_read(ctx, path));
	ck_assert_str_eq(test_only_error(ctx),
		"cannot open file: No such file or directory");
	stir_ctx_clear_diagnostics(ctx);
	/* a corrupt .gz is reported by gunzip */
	path = test_path("tests/data/io/bad-crc.gz");
	ck_assert_ptr_null(stir_mtx_read(ctx, path));
	ck_assert_str_eq(test_only_loc(ctx).file, path);
	stir_ctx_free(ctx);
}
END_TEST

/* m: column indices strictly ascending in each row, each entry (i, j)
 * matched by an entry (j, i), and every value 1. */
static void check_graph(const stir_csr *m)
{
	for (int64_t i = 0; i < m->nrows; i++) {
		ck_assert_int_le(m->indptr[i], m->indptr[i + 1]);
		for (int64_t k = m->indptr[i]; k < m->indptr[i + 1]; k++) {
			int64_t j = m->indices[k];
			ck_assert_int_ge(j, 0);
			ck_assert_int_lt(j, m->ncols);
			if (k > m->indptr[i])
				ck_assert_int_lt(m->indices[k - 1], j);
			ck_assert_double_eq(m->values[k], 1.0);
			/* binary search for (j, i) */
			int64_t lo = m->indptr[j], hi = m->indptr[j + 1];
			while (lo < hi) {
				int64_t mid = lo + (hi - lo) / 2;
				if (m->indices[mid] < i)
					lo = mid + 1;
				else
					hi = mid;
			}
			ck_assert_msg(lo < m->indptr[j + 1] && m->indices[lo] == i,
				"(%lld, %lld) has no mirror", (long long)i,
				(long long)j);
		}
	}
}

START_TEST(test_graphs)
{
	static const struct {
		const char *file;
		int64_t n, nnz;
	} graphs[] = {
		{ "examples/data/cora.mtx.gz", 2708, 10556 },
		{ "examples/data/citeseer.mtx.gz", 3327, 9228 },
	};
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = read_fixture(ctx, graphs[_i].file);
	ck_assert_int_eq(m->nrows, graphs[_i].n);
	ck_assert_int_eq(m->ncols, graphs[_i].n);
	ck_assert_int_eq(m->nnz, graphs[_i].nnz);
	ck_assert_int_eq(m->indptr[m->nrows], graphs[_i].nnz);
	check_graph(m);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mtx");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_general_real);
	tcase_add_test(tc, test_symmetric_integer);
	tcase_add_test(tc, test_symmetric_real);
	tcase_add_loop_test(tc, test_pattern, 0, 2);
	tcase_add_test(tc, test_integer_duplicates);
	tcase_add_test(tc, test_from_mem_variants);
	tcase_add_loop_test(tc, test_bad_text, 0,
		(int)(sizeof(bad_texts) / sizeof(bad_texts[0])));
	tcase_add_test(tc, test_formatted);
	tcase_add_test(tc, test_file_errors);
	tcase_add_loop_test(tc, test_graphs, 0, 2);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
