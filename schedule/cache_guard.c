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

/* c: when the block's body is one "if (COND) { .. }" (no else) and COND
 * decides only which elements of x an accumulating write of a strided
 * region adds into (it reads no memory and, its block variables read as
 * their bindings, uses no loop inside L but the region's), COND expanded;
 * else NULL.  Every element of the cache then starts at 0 and only those
 * COND lets through are added to, and written back (guard_writeback). */
stir_expr *cache_element_guard(creq *c)
{
	stir_stmt *b = c->blk;
	if (!c->write || c->reverse || !c->flat || c->fkind != F_STRIDED ||
	    b->u.block.body.n != 1)
		return NULL;
	stir_stmt *g = stir_stmt_at(&b->u.block.body, 0);
	if (g->kind != STIR_STMT_IF || g->u.if_.else_body.n ||
	    stir_expr_reads_data(g->u.if_.cond))
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
	for (int i = 0; i < c->acc.n_inner; i++) {
		bool term = false;
		for (int j = 0; j < c->terms.n; j++)
			term |= c->acc.inner[i] == c->terms.loop[j];
		if (!term && stir_expr_uses(cond, c->acc.inner[i]))
			return NULL;
	}
	return cond;
}

/* c, cond: whether the loops inside L that condition cond uses are the
 * gathered rows' loop alone. */
bool cache_row_only(const creq *c, const stir_expr *cond)
{
	for (int i = 0; i < c->acc.n_inner; i++)
		if (c->acc.inner[i] != c->terms.gvar &&
		    stir_expr_uses(cond, c->acc.inner[i]))
			return false;
	return true;
}
