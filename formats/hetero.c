/* The relational graph reader: ".hetero" files into per-relation CSR.
 *
 * Accepted (the shared format, ../shared/data/README.md): line 1
 *   %%hetero <nodes> <edges> <relations>
 * then exactly <edges> lines "src dst relation", 0-based, separated by
 * blanks, and nothing else (a final line break is optional).  The file's
 * (src, dst, relation) order is not relied on.
 *
 * An edge src -> dst of relation r is entry A[r, dst, src]: messages go
 * to the destination, as in RGCN (Y[dst] += W[r] X[src]).  Relation r's
 * rows are the distinct destinations with an edge of r, ascending, and
 * each row's columns the sources, ascending; a repeated triple is one
 * entry whose value counts it (1.0 otherwise).  This is the layout of the
 * axes R, I = sparse_variable(R), J = sparse_variable(I) of
 * examples/rgms.stir.
 *
 * The file is read as a stream (gzip decompressed on the fly); memory
 * grows with the edges read, never with what the header declares, except
 * the per-relation offsets (relations are bounded by HETERO_MAX_RELS).
 * Every error names the file, line and column at fault.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stir/io.h>
#include "formats/io_internal.h"
#include "ir/diag.h"

/* The longest line read (a data line is three integers). */
#define HETERO_MAX_LINE 256

/* The most relations a header may declare (the offsets are allocated from
 * it before any edge is read). */
#define HETERO_MAX_RELS ((int64_t)1 << 24)

/* One edge while sorting: relation, destination (row), source (column). */
typedef struct hetero_edge {
	int64_t rel, dst, src;
} hetero_edge;

/* The state of one read. */
typedef struct hetero_reader {
	stir_ctx *ctx;          /* borrowed: receives the diagnostics */
	const char *name;       /* borrowed: the file name */
	stir_io_stream *in;     /* borrowed: the plain bytes */
	const uint8_t *chunk;   /* borrowed from "in": bytes not yet used */
	size_t chunk_len, chunk_pos;
	bool eof;               /* whether "in" has ended */
	bool last_nl;           /* whether the text read ends with '\n' */
	int lineno;             /* 1-based number of the current line */
	char line[HETERO_MAX_LINE + 1]; /* the current line, NUL-terminated */
	size_t line_len;
	size_t at;              /* next unread byte of the line */
} hetero_reader;

/* r: the reader; col: 1-based column (0: the whole line); fmt: the
 * message.  An error at the current line; returns -1. */
static int hetero_error(hetero_reader *r, int col, const char *fmt, ...)
	STIR_PRINTF(3, 4);
static int hetero_error(hetero_reader *r, int col, const char *fmt, ...)
{
	stir_loc loc = { r->name, r->lineno, col };
	va_list ap;
	va_start(ap, fmt);
	stir_ctx_vreport(r->ctx, STIR_ERROR, loc, fmt, ap);
	va_end(ap);
	return -1;
}

/* r: the reader.  Read the next line into r->line: 1 with a line, 0 at
 * the end of the text, -1 on an error (reported). */
static int next_line(hetero_reader *r)
{
	size_t n = 0;
	bool any = false;
	while (!r->eof) {
		if (r->chunk_pos == r->chunk_len) {
			int k = stir_io_next(r->in, &r->chunk, &r->chunk_len);
			r->chunk_pos = 0;
			if (k < 0)
				return -1;
			if (k == 0) {
				r->eof = true;
				break;
			}
		}
		const uint8_t *p = r->chunk + r->chunk_pos;
		size_t avail = r->chunk_len - r->chunk_pos;
		const uint8_t *nl = memchr(p, '\n', avail);
		size_t take = nl ? (size_t)(nl - p) : avail;
		any = true;
		if (n + take > HETERO_MAX_LINE) {
			if (r->lineno < INT32_MAX)
				r->lineno++;
			r->line_len = 0;
			return hetero_error(r, HETERO_MAX_LINE + 1,
				"line longer than %d bytes", HETERO_MAX_LINE);
		}
		memcpy(r->line + n, p, take);
		n += take;
		r->chunk_pos += take + (nl ? 1 : 0);
		r->last_nl = nl != NULL;
		if (nl)
			break;
	}
	if (!any)
		return 0;
	if (n > 0 && r->line[n - 1] == '\r')
		n--;
	r->line[n] = '\0';
	r->line_len = n;
	r->at = 0;
	if (r->lineno < INT32_MAX)
		r->lineno++;
	return 1;
}

/* r: the reader; what: what the number is ("source node"); *v: the value;
 * max: the exclusive bound on the value (negative: none, and why is
 * unused); why: the bound's name.  Read a non-negative
 * decimal integer after blanks.  0 or -1 with an error at its column. */
static int read_int(hetero_reader *r, const char *what, int64_t *v,
	int64_t max, const char *why)
{
	while (r->at < r->line_len &&
	       (r->line[r->at] == ' ' || r->line[r->at] == '\t'))
		r->at++;
	int col = (int)r->at + 1;
	if (r->at == r->line_len)
		return hetero_error(r, col, "expected the %s", what);
	int64_t x = 0;
	size_t start = r->at;
	while (r->at < r->line_len && r->line[r->at] >= '0' &&
	       r->line[r->at] <= '9') {
		int d = r->line[r->at++] - '0';
		if (x > (INT64_MAX - d) / 10)
			return hetero_error(r, col, "%s out of range", what);
		x = x * 10 + d;
	}
	char c = r->line[r->at];
	if (r->at == start || (c != '\0' && c != ' ' && c != '\t'))
		return hetero_error(r, col, "expected the %s (a non-negative "
			"integer), found '%.40s'", what, r->line + start);
	if (max >= 0 && x >= max)
		return hetero_error(r, col, "%s %" PRId64 " out of range: the "
			"header declares %" PRId64 " %s", what, x, max, why);
	*v = x;
	return 0;
}

/* r: the reader.  0 when only blanks are left on the line, else -1 with
 * an error. */
static int expect_end(hetero_reader *r)
{
	while (r->at < r->line_len &&
	       (r->line[r->at] == ' ' || r->line[r->at] == '\t'))
		r->at++;
	if (r->at < r->line_len)
		return hetero_error(r, (int)r->at + 1, "unexpected '%.40s' at "
			"the end of the line", r->line + r->at);
	return 0;
}

/* a, b: two hetero_edge; order by relation, destination, source. */
static int edge_cmp(const void *a, const void *b)
{
	const hetero_edge *x = a, *y = b;
	if (x->rel != y->rel)
		return x->rel < y->rel ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return (x->src > y->src) - (x->src < y->src);
}

/* ctx: diagnostics; e, n: the edges (sorted here); nodes, rels: the
 * header's counts.  The graph, or NULL (out of memory, reported). */
static stir_hetero *build(stir_ctx *ctx, hetero_edge *e, int64_t n,
	int64_t nodes, int64_t rels)
{
	if (n > 1)
		qsort(e, (size_t)n, sizeof(*e), edge_cmp);
	stir_hetero *h = calloc(1, sizeof(*h));
	if (!h)
		goto oom;
	h->nnodes = nodes;
	h->nrels = rels;
	h->nedges = n;
	int64_t rows = 0, nnz = 0;
	for (int64_t i = 0; i < n; i++) {
		bool same = i > 0 && e[i].rel == e[i - 1].rel &&
			e[i].dst == e[i - 1].dst;
		rows += !same;
		nnz += !(same && e[i].src == e[i - 1].src);
	}
	h->nrows = rows;
	h->nnz = nnz;
	h->rel_ptr = calloc((size_t)rels + 1, sizeof(int64_t));
	h->rows = malloc(((size_t)rows + 1) * sizeof(int64_t));
	h->row_ptr = malloc(((size_t)rows + 1) * sizeof(int64_t));
	h->cols = malloc(((size_t)nnz + 1) * sizeof(int64_t));
	h->values = malloc(((size_t)nnz + 1) * sizeof(double));
	if (!h->rel_ptr || !h->rows || !h->row_ptr || !h->cols || !h->values)
		goto oom;
	int64_t row = -1, k = -1;
	for (int64_t i = 0; i < n; i++) {
		bool same = i > 0 && e[i].rel == e[i - 1].rel &&
			e[i].dst == e[i - 1].dst;
		if (!same) {
			h->rows[++row] = e[i].dst;
			h->row_ptr[row] = k + 1;
			h->rel_ptr[e[i].rel + 1]++;
		}
		if (same && e[i].src == e[i - 1].src) {
			h->values[k] += 1.0;
		} else {
			h->cols[++k] = e[i].src;
			h->values[k] = 1.0;
		}
	}
	h->row_ptr[rows] = nnz;
	for (int64_t r = 0; r < rels; r++)
		h->rel_ptr[r + 1] += h->rel_ptr[r];
	return h;
oom:
	stir_hetero_free(h);
	stir_error_oom(ctx);
	return NULL;
}

/* r: the reader.  The graph, or NULL with a diagnostic. */
static stir_hetero *read_hetero(hetero_reader *r)
{
	int k = next_line(r);
	if (k <= 0) {
		if (k == 0) {
			r->lineno = 1;
			hetero_error(r, 0, "empty file: expected the header "
				"'%%%%hetero <nodes> <edges> <relations>'");
		}
		return NULL;
	}
	const char *magic = "%%hetero";
	size_t ml = strlen(magic);
	if (strncmp(r->line, magic, ml) != 0 ||
	    (r->line[ml] != ' ' && r->line[ml] != '\t')) {
		hetero_error(r, 1, "bad header: expected '%%%%hetero <nodes> "
			"<edges> <relations>'");
		return NULL;
	}
	r->at = ml;
	int64_t nodes, edges, rels;
	if (read_int(r, "node count", &nodes, -1, NULL) < 0 ||
	    read_int(r, "edge count", &edges, -1, NULL) < 0 ||
	    read_int(r, "relation count", &rels, -1, NULL) < 0 ||
	    expect_end(r) < 0)
		return NULL;
	if (nodes > INT32_MAX) {
		hetero_error(r, 0, "%" PRId64 " nodes: at most 2^31 - 1 are "
			"read", nodes);
		return NULL;
	}
	if (rels > HETERO_MAX_RELS) {
		hetero_error(r, 0, "%" PRId64 " relations: at most %" PRId64
			" are read", rels, HETERO_MAX_RELS);
		return NULL;
	}
	hetero_edge *e = NULL;
	int64_t n = 0, cap = 0;
	stir_hetero *h = NULL;
	while ((k = next_line(r)) > 0) {
		if (n == edges) {
			hetero_error(r, 1, "more edge lines than the %" PRId64
				" the header declares", edges);
			goto out;
		}
		if (n == cap) {
			int64_t nc = cap ? cap * 2 : 1024;
			hetero_edge *ne = realloc(e, (size_t)nc * sizeof(*e));
			if (!ne) {
				stir_error_oom(r->ctx);
				goto out;
			}
			e = ne;
			cap = nc;
		}
		hetero_edge *x = &e[n];
		if (read_int(r, "source node", &x->src, nodes, "nodes") < 0 ||
		    read_int(r, "destination node", &x->dst, nodes,
			    "nodes") < 0 ||
		    read_int(r, "relation", &x->rel, rels, "relations") < 0 ||
		    expect_end(r) < 0)
			goto out;
		n++;
	}
	if (k < 0)
		goto out;
	if (n < edges) {
		if (r->last_nl && r->lineno < INT32_MAX)
			r->lineno++;
		hetero_error(r, 0, "file ends after %" PRId64 " of the %" PRId64
			" edges the header declares", n, edges);
		goto out;
	}
	h = build(r->ctx, e, n, nodes, rels);
out:
	free(e);
	return h;
}

/* in: the opened stream (closed here; NULL: could not be opened, with a
 * diagnostic); ctx: diagnostics.  The graph or NULL. */
static stir_hetero *read_stream(stir_io_stream *in, stir_ctx *ctx)
{
	if (!in)
		return NULL;
	hetero_reader *r = calloc(1, sizeof(*r));
	stir_hetero *h = NULL;
	if (!r) {
		stir_error_oom(ctx);
	} else {
		r->ctx = ctx;
		r->name = stir_io_name(in);
		r->in = in;
		r->last_nl = true;
		h = read_hetero(r);
	}
	free(r);
	stir_io_close(in);
	return h;
}

/* ctx: diagnostics; path: the file (plain or gzip). */
stir_hetero *stir_hetero_read_from_file(stir_ctx *ctx, const char *path)
{
	return read_stream(stir_io_open(ctx, path), ctx);
}

/* ctx: diagnostics; name: the name diagnostics use; data, len: the
 * file's bytes, plain or gzip. */
stir_hetero *stir_hetero_read_from_mem(stir_ctx *ctx, const char *name,
	const void *data, size_t len)
{
	return read_stream(stir_io_open_mem(ctx, name, data, len), ctx);
}

/* h: the graph to free (NULL is fine). */
void stir_hetero_free(stir_hetero *h)
{
	if (!h)
		return;
	free(h->rel_ptr);
	free(h->rows);
	free(h->row_ptr);
	free(h->cols);
	free(h->values);
	free(h);
}
