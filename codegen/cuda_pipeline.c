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
 * GPU verifier checks the loop's form first (verify/pipeline.c). */
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
	cg_line(p, "{  // pipeline(%d): the copies of iteration %s + %d issued "
		"before %s's products", stages, v->name, stages - 1, v->name);
	p->indent++;
	cg_indent(p);
	cg_putf(p, "const %s stir_n%d = ", cuda_ctype(v->dtype), id);
	cuda_expr(e, ctx, s->u.for_.extent, P_TOP);
	cg_put(p, ";\n");
	cg_line(p, "for (%s stir_p%d = 0; stir_p%d < %d; ++stir_p%d) {",
		cuda_ctype(v->dtype), id, id, stages - 1, id);
	p->indent++;
	put_ahead(e, s, &c, nc, id);
	p->indent--;
	cg_line(p, "}");
	cg_indent(p);
	cg_putf(p, "for (%s ", cuda_ctype(v->dtype));
	cuda_put_name(e, v->name);
	cg_put(p, " = 0; ");
	cuda_put_name(e, v->name);
	cg_putf(p, " < stir_n%d; ++", id);
	cuda_put_name(e, v->name);
	cg_put(p, ") {\n");
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
