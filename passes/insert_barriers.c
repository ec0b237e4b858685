/* insert_barriers (include/stir/passes.h; docs/cuda.md "Barriers"): a
 * "barrier;" statement wherever the threads of a block must synchronize.
 * The GPU verifier's walk finds the places (verify/barriers.c,
 * cuda_place_barriers: before a statement that touches an element another
 * thread of the block wrote, or wrote one another thread read, since the
 * last barrier; at the end of a loop body whose next iteration would);
 * this pass inserts the statements there.
 *
 * Requires: a verified stage III kernel that the GPU verifier accepts (its
 * refusals are reported here as stir_kernel_verify_gpu reports them).
 * Preserves: what the kernel computes (a barrier is a no-op for the
 * interpreter); barriers already there are kept and counted, so a second
 * run adds nothing.
 * Breaks: nothing. */
#include <stdlib.h>
#include <string.h>
#include <stir/passes.h>
#include "verify/gpu.h"
#include "ir/visit.h"

/* k, list, at, loc: insert a barrier statement at index "at" of list. */
static int insert_at(stir_kernel *k, stir_ptr_vec *list, int at, stir_loc loc)
{
	stir_stmt *b = stir_stmt_barrier(k);
	if (!b || stir_ptr_vec_push(stir_kernel_arena(k), list, b) < 0)
		return -1;
	b->loc = loc;
	memmove(&list->v[at + 1], &list->v[at],
		(size_t)(list->n - 1 - at) * sizeof(*list->v));
	list->v[at] = b;
	return 0;
}

/* k, list, pl: insert the barriers of pl that belong to list (not those
 * of the lists inside it). */
static int insert_list(stir_kernel *k, stir_ptr_vec *list,
	const cuda_places *pl)
{
	void **slots = list->v;
	for (int i = 0; i < pl->n; i++) {
		const cuda_place *p = &pl->v[i];
		if (!slots || p->slots != slots)
			continue;
		int at = list->n;
		for (int j = 0; p->before && j < list->n; j++)
			if (list->v[j] == p->before)
				at = j;
		if (insert_at(k, list, at, p->loc) < 0)
			return -1;
	}
	return 0;
}

/* The state of the pass's walk. */
typedef struct inserting {
	stir_kernel *k;            /* the kernel */
	const cuda_places *pl;     /* the places */
} inserting;

/* s, user: stmt_pre of the pass's walk (user: the inserting): insert the
 * barriers of the lists nested in s, before the walk enters them; stop
 * when memory runs out. */
static stir_visit_step insert_inside(stir_stmt *s, void *user)
{
	inserting *in = user;
	stir_ptr_vec *lists[2];
	int n = stir_stmt_lists(s, lists);
	for (int l = 0; l < n; l++)
		if (insert_list(in->k, lists[l], in->pl) < 0)
			return STIR_VISIT_STOP;
	return STIR_VISIT_GO;
}

/* k: see include/stir/passes.h. */
int stir_insert_barriers(stir_kernel *k)
{
	if (!k)
		return -1;
	cuda_places pl = { 0 };
	int r = cuda_place_barriers(k, &pl);
	if (r == 0 && pl.n) {
		inserting in = { .k = k, .pl = &pl };
		stir_visitor v = { .stmt_pre = insert_inside, .user = &in };
		r = insert_list(k, &k->body, &pl);
		/* (the walk stops only when memory runs out) */
		if (r == 0 && stir_visit_list(&v, &k->body))
			r = -1;
		if (r < 0)
			stir_error_oom(stir_kernel_ctx(k));
		else
			r = stir_kernel_verify(k);
	}
	free(pl.v);
	return r;
}
