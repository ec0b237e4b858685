/* The region of a cache (schedule/cache.c, cache_check): the accesses
 * of x by the block, checked, and the region they cover at loop L by the
 * point-or-whole-dimension rule of cache.c's opening comment (points,
 * whole dimensions, a flat range, strided terms, gathered rows). */
#include "schedule/cache.h"

/* e, terms, n: the operands of the top-level + of e (at most 16). */
static int add_terms(stir_expr *e, stir_expr **terms, int n)
{
	if (e->kind == STIR_EXPR_BINARY && e->u.binary.op == STIR_ADD) {
		n = add_terms(e->u.binary.a, terms, n);
		return n < 0 ? n : add_terms(e->u.binary.b, terms, n);
	}
	if (n >= 16)
		return -1;
	terms[n] = e;
	return n + 1;
}

/* c, e: when e is the variable of a loop inside L (its expansion), that
 * loop's extent if it is an expression of parameters; else NULL. */
static stir_expr *inner_range(creq *c, const stir_expr *e)
{
	if (e->kind != STIR_EXPR_VAR || !sched_is_inner(&c->acc, e->u.var))
		return NULL;
	stir_stmt *def = sched_def(c->s, e->u.var);
	if (!def || def->kind != STIR_STMT_FOR ||
	    !sched_is_param_expr(def->u.for_.extent))
		return NULL;
	return def->u.for_.extent;
}

/* c, e, scale, t: make scale * e the gathered term of t (a row that e,
 * a load, picks), when e uses exactly one loop inside L, not L itself,
 * of a literal extent, that no other term of t uses, and t has no
 * gathered term yet; for cache_write_runs, when e uses L itself and no
 * loop inside it (any extent: the cache holds one row). */
static bool add_gather(creq *c, stir_expr *e, int64_t scale, strided *t)
{
	const stir_var *v = NULL;
	int64_t lit;
	for (int i = 0; i < c->acc.n_inner; i++) {
		const stir_var *x = c->acc.inner[i];
		if (!stir_expr_uses(e, x))
			continue;
		if (v || (x == c->loop->u.for_.var) != c->runs)
			return false;
		v = x;
	}
	stir_stmt *def = v ? sched_def(c->s, v) : NULL;
	if (t->gather || scale < 1 || !stir_expr_reads_data(e) || !def ||
	    def->kind != STIR_STMT_FOR)
		return false;
	if (c->runs)
		lit = 1;
	else if (!sched_int_value(def->u.for_.extent, &lit) || lit < 1)
		return false;
	for (int i = 0; i < t->n; i++)
		if (t->loop[i] == v)
			return false;
	t->gather = e;
	t->gvar = def->u.for_.var;
	t->gscale = scale;
	t->gext = lit;
	return true;
}

/* c, e, scale, base, t: add scale * e to the fixed part *base and the
 * strided terms t: a fixed expression goes to *base whole; a varying one
 * must be a sum of fixed expressions and loops inside L, with literal
 * factors (as splits make them: ((k_0 * 32) + k_1) * 4 + k_2), and at
 * most one load of a row (add_gather).  false when it is not. */
static bool add_strided(creq *c, stir_expr *e, int64_t scale,
	stir_expr **base, strided *t)
{
	stir_kernel *k = c->k;
	if (!sched_varies(&c->acc, e)) {
		stir_expr *x = scale == 1 ? e : stir_mk_mul(k, e,
			stir_mk_int(k, scale));
		*base = *base ? stir_mk_add(k, *base, x) : x;
		return true;
	}
	int64_t lit;
	switch (e->kind) {
	case STIR_EXPR_VAR: {
		stir_expr *ext = inner_range(c, e);
		if (!ext || !sched_int_value(ext, &lit) || lit < 1 || scale < 1)
			return false;
		for (int i = 0; i < t->n; i++)
			if (t->loop[i] == e->u.var)
				return false;
		if (t->n == MAX_TERMS || e->u.var == t->gvar)
			return false;
		t->loop[t->n] = e->u.var;
		t->stride[t->n] = scale;
		t->ext[t->n++] = lit;
		return true;
	}
	case STIR_EXPR_CAST:
		return add_strided(c, e->u.cast.a, scale, base, t);
	case STIR_EXPR_BINARY: {
		stir_expr *x = e->u.binary.a, *y = e->u.binary.b;
		if (e->u.binary.op == STIR_ADD)
			return add_strided(c, x, scale, base, t) &&
				add_strided(c, y, scale, base, t);
		if (e->u.binary.op == STIR_MUL && sched_int_value(y, &lit))
			return add_strided(c, x, scale * lit, base, t);
		if (e->u.binary.op == STIR_MUL && sched_int_value(x, &lit))
			return add_strided(c, y, scale * lit, base, t);
		return false;
	}
	case STIR_EXPR_LOAD:
		return add_gather(c, e, scale, t);
	default:
		return false;
	}
}

/* c, a, base, t: split flat access a into a fixed base and strided
 * terms t (F_STRIDED), or false. */
static bool flat_strided(creq *c, const sched_acc *a, stir_expr **base,
	strided *t)
{
	*base = NULL;
	t->n = 0;
	t->gather = NULL;
	t->gvar = NULL;
	if (!add_strided(c, a->xidx[0], 1, base, t) || (t->n < 1 && !t->gather))
		return false;
	/* strides descending; each element once */
	for (int x = 1; x < t->n; x++)
		for (int y = x; y > 0 && t->stride[y] > t->stride[y - 1]; y--) {
			stir_var *l = t->loop[y];
			int64_t st = t->stride[y], ex = t->ext[y];
			t->loop[y] = t->loop[y - 1];
			t->stride[y] = t->stride[y - 1];
			t->ext[y] = t->ext[y - 1];
			t->loop[y - 1] = l;
			t->stride[y - 1] = st;
			t->ext[y - 1] = ex;
		}
	for (int i = 0; i + 1 < t->n; i++)
		if (t->stride[i] < t->stride[i + 1] * t->ext[i + 1])
			return false;
	if (!*base)
		*base = stir_mk_int(c->k, 0);
	return true;
}

/* s, a, b: the same strided terms. */
static bool same_strided(sched *s, const strided *a, const strided *b)
{
	if (a->n != b->n || !a->gather != !b->gather)
		return false;
	if (a->gather && (a->gvar != b->gvar || a->gscale != b->gscale ||
	    !sched_same(s, a->gather, b->gather)))
		return false;
	for (int i = 0; i < a->n; i++)
		if (a->loop[i] != b->loop[i] || a->stride[i] != b->stride[i] ||
		    a->ext[i] != b->ext[i])
			return false;
	return true;
}

/* c, a, base, r, range, t: split flat access a into a fixed base and one
 * term r (its own expression) ranging over [0, range): F_RANGE; or
 * several loops with literal strides (t): F_STRIDED; or F_POINT (all
 * fixed); or F_WHOLE. */
int cache_flat_kind(creq *c, const sched_acc *a, stir_expr **base,
	stir_expr **r, stir_expr **range, strided *t)
{
	stir_kernel *k = c->k;
	if (!sched_varies(&c->acc, a->xidx[0])) {
		*base = a->xidx[0];
		return F_POINT;
	}
	stir_expr *to[16], *tx[16];
	int n = add_terms(a->idx[0], to, 0);
	int nx = add_terms(a->xidx[0], tx, 0);
	if (n < 0 || nx < 0)
		return F_WHOLE;
	int var = -1;
	bool one = true;
	for (int i = 0; i < nx; i++)
		if (sched_varies(&c->acc, tx[i])) {
			one &= var < 0;
			var = i;
		}
	if (!one || !(*range = inner_range(c, tx[var])))
		return flat_strided(c, a, base, t) ? F_STRIDED : F_WHOLE;
	/* the cache index: the varying term as the block writes it, or, when
	 * a block variable hides a sum (vk = k_0 * 128 + k_1 * 4 + k_2), the
	 * inner loop's own variable, which is in scope inside the block */
	*r = n == nx ? to[var] : tx[var];
	*base = NULL;
	for (int i = 0; i < nx; i++)
		if (i != var)
			*base = *base ? stir_mk_add(k, *base, tx[i]) : tx[i];
	if (!*base)
		*base = stir_mk_int(k, 0);
	return F_RANGE;
}

/* c: see cache.h. */
stir_var *cache_range_loop(const creq *c)
{
	stir_var *loop = NULL;
	for (int i = 0; i < c->acc.n; i++) {
		const sched_acc *a = &c->acc.v[i];
		if (a->buf != c->x || !a->in_target)
			continue;
		stir_expr *tx[16], *term = NULL;
		int nx = add_terms(a->xidx[0], tx, 0);
		for (int j = 0; j < nx; j++)
			if (sched_varies(&c->acc, tx[j])) {
				if (term)
					return NULL;
				term = tx[j];
			}
		if (!term || term->kind != STIR_EXPR_VAR ||
		    (loop && loop != term->u.var))
			return NULL;
		loop = term->u.var;
	}
	return loop;
}

/* c, e: whether e uses a loop inside L other than L itself. */
static bool varies_below(const creq *c, const stir_expr *e)
{
	for (int i = 0; i < c->acc.n_inner; i++)
		if (c->acc.inner[i] != c->loop->u.for_.var &&
		    stir_expr_uses(e, c->acc.inner[i]))
			return true;
	return false;
}

/* c, a, s, w, r: for a gathering access a of a flat buffer: its row s
 * (expanded), the row length w (NULL for 1) and the offset r in the row
 * (its own expression, NULL when w is NULL).  Whether a has that form. */
bool cache_flat_rows(creq *c, const sched_acc *a, stir_expr **s,
	stir_expr **w, stir_expr **r)
{
	const stir_expr *o = a->idx[0], *x = a->xidx[0];
	*w = *r = NULL;
	*s = (stir_expr *)x;
	if (x->kind == STIR_EXPR_BINARY && x->u.binary.op == STIR_ADD &&
	    o->kind == STIR_EXPR_BINARY && o->u.binary.op == STIR_ADD &&
	    x->u.binary.a->kind == STIR_EXPR_BINARY &&
	    x->u.binary.a->u.binary.op == STIR_MUL) {
		stir_expr *range = inner_range(c, x->u.binary.b);
		if (!range || !sched_same(c->s, range, x->u.binary.a->u.binary.b))
			return false;
		*s = x->u.binary.a->u.binary.a;
		*w = range;
		*r = o->u.binary.b;
	}
	return stir_expr_uses(*s, c->loop->u.for_.var) && !varies_below(c, *s) &&
		stir_expr_reads_data(*s);
}

/* c, d: the size of whole dimension d of x, or NULL (a failure). */
static stir_expr *dim_size(creq *c, int d)
{
	const stir_axis *ax = (c->through ? c->through : c->x)->axes[d];
	if (ax->kind == STIR_DENSE_FIXED)
		return ax->len;
	if (ax->kind == STIR_SPARSE_FIXED)
		return ax->nnz;
	sched_fail(c->s, c->loop->loc, "the region of '%s' under loop '%s' is "
		"not constant-sized: it spans the variable axis '%s'", c->x->name,
		c->loop->u.for_.var->name, ax->name);
	return NULL;
}

/* c: the accesses of x by the block; check them and find the region. */
bool cache_find_region(creq *c)
{
	sched *s = c->s;
	const char *xn = c->x->name, *bn = c->blk->u.block.name;
	const char *ln = c->loop->u.for_.var->name;
	bool loads = false, stores = false, first = true, additive = true;
	bool conditional = false, inner = false;
	const sched_acc *cond_of = NULL;
	/* x through P: every access of x in the loop through the same P */
	bool seen = false;
	for (int i = 0; i < c->acc.n; i++) {
		const sched_acc *a = &c->acc.v[i];
		if (a->buf != c->x)
			continue;
		if (seen && a->through != c->through) {
			sched_fail(s, c->blk->loc, "'%s' is accessed under loop '%s' "
				"both through '%s' and %s", xn, ln, (c->through ?
				c->through : a->through)->name, c->through &&
				a->through ? "through another buffer" : "otherwise");
			return false;
		}
		c->through = a->through;
		seen = true;
	}
	const stir_buffer *shape = c->through ? c->through : c->x;
	c->flat = shape->n_axes == 0;
	c->n = c->flat ? 1 : shape->n_axes;
	if (c->n > MAX_DIMS) {
		sched_fail(s, c->blk->loc, "'%s' has too many dimensions", xn);
		return false;
	}
	bool whole[MAX_DIMS] = { false };
	c->fkind = F_POINT;
	c->scat = -1;
	for (int i = 0; i < c->acc.n; i++) {
		const sched_acc *a = &c->acc.v[i];
		if (a->buf != c->x)
			continue;
		if (!a->in_target) {
			if (c->write || a->store) {
				sched_fail(s, c->loop->loc, "'%s' is %s under loop '%s' "
					"outside block '%s'", xn, a->store ? "written" :
					"read", ln, bn);
				return false;
			}
			continue;
		}
		if (!a->n) {
			sched_fail(s, c->blk->loc, "block '%s' searches '%s'", bn, xn);
			return false;
		}
		if (a->store && !c->write) {
			sched_fail(s, c->loop->loc, "'%s' is written under loop '%s'",
				xn, ln);
			return false;
		}
		loads |= !a->store;
		stores |= a->store != NULL;
		additive &= a->store && (a->store->u.store.op == STIR_STORE_ADD ||
			a->store->u.store.op == STIR_STORE_SUB);
		inner |= a->cond_inner;
		/* every access under the same conditions */
		if (!cond_of) {
			cond_of = a;
		} else {
			bool same = cond_of->n_conds == a->n_conds;
			for (int j = 0; same && j < a->n_conds; j++)
				same = sched_same(s, cond_of->conds[j], a->conds[j]);
			conditional |= !same;
		}
		/* the gathered row */
		stir_expr *rs = NULL, *rw = NULL, *rr = NULL;
		int scat = -1;
		if (c->reverse && c->flat) {
			if (!cache_flat_rows(c, a, &rs, &rw, &rr)) {
				sched_fail(s, c->blk->loc, "the index of '%s' in block '%s' "
					"is not a row that a load depends on loop '%s' picks",
					xn, bn, ln);
				return false;
			}
			scat = 0;
		} else if (c->reverse) {
			for (int d = 0; d < a->n; d++)
				if (stir_expr_uses(a->xidx[d], c->loop->u.for_.var) &&
				    stir_expr_reads_data(a->xidx[d]) &&
				    !varies_below(c, a->xidx[d]) && scat < 0)
					scat = d;
			if (scat < 0) {
				sched_fail(s, c->blk->loc, "no index of '%s' in block '%s' "
					"is a load that depends on loop '%s'", xn, bn, ln);
				return false;
			}
			rs = a->xidx[scat];
		}
		if (c->reverse) {
			if (!first && (scat != c->scat || !sched_same(s, rs, c->scat_x) ||
			    (c->flat && !sched_same(s, rw, c->range)))) {
				sched_fail(s, c->blk->loc, "block '%s' accesses '%s' in "
					"different rows", bn, xn);
				return false;
			}
			c->scat = scat;
			c->scat_x = rs;
			if (c->flat)
				c->range = rw;
		}
		if (c->flat && !c->reverse) {
			stir_expr *base = NULL, *r = NULL, *range = NULL;
			strided t = { 0 };
			int kind = cache_flat_kind(c, a, &base, &r, &range, &t);
			if (!first && (kind != c->fkind || (kind != F_WHOLE &&
			    !sched_same(s, base, c->base)) || (kind == F_RANGE &&
			    !sched_same(s, range, c->range)) || (kind == F_STRIDED &&
			    !same_strided(s, &t, &c->terms))))
				kind = F_WHOLE;
			if (first || c->fkind != F_WHOLE) {
				c->fkind = kind;
				c->base = base;
				c->range = range;
				c->terms = t;
			}
		} else if (!c->flat) {
			for (int d = 0; d < c->n; d++) {
				if (d == c->scat)
					continue;
				stir_expr *e = a->xidx[d];
				if (sched_varies(&c->acc, e))
					whole[d] = true;
				else if (first)
					c->point[d] = e;
				else if (!c->point[d] || !sched_same(s, c->point[d], e))
					whole[d] = true;
			}
		}
		first = false;
	}
	if (c->write ? !stores : !loads) {
		sched_fail(s, c->blk->loc, "block '%s' does not %s '%s'", bn,
			c->write ? "write" : "read", xn);
		return false;
	}
	c->accum = c->write && additive;
	if (c->flat && c->fkind == F_STRIDED && c->terms.gather && c->write &&
	    !c->accum) {
		sched_fail(s, c->blk->loc, "block '%s' must update '%s' only with "
			"+= and -= to cache the rows a load picks (two may be one)",
			bn, xn);
		return false;
	}
	if (c->reverse && c->write && !c->accum) {
		sched_fail(s, c->blk->loc, "block '%s' must update '%s' only with += "
			"and -=", bn, xn);
		return false;
	}

	/* the region's size, and whether it has fixed parts to guard */
	stir_kernel *k = c->k;
	/* (copies: the folding constructors may retype their operands) */
	bool points = c->reverse;
	c->total = c->reverse ? stir_expr_copy(k, c->rows, NULL) : NULL;
	if (c->flat) {
		if (c->reverse) {
			if (c->range)
				c->total = stir_mk_mul(k, c->total,
					stir_expr_copy(k, c->range, NULL));
		} else if (c->fkind == F_WHOLE) {
			c->total = stir_expr_copy(k, shape->extent, NULL);
		} else {
			points = true;
			int64_t n = 1;
			for (int i = 0; c->fkind == F_STRIDED && i < c->terms.n; i++)
				n *= c->terms.ext[i];
			if (c->fkind == F_STRIDED && c->terms.gather)
				n *= c->terms.gext;
			c->total = c->fkind == F_RANGE ? stir_expr_copy(k, c->range,
				NULL) : stir_mk_int(k, n);
		}
	} else {
		for (int d = 0; d < c->n; d++) {
			if (d == c->scat)
				continue;
			if (!whole[d]) {
				points = true;
				continue;
			}
			c->point[d] = NULL;
			if (!(c->size[d] = dim_size(c, d)))
				return false;
			stir_expr *size = stir_expr_copy(k, c->size[d], NULL);
			c->total = c->total ? stir_mk_mul(k, c->total, size) : size;
		}
		if (!c->total)
			c->total = stir_mk_int(k, 1);
	}
	if (!sched_check(s, c->total))
		return false;
	if (!sched_is_param_expr(c->total)) {
		sched_fail(s, c->loop->loc, "the region of '%s' under loop '%s' is "
			"not constant-sized: %s elements", xn, ln,
			sched_str(s, c->total));
		return false;
	}
	int64_t lit;
	if (c->scope != STIR_SCOPE_SHARED && !sched_int_value(c->total, &lit)) {
		sched_fail(s, c->loop->loc, "a %s buffer needs a literal size, "
			"but the region of '%s' under loop '%s' has %s elements",
			sched_scope_name(c->scope), xn, ln, sched_str(s, c->total));
		return false;
	}
	c->any_whole = !points || c->fkind == F_WHOLE;
	for (int d = 0; !c->flat && d < c->n; d++)
		c->any_whole |= d != c->scat && whole[d];
	if (points && inner && c->accum && !(c->elem_guard = cache_element_guard(c)) &&
	    s->oom)
		return false;
	if (points && (conditional || (inner && !c->elem_guard))) {
		sched_fail(s, c->blk->loc, "the accesses of '%s' in block '%s' are "
			"conditional", xn, bn);
		return false;
	}
	c->n_conds = c->n_row_conds = 0;
	if (points && cond_of) {
		size_t nk = (size_t)(cond_of->n_conds ? cond_of->n_conds : 1);
		stir_expr **kept = stir_kernel_array(c->k, nk, sizeof(*kept));
		stir_expr **rowk = stir_kernel_array(c->k, nk, sizeof(*rowk));
		if (!sched_check(s, kept) || !sched_check(s, rowk))
			return false;
		c->row_conds = rowk;
		for (int j = 0; j < cond_of->n_conds; j++) {
			stir_expr *cond = cond_of->conds[j];
			if (!(c->reverse ? varies_below(c, cond) :
			    sched_varies(&c->acc, cond))) {
				kept[c->n_conds++] = cond;
				continue;
			}
			/* gathered rows: a condition on the row alone (a split's
			 * tail over the rows) guards the copies of each row; a read
			 * of strided loops: a condition on those loops alone (the
			 * row guard of a tile's last rows) guards each element's
			 * copy, the block reading the cache under it as before; a
			 * write's condition on those loops alone that picks the
			 * element (a split row's tail guard inside L) guards each
			 * element's write-back, the block adding under it as
			 * before */
			bool strided = c->flat && c->fkind == F_STRIDED;
			if ((strided && (c->terms.gather ? cache_row_only(c, cond) :
			    !c->write && !c->reverse && cache_terms_only(c, cond))) ||
			    (!(strided && c->terms.gather) &&
			    cache_write_terms_guard(c, cond))) {
				rowk[c->n_row_conds++] = cond;
				continue;
			}
			/* a sum that a condition inside L skips some terms of (the
			 * tail guard of a split reduction loop) still adds into the
			 * same elements: the cache takes the terms the condition
			 * lets through and adds the rest (0) once, unguarded */
			if (c->write && additive && !c->reverse &&
			    !cache_index_uses_cond(c, cond))
				continue;
			/* a tail guard inside L around a read that does not depend
			 * on the split loop: the copy reads when the guard's first
			 * iteration passes (cache_first_pass_guard) */
			stir_expr *at_first = cache_first_pass_guard(c, cond);
			if (at_first) {
				kept[c->n_conds++] = at_first;
				continue;
			}
			if (s->oom)
				return false;
			sched_fail(s, c->blk->loc, "the accesses of '%s' in block "
				"'%s' are under a condition that changes while loop "
				"'%s' runs", xn, bn, ln);
			return false;
		}
		c->conds = kept;
	}
	return true;
}
