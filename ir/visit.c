/* The IR walker and the uses / writes queries; see visit.h. */
#include "ir/visit.h"

/* ---- children ---- */

/* r, n, i: the address of bound *i of the n regions r (lo then hi of
 * each dimension, region after region); NULL, with *i lowered by the
 * number of bounds they have, when there are fewer. */
static stir_expr **region_bound(stir_region *r, int n, int *i)
{
	for (int j = 0; j < n; j++) {
		if (*i < 2 * r[j].n)
			return *i % 2 ? &r[j].hi[*i / 2] : &r[j].lo[*i / 2];
		*i -= 2 * r[j].n;
	}
	return NULL;
}

/* s, i, flags: see visit.h. */
stir_expr **stir_stmt_expr(stir_stmt *s, int i, unsigned flags)
{
	stir_expr **slot;
	switch (s->kind) {
	case STIR_STMT_STORE:
		if (i < s->u.store.n)
			return &s->u.store.idx[i];
		return i == s->u.store.n ? &s->u.store.value : NULL;
	case STIR_STMT_LET:
		return i == 0 ? &s->u.let.value : NULL;
	case STIR_STMT_IF:
		return i == 0 ? &s->u.if_.cond : NULL;
	case STIR_STMT_FOR:
		if (i == 0)
			return &s->u.for_.extent;
		return (flags & STIR_VISIT_VECTORS) && i <= s->u.for_.n_vecs ?
			&s->u.for_.vecs[i - 1].access : NULL;
	case STIR_STMT_BLOCK:
		if (i < s->u.block.n_vars)
			return &s->u.block.bindings[i];
		if (!(flags & STIR_VISIT_REGIONS))
			return NULL;
		i -= s->u.block.n_vars;
		slot = region_bound(s->u.block.reads, s->u.block.n_reads, &i);
		if (slot)
			return slot;
		return region_bound(s->u.block.writes, s->u.block.n_writes, &i);
	case STIR_STMT_ITER:
	case STIR_STMT_BARRIER:
		return NULL;
	}
	return NULL;
}

/* s, lists: see visit.h. */
int stir_stmt_lists(stir_stmt *s, stir_ptr_vec *lists[2])
{
	switch (s->kind) {
	case STIR_STMT_IF:
		lists[0] = &s->u.if_.then_body;
		lists[1] = &s->u.if_.else_body;
		return 2;
	case STIR_STMT_ITER:
		lists[0] = &s->u.iter.init;
		lists[1] = &s->u.iter.body;
		return 2;
	case STIR_STMT_FOR:
		lists[0] = &s->u.for_.body;
		return 1;
	case STIR_STMT_BLOCK:
		lists[0] = &s->u.block.body;
		return 1;
	default:
		return 0;
	}
}

/* s, n, vals: see visit.h. */
stir_var **stir_stmt_binds(stir_stmt *s, int *n, stir_expr ***vals)
{
	stir_expr **v = NULL;
	stir_var **r = NULL;
	*n = 0;
	switch (s->kind) {
	case STIR_STMT_LET:
		*n = 1;
		r = &s->u.let.var;
		v = &s->u.let.value;
		break;
	case STIR_STMT_FOR:
		*n = 1;
		r = &s->u.for_.var;
		break;
	case STIR_STMT_BLOCK:
		*n = s->u.block.n_vars;
		r = s->u.block.vars;
		v = s->u.block.bindings;
		break;
	case STIR_STMT_ITER:
		*n = s->u.iter.n_vars;
		r = s->u.iter.vars;
		break;
	default:
		break;
	}
	if (vals)
		*vals = v;
	return r;
}

/* ---- the visitor ---- */

/* v, slot: see visit.h. */
bool stir_visit_expr(const stir_visitor *v, stir_expr **slot)
{
	if (!*slot)
		return false;
	if (v->expr_pre) {
		stir_visit_step st = v->expr_pre(slot, v->user);
		if (st == STIR_VISIT_STOP)
			return true;
		if (st == STIR_VISIT_SKIP || !*slot)
			return false;
	}
	stir_expr **c;
	for (int i = 0; (c = stir_expr_child(*slot, i)); i++)
		if (stir_visit_expr(v, c))
			return true;
	return v->expr_post && v->expr_post(slot, v->user) == STIR_VISIT_STOP;
}

/* v, s: see visit.h. */
bool stir_visit_stmt(const stir_visitor *v, stir_stmt *s)
{
	if (v->stmt_pre) {
		stir_visit_step st = v->stmt_pre(s, v->user);
		if (st == STIR_VISIT_STOP)
			return true;
		if (st == STIR_VISIT_SKIP)
			return false;
	}
	if (v->expr_pre || v->expr_post) {
		stir_expr **e;
		for (int i = 0; (e = stir_stmt_expr(s, i, v->flags)); i++)
			if (stir_visit_expr(v, e))
				return true;
	}
	stir_ptr_vec *lists[2];
	int n = stir_stmt_lists(s, lists);
	for (int l = 0; l < n; l++)
		if (stir_visit_list(v, lists[l]))
			return true;
	return v->stmt_post && v->stmt_post(s, v->user) == STIR_VISIT_STOP;
}

/* v, list: see visit.h. */
bool stir_visit_list(const stir_visitor *v, stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		if (stir_visit_stmt(v, stir_stmt_at(list, i)))
			return true;
	return false;
}

/* ---- uses and writes ---- */

/* u, b: whether an access of b is one u counts. */
static bool counts_buf(const stir_uses *u, const stir_buffer *b)
{
	return u->any_buf || (u->buf && u->buf == b);
}

static stir_visitor uses_visitor(stir_uses *u);

/* slot, user: count what expression *slot itself is (a stir_uses). */
static stir_visit_step uses_expr(stir_expr **slot, void *user)
{
	stir_uses *u = user;
	const stir_expr *e = *slot;
	bool hit = false;
	if (e->kind == STIR_EXPR_VAR && u->var && e->u.var == u->var) {
		u->var_uses++;
		hit = true;
	} else if (e->kind == STIR_EXPR_VAR && u->expand) {
		const stir_expr *b = u->expand(e->u.var, u->expand_user);
		if (!b)
			return STIR_VISIT_GO;
		stir_visitor v = uses_visitor(u);
		stir_expr *sub = (stir_expr *)b;
		return stir_visit_expr(&v, &sub) ? STIR_VISIT_STOP : STIR_VISIT_GO;
	} else if ((e->kind == STIR_EXPR_LOAD &&
		    counts_buf(u, e->u.load.buf)) ||
		   (e->kind == STIR_EXPR_SEARCH &&
		    counts_buf(u, e->u.search.buf))) {
		u->loads++;
		hit = true;
	}
	return hit && u->first ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* s, user: count a store (a stir_uses). */
static stir_visit_step uses_stmt(stir_stmt *s, void *user)
{
	stir_uses *u = user;
	if (s->kind != STIR_STMT_STORE || !counts_buf(u, s->u.store.buf))
		return STIR_VISIT_GO;
	u->stores++;
	if (s->u.store.op != STIR_STORE_ASSIGN)
		u->updates++;
	return u->first ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* u: the visitor that answers u; expressions are entered only when u
 * asks about something expressions hold. */
static stir_visitor uses_visitor(stir_uses *u)
{
	bool exprs = u->var || u->buf || u->any_buf;
	stir_visitor v = { uses_stmt, NULL, exprs ? uses_expr : NULL, NULL, 0,
		u };
	return v;
}

/* u, e: see visit.h. */
void stir_uses_expr(stir_uses *u, const stir_expr *e)
{
	stir_visitor v = uses_visitor(u);
	stir_expr *slot = (stir_expr *)e;
	stir_visit_expr(&v, &slot);
}

/* u, s: see visit.h. */
void stir_uses_stmt(stir_uses *u, const stir_stmt *s)
{
	stir_visitor v = uses_visitor(u);
	stir_visit_stmt(&v, (stir_stmt *)s);
}

/* u, list: see visit.h. */
void stir_uses_list(stir_uses *u, const stir_ptr_vec *list)
{
	stir_visitor v = uses_visitor(u);
	stir_visit_list(&v, (stir_ptr_vec *)list);
}

/* e, v: see visit.h. */
bool stir_expr_uses(const stir_expr *e, const stir_var *v)
{
	stir_uses u = { .var = v, .first = true };
	stir_uses_expr(&u, e);
	return u.var_uses > 0;
}

/* e: see visit.h. */
bool stir_expr_reads_data(const stir_expr *e)
{
	stir_uses u = { .any_buf = true, .first = true };
	stir_uses_expr(&u, e);
	return u.loads > 0;
}

/* e, b: see visit.h. */
bool stir_expr_reads(const stir_expr *e, const stir_buffer *b)
{
	stir_uses u = { .buf = b, .first = true };
	stir_uses_expr(&u, e);
	return u.loads > 0;
}

/* x: see visit.h. */
bool stir_expr_node_is_safe(const stir_expr *x)
{
	switch (x->kind) {
	case STIR_EXPR_INT:
	case STIR_EXPR_VAR:
		return true;
	case STIR_EXPR_UNARY:
		return stir_dtype_is_int(x->dtype);
	case STIR_EXPR_CAST:
		return stir_dtype_is_int(x->dtype) &&
			stir_dtype_is_int(x->u.cast.a->dtype);
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
		return stir_dtype_is_int(x->dtype);
	default:
		return false;
	}
}

/* s, v: see visit.h. */
bool stir_stmt_uses(const stir_stmt *s, const stir_var *v)
{
	stir_uses u = { .var = v, .first = true };
	stir_uses_stmt(&u, s);
	return u.var_uses > 0;
}

/* list, v: see visit.h. */
bool stir_list_uses_var(const stir_ptr_vec *list, const stir_var *v)
{
	stir_uses u = { .var = v, .first = true };
	stir_uses_list(&u, list);
	return u.var_uses > 0;
}

/* s, b: see visit.h.  Only statements are walked: stores are statements. */
bool stir_stmt_writes(const stir_stmt *s, const stir_buffer *b)
{
	stir_uses u = { .buf = b, .any_buf = !b, .first = true };
	stir_visitor v = { uses_stmt, NULL, NULL, NULL, 0, &u };
	stir_visit_stmt(&v, (stir_stmt *)s);
	return u.stores > 0;
}

/* s, b: see visit.h. */
bool stir_stmt_reads(const stir_stmt *s, const stir_buffer *b)
{
	stir_uses u = { .buf = b };
	stir_uses_stmt(&u, s);
	return u.loads > 0 || u.updates > 0;
}
