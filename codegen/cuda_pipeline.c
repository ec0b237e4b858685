/* The CUDA of a pipelined loop (STIR_LOOP_PIPELINE, schedule/sw_pipeline.c;
 * docs/cuda.md, "Software pipelines").
 *
 * The loop's body is: copy nests into shared memory (cp_async_16), each
 * writing slot j % S of its buffer; a barrier; the statements that use
 * the copies; a barrier (the barrier pass puts both: the uses read what
 * other lanes copied, and the next copies overwrite what was read).  The
 * interpreter runs it as it reads.  Here the copies of iteration j are
 * issued S - 1 iterations early, each iteration's copies one cp.async
 * commit group:
 *
 *   prologue: for p in 0 .. S - 2: copies of iteration p (when p < n);
 *             commit
 *   for j:    copies of iteration j + S - 1 (when < n); commit;
 *             wait until at most S - 1 groups are pending (iteration
 *             j's group has landed); barrier; uses; barrier
 *
 * Why it is right: iteration j + S - 1's copies write slot
 * (j - 1) % S, which only iteration j - 1 read, before the barrier that
 * ends it; iteration j's uses read slot j % S after its group's wait and
 * the barrier that shows every lane's pieces to the others.  The copies
 * read nothing the loop writes (the primitive's check), so issuing them
 * early reads the same.  A group is committed every iteration, empty or
 * not, so that the count of pending groups stays exact at the end.  The
 * GPU verifier checks the loop's form first (verify/pipeline.c).
 *
 * A batch of U iterations (pipeline(S, U), 2 <= 2U <= S) steps U
 * iterations at a time, one wait and one pair of barriers a step, the
 * products of the U iterations side by side between them:
 *
 *   prologue: for p in 0 .. S - U - 1: copies of iteration p; commit
 *   for j in 0, U, 2U, ..:
 *             for p in j + S - U .. j + S - 1: copies of p (when < n);
 *             commit; wait until at most S - U groups are pending
 *             (iterations j .. j + U - 1 have landed); barrier;
 *             uses of j, j + 1, .., j + U - 1 (each after the first
 *             when < n); barrier
 *
 * The copies of a step write slots (j + S - U) % S .. (j + S - 1) % S,
 * which neither its own iterations j .. j + U - 1 read (S >= 2U) nor
 * any earlier step after the barrier that ended it. */
#include "codegen/cuda_internal.h"
#include "ir/intrinsics.h"

/* e, s, ctx, nc, id: the copies of loop s (its first nc
 * statements) for the iteration held in stir_pID, when it is below the
 * extent stir_nID: the loop variable redeclared to it. */
static void put_ahead(emitter *e, const stir_stmt *s, const ectx *ctx,
	int nc, int id)
{
	cg_printer *p = e->out;
	const stir_var *v = s->u.for_.var;
	stir_ptr_vec copies = { .n = nc, .cap = nc, .v = s->u.for_.body.v };
	cg_line(p, "if (stir_p%d < stir_n%d) {", id, id);
	p->indent++;
	cg_indent(p);
	cg_putf(p, "const %s ", cuda_ctype(v->dtype));
	cuda_put_name(e, v->name);
	cg_putf(p, " = stir_p%d;\n", id);
	e->pipe_issue = true;
	cuda_emit_list(e, &copies, ctx);
	e->pipe_issue = false;
	p->indent--;
	cg_line(p, "}");
	cg_line(p, "stir_cp_async_commit();");
}

/* e, s, uses, ctx, id, u: the statements uses of loop s for iteration
 * stir_jID + u, the loop variable redeclared to it. */
static void put_uses(emitter *e, const stir_stmt *s, const stir_ptr_vec *uses,
	const ectx *ctx, int id, int u)
{
	cg_printer *p = e->out;
	const stir_var *v = s->u.for_.var;
	cg_line(p, "{");
	p->indent++;
	cg_indent(p);
	cg_putf(p, "const %s ", cuda_ctype(v->dtype));
	cuda_put_name(e, v->name);
	cg_putf(p, " = stir_j%d + %d;\n", id, u);
	cuda_emit_list(e, uses, ctx);
	p->indent--;
	cg_line(p, "}");
}

/* e, s, ctx, nc, id: pipelined loop s stepping a batch of iterations at a
 * time (the comment at the top); its extent is in stir_nID. */
static void put_batched(emitter *e, const stir_stmt *s, const ectx *ctx,
	int nc, int id)
{
	cg_printer *p = e->out;
	const stir_ptr_vec *body = &s->u.for_.body;
	const char *t = cuda_ctype(s->u.for_.var->dtype);
	int stages = s->u.for_.stages, batch = s->u.for_.batch;
	stir_ptr_vec open = { .n = 1, .cap = 1, .v = body->v + nc };
	stir_ptr_vec uses = { .n = body->n - nc - 2, .cap = body->n - nc - 2,
		.v = body->v + nc + 1 };
	stir_ptr_vec close = { .n = 1, .cap = 1, .v = body->v + body->n - 1 };
	cg_line(p, "for (%s stir_p%d = 0; stir_p%d < %d; ++stir_p%d) {", t, id,
		id, stages - batch, id);
	p->indent++;
	put_ahead(e, s, ctx, nc, id);
	p->indent--;
	cg_line(p, "}");
	cg_line(p, "for (%s stir_j%d = 0; stir_j%d < stir_n%d; stir_j%d += %d) {",
		t, id, id, id, id, batch);
	p->indent++;
	cg_line(p, "#pragma unroll");
	cg_line(p, "for (%s stir_p%d = stir_j%d + %d; stir_p%d < stir_j%d + %d; "
		"++stir_p%d) {", t, id, id, stages - batch, id, id, stages, id);
	p->indent++;
	put_ahead(e, s, ctx, nc, id);
	p->indent--;
	cg_line(p, "}");
	cg_line(p, "stir_cp_async_wait_group<%d>();", stages - batch);
	cuda_emit_list(e, &open, ctx);
	cg_line(p, "if (stir_j%d + %d <= stir_n%d) {", id, batch, id);
	p->indent++;
	for (int u = 0; u < batch; u++)
		put_uses(e, s, &uses, ctx, id, u);
	p->indent--;
	cg_line(p, "} else {  // the last, partial batch");
	p->indent++;
	put_uses(e, s, &uses, ctx, id, 0);
	for (int u = 1; u < batch; u++) {
		cg_line(p, "if (stir_j%d + %d < stir_n%d)", id, u, id);
		p->indent++;
		put_uses(e, s, &uses, ctx, id, u);
		p->indent--;
	}
	p->indent--;
	cg_line(p, "}");
	cuda_emit_list(e, &close, ctx);
	p->indent--;
	cg_line(p, "}");
}

/* e, s, ctx: see cuda_internal.h. */
void cuda_emit_pipeline(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	cg_printer *p = e->out;
	const stir_ptr_vec *body = &s->u.for_.body;
	const stir_var *v = s->u.for_.var;
	/* the GPU verifier accepted the loop (verify/pipeline.c) */
	int stages = s->u.for_.stages, nc = stir_pipeline_copies(s);
	ectx c = *ctx;
	c.divergent |= cuda_expr_deps(&e->facts, s->u.for_.extent) & THREAD_DIMS;
	int id = e->n_tmp++;
	e->need_pipe = true;
	int batch = s->u.for_.batch;
	if (batch > 1)
		cg_line(p, "{  // pipeline(%d, %d): the copies of iterations %s + "
			"%d .. %s + %d issued before the products of %s .. %s + %d",
			stages, batch, v->name, stages - batch, v->name, stages - 1,
			v->name, v->name, batch - 1);
	else
		cg_line(p, "{  // pipeline(%d): the copies of iteration %s + %d "
			"issued before %s's products", stages, v->name, stages - 1,
			v->name);
	p->indent++;
	cg_indent(p);
	cg_putf(p, "const %s stir_n%d = ", cuda_ctype(v->dtype), id);
	cuda_expr(e, ctx, s->u.for_.extent, P_TOP);
	cg_put(p, ";\n");
	if (batch > 1) {
		put_batched(e, s, &c, nc, id);
		p->indent--;
		cg_line(p, "}");
		return;
	}
	cg_line(p, "for (%s stir_p%d = 0; stir_p%d < %d; ++stir_p%d) {",
		cuda_ctype(v->dtype), id, id, stages - 1, id);
	p->indent++;
	put_ahead(e, s, &c, nc, id);
	p->indent--;
	cg_line(p, "}");
	char n[32];
	snprintf(n, sizeof(n), "stir_n%d", id);
	cuda_put_for_head(e, v, n, 1);
	cg_put(p, " {\n");
	p->indent++;
	cg_line(p, "{");
	p->indent++;
	cg_indent(p);
	cg_putf(p, "const %s stir_p%d = ", cuda_ctype(v->dtype), id);
	cuda_put_name(e, v->name);
	cg_putf(p, " + %d;\n", stages - 1);
	put_ahead(e, s, &c, nc, id);
	p->indent--;
	cg_line(p, "}");
	cg_line(p, "stir_cp_async_wait_group<%d>();", stages - 1);
	stir_ptr_vec rest = { .n = body->n - nc, .cap = body->n - nc,
		.v = body->v + nc };
	cuda_emit_list(e, &rest, &c);
	p->indent--;
	cg_line(p, "}");
	p->indent--;
	cg_line(p, "}");
}
