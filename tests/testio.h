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

#endif
