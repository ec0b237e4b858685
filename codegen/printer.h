/* A growing text buffer for the code generator, in the manner of isl's
 * printer: output is appended through it, never into fixed buffers, and
 * running out of memory is remembered (a sticky flag) so that a long chain
 * of appends is checked once, at the end. */
#ifndef STIR_CODEGEN_PRINTER_H
#define STIR_CODEGEN_PRINTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stir/ctx.h>

typedef struct cg_printer {
	char *s;               /* owned, NUL-terminated once anything is put */
	size_t len;            /* bytes used, without the NUL */
	size_t cap;            /* bytes allocated */
	bool failed;           /* sticky: memory ran out */
	int indent;            /* current nesting depth (two spaces each) */
} cg_printer;

/* p: an empty printer at depth "indent". */
void cg_printer_init(cg_printer *p, int indent);
/* p: free the text. */
void cg_printer_release(cg_printer *p);
/* p, s, n: append n bytes of s. */
void cg_putn(cg_printer *p, const char *s, size_t n);
/* p, s: append the string s. */
void cg_put(cg_printer *p, const char *s);
/* p, fmt: append printf-style output. */
void cg_putf(cg_printer *p, const char *fmt, ...) STIR_PRINTF(2, 3);
/* p: start a line at the current depth. */
void cg_indent(cg_printer *p);
/* p, fmt: a whole line at the current depth, newline added. */
void cg_line(cg_printer *p, const char *fmt, ...) STIR_PRINTF(2, 3);
/* p, q: append the text of q (q is left as it is). */
void cg_append(cg_printer *p, const cg_printer *q);
/* p: the text, handed to the caller (NULL when memory ran out; the
 * printer is released either way). */
char *cg_printer_finish(cg_printer *p);
/* p: the text so far ("" when empty), borrowed. */
const char *cg_text(const cg_printer *p);

#endif
