/* stir: the context and its diagnostics.
 *
 * A context collects every diagnostic the library produces.  The library
 * never prints and never exits: a function that fails returns NULL or a
 * negative value and leaves one or more errors in its context; the caller
 * decides whether and where to print them.
 */
#ifndef STIR_CTX_H
#define STIR_CTX_H

#include <stdarg.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Ownership annotations, in the manner of isl:
 * __stir_give: the caller receives ownership of the returned object;
 * __stir_take: the function takes ownership of the argument;
 * __stir_keep: the function only borrows the argument. */
#define __stir_give
#define __stir_take
#define __stir_keep

#if defined(__GNUC__) && defined(STIR_BUILDING_LIBRARY)
#define STIR_EXPORT __attribute__((visibility("default")))
#else
#define STIR_EXPORT
#endif

#if defined(__GNUC__)
#define STIR_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define STIR_PRINTF(fmt, args)
#endif

typedef struct stir_ctx stir_ctx;
typedef struct stir_diag stir_diag;

/* A source location.  "file" is owned by the context (interned); a location
 * with line 0 names no place in a file. Lines and columns count from 1. */
typedef struct stir_loc {
	const char *file; /* interned in the context, or NULL */
	int line;         /* 1-based; 0 when unknown */
	int col;          /* 1-based; 0 when unknown */
} stir_loc;

typedef enum stir_severity {
	STIR_NOTE,
	STIR_WARNING,
	STIR_ERROR,
} stir_severity;

STIR_EXPORT __stir_give stir_ctx *stir_ctx_alloc(void);
STIR_EXPORT void stir_ctx_free(__stir_take stir_ctx *ctx);

/* Number of diagnostics collected so far (notes attached to a diagnostic
 * are not counted separately), and how many of them are errors. */
STIR_EXPORT int stir_ctx_n_diagnostics(__stir_keep const stir_ctx *ctx);
STIR_EXPORT int stir_ctx_n_errors(__stir_keep const stir_ctx *ctx);
STIR_EXPORT __stir_keep const stir_diag *stir_ctx_get_diagnostic(
	__stir_keep const stir_ctx *ctx, int i);
/* Forget every collected diagnostic. */
STIR_EXPORT void stir_ctx_clear_diagnostics(__stir_keep stir_ctx *ctx);

STIR_EXPORT stir_severity stir_diag_get_severity(__stir_keep const stir_diag *d);
STIR_EXPORT stir_loc stir_diag_get_loc(__stir_keep const stir_diag *d);
STIR_EXPORT const char *stir_diag_get_message(__stir_keep const stir_diag *d);
STIR_EXPORT int stir_diag_n_notes(__stir_keep const stir_diag *d);
STIR_EXPORT __stir_keep const stir_diag *stir_diag_get_note(
	__stir_keep const stir_diag *d, int i);

/* Remember the text of a source file so that diagnostics in it can show the
 * source line and a caret.  Returns the interned file name. */
STIR_EXPORT const char *stir_ctx_add_source(__stir_keep stir_ctx *ctx,
	const char *file, const char *text, size_t len);

/* Format every diagnostic gcc-style:
 *   FILE:LINE:COL: error: MESSAGE
 *    LINE-TEXT
 *       ^
 * followed by its notes.  Returns a string the caller frees, or NULL when
 * memory runs out. */
STIR_EXPORT __stir_give char *stir_ctx_diagnostics_to_str(
	__stir_keep const stir_ctx *ctx);
/* Write the same text to "out".  Returns the number of errors. */
STIR_EXPORT int stir_ctx_print_diagnostics(__stir_keep const stir_ctx *ctx,
	FILE *out);

/* Report a diagnostic.  The returned handle may receive notes; it belongs to
 * the context. */
STIR_EXPORT __stir_keep stir_diag *stir_ctx_report(__stir_keep stir_ctx *ctx,
	stir_severity severity, stir_loc loc, const char *fmt, ...)
	STIR_PRINTF(4, 5);
STIR_EXPORT __stir_keep stir_diag *stir_ctx_vreport(__stir_keep stir_ctx *ctx,
	stir_severity severity, stir_loc loc, const char *fmt, va_list ap);
/* Attach a note to "d" (which may be NULL, in which case nothing happens). */
STIR_EXPORT void stir_diag_add_note(__stir_keep stir_diag *d, stir_loc loc,
	const char *fmt, ...) STIR_PRINTF(3, 4);

/* Run fn(arg, i) for every i of 0 .. n-1, each once and in no set order, on
 * a thread per processor (at most n, this thread among them; one after
 * another when no thread starts), and return when all are done.  A context
 * is not shared between threads: fn gives each item a context of its own
 * (stir_ctx_alloc). */
STIR_EXPORT void stir_parallel_for(int n, void (*fn)(void *arg, int i),
	void *arg);

/* Intern a string in the context: equal strings give the same pointer, which
 * lives as long as the context. NULL when memory runs out. */
STIR_EXPORT const char *stir_ctx_intern(__stir_keep stir_ctx *ctx,
	const char *s);

#ifdef __cplusplus
}
#endif
#endif
