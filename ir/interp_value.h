/* Scalar values of the interpreters and the arithmetic of docs/language.md
 * section 3: integers wrap at their type's width, floats round to their
 * type after every operation. */
#ifndef STIR_IR_INTERP_VALUE_H
#define STIR_IR_INTERP_VALUE_H

#include <math.h>
#include <stdint.h>
#include <stir/ir.h>

/* One value; its type is known from the expression that produced it:
 * integers and bools live in i, floats in f. */
typedef union stir_value {
	int64_t i;
	double f;
} stir_value;

/* x rounded to float type t (f16, bf16, f32; f64 unchanged).  This, wrap
 * and arith are inline: the interpreter calls them at every operation. */
static inline double stir_value_round(stir_dtype t, double x)
{
	switch (t) {
	case STIR_F32: return (double)(float)x;
	case STIR_F16: return stir_f16_to_double(stir_f16_from_double(x));
	case STIR_BF16: return stir_bf16_to_double(stir_bf16_from_double(x));
	default: return x;
	}
}

/* x wrapped to integer type t (two's complement); bools become 0/1. */
static inline int64_t stir_value_wrap(stir_dtype t, int64_t x)
{
	switch (t) {
	case STIR_I8: return (int8_t)(uint8_t)(uint64_t)x;
	case STIR_I32: return (int32_t)(uint32_t)(uint64_t)x;
	case STIR_BOOL: return x != 0;
	default: return x;
	}
}

/* v of type "from" converted to type "to" (casts: floats truncate toward
 * zero and saturate, NaN gives 0). */
stir_value stir_value_convert(stir_dtype from, stir_dtype to, stir_value v);
/* a op b for arithmetic op (+ - * / %) in type t; integer division by zero
 * must be excluded by the caller. */
static inline stir_value stir_value_arith(stir_binop op, stir_dtype t,
	stir_value a, stir_value b)
{
	stir_value r = { 0 };
	switch (t) {
	case STIR_F16: case STIR_BF16: case STIR_F32: case STIR_F64: {
		double x;
		switch (op) {
		case STIR_ADD: x = a.f + b.f; break;
		case STIR_SUB: x = a.f - b.f; break;
		case STIR_MUL: x = a.f * b.f; break;
		case STIR_DIV: x = a.f / b.f; break;
		default: x = fmod(a.f, b.f); break;
		}
		r.f = stir_value_round(t, x);
		return r;
	}
	default:
		break;
	}
	uint64_t ua = (uint64_t)a.i, ub = (uint64_t)b.i;
	switch (op) {
	case STIR_ADD: r.i = (int64_t)(ua + ub); break;
	case STIR_SUB: r.i = (int64_t)(ua - ub); break;
	case STIR_MUL: r.i = (int64_t)(ua * ub); break;
	case STIR_DIV:
		r.i = a.i == INT64_MIN && b.i == -1 ? INT64_MIN : a.i / b.i;
		break;
	default:
		r.i = b.i == -1 ? 0 : a.i % b.i;
		break;
	}
	r.i = stir_value_wrap(t, r.i);
	return r;
}

/* a op b for a comparison; a and b have types ta and tb (integers of any
 * width, or the same float type).  The result is a bool. */
stir_value stir_value_compare(stir_binop op, stir_dtype ta, stir_value a,
	stir_dtype tb, stir_value b);
/* f(args) in type t. */
stir_value stir_value_call(stir_func f, stir_dtype t, const stir_value *args);
/* Element i of array a as a value of the array's type. */
stir_value stir_value_load(const stir_array *a, int64_t i);
/* Store v (of the array's type) into element i of a. */
void stir_value_store(stir_array *a, int64_t i, stir_value v);

#endif
