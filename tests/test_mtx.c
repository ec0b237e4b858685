/* Tests of the Matrix Market reader (formats/mtx.c): small files of every
 * supported kind with their CSR written out by hand, one malformed file
 * per error with its exact message, line and column, and the two graphs
 * shipped with the examples. */
#include <sys/resource.h>
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

/* ctx, rel: read fixture "rel" through stir_mtx_read_from_file. */
static stir_csr *read_fixture(stir_ctx *ctx, const char *rel)
{
	stir_csr *m = stir_mtx_read_from_file(ctx, test_path(rel));
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

/* A malformed file holding control bytes (given with its length), and the
 * error it must give. */
static const struct {
	const char *text;
	size_t len;
	int line, col;
	const char *message;
} control_texts[] = {
	/* the NUL used to end the value: "invalid real value '1'" */
	{ BANNER_REAL "3 3 1\n1 1 1\0005\n", sizeof(BANNER_REAL "3 3 1\n1 1 1") + 2,
		3, 6, "control character NUL in a Matrix Market file" },
	{ BANNER_REAL "3 3\001 1\n", sizeof(BANNER_REAL "3 3\001 1\n") - 1,
		2, 4, "control character 0x01 in a Matrix Market file" },
	{ "%%MatrixMarket matrix\033 coordinate real general\n", 46, 1, 22,
		"control character 0x1b in a Matrix Market file" },
	/* a carriage return ends a line only before its line feed */
	{ BANNER_REAL "3 3 1\n1 1\r1\n", sizeof(BANNER_REAL "3 3 1\n1 1\r1\n") - 1,
		3, 4, "control character 0x0d in a Matrix Market file" },
	{ BANNER_REAL "% a comment\177\n", sizeof(BANNER_REAL "% a comment\177\n") - 1,
		2, 12, "control character 0x7f in a Matrix Market file" },
	/* the whole of /dev/zero's first line is not read */
	{ "\0\0\0\0", 4, 1, 1, "control character NUL in a Matrix Market file" },
};

START_TEST(test_control_bytes)
{
	stir_ctx *ctx = stir_ctx_alloc();
	uint8_t *c = test_copy_exact((const uint8_t *)control_texts[_i].text,
		control_texts[_i].len);
	ck_assert_ptr_null(stir_mtx_read_from_mem(ctx, "m.mtx", c,
		control_texts[_i].len));
	ck_assert_str_eq(test_only_error(ctx), control_texts[_i].message);
	stir_loc loc = test_only_loc(ctx);
	ck_assert_int_eq(loc.line, control_texts[_i].line);
	ck_assert_int_eq(loc.col, control_texts[_i].col);
	free(c);
	stir_ctx_free(ctx);
}
END_TEST

/* text: a file; CRLF line ends are accepted, also for the last line. */
START_TEST(test_crlf)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m = read_text(ctx, "%%MatrixMarket matrix coordinate real "
		"general\r\n2 2 1\r\n2 1 4.5\r");
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->nnz, 1);
	ck_assert_double_eq(m->values[0], 4.5);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* n: a line of n 'x' bytes after the prefix "pre", then "post"; the text
 * (malloc'ed) and its length. */
static char *long_line_text(const char *pre, size_t n, const char *post,
	size_t *len)
{
	size_t a = strlen(pre), b = strlen(post);
	char *t = malloc(a + n + b);
	ck_assert_ptr_nonnull(t);
	memcpy(t, pre, a);
	memset(t + a, 'x', n);
	memcpy(t + a + n, post, b);
	*len = a + n + b;
	return t;
}

START_TEST(test_long_lines)
{
	/* a comment line of any length is skipped; a data line longer than
	 * 64 KiB is an error at the column past the limit */
	stir_ctx *ctx = stir_ctx_alloc();
	size_t len;
	char *t = long_line_text(BANNER_REAL "%", 1 << 20, "\n2 2 1\n1 2 3\n",
		&len);
	stir_csr *m = stir_mtx_read_from_mem(ctx, "m.mtx", t, len);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->nnz, 1);
	stir_csr_free(m);
	free(t);
	t = long_line_text(BANNER_REAL "2 2 1\n1 2 3", 70000, "\n", &len);
	ck_assert_ptr_null(stir_mtx_read_from_mem(ctx, "m.mtx", t, len));
	ck_assert_str_eq(test_only_error(ctx), "line longer than 65536 bytes");
	ck_assert_int_eq(test_only_loc(ctx).line, 3);
	ck_assert_int_eq(test_only_loc(ctx).col, 65537);
	free(t);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_limits)
{
	/* a bound is checked at the size line, before anything is
	 * allocated: 2^31 rows in a 70-byte file */
	stir_ctx *ctx = stir_ctx_alloc();
	const char *big = BANNER_REAL "2147483648 4 1\n1 1 1.0\n";
	stir_mtx_limits lim = { INT32_MAX, INT32_MAX, INT32_MAX,
		"the i32 sizes of tensor 'A'" };
	ck_assert_ptr_null(stir_mtx_read_from_mem_limited(ctx, "m.mtx", big,
		strlen(big), &lim));
	ck_assert_str_eq(test_only_error(ctx), "number of rows 2147483648 too "
		"large for the i32 sizes of tensor 'A' (at most 2147483647)");
	ck_assert_int_eq(test_only_loc(ctx).line, 2);
	ck_assert_int_eq(test_only_loc(ctx).col, 1);
	stir_ctx_clear_diagnostics(ctx);

	const char *cols = BANNER_REAL "4 5 1\n1 1 1.0\n";
	lim = (stir_mtx_limits){ 0, 4, 0, NULL };
	ck_assert_ptr_null(stir_mtx_read_from_mem_limited(ctx, "m.mtx", cols,
		strlen(cols), &lim));
	ck_assert_str_eq(test_only_error(ctx),
		"number of columns 5 too large (at most 4)");
	ck_assert_int_eq(test_only_loc(ctx).col, 3);
	stir_ctx_clear_diagnostics(ctx);

	const char *entries = BANNER_REAL "4 4 1000000000000\n1 1 1.0\n";
	lim = (stir_mtx_limits){ 0, 0, INT32_MAX, "tensor 'A'" };
	ck_assert_ptr_null(stir_mtx_read_from_mem_limited(ctx, "m.mtx",
		entries, strlen(entries), &lim));
	ck_assert_str_eq(test_only_error(ctx), "number of entries "
		"1000000000000 too large for tensor 'A' (at most 2147483647)");
	stir_ctx_clear_diagnostics(ctx);

	/* without a bound, 10^12 announced entries cost only the entries
	 * there are, and the file ends early */
	ck_assert_ptr_null(stir_mtx_read_from_mem(ctx, "m.mtx", entries,
		strlen(entries)));
	ck_assert_str_eq(test_only_error(ctx), "file ends after 1 of the "
		"1000000000000 entries the size line announces");
	stir_ctx_clear_diagnostics(ctx);

	/* within the bounds: read */
	lim = (stir_mtx_limits){ 4, 4, 1, NULL };
	stir_csr *m = stir_mtx_read_from_mem_limited(ctx, "m.mtx", cols + 0,
		0, NULL);
	ck_assert_ptr_null(m);  /* empty input */
	stir_ctx_clear_diagnostics(ctx);
	const char *ok = BANNER_REAL "4 4 1\n1 1 1.0\n";
	m = stir_mtx_read_from_mem_limited(ctx, "m.mtx", ok, strlen(ok), &lim);
	ck_assert_ptr_nonnull(m);
	stir_csr_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* A deflate bit writer (least significant bit first), for building a
 * gzip stream by hand. */
typedef struct bit_writer {
	uint8_t *buf;     /* owned: the bytes */
	size_t n, cap;    /* bytes written, room */
	uint64_t acc;     /* pending bits */
	int cnt;          /* their number */
	uint32_t crc;     /* CRC-32 of the plain bytes, pre-inverted */
	uint32_t table[256];
	uint64_t plain;   /* plain bytes encoded */
} bit_writer;

/* w, v, n: append the n low bits of v. */
static void put_bits(bit_writer *w, uint32_t v, int n)
{
	w->acc |= (uint64_t)v << w->cnt;
	w->cnt += n;
	while (w->cnt >= 8) {
		if (w->n == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 4096;
			w->buf = realloc(w->buf, w->cap);
			ck_assert_ptr_nonnull(w->buf);
		}
		w->buf[w->n++] = (uint8_t)w->acc;
		w->acc >>= 8;
		w->cnt -= 8;
	}
}

/* w, code, len: append a Huffman code (sent most significant bit
 * first). */
static void put_code(bit_writer *w, uint32_t code, int len)
{
	uint32_t r = 0;
	for (int i = 0; i < len; i++)
		r |= ((code >> i) & 1) << (len - 1 - i);
	put_bits(w, r, len);
}

/* w, c, times: count plain byte c "times" times in the CRC and size. */
static void count_plain(bit_writer *w, uint8_t c, uint64_t times)
{
	for (uint64_t i = 0; i < times; i++)
		w->crc = w->table[(w->crc ^ c) & 0xff] ^ (w->crc >> 8);
	w->plain += times;
}

/* w, s: literals of the fixed code (RFC 1951 3.2.6). */
static void put_literals(bit_writer *w, const char *s)
{
	for (; *s; s++) {
		uint8_t c = (uint8_t)*s;
		if (c < 144)
			put_code(w, 0x30 + c, 8);
		else
			put_code(w, 0x190 + c - 144, 9);
		count_plain(w, c, 1);
	}
}

/* comment_len, *len: a gzip Matrix Market file (malloc'ed) whose second
 * line is a comment of comment_len 'x' bytes (rounded up to 1 + a
 * multiple of 258): about 1/160 of that compressed, one fixed-Huffman
 * block of 258-byte matches at distance 1. */
static uint8_t *gzip_bomb(uint64_t comment_len, size_t *len)
{
	bit_writer w = { 0 };
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		w.table[i] = c;
	}
	w.crc = 0xffffffffu;
	static const uint8_t header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	for (int i = 0; i < 10; i++)
		put_bits(&w, header[i], 8);
	put_bits(&w, 1, 1);  /* the last block */
	put_bits(&w, 1, 2);  /* fixed Huffman */
	put_literals(&w, BANNER_REAL "%x");
	for (uint64_t done = 1; done < comment_len; done += 258) {
		put_code(&w, 0xc0 + 285 - 280, 8);  /* length 258 */
		put_code(&w, 0, 5);                 /* distance 1 */
	}
	count_plain(&w, 'x', (comment_len - 1 + 257) / 258 * 258);
	put_literals(&w, "\n2 2 1\n2 1 2.5\n");
	put_code(&w, 0, 7);  /* end of block */
	put_bits(&w, 0, (8 - w.cnt) % 8);  /* to a byte boundary */
	uint32_t crc = w.crc ^ 0xffffffffu;
	for (int i = 0; i < 4; i++)
		put_bits(&w, (crc >> (8 * i)) & 0xff, 8);
	for (int i = 0; i < 4; i++)
		put_bits(&w, (uint32_t)(w.plain >> (8 * i)) & 0xff, 8);
	*len = w.n;
	return w.buf;
}

/* The peak resident memory of this process, in KiB. */
static long peak_rss_kib(void)
{
	struct rusage ru;
	ck_assert_int_eq(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_maxrss;
}

START_TEST(test_gzip_bomb)
{
	/* a 1 MB .mtx.gz whose comment inflates to 160 MB is read in memory
	 * that does not grow with the comment (the whole inflated text once
	 * took 160 MB) */
	size_t len;
	uint8_t *gz = gzip_bomb((uint64_t)160 << 20, &len);
	ck_assert_uint_lt(len, 2 << 20);
	stir_ctx *ctx = stir_ctx_alloc();
	long before = peak_rss_kib();
	stir_csr *m = stir_mtx_read_from_mem(ctx, "bomb.mtx.gz", gz, len);
	long grew = peak_rss_kib() - before;
	ck_assert_msg(m != NULL, "%s", stir_ctx_n_diagnostics(ctx) ?
		stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 0)) : "?");
	ck_assert_int_eq(m->nnz, 1);
	ck_assert_int_eq(m->indices[0], 0);
	ck_assert_double_eq(m->values[0], 2.5);
	ck_assert_msg(grew < 16 * 1024, "peak memory grew by %ld KiB", grew);
	stir_csr_free(m);
	free(gz);
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
	ck_assert_ptr_null(stir_mtx_read_from_file(ctx, path));
	ck_assert_str_eq(test_only_error(ctx),
		"cannot open file: No such file or directory");
	stir_ctx_clear_diagnostics(ctx);
	/* a corrupt .gz is reported by gunzip */
	path = test_path("tests/data/io/bad-crc.gz");
	ck_assert_ptr_null(stir_mtx_read_from_file(ctx, path));
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
	tcase_add_loop_test(tc, test_control_bytes, 0,
		(int)(sizeof(control_texts) / sizeof(control_texts[0])));
	tcase_add_test(tc, test_crlf);
	tcase_add_test(tc, test_long_lines);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_gzip_bomb);
	tcase_add_test(tc, test_formatted);
	tcase_add_test(tc, test_file_errors);
	tcase_add_loop_test(tc, test_graphs, 0, 2);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
