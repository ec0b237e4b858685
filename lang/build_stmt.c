/* The builder's expressions, sizes and statements (lang/build.c says how
 * names are resolved and how errors are reported; lang/build.h holds the
 * state they share).  Every node built gets the location of its source
 * (docs/language.md section 7). */
#include <stdlib.h>
#include <string.h>
#include "lang/build.h"
#include "ir/intrinsics.h"
#include "ir/ops.h"

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
	binding *bd = build_resolve(b, n);
	if (!bd)
		return NULL;
	if (bd->kind != BIND_TENSOR && bd->kind != BIND_LOCAL &&
	    bd->kind != BIND_FLAT) {
		if (!bd->dup)
			build_error(b, n->loc, "%s '%s' cannot be indexed",
				build_kind_name(bd->kind), n->name);
		return NULL;
	}
	return bd->ptr;
}

/* b, e: a name alone: a parameter, iterator or let variable. */
static stir_expr *build_name(builder *b, const lang_expr *e)
{
	lang_name n = { e->u.name.name, e->loc };
	binding *bd = build_resolve(b, &n);
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
				build_kind_name(bd->kind), n.name);
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
			stir_dtype_get_name(t));
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
			stir_dtype_get_name(e->u.type.dtype));
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
		binding *bd = build_lookup(b, e->u.name.name);
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
stir_expr *build_size(builder *b, const lang_expr *e, const char *what,
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
	build_bind(b, n->name, BIND_LET, v, n->loc);
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
		stir_axis *a = build_resolve_axis(b, lg->axes->v.v[i], false);
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
		build_bind(b, n->name, BIND_ITER, v, n->loc);
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
	build_unbind_to(b, mark);
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
		s->u.for_.batch = ls->u.for_.loop.batch;
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
	build_bind(b, n->name, BIND_LOOP, v, n->loc);
	build_list(b, ls->u.for_.body, s, TO_BODY);
	if (s && ls->u.for_.loop.vecs)
		build_vec_plan(b, ls->u.for_.loop.vecs, s);
	build_unbind_to(b, mark);
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

/* b, ls: block NAME(v: S = e, ..) [iter P | init P] reads(..) writes(..)
 * { body }; the variables hold in the regions and the body. */
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
	if (s && ls->u.block.link.iter.name) {
		s->u.block.iter = stir_ctx_intern(b->ctx,
			ls->u.block.link.iter.name);
		s->u.block.init = ls->u.block.link.init;
		b->oom |= !s->u.block.iter;
		b->linked = true;
	}
	stmt_located(s, ls->loc);
	int mark = b->n_binds;
	for (int i = 0; vars && i < n; i++)
		build_bind(b, ((lang_block_var *)ls->u.block.vars->v.v[i])->name.name,
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
	build_unbind_to(b, mark);
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
void build_list(builder *b, const lang_list *l, stir_stmt *owner,
	target t)
{
	int mark = b->n_binds;
	for (int i = 0; l && i < l->v.n; i++) {
		stir_stmt *s = build_stmt(b, l->v.v[i]);
		if (t == TO_KERNEL || owner)
			append(b, s, owner, t);
	}
	build_unbind_to(b, mark);
}
