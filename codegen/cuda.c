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
 * Barriers: every load and store is recorded with the thread context it
 * runs in (for each index: the loop bound to it, thread 0 only, or every
 * thread), and codegen/barriers.c decides where threads must synchronize
 * (stir_kernel_insert_barriers puts "barrier;" statements there).  The
 * emitter prints a barrier statement as __syncthreads() and refuses a
 * place that needs one and has none.  Two accesses in the same thread
 * context to the same index expression are made by the same thread and
 * need nothing; the schedule's legality checks are what make the accesses
 * of different threads to different index expressions disjoint where they
 * are not ordered here.
 *
 * What needs no thread context is checked first by codegen/verify_gpu.c
 * (cuda_verify_structure), which this walk assumes. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codegen/cuda_internal.h"
#include "ir/layout.h"

const char cuda_ctx_single[] = "single";
const char cuda_ctx_all[] = "all";

/* The names of the thread indices, by stir_thread. */
const char *const cuda_dim_names[N_DIMS] = {
	"blockIdx.x", "blockIdx.y", "blockIdx.z",
	"threadIdx.x", "threadIdx.y", "threadIdx.z",
};

/* e, loc, fmt: see cuda_internal.h. */
void cuda_error(emitter *e, stir_loc loc, const char *fmt, ...)
{
	/* what a schedule made has no place in the source: the launch it is
	 * in has (or the kernel) */
	if (loc.line <= 0 && e->launch)
		loc = stir_stmt_first_loc(e->launch->stmt);
	if (loc.line <= 0)
		loc = e->k->loc;
	va_list ap;
	va_start(ap, fmt);
	stir_ctx_vreport(e->ctx, STIR_ERROR, loc, fmt, ap);
	va_end(ap);
	e->failed = true;
}

/* e: report that memory ran out. */
static void oom(emitter *e)
{
	if (!e->failed)
		stir_error_oom(e->ctx);
	e->failed = true;
}

/* e, ctx: the indices used by the launch that nothing binds or guards
 * here: code runs along them redundantly. */
static unsigned unbound(const emitter *e, const ectx *ctx)
{
	unsigned b = 0;
	for (int d = 0; d < N_DIMS; d++)
		if (ctx->bound[d])
			b |= DIM_BIT(d);
	return e->launch->used & ~b & ~ctx->single;
}

/* loc, buf, size: see cuda_internal.h. */
const char *cuda_loc_str(stir_loc loc, char *buf, size_t size)
{
	const char *f = loc.file ? strrchr(loc.file, '/') : NULL;
	f = f ? f + 1 : loc.file ? loc.file : "?";
	snprintf(buf, size, "%s:%d", f, loc.line);
	return buf;
}

/* s: the location of s, or of the first statement inside it that has one
 * (loops a schedule made have none); line 0 when none has. */
static stir_loc first_loc(const stir_stmt *s)
{
	return stir_stmt_first_loc(s);
}

/* s: see cuda_internal.h. */
const char *cuda_scope_word(stir_scope s)
{
	return s == STIR_SCOPE_SHARED ? "shared" : s == STIR_SCOPE_LOCAL ?
		"local" : s == STIR_SCOPE_WARP ? "warp" : "global";
}

/* e, s, ctx: a barrier statement: every thread of the block must reach
 * it. */
static void emit_barrier(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	if (!block_uniform(e, ctx)) {
		cuda_error(e, s->loc, "barrier: not every thread of the block "
			"reaches it");
		return;
	}
	cg_line(e->out, "__syncthreads();");
	if (e->sum)
		summary_barrier(e->sum);
}

/* ---- static facts about statements ------------------------------------ */

/* s: the indices bound by loops in s (s included). */
static unsigned bound_inside(const stir_stmt *s);

/* list: bound_inside of every statement. */
static unsigned bound_inside_list(const stir_ptr_vec *list)
{
	unsigned b = 0;
	for (int i = 0; i < list->n; i++)
		b |= bound_inside(stir_stmt_at(list, i));
	return b;
}

/* s: see the declaration above. */
static unsigned bound_inside(const stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_FOR:
		return (s->u.for_.kind == STIR_LOOP_BIND ?
			DIM_BIT(s->u.for_.thread) : 0) |
			bound_inside_list(&s->u.for_.body);
	case STIR_STMT_BLOCK:
		return bound_inside_list(&s->u.block.body);
	case STIR_STMT_IF:
		return bound_inside_list(&s->u.if_.then_body) |
			bound_inside_list(&s->u.if_.else_body);
	default:
		return 0;
	}
}

/* s: does s store into a global or shared buffer? */
static bool stores_shared_data(const stir_stmt *s);

/* list: stores_shared_data of any statement. */
static bool list_stores_shared_data(const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		if (stores_shared_data(stir_stmt_at(list, i)))
			return true;
	return false;
}

/* s: see the declaration above. */
static bool stores_shared_data(const stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_STORE:
		return s->u.store.buf->scope != STIR_SCOPE_LOCAL &&
			s->u.store.buf->scope != STIR_SCOPE_WARP;
	case STIR_STMT_FOR:
		return list_stores_shared_data(&s->u.for_.body);
	case STIR_STMT_BLOCK:
		return list_stores_shared_data(&s->u.block.body);
	case STIR_STMT_IF:
		return list_stores_shared_data(&s->u.if_.then_body) ||
			list_stores_shared_data(&s->u.if_.else_body);
	default:
		return false;
	}
}

/* x, buf: does expression x read buf? */
static bool expr_reads(const stir_expr *x, const stir_buffer *buf)
{
	switch (x->kind) {
	case STIR_EXPR_LOAD:
		return x->u.load.buf == buf || expr_reads(x->u.load.idx[0], buf);
	case STIR_EXPR_UNARY:
		return expr_reads(x->u.unary.a, buf);
	case STIR_EXPR_BINARY:
		return expr_reads(x->u.binary.a, buf) ||
			expr_reads(x->u.binary.b, buf);
	case STIR_EXPR_SELECT:
		return expr_reads(x->u.select.c, buf) ||
			expr_reads(x->u.select.a, buf) ||
			expr_reads(x->u.select.b, buf);
	case STIR_EXPR_CALL:
		for (int i = 0; i < x->u.call.n; i++)
			if (expr_reads(x->u.call.args[i], buf))
				return true;
		return false;
	case STIR_EXPR_CAST:
		return expr_reads(x->u.cast.a, buf);
	case STIR_EXPR_SEARCH:
		return x->u.search.buf == buf || expr_reads(x->u.search.lo, buf) ||
			expr_reads(x->u.search.hi, buf) ||
			expr_reads(x->u.search.x, buf);
	default:
		return false;
	}
}

/* list, buf, except: does a statement of list (store "except" aside, but
 * not its value and index) access buf?  *where receives its location. */
static bool list_uses(const stir_ptr_vec *list, const stir_buffer *buf,
	const stir_stmt *except, stir_loc *where);

/* s, buf, except, where: list_uses for one statement. */
static bool stmt_uses(const stir_stmt *s, const stir_buffer *buf,
	const stir_stmt *except, stir_loc *where)
{
	bool r = false;
	switch (s->kind) {
	case STIR_STMT_STORE:
		r = (s != except && s->u.store.buf == buf) ||
			expr_reads(s->u.store.idx[0], buf) ||
			expr_reads(s->u.store.value, buf);
		break;
	case STIR_STMT_LET:
		r = expr_reads(s->u.let.value, buf);
		break;
	case STIR_STMT_IF:
		if (expr_reads(s->u.if_.cond, buf))
			r = true;
		else
			return list_uses(&s->u.if_.then_body, buf, except, where) ||
				list_uses(&s->u.if_.else_body, buf, except, where);
		break;
	case STIR_STMT_FOR:
		if (expr_reads(s->u.for_.extent, buf))
			r = true;
		else
			return list_uses(&s->u.for_.body, buf, except, where);
		break;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++)
			if (expr_reads(s->u.block.bindings[i], buf))
				r = true;
		if (!r)
			return list_uses(&s->u.block.body, buf, except, where);
		break;
	default:
		break;
	}
	if (r)
		*where = s->loc;
	return r;
}

/* list, buf, except, where: see the declaration above. */
static bool list_uses(const stir_ptr_vec *list, const stir_buffer *buf,
	const stir_stmt *except, stir_loc *where)
{
	for (int i = 0; i < list->n; i++)
		if (stmt_uses(stir_stmt_at(list, i), buf, except, where))
			return true;
	return false;
}


/* list, inner: mark_defined of every statement. */
static void mark_defined_list(const stir_ptr_vec *list, bool *inner)
{
	for (int i = 0; i < list->n; i++)
		cuda_mark_defined(stir_stmt_at(list, i), inner);
}

/* s, inner: see cuda_internal.h. */
void cuda_mark_defined(const stir_stmt *s, bool *inner)
{
	switch (s->kind) {
	case STIR_STMT_LET:
		inner[s->u.let.var->slot] = true;
		break;
	case STIR_STMT_FOR:
		inner[s->u.for_.var->slot] = true;
		mark_defined_list(&s->u.for_.body, inner);
		break;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++)
			inner[s->u.block.vars[i]->slot] = true;
		mark_defined_list(&s->u.block.body, inner);
		break;
	case STIR_STMT_IF:
		mark_defined_list(&s->u.if_.then_body, inner);
		mark_defined_list(&s->u.if_.else_body, inner);
		break;
	default:
		break;
	}
}

/* e, x, inner: see cuda_internal.h. */
const stir_var *cuda_inner_var(const emitter *e, const stir_expr *x,
	const bool *inner)
{
	const stir_var *v = NULL;
	switch (x->kind) {
	case STIR_EXPR_VAR:
		if (!inner[x->u.var->slot])
			return NULL;
		if (x->u.var->kind == STIR_VAR_BLOCK && e->binding[x->u.var->slot])
			return cuda_inner_var(e, e->binding[x->u.var->slot], inner);
		return x->u.var;
	case STIR_EXPR_LOAD:
		return cuda_inner_var(e, x->u.load.idx[0], inner);
	case STIR_EXPR_UNARY:
		return cuda_inner_var(e, x->u.unary.a, inner);
	case STIR_EXPR_BINARY:
		v = cuda_inner_var(e, x->u.binary.a, inner);
		return v ? v : cuda_inner_var(e, x->u.binary.b, inner);
	case STIR_EXPR_SELECT:
		v = cuda_inner_var(e, x->u.select.c, inner);
		v = v ? v : cuda_inner_var(e, x->u.select.a, inner);
		return v ? v : cuda_inner_var(e, x->u.select.b, inner);
	case STIR_EXPR_CALL:
		for (int i = 0; i < x->u.call.n && !v; i++)
			v = cuda_inner_var(e, x->u.call.args[i], inner);
		return v;
	case STIR_EXPR_CAST:
		return cuda_inner_var(e, x->u.cast.a, inner);
	case STIR_EXPR_SEARCH:
		v = cuda_inner_var(e, x->u.search.lo, inner);
		v = v ? v : cuda_inner_var(e, x->u.search.hi, inner);
		return v ? v : cuda_inner_var(e, x->u.search.x, inner);
	default:
		return NULL;
	}
}

/* e, x, v: does x, as printed, name v (block variables not resolved; a
 * search or warp-buffer read held in a constant names nothing)? */
static bool names_var(const emitter *e, const stir_expr *x,
	const stir_var *v)
{
	if (x->kind == STIR_EXPR_LOAD && cuda_is_hoisted(e, x))
		return false;
	switch (x->kind) {
	case STIR_EXPR_VAR:
		return x->u.var == v;
	case STIR_EXPR_LOAD:
		return names_var(e, x->u.load.idx[0], v);
	case STIR_EXPR_UNARY:
		return names_var(e, x->u.unary.a, v);
	case STIR_EXPR_BINARY:
		return names_var(e, x->u.binary.a, v) ||
			names_var(e, x->u.binary.b, v);
	case STIR_EXPR_SELECT:
		return names_var(e, x->u.select.c, v) ||
			names_var(e, x->u.select.a, v) ||
			names_var(e, x->u.select.b, v);
	case STIR_EXPR_CALL:
		for (int i = 0; i < x->u.call.n; i++)
			if (names_var(e, x->u.call.args[i], v))
				return true;
		return false;
	case STIR_EXPR_CAST:
		return names_var(e, x->u.cast.a, v);
	case STIR_EXPR_SEARCH:
		return names_var(e, x->u.search.lo, v) ||
			names_var(e, x->u.search.hi, v) ||
			names_var(e, x->u.search.x, v);
	default:
		return false;
	}
}

/* list, v: does a statement of list name variable v? */
static bool list_names_var(const emitter *e, const stir_ptr_vec *list,
	const stir_var *v)
{
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *s = stir_stmt_at(list, i);
		switch (s->kind) {
		case STIR_STMT_STORE:
			if (names_var(e, s->u.store.idx[0], v) ||
			    names_var(e, s->u.store.value, v))
				return true;
			break;
		case STIR_STMT_LET:
			if (names_var(e, s->u.let.value, v))
				return true;
			break;
		case STIR_STMT_IF:
			if (names_var(e, s->u.if_.cond, v) ||
			    list_names_var(e, &s->u.if_.then_body, v) ||
			    list_names_var(e, &s->u.if_.else_body, v))
				return true;
			break;
		case STIR_STMT_FOR:
			if (names_var(e, s->u.for_.extent, v) ||
			    list_names_var(e, &s->u.for_.body, v))
				return true;
			break;
		case STIR_STMT_BLOCK:
			for (int j = 0; j < s->u.block.n_vars; j++)
				if (names_var(e, s->u.block.bindings[j], v))
					return true;
			if (list_names_var(e, &s->u.block.body, v))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

/* ---- stores ------------------------------------------------------------- */

/* A cross-thread reduction: a cross_thread block whose store becomes
 * "acc += value" in every thread of its threadIdx.x loop.  A reduction
 * into a register array (a local buffer of at most 32 elements) whose
 * element moves with loops inside the threadIdx.x loop (the lanes of a
 * register cache) keeps one accumulator per element of the array
 * ("acc[IDX] += value"), and a bit per element that says whether the
 * thread added to it. */
typedef struct red {
	const stir_stmt *block;    /* the cross_thread block */
	const stir_stmt *store;    /* its one store */
	int id;                    /* stir_redID */
	stir_dtype acc;            /* the accumulator's type */
	int64_t elems;             /* > 0: one accumulator per element of the
	                              local array of that many elements */
	struct red *next;
} red;

/* A value to store: an expression, or a generated variable. */
typedef struct sval {
	const stir_expr *x;        /* the expression, or NULL */
	const char *name;          /* else the variable */
	stir_dtype t;              /* its type */
} sval;

/* e, ctx, v, to, prec: v converted to type "to" (v's type is "to", a
 * narrower integer, or for a variable the compute type of "to"). */
static void put_val(emitter *e, const ectx *ctx, const sval *v,
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
		put_val(e, ctx, v, cuda_compute_type(t), prec);
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

static void put_warp_store(emitter *e, const ectx *ctx,
	const stir_buffer *buf, const stir_expr *idx, stir_store_op op,
	const sval *v, const stir_stmt *s);

/* e, ctx, buf, idx, op, v, s: one store statement (a line). */
static void put_store(emitter *e, const ectx *ctx, const stir_buffer *buf,
	const stir_expr *idx, stir_store_op op, const sval *v,
	const stir_stmt *s)
{
	if (buf->scope == STIR_SCOPE_WARP) {
		put_warp_store(e, ctx, buf, idx, op, v, s);
		return;
	}
	static const char *const ops[] = {
		[STIR_STORE_ASSIGN] = "=", [STIR_STORE_ADD] = "+",
		[STIR_STORE_SUB] = "-", [STIR_STORE_MUL] = "*",
	};
	cg_printer *p = e->out;
	stir_dtype t = buf->dtype;
	bool atomic = ctx->atomic && op != STIR_STORE_ASSIGN &&
		buf->scope != STIR_SCOPE_LOCAL;
	if (e->buf_used) {
		e->buf_used[buf->index] = true;
		e->buf_written[buf->index] = true;
	}
	cuda_record(e, ctx, buf, idx, true, atomic, s->loc);
	cg_indent(p);
	/* no atomic add of type i8 (cuda_verify_structure) */
	if (atomic && t == STIR_I64) {
		cg_put(p, "atomicAdd((unsigned long long *)&");
		put_elem(e, ctx, buf, idx);
		cg_put(p, op == STIR_STORE_SUB ? ", 0ULL - (unsigned long long)" :
			", (unsigned long long)");
		put_val(e, ctx, v, t, P_UNARY);
		cg_put(p, ");");
	} else if (atomic && t == STIR_I32 && op == STIR_STORE_SUB) {
		cg_put(p, "atomicSub(&");
		put_elem(e, ctx, buf, idx);
		cg_put(p, ", ");
		put_val(e, ctx, v, t, P_COND);
		cg_put(p, ");");
	} else if (atomic) {
		bool half = t == STIR_F16 || t == STIR_BF16;
		cg_put(p, "atomicAdd(&");
		put_elem(e, ctx, buf, idx);
		cg_put(p, ", ");
		if (op == STIR_STORE_SUB && half) {
			cg_put(p, "__hneg(");
			put_val(e, ctx, v, t, P_TOP);
			cg_put(p, ")");
		} else if (op == STIR_STORE_SUB) {
			cg_put(p, "-");
			put_val(e, ctx, v, t, P_UNARY);
		} else {
			put_val(e, ctx, v, t, P_COND);
		}
		cg_put(p, ");");
	} else if (op != STIR_STORE_ASSIGN && (t == STIR_F16 || t == STIR_BF16)) {
		/* X = round(float(X) op float(v)) */
		put_elem(e, ctx, buf, idx);
		cg_put(p, " = ");
		cuda_round_open(e, t);
		cg_put(p, t == STIR_F16 ? "__half2float(" : "__bfloat162float(");
		put_elem(e, ctx, buf, idx);
		cg_putf(p, ") %s ", ops[op]);
		put_val_compute(e, ctx, v, t, op == STIR_STORE_MUL ? P_MUL + 1 :
			P_ADD + 1);
		cg_put(p, ");");
	} else {
		put_elem(e, ctx, buf, idx);
		cg_putf(p, " %s%s ", op == STIR_STORE_ASSIGN ? "" : ops[op],
			"=");
		put_val(e, ctx, v, t, P_COND);
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

/* ctx, s: the red of store s in ctx's reductions, or NULL. */
static red *red_of(const ectx *ctx, const stir_stmt *s)
{
	for (red *r = ctx->red; r; r = r->next)
		if (r->store == s)
			return r;
	return NULL;
}

/* e, s, ctx: a store, or one thread's part of a cross-thread reduction
 * (and the note that the thread took part). */
void cuda_emit_store(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	red *r = red_of(ctx, s);
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

/* ---- statements --------------------------------------------------------- */

/* e, dims: print "threadIdx.x == 0 && ..." for the indices dims. */
static void put_index_zero(emitter *e, unsigned dims)
{
	bool first = true;
	static const int order[N_DIMS] = {
		STIR_THREAD_X, STIR_THREAD_Y, STIR_THREAD_Z,
		STIR_BLOCK_X, STIR_BLOCK_Y, STIR_BLOCK_Z,
	};
	for (int i = 0; i < N_DIMS; i++) {
		if (!(dims & DIM_BIT(order[i])))
			continue;
		cg_putf(e->out, "%s%s == 0", first ? "" : " && ",
			cuda_dim_names[order[i]]);
		first = false;
	}
}

/* e, list, from, to, ctx: statement list[to] of a list, with the hoisted
 * lets list[from .. to - 1] that stand before it (passes/hoist.c), guarded
 * to index 0 along the indices it would otherwise run redundantly on when
 * it stores to memory other threads see (the lets inside the guard). */
static void emit_guarded(emitter *e, const stir_ptr_vec *list, int from,
	int to, const ectx *ctx)
{
	const stir_stmt *s = stir_stmt_at(list, to);
	unsigned u = unbound(e, ctx);
	ectx c = *ctx;
	bool guard = u && stores_shared_data(s) && !(bound_inside(s) & u);
	if (guard) {
		/* (else nothing to guard, or the guard goes further in) */
		c.single |= u;
		c.divergent |= u & THREAD_DIMS;
		cg_indent(e->out);
		cg_put(e->out, "if (");
		put_index_zero(e, u);
		cg_put(e->out, ") {\n");
		e->out->indent++;
	}
	for (int i = from; i <= to; i++)
		cuda_emit_stmt(e, stir_stmt_at(list, i), &c);
	if (guard) {
		e->out->indent--;
		cg_line(e->out, "}");
	}
}

/* s: whether s is a hoisted let (passes/hoist.c). */
static bool is_hoisted_let(const stir_stmt *s)
{
	return s->kind == STIR_STMT_LET && s->u.let.hoisted;
}

/* e, list, ctx, sum: each statement into its own text first, so that
 * what it accesses decides whether a barrier goes before it. */
void cuda_emit_list(emitter *e, const stir_ptr_vec *list, const ectx *ctx,
	summary *sum)
{
	for (int i = 0; i < list->n && !e->failed; i++) {
		/* hoisted lets go with the statement after them */
		int from = i;
		while (i + 1 < list->n && is_hoisted_let(stir_stmt_at(list, i)))
			i++;
		const stir_stmt *s = stir_stmt_at(list, i);
		summary c = { 0 };
		cg_printer sub;
		cg_printer_init(&sub, e->out->indent);
		cg_printer *out = e->out;
		summary *saved = e->sum;
		e->out = &sub;
		e->sum = &c;
		emit_guarded(e, list, from, i, ctx);
		e->out = out;
		e->sum = saved;
		const cg_access *a, *b;
		if (needs_barrier(e, summary_pending(sum), &c.first, s->loc, &a, &b))
			need_barrier(e, ctx, s->loc, a, b, sum, list, s);
		cg_append(e->out, &sub);
		cg_printer_release(&sub);
		summary_append(e, sum, &c);
		summary_release(&c);
	}
}

/* e, x: print an expression of a loop extent or condition. */
static void put_expr(emitter *e, const ectx *ctx, const stir_expr *x,
	int prec)
{
	cuda_expr(e, ctx, x, prec);
}

/* e, s, ctx: if/else. */
static void emit_if(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	ectx c = *ctx;
	c.divergent |= cuda_expr_deps(e, s->u.if_.cond) & THREAD_DIMS;
	cg_indent(e->out);
	cg_put(e->out, "if (");
	put_expr(e, ctx, s->u.if_.cond, P_TOP);
	cg_put(e->out, ") {\n");
	summary body = { 0 };
	e->out->indent++;
	cuda_emit_list(e, &s->u.if_.then_body, &c, &body);
	e->out->indent--;
	summary_append_maybe(e, e->sum, &body);
	summary_release(&body);
	if (s->u.if_.else_body.n) {
		cg_line(e->out, "} else {");
		e->out->indent++;
		cuda_emit_list(e, &s->u.if_.else_body, &c, &body);
		e->out->indent--;
		summary_append_maybe(e, e->sum, &body);
		summary_release(&body);
	}
	cg_line(e->out, "}");
}

/* x: see cuda_internal.h (a loop extent that does is evaluated once). */
bool cuda_expr_has_load(const stir_expr *x)
{
	switch (x->kind) {
	case STIR_EXPR_LOAD:
	case STIR_EXPR_SEARCH:
		return true;
	case STIR_EXPR_UNARY:
		return cuda_expr_has_load(x->u.unary.a);
	case STIR_EXPR_BINARY:
		return cuda_expr_has_load(x->u.binary.a) || cuda_expr_has_load(x->u.binary.b);
	case STIR_EXPR_SELECT:
		return cuda_expr_has_load(x->u.select.c) ||
			cuda_expr_has_load(x->u.select.a) || cuda_expr_has_load(x->u.select.b);
	case STIR_EXPR_CALL:
		for (int i = 0; i < x->u.call.n; i++)
			if (cuda_expr_has_load(x->u.call.args[i]))
				return true;
		return false;
	case STIR_EXPR_CAST:
		return cuda_expr_has_load(x->u.cast.a);
	default:
		return false;
	}
}

static const stir_buffer *warp_fill_of(const stir_ptr_vec *list);
static void emit_warp_fill(emitter *e, const stir_stmt *s, const ectx *ctx,
	const stir_buffer *buf);

/* e, s, ctx: a serial or unrolled loop.  The extent is evaluated once, as
 * the interpreter does, when it reads memory (the body might change it).
 * The fill loop of a warp buffer is emitted by emit_warp_fill. */
static void emit_serial_loop(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	const stir_expr *ext = s->u.for_.extent;
	const stir_var *v = s->u.for_.var;
	const stir_buffer *fill = warp_fill_of(&s->u.for_.body);
	if (fill) {
		emit_warp_fill(e, s, ctx, fill);
		return;
	}
	ectx c = *ctx;
	c.divergent |= cuda_expr_deps(e, ext) & THREAD_DIMS;
	if (s->u.for_.kind == STIR_LOOP_UNROLL)
		cg_line(e->out, "#pragma unroll");
	cg_indent(e->out);
	cg_putf(e->out, "for (%s ", cuda_ctype(v->dtype));
	cuda_put_name(e, v->name);
	if (cuda_expr_has_load(ext)) {
		int id = e->n_tmp++;
		cg_putf(e->out, " = 0, stir_n%d = ", id);
		put_expr(e, ctx, ext, P_COND);
		cg_put(e->out, "; ");
		cuda_put_name(e, v->name);
		cg_putf(e->out, " < stir_n%d; ++", id);
	} else {
		cg_put(e->out, " = 0; ");
		cuda_put_name(e, v->name);
		cg_put(e->out, " < ");
		put_expr(e, ctx, ext, P_REL + 1);
		cg_put(e->out, "; ++");
	}
	cuda_put_name(e, v->name);
	cg_put(e->out, ") {\n");
	summary body = { 0 };
	e->out->indent++;
	cuda_emit_list(e, &s->u.for_.body, &c, &body);
	if (!e->failed)
		loop_carried_barrier(e, s, &c, &body);
	e->out->indent--;
	cg_line(e->out, "}");
	summary_append_maybe(e, e->sum, &body);
	summary_release(&body);
}

/* Cross-thread reductions ------------------------------------------------ */

/* e, list, r: append to *r the cross_thread blocks of list (not looking
 * into loops bound to threadIdx.x, which report themselves). */
static void find_reds(emitter *e, const stir_ptr_vec *list, red **r);

/* e, s, r: find_reds for one statement. */
static void find_reds_stmt(emitter *e, const stir_stmt *s, red **r)
{
	switch (s->kind) {
	case STIR_STMT_FOR:
		if (s->u.for_.kind == STIR_LOOP_BIND &&
		    s->u.for_.thread == STIR_THREAD_X)
			return;
		find_reds(e, &s->u.for_.body, r);
		return;
	case STIR_STMT_IF:
		find_reds(e, &s->u.if_.then_body, r);
		find_reds(e, &s->u.if_.else_body, r);
		return;
	case STIR_STMT_BLOCK:
		if (s->u.block.flags & STIR_BLOCK_CROSS_THREAD) {
			red *n = calloc(1, sizeof(*n));
			if (!n) {
				oom(e);
				return;
			}
			n->block = s;
			n->store = stir_stmt_at(&s->u.block.body, 0);
			n->id = e->n_red++;
			n->next = *r;
			*r = n;
		}
		find_reds(e, &s->u.block.body, r);
		return;
	default:
		return;
	}
}

/* e, list, r: see the declaration above. */
static void find_reds(emitter *e, const stir_ptr_vec *list, red **r)
{
	for (int i = 0; i < list->n; i++)
		find_reds_stmt(e, stir_stmt_at(list, i), r);
}

/* r: free a list of reductions. */
static void free_reds(red *r)
{
	while (r) {
		red *n = r->next;
		free(r);
		r = n;
	}
}

/* t: the accumulator type of a reduction into type t. */
static stir_dtype acc_type(stir_dtype t)
{
	switch (t) {
	case STIR_I8: return STIR_I32;
	case STIR_F16:
	case STIR_BF16: return STIR_F32;
	default: return t;
	}
}

/* x: is x a power of two? */
static bool is_pow2(int64_t x)
{
	return x > 0 && (x & (x - 1)) == 0;
}

/* e, L, r, inner, ctx: check that reduction r can be computed across the
 * threads of loop L (bound to threadIdx.x) here. */
static void check_red(emitter *e, const stir_stmt *L, red *r,
	const bool *inner, const ectx *ctx)
{
	const stir_stmt *b = r->block, *st = r->store;
	const char *name = b->u.block.name;
	const stir_var *lv = L->u.for_.var;
	bool reduces = false;
	for (int i = 0; i < b->u.block.n_vars; i++) {
		bool uses = cuda_expr_uses(e, b->u.block.bindings[i], lv);
		if (uses && b->u.block.kinds[i] == 'S') {
			cuda_error(e, b->loc, "cross-thread block '%s': its spatial "
				"variable '%s' depends on loop '%s', the threadIdx.x "
				"loop it reduces over", name, b->u.block.vars[i]->name,
				lv->name);
			return;
		}
		reduces |= uses;
	}
	if (!reduces) {
		cuda_error(e, b->loc, "cross-thread block '%s' does not reduce "
			"over loop '%s', the loop bound to threadIdx.x around it",
			name, lv->name);
		return;
	}
	const stir_var *v = cuda_inner_var(e, st->u.store.idx[0], inner);
	const stir_buffer *buf = st->u.store.buf;
	const stir_expr *n = buf->extent;
	if (v && buf->scope == STIR_SCOPE_LOCAL && n &&
	    n->kind == STIR_EXPR_INT && n->u.i >= 1 && n->u.i <= 32 &&
	    !cuda_expr_uses(e, st->u.store.idx[0], lv)) {
		/* the lanes of a register array: an accumulator each */
		r->elems = n->u.i;
	} else if (v) {
		cuda_error(e, st->loc, "cross-thread block '%s': the element it "
			"stores to depends on '%s', defined inside the threadIdx.x "
			"loop '%s'%s", name, v->name, lv->name,
			buf->scope == STIR_SCOPE_LOCAL ? " (allowed only into a "
			"local array of at most 32 elements)" : "");
		return;
	}
	stir_loc where;
	if (list_uses(&L->u.for_.body, st->u.store.buf, st, &where)) {
		cuda_error(e, where, "'%s' is accessed inside loop '%s' while "
			"cross-thread block '%s' reduces into it", st->u.store.buf->name,
			lv->name, name);
		return;
	}
	const cuda_launch *la = e->launch;
	int64_t bx = la->lit_block[0];
	if (bx < 0 || la->lit_block[1] < 0 || la->lit_block[2] < 0) {
		cuda_error(e, b->loc, "cross-thread block '%s' needs literal "
			"extents for the loops bound to threadIdx in its launch", name);
		return;
	}
	if (!(bx % 32 == 0 || is_pow2(bx))) {
		cuda_error(e, b->loc, "cross-thread block '%s': the launch has "
			"%" PRId64 " threads in x, neither a power of two below 32 nor "
			"a multiple of 32", name, bx);
		return;
	}
	if (r->elems && bx > 32) {
		cuda_error(e, b->loc, "cross-thread block '%s' reduces into the "
			"register array '%s' over %" PRId64 " threads in x: at most 32 "
			"(one warp)", name, buf->name, bx);
		return;
	}
	unsigned div = ctx->divergent & THREAD_DIMS;
	bool warp_ok = !(div & DIM_BIT(STIR_THREAD_X)) &&
		(bx % 32 == 0 || !div);
	if (!warp_ok || (bx > 32 && div)) {
		cuda_error(e, L->loc, "cross-thread block '%s': not every thread "
			"of the %s reaches loop '%s'", name, bx > 32 ? "block" : "warp",
			lv->name);
		return;
	}
}

/* e: the mask of the warp's threads for __shfl_*_sync, as C. */
static void put_mask(emitter *e)
{
	const int64_t *b = e->launch->lit_block;
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
	const int64_t *lb = e->launch->lit_block;
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
		summary_barrier(e->sum);
		cg_line(p, "%s = 0;", acc);
		cg_line(p, "for (int stir_w = 0; stir_w < %" PRId64 "; ++stir_w) {",
			nw);
		cg_line(p, "  %s += stir_part%d[%sstir_w];", acc, r->id, row);
		cg_line(p, "  stir_hit%d |= stir_hitp%d[%sstir_w];", r->id, r->id,
			row);
		cg_line(p, "}");
		cg_line(p, "__syncthreads();");
		summary_barrier(e->sum);
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
		g = DIM_BIT(STIR_THREAD_X) | unbound(e, ctx);
	c.single |= g;
	cg_indent(p);
	cg_put(p, "if (");
	put_index_zero(e, g);
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

/* L, d, x: does launch L bind index d to one extent only, and is it x? */
static bool only_extent(const cuda_launch *L, int d, const stir_expr *x,
	const emitter *e)
{
	return L->n_ext[d] == 1 && !(L->horizontal && d == STIR_BLOCK_X) &&
		cuda_expr_equal(e, L->ext[d][0], x);
}

/* e, s, ctx: a loop bound to a thread index: the index is the loop
 * variable; threads past the extent skip the body. */
static void emit_bound_loop(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	cg_printer *p = e->out;
	int d = s->u.for_.thread;
	const stir_var *v = s->u.for_.var;
	const stir_expr *ext = s->u.for_.extent;
	if (ctx->bound[d]) {
		/* reported by scan_launch */
		e->failed = true;
		return;
	}
	bool uniform = only_extent(e->launch, d, ext, e);
	/* a literal extent that is the launch size needs no guard */
	bool guard = !(uniform && ext->kind == STIR_EXPR_INT && ext->u.i >= 1);
	red *reds = NULL;
	bool *inner = NULL;
	if (d == STIR_THREAD_X) {
		find_reds(e, &s->u.for_.body, &reds);
		if (reds) {
			inner = calloc((size_t)e->k->n_vars + 1, sizeof(bool));
			if (!inner) {
				oom(e);
				free_reds(reds);
				return;
			}
			cuda_mark_defined(s, inner);
			for (red *r = reds; r && !e->failed; r = r->next) {
				r->acc = acc_type(r->store->u.store.buf->dtype);
				check_red(e, s, r, inner, ctx);
			}
		}
	}
	cg_line(p, "{");
	p->indent++;
	cg_indent(p);
	cg_putf(p, "const %s ", cuda_ctype(v->dtype));
	cuda_put_name(e, v->name);
	cg_putf(p, " = %s;\n", cuda_dim_names[d]);
	const int64_t *lb = e->launch->lit_block;
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
	ectx c = *ctx;
	c.bound[d] = s;
	if (reds)
		c.red = reds;
	if (guard && !uniform && (DIM_BIT(d) & THREAD_DIMS))
		c.divergent |= DIM_BIT(d);
	if (guard) {
		cg_indent(p);
		cg_put(p, "if (");
		cuda_put_name(e, v->name);
		cg_put(p, " < ");
		put_expr(e, ctx, ext, P_REL + 1);
		cg_put(p, ") {\n");
		p->indent++;
	}
	summary body = { 0 };
	cuda_emit_list(e, &s->u.for_.body, &c, &body);
	if (guard) {
		p->indent--;
		cg_line(p, "}");
		summary_append_maybe(e, e->sum, &body);
	} else {
		summary_append(e, e->sum, &body);
	}
	summary_release(&body);
	for (red *r = reds; r && !e->failed; r = r->next)
		emit_red_combine(e, s, ctx, r, inner);
	p->indent--;
	cg_line(p, "}");
	free(inner);
	free_reds(reds);
}

/* e, s, ctx: a block: a scope holding its variables as constants. */
static void emit_block(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	cg_printer *p = e->out;
	/* a horizontal block is a launch, a cross-thread block is inside a
	 * loop bound to threadIdx.x (cuda_verify_structure) */
	cg_line(p, "{  // block %s", s->u.block.name);
	p->indent++;
	/* a cross-thread block's one store becomes an addition to the
	 * thread's part: only its value is emitted here, its target after
	 * the combining tree */
	const stir_stmt *red_store = (s->u.block.flags &
		STIR_BLOCK_CROSS_THREAD) ? stir_stmt_at(&s->u.block.body, 0) : NULL;
	for (int i = 0; i < s->u.block.n_vars; i++) {
		const stir_var *v = s->u.block.vars[i];
		if (red_store ? !names_var(e, red_store->u.store.value, v) :
		    !list_names_var(e, &s->u.block.body, v))
			continue; /* unused: no declaration to warn about */
		cg_indent(p);
		cg_putf(p, "const %s ", cuda_ctype(v->dtype));
		cuda_put_name(e, v->name);
		cg_put(p, " = ");
		put_expr(e, ctx, s->u.block.bindings[i], P_COND);
		cg_put(p, ";\n");
	}
	ectx c = *ctx;
	if (s->u.block.flags & STIR_BLOCK_ATOMIC)
		c.atomic = true;
	cuda_emit_list(e, &s->u.block.body, &c, e->sum);
	p->indent--;
	cg_line(p, "}");
}

/* e, s, ctx: let v = value as a constant. */
static void emit_let(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	const stir_var *v = s->u.let.var;
	const stir_expr *x = s->u.let.value;
	cg_indent(e->out);
	cg_putf(e->out, "const %s ", cuda_ctype(v->dtype));
	if (s->u.let.hoisted) {
		/* a constant stir_sN (passes/hoist.c) */
		e->hoist_id[v->slot] = ++e->n_hoist;
		cg_putf(e->out, "stir_s%d = ", e->n_hoist - 1);
		put_expr(e, ctx, x, P_COND);
		cg_putf(e->out, ";  // a %s the loop does not change\n",
			x->kind == STIR_EXPR_SEARCH ? "search" : "warp buffer read");
		return;
	}
	cuda_put_name(e, v->name);
	cg_put(e->out, " = ");
	put_expr(e, ctx, x, P_COND);
	cg_put(e->out, ";\n");
}

/* e, s, ctx: see cuda_internal.h. */
void cuda_emit_stmt(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	switch (s->kind) {
	case STIR_STMT_STORE:
		cuda_emit_store(e, s, ctx);
		return;
	case STIR_STMT_LET:
		emit_let(e, s, ctx);
		return;
	case STIR_STMT_IF:
		emit_if(e, s, ctx);
		return;
	case STIR_STMT_BLOCK:
		emit_block(e, s, ctx);
		return;
	case STIR_STMT_FOR: {
		/* (split guards are tested before the loop nests they are in
		 * by the lift_guards pass, passes/lift_guards.c) */
		/* a loop inside a fill loop is not part of the fill */
		ectx c = *ctx;
		c.fill = NULL;
		int mark = cuda_hoist(e, s, &c);
		switch (s->u.for_.kind) {
		case STIR_LOOP_BIND:
			emit_bound_loop(e, s, &c);
			break;
		case STIR_LOOP_VECTORIZE:
			cuda_emit_vector_loop(e, s, &c);
			break;
		default:
			emit_serial_loop(e, s, &c);
			break;
		}
		cuda_unhoist(e, mark);
		return;
	}
	case STIR_STMT_ITER:
		/* refused by cuda_verify_structure */
		e->failed = true;
		return;
	case STIR_STMT_BARRIER:
		emit_barrier(e, s, ctx);
		return;
	}
}

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


/* e, ctx: the lanes of the loop bound to threadIdx.x where ctx runs, when
 * warp buffers can live there: a literal power of two up to 32 that is
 * the launch's threads in x; else 0. */
static int64_t lanes_here(const emitter *e, const ectx *ctx)
{
	const stir_stmt *x = ctx->bound[STIR_THREAD_X];
	const stir_expr *ext = x ? x->u.for_.extent : NULL;
	if (!ext || ext->kind != STIR_EXPR_INT || ext->u.i > 32 ||
	    !is_pow2(ext->u.i) || !only_extent(e->launch, STIR_THREAD_X, ext, e))
		return 0;
	return ext->u.i;
}

/* e, ctx: see cuda_internal.h. */
bool cuda_warp_readable(const emitter *e, const ectx *ctx)
{
	return lanes_here(e, ctx) > 0 && !ctx->fill_tail &&
		!(ctx->divergent & DIM_BIT(STIR_THREAD_X));
}

/* e, ctx, buf, loc, what, n: the lanes warp buffer buf is spread over
 * where ctx runs ("what" it does there, for diagnostics), after checking
 * that they can be and are the same as elsewhere in the launch, and its
 * elements in *n; 0 after an error. */
static int64_t warp_lanes(emitter *e, const ectx *ctx, const stir_buffer *buf,
	stir_loc loc, const char *what, int64_t *n)
{
	const stir_stmt *x = ctx->bound[STIR_THREAD_X];
	int64_t lanes = lanes_here(e, ctx);
	if (!x) {
		cuda_error(e, loc, "warp buffer '%s' is %s outside a loop bound to "
			"threadIdx.x, whose lanes hold it", buf->name, what);
		return 0;
	}
	if (!lanes) {
		cuda_error(e, loc, "warp buffer '%s' is %s inside loop '%s', bound "
			"to threadIdx.x, whose extent is not the launch's threads in x "
			"or not a literal power of two up to 32", buf->name, what,
			x->u.for_.var->name);
		return 0;
	}
	if (!cuda_literal_value(e->ctx, e->k, buf->extent, n) || *n < 1) {
		cuda_error(e, buf->loc, "warp buffer '%s' needs a positive literal "
			"extent", buf->name);
		return 0;
	}
	int64_t *have = &e->warp_lanes[buf->index];
	if (*have && *have != lanes) {
		cuda_error(e, loc, "warp buffer '%s' is %s by %" PRId64 " lanes, "
			"and elsewhere in the launch by %" PRId64, buf->name, what,
			lanes, *have);
		return 0;
	}
	*have = lanes;
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
	if (cuda_hoisted(e, x))
		return;
	if (e->buf_used)
		e->buf_used[buf->index] = true;
	cuda_record(e, ctx, buf, idx, false, false, x->loc);
	int64_t n, lanes = warp_lanes(e, ctx, buf, x->loc, "read", &n);
	if (!lanes)
		return;
	if ((ctx->divergent & DIM_BIT(STIR_THREAD_X)) || ctx->fill_tail) {
		cuda_error(e, x->loc, "warp buffer '%s' is read under control flow "
			"that depends on threadIdx.x%s: its lanes shuffle together",
			buf->name, ctx->fill_tail ? " (a fill loop whose last lanes "
			"store nothing)" : "");
		return;
	}
	if (cuda_expr_deps(e, idx) & DIM_BIT(STIR_THREAD_X)) {
		cuda_error(e, x->loc, "warp buffer '%s' is read at an index that "
			"depends on threadIdx.x: its lanes read one element together",
			buf->name);
		return;
	}
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

/* e, x, v: whether x is variable v, or a block variable bound to it. */
static bool is_var(const emitter *e, const stir_expr *x, const stir_var *v)
{
	if (x->kind != STIR_EXPR_VAR)
		return false;
	if (x->u.var == v)
		return true;
	const stir_expr *b = x->u.var->kind == STIR_VAR_BLOCK ?
		e->binding[x->u.var->slot] : NULL;
	return b && is_var(e, b, v);
}

/* e, ctx, buf, idx, op, v, s: a store into warp buffer buf, which only
 * its fill loop makes: this lane's element "idx", the fill's variable. */
static void put_warp_store(emitter *e, const ectx *ctx,
	const stir_buffer *buf, const stir_expr *idx, stir_store_op op,
	const sval *v, const stir_stmt *s)
{
	if (e->buf_used) {
		e->buf_used[buf->index] = true;
		e->buf_written[buf->index] = true;
	}
	cuda_record(e, ctx, buf, idx, true, false, s->loc);
	if (!ctx->fill) {
		cuda_error(e, s->loc, "warp buffer '%s' is written outside a fill "
			"loop (a serial loop over its elements, directly around the "
			"store, inside the loop bound to threadIdx.x)", buf->name);
		return;
	}
	if (ctx->divergent & DIM_BIT(STIR_THREAD_X)) {
		cuda_error(e, s->loc, "warp buffer '%s' is filled under control "
			"flow that depends on threadIdx.x: every lane stores its part",
			buf->name);
		return;
	}
	if (op != STIR_STORE_ASSIGN || !is_var(e, idx, ctx->fill)) {
		cuda_error(e, s->loc, "warp buffer '%s': its fill loop '%s' may "
			"only assign element '%s'", buf->name, ctx->fill->name,
			ctx->fill->name);
		return;
	}
	if (v->x && (cuda_expr_deps(e, v->x) & DIM_BIT(STIR_THREAD_X))) {
		cuda_error(e, s->loc, "the value stored into warp buffer '%s' "
			"depends on threadIdx.x: its lanes hold one copy", buf->name);
		return;
	}
	cg_indent(e->out);
	cuda_put_name(e, buf->name);
	cg_putf(e->out, "[stir_f%d] = ", ctx->fill_id);
	put_val(e, ctx, v, buf->dtype, P_COND);
	cg_put(e->out, ";");
	cuda_put_loc_comment(e, s);
	cg_put(e->out, "\n");
}

/* list: the warp buffer that a statement of list (through conditions and
 * blocks, not loops) stores into, or NULL. */
static const stir_buffer *warp_fill_of(const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *s = stir_stmt_at(list, i);
		const stir_buffer *b = NULL;
		switch (s->kind) {
		case STIR_STMT_STORE:
			if (s->u.store.buf->scope == STIR_SCOPE_WARP)
				b = s->u.store.buf;
			break;
		case STIR_STMT_BLOCK:
			b = warp_fill_of(&s->u.block.body);
			break;
		case STIR_STMT_IF:
			b = warp_fill_of(&s->u.if_.then_body);
			if (!b)
				b = warp_fill_of(&s->u.if_.else_body);
			break;
		default:
			break;
		}
		if (b)
			return b;
	}
	return NULL;
}

/* e, s, ctx, buf: fill loop s of warp buffer buf: its iterations spread
 * over the lanes, each lane storing its own elements. */
static void emit_warp_fill(emitter *e, const stir_stmt *s, const ectx *ctx,
	const stir_buffer *buf)
{
	const stir_var *v = s->u.for_.var;
	const stir_expr *ext = s->u.for_.extent;
	/* (control flow that depends on threadIdx.x, around the loop or
	 * inside it, is refused at the store) */
	int64_t size, lanes = warp_lanes(e, ctx, buf, s->loc, "filled", &size);
	if (!lanes)
		return;
	if (ext->kind != STIR_EXPR_INT || ext->u.i < 0 || ext->u.i > size) {
		cuda_error(e, s->loc, "fill loop '%s' of warp buffer '%s' needs a "
			"literal extent of at most its %" PRId64 " elements", v->name,
			buf->name, size);
		return;
	}
	int64_t n = ext->u.i, rounds = (n + lanes - 1) / lanes;
	int id = e->n_tmp++;
	cg_line(e->out, "// loop '%s' fills warp buffer '%s': %" PRId64
		" elements over %" PRId64 " lanes", v->name, buf->name, n, lanes);
	cg_line(e->out, "#pragma unroll");
	cg_line(e->out, "for (int stir_f%d = 0; stir_f%d < %" PRId64 "; "
		"++stir_f%d) {", id, id, rounds, id);
	e->out->indent++;
	cg_indent(e->out);
	cg_putf(e->out, "const %s ", cuda_ctype(v->dtype));
	cuda_put_name(e, v->name);
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
	summary body = { 0 };
	cuda_emit_list(e, &s->u.for_.body, &c, &body);
	if (tail) {
		e->out->indent--;
		cg_line(e->out, "}");
	}
	e->out->indent--;
	cg_line(e->out, "}");
	summary_append_maybe(e, e->sum, &body);
	summary_release(&body);
}

/* ---- launches ----------------------------------------------------------- */

/* e, L, x, d, dedupe: add extent x to index d of launch L. */
static void add_extent(emitter *e, cuda_launch *L, int d, const stir_expr *x,
	bool dedupe)
{
	for (int i = 0; dedupe && i < L->n_ext[d]; i++)
		if (cuda_expr_equal(e, L->ext[d][i], x))
			return;
	const stir_expr **n = realloc(L->ext[d],
		((size_t)L->n_ext[d] + 1) * sizeof(*n));
	if (!n) {
		oom(e);
		return;
	}
	n[L->n_ext[d]++] = x;
	L->ext[d] = n;
	L->used |= DIM_BIT(d);
}

/* e, L, list, bound, no_block: scan_launch over a list. */
static void scan_list(emitter *e, cuda_launch *L, const stir_ptr_vec *list,
	const stir_stmt **bound, bool no_block);

/* e, L, s, bound, no_block: collect the extents of the loops bound to
 * thread indices in s (bound: the loops bound around s, by index); the
 * bindings are legal (cuda_verify_structure). */
static void scan_launch(emitter *e, cuda_launch *L, const stir_stmt *s,
	const stir_stmt **bound, bool no_block)
{
	switch (s->kind) {
	case STIR_STMT_FOR:
		if (s->u.for_.kind == STIR_LOOP_BIND) {
			int d = s->u.for_.thread;
			add_extent(e, L, d, s->u.for_.extent, true);
			bound[d] = s;
			scan_list(e, L, &s->u.for_.body, bound, no_block);
			bound[d] = NULL;
			return;
		}
		scan_list(e, L, &s->u.for_.body, bound, no_block);
		return;
	case STIR_STMT_IF:
		scan_list(e, L, &s->u.if_.then_body, bound, no_block);
		scan_list(e, L, &s->u.if_.else_body, bound, no_block);
		return;
	case STIR_STMT_BLOCK:
		scan_list(e, L, &s->u.block.body, bound, no_block);
		return;
	default:
		return;
	}
}

/* e, L, list, bound, no_block: see the declaration above. */
static void scan_list(emitter *e, cuda_launch *L, const stir_ptr_vec *list,
	const stir_stmt **bound, bool no_block)
{
	for (int i = 0; i < list->n && !e->failed; i++)
		scan_launch(e, L, stir_stmt_at(list, i), bound, no_block);
}

/* e, L, h: the nests of horizontal block h: each a loop bound to
 * blockIdx.x with nothing else bound to blockIdx (cuda_verify_structure
 * checked). */
static void scan_horizontal(emitter *e, cuda_launch *L, const stir_stmt *h)
{
	L->horizontal = true;
	for (int i = 0; i < h->u.block.body.n && !e->failed; i++) {
		const stir_stmt *n = stir_stmt_at(&h->u.block.body, i);
		const stir_stmt *bound[N_DIMS] = { 0 };
		add_extent(e, L, STIR_BLOCK_X, n->u.for_.extent, false);
		bound[STIR_BLOCK_X] = n;
		scan_list(e, L, &n->u.for_.body, bound, true);
	}
}

/* L: the literal block size, or -1 per index (see cuda_launch). */
static void literal_block(cuda_launch *L)
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

/* x: does x name a variable anywhere? */
static bool has_var(const stir_expr *x)
{
	switch (x->kind) {
	case STIR_EXPR_VAR:
		return true;
	case STIR_EXPR_UNARY:
		return has_var(x->u.unary.a);
	case STIR_EXPR_BINARY:
		return has_var(x->u.binary.a) || has_var(x->u.binary.b);
	case STIR_EXPR_SELECT:
		return has_var(x->u.select.c) || has_var(x->u.select.a) ||
			has_var(x->u.select.b);
	case STIR_EXPR_CALL:
		for (int i = 0; i < x->u.call.n; i++)
			if (has_var(x->u.call.args[i]))
				return true;
		return false;
	case STIR_EXPR_CAST:
		return has_var(x->u.cast.a);
	default:
		return false;
	}
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

/* e, li: the register and shared arrays of launch li, declared at
 * the top of its function.  Shared memory starts zeroed, as the
 * interpreter's buffers do.  Returns the shared bytes. */
static int64_t emit_declarations(emitter *e, int li)
{
	const stir_kernel *k = e->k;
	cg_printer *p = e->out;
	int64_t shared = 0;
	bool any_shared = false;
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
		} else if (b->scope == STIR_SCOPE_SHARED) {
			cg_putf(p, "__shared__ %s ", cuda_ctype(b->dtype));
			cuda_put_name(e, b->name);
			cg_putf(p, "[%" PRId64 "];\n", n);
			shared += n * (int64_t)stir_dtype_size(b->dtype);
			any_shared = true;
		} else {
			cg_putf(p, "%s ", cuda_ctype(b->dtype));
			cuda_put_name(e, b->name);
			cg_putf(p, "[%" PRId64 "] = {};\n", n);
		}
	}
	/* at most MAX_STATIC_SHARED bytes (cuda_verify_structure) */
	if (!any_shared)
		return shared;
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
		cg_indent(p);
		cg_putf(p, "for (int stir_i = stir_tid; stir_i < %" PRId64
			"; stir_i += stir_nt)\n", n);
		p->indent++;
		cg_indent(p);
		cuda_put_name(e, b->name);
		cg_putf(p, "[stir_i] = %s;\n", b->dtype == STIR_F16 ?
			"__float2half_rn(0.0f)" : b->dtype == STIR_BF16 ?
			"__float2bfloat16_rn(0.0f)" : "0");
		p->indent--;
	}
	p->indent--;
	cg_line(p, "}");
	cg_line(p, "__syncthreads();");
	return shared;
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
		put_expr(e, ctx, n->u.for_.extent, P_TOP);
		cg_put(p, "), 0LL);\n");
	}
	for (int i = 0; i < nests->n; i++) {
		const stir_stmt *n = stir_stmt_at(nests, i);
		const stir_var *v = n->u.for_.var;
		cg_indent(p);
		cg_putf(p, "%sif ((long long)blockIdx.x < stir_h%d) {\n",
			i ? "} else " : "", i);
		p->indent++;
		cg_indent(p);
		cg_putf(p, "const %s ", cuda_ctype(v->dtype));
		cuda_put_name(e, v->name);
		if (i)
			cg_putf(p, " = (%s)((long long)blockIdx.x - stir_h%d);\n",
				cuda_ctype(v->dtype), i - 1);
		else
			cg_put(p, " = blockIdx.x;\n");
		ectx c = *ctx;
		c.bound[STIR_BLOCK_X] = n;
		if (h->u.block.flags & STIR_BLOCK_ATOMIC)
			c.atomic = true;
		summary body = { 0 };
		cuda_emit_list(e, &n->u.for_.body, &c, &body);
		summary_append_maybe(e, e->sum, &body);
		summary_release(&body);
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
	if (L->n_ext[d] == 0) {
		cg_put(p, "1");
		return;
	}
	bool sum = L->horizontal && d == STIR_BLOCK_X;
	if (L->n_ext[d] > 1)
		cg_put(p, sum ? "" : "max(");
	for (int i = 0; i < L->n_ext[d]; i++) {
		if (i)
			cg_put(p, sum ? " + " : ", ");
		put_expr(e, &none, L->ext[d][i], sum ? P_ADD + 1 : P_COND);
	}
	if (L->n_ext[d] > 1 && !sum)
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
	const int64_t *lb = L->lit_block;
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
			emit_let(e, s, &none);
	}
}

/* e, li, src: emit launch li into src. */
static void emit_launch(emitter *e, int li, cg_printer *src)
{
	stir_cuda_plan *plan = e->plan;
	cuda_launch *L = &plan->launches[li];
	const stir_kernel *k = e->k;
	e->launch = L;
	const stir_stmt *bound[N_DIMS] = { 0 };
	if (L->stmt->kind == STIR_STMT_BLOCK &&
	    (L->stmt->u.block.flags & STIR_BLOCK_HORIZONTAL))
		scan_horizontal(e, L, L->stmt);
	else
		scan_launch(e, L, L->stmt, bound, false);
	if (e->failed)
		return;
	literal_block(L);
	memset(e->buf_used, 0, (size_t)k->buffers.n + 1);
	memset(e->buf_written, 0, (size_t)k->buffers.n + 1);
	memset(e->warp_lanes, 0, ((size_t)k->buffers.n + 1) *
		sizeof(*e->warp_lanes));
	e->local_writes.n = 0;

	/* the body first: it tells which arrays the launch takes */
	cg_printer body;
	cg_printer_init(&body, 1);
	summary sum = { 0 };
	e->out = &body;
	e->sum = &sum;
	ectx ctx = { 0 };
	emit_top_lets(e, L->stmt);
	if (L->horizontal) {
		emit_horizontal(e, L->stmt, &ctx);
	} else {
		stir_ptr_vec one = { 1, 1, (void **)&L->stmt };
		cuda_emit_list(e, &one, &ctx, &sum);
	}
	summary_release(&sum);
	e->sum = NULL;
	cg_printer decls;
	cg_printer_init(&decls, 1);
	e->out = &decls;
	emit_declarations(e, li);
	for (int i = 0; i < k->buffers.n; i++)
		if (e->buf_written[i])
			plan->written[i] = true;
	if (!e->failed && make_args(e, L) < 0)
		oom(e);
	if (!e->failed) {
		char at[256];
		e->out = src;
		cg_putf(src, "\n// launch %d of %d (%s): ", li, plan->n_launches,
			cuda_loc_str(first_loc(L->stmt), at, sizeof(at)));
		put_shape(e, L);
		cg_put(src, "\n");
		emit_signature(e, L, src);
		cg_put(src, "{\n");
		cg_append(src, &decls);
		cg_append(src, &body);
		cg_put(src, "}\n");
	}
	cg_printer_release(&decls);
	cg_printer_release(&body);
}

/* ---- the whole kernel --------------------------------------------------- */

/* e, s: variable facts (see emitter): every variable's dependence on the
 * thread indices and every block variable's binding. */
static void analyse_vars(emitter *e, const stir_stmt *s);

/* e, list: analyse_vars of each statement, in order. */
static void analyse_list(emitter *e, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		analyse_vars(e, stir_stmt_at(list, i));
}

/* e, s: see the declaration above. */
static void analyse_vars(emitter *e, const stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_FOR:
		/* a serial loop variable has the same value in every thread
		 * running the iteration */
		e->dep[s->u.for_.var->slot] = s->u.for_.kind == STIR_LOOP_BIND ?
			DIM_BIT(s->u.for_.thread) : 0;
		analyse_list(e, &s->u.for_.body);
		return;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++) {
			int slot = s->u.block.vars[i]->slot;
			e->binding[slot] = s->u.block.bindings[i];
			e->dep[slot] = cuda_expr_deps(e, s->u.block.bindings[i]);
		}
		analyse_list(e, &s->u.block.body);
		return;
	case STIR_STMT_LET:
		e->dep[s->u.let.var->slot] = cuda_expr_deps(e, s->u.let.value);
		return;
	case STIR_STMT_IF:
		analyse_list(e, &s->u.if_.then_body);
		analyse_list(e, &s->u.if_.else_body);
		return;
	default:
		return;
	}
}

/* x, h16, hb16: note whether x or anything in it has a 16-bit float
 * type. */
static void scan_expr_types(const stir_expr *x, bool *h16, bool *hb16)
{
	if (!x)
		return;
	*h16 |= x->dtype == STIR_F16;
	*hb16 |= x->dtype == STIR_BF16;
	switch (x->kind) {
	case STIR_EXPR_LOAD:
		scan_expr_types(x->u.load.idx[0], h16, hb16);
		return;
	case STIR_EXPR_UNARY:
		scan_expr_types(x->u.unary.a, h16, hb16);
		return;
	case STIR_EXPR_BINARY:
		scan_expr_types(x->u.binary.a, h16, hb16);
		scan_expr_types(x->u.binary.b, h16, hb16);
		return;
	case STIR_EXPR_SELECT:
		scan_expr_types(x->u.select.c, h16, hb16);
		scan_expr_types(x->u.select.a, h16, hb16);
		scan_expr_types(x->u.select.b, h16, hb16);
		return;
	case STIR_EXPR_CALL:
		for (int i = 0; i < x->u.call.n; i++)
			scan_expr_types(x->u.call.args[i], h16, hb16);
		return;
	case STIR_EXPR_CAST:
		scan_expr_types(x->u.cast.a, h16, hb16);
		return;
	default:
		return;
	}
}

/* list, h16, hb16: scan_expr_types over statements. */
static void scan_list_types(const stir_ptr_vec *list, bool *h16, bool *hb16)
{
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *s = stir_stmt_at(list, i);
		switch (s->kind) {
		case STIR_STMT_STORE:
			scan_expr_types(s->u.store.value, h16, hb16);
			scan_expr_types(s->u.store.idx[0], h16, hb16);
			break;
		case STIR_STMT_LET:
			scan_expr_types(s->u.let.value, h16, hb16);
			break;
		case STIR_STMT_IF:
			scan_expr_types(s->u.if_.cond, h16, hb16);
			scan_list_types(&s->u.if_.then_body, h16, hb16);
			scan_list_types(&s->u.if_.else_body, h16, hb16);
			break;
		case STIR_STMT_FOR:
			scan_expr_types(s->u.for_.extent, h16, hb16);
			scan_list_types(&s->u.for_.body, h16, hb16);
			break;
		case STIR_STMT_BLOCK:
			for (int j = 0; j < s->u.block.n_vars; j++)
				scan_expr_types(s->u.block.bindings[j], h16, hb16);
			scan_list_types(&s->u.block.body, h16, hb16);
			break;
		default:
			break;
		}
	}
}

/* e, out: the search helpers the kernel uses, each once. */
static void emit_search_helpers(emitter *e, cg_printer *out)
{
	static const char *const names[] = {
		[STIR_LOWER_BOUND] = "lower_bound",
		[STIR_UPPER_BOUND] = "upper_bound", [STIR_FIND] = "find",
	};
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
			cg_putf(out, "\n// %s: %s\n", names[op], what[op]);
			cg_putf(out, "static __device__ __forceinline__ long long "
				"stir_%s_%s(\n    const %s *a, long long lo, long long hi, "
				"long long x)\n{\n", names[op],
				stir_dtype_name((stir_dtype)t), cuda_ctype((stir_dtype)t));
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

/* plan, flags: number the launches, emit each, then the header and the
 * helpers they need; see cuda_internal.h. */
/* plan, flags, mode, places: the walk of cuda_emit (mode
 * CUDA_MODE_EMIT) or of cuda_place_barriers (CUDA_MODE_PLACE, which
 * appends to places). */
static int emit_kernel(stir_cuda_plan *plan, unsigned flags, cuda_mode mode,
	cuda_places *places)
{
	const stir_kernel *k = plan->k;
	emitter e = { .k = k, .ctx = stir_kernel_ctx(k), .flags = flags,
		.plan = plan, .mode = mode, .places = places };
	if (k->stage != STIR_STAGE_3) {
		stir_error(e.ctx, k->loc, "kernel '%s' is a stage %d kernel; CUDA "
			"is emitted from stage 3 (see stir_kernel_prepare_for_gpu)",
			k->name, (int)k->stage);
		return -1;
	}
	/* what needs no thread context is checked first: the walk below
	 * assumes it */
	if (cuda_verify_structure(k) < 0)
		return -1;
	size_t nv = (size_t)k->n_vars + 1, nb = (size_t)k->buffers.n + 1;
	e.dep = calloc(nv, sizeof(*e.dep));
	e.binding = calloc(nv, sizeof(*e.binding));
	e.hoist_id = calloc(nv, sizeof(*e.hoist_id));
	e.buf_used = calloc(nb, 1);
	e.buf_written = calloc(nb, 1);
	e.warp_lanes = calloc(nb, sizeof(*e.warp_lanes));
	plan->max_elems = malloc(nb * sizeof(*plan->max_elems));
	plan->written = calloc(nb, sizeof(*plan->written));
	int n_launch = 0;
	for (int i = 0; i < k->body.n; i++)
		n_launch += stir_stmt_at(&k->body, i)->kind != STIR_STMT_LET;
	plan->launches = calloc((size_t)n_launch + 1, sizeof(*plan->launches));
	cg_printer src, launches;
	cg_printer_init(&src, 0);
	cg_printer_init(&launches, 0);
	if (!e.dep || !e.binding || !e.hoist_id || !e.buf_used || !e.buf_written ||
	    !e.warp_lanes ||
	    !plan->max_elems || !plan->written || !plan->launches) {
		oom(&e);
		goto out;
	}
	for (size_t i = 0; i < nb; i++)
		plan->max_elems[i] = INT64_MAX;
	analyse_list(&e, &k->body);
	char *kname = cuda_escape(k->name);
	if (!kname) {
		oom(&e);
		goto out;
	}
	for (int i = 0; i < k->body.n; i++) {
		const stir_stmt *s = stir_stmt_at(&k->body, i);
		if (s->kind == STIR_STMT_LET)
			continue;
		cuda_launch *L = &plan->launches[plan->n_launches];
		L->stmt = s;
		size_t len = strlen(kname) + 32;
		if (!(L->name = malloc(len))) {
			oom(&e);
			break;
		}
		snprintf(L->name, len, "%s_k%d", kname, plan->n_launches);
		plan->n_launches++;
	}
	free(kname);
	/* (a shared or local buffer is used by one launch only:
	 * cuda_verify_structure) */
	for (int li = 0; li < plan->n_launches && !e.failed; li++)
		emit_launch(&e, li, &launches);
	if (!e.failed && cuda_verify_sharing(k) < 0)
		e.failed = true;
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
	cg_append(&src, &launches);
	if (src.failed)
		oom(&e);
out:
	cg_printer_release(&launches);
	if (!e.failed)
		plan->source = cg_printer_finish(&src);
	else
		cg_printer_release(&src);
	if (!e.failed && !plan->source)
		oom(&e);
	free(e.dep);
	free(e.binding);
	free(e.hoist_id);
	free(e.buf_used);
	free(e.buf_written);
	free(e.warp_lanes);
	free(e.memo);
	free(e.local_writes.v);
	return e.failed ? -1 : 0;
}

/* plan, flags: see cuda_internal.h. */
int cuda_emit(stir_cuda_plan *plan, unsigned flags)
{
	return emit_kernel(plan, flags, CUDA_MODE_EMIT, NULL);
}

/* k, places: see cuda_internal.h.  The walk builds a plan of its own,
 * discarded with the source it printed. */
int cuda_place_barriers(const stir_kernel *k, cuda_places *places)
{
	stir_cuda_plan *p = calloc(1, sizeof(*p));
	if (!p) {
		stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	p->k = k;
	int r = emit_kernel(p, 0, CUDA_MODE_PLACE, places);
	stir_cuda_plan_free(p);
	return r;
}
