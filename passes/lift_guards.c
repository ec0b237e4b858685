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
#include "ir/visit.h"

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

/* slot, user: stop the walk at a node whose value may differ between
 * the lanes of threadIdx.x (user: the lifter): a variable marked so, an
 * access of a register array (a warp buffer does not differ). */
static stir_visit_step lane_node(stir_expr **slot, void *user)
{
	const lifter *L = user;
	const stir_expr *x = *slot;
	bool differs = (x->kind == STIR_EXPR_VAR && L->depx[x->u.var->slot]) ||
		(x->kind == STIR_EXPR_LOAD &&
		 x->u.load.buf->scope == STIR_SCOPE_LOCAL) ||
		(x->kind == STIR_EXPR_SEARCH &&
		 x->u.search.buf->scope == STIR_SCOPE_LOCAL);
	return differs ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* L, x: whether x may differ between the lanes of threadIdx.x. */
static bool dep_x(const lifter *L, const stir_expr *x)
{
	stir_visitor v = { NULL, NULL, lane_node, NULL, 0, (void *)L };
	stir_expr *slot = (stir_expr *)x;
	return stir_visit_expr(&v, &slot);
}

/* s, user: depx (in the lifter) of the variables s binds; the walk meets
 * them in order, each binding after the variables it uses. */
static stir_visit_step analyse(stir_stmt *s, void *user)
{
	lifter *L = user;
	if (s->kind == STIR_STMT_FOR)
		L->depx[s->u.for_.var->slot] = s->u.for_.kind == STIR_LOOP_BIND &&
			s->u.for_.thread == STIR_THREAD_X;
	else if (s->kind == STIR_STMT_BLOCK)
		for (int i = 0; i < s->u.block.n_vars; i++)
			L->depx[s->u.block.vars[i]->slot] =
				dep_x(L, s->u.block.bindings[i]);
	else if (s->kind == STIR_STMT_LET)
		L->depx[s->u.let.var->slot] = dep_x(L, s->u.let.value);
	return STIR_VISIT_GO;
}

/* L, list: analyse every statement of list and those nested in it. */
static void analyse_list(lifter *L, const stir_ptr_vec *list)
{
	stir_visitor v = { analyse, NULL, NULL, NULL, 0, L };
	stir_visit_list(&v, (stir_ptr_vec *)list);
}

/* s, user: stop the walk at a store into a warp buffer. */
static stir_visit_step warp_store(stir_stmt *s, void *user)
{
	(void)user;
	return s->kind == STIR_STMT_STORE &&
		s->u.store.buf->scope == STIR_SCOPE_WARP ? STIR_VISIT_STOP :
		STIR_VISIT_GO;
}

/* slot, user: stop the walk at a load or search of a warp buffer. */
static stir_visit_step warp_read(stir_expr **slot, void *user)
{
	const stir_expr *x = *slot;
	(void)user;
	return (x->kind == STIR_EXPR_LOAD &&
		x->u.load.buf->scope == STIR_SCOPE_WARP) ||
		(x->kind == STIR_EXPR_SEARCH &&
		 x->u.search.buf->scope == STIR_SCOPE_WARP) ? STIR_VISIT_STOP :
		STIR_VISIT_GO;
}

/* list: whether a statement of list, or one in it, accesses a warp
 * buffer. */
static bool list_uses_warp(const stir_ptr_vec *list)
{
	stir_visitor v = { warp_store, NULL, warp_read, NULL, 0, NULL };
	return stir_visit_list(&v, (stir_ptr_vec *)list);
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
	    !lifted(L, x) && !stir_expr_reads_data(x->u.if_.cond) &&
	    (!dep_x(L, x->u.if_.cond) || !list_uses_warp(&x->u.if_.then_body)))
		g = x;
	else if (x->kind == STIR_STMT_FOR && x->u.for_.kind != STIR_LOOP_BIND)
		g = guard_of_nest(L, x);
	return g && !stir_expr_uses(g->u.if_.cond, s->u.for_.var) ? g : NULL;
}

static void decide_list(lifter *L, const stir_ptr_vec *list);

/* L, s: the decisions for s and the statements in it, in the order the
 * nests are met from the outside in. */
static void decide(lifter *L, stir_stmt *s)
{
	stir_ptr_vec *lists[2];
	if (s->kind != STIR_STMT_FOR) {
		int n = stir_stmt_lists(s, lists);
		for (int i = 0; i < n; i++)
			decide_list(L, lists[i]);
		return;
	}
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
	stir_ptr_vec *lists[2];
	int n = stir_stmt_lists(s, lists);
	for (int i = 0; i < n; i++)
		if (replace_list(lists[i], old, new))
			return true;
	return false;
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
