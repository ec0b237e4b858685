/* Helpers shared by the file readers in formats/ (not exported). */
#ifndef STIR_FORMATS_IO_INTERNAL_H
#define STIR_FORMATS_IO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stir/ctx.h>

/* Whether data (len bytes) starts with the two gzip magic bytes. */
static inline int stir_io_is_gzip(const void *data, size_t len)
{
	const uint8_t *p = data;
	return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/* ctx: receives diagnostics; name: the file name used in them; data, len:
 * a file's bytes, plain or gzip-compressed.  Sets *text and *text_len to
 * the plain bytes: data itself when it is not compressed, otherwise a
 * decompressed, NUL-terminated copy that is also stored in *owned for the
 * caller to free (*owned is NULL when nothing was allocated).  0 or -1. */
int stir_io_plain_bytes(stir_ctx *ctx, const char *name, const void *data,
	size_t len, const uint8_t **text, size_t *text_len, void **owned);

#endif
