/* stir: schedule primitives for stages II and III (docs/schedules.md).
 *
 * A schedule changes how a kernel runs, never what it computes: every
 * primitive checks that the request is legal first and either rewrites the
 * kernel (and re-verifies it) or leaves it untouched and returns -1 with a
 * diagnostic.  Blocks are found by their exact name; a loop by the name of
 * its variable among the loops that enclose the given block.
 *
 * Annotations (bind, unroll, vectorize, atomic, cross-thread reduction,
 * memory scopes) do not change the kernel's meaning as the interpreter
 * runs it, loop by loop; they tell the CUDA emitter how to map it onto the
 * GPU, and their legality checks are what make that mapping correct.
 */
#ifndef STIR_SCHEDULE_H
#define STIR_SCHEDULE_H

#include <stdint.h>
#include <stir/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- loops ---- */

/* Split loop "loop" around block "block" into n nested loops named
 * LOOP_0 (outermost) .. LOOP_{n-1} with extents factors[0..n-1]; at most one
 * factor may be 0, meaning ceil(extent / product of the others).  Factors
 * need not divide the extent: the body is then guarded by
 * "LOOP_0 * f1 * .. + LOOP_{n-1} < extent".  n >= 2, factors > 0. */
STIR_EXPORT int stir_split(__stir_keep stir_kernel *k, const char *block,
	const char *loop, int n, const int64_t *factors);

/* Fuse n perfectly nested loops (outermost first, each the only statement
 * of the one before) into one loop named LOOP1_LOOP2_..; an inner extent
 * must not depend on an outer loop. */
STIR_EXPORT int stir_fuse(__stir_keep stir_kernel *k, const char *block,
	int n, const char *const *loops);

/* Reorder perfectly nested loops: "loops" lists loops of one perfect nest
 * (no block between them) in their new order; loops not listed keep their
 * places.  An extent may not depend on a loop moved outside it. */
STIR_EXPORT int stir_reorder(__stir_keep stir_kernel *k, const char *block,
	int n, const char *const *loops);

/* Bind a loop to a GPU thread index.  Its extent must be an expression of
 * parameters (the host computes launch sizes from it); a loop enclosing it
 * may not be bound to the same index; a loop that iterates a reduction
 * variable of some block needs that block to be atomic or cross-thread
 * reduced first. */
STIR_EXPORT int stir_bind(__stir_keep stir_kernel *k, const char *block,
	const char *loop, stir_thread thread);

/* Unroll a loop (its extent should be a literal for the compiler to
 * unroll it fully; any extent is legal). */
STIR_EXPORT int stir_unroll(__stir_keep stir_kernel *k, const char *block,
	const char *loop);

/* Vectorize a loop: an innermost loop with literal extent 2 or 4 whose
 * body has no blocks with reductions over it; the emitter uses vector loads
 * and stores where accesses are contiguous and aligned, scalar ones
 * otherwise. */
STIR_EXPORT int stir_vectorize(__stir_keep stir_kernel *k, const char *block,
	const char *loop);

/* ---- reductions ---- */

/* Make the stores of block "block" atomic: every store must be += or -=;
 * then its reduction loops may be bound to threads. */
STIR_EXPORT int stir_set_atomic(__stir_keep stir_kernel *k, const char *block);

/* Reduce block "block" across the threads of loop "loop" (which iterates a
 * reduction variable of the block and is, or will be, bound to
 * threadIdx.x): each thread accumulates its part, a warp-shuffle tree
 * combines the parts, one thread stores.  The block's body must be one
 * "X[..] += e" whose target does not depend on the loop. */
STIR_EXPORT int stir_cross_thread_reduce(__stir_keep stir_kernel *k,
	const char *block, const char *loop);

/* TVM's rfactor: split the reduction of block "block" over loop "loop"
 * into partial results rf[loop] computed by a new block "BLOCK_rf" into a
 * local buffer, and a block that combines them. */
STIR_EXPORT int stir_rfactor(__stir_keep stir_kernel *k, const char *block,
	const char *loop);

/* Move the init nest of the iteration that block "block" belongs to (the
 * blocks NAME_initN) into block's nest, just before loop "loop": every
 * loop enclosing "loop" must be spatial, and the init then runs for the
 * spatial points those loops fix.  The kernel needs one launch less. */
STIR_EXPORT int stir_decompose_reduction(__stir_keep stir_kernel *k,
	const char *block, const char *loop);

/* ---- moving computation ---- */

/* Move producer block "block" (with its own loops) into the loop "loop"
 * that encloses consumer block "target", before the consumer, computing
 * there only what the consumer reads under that loop. */
STIR_EXPORT int stir_compute_at(__stir_keep stir_kernel *k, const char *block,
	const char *target, const char *loop);
/* The same for a consumer block moved after its producer. */
STIR_EXPORT int stir_reverse_compute_at(__stir_keep stir_kernel *k,
	const char *block, const char *target, const char *loop);

/* ---- memory ---- */

/* Read buffer "buffer" of block "block" through a copy in memory "scope"
 * (shared or local): a new block BUFFER_SCOPE copies the region the block
 * reads, placed at loop "loop" (enclosing the block). */
STIR_EXPORT int stir_cache_read(__stir_keep stir_kernel *k, const char *block,
	const char *buffer, const char *loop, stir_scope scope);
/* Write buffer "buffer" of block "block" through a copy in "scope", written
 * back by a new block after loop "loop". */
STIR_EXPORT int stir_cache_write(__stir_keep stir_kernel *k, const char *block,
	const char *buffer, const char *loop, stir_scope scope);
/* The gathering variants (SparseTIR's reverse cache read/write): the rows
 * the block reads (writes) at scattered coordinates -- an index that is a
 * load -- are copied into a dense tile indexed by the loop's iteration, and
 * back. */
STIR_EXPORT int stir_reverse_cache_read(__stir_keep stir_kernel *k,
	const char *block, const char *buffer, const char *loop,
	stir_scope scope);
STIR_EXPORT int stir_reverse_cache_write(__stir_keep stir_kernel *k,
	const char *block, const char *buffer, const char *loop,
	stir_scope scope);

/* ---- launches ---- */

/* Run the top-level nests that hold blocks blocks[0..n-1] in one launch:
 * each must be bound to blockIdx.x at its outermost loop and nothing else
 * to blockIdx; their blockIdx.x ranges are laid end to end.  They must be
 * independent: no buffer written by one is read or written by another,
 * except through atomic stores in all of them. */
STIR_EXPORT int stir_horizontal_fuse(__stir_keep stir_kernel *k, int n,
	const char *const *blocks);
/* The same, where the caller asserts that the nests touch disjoint
 * elements of the nd buffers named in "buffers", so that they may share
 * them without atomic stores.  The assertion is about the data, which the
 * compiler cannot see: the parts of hybrid(1, buckets) (docs/formats.md)
 * hold disjoint rows, so their nests write disjoint rows of the output.
 * A wrong assertion gives a race on the GPU (the interpreter, which runs
 * the nests in order, does not show it). */
STIR_EXPORT int stir_horizontal_fuse_disjoint(__stir_keep stir_kernel *k,
	int n, const char *const *blocks, int nd, const char *const *buffers);

/* The default schedule: for every top-level nest with no loop bound yet,
 * split its outermost loop by 256 and bind it to blockIdx.x / threadIdx.x
 * when that is race-free (every buffer the nest writes is partitioned by
 * that loop), else make the writes atomic when they are all += or -=, else
 * run the nest on one thread.  Correct for every verified kernel. */
STIR_EXPORT int stir_default_schedule(__stir_keep stir_kernel *k);

#ifdef __cplusplus
}
#endif
#endif
