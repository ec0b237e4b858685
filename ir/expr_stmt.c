/* Construction and inspection of expressions and statements, stage I's
 * and the stage II and III ones of ir/nodes.h (include/stir/ir.h); the
 * declarations they use -- modules, kernels, axes, buffers, variables --
 * are built in ir/module.c.
 *
 * Constructors type each expression as it is built, following
 * LANGUAGE.md: a literal (or an expression of literals alone) takes the
 * type of the other operand, integers of different widths promote to the
 * wider one, and anything else must already agree.  Constructors never
 * reject a program; disagreements are left for the verifier, which reports
 * them with the nodes' locations. */
#include <stdlib.h>
#include <string.h>
#include "ir/nodes.h"

/* ---- expressions ---- */

/* k: the kernel whose arena receives a new expression of kind "kind". */
static stir_expr *expr_new(stir_kernel *k, stir_expr_kind kind, stir_dtype dtype)
{
	stir_expr *e = stir_arena_alloc(stir_kernel_arena(k), sizeof(*e));
	if (!e)
		return NULL;
	e->kind = kind;
	e->dtype = dtype;
	return e;
}

/* k, n, src: an arena copy of n expressions, or NULL when any is NULL. */
static stir_expr **expr_array(stir_kernel *k, int n, stir_expr *const *src)
{
	if (n < 0 || (n > 0 && !src))
		return NULL;
	stir_expr **v = stir_arena_alloc(stir_kernel_arena(k),
		(size_t)(n ? n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (!src[i])
			return NULL;
		v[i] = src[i];
	}
	return v;
}

void stir_expr_adopt_type(stir_expr *e, stir_dtype t)
{
	if (!e || !e->flexible || e->dtype == t)
		return;
	switch (e->kind) {
	case STIR_EXPR_INT:
		if (stir_dtype_is_int(t) || stir_dtype_is_float(t))
			e->dtype = t;
		break;
	case STIR_EXPR_FLOAT:
		if (stir_dtype_is_float(t))
			e->dtype = t;
		break;
	case STIR_EXPR_UNARY:
		stir_expr_adopt_type(e->u.unary.a, t);
		e->dtype = e->u.unary.a->dtype;
		break;
	case STIR_EXPR_BINARY:
		stir_expr_adopt_type(e->u.binary.a, t);
		stir_expr_adopt_type(e->u.binary.b, t);
		e->dtype = e->u.binary.a->dtype;
		break;
	case STIR_EXPR_SELECT:
		stir_expr_adopt_type(e->u.select.a, t);
		stir_expr_adopt_type(e->u.select.b, t);
		e->dtype = e->u.select.a->dtype;
		break;
	case STIR_EXPR_CALL:
		for (int i = 0; i < e->u.call.n; i++)
			stir_expr_adopt_type(e->u.call.args[i], t);
		e->dtype = e->u.call.args[0]->dtype;
		break;
	default:
		break;
	}
}

/* a, b: two operands that must agree; a flexible one takes the other's
 * type, and of two flexible ones an integer one becomes float when the
 * other is.  Returns the operands' common type (the wider of two integer
 * types), or a's type when they disagree (the verifier reports that). */
static stir_dtype unify(stir_expr *a, stir_expr *b)
{
	if (a->flexible && !b->flexible)
		stir_expr_adopt_type(a, b->dtype);
	else if (b->flexible && !a->flexible)
		stir_expr_adopt_type(b, a->dtype);
	else if (a->flexible && b->flexible) {
		if (stir_dtype_is_float(a->dtype))
			stir_expr_adopt_type(b, a->dtype);
		else if (stir_dtype_is_float(b->dtype))
			stir_expr_adopt_type(a, b->dtype);
	}
	if (stir_dtype_is_int(a->dtype) && stir_dtype_is_int(b->dtype))
		return stir_int_rank(a->dtype) >= stir_int_rank(b->dtype) ?
			a->dtype : b->dtype;
	return a->dtype;
}

stir_expr *stir_expr_int(stir_kernel *k, int64_t value)
{
	if (!k)
		return NULL;
	/* i32 unless the value needs i64 (a size beyond 2^31 - 1 written as
	 * a literal must not be counted in i32) */
	stir_expr *e = expr_new(k, STIR_EXPR_INT, value == (int32_t)value ?
		STIR_I32 : STIR_I64);
	if (e) {
		e->u.i = value;
		e->flexible = true;
	}
	return e;
}

stir_expr *stir_expr_bool(stir_kernel *k, bool value)
{
	if (!k)
		return NULL;
	stir_expr *e = expr_new(k, STIR_EXPR_INT, STIR_BOOL);
	if (e)
		e->u.i = value;
	return e;
}

stir_expr *stir_expr_float(stir_kernel *k, double value)
{
	if (!k)
		return NULL;
	stir_expr *e = expr_new(k, STIR_EXPR_FLOAT, STIR_F32);
	if (e) {
		e->u.f = value;
		e->flexible = true;
	}
	return e;
}

stir_expr *stir_expr_var(stir_kernel *k, stir_var *v)
{
	if (!k || !v)
		return NULL;
	stir_expr *e = expr_new(k, STIR_EXPR_VAR, v->dtype);
	if (e)
		e->u.var = v;
	return e;
}

stir_expr *stir_expr_load(stir_kernel *k, stir_buffer *b, int n,
	stir_expr *const *idx)
{
	if (!k || !b)
		return NULL;
	stir_expr **v = expr_array(k, n, idx);
	stir_expr *e = v ? expr_new(k, STIR_EXPR_LOAD, b->dtype) : NULL;
	if (!e)
		return NULL;
	e->u.load.buf = b;
	e->u.load.n = n;
	e->u.load.idx = v;
	return e;
}

/* k, op, a: negation of a literal folds into the literal, so that "-1.0"
 * prints and reads back as the same node. */
stir_expr *stir_expr_unary(stir_kernel *k, stir_unop op, stir_expr *a)
{
	if (!k || !a)
		return NULL;
	if (op == STIR_NEG && a->flexible && a->kind == STIR_EXPR_INT &&
	    a->u.i != INT64_MIN) {
		a->u.i = -a->u.i;
		return a;
	}
	if (op == STIR_NEG && a->flexible && a->kind == STIR_EXPR_FLOAT) {
		a->u.f = -a->u.f;
		return a;
	}
	stir_expr *e = expr_new(k, STIR_EXPR_UNARY,
		op == STIR_NOT ? STIR_BOOL : a->dtype);
	if (!e)
		return NULL;
	e->u.unary.op = op;
	e->u.unary.a = a;
	e->flexible = op == STIR_NEG && a->flexible;
	return e;
}

/* Whether op compares (and gives bool). */
static bool is_comparison(stir_binop op)
{
	return op >= STIR_LT && op <= STIR_NE;
}

stir_expr *stir_expr_binary(stir_kernel *k, stir_binop op, stir_expr *a,
	stir_expr *b)
{
	if (!k || !a || !b)
		return NULL;
	stir_dtype t = STIR_BOOL;
	bool flexible = false;
	if (op != STIR_AND && op != STIR_OR) {
		stir_dtype common = unify(a, b);
		if (!is_comparison(op)) {
			t = common;
			/* integer division of literals must not turn into float
			 * division later, so it keeps its integer type */
			flexible = a->flexible && b->flexible &&
				!((op == STIR_DIV || op == STIR_MOD) &&
				  stir_dtype_is_int(t));
		}
	}
	stir_expr *e = expr_new(k, STIR_EXPR_BINARY, t);
	if (!e)
		return NULL;
	e->u.binary.op = op;
	e->u.binary.a = a;
	e->u.binary.b = b;
	e->flexible = flexible;
	return e;
}

stir_expr *stir_expr_select(stir_kernel *k, stir_expr *c, stir_expr *a,
	stir_expr *b)
{
	if (!k || !c || !a || !b)
		return NULL;
	stir_dtype t = unify(a, b);
	stir_expr *e = expr_new(k, STIR_EXPR_SELECT, t);
	if (!e)
		return NULL;
	e->u.select.c = c;
	e->u.select.a = a;
	e->u.select.b = b;
	e->flexible = a->flexible && b->flexible;
	return e;
}

stir_expr *stir_expr_call(stir_kernel *k, stir_func f, int n,
	stir_expr *const *args)
{
	if (!k || n < 1)
		return NULL;
	stir_expr **v = expr_array(k, n, args);
	if (!v)
		return NULL;
	stir_dtype t = v[0]->dtype;
	bool flexible = v[0]->flexible;
	if ((f == STIR_MIN || f == STIR_MAX) && n == 2) {
		t = unify(v[0], v[1]);
		flexible = v[0]->flexible && v[1]->flexible;
	} else if (f != STIR_MIN && f != STIR_MAX && f != STIR_ABS &&
		   v[0]->flexible && !stir_dtype_is_float(v[0]->dtype)) {
		/* exp(1) means exp(1.0) */
		stir_expr_adopt_type(v[0], STIR_F32);
		t = v[0]->dtype;
	}
	stir_expr *e = expr_new(k, STIR_EXPR_CALL, t);
	if (!e)
		return NULL;
	e->u.call.f = f;
	e->u.call.n = n;
	e->u.call.args = v;
	e->flexible = flexible;
	return e;
}

stir_expr *stir_expr_cast(stir_kernel *k, stir_dtype dtype, stir_expr *a)
{
	if (!k || !a)
		return NULL;
	stir_expr *e = expr_new(k, STIR_EXPR_CAST, dtype);
	if (e)
		e->u.cast.a = a;
	return e;
}

stir_expr_kind stir_expr_get_kind(const stir_expr *e)
{
	return e->kind;
}

stir_dtype stir_expr_get_dtype(const stir_expr *e)
{
	return e->dtype;
}

/* ---- statements ---- */

/* k: the kernel whose arena receives a new statement of kind "kind". */
static stir_stmt *stmt_new(stir_kernel *k, stir_stmt_kind kind)
{
	stir_stmt *s = stir_arena_alloc(stir_kernel_arena(k), sizeof(*s));
	if (!s)
		return NULL;
	s->kind = kind;
	s->kernel = k;
	return s;
}

/* k: see nodes.h. */
stir_stmt *stir_stmt_barrier(stir_kernel *k)
{
	return stmt_new(k, STIR_STMT_BARRIER);
}

int stir_kernel_append_stmt(stir_kernel *k, stir_stmt *s)
{
	if (!k || !s)
		return -1;
	return stir_ptr_vec_push(stir_kernel_arena(k), &k->body, s);
}

stir_stmt *stir_stmt_store(stir_kernel *k, stir_buffer *b, int n,
	stir_expr *const *idx, stir_store_op op, stir_expr *value)
{
	if (!k || !b || !value)
		return NULL;
	stir_expr **v = expr_array(k, n, idx);
	stir_stmt *s = v ? stmt_new(k, STIR_STMT_STORE) : NULL;
	if (!s)
		return NULL;
	stir_expr_adopt_type(value, b->dtype);
	s->u.store.buf = b;
	s->u.store.n = n;
	s->u.store.idx = v;
	s->u.store.op = op;
	s->u.store.value = value;
	return s;
}

stir_stmt *stir_stmt_let(stir_kernel *k, const char *name, stir_expr *value)
{
	if (!k || !name || !value)
		return NULL;
	stir_stmt *s = stmt_new(k, STIR_STMT_LET);
	stir_var *v = s ? stir_kernel_new_var(k, name, STIR_VAR_LET,
		value->dtype) : NULL;
	if (!v)
		return NULL;
	s->u.let.var = v;
	s->u.let.value = value;
	return s;
}

stir_var *stir_stmt_let_get_var(stir_stmt *s)
{
	return s && s->kind == STIR_STMT_LET ? s->u.let.var : NULL;
}

stir_stmt *stir_stmt_if(stir_kernel *k, stir_expr *cond)
{
	if (!k || !cond)
		return NULL;
	stir_stmt *s = stmt_new(k, STIR_STMT_IF);
	if (s)
		s->u.if_.cond = cond;
	return s;
}

int stir_stmt_if_append_then(stir_stmt *s, stir_stmt *child)
{
	if (!s || !child || s->kind != STIR_STMT_IF)
		return -1;
	return stir_ptr_vec_push(stir_kernel_arena(s->kernel), &s->u.if_.then_body,
		child);
}

int stir_stmt_if_append_else(stir_stmt *s, stir_stmt *child)
{
	if (!s || !child || s->kind != STIR_STMT_IF)
		return -1;
	return stir_ptr_vec_push(stir_kernel_arena(s->kernel), &s->u.if_.else_body,
		child);
}

/* groups, n_groups: an iteration's axis list; the i-th member axis (fuse
 * groups count one per member), or NULL past the end. */
static stir_axis *member_axis(const stir_iter_group *groups, int n_groups,
	int i)
{
	for (int g = 0; g < n_groups; g++) {
		if (i < groups[g].n_axes)
			return groups[g].axes[i];
		i -= groups[g].n_axes;
	}
	return NULL;
}

/* k, name, groups, var_names, kinds: see ir.h.  The i-th iterator iterates
 * the i-th member axis (fuse groups contribute one member per axis). */
stir_stmt *stir_stmt_iter(stir_kernel *k, const char *name, int n_groups,
	const stir_iter_group *groups, int n_vars, const char *const *var_names,
	const char *kinds)
{
	if (!k || !name || n_groups < 0 || n_vars < 0 || !kinds ||
	    (n_groups && !groups) || (n_vars && !var_names))
		return NULL;
	stir_arena *ar = stir_kernel_arena(k);
	stir_stmt *s = stmt_new(k, STIR_STMT_ITER);
	if (!s)
		return NULL;
	s->u.iter.name = stir_module_intern(k->module, name);
	s->u.iter.kinds = stir_arena_strdup(ar, kinds);
	s->u.iter.n_groups = n_groups;
	s->u.iter.groups = stir_arena_alloc(ar,
		(size_t)(n_groups ? n_groups : 1) * sizeof(stir_iter_group));
	s->u.iter.n_vars = n_vars;
	s->u.iter.vars = stir_arena_alloc(ar,
		(size_t)(n_vars ? n_vars : 1) * sizeof(stir_var *));
	if (!s->u.iter.name || !s->u.iter.kinds || !s->u.iter.groups ||
	    !s->u.iter.vars)
		return NULL;
	for (int g = 0; g < n_groups; g++) {
		const stir_iter_group *src = &groups[g];
		stir_iter_group *dst = &s->u.iter.groups[g];
		if (src->n_axes < 1 || !src->axes)
			return NULL;
		*dst = *src;
		dst->axes = stir_arena_alloc(ar, (size_t)src->n_axes * sizeof(stir_axis *));
		if (!dst->axes)
			return NULL;
		for (int i = 0; i < src->n_axes; i++) {
			if (!src->axes[i])
				return NULL;
			dst->axes[i] = src->axes[i];
		}
		if (src->kind == STIR_GROUP_ATTACH && !src->attach_parent)
			return NULL;
	}
	for (int i = 0; i < n_vars; i++) {
		if (!var_names[i])
			return NULL;
		stir_axis *axis = member_axis(s->u.iter.groups, n_groups, i);
		stir_var *v = stir_kernel_new_var(k, var_names[i], STIR_VAR_ITER,
			axis ? axis->idtype : STIR_I32);
		if (!v)
			return NULL;
		v->axis = axis;
		s->u.iter.vars[i] = v;
	}
	return s;
}

int stir_stmt_iter_n_vars(const stir_stmt *s)
{
	return s->kind == STIR_STMT_ITER ? s->u.iter.n_vars : 0;
}

stir_var *stir_stmt_iter_get_var(const stir_stmt *s, int i)
{
	if (s->kind != STIR_STMT_ITER || i < 0 || i >= s->u.iter.n_vars)
		return NULL;
	return s->u.iter.vars[i];
}

int stir_stmt_iter_append_init(stir_stmt *s, stir_stmt *child)
{
	if (!s || !child || s->kind != STIR_STMT_ITER)
		return -1;
	return stir_ptr_vec_push(stir_kernel_arena(s->kernel), &s->u.iter.init,
		child);
}

int stir_stmt_iter_append_body(stir_stmt *s, stir_stmt *child)
{
	if (!s || !child || s->kind != STIR_STMT_ITER)
		return -1;
	return stir_ptr_vec_push(stir_kernel_arena(s->kernel), &s->u.iter.body,
		child);
}

stir_stmt_kind stir_stmt_get_kind(const stir_stmt *s)
{
	return s->kind;
}

/* ---- stage II and III nodes (internal, see ir/nodes.h) ---- */

const char *stir_block_flag_name(unsigned flag)
{
	switch (flag) {
	case STIR_BLOCK_ATOMIC: return "atomic";
	case STIR_BLOCK_CROSS_THREAD: return "cross_thread";
	case STIR_BLOCK_HORIZONTAL: return "horizontal";
	default: return NULL;
	}
}

stir_expr *stir_expr_search(stir_kernel *k, stir_search op, stir_buffer *buf,
	stir_expr *lo, stir_expr *hi, stir_expr *x)
{
	if (!k || !buf || !lo || !hi || !x)
		return NULL;
	stir_expr *e = expr_new(k, STIR_EXPR_SEARCH, stir_int_rank(lo->dtype) >=
		stir_int_rank(hi->dtype) ? lo->dtype : hi->dtype);
	if (!e)
		return NULL;
	e->u.search.op = op;
	e->u.search.buf = buf;
	e->u.search.lo = lo;
	e->u.search.hi = hi;
	e->u.search.x = x;
	return e;
}

stir_stmt *stir_stmt_for(stir_kernel *k, stir_var *var, stir_expr *extent)
{
	if (!k || !var || !extent)
		return NULL;
	stir_stmt *s = stmt_new(k, STIR_STMT_FOR);
	if (!s)
		return NULL;
	s->u.for_.var = var;
	s->u.for_.extent = extent;
	return s;
}

stir_stmt *stir_stmt_block(stir_kernel *k, const char *name, int n_vars,
	stir_var *const *vars, stir_expr *const *bindings, const char *kinds)
{
	if (!k || !name || n_vars < 0 || !kinds || (int)strlen(kinds) != n_vars)
		return NULL;
	stir_arena *ar = stir_kernel_arena(k);
	stir_stmt *s = stmt_new(k, STIR_STMT_BLOCK);
	if (!s)
		return NULL;
	size_t n = (size_t)(n_vars ? n_vars : 1);
	s->u.block.name = stir_module_intern(k->module, name);
	s->u.block.kinds = stir_arena_strdup(ar, kinds);
	s->u.block.vars = stir_arena_alloc(ar, n * sizeof(stir_var *));
	s->u.block.bindings = expr_array(k, n_vars, bindings);
	if (!s->u.block.name || !s->u.block.kinds || !s->u.block.vars ||
	    !s->u.block.bindings)
		return NULL;
	for (int i = 0; i < n_vars; i++) {
		if (!vars[i])
			return NULL;
		s->u.block.vars[i] = vars[i];
	}
	s->u.block.n_vars = n_vars;
	return s;
}

stir_ptr_vec *stir_stmt_body(stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_FOR: return &s->u.for_.body;
	case STIR_STMT_BLOCK: return &s->u.block.body;
	case STIR_STMT_ITER: return &s->u.iter.body;
	default: return NULL;
	}
}

int stir_stmt_append_body(stir_stmt *s, stir_stmt *child)
{
	stir_ptr_vec *body = s && child ? stir_stmt_body(s) : NULL;
	if (!body)
		return -1;
	return stir_ptr_vec_push(stir_kernel_arena(s->kernel), body, child);
}
