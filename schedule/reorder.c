/* reorder: permute the loops of a perfect nest (include/stir/schedule.h).
 *
 * Requires: a verified stage II or III kernel; the listed loops enclose
 * the block and lie in one perfect nest: every loop from the outermost
 * listed one down to the innermost listed one holds exactly one
 * statement, the next loop (a block or an if between them refuses); after
 * the reorder no extent uses a loop that moved inside it.
 * Keeps: what the kernel computes, as TensorIR's blocks promise: spatial
 * instances are independent and reductions commute (sums may round
 * differently).  The listed loops take the places the listed loops had,
 * in the listed order; unlisted loops and everything inside the nest stay
 * where they are.  Annotations move with their loops.
 * Breaks: nothing. */
#include <stdlib.h>
#include <string.h>
#include "schedule/sched.h"

/* The parts of a loop that move. */
typedef struct header {
	stir_var *var;
	stir_expr *extent;
	stir_loop_kind kind;
	stir_thread thread;
	stir_loc loc;
} header;

/* s, path, n, names: reorder the listed loops. */
static int reorder(sched *s, sched_path *path, int n, const char *const *names)
{
	stir_stmt *block = path->stmt[path->n - 1];
	if (n < 1 || !names) {
		sched_fail(s, block->loc, "no loops to reorder");
		return -1;
	}
	if (sched_check_loop_list(s, path, n) < 0)
		return -1;
	int m = 0, *idx = NULL, *order = NULL, *sorted = NULL;
	header *h = NULL;
	int rc = -1;
	idx = sched_check(s, calloc((size_t)n, sizeof(*idx)));
	if (!idx)
		return -1;
	int lo = path->n, hi = -1;
	for (int i = 0; i < n; i++) {
		if ((idx[i] = sched_path_loop(s, path, names[i])) < 0)
			goto out;
		for (int j = 0; j < i; j++)
			if (idx[j] == idx[i]) {
				sched_fail(s, block->loc, "loop '%s' is listed twice",
					names[i]);
				goto out;
			}
		lo = idx[i] < lo ? idx[i] : lo;
		hi = idx[i] > hi ? idx[i] : hi;
	}
	const char *outer = path->stmt[lo]->u.for_.var->name;
	const char *inner = path->stmt[hi]->u.for_.var->name;
	for (int j = lo + 1; j < hi; j++) {
		stir_stmt *st = path->stmt[j];
		if (st->kind == STIR_STMT_BLOCK) {
			sched_fail(s, st->loc, "loops '%s' and '%s' are separated by "
				"block '%s'", outer, inner, st->u.block.name);
			goto out;
		}
		if (st->kind != STIR_STMT_FOR) {
			sched_fail(s, st->loc, "loops '%s' and '%s' are not perfectly "
				"nested: a statement other than a loop lies between "
				"them", outer, inner);
			goto out;
		}
	}
	for (int j = lo; j < hi; j++)
		if (path->stmt[j]->u.for_.body.n != 1) {
			sched_fail(s, path->stmt[j]->loc, "loops '%s' and '%s' are not "
				"perfectly nested: loop '%s' holds more than one "
				"statement", outer, inner,
				path->stmt[j]->u.for_.var->name);
			goto out;
		}

	/* the new order: listed loops on the listed loops' places */
	m = hi - lo + 1;
	/* order[q]: path index of the loop at lo + q */
	order = sched_check(s, calloc((size_t)m, sizeof(*order)));
	sorted = sched_check(s, calloc((size_t)n, sizeof(*sorted)));
	h = sched_check(s, calloc((size_t)m, sizeof(*h)));
	if (!order || !sorted || !h)
		goto out;
	for (int q = 0; q < m; q++)
		order[q] = lo + q;
	memcpy(sorted, idx, (size_t)n * sizeof(*sorted));
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
			int t = sorted[j];
			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	for (int i = 0; i < n; i++)
		order[sorted[i] - lo] = idx[i];
	for (int q = 0; q < m; q++)
		for (int r = q + 1; r < m; r++) {
			const stir_stmt *a = path->stmt[order[q]];
			const stir_stmt *b = path->stmt[order[r]];
			if (stir_expr_uses(a->u.for_.extent, b->u.for_.var)) {
				sched_fail(s, a->loc, "the extent of loop '%s' depends on "
					"loop '%s', which would move inside it",
					a->u.for_.var->name, b->u.for_.var->name);
				goto out;
			}
		}

	/* the statements stay; their headers move */
	for (int q = 0; q < m; q++) {
		const stir_stmt *st = path->stmt[lo + q];
		h[q] = (header){ st->u.for_.var, st->u.for_.extent, st->u.for_.kind,
			st->u.for_.thread, st->loc };
	}
	for (int q = 0; q < m; q++) {
		stir_stmt *st = path->stmt[lo + q];
		const header *from = &h[order[q] - lo];
		st->u.for_.var = from->var;
		st->u.for_.extent = from->extent;
		st->u.for_.kind = from->kind;
		st->u.for_.thread = from->thread;
		st->loc = from->loc;
	}
	rc = 0;
out:
	free(idx);
	free(order);
	free(sorted);
	free(h);
	return rc;
}

/* k, block, n, loops: see include/stir/schedule.h. */
int stir_reorder(stir_kernel *k, const char *block, int n,
	const char *const *loops)
{
	sched s;
	if (sched_begin(&s, k, "reorder") < 0)
		return -1;
	sched_path p;
	if (sched_find_block(&s, block, &p) == 0)
		reorder(&s, &p, n, loops);
	sched_path_release(&p);
	char *l = k->log_on ? stir_log_names(n, loops) : NULL;
	int r = stir_kernel_log_step(k, sched_end(&s), "reorder: {block: %s, "
		"loops: %s}", block, l ? l : "[]");
	free(l);
	return r;
}
