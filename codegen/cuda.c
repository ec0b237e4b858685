/* The CUDA emitter: stage III kernels to CUDA C (docs/cuda.md).
 *
 * Requires: a verified stage III kernel.  Nothing in the kernel changes.
 *
 * Every top-level statement is one launch, an extern "C" __global__
 * function.  A loop bound to a thread index becomes that index, guarded
 * against the loop's own extent when the launch may be larger; code outside
 * the loops bound to some index runs redundantly in every thread along it,
 * except that statements storing to global or shared memory run in thread
 * (block) 0 of that index only ("guarded").  Atomic blocks store with
 * atomicAdd; a cross-thread block reduces over its threadIdx.x loop with
 * per-thread partial sums and a warp-shuffle tree.
 *
 * Barriers: the verifier's walk (verify/verify_walk.c) records every
 * load and store with the thread context it runs in (for each index: the
 * loop bound to it, thread 0 only, or every thread), and
 * verify/barriers.c decides where threads must synchronize
 * (stir_insert_barriers puts "barrier;" statements there, and the
 * verifier refuses a place that needs one and has none).  The emitter
 * prints a barrier statement as __syncthreads().  Two accesses in the
 * same thread context to the same index expression are made by the same
 * thread and need nothing; the schedule's legality checks are what make
 * the accesses of different threads to different index expressions
 * disjoint where they are not ordered here.
 *
 * cuda_emit runs the whole GPU verifier first (stir_kernel_verify_gpu:
 * verify/verify_gpu.c and verify_walk.c) and prints assuming what it
 * checked, tensorized nests included (cuda_check_mma): it refuses
 * nothing.
 *
 * This file holds the launches (their shapes, declarations, arguments and
 * signatures) and the assembly of the whole kernel; statements are printed
 * by cuda_stmt.c, stores and thread-bound loops (with their cross-thread
 * reductions) by cuda_reduce.c, warp buffers by cuda_warp.c, expressions
 * by cuda_expr.c, vector loops by cuda_vector.c. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codegen/cuda_internal.h"
#include "ir/layout.h"
#include "ir/visit.h"

/* e, loc, fmt: see cuda_internal.h. */
void cuda_error(emitter *e, stir_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cuda_vreport(e->k, e->launch ? e->launch->shape.stmt : NULL, loc, fmt,
		ap);
	va_end(ap);
	e->failed = true;
}

/* e: report that memory ran out. */
void cuda_oom(emitter *e)
{
	if (!e->failed)
		stir_error_oom(e->ctx);
	e->failed = true;
}

/* e, ctx: see cuda_internal.h. */
unsigned cuda_unbound(const emitter *e, const ectx *ctx)
{
	return gpu_unbound(&e->launch->shape, ctx);
}

/* e, buf, idx: see cuda_internal.h. */
void cuda_record(emitter *e, const stir_buffer *buf, const stir_expr *idx)
{
	if (!idx)
		return;
	stir_dtype t = idx->dtype;
	int64_t max = t == STIR_I8 ? INT8_MAX : t == STIR_I32 ? INT32_MAX :
		INT64_MAX;
	int64_t *m = &e->plan->max_elems[buf->index];
	if (max < *m)
		*m = max;
}

/* s: the location of s, or of the first statement inside it that has one
 * (loops a schedule made have none); line 0 when none has. */
static stir_loc first_loc(const stir_stmt *s)
{
	return stir_stmt_first_loc(s);
}

/* ---- launches ----------------------------------------------------------- */

/* e, i, n: whether buffer i (n elements) is an array of the launch's
 * shared memory. */
static bool is_shared_array(const emitter *e, int i, int64_t *n)
{
	const stir_buffer *b = stir_buffer_at(&e->k->buffers, i);
	return e->buf_used[i] && b->scope == STIR_SCOPE_SHARED && !e->frag[i] &&
		cuda_literal_value(e->ctx, e->k, b->extent, n);
}

/* e, i, n, at: the offset of shared array i (n elements) in the launch's
 * dynamic shared memory, the next free byte *at aligned to 16 (or the
 * array's own alignment); *at moves past the array. */
static int64_t place_shared(const emitter *e, int i, int64_t n, int64_t *at)
{
	const stir_buffer *b = stir_buffer_at(&e->k->buffers, i);
	int64_t align = e->align[i] > 16 ? e->align[i] : 16;
	int64_t off = (*at + align - 1) / align * align;
	*at = off + n * (int64_t)stir_dtype_get_size(b->dtype);
	return off;
}

/* e, L: the launch's shared arrays, each at an offset aligned to 16 (or
 * its own alignment), when together they take more than the
 * MAX_STATIC_SHARED bytes a kernel may declare statically: then they are
 * pieces of the launch's dynamic shared memory (L->dynamic_shared bytes,
 * opted in to by the runtime; the verifier bounds it by
 * MAX_DYNAMIC_SHARED), else static arrays as before. */
static void emit_dynamic_shared(emitter *e, cuda_launch *L)
{
	const stir_kernel *k = e->k;
	cg_printer *p = e->out;
	int64_t total = 0, n;
	for (int i = 0; i < k->buffers.n; i++)
		if (is_shared_array(e, i, &n))
			total += n * (int64_t)stir_dtype_get_size(
				stir_buffer_at(&k->buffers, i)->dtype);
	L->dynamic_shared = 0;
	if (total <= MAX_STATIC_SHARED)
		return;
	int64_t at = 0;
	for (int i = 0; i < k->buffers.n; i++)
		if (is_shared_array(e, i, &n))
			place_shared(e, i, n, &at);
	L->dynamic_shared = (unsigned)at;
	cg_line(p, "// %" PRId64 " bytes of shared arrays (over %d): the "
		"launch's dynamic shared memory", at, MAX_STATIC_SHARED);
	cg_put(p, "#ifdef STIR_EMU\n");
	cg_line(p, "unsigned char *const stir_shared = "
		"stir_emu_dynamic_shared(%" PRId64 ");", at);
	cg_put(p, "#else\n");
	cg_line(p, "extern __shared__ __align__(128) unsigned char stir_shared[];");
	cg_put(p, "#endif\n");
}

/* e, li: the register and shared arrays of launch li, declared at
 * the top of its function (shared ones as pieces of the dynamic shared
 * memory where they do not fit statically: emit_dynamic_shared).  Shared
 * memory starts zeroed, as the interpreter's buffers do (16 bytes a store
 * where the buffer is aligned to 16 and of whole pieces). */
static void emit_declarations(emitter *e, int li)
{
	const stir_kernel *k = e->k;
	cg_printer *p = e->out;
	cuda_launch *L = &e->plan->launches[li];
	int64_t shared_at = 0;
	bool any_shared = false;
	emit_dynamic_shared(e, L);
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *b = stir_buffer_at(&k->buffers, i);
		if (!e->buf_used[i] || b->scope == STIR_SCOPE_GLOBAL)
			continue;
		int64_t n;
		/* a positive literal size (cuda_verify_structure) */
		if (!cuda_literal_value(e->ctx, k, b->extent, &n))
			continue;
		cg_indent(p);
		if (b->scope == STIR_SCOPE_WARP) {
			/* lane t holds elements t, t + lanes, ... */
			int64_t lanes = e->warp_lanes[i] ? e->warp_lanes[i] : 1;
			cg_putf(p, "%s ", cuda_ctype(b->dtype));
			cuda_put_name(e, b->name);
			cg_putf(p, "[%" PRId64 "] = {};  // %" PRId64 " elements spread "
				"over %" PRId64 " lanes\n", (n + lanes - 1) / lanes, n,
				lanes);
		} else if (e->frag[i]) {
			/* the accumulator of a tensorized nest: the warp's fragment
			 * (cuda_mma.c) */
			int64_t mn = (int64_t)e->frag[i]->m * e->frag[i]->n;
			const gpu_frag_split *sp = &e->frag_split[i];
			int64_t warps = gpu_frag_split_warps(sp);
			cg_putf(p, "%s_acc ", e->frag[i]->cuda);
			cuda_put_name(e, b->name);
			if (warps > 1)
				cg_putf(p, "[%" PRId64 "];  // this warp's %" PRId64
					" of the %" PRId64 " tensor-core fragments (split "
					"over %s%s)\n", n / mn / warps, n / mn / warps, n / mn,
					sp->warps[0] ? "threadIdx.y" : "threadIdx.z",
					sp->warps[0] && sp->warps[1] ? " and threadIdx.z" : "");
			else if (n > mn)
				cg_putf(p, "[%" PRId64 "];  // %" PRId64 " tensor-core "
					"fragments\n", n / mn, n / mn);
			else
				cg_put(p, ";  // a tensor-core fragment\n");
		} else if (b->scope == STIR_SCOPE_SHARED && L->dynamic_shared) {
			/* at the offsets of emit_dynamic_shared */
			cg_putf(p, "%s *const ", cuda_ctype(b->dtype));
			cuda_put_name(e, b->name);
			cg_putf(p, " = reinterpret_cast<%s *>(stir_shared + %" PRId64
				");\n", cuda_ctype(b->dtype),
				place_shared(e, i, n, &shared_at));
			any_shared = true;
		} else if (b->scope == STIR_SCOPE_SHARED) {
			/* ldmatrix and cp.async move 16 bytes, wmma loads 32
			 * (cuda_mma.c) */
			cg_put(p, "__shared__ ");
			if (e->align[i])
				cg_putf(p, "__align__(%d) ", e->align[i]);
			cg_putf(p, "%s ", cuda_ctype(b->dtype));
			cuda_put_name(e, b->name);
			cg_putf(p, "[%" PRId64 "];\n", n);
			any_shared = true;
		} else {
			cg_putf(p, "%s ", cuda_ctype(b->dtype));
			cuda_put_name(e, b->name);
			cg_putf(p, "[%" PRId64 "] = {};\n", n);
		}
	}
	if (!any_shared)
		return;
	cg_line(p, "{  // shared memory starts zeroed");
	p->indent++;
	cg_line(p, "const int stir_tid = (threadIdx.z * blockDim.y + "
		"threadIdx.y) * blockDim.x + threadIdx.x;");
	cg_line(p, "const int stir_nt = blockDim.x * blockDim.y * blockDim.z;");
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *b = stir_buffer_at(&k->buffers, i);
		int64_t n;
		if (!e->buf_used[i] || b->scope != STIR_SCOPE_SHARED ||
		    !cuda_literal_value(e->ctx, k, b->extent, &n))
			continue;
		/* a 16-byte aligned buffer (ldmatrix, cp.async, wmma) of
		 * whole 16-byte pieces: a piece a store, not an element */
		int64_t bytes = n * (int64_t)stir_dtype_get_size(b->dtype);
		bool pieces = e->align[i] >= 16 && bytes % 16 == 0;
		cg_indent(p);
		cg_putf(p, "for (int stir_i = stir_tid; stir_i < %" PRId64
			"; stir_i += stir_nt)\n", pieces ? bytes / 16 : n);
		p->indent++;
		cg_indent(p);
		if (pieces) {
			cg_put(p, "reinterpret_cast<float4 *>(");
			cuda_put_name(e, b->name);
			cg_put(p, ")[stir_i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);\n");
		} else {
			cuda_put_name(e, b->name);
			cg_putf(p, "[stir_i] = %s;\n", b->dtype == STIR_F16 ?
				"__float2half_rn(0.0f)" : b->dtype == STIR_BF16 ?
				"__float2bfloat16_rn(0.0f)" : "0");
		}
		p->indent--;
	}
	p->indent--;
	cg_line(p, "}");
	cg_line(p, "__syncthreads();");
}

/* e, h, ctx: the body of a horizontal launch: each nest takes the next
 * range of blockIdx.x. */
static void emit_horizontal(emitter *e, const stir_stmt *h, const ectx *ctx)
{
	cg_printer *p = e->out;
	const stir_ptr_vec *nests = &h->u.block.body;
	cg_line(p, "// horizontal block '%s': %d nests over consecutive ranges "
		"of blockIdx.x", h->u.block.name, nests->n);
	for (int i = 0; i < nests->n; i++) {
		const stir_stmt *n = stir_stmt_at(nests, i);
		cg_indent(p);
		cg_putf(p, "const long long stir_h%d = ", i);
		if (i)
			cg_putf(p, "stir_h%d + ", i - 1);
		cg_put(p, "max((long long)(");
		cuda_expr(e, ctx, n->u.for_.extent, P_TOP);
		cg_put(p, "), 0LL);\n");
	}
	for (int i = 0; i < nests->n; i++) {
		const stir_stmt *n = stir_stmt_at(nests, i);
		const stir_var *v = n->u.for_.var;
		cg_indent(p);
		cg_putf(p, "%sif ((long long)blockIdx.x < stir_h%d) {\n",
			i ? "} else " : "", i);
		p->indent++;
		cuda_put_const(e, v);
		if (i)
			cg_putf(p, " = (%s)((long long)blockIdx.x - stir_h%d);\n",
				cuda_ctype(v->dtype), i - 1);
		else
			cg_put(p, " = blockIdx.x;\n");
		ectx c = *ctx;
		c.bound[STIR_BLOCK_X] = n;
		if (h->u.block.flags & STIR_BLOCK_ATOMIC)
			c.atomic = true;
		cuda_emit_list(e, &n->u.for_.body, &c);
		p->indent--;
	}
	if (nests->n)
		cg_line(p, "}");
}

/* e, L, d: print the size of index d of launch L as a C expression. */
static void put_dim(emitter *e, const cuda_launch *L, int d)
{
	ectx none = { 0 };
	cg_printer *p = e->out;
	if (L->shape.n_ext[d] == 0) {
		cg_put(p, "1");
		return;
	}
	bool sum = L->shape.horizontal && d == STIR_BLOCK_X;
	if (L->shape.n_ext[d] > 1)
		cg_put(p, sum ? "" : "max(");
	for (int i = 0; i < L->shape.n_ext[d]; i++) {
		if (i)
			cg_put(p, sum ? " + " : ", ");
		cuda_expr(e, &none, L->shape.ext[d][i], sum ? P_ADD + 1 : P_COND);
	}
	if (L->shape.n_ext[d] > 1 && !sum)
		cg_put(p, ")");
}

/* e, L: the comment line saying launch L's shape. */
static void put_shape(emitter *e, const cuda_launch *L)
{
	cg_printer *p = e->out;
	cg_put(p, "grid (");
	for (int d = 0; d < 3; d++) {
		if (d)
			cg_put(p, ", ");
		put_dim(e, L, d);
	}
	cg_put(p, "), block (");
	for (int d = 3; d < 6; d++) {
		if (d > 3)
			cg_put(p, ", ");
		put_dim(e, L, d);
	}
	cg_put(p, ")");
}

/* e, L: fill L's arguments from the buffers the launch used. */
static int make_args(emitter *e, cuda_launch *L)
{
	const stir_kernel *k = e->k;
	int n = k->params.n;
	for (int i = 0; i < k->buffers.n; i++)
		if (e->buf_used[i] &&
		    stir_buffer_at(&k->buffers, i)->scope == STIR_SCOPE_GLOBAL)
			n++;
	L->args = calloc((size_t)n + 1, sizeof(*L->args));
	if (!L->args)
		return -1;
	int j = 0;
	for (int i = 0; i < k->params.n; i++) {
		const stir_var *v = stir_var_at(&k->params, i);
		cuda_arg *a = &L->args[j++];
		a->param = v;
		a->type = v->dtype == STIR_I64 ? STIR_ARG_I64 : STIR_ARG_I32;
		if (!(a->name = cuda_escape(v->name)))
			return -1;
		L->n_args = j;
	}
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *b = stir_buffer_at(&k->buffers, i);
		if (!e->buf_used[i] || b->scope != STIR_SCOPE_GLOBAL)
			continue;
		cuda_arg *a = &L->args[j++];
		a->buf = b;
		a->type = STIR_ARG_PTR;
		a->written = e->buf_written[i];
		if (!(a->name = cuda_escape(b->name)))
			return -1;
		L->n_args = j;
	}
	return 0;
}

/* e, L, out: the signature of L's function. */
static void emit_signature(emitter *e, const cuda_launch *L, cg_printer *out)
{
	cg_put(out, "extern \"C\" __global__ void ");
	const int64_t *lb = L->shape.lit_block;
	if (lb[0] > 0 && lb[1] > 0 && lb[2] > 0 && lb[0] * lb[1] * lb[2] <= 1024) {
		cg_putf(out, "__launch_bounds__(%" PRId64, lb[0] * lb[1] * lb[2]);
		if (e->plan->min_blocks_per_sm > 0)
			cg_putf(out, ", %d", e->plan->min_blocks_per_sm);
		cg_put(out, ") ");
	}
	size_t col = out->len;
	cg_putf(out, "%s(", L->name);
	col = out->len - col + 40;
	for (int i = 0; i < L->n_args; i++) {
		const cuda_arg *a = &L->args[i];
		char buf[512];
		if (a->param)
			snprintf(buf, sizeof(buf), "%s %s",
				a->type == STIR_ARG_I64 ? "long long" : "int", a->name);
		else
			snprintf(buf, sizeof(buf), "%s%s *__restrict__ %s",
				a->written ? "" : "const ", cuda_ctype(a->buf->dtype),
				a->name);
		if (i) {
			if (col + strlen(buf) + 2 > 76) {
				cg_put(out, ",\n    ");
				col = 4;
			} else {
				cg_put(out, ", ");
				col += 2;
			}
		}
		cg_put(out, buf);
		col += strlen(buf);
	}
	cg_put(out, ")\n");
}

/* e, stmt: re-emit the top-level lets before statement "stmt" (a
 * launch reads them as constants). */
static void emit_top_lets(emitter *e, const stir_stmt *stmt)
{
	const stir_kernel *k = e->k;
	ectx none = { 0 };
	for (int i = 0; i < k->body.n; i++) {
		const stir_stmt *s = stir_stmt_at(&k->body, i);
		if (s == stmt)
			return;
		if (s->kind == STIR_STMT_LET)
			cuda_emit_let(e, s, &none);
	}
}

/* e, li: see cuda_internal.h. */
bool cuda_launch_open(emitter *e, int li)
{
	cuda_launch *L = &e->plan->launches[li];
	const stir_kernel *k = e->k;
	e->launch = L;
	if (gpu_launch_scan(&L->shape, &e->facts) < 0) {
		cuda_oom(e);
		return false;
	}
	memset(e->buf_used, 0, (size_t)k->buffers.n + 1);
	memset(e->buf_written, 0, (size_t)k->buffers.n + 1);
	memset(e->warp_lanes, 0, ((size_t)k->buffers.n + 1) *
		sizeof(*e->warp_lanes));
	memset(e->frag, 0, ((size_t)k->buffers.n + 1) * sizeof(*e->frag));
	memset(e->frag_split, 0, ((size_t)k->buffers.n + 1) *
		sizeof(*e->frag_split));
	memset(e->align, 0, ((size_t)k->buffers.n + 1) * sizeof(*e->align));
	memset(e->swz, 0, ((size_t)k->buffers.n + 1) * sizeof(*e->swz));
	gpu_frag_scan(L->shape.stmt, e->frag, e->frag_split);
	cuda_mma_scan(e, L->shape.stmt);
	return !e->failed;
}

/* plan, li, src: for overlapping launches (stir_kernel_set_overlap_launches,
 * sm_90 and later), at the start of launch li: let the next launch start
 * (its blocks wait for this one's end themselves), and wait for the launch
 * before to finish, its writes visible.  Nothing when the launches do not
 * overlap. */
static void emit_overlap(const stir_cuda_plan *plan, int li, cg_printer *src)
{
	if (!plan->overlap || plan->n_launches < 2)
		return;
	cg_put(src, "#if __CUDA_ARCH__ >= 900\n");
	if (li + 1 < plan->n_launches)
		cg_put(src, "  asm volatile(\"griddepcontrol.launch_dependents;\");\n");
	if (li > 0)
		cg_put(src, "  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n");
	cg_put(src, "#endif\n");
}

/* e, li, src: emit launch li into src. */
static void emit_launch(emitter *e, int li, cg_printer *src)
{
	stir_cuda_plan *plan = e->plan;
	cuda_launch *L = &plan->launches[li];
	const stir_kernel *k = e->k;
	if (!cuda_launch_open(e, li))
		return;

	/* the body first: it tells which arrays the launch takes */
	cg_printer body;
	cg_printer_init(&body, 1);
	e->out = &body;
	ectx ctx = { 0 };
	emit_top_lets(e, L->shape.stmt);
	if (L->shape.horizontal) {
		emit_horizontal(e, L->shape.stmt, &ctx);
	} else {
		stir_ptr_vec one = { 1, 1, (void **)&L->shape.stmt };
		cuda_emit_list(e, &one, &ctx);
	}
	cg_printer decls;
	cg_printer_init(&decls, 1);
	e->out = &decls;
	emit_declarations(e, li);
	for (int i = 0; i < k->buffers.n; i++)
		if (e->buf_written[i])
			plan->written[i] = true;
	if (!e->failed && make_args(e, L) < 0)
		cuda_oom(e);
	if (!e->failed) {
		char at[256];
		e->out = src;
		cg_putf(src, "\n// launch %d of %d (%s): ", li, plan->n_launches,
			cuda_loc_str(first_loc(L->shape.stmt), at, sizeof(at)));
		put_shape(e, L);
		cg_put(src, "\n");
		emit_signature(e, L, src);
		cg_put(src, "{\n");
		emit_overlap(plan, li, src);
		cg_append(src, &decls);
		cg_append(src, &body);
		cg_put(src, "}\n");
	}
	cg_printer_release(&decls);
	cg_printer_release(&body);
}

/* ---- the whole kernel --------------------------------------------------- */

/* slot, user: expr_pre of scan_list_types: note in user (bool[2])
 * whether the expression has type f16 or bf16; a search's operands are
 * not looked into. */
static stir_visit_step note_type(stir_expr **slot, void *user)
{
	bool *h = user;
	h[0] |= (*slot)->dtype == STIR_F16;
	h[1] |= (*slot)->dtype == STIR_BF16;
	return (*slot)->kind == STIR_EXPR_SEARCH ? STIR_VISIT_SKIP :
		STIR_VISIT_GO;
}

/* list, h16, hb16: note whether an expression in list has a 16-bit float
 * type. */
static void scan_list_types(const stir_ptr_vec *list, bool *h16, bool *hb16)
{
	bool h[2] = { *h16, *hb16 };
	stir_visitor v = { .expr_pre = note_type, .user = h };
	stir_visit_list(&v, (stir_ptr_vec *)list);
	*h16 = h[0];
	*hb16 = h[1];
}

/* e, out: the search helpers the kernel uses, each once. */
static void emit_search_helpers(emitter *e, cg_printer *out)
{
	static const char *const what[] = {
		[STIR_LOWER_BOUND] = "the first position of the sorted range "
			"a[lo, hi) whose value is >= x, or hi",
		[STIR_UPPER_BOUND] = "the first position of the sorted range "
			"a[lo, hi) whose value is > x, or hi",
		[STIR_FIND] = "the first position of a[lo, hi) whose value is "
			"x, or hi",
	};
	for (int op = 0; op < 3; op++) {
		for (int t = 0; t <= STIR_BOOL; t++) {
			if (!(e->search_used[op] & (1u << t)))
				continue;
			const char *name = stir_search_name((stir_search)op);
			cg_putf(out, "\n// %s: %s\n", name, what[op]);
			cg_putf(out, "static __device__ __forceinline__ long long "
				"stir_%s_%s(\n    const %s *a, long long lo, long long hi, "
				"long long x)\n{\n", name,
				stir_dtype_get_name((stir_dtype)t), cuda_ctype((stir_dtype)t));
			if (op == STIR_FIND) {
				cg_put(out, "  while (lo < hi && (long long)a[lo] != x)\n"
					"    ++lo;\n  return lo;\n}\n");
				continue;
			}
			cg_putf(out, "  while (lo < hi) {\n"
				"    const long long mid = lo + (hi - lo) / 2;\n"
				"    if ((long long)a[mid] %s x)\n"
				"      lo = mid + 1;\n"
				"    else\n"
				"      hi = mid;\n"
				"  }\n"
				"  return lo;\n}\n", op == STIR_UPPER_BOUND ? "<=" : "<");
		}
	}
}

/* e, plan, flags: see cuda_internal.h. */
int cuda_emitter_open(emitter *e, stir_cuda_plan *plan, unsigned flags)
{
	const stir_kernel *k = plan->k;
	*e = (emitter){ .k = k, .ctx = stir_kernel_ctx(k), .flags = flags,
		.plan = plan };
	size_t nv = (size_t)k->n_vars + 1, nb = (size_t)k->buffers.n + 1;
	e->hoist_id = calloc(nv, sizeof(*e->hoist_id));
	e->buf_used = calloc(nb, 1);
	e->buf_written = calloc(nb, 1);
	e->warp_lanes = calloc(nb, sizeof(*e->warp_lanes));
	e->frag = calloc(nb, sizeof(*e->frag));
	e->frag_split = calloc(nb, sizeof(*e->frag_split));
	e->align = calloc(nb, sizeof(*e->align));
	e->swz = calloc(nb, sizeof(*e->swz));
	plan->max_elems = malloc(nb * sizeof(*plan->max_elems));
	plan->written = calloc(nb, sizeof(*plan->written));
	int n_launch = 0;
	for (int i = 0; i < k->body.n; i++)
		n_launch += stir_stmt_at(&k->body, i)->kind != STIR_STMT_LET;
	plan->launches = calloc((size_t)n_launch + 1, sizeof(*plan->launches));
	if (cuda_facts_init(&e->facts, k) < 0 || !e->hoist_id ||
	    !e->buf_used || !e->buf_written || !e->warp_lanes || !e->frag ||
	    !e->frag_split || !e->align || !e->swz || !plan->max_elems ||
	    !plan->written ||
	    !plan->launches) {
		cuda_oom(e);
		return -1;
	}
	for (size_t i = 0; i < nb; i++)
		plan->max_elems[i] = INT64_MAX;
	char *kname = cuda_escape(k->name);
	if (!kname) {
		cuda_oom(e);
		return -1;
	}
	for (int i = 0; i < k->body.n; i++) {
		const stir_stmt *s = stir_stmt_at(&k->body, i);
		if (s->kind == STIR_STMT_LET)
			continue;
		cuda_launch *L = &plan->launches[plan->n_launches];
		L->shape.stmt = s;
		size_t len = strlen(kname) + 32;
		if (!(L->name = malloc(len))) {
			cuda_oom(e);
			break;
		}
		snprintf(L->name, len, "%s_k%d", kname, plan->n_launches);
		plan->n_launches++;
	}
	free(kname);
	return e->failed ? -1 : 0;
}

/* e: see cuda_internal.h. */
void cuda_emitter_close(emitter *e)
{
	cuda_facts_release(&e->facts);
	free(e->hoist_id);
	free(e->buf_used);
	free(e->buf_written);
	free(e->warp_lanes);
	free(e->frag);
	free(e->frag_split);
	free(e->align);
	free(e->swz);
}

/* plan, flags: the launches' shapes, each launch printed, and the header
 * and the helpers they need, for a kernel the verifier accepted. */
static int emit_kernel(stir_cuda_plan *plan, unsigned flags)
{
	const stir_kernel *k = plan->k;
	emitter e;
	cg_printer src, launches;
	cg_printer_init(&src, 0);
	cg_printer_init(&launches, 0);
	if (cuda_emitter_open(&e, plan, flags) < 0)
		goto out;
	/* (a shared or local buffer is used by one launch only:
	 * cuda_verify_sharing) */
	for (int li = 0; li < plan->n_launches && !e.failed; li++)
		emit_launch(&e, li, &launches);
	if (e.failed)
		goto out;
	bool h16 = false, hb16 = false;
	for (int i = 0; i < k->buffers.n; i++) {
		h16 |= stir_buffer_at(&k->buffers, i)->dtype == STIR_F16;
		hb16 |= stir_buffer_at(&k->buffers, i)->dtype == STIR_BF16;
	}
	scan_list_types(&k->body, &h16, &hb16);
	cg_putf(&src, "// Generated by stir from kernel '%s' (stage III): %d "
		"launch%s, run in order\n// on one stream.  Do not edit.\n",
		k->name, plan->n_launches, plan->n_launches == 1 ? "" : "es");
	if (h16 || hb16)
		cg_put(&src, "\n");
	if (h16)
		cg_put(&src, "#include <cuda_fp16.h>\n");
	if (hb16)
		cg_put(&src, "#include <cuda_bf16.h>\n");
	emit_search_helpers(&e, &src);
	if (e.need_lanes)
		cg_put(&src, "\n// stir_lanes: the mask of the calling thread's group of "
			"n consecutive lanes\n// (n a power of two below 32 that "
			"divides blockDim.x), for warp buffers\nstatic __device__ "
			"__forceinline__ unsigned stir_lanes(unsigned n)\n{\n"
			"  const unsigned lane = ((threadIdx.z * blockDim.y + "
			"threadIdx.y) * blockDim.x +\n    threadIdx.x) % 32u;\n"
			"  return ((1u << n) - 1u) << (lane & ~(n - 1u));\n}\n");
	if (e.need_mma) {
		cg_put(&src, cuda_mma_prelude_common());
		for (int i = 0; i < stir_intrinsic_count(); i++)
			if (e.need_mma & 1u << i)
				cg_put(&src, cuda_mma_prelude(stir_intrinsic_at(i)));
	}
	if (e.need_pipe)
		cg_put(&src, cuda_mma_prelude_pipeline());
	if (e.need_ldsm) {
		cg_put(&src, cuda_mma_prelude_ldsm_common());
		for (int i = 0; i < stir_intrinsic_count(); i++)
			if (e.need_ldsm & 1u << i)
				cg_put(&src, cuda_mma_prelude_ldsm(stir_intrinsic_at(i)));
	}
	cg_append(&src, &launches);
	if (src.failed)
		cuda_oom(&e);
out:
	cg_printer_release(&launches);
	if (!e.failed)
		plan->source = cg_printer_finish(&src);
	else
		cg_printer_release(&src);
	if (!e.failed && !plan->source)
		cuda_oom(&e);
	cuda_emitter_close(&e);
	return e.failed ? -1 : 0;
}

/* plan, flags: see cuda_internal.h.  The verifier first: the emitter
 * prints what it accepted, assuming every check it made. */
int cuda_emit(stir_cuda_plan *plan, unsigned flags)
{
	if (cuda_verify_walk(plan->k) < 0)
		return -1;
	return emit_kernel(plan, flags);
}
