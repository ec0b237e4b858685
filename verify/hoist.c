/* Warp-buffer reads computed once (docs/cuda.md, "Searches" and "Warp
 * buffers"): which reads the stage III pass hoist_warp_reads
 * (passes/hoist.c) moves.
 *
 * Searches that a loop does not change are computed before it by the
 * stage III pass hoist_invariants (passes/hoist.c), as "hoisted let"
 * statements the emitter prints as constants stir_sN.  Reads of warp
 * buffers (docs/cuda.md, "Warp buffers") move the same way, for another
 * reason: each is a shuffle, which the CUDA compiler does not merge
 * either, so a vectorized loop would shuffle once per lane and per use.
 * A read moves before a loop when its index can always be evaluated (it
 * reads no memory and divides by nothing but non-zero literals), uses
 * nothing defined inside the loop, the loop does not store into the
 * buffer (its fill stays before the read), and the lanes run the loop
 * together (warp_readable).  A shuffle never faults: where the read
 * would not have run, the value is not used (the interpreter gives 0 for
 * a hoisted read out of the buffer).
 *
 * Whether the lanes run a loop together is a fact of the thread mapping,
 * which the verifier's walk computes: gpu_hoist decides, before each
 * loop, which reads move there.  The pass stir_hoist_warp_reads
 * (passes/hoist.c) runs the verifier's walk (verify/verify_walk.c,
 * cuda_walk_hoists), which notes each decision, and puts a "hoisted let"
 * before the loop for each read it noted and its variable in place of the
 * equal reads inside; the emitter prints the lets as the constants
 * stir_sN.
 * A kernel that did not go through the pass keeps its reads where they
 * are (a shuffle each), and the GPU verifier checks them there. */
#include <stdlib.h>
#include <string.h>
#include "verify/gpu.h"
#include "ir/util.h"
#include "ir/visit.h"

static bool safe_value(const gpu_walk *walk, const stir_expr *x);

/* slot, user: expr_pre of safe_value: stop at an expression that may
 * fault or reads memory (user: the emitter, for block bindings). */
static stir_visit_step unsafe(stir_expr **slot, void *user)
{
	const gpu_walk *walk = user;
	const stir_expr *x = *slot;
	bool ok;
	if (x->kind == STIR_EXPR_VAR)
		ok = !(x->u.var->kind == STIR_VAR_BLOCK &&
			walk->facts.binding[x->u.var->slot]) ||
			safe_value(walk, walk->facts.binding[x->u.var->slot]);
	else
		ok = stir_expr_node_is_safe(x);
	return ok ? STIR_VISIT_GO : STIR_VISIT_STOP;
}

/* walk, x: whether x can be evaluated anywhere: no loads, no searches, no
 * division or remainder by anything but a non-zero literal (block
 * variables through their bindings). */
static bool safe_value(const gpu_walk *walk, const stir_expr *x)
{
	stir_visitor v = { .expr_pre = unsafe, .user = (void *)walk };
	stir_expr *root = (stir_expr *)x;
	return !stir_visit_expr(&v, &root);
}

/* walk, x: the constant that holds warp-buffer read x, or -1. */
static int find_memo(const gpu_walk *walk, const stir_expr *x)
{
	for (int i = walk->n_memo - 1; i >= 0; i--)
		if (cuda_expr_equal(&walk->facts, walk->memo[i].x, x))
			return walk->memo[i].id;
	return -1;
}

/* walk, ctx: whether a warp buffer may be read where ctx runs (inside a
 * loop bound to threadIdx.x that all lanes run together), as the
 * emitter's cuda_warp_readable; no diagnostic. */
static bool warp_readable(const gpu_walk *walk, const ectx *ctx)
{
	return gpu_warp_lanes_here(&walk->facts, walk->launch, ctx) > 0 &&
		!ctx->fill_tail && !(ctx->divergent & DIM_BIT(STIR_THREAD_X));
}

/* The walk of a loop's body. */
typedef struct hoist_walk {
	gpu_walk *walk;
	const ectx *ctx;           /* the context at the loop */
	const stir_stmt *loop;     /* the loop */
	const bool *inner;         /* variables defined inside the loop */
} hoist_walk;

/* w, x: whether load x of a warp buffer may be read before the loop. */
static bool warp_movable(const hoist_walk *w, const stir_expr *x)
{
	const stir_expr *idx = x->u.load.idx[0];
	return warp_readable(w->walk, w->ctx) && safe_value(w->walk, idx) &&
		!cuda_inner_var(&w->walk->facts, idx, w->inner) &&
		!stir_stmt_writes(w->loop, x->u.load.buf);
}

/* slot, user: expr_pre of the hoist walk (user: the hoist_walk): do not
 * enter searches: they are hoisted by passes/hoist.c, and one that stays
 * is looked at as a whole, as there. */
static stir_visit_step hoist_enter(stir_expr **slot, void *user)
{
	const hoist_walk *w = user;
	if (w->walk->failed)
		return STIR_VISIT_STOP;
	return (*slot)->kind == STIR_EXPR_SEARCH ? STIR_VISIT_SKIP :
		STIR_VISIT_GO;
}

/* walk, loop, x: note for stir_hoist_warp_reads that read x moves
 * before loop "loop".  0, or -1 out of memory. */
static int note_hoist(gpu_walk *walk, const stir_stmt *loop, const stir_expr *x)
{
	cuda_hoists *h = walk->hoists;
	if (h->n == h->cap) {
		int cap = h->cap ? 2 * h->cap : 8;
		cuda_hoist_at *v = realloc(h->v, (size_t)cap * sizeof(*v));
		if (!v) {
			gpu_error(walk, loop->loc, "out of memory");
			return -1;
		}
		h->v = v;
		h->cap = cap;
	}
	h->v[h->n++] = (cuda_hoist_at){ loop->u.for_.var, x };
	return 0;
}

/* slot, user: expr_post of the hoist walk (user: the hoist_walk), after
 * the reads inside the expression: hold a movable warp-buffer read not
 * held yet before the loop. */
static stir_visit_step hoist_expr(stir_expr **slot, void *user)
{
	hoist_walk *w = user;
	gpu_walk *walk = w->walk;
	const stir_expr *x = *slot;
	if (walk->failed)
		return STIR_VISIT_STOP;
	if (x->kind != STIR_EXPR_LOAD ||
	    x->u.load.buf->scope != STIR_SCOPE_WARP || !warp_movable(w, x) ||
	    find_memo(walk, x) >= 0)
		return STIR_VISIT_GO;
	if (walk->n_memo == walk->cap_memo) {
		int cap = walk->cap_memo ? 2 * walk->cap_memo : 8;
		cuda_memo *m = realloc(walk->memo, (size_t)cap * sizeof(*m));
		if (!m) {
			gpu_error(walk, x->loc, "out of memory");
			return STIR_VISIT_STOP;
		}
		walk->memo = m;
		walk->cap_memo = cap;
	}
	/* the read as it would be made inside, block variables defined
	 * there replaced by their bindings: recorded and checked where the
	 * loop starts (verify/verify_walk.c) */
	int id = walk->n_hoist++;
	const bool *saved = walk->resolve;
	walk->resolve = w->inner;
	cuda_walk_expr(walk, w->ctx, x);
	walk->resolve = saved;
	walk->memo[walk->n_memo++] = (cuda_memo){ .x = x, .id = id };
	if (walk->hoists && note_hoist(walk, w->loop, x) < 0)
		return STIR_VISIT_STOP;
	return STIR_VISIT_GO;
}

/* walk, s, ctx: see cuda_internal.h. */
int gpu_hoist(gpu_walk *walk, const stir_stmt *s, const ectx *ctx)
{
	int mark = walk->n_memo;
	bool *inner = calloc((size_t)walk->k->n_vars + 1, sizeof(bool));
	if (!inner) {
		gpu_error(walk, s->loc, "out of memory");
		return mark;
	}
	cuda_mark_defined(s, inner);
	hoist_walk w = { walk, ctx, s, inner };
	stir_visitor v = { .expr_pre = hoist_enter, .expr_post = hoist_expr,
		.user = &w };
	stir_visit_stmt(&v, (stir_stmt *)s);
	free(inner);
	return mark;
}

/* walk, mark: see cuda_internal.h. */
void gpu_unhoist(gpu_walk *walk, int mark)
{
	walk->n_memo = mark;
}

/* walk, x: see cuda_internal.h. */
bool gpu_is_hoisted(const gpu_walk *walk, const stir_expr *x)
{
	return find_memo(walk, x) >= 0;
}
