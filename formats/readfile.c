/* Reading whole files, transparently decompressing gzip. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stir/io.h>
#include "formats/io_internal.h"
#include "ir/diag.h"

/* ctx, name, data, len, text, text_len, owned: see io_internal.h. */
int stir_io_plain_bytes(stir_ctx *ctx, const char *name, const void *data,
	size_t len, const uint8_t **text, size_t *text_len, void **owned)
{
	*owned = NULL;
	if (!stir_io_is_gzip(data, len)) {
		*text = data;
		*text_len = len;
		return 0;
	}
	void *out;
	size_t out_len;
	if (stir_gunzip(ctx, name, data, len, &out, &out_len) < 0)
		return -1;
	*owned = out;
	*text = out;
	*text_len = out_len;
	return 0;
}

/* ctx, path: report that "doing" ("open", "read") the file "path" failed
 * with errno value "err".  Returns -1. */
static int read_error(stir_ctx *ctx, const char *path, const char *doing,
	int err)
{
	stir_error(ctx, stir_loc_file(path), "cannot %s file: %s", doing,
		strerror(err));
	return -1;
}

/* ctx, f, path: read the rest of the open file f (named path) into a
 * malloc'ed buffer *buf of *len bytes plus a NUL.  Regular files are read
 * in one go; anything else (a pipe) grows the buffer geometrically. */
static int read_all(stir_ctx *ctx, FILE *f, const char *path, char **buf,
	size_t *len)
{
	struct stat st;
	size_t cap = 4096;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size >= 0 && (uint64_t)st.st_size < SIZE_MAX - 1)
		cap = (size_t)st.st_size + 1;
	char *b = malloc(cap);
	if (!b) {
		stir_error(ctx, stir_loc_file(path),
			"out of memory reading file (%zu bytes)", cap);
		return -1;
	}
	size_t n = 0;
	for (;;) {
		size_t want = cap - 1 - n;
		size_t got = fread(b + n, 1, want, f);
		n += got;
		if (got < want)
			break;  /* end of file or an error */
		/* full: only a peek tells whether more follows (a file that
		 * grew, a pipe) without doubling the buffer of every file */
		int c = getc(f);
		if (c == EOF)
			break;
		if (cap > SIZE_MAX / 2) {
			free(b);
			stir_error(ctx, stir_loc_file(path), "file too large");
			return -1;
		}
		char *nb = realloc(b, cap * 2);
		if (!nb) {
			free(b);
			stir_error(ctx, stir_loc_file(path),
				"out of memory reading file (%zu bytes)", cap * 2);
			return -1;
		}
		b = nb;
		cap *= 2;
		b[n++] = (char)c;
	}
	if (ferror(f)) {
		int err = errno;
		free(b);
		return read_error(ctx, path, "read", err);
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* ctx, path: the file to read; *data, *len: its (decompressed) contents,
 * NUL-terminated, for the caller to free. */
int stir_read_file(stir_ctx *ctx, const char *path, char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return read_error(ctx, path, "open", errno);
	char *buf;
	size_t n;
	int r = read_all(ctx, f, path, &buf, &n);
	fclose(f);
	if (r < 0)
		return -1;
	if (!stir_io_is_gzip(buf, n)) {
		*data = buf;
		*len = n;
		return 0;
	}
	void *out;
	size_t out_len;
	r = stir_gunzip(ctx, path, buf, n, &out, &out_len);
	free(buf);
	if (r < 0)
		return -1;
	*data = out;
	*len = out_len;
	return 0;
}
