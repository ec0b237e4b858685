/* The accesses of a tensorized nest (docs/cuda.md, "Tensor cores"), for
 * the verifier's walk: read from the nest's match against its intrinsic's
 * description (stir_tensorize_match, ir/intrinsics.c), not by printing.
 *
 * The emitter prints the nest as the intrinsic's device functions
 * (codegen/cuda_mma.c); gpu_walk_mma records the same accesses in the
 * same order and context: the bindings of the nest's block variables
 * that the printed indices name, then per form the operands (each the
 * access of its tile, then its index expression), the accumulator's
 * tile index and the guard.  What cuda_mma.c prints must stay in step
 * with this file: the barriers placed and the refusals depend on it. */
#include "verify/gpu.h"
#include "ir/affine.h"
#include "ir/intrinsics.h"
#include "ir/visit.h"

/* xs, n, v: does one of the n expressions xs name v? */
static bool named_by(const stir_expr *const *xs, int n, const stir_var *v)
{
	for (int i = 0; i < n; i++)
		if (xs[i] && stir_expr_uses(xs[i], v))
			return true;
	return false;
}

/* walk, ctx, m, xs, n: walk the bindings of the variables of the nest's
 * block that one of the n expressions xs names (the emitter declares
 * them before it prints xs). */
static void walk_bindings(gpu_walk *walk, const ectx *ctx,
	const stir_mma_match *m, const stir_expr *const *xs, int n)
{
	const stir_stmt *b = m->block;
	for (int i = 0; b && i < b->u.block.n_vars; i++)
		if (named_by(xs, n, b->u.block.vars[i]))
			cuda_walk_expr(walk, ctx, b->u.block.bindings[i]);
}

/* walk, ctx, op, write, atomic, loc: operand op's tile accessed (the
 * emitter's put_addr, put_base_index): the access, then its index. */
static void walk_operand(gpu_walk *walk, const ectx *ctx,
	const stir_mma_operand *op, bool write, bool atomic, stir_loc loc)
{
	gpu_record(walk, ctx, op->buf, op->index, write, atomic, loc);
	cuda_walk_expr(walk, ctx, op->index);
}

/* walk, ctx, m: the accumulator fragment's tile index (put_frag). */
static void walk_frag(gpu_walk *walk, const ectx *ctx, const stir_mma_match *m)
{
	if (m->frag_tiles > 1)
		cuda_walk_expr(walk, ctx, m->frag_index);
}

/* walk, ctx, m, op, g, loc: operand op loaded element by element
 * (put_elem_load), under guard g when not NULL. */
static void walk_elem_load(gpu_walk *walk, const ectx *ctx,
	const stir_mma_match *m, const stir_mma_operand *op,
	const stir_expr *g, stir_loc loc)
{
	const stir_expr *xs[2] = { op->index, g };
	gpu_record(walk, ctx, op->buf, op->index, false, false, loc);
	walk_bindings(walk, ctx, m, xs, g ? 2 : 1);
	if (g)
		cuda_walk_expr(walk, ctx, g);
	cuda_walk_expr(walk, ctx, op->index);
}

/* walk, ctx, m, loc: the accumulator stored into C element by element
 * (put_elem_store). */
static void walk_elem_store(gpu_walk *walk, const ectx *ctx,
	const stir_mma_match *m, stir_loc loc)
{
	const stir_expr *xs[2] = { m->c.index, m->guard };
	gpu_record(walk, ctx, m->c.buf, m->c.index, true, m->atomic, loc);
	walk_bindings(walk, ctx, m, xs, m->guard ? 2 : 1);
	if (m->guard)
		cuda_walk_expr(walk, ctx, m->guard);
	cuda_walk_expr(walk, ctx, m->c.index);
}

/* walk, ctx, m: the rows a guard stops restored (put_elem_restore). */
static void walk_elem_restore(gpu_walk *walk, const ectx *ctx,
	const stir_mma_match *m)
{
	const stir_expr *xs[1] = { m->guard };
	walk_bindings(walk, ctx, m, xs, 1);
	cuda_walk_expr(walk, ctx, m->guard);
}

/* list, v: the loop of variable v in list or below it, or NULL. */
static const stir_stmt *loop_of(const stir_ptr_vec *list, const stir_var *v)
{
	for (int i = 0; i < list->n; i++) {
		stir_stmt *s = list->v[i];
		if (s->kind == STIR_STMT_FOR && s->u.for_.var == v)
			return s;
		stir_ptr_vec *lists[2];
		int n = stir_stmt_lists(s, lists);
		for (int j = 0; j < n; j++) {
			const stir_stmt *l = loop_of(lists[j], v);
			if (l)
				return l;
		}
	}
	return NULL;
}

/* k, m: see verify/gpu.h. */
bool gpu_mma_a_whole(const stir_kernel *k, const stir_mma_match *m)
{
	const stir_buffer *a = m->a.buf;
	if (m->form != STIR_MMA_FORM_MMA || !m->guard || m->a.gather ||
	    m->a.scale ||
	    a->scope != STIR_SCOPE_SHARED || !a->extent ||
	    a->extent->kind != STIR_EXPR_INT)
		return false;
	stir_affine f = { 0 };
	stir_affine_opts o = { .flags = STIR_AFFINE_LOOP_VARS |
		STIR_AFFINE_WIDENING_CASTS, .expand = stir_mma_block_binding,
		.user = m->block };
	if (!stir_affine_add(&f, m->a.index, 1, &o) || f.konst < 0)
		return false;
	/* the largest index: each loop at its last value */
	int64_t hi = f.konst;
	for (int i = 0; i < f.n; i++) {
		const stir_stmt *l = f.t[i].var ?
			loop_of(&k->body, f.t[i].var) : NULL;
		const stir_expr *x = l ? l->u.for_.extent : NULL;
		if (!x || x->kind != STIR_EXPR_INT || x->u.i < 1 ||
		    f.t[i].coef < 0 || x->u.i - 1 > (INT64_MAX - hi) /
		    (f.t[i].coef ? f.t[i].coef : 1))
			return false;
		hi += f.t[i].coef * (x->u.i - 1);
	}
	return hi < a->extent->u.i;
}

/* m, printed: see verify/gpu.h. */
int gpu_mma_top_indices(const stir_mma_match *m, const stir_expr **printed)
{
	int n = 0;
	if (m->frag && m->frag_tiles > 1)
		printed[n++] = m->frag_index;
	bool elem_store = stir_mma_elem_store(m);
	if ((m->form == STIR_MMA_FORM_STORE && !elem_store) ||
	    m->form == STIR_MMA_FORM_COPY ||
	    (m->form == STIR_MMA_FORM_MMA && !m->frag))
		printed[n++] = m->c.index;
	if (m->form == STIR_MMA_FORM_COPY)
		printed[n++] = m->a.index;
	if (m->form == STIR_MMA_FORM_MMA) {
		if (!m->a.gather && !m->a.scale && !m->guard)
			printed[n++] = m->a.index;
		if (!m->b.gather)
			printed[n++] = m->b.index;
	}
	return n;
}

/* walk, s, ctx: see verify/gpu.h. */
void gpu_walk_mma(gpu_walk *walk, const stir_stmt *s, const ectx *ctx)
{
	stir_mma_match m;
	/* cuda_check_mma matched it first */
	if (!gpu_mma_match(s, &m)) {
		walk->failed = true;
		return;
	}
	ectx c = *ctx;
	c.bound[STIR_THREAD_X] = s;
	const stir_expr *printed[4];
	int n_printed = gpu_mma_top_indices(&m, printed);
	walk_bindings(walk, &c, &m, printed, n_printed);
	stir_loc loc = m.store->loc;
	bool elem_store = stir_mma_elem_store(&m);
	walk->in_mma = true;
	if (m.form == STIR_MMA_FORM_COPY) {
		walk_operand(walk, &c, &m.c, true, false, loc);
		walk_operand(walk, &c, &m.a, false, false, loc);
	} else if (m.form == STIR_MMA_FORM_FILL) {
		walk_frag(walk, &c, &m);
	} else if (elem_store) {
		walk_frag(walk, &c, &m);
		walk_elem_store(walk, &c, &m, loc);
	} else if (m.form == STIR_MMA_FORM_STORE && m.add && !m.atomic) {
		walk_operand(walk, &c, &m.c, false, false, loc);
		walk_frag(walk, &c, &m);
		walk_operand(walk, &c, &m.c, true, false, loc);
	} else if (m.form == STIR_MMA_FORM_STORE) {
		walk_operand(walk, &c, &m.c, true, m.atomic, loc);
		walk_frag(walk, &c, &m);
	} else {
		if (!m.frag)
			walk_operand(walk, &c, &m.c, false, false, loc);
		if (m.a.gather || m.a.scale || m.guard)
			walk_elem_load(walk, &c, &m, &m.a,
				gpu_mma_a_whole(walk->k, &m) ? NULL : m.guard, loc);
		else
			walk_operand(walk, &c, &m.a, false, false, loc);
		if (m.a.scale) {
			/* (the scale read where A's elements are, at their rows) */
			stir_mma_operand sc = { m.a.scale->u.load.buf,
				m.a.scale->u.load.idx[0], 0, false, true, NULL };
			walk_elem_load(walk, &c, &m, &sc, m.guard, loc);
		}
		if (m.b.gather)
			walk_elem_load(walk, &c, &m, &m.b, NULL, loc);
		else
			walk_operand(walk, &c, &m.b, false, false, loc);
		if (m.guard || m.frag)
			walk_frag(walk, &c, &m);
		if (m.guard)
			walk_elem_restore(walk, &c, &m);
		if (!m.frag)
			walk_operand(walk, &c, &m.c, true, false, loc);
	}
	walk->in_mma = false;
}
