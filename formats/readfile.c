/* Input streams: files and buffers, plain or gzip-compressed, read a
 * chunk at a time (see io_internal.h), and whole-file reading on top. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stir/io.h>
#include "formats/io_internal.h"
#include "ir/diag.h"

/* Bytes read from a file at a time. */
#define RAW_CHUNK 65536

/* An input stream. */
struct stir_io_stream {
	stir_ctx *ctx;          /* borrowed: receives the diagnostics */
	const char *name;       /* borrowed: the path or name */
	FILE *f;                /* owned: the file, or NULL for a buffer */
	uint64_t file_size;     /* a regular file's size; UINT64_MAX when
	                         * unknown */
	const uint8_t *mem;     /* borrowed: the buffer, or the file's
	                         * current chunk (in raw) */
	size_t mem_len;         /* bytes at mem */
	size_t mem_pos;         /* bytes of mem already handed out */
	uint64_t raw_base;      /* offset of mem[0] in the raw input */
	uint8_t *raw;           /* owned: RAW_CHUNK bytes of file input */
	stir_inflater *z;       /* owned: the decompressor, NULL when plain */
	uint64_t out;           /* bytes handed out */
	bool failed;            /* whether an error was reported */
};

/* ctx, path: report that "doing" ("open", "read") the file "path" failed
 * with errno value "err".  Returns -1. */
static int read_error(stir_ctx *ctx, const char *path, const char *doing,
	int err)
{
	stir_error(ctx, stir_loc_file(path), "cannot %s file: %s", doing,
		strerror(err));
	return -1;
}

/* s: a file stream whose chunk is used up; reads the next.  1, 0 at the
 * end of the file, -1 on an error (reported). */
static int raw_fill(stir_io_stream *s)
{
	if (!s->f)
		return 0;
	size_t n = fread(s->raw, 1, RAW_CHUNK, s->f);
	if (n == 0) {
		if (ferror(s->f))
			return read_error(s->ctx, s->name, "read", errno);
		return 0;
	}
	s->raw_base += s->mem_len;
	s->mem = s->raw;
	s->mem_len = n;
	s->mem_pos = 0;
	return 1;
}

/* arg: the stream; *p, *n: its next raw chunk (for the decompressor). */
static int raw_next(void *arg, const uint8_t **p, size_t *n)
{
	stir_io_stream *s = arg;
	if (s->mem_pos == s->mem_len) {
		int r = raw_fill(s);
		if (r <= 0)
			return r;
	}
	*p = s->mem + s->mem_pos;
	*n = s->mem_len - s->mem_pos;
	s->mem_pos = s->mem_len;
	return 1;
}

/* s: a stream whose first raw bytes are at hand; starts the decompressor
 * when they are the gzip magic bytes.  0 or -1. */
static int detect_gzip(stir_io_stream *s)
{
	/* a file's first chunk may hold a single byte (a pipe): two are
	 * needed to tell */
	if (s->f && s->mem_len == 1) {
		int c = getc(s->f);
		if (c != EOF) {
			s->raw[1] = (uint8_t)c;
			s->mem_len = 2;
		} else if (ferror(s->f)) {
			return read_error(s->ctx, s->name, "read", errno);
		}
	}
	if (!stir_io_is_gzip(s->mem, s->mem_len))
		return 0;
	const uint8_t *p = s->mem;
	size_t n = s->mem_len;
	s->mem_pos = s->mem_len;
	s->z = stir_inflater_new(s->ctx, s->name, p, n, s->f ? raw_next : NULL,
		s);
	return s->z ? 0 : -1;
}

/* ctx, name: see io_internal.h.  A stream with nothing attached. */
static stir_io_stream *stream_new(stir_ctx *ctx, const char *name)
{
	stir_io_stream *s = calloc(1, sizeof(*s));
	if (!s) {
		stir_error_oom(ctx);
		return NULL;
	}
	s->ctx = ctx;
	s->name = name;
	s->file_size = UINT64_MAX;
	return s;
}

/* ctx, path: see io_internal.h. */
stir_io_stream *stir_io_open(stir_ctx *ctx, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		read_error(ctx, path, "open", errno);
		return NULL;
	}
	stir_io_stream *s = stream_new(ctx, path);
	if (!s) {
		fclose(f);
		return NULL;
	}
	s->f = f;
	struct stat st;
	if (fstat(fileno(f), &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			read_error(ctx, path, "read", EISDIR);
			stir_io_close(s);
			return NULL;
		}
		if (S_ISREG(st.st_mode) && st.st_size >= 0)
			s->file_size = (uint64_t)st.st_size;
	}
	s->raw = malloc(RAW_CHUNK);
	if (!s->raw) {
		stir_error_oom(ctx);
		stir_io_close(s);
		return NULL;
	}
	if (raw_fill(s) < 0 || detect_gzip(s) < 0) {
		stir_io_close(s);
		return NULL;
	}
	return s;
}

/* ctx, name, data, len: see io_internal.h. */
stir_io_stream *stir_io_open_mem(stir_ctx *ctx, const char *name,
	const void *data, size_t len)
{
	stir_io_stream *s = stream_new(ctx, name);
	if (!s)
		return NULL;
	s->mem = data;
	s->mem_len = len;
	s->file_size = len;
	if (detect_gzip(s) < 0) {
		stir_io_close(s);
		return NULL;
	}
	return s;
}

/* s, p, n: see io_internal.h. */
int stir_io_next(stir_io_stream *s, const uint8_t **p, size_t *n)
{
	if (s->failed)
		return -1;
	int r;
	if (s->z) {
		r = stir_inflater_read(s->z, p, n);
	} else {
		r = 1;
		if (s->mem_pos == s->mem_len)
			r = raw_fill(s);
		if (r > 0) {
			*p = s->mem + s->mem_pos;
			*n = s->mem_len - s->mem_pos;
			s->mem_pos = s->mem_len;
		}
	}
	if (r < 0)
		s->failed = true;
	if (r > 0)
		s->out += *n;
	return r;
}

/* s, buf, n: see io_internal.h.  Bytes a chunk has beyond n are kept for
 * the next call by stepping the plain position back, or (gzip) in a
 * leftover pointer. */
int64_t stir_io_read(stir_io_stream *s, void *buf, size_t n)
{
	uint8_t *to = buf;
	size_t got = 0;
	while (got < n) {
		if (!s->z && s->mem_pos < s->mem_len) {
			size_t k = s->mem_len - s->mem_pos;
			if (k > n - got)
				k = n - got;
			memcpy(to + got, s->mem + s->mem_pos, k);
			s->mem_pos += k;
			s->out += k;
			got += k;
			continue;
		}
		const uint8_t *p;
		size_t k;
		int r = stir_io_next(s, &p, &k);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		if (k > n - got) {
			if (s->z) {
				/* the window keeps them: hand them back */
				stir_inflater_unread(s->z, k - (n - got));
			} else {
				s->mem_pos -= k - (n - got);
			}
			s->out -= k - (n - got);
			k = n - got;
		}
		memcpy(to + got, p, k);
		got += k;
	}
	return (int64_t)got;
}

/* s: see io_internal.h. */
uint64_t stir_io_offset(const stir_io_stream *s)
{
	return s->out;
}

/* s: see io_internal.h. */
uint64_t stir_io_max_left(const stir_io_stream *s)
{
	if (s->file_size == UINT64_MAX)
		return UINT64_MAX;
	if (!s->z)
		return s->file_size - s->out;
	uint64_t used = stir_inflater_in_offset(s->z);
	uint64_t left = s->file_size > used ? s->file_size - used : 0;
	/* plus what the window holds and has not handed out: at most
	 * its size */
	return left > UINT64_MAX / 1032 ? UINT64_MAX : left * 1032 + 131072;
}

/* s: see io_internal.h. */
bool stir_io_is_compressed(const stir_io_stream *s)
{
	return s->z != NULL;
}

/* s: see io_internal.h. */
const char *stir_io_name(const stir_io_stream *s)
{
	return s->name;
}

/* s: see io_internal.h. */
void stir_io_close(stir_io_stream *s)
{
	if (!s)
		return;
	stir_inflater_free(s->z);
	if (s->f)
		fclose(s->f);
	free(s->raw);
	free(s);
}

/* Where a scan for control bytes is in a text. */
typedef struct text_scan {
	int line;            /* 1-based line of text[from] */
	size_t line_start;   /* offset of that line's first byte */
} text_scan;

static int scan_text(stir_ctx *ctx, const char *file, const char *text,
	size_t from, size_t to, const char *what, text_scan *sc);

/* s, limit, what, *data, *len: read the rest of stream s into a malloc'ed
 * NUL-terminated buffer, growing it geometrically; more than "limit"
 * bytes is an error that says the file is larger than "what" may be.
 * A text ("what" not NULL) must hold no control byte (see
 * stir_io_check_text), which is found as soon as it is read; "what" NULL:
 * any bytes. */
static int read_rest(stir_io_stream *s, size_t limit, const char *what,
	char **data, size_t *len)
{
	size_t cap = 4096, n = 0;
	text_scan sc = { 1, 0 };
	uint64_t hint = stir_io_max_left(s);
	if (!s->z && hint < limit && hint + 1 > cap)
		cap = (size_t)hint + 1;
	char *b = malloc(cap);
	if (!b) {
		stir_error(s->ctx, stir_loc_file(s->name),
			"out of memory reading file (%zu bytes)", cap);
		return -1;
	}
	const uint8_t *p;
	size_t k;
	int r;
	while ((r = stir_io_next(s, &p, &k)) > 0) {
		if (k > limit - n) {
			free(b);
			stir_error(s->ctx, stir_loc_file(s->name),
				"%s larger than %zu bytes", what ? what : "file",
				limit);
			return -1;
		}
		if (k >= cap - n) {
			size_t ncap = cap;
			while (k >= ncap - n)
				ncap = ncap > SIZE_MAX / 2 ? SIZE_MAX : ncap * 2;
			char *nb = realloc(b, ncap);
			if (!nb) {
				free(b);
				stir_error(s->ctx, stir_loc_file(s->name),
					"out of memory reading file (%zu bytes)",
					ncap);
				return -1;
			}
			b = nb;
			cap = ncap;
		}
		memcpy(b + n, p, k);
		/* a text with a control byte ends there (/dev/urandom, a
		 * binary file given as a program), located */
		if (what && scan_text(s->ctx, s->name, b, n, n + k, what,
		    &sc) < 0) {
			free(b);
			return -1;
		}
		n += k;
	}
	if (r < 0) {
		free(b);
		return -1;
	}
	b[n] = '\0';
	*data = b;
	*len = n;
	return 0;
}

/* ctx, path, what, limit, text, len: see io_internal.h. */
int stir_io_read_text(stir_ctx *ctx, const char *path, const char *what,
	size_t limit, char **text, size_t *len)
{
	stir_io_stream *s = stir_io_open(ctx, path);
	if (!s)
		return -1;
	int r = read_rest(s, limit, what, text, len);
	stir_io_close(s);
	return r;
}

/* ctx, path; *data, *len: its (decompressed) contents, NUL-terminated,
 * for the caller to free. */
int stir_bytes_read_from_file(stir_ctx *ctx, const char *path, char **data, size_t *len)
{
	return stir_io_read_text(ctx, path, NULL, SIZE_MAX - 1, data, len);
}

/* c, buf: see io_internal.h. */
const char *stir_io_control_name(unsigned char c, char *buf)
{
	if (c == 0)
		return "NUL";
	snprintf(buf, 8, "0x%02x", c);
	return buf;
}

/* ctx, file, text, from, to, what, sc: look for a control byte in
 * text[from..to), continuing scan sc; the first is reported (see
 * stir_io_check_text).  0 or -1. */
static int scan_text(stir_ctx *ctx, const char *file, const char *text,
	size_t from, size_t to, const char *what, text_scan *sc)
{
	for (size_t i = from; i < to; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\n') {
			if (sc->line < INT32_MAX)
				sc->line++;
			sc->line_start = i + 1;
			continue;
		}
		if ((c >= 0x20 && c != 0x7f) || c == '\t' || c == '\r' ||
		    c == '\v' || c == '\f')
			continue;
		size_t col = i - sc->line_start + 1;
		stir_loc loc = { file, sc->line,
			col < INT32_MAX ? (int)col : INT32_MAX };
		char buf[8];
		stir_error(ctx, loc, "control character %s in the %s",
			stir_io_control_name(c, buf), what);
		return -1;
	}
	return 0;
}

/* ctx, file, text, len, what: see io_internal.h. */
int stir_io_check_text(stir_ctx *ctx, const char *file, const char *text,
	size_t len, const char *what)
{
	text_scan sc = { 1, 0 };
	return scan_text(ctx, file, text, 0, len, what, &sc);
}
