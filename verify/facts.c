/* What the GPU verifier's walk and the CUDA emitter both ask of the IR
 * (verify/gpu.h): static facts about statements and thread contexts (the
 * indices the loops in a statement bind, whether it stores where other
 * threads see, whether a list uses a buffer, the variables a statement
 * defines, the warp buffer a fill loop fills, the cross-thread reduction
 * a store belongs to), and the variables' facts (gpu_facts: what each
 * variable's value depends on among the thread indices, each block
 * variable's binding) with the questions they answer.  Each is a
 * function of the IR (and of the context given), not of an emitter. */
#include <stdlib.h>
#include "verify/gpu.h"
#include "ir/visit.h"

/* s, user: stmt_pre of bound_inside: add the index a bound loop binds to
 * the mask *user. */
static stir_visit_step add_bound(stir_stmt *s, void *user)
{
	if (s->kind == STIR_STMT_FOR && s->u.for_.kind == STIR_LOOP_BIND)
		*(unsigned *)user |= DIM_BIT(s->u.for_.thread);
	/* a tensorized nest runs on the lanes of threadIdx.x */
	if (s->kind == STIR_STMT_FOR && s->u.for_.kind == STIR_LOOP_TENSORIZE)
		*(unsigned *)user |= DIM_BIT(STIR_THREAD_X);
	return STIR_VISIT_GO;
}

/* s: see verify/gpu.h. */
unsigned cuda_bound_inside(const stir_stmt *s)
{
	unsigned b = 0;
	stir_visitor v = { .stmt_pre = add_bound, .user = &b };
	stir_visit_stmt(&v, (stir_stmt *)s);
	return b;
}

/* s, user: stmt_pre of stores_shared_data: stop at a store into a global
 * or shared buffer. */
static stir_visit_step shared_store(stir_stmt *s, void *user)
{
	(void)user;
	if (s->kind == STIR_STMT_STORE &&
	    s->u.store.buf->scope != STIR_SCOPE_LOCAL &&
	    s->u.store.buf->scope != STIR_SCOPE_WARP)
		return STIR_VISIT_STOP;
	return STIR_VISIT_GO;
}

/* s: see verify/gpu.h. */
bool cuda_stores_shared_data(const stir_stmt *s)
{
	stir_visitor v = { .stmt_pre = shared_store };
	return stir_visit_stmt(&v, (stir_stmt *)s);
}

/* What cuda_list_uses looks for. */
typedef struct buf_use {
	const stir_buffer *buf;    /* the buffer */
	const stir_stmt *except;   /* a store whose target does not count */
	stir_loc *where;           /* receives the location of the use */
} buf_use;

/* s, user: stmt_pre of cuda_list_uses: stop at a statement (a buf_use)
 * whose own expressions read the buffer, or that stores into it. */
static stir_visit_step uses_buf(stir_stmt *s, void *user)
{
	const buf_use *u = user;
	bool r = s->kind == STIR_STMT_STORE && s != u->except &&
		s->u.store.buf == u->buf;
	stir_expr **x;
	for (int i = 0; !r && (x = stir_stmt_expr(s, i, 0)); i++)
		r = *x && stir_expr_reads(*x, u->buf);
	if (!r)
		return STIR_VISIT_GO;
	*u->where = s->loc;
	return STIR_VISIT_STOP;
}

/* list, buf, except, where: see verify/gpu.h. */
bool cuda_list_uses(const stir_ptr_vec *list, const stir_buffer *buf,
	const stir_stmt *except, stir_loc *where)
{
	buf_use u = { .buf = buf, .except = except, .where = where };
	stir_visitor v = { .stmt_pre = uses_buf, .user = &u };
	return stir_visit_list(&v, (stir_ptr_vec *)list);
}

/* s, user: stmt_pre of cuda_mark_defined: mark the variables s binds in
 * the array *user (by slot). */
static stir_visit_step mark_binds(stir_stmt *s, void *user)
{
	bool *inner = user;
	int n;
	stir_var **vars = stir_stmt_binds(s, &n, NULL);
	for (int i = 0; i < n; i++)
		inner[vars[i]->slot] = true;
	return STIR_VISIT_GO;
}

/* s, inner: see verify/gpu.h. */
void cuda_mark_defined(const stir_stmt *s, bool *inner)
{
	stir_visitor v = { .stmt_pre = mark_binds, .user = inner };
	stir_visit_stmt(&v, (stir_stmt *)s);
}

/* s, user: stmt_pre of cuda_warp_fill_of: stop at a store into a warp
 * buffer (*user receives it); do not enter loops. */
static stir_visit_step find_fill(stir_stmt *s, void *user)
{
	if (s->kind == STIR_STMT_FOR || s->kind == STIR_STMT_ITER)
		return STIR_VISIT_SKIP;
	if (s->kind != STIR_STMT_STORE ||
	    s->u.store.buf->scope != STIR_SCOPE_WARP)
		return STIR_VISIT_GO;
	*(const stir_buffer **)user = s->u.store.buf;
	return STIR_VISIT_STOP;
}

/* list: see verify/gpu.h. */
const stir_buffer *cuda_warp_fill_of(const stir_ptr_vec *list)
{
	const stir_buffer *b = NULL;
	stir_visitor v = { .stmt_pre = find_fill, .user = &b };
	stir_visit_list(&v, (stir_ptr_vec *)list);
	return b;
}

/* s: see verify/gpu.h. */
gpu_form gpu_form_of(const stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_STORE:
		return GPU_FORM_STORE;
	case STIR_STMT_LET:
		return GPU_FORM_LET;
	case STIR_STMT_IF:
		return GPU_FORM_IF;
	case STIR_STMT_BLOCK:
		return GPU_FORM_BLOCK;
	case STIR_STMT_BARRIER:
		return GPU_FORM_BARRIER;
	case STIR_STMT_ITER:
		return GPU_FORM_REFUSED;
	case STIR_STMT_FOR:
		break;
	}
	switch (s->u.for_.kind) {
	case STIR_LOOP_BIND:
		return GPU_FORM_BOUND_LOOP;
	case STIR_LOOP_VECTORIZE:
		return GPU_FORM_VECTOR_LOOP;
	case STIR_LOOP_TENSORIZE:
		return GPU_FORM_MMA;
	case STIR_LOOP_PIPELINE:
		return GPU_FORM_PIPELINE;
	default:
		return cuda_warp_fill_of(&s->u.for_.body) ? GPU_FORM_WARP_FILL :
			GPU_FORM_SERIAL_LOOP;
	}
}

/* list, i: see verify/gpu.h. */
int gpu_group_end(const stir_ptr_vec *list, int i)
{
	while (i + 1 < list->n && stir_stmt_at(list, i)->kind == STIR_STMT_LET &&
	    stir_stmt_at(list, i)->u.let.hoisted)
		i++;
	return i;
}

/* atomic, buf, op: see verify/gpu.h. */
bool gpu_store_is_atomic(bool atomic, const stir_buffer *buf,
	stir_store_op op)
{
	return atomic && op != STIR_STORE_ASSIGN &&
		buf->scope != STIR_SCOPE_LOCAL && buf->scope != STIR_SCOPE_WARP;
}

/* s, unbound: see verify/gpu.h. */
unsigned gpu_guard_dims(const stir_stmt *s, unsigned unbound)
{
	return unbound && cuda_stores_shared_data(s) &&
		!(cuda_bound_inside(s) & unbound) ? unbound : 0;
}

/* ctx, s: see verify/gpu.h. */
red *cuda_red_of(const ectx *ctx, const stir_stmt *s)
{
	for (red *r = ctx->red; r; r = r->next)
		if (r->store == s)
			return r;
	return NULL;
}

/* r: see verify/gpu.h. */
void cuda_free_reds(red *r)
{
	while (r) {
		red *n = r->next;
		free(r);
		r = n;
	}
}

/* x: is x a power of two? */
bool cuda_is_pow2(int64_t x)
{
	return x > 0 && (x & (x - 1)) == 0;
}

/* ---- the variables' facts ---------------------------------------------- */

/* f, v: v's binding when it is a block variable, else NULL. */
static const stir_expr *binding_of(const gpu_facts *f, const stir_var *v)
{
	return v->kind == STIR_VAR_BLOCK ? f->binding[v->slot] : NULL;
}

/* v, user: see verify/gpu.h. */
const stir_expr *cuda_binding_hook(const stir_var *v, const void *user)
{
	return binding_of(user, v);
}

/* f, a, b: see verify/gpu.h. */
bool cuda_expr_equal(const gpu_facts *f, const stir_expr *a,
	const stir_expr *b)
{
	stir_eq eq = { STIR_EQ_NULL_UNEQUAL, cuda_binding_hook, NULL, f };
	return stir_expr_equal(&eq, a, b);
}

/* What cuda_expr_deps adds up. */
typedef struct deps {
	const gpu_facts *f;        /* the variables' facts */
	unsigned d;                /* the DIM_BITs found so far */
} deps;

/* slot, user: expr_pre of cuda_expr_deps: add what expression *slot
 * itself depends on to the deps. */
static stir_visit_step add_deps(stir_expr **slot, void *user)
{
	deps *d = user;
	const stir_expr *x = *slot;
	if (x->kind == STIR_EXPR_VAR) {
		d->d |= d->f->dep[x->u.var->slot];
	} else if (x->kind == STIR_EXPR_LOAD) {
		/* a register array may hold a different value in every
		 * thread; a warp buffer's lanes share their copy */
		if (x->u.load.buf->scope == STIR_SCOPE_LOCAL)
			d->d |= THREAD_DIMS;
		else if (x->u.load.buf->scope == STIR_SCOPE_WARP)
			d->d |= THREAD_DIMS & ~DIM_BIT(STIR_THREAD_X);
	} else if (x->kind == STIR_EXPR_SEARCH &&
	    x->u.search.buf->scope == STIR_SCOPE_LOCAL) {
		d->d |= THREAD_DIMS;
	}
	return STIR_VISIT_GO;
}

/* f, x: see verify/gpu.h. */
unsigned cuda_expr_deps(const gpu_facts *f, const stir_expr *x)
{
	deps d = { .f = f };
	stir_visitor v = { .expr_pre = add_deps, .user = &d };
	stir_expr *root = (stir_expr *)x;
	stir_visit_expr(&v, &root);
	return d.d;
}

/* f, x, v: see verify/gpu.h. */
bool cuda_expr_uses(const gpu_facts *f, const stir_expr *x,
	const stir_var *v)
{
	stir_uses u = { .var = v, .first = true, .expand = cuda_binding_hook,
		.expand_user = f };
	stir_uses_expr(&u, x);
	return u.var_uses > 0;
}

/* What cuda_inner_var looks for. */
typedef struct inner_find {
	const gpu_facts *f;        /* the variables' facts (block bindings) */
	const bool *inner;         /* the variables looked for, by slot */
	const stir_var *found;     /* receives the first one */
} inner_find;

/* slot, user: expr_pre of cuda_inner_var: stop at a variable marked in
 * the inner_find's array, a block variable being its binding. */
static stir_visit_step find_inner(stir_expr **slot, void *user)
{
	inner_find *fi = user;
	const stir_expr *x = *slot;
	if (x->kind != STIR_EXPR_VAR || !fi->inner[x->u.var->slot])
		return STIR_VISIT_GO;
	if (x->u.var->kind == STIR_VAR_BLOCK && fi->f->binding[x->u.var->slot])
		fi->found = cuda_inner_var(fi->f, fi->f->binding[x->u.var->slot],
			fi->inner);
	else
		fi->found = x->u.var;
	return fi->found ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* f, x, inner: see verify/gpu.h. */
const stir_var *cuda_inner_var(const gpu_facts *f, const stir_expr *x,
	const bool *inner)
{
	inner_find fi = { .f = f, .inner = inner };
	stir_visitor v = { .expr_pre = find_inner, .user = &fi };
	stir_expr *root = (stir_expr *)x;
	stir_visit_expr(&v, &root);
	return fi.found;
}

/* f, L, r, inner: see verify/gpu.h. */
int64_t cuda_red_elems(const gpu_facts *f, const stir_stmt *L, const red *r,
	const bool *inner)
{
	const stir_stmt *st = r->store;
	const stir_buffer *buf = st->u.store.buf;
	const stir_expr *n = buf->extent;
	if (cuda_inner_var(f, st->u.store.idx[0], inner) &&
	    buf->scope == STIR_SCOPE_LOCAL && n && n->kind == STIR_EXPR_INT &&
	    n->u.i >= 1 && n->u.i <= 32 &&
	    !cuda_expr_uses(f, st->u.store.idx[0], L->u.for_.var))
		return n->u.i;
	return 0;
}

/* s, user: stmt_pre of cuda_facts_init: the facts of the variables s
 * binds (user: the gpu_facts), in the order they are bound. */
static stir_visit_step analyse_stmt(stir_stmt *s, void *user)
{
	gpu_facts *f = user;
	if (s->kind == STIR_STMT_FOR) {
		/* a serial loop variable has the same value in every thread
		 * running the iteration */
		f->dep[s->u.for_.var->slot] = s->u.for_.kind == STIR_LOOP_BIND ?
			DIM_BIT(s->u.for_.thread) : 0;
	} else if (s->kind == STIR_STMT_BLOCK) {
		for (int i = 0; i < s->u.block.n_vars; i++) {
			int slot = s->u.block.vars[i]->slot;
			f->binding[slot] = s->u.block.bindings[i];
			f->dep[slot] = cuda_expr_deps(f, s->u.block.bindings[i]);
		}
	} else if (s->kind == STIR_STMT_LET) {
		f->dep[s->u.let.var->slot] = cuda_expr_deps(f, s->u.let.value);
	}
	return STIR_VISIT_GO;
}

/* f, k: see verify/gpu.h. */
int cuda_facts_init(gpu_facts *f, const stir_kernel *k)
{
	size_t nv = (size_t)k->n_vars + 1;
	f->dep = calloc(nv, sizeof(*f->dep));
	f->binding = calloc(nv, sizeof(*f->binding));
	if (!f->dep || !f->binding) {
		cuda_facts_release(f);
		return -1;
	}
	stir_visitor v = { .stmt_pre = analyse_stmt, .user = f };
	stir_visit_list(&v, (stir_ptr_vec *)&k->body);
	return 0;
}

/* f: see verify/gpu.h. */
void cuda_facts_release(gpu_facts *f)
{
	free(f->dep);
	free(f->binding);
	f->dep = NULL;
	f->binding = NULL;
}
