/* The launches' shapes and the thread context of loops bound to thread
 * indices (docs/cuda.md, "Checking a kernel for the GPU"): what the
 * verifier's walk and the CUDA emitter both compute from the kernel, so
 * that the emitter prints the contexts the verifier checked.
 *
 *   gpu_launch_scan      the extents each thread index of a launch is
 *                        bound to, the indices used, the literal block
 *   gpu_unbound, gpu_only_extent, gpu_warp_lanes_here
 *                        questions about a launch where a context runs
 *   gpu_bound_loop_enter the context inside a loop bound to a thread
 *                        index, with its cross-thread reductions
 *   gpu_scalar_form      the scalar form of a vectorized loop
 *   gpu_frag_scan        the fragment buffers of tensorized nests
 *
 * Nothing here reports but running out of memory: the refusals are
 * verify_gpu.c's, made before (cuda_verify_structure) or by the walk. */
#include <stdlib.h>
#include "verify/gpu.h"
#include "ir/affine.h"
#include "ir/intrinsics.h"
#include "ir/visit.h"
#include "verify/nest_guard.h"

/* The lanes a tensorized nest runs on: threadIdx.x's extent. */
const stir_expr cuda_mma_lanes = { .kind = STIR_EXPR_INT, .dtype = STIR_I32,
	.u.i = 32 };

/* ---- launches ----------------------------------------------------------- */

/* f, L, d, x, dedupe: add extent x to index d of launch L (f: the
 * variables' facts, to compare extents).  0, or -1 out of memory. */
static int add_extent(const gpu_facts *f, gpu_launch *L, int d,
	const stir_expr *x, bool dedupe)
{
	for (int i = 0; dedupe && i < L->n_ext[d]; i++)
		if (cuda_expr_equal(f, L->ext[d][i], x))
			return 0;
	const stir_expr **n = realloc(L->ext[d],
		((size_t)L->n_ext[d] + 1) * sizeof(*n));
	if (!n)
		return -1;
	n[L->n_ext[d]++] = x;
	L->ext[d] = n;
	L->used |= DIM_BIT(d);
	return 0;
}

/* What scan_launch collects into. */
typedef struct launch_scan {
	const gpu_facts *f;        /* the variables' facts */
	gpu_launch *L;             /* the launch */
	bool failed;               /* memory ran out */
} launch_scan;

/* s, user: stmt_pre of scan_launch: add the extent of a loop bound to a
 * thread index to the launch_scan's launch. */
static stir_visit_step scan_bound(stir_stmt *s, void *user)
{
	launch_scan *ls = user;
	if (s->kind == STIR_STMT_FOR && s->u.for_.kind == STIR_LOOP_BIND &&
	    add_extent(ls->f, ls->L, s->u.for_.thread, s->u.for_.extent,
	    true) < 0)
		ls->failed = true;
	/* a tensorized nest runs on the 32 lanes of threadIdx.x */
	if (s->kind == STIR_STMT_FOR && s->u.for_.kind == STIR_LOOP_TENSORIZE &&
	    add_extent(ls->f, ls->L, STIR_THREAD_X, &cuda_mma_lanes, true) < 0)
		ls->failed = true;
	return ls->failed ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* ls, s, list: collect the extents of the loops bound to thread indices
 * in s (or, s NULL, in list); the bindings are legal
 * (cuda_verify_structure). */
static void scan_launch(launch_scan *ls, const stir_stmt *s,
	const stir_ptr_vec *list)
{
	stir_visitor v = { .stmt_pre = scan_bound, .user = ls };
	if (s)
		stir_visit_stmt(&v, (stir_stmt *)s);
	else
		stir_visit_list(&v, (stir_ptr_vec *)list);
}

/* ls, h: the nests of horizontal block h: each a loop bound to
 * blockIdx.x with nothing else bound to blockIdx (cuda_verify_structure
 * checked). */
static void scan_horizontal(launch_scan *ls, const stir_stmt *h)
{
	ls->L->horizontal = true;
	for (int i = 0; i < h->u.block.body.n && !ls->failed; i++) {
		const stir_stmt *n = stir_stmt_at(&h->u.block.body, i);
		if (add_extent(ls->f, ls->L, STIR_BLOCK_X, n->u.for_.extent,
		    false) < 0)
			ls->failed = true;
		else
			scan_launch(ls, NULL, &n->u.for_.body);
	}
}

/* L: the literal block size, or -1 per index (see gpu_launch). */
static void literal_block(gpu_launch *L)
{
	for (int i = 0; i < 3; i++) {
		int d = STIR_THREAD_X + i;
		int64_t m = 1;
		for (int j = 0; j < L->n_ext[d]; j++) {
			const stir_expr *x = L->ext[d][j];
			if (x->kind != STIR_EXPR_INT) {
				m = -1;
				break;
			}
			if (x->u.i > m)
				m = x->u.i;
		}
		L->lit_block[i] = m;
	}
}

/* L, f: see verify/gpu.h. */
int gpu_launch_scan(gpu_launch *L, const gpu_facts *f)
{
	launch_scan ls = { .f = f, .L = L };
	if (L->stmt->kind == STIR_STMT_BLOCK &&
	    (L->stmt->u.block.flags & STIR_BLOCK_HORIZONTAL))
		scan_horizontal(&ls, L->stmt);
	else
		scan_launch(&ls, L->stmt, NULL);
	if (ls.failed)
		return -1;
	literal_block(L);
	return 0;
}

/* L: see verify/gpu.h. */
void gpu_launch_release(gpu_launch *L)
{
	for (int d = 0; d < N_DIMS; d++) {
		free(L->ext[d]);
		L->ext[d] = NULL;
		L->n_ext[d] = 0;
	}
}

/* L, ctx: see verify/gpu.h. */
unsigned gpu_unbound(const gpu_launch *L, const ectx *ctx)
{
	unsigned b = 0;
	for (int d = 0; d < N_DIMS; d++)
		if (ctx->bound[d])
			b |= DIM_BIT(d);
	return L->used & ~b & ~ctx->single;
}

/* f, L, d, x: see verify/gpu.h. */
bool gpu_only_extent(const gpu_facts *f, const gpu_launch *L, int d,
	const stir_expr *x)
{
	return L->n_ext[d] == 1 && !(L->horizontal && d == STIR_BLOCK_X) &&
		cuda_expr_equal(f, L->ext[d][0], x);
}

/* f, L, ctx: see verify/gpu.h. */
int64_t gpu_warp_lanes_here(const gpu_facts *f, const gpu_launch *L,
	const ectx *ctx)
{
	const stir_stmt *x = ctx->bound[STIR_THREAD_X];
	const stir_expr *ext = x ? x->u.for_.extent : NULL;
	if (!ext || ext->kind != STIR_EXPR_INT || ext->u.i > 32 ||
	    !cuda_is_pow2(ext->u.i) ||
	    !gpu_only_extent(f, L, STIR_THREAD_X, ext))
		return 0;
	return ext->u.i;
}

/* ---- thread-bound loops and their reductions ---------------------------- */

/* What find_red collects. */
typedef struct red_find {
	int *n_red;                /* the counter of reductions */
	red **r;                   /* the list the blocks are prepended to */
	bool failed;               /* memory ran out */
} red_find;

/* s, user: stmt_pre of find_reds: prepend a cross_thread block to the
 * red_find's list; do not enter a loop bound to threadIdx.x. */
static stir_visit_step find_red(stir_stmt *s, void *user)
{
	red_find *f = user;
	if (s->kind == STIR_STMT_FOR && s->u.for_.kind == STIR_LOOP_BIND &&
	    s->u.for_.thread == STIR_THREAD_X)
		return STIR_VISIT_SKIP;
	if (s->kind != STIR_STMT_BLOCK ||
	    !(s->u.block.flags & STIR_BLOCK_CROSS_THREAD))
		return STIR_VISIT_GO;
	red *n = calloc(1, sizeof(*n));
	if (!n) {
		f->failed = true;
		return STIR_VISIT_STOP;
	}
	n->block = s;
	n->store = stir_stmt_at(&s->u.block.body, 0);
	n->id = (*f->n_red)++;
	n->next = *f->r;
	*f->r = n;
	return STIR_VISIT_GO;
}

/* t: see verify/gpu.h. */
stir_dtype cuda_red_acc_type(stir_dtype t)
{
	switch (t) {
	case STIR_I8: return STIR_I32;
	case STIR_F16:
	case STIR_BF16: return STIR_F32;
	default: return t;
	}
}

/* k, n_red, s, reds, inner: the reductions of threadIdx.x loop s into
 * *reds (numbered from *n_red on), each with its accumulator type, and,
 * when there are any, the variables defined inside s in *inner
 * (cuda_mark_defined; free it); -1 when memory runs out (reported,
 * nothing left to free). */
static int bound_loop_reds(const stir_kernel *k, int *n_red,
	const stir_stmt *s, red **reds, bool **inner)
{
	*reds = NULL;
	*inner = NULL;
	red_find f = { .n_red = n_red, .r = reds };
	stir_visitor v = { .stmt_pre = find_red, .user = &f };
	stir_visit_list(&v, (stir_ptr_vec *)&s->u.for_.body);
	if (!f.failed && !*reds)
		return 0;
	if (f.failed || !(*inner = calloc((size_t)k->n_vars + 1,
	    sizeof(bool)))) {
		stir_error_oom(stir_kernel_ctx(k));
		cuda_free_reds(*reds);
		*reds = NULL;
		return -1;
	}
	cuda_mark_defined(s, *inner);
	for (red *r = *reds; r; r = r->next)
		r->acc = cuda_red_acc_type(r->store->u.store.buf->dtype);
	return 0;
}

/* k, f, L, n_red, s, ctx, c, reds, inner: see verify/gpu.h. */
int gpu_bound_loop_enter(const stir_kernel *k, const gpu_facts *f,
	const gpu_launch *L, int *n_red, const stir_stmt *s, const ectx *ctx,
	ectx *c, red **reds, bool **inner)
{
	int d = s->u.for_.thread;
	const stir_expr *ext = s->u.for_.extent;
	*reds = NULL;
	*inner = NULL;
	/* reported by cuda_verify_structure */
	if (ctx->bound[d])
		return -1;
	bool uniform = gpu_only_extent(f, L, d, ext);
	/* a literal extent that is the launch size needs no guard */
	bool guard = !(uniform && ext->kind == STIR_EXPR_INT && ext->u.i >= 1);
	if (d == STIR_THREAD_X) {
		if (bound_loop_reds(k, n_red, s, reds, inner) < 0)
			return -1;
		for (red *r = *reds; r; r = r->next)
			r->elems = cuda_red_elems(f, s, r, *inner);
	}
	*c = *ctx;
	c->bound[d] = s;
	if (*reds)
		c->red = *reds;
	if (guard && !uniform && (DIM_BIT(d) & THREAD_DIMS))
		c->divergent |= DIM_BIT(d);
	return guard;
}

/* ---- vectorized loops and tensorized nests ------------------------------ */

/* k, s, fn, user: see verify/gpu.h. */
int gpu_scalar_form(const stir_kernel *k, const stir_stmt *s,
	gpu_form_fn fn, void *user)
{
	stir_stmt copy = *s;
	copy.u.for_.kind = STIR_LOOP_UNROLL;
	const stir_stmt *g = stir_nest_guard(k, &copy);
	if (!g) {
		fn(&copy, user);
		return 0;
	}
	int n = 1;
	for (const stir_stmt *x = s; stir_stmt_at(&x->u.for_.body, 0) != g;
	    x = stir_stmt_at(&x->u.for_.body, 0))
		n++;
	stir_stmt *nest = calloc((size_t)n, sizeof(*nest));
	void **one = calloc((size_t)n + 1, sizeof(*one));
	if (!nest || !one) {
		free(nest);
		free(one);
		return -1;
	}
	nest[0] = copy;
	for (int i = 0; i < n; i++) {
		if (i + 1 == n) {
			nest[i].u.for_.body = g->u.if_.then_body;
			break;
		}
		nest[i + 1] = *stir_stmt_at(&nest[i].u.for_.body, 0);
		one[i] = &nest[i + 1];
		nest[i].u.for_.body = (stir_ptr_vec){ 1, 1, &one[i] };
	}
	stir_stmt wrap = *g;
	one[n] = &nest[0];
	wrap.u.if_.then_body = (stir_ptr_vec){ 1, 1, &one[n] };
	fn(&wrap, user);
	free(nest);
	free(one);
	return 0;
}

/* s, m: see verify/gpu.h. */
bool gpu_mma_match(const stir_stmt *s, stir_mma_match *m)
{
	const stir_intrinsic *in = stir_intrinsic_find(s->u.for_.intrinsic);
	char why[400];
	stir_loc where = s->loc;
	return in && stir_tensorize_match(s, in, m, why, sizeof(why), &where);
}

/* What frag_nest carries: the walk of gpu_frag_scan. */
typedef struct frag_walk {
	const stir_intrinsic **frag;
	gpu_frag_split *split;
	ectx ctx;                  /* its bound[] alone: the loops bound to
	                              threadIdx.y and z around the statement */
} frag_walk;

/* s: whether s is a loop bound to threadIdx.y or z. */
static bool warps_loop(const stir_stmt *s)
{
	return s->kind == STIR_STMT_FOR && s->u.for_.kind == STIR_LOOP_BIND &&
		(s->u.for_.thread == STIR_THREAD_Y ||
		 s->u.for_.thread == STIR_THREAD_Z);
}

/* s, user: stmt_pre of gpu_frag_scan (a frag_walk): note the intrinsic of
 * the first tensorized nest that accumulates in each fragment buffer, and
 * whether its tile index names a loop bound to threadIdx.y or z. */
static stir_visit_step frag_nest(stir_stmt *s, void *user)
{
	frag_walk *w = user;
	if (warps_loop(s))
		w->ctx.bound[s->u.for_.thread] = s;
	if (s->kind != STIR_STMT_FOR || s->u.for_.kind != STIR_LOOP_TENSORIZE)
		return STIR_VISIT_GO;
	stir_mma_match m;
	stir_affine a;
	if (!gpu_mma_match(s, &m))
		return STIR_VISIT_SKIP;
	if (m.form == STIR_MMA_FORM_COPY || !m.frag)
		return STIR_VISIT_SKIP;
	/* the first nest's intrinsic: cuda_check_mma refuses another */
	if (!w->frag[m.frag->index])
		w->frag[m.frag->index] = m.in;
	gpu_frag_split *sp = &w->split[m.frag->index];
	for (int d = STIR_THREAD_Y; d <= STIR_THREAD_Z; d++) {
		const stir_stmt *l = w->ctx.bound[d];
		const stir_expr *x = l ? l->u.for_.extent : NULL;
		int64_t c;
		/* (sched_frag_split_ok made the extent a literal); the first
		 * nest bound by it notes the digit, gpu_frag_split_miss checks
		 * the others */
		if (x && x->kind == STIR_EXPR_INT && stir_mma_frag_form(&m, &a) &&
		    (c = stir_affine_coef(&a, l->u.for_.var)) != 0 &&
		    !sp->warps[d - STIR_THREAD_Y]) {
			sp->warps[d - STIR_THREAD_Y] = x->u.i;
			sp->coef[d - STIR_THREAD_Y] = c;
		}
	}
	return STIR_VISIT_SKIP;
}

/* s, user: stmt_post of gpu_frag_scan: a bound loop left. */
static stir_visit_step frag_post(stir_stmt *s, void *user)
{
	frag_walk *w = user;
	if (warps_loop(s))
		w->ctx.bound[s->u.for_.thread] = NULL;
	return STIR_VISIT_GO;
}

/* s, frag, split: see verify/gpu.h. */
void gpu_frag_scan(const stir_stmt *s, const stir_intrinsic **frag,
	gpu_frag_split *split)
{
	frag_walk w = { .frag = frag, .split = split };
	stir_visitor v = { frag_nest, frag_post, NULL, NULL, 0, &w };
	stir_visit_stmt(&v, (stir_stmt *)s);
}

/* sp: see verify/gpu.h. */
int64_t gpu_frag_split_warps(const gpu_frag_split *sp)
{
	return (sp->warps[0] ? sp->warps[0] : 1) *
		(sp->warps[1] ? sp->warps[1] : 1);
}

/* m, ctx, sp: see verify/gpu.h. */
stir_thread gpu_frag_split_miss(const stir_mma_match *m, const ectx *ctx,
	const gpu_frag_split *sp)
{
	int64_t row = (int64_t)m->in->n * m->frag_tiles;
	stir_affine a;
	bool form = stir_mma_frag_form(m, &a);
	for (int i = 0; i < 2; i++) {
		stir_thread d = i ? STIR_THREAD_Z : STIR_THREAD_Y;
		const stir_stmt *l = ctx->bound[d];
		int64_t c = sp->coef[i], group = c * sp->warps[i];
		if (!sp->warps[i])
			continue;
		if (!l || !form || c <= 0 || c % m->in->n || row % group ||
		    stir_affine_coef(&a, l->u.for_.var) != c)
			return d;
	}
	return STIR_THREAD_X;
}
