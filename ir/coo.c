/* The COO arrays of fused iterations: which a kernel takes, how they
 * follow from the indptr arrays, and their checks (see coo.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir/coo.h"

/* The pairs found so far by a walk (a fixed-size view into the caller's
 * arrays, counting past "max"). */
typedef struct pairs {
	int n, max;
	const stir_axis **js, **xs;
} pairs;

/* ps, j, x: add the pair (j, x) unless it is there. */
static void add_pair(pairs *ps, const stir_axis *j, const stir_axis *x)
{
	for (int i = 0; i < ps->n && i < ps->max; i++)
		if (ps->js[i] == j && ps->xs[i] == x)
			return;
	if (ps->n < ps->max) {
		ps->js[ps->n] = j;
		ps->xs[ps->n] = x;
	}
	ps->n++;
}

/* ps, list: the pairs of the fuse groups with coo of the iterations in
 * list and nested in them (stage I). */
static void walk_iters(pairs *ps, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *s = stir_stmt_at(list, i);
		if (s->kind == STIR_STMT_IF) {
			walk_iters(ps, &s->u.if_.then_body);
			walk_iters(ps, &s->u.if_.else_body);
		}
		if (s->kind != STIR_STMT_ITER)
			continue;
		for (int g = 0; g < s->u.iter.n_groups; g++) {
			const stir_iter_group *grp = &s->u.iter.groups[g];
			for (int m = 0; grp->coo && m + 1 < grp->n_axes; m++)
				add_pair(ps, grp->axes[grp->n_axes - 1], grp->axes[m]);
		}
		walk_iters(ps, &s->u.iter.init);
		walk_iters(ps, &s->u.iter.body);
	}
}

int stir_kernel_coo_pairs(const stir_kernel *k, int max,
	const stir_axis **js, const stir_axis **xs)
{
	pairs ps = { 0, max, js, xs };
	if (k->stage == STIR_STAGE_1)
		walk_iters(&ps, &k->body);
	for (int i = 0; k->stage == STIR_STAGE_2 && i < k->buffers.n; i++) {
		const stir_buffer *b = stir_buffer_at(&k->buffers, i);
		if (b->kind == STIR_BUFFER_COO && b->aux_axis && b->coo_axis)
			add_pair(&ps, b->aux_axis, b->coo_axis);
	}
	return ps.n;
}

const char *stir_coo_array_name(stir_ctx *ctx, const stir_axis *j,
	const stir_axis *x)
{
	size_t n = strlen(j->name) + strlen(x->name) + sizeof(".pos_");
	char *buf = malloc(n);
	if (!buf)
		return stir_error_oom(ctx);
	snprintf(buf, n, "%s.pos_%s", j->name, x->name);
	const char *name = stir_ctx_intern(ctx, buf);
	free(buf);
	return name ? name : stir_error_oom(ctx);
}

bool stir_kernel_coo_of_array(const stir_kernel *k, const char *name,
	const stir_axis **j, const stir_axis **x)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	int n = stir_kernel_coo_pairs(k, 0, NULL, NULL);
	const stir_axis **js = calloc((size_t)n + 1, sizeof(*js));
	const stir_axis **xs = calloc((size_t)n + 1, sizeof(*xs));
	bool found = false;
	if (js && xs)
		stir_kernel_coo_pairs(k, n, js, xs);
	for (int i = 0; js && xs && i < n && !found; i++) {
		const char *s = stir_coo_array_name(ctx, js[i], xs[i]);
		if (s && !strcmp(s, name)) {
			*j = js[i];
			*x = xs[i];
			found = true;
		}
	}
	free(js);
	free(xs);
	return found;
}

/* ctx, l, b, j, x, pos, bad: the position of ancestor x above every
 * position of axis j, into pos (npos(j) entries under l), found by
 * following the indptr arrays bound in b from j up to x: a position of a
 * child lies in row r of its indptr array when indptr[r] <= p <
 * indptr[r + 1].  Positions ascend, so each level is one sweep.  0; 1 with
 * *bad naming the indptr array that is missing or does not hold the
 * positions (a broken array: its own check reports it); -1 when memory
 * runs out (reported). */
static int derive(stir_ctx *ctx, const stir_layout *l, const stir_bindings *b,
	const stir_axis *j, const stir_axis *x, int64_t *pos, const char **bad)
{
	int64_t n = l->axes[j->index].npos;
	for (int64_t e = 0; e < n; e++)
		pos[e] = e;
	for (const stir_axis *a = j; a && a != x; a = a->parent) {
		const char *name = stir_axis_indptr_name(ctx, a);
		if (!name)
			return -1;
		const stir_array *ptr = stir_bindings_get_array(b, name);
		*bad = name;
		if (!ptr || !stir_axis_has_indptr(a))
			return 1;
		int64_t np = stir_array_get_len(ptr), r = 0;
		for (int64_t e = 0; e < n; e++) {
			int64_t p = pos[e];
			while (r + 1 < np && stir_array_get_int(ptr, r + 1) <= p)
				r++;
			if (r + 1 >= np || stir_array_get_int(ptr, r) > p)
				return 1;
			pos[e] = r;
		}
	}
	return 0;
}

/* l, j: room for the positions of axis j under l; NULL after reporting
 * that memory ran out. */
static int64_t *positions(const stir_layout *l, const stir_axis *j)
{
	int64_t n = l->axes[j->index].npos;
	int64_t *pos = n >= 0 && (uint64_t)n < SIZE_MAX / 8 ?
		malloc((size_t)(n ? n : 1) * 8) : NULL;
	if (!pos)
		stir_error_oom(stir_kernel_ctx(l->kernel));
	return pos;
}

/* ctx, where, name, a, pos, n, j, x: compare array a ("name") with the
 * derived positions pos (n of them); 0, or -1 with an error at "where"
 * naming the first entry that differs. */
static int compare(stir_ctx *ctx, stir_loc where, const char *name,
	const stir_array *a, const int64_t *pos, int64_t n, const stir_axis *j,
	const stir_axis *x)
{
	for (int64_t e = 0; e < n; e++) {
		int64_t v = stir_array_get_int(a, e);
		if (v != pos[e]) {
			stir_error(ctx, where, "array '%s': entry %" PRId64
				" is %" PRId64 ", but position %" PRId64 " of axis '%s' "
				"lies under position %" PRId64 " of axis '%s' (its "
				"indptr arrays say so)", name, e, v, e, j->name, pos[e],
				x->name);
			return -1;
		}
	}
	return 0;
}

int stir_coo_check(const stir_layout *l, const stir_bindings *b,
	const stir_axis *j, const stir_axis *x)
{
	stir_ctx *ctx = stir_kernel_ctx(l->kernel);
	const char *name = stir_coo_array_name(ctx, j, x);
	if (!name)
		return -1;
	const stir_array *a = stir_bindings_get_array(b, name);
	int64_t n = l->axes[j->index].npos;
	if (!a) {
		stir_error(ctx, stir_loc_none(), "array '%s' is not bound (the "
			"positions of '%s' above those of '%s': stir_kernel_bind_coo "
			"derives it)", name, x->name, j->name);
		return -1;
	}
	if (stir_array_get_dtype(a) != x->idtype ||
	    stir_array_get_len(a) != n) {
		stir_error(ctx, stir_loc_none(), "array '%s' is %s[%" PRId64 "], "
			"expected %s[%" PRId64 "]", name,
			stir_dtype_get_name(stir_array_get_dtype(a)),
			stir_array_get_len(a), stir_dtype_get_name(x->idtype), n);
		return -1;
	}
	int64_t *pos = positions(l, j);
	const char *bad = NULL;
	int rc = pos ? derive(ctx, l, b, j, x, pos, &bad) : -1;
	if (rc > 0)
		stir_error(ctx, stir_loc_none(), "array '%s' cannot be checked: "
			"array '%s' does not hold the positions of '%s'", name, bad,
			j->name);
	if (rc == 0)
		rc = compare(ctx, stir_loc_none(), name, a, pos, n, j, x);
	free(pos);
	return rc ? -1 : 0;
}

int stir_coo_bind(const stir_kernel *k, stir_bindings *b,
	const stir_layout *l, const stir_axis *j, const stir_axis *x,
	stir_loc where)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	const char *name = stir_coo_array_name(ctx, j, x);
	int64_t *pos = name ? positions(l, j) : NULL;
	if (!pos)
		return -1;
	int64_t n = l->axes[j->index].npos;
	const char *bad = NULL;
	int rc = derive(ctx, l, b, j, x, pos, &bad);
	if (rc > 0)
		stir_error(ctx, where, "cannot derive array '%s': array '%s' is "
			"%s", name, bad, stir_bindings_get_array(b, bad) ?
			"not a valid indptr array of the positions" : "not bound");
	const stir_array *have = rc == 0 ? stir_bindings_get_array(b, name) :
		NULL;
	if (have) {
		if (stir_array_get_len(have) != n) {
			stir_error(ctx, where, "array '%s' has %" PRId64 " elements, "
				"expected %" PRId64, name, stir_array_get_len(have), n);
			rc = -1;
		} else {
			rc = compare(ctx, where, name, have, pos, n, j, x);
		}
	} else if (rc == 0) {
		stir_array *a = stir_array_alloc(ctx, x->idtype, 1, &n);
		for (int64_t e = 0; a && e < n; e++)
			stir_array_set_int(a, e, pos[e]);
		if (!a)
			rc = -1;
		else if (stir_bindings_set_array(b, name, a) < 0)
			rc = -1, stir_error_oom(ctx);
	}
	free(pos);
	return rc ? -1 : 0;
}
