/* The CUDA emitter's tensorized loops (docs/cuda.md, "Tensor cores"): a
 * loop annotated tensorize(INTRINSIC) heads a nest that computes the
 * intrinsic (ir/intrinsics.h; the schedule's tensorize checked it, the
 * GPU verifier checks it again where it runs: cuda_check_mma,
 * verify/verify_gpu.c).  It prints as the intrinsic's device
 * functions (codegen/mma_prelude.c) on the 32 lanes of threadIdx.x: the
 * tile of C into a fragment, A's and B's tiles into fragments, one
 * mma.sync, C's tile back.  The tile loops' variables are 0 there, so
 * each operand's index is the address of its tile's first element. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "codegen/cuda_internal.h"
#include "ir/visit.h"

/* xs, n, v: does one of the n expressions xs name v? */
static bool named_by(const stir_expr *const *xs, int n, const stir_var *v)
{
	for (int i = 0; i < n; i++)
		if (stir_expr_uses(xs[i], v))
			return true;
	return false;
}

/* e, ctx, op, write: the address of operand op's first element:
 * &BUF[index]. */
static void put_addr(emitter *e, const ectx *ctx, const stir_mma_operand *op,
	bool write)
{
	if (e->buf_used) {
		e->buf_used[op->buf->index] = true;
		if (write)
			e->buf_written[op->buf->index] = true;
	}
	cuda_record(e, op->buf, op->index);
	cg_put(e->out, "&");
	cuda_put_name(e, op->buf->name);
	cg_put(e->out, "[");
	cuda_expr(e, ctx, op->index, P_TOP);
	cg_put(e->out, "]");
}

/* m, op: see cuda_internal.h. */
bool cuda_mma_use_ldsm(const stir_mma_match *m, const stir_mma_operand *op)
{
	/* (a gathered operand, or A under a row guard: element loads) */
	if (op->gather || (m->guard && op == &m->a))
		return false;
	return m->form == STIR_MMA_FORM_MMA && cuda_mma_prelude_ldsm(m->in) &&
		op->buf->scope == STIR_SCOPE_SHARED &&
		stir_dtype_get_size(op->buf->dtype) == 2 && op->ld % 8 == 0 &&
		stir_mma_operand_aligned(m, op, 8);
}

/* e, ctx, op, write: "BUF, (index)": a shared buffer and the index
 * of the operand's first element, for the functions that place it
 * (swizzled buffers, cuda_mma_scan). */
static void put_base_index(emitter *e, const ectx *ctx,
	const stir_mma_operand *op, bool write)
{
	if (e->buf_used) {
		e->buf_used[op->buf->index] = true;
		if (write)
			e->buf_written[op->buf->index] = true;
	}
	cuda_record(e, op->buf, op->index);
	cuda_put_name(e, op->buf->name);
	cg_put(e->out, ", ");
	cuda_expr(e, ctx, op->index, P_TOP);
}

/* e, ctx, m, what, frag, op: "PRE_load_WHAT(FRAG, &BUF[index], LD);",
 * or "PRE_ldsm_WHAT(FRAG, BUF, index, LD, SWIZZLED);" from a shared
 * buffer that ldmatrix can read. */
static void put_load(emitter *e, const ectx *ctx, const stir_mma_match *m,
	const char *what, const char *frag, const stir_mma_operand *op)
{
	bool ldsm = cuda_mma_use_ldsm(m, op);
	if (ldsm)
		e->need_ldsm |= 1u << (int)(m->in - stir_intrinsic_at(0));
	cg_indent(e->out);
	cg_putf(e->out, "%s_%s_%s%s(%s, ", m->in->cuda, ldsm ? "ldsm" : "load",
		what, op->transposed ? "_t" : "", frag);
	if (ldsm) {
		put_base_index(e, ctx, op, false);
		cg_putf(e->out, ", %" PRId64 ", %d);\n", op->ld,
			e->swz[op->buf->index]);
		return;
	}
	put_addr(e, ctx, op, false);
	cg_putf(e->out, ", %" PRId64 ");\n", op->ld);
}

/* p, m, piece, var: print the offset, in S's index (dst) or X's, of the
 * element that "var" (a piece, or with piece false an element, of the
 * copy m) counts, the pieces (elements) row-major over the nest's loops:
 * "i0 * c0 + i1 * c1 + i2" with i_d var's digit. */
static void put_copy_offset(cg_printer *p, const stir_mma_match *m,
	bool dst, bool piece, const char *var)
{
	int n = m->n_loops;
	bool any = false;
	for (int d = 0; d < n; d++) {
		int64_t inner = 1;  /* the pieces (elements) of one step of d */
		for (int i = d + 1; i < n; i++)
			inner *= m->ext[i];
		int64_t ext = m->ext[d];
		if (piece && d < n - 1)
			inner /= m->vec;
		else if (piece)
			ext /= m->vec;
		int64_t c = dst ? m->dst_coef[d] : m->src_coef[d];
		if (piece && d == n - 1)
			c = m->vec;
		if (ext == 1)
			continue;
		cg_putf(p, "%s(%s", any ? " + " : "", var);
		if (inner > 1)
			cg_putf(p, " / %" PRId64, inner);
		if (d > 0)
			cg_putf(p, " %% %" PRId64, ext);
		cg_put(p, ")");
		if (c != 1)
			cg_putf(p, " * %" PRId64, c);
		any = true;
	}
	if (!any)
		cg_put(p, "0");
}

/* e, ctx, m: a copy nest (STIR_MMA_FORM_COPY): the warp's lanes
 * take its 16-byte pieces in turn with cp.async and wait for them; when
 * X's first element is not 16-byte aligned (known only at run time),
 * its elements in turn instead.  A swizzled S places every piece with
 * stir_swz. */
static void put_copy(emitter *e, const ectx *ctx, const stir_mma_match *m)
{
	cg_printer *p = e->out;
	int64_t total = 1;
	for (int d = 0; d < m->n_loops; d++)
		total *= m->ext[d];
	int swz = e->swz[m->c.buf->index];
	const char *ct = cuda_ctype(m->c.buf->dtype);
	/* S, the index of its first element, X's first element */
	if (e->buf_used) {
		e->buf_used[m->c.buf->index] = true;
		e->buf_written[m->c.buf->index] = true;
	}
	cuda_record(e, m->c.buf, m->c.index);
	cg_indent(p);
	cg_putf(p, "%s *const stir_cd = ", ct);
	cuda_put_name(e, m->c.buf->name);
	cg_put(p, ";\n");
	cg_indent(p);
	cg_put(p, "const long long stir_co = ");
	cuda_expr(e, ctx, m->c.index, P_TOP);
	cg_put(p, ";\n");
	cg_indent(p);
	cg_putf(p, "const %s *const stir_cs = ", ct);
	put_addr(e, ctx, &m->a, false);
	cg_put(p, ";\n");
	for (int piece = 1; piece >= 0; piece--) {
		if (piece)
			cg_line(p, "if ((reinterpret_cast<unsigned long long>(stir_cs) "
				"& 15ull) == 0) {");
		else
			cg_line(p, "} else {");
		p->indent++;
		cg_line(p, "for (int stir_c = stir_lane(); stir_c < %" PRId64 "; "
			"stir_c += 32)", piece ? total / m->vec : total);
		p->indent++;
		cg_indent(p);
		cg_put(p, !piece ? "stir_cd[" : e->pipe_issue ?
			"stir_cp_async_16_ahead(&stir_cd[" : "stir_cp_async_16(&stir_cd[");
		cg_put(p, swz > 1 ? "stir_swzs(stir_co + " : swz ?
			"stir_swz(stir_co + " : "stir_co + ");
		put_copy_offset(p, m, true, piece, "stir_c");
		if (swz > 1)
			cg_putf(p, ", %d, %d)", m->vec, swz - 1);
		else if (swz)
			cg_putf(p, ", %d)", m->vec);
		cg_put(p, piece ? "], &stir_cs[" : "] = stir_cs[");
		put_copy_offset(p, m, false, piece, "stir_c");
		cg_put(p, piece ? "]);\n" : "];\n");
		p->indent--;
		/* (a pipelined loop's copies are waited for later) */
		if (piece && !e->pipe_issue)
			cg_line(p, "stir_cp_async_wait();");
		p->indent--;
	}
	cg_line(p, "}");
}

/* e, ctx, m, lo: the tile index I of nest m's accumulator with the warp
 * digits of its split (gpu_frag_split) whose coefficient is above lo
 * dropped, the lowest last: with digit C of W warps, I / (C * W) * C + I
 * % C, I the index with the digits above C dropped.  A digit at the top
 * of the index (C * W the buffer's row) needs no division: I is below C
 * there. */
static void put_frag_index(emitter *e, const ectx *ctx,
	const stir_mma_match *m, int64_t lo)
{
	const gpu_frag_split *sp = &e->frag_split[m->frag->index];
	int64_t row = (int64_t)m->in->n * m->frag_tiles, c = 0, w = 0;
	for (int i = 0; i < 2; i++)
		if (sp->warps[i] && sp->coef[i] > lo && (!c || sp->coef[i] < c) &&
		    sp->coef[i] * sp->warps[i] < row) {
			c = sp->coef[i];
			w = sp->warps[i];
		}
	if (!c) {
		cuda_expr(e, ctx, m->frag_index, P_TOP);
		return;
	}
	cg_put(e->out, "(");
	put_frag_index(e, ctx, m, c);
	cg_putf(e->out, ") / %" PRId64 " * %" PRId64 " + (", c * w, c);
	put_frag_index(e, ctx, m, c);
	cg_putf(e->out, ") %% %" PRId64, c);
}

/* e, ctx, m: the accumulator, a fragment buffer: its name, or, for a
 * buffer of several tiles, "NAME[(index) / S]" (the tile variables 0 in
 * the index, which then is the tile's first element; S the tiles'
 * stride, N side by side or M * N one after another).  A buffer split
 * over warps (gpu_frag_scan) keeps only its warp's tiles: the index is
 * printed with the variables of the loops bound to its thread indices at
 * 0 (the block's variables as their bindings), and each digit below the
 * top dropped (put_frag_index). */
static void put_frag(emitter *e, const ectx *ctx, const stir_mma_match *m)
{
	cuda_put_name(e, m->frag->name);
	const gpu_frag_split *sp = &e->frag_split[m->frag->index];
	if (m->frag_tiles <= 1)
		return;
	bool *resolve = NULL;
	const bool *saved_resolve = e->resolve;
	const stir_var *saved_warp[2] = { e->warp_var[0], e->warp_var[1] };
	if (gpu_frag_split_warps(sp) > 1) {
		const stir_stmt *b = m->block;
		resolve = calloc((size_t)e->k->n_vars + 1, sizeof(bool));
		if (!resolve) {
			cuda_oom(e);
			return;
		}
		for (int i = 0; b && i < b->u.block.n_vars; i++)
			resolve[b->u.block.vars[i]->slot] = true;
		e->resolve = resolve;
		for (int i = 0; i < 2; i++)
			if (sp->warps[i])
				e->warp_var[i] =
					ctx->bound[i ? STIR_THREAD_Z : STIR_THREAD_Y]->u.for_.var;
	}
	cg_put(e->out, "[(");
	put_frag_index(e, ctx, m, 0);
	cg_putf(e->out, ") / %d]", m->frag_stride);
	if (resolve) {
		e->resolve = saved_resolve;
		e->warp_var[0] = saved_warp[0];
		e->warp_var[1] = saved_warp[1];
		free(resolve);
	}
}

/* m, xs, n, v: whether tile variable v is named by one of the n
 * expressions xs, itself or through a variable of the nest's block. */
static bool tile_named(const stir_mma_match *m, const stir_expr *const *xs,
	int n, const stir_var *v)
{
	const stir_stmt *b = m->block;
	bool used = named_by(xs, n, v);
	for (int i = 0; b && i < b->u.block.n_vars && !used; i++)
		used = named_by(xs, n, b->u.block.vars[i]) &&
			stir_expr_uses(b->u.block.bindings[i], v);
	return used;
}

/* e, ctx, m, ln, rv, cv, xs, nx, n, step: open a loop over the first n
 * elements of a lane's fragment of layout ln, every step-th one ("for
 * (int stir_e = 0; stir_e < n; stir_e += step) {"), in which tile variable rv is the element's
 * row, cv its column, any other tile variable 0, and the block's
 * variables that xs name their bindings: xs then print as the element's.
 * The caller closes it. */
static void open_elems_by(emitter *e, const ectx *ctx,
	const stir_mma_match *m, const stir_mma_lanes *ln, const stir_var *rv,
	const stir_var *cv, const stir_expr *const *xs, int nx, int n, int step)
{
	cg_printer *p = e->out;
	if (step == 1)
		cg_line(p, "for (int stir_e = 0; stir_e < %d; stir_e++) {", n);
	else
		cg_line(p, "for (int stir_e = 0; stir_e < %d; stir_e += %d) {",
			n, step);
	p->indent++;
	cg_line(p, "const unsigned stir_l = stir_lane();");
	int nloops = m->form == STIR_MMA_FORM_MMA ? 3 : 2;
	for (int d = 0; d < nloops; d++) {
		const stir_var *v = m->loops[d]->u.for_.var;
		if (!tile_named(m, xs, nx, v))
			continue;
		cuda_put_const(e, v);
		cg_putf(p, " = %s;\n", v == rv ? ln->row : v == cv ? ln->col : "0");
	}
	const stir_stmt *b = m->block;
	for (int i = 0; b && i < b->u.block.n_vars; i++) {
		const stir_var *v = b->u.block.vars[i];
		if (!named_by(xs, nx, v))
			continue;
		cuda_put_const(e, v);
		cg_put(p, " = ");
		cuda_expr(e, ctx, b->u.block.bindings[i], P_COND);
		cg_put(p, ";\n");
	}
}

/* open_elems_by over every element. */
static void open_elems(emitter *e, const ectx *ctx, const stir_mma_match *m,
	const stir_mma_lanes *ln, const stir_var *rv, const stir_var *cv,
	const stir_expr *const *xs, int nx)
{
	open_elems_by(e, ctx, m, ln, rv, cv, xs, nx, ln->n, 1);
}

/* e: close what open_elems opened. */
static void close_elems(emitter *e)
{
	e->out->indent--;
	cg_line(e->out, "}");
}

/* m: whether nest m's A is read whole (gpu_mma_a_whole) by tf32 pair
 * loads (put_elem_load) that are all 8-byte aligned in its buffer: the
 * index of a tile's first element and its row stride even, the lane's
 * column 2t.  cuda_mma_scan declares the buffer 8-byte aligned. */
static bool a_pairs_aligned(const emitter *e, const stir_mma_match *m)
{
	const stir_mma_lanes *ln = stir_intrinsic_lanes(m->in, 'a');
	return gpu_mma_a_whole(e->k, m) && ln->pack == 1 && ln->next == 2 &&
		m->a.buf->dtype == STIR_F32 && !m->a.transposed &&
		m->a.ld % 2 == 0 && stir_mma_operand_aligned(m, &m->a, 2);
}

/* e, m: whether nest m's A is gathered (Y[I[..] * ld + k], a row
 * picked by a load) and its tf32 pair loads (put_elem_load) are all
 * 8-byte aligned: the buffer in global memory and allocated aligned
 * (STIR_CUDA_ALIGNED_BUFFERS: stir_gpu_run's buffers start at 256-byte
 * boundaries), every term of the index at the tile's first element even
 * (the row's stride among them), the lane's column 2t.  Then no lane
 * tests its address, and the loads of the steps over K carry no branch
 * that would keep the compiler from issuing them ahead. */
static bool a_gathered_pairs_aligned(const emitter *e,
	const stir_mma_match *m)
{
	const stir_mma_lanes *ln = stir_intrinsic_lanes(m->in, 'a');
	return (e->flags & STIR_CUDA_ALIGNED_BUFFERS) && m->a.gather &&
		!m->a.scale && ln->pack == 1 && ln->next == 2 &&
		m->a.buf->dtype == STIR_F32 &&
		m->a.buf->scope == STIR_SCOPE_GLOBAL &&
		stir_mma_operand_aligned(m, &m->a, 2);
}

/* m: the function that puts an f32 input of nest m into a fragment
 * register: rounded to tf32, or its bits as they are (3xTF32 splits them
 * in its _mma, codegen/mma_prelude.c). */
static const char *f32_in(const stir_mma_match *m)
{
	return m->in->tf32 ? "stir_tf32" : "stir_f32_bits";
}

/* e, ctx, frag, op, g, aligned, cvt: inside the loop over a lane's first half
 * of tf32 A elements, elements stir_e and stir_e + 2 of fragment frag
 * loaded from op at the first's place and the next (one float2 load
 * where 8-byte aligned: known to be with aligned, else tested), or 0
 * where guard g (if any) stops the row; each through function cvt
 * (f32_in). */
static void put_pair_load(emitter *e, const ectx *ctx, const char *frag,
	const stir_mma_operand *op, const stir_expr *g, bool aligned,
	const char *cvt)
{
	cg_printer *p = e->out;
	if (g) {
		cg_indent(p);
		cg_put(p, "if (!(");
		cuda_expr(e, ctx, g, P_TOP);
		cg_put(p, ")) {\n");
		cg_line(p, "  %s.r[stir_e] = %s.r[stir_e + 2] = 0u;", frag, frag);
		cg_line(p, "  continue;");
		cg_line(p, "}");
	}
	cg_indent(p);
	cg_put(p, "const float *stir_q = &");
	cuda_put_name(e, op->buf->name);
	cg_put(p, "[");
	cuda_expr(e, ctx, op->index, P_TOP);
	cg_put(p, "];\n");
	/* (the row's scale, one for the pair: both elements in one row) */
	const char *sc = op->scale ? "stir_s * " : "";
	if (op->scale) {
		cuda_record(e, op->scale->u.load.buf, op->scale->u.load.idx[0]);
		cg_indent(p);
		cg_put(p, "const float stir_s = ");
		cuda_expr(e, ctx, op->scale, P_TOP);
		cg_put(p, ";\n");
	}
	if (aligned) {
		cg_line(p, "const float2 stir_v = *(const float2 *)stir_q;");
		cg_line(p, "%s.r[stir_e] = %s(%sstir_v.x);", frag, cvt, sc);
		cg_line(p, "%s.r[stir_e + 2] = %s(%sstir_v.y);", frag, cvt, sc);
		return;
	}
	cg_line(p, "if ((unsigned long long)stir_q %% 8 == 0) {");
	cg_line(p, "  const float2 stir_v = *(const float2 *)stir_q;");
	cg_line(p, "  %s.r[stir_e] = %s(%sstir_v.x);", frag, cvt, sc);
	cg_line(p, "  %s.r[stir_e + 2] = %s(%sstir_v.y);", frag, cvt, sc);
	cg_line(p, "} else {");
	cg_line(p, "  %s.r[stir_e] = %s(%sstir_q[0]);", frag, cvt, sc);
	cg_line(p, "  %s.r[stir_e + 2] = %s(%sstir_q[1]);", frag, cvt, sc);
	cg_line(p, "}");
}

/* e, ctx, m, what, frag, op, rv, cv, g: operand op (what: "a" or "b",
 * with tile variables rv and cv as its row and column) into fragment
 * frag element by element, each lane its own (a gathered operand; or
 * A under the nest's row guard g, whose other rows read as 0; or A
 * read whole, gpu_mma_a_whole, with g NULL). */
static void put_elem_load(emitter *e, const ectx *ctx,
	const stir_mma_match *m, const char *what, const char *frag,
	const stir_mma_operand *op, const stir_var *rv, const stir_var *cv,
	const stir_expr *g)
{
	cg_printer *p = e->out;
	const stir_mma_lanes *ln = stir_intrinsic_lanes(m->in, what[0]);
	/* (the block variables these use are declared in the elements' loop) */
	const stir_expr *xs[3] = { op->index };
	int nxs = 1;
	if (g)
		xs[nxs++] = g;
	if (op->scale)
		xs[nxs++] = op->scale->u.load.idx[0];
	if (e->buf_used) {
		e->buf_used[op->buf->index] = true;
		if (op->scale)
			e->buf_used[op->scale->u.load.buf->index] = true;
	}
	cuda_record(e, op->buf, op->index);
	if (ln->pack > 1)
		cg_line(p, "unsigned short stir_h%s[%d];", what, ln->n);
	/* tf32's A, stride 1 along K: a lane's elements i and i + 2 are
	 * neighbours in a row (the k layout of ir/intrinsics.c), one float2 */
	if (what[0] == 'a' && ln->pack == 1 && op->buf->dtype == STIR_F32 &&
	    (op->gather || !op->transposed) && ln->next == 2) {
		open_elems_by(e, ctx, m, ln, rv, cv, xs, nxs, ln->n / 2, 1);
		put_pair_load(e, ctx, frag, op, g,
			what[0] == 'a' && !g && (a_pairs_aligned(e, m) ||
			a_gathered_pairs_aligned(e, m)), f32_in(m));
		close_elems(e);
		return;
	}
	open_elems(e, ctx, m, ln, rv, cv, xs, nxs);
	cg_indent(p);
	if (ln->pack > 1)
		cg_putf(p, "stir_h%s[stir_e] = ", what);
	else
		cg_putf(p, "%s.r[stir_e] = ", frag);
	if (g) {
		cg_put(p, "(");
		cuda_expr(e, ctx, g, P_TOP);
		cg_put(p, ") ? ");
	}
	cg_putf(p, "%s(", ln->pack > 1 ? "stir_bits" : f32_in(m));
	if (op->scale) {
		/* (tf32 only: stir_tensorize_match) */
		cuda_record(e, op->scale->u.load.buf, op->scale->u.load.idx[0]);
		cuda_expr(e, ctx, op->scale, P_MUL);
		cg_put(p, " * ");
	}
	cuda_put_name(e, op->buf->name);
	cg_put(p, "[");
	cuda_expr(e, ctx, op->index, P_TOP);
	cg_put(p, "])");
	if (g)
		cg_put(p, ln->pack > 1 ? " : (unsigned short)0" : " : 0u");
	cg_put(p, ";\n");
	close_elems(e);
	if (ln->pack > 1) {
		cg_line(p, "for (int stir_i = 0; stir_i < %d; stir_i++)",
			ln->n / 2);
		p->indent++;
		cg_line(p, "%s.r[stir_i] = stir_pack2(stir_h%s[2 * stir_i], "
			"stir_h%s[2 * stir_i + 1]);", frag, what, what);
		p->indent--;
	}
}

/* e, ctx, m: inside the loop over a lane's element pairs, elements
 * stir_e and stir_e + 1 of the accumulator added atomically into C at
 * the first's place and the next: one float2 atomic add on sm_90 when
 * that place is 8-byte aligned and in global memory (sm_90's float2
 * atomicAdd takes no shared address), else two. */
static void put_pair_atomic(emitter *e, const ectx *ctx,
	const stir_mma_match *m)
{
	cg_printer *p = e->out;
	cg_line(p, "{");
	p->indent++;
	cg_indent(p);
	cg_put(p, "float *stir_p = &");
	cuda_put_name(e, m->c.buf->name);
	cg_put(p, "[");
	cuda_expr(e, ctx, m->c.index, P_TOP);
	cg_put(p, "];\n");
	if (m->c.buf->scope != STIR_SCOPE_SHARED) {
		cg_line(p, "#if __CUDA_ARCH__ >= 900");
		cg_line(p, "if ((unsigned long long)stir_p %% 8 == 0)");
		cg_line(p, "  atomicAdd((float2 *)stir_p, make_float2("
			"stir_fr.r[stir_e], stir_fr.r[stir_e + 1]));");
		cg_line(p, "else");
		cg_line(p, "#endif");
	}
	cg_line(p, "{");
	cg_line(p, "  atomicAdd(stir_p, stir_fr.r[stir_e]);");
	cg_line(p, "  atomicAdd(stir_p + 1, stir_fr.r[stir_e + 1]);");
	cg_line(p, "}");
	p->indent--;
	cg_line(p, "}");
}

/* e, ctx, m: the store of the accumulator (stir_fr, a reference to
 * the fragment) into C element by element, assigned, added, or added
 * atomically: under a row guard, the rows it lets through; with C's rows
 * gathered (an atomic add), each element at its row's place. */
static void put_elem_store(emitter *e, const ectx *ctx,
	const stir_mma_match *m)
{
	cg_printer *p = e->out;
	const stir_mma_lanes *ln = stir_intrinsic_lanes(m->in, 'c');
	const stir_expr *xs[2] = { m->c.index, m->guard };
	if (e->buf_used) {
		e->buf_used[m->c.buf->index] = true;
		e->buf_written[m->c.buf->index] = true;
	}
	cuda_record(e, m->c.buf, m->c.index);
	/* an atomic add into f32: a lane's elements 2i and 2i + 1 are one
	 * row's neighbouring columns (C's stride 1 is along N), added by one
	 * float2 atomic on sm_90 where aligned */
	bool pairs = m->atomic && !m->c_scatter && m->c.buf->dtype == STIR_F32 &&
		ln->next == 1;
	open_elems_by(e, ctx, m, ln, m->mv, m->nv, xs, m->guard ? 2 : 1,
		ln->n, pairs ? 2 : 1);
	if (m->guard) {
		cg_indent(p);
		cg_put(p, "if (");
		cuda_expr(e, ctx, m->guard, P_TOP);
		cg_put(p, ")\n");
		p->indent++;
	}
	if (pairs) {
		put_pair_atomic(e, ctx, m);
		if (m->guard)
			p->indent--;
		close_elems(e);
		return;
	}
	cg_indent(p);
	if (m->atomic)
		cg_put(p, "atomicAdd(&");
	cuda_put_name(e, m->c.buf->name);
	cg_put(p, "[");
	cuda_expr(e, ctx, m->c.index, P_TOP);
	cg_put(p, m->atomic ? "], " : m->add ? "] += " : "] = ");
	cg_put(p, m->atomic ? "stir_fr.r[stir_e]);\n" : "stir_fr.r[stir_e];\n");
	if (m->guard)
		p->indent--;
	close_elems(e);
}

/* e, ctx, m: after the mma of a guarded nest, the accumulator's rows the
 * guard stops back at their values before it (stir_fs), as the loops
 * leave them. */
static void put_elem_restore(emitter *e, const ectx *ctx,
	const stir_mma_match *m)
{
	cg_printer *p = e->out;
	const stir_mma_lanes *ln = stir_intrinsic_lanes(m->in, 'c');
	const stir_expr *xs[1] = { m->guard };
	open_elems(e, ctx, m, ln, m->mv, m->nv, xs, 1);
	cg_indent(p);
	cg_put(p, "if (!(");
	cuda_expr(e, ctx, m->guard, P_TOP);
	cg_put(p, "))\n");
	p->indent++;
	cg_line(p, "stir_fr.r[stir_e] = stir_fs.r[stir_e];");
	p->indent--;
	close_elems(e);
}

/* e, ctx, m, nloops, printed, n: the constants that the n printed
 * indices of nest m name: the tile's first element (its loops'
 * variables at 0) and its block's variables. */
static void put_tile_start(emitter *e, const ectx *ctx,
	const stir_mma_match *m, int nloops, const stir_expr *const *printed,
	int n)
{
	cg_printer *p = e->out;
	const stir_stmt *b = m->block;
	int nb = b ? b->u.block.n_vars : 0;
	for (int d = 0; d < nloops; d++) {
		const stir_var *v = m->loops[d]->u.for_.var;
		bool used = named_by(printed, n, v);
		for (int i = 0; i < nb && !used; i++)
			used = named_by(printed, n, b->u.block.vars[i]) &&
				stir_expr_uses(b->u.block.bindings[i], v);
		if (!used)
			continue;
		cuda_put_const(e, v);
		cg_put(p, " = 0;\n");
	}
	for (int i = 0; i < nb; i++) {
		const stir_var *v = b->u.block.vars[i];
		if (!named_by(printed, n, v))
			continue;
		cuda_put_const(e, v);
		cg_put(p, " = ");
		cuda_expr(e, ctx, b->u.block.bindings[i], P_COND);
		cg_put(p, ";\n");
	}
}

/* e, nest, guard, ctx: see cuda_internal.h. */
void cuda_mma_load_invariant_a(emitter *e, const stir_stmt *nest,
	const stir_stmt *guard, const ectx *ctx)
{
	stir_mma_match m;
	if (!gpu_mma_match(nest, &m)) {
		e->failed = true;
		return;
	}
	cg_printer *p = e->out;
	cg_line(p, "%s_a stir_fa_loop;  // A's tile, the same in each "
		"iteration", m.in->cuda);
	cg_indent(p);
	if (guard) {
		cg_put(p, "if (");
		cuda_expr(e, ctx, guard->u.if_.cond, P_TOP);
		cg_put(p, ") ");
	}
	cg_put(p, "{\n");
	p->indent++;
	ectx c = *ctx;
	c.bound[STIR_THREAD_X] = nest;
	const stir_expr *printed[1] = { m.a.index };
	put_tile_start(e, &c, &m, 3, printed, 1);
	e->in_mma = true;
	put_load(e, &c, &m, "a", "stir_fa_loop", &m.a);
	e->in_mma = false;
	p->indent--;
	cg_line(p, "}");
}

/* e, s, ctx: see cuda_internal.h. */
void cuda_emit_mma(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	stir_mma_match m;
	/* the verifier accepted the nest where it runs (cuda_check_mma) */
	if (!gpu_mma_match(s, &m)) {
		e->failed = true;
		return;
	}
	const stir_intrinsic *in = m.in;
	int id = (int)(in - stir_intrinsic_at(0));
	e->need_mma |= 1u << id;
	cg_printer *p = e->out;
	const char *pre = in->cuda;
	int nloops = m.form == STIR_MMA_FORM_MMA ? 3 :
		m.form == STIR_MMA_FORM_COPY ? m.n_loops : 2;
	if (m.form == STIR_MMA_FORM_COPY) {
		cg_indent(p);
		cg_putf(p, "{  // tensorize(%s): loop%s ", in->name,
			nloops > 1 ? "s" : "");
		for (int d = 0; d < nloops; d++)
			cg_putf(p, "%s%s", d ? ", " : "", m.loops[d]->u.for_.var->name);
		cg_put(p, " on the warp's lanes\n");
	} else if (m.form == STIR_MMA_FORM_MMA)
		cg_line(p, "{  // tensorize(%s): loops %s, %s, %s on the warp's "
			"lanes", in->name, m.mv->name, m.nv->name, m.kv->name);
	else
		cg_line(p, "{  // tensorize(%s): the accumulator %s, loops %s, %s",
			in->name, m.form == STIR_MMA_FORM_FILL ? "filled" : m.atomic ?
			"added atomically" : m.add ? "added" : "stored", m.mv->name,
			m.nv->name);
	p->indent++;
	ectx c = *ctx;
	c.bound[STIR_THREAD_X] = s;
	/* the indices printed: C's (or a fragment's), A's and B's (the
	 * verifier's walk records the same: verify/mma.c) */
	const stir_expr *printed[4];
	int n_printed = gpu_mma_top_indices(&m, printed);
	/* A's tile loaded before the loop around the nest: its index unused */
	bool a_loaded = e->mma_a_loaded == s;
	for (int i = 0; a_loaded && i < n_printed; i++)
		if (printed[i] == m.a.index)
			printed[i--] = printed[--n_printed];
	/* the mma of a step whose fragments were loaded before: neither */
	bool steps_mma = e->mma_steps == s && e->mma_phase == 2;
	for (int i = 0; steps_mma && i < n_printed; i++)
		if (printed[i] == m.a.index || printed[i] == m.b.index)
			printed[i--] = printed[--n_printed];
	/* the loads of a step's fragments: not the accumulator's tile, nor
	 * the operand loaded before the loop around the steps */
	bool steps_loads = e->mma_steps == s && e->mma_phase == 1;
	const stir_mma_operand *hoisted = e->mma_hoist != s ? NULL :
		e->mma_hoist_op == 'a' ? &m.a : &m.b;
	for (int i = 0; steps_loads && i < n_printed; i++)
		if (printed[i] == m.frag_index ||
		    (hoisted && printed[i] == hoisted->index))
			printed[i--] = printed[--n_printed];
	/* the hoisted operand's loads alone */
	bool hoist_loads = e->mma_steps == s && e->mma_phase == 3;
	for (int i = 0; hoist_loads && i < n_printed; i++)
		if (printed[i] != hoisted->index)
			printed[i--] = printed[--n_printed];
	/* a warp's tiles as an outer product: A's loads, B's, the mma */
	int outer = e->mma_outer == s ? e->mma_phase : 0;
	for (int i = 0; outer && i < n_printed; i++)
		if (outer == 4 ? printed[i] != m.a.index :
		    outer == 5 ? printed[i] != m.b.index :
		    printed[i] == m.a.index || printed[i] == m.b.index)
			printed[i--] = printed[--n_printed];
	/* (a store element by element declares what C's index needs) */
	bool elem_store = stir_mma_elem_store(&m);
	put_tile_start(e, &c, &m, nloops, printed, n_printed);
	e->in_mma = true;
	/* the accumulator: the fragment buffer, or C's tile in stir_fc */
	char acc[256];
	if (m.frag) {
		if (e->buf_used) {
			e->buf_used[m.frag->index] = true;
			e->buf_written[m.frag->index] = true;
		}
		snprintf(acc, sizeof(acc), "%s", m.frag->name);
	} else {
		snprintf(acc, sizeof(acc), "stir_fc");
	}
	char *sv = (e->mma_steps == s) ? cuda_escape(e->mma_steps_var->name) :
		NULL;
	if (e->mma_steps == s && !sv)
		cuda_oom(e);
	const char *svn = sv ? sv : "";
	char *ov[2] = { NULL, NULL };
	if (outer && ((e->mma_outer_a &&
	    !(ov[0] = cuda_escape(e->mma_outer_a->name))) ||
	    !(ov[1] = cuda_escape(e->mma_outer_b->name))))
		cuda_oom(e);
	if (m.form == STIR_MMA_FORM_COPY) {
		put_copy(e, &c, &m);
	} else if (outer == 5 && e->mma_outer_pairs) {
		/* B's fragments v and v + 1, one ldmatrix.x4 */
		char f[600];
		snprintf(f, sizeof(f), "stir_fb_r[%s], stir_fb_r[%s + 1]",
			ov[1] ? ov[1] : "", ov[1] ? ov[1] : "");
		put_load(e, &c, &m, "b2", f, &m.b);
	} else if (outer == 4 || outer == 5) {
		char f[300];
		snprintf(f, sizeof(f), "stir_f%c_r[%s]", outer == 4 ? 'a' : 'b',
			ov[outer - 4] ? ov[outer - 4] : "");
		put_load(e, &c, &m, outer == 4 ? "a" : "b", f,
			outer == 4 ? &m.a : &m.b);
	} else if (outer) {
		/* (A loaded before the loop: cuda_mma_invariant_a_pairs) */
		cg_indent(p);
		cg_putf(p, "%s_mma(", pre);
		put_frag(e, &c, &m);
		if (e->mma_outer_a)
			cg_putf(p, ", stir_fa_r[%s]", ov[0] ? ov[0] : "");
		else
			cg_put(p, ", stir_fa_loop");
		cg_putf(p, ", stir_fb_r[%s]);\n", ov[1] ? ov[1] : "");
	} else if (hoist_loads) {
		char f[300];
		snprintf(f, sizeof(f), "stir_f%c_h[%s]", e->mma_hoist_op, svn);
		put_load(e, &c, &m, e->mma_hoist_op == 'a' ? "a" : "b", f,
			hoisted);
	} else if (m.form == STIR_MMA_FORM_FILL) {
		cg_indent(p);
		cg_putf(p, "%s_fill(", pre);
		put_frag(e, &c, &m);
		cg_put(p, ", ");
		cuda_float_literal(e, STIR_F32, m.fill);
		cg_put(p, ");\n");
	} else if (elem_store) {
		cg_indent(p);
		cg_putf(p, "const %s_acc &stir_fr = ", pre);
		put_frag(e, &c, &m);
		cg_put(p, ";\n");
		put_elem_store(e, &c, &m);
	} else if (m.form == STIR_MMA_FORM_STORE && m.add && !m.atomic) {
		/* C's tile into a fragment, the accumulator added, back */
		cg_line(p, "%s_acc stir_fc;", pre);
		cg_indent(p);
		cg_putf(p, "%s_load_acc(stir_fc, ", pre);
		put_addr(e, &c, &m.c, false);
		cg_putf(p, ", %" PRId64 ");\n", m.c.ld);
		/* (a lane's share of the M x N accumulator) */
		cg_indent(p);
		cg_putf(p, "for (int stir_i = 0; stir_i < %d; stir_i++)\n",
			m.in->m * m.in->n / 32);
		p->indent++;
		cg_indent(p);
		cg_put(p, "stir_fc.r[stir_i] += ");
		put_frag(e, &c, &m);
		cg_put(p, ".r[stir_i];\n");
		p->indent--;
		cg_indent(p);
		cg_putf(p, "%s_store_acc(", pre);
		put_addr(e, &c, &m.c, true);
		cg_putf(p, ", %" PRId64 ", stir_fc);\n", m.c.ld);
	} else if (m.form == STIR_MMA_FORM_STORE) {
		cg_indent(p);
		cg_putf(p, "%s_%s(", pre, m.atomic ? "atomic_add_acc" :
			"store_acc");
		if (m.atomic) {
			if (e->buf_used) {
				e->buf_used[m.c.buf->index] = true;
				e->buf_written[m.c.buf->index] = true;
			}
			cuda_record(e, m.c.buf, m.c.index);
			cg_put(p, "&");
			cuda_put_name(e, m.c.buf->name);
			cg_put(p, "[");
			cuda_expr(e, &c, m.c.index, P_TOP);
			cg_put(p, "]");
		} else {
			put_addr(e, &c, &m.c, true);
		}
		cg_putf(p, ", %" PRId64 ", ", m.c.ld);
		put_frag(e, &c, &m);
		cg_put(p, ");\n");
	} else if (steps_mma) {
		/* the step's fragments, loaded in the loop before (or before
		 * the loop around the steps) */
		cg_indent(p);
		cg_putf(p, "%s_mma(", pre);
		put_frag(e, &c, &m);
		cg_putf(p, ", stir_fa_%c[%s], stir_fb_%c[%s]);\n",
			hoisted && e->mma_hoist_op == 'a' ? 'h' : 's', svn,
			hoisted && e->mma_hoist_op == 'b' ? 'h' : 's', svn);
	} else {
		if (e->mma_steps == s) {
			const char *v[2] = { "a", "b" };
			for (int i = 0; i < 2; i++) {
				/* (not the operand loaded before the loop) */
				if (!hoisted || e->mma_hoist_op != v[i][0])
					cg_line(p, "%s_%s &stir_f%s = stir_f%s_s[%s];",
						pre, v[i], v[i], v[i], svn);
			}
		} else if (a_loaded) {
			cg_line(p, "const %s_a &stir_fa = stir_fa_loop;", pre);
		} else {
			cg_line(p, "%s_a stir_fa;", pre);
		}
		if (e->mma_steps != s)
			cg_line(p, "%s_b stir_fb;", pre);
		if (!m.frag) {
			cg_line(p, "%s_acc stir_fc;", pre);
			cg_indent(p);
			cg_putf(p, "%s_load_acc(stir_fc, ", pre);
			put_addr(e, &c, &m.c, false);
			cg_putf(p, ", %" PRId64 ");\n", m.c.ld);
		}
		if (m.a.gather || m.a.scale || m.guard)
			put_elem_load(e, &c, &m, "a", "stir_fa", &m.a, m.mv, m.kv,
				gpu_mma_a_whole(e->k, &m) ? NULL : m.guard);
		else if (!a_loaded && hoisted != &m.a)
			put_load(e, &c, &m, "a", "stir_fa", &m.a);
		if (m.b.gather)
			put_elem_load(e, &c, &m, "b", "stir_fb", &m.b, m.kv, m.nv,
				NULL);
		else if (hoisted != &m.b)
			put_load(e, &c, &m, "b", "stir_fb", &m.b);
		if (e->mma_steps == s) {
			/* (the mma in the second loop) */
			free(sv);
			e->in_mma = false;
			p->indent--;
			cg_line(p, "}");
			return;
		}
		if (m.guard) {
			/* (a guard needs a fragment: stir_tensorize_match) */
			cg_indent(p);
			cg_putf(p, "%s_acc &stir_fr = ", pre);
			put_frag(e, &c, &m);
			cg_put(p, ";\n");
			cg_line(p, "const %s_acc stir_fs = stir_fr;", pre);
		}
		cg_indent(p);
		cg_putf(p, "%s_mma(", pre);
		if (m.guard)
			cg_put(p, "stir_fr");
		else if (m.frag)
			put_frag(e, &c, &m);
		else
			cg_put(p, acc);
		cg_put(p, ", stir_fa, stir_fb);\n");
		if (m.guard)
			put_elem_restore(e, &c, &m);
		if (!m.frag) {
			cg_indent(p);
			cg_putf(p, "%s_store_acc(", pre);
			put_addr(e, &c, &m.c, true);
			cg_putf(p, ", %" PRId64 ", stir_fc);\n", m.c.ld);
		}
	}
	free(ov[0]);
	free(ov[1]);
	free(sv);
	e->in_mma = false;
	p->indent--;
	cg_line(p, "}");
}

/* What cuda_mma_scan gathers, per buffer. */
typedef struct mma_scan {
	emitter *e;
	bool *copied;              /* written by a copy nest */
	bool *ldsm;                /* read by ldmatrix */
	int *shift;                /* the rows ldmatrix reads are 2^shift
	                              lines of 128 bytes apart; -1 unseen,
	                              0 also when they differ */
	bool *other;               /* accessed other than by ldmatrix or a
	                              copy nest */
} mma_scan;

/* sc, op: the rows of operand op, which ldmatrix reads, are ld elements
 * apart: 2^k lines of 128 bytes (k up to 4) gives its buffer shift k,
 * unless another read gave another; any other distance shift 0. */
static void see_row_stride(mma_scan *sc, const stir_mma_operand *op)
{
	int64_t bytes = op->ld * (int64_t)stir_dtype_get_size(op->buf->dtype);
	int k = 0;
	while (k < 4 && ((int64_t)128 << k) < bytes)
		k++;
	if (((int64_t)128 << k) != bytes)
		k = 0;
	int *sh = &sc->shift[op->buf->index];
	*sh = *sh < 0 || *sh == k ? k : 0;
}

/* e, b, bytes: shared buffer b aligned to at least "bytes". */
static void align_at_least(emitter *e, const stir_buffer *b, int bytes)
{
	if (e->align[b->index] < bytes)
		e->align[b->index] = bytes;
}

/* s, user: stmt_pre of cuda_mma_scan: the fragment buffer of a
 * tensorized nest, its shared operands, and the shared buffers other
 * statements store into. */
static stir_visit_step scan_nest(stir_stmt *s, void *user)
{
	mma_scan *sc = user;
	emitter *e = sc->e;
	if (s->kind == STIR_STMT_STORE) {
		sc->other[s->u.store.buf->index] = true;
		return STIR_VISIT_GO;
	}
	if (s->kind != STIR_STMT_FOR || s->u.for_.kind != STIR_LOOP_TENSORIZE)
		return STIR_VISIT_GO;
	stir_mma_match m;
	if (!gpu_mma_match(s, &m))
		return STIR_VISIT_SKIP;
	if (m.form == STIR_MMA_FORM_COPY) {
		/* cp.async writes 16-byte pieces */
		align_at_least(e, m.c.buf, 16);
		sc->copied[m.c.buf->index] = true;
		return STIR_VISIT_SKIP;
	}
	/* shared operands that ldmatrix (or an API that needs aligned
	 * tiles, stir_intrinsic's align) reads are declared aligned */
	const stir_mma_operand *ops[3] = { &m.a, &m.b, &m.c };
	for (int i = 0; i < 3; i++) {
		if (i < 2 && m.form == STIR_MMA_FORM_MMA &&
		    cuda_mma_use_ldsm(&m, ops[i])) {
			align_at_least(e, ops[i]->buf, 16);
			sc->ldsm[ops[i]->buf->index] = true;
			see_row_stride(sc, ops[i]);
			continue;
		}
		if (ops[i]->buf && ops[i]->buf->scope == STIR_SCOPE_SHARED &&
		    m.in->align)
			align_at_least(e, ops[i]->buf, m.in->align);
		if (i == 0 && m.form == STIR_MMA_FORM_MMA &&
		    a_pairs_aligned(e, &m))
			align_at_least(e, ops[i]->buf, 8);
		if (ops[i]->buf)
			sc->other[ops[i]->buf->index] = true;
	}
	/* (the fragment buffers: gpu_frag_scan) */
	return STIR_VISIT_SKIP;
}

/* slot, user: expr_pre of cuda_mma_scan: a buffer read outside the
 * tensorized nests. */
static stir_visit_step scan_load(stir_expr **slot, void *user)
{
	mma_scan *sc = user;
	const stir_expr *x = *slot;
	if (x->kind == STIR_EXPR_LOAD)
		sc->other[x->u.load.buf->index] = true;
	else if (x->kind == STIR_EXPR_SEARCH)
		sc->other[x->u.search.buf->index] = true;
	return STIR_VISIT_GO;
}

/* e, s: see cuda_internal.h.  A shared buffer that copy nests write and
 * that only they and ldmatrix touch, of whole 128-byte lines, is
 * swizzled (e->swz): its 16-byte piece c sits at piece c ^ (c / 8 % 8),
 * which spreads the rows of an 8x8 matrix over the banks whatever the
 * row length; rows 2^k lines apart (A's rows of a block row split over
 * warps) take piece c ^ (c / 8 / 2^k % 8) instead, e->swz = 1 + k.  The
 * layout is the emitter's, the program cannot see it. */
void cuda_mma_scan(emitter *e, const stir_stmt *s)
{
	const stir_kernel *k = e->k;
	size_t nb = (size_t)k->buffers.n + 1;
	mma_scan sc = { .e = e, .copied = calloc(nb, 1),
		.ldsm = calloc(nb, 1), .other = calloc(nb, 1),
		.shift = malloc(nb * sizeof(int)) };
	if (!sc.copied || !sc.ldsm || !sc.other || !sc.shift) {
		free(sc.copied);
		free(sc.ldsm);
		free(sc.other);
		free(sc.shift);
		cuda_oom(e);
		return;
	}
	for (size_t i = 0; i < nb; i++)
		sc.shift[i] = -1;
	stir_visitor v = { .stmt_pre = scan_nest, .expr_pre = scan_load,
		.user = &sc };
	stir_visit_stmt(&v, (stir_stmt *)s);
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *b = stir_buffer_at(&k->buffers, i);
		int64_t n;
		bool swz = sc.copied[i] && sc.ldsm[i] && !sc.other[i] &&
			cuda_literal_value(e->ctx, k, b->extent, &n) &&
			n * (int64_t)stir_dtype_get_size(b->dtype) % 128 == 0;
		e->swz[i] = swz ? 1 + sc.shift[i] : 0;  /* (read by ldmatrix: seen) */
	}
	free(sc.shift);
	free(sc.copied);
	free(sc.ldsm);
	free(sc.other);
}
