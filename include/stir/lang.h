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
STIR_EXPORT __stir_give stir_module *stir_module_read_from_str(
	__stir_keep stir_ctx *ctx, const char *file, const char *text, size_t len);
/* Read the program in the file at "path". */
STIR_EXPORT __stir_give stir_module *stir_module_read_file(
	__stir_keep stir_ctx *ctx, const char *path);

/* The program as text; the caller frees it.  NULL when memory runs out.
 * Printing is deterministic, and reading the text back gives an equal
 * module. */
STIR_EXPORT __stir_give char *stir_module_to_str(__stir_keep const stir_module *m);
STIR_EXPORT __stir_give char *stir_kernel_to_str(__stir_keep const stir_kernel *k);
/* An expression as text (for diagnostics and tests). */
STIR_EXPORT __stir_give char *stir_expr_to_str(__stir_keep const stir_expr *e);

#ifdef __cplusplus
}
#endif
#endif
