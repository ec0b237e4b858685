/* fuse: perfectly nested loops become one (include/stir/schedule.h).
 *
 * Requires: a verified stage II or III kernel; n >= 2 serial loops around
 * the block, listed outermost first, each the only statement of the one
 * before; no inner extent uses an outer loop of the group.
 * Keeps: what the kernel computes, in the same order: the fused loop f
 * runs over the product of the extents and each old variable becomes
 * f / (product of the extents inside it) % its extent (the outermost
 * without the %, the innermost without the /).
 * Breaks: nothing; the loop is named LOOP1_LOOP2_.. (fresh when taken). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "schedule/sched.h"

/* s, path, n, names, idx: the path indices of the listed loops, checked to
 * form a perfect nest in order.  Whether they do. */
static bool find_group(sched *s, sched_path *path, int n,
	const char *const *names, int *idx)
{
	stir_stmt *block = path->stmt[path->n - 1];
	if (n < 2 || !names) {
		sched_fail(s, block->loc, "fusing needs at least 2 loops, not %d",
			names ? n : 0);
		return false;
	}
	for (int i = 0; i < n; i++) {
		if ((idx[i] = sched_path_loop(s, path, names[i])) < 0)
			return false;
		for (int j = 0; j < i; j++)
			if (idx[j] == idx[i]) {
				sched_fail(s, block->loc, "loop '%s' is listed twice",
					names[i]);
				return false;
			}
	}
	for (int i = 0; i < n; i++) {
		stir_stmt *l = path->stmt[idx[i]];
		const char *ann = sched_loop_annotation(l);
		if (ann) {
			sched_fail(s, l->loc, "loop '%s' is %s; fuse loops before "
				"annotating them", names[i], ann);
			return false;
		}
		if (i == 0)
			continue;
		if (idx[i] < idx[i - 1]) {
			sched_fail(s, l->loc, "loop '%s' encloses loop '%s': list "
				"the loops outermost first", names[i], names[i - 1]);
			return false;
		}
		stir_stmt *outer = path->stmt[idx[i - 1]];
		if (idx[i] != idx[i - 1] + 1 || outer->u.for_.body.n != 1) {
			sched_fail(s, l->loc, "loop '%s' is not the only statement of "
				"loop '%s'", names[i], names[i - 1]);
			return false;
		}
		for (int j = 0; j < i; j++)
			if (stir_expr_uses(l->u.for_.extent,
			    path->stmt[idx[j]]->u.for_.var)) {
				sched_fail(s, l->loc, "the extent of loop '%s' depends "
					"on loop '%s'", names[i], names[j]);
				return false;
			}
	}
	return true;
}

/* s, path, n, names: fuse the listed loops. */
static int fuse(sched *s, sched_path *path, int n, const char *const *names)
{
	stir_kernel *k = s->k;
	if (n > 0 && sched_check_loop_list(s, path, n) < 0)
		return -1;
	int *idx = sched_check(s, stir_kernel_array(k, (size_t)n, sizeof(*idx)));
	stir_stmt **loops = sched_check(s, stir_kernel_array(k, (size_t)n,
		sizeof(*loops)));
	if (!idx || !loops || !find_group(s, path, n, names, idx))
		return -1;
	for (int i = 0; i < n; i++)
		loops[i] = path->stmt[idx[i]];

	/* name and extent of the fused loop: LOOP1_LOOP2_.. */
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(names[i]) + 1;
	char *base = sched_check(s, stir_kernel_array(k, len, 1));
	if (!base)
		return -1;
	size_t at = 0;
	for (int i = 0; i < n; i++) {
		size_t m = strlen(names[i]);
		if (i)
			base[at++] = '_';
		memcpy(base + at, names[i], m);
		at += m;
	}
	stir_expr *extent = NULL;
	for (int i = 0; i < n; i++) {
		stir_expr *e = stir_expr_copy(k, loops[i]->u.for_.extent, NULL);
		extent = extent ? stir_mk_mul(k, extent, e) : e;
	}
	sched_names taken;
	if (sched_loop_names(s, path, idx[0], &taken) < 0)
		return -1;
	const char *vn = sched_names_fresh(s, &taken, base);
	sched_names_release(&taken);
	stir_var *v = sched_check(s, vn && extent ? stir_kernel_new_var(k, vn,
		STIR_VAR_LOOP, extent->dtype) : NULL);
	stir_stmt *f = sched_check(s, v ? stir_stmt_for(k, v, extent) : NULL);
	if (!f)
		return -1;
	v->loc = loops[0]->u.for_.var->loc;
	f->loc = loops[0]->loc;
	sched_made(s, STIR_MADE_LOOP, vn, names[0]);

	/* every old variable from the fused one, innermost first */
	stir_subst sub = { 0 };
	stir_expr *stride = NULL;        /* product of the extents inside */
	for (int i = n - 1; i >= 0 && !s->oom; i--) {
		stir_expr *val = stir_mk_var(k, v);
		if (stride)
			val = stir_expr_binary(k, STIR_DIV, val,
				stir_expr_copy(k, stride, NULL));
		if (i > 0)
			val = stir_expr_binary(k, STIR_MOD, val,
				stir_expr_copy(k, loops[i]->u.for_.extent, NULL));
		val = sched_check(s, sched_cast(k, val, loops[i]->u.for_.var->dtype));
		if (!val || stir_subst_add_expr(&sub, loops[i]->u.for_.var, val) < 0)
			s->oom = true;
		stir_expr *e = stir_expr_copy(k, loops[i]->u.for_.extent, NULL);
		stride = stride ? stir_mk_mul(k, e, stride) : e;
	}
	stir_stmt *inner = loops[n - 1];
	if (!s->oom && stir_list_subst(k, &inner->u.for_.body, &sub) < 0)
		s->oom = true;
	stir_subst_release(&sub);
	if (s->oom)
		return -1;
	f->u.for_.body = inner->u.for_.body;
	path->list[idx[0]]->v[path->index[idx[0]]] = f;
	return 0;
}

/* k, block, n, loops: see include/stir/schedule.h. */
int stir_fuse(stir_kernel *k, const char *block, int n,
	const char *const *loops)
{
	sched s;
	if (sched_begin(&s, k, "fuse") < 0)
		return -1;
	sched_path p;
	if (sched_find_block(&s, block, &p) == 0)
		fuse(&s, &p, n, loops);
	sched_path_release(&p);
	char *l = k->log_on ? stir_log_names(n, loops) : NULL;
	int r = stir_kernel_log_step(k, sched_end(&s), "fuse: {block: %s, "
		"loops: %s}", block, l ? l : "[]");
	free(l);
	return r;
}
