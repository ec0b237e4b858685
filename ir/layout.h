/* Sizes and structure of a kernel under concrete bindings.
 *
 * A stir_layout evaluates a kernel's size parameters and axis sizes, finds
 * the arrays of every axis and buffer in a stir_bindings, and checks them
 * (docs/language.md section 5).  The interpreters and the GPU runtime build
 * one before they run a kernel. */
#ifndef STIR_IR_LAYOUT_H
#define STIR_IR_LAYOUT_H

#include <stir/interp.h>
#include "ir/nodes.h"

/* An axis under concrete sizes. */
typedef struct stir_axis_layout {
	int64_t len;             /* LEN */
	int64_t nnz;             /* NNZ (variable kinds), C (sparse_fixed), 0 */
	int64_t npos;            /* number of positions */
	const stir_array *indptr;  /* borrowed from the bindings, or NULL */
	const stir_array *indices; /* borrowed from the bindings, or NULL */
} stir_axis_layout;

typedef struct stir_layout {
	const stir_kernel *kernel;   /* borrowed */
	int64_t *params;             /* owned: value of each parameter, by index */
	stir_axis_layout *axes;      /* owned: one per axis, by index */
	int64_t *buffer_len;         /* owned: value-array length of each buffer */
} stir_layout;

/* Evaluate every size of "k" from "b" (all parameters must be bound) and,
 * when "check_arrays" is set, find and check every axis array and tensor.
 * 0, or -1 with diagnostics (the layout is then released). */
int stir_layout_init(stir_layout *l, const stir_kernel *k,
	const stir_bindings *b, bool check_arrays);
void stir_layout_release(stir_layout *l);

/* e, k: the first node of e (in order) that keeps it from being a size
 * expression, NULL when it is one: integer literals, integer parameters
 * (of kernel k, when not NULL) and integer arithmetic of those (+ - * /
 * %, unary -, min, max, abs, casts to an integer type).  The one rule of
 * sizes: the verifier's for declared sizes (ir/verify_decl.c), the
 * loop extents stir_layout_init checks, and the extents the GPU verifier
 * lets size a launch (verify/verify_gpu.c); stir_eval_size evaluates
 * every such expression. */
const stir_expr *stir_size_offender(const stir_expr *e, const stir_kernel *k);

/* Evaluate a size expression (literals and parameters) given parameter
 * values by parameter index.  Every subexpression must fit its own type
 * (stage III and the GPU compute it there): a value that does not is an
 * error ("size expression 'm * n' is 4294967296, which does not fit in
 * its type i32"), reported at the subexpression.  0, or -1 with a
 * diagnostic. */
int stir_eval_size(stir_ctx *ctx, const stir_kernel *k, const stir_expr *e,
	const int64_t *params, int64_t *value);
/* The same, reported at "where" when the subexpression has no location
 * of its own (one built by lowering or a schedule). */
int stir_eval_size_at(stir_ctx *ctx, const stir_kernel *k, const stir_expr *e,
	const int64_t *params, int64_t *value, stir_loc where);

/* Number of elements of "b"'s value array: the product over its chains of
 * the positions of each chain's last axis (docs/language.md section 4). */
int64_t stir_layout_buffer_len(const stir_layout *l, const stir_buffer *b);

/* The location of statement "s", or of the first statement inside it that
 * has one (loops made by lowering or a schedule have none); line 0 when
 * none has. */
stir_loc stir_stmt_first_loc(const stir_stmt *s);

/* The integer type that flat offsets into buffer "b" are computed in: for
 * a buffer over axes the type of the product of its chains' numbers of
 * positions (the extent lowering gives its flat buffer: the widest type of
 * the sizes it uses), for a flat buffer its extent's type.  A binding
 * whose element count does not fit it is refused (stir_layout_init). */
stir_dtype stir_buffer_offset_dtype(const stir_buffer *b);

/* Whether axis "b->axes[i]" ends a chain in buffer "b" (the next axis, if
 * any, is not its child).  Inline: the interpreter asks it at every
 * access. */
static inline bool stir_buffer_axis_ends_chain(const stir_buffer *b, int i)
{
	return i + 1 >= b->n_axes || b->axes[i + 1]->parent != b->axes[i];
}

/* The array names of an axis, "J.indptr" and "J.indices", interned in
 * ctx.  They are never cut short, so that two arrays of a kernel never
 * share a name however long the names of its axes and tensors.  NULL when
 * memory runs out (reported in ctx). */
const char *stir_axis_indptr_name(stir_ctx *ctx, const stir_axis *a);
const char *stir_axis_indices_name(stir_ctx *ctx, const stir_axis *a);
bool stir_axis_has_indptr(const stir_axis *a);
bool stir_axis_has_indices(const stir_axis *a);

/* Positions of axis "a" (index ai) under parent position pp: [*lo, *hi).
 * For a root, pp is ignored. */
void stir_layout_range(const stir_layout *l, const stir_axis *a, int64_t pp,
	int64_t *lo, int64_t *hi);
/* The coordinate of position p of axis a under parent position pp. */
int64_t stir_layout_coord(const stir_layout *l, const stir_axis *a, int64_t pp,
	int64_t p);
/* The position of coordinate c of axis a under parent position pp, or -1
 * when c is not stored there.  Inline for dense_fixed axes (the
 * interpreter looks up a coordinate at most accesses), the others through
 * stir_layout_lookup_stored. */
int64_t stir_layout_lookup_stored(const stir_layout *l, const stir_axis *a,
	int64_t pp, int64_t c);
static inline int64_t stir_layout_lookup(const stir_layout *l,
	const stir_axis *a, int64_t pp, int64_t c)
{
	if (a->kind != STIR_DENSE_FIXED)
		return stir_layout_lookup_stored(l, a, pp, c);
	return c >= 0 && c < l->axes[a->index].len ? c : -1;
}

/* A new array holding the elements of "a" converted to "dtype" (same
 * shape), or NULL with an error naming array "name" (NULL: none) and
 * quoting the first element that does not convert: to an integer type
 * (or bool) an element must be exactly representable (no NaN, infinity,
 * fraction or out-of-range value); to a float type it is rounded, but a
 * finite element may not overflow to infinity. */
stir_array *stir_array_convert_named(stir_ctx *ctx, const stir_array *a,
	stir_dtype dtype, const char *name);

#endif
