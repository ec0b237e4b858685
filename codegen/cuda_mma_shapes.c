/* The shapes of the loops around a tensorized product nest that the CUDA
 * emitter prints in a form of their own (docs/cuda.md, "Tensor cores"):
 * A's tile loaded once before the loop (cuda_mma_invariant_a), a warp's
 * tiles as an outer product (cuda_mma_outer), B's fragments two at a
 * time (cuda_mma_outer_pairs, cuda_mma_invariant_a_pairs), the steps'
 * fragments loaded before their mma (cuda_mma_steps) and an operand the
 * steps share loaded once (cuda_mma_invariant_steps).  Each only
 * recognizes its shape; codegen/cuda_stmt.c and codegen/cuda_mma.c print
 * it. */
#include "codegen/cuda_internal.h"
#include "ir/affine.h"
#include "ir/visit.h"

/* s, steps: the one statement of s when s is an unrolled loop of one
 * statement (of 2 to 16 iterations when "steps"), else NULL. */
static const stir_stmt *unrolled_body(const stir_stmt *s, bool steps)
{
	if (s->kind != STIR_STMT_FOR || s->u.for_.kind != STIR_LOOP_UNROLL ||
	    s->u.for_.body.n != 1)
		return NULL;
	const stir_expr *n = s->u.for_.extent;
	if (steps && (n->kind != STIR_EXPR_INT || n->u.i < 2 || n->u.i > 16))
		return NULL;
	return stir_stmt_at(&s->u.for_.body, 0);
}

/* x, guard: the one statement of x when x is a guard "if (..) { .. }"
 * with no else, x into *guard; else x, and *guard NULL. */
static const stir_stmt *under_guard(const stir_stmt *x,
	const stir_stmt **guard)
{
	*guard = NULL;
	if (x->kind != STIR_STMT_IF || x->u.if_.else_body.n ||
	    x->u.if_.then_body.n != 1)
		return x;
	*guard = x;
	return stir_stmt_at(&x->u.if_.then_body, 0);
}

/* nest, m: whether nest is a tensorized loop matching an mma.sync
 * intrinsic, its match into *m. */
static bool mma_nest(const stir_stmt *nest, stir_mma_match *m)
{
	return nest->kind == STIR_STMT_FOR &&
		nest->u.for_.kind == STIR_LOOP_TENSORIZE &&
		gpu_mma_match(nest, m) && m->form == STIR_MMA_FORM_MMA;
}

/* nest, m: whether nest may print in an outer product (cuda_mma_outer,
 * cuda_mma_invariant_a_pairs): an mma nest into a fragment (its match
 * into *m), no row guard, no gather, no scale, neither A nor B its
 * accumulator. */
static bool outer_nest(const stir_stmt *nest, stir_mma_match *m)
{
	return mma_nest(nest, m) && m->frag && !m->guard && !m->a.gather &&
		!m->a.scale && !m->b.gather && m->a.buf != m->c.buf &&
		m->b.buf != m->c.buf && m->a.buf != m->frag &&
		m->b.buf != m->frag;
}

/* s, guard: see cuda_internal.h. */
const stir_stmt *cuda_mma_invariant_a(const stir_stmt *s,
	const stir_stmt **guard)
{
	*guard = NULL;
	const stir_stmt *x = unrolled_body(s, false);
	if (!x)
		return NULL;
	const stir_var *v = s->u.for_.var;
	const stir_stmt *nest = under_guard(x, guard);
	stir_mma_match m;
	if ((*guard && stir_expr_uses((*guard)->u.if_.cond, v)) ||
	    !mma_nest(nest, &m) ||
	    m.a.gather || m.a.scale || m.guard || m.a.buf == m.c.buf ||
	    stir_mma_index_uses(m.block, m.a.index, v) ||
	    (*guard && !m.frag)) {
		/* (under a guard, the nest writes only fragments, which the
		 * guard cannot read) */
		*guard = NULL;
		return NULL;
	}
	return nest;
}

/* m, b_loop: see cuda_internal.h. */
bool cuda_mma_outer_pairs(const stir_mma_match *m, const stir_stmt *b_loop)
{
	/* (opaque terms, such as a pipeline's slot, must not name the
	 * loop) */
	stir_affine_opts o = { .flags = STIR_AFFINE_NEG |
		STIR_AFFINE_WIDENING_CASTS | STIR_AFFINE_OPAQUE,
		.expand = stir_mma_block_binding, .user = m->block };
	stir_affine a = { 0 };
	const stir_var *v = b_loop->u.for_.var;
	const stir_expr *ext = b_loop->u.for_.extent;
	if (ext->kind != STIR_EXPR_INT || ext->u.i % 2 != 0 ||
	    !cuda_mma_use_ldsm(m, &m->b) || m->b.transposed ||
	    !stir_affine_add(&a, m->b.index, 1, &o))
		return false;
	for (int i = 0; i < a.n; i++)
		if (!a.t[i].var && stir_mma_index_uses(m->block, a.t[i].atom, v))
			return false;
	return stir_affine_coef(&a, v) == m->in->n;
}

/* s, nest: see cuda_internal.h. */
bool cuda_mma_invariant_a_pairs(const stir_stmt *s, const stir_stmt *nest)
{
	stir_mma_match m;
	return unrolled_body(s, true) == nest && outer_nest(nest, &m) &&
		cuda_mma_outer_pairs(&m, s);
}

/* s, a_loop, b_loop: see cuda_internal.h. */
const stir_stmt *cuda_mma_outer(const stir_stmt *s, const stir_stmt **a_loop,
	const stir_stmt **b_loop)
{
	*a_loop = *b_loop = NULL;
	const stir_stmt *w = unrolled_body(s, true);
	const stir_stmt *nest = w ? unrolled_body(w, true) : NULL;
	stir_mma_match m;
	if (!nest || !outer_nest(nest, &m))
		return NULL;
	const stir_var *u = s->u.for_.var, *v = w->u.for_.var;
	bool au = stir_mma_index_uses(m.block, m.a.index, u);
	bool av = stir_mma_index_uses(m.block, m.a.index, v);
	bool bu = stir_mma_index_uses(m.block, m.b.index, u);
	bool bv = stir_mma_index_uses(m.block, m.b.index, v);
	if (au && !av && bv && !bu) {
		*a_loop = s;
		*b_loop = w;
	} else if (av && !au && bu && !bv) {
		*a_loop = w;
		*b_loop = s;
	} else {
		return NULL;
	}
	return nest;
}

/* s: see cuda_internal.h. */
const stir_stmt *cuda_mma_steps(const stir_stmt *s)
{
	const stir_stmt *g;
	const stir_stmt *nest = unrolled_body(s, true);
	stir_mma_match m;
	if (!nest || cuda_mma_invariant_a(s, &g) || !mma_nest(nest, &m) ||
	    !m.frag || m.guard || !(m.a.gather || m.b.gather))
		return NULL;
	return nest;
}

/* s, guard, steps, op: see cuda_internal.h. */
const stir_stmt *cuda_mma_invariant_steps(const stir_stmt *s,
	const stir_stmt **guard, const stir_stmt **steps, char *op)
{
	*guard = NULL;
	*steps = NULL;
	const stir_stmt *g, *x = unrolled_body(s, true);
	if (!x)
		return NULL;
	const stir_var *v = s->u.for_.var;
	x = under_guard(x, &g);
	const stir_stmt *nest = cuda_mma_steps(x);
	stir_mma_match m;
	if (!nest || !gpu_mma_match(nest, &m) ||
	    stir_expr_uses(x->u.for_.extent, v))
		return NULL;
	/* (the steps' other operand is the gathered one: cuda_mma_steps) */
	const stir_mma_operand *o = m.a.gather ? &m.b : &m.a;
	if (o->gather || o->scale || o->buf == m.c.buf || o->buf == m.frag ||
	    stir_mma_index_uses(m.block, o->index, v))
		return NULL;
	*guard = g;
	*steps = x;
	*op = o == &m.a ? 'a' : 'b';
	return nest;
}
