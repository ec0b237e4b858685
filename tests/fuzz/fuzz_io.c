/* A libFuzzer harness for the file readers.
 *
 * The first input byte picks the reader (gunzip, Matrix Market, .npy); the
 * rest is the file.  Every input must give a result or exactly one
 * diagnostic, never a sanitizer report.  Matrix Market inputs that
 * declare more than MAX_DECLARED_ROWS rows are skipped (see there).  `make fuzz` builds and runs it
 * with the io fixtures as seeds (see docs/fuzzing.md):
 *
 *   make fuzz-build && ./fuzz/fuzz_io -dict=../tests/fuzz/io.dict CORPUS
 *
 * Inputs it finds that once failed belong in tests/data/io as regression
 * fixtures, with a test in the reader's suite.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stir/io.h>

/* Rows a Matrix Market input may declare.  The reader allocates the CSR
 * row pointers, 8 bytes a row, for every declared row, empty or not: right
 * for a real matrix, but a 100-byte input may declare billions of rows,
 * and AddressSanitizer aborts on an allocation it cannot make where a
 * plain build reports "out of memory" (or, for some gigabytes, succeeds).
 * Such inputs are skipped, as fuzz_lang skips sizes beyond its budgets. */
#define MAX_DECLARED_ROWS (1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* c: whether the Matrix Market reader takes it for a blank. */
static bool is_blank(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

/* text, len: a Matrix Market text; the magnitude of the row count its
 * size line declares (saturated at INT64_MAX), found as the reader finds
 * it: the first token of the first line after the banner that is not
 * blank or a comment.  0 when there is none. */
static uint64_t declared_rows(const uint8_t *text, size_t len)
{
	const uint8_t *end = text + len, *line = text;
	for (bool banner = true; line < end; banner = false) {
		const uint8_t *nl = memchr(line, '\n', (size_t)(end - line));
		const uint8_t *stop = nl ? nl : end, *p = line;
		line = nl ? nl + 1 : end;
		while (p < stop && is_blank(*p))
			p++;
		if (banner || p == stop || *p == '%' || *p == '\r')
			continue;
		if (*p == '+' || *p == '-')
			p++;
		uint64_t v = 0;
		for (; p < stop && *p >= '0' && *p <= '9'; p++)
			v = v > (uint64_t)INT64_MAX / 10 ? (uint64_t)INT64_MAX :
				v * 10 + (uint64_t)(*p - '0');
		return v;
	}
	return 0;
}

/* data, len: a Matrix Market input, plain or gzip-compressed; whether it
 * declares more rows than MAX_DECLARED_ROWS. */
static bool too_many_rows(const uint8_t *data, size_t len)
{
	if (len < 2 || data[0] != 0x1f || data[1] != 0x8b)
		return declared_rows(data, len) > MAX_DECLARED_ROWS;
	stir_ctx *ctx = stir_ctx_alloc();
	void *text;
	size_t n;
	bool skip = false;
	if (stir_gunzip(ctx, "f.mtx", data, len, &text, &n) == 0) {
		skip = declared_rows(text, n) > MAX_DECLARED_ROWS;
		free(text);
	}
	stir_ctx_free(ctx);
	return skip;
}

/* data, len: one input (see above). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (len < 1)
		return 0;
	stir_ctx *ctx = stir_ctx_alloc();
	void *out;
	size_t out_len;
	int ok;
	switch (data[0] % 3) {
	case 0:
		ok = stir_gunzip(ctx, "f.gz", data + 1, len - 1, &out,
			&out_len) == 0;
		if (ok)
			free(out);
		break;
	case 1: {
		if (too_many_rows(data + 1, len - 1)) {
			stir_ctx_free(ctx);
			return 0;
		}
		stir_csr *m = stir_mtx_read_from_mem(ctx, "f.mtx", data + 1,
			len - 1);
		ok = m != NULL;
		stir_csr_free(m);
		break;
	}
	default: {
		stir_array *a = stir_npy_read_from_mem(ctx, "f.npy", data + 1,
			len - 1);
		ok = a != NULL;
		stir_array_free(a);
		break;
	}
	}
	/* a failure leaves exactly one error; a success none (the trap is
	 * the harness's: the library never aborts) */
	if (stir_ctx_n_diagnostics(ctx) != (ok ? 0 : 1))
		__builtin_trap();
	stir_ctx_free(ctx);
	return 0;
}
