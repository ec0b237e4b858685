/* Vectorized loops (docs/cuda.md, "vectorize").
 *
 * A loop "for w in [0, W) vectorize" (W = 2 or 4) whose body is stores in
 * blocks, without lets, conditions or inner loops (except conditions that
 * wrap the whole body and do not use w, such as split's tail guards, which
 * are tested once for all lanes), runs its W iterations as
 * lanes: every access BUF[base + w] to a float, int (W = 2 or 4) or double
 * (W = 2) buffer in global or shared memory becomes one vector load or
 * store of float4 / int2 / double2 ..., when the address is aligned to the
 * vector's size, which is checked at run time (on the buffer's address
 * alone when the index at lane 0 is known to be a multiple of W, so that
 * the check does not wait for the loads of the index and is the same in
 * every iteration); the other accesses stay
 * scalar, one per lane.  Every statement runs for all lanes before the
 * next, which keeps the meaning only when no lane touches what another
 * lane writes: every access to a buffer the body stores into must use the
 * same index, which must move with w.  Otherwise, and when the alignment
 * check fails, the loop runs as a scalar unrolled loop. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "codegen/cuda_internal.h"
#include "ir/affine.h"
#include "ir/ops.h"
#include "ir/visit.h"
#include "passes/passes.h"

#define MAX_VEC 16   /* vectors one loop may hold */
#define MAX_GUARDS 8 /* conditions around a body that the lanes share */
#define MAX_STORES 64

/* One vector: the W elements BUF[base .. base + W). */
typedef struct vacc {
	const stir_buffer *buf;    /* borrowed */
	const stir_expr *idx;      /* the index of lane w (borrowed) */
	int id;                    /* stir_vID */
	bool loaded;               /* read before written: loaded first */
	bool stored;               /* written back at the end */
	bool atomic;               /* its lanes sum from 0 and are added to
	                              memory at the end with an atomic add */
} vacc;

struct vec_ctx {
	int n;
	vacc v[MAX_VEC];
	int lane;                  /* the lane being printed */
};

/* The analysis of a loop body. */
typedef struct vbody {
	int n_stores;
	const stir_stmt *stores[MAX_STORES]; /* borrowed, in order */
	bool atomic[MAX_STORES];   /* that store is an atomic add */
	bool ok;                   /* a vector path is possible */
} vbody;

/* e, x, v, c: the coefficient of variable v in integer expression x (block
 * variables replaced by their bindings).  false when x is not affine in v
 * with a literal coefficient. */
static bool lin_coeff(const emitter *e, const stir_expr *x,
	const stir_var *v, int64_t *c)
{
	stir_affine_opts o = { .flags = STIR_AFFINE_NEG |
		STIR_AFFINE_WIDENING_CASTS | STIR_AFFINE_OPAQUE,
		.expand = cuda_binding_hook, .user = e };
	return stir_affine_coef_of(x, v, &o, c);
}

/* e, x, v, w, r: *r = x mod w (in [0, w)) when the residue is known
 * without running the kernel, with lane variable v at 0: literals,
 * multiples of literals that w divides (a row index times the row length,
 * say), sums of such.  Block variables are seen through their bindings. */
static bool known_residue(const emitter *e, const stir_expr *x,
	const stir_var *v, int64_t w, int64_t *r)
{
	int64_t a, b;
	if (!stir_dtype_is_int(x->dtype))
		return false;
	switch (x->kind) {
	case STIR_EXPR_INT:
		*r = (x->u.i % w + w) % w;
		return true;
	case STIR_EXPR_VAR:
		if (x->u.var == v) {
			*r = 0;
			return true;
		}
		return x->u.var->kind == STIR_VAR_BLOCK &&
			e->binding[x->u.var->slot] &&
			known_residue(e, e->binding[x->u.var->slot], v, w, r);
	case STIR_EXPR_CAST:
		return stir_int_rank(x->dtype) >= stir_int_rank(x->u.cast.a->dtype) &&
			known_residue(e, x->u.cast.a, v, w, r);
	case STIR_EXPR_BINARY: {
		const stir_expr *l = x->u.binary.a, *rt = x->u.binary.b;
		bool kl = known_residue(e, l, v, w, &a);
		bool kr = known_residue(e, rt, v, w, &b);
		switch (x->u.binary.op) {
		case STIR_ADD:
		case STIR_SUB:
			if (!kl || !kr)
				return false;
			*r = ((x->u.binary.op == STIR_ADD ? a + b : a - b) % w + w) % w;
			return true;
		case STIR_MUL:
			if ((kl && a == 0) || (kr && b == 0)) {
				*r = 0;
				return true;
			}
			if (!kl || !kr)
				return false;
			*r = a * b % w;
			return true;
		default:
			return false;
		}
	}
	default:
		return false;
	}
}

/* s, atomic: whether store s, in an atomic block when "atomic", is an
 * atomic add that a vector can make (float adds into global memory:
 * atomicAdd of float2 / float4 on sm_90). */
static bool vector_atomic(const stir_stmt *s, bool atomic)
{
	return atomic && s->u.store.op == STIR_STORE_ADD &&
		s->u.store.buf->dtype == STIR_F32 &&
		s->u.store.buf->scope == STIR_SCOPE_GLOBAL;
}

/* e, list, atomic, vb: gather the stores of a vectorizable body; atomic:
 * its stores are in an atomic block, which is fine for stores into local
 * memory (they are never atomic) and for float adds into global memory
 * (vector_atomic).  The store of a cross-thread block is printed per lane
 * by cuda_emit_store, as its thread's part of the reduction. */
static void gather(const emitter *e, const stir_ptr_vec *list, bool atomic,
	vbody *vb)
{
	for (int i = 0; i < list->n && vb->ok; i++) {
		const stir_stmt *s = stir_stmt_at(list, i);
		if (s->kind == STIR_STMT_STORE && vb->n_stores < MAX_STORES &&
		    s->u.store.buf->scope != STIR_SCOPE_WARP &&
		    (!atomic || s->u.store.buf->scope == STIR_SCOPE_LOCAL ||
		     vector_atomic(s, atomic))) {
			vb->atomic[vb->n_stores] = vector_atomic(s, atomic);
			vb->stores[vb->n_stores++] = s;
		}
		else if (s->kind == STIR_STMT_BLOCK &&
		    !(s->u.block.flags & ~(STIR_BLOCK_ATOMIC |
		    STIR_BLOCK_CROSS_THREAD)))
			gather(e, &s->u.block.body,
				atomic || (s->u.block.flags & STIR_BLOCK_ATOMIC), vb);
		else
			vb->ok = false;
	}
	(void)e;
}

/* e, body, v, conds, n: the statements under the conditions that wrap all
 * of body without using v (at most MAX_GUARDS, into conds[0..*n-1]). */
static const stir_ptr_vec *peel_guards(const emitter *e,
	const stir_ptr_vec *body, const stir_var *v, const stir_expr **conds,
	int *n)
{
	*n = 0;
	while (body->n == 1 && *n < MAX_GUARDS) {
		const stir_stmt *s = stir_stmt_at(body, 0);
		if (s->kind != STIR_STMT_IF || s->u.if_.else_body.n ||
		    cuda_expr_uses(e, s->u.if_.cond, v))
			break;
		conds[(*n)++] = s->u.if_.cond;
		body = &s->u.if_.then_body;
	}
	return body;
}

/* An access of the body, for the checks. */
typedef struct vuse {
	const stir_buffer *buf;
	const stir_expr *idx;      /* NULL: a search over a range */
	bool store;
	stir_store_op op;
	bool atomic;               /* an atomic add (vector_atomic) */
} vuse;

typedef struct vuses {
	int n;
	vuse u[4 * MAX_STORES];
	bool overflow;
} vuses;

/* u, buf, idx, store, op, atomic: add an access. */
static void use(vuses *u, const stir_buffer *buf, const stir_expr *idx,
	bool store, stir_store_op op, bool atomic)
{
	if (u->n == (int)(sizeof(u->u) / sizeof(u->u[0]))) {
		u->overflow = true;
		return;
	}
	u->u[u->n++] = (vuse){ buf, idx, store, op, atomic };
}

/* slot, user: expr_pre of loads: add a load or a search (over a range:
 * no index) to the vuses. */
static stir_visit_step add_load(stir_expr **slot, void *user)
{
	const stir_expr *x = *slot;
	if (x->kind == STIR_EXPR_LOAD)
		use(user, x->u.load.buf, x->u.load.idx[0], false,
			STIR_STORE_ASSIGN, false);
	else if (x->kind == STIR_EXPR_SEARCH)
		use(user, x->u.search.buf, NULL, false, STIR_STORE_ASSIGN,
			false);
	return STIR_VISIT_GO;
}

/* x, u: the loads of x. */
static void loads(const stir_expr *x, vuses *u)
{
	stir_visitor v = { .expr_pre = add_load, .user = u };
	stir_expr *root = (stir_expr *)x;
	stir_visit_expr(&v, &root);
}

/* t, w: the CUDA vector type of w elements of t, or NULL. */
static const char *vec_type(stir_dtype t, int64_t w)
{
	if (t == STIR_F32)
		return w == 4 ? "float4" : "float2";
	if (t == STIR_I32)
		return w == 4 ? "int4" : "int2";
	if (t == STIR_F64 && w == 2)
		return "double2";
	return NULL;
}

/* e, vc, u, v, w: plan the vectors: refuse (false) when lanes could
 * see each other's stores; otherwise one vector per contiguous access
 * that has a vector type. */
static bool plan_vectors(const emitter *e, struct vec_ctx *vc,
	const vuses *u, const stir_var *v, int64_t w)
{
	for (int i = 0; i < u->n; i++) {
		const vuse *s = &u->u[i];
		int64_t c;
		if (!s->store)
			continue;
		for (int j = 0; j < u->n; j++) {
			const vuse *o = &u->u[j];
			if (o->buf != s->buf)
				continue;
			if (!o->idx || !cuda_expr_equal(e, o->idx, s->idx) ||
			    !lin_coeff(e, o->idx, v, &c) || c == 0)
				return false;
			/* an atomic add is the buffer's only access, one lane
			 * an element, of a type that has vector atomics */
			if ((s->atomic || o->atomic) && (!o->atomic || c != 1 ||
			    !vec_type(s->buf->dtype, w)))
				return false;
		}
	}
	for (int i = 0; i < u->n; i++) {
		const vuse *s = &u->u[i];
		int64_t c;
		if (!s->idx || s->buf->scope == STIR_SCOPE_LOCAL ||
		    s->buf->scope == STIR_SCOPE_WARP ||
		    !vec_type(s->buf->dtype, w) || !lin_coeff(e, s->idx, v, &c) ||
		    c != 1)
			continue;
		int j;
		for (j = 0; j < vc->n; j++)
			if (vc->v[j].buf == s->buf &&
			    cuda_expr_equal(e, vc->v[j].idx, s->idx))
				break;
		if (j == vc->n) {
			if (vc->n == MAX_VEC)
				return false;
			vc->v[j] = (vacc){ .buf = s->buf, .idx = s->idx, .id = j };
			vc->n++;
		}
		/* a vector read before its first store is loaded; the lanes of an
		 * atomic one start from 0 */
		vc->v[j].atomic = s->atomic;
		if (!s->store && !vc->v[j].stored)
			vc->v[j].loaded = true;
		if (s->store && s->op != STIR_STORE_ASSIGN && !vc->v[j].stored &&
		    !s->atomic)
			vc->v[j].loaded = true;
		if (s->store)
			vc->v[j].stored = true;
	}
	return vc->n > 0;
}

/* e, x: see cuda_internal.h. */
bool cuda_vector_load(emitter *e, const stir_expr *x)
{
	struct vec_ctx *vc = e->vec;
	static const char comp[] = "xyzw";
	if (!vc || x->kind != STIR_EXPR_LOAD)
		return false;
	for (int i = 0; i < vc->n; i++) {
		if (vc->v[i].buf != x->u.load.buf ||
		    !cuda_expr_equal(e, vc->v[i].idx, x->u.load.idx[0]))
			continue;
		if (e->buf_used)
			e->buf_used[x->u.load.buf->index] = true;
		cg_putf(e->out, "stir_v%d_%d.%c", e->n_vec, vc->v[i].id,
			comp[vc->lane]);
		return true;
	}
	return false;
}

/* e, ctx, a: print &BUF[base] of vector a (lane 0). */
static void put_base(emitter *e, const ectx *ctx, const vacc *a)
{
	cg_put(e->out, "&");
	cuda_put_name(e, a->buf->name);
	cg_put(e->out, "[");
	cuda_expr(e, ctx, a->idx, P_TOP);
	cg_put(e->out, "]");
}

/* e, ctx, a, id, w: add atomic vector a of vector loop "id" to memory:
 * one vector atomic add on sm_90 and later, one per lane before. */
static void put_atomic(emitter *e, const ectx *ctx, const vacc *a, int id,
	int64_t w)
{
	static const char comp[] = "xyzw";
	cg_printer *p = e->out;
	cg_line(p, "#if __CUDA_ARCH__ >= 900");
	cg_indent(p);
	cg_putf(p, "atomicAdd((%s *)", vec_type(a->buf->dtype, w));
	put_base(e, ctx, a);
	cg_putf(p, ", stir_v%d_%d);\n", id, a->id);
	cg_line(p, "#else");
	for (int lane = 0; lane < w; lane++) {
		cg_indent(p);
		cg_put(p, "atomicAdd(");
		put_base(e, ctx, a);
		cg_putf(p, " + %d, stir_v%d_%d.%c);\n", lane, id, a->id, comp[lane]);
	}
	cg_line(p, "#endif");
}

/* e, vb, ctx, vc, w: the vector path (lane printing set up by the
 * caller). */
static void emit_lanes(emitter *e, const vbody *vb, const ectx *ctx,
	struct vec_ctx *vc, int64_t w)
{
	static const char comp[] = "xyzw";
	cg_printer *p = e->out;
	int id = e->n_vec;
	e->lane_val = 0;
	for (int i = 0; i < vc->n; i++) {
		const vacc *a = &vc->v[i];
		const char *vt = vec_type(a->buf->dtype, w);
		cg_indent(p);
		cg_putf(p, "%s stir_v%d_%d", vt, id, a->id);
		if (a->loaded) {
			cg_putf(p, " = *(const %s *)", vt);
			put_base(e, ctx, a);
		} else if (a->atomic) {
			cg_putf(p, " = make_%s(%s)", vt, w == 4 ?
				"0.0f, 0.0f, 0.0f, 0.0f" : "0.0f, 0.0f");
		}
		cg_put(p, ";\n");
	}
	for (int i = 0; i < vb->n_stores; i++) {
		const stir_stmt *s = vb->stores[i];
		int j;
		for (j = 0; j < vc->n; j++)
			if (vc->v[j].buf == s->u.store.buf &&
			    cuda_expr_equal(e, vc->v[j].idx, s->u.store.idx[0]))
				break;
		for (int lane = 0; lane < w; lane++) {
			vc->lane = lane;
			e->lane_val = lane;
			if (j == vc->n) {
				/* a scalar store of this lane */
				cuda_emit_store(e, s, ctx);
				continue;
			}
			cg_indent(p);
			cg_putf(p, "stir_v%d_%d.%c %s ", id, vc->v[j].id, comp[lane],
				stir_store_op_text(s->u.store.op));
			cuda_conv(e, ctx, s->u.store.value, s->u.store.buf->dtype,
				P_COND);
			cg_put(p, ";");
			cuda_put_loc_comment(e, s);
			cg_put(p, "\n");
		}
	}
	e->lane_val = 0;
	for (int i = 0; i < vc->n; i++) {
		const vacc *a = &vc->v[i];
		if (!a->stored)
			continue;
		if (a->atomic) {
			put_atomic(e, ctx, a, id, w);
			continue;
		}
		cg_indent(p);
		cg_putf(p, "*(%s *)", vec_type(a->buf->dtype, w));
		put_base(e, ctx, a);
		cg_putf(p, " = stir_v%d_%d;\n", id, a->id);
	}
}

/* e, s, ctx: the scalar form of loop s (unrolled), with the split guard
 * that lift_guards would lift out of it as an unrolled loop tested before
 * it (stir_nest_guard): a copy of the nest from s to the loop whose body
 * is the guard, that body the guard's, inside a copy of the guard. */
static void emit_scalar(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	stir_stmt copy = *s;
	copy.u.for_.kind = STIR_LOOP_UNROLL;
	const stir_stmt *g = stir_nest_guard(e->k, &copy);
	if (!g) {
		cuda_emit_stmt(e, &copy, ctx);
		return;
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
		cuda_error(e, s->loc, "out of memory");
		return;
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
	cuda_emit_stmt(e, &wrap, ctx);
	free(nest);
	free(one);
}

/* e, s, ctx: the scalar form of loop s printed nowhere: only its record
 * of the accesses (e->sum), for a vector path that has no fallback. */
static void emit_scalar_summary(emitter *e, const stir_stmt *s,
	const ectx *ctx)
{
	cg_printer scratch, *out = e->out;
	cg_printer_init(&scratch, out->indent);
	e->out = &scratch;
	emit_scalar(e, s, ctx);
	e->out = out;
	cg_printer_release(&scratch);
}

/* e, s, ctx: the vector path when plan_vectors allows one, and the
 * scalar loop (which alone records the accesses). */
void cuda_emit_vector_loop(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	const stir_var *v = s->u.for_.var;
	/* 2 or 4: cuda_verify_structure refused any other extent */
	int64_t w = s->u.for_.extent->u.i;
	vbody vb = { .ok = true };
	const stir_expr *guards[MAX_GUARDS];
	int n_guards;
	gather(e, peel_guards(e, &s->u.for_.body, v, guards, &n_guards),
		ctx->atomic, &vb);
	vuses *u = calloc(1, sizeof(*u));
	struct vec_ctx *vc = calloc(1, sizeof(*vc));
	bool *inner = calloc((size_t)e->k->n_vars + 1, sizeof(bool));
	if (!u || !vc || !inner) {
		free(u);
		free(vc);
		free(inner);
		cuda_error(e, s->loc, "out of memory");
		return;
	}
	for (int i = 0; vb.ok && i < vb.n_stores; i++) {
		const stir_stmt *st = vb.stores[i];
		loads(st->u.store.value, u);
		loads(st->u.store.idx[0], u);
		use(u, st->u.store.buf, st->u.store.idx[0], true, st->u.store.op,
			vb.atomic[i]);
	}
	if (!vb.ok || u->overflow || !plan_vectors(e, vc, u, v, w)) {
		emit_scalar(e, s, ctx);
		goto out;
	}
	/* print the lanes with w replaced by the lane number and the blocks'
	 * variables by their bindings; the scalar fallback records the
	 * accesses */
	cg_printer *p = e->out;
	cuda_mark_defined(s, inner);
	summary *sum = e->sum;
	e->sum = NULL;
	e->lane_var = v;
	e->resolve = inner;
	e->vec = vc;
	cg_line(p, "// loop '%s' vectorized: %" PRId64 " lanes", v->name, w);
	if (n_guards) {
		/* the addresses below may be read only where the guards hold */
		cg_indent(p);
		cg_put(p, "if (");
		e->vec = NULL;
		for (int i = 0; i < n_guards; i++) {
			cg_put(p, i ? " && " : "");
			cuda_expr(e, ctx, guards[i], n_guards > 1 ? P_AND + 1 : P_TOP);
		}
		cg_put(p, ") {\n");
		p->indent++;
	}
	/* with aligned buffers (STIR_CUDA_ALIGNED_BUFFERS), vectors in global
	 * memory at multiples of w need no check and no fallback */
	bool check = !(e->flags & STIR_CUDA_ALIGNED_BUFFERS);
	for (int i = 0; !check && i < vc->n; i++) {
		int64_t r;
		check = vc->v[i].buf->scope != STIR_SCOPE_GLOBAL ||
			!known_residue(e, vc->v[i].idx, v, w, &r) || r != 0;
	}
	if (check) {
		cg_indent(p);
		cg_put(p, "if (");
		for (int i = 0; i < vc->n; i++) {
			const vacc *a = &vc->v[i];
			size_t bytes = (size_t)w * stir_dtype_size(a->buf->dtype);
			int64_t r;
			e->vec = NULL;
			cg_putf(p, "%s(unsigned long long)", i ? " && " : "");
			if (known_residue(e, a->idx, v, w, &r) && r == 0) {
				/* the index is a multiple of w: only the buffer's
				 * address decides, the same for every iteration */
				cuda_put_name(e, a->buf->name);
			} else {
				put_base(e, ctx, a);
			}
			cg_putf(p, " %% %zu == 0", bytes);
		}
		cg_put(p, ") {\n");
		p->indent++;
	}
	e->vec = vc;
	emit_lanes(e, &vb, ctx, vc, w);
	e->vec = NULL;
	e->lane_var = NULL;
	e->resolve = NULL;
	e->n_vec++;
	e->sum = sum;
	if (check) {
		p->indent--;
		cg_line(p, "} else {");
		p->indent++;
		emit_scalar(e, s, ctx);
		p->indent--;
		cg_line(p, "}");
	} else {
		/* the scalar loop alone records the accesses */
		emit_scalar_summary(e, s, ctx);
	}
	if (n_guards) {
		p->indent--;
		cg_line(p, "}");
	}
out:
	free(u);
	free(vc);
	free(inner);
}
