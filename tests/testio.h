/* Helpers for the file input/output tests: fixtures and diagnostics. */
#ifndef STIR_TESTS_TESTIO_H
#define STIR_TESTS_TESTIO_H

#include <stdint.h>
#include <stir/ctx.h>
#include "tests/testutil.h"

/* rel: a file under the source tree, read whole into an exactly sized
 * malloc'ed buffer (so that AddressSanitizer catches a read past its end);
 * *len receives its size.  Fails the test when the file cannot be read. */
static inline uint8_t *test_read_fixture(const char *rel, size_t *len)
{
	const char *path = test_path(rel);
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	ck_assert_int_ge(n, 0);
	uint8_t *buf = malloc(n ? (size_t)n : 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* p, n: bytes copied into a new buffer of exactly n bytes. */
static inline uint8_t *test_copy_exact(const uint8_t *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);
	ck_assert_ptr_nonnull(c);
	if (n)
		memcpy(c, p, n);
	return c;
}

/* ctx: a context that must hold exactly one diagnostic, an error, whose
 * message is returned. */
static inline const char *test_only_error(stir_ctx *ctx)
{
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 1);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	const stir_diag *d = stir_ctx_get_diagnostic(ctx, 0);
	ck_assert_int_eq(stir_diag_get_severity(d), STIR_ERROR);
	return stir_diag_get_message(d);
}

/* ctx: the location of the only diagnostic. */
static inline stir_loc test_only_loc(stir_ctx *ctx)
{
	return stir_diag_get_loc(stir_ctx_get_diagnostic(ctx, 0));
}

/* data, n, *len: a gzip file (malloc'ed) of the n bytes in stored blocks
 * of at most "block" bytes (at most 65535). */
static inline uint8_t *test_gzip_stored(const uint8_t *data, size_t n,
	size_t block, size_t *len)
{
	size_t blocks = n / block + 1;
	uint8_t *g = malloc(10 + n + 5 * blocks + 8);
	ck_assert_ptr_nonnull(g);
	static const uint8_t header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	memcpy(g, header, 10);
	size_t at = 10, done = 0;
	for (size_t b = 0; b < blocks; b++) {
		size_t k = n - done < block ? n - done : block;
		g[at++] = b + 1 == blocks;
		g[at++] = (uint8_t)k;
		g[at++] = (uint8_t)(k >> 8);
		g[at++] = (uint8_t)~k;
		g[at++] = (uint8_t)(~k >> 8);
		memcpy(g + at, data + done, k);
		at += k;
		done += k;
	}
	uint32_t crc = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		crc ^= data[i];
		for (int j = 0; j < 8; j++)
			crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
	}
	crc ^= 0xffffffffu;
	for (int i = 0; i < 4; i++)
		g[at++] = (uint8_t)(crc >> (8 * i));
	for (int i = 0; i < 4; i++)
		g[at++] = (uint8_t)((uint32_t)n >> (8 * i));
	*len = at;
	return g;
}


#endif
