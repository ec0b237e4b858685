/* Host arrays and bindings; see include/stir/array.h. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stir/array.h>
#include "ir/diag.h"
#include "ir/layout.h"

struct stir_array {
	stir_dtype dtype;
	int ndim;
	int64_t shape[STIR_MAX_DIMS];
	int64_t len;   /* product of shape */
	void *data;    /* owned, len * dtype size bytes (at least 1) */
};

/* ndim, shape: the dimensions; *len receives their product.  -1 when a
 * dimension is negative or the product overflows "elem" bytes. */
static int shape_len(int ndim, const int64_t *shape, size_t elem, int64_t *len)
{
	int64_t n = 1;
	for (int i = 0; i < ndim; i++) {
		if (shape[i] < 0)
			return -1;
		if (shape[i] && n > INT64_MAX / shape[i])
			return -1;
		n *= shape[i];
	}
	if (elem && (uint64_t)n > SIZE_MAX / elem)
		return -1;
	*len = n;
	return 0;
}

stir_array *stir_array_alloc(stir_ctx *ctx, stir_dtype dtype, int ndim,
	const int64_t *shape)
{
	size_t elem = stir_dtype_get_size(dtype);
	int64_t len;
	if (elem == 0 || ndim < 0 || ndim > STIR_MAX_DIMS) {
		stir_error(ctx, stir_loc_none(), "invalid array type or rank");
		return NULL;
	}
	if (shape_len(ndim, shape, elem, &len) < 0) {
		stir_error(ctx, stir_loc_none(), "array size out of range");
		return NULL;
	}
	stir_array *a = calloc(1, sizeof(*a));
	if (!a)
		return stir_error_oom(ctx);
	a->data = calloc(len ? (size_t)len : 1, elem);
	if (!a->data) {
		free(a);
		stir_error(ctx, stir_loc_none(),
			"out of memory allocating an array of %lld elements",
			(long long)len);
		return NULL;
	}
	a->dtype = dtype;
	a->ndim = ndim;
	for (int i = 0; i < ndim; i++)
		a->shape[i] = shape[i];
	a->len = len;
	return a;
}

stir_array *stir_array_copy(stir_ctx *ctx, const stir_array *a)
{
	stir_array *c = stir_array_alloc(ctx, a->dtype, a->ndim, a->shape);
	if (c)
		memcpy(c->data, a->data, (size_t)a->len * stir_dtype_get_size(a->dtype));
	return c;
}

void stir_array_free(stir_array *a)
{
	if (!a)
		return;
	free(a->data);
	free(a);
}

stir_dtype stir_array_get_dtype(const stir_array *a)
{
	return a->dtype;
}

int stir_array_get_ndim(const stir_array *a)
{
	return a->ndim;
}

int64_t stir_array_get_dim(const stir_array *a, int i)
{
	return i >= 0 && i < a->ndim ? a->shape[i] : 1;
}

int64_t stir_array_get_len(const stir_array *a)
{
	return a->len;
}

void *stir_array_get_data(stir_array *a)
{
	return a->data;
}

const void *stir_array_get_const_data(const stir_array *a)
{
	return a->data;
}

int stir_array_reshape(stir_array *a, int ndim, const int64_t *shape)
{
	int64_t len;
	if (ndim < 0 || ndim > STIR_MAX_DIMS ||
	    shape_len(ndim, shape, 0, &len) < 0 || len != a->len)
		return -1;
	a->ndim = ndim;
	for (int i = 0; i < ndim; i++)
		a->shape[i] = shape[i];
	return 0;
}

double stir_array_get_double(const stir_array *a, int64_t i)
{
	const void *d = a->data;
	switch (a->dtype) {
	case STIR_I8: return ((const int8_t *)d)[i];
	case STIR_I32: return ((const int32_t *)d)[i];
	case STIR_I64: return (double)((const int64_t *)d)[i];
	case STIR_F16: return stir_f16_to_double(((const uint16_t *)d)[i]);
	case STIR_BF16: return stir_bf16_to_double(((const uint16_t *)d)[i]);
	case STIR_F32: return ((const float *)d)[i];
	case STIR_F64: return ((const double *)d)[i];
	case STIR_BOOL: return ((const uint8_t *)d)[i];
	default: return 0;
	}
}

/* v: a double converted to an integer the way a C cast would, except that
 * NaN and out-of-range values saturate instead of being undefined. */
static int64_t double_to_int(double v)
{
	if (isnan(v))
		return 0;
	if (v >= 9223372036854775807.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)v;
}

int64_t stir_array_get_int(const stir_array *a, int64_t i)
{
	const void *d = a->data;
	switch (a->dtype) {
	case STIR_I8: return ((const int8_t *)d)[i];
	case STIR_I32: return ((const int32_t *)d)[i];
	case STIR_I64: return ((const int64_t *)d)[i];
	case STIR_BOOL: return ((const uint8_t *)d)[i];
	default: return double_to_int(stir_array_get_double(a, i));
	}
}

/* t: the tolerance of a comparison in type t, relative and absolute. */
double stir_dtype_get_tolerance(stir_dtype t)
{
	switch (t) {
	case STIR_F64: return 1e-9;
	case STIR_F32: return 1e-4;
	case STIR_F16: return 1e-2;
	case STIR_BF16: return 5e-2;
	default: return 0;
	}
}

int64_t stir_array_compare(const stir_array *got, const stir_array *want,
	int64_t *where, double *worst)
{
	return stir_array_compare_within(got, want,
		stir_dtype_get_tolerance(want->dtype), where, worst);
}

/* got, want, tol, where, worst: see array.h. */
int64_t stir_array_compare_within(const stir_array *got,
	const stir_array *want, double tol, int64_t *where, double *worst)
{
	if (where)
		*where = -1;
	if (worst)
		*worst = 0;
	if (got->len != want->len)
		return -1;
	double far = 0;
	int64_t bad = 0;
	for (int64_t j = 0; j < want->len; j++) {
		double x = stir_array_get_double(got, j);
		double y = stir_array_get_double(want, j);
		double d = fabs(x - y);
		if (isnan(x) != isnan(y))
			d = INFINITY;
		else if (isnan(x) || (isinf(x) && x == y))
			d = 0;
		if (worst)
			*worst = fmax(*worst, d);
		if (d > tol * (1 + fabs(y))) {
			if (where && (bad == 0 || d > far))
				*where = j;
			far = bad == 0 ? d : fmax(far, d);
			bad++;
		}
	}
	return bad;
}

void stir_array_set_double(stir_array *a, int64_t i, double v)
{
	void *d = a->data;
	switch (a->dtype) {
	case STIR_I8: ((int8_t *)d)[i] = (int8_t)double_to_int(v); break;
	case STIR_I32: ((int32_t *)d)[i] = (int32_t)double_to_int(v); break;
	case STIR_I64: ((int64_t *)d)[i] = double_to_int(v); break;
	case STIR_F16: ((uint16_t *)d)[i] = stir_f16_from_double(v); break;
	case STIR_BF16: ((uint16_t *)d)[i] = stir_bf16_from_double(v); break;
	case STIR_F32: ((float *)d)[i] = (float)v; break;
	case STIR_F64: ((double *)d)[i] = v; break;
	case STIR_BOOL: ((uint8_t *)d)[i] = v != 0; break;
	default: break;
	}
}

void stir_array_set_int(stir_array *a, int64_t i, int64_t v)
{
	void *d = a->data;
	switch (a->dtype) {
	case STIR_I8: ((int8_t *)d)[i] = (int8_t)v; break;
	case STIR_I32: ((int32_t *)d)[i] = (int32_t)v; break;
	case STIR_I64: ((int64_t *)d)[i] = v; break;
	case STIR_BOOL: ((uint8_t *)d)[i] = v != 0; break;
	default: stir_array_set_double(a, i, (double)v); break;
	}
}

void stir_array_fill(stir_array *a, double v)
{
	for (int64_t i = 0; i < a->len; i++)
		stir_array_set_double(a, i, v);
}

/* t, v: v written the shortest way that reads back as the same value of
 * float type t, so that a message quotes a value as its file holds it. */
static void format_float(char *buf, size_t n, stir_dtype t, double v)
{
	if (v == floor(v) && fabs(v) < 1e17) {
		/* a whole number reads best as one, and is exact */
		snprintf(buf, n, "%.0f", v);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		double r = strtod(buf, NULL);
		bool same = t == STIR_F32 ? (float)r == (float)v :
			t == STIR_F16 ? stir_f16_from_double(r) ==
				stir_f16_from_double(v) :
			t == STIR_BF16 ? stir_bf16_from_double(r) ==
				stir_bf16_from_double(v) : r == v;
		if (same || isnan(v))
			return;
	}
}

/* a, i, buf, n: element i of a as its type writes it. */
static void format_elem(const stir_array *a, int64_t i, char *buf, size_t n)
{
	if (stir_dtype_is_float(a->dtype))
		format_float(buf, n, a->dtype, stir_array_get_double(a, i));
	else
		snprintf(buf, n, "%" PRId64, stir_array_get_int(a, i));
}

/* t, *lo, *hi: the range of integer (or bool) type t. */
static void int_range(stir_dtype t, int64_t *lo, int64_t *hi)
{
	*lo = t == STIR_I8 ? INT8_MIN : t == STIR_I32 ? INT32_MIN :
		t == STIR_BOOL ? 0 : INT64_MIN;
	*hi = t == STIR_I8 ? INT8_MAX : t == STIR_I32 ? INT32_MAX :
		t == STIR_BOOL ? 1 : INT64_MAX;
}

/* a, i, dtype: whether element i of a converts to dtype without changing
 * its meaning: exactly to an integer (or bool) type; to a float type
 * rounded, but a finite value does not become infinite. */
static bool elem_fits(const stir_array *a, int64_t i, stir_dtype dtype)
{
	bool from_int = !stir_dtype_is_float(a->dtype);
	if (!stir_dtype_is_float(dtype)) {
		int64_t lo, hi, v;
		int_range(dtype, &lo, &hi);
		if (from_int) {
			v = stir_array_get_int(a, i);
		} else {
			double d = stir_array_get_double(a, i);
			/* 2^63 itself is out of range: compare before the cast */
			if (!isfinite(d) || d != floor(d) || d < -0x1p63 ||
			    d >= 0x1p63)
				return false;
			v = (int64_t)d;
		}
		return v >= lo && v <= hi;
	}
	double d = stir_array_get_double(a, i);
	if (!isfinite(d))
		return true;
	switch (dtype) {
	case STIR_F16: return (stir_f16_from_double(d) & 0x7c00) != 0x7c00;
	case STIR_BF16: return (stir_bf16_from_double(d) & 0x7f80) != 0x7f80;
	case STIR_F32: return isfinite((float)d);
	default: return true;
	}
}

stir_array *stir_array_convert_named(stir_ctx *ctx, const stir_array *a,
	stir_dtype dtype, const char *name)
{
	for (int64_t i = 0; i < a->len; i++) {
		if (elem_fits(a, i, dtype))
			continue;
		char v[64];
		format_elem(a, i, v, sizeof(v));
		double d = stir_array_get_double(a, i);
		const char *why = stir_dtype_is_float(dtype) ? "overflows" :
			!stir_dtype_is_float(a->dtype) || (d == floor(d) &&
			isfinite(d)) ? "is out of the range of" :
			"is not exactly representable in";
		if (name)
			stir_error(ctx, stir_loc_none(), "array '%s': entry %" PRId64
				" is %s (%s), which %s %s", name, i, v,
				stir_dtype_get_name(a->dtype), why, stir_dtype_get_name(dtype));
		else
			stir_error(ctx, stir_loc_none(), "entry %" PRId64 " is %s (%s), "
				"which %s %s", i, v, stir_dtype_get_name(a->dtype), why,
				stir_dtype_get_name(dtype));
		return NULL;
	}
	stir_array *c = stir_array_alloc(ctx, dtype, a->ndim, a->shape);
	if (!c)
		return NULL;
	bool ints = !stir_dtype_is_float(dtype) && !stir_dtype_is_float(a->dtype);
	for (int64_t i = 0; i < a->len; i++) {
		if (ints)
			stir_array_set_int(c, i, stir_array_get_int(a, i));
		else
			stir_array_set_double(c, i, stir_array_get_double(a, i));
	}
	return c;
}

stir_array *stir_array_convert(stir_ctx *ctx, const stir_array *a,
	stir_dtype dtype)
{
	return stir_array_convert_named(ctx, a, dtype, NULL);
}

/* ---- bindings ---- */

typedef struct size_binding {
	char *name;     /* owned */
	int64_t value;
} size_binding;

typedef struct array_binding {
	char *name;     /* owned */
	stir_array *a;  /* owned */
} array_binding;

struct stir_bindings {
	int n_sizes, cap_sizes;
	size_binding *sizes;   /* owned, in order of first binding */
	int n_arrays, cap_arrays;
	array_binding *arrays; /* owned, in order of first binding */
};

stir_bindings *stir_bindings_alloc(void)
{
	return calloc(1, sizeof(stir_bindings));
}

void stir_bindings_free(stir_bindings *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->n_sizes; i++)
		free(b->sizes[i].name);
	free(b->sizes);
	for (int i = 0; i < b->n_arrays; i++) {
		free(b->arrays[i].name);
		stir_array_free(b->arrays[i].a);
	}
	free(b->arrays);
	free(b);
}

/* Grow *v (of *cap elements of "elem" bytes) to hold at least n+1. */
static int grow(void **v, int *cap, int n, size_t elem)
{
	if (n < *cap)
		return 0;
	int c = *cap ? 2 * *cap : 8;
	void *p = realloc(*v, (size_t)c * elem);
	if (!p)
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

int stir_bindings_set_size(stir_bindings *b, const char *name, int64_t value)
{
	for (int i = 0; i < b->n_sizes; i++) {
		if (!strcmp(b->sizes[i].name, name)) {
			b->sizes[i].value = value;
			return 0;
		}
	}
	if (grow((void **)&b->sizes, &b->cap_sizes, b->n_sizes,
		sizeof(*b->sizes)) < 0)
		return -1;
	char *n = strdup(name);
	if (!n)
		return -1;
	b->sizes[b->n_sizes].name = n;
	b->sizes[b->n_sizes].value = value;
	b->n_sizes++;
	return 0;
}

bool stir_bindings_get_size(const stir_bindings *b, const char *name,
	int64_t *value)
{
	for (int i = 0; i < b->n_sizes; i++) {
		if (!strcmp(b->sizes[i].name, name)) {
			if (value)
				*value = b->sizes[i].value;
			return true;
		}
	}
	return false;
}

int stir_bindings_set_array(stir_bindings *b, const char *name, stir_array *a)
{
	if (!a)
		return -1;
	for (int i = 0; i < b->n_arrays; i++) {
		if (!strcmp(b->arrays[i].name, name)) {
			if (b->arrays[i].a != a)
				stir_array_free(b->arrays[i].a);
			b->arrays[i].a = a;
			return 0;
		}
	}
	char *n = strdup(name);
	if (!n || grow((void **)&b->arrays, &b->cap_arrays, b->n_arrays,
		sizeof(*b->arrays)) < 0) {
		free(n);
		stir_array_free(a);
		return -1;
	}
	b->arrays[b->n_arrays].name = n;
	b->arrays[b->n_arrays].a = a;
	b->n_arrays++;
	return 0;
}

stir_array *stir_bindings_get_array(const stir_bindings *b, const char *name)
{
	for (int i = 0; i < b->n_arrays; i++)
		if (!strcmp(b->arrays[i].name, name))
			return b->arrays[i].a;
	return NULL;
}

void stir_bindings_remove_array(stir_bindings *b, const char *name)
{
	for (int i = 0; i < b->n_arrays; i++) {
		if (strcmp(b->arrays[i].name, name))
			continue;
		free(b->arrays[i].name);
		stir_array_free(b->arrays[i].a);
		memmove(&b->arrays[i], &b->arrays[i + 1],
			(size_t)(b->n_arrays - i - 1) * sizeof(*b->arrays));
		b->n_arrays--;
		return;
	}
}

int stir_bindings_n_sizes(const stir_bindings *b)
{
	return b->n_sizes;
}

const char *stir_bindings_get_size_name(const stir_bindings *b, int i)
{
	return i >= 0 && i < b->n_sizes ? b->sizes[i].name : NULL;
}

int stir_bindings_n_arrays(const stir_bindings *b)
{
	return b->n_arrays;
}

const char *stir_bindings_get_array_name(const stir_bindings *b, int i)
{
	return i >= 0 && i < b->n_arrays ? b->arrays[i].name : NULL;
}

stir_bindings *stir_bindings_copy(const stir_bindings *b)
{
	stir_bindings *c = stir_bindings_alloc();
	if (!c)
		return NULL;
	for (int i = 0; i < b->n_sizes; i++)
		if (stir_bindings_set_size(c, b->sizes[i].name, b->sizes[i].value))
			goto fail;
	for (int i = 0; i < b->n_arrays; i++) {
		const stir_array *a = b->arrays[i].a;
		stir_array *d = malloc(sizeof(*d));
		if (!d)
			goto fail;
		*d = *a;
		size_t bytes = (size_t)a->len * stir_dtype_get_size(a->dtype);
		d->data = malloc(bytes ? bytes : 1);
		if (!d->data) {
			free(d);
			goto fail;
		}
		memcpy(d->data, a->data, bytes);
		if (stir_bindings_set_array(c, b->arrays[i].name, d))
			goto fail;
	}
	return c;
fail:
	stir_bindings_free(c);
	return NULL;
}
