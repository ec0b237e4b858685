/* Reading programs (include/stir/lang.h): register the text with the
 * context (so that diagnostics show source lines), parse, build, verify.
 * Any error gives NULL, with nothing left allocated but the diagnostics. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strerror_r returning the message */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/io.h>
#include <stir/lang.h>
#include "formats/io_internal.h"
#include "lang/ast.h"
#include "lang/c_locale.h"
#include "ir/nodes.h"

/* ctx, file, text, len: parse and build in the C locale.  NULL when any
 * error was reported. */
static stir_module *parse_and_build(stir_ctx *ctx, const char *file,
	const char *text, size_t len)
{
	lang_parser p;
	lang_parser_init(&p, ctx, file);
	lang_c_locale l;
	lang_c_locale_enter(&l);
	lang_list *kernels = lang_parse(&p, text, len);
	lang_c_locale_leave(&l);
	stir_module *m = kernels ? lang_build(ctx, kernels) : NULL;
	lang_parser_release(&p);
	return m;
}

/* ctx, file (NULL: "<string>"), text, len: see lang.h.  The text is
 * registered so that diagnostics show its lines. */
stir_module *stir_module_read_from_mem(stir_ctx *ctx, const char *file,
	const char *text, size_t len)
{
	if (!ctx)
		return NULL;
	if (!text)
		text = "", len = 0;
	const char *name = stir_ctx_add_source(ctx, file ? file : "<string>",
		text, len);
	if (!name)
		return stir_error_oom(ctx);
	/* a control byte (a NUL) is named where it is, not met by the
	 * scanner as a puzzling token */
	if (stir_io_check_text(ctx, name, text, len, "program") < 0)
		return NULL;
	int errors = stir_ctx_n_errors(ctx);
	stir_module *m = parse_and_build(ctx, name, text, len);
	if (m && (stir_module_verify(m) < 0 || stir_ctx_n_errors(ctx) > errors)) {
		stir_module_free(m);
		m = NULL;
	}
	return m;
}

/* ctx, path: read the whole file (at most STIR_IO_TEXT_LIMIT bytes, after
 * decompression: an endless input stops there), then as
 * stir_module_read_from_mem with the path as the file name. */
stir_module *stir_module_read_from_file(stir_ctx *ctx, const char *path)
{
	if (!ctx || !path)
		return NULL;
	size_t len;
	char *text;
	if (stir_io_read_text(ctx, path, "program", STIR_IO_TEXT_LIMIT, &text,
	    &len) < 0)
		return NULL;
	stir_module *m = stir_module_read_from_mem(ctx, path, text, len);
	free(text);
	return m;
}
