/* The COO arrays of fused iterations (stir_sparse_fuse_coo,
 * docs/schedules.md "Stored rows of a fused iteration"): for a fuse group
 * with coo over axes X1 .. Xn, the array "Xn.pos_Xi" holds, for every
 * position of Xn, the position of its ancestor Xi, which lowering reads
 * instead of searching the indptr arrays.  The arrays follow from the
 * indptr arrays of the axes between Xi and Xn: binding derives them
 * (stir_kernel_bind_coo) and every layout that still has axes (stages I
 * and II) checks a bound one entry by entry against them. */
#ifndef STIR_IR_COO_H
#define STIR_IR_COO_H

#include "ir/layout.h"

/* The pairs (J, X) of the COO arrays kernel "k" takes: at stage I those of
 * its fuse groups with coo, at stage II its COO buffers; none at stage
 * III (they are plain flat buffers there).  Each pair once, in the order
 * of the program; up to "max" go to js[] and xs[].  Returns the count. */
int stir_kernel_coo_pairs(const stir_kernel *k, int max,
	const stir_axis **js, const stir_axis **xs);

/* The array name "J.pos_X" of the pair (j, x), interned in ctx; NULL after
 * reporting that memory ran out. */
const char *stir_coo_array_name(stir_ctx *ctx, const stir_axis *j,
	const stir_axis *x);

/* Whether "name" is the array of a COO pair of k; the pair in *j, *x. */
bool stir_kernel_coo_of_array(const stir_kernel *k, const char *name,
	const stir_axis **j, const stir_axis **x);

/* Check the array bound for the pair (j, x) in b under layout l (whose
 * axis arrays are checked): present, of x's index type, npos(j) long,
 * and every entry the position of x that holds that position of j.  0,
 * or -1 with an error naming the array and the first bad entry. */
int stir_coo_check(const stir_layout *l, const stir_bindings *b,
	const stir_axis *j, const stir_axis *x);

/* Bind the pair (j, x) of k in b under layout l (sizes evaluated): an
 * array bound already is checked (stir_coo_check's rules, against the
 * bound indptr arrays); else it is derived from them.  0, or -1 with an
 * error at "where" when the indptr arrays it follows from are missing
 * or not valid. */
int stir_coo_bind(const stir_kernel *k, stir_bindings *b,
	const stir_layout *l, const stir_axis *j, const stir_axis *x,
	stir_loc where);

#endif
