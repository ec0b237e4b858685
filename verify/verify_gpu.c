/* The GPU verifier: what makes a stage III kernel impossible to emit as
 * CUDA (docs/cuda.md "Checking a kernel for the GPU"), reported with its
 * location before any code is printed.
 *
 * stir_kernel_verify_gpu runs three parts:
 *
 *   cuda_verify_structure (this file)  the bindings and the launches'
 *       shapes: an index bound twice in one nest, a horizontal block's
 *       nests, bound extents that are not expressions of the parameters,
 *       horizontal and cross-thread blocks in the wrong place, register
 *       and shared arrays without a literal size or more shared memory
 *       than a block may declare, a register or shared array used by two
 *       launches, a top-level let that reads memory, a top-level barrier,
 *       8-bit atomics, two buffers of one written array, a vectorized
 *       loop whose extent is not the literal 2 or 4;
 *   the verifier's walk (verify/verify_walk.c), printing nothing:
 *       what depends on the thread context a statement runs in: races
 *       and barriers, cross-thread reductions, warp buffers,
 *       tensorized nests.  The walk computes the context; the refusals
 *       of cross-thread reductions, warp buffers, tensorized nests,
 *       missing barriers, registers read by other threads and
 *       dependences between thread blocks are the cuda_check_*
 *       functions at the end of this file, which the walk calls;
 *   cuda_verify_sharing (this file)  a register or shared array used by
 *       two launches, two buffers of one array that the kernel writes.
 *
 * The barrier pass (verify/barriers.c) runs the same walk, recording the
 * places where a barrier is missing instead of refusing them.
 *
 * Requires: a verified stage III kernel.  Changes nothing. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "verify/gpu.h"
#include "ir/layout.h"
#include "ir/visit.h"

/* ---- what the checks and the emitter both ask ---------------------------- */

/* The names of the thread indices, by stir_thread. */
const char *const cuda_dim_names[N_DIMS] = {
	"blockIdx.x", "blockIdx.y", "blockIdx.z",
	"threadIdx.x", "threadIdx.y", "threadIdx.z",
};

/* s: see verify/gpu.h. */
const char *cuda_scope_word(stir_scope s)
{
	return s == STIR_SCOPE_SHARED ? "shared" : s == STIR_SCOPE_LOCAL ?
		"local" : s == STIR_SCOPE_WARP ? "warp" : "global";
}

/* loc, buf, size: see verify/gpu.h. */
const char *cuda_loc_str(stir_loc loc, char *buf, size_t size)
{
	const char *f = loc.file ? strrchr(loc.file, '/') : NULL;
	f = f ? f + 1 : loc.file ? loc.file : "?";
	snprintf(buf, size, "%s:%d", f, loc.line);
	return buf;
}

/* x: see verify/gpu.h. */
bool cuda_expr_is_size(const stir_expr *x)
{
	return !stir_size_offender(x, NULL);
}

/* slot, user: expr_pre of has_var: stop at a variable; loads and
 * searches are not looked into. */
static stir_visit_step find_var(stir_expr **slot, void *user)
{
	stir_expr_kind k = (*slot)->kind;
	(void)user;
	if (k == STIR_EXPR_VAR)
		return STIR_VISIT_STOP;
	return k == STIR_EXPR_LOAD || k == STIR_EXPR_SEARCH ? STIR_VISIT_SKIP :
		STIR_VISIT_GO;
}

/* x: does x name a variable anywhere (outside loads and searches)? */
static bool has_var(const stir_expr *x)
{
	stir_visitor v = { .expr_pre = find_var };
	stir_expr *root = (stir_expr *)x;
	return stir_visit_expr(&v, &root);
}

/* ctx, k, x, v: the value of x when it holds only literals (then
 * stir_eval_size reads no parameter); false otherwise. */
bool cuda_literal_value(stir_ctx *ctx, const stir_kernel *k,
	const stir_expr *x, int64_t *v)
{
	if (!x || !cuda_expr_is_size(x) || has_var(x))
		return false;
	return stir_eval_size(ctx, k, x, NULL, v) == 0;
}

/* ---- the checks that need no thread context ------------------------------ */

/* The walk's state. */
typedef struct gv {
	const stir_kernel *k;      /* the kernel checked */
	stir_ctx *ctx;             /* receives diagnostics */
	bool failed;               /* an error was reported */
	bool oom;
	bool *used;                /* per buffer: used by the launch walked */
	bool *written;             /* per buffer: stored to by some launch */
	const stir_stmt *launch;   /* the launch walked, or NULL */
} gv;

/* v, loc, fmt: report an error. */
static void gv_error(gv *v, stir_loc loc, const char *fmt, ...)
	STIR_PRINTF(3, 4);
static void gv_error(gv *v, stir_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cuda_vreport(v->k, v->launch, loc, fmt, ap);
	va_end(ap);
	v->failed = true;
}

/* k, launch, loc, fmt, ap: see verify/gpu.h. */
void cuda_vreport(const stir_kernel *k, const stir_stmt *launch,
	stir_loc loc, const char *fmt, va_list ap)
{
	/* what a schedule made has no place in the source: the launch it is
	 * in has (or the kernel) */
	if (loc.line <= 0 && launch)
		loc = stir_stmt_first_loc(launch);
	if (loc.line <= 0)
		loc = k->loc;
	stir_ctx_vreport(stir_kernel_ctx(k), STIR_ERROR, loc, fmt, ap);
}

/* walk, loc, fmt: see verify/gpu.h. */
void gpu_error(gpu_walk *walk, stir_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cuda_vreport(walk->k, walk->launch ? walk->launch->stmt : NULL, loc, fmt, ap);
	va_end(ap);
	walk->failed = true;
}

/* Where a statement stands in its launch (the walk's user data). */
typedef struct where {
	gv *v;                     /* the walk's state */
	const stir_stmt *bound[N_DIMS]; /* the loop bound to each index */
	bool no_block;             /* inside a nest of a horizontal block:
	                              blockIdx is bound by its outermost loop */
	int atomic;                /* how many atomic blocks it is inside */
} where;

/* slot, user: expr_pre of the walk: mark the buffer a load or search
 * reads as used by the launch (user: the where). */
static stir_visit_step use_expr(stir_expr **slot, void *user)
{
	const where *w = user;
	const stir_expr *x = *slot;
	if (x->kind == STIR_EXPR_LOAD)
		w->v->used[x->u.load.buf->index] = true;
	else if (x->kind == STIR_EXPR_SEARCH)
		w->v->used[x->u.search.buf->index] = true;
	return STIR_VISIT_GO;
}

/* v, s, w: a loop bound to a thread index (its body is walked next, with
 * the index bound). */
static void check_bound_loop(gv *v, const stir_stmt *s, where *w)
{
	int d = s->u.for_.thread;
	const stir_var *var = s->u.for_.var;
	if (w->bound[d]) {
		gv_error(v, s->loc, "loop '%s' is bound to %s inside loop '%s', "
			"bound to the same index", var->name, cuda_dim_names[d],
			w->bound[d]->u.for_.var->name);
		return;
	}
	if (w->no_block && (DIM_BIT(d) & BLOCK_DIMS)) {
		gv_error(v, s->loc, "loop '%s' is bound to %s inside a nest of a "
			"horizontal block, whose outermost loop alone may bind "
			"blockIdx", var->name, cuda_dim_names[d]);
		return;
	}
	if (!cuda_expr_is_size(s->u.for_.extent)) {
		gv_error(v, s->loc, "loop '%s' is bound to %s, but its extent is "
			"not an expression of the kernel's parameters", var->name,
			cuda_dim_names[d]);
		return;
	}
	w->bound[d] = s;
}

/* v, s: a vectorized loop: its lanes are the components of a CUDA
 * vector type, so its extent is the literal 2 or 4 (codegen/cuda_vector.c
 * assumes it). */
static void check_vector_loop(gv *v, const stir_stmt *s)
{
	const stir_expr *ext = s->u.for_.extent;
	if (ext->kind != STIR_EXPR_INT || (ext->u.i != 2 && ext->u.i != 4))
		gv_error(v, s->loc, "loop '%s' is vectorized, but its extent is "
			"not the literal 2 or 4", s->u.for_.var->name);
}

/* v, s, w: a store. */
static void check_store(gv *v, const stir_stmt *s, const where *w)
{
	const stir_buffer *b = s->u.store.buf;
	v->used[b->index] = true;
	v->written[b->index] = true;
	if (gpu_store_is_atomic(w->atomic, b, s->u.store.op) &&
	    b->dtype == STIR_I8)
		gv_error(v, s->loc, "atomic add to '%s' of type i8: the GPU has "
			"no 8-bit atomics", b->name);
}

/* v, s, w: a block below the top level (its body is walked next). */
static void check_block(gv *v, const stir_stmt *s, where *w)
{
	if (s->u.block.flags & STIR_BLOCK_HORIZONTAL) {
		gv_error(v, s->loc, "horizontal block '%s' must be a top-level "
			"statement of the kernel", s->u.block.name);
		return;
	}
	if ((s->u.block.flags & STIR_BLOCK_CROSS_THREAD) &&
	    !w->bound[STIR_THREAD_X]) {
		gv_error(v, s->loc, "cross-thread block '%s' is not inside a "
			"loop bound to threadIdx.x", s->u.block.name);
		return;
	}
	if (s->u.block.flags & STIR_BLOCK_ATOMIC)
		w->atomic++;
}

/* s, user: stmt_pre of the walk: check statement s of a launch (user:
 * the where).  The walk ends at the first error (a nest bound wrongly
 * would report each statement inside it again). */
static stir_visit_step check_stmt(stir_stmt *s, void *user)
{
	where *w = user;
	gv *v = w->v;
	switch (s->kind) {
	case STIR_STMT_STORE:
		check_store(v, s, w);
		break;
	case STIR_STMT_FOR:
		if (s->u.for_.kind == STIR_LOOP_BIND)
			check_bound_loop(v, s, w);
		else if (s->u.for_.kind == STIR_LOOP_VECTORIZE)
			check_vector_loop(v, s);
		break;
	case STIR_STMT_BLOCK:
		check_block(v, s, w);
		break;
	case STIR_STMT_ITER:
		gv_error(v, s->loc, "a sparse iteration cannot be emitted as "
			"CUDA: lower the kernel to stage III first");
		break;
	default:
		break;
	}
	return v->failed ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* s, user: stmt_post of the walk: leave what check_stmt entered. */
static stir_visit_step leave_stmt(stir_stmt *s, void *user)
{
	where *w = user;
	if (s->kind == STIR_STMT_FOR && s->u.for_.kind == STIR_LOOP_BIND)
		w->bound[s->u.for_.thread] = NULL;
	else if (s->kind == STIR_STMT_BLOCK &&
	    (s->u.block.flags & STIR_BLOCK_ATOMIC))
		w->atomic--;
	return STIR_VISIT_GO;
}

/* w, s, list: walk statement s, or (s NULL) list, checking each
 * statement where w says it stands. */
static void check_walk(where *w, const stir_stmt *s,
	const stir_ptr_vec *list)
{
	stir_visitor vis = { .stmt_pre = check_stmt, .stmt_post = leave_stmt,
		.expr_pre = use_expr, .user = w };
	if (s)
		stir_visit_stmt(&vis, (stir_stmt *)s);
	else
		stir_visit_list(&vis, (stir_ptr_vec *)list);
}

/* v, h: the nests of horizontal block h: each a loop bound to blockIdx.x
 * with nothing else bound to blockIdx. */
static void check_horizontal(gv *v, const stir_stmt *h)
{
	for (int i = 0; i < h->u.block.body.n && !v->failed; i++) {
		const stir_stmt *n = stir_stmt_at(&h->u.block.body, i);
		if (n->kind != STIR_STMT_FOR || n->u.for_.kind != STIR_LOOP_BIND ||
		    n->u.for_.thread != STIR_BLOCK_X) {
			gv_error(v, n->loc, "nest %d of horizontal block '%s' is not "
				"bound to blockIdx.x at its outermost loop", i,
				h->u.block.name);
			return;
		}
		if (!cuda_expr_is_size(n->u.for_.extent)) {
			gv_error(v, n->loc, "loop '%s' is bound to blockIdx.x, but its "
				"extent is not an expression of the kernel's parameters",
				n->u.for_.var->name);
			return;
		}
		stir_expr *ext = n->u.for_.extent;
		where w = { .v = v, .no_block = true,
			.atomic = (h->u.block.flags & STIR_BLOCK_ATOMIC) != 0 };
		use_expr(&ext, &w);
		w.bound[STIR_BLOCK_X] = n;
		check_walk(&w, NULL, &n->u.for_.body);
	}
}

/* v, s: walk the launch of top-level statement s, marking in v->used
 * the buffers it uses. */
static void walk_launch(gv *v, const stir_stmt *s)
{
	memset(v->used, 0, (size_t)v->k->buffers.n + 1);
	v->launch = s;
	if (s->kind == STIR_STMT_BLOCK &&
	    (s->u.block.flags & STIR_BLOCK_HORIZONTAL)) {
		check_horizontal(v, s);
	} else {
		where w = { .v = v };
		check_walk(&w, s, NULL);
	}
}

/* v, li, s: launch li, top-level statement s, and the register and
 * shared arrays it declares. */
static void check_launch(gv *v, int li, const stir_stmt *s)
{
	const stir_kernel *k = v->k;
	walk_launch(v, s);
	if (v->failed)
		return;
	int64_t shared = 0;
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *b = stir_buffer_at(&k->buffers, i);
		int64_t n;
		if (!v->used[i] || b->scope == STIR_SCOPE_GLOBAL)
			continue;
		if (!cuda_literal_value(v->ctx, k, b->extent, &n) || n < 1 ||
		    n > INT32_MAX) {
			gv_error(v, b->loc, "%s buffer '%s' needs a positive literal "
				"extent", cuda_scope_word(b->scope), b->name);
			continue;
		}
		if (b->scope == STIR_SCOPE_SHARED)
			shared += n * (int64_t)stir_dtype_get_size(b->dtype);
	}
	if (shared > MAX_DYNAMIC_SHARED)
		gv_error(v, s->loc, "launch %d needs %" PRId64 " bytes of shared "
			"memory; a thread block may have at most %d", li, shared,
			MAX_DYNAMIC_SHARED);
}

/* v, s, li, owner: the register and shared arrays launch li (statement
 * s) uses must be used by no other: owner[i], the launch using buffer i
 * or -1. */
static void check_owners(gv *v, const stir_stmt *s, int li, int *owner)
{
	const stir_kernel *k = v->k;
	walk_launch(v, s);
	for (int i = 0; i < k->buffers.n && !v->failed; i++) {
		const stir_buffer *b = stir_buffer_at(&k->buffers, i);
		if (!v->used[i] || b->scope == STIR_SCOPE_GLOBAL)
			continue;
		if (owner[i] >= 0)
			gv_error(v, b->loc, "%s buffer '%s' is used by launches %d and "
				"%d: its contents do not outlive a launch",
				cuda_scope_word(b->scope), b->name, owner[i], li);
		owner[i] = li;
	}
}

/* v: two buffers bound to one array, one of them written, would be two
 * __restrict__ pointers to the same memory. */
static void check_aliases(gv *v)
{
	const stir_kernel *k = v->k;
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *a = stir_buffer_at(&k->buffers, i);
		if (!a->arg)
			continue;
		for (int j = i + 1; j < k->buffers.n; j++) {
			const stir_buffer *b = stir_buffer_at(&k->buffers, j);
			if (!b->arg || strcmp(a->arg, b->arg) ||
			    (!v->written[i] && !v->written[j]))
				continue;
			gv_error(v, b->loc, "buffers '%s' and '%s' both bind array "
				"'%s', which the kernel writes", a->name, b->name,
				a->arg);
			return;
		}
	}
}

/* k: see verify/gpu.h. */
int cuda_verify_stage(const stir_kernel *k)
{
	if (k->stage == STIR_STAGE_3)
		return 0;
	stir_error(stir_kernel_ctx(k), k->loc, "kernel '%s' is a stage %d "
		"kernel; CUDA is emitted from stage 3 (see "
		"stir_kernel_prepare_for_gpu)", k->name, (int)k->stage);
	return -1;
}

/* k: see verify/gpu.h. */
int cuda_verify_structure(const stir_kernel *k)
{
	size_t nb = (size_t)k->buffers.n + 1;
	gv v = { .k = k, .ctx = stir_kernel_ctx(k) };
	v.used = calloc(nb, 1);
	v.written = calloc(nb, 1);
	if (!v.used || !v.written) {
		stir_error_oom(v.ctx);
		v.failed = true;
		goto out;
	}
	/* the top-level lets first, every one of them, then the launches */
	for (int i = 0; i < k->body.n; i++) {
		const stir_stmt *s = stir_stmt_at(&k->body, i);
		if (s->kind == STIR_STMT_LET &&
		    stir_expr_reads_data(s->u.let.value))
			gv_error(&v, s->loc, "let '%s' at the top level reads memory: "
				"it cannot be shared by the kernel's launches",
				s->u.let.var->name);
	}
	int li = 0;
	for (int i = 0; i < k->body.n && !v.failed; i++) {
		const stir_stmt *s = stir_stmt_at(&k->body, i);
		if (s->kind == STIR_STMT_BARRIER)
			gv_error(&v, s->loc, "barrier at the top level of the kernel: "
				"it orders the threads of a block, and is no launch "
				"(launches run in order already)");
		else if (s->kind != STIR_STMT_LET)
			check_launch(&v, li++, s);
	}
out:
	free(v.used);
	free(v.written);
	return v.failed ? -1 : 0;
}

/* k: see verify/gpu.h. */
int cuda_verify_sharing(const stir_kernel *k)
{
	size_t nb = (size_t)k->buffers.n + 1;
	gv v = { .k = k, .ctx = stir_kernel_ctx(k) };
	v.used = calloc(nb, 1);
	v.written = calloc(nb, 1);
	int *owner = malloc(nb * sizeof(*owner));
	if (!v.used || !v.written || !owner) {
		stir_error_oom(v.ctx);
		v.failed = true;
		goto out;
	}
	for (size_t i = 0; i < nb; i++)
		owner[i] = -1;
	int li = 0;
	for (int i = 0; i < k->body.n && !v.failed; i++) {
		const stir_stmt *s = stir_stmt_at(&k->body, i);
		if (s->kind != STIR_STMT_LET)
			check_owners(&v, s, li++, owner);
	}
	if (!v.failed)
		check_aliases(&v);
out:
	free(v.used);
	free(v.written);
	free(owner);
	return v.failed ? -1 : 0;
}

/* The refusals that depend on the thread context ---------------------------
 *
 * The verifier's walk (verify/verify_walk.c) computes where each
 * statement runs (the ectx: the loops bound to the thread indices, the
 * indices control flow depends on, the fill loop of a warp buffer) and
 * asks these functions at each cross-thread reduction, warp-buffer
 * access and barrier.  They print nothing. */

/* walk, L, r, inner, ctx: see verify/gpu.h. */
void cuda_check_red(gpu_walk *walk, const stir_stmt *L, red *r,
	const bool *inner, const ectx *ctx)
{
	const stir_stmt *b = r->block, *st = r->store;
	const char *name = b->u.block.name;
	const stir_var *lv = L->u.for_.var;
	bool reduces = false;
	for (int i = 0; i < b->u.block.n_vars; i++) {
		bool uses = cuda_expr_uses(&walk->facts, b->u.block.bindings[i], lv);
		if (uses && b->u.block.kinds[i] == 'S') {
			gpu_error(walk, b->loc, "cross-thread block '%s': its spatial "
				"variable '%s' depends on loop '%s', the threadIdx.x "
				"loop it reduces over", name, b->u.block.vars[i]->name,
				lv->name);
			return;
		}
		reduces |= uses;
	}
	if (!reduces) {
		gpu_error(walk, b->loc, "cross-thread block '%s' does not reduce "
			"over loop '%s', the loop bound to threadIdx.x around it",
			name, lv->name);
		return;
	}
	const stir_var *v = cuda_inner_var(&walk->facts, st->u.store.idx[0], inner);
	const stir_buffer *buf = st->u.store.buf;
	/* the lanes of a register array: an accumulator each */
	r->elems = cuda_red_elems(&walk->facts, L, r, inner);
	if (v && !r->elems) {
		gpu_error(walk, st->loc, "cross-thread block '%s': the element it "
			"stores to depends on '%s', defined inside the threadIdx.x "
			"loop '%s'%s", name, v->name, lv->name,
			buf->scope == STIR_SCOPE_LOCAL ? " (allowed only into a "
			"local array of at most 32 elements)" : "");
		return;
	}
	stir_loc where;
	if (cuda_list_uses(&L->u.for_.body, st->u.store.buf, st, &where)) {
		gpu_error(walk, where, "'%s' is accessed inside loop '%s' while "
			"cross-thread block '%s' reduces into it", st->u.store.buf->name,
			lv->name, name);
		return;
	}
	const gpu_launch *la = walk->launch;
	int64_t bx = la->lit_block[0];
	if (bx < 0 || la->lit_block[1] < 0 || la->lit_block[2] < 0) {
		gpu_error(walk, b->loc, "cross-thread block '%s' needs literal "
			"extents for the loops bound to threadIdx in its launch", name);
		return;
	}
	if (!(bx % 32 == 0 || cuda_is_pow2(bx))) {
		gpu_error(walk, b->loc, "cross-thread block '%s': the launch has "
			"%" PRId64 " threads in x, neither a power of two below 32 nor "
			"a multiple of 32", name, bx);
		return;
	}
	if (r->elems && bx > 32) {
		gpu_error(walk, b->loc, "cross-thread block '%s' reduces into the "
			"register array '%s' over %" PRId64 " threads in x: at most 32 "
			"(one warp)", name, buf->name, bx);
		return;
	}
	/* control flow may depend on threadIdx.y (.z) where every warp lies
	 * within one of its values: the threads below it (x, or x by y) a
	 * multiple of 32 (threads are numbered x first, then y, then z) */
	unsigned div = ctx->divergent & THREAD_DIMS, whole = 0;
	if (bx % 32 == 0)
		whole |= DIM_BIT(STIR_THREAD_Y);
	if (bx * la->lit_block[1] % 32 == 0)
		whole |= DIM_BIT(STIR_THREAD_Z);
	bool warp_ok = !(div & ~whole);
	if (!warp_ok || (bx > 32 && div)) {
		gpu_error(walk, L->loc, "cross-thread block '%s': not every thread "
			"of the %s reaches loop '%s'", name, bx > 32 ? "block" : "warp",
			lv->name);
		return;
	}
}

/* walk, x, v: whether x is variable v, or a block variable bound to it. */
static bool is_var(const gpu_walk *walk, const stir_expr *x, const stir_var *v)
{
	if (x->kind != STIR_EXPR_VAR)
		return false;
	if (x->u.var == v)
		return true;
	const stir_expr *b = x->u.var->kind == STIR_VAR_BLOCK ?
		walk->facts.binding[x->u.var->slot] : NULL;
	return b && is_var(walk, b, v);
}

/* walk, ctx, buf, loc, what, n: see verify/gpu.h. */
int64_t cuda_check_warp_lanes(gpu_walk *walk, const ectx *ctx,
	const stir_buffer *buf, stir_loc loc, const char *what, int64_t *n)
{
	const stir_stmt *x = ctx->bound[STIR_THREAD_X];
	int64_t lanes = gpu_warp_lanes_here(&walk->facts, walk->launch, ctx);
	if (!x) {
		gpu_error(walk, loc, "warp buffer '%s' is %s outside a loop bound to "
			"threadIdx.x, whose lanes hold it", buf->name, what);
		return 0;
	}
	if (!lanes) {
		gpu_error(walk, loc, "warp buffer '%s' is %s inside loop '%s', bound "
			"to threadIdx.x, whose extent is not the launch's threads in x "
			"or not a literal power of two up to 32", buf->name, what,
			x->u.for_.var->name);
		return 0;
	}
	if (!cuda_literal_value(walk->ctx, walk->k, buf->extent, n) || *n < 1) {
		gpu_error(walk, buf->loc, "warp buffer '%s' needs a positive literal "
			"extent", buf->name);
		return 0;
	}
	int64_t *have = &walk->warp_lanes[buf->index];
	if (*have && *have != lanes) {
		gpu_error(walk, loc, "warp buffer '%s' is %s by %" PRId64 " lanes, "
			"and elsewhere in the launch by %" PRId64, buf->name, what,
			lanes, *have);
		return 0;
	}
	*have = lanes;
	return lanes;
}

/* walk, ctx, x: see verify/gpu.h. */
bool cuda_check_warp_read(gpu_walk *walk, const ectx *ctx, const stir_expr *x)
{
	const stir_buffer *buf = x->u.load.buf;
	const stir_expr *idx = x->u.load.idx[0];
	if ((ctx->divergent & DIM_BIT(STIR_THREAD_X)) || ctx->fill_tail) {
		gpu_error(walk, x->loc, "warp buffer '%s' is read under control flow "
			"that depends on threadIdx.x%s: its lanes shuffle together",
			buf->name, ctx->fill_tail ? " (a fill loop whose last lanes "
			"store nothing)" : "");
		return false;
	}
	if (cuda_expr_deps(&walk->facts, idx) & DIM_BIT(STIR_THREAD_X)) {
		gpu_error(walk, x->loc, "warp buffer '%s' is read at an index that "
			"depends on threadIdx.x: its lanes read one element together",
			buf->name);
		return false;
	}
	return true;
}

/* walk, ctx, buf, idx, op, v, s: see verify/gpu.h. */
bool cuda_check_warp_store(gpu_walk *walk, const ectx *ctx,
	const stir_buffer *buf, const stir_expr *idx, stir_store_op op,
	const sval *v, const stir_stmt *s)
{
	if (!ctx->fill) {
		gpu_error(walk, s->loc, "warp buffer '%s' is written outside a fill "
			"loop (a serial loop over its elements, directly around the "
			"store, inside the loop bound to threadIdx.x)", buf->name);
		return false;
	}
	if (ctx->divergent & DIM_BIT(STIR_THREAD_X)) {
		gpu_error(walk, s->loc, "warp buffer '%s' is filled under control "
			"flow that depends on threadIdx.x: every lane stores its part",
			buf->name);
		return false;
	}
	if (op != STIR_STORE_ASSIGN || !is_var(walk, idx, ctx->fill)) {
		gpu_error(walk, s->loc, "warp buffer '%s': its fill loop '%s' may "
			"only assign element '%s'", buf->name, ctx->fill->name,
			ctx->fill->name);
		return false;
	}
	if (v->x && (cuda_expr_deps(&walk->facts, v->x) & DIM_BIT(STIR_THREAD_X))) {
		gpu_error(walk, s->loc, "the value stored into warp buffer '%s' "
			"depends on threadIdx.x: its lanes hold one copy", buf->name);
		return false;
	}
	return true;
}

/* walk, s, buf, size: see verify/gpu.h. */
bool cuda_check_warp_fill(gpu_walk *walk, const stir_stmt *s,
	const stir_buffer *buf, int64_t size)
{
	const stir_var *v = s->u.for_.var;
	const stir_expr *ext = s->u.for_.extent;
	if (ext->kind != STIR_EXPR_INT || ext->u.i < 0 || ext->u.i > size) {
		gpu_error(walk, s->loc, "fill loop '%s' of warp buffer '%s' needs a "
			"literal extent of at most its %" PRId64 " elements", v->name,
			buf->name, size);
		return false;
	}
	return true;
}

/* walk, s, ctx: see verify/gpu.h.  The emitter prints the nest as the
 * intrinsic's device functions on the 32 lanes of threadIdx.x
 * (codegen/cuda_mma.c), assuming every check here. */
bool cuda_check_mma(gpu_walk *walk, const stir_stmt *s, const ectx *ctx)
{
	const char *lname = s->u.for_.var->name;
	const stir_intrinsic *in = stir_intrinsic_find(s->u.for_.intrinsic);
	stir_mma_match m;
	char why[400];
	stir_loc where = s->loc;
	if (!in || !stir_tensorize_match(s, in, &m, why, sizeof(why), &where)) {
		gpu_error(walk, where, "loop '%s' is tensorized, but its nest does not "
			"compute %s: %s", lname, s->u.for_.intrinsic ?
			s->u.for_.intrinsic : "?", in ? why : "unknown intrinsic");
		return false;
	}
	if (ctx->bound[STIR_THREAD_X]) {
		gpu_error(walk, s->loc, "loop '%s' is tensorized inside loop '%s', "
			"which is bound to threadIdx.x: the intrinsic runs on the 32 "
			"lanes of threadIdx.x", lname,
			ctx->bound[STIR_THREAD_X]->u.for_.var->name);
		return false;
	}
	const gpu_launch *L = walk->launch;
	for (int i = 0; i < L->n_ext[STIR_THREAD_X]; i++) {
		const stir_expr *x = L->ext[STIR_THREAD_X][i];
		if (x->kind != STIR_EXPR_INT || x->u.i != 32) {
			gpu_error(walk, s->loc, "loop '%s' is tensorized in a launch "
				"that binds threadIdx.x to another extent: the intrinsic "
				"needs threadIdx.x to be exactly the 32 lanes of a warp",
				lname);
			return false;
		}
	}
	if (ctx->divergent & DIM_BIT(STIR_THREAD_X)) {
		gpu_error(walk, s->loc, "loop '%s' is tensorized where the lanes of "
			"a warp may diverge: every lane must reach the intrinsic",
			lname);
		return false;
	}
	/* one fragment type per buffer: gpu_frag_scan noted the first nest's
	 * intrinsic */
	const stir_intrinsic *had = m.frag ? walk->frag[m.frag->index] : NULL;
	if (had && had != in) {
		gpu_error(walk, s->loc, "local buffer '%s' is the accumulator of "
			"both %s and %s", m.frag->name, had->name, in->name);
		return false;
	}
	/* split over warps: every nest picks its own warp's tiles */
	const gpu_frag_split *sp = m.frag ? &walk->frag_split[m.frag->index] :
		NULL;
	stir_thread miss = sp ? gpu_frag_split_miss(&m, ctx, sp) :
		STIR_THREAD_X;
	if (miss != STIR_THREAD_X) {
		const char *dn = miss == STIR_THREAD_Y ? "threadIdx.y" :
			"threadIdx.z";
		int64_t warps = gpu_frag_split_warps(sp);
		gpu_error(walk, s->loc, "local buffer '%s' is split over the %lld "
			"warps of %s%s (each keeps %lld of its %d fragments), but the "
			"tile index of loop '%s' does not pick them by the loop bound "
			"to %s", m.frag->name, (long long)warps,
			sp->warps[0] ? "threadIdx.y" : "threadIdx.z",
			sp->warps[0] && sp->warps[1] ? " and threadIdx.z" : "",
			(long long)(m.frag_tiles / warps), m.frag_tiles, lname, dn);
		return false;
	}
	return true;
}

/* walk, s, ctx: see verify/gpu.h. */
bool cuda_check_barrier(gpu_walk *walk, const stir_stmt *s, const ectx *ctx)
{
	if (!cuda_block_uniform(walk, ctx)) {
		gpu_error(walk, s->loc, "barrier: not every thread of the block "
			"reaches it");
		return false;
	}
	return true;
}

/* walk, ctx, loc, a, b: see verify/gpu.h. */
bool cuda_check_barrier_place(gpu_walk *walk, const ectx *ctx, stir_loc loc,
	const cg_access *a, const cg_access *b)
{
	char at[256], bt[256];
	if (!cuda_block_uniform(walk, ctx)) {
		gpu_error(walk, loc, "threads of a block must synchronize between "
			"the accesses to '%s' at %s and at %s, but not every thread "
			"reaches the place between them", a->buf->name,
			cuda_loc_str(a->loc, at, sizeof(at)),
			cuda_loc_str(b->loc, bt, sizeof(bt)));
		return false;
	}
	if (walk->mode != GPU_WALK_PLACE) {
		gpu_error(walk, loc, "threads of a block must synchronize between "
			"the accesses to '%s' at %s and at %s, but there is no "
			"barrier between them (see stir_insert_barriers)",
			a->buf->name, cuda_loc_str(a->loc, at, sizeof(at)),
			cuda_loc_str(b->loc, bt, sizeof(bt)));
		return false;
	}
	return true;
}

/* walk, w, r: see verify/gpu.h.  Registers are private: the reading
 * thread must be one that wrote, in every index the launch uses that w
 * is not run by all threads of. */
bool cuda_check_private_read(gpu_walk *walk, const cg_access *w,
	const cg_access *r)
{
	char at[256];
	for (int d = 0; d < N_DIMS; d++) {
		if (!(walk->launch->used & DIM_BIT(d)) || w->ctx[d] == cuda_ctx_all ||
		    w->ctx[d] == r->ctx[d])
			continue;
		gpu_error(walk, r->loc, "%s buffer '%s' is read by threads "
			"that did not write it (written at %s): registers "
			"are private to a thread%s", cuda_scope_word(r->buf->scope),
			r->buf->name, cuda_loc_str(w->loc, at, sizeof(at)),
			r->buf->scope == STIR_SCOPE_WARP ? " (and to the lanes of "
			"its threadIdx.x loop)" : "");
		return false;
	}
	return true;
}

/* walk, loc, a, b: see verify/gpu.h. */
void cuda_check_block_dep(gpu_walk *walk, stir_loc loc, const cg_access *a,
	const cg_access *b)
{
	char at[256], bt[256];
	gpu_error(walk, loc, "'%s' is accessed at %s and at %s "
		"by different thread blocks of one launch, which "
		"cannot be ordered", a->buf->name,
		cuda_loc_str(a->loc, at, sizeof(at)),
		cuda_loc_str(b->loc, bt, sizeof(bt)));
}

/* k: see include/stir/ir.h.  The structure first, then the verifier's
 * walk of each launch (verify_walk.c), then the sharing of arrays between
 * launches: no code is printed. */
int stir_kernel_verify_gpu(const stir_kernel *k)
{
	if (!k)
		return -1;
	return cuda_verify_walk(k);
}
