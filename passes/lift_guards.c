/* lift_guards (include/stir/passes.h): split guards tested once before
 * the loop nests they are in (docs/cuda.md, "Searches"; docs/ir.md).
 *
 * A split's tail guard "if (vi < n)" sits in the innermost body of the
 * loops a split made, and lowering leaves it there.  When the condition
 * reads no memory and uses none of the nest's variables, testing it once
 * before the nest gives the same result and leaves the loads of the
 * nest's body free to run ahead of each other:
 *
 *   for a in [0, A) { for b in [0, B) { if (c) { S } } }
 *   ->  if (c) { for a in [0, A) { for b in [0, B) { S } } }
 *
 * The nest: a serial, unrolled or vectorized loop (not a bound one) and
 * the loops each holding only the next (not bound ones); its innermost
 * body is the one if, without else.  A vectorized loop is not the outer
 * loop of a nest (its guards are the vector path's, docs/cuda.md) but may
 * be inside one.  A condition that may differ between the lanes of a warp
 * (it depends on threadIdx.x) stays where it is when the body uses a warp
 * buffer: the shuffles that hoisting puts before the nest's loops need
 * every lane.  An if lifted out of a nest is not lifted again, and the
 * loops of the nest do not look past the place it was (the decisions are
 * made on the program as written, outermost loop first, and applied
 * after); at most STIR_MAX_LIFTED lifted ifs enclose one another.  An if
 * lifted out of a loop of the kernel's top level takes the loop's
 * location too: it is the launch now, named after that line.  Which if
 * a nest may test before it is found by verify/nest_guard.c (the GPU
 * verifier and the emitter print a vectorized loop's scalar fallback with
 * it lifted); this pass decides and applies.
 *
 * Requires: a verified stage III kernel.
 * Keeps: what the kernel computes (the condition has the same value at
 * every iteration of the nest, and a nest that runs no iteration runs
 * nothing either way).
 * Breaks: nothing. */
#include <stdlib.h>
#include <stir/passes.h>
#include "passes/passes.h"
#include "verify/nest_guard.h"
#include "ir/util.h"
#include "ir/visit.h"

/* One decision: loop "loop" is wrapped in if "guard", which leaves the
 * place it had in the nest. */
typedef struct lift {
	stir_stmt *loop, *guard;
} lift;

typedef struct lifter {
	gpu_lanes lanes;           /* the lanes' facts, the ifs lifted */
	int n, cap;
	lift *v;                   /* heap: the decisions, outermost first */
	bool oom;
} lifter;

static void decide_list(lifter *L, const stir_ptr_vec *list);

/* L, s: the decisions for s and the statements in it, in the order the
 * nests are met from the outside in. */
static void decide(lifter *L, stir_stmt *s)
{
	stir_ptr_vec *lists[2];
	if (s->kind != STIR_STMT_FOR) {
		int n = stir_stmt_lists(s, lists);
		for (int i = 0; i < n; i++)
			decide_list(L, lists[i]);
		return;
	}
	stir_stmt *g = s->u.for_.kind != STIR_LOOP_BIND &&
		s->u.for_.kind != STIR_LOOP_VECTORIZE &&
		L->lanes.n_stack < STIR_MAX_LIFTED ? gpu_nest_guard(&L->lanes, s) :
		NULL;
	if (!g) {
		decide_list(L, &s->u.for_.body);
		return;
	}
	if (L->n == L->cap) {
		int cap = L->cap ? 2 * L->cap : 8;
		lift *v = realloc(L->v, (size_t)cap * sizeof(*v));
		if (!v) {
			L->oom = true;
			return;
		}
		L->v = v;
		L->cap = cap;
	}
	L->v[L->n++] = (lift){ s, g };
	L->lanes.stack[L->lanes.n_stack++] = g;
	decide_list(L, &s->u.for_.body);
	L->lanes.n_stack--;
}

/* L, list: decide of each statement. */
static void decide_list(lifter *L, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n && !L->oom; i++)
		decide(L, stir_stmt_at(list, i));
}

/* list, old, new: replace statement old of list by new; whether it
 * was there. */
static bool replace_in(stir_ptr_vec *list, const stir_stmt *old,
	stir_stmt *new)
{
	for (int i = 0; i < list->n; i++)
		if (list->v[i] == old) {
			list->v[i] = new;
			return true;
		}
	return false;
}

static bool replace_list(stir_ptr_vec *list, const stir_stmt *old,
	stir_stmt *new);

/* s, old, new: replace_in the list of s, or of a statement in it, that
 * holds old. */
static bool replace_stmt(stir_stmt *s, const stir_stmt *old, stir_stmt *new)
{
	stir_ptr_vec *lists[2];
	int n = stir_stmt_lists(s, lists);
	for (int i = 0; i < n; i++)
		if (replace_list(lists[i], old, new))
			return true;
	return false;
}

/* list, old, new: replace_in list or a list nested in it. */
static bool replace_list(stir_ptr_vec *list, const stir_stmt *old,
	stir_stmt *new)
{
	if (replace_in(list, old, new))
		return true;
	for (int i = 0; i < list->n; i++)
		if (replace_stmt(stir_stmt_at(list, i), old, new))
			return true;
	return false;
}

/* k, d: apply decision d: the guard leaves the nest (the one-statement
 * body that held it holds its body instead) and wraps the loop. */
static int apply(stir_kernel *k, const lift *d)
{
	stir_stmt *g = d->guard, *s = d->loop;
	/* the body that holds g: a loop of the nest's whose body is g alone */
	stir_stmt *x = s;
	stir_ptr_vec one = { 0 };
	if (stir_ptr_vec_push(stir_kernel_arena(k), &one, s) < 0)
		return -1;
	while (stir_stmt_at(&x->u.for_.body, 0) != g)
		x = stir_stmt_at(&x->u.for_.body, 0);
	/* at the top level the if becomes the launch, which is named after
	 * where the loop was (docs/cuda.md) */
	if (replace_in(&k->body, s, g))
		g->loc = s->loc;
	else if (!replace_list(&k->body, s, g))
		return -1;
	x->u.for_.body = g->u.if_.then_body;
	g->u.if_.then_body = one;
	return 0;
}

/* k: see passes.h. */
int stir_lift_guards(stir_kernel *k)
{
	if (!k)
		return -1;
	stir_ctx *ctx = stir_kernel_ctx(k);
	if (k->stage != STIR_STAGE_3) {
		stir_error(ctx, k->loc, "lift_guards: kernel '%s' is at stage %d; "
			"the pass takes stage III", k->name, (int)k->stage);
		return -1;
	}
	if (stir_kernel_verify(k) < 0)
		return -1;
	lifter L = { 0 };
	if (gpu_lanes_init(&L.lanes, k) < 0) {
		stir_error_oom(ctx);
		return -1;
	}
	decide_list(&L, &k->body);
	int rc = L.oom ? -1 : 0;
	if (L.oom)
		stir_error_oom(ctx);
	for (int i = 0; rc == 0 && i < L.n; i++)
		if (apply(k, &L.v[i]) < 0) {
			stir_error_oom(ctx);
			rc = -1;
		}
	gpu_lanes_release(&L.lanes);
	free(L.v);
	return rc < 0 ? -1 : stir_kernel_verify(k);
}
