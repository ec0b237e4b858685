/* Affine forms of integer expressions; see affine.h. */
#include "ir/affine.h"
#include "ir/visit.h"

/* x, o: the expression variable expression x reads as under o, or NULL. */
static const stir_expr *expanded(const stir_expr *x, const stir_affine_opts *o)
{
	return o->expand && x->kind == STIR_EXPR_VAR ?
		o->expand(x->u.var, o->user) : NULL;
}

/* x, o: whether x uses o->wrt, looking through o->expand. */
static bool uses_wrt(const stir_expr *x, const stir_affine_opts *o)
{
	stir_uses u = { .var = o->wrt, .first = true, .expand = o->expand,
		.expand_user = o->user };
	if (!o->wrt)
		return false;
	stir_uses_expr(&u, x);
	return u.var_uses > 0;
}

/* a, var, atom, coef: add coef * (var or atom) to a's terms. */
static bool add_term(stir_affine *a, const stir_var *var,
	const stir_expr *atom, int64_t coef)
{
	for (int i = 0; i < a->n; i++)
		if (a->t[i].var == var && a->t[i].atom == atom)
			return !__builtin_add_overflow(a->t[i].coef, coef,
				&a->t[i].coef);
	if (a->n == STIR_AFFINE_MAX)
		return false;
	a->t[a->n++] = (stir_affine_term){ var, atom, coef };
	return true;
}

/* a, e, scale, o: e is no sum stir_affine_add can read: with
 * STIR_AFFINE_OPAQUE, an opaque term when it does not use o->wrt;
 * otherwise a failure. */
static bool opaque(stir_affine *a, const stir_expr *e, int64_t scale,
	const stir_affine_opts *o)
{
	return (o->flags & STIR_AFFINE_OPAQUE) && !uses_wrt(e, o) &&
		add_term(a, NULL, e, scale);
}

/* a, e, scale, o: see affine.h. */
bool stir_affine_add(stir_affine *a, const stir_expr *e, int64_t scale,
	const stir_affine_opts *o)
{
	int64_t m;
	if (!stir_dtype_is_int(e->dtype) && (o->flags & STIR_AFFINE_OPAQUE))
		return opaque(a, e, scale, o);
	switch (e->kind) {
	case STIR_EXPR_INT:
		return !__builtin_mul_overflow(scale, e->u.i, &m) &&
			!__builtin_add_overflow(a->konst, m, &a->konst);
	case STIR_EXPR_VAR: {
		const stir_expr *b;
		if (e->u.var != o->wrt && (b = expanded(e, o)))
			return stir_affine_add(a, b, scale, o);
		if ((o->flags & STIR_AFFINE_LOOP_VARS) &&
		    e->u.var->kind != STIR_VAR_LOOP)
			return false;
		return add_term(a, e->u.var, NULL, scale);
	}
	case STIR_EXPR_UNARY:
		if (!(o->flags & STIR_AFFINE_NEG) || e->u.unary.op != STIR_NEG)
			return opaque(a, e, scale, o);
		return !__builtin_mul_overflow(scale, -1, &m) &&
			stir_affine_add(a, e->u.unary.a, m, o);
	case STIR_EXPR_CAST:
		if ((o->flags & STIR_AFFINE_WIDENING_CASTS) &&
		    stir_int_rank(e->dtype) < stir_int_rank(e->u.cast.a->dtype))
			return opaque(a, e, scale, o);
		return stir_affine_add(a, e->u.cast.a, scale, o);
	case STIR_EXPR_BINARY: {
		const stir_expr *x = e->u.binary.a, *y = e->u.binary.b;
		switch (e->u.binary.op) {
		case STIR_ADD:
			return stir_affine_add(a, x, scale, o) &&
				stir_affine_add(a, y, scale, o);
		case STIR_SUB:
			return stir_affine_add(a, x, scale, o) &&
				!__builtin_mul_overflow(scale, -1, &m) &&
				stir_affine_add(a, y, m, o);
		case STIR_MUL:
			if (y->kind == STIR_EXPR_INT)
				return !__builtin_mul_overflow(scale, y->u.i, &m) &&
					stir_affine_add(a, x, m, o);
			if (x->kind == STIR_EXPR_INT)
				return !__builtin_mul_overflow(scale, x->u.i, &m) &&
					stir_affine_add(a, y, m, o);
			return opaque(a, e, scale, o);
		default:
			return opaque(a, e, scale, o);
		}
	}
	default:
		return opaque(a, e, scale, o);
	}
}

/* a, v: see affine.h. */
int64_t stir_affine_coef(const stir_affine *a, const stir_var *v)
{
	for (int i = 0; i < a->n; i++)
		if (a->t[i].var == v && !a->t[i].atom)
			return a->t[i].coef;
	return 0;
}

/* a, b: see affine.h. */
bool stir_affine_same(const stir_affine *a, const stir_affine *b)
{
	if (a->n != b->n || a->konst != b->konst)
		return false;
	for (int i = 0; i < a->n; i++) {
		bool found = false;
		for (int j = 0; j < b->n && !found; j++)
			found = a->t[i].var == b->t[j].var &&
				a->t[i].atom == b->t[j].atom &&
				a->t[i].coef == b->t[j].coef;
		if (!found)
			return false;
	}
	return true;
}

/* a, v, w, r: see affine.h. */
bool stir_affine_residue(const stir_affine *a, const stir_var *v, int64_t w,
	int64_t *r)
{
	for (int i = 0; i < a->n; i++)
		if (!(a->t[i].var == v && !a->t[i].atom) && a->t[i].coef % w)
			return false;
	*r = (a->konst % w + w) % w;
	return true;
}

/* e, v, o, c: see affine.h. */
bool stir_affine_coef_of(const stir_expr *e, const stir_var *v,
	const stir_affine_opts *o, int64_t *c)
{
	stir_affine_opts with = *o;
	stir_affine a = { 0 };
	with.wrt = v;
	if (!stir_affine_add(&a, e, 1, &with))
		return false;
	*c = stir_affine_coef(&a, v);
	return true;
}

/* e, base, off: see affine.h. */
void stir_affine_split_const(stir_expr *e, stir_expr **base, int64_t *off)
{
	*off = 0;
	*base = e;
	if (e->kind == STIR_EXPR_BINARY && e->u.binary.op == STIR_ADD &&
	    e->u.binary.b->kind == STIR_EXPR_INT) {
		*base = e->u.binary.a;
		*off = e->u.binary.b->u.i;
	} else if (e->kind == STIR_EXPR_BINARY && e->u.binary.op == STIR_SUB &&
		   e->u.binary.b->kind == STIR_EXPR_INT &&
		   e->u.binary.b->u.i != INT64_MIN) {
		*base = e->u.binary.a;
		*off = -e->u.binary.b->u.i;
	} else if (e->kind == STIR_EXPR_INT) {
		*base = NULL; /* a plain constant: base 0 */
		*off = e->u.i;
	}
}
