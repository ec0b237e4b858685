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
#include <stir/pipeline.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- what a primitive made ----
 *
 * The one convention for giving back what a primitive creates, for every
 * schedule primitive here and every pass of include/stir/passes.h: a
 * primitive that succeeds records in its kernel the names of the loops,
 * blocks, buffers, iterations, axes, parameters and kernels it created,
 * each with the name of the thing it was made from, in the order it made
 * them; the caller reads them back with the three functions below before
 * it applies the next primitive to that kernel.  Every primitive (an
 * annotation or a pass that creates nothing included) starts by
 * forgetting the previous record, and one that fails leaves it empty, so
 * that a caller never uses a name the kernel does not have.  A pass over
 * a module (stir_module_lower_sparse_iter) records in each kernel it changes.
 * The names are owned by the kernel's context and stay valid as long as
 * it lives, after later primitives too.  Callers use these names, never a
 * name built by hand after a pass's naming rule; what each primitive
 * records is said with it ("Made: ...").  Entry points that run several
 * primitives (stir_kernel_prepare_for_gpu, stir_schedule_apply) leave the
 * record of the last one they ran. */
typedef enum stir_made_kind {
	STIR_MADE_LOOP,        /* a loop (its variable's name) */
	STIR_MADE_BLOCK,       /* a block */
	STIR_MADE_INIT_BLOCK,  /* a block of an iteration's init nest */
	STIR_MADE_BUFFER,      /* a buffer (a tensor at stage I) */
	STIR_MADE_INDPTR,      /* the indptr buffer of an axis (from the axis) */
	STIR_MADE_INDICES,     /* the indices buffer of an axis */
	STIR_MADE_ITER,        /* a sparse iteration (stage I) */
	STIR_MADE_INIT_ITER,   /* an iteration made of another's init */
	STIR_MADE_AXIS,        /* an axis */
	STIR_MADE_PARAM,       /* a size parameter */
	STIR_MADE_KERNEL,      /* a kernel of the module */
	STIR_MADE_COO          /* a COO buffer of a fused group (from its last
	                          axis; docs/schedules.md) */
} stir_made_kind;

/* The number of things of kind "kind" the last primitive applied to k
 * made. */
STIR_EXPORT int stir_kernel_n_made(__stir_keep const stir_kernel *k,
	stir_made_kind kind);
/* The name of the i-th (from 0, in the order they were made) thing of
 * kind "kind" the last primitive applied to k made, or NULL. */
STIR_EXPORT const char *stir_kernel_get_made(__stir_keep const stir_kernel *k,
	stir_made_kind kind, int i);
/* The same among the things made from "from" (a loop split, the block a
 * cache serves, the iteration a block comes from, ...). */
STIR_EXPORT const char *stir_kernel_get_made_from(
	__stir_keep const stir_kernel *k, stir_made_kind kind, const char *from,
	int i);

/* The schedule log: with it on (set_schedule_log(k, true); off at
 * first), every schedule primitive called on kernel k through this API
 * (stage I decompositions and specializations, stage II/III primitives;
 * not the lowering passes or stir_kernel_prepare_for_gpu's own steps)
 * records its call with the names it was given.  print_schedule writes
 * the log to "out" as a schedule file (docs/schedules.md) that, applied
 * to the same program, makes the same kernel: how a recipe
 * (include/stir/recipes.h) prints as a schedule.  0, or -1 on a write
 * error. */
STIR_EXPORT void stir_kernel_set_schedule_log(__stir_keep stir_kernel *k,
	bool on);
STIR_EXPORT int stir_kernel_print_schedule(__stir_keep const stir_kernel *k,
	FILE *out);
/* The same as a heap string (free it), its length in *len (when not
 * NULL); NULL when writing it fails. */
STIR_EXPORT __stir_give char *stir_kernel_schedule_to_str(
	__stir_keep const stir_kernel *k, size_t *len);
/* The blocks per SM that kernel k's CUDA asks the compiler to fit
 * (__launch_bounds__' second argument: registers are limited to fit
 * them), 0 for none, used when the compile options do not say
 * (stir_compile_options.min_blocks_per_sm 0); a schedule file's top-level
 * min_blocks_per_sm sets it, and stir_kernel_print_schedule prints it.
 * 0, or -1 with an error when n is not 0 to 32. */
STIR_EXPORT int stir_kernel_set_min_blocks_per_sm(__stir_keep stir_kernel *k,
	int n);
STIR_EXPORT int stir_kernel_get_min_blocks_per_sm(
	__stir_keep const stir_kernel *k);
/* Whether each launch of kernel k's CUDA after the first may start while
 * the launch before it still runs (programmatic dependent launch, sm_90
 * and later): the emitted function of such a launch waits for the one
 * before at its very start (griddepcontrol.wait: everything the launch
 * before wrote is then visible), and each launch but the last lets the
 * next one start at its own start (griddepcontrol.launch_dependents), so
 * that the next launch's start-up overlaps this one's run.  What the
 * kernel computes is unchanged; a device or driver without it runs the
 * launches one after the other as before.  stir_gpu_run then times such
 * a run as a whole (no events between its launches).  A schedule file's
 * top-level "overlap_launches: true" sets it, and
 * stir_kernel_print_schedule prints it.  0, or -1 when k is NULL. */
STIR_EXPORT int stir_kernel_set_overlap_launches(__stir_keep stir_kernel *k,
	bool on);
STIR_EXPORT bool stir_kernel_get_overlap_launches(
	__stir_keep const stir_kernel *k);

/* ---- loops ---- */

/* Split loop "loop" around block "block" into n nested loops named
 * LOOP_0 (outermost) .. LOOP_{n-1} with extents factors[0..n-1]; at most one
 * factor may be 0, meaning ceil(extent / product of the others).  Factors
 * need not divide the extent: the body is then guarded by
 * "LOOP_0 * f1 * .. + LOOP_{n-1} < extent".  n >= 2, factors > 0.
 * Made: the n loops, outermost first, from "loop" (where a name is taken
 * the loop gets a fresh one: use the names given back). */
STIR_EXPORT int stir_split(__stir_keep stir_kernel *k, const char *block,
	const char *loop, int n, const int64_t *factors);

/* Fuse n perfectly nested loops (outermost first, each the only statement
 * of the one before) into one loop named LOOP1_LOOP2_..; an inner extent
 * must not depend on an outer loop.  Made: the loop, from the outermost
 * loop fused. */
STIR_EXPORT int stir_fuse(__stir_keep stir_kernel *k, const char *block,
	int n, const char *const *loops);

/* Reorder perfectly nested loops: "loops" lists loops of one perfect nest
 * (no block between them) in their new order; loops not listed keep their
 * places.  An extent may not depend on a loop moved outside it.  Makes
 * nothing (the loops keep their names). */
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

/* Make the tail guard of a split the bound of the loop it tests: loop
 * "loop" around block "block", serial, whose body holds an if "A + loop <
 * B" (or "loop < B", no else; A and B use no variable bound inside the
 * loop and read nothing it writes) around every statement of the body
 * that stores or runs a tensorized or pipelined loop, runs min(extent, B -
 * A) iterations instead, each such if's condition made true: a thread
 * block past the end of its split runs none (docs/schedules.md, "Tensor
 * cores: RGMS").  Refused, with the statement, when something the loop
 * does is not under the guard; refused when the loop holds a barrier and
 * A or B differs between the threads of a block. */
STIR_EXPORT int stir_guard_to_bound(__stir_keep stir_kernel *k,
	const char *block, const char *loop);

/* Tensorize loop "loop" of block "block" (stage III): the nest it heads
 * must compute exactly the tensor-core intrinsic "intrinsic" (docs/ir.md,
 * "Tensorized loops": mma_m16n8k16_f16, mma_m16n8k16_bf16,
 * mma_m16n8k8_tf32): three perfectly nested loops of the intrinsic's
 * extents around C[..] += f32(A[..]) * f32(B[..]), each operand's index
 * affine in the tile loops with unit stride along one and a literal row
 * distance along the other.  The loop is then annotated
 * tensorize(intrinsic): the interpreter still runs the loops; on the GPU
 * the nest runs on the 32 lanes of a warp (threadIdx.x), which no loop
 * around it may bind.  A nest that does not match is refused with what
 * does not match. */
STIR_EXPORT int stir_tensorize(__stir_keep stir_kernel *k, const char *block,
	const char *loop, const char *intrinsic);
/* Software-pipeline loop "loop" of block "block" (stage III) over
 * "stages" (2 to 8) shared buffers: its body must open with copy nests
 * into shared memory tensorized with cp_async_16 (cache_read, then
 * tensorize), followed by the statements that use what they copied.  Each
 * copied buffer grows to "stages" slots, iteration j using slot j %
 * stages; the loop is annotated pipeline(stages).  The interpreter runs
 * it as before; on the GPU the copies of iteration j + stages - 1 are
 * issued (cp.async, one commit group an iteration) before iteration j's
 * products, which wait only for their own group (docs/schedules.md,
 * "Software pipelines").  Refused, with where: a loop that is not
 * serial, a body that does not open with copy nests or holds nothing
 * after them, a copied buffer used outside the loop or written again in
 * it, and copies that read what the loop writes. */
STIR_EXPORT int stir_software_pipeline(__stir_keep stir_kernel *k,
	const char *block, const char *loop, int64_t stages);
/* stir_software_pipeline with the copies of "batch" iterations (2 to
 * stages / 2) waited for together: on the GPU the loop steps "batch"
 * iterations at a time, issuing the copies of iterations j + stages -
 * batch .. j + stages - 1 before one wait and the products of j .. j +
 * batch - 1 between one pair of barriers; the loop is annotated
 * pipeline(stages, batch) and the interpreter runs it as before
 * (docs/schedules.md, "Software pipelines").  Refused as
 * stir_software_pipeline is, and a batch out of range. */
STIR_EXPORT int stir_software_pipeline_batched(__stir_keep stir_kernel *k,
	const char *block, const char *loop, int64_t stages, int64_t batch);
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
 * local buffer, and a block that combines them.  Made: the buffer of
 * partial results (from the buffer reduced), blocks BLOCK_rf and, as an
 * init block, BLOCK_rf_init (from "block"), and the loop of the init and
 * combining nests (from "loop"). */
STIR_EXPORT int stir_rfactor(__stir_keep stir_kernel *k, const char *block,
	const char *loop);

/* Move the init nest of the iteration that block "block" belongs to (the
 * blocks NAME_initN, which lowering links to it) into block's nest, just
 * before loop "loop": every loop enclosing "loop" must be spatial, and the init then runs for the
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
 * reads, placed at loop "loop" (enclosing the block).  Made: the cache
 * buffer (from "buffer"), the copy block (from "block") and the loops of
 * its nest (from the copy block). */
STIR_EXPORT int stir_cache_read(__stir_keep stir_kernel *k, const char *block,
	const char *buffer, const char *loop, stir_scope scope);
/* Write buffer "buffer" of block "block" through a copy in "scope", written
 * back by a new block after loop "loop".  Made: the cache buffer (from
 * "buffer"), the write-back block and, as an init block, the block that
 * copies in or zeroes the cache (both from "block"), and the loops of
 * their nests (from each of those blocks). */
STIR_EXPORT int stir_cache_write(__stir_keep stir_kernel *k, const char *block,
	const char *buffer, const char *loop, stir_scope scope);
/* cache_write of a block that only adds into "buffer", taking over the
 * init nest of the block's iteration (NAME_initN, or such blocks one
 * inside the other, the top-level nest just before the block's; a write
 * through a distinct index, X[P[..]], as docs/schedules.md says): the
 * cache starts at the init's constant instead of
 * 0, the write-back stores instead of adding, and the init nest is
 * removed, so every element is written once and the kernel needs one
 * launch less.  Requires, besides cache_write's conditions: the init nest
 * one block storing one constant into the element the block adds into at
 * the same spatial point, over the same spatial points as the block's
 * nest (each spatial variable a sum of its own loops over [0, N), bounded
 * by the loops or a split's tail guard, the same N in both nests, no
 * other condition); the block not atomic (its instances write distinct
 * elements); every loop around "loop" spatial; a region of points
 * and ranges, no whole dimension; the buffer touched by nothing else in
 * the block's nest.  Made: as cache_write. */
STIR_EXPORT int stir_cache_write_over_init(__stir_keep stir_kernel *k,
	const char *block, const char *buffer, const char *loop,
	stir_scope scope);
/* cache_read, or cache_write (cache_write_over_init when "over_init"),
 * with one copy of the cache per iteration of loop "per" (serial, of a
 * literal extent from 1 to 32; a thread index may be bound to it
 * afterwards, so that each thread, or warp, has a copy of its own in
 * shared memory):
 *  - "per" a loop around "loop" (cache_read only): the copy of the
 *    region "loop" reads at each iteration of "per" goes to that
 *    iteration's copy, and the block reads it there;
 *  - "per" being "loop" itself (a block that only adds into "buffer";
 *    over the init only when the init stores 0): each iteration of
 *    "loop" adds into its own copy, all copies start at 0, and the
 *    write-back adds (stores) the sum of the copies, copy 0 first.
 * The cache has (extent of per) x (the region's size) elements, copy p
 * at p x size.  Made: as cache_read and cache_write, the zeroing nest
 * of partial sums over a loop s of the copies outermost. */
STIR_EXPORT int stir_cache_read_per(__stir_keep stir_kernel *k,
	const char *block, const char *buffer, const char *loop,
	stir_scope scope, const char *per);
/* cache_read into shared memory (with a copy per iteration of "per"
 * when it is not NULL, as stir_cache_read_per) with "pad" unused elements
 * after every "pad_every" of the cache, so that rows which would start in
 * the same shared-memory bank start in different ones (e.g. the rows of 8
 * floats a tensor-core fragment reads at once: pad_every 8, pad 2).
 * Refused, besides cache_read's conditions, unless both are at least 1,
 * the cache is shared, the region is a flat buffer's loops of literal
 * strides (not a range or the whole buffer), and pad_every is the size of
 * a row of the cache: the extents of its innermost loops multiplied,
 * less than the whole region.  The cache has (size / pad_every) x
 * (pad_every + pad) elements (each copy, with "per").  Made: as
 * cache_read. */
STIR_EXPORT int stir_cache_read_padded(__stir_keep stir_kernel *k,
	const char *block, const char *buffer, const char *loop,
	stir_scope scope, const char *per, int64_t pad_every, int64_t pad);
STIR_EXPORT int stir_cache_write_per(__stir_keep stir_kernel *k,
	const char *block, const char *buffer, const char *loop,
	stir_scope scope, bool over_init, const char *per);
/* cache_write of a block that adds into rows of a flat "buffer" that a
 * load picks with serial loop "loop"'s own variable (the row of an edge:
 * Y[I_indices[J_pos_I[e]] * F + f] += ..): the cache (scope local) holds
 * one row's elements (a strided region of loops inside "loop") while
 * consecutive iterations pick that row, and adds them into it when the
 * row changes and after the loop, so that a run of terms of one row costs
 * one write-back (atomic when the block's stores were) instead of one per
 * iteration.  Right for any order of the rows; worth it where they come
 * sorted.  Requires, besides cache_write's conditions: the block's only
 * access of "buffer" += or -= at that row; "loop" serial (or unrolled);
 * no condition inside the block.  Stage III (flat buffers).  Made: the
 * cache and BUFFER_local_row (the row held, and whether one is), as
 * buffers; the write-back after the loop (from "block"), the block that
 * holds no row before it (as an init block), and the blocks at the start
 * of each iteration that write back and zero the elements of a row left
 * (..._run) and hold the new row (..._row). */
STIR_EXPORT int stir_cache_write_runs(__stir_keep stir_kernel *k,
	const char *block, const char *buffer, const char *loop,
	stir_scope scope);
/* The gathering variants (SparseTIR's reverse cache read/write): the rows
 * the block reads (writes) at scattered coordinates -- an index that is a
 * load -- are copied into a dense tile indexed by the loop's iteration, and
 * back.  Made: as cache_read and cache_write. */
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
 * except through atomic stores in all of them.  Made: the block that
 * holds the fused nests. */
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

/* ---- schedule files (docs/schedules.md, "Schedule files") ---- */

/* A schedule file: the transformations of one kernel, in order -- format
 * decompositions and stage I schedules, then stage II and III schedules --
 * read from YAML.  Block and iteration names in it may be glob patterns
 * (fnmatch): a step applies to every block the pattern matches. */
typedef struct stir_schedule stir_schedule;

/* Read a schedule from "text" (len bytes; "file" names it in
 * diagnostics).  The text is registered with ctx (diagnostics show its
 * lines) and checked completely before anything can be applied: YAML
 * syntax (libyaml's message at its place), top-level keys, sections,
 * primitives and the sections they may appear in, arguments (missing,
 * unknown, given twice) and the types of their values (a name, a list, a
 * positive factor, a thread index, a memory scope, format rules).  Every
 * error is located at the YAML node it is about, file:line:col.  NULL
 * after any error.  ctx must outlive the schedule. */
STIR_EXPORT __stir_give stir_schedule *stir_schedule_read_from_mem(
	__stir_keep stir_ctx *ctx, const char *file, const char *text,
	size_t len);
/* The same for the file at "path" (gzip-compressed or not). */
STIR_EXPORT __stir_give stir_schedule *stir_schedule_read_from_file(
	__stir_keep stir_ctx *ctx, const char *path);
STIR_EXPORT void stir_schedule_free(__stir_take stir_schedule *s);

/* The name of the kernel the schedule is for (owned by s). */
STIR_EXPORT const char *stir_schedule_get_kernel_name(
	__stir_keep const stir_schedule *s);
/* The kernel of m the schedule is for, or NULL with an error at the
 * schedule's "kernel:" line (in m's context) when m has none of that
 * name. */
STIR_EXPORT __stir_keep stir_kernel *stir_schedule_find_kernel(
	__stir_keep const stir_schedule *s, __stir_keep const stir_module *m);
/* The latest stage the schedule has steps for: STIR_STAGE_3 when it has
 * stage3 steps, else STIR_STAGE_2 when it has stage2 steps, else
 * STIR_STAGE_1. */
STIR_EXPORT stir_stage stir_schedule_get_last_stage(
	__stir_keep const stir_schedule *s);

/* Apply schedule s to kernel k (which must be the schedule's kernel):
 * its format and stage1 steps to the stage I kernel; with up_to 2 or 3,
 * lower_sparse_iter and the stage2 steps; with up_to 3,
 * lower_sparse_buffer and the stage3 steps.  A kernel already past stage
 * I (a printed stage II or III program) takes the steps of its stage and
 * later; steps for an earlier stage are then an error.  The default
 * schedule is not applied (see stir_schedule_prepare_for_gpu).  A
 * primitive that refuses reports its own diagnostic, with a note at the
 * step's line; a pattern that matches nothing is an error at its line.
 * 0, or -1 with the steps before the failing one applied. */
STIR_EXPORT int stir_schedule_apply(__stir_keep const stir_schedule *s,
	__stir_keep stir_kernel *k, stir_stage up_to);
/* Bring k to stage III for the GPU under schedule s: as
 * stir_schedule_apply up to stage III, then the default schedule for
 * every nest the steps left unbound (stir_default_schedule), so that
 * stage3 steps may schedule nests that no stage2 step touched.  A kernel
 * given at stage III only takes the stage3 steps.  Last, the stage III
 * rewrites for the GPU, as stir_kernel_prepare_for_gpu runs them.  0 or
 * -1. */
STIR_EXPORT int stir_schedule_prepare_for_gpu(
	__stir_keep const stir_schedule *s, __stir_keep stir_kernel *k);
/* The pipeline (include/stir/pipeline.h) that stir_schedule_apply (gpu
 * false) or stir_schedule_prepare_for_gpu (gpu true, up_to 3) runs on
 * kernel k: for each of the sections format, stage1, stage2, stage3 (as
 * far as up_to) a pass per step, "SECTION.N" for its N-th step (from 1),
 * and a pass "SECTION" that ends the section; "lower_sparse_iter" before
 * stage2 and "lower_sparse_buffer" before stage3; for the GPU,
 * "default_schedule" last.  s is borrowed: it must outlive the
 * pipeline's runs.  NULL, with an error in k's context, when k is not the
 * schedule's kernel or its stage does not fit the steps. */
STIR_EXPORT __stir_give stir_pipeline *stir_pipeline_alloc_for_schedule(
	__stir_keep const stir_schedule *s, __stir_keep const stir_kernel *k,
	stir_stage up_to, bool gpu);

/* Bind into b the value of every size parameter the schedule's specialize
 * steps fix, unless b holds it already; one b holds with another value is
 * an error at the step (in the schedule's context): the scheduled kernel
 * would compute with the schedule's value, the unscheduled one with b's.
 * Call it before binding the other inputs (random ones included).  0 or
 * -1. */
STIR_EXPORT int stir_schedule_bind_sizes(__stir_keep const stir_schedule *s,
	__stir_keep stir_bindings *b);

/* Bind into b what the kernel that s makes of k needs beyond k's own
 * arrays: for every decompose step, the new format of the tensor, built
 * on the host (include/stir/formats.h) from k's arrays in b (the tensor's
 * structure, values and sizes; k is the unscheduled stage I kernel, whose
 * inputs b holds).  Names and index types are those decompose_format
 * gives; a hybrid rule binds every part, the empty ones as arrays without
 * elements, and pads full rows at a column they hold (the slots hold 0).
 * Custom rules cannot be built.  For every stage I sparse_fuse step with
 * coo, the COO arrays of the fused axes ("J.pos_I", ...), derived from
 * k's structure arrays in b (checked when b holds them already; the
 * iteration must be k's own, not one an earlier step makes).  0 (nothing
 * to do without decompose steps or fuse steps with coo), or -1 with an
 * error. */
STIR_EXPORT int stir_schedule_bind_formats(__stir_keep const stir_schedule *s,
	__stir_keep const stir_kernel *k, __stir_keep stir_bindings *b);

#ifdef __cplusplus
}
#endif
#endif
