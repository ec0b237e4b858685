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
 * The file is read as a stream, a line at a time (gzip decompressed on
 * the fly), so memory is bounded by the entries read, never by the size
 * of the file: a comment line of any length is skipped as it comes, a
 * data line longer than MTX_MAX_LINE is an error, and no allocation is
 * made in proportion to the sizes the header declares before entries
 * arrive to fill it.  Sizes may be bounded further by the caller
 * (stir_mtx_limits): a matrix that cannot fit the kernel it is for is
 * refused at the size line.
 *
 * Every error stops the read and names the line and, where a token is at
 * fault, its column.  The line at fault is handed to the context with the
 * first error so that the diagnostic can quote it.
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

/* The longest data line (comment lines may be longer: they are skipped
 * as they are read). */
#define MTX_MAX_LINE 65536

/* The last line number at which an error quotes its line (the quote is
 * registered as that many line breaks and the line). */
#define MTX_MAX_QUOTED_LINE (1 << 20)

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
	stir_io_stream *in;   /* borrowed: the plain (decompressed) bytes */
	const stir_mtx_limits *limits; /* borrowed: bounds on the sizes, or
	                         * NULL */
	const uint8_t *chunk; /* borrowed from "in": bytes not yet split
	                         * into lines */
	size_t chunk_len;     /* bytes at chunk */
	size_t chunk_pos;     /* bytes of chunk already used */
	bool eof;             /* whether "in" has ended */
	bool failed;          /* whether "in" failed (and said why) */
	bool last_nl;         /* whether the text so far ends with '\n' (or
	                         * is empty) */
	int lineno;           /* 1-based number of the current line */
	char *buf;            /* owned: MTX_MAX_LINE bytes, the current line */
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
	if (!r->source_added && r->lineno <= MTX_MAX_QUOTED_LINE &&
	    r->line) {
		/* the quote finds line N after N - 1 line breaks */
		size_t before = r->lineno > 1 ? (size_t)r->lineno - 1 : 0;
		/* a long line is quoted up to a little past the column */
		size_t n = r->line_len;
		if (n > (size_t)col + 80)
			n = (size_t)col + 80;
		char *q = malloc(before + n + 1);
		if (q) {
			memset(q, '\n', before);
			memcpy(q + before, r->line, n);
			const char *f = stir_ctx_add_source(r->ctx, r->name, q,
				before + n);
			if (f)
				file = f;
			free(q);
		}
		r->source_added = true;
	}
	stir_loc loc = { file, r->lineno, col };
	va_list ap;
	va_start(ap, fmt);
	stir_ctx_vreport(r->ctx, STIR_ERROR, loc, fmt, ap);
	va_end(ap);
	return -1;
}

/* c: whether it separates tokens. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

/* r, col, c: report control byte c at column col of the current line. */
static int control_error(mtx_reader *r, size_t col, unsigned char c)
{
	char buf[8];
	return mtx_error(r, col < INT32_MAX ? (int)col : INT32_MAX,
		"control character %s in a Matrix Market file",
		stir_io_control_name(c, buf));
}

/* c: whether it is a control byte that has no place in a Matrix Market
 * line (tabs and the blanks is_blank() takes do; a carriage return only
 * ends a line). */
static bool is_control(unsigned char c)
{
	return (c < 0x20 && c != '\t' && c != '\v' && c != '\f') || c == 0x7f;
}

/* r, n: whether the line being read (the first n bytes of r->buf) is a
 * comment, which is skipped whatever its length; the banner (the first
 * line, r->lineno still 0) and data lines are short. */
static bool is_comment(const mtx_reader *r, size_t n)
{
	size_t i = 0;
	while (i < n && is_blank(r->buf[i]))
		i++;
	return r->lineno > 0 && i < n && r->buf[i] == '%';
}

/* r: the reader, moved to its next line, assembled from the stream's
 * chunks into r->buf.  1, 0 at the end of the text (the line number then
 * stays on the last line), -1 on an error: a read error, a control byte,
 * or a data line longer than MTX_MAX_LINE. */
static int next_line(mtx_reader *r)
{
	size_t n = 0;        /* bytes of the line kept in buf */
	size_t total = 0;    /* bytes of the line seen */
	size_t bad = 0;      /* 1-based column of its first control byte */
	size_t cr = 0;       /* column of a carriage return that ended the
	                      * last chunk: the line end if '\n' follows */
	unsigned char bad_c = 0;
	bool any = false;
	while (!r->eof) {
		if (r->chunk_pos == r->chunk_len) {
			int k = stir_io_next(r->in, &r->chunk, &r->chunk_len);
			r->chunk_pos = 0;
			if (k < 0) {
				r->failed = true;
				return -1;
			}
			if (k == 0) {
				r->eof = true;
				r->chunk_len = 0;
				break;
			}
		}
		const uint8_t *p = r->chunk + r->chunk_pos;
		size_t avail = r->chunk_len - r->chunk_pos;
		const uint8_t *nl = memchr(p, '\n', avail);
		size_t take = nl ? (size_t)(nl - p) : avail;
		if (cr && take > 0 && !bad) {
			bad = cr;
			bad_c = '\r';
		}
		cr = 0;
		/* the part of an over-long comment that is dropped is not
		 * looked at */
		size_t keep = take < MTX_MAX_LINE - n ? take : MTX_MAX_LINE - n;
		for (size_t i = 0; i < keep && !bad; i++) {
			if (p[i] == '\r' && i + 1 == take) {
				if (!nl)
					cr = total + i + 1;
			} else if (is_control(p[i])) {
				bad = total + i + 1;
				bad_c = p[i];
			}
		}
		memcpy(r->buf + n, p, keep);
		n += keep;
		total += take;
		r->chunk_pos += take + (nl ? 1 : 0);
		any = true;
		r->last_nl = nl != NULL;
		/* stop at a fault without reading the rest of the line: it
		 * may never end (/dev/zero) */
		if (nl || bad || (total > MTX_MAX_LINE && !is_comment(r, n)))
			break;
	}
	if (!any)
		return 0;
	if (n > 0 && r->buf[n - 1] == '\r' && total == n)
		n--;
	bool too_long = total > MTX_MAX_LINE && !is_comment(r, n);
	r->line = r->buf;
	r->line_len = n;
	r->at = 0;
	if (r->lineno < INT32_MAX)
		r->lineno++;
	if (bad)
		return control_error(r, bad, bad_c);
	if (too_long)
		return mtx_error(r, MTX_MAX_LINE + 1,
			"line longer than %d bytes", MTX_MAX_LINE);
	return 1;
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
	if (r->last_nl && r->lineno < INT32_MAX) {
		r->lineno++;
		r->line = NULL;  /* nothing to quote */
	}
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

/* r: the reader; a line that is blank or a comment is skipped.  0 at
 * the end of the text, -1 on an error; otherwise 1, the current line
 * holds data and *t its first token. */
static int next_data_line(mtx_reader *r, mtx_token *t)
{
	int k;
	while ((k = next_line(r)) > 0) {
		if (next_token(r, t) && t->s[0] != '%')
			return 1;
	}
	return k;
}

/* r: the reader, at the start of the text; reads and checks the banner. */
static int read_banner(mtx_reader *r)
{
	mtx_token t;
	int k = next_line(r);
	if (k < 0)
		return -1;
	if (k == 0) {
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

/* r, t, what, v, i: size-line number i (0 rows, 1 columns, 2 entries),
 * v, in token t, checked against the caller's limits. */
static int check_limit(mtx_reader *r, const mtx_token *t, const char *what,
	int64_t v, int i)
{
	const stir_mtx_limits *l = r->limits;
	if (!l)
		return 0;
	int64_t most = i == 0 ? l->max_rows : i == 1 ? l->max_cols :
		l->max_entries;
	if (most <= 0 || v <= most)
		return 0;
	return mtx_error(r, t->col, "%s %lld too large%s%s (at most %lld)",
		what, (long long)v, l->why ? " for " : "", l->why ? l->why : "",
		(long long)most);
}

/* r: the reader, after the banner; reads the size line. */
static int read_size_line(mtx_reader *r)
{
	mtx_token t[3];
	static const char *const what[] = { "number of rows",
		"number of columns", "number of entries" };
	int k = next_data_line(r, &t[0]);
	if (k < 0)
		return -1;
	if (k == 0) {
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
		if (read_size(r, &t[i], what[i], &v) < 0 ||
		    check_limit(r, &t[i], what[i], v, i) < 0)
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
	/* the announced count is only a bound: room grows with the
	 * entries that come, first to what the rest of the file can hold
	 * (every entry takes at least four bytes, "1 1\n") or 64 Ki entries
	 * when that is not known, then doubling, never past the count */
	int64_t cap = r->cap ? (r->cap > r->nnz / 2 ? r->nnz : 2 * r->cap) :
		r->nnz;
	if (!r->cap) {
		uint64_t left = stir_io_max_left(r->in);
		int64_t most = left == UINT64_MAX ? 65536 :
			(int64_t)(left / 4 + 1);
		if (cap > most)
			cap = most;
	}
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
	int k;
	while ((k = next_data_line(r, &t)) > 0)
		if (read_entry(r, &t) < 0)
			return NULL;
	if (k < 0)
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

/* in: the opened stream (closed here; NULL: it could not be opened, with
 * a diagnostic); limits: bounds on the sizes or NULL.  The matrix, or
 * NULL. */
static stir_csr *read_mtx_stream(stir_io_stream *in,
	const stir_mtx_limits *limits, stir_ctx *ctx)
{
	if (!in)
		return NULL;
	mtx_reader r = {
		.ctx = ctx,
		.name = stir_io_name(in),
		.in = in,
		.limits = limits,
		.last_nl = true,
		.buf = malloc(MTX_MAX_LINE),
	};
	stir_csr *m = NULL;
	if (!r.buf)
		stir_error_oom(ctx);
	else
		m = read_mtx(&r);
	free(r.buf);
	free(r.rows);
	free(r.cols);
	free(r.vals);
	stir_io_close(in);
	return m;
}

/* ctx, name, data, len, limits: see io.h. */
stir_csr *stir_mtx_read_from_mem_limited(stir_ctx *ctx, const char *name,
	const void *data, size_t len, const stir_mtx_limits *limits)
{
	return read_mtx_stream(stir_io_open_mem(ctx, name, data, len), limits,
		ctx);
}

/* ctx, name: diagnostics and the file name they use; data, len: the
 * file's bytes, plain or gzip-compressed. */
stir_csr *stir_mtx_read_from_mem(stir_ctx *ctx, const char *name,
	const void *data, size_t len)
{
	return stir_mtx_read_from_mem_limited(ctx, name, data, len, NULL);
}

/* ctx, path, limits: see io.h. */
stir_csr *stir_mtx_read_from_file_limited(stir_ctx *ctx, const char *path,
	const stir_mtx_limits *limits)
{
	return read_mtx_stream(stir_io_open(ctx, path), limits, ctx);
}

/* ctx: receives diagnostics; path: the file to read. */
stir_csr *stir_mtx_read_from_file(stir_ctx *ctx, const char *path)
{
	return stir_mtx_read_from_file_limited(ctx, path, NULL);
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
