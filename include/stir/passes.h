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
