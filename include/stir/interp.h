/* stir: running kernels on the host.
 *
 * The interpreter executes a kernel of any stage on host arrays exactly as
 * docs/language.md defines it; it is the reference every other backend is
 * checked against.  Before running, every size and array is checked: sizes
 * must be bound and non-negative, arrays must have the length their axes
 * imply, structure arrays must be well formed (indptr length, monotonicity,
 * end value; indices in range and ascending where the axis is sorted) and
 * integer tensors with a declared domain must respect it.  A violation is
 * an error that names the array and its first bad entry.
 */
#ifndef STIR_INTERP_H
#define STIR_INTERP_H

#include <stdint.h>
#include <stir/ir.h>
#include <stir/io.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Check that "b" holds every size and array kernel "k" needs and that they
 * are consistent (see above).  0 or -1 with diagnostics. */
STIR_EXPORT int stir_kernel_verify_bindings(__stir_keep const stir_kernel *k,
	__stir_keep const stir_bindings *b);

/* Run "k" on the host, reading and writing the arrays in "b".  Locals are
 * allocated by the interpreter.  0 or -1 with diagnostics; on failure the
 * arrays may be partly written. */
STIR_EXPORT int stir_kernel_interpret(__stir_keep const stir_kernel *k,
	__stir_keep stir_bindings *b);

/* Run stage I kernel "k" on "b" for the magnitudes of its sums: every
 * float array of b replaced by its magnitude, then a copy of k run with
 * every subtraction made an addition, every negation dropped and every
 * min made a max, so that each output element receives the sum of the
 * magnitudes of the terms that make it -- the scale of its rounding
 * error when the terms are added in another order (atomic adds on the
 * GPU), which a check of a result whose terms cancel must allow
 * (ir/magnitude.c).  0; 1 (b's float arrays made magnitudes, nothing
 * run) when k computes its floats with more than + - * /, abs, max, min
 * and casts between float types; -1 with diagnostics on an error. */
STIR_EXPORT int stir_kernel_interpret_magnitudes(
	__stir_keep const stir_kernel *k, __stir_keep stir_bindings *b);

/* Bind every size and array of "k" that "b" does not hold yet to valid
 * random data drawn from "seed": sizes not determined by structure in a
 * small range, structure arrays that satisfy the axes' rules (including
 * empty rows, rows with one entry and full rows), floats in [-1, 1), integer
 * tensors within their declared domain.  Deterministic for a given seed.
 * 0 or -1 with diagnostics. */
STIR_EXPORT int stir_kernel_bind_random(__stir_keep const stir_kernel *k,
	__stir_keep stir_bindings *b, uint64_t seed);

/* Bind tensor "tensor" (over [I, J], I dense_fixed, J sparse_variable) to a
 * CSR matrix: its sizes, J.indptr, J.indices and values, converted to the
 * axes' index type and the tensor's type.  A tensor over [I, J, G], G
 * dense_fixed of a literal length R, binds to the matrix's row groups
 * (stir_csr_to_row_groups, include/stir/formats.h: I the groups of R rows,
 * J the union of their columns, the values at the groups' slots, 0 where
 * a row lacks the column; examples/sddmm_vb4.stir).  A size already bound to a
 * different value is an error, and so is an array of the matrix that is
 * NULL (values included: a pattern matrix holds 1.0s).  0 or -1 with
 * diagnostics. */
STIR_EXPORT int stir_kernel_bind_csr(__stir_keep const stir_kernel *k,
	__stir_keep stir_bindings *b, const char *tensor,
	__stir_keep const stir_csr *csr);

/* Bind tensor "tensor" (over [R, I, J], R dense_fixed, I a sparse_variable
 * child of R, J a sparse_variable child of I) to relational graph "h": R's
 * length (relations), I's and J's lengths (nodes), I's and J's non-zeros,
 * I.indptr/I.indices (each relation's rows) and J.indptr/J.indices (each
 * row's columns), and the values, converted to the axes' index type and
 * the tensor's type.  A size already bound to a different value is an
 * error.  0 or -1 with diagnostics. */
STIR_EXPORT int stir_kernel_bind_hetero(__stir_keep const stir_kernel *k,
	__stir_keep stir_bindings *b, const char *tensor,
	__stir_keep const stir_hetero *h);

/* Read the Matrix Market file "path" (see stir_mtx_read_from_file) for tensor
 * "tensor" of "k" (which must be a matrix stir_kernel_bind_csr accepts):
 * a file declaring more rows, columns or entries than the tensor's size
 * and index types hold is refused at its size line, before anything is
 * allocated for them.  NULL with a diagnostic on failure. */
STIR_EXPORT __stir_give stir_csr *stir_kernel_read_csr_from_file(
	__stir_keep const stir_kernel *k, const char *tensor, const char *path);

/* Bind array "name" of kernel "k" to "a" (taking ownership, even on
 * failure): "a" is converted to the array's element type, and sizes that
 * are bare parameters not bound yet are taken from it -- each axis length
 * of a dense tensor from the matching dimension of a multi-dimensional
 * array, and for "J.indptr" the parent's length from its number of entries
 * (when the parent is dense_fixed) and J's NNZ from its last entry.  A size
 * already bound to another value is an error.  0 or -1 with diagnostics. */
STIR_EXPORT int stir_kernel_bind_array(__stir_keep const stir_kernel *k,
	__stir_keep stir_bindings *b, const char *name, __stir_take stir_array *a);

/* Bind the COO arrays of "k" (stir_sparse_fuse_coo: "J.pos_X" for every
 * fuse group with coo at stage I, every COO buffer at stage II) that "b"
 * does not hold yet, derived from the bound indptr arrays, and check
 * those it holds against them; every size must be bound.  A stage III
 * kernel has none to bind (its COO buffers take arrays as they are,
 * checked only against their domains): bind them for the stage I or II
 * form.  0 or -1 with diagnostics (an array that disagrees names its
 * first bad entry). */
STIR_EXPORT int stir_kernel_bind_coo(__stir_keep const stir_kernel *k,
	__stir_keep stir_bindings *b);

/* Bind a zero-filled array to every tensor of "k" that the kernel writes
 * and "b" does not hold yet (its outputs); every size must be bound.  0 or
 * -1 with diagnostics. */
STIR_EXPORT int stir_kernel_bind_outputs(__stir_keep const stir_kernel *k,
	__stir_keep stir_bindings *b);

/* The natural shape of array "name" of "k" under the sizes in "b": a dense
 * tensor's axis lengths, otherwise the 1-D length.  0 or -1. */
STIR_EXPORT int stir_kernel_get_array_shape(__stir_keep const stir_kernel *k,
	__stir_keep const stir_bindings *b, const char *name, int *ndim,
	int64_t *shape);

/* The names of every array kernel "k" takes, in argument order: axis
 * structure arrays ("J.indptr", "J.indices") in axis order, then tensors.
 * Returns the count; names[i] are borrowed from the kernel. */
STIR_EXPORT int stir_kernel_get_array_names(__stir_keep const stir_kernel *k,
	int max, const char **names);

#ifdef __cplusplus
}
#endif
#endif
