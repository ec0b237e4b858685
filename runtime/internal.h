/* Objects of the GPU runtime, shared by its files (device.c, module.c,
 * args.c, nvrtc.c).  Nothing here is part of the public API. */
#ifndef STIR_RUNTIME_INTERNAL_H
#define STIR_RUNTIME_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stir/runtime.h>
#include "runtime/cuda_driver.h"

/* An open device.  Reference counted: the opener holds one reference and
 * every buffer, stream, event and module made on it holds another. */
struct stir_device {
	int refs;              /* references; freed when it drops to 0 */
	stir_ctx *ctx;         /* borrowed: receives every diagnostic */
	int ordinal;           /* as passed to stir_device_alloc */
	cu_device cudev;       /* the driver's handle */
	cu_context pctx;       /* the primary context, retained */
	char name[256];        /* cuDeviceGetName */
	char arch[16];         /* "sm_90" */
	int cc_major, cc_minor; /* compute capability */
	size_t total_mem;      /* bytes of global memory */
	int max_shared_optin;  /* largest dynamic shared memory a block may opt in to */
	cu_deviceptr l2_buf;   /* owned: the L2 flush buffer, 0 until first used */
	size_t l2_size;        /* its size in bytes */
	uint32_t l2_counter;   /* the value written by the next flush */
};

/* Device memory. */
struct stir_gpu_buf {
	stir_device *dev;      /* a reference */
	cu_deviceptr ptr;      /* owned; 0 when size is 0 */
	size_t size;           /* bytes */
};

struct stir_stream {
	stir_device *dev;      /* a reference */
	cu_stream s;           /* owned, unless borrowed */
	bool borrowed;         /* s is the caller's (stir_stream_wrap) */
};

struct stir_event {
	stir_device *dev;      /* a reference */
	cu_event e;            /* owned */
};

/* A loaded module and the functions asked of it so far. */
struct stir_gpu_module {
	stir_device *dev;      /* a reference */
	cu_module mod;         /* owned */
	char *name;            /* owned: the code's name, for diagnostics */
	int n_funcs;           /* functions looked up */
	stir_gpu_func **funcs; /* owned array of owned functions */
};

/* A kernel of a module. */
struct stir_gpu_func {
	stir_gpu_module *mod;  /* borrowed: the module owns the function */
	cu_function f;         /* the driver's handle, owned by the module */
	char *name;            /* owned */
	unsigned shared_optin; /* the dynamic shared memory opted in to so far */
	/* The kernel's parameter sizes as the driver describes them:
	 * n_kparams is -2 before the first query, -1 when the driver cannot
	 * tell (before CUDA 12.4), else the count of kparam_size. */
	int n_kparams;
	size_t *kparam_size;   /* owned, n_kparams entries */
};

/* dev: take one more reference; returns dev. */
stir_device *stir_device_ref(stir_device *dev);
/* dev: make the device's primary context current for the calls that
 * follow; 0, or -1 with an error.  Each successful enter is paired with a
 * leave. */
int stir_device_enter(stir_device *dev);
/* dev: restore the context that was current before the enter. */
void stir_device_leave(stir_device *dev);
/* dev: stir_device_enter for a call made once per framework call (a
 * launch): when the device's primary context is current already (a
 * thread of PyTorch or another CUDA runtime user has it current), nothing
 * is pushed.  1 when it pushed (leave with stir_device_leave_hot), 0 when
 * the context was current, -1 with an error. */
int stir_device_enter_hot(stir_device *dev);
/* dev, entered: what stir_device_enter_hot returned; pops when it
 * pushed. */
void stir_device_leave_hot(stir_device *dev, int entered);

/* Bytes a parameter of type t occupies (0 for STIR_ARG_NONE). */
size_t stir_arg_type_size(stir_arg_type t);
/* pack, ctx, kernel: check the pack as stir_arg_pack_verify does, reporting
 * into ctx; errors name "kernel" when it is not NULL. */
int stir_arg_pack_check_for(const stir_arg_pack *pack, stir_ctx *ctx,
	const char *kernel);
/* The array of pointers to the values, in parameter order, that
 * cuLaunchKernel takes; owned by the pack. */
void **stir_arg_pack_get_kernel_params(const stir_arg_pack *pack);

/* Store "code" in the kernel cache under the key that
 * stir_gpu_code_compile(ctx, name, source, opts) looks up, as if NVRTC had
 * made it from source: a seam for the tests, which put there a module that
 * the fake driver runs in emulation (tests/test_cuda_emu.c), so that
 * stirc's GPU path runs end to end without a GPU.  Needs NVRTC (its
 * version is part of the key).  0 or -1 with an error. */
int stir_gpu_code_cache_put(stir_ctx *ctx, const char *name,
	const char *source, const stir_compile_options *opts, const void *code,
	size_t size);

/* Choose what NVRTC should generate for a device of compute capability
 * major.minor, given the n_archs architectures NVRTC supports ("archs",
 * as from nvrtcGetSupportedArchs: 75, 80, ...).  The device's own "sm_XY"
 * when supported; otherwise "compute_XY" for the newest supported XY below
 * it (PTX that the driver compiles); -1 when all supported ones are newer.
 * The result goes into out (size bytes). */
int stir_nvrtc_pick_arch(int major, int minor, const int *archs, int n_archs,
	char *out, size_t size);

#endif
