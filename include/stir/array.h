/* stir: scalar types and host arrays.
 *
 * A stir_array is a host array with a scalar type and a shape (row-major,
 * C order).  Arrays are what a kernel reads and writes: tensor values and
 * the structure arrays of axes ("J.indptr", "J.indices").  A stir_bindings
 * maps the names of a kernel's size parameters and arrays to values; it is
 * what the interpreter and the GPU runtime execute a kernel on.
 */
#ifndef STIR_ARRAY_H
#define STIR_ARRAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stir/ctx.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The scalar types of the language (LANGUAGE.md section 1).  STIR_BOOL is
 * the type of comparisons; no tensor or parameter has it. */
typedef enum stir_dtype {
	STIR_DTYPE_NONE = 0,
	STIR_I8,
	STIR_I32,
	STIR_I64,
	STIR_F16,
	STIR_BF16,
	STIR_F32,
	STIR_F64,
	STIR_BOOL,
} stir_dtype;

#define STIR_MAX_DIMS 8

/* The type's name as the language spells it ("f32"), or "?" */
STIR_EXPORT const char *stir_dtype_get_name(stir_dtype t);
/* The type named "name", or STIR_DTYPE_NONE. */
STIR_EXPORT stir_dtype stir_dtype_from_name(const char *name);
/* Size of one element in bytes (0 for STIR_DTYPE_NONE). */
STIR_EXPORT size_t stir_dtype_get_size(stir_dtype t);
STIR_EXPORT bool stir_dtype_is_int(stir_dtype t);
STIR_EXPORT bool stir_dtype_is_float(stir_dtype t);

/* IEEE binary16 and bfloat16 conversions, rounding to nearest even. */
STIR_EXPORT uint16_t stir_f16_from_double(double x);
STIR_EXPORT double stir_f16_to_double(uint16_t h);
STIR_EXPORT uint16_t stir_bf16_from_double(double x);
STIR_EXPORT double stir_bf16_to_double(uint16_t h);

typedef struct stir_array stir_array;

/* A new array of "ndim" dimensions, zero-filled; NULL (with an error in ctx)
 * when the size overflows or memory runs out. */
STIR_EXPORT __stir_give stir_array *stir_array_alloc(__stir_keep stir_ctx *ctx,
	stir_dtype dtype, int ndim, const int64_t *shape);
STIR_EXPORT __stir_give stir_array *stir_array_copy(__stir_keep stir_ctx *ctx,
	__stir_keep const stir_array *a);
STIR_EXPORT void stir_array_free(__stir_take stir_array *a);

STIR_EXPORT stir_dtype stir_array_get_dtype(__stir_keep const stir_array *a);
STIR_EXPORT int stir_array_get_ndim(__stir_keep const stir_array *a);
STIR_EXPORT int64_t stir_array_get_dim(__stir_keep const stir_array *a, int i);
/* Total number of elements. */
STIR_EXPORT int64_t stir_array_get_len(__stir_keep const stir_array *a);
STIR_EXPORT __stir_keep void *stir_array_get_data(__stir_keep stir_array *a);
STIR_EXPORT __stir_keep const void *stir_array_get_const_data(
	__stir_keep const stir_array *a);
/* Reshape to "ndim" dimensions with the same number of elements. */
STIR_EXPORT int stir_array_reshape(__stir_keep stir_array *a, int ndim,
	const int64_t *shape);

/* Element i as a double or as an integer, converting from the array's type. */
STIR_EXPORT double stir_array_get_double(__stir_keep const stir_array *a,
	int64_t i);
STIR_EXPORT int64_t stir_array_get_int(__stir_keep const stir_array *a,
	int64_t i);
/* Store v into element i, converting (rounding) to the array's type. */
STIR_EXPORT void stir_array_set_double(__stir_keep stir_array *a, int64_t i,
	double v);
STIR_EXPORT void stir_array_set_int(__stir_keep stir_array *a, int64_t i,
	int64_t v);
/* Fill every element with v. */
STIR_EXPORT void stir_array_fill(__stir_keep stir_array *a, double v);

/* Compare two arrays of the same length the way stir compares the runs
 * of one kernel at two stages or on two backends (stirc verify, run
 * --check, the tests and fuzzers): element j agrees when |got - want| <=
 * tol * (1 + |want|), with tol by want's type: 1e-9 f64, 1e-4 f32, 1e-2
 * f16, 5e-2 bf16, 0 for integers and bool; a NaN agrees only with a NaN,
 * an infinity only with itself.  Returns how many elements disagree (-1
 * when the lengths differ); *where (if not NULL) receives the index of
 * the one that differs most, or -1, and *worst (if not NULL) the largest
 * absolute difference of all. */
STIR_EXPORT int64_t stir_array_compare(__stir_keep const stir_array *got,
	__stir_keep const stir_array *want, int64_t *where, double *worst);
/* The tolerance of stir_array_compare for type t (0 for integers). */
STIR_EXPORT double stir_dtype_get_tolerance(stir_dtype t);
/* stir_array_compare with tolerance "tol" instead of want's type's (a
 * kernel that computes in less precision than its types say:
 * stir_kernel_get_tolerance). */
STIR_EXPORT int64_t stir_array_compare_within(
	__stir_keep const stir_array *got, __stir_keep const stir_array *want,
	double tol, int64_t *where, double *worst);

/* A new array holding the elements of "a" converted to "dtype" (same
 * shape), or NULL with an error quoting the first element that does not
 * convert: to an integer type an element must be exactly representable
 * (no NaN, infinity, fraction or out-of-range value); to a float type it
 * is rounded, but a finite element may not overflow to infinity. */
STIR_EXPORT __stir_give stir_array *stir_array_convert(
	__stir_keep stir_ctx *ctx, __stir_keep const stir_array *a,
	stir_dtype dtype);

/* Bindings: sizes and arrays by name. */
typedef struct stir_bindings stir_bindings;

STIR_EXPORT __stir_give stir_bindings *stir_bindings_alloc(void);
STIR_EXPORT void stir_bindings_free(__stir_take stir_bindings *b);

/* Set (or replace) the value of a size parameter.  Returns 0, or -1 when
 * memory runs out. */
STIR_EXPORT int stir_bindings_set_size(__stir_keep stir_bindings *b,
	const char *name, int64_t value);
/* Whether size "name" is bound, and its value in *value. */
STIR_EXPORT bool stir_bindings_get_size(__stir_keep const stir_bindings *b,
	const char *name, int64_t *value);
/* Bind (or replace) array "name"; the bindings take ownership of "a" even on
 * failure.  Returns 0, or -1 when memory runs out. */
STIR_EXPORT int stir_bindings_set_array(__stir_keep stir_bindings *b,
	const char *name, __stir_take stir_array *a);
/* The array bound to "name", or NULL. */
STIR_EXPORT __stir_keep stir_array *stir_bindings_get_array(
	__stir_keep const stir_bindings *b, const char *name);
/* Remove array "name" (freeing it); nothing happens if it is not bound. */
STIR_EXPORT void stir_bindings_remove_array(__stir_keep stir_bindings *b,
	const char *name);
/* Iterate: the names of bound sizes and arrays in the order they were first
 * bound. */
STIR_EXPORT int stir_bindings_n_sizes(__stir_keep const stir_bindings *b);
STIR_EXPORT const char *stir_bindings_get_size_name(
	__stir_keep const stir_bindings *b, int i);
STIR_EXPORT int stir_bindings_n_arrays(__stir_keep const stir_bindings *b);
STIR_EXPORT const char *stir_bindings_get_array_name(
	__stir_keep const stir_bindings *b, int i);
/* A deep copy; NULL when memory runs out. */
STIR_EXPORT __stir_give stir_bindings *stir_bindings_copy(
	__stir_keep const stir_bindings *b);

#ifdef __cplusplus
}
#endif
#endif
