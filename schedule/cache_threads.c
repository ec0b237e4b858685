/* The conditions of a cache on the threads that share it
 * (schedule/cache.c, cache_check): a warp cache's lanes hold one copy
 * between them, and a shared cache is one buffer for the whole thread
 * block; and when a tensor-core accumulator may be split over the warps
 * of a bound loop (sched_frag_split_ok, for sched_check_scopes). */
#include <stdarg.h>
#include <stdio.h>
#include "ir/affine.h"
#include "ir/intrinsics.h"
#include "ir/visit.h"
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

/* What split_nest carries: the walk of sched_frag_split_ok. */
typedef struct split_walk {
	const stir_buffer *b;      /* the local buffer */
	const stir_stmt *bound;    /* the loop bound to a thread index */
	int64_t warps;             /* its literal extent */
	const stir_stmt *loops[64]; /* the loops around the statement */
	int n_loops;
	int in_nests;              /* accesses of b found in tensorized nests */
	char *why;                 /* where the reason goes */
	size_t why_size;
	bool ok;
} split_walk;

/* w, fmt: the walk fails, for the reason fmt says. */
static void split_refuse(split_walk *w, const char *fmt, ...)
	STIR_PRINTF(2, 3);
static void split_refuse(split_walk *w, const char *fmt, ...)
{
	if (!w->ok)
		return;
	w->ok = false;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->why, w->why_size, fmt, ap);
	va_end(ap);
}

/* l: the literal extent of loop l, or 0. */
static int64_t literal_extent(const stir_stmt *l)
{
	const stir_expr *x = l->u.for_.extent;
	return x->kind == STIR_EXPR_INT ? x->u.i : 0;
}

/* w, m, v: the literal extent of loop variable v, a loop around the nest
 * of m or one of its own; 0 when none. */
static int64_t var_extent(const split_walk *w, const stir_mma_match *m,
	const stir_var *v)
{
	for (int i = 0; i < w->n_loops; i++)
		if (w->loops[i]->u.for_.var == v)
			return literal_extent(w->loops[i]);
	for (int i = 0; i < 4 && m->loops[i]; i++)
		if (m->loops[i]->u.for_.var == v)
			return literal_extent(m->loops[i]);
	return 0;
}

/* w, m, a, p, c: whether loop variable p, of the bound loop's extent W
 * and coefficient c in tile index a of nest m, is a digit that picks a
 * warp's tiles: c whole tiles, c * W a divisor of a row of the buffer,
 * every other term a multiple of c * W (whole groups: rows, the digits
 * above it) or, together, within [0, c) (the tiles below it). */
static bool warp_digit(const split_walk *w, const stir_mma_match *m,
	const stir_affine *a, const stir_var *p, int64_t c)
{
	int64_t n = m->in->n, row = n * m->frag_tiles, group = c * w->warps;
	if (c <= 0 || c % n != 0 || row % group != 0)
		return false;
	int64_t lo = a->konst, hi = a->konst;
	for (int i = 0; i < a->n; i++) {
		const stir_var *v = a->t[i].var;
		int64_t k = a->t[i].coef, ext;
		if (v == p || k % group == 0)
			continue;
		if (!v || (ext = var_extent(w, m, v)) < 1)
			return false;
		lo += k < 0 ? k * (ext - 1) : 0;
		hi += k > 0 ? k * (ext - 1) : 0;
	}
	return lo >= 0 && hi < c;
}

/* w, s, m: the accumulator access of nest s (matched as m) picks its
 * warp's tiles: its tile index has a digit P * C (warp_digit), with P a
 * loop around it of the bound loop's extent (the bound loop itself inside
 * it, else that loop or a serial one, to be bound to the same index).
 * The warp keeps the tiles of its value of P; the emitter drops the digit
 * (codegen/cuda_mma.c, put_frag). */
static void check_split_nest(split_walk *w, const stir_stmt *s,
	const stir_mma_match *m)
{
	const char *ln = s->u.for_.var->name;
	int64_t tiles = m->frag_tiles;
	if (m->frag_stride != m->in->n) {
		split_refuse(w, "its %lld tiles are one after another, not side "
			"by side", (long long)tiles);
		return;
	}
	if (tiles % w->warps != 0) {
		split_refuse(w, "its %lld tiles do not divide over the %lld warps",
			(long long)tiles, (long long)w->warps);
		return;
	}
	stir_affine a;
	if (!stir_mma_frag_form(m, &a)) {
		split_refuse(w, "the tile index of the nest of loop '%s' is no "
			"affine form of loops", ln);
		return;
	}
	bool inside = false, found = false;
	for (int i = 0; i < w->n_loops; i++)
		inside |= w->loops[i] == w->bound;
	for (int i = 0; i < w->n_loops && !found; i++) {
		const stir_stmt *l = w->loops[i];
		bool same = l == w->bound || l->u.for_.kind == STIR_LOOP_SERIAL ||
			(l->u.for_.kind == STIR_LOOP_BIND &&
			 l->u.for_.thread == w->bound->u.for_.thread);
		if (same && (!inside || l == w->bound) &&
		    literal_extent(l) == w->warps)
			found = warp_digit(w, m, &a, l->u.for_.var,
				stir_affine_coef(&a, l->u.for_.var));
	}
	if (!found)
		split_refuse(w, "the tile index of the nest of loop '%s' does not "
			"pick its warp's tiles by a digit '%s' * C (C whole tiles, "
			"the tiles below it within C, the terms above it multiples "
			"of %lld * C)", ln, inside ? w->bound->u.for_.var->name : "P",
			(long long)w->warps);
}

/* s, user: stmt_pre of sched_frag_split_ok (a split_walk). */
static stir_visit_step split_pre(stir_stmt *s, void *user)
{
	split_walk *w = user;
	if (s->kind != STIR_STMT_FOR || !w->ok)
		return w->ok ? STIR_VISIT_GO : STIR_VISIT_STOP;
	if (s->u.for_.kind != STIR_LOOP_TENSORIZE) {
		if (w->n_loops == 64) {
			split_refuse(w, "its loops are nested too deep");
			return STIR_VISIT_STOP;
		}
		w->loops[w->n_loops++] = s;
		return STIR_VISIT_GO;
	}
	int uses = sched_count_accesses(s, w->b);
	if (!uses)
		return STIR_VISIT_SKIP;
	const stir_intrinsic *in = stir_intrinsic_find(s->u.for_.intrinsic);
	stir_mma_match m;
	char why[200];
	stir_loc where;
	if (!in || !stir_tensorize_match(s, in, &m, why, sizeof(why), &where) ||
	    m.frag != w->b) {
		split_refuse(w, "the nest of loop '%s' uses it other than as its "
			"accumulator", s->u.for_.var->name);
		return STIR_VISIT_STOP;
	}
	w->in_nests += uses;
	if (w->warps >= 2)
		check_split_nest(w, s, &m);
	return STIR_VISIT_SKIP;
}

/* s, user: stmt_post of sched_frag_split_ok: a loop left. */
static stir_visit_step split_post(stir_stmt *s, void *user)
{
	split_walk *w = user;
	if (s->kind == STIR_STMT_FOR && w->n_loops &&
	    w->loops[w->n_loops - 1] == s)
		w->n_loops--;
	return STIR_VISIT_GO;
}

/* s, loop, b, why, why_size: see sched.h.  No reason is given for a
 * buffer that no tensorized nest accesses. */
bool sched_frag_split_ok(sched *s, const stir_stmt *loop,
	const stir_buffer *b, char *why, size_t why_size)
{
	split_walk w = { .b = b, .bound = loop,
		.warps = literal_extent(loop), .why = why, .why_size = why_size,
		.ok = true };
	stir_visitor v = { split_pre, split_post, NULL, NULL, 0, &w };
	stir_visit_list(&v, &s->k->body);
	stir_uses u = { .buf = b };
	stir_uses_list(&u, &s->k->body);
	if (!w.in_nests)
		return false;
	if (w.ok && w.in_nests != u.loads + u.stores)
		split_refuse(&w, "it is accessed outside tensorized nests");
	stir_thread t = loop->u.for_.thread;
	if (t != STIR_THREAD_Y && t != STIR_THREAD_Z)
		split_refuse(&w, "only the warps of threadIdx.y or z may split it");
	if (w.warps < 2)
		split_refuse(&w, "the loop's extent is no literal of at least 2");
	return w.ok;
}
