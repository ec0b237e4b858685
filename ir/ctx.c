/* The context: diagnostics, remembered source texts and interned strings.
 *
 * Everything here is allocated with malloc and freed with the context.
 * When memory runs out while reporting, the diagnostic is dropped but the
 * error count still grows, so a failure is never silently lost. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* vasprintf; nothing includes config.h */
#endif
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stir/ctx.h>
#include "ir/diag.h"

struct stir_diag {
	stir_severity severity;
	stir_loc loc;
	char *message;        /* owned */
	int n_notes;
	stir_diag **notes;    /* owned array of owned notes */
};

typedef struct source {
	const char *file;     /* interned */
	char *text;           /* owned copy */
	size_t len;
} source;

typedef struct intern_entry {
	char *s;              /* owned */
	uint64_t hash;
} intern_entry;

struct stir_ctx {
	int n_diags, cap_diags;
	stir_diag **diags;    /* owned */
	int n_errors;         /* also counts errors dropped for lack of memory */
	int n_sources, cap_sources;
	source *sources;      /* owned */
	size_t n_interned, cap_interned;
	intern_entry *interned; /* open addressing, cap a power of two */
};

/* Allocate an empty context; NULL when memory runs out. */
stir_ctx *stir_ctx_alloc(void)
{
	return calloc(1, sizeof(stir_ctx));
}

/* d: a diagnostic whose memory (and its notes') is released. */
static void diag_free(stir_diag *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->n_notes; i++)
		diag_free(d->notes[i]);
	free(d->notes);
	free(d->message);
	free(d);
}

/* ctx: the context to free, with everything it owns. */
void stir_ctx_free(stir_ctx *ctx)
{
	if (!ctx)
		return;
	stir_ctx_clear_diagnostics(ctx);
	free(ctx->diags);
	for (int i = 0; i < ctx->n_sources; i++)
		free(ctx->sources[i].text);
	free(ctx->sources);
	for (size_t i = 0; i < ctx->cap_interned; i++)
		free(ctx->interned[i].s);
	free(ctx->interned);
	free(ctx);
}

int stir_ctx_n_diagnostics(const stir_ctx *ctx)
{
	return ctx->n_diags;
}

int stir_ctx_n_errors(const stir_ctx *ctx)
{
	return ctx->n_errors;
}

const stir_diag *stir_ctx_get_diagnostic(const stir_ctx *ctx, int i)
{
	return i >= 0 && i < ctx->n_diags ? ctx->diags[i] : NULL;
}

void stir_ctx_clear_diagnostics(stir_ctx *ctx)
{
	for (int i = 0; i < ctx->n_diags; i++)
		diag_free(ctx->diags[i]);
	ctx->n_diags = 0;
	ctx->n_errors = 0;
}

stir_severity stir_diag_get_severity(const stir_diag *d)
{
	return d->severity;
}

stir_loc stir_diag_get_loc(const stir_diag *d)
{
	return d->loc;
}

const char *stir_diag_get_message(const stir_diag *d)
{
	return d->message;
}

int stir_diag_n_notes(const stir_diag *d)
{
	return d->n_notes;
}

const stir_diag *stir_diag_get_note(const stir_diag *d, int i)
{
	return i >= 0 && i < d->n_notes ? d->notes[i] : NULL;
}

/* FNV-1a hash of s. */
static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* ctx: the context whose intern table doubles in size.  0 or -1. */
static int intern_grow(stir_ctx *ctx)
{
	size_t cap = ctx->cap_interned ? 2 * ctx->cap_interned : 64;
	intern_entry *t = calloc(cap, sizeof(*t));
	if (!t)
		return -1;
	for (size_t i = 0; i < ctx->cap_interned; i++) {
		intern_entry *e = &ctx->interned[i];
		if (!e->s)
			continue;
		size_t j = e->hash & (cap - 1);
		while (t[j].s)
			j = (j + 1) & (cap - 1);
		t[j] = *e;
	}
	free(ctx->interned);
	ctx->interned = t;
	ctx->cap_interned = cap;
	return 0;
}

/* ctx: the context; s: the string to intern. */
const char *stir_ctx_intern(stir_ctx *ctx, const char *s)
{
	if (!s)
		return NULL;
	if (2 * (ctx->n_interned + 1) > ctx->cap_interned && intern_grow(ctx) < 0)
		return NULL;
	uint64_t h = hash_str(s);
	size_t mask = ctx->cap_interned - 1;
	size_t j = h & mask;
	while (ctx->interned[j].s) {
		if (ctx->interned[j].hash == h && !strcmp(ctx->interned[j].s, s))
			return ctx->interned[j].s;
		j = (j + 1) & mask;
	}
	char *copy = strdup(s);
	if (!copy)
		return NULL;
	ctx->interned[j].s = copy;
	ctx->interned[j].hash = h;
	ctx->n_interned++;
	return copy;
}

/* ctx: the context; file: the file's name; text, len: its contents.  A file
 * added twice keeps its latest text. */
const char *stir_ctx_add_source(stir_ctx *ctx, const char *file,
	const char *text, size_t len)
{
	const char *name = stir_ctx_intern(ctx, file);
	if (!name)
		return NULL;
	char *copy = malloc(len + 1);
	if (!copy)
		return name;
	memcpy(copy, text, len);
	copy[len] = '\0';
	for (int i = 0; i < ctx->n_sources; i++) {
		if (ctx->sources[i].file == name) {
			free(ctx->sources[i].text);
			ctx->sources[i].text = copy;
			ctx->sources[i].len = len;
			return name;
		}
	}
	if (ctx->n_sources == ctx->cap_sources) {
		int cap = ctx->cap_sources ? 2 * ctx->cap_sources : 4;
		source *s = realloc(ctx->sources, (size_t)cap * sizeof(*s));
		if (!s) {
			free(copy);
			return name;
		}
		ctx->sources = s;
		ctx->cap_sources = cap;
	}
	ctx->sources[ctx->n_sources].file = name;
	ctx->sources[ctx->n_sources].text = copy;
	ctx->sources[ctx->n_sources].len = len;
	ctx->n_sources++;
	return name;
}

/* severity, loc, fmt, ap: the diagnostic to build.  NULL when memory runs
 * out. */
static stir_diag *diag_new(stir_ctx *ctx, stir_severity severity, stir_loc loc,
	const char *fmt, va_list ap)
{
	stir_diag *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	if (vasprintf(&d->message, fmt, ap) < 0) {
		free(d);
		return NULL;
	}
	d->severity = severity;
	if (loc.file)
		loc.file = stir_ctx_intern(ctx, loc.file);
	d->loc = loc;
	return d;
}

stir_diag *stir_ctx_vreport(stir_ctx *ctx, stir_severity severity, stir_loc loc,
	const char *fmt, va_list ap)
{
	if (severity == STIR_ERROR)
		ctx->n_errors++;
	stir_diag *d = diag_new(ctx, severity, loc, fmt, ap);
	if (!d)
		return NULL;
	if (ctx->n_diags == ctx->cap_diags) {
		int cap = ctx->cap_diags ? 2 * ctx->cap_diags : 8;
		stir_diag **v = realloc(ctx->diags, (size_t)cap * sizeof(*v));
		if (!v) {
			diag_free(d);
			return NULL;
		}
		ctx->diags = v;
		ctx->cap_diags = cap;
	}
	ctx->diags[ctx->n_diags++] = d;
	return d;
}

stir_diag *stir_ctx_report(stir_ctx *ctx, stir_severity severity, stir_loc loc,
	const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	stir_diag *d = stir_ctx_vreport(ctx, severity, loc, fmt, ap);
	va_end(ap);
	return d;
}

/* d: the diagnostic receiving a note (nothing happens when NULL). The
 * note's file name is kept as given: callers pass interned names. */
void stir_diag_add_note(stir_diag *d, stir_loc loc, const char *fmt, ...)
{
	if (!d)
		return;
	stir_diag *n = calloc(1, sizeof(*n));
	if (!n)
		return;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&n->message, fmt, ap);
	va_end(ap);
	if (r < 0) {
		free(n);
		return;
	}
	n->severity = STIR_NOTE;
	n->loc = loc;
	stir_diag **v = realloc(d->notes, (size_t)(d->n_notes + 1) * sizeof(*v));
	if (!v) {
		diag_free(n);
		return;
	}
	d->notes = v;
	d->notes[d->n_notes++] = n;
}

void *stir_error_oom(stir_ctx *ctx)
{
	stir_error(ctx, stir_loc_none(), "out of memory");
	return NULL;
}

/* A growable string for formatting diagnostics. */
typedef struct strbuf {
	char *s;
	size_t len, cap;
	int failed;
} strbuf;

static void sb_append(strbuf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->s, cap);
		if (!p) {
			b->failed = 1;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_printf(strbuf *b, const char *fmt, ...) STIR_PRINTF(2, 3);
static void sb_printf(strbuf *b, const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	sb_append(b, s, (size_t)n);
	free(s);
}

/* ctx, loc: find line loc.line of the remembered source of loc.file; sets
 * *start and *len.  0 when found, -1 otherwise. */
static int source_line(const stir_ctx *ctx, stir_loc loc, const char **start,
	size_t *len)
{
	for (int i = 0; i < ctx->n_sources; i++) {
		const source *s = &ctx->sources[i];
		if (s->file != loc.file)
			continue;
		const char *p = s->text, *end = s->text + s->len;
		for (int line = 1; line < loc.line && p < end; p++)
			if (*p == '\n')
				line++;
		if (p >= end && loc.line > 1)
			return -1;
		const char *q = p;
		while (q < end && *q != '\n')
			q++;
		if (q > p && q[-1] == '\r')
			q--;
		*start = p;
		*len = (size_t)(q - p);
		return 0;
	}
	return -1;
}

/* b, s, n: append n bytes of source text, each control byte but a tab
 * shown as '?': a NUL would end the formatted string early and hide the
 * diagnostics after it, and other control bytes would drive the terminal.
 * One byte for one keeps the caret under its column. */
static void sb_append_source(strbuf *b, const char *s, size_t n)
{
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			sb_append(b, s + start, i - start);
			sb_append(b, "?", 1);
			start = i + 1;
		}
	}
	sb_append(b, s + start, n - start);
}

static const char *severity_name(stir_severity s)
{
	switch (s) {
	case STIR_NOTE: return "note";
	case STIR_WARNING: return "warning";
	default: return "error";
	}
}

/* ctx, d, b: append diagnostic d (not its notes) to b. */
static void format_one(const stir_ctx *ctx, const stir_diag *d, strbuf *b)
{
	const stir_loc *l = &d->loc;
	if (l->file && l->line > 0)
		sb_printf(b, "%s:%d:%d: ", l->file, l->line, l->col > 0 ? l->col : 1);
	else if (l->file)
		sb_printf(b, "%s: ", l->file);
	sb_printf(b, "%s: %s\n", severity_name(d->severity), d->message);
	const char *line;
	size_t len;
	if (l->file && l->line > 0 && source_line(ctx, *l, &line, &len) == 0) {
		sb_append(b, " ", 1);
		sb_append_source(b, line, len);
		sb_append(b, "\n ", 2);
		/* keep tabs so the caret lines up with the source line */
		for (int c = 1; c < l->col && (size_t)(c - 1) < len; c++)
			sb_append(b, line[c - 1] == '\t' ? "\t" : " ", 1);
		sb_append(b, "^\n", 2);
	}
}

char *stir_ctx_diagnostics_to_str(const stir_ctx *ctx)
{
	strbuf b = { 0 };
	sb_append(&b, "", 0);
	for (int i = 0; i < ctx->n_diags; i++) {
		const stir_diag *d = ctx->diags[i];
		format_one(ctx, d, &b);
		for (int j = 0; j < d->n_notes; j++)
			format_one(ctx, d->notes[j], &b);
	}
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

int stir_ctx_print_diagnostics(const stir_ctx *ctx, FILE *out)
{
	char *s = stir_ctx_diagnostics_to_str(ctx);
	if (s) {
		fputs(s, out);
		free(s);
	} else {
		fprintf(out, "error: out of memory while formatting diagnostics\n");
	}
	return ctx->n_errors;
}

/* The items of one stir_parallel_for still to run. */
typedef struct parallel_items {
	void (*fn)(void *arg, int i);
	void *arg;
	int n, next;
	pthread_mutex_t mu;
} parallel_items;

/* arg: a parallel_items; run its items until none is left. */
static void *run_items(void *arg)
{
	parallel_items *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		int i = p->next++;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->n)
			return NULL;
		p->fn(p->arg, i);
	}
}

/* n, fn, arg: see ctx.h. */
void stir_parallel_for(int n, void (*fn)(void *arg, int i), void *arg)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int nt = cpus < n ? (int)(cpus > 0 ? cpus : 1) : n;
	pthread_t *t = nt > 1 ? malloc((size_t)(nt - 1) * sizeof(*t)) : NULL;
	parallel_items p = { .fn = fn, .arg = arg, .n = n,
		.mu = PTHREAD_MUTEX_INITIALIZER };
	int started = 0;
	while (t && started < nt - 1 && pthread_create(&t[started], NULL,
	    run_items, &p) == 0)
		started++;
	run_items(&p);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
}

/* d, loc: see diag.h. */
void stir_diag_locate(stir_diag *d, stir_loc loc)
{
	if (d && d->loc.line == 0 && loc.line > 0)
		d->loc = loc;
}
