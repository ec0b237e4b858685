/* The CUDA emitter's statements (docs/cuda.md): a statement list with the
 * barriers between its statements, guarded statements, if, let, blocks,
 * serial loops and barriers, and the static facts about statements that
 * they look at and that depend on the emitter (what an expression names
 * as printed; the IR's own facts are verify/facts.c).  Thread-bound
 * loops and stores are in cuda_reduce.c, vector loops in cuda_vector.c,
 * warp buffers' fill loops in cuda_warp.c. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codegen/cuda_internal.h"
#include "ir/layout.h"
#include "ir/visit.h"

/* e: a barrier statement (every thread of the block reaches it: the
 * verifier checked). */
static void emit_barrier(emitter *e)
{
	cg_line(e->out, "__syncthreads();");
}

/* ---- statements --------------------------------------------------------- */

/* e, dims: print "threadIdx.x == 0 && ..." for the indices dims. */
void cuda_put_index_zero(emitter *e, unsigned dims)
{
	bool first = true;
	static const int order[N_DIMS] = {
		STIR_THREAD_X, STIR_THREAD_Y, STIR_THREAD_Z,
		STIR_BLOCK_X, STIR_BLOCK_Y, STIR_BLOCK_Z,
	};
	for (int i = 0; i < N_DIMS; i++) {
		if (!(dims & DIM_BIT(order[i])))
			continue;
		cg_putf(e->out, "%s%s == 0", first ? "" : " && ",
			cuda_dim_names[order[i]]);
		first = false;
	}
}

/* e, list, from, to, ctx: statement list[to] of a list, with the hoisted
 * lets list[from .. to - 1] that stand before it (passes/hoist.c), guarded
 * to index 0 along the indices it would otherwise run redundantly on when
 * it stores to memory other threads see (the lets inside the guard). */
static void emit_guarded(emitter *e, const stir_ptr_vec *list, int from,
	int to, const ectx *ctx)
{
	unsigned u = gpu_guard_dims(stir_stmt_at(list, to), cuda_unbound(e, ctx));
	ectx c = *ctx;
	if (u) {
		c.single |= u;
		c.divergent |= u & THREAD_DIMS;
		cg_indent(e->out);
		cg_put(e->out, "if (");
		cuda_put_index_zero(e, u);
		cg_put(e->out, ") {\n");
		e->out->indent++;
	}
	for (int i = from; i <= to; i++)
		cuda_emit_stmt(e, stir_stmt_at(list, i), &c);
	if (u) {
		e->out->indent--;
		cg_line(e->out, "}");
	}
}

/* e, list, ctx: see cuda_internal.h.  (The barriers are statements of
 * the list: the barrier pass put them where the verifier wants them.) */
void cuda_emit_list(emitter *e, const stir_ptr_vec *list, const ectx *ctx)
{
	for (int i = 0; i < list->n && !e->failed; i++) {
		/* hoisted lets go with the statement after them */
		int from = i;
		i = gpu_group_end(list, i);
		emit_guarded(e, list, from, i, ctx);
	}
}

/* e, s, ctx: if/else. */
static void emit_if(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	ectx c = *ctx;
	c.divergent |= cuda_expr_deps(&e->facts, s->u.if_.cond) & THREAD_DIMS;
	cg_indent(e->out);
	cg_put(e->out, "if (");
	cuda_expr(e, ctx, s->u.if_.cond, P_TOP);
	cg_put(e->out, ") {\n");
	e->out->indent++;
	cuda_emit_list(e, &s->u.if_.then_body, &c);
	e->out->indent--;
	if (s->u.if_.else_body.n) {
		cg_line(e->out, "} else {");
		e->out->indent++;
		cuda_emit_list(e, &s->u.if_.else_body, &c);
		e->out->indent--;
	}
	cg_line(e->out, "}");
}

/* e, s, ctx, c: serial or unrolled loop s itself, its body emitted in
 * c (ctx with the loop's divergence).  The extent is evaluated once, as
 * the interpreter does, when it reads memory (the body might change
 * it). */
static void emit_loop(emitter *e, const stir_stmt *s, const ectx *ctx,
	const ectx *c)
{
	const stir_expr *ext = s->u.for_.extent;
	const stir_var *v = s->u.for_.var;
	if (s->u.for_.kind == STIR_LOOP_UNROLL)
		cg_line(e->out, "#pragma unroll");
	cg_indent(e->out);
	cg_putf(e->out, "for (%s ", cuda_ctype(v->dtype));
	cuda_put_name(e, v->name);
	if (stir_expr_reads_data(ext)) {
		int id = e->n_tmp++;
		cg_putf(e->out, " = 0, stir_n%d = ", id);
		cuda_expr(e, ctx, ext, P_COND);
		cg_put(e->out, "; ");
		cuda_put_name(e, v->name);
		cg_putf(e->out, " < stir_n%d; ++", id);
	} else {
		cg_put(e->out, " = 0; ");
		cuda_put_name(e, v->name);
		cg_put(e->out, " < ");
		cuda_expr(e, ctx, ext, P_REL + 1);
		cg_put(e->out, "; ++");
	}
	cuda_put_name(e, v->name);
	cg_put(e->out, ") {\n");
	e->out->indent++;
	cuda_emit_list(e, &s->u.for_.body, c);
	e->out->indent--;
	cg_line(e->out, "}");
}

/* e, v, bound: see cuda_internal.h. */
void cuda_put_for_head(emitter *e, const stir_var *v, const char *bound,
	int step)
{
	cg_indent(e->out);
	cg_putf(e->out, "for (%s ", cuda_ctype(v->dtype));
	cuda_put_name(e, v->name);
	cg_put(e->out, " = 0; ");
	cuda_put_name(e, v->name);
	cg_putf(e->out, " < %s; %s", bound, step == 1 ? "++" : "");
	cuda_put_name(e, v->name);
	if (step != 1)
		cg_putf(e->out, " += %d", step);
	cg_put(e->out, ")");
}

/* e, s, nest, ctx, c: unrolled loop s over the steps of product nest
 * (cuda_mma_steps) as two loops: the steps' fragments loaded, then their
 * mma in turn. */
static void emit_mma_steps(emitter *e, const stir_stmt *s,
	const stir_stmt *nest, const ectx *ctx, const ectx *c)
{
	cg_printer *p = e->out;
	stir_mma_match m;
	if (!gpu_mma_match(nest, &m)) {
		e->failed = true;
		return;
	}
	int64_t n = s->u.for_.extent->u.i;
	cg_line(p, "{  // the %" PRId64 " steps' fragments loaded first, then "
		"their mma", n);
	p->indent++;
	/* (not the operand loaded before the loop around the steps) */
	if (e->mma_hoist != nest || e->mma_hoist_op != 'a')
		cg_line(p, "%s_a stir_fa_s[%" PRId64 "];", m.in->cuda, n);
	if (e->mma_hoist != nest || e->mma_hoist_op != 'b')
		cg_line(p, "%s_b stir_fb_s[%" PRId64 "];", m.in->cuda, n);
	e->mma_steps = nest;
	e->mma_steps_var = s->u.for_.var;
	for (e->mma_phase = 1; e->mma_phase <= 2; e->mma_phase++)
		emit_loop(e, s, ctx, c);
	e->mma_steps = NULL;
	e->mma_steps_var = NULL;
	e->mma_phase = 0;
	p->indent--;
	cg_line(p, "}");
}

/* e, v, n, step, nest, c: "for (v = 0; v < n; v += step) nest",
 * unrolled. */
static void emit_unrolled_nest(emitter *e, const stir_var *v, int64_t n,
	int step, const stir_stmt *nest, const ectx *c)
{
	char bound[32];
	snprintf(bound, sizeof(bound), "%" PRId64, n);
	cg_line(e->out, "#pragma unroll");
	cuda_put_for_head(e, v, bound, step);
	cg_put(e->out, " {\n");
	e->out->indent++;
	cuda_emit_mma(e, nest, c);
	e->out->indent--;
	cg_line(e->out, "}");
}

/* e, s, nest, a_loop, b_loop, ctx, c: unrolled loop s and the one inside
 * it around product nest as an outer product (cuda_mma_outer): A's
 * fragments of a_loop's iterations loaded, then B's of b_loop's, then
 * the two loops with only the mma.  With a_loop NULL, s is b_loop and A
 * was loaded before it (cuda_mma_invariant_a_pairs). */
static void emit_mma_outer(emitter *e, const stir_stmt *s,
	const stir_stmt *nest, const stir_stmt *a_loop, const stir_stmt *b_loop,
	const ectx *ctx, const ectx *c)
{
	cg_printer *p = e->out;
	stir_mma_match m;
	if (!gpu_mma_match(nest, &m)) {
		e->failed = true;
		return;
	}
	int64_t na = a_loop ? a_loop->u.for_.extent->u.i : 1;
	int64_t nb = b_loop->u.for_.extent->u.i;
	if (a_loop)
		cg_line(p, "{  // A's %" PRId64 " tiles (one a %s) and B's %" PRId64
			" (one a %s) loaded, then their %" PRId64 " mma", na,
			a_loop->u.for_.var->name, nb, b_loop->u.for_.var->name,
			na * nb);
	else
		cg_line(p, "{  // B's %" PRId64 " tiles (one a %s) loaded, then "
			"their mma with A's", nb, b_loop->u.for_.var->name);
	p->indent++;
	if (a_loop)
		cg_line(p, "%s_a stir_fa_r[%" PRId64 "];", m.in->cuda, na);
	cg_line(p, "%s_b stir_fb_r[%" PRId64 "];", m.in->cuda, nb);
	e->mma_outer = nest;
	e->mma_outer_a = a_loop ? a_loop->u.for_.var : NULL;
	e->mma_outer_b = b_loop->u.for_.var;
	e->mma_phase = 4;
	if (a_loop)
		emit_unrolled_nest(e, e->mma_outer_a, na, 1, nest, c);
	e->mma_phase = 5;
	e->mma_outer_pairs = cuda_mma_outer_pairs(&m, b_loop);
	emit_unrolled_nest(e, e->mma_outer_b, nb, e->mma_outer_pairs ? 2 : 1,
		nest, c);
	e->mma_outer_pairs = false;
	e->mma_phase = 6;
	emit_loop(e, s, ctx, c);
	e->mma_outer = NULL;
	e->mma_outer_a = e->mma_outer_b = NULL;
	e->mma_phase = 0;
	p->indent--;
	cg_line(p, "}");
}

/* e, s, nest, guard, steps, op, ctx, c: unrolled loop s around the
 * steps of product nest (cuda_mma_invariant_steps): operand op's
 * fragments of every step loaded first, where guard's condition holds
 * for some iteration of s, then s, whose steps load only the other
 * operand. */
static void emit_invariant_steps(emitter *e, const stir_stmt *s,
	const stir_stmt *nest, const stir_stmt *guard, const stir_stmt *steps,
	char op, const ectx *ctx, const ectx *c)
{
	cg_printer *p = e->out;
	stir_mma_match m;
	if (!gpu_mma_match(nest, &m)) {
		e->failed = true;
		return;
	}
	const stir_var *v = s->u.for_.var;
	cg_line(p, "{  // %c's fragments of the %" PRId64 " steps, the same for "
		"each %s: loaded once", op == 'a' ? 'A' : 'B',
		steps->u.for_.extent->u.i, v->name);
	p->indent++;
	cg_line(p, "%s_%c stir_f%c_h[%" PRId64 "];", m.in->cuda, op, op,
		steps->u.for_.extent->u.i);
	if (guard) {
		/* (the loads that some iteration's guard lets through) */
		cg_line(p, "bool stir_any = false;");
		cg_line(p, "#pragma unroll");
		char n[32];
		snprintf(n, sizeof(n), "%" PRId64, s->u.for_.extent->u.i);
		cuda_put_for_head(e, v, n, 1);
		cg_put(p, "\n");
		p->indent++;
		cg_indent(p);
		cg_put(p, "stir_any = stir_any || ");
		cuda_expr(e, c, guard->u.if_.cond, P_COND);
		cg_put(p, ";\n");
		p->indent--;
		cg_line(p, "if (stir_any) {");
		p->indent++;
	}
	e->mma_hoist = nest;
	e->mma_hoist_op = op;
	e->mma_steps = nest;
	e->mma_steps_var = steps->u.for_.var;
	e->mma_phase = 3;
	emit_loop(e, steps, c, c);
	e->mma_steps = NULL;
	e->mma_steps_var = NULL;
	e->mma_phase = 0;
	if (guard) {
		p->indent--;
		cg_line(p, "}");
	}
	emit_loop(e, s, ctx, c);
	e->mma_hoist = NULL;
	e->mma_hoist_op = 0;
	p->indent--;
	cg_line(p, "}");
}

/* e, s, ctx: a serial or unrolled loop (GPU_FORM_SERIAL_LOOP), printed
 * with the loop inside it as an outer product (cuda_mma_outer), with A's
 * tile loaded before it (cuda_mma_invariant_a), an operand of the steps
 * inside it loaded before it (cuda_mma_invariant_steps) or its steps
 * printed as two loops (cuda_mma_steps) where they apply. */
static void emit_serial_loop(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	ectx c = *ctx;
	c.divergent |= cuda_expr_deps(&e->facts, s->u.for_.extent) &
		THREAD_DIMS;
	if (e->mma_outer) {
		/* (the inner loop of an outer product: emit_mma_outer) */
		emit_loop(e, s, ctx, &c);
		return;
	}
	const stir_stmt *o_a, *o_b;
	const stir_stmt *o_nest = cuda_mma_outer(s, &o_a, &o_b);
	if (o_nest) {
		emit_mma_outer(e, s, o_nest, o_a, o_b, ctx, &c);
		return;
	}
	const stir_stmt *h_guard, *h_steps;
	char h_op;
	const stir_stmt *h_nest = cuda_mma_invariant_steps(s, &h_guard,
		&h_steps, &h_op);
	if (h_nest) {
		emit_invariant_steps(e, s, h_nest, h_guard, h_steps, h_op, ctx,
			&c);
		return;
	}
	const stir_stmt *a_guard;
	const stir_stmt *a_loaded = cuda_mma_invariant_a(s, &a_guard);
	const stir_stmt *steps = a_loaded ? NULL : cuda_mma_steps(s);
	if (steps) {
		emit_mma_steps(e, s, steps, ctx, &c);
		return;
	}
	if (a_loaded) {
		cg_line(e->out, "{");
		e->out->indent++;
		cuda_mma_load_invariant_a(e, a_loaded, a_guard, &c);
		e->mma_a_loaded = a_loaded;
	}
	if (a_loaded && !a_guard && cuda_mma_invariant_a_pairs(s, a_loaded))
		emit_mma_outer(e, s, a_loaded, NULL, s, ctx, &c);
	else
		emit_loop(e, s, ctx, &c);
	if (a_loaded) {
		e->mma_a_loaded = NULL;
		e->out->indent--;
		cg_line(e->out, "}");
	}
}

/* e, s, ctx: a block: a scope holding its variables as constants. */
static void emit_block(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	cg_printer *p = e->out;
	/* a horizontal block is a launch, a cross-thread block is inside a
	 * loop bound to threadIdx.x (cuda_verify_structure) */
	cg_line(p, "{  // block %s", s->u.block.name);
	p->indent++;
	/* a cross-thread block's one store becomes an addition to the
	 * thread's part: only its value is emitted here, its target after
	 * the combining tree */
	const stir_stmt *red_store = (s->u.block.flags &
		STIR_BLOCK_CROSS_THREAD) ? stir_stmt_at(&s->u.block.body, 0) : NULL;
	/* into a register array, the element is emitted here too */
	const red *r = red_store ? cuda_red_of(ctx, red_store) : NULL;
	for (int i = 0; i < s->u.block.n_vars; i++) {
		const stir_var *v = s->u.block.vars[i];
		if (red_store ? !gpu_names_var(NULL, red_store->u.store.value, v) &&
		    !(r && r->elems && gpu_names_var(NULL,
		    red_store->u.store.idx[0], v)) :
		    !gpu_list_names_var(NULL, &s->u.block.body, v))
			continue; /* unused: no declaration to warn about */
		cuda_put_const(e, v);
		cg_put(p, " = ");
		cuda_expr(e, ctx, s->u.block.bindings[i], P_COND);
		cg_put(p, ";\n");
	}
	ectx c = *ctx;
	if (s->u.block.flags & STIR_BLOCK_ATOMIC)
		c.atomic = true;
	cuda_emit_list(e, &s->u.block.body, &c);
	p->indent--;
	cg_line(p, "}");
}

/* e, s, ctx: let v = value as a constant. */
void cuda_emit_let(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	const stir_var *v = s->u.let.var;
	const stir_expr *x = s->u.let.value;
	cg_indent(e->out);
	cg_putf(e->out, "const %s ", cuda_ctype(v->dtype));
	if (s->u.let.hoisted) {
		/* a constant stir_sN (passes/hoist.c) */
		e->hoist_id[v->slot] = ++e->n_hoist;
		cg_putf(e->out, "stir_s%d = ", e->n_hoist - 1);
		cuda_expr(e, ctx, x, P_COND);
		cg_putf(e->out, ";  // a %s the loop does not change\n",
			x->kind == STIR_EXPR_SEARCH ? "search" : "warp buffer read");
		return;
	}
	cuda_put_name(e, v->name);
	cg_put(e->out, " = ");
	cuda_expr(e, ctx, x, P_COND);
	cg_put(e->out, ";\n");
}

/* e, s, ctx: see cuda_internal.h.  What s becomes is gpu_form_of's
 * (verify/facts.c), which the verifier's walk follows too. */
void cuda_emit_stmt(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	/* a loop inside a fill loop is not part of the fill (split guards
	 * are tested before the loop nests they are in by the lift_guards
	 * pass, passes/lift_guards.c) */
	ectx c = *ctx;
	if (s->kind == STIR_STMT_FOR)
		c.fill = NULL;
	switch (gpu_form_of(s)) {
	case GPU_FORM_STORE:
		cuda_emit_store(e, s, ctx);
		return;
	case GPU_FORM_LET:
		cuda_emit_let(e, s, ctx);
		return;
	case GPU_FORM_IF:
		emit_if(e, s, ctx);
		return;
	case GPU_FORM_BLOCK:
		emit_block(e, s, ctx);
		return;
	case GPU_FORM_BOUND_LOOP:
		cuda_emit_bound_loop(e, s, &c);
		return;
	case GPU_FORM_VECTOR_LOOP:
		cuda_emit_vector_loop(e, s, &c);
		return;
	case GPU_FORM_MMA:
		cuda_emit_mma(e, s, &c);
		return;
	case GPU_FORM_PIPELINE:
		cuda_emit_pipeline(e, s, &c);
		return;
	case GPU_FORM_WARP_FILL:
		cuda_emit_warp_fill(e, s, &c, cuda_warp_fill_of(&s->u.for_.body));
		return;
	case GPU_FORM_SERIAL_LOOP:
		emit_serial_loop(e, s, &c);
		return;
	case GPU_FORM_BARRIER:
		emit_barrier(e);
		return;
	case GPU_FORM_REFUSED:
		e->failed = true;
		return;
	}
}
