/* Short names for reporting diagnostics inside the library. */
#ifndef STIR_IR_DIAG_H
#define STIR_IR_DIAG_H

#include <stir/ctx.h>

#define stir_error(ctx, loc, ...) \
	stir_ctx_report((ctx), STIR_ERROR, (loc), __VA_ARGS__)
#define stir_warning(ctx, loc, ...) \
	stir_ctx_report((ctx), STIR_WARNING, (loc), __VA_ARGS__)

/* A location that names no place. */
static inline stir_loc stir_loc_none(void)
{
	stir_loc l = { 0, 0, 0 };
	return l;
}

/* A location in "file" (interned) with no line. */
static inline stir_loc stir_loc_file(const char *file)
{
	stir_loc l = { file, 0, 0 };
	return l;
}

/* Give diagnostic d, reported with no line (a format builder's error,
 * which knows no file), the place "loc" where the caller met it; a
 * located d keeps its own. */
void stir_diag_locate(stir_diag *d, stir_loc loc);

/* Report that memory ran out; returns NULL for convenient tail calls. */
void *stir_error_oom(stir_ctx *ctx);

#endif
