/* lift_guards (include/stir/passes.h): split guards tested once before
 * the loop nests they are in (docs/cuda.md, "Searches"; docs/ir.md).
 *
 * A split's tail guard "if (vi < n)" sits in the innermost body of the
 * loops a split made, and lowering leaves it there.  When the condition
 * reads no memory and uses none of the nest's variables, testing it once
 * before the nest gives the same result and leaves the loads of the
 * nest's body free to run ahead of each other:
 *
 *   for a in [0, A) { for b in [0, B) { if (c) { S } } }
 *   ->  if (c) { for a in [0, A) { for b in [0, B) { S } } }
 *
 * The nest: a serial, unrolled or vectorized loop (not a bound one) and
 * the loops each holding only the next (not bound ones); its innermost
 * body is the one if, without else.  A vectorized loop is not the outer
 * loop of a nest (its guards are the vector path's, docs/cuda.md) but may
 * be inside one.  A condition that may differ between the lanes of a warp
 * (it depends on threadIdx.x) stays where it is when the body uses a warp
 * buffer: the shuffles that hoisting puts before the nest's loops need
 * every lane.  An if lifted out of a nest is not lifted again, and the
 * loops of the nest do not look past the place it was (the decisions are
 * made on the program as written, outermost loop first, and applied
 * after); at most STIR_MAX_LIFTED lifted ifs enclose one another.  An if
 * lifted out of a loop of the kernel's top level takes the loop's
 * location too: it is the launch now, named after that line.
 *
 * Requires: a verified stage III kernel.
 * Keeps: what the kernel computes (the condition has the same value at
 * every iteration of the nest, and a nest that runs no iteration runs
 * nothing either way).
 * Breaks: nothing. */
#include <stdlib.h>
#include <stir/passes.h>
#include "passes/passes.h"
#include "ir/util.h"

#define STIR_MAX_LIFTED 16

/* One decision: loop "loop" is wrapped in if "guard", which leaves the
 * place it had in the nest. */
typedef struct lift {
	stir_stmt *loop, *guard;
} lift;

typedef struct lifter {
	stir_kernel *k;
	bool *depx;                /* per slot: the value may differ between
	                              the lanes of threadIdx.x */
	int n_stack;               /* lifted ifs enclosing the walk */
	const stir_stmt *stack[STIR_MAX_LIFTED];
	int n, cap;
	lift *v;                   /* heap: the decisions, outermost first */
	bool oom;
} lifter;

/* L, x: whether x may differ between the lanes of threadIdx.x (a
 * register array may differ in every thread, a warp buffer does not). */
static bool dep_x(const lifter *L, const stir_expr *x)
{
	switch (x->kind) {
	case STIR_EXPR_VAR:
		return L->depx[x->u.var->slot];
	case STIR_EXPR_LOAD:
		return x->u.load.buf->scope == STIR_SCOPE_LOCAL ||
			dep_x(L, x->u.load.idx[0]);
	case STIR_EXPR_UNARY:
		return dep_x(L, x->u.unary.a);
	case STIR_EXPR_BINARY:
		return dep_x(L, x->u.binary.a) || dep_x(L, x->u.binary.b);
	case STIR_EXPR_SELECT:
		return dep_x(L, x->u.select.c) || dep_x(L, x->u.select.a) ||
			dep_x(L, x->u.select.b);
	case STIR_EXPR_CALL:
		for (int i = 0; i < x->u.call.n; i++)
			if (dep_x(L, x->u.call.args[i]))
				return true;
		return false;
	case STIR_EXPR_CAST:
		return dep_x(L, x->u.cast.a);
	case STIR_EXPR_SEARCH:
		return x->u.search.buf->scope == STIR_SCOPE_LOCAL ||
			dep_x(L, x->u.search.lo) || dep_x(L, x->u.search.hi) ||
			dep_x(L, x->u.search.x);
	default:
		return false;
	}
}

static void analyse_list(lifter *L, const stir_ptr_vec *list);

/* L, s: depx of the variables s and its children define, in order. */
static void analyse(lifter *L, const stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_FOR:
		L->depx[s->u.for_.var->slot] = s->u.for_.kind == STIR_LOOP_BIND &&
			s->u.for_.thread == STIR_THREAD_X;
		analyse_list(L, &s->u.for_.body);
		return;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++)
			L->depx[s->u.block.vars[i]->slot] =
				dep_x(L, s->u.block.bindings[i]);
		analyse_list(L, &s->u.block.body);
		return;
	case STIR_STMT_LET:
		L->depx[s->u.let.var->slot] = dep_x(L, s->u.let.value);
		return;
	case STIR_STMT_IF:
		analyse_list(L, &s->u.if_.then_body);
		analyse_list(L, &s->u.if_.else_body);
		return;
	default:
		return;
	}
}

/* L, list: analyse of each statement. */
static void analyse_list(lifter *L, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		analyse(L, stir_stmt_at(list, i));
}

/* x, scope, v: whether x reads memory (scope -1), or a buffer of that
 * scope; whether it uses variable v (v not NULL). */
static bool expr_has(const stir_expr *x, int scope, const stir_var *v)
{
	if (!x)
		return false;
	switch (x->kind) {
	case STIR_EXPR_VAR:
		return v && x->u.var == v;
	case STIR_EXPR_LOAD:
		if (!v && (scope < 0 || (int)x->u.load.buf->scope == scope))
			return true;
		return expr_has(x->u.load.idx[0], scope, v);
	case STIR_EXPR_UNARY:
		return expr_has(x->u.unary.a, scope, v);
	case STIR_EXPR_BINARY:
		return expr_has(x->u.binary.a, scope, v) ||
			expr_has(x->u.binary.b, scope, v);
	case STIR_EXPR_SELECT:
		return expr_has(x->u.select.c, scope, v) ||
			expr_has(x->u.select.a, scope, v) ||
			expr_has(x->u.select.b, scope, v);
	case STIR_EXPR_CALL:
		for (int i = 0; i < x->u.call.n; i++)
			if (expr_has(x->u.call.args[i], scope, v))
				return true;
		return false;
	case STIR_EXPR_CAST:
		return expr_has(x->u.cast.a, scope, v);
	case STIR_EXPR_SEARCH:
		if (!v && (scope < 0 || (int)x->u.search.buf->scope == scope))
			return true;
		return expr_has(x->u.search.lo, scope, v) ||
			expr_has(x->u.search.hi, scope, v) ||
			expr_has(x->u.search.x, scope, v);
	default:
		return false;
	}
}

static bool list_uses_warp(const stir_ptr_vec *list);

/* s: whether s or a statement in it accesses a warp buffer. */
static bool stmt_uses_warp(const stir_stmt *s)
{
	const int w = STIR_SCOPE_WARP;
	switch (s->kind) {
	case STIR_STMT_STORE:
		return s->u.store.buf->scope == STIR_SCOPE_WARP ||
			expr_has(s->u.store.idx[0], w, NULL) ||
			expr_has(s->u.store.value, w, NULL);
	case STIR_STMT_LET:
		return expr_has(s->u.let.value, w, NULL);
	case STIR_STMT_IF:
		return expr_has(s->u.if_.cond, w, NULL) ||
			list_uses_warp(&s->u.if_.then_body) ||
			list_uses_warp(&s->u.if_.else_body);
	case STIR_STMT_FOR:
		return expr_has(s->u.for_.extent, w, NULL) ||
			list_uses_warp(&s->u.for_.body);
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++)
			if (expr_has(s->u.block.bindings[i], w, NULL))
				return true;
		return list_uses_warp(&s->u.block.body);
	default:
		return false;
	}
}

/* list: stmt_uses_warp of some statement of list. */
static bool list_uses_warp(const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		if (stmt_uses_warp(stir_stmt_at(list, i)))
			return true;
	return false;
}

/* L, s: whether if s is lifted already. */
static bool lifted(const lifter *L, const stir_stmt *s)
{
	for (int i = 0; i < L->n_stack; i++)
		if (L->stack[i] == s)
			return true;
	return false;
}

/* L, s: the if that loop nest s may test once before it, or NULL (see
 * the top of the file). */
static stir_stmt *guard_of_nest(const lifter *L, const stir_stmt *s)
{
	const stir_ptr_vec *b = &s->u.for_.body;
	if (b->n != 1)
		return NULL;
	stir_stmt *x = stir_stmt_at(b, 0), *g = NULL;
	if (x->kind == STIR_STMT_IF && !x->u.if_.else_body.n &&
	    !lifted(L, x) && !expr_has(x->u.if_.cond, -1, NULL) &&
	    (!dep_x(L, x->u.if_.cond) || !list_uses_warp(&x->u.if_.then_body)))
		g = x;
	else if (x->kind == STIR_STMT_FOR && x->u.for_.kind != STIR_LOOP_BIND)
		g = guard_of_nest(L, x);
	return g && !expr_has(g->u.if_.cond, -1, s->u.for_.var) ? g : NULL;
}

static void decide_list(lifter *L, const stir_ptr_vec *list);

/* L, s: the decisions for s and the statements in it, in the order the
 * nests are met from the outside in. */
static void decide(lifter *L, stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_IF:
		decide_list(L, &s->u.if_.then_body);
		decide_list(L, &s->u.if_.else_body);
		return;
	case STIR_STMT_BLOCK:
		decide_list(L, &s->u.block.body);
		return;
	case STIR_STMT_FOR: {
		stir_stmt *g = s->u.for_.kind != STIR_LOOP_BIND &&
			s->u.for_.kind != STIR_LOOP_VECTORIZE &&
			L->n_stack < STIR_MAX_LIFTED ? guard_of_nest(L, s) : NULL;
		if (!g) {
			decide_list(L, &s->u.for_.body);
			return;
		}
		if (L->n == L->cap) {
			int cap = L->cap ? 2 * L->cap : 8;
			lift *v = realloc(L->v, (size_t)cap * sizeof(*v));
			if (!v) {
				L->oom = true;
				return;
			}
			L->v = v;
			L->cap = cap;
		}
		L->v[L->n++] = (lift){ s, g };
		L->stack[L->n_stack++] = g;
		decide_list(L, &s->u.for_.body);
		L->n_stack--;
		return;
	}
	default:
		return;
	}
}

/* L, list: decide of each statement. */
static void decide_list(lifter *L, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n && !L->oom; i++)
		decide(L, stir_stmt_at(list, i));
}

/* list, old, new: replace statement old of list by new; whether it
 * was there. */
static bool replace_in(stir_ptr_vec *list, const stir_stmt *old,
	stir_stmt *new)
{
	for (int i = 0; i < list->n; i++)
		if (list->v[i] == old) {
			list->v[i] = new;
			return true;
		}
	return false;
}

static bool replace_list(stir_ptr_vec *list, const stir_stmt *old,
	stir_stmt *new);

/* s, old, new: replace_in the list of s, or of a statement in it, that
 * holds old. */
static bool replace_stmt(stir_stmt *s, const stir_stmt *old, stir_stmt *new)
{
	switch (s->kind) {
	case STIR_STMT_IF:
		return replace_list(&s->u.if_.then_body, old, new) ||
			replace_list(&s->u.if_.else_body, old, new);
	case STIR_STMT_FOR:
		return replace_list(&s->u.for_.body, old, new);
	case STIR_STMT_BLOCK:
		return replace_list(&s->u.block.body, old, new);
	default:
		return false;
	}
}

/* list, old, new: replace_in list or a list nested in it. */
static bool replace_list(stir_ptr_vec *list, const stir_stmt *old,
	stir_stmt *new)
{
	if (replace_in(list, old, new))
		return true;
	for (int i = 0; i < list->n; i++)
		if (replace_stmt(stir_stmt_at(list, i), old, new))
			return true;
	return false;
}

/* k, d: apply decision d: the guard leaves the nest (the one-statement
 * body that held it holds its body instead) and wraps the loop. */
static int apply(stir_kernel *k, const lift *d)
{
	stir_stmt *g = d->guard, *s = d->loop;
	/* the body that holds g: a loop of the nest's whose body is g alone */
	stir_stmt *x = s;
	stir_ptr_vec one = { 0 };
	if (stir_ptr_vec_push(stir_kernel_arena(k), &one, s) < 0)
		return -1;
	while (stir_stmt_at(&x->u.for_.body, 0) != g)
		x = stir_stmt_at(&x->u.for_.body, 0);
	/* at the top level the if becomes the launch, which is named after
	 * where the loop was (docs/cuda.md) */
	if (replace_in(&k->body, s, g))
		g->loc = s->loc;
	else if (!replace_list(&k->body, s, g))
		return -1;
	x->u.for_.body = g->u.if_.then_body;
	g->u.if_.then_body = one;
	return 0;
}

/* k: see passes.h. */
int stir_kernel_lift_guards(stir_kernel *k)
{
	if (!k)
		return -1;
	stir_ctx *ctx = stir_kernel_ctx(k);
	if (k->stage != STIR_STAGE_3) {
		stir_error(ctx, k->loc, "lift_guards: kernel '%s' is at stage %d; "
			"the pass takes stage III", k->name, (int)k->stage);
		return -1;
	}
	if (stir_kernel_verify(k) < 0)
		return -1;
	lifter L = { .k = k };
	L.depx = calloc((size_t)k->n_vars + 1, sizeof(bool));
	if (!L.depx) {
		stir_error_oom(ctx);
		return -1;
	}
	analyse_list(&L, &k->body);
	decide_list(&L, &k->body);
	int rc = L.oom ? -1 : 0;
	if (L.oom)
		stir_error_oom(ctx);
	for (int i = 0; rc == 0 && i < L.n; i++)
		if (apply(k, &L.v[i]) < 0) {
			stir_error_oom(ctx);
			rc = -1;
		}
	free(L.depx);
	free(L.v);
	return rc < 0 ? -1 : stir_kernel_verify(k);
}

/* k, s: see passes/passes.h. */
const stir_stmt *stir_nest_guard(const stir_kernel *k, const stir_stmt *s)
{
	lifter L = { .k = (stir_kernel *)k };
	if (s->kind != STIR_STMT_FOR || s->u.for_.kind == STIR_LOOP_BIND)
		return NULL;
	L.depx = calloc((size_t)k->n_vars + 1, sizeof(bool));
	if (!L.depx)
		return NULL;
	analyse_list(&L, &k->body);
	const stir_stmt *g = guard_of_nest(&L, s);
	free(L.depx);
	return g;
}
