/* lower_sparse_iter, step 3: coordinate translation (see passes/passes.h).
 *
 * An iterator used as a value becomes its coordinate.  An access
 * A[e1, .., en] to a buffer over axes becomes A[p1, .., pn] with relative
 * positions, axis by axis (docs/language.md section 5, "Access"):
 *
 *  - ek is the iterator of ak itself, iterated under the position the
 *    access chose for ak's parent: pk is the iterated position;
 *  - ak is dense: pk is the coordinate, guarded by 0 <= ek < length unless
 *    that is known (the coordinate of an iterated axis of the same length,
 *    or a load from a tensor whose domain is [0, length));
 *  - ak is sparse: a search of ek in the indices of the parent's row (binary
 *    for sorted axes, else linear: the first match, as in stage I),
 *    "let J_pos = lower_bound(J_indices, lo, hi, ek)" and
 *    "let J_found = J_pos < hi && J_indices[J_pos] == ek", deduplicated: a
 *    search already made in an enclosing statement list is reused.
 *
 * A read guarded this way becomes "guard ? A[..] : 0", a write "if (guard)
 * { A[..] = .. }".  Searches run unconditionally, so the bounds of a search
 * under an earlier guard are themselves guarded (an empty range when the
 * guard fails), which keeps every load in bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passes/passes.h"
#include "ir/util.h"

/* A search already emitted and still in scope. */
typedef struct search_entry {
	const stir_buffer *indices; /* searched buffer */
	stir_expr *lo, *hi, *x;     /* its range and the coordinate */
	stir_var *pos, *found;      /* the lets holding its result */
} search_entry;

typedef struct tr {
	stir_kernel *k;
	stir_names names;
	search_entry *cache;        /* heap array: searches in scope */
	int n_cache, cap_cache;
	stir_ptr_vec *pre;          /* lets to emit before the statement being
	                               translated */
	bool failed;
} tr;

static stir_expr *tr_expr(tr *t, const stir_expr *e);

/* t, p: p, or note that memory ran out. */
static void *check(tr *t, void *p)
{
	if (!p)
		t->failed = true;
	return p;
}

/* t, base, value: emit "let NAME = value" before the current
 * statement; returns its variable. */
static stir_var *emit_let(tr *t, const char *base, stir_expr *value)
{
	const char *name = base ? stir_names_fresh(&t->names, base) : NULL;
	stir_stmt *s = check(t, name && value ? stir_stmt_let(t->k, name, value) : NULL);
	if (!s || stir_ptr_vec_push(stir_kernel_arena(t->k), t->pre, s) < 0)
		return check(t, NULL);
	return s->u.let.var;
}

/* t, a, lo, hi, x: the search of coordinate x in a's indices [lo, hi),
 * reusing one in scope.  Sets *pos and *found. */
static void search(tr *t, const stir_axis *a, stir_expr *lo, stir_expr *hi,
	stir_expr *x, stir_var **pos, stir_var **found)
{
	for (int i = t->n_cache - 1; i >= 0; i--) {
		search_entry *e = &t->cache[i];
		if (e->indices == a->indices_buf && stir_expr_same(e->lo, lo) &&
		    stir_expr_same(e->hi, hi) && stir_expr_same(e->x, x)) {
			*pos = e->pos;
			*found = e->found;
			return;
		}
	}
	stir_kernel *k = t->k;
	const char *base = stir_kernel_strf(k, "%s_pos", a->name);
	*pos = emit_let(t, base, stir_expr_search(k,
		a->sorted ? STIR_LOWER_BOUND : STIR_FIND,
		a->indices_buf, lo, stir_expr_copy(k, hi, NULL),
		stir_expr_copy(k, x, NULL)));
	if (!*pos)
		return;
	stir_expr *in_range = stir_expr_binary(k, STIR_LT, stir_mk_var(k, *pos),
		stir_expr_copy(k, hi, NULL));
	stir_expr *hit = stir_expr_binary(k, STIR_EQ,
		stir_mk_load1(k, a->indices_buf, stir_mk_var(k, *pos)),
		stir_expr_copy(k, x, NULL));
	*found = emit_let(t, stir_kernel_strf(k, "%s_found", a->name), stir_expr_binary(k, STIR_AND, in_range, hit));
	if (!*found)
		return;
	if (t->n_cache == t->cap_cache) {
		int cap = t->cap_cache ? 2 * t->cap_cache : 16;
		search_entry *c = realloc(t->cache, (size_t)cap * sizeof(*c));
		if (!check(t, c))
			return;
		t->cache = c;
		t->cap_cache = cap;
	}
	search_entry e = { a->indices_buf, lo, hi, x, *pos, *found };
	t->cache[t->n_cache++] = e;
}

/* e: whether e is an iterator (a coordinate, never negative). */
static bool is_iterator(const stir_expr *e)
{
	return e->kind == STIR_EXPR_VAR && e->u.var->kind == STIR_VAR_ITER &&
		e->u.var->axis;
}

/* a, e: whether e is C * X + Y (before translation) for an axis a of
 * length C * LEN(X), X and Y iterators, Y's axis of length C: a blocked
 * coordinate (SR-BCRS's window row t * W + TI), in [0, C * LEN(X)). */
static bool blocked_in_range(const stir_axis *a, const stir_expr *e)
{
	if (e->kind != STIR_EXPR_BINARY || e->u.binary.op != STIR_ADD ||
	    a->len->kind != STIR_EXPR_BINARY || a->len->u.binary.op != STIR_MUL)
		return false;
	const stir_expr *m = e->u.binary.a, *y = e->u.binary.b;
	const stir_expr *c = a->len->u.binary.a, *l = a->len->u.binary.b;
	return m->kind == STIR_EXPR_BINARY && m->u.binary.op == STIR_MUL &&
		c->kind == STIR_EXPR_INT && stir_expr_same(m->u.binary.a, c) &&
		is_iterator(m->u.binary.b) && is_iterator(y) &&
		stir_expr_same(m->u.binary.b->u.var->axis->len, l) &&
		stir_expr_same(y->u.var->axis->len, c);
}

/* a, e: whether coordinate expression e (before translation) is known to
 * lie in [0, LEN(a)) for the dense axis a: the coordinate of an axis of the
 * same length, a coordinate modulo the (literal) length, a blocked
 * coordinate (blocked_in_range), or a load from a tensor whose domain is
 * [0, LEN(a)). */
static bool known_in_range(const stir_axis *a, const stir_expr *e)
{
	if (blocked_in_range(a, e))
		return true;
	if (is_iterator(e))
		return stir_expr_same(e->u.var->axis->len, a->len) ||
			e->u.var->axis == a;
	if (e->kind == STIR_EXPR_BINARY && e->u.binary.op == STIR_MOD &&
	    is_iterator(e->u.binary.a) && e->u.binary.b->kind == STIR_EXPR_INT &&
	    a->len->kind == STIR_EXPR_INT && e->u.binary.b->u.i == a->len->u.i)
		return true;
	if (e->kind == STIR_EXPR_LOAD && e->u.load.buf->domain_lo) {
		const stir_expr *lo = e->u.load.buf->domain_lo;
		return lo->kind == STIR_EXPR_INT && lo->u.i == 0 &&
			stir_expr_same(e->u.load.buf->domain_hi, a->len);
	}
	return false;
}

/* t, guard, value, zero: "guard ? value : zero" with guard NULL meaning
 * always. */
static stir_expr *guarded(tr *t, stir_expr *guard, stir_expr *value,
	stir_expr *zero)
{
	return guard ? stir_expr_select(t->k, guard, value, zero) : value;
}

/* t, buf, n, idx, pos, guard: translate the indices of an access to buf into
 * relative positions pos[]; *guard is the condition under which the
 * element is stored (NULL: always). */
static void tr_access(tr *t, const stir_buffer *buf, int n,
	stir_expr *const *idx, stir_expr **pos, stir_expr **guard)
{
	stir_kernel *k = t->k;
	const stir_var *prev_follow = NULL;
	stir_expr *prev_gpos = NULL;
	*guard = NULL;
	for (int i = 0; i < n && i < buf->n_axes && !t->failed; i++) {
		const stir_axis *a = buf->axes[i];
		const stir_expr *e = idx[i];
		const stir_var *v = e->kind == STIR_EXPR_VAR ? e->u.var : NULL;
		if (v && v->kind == STIR_VAR_ITER && v->axis == a && v->pos &&
		    (a->parent ? v->parent_var && v->parent_var == prev_follow :
				 v->parent_var == NULL)) {
			pos[i] = stir_expr_copy(k, v->pos, NULL);
			prev_gpos = stir_expr_copy(k, v->gpos, NULL);
			prev_follow = v;
			continue;
		}
		prev_follow = NULL;
		stir_expr *c = tr_expr(t, e);
		if (!c)
			return;
		if (a->kind == STIR_DENSE_FIXED) {
			if (!known_in_range(a, e))
				*guard = stir_mk_and(k, *guard, stir_expr_binary(k,
					STIR_AND, stir_expr_binary(k, STIR_LE,
						stir_mk_int(k, 0), c),
					stir_expr_binary(k, STIR_LT,
						stir_expr_copy(k, c, NULL),
						stir_expr_copy(k, a->len, NULL))));
			pos[i] = stir_expr_copy(k, c, NULL);
			prev_gpos = c;
			continue;
		}
		/* the parent's row [lo, hi), empty when an earlier guard fails */
		stir_expr *lo, *hi;
		if (a->kind == STIR_SPARSE_FIXED) {
			lo = stir_mk_mul(k, prev_gpos, stir_expr_copy(k, a->nnz, NULL));
			hi = stir_mk_add(k, stir_expr_copy(k, lo, NULL),
				stir_expr_copy(k, a->nnz, NULL));
		} else {
			lo = stir_mk_load1(k, a->indptr_buf, prev_gpos);
			hi = stir_mk_load1(k, a->indptr_buf, stir_mk_add(k,
				stir_expr_copy(k, prev_gpos, NULL), stir_mk_int(k, 1)));
		}
		if (*guard && (*guard)->kind != STIR_EXPR_VAR) {
			/* the guard is used several times from here: name it */
			const char *base = stir_kernel_strf(k, "%s_ok",
				buf->axes[i - 1]->name);
			stir_var *ok = emit_let(t, base, *guard);
			*guard = ok ? stir_mk_var(k, ok) : NULL;
			if (!ok)
				return;
		}
		if (*guard) {
			lo = stir_expr_select(k, stir_expr_copy(k, *guard, NULL), lo,
				stir_mk_int(k, 0));
			hi = stir_expr_select(k, stir_expr_copy(k, *guard, NULL), hi,
				stir_mk_int(k, 0));
		}
		if (a->kind == STIR_DENSE_VARIABLE) {
			*guard = stir_mk_and(k, *guard, stir_expr_binary(k, STIR_AND,
				stir_expr_binary(k, STIR_LE, stir_mk_int(k, 0), c),
				stir_expr_binary(k, STIR_LT, stir_expr_copy(k, c, NULL),
					stir_mk_sub(k, stir_expr_copy(k, hi, NULL),
						stir_expr_copy(k, lo, NULL)))));
			pos[i] = stir_expr_copy(k, c, NULL);
			prev_gpos = stir_mk_add(k, lo, stir_expr_copy(k, c, NULL));
			continue;
		}
		stir_var *p = NULL, *found = NULL;
		search(t, a, lo, hi, c, &p, &found);
		if (t->failed)
			return;
		*guard = stir_mk_and(k, *guard, stir_mk_var(k, found));
		pos[i] = stir_mk_sub(k, stir_mk_var(k, p), stir_expr_copy(k, lo, NULL));
		prev_gpos = stir_mk_var(k, p);
	}
	for (int i = 0; i < n; i++)
		check(t, pos[i]);
}

/* t, n, src: translations of n expressions in a new arena array. */
static stir_expr **tr_exprs(tr *t, int n, stir_expr *const *src)
{
	stir_expr **v = check(t, stir_arena_alloc(stir_kernel_arena(t->k),
		(size_t)(n ? n : 1) * sizeof(*v)));
	for (int i = 0; v && i < n; i++)
		if (!(v[i] = tr_expr(t, src[i])))
			return NULL;
	return v;
}

/* t, v: the value of iterator v, its coordinate, in v's own type (the
 * index type of its axis).  Positions and coordinates take the type of the
 * loop that makes them (its extent's: an i64 size gives i64 positions),
 * which may differ from the axis's index type; the cast keeps the type
 * (and the value) that the expressions around the iterator were checked
 * with at stage I. */
static stir_expr *iter_value(tr *t, const stir_var *v)
{
	stir_expr *c = stir_expr_copy(t->k, v->coord, NULL);
	if (!c || c->dtype == v->dtype)
		return c;
	stir_expr *cast = stir_expr_cast(t->k, v->dtype, c);
	if (cast)
		cast->loc = c->loc;
	return cast;
}

/* t, e: e with iterators replaced by coordinates and accesses by
 * positions. */
static stir_expr *tr_expr(tr *t, const stir_expr *e)
{
	stir_kernel *k = t->k;
	if (e->kind == STIR_EXPR_VAR && e->u.var->kind == STIR_VAR_ITER)
		return check(t, iter_value(t, e->u.var));
	if (e->kind == STIR_EXPR_LOAD && e->u.load.buf->n_axes > 0) {
		int n = e->u.load.n;
		stir_expr **pos = check(t, stir_kernel_array(k, (size_t)n,
			sizeof(*pos))), *guard;
		if (pos)
			tr_access(t, e->u.load.buf, n, e->u.load.idx, pos, &guard);
		if (t->failed)
			return NULL;
		stir_expr *load = stir_expr_load(k, e->u.load.buf, n, pos);
		if (load)
			load->loc = e->loc;
		return check(t, guarded(t, guard, load, stir_mk_int(k, 0)));
	}
	stir_expr *c = check(t, stir_expr_copy_node(k, e)), **slot;
	for (int i = 0; c && !t->failed && (slot = stir_expr_child(c, i)); i++)
		*slot = tr_expr(t, *slot);
	return t->failed ? NULL : c;
}

static void tr_list(tr *t, stir_ptr_vec *list);

/* t, s: translate statement s in place; lets it needs go to t->pre.
 * Returns the statement to keep (s, or an if wrapping it). */
static stir_stmt *tr_stmt(tr *t, stir_stmt *s)
{
	stir_kernel *k = t->k;
	switch (s->kind) {
	case STIR_STMT_STORE: {
		const stir_buffer *buf = s->u.store.buf;
		stir_expr *guard = NULL;
		if (buf->n_axes > 0) {
			int n = s->u.store.n;
			stir_expr **pos = check(t, stir_arena_alloc(stir_kernel_arena(k),
				(size_t)(n ? n : 1) * sizeof(*pos)));
			if (!pos)
				return NULL;
			tr_access(t, buf, n, s->u.store.idx, pos, &guard);
			s->u.store.idx = pos;
		} else {
			s->u.store.idx = tr_exprs(t, s->u.store.n, s->u.store.idx);
		}
		s->u.store.value = tr_expr(t, s->u.store.value);
		if (!guard || t->failed)
			return s;
		stir_stmt *w = check(t, stir_stmt_if(k, guard));
		if (w && stir_stmt_if_append_then(w, s) < 0)
			return check(t, NULL);
		if (w)
			w->loc = s->loc;
		return w;
	}
	case STIR_STMT_LET:
		s->u.let.value = tr_expr(t, s->u.let.value);
		return s;
	case STIR_STMT_IF:
		s->u.if_.cond = tr_expr(t, s->u.if_.cond);
		tr_list(t, &s->u.if_.then_body);
		tr_list(t, &s->u.if_.else_body);
		return s;
	case STIR_STMT_FOR:
		s->u.for_.extent = tr_expr(t, s->u.for_.extent);
		tr_list(t, &s->u.for_.body);
		return s;
	case STIR_STMT_BLOCK:
		tr_list(t, &s->u.block.body);
		return s;
	case STIR_STMT_BARRIER:
		return s;
	case STIR_STMT_ITER:
		stir_error(stir_kernel_ctx(k), s->loc,
			"iteration '%s' was not lowered to loops", s->u.iter.name);
		t->failed = true;
		return NULL;
	}
	return s;
}

/* t, list: translate every statement of list; searches made for one
 * statement stay available to the rest of the list and to nested lists. */
static void tr_list(tr *t, stir_ptr_vec *list)
{
	int cache_mark = t->n_cache, names = stir_names_mark(&t->names);
	stir_ptr_vec *outer_pre = t->pre;
	stir_ptr_vec out = { 0 };
	for (int i = 0; i < list->n && !t->failed; i++) {
		t->pre = &out;
		stir_stmt *s = tr_stmt(t, stir_stmt_at(list, i));
		if (s && stir_ptr_vec_push(stir_kernel_arena(t->k), &out, s) < 0)
			t->failed = true;
	}
	if (!t->failed)
		*list = out;
	t->pre = outer_pre;
	t->n_cache = cache_mark;
	stir_names_reset(&t->names, names);
}

int stir_translate_coords(stir_kernel *k)
{
	tr t = { .k = k };
	if (stir_names_init(&t.names, k) < 0)
		t.failed = true;
	else
		tr_list(&t, &k->body);
	stir_names_release(&t.names);
	free(t.cache);
	if (t.failed) {
		if (!stir_ctx_n_errors(stir_kernel_ctx(k)))
			stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	return 0;
}
