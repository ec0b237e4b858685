/* The code generator's growing text buffer; see printer.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codegen/printer.h"

/* p, indent: see printer.h (so for every function of this file). */
void cg_printer_init(cg_printer *p, int indent)
{
	memset(p, 0, sizeof(*p));
	p->indent = indent;
}

/* p: the printer whose text to free. */
void cg_printer_release(cg_printer *p)
{
	free(p->s);
	p->s = NULL;
	p->len = p->cap = 0;
}

/* p, extra: make room for "extra" more bytes and the NUL.  false when
 * memory ran out (now or before). */
static bool reserve(cg_printer *p, size_t extra)
{
	if (p->failed)
		return false;
	if (extra > SIZE_MAX / 4 - p->len) {
		p->failed = true;
		return false;
	}
	if (p->len + extra + 1 <= p->cap)
		return true;
	size_t cap = p->cap ? p->cap : 256;
	while (cap < p->len + extra + 1)
		cap *= 2;
	char *s = realloc(p->s, cap);
	if (!s) {
		p->failed = true;
		return false;
	}
	p->s = s;
	p->cap = cap;
	return true;
}

/* p, s, n: append n bytes. */
void cg_putn(cg_printer *p, const char *s, size_t n)
{
	if (!reserve(p, n))
		return;
	memcpy(p->s + p->len, s, n);
	p->len += n;
	p->s[p->len] = '\0';
}

/* p, s: append a string. */
void cg_put(cg_printer *p, const char *s)
{
	cg_putn(p, s, strlen(s));
}

/* p, fmt, ap: the body of cg_putf and cg_line. */
static void vputf(cg_printer *p, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0) {
		p->failed = true;
		return;
	}
	if (!reserve(p, (size_t)n))
		return;
	vsnprintf(p->s + p->len, (size_t)n + 1, fmt, ap);
	p->len += (size_t)n;
}

/* p, fmt: append formatted text. */
void cg_putf(cg_printer *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vputf(p, fmt, ap);
	va_end(ap);
}

/* p: the current depth's indentation. */
void cg_indent(cg_printer *p)
{
	for (int i = 0; i < p->indent; i++)
		cg_putn(p, "  ", 2);
}

/* p, fmt: a whole line. */
void cg_line(cg_printer *p, const char *fmt, ...)
{
	va_list ap;
	cg_indent(p);
	va_start(ap, fmt);
	vputf(p, fmt, ap);
	va_end(ap);
	cg_putn(p, "\n", 1);
}

/* p, q: append q's text. */
void cg_append(cg_printer *p, const cg_printer *q)
{
	if (q->failed)
		p->failed = true;
	else if (q->len)
		cg_putn(p, q->s, q->len);
}

/* p: hand the text over. */
char *cg_printer_finish(cg_printer *p)
{
	cg_putn(p, "", 0);
	if (p->failed) {
		cg_printer_release(p);
		return NULL;
	}
	char *s = p->s;
	p->s = NULL;
	p->len = p->cap = 0;
	return s;
}

/* p: the text so far. */
const char *cg_text(const cg_printer *p)
{
	return p->s ? p->s : "";
}
