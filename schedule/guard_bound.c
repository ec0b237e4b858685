/* guard_to_bound (include/stir/schedule.h): a split's tail guard made the
 * bound of the loop it tests.
 *
 * A split by [P, null] leaves, around everything its inner loop v runs,
 * the tail guard "A + v < B" (A the outer loop's share, B the extent);
 * a thread block whose share is past the end still runs every iteration
 * of v, each doing nothing but its tests and barriers (RGMS's apply in 32
 * pieces: of AIFB's 3,328 thread blocks 2,164 hold no tile, and their
 * warps ran half the launch's instructions, bench/RESULTS.md).  When every
 * statement of v's body that does something is under that guard, the loop
 * may stop where the guard turns false:
 *
 *   for v in [0, E) { ... if (A + v < B) { S } ... }
 *   ->  for v in [0, min(E, B - A)) { ... if (true) { S } ... }
 *
 * Requires: a serial loop (not bound, unrolled, vectorized, tensorized or
 * pipelined); an if in its body (the first met, depth first) testing
 * "A + v < B" or "v < B" with no else, A and B using no variable bound
 * inside the loop and reading no buffer the loop writes; every statement
 * of the body that stores, or runs a tensorized or pipelined loop, inside
 * an if with that same condition (lets, barriers and the loops and blocks
 * around such ifs do nothing on their own); when the body holds a barrier,
 * A and B the same for every thread of a block (using no loop bound to
 * threadIdx, nor a variable whose value does), so that all of them pass
 * it the same number of times.
 * Keeps: what the kernel computes (an iteration past the bound ran no
 * store).  Breaks: nothing; the ifs stay, their condition true. */
#include "schedule/sched.h"
#include "ir/visit.h"

/* The request: the loop, its guard's condition and the parts of it. */
typedef struct guard_bound {
	sched *s;
	stir_stmt *loop;
	const stir_expr *cond;   /* the guard's condition, NULL until found */
	const stir_expr *a, *b;  /* A (NULL for "v < B") and B */
	const stir_stmt *bad;    /* a statement the guard does not cover */
} guard_bound;

/* g, c: whether c is "A + v < B" or "v < B" for the loop's variable v, A
 * and B not using v; sets g->a and g->b. */
static bool tail_guard(guard_bound *g, const stir_expr *c)
{
	const stir_var *v = g->loop->u.for_.var;
	if (c->kind != STIR_EXPR_BINARY || c->u.binary.op != STIR_LT)
		return false;
	const stir_expr *l = c->u.binary.a, *a = NULL;
	if (l->kind == STIR_EXPR_BINARY && l->u.binary.op == STIR_ADD &&
	    l->u.binary.b->kind == STIR_EXPR_VAR)
		a = l->u.binary.a, l = l->u.binary.b;
	if (l->kind != STIR_EXPR_VAR || sched_canon(g->s, l->u.var) != v ||
	    (a && stir_expr_uses(a, v)) || stir_expr_uses(c->u.binary.b, v))
		return false;
	g->a = a;
	g->b = c->u.binary.b;
	return true;
}

/* g, list: find the guard: the first if in list (depth first) whose
 * condition tail_guard takes. */
static void find_guard(guard_bound *g, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n && !g->cond; i++) {
		const stir_stmt *x = stir_stmt_at(list, i);
		if (x->kind == STIR_STMT_IF && !x->u.if_.else_body.n &&
		    tail_guard(g, x->u.if_.cond))
			g->cond = x->u.if_.cond;
		else if (x->kind == STIR_STMT_IF)
			find_guard(g, &x->u.if_.then_body);
		else if (x->kind == STIR_STMT_FOR)
			find_guard(g, &x->u.for_.body);
		else if (x->kind == STIR_STMT_BLOCK)
			find_guard(g, &x->u.block.body);
	}
}

/* g, x: whether x is an if with the guard's condition. */
static bool is_guard(const guard_bound *g, const stir_stmt *x)
{
	return x->kind == STIR_STMT_IF && !x->u.if_.else_body.n &&
		sched_same(g->s, x->u.if_.cond, g->cond);
}

static bool covered_list(guard_bound *g, const stir_ptr_vec *list);

/* g, x: whether x does nothing when the guard is false (g->bad: the first
 * statement that would). */
static bool covered(guard_bound *g, const stir_stmt *x)
{
	switch (x->kind) {
	case STIR_STMT_LET:
	case STIR_STMT_BARRIER:
		return true;
	case STIR_STMT_IF:
		return is_guard(g, x) || (covered_list(g, &x->u.if_.then_body) &&
			covered_list(g, &x->u.if_.else_body));
	case STIR_STMT_FOR:
		if (x->u.for_.kind != STIR_LOOP_TENSORIZE &&
		    x->u.for_.kind != STIR_LOOP_PIPELINE)
			return covered_list(g, &x->u.for_.body);
		break;
	case STIR_STMT_BLOCK:
		return covered_list(g, &x->u.block.body);
	default:
		break;
	}
	g->bad = x;
	return false;
}

static bool covered_list(guard_bound *g, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		if (!covered(g, stir_stmt_at(list, i)))
			return false;
	return true;
}

/* x, user (the guard_bound): stop at a statement binding a variable the
 * guard's A or B uses. */
static stir_visit_step binds_used(stir_stmt *x, void *user)
{
	const guard_bound *g = user;
	const stir_var *const *vars = NULL;
	const stir_var *one = NULL;
	int n = 0;
	if (x->kind == STIR_STMT_FOR)
		one = x->u.for_.var, vars = &one, n = 1;
	else if (x->kind == STIR_STMT_LET)
		one = x->u.let.var, vars = &one, n = 1;
	else if (x->kind == STIR_STMT_BLOCK)
		vars = (const stir_var *const *)x->u.block.vars,
		n = x->u.block.n_vars;
	for (int i = 0; i < n; i++)
		if ((g->a && stir_expr_uses(g->a, vars[i])) ||
		    stir_expr_uses(g->b, vars[i]))
			return STIR_VISIT_STOP;
	return STIR_VISIT_GO;
}

/* x: stop at a barrier. */
static stir_visit_step is_barrier(stir_stmt *x, void *user)
{
	(void)user;
	return x->kind == STIR_STMT_BARRIER ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* g, list: every guard in list made "true". */
static void make_true(guard_bound *g, stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++) {
		stir_stmt *x = stir_stmt_at(list, i);
		if (is_guard(g, x)) {
			x->u.if_.cond = sched_check(g->s, stir_expr_bool(g->s->k, true));
			continue;
		}
		if (x->kind == STIR_STMT_IF) {
			make_true(g, &x->u.if_.then_body);
			make_true(g, &x->u.if_.else_body);
		} else if (x->kind == STIR_STMT_FOR) {
			make_true(g, &x->u.for_.body);
		} else if (x->kind == STIR_STMT_BLOCK) {
			make_true(g, &x->u.block.body);
		}
	}
}

/* g: check the request (sched_fail on the first problem). */
static void check(guard_bound *g, const sched_path *p, int li,
	const char *loop)
{
	sched *s = g->s;
	stir_stmt *l = g->loop;
	const char *ann = sched_loop_annotation(l);
	if (ann) {
		sched_fail(s, l->loc, "loop '%s' is %s, not serial", loop, ann);
		return;
	}
	find_guard(g, &l->u.for_.body);
	if (!g->cond) {
		sched_fail(s, l->loc, "loop '%s' has no tail guard '... + %s < "
			"...' in its body", loop, loop);
		return;
	}
	stir_visitor v = { binds_used, NULL, NULL, NULL, 0, g };
	if (stir_visit_list(&v, &l->u.for_.body)) {
		sched_fail(s, l->loc, "the tail guard '%s' of loop '%s' uses a "
			"variable bound inside the loop", sched_str(s, g->cond), loop);
		return;
	}
	for (int i = 0; i < s->k->buffers.n; i++) {
		const stir_buffer *b = s->k->buffers.v[i];
		if (stir_expr_reads(g->cond, b) && stir_stmt_writes(l, b)) {
			sched_fail(s, l->loc, "the tail guard '%s' of loop '%s' "
				"reads '%s', which the loop writes",
				sched_str(s, g->cond), loop, b->name);
			return;
		}
	}
	if (!covered_list(g, &l->u.for_.body)) {
		sched_fail(s, g->bad->loc, "this statement in loop '%s' is not "
			"under its tail guard '%s'", loop, sched_str(s, g->cond));
		return;
	}
	stir_visitor b = { is_barrier, NULL, NULL, NULL, 0, NULL };
	if (stir_visit_list(&b, &l->u.for_.body) &&
	    (sched_thread_dependent(s, g->a, p, li, false) ||
	    sched_thread_dependent(s, g->b, p, li, false)) && !s->failed)
		sched_fail(s, l->loc, "the tail guard '%s' of loop '%s' differs "
			"between the threads of a block and the loop holds a "
			"barrier: they would pass it a different number of times",
			sched_str(s, g->cond), loop);
}

/* k, block, loop: see include/stir/schedule.h. */
int stir_guard_to_bound(stir_kernel *k, const char *block, const char *loop)
{
	sched s;
	if (sched_begin(&s, k, "guard_to_bound") < 0)
		return -1;
	sched_path p;
	int li = sched_find_block_loop(&s, block, loop, &p);
	if (li >= 0) {
		guard_bound g = { .s = &s, .loop = p.stmt[li] };
		check(&g, &p, li, loop);
		if (!s.failed) {
			stir_expr *rest = sched_check(&s, stir_expr_copy(k, g.b, NULL));
			if (rest && g.a)
				rest = sched_check(&s, stir_expr_binary(k, STIR_SUB, rest,
					sched_check(&s, stir_expr_copy(k, g.a, NULL))));
			stir_expr *args[2] = { g.loop->u.for_.extent, rest };
			stir_expr *bound = rest ? sched_check(&s,
				stir_expr_call(k, STIR_MIN, 2, args)) : NULL;
			make_true(&g, &g.loop->u.for_.body);
			if (bound)
				g.loop->u.for_.extent = bound;
		}
	}
	sched_path_release(&p);
	return stir_kernel_log_step(k, sched_end(&s), "guard_to_bound: {block: "
		"%s, loop: %s}", block, loop);
}
