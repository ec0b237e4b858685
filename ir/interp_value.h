/* Scalar values of the interpreters and the arithmetic of docs/language.md
 * section 3: integers wrap at their type's width, floats round to their
 * type after every operation. */
#ifndef STIR_IR_INTERP_VALUE_H
#define STIR_IR_INTERP_VALUE_H

#include <stir/ir.h>

/* One value; its type is known from the expression that produced it:
 * integers and bools live in i, floats in f. */
typedef union stir_value {
	int64_t i;
	double f;
} stir_value;

/* x rounded to float type t (f16, bf16, f32; f64 unchanged). */
double stir_value_round(stir_dtype t, double x);
/* x wrapped to integer type t (two's complement); bools become 0/1. */
int64_t stir_value_wrap(stir_dtype t, int64_t x);
/* v of type "from" converted to type "to" (casts: floats truncate toward
 * zero and saturate, NaN gives 0). */
stir_value stir_value_convert(stir_dtype from, stir_dtype to, stir_value v);
/* a op b for arithmetic op (+ - * / %) in type t; integer division by zero
 * must be excluded by the caller. */
stir_value stir_value_arith(stir_binop op, stir_dtype t, stir_value a,
	stir_value b);
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
