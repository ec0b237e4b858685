/* The toolkit of the stage II/III schedule primitives; see sched.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/lang.h>
#include <stir/passes.h>
#include "ir/layout.h"
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

/* st, user: drop the vector plan of loop st, if any (user: the sched,
 * whose replan it sets). */
static stir_visit_step drop_plan(stir_stmt *st, void *user)
{
	sched *s = user;
	if (st->kind == STIR_STMT_FOR && st->u.for_.planned) {
		st->u.for_.planned = false;
		st->u.for_.n_vecs = 0;
		st->u.for_.vecs = NULL;
		s->replan = true;
	}
	return STIR_VISIT_GO;
}

int sched_begin(sched *s, stir_kernel *k, const char *prim)
{
	memset(s, 0, sizeof(*s));
	if (!k)
		return -1;
	stir_made_clear(k);
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
	/* plans are plan_vectors' record of the bodies the request may
	 * rewrite: dropped from the copy, made again by sched_end */
	stir_visitor drop = { .stmt_pre = drop_plan, .user = s };
	stir_visit_list(&drop, &body);
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
		stir_made_clear(s->k);
		if (s->failed)
			stir_error(s->ctx, s->err_loc.line > 0 ? s->err_loc :
				s->place.line > 0 ? s->place : s->k->loc, "%s: %s",
				s->prim, s->err);
		else
			stir_error_oom(s->ctx);
		sched_release(s);
		return -1;
	}
	sched_release(s);
	if (stir_analyze_regions(s->k) < 0 ||
	    (s->replan && stir_plan_vectors(s->k) < 0)) {
		sched_restore(s);
		stir_made_clear(s->k);
		return -1;
	}
	if (stir_kernel_verify(s->k) < 0) {
		sched_restore(s);
		stir_made_clear(s->k);
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

/* s, kind, name, from: see sched.h. */
void sched_made(sched *s, stir_made_kind kind, const char *name,
	const char *from)
{
	if (!s->oom && stir_made_add(s->k, kind, name, from) < 0)
		s->oom = true;
}

/* ---- the index of definitions ---- */

/* s, v, st, val: v is bound by st to val. */
static void index_var(sched *s, const stir_var *v, stir_stmt *st,
	stir_expr *val)
{
	if (v->slot >= 0 && v->slot < s->n_slots) {
		s->def[v->slot] = st;
		s->val[v->slot] = val;
	}
}

/* st, user: record the variables st binds (a sched). */
static stir_visit_step index_stmt(stir_stmt *st, void *user)
{
	int n;
	stir_expr **vals;
	stir_var **vars = stir_stmt_binds(st, &n, &vals);
	for (int i = 0; i < n; i++)
		index_var(user, vars[i], st, vals ? vals[i] : NULL);
	return STIR_VISIT_GO;
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
	stir_visitor v = { index_stmt, NULL, NULL, NULL, 0, s };
	stir_visit_list(&v, &s->k->body);
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
	if (name && path_search(p, &s->k->body, &goal, &oom)) {
		if (s->place.line <= 0)
			s->place = stir_stmt_first_loc(p->stmt[p->n - 1]);
		return 0;
	}
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

int sched_find_block_loop(sched *s, const char *block, const char *loop,
	sched_path *p)
{
	if (sched_find_block(s, block, p) < 0)
		return -1;
	return sched_path_loop(s, p, loop);
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

/* ---- what differs between threads ---- */

/* The variables in scope that differ between the threads looked at. */
typedef struct thread_vars {
	const stir_var **v;
	int n, cap;
} thread_vars;

/* t, e: whether e uses a variable of t. */
static bool uses_thread_var(const thread_vars *t, const stir_expr *e)
{
	for (int i = 0; e && i < t->n; i++)
		if (stir_expr_uses(e, t->v[i]))
			return true;
	return false;
}

/* t, s, x, lanes: add the variables x binds that differ between the
 * threads (lanes: between the lanes of a warp): a loop bound to threadIdx
 * (lanes: threadIdx.x), a let or a block's variable whose value uses one. */
static void add_thread_vars(thread_vars *t, sched *s, stir_stmt *x,
	bool lanes)
{
	stir_expr **vals;
	int n;
	stir_var **vars = stir_stmt_binds(x, &n, &vals);
	for (int i = 0; i < n; i++) {
		bool varies = x->kind == STIR_STMT_FOR ?
			x->u.for_.kind == STIR_LOOP_BIND && (lanes ?
			x->u.for_.thread == STIR_THREAD_X :
			x->u.for_.thread >= STIR_THREAD_X) :
			vals && uses_thread_var(t, vals[i]);
		if (!varies)
			continue;
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 8;
			const stir_var **v = realloc(t->v, (size_t)t->cap * sizeof *v);
			if (!v) {
				sched_fail(s, x->loc, "out of memory");
				return;
			}
			t->v = v;
		}
		t->v[t->n++] = vars[i];
	}
}

/* s, c, p, li, lanes: see sched.h. */
bool sched_thread_dependent(sched *s, const stir_expr *c, const sched_path *p,
	int li, bool lanes)
{
	thread_vars t = { 0 };
	for (int i = 0; i <= li && !s->failed; i++) {
		for (int j = 0; j < p->index[i]; j++) {
			stir_stmt *x = stir_stmt_at(p->list[i], j);
			if (x->kind == STIR_STMT_LET)
				add_thread_vars(&t, s, x, lanes);
		}
		if (i < li)
			add_thread_vars(&t, s, p->stmt[i], lanes);
	}
	bool varies = uses_thread_var(&t, c);
	free(t.v);
	return varies;
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
	case STIR_LOOP_TENSORIZE:
		return "tensorized";
	case STIR_LOOP_PIPELINE:
		return "pipelined";
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

/* v, user: sched_canon of v in the sched "user" (a stir_eq hook). */
static const stir_var *canon_hook(const stir_var *v, const void *user)
{
	return sched_canon(user, v);
}

/* s, a, b: see sched.h. */
bool sched_same(const sched *s, const stir_expr *a, const stir_expr *b)
{
	stir_eq eq = { 0, NULL, canon_hook, s };
	return stir_expr_equal(&eq, a, b);
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

/* What add_bound_names carries. */
typedef struct bound_names {
	sched_names *names;    /* where the names go */
	int rc;                /* 0, or -1 when memory ran out */
} bound_names;

/* st, user: add the names of the variables st binds (a bound_names). */
static stir_visit_step add_bound_names(stir_stmt *st, void *user)
{
	bound_names *b = user;
	int n;
	stir_var **vars = stir_stmt_binds(st, &n, NULL);
	for (int i = 0; i < n && !b->rc; i++)
		b->rc = names_add(b->names, vars[i]->name);
	return b->rc ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* s, st, names: see sched.h. */
int sched_names_add_bound(sched *s, const stir_stmt *st, sched_names *names)
{
	bound_names b = { names, 0 };
	stir_visitor v = { add_bound_names, NULL, NULL, NULL, 0, &b };
	stir_visit_stmt(&v, (stir_stmt *)st);
	if (b.rc < 0)
		s->oom = true;
	return b.rc;
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

/* What rename_bound carries. */
typedef struct rename_walk {
	sched *s;
	sched_names *names;
} rename_walk;

/* st, user: rename_var on the variables st binds (a rename_walk). */
static stir_visit_step rename_bound(stir_stmt *st, void *user)
{
	rename_walk *w = user;
	int n;
	stir_var **vars = stir_stmt_binds(st, &n, NULL);
	for (int i = 0; i < n; i++)
		rename_var(w->s, vars[i], w->names);
	return STIR_VISIT_GO;
}

/* s, st, names: see sched.h. */
int sched_rename_clashes(sched *s, stir_stmt *st, sched_names *names)
{
	rename_walk w = { s, names };
	stir_visitor v = { rename_bound, NULL, NULL, NULL, 0, &w };
	stir_visit_stmt(&v, st);
	return s->oom ? -1 : 0;
}

/* ---- scoped buffers and thread bindings ---- */

/* The walk of sched_check_scopes. */
typedef struct scope_walk {
	sched *s;
	bool report;
	bool ok;
	int *in_kernel;        /* per buffer, its accesses in the kernel's
	                          body, or -1 until counted (NULL: out of
	                          memory, counted each time) */
} scope_walk;

/* st, b: see sched.h. */
int sched_count_accesses(const stir_stmt *st, const stir_buffer *b)
{
	stir_uses u = { .buf = b };
	stir_uses_stmt(&u, st);
	return u.loads + u.stores;
}

/* st, b: see sched.h. */
int sched_count_stores(const stir_stmt *st, const stir_buffer *b)
{
	stir_uses u = { .buf = b };
	stir_uses_stmt(&u, st);
	return u.stores;
}

/* list, b: sched_count_accesses over the statements of a list. */
static int count_list(const stir_ptr_vec *list, const stir_buffer *b)
{
	stir_uses u = { .buf = b };
	stir_uses_list(&u, list);
	return u.loads + u.stores;
}

/* What count_cross carries. */
typedef struct cross_count {
	const stir_buffer *b;  /* the buffer */
	int n;                 /* blocks counted */
} cross_count;

/* st, user: count st when it is a cross-thread block whose one store
 * adds into b and is its only access of b (a cross_count); such a block
 * is not entered. */
static stir_visit_step count_cross(stir_stmt *st, void *user)
{
	cross_count *c = user;
	if (st->kind != STIR_STMT_BLOCK ||
	    !(st->u.block.flags & STIR_BLOCK_CROSS_THREAD))
		return STIR_VISIT_GO;
	const stir_stmt *one = st->u.block.body.n == 1 ?
		stir_stmt_at(&st->u.block.body, 0) : NULL;
	c->n += one && one->kind == STIR_STMT_STORE &&
		one->u.store.buf == c->b && sched_count_accesses(one, c->b) == 1;
	return STIR_VISIT_SKIP;
}

/* list, b: the number of cross-thread blocks in list whose one store
 * adds into b and is its only access of b. */
static int count_cross_list(const stir_ptr_vec *list, const stir_buffer *b)
{
	cross_count c = { b, 0 };
	stir_visitor v = { count_cross, NULL, NULL, NULL, 0, &c };
	stir_visit_list(&v, (stir_ptr_vec *)list);
	return c.n;
}

/* w, i, b: the accesses of b, the kernel's buffer i, in the kernel's
 * body, counted once per walk (each time when the count array could not
 * be made). */
static int kernel_count(scope_walk *w, int i, const stir_buffer *b)
{
	if (!w->in_kernel)
		return count_list(&w->s->k->body, b);
	if (w->in_kernel[i] < 0)
		w->in_kernel[i] = count_list(&w->s->k->body, b);
	return w->in_kernel[i];
}

/* w, loop: the scope rule for one bound loop.  A local buffer that a
 * threadIdx.x loop reaches only as the target of cross-thread blocks
 * reducing over it may be used outside it: after the loop every thread's
 * copy has received the whole reduction (the emitter combines the parts
 * of the warp and adds the total in every thread).  So may a tensor-core
 * accumulator split over the warps of a threadIdx.y or z loop
 * (sched_frag_split_ok): each warp keeps and touches only its own
 * tiles. */
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
		if (!inside)
			continue;
		if (inside == kernel_count(w, i, b))
			continue;
		if (loop->u.for_.thread == STIR_THREAD_X &&
		    b->scope == STIR_SCOPE_LOCAL &&
		    inside == count_cross_list(&loop->u.for_.body, b))
			continue;
		char why[300] = "";
		if (b->scope == STIR_SCOPE_LOCAL && !block_idx &&
		    loop->u.for_.thread != STIR_THREAD_X &&
		    sched_frag_split_ok(w->s, loop, b, why, sizeof(why)))
			continue;
		w->ok = false;
		if (w->report)
			sched_fail(w->s, loop->loc, "%s buffer '%s' is accessed both "
				"inside and outside loop '%s', which is bound to %s%s%s%s",
				sched_scope_name(b->scope),
				b->name, loop->u.for_.var->name,
				sched_thread_name(loop->u.for_.thread),
				why[0] ? " (and it is no tensor-core accumulator split "
				"over the loop's warps: " : "", why, why[0] ? ")" : "");
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
	scope_walk w = { s, report, true, NULL };
	int n = s->k->buffers.n;
	w.in_kernel = malloc((size_t)(n ? n : 1) * sizeof(*w.in_kernel));
	for (int i = 0; w.in_kernel && i < n; i++)
		w.in_kernel[i] = -1;
	stir_foreach_list(s->k, scope_list, &w);
	free(w.in_kernel);
	return w.ok;
}
