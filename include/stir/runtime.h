/* stir: the GPU runtime.
 *
 * Four layers, each usable without the next:
 *
 * - Compilation: stir_gpu_code_compile() turns CUDA C into a cubin (or PTX)
 *   with NVRTC.  It needs no GPU and no driver.  Results are cached on disk,
 *   keyed by a SHA-256 of the source, the options, the architecture and the
 *   NVRTC version, so a second run starts without compiling.
 * - Devices: stir_device_alloc() loads the CUDA driver (libcuda.so.1) with
 *   dlopen at run time, so that stir builds and runs on machines without one;
 *   there the call fails with a diagnostic.  A device works in its primary
 *   context, pushed around every call and popped after it, so stir coexists
 *   with the CUDA runtime and other libraries in one process.
 * - Memory, streams and events on a device.
 * - Modules and launches: a compiled code object is loaded as a module; a
 *   function of it is launched with its arguments bound by name in a
 *   stir_arg_pack, which checks that every parameter was set with the right
 *   type before anything reaches the GPU.
 *
 * Errors go into the stir_ctx given at creation (of the device, the code,
 * the argument pack) as diagnostics; nothing is printed.  A failed call
 * returns NULL or -1.  Every CUDA call is checked; a failure becomes an error
 * naming the call, the CUDA error name and its description.
 *
 * Ownership: a device is reference counted internally; every object made on
 * it (buffer, stream, event, module) keeps it alive, so the objects may be
 * freed before or after stir_device_free() in any order.  The stir_ctx must
 * outlive all of them.  A device and its objects are not locked: use them
 * from one thread at a time.
 *
 * Kernels are looked up by name: declare them extern "C" in the source.
 */
#ifndef STIR_RUNTIME_H
#define STIR_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stir/ctx.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stir_device stir_device;
typedef struct stir_gpu_code stir_gpu_code;
typedef struct stir_gpu_module stir_gpu_module;
typedef struct stir_gpu_func stir_gpu_func;
typedef struct stir_gpu_buf stir_gpu_buf;
typedef struct stir_stream stir_stream;
typedef struct stir_event stir_event;
typedef struct stir_arg_pack stir_arg_pack;

/* ---- NVRTC ------------------------------------------------------------ */

/* Whether stir was configured with NVRTC. */
STIR_EXPORT bool stir_nvrtc_is_available(void);
/* The NVRTC version (13.0 is 13, 0).  0, or -1 without NVRTC. */
STIR_EXPORT int stir_nvrtc_get_version(int *major, int *minor);
/* How many times this process has run the NVRTC compiler (cache hits do not
 * count).  Meant for tests and statistics. */
STIR_EXPORT long stir_nvrtc_n_invocations(void);

/* Flags of stir_compile_options. */
enum {
	/* Neither read nor write the kernel cache (the environment variable
	 * STIR_NO_CACHE=1 does the same for every compilation). */
	STIR_COMPILE_NO_CACHE = 1u << 0,
};

/* How to compile.  A zero-initialised structure is valid once "arch" or
 * "device" is set.  Nothing is retained after the call returns. */
typedef struct stir_compile_options {
	/* "sm_90" (a cubin) or "compute_90" (PTX, compiled by the driver
	 * when loaded); NULL: the architecture of "device". */
	const char *arch;
	/* Borrowed; consulted when "arch" is NULL.  When NVRTC cannot
	 * generate code for the device's own architecture, PTX for the
	 * newest older one it supports is produced. */
	const stir_device *device;
	/* Further NVRTC options ("-lineinfo", "-DN=4", ...), n_extra of them.
	 * stir always passes --gpu-architecture, --std=c++17 and the CUDA
	 * include directory (for cuda_fp16.h and cuda_bf16.h). */
	int n_extra;
	const char *const *extra;
	/* STIR_COMPILE_* flags. */
	unsigned flags;
	/* The cache directory; NULL: $STIR_CACHE_DIR, else
	 * $XDG_CACHE_HOME/stir, else $HOME/.cache/stir.  Created when
	 * missing; when it cannot be written, compilation still succeeds
	 * and a warning says so. */
	const char *cache_dir;
	/* stir_gpu_kernel_compile only: 0, or 1 to 32: every launch asks
	 * the compiler to fit this many of its thread blocks on one
	 * multiprocessor (__launch_bounds__(threads, N)), which sets the
	 * registers a thread may use.  Without it the compiler aims at full
	 * occupancy, which can leave few registers for loads in flight: a
	 * small N suits latency-bound kernels with few blocks. */
	int min_blocks_per_sm;
} stir_compile_options;

/* Compile the CUDA C "source" (named "name" in diagnostics; NULL gives
 * "kernel.cu").  When NVRTC rejects the source, one error "NVRTC failed to
 * compile 'NAME'" carries the compiler's log, one note per line. */
STIR_EXPORT __stir_give stir_gpu_code *stir_gpu_code_compile(
	__stir_keep stir_ctx *ctx, const char *name, const char *source,
	__stir_keep const stir_compile_options *opts);
/* Wrap code compiled elsewhere: a cubin for "sm_XX", or PTX text for
 * "compute_XX".  The bytes are copied. */
STIR_EXPORT __stir_give stir_gpu_code *stir_gpu_code_alloc(
	__stir_keep stir_ctx *ctx, const char *name, const char *arch,
	const void *data, size_t size);
STIR_EXPORT void stir_gpu_code_free(__stir_take stir_gpu_code *code);

STIR_EXPORT const char *stir_gpu_code_get_name(
	__stir_keep const stir_gpu_code *code);
/* The architecture compiled for ("sm_90", "compute_90"). */
STIR_EXPORT const char *stir_gpu_code_get_arch(
	__stir_keep const stir_gpu_code *code);
/* The cubin or the PTX (NUL-terminated, the NUL counted in the size). */
STIR_EXPORT const void *stir_gpu_code_get_data(
	__stir_keep const stir_gpu_code *code);
STIR_EXPORT size_t stir_gpu_code_get_size(
	__stir_keep const stir_gpu_code *code);
STIR_EXPORT bool stir_gpu_code_is_ptx(__stir_keep const stir_gpu_code *code);
/* Whether the code was read from the cache rather than compiled now. */
STIR_EXPORT bool stir_gpu_code_is_from_cache(
	__stir_keep const stir_gpu_code *code);
/* NVRTC's log of a successful compilation (warnings), "" when it said
 * nothing or the code came from the cache. */
STIR_EXPORT const char *stir_gpu_code_get_log(
	__stir_keep const stir_gpu_code *code);

/* ---- devices ---------------------------------------------------------- */

/* The number of CUDA devices, or -1 (with an error: no driver, cuInit
 * failed). */
STIR_EXPORT int stir_ctx_n_devices(__stir_keep stir_ctx *ctx);
/* Open device "ordinal" (0 for the first).  Loads the driver on first use.
 * NULL with an error when there is no driver ("no CUDA driver:
 * libcuda.so.1 not found"), no device, or a CUDA call fails.  Errors of
 * every later operation on the device go into "ctx". */
STIR_EXPORT __stir_give stir_device *stir_device_alloc(
	__stir_keep stir_ctx *ctx, int ordinal);
/* The name of device "ordinal" into buf (of "size" bytes, >= 2), as
 * stir_device_get_name gives it once opened, without opening it (no
 * context is made).  0, or -1 with an error as stir_device_alloc's. */
STIR_EXPORT int stir_ctx_get_device_name(__stir_keep stir_ctx *ctx, int ordinal,
	char *buf, size_t size);
/* Give up the caller's reference; the device is released once no buffer,
 * stream, event or module made on it remains. */
STIR_EXPORT void stir_device_free(__stir_take stir_device *dev);

STIR_EXPORT stir_ctx *stir_device_get_ctx(__stir_keep const stir_device *dev);
STIR_EXPORT const char *stir_device_get_name(
	__stir_keep const stir_device *dev);
/* The compute capability spelled as an architecture: "sm_90". */
STIR_EXPORT const char *stir_device_get_arch(
	__stir_keep const stir_device *dev);
STIR_EXPORT void stir_device_get_compute_capability(
	__stir_keep const stir_device *dev, int *major, int *minor);
/* Global memory in bytes. */
STIR_EXPORT size_t stir_device_get_total_mem(
	__stir_keep const stir_device *dev);
/* The version of the CUDA driver (12040 for 12.4). */
STIR_EXPORT int stir_device_get_driver_version(
	__stir_keep const stir_device *dev);
/* Wait until all work on the device is done.  0 or -1. */
STIR_EXPORT int stir_device_synchronize(__stir_keep stir_device *dev);
/* Evict the L2 cache before a timed run by writing a 256 MiB buffer on
 * "stream" (NULL: the default stream).  The buffer is allocated on first
 * use and kept until the device is released.  0 or -1. */
STIR_EXPORT int stir_device_flush_l2(__stir_keep stir_device *dev,
	__stir_keep stir_stream *stream);

/* ---- device memory ---------------------------------------------------- */

/* "size" bytes of device memory, uninitialised.  A size of 0 is valid and
 * gives a buffer whose address is 0. */
STIR_EXPORT __stir_give stir_gpu_buf *stir_gpu_buf_alloc(
	__stir_keep stir_device *dev, size_t size);
STIR_EXPORT void stir_gpu_buf_free(__stir_take stir_gpu_buf *buf);
/* The device address, as a kernel receives it. */
STIR_EXPORT uint64_t stir_gpu_buf_get_ptr(__stir_keep const stir_gpu_buf *buf);
STIR_EXPORT size_t stir_gpu_buf_get_size(__stir_keep const stir_gpu_buf *buf);
/* Synchronous copies of "n" bytes at byte "offset" of the buffer.  A range
 * outside the buffer is an error, checked before any copy.  0 or -1. */
STIR_EXPORT int stir_gpu_buf_copy_from_host(__stir_keep stir_gpu_buf *buf,
	size_t offset, const void *src, size_t n);
STIR_EXPORT int stir_gpu_buf_copy_to_host(__stir_keep const stir_gpu_buf *buf,
	size_t offset, void *dst, size_t n);
/* Copy n bytes between two buffers of one device. */
STIR_EXPORT int stir_gpu_buf_copy(__stir_keep stir_gpu_buf *dst,
	size_t dst_offset, __stir_keep const stir_gpu_buf *src,
	size_t src_offset, size_t n);
/* Set n bytes from "offset" to "byte". */
STIR_EXPORT int stir_gpu_buf_memset(__stir_keep stir_gpu_buf *buf,
	size_t offset, size_t n, uint8_t byte);
/* Set "count" 32-bit words from byte "offset" (a multiple of 4) to "word":
 * poisons float outputs with a NaN pattern, for instance. */
STIR_EXPORT int stir_gpu_buf_fill_u32(__stir_keep stir_gpu_buf *buf,
	size_t offset, size_t count, uint32_t word);

/* ---- streams and events ----------------------------------------------- */

/* A stream.  It synchronises with the default (legacy) stream, on which
 * the synchronous copies above run, so a copy to the host after a launch on
 * any stream sees the kernel's results.  Wherever a stream is taken, NULL
 * names the default stream. */
STIR_EXPORT __stir_give stir_stream *stir_stream_alloc(
	__stir_keep stir_device *dev);
/* A stir_stream over "driver_stream", a driver stream (CUstream) of dev's
 * context that the caller owns (a framework's current stream; NULL is the
 * legacy default stream): work is queued on it; stir_stream_free frees
 * the wrapper and leaves the driver stream alone.  NULL when memory runs
 * out. */
STIR_EXPORT __stir_give stir_stream *stir_stream_wrap(
	__stir_keep stir_device *dev, void *driver_stream);
/* Destroy the stream; work queued on it still completes. */
STIR_EXPORT void stir_stream_free(__stir_take stir_stream *stream);
STIR_EXPORT int stir_stream_synchronize(__stir_keep stir_stream *stream);

/* An event that records time stamps. */
STIR_EXPORT __stir_give stir_event *stir_event_alloc(
	__stir_keep stir_device *dev);
STIR_EXPORT void stir_event_free(__stir_take stir_event *ev);
/* Record "ev" on "stream" (NULL: the default stream).  0 or -1. */
STIR_EXPORT int stir_event_record(__stir_keep stir_event *ev,
	__stir_keep stir_stream *stream);
STIR_EXPORT int stir_event_synchronize(__stir_keep stir_event *ev);
/* Wait for "end" and store in *ms the milliseconds between the two
 * recorded events of one device.  0 or -1. */
STIR_EXPORT int stir_event_elapsed_ms(__stir_keep stir_event *start,
	__stir_keep stir_event *end, float *ms);

/* ---- modules and functions -------------------------------------------- */

/* Load "code" on the device (the code object stays the caller's). */
STIR_EXPORT __stir_give stir_gpu_module *stir_gpu_module_load(
	__stir_keep stir_device *dev, __stir_keep const stir_gpu_code *code);
/* Unload the module; its functions become invalid. */
STIR_EXPORT void stir_gpu_module_free(__stir_take stir_gpu_module *mod);
/* The kernel "name" of the module (extern "C" names), owned by the module;
 * asking twice gives the same handle.  NULL with an error when absent. */
STIR_EXPORT __stir_keep stir_gpu_func *stir_gpu_module_get_func(
	__stir_keep stir_gpu_module *mod, const char *name);
STIR_EXPORT const char *stir_gpu_func_get_name(
	__stir_keep const stir_gpu_func *func);

/* The types a kernel parameter may have. */
typedef enum stir_arg_type {
	STIR_ARG_NONE = 0,
	STIR_ARG_PTR,   /* a device address: T * for any T */
	STIR_ARG_I32,   /* int */
	STIR_ARG_U32,   /* unsigned int */
	STIR_ARG_I64,   /* long long, int64_t */
	STIR_ARG_U64,   /* unsigned long long */
	STIR_ARG_F32,   /* float */
	STIR_ARG_F64,   /* double */
} stir_arg_type;

/* The type's name in diagnostics ("ptr", "i32", ...). */
STIR_EXPORT const char *stir_arg_type_get_name(stir_arg_type t);

/* One parameter of a kernel signature. */
typedef struct stir_gpu_param {
	const char *name;   /* borrowed: copied by stir_arg_pack_alloc */
	stir_arg_type type;
} stir_gpu_param;

/* An argument pack for a kernel taking the n_params "params", in order.
 * Names must be distinct and non-empty.  NULL with an error otherwise.
 * Errors of the set and check functions go into "ctx". */
STIR_EXPORT __stir_give stir_arg_pack *stir_arg_pack_alloc(
	__stir_keep stir_ctx *ctx, int n_params,
	const stir_gpu_param *params);
STIR_EXPORT void stir_arg_pack_free(__stir_take stir_arg_pack *pack);
STIR_EXPORT int stir_arg_pack_n_params(__stir_keep const stir_arg_pack *pack);
/* The name and type of parameter i, or NULL and STIR_ARG_NONE. */
STIR_EXPORT const char *stir_arg_pack_get_param_name(
	__stir_keep const stir_arg_pack *pack, int i);
STIR_EXPORT stir_arg_type stir_arg_pack_get_param_type(
	__stir_keep const stir_arg_pack *pack, int i);

/* Set parameter "name".  An unknown name or a parameter of another type is
 * an error (-1); the pack then refuses every launch until
 * stir_arg_pack_clear(), so a failed set that is not checked cannot launch
 * a kernel with a stale value. */
STIR_EXPORT int stir_arg_pack_set_ptr(__stir_keep stir_arg_pack *pack,
	const char *name, uint64_t ptr);
/* Set pointer parameter i (in signature order) to "ptr", as
 * stir_arg_pack_set_ptr sets it by name, without the name's lookup (a
 * run's rebind per framework call).  An index out of range or a parameter
 * of another type is an error, as there. */
STIR_EXPORT int stir_arg_pack_set_ptr_at(__stir_keep stir_arg_pack *pack,
	int i, uint64_t ptr);
/* Set a pointer parameter to the address of "buf". */
STIR_EXPORT int stir_arg_pack_set_buf(__stir_keep stir_arg_pack *pack,
	const char *name, __stir_keep const stir_gpu_buf *buf);
STIR_EXPORT int stir_arg_pack_set_i32(__stir_keep stir_arg_pack *pack,
	const char *name, int32_t v);
STIR_EXPORT int stir_arg_pack_set_u32(__stir_keep stir_arg_pack *pack,
	const char *name, uint32_t v);
STIR_EXPORT int stir_arg_pack_set_i64(__stir_keep stir_arg_pack *pack,
	const char *name, int64_t v);
STIR_EXPORT int stir_arg_pack_set_u64(__stir_keep stir_arg_pack *pack,
	const char *name, uint64_t v);
STIR_EXPORT int stir_arg_pack_set_f32(__stir_keep stir_arg_pack *pack,
	const char *name, float v);
STIR_EXPORT int stir_arg_pack_set_f64(__stir_keep stir_arg_pack *pack,
	const char *name, double v);
/* Forget every value set and every failed set. */
STIR_EXPORT void stir_arg_pack_clear(__stir_keep stir_arg_pack *pack);
/* 0 when every parameter is set and no set failed; otherwise -1 with one
 * error per unset parameter.  Launches call this first. */
STIR_EXPORT int stir_arg_pack_verify(__stir_keep const stir_arg_pack *pack);

/* The shape of a launch. */
typedef struct stir_launch_config {
	/* Blocks in x, y, z.  x must be at least 1; y and z of 0 mean 1, so
	 * that { .grid = { n } } is a one-dimensional grid. */
	unsigned grid[3];
	/* Threads per block, the same way. */
	unsigned block[3];
	/* Dynamic shared memory in bytes; above 48 KiB the function is
	 * opted in to the device's maximum. */
	unsigned shared_bytes;
	/* Borrowed; NULL: the default stream. */
	stir_stream *stream;
	/* Nonzero: the launch may start while the kernel before it on its
	 * stream still runs (programmatic dependent launch, sm_90 and later,
	 * through cuLaunchKernelEx): the function must wait for that kernel
	 * itself (griddepcontrol.wait, as stir_kernel_set_overlap_launches
	 * emits it) before it touches what that kernel writes.  Ignored
	 * (an ordinary launch) where the device or the driver lacks it. */
	int overlap;
} stir_launch_config;

/* Launch "func" asynchronously.  Before anything is queued: the pack must
 * be complete (stir_arg_pack_verify), and when the driver can describe the
 * kernel's parameters (CUDA 12.4 and later) their number and sizes must
 * match the pack's signature.  Errors go into the device's context.  0 or
 * -1. */
STIR_EXPORT int stir_gpu_func_launch(__stir_keep stir_gpu_func *func,
	__stir_keep const stir_launch_config *cfg,
	__stir_keep const stir_arg_pack *args);

#ifdef __cplusplus
}
#endif
#endif
