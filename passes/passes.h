/* The sub-passes of the lowering passes, callable and testable one by one
 * (include/stir/passes.h has the public passes built from them).  Each
 * works on one kernel and returns 0 or -1 with diagnostics; the IR between
 * two sub-passes is an intermediate form that only the next sub-pass
 * accepts, except after the last one. */
#ifndef STIR_PASSES_PASSES_H
#define STIR_PASSES_PASSES_H

#include <stir/pipeline.h>
#include "ir/nodes.h"

/* The number of positions of axis a as an expression of parameters: LEN
 * (dense_fixed), npos(parent) * C (sparse_fixed), NNZ (variable kinds).
 * (passes/materialize.c) */
stir_expr *stir_axis_npos_expr(stir_kernel *k, const stir_axis *a);

/* lower_sparse_iter, step 1 (passes/materialize.c).
 * Requires: a verified stage I kernel.
 * Adds: for every variable axis X a buffer X_indptr (npos(parent) + 1
 * elements, values in [0, NNZ + 1)), for every sparse axis X_indices
 * (npos(X) elements, values in [0, LEN)), bound to "X.indptr"/"X.indices"
 * and linked from the axis; for every fuse group with coo, over axes
 * X1 .. Xn, and every member Xi before the last, a COO buffer
 * Xn_pos_Xi (npos(Xn) elements, values in [0, npos(Xi))) bound to
 * "Xn.pos_Xi", one per pair of axes however many groups share it; they
 * come first in the buffer list.
 * Keeps: everything else. */
int stir_materialize_aux_buffers(stir_kernel *k);

/* The COO buffer of kernel k that holds, for every position of axis j,
 * the position of its ancestor x (stage II), or NULL. */
stir_buffer *stir_kernel_coo_buffer(const stir_kernel *k, const stir_axis *j,
	const stir_axis *x);

/* lower_sparse_iter, step 2 (passes/loops.c).
 * Requires: step 1 done.
 * Replaces every sparse iteration by its init nest (a loop per spatial
 * axis, a block NAME_initN, running before anything else of the
 * iteration) and its main nest (a loop per iterated axis, a fused group as
 * one loop over its last member's positions with upper-bound searches for
 * the rows of the others, a new block NAMEN wherever a loop's extent
 * depends on a variable of the block being built).  The bodies move into
 * the innermost blocks unchanged: they still use iterators and coordinates,
 * and each iterator records (pos, gpos, coord, parent_var) the expressions
 * step 3 needs.  Breaks: the kernel verifies again only after step 3. */
int stir_generate_loops(stir_kernel *k);

/* lower_sparse_iter, step 3 (passes/translate.c).
 * Requires: step 2 done.
 * Rewrites every use of an iterator into its coordinate and every access
 * to a buffer over axes into relative positions: the iterated position
 * where the access follows the iteration, a direct position for dense
 * axes, a lower-bound search (deduplicated within its scope) for a sparse
 * axis accessed by coordinate; reads of coordinates that are not stored
 * give 0, writes to them are skipped. */
int stir_translate_coords(stir_kernel *k);

/* lower_sparse_iter, step 4, and after every schedule (passes/regions.c).
 * Requires: a kernel of stage II or III form (any iterators translated).
 * Sets the read and write regions of every block: per buffer in order of
 * first access, per dimension the common point, a range of points that
 * differ by constants, or the whole dimension (indices that vary inside
 * the block). */
int stir_analyze_regions(stir_kernel *k);

/* The rewrites of lower_sparse_iter and lower_sparse_buffer
 * (include/stir/passes.h) without their checks: each requires a verified
 * kernel at its stage (I, II) and leaves the result unverified, for a
 * pipeline (include/stir/pipeline.h) that verifies between its passes.
 * 0 or -1. */
int stir_lower_sparse_iter_rewrite(stir_kernel *k);
int stir_lower_sparse_buffer_rewrite(stir_kernel *k);

/* k, name, stage, rewrite: run lowering pass "name" (lower_sparse_iter,
 * lower_sparse_buffer) on k as the public pass does: k must be at "stage"
 * and verify; "rewrite" changes it and it must verify after; then the
 * module's arena is collected (stir_module_collect keeps what the kernels
 * reach).  The made-record is cleared first, and again when the rewrite
 * fails.  0 or -1 with diagnostics.  (passes/pipeline.c) */
int stir_lowering_run(stir_kernel *k, const char *name, stir_stage stage,
	int (*rewrite)(stir_kernel *k));
/* m, stage, pass: pass on every kernel of m at "stage", in order, until
 * one fails.  0 or -1. */
int stir_lowering_run_module(stir_module *m, stir_stage stage,
	int (*pass)(stir_kernel *k));

/* stir_pipeline_add_pass (include/stir/pipeline.h) with an argument the
 * pipeline owns: "arg" (malloc'ed, may be NULL) is freed with p, or at
 * once when the pass cannot be added.  0 or -1. */
int stir_pipeline_add_pass_owned(stir_pipeline *p, const char *name,
	stir_stage stage, unsigned flags, stir_pass_fn fn, void *arg);

#endif
