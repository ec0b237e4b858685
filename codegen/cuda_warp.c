/* The CUDA emitter's warp buffers (docs/cuda.md): register arrays spread
 * over the lanes of the loop bound to threadIdx.x, their loads (a
 * shuffle from the lane holding the element), their fill loops and
 * their stores. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codegen/cuda_internal.h"
#include "ir/layout.h"
#include "ir/visit.h"

/* Warp buffers ------------------------------------------------------------
 *
 * A warp buffer (scope warp, made by cache_read) is a register array
 * spread over the L lanes of the loop bound to threadIdx.x that uses it:
 * lane t holds elements t, t + L, t + 2L, ... in NAME[0], NAME[1], ...
 * Its fill loop, a serial loop "for ax in [0, E)" storing element ax,
 * runs as "ax = i * L + lane" for i < ceil(E / L), each lane storing its
 * own elements; a read of element j is __shfl_sync(MASK, NAME[j / L],
 * j % L, L) from the lane that holds it.  This is the interpreter's
 * meaning (every thread a whole copy) because the copies of the lanes
 * are the same: what is stored, the element read and the control flow
 * around both do not depend on threadIdx.x.  The lanes of a loop are
 * the launch's threads in x (a literal power of two up to 32), so that
 * they are one aligned group of lanes of a warp, whose mask is MASK. */


/* e, ctx: see cuda_internal.h. */
int64_t cuda_warp_lanes_here(const emitter *e, const ectx *ctx)
{
	return gpu_warp_lanes_here(&e->facts, &e->launch->shape, ctx);
}

/* e, ctx, buf, n: the lanes warp buffer buf is spread over where ctx
 * runs (noted in e->warp_lanes for its declaration), and its elements in
 * *n (the verifier checked both). */
static int64_t warp_shape(emitter *e, const ectx *ctx,
	const stir_buffer *buf, int64_t *n)
{
	int64_t lanes = cuda_warp_lanes_here(e, ctx);
	if (!cuda_literal_value(e->ctx, e->k, buf->extent, n) || !lanes) {
		/* (unreachable after stir_kernel_verify_gpu) */
		e->failed = true;
		return 0;
	}
	e->warp_lanes[buf->index] = lanes;
	return lanes;
}

/* e, lanes: the mask of this thread's group of "lanes" lanes. */
static void put_lane_mask(emitter *e, int64_t lanes)
{
	if (lanes == 32) {
		cg_put(e->out, "0xffffffffu");
		return;
	}
	e->need_lanes = true;
	cg_putf(e->out, "stir_lanes(%" PRId64 ")", lanes);
}

/* e, ctx, x: see cuda_internal.h. */
void cuda_warp_load(emitter *e, const ectx *ctx, const stir_expr *x)
{
	const stir_buffer *buf = x->u.load.buf;
	const stir_expr *idx = x->u.load.idx[0];
	if (e->buf_used)
		e->buf_used[buf->index] = true;
	cuda_record(e, buf, idx);
	int64_t n, lanes = warp_shape(e, ctx, buf, &n);
	if (!lanes)
		return;
	cg_put(e->out, "__shfl_sync(");
	put_lane_mask(e, lanes);
	cg_put(e->out, ", ");
	cuda_put_name(e, buf->name);
	if (n <= lanes) {
		cg_put(e->out, "[0], ");
		cuda_expr(e, ctx, idx, P_COND);
	} else {
		cg_put(e->out, "[");
		cuda_expr(e, ctx, idx, P_MUL + 1);
		cg_putf(e->out, " / %" PRId64 "], ", lanes);
		cuda_expr(e, ctx, idx, P_MUL + 1);
		cg_putf(e->out, " %% %" PRId64, lanes);
	}
	cg_putf(e->out, ", %" PRId64 ")", lanes);
}

/* e, ctx, buf, idx, op, v, s: a store into warp buffer buf, which only
 * its fill loop makes: this lane's element "idx", the fill's variable. */
void cuda_put_warp_store(emitter *e, const ectx *ctx,
	const stir_buffer *buf, const stir_expr *idx, stir_store_op op,
	const sval *v, const stir_stmt *s)
{
	if (e->buf_used) {
		e->buf_used[buf->index] = true;
		e->buf_written[buf->index] = true;
	}
	cuda_record(e, buf, idx);
	/* (an assignment of the fill's element: the verifier checked) */
	(void)op;
	cg_indent(e->out);
	cuda_put_name(e, buf->name);
	cg_putf(e->out, "[stir_f%d] = ", ctx->fill_id);
	cuda_put_val(e, ctx, v, buf->dtype, P_COND);
	cg_put(e->out, ";");
	cuda_put_loc_comment(e, s);
	cg_put(e->out, "\n");
}

/* e, s, ctx, buf: fill loop s of warp buffer buf: its iterations spread
 * over the lanes, each lane storing its own elements. */
void cuda_emit_warp_fill(emitter *e, const stir_stmt *s, const ectx *ctx,
	const stir_buffer *buf)
{
	const stir_var *v = s->u.for_.var;
	const stir_expr *ext = s->u.for_.extent;
	/* (the verifier checked the fill: cuda_check_warp_fill, and the
	 * control flow around it and inside at the store) */
	int64_t size, lanes = warp_shape(e, ctx, buf, &size);
	if (!lanes)
		return;
	int64_t n = ext->u.i, rounds = (n + lanes - 1) / lanes;
	int id = e->n_tmp++;
	cg_line(e->out, "// loop '%s' fills warp buffer '%s': %" PRId64
		" elements over %" PRId64 " lanes", v->name, buf->name, n, lanes);
	cg_line(e->out, "#pragma unroll");
	cg_line(e->out, "for (int stir_f%d = 0; stir_f%d < %" PRId64 "; "
		"++stir_f%d) {", id, id, rounds, id);
	e->out->indent++;
	cuda_put_const(e, v);
	cg_putf(e->out, " = stir_f%d * %" PRId64 " + ", id, lanes);
	cuda_put_name(e, ctx->bound[STIR_THREAD_X]->u.for_.var->name);
	cg_put(e->out, ";\n");
	ectx c = *ctx;
	c.fill = v;
	c.fill_id = id;
	bool tail = n % lanes != 0;
	if (tail) {
		/* the lanes past the last element store nothing: nothing in the
		 * fill may shuffle */
		c.fill_tail = true;
		cg_indent(e->out);
		cg_put(e->out, "if (");
		cuda_put_name(e, v->name);
		cg_putf(e->out, " < %" PRId64 ") {\n", n);
		e->out->indent++;
	}
	cuda_emit_list(e, &s->u.for_.body, &c);
	if (tail) {
		e->out->indent--;
		cg_line(e->out, "}");
	}
	e->out->indent--;
	cg_line(e->out, "}");
}
