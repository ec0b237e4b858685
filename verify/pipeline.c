/* The checks of a pipelined loop (STIR_LOOP_PIPELINE, schedule/sw_pipeline.c;
 * docs/cuda.md, "Software pipelines") that the CUDA of
 * codegen/cuda_pipeline.c assumes: the loop's body holds its copy nests,
 * a barrier, the statements that use the copies and a barrier, in that
 * order, and the buffers the copies write are held in slots as the
 * primitive leaves them.  A hand-written pipeline(S) loop that is not so
 * is refused here, by the GPU verifier (stirc check --gpu and the
 * emitter alike); the interpreter runs it as a serial loop either way. */
#include "verify/gpu.h"
#include "ir/intrinsics.h"
#include "ir/visit.h"

/* What check_slots walks with: the loop, its copied buffers and their
 * slot sizes, and the first access out of form. */
typedef struct slot_walk {
	gpu_walk *walk;
	const stir_var *v;         /* the pipelined loop's variable */
	int64_t stages;
	int n;
	const stir_buffer *buf[8]; /* the copied buffers */
	int64_t ext[8];            /* their slots' size */
	const stir_buffer *bad;    /* accessed out of form, or NULL */
} slot_walk;

/* w, x, k: whether x is the literal k. */
static bool is_int(const slot_walk *w, const stir_expr *x, int64_t k)
{
	int64_t v;
	return cuda_literal_value(w->walk->ctx, w->walk->k, x, &v) && v == k;
}

/* w, b, x: when b is a copied buffer, whether its index x is
 * "v % stages * E + r", r free of v (through block bindings too): the
 * slot of the iteration and a place in it. */
static bool slot_ok(slot_walk *w, const stir_buffer *b, const stir_expr *x)
{
	int i = 0;
	while (i < w->n && w->buf[i] != b)
		i++;
	if (i == w->n)
		return true;
	if (x->kind != STIR_EXPR_BINARY || x->u.binary.op != STIR_ADD)
		return false;
	const stir_expr *a = x->u.binary.a, *m;
	if (a->kind != STIR_EXPR_BINARY || a->u.binary.op != STIR_MUL ||
	    !is_int(w, a->u.binary.b, w->ext[i]))
		return false;
	m = a->u.binary.a;
	if (m->kind != STIR_EXPR_BINARY || m->u.binary.op != STIR_MOD ||
	    m->u.binary.a->kind != STIR_EXPR_VAR || m->u.binary.a->u.var != w->v ||
	    !is_int(w, m->u.binary.b, w->stages))
		return false;
	stir_uses u = { .var = w->v, .expand = cuda_binding_hook,
		.expand_user = &w->walk->facts };
	stir_uses_expr(&u, x->u.binary.b);
	return u.var_uses == 0;
}

/* s, user: stmt_pre of check_slots: a store's index. */
static stir_visit_step slot_store(stir_stmt *s, void *user)
{
	slot_walk *w = user;
	if (s->kind == STIR_STMT_STORE && !(s->u.store.n == 1 &&
	    slot_ok(w, s->u.store.buf, s->u.store.idx[0]))) {
		w->bad = s->u.store.buf;
		return STIR_VISIT_STOP;
	}
	return STIR_VISIT_GO;
}

/* slot, user: expr_pre of check_slots: a load's index. */
static stir_visit_step slot_load(stir_expr **slot, void *user)
{
	slot_walk *w = user;
	const stir_expr *x = *slot;
	if (x->kind == STIR_EXPR_LOAD && !(x->u.load.n == 1 &&
	    slot_ok(w, x->u.load.buf, x->u.load.idx[0]))) {
		w->bad = x->u.load.buf;
		return STIR_VISIT_STOP;
	}
	return STIR_VISIT_GO;
}

/* walk, s, nc: whether the buffers that the nc copies of pipelined loop s
 * write are used as the primitive leaves them (schedule/sw_pipeline.c),
 * so that issuing the copies early is safe: each of stages slots of E
 * elements, every access inside the loop at "v % stages * E + r" with r
 * free of v, none outside it.  A hand-written pipeline(S) loop that is
 * not so is refused here (the interpreter runs it as a serial loop
 * either way). */
static bool check_slots(gpu_walk *walk, const stir_stmt *s, int nc)
{
	slot_walk w = { .walk = walk, .v = s->u.for_.var, .stages = s->u.for_.stages };
	for (int i = 0; i < nc && i < 8; i++) {
		stir_mma_match m;
		int64_t n;
		stir_is_copy_nest(stir_pipeline_copy(stir_stmt_at(&s->u.for_.body,
			i)), &m);
		const stir_buffer *d = m.c.buf;
		stir_uses all = { .buf = d }, in = { .buf = d };
		stir_uses_list(&all, &walk->k->body);
		stir_uses_stmt(&in, s);
		if (!cuda_literal_value(walk->ctx, walk->k, d->extent, &n) ||
		    n % w.stages != 0 || all.loads + all.stores !=
		    in.loads + in.stores) {
			w.bad = d;
			break;
		}
		w.buf[w.n] = d;
		w.ext[w.n++] = n / w.stages;
	}
	if (!w.bad && nc <= 8) {
		stir_visitor v = { .stmt_pre = slot_store, .expr_pre = slot_load,
			.user = &w };
		stir_visit_list(&v, (stir_ptr_vec *)&s->u.for_.body);
	}
	if (w.bad || nc > 8)
		gpu_error(walk, s->loc, "pipelined loop '%s': shared buffer '%s' is "
			"not held in %d slots indexed '%s %% %d * E + ..' (what the "
			"pipeline primitive makes) and used only in the loop",
			s->u.for_.var->name, w.bad ? w.bad->name : "?",
			(int)w.stages, s->u.for_.var->name, (int)w.stages);
	return !w.bad && nc <= 8;
}

/* walk, s: see verify/gpu.h. */
bool cuda_check_pipeline(gpu_walk *walk, const stir_stmt *s)
{
	const stir_ptr_vec *body = &s->u.for_.body;
	int nc = stir_pipeline_copies(s);
	const stir_stmt *first = nc < body->n ? stir_stmt_at(body, nc) : NULL;
	const stir_stmt *last = body->n ? stir_stmt_at(body, body->n - 1) :
		NULL;
	if (nc == 0 || !first || first->kind != STIR_STMT_BARRIER ||
	    last->kind != STIR_STMT_BARRIER || last == first) {
		gpu_error(walk, s->loc, "pipelined loop '%s' must hold its copy "
			"nests, a barrier, the statements that use the copies and a "
			"barrier, in that order", s->u.for_.var->name);
		return false;
	}
	return check_slots(walk, s, nc);
}
