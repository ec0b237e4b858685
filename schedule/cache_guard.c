/* The conditions over a cache's accesses (schedule/cache.c, find_region):
 * which a cache may take, and how. */
#include "schedule/cache.h"

/* c, cond: whether an index of the buffer's accesses in the block uses a
 * loop variable inside the cache's loop that condition cond uses, so that
 * the element accessed depends on what the condition tests. */
bool cache_index_uses_cond(const creq *c, const stir_expr *cond)
{
	for (int v = 0; v < c->acc.n_inner; v++) {
		if (!stir_expr_uses(cond, c->acc.inner[v]))
			continue;
		for (int i = 0; i < c->acc.n; i++) {
			const sched_acc *a = &c->acc.v[i];
			for (int d = 0; a->buf == c->x && d < a->n; d++)
				if (stir_expr_uses(a->xidx[d], c->acc.inner[v]))
					return true;
		}
	}
	return false;
}

/* c, e: whether load e reads the buffer that picks the gathered rows
 * (a row order: P[t * W + TI]), which the kernel never writes, so that
 * the write-back reads it at the row it writes back. */
static bool reads_gather(const creq *c, const stir_expr *e)
{
	const stir_expr *g = c->terms.gather;
	return g && g->kind == STIR_EXPR_LOAD && g->u.load.buf == e->u.load.buf &&
		!sched_kernel_writes(c->k, e->u.load.buf);
}

/* c, e: whether every load in e (a condition, its block variables read
 * as their bindings) reads a buffer the block does not write, at indices
 * no loop inside L changes, so that the write-back after L reads the same
 * (SR-BCRS with chunks: the row guard reads the item's window), or reads
 * the buffer that picks the gathered rows (reads_gather). */
static bool loads_fixed_in_loop(const creq *c, stir_expr *e)
{
	if (e->kind == STIR_EXPR_SEARCH)
		return false;
	if (e->kind == STIR_EXPR_LOAD) {
		stir_uses u = { .buf = e->u.load.buf, .first = true };
		stir_uses_stmt(&u, c->blk);
		if (u.stores > 0 || (sched_varies(&c->acc, e) &&
		    !reads_gather(c, e)))
			return false;
	}
	for (int i = 0; stir_expr_child(e, i); i++)
		if (!loads_fixed_in_loop(c, *stir_expr_child(e, i)))
			return false;
	return true;
}

/* c: when the block's body is one "if (COND) { .. }" (no else) and COND
 * decides only which elements of x an accumulating write of a strided
 * region adds into (it reads no memory but at indices fixed in L, of a
 * buffer the block does not write, or the buffer picking the gathered
 * rows, and, its block variables read as their bindings, uses no loop
 * inside L but the region's; with gathered rows, the rows' loop alone),
 * COND expanded;
 * else NULL.  Every element of the cache then starts at 0 and only those
 * COND lets through are added to, and written back (guard_writeback). */
stir_expr *cache_element_guard(creq *c)
{
	stir_stmt *b = c->blk;
	if (!c->write || c->reverse || !c->flat || c->fkind != F_STRIDED ||
	    b->u.block.body.n != 1)
		return NULL;
	stir_stmt *g = stir_stmt_at(&b->u.block.body, 0);
	if (g->kind != STIR_STMT_IF || g->u.if_.else_body.n)
		return NULL;
	stir_kernel *k = c->k;
	stir_subst sub = { 0 };
	for (int i = 0; i < b->u.block.n_vars; i++)
		if (stir_subst_add_expr(&sub, b->u.block.vars[i],
		    b->u.block.bindings[i]) < 0)
			c->s->oom = true;
	stir_expr *cond = stir_expr_copy(k, g->u.if_.cond, &sub);
	stir_subst_release(&sub);
	if (!sched_check(c->s, cond))
		return NULL;
	bool loops = c->terms.gather ? cache_row_only(c, cond) :
		cache_terms_only(c, cond);
	return loops && loads_fixed_in_loop(c, cond) ? cond : NULL;
}

/* c, cond, loop: whether the loops inside L that condition cond uses are
 * "loop" alone. */
static bool uses_loop_only(const creq *c, const stir_expr *cond,
	const stir_var *loop)
{
	for (int i = 0; i < c->acc.n_inner; i++)
		if (c->acc.inner[i] != loop &&
		    stir_expr_uses(cond, c->acc.inner[i]))
			return false;
	return true;
}

/* c, cond: whether the loops inside L that condition cond uses are the
 * gathered rows' loop alone. */
bool cache_row_only(const creq *c, const stir_expr *cond)
{
	return uses_loop_only(c, cond, c->terms.gvar);
}

/* c, cond: whether the loops inside L that cond uses are all loops of
 * the strided terms. */
bool cache_terms_only(const creq *c, const stir_expr *cond)
{
	for (int i = 0; i < c->acc.n_inner; i++) {
		bool term = false;
		for (int j = 0; j < c->terms.n; j++)
			term |= c->acc.inner[i] == c->terms.loop[j];
		if (!term && stir_expr_uses(cond, c->acc.inner[i]))
			return false;
	}
	return true;
}

/* c, cond: for a write of a strided flat region (no gathered rows) or of
 * a range over one loop inside L (c->range_loop, found here), whether
 * cond tests only which element is written: the loops inside L that it
 * uses are the terms' (the range's), and it reads no memory but at
 * indices fixed in L, of a buffer the block does not write (the tail
 * guard of a split row inside L: j_2 of (j_0 * T + j_1) * U + j_2 <
 * len).  The block then adds only into the elements cond lets through,
 * and the write-back, under cond at each element, stores only those. */
bool cache_write_terms_guard(creq *c, const stir_expr *cond)
{
	if (!c->write || c->reverse || !c->flat ||
	    !loads_fixed_in_loop(c, (stir_expr *)cond))
		return false;
	if (c->fkind == F_STRIDED)
		return !c->terms.gather && cache_terms_only(c, cond);
	return c->fkind == F_RANGE &&
		(c->range_loop || (c->range_loop = cache_range_loop(c))) &&
		uses_loop_only(c, cond, c->range_loop);
}

/* e, a: whether e is non-decreasing in every loop variable inside the
 * cache's loop that it uses (the loops run from 0 up): such a variable
 * alone, or in sums, in products with non-negative literals, in quotients
 * by positive ones, and in integer casts. */
static bool rises_with_inner(const sched_accs *a, const stir_expr *e)
{
	if (!sched_varies(a, e))
		return true;
	int64_t lit;
	switch (e->kind) {
	case STIR_EXPR_VAR:
		return true;
	case STIR_EXPR_CAST:
		return rises_with_inner(a, e->u.cast.a);
	case STIR_EXPR_BINARY:
		switch (e->u.binary.op) {
		case STIR_ADD:
			return rises_with_inner(a, e->u.binary.a) &&
				rises_with_inner(a, e->u.binary.b);
		case STIR_MUL:
			if (sched_int_value(e->u.binary.a, &lit) && lit >= 0)
				return rises_with_inner(a, e->u.binary.b);
			return sched_int_value(e->u.binary.b, &lit) && lit >= 0 &&
				rises_with_inner(a, e->u.binary.a);
		case STIR_DIV:
			return sched_int_value(e->u.binary.b, &lit) && lit > 0 &&
				rises_with_inner(a, e->u.binary.a);
		default:
			return false;
		}
	default:
		return false;
	}
}

/* c, cond: for a read, when cond is a guard "LHS < RHS" (or <=) whose
 * left side rises with the loops inside L that it uses and whose right
 * side and the buffer's indices use none of them (the tail guard of a
 * split inside L, around a load that does not depend on the split loop),
 * cond with those loops at their first iteration, 0, and each of their
 * extents that is not a literal positive: it holds exactly when some
 * iteration of those loops passes cond, so a copy under it reads only
 * elements that the block reads.  Else NULL. */
stir_expr *cache_first_pass_guard(creq *c, const stir_expr *cond)
{
	if (c->write || cond->kind != STIR_EXPR_BINARY ||
	    (cond->u.binary.op != STIR_LT && cond->u.binary.op != STIR_LE) ||
	    sched_varies(&c->acc, cond->u.binary.b) ||
	    !rises_with_inner(&c->acc, cond->u.binary.a) ||
	    cache_index_uses_cond(c, cond))
		return NULL;
	stir_kernel *k = c->k;
	stir_subst sub = { 0 };
	stir_expr *nonempty = NULL;
	for (int v = 0; v < c->acc.n_inner; v++) {
		const stir_var *var = c->acc.inner[v];
		if (!stir_expr_uses(cond, var))
			continue;
		stir_stmt *loop = sched_def(c->s, var);
		int64_t n;
		if (!loop || loop->kind != STIR_STMT_FOR ||
		    sched_varies(&c->acc, loop->u.for_.extent)) {
			stir_subst_release(&sub);
			return NULL;
		}
		if (stir_subst_add_expr(&sub, var, stir_mk_int(k, 0)) < 0)
			c->s->oom = true;
		if (sched_int_value(loop->u.for_.extent, &n) && n > 0)
			continue;
		stir_expr *some = stir_expr_binary(k, STIR_LT, stir_mk_int(k, 0),
			stir_expr_copy(k, loop->u.for_.extent, NULL));
		nonempty = nonempty ? stir_mk_and(k, nonempty, some) : some;
	}
	stir_expr *first = stir_expr_copy(k, cond, &sub);
	stir_subst_release(&sub);
	if (first && nonempty)
		first = stir_mk_and(k, nonempty, first);
	return sched_check(c->s, first);
}
