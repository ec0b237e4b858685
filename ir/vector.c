/* The vector plan of a vectorized loop (ir/vector.h, docs/cuda.md
 * "vectorize").
 *
 * A loop "for w in [0, W) vectorize" (W = 2 or 4) whose body is stores in
 * blocks, without lets, conditions or inner loops (except conditions that
 * wrap the whole body and do not use w, such as split's tail guards, which
 * are tested once for all lanes), may run its W iterations as lanes:
 * every access BUF[base + w] to a float, int (W = 2 or 4) or double
 * (W = 2) buffer in global or shared memory becomes one vector of the
 * plan; the other accesses stay scalar, one per lane.  Every statement
 * runs for all lanes before the next, which keeps the meaning only when
 * no lane touches what another lane writes: every access to a buffer the
 * body stores into must use the same index, which must move with w.
 * Otherwise the loop has no plan and runs as its scalar loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir/affine.h"
#include "ir/arena.h"
#include "ir/diag.h"
#include "ir/layout.h"
#include "ir/ops.h"
#include "ir/util.h"
#include "ir/vector.h"
#include "ir/visit.h"

/* The analysis of a loop body. */
typedef struct vbody {
	stir_vec_plan *p;          /* receives the stores */
	bool ok;                   /* a vector path is possible */
} vbody;

/* x, v, expand, user, c: the coefficient of variable v in integer
 * expression x (block variables replaced by their bindings).  false when
 * x is not affine in v with a literal coefficient. */
static bool lin_coeff(const stir_expr *x, const stir_var *v,
	stir_vec_expand expand, const void *user, int64_t *c)
{
	stir_affine_opts o = { .flags = STIR_AFFINE_NEG |
		STIR_AFFINE_WIDENING_CASTS | STIR_AFFINE_OPAQUE,
		.expand = expand, .user = user };
	return stir_affine_coef_of(x, v, &o, c);
}

/* x, v, w, expand, user, r: see vector.h. */
bool stir_vec_known_residue(const stir_expr *x, const stir_var *v,
	int64_t w, stir_vec_expand expand, const void *user, int64_t *r)
{
	int64_t a, b;
	const stir_expr *bound;
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
		bound = expand && x->u.var->kind == STIR_VAR_BLOCK ?
			expand(x->u.var, user) : NULL;
		return bound &&
			stir_vec_known_residue(bound, v, w, expand, user, r);
	case STIR_EXPR_CAST:
		return stir_int_rank(x->dtype) >= stir_int_rank(x->u.cast.a->dtype) &&
			stir_vec_known_residue(x->u.cast.a, v, w, expand, user, r);
	case STIR_EXPR_BINARY: {
		const stir_expr *l = x->u.binary.a, *rt = x->u.binary.b;
		bool kl = stir_vec_known_residue(l, v, w, expand, user, &a);
		bool kr = stir_vec_known_residue(rt, v, w, expand, user, &b);
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

/* list, atomic, vb: gather the stores of a vectorizable body; atomic: its
 * stores are in an atomic block, which is fine for stores into local
 * memory (they are never atomic) and for float adds into global memory
 * (vector_atomic).  The store of a cross-thread block is printed per lane
 * by the emitter, as its thread's part of the reduction. */
static void gather(const stir_ptr_vec *list, bool atomic, vbody *vb)
{
	stir_vec_plan *p = vb->p;
	for (int i = 0; i < list->n && vb->ok; i++) {
		const stir_stmt *s = stir_stmt_at(list, i);
		if (s->kind == STIR_STMT_STORE && p->n_stores < STIR_VEC_MAX_STORES &&
		    s->u.store.buf->scope != STIR_SCOPE_WARP &&
		    (!atomic || s->u.store.buf->scope == STIR_SCOPE_LOCAL ||
		     vector_atomic(s, atomic))) {
			p->store_atomic[p->n_stores] = vector_atomic(s, atomic);
			p->stores[p->n_stores++] = s;
		}
		else if (s->kind == STIR_STMT_BLOCK &&
		    !(s->u.block.flags & ~(STIR_BLOCK_ATOMIC |
		    STIR_BLOCK_CROSS_THREAD)))
			gather(&s->u.block.body,
				atomic || (s->u.block.flags & STIR_BLOCK_ATOMIC), vb);
		else
			vb->ok = false;
	}
}

/* body, v, expand, user, p: the statements under the conditions that
 * wrap all of body without using v (at most STIR_VEC_MAX_GUARDS, into
 * p->guards). */
static const stir_ptr_vec *peel_guards(const stir_ptr_vec *body,
	const stir_var *v, stir_vec_expand expand, const void *user,
	stir_vec_plan *p)
{
	p->n_guards = 0;
	while (body->n == 1 && p->n_guards < STIR_VEC_MAX_GUARDS) {
		const stir_stmt *s = stir_stmt_at(body, 0);
		stir_uses u = { .var = v, .first = true, .expand = expand,
			.expand_user = user };
		if (s->kind != STIR_STMT_IF || s->u.if_.else_body.n)
			break;
		stir_uses_expr(&u, s->u.if_.cond);
		if (u.var_uses > 0)
			break;
		p->guards[p->n_guards++] = s->u.if_.cond;
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
	vuse u[4 * STIR_VEC_MAX_STORES];
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

/* t, w: see vector.h. */
const char *stir_vec_type(stir_dtype t, int64_t w)
{
	if (t == STIR_F32)
		return w == 4 ? "float4" : "float2";
	if (t == STIR_I32)
		return w == 4 ? "int4" : "int2";
	if (t == STIR_F64 && w == 2)
		return "double2";
	return NULL;
}

/* a, b, expand, user: a and b are the same index (NULL equals nothing). */
static bool same(const stir_expr *a, const stir_expr *b,
	stir_vec_expand expand, const void *user)
{
	stir_eq eq = { STIR_EQ_NULL_UNEQUAL, expand, NULL, user };
	return stir_expr_equal(&eq, a, b);
}

/* p, buf, idx, expand, user: see vector.h. */
int stir_vec_find(const stir_vec_plan *p, const stir_buffer *buf,
	const stir_expr *idx, stir_vec_expand expand, const void *user)
{
	for (int i = 0; i < p->n; i++)
		if (p->v[i].buf == buf && same(p->v[i].idx, idx, expand, user))
			return i;
	return -1;
}

/* p, u, v, expand, user: plan the vectors: refuse (false) when lanes
 * could see each other's stores; otherwise one vector per contiguous
 * access that has a vector type. */
static bool plan_vectors(stir_vec_plan *p, const vuses *u,
	const stir_var *v, stir_vec_expand expand, const void *user)
{
	int64_t w = p->width;
	for (int i = 0; i < u->n; i++) {
		const vuse *s = &u->u[i];
		int64_t c;
		if (!s->store)
			continue;
		for (int j = 0; j < u->n; j++) {
			const vuse *o = &u->u[j];
			if (o->buf != s->buf)
				continue;
			if (!o->idx || !same(o->idx, s->idx, expand, user) ||
			    !lin_coeff(o->idx, v, expand, user, &c) || c == 0)
				return false;
			/* an atomic add is the buffer's only access, one lane
			 * an element, of a type that has vector atomics */
			if ((s->atomic || o->atomic) && (!o->atomic || c != 1 ||
			    !stir_vec_type(s->buf->dtype, w)))
				return false;
		}
	}
	for (int i = 0; i < u->n; i++) {
		const vuse *s = &u->u[i];
		int64_t c;
		if (!s->idx || s->buf->scope == STIR_SCOPE_LOCAL ||
		    s->buf->scope == STIR_SCOPE_WARP ||
		    !stir_vec_type(s->buf->dtype, w) ||
		    !lin_coeff(s->idx, v, expand, user, &c) || c != 1)
			continue;
		int j = stir_vec_find(p, s->buf, s->idx, expand, user);
		if (j < 0) {
			if (p->n == STIR_VEC_MAX)
				return false;
			j = p->n++;
			p->v[j] = (stir_vec_access){ .buf = s->buf, .idx = s->idx,
				.id = j };
		}
		/* a vector read before its first store is loaded; the lanes of an
		 * atomic one start from 0 */
		p->v[j].atomic = s->atomic;
		if (!s->store && !p->v[j].stored)
			p->v[j].loaded = true;
		if (s->store && s->op != STIR_STORE_ASSIGN && !p->v[j].stored &&
		    !s->atomic)
			p->v[j].loaded = true;
		if (s->store)
			p->v[j].stored = true;
	}
	return p->n > 0;
}

/* loop, atomic, expand, user, p: see vector.h. */
int stir_vec_plan_loop(const stir_stmt *loop, bool atomic,
	stir_vec_expand expand, const void *user, stir_vec_plan *p)
{
	const stir_var *v = loop->u.for_.var;
	*p = (stir_vec_plan){ .width = loop->u.for_.extent->u.i };
	vbody vb = { .p = p, .ok = true };
	gather(peel_guards(&loop->u.for_.body, v, expand, user, p), atomic,
		&vb);
	if (!vb.ok)
		return 0;
	vuses *u = calloc(1, sizeof(*u));
	if (!u)
		return -1;
	for (int i = 0; i < p->n_stores; i++) {
		const stir_stmt *st = p->stores[i];
		loads(st->u.store.value, u);
		loads(st->u.store.idx[0], u);
		use(u, st->u.store.buf, st->u.store.idx[0], true, st->u.store.op,
			p->store_atomic[i]);
	}
	int r = !u->overflow && plan_vectors(p, u, v, expand, user);
	free(u);
	return r;
}

/* The walk of stir_vec_plan_kernel. */
typedef struct vwalk {
	const stir_expr **binding; /* per variable slot: its block's binding */
	int atomic;                /* atomic blocks around the statement */
	stir_vec_fn fn;            /* called on each plan, or NULL: */
	const stir_kernel *verify; /* check the annotations of this kernel */
	void *user;
	stir_vec_plan *p;          /* scratch */
	bool oom;
	bool failed;               /* an annotation was refused */
} vwalk;

static void check_note(vwalk *w, const stir_stmt *loop, int r);

/* v, user: a block variable's binding (user: the vwalk). */
static const stir_expr *binding_of(const stir_var *v, const void *user)
{
	const vwalk *w = user;
	return v->kind == STIR_VAR_BLOCK ? w->binding[v->slot] : NULL;
}

/* s, user: stmt_pre of the first walk: note block s's bindings (user:
 * the vwalk). */
static stir_visit_step note_bindings(stir_stmt *s, void *user)
{
	vwalk *w = user;
	if (s->kind == STIR_STMT_BLOCK)
		for (int i = 0; i < s->u.block.n_vars; i++)
			w->binding[s->u.block.vars[i]->slot] =
				s->u.block.bindings[i];
	return STIR_VISIT_GO;
}

/* s, user: stmt_pre of the second walk: enter an atomic block, or plan a
 * vectorized loop (user: the vwalk). */
static stir_visit_step plan_stmt(stir_stmt *s, void *user)
{
	vwalk *w = user;
	const stir_expr *ext;
	if (s->kind == STIR_STMT_BLOCK && (s->u.block.flags & STIR_BLOCK_ATOMIC))
		w->atomic++;
	if (s->kind != STIR_STMT_FOR)
		return STIR_VISIT_GO;
	ext = s->u.for_.extent;
	bool plannable = s->u.for_.kind == STIR_LOOP_VECTORIZE &&
		ext->kind == STIR_EXPR_INT && (ext->u.i == 2 || ext->u.i == 4);
	if (w->verify && w->verify->stage != STIR_STAGE_3)
		plannable = false;
	if (w->verify && s->u.for_.planned && !plannable) {
		stir_error(stir_kernel_ctx(w->verify), s->loc, "loop '%s' has a "
			"vector plan, but only a vectorized loop of extent 2 or 4 "
			"in a stage III kernel has one", s->u.for_.var->name);
		w->failed = true;
		return STIR_VISIT_GO;
	}
	if (!plannable || (w->verify && !s->u.for_.planned))
		return STIR_VISIT_GO;
	int r = stir_vec_plan_loop(s, w->atomic > 0, binding_of, w, w->p);
	if (r < 0) {
		w->oom = true;
		return STIR_VISIT_STOP;
	}
	if (w->verify)
		check_note(w, s, r);
	else
		w->fn(s, r ? w->p : NULL, w->user);
	return STIR_VISIT_GO;
}

/* s, user: stmt_post of the second walk: leave an atomic block. */
static stir_visit_step leave_stmt(stir_stmt *s, void *user)
{
	vwalk *w = user;
	if (s->kind == STIR_STMT_BLOCK && (s->u.block.flags & STIR_BLOCK_ATOMIC))
		w->atomic--;
	return STIR_VISIT_GO;
}

/* w, k: the walks of stir_vec_plan_kernel (w: what they do). */
static void walk_kernel(vwalk *w, const stir_kernel *k)
{
	w->binding = calloc((size_t)k->n_vars + 1, sizeof(*w->binding));
	w->p = malloc(sizeof(*w->p));
	if (w->binding && w->p) {
		stir_visitor first = { .stmt_pre = note_bindings, .user = w };
		stir_visitor second = { .stmt_pre = plan_stmt,
			.stmt_post = leave_stmt, .user = w };
		stir_visit_list(&first, (stir_ptr_vec *)&k->body);
		stir_visit_list(&second, (stir_ptr_vec *)&k->body);
	} else {
		w->oom = true;
	}
	free(w->binding);
	free(w->p);
}

/* k, fn, user: see vector.h. */
int stir_vec_plan_kernel(const stir_kernel *k, stir_vec_fn fn, void *user)
{
	vwalk w = { .fn = fn, .user = user };
	walk_kernel(&w, k);
	return w.oom ? -1 : 0;
}

/* k: see vector.h. */
int stir_vec_verify_kernel(const stir_kernel *k)
{
	vwalk w = { .verify = k };
	walk_kernel(&w, k);
	if (w.oom)
		stir_error_oom(stir_kernel_ctx(k));
	return w.oom || w.failed ? -1 : 0;
}

/* ---- the plan as the loop's annotation ------------------------------- */

/* flags, buf, size: see vector.h. */
const char *stir_vec_flags_text(unsigned flags, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s%s",
		flags & STIR_VEC_LOAD ? "load" : "",
		(flags & STIR_VEC_LOAD) && (flags & ~STIR_VEC_LOAD) ? " " : "",
		flags & STIR_VEC_STORE ? "store" : "",
		(flags & STIR_VEC_STORE) && (flags & STIR_VEC_ATOMIC) ? " " : "",
		flags & STIR_VEC_ATOMIC ? "atomic" : "");
	return buf;
}

/* a: the STIR_VEC_* flags of vector a. */
static unsigned vec_flags(const stir_vec_access *a)
{
	return (a->loaded ? STIR_VEC_LOAD : 0) |
		(a->stored ? STIR_VEC_STORE : 0) |
		(a->atomic ? STIR_VEC_ATOMIC : 0);
}

/* The substitution of stir_vec_annotate. */
typedef struct inner_subst {
	stir_kernel *k;
	stir_subst s;              /* block variable -> its binding, expanded */
	bool oom;
} inner_subst;

/* s, user: stmt_pre of stir_vec_annotate's walk (user: the inner_subst):
 * a block's variables become their bindings, themselves expanded by the
 * blocks around it. */
static stir_visit_step add_inner(stir_stmt *s, void *user)
{
	inner_subst *in = user;
	if (s->kind != STIR_STMT_BLOCK)
		return STIR_VISIT_GO;
	for (int i = 0; i < s->u.block.n_vars; i++) {
		stir_expr *b = stir_expr_copy(in->k, s->u.block.bindings[i],
			&in->s);
		if (!b || stir_subst_add_expr(&in->s, s->u.block.vars[i], b) < 0) {
			in->oom = true;
			return STIR_VISIT_STOP;
		}
	}
	return STIR_VISIT_GO;
}

/* k, loop, p: see vector.h. */
int stir_vec_annotate(stir_kernel *k, stir_stmt *loop,
	const stir_vec_plan *p)
{
	int n = p ? p->n : 0;
	stir_vec_note *notes = NULL;
	if (n) {
		inner_subst in = { .k = k };
		stir_visitor v = { .stmt_pre = add_inner, .user = &in };
		stir_visit_list(&v, &loop->u.for_.body);
		notes = in.oom ? NULL : stir_arena_alloc(stir_kernel_arena(k),
			(size_t)n * sizeof(*notes));
		for (int i = 0; notes && i < n; i++) {
			const stir_vec_access *a = &p->v[i];
			stir_expr *idx = stir_expr_copy(k, a->idx, &in.s);
			notes[i] = (stir_vec_note){ .flags = vec_flags(a),
				.loc = loop->loc, .access = idx ?
				stir_mk_load1(k, (stir_buffer *)a->buf, idx) : NULL };
			if (!notes[i].access)
				notes = NULL;
		}
		stir_subst_release(&in.s);
		if (!notes)
			return -1;
	}
	loop->u.for_.planned = true;
	loop->u.for_.n_vecs = n;
	loop->u.for_.vecs = notes;
	return 0;
}

/* list, p: the stores of the body of a loop that has a vector path, in
 * the order gather takes them; false when it holds anything else. */
static bool note_stores(const stir_ptr_vec *list, stir_vec_plan *p)
{
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *s = stir_stmt_at(list, i);
		if (s->kind == STIR_STMT_STORE && p->n_stores < STIR_VEC_MAX_STORES)
			p->stores[p->n_stores++] = s;
		else if (s->kind != STIR_STMT_BLOCK ||
		    (s->u.block.flags & ~(STIR_BLOCK_ATOMIC |
		    STIR_BLOCK_CROSS_THREAD)) ||
		    !note_stores(&s->u.block.body, p))
			return false;
	}
	return true;
}

/* What first_access looks for. */
typedef struct access_find {
	const stir_buffer *buf;
	const stir_expr *idx;      /* the note's index */
	stir_vec_expand expand;
	const void *user;
	const stir_expr *found;    /* receives the body's index */
} access_find;

/* slot, user: expr_pre of first_access: stop at a load of the
 * access_find's element. */
static stir_visit_step find_load(stir_expr **slot, void *user)
{
	access_find *f = user;
	const stir_expr *x = *slot;
	if (x->kind != STIR_EXPR_LOAD || x->u.load.buf != f->buf ||
	    !same(x->u.load.idx[0], f->idx, f->expand, f->user))
		return STIR_VISIT_GO;
	f->found = x->u.load.idx[0];
	return STIR_VISIT_STOP;
}

/* p, f: the body's first access (in the order of stir_vec_plan_loop's
 * uses: a store's value, its index, then the store) to f's element. */
static const stir_expr *first_access(const stir_vec_plan *p,
	access_find *f)
{
	stir_visitor v = { .expr_pre = find_load, .user = f };
	for (int i = 0; i < p->n_stores; i++) {
		stir_stmt *st = (stir_stmt *)p->stores[i];
		if (stir_visit_expr(&v, &st->u.store.value) ||
		    stir_visit_expr(&v, &st->u.store.idx[0]))
			return f->found;
		if (st->u.store.buf == f->buf &&
		    same(st->u.store.idx[0], f->idx, f->expand, f->user))
			return st->u.store.idx[0];
	}
	return NULL;
}

/* loop, expand, user, p: see vector.h. */
int stir_vec_plan_from_note(const stir_stmt *loop, stir_vec_expand expand,
	const void *user, stir_vec_plan *p)
{
	int n = loop->u.for_.n_vecs;
	*p = (stir_vec_plan){ .width = loop->u.for_.extent->u.i };
	if (n == 0)
		return 0;
	if (n > STIR_VEC_MAX || !note_stores(peel_guards(&loop->u.for_.body,
	    loop->u.for_.var, expand, user, p), p))
		return -1;
	for (int j = 0; j < n; j++) {
		const stir_vec_note *nt = &loop->u.for_.vecs[j];
		access_find f = { .buf = nt->access->u.load.buf,
			.idx = nt->access->u.load.idx[0], .expand = expand,
			.user = user };
		const stir_expr *idx = first_access(p, &f);
		if (!idx)
			return -1;
		p->v[j] = (stir_vec_access){ .buf = f.buf, .idx = idx, .id = j,
			.loaded = nt->flags & STIR_VEC_LOAD,
			.stored = nt->flags & STIR_VEC_STORE,
			.atomic = nt->flags & STIR_VEC_ATOMIC };
	}
	p->n = n;
	for (int i = 0; i < p->n_stores; i++) {
		const stir_stmt *st = p->stores[i];
		int j = stir_vec_find(p, st->u.store.buf, st->u.store.idx[0],
			expand, user);
		p->store_atomic[i] = j >= 0 && p->v[j].atomic;
	}
	return 1;
}

/* w, loop, r: compare the annotation of planned loop "loop" with its
 * plan (w->p when r is 1, none when 0). */
static void check_note(vwalk *w, const stir_stmt *loop, int r)
{
	const stir_vec_plan *p = w->p;
	int have = r ? p->n : 0, n = loop->u.for_.n_vecs;
	char why[256], a[32], b[32];
	stir_loc at = loop->loc;
	why[0] = '\0';
	if (n != have) {
		snprintf(why, sizeof(why), "it has %d vector%s, the body %d", n,
			n == 1 ? "" : "s", have);
	}
	for (int i = 0; !why[0] && i < n; i++) {
		const stir_vec_note *nt = &loop->u.for_.vecs[i];
		const stir_vec_access *v = &p->v[i];
		const stir_expr *x = nt->access;
		if (nt->loc.line > 0)
			at = nt->loc;
		if (x->u.load.buf != v->buf || !same(x->u.load.idx[0], v->idx,
		    binding_of, w))
			snprintf(why, sizeof(why), "its vector %d is not the body's "
				"(an access of '%s')", i, v->buf->name);
		else if (nt->flags != vec_flags(v))
			snprintf(why, sizeof(why), "its vector %d is '%s', the body's "
				"'%s'", i, stir_vec_flags_text(nt->flags, a, sizeof(a)),
				stir_vec_flags_text(vec_flags(v), b, sizeof(b)));
	}
	if (!why[0])
		return;
	stir_error(stir_kernel_ctx(w->verify), at, "the vector plan of "
		"loop '%s' is not that of its body: %s", loop->u.for_.var->name,
		why);
	w->failed = true;
}
