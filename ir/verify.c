/* The verifier: docs/language.md section 6, and for kernels of stages II
 * and III the rules of docs/ir.md ("What the verifier checks"), which
 * extend the same walk: the type and scope rules of expressions and
 * statements hold at every stage, and each stage admits its own nodes.
 *
 * Requires: nothing.  A kernel may be malformed in any way the C API
 * allows: axes, buffers, variables or statements of another kernel, wrong
 * counts, an iteration or `if` appended inside itself.  Nothing here
 * follows a chain of pointers (axis parents, nested statements) without a
 * bound, so every such module is reported on, never crashed on.
 * Preserves: everything; the verifier only reads the IR and reports.
 *
 * Every violation is one error at the offending node's location, with
 * notes pointing at related nodes; checking goes on after an error, and an
 * expression whose type cannot be known (because of an error below it)
 * gives STIR_DTYPE_NONE so that one mistake is reported once.
 *
 * The file is laid out as one group of small functions per rule group of
 * section 6: names, sizes, axes, buffers, expressions, statements and
 * iterations, with the scope structure of the statement walk in between;
 * then the flat buffers, loops and blocks of stages II and III.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir/layout.h"
#include "ir/nodes.h"
#include "ir/ops.h"
#include "ir/util.h"

/* One axis iterated by an enclosing iteration or by an earlier member of
 * the iteration being checked. */
typedef struct iterated {
	stir_axis *axis;        /* the member axis, borrowed */
	stir_axis *parent;      /* the axis it is iterated under: its parent,
	                           the previous fuse member, or the attach
	                           parent; NULL for a root */
	const stir_stmt *iter;  /* the iteration that iterates it */
	char letter;            /* 'S', 'R', or 0 when the iteration has no
	                           valid letter for it */
} iterated;

/* What the statement walk knows at one point of the kernel body.  Blocks
 * record the lengths of the stacks on entry and cut them back on exit. */
typedef struct scope {
	stir_var **vars;        /* iterators and lets in scope, outermost
	                           first; malloc'd, entries borrowed */
	int n_vars, cap_vars;
	iterated *axes;         /* iterated axes, outermost first; malloc'd */
	int n_axes, cap_axes;
	const stir_stmt **open; /* statements being walked, to catch one that
	                           contains itself; malloc'd */
	int n_open, cap_open;
	int *bound;             /* by variable slot: how many times the variable
	                           in slot_var is in scope; malloc'd */
	stir_var **slot_var;    /* by slot: the variable last bound there */
	bool *in_init;          /* by slot: a reduction iterator of an
	                           iteration whose init is being walked */
	int n_slots;            /* the kernel's variable count */
	const stir_stmt *atomic; /* the innermost enclosing atomic block, or
	                            NULL */
	const stir_stmt *thread_loop[STIR_THREAD_Z + 1]; /* by GPU index: the
	                            enclosing loop bound to it, or NULL */
	int depth;              /* blocks ("{") open in the kernel's text
	                           around the statement walked, the body's
	                           included */
} scope;

/* The state of one kernel's verification. */
typedef struct verifier {
	stir_kernel *k;         /* the kernel checked, borrowed */
	stir_ctx *ctx;          /* receives the diagnostics, borrowed */
	const stir_stmt **named; /* every iteration and block met so far (for
	                           duplicate names); malloc'd */
	int n_named, cap_named;
	stir_names named_set[2]; /* names of the iterations [0] and blocks [1]
	                            in named, hashed: the first of each name */
	const stir_stmt **named_first[2]; /* per name of named_set: the first
	                            statement so named; malloc'd */
	int cap_first[2];
	stir_names kernel_names; /* the parameters, axes and buffers, hashed
	                            (built on first use) */
	stir_loc *kernel_locs;  /* per name of kernel_names: the first
	                           declaration's; malloc'd */
	int cap_kernel_locs;
	bool kernel_names_ok;   /* kernel_names is built */
	bool oom;               /* memory ran out; reported once */
} verifier;

/* ---- small helpers ---- */

/* v: memory ran out; reported once. */
static void note_oom(verifier *v)
{
	if (!v->oom)
		stir_error_oom(v->ctx);
	v->oom = true;
}

/* v: the verifier; p, cap: a malloc'd array and its capacity in elements;
 * need: the count it must hold; size: one element's size.  Grows the
 * array, reporting "out of memory" once on failure.  0 or -1. */
static int grow(verifier *v, void **p, int *cap, int need, size_t size)
{
	if (need <= *cap)
		return 0;
	int n = *cap ? 2 * *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, (size_t)n * size);
	if (!q) {
		note_oom(v);
		return -1;
	}
	*p = q;
	*cap = n;
	return 0;
}

/* t: a type; whether it is a number (an integer or a float). */
static bool is_num(stir_dtype t)
{
	return stir_dtype_is_int(t) || stir_dtype_is_float(t);
}

/* n, one, many: the word for n things ("1 axis", "3 axes"). */
static const char *plural(int n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* b: a buffer; the word naming its kind in messages (its declaration's
 * keyword). */
static const char *buffer_word(const stir_buffer *b)
{
	if (b->extent)
		return "buffer";
	return b->kind == STIR_BUFFER_LOCAL ? "local" : "tensor";
}

/* b: whether b is flat: one dimension of "extent" elements. */
static bool is_flat(const stir_buffer *b)
{
	return b->extent != NULL;
}

/* b: the number of dimensions an access to b takes. */
static int buffer_dims(const stir_buffer *b)
{
	return is_flat(b) ? 1 : b->n_axes;
}

/* v, loc, what, name: "what" (with "name" in quotes when not NULL) is
 * not allowed in a kernel of v's stage. */
static void report_stage(verifier *v, stir_loc loc, const char *what,
	const char *name)
{
	if (name)
		stir_error(v->ctx, loc, "%s '%s' is not allowed in a stage %d "
			"kernel", what, name, (int)v->k->stage);
	else
		stir_error(v->ctx, loc, "%s is not allowed in a stage %d kernel",
			what, (int)v->k->stage);
}

/* kind: an axis kind; its constructor's name, or NULL for an invalid
 * one. */
static const char *axis_kind_name(stir_axis_kind kind)
{
	static const char *const kinds[] = {
		[STIR_DENSE_FIXED] = "dense_fixed",
		[STIR_DENSE_VARIABLE] = "dense_variable",
		[STIR_SPARSE_FIXED] = "sparse_fixed",
		[STIR_SPARSE_VARIABLE] = "sparse_variable",
	};
	if ((unsigned)kind >= sizeof(kinds) / sizeof(kinds[0]))
		return NULL;
	return kinds[kind];
}

/* k, a: whether "a" is one of k's axes (and not another kernel's). */
static bool axis_in_kernel(const stir_kernel *k, const stir_axis *a)
{
	return a && a->index >= 0 && a->index < k->axes.n &&
		stir_axis_at(&k->axes, a->index) == a;
}

/* k, b: whether "b" is one of k's buffers. */
static bool buffer_in_kernel(const stir_kernel *k, const stir_buffer *b)
{
	return b && b->index >= 0 && b->index < k->buffers.n &&
		stir_buffer_at(&k->buffers, b->index) == b;
}

/* k, p: whether "p" is one of k's parameters. */
static bool param_in_kernel(const stir_kernel *k, const stir_var *p)
{
	for (int i = 0; i < k->params.n; i++)
		if (stir_var_at(&k->params, i) == p)
			return true;
	return false;
}

/* x: a spelling from the operator table (ir/ops.h), "?" for NULL. */
static const char *spelled(const char *x)
{
	return x ? x : "?";
}

/* ---- names (rule 1) ---- */

/* One name of the kernel namespace, for the duplicate check. */
typedef struct decl {
	const char *name;       /* borrowed */
	stir_loc loc;           /* of the declaration */
} decl;

/* a, b, ia, ib: two declarations with the same name, at positions ia and
 * ib of the list (parameters, then axes, then buffers); whether "a" comes
 * first in the source.  Nodes built without a location fall back on the
 * order of the lists. */
static bool decl_before(const decl *a, int ia, const decl *b, int ib)
{
	if (a->loc.line > 0 && b->loc.line > 0 &&
	    (a->loc.line != b->loc.line || a->loc.col != b->loc.col))
		return a->loc.line < b->loc.line ||
			(a->loc.line == b->loc.line && a->loc.col < b->loc.col);
	return ia < ib;
}

/* v, what, name, loc, prev_loc: report a second declaration of "name"
 * ("what" says in which namespace: "name ", "iteration name "). */
static void report_duplicate(verifier *v, const char *what, const char *name,
	stir_loc loc, stir_loc prev_loc)
{
	stir_diag *d = stir_error(v->ctx, loc, "duplicate %s'%s'", what, name);
	stir_diag_add_note(d, prev_loc, "previous declaration of '%s' is here",
		name);
}

/* v: the verifier of a kernel whose parameters, axes, tensors and locals
 * must have distinct names.  Each duplicate is reported at the later
 * declaration in the source, with a note at the first one. */
static void check_kernel_names(verifier *v)
{
	stir_kernel *k = v->k;
	int n = k->params.n + k->axes.n + k->buffers.n;
	if (n == 0)
		return;
	decl *d = malloc((size_t)n * sizeof(*d));
	if (!d) {
		v->oom = true;
		stir_error_oom(v->ctx);
		return;
	}
	int j = 0;
	for (int i = 0; i < k->params.n; i++, j++) {
		stir_var *p = stir_var_at(&k->params, i);
		d[j] = (decl){ p->name, p->loc };
	}
	for (int i = 0; i < k->axes.n; i++, j++) {
		stir_axis *a = stir_axis_at(&k->axes, i);
		d[j] = (decl){ a->name, a->loc };
	}
	for (int i = 0; i < k->buffers.n; i++, j++) {
		stir_buffer *b = stir_buffer_at(&k->buffers, i);
		d[j] = (decl){ b->name, b->loc };
	}
	/* the declarations grouped by name (hashed), each group in index
	 * order: only a name's own declarations are compared */
	stir_names set = { 0 };
	int *gid = malloc((size_t)n * sizeof(*gid));
	int *start = calloc((size_t)n + 1, sizeof(*start));
	int *member = malloc((size_t)n * sizeof(*member));
	bool ok = gid && start && member;
	for (int i = 0; ok && i < n; i++) {
		if ((gid[i] = stir_names_find(&set, d[i].name)) < 0 &&
		    stir_names_add(&set, d[i].name) == 0)
			gid[i] = set.n - 1;
		ok = gid[i] >= 0;
		if (ok)
			start[gid[i] + 1]++;
	}
	if (!ok) {
		note_oom(v);
		n = 0;
		set.n = 0;
	}
	for (int g = 0; g < set.n; g++)
		start[g + 1] += start[g];
	for (int i = 0, *fill = start; i < n; i++)
		member[fill[gid[i]]++] = i;
	/* start[g] is now the end of group g: group g is [start[g-1], start[g]) */
	for (int i = 0; i < n; i++) {
		int first = -1, g = gid[i];
		for (int m = g ? start[g - 1] : 0; m < start[g]; m++) {
			int p = member[m];
			if (p != i && decl_before(&d[p], p, &d[i], i) &&
			    (first < 0 || decl_before(&d[p], p, &d[first], first)))
				first = p;
		}
		if (first >= 0)
			report_duplicate(v, "name ", d[i].name, d[i].loc,
				d[first].loc);
	}
	stir_names_release(&set);
	free(gid);
	free(start);
	free(member);
	free(d);
}

/* v, name, loc: record a kernel name declared at loc, the first of its
 * name kept. */
static void add_kernel_name(verifier *v, const char *name, stir_loc loc)
{
	if (stir_names_has(&v->kernel_names, name))
		return;
	int n = v->kernel_names.n;
	if (grow(v, (void **)&v->kernel_locs, &v->cap_kernel_locs, n + 1,
	    sizeof(*v->kernel_locs)) < 0)
		return;
	if (stir_names_add(&v->kernel_names, name) < 0) {
		note_oom(v);
		return;
	}
	v->kernel_locs[n] = loc;
}

/* v, name, loc: the location of a declaration of "name" in the kernel
 * namespace (parameters, axes, buffers) in *loc; false when there is
 * none.  Hashed: a kernel of thousands of names
 * costs one lookup per name checked, not a scan. */
static bool find_kernel_name(verifier *v, const char *name, stir_loc *loc)
{
	stir_kernel *k = v->k;
	if (!v->kernel_names_ok && !v->oom) {
		for (int i = 0; i < k->params.n; i++)
			add_kernel_name(v, stir_var_at(&k->params, i)->name,
				stir_var_at(&k->params, i)->loc);
		for (int i = 0; i < k->axes.n; i++)
			add_kernel_name(v, stir_axis_at(&k->axes, i)->name,
				stir_axis_at(&k->axes, i)->loc);
		for (int i = 0; i < k->buffers.n; i++)
			add_kernel_name(v, stir_buffer_at(&k->buffers, i)->name,
				stir_buffer_at(&k->buffers, i)->loc);
		v->kernel_names_ok = !v->oom;
	}
	if (v->kernel_names_ok) {
		int i = stir_names_find(&v->kernel_names, name);
		if (i >= 0)
			*loc = v->kernel_locs[i];
		return i >= 0;
	}
	/* out of memory: the scan */
	for (int i = 0; i < k->params.n; i++)
		if (!strcmp(stir_var_at(&k->params, i)->name, name)) {
			*loc = stir_var_at(&k->params, i)->loc;
			return true;
		}
	for (int i = 0; i < k->axes.n; i++)
		if (!strcmp(stir_axis_at(&k->axes, i)->name, name)) {
			*loc = stir_axis_at(&k->axes, i)->loc;
			return true;
		}
	for (int i = 0; i < k->buffers.n; i++)
		if (!strcmp(stir_buffer_at(&k->buffers, i)->name, name)) {
			*loc = stir_buffer_at(&k->buffers, i)->loc;
			return true;
		}
	return false;
}

/* v, sc, var: an iterator or let about to come into scope; its name must
 * not repeat a name already in scope. */
static void check_new_var_name(verifier *v, const scope *sc,
	const stir_var *var)
{
	stir_loc prev;
	if (find_kernel_name(v, var->name, &prev)) {
		report_duplicate(v, "name ", var->name, var->loc, prev);
		return;
	}
	for (int i = sc->n_vars - 1; i >= 0; i--)
		if (!strcmp(sc->vars[i]->name, var->name)) {
			report_duplicate(v, "name ", var->name, var->loc,
				sc->vars[i]->loc);
			return;
		}
}

/* s: an iteration or a block; its name. */
static const char *stmt_name(const stir_stmt *s)
{
	return s->kind == STIR_STMT_ITER ? s->u.iter.name : s->u.block.name;
}

/* v, s: an iteration or block whose name must differ from every other
 * iteration's (block's) in the kernel: schedules find them by name. */
static void check_stmt_name(verifier *v, const stir_stmt *s)
{
	int kind = s->kind == STIR_STMT_BLOCK;
	stir_names *set = &v->named_set[kind];
	int i = stir_names_find(set, stmt_name(s));
	if (i >= 0 && v->named_first[kind][i] != s) {
		report_duplicate(v, s->kind == STIR_STMT_ITER ?
			"iteration name " : "block name ", stmt_name(s),
			s->loc, v->named_first[kind][i]->loc);
	} else if (i < 0 && grow(v, (void **)&v->named_first[kind],
		   &v->cap_first[kind], set->n + 1, sizeof(*v->named_first[kind]))
		   == 0) {
		v->named_first[kind][set->n] = s;
		if (stir_names_add(set, stmt_name(s)) < 0)
			note_oom(v);
	}
	if (grow(v, (void **)&v->named, &v->cap_named, v->n_named + 1,
		 sizeof(*v->named)) == 0)
		v->named[v->n_named++] = s;
}

/* ---- parameters and sizes (rule 2) ---- */

/* v: parameters must be i32 or i64. */
static void check_params(verifier *v)
{
	for (int i = 0; i < v->k->params.n; i++) {
		stir_var *p = stir_var_at(&v->k->params, i);
		if (p->dtype != STIR_I32 && p->dtype != STIR_I64)
			stir_error(v->ctx, p->loc,
				"parameter '%s' must be i32 or i64, not %s",
				p->name, stir_dtype_name(p->dtype));
	}
}

/* v, e: the first node of the size expression "e" that is not an integer
 * literal, a parameter of the kernel, or integer arithmetic of those
 * (+ - * / %, unary -, min, max, abs, casts to an integer type); NULL
 * when there is none. */
static const stir_expr *size_offender(verifier *v, const stir_expr *e)
{
	const stir_expr *o;
	switch (e->kind) {
	case STIR_EXPR_INT:
		return stir_dtype_is_int(e->dtype) ? NULL : e;
	case STIR_EXPR_VAR:
		return e->u.var->kind == STIR_VAR_PARAM &&
			param_in_kernel(v->k, e->u.var) &&
			stir_dtype_is_int(e->u.var->dtype) ? NULL : e;
	case STIR_EXPR_UNARY:
		return e->u.unary.op == STIR_NEG ?
			size_offender(v, e->u.unary.a) : e;
	case STIR_EXPR_BINARY:
		if (!stir_binop_is_arith(e->u.binary.op))
			return e;
		o = size_offender(v, e->u.binary.a);
		return o ? o : size_offender(v, e->u.binary.b);
	case STIR_EXPR_CALL:
		if (!stir_func_is_int_call(e->u.call.f, e->u.call.n))
			return e;
		for (int i = 0; i < e->u.call.n; i++)
			if ((o = size_offender(v, e->u.call.args[i])))
				return o;
		return NULL;
	case STIR_EXPR_CAST:
		return stir_dtype_is_int(e->dtype) ?
			size_offender(v, e->u.cast.a) : e;
	default:
		return e;
	}
}

/* v, e, what, name: a size or domain bound ("what" and "name" name it in
 * the message: "size of axis 'I'"); reported at its first offending node. */
static void check_size(verifier *v, const stir_expr *e, const char *what,
	const char *name)
{
	if (!e)
		return;
	const stir_expr *o = size_offender(v, e);
	if (o)
		stir_error(v->ctx, o->loc, "%s'%s' must be an integer expression "
			"of parameters and literals", what, name);
}

/* ---- flat and auxiliary buffers (stages II and III) ---- */

/* kind: a buffer kind; the word naming it in messages. */
static const char *kind_word(stir_buffer_kind kind)
{
	switch (kind) {
	case STIR_BUFFER_TENSOR: return "tensor";
	case STIR_BUFFER_LOCAL: return "local";
	case STIR_BUFFER_INDPTR: return "indptr";
	case STIR_BUFFER_INDICES: return "indices";
	}
	return "?";
}

/* arg: what a flat buffer binds to (NULL: nothing); the kind that the
 * text "= arg" reads back as (docs/ir.md): an allocated buffer without
 * one, a structure array for "X.indptr" and "X.indices", a tensor's
 * values for a plain name; -1 for any other name with a '.'. */
static int arg_kind(const char *arg)
{
	if (!arg)
		return STIR_BUFFER_LOCAL;
	const char *dot = strchr(arg, '.');
	if (!dot)
		return STIR_BUFFER_TENSOR;
	if (!strcmp(dot, ".indptr"))
		return STIR_BUFFER_INDPTR;
	if (!strcmp(dot, ".indices"))
		return STIR_BUFFER_INDICES;
	return -1;
}

/* kind, a: whether an axis of kind "a" has a structure array of buffer
 * kind "kind": indptr for the variable kinds, indices for the sparse
 * ones. */
static bool axis_has_array(stir_buffer_kind kind, stir_axis_kind a)
{
	if (kind == STIR_BUFFER_INDPTR)
		return a == STIR_DENSE_VARIABLE || a == STIR_SPARSE_VARIABLE;
	return a == STIR_SPARSE_FIXED || a == STIR_SPARSE_VARIABLE;
}

/* v, b, a: the auxiliary buffer b of stage II names axis a of the kernel:
 * the array it binds to must be a's, of a kind a has, with a's index type;
 * a has at most one buffer of each kind and records it. */
static void check_aux_axis(verifier *v, const stir_buffer *b,
	const stir_axis *a)
{
	const char *what = kind_word(b->kind);
	size_t n = strlen(a->name);
	if (b->arg && (strncmp(b->arg, a->name, n) || b->arg[n] != '.'))
		stir_error(v->ctx, b->loc, "buffer '%s' binds to '%s' but is the "
			"%s of axis '%s'", b->name, b->arg, what, a->name);
	if (!axis_has_array(b->kind, a->kind)) {
		stir_error(v->ctx, b->loc, "axis '%s' is %s and has no %s",
			a->name, axis_kind_name(a->kind), what);
		return;
	}
	if (stir_dtype_is_int(b->dtype) && b->dtype != a->idtype)
		stir_error(v->ctx, b->loc, "%s buffer '%s' has type %s but axis "
			"'%s' has index type %s", what, b->name,
			stir_dtype_name(b->dtype), a->name,
			stir_dtype_name(a->idtype));
	for (int i = 0; i < v->k->buffers.n; i++) {
		const stir_buffer *o = stir_buffer_at(&v->k->buffers, i);
		if (o == b)
			break;
		if (is_flat(o) && o->kind == b->kind && o->aux_axis == a) {
			stir_diag *d = stir_error(v->ctx, b->loc, "axis '%s' already "
				"has an %s buffer", a->name, what);
			stir_diag_add_note(d, o->loc, "previous %s buffer of '%s' is "
				"here", what, a->name);
			return;
		}
	}
	const stir_buffer *rec = b->kind == STIR_BUFFER_INDPTR ?
		a->indptr_buf : a->indices_buf;
	if (!rec)
		stir_error(v->ctx, b->loc, "axis '%s' does not record its %s "
			"buffer '%s'", a->name, what, b->name);
}

/* v, b: a flat buffer bound to an axis's indptr or indices: an integer
 * buffer; in stage II, the auxiliary buffer of a declared axis; in stage
 * III, where axes are gone, of none. */
static void check_aux_buffer(verifier *v, const stir_buffer *b)
{
	const char *what = kind_word(b->kind);
	if (!stir_dtype_is_int(b->dtype))
		stir_error(v->ctx, b->loc, "%s buffer '%s' must have an integer "
			"type, not %s", what, b->name, stir_dtype_name(b->dtype));
	if (v->k->stage == STIR_STAGE_3 && b->aux_axis)
		stir_error(v->ctx, b->loc, "buffer '%s' names axis '%s', but "
			"stage 3 has no axes", b->name, b->aux_axis->name);
	if (v->k->stage != STIR_STAGE_2)
		return;
	if (!b->aux_axis)
		stir_error(v->ctx, b->loc, "%s buffer '%s' names no axis", what,
			b->name);
	else if (!axis_in_kernel(v->k, b->aux_axis))
		stir_error(v->ctx, b->loc, "axis '%s' of buffer '%s' belongs to "
			"another kernel", b->aux_axis->name, b->name);
	else
		check_aux_axis(v, b, b->aux_axis);
}

/* v, b: a flat buffer (stages II and III): its extent, what it binds to,
 * which must agree with its kind, and its scope: only a buffer the kernel
 * allocates lives elsewhere than in global memory. */
static void check_flat_buffer(verifier *v, const stir_buffer *b)
{
	if (v->k->stage == STIR_STAGE_1)
		report_stage(v, b->loc, "flat buffer", b->name);
	if (b->n_axes > 0)
		stir_error(v->ctx, b->loc, "buffer '%s' has both axes and an "
			"extent", b->name);
	check_size(v, b->extent, "extent of buffer ", b->name);
	if ((unsigned)b->kind > STIR_BUFFER_INDICES) {
		stir_error(v->ctx, b->loc, "buffer '%s' has an invalid kind",
			b->name);
		return;
	}
	if (!b->arg && b->kind != STIR_BUFFER_LOCAL)
		stir_error(v->ctx, b->loc, "buffer '%s' of kind %s binds to no "
			"array", b->name, kind_word(b->kind));
	else if (arg_kind(b->arg) != (int)b->kind)
		stir_error(v->ctx, b->loc, "buffer '%s' of kind %s cannot bind to "
			"'%s'", b->name, kind_word(b->kind), b->arg);
	if ((unsigned)b->scope > STIR_SCOPE_WARP)
		stir_error(v->ctx, b->loc, "buffer '%s' has an invalid scope",
			b->name);
	else if (b->scope != STIR_SCOPE_GLOBAL && b->arg)
		stir_error(v->ctx, b->loc, "buffer '%s' bound to '%s' must be "
			"global", b->name, b->arg);
	if (b->kind == STIR_BUFFER_INDPTR || b->kind == STIR_BUFFER_INDICES)
		check_aux_buffer(v, b);
}

/* v, a, buf, kind: the auxiliary buffer of kind "kind" that axis a
 * records (NULL: none); only stage II has them, and each must be a flat
 * buffer of the kernel that names a as its axis. */
static void check_axis_aux(verifier *v, const stir_axis *a,
	const stir_buffer *buf, stir_buffer_kind kind)
{
	if (!buf)
		return;
	if (v->k->stage != STIR_STAGE_2)
		stir_error(v->ctx, a->loc, "axis '%s' has an %s buffer in a stage "
			"%d kernel", a->name, kind_word(kind), (int)v->k->stage);
	else if (!buffer_in_kernel(v->k, buf) || !is_flat(buf) ||
		 buf->kind != kind || buf->aux_axis != a)
		stir_error(v->ctx, a->loc, "'%s' is not an %s buffer of axis '%s'",
			buf->name, kind_word(kind), a->name);
}

/* ---- axes (rule 3) ---- */

/* v, a, i: the axis at position i of the kernel's list; its parent must be
 * an earlier axis of the same kernel, present exactly when the kind needs
 * one. */
static void check_axis_parent(verifier *v, const stir_axis *a, int i)
{
	if (!axis_kind_name(a->kind)) {
		stir_error(v->ctx, a->loc, "axis '%s' has an invalid kind",
			a->name);
		return;
	}
	if (a->kind == STIR_DENSE_FIXED) {
		if (a->parent)
			stir_error(v->ctx, a->loc,
				"dense_fixed axis '%s' cannot have a parent",
				a->name);
		return;
	}
	if (!a->parent) {
		stir_error(v->ctx, a->loc, "%s axis '%s' needs a parent",
			axis_kind_name(a->kind), a->name);
	} else if (!axis_in_kernel(v->k, a->parent)) {
		stir_error(v->ctx, a->loc,
			"parent '%s' of axis '%s' belongs to another kernel",
			a->parent->name, a->name);
	} else if (a->parent == a) {
		stir_error(v->ctx, a->loc, "axis '%s' is its own parent",
			a->name);
	} else if (a->parent->index > i) {
		stir_diag *d = stir_error(v->ctx, a->loc,
			"parent '%s' of axis '%s' is declared after it",
			a->parent->name, a->name);
		stir_diag_add_note(d, a->parent->loc, "'%s' is declared here",
			a->parent->name);
	}
}

/* v: every axis of the kernel: its parent, sizes and index type. */
static void check_axes(verifier *v)
{
	for (int i = 0; i < v->k->axes.n; i++) {
		stir_axis *a = stir_axis_at(&v->k->axes, i);
		check_axis_parent(v, a, i);
		check_size(v, a->len, "size of axis ", a->name);
		if (a->kind == STIR_SPARSE_FIXED)
			check_size(v, a->nnz, "column count of axis ", a->name);
		else if (a->kind != STIR_DENSE_FIXED)
			check_size(v, a->nnz, "nnz of axis ", a->name);
		if (a->idtype != STIR_I32 && a->idtype != STIR_I64)
			stir_error(v->ctx, a->loc,
				"index type of axis '%s' must be i32 or i64, not %s",
				a->name, stir_dtype_name(a->idtype));
		if (v->k->stage == STIR_STAGE_3)
			report_stage(v, a->loc, "axis", a->name);
		check_axis_aux(v, a, a->indptr_buf, STIR_BUFFER_INDPTR);
		check_axis_aux(v, a, a->indices_buf, STIR_BUFFER_INDICES);
	}
}

/* ---- tensors and locals (rule 4) ---- */

/* v, b, p: the p-th axis of b's list, an axis of the kernel: it may not be
 * listed twice, and a child must immediately follow its parent. */
static void check_buffer_axis(verifier *v, const stir_buffer *b, int p)
{
	stir_axis *a = b->axes[p];
	for (int q = 0; q < p; q++)
		if (b->axes[q] == a) {
			stir_error(v->ctx, b->loc,
				"axis '%s' is listed twice in %s '%s'", a->name,
				buffer_word(b), b->name);
			return;
		}
	if (!a->parent || (p > 0 && b->axes[p - 1] == a->parent))
		return;
	for (int q = 0; q < p; q++)
		if (b->axes[q] == a->parent) {
			stir_error(v->ctx, b->loc, "axis '%s' must immediately "
				"follow its parent '%s' in %s '%s'", a->name,
				a->parent->name, buffer_word(b), b->name);
			return;
		}
	stir_error(v->ctx, b->loc, "axis '%s' breaks parent order in %s '%s': "
		"its parent '%s' must come before it", a->name, buffer_word(b),
		b->name, a->parent->name);
}

/* v, b: a tensor, local or flat buffer: its type, axis list or extent,
 * and value domain. */
static void check_buffer(verifier *v, const stir_buffer *b)
{
	if (is_flat(b))
		check_flat_buffer(v, b);
	else if (v->k->stage == STIR_STAGE_3)
		stir_error(v->ctx, b->loc, "%s '%s' over axes is not allowed in a "
			"stage 3 kernel", buffer_word(b), b->name);
	if (!is_flat(b) && b->scope != STIR_SCOPE_GLOBAL)
		stir_error(v->ctx, b->loc, "%s '%s' over axes must be global",
			buffer_word(b), b->name);
	if (b->dtype == STIR_BOOL)
		stir_error(v->ctx, b->loc, "%s '%s' cannot have type bool",
			buffer_word(b), b->name);
	else if (!is_num(b->dtype))
		stir_error(v->ctx, b->loc, "%s '%s' has an invalid type",
			buffer_word(b), b->name);
	for (int p = 0; p < b->n_axes; p++) {
		if (axis_in_kernel(v->k, b->axes[p]))
			check_buffer_axis(v, b, p);
		else
			stir_error(v->ctx, b->loc,
				"axis '%s' of %s '%s' belongs to another kernel",
				b->axes[p]->name, buffer_word(b), b->name);
	}
	if (!b->domain_lo && !b->domain_hi)
		return;
	if (!stir_dtype_is_int(b->dtype))
		stir_error(v->ctx, b->loc,
			"%s '%s' of type %s cannot have a value domain",
			buffer_word(b), b->name, stir_dtype_name(b->dtype));
	if (!b->domain_lo || !b->domain_hi)
		stir_error(v->ctx, b->loc, "the value domain of %s '%s' lacks "
			"its %s bound", buffer_word(b), b->name,
			b->domain_lo ? "upper" : "lower");
	check_size(v, b->domain_lo, "domain bound of ", b->name);
	check_size(v, b->domain_hi, "domain bound of ", b->name);
}

/* v: every buffer of the kernel. */
static void check_buffers(verifier *v)
{
	for (int i = 0; i < v->k->buffers.n; i++)
		check_buffer(v, stir_buffer_at(&v->k->buffers, i));
}

/* ---- the scope of the statement walk ---- */

/* v, sc: a scope for kernel v->k with its parameters in scope.  0 or -1
 * (memory). */
static int scope_init(verifier *v, scope *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->n_slots = v->k->n_vars;
	size_t n = (size_t)(sc->n_slots ? sc->n_slots : 1);
	sc->bound = calloc(n, sizeof(*sc->bound));
	sc->slot_var = calloc(n, sizeof(*sc->slot_var));
	sc->in_init = calloc(n, sizeof(*sc->in_init));
	if (!sc->bound || !sc->slot_var || !sc->in_init) {
		v->oom = true;
		stir_error_oom(v->ctx);
		return -1;
	}
	return 0;
}

/* sc: the scope whose memory is released. */
static void scope_release(scope *sc)
{
	free(sc->vars);
	free(sc->axes);
	free(sc->open);
	free(sc->bound);
	free(sc->slot_var);
	free(sc->in_init);
}

/* sc, var: whether "var" is a slot of this kernel's numbering. */
static bool slot_ok(const scope *sc, const stir_var *var)
{
	return var->slot >= 0 && var->slot < sc->n_slots;
}

/* v, sc, var: bring an iterator or let into scope (its name checked
 * first). */
static void scope_push_var(verifier *v, scope *sc, stir_var *var)
{
	check_new_var_name(v, sc, var);
	if (grow(v, (void **)&sc->vars, &sc->cap_vars, sc->n_vars + 1,
		 sizeof(*sc->vars)) < 0)
		return;
	sc->vars[sc->n_vars++] = var;
	if (slot_ok(sc, var)) {
		if (sc->slot_var[var->slot] != var)
			sc->bound[var->slot] = 0;
		sc->slot_var[var->slot] = var;
		sc->bound[var->slot]++;
	}
}

/* sc, n: take the variables brought into scope after the first n out. */
static void scope_pop_vars(scope *sc, int n)
{
	while (sc->n_vars > n) {
		stir_var *var = sc->vars[--sc->n_vars];
		if (slot_ok(sc, var) && sc->slot_var[var->slot] == var &&
		    sc->bound[var->slot] > 0)
			sc->bound[var->slot]--;
	}
}

/* sc, var: whether "var" is an iterator or let in scope. */
static bool scope_has_var(const scope *sc, const stir_var *var)
{
	return slot_ok(sc, var) && sc->slot_var[var->slot] == var &&
		sc->bound[var->slot] > 0;
}

/* sc, a: the innermost entry iterating "a", or NULL. */
static const iterated *scope_find_axis(const scope *sc, const stir_axis *a)
{
	for (int i = sc->n_axes - 1; i >= 0; i--)
		if (sc->axes[i].axis == a)
			return &sc->axes[i];
	return NULL;
}

/* ---- expressions (rule 6) ---- */

static stir_dtype check_expr(verifier *v, scope *sc, const stir_expr *e);

/* v, sc, e, what, n, name: an expression that must be an integer (an
 * index, a bound, an extent), named in messages "WHAT N of 'NAME'" (n > 0)
 * or "WHAT 'NAME'".  A literal that could not become an integer is
 * reported as such.  Returns its type, or STIR_DTYPE_NONE when it is not
 * an integer or is unknown. */
static stir_dtype check_int(verifier *v, scope *sc, const stir_expr *e,
	const char *what, int n, const char *name)
{
	stir_dtype t = check_expr(v, sc, e);
	if (t == STIR_DTYPE_NONE || stir_dtype_is_int(t))
		return t;
	if (e->flexible && stir_dtype_is_float(t))
		stir_error(v->ctx, e->loc,
			"float literal where an integer is expected");
	else if (n > 0)
		stir_error(v->ctx, e->loc, "%s %d of '%s' is %s, not an integer",
			what, n, name, stir_dtype_name(t));
	else
		stir_error(v->ctx, e->loc, "%s '%s' is %s, not an integer", what,
			name, stir_dtype_name(t));
	return STIR_DTYPE_NONE;
}

/* v, what, loc, a, ta, b, tb: two operands (of types ta and tb) that must
 * agree; "what" names them ("operands of '+'").  Returns their common
 * type: the wider of two integer types, or the one type they share;
 * STIR_DTYPE_NONE after reporting a disagreement. */
static stir_dtype agree(verifier *v, const char *what, stir_loc loc,
	const stir_expr *a, stir_dtype ta, const stir_expr *b, stir_dtype tb)
{
	if (ta == STIR_DTYPE_NONE || tb == STIR_DTYPE_NONE)
		return STIR_DTYPE_NONE;
	if (ta == tb)
		return ta;
	if (stir_dtype_is_int(ta) && stir_dtype_is_int(tb))
		return stir_int_rank(ta) >= stir_int_rank(tb) ? ta : tb;
	if (a->flexible && stir_dtype_is_float(ta) && stir_dtype_is_int(tb))
		stir_error(v->ctx, a->loc,
			"float literal where an integer is expected");
	else if (b->flexible && stir_dtype_is_float(tb) && stir_dtype_is_int(ta))
		stir_error(v->ctx, b->loc,
			"float literal where an integer is expected");
	else
		stir_error(v->ctx, loc, "%s do not agree: %s and %s", what,
			stir_dtype_name(ta), stir_dtype_name(tb));
	return STIR_DTYPE_NONE;
}

/* v, sc, e, what: a condition (of `if`, `?:`, or an operand of && || !,
 * named by "what"); it must be bool. */
static void check_cond(verifier *v, scope *sc, const stir_expr *e,
	const char *what)
{
	stir_dtype t = check_expr(v, sc, e);
	if (t != STIR_DTYPE_NONE && t != STIR_BOOL)
		stir_error(v->ctx, e->loc, "%s is %s, not bool", what,
			stir_dtype_name(t));
}

/* v, sc, e: a use of a variable: a parameter of this kernel, or an
 * iterator (stage I only), let, loop or block variable in scope (a
 * reduction iterator not inside its iteration's init). */
static void check_var_use(verifier *v, scope *sc, const stir_expr *e)
{
	const stir_var *var = e->u.var;
	switch (var->kind) {
	case STIR_VAR_PARAM:
		if (!param_in_kernel(v->k, var))
			stir_error(v->ctx, e->loc,
				"parameter '%s' belongs to another kernel",
				var->name);
		return;
	case STIR_VAR_ITER:
		if (v->k->stage != STIR_STAGE_1)
			report_stage(v, e->loc, "iterator", var->name);
		else if (!scope_has_var(sc, var))
			stir_error(v->ctx, e->loc,
				"'%s' is used outside its iteration", var->name);
		else if (sc->in_init[var->slot])
			stir_error(v->ctx, e->loc,
				"reduction iterator '%s' cannot be used in init",
				var->name);
		return;
	case STIR_VAR_LET:
	case STIR_VAR_LOOP:
	case STIR_VAR_BLOCK:
		if (!scope_has_var(sc, var))
			stir_error(v->ctx, e->loc, "'%s' is used outside its %s",
				var->name, var->kind == STIR_VAR_LET ? "scope" :
				var->kind == STIR_VAR_LOOP ? "loop" : "block");
		return;
	}
	stir_error(v->ctx, e->loc, "variable '%s' has an invalid kind",
		var->name);
}

/* v, sc, loc, b, n, idx: an access b[idx..] (a load, or the target of a
 * store, at "loc"): a buffer of this kernel, one integer index per axis,
 * or exactly one for a flat buffer. */
static void check_access(verifier *v, scope *sc, stir_loc loc,
	const stir_buffer *b, int n, stir_expr *const *idx)
{
	if (!buffer_in_kernel(v->k, b))
		stir_error(v->ctx, loc, "%s '%s' belongs to another kernel",
			buffer_word(b), b->name);
	else if (is_flat(b) && n != 1)
		stir_error(v->ctx, loc, "'%s' is a flat buffer: it takes 1 index, "
			"not %d", b->name, n);
	else if (!is_flat(b) && n != b->n_axes)
		stir_error(v->ctx, loc, "'%s' has %d %s but %d %s", b->name,
			b->n_axes, plural(b->n_axes, "axis", "axes"), n,
			plural(n, "index", "indices"));
	for (int i = 0; i < n; i++)
		check_int(v, sc, idx[i], "index", i + 1, b->name);
}

/* v, op, e, t: operand "e" (of type t) of the arithmetic or comparison
 * operator "op" must be a number.  Whether it is. */
static bool check_num_operand(verifier *v, const char *op, const stir_expr *e,
	stir_dtype t)
{
	if (t == STIR_DTYPE_NONE || is_num(t))
		return true;
	stir_error(v->ctx, e->loc, "operand of '%s' is %s, not a number", op,
		stir_dtype_name(t));
	return false;
}

/* v, sc, e: a unary operation; its type. */
static stir_dtype check_unary(verifier *v, scope *sc, const stir_expr *e)
{
	if (e->u.unary.op == STIR_NOT) {
		check_cond(v, sc, e->u.unary.a, "operand of '!'");
		return STIR_BOOL;
	}
	stir_dtype t = check_expr(v, sc, e->u.unary.a);
	if (e->u.unary.op != STIR_NEG) {
		stir_error(v->ctx, e->loc, "invalid unary operator");
		return STIR_DTYPE_NONE;
	}
	return check_num_operand(v, "-", e->u.unary.a, t) ? t : STIR_DTYPE_NONE;
}

/* v, sc, e: a binary operation; its type. */
static stir_dtype check_binary(verifier *v, scope *sc, const stir_expr *e)
{
	stir_binop op = e->u.binary.op;
	const stir_expr *a = e->u.binary.a, *b = e->u.binary.b;
	const stir_binop_info *info = stir_binop_get(op);
	char what[32];
	if (!info) {
		stir_error(v->ctx, e->loc, "invalid binary operator");
		return STIR_DTYPE_NONE;
	}
	const char *name = info->text;
	if (info->cls == STIR_OPC_LOGIC) {
		snprintf(what, sizeof(what), "operand of '%s'", name);
		check_cond(v, sc, a, what);
		check_cond(v, sc, b, what);
		return STIR_BOOL;
	}
	bool cmp = info->cls == STIR_OPC_COMPARE ||
		info->cls == STIR_OPC_EQUALITY;
	stir_dtype ta = check_expr(v, sc, a), tb = check_expr(v, sc, b);
	/* == and != also compare two conditions */
	if (info->cls == STIR_OPC_EQUALITY && ta == STIR_BOOL && tb == STIR_BOOL)
		return STIR_BOOL;
	bool ok_a = check_num_operand(v, name, a, ta);
	bool ok_b = check_num_operand(v, name, b, tb);
	if (!ok_a || !ok_b)
		return cmp ? STIR_BOOL : STIR_DTYPE_NONE;
	snprintf(what, sizeof(what), "operands of '%s'", name);
	stir_dtype t = agree(v, what, e->loc, a, ta, b, tb);
	if (info->cls == STIR_OPC_INT_ARITH && stir_dtype_is_float(t)) {
		stir_error(v->ctx, e->loc, "'%s' needs integer operands, not %s",
			name, stir_dtype_name(t));
		return STIR_DTYPE_NONE;
	}
	return cmp ? STIR_BOOL : t;
}

/* v, sc, e: c ? a : b; its type. */
static stir_dtype check_select(verifier *v, scope *sc, const stir_expr *e)
{
	check_cond(v, sc, e->u.select.c, "condition of '?:'");
	const stir_expr *a = e->u.select.a, *b = e->u.select.b;
	stir_dtype ta = check_expr(v, sc, a), tb = check_expr(v, sc, b);
	return agree(v, "branches of '?:'", e->loc, a, ta, b, tb);
}

/* v, sc, e: a call of min max abs exp log sqrt tanh; its type. */
static stir_dtype check_call(verifier *v, scope *sc, const stir_expr *e)
{
	stir_func f = e->u.call.f;
	const stir_func_info *info = stir_func_get(f);
	const char *name = spelled(info ? info->name : NULL);
	int n = e->u.call.n;
	stir_dtype t[2] = { STIR_DTYPE_NONE, STIR_DTYPE_NONE };
	for (int i = 0; i < n; i++) {
		stir_dtype ti = check_expr(v, sc, e->u.call.args[i]);
		if (i < 2)
			t[i] = ti;
	}
	if (!info) {
		stir_error(v->ctx, e->loc, "invalid function");
		return STIR_DTYPE_NONE;
	}
	int want = info->n_args;
	if (n != want) {
		stir_error(v->ctx, e->loc, "'%s' takes %d %s, not %d", name, want,
			plural(want, "argument", "arguments"), n);
		return STIR_DTYPE_NONE;
	}
	const stir_expr *a = e->u.call.args[0];
	if (t[0] == STIR_DTYPE_NONE)
		return STIR_DTYPE_NONE;
	if (info->int_ok) {
		bool ok = true;
		for (int i = 0; i < n; i++)
			if (t[i] != STIR_DTYPE_NONE && !is_num(t[i])) {
				stir_error(v->ctx, e->u.call.args[i]->loc,
					"argument of '%s' is %s, not a number", name,
					stir_dtype_name(t[i]));
				ok = false;
			}
		if (!ok)
			return STIR_DTYPE_NONE;
		if (n == 1)
			return t[0];
		char what[32];
		snprintf(what, sizeof(what), "arguments of '%s'", name);
		return agree(v, what, e->loc, a, t[0], e->u.call.args[1], t[1]);
	}
	if (!stir_dtype_is_float(t[0])) {
		stir_error(v->ctx, a->loc, "argument of '%s' is %s, not a float",
			name, stir_dtype_name(t[0]));
		return STIR_DTYPE_NONE;
	}
	return t[0];
}

/* v, sc, e: a cast; its type, a number, of a number. */
static stir_dtype check_cast(verifier *v, scope *sc, const stir_expr *e)
{
	stir_dtype t = check_expr(v, sc, e->u.cast.a);
	if (!is_num(e->dtype)) {
		stir_error(v->ctx, e->loc, "cannot cast to %s",
			stir_dtype_name(e->dtype));
		return STIR_DTYPE_NONE;
	}
	if (t != STIR_DTYPE_NONE && !is_num(t))
		stir_error(v->ctx, e->loc, "cannot cast %s to %s",
			stir_dtype_name(t), stir_dtype_name(e->dtype));
	return e->dtype;
}

/* v, sc, e: lower_bound(buf, lo, hi, x), upper_bound or find (stages II
 * and III): a flat integer buffer and three integers; its type is the
 * wider of lo's and hi's, the range it gives a position in. */
static stir_dtype check_search(verifier *v, scope *sc, const stir_expr *e)
{
	const char *name = stir_search_name(e->u.search.op);
	const stir_buffer *b = e->u.search.buf;
	if (!name) {
		stir_error(v->ctx, e->loc, "invalid search");
		return STIR_DTYPE_NONE;
	}
	if (v->k->stage == STIR_STAGE_1) {
		stir_error(v->ctx, e->loc, "'%s' is not allowed in a stage 1 "
			"kernel", name);
		return STIR_DTYPE_NONE;
	}
	if (!buffer_in_kernel(v->k, b))
		stir_error(v->ctx, e->loc, "%s '%s' belongs to another kernel",
			buffer_word(b), b->name);
	else if (!is_flat(b))
		stir_error(v->ctx, e->loc, "'%s' needs a flat buffer, not %s '%s'",
			name, buffer_word(b), b->name);
	else if (!stir_dtype_is_int(b->dtype))
		stir_error(v->ctx, e->loc, "'%s' needs an integer buffer, not '%s' "
			"of type %s", name, b->name, stir_dtype_name(b->dtype));
	stir_dtype lo = check_int(v, sc, e->u.search.lo, "argument", 2, name);
	stir_dtype hi = check_int(v, sc, e->u.search.hi, "argument", 3, name);
	check_int(v, sc, e->u.search.x, "argument", 4, name);
	if (lo == STIR_DTYPE_NONE || hi == STIR_DTYPE_NONE)
		return STIR_DTYPE_NONE;
	return stir_int_rank(lo) >= stir_int_rank(hi) ? lo : hi;
}

/* v, sc, e: an expression; reports what is wrong in it and returns its
 * type (STIR_DTYPE_NONE when an error leaves it unknown).  The type the
 * rules give must also be the one recorded in the node, which the later
 * stages trust. */
static stir_dtype check_expr(verifier *v, scope *sc, const stir_expr *e)
{
	stir_dtype t;
	switch (e->kind) {
	case STIR_EXPR_INT:
		if (e->dtype == STIR_BOOL || is_num(e->dtype))
			return e->dtype;
		stir_error(v->ctx, e->loc, "literal of invalid type %s",
			stir_dtype_name(e->dtype));
		return STIR_DTYPE_NONE;
	case STIR_EXPR_FLOAT:
		if (stir_dtype_is_float(e->dtype))
			return e->dtype;
		stir_error(v->ctx, e->loc, "float literal of type %s",
			stir_dtype_name(e->dtype));
		return STIR_DTYPE_NONE;
	case STIR_EXPR_VAR:
		check_var_use(v, sc, e);
		t = e->u.var->dtype;
		break;
	case STIR_EXPR_LOAD:
		check_access(v, sc, e->loc, e->u.load.buf, e->u.load.n,
			e->u.load.idx);
		t = e->u.load.buf->dtype;
		break;
	case STIR_EXPR_UNARY:
		t = check_unary(v, sc, e);
		break;
	case STIR_EXPR_BINARY:
		t = check_binary(v, sc, e);
		break;
	case STIR_EXPR_SELECT:
		t = check_select(v, sc, e);
		break;
	case STIR_EXPR_CALL:
		t = check_call(v, sc, e);
		break;
	case STIR_EXPR_CAST:
		t = check_cast(v, sc, e);
		break;
	case STIR_EXPR_SEARCH:
		t = check_search(v, sc, e);
		break;
	default:
		stir_error(v->ctx, e->loc, "invalid expression");
		return STIR_DTYPE_NONE;
	}
	if (t != STIR_DTYPE_NONE && t != e->dtype) {
		stir_error(v->ctx, e->loc,
			"expression of type %s where its operands give %s",
			stir_dtype_name(e->dtype), stir_dtype_name(t));
		return STIR_DTYPE_NONE;
	}
	return t;
}

/* ---- statements (rule 6) ---- */

static void check_stmts(verifier *v, scope *sc, const stir_ptr_vec *list);
static void check_iter(verifier *v, scope *sc, const stir_stmt *s);
static void check_for(verifier *v, scope *sc, const stir_stmt *s);
static void check_block(verifier *v, scope *sc, const stir_stmt *s);

/* op: whether an atomic block may hold a store with op. */
static bool additive(stir_store_op op)
{
	return op == STIR_STORE_ADD || op == STIR_STORE_SUB;
}

/* v, sc, s: b[idx..] op= value: the value must have the buffer's type, or
 * be an integer no wider than an integer buffer. */
static void check_store(verifier *v, scope *sc, const stir_stmt *s)
{
	const stir_buffer *b = s->u.store.buf;
	const stir_expr *val = s->u.store.value;
	check_access(v, sc, s->loc, b, s->u.store.n, s->u.store.idx);
	stir_dtype t = check_expr(v, sc, val), bt = b->dtype;
	const char *op = spelled(stir_store_op_text(s->u.store.op));
	if (*op == '?')
		stir_error(v->ctx, s->loc, "invalid store operator");
	else if (sc->atomic && !additive(s->u.store.op))
		stir_error(v->ctx, s->loc, "atomic block '%s' may only hold += "
			"and -= stores", sc->atomic->u.block.name);
	else if (s->u.store.op != STIR_STORE_ASSIGN && bt == STIR_BOOL)
		stir_error(v->ctx, s->loc, "'%s' on '%s' of type bool", op,
			b->name);
	if (t == STIR_DTYPE_NONE || t == bt ||
	    (stir_dtype_is_int(t) && stir_dtype_is_int(bt) &&
	     stir_int_rank(t) <= stir_int_rank(bt)))
		return;
	if (val->flexible && stir_dtype_is_float(t) && stir_dtype_is_int(bt))
		stir_error(v->ctx, val->loc,
			"float literal where an integer is expected");
	else
		stir_error(v->ctx, s->loc, "cannot store %s into '%s' of type %s%s",
			stir_dtype_name(t), b->name, stir_dtype_name(bt),
			is_num(t) && is_num(bt) ? " without a cast" : "");
}

/* v, var, t, word, what: a variable ("word" says which kind) takes its
 * value from an expression ("what") of type t, which must be its type. */
static void check_var_type(verifier *v, const stir_var *var, stir_dtype t,
	const char *word, const char *what)
{
	if (t != STIR_DTYPE_NONE && t != var->dtype)
		stir_error(v->ctx, var->loc, "%s '%s' of type %s has %s of type %s",
			word, var->name, stir_dtype_name(var->dtype), what,
			stir_dtype_name(t));
}

/* v, sc, s: let var = value; var comes into scope after the value. */
static void check_let(verifier *v, scope *sc, const stir_stmt *s)
{
	stir_var *var = s->u.let.var;
	const stir_expr *x = s->u.let.value;
	check_var_type(v, var, check_expr(v, sc, x), "let",
		"a value");
	/* what the emitter prints as a constant computed once */
	if (s->u.let.hoisted && v->k->stage != STIR_STAGE_3)
		report_stage(v, s->loc, "hoisted let", var->name);
	else if (s->u.let.hoisted && x && x->kind != STIR_EXPR_SEARCH &&
	    !(x->kind == STIR_EXPR_LOAD &&
	      x->u.load.buf->scope == STIR_SCOPE_WARP))
		stir_error(v->ctx, s->loc, "hoisted let '%s': its value must be a "
			"search or a read of a warp buffer", var->name);
	scope_push_var(v, sc, var);
}

/* v, sc, s: if (cond) { .. } else { .. }. */
static void check_if(verifier *v, scope *sc, const stir_stmt *s)
{
	check_cond(v, sc, s->u.if_.cond, "condition");
	check_stmts(v, sc, &s->u.if_.then_body);
	check_stmts(v, sc, &s->u.if_.else_body);
}

/* v, sc, s, more: whether the body of statement s, "more" blocks inside
 * the blocks open around it, stays within the nesting the text of the
 * kernel's stage may have (ir/nodes.h); otherwise
 * an error at s (its text could not be read back).  Lowering adds levels
 * (an iteration becomes loops and a block), so a stage I kernel near the
 * bound is refused here by the pass that would deepen it. */
static bool check_depth(verifier *v, const scope *sc, const stir_stmt *s,
	int more)
{
	int max = v->k->stage == STIR_STAGE_1 ? STIR_MAX_BLOCK_DEPTH :
		STIR_MAX_LOWERED_BLOCK_DEPTH;
	if (sc->depth + more <= max)
		return true;
	/* loops and blocks made by lowering point at their iterator */
	stir_loc loc = s->loc;
	if (loc.line <= 0 && s->kind == STIR_STMT_FOR)
		loc = s->u.for_.var->loc;
	if (loc.line <= 0)
		loc = stir_stmt_first_loc(s);
	stir_error(v->ctx, loc, "statements nested too deeply: this one's "
		"body would be at level %d of the kernel's text, more than %d",
		sc->depth + more, max);
	return false;
}

/* v, sc, s: one statement of the kernel; one that contains itself, or
 * belongs to another kernel, is reported and not walked. */
static void check_stmt(verifier *v, scope *sc, const stir_stmt *s)
{
	for (int i = 0; i < sc->n_open; i++)
		if (sc->open[i] == s) {
			stir_error(v->ctx, s->loc, "statement contains itself");
			return;
		}
	if (s->kernel != v->k) {
		stir_error(v->ctx, s->loc, "statement of kernel '%s' in kernel '%s'",
			s->kernel->name, v->k->name);
		return;
	}
	if (s->kind != STIR_STMT_STORE && s->kind != STIR_STMT_LET &&
	    !check_depth(v, sc, s, 1))
		return;
	if (grow(v, (void **)&sc->open, &sc->cap_open, sc->n_open + 1,
		 sizeof(*sc->open)) < 0)
		return;
	sc->open[sc->n_open++] = s;
	sc->depth++;
	switch (s->kind) {
	case STIR_STMT_STORE:
		check_store(v, sc, s);
		break;
	case STIR_STMT_LET:
		check_let(v, sc, s);
		break;
	case STIR_STMT_IF:
		check_if(v, sc, s);
		break;
	case STIR_STMT_ITER:
		if (v->k->stage != STIR_STAGE_1)
			report_stage(v, s->loc, "iteration", s->u.iter.name);
		else
			check_iter(v, sc, s);
		break;
	case STIR_STMT_FOR:
		if (v->k->stage == STIR_STAGE_1)
			report_stage(v, s->loc, "loop", s->u.for_.var->name);
		else
			check_for(v, sc, s);
		break;
	case STIR_STMT_BLOCK:
		if (v->k->stage == STIR_STAGE_1)
			report_stage(v, s->loc, "block", s->u.block.name);
		else
			check_block(v, sc, s);
		break;
	case STIR_STMT_BARRIER:
		if (v->k->stage != STIR_STAGE_3)
			report_stage(v, s->loc, "barrier", NULL);
		break;
	default:
		stir_error(v->ctx, s->loc, "invalid statement");
		break;
	}
	sc->depth--;
	sc->n_open--;
}

/* v, sc, list: a statement list; the lets it binds end with it. */
static void check_stmts(verifier *v, scope *sc, const stir_ptr_vec *list)
{
	int n_vars = sc->n_vars;
	for (int i = 0; i < list->n && !v->oom; i++)
		check_stmt(v, sc, stir_stmt_at(list, i));
	scope_pop_vars(sc, n_vars);
}

/* ---- iterations (rule 5) ---- */

/* s: an iteration; the number of member axes (one per fuse member). */
static int iter_n_members(const stir_stmt *s)
{
	int n = 0;
	for (int g = 0; g < s->u.iter.n_groups; g++)
		if (s->u.iter.groups[g].n_axes > 0)
			n += s->u.iter.groups[g].n_axes;
	return n;
}

/* v, s, n: the letters of iteration s, which has n members: one 'S' or
 * 'R' per member.  Whether they are usable for the init rule. */
static bool check_iter_letters(verifier *v, const stir_stmt *s, int n)
{
	const char *kinds = s->u.iter.kinds;
	int len = (int)strlen(kinds);
	bool ok = true;
	if (len != n) {
		stir_error(v->ctx, s->u.iter.kinds_loc,
			"iteration '%s' has %d %s but %d %s in \"%s\"",
			s->u.iter.name, n, plural(n, "axis", "axes"), len,
			plural(len, "letter", "letters"), kinds);
		ok = false;
	}
	for (int i = 0; i < len; i++)
		if (kinds[i] != 'S' && kinds[i] != 'R') {
			stir_error(v->ctx, s->u.iter.kinds_loc,
				"invalid letter '%c' in \"%s\": expected 'S' or 'R'",
				kinds[i], kinds);
			return false;
		}
	return ok;
}

/* v, sc, s, a, parent, later: member "a" of iteration s is iterated under
 * "parent", which must be iterated already: by an enclosing iteration or
 * an earlier member (both in sc->axes).  "later" tells whether the parent
 * comes later in s's own list. */
static void check_member_parent(verifier *v, const scope *sc,
	const stir_stmt *s, const stir_axis *a, const stir_axis *parent,
	bool later)
{
	if (!parent || scope_find_axis(sc, parent))
		return;
	if (later)
		stir_error(v->ctx, s->loc, "axis '%s' is iterated before its "
			"parent '%s'", a->name, parent->name);
	else
		stir_error(v->ctx, s->loc, "axis '%s' is iterated without its "
			"parent '%s'", a->name, parent->name);
}

/* s, g, j, p: whether axis p is a member of iteration s after member j of
 * group g. */
static bool member_later(const stir_stmt *s, int g, int j, const stir_axis *p)
{
	for (; g < s->u.iter.n_groups; g++, j = -1) {
		const stir_iter_group *gr = &s->u.iter.groups[g];
		for (int i = j + 1; i < gr->n_axes; i++)
			if (gr->axes[i] == p)
				return true;
	}
	return false;
}

/* v, sc, s, g, j, base: member j of group g of iteration s, an axis of
 * the kernel; the members before it are sc->axes[base ..].  Returns the
 * axis it is iterated under (see iterated.parent). */
static stir_axis *check_member(verifier *v, const scope *sc,
	const stir_stmt *s, int g, int j, int base)
{
	const stir_iter_group *gr = &s->u.iter.groups[g];
	stir_axis *a = gr->axes[j];
	const char *name = s->u.iter.name;
	for (int i = base; i < sc->n_axes; i++)
		if (sc->axes[i].axis == a) {
			stir_error(v->ctx, s->loc, "axis '%s' is listed twice in "
				"iteration '%s'", a->name, name);
			break;
		}
	if (gr->kind == STIR_GROUP_FUSE && j > 0) {
		if (a->parent != gr->axes[j - 1])
			stir_error(v->ctx, s->loc, "fuse is not a parent chain: "
				"'%s' is not the parent of '%s'",
				gr->axes[j - 1]->name, a->name);
		return gr->axes[j - 1];
	}
	if (gr->kind == STIR_GROUP_ATTACH && j == 0) {
		stir_axis *p = gr->attach_parent;
		if (a->kind == STIR_DENSE_FIXED)
			stir_error(v->ctx, s->loc,
				"cannot attach dense_fixed axis '%s'", a->name);
		if (!p)
			stir_error(v->ctx, s->loc, "attach of '%s' has no new "
				"parent", a->name);
		else if (!axis_in_kernel(v->k, p))
			stir_error(v->ctx, s->loc, "attach parent '%s' belongs "
				"to another kernel", p->name);
		else if (!scope_find_axis(sc, p))
			stir_error(v->ctx, s->loc, "attach parent '%s' of '%s' is "
				"not iterated before it", p->name, a->name);
		return p;
	}
	check_member_parent(v, sc, s, a, a->parent,
		member_later(s, g, j, a->parent));
	return a->parent;
}

/* v, sc, s, letters_ok: the axis list of iteration s, each member checked
 * and pushed on sc->axes with its letter (when the letters are valid). */
static void check_iter_groups(verifier *v, scope *sc, const stir_stmt *s,
	bool letters_ok)
{
	int base = sc->n_axes, m = 0;
	for (int g = 0; g < s->u.iter.n_groups; g++) {
		const stir_iter_group *gr = &s->u.iter.groups[g];
		if (gr->kind != STIR_GROUP_AXIS && gr->kind != STIR_GROUP_FUSE &&
		    gr->kind != STIR_GROUP_ATTACH)
			stir_error(v->ctx, s->loc, "invalid axis group in "
				"iteration '%s'", s->u.iter.name);
		else if (gr->kind == STIR_GROUP_AXIS && gr->n_axes != 1)
			stir_error(v->ctx, s->loc, "invalid axis group in "
				"iteration '%s'", s->u.iter.name);
		else if (gr->kind == STIR_GROUP_FUSE && gr->n_axes < 2)
			stir_error(v->ctx, s->loc, "fuse needs at least two axes");
		else if (gr->kind == STIR_GROUP_ATTACH && gr->n_axes != 1)
			stir_error(v->ctx, s->loc,
				"attach takes one axis and its new parent");
		for (int j = 0; j < gr->n_axes; j++, m++) {
			stir_axis *a = gr->axes[j], *parent = NULL;
			if (!axis_in_kernel(v->k, a))
				stir_error(v->ctx, s->loc, "axis '%s' of iteration "
					"'%s' belongs to another kernel", a->name,
					s->u.iter.name);
			else
				parent = check_member(v, sc, s, g, j, base);
			if (grow(v, (void **)&sc->axes, &sc->cap_axes,
				 sc->n_axes + 1, sizeof(*sc->axes)) < 0)
				return;
			sc->axes[sc->n_axes++] = (iterated){ a, parent, s,
				letters_ok ? s->u.iter.kinds[m] : 0 };
		}
	}
}

/* v, sc, s, base: iteration s has an init and its members are
 * sc->axes[base ..]; no spatial member may be iterated under a reduction
 * member, directly or through other members (init runs once per spatial
 * point, before the reduction starts).  Whether none is. */
static bool check_init_deps(verifier *v, const scope *sc, const stir_stmt *s,
	int base)
{
	for (int m = base; m < sc->n_axes; m++) {
		if (sc->axes[m].letter != 'S')
			continue;
		/* the walk goes to strictly earlier members, so it ends */
		for (int cur = m;;) {
			int q = cur - 1;
			while (q >= base && sc->axes[q].axis != sc->axes[cur].parent)
				q--;
			if (q < base || !sc->axes[cur].parent)
				break;
			if (sc->axes[q].letter == 'R') {
				stir_error(v->ctx, s->loc, "init is not allowed: "
					"spatial axis '%s' depends on reduction "
					"axis '%s'", sc->axes[m].axis->name,
					sc->axes[q].axis->name);
				return false;
			}
			cur = q;
		}
	}
	return true;
}

/* sc, s, on: mark the reduction iterators of s (whose letters are valid)
 * as forbidden ("on": its init is being walked) or allowed again. */
static void mark_reduction_iters(scope *sc, const stir_stmt *s, bool on)
{
	int len = (int)strlen(s->u.iter.kinds);
	for (int i = 0; i < s->u.iter.n_vars && i < len; i++) {
		stir_var *var = s->u.iter.vars[i];
		if (s->u.iter.kinds[i] == 'R' && slot_ok(sc, var))
			sc->in_init[var->slot] = on;
	}
}

/* v, sc, s: an iteration: its name, letters, iterators and axis list, then
 * its init and body with its iterators and axes in scope. */
static void check_iter(verifier *v, scope *sc, const stir_stmt *s)
{
	int n_vars = sc->n_vars, n_axes = sc->n_axes;
	int n = iter_n_members(s);
	check_stmt_name(v, s);
	if (n == 0)
		stir_error(v->ctx, s->loc, "iteration '%s' has no axes",
			s->u.iter.name);
	bool letters_ok = check_iter_letters(v, s, n);
	if (s->u.iter.n_vars != n)
		stir_error(v->ctx, s->loc, "iteration '%s' has %d %s but %d %s",
			s->u.iter.name, n, plural(n, "axis", "axes"),
			s->u.iter.n_vars, plural(s->u.iter.n_vars, "iterator",
				"iterators"));
	check_iter_groups(v, sc, s, letters_ok);
	/* an init rejected for its dependences would also use reduction
	 * iterators; one error says enough */
	bool mark = letters_ok;
	if (s->u.iter.init.n > 0 && !check_init_deps(v, sc, s, n_axes))
		mark = false;
	for (int i = 0; i < s->u.iter.n_vars; i++)
		scope_push_var(v, sc, s->u.iter.vars[i]);
	if (mark)
		mark_reduction_iters(sc, s, true);
	/* the init is a block of its own inside the iteration's body */
	if (s->u.iter.init.n > 0 && check_depth(v, sc, s, 1)) {
		sc->depth++;
		check_stmts(v, sc, &s->u.iter.init);
		sc->depth--;
	}
	if (mark)
		mark_reduction_iters(sc, s, false);
	check_stmts(v, sc, &s->u.iter.body);
	scope_pop_vars(sc, n_vars);
	sc->n_axes = n_axes;
}

/* ---- loops and blocks (stages II and III) ---- */

/* v, sc, s, saved: the loop s, bound to a GPU index, must not be nested
 * in a loop bound to the same one: each thread (or block) has one value of
 * each index, so the inner loop would not run over its extent (the CUDA
 * emitter refused it; "check" accepted it).  Returns the scope's entry
 * for that index, now s, whose previous value goes to *saved. */
static const stir_stmt **check_thread(verifier *v, scope *sc,
	const stir_stmt *s, const stir_stmt **saved)
{
	static const char *const names[] = {
		[STIR_BLOCK_X] = "blockIdx.x", [STIR_BLOCK_Y] = "blockIdx.y",
		[STIR_BLOCK_Z] = "blockIdx.z", [STIR_THREAD_X] = "threadIdx.x",
		[STIR_THREAD_Y] = "threadIdx.y", [STIR_THREAD_Z] = "threadIdx.z",
	};
	stir_thread d = s->u.for_.thread;
	const stir_stmt *o = sc->thread_loop[d];
	if (o) {
		stir_diag *diag = stir_error(v->ctx, s->loc, "loop '%s' is bound "
			"to %s inside loop '%s', bound to the same index",
			s->u.for_.var->name, names[d], o->u.for_.var->name);
		stir_diag_add_note(diag, o->loc, "loop '%s' is bound to %s here",
			o->u.for_.var->name, names[d]);
	}
	*saved = o;
	sc->thread_loop[d] = s;
	return &sc->thread_loop[d];
}

/* v, sc, s: for var in [0, extent) { body }: an integer extent of the
 * variable's type, checked outside the loop; the variable holds in the
 * body. */
static void check_for(verifier *v, scope *sc, const stir_stmt *s)
{
	stir_var *var = s->u.for_.var;
	stir_dtype t = check_int(v, sc, s->u.for_.extent, "extent of loop", 0,
		var->name);
	if (var->kind != STIR_VAR_LOOP)
		stir_error(v->ctx, var->loc, "variable '%s' of a loop is not a "
			"loop variable", var->name);
	else
		check_var_type(v, var, t, "loop variable", "an extent");
	stir_loop_kind kind = s->u.for_.kind;
	const stir_stmt **outer = NULL, *saved = NULL;
	if ((unsigned)kind > STIR_LOOP_BIND || (kind == STIR_LOOP_BIND &&
	    (unsigned)s->u.for_.thread > STIR_THREAD_Z))
		stir_error(v->ctx, s->loc, "invalid annotation of loop '%s'",
			var->name);
	else if (kind == STIR_LOOP_BIND)
		outer = check_thread(v, sc, s, &saved);
	int n_vars = sc->n_vars;
	scope_push_var(v, sc, var);
	check_stmts(v, sc, &s->u.for_.body);
	scope_pop_vars(sc, n_vars);
	if (outer)
		*outer = saved;
}

/* v, sc, s, r: a read or write region of block s, checked where the
 * block's variables are in scope: a buffer of the kernel, one range per
 * dimension, integer bounds. */
static void check_region(verifier *v, scope *sc, const stir_stmt *s,
	const stir_region *r)
{
	const stir_buffer *b = r->buf;
	if (!b || (r->n > 0 && (!r->lo || !r->hi))) {
		stir_error(v->ctx, s->loc, "invalid region in block '%s'",
			s->u.block.name);
		return;
	}
	int dims = buffer_dims(b);
	if (!buffer_in_kernel(v->k, b))
		stir_error(v->ctx, s->loc, "%s '%s' belongs to another kernel",
			buffer_word(b), b->name);
	else if (r->n != dims)
		stir_error(v->ctx, s->loc, "region of '%s' has %d %s but '%s' has "
			"%d %s", b->name, r->n, plural(r->n, "range", "ranges"),
			b->name, dims, plural(dims, "dimension", "dimensions"));
	for (int d = 0; d < r->n; d++) {
		if (!r->lo[d] && r->hi[d])
			stir_error(v->ctx, s->loc, "range %d of a region of '%s' has "
				"an upper bound but no lower bound", d + 1, b->name);
		if (r->lo[d])
			check_int(v, sc, r->lo[d], "bound of a region of", 0, b->name);
		if (r->hi[d])
			check_int(v, sc, r->hi[d], "bound of a region of", 0, b->name);
	}
}

/* v, sc, s: the variables of block s: their bindings, checked outside the
 * block, are integers of the variables' types, and each has the letter S
 * or R. */
static void check_block_vars(verifier *v, scope *sc, const stir_stmt *s)
{
	int n = s->u.block.n_vars;
	const char *kinds = s->u.block.kinds;
	int len = (int)strlen(kinds);
	if (len != n)
		stir_error(v->ctx, s->loc, "block '%s' has %d %s but %d %s in "
			"\"%s\"", s->u.block.name, n, plural(n, "variable",
			"variables"), len, plural(len, "letter", "letters"), kinds);
	for (int i = 0; i < n; i++) {
		stir_var *var = s->u.block.vars[i];
		stir_dtype t = check_int(v, sc, s->u.block.bindings[i],
			"binding of block variable", 0, var->name);
		if (var->kind != STIR_VAR_BLOCK)
			stir_error(v->ctx, var->loc, "variable '%s' of a block is not "
				"a block variable", var->name);
		else
			check_var_type(v, var, t, "block variable", "a binding");
		if (i < len && kinds[i] != 'S' && kinds[i] != 'R')
			stir_error(v->ctx, var->loc, "invalid letter '%c' for block "
				"variable '%s': expected 'S' or 'R'", kinds[i],
				var->name);
	}
}


/* v, s: the annotations of block s (docs/schedules.md): a cross-thread
 * block is one += (or -=) store; a horizontal block has no variables and
 * holds only loops.  (That an atomic block's stores are += or -= is checked
 * at each store.) */
static void check_block_flags(verifier *v, const stir_stmt *s)
{
	unsigned flags = s->u.block.flags;
	const stir_ptr_vec *body = &s->u.block.body;
	if (flags & ~(unsigned)STIR_BLOCK_FLAGS)
		stir_error(v->ctx, s->loc, "block '%s' has invalid annotations",
			s->u.block.name);
	if ((flags & STIR_BLOCK_CROSS_THREAD) &&
	    (body->n != 1 || stir_stmt_at(body, 0)->kind != STIR_STMT_STORE ||
	     !additive(stir_stmt_at(body, 0)->u.store.op)))
		stir_error(v->ctx, s->loc, "cross-thread block '%s' must hold "
			"exactly one += or -= store", s->u.block.name);
	if (flags & STIR_BLOCK_HORIZONTAL) {
		if (s->u.block.n_vars)
			stir_error(v->ctx, s->loc, "horizontal block '%s' cannot have "
				"variables", s->u.block.name);
		for (int i = 0; i < body->n; i++)
			if (stir_stmt_at(body, i)->kind != STIR_STMT_FOR)
				stir_error(v->ctx, stir_stmt_at(body, i)->loc,
					"horizontal block '%s' may only hold loops",
					s->u.block.name);
	}
}

/* v, sc, s: block NAME(vars = bindings) flags reads(..) writes(..)
 * { body }: a name unique among the kernel's blocks, its variables and
 * annotations, then its regions and body with the variables in scope. */
static void check_block(verifier *v, scope *sc, const stir_stmt *s)
{
	check_stmt_name(v, s);
	check_block_vars(v, sc, s);
	check_block_flags(v, s);
	int n_vars = sc->n_vars;
	for (int i = 0; i < s->u.block.n_vars; i++)
		scope_push_var(v, sc, s->u.block.vars[i]);
	for (int i = 0; i < s->u.block.n_reads; i++)
		check_region(v, sc, s, &s->u.block.reads[i]);
	for (int i = 0; i < s->u.block.n_writes; i++)
		check_region(v, sc, s, &s->u.block.writes[i]);
	const stir_stmt *atomic = sc->atomic;
	if (s->u.block.flags & STIR_BLOCK_ATOMIC)
		sc->atomic = s;
	check_stmts(v, sc, &s->u.block.body);
	sc->atomic = atomic;
	scope_pop_vars(sc, n_vars);
}

/* ---- kernels and modules ---- */

/* v: the body of the kernel, walked with a fresh scope.  In stage I its
 * statements are iterations (LANGUAGE.md section 2): stores, lets and ifs
 * have a place only inside one. */
static void check_body(verifier *v)
{
	for (int i = 0; v->k->stage == STIR_STAGE_1 && i < v->k->body.n; i++) {
		const stir_stmt *s = stir_stmt_at(&v->k->body, i);
		if (s->kind != STIR_STMT_ITER)
			stir_error(v->ctx, s->loc, "only iterations may appear at "
				"the top level of a kernel");
	}
	scope sc;
	if (scope_init(v, &sc) == 0) {
		sc.depth = 1; /* the kernel's body */
		check_stmts(v, &sc, &v->k->body);
	}
	scope_release(&sc);
}

/* k: the kernel to check against the rules of its stage. */
int stir_kernel_verify(stir_kernel *k)
{
	if (!k)
		return -1;
	stir_ctx *ctx = stir_kernel_ctx(k);
	int errors = stir_ctx_n_errors(ctx);
	if (k->stage < STIR_STAGE_1 || k->stage > STIR_STAGE_3) {
		stir_error(ctx, k->loc, "kernel '%s' has an invalid stage %d",
			k->name, (int)k->stage);
		return -1;
	}
	verifier v = { .k = k, .ctx = ctx };
	check_kernel_names(&v);
	check_params(&v);
	check_axes(&v);
	check_buffers(&v);
	check_body(&v);
	free(v.named);
	for (int i = 0; i < 2; i++) {
		stir_names_release(&v.named_set[i]);
		free(v.named_first[i]);
	}
	stir_names_release(&v.kernel_names);
	free(v.kernel_locs);
	return stir_ctx_n_errors(ctx) > errors ? -1 : 0;
}

/* m: the module; kernel names must be distinct, and every kernel is
 * verified even after one fails. */
int stir_module_verify(stir_module *m)
{
	if (!m)
		return -1;
	int errors = stir_ctx_n_errors(m->ctx);
	for (int i = 0; i < m->kernels.n; i++) {
		stir_kernel *k = stir_kernel_at(&m->kernels, i);
		for (int j = 0; j < i; j++) {
			stir_kernel *p = stir_kernel_at(&m->kernels, j);
			if (!strcmp(p->name, k->name)) {
				stir_diag *d = stir_error(m->ctx, k->loc,
					"duplicate kernel name '%s'", k->name);
				stir_diag_add_note(d, p->loc,
					"previous declaration of '%s' is here",
					k->name);
				break;
			}
		}
		stir_kernel_verify(k);
	}
	return stir_ctx_n_errors(m->ctx) > errors ? -1 : 0;
}
