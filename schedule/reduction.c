/* Reduction annotations: set_atomic and cross_thread_reduce
 * (include/stir/schedule.h).
 *
 * set_atomic requires every store inside the block (nested blocks
 * included) to be += or -=; it marks the block and every block nested in
 * it atomic, so that the emitter turns each of those stores into an
 * atomic add without looking further than the store's own block.
 *
 * cross_thread_reduce requires the block to be, once its lets are put
 * into the store that uses them, one "X[..] += e" (or -=) whose target
 * does not depend on the loop, and the loop (around the block, serial or
 * bound to threadIdx.x) to iterate a reduction variable of the block; it
 * inlines the lets and marks the block cross_thread.
 *
 * Both keep what the kernel computes (lets are pure, so inlining them
 * changes nothing) and break nothing. */
#include <string.h>
#include "ir/ops.h"
#include "schedule/sched.h"

/* st, user: stop at a store that is not += or -=, kept in *user (a
 * const stir_stmt *). */
static stir_visit_step find_non_additive(stir_stmt *st, void *user)
{
	if (st->kind != STIR_STMT_STORE || st->u.store.op == STIR_STORE_ADD ||
	    st->u.store.op == STIR_STORE_SUB)
		return STIR_VISIT_GO;
	*(const stir_stmt **)user = st;
	return STIR_VISIT_STOP;
}

/* list: the first store in list (at any depth) that is not += or -=, or
 * NULL. */
static const stir_stmt *non_additive(stir_ptr_vec *list)
{
	const stir_stmt *bad = NULL;
	stir_visitor v = { find_non_additive, NULL, NULL, NULL, 0, &bad };
	stir_visit_list(&v, list);
	return bad;
}

/* st, user: mark st atomic when it is a block. */
static stir_visit_step set_atomic(stir_stmt *st, void *user)
{
	(void)user;
	if (st->kind == STIR_STMT_BLOCK)
		st->u.block.flags |= STIR_BLOCK_ATOMIC;
	return STIR_VISIT_GO;
}

/* list: mark every block in list (at any depth) atomic. */
static void mark_atomic(stir_ptr_vec *list)
{
	stir_visitor v = { set_atomic, NULL, NULL, NULL, 0, NULL };
	stir_visit_list(&v, list);
}


int sched_set_atomic(sched *s, stir_stmt *b)
{
	const stir_stmt *bad = non_additive(&b->u.block.body);
	if (bad) {
		sched_fail(s, b->loc, "block '%s' holds a store '%s' to '%s'; only "
			"+= and -= can be atomic", b->u.block.name,
			stir_store_op_text(bad->u.store.op), bad->u.store.buf->name);
		return -1;
	}
	b->u.block.flags |= STIR_BLOCK_ATOMIC;
	mark_atomic(&b->u.block.body);
	return 0;
}

/* k, block: see include/stir/schedule.h. */
int stir_set_atomic(stir_kernel *k, const char *block)
{
	sched s;
	if (sched_begin(&s, k, "set_atomic") < 0)
		return -1;
	sched_path p;
	if (sched_find_block(&s, block, &p) == 0)
		sched_set_atomic(&s, p.stmt[p.n - 1]);
	sched_path_release(&p);
	return stir_kernel_log_step(k, sched_end(&s), "set_atomic: "
		"{block: %s}", block);
}

stir_stmt *sched_single_update(sched *s, stir_stmt *b)
{
	stir_kernel *k = s->k;
	stir_ptr_vec *body = &b->u.block.body;
	stir_subst sub = { 0 };
	stir_stmt *store = NULL;
	for (int i = 0; i < body->n && !s->oom; i++) {
		stir_stmt *st = stir_stmt_at(body, i);
		if (st->kind == STIR_STMT_LET && i + 1 < body->n) {
			stir_expr *v = sched_check(s, stir_expr_copy(k, st->u.let.value,
				&sub));
			if (v && stir_subst_add_expr(&sub, st->u.let.var, v) < 0)
				s->oom = true;
			continue;
		}
		if (i + 1 == body->n && st->kind == STIR_STMT_STORE &&
		    (st->u.store.op == STIR_STORE_ADD ||
		     st->u.store.op == STIR_STORE_SUB))
			store = st;
	}
	if (!store && !s->oom)
		sched_fail(s, b->loc, "block '%s' must hold exactly one += or -= "
			"store (after its lets)", b->u.block.name);
	stir_stmt *c = store && !s->oom ? sched_check(s,
		stir_stmt_copy(k, store, &sub)) : NULL;
	stir_subst_release(&sub);
	return c;
}

/* s, block, loop: mark block cross-thread over loop. */
static int cross_thread(sched *s, const char *block, const char *loop)
{
	sched_path p;
	int li;
	if ((li = sched_find_block_loop(s, block, loop, &p)) < 0) {
		sched_path_release(&p);
		return -1;
	}
	stir_stmt *b = p.stmt[p.n - 1], *l = p.stmt[li];
	const stir_var *lv = l->u.for_.var;
	sched_path_release(&p);
	if (l->u.for_.kind != STIR_LOOP_SERIAL &&
	    !(l->u.for_.kind == STIR_LOOP_BIND &&
	      l->u.for_.thread == STIR_THREAD_X)) {
		sched_fail(s, l->loc, "loop '%s' is %s; a cross-thread reduction "
			"runs over threadIdx.x", loop, sched_loop_annotation(l));
		return -1;
	}
	/* the block variables that move with the loop */
	bool reduces = false;
	const stir_var **dep = sched_check(s, stir_kernel_array(s->k,
		(size_t)b->u.block.n_vars + 1, sizeof(*dep)));
	if (!dep)
		return -1;
	int n_dep = 0;
	dep[n_dep++] = lv;
	for (int i = 0; i < b->u.block.n_vars; i++)
		if (stir_expr_uses(b->u.block.bindings[i], lv)) {
			dep[n_dep++] = b->u.block.vars[i];
			reduces |= b->u.block.kinds[i] == 'R';
		}
	if (!reduces) {
		sched_fail(s, b->loc, "loop '%s' iterates no reduction variable of "
			"block '%s'", loop, b->u.block.name);
		return -1;
	}
	stir_stmt *store = sched_single_update(s, b);
	if (!store)
		return -1;
	for (int i = 0; i < store->u.store.n; i++)
		for (int j = 0; j < n_dep; j++)
			if (stir_expr_uses(store->u.store.idx[i], dep[j])) {
				sched_fail(s, b->loc, "the target of block '%s' depends "
					"on loop '%s'", b->u.block.name, loop);
				return -1;
			}
	b->u.block.body.n = 0;
	if (stir_ptr_vec_push(stir_kernel_arena(s->k), &b->u.block.body,
	    store) < 0) {
		s->oom = true;
		return -1;
	}
	b->u.block.flags |= STIR_BLOCK_CROSS_THREAD;
	return 0;
}

/* k, block, loop: see include/stir/schedule.h. */
int stir_cross_thread_reduce(stir_kernel *k, const char *block,
	const char *loop)
{
	sched s;
	if (sched_begin(&s, k, "cross_thread_reduce") < 0)
		return -1;
	cross_thread(&s, block, loop);
	return stir_kernel_log_step(k, sched_end(&s), "cross_thread_reduce: "
		"{block: %s, loop: %s}", block, loop);
}
