/* stir: transformation passes.
 *
 * A pass takes a module (every kernel of the right stage) or one kernel,
 * checks all its preconditions first, and either transforms the IR or
 * leaves it untouched and returns -1 with diagnostics in the context.
 * Every pass ends by verifying what it produced.
 */
#ifndef STIR_PASSES_H
#define STIR_PASSES_H

#include <stir/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Stage I schedules (SparseTIR section 3.2.2).  Both find the sparse
 * iteration named "iter" (at any depth) and name its iterators. */

/* Reorder the axis list of iteration "iter": "order" lists all its
 * iterators in the new order; a fuse group moves as a whole and must stay
 * contiguous.  Illegal when an axis would come before its parent (or its
 * attach parent) or the result does not verify.  0, or -1 with the kernel
 * untouched. */
STIR_EXPORT int stir_sparse_reorder(__stir_keep stir_kernel *k,
	const char *iter, int n, const char *const *order);

/* Fuse the iterators "iters" of iteration "iter" into one flat space: they
 * must be adjacent in the iteration's list, each the parent of the next (a
 * parent chain), not attached, and fusing must keep the iteration valid.
 * 0, or -1 with the kernel untouched. */
STIR_EXPORT int stir_sparse_fuse(__stir_keep stir_kernel *k, const char *iter,
	int n, const char *const *iters);

/* Stage I -> stage II (SparseTIR's sparse iteration lowering): structure
 * arrays become auxiliary buffers, every sparse iteration becomes nested
 * loops and blocks (its init as a nest of its own that runs first),
 * coordinates become positions (with binary searches where a sparse axis is
 * accessed by a coordinate), and every block gets its read/write regions.
 * Requires a verified stage I kernel.  0 or -1. */
STIR_EXPORT int stir_kernel_lower_sparse_iter(__stir_keep stir_kernel *k);
/* Lower every stage I kernel of m. */
STIR_EXPORT int stir_lower_sparse_iter(__stir_keep stir_module *m);

/* Stage II -> stage III (sparse buffer lowering): every buffer over axes
 * becomes a flat buffer ("A_data") addressed by the offsets of
 * docs/language.md section 4; axes disappear.  Requires a verified stage II
 * kernel.  0 or -1. */
STIR_EXPORT int stir_kernel_lower_sparse_buffer(__stir_keep stir_kernel *k);
/* Lower every stage II kernel of m. */
STIR_EXPORT int stir_lower_sparse_buffer(__stir_keep stir_module *m);

#ifdef __cplusplus
}
#endif
#endif
