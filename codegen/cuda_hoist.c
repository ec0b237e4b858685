/* Warp-buffer reads computed once (docs/cuda.md, "Searches").
 *
 * Searches that a loop does not change are computed before it by the
 * stage III pass hoist_invariants (passes/hoist.c), as "hoisted let"
 * statements the emitter prints as constants stir_sN.  Warp-buffer reads
 * are still moved here, because whether the lanes run a loop together is
 * a fact of the thread mapping the emitter makes: before each loop the
 * emitter declares "const T stir_sN = ...;" for each read of the loop's
 * body that it may compute there, numbered with the hoisted lets, and
 * prints the constant wherever the same read (block variables resolved)
 * appears inside the loop.
 *
 * Reads of warp buffers (docs/cuda.md, "Warp buffers") move the same way,
 * for another reason: each is a shuffle, which the CUDA compiler does not
 * merge either, so a vectorized loop would shuffle once per lane and per
 * use.  A read moves before a loop when its index can always be evaluated
 * (it reads no memory and divides by nothing but non-zero literals),
 * uses nothing defined inside the loop, the loop does not
 * store into the buffer (its fill stays before the read), and the lanes
 * run the loop together (cuda_warp_readable).  A shuffle never faults:
 * where the read would not have run, the value is not used. */
#include <stdlib.h>
#include <string.h>
#include "codegen/cuda_internal.h"
#include "ir/util.h"

/* e, x: whether x can be evaluated anywhere: no loads, no searches, no
 * division or remainder by anything but a non-zero literal (block
 * variables through their bindings). */
static bool safe_value(const emitter *e, const stir_expr *x)
{
	switch (x->kind) {
	case STIR_EXPR_INT:
		return true;
	case STIR_EXPR_VAR:
		if (x->u.var->kind == STIR_VAR_BLOCK && e->binding[x->u.var->slot])
			return safe_value(e, e->binding[x->u.var->slot]);
		return true;
	case STIR_EXPR_UNARY:
		return stir_dtype_is_int(x->dtype) && safe_value(e, x->u.unary.a);
	case STIR_EXPR_CAST:
		return stir_dtype_is_int(x->dtype) &&
			stir_dtype_is_int(x->u.cast.a->dtype) &&
			safe_value(e, x->u.cast.a);
	case STIR_EXPR_BINARY:
		switch (x->u.binary.op) {
		case STIR_DIV:
		case STIR_MOD:
			if (x->u.binary.b->kind != STIR_EXPR_INT ||
			    x->u.binary.b->u.i == 0)
				return false;
			break;
		case STIR_ADD:
		case STIR_SUB:
		case STIR_MUL:
			break;
		default:
			return false;
		}
		return stir_dtype_is_int(x->dtype) &&
			safe_value(e, x->u.binary.a) && safe_value(e, x->u.binary.b);
	default:
		return false;
	}
}

/* e, x: the constant that holds warp-buffer read x, or -1. */
static int find_memo(const emitter *e, const stir_expr *x)
{
	for (int i = e->n_memo - 1; i >= 0; i--)
		if (cuda_expr_equal(e, e->memo[i].x, x))
			return e->memo[i].id;
	return -1;
}

/* The walk of a loop's body. */
typedef struct hoist_walk {
	emitter *e;
	const ectx *ctx;           /* the context at the loop */
	const stir_stmt *loop;     /* the loop */
	const bool *inner;         /* variables defined inside the loop */
} hoist_walk;

/* w, x: whether load x of a warp buffer may be read before the loop. */
static bool warp_movable(const hoist_walk *w, const stir_expr *x)
{
	const stir_expr *idx = x->u.load.idx[0];
	return cuda_warp_readable(w->e, w->ctx) && safe_value(w->e, idx) &&
		!cuda_inner_var(w->e, idx, w->inner) &&
		!stir_stmt_writes(w->loop, x->u.load.buf);
}

/* w, x: declare a constant for every movable search or warp-buffer read
 * in x not held yet. */
static void hoist_expr(hoist_walk *w, const stir_expr *x)
{
	emitter *e = w->e;
	if (!x || e->failed)
		return;
	switch (x->kind) {
	case STIR_EXPR_VAR:
		return;
	case STIR_EXPR_LOAD:
		hoist_expr(w, x->u.load.idx[0]);
		if (x->u.load.buf->scope != STIR_SCOPE_WARP || !warp_movable(w, x))
			return;
		break;
	case STIR_EXPR_UNARY:
		hoist_expr(w, x->u.unary.a);
		return;
	case STIR_EXPR_BINARY:
		hoist_expr(w, x->u.binary.a);
		hoist_expr(w, x->u.binary.b);
		return;
	case STIR_EXPR_SELECT:
		hoist_expr(w, x->u.select.c);
		hoist_expr(w, x->u.select.a);
		hoist_expr(w, x->u.select.b);
		return;
	case STIR_EXPR_CALL:
		for (int i = 0; i < x->u.call.n; i++)
			hoist_expr(w, x->u.call.args[i]);
		return;
	case STIR_EXPR_CAST:
		hoist_expr(w, x->u.cast.a);
		return;
	default:
		/* searches are hoisted by passes/hoist.c, and one that stays
		 * is looked at as a whole, as there */
		return;
	}
	if (find_memo(e, x) >= 0)
		return;
	if (e->n_memo == e->cap_memo) {
		int cap = e->cap_memo ? 2 * e->cap_memo : 8;
		cuda_memo *m = realloc(e->memo, (size_t)cap * sizeof(*m));
		if (!m) {
			cuda_error(e, x->loc, "out of memory");
			return;
		}
		e->memo = m;
		e->cap_memo = cap;
	}
	/* the expression as it would be printed inside, block variables
	 * defined there replaced by their bindings */
	int id = e->n_hoist++;
	const bool *saved = e->resolve;
	e->resolve = w->inner;
	cg_indent(e->out);
	cg_putf(e->out, "const %s stir_s%d = ", cuda_ctype(x->dtype), id);
	cuda_expr(e, w->ctx, x, P_COND);
	cg_put(e->out, ";  // a warp buffer read the loop does not change\n");
	e->resolve = saved;
	e->memo[e->n_memo++] = (cuda_memo){ .x = x, .id = id };
}

static void hoist_list(hoist_walk *w, const stir_ptr_vec *list);

/* w, s: hoist_expr of every expression of s. */
static void hoist_stmt(hoist_walk *w, const stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_STORE:
		for (int i = 0; i < s->u.store.n; i++)
			hoist_expr(w, s->u.store.idx[i]);
		hoist_expr(w, s->u.store.value);
		return;
	case STIR_STMT_LET:
		hoist_expr(w, s->u.let.value);
		return;
	case STIR_STMT_IF:
		hoist_expr(w, s->u.if_.cond);
		hoist_list(w, &s->u.if_.then_body);
		hoist_list(w, &s->u.if_.else_body);
		return;
	case STIR_STMT_FOR:
		hoist_expr(w, s->u.for_.extent);
		hoist_list(w, &s->u.for_.body);
		return;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++)
			hoist_expr(w, s->u.block.bindings[i]);
		hoist_list(w, &s->u.block.body);
		return;
	default:
		return;
	}
}

/* w, list: hoist_stmt of each statement. */
static void hoist_list(hoist_walk *w, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		hoist_stmt(w, stir_stmt_at(list, i));
}

/* e, s, ctx: see cuda_internal.h. */
int cuda_hoist(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	int mark = e->n_memo;
	bool *inner = calloc((size_t)e->k->n_vars + 1, sizeof(bool));
	if (!inner) {
		cuda_error(e, s->loc, "out of memory");
		return mark;
	}
	cuda_mark_defined(s, inner);
	hoist_walk w = { e, ctx, s, inner };
	hoist_stmt(&w, s);
	free(inner);
	return mark;
}

/* e, mark: see cuda_internal.h. */
void cuda_unhoist(emitter *e, int mark)
{
	e->n_memo = mark;
}

/* e, x: see cuda_internal.h. */
bool cuda_is_hoisted(const emitter *e, const stir_expr *x)
{
	return find_memo(e, x) >= 0;
}

/* e, x: see cuda_internal.h. */
bool cuda_hoisted(emitter *e, const stir_expr *x)
{
	int id = find_memo(e, x);
	if (id < 0)
		return false;
	if (e->buf_used)
		e->buf_used[x->u.load.buf->index] = true;
	cg_putf(e->out, "stir_s%d", id);
	return true;
}
