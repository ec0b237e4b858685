/* Caches: cache_read, cache_write and the gathering variants
 * reverse_cache_read and reverse_cache_write (include/stir/schedule.h).
 *
 * A cache of buffer X for block B at loop L is a new flat buffer
 * X_SCOPE (kind local, scope shared or local) that holds the region of X
 * that B accesses while L runs; the copy (in) is a new nest placed just
 * before L, the write-back (out) one just after it, and B's accesses of X
 * become accesses of the cache.  The region follows the
 * point-or-whole-dimension rule (docs/schedules.md), with indices taken
 * in terms of what is fixed at L's place (lets and block variables inside
 * L replaced by their values):
 *  - stage II buffers over axes, per dimension: a point, or the whole
 *    dimension of a dense_fixed (LEN) or sparse_fixed (C) axis; the cache
 *    is the whole dimensions row-major;
 *  - flat buffers: a point; or "base + r", r a loop inside L of extent E
 *    (an expression of parameters), base fixed: the slice [base, base + E);
 *    or "base + s_1 * l_1 + .. + s_n * l_n", loops l_i inside L of literal
 *    extents e_i with literal strides that reach no element twice: the
 *    e_1 * .. * e_n elements, row-major over the l_i by descending stride
 *    (strided); or else the whole buffer;
 *  - the gathering variants index the cache by L's iteration t: the one
 *    index of X that depends on L (and on no loop inside it) must hold a
 *    load (a scattered row, e.g. B[J_indices[..], k]); on flat buffers it
 *    is "s * W + r" (r a loop inside L of extent W) or "s"; the other
 *    dimensions follow the rule above.  The cache has extent(L) rows.
 * Requires: X accessed by B, not searched by it; for reads, X not written
 * while L runs; for writes, X touched by nothing else while L runs; L not
 * inside an atomic block; a constant-sized region (an expression of
 * parameters; a literal for scope local); when the region has points,
 * every access of X in B under the same conditions, fixed at L's place
 * (they then guard the copies), except, for a read of a strided flat
 * region (a write of one, or of a range), conditions on its loops alone
 * (each guards its element's copy or write-back;
 * schedule/cache_region.c lists the other exceptions); or, for an
 * accumulating write of a
 * strided flat region, B's body one "if (COND)" that picks the element
 * (cache_element_guard: the write-back adds under COND); for scope warp
 * and shared, what the threads sharing the cache need
 * (schedule/cache_threads.c).  A cache_write of a
 * block whose accesses
 * of X are all += or -= accumulates: the cache starts at 0 and is added
 * to X (atomically when B's stores were atomic); otherwise the cache is
 * copied in and written back, which atomic or cross-thread blocks refuse.
 * The gathering write always accumulates, so rows that repeat add up.
 * cache_write_over_init also takes over the init nest of the block's
 * iteration (cache_check_over_init in cache_over_init.c says when it
 * may): the cache starts at the init's value, the write-back assigns,
 * and the init nest goes.
 * A cache per loop P (check_per; docs/schedules.md "Several warps on a
 * block row") holds one copy of the region per iteration of P, copy p
 * at p x size: for a read with P around L, each iteration's copy nest
 * (a block variable bound to P) fills its own copy; for an accumulating
 * write with P = L, each iteration of L adds into its own copy, every
 * copy is zeroed before L (over a loop s), and the write-back takes the
 * sum of the copies.
 * The region is found in cache_region.c; cache_write_runs (one gathered
 * row at a time) is in cache_runs.c.
 * Keeps: what the kernel computes (accumulating caches reassociate sums).
 * Breaks: nothing.  The copies are blocks named X_SCOPE (the read copy
 * and the write-back) and X_SCOPE_init (the copy in, or the zeroing),
 * over loops ax0, ax1, .. (or t for the gathered rows). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "schedule/sched.h"

#include "schedule/cache.h"

/* c, nest, st: store st of the write-back nest under the element guard,
 * the region's loops (and the gathered rows') read as the nest's
 * variables. */
static stir_stmt *guard_writeback(creq *c, copy_nest *nest, stir_stmt *st)
{
	stir_kernel *k = c->k;
	if (!c->elem_guard || !st)
		return st;
	stir_subst sub = { 0 };
	for (int j = 0; j < c->terms.n; j++)
		if (stir_subst_add_expr(&sub, c->terms.loop[j],
		    stir_mk_var(k, nest->v[j])) < 0)
			c->s->oom = true;
	if (c->terms.gather && stir_subst_add_expr(&sub, c->terms.gvar,
	    stir_mk_var(k, nest->g)) < 0)
		c->s->oom = true;
	stir_expr *cond = stir_expr_copy(k, c->elem_guard, &sub);
	stir_subst_release(&sub);
	stir_stmt *g = cond ? stir_stmt_if(k, cond) : NULL;
	if (!g || stir_stmt_if_append_then(g, st) < 0)
		return NULL;
	g->loc = c->blk->loc;
	return g;
}

/* c, names, base, ext, outer, inner: a new loop over [0, ext) named
 * after base, nested in *inner (or the first); *inner becomes it. */
static stir_var *new_loop(creq *c, sched_names *names, const char *base,
	stir_expr *ext, stir_stmt **outer, stir_stmt **inner)
{
	stir_kernel *k = c->k;
	const char *name = sched_names_fresh(c->s, names, base);
	stir_var *v = name ? stir_kernel_new_var(k, name, STIR_VAR_LOOP,
		ext->dtype) : NULL;
	stir_stmt *f = v ? stir_stmt_for(k, v, stir_expr_copy(k, ext, NULL)) :
		NULL;
	if (!sched_check(c->s, f))
		return NULL;
	f->loc = c->loop->loc;
	v->loc = c->loop->u.for_.var->loc;
	sched_made(c->s, STIR_MADE_LOOP, name, c->nest_name);
	if (*inner && stir_stmt_append_body(*inner, f) < 0)
		return sched_check(c->s, NULL);
	if (!*outer)
		*outer = f;
	*inner = f;
	return v;
}

/* c, g, v: the cache's index of a strided region's element, the terms'
 * variables v[0..n) (g: the gathered row's, or NULL): row-major over the
 * terms, the gathered rows first; with padding, each pad_every elements
 * (the terms from pad_from on) a row of pad_every + pad. */
static stir_expr *strided_index(creq *c, stir_var *g, stir_var *const *v)
{
	stir_kernel *k = c->k;
	stir_expr *idx = g ? stir_mk_var(k, g) : NULL, *outer = NULL;
	for (int i = 0; i < c->terms.n; i++) {
		if (c->pad && i == c->pad_from) {
			outer = idx;
			idx = NULL;
		}
		stir_expr *x = stir_mk_var(k, v[i]);
		idx = idx ? stir_mk_add(k, stir_mk_mul(k, idx,
			stir_mk_int(k, c->terms.ext[i])), x) : x;
	}
	if (outer)
		idx = stir_mk_add(k, stir_mk_mul(k, outer,
			stir_mk_int(k, c->pad_every + c->pad)), idx);
	return idx ? idx : stir_mk_int(k, 0);
}

/* c, names, name, all_slots, out: build the loops and block of a copy
 * nest over the region (the body is added by the caller); with a per
 * loop around L, the copy of its iteration (a block variable bound to
 * it), and with "all_slots" (the zeroing of the partial sums of a per
 * loop that is L) every copy, over an outer loop s. */
bool cache_build_nest(creq *c, sched_names *names, const char *name,
	bool all_slots, copy_nest *out)
{
	stir_kernel *k = c->k;
	memset(out, 0, sizeof(*out));
	c->nest_name = name;
	stir_stmt *inner = NULL;
	stir_var *bvars[MAX_DIMS + 2];
	stir_expr *binds[MAX_DIMS + 2];
	char kinds[MAX_DIMS + 3];
	int nb = 0;
	char base[32];
	int ax = 0;
	stir_var *slot = NULL, *basev = NULL;
	/* one variable per piece of the region, bound to its loop or point */
#define ADD_VAR(bind) do { \
		snprintf(base, sizeof(base), "v%d", nb); \
		const char *vn = sched_names_fresh(c->s, names, base); \
		stir_expr *b_ = (bind); \
		bvars[nb] = vn && b_ ? stir_kernel_new_var(k, vn, STIR_VAR_BLOCK, \
			b_->dtype) : NULL; \
		if (!sched_check(c->s, bvars[nb])) \
			return false; \
		binds[nb] = b_; \
		kinds[nb++] = 'S'; \
	} while (0)
	if (all_slots) {
		stir_var *l = new_loop(c, names, "s", stir_mk_int(k, c->per_n),
			&out->outer, &inner);
		if (!l)
			return false;
		ADD_VAR(stir_mk_var(k, l));
		slot = bvars[nb - 1];
	} else if (c->per && c->pi < c->li) {
		ADD_VAR(stir_mk_var(k, c->per->u.for_.var));
		slot = bvars[nb - 1];
	}
	if (c->reverse) {
		stir_var *t = new_loop(c, names, "t", c->rows, &out->outer, &inner);
		if (!t)
			return false;
		ADD_VAR(stir_mk_var(k, t));
		out->row = bvars[nb - 1];
	}
	if (c->flat) {
		stir_expr *ext = c->reverse ? c->range : c->fkind == F_RANGE ?
			c->range : c->fkind == F_WHOLE ? (c->through ? c->through :
			c->x)->extent : NULL;
		if (!c->reverse && c->fkind != F_WHOLE) {
			ADD_VAR(stir_expr_copy(k, c->base, NULL));
			basev = bvars[nb - 1];
		}
		if (c->fkind == F_STRIDED && c->terms.gather && !c->runs) {
			snprintf(base, sizeof(base), "ax%d", ax++);
			stir_var *l = new_loop(c, names, base, stir_mk_int(k,
				c->terms.gext), &out->outer, &inner);
			if (!l)
				return false;
			ADD_VAR(stir_mk_var(k, l));
			out->g = bvars[nb - 1];
		}
		for (int i = 0; c->fkind == F_STRIDED && i < c->terms.n; i++) {
			snprintf(base, sizeof(base), "ax%d", ax++);
			stir_var *l = new_loop(c, names, base, stir_mk_int(k,
				c->terms.ext[i]), &out->outer, &inner);
			if (!l)
				return false;
			ADD_VAR(stir_mk_var(k, l));
			out->v[i] = bvars[nb - 1];
		}
		if (ext) {
			snprintf(base, sizeof(base), "ax%d", ax++);
			stir_var *l = new_loop(c, names, base, ext, &out->outer, &inner);
			if (!l)
				return false;
			ADD_VAR(stir_mk_var(k, l));
			out->r = bvars[nb - 1];
		}
	} else {
		for (int d = 0; d < c->n; d++) {
			if (d == c->scat)
				continue;
			if (c->point[d]) {
				ADD_VAR(stir_expr_copy(k, c->point[d], NULL));
			} else {
				snprintf(base, sizeof(base), "ax%d", ax++);
				stir_var *l = new_loop(c, names, base, c->size[d],
					&out->outer, &inner);
				if (!l)
					return false;
				ADD_VAR(stir_mk_var(k, l));
			}
			out->v[d] = bvars[nb - 1];
		}
	}
#undef ADD_VAR
	kinds[nb] = '\0';
	out->blk = sched_check(c->s, stir_stmt_block(k, name, nb, bvars, binds,
		kinds));
	if (!out->blk)
		return false;
	out->blk->loc = c->blk->loc;
	if (inner && stir_stmt_append_body(inner, out->blk) < 0)
		return sched_check(c->s, NULL) != NULL;
	if (!out->outer)
		out->outer = out->blk;

	/* the indices of x and of the cache inside the block */
	stir_expr *row = out->row ? stir_mk_var(k, out->row) : NULL;
	stir_subst sub = { 0 };
	if (row && stir_subst_add_expr(&sub, c->loop->u.for_.var, row) < 0)
		c->s->oom = true;
	stir_expr *cidx = NULL;
	if (c->flat) {
		stir_expr *r = out->r ? stir_mk_var(k, out->r) : NULL;
		if (c->reverse) {
			stir_expr *srow = stir_expr_copy(k, c->scat_x, &sub);
			out->x_idx[0] = r ? stir_mk_add(k, stir_mk_mul(k, srow,
				stir_expr_copy(k, c->range, NULL)), r) : srow;
			cidx = r ? stir_mk_add(k, stir_mk_mul(k,
				stir_mk_var(k, out->row), stir_expr_copy(k, c->range,
				NULL)), stir_mk_var(k, out->r)) : stir_mk_var(k, out->row);
		} else if (c->fkind == F_WHOLE) {
			out->x_idx[0] = r;
			cidx = stir_mk_var(k, out->r);
		} else if (c->fkind == F_STRIDED) {
			/* x at base + sum stride_i * v_i (+ the row g picks times
			 * its scale); the cache row-major over the terms (the
			 * gathered rows first) */
			out->x_idx[0] = stir_mk_var(k, basev);
			if (out->g) {
				stir_subst gs = { 0 };
				if (stir_subst_add_expr(&gs, c->terms.gvar,
				    stir_mk_var(k, out->g)) < 0)
					c->s->oom = true;
				stir_expr *grow = stir_expr_copy(k, c->terms.gather, &gs);
				stir_subst_release(&gs);
				out->x_idx[0] = stir_mk_add(k, out->x_idx[0],
					c->terms.gscale == 1 ? grow : stir_mk_mul(k, grow,
					stir_mk_int(k, c->terms.gscale)));
			}
			for (int i = 0; i < c->terms.n; i++) {
				stir_expr *v = stir_mk_var(k, out->v[i]);
				out->x_idx[0] = stir_mk_add(k, out->x_idx[0],
					c->terms.stride[i] == 1 ? v : stir_mk_mul(k, v,
					stir_mk_int(k, c->terms.stride[i])));
			}
			/* (0 for runs of a row of one element) */
			cidx = strided_index(c, out->g, out->v);
		} else {
			stir_expr *b = stir_mk_var(k, basev);
			out->x_idx[0] = r ? stir_mk_add(k, b, r) : b;
			cidx = r ? stir_mk_var(k, out->r) : stir_mk_int(k, 0);
		}
	} else {
		for (int d = 0; d < c->n; d++) {
			if (d == c->scat) {
				out->x_idx[d] = stir_expr_copy(k, c->scat_x, &sub);
				continue;
			}
			out->x_idx[d] = stir_mk_var(k, out->v[d]);
			if (c->point[d])
				continue;
			stir_expr *v = stir_mk_var(k, out->v[d]);
			cidx = cidx ? stir_mk_add(k, stir_mk_mul(k, cidx,
				stir_expr_copy(k, c->size[d], NULL)), v) : v;
		}
		if (c->reverse) {
			stir_expr *w = NULL;
			for (int d = 0; d < c->n; d++)
				if (d != c->scat && !c->point[d])
					w = w ? stir_mk_mul(k, w, stir_expr_copy(k, c->size[d],
						NULL)) : stir_expr_copy(k, c->size[d], NULL);
			stir_expr *rv = stir_mk_var(k, out->row);
			rv = w ? stir_mk_mul(k, rv, w) : rv;
			cidx = cidx ? stir_mk_add(k, rv, cidx) : rv;
		}
		if (!cidx)
			cidx = stir_mk_int(k, 0);
	}
	stir_subst_release(&sub);
	if (slot)
		cidx = stir_mk_add(k, stir_mk_mul(k, stir_mk_var(k, slot),
			stir_expr_copy(k, c->slot_size, NULL)), cidx);
	out->cache_idx = cidx;
	for (int d = 0; d < c->n; d++)
		if (!sched_check(c->s, out->x_idx[d]))
			return false;
	return sched_check(c->s, cidx) != NULL;
}

/* c, nest, st, guard: put store st into the copy block; for gathered
 * rows under the region's conditions when "guard" (with the loop's
 * variable replaced by the row), and, when "guard", under the conditions
 * on the rows a load picks or on the strided terms (row_conds, with the
 * rows' and the terms' loops replaced by the copy's).  Other copies are
 * guarded from outside, by cache_guard_nest, because their block bindings
 * may read data that exists only under the conditions. */
static bool add_body(creq *c, copy_nest *nest, stir_stmt *st, bool guard)
{
	stir_kernel *k = c->k;
	if (!sched_check(c->s, st))
		return false;
	st->loc = c->blk->loc;
	stir_expr *cond = NULL;
	stir_subst sub = { 0 };
	if (nest->row && stir_subst_add_expr(&sub, c->loop->u.for_.var,
	    stir_mk_var(k, nest->row)) < 0)
		c->s->oom = true;
	for (int j = 0; guard && nest->row && j < c->n_conds; j++)
		cond = stir_mk_and(k, cond, stir_expr_copy(k, c->conds[j], &sub));
	stir_subst_release(&sub);
	if (nest->g && stir_subst_add_expr(&sub, c->terms.gvar,
	    stir_mk_var(k, nest->g)) < 0)
		c->s->oom = true;
	bool terms = c->flat && c->fkind == F_STRIDED && !c->terms.gather;
	for (int i = 0; terms && i < c->terms.n; i++)
		if (stir_subst_add_expr(&sub, c->terms.loop[i],
		    stir_mk_var(k, nest->v[i])) < 0)
			c->s->oom = true;
	if (c->range_loop && nest->r && stir_subst_add_expr(&sub, c->range_loop,
	    stir_mk_var(k, nest->r)) < 0)
		c->s->oom = true;
	terms |= c->range_loop && nest->r;
	for (int j = 0; guard && (nest->g || terms) && j < c->n_row_conds; j++)
		cond = stir_mk_and(k, cond, stir_expr_copy(k, c->row_conds[j],
			&sub));
	stir_subst_release(&sub);
	if (cond) {
		stir_stmt *g = sched_check(c->s, stir_stmt_if(k, cond));
		if (!g || stir_stmt_if_append_then(g, st) < 0)
			return sched_check(c->s, NULL) != NULL;
		g->loc = c->blk->loc;
		st = g;
	}
	return stir_stmt_append_body(nest->blk, st) == 0 ||
		sched_check(c->s, NULL);
}

/* c, nest: wrap a copy nest that is not over gathered rows in the
 * region's conditions, which hold at the loop's place: the whole nest,
 * block bindings included, then runs only where the block's accesses do
 * (a split's tail, an absent coordinate). */
bool cache_guard_nest(creq *c, copy_nest *nest)
{
	if (nest->row || c->n_conds == 0)
		return true;
	stir_kernel *k = c->k;
	stir_expr *cond = NULL;
	for (int j = 0; j < c->n_conds; j++)
		cond = stir_mk_and(k, cond, stir_expr_copy(k, c->conds[j], NULL));
	stir_stmt *g = sched_check(c->s, cond ? stir_stmt_if(k, cond) : NULL);
	if (!g || stir_stmt_if_append_then(g, nest->outer) < 0)
		return sched_check(c->s, NULL) != NULL;
	g->loc = c->blk->loc;
	nest->outer = g;
	return true;
}

/* c, cache: B's accesses of x become accesses of the cache. */
void cache_redirect(creq *c, stir_buffer *cache)
{
	stir_kernel *k = c->k;
	for (int i = 0; i < c->acc.n && !c->s->oom; i++) {
		sched_acc *a = &c->acc.v[i];
		if (a->buf != c->x || !a->in_target)
			continue;
		stir_expr *idx = NULL;
		if (c->flat) {
			stir_expr *r = NULL, *range = NULL, *base = NULL, *rs = NULL;
			strided t = { 0 };
			if (c->reverse) {
				cache_flat_rows(c, a, &rs, &range, &r);
				stir_expr *row = stir_mk_var(k, c->loop->u.for_.var);
				idx = r ? stir_mk_add(k, stir_mk_mul(k, row,
					stir_expr_copy(k, c->range, NULL)),
					stir_expr_copy(k, r, NULL)) : row;
			} else if (c->fkind == F_WHOLE) {
				idx = stir_expr_copy(k, a->idx[0], NULL);
			} else if (c->fkind == F_RANGE) {
				cache_flat_kind(c, a, &base, &r, &range, &t);
				idx = stir_expr_copy(k, r, NULL);
			} else if (c->fkind == F_STRIDED) {
				/* the cache's row-major index over the terms' loops,
				 * whose variables are in scope inside the block (the
				 * gathered rows' first) */
				idx = strided_index(c, c->terms.gather && !c->runs ?
					c->terms.gvar : NULL, c->terms.loop);
			} else {
				idx = stir_mk_int(k, 0);
			}
		} else {
			stir_expr *w = NULL;
			for (int d = 0; d < c->n; d++) {
				if (d == c->scat || c->point[d])
					continue;
				stir_expr *e = stir_expr_copy(k, a->idx[d], NULL);
				idx = idx ? stir_mk_add(k, stir_mk_mul(k, idx,
					stir_expr_copy(k, c->size[d], NULL)), e) : e;
				w = w ? stir_mk_mul(k, w, stir_expr_copy(k, c->size[d],
					NULL)) : stir_expr_copy(k, c->size[d], NULL);
			}
			if (c->reverse) {
				stir_expr *row = stir_mk_var(k, c->loop->u.for_.var);
				row = w ? stir_mk_mul(k, row, w) : row;
				idx = idx ? stir_mk_add(k, row, idx) : row;
			}
			if (!idx)
				idx = stir_mk_int(k, 0);
		}
		if (c->per)
			idx = stir_mk_add(k, stir_mk_mul(k, stir_mk_var(k,
				c->per->u.for_.var), stir_expr_copy(k, c->slot_size,
				NULL)), idx);
		stir_expr **v = sched_check(c->s, stir_arena_alloc(
			stir_kernel_arena(k), sizeof(*v)));
		if (!v || !sched_check(c->s, idx))
			return;
		v[0] = idx;
		if (a->store) {
			a->store->u.store.buf = cache;
			a->store->u.store.n = 1;
			a->store->u.store.idx = v;
		} else {
			a->load->u.load.buf = cache;
			a->load->u.load.n = 1;
			a->load->u.load.idx = v;
		}
	}
}

/* x: whether x is the literal 0. */
static bool is_zero(const stir_expr *x)
{
	return x && ((x->kind == STIR_EXPR_INT && x->u.i == 0) ||
		(x->kind == STIR_EXPR_FLOAT && x->u.f == 0.0));
}

/* c: after the region is found, the conditions of a cache per loop P
 * (c->per_name; include/stir/schedule.h, stir_cache_read_per): P is L or
 * a loop around it, serial, of a literal extent from 1 to 32; around L
 * only for a read; L itself only for an accumulating write (over the
 * init only when it stores 0).  Sets c->per, c->pi, c->per_n,
 * c->slot_size, and c->total to the copies' size; false after recording
 * the failure. */
static bool check_per(creq *c)
{
	sched *s = c->s;
	const char *pn = c->per_name, *ln = c->loop->u.for_.var->name;
	const char *xn = c->x->name;
	int pi = -1;
	for (int i = c->li; i >= 0 && pi < 0; i--)
		if (c->path.stmt[i]->kind == STIR_STMT_FOR &&
		    !strcmp(c->path.stmt[i]->u.for_.var->name, pn))
			pi = i;
	if (pi < 0) {
		sched_fail(s, c->loop->loc, "per: loop '%s' is neither loop '%s' "
			"nor a loop around it", pn, ln);
		return false;
	}
	stir_stmt *p = c->path.stmt[pi];
	int64_t n;
	if (p->u.for_.kind != STIR_LOOP_SERIAL) {
		sched_fail(s, p->loc, "loop '%s' is %s: a cache per loop is made "
			"while the loop is serial (bind it afterwards)", pn,
			sched_loop_annotation(p));
		return false;
	}
	if (!sched_int_value(p->u.for_.extent, &n) || n < 1 || n > 32) {
		sched_fail(s, p->loc, "loop '%s' has extent %s: a cache per loop "
			"needs a literal extent from 1 to 32", pn,
			sched_str(s, p->u.for_.extent));
		return false;
	}
	if (pi < c->li && c->write) {
		sched_fail(s, p->loc, "a cache_write per loop '%s' around loop "
			"'%s' would write '%s' back once per iteration of '%s': a "
			"write cache is per the loop it is taken at (partial sums)",
			pn, ln, xn, pn);
		return false;
	}
	if (pi == c->li && !(c->write && c->accum)) {
		sched_fail(s, p->loc, "a cache per loop '%s' taken at that loop "
			"holds partial sums: block '%s' must only add into '%s'", pn,
			c->blk->u.block.name, xn);
		return false;
	}
	if (pi == c->li && c->over_init && !is_zero(c->init_value)) {
		sched_fail(s, p->loc, "the init of '%s' stores %s, but the partial "
			"sums per loop '%s' start at 0", xn,
			sched_str(s, c->init_value), pn);
		return false;
	}
	c->per = p;
	c->pi = pi;
	c->per_n = n;
	c->slot_size = c->total;
	c->total = sched_check(s, stir_mk_mul(c->k, stir_mk_int(c->k, n),
		stir_expr_copy(c->k, c->total, NULL)));
	return c->total != NULL;
}

/* c, base: add the cache of x over c->total elements of its type, in
 * c->scope at the block's place, under a fresh global name from
 * "X_SCOPE" (that base in *base), recorded as made from x; NULL when
 * memory ran out. */
stir_buffer *cache_add_buffer(creq *c, const char **base)
{
	sched *s = c->s;
	stir_kernel *k = c->k;
	*base = sched_check(s, stir_kernel_strf(k, "%s_%s", c->x->name,
		sched_scope_name(c->scope)));
	const char *cn = sched_fresh_global(s, *base);
	stir_buffer *cb = cn ? stir_kernel_add_flat_buffer(k, cn,
		STIR_BUFFER_LOCAL, c->x->dtype, stir_expr_copy(k, c->total, NULL),
		NULL) : NULL;
	if (!sched_check(s, cb))
		return NULL;
	cb->scope = c->scope;
	cb->loc = c->blk->loc;
	sched_made(s, STIR_MADE_BUFFER, cn, c->x->name);
	return cb;
}

/* s, base, init_name: a fresh block name from base for the copy or
 * write-back nest, and in *init_name one from "NAME_init" for the nest
 * before L; NULL (either) when memory ran out. */
const char *cache_nest_names(sched *s, const char *base,
	const char **init_name)
{
	const char *name = sched_fresh_block_name(s, base);
	*init_name = !name ? NULL : sched_fresh_block_name(s,
		sched_check(s, stir_kernel_strf(s->k, "%s_init", name)));
	return name;
}

/* c: after the region is found, the conditions of padding
 * (include/stir/schedule.h, stir_cache_read_padded): a shared cache of a
 * strided region of a flat buffer, pad_every the size of the cache's rows
 * (the extents of its innermost terms multiplied), not of the whole
 * region.  Sets c->pad_from, and c->total to the padded size; false
 * after recording the failure. */
static bool check_pad(creq *c)
{
	sched *s = c->s;
	if (c->pad_every < 1 || c->pad < 1) {
		sched_fail(s, c->blk->loc, "padding of %lld elements after every "
			"%lld: both must be at least 1", (long long)c->pad,
			(long long)c->pad_every);
		return false;
	}
	if (c->scope != STIR_SCOPE_SHARED) {
		sched_fail(s, c->blk->loc, "padding is for a shared cache (rows "
			"apart in shared memory's banks), not a %s one",
			sched_scope_name(c->scope));
		return false;
	}
	if (!c->flat || c->fkind != F_STRIDED) {
		sched_fail(s, c->loop->loc, "padding needs the region of '%s' under "
			"loop '%s' to be loops of literal strides in a flat buffer "
			"(rows of a literal size)", c->x->name,
			c->loop->u.for_.var->name);
		return false;
	}
	/* the rows: the innermost terms' elements, from the innermost term up
	 * to the second outermost (the outermost with gathered rows) */
	char sizes[160] = "";
	int64_t span = 1;
	int from = -1;
	for (int i = c->terms.n - 1; i >= (c->terms.gather ? 0 : 1); i--) {
		span *= c->terms.ext[i];
		size_t at = strlen(sizes);
		snprintf(sizes + at, sizeof(sizes) - at, "%s%lld", at ? ", " : "",
			(long long)span);
		if (span == c->pad_every && from < 0)
			from = i;
	}
	if (from < 0 && sizes[0]) {
		sched_fail(s, c->loop->loc, "padding after every %lld elements of "
			"the cache of '%s': its rows hold %s elements",
			(long long)c->pad_every, c->x->name, sizes);
		return false;
	}
	if (from < 0) {
		sched_fail(s, c->loop->loc, "padding after every %lld elements of "
			"the cache of '%s': its region is one loop, with no rows",
			(long long)c->pad_every, c->x->name);
		return false;
	}
	c->pad_from = from;
	int64_t n = 0;
	sched_int_value(c->total, &n);
	c->total = sched_check(s, stir_mk_int(c->k, n / c->pad_every *
		(c->pad_every + c->pad)));
	return c->total != NULL;
}

/* c, block, buffer, loop: check the request (the conditions at the top
 * of this file), filling c; -1 after recording the first failure. */
static int cache_check(creq *c, const char *block, const char *buffer,
	const char *loop)
{
	sched *s = c->s;
	stir_kernel *k = c->k;
	if ((c->li = sched_find_block_loop(s, block, loop, &c->path)) < 0)
		return -1;
	c->blk = c->path.stmt[c->path.n - 1];
	c->loop = c->path.stmt[c->li];
	c->rows = c->loop->u.for_.extent;
	const char *bn = c->blk->u.block.name;
	c->x = buffer ? stir_kernel_find_buffer(k, buffer) : NULL;
	if (!c->x) {
		sched_fail(s, k->loc, "kernel '%s' has no buffer '%s'", k->name,
			buffer ? buffer : "(null)");
		return -1;
	}
	if (c->scope != STIR_SCOPE_SHARED && c->scope != STIR_SCOPE_LOCAL &&
	    c->scope != STIR_SCOPE_WARP) {
		sched_fail(s, c->blk->loc, "a cache lives in shared, local or "
			"warp memory");
		return -1;
	}
	if (c->scope == STIR_SCOPE_WARP && (c->write || c->reverse)) {
		sched_fail(s, c->blk->loc, "a warp cache is a plain cache_read: "
			"the lanes share one copy of what the block reads");
		return -1;
	}
	if (c->per_name && (c->reverse || c->scope == STIR_SCOPE_WARP)) {
		sched_fail(s, c->blk->loc, "a cache per loop is a shared or local "
			"cache_read, cache_write or cache_write_over_init");
		return -1;
	}
	stir_stmt *atomic = sched_atomic_around(&c->path, c->li);
	if (atomic) {
		sched_fail(s, c->loop->loc, "loop '%s' lies inside atomic block "
			"'%s'", loop, atomic->u.block.name);
		return -1;
	}
	if (c->reverse && !sched_is_param_expr(c->rows)) {
		sched_fail(s, c->loop->loc, "the extent of loop '%s', %s, is not "
			"an expression of parameters", loop, sched_str(s, c->rows));
		return -1;
	}
	stir_stmt *atomic_in = sched_atomic_around(&c->path, c->path.n);
	if (c->write && (c->blk->u.block.flags & STIR_BLOCK_CROSS_THREAD)) {
		sched_fail(s, c->blk->loc, "block '%s' is cross-thread", bn);
		return -1;
	}
	s->through = !c->reverse && !c->runs;
	if (c->over_init && !cache_check_over_init_index(c))
		return -1;
	if (sched_collect(s, c->loop, c->blk, &c->acc) < 0 ||
	    !cache_find_region(c) || !cache_check_shared_threads(c) ||
	    (c->scope == STIR_SCOPE_WARP && !cache_check_warp(c)))
		return -1;
	if (c->write && !c->accum && atomic_in) {
		sched_fail(s, c->blk->loc, "block '%s' is atomic, and its accesses "
			"of '%s' are not all += or -=", bn, c->x->name);
		return -1;
	}
	c->atomic_wb = atomic_in != NULL;
	if (c->over_init && !cache_check_over_init(c))
		return -1;
	if ((c->pad || c->pad_every) && !check_pad(c))
		return -1;
	if (c->per_name && !check_per(c))
		return -1;
	if (c->runs && !cache_runs_check(c))
		return -1;
	return 0;
}

/* c, cb, idx: the sum of the partial results of every iteration of the
 * per loop at element idx of a copy: cb[idx] + cb[size + idx] + .. */
static stir_expr *slot_sum(creq *c, stir_buffer *cb, const stir_expr *idx)
{
	stir_kernel *k = c->k;
	stir_expr *sum = NULL;
	for (int64_t p = 0; p < c->per_n; p++) {
		stir_expr *i = stir_mk_add(k, stir_mk_mul(k, stir_mk_int(k, p),
			stir_expr_copy(k, c->slot_size, NULL)), stir_expr_copy(k, idx,
			NULL));
		stir_expr *v = stir_mk_load1(k, cb, i);
		sum = sum ? stir_expr_binary(k, STIR_ADD, sum, v) : v;
	}
	return sum;
}

/* c, nest: the load of x at the copy nest's indices (through P when
 * c->through). */
static stir_expr *x_load(creq *c, const copy_nest *nest)
{
	stir_kernel *k = c->k;
	if (!c->through)
		return stir_expr_load(k, c->x, c->n, (stir_expr **)nest->x_idx);
	stir_expr *p = stir_expr_load(k, c->through, c->n,
		(stir_expr **)nest->x_idx);
	return p ? stir_mk_load1(k, c->x, p) : NULL;
}

/* c, nest, op, v: the store of v into x at the copy nest's indices
 * (through P when c->through). */
static stir_stmt *x_store(creq *c, const copy_nest *nest, stir_store_op op,
	stir_expr *v)
{
	stir_kernel *k = c->k;
	if (!c->through)
		return stir_stmt_store(k, c->x, c->n, (stir_expr **)nest->x_idx,
			op, v);
	stir_expr *p = stir_expr_load(k, c->through, c->n,
		(stir_expr **)nest->x_idx);
	return p ? stir_stmt_store(k, c->x, 1, &p, op, v) : NULL;
}

/* c: rewrite what cache_check accepted: the cache, the copy nests, the
 * block's accesses redirected.  0, or -1 when memory ran out. */
static int cache_rewrite(creq *c)
{
	sched *s = c->s;
	stir_kernel *k = c->k;
	const char *bn = c->blk->u.block.name;
	/* the cache and the names at L's place */
	const char *base, *init_name;
	stir_buffer *cb = cache_add_buffer(c, &base);
	if (!cb)
		return -1;
	const char *copy_name = cache_nest_names(s, base, &init_name);
	sched_names names;
	if (!copy_name || !init_name || sched_scope_names(s, &c->path, c->li,
	    c->path.list[c->li], c->path.index[c->li], &names) < 0)
		return -1;
	int mark = stir_names_mark(&names);

	/* before L: the copy (read), the copy in or the zeroing (write) */
	copy_nest in, out;
	bool partials = c->per && c->pi == c->li;
	bool ok = cache_build_nest(c, &names, c->write ? init_name : copy_name,
		partials, &in);
	if (ok) {
		stir_stmt *st;
		if (c->over_init)
			st = stir_stmt_store(k, cb, 1, &in.cache_idx, STIR_STORE_ASSIGN,
				stir_expr_copy(k, c->init_value, NULL));
		else if (c->accum)
			st = stir_stmt_store(k, cb, 1, &in.cache_idx, STIR_STORE_ASSIGN,
				sched_zero(k, cb->dtype));
		else
			st = stir_stmt_store(k, cb, 1, &in.cache_idx, STIR_STORE_ASSIGN,
				x_load(c, &in));
		ok = add_body(c, &in, st, !c->accum);
	}
	/* after L: the write-back */
	stir_names_reset(&names, mark);
	if (ok && c->write) {
		ok = cache_build_nest(c, &names, copy_name, false, &out);
		if (ok) {
			stir_expr *v = partials ? slot_sum(c, cb, out.cache_idx) :
				stir_mk_load1(k, cb, out.cache_idx);
			stir_stmt *st = x_store(c, &out, c->accum && !c->over_init ?
				STIR_STORE_ADD : STIR_STORE_ASSIGN, v);
			ok = add_body(c, &out, guard_writeback(c, &out, st), true);
			if (c->atomic_wb)
				out.blk->u.block.flags |= STIR_BLOCK_ATOMIC;
		}
	}
	sched_names_release(&names);
	ok = ok && cache_guard_nest(c, &in) &&
		(!c->write || cache_guard_nest(c, &out));
	if (!ok || s->oom)
		return -1;
	if (c->write)
		sched_made(s, STIR_MADE_INIT_BLOCK, init_name, bn);
	sched_made(s, STIR_MADE_BLOCK, copy_name, bn);
	cache_redirect(c, cb);
	int at = c->path.index[c->li];
	stir_ptr_vec *list = c->path.list[c->li];
	if (c->write)
		sched_list_insert(s, list, at + 1, out.outer);
	sched_list_insert(s, list, at, in.outer);
	/* the init nest, just before the block's nest, is taken over */
	if (c->over_init && !s->oom)
		sched_list_remove(c->path.list[0], c->path.index[0] - 1);
	return s->oom ? -1 : 0;
}

/* k, prim, block, buffer, loop, scope, write, reverse, over_init, per,
 * pad_every, pad: one request (per: the loop each of whose iterations
 * owns a copy, or NULL; pad elements after every pad_every, or pad 0). */
static int run(stir_kernel *k, const char *prim, const char *block,
	const char *buffer, const char *loop, stir_scope scope, bool write,
	bool reverse, bool over_init, const char *per, int64_t pad_every,
	int64_t pad)
{
	sched s;
	if (sched_begin(&s, k, prim) < 0)
		return -1;
	bool runs = !strcmp(prim, "cache_write_runs");
	creq c = { .s = &s, .k = k, .scope = scope, .write = write,
		.reverse = reverse, .over_init = over_init, .per_name = per,
		.runs = runs, .pad_every = pad_every, .pad = pad };
	if (cache_check(&c, block, buffer, loop) == 0) {
		if (runs)
			cache_runs_rewrite(&c);
		else
			cache_rewrite(&c);
	}
	sched_path_release(&c.path);
	sched_accs_release(&c.acc);
	char padding[64] = "";
	if (pad_every || pad)
		snprintf(padding, sizeof(padding), ", pad_every: %lld, pad: %lld",
			(long long)pad_every, (long long)pad);
	return stir_kernel_log_step(k, sched_end(&s), "%s: {block: %s, "
		"buffer: %s, loop: %s, scope: %s%s%s%s}", prim, block, buffer, loop,
		scope == STIR_SCOPE_SHARED ? "shared" : scope == STIR_SCOPE_WARP ?
		"warp" : "local", per ? ", per: " : "", per ? per : "", padding);
}

/* k, block, buffer, loop, scope: see include/stir/schedule.h. */
int stir_cache_read(stir_kernel *k, const char *block, const char *buffer,
	const char *loop, stir_scope scope)
{
	return run(k, "cache_read", block, buffer, loop, scope, false, false,
		false, NULL, 0, 0);
}

/* k, block, buffer, loop, scope: see include/stir/schedule.h. */
int stir_cache_write(stir_kernel *k, const char *block, const char *buffer,
	const char *loop, stir_scope scope)
{
	return run(k, "cache_write", block, buffer, loop, scope, true, false,
		false, NULL, 0, 0);
}

/* k, block, buffer, loop, scope: see include/stir/schedule.h. */
int stir_cache_write_runs(stir_kernel *k, const char *block,
	const char *buffer, const char *loop, stir_scope scope)
{
	return run(k, "cache_write_runs", block, buffer, loop, scope, true,
		false, false, NULL, 0, 0);
}

/* k, block, buffer, loop, scope: see include/stir/schedule.h. */
int stir_reverse_cache_read(stir_kernel *k, const char *block,
	const char *buffer, const char *loop, stir_scope scope)
{
	return run(k, "reverse_cache_read", block, buffer, loop, scope, false,
		true, false, NULL, 0, 0);
}

/* k, block, buffer, loop, scope: see include/stir/schedule.h. */
int stir_reverse_cache_write(stir_kernel *k, const char *block,
	const char *buffer, const char *loop, stir_scope scope)
{
	return run(k, "reverse_cache_write", block, buffer, loop, scope, true,
		true, false, NULL, 0, 0);
}

/* k, block, buffer, loop, scope: see include/stir/schedule.h. */
int stir_cache_write_over_init(stir_kernel *k, const char *block,
	const char *buffer, const char *loop, stir_scope scope)
{
	return run(k, "cache_write_over_init", block, buffer, loop, scope, true,
		false, true, NULL, 0, 0);
}

/* k, block, buffer, loop, scope, per: see include/stir/schedule.h. */
int stir_cache_read_per(stir_kernel *k, const char *block,
	const char *buffer, const char *loop, stir_scope scope, const char *per)
{
	return run(k, "cache_read", block, buffer, loop, scope, false, false,
		false, per, 0, 0);
}

/* k, block, buffer, loop, scope, over_init, per: see
 * include/stir/schedule.h. */
int stir_cache_write_per(stir_kernel *k, const char *block,
	const char *buffer, const char *loop, stir_scope scope, bool over_init,
	const char *per)
{
	return run(k, over_init ? "cache_write_over_init" : "cache_write", block,
		buffer, loop, scope, true, false, over_init, per, 0, 0);
}

/* k, block, buffer, loop, scope, per, pad_every, pad: see
 * include/stir/schedule.h. */
int stir_cache_read_padded(stir_kernel *k, const char *block,
	const char *buffer, const char *loop, stir_scope scope, const char *per,
	int64_t pad_every, int64_t pad)
{
	return run(k, "cache_read", block, buffer, loop, scope, false, false,
		false, per, pad_every, pad);
}
