/* Affine (linear) forms of integer expressions (docs/ir.md, "Walking the
 * IR"): e = c_1 * t_1 + ... + c_n * t_n + konst, with literal coefficients,
 * where each term t_i is a variable or, when asked, an opaque
 * subexpression that does not involve the variable of interest.  The one
 * helper for the questions the passes ask about index arithmetic: "which
 * loops make up this binding, with which strides" (schedule/cache.c),
 * "is this the same sum" (the guard that bounds it), "what is the
 * coefficient of the lane variable" and "what is this index modulo the
 * vector width" (the vector paths), "base plus which constant offset"
 * (passes/regions.c). */
#ifndef STIR_IR_AFFINE_H
#define STIR_IR_AFFINE_H

#include "ir/nodes.h"

/* The most terms a form holds; a longer sum is not decomposed. */
#define STIR_AFFINE_MAX 16

/* How an expression is read as a form. */
enum {
	/* Only loop variables are terms (any other variable, or any other
	 * expression, makes the expression non-affine). */
	STIR_AFFINE_LOOP_VARS = 1,
	/* Casts are seen through only when they widen (i32 to i64); else any
	 * integer cast is. */
	STIR_AFFINE_WIDENING_CASTS = 2,
	/* -x is read as (-1) * x. */
	STIR_AFFINE_NEG = 4,
	/* A subexpression that is no affine sum but does not use the "wrt"
	 * variable is an opaque term rather than a failure (n * m, a load);
	 * where it uses wrt it must be an integer sum. */
	STIR_AFFINE_OPAQUE = 8,
};

/* What to read an expression with. */
typedef struct stir_affine_opts {
	unsigned flags;             /* STIR_AFFINE_* */
	const stir_var *wrt;        /* STIR_AFFINE_OPAQUE: the variable of
	                               interest */
	/* When set and it returns non-NULL for a variable, the variable reads
	 * as that expression (the emitter's block variables, as their
	 * bindings). */
	const stir_expr *(*expand)(const stir_var *v, const void *user);
	const void *user;           /* passed to expand */
} stir_affine_opts;

/* One term: coef * (var, or the opaque expression atom). */
typedef struct stir_affine_term {
	const stir_var *var;        /* the variable, or NULL */
	const stir_expr *atom;      /* an opaque term (var NULL), borrowed */
	int64_t coef;
} stir_affine_term;

/* A form; {0} is the form 0. */
typedef struct stir_affine {
	int n;
	stir_affine_term t[STIR_AFFINE_MAX];
	int64_t konst;
} stir_affine;

/* a, e, scale, o: add scale * e to a.  false when e is not affine as o
 * reads it, when there would be more than STIR_AFFINE_MAX terms, or when
 * a coefficient or the constant would overflow; a is then unspecified. */
bool stir_affine_add(stir_affine *a, const stir_expr *e, int64_t scale,
	const stir_affine_opts *o);
/* a, v: the coefficient of variable v in a (0 when v is no term). */
int64_t stir_affine_coef(const stir_affine *a, const stir_var *v);
/* a, b: whether a and b are the same sum (terms in any order; opaque
 * terms compare by identity). */
bool stir_affine_same(const stir_affine *a, const stir_affine *b);
/* a, v, w, r: *r = the value of a modulo w (in [0, w)) with variable v at
 * 0, when every other term's coefficient is a multiple of w; else false.
 * w > 0. */
bool stir_affine_residue(const stir_affine *a, const stir_var *v, int64_t w,
	int64_t *r);
/* e, v, o, c: *c = the coefficient of v in e read with o (o->wrt = v is
 * implied); false when e is not affine in v.  What the vector paths'
 * lin_coeff asks (flags STIR_AFFINE_NEG | STIR_AFFINE_WIDENING_CASTS |
 * STIR_AFFINE_OPAQUE, expand = the block bindings). */
bool stir_affine_coef_of(const stir_expr *e, const stir_var *v,
	const stir_affine_opts *o, int64_t *c);

/* e, base, off: e read at its top as base + off with off a literal (e + c,
 * e - c, or c alone, where *base is NULL); otherwise *base = e and *off =
 * 0.  Only the top is looked at, so that the base is a subexpression of e
 * (passes/regions.c numbers it). */
void stir_affine_split_const(stir_expr *e, stir_expr **base, int64_t *off);

#endif
