/* The default schedule (include/stir/schedule.h, docs/schedules.md).
 *
 * Requires: a verified stage II or III kernel.
 * For every top-level nest without a bound loop whose outermost statement
 * is a loop with an extent of parameters:
 *  1. when every buffer the nest writes is partitioned by that loop, the
 *     loop is split by 256 and bound to blockIdx.x / threadIdx.x;
 *  2. otherwise, when every store of the nest is += or -= and the buffers
 *     it writes are not read in it otherwise, its blocks become atomic and
 *     the loop is split and bound the same way;
 *  3. otherwise (or when binding is refused) the nest stays serial: the
 *     emitter runs it on one thread.
 * Partitioned means that every access of the buffer in the nest is, by
 * its indices alone, distinct for distinct values of the loop: writes of
 * two threads never meet, nor a write of one and a read of another.
 *  - buffers over axes (stage II): in some chain of the buffer's axes, an
 *    axis's global position (the root's position, or the parent's row
 *    start plus the relative position, simplified with stir_mk_add) is
 *    the loop's variable (directly or through block variables and lets
 *    bound to exactly it): the element lies under that position;
 *  - flat buffers: the index is, recursively, the loop's variable, or
 *    "g * E + r" or "P[g] + r" with g such an index, r the variable of a
 *    loop inside the nest of extent E, resp. P[g + 1] - P[g] for an indptr
 *    buffer P (rows do not overlap since indptr is monotone).
 * Keeps: what the kernel computes.  Breaks: nothing. */
#include <string.h>
#include "schedule/sched.h"

/* The analysis of one nest. */
typedef struct nest {
	sched *s;
	stir_stmt *loop;         /* its outermost loop */
	sched_accs acc;          /* its accesses */
} nest;

/* n, e: whether e is the loop's variable. */
static bool is_loop_var(const nest *n, const stir_expr *e)
{
	return e && e->kind == STIR_EXPR_VAR &&
		sched_canon(n->s, e->u.var) == n->loop->u.for_.var;
}

/* n, r: the loop inside the nest whose variable r is, or NULL. */
static const stir_stmt *inner_loop(const nest *n, const stir_expr *r)
{
	if (r->kind != STIR_EXPR_VAR)
		return NULL;
	const stir_var *v = sched_canon(n->s, r->u.var);
	if (v == n->loop->u.for_.var || !sched_is_inner(&n->acc, v))
		return NULL;
	return sched_def(n->s, v);
}

/* n, f: whether flat index f is partitioned (see above). */
static bool part_flat(const nest *n, const stir_expr *f)
{
	if (is_loop_var(n, f))
		return true;
	if (f->kind != STIR_EXPR_BINARY || f->u.binary.op != STIR_ADD)
		return false;
	const stir_expr *a = f->u.binary.a;
	const stir_stmt *r = inner_loop(n, f->u.binary.b);
	if (!r)
		return false;
	const stir_expr *ext = r->u.for_.extent;
	if (a->kind == STIR_EXPR_BINARY && a->u.binary.op == STIR_MUL)
		return sched_same(n->s, a->u.binary.b, ext) &&
			part_flat(n, a->u.binary.a);
	if (a->kind == STIR_EXPR_LOAD && a->u.load.n == 1 &&
	    a->u.load.buf->kind == STIR_BUFFER_INDPTR) {
		stir_kernel *k = n->s->k;
		stir_expr *g = a->u.load.idx[0];
		stir_expr *row = stir_mk_sub(k, stir_mk_load1(k, a->u.load.buf,
			stir_mk_add(k, stir_expr_copy(k, g, NULL), stir_mk_int(k, 1))),
			stir_mk_load1(k, a->u.load.buf, stir_expr_copy(k, g, NULL)));
		return row && sched_same(n->s, row, ext) && part_flat(n, g);
	}
	return false;
}

/* n, b, idx: whether an access of b (over axes) at relative positions idx
 * is partitioned. */
static bool part_axes(const nest *n, const stir_buffer *b, stir_expr **idx)
{
	stir_kernel *k = n->s->k;
	stir_expr *gpos = NULL;
	for (int i = 0; i < b->n_axes; i++) {
		const stir_axis *a = b->axes[i];
		stir_expr *g = idx[i];
		if (gpos && a->parent) {
			stir_expr *start = a->kind == STIR_SPARSE_FIXED ?
				stir_mk_mul(k, stir_expr_copy(k, gpos, NULL),
					stir_expr_copy(k, a->nnz, NULL)) :
				a->indptr_buf ? stir_mk_load1(k, a->indptr_buf,
					stir_expr_copy(k, gpos, NULL)) : NULL;
			g = start ? stir_mk_add(k, start, stir_expr_copy(k, g, NULL)) :
				NULL;
		}
		if (!g)
			return false;
		if (is_loop_var(n, g))
			return true;
		gpos = i + 1 < b->n_axes && b->axes[i + 1]->parent == a ? g : NULL;
	}
	return false;
}

/* n, b: whether buffer b is stored to in the nest. */
static bool written(const nest *n, const stir_buffer *b)
{
	for (int i = 0; i < n->acc.n; i++)
		if (n->acc.v[i].buf == b && n->acc.v[i].store)
			return true;
	return false;
}

/* n: rule 1: every access of a written buffer is partitioned. */
static bool partitioned(const nest *n)
{
	for (int i = 0; i < n->acc.n; i++) {
		const sched_acc *a = &n->acc.v[i];
		if (!written(n, a->buf))
			continue;
		if (!a->n)
			return false;
		if (a->buf->n_axes ? !part_axes(n, a->buf, a->idx) :
		    !part_flat(n, a->idx[0]))
			return false;
	}
	return true;
}

/* n: rule 2: every store is += or -=, and written buffers are read only
 * by them. */
static bool additive(const nest *n)
{
	for (int i = 0; i < n->acc.n; i++) {
		const sched_acc *a = &n->acc.v[i];
		if (a->store && a->store->u.store.op != STIR_STORE_ADD &&
		    a->store->u.store.op != STIR_STORE_SUB)
			return false;
		if (!a->store && written(n, a->buf))
			return false;
	}
	return true;
}

/* list: whether a loop in list (at any depth) is bound. */
static bool has_bound(const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *st = stir_stmt_at(list, i);
		if (st->kind == STIR_STMT_FOR && st->u.for_.kind == STIR_LOOP_BIND)
			return true;
		if (st->kind == STIR_STMT_IF) {
			if (has_bound(&st->u.if_.then_body) ||
			    has_bound(&st->u.if_.else_body))
				return true;
		} else if (stir_stmt_body((stir_stmt *)st) &&
			   has_bound(stir_stmt_body((stir_stmt *)st))) {
			return true;
		}
	}
	return false;
}

/* list: make every block in list (at any depth) atomic. */
static void all_atomic(sched *s, stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++) {
		stir_stmt *st = stir_stmt_at(list, i);
		if (st->kind == STIR_STMT_BLOCK)
			sched_set_atomic(s, st);
		else if (st->kind == STIR_STMT_IF) {
			all_atomic(s, &st->u.if_.then_body);
			all_atomic(s, &st->u.if_.else_body);
		} else if (stir_stmt_body(st)) {
			all_atomic(s, stir_stmt_body(st));
		}
	}
}

/* s, i, atomic: on a copy of top-level statement i, (make its blocks
 * atomic,) split its loop by 256 and bind it; keep the copy when every
 * step is legal.  Whether it was kept. */
static bool try_bind(sched *s, int i, bool atomic)
{
	stir_kernel *k = s->k;
	stir_stmt *orig = stir_stmt_at(&k->body, i);
	stir_subst sub = { 0 };
	stir_stmt *copy = sched_check(s, stir_stmt_copy(k, orig, &sub));
	stir_subst_release(&sub);
	if (!copy)
		return false;
	k->body.v[i] = copy;
	if (atomic)
		all_atomic(s, &copy->u.for_.body);
	static const int64_t factors[2] = { 0, 256 };
	sched_path p = { 0 };
	if (!s->failed && sched_find_stmt(s, copy, &p) == 0 &&
	    sched_split(s, &p, 0, 2, factors) == 0) {
		stir_stmt *outer = p.stmt[0];
		sched_path_release(&p);
		if (sched_find_stmt(s, outer, &p) == 0 &&
		    sched_bind(s, &p, 0, STIR_BLOCK_X) == 0) {
			stir_stmt *inner = stir_stmt_at(&outer->u.for_.body, 0);
			sched_path_release(&p);
			if (sched_find_stmt(s, inner, &p) == 0)
				sched_bind(s, &p, 1, STIR_THREAD_X);
		}
	}
	sched_path_release(&p);
	if (!s->failed && s->scopes_ok)
		sched_check_scopes(s, true);
	if (s->failed || s->oom) {
		k->body.v[i] = orig;
		s->failed = false;
		return false;
	}
	return true;
}

/* s: the default schedule of the kernel. */
static void schedule(sched *s)
{
	stir_kernel *k = s->k;
	for (int i = 0; i < k->body.n && !s->oom; i++) {
		stir_stmt *st = stir_stmt_at(&k->body, i);
		if (st->kind != STIR_STMT_FOR || st->u.for_.kind == STIR_LOOP_BIND ||
		    has_bound(&st->u.for_.body) ||
		    !sched_is_param_expr(st->u.for_.extent))
			continue;
		nest n = { .s = s, .loop = st };
		if (sched_index(s) < 0 || sched_collect(s, st, NULL, &n.acc) < 0)
			break;
		bool part = partitioned(&n), add = additive(&n);
		sched_accs_release(&n.acc);
		if (part && try_bind(s, i, false))
			continue;
		if (add)
			try_bind(s, i, true);
	}
}

/* k: see include/stir/schedule.h. */
int stir_default_schedule(stir_kernel *k)
{
	sched s;
	if (sched_begin(&s, k, "default_schedule") < 0)
		return -1;
	schedule(&s);
	return stir_kernel_log_step(k, sched_end(&s), "default_schedule");
}
