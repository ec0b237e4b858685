/* cache_write_over_init's checks (include/stir/schedule.h): whether the
 * cache may take over the init nest of the block's iteration, with the
 * iteration space of a nest as its blocks see it. */
#include "ir/affine.h"
#include "schedule/cache.h"

/* ---- cache_write_over_init ---- */

/* st: whether st is one store under one condition (an init block's body
 * under the block's element guard). */
static bool guarded_store(const stir_stmt *st)
{
	return st->kind == STIR_STMT_IF && !st->u.if_.else_body.n &&
		st->u.if_.then_body.n == 1 &&
		stir_stmt_at(&st->u.if_.then_body, 0)->kind == STIR_STMT_STORE;
}

/* st, chain, n: the blocks of nest st, outermost first, in chain[0..*n)
 * when every loop, if and block on the way holds one statement and the
 * innermost block's body is not a loop, if or block (or is one store under
 * one condition): that block, or NULL
 * (a nest of one block, or of blocks around blocks like the init nest of
 * a loop over a row's non-zeros: init0(vi) { for j: init1(vj) { .. } }). */
static stir_stmt *init_blocks(stir_stmt *st, stir_stmt **chain, int *n)
{
	*n = 0;
	for (;;) {
		const stir_ptr_vec *body;
		if (st->kind == STIR_STMT_BLOCK) {
			if (*n == MAX_DIMS)
				return NULL;
			chain[(*n)++] = st;
			body = &st->u.block.body;
		} else if (st->kind == STIR_STMT_FOR) {
			body = &st->u.for_.body;
		} else if (st->kind == STIR_STMT_IF && !st->u.if_.else_body.n) {
			body = &st->u.if_.then_body;
		} else {
			return NULL;
		}
		stir_stmt *in = body->n == 1 ? stir_stmt_at(body, 0) : NULL;
		bool nest = in && (in->kind == STIR_STMT_FOR ||
			in->kind == STIR_STMT_IF || in->kind == STIR_STMT_BLOCK);
		if (st->kind == STIR_STMT_BLOCK && (!nest || guarded_store(in)))
			return st;
		if (!nest)
			return NULL;
		st = in;
	}
}

/* The iteration space of a nest as the blocks on one path see it: each
 * spatial block variable, in order, takes every value of [0, bound)
 * exactly once as the loops run (sufficient conditions, checked by
 * find_nest_domain). */
typedef struct nest_domain {
	int n;
	stir_expr *bound[MAX_DIMS];
} nest_domain;

/* How cache_write reads a block binding: an affine sum of loop
 * variables with literal coefficients (ir/affine.h). */
static const stir_affine_opts loop_sum = { STIR_AFFINE_LOOP_VARS, NULL, NULL,
	NULL };

/* p, v: the loop of variable v on path p, or NULL. */
static const stir_stmt *path_loop(const sched_path *p, const stir_var *v)
{
	for (int i = 0; i < p->n; i++)
		if (p->stmt[i]->kind == STIR_STMT_FOR &&
		    p->stmt[i]->u.for_.var == v)
			return p->stmt[i];
	return NULL;
}

/* p, a: drop from a the loops of p with extent 1, whose variable is 0. */
static void drop_unit_loops(const sched_path *p, stir_affine *a)
{
	int m = 0;
	for (int i = 0; i < a->n; i++) {
		const stir_stmt *l = path_loop(p, a->t[i].var);
		int64_t e;
		if (l && sched_int_value(l->u.for_.extent, &e) && e == 1)
			continue;
		a->t[m++] = a->t[i];
	}
	a->n = m;
}

/* e, conds, n: split the conjuncts of condition e into conds. */
static bool conjuncts(const stir_expr *e, const stir_expr **conds, int *n)
{
	if (e->kind == STIR_EXPR_BINARY && e->u.binary.op == STIR_AND)
		return conjuncts(e->u.binary.a, conds, n) &&
			conjuncts(e->u.binary.b, conds, n);
	if (*n == 2 * MAX_DIMS)
		return false;
	conds[(*n)++] = e;
	return true;
}

/* s, ext, stride, n: whether loops of extents (ext, then literals whose
 * product is stride) reach every value of [0, n): ext is n (stride 1),
 * split's (n + stride - 1) / stride, or literals with ext * stride >= n. */
static bool covers(sched *s, const stir_expr *ext, int64_t stride,
	const stir_expr *n)
{
	int64_t e, v;
	if (sched_int_value(ext, &e) && sched_int_value(n, &v))
		return e * stride >= v;
	if (stride == 1 && sched_same(s, ext, n))
		return true;
	if (ext->kind != STIR_EXPR_BINARY || ext->u.binary.op != STIR_DIV ||
	    !sched_int_value(ext->u.binary.b, &v) || v != stride)
		return false;
	const stir_expr *num = ext->u.binary.a;
	return num->kind == STIR_EXPR_BINARY && num->u.binary.op == STIR_ADD &&
		sched_int_value(num->u.binary.b, &v) && v == stride - 1 &&
		sched_same(s, num->u.binary.a, n);
}

/* s, p, at, e: whether e is fixed before the block p->stmt[at] is
 * reached: an integer expression of literals, parameters, variables of
 * the blocks before it on path p, and loads at such indices of buffers
 * the kernel never writes (a row's length J_indptr[vi + 1] -
 * J_indptr[vi] in a nest over the rows' non-zeros). */
static bool fixed_before(sched *s, const sched_path *p, int at,
	const stir_expr *e)
{
	if (e->kind == STIR_EXPR_VAR && e->u.var->kind == STIR_VAR_BLOCK) {
		for (int i = 0; i < at; i++)
			for (int v = 0; p->stmt[i]->kind == STIR_STMT_BLOCK &&
			     v < p->stmt[i]->u.block.n_vars; v++)
				if (p->stmt[i]->u.block.vars[v] == e->u.var)
					return true;
		return false;
	}
	if (e->kind == STIR_EXPR_LOAD) {
		if (!stir_dtype_is_int(e->dtype) ||
		    sched_kernel_writes(s->k, e->u.load.buf))
			return false;
		for (int d = 0; d < e->u.load.n; d++)
			if (!fixed_before(s, p, at, e->u.load.idx[d]))
				return false;
		return true;
	}
	if (e->kind == STIR_EXPR_BINARY)
		return e->u.binary.op <= STIR_MOD &&
			fixed_before(s, p, at, e->u.binary.a) &&
			fixed_before(s, p, at, e->u.binary.b);
	return sched_is_param_expr(e);
}

/* s, p, d: the domain of the spatial variables of the blocks on path p
 * (which ends at a block), when it is a product of ranges [0, N), N an
 * expression of parameters: each spatial variable bound to a sum of its
 * own loops, mixed-radix (coefficients 1, e1, e1*e2, .. of literal
 * extents, the last loop's extent any), bounded by a condition on the path
 * "that sum < N" (a split's tail guard) or else by the loops' product;
 * every loop on the path iterates some block variable, every condition on
 * the path before index "free" is such a bound (a condition at or after
 * it, inside the cache's loop, only decides which terms the cache adds
 * up: the cache is written back whole).  true, or false (no error: the
 * caller reports). */
static bool find_nest_domain(sched *s, const sched_path *p, int free,
	nest_domain *d)
{
	int cond_at[2 * MAX_DIMS];
	const stir_expr *conds[2 * MAX_DIMS];
	bool used_cond[2 * MAX_DIMS] = { false };
	int n_conds = 0;
	for (int i = 0, m = 0; i < p->n; i++) {
		if (p->stmt[i]->kind == STIR_STMT_IF &&
		    (p->stmt[i]->u.if_.else_body.n ||
		     !conjuncts(p->stmt[i]->u.if_.cond, conds, &n_conds)))
			return false;
		for (; m < n_conds; m++)
			cond_at[m] = i;
	}
	const stir_var *claimed[4 * MAX_TERMS];
	int n_claimed = 0;
	d->n = 0;
	for (int i = 0; i < p->n; i++) {
		const stir_stmt *b = p->stmt[i];
		if (b->kind != STIR_STMT_BLOCK)
			continue;
		for (int v = 0; v < b->u.block.n_vars; v++) {
			stir_affine a = { 0 };
			if (!stir_affine_add(&a, b->u.block.bindings[v], 1,
					&loop_sum) || a.konst)
				return false;
			for (int t = 0; t < a.n; t++) {
				for (int j = 0; j < n_claimed; j++)
					if (claimed[j] == a.t[t].var)
						return false;
				if (n_claimed == 4 * MAX_TERMS || !path_loop(p, a.t[t].var))
					return false;
				claimed[n_claimed++] = a.t[t].var;
			}
			if (b->u.block.kinds[v] != 'S')
				continue;
			drop_unit_loops(p, &a);
			if (d->n == MAX_DIMS)
				return false;
			if (a.n == 0) {   /* a single point */
				d->bound[d->n++] = sched_check(s, stir_mk_int(s->k, 1));
				if (s->oom)
					return false;
				continue;
			}
			/* mixed radix: sort by coefficient */
			for (int x = 1; x < a.n; x++)
				for (int y = x; y > 0 && a.t[y].coef < a.t[y - 1].coef;
				     y--) {
					stir_affine_term tt = a.t[y];
					a.t[y] = a.t[y - 1];
					a.t[y - 1] = tt;
				}
			int64_t stride = 1;
			const stir_expr *last = NULL;
			for (int t = 0; t < a.n; t++) {
				const stir_expr *ext = path_loop(p, a.t[t].var)->u.for_.extent;
				int64_t e;
				if (a.t[t].coef != stride)
					return false;
				if (t + 1 < a.n) {
					if (!sched_int_value(ext, &e) || e < 1)
						return false;
					stride *= e;
				} else {
					last = ext;
				}
			}
			/* the bound: a guard on exactly this sum that only cuts the
			 * loops' tail, or the loops */
			stir_expr *bound = NULL;
			for (int j = 0; j < n_conds && !bound; j++) {
				const stir_expr *g = conds[j];
				stir_affine ga = { 0 };
				if (g->kind == STIR_EXPR_BINARY && g->u.binary.op == STIR_LT &&
				    stir_affine_add(&ga, g->u.binary.a, 1, &loop_sum) &&
				    (drop_unit_loops(p, &ga), stir_affine_same(&a, &ga)) &&
				    fixed_before(s, p, i, g->u.binary.b) &&
				    covers(s, last, stride, g->u.binary.b)) {
					bound = (stir_expr *)g->u.binary.b;
					used_cond[j] = true;
				}
			}
			int64_t e;
			if (!bound && a.n == 1)
				bound = (stir_expr *)last;
			else if (!bound && sched_int_value(last, &e))
				bound = sched_check(s, stir_mk_int(s->k, e * stride));
			if (!bound || !fixed_before(s, p, i, bound))
				return false;
			d->bound[d->n++] = bound;
		}
	}
	for (int j = 0; j < n_conds; j++)
		if (!used_cond[j] && cond_at[j] < free)
			return false;
	for (int i = 0; i < p->n; i++) {
		const stir_stmt *l = p->stmt[i];
		bool used = l->kind != STIR_STMT_FOR;
		for (int j = 0; j < n_claimed && !used; j++)
			used = claimed[j] == l->u.for_.var;
		if (!used)
			return false;
	}
	return true;
}

/* s, a, b: the same bound. */
static bool same_bound(sched *s, const stir_expr *a, const stir_expr *b)
{
	int64_t x, y;
	if (sched_int_value(a, &x) && sched_int_value(b, &y))
		return x == y;
	return sched_same(s, a, b);
}

/* c: the block's one += or -= store, inside its element guard when it
 * has one (cache_element_guard), or NULL after recording the failure. */
static stir_stmt *guarded_update(creq *c)
{
	const stir_stmt *g = c->elem_guard ? stir_stmt_at(&c->blk->u.block.body,
		0) : NULL;
	if (!g)
		return sched_single_update(c->s, c->blk);
	const stir_stmt *st = g->u.if_.then_body.n == 1 ?
		stir_stmt_at(&g->u.if_.then_body, 0) : NULL;
	if (!st || st->kind != STIR_STMT_STORE || (st->u.store.op !=
	    STIR_STORE_ADD && st->u.store.op != STIR_STORE_SUB)) {
		sched_fail(c->s, c->blk->loc, "block '%s' must hold exactly one += "
			"or -= store inside its condition", c->blk->u.block.name);
		return NULL;
	}
	return (stir_stmt *)st;
}

/* c, icond, sub: whether the init nest stores under the block's element
 * guard (cache_element_guard): neither has a condition, or the init's
 * condition icond, its variables read as the block's (sub) and those as
 * their bindings, is the guard. */
static bool same_guard(creq *c, const stir_expr *icond, const stir_subst *sub)
{
	if (!icond || !c->elem_guard)
		return !icond && !c->elem_guard;
	const stir_stmt *b = c->blk;
	stir_subst bind = { 0 };
	for (int i = 0; i < b->u.block.n_vars; i++)
		if (stir_subst_add_expr(&bind, b->u.block.vars[i],
		    b->u.block.bindings[i]) < 0)
			c->s->oom = true;
	stir_expr *e = stir_expr_copy(c->k, icond, sub);
	e = e ? stir_expr_copy(c->k, e, &bind) : NULL;
	stir_subst_release(&bind);
	return sched_check(c->s, e) && sched_same(c->s, e, c->elem_guard);
}

/* c: refuse, before the region is looked for, a store of the block into
 * X at an index read from a buffer P, X[P[e..]], unless P is declared
 * distinct and the kernel never writes it (sched_acc.through): two points
 * of the block could then add into one element, which the init's value
 * must start once. */
bool cache_check_over_init_index(creq *c)
{
	const stir_ptr_vec *body = &c->blk->u.block.body;
	for (int i = 0; i < body->n; i++) {
		const stir_stmt *st = stir_stmt_at(body, i);
		/* a store under the block's element guard counts too */
		if (st->kind == STIR_STMT_IF && st->u.if_.then_body.n == 1)
			st = stir_stmt_at(&st->u.if_.then_body, 0);
		const stir_expr *e = st->kind == STIR_STMT_STORE &&
			st->u.store.buf == c->x && st->u.store.n == 1 ?
			st->u.store.idx[0] : NULL;
		if (!e || e->kind != STIR_EXPR_LOAD)
			continue;
		const stir_buffer *p = e->u.load.buf;
		if (p->distinct && !sched_kernel_writes(c->k, p))
			continue;
		sched_fail(c->s, st->loc, "block '%s' adds into '%s' at an index "
			"read from '%s', which is %s: two of its points may add into "
			"one element, so the cache cannot take over the init",
			c->blk->u.block.name, c->x->name, p->name, p->distinct ?
			"written by the kernel" : "not declared distinct");
		return false;
	}
	return true;
}

/* c: check that the cache may take over the init nest of the block's
 * iteration (include/stir/schedule.h) and keep its value in
 * c->init_value.  The nest must be the top-level statement just before
 * the block's, one block P_initN, or such blocks one inside the other,
 * storing one constant into X (under the block's element guard when it
 * has one), at the same element as the
 * block's update at the same spatial point; the block's
 * update not atomic, every loop around L spatial, the region points (no
 * whole dimension), X touched by nothing else in the block's nest, and
 * both nests over the same spatial points, each once (find_nest_domain).
 * Then the init nest and the block's nest write the same elements, each
 * once: the cache can start at the init's value and be stored. */
bool cache_check_over_init(creq *c)
{
	sched *s = c->s;
	const char *xn = c->x->name, *bn = c->blk->u.block.name;
	if (!c->accum) {
		sched_fail(s, c->blk->loc, "block '%s' does not only add into '%s'",
			bn, xn);
		return false;
	}
	if (c->atomic_wb) {
		sched_fail(s, c->blk->loc, "block '%s' adds atomically: several of "
			"its instances add into one element of '%s', so the cache "
			"cannot take over the init", bn, xn);
		return false;
	}
	if (c->any_whole) {
		sched_fail(s, c->loop->loc, "the region of '%s' under loop '%s' "
			"has a whole dimension", xn, c->loop->u.for_.var->name);
		return false;
	}
	if (!sched_spatial_around(s, &c->path, c->li))
		return false;
	stir_stmt *nest = c->path.stmt[0];
	if (sched_count_accesses(nest, c->x) != sched_count_accesses(c->loop,
	    c->x)) {
		sched_fail(s, nest->loc, "'%s' is accessed in the nest of block "
			"'%s' outside loop '%s'", xn, bn, c->loop->u.for_.var->name);
		return false;
	}
	int at = c->path.index[0], n_chain = 0;
	stir_stmt *chain[MAX_DIMS];
	stir_stmt *init = at > 0 ? init_blocks(stir_stmt_at(c->path.list[0],
		at - 1), chain, &n_chain) : NULL;
	const char *it = c->blk->u.block.iter;
	if (!it) {
		/* no link, so no init nest (stir_block_is_init_of) */
		sched_fail(s, nest->loc, "block '%s' has no iteration (no 'iter' "
			"link), so no init nest", bn);
		return false;
	}
	bool inits = init != NULL;
	for (int i = 0; i < n_chain && inits; i++)
		inits = stir_block_is_init_of(chain[i], c->blk);
	if (!inits) {
		sched_fail(s, nest->loc, "the statement before the nest of block "
			"'%s' is not the init nest of its iteration (a block "
			"%s_initN, or such blocks one inside the other)", bn, it);
		return false;
	}
	const stir_ptr_vec *ib = &init->u.block.body;
	const stir_stmt *ist = ib->n == 1 ? stir_stmt_at(ib, 0) : NULL;
	/* an init under one condition, the block's element guard */
	const stir_expr *icond = NULL;
	if (ist && ist->kind == STIR_STMT_IF && !ist->u.if_.else_body.n &&
	    ist->u.if_.then_body.n == 1) {
		icond = ist->u.if_.cond;
		ist = stir_stmt_at(&ist->u.if_.then_body, 0);
	}
	if (!ist || ist->kind != STIR_STMT_STORE || ist->u.store.buf != c->x ||
	    ist->u.store.op != STIR_STORE_ASSIGN ||
	    (ist->u.store.value->kind != STIR_EXPR_INT &&
	     ist->u.store.value->kind != STIR_EXPR_FLOAT)) {
		sched_fail(s, init->loc, "init block '%s' does not store one "
			"constant into '%s'", init->u.block.name, xn);
		return false;
	}
	/* the update's element at the same spatial point: the variables of
	 * the init's blocks, outermost first, are the spatial variables of
	 * the blocks around the update, in order */
	stir_stmt *upd = guarded_update(c);
	if (!upd)
		return false;
	stir_subst sub = { 0 };
	int ci = 0, nv = 0;
	bool same = true;
	for (int j = 0; j < c->path.n && same; j++) {
		const stir_stmt *b = c->path.stmt[j];
		for (int v = 0; b->kind == STIR_STMT_BLOCK && v < b->u.block.n_vars;
		     v++) {
			if (b->u.block.kinds[v] != 'S')
				continue;
			while (ci < n_chain && nv == chain[ci]->u.block.n_vars) {
				ci++;
				nv = 0;
			}
			if (ci == n_chain) {
				same = false;
				break;
			}
			if (stir_subst_add_var(&sub, chain[ci]->u.block.vars[nv++],
			    b->u.block.vars[v]) < 0)
				s->oom = true;
		}
	}
	while (ci < n_chain && nv == chain[ci]->u.block.n_vars) {
		ci++;
		nv = 0;
	}
	same &= ci == n_chain && upd->u.store.buf == c->x &&
		upd->u.store.n == ist->u.store.n;
	for (int d = 0; same && !s->oom && d < ist->u.store.n; d++) {
		stir_expr *e = sched_check(s, stir_expr_copy(c->k,
			ist->u.store.idx[d], &sub));
		same = e && sched_same(s, e, upd->u.store.idx[d]);
	}
	bool guarded = !same || s->oom || same_guard(c, icond, &sub);
	if (s->oom || !same)
		stir_subst_release(&sub);
	if (s->oom)
		return false;
	if (!same) {
		sched_fail(s, init->loc, "init block '%s' does not store the "
			"element of '%s' that block '%s' adds into", init->u.block.name,
			xn, bn);
		return false;
	}
	if (!guarded) {
		stir_subst_release(&sub);
		sched_fail(s, init->loc, "init block '%s' and block '%s' do not "
			"store under the same condition (the block's must decide only "
			"the element of '%s', and the init's be the same)",
			init->u.block.name, bn, xn);
		return false;
	}
	/* both nests run over the same spatial points, each once (the init's
	 * bounds read as the block's variables) */
	sched_path ip = { 0 };
	nest_domain di, dt;
	bool same_points = sched_find_stmt(s, init, &ip) == 0 &&
		find_nest_domain(s, &ip, ip.n, &di) &&
		find_nest_domain(s, &c->path, c->li + 1, &dt) &&
		di.n == dt.n;
	for (int d = 0; same_points && d < di.n; d++) {
		stir_expr *b = sched_check(s, stir_expr_copy(c->k, di.bound[d],
			&sub));
		same_points = b && same_bound(s, b, dt.bound[d]);
	}
	stir_subst_release(&sub);
	sched_path_release(&ip);
	if (s->oom)
		return false;
	if (!same_points) {
		sched_fail(s, init->loc, "cannot show that init block '%s' and "
			"block '%s' run over the same spatial points, each once (every "
			"spatial variable must be a sum of its own loops over [0, N), "
			"bounded by the loops or a split's tail guard, with the same N "
			"in both nests, and the nests may hold no other condition)",
			init->u.block.name, bn);
		return false;
	}
	c->init_value = ist->u.store.value;
	return true;
}
