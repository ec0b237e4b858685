/* The Matrix Market reader: "coordinate" matrices into CSR.
 *
 * Accepted: the banner
 *   %%MatrixMarket matrix coordinate <pattern|real|integer> <general|symmetric>
 * (words compared without regard to case), then '%' comment lines and
 * blank lines anywhere, the size line "rows cols entries", and exactly
 * "entries" lines "i j [value]" with 1-based indices.  A symmetric file
 * stores the lower triangle; each off-diagonal entry is mirrored.
 *
 * Entries are gathered in file order, bucketed by row with a counting
 * sort, sorted by column within each row (rows read from a sorted file
 * are already in order and cost one pass), and duplicates are summed (a
 * pattern matrix simply merges them).
 *
 * Every error stops the read and names the line and, where a token is at
 * fault, its column.  The file's text is handed to the context on the
 * first error so that the diagnostic can quote the line.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/io.h>
#include "formats/io_internal.h"
#include "ir/diag.h"

/* What the values of a file are. */
enum mtx_field {
	FIELD_PATTERN,  /* no value: every entry is 1 */
	FIELD_REAL,     /* a decimal floating-point number */
	FIELD_INTEGER,  /* a decimal integer */
};

/* One entry of a row while a row is being sorted. */
typedef struct mtx_pair {
	int64_t col;    /* 0-based column */
	double val;     /* the value (1 for a pattern matrix) */
} mtx_pair;

/* The state of one read. */
typedef struct mtx_reader {
	stir_ctx *ctx;        /* borrowed: receives the diagnostics */
	const char *name;     /* borrowed: the file name for diagnostics */
	const char *text;     /* borrowed: the plain (decompressed) bytes */
	size_t len;           /* number of bytes in text */
	size_t next;          /* offset in text of the next unread line */
	int lineno;           /* 1-based number of the current line */
	const char *line;     /* the current line, without its line end */
	size_t line_len;      /* its length */
	size_t at;            /* the next unread column of the line, 0-based */
	bool source_added;    /* whether the context holds the text */

	enum mtx_field field; /* from the banner */
	bool symmetric;       /* from the banner */
	int64_t nrows;        /* from the size line */
	int64_t ncols;
	int64_t nnz;          /* entries the size line announces */

	int64_t n;            /* entries read so far */
	int64_t cap;          /* room in rows/cols/vals */
	int64_t *rows;        /* owned: 0-based row of each entry */
	int64_t *cols;        /* owned: 0-based column of each entry */
	double *vals;         /* owned: each value; NULL for a pattern */
} mtx_reader;

/* A token of the current line. */
typedef struct mtx_token {
	const char *s;        /* borrowed: its first character */
	size_t len;           /* its length */
	int col;              /* 1-based column of its first character */
} mtx_token;

/* r: the reader; col: the 1-based column (0: the whole line); fmt: the
 * message.  Reports an error at the current line.  Returns -1. */
static int mtx_error(mtx_reader *r, int col, const char *fmt, ...)
	STIR_PRINTF(3, 4);
static int mtx_error(mtx_reader *r, int col, const char *fmt, ...)
{
	const char *file = r->name;
	if (!r->source_added) {
		const char *f = stir_ctx_add_source(r->ctx, r->name, r->text,
			r->len);
		if (f)
			file = f;
		r->source_added = true;
	}
	stir_loc loc = { file, r->lineno, col };
	va_list ap;
	va_start(ap, fmt);
	stir_ctx_vreport(r->ctx, STIR_ERROR, loc, fmt, ap);
	va_end(ap);
	return -1;
}

/* r: the reader, moved to its next line.  False at the end of the text
 * (the line number then stays on the last line). */
static bool next_line(mtx_reader *r)
{
	if (r->next >= r->len)
		return false;
	const char *start = r->text + r->next;
	const char *nl = memchr(start, '\n', r->len - r->next);
	size_t n = nl ? (size_t)(nl - start) : r->len - r->next;
	r->next += n + (nl ? 1 : 0);
	if (n > 0 && start[n - 1] == '\r')
		n--;
	r->line = start;
	r->line_len = n;
	r->at = 0;
	if (r->lineno < INT32_MAX)
		r->lineno++;
	return true;
}

/* r: the 1-based column just past the end of the current line, where a
 * missing token should have been. */
static int end_col(const mtx_reader *r)
{
	return r->line_len < INT32_MAX ? (int)r->line_len + 1 : INT32_MAX;
}

/* r: the reader, at the end of the text; the line number where more text
 * was expected: the line after the last when the text ends with a line
 * break, else the last line. */
static void move_to_eof_line(mtx_reader *r)
{
	if ((r->len == 0 || r->text[r->len - 1] == '\n') && r->lineno < INT32_MAX)
		r->lineno++;
}

/* c: whether it separates tokens. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

/* r, t: the next token of the current line into *t.  False when the line
 * has no more tokens. */
static bool next_token(mtx_reader *r, mtx_token *t)
{
	while (r->at < r->line_len && is_blank(r->line[r->at]))
		r->at++;
	if (r->at == r->line_len)
		return false;
	size_t start = r->at;
	while (r->at < r->line_len && !is_blank(r->line[r->at]))
		r->at++;
	t->s = r->line + start;
	t->len = r->at - start;
	t->col = start < INT32_MAX ? (int)start + 1 : INT32_MAX;
	return true;
}

/* r: the reader; what: the last thing the line should hold.  An error
 * when the line holds more tokens.  0 or -1. */
static int expect_line_end(mtx_reader *r, const char *what)
{
	mtx_token t;
	if (!next_token(r, &t))
		return 0;
	return mtx_error(r, t.col, "unexpected text '%.*s' after %s",
		t.len > 40 ? 40 : (int)t.len, t.s, what);
}

/* t, word: whether token t is "word", compared without regard to case
 * (ASCII only: the words of a banner are). */
static bool token_is(const mtx_token *t, const char *word)
{
	size_t n = strlen(word);
	if (t->len != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = t->s[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		char w = word[i];
		if (w >= 'A' && w <= 'Z')
			w = (char)(w - 'A' + 'a');
		if (c != w)
			return false;
	}
	return true;
}

/* How parsing a number went. */
enum num_status {
	NUM_OK,
	NUM_SYNTAX,   /* not a decimal integer */
	NUM_RANGE,    /* does not fit in 64 bits */
};

/* t: a token holding an optionally signed decimal integer, stored in
 * *v. */
static enum num_status parse_int(const mtx_token *t, int64_t *v)
{
	size_t i = 0;
	bool neg = false;
	if (i < t->len && (t->s[i] == '+' || t->s[i] == '-'))
		neg = t->s[i++] == '-';
	if (i == t->len)
		return NUM_SYNTAX;
	uint64_t x = 0;
	bool over = false;
	for (; i < t->len; i++) {
		unsigned d = (unsigned)(t->s[i] - '0');
		if (d > 9)
			return NUM_SYNTAX;
		if (x > (UINT64_MAX - d) / 10)
			over = true;
		else
			x = x * 10 + d;
	}
	if (over || x > (uint64_t)INT64_MAX + (neg ? 1 : 0))
		return NUM_RANGE;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return NUM_OK;
}

/* t: a token holding a floating-point number (C syntax, as strtod reads
 * it in the C locale), stored in *v. */
static enum num_status parse_real(const mtx_token *t, double *v)
{
	char small[128];
	char *buf = small;
	if (t->len >= sizeof(small)) {
		buf = malloc(t->len + 1);
		if (!buf)
			return NUM_SYNTAX;
	}
	memcpy(buf, t->s, t->len);
	buf[t->len] = '\0';
	char *end;
	errno = 0;
	double x = strtod(buf, &end);
	enum num_status st = NUM_OK;
	if (end != buf + t->len || t->len == 0)
		st = NUM_SYNTAX;
	else if (errno == ERANGE && isinf(x))
		st = NUM_RANGE;
	if (buf != small)
		free(buf);
	*v = x;
	return st;
}

/* r: the reader; a line that is blank or a comment is skipped.  False at
 * the end of the text; otherwise the current line holds data and *t its
 * first token. */
static bool next_data_line(mtx_reader *r, mtx_token *t)
{
	while (next_line(r)) {
		if (next_token(r, t) && t->s[0] != '%')
			return true;
	}
	return false;
}

/* r: the reader, at the start of the text; reads and checks the banner. */
static int read_banner(mtx_reader *r)
{
	mtx_token t;
	if (!next_line(r)) {
		move_to_eof_line(r);
		return mtx_error(r, 0, "empty file: missing the %%%%MatrixMarket banner");
	}
	if (!next_token(r, &t) || !token_is(&t, "%%MatrixMarket"))
		return mtx_error(r, 1, "missing the %%%%MatrixMarket banner "
			"(expected '%%%%MatrixMarket matrix coordinate "
			"<pattern|real|integer> <general|symmetric>')");

	static const char *const what[] = { "object", "format", "field",
		"symmetry" };
	mtx_token w[4];
	for (int i = 0; i < 4; i++)
		if (!next_token(r, &w[i]))
			return mtx_error(r, end_col(r),
				"incomplete %%%%MatrixMarket banner: missing the %s",
				what[i]);
	if (!token_is(&w[0], "matrix"))
		return mtx_error(r, w[0].col,
			"unsupported Matrix Market object '%.*s' (only 'matrix')",
			(int)w[0].len, w[0].s);
	if (!token_is(&w[1], "coordinate"))
		return mtx_error(r, w[1].col,
			"unsupported Matrix Market format '%.*s' (only 'coordinate')",
			(int)w[1].len, w[1].s);
	if (token_is(&w[2], "pattern"))
		r->field = FIELD_PATTERN;
	else if (token_is(&w[2], "real"))
		r->field = FIELD_REAL;
	else if (token_is(&w[2], "integer"))
		r->field = FIELD_INTEGER;
	else
		return mtx_error(r, w[2].col,
			"unsupported Matrix Market field '%.*s' "
			"(expected pattern, real or integer)",
			(int)w[2].len, w[2].s);
	if (token_is(&w[3], "general"))
		r->symmetric = false;
	else if (token_is(&w[3], "symmetric"))
		r->symmetric = true;
	else
		return mtx_error(r, w[3].col,
			"unsupported Matrix Market symmetry '%.*s' "
			"(expected general or symmetric)",
			(int)w[3].len, w[3].s);
	return expect_line_end(r, "the banner");
}

/* r, t, what: the size-line number named "what" in token t, into *v. */
static int read_size(mtx_reader *r, const mtx_token *t, const char *what,
	int64_t *v)
{
	switch (parse_int(t, v)) {
	case NUM_SYNTAX:
		return mtx_error(r, t->col,
			"invalid %s '%.*s' in the size line (expected an integer)",
			what, t->len > 40 ? 40 : (int)t->len, t->s);
	case NUM_RANGE:
		return mtx_error(r, t->col, "%s '%.*s' out of range", what,
			t->len > 40 ? 40 : (int)t->len, t->s);
	default:
		break;
	}
	if (*v < 0)
		return mtx_error(r, t->col, "negative %s %lld", what,
			(long long)*v);
	return 0;
}

/* r: the reader, after the banner; reads the size line. */
static int read_size_line(mtx_reader *r)
{
	mtx_token t[3];
	static const char *const what[] = { "number of rows",
		"number of columns", "number of entries" };
	if (!next_data_line(r, &t[0])) {
		move_to_eof_line(r);
		return mtx_error(r, 0,
			"missing the size line 'rows columns entries'");
	}
	for (int i = 0; i < 3; i++) {
		if (i > 0 && !next_token(r, &t[i]))
			return mtx_error(r, end_col(r),
				"incomplete size line: missing the %s "
				"(expected 'rows columns entries')", what[i]);
		int64_t v;
		if (read_size(r, &t[i], what[i], &v) < 0)
			return -1;
		if (i == 0)
			r->nrows = v;
		else if (i == 1)
			r->ncols = v;
		else
			r->nnz = v;
	}
	/* indptr needs nrows + 1 entries of 8 bytes */
	if (r->nrows > INT64_MAX / 16 || (uint64_t)r->nrows >= SIZE_MAX / 16)
		return mtx_error(r, t[0].col, "number of rows %lld too large",
			(long long)r->nrows);
	if (r->symmetric && r->nrows != r->ncols)
		return mtx_error(r, t[0].col,
			"a symmetric matrix must be square (%lld x %lld)",
			(long long)r->nrows, (long long)r->ncols);
	return expect_line_end(r, "the size line");
}

/* r: the reader; makes room for one more entry.  0 or -1. */
static int reserve_entry(mtx_reader *r)
{
	if (r->n < r->cap)
		return 0;
	/* the announced count is only a hint: every entry takes at least
	 * four bytes ("1 1\n"), which bounds what a lying header can make
	 * us allocate up front */
	int64_t cap = r->cap ? 2 * r->cap : r->nnz;
	int64_t most = (int64_t)((r->len - r->next) / 4 + 1);
	if (!r->cap && cap > most)
		cap = most;
	if (cap < 16)
		cap = 16;
	if ((uint64_t)cap > SIZE_MAX / sizeof(int64_t))
		goto oom;
	int64_t *rows = realloc(r->rows, (size_t)cap * sizeof(*rows));
	if (!rows)
		goto oom;
	r->rows = rows;
	int64_t *cols = realloc(r->cols, (size_t)cap * sizeof(*cols));
	if (!cols)
		goto oom;
	r->cols = cols;
	if (r->field != FIELD_PATTERN) {
		double *vals = realloc(r->vals, (size_t)cap * sizeof(*vals));
		if (!vals)
			goto oom;
		r->vals = vals;
	}
	r->cap = cap;
	return 0;
oom:
	return mtx_error(r, 0, "out of memory reading %lld entries",
		(long long)cap);
}

/* r, t: the index named "what" ("row", "column") in token t, at most
 * "limit"; stored 0-based in *v. */
static int read_index(mtx_reader *r, const mtx_token *t, const char *what,
	int64_t limit, int64_t *v)
{
	int len = t->len > 40 ? 40 : (int)t->len;
	switch (parse_int(t, v)) {
	case NUM_SYNTAX:
		return mtx_error(r, t->col, "invalid %s index '%.*s'", what,
			len, t->s);
	case NUM_RANGE:
		return mtx_error(r, t->col, "%s index %.*s out of range 1..%lld",
			what, len, t->s, (long long)limit);
	default:
		break;
	}
	if (*v < 1 || *v > limit)
		return mtx_error(r, t->col, "%s index %lld out of range 1..%lld",
			what, (long long)*v, (long long)limit);
	(*v)--;
	return 0;
}

/* r, t: the value of an entry in token t, stored into *v. */
static int read_value(mtx_reader *r, const mtx_token *t, double *v)
{
	int len = t->len > 40 ? 40 : (int)t->len;
	if (r->field == FIELD_INTEGER) {
		int64_t x;
		switch (parse_int(t, &x)) {
		case NUM_SYNTAX:
			return mtx_error(r, t->col, "invalid integer value '%.*s'",
				len, t->s);
		case NUM_RANGE:
			return mtx_error(r, t->col,
				"integer value %.*s out of range", len, t->s);
		default:
			*v = (double)x;
			return 0;
		}
	}
	switch (parse_real(t, v)) {
	case NUM_SYNTAX:
		return mtx_error(r, t->col, "invalid real value '%.*s'", len,
			t->s);
	case NUM_RANGE:
		return mtx_error(r, t->col, "real value %.*s out of range", len,
			t->s);
	default:
		return 0;
	}
}

/* r: the reader, at a data line whose first token is t; the entry is
 * appended. */
static int read_entry(mtx_reader *r, const mtx_token *t)
{
	int64_t i, j;
	mtx_token tj, tv;
	if (r->n == r->nnz)
		return mtx_error(r, t->col,
			"more entries than the %lld the size line announces",
			(long long)r->nnz);
	if (read_index(r, t, "row", r->nrows, &i) < 0)
		return -1;
	if (!next_token(r, &tj))
		return mtx_error(r, end_col(r),
			"missing the column index");
	if (read_index(r, &tj, "column", r->ncols, &j) < 0)
		return -1;
	if (r->symmetric && j > i)
		return mtx_error(r, tj.col,
			"entry (%lld, %lld) above the diagonal of a symmetric "
			"matrix (only the lower triangle is stored)",
			(long long)i + 1, (long long)j + 1);
	double v = 1.0;
	if (r->field != FIELD_PATTERN) {
		if (!next_token(r, &tv))
			return mtx_error(r, end_col(r), "missing the value of entry "
				"(%lld, %lld)", (long long)i + 1, (long long)j + 1);
		if (read_value(r, &tv, &v) < 0)
			return -1;
	}
	if (expect_line_end(r, "the entry") < 0 || reserve_entry(r) < 0)
		return -1;
	r->rows[r->n] = i;
	r->cols[r->n] = j;
	if (r->vals)
		r->vals[r->n] = v;
	r->n++;
	return 0;
}

/* a, b: two pairs compared by column (for qsort). */
static int pair_cmp(const void *a, const void *b)
{
	int64_t x = ((const mtx_pair *)a)->col, y = ((const mtx_pair *)b)->col;
	return (x > y) - (x < y);
}

/* p, n: a row's n pairs, sorted by column.  Rows from sorted files are
 * already in order; short rows are insertion-sorted (stable, so
 * duplicates are summed in file order). */
static void sort_row(mtx_pair *p, int64_t n)
{
	int64_t k = 1;
	while (k < n && p[k - 1].col <= p[k].col)
		k++;
	if (k >= n)
		return;
	if (n > 32) {
		qsort(p, (size_t)n, sizeof(*p), pair_cmp);
		return;
	}
	for (; k < n; k++) {
		mtx_pair x = p[k];
		int64_t m = k;
		while (m > 0 && p[m - 1].col > x.col) {
			p[m] = p[m - 1];
			m--;
		}
		p[m] = x;
	}
}

/* r: the reader holding every entry; the CSR matrix, or NULL. */
static stir_csr *build_csr(mtx_reader *r)
{
	stir_csr *m = calloc(1, sizeof(*m));
	if (!m)
		return stir_error_oom(r->ctx);
	m->nrows = r->nrows;
	m->ncols = r->ncols;
	m->indptr = calloc((size_t)r->nrows + 1, sizeof(int64_t));
	if (!m->indptr)
		goto oom;

	/* counting sort by row: count, then turn counts into starts */
	int64_t *ptr = m->indptr;
	int64_t total = 0;
	for (int64_t e = 0; e < r->n; e++) {
		ptr[r->rows[e] + 1]++;
		total++;
		if (r->symmetric && r->rows[e] != r->cols[e]) {
			ptr[r->cols[e] + 1]++;
			total++;
		}
	}
	for (int64_t i = 0; i < r->nrows; i++)
		ptr[i + 1] += ptr[i];
	mtx_pair *pairs = malloc((size_t)(total ? total : 1) * sizeof(*pairs));
	if (!pairs)
		goto oom;
	/* ptr[i] walks from the start of row i to the start of row i + 1;
	 * shifting it back afterwards restores the starts */
	for (int64_t e = 0; e < r->n; e++) {
		double v = r->vals ? r->vals[e] : 1.0;
		int64_t i = r->rows[e], j = r->cols[e];
		pairs[ptr[i]++] = (mtx_pair){ j, v };
		if (r->symmetric && i != j)
			pairs[ptr[j]++] = (mtx_pair){ i, v };
	}
	for (int64_t i = r->nrows; i > 0; i--)
		ptr[i] = ptr[i - 1];
	ptr[0] = 0;

	/* sort each row and merge duplicates, compacting in place: the
	 * write position never passes the read position */
	int64_t w = 0, start = 0;
	for (int64_t i = 0; i < r->nrows; i++) {
		int64_t end = ptr[i + 1];
		sort_row(pairs + start, end - start);
		int64_t row_start = w;
		for (int64_t k = start; k < end; k++) {
			if (w > row_start && pairs[w - 1].col == pairs[k].col) {
				if (r->field != FIELD_PATTERN)
					pairs[w - 1].val += pairs[k].val;
			} else {
				pairs[w++] = pairs[k];
			}
		}
		ptr[i + 1] = w;
		start = end;
	}

	m->nnz = w;
	size_t nalloc = (size_t)(w ? w : 1);
	m->indices = malloc(nalloc * sizeof(int64_t));
	m->values = malloc(nalloc * sizeof(double));
	if (!m->indices || !m->values) {
		free(pairs);
		goto oom;
	}
	for (int64_t k = 0; k < w; k++) {
		m->indices[k] = pairs[k].col;
		m->values[k] = pairs[k].val;
	}
	free(pairs);
	return m;
oom:
	stir_csr_free(m);
	stir_error(r->ctx, stir_loc_file(r->name),
		"out of memory building a %lld x %lld matrix",
		(long long)r->nrows, (long long)r->ncols);
	return NULL;
}

/* r: the reader, positioned at the start of the text; the whole file is
 * parsed and converted. */
static stir_csr *read_mtx(mtx_reader *r)
{
	if (read_banner(r) < 0 || read_size_line(r) < 0)
		return NULL;
	mtx_token t;
	while (next_data_line(r, &t))
		if (read_entry(r, &t) < 0)
			return NULL;
	if (r->n < r->nnz) {
		move_to_eof_line(r);
		mtx_error(r, 0, "file ends after %lld of the %lld entries the "
			"size line announces", (long long)r->n,
			(long long)r->nnz);
		return NULL;
	}
	return build_csr(r);
}

/* ctx, name: diagnostics and the file name they use; text, len: the
 * plain text of a Matrix Market file. */
static stir_csr *read_mtx_text(stir_ctx *ctx, const char *name,
	const char *text, size_t len)
{
	mtx_reader r = {
		.ctx = ctx,
		.name = name,
		.text = text,
		.len = len,
	};
	stir_csr *m = read_mtx(&r);
	free(r.rows);
	free(r.cols);
	free(r.vals);
	return m;
}

/* ctx, name: diagnostics and the file name they use; data, len: the
 * file's bytes, plain or gzip-compressed. */
stir_csr *stir_mtx_read_from_mem(stir_ctx *ctx, const char *name,
	const void *data, size_t len)
{
	const uint8_t *text;
	size_t text_len;
	void *owned;
	if (stir_io_plain_bytes(ctx, name, data, len, &text, &text_len,
	    &owned) < 0)
		return NULL;
	stir_csr *m = read_mtx_text(ctx, name, (const char *)text, text_len);
	free(owned);
	return m;
}

/* ctx: receives diagnostics; path: the file to read. */
stir_csr *stir_mtx_read(stir_ctx *ctx, const char *path)
{
	char *data;
	size_t len;
	if (stir_read_file(ctx, path, &data, &len) < 0)
		return NULL;
	/* already decompressed: a file that holds gzip data twice over is
	 * not a Matrix Market file */
	stir_csr *m = read_mtx_text(ctx, path, data, len);
	free(data);
	return m;
}

/* csr: the matrix to free (NULL is fine). */
void stir_csr_free(stir_csr *csr)
{
	if (!csr)
		return;
	free(csr->indptr);
	free(csr->indices);
	free(csr->values);
	free(csr);
}
