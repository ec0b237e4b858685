/* The magnitudes of a kernel's sums (stir_kernel_interpret_magnitudes,
 * include/stir/interp.h).
 *
 * Two correct programs that add the same float terms in different orders
 * (the interpreter in program order, the GPU in whatever order its atomic
 * adds land) differ by rounding, and that difference scales with the sum
 * of the magnitudes of the terms, not with the result: a row whose terms
 * cancel (RGMS on a hub row, 0.56 out of terms adding up to hundreds)
 * differs by far more than f32's tolerance relative to 0.56.  A kernel
 * whose float values are sums of products and quotients (+ - * /, abs,
 * max and min, casts between float types) gets that scale element by
 * element by running it once more with every float input replaced by its
 * magnitude, every subtraction by an addition, every negation dropped and
 * every min made a max: each term then enters as |term| and nothing
 * cancels (max(x, y) and min(x, y) differ from their exact values by at
 * most the larger of x's and y's errors, which the larger magnitude
 * bounds: a ReLU keeps its operand's).  Anything else (exp, a comparison
 * of floats, a select, a float made from an integer) makes the
 * magnitudes unknown, and the caller keeps its plain tolerance. */
#include <math.h>
#include <stir/interp.h>
#include <stir/lang.h>
#include "ir/visit.h"

/* slot, user: expr_post of the rewrite: the float expression in *slot as
 * its magnitude; *(bool *)user is set when it has none. */
static stir_visit_step to_magnitude(stir_expr **slot, void *user)
{
	stir_expr *e = *slot;
	bool *unknown = user;
	switch (e->kind) {
	case STIR_EXPR_FLOAT:
		e->u.f = fabs(e->u.f);
		break;
	case STIR_EXPR_UNARY:
		if (e->u.unary.op == STIR_NEG && stir_dtype_is_float(e->dtype))
			*slot = e->u.unary.a;
		break;
	case STIR_EXPR_BINARY:
		if (stir_dtype_is_float(e->u.binary.a->dtype) &&
		    e->u.binary.op > STIR_DIV)
			*unknown = true;
		if (stir_dtype_is_float(e->dtype) && e->u.binary.op == STIR_SUB)
			e->u.binary.op = STIR_ADD;
		break;
	case STIR_EXPR_SELECT:
		if (stir_dtype_is_float(e->dtype))
			*unknown = true;
		break;
	case STIR_EXPR_CALL:
		/* max and min move by at most the larger of their operands'
		 * errors: the larger magnitude bounds both */
		if (stir_dtype_is_float(e->dtype) && e->u.call.f == STIR_MIN)
			e->u.call.f = STIR_MAX;
		else if (stir_dtype_is_float(e->dtype) &&
			 e->u.call.f != STIR_ABS && e->u.call.f != STIR_MAX)
			*unknown = true;
		break;
	case STIR_EXPR_CAST:
		if (stir_dtype_is_float(e->dtype) &&
		    !stir_dtype_is_float(e->u.cast.a->dtype))
			*unknown = true;
		break;
	default:
		break;
	}
	return *unknown ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* s, user: stmt_pre of the rewrite: a store that subtracts adds; any
 * other update than + - * of a float makes the magnitudes unknown. */
static stir_visit_step store_magnitude(stir_stmt *s, void *user)
{
	if (s->kind != STIR_STMT_STORE || !stir_dtype_is_float(s->u.store.buf->dtype))
		return STIR_VISIT_GO;
	if (s->u.store.op == STIR_STORE_SUB)
		s->u.store.op = STIR_STORE_ADD;
	else if (s->u.store.op != STIR_STORE_ASSIGN &&
		 s->u.store.op != STIR_STORE_ADD && s->u.store.op != STIR_STORE_MUL)
		*(bool *)user = true;
	return *(bool *)user ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* b: replace every element of every float array of b by its magnitude. */
static void abs_arrays(stir_bindings *b)
{
	for (int i = 0; i < stir_bindings_n_arrays(b); i++) {
		stir_array *a = stir_bindings_get_array(b,
			stir_bindings_get_array_name(b, i));
		if (!stir_dtype_is_float(stir_array_get_dtype(a)))
			continue;
		for (int64_t j = 0; j < stir_array_get_len(a); j++)
			stir_array_set_double(a, j, fabs(stir_array_get_double(a, j)));
	}
}

int stir_kernel_interpret_magnitudes(const stir_kernel *k, stir_bindings *b)
{
	stir_module *owner = NULL;
	stir_kernel *c = stir_kernel_copy(k, &owner);
	if (!c)
		return -1;
	bool unknown = false;
	stir_visitor v = { store_magnitude, NULL, NULL, to_magnitude, 0,
		&unknown };
	stir_visit_list(&v, &c->body);
	int rc = 1;
	if (!unknown) {
		abs_arrays(b);
		rc = stir_kernel_interpret(c, b) < 0 ? -1 : 0;
	}
	stir_module_free(owner);
	return rc;
}
