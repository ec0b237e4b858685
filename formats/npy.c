/* NumPy .npy files (format versions 1.0, 2.0 and 3.0).
 *
 * A file is the magic "\x93NUMPY", a version (major, minor), the header
 * length (2 bytes little-endian in version 1, 4 bytes in versions 2 and
 * 3), the header, and the raw array data.  The header is the repr of a
 * Python dict with exactly the keys 'descr', 'fortran_order' and 'shape',
 * padded with spaces and ended by '\n'.  It is read with a small tokenizer
 * and a recursive-descent parser that accepts the keys in any order, any
 * whitespace and trailing commas, as Python's literal syntax does, and
 * nothing else.
 *
 * The file is read as a stream: the fixed part, then the header (at most
 * NPY_MAX_HEADER bytes), then exactly the data the header declares, never
 * more, so memory is bounded by the array and an endless input ends at
 * the first byte that is wrong.  Where the size of the file is known, a
 * shape it cannot hold is refused before anything is allocated for it.
 *
 * Errors name the byte offset (from the start of the file, after any gzip
 * decompression) where the file goes wrong.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stir/io.h>
#include "formats/io_internal.h"
#include "ir/diag.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
/* The longest header read (NumPy writes some hundred bytes). */
#define NPY_MAX_HEADER ((size_t)1 << 20)
/* Data of unknown extent (gzip, a pipe) is read into a growing buffer
 * once the array is larger than this; smaller arrays are allocated whole. */
#define NPY_DIRECT_ALLOC ((size_t)16 << 20)
/* Extra bytes after the data counted before giving up counting. */
#define NPY_MAX_EXTRA_COUNT ((uint64_t)1 << 20)

/* The kinds of header tokens. */
enum tok_kind {
	TOK_END,     /* end of the header */
	TOK_PUNCT,   /* one of { } ( ) [ ] : , */
	TOK_STRING,  /* a quoted string */
	TOK_INT,     /* an optionally signed decimal integer */
	TOK_NAME,    /* an identifier: True, False, None... */
};

/* One token of the header. */
typedef struct npy_token {
	enum tok_kind kind;  /* what it is */
	size_t off;          /* file offset of its first byte */
	const char *s;       /* borrowed: its text (a string's, without the
	                      * quotes) */
	size_t len;          /* length of that text */
	char punct;          /* the character, for TOK_PUNCT */
	int64_t value;       /* the value, for TOK_INT */
	bool overflow;       /* TOK_INT only: the value does not fit */
} npy_token;

/* The state of reading one header. */
typedef struct npy_parser {
	stir_ctx *ctx;       /* borrowed: receives the diagnostics */
	const char *name;    /* borrowed: the file name */
	const char *hdr;     /* borrowed: the header text */
	size_t hdr_off;      /* file offset of hdr[0] */
	size_t hdr_len;      /* its length */
	size_t at;           /* next unread position in hdr */
	npy_token tok;       /* the current token */
} npy_parser;

/* What the header says. */
typedef struct npy_header {
	stir_dtype dtype;              /* from 'descr' */
	int ndim;                      /* from 'shape' */
	int64_t shape[STIR_MAX_DIMS];  /* from 'shape' */
} npy_header;

/* ctx, name, off, fmt: report an error in file "name" at byte offset
 * "off".  Returns -1. */
static int npy_fail(stir_ctx *ctx, const char *name, size_t off,
	const char *fmt, ...) STIR_PRINTF(4, 5);
static int npy_fail(stir_ctx *ctx, const char *name, size_t off,
	const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	stir_error(ctx, stir_loc_file(name), "%s at byte offset %zu", what, off);
	return -1;
}

/* p, fmt: an error at the current token. */
#define tok_fail(p, ...) npy_fail((p)->ctx, (p)->name, (p)->tok.off, __VA_ARGS__)

/* p: the parser, moved to its next token. */
static int next_tok(npy_parser *p)
{
	const char *h = p->hdr;
	size_t n = p->hdr_len;
	while (p->at < n && (h[p->at] == ' ' || h[p->at] == '\t' ||
	       h[p->at] == '\n' || h[p->at] == '\r'))
		p->at++;
	npy_token *t = &p->tok;
	memset(t, 0, sizeof(*t));
	t->off = p->hdr_off + p->at;
	if (p->at == n) {
		t->kind = TOK_END;
		return 0;
	}
	char c = h[p->at];
	t->s = h + p->at;
	if (strchr("{}()[]:,", c) && c) {
		t->kind = TOK_PUNCT;
		t->punct = c;
		t->len = 1;
		p->at++;
		return 0;
	}
	if (c == '\'' || c == '"') {
		size_t start = ++p->at;
		while (p->at < n && h[p->at] != c) {
			unsigned char b = (unsigned char)h[p->at];
			if ((b < 0x20 && b != '\t' && b != '\n') || b == 0x7f) {
				char name[8];
				return npy_fail(p->ctx, p->name, p->hdr_off + p->at,
					"control character %s in .npy header",
					stir_io_control_name(b, name));
			}
			if (h[p->at] == '\\' || h[p->at] == '\n')
				return npy_fail(p->ctx, p->name, p->hdr_off + p->at,
					"unsupported character in a .npy header string");
			p->at++;
		}
		if (p->at == n)
			return tok_fail(p, "unterminated string in .npy header");
		t->kind = TOK_STRING;
		t->s = h + start;
		t->len = p->at - start;
		p->at++;
		return 0;
	}
	if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
		bool neg = c == '-';
		size_t i = p->at + (c == '-' || c == '+');
		if (i == n || h[i] < '0' || h[i] > '9')
			return tok_fail(p, "invalid number in .npy header");
		uint64_t v = 0;
		for (; i < n && h[i] >= '0' && h[i] <= '9'; i++) {
			unsigned d = (unsigned)(h[i] - '0');
			if (v > (UINT64_MAX - d) / 10)
				t->overflow = true;
			else
				v = v * 10 + d;
		}
		if (i < n && (h[i] == 'L' || h[i] == 'l'))
			i++;  /* Python 2 long, as old NumPy wrote them */
		if (v > (uint64_t)INT64_MAX)
			t->overflow = true;
		t->kind = TOK_INT;
		t->value = neg ? -(int64_t)(v & INT64_MAX) : (int64_t)(v & INT64_MAX);
		t->len = i - p->at;
		p->at = i;
		if (i < n && ((h[i] >= 'a' && h[i] <= 'z') ||
		    (h[i] >= 'A' && h[i] <= 'Z') || h[i] == '_' || h[i] == '.'))
			return npy_fail(p->ctx, p->name, p->hdr_off + i,
				"invalid number in .npy header");
		return 0;
	}
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
		size_t i = p->at;
		while (i < n && ((h[i] >= 'a' && h[i] <= 'z') ||
		       (h[i] >= 'A' && h[i] <= 'Z') ||
		       (h[i] >= '0' && h[i] <= '9') || h[i] == '_'))
			i++;
		t->kind = TOK_NAME;
		t->len = i - p->at;
		p->at = i;
		return 0;
	}
	if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
		return tok_fail(p, "unexpected character '%c' in .npy header", c);
	if ((unsigned char)c < 0x20 || c == 0x7f) {
		char name[8];
		return tok_fail(p, "control character %s in .npy header",
			stir_io_control_name((unsigned char)c, name));
	}
	return tok_fail(p, "unexpected byte 0x%02x in .npy header",
		(unsigned char)c);
}

/* p, c: whether the current token is punctuation c. */
static bool is_punct(const npy_parser *p, char c)
{
	return p->tok.kind == TOK_PUNCT && p->tok.punct == c;
}

/* p, c, what: the current token must be punctuation c, which is
 * consumed; "what" says what was expected. */
static int expect_punct(npy_parser *p, char c, const char *what)
{
	if (!is_punct(p, c))
		return tok_fail(p, "expected %s in .npy header", what);
	return next_tok(p);
}

/* t, s: whether token t's text is s. */
static bool tok_is(const npy_token *t, const char *s)
{
	return t->len == strlen(s) && !memcmp(t->s, s, t->len);
}

/* p, h: the value of 'descr' (the current token) into h->dtype. */
static int parse_descr(npy_parser *p, npy_header *h)
{
	static const struct {
		const char *descr;
		stir_dtype dtype;
	} types[] = {
		{ "|i1", STIR_I8 }, { "<i1", STIR_I8 }, { "i1", STIR_I8 },
		{ "<i4", STIR_I32 }, { "<i8", STIR_I64 }, { "<f2", STIR_F16 },
		{ "<f4", STIR_F32 }, { "<f8", STIR_F64 },
	};
	npy_token *t = &p->tok;
	if (is_punct(p, '['))
		return tok_fail(p, "unsupported .npy descr: structured arrays "
			"are not supported");
	if (t->kind != TOK_STRING)
		return tok_fail(p, "expected a string for 'descr' in .npy header");
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (tok_is(t, types[i].descr)) {
			h->dtype = types[i].dtype;
			return next_tok(p);
		}
	}
	int len = t->len > 40 ? 40 : (int)t->len;
	if (t->len > 1 && t->s[0] == '>')
		return tok_fail(p, "unsupported .npy descr '%.*s': big-endian "
			"data is not supported", len, t->s);
	return tok_fail(p, "unsupported .npy descr '%.*s' (supported: '|i1', "
		"'<i4', '<i8', '<f2', '<f4', '<f8')", len, t->s);
}

/* p: the value of 'fortran_order' (the current token), which must be
 * False. */
static int parse_fortran_order(npy_parser *p)
{
	if (p->tok.kind == TOK_NAME && tok_is(&p->tok, "False"))
		return next_tok(p);
	if (p->tok.kind == TOK_NAME && tok_is(&p->tok, "True"))
		return tok_fail(p, "unsupported .npy file: fortran_order is "
			"True (only C order is supported)");
	return tok_fail(p, "expected True or False for 'fortran_order' in "
		".npy header");
}

/* p, h: the value of 'shape' (the current token), a tuple of
 * non-negative integers, into h->ndim and h->shape. */
static int parse_shape(npy_parser *p, npy_header *h)
{
	if (!is_punct(p, '('))
		return tok_fail(p, "expected a tuple for 'shape' in .npy header");
	if (next_tok(p) < 0)
		return -1;
	h->ndim = 0;
	bool comma = false;  /* whether the last element had a comma */
	while (!is_punct(p, ')')) {
		if (p->tok.kind != TOK_INT)
			return tok_fail(p, "expected an integer or ')' in the "
				"'shape' of .npy header");
		if (h->ndim == STIR_MAX_DIMS)
			return tok_fail(p, "too many dimensions in .npy shape "
				"(at most %d)", STIR_MAX_DIMS);
		if (p->tok.overflow)
			return tok_fail(p, "dimension out of range in .npy shape");
		if (p->tok.value < 0)
			return tok_fail(p, "negative dimension %lld in .npy shape",
				(long long)p->tok.value);
		h->shape[h->ndim++] = p->tok.value;
		if (next_tok(p) < 0)
			return -1;
		comma = is_punct(p, ',');
		if (comma) {
			if (next_tok(p) < 0)
				return -1;
		} else if (!is_punct(p, ')')) {
			return tok_fail(p, "expected ',' or ')' in the 'shape' of "
				".npy header");
		}
	}
	/* "(3)" is the integer 3 in Python, not a tuple */
	if (h->ndim == 1 && !comma)
		return tok_fail(p, "'shape' of .npy header is not a tuple "
			"(a one-element tuple needs a trailing comma)");
	return next_tok(p);
}

/* p, h: the header dictionary, from its first token to the end of the
 * header. */
static int parse_header(npy_parser *p, npy_header *h)
{
	enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4 };
	unsigned seen = 0;

	if (next_tok(p) < 0)
		return -1;
	if (expect_punct(p, '{', "'{' starting the dictionary") < 0)
		return -1;
	while (!is_punct(p, '}')) {
		npy_token key = p->tok;
		if (key.kind != TOK_STRING)
			return tok_fail(p, "expected a key or '}' in .npy header");
		unsigned k = tok_is(&key, "descr") ? KEY_DESCR :
			tok_is(&key, "fortran_order") ? KEY_FORTRAN :
			tok_is(&key, "shape") ? KEY_SHAPE : 0;
		int len = key.len > 40 ? 40 : (int)key.len;
		if (!k)
			return tok_fail(p, "unexpected key '%.*s' in .npy header",
				len, key.s);
		if (seen & k)
			return tok_fail(p, "duplicate key '%.*s' in .npy header",
				len, key.s);
		seen |= k;
		if (next_tok(p) < 0 || expect_punct(p, ':', "':' after a key") < 0)
			return -1;
		int r = k == KEY_DESCR ? parse_descr(p, h) :
			k == KEY_FORTRAN ? parse_fortran_order(p) :
			parse_shape(p, h);
		if (r < 0)
			return -1;
		if (is_punct(p, ',')) {
			if (next_tok(p) < 0)
				return -1;
		} else if (!is_punct(p, '}')) {
			return tok_fail(p, "expected ',' or '}' in .npy header");
		}
	}
	static const char *const names[] = { "descr", "fortran_order", "shape" };
	for (int i = 0; i < 3; i++)
		if (!(seen & (1u << i)))
			return tok_fail(p, "missing key '%s' in .npy header",
				names[i]);
	if (next_tok(p) < 0)
		return -1;
	if (p->tok.kind != TOK_END)
		return tok_fail(p, "unexpected text after the .npy header "
			"dictionary");
	return 0;
}

/* Whether this machine stores integers least significant byte first. */
static bool host_is_little_endian(void)
{
	const uint16_t one = 1;
	uint8_t b;
	memcpy(&b, &one, 1);
	return b == 1;
}

/* p, n, size: reverse the bytes of each of the n elements of "size"
 * bytes at p (to convert between little-endian and the host order). */
static void swap_bytes(uint8_t *p, size_t n, size_t size)
{
	for (size_t i = 0; i < n; i++, p += size)
		for (size_t a = 0, b = size - 1; a < b; a++, b--) {
			uint8_t t = p[a];
			p[a] = p[b];
			p[b] = t;
		}
}

/* in, nbytes, data_off: read the nbytes of array data that start at byte
 * offset data_off into a malloc'ed buffer, growing it as bytes arrive (the
 * extent of the stream is not known), so that a header that lies costs
 * memory only for the data that is there.  NULL on an error (reported). */
static uint8_t *read_data_growing(stir_ctx *ctx, stir_io_stream *in,
	size_t nbytes, size_t data_off)
{
	size_t cap = NPY_DIRECT_ALLOC, n = 0;
	uint8_t *buf = malloc(cap);
	if (!buf) {
		stir_error_oom(ctx);
		return NULL;
	}
	while (n < nbytes) {
		if (n == cap) {
			size_t ncap = cap > nbytes / 2 ? nbytes : cap * 2;
			uint8_t *nb = realloc(buf, ncap);
			if (!nb) {
				free(buf);
				stir_error(ctx, stir_loc_file(stir_io_name(in)),
					"out of memory reading .npy data (%zu bytes)",
					ncap);
				return NULL;
			}
			buf = nb;
			cap = ncap;
		}
		int64_t got = stir_io_read(in, buf + n, cap - n);
		if (got < 0) {
			free(buf);
			return NULL;
		}
		n += (size_t)got;
		if (n < cap)
			break;  /* the end of the stream */
	}
	if (n < nbytes) {
		free(buf);
		npy_fail(ctx, stir_io_name(in), data_off + n, "truncated .npy "
			"data: the shape needs %zu bytes from byte offset %zu, the "
			"file holds %zu", nbytes, data_off, n);
		return NULL;
	}
	return buf;
}

/* ctx, in, off: the stream must end at byte offset "off", after the data;
 * extra bytes are an error that counts them (up to a limit: an endless
 * input is not counted to its end). */
static int expect_end(stir_ctx *ctx, stir_io_stream *in, size_t off)
{
	uint8_t junk[4096];
	uint64_t extra = 0;
	for (;;) {
		int64_t got = stir_io_read(in, junk, sizeof(junk));
		if (got < 0)
			return -1;
		extra += (uint64_t)got;
		if ((size_t)got < sizeof(junk) || extra >= NPY_MAX_EXTRA_COUNT)
			break;
	}
	if (extra == 0)
		return 0;
	if (extra >= NPY_MAX_EXTRA_COUNT)
		return npy_fail(ctx, stir_io_name(in), off, "unexpected data after "
			"the .npy array (at least %llu extra bytes)",
			(unsigned long long)extra);
	return npy_fail(ctx, stir_io_name(in), off, "unexpected data after "
		"the .npy array (%llu extra byte%s)", (unsigned long long)extra,
		extra == 1 ? "" : "s");
}

/* ctx, in: read a .npy file from stream "in" (which the caller
 * closes). */
static stir_array *read_npy(stir_ctx *ctx, stir_io_stream *in)
{
	const char *name = stir_io_name(in);
	uint8_t d[12];
	int64_t got = stir_io_read(in, d, 8);
	if (got < 0)
		return NULL;
	size_t len = (size_t)got;
	size_t n = len < NPY_MAGIC_LEN ? len : NPY_MAGIC_LEN;
	for (size_t i = 0; i < n; i++)
		if (d[i] != (uint8_t)NPY_MAGIC[i]) {
			npy_fail(ctx, name, i, "not a .npy file (bad magic string)");
			return NULL;
		}
	if (len < NPY_MAGIC_LEN + 2) {
		npy_fail(ctx, name, len, "truncated .npy header");
		return NULL;
	}
	unsigned major = d[6], minor = d[7];
	if (major < 1 || major > 3 || minor != 0) {
		npy_fail(ctx, name, 6, "unsupported .npy format version %u.%u",
			major, minor);
		return NULL;
	}
	size_t hstart = major == 1 ? 10 : 12;
	got = stir_io_read(in, d + 8, hstart - 8);
	if (got < 0)
		return NULL;
	if ((size_t)got < hstart - 8) {
		npy_fail(ctx, name, 8 + (size_t)got, "truncated .npy header");
		return NULL;
	}
	size_t hlen = major == 1 ? (size_t)(d[8] | d[9] << 8) :
		(size_t)((uint32_t)d[8] | (uint32_t)d[9] << 8 |
			 (uint32_t)d[10] << 16 | (uint32_t)d[11] << 24);
	/* read at most NPY_MAX_HEADER + 1 bytes of it: enough to tell a
	 * truncated file from one whose header is too long */
	uint64_t left = stir_io_max_left(in);
	size_t want = hlen <= NPY_MAX_HEADER ? hlen : NPY_MAX_HEADER + 1;
	if (left < want)
		want = (size_t)left;
	char *hdr = malloc(want ? want : 1);
	if (!hdr) {
		stir_error_oom(ctx);
		return NULL;
	}
	got = stir_io_read(in, hdr, want);
	if (got < 0) {
		free(hdr);
		return NULL;
	}
	if ((size_t)got < hlen && (size_t)got < NPY_MAX_HEADER + 1) {
		free(hdr);
		npy_fail(ctx, name, hstart + (size_t)got, "truncated .npy header "
			"(%zu bytes announced at byte offset 8)", hlen);
		return NULL;
	}
	if (hlen > NPY_MAX_HEADER) {
		free(hdr);
		npy_fail(ctx, name, 8, ".npy header of %zu bytes too long (at "
			"most %zu)", hlen, NPY_MAX_HEADER);
		return NULL;
	}

	npy_parser p = {
		.ctx = ctx,
		.name = name,
		.hdr = hdr,
		.hdr_off = hstart,
		.hdr_len = hlen,
	};
	npy_header h = { STIR_DTYPE_NONE, 0, { 0 } };
	int r = parse_header(&p, &h);
	free(hdr);
	if (r < 0)
		return NULL;

	size_t data_off = hstart + hlen;
	size_t elem = stir_dtype_get_size(h.dtype);
	uint64_t count = 1;
	bool too_big = false;
	for (int i = 0; i < h.ndim; i++) {
		uint64_t dim = (uint64_t)h.shape[i];
		if (dim && count > UINT64_MAX / dim)
			too_big = true;
		else
			count *= dim;
	}
	if (count == 0)
		too_big = false;  /* a zero dimension empties the array */
	if (too_big || count > SIZE_MAX / elem) {
		npy_fail(ctx, name, hstart, "array size in .npy header out of range");
		return NULL;
	}
	size_t nbytes = (size_t)count * elem;
	/* a file known to be too short is refused before anything is
	 * allocated for the shape; max_left is exact for a plain file, an
	 * upper bound for gzip data */
	left = stir_io_max_left(in);
	bool exact = left != UINT64_MAX && !stir_io_is_compressed(in);
	if (left < nbytes) {
		npy_fail(ctx, name, (size_t)(data_off + (exact ? left : 0)),
			exact ? "truncated .npy data: the shape needs %zu bytes "
			"from byte offset %zu, the file holds %zu" :
			"truncated .npy data: the shape needs %zu bytes from byte "
			"offset %zu, the file holds at most %zu", nbytes, data_off,
			(size_t)left);
		return NULL;
	}

	stir_array *a;
	uint8_t *out;
	if (exact || nbytes <= NPY_DIRECT_ALLOC) {
		a = stir_array_alloc(ctx, h.dtype, h.ndim, h.shape);
		if (!a)
			return NULL;
		out = stir_array_get_data(a);
		got = stir_io_read(in, out, nbytes);
		if (got < 0) {
			stir_array_free(a);
			return NULL;
		}
		if ((size_t)got < nbytes) {
			stir_array_free(a);
			npy_fail(ctx, name, data_off + (size_t)got, "truncated .npy "
				"data: the shape needs %zu bytes from byte offset %zu, "
				"the file holds %zu", nbytes, data_off, (size_t)got);
			return NULL;
		}
	} else {
		uint8_t *buf = read_data_growing(ctx, in, nbytes, data_off);
		if (!buf)
			return NULL;
		a = stir_array_alloc(ctx, h.dtype, h.ndim, h.shape);
		if (!a) {
			free(buf);
			return NULL;
		}
		out = stir_array_get_data(a);
		memcpy(out, buf, nbytes);
		free(buf);
	}
	if (expect_end(ctx, in, data_off + nbytes) < 0) {
		stir_array_free(a);
		return NULL;
	}
	if (!host_is_little_endian() && elem > 1)
		swap_bytes(out, (size_t)count, elem);
	return a;
}

/* ctx, name: diagnostics and the name they use; data, len: the bytes of a
 * .npy file, plain or gzip-compressed. */
stir_array *stir_npy_read_from_mem(stir_ctx *ctx, const char *name,
	const void *data, size_t len)
{
	stir_io_stream *in = stir_io_open_mem(ctx, name, data, len);
	if (!in)
		return NULL;
	stir_array *a = read_npy(ctx, in);
	stir_io_close(in);
	return a;
}

/* ctx: receives diagnostics; path: the .npy file (possibly gzipped). */
stir_array *stir_npy_read_from_file(stir_ctx *ctx, const char *path)
{
	stir_io_stream *in = stir_io_open(ctx, path);
	if (!in)
		return NULL;
	stir_array *a = read_npy(ctx, in);
	stir_io_close(in);
	return a;
}

/* t: the type of an array; the descr written for it, or NULL when .npy
 * files cannot hold it.  bf16 has no NumPy type: it is widened to '<f4',
 * which holds every bf16 value exactly. */
static const char *descr_of(stir_dtype t)
{
	switch (t) {
	case STIR_I8: return "|i1";
	case STIR_I32: return "<i4";
	case STIR_I64: return "<i8";
	case STIR_F16: return "<f2";
	case STIR_BF16: return "<f4";
	case STIR_F32: return "<f4";
	case STIR_F64: return "<f8";
	default: return NULL;
	}
}

/* buf, cap: receives the whole version 1.0 preamble (magic, version,
 * header length, header) for "a" with type descr; its length, which is a
 * multiple of 64 as NumPy makes it, or 0 when it does not fit. */
static size_t format_preamble(char *buf, size_t cap, const stir_array *a,
	const char *descr)
{
	char shape[STIR_MAX_DIMS * 24 + 8];
	size_t n = 0;
	int ndim = stir_array_get_ndim(a);
	shape[n++] = '(';
	for (int i = 0; i < ndim; i++)
		n += (size_t)snprintf(shape + n, sizeof(shape) - n, "%s%lld",
			i ? ", " : "", (long long)stir_array_get_dim(a, i));
	if (ndim == 1)
		shape[n++] = ',';
	shape[n++] = ')';
	shape[n] = '\0';

	int len = snprintf(buf + 10, cap - 10,
		"{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
		descr, shape);
	if (len < 0 || (size_t)len + 11 > cap)
		return 0;
	/* pad with spaces so that the data starts 64-byte aligned; the
	 * header ends with '\n' */
	size_t total = 10 + (size_t)len + 1;
	size_t padded = (total + 63) / 64 * 64;
	if (padded > cap || padded - 10 > 0xffff)
		return 0;
	memset(buf + 10 + len, ' ', padded - total);
	buf[padded - 1] = '\n';
	memcpy(buf, NPY_MAGIC, NPY_MAGIC_LEN);
	buf[6] = 1;
	buf[7] = 0;
	buf[8] = (char)((padded - 10) & 0xff);
	buf[9] = (char)((padded - 10) >> 8);
	return padded;
}

/* a, f: write the elements of "a" to f as little-endian data of the type
 * descr_of() names, converting in chunks where the bytes differ from
 * memory (bf16, or a big-endian host).  0, or -1 when writing fails. */
static int write_data(const stir_array *a, FILE *f)
{
	stir_dtype t = stir_array_get_dtype(a);
	size_t n = (size_t)stir_array_get_len(a);
	size_t elem = stir_dtype_get_size(t);
	const uint8_t *src = stir_array_get_const_data(a);
	bool le = host_is_little_endian();
	if (t != STIR_BF16 && (le || elem == 1))
		return n && fwrite(src, elem, n, f) != n ? -1 : 0;

	uint8_t buf[4096];
	size_t out_elem = t == STIR_BF16 ? 4 : elem;
	size_t chunk = sizeof(buf) / out_elem;
	for (size_t i = 0; i < n; i += chunk) {
		size_t m = n - i < chunk ? n - i : chunk;
		if (t == STIR_BF16) {
			for (size_t k = 0; k < m; k++) {
				uint16_t b;
				memcpy(&b, src + (i + k) * 2, 2);
				/* bf16 is the upper half of an f32 */
				uint32_t w = (uint32_t)b << 16;
				for (int j = 0; j < 4; j++)
					buf[k * 4 + j] = (uint8_t)(w >> (8 * j));
			}
		} else {
			memcpy(buf, src + i * elem, m * elem);
			swap_bytes(buf, m, elem);
		}
		if (fwrite(buf, out_elem, m, f) != m)
			return -1;
	}
	return 0;
}

/* ctx: receives diagnostics; path: the file to (over)write; a: the
 * array. */
int stir_npy_write(stir_ctx *ctx, const char *path, const stir_array *a)
{
	const char *descr = descr_of(stir_array_get_dtype(a));
	if (!descr) {
		stir_error(ctx, stir_loc_file(path), "cannot write an array of "
			"type %s to a .npy file",
			stir_dtype_get_name(stir_array_get_dtype(a)));
		return -1;
	}
	char pre[512];
	size_t pre_len = format_preamble(pre, sizeof(pre), a, descr);
	if (!pre_len) {
		stir_error(ctx, stir_loc_file(path), ".npy header too long");
		return -1;
	}
	FILE *f = fopen(path, "wb");
	if (!f) {
		stir_error(ctx, stir_loc_file(path), "cannot open file for "
			"writing: %s", strerror(errno));
		return -1;
	}
	int r = 0;
	if (fwrite(pre, 1, pre_len, f) != pre_len || write_data(a, f) < 0)
		r = -1;
	int err = errno;
	if (fclose(f) != 0 && r == 0) {
		r = -1;
		err = errno;
	}
	if (r < 0) {
		stir_error(ctx, stir_loc_file(path), "cannot write file: %s",
			strerror(err));
		/* a partial file would read back as a truncated array */
		unlink(path);
	}
	return r;
}
