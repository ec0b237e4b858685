/* Static facts about statements and thread contexts that the GPU
 * verifier's walk and the CUDA emitter both ask (verify/gpu.h): the
 * indices the loops in a statement bind, whether it stores where other
 * threads see, whether a list uses a buffer, the variables a statement
 * defines, the warp buffer a fill loop fills, the cross-thread reduction
 * a store belongs to.  Each is a function of the IR (and of the context
 * given), not of an emitter. */
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
