/* Software pipelines: the primitive stir_software_pipeline
 * (include/stir/schedule.h; docs/schedules.md, "Software pipelines").
 *
 * A loop whose body opens with copy nests into shared memory (cache_read,
 * then tensorize with cp_async_16) and goes on with the statements that
 * use what they copied waits, on the GPU, for each iteration's copies
 * before its products: a full round trip to memory an iteration.
 * Pipelined over S stages, each copied buffer D of E elements gets S
 * slots (D grows to S * E elements; iteration j's copy and its uses take
 * slot j % S), so that the copies of iterations j + 1 .. j + S - 1 can be
 * in flight while iteration j computes; the emitter
 * (codegen/cuda_pipeline.c) issues them that far ahead, one cp.async
 * commit group an iteration.  The program the interpreter runs is the
 * same loop with every access of D offset by its slot, which computes
 * exactly what it did: the pipeline is visible in the IR (the slots, the
 * annotation pipeline(S)) and only the order of the copies is the
 * emitter's.
 *
 * Requires: a stage III kernel; a serial loop whose body opens with copy
 * nests, each alone or under an if (a split's tail guard that tensorize
 * moved out of it; stir_pipeline_copies), and holds more after them; each copied
 * buffer of a literal extent of whole 16-byte pieces, copied by one nest,
 * used nowhere outside the loop and not written again in it; the copies
 * read nothing the loop writes (issued early, they must read the same).
 * Keeps: what the kernel computes.
 * Breaks: nothing; the copied buffers grow S times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "schedule/sched.h"
#include "ir/intrinsics.h"
#include "ir/visit.h"

/* What the rewrite offsets: the copied buffers and their slot size. */
typedef struct pipe_rw {
	stir_kernel *k;
	const stir_var *j;         /* the pipelined loop's variable */
	int64_t stages;
	int n;
	stir_buffer *buf[8];       /* the copied buffers */
	int64_t ext[8];            /* their extents before (a slot) */
	bool oom;
} pipe_rw;

/* r, b: the slot size of buffer b when it is one the rewrite offsets,
 * else 0. */
static int64_t slot_of(const pipe_rw *r, const stir_buffer *b)
{
	for (int i = 0; i < r->n; i++)
		if (r->buf[i] == b)
			return r->ext[i];
	return 0;
}

/* r, idx, e: "(j % stages) * e + idx", or NULL when memory ran out. */
static stir_expr *offset(pipe_rw *r, stir_expr *idx, int64_t e)
{
	stir_kernel *k = r->k;
	stir_expr *slot = stir_expr_binary(k, STIR_MOD,
		stir_expr_var(k, (stir_var *)r->j), stir_expr_int(k, r->stages));
	stir_expr *x = slot ? stir_expr_binary(k, STIR_MUL, slot,
		stir_expr_int(k, e)) : NULL;
	x = x ? stir_expr_binary(k, STIR_ADD, x, idx) : NULL;
	if (!x)
		r->oom = true;
	return x;
}

/* s, user: stmt_pre of the rewrite: a store into a copied buffer goes to
 * its slot. */
static stir_visit_step offset_store(stir_stmt *s, void *user)
{
	pipe_rw *r = user;
	int64_t e;
	if (s->kind == STIR_STMT_STORE && (e = slot_of(r, s->u.store.buf)) &&
	    s->u.store.n == 1) {
		stir_expr *x = offset(r, s->u.store.idx[0], e);
		if (x)
			s->u.store.idx[0] = x;
	}
	return r->oom ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* slot, user: expr_pre of the rewrite: a load of a copied buffer reads
 * its slot (the new index's children are walked: it holds the old one,
 * which holds no load of a copied buffer, a shared buffer being read
 * only through its own copies). */
static stir_visit_step offset_load(stir_expr **slot, void *user)
{
	pipe_rw *r = user;
	stir_expr *x = *slot;
	int64_t e;
	if (x->kind == STIR_EXPR_LOAD && (e = slot_of(r, x->u.load.buf)) &&
	    x->u.load.n == 1) {
		stir_expr *y = offset(r, x->u.load.idx[0], e);
		if (y)
			x->u.load.idx[0] = y;
		return r->oom ? STIR_VISIT_STOP : STIR_VISIT_SKIP;
	}
	return STIR_VISIT_GO;
}

/* s, l, r: check loop l's copies and record their buffers in r (the
 * first failure goes to s). */
static void check_copies(sched *s, const stir_stmt *l, pipe_rw *r)
{
	stir_kernel *k = s->k;
	const char *ln = l->u.for_.var->name;
	int nc = stir_pipeline_copies(l);
	if (nc == 0) {
		sched_fail(s, l->loc, "the body of loop '%s' does not open with a "
			"copy nest into shared memory (cache_read, then tensorize "
			"with cp_async_16): there is nothing to issue ahead", ln);
		return;
	}
	if (nc == l->u.for_.body.n) {
		sched_fail(s, l->loc, "the body of loop '%s' holds only copies: "
			"nothing uses what they copy", ln);
		return;
	}
	if (nc > 8) {
		sched_fail(s, l->loc, "the body of loop '%s' opens with %d copy "
			"nests; a pipeline takes at most 8", ln, nc);
		return;
	}
	for (int i = 0; i < nc && !s->failed; i++) {
		/* (a guarded copy: the guard is issued ahead with it) */
		const stir_stmt *c = stir_stmt_at(&l->u.for_.body, i);
		stir_mma_match m;
		stir_is_copy_nest(stir_pipeline_copy(c), &m);
		stir_buffer *d = (stir_buffer *)m.c.buf;
		int64_t e;
		if (!sched_int_value(d->extent, &e) ||
		    e * (int64_t)stir_dtype_get_size(d->dtype) % 16 != 0) {
			sched_fail(s, c->loc, "shared buffer '%s' has extent %s: a "
				"slot of a pipeline needs a literal extent of whole "
				"16-byte pieces", d->name, sched_str(s, d->extent));
			return;
		}
		if (slot_of(r, d)) {
			sched_fail(s, c->loc, "shared buffer '%s' is copied by two "
				"nests of loop '%s'", d->name, ln);
			return;
		}
		for (int j = nc; j < l->u.for_.body.n; j++) {
			const stir_stmt *u = stir_stmt_at(&l->u.for_.body, j);
			if (stir_stmt_writes(u, d)) {
				sched_fail(s, u->loc, "shared buffer '%s' is written "
					"again after its copy in loop '%s'", d->name, ln);
				return;
			}
		}
		stir_uses all = { .buf = d }, in = { .buf = d };
		stir_uses_list(&all, &k->body);
		stir_uses_stmt(&in, l);
		if (all.loads + all.stores != in.loads + in.stores) {
			sched_fail(s, c->loc, "shared buffer '%s' is also used outside "
				"loop '%s'; its slots would differ there", d->name, ln);
			return;
		}
		for (int b = 0; b < k->buffers.n; b++) {
			const stir_buffer *x = stir_buffer_at(&k->buffers, b);
			if (x != d && stir_stmt_reads(c, x) && stir_stmt_writes(l, x)) {
				sched_fail(s, c->loc, "the copy into '%s' reads '%s', "
					"which loop '%s' writes: copies issued ahead would "
					"read it early", d->name, x->name, ln);
				return;
			}
		}
		r->buf[r->n] = d;
		r->ext[r->n++] = e;
	}
}

/* What check_nest looks for: the request to fail. */
typedef struct nest_check {
	sched *s;
} nest_check;

/* st, user: stmt_pre of check_nests: a tensorized nest must still match
 * its intrinsic with the slots added. */
static stir_visit_step check_nest(stir_stmt *st, void *user)
{
	sched *s = ((nest_check *)user)->s;
	const stir_intrinsic *in;
	stir_mma_match m;
	char why[400];
	stir_loc where;
	if (st->kind != STIR_STMT_FOR || st->u.for_.kind != STIR_LOOP_TENSORIZE ||
	    !(in = stir_intrinsic_find(st->u.for_.intrinsic)))
		return STIR_VISIT_GO;
	if (!stir_tensorize_match(st, in, &m, why, sizeof(why), &where)) {
		sched_fail(s, where, "with the slots of the pipeline the nest "
			"at loop '%s' no longer computes %s: %s",
			st->u.for_.var->name, in->name, why);
		return STIR_VISIT_STOP;
	}
	return STIR_VISIT_SKIP;
}

/* s, l: the rewrite's last check: every tensorized nest of loop l still
 * matches its intrinsic with the slots added. */
static void check_nests(sched *s, stir_stmt *l)
{
	nest_check nc = { s };
	stir_visitor v = { .stmt_pre = check_nest, .user = &nc };
	stir_visit_list(&v, &l->u.for_.body);
}

/* k, block, loop, stages: see include/stir/schedule.h. */
int stir_software_pipeline(stir_kernel *k, const char *block, const char *loop,
	int64_t stages)
{
	return stir_software_pipeline_batched(k, block, loop, stages, 1);
}

/* k, block, loop, stages, batch: see include/stir/schedule.h (a batch of
 * 1: stir_software_pipeline). */
int stir_software_pipeline_batched(stir_kernel *k, const char *block,
	const char *loop, int64_t stages, int64_t batch)
{
	sched s;
	if (sched_begin(&s, k, "pipeline") < 0)
		return -1;
	sched_path p = { 0 };
	int li;
	pipe_rw r = { .k = k, .stages = stages };
	if (k->stage != STIR_STAGE_3) {
		sched_fail(&s, k->loc, "kernel '%s' is at stage %d; pipeline "
			"applies at stage III (flat buffers)", k->name, (int)k->stage);
	} else if (stages < 2 || stages > 8) {
		sched_fail(&s, k->loc, "a pipeline has 2 to 8 stages, not %lld",
			(long long)stages);
	} else if (batch != 1 && (batch < 2 || 2 * batch > stages)) {
		sched_fail(&s, k->loc, "a pipeline of %lld stages waits for 2 to "
			"%lld iterations' copies together, not %lld",
			(long long)stages, (long long)stages / 2, (long long)batch);
	} else if ((li = sched_find_block_loop(&s, block, loop, &p)) >= 0) {
		stir_stmt *l = p.stmt[li];
		const char *ann = sched_loop_annotation(l);
		if (ann)
			sched_fail(&s, l->loc, "loop '%s' is %s already; a pipeline "
				"runs a serial loop", loop, ann);
		else
			check_copies(&s, l, &r);
		if (!s.failed) {
			r.j = l->u.for_.var;
			stir_visitor v = { .stmt_pre = offset_store,
				.expr_pre = offset_load, .user = &r };
			stir_visit_list(&v, &l->u.for_.body);
			for (int i = 0; i < r.n && !r.oom; i++)
				if (!(r.buf[i]->extent = stir_expr_int(k,
				    stages * r.ext[i])))
					r.oom = true;
			if (r.oom)
				sched_check(&s, NULL);
			else
				check_nests(&s, l);
			l->u.for_.kind = STIR_LOOP_PIPELINE;
			l->u.for_.stages = (int)stages;
			l->u.for_.batch = batch > 1 ? (int)batch : 0;
		}
	}
	sched_path_release(&p);
	int rc = sched_end(&s);
	/* the buffers are the kernel's, not the request's copy: a refused
	 * or failed rewrite gives their extents back */
	for (int i = 0; rc < 0 && i < r.n; i++)
		r.buf[i]->extent = stir_expr_int(k, r.ext[i]);
	if (batch != 1)
		return stir_kernel_log_step(k, rc, "pipeline: {block: %s, loop: "
			"%s, stages: %lld, batch: %lld}", block, loop,
			(long long)stages, (long long)batch);
	return stir_kernel_log_step(k, rc, "pipeline: {block: %s, loop: %s, "
		"stages: %lld}", block, loop, (long long)stages);
}
