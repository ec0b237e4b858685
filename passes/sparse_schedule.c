/* The stage I schedules sparse_reorder and sparse_fuse
 * (include/stir/passes.h).
 *
 * Requires: a verified stage I kernel.  Both analyse the request fully
 * before changing anything; the rewrite only permutes or regroups the
 * iteration's axis list (with its iterators and letters), then the kernel
 * is verified, and on any failure the old list is put back. */
#include <stdlib.h>
#include <string.h>
#include <stir/passes.h>
#include "ir/nodes.h"
#include "ir/util.h"

/* list, name: the iteration called "name" in list or nested in it. */
static stir_stmt *find_iter_in(stir_ptr_vec *list, const char *name)
{
	for (int i = 0; i < list->n; i++) {
		stir_stmt *s = stir_stmt_at(list, i);
		stir_stmt *found = NULL;
		if (s->kind == STIR_STMT_ITER) {
			if (!strcmp(s->u.iter.name, name))
				return s;
			found = find_iter_in(&s->u.iter.body, name);
			if (!found)
				found = find_iter_in(&s->u.iter.init, name);
		} else if (s->kind == STIR_STMT_IF) {
			found = find_iter_in(&s->u.if_.then_body, name);
			if (!found)
				found = find_iter_in(&s->u.if_.else_body, name);
		}
		if (found)
			return found;
	}
	return NULL;
}

/* k, what, iter: the stage I iteration "iter" of k, or NULL with an error
 * naming the schedule "what". */
static stir_stmt *find_iter(stir_kernel *k, const char *what, const char *iter)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	if (k->stage != STIR_STAGE_1) {
		stir_error(ctx, k->loc, "%s: kernel '%s' is at stage %d; stage I "
			"schedules apply before lower_sparse_iter", what, k->name,
			(int)k->stage);
		return NULL;
	}
	stir_stmt *s = iter ? find_iter_in(&k->body, iter) : NULL;
	if (!s)
		stir_error(ctx, k->loc, "%s: kernel '%s' has no iteration '%s'", what,
			k->name, iter ? iter : "(null)");
	return s;
}

/* s, name: the index of iterator "name" of iteration s, or -1. */
static int var_index(const stir_stmt *s, const char *name)
{
	for (int i = 0; i < s->u.iter.n_vars; i++)
		if (name && !strcmp(s->u.iter.vars[i]->name, name))
			return i;
	return -1;
}

/* s, v: the group holding iterator v and, in *first, its first iterator. */
static int group_of(const stir_stmt *s, int v, int *first)
{
	for (int g = 0, m = 0; g < s->u.iter.n_groups; g++) {
		if (v < m + s->u.iter.groups[g].n_axes) {
			*first = m;
			return g;
		}
		m += s->u.iter.groups[g].n_axes;
	}
	return -1;
}

/* The parts of an iteration a schedule rewrites, saved to undo it. */
typedef struct iter_shape {
	int n_groups;
	stir_iter_group *groups;
	stir_var **vars;
	char *kinds;
} iter_shape;

/* k, s, saved: take a copy of s's shape; -1 when memory runs out. */
static int save_shape(stir_kernel *k, const stir_stmt *s, iter_shape *saved)
{
	stir_arena *ar = stir_kernel_arena(k);
	int ng = s->u.iter.n_groups, nv = s->u.iter.n_vars;
	saved->n_groups = ng;
	saved->groups = stir_arena_alloc(ar, (size_t)(ng ? ng : 1) * sizeof(stir_iter_group));
	saved->vars = stir_arena_alloc(ar, (size_t)(nv ? nv : 1) * sizeof(stir_var *));
	saved->kinds = stir_arena_strdup(ar, s->u.iter.kinds);
	if (!saved->groups || !saved->vars || !saved->kinds)
		return -1;
	memcpy(saved->groups, s->u.iter.groups, (size_t)ng * sizeof(stir_iter_group));
	memcpy(saved->vars, s->u.iter.vars, (size_t)nv * sizeof(stir_var *));
	return 0;
}

/* s, shape: make shape the iteration's own. */
static void set_shape(stir_stmt *s, const iter_shape *shape)
{
	s->u.iter.n_groups = shape->n_groups;
	s->u.iter.groups = shape->groups;
	s->u.iter.vars = shape->vars;
	s->u.iter.kinds = shape->kinds;
}

/* k, s, shape, what: install shape, verify, and undo when it fails. */
static int apply_shape(stir_kernel *k, stir_stmt *s, const iter_shape *shape,
	const char *what)
{
	iter_shape old;
	if (save_shape(k, s, &old) < 0) {
		stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	set_shape(s, shape);
	if (stir_kernel_verify(k) == 0)
		return 0;
	set_shape(s, &old);
	stir_error(stir_kernel_ctx(k), s->loc, "%s of iteration '%s' would make "
		"an invalid program (see the errors above)", what, s->u.iter.name);
	return -1;
}

/* k, iter, n, order: stir_sparse_reorder before the collection. */
static int sparse_reorder(stir_kernel *k, const char *iter, int n,
	const char *const *order)
{
	stir_made_clear(k);
	stir_ctx *ctx = stir_kernel_ctx(k);
	stir_stmt *s = find_iter(k, "sparse_reorder", iter);
	if (!s)
		return -1;
	int nv = s->u.iter.n_vars;
	if (n != nv) {
		stir_error(ctx, s->loc, "sparse_reorder: iteration '%s' has %d "
			"iterators, the order lists %d", iter, nv, n);
		return -1;
	}
	bool *used = stir_kernel_array(k, (size_t)nv, sizeof(*used));
	iter_shape shape;
	if (!used || save_shape(k, s, &shape) < 0) {
		stir_error_oom(ctx);
		return -1;
	}
	int ng = 0, m = 0;
	for (int i = 0; i < n; ) {
		int v = var_index(s, order[i]), first = 0;
		if (v < 0 || used[v]) {
			stir_error(ctx, s->loc, "sparse_reorder: '%s' is %s of "
				"iteration '%s'", order[i] ? order[i] : "(null)",
				v < 0 ? "not an iterator" : "listed twice, or part of a "
				"fuse group listed already,", iter);
			return -1;
		}
		int g = group_of(s, v, &first);
		const stir_iter_group *grp = &s->u.iter.groups[g];
		/* a fuse group moves whole, its members in their own order */
		for (int j = 0; j < grp->n_axes; j++) {
			if (i + j >= n || var_index(s, order[i + j]) != first + j) {
				stir_error(ctx, s->loc, "sparse_reorder: the fused "
					"iterators of '%s' must stay together and in order",
					iter);
				return -1;
			}
			used[first + j] = true;
			shape.vars[m] = s->u.iter.vars[first + j];
			shape.kinds[m] = s->u.iter.kinds[first + j];
			m++;
		}
		shape.groups[ng++] = *grp;
		i += grp->n_axes;
	}
	/* an axis may not come before its parent (or attach parent) */
	for (int i = 0; i < nv; i++) {
		const stir_axis *a = shape.vars[i]->axis;
		int g, first;
		g = group_of(s, var_index(s, shape.vars[i]->name), &first);
		const stir_iter_group *grp = &s->u.iter.groups[g];
		const stir_axis *p = grp->kind == STIR_GROUP_ATTACH ?
			grp->attach_parent : a->parent;
		for (int j = i + 1; p && j < nv; j++) {
			if (shape.vars[j]->axis == p) {
				stir_error(ctx, s->loc, "sparse_reorder: axis '%s' would be "
					"iterated before its parent '%s'", a->name, p->name);
				return -1;
			}
		}
	}
	return apply_shape(k, s, &shape, "sparse_reorder");
}

/* k, iter, n, order: the pass, then the module's arena collected
 * (stir_module_collect keeps what the kernels reach). */
int stir_sparse_reorder(stir_kernel *k, const char *iter, int n,
	const char *const *order)
{
	int r = sparse_reorder(k, iter, n, order);
	if (k)
		(void)stir_module_collect(k->module);
	char *l = k && k->log_on ? stir_log_names(n, order) : NULL;
	r = stir_kernel_log_step(k, r, "sparse_reorder: {iter: %s, order: %s}", iter,
		l ? l : "[]");
	free(l);
	return r;
}

/* k, iter, n, iters, coo: stir_sparse_fuse (stir_sparse_fuse_coo when
 * "coo") before the collection. */
static int sparse_fuse(stir_kernel *k, const char *iter, int n,
	const char *const *iters, bool coo)
{
	stir_made_clear(k);
	stir_ctx *ctx = stir_kernel_ctx(k);
	stir_stmt *s = find_iter(k, "sparse_fuse", iter);
	if (!s)
		return -1;
	if (n < 2) {
		stir_error(ctx, s->loc, "sparse_fuse: fusing needs at least two "
			"iterators");
		return -1;
	}
	int v0 = var_index(s, iters[0]);
	for (int i = 0; i < n; i++) {
		int v = var_index(s, iters[i]);
		if (v < 0) {
			stir_error(ctx, s->loc, "sparse_fuse: '%s' is not an iterator of "
				"iteration '%s'", iters[i] ? iters[i] : "(null)", iter);
			return -1;
		}
		if (v != v0 + i) {
			stir_error(ctx, s->loc, "sparse_fuse: the iterators to fuse must "
				"be adjacent and in order in iteration '%s'", iter);
			return -1;
		}
		if (i > 0 && s->u.iter.vars[v]->axis->parent !=
		    s->u.iter.vars[v - 1]->axis) {
			stir_error(ctx, s->loc, "sparse_fuse: '%s' is not the parent of "
				"'%s': fused axes must form a parent chain",
				s->u.iter.vars[v - 1]->axis->name,
				s->u.iter.vars[v]->axis->name);
			return -1;
		}
	}
	/* the fused iterators must cover whole groups, none attached */
	int first = 0, last_first = 0, g0 = group_of(s, v0, &first);
	int g1 = group_of(s, v0 + n - 1, &last_first);
	if (first != v0 || last_first + s->u.iter.groups[g1].n_axes != v0 + n) {
		stir_error(ctx, s->loc, "sparse_fuse: the iterators would split a "
			"fuse group of iteration '%s'", iter);
		return -1;
	}
	for (int g = g0; g <= g1; g++) {
		if (s->u.iter.groups[g].kind == STIR_GROUP_ATTACH) {
			stir_error(ctx, s->loc, "sparse_fuse: cannot fuse the attached "
				"axis '%s'", s->u.iter.groups[g].axes[0]->name);
			return -1;
		}
	}
	iter_shape shape;
	if (save_shape(k, s, &shape) < 0)
		goto oom;
	stir_axis **axes = stir_arena_alloc(stir_kernel_arena(k),
		(size_t)n * sizeof(*axes));
	if (!axes)
		goto oom;
	for (int i = 0; i < n; i++)
		axes[i] = s->u.iter.vars[v0 + i]->axis;
	/* fusing one group again (a no-op) keeps its COO arrays */
	stir_iter_group fused = { STIR_GROUP_FUSE, n, axes, NULL,
		coo || (g0 == g1 && s->u.iter.groups[g0].coo) };
	shape.groups[g0] = fused;
	memmove(&shape.groups[g0 + 1], &s->u.iter.groups[g1 + 1],
		(size_t)(s->u.iter.n_groups - g1 - 1) * sizeof(stir_iter_group));
	shape.n_groups = s->u.iter.n_groups - (g1 - g0);
	return apply_shape(k, s, &shape, "sparse_fuse");
oom:
	stir_error_oom(ctx);
	return -1;
}

/* k, iter, n, iters, coo: the pass, then the module's arena collected
 * (stir_module_collect keeps what the kernels reach), then logged. */
static int fuse_logged(stir_kernel *k, const char *iter, int n,
	const char *const *iters, bool coo)
{
	int r = sparse_fuse(k, iter, n, iters, coo);
	if (k)
		(void)stir_module_collect(k->module);
	char *l = k && k->log_on ? stir_log_names(n, iters) : NULL;
	r = stir_kernel_log_step(k, r, "sparse_fuse: {iter: %s, iters: %s%s}",
		iter, l ? l : "[]", coo ? ", coo: true" : "");
	free(l);
	return r;
}

/* k, iter, n, iters: see include/stir/passes.h. */
int stir_sparse_fuse(stir_kernel *k, const char *iter, int n,
	const char *const *iters)
{
	return fuse_logged(k, iter, n, iters, false);
}

/* k, iter, n, iters: see include/stir/passes.h. */
int stir_sparse_fuse_coo(stir_kernel *k, const char *iter, int n,
	const char *const *iters)
{
	return fuse_logged(k, iter, n, iters, true);
}
