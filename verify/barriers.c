/* Races and barriers (docs/cuda.md "Barriers"): the analysis of the
 * accesses of the threads of a launch, which finds where the threads of a
 * block must synchronize; the stage III pass stir_insert_barriers
 * (passes/insert_barriers.c) puts a "barrier;" statement there, so that
 * the CUDA emitter only prints them (as __syncthreads()) and the places
 * show in stage III text.
 *
 * The verifier's walk (verify/verify_walk.c) records every load and
 * store with the thread context it runs in (gpu_record) into summaries of
 * the code around it; within a statement list, cuda_needs_barrier compares
 * what a statement accesses with what ran since the last barrier.  Walking
 * with GPU_WALK_PLACE, cuda_need_barrier records the place; the pass then
 * inserts the statements.  Walking to verify, a place without its barrier
 * is refused, and so are orderings no barrier can give (different thread
 * blocks, code some threads skip, registers read by other threads).
 * A statement list gets one before a statement that touches an element
 * another thread of the block wrote (or wrote one another thread read)
 * since the last barrier; a loop whose next iteration would do so gets one
 * at the end of its body. */
#include <stdlib.h>
#include <string.h>
#include "verify/gpu.h"

/* The context markers of an access (verify/gpu.h). */
const char cuda_ctx_single[] = "single";
const char cuda_ctx_all[] = "all";

/* walk: memory ran out (reported once). */
static void no_memory(gpu_walk *walk)
{
	if (!walk->failed)
		stir_error_oom(walk->ctx);
	walk->failed = true;
}

/* ---- accesses and summaries ------------------------------------------- */

/* walk, v, a: append a copy of a to v. */
static void acc_push(gpu_walk *walk, acc_vec *v, const cg_access *a)
{
	if (v->n == v->cap) {
		int cap = v->cap ? 2 * v->cap : 8;
		cg_access *n = realloc(v->v, (size_t)cap * sizeof(*n));
		if (!n) {
			no_memory(walk);
			return;
		}
		v->v = n;
		v->cap = cap;
	}
	v->v[v->n++] = *a;
}

/* s: see verify/gpu.h. */
void cuda_summary_release(summary *s)
{
	free(s->first.v);
	free(s->last.v);
	memset(s, 0, sizeof(*s));
}

/* s: see verify/gpu.h. */
acc_vec *cuda_summary_pending(summary *s)
{
	return s->barrier ? &s->last : &s->first;
}

/* walk, s, a: add an access at the end of s. */
static void summary_add(gpu_walk *walk, summary *s, const cg_access *a)
{
	acc_push(walk, cuda_summary_pending(s), a);
}

/* s: see verify/gpu.h. */
void cuda_summary_barrier(summary *s)
{
	s->barrier = true;
	s->last.n = 0;
}

/* walk, p, c: see verify/gpu.h. */
void cuda_summary_append(gpu_walk *walk, summary *p, const summary *c)
{
	for (int i = 0; i < c->first.n; i++)
		summary_add(walk, p, &c->first.v[i]);
	if (!c->barrier)
		return;
	cuda_summary_barrier(p);
	for (int i = 0; i < c->last.n; i++)
		summary_add(walk, p, &c->last.v[i]);
}

/* walk, p, c: see verify/gpu.h. */
void cuda_summary_append_maybe(gpu_walk *walk, summary *p, const summary *c)
{
	for (int i = 0; i < c->first.n; i++)
		summary_add(walk, p, &c->first.v[i]);
	for (int i = 0; c->barrier && i < c->last.n; i++)
		summary_add(walk, p, &c->last.v[i]);
}

/* ctx, d: the context marker of index d. */
static const void *ctx_of(const ectx *ctx, int d)
{
	if (ctx->bound[d])
		return ctx->bound[d];
	return ctx->single & DIM_BIT(d) ? cuda_ctx_single : cuda_ctx_all;
}

/* walk, ctx, buf, idx, write, atomic, loc: see verify/gpu.h. */
void gpu_record(gpu_walk *walk, const ectx *ctx, const stir_buffer *buf,
	const stir_expr *idx, bool write, bool atomic, stir_loc loc)
{
	if (loc.line <= 0)
		loc = walk->place;
	if (walk->frag && walk->frag[buf->index] && !walk->in_mma) {
		gpu_error(walk, loc, "local buffer '%s' is the accumulator of a "
			"tensorized nest, held in the warp's fragment registers: only "
			"tensorized nests may access it", buf->name);
		return;
	}
	if (!walk->sum)
		return;
	cg_access a = { .buf = buf, .idx = idx, .write = write,
		.atomic = atomic, .loc = loc };
	for (int d = 0; d < N_DIMS; d++)
		a.ctx[d] = ctx_of(ctx, d);
	if (buf->scope == STIR_SCOPE_LOCAL || buf->scope == STIR_SCOPE_WARP) {
		if (write) {
			acc_push(walk, &walk->local_writes, &a);
			return;
		}
		for (int i = 0; i < walk->local_writes.n; i++) {
			const cg_access *w = &walk->local_writes.v[i];
			if (w->buf == buf && !cuda_check_private_read(walk, w, &a))
				return;
		}
		return;
	}
	summary_add(walk, walk->sum, &a);
}

/* Whether accesses a (earlier) and b (later) need ordering between
 * threads: 0 no, 1 a barrier of the block, 2 impossible (different thread
 * blocks). */
static int conflict(const gpu_walk *walk, const cg_access *a, const cg_access *b)
{
	if (a->buf != b->buf || (!a->write && !b->write) ||
	    (a->atomic && b->atomic) || a->buf->scope == STIR_SCOPE_LOCAL ||
	    a->buf->scope == STIR_SCOPE_WARP)
		return 0;
	unsigned used = walk->launch->used;
	for (int d = 0; d < N_DIMS; d++)
		if ((used & DIM_BIT(d) & BLOCK_DIMS) && a->ctx[d] != b->ctx[d])
			return 2;
	bool in_loop = false;
	for (int d = 0; d < N_DIMS; d++) {
		if (!(used & DIM_BIT(d) & THREAD_DIMS))
			continue;
		if (a->ctx[d] != b->ctx[d])
			return 1;
		if (a->ctx[d] != cuda_ctx_single && a->ctx[d] != cuda_ctx_all)
			in_loop = true;
	}
	/* the same thread(s): thread 0 of every index, or the same
	 * iteration of the same loops.  Global memory written under a loop
	 * bound to a thread index is partitioned by it (the legality of
	 * bind): no other thread of the loop touches what one thread does.
	 * Shared memory is for threads to exchange data: only the same
	 * element is known to stay within a thread. */
	if (!in_loop || a->buf->scope == STIR_SCOPE_GLOBAL ||
	    (a->idx && b->idx && cuda_expr_equal(&walk->facts, a->idx, b->idx)))
		return 0;
	return 1;
}

/* walk, before, after, loc, wa, wb: see verify/gpu.h. */
bool cuda_needs_barrier(gpu_walk *walk, const acc_vec *before,
	const acc_vec *after, stir_loc loc, const cg_access **wa,
	const cg_access **wb)
{
	for (int j = 0; j < after->n; j++) {
		for (int i = 0; i < before->n; i++) {
			const cg_access *a = &before->v[i], *b = &after->v[j];
			int c = conflict(walk, a, b);
			if (c == 0)
				continue;
			if (c == 2) {
				cuda_check_block_dep(walk, loc, a, b);
				return false;
			}
			*wa = a;
			*wb = b;
			return true;
		}
	}
	return false;
}

/* walk, ctx: see verify/gpu.h. */
bool cuda_block_uniform(const gpu_walk *walk, const ectx *ctx)
{
	return !(ctx->divergent & THREAD_DIMS & walk->launch->used);
}

/* walk, p: append p to the places that need a barrier. */
static void add_place(gpu_walk *walk, cuda_place p)
{
	cuda_places *v = walk->places;
	for (int i = 0; i < v->n; i++)
		if (v->v[i].slots == p.slots && v->v[i].before == p.before)
			return;
	if (v->n == v->cap) {
		int cap = v->cap ? 2 * v->cap : 8;
		cuda_place *n = realloc(v->v, (size_t)cap * sizeof(*n));
		if (!n) {
			no_memory(walk);
			return;
		}
		v->v = n;
		v->cap = cap;
	}
	v->v[v->n++] = p;
}

/* walk, ctx, loc, a, b, sum, list, before: see verify/gpu.h. */
void cuda_need_barrier(gpu_walk *walk, const ectx *ctx, stir_loc loc,
	const cg_access *a, const cg_access *b, summary *sum,
	const stir_ptr_vec *list, const stir_stmt *before)
{
	if (!cuda_check_barrier_place(walk, ctx, loc, a, b))
		return;
	add_place(walk, (cuda_place){ (void *const *)list->v, before, loc });
	cuda_summary_barrier(sum);
}

/* walk, s, ctx, body: see verify/gpu.h. */
void cuda_loop_carried_barrier(gpu_walk *walk, const stir_stmt *s,
	const ectx *ctx, summary *body)
{
	const cg_access *a, *b;
	if (cuda_needs_barrier(walk, cuda_summary_pending(body), &body->first,
	    s->loc, &a, &b))
		cuda_need_barrier(walk, ctx, s->loc, a, b, body, &s->u.for_.body,
			NULL);
}
