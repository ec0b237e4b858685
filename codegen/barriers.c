/* Barrier placement, a stage III pass (docs/cuda.md "Barriers"):
 * stir_kernel_insert_barriers puts a "barrier;" statement wherever the
 * threads of a block must synchronize, so that the CUDA emitter only
 * prints them (as __syncthreads()) and the places show in stage III text.
 *
 * The analysis is the emitter's walk (codegen/cuda.c, "accesses and
 * summaries"): it runs with CUDA_MODE_PLACE, which records the places
 * instead of refusing the kernel, and this file inserts the statements.
 * A statement list gets one before a statement that touches an element
 * another thread of the block wrote (or wrote one another thread read)
 * since the last barrier; a loop whose next iteration would do so gets one
 * at the end of its body.
 *
 * Requires: a verified stage III kernel that the emitter accepts (its
 * refusals are reported here as they are when emitting).
 * Preserves: what the kernel computes (a barrier is a no-op for the
 * interpreter); barriers already there are kept and counted, so a second
 * run adds nothing.
 * Breaks: nothing. */
#include <stdlib.h>
#include <string.h>
#include <stir/codegen.h>
#include "codegen/cuda_internal.h"
#include "ir/arena.h"

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

static int insert_list(stir_kernel *k, stir_ptr_vec *list,
	const cuda_places *pl);

/* k, s, pl: insert_list for the lists of s. */
static int insert_stmt(stir_kernel *k, stir_stmt *s, const cuda_places *pl)
{
	switch (s->kind) {
	case STIR_STMT_IF:
		return insert_list(k, &s->u.if_.then_body, pl) < 0 ? -1 :
			insert_list(k, &s->u.if_.else_body, pl);
	case STIR_STMT_FOR:
		return insert_list(k, &s->u.for_.body, pl);
	case STIR_STMT_BLOCK:
		return insert_list(k, &s->u.block.body, pl);
	default:
		return 0;
	}
}

/* k, list, pl: insert the barriers of pl that belong to list, then those
 * of the lists inside it. */
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
	for (int i = 0; i < list->n; i++)
		if (insert_stmt(k, stir_stmt_at(list, i), pl) < 0)
			return -1;
	return 0;
}

/* k: see codegen.h. */
int stir_kernel_insert_barriers(stir_kernel *k)
{
	if (!k)
		return -1;
	cuda_places pl = { 0 };
	int r = cuda_place_barriers(k, &pl);
	if (r == 0 && pl.n) {
		r = insert_list(k, &k->body, &pl);
		if (r < 0)
			stir_error_oom(stir_kernel_ctx(k));
		else
			r = stir_kernel_verify(k);
	}
	free(pl.v);
	return r;
}
