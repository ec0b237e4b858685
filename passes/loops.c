/* lower_sparse_iter, step 2: nested loop and block generation, with init
 * placement (see passes/passes.h for what it requires and produces).
 *
 * An iteration becomes up to two nests.  The init nest loops over the
 * iteration's spatial axes only and runs the init statements in block
 * NAME_init0 (with copies of the iterators), before anything else of the
 * iteration: so init runs once per spatial point even where the reduction
 * space is empty, and before the first update at that point.  The main
 * nest loops over every axis: one loop per axis, one loop for a fused
 * group.  Loops are grouped into blocks: a new block starts where a loop's
 * extent depends on a variable of the block being built (for CSR, the row
 * length depends on the row), which keeps loops whose extents differ by
 * row from being reordered across each other.
 *
 * Every iterator is given the expressions of its position (relative to its
 * parent's row, as stage II accesses take it), its global position and its
 * coordinate, in terms of the block variables; step 3 rewrites accesses
 * with them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passes/passes.h"
#include "ir/util.h"

/* One loop of a nest. */
typedef struct loop_desc {
	stir_var *loop_var;    /* the loop's variable */
	stir_var *block_var;   /* the block variable bound to it */
	stir_expr *extent;     /* in terms of outer block variables */
	char kind;             /* 'S' or 'R' */
	stir_ptr_vec lets;     /* lets that belong at the top of the block that
	                          binds block_var (fused row searches) */
} loop_desc;

/* The state of the pass over one kernel. */
typedef struct gen {
	stir_kernel *k;
	stir_names names;      /* variable names in scope, for fresh ones */
	stir_names blocks;     /* block names in the kernel */
	stir_var **scope;      /* iterators of enclosing iterations, innermost
	                          last (heap array) */
	int n_scope, cap_scope;
	loop_desc *loops;      /* the nest being built (heap array) */
	int n_loops, cap_loops;
	bool failed;           /* out of memory */
} gen;

/* g, p: p, or note that memory ran out. */
static void *check(gen *g, void *p)
{
	if (!p)
		g->failed = true;
	return p;
}

/* g, v: make iterator v visible to the iterations nested in its own. */
static void scope_push(gen *g, stir_var *v)
{
	if (g->n_scope == g->cap_scope) {
		int cap = g->cap_scope ? 2 * g->cap_scope : 16;
		stir_var **s = realloc(g->scope, (size_t)cap * sizeof(*s));
		if (!check(g, s))
			return;
		g->scope = s;
		g->cap_scope = cap;
	}
	g->scope[g->n_scope++] = v;
}

/* g, a: the innermost iterator in scope of axis a (the position a child of
 * a is iterated under). */
static stir_var *scope_find(const gen *g, const stir_axis *a)
{
	for (int i = g->n_scope - 1; i >= 0; i--)
		if (g->scope[i]->axis == a)
			return g->scope[i];
	return NULL;
}

/* g: a new empty loop descriptor at the end of the nest. */
static loop_desc *new_loop(gen *g)
{
	if (g->n_loops == g->cap_loops) {
		int cap = g->cap_loops ? 2 * g->cap_loops : 8;
		loop_desc *l = realloc(g->loops, (size_t)cap * sizeof(*l));
		if (!check(g, l))
			return NULL;
		g->loops = l;
		g->cap_loops = cap;
	}
	loop_desc *l = &g->loops[g->n_loops++];
	memset(l, 0, sizeof(*l));
	return l;
}

/* g, base, kind: a fresh variable named after base. */
static stir_var *fresh_var(gen *g, const char *base, stir_var_kind kind,
	stir_dtype t)
{
	const char *name = stir_names_fresh(&g->names, base);
	return check(g, name ? stir_kernel_new_var(g->k, name, kind, t) : NULL);
}

/* extent, fallback: the type of a loop over "extent" and of its block
 * variable: the extent's own (a loop variable has its extent's type,
 * docs/ir.md), so that an i64 size gives an i64 loop and an i64 index
 * type over i32 sizes an i32 one; "fallback" when the extent is missing
 * (memory ran out, reported by the caller).  The iterator keeps its axis's
 * index type: step 3 casts its coordinate where the two differ. */
static stir_dtype loop_type(const stir_expr *extent, stir_dtype fallback)
{
	return extent && stir_dtype_is_int(extent->dtype) ? extent->dtype :
		fallback;
}

/* g, a, p: the first position of child axis a under global parent position
 * p (p may be one past the parent's last position). */
static stir_expr *child_start(gen *g, const stir_axis *a, stir_expr *p)
{
	stir_kernel *k = g->k;
	if (a->kind == STIR_SPARSE_FIXED)
		return stir_mk_mul(k, p, stir_expr_copy(k, a->nnz, NULL));
	return stir_mk_load1(k, a->indptr_buf, p);
}

/* g, a, pv: the number of positions of axis a under the current position of
 * iterator pv (NULL for a root). */
static stir_expr *axis_extent(gen *g, const stir_axis *a, const stir_var *pv)
{
	stir_kernel *k = g->k;
	switch (a->kind) {
	case STIR_DENSE_FIXED:
		return stir_expr_copy(k, a->len, NULL);
	case STIR_SPARSE_FIXED:
		return stir_expr_copy(k, a->nnz, NULL);
	default: {
		stir_expr *p = stir_expr_copy(k, pv->gpos, NULL);
		stir_expr *p1 = stir_mk_add(k, stir_expr_copy(k, pv->gpos, NULL),
			stir_mk_int(k, 1));
		return stir_mk_sub(k, stir_mk_load1(k, a->indptr_buf, p1),
			stir_mk_load1(k, a->indptr_buf, p));
	}
	}
}

/* g, v, a, pv, gpos: record on iterator v of axis a, iterated under pv, its
 * global position gpos and the relative position and coordinate that
 * follow from it. */
static void set_position(gen *g, stir_var *v, const stir_axis *a,
	stir_var *pv, stir_expr *gpos)
{
	stir_kernel *k = g->k;
	v->parent_var = pv;
	v->gpos = gpos;
	v->pos = pv ? stir_mk_sub(k, stir_expr_copy(k, gpos, NULL),
		child_start(g, a, stir_expr_copy(k, pv->gpos, NULL))) : gpos;
	if (a->kind == STIR_SPARSE_FIXED || a->kind == STIR_SPARSE_VARIABLE)
		v->coord = stir_mk_load1(k, a->indices_buf,
			stir_expr_copy(k, gpos, NULL));
	else
		v->coord = stir_expr_copy(k, v->pos, NULL);
	check(g, v->pos && v->coord ? v : NULL);
}

/* g, v, a, pv, kind: one loop over the positions of axis a under iterator
 * pv, iterated by v. */
static void add_axis_loop(gen *g, stir_var *v, const stir_axis *a, stir_var *pv,
	char kind)
{
	loop_desc *l = new_loop(g);
	if (!l)
		return;
	const char *base = check(g, stir_kernel_strf(g->k, "v%s", v->name));
	l->extent = check(g, axis_extent(g, a, pv));
	stir_dtype t = loop_type(l->extent, v->dtype);
	l->loop_var = fresh_var(g, v->name, STIR_VAR_LOOP, t);
	l->block_var = base ? fresh_var(g, base, STIR_VAR_BLOCK, t) : NULL;
	l->kind = kind;
	if (!l->loop_var || !l->block_var)
		return;
	/* diagnostics about the loop point at the iterator it comes from */
	l->loop_var->loc = l->block_var->loc = v->loc;
	stir_expr *bv = stir_mk_var(g->k, l->block_var);
	stir_expr *gpos = pv ? stir_mk_add(g->k,
		child_start(g, a, stir_expr_copy(g->k, pv->gpos, NULL)), bv) : bv;
	set_position(g, v, a, pv, check(g, gpos));
}

/* g, l, base, value: append "let BASE = value" (a fresh name) to the lets
 * of loop l; returns the let's variable. */
static stir_var *add_let(gen *g, loop_desc *l, const char *base,
	stir_expr *value)
{
	stir_stmt *s = check(g, value ? stir_stmt_let(g->k,
		stir_names_fresh(&g->names, base), value) : NULL);
	if (!s || !check(g, stir_ptr_vec_push(stir_kernel_arena(g->k), &l->lets,
		s) == 0 ? s : NULL))
		return NULL;
	return s->u.let.var;
}

/* g, n, vars: the names of the n iterators vars one after another, in
 * k's arena (a fused loop's name); NULL when memory runs out. */
static const char *fused_name(gen *g, int n, stir_var *const *vars)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(vars[i]->name);
	char *name = check(g, stir_kernel_array(g->k, len, 1));
	if (!name)
		return NULL;
	int at = 0;
	for (int i = 0; i < n; i++) {
		size_t m = strlen(vars[i]->name);
		memcpy(name + at, vars[i]->name, m);
		at += m;
	}
	name[at] = '\0';
	return name;
}

/* g, grp, vars, kind: one loop for the fuse group grp (iterators vars),
 * over the global positions of its last member within the range of its
 * first; the other members' positions come from upper-bound searches of
 * the row that holds their child's position ("let vi = upper_bound(..) -
 * 1" at the top of the block), or, in a group with coo, from its COO
 * arrays ("let vi = J_pos_I[..]", one load each, indexed by the last
 * member's position). */
static void add_fused_loop(gen *g, const stir_iter_group *grp,
	stir_var *const *vars, char kind)
{
	stir_kernel *k = g->k;
	int n = grp->n_axes;
	const stir_axis *first = grp->axes[0];
	stir_var *pv = first->parent ? scope_find(g, first->parent) : NULL;
	stir_expr **lo = check(g, stir_kernel_array(k, (size_t)n, sizeof(*lo)));
	stir_expr **hi = check(g, stir_kernel_array(k, (size_t)n, sizeof(*hi)));
	stir_expr **gpos = check(g, stir_kernel_array(k, (size_t)n,
		sizeof(*gpos)));
	if (!lo || !hi || !gpos)
		return;
	if (!pv) {
		/* validated structure arrays start at 0 and end at NNZ */
		for (int i = 0; i < n; i++) {
			lo[i] = stir_mk_int(k, 0);
			hi[i] = stir_axis_npos_expr(k, grp->axes[i]);
		}
	} else {
		lo[0] = child_start(g, first, stir_expr_copy(k, pv->gpos, NULL));
		hi[0] = child_start(g, first, stir_mk_add(k,
			stir_expr_copy(k, pv->gpos, NULL), stir_mk_int(k, 1)));
		for (int i = 1; i < n; i++) {
			lo[i] = child_start(g, grp->axes[i], stir_expr_copy(k, lo[i - 1], NULL));
			hi[i] = child_start(g, grp->axes[i], stir_expr_copy(k, hi[i - 1], NULL));
		}
	}
	loop_desc *l = new_loop(g);
	if (!l)
		return;
	const char *name = fused_name(g, n, vars);
	const char *base = name ? check(g, stir_kernel_strf(k, "v%s", name)) : NULL;
	l->extent = check(g, stir_mk_sub(k, stir_expr_copy(k, hi[n - 1], NULL),
		stir_expr_copy(k, lo[n - 1], NULL)));
	stir_dtype t = loop_type(l->extent, vars[n - 1]->dtype);
	l->loop_var = base ? fresh_var(g, name, STIR_VAR_LOOP, t) : NULL;
	l->block_var = base ? fresh_var(g, base, STIR_VAR_BLOCK, t) : NULL;
	l->kind = kind;
	if (!l->loop_var || !l->block_var)
		return;
	l->loop_var->loc = l->block_var->loc = vars[n - 1]->loc;
	gpos[n - 1] = stir_mk_add(k, stir_expr_copy(k, lo[n - 1], NULL),
		stir_mk_var(k, l->block_var));
	for (int i = n - 2; i >= 0; i--) {
		const stir_axis *child = grp->axes[i + 1];
		stir_expr *row;
		stir_buffer *coo = grp->coo ? stir_kernel_coo_buffer(k,
			grp->axes[n - 1], grp->axes[i]) : NULL;
		if (grp->coo && !coo) {
			g->failed = true;
			return;
		}
		if (coo) {
			row = stir_mk_load1(k, coo, stir_expr_copy(k, gpos[n - 1],
				NULL));
		} else if (child->kind == STIR_SPARSE_FIXED) {
			row = stir_expr_binary(k, STIR_DIV,
				stir_expr_copy(k, gpos[i + 1], NULL),
				stir_expr_copy(k, child->nnz, NULL));
		} else {
			row = stir_mk_sub(k, stir_expr_search(k, STIR_UPPER_BOUND,
				child->indptr_buf, stir_expr_copy(k, lo[i], NULL),
				stir_mk_add(k, stir_expr_copy(k, hi[i], NULL),
					stir_mk_int(k, 1)),
				stir_expr_copy(k, gpos[i + 1], NULL)), stir_mk_int(k, 1));
		}
		const char *let_base = check(g, stir_kernel_strf(k, "v%s",
			vars[i]->name));
		stir_var *let = let_base ? add_let(g, l, let_base, row) : NULL;
		gpos[i] = let ? stir_mk_var(k, let) : NULL;
	}
	if (g->failed)
		return;
	/* the lets stay innermost member first: each row search takes the
	 * position the previous one found */
	for (int i = 0; i < n; i++)
		set_position(g, vars[i], grp->axes[i], i ? vars[i - 1] : pv, gpos[i]);
}

/* g, it, vars, init: build the loop descriptors of iteration it with
 * iterators vars (copies of it's own for the init nest).  For the init nest
 * only spatial members get loops, a fuse group only as a whole when all its
 * members are spatial.  Each iterator enters the scope as its loop is
 * made, so that later members find their parents. */
static void describe_loops(gen *g, const stir_stmt *it, stir_var *const *vars,
	bool init)
{
	const char *kinds = it->u.iter.kinds;
	for (int gi = 0, m = 0; gi < it->u.iter.n_groups; gi++) {
		const stir_iter_group *grp = &it->u.iter.groups[gi];
		bool all_spatial = true;
		for (int i = 0; i < grp->n_axes; i++)
			all_spatial &= kinds[m + i] == 'S';
		if (grp->kind == STIR_GROUP_FUSE && (!init || all_spatial)) {
			add_fused_loop(g, grp, vars + m, all_spatial ? 'S' : 'R');
			for (int i = 0; i < grp->n_axes; i++)
				scope_push(g, vars[m + i]);
		} else {
			for (int i = 0; i < grp->n_axes; i++) {
				if (init && kinds[m + i] != 'S')
					continue;
				const stir_axis *a = grp->axes[i];
				const stir_axis *p = grp->kind == STIR_GROUP_ATTACH ?
					grp->attach_parent : a->parent;
				add_axis_loop(g, vars[m + i], a,
					p ? scope_find(g, p) : NULL, kinds[m + i]);
				scope_push(g, vars[m + i]);
			}
		}
		m += grp->n_axes;
	}
}

/* l, loops, from, to: whether the extent of loop l uses a block variable or a let of
 * the loops [from, to) (the block being built). */
static bool depends_on(const loop_desc *l, const loop_desc *loops, int from,
	int to)
{
	for (int i = from; i < to; i++) {
		if (stir_expr_uses(l->extent, loops[i].block_var))
			return true;
		for (int j = 0; j < loops[i].lets.n; j++)
			if (stir_expr_uses(l->extent,
				stir_stmt_at(&loops[i].lets, j)->u.let.var))
				return true;
	}
	return false;
}

/* g, from, to, name, body: the statements of loops [from, to) wrapped
 * around block "name" whose body is the group's lets then "body". */
static stir_stmt *build_group(gen *g, int from, int to, const char *name,
	stir_ptr_vec *body)
{
	stir_kernel *k = g->k;
	int n = to - from;
	stir_var **vars = check(g, stir_kernel_array(k, (size_t)n, sizeof(*vars)));
	stir_expr **bindings = check(g, stir_kernel_array(k, (size_t)n,
		sizeof(*bindings)));
	char *kinds = check(g, stir_kernel_array(k, (size_t)n + 1, 1));
	if (!vars || !bindings || !kinds)
		return NULL;
	for (int i = 0; i < n; i++) {
		vars[i] = g->loops[from + i].block_var;
		bindings[i] = stir_mk_var(k, g->loops[from + i].loop_var);
		kinds[i] = g->loops[from + i].kind;
	}
	kinds[n] = '\0';
	stir_stmt *block = check(g, stir_stmt_block(k, stir_names_fresh(&g->blocks,
		name), n, vars, bindings, kinds));
	if (!block)
		return NULL;
	for (int i = from; i < to; i++)
		for (int j = 0; j < g->loops[i].lets.n; j++)
			check(g, stir_stmt_append_body(block,
				stir_stmt_at(&g->loops[i].lets, j)) == 0 ? block : NULL);
	for (int i = 0; i < body->n; i++)
		check(g, stir_stmt_append_body(block, stir_stmt_at(body, i)) == 0 ?
			block : NULL);
	stir_stmt *s = block;
	for (int i = to - 1; i >= from; i--) {
		stir_stmt *f = check(g, stir_stmt_for(k, g->loops[i].loop_var,
			g->loops[i].extent));
		if (!f || stir_stmt_append_body(f, s) < 0)
			return check(g, NULL);
		s = f;
	}
	return s;
}

/* g, prefix, body, innermost: the nest of the loops described in g->loops
 * around "body", cut into blocks prefix0, prefix1, ...; *innermost is the
 * block that holds "body".  A nest without loops is a single block with no
 * variables. */
static stir_stmt *build_nest(gen *g, const char *prefix, stir_ptr_vec *body,
	stir_stmt **innermost)
{
	/* cuts[i]: the first loop of block i */
	int *cuts = check(g, stir_kernel_array(g->k, (size_t)g->n_loops + 2,
		sizeof(*cuts)));
	int n_blocks = 0;
	if (!cuts)
		return NULL;
	cuts[n_blocks++] = 0;
	for (int i = 1; i < g->n_loops; i++)
		if (depends_on(&g->loops[i], g->loops, cuts[n_blocks - 1], i))
			cuts[n_blocks++] = i;
	cuts[n_blocks] = g->n_loops;
	/* build inside out: each block's body is the next group's nest */
	stir_ptr_vec inner = *body;
	stir_stmt *s = NULL;
	for (int b = n_blocks - 1; b >= 0; b--) {
		const char *name = check(g, stir_kernel_strf(g->k, "%s%d", prefix, b));
		s = name ? build_group(g, cuts[b], cuts[b + 1], name, &inner) : NULL;
		if (!s)
			return NULL;
		if (b == n_blocks - 1) {
			*innermost = s;
			while ((*innermost)->kind == STIR_STMT_FOR)
				*innermost = stir_stmt_at(&(*innermost)->u.for_.body, 0);
		}
		memset(&inner, 0, sizeof(inner));
		if (stir_ptr_vec_push(stir_kernel_arena(g->k), &inner, s) < 0)
			return check(g, NULL);
	}
	return s;
}

static void lower_list(gen *g, stir_ptr_vec *list);

/* g, it, init, nest, innermost: link the blocks of "nest" (built by
 * build_nest for iteration it, its init nest when "init") to the
 * iteration, and record them, outermost first, as made from it
 * (stir_kernel_get_made). */
static void record_blocks(gen *g, const stir_stmt *it, bool init,
	stir_stmt *nest, const stir_stmt *innermost)
{
	stir_made_kind kind = init ? STIR_MADE_INIT_BLOCK : STIR_MADE_BLOCK;
	const char *iter = stir_ctx_intern(stir_kernel_ctx(g->k),
		it->u.iter.name);
	if (!iter)
		g->failed = true;
	for (stir_stmt *s = nest; s && !g->failed; ) {
		if (s->kind == STIR_STMT_BLOCK) {
			s->u.block.iter = iter;
			s->u.block.init = init;
			if (stir_made_add(g->k, kind, s->u.block.name, iter) < 0)
				g->failed = true;
		}
		/* the next block of the nest: past the lets that a fused
		 * iteration's block begins with (the relation of a pair) */
		stir_ptr_vec *body = stir_stmt_body(s);
		int at = 0;
		while (body && at < body->n &&
		       stir_stmt_at(body, at)->kind == STIR_STMT_LET)
			at++;
		s = s == innermost || !body || at == body->n ? NULL :
			stir_stmt_at(body, at);
	}
}

/* g, it, vars, prefix, body, out: the nest of iteration it over iterators
 * vars (its own, or copies for the init nest) around "body", appended to
 * out.  The body, now in the innermost block, is lowered in turn with the
 * iterators in scope, since it may hold iterations of its own. */
static void lower_nest(gen *g, const stir_stmt *it, stir_var *const *vars,
	bool init, const char *prefix, stir_ptr_vec *body, stir_ptr_vec *out)
{
	int scope = g->n_scope, names = stir_names_mark(&g->names);
	g->n_loops = 0;
	describe_loops(g, it, vars, init);
	stir_stmt *innermost = NULL;
	stir_stmt *nest = g->failed ? NULL : build_nest(g, prefix, body, &innermost);
	if (nest && stir_ptr_vec_push(stir_kernel_arena(g->k), out, nest) < 0)
		g->failed = true;
	if (nest && !g->failed)
		record_blocks(g, it, init, nest, innermost);
	if (nest && !g->failed)
		lower_list(g, &innermost->u.block.body);
	g->n_scope = scope;
	stir_names_reset(&g->names, names);
}

/* g, it, out: the init nest of iteration it, appended to out.  The init
 * statements are copied with copies of the iterators, which get positions
 * of their own in this nest. */
static void lower_init(gen *g, stir_stmt *it, stir_ptr_vec *out)
{
	stir_kernel *k = g->k;
	int n = it->u.iter.n_vars;
	stir_subst subst = { 0 };
	stir_var **copies = check(g, stir_kernel_array(k, (size_t)n,
		sizeof(*copies)));
	for (int i = 0; i < n && !g->failed; i++) {
		const stir_var *v = it->u.iter.vars[i];
		copies[i] = check(g, stir_kernel_new_var(k, v->name, STIR_VAR_ITER,
			v->dtype));
		if (!copies[i] || stir_subst_add_var(&subst, v, copies[i]) < 0) {
			g->failed = true;
			break;
		}
		copies[i]->axis = v->axis;
		copies[i]->loc = v->loc;
	}
	stir_ptr_vec body = { 0 };
	for (int i = 0; i < it->u.iter.init.n && !g->failed; i++) {
		stir_stmt *c = check(g, stir_stmt_copy(k,
			stir_stmt_at(&it->u.iter.init, i), &subst));
		if (c && stir_ptr_vec_push(stir_kernel_arena(k), &body, c) < 0)
			g->failed = true;
	}
	stir_subst_release(&subst);
	const char *prefix = check(g, stir_kernel_strf(g->k, "%s_init",
		it->u.iter.name));
	if (!g->failed)
		lower_nest(g, it, copies, true, prefix, &body, out);
}

/* g, list: replace every iteration in list (and in lists nested in its
 * statements) by its nests. */
static void lower_list(gen *g, stir_ptr_vec *list)
{
	stir_ptr_vec out = { 0 };
	bool changed = false;
	for (int i = 0; i < list->n && !g->failed; i++) {
		stir_stmt *s = stir_stmt_at(list, i);
		if (s->kind == STIR_STMT_ITER) {
			if (s->u.iter.init.n)
				lower_init(g, s, &out);
			lower_nest(g, s, s->u.iter.vars, false, s->u.iter.name,
				&s->u.iter.body, &out);
			changed = true;
			continue;
		}
		if (s->kind == STIR_STMT_IF) {
			lower_list(g, &s->u.if_.then_body);
			lower_list(g, &s->u.if_.else_body);
		}
		if (stir_ptr_vec_push(stir_kernel_arena(g->k), &out, s) < 0)
			g->failed = true;
	}
	if (changed && !g->failed)
		*list = out;
}

int stir_generate_loops(stir_kernel *k)
{
	gen g = { .k = k };
	if (stir_names_init(&g.names, k) < 0 || stir_names_init(&g.blocks, k) < 0)
		g.failed = true;
	else
		lower_list(&g, &k->body);
	stir_names_release(&g.names);
	stir_names_release(&g.blocks);
	free(g.scope);
	free(g.loops);
	if (g.failed) {
		stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	return 0;
}
