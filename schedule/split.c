/* split: one loop becomes n nested loops (include/stir/schedule.h).
 *
 * Requires: a verified stage II or III kernel; the loop is serial (split
 * before annotating), n >= 2 factors, each positive or 0 (at most one 0,
 * inferred as ceil(extent / product of the others)); fixed factors alone
 * must cover a literal extent.
 * Keeps: what the kernel computes.  Every use of the loop variable in the
 * loop's body (bindings, extents, statements) becomes
 * "LOOP_0 * f1 * .. + LOOP_{n-1}" (cast to the old variable's type when
 * the new ones differ), so blocks see the same values.  When the factors
 * do not provably divide the extent, the body is guarded by
 * "LOOP_0 * f1 * .. + LOOP_{n-1} < extent"; the guard goes as deep as it
 * can: through loops whose extents do not use the split variables, so a
 * perfect nest stays perfect down to its first block; a body of several
 * statements without lets, one of them such a loop, is guarded statement
 * by statement (so the loops stay whole: threads bound in them all reach
 * them).
 * Breaks: nothing; loops named LOOP_0 .. LOOP_{n-1} (fresh names when
 * taken). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "schedule/sched.h"

/* e, vars, n: whether e uses any of the n variables. */
static bool uses_any(const stir_expr *e, stir_var *const *vars, int n)
{
	for (int i = 0; i < n; i++)
		if (stir_expr_uses(e, vars[i]))
			return true;
	return false;
}

/* The most loops one split makes (factors of 1 cost nothing to list, so
 * a list of any length could otherwise be written). */
#define SPLIT_MAX_FACTORS 64

/* s, loop, n, factors, inferred: check the factors of a split of loop;
 * *inferred is the index of the 0 factor, or -1.  Whether they are
 * valid. */
static bool check_factors(sched *s, const stir_stmt *loop, int n,
	const int64_t *factors, int *inferred)
{
	const char *name = loop->u.for_.var->name;
	if (n < 2 || !factors) {
		sched_fail(s, loop->loc, "loop '%s' needs at least 2 factors, "
			"not %d", name, factors ? n : 0);
		return false;
	}
	if (n > SPLIT_MAX_FACTORS) {
		sched_fail(s, loop->loc, "loop '%s' is split into %d loops; at most "
			"%d", name, n, SPLIT_MAX_FACTORS);
		return false;
	}
	*inferred = -1;
	int64_t product = 1;
	for (int i = 0; i < n; i++) {
		if (factors[i] < 0) {
			sched_fail(s, loop->loc, "factor %lld of loop '%s' is not "
				"positive", (long long)factors[i], name);
			return false;
		}
		if (factors[i] == 0) {
			if (*inferred >= 0) {
				sched_fail(s, loop->loc, "more than one factor of loop "
					"'%s' is 0 (inferred)", name);
				return false;
			}
			*inferred = i;
			continue;
		}
		if (__builtin_mul_overflow(product, factors[i], &product) ||
		    product > INT32_MAX) {
			sched_fail(s, loop->loc, "the factors of loop '%s' are too "
				"large", name);
			return false;
		}
	}
	if (*inferred >= 0)
		return true;
	int64_t ext;
	if (!sched_int_value(loop->u.for_.extent, &ext)) {
		sched_fail(s, loop->loc, "the fixed factors of loop '%s' cannot "
			"cover its extent %s; make one factor 0 (inferred)", name,
			sched_str(s, loop->u.for_.extent));
		return false;
	}
	if (product < ext) {
		sched_fail(s, loop->loc, "the factors of loop '%s' give %lld "
			"iterations, fewer than its extent %lld", name,
			(long long)product, (long long)ext);
		return false;
	}
	return true;
}

/* st, vars, n: whether the guard can go inside statement st: a loop whose
 * extent does not use the new variables. */
static bool enterable(const stir_stmt *st, stir_var *const *vars, int n)
{
	return st->kind == STIR_STMT_FOR && !uses_any(st->u.for_.extent, vars, n);
}

/* list, vars, n: whether the guard goes on each statement of list
 * separately: there are several, none a let (a let scopes the rest of the
 * list and may read what only the guard makes valid), and the guard can
 * enter one of them.  "if (g) { A; B }" and "if (g) A; if (g) B" are the
 * same, the guard being pure and fixed inside the loop; the second keeps
 * a loop like B whole, so that threads bound inside it all reach it (a
 * cross-thread reduction needs every thread of the warp). */
static bool guard_each(const stir_ptr_vec *list, stir_var *const *vars,
	int n)
{
	bool enter = false;
	if (list->n < 2)
		return false;
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *st = stir_stmt_at(list, i);
		if (st->kind == STIR_STMT_LET)
			return false;
		enter |= enterable(st, vars, n);
	}
	return enter;
}

/* s, list, vars, n, guard: wrap the statements of list (made the body of
 * the innermost new loop) in "if (guard)", as deep as loops whose extents
 * do not use the new variables allow; each statement of a list that
 * guard_each allows gets its own copy of the guard, placed the same
 * way. */
static void place_guard(sched *s, stir_ptr_vec *list, stir_var *const *vars,
	int n, stir_expr *guard)
{
	stir_kernel *k = s->k;
	while (list->n == 1 && enterable(stir_stmt_at(list, 0), vars, n))
		list = &stir_stmt_at(list, 0)->u.for_.body;
	if (guard_each(list, vars, n)) {
		for (int i = 0; i < list->n && !s->oom; i++) {
			/* the statement alone in a list of its own, guarded there */
			stir_ptr_vec one = { 0 };
			stir_expr *g = i ? sched_check(s, stir_expr_copy(k, guard,
				NULL)) : guard;
			if (!g || stir_ptr_vec_push(stir_kernel_arena(k), &one,
			    list->v[i]) < 0) {
				s->oom = true;
				return;
			}
			g->loc = guard->loc;
			place_guard(s, &one, vars, n, g);
			list->v[i] = one.v[0];
		}
		return;
	}
	stir_stmt *g = sched_check(s, stir_stmt_if(k, guard));
	if (!g)
		return;
	g->loc = guard->loc;
	g->u.if_.then_body = *list;
	memset(list, 0, sizeof(*list));
	if (stir_ptr_vec_push(stir_kernel_arena(k), list, g) < 0)
		s->oom = true;
}

int sched_split(sched *s, sched_path *path, int li, int n,
	const int64_t *factors)
{
	stir_kernel *k = s->k;
	stir_stmt *loop = path->stmt[li];
	const char *name = loop->u.for_.var->name;
	const char *ann = sched_loop_annotation(loop);
	if (ann) {
		sched_fail(s, loop->loc, "loop '%s' is %s; split it before "
			"annotating it", name, ann);
		return -1;
	}
	int inferred;
	if (!check_factors(s, loop, n, factors, &inferred))
		return -1;

	/* the extents: literal factors, and the inferred one */
	stir_expr *extent = loop->u.for_.extent;
	int64_t product = 1, ext = 0;
	for (int i = 0; i < n; i++)
		if (i != inferred)
			product *= factors[i];
	stir_expr **exts = sched_check(s, stir_kernel_array(k, (size_t)n,
		sizeof(*exts)));
	stir_var **vars = sched_check(s, stir_kernel_array(k, (size_t)n,
		sizeof(*vars)));
	stir_stmt **loops = sched_check(s, stir_kernel_array(k, (size_t)n,
		sizeof(*loops)));
	if (!exts || !vars || !loops)
		return -1;
	for (int i = 0; i < n; i++) {
		if (i != inferred) {
			exts[i] = sched_check(s, stir_mk_int(k, factors[i]));
		} else if (sched_int_value(extent, &ext) && ext >= 0) {
			exts[i] = sched_check(s, stir_mk_int(k,
				ext / product + (ext % product != 0)));
		} else if (product == 1) {
			exts[i] = sched_check(s, stir_expr_copy(k, extent, NULL));
		} else {
			stir_expr *num = stir_mk_add(k, stir_expr_copy(k, extent, NULL),
				stir_mk_int(k, product - 1));
			exts[i] = sched_check(s, num ? stir_expr_binary(k, STIR_DIV,
				num, stir_mk_int(k, product)) : NULL);
		}
	}
	bool exact = sched_int_value(extent, &ext) && (inferred >= 0 ?
		ext % product == 0 : product == ext);
	if (s->oom)
		return -1;

	/* the new loops, outermost first, named freshly where they are */
	sched_names names;
	if (sched_loop_names(s, path, li, &names) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		const char *base = sched_check(s, stir_kernel_strf(k, "%s_%d", name,
			i));
		const char *vn = base ? sched_names_fresh(s, &names, base) : NULL;
		vars[i] = sched_check(s, vn ? stir_kernel_new_var(k, vn,
			STIR_VAR_LOOP, exts[i]->dtype) : NULL);
		loops[i] = sched_check(s, vars[i] ? stir_stmt_for(k, vars[i],
			exts[i]) : NULL);
		if (!loops[i]) {
			sched_names_release(&names);
			return -1;
		}
		vars[i]->loc = loop->u.for_.var->loc;
		loops[i]->loc = loop->loc;
		sched_made(s, STIR_MADE_LOOP, vn, name);
		if (i && stir_stmt_append_body(loops[i - 1], loops[i]) < 0)
			s->oom = true;
	}
	sched_names_release(&names);
	if (s->oom)
		return -1;

	/* the old variable in terms of the new ones */
	stir_expr *value = stir_mk_var(k, vars[0]);
	for (int i = 1; i < n; i++)
		value = stir_mk_add(k, stir_mk_mul(k, value,
			stir_expr_copy(k, exts[i], NULL)), stir_mk_var(k, vars[i]));
	value = sched_check(s, sched_cast(k, value, loop->u.for_.var->dtype));
	if (!value)
		return -1;
	stir_subst sub = { 0 };
	if (stir_subst_add_expr(&sub, loop->u.for_.var, value) < 0 ||
	    stir_list_subst(k, &loop->u.for_.body, &sub) < 0)
		s->oom = true;
	stir_subst_release(&sub);
	if (s->oom)
		return -1;
	stir_stmt *inner = loops[n - 1];
	inner->u.for_.body = loop->u.for_.body;
	if (!exact) {
		stir_expr *guard = sched_check(s, stir_expr_binary(k, STIR_LT,
			stir_expr_copy(k, value, NULL), stir_expr_copy(k, extent,
			NULL)));
		if (!guard)
			return -1;
		guard->loc = loop->loc;
		place_guard(s, &inner->u.for_.body, vars, n, guard);
	}
	path->list[li]->v[path->index[li]] = loops[0];
	path->stmt[li] = loops[0];
	return s->oom ? -1 : 0;
}

/* k, block, loop, n, factors: see include/stir/schedule.h. */
int stir_split(stir_kernel *k, const char *block, const char *loop, int n,
	const int64_t *factors)
{
	sched s;
	if (sched_begin(&s, k, "split") < 0)
		return -1;
	sched_path p;
	int li;
	if ((li = sched_find_block_loop(&s, block, loop, &p)) >= 0)
		sched_split(&s, &p, li, n, factors);
	sched_path_release(&p);
	char *f = k->log_on ? stir_log_ints(n, factors) : NULL;
	int r = stir_kernel_log_step(k, sched_end(&s), "split: {block: %s, "
		"loop: %s, factors: %s}", block, loop, f ? f : "[]");
	free(f);
	return r;
}
