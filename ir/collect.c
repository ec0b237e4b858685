/* The copying collection of a module's arena (see stir_module_collect in
 * ir/nodes.h and docs/ir.md, "Memory").
 *
 * Passes and schedule primitives build new statements and expressions
 * and leave the old ones in the arena (a primitive works on a copy of the
 * whole body).  The collection copies what the kernels still reach into a
 * fresh arena and frees the old one, so that a module holds memory in
 * proportion to its program, not to the history of its transformations.
 * Nodes shared by several places stay shared (a map from old to new
 * nodes); the structs a caller may keep handles to (kernels, parameters,
 * axes, buffers) are not moved but have their fields updated in place. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ir/nodes.h"
#include "ir/visit.h"

/* One collection. */
typedef struct collect {
	stir_module *m;
	stir_arena to;          /* the fresh arena */
	const void **from;      /* heap hash map: old node .. */
	void **dst;             /* .. its new place (itself for kept structs) */
	size_t cap, n;          /* slots (a power of two), entries */
	int n_vars;             /* slots given so far in the current kernel */
	stir_kernel *k;         /* the kernel being copied */
	bool oom;
} collect;

/* p: a hash of pointer p. */
static size_t ptr_hash(const void *p)
{
	uintptr_t x = (uintptr_t)p;
	x ^= x >> 17;
	x *= (uintptr_t)0x9E3779B97F4A7C15u;
	return (size_t)(x ^ (x >> 29));
}

/* c, p: p's entry in the map, or NULL. */
static void *lookup(const collect *c, const void *p)
{
	if (!c->cap)
		return NULL;
	for (size_t i = ptr_hash(p) & (c->cap - 1); c->from[i];
	     i = (i + 1) & (c->cap - 1))
		if (c->from[i] == p)
			return c->dst[i];
	return NULL;
}

/* c, p, q: record that p's new place is q. */
static void record(collect *c, const void *p, void *q)
{
	if (2 * (c->n + 1) > c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		const void **from = calloc(cap, sizeof(*from));
		void **dst = calloc(cap, sizeof(*dst));
		if (!from || !dst) {
			free(from);
			free(dst);
			c->oom = true;
			return;
		}
		for (size_t i = 0; i < c->cap; i++) {
			if (!c->from[i])
				continue;
			size_t j = ptr_hash(c->from[i]) & (cap - 1);
			while (from[j])
				j = (j + 1) & (cap - 1);
			from[j] = c->from[i];
			dst[j] = c->dst[i];
		}
		free(c->from);
		free(c->dst);
		c->from = from;
		c->dst = dst;
		c->cap = cap;
	}
	size_t i = ptr_hash(p) & (c->cap - 1);
	while (c->from[i])
		i = (i + 1) & (c->cap - 1);
	c->from[i] = p;
	c->dst[i] = q;
	c->n++;
}

/* c, size: zeroed memory in the fresh arena. */
static void *alloc(collect *c, size_t size)
{
	void *p = stir_arena_alloc(&c->to, size);
	if (!p)
		c->oom = true;
	return p;
}

/* c, src, n, size: a copy of the array src of n elements of "size" bytes
 * (at least one element, as the constructors allocate), or NULL. */
static void *copy_array(collect *c, const void *src, int n, size_t size)
{
	if (!src)
		return NULL;
	void *p = alloc(c, (size_t)(n > 0 ? n : 1) * size);
	if (p && n > 0)
		memcpy(p, src, (size_t)n * size);
	return p;
}

/* c, s: the interned copy of name s. */
static const char *name(collect *c, const char *s)
{
	if (!s)
		return NULL;
	const char *n = stir_module_intern(c->m, s);
	if (!n)
		c->oom = true;
	return n;
}

/* c, s: a copy of the mutable string s (kinds) in the fresh arena, one
 * for all the places that shared s. */
static char *string(collect *c, char *s)
{
	if (!s || c->oom)
		return NULL;
	char *p = lookup(c, s);
	if (p)
		return p;
	if (!(p = stir_arena_strdup(&c->to, s)))
		c->oom = true;
	else
		record(c, s, p);
	return p;
}

static stir_expr *expr(collect *c, stir_expr *e);
static stir_var *var(collect *c, stir_var *v);
static stir_axis *axis(collect *c, stir_axis *a);
static stir_buffer *buffer(collect *c, stir_buffer *b);

/* c, v, n: the array v of n expressions, copied. */
static stir_expr **exprs(collect *c, stir_expr **v, int n)
{
	stir_expr **p = copy_array(c, v, n, sizeof(*v));
	for (int i = 0; p && i < n; i++)
		p[i] = expr(c, v[i]);
	return p;
}

/* c, e: e's copy (NULL for NULL). */
static stir_expr *expr(collect *c, stir_expr *e)
{
	if (!e || c->oom)
		return NULL;
	stir_expr *d = lookup(c, e);
	if (d)
		return d;
	if (!(d = alloc(c, sizeof(*d))))
		return NULL;
	*d = *e;
	record(c, e, d);
	/* the references and arrays of d itself, then its operands (in the
	 * walker's order, which numbers the variables met) */
	if (e->kind == STIR_EXPR_VAR) {
		d->u.var = var(c, e->u.var);
	} else if (e->kind == STIR_EXPR_LOAD) {
		d->u.load.buf = buffer(c, e->u.load.buf);
		d->u.load.idx = copy_array(c, e->u.load.idx, e->u.load.n,
			sizeof(*d->u.load.idx));
	} else if (e->kind == STIR_EXPR_CALL) {
		d->u.call.args = copy_array(c, e->u.call.args, e->u.call.n,
			sizeof(*d->u.call.args));
	} else if (e->kind == STIR_EXPR_SEARCH) {
		d->u.search.buf = buffer(c, e->u.search.buf);
	}
	stir_expr **slot;
	for (int i = 0; !c->oom && (slot = stir_expr_child(d, i)); i++)
		*slot = expr(c, *slot);
	return d;
}

/* c, v: v's new place: a parameter stays (its fields updated), any other
 * variable is copied.  Either gets the kernel's next slot. */
static stir_var *var(collect *c, stir_var *v)
{
	if (!v || c->oom)
		return NULL;
	stir_var *d = lookup(c, v);
	if (d)
		return d;
	if (v->kind == STIR_VAR_PARAM)
		d = v;
	else if (!(d = alloc(c, sizeof(*d))))
		return NULL;
	else
		*d = *v;
	record(c, v, d);
	d->slot = c->n_vars++;
	d->name = name(c, v->name);
	d->axis = axis(c, v->axis);
	d->pos = expr(c, v->pos);
	d->gpos = expr(c, v->gpos);
	d->coord = expr(c, v->coord);
	d->parent_var = var(c, v->parent_var);
	return d;
}

/* c, a: axis a (kept), its fields updated. */
static stir_axis *axis(collect *c, stir_axis *a)
{
	if (!a || c->oom || lookup(c, a))
		return a;
	record(c, a, a);
	a->name = name(c, a->name);
	axis(c, a->parent);
	a->len = expr(c, a->len);
	a->nnz = expr(c, a->nnz);
	buffer(c, a->indptr_buf);
	buffer(c, a->indices_buf);
	return a;
}

/* c, b: buffer b (kept), its fields updated. */
static stir_buffer *buffer(collect *c, stir_buffer *b)
{
	if (!b || c->oom || lookup(c, b))
		return b;
	record(c, b, b);
	b->name = name(c, b->name);
	b->arg = name(c, b->arg);
	b->axes = copy_array(c, b->axes, b->n_axes, sizeof(*b->axes));
	for (int i = 0; b->axes && i < b->n_axes; i++)
		axis(c, b->axes[i]);
	b->domain_lo = expr(c, b->domain_lo);
	b->domain_hi = expr(c, b->domain_hi);
	b->extent = expr(c, b->extent);
	axis(c, b->aux_axis);
	axis(c, b->coo_axis);
	return b;
}

static stir_stmt *stmt(collect *c, stir_stmt *s);

/* c, l: the list l with its storage and statements copied. */
static stir_ptr_vec list(collect *c, const stir_ptr_vec *l)
{
	stir_ptr_vec d = { 0 };
	if (l->n <= 0 || c->oom)
		return d;
	d.v = copy_array(c, l->v, l->n, sizeof(*l->v));
	d.n = d.cap = d.v ? l->n : 0;
	for (int i = 0; i < d.n; i++)
		d.v[i] = stmt(c, stir_stmt_at(l, i));
	return d;
}

/* c, r, n: the regions r[0..n-1], copied. */
static stir_region *regions(collect *c, const stir_region *r, int n)
{
	stir_region *d = copy_array(c, r, n, sizeof(*r));
	for (int i = 0; d && i < n; i++) {
		d[i].buf = buffer(c, r[i].buf);
		d[i].lo = exprs(c, r[i].lo, r[i].n);
		d[i].hi = exprs(c, r[i].hi, r[i].n);
	}
	return d;
}

/* c, v, n: the array v of n variables, copied. */
static stir_var **vars(collect *c, stir_var **v, int n)
{
	stir_var **d = copy_array(c, v, n, sizeof(*v));
	for (int i = 0; d && i < n; i++)
		d[i] = var(c, v[i]);
	return d;
}

/* c, s: s's copy. */
static stir_stmt *stmt(collect *c, stir_stmt *s)
{
	if (!s || c->oom)
		return NULL;
	stir_stmt *d = lookup(c, s);
	if (d)
		return d;
	if (!(d = alloc(c, sizeof(*d))))
		return NULL;
	*d = *s;
	record(c, s, d);
	d->kernel = c->k;
	switch (s->kind) {
	case STIR_STMT_STORE:
		d->u.store.buf = buffer(c, s->u.store.buf);
		d->u.store.idx = exprs(c, s->u.store.idx, s->u.store.n);
		d->u.store.value = expr(c, s->u.store.value);
		break;
	case STIR_STMT_LET:
		d->u.let.var = var(c, s->u.let.var);
		d->u.let.value = expr(c, s->u.let.value);
		break;
	case STIR_STMT_IF:
		d->u.if_.cond = expr(c, s->u.if_.cond);
		d->u.if_.then_body = list(c, &s->u.if_.then_body);
		d->u.if_.else_body = list(c, &s->u.if_.else_body);
		break;
	case STIR_STMT_ITER:
		d->u.iter.name = name(c, s->u.iter.name);
		d->u.iter.groups = copy_array(c, s->u.iter.groups,
			s->u.iter.n_groups, sizeof(*s->u.iter.groups));
		for (int g = 0; d->u.iter.groups && g < s->u.iter.n_groups; g++) {
			stir_iter_group *dg = &d->u.iter.groups[g];
			dg->axes = copy_array(c, dg->axes, dg->n_axes,
				sizeof(*dg->axes));
			for (int i = 0; dg->axes && i < dg->n_axes; i++)
				axis(c, dg->axes[i]);
			axis(c, dg->attach_parent);
		}
		d->u.iter.vars = vars(c, s->u.iter.vars, s->u.iter.n_vars);
		d->u.iter.kinds = string(c, s->u.iter.kinds);
		d->u.iter.init = list(c, &s->u.iter.init);
		d->u.iter.body = list(c, &s->u.iter.body);
		break;
	case STIR_STMT_FOR:
		d->u.for_.var = var(c, s->u.for_.var);
		d->u.for_.extent = expr(c, s->u.for_.extent);
		d->u.for_.body = list(c, &s->u.for_.body);
		/* the vector plan (plan_vectors): its array and accesses */
		d->u.for_.vecs = copy_array(c, s->u.for_.vecs, s->u.for_.n_vecs,
			sizeof(*s->u.for_.vecs));
		for (int i = 0; d->u.for_.vecs && i < s->u.for_.n_vecs; i++)
			d->u.for_.vecs[i].access = expr(c,
				s->u.for_.vecs[i].access);
		break;
	case STIR_STMT_BLOCK:
		d->u.block.name = name(c, s->u.block.name);
		d->u.block.vars = vars(c, s->u.block.vars, s->u.block.n_vars);
		d->u.block.bindings = exprs(c, s->u.block.bindings,
			s->u.block.n_vars);
		d->u.block.kinds = string(c, s->u.block.kinds);
		d->u.block.reads = regions(c, s->u.block.reads,
			s->u.block.n_reads);
		d->u.block.writes = regions(c, s->u.block.writes,
			s->u.block.n_writes);
		d->u.block.body = list(c, &s->u.block.body);
		d->u.block.iter = name(c, s->u.block.iter);
		break;
	case STIR_STMT_BARRIER:
		break;
	}
	return d;
}

/* c, l: the list l of kept structs (parameters, axes, buffers) with its
 * storage copied; the caller visits the entries. */
static stir_ptr_vec decls(collect *c, const stir_ptr_vec *l)
{
	stir_ptr_vec d = { 0 };
	if (l->n <= 0 || c->oom)
		return d;
	d.v = copy_array(c, l->v, l->n, sizeof(*l->v));
	d.n = d.cap = d.v ? l->n : 0;
	return d;
}

/* The new lists of one kernel, set only once the whole module copied. */
typedef struct kernel_lists {
	stir_ptr_vec params, axes, buffers, body;
	int n_vars;
} kernel_lists;

/* c, k, out: copy what kernel k reaches into out. */
static void copy_kernel(collect *c, stir_kernel *k, kernel_lists *out)
{
	c->k = k;
	c->n_vars = 0;
	/* parameters first, so that they keep the first slots */
	out->params = decls(c, &k->params);
	for (int i = 0; i < out->params.n; i++)
		var(c, stir_var_at(&out->params, i));
	out->axes = decls(c, &k->axes);
	for (int i = 0; i < out->axes.n; i++)
		axis(c, stir_axis_at(&out->axes, i));
	out->buffers = decls(c, &k->buffers);
	for (int i = 0; i < out->buffers.n; i++)
		buffer(c, stir_buffer_at(&out->buffers, i));
	out->body = list(c, &k->body);
	out->n_vars = c->n_vars;
	k->name = name(c, k->name);
}

/* m: see nodes.h. */
int stir_module_collect_if_grown(stir_module *m)
{
	if (m && m->collected && stir_arena_bytes(&m->arena) == m->collected)
		return 0;
	return stir_module_collect(m);
}

int stir_module_collect(stir_module *m)
{
	if (!m)
		return -1;
	collect c = { .m = m };
	stir_arena_init(&c.to);
	int n = m->kernels.n;
	kernel_lists *lists = calloc((size_t)(n ? n : 1), sizeof(*lists));
	stir_ptr_vec kernels = { 0 };
	if (!lists)
		c.oom = true;
	if (!c.oom && n) {
		kernels.v = copy_array(&c, m->kernels.v, n, sizeof(void *));
		kernels.n = kernels.cap = n;
	}
	for (int i = 0; i < n && !c.oom; i++)
		copy_kernel(&c, stir_kernel_at(&m->kernels, i), &lists[i]);
	free(c.from);
	free(c.dst);
	/* parameters, axes and buffers reached so far point into the new
	 * arena already: keep both (nothing is reclaimed this time; the next
	 * collection tries again) */
	if (c.oom) {
		free(lists);
		stir_arena_merge(&m->arena, &c.to);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		stir_kernel *k = stir_kernel_at(&m->kernels, i);
		k->params = lists[i].params;
		k->axes = lists[i].axes;
		k->buffers = lists[i].buffers;
		k->body = lists[i].body;
		k->n_vars = lists[i].n_vars;
	}
	free(lists);
	m->kernels = kernels;
	/* kernels no longer listed (left by a failed pass) go */
	int keep = 0;
	for (int i = 0; i < m->n_all; i++) {
		stir_kernel *k = m->all[i];
		bool listed = false;
		for (int j = 0; j < n && !listed; j++)
			listed = stir_kernel_at(&m->kernels, j) == k;
		if (listed)
			m->all[keep++] = k;
		else
			free(k);
	}
	m->n_all = keep;
	stir_arena_release(&m->arena);
	m->arena = c.to;
	m->collected = stir_arena_bytes(&m->arena);
	return 0;
}
