/* The one structural equality of the IR (visit.h): of expressions and
 * statements under a stir_eq that says what to ignore, and of modules
 * (stir_module_is_equal): two modules are equal when they hold the same
 * program, whatever the source locations.  Axes and buffers are compared
 * by their position in their kernel, so equal modules also agree on
 * declaration order (an axis's auxiliary buffers and a buffer's axis
 * likewise); variables by name, kind and type; float literals bit for bit
 * (so -0.0 differs from 0.0).  A loop's thread counts only for a loop
 * bound to one. */
#include <string.h>
#include "ir/visit.h"

/* a, b: two strings, either possibly NULL. */
static bool str_equal(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* eq, a, b: two axes, by identity or (STIR_EQ_REF_BY_INDEX) position. */
static bool axis_ref_equal(const stir_eq *eq, const stir_axis *a,
	const stir_axis *b)
{
	return a == b || ((eq->flags & STIR_EQ_REF_BY_INDEX) && a && b &&
		a->index == b->index);
}

/* eq, a, b: two buffers, by identity or position. */
static bool buffer_ref_equal(const stir_eq *eq, const stir_buffer *a,
	const stir_buffer *b)
{
	return a == b || ((eq->flags & STIR_EQ_REF_BY_INDEX) && a && b &&
		a->index == b->index);
}

/* eq, a, b: two variables, by identity, by eq->canon, or by what they
 * print as (STIR_EQ_VAR_BY_NAME). */
static bool var_equal(const stir_eq *eq, const stir_var *a, const stir_var *b)
{
	if (a == b)
		return true;
	if (!a || !b)
		return false;
	if (eq->canon)
		return eq->canon(a, eq->user) == eq->canon(b, eq->user);
	return (eq->flags & STIR_EQ_VAR_BY_NAME) &&
		str_equal(a->name, b->name) &&
		a->kind == b->kind && a->dtype == b->dtype;
}

static bool expr_equal(const stir_eq *eq, const stir_expr *a,
	const stir_expr *b);

/* eq, n, a, b: two arrays of n expressions. */
static bool exprs_equal(const stir_eq *eq, int n, stir_expr *const *a,
	stir_expr *const *b)
{
	for (int i = 0; i < n; i++)
		if (!expr_equal(eq, a[i], b[i]))
			return false;
	return true;
}

/* eq, a, b: two expressions of the same kind and type; their contents. */
static bool expr_fields_equal(const stir_eq *eq, const stir_expr *a,
	const stir_expr *b)
{
	switch (a->kind) {
	case STIR_EXPR_INT:
		return a->u.i == b->u.i;
	case STIR_EXPR_FLOAT:
		return !memcmp(&a->u.f, &b->u.f, sizeof(double));
	case STIR_EXPR_VAR:
		return var_equal(eq, a->u.var, b->u.var);
	case STIR_EXPR_LOAD:
		return buffer_ref_equal(eq, a->u.load.buf, b->u.load.buf) &&
			a->u.load.n == b->u.load.n &&
			exprs_equal(eq, a->u.load.n, a->u.load.idx,
				b->u.load.idx);
	case STIR_EXPR_UNARY:
		return a->u.unary.op == b->u.unary.op &&
			expr_equal(eq, a->u.unary.a, b->u.unary.a);
	case STIR_EXPR_BINARY:
		return a->u.binary.op == b->u.binary.op &&
			expr_equal(eq, a->u.binary.a, b->u.binary.a) &&
			expr_equal(eq, a->u.binary.b, b->u.binary.b);
	case STIR_EXPR_SELECT:
		return expr_equal(eq, a->u.select.c, b->u.select.c) &&
			expr_equal(eq, a->u.select.a, b->u.select.a) &&
			expr_equal(eq, a->u.select.b, b->u.select.b);
	case STIR_EXPR_CALL:
		return a->u.call.f == b->u.call.f &&
			a->u.call.n == b->u.call.n &&
			exprs_equal(eq, a->u.call.n, a->u.call.args,
				b->u.call.args);
	case STIR_EXPR_CAST:
		return expr_equal(eq, a->u.cast.a, b->u.cast.a);
	case STIR_EXPR_SEARCH:
		return a->u.search.op == b->u.search.op &&
			buffer_ref_equal(eq, a->u.search.buf,
				b->u.search.buf) &&
			expr_equal(eq, a->u.search.lo, b->u.search.lo) &&
			expr_equal(eq, a->u.search.hi, b->u.search.hi) &&
			expr_equal(eq, a->u.search.x, b->u.search.x);
	}
	return false;
}

/* eq, v: the expression eq->expand gives variable expression v, or NULL. */
static const stir_expr *expansion(const stir_eq *eq, const stir_expr *v)
{
	return eq->expand && v->kind == STIR_EXPR_VAR ?
		eq->expand(v->u.var, eq->user) : NULL;
}

/* eq, a, b: two expressions, either possibly NULL. */
static bool expr_equal(const stir_eq *eq, const stir_expr *a,
	const stir_expr *b)
{
	if (!a || !b)
		return a == b && !(eq->flags & STIR_EQ_NULL_UNEQUAL);
	if (a == b && !eq->expand)
		return true;
	const stir_expr *x;
	if ((x = expansion(eq, a)))
		return expr_equal(eq, x, b);
	if ((x = expansion(eq, b)))
		return expr_equal(eq, a, x);
	if (eq->canon && a->kind == STIR_EXPR_VAR && b->kind == STIR_EXPR_VAR)
		return var_equal(eq, a->u.var, b->u.var);
	return a->kind == b->kind && a->dtype == b->dtype &&
		expr_fields_equal(eq, a, b);
}

/* The equality of eq NULL: identity. */
static const stir_eq identity_eq = { 0, NULL, NULL, NULL };

/* eq, a, b: see visit.h. */
bool stir_expr_equal(const stir_eq *eq, const stir_expr *a, const stir_expr *b)
{
	return expr_equal(eq ? eq : &identity_eq, a, b);
}

/* a, b: see visit.h. */
bool stir_expr_same(const stir_expr *a, const stir_expr *b)
{
	return expr_equal(&identity_eq, a, b);
}

static bool stmts_equal(const stir_eq *eq, const stir_ptr_vec *a,
	const stir_ptr_vec *b);

/* eq, a, b: two iteration groups. */
static bool group_equal(const stir_eq *eq, const stir_iter_group *a,
	const stir_iter_group *b)
{
	if (a->kind != b->kind || a->n_axes != b->n_axes || a->coo != b->coo ||
	    !axis_ref_equal(eq, a->attach_parent, b->attach_parent))
		return false;
	for (int i = 0; i < a->n_axes; i++)
		if (!axis_ref_equal(eq, a->axes[i], b->axes[i]))
			return false;
	return true;
}

/* eq, a, b: two iterations: name, axis list, iterators, kinds, init, body. */
static bool iter_equal(const stir_eq *eq, const stir_stmt *a,
	const stir_stmt *b)
{
	if (!str_equal(a->u.iter.name, b->u.iter.name) ||
	    !str_equal(a->u.iter.kinds, b->u.iter.kinds) ||
	    a->u.iter.n_groups != b->u.iter.n_groups ||
	    a->u.iter.n_vars != b->u.iter.n_vars)
		return false;
	for (int i = 0; i < a->u.iter.n_groups; i++)
		if (!group_equal(eq, &a->u.iter.groups[i],
				&b->u.iter.groups[i]))
			return false;
	for (int i = 0; i < a->u.iter.n_vars; i++)
		if (!var_equal(eq, a->u.iter.vars[i], b->u.iter.vars[i]))
			return false;
	return stmts_equal(eq, &a->u.iter.init, &b->u.iter.init) &&
		stmts_equal(eq, &a->u.iter.body, &b->u.iter.body);
}

/* eq, a, b: the vector plans of two loops (ir/vector.h). */
static bool vec_notes_equal(const stir_eq *eq, const stir_stmt *a,
	const stir_stmt *b)
{
	if (a->u.for_.planned != b->u.for_.planned ||
	    a->u.for_.n_vecs != b->u.for_.n_vecs)
		return false;
	for (int i = 0; i < a->u.for_.n_vecs; i++)
		if (a->u.for_.vecs[i].flags != b->u.for_.vecs[i].flags ||
		    !expr_equal(eq, a->u.for_.vecs[i].access,
		    b->u.for_.vecs[i].access))
			return false;
	return true;
}

/* eq, a, b: two loops: variable, extent, annotation, body, vector plan. */
static bool for_equal(const stir_eq *eq, const stir_stmt *a, const stir_stmt *b)
{
	return var_equal(eq, a->u.for_.var, b->u.for_.var) &&
		expr_equal(eq, a->u.for_.extent, b->u.for_.extent) &&
		a->u.for_.kind == b->u.for_.kind &&
		(a->u.for_.kind != STIR_LOOP_BIND ||
		 a->u.for_.thread == b->u.for_.thread) &&
		(a->u.for_.kind != STIR_LOOP_PIPELINE ||
		 (a->u.for_.stages == b->u.for_.stages &&
		  a->u.for_.batch == b->u.for_.batch)) &&
		(a->u.for_.kind != STIR_LOOP_TENSORIZE ||
		 (a->u.for_.intrinsic && b->u.for_.intrinsic &&
		  !strcmp(a->u.for_.intrinsic, b->u.for_.intrinsic))) &&
		stmts_equal(eq, &a->u.for_.body, &b->u.for_.body) &&
		vec_notes_equal(eq, a, b);
}

/* eq, n, a, b: two lists of n regions: buffers and ranges. */
static bool regions_equal(const stir_eq *eq, int n, const stir_region *a,
	const stir_region *b)
{
	for (int i = 0; i < n; i++) {
		if (!buffer_ref_equal(eq, a[i].buf, b[i].buf) ||
		    a[i].n != b[i].n ||
		    !exprs_equal(eq, a[i].n, a[i].lo, b[i].lo) ||
		    !exprs_equal(eq, a[i].n, a[i].hi, b[i].hi))
			return false;
	}
	return true;
}

/* eq, a, b: two blocks: name, variables with their letters and bindings,
 * annotations, link to an iteration, regions, body. */
static bool block_equal(const stir_eq *eq, const stir_stmt *a,
	const stir_stmt *b)
{
	if (!str_equal(a->u.block.name, b->u.block.name) ||
	    !str_equal(a->u.block.kinds, b->u.block.kinds) ||
	    a->u.block.n_vars != b->u.block.n_vars ||
	    a->u.block.flags != b->u.block.flags ||
	    !str_equal(a->u.block.iter, b->u.block.iter) ||
	    a->u.block.init != b->u.block.init ||
	    a->u.block.n_reads != b->u.block.n_reads ||
	    a->u.block.n_writes != b->u.block.n_writes)
		return false;
	for (int i = 0; i < a->u.block.n_vars; i++)
		if (!var_equal(eq, a->u.block.vars[i], b->u.block.vars[i]))
			return false;
	return exprs_equal(eq, a->u.block.n_vars, a->u.block.bindings,
			b->u.block.bindings) &&
		regions_equal(eq, a->u.block.n_reads, a->u.block.reads,
			b->u.block.reads) &&
		regions_equal(eq, a->u.block.n_writes, a->u.block.writes,
			b->u.block.writes) &&
		stmts_equal(eq, &a->u.block.body, &b->u.block.body);
}

/* eq, a, b: two statements. */
static bool stmt_equal(const stir_eq *eq, const stir_stmt *a,
	const stir_stmt *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case STIR_STMT_STORE:
		return buffer_ref_equal(eq, a->u.store.buf, b->u.store.buf) &&
			a->u.store.op == b->u.store.op &&
			a->u.store.n == b->u.store.n &&
			exprs_equal(eq, a->u.store.n, a->u.store.idx,
				b->u.store.idx) &&
			expr_equal(eq, a->u.store.value, b->u.store.value);
	case STIR_STMT_LET:
		return var_equal(eq, a->u.let.var, b->u.let.var) &&
			expr_equal(eq, a->u.let.value, b->u.let.value);
	case STIR_STMT_IF:
		return expr_equal(eq, a->u.if_.cond, b->u.if_.cond) &&
			stmts_equal(eq, &a->u.if_.then_body,
				&b->u.if_.then_body) &&
			stmts_equal(eq, &a->u.if_.else_body,
				&b->u.if_.else_body);
	case STIR_STMT_ITER:
		return iter_equal(eq, a, b);
	case STIR_STMT_FOR:
		return for_equal(eq, a, b);
	case STIR_STMT_BLOCK:
		return block_equal(eq, a, b);
	case STIR_STMT_BARRIER:
		return true;
	}
	return false;
}

/* eq, a, b: two statement lists. */
static bool stmts_equal(const stir_eq *eq, const stir_ptr_vec *a,
	const stir_ptr_vec *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (!stmt_equal(eq, stir_stmt_at(a, i), stir_stmt_at(b, i)))
			return false;
	return true;
}

/* eq, a, b: two axes at the same position of their kernels. */
static bool axis_equal(const stir_eq *eq, const stir_axis *a,
	const stir_axis *b)
{
	return str_equal(a->name, b->name) && a->kind == b->kind &&
		axis_ref_equal(eq, a->parent, b->parent) &&
		expr_equal(eq, a->len, b->len) &&
		expr_equal(eq, a->nnz, b->nnz) &&
		a->idtype == b->idtype && a->sorted == b->sorted &&
		buffer_ref_equal(eq, a->indptr_buf, b->indptr_buf) &&
		buffer_ref_equal(eq, a->indices_buf, b->indices_buf);
}

/* eq, a, b: two buffers at the same position of their kernels. */
static bool buffer_equal(const stir_eq *eq, const stir_buffer *a,
	const stir_buffer *b)
{
	if (!str_equal(a->name, b->name) || a->kind != b->kind ||
	    a->dtype != b->dtype || a->n_axes != b->n_axes ||
	    a->distinct != b->distinct ||
	    !expr_equal(eq, a->domain_lo, b->domain_lo) ||
	    !expr_equal(eq, a->domain_hi, b->domain_hi) ||
	    !expr_equal(eq, a->extent, b->extent) ||
	    !str_equal(a->arg, b->arg) ||
	    !axis_ref_equal(eq, a->aux_axis, b->aux_axis) ||
	    !axis_ref_equal(eq, a->coo_axis, b->coo_axis) ||
	    a->scope != b->scope)
		return false;
	for (int i = 0; i < a->n_axes; i++)
		if (!axis_ref_equal(eq, a->axes[i], b->axes[i]))
			return false;
	return true;
}

/* eq, a, b: two kernels: header, declarations in order, body. */
static bool kernel_equal(const stir_eq *eq, const stir_kernel *a,
	const stir_kernel *b)
{
	if (!str_equal(a->name, b->name) || a->stage != b->stage ||
	    a->params.n != b->params.n || a->axes.n != b->axes.n ||
	    a->buffers.n != b->buffers.n)
		return false;
	for (int i = 0; i < a->params.n; i++)
		if (!var_equal(eq, stir_var_at(&a->params, i),
				stir_var_at(&b->params, i)))
			return false;
	for (int i = 0; i < a->axes.n; i++)
		if (!axis_equal(eq, stir_axis_at(&a->axes, i),
				stir_axis_at(&b->axes, i)))
			return false;
	for (int i = 0; i < a->buffers.n; i++)
		if (!buffer_equal(eq, stir_buffer_at(&a->buffers, i),
				stir_buffer_at(&b->buffers, i)))
			return false;
	return stmts_equal(eq, &a->body, &b->body);
}

/* a, b: two modules (NULL equals only NULL). */
bool stir_module_is_equal(const stir_module *a, const stir_module *b)
{
	static const stir_eq by_text = {
		STIR_EQ_VAR_BY_NAME | STIR_EQ_REF_BY_INDEX, NULL, NULL, NULL
	};
	const stir_eq *eq = &by_text;
	if (!a || !b)
		return a == b;
	if (a->kernels.n != b->kernels.n)
		return false;
	for (int i = 0; i < a->kernels.n; i++)
		if (!kernel_equal(eq, stir_kernel_at(&a->kernels, i),
				stir_kernel_at(&b->kernels, i)))
			return false;
	return true;
}

/* eq, a, b: see visit.h. */
bool stir_stmt_equal(const stir_eq *eq, const stir_stmt *a, const stir_stmt *b)
{
	return stmt_equal(eq ? eq : &identity_eq, a, b);
}

/* eq, a, b: see visit.h. */
bool stir_list_equal(const stir_eq *eq, const stir_ptr_vec *a,
	const stir_ptr_vec *b)
{
	return stmts_equal(eq ? eq : &identity_eq, a, b);
}
