/* The conditions of a cache on the threads that share it
 * (schedule/cache.c, cache_check): a warp cache's lanes hold one copy
 * between them, and a shared cache is one buffer for the whole thread
 * block. */
#include "schedule/cache.h"

/* c: see cache.h.  The conditions of a warp cache (scope warp), after find_region: a
 * flat buffer of 32- or 64-bit elements; loop L inside a loop bound to
 * threadIdx.x of a literal extent that is a power of two up to 32 (the
 * lanes the copy is spread over); and what the block reads of x, with
 * the conditions it reads it under, the same in every lane (independent
 * of that loop's variable), since the lanes hold one copy between
 * them. */
bool cache_check_warp(creq *c)
{
	sched *s = c->s;
	const char *xn = c->x->name, *ln = c->loop->u.for_.var->name;
	stir_dtype t = c->x->dtype;
	if (!c->flat) {
		sched_fail(s, c->loop->loc, "a warp cache needs a flat buffer "
			"(stage III), and '%s' is over axes", xn);
		return false;
	}
	if (t != STIR_I32 && t != STIR_I64 && t != STIR_F32 && t != STIR_F64) {
		sched_fail(s, c->loop->loc, "a warp cache holds 32- or 64-bit "
			"numbers (what warp shuffles move), and '%s' is %s", xn,
			stir_dtype_get_name(t));
		return false;
	}
	const stir_stmt *lanes = NULL;
	for (int i = c->li - 1; i >= 0 && !lanes; i--) {
		const stir_stmt *f = c->path.stmt[i];
		if (f->kind == STIR_STMT_FOR && f->u.for_.kind == STIR_LOOP_BIND &&
		    f->u.for_.thread == STIR_THREAD_X)
			lanes = f;
	}
	if (!lanes) {
		sched_fail(s, c->loop->loc, "loop '%s' is not inside a loop bound "
			"to threadIdx.x, whose lanes a warp cache is spread over",
			ln);
		return false;
	}
	const stir_expr *ext = lanes->u.for_.extent;
	const stir_var *lv = lanes->u.for_.var;
	if (ext->kind != STIR_EXPR_INT || ext->u.i < 1 || ext->u.i > 32 ||
	    (ext->u.i & (ext->u.i - 1))) {
		sched_fail(s, lanes->loc, "loop '%s' bound to threadIdx.x has "
			"extent %s: the lanes of a warp cache are a literal power of "
			"two up to 32", lv->name, sched_str(s, ext));
		return false;
	}
	bool lane_dep = c->base && stir_expr_uses(c->base, lv);
	for (int j = 0; j < c->n_conds; j++)
		lane_dep |= stir_expr_uses(c->conds[j], lv);
	for (int i = 0; i < c->acc.n; i++) {
		const sched_acc *a = &c->acc.v[i];
		if (a->buf == c->x && a->in_target)
			lane_dep |= stir_expr_uses(a->xidx[0], lv);
	}
	if (lane_dep) {
		sched_fail(s, c->blk->loc, "block '%s' reads '%s' under loop '%s' "
			"at places that depend on loop '%s' (threadIdx.x): the lanes "
			"of a warp cache share one copy", c->blk->u.block.name, xn, ln,
			lv->name);
		return false;
	}
	return true;
}

/* v, user: the value variable v stands for in the sched "user": a block
 * variable's binding or a let's value; NULL for others. */
static const stir_expr *value_of(const stir_var *v, const void *user)
{
	const sched *s = user;
	return v->slot >= 0 && v->slot < s->n_slots ? s->val[v->slot] : NULL;
}

/* s, e, v: whether e depends on loop variable v (through the bindings of
 * the variables it names). */
static bool depends_deep(const sched *s, const stir_expr *e,
	const stir_var *v)
{
	stir_uses u = { .var = v, .first = true, .expand = value_of,
		.expand_user = s };
	if (e)
		stir_uses_expr(&u, e);
	return u.var_uses > 0;
}

/* c: see cache.h.  A shared cache is one buffer for the whole thread block, so its
 * region must be the same for every thread: refuse one whose region
 * depends on a loop around L bound to a thread index (each thread, or
 * warp, would copy its own region into the one buffer, a race). */
bool cache_check_shared_threads(creq *c)
{
	if (c->scope != STIR_SCOPE_SHARED)
		return true;
	for (int i = 0; i < c->li; i++) {
		const stir_stmt *o = c->path.stmt[i];
		if (o->kind != STIR_STMT_FOR || o->u.for_.kind != STIR_LOOP_BIND ||
		    o->u.for_.thread < STIR_THREAD_X)
			continue;
		const stir_var *v = o->u.for_.var;
		bool dep = c->scat >= 0 && depends_deep(c->s, c->scat_x, v);
		if (c->flat)
			dep |= c->fkind != F_WHOLE && depends_deep(c->s, c->base, v);
		for (int d = 0; !c->flat && d < c->n; d++)
			dep |= depends_deep(c->s, c->point[d], v);
		if (dep) {
			sched_fail(c->s, c->loop->loc, "the region of '%s' under loop "
				"'%s' depends on loop '%s', bound to %s: its threads "
				"would copy different regions into one shared cache (a "
				"cache per loop '%s', made before the loop is bound, "
				"gives each its own copy)", c->x->name,
				c->loop->u.for_.var->name, v->name,
				sched_thread_name(o->u.for_.thread), v->name);
			return false;
		}
	}
	return true;
}
