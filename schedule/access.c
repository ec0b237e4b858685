/* The toolkit of the stage II/III schedule primitives, part two (see
 * sched.h): the accesses of a subtree (sched_collect) and the loop lists
 * of requests (the reads and writes of whole subtrees are ir/visit.h's
 * stir_stmt_reads and stir_stmt_writes). */
#include <stdlib.h>
#include <string.h>
#include <stir/passes.h>
#include "passes/passes.h"
#include "schedule/sched.h"

/* ---- accesses ---- */

/* The walk of sched_collect. */
typedef struct coll {
	sched *s;
	sched_accs *a;
	stir_stmt *target;       /* the target block, or NULL */
	bool in_target;          /* the walk is inside it */
	int cond_inner;          /* ifs around the walk inside the target */
	stir_subst sub;          /* lets and block variables seen: their
	                            expanded values */
	int n_conds, cap_conds;
	stir_expr **conds;       /* heap: expanded if conditions outside the
	                            target around the walk */
	stir_stmt *block;        /* innermost block around the walk */
} coll;

/* c, p: p, or note that memory ran out. */
static void *coll_check(coll *c, void *p)
{
	return sched_check(c->s, p);
}

bool sched_kernel_writes(const stir_kernel *k, const stir_buffer *p)
{
	for (int i = 0; i < k->body.n; i++)
		if (stir_stmt_writes(stir_stmt_at(&k->body, i), p))
			return true;
	return false;
}

/* c, n, idx: for an access with the n indices idx, the buffer P when it
 * is P[e..], one index, a load of a buffer declared distinct that the
 * kernel never writes (sched_acc.through); else NULL. */
static stir_buffer *through_of(coll *c, int n, stir_expr **idx)
{
	if (!c->s->through || n != 1 || idx[0]->kind != STIR_EXPR_LOAD)
		return NULL;
	stir_buffer *p = idx[0]->u.load.buf;
	return p->distinct && idx[0]->u.load.n > 0 &&
		!sched_kernel_writes(c->s->k, p) ? p : NULL;
}

/* c, buf, store, load, n, idx, cond: record one access (through a
 * distinct buffer, sched_acc.through, when it is one). */
static void record(coll *c, stir_buffer *buf, stir_stmt *store,
	stir_expr *load, int n, stir_expr **idx, bool cond)
{
	sched_accs *a = c->a;
	stir_kernel *k = c->s->k;
	stir_buffer *through = through_of(c, n, idx);
	if (through) {
		n = idx[0]->u.load.n;
		idx = idx[0]->u.load.idx;
	}
	if (c->s->oom)
		return;
	if (a->n == a->cap) {
		int cap = a->cap ? 2 * a->cap : 32;
		sched_acc *v = coll_check(c, realloc(a->v, (size_t)cap * sizeof(*v)));
		if (!v)
			return;
		a->v = v;
		a->cap = cap;
	}
	sched_acc *x = &a->v[a->n];
	memset(x, 0, sizeof(*x));
	x->buf = buf;
	x->store = store;
	x->load = load;
	x->n = n;
	x->idx = idx;
	x->in_target = c->in_target;
	x->cond_inner = cond || c->cond_inner > 0;
	x->block = c->block;
	x->through = through;
	stir_arena *ar = stir_kernel_arena(k);
	x->xidx = coll_check(c, stir_arena_alloc(ar, (size_t)(n ? n : 1) *
		sizeof(stir_expr *)));
	x->conds = coll_check(c, stir_arena_alloc(ar, (size_t)(c->n_conds ?
		c->n_conds : 1) * sizeof(stir_expr *)));
	if (!x->xidx || !x->conds)
		return;
	for (int i = 0; i < n; i++)
		if (!(x->xidx[i] = coll_check(c, stir_expr_copy(k, idx[i], &c->sub))))
			return;
	x->n_conds = c->n_conds;
	if (c->n_conds)
		memcpy(x->conds, c->conds, (size_t)c->n_conds * sizeof(stir_expr *));
	a->n++;
}

/* c, e, cond: the accesses of expression e; "cond" when e is evaluated
 * only under a condition of its own expression. */
static void coll_expr(coll *c, stir_expr *e, bool cond)
{
	if (!e)
		return;
	switch (e->kind) {
	case STIR_EXPR_LOAD:
		for (int i = 0; i < e->u.load.n; i++)
			coll_expr(c, e->u.load.idx[i], cond);
		record(c, e->u.load.buf, NULL, e, e->u.load.n, e->u.load.idx, cond);
		break;
	case STIR_EXPR_UNARY:
		coll_expr(c, e->u.unary.a, cond);
		break;
	case STIR_EXPR_BINARY: {
		bool sc = e->u.binary.op == STIR_AND || e->u.binary.op == STIR_OR;
		coll_expr(c, e->u.binary.a, cond);
		coll_expr(c, e->u.binary.b, cond || sc);
		break;
	}
	case STIR_EXPR_SELECT:
		coll_expr(c, e->u.select.c, cond);
		coll_expr(c, e->u.select.a, true);
		coll_expr(c, e->u.select.b, true);
		break;
	case STIR_EXPR_CALL:
		for (int i = 0; i < e->u.call.n; i++)
			coll_expr(c, e->u.call.args[i], cond);
		break;
	case STIR_EXPR_CAST:
		coll_expr(c, e->u.cast.a, cond);
		break;
	case STIR_EXPR_SEARCH:
		coll_expr(c, e->u.search.lo, cond);
		coll_expr(c, e->u.search.hi, cond);
		coll_expr(c, e->u.search.x, cond);
		record(c, e->u.search.buf, NULL, e, 0, NULL, cond);
		break;
	default:
		break;
	}
}

static void coll_stmt(coll *c, stir_stmt *st);

/* c, list: the accesses of a statement list (its lets end with it). */
static void coll_list(coll *c, stir_ptr_vec *list)
{
	int n = c->sub.n;
	for (int i = 0; i < list->n && !c->s->oom; i++)
		coll_stmt(c, stir_stmt_at(list, i));
	c->sub.n = n;
}

/* c, cond: push an if condition (expanded) for the walk inside it. */
static void push_cond(coll *c, stir_expr *cond)
{
	if (c->in_target) {
		c->cond_inner++;
		return;
	}
	if (c->n_conds == c->cap_conds) {
		int cap = c->cap_conds ? 2 * c->cap_conds : 8;
		stir_expr **v = coll_check(c, realloc(c->conds,
			(size_t)cap * sizeof(*v)));
		if (!v)
			return;
		c->conds = v;
		c->cap_conds = cap;
	}
	c->conds[c->n_conds++] = cond;
}

/* c: pop what push_cond pushed. */
static void pop_cond(coll *c)
{
	if (c->in_target)
		c->cond_inner--;
	else if (c->n_conds > 0)
		c->n_conds--;
}

/* c, v: record that loop variable v is bound inside the subtree. */
static void add_inner(coll *c, const stir_var *v)
{
	sched_accs *a = c->a;
	if (a->n_inner == a->cap_inner) {
		int cap = a->cap_inner ? 2 * a->cap_inner : 16;
		const stir_var **p = coll_check(c, realloc(a->inner,
			(size_t)cap * sizeof(*p)));
		if (!p)
			return;
		a->inner = p;
		a->cap_inner = cap;
	}
	a->inner[a->n_inner++] = v;
}

/* c, st: the accesses of statement st and of everything in it. */
static void coll_stmt(coll *c, stir_stmt *st)
{
	stir_kernel *k = c->s->k;
	switch (st->kind) {
	case STIR_STMT_STORE:
		for (int i = 0; i < st->u.store.n; i++)
			coll_expr(c, st->u.store.idx[i], false);
		coll_expr(c, st->u.store.value, false);
		record(c, st->u.store.buf, st, NULL, st->u.store.n, st->u.store.idx,
			false);
		break;
	case STIR_STMT_LET:
		coll_expr(c, st->u.let.value, false);
		if (stir_subst_add_expr(&c->sub, st->u.let.var, coll_check(c,
		    stir_expr_copy(k, st->u.let.value, &c->sub))) < 0)
			c->s->oom = true;
		break;
	case STIR_STMT_IF: {
		coll_expr(c, st->u.if_.cond, false);
		stir_expr *cond = coll_check(c, stir_expr_copy(k, st->u.if_.cond,
			&c->sub));
		push_cond(c, cond);
		coll_list(c, &st->u.if_.then_body);
		pop_cond(c);
		if (st->u.if_.else_body.n) {
			push_cond(c, coll_check(c, stir_expr_unary(k, STIR_NOT, cond)));
			coll_list(c, &st->u.if_.else_body);
			pop_cond(c);
		}
		break;
	}
	case STIR_STMT_FOR:
		coll_expr(c, st->u.for_.extent, false);
		add_inner(c, st->u.for_.var);
		coll_list(c, &st->u.for_.body);
		break;
	case STIR_STMT_BLOCK: {
		int n = c->sub.n;
		bool in_target = c->in_target;
		int cond_inner = c->cond_inner;
		stir_stmt *block = c->block;
		for (int i = 0; i < st->u.block.n_vars; i++) {
			coll_expr(c, st->u.block.bindings[i], false);
			if (stir_subst_add_expr(&c->sub, st->u.block.vars[i],
			    coll_check(c, stir_expr_copy(k, st->u.block.bindings[i],
			    &c->sub))) < 0)
				c->s->oom = true;
		}
		if (st == c->target) {
			c->in_target = true;
			c->cond_inner = 0;
		}
		c->block = st;
		coll_list(c, &st->u.block.body);
		c->block = block;
		c->in_target = in_target;
		c->cond_inner = cond_inner;
		c->sub.n = n;
		break;
	}
	case STIR_STMT_ITER:
	case STIR_STMT_BARRIER:
		break;
	}
}

int sched_collect(sched *s, stir_stmt *root, stir_stmt *target, sched_accs *a)
{
	memset(a, 0, sizeof(*a));
	coll c = { .s = s, .a = a, .target = target };
	coll_stmt(&c, root);
	stir_subst_release(&c.sub);
	free(c.conds);
	return s->oom ? -1 : 0;
}

void sched_accs_release(sched_accs *a)
{
	free(a->v);
	free(a->inner);
	memset(a, 0, sizeof(*a));
}

bool sched_is_inner(const sched_accs *a, const stir_var *v)
{
	for (int i = 0; i < a->n_inner; i++)
		if (a->inner[i] == v)
			return true;
	return false;
}

bool sched_varies(const sched_accs *a, const stir_expr *e)
{
	for (int i = 0; i < a->n_inner; i++)
		if (stir_expr_uses(e, a->inner[i]))
			return true;
	return false;
}

/* ---- loop lists ---- */

int sched_check_loop_list(sched *s, const sched_path *path, int n)
{
	const stir_stmt *block = path->stmt[path->n - 1];
	int loops = 0;
	for (int j = 0; j < path->n; j++)
		loops += path->stmt[j]->kind == STIR_STMT_FOR;
	if (n <= loops)
		return 0;
	sched_fail(s, block->loc, "%d loops listed, but block '%s' is inside %d",
		n, block->u.block.name, loops);
	return -1;
}
