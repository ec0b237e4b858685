/* The toolkit of the stage II/III schedule primitives; see sched.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/lang.h>
#include <stir/passes.h>
#include "passes/passes.h"
#include "schedule/sched.h"

/* ---- failures ---- */

void sched_fail(sched *s, stir_loc loc, const char *fmt, ...)
{
	if (s->failed)
		return;
	s->failed = true;
	s->err_loc = loc;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

void *sched_check(sched *s, void *p)
{
	if (!p)
		s->oom = true;
	return p;
}

/* ---- the request ---- */

/* s: release what the request allocated on the heap. */
static void sched_release(sched *s)
{
	free(s->def);
	free(s->val);
	s->def = NULL;
	s->val = NULL;
	s->n_slots = 0;
}

/* s: put the kernel back as it was before the request. */
static void sched_restore(sched *s)
{
	s->k->body = s->saved_body;
	s->k->buffers.n = s->saved_n_buffers;
}

int sched_begin(sched *s, stir_kernel *k, const char *prim)
{
	memset(s, 0, sizeof(*s));
	if (!k)
		return -1;
	s->k = k;
	s->ctx = stir_kernel_ctx(k);
	s->prim = prim;
	if (k->stage != STIR_STAGE_2 && k->stage != STIR_STAGE_3) {
		stir_error(s->ctx, k->loc, "%s: kernel '%s' is at stage %d; stage "
			"II and III schedules apply after lower_sparse_iter", prim,
			k->name, (int)k->stage);
		return -1;
	}
	if (stir_kernel_verify(k) < 0)
		return -1;
	s->scopes_ok = sched_check_scopes(s, false);
	s->binds_ok = sched_check_binds(s, false);
	s->failed = false;
	/* the request works on a deep copy: the original statements stay
	 * untouched until the copy has been checked */
	stir_subst sub = { 0 };
	stir_ptr_vec body = { 0 };
	for (int i = 0; i < k->body.n && !s->oom; i++) {
		stir_stmt *c = sched_check(s, stir_stmt_copy(k,
			stir_stmt_at(&k->body, i), &sub));
		if (c && stir_ptr_vec_push(stir_kernel_arena(k), &body, c) < 0)
			s->oom = true;
	}
	stir_subst_release(&sub);
	if (s->oom) {
		stir_error_oom(s->ctx);
		return -1;
	}
	s->saved_body = k->body;
	s->saved_n_buffers = k->buffers.n;
	k->body = body;
	if (sched_index(s) < 0) {
		sched_restore(s);
		sched_release(s);
		stir_error_oom(s->ctx);
		return -1;
	}
	return 0;
}

/* s: sched_end before the collection. */
static int request_end(sched *s)
{
	/* a rewrite may not make bound loops racy, whichever primitive */
	if (!s->failed && !s->oom && s->binds_ok)
		sched_check_binds(s, true);
	if (!s->failed && !s->oom && s->scopes_ok)
		sched_check_scopes(s, true);
	if (s->failed || s->oom) {
		sched_restore(s);
		if (s->failed)
			stir_error(s->ctx, s->err_loc, "%s: %s", s->prim, s->err);
		else
			stir_error_oom(s->ctx);
		sched_release(s);
		return -1;
	}
	sched_release(s);
	if (stir_analyze_regions(s->k) < 0) {
		sched_restore(s);
		return -1;
	}
	if (stir_kernel_verify(s->k) < 0) {
		sched_restore(s);
		stir_error(s->ctx, s->k->loc, "%s: internal error: the rewritten "
			"kernel '%s' does not verify; it was left unchanged", s->prim,
			s->k->name);
		return -1;
	}
	return 0;
}

int sched_end(sched *s)
{
	int r = request_end(s);
	/* the request's copy replaced the body, or was dropped: the arena
	 * keeps only what the kernels reach (a failed collection only
	 * reclaims nothing) */
	(void)stir_module_collect(s->k->module);
	return r;
}

/* ---- the index of definitions ---- */

/* s, st: record the variables statement st binds, then those nested. */
static void index_stmt(sched *s, stir_stmt *st);

/* s, list: index_stmt on every statement of list. */
static void index_list(sched *s, stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		index_stmt(s, stir_stmt_at(list, i));
}

/* s, v, st, val: v is bound by st to val. */
static void index_var(sched *s, const stir_var *v, stir_stmt *st,
	stir_expr *val)
{
	if (v->slot >= 0 && v->slot < s->n_slots) {
		s->def[v->slot] = st;
		s->val[v->slot] = val;
	}
}

static void index_stmt(sched *s, stir_stmt *st)
{
	switch (st->kind) {
	case STIR_STMT_LET:
		index_var(s, st->u.let.var, st, st->u.let.value);
		break;
	case STIR_STMT_IF:
		index_list(s, &st->u.if_.then_body);
		index_list(s, &st->u.if_.else_body);
		break;
	case STIR_STMT_FOR:
		index_var(s, st->u.for_.var, st, NULL);
		index_list(s, &st->u.for_.body);
		break;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < st->u.block.n_vars; i++)
			index_var(s, st->u.block.vars[i], st,
				st->u.block.bindings[i]);
		index_list(s, &st->u.block.body);
		break;
	default:
		break;
	}
}

int sched_index(sched *s)
{
	free(s->def);
	free(s->val);
	s->n_slots = s->k->n_vars;
	s->def = calloc((size_t)s->n_slots + 1, sizeof(*s->def));
	s->val = calloc((size_t)s->n_slots + 1, sizeof(*s->val));
	if (!s->def || !s->val) {
		s->oom = true;
		return -1;
	}
	index_list(s, &s->k->body);
	return 0;
}

stir_stmt *sched_def(const sched *s, const stir_var *v)
{
	return v->slot >= 0 && v->slot < s->n_slots ? s->def[v->slot] : NULL;
}

const stir_var *sched_canon(const sched *s, const stir_var *v)
{
	/* bindings only refer outwards, but a bound keeps a broken input from
	 * looping */
	for (int n = 0; n < 256 && v->slot >= 0 && v->slot < s->n_slots; n++) {
		const stir_expr *e = s->val[v->slot];
		if (!e || e->kind != STIR_EXPR_VAR || e->u.var == v)
			break;
		v = e->u.var;
	}
	return v;
}

/* ---- paths ---- */

void sched_path_release(sched_path *p)
{
	free(p->stmt);
	free(p->list);
	free(p->index);
	memset(p, 0, sizeof(*p));
}

/* p, st, list, index: append a step; -1 when memory runs out. */
static int path_push(sched_path *p, stir_stmt *st, stir_ptr_vec *list,
	int index)
{
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 16;
		stir_stmt **a = realloc(p->stmt, (size_t)cap * sizeof(*a));
		if (a)
			p->stmt = a;
		stir_ptr_vec **b = realloc(p->list, (size_t)cap * sizeof(*b));
		if (b)
			p->list = b;
		int *c = realloc(p->index, (size_t)cap * sizeof(*c));
		if (c)
			p->index = c;
		if (!a || !b || !c)
			return -1;
		p->cap = cap;
	}
	p->stmt[p->n] = st;
	p->list[p->n] = list;
	p->index[p->n] = index;
	p->n++;
	return 0;
}

/* The thing a path search looks for. */
typedef struct path_goal {
	const char *name;        /* a block by name, or */
	const stir_stmt *stmt;   /* a statement by identity */
} path_goal;

/* p, list, goal, oom: search list depth first for the goal, extending p;
 * whether it was found (p then leads to it). */
static bool path_search(sched_path *p, stir_ptr_vec *list,
	const path_goal *goal, bool *oom)
{
	for (int i = 0; i < list->n && !*oom; i++) {
		stir_stmt *st = stir_stmt_at(list, i);
		if (path_push(p, st, list, i) < 0) {
			*oom = true;
			return false;
		}
		if (goal->stmt ? st == goal->stmt : (st->kind == STIR_STMT_BLOCK &&
		    !strcmp(st->u.block.name, goal->name)))
			return true;
		bool found = false;
		if (st->kind == STIR_STMT_IF) {
			found = path_search(p, &st->u.if_.then_body, goal, oom) ||
				path_search(p, &st->u.if_.else_body, goal, oom);
		} else if (st->kind == STIR_STMT_FOR || st->kind == STIR_STMT_BLOCK) {
			found = path_search(p, stir_stmt_body(st), goal, oom);
		}
		if (found)
			return true;
		p->n--;
	}
	return false;
}

int sched_find_block(sched *s, const char *name, sched_path *p)
{
	memset(p, 0, sizeof(*p));
	bool oom = false;
	path_goal goal = { name ? name : "", NULL };
	if (name && path_search(p, &s->k->body, &goal, &oom))
		return 0;
	if (oom)
		s->oom = true;
	else
		sched_fail(s, s->k->loc, "kernel '%s' has no block '%s'",
			s->k->name, name ? name : "(null)");
	return -1;
}

int sched_find_stmt(sched *s, stir_stmt *target, sched_path *p)
{
	memset(p, 0, sizeof(*p));
	bool oom = false;
	path_goal goal = { NULL, target };
	if (path_search(p, &s->k->body, &goal, &oom))
		return 0;
	if (oom)
		s->oom = true;
	return -1;
}

int sched_path_loop(sched *s, const sched_path *p, const char *loop)
{
	for (int i = p->n - 2; i >= 0 && loop; i--)
		if (p->stmt[i]->kind == STIR_STMT_FOR &&
		    !strcmp(p->stmt[i]->u.for_.var->name, loop))
			return i;
	stir_stmt *b = p->stmt[p->n - 1];
	sched_fail(s, b->loc, "block '%s' has no enclosing loop '%s'",
		b->u.block.name, loop ? loop : "(null)");
	return -1;
}

int sched_list_insert(sched *s, stir_ptr_vec *list, int index, stir_stmt *st)
{
	if (!st || stir_ptr_vec_push(stir_kernel_arena(s->k), list, st) < 0) {
		s->oom = true;
		return -1;
	}
	for (int i = list->n - 1; i > index; i--)
		list->v[i] = list->v[i - 1];
	list->v[index] = st;
	return 0;
}

void sched_list_remove(stir_ptr_vec *list, int index)
{
	for (int i = index; i + 1 < list->n; i++)
		list->v[i] = list->v[i + 1];
	list->n--;
}

bool sched_is_number(const char *name)
{
	if (!*name)
		return false;
	for (const char *c = name; *c; c++)
		if (*c < '0' || *c > '9')
			return false;
	return true;
}

bool sched_spatial_around(sched *s, const sched_path *path, int li)
{
	const char *loop = path->stmt[li]->u.for_.var->name;
	for (int i = 0; i < li; i++) {
		const stir_stmt *o = path->stmt[i];
		if (o->kind != STIR_STMT_FOR)
			continue;
		for (int j = i + 1; j < path->n; j++) {
			const stir_stmt *b = path->stmt[j];
			if (b->kind != STIR_STMT_BLOCK)
				continue;
			for (int v = 0; v < b->u.block.n_vars; v++)
				if (b->u.block.kinds[v] == 'R' &&
				    stir_expr_uses(b->u.block.bindings[v],
					o->u.for_.var)) {
					sched_fail(s, o->loc, "loop '%s' encloses loop '%s' "
						"and iterates reduction variable '%s' of block "
						"'%s'", o->u.for_.var->name, loop,
						b->u.block.vars[v]->name, b->u.block.name);
					return false;
				}
		}
	}
	return true;
}

stir_stmt *sched_atomic_around(const sched_path *path, int depth)
{
	for (int i = depth - 1; i >= 0; i--)
		if (path->stmt[i]->kind == STIR_STMT_BLOCK &&
		    (path->stmt[i]->u.block.flags & STIR_BLOCK_ATOMIC))
			return path->stmt[i];
	return NULL;
}

/* ---- words ---- */

const char *sched_thread_name(stir_thread t)
{
	static const char *const names[] = {
		"blockIdx.x", "blockIdx.y", "blockIdx.z",
		"threadIdx.x", "threadIdx.y", "threadIdx.z",
	};
	return (unsigned)t <= STIR_THREAD_Z ? names[t] : "?";
}

const char *sched_scope_name(stir_scope scope)
{
	static const char *const names[] = { "global", "shared", "local", "warp" };
	return (unsigned)scope <= STIR_SCOPE_WARP ? names[scope] : "?";
}

const char *sched_loop_annotation(const stir_stmt *s)
{
	static const char *const bound[] = {
		"bound to blockIdx.x", "bound to blockIdx.y", "bound to blockIdx.z",
		"bound to threadIdx.x", "bound to threadIdx.y",
		"bound to threadIdx.z",
	};
	switch (s->u.for_.kind) {
	case STIR_LOOP_UNROLL:
		return "unrolled";
	case STIR_LOOP_VECTORIZE:
		return "vectorized";
	case STIR_LOOP_BIND:
		return (unsigned)s->u.for_.thread <= STIR_THREAD_Z ?
			bound[s->u.for_.thread] : "bound";
	default:
		return NULL;
	}
}

/* ---- expressions ---- */

bool sched_is_param_expr(const stir_expr *e)
{
	switch (e->kind) {
	case STIR_EXPR_INT:
		return stir_dtype_is_int(e->dtype);
	case STIR_EXPR_VAR:
		return e->u.var->kind == STIR_VAR_PARAM &&
			stir_dtype_is_int(e->u.var->dtype);
	case STIR_EXPR_UNARY:
		return e->u.unary.op == STIR_NEG && sched_is_param_expr(e->u.unary.a);
	case STIR_EXPR_BINARY:
		return e->u.binary.op <= STIR_MOD &&
			sched_is_param_expr(e->u.binary.a) &&
			sched_is_param_expr(e->u.binary.b);
	case STIR_EXPR_CALL:
		if (!((e->u.call.f == STIR_MIN || e->u.call.f == STIR_MAX) &&
		      e->u.call.n == 2) &&
		    !(e->u.call.f == STIR_ABS && e->u.call.n == 1))
			return false;
		for (int i = 0; i < e->u.call.n; i++)
			if (!sched_is_param_expr(e->u.call.args[i]))
				return false;
		return true;
	case STIR_EXPR_CAST:
		return stir_dtype_is_int(e->dtype) && sched_is_param_expr(e->u.cast.a);
	default:
		return false;
	}
}

const char *sched_str(sched *s, const stir_expr *e)
{
	char *buf = s->str[s->str_next];
	s->str_next = (s->str_next + 1) % 2;
	char *t = e ? stir_expr_to_str(e) : NULL;
	snprintf(buf, sizeof(s->str[0]), "%s", t ? t : "?");
	free(t);
	return buf;
}

bool sched_int_value(const stir_expr *e, int64_t *v)
{
	if (!e || e->kind != STIR_EXPR_INT || !stir_dtype_is_int(e->dtype))
		return false;
	*v = e->u.i;
	return true;
}

/* s, n, a, b: sched_same on two arrays of n expressions. */
static bool same_all(const sched *s, int n, stir_expr *const *a,
	stir_expr *const *b)
{
	for (int i = 0; i < n; i++)
		if (!sched_same(s, a[i], b[i]))
			return false;
	return true;
}

bool sched_same(const sched *s, const stir_expr *a, const stir_expr *b)
{
	if (a == b)
		return true;
	if (!a || !b)
		return false;
	if (a->kind == STIR_EXPR_VAR && b->kind == STIR_EXPR_VAR)
		return sched_canon(s, a->u.var) == sched_canon(s, b->u.var);
	if (a->kind != b->kind || a->dtype != b->dtype)
		return false;
	switch (a->kind) {
	case STIR_EXPR_INT:
		return a->u.i == b->u.i;
	case STIR_EXPR_FLOAT:
		return !memcmp(&a->u.f, &b->u.f, sizeof(double));
	case STIR_EXPR_LOAD:
		return a->u.load.buf == b->u.load.buf && a->u.load.n == b->u.load.n &&
			same_all(s, a->u.load.n, a->u.load.idx, b->u.load.idx);
	case STIR_EXPR_UNARY:
		return a->u.unary.op == b->u.unary.op &&
			sched_same(s, a->u.unary.a, b->u.unary.a);
	case STIR_EXPR_BINARY:
		return a->u.binary.op == b->u.binary.op &&
			sched_same(s, a->u.binary.a, b->u.binary.a) &&
			sched_same(s, a->u.binary.b, b->u.binary.b);
	case STIR_EXPR_SELECT:
		return sched_same(s, a->u.select.c, b->u.select.c) &&
			sched_same(s, a->u.select.a, b->u.select.a) &&
			sched_same(s, a->u.select.b, b->u.select.b);
	case STIR_EXPR_CALL:
		return a->u.call.f == b->u.call.f && a->u.call.n == b->u.call.n &&
			same_all(s, a->u.call.n, a->u.call.args, b->u.call.args);
	case STIR_EXPR_CAST:
		return sched_same(s, a->u.cast.a, b->u.cast.a);
	case STIR_EXPR_SEARCH:
		return a->u.search.op == b->u.search.op &&
			a->u.search.buf == b->u.search.buf &&
			sched_same(s, a->u.search.lo, b->u.search.lo) &&
			sched_same(s, a->u.search.hi, b->u.search.hi) &&
			sched_same(s, a->u.search.x, b->u.search.x);
	default:
		return false;
	}
}

stir_expr *sched_cast(stir_kernel *k, stir_expr *e, stir_dtype t)
{
	if (!e || e->dtype == t)
		return e;
	if (e->flexible && e->kind == STIR_EXPR_INT) {
		stir_expr_adopt_type(e, t);
		if (e->dtype == t)
			return e;
	}
	return stir_expr_cast(k, t, e);
}

stir_expr *sched_zero(stir_kernel *k, stir_dtype t)
{
	stir_expr *z = stir_dtype_is_float(t) ? stir_expr_float(k, 0.0) :
		stir_expr_int(k, 0);
	stir_expr_adopt_type(z, t);
	return z;
}

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

/* c, buf, store, load, n, idx, cond: record one access. */
static void record(coll *c, stir_buffer *buf, stir_stmt *store,
	stir_expr *load, int n, stir_expr **idx, bool cond)
{
	sched_accs *a = c->a;
	stir_kernel *k = c->s->k;
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

/* ---- reads and writes of whole subtrees ---- */

/* e, b: whether expression e loads or searches b. */
static bool expr_reads(const stir_expr *e, const stir_buffer *b)
{
	if (!e)
		return false;
	switch (e->kind) {
	case STIR_EXPR_LOAD:
		if (e->u.load.buf == b)
			return true;
		for (int i = 0; i < e->u.load.n; i++)
			if (expr_reads(e->u.load.idx[i], b))
				return true;
		return false;
	case STIR_EXPR_UNARY:
		return expr_reads(e->u.unary.a, b);
	case STIR_EXPR_BINARY:
		return expr_reads(e->u.binary.a, b) || expr_reads(e->u.binary.b, b);
	case STIR_EXPR_SELECT:
		return expr_reads(e->u.select.c, b) || expr_reads(e->u.select.a, b) ||
			expr_reads(e->u.select.b, b);
	case STIR_EXPR_CALL:
		for (int i = 0; i < e->u.call.n; i++)
			if (expr_reads(e->u.call.args[i], b))
				return true;
		return false;
	case STIR_EXPR_CAST:
		return expr_reads(e->u.cast.a, b);
	case STIR_EXPR_SEARCH:
		return e->u.search.buf == b || expr_reads(e->u.search.lo, b) ||
			expr_reads(e->u.search.hi, b) || expr_reads(e->u.search.x, b);
	default:
		return false;
	}
}

/* list, b: sched_stmt_reads over a list. */
static bool list_reads(const stir_ptr_vec *list, const stir_buffer *b)
{
	for (int i = 0; i < list->n; i++)
		if (sched_stmt_reads(stir_stmt_at(list, i), b))
			return true;
	return false;
}

bool sched_stmt_reads(const stir_stmt *st, const stir_buffer *b)
{
	switch (st->kind) {
	case STIR_STMT_STORE:
		if (st->u.store.buf == b && st->u.store.op != STIR_STORE_ASSIGN)
			return true;
		for (int i = 0; i < st->u.store.n; i++)
			if (expr_reads(st->u.store.idx[i], b))
				return true;
		return expr_reads(st->u.store.value, b);
	case STIR_STMT_LET:
		return expr_reads(st->u.let.value, b);
	case STIR_STMT_IF:
		return expr_reads(st->u.if_.cond, b) ||
			list_reads(&st->u.if_.then_body, b) ||
			list_reads(&st->u.if_.else_body, b);
	case STIR_STMT_FOR:
		return expr_reads(st->u.for_.extent, b) ||
			list_reads(&st->u.for_.body, b);
	case STIR_STMT_BLOCK:
		for (int i = 0; i < st->u.block.n_vars; i++)
			if (expr_reads(st->u.block.bindings[i], b))
				return true;
		return list_reads(&st->u.block.body, b);
	default:
		return false;
	}
}

bool sched_stmt_stores(const stir_stmt *st)
{
	const stir_ptr_vec *lists[2] = { NULL, NULL };
	switch (st->kind) {
	case STIR_STMT_STORE:
		return true;
	case STIR_STMT_IF:
		lists[0] = &st->u.if_.then_body;
		lists[1] = &st->u.if_.else_body;
		break;
	case STIR_STMT_FOR:
	case STIR_STMT_BLOCK:
		lists[0] = stir_stmt_body((stir_stmt *)st);
		break;
	default:
		return false;
	}
	for (int l = 0; l < 2; l++)
		for (int i = 0; lists[l] && i < lists[l]->n; i++)
			if (sched_stmt_stores(stir_stmt_at(lists[l], i)))
				return true;
	return false;
}

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

/* ---- names ---- */

void sched_names_release(sched_names *names)
{
	stir_names_release(names);
}

bool sched_names_has(const sched_names *names, const char *name)
{
	return stir_names_has(names, name);
}

/* names, name: record name (an arena string); -1 when memory runs out. */
static int names_add(sched_names *names, const char *name)
{
	return stir_names_add(names, name);
}

/* s, names: the kernel's parameters, axes and buffers. */
static int add_kernel_names(sched *s, sched_names *names)
{
	return stir_names_add_kernel(names, s->k);
}

/* names, list, upto: the lets of list before index upto. */
static int add_lets(sched_names *names, const stir_ptr_vec *list, int upto)
{
	for (int i = 0; i < upto && i < list->n; i++) {
		const stir_stmt *st = stir_stmt_at(list, i);
		if (st->kind == STIR_STMT_LET &&
		    names_add(names, st->u.let.var->name) < 0)
			return -1;
	}
	return 0;
}

int sched_scope_names(sched *s, const sched_path *p, int depth,
	const stir_ptr_vec *list, int index, sched_names *names)
{
	memset(names, 0, sizeof(*names));
	if (add_kernel_names(s, names) < 0)
		goto oom;
	for (int i = 0; i < depth; i++) {
		const stir_stmt *st = p->stmt[i];
		if (add_lets(names, p->list[i], p->index[i]) < 0)
			goto oom;
		if (st->kind == STIR_STMT_FOR &&
		    names_add(names, st->u.for_.var->name) < 0)
			goto oom;
		if (st->kind == STIR_STMT_BLOCK)
			for (int j = 0; j < st->u.block.n_vars; j++)
				if (names_add(names, st->u.block.vars[j]->name) < 0)
					goto oom;
	}
	if (add_lets(names, list, index) < 0)
		goto oom;
	return 0;
oom:
	s->oom = true;
	return -1;
}

int sched_names_add_bound(sched *s, const stir_stmt *st, sched_names *names)
{
	int rc = 0;
	const stir_ptr_vec *lists[2] = { NULL, NULL };
	switch (st->kind) {
	case STIR_STMT_LET:
		rc = names_add(names, st->u.let.var->name);
		break;
	case STIR_STMT_IF:
		lists[0] = &st->u.if_.then_body;
		lists[1] = &st->u.if_.else_body;
		break;
	case STIR_STMT_FOR:
		rc = names_add(names, st->u.for_.var->name);
		lists[0] = &st->u.for_.body;
		break;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < st->u.block.n_vars && !rc; i++)
			rc = names_add(names, st->u.block.vars[i]->name);
		lists[0] = &st->u.block.body;
		break;
	default:
		break;
	}
	for (int l = 0; l < 2 && !rc; l++)
		for (int i = 0; lists[l] && i < lists[l]->n && !rc; i++)
			rc = sched_names_add_bound(s, stir_stmt_at(lists[l], i), names);
	if (rc < 0)
		s->oom = true;
	return rc;
}

int sched_loop_names(sched *s, const sched_path *path, int li,
	sched_names *names)
{
	if (sched_scope_names(s, path, li, path->list[li], path->index[li],
	    names) < 0)
		return -1;
	return sched_names_add_bound(s, path->stmt[li], names);
}

const char *sched_names_fresh(sched *s, sched_names *names, const char *base)
{
	const char *n = sched_check(s, stir_names_fresh_in(names,
		stir_kernel_arena(s->k), base));
	/* interned, so that a name a primitive hands out outlives the
	 * collection at its end (the arena copy in "names" does not) */
	const char *i = n ? stir_module_intern(s->k->module, n) : NULL;
	if (n && !i)
		s->oom = true;
	return i;
}

/* Every name of the kernel, for sched_fresh_global. */
typedef struct all_names {
	sched_names *names;
	bool blocks;             /* collect block names only */
	bool oom;
} all_names;

/* k, list, user: record the names bound by the statements of list. */
static int collect_names(stir_kernel *k, stir_ptr_vec *list, void *user)
{
	all_names *an = user;
	(void)k;
	for (int i = 0; i < list->n; i++) {
		stir_stmt *st = stir_stmt_at(list, i);
		int rc = 0;
		if (an->blocks) {
			if (st->kind == STIR_STMT_BLOCK)
				rc = names_add(an->names, st->u.block.name);
		} else if (st->kind == STIR_STMT_LET) {
			rc = names_add(an->names, st->u.let.var->name);
		} else if (st->kind == STIR_STMT_FOR) {
			rc = names_add(an->names, st->u.for_.var->name);
		} else if (st->kind == STIR_STMT_BLOCK) {
			for (int j = 0; j < st->u.block.n_vars && !rc; j++)
				rc = names_add(an->names, st->u.block.vars[j]->name);
		}
		if (rc < 0)
			an->oom = true;
	}
	return an->oom ? -1 : 0;
}

/* s, base, blocks: a name fresh among the block names (blocks) or among
 * every other name of the kernel. */
static const char *fresh_in_kernel(sched *s, const char *base, bool blocks)
{
	if (!base)
		return NULL; /* building it ran out of memory (s->oom is set) */
	sched_names names = { 0 };
	all_names an = { &names, blocks, false };
	if (!blocks && add_kernel_names(s, &names) < 0)
		an.oom = true;
	if (!an.oom)
		stir_foreach_list(s->k, collect_names, &an);
	const char *name = NULL;
	if (an.oom)
		s->oom = true;
	else
		name = sched_names_fresh(s, &names, base);
	sched_names_release(&names);
	return name;
}

const char *sched_fresh_block_name(sched *s, const char *base)
{
	return fresh_in_kernel(s, base, true);
}

const char *sched_fresh_global(sched *s, const char *base)
{
	return fresh_in_kernel(s, base, false);
}

/* s, v, names: rename v when its name is taken in names. */
static void rename_var(sched *s, stir_var *v, sched_names *names)
{
	if (!sched_names_has(names, v->name))
		return;
	const char *name = sched_fresh_global(s, v->name);
	if (name) {
		v->name = name;
		if (names_add(names, name) < 0)
			s->oom = true;
	}
}

/* s, list, names: sched_rename_clashes on every statement of list. */
static void rename_list(sched *s, stir_ptr_vec *list, sched_names *names)
{
	for (int i = 0; i < list->n; i++)
		sched_rename_clashes(s, stir_stmt_at(list, i), names);
}

int sched_rename_clashes(sched *s, stir_stmt *st, sched_names *names)
{
	switch (st->kind) {
	case STIR_STMT_LET:
		rename_var(s, st->u.let.var, names);
		break;
	case STIR_STMT_IF:
		rename_list(s, &st->u.if_.then_body, names);
		rename_list(s, &st->u.if_.else_body, names);
		break;
	case STIR_STMT_FOR:
		rename_var(s, st->u.for_.var, names);
		rename_list(s, &st->u.for_.body, names);
		break;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < st->u.block.n_vars; i++)
			rename_var(s, st->u.block.vars[i], names);
		rename_list(s, &st->u.block.body, names);
		break;
	default:
		break;
	}
	return s->oom ? -1 : 0;
}

/* ---- scoped buffers and thread bindings ---- */

/* The walk of sched_check_scopes. */
typedef struct scope_walk {
	sched *s;
	bool report;
	bool ok;
} scope_walk;

static int count_accesses(const stir_stmt *st, const stir_buffer *b);

int sched_count_accesses(const stir_stmt *st, const stir_buffer *b)
{
	return count_accesses(st, b);
}

/* list, b: the number of stores to b in list. */
static int count_stores_list(const stir_ptr_vec *list, const stir_buffer *b)
{
	int n = 0;
	for (int i = 0; i < list->n; i++)
		n += sched_count_stores(stir_stmt_at(list, i), b);
	return n;
}

int sched_count_stores(const stir_stmt *st, const stir_buffer *b)
{
	switch (st->kind) {
	case STIR_STMT_STORE:
		return st->u.store.buf == b;
	case STIR_STMT_IF:
		return count_stores_list(&st->u.if_.then_body, b) +
			count_stores_list(&st->u.if_.else_body, b);
	case STIR_STMT_FOR:
	case STIR_STMT_BLOCK:
		return count_stores_list(stir_stmt_body((stir_stmt *)st), b);
	default:
		return 0;
	}
}

/* e, b: the number of accesses of b in expression e. */
static int count_expr(const stir_expr *e, const stir_buffer *b)
{
	if (!e)
		return 0;
	switch (e->kind) {
	case STIR_EXPR_LOAD: {
		int n = e->u.load.buf == b;
		for (int i = 0; i < e->u.load.n; i++)
			n += count_expr(e->u.load.idx[i], b);
		return n;
	}
	case STIR_EXPR_UNARY:
		return count_expr(e->u.unary.a, b);
	case STIR_EXPR_BINARY:
		return count_expr(e->u.binary.a, b) + count_expr(e->u.binary.b, b);
	case STIR_EXPR_SELECT:
		return count_expr(e->u.select.c, b) + count_expr(e->u.select.a, b) +
			count_expr(e->u.select.b, b);
	case STIR_EXPR_CALL: {
		int n = 0;
		for (int i = 0; i < e->u.call.n; i++)
			n += count_expr(e->u.call.args[i], b);
		return n;
	}
	case STIR_EXPR_CAST:
		return count_expr(e->u.cast.a, b);
	case STIR_EXPR_SEARCH:
		return (e->u.search.buf == b) + count_expr(e->u.search.lo, b) +
			count_expr(e->u.search.hi, b) + count_expr(e->u.search.x, b);
	default:
		return 0;
	}
}

/* list, b: count_accesses over the statements of a list. */
static int count_list(const stir_ptr_vec *list, const stir_buffer *b)
{
	int n = 0;
	for (int i = 0; i < list->n; i++)
		n += count_accesses(stir_stmt_at(list, i), b);
	return n;
}

/* st, b: the number of accesses of b in st (loads, searches, stores). */
static int count_accesses(const stir_stmt *st, const stir_buffer *b)
{
	int n = 0;
	switch (st->kind) {
	case STIR_STMT_STORE:
		n = st->u.store.buf == b;
		for (int i = 0; i < st->u.store.n; i++)
			n += count_expr(st->u.store.idx[i], b);
		return n + count_expr(st->u.store.value, b);
	case STIR_STMT_LET:
		return count_expr(st->u.let.value, b);
	case STIR_STMT_IF:
		return count_expr(st->u.if_.cond, b) +
			count_list(&st->u.if_.then_body, b) +
			count_list(&st->u.if_.else_body, b);
	case STIR_STMT_FOR:
		return count_expr(st->u.for_.extent, b) +
			count_list(&st->u.for_.body, b);
	case STIR_STMT_BLOCK:
		for (int i = 0; i < st->u.block.n_vars; i++)
			n += count_expr(st->u.block.bindings[i], b);
		return n + count_list(&st->u.block.body, b);
	default:
		return 0;
	}
}

/* list, b: the number of cross-thread blocks in list whose one store
 * adds into b and is its only access of b. */
static int count_cross_list(const stir_ptr_vec *list, const stir_buffer *b);

/* st, b: count_cross_list for one statement. */
static int count_cross(const stir_stmt *st, const stir_buffer *b)
{
	switch (st->kind) {
	case STIR_STMT_IF:
		return count_cross_list(&st->u.if_.then_body, b) +
			count_cross_list(&st->u.if_.else_body, b);
	case STIR_STMT_FOR:
		return count_cross_list(&st->u.for_.body, b);
	case STIR_STMT_BLOCK:
		if (st->u.block.flags & STIR_BLOCK_CROSS_THREAD) {
			const stir_stmt *one = st->u.block.body.n == 1 ?
				stir_stmt_at(&st->u.block.body, 0) : NULL;
			return one && one->kind == STIR_STMT_STORE &&
				one->u.store.buf == b && count_accesses(one, b) == 1;
		}
		return count_cross_list(&st->u.block.body, b);
	default:
		return 0;
	}
}

static int count_cross_list(const stir_ptr_vec *list, const stir_buffer *b)
{
	int n = 0;
	for (int i = 0; i < list->n; i++)
		n += count_cross(stir_stmt_at(list, i), b);
	return n;
}

/* w, loop: the scope rule for one bound loop.  A local buffer that a
 * threadIdx.x loop reaches only as the target of cross-thread blocks
 * reducing over it may be used outside it: after the loop every thread's
 * copy has received the whole reduction (the emitter combines the parts
 * of the warp and adds the total in every thread). */
static void check_bound_loop(scope_walk *w, const stir_stmt *loop)
{
	stir_kernel *k = w->s->k;
	bool block_idx = loop->u.for_.thread <= STIR_BLOCK_Z;
	for (int i = 0; i < k->buffers.n && w->ok; i++) {
		const stir_buffer *b = stir_buffer_at(&k->buffers, i);
		if (b->scope != STIR_SCOPE_LOCAL && b->scope != STIR_SCOPE_WARP &&
		    !(block_idx && b->scope == STIR_SCOPE_SHARED))
			continue;
		int inside = count_list(&loop->u.for_.body, b);
		if (!inside || inside == count_list(&k->body, b))
			continue;
		if (loop->u.for_.thread == STIR_THREAD_X &&
		    b->scope == STIR_SCOPE_LOCAL &&
		    inside == count_cross_list(&loop->u.for_.body, b))
			continue;
		w->ok = false;
		if (w->report)
			sched_fail(w->s, loop->loc, "%s buffer '%s' is accessed both "
				"inside and outside loop '%s', which is bound to %s",
				sched_scope_name(b->scope),
				b->name, loop->u.for_.var->name,
				sched_thread_name(loop->u.for_.thread));
	}
}

/* k, list, user: check the bound loops of list. */
static int scope_list(stir_kernel *k, stir_ptr_vec *list, void *user)
{
	scope_walk *w = user;
	(void)k;
	for (int i = 0; i < list->n && w->ok; i++) {
		const stir_stmt *st = stir_stmt_at(list, i);
		if (st->kind == STIR_STMT_FOR && st->u.for_.kind == STIR_LOOP_BIND)
			check_bound_loop(w, st);
	}
	return 0;
}

bool sched_check_scopes(sched *s, bool report)
{
	scope_walk w = { s, report, true };
	stir_foreach_list(s->k, scope_list, &w);
	return w.ok;
}
