/* horizontal_fuse: several top-level nests in one launch
 * (include/stir/schedule.h).
 *
 * Requires: a verified stage II or III kernel; n >= 2 blocks in distinct
 * top-level nests, each nest a loop bound to blockIdx.x with no other
 * loop in it bound to a blockIdx index; the nests independent (a buffer
 * one writes is touched by no other, unless every access of it in all of
 * them is an atomic += or -= store, or the caller asserts that the nests
 * touch disjoint elements of it); a nest that moves up past other
 * top-level statements shares no buffer with them that either writes.
 * Produces: in place of the first nest, "block hfuse() horizontal
 * { NEST1 NEST2 .. }" (the nests in program order), one launch whose
 * blockIdx.x ranges are laid end to end.
 * Keeps: what the kernel computes.  Breaks: nothing. */
#include <stdlib.h>
#include <string.h>
#include "schedule/sched.h"

/* What count_atomic carries. */
typedef struct atomic_walk {
	const stir_buffer *b;  /* the buffer */
	int depth;             /* atomic blocks around the statement */
	int n;                 /* atomic += and -= stores to b counted */
} atomic_walk;

/* st, user: count a += or -= store to b inside an atomic block (an
 * atomic_walk). */
static stir_visit_step count_atomic(stir_stmt *st, void *user)
{
	atomic_walk *w = user;
	if (st->kind == STIR_STMT_BLOCK &&
	    (st->u.block.flags & STIR_BLOCK_ATOMIC))
		w->depth++;
	else if (st->kind == STIR_STMT_STORE)
		w->n += w->depth && st->u.store.buf == w->b &&
			(st->u.store.op == STIR_STORE_ADD ||
			 st->u.store.op == STIR_STORE_SUB);
	return STIR_VISIT_GO;
}

/* st, user: leave an atomic block (an atomic_walk). */
static stir_visit_step leave_atomic(stir_stmt *st, void *user)
{
	if (st->kind == STIR_STMT_BLOCK &&
	    (st->u.block.flags & STIR_BLOCK_ATOMIC))
		((atomic_walk *)user)->depth--;
	return STIR_VISIT_GO;
}

/* st, b: whether every access of b in st is an atomic += or -= store. */
static bool only_atomic(const stir_stmt *st, const stir_buffer *b)
{
	atomic_walk w = { b, 0, 0 };
	stir_visitor v = { count_atomic, leave_atomic, NULL, NULL, 0, &w };
	stir_visit_stmt(&v, (stir_stmt *)st);
	return sched_count_accesses(st, b) == w.n;
}

/* st, user: stop at a loop bound to a blockIdx index, kept in *user (a
 * const stir_stmt *). */
static stir_visit_step find_block_bound(stir_stmt *st, void *user)
{
	if (st->kind != STIR_STMT_FOR || st->u.for_.kind != STIR_LOOP_BIND ||
	    st->u.for_.thread > STIR_BLOCK_Z)
		return STIR_VISIT_GO;
	*(const stir_stmt **)user = st;
	return STIR_VISIT_STOP;
}

/* list: the first loop in list (at any depth) bound to a blockIdx index,
 * or NULL. */
static const stir_stmt *block_bound(const stir_ptr_vec *list)
{
	const stir_stmt *found = NULL;
	stir_visitor v = { find_block_bound, NULL, NULL, NULL, 0, &found };
	stir_visit_list(&v, (stir_ptr_vec *)list);
	return found;
}

/* s, a, b, na, nb, between, disjoint: the nests a and b (of blocks na,
 * nb) may run side by side (or "b" may move before "a", a statement
 * between).  Buffers marked in "disjoint" (by index; NULL: none) are
 * taken on the caller's word when the two are nests being fused. */
static bool independent(sched *s, const stir_stmt *a, const stir_stmt *b,
	const char *na, const char *nb, bool between, const bool *disjoint)
{
	stir_kernel *k = s->k;
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *x = stir_buffer_at(&k->buffers, i);
		bool wa = stir_stmt_writes(a, x), wb = stir_stmt_writes(b, x);
		if (!(wa && sched_count_accesses(b, x)) &&
		    !(wb && sched_count_accesses(a, x)))
			continue;
		if (!between && disjoint && disjoint[i])
			continue;
		if (between) {
			sched_fail(s, a->loc, "the nest of block '%s' cannot move "
				"before this statement: both access '%s'", nb, x->name);
			return false;
		}
		if (!only_atomic(a, x) || !only_atomic(b, x)) {
			sched_fail(s, b->loc, "the nests of blocks '%s' and '%s' share "
				"'%s' other than through atomic stores", na, nb, x->name);
			return false;
		}
	}
	return true;
}

/* s, nd, buffers, disjoint: mark the buffers named buffers[0..nd-1] in
 * disjoint (one flag per buffer of the kernel).  0, or -1 with a failure
 * when a name is not a buffer of the kernel. */
static int mark_disjoint(sched *s, int nd, const char *const *buffers,
	bool *disjoint)
{
	stir_kernel *k = s->k;
	for (int j = 0; j < nd; j++) {
		int found = -1;
		for (int i = 0; i < k->buffers.n && found < 0; i++)
			if (buffers[j] && !strcmp(stir_buffer_at(&k->buffers,
			    i)->name, buffers[j]))
				found = i;
		if (found < 0) {
			sched_fail(s, k->loc, "kernel '%s' has no buffer '%s'",
				k->name, buffers[j] ? buffers[j] : "(null)");
			return -1;
		}
		disjoint[found] = true;
	}
	return 0;
}

/* s, n, blocks, nd, buffers: the fusion; the nests may share the nd
 * buffers named in "buffers" (see stir_horizontal_fuse_disjoint). */
static int hfuse(sched *s, int n, const char *const *blocks, int nd,
	const char *const *buffers)
{
	stir_kernel *k = s->k;
	bool *disjoint = sched_check(s, stir_kernel_array(k,
		(size_t)k->buffers.n + 1, sizeof(*disjoint)));
	if (!disjoint)
		return -1;
	if (nd < 0 || (nd > 0 && !buffers)) {
		sched_fail(s, k->loc, "the list of disjoint buffers is missing");
		return -1;
	}
	if (mark_disjoint(s, nd, buffers, disjoint) < 0)
		return -1;
	if (n < 2 || !blocks) {
		sched_fail(s, k->loc, "horizontal fusion needs at least 2 blocks, "
			"not %d", blocks ? n : 0);
		return -1;
	}
	if (n > k->body.n) {
		/* two of them share a nest, or one is not there */
		sched_fail(s, k->loc, "%d blocks listed, but kernel '%s' has %d "
			"nests", n, k->name, k->body.n);
		return -1;
	}
	int *top = sched_check(s, stir_kernel_array(k, (size_t)n, sizeof(*top)));
	const char **names = sched_check(s, stir_kernel_array(k, (size_t)n,
		sizeof(*names)));
	if (!top || !names)
		return -1;
	for (int i = 0; i < n; i++) {
		sched_path p;
		if (sched_find_block(s, blocks[i], &p) < 0)
			return -1;
		top[i] = p.index[0];
		stir_stmt *nest = p.stmt[0];
		sched_path_release(&p);
		if (nest->kind != STIR_STMT_FOR ||
		    nest->u.for_.kind != STIR_LOOP_BIND ||
		    nest->u.for_.thread != STIR_BLOCK_X) {
			sched_fail(s, nest->loc, "the nest of block '%s' is not bound "
				"to blockIdx.x at its outermost loop", blocks[i]);
			return -1;
		}
		const stir_stmt *o = block_bound(&nest->u.for_.body);
		if (o) {
			sched_fail(s, o->loc, "loop '%s' in the nest of block '%s' is "
				"bound to %s", o->u.for_.var->name, blocks[i],
				sched_thread_name(o->u.for_.thread));
			return -1;
		}
		for (int j = 0; j < i; j++)
			if (top[j] == top[i]) {
				sched_fail(s, nest->loc, "blocks '%s' and '%s' are in the "
					"same nest", blocks[j], blocks[i]);
				return -1;
			}
	}
	/* program order */
	for (int i = 0; i < n; i++)
		names[i] = blocks[i];
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && top[j - 1] > top[j]; j--) {
			int t = top[j];
			top[j] = top[j - 1];
			top[j - 1] = t;
			const char *u = names[j];
			names[j] = names[j - 1];
			names[j - 1] = u;
		}
	stir_ptr_vec *body = &k->body;
	for (int i = 0; i < n; i++) {
		const stir_stmt *a = stir_stmt_at(body, top[i]);
		for (int j = 0; j < i; j++)
			if (!independent(s, stir_stmt_at(body, top[j]), a, names[j],
			    names[i], false, disjoint))
				return -1;
		/* the statements it moves up past */
		for (int t = top[0] + 1, j = 1; t < top[i]; t++) {
			if (j < n && t == top[j]) {
				j++;
				continue;
			}
			if (!independent(s, stir_stmt_at(body, t), a, "", names[i], true,
			    NULL))
				return -1;
		}
	}
	const char *name = sched_fresh_block_name(s, "hfuse");
	stir_stmt *h = name ? sched_check(s, stir_stmt_block(k, name, 0, NULL,
		NULL, "")) : NULL;
	if (!h)
		return -1;
	h->loc = stir_stmt_at(body, top[0])->loc;
	h->u.block.flags = STIR_BLOCK_HORIZONTAL;
	sched_made(s, STIR_MADE_BLOCK, name, NULL);
	for (int i = 0; i < n; i++)
		if (stir_stmt_append_body(h, stir_stmt_at(body, top[i])) < 0)
			return sched_check(s, NULL), -1;
	for (int i = n - 1; i >= 0; i--)
		sched_list_remove(body, top[i]);
	return sched_list_insert(s, body, top[0], h);
}

/* k, n, blocks: see include/stir/schedule.h. */
int stir_horizontal_fuse(stir_kernel *k, int n, const char *const *blocks)
{
	sched s;
	if (sched_begin(&s, k, "horizontal_fuse") < 0)
		return -1;
	hfuse(&s, n, blocks, 0, NULL);
	char *b = k->log_on ? stir_log_names(n, blocks) : NULL;
	int r = stir_kernel_log_step(k, sched_end(&s), "horizontal_fuse: "
		"{blocks: %s}", b ? b : "[]");
	free(b);
	return r;
}

/* k, n, blocks, nd, buffers: see include/stir/schedule.h. */
int stir_horizontal_fuse_disjoint(stir_kernel *k, int n,
	const char *const *blocks, int nd, const char *const *buffers)
{
	sched s;
	if (sched_begin(&s, k, "horizontal_fuse") < 0)
		return -1;
	hfuse(&s, n, blocks, nd, buffers);
	char *b = k->log_on ? stir_log_names(n, blocks) : NULL;
	char *d = k->log_on && nd > 0 ? stir_log_names(nd, buffers) : NULL;
	int r = stir_kernel_log_step(k, sched_end(&s), "horizontal_fuse: "
		"{blocks: %s%s%s}", b ? b : "[]", d ? ", disjoint: " : "",
		d ? d : "");
	free(b);
	free(d);
	return r;
}
