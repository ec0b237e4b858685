/* Printing programs in their canonical form (docs/language.md, "Printed
 * form", and docs/ir.md for stages II and III): deterministic, two-space
 * indentation, one declaration or statement per line, every block's body
 * on its own lines, and the fewest parentheses that read back as the same
 * tree.  Reading the text
 * gives an equal module (stir_module_is_equal), and printing that again
 * gives the same text.  Output grows in a heap string; memory running out
 * is remembered and turns the result into NULL. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/lang.h>
#include "lang/ast.h"
#include "lang/c_locale.h"
#include "ir/nodes.h"
#include "ir/ops.h"
#include "ir/vector.h"

/* A growing string and where printing is. */
typedef struct printer {
	char *s;               /* owned, NUL-terminated */
	size_t len, cap;
	bool failed;           /* memory ran out: the result is NULL */
	int indent;            /* current nesting depth */
	bool staged;           /* printing a stage II or III kernel, whose
	                          text has the keywords of docs/ir.md too */
} printer;

/* pr, s, n: append n bytes of s. */
static void putn(printer *pr, const char *s, size_t n)
{
	if (pr->failed)
		return;
	if (pr->len + n + 1 > pr->cap) {
		size_t cap = pr->cap ? pr->cap : 256;
		while (cap < pr->len + n + 1)
			cap *= 2;
		char *p = realloc(pr->s, cap);
		if (!p) {
			pr->failed = true;
			return;
		}
		pr->s = p;
		pr->cap = cap;
	}
	memcpy(pr->s + pr->len, s, n);
	pr->len += n;
	pr->s[pr->len] = '\0';
}

/* pr, s: append the string s. */
static void put(printer *pr, const char *s)
{
	putn(pr, s, strlen(s));
}

/* pr, name: a name as the reader reads it back: between backquotes when
 * it is a keyword of the text being printed (a stage I name such as
 * "block" or "reads" is one in the stage II text of its kernel). */
static void put_name(printer *pr, const char *name)
{
	if (!lang_is_keyword(name, pr->staged)) {
		put(pr, name);
		return;
	}
	put(pr, "`");
	put(pr, name);
	put(pr, "`");
}

/* pr: start a line at the current indentation. */
static void put_indent(printer *pr)
{
	for (int i = 0; i < pr->indent; i++)
		put(pr, "  ");
}

/* pr: the printed text, handed to the caller, or NULL when memory ran out
 * at any point. */
static char *printer_finish(printer *pr)
{
	putn(pr, "", 0);
	if (pr->failed) {
		free(pr->s);
		return NULL;
	}
	return pr->s;
}

/* pr, v: a decimal integer. */
static void put_int(printer *pr, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	put(pr, buf);
}

/* pr, v: a float literal with the fewest significant digits that read
 * back as the same double, always recognizable as a float ("1.0", "1e+20",
 * "inf").  Runs in the C locale (see print_with). */
static void put_float(printer *pr, double v)
{
	if (isinf(v)) {
		put(pr, v < 0 ? "-inf" : "inf");
		return;
	}
	if (isnan(v)) {
		put(pr, "nan"); /* only the API makes these; no text reads as one */
		return;
	}
	char buf[64];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	put(pr, buf);
	if (!strpbrk(buf, ".e"))
		put(pr, ".0");
}

/* ---- expressions ---- */

/* e: whether e is a literal printed with a leading minus sign. */
static bool is_negative_literal(const stir_expr *e)
{
	if (e->kind == STIR_EXPR_INT)
		return e->dtype != STIR_BOOL && e->u.i < 0;
	return e->kind == STIR_EXPR_FLOAT && signbit(e->u.f) && !isnan(e->u.f);
}

/* e: how tightly e's printed form binds; a negative literal binds like a
 * negation, which is how it reads back. */
static int expr_prec(const stir_expr *e)
{
	switch (e ? e->kind : STIR_EXPR_VAR) {
	case STIR_EXPR_BINARY:
		return stir_binop_get(e->u.binary.op)->prec;
	case STIR_EXPR_SELECT:
		return STIR_PREC_SELECT;
	case STIR_EXPR_UNARY:
		return STIR_PREC_UNARY;
	case STIR_EXPR_INT:
	case STIR_EXPR_FLOAT:
		return is_negative_literal(e) ? STIR_PREC_UNARY : STIR_PREC_PRIMARY;
	default:
		return STIR_PREC_PRIMARY;
	}
}

static void put_expr(printer *pr, const stir_expr *e);

/* pr, e, paren: e, in parentheses when paren holds. */
static void put_operand(printer *pr, const stir_expr *e, bool paren)
{
	if (paren)
		put(pr, "(");
	put_expr(pr, e);
	if (paren)
		put(pr, ")");
}

/* pr, n, v: a comma-separated list of n expressions. */
static void put_expr_list(printer *pr, int n, stir_expr *const *v)
{
	for (int i = 0; i < n; i++) {
		if (i)
			put(pr, ", ");
		put_expr(pr, v ? v[i] : NULL);
	}
}

/* pr, e: a negation or logical not.  An operand that itself starts with a
 * minus goes in parentheses ("-(-x)") rather than reading as "--x". */
static void put_unary(printer *pr, const stir_expr *e)
{
	const stir_expr *a = e->u.unary.a;
	put(pr, stir_unop_text(e->u.unary.op));
	bool minus = a && e->u.unary.op == STIR_NEG &&
		((a->kind == STIR_EXPR_UNARY && a->u.unary.op == STIR_NEG) ||
		 is_negative_literal(a));
	put_operand(pr, a, minus || expr_prec(a) < STIR_PREC_UNARY);
}

/* pr, e: a binary operation; operators associate to the left, so a right
 * operand of the same level needs parentheses ("a - (b - c)"). */
static void put_binary(printer *pr, const stir_expr *e)
{
	int prec = stir_binop_get(e->u.binary.op)->prec;
	put_operand(pr, e->u.binary.a, expr_prec(e->u.binary.a) < prec);
	put(pr, " ");
	put(pr, stir_binop_get(e->u.binary.op)->text);
	put(pr, " ");
	put_operand(pr, e->u.binary.b, expr_prec(e->u.binary.b) <= prec);
}

/* pr, e: c ? a : b, which associates to the right. */
static void put_select(printer *pr, const stir_expr *e)
{
	put_operand(pr, e->u.select.c,
		expr_prec(e->u.select.c) <= STIR_PREC_SELECT);
	put(pr, " ? ");
	put_expr(pr, e->u.select.a);
	put(pr, " : ");
	put_expr(pr, e->u.select.b);
}

/* pr, e: any expression ("?" for a missing one, which only a broken
 * module built through the API can have). */
static void put_expr(printer *pr, const stir_expr *e)
{
	if (!e) {
		put(pr, "?");
		return;
	}
	switch (e->kind) {
	case STIR_EXPR_INT:
		if (e->dtype == STIR_BOOL)
			put(pr, e->u.i ? "true" : "false");
		else
			put_int(pr, e->u.i);
		break;
	case STIR_EXPR_FLOAT:
		put_float(pr, e->u.f);
		break;
	case STIR_EXPR_VAR:
		put_name(pr, e->u.var ? e->u.var->name : "?");
		break;
	case STIR_EXPR_LOAD:
		put_name(pr, e->u.load.buf ? e->u.load.buf->name : "?");
		put(pr, "[");
		put_expr_list(pr, e->u.load.n, e->u.load.idx);
		put(pr, "]");
		break;
	case STIR_EXPR_UNARY:
		put_unary(pr, e);
		break;
	case STIR_EXPR_BINARY:
		put_binary(pr, e);
		break;
	case STIR_EXPR_SELECT:
		put_select(pr, e);
		break;
	case STIR_EXPR_CALL:
		put(pr, stir_func_get(e->u.call.f)->name);
		put(pr, "(");
		put_expr_list(pr, e->u.call.n, e->u.call.args);
		put(pr, ")");
		break;
	case STIR_EXPR_CAST:
		put(pr, stir_dtype_get_name(e->dtype));
		put(pr, "(");
		put_expr(pr, e->u.cast.a);
		put(pr, ")");
		break;
	case STIR_EXPR_SEARCH:
		put(pr, stir_search_name(e->u.search.op));
		put(pr, "(");
		put_name(pr, e->u.search.buf ? e->u.search.buf->name : "?");
		put(pr, ", ");
		put_expr_list(pr, 3, (stir_expr *const[]){ e->u.search.lo,
			e->u.search.hi, e->u.search.x });
		put(pr, ")");
		break;
	}
}

/* ---- statements ---- */

static void put_stmt(printer *pr, const stir_stmt *s);

/* pr, body: the statements of a block, one level deeper, then the
 * indentation of its closing brace. */
static void put_block_body(printer *pr, const stir_ptr_vec *body)
{
	pr->indent++;
	for (int i = 0; i < body->n; i++)
		put_stmt(pr, stir_stmt_at(body, i));
	pr->indent--;
	put_indent(pr);
}

/* pr, s: X[..] op value; */
static void put_store(printer *pr, const stir_stmt *s)
{
	put_name(pr, s->u.store.buf ? s->u.store.buf->name : "?");
	put(pr, "[");
	put_expr_list(pr, s->u.store.n, s->u.store.idx);
	put(pr, "]");
	put(pr, " ");
	put(pr, stir_store_op_text(s->u.store.op));
	put(pr, " ");
	put_expr(pr, s->u.store.value);
	put(pr, ";\n");
}

/* pr, s: if (c) { .. } else { .. } from "if" to the last brace; an else
 * branch that is one if statement prints as "else if". */
static void put_if(printer *pr, const stir_stmt *s)
{
	put(pr, "if (");
	put_expr(pr, s->u.if_.cond);
	put(pr, ") {\n");
	put_block_body(pr, &s->u.if_.then_body);
	put(pr, "}");
	const stir_ptr_vec *els = &s->u.if_.else_body;
	if (els->n == 1 && stir_stmt_at(els, 0)->kind == STIR_STMT_IF) {
		put(pr, " else ");
		put_if(pr, stir_stmt_at(els, 0));
	} else if (els->n > 0) {
		put(pr, " else {\n");
		put_block_body(pr, els);
		put(pr, "}");
	}
}

/* pr, a: an axis by name ("?" for a missing one). */
static void put_axis_name(printer *pr, const stir_axis *a)
{
	put_name(pr, a ? a->name : "?");
}

/* pr, g: one entry of an iteration's axis list. */
static void put_group(printer *pr, const stir_iter_group *g)
{
	if (g->kind == STIR_GROUP_AXIS && g->n_axes == 1) {
		put_axis_name(pr, g->axes[0]);
		return;
	}
	put(pr, g->kind == STIR_GROUP_ATTACH ? "attach(" : "fuse(");
	for (int i = 0; i < g->n_axes; i++) {
		if (i)
			put(pr, ", ");
		put_axis_name(pr, g->axes[i]);
	}
	if (g->kind == STIR_GROUP_ATTACH) {
		put(pr, ", ");
		put_axis_name(pr, g->attach_parent);
	}
	if (g->coo)
		put(pr, ", coo = true");
	put(pr, ")");
}

/* pr, s: iter NAME (vars) in [groups] "kinds" { init { .. } body } */
static void put_iter(printer *pr, const stir_stmt *s)
{
	put(pr, "iter ");
	put_name(pr, s->u.iter.name);
	put(pr, " (");
	for (int i = 0; i < s->u.iter.n_vars; i++) {
		if (i)
			put(pr, ", ");
		put_name(pr, s->u.iter.vars[i]->name);
	}
	put(pr, ") in [");
	for (int i = 0; i < s->u.iter.n_groups; i++) {
		if (i)
			put(pr, ", ");
		put_group(pr, &s->u.iter.groups[i]);
	}
	put(pr, "] \"");
	put(pr, s->u.iter.kinds);
	put(pr, "\" {\n");
	pr->indent++;
	if (s->u.iter.init.n > 0) {
		put_indent(pr);
		put(pr, "init {\n");
		put_block_body(pr, &s->u.iter.init);
		put(pr, "}\n");
	}
	pr->indent--;
	put_block_body(pr, &s->u.iter.body);
	put(pr, "}");
}

/* pr, s: the vector plan of vectorized loop s, when it has one:
 * "(BUF[IDX] load store, ...)", "()" for none (docs/ir.md, "Vector
 * plans"). */
static void put_vec_plan(printer *pr, const stir_stmt *s)
{
	char flags[32];
	if (!s->u.for_.planned)
		return;
	put(pr, "(");
	for (int i = 0; i < s->u.for_.n_vecs; i++) {
		const stir_vec_note *n = &s->u.for_.vecs[i];
		if (i)
			put(pr, ", ");
		put_expr(pr, n->access);
		put(pr, " ");
		put(pr, stir_vec_flags_text(n->flags, flags, sizeof(flags)));
	}
	put(pr, ")");
}

/* pr, s: for VAR in [0, EXTENT) ANNOTATION { body } */
static void put_for(printer *pr, const stir_stmt *s)
{
	static const char *const threads[] = {
		[STIR_BLOCK_X] = "blockIdx.x", [STIR_BLOCK_Y] = "blockIdx.y",
		[STIR_BLOCK_Z] = "blockIdx.z", [STIR_THREAD_X] = "threadIdx.x",
		[STIR_THREAD_Y] = "threadIdx.y", [STIR_THREAD_Z] = "threadIdx.z",
	};
	put(pr, "for ");
	put_name(pr, s->u.for_.var ? s->u.for_.var->name : "?");
	put(pr, " in [0, ");
	put_expr(pr, s->u.for_.extent);
	put(pr, ")");
	switch (s->u.for_.kind) {
	case STIR_LOOP_SERIAL:
		break;
	case STIR_LOOP_UNROLL:
		put(pr, " unroll");
		break;
	case STIR_LOOP_VECTORIZE:
		put(pr, " vectorize");
		put_vec_plan(pr, s);
		break;
	case STIR_LOOP_PIPELINE:
		{
			char n[32];
			if (s->u.for_.batch > 1)
				snprintf(n, sizeof(n), " pipeline(%d, %d)",
					s->u.for_.stages, s->u.for_.batch);
			else
				snprintf(n, sizeof(n), " pipeline(%d)",
					s->u.for_.stages);
			put(pr, n);
		}
		break;
	case STIR_LOOP_TENSORIZE:
		put(pr, " tensorize(");
		put(pr, s->u.for_.intrinsic ? s->u.for_.intrinsic : "?");
		put(pr, ")");
		break;
	case STIR_LOOP_BIND:
		put(pr, " bind(");
		put(pr, (unsigned)s->u.for_.thread <= STIR_THREAD_Z ?
			threads[s->u.for_.thread] : "?");
		put(pr, ")");
		break;
	}
	put(pr, " {\n");
	put_block_body(pr, &s->u.for_.body);
	put(pr, "}");
}

/* pr, e: a bound of a region's range; a select goes in parentheses, so
 * that its ':' does not read as the range's. */
static void put_range_bound(printer *pr, const stir_expr *e)
{
	put_operand(pr, e, expr_prec(e) == STIR_PREC_SELECT);
}

/* pr, word, n, r: " reads(BUF[..], ..)" or " writes(..)"; nothing when
 * there are no regions.  A dimension prints as the point "E", the range
 * "LO:HI" or the whole ":". */
static void put_regions(printer *pr, const char *word, int n,
	const stir_region *r)
{
	if (n == 0)
		return;
	put(pr, " ");
	put(pr, word);
	put(pr, "(");
	for (int i = 0; i < n; i++) {
		if (i)
			put(pr, ", ");
		put_name(pr, r[i].buf ? r[i].buf->name : "?");
		put(pr, "[");
		for (int d = 0; d < r[i].n; d++) {
			const stir_expr *lo = r[i].lo ? r[i].lo[d] : NULL;
			const stir_expr *hi = r[i].hi ? r[i].hi[d] : NULL;
			if (d)
				put(pr, ", ");
			if (lo)
				put_range_bound(pr, lo);
			if (!lo || hi)
				put(pr, ":");
			if (lo && hi)
				put_range_bound(pr, hi);
		}
		put(pr, "]");
	}
	put(pr, ")");
}

/* pr, s: block NAME(v: S = e, ..) [iter P | init P] reads(..) writes(..)
 * { body }, with the link to its iteration P written out (the reader
 * also accepts a text without, linking by names); a variable without a
 * letter (only the API makes one) gets '?'. */
static void put_block(printer *pr, const stir_stmt *s)
{
	int n_letters = (int)strlen(s->u.block.kinds);
	put(pr, "block ");
	put_name(pr, s->u.block.name);
	put(pr, "(");
	for (int i = 0; i < s->u.block.n_vars; i++) {
		if (i)
			put(pr, ", ");
		put_name(pr, s->u.block.vars[i]->name);
		put(pr, ": ");
		putn(pr, i < n_letters ? &s->u.block.kinds[i] : "?", 1);
		put(pr, " = ");
		put_expr(pr, s->u.block.bindings[i]);
	}
	put(pr, ")");
	for (unsigned f = 1; f & STIR_BLOCK_FLAGS; f <<= 1) {
		if (s->u.block.flags & f) {
			put(pr, " ");
			put(pr, stir_block_flag_name(f));
		}
	}
	if (s->u.block.iter) {
		put(pr, s->u.block.init ? " init " : " iter ");
		put_name(pr, s->u.block.iter);
	}
	put_regions(pr, "reads", s->u.block.n_reads, s->u.block.reads);
	put_regions(pr, "writes", s->u.block.n_writes, s->u.block.writes);
	put(pr, " {\n");
	put_block_body(pr, &s->u.block.body);
	put(pr, "}");
}

/* pr, s: one statement on its own line(s) at the current indentation. */
static void put_stmt(printer *pr, const stir_stmt *s)
{
	put_indent(pr);
	switch (s->kind) {
	case STIR_STMT_STORE:
		put_store(pr, s);
		return;
	case STIR_STMT_LET:
		put(pr, s->u.let.hoisted ? "hoisted let " : "let ");
		put_name(pr, s->u.let.var->name);
		put(pr, " = ");
		put_expr(pr, s->u.let.value);
		put(pr, ";\n");
		return;
	case STIR_STMT_IF:
		put_if(pr, s);
		break;
	case STIR_STMT_ITER:
		put_iter(pr, s);
		break;
	case STIR_STMT_FOR:
		put_for(pr, s);
		break;
	case STIR_STMT_BLOCK:
		put_block(pr, s);
		break;
	case STIR_STMT_BARRIER:
		put(pr, "barrier;\n");
		return;
	}
	put(pr, "\n");
}

/* ---- declarations and kernels ---- */

/* pr, a: axis NAME = ctor(parent, len, nnz, options); options only where
 * they differ from the defaults (idtype = i32, sorted = true). */
static void put_axis(printer *pr, const stir_axis *a)
{
	static const char *const ctors[] = {
		[STIR_DENSE_FIXED] = "dense_fixed",
		[STIR_DENSE_VARIABLE] = "dense_variable",
		[STIR_SPARSE_FIXED] = "sparse_fixed",
		[STIR_SPARSE_VARIABLE] = "sparse_variable",
	};
	put_indent(pr);
	put(pr, "axis ");
	put_name(pr, a->name);
	put(pr, " = ");
	put(pr, ctors[a->kind]);
	put(pr, "(");
	if (a->kind != STIR_DENSE_FIXED) {
		put_axis_name(pr, a->parent);
		put(pr, ", ");
	}
	put_expr(pr, a->len);
	if (a->kind != STIR_DENSE_FIXED) {
		put(pr, ", ");
		put_expr(pr, a->nnz);
	}
	if (a->idtype != STIR_I32) {
		put(pr, ", idtype = ");
		put(pr, stir_dtype_get_name(a->idtype));
	}
	if (!a->sorted)
		put(pr, ", sorted = false");
	put(pr, ");\n");
}

/* pr, arg: what a flat buffer binds to, "A" or "J.indptr": each name
 * escaped when it must be. */
static void put_binding(printer *pr, const char *arg)
{
	const char *dot = strchr(arg, '.');
	if (!dot) {
		put_name(pr, arg);
		return;
	}
	char *array = strndup(arg, (size_t)(dot - arg));
	if (!array) {
		pr->failed = true;
		return;
	}
	put_name(pr, array);
	free(array);
	put(pr, ".");
	put_name(pr, dot + 1);
}

/* pr, b: tensor NAME: TYPE[axes] in [lo, hi); or local ...; a flat
 * buffer (one with an extent) as buffer NAME: TYPE[EXTENT] = ARRAY
 * in [lo, hi) SCOPE; with the global scope left out. */
static void put_buffer(printer *pr, const stir_buffer *b)
{
	put_indent(pr);
	if (b->extent)
		put(pr, "buffer ");
	else
		put(pr, b->kind == STIR_BUFFER_LOCAL ? "local " : "tensor ");
	put_name(pr, b->name);
	put(pr, ": ");
	put(pr, stir_dtype_get_name(b->dtype));
	put(pr, "[");
	if (b->extent)
		put_expr(pr, b->extent);
	for (int i = 0; !b->extent && i < b->n_axes; i++) {
		if (i)
			put(pr, ", ");
		put_axis_name(pr, b->axes[i]);
	}
	put(pr, "]");
	if (b->extent && b->arg) {
		put(pr, " = ");
		put_binding(pr, b->arg);
	}
	if (b->domain_lo || b->domain_hi) {
		put(pr, " in [");
		put_expr(pr, b->domain_lo);
		put(pr, ", ");
		put_expr(pr, b->domain_hi);
		put(pr, ")");
	}
	if (b->distinct)
		put(pr, " distinct");
	if (b->extent && b->scope == STIR_SCOPE_SHARED)
		put(pr, " shared");
	else if (b->extent && b->scope == STIR_SCOPE_LOCAL)
		put(pr, " local");
	else if (b->extent && b->scope == STIR_SCOPE_WARP)
		put(pr, " warp");
	put(pr, ";\n");
}

/* pr, k: the whole kernel: header, axes, buffers, statements. */
static void put_kernel(printer *pr, const stir_kernel *k)
{
	pr->staged = k->stage != STIR_STAGE_1;
	put(pr, "kernel ");
	put_name(pr, k->name);
	put(pr, "(");
	for (int i = 0; i < k->params.n; i++) {
		const stir_var *v = stir_var_at(&k->params, i);
		if (i)
			put(pr, ", ");
		put_name(pr, v->name);
		put(pr, ": ");
		put(pr, stir_dtype_get_name(v->dtype));
	}
	put(pr, ")");
	if (k->stage != STIR_STAGE_1) {
		put(pr, " stage ");
		put_int(pr, (int64_t)k->stage);
	}
	put(pr, " {\n");
	pr->indent = 1;
	for (int i = 0; i < k->axes.n; i++)
		put_axis(pr, stir_axis_at(&k->axes, i));
	for (int i = 0; i < k->buffers.n; i++)
		put_buffer(pr, stir_buffer_at(&k->buffers, i));
	for (int i = 0; i < k->body.n; i++)
		put_stmt(pr, stir_stmt_at(&k->body, i));
	pr->indent = 0;
	put(pr, "}\n");
}

/* What one of the public entry points prints. */
typedef enum print_what {
	PRINT_MODULE,
	PRINT_KERNEL,
	PRINT_EXPR,
} print_what;

/* what, obj: print obj (a module, kernel or expression) in the C locale,
 * so that float literals always use a decimal point. */
static char *print_with(print_what what, const void *obj)
{
	printer pr = { NULL, 0, 0, false, 0, false };
	lang_c_locale l;
	lang_c_locale_enter(&l);
	if (what == PRINT_MODULE) {
		const stir_module *m = obj;
		for (int i = 0; i < m->kernels.n; i++) {
			if (i)
				put(&pr, "\n");
			put_kernel(&pr, stir_kernel_at(&m->kernels, i));
		}
	} else if (what == PRINT_KERNEL) {
		put_kernel(&pr, obj);
	} else {
		put_expr(&pr, obj);
	}
	lang_c_locale_leave(&l);
	return printer_finish(&pr);
}

/* m: the module to print; kernels separated by a blank line. */
char *stir_module_to_str(const stir_module *m)
{
	return m ? print_with(PRINT_MODULE, m) : NULL;
}

/* k: one kernel, as stir_module_to_str prints it. */
char *stir_kernel_to_str(const stir_kernel *k)
{
	return k ? print_with(PRINT_KERNEL, k) : NULL;
}

/* e: one expression, with the fewest parentheses. */
char *stir_expr_to_str(const stir_expr *e)
{
	return e ? print_with(PRINT_EXPR, e) : NULL;
}
