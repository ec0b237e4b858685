/* Scalar arithmetic of the interpreters; see interp_value.h. */
#include <math.h>
#include <stdint.h>
#include "ir/interp_value.h"

/* t: an integer type; its smallest and largest values. */
static void int_range(stir_dtype t, double *lo, double *hi)
{
	switch (t) {
	case STIR_I8: *lo = INT8_MIN; *hi = INT8_MAX; break;
	case STIR_I32: *lo = INT32_MIN; *hi = INT32_MAX; break;
	default: *lo = -9223372036854775808.0; *hi = 9223372036854775807.0; break;
	}
}

stir_value stir_value_convert(stir_dtype from, stir_dtype to, stir_value v)
{
	stir_value r = { 0 };
	bool ffloat = stir_dtype_is_float(from), tfloat = stir_dtype_is_float(to);
	if (ffloat && tfloat) {
		r.f = stir_value_round(to, v.f);
	} else if (!ffloat && tfloat) {
		r.f = stir_value_round(to, (double)v.i);
	} else if (ffloat && to == STIR_BOOL) {
		r.i = v.f != 0;
	} else if (ffloat) {
		double lo, hi;
		int_range(to, &lo, &hi);
		if (isnan(v.f))
			r.i = 0;
		else if (v.f <= lo)
			r.i = (int64_t)lo;
		else if (v.f >= hi)
			r.i = to == STIR_I64 ? INT64_MAX : (int64_t)hi;
		else
			r.i = (int64_t)v.f;
	} else {
		r.i = stir_value_wrap(to, v.i);
	}
	return r;
}

stir_value stir_value_compare(stir_binop op, stir_dtype ta, stir_value a,
	stir_dtype tb, stir_value b)
{
	stir_value r = { 0 };
	int c;
	if (stir_dtype_is_float(ta) || stir_dtype_is_float(tb)) {
		double x = stir_dtype_is_float(ta) ? a.f : (double)a.i;
		double y = stir_dtype_is_float(tb) ? b.f : (double)b.i;
		switch (op) {
		case STIR_LT: r.i = x < y; break;
		case STIR_LE: r.i = x <= y; break;
		case STIR_GT: r.i = x > y; break;
		case STIR_GE: r.i = x >= y; break;
		case STIR_EQ: r.i = x == y; break;
		default: r.i = x != y; break;
		}
		return r;
	}
	c = (a.i > b.i) - (a.i < b.i);
	switch (op) {
	case STIR_LT: r.i = c < 0; break;
	case STIR_LE: r.i = c <= 0; break;
	case STIR_GT: r.i = c > 0; break;
	case STIR_GE: r.i = c >= 0; break;
	case STIR_EQ: r.i = c == 0; break;
	default: r.i = c != 0; break;
	}
	return r;
}

stir_value stir_value_call(stir_func f, stir_dtype t, const stir_value *args)
{
	stir_value r = { 0 };
	if (!stir_dtype_is_float(t)) {
		int64_t a = args[0].i, b = args[1].i;
		switch (f) {
		case STIR_MIN: r.i = a < b ? a : b; break;
		case STIR_MAX: r.i = a > b ? a : b; break;
		default: /* abs */
			r.i = stir_value_wrap(t, a < 0 ? (int64_t)(0 - (uint64_t)a) : a);
			break;
		}
		return r;
	}
	double x = args[0].f, y = args[1].f;
	switch (f) {
	case STIR_MIN: r.f = fmin(x, y); break;
	case STIR_MAX: r.f = fmax(x, y); break;
	case STIR_ABS: r.f = fabs(x); break;
	case STIR_EXP: r.f = exp(x); break;
	case STIR_LOG: r.f = log(x); break;
	case STIR_SQRT: r.f = sqrt(x); break;
	case STIR_TANH: r.f = tanh(x); break;
	}
	r.f = stir_value_round(t, r.f);
	return r;
}

stir_value stir_value_load(const stir_array *a, int64_t i)
{
	stir_value v;
	if (stir_dtype_is_float(stir_array_get_dtype(a)))
		v.f = stir_array_get_double(a, i);
	else
		v.i = stir_array_get_int(a, i);
	return v;
}

void stir_value_store(stir_array *a, int64_t i, stir_value v)
{
	if (stir_dtype_is_float(stir_array_get_dtype(a)))
		stir_array_set_double(a, i, v.f);
	else
		stir_array_set_int(a, i, v.i);
}
