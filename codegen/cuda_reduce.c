/* The CUDA emitter's stores and thread-bound loops (docs/cuda.md): one
 * store statement (plain, atomic, 16-bit, or one thread's part of a
 * cross-thread reduction), the cross-thread reductions of a loop bound
 * to threadIdx.x (per-thread partial sums, a warp-shuffle tree, the
 * combining store), and the loop bound to a thread index itself. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codegen/cuda_internal.h"
#include "ir/ops.h"
#include "ir/layout.h"
#include "ir/visit.h"

/* ---- stores ------------------------------------------------------------- */

/* e, ctx, v, to, prec: v converted to type "to" (v's type is "to", a
 * narrower integer, or for a variable the compute type of "to"). */
void cuda_put_val(emitter *e, const ectx *ctx, const sval *v,
	stir_dtype to, int prec)
{
	if (v->x) {
		cuda_conv(e, ctx, v->x, to, prec);
		return;
	}
	if (v->t == to || (stir_dtype_is_int(to) && stir_int_rank(v->t) <=
	    stir_int_rank(to) && to != STIR_I8)) {
		cg_put(e->out, v->name);
	} else if (cuda_round_open(e, to)) {
		cg_putf(e->out, "%s)", v->name);
	} else {
		cg_putf(e->out, prec > P_UNARY ? "((%s)%s)" : "(%s)%s",
			cuda_ctype(to), v->name);
	}
}

/* e, ctx, v, t, prec: v in the compute type of t. */
static void put_val_compute(emitter *e, const ectx *ctx, const sval *v,
	stir_dtype t, int prec)
{
	if (v->x)
		cuda_as_compute(e, ctx, v->x, prec);
	else
		cuda_put_val(e, ctx, v, cuda_compute_type(t), prec);
}

/* e, ctx, buf, idx: print "BUF[IDX]". */
static void put_elem(emitter *e, const ectx *ctx, const stir_buffer *buf,
	const stir_expr *idx)
{
	cuda_put_name(e, buf->name);
	cg_put(e->out, "[");
	cuda_expr(e, ctx, idx, P_TOP);
	cg_put(e->out, "]");
}

/* e, ctx, buf, idx, op, v, s: one store statement (a line). */
static void put_store(emitter *e, const ectx *ctx, const stir_buffer *buf,
	const stir_expr *idx, stir_store_op op, const sval *v,
	const stir_stmt *s)
{
	if (buf->scope == STIR_SCOPE_WARP) {
		cuda_put_warp_store(e, ctx, buf, idx, op, v, s);
		return;
	}
	cg_printer *p = e->out;
	stir_dtype t = buf->dtype;
	bool atomic = gpu_store_is_atomic(ctx->atomic, buf, op);
	if (e->buf_used) {
		e->buf_used[buf->index] = true;
		e->buf_written[buf->index] = true;
	}
	cuda_record(e, buf, idx);
	cg_indent(p);
	/* no atomic add of type i8 (cuda_verify_structure) */
	if (atomic && t == STIR_I64) {
		cg_put(p, "atomicAdd((unsigned long long *)&");
		put_elem(e, ctx, buf, idx);
		cg_put(p, op == STIR_STORE_SUB ? ", 0ULL - (unsigned long long)" :
			", (unsigned long long)");
		cuda_put_val(e, ctx, v, t, P_UNARY);
		cg_put(p, ");");
	} else if (atomic && t == STIR_I32 && op == STIR_STORE_SUB) {
		cg_put(p, "atomicSub(&");
		put_elem(e, ctx, buf, idx);
		cg_put(p, ", ");
		cuda_put_val(e, ctx, v, t, P_COND);
		cg_put(p, ");");
	} else if (atomic) {
		bool half = t == STIR_F16 || t == STIR_BF16;
		cg_put(p, "atomicAdd(&");
		put_elem(e, ctx, buf, idx);
		cg_put(p, ", ");
		if (op == STIR_STORE_SUB && half) {
			cg_put(p, "__hneg(");
			cuda_put_val(e, ctx, v, t, P_TOP);
			cg_put(p, ")");
		} else if (op == STIR_STORE_SUB) {
			cg_put(p, "-");
			cuda_put_val(e, ctx, v, t, P_UNARY);
		} else {
			cuda_put_val(e, ctx, v, t, P_COND);
		}
		cg_put(p, ");");
	} else if (op != STIR_STORE_ASSIGN && (t == STIR_F16 || t == STIR_BF16)) {
		/* X = round(float(X) op float(v)) */
		put_elem(e, ctx, buf, idx);
		cg_put(p, " = ");
		cuda_round_open(e, t);
		cg_put(p, t == STIR_F16 ? "__half2float(" : "__bfloat162float(");
		put_elem(e, ctx, buf, idx);
		/* the update's operator: its spelling without the "=" */
		cg_putf(p, ") %.1s ", stir_store_op_text(op));
		put_val_compute(e, ctx, v, t, op == STIR_STORE_MUL ? P_MUL + 1 :
			P_ADD + 1);
		cg_put(p, ");");
	} else {
		put_elem(e, ctx, buf, idx);
		cg_putf(p, " %s ", stir_store_op_text(op));
		cuda_put_val(e, ctx, v, t, P_COND);
		cg_put(p, ";");
	}
	cuda_put_loc_comment(e, s);
	cg_put(p, "\n");
}

/* e, s: see cuda_internal.h. */
void cuda_put_loc_comment(emitter *e, const stir_stmt *s)
{
	char at[256];
	if ((e->flags & STIR_CUDA_NO_LINE_COMMENTS) || s->loc.line <= 0)
		return;
	cg_putf(e->out, "  // %s", cuda_loc_str(s->loc, at, sizeof(at)));
}

/* e, s, ctx: a store, or one thread's part of a cross-thread reduction
 * (and the note that the thread took part). */
void cuda_emit_store(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	red *r = cuda_red_of(ctx, s);
	if (r) {
		/* one thread's part of a cross-thread reduction */
		cg_indent(e->out);
		cg_putf(e->out, "stir_red%d", r->id);
		if (r->elems) {
			cg_put(e->out, "[");
			cuda_expr(e, ctx, s->u.store.idx[0], P_TOP);
			cg_put(e->out, "]");
		}
		cg_put(e->out, " += ");
		if (stir_dtype_is_float(r->acc))
			cuda_as_compute(e, ctx, s->u.store.value, P_ADD + 1);
		else
			cuda_expr(e, ctx, s->u.store.value, P_ADD + 1);
		cg_put(e->out, ";");
		cuda_put_loc_comment(e, s);
		cg_put(e->out, "\n");
		if (r->elems) {
			cg_indent(e->out);
			cg_putf(e->out, "stir_hit%d |= 1u << (", r->id);
			cuda_expr(e, ctx, s->u.store.idx[0], P_TOP);
			cg_put(e->out, ");\n");
		} else {
			cg_line(e->out, "stir_hit%d = 1;", r->id);
		}
		return;
	}
	sval v = { .x = s->u.store.value, .t = s->u.store.value->dtype };
	put_store(e, ctx, s->u.store.buf, s->u.store.idx[0], s->u.store.op, &v,
		s);
}

/* Cross-thread reductions ------------------------------------------------ */

/* e: the mask of the warp's threads for __shfl_*_sync, as C. */
static void put_mask(emitter *e)
{
	const int64_t *b = e->launch->shape.lit_block;
	int64_t t = b[0] * b[1] * b[2];
	if (t % 32 == 0)
		cg_put(e->out, "0xffffffffu");
	else if (t < 32)
		cg_putf(e->out, "0x%" PRIx64 "u", ((int64_t)1 << t) - 1);
	else
		cg_put(e->out, "stir_mask");
}

/* e, ctx, r, inner, w: combine the per-element sums of r (a reduction into
 * a register array, r->elems > 0) over the w threads of its warp segment
 * with a butterfly, so that every thread holds the totals, then add each
 * total that some thread contributed to into the thread's own array. */
static void emit_red_combine_elems(emitter *e, const ectx *ctx, const red *r,
	bool *inner, int64_t w)
{
	cg_printer *p = e->out;
	const stir_stmt *st = r->store;
	cg_line(p, "#pragma unroll");
	cg_line(p, "for (int stir_e = 0; stir_e < %" PRId64 "; ++stir_e) {",
		r->elems);
	p->indent++;
	for (int64_t off = w / 2; off >= 1; off /= 2) {
		cg_indent(p);
		cg_putf(p, "stir_red%d[stir_e] += __shfl_xor_sync(", r->id);
		put_mask(e);
		cg_putf(p, ", stir_red%d[stir_e], %" PRId64 ", %" PRId64 ");\n",
			r->id, off, w);
	}
	p->indent--;
	cg_line(p, "}");
	for (int64_t off = w / 2; off >= 1; off /= 2) {
		cg_indent(p);
		cg_putf(p, "stir_hit%d |= __shfl_xor_sync(", r->id);
		put_mask(e);
		cg_putf(p, ", stir_hit%d, %" PRId64 ", %" PRId64 ");\n", r->id, off,
			w);
	}
	const bool *saved = e->resolve;
	e->resolve = inner;
	for (int64_t i = 0; i < r->elems && !e->failed; i++) {
		stir_expr at = { .kind = STIR_EXPR_INT, .dtype = STIR_I32,
			.loc = st->loc, .u.i = i };
		char acc[48];
		snprintf(acc, sizeof(acc), "stir_red%d[%" PRId64 "]", r->id, i);
		sval v = { .name = acc, .t = r->acc };
		cg_line(p, "if (stir_hit%d & %#" PRIx64 "u)", r->id,
			(uint64_t)1 << i);
		p->indent++;
		put_store(e, ctx, st->u.store.buf, &at, st->u.store.op, &v, st);
		p->indent--;
	}
	e->resolve = saved;
}

/* e, L, ctx, r: combine the partial sums of r after the threadIdx.x loop
 * L and store the total (in L's scope, every thread of the warp or block
 * here). */
static void emit_red_combine(emitter *e, const stir_stmt *L, const ectx *ctx,
	const red *r, bool *inner)
{
	cg_printer *p = e->out;
	const int64_t *lb = e->launch->shape.lit_block;
	int64_t bx = lb[0], w = bx < 32 ? bx : 32;
	const stir_stmt *st = r->store;
	const stir_buffer *buf = st->u.store.buf;
	const char *at = cuda_ctype(r->acc);
	char acc[32];
	snprintf(acc, sizeof(acc), "stir_red%d", r->id);
	cg_line(p, "// cross-thread block '%s': combine the threads' parts",
		r->block->u.block.name);
	if (r->elems) {
		emit_red_combine_elems(e, ctx, r, inner, w);
		return;
	}
	/* the sum, and whether any thread stored at all (the interpreter
	 * does not touch the element when no iteration does) */
	for (int64_t off = w / 2; off >= 1; off /= 2) {
		cg_indent(p);
		cg_putf(p, "%s += __shfl_down_sync(", acc);
		put_mask(e);
		cg_putf(p, ", %s, %" PRId64 ", %" PRId64 ");\n", acc, off, w);
		cg_indent(p);
		cg_putf(p, "stir_hit%d |= __shfl_down_sync(", r->id);
		put_mask(e);
		cg_putf(p, ", stir_hit%d, %" PRId64 ", %" PRId64 ");\n", r->id, off,
			w);
	}
	if (bx > 32) {
		/* lane 0 of every warp leaves its sum in shared memory; every
		 * thread adds them up */
		int64_t nw = bx / 32, rows = lb[1] * lb[2];
		char row[96];
		if (rows == 1)
			row[0] = '\0';
		else
			snprintf(row, sizeof(row), "(threadIdx.z * %" PRId64
				" + threadIdx.y) * %" PRId64 " + ", lb[1], nw);
		cg_line(p, "__shared__ %s stir_part%d[%" PRId64 "];", at, r->id,
			rows * nw);
		cg_line(p, "__shared__ int stir_hitp%d[%" PRId64 "];", r->id,
			rows * nw);
		cg_line(p, "if (threadIdx.x %% 32 == 0) {");
		cg_line(p, "  stir_part%d[%sthreadIdx.x / 32] = %s;", r->id, row,
			acc);
		cg_line(p, "  stir_hitp%d[%sthreadIdx.x / 32] = stir_hit%d;", r->id,
			row, r->id);
		cg_line(p, "}");
		cg_line(p, "__syncthreads();");
		cg_line(p, "%s = 0;", acc);
		cg_line(p, "for (int stir_w = 0; stir_w < %" PRId64 "; ++stir_w) {",
			nw);
		cg_line(p, "  %s += stir_part%d[%sstir_w];", acc, r->id, row);
		cg_line(p, "  stir_hit%d |= stir_hitp%d[%sstir_w];", r->id, r->id,
			row);
		cg_line(p, "}");
		cg_line(p, "__syncthreads();");
	} else if (buf->scope == STIR_SCOPE_LOCAL) {
		/* every thread keeps the total in its registers */
		cg_indent(p);
		cg_putf(p, "%s = __shfl_sync(", acc);
		put_mask(e);
		cg_putf(p, ", %s, 0, %" PRId64 ");\n", acc, w);
		cg_indent(p);
		cg_putf(p, "stir_hit%d = __shfl_sync(", r->id);
		put_mask(e);
		cg_putf(p, ", stir_hit%d, 0, %" PRId64 ");\n", r->id, w);
	}
	/* the store, by one thread (unless the buffer is a register) */
	ectx c = *ctx;
	unsigned g = 0;
	if (buf->scope != STIR_SCOPE_LOCAL)
		g = DIM_BIT(STIR_THREAD_X) | cuda_unbound(e, ctx);
	c.single |= g;
	cg_indent(p);
	cg_put(p, "if (");
	cuda_put_index_zero(e, g);
	cg_putf(p, "%sstir_hit%d)\n", g ? " && " : "", r->id);
	p->indent++;
	sval v = { .name = acc, .t = r->acc };
	const bool *saved = e->resolve;
	e->resolve = inner;
	put_store(e, &c, buf, st->u.store.idx[0], st->u.store.op, &v, st);
	e->resolve = saved;
	p->indent--;
}

/* Thread-bound loops ----------------------------------------------------- */

/* e, s, ctx, c, reds, inner: see cuda_internal.h. */
int cuda_bound_loop_enter(emitter *e, const stir_stmt *s, const ectx *ctx,
	ectx *c, red **reds, bool **inner)
{
	int guard = gpu_bound_loop_enter(e->k, &e->facts, &e->launch->shape,
		&e->n_red, s, ctx, c, reds, inner);
	if (guard < 0)
		e->failed = true;
	return guard;
}

/* e, s, ctx: a loop bound to a thread index: the index is the loop
 * variable; threads past the extent skip the body. */
void cuda_emit_bound_loop(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	cg_printer *p = e->out;
	int d = s->u.for_.thread;
	const stir_var *v = s->u.for_.var;
	const stir_expr *ext = s->u.for_.extent;
	ectx c;
	red *reds;
	bool *inner;
	int guard = cuda_bound_loop_enter(e, s, ctx, &c, &reds, &inner);
	if (guard < 0)
		return;
	cg_line(p, "{");
	p->indent++;
	cuda_put_const(e, v);
	cg_putf(p, " = %s;\n", cuda_dim_names[d]);
	const int64_t *lb = e->launch->shape.lit_block;
	if (reds && lb[0] * lb[1] * lb[2] % 32 && lb[0] * lb[1] * lb[2] > 32)
		cg_line(p, "const unsigned stir_mask = ((threadIdx.z * %" PRId64
			" + threadIdx.y) * %" PRId64 " + threadIdx.x) / 32 == %"
			PRId64 " ? 0x%" PRIx64 "u : 0xffffffffu;", lb[1], lb[0],
			lb[0] * lb[1] * lb[2] / 32,
			((int64_t)1 << (lb[0] * lb[1] * lb[2] % 32)) - 1);
	for (red *r = reds; r; r = r->next) {
		if (r->elems) {
			cg_line(p, "%s stir_red%d[%" PRId64 "] = {};  // part of "
				"cross-thread block '%s'", cuda_ctype(r->acc), r->id,
				r->elems, r->block->u.block.name);
			cg_line(p, "unsigned stir_hit%d = 0u;  // the elements this "
				"thread added to", r->id);
			continue;
		}
		cg_line(p, "%s stir_red%d = 0;  // part of cross-thread block '%s'",
			cuda_ctype(r->acc), r->id, r->block->u.block.name);
		cg_line(p, "int stir_hit%d = 0;  // whether this thread added to it",
			r->id);
	}
	if (guard) {
		cg_indent(p);
		cg_put(p, "if (");
		cuda_put_name(e, v->name);
		cg_put(p, " < ");
		cuda_expr(e, ctx, ext, P_REL + 1);
		cg_put(p, ") {\n");
		p->indent++;
	}
	cuda_emit_list(e, &s->u.for_.body, &c);
	if (guard) {
		p->indent--;
		cg_line(p, "}");
	}
	for (red *r = reds; r && !e->failed; r = r->next)
		emit_red_combine(e, s, ctx, r, inner);
	p->indent--;
	cg_line(p, "}");
	free(inner);
	cuda_free_reds(reds);
}
