/* The CUDA emitter's statements (docs/cuda.md): a statement list with the
 * barriers between its statements, guarded statements, if, let, blocks,
 * serial loops and barriers, and the static facts about statements that
 * they look at (what a statement binds, stores and names).  Thread-bound
 * loops and stores are in cuda_reduce.c, vector loops in cuda_vector.c,
 * warp buffers' fill loops in cuda_warp.c. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codegen/cuda_internal.h"
#include "ir/layout.h"

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
bool cuda_list_uses(const stir_ptr_vec *list, const stir_buffer *buf,
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
			return cuda_list_uses(&s->u.if_.then_body, buf, except, where) ||
				cuda_list_uses(&s->u.if_.else_body, buf, except, where);
		break;
	case STIR_STMT_FOR:
		if (expr_reads(s->u.for_.extent, buf))
			r = true;
		else
			return cuda_list_uses(&s->u.for_.body, buf, except, where);
		break;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++)
			if (expr_reads(s->u.block.bindings[i], buf))
				r = true;
		if (!r)
			return cuda_list_uses(&s->u.block.body, buf, except, where);
		break;
	default:
		break;
	}
	if (r)
		*where = s->loc;
	return r;
}

/* list, buf, except, where: see the declaration above. */
bool cuda_list_uses(const stir_ptr_vec *list, const stir_buffer *buf,
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

/* ---- statements --------------------------------------------------------- */

/* e, dims: print "threadIdx.x == 0 && ..." for the indices dims. */
void cuda_put_index_zero(emitter *e, unsigned dims)
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
	unsigned u = cuda_unbound(e, ctx);
	ectx c = *ctx;
	bool guard = u && stores_shared_data(s) && !(bound_inside(s) & u);
	if (guard) {
		/* (else nothing to guard, or the guard goes further in) */
		c.single |= u;
		c.divergent |= u & THREAD_DIMS;
		cg_indent(e->out);
		cg_put(e->out, "if (");
		cuda_put_index_zero(e, u);
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

/* e, s, ctx: if/else. */
static void emit_if(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	ectx c = *ctx;
	c.divergent |= cuda_expr_deps(e, s->u.if_.cond) & THREAD_DIMS;
	cg_indent(e->out);
	cg_put(e->out, "if (");
	cuda_expr(e, ctx, s->u.if_.cond, P_TOP);
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

/* e, s, ctx: a serial or unrolled loop.  The extent is evaluated once, as
 * the interpreter does, when it reads memory (the body might change it).
 * The fill loop of a warp buffer is emitted by emit_warp_fill. */
static void emit_serial_loop(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	const stir_expr *ext = s->u.for_.extent;
	const stir_var *v = s->u.for_.var;
	const stir_buffer *fill = cuda_warp_fill_of(&s->u.for_.body);
	if (fill) {
		cuda_emit_warp_fill(e, s, ctx, fill);
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
		cuda_expr(e, ctx, ext, P_COND);
		cg_put(e->out, "; ");
		cuda_put_name(e, v->name);
		cg_putf(e->out, " < stir_n%d; ++", id);
	} else {
		cg_put(e->out, " = 0; ");
		cuda_put_name(e, v->name);
		cg_put(e->out, " < ");
		cuda_expr(e, ctx, ext, P_REL + 1);
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
		cuda_expr(e, ctx, s->u.block.bindings[i], P_COND);
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
void cuda_emit_let(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	const stir_var *v = s->u.let.var;
	const stir_expr *x = s->u.let.value;
	cg_indent(e->out);
	cg_putf(e->out, "const %s ", cuda_ctype(v->dtype));
	if (s->u.let.hoisted) {
		/* a constant stir_sN (passes/hoist.c) */
		e->hoist_id[v->slot] = ++e->n_hoist;
		cg_putf(e->out, "stir_s%d = ", e->n_hoist - 1);
		cuda_expr(e, ctx, x, P_COND);
		cg_putf(e->out, ";  // a %s the loop does not change\n",
			x->kind == STIR_EXPR_SEARCH ? "search" : "warp buffer read");
		return;
	}
	cuda_put_name(e, v->name);
	cg_put(e->out, " = ");
	cuda_expr(e, ctx, x, P_COND);
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
		cuda_emit_let(e, s, ctx);
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
			cuda_emit_bound_loop(e, s, &c);
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
