/* The property that the lang fuzzer (tests/fuzz/fuzz_lang.c) checks on
 * every input, and that the regression test (tests/test_fuzz_regressions.c)
 * checks on every file of tests/fuzz/regressions/.  Both run exactly this
 * code, so that a regression file replays what the fuzzer did.
 *
 * The input is program text.  It must either read, or fail with at least
 * one error diagnostic.  A module that reads must print, read back from
 * its printed text as an equal module, and print again as the same text.
 * The module is lowered to stage II and to stage III (a verified program
 * must lower); each lowered module must print, read back as an equal
 * module and print again as the same text.  Every kernel, brought to
 * stage III for the GPU with the default schedule, must emit CUDA C or
 * refuse with an error (nothing is compiled).
 * Then every kernel is bound to random data (small sizes derived from the
 * input, checked beforehand so that arrays stay small) and interpreted,
 * when the work that takes is small too.  Failing is fine for the binder
 * and the interpreter as long as they say why; succeeding binds data that
 * stir_kernel_verify_bindings accepts and that has the shapes
 * stir_kernel_get_array_shape announces.  Binding and interpreting are done
 * twice, from the same bindings and seed, and must agree bit for bit.
 * When stage I's interpreter runs, the stage II and III kernels run on the
 * same inputs and must give the same tensors within the tolerance of
 * `stirc verify` (1e-4 relative and absolute for f32, exact for integers).
 * The formatted diagnostics must hold every diagnostic's message.
 */
#ifndef STIR_TESTS_FUZZ_LANG_CHECK_H
#define STIR_TESTS_FUZZ_LANG_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for the description of a failure (it is cut to fit). */
#define FUZZ_WHY_MAX 4096

/* data, len: one input (need not be NUL-terminated, may hold NUL bytes).
 * Returns 0 when the input passes; otherwise -1 with what went wrong in
 * why (why_size bytes, NUL-terminated). */
int fuzz_lang_check(const uint8_t *data, size_t len, char *why,
	size_t why_size);

/* k, b: whether binding stage I kernel k at random with the sizes of b
 * (its other parameters unbound) and interpreting it stay within the
 * budgets of the property: arrays small, and an upper bound of the work
 * (every variable row as long as its axis's NNZ) small.  False for a
 * kernel at another stage.  For harnesses that bind through other means
 * (fuzz_stirc.c). */
typedef struct stir_kernel stir_kernel;
typedef struct stir_bindings stir_bindings;
bool fuzz_kernel_is_small(const stir_kernel *k, const stir_bindings *b);

/* Flags of fuzz_lang_check_flags. */
enum {
	/* Stop at stage I: read, print, read back, bind and interpret, but
	 * neither lower nor emit CUDA (for inputs a known fault keeps from
	 * lowering; see tests/test_fuzz_regressions.c). */
	FUZZ_LANG_STAGE_1_ONLY = 1u << 0,
};

/* The same, with flags (FUZZ_LANG_*). */
int fuzz_lang_check_flags(const uint8_t *data, size_t len, unsigned flags,
	char *why, size_t why_size);

#endif
