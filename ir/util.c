/* Helpers for passes that rewrite the IR; see util.h. */
#include <stdio.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ir/util.h"

/* ---- substitutions ---- */

void stir_subst_release(stir_subst *s)
{
	free(s->from);
	free(s->to_expr);
	free(s->to_var);
	memset(s, 0, sizeof(*s));
}

/* s: grow by one entry; -1 when memory runs out. */
static int subst_grow(stir_subst *s)
{
	if (s->n < s->cap)
		return 0;
	int cap = s->cap ? 2 * s->cap : 16;
	const stir_var **from = realloc(s->from, (size_t)cap * sizeof(*from));
	if (from)
		s->from = from;
	stir_expr **te = realloc(s->to_expr, (size_t)cap * sizeof(*te));
	if (te)
		s->to_expr = te;
	stir_var **tv = realloc(s->to_var, (size_t)cap * sizeof(*tv));
	if (tv)
		s->to_var = tv;
	if (!from || !te || !tv)
		return -1;
	s->cap = cap;
	return 0;
}

int stir_subst_add_expr(stir_subst *s, const stir_var *from, stir_expr *to)
{
	if (subst_grow(s) < 0)
		return -1;
	s->from[s->n] = from;
	s->to_expr[s->n] = to;
	s->to_var[s->n] = NULL;
	s->n++;
	return 0;
}

int stir_subst_add_var(stir_subst *s, const stir_var *from, stir_var *to)
{
	if (subst_grow(s) < 0)
		return -1;
	s->from[s->n] = from;
	s->to_expr[s->n] = NULL;
	s->to_var[s->n] = to;
	s->n++;
	return 0;
}

/* s, v: the latest entry for v, or -1. */
static int subst_find(const stir_subst *s, const stir_var *v)
{
	for (int i = s ? s->n - 1 : -1; i >= 0; i--)
		if (s->from[i] == v)
			return i;
	return -1;
}

/* ---- copying ---- */

/* k, n, src, s: copies of n expressions in a new arena array. */
static stir_expr **copy_exprs(stir_kernel *k, int n, stir_expr *const *src,
	const stir_subst *s)
{
	stir_expr **v = stir_arena_alloc(stir_kernel_arena(k),
		(size_t)(n ? n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (int i = 0; i < n; i++)
		if (!(v[i] = stir_expr_copy(k, src[i], s)))
			return NULL;
	return v;
}

/* k, e: see util.h. */
stir_expr *stir_expr_copy_node(stir_kernel *k, const stir_expr *e)
{
	stir_arena *ar = stir_kernel_arena(k);
	stir_expr *c = stir_arena_alloc(ar, sizeof(*c));
	if (!c)
		return NULL;
	*c = *e;
	stir_expr ***arr;
	int n;
	if (e->kind == STIR_EXPR_LOAD) {
		arr = &c->u.load.idx;
		n = e->u.load.n;
	} else if (e->kind == STIR_EXPR_CALL) {
		arr = &c->u.call.args;
		n = e->u.call.n;
	} else {
		return c;
	}
	stir_expr **v = stir_arena_alloc(ar, (size_t)(n ? n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	memcpy(v, *arr, (size_t)n * sizeof(*v));
	*arr = v;
	return c;
}

/* k, e, s: see util.h. */
stir_expr *stir_expr_copy(stir_kernel *k, const stir_expr *e, const stir_subst *s)
{
	if (!e)
		return NULL;
	if (e->kind == STIR_EXPR_VAR) {
		int i = subst_find(s, e->u.var);
		if (i >= 0 && s->to_expr[i])
			return stir_expr_copy(k, s->to_expr[i], NULL);
	}
	stir_expr *c = stir_expr_copy_node(k, e), **slot;
	if (!c)
		return NULL;
	if (e->kind == STIR_EXPR_VAR) {
		int i = subst_find(s, e->u.var);
		if (i >= 0)
			c->u.var = s->to_var[i];
		return c;
	}
	for (int i = 0; (slot = stir_expr_child(c, i)); i++)
		if (!(*slot = stir_expr_copy(k, *slot, s)))
			return NULL;
	return c;
}

/* k, v, s: a clone of variable v (same name, kind, type, axis), recorded in
 * s as v's replacement. */
static stir_var *clone_var(stir_kernel *k, const stir_var *v, stir_subst *s)
{
	stir_var *c = stir_kernel_new_var(k, v->name, v->kind, v->dtype);
	if (!c || stir_subst_add_var(s, v, c) < 0)
		return NULL;
	c->loc = v->loc;
	c->axis = v->axis;
	return c;
}

/* k, dst, src, s: append copies of the statements of src to dst. */
static int copy_list(stir_kernel *k, stir_ptr_vec *dst, const stir_ptr_vec *src,
	stir_subst *s)
{
	for (int i = 0; i < src->n; i++) {
		stir_stmt *c = stir_stmt_copy(k, stir_stmt_at(src, i), s);
		if (!c || stir_ptr_vec_push(stir_kernel_arena(k), dst, c) < 0)
			return -1;
	}
	return 0;
}

/* k, n, src, s: copies of n regions. */
static stir_region *copy_regions(stir_kernel *k, int n, const stir_region *src,
	const stir_subst *s)
{
	stir_arena *ar = stir_kernel_arena(k);
	stir_region *r = stir_arena_alloc(ar, (size_t)(n ? n : 1) * sizeof(*r));
	if (!r)
		return NULL;
	for (int i = 0; i < n; i++) {
		r[i] = src[i];
		int d = src[i].n ? src[i].n : 1;
		r[i].lo = stir_arena_alloc(ar, (size_t)d * sizeof(stir_expr *));
		r[i].hi = stir_arena_alloc(ar, (size_t)d * sizeof(stir_expr *));
		if (!r[i].lo || !r[i].hi)
			return NULL;
		for (int j = 0; j < src[i].n; j++) {
			r[i].lo[j] = stir_expr_copy(k, src[i].lo[j], s);
			r[i].hi[j] = stir_expr_copy(k, src[i].hi[j], s);
		}
	}
	return r;
}

stir_stmt *stir_stmt_copy(stir_kernel *k, const stir_stmt *st, stir_subst *s)
{
	stir_arena *ar = stir_kernel_arena(k);
	stir_stmt *c = stir_arena_alloc(ar, sizeof(*c));
	if (!c)
		return NULL;
	*c = *st;
	c->kernel = k;
	switch (st->kind) {
	case STIR_STMT_STORE:
		c->u.store.idx = copy_exprs(k, st->u.store.n, st->u.store.idx, s);
		c->u.store.value = stir_expr_copy(k, st->u.store.value, s);
		return c->u.store.idx && c->u.store.value ? c : NULL;
	case STIR_STMT_LET:
		c->u.let.value = stir_expr_copy(k, st->u.let.value, s);
		c->u.let.var = clone_var(k, st->u.let.var, s);
		return c->u.let.value && c->u.let.var ? c : NULL;
	case STIR_STMT_IF:
		memset(&c->u.if_.then_body, 0, sizeof(stir_ptr_vec));
		memset(&c->u.if_.else_body, 0, sizeof(stir_ptr_vec));
		c->u.if_.cond = stir_expr_copy(k, st->u.if_.cond, s);
		if (!c->u.if_.cond ||
		    copy_list(k, &c->u.if_.then_body, &st->u.if_.then_body, s) < 0 ||
		    copy_list(k, &c->u.if_.else_body, &st->u.if_.else_body, s) < 0)
			return NULL;
		return c;
	case STIR_STMT_ITER: {
		int n = st->u.iter.n_vars;
		c->u.iter.vars = stir_arena_alloc(ar,
			(size_t)(n ? n : 1) * sizeof(stir_var *));
		if (!c->u.iter.vars)
			return NULL;
		for (int i = 0; i < n; i++)
			if (!(c->u.iter.vars[i] = clone_var(k, st->u.iter.vars[i], s)))
				return NULL;
		memset(&c->u.iter.init, 0, sizeof(stir_ptr_vec));
		memset(&c->u.iter.body, 0, sizeof(stir_ptr_vec));
		if (copy_list(k, &c->u.iter.init, &st->u.iter.init, s) < 0 ||
		    copy_list(k, &c->u.iter.body, &st->u.iter.body, s) < 0)
			return NULL;
		return c;
	}
	case STIR_STMT_FOR:
		c->u.for_.extent = stir_expr_copy(k, st->u.for_.extent, s);
		c->u.for_.var = clone_var(k, st->u.for_.var, s);
		memset(&c->u.for_.body, 0, sizeof(stir_ptr_vec));
		if (!c->u.for_.extent || !c->u.for_.var ||
		    copy_list(k, &c->u.for_.body, &st->u.for_.body, s) < 0)
			return NULL;
		if (st->u.for_.n_vecs) {
			/* the vector plan, in the copy's variables */
			int n = st->u.for_.n_vecs;
			c->u.for_.vecs = stir_arena_alloc(ar, (size_t)n *
				sizeof(*c->u.for_.vecs));
			for (int i = 0; c->u.for_.vecs && i < n; i++) {
				c->u.for_.vecs[i] = st->u.for_.vecs[i];
				c->u.for_.vecs[i].access = stir_expr_copy(k,
					st->u.for_.vecs[i].access, s);
				if (!c->u.for_.vecs[i].access)
					return NULL;
			}
			if (!c->u.for_.vecs)
				return NULL;
		}
		return c;
	case STIR_STMT_BLOCK: {
		int n = st->u.block.n_vars;
		c->u.block.bindings = copy_exprs(k, n, st->u.block.bindings, s);
		c->u.block.vars = stir_arena_alloc(ar,
			(size_t)(n ? n : 1) * sizeof(stir_var *));
		if (!c->u.block.bindings || !c->u.block.vars)
			return NULL;
		for (int i = 0; i < n; i++)
			if (!(c->u.block.vars[i] = clone_var(k, st->u.block.vars[i], s)))
				return NULL;
		c->u.block.reads = copy_regions(k, st->u.block.n_reads,
			st->u.block.reads, s);
		c->u.block.writes = copy_regions(k, st->u.block.n_writes,
			st->u.block.writes, s);
		memset(&c->u.block.body, 0, sizeof(stir_ptr_vec));
		if (!c->u.block.reads || !c->u.block.writes ||
		    copy_list(k, &c->u.block.body, &st->u.block.body, s) < 0)
			return NULL;
		return c;
	}
	case STIR_STMT_BARRIER:
		return c;
	}
	return NULL;
}

/* ---- substitution in place ---- */

/* What a substitution walk carries. */
typedef struct subst_walk {
	stir_kernel *k;          /* the kernel whose arena takes the copies */
	const stir_subst *s;     /* the substitution */
	bool failed;             /* memory ran out */
} subst_walk;

/* slot, user: *slot replaced by its substituted copy (a subst_walk); the
 * copy is whole, so the walk does not enter it. */
static stir_visit_step subst_slot(stir_expr **slot, void *user)
{
	subst_walk *w = user;
	stir_expr *c = stir_expr_copy(w->k, *slot, w->s);
	if (!c) {
		w->failed = true;
		return STIR_VISIT_STOP;
	}
	*slot = c;
	return STIR_VISIT_SKIP;
}

/* k, list, s: see util.h. */
int stir_list_subst(stir_kernel *k, stir_ptr_vec *list, const stir_subst *s)
{
	subst_walk w = { k, s, false };
	stir_visitor v = { NULL, NULL, subst_slot, NULL,
		STIR_VISIT_REGIONS | STIR_VISIT_VECTORS, &w };
	stir_visit_list(&v, list);
	return w.failed ? -1 : 0;
}

/* k, st, s: see util.h. */
int stir_stmt_subst(stir_kernel *k, stir_stmt *st, const stir_subst *s)
{
	subst_walk w = { k, s, false };
	stir_visitor v = { NULL, NULL, subst_slot, NULL,
		STIR_VISIT_REGIONS | STIR_VISIT_VECTORS, &w };
	stir_visit_stmt(&v, st);
	return w.failed ? -1 : 0;
}

/* ---- folding constructors ---- */

/* e: whether e is the integer literal v. */
static bool is_int(const stir_expr *e, int64_t v)
{
	return e && e->kind == STIR_EXPR_INT && e->dtype != STIR_BOOL && e->u.i == v;
}

stir_expr *stir_mk_int(stir_kernel *k, int64_t v)
{
	return stir_expr_int(k, v);
}

stir_expr *stir_mk_var(stir_kernel *k, stir_var *v)
{
	return stir_expr_var(k, v);
}

/* k, op, a, b: a op b on integers, folded when both are literals. */
static stir_expr *fold(stir_kernel *k, stir_binop op, stir_expr *a, stir_expr *b)
{
	if (a && b && a->kind == STIR_EXPR_INT && b->kind == STIR_EXPR_INT &&
	    a->flexible && b->flexible) {
		int64_t r;
		bool ok = op == STIR_ADD ? !__builtin_add_overflow(a->u.i, b->u.i, &r) :
			op == STIR_SUB ? !__builtin_sub_overflow(a->u.i, b->u.i, &r) :
			!__builtin_mul_overflow(a->u.i, b->u.i, &r);
		if (ok)
			return stir_expr_int(k, r);
	}
	return stir_expr_binary(k, op, a, b);
}

stir_expr *stir_mk_add(stir_kernel *k, stir_expr *a, stir_expr *b)
{
	if (is_int(a, 0))
		return b;
	if (is_int(b, 0))
		return a;
	/* a + (x - a) gives x: a row start plus a relative position */
	if (a && b && b->kind == STIR_EXPR_BINARY && b->u.binary.op == STIR_SUB &&
	    stir_expr_same(b->u.binary.b, a))
		return b->u.binary.a;
	return fold(k, STIR_ADD, a, b);
}

stir_expr *stir_mk_sub(stir_kernel *k, stir_expr *a, stir_expr *b)
{
	if (is_int(b, 0))
		return a;
	/* (x + y) - x gives y: the relative position of an absolute one */
	if (a && b && a->kind == STIR_EXPR_BINARY && a->u.binary.op == STIR_ADD &&
	    stir_expr_same(a->u.binary.a, b))
		return a->u.binary.b;
	return fold(k, STIR_SUB, a, b);
}

stir_expr *stir_mk_mul(stir_kernel *k, stir_expr *a, stir_expr *b)
{
	if (is_int(a, 1))
		return b;
	if (is_int(b, 1))
		return a;
	if (is_int(a, 0) || is_int(b, 0))
		return stir_expr_int(k, 0);
	return fold(k, STIR_MUL, a, b);
}

stir_expr *stir_mk_and(stir_kernel *k, stir_expr *a, stir_expr *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return stir_expr_binary(k, STIR_AND, a, b);
}

stir_expr *stir_mk_load1(stir_kernel *k, stir_buffer *buf, stir_expr *idx)
{
	return stir_expr_load(k, buf, 1, &idx);
}

/* ---- names ---- */

/* name: its hash (FNV-1a). */
static unsigned name_hash(const char *name)
{
	unsigned h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

int stir_names_find(const stir_names *names, const char *name)
{
	if (!names->n_head)
		return -1;
	unsigned b = name_hash(name) & (unsigned)(names->n_head - 1);
	for (int i = names->head[b]; i; i = names->next[i - 1])
		if (!strcmp(names->v[i - 1], name))
			return i - 1;
	return -1;
}

bool stir_names_has(const stir_names *names, const char *name)
{
	return stir_names_find(names, name) >= 0;
}

/* names, i: put name i at the head of its hash chain. */
static void name_link(stir_names *names, int i)
{
	unsigned b = name_hash(names->v[i]) & (unsigned)(names->n_head - 1);
	names->next[i] = names->head[b];
	names->head[b] = i + 1;
}

/* names: room for one more name, the hash table at most half full; -1 when
 * memory runs out. */
static int names_reserve(stir_names *names)
{
	if (names->n == names->cap) {
		if (names->cap > INT_MAX / 4)
			return -1;
		int cap = names->cap ? 2 * names->cap : 64;
		const char **v = realloc(names->v, (size_t)cap * sizeof(*v));
		if (v)
			names->v = v;
		int *next = realloc(names->next, (size_t)cap * sizeof(*next));
		if (next)
			names->next = next;
		if (!v || !next)
			return -1;
		names->cap = cap;
	}
	if (2 * (names->n + 1) > names->n_head) {
		/* rehash: the chains are rebuilt oldest first, so that every name
		 * is still behind the names recorded after it (reset relies on it) */
		int n_head = 2 * names->cap;
		int *head = calloc((size_t)n_head, sizeof(*head));
		if (!head)
			return -1;
		free(names->head);
		names->head = head;
		names->n_head = n_head;
		for (int i = 0; i < names->n; i++)
			name_link(names, i);
	}
	return 0;
}

int stir_names_add(stir_names *names, const char *name)
{
	if (!name || stir_names_has(names, name))
		return 0;
	if (names_reserve(names) < 0)
		return -1;
	names->v[names->n] = name;
	name_link(names, names->n++);
	return 0;
}

/* k, list, user: record the names bound by the statements of list. */
static int collect_list_names(stir_kernel *k, stir_ptr_vec *list, void *user)
{
	stir_names *names = user;
	for (int i = 0; i < list->n; i++) {
		stir_stmt *s = stir_stmt_at(list, i);
		int rc = 0;
		switch (s->kind) {
		case STIR_STMT_LET:
			rc = stir_names_add(names, s->u.let.var->name);
			break;
		case STIR_STMT_ITER:
			rc = stir_names_add(names, s->u.iter.name);
			break;
		case STIR_STMT_FOR:
			rc = stir_names_add(names, s->u.for_.var->name);
			break;
		case STIR_STMT_BLOCK:
			rc = stir_names_add(names, s->u.block.name);
			for (int j = 0; j < s->u.block.n_vars && !rc; j++)
				rc = stir_names_add(names, s->u.block.vars[j]->name);
			break;
		default:
			break;
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

int stir_names_add_kernel(stir_names *names, stir_kernel *k)
{
	for (int i = 0; i < k->params.n; i++)
		if (stir_names_add(names, stir_var_at(&k->params, i)->name) < 0)
			return -1;
	for (int i = 0; i < k->axes.n; i++)
		if (stir_names_add(names, stir_axis_at(&k->axes, i)->name) < 0)
			return -1;
	for (int i = 0; i < k->buffers.n; i++)
		if (stir_names_add(names, stir_buffer_at(&k->buffers, i)->name) < 0)
			return -1;
	return 0;
}

int stir_names_init(stir_names *names, stir_kernel *k)
{
	memset(names, 0, sizeof(*names));
	names->k = k;
	if (stir_names_add_kernel(names, k) < 0 ||
	    stir_foreach_list(k, collect_list_names, names) < 0) {
		stir_names_release(names);
		return -1;
	}
	return 0;
}

int stir_names_mark(const stir_names *names)
{
	return names->n;
}

void stir_names_reset(stir_names *names, int mark)
{
	/* the newest name heads its chain: unlink from the newest down */
	while (mark >= 0 && mark < names->n) {
		int i = --names->n;
		unsigned b = name_hash(names->v[i]) & (unsigned)(names->n_head - 1);
		names->head[b] = names->next[i];
	}
}

void stir_names_release(stir_names *names)
{
	free(names->v);
	free(names->next);
	free(names->head);
	memset(names, 0, sizeof(*names));
}

char *stir_names_fresh_in(stir_names *names, stir_arena *a, const char *base)
{
	if (!base)
		return NULL; /* building it ran out of memory */
	if (!stir_names_has(names, base)) {
		char *s = stir_arena_strdup(a, base);
		return s && stir_names_add(names, s) == 0 ? s : NULL;
	}
	/* "base" and a number: at most names->n of them are taken, so this
	 * ends by the (n + 1)-th candidate */
	size_t len = strlen(base);
	char *buf = malloc(len + 24);
	if (!buf)
		return NULL;
	memcpy(buf, base, len);
	for (int i = 1; i <= names->n; i++) {
		snprintf(buf + len, 24, "%d", i);
		if (!stir_names_has(names, buf))
			break;
	}
	char *s = stir_arena_strdup(a, buf);
	free(buf);
	return s && stir_names_add(names, s) == 0 ? s : NULL;
}

void *stir_kernel_array(stir_kernel *k, size_t n, size_t size)
{
	if (n == 0)
		n = 1;
	if (size && n > SIZE_MAX / size)
		return NULL;
	return stir_arena_alloc(stir_kernel_arena(k), n * size);
}

char *stir_kernel_strf(stir_kernel *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = n < 0 ? NULL : stir_arena_alloc(stir_kernel_arena(k),
		(size_t)n + 1);
	if (!s)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

const char *stir_names_fresh(stir_names *names, const char *base)
{
	const char *n = stir_names_fresh_in(names, stir_kernel_arena(names->k),
		base);
	/* interned: it outlives the collection that ends the pass */
	return n ? stir_module_intern(names->k->module, n) : NULL;
}

/* ---- walking ---- */

/* k, list, fn, user: call fn on list, then on every list nested in it. */
static int foreach_in(stir_kernel *k, stir_ptr_vec *list, stir_list_fn fn,
	void *user)
{
	if (fn(k, list, user) < 0)
		return -1;
	for (int i = 0; i < list->n; i++) {
		stir_ptr_vec *lists[2];
		int n = stir_stmt_lists(stir_stmt_at(list, i), lists);
		for (int l = 0; l < n; l++)
			if (foreach_in(k, lists[l], fn, user) < 0)
				return -1;
	}
	return 0;
}

int stir_foreach_list(stir_kernel *k, stir_list_fn fn, void *user)
{
	return foreach_in(k, &k->body, fn, user);
}

/* ---- dead lets ---- */

/* list, i, v: whether a statement of list after the i-th uses v. */
static bool used_after(const stir_ptr_vec *list, int i, const stir_var *v)
{
	while (++i < list->n)
		if (stir_stmt_uses(stir_stmt_at(list, i), v))
			return true;
	return false;
}

/* k, list, user: drop the dead lets of list (*user counts removals). */
static int drop_dead_lets(stir_kernel *k, stir_ptr_vec *list, void *user)
{
	(void)k;
	int kept = 0;
	for (int i = 0; i < list->n; i++) {
		stir_stmt *s = stir_stmt_at(list, i);
		if (s->kind == STIR_STMT_LET && !used_after(list, i, s->u.let.var)) {
			++*(int *)user;
			continue;
		}
		list->v[kept++] = s;
	}
	list->n = kept;
	return 0;
}

int stir_remove_dead_lets(stir_kernel *k)
{
	int removed;
	do {
		removed = 0;
		stir_foreach_list(k, drop_dead_lets, &removed);
	} while (removed);
	return 0;
}
