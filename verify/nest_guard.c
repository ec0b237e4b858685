/* The if a loop nest may test once before it (passes/lift_guards.c says
 * which, and lifts it; verify/launch.c prints a vectorized loop's scalar
 * fallback so): what may differ between the lanes of threadIdx.x, and the
 * guard of a nest. */
#include <stdlib.h>
#include "verify/nest_guard.h"
#include "verify/gpu.h"
#include "ir/util.h"
#include "ir/visit.h"

/* slot, user: stop the walk at a node whose value may differ between
 * the lanes of threadIdx.x (user: the gpu_lanes): a variable marked so, an
 * access of a register array (a warp buffer does not differ). */
static stir_visit_step lane_node(stir_expr **slot, void *user)
{
	const gpu_lanes *L = user;
	const stir_expr *x = *slot;
	bool differs = (x->kind == STIR_EXPR_VAR && L->depx[x->u.var->slot]) ||
		(x->kind == STIR_EXPR_LOAD &&
		 x->u.load.buf->scope == STIR_SCOPE_LOCAL) ||
		(x->kind == STIR_EXPR_SEARCH &&
		 x->u.search.buf->scope == STIR_SCOPE_LOCAL);
	return differs ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* L, x: whether x may differ between the lanes of threadIdx.x. */
static bool dep_x(const gpu_lanes *L, const stir_expr *x)
{
	stir_visitor v = { NULL, NULL, lane_node, NULL, 0, (void *)L };
	stir_expr *slot = (stir_expr *)x;
	return stir_visit_expr(&v, &slot);
}

/* s, user: depx (in the gpu_lanes) of the variables s binds; the walk meets
 * them in order, each binding after the variables it uses. */
static stir_visit_step analyse(stir_stmt *s, void *user)
{
	gpu_lanes *L = user;
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
static void analyse_list(gpu_lanes *L, const stir_ptr_vec *list)
{
	stir_visitor v = { analyse, NULL, NULL, NULL, 0, L };
	stir_visit_list(&v, (stir_ptr_vec *)list);
}

/* L, k: see nest_guard.h. */
int gpu_lanes_init(gpu_lanes *L, const stir_kernel *k)
{
	*L = (gpu_lanes){ .k = k };
	L->depx = calloc((size_t)k->n_vars + 1, sizeof(bool));
	if (!L->depx)
		return -1;
	analyse_list(L, &k->body);
	return 0;
}

/* L: see nest_guard.h. */
void gpu_lanes_release(gpu_lanes *L)
{
	free(L->depx);
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
static bool lifted(const gpu_lanes *L, const stir_stmt *s)
{
	for (int i = 0; i < L->n_stack; i++)
		if (L->stack[i] == s)
			return true;
	return false;
}

/* The walk of reads_kept: the statement the reads must not be written
 * by, and whether one is. */
typedef struct kept {
	const stir_stmt *s;
	bool written;
} kept;

/* slot, user: a load or search of a buffer the statement (user: a kept)
 * writes stops the walk. */
static stir_visit_step read_written(stir_expr **slot, void *user)
{
	kept *k = user;
	const stir_expr *x = *slot;
	const stir_buffer *b = x->kind == STIR_EXPR_LOAD ? x->u.load.buf :
		x->kind == STIR_EXPR_SEARCH ? x->u.search.buf : NULL;
	k->written = b && stir_stmt_writes(k->s, b);
	return k->written ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* cond, s: whether cond reads no buffer that statement s writes. */
static bool reads_kept(const stir_expr *cond, const stir_stmt *s)
{
	kept k = { s, false };
	stir_visitor v = { NULL, NULL, read_written, NULL, 0, &k };
	stir_expr *slot = (stir_expr *)cond;
	stir_visit_expr(&v, &slot);
	return !k.written;
}

/* s: whether s is a loop tensorized as an mma with an operand gathered
 * (rows picked by a load). */
static bool gathered_nest(const stir_stmt *s)
{
	stir_mma_match m;
	return s->kind == STIR_STMT_FOR &&
		s->u.for_.kind == STIR_LOOP_TENSORIZE && gpu_mma_match(s, &m) &&
		m.form == STIR_MMA_FORM_MMA && (m.a.gather || m.b.gather);
}

/* s: whether loop s runs at least once: a literal extent of 1 or more. */
static bool runs(const stir_stmt *s)
{
	const stir_expr *e = s->u.for_.extent;
	return e->kind == STIR_EXPR_INT && e->u.i >= 1;
}

/* L, s, ran: gpu_nest_guard, with ran whether every loop around s in
 * the nest runs at least once (a condition that reads memory is then
 * read at the nest's first iteration anyway). */
static stir_stmt *nest_guard(const gpu_lanes *L, const stir_stmt *s, bool ran)
{
	const stir_ptr_vec *b = &s->u.for_.body;
	if (b->n != 1)
		return NULL;
	ran = ran && runs(s);
	stir_stmt *x = stir_stmt_at(b, 0), *g = NULL;
	/* (a reading condition: only around one tensorized nest with a
	 * gathered operand, the steps of an unrolled loop, whose fragments'
	 * loads the tests between the steps keep in turn) */
	bool mma_steps = s->u.for_.kind == STIR_LOOP_UNROLL &&
		x->kind == STIR_STMT_IF && x->u.if_.then_body.n == 1 &&
		gathered_nest(stir_stmt_at(&x->u.if_.then_body, 0));
	if (x->kind == STIR_STMT_IF && !x->u.if_.else_body.n &&
	    !lifted(L, x) && (!stir_expr_reads_data(x->u.if_.cond) ||
	    (ran && mma_steps && reads_kept(x->u.if_.cond, x))) &&
	    (!dep_x(L, x->u.if_.cond) || !list_uses_warp(&x->u.if_.then_body)))
		g = x;
	else if (x->kind == STIR_STMT_FOR && x->u.for_.kind != STIR_LOOP_BIND)
		g = nest_guard(L, x, ran);
	return g && !stir_expr_uses(g->u.if_.cond, s->u.for_.var) ? g : NULL;
}

/* L, s: see nest_guard.h. */
stir_stmt *gpu_nest_guard(const gpu_lanes *L, const stir_stmt *s)
{
	return nest_guard(L, s, true);
}

/* k, s: see nest_guard.h. */
const stir_stmt *stir_nest_guard(const stir_kernel *k, const stir_stmt *s)
{
	gpu_lanes L;
	if (s->kind != STIR_STMT_FOR || s->u.for_.kind == STIR_LOOP_BIND ||
	    gpu_lanes_init(&L, k) < 0)
		return NULL;
	const stir_stmt *g = gpu_nest_guard(&L, s);
	gpu_lanes_release(&L);
	return g;
}
