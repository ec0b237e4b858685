/* A libFuzzer harness for the front end, the printer, the random binder
 * and the interpreter: every input is program text, checked as
 * fuzz_lang_check.h says.  `make fuzz` builds and runs it (see
 * docs/fuzzing.md); an input that fails is written by libFuzzer as
 * crash-<sha1>, and belongs, minimized, in tests/fuzz/regressions/ once
 * the library is fixed. */
#include <stdint.h>
#include <stdio.h>
#include "tests/fuzz/fuzz_lang_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* data, len: one input.  A failure of the property stops the fuzzer with
 * a trap here, in the harness; the library itself never aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static char why[FUZZ_WHY_MAX];
	if (fuzz_lang_check(data, len, why, sizeof(why)) < 0) {
		fprintf(stderr, "fuzz_lang: %s\n", why);
		__builtin_trap();
	}
	return 0;
}
