/* stir: CUDA code generation and running kernels on the GPU.
 *
 * A stage III kernel becomes CUDA C (docs/cuda.md): one extern "C"
 * __global__ function per top-level statement of the kernel (a launch),
 * named KERNEL_k0, KERNEL_k1, ..., run in order on one stream.  Loops bound
 * to blockIdx/threadIdx become the thread indices; the launch plan says,
 * for each launch, its grid and block sizes as expressions of the kernel's
 * size parameters and the arguments it takes (the parameters by value,
 * then the arrays it uses, named after their buffers).
 *
 * The layers, each usable without the next:
 *
 * - stir_kernel_prepare_for_gpu(): lower a kernel to stage III, giving
 *   every nest without a thread binding the default schedule, and run the
 *   stage III rewrites for the GPU;
 * - stir_kernel_to_cuda() / stir_cuda_plan_alloc(): the CUDA C and the
 *   launch plan (no GPU, no NVRTC needed);
 * - stir_gpu_kernel_compile(): NVRTC, through the runtime's on-disk cache
 *   (no GPU needed when an architecture is given);
 * - stir_gpu_run_*(): a compiled kernel on a device: upload the arrays of
 *   a stir_bindings, launch (optionally timed with CUDA events, with the
 *   L2 cache flushed before each launch), download what the kernel wrote.
 *
 * Whatever cannot be mapped onto the GPU (two nested loops bound to one
 * index, a shared buffer without a literal extent, a barrier some threads
 * would not reach, ...) is an error diagnostic, never wrong code.  Errors
 * of the emitter and the plan go into the context of the kernel's module;
 * errors of runs into the device's context.
 */
#ifndef STIR_CODEGEN_H
#define STIR_CODEGEN_H

#include <stdint.h>
#include <stir/array.h>
#include <stir/ir.h>
#include <stir/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- preparing a kernel ----------------------------------------------- */

/* Bring kernel "k" to stage III for the GPU: a stage I kernel is lowered
 * with stir_lower_sparse_iter; at stage II (after whatever
 * schedules the caller applied there) every top-level nest with no loop
 * bound to a thread index gets stir_default_schedule, and the kernel is
 * lowered with stir_lower_sparse_buffer.  Then, at stage III, the
 * GPU rewrites of include/stir/passes.h run (stir_lift_guards,
 * stir_hoist_invariants; docs/ir.md, "Stage III rewrites for the
 * GPU") and stir_insert_barriers: call this last, after every
 * schedule (the emitter prints only what the IR says, so a kernel emitted
 * without the rewrites runs as written, slower, and one that needs
 * barriers is refused).  Running it again changes nothing.  This is the
 * GPU pipeline, stir_pipeline_alloc_for_gpu (include/stir/pipeline.h),
 * run once.  0, or -1 with diagnostics. */
STIR_EXPORT int stir_kernel_prepare_for_gpu(__stir_keep stir_kernel *k);

/* ---- the emitter -------------------------------------------------------- */

/* Flags of stir_cuda_plan_alloc. */
enum {
	/* Leave out the "// FILE:LINE" comment after each store. */
	STIR_CUDA_NO_LINE_COMMENTS = 1u << 0,
	/* Every buffer in global memory starts at an address aligned to 16
	 * bytes, as those stir_gpu_run allocates do (each on its own): a
	 * vectorized loop whose vectors are all in global memory at indices
	 * known to be multiples of the vector's width then loads and stores
	 * them without the run-time alignment check and its scalar fallback
	 * (docs/cuda.md, "vectorize").  stir_gpu_kernel_compile sets it. */
	STIR_CUDA_ALIGNED_BUFFERS = 1u << 1,
};

typedef struct stir_cuda_plan stir_cuda_plan;

/* The CUDA C of stage III kernel "k" (with line comments); the caller
 * frees it.  NULL with diagnostics when the kernel cannot be mapped. */
STIR_EXPORT __stir_give char *stir_kernel_to_cuda(
	__stir_keep const stir_kernel *k);

/* The CUDA C and launch plan of stage III kernel "k" (which must outlive
 * the plan, unchanged: the plan borrows its expressions, which the next
 * pass or primitive on its module moves).  NULL with diagnostics when it
 * cannot be mapped. */
STIR_EXPORT __stir_give stir_cuda_plan *stir_cuda_plan_alloc(
	__stir_keep const stir_kernel *k, unsigned flags);
STIR_EXPORT void stir_cuda_plan_free(__stir_take stir_cuda_plan *p);
STIR_EXPORT __stir_keep const stir_kernel *stir_cuda_plan_get_kernel(
	__stir_keep const stir_cuda_plan *p);
/* The CUDA C, owned by the plan. */
STIR_EXPORT const char *stir_cuda_plan_get_source(
	__stir_keep const stir_cuda_plan *p);
STIR_EXPORT int stir_cuda_plan_n_launches(__stir_keep const stir_cuda_plan *p);
/* The __global__ function of launch i ("csrmm_k0"), or NULL. */
STIR_EXPORT const char *stir_cuda_plan_get_launch_name(
	__stir_keep const stir_cuda_plan *p, int i);
/* The bytes of dynamic shared memory launch i takes: its shared arrays
 * when together they are over the 48 KiB a kernel may declare statically
 * (the runtime opts the function in above 48 KiB, stir_launch_config), else
 * 0.  0 for a launch that does not exist. */
STIR_EXPORT unsigned stir_cuda_plan_get_launch_shared(
	__stir_keep const stir_cuda_plan *p, int i);
/* The grid and block sizes of launch i when the kernel's sizes are those
 * in "b" (only its sizes are read): per index the largest extent of the
 * loops bound to it, at least 1 (a launch with no bound loop runs on one
 * thread).  Sizes beyond what CUDA allows (a grid y of 70000, 2048 threads
 * in a block) are errors.  0, or -1 with diagnostics. */
STIR_EXPORT int stir_cuda_plan_get_launch_dims(
	__stir_keep const stir_cuda_plan *p, int i,
	__stir_keep const stir_bindings *b, unsigned grid[3], unsigned block[3]);
/* The size of index d (blockIdx.x .. threadIdx.z) of launch i as
 * expressions of the kernel's parameters: the extents (borrowed from the
 * kernel) of the loops bound to it, n of them (0: the size is 1).  The
 * size is the largest of them and at least 1, except for blockIdx.x of a
 * horizontal launch (one extent per nest), which is their sum.  -1 for a
 * launch that does not exist. */
STIR_EXPORT int stir_cuda_plan_n_extents(__stir_keep const stir_cuda_plan *p,
	int i, stir_thread d);
STIR_EXPORT __stir_keep const stir_expr *stir_cuda_plan_get_extent(
	__stir_keep const stir_cuda_plan *p, int i, stir_thread d, int j);
STIR_EXPORT bool stir_cuda_plan_launch_is_horizontal(
	__stir_keep const stir_cuda_plan *p, int i);
/* The arguments of launch i: the kernel's size parameters (by value, in
 * order), then the arrays it uses (device pointers, in buffer order).  The
 * count, or -1 for a launch that does not exist. */
STIR_EXPORT int stir_cuda_plan_n_args(__stir_keep const stir_cuda_plan *p,
	int i);
/* Argument j of launch i: its name in the source, its type (I32 or I64
 * for a size, PTR for an array), and for an array the buffer it holds
 * (NULL for a size) and whether the launch writes it. */
STIR_EXPORT const char *stir_cuda_plan_get_arg_name(
	__stir_keep const stir_cuda_plan *p, int i, int j);
STIR_EXPORT stir_arg_type stir_cuda_plan_get_arg_type(
	__stir_keep const stir_cuda_plan *p, int i, int j);
STIR_EXPORT __stir_keep const stir_buffer *stir_cuda_plan_get_arg_buffer(
	__stir_keep const stir_cuda_plan *p, int i, int j);
STIR_EXPORT bool stir_cuda_plan_arg_is_written(
	__stir_keep const stir_cuda_plan *p, int i, int j);
/* Poison every array of "b" that a launch of p writes: floats become NaN,
 * integers -1234567, so that a run that leaves an element unwritten shows
 * in a comparison with a reference (stirc run --check, the GPU tests).
 * Arrays b lacks are passed over. */
STIR_EXPORT void stir_cuda_plan_poison_outputs(
	__stir_keep const stir_cuda_plan *p, __stir_keep stir_bindings *b);

/* ---- compiled kernels --------------------------------------------------- */

typedef struct stir_gpu_kernel stir_gpu_kernel;

/* Emit stage III kernel "k" and compile it with NVRTC (through the cache;
 * see stir_compile_options: set "arch" to compile without a device).  "k"
 * must outlive the result, unchanged (as for stir_cuda_plan_alloc).  Errors (the emitter's, NVRTC's with its log)
 * go into the context of k's module.  NULL on failure. */
STIR_EXPORT __stir_give stir_gpu_kernel *stir_gpu_kernel_compile(
	__stir_keep const stir_kernel *k,
	__stir_keep const stir_compile_options *opts);
/* Compile n kernels at once: ks[i] with the options opts[i] (opts may be
 * NULL: defaults for all) into gks[i], as stir_gpu_kernel_compile would,
 * NULL where it fails (errors in the context of ks[i]'s module; a NULL
 * ks[i] gives a NULL gks[i]).  The CUDA C is emitted in the calling thread,
 * then NVRTC compiles on "threads" threads (0 or less: one per processor),
 * each through the cache, which tolerates concurrent writers.  The
 * kernels' modules must not be used by other threads meanwhile.  The
 * number of kernels (not NULL) that failed, or -1 when the arguments are
 * wrong. */
STIR_EXPORT int stir_gpu_kernel_compile_all(int n,
	__stir_keep const stir_kernel *const *ks,
	__stir_keep const stir_compile_options *opts, int threads,
	stir_gpu_kernel **gks);
/* The same with code compiled elsewhere from stir_kernel_to_cuda(k)'s
 * source: "code" is taken (freed on failure too). */
STIR_EXPORT __stir_give stir_gpu_kernel *stir_gpu_kernel_alloc(
	__stir_keep const stir_kernel *k, __stir_take stir_gpu_code *code);
STIR_EXPORT void stir_gpu_kernel_free(__stir_take stir_gpu_kernel *gk);
STIR_EXPORT __stir_keep const stir_cuda_plan *stir_gpu_kernel_get_plan(
	__stir_keep const stir_gpu_kernel *gk);
STIR_EXPORT __stir_keep const stir_gpu_code *stir_gpu_kernel_get_code(
	__stir_keep const stir_gpu_kernel *gk);

/* ---- running on a device ------------------------------------------------ */

typedef struct stir_gpu_run stir_gpu_run;

/* Flags of stir_gpu_run_launch. */
enum {
	/* Time the run with CUDA events: each launch, and the run from the
	 * first launch's start to the last one's end (stir_gpu_run_get_ms). */
	STIR_GPU_RUN_TIME = 1u << 0,
	/* Evict the L2 cache before the run (stir_device_flush_l2), so that
	 * it starts cold, as a benchmark wants.  Implies STIR_GPU_RUN_TIME. */
	STIR_GPU_RUN_FLUSH_L2 = 1u << 1,
	/* Queue the launches and return without waiting for them (a launch
	 * that fails inside the kernel then shows in the caller's next
	 * synchronisation, not here).  Not with the two flags above. */
	STIR_GPU_RUN_ASYNC = 1u << 2,
};

/* An array in device memory the caller owns (stir_gpu_run_bind_device). */
typedef struct stir_gpu_extern {
	const char *name;  /* the kernel's array name: "X", "J.indptr" */
	uint64_t ptr;      /* device address (CUdeviceptr) */
	size_t bytes;      /* bytes the caller owns from ptr */
	stir_dtype dtype;  /* the type of its elements */
} stir_gpu_extern;

/* Load compiled kernel "gk" on "dev" (both must outlive the run; the
 * kernel's module too).  NULL with an error in the device's context. */
STIR_EXPORT __stir_give stir_gpu_run *stir_gpu_run_alloc(
	__stir_keep const stir_gpu_kernel *gk, __stir_keep stir_device *dev);
/* Free the run and its device memory. */
STIR_EXPORT void stir_gpu_run_free(__stir_take stir_gpu_run *r);
/* Check "b" as the interpreter checks it for the stage III kernel the
 * run was compiled from (sizes, array lengths and types, domains: a stage
 * III kernel has no axes, so an indptr that decreases or indices unsorted
 * within a row are not seen here; check the bindings against the kernel
 * as it was before stir_kernel_prepare_for_gpu with
 * stir_kernel_verify_bindings first, as stirc run does), refuse a buffer
 * with more elements than its index type can address, then copy every
 * array the kernel takes to the device and allocate the buffers the
 * kernel owns (each on its own; one
 * not aligned to 16 bytes is refused when the kernel was emitted with
 * STIR_CUDA_ALIGNED_BUFFERS, as stir_gpu_kernel_compile does).  May be
 * called again with other data.  0, or -1 with diagnostics. */
STIR_EXPORT int stir_gpu_run_upload(__stir_keep stir_gpu_run *r,
	__stir_keep const stir_bindings *b);
/* Bind run r to device memory its caller owns, in place of
 * stir_gpu_run_upload: "sizes" must bind every size parameter of the
 * kernel (its arrays, if any, are not read), and arrays[0 .. n-1] give
 * every array a launch takes (the tensors and structure arrays of the
 * kernel the run was compiled from; the buffers the kernel owns are the
 * run's, allocated here, zeroed before each launch).  Each is checked
 * before anything is bound: a name the kernel's launches do not take, an
 * array missing or given twice, an element type other than the array's,
 * fewer bytes than the array's length at these sizes needs, an address
 * that is 0 (for a non-empty array), not a multiple of the element size,
 * or not of 16 bytes when the kernel was emitted with
 * STIR_CUDA_ALIGNED_BUFFERS, is an error naming the array.  Nothing is
 * copied: the kernel reads and writes the caller's memory, which must
 * hold valid structure (as stir_kernel_verify_bindings would check it on
 * the host) and stay allocated until the launches end.
 * stir_gpu_run_download then refuses (the results are in the caller's
 * memory).  0, or -1 with diagnostics. */
STIR_EXPORT int stir_gpu_run_bind_device(__stir_keep stir_gpu_run *r,
	__stir_keep const stir_bindings *sizes, int n,
	const stir_gpu_extern *arrays);
/* Rebind arrays of run r, bound by stir_gpu_run_bind_device, to other
 * memory of the caller at the same sizes (a framework's next call on new
 * tensors): each of arrays[0 .. n-1] replaces the address of the array of
 * its name bound there, checked as stir_gpu_run_bind_device checks it
 * (element type, bytes at the bound sizes, address, alignment); the other
 * arrays stay.  Nothing is evaluated again, so that a call costs little
 * on the host.  All are checked before any changes: 0, or -1 with
 * diagnostics and the binding unchanged (an array not bound there, or a
 * run not bound by stir_gpu_run_bind_device, is an error). */
STIR_EXPORT int stir_gpu_run_rebind_device(__stir_keep stir_gpu_run *r,
	int n, const stir_gpu_extern *arrays);
/* stir_gpu_run_rebind_device(r, n, arrays), then, when it succeeded,
 * stir_gpu_run_launch(r, flags): a framework's next call on new tensors
 * in one call (from Python, one foreign call instead of two:
 * python/stir/_fast.py).  0, or -1 with diagnostics; a failed rebind
 * launches nothing. */
STIR_EXPORT int stir_gpu_run_rebind_launch(__stir_keep stir_gpu_run *r,
	int n, const stir_gpu_extern *arrays, unsigned flags);
/* stir_gpu_run_rebind_launch with the arrays of r's last successful
 * stir_gpu_run_rebind_device (or rebind_launch), read again as they are
 * now: the caller keeps that array of stir_gpu_extern (r borrows it) and
 * writes new addresses into it between calls; each is checked as the
 * rebind checks it, only the names are not looked up again (a
 * framework's call from Python: one foreign call of two arguments,
 * python/stir/_fast.py).  The array must stay valid until the next
 * rebind, bind or upload of r, which forget it (as a refused rebind or
 * relaunch does).  0, or -1 with diagnostics: nothing to relaunch with,
 * or an array refused (then nothing is launched). */
STIR_EXPORT int stir_gpu_run_relaunch(__stir_keep stir_gpu_run *r,
	unsigned flags);
/* The stream r's launches go to: "stream" (borrowed: it must outlive the
 * run or the next call; stir_stream_wrap makes one of a caller's driver
 * stream), or NULL for the run's own.  0 or -1. */
STIR_EXPORT int stir_gpu_run_set_stream(__stir_keep stir_gpu_run *r,
	__stir_keep stir_stream *stream);
/* Run every launch in order on the run's stream and wait for them.  The
 * buffers the kernel owns are zeroed first (as the interpreter allocates
 * them), outside the timed region.  A launch that runs nothing at these
 * sizes (its statement is a bound loop of extent 0, or a horizontal block
 * of such nests: an empty part of a format) is skipped, its time 0.  0, or -1 with diagnostics (an error
 * of a launch names it). */
STIR_EXPORT int stir_gpu_run_launch(__stir_keep stir_gpu_run *r,
	unsigned flags);
/* Milliseconds of the last timed stir_gpu_run_launch: the whole run
 * (first launch's start to last launch's end), or launch i alone; -1 when
 * it was not timed, and for launch i of overlapping launches
 * (stir_kernel_set_overlap_launches), which are timed as a whole. */
STIR_EXPORT double stir_gpu_run_get_ms(__stir_keep const stir_gpu_run *r);
STIR_EXPORT double stir_gpu_run_get_launch_ms(
	__stir_keep const stir_gpu_run *r, int i);
/* How a run was timed, by stir_gpu_run_time. */
typedef struct stir_gpu_timing {
	int warmups;               /* untimed runs first */
	int reps;                  /* timed runs, each after an L2 flush */
	double median_ms;          /* their median: the figure to report */
	double min_ms, max_ms;     /* their spread */
} stir_gpu_timing;

/* Time the uploaded run as a benchmark does (shared/design/GPU.md):
 * "warmups" untimed runs (at least 0), then "reps" runs (at least 1), each
 * after an L2 flush (STIR_GPU_RUN_FLUSH_L2), timed with CUDA events; *t
 * receives the median and the spread.  The runs repeat the kernel on the
 * same buffers: a kernel that reads what it writes (an output it
 * accumulates into without an init) leaves them changed, so upload again
 * before a run whose result counts.  0, or -1 with diagnostics. */
STIR_EXPORT int stir_gpu_run_time(__stir_keep stir_gpu_run *r, int warmups,
	int reps, stir_gpu_timing *t);
/* Copy every array the kernel writes back into the arrays of "b" (which
 * must have the shapes uploaded).  0, or -1 with diagnostics. */
STIR_EXPORT int stir_gpu_run_download(__stir_keep stir_gpu_run *r,
	__stir_keep stir_bindings *b);

/* Upload "b", launch with "flags", download into "b": one call.  With
 * STIR_GPU_RUN_TIME, *ms (when not NULL) receives the time.  0 or -1. */
STIR_EXPORT int stir_gpu_kernel_run(__stir_keep const stir_gpu_kernel *gk,
	__stir_keep stir_device *dev, __stir_keep stir_bindings *b,
	unsigned flags, double *ms);

#ifdef __cplusplus
}
#endif
#endif
