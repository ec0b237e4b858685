/* A libFuzzer harness for the file readers.
 *
 * The first input byte picks the reader (gunzip, Matrix Market, .npy); the
 * rest is the file.  Every input must give a result or exactly one
 * diagnostic, never a sanitizer report.  Matrix Market inputs may declare
 * at most MAX_DECLARED_ROWS rows (see there).  `make fuzz` builds and runs it
 * with the io fixtures as seeds (see docs/fuzzing.md):
 *
 *   make fuzz-build && ./fuzz/fuzz_io -dict=../tests/fuzz/io.dict CORPUS
 *
 * Inputs it finds that once failed belong in tests/data/io as regression
 * fixtures, with a test in the reader's suite.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stir/io.h>

/* Rows a Matrix Market input may declare: the reader allocates the CSR
 * row pointers, 8 bytes a row, for every declared row, empty or not
 * (right for a real matrix), and a 100-byte input may declare billions;
 * AddressSanitizer aborts on an allocation it cannot make.  The reader's
 * own limit (stir_mtx_limits, as a kernel's size type sets it) refuses
 * such inputs at the size line, with one diagnostic like any other
 * error, so they are exercised rather than skipped. */
#define MAX_DECLARED_ROWS (1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

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
		static const stir_mtx_limits lim = { MAX_DECLARED_ROWS, 0, 0,
			"the fuzzer" };
		stir_csr *m = stir_mtx_read_from_mem_limited(ctx, "f.mtx",
			data + 1, len - 1, &lim);
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
