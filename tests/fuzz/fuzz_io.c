/* A libFuzzer harness for the file readers.
 *
 * The first input byte picks the reader (gunzip, Matrix Market, .npy); the
 * rest is the file.  Every input must give a result or exactly one
 * diagnostic, never a sanitizer report.  `make fuzz` builds and runs it
 * with the io fixtures as seeds (see docs/fuzzing.md):
 *
 *   make fuzz-build && ./fuzz/fuzz_io -dict=../tests/fuzz/io.dict CORPUS
 *
 * Inputs it finds that once failed belong in tests/data/io as regression
 * fixtures, with a test in the reader's suite.
 */
#include <stdint.h>
#include <stdlib.h>
#include <stir/io.h>

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
