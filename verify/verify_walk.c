/* The GPU verifier's walk (docs/cuda.md, "Checking a kernel for the
 * GPU"): a walk of each launch of a stage III kernel in the order the
 * emitter prints it, printing nothing, that computes the thread context
 * of every statement (the ectx: the loops bound to each thread index, the
 * indices guarded to 0, the indices control flow depends on, the atomic
 * blocks, the cross-thread reductions, the fill loop of a warp buffer),
 * records every access with it for the race analysis (verify/barriers.c)
 * and asks the refusals that depend on it (the cuda_check_* functions of
 * verify_gpu.c).  stir_kernel_verify_gpu runs it (GPU_WALK_VERIFY), and
 * so does the barrier pass (GPU_WALK_PLACE, which records the places a
 * barrier is missing instead of refusing them); the emitter runs the
 * verifier first and prints assuming what it checked.
 *
 * The walk's own state is a gpu_walk (verify/gpu.h: the summaries of
 * accesses, the places, the hoisted reads); the variables' thread
 * dependences and bindings are a gpu_facts built from the kernel
 * (verify/facts.c), and the launches' shapes are gpu_launch
 * (verify/launch.c, which the emitter uses too).
 *
 * The walk mirrors the emitter's statements (cuda_stmt.c, cuda_reduce.c,
 * cuda_warp.c): both take a statement as what gpu_form_of (facts.c) says
 * it becomes, a list in the groups of gpu_group_end, guarded along
 * gpu_guard_dims; within a form, the same contexts, and the accesses in
 * the same order (a store's element before its index and value, a
 * block's used bindings before its body, the warp-buffer reads hoisted
 * before a loop (hoist.c) at the loop), so that the places and the first
 * refusal are those the emitter's own walk found when it carried the
 * checks.  A
 * vectorized loop is walked as its scalar form, which holds the accesses
 * of its vector path; a tensorized nest is checked (cuda_check_mma) and
 * its accesses are those of its intrinsic's description (verify/mma.c).
 * Nothing here depends on codegen/: the walk's state is a gpu_walk, the
 * launches' shapes are gpu_launch (verify/launch.c). */
#include <stdlib.h>
#include <string.h>
#include "verify/gpu.h"
#include "ir/layout.h"
#include "ir/visit.h"

static void walk_list(gpu_walk *walk, const stir_ptr_vec *list, const ectx *ctx,
	summary *sum);
static void walk_stmt(gpu_walk *walk, const stir_stmt *s, const ectx *ctx);

/* ---- expressions -------------------------------------------------------- */

/* The state of an expression walk. */
typedef struct xwalk {
	gpu_walk *walk;
	const ectx *ctx;           /* where the expression runs */
} xwalk;

/* slot, user: expr_pre of cuda_walk_expr (user: the xwalk): record a load
 * or search, check a warp-buffer read, and walk a resolved block
 * variable's binding in its place. */
static stir_visit_step walk_node(stir_expr **slot, void *user)
{
	xwalk *w = user;
	gpu_walk *walk = w->walk;
	const stir_expr *x = *slot;
	int64_t n;
	if (walk->failed)
		return STIR_VISIT_STOP;
	switch (x->kind) {
	case STIR_EXPR_LOAD:
		if (x->u.load.buf->scope != STIR_SCOPE_WARP) {
			gpu_record(walk, w->ctx, x->u.load.buf, x->u.load.idx[0], false,
				false, x->loc);
			return STIR_VISIT_GO;
		}
		/* a shuffle from the lane holding the element, or the constant
		 * computed before the loop */
		if (gpu_is_hoisted(walk, x))
			return STIR_VISIT_SKIP;
		gpu_record(walk, w->ctx, x->u.load.buf, x->u.load.idx[0], false,
			false, x->loc);
		if (!cuda_check_warp_lanes(walk, w->ctx, x->u.load.buf, x->loc, "read",
		    &n) || !cuda_check_warp_read(walk, w->ctx, x))
			return STIR_VISIT_STOP;
		return STIR_VISIT_GO;
	case STIR_EXPR_SEARCH:
		gpu_record(walk, w->ctx, x->u.search.buf, NULL, false, false, x->loc);
		return STIR_VISIT_GO;
	case STIR_EXPR_VAR: {
		const stir_var *v = x->u.var;
		if (v->kind == STIR_VAR_BLOCK && walk->facts.binding[v->slot] &&
		    walk->resolve && walk->resolve[v->slot])
			cuda_walk_expr(walk, w->ctx, walk->facts.binding[v->slot]);
		return STIR_VISIT_GO;
	}
	default:
		return STIR_VISIT_GO;
	}
}

/* walk, ctx, x: see verify/gpu.h. */
void cuda_walk_expr(gpu_walk *walk, const ectx *ctx, const stir_expr *x)
{
	xwalk w = { walk, ctx };
	stir_visitor v = { .expr_pre = walk_node, .user = &w };
	stir_expr *root = (stir_expr *)x;
	stir_visit_expr(&v, &root);
}

/* ---- stores -------------------------------------------------------------- */

/* walk, ctx, buf, idx, op, value, s: a store "buf[idx] op= value" of
 * statement s (value NULL: a generated variable, which reads nothing), as
 * put_store prints it: the element, then its index and the value. */
static void walk_put_store(gpu_walk *walk, const ectx *ctx,
	const stir_buffer *buf, const stir_expr *idx, stir_store_op op,
	const stir_expr *value, const stir_stmt *s)
{
	if (buf->scope == STIR_SCOPE_WARP) {
		sval v = { .x = value, .t = value ? value->dtype : buf->dtype };
		gpu_record(walk, ctx, buf, idx, true, false, s->loc);
		if (!cuda_check_warp_store(walk, ctx, buf, idx, op, &v, s))
			return;
		if (value)
			cuda_walk_expr(walk, ctx, value);
		return;
	}
	bool atomic = gpu_store_is_atomic(ctx->atomic, buf, op);
	gpu_record(walk, ctx, buf, idx, true, atomic, s->loc);
	cuda_walk_expr(walk, ctx, idx);
	if (value)
		cuda_walk_expr(walk, ctx, value);
}

/* walk, s, ctx: a store statement, or one thread's part of a cross-thread
 * reduction (the element it adds to, then the value). */
static void walk_store(gpu_walk *walk, const stir_stmt *s, const ectx *ctx)
{
	const red *r = cuda_red_of(ctx, s);
	if (r) {
		if (r->elems)
			cuda_walk_expr(walk, ctx, s->u.store.idx[0]);
		cuda_walk_expr(walk, ctx, s->u.store.value);
		return;
	}
	walk_put_store(walk, ctx, s->u.store.buf, s->u.store.idx[0], s->u.store.op,
		s->u.store.value, s);
}

/* ---- thread-bound loops and their reductions ------------------------- */

/* walk, ctx, r, inner: the combining stores of reduction r after its
 * threadIdx.x loop, where ctx runs (emit_red_combine). */
static void walk_red_combine(gpu_walk *walk, const ectx *ctx, const red *r,
	bool *inner)
{
	const stir_stmt *st = r->store;
	const stir_buffer *buf = st->u.store.buf;
	const bool *saved = walk->resolve;
	walk->resolve = inner;
	if (r->elems) {
		for (int64_t i = 0; i < r->elems && !walk->failed; i++) {
			stir_expr at = { .kind = STIR_EXPR_INT, .dtype = STIR_I32,
				.loc = st->loc, .u.i = i };
			walk_put_store(walk, ctx, buf, &at, st->u.store.op, NULL, st);
		}
		walk->resolve = saved;
		return;
	}
	if (walk->launch->lit_block[0] > 32) {
		/* the warps' sums meet in shared memory between two barriers */
		cuda_summary_barrier(walk->sum);
		cuda_summary_barrier(walk->sum);
	}
	ectx c = *ctx;
	if (buf->scope != STIR_SCOPE_LOCAL)
		c.single |= DIM_BIT(STIR_THREAD_X) | gpu_unbound(walk->launch, ctx);
	walk_put_store(walk, &c, buf, st->u.store.idx[0], st->u.store.op, NULL, st);
	walk->resolve = saved;
}

/* walk, s, ctx: a loop bound to a thread index (cuda_emit_bound_loop): its
 * reductions checked, its body with the index bound, then the
 * reductions' combining stores. */
static void walk_bound_loop(gpu_walk *walk, const stir_stmt *s, const ectx *ctx)
{
	ectx c;
	red *reds;
	bool *inner;
	int guard = gpu_bound_loop_enter(walk->k, &walk->facts, walk->launch,
		&walk->n_red, s, ctx, &c, &reds, &inner);
	if (guard < 0) {
		walk->failed = true;
		return;
	}
	for (red *r = reds; r && !walk->failed; r = r->next)
		cuda_check_red(walk, s, r, inner, ctx);
	summary body = { 0 };
	walk_list(walk, &s->u.for_.body, &c, &body);
	if (guard)
		cuda_summary_append_maybe(walk, walk->sum, &body);
	else
		cuda_summary_append(walk, walk->sum, &body);
	cuda_summary_release(&body);
	for (red *r = reds; r && !walk->failed; r = r->next)
		walk_red_combine(walk, ctx, r, inner);
	free(inner);
	cuda_free_reds(reds);
}

/* What gpu_names_var looks for. */
typedef struct name_find {
	const gpu_walk *walk;         /* the walk (hoisted reads), or NULL */
	const stir_var *v;         /* the variable */
} name_find;

/* slot, user: expr_pre of gpu_names_var: stop at the name_find's
 * variable; a warp-buffer read held in a constant names nothing. */
static stir_visit_step find_name(stir_expr **slot, void *user)
{
	const name_find *f = user;
	const stir_expr *x = *slot;
	if (x->kind == STIR_EXPR_LOAD && f->walk && gpu_is_hoisted(f->walk, x))
		return STIR_VISIT_SKIP;
	return x->kind == STIR_EXPR_VAR && x->u.var == f->v ?
		STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* walk, x, v: see verify/gpu.h. */
bool gpu_names_var(const gpu_walk *walk, const stir_expr *x,
	const stir_var *v)
{
	name_find f = { .walk = walk, .v = v };
	stir_visitor w = { .expr_pre = find_name, .user = &f };
	stir_expr *root = (stir_expr *)x;
	return stir_visit_expr(&w, &root);
}

/* walk, list, v: see verify/gpu.h. */
bool gpu_list_names_var(const gpu_walk *walk, const stir_ptr_vec *list,
	const stir_var *v)
{
	name_find f = { .walk = walk, .v = v };
	stir_visitor w = { .expr_pre = find_name, .user = &f };
	return stir_visit_list(&w, (stir_ptr_vec *)list);
}

/* What walk_form hands on: the walk and the context. */
typedef struct form_walk {
	gpu_walk *walk;
	const ectx *ctx;
} form_walk;

/* form, user: gpu_form_fn of walk_scalar_form (user: the form_walk). */
static void walk_form(const stir_stmt *form, void *user)
{
	const form_walk *f = user;
	walk_stmt(f->walk, form, f->ctx);
}

/* walk, s, ctx: vectorized loop s as its scalar form, which holds the
 * accesses of its vector path (gpu_scalar_form). */
static void walk_scalar_form(gpu_walk *walk, const stir_stmt *s,
	const ectx *ctx)
{
	form_walk f = { walk, ctx };
	if (gpu_scalar_form(walk->k, s, walk_form, &f) < 0)
		gpu_error(walk, s->loc, "out of memory");
}

/* ---- other statements ------------------------------------------------ */

/* walk, s, ctx, buf: fill loop s of warp buffer buf (cuda_emit_warp_fill). */
static void walk_warp_fill(gpu_walk *walk, const stir_stmt *s, const ectx *ctx,
	const stir_buffer *buf)
{
	int64_t size;
	if (!cuda_check_warp_lanes(walk, ctx, buf, s->loc, "filled", &size) ||
	    !cuda_check_warp_fill(walk, s, buf, size))
		return;
	int64_t lanes = gpu_warp_lanes_here(&walk->facts, walk->launch, ctx);
	ectx c = *ctx;
	c.fill = s->u.for_.var;
	c.fill_id = walk->n_tmp++;
	/* the lanes past the last element store nothing */
	if (s->u.for_.extent->u.i % lanes != 0)
		c.fill_tail = true;
	summary body = { 0 };
	walk_list(walk, &s->u.for_.body, &c, &body);
	cuda_summary_append_maybe(walk, walk->sum, &body);
	cuda_summary_release(&body);
}

/* walk, s, ctx: a serial or unrolled loop (emit_serial_loop), or a
 * pipelined one: its extent, its body, and the barrier its next iteration
 * may need. */
static void walk_serial_loop(gpu_walk *walk, const stir_stmt *s, const ectx *ctx)
{
	ectx c = *ctx;
	c.divergent |= cuda_expr_deps(&walk->facts, s->u.for_.extent) & THREAD_DIMS;
	cuda_walk_expr(walk, ctx, s->u.for_.extent);
	summary body = { 0 };
	walk_list(walk, &s->u.for_.body, &c, &body);
	if (!walk->failed)
		cuda_loop_carried_barrier(walk, s, &c, &body);
	cuda_summary_append_maybe(walk, walk->sum, &body);
	cuda_summary_release(&body);
}

/* walk, s, ctx: a tensorized nest: checked (cuda_check_mma), then its
 * accesses recorded (gpu_walk_mma, from the intrinsic's description). */
static void walk_mma(gpu_walk *walk, const stir_stmt *s, const ectx *ctx)
{
	if (cuda_check_mma(walk, s, ctx))
		gpu_walk_mma(walk, s, ctx);
}

/* walk, s, ctx: if/else; each branch may not run. */
static void walk_if(gpu_walk *walk, const stir_stmt *s, const ectx *ctx)
{
	ectx c = *ctx;
	c.divergent |= cuda_expr_deps(&walk->facts, s->u.if_.cond) & THREAD_DIMS;
	cuda_walk_expr(walk, ctx, s->u.if_.cond);
	const stir_ptr_vec *branch[2] = { &s->u.if_.then_body,
		&s->u.if_.else_body };
	for (int i = 0; i < 2; i++) {
		if (i && !branch[i]->n)
			break;
		summary body = { 0 };
		walk_list(walk, branch[i], &c, &body);
		cuda_summary_append_maybe(walk, walk->sum, &body);
		cuda_summary_release(&body);
	}
}

/* walk, s, ctx: a block: the bindings of the variables it uses, then its
 * body (in the same summary). */
static void walk_block(gpu_walk *walk, const stir_stmt *s, const ectx *ctx)
{
	const stir_stmt *red_store = (s->u.block.flags &
		STIR_BLOCK_CROSS_THREAD) ? stir_stmt_at(&s->u.block.body, 0) : NULL;
	for (int i = 0; i < s->u.block.n_vars; i++) {
		const stir_var *v = s->u.block.vars[i];
		if (red_store ? gpu_names_var(walk, red_store->u.store.value, v) :
		    gpu_list_names_var(walk, &s->u.block.body, v))
			cuda_walk_expr(walk, ctx, s->u.block.bindings[i]);
	}
	ectx c = *ctx;
	if (s->u.block.flags & STIR_BLOCK_ATOMIC)
		c.atomic = true;
	walk_list(walk, &s->u.block.body, &c, walk->sum);
}

/* walk, s, form, ctx: loop s of form "form", after the warp-buffer reads
 * the emitter computes before it (gpu_hoist). */
static void walk_for(gpu_walk *walk, const stir_stmt *s, gpu_form form,
	const ectx *ctx)
{
	ectx c = *ctx;
	c.fill = NULL;
	/* the walk of the pass hoist_warp_reads holds the reads it moves
	 * before the loop; the others find them moved already */
	int mark = walk->hoists ? gpu_hoist(walk, s, &c) : walk->n_memo;
	switch (form) {
	case GPU_FORM_BOUND_LOOP:
		walk_bound_loop(walk, s, &c);
		break;
	case GPU_FORM_VECTOR_LOOP:
		walk_scalar_form(walk, s, &c);
		break;
	case GPU_FORM_MMA:
		walk_mma(walk, s, &c);
		break;
	case GPU_FORM_PIPELINE:
		/* checked where the barriers are in (not by the walks of
		 * the passes that place them) */
		if (walk->mode != GPU_WALK_VERIFY || cuda_check_pipeline(walk, s))
			walk_serial_loop(walk, s, &c);
		break;
	case GPU_FORM_WARP_FILL:
		walk_warp_fill(walk, s, &c, cuda_warp_fill_of(&s->u.for_.body));
		break;
	default: /* GPU_FORM_SERIAL_LOOP */
		walk_serial_loop(walk, s, &c);
		break;
	}
	gpu_unhoist(walk, mark);
}

/* walk, s, ctx: one statement, as cuda_emit_stmt emits it (gpu_form_of). */
static void walk_stmt_at(gpu_walk *walk, const stir_stmt *s, const ectx *ctx)
{
	gpu_form form = gpu_form_of(s);
	switch (form) {
	case GPU_FORM_STORE:
		walk_store(walk, s, ctx);
		return;
	case GPU_FORM_LET:
		cuda_walk_expr(walk, ctx, s->u.let.value);
		return;
	case GPU_FORM_IF:
		walk_if(walk, s, ctx);
		return;
	case GPU_FORM_BLOCK:
		walk_block(walk, s, ctx);
		return;
	case GPU_FORM_BOUND_LOOP:
	case GPU_FORM_VECTOR_LOOP:
	case GPU_FORM_MMA:
	case GPU_FORM_PIPELINE:
	case GPU_FORM_WARP_FILL:
	case GPU_FORM_SERIAL_LOOP:
		walk_for(walk, s, form, ctx);
		return;
	case GPU_FORM_BARRIER:
		if (cuda_check_barrier(walk, s, ctx))
			cuda_summary_barrier(walk->sum);
		return;
	case GPU_FORM_REFUSED:
		/* refused by cuda_verify_structure */
		walk->failed = true;
		return;
	}
}

/* walk, s, ctx: statement s, its accesses that have no location (made by
 * a schedule) cited at the nearest place around them (walk->place). */
static void walk_stmt(gpu_walk *walk, const stir_stmt *s, const ectx *ctx)
{
	stir_loc outer = walk->place;
	stir_loc loc = stir_stmt_first_loc(s);
	if (loc.line > 0)
		walk->place = loc;
	walk_stmt_at(walk, s, ctx);
	walk->place = outer;
}

/* walk, list, from, to, ctx: statement list[to], with the hoisted lets
 * list[from .. to - 1] before it, guarded to index 0 along the indices it
 * would otherwise run redundantly on when it stores to memory other
 * threads see (emit_guarded). */
static void walk_guarded(gpu_walk *walk, const stir_ptr_vec *list, int from,
	int to, const ectx *ctx)
{
	unsigned u = gpu_guard_dims(stir_stmt_at(list, to),
		gpu_unbound(walk->launch, ctx));
	ectx c = *ctx;
	if (u) {
		c.single |= u;
		c.divergent |= u & THREAD_DIMS;
	}
	for (int i = from; i <= to; i++)
		walk_stmt(walk, stir_stmt_at(list, i), &c);
}

/* walk, list, ctx, sum: a statement list: what each statement accesses
 * decides whether a barrier goes before it (cuda_emit_list). */
static void walk_list(gpu_walk *walk, const stir_ptr_vec *list, const ectx *ctx,
	summary *sum)
{
	for (int i = 0; i < list->n && !walk->failed; i++) {
		int from = i;
		i = gpu_group_end(list, i);
		const stir_stmt *s = stir_stmt_at(list, i);
		summary c = { 0 };
		summary *saved = walk->sum;
		walk->sum = &c;
		walk_guarded(walk, list, from, i, ctx);
		walk->sum = saved;
		const cg_access *a, *b;
		if (cuda_needs_barrier(walk, cuda_summary_pending(sum), &c.first,
		    s->loc, &a, &b))
			cuda_need_barrier(walk, ctx, s->loc, a, b, sum, list, s);
		cuda_summary_append(walk, sum, &c);
		cuda_summary_release(&c);
	}
}

/* walk, li: see verify/gpu.h. */
void cuda_walk_launch(gpu_walk *walk, int li)
{
	const gpu_launch *L = &walk->launches[li];
	summary sum = { 0 };
	ectx ctx = { 0 };
	walk->sum = &sum;
	walk->place = stir_stmt_first_loc(L->stmt);
	if (walk->place.line <= 0)
		walk->place = walk->k->loc;
	if (L->horizontal) {
		/* each nest takes the next range of blockIdx.x (emit_horizontal) */
		const stir_stmt *h = L->stmt;
		for (int i = 0; i < h->u.block.body.n && !walk->failed; i++) {
			const stir_stmt *n = stir_stmt_at(&h->u.block.body, i);
			ectx c = ctx;
			c.bound[STIR_BLOCK_X] = n;
			if (h->u.block.flags & STIR_BLOCK_ATOMIC)
				c.atomic = true;
			summary body = { 0 };
			walk_list(walk, &n->u.for_.body, &c, &body);
			cuda_summary_append_maybe(walk, walk->sum, &body);
			cuda_summary_release(&body);
		}
	} else {
		stir_ptr_vec one = { 1, 1, (void **)&L->stmt };
		walk_list(walk, &one, &ctx, &sum);
	}
	cuda_summary_release(&sum);
	walk->sum = NULL;
}

/* walk, li: make launch li the one walked: its state reset, its fragment
 * buffers noted (gpu_frag_scan). */
static void walk_launch_open(gpu_walk *walk, int li)
{
	size_t nb = (size_t)walk->k->buffers.n + 1;
	walk->launch = &walk->launches[li];
	memset(walk->warp_lanes, 0, nb * sizeof(*walk->warp_lanes));
	memset(walk->frag, 0, nb * sizeof(*walk->frag));
	memset(walk->frag_split, 0, nb * sizeof(*walk->frag_split));
	walk->local_writes.n = 0;
	gpu_frag_scan(walk->launch->stmt, walk->frag, walk->frag_split);
}

/* walk, k: the state of a walk of k (walk->mode and what it fills set): the
 * variables' facts and every launch's shape.  0, or -1 when memory runs
 * out (reported). */
static int walk_open(gpu_walk *walk, const stir_kernel *k)
{
	size_t nb = (size_t)k->buffers.n + 1;
	walk->k = k;
	walk->ctx = stir_kernel_ctx(k);
	int n = 0;
	for (int i = 0; i < k->body.n; i++)
		n += stir_stmt_at(&k->body, i)->kind != STIR_STMT_LET;
	walk->launches = calloc((size_t)n + 1, sizeof(*walk->launches));
	walk->warp_lanes = calloc(nb, sizeof(*walk->warp_lanes));
	walk->frag = calloc(nb, sizeof(*walk->frag));
	walk->frag_split = calloc(nb, sizeof(*walk->frag_split));
	if (!walk->launches || !walk->warp_lanes || !walk->frag ||
	    !walk->frag_split ||
	    cuda_facts_init(&walk->facts, k) < 0) {
		stir_error_oom(walk->ctx);
		return -1;
	}
	for (int i = 0; i < k->body.n; i++) {
		const stir_stmt *s = stir_stmt_at(&k->body, i);
		if (s->kind == STIR_STMT_LET)
			continue;
		gpu_launch *L = &walk->launches[walk->n_launches++];
		L->stmt = s;
		if (gpu_launch_scan(L, &walk->facts) < 0) {
			stir_error_oom(walk->ctx);
			return -1;
		}
	}
	return 0;
}

/* walk: release what walk_open and the walk made. */
static void walk_close(gpu_walk *walk)
{
	for (int i = 0; walk->launches && i < walk->n_launches; i++)
		gpu_launch_release(&walk->launches[i]);
	free(walk->launches);
	free(walk->warp_lanes);
	free(walk->frag);
	free(walk->frag_split);
	cuda_facts_release(&walk->facts);
	free(walk->memo);
	free(walk->local_writes.v);
}

/* k, mode, places, hoists: the verifier's walk of k in mode "mode"
 * (appending to places, and to hoists when not NULL), after the checks
 * that need no thread context and before those of the sharing of arrays
 * between launches.  0 or -1. */
static int walk_kernel(const stir_kernel *k, gpu_walk_mode mode,
	cuda_places *places, cuda_hoists *hoists)
{
	/* what needs no thread context is checked first: the walk assumes
	 * it */
	if (cuda_verify_stage(k) < 0 || cuda_verify_structure(k) < 0)
		return -1;
	gpu_walk walk = { .mode = mode, .places = places, .hoists = hoists };
	if (walk_open(&walk, k) < 0) {
		walk.failed = true;
	} else {
		for (int li = 0; li < walk.n_launches && !walk.failed; li++) {
			walk_launch_open(&walk, li);
			cuda_walk_launch(&walk, li);
		}
		if (!walk.failed && cuda_verify_sharing(k) < 0)
			walk.failed = true;
	}
	int r = walk.failed ? -1 : 0;
	walk_close(&walk);
	return r;
}

/* k, places: see verify/gpu.h. */
int cuda_place_barriers(const stir_kernel *k, cuda_places *places)
{
	return walk_kernel(k, GPU_WALK_PLACE, places, NULL);
}

/* k, places, hoists: see verify/gpu.h. */
int cuda_walk_hoists(const stir_kernel *k, cuda_places *places,
	cuda_hoists *hoists)
{
	return walk_kernel(k, GPU_WALK_PLACE, places, hoists);
}

/* k: see verify/gpu.h. */
int cuda_verify_walk(const stir_kernel *k)
{
	return walk_kernel(k, GPU_WALK_VERIFY, NULL, NULL);
}
