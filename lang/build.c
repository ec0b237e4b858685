/* The builder: from the syntax tree of a parse to IR (include/stir/ir.h).
 *
 * Names are resolved per docs/language.md section 2.  A kernel's parameters,
 * axes, tensors, locals and flat buffers form one namespace that holds over
 * the whole kernel, so every declaration is bound before anything is built;
 * a name declared twice is reported here and keeps meaning its first
 * declaration (see bind).  Iterators, let names, and the loop and block
 * variables of stages II and III are bound in nested scopes on top of it:
 * a loop's variable holds in its body, a block's variables in its regions
 * and body, and a block's bindings are resolved outside the block.  The builder reports undefined names and names used as the
 * wrong kind of thing; every other rule is the verifier's.  After an error
 * it goes on with NULL in place of the node it could not build, so that one
 * run reports as many errors as it can; the constructors of ir/module.c
 * pass NULL through.
 *
 * Every node built gets the location of its source; docs/language.md
 * section 7 states which token that is for each kind of node.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "lang/ast.h"
#include "ir/intrinsics.h"
#include "ir/nodes.h"
#include "ir/ops.h"

typedef enum bind_kind {
	BIND_PARAM,
	BIND_AXIS,
	BIND_TENSOR,
	BIND_LOCAL,
	BIND_ITER,
	BIND_LET,
	BIND_FLAT,             /* a flat buffer (stages II, III) */
	BIND_LOOP,
	BIND_BLOCK,
} bind_kind;

/* What a name means at one point of the program. */
typedef struct binding {
	const char *name;      /* borrowed from the syntax tree */
	bind_kind kind;
	void *ptr;             /* stir_var *, stir_axis * or stir_buffer *;
	                          NULL until built, or when building failed */
	bool built;            /* building was attempted (tells an axis that
	                          failed from one declared later) */
	stir_loc loc;          /* of the declaring name token */
	bool dup;              /* the name was declared again (reported): a
	                          use of it as another kind of thing is no
	                          error of its own */
	int prev;              /* the binding this one hides, or -1 */
} binding;

/* A hash table slot: a name and its innermost binding. */
typedef struct slot {
	const char *name;      /* borrowed; NULL for an empty slot */
	int top;               /* index into the bindings, or -1 */
} slot;

/* An axis whose parent is declared after it: built with a placeholder
 * parent, fixed once every axis exists. */
typedef struct pending_parent {
	stir_axis *axis;
	int binding;           /* the parent's binding */
} pending_parent;

typedef struct builder {
	stir_ctx *ctx;         /* borrowed: receives diagnostics */
	stir_module *m;        /* the module being built */
	stir_kernel *k;        /* the kernel being built */
	binding *binds;        /* owned: a stack, innermost last */
	int n_binds, cap_binds;
	slot *slots;           /* owned: open addressing, cap a power of 2 */
	int n_slots, cap_slots;
	pending_parent *pending; /* owned */
	int n_pending, cap_pending;
	stir_axis *placeholder; /* module arena: stands in for a later parent */
	int n_errors;          /* errors the builder reported */
	bool oom;              /* a builder allocation failed */
} builder;

/* b, loc, fmt: report a name error and count it. */
static void build_error(builder *b, stir_loc loc, const char *fmt, ...)
	STIR_PRINTF(3, 4);
static void build_error(builder *b, stir_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	stir_ctx_vreport(b->ctx, STIR_ERROR, loc, fmt, ap);
	va_end(ap);
	b->n_errors++;
}

/* kind: how diagnostics call a name of this kind. */
static const char *kind_name(bind_kind kind)
{
	switch (kind) {
	case BIND_PARAM: return "parameter";
	case BIND_AXIS: return "axis";
	case BIND_TENSOR: return "tensor";
	case BIND_LOCAL: return "local";
	case BIND_ITER: return "iterator";
	case BIND_FLAT: return "buffer";
	case BIND_LOOP: return "loop variable";
	case BIND_BLOCK: return "block variable";
	default: return "let variable";
	}
}

/* ---- the symbol table ---- */

/* s: FNV-1a hash of a name. */
static size_t hash_name(const char *s)
{
	size_t h = (size_t)2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* b, name: the slot holding "name", or the empty one where it belongs.
 * The table always has a free slot (it grows at half full). */
static slot *slot_find(builder *b, const char *name)
{
	size_t mask = (size_t)b->cap_slots - 1;
	size_t i = hash_name(name) & mask;
	while (b->slots[i].name && strcmp(b->slots[i].name, name))
		i = (i + 1) & mask;
	return &b->slots[i];
}

/* b: double the hash table.  0, or -1 when memory runs out. */
static int slots_grow(builder *b)
{
	int old_cap = b->cap_slots;
	slot *old = b->slots;
	int cap = old_cap ? 2 * old_cap : 64;
	b->slots = calloc((size_t)cap, sizeof(slot));
	if (!b->slots) {
		b->slots = old;
		return -1;
	}
	b->cap_slots = cap;
	for (int i = 0; i < old_cap; i++)
		if (old[i].name)
			*slot_find(b, old[i].name) = old[i];
	free(old);
	return 0;
}

static binding *lookup(builder *b, const char *name);

/* b, name, kind, ptr, loc: make "name", declared at loc, mean a new
 * binding.  Every binding is a declaration, and a name may not repeat one
 * in scope (docs/language.md section 2): such a name is reported as a
 * duplicate, with a note at the declaration in scope, and keeps meaning
 * that one, so that its uses do not cascade into errors about the wrong
 * kind of name.  Returns the binding's index, or -1 after a duplicate or
 * when memory runs out. */
static int bind(builder *b, const char *name, bind_kind kind, void *ptr,
	stir_loc loc)
{
	if (!name)
		return -1;
	binding *prev = lookup(b, name);
	if (prev) {
		stir_diag *d = stir_error(b->ctx, loc, "duplicate name '%s'", name);
		stir_diag_add_note(d, prev->loc,
			"previous declaration of '%s' is here", name);
		b->n_errors++;
		prev->dup = true;
		return -1;
	}
	if (2 * (b->n_slots + 1) > b->cap_slots && slots_grow(b) < 0)
		return b->oom = true, -1;
	if (b->n_binds == b->cap_binds) {
		int cap = b->cap_binds ? 2 * b->cap_binds : 64;
		binding *v = realloc(b->binds, (size_t)cap * sizeof(*v));
		if (!v)
			return b->oom = true, -1;
		b->binds = v;
		b->cap_binds = cap;
	}
	slot *s = slot_find(b, name);
	if (!s->name) {
		s->name = name;
		s->top = -1;
		b->n_slots++;
	}
	binding *bd = &b->binds[b->n_binds];
	bd->name = name;
	bd->kind = kind;
	bd->ptr = ptr;
	bd->built = ptr != NULL;
	bd->loc = loc;
	bd->dup = false;
	bd->prev = s->top;
	s->top = b->n_binds;
	return b->n_binds++;
}

/* b, name: the innermost binding of "name", or NULL. */
static binding *lookup(builder *b, const char *name)
{
	if (!name || !b->cap_slots)
		return NULL;
	slot *s = slot_find(b, name);
	return s->name && s->top >= 0 ? &b->binds[s->top] : NULL;
}

/* b, mark: forget the bindings made since there were "mark" of them. */
static void unbind_to(builder *b, int mark)
{
	while (b->n_binds > mark) {
		binding *bd = &b->binds[--b->n_binds];
		slot_find(b, bd->name)->top = bd->prev;
	}
}

/* b, n: the binding of a name as written, reporting it when undefined. */
static binding *resolve(builder *b, const lang_name *n)
{
	binding *bd = lookup(b, n->name);
	if (!bd && n->name)
		build_error(b, n->loc, "undefined name '%s'", n->name);
	return bd;
}

/* ---- expressions ---- */

static stir_expr *build_expr(builder *b, const lang_expr *e);

/* x, loc: give a new node its source location (NULL passes through). */
static stir_expr *located(stir_expr *x, stir_loc loc)
{
	if (x)
		x->loc = loc;
	return x;
}

/* b, args: the built expressions of an argument list, in a malloc'd array
 * (NULL entries where building failed); *n receives the count. */
static stir_expr **build_args(builder *b, const lang_list *args, int *n)
{
	*n = args ? args->v.n : 0;
	stir_expr **v = calloc((size_t)(*n ? *n : 1), sizeof(*v));
	if (!v) {
		b->oom = true;
		return NULL;
	}
	for (int i = 0; i < *n; i++)
		v[i] = build_expr(b, args->v.v[i]);
	return v;
}

/* b, n: the tensor or local a load or store names; NULL (reported unless
 * it is a declaration that failed) otherwise. */
static stir_buffer *resolve_buffer(builder *b, const lang_name *n)
{
	binding *bd = resolve(b, n);
	if (!bd)
		return NULL;
	if (bd->kind != BIND_TENSOR && bd->kind != BIND_LOCAL &&
	    bd->kind != BIND_FLAT) {
		if (!bd->dup)
			build_error(b, n->loc, "%s '%s' cannot be indexed",
				kind_name(bd->kind), n->name);
		return NULL;
	}
	return bd->ptr;
}

/* b, e: a name alone: a parameter, iterator or let variable. */
static stir_expr *build_name(builder *b, const lang_expr *e)
{
	lang_name n = { e->u.name.name, e->loc };
	binding *bd = resolve(b, &n);
	if (!bd)
		return NULL;
	switch (bd->kind) {
	case BIND_AXIS:
		if (!bd->dup)
			build_error(b, e->loc, "axis '%s' used as a value", n.name);
		return NULL;
	case BIND_TENSOR:
	case BIND_LOCAL:
	case BIND_FLAT:
		if (!bd->dup)
			build_error(b, e->loc, "%s '%s' used without an index",
				kind_name(bd->kind), n.name);
		return NULL;
	default:
		return located(stir_expr_var(b->k, bd->ptr), e->loc);
	}
}

/* b, e: X[args], a load. */
static stir_expr *build_load(builder *b, const lang_expr *e)
{
	lang_name n = { e->u.name.name, e->loc };
	stir_buffer *buf = resolve_buffer(b, &n);
	int count;
	stir_expr **idx = build_args(b, e->u.name.args, &count);
	stir_expr *x = buf && idx ? stir_expr_load(b->k, buf, count, idx) : NULL;
	free(idx);
	return located(x, e->loc);
}

/* b, e: f(args), a call of a built-in function.  The arguments are built
 * even when the function is unknown, to report the errors inside them. */
static stir_expr *build_call(builder *b, const lang_expr *e)
{
	int f = stir_func_lookup(e->u.name.name);
	if (f < 0)
		build_error(b, e->loc, "unknown function '%s'", e->u.name.name);
	int count;
	stir_expr **args = build_args(b, e->u.name.args, &count);
	if (f >= 0 && count == 0)
		build_error(b, e->loc, "'%s' called without arguments",
			e->u.name.name);
	stir_expr *x = f >= 0 && args && count > 0 ?
		stir_expr_call(b->k, (stir_func)f, count, args) : NULL;
	free(args);
	return located(x, e->loc);
}

/* b, e: t(x), a conversion to the type t. */
static stir_expr *build_cast(builder *b, const lang_expr *e)
{
	int count;
	stir_expr **args = build_args(b, e->u.type.args, &count);
	stir_dtype t = e->u.type.dtype;
	if (count != 1)
		build_error(b, e->loc, "a cast to %s takes one argument",
			stir_dtype_name(t));
	stir_expr *x = args && count == 1 ? stir_expr_cast(b->k, t, args[0]) : NULL;
	free(args);
	return located(x, e->loc);
}

/* b, e: lower_bound(BUF, lo, hi, x) or upper_bound. */
static stir_expr *build_search(builder *b, const lang_expr *e)
{
	stir_buffer *buf = e->u.search.buf ?
		resolve_buffer(b, e->u.search.buf) : NULL;
	stir_expr *lo = build_expr(b, e->u.search.lo);
	stir_expr *hi = build_expr(b, e->u.search.hi);
	stir_expr *x = build_expr(b, e->u.search.x);
	return located(stir_expr_search(b->k, e->u.search.op, buf, lo, hi, x),
		e->loc);
}

/* b, e: any expression of the tree; NULL after reporting why (or when a
 * part of it failed before). */
static stir_expr *build_expr(builder *b, const lang_expr *e)
{
	if (!e)
		return NULL;
	stir_kernel *k = b->k;
	switch (e->kind) {
	case LANG_EXPR_INT:
		return located(stir_expr_int(k, e->u.i), e->loc);
	case LANG_EXPR_FLOAT:
		return located(stir_expr_float(k, e->u.f), e->loc);
	case LANG_EXPR_BOOL:
		return located(stir_expr_bool(k, e->u.b), e->loc);
	case LANG_EXPR_NAME:
		return build_name(b, e);
	case LANG_EXPR_INDEX:
		return build_load(b, e);
	case LANG_EXPR_CALL:
		return build_call(b, e);
	case LANG_EXPR_TYPE:
		build_error(b, e->loc, "type name '%s' used as a value",
			stir_dtype_name(e->u.type.dtype));
		return NULL;
	case LANG_EXPR_CAST:
		return build_cast(b, e);
	case LANG_EXPR_UNARY:
		return located(stir_expr_unary(k, e->u.unary.op,
			build_expr(b, e->u.unary.a)), e->loc);
	case LANG_EXPR_BINARY: {
		stir_expr *l = build_expr(b, e->u.binary.a);
		stir_expr *r = build_expr(b, e->u.binary.b);
		return located(stir_expr_binary(k, e->u.binary.op, l, r), e->loc);
	}
	case LANG_EXPR_SELECT: {
		stir_expr *c = build_expr(b, e->u.select.c);
		stir_expr *x = build_expr(b, e->u.select.a);
		stir_expr *y = build_expr(b, e->u.select.b);
		return located(stir_expr_select(k, c, x, y), e->loc);
	}
	case LANG_EXPR_SEARCH:
		return build_search(b, e);
	}
	return NULL;
}

/* ---- sizes ---- */

/* b, e: the first node of the size expression e (pre-order) that a size
 * may not hold: sizes and domain bounds are integer literals, parameters,
 * + - * / %, unary -, min and max of two, abs of one and casts to an
 * integer type (docs/language.md section 6, rule 2; the verifier's
 * size_offender is the same rule on the IR).  A name with no binding is
 * no offender here: building it reports it as undefined.  Checked before
 * building, so that a size that reads a tensor or local declared later,
 * which could not be built, is an error where it is written instead of
 * making its axis or buffer vanish. */
static const lang_expr *size_offender(builder *b, const lang_expr *e)
{
	const lang_expr *o;
	const lang_list *args;
	int f;
	if (!e)
		return NULL;
	switch (e->kind) {
	case LANG_EXPR_INT:
		return NULL;
	case LANG_EXPR_NAME: {
		binding *bd = lookup(b, e->u.name.name);
		return !bd || bd->kind == BIND_PARAM ? NULL : e;
	}
	case LANG_EXPR_UNARY:
		return e->u.unary.op == STIR_NEG ?
			size_offender(b, e->u.unary.a) : e;
	case LANG_EXPR_BINARY:
		if (!stir_binop_is_arith(e->u.binary.op))
			return e;
		o = size_offender(b, e->u.binary.a);
		return o ? o : size_offender(b, e->u.binary.b);
	case LANG_EXPR_CALL:
		args = e->u.name.args;
		f = stir_func_lookup(e->u.name.name);
		if (!args || f < 0 || !stir_func_is_int_call(f, args->v.n))
			return e;
		for (int i = 0; i < args->v.n; i++)
			if ((o = size_offender(b, args->v.v[i])))
				return o;
		return NULL;
	case LANG_EXPR_CAST:
		args = e->u.type.args;
		return stir_dtype_is_int(e->u.type.dtype) && args &&
			args->v.n == 1 ? size_offender(b, args->v.v[0]) : e;
	default:
		return e;
	}
}

/* b, e, what, name: build the size or domain bound e of the axis or
 * buffer "name" ("what" names the role, as in the verifier's message:
 * "size of axis "); NULL after reporting one that is not a size. */
static stir_expr *build_size(builder *b, const lang_expr *e, const char *what,
	const char *name)
{
	const lang_expr *o = size_offender(b, e);
	if (o) {
		build_error(b, o->loc, "%s'%s' must be an integer expression of "
			"parameters and literals", what, name ? name : "");
		return NULL;
	}
	return build_expr(b, e);
}

/* ---- statements ---- */

/* Where a built statement goes. */
typedef enum target {
	TO_KERNEL,             /* the kernel's body */
	TO_THEN,               /* the then branch of "owner" */
	TO_ELSE,               /* its else branch */
	TO_INIT,               /* the init list of the iteration "owner" */
	TO_BODY,               /* the body of the iteration, loop or block
	                          "owner" */
} target;

static void build_list(builder *b, const lang_list *l, stir_stmt *owner,
	target t);

/* s, loc: give a new statement its location (NULL passes through). */
static stir_stmt *stmt_located(stir_stmt *s, stir_loc loc)
{
	if (s)
		s->loc = loc;
	return s;
}

/* b, ls: X[idx] op= value. */
static stir_stmt *build_store(builder *b, const lang_stmt *ls)
{
	stir_buffer *buf = resolve_buffer(b, &ls->u.store.buf);
	int count;
	stir_expr **idx = build_args(b, ls->u.store.idx, &count);
	stir_expr *value = build_expr(b, ls->u.store.value);
	stir_stmt *s = buf && idx ? stir_stmt_store(b->k, buf, count, idx,
		ls->u.store.op, value) : NULL;
	free(idx);
	return stmt_located(s, ls->loc);
}

/* b, ls: let v = value; v is bound from here to the end of the list (also
 * when building failed, so that its uses are not reported). */
static stir_stmt *build_let(builder *b, const lang_stmt *ls)
{
	const lang_name *n = &ls->u.let.var;
	stir_expr *value = build_expr(b, ls->u.let.value);
	stir_stmt *s = stmt_located(stir_stmt_let(b->k, n->name, value), ls->loc);
	stir_var *v = stir_stmt_let_get_var(s);
	if (v)
		v->loc = n->loc;
	if (s)
		s->u.let.hoisted = ls->u.let.hoisted;
	bind(b, n->name, BIND_LET, v, n->loc);
	return s;
}

/* b, ls: if (cond) { .. } else { .. }. */
static stir_stmt *build_if(builder *b, const lang_stmt *ls)
{
	stir_expr *cond = build_expr(b, ls->u.if_.cond);
	stir_stmt *s = stmt_located(stir_stmt_if(b->k, cond), ls->loc);
	build_list(b, ls->u.if_.then_body, s, TO_THEN);
	build_list(b, ls->u.if_.else_body, s, TO_ELSE);
	return s;
}

/* b, n, allow_later: the axis named by n; when allow_later, an axis
 * declared after this point is accepted and gives the placeholder. */
static stir_axis *resolve_axis(builder *b, const lang_name *n,
	bool allow_later)
{
	binding *bd = resolve(b, n);
	if (!bd)
		return NULL;
	if (bd->kind != BIND_AXIS) {
		if (!bd->dup)
			build_error(b, n->loc, "%s '%s' is not an axis",
				kind_name(bd->kind), n->name);
		return NULL;
	}
	if (!bd->built && allow_later)
		return b->placeholder;
	return bd->ptr;
}

/* b, lg, g: fill the IR group g from the syntax lg; its axes array is
 * malloc'd.  0, or -1 when an axis does not resolve. */
static int build_group(builder *b, const lang_group *lg, stir_iter_group *g)
{
	int n = lg->axes ? lg->axes->v.n : 0;
	g->kind = lg->kind;
	g->n_axes = lg->kind == STIR_GROUP_ATTACH ? 1 : n;
	g->coo = lg->coo;
	g->axes = calloc((size_t)(n ? n : 1), sizeof(stir_axis *));
	if (!g->axes) {
		b->oom = true;
		return -1;
	}
	int ok = 0;
	for (int i = 0; i < n; i++) {
		stir_axis *a = resolve_axis(b, lg->axes->v.v[i], false);
		if (!a)
			ok = -1;
		if (lg->kind == STIR_GROUP_ATTACH && i == 1)
			g->attach_parent = a;
		else
			g->axes[i] = a;
	}
	return ok;
}

/* b, ls, n, ok: the iteration's groups built into a malloc'd array (to be
 * released with free_groups); *ok is cleared when one fails. */
static stir_iter_group *build_groups(builder *b, const lang_stmt *ls, int *n,
	bool *ok)
{
	*n = ls->u.iter.groups ? ls->u.iter.groups->v.n : 0;
	stir_iter_group *g = calloc((size_t)(*n ? *n : 1), sizeof(*g));
	if (!g) {
		b->oom = true;
		*ok = false;
		return NULL;
	}
	for (int i = 0; i < *n; i++)
		if (build_group(b, ls->u.iter.groups->v.v[i], &g[i]) < 0)
			*ok = false;
	return g;
}

/* g, n: release what build_groups allocated. */
static void free_groups(stir_iter_group *g, int n)
{
	for (int i = 0; g && i < n; i++)
		free(g[i].axes);
	free(g);
}

/* b, ls, s: bind the iterators of the iteration ls (s, or NULL when it
 * could not be built) and give them their locations. */
static void bind_iterators(builder *b, const lang_stmt *ls, stir_stmt *s)
{
	for (int i = 0; ls->u.iter.vars && i < ls->u.iter.vars->v.n; i++) {
		const lang_name *n = ls->u.iter.vars->v.v[i];
		stir_var *v = s ? stir_stmt_iter_get_var(s, i) : NULL;
		if (v)
			v->loc = n->loc;
		bind(b, n->name, BIND_ITER, v, n->loc);
	}
}

/* b, ls: iter NAME (vars) in [groups] "kinds" { init { .. } body }. */
static stir_stmt *build_iter(builder *b, const lang_stmt *ls)
{
	int n_groups, n_vars = ls->u.iter.vars ? ls->u.iter.vars->v.n : 0;
	bool ok = true;
	stir_iter_group *groups = build_groups(b, ls, &n_groups, &ok);
	const char **names = calloc((size_t)(n_vars ? n_vars : 1), sizeof(char *));
	if (!names)
		b->oom = true;
	for (int i = 0; names && i < n_vars; i++)
		names[i] = ((lang_name *)ls->u.iter.vars->v.v[i])->name;
	stir_stmt *s = NULL;
	if (ok && names)
		s = stir_stmt_iter(b->k, ls->u.iter.name.name, n_groups, groups,
			n_vars, names, ls->u.iter.kinds);
	free_groups(groups, n_groups);
	free(names);
	if (s) {
		s->loc = ls->loc;
		s->u.iter.kinds_loc = ls->u.iter.kinds_loc;
	}
	int mark = b->n_binds;
	bind_iterators(b, ls, s);
	build_list(b, ls->u.iter.init, s, TO_INIT);
	build_list(b, ls->u.iter.body, s, TO_BODY);
	unbind_to(b, mark);
	return s;
}

/* e: the type a loop or block variable takes from its extent or binding:
 * that expression's integer type, or i32 when it has none (the verifier
 * reports a non-integer extent or binding). */
static stir_dtype var_type(const stir_expr *e)
{
	return e && stir_dtype_is_int(e->dtype) ? e->dtype : STIR_I32;
}

/* b, vecs, s: the vector plan written for loop s (lang_vec *), in the
 * loop's scope; the verifier checks it against the body. */
static void build_vec_plan(builder *b, const lang_list *vecs, stir_stmt *s)
{
	int n = vecs->v.n;
	stir_vec_note *notes = n ? stir_arena_alloc(stir_kernel_arena(b->k),
		(size_t)n * sizeof(*notes)) : NULL;
	if (n && !notes) {
		b->oom = true;
		return;
	}
	for (int i = 0; i < n; i++) {
		const lang_vec *lv = vecs->v.v[i];
		stir_expr *x = build_expr(b, lv->access);
		if (!x)
			return;
		if (x->kind != STIR_EXPR_LOAD || x->u.load.n != 1) {
			build_error(b, lv->loc, "a vector of a vector plan is an "
				"access BUF[INDEX] of a flat buffer");
			return;
		}
		notes[i] = (stir_vec_note){ .access = x, .flags = lv->flags,
			.loc = lv->loc };
	}
	s->u.for_.planned = true;
	s->u.for_.n_vecs = n;
	s->u.for_.vecs = notes;
}

/* b, ls: for v in [0, extent) ANNOTATION { body }; v holds in the body. */
static stir_stmt *build_for(builder *b, const lang_stmt *ls)
{
	const lang_name *n = &ls->u.for_.var;
	const lang_expr *lo = ls->u.for_.lo;
	if (lo && !(lo->kind == LANG_EXPR_INT && lo->u.i == 0))
		build_error(b, lo->loc, "a loop starts at 0");
	stir_expr *extent = build_expr(b, ls->u.for_.extent);
	stir_var *v = n->name ? stir_kernel_new_var(b->k, n->name, STIR_VAR_LOOP,
		var_type(extent)) : NULL;
	if (v)
		v->loc = n->loc;
	stir_stmt *s = stmt_located(stir_stmt_for(b->k, v, extent), ls->loc);
	if (s) {
		s->u.for_.kind = ls->u.for_.loop.kind;
		s->u.for_.thread = ls->u.for_.loop.thread;
		s->u.for_.stages = ls->u.for_.loop.stages;
		const char *in = ls->u.for_.loop.intrinsic;
		if (s->u.for_.kind == STIR_LOOP_TENSORIZE) {
			if (!stir_intrinsic_find(in))
				build_error(b, ls->u.for_.loop.intrinsic_loc, "unknown "
					"intrinsic '%s'; the intrinsics are %s", in ? in : "?",
					stir_intrinsic_names());
			else
				s->u.for_.intrinsic = stir_ctx_intern(b->ctx, in);
		}
	}
	int mark = b->n_binds;
	bind(b, n->name, BIND_LOOP, v, n->loc);
	build_list(b, ls->u.for_.body, s, TO_BODY);
	if (s && ls->u.for_.loop.vecs)
		build_vec_plan(b, ls->u.for_.loop.vecs, s);
	unbind_to(b, mark);
	return s;
}

/* b, kind: the letter of a block variable's kind as written: one letter
 * (the verifier checks that it is S or R), or 0 after reporting. */
static char block_letter(builder *b, const lang_name *kind)
{
	if (kind->name && strlen(kind->name) == 1)
		return kind->name[0];
	build_error(b, kind->loc, "a block variable is 'S' or 'R', not '%s'",
		kind->name ? kind->name : "");
	return 0;
}

/* b, lr, r: the region BUF[dims] built into r (arrays in the module's
 * arena).  0, or -1 when a part failed (reported). */
static int build_region(builder *b, const lang_region *lr, stir_region *r)
{
	stir_arena *ar = stir_kernel_arena(b->k);
	int n = lr->dims->v.n;
	r->buf = resolve_buffer(b, &lr->buf);
	r->n = n;
	r->lo = stir_arena_alloc(ar, (size_t)(n ? n : 1) * sizeof(stir_expr *));
	r->hi = stir_arena_alloc(ar, (size_t)(n ? n : 1) * sizeof(stir_expr *));
	int ok = r->buf && r->lo && r->hi ? 0 : -1;
	for (int i = 0; i < n; i++) {
		const lang_range *lg = lr->dims->v.v[i];
		stir_expr *lo = build_expr(b, lg->lo);
		stir_expr *hi = build_expr(b, lg->hi);
		if ((lg->lo && !lo) || (lg->hi && !hi))
			ok = -1;
		if (r->lo && r->hi) {
			r->lo[i] = lo;
			r->hi[i] = hi;
		}
	}
	return ok;
}

/* b, l, n: the regions of the list l in a module-arena array, or NULL
 * when one failed; *n receives the count. */
static stir_region *build_regions(builder *b, const lang_list *l, int *n)
{
	*n = l->v.n;
	stir_region *r = stir_arena_alloc(stir_kernel_arena(b->k),
		(size_t)(*n ? *n : 1) * sizeof(*r));
	int ok = r ? 0 : -1;
	for (int i = 0; r && i < *n; i++)
		if (build_region(b, l->v.v[i], &r[i]) < 0)
			ok = -1;
	return ok == 0 ? r : NULL;
}

/* b, ls, vars, bindings, kinds: the variables of block ls, their bindings
 * (built in the scope outside the block) and their letters, into arrays
 * of one entry per variable.  Whether every one was built. */
static bool build_block_vars(builder *b, const lang_stmt *ls, stir_var **vars,
	stir_expr **bindings, char *kinds)
{
	bool ok = true;
	for (int i = 0; i < ls->u.block.vars->v.n; i++) {
		const lang_block_var *bv = ls->u.block.vars->v.v[i];
		bindings[i] = build_expr(b, bv->binding);
		kinds[i] = block_letter(b, &bv->kind);
		vars[i] = stir_kernel_new_var(b->k, bv->name.name, STIR_VAR_BLOCK,
			var_type(bindings[i]));
		if (vars[i])
			vars[i]->loc = bv->name.loc;
		if (!bindings[i] || !kinds[i] || !vars[i])
			ok = false;
	}
	return ok;
}

/* b, ls: block NAME(v: S = e, ..) reads(..) writes(..) { body }; the
 * variables hold in the regions and the body. */
static stir_stmt *build_block(builder *b, const lang_stmt *ls)
{
	int n = ls->u.block.vars->v.n;
	stir_var **vars = calloc((size_t)(n ? n : 1), sizeof(*vars));
	stir_expr **bindings = calloc((size_t)(n ? n : 1), sizeof(*bindings));
	char *kinds = calloc((size_t)n + 1, 1);
	stir_stmt *s = NULL;
	if (!vars || !bindings || !kinds)
		b->oom = true;
	else if (build_block_vars(b, ls, vars, bindings, kinds))
		s = stir_stmt_block(b->k, ls->u.block.name.name, n, vars, bindings,
			kinds);
	if (s)
		s->u.block.flags = ls->u.block.flags;
	stmt_located(s, ls->loc);
	int mark = b->n_binds;
	for (int i = 0; vars && i < n; i++)
		bind(b, ((lang_block_var *)ls->u.block.vars->v.v[i])->name.name,
			BIND_BLOCK, vars[i],
			((lang_block_var *)ls->u.block.vars->v.v[i])->name.loc);
	int n_reads, n_writes;
	stir_region *reads = build_regions(b, ls->u.block.reads, &n_reads);
	stir_region *writes = build_regions(b, ls->u.block.writes, &n_writes);
	if (s && reads && writes) {
		s->u.block.n_reads = n_reads;
		s->u.block.reads = reads;
		s->u.block.n_writes = n_writes;
		s->u.block.writes = writes;
	}
	build_list(b, ls->u.block.body, s, TO_BODY);
	unbind_to(b, mark);
	free(vars);
	free(bindings);
	free(kinds);
	return s;
}

/* b, ls: any statement. */
static stir_stmt *build_stmt(builder *b, const lang_stmt *ls)
{
	switch (ls->kind) {
	case LANG_STMT_STORE: return build_store(b, ls);
	case LANG_STMT_LET: return build_let(b, ls);
	case LANG_STMT_IF: return build_if(b, ls);
	case LANG_STMT_ITER: return build_iter(b, ls);
	case LANG_STMT_FOR: return build_for(b, ls);
	case LANG_STMT_BLOCK: return build_block(b, ls);
	case LANG_STMT_BARRIER:
		return stmt_located(stir_stmt_barrier(b->k), ls->loc);
	default: return NULL; /* init: placed by the parser, never here */
	}
}

/* b, s, owner, t: append s where t says (nothing when either is NULL). */
static void append(builder *b, stir_stmt *s, stir_stmt *owner, target t)
{
	if (!s)
		return;
	switch (t) {
	case TO_KERNEL: stir_kernel_append_stmt(b->k, s); break;
	case TO_THEN: stir_stmt_if_append_then(owner, s); break;
	case TO_ELSE: stir_stmt_if_append_else(owner, s); break;
	case TO_INIT: stir_stmt_iter_append_init(owner, s); break;
	case TO_BODY: stir_stmt_append_body(owner, s); break;
	}
}

/* b, l, owner, t: build a statement list into "owner" (NULL when it failed:
 * the list is still built, for its errors); let names end with it. */
static void build_list(builder *b, const lang_list *l, stir_stmt *owner,
	target t)
{
	int mark = b->n_binds;
	for (int i = 0; l && i < l->v.n; i++) {
		stir_stmt *s = build_stmt(b, l->v.v[i]);
		if (t == TO_KERNEL || owner)
			append(b, s, owner, t);
	}
	unbind_to(b, mark);
}

/* ---- declarations ---- */

/* kind: the constructor's name as written. */
static const char *ctor_name(stir_axis_kind kind)
{
	switch (kind) {
	case STIR_DENSE_FIXED: return "dense_fixed";
	case STIR_DENSE_VARIABLE: return "dense_variable";
	case STIR_SPARSE_FIXED: return "sparse_fixed";
	default: return "sparse_variable";
	}
}

/* The options of an axis constructor. */
typedef struct axis_options {
	stir_dtype idtype;     /* i32 unless given */
	bool sorted;           /* true unless given */
	bool seen_idtype, seen_sorted;
} axis_options;

/* b, a, o: record the option a in o.  0, or -1 after reporting. */
static int axis_option(builder *b, const lang_arg *a, axis_options *o)
{
	bool *seen;
	if (!strcmp(a->option, "idtype")) {
		if (!a->is_type || (a->dtype != STIR_I32 && a->dtype != STIR_I64)) {
			build_error(b, a->loc, "idtype must be i32 or i64");
			return -1;
		}
		o->idtype = a->dtype;
		seen = &o->seen_idtype;
	} else if (!strcmp(a->option, "sorted")) {
		if (a->is_type) {
			build_error(b, a->loc, "sorted must be true or false");
			return -1;
		}
		o->sorted = a->flag;
		seen = &o->seen_sorted;
	} else {
		build_error(b, a->loc, "unknown axis option '%s'", a->option);
		return -1;
	}
	if (*seen) {
		build_error(b, a->loc, "option '%s' given twice", a->option);
		return -1;
	}
	*seen = true;
	return 0;
}

/* b, d, pos, o: split the constructor's arguments into positional ones
 * (the first three go to pos) and options.  Returns the number of
 * positional arguments, or -1 after reporting. */
static int axis_args(builder *b, const lang_decl *d, const lang_arg **pos,
	axis_options *o)
{
	int n = 0, ok = 0;
	bool options = false;
	for (int i = 0; i < d->args->v.n; i++) {
		const lang_arg *a = d->args->v.v[i];
		if (a->option) {
			options = true;
			if (axis_option(b, a, o) < 0)
				ok = -1;
			continue;
		}
		if (options) {
			build_error(b, a->loc, "positional argument after options");
			ok = -1;
		}
		if (n < 3)
			pos[n] = a;
		n++;
	}
	return ok < 0 ? -1 : n;
}

/* b, a: the parent argument of an axis constructor, which must be an
 * axis's name; *later is set when that axis is declared after this one. */
static stir_axis *axis_parent(builder *b, const lang_arg *a, int *later)
{
	if (a->expr->kind != LANG_EXPR_NAME) {
		build_error(b, a->loc, "expected the name of the parent axis");
		return NULL;
	}
	lang_name n = { a->expr->u.name.name, a->loc };
	stir_axis *parent = resolve_axis(b, &n, true);
	if (parent == b->placeholder)
		*later = (int)(lookup(b, n.name) - b->binds);
	return parent;
}

/* b, d, pos: create the axis of declaration d from its positional
 * arguments (their number already checked); *later as for axis_parent. */
static stir_axis *create_axis(builder *b, const lang_decl *d,
	const lang_arg **pos, int *later)
{
	stir_kernel *k = b->k;
	const char *name = d->name.name;
	if (d->axis_kind == STIR_DENSE_FIXED)
		return stir_kernel_add_dense_fixed(k, name,
			build_size(b, pos[0]->expr, "size of axis ", name));
	stir_axis *parent = axis_parent(b, pos[0], later);
	stir_expr *len = build_size(b, pos[1]->expr, "size of axis ", name);
	stir_expr *nnz = build_size(b, pos[2]->expr,
		d->axis_kind == STIR_SPARSE_FIXED ? "column count of axis " :
		"nnz of axis ", name);
	switch (d->axis_kind) {
	case STIR_DENSE_VARIABLE:
		return stir_kernel_add_dense_variable(k, name, parent, len, nnz);
	case STIR_SPARSE_FIXED:
		return stir_kernel_add_sparse_fixed(k, name, parent, len, nnz);
	default:
		return stir_kernel_add_sparse_variable(k, name, parent, len, nnz);
	}
}

/* b, axis, parent_binding: remember to fix the axis's parent. */
static void add_pending(builder *b, stir_axis *axis, int parent_binding)
{
	if (b->n_pending == b->cap_pending) {
		int cap = b->cap_pending ? 2 * b->cap_pending : 8;
		pending_parent *v = realloc(b->pending, (size_t)cap * sizeof(*v));
		if (!v) {
			b->oom = true;
			return;
		}
		b->pending = v;
		b->cap_pending = cap;
	}
	b->pending[b->n_pending].axis = axis;
	b->pending[b->n_pending].binding = parent_binding;
	b->n_pending++;
}

/* b, d, ptr: the declaration d has been built into ptr (NULL when that
 * failed): its binding now means it. */
static void declared(builder *b, const lang_decl *d, void *ptr)
{
	if (d->binding < 0)
		return;
	b->binds[d->binding].ptr = ptr;
	b->binds[d->binding].built = true;
}

/* b, d: axis NAME = ctor(args, options); */
static void build_axis(builder *b, const lang_decl *d)
{
	const lang_arg *pos[3] = { NULL, NULL, NULL };
	axis_options o = { STIR_I32, true, false, false };
	int want = d->axis_kind == STIR_DENSE_FIXED ? 1 : 3;
	int n = axis_args(b, d, pos, &o);
	stir_axis *a = NULL;
	int later = -1;
	if (n >= 0 && n != want)
		build_error(b, d->ctor_loc, "%s takes %d argument%s",
			ctor_name(d->axis_kind), want, want == 1 ? "" : "s");
	else if (n == want)
		a = create_axis(b, d, pos, &later);
	if (a) {
		a->loc = d->name.loc;
		a->idtype = o.idtype;
		a->sorted = o.sorted;
		if (later >= 0)
			add_pending(b, a, later);
	}
	declared(b, d, a);
}

/* b: every axis exists now: give those whose parent is declared later
 * their parent. */
static void fix_parents(builder *b)
{
	for (int i = 0; i < b->n_pending; i++)
		b->pending[i].axis->parent = b->binds[b->pending[i].binding].ptr;
	b->n_pending = 0;
}

/* b, d: tensor or local NAME: TYPE[axes] in [lo, hi); */
static void build_buffer(builder *b, const lang_decl *d)
{
	int n = d->axes ? d->axes->v.n : 0;
	stir_axis **axes = calloc((size_t)(n ? n : 1), sizeof(*axes));
	bool ok = axes != NULL;
	b->oom |= !axes;
	for (int i = 0; axes && i < n; i++)
		if (!(axes[i] = resolve_axis(b, d->axes->v.v[i], false)))
			ok = false;
	stir_buffer *buf = NULL;
	if (ok && d->kind == LANG_DECL_TENSOR)
		buf = stir_kernel_add_tensor(b->k, d->name.name, d->dtype, n, axes);
	else if (ok)
		buf = stir_kernel_add_local(b->k, d->name.name, d->dtype, n, axes);
	free(axes);
	if (d->lo) {
		stir_expr *lo = build_size(b, d->lo, "domain bound of ",
			d->name.name);
		stir_expr *hi = build_size(b, d->hi, "domain bound of ",
			d->name.name);
		stir_buffer_set_domain(buf, lo, hi);
	}
	if (buf)
		buf->loc = d->name.loc;
	declared(b, d, buf);
}

/* b, bt, kind, axis, coo: what the flat buffer binding bt makes of a
 * buffer: its kind, its array name (malloc'd; NULL for an allocated
 * buffer) and, in stage II, the axis whose structure array it is (*axis)
 * and, for a COO array "J.pos_X", the ancestor X (*coo).  *ok is cleared
 * after an error. */
static char *flat_binding(builder *b, const lang_binding *bt,
	stir_buffer_kind *kind, stir_axis **axis, stir_axis **coo, bool *ok)
{
	*kind = STIR_BUFFER_LOCAL;
	*axis = NULL;
	*coo = NULL;
	if (!bt->array.name)
		return NULL;
	size_t len = strlen(bt->array.name) + 1 +
		(bt->field.name ? strlen(bt->field.name) + 1 : 0);
	char *arg = malloc(len);
	if (!arg) {
		b->oom = true;
		*ok = false;
		return NULL;
	}
	*kind = STIR_BUFFER_TENSOR;
	if (!bt->field.name) {
		strcpy(arg, bt->array.name);
		return arg;
	}
	snprintf(arg, len, "%s.%s", bt->array.name, bt->field.name);
	if (!strcmp(bt->field.name, "indptr")) {
		*kind = STIR_BUFFER_INDPTR;
	} else if (!strcmp(bt->field.name, "indices")) {
		*kind = STIR_BUFFER_INDICES;
	} else if (!strncmp(bt->field.name, "pos_", 4) && bt->field.name[4]) {
		*kind = STIR_BUFFER_COO;
	} else {
		build_error(b, bt->field.loc, "unknown structure array '%s': "
			"expected indptr, indices or pos_AXIS", arg);
		*ok = false;
	}
	/* stage III has no axes: the name only names the array */
	if (*ok && b->k->stage == STIR_STAGE_2 &&
	    !(*axis = resolve_axis(b, &bt->array, false)))
		*ok = false;
	if (*ok && b->k->stage == STIR_STAGE_2 && *kind == STIR_BUFFER_COO) {
		lang_name x = { bt->field.name + 4, bt->field.loc };
		x.name = stir_ctx_intern(b->ctx, x.name);
		if (!x.name || !(*coo = resolve_axis(b, &x, false)))
			*ok = false;
	}
	return arg;
}

/* b, d: buffer NAME: TYPE[EXTENT] = BINDING in [lo, hi) SCOPE; a structure
 * array of stage II becomes its axis's auxiliary buffer (the first one
 * declared, when there are several: the verifier reports the others). */
static void build_flat(builder *b, const lang_decl *d)
{
	bool ok = true;
	stir_buffer_kind kind;
	stir_axis *axis, *coo;
	char *arg = flat_binding(b, &d->bound_to, &kind, &axis, &coo, &ok);
	stir_expr *extent = build_size(b, d->extent, "extent of buffer ",
		d->name.name);
	stir_buffer *buf = ok ? stir_kernel_add_flat_buffer(b->k, d->name.name,
		kind, d->dtype, extent, arg) : NULL;
	free(arg);
	if (d->lo) {
		stir_expr *lo = build_size(b, d->lo, "domain bound of ",
			d->name.name);
		stir_expr *hi = build_size(b, d->hi, "domain bound of ",
			d->name.name);
		stir_buffer_set_domain(buf, lo, hi);
	}
	if (buf) {
		buf->loc = d->name.loc;
		buf->scope = d->scope;
		buf->aux_axis = axis;
		buf->coo_axis = coo;
		if (axis && kind == STIR_BUFFER_INDPTR && !axis->indptr_buf)
			axis->indptr_buf = buf;
		if (axis && kind == STIR_BUFFER_INDICES && !axis->indices_buf)
			axis->indices_buf = buf;
	}
	declared(b, d, buf);
}

/* b, lk: bind the parameters (built here) and every declaration (built
 * later): the kernel's namespace holds everywhere in the kernel. */
static void bind_kernel_names(builder *b, const lang_kernel *lk)
{
	for (int i = 0; i < lk->params->v.n; i++) {
		const lang_param *pa = lk->params->v.v[i];
		stir_var *v = stir_kernel_add_param(b->k, pa->name.name, pa->dtype);
		if (v)
			v->loc = pa->name.loc;
		bind(b, pa->name.name, BIND_PARAM, v, pa->name.loc);
	}
	static const bind_kind kinds[] = {
		[LANG_DECL_AXIS] = BIND_AXIS,
		[LANG_DECL_TENSOR] = BIND_TENSOR,
		[LANG_DECL_LOCAL] = BIND_LOCAL,
		[LANG_DECL_FLAT] = BIND_FLAT,
	};
	for (int i = 0; i < lk->decls->v.n; i++) {
		lang_decl *d = lk->decls->v.v[i];
		d->binding = bind(b, d->name.name, kinds[d->kind], NULL,
			d->name.loc);
	}
}

/* b, lk: one kernel: declarations, axes first (buffers refer to them),
 * then tensors, locals and flat buffers in the order written (which is
 * the kernel's buffer order), then the statements. */
static void build_kernel(builder *b, const lang_kernel *lk)
{
	b->k = stir_module_add_kernel(b->m, lk->name.name);
	if (!b->k)
		return;
	b->k->loc = lk->name.loc;
	b->k->stage = lk->stage;
	bind_kernel_names(b, lk);
	if (b->oom)
		return;
	for (int i = 0; i < lk->decls->v.n; i++) {
		const lang_decl *d = lk->decls->v.v[i];
		if (d->kind == LANG_DECL_AXIS)
			build_axis(b, d);
	}
	fix_parents(b);
	for (int i = 0; i < lk->decls->v.n; i++) {
		const lang_decl *d = lk->decls->v.v[i];
		if (d->kind == LANG_DECL_FLAT)
			build_flat(b, d);
		else if (d->kind != LANG_DECL_AXIS)
			build_buffer(b, d);
	}
	build_list(b, lk->stmts, NULL, TO_KERNEL);
	unbind_to(b, 0);
	/* the text carries the link of blocks and init nests in names */
	if (b->k->stage != STIR_STAGE_1 && stir_kernel_link_inits(b->k) < 0)
		b->oom = true;
}

/* b: release the builder's own memory. */
static void builder_release(builder *b)
{
	free(b->binds);
	free(b->slots);
	free(b->pending);
}

/* ctx, kernels: see ast.h. */
stir_module *lang_build(stir_ctx *ctx, const lang_list *kernels)
{
	builder b;
	memset(&b, 0, sizeof(b));
	b.ctx = ctx;
	b.m = stir_module_alloc(ctx);
	if (!b.m)
		return NULL;
	b.placeholder = stir_arena_alloc(&b.m->arena, sizeof(stir_axis));
	for (int i = 0; b.placeholder && !b.oom && i < kernels->v.n; i++)
		build_kernel(&b, kernels->v.v[i]);
	builder_release(&b);
	if (b.oom || b.m->arena.failed || !b.placeholder)
		stir_error_oom(ctx);
	if (b.oom || b.m->arena.failed || !b.placeholder || b.n_errors > 0) {
		stir_module_free(b.m);
		return NULL;
	}
	return b.m;
}
