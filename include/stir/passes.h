/* stir: transformation passes.
 *
 * A pass, stir_<pass>(k, ..), takes the kernel it rewrites (its module-wide
 * form, stir_module_<pass>(m), runs it on every kernel of the right stage),
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
/* stir_sparse_fuse, with the group's COO arrays (fuse(.., coo = true),
 * docs/schedules.md): lowering reads every member's position from an
 * array "J.pos_X" over the positions of the last member J (one load)
 * instead of searching the indptr arrays for it; the arrays are derived
 * from the indptr arrays when the structure is bound
 * (stir_kernel_bind_coo) and checked against them.  Every member after
 * the first must have an indptr (dense_variable or sparse_variable).
 * Stage I semantics are unchanged. */
STIR_EXPORT int stir_sparse_fuse_coo(__stir_keep stir_kernel *k,
	const char *iter, int n, const char *const *iters);

/* Specialize kernel k (any stage) for size parameter "param" = value: every
 * use of the parameter becomes the literal, and the parameter leaves the
 * kernel's list (it need not be bound any more).  Schedules can then use
 * what is known: a split whose factors divide a literal extent needs no
 * tail guard.  The value must fit the parameter's type.  0, or -1 with k
 * untouched. */
STIR_EXPORT int stir_specialize(__stir_keep stir_kernel *k, const char *param,
	int64_t value);

/* ---- format decomposition (docs/formats.md) ---- */

/* A format rewrite rule: the axes of a new format for one tensor and how
 * the tensor's coordinates are recovered from the new format's
 * coordinates (the inverse index map).  Rules are built with the
 * constructors below, or field by field for a format of one's own. */
typedef struct stir_format_rule stir_format_rule;

/* A size of a new axis: a literal (param NULL), a new kernel parameter
 * named "param" (i32), or the length of the tensor's axis number
 * "old_axis" (param NULL, old_axis >= 0). */
typedef struct stir_size {
	const char *param;
	int64_t value;
	int old_axis;
} stir_size;

STIR_EXPORT stir_size stir_size_literal(int64_t v);
STIR_EXPORT stir_size stir_size_param(const char *name);
STIR_EXPORT stir_size stir_size_of_axis(int old_axis);

/* An empty rule whose new names end with "suffix" (e.g. "_ell"). */
STIR_EXPORT __stir_give stir_format_rule *stir_format_rule_alloc(
	const char *suffix);
STIR_EXPORT void stir_format_rule_free(__stir_take stir_format_rule *r);
/* Add a new axis "name" (the suffix is appended) of the given kind; its
 * parent is a new axis added before it, or "^K" for the tensor's own axis
 * number K (counting from 0), or NULL.  nnz is NNZ / NNZ_COLS for the kinds
 * that have one; a parameter size named "p" becomes the kernel parameter
 * "p" followed by the suffix.  0 or -1. */
STIR_EXPORT int stir_format_rule_add_axis(__stir_keep stir_format_rule *r,
	const char *name, stir_axis_kind kind, const char *parent, stir_size len,
	stir_size nnz, bool sorted);
/* Keep the tensor's own axis "^K" (number K) as an axis of the new format,
 * at this place in its axis list; its coordinate maps to itself.  0 or
 * -1. */
STIR_EXPORT int stir_format_rule_keep_axis(__stir_keep stir_format_rule *r,
	const char *old_name);
/* The inverse index map for the tensor's axis number "old_axis": its
 * coordinate is sum of coefs[i] * (coordinate of new axis axes[i]).  Every
 * axis of the tensor not kept needs one.  0 or -1. */
STIR_EXPORT int stir_format_rule_map(__stir_keep stir_format_rule *r,
	int old_axis, int n, const char *const *axes, const int64_t *coefs);

/* Declare that the rules of one decomposition, together, cover the rows of
 * the tensor (its first axis) exactly once: the host builder gives every
 * row, empty ones included, rows in exactly one rule's tensor (hybrid:
 * STIR_HYBRID_COVER_ROWS).  When every rule says so, stir_decompose_format
 * gives each new iteration the computation's init, over its own rows,
 * instead of one init iteration over the whole output; a part whose rows
 * are distinct can then write its output once (cache_write with
 * "over_init", include/stir/schedule.h). */
STIR_EXPORT void stir_format_rule_set_cover_rows(
	__stir_keep stir_format_rule *r, bool cover);

/* The shipped rules (docs/formats.md).  "suffix" names the new axes,
 * tensor and parameters. */
STIR_EXPORT __stir_give stir_format_rule *stir_format_rule_ell(const char *suffix,
	int64_t width);
STIR_EXPORT __stir_give stir_format_rule *stir_format_rule_bsr(const char *suffix,
	int64_t block);
STIR_EXPORT __stir_give stir_format_rule *stir_format_rule_padding(
	const char *suffix, int64_t p);
/* One part of hybrid(c, buckets): the rows of column range q in a bucket of
 * width "width" (the suffix is SUFFIX_q_t). */
STIR_EXPORT __stir_give stir_format_rule *stir_format_rule_hybrid_part(
	const char *suffix, int q, int t, int64_t width);
/* The hybrid format's parts and their names, in one place (the schedule
 * files' decompose steps, the host builder and callers all use these):
 * part (q, t) of a hybrid rule with suffix S has the suffix S_q_t
 * (heap; NULL when memory runs out), which names its tensor, axes and
 * size parameter (A_S_q_t over O, R, C_S_q_t; rows_S_q_t) and the arrays
 * the host builds (R_S_q_t.indices, C_S_q_t.indices, A_S_q_t). */
STIR_EXPORT __stir_give char *stir_format_hybrid_part_suffix(
	const char *suffix, int q, int t);
/* The number of parts of hybrid(c, buckets) with nb buckets that a
 * decomposition takes: c * nb, and one more, the split rows' part (0, nb),
 * when the rules cover the rows ("cover": c must be 1).  -1 when the
 * arguments are not valid. */
STIR_EXPORT int stir_format_hybrid_n_parts(int c, int nb, bool cover);
/* Part i (from 0) in that order: covering the rows, first the split
 * rows' part (0, nb) (its init then runs before the others), then every
 * part (q, t), range-major.  Its range in *q, bucket in *t.  0 or -1. */
STIR_EXPORT int stir_format_hybrid_get_part(int c, int nb, bool cover, int i,
	int *q, int *t);
/* The rule of part i of hybrid(c, buckets[0 .. nb-1]):
 * stir_format_rule_hybrid_part with the width of its bucket (the widest
 * for the split rows' part), covering the rows when "cover".  NULL when
 * the arguments are not valid. */
STIR_EXPORT __stir_give stir_format_rule *stir_format_rule_hybrid(
	const char *suffix, int c, int nb, const int64_t *buckets, bool cover,
	int i);
STIR_EXPORT __stir_give stir_format_rule *stir_format_rule_ell3d(const char *suffix,
	int64_t width);
STIR_EXPORT __stir_give stir_format_rule *stir_format_rule_dbsr(const char *suffix,
	int64_t block);
STIR_EXPORT __stir_give stir_format_rule *stir_format_rule_sr_bcrs(
	const char *suffix, int64_t t, int64_t g);
/* SR-BCRS(t, g) with its windows cut into chunks of at most c groups
 * (stir_csr_to_sr_bcrs_chunks): two parts, each a list of work items over
 * IB (items_P), the window of each item in W (sparse_fixed(IB, mt_P, 1),
 * so row = t * W + TI), its groups G, tiles T and rows TI as SR-BCRS.
 * Part 0 (suffix S_split) holds the chunks of the windows of more than c
 * groups, several items of one window adding into its rows (atomics);
 * part 1 (S_whole) every other window, empty ones too, one item each, so
 * that, covering the rows (stir_format_rule_set_cover_rows), it can write
 * its rows once and part 0's init runs before it.  With row_order, the
 * windows' rows are in a row order (stir_row_order): row = P_P[t * W +
 * TI], P_P a tensor of mt_P * t rows the pass declares distinct in [0,
 * mt_P * t) (a permutation; the entries from m on are no row).  The
 * part's suffix (heap; NULL for a part other than 0 or 1, or out of
 * memory) and rule (NULL when the arguments are not valid). */
STIR_EXPORT __stir_give char *stir_format_sr_bcrs_part_suffix(
	const char *suffix, int part);
STIR_EXPORT __stir_give stir_format_rule *stir_format_rule_sr_bcrs_chunks(
	const char *suffix, int64_t t, int64_t g, int part, bool row_order);

/* Rewrite every computation of kernel k over tensor "tensor" (a sparse
 * iteration whose axis list holds the tensor's axes as a run, in order,
 * and that accesses the tensor only at its own iterators) into one
 * computation per rule, NAME_SUFFIX, over the rule's new tensor; the
 * iteration's init becomes an iteration NAME_init of its own that runs
 * first (when every rule covers the rows, stir_format_rule_set_cover_rows:
 * the init of each new iteration, over its own rows, instead; either
 * every rule covers the rows or none).  The value-copy iterations, which fill each new tensor from the
 * old one, go into a new kernel KERNEL_copy (the preprocessing: run it, or
 * build the new format on the host and skip it).  The tensor, and axes and
 * parameters nothing uses any more, leave k.  Requires a verified stage I
 * kernel; checks everything first.  0, or -1 with k untouched.  Made
 * (include/stir/schedule.h): per rule, in order, its tensor (a buffer,
 * from "tensor"), its axes (from the new tensor, in the rule's order) and
 * its new parameters; per computation and rule its iteration (from the
 * computation's), and the init iterations (from the computation's); the
 * kernel KERNEL_copy. */
STIR_EXPORT int stir_decompose_format(__stir_keep stir_kernel *k,
	const char *tensor, int n, stir_format_rule *const *rules);

/* Stage I -> stage II (SparseTIR's sparse iteration lowering): structure
 * arrays become auxiliary buffers, every sparse iteration becomes nested
 * loops and blocks (its init as a nest of its own that runs first),
 * coordinates become positions (with binary searches where a sparse axis is
 * accessed by a coordinate), and every block gets its read/write regions.
 * Requires a verified stage I kernel.  0 or -1.  Made
 * (include/stir/schedule.h): the blocks of each iteration's nest,
 * outermost first (from the iteration), its init nest's as init blocks,
 * and the indptr and indices buffers of the axes (from the axis). */
STIR_EXPORT int stir_lower_sparse_iter(__stir_keep stir_kernel *k);
/* Lower every stage I kernel of m. */
STIR_EXPORT int stir_module_lower_sparse_iter(__stir_keep stir_module *m);

/* Stage II -> stage III (sparse buffer lowering): every buffer over axes
 * becomes a flat buffer ("A_data") addressed by the offsets of
 * docs/language.md section 4; axes disappear.  Requires a verified stage II
 * kernel.  0 or -1.  Made: each flat buffer, from the buffer it replaces
 * (A_data from A). */
STIR_EXPORT int stir_lower_sparse_buffer(__stir_keep stir_kernel *k);
/* Lower every stage II kernel of m. */
STIR_EXPORT int stir_module_lower_sparse_buffer(__stir_keep stir_module *m);

/* Stage III rewrites for the GPU (stir_kernel_prepare_for_gpu runs them,
 * in this order, after lowering; docs/ir.md, "Stage III rewrites").
 * Each takes a verified stage III kernel, keeps what it computes and
 * verifies what it produces.  0, or -1 with diagnostics. */

/* Test once, before a loop nest, the split guard in its innermost body
 * when the condition reads no memory and uses none of the nest's
 * variables: "for a { for b { if (c) { S } } }" becomes "if (c) { for a {
 * for b { S } } }" (passes/lift_guards.c says which nests). */
STIR_EXPORT int stir_lift_guards(__stir_keep stir_kernel *k);

/* Compute once, before each loop, the searches of the loop that it does
 * not change and that are safe to compute anywhere: each becomes a "let
 * hoisted" before the loop, and the equal searches inside the loop its
 * variable (passes/hoist.c says which searches move). */
STIR_EXPORT int stir_hoist_invariants(__stir_keep stir_kernel *k);

/* Before each loop, outermost first, each read of a warp buffer that the
 * loop does not change and that the lanes may compute there (docs/cuda.md
 * "Warp-buffer reads computed once") becomes "hoisted let s = W[i];" in
 * front of the loop, and the equal reads inside the loop the variable s
 * (passes/hoist.c).  Which reads move depends on the thread mapping,
 * which the GPU verifier's walk knows (verify/hoist.c): refuses (0 or -1
 * with located diagnostics) what the GPU verifier refuses; a second run
 * changes nothing. */
STIR_EXPORT int stir_hoist_warp_reads(__stir_keep stir_kernel *k);

/* Insert a "barrier;" statement wherever the threads of a block must
 * synchronize (docs/cuda.md "Barriers"), so that the emitter prints
 * __syncthreads() there.  stir_kernel_prepare_for_gpu
 * (include/stir/codegen.h) ends with it; a stage III kernel built or read
 * otherwise needs it before stir_cuda_plan_alloc, which refuses a place
 * that needs a barrier and has none.  Barriers already in k count; a
 * second run adds nothing.  Refuses (0 or -1 with located diagnostics, k
 * untouched) what the emitter refuses (passes/insert_barriers.c). */
STIR_EXPORT int stir_insert_barriers(__stir_keep stir_kernel *k);

/* Record in each vectorized loop the accesses that run as vectors of its
 * lanes (its vector plan, printed "vectorize(B[IDX] load, ...)"), which
 * the CUDA emitter prints; a loop planned already is planned again
 * (passes/plan_vectors.c). */
STIR_EXPORT int stir_plan_vectors(__stir_keep stir_kernel *k);

#ifdef __cplusplus
}
#endif
#endif
