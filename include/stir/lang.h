/* stir: reading and printing programs.
 *
 * The text form of every stage is documented in docs/language.md.
 * Reading parses, resolves names, builds the IR and verifies it; a program
 * with any error gives NULL and its diagnostics in the context.
 */
#ifndef STIR_LANG_H
#define STIR_LANG_H

#include <stir/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Read the program in "text" ("len" bytes); "file" names it in diagnostics. */
STIR_EXPORT __stir_give stir_module *stir_module_read_from_mem(
	__stir_keep stir_ctx *ctx, const char *file, const char *text, size_t len);
/* Read the program in the file at "path". */
STIR_EXPORT __stir_give stir_module *stir_module_read_from_file(
	__stir_keep stir_ctx *ctx, const char *path);

/* The program as text; the caller frees it.  NULL when memory runs out.
 * Printing is deterministic, and reading the text back gives an equal
 * module. */
STIR_EXPORT __stir_give char *stir_module_to_str(__stir_keep const stir_module *m);
STIR_EXPORT __stir_give char *stir_kernel_to_str(__stir_keep const stir_kernel *k);
/* A deep copy of kernel k, at its stage, as the only kernel of a new
 * module in k's context, which *owner receives: the caller frees it with
 * stir_module_free.  k's module is not touched, and the two share no node:
 * scheduling or lowering one leaves the other as it was.  The copy keeps
 * k's source locations (its diagnostics and the emitted CUDA's comments
 * point where k's do).  A copy in another module rather than k's own,
 * where two kernels of one name could not live.  NULL (*owner NULL) with
 * diagnostics when memory runs out. */
STIR_EXPORT __stir_keep stir_kernel *stir_kernel_copy(
	__stir_keep const stir_kernel *k, __stir_give stir_module **owner);
/* An expression as text (for diagnostics and tests). */
STIR_EXPORT __stir_give char *stir_expr_to_str(__stir_keep const stir_expr *e);

#ifdef __cplusplus
}
#endif
#endif
