/* The CUDA driver API, loaded with dlopen.
 *
 * stir does not include cuda.h: it must build without the toolkit.  The few
 * types and constants it uses are declared here with the values of the
 * CUDA 12/13 headers, and the entry points are resolved once per process
 * from libcuda.so.1 (or the library named by $STIR_LIBCUDA, which tests use
 * to load a fake driver).
 *
 * Entry points are resolved with cuGetProcAddress_v2, asking for each the
 * ABI of the CUDA version recorded in the table below, so that a newer
 * driver hands back the variant whose signature is declared here.  Drivers
 * older than 12.0 lack cuGetProcAddress_v2; there the versioned symbol names
 * of the table are looked up with dlsym.
 */
#ifndef STIR_RUNTIME_CUDA_DRIVER_H
#define STIR_RUNTIME_CUDA_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <stir/ctx.h>

typedef int cu_result;                   /* CUresult */
typedef int cu_device;                   /* CUdevice */
typedef struct cu_ctx_st *cu_context;    /* CUcontext */
typedef struct cu_mod_st *cu_module;     /* CUmodule */
typedef struct cu_func_st *cu_function;  /* CUfunction */
typedef struct cu_stream_st *cu_stream;  /* CUstream */
typedef struct cu_event_st *cu_event;    /* CUevent */
typedef unsigned long long cu_deviceptr; /* CUdeviceptr (v2, 64 bits) */

/* Constants from cuda.h (CUDA 13.0). */
enum {
	CU_SUCCESS = 0,
	CU_ERROR_INVALID_VALUE = 1,
	CU_ERROR_NO_DEVICE = 100,
	CU_ERROR_NOT_FOUND = 500,
	CU_ATTR_L2_CACHE_SIZE = 38,
	CU_ATTR_CC_MAJOR = 75,
	CU_ATTR_CC_MINOR = 76,
	CU_ATTR_MAX_SHARED_PER_BLOCK_OPTIN = 97,
	CU_FUNC_ATTR_MAX_DYNAMIC_SHARED = 8,
	CU_STREAM_NON_BLOCKING_FLAG = 1,
	CU_EVENT_DEFAULT_FLAG = 0,
	CU_PROC_ADDRESS_LEGACY_STREAM = 1,
	CU_LAUNCH_ATTR_PROGRAMMATIC_STREAM_SERIALIZATION = 6,
};

/* CUlaunchAttribute and CUlaunchConfig (cuLaunchKernelEx), laid out as
 * cuda.h lays them out: an attribute is its id, padding to 8 bytes and a
 * 64-byte union of values (programmatic stream serialization's is an int
 * at its start). */
typedef struct cu_launch_attr {
	int id;
	char pad[4];
	union {
		char bytes[64];
		int i;
	} value;
} cu_launch_attr;
typedef struct cu_launch_config {
	unsigned int grid[3], block[3];
	unsigned int shared;
	cu_stream s;
	cu_launch_attr *attrs;
	unsigned int n_attrs;
} cu_launch_config;

/* The entry points: X(field, base name, versioned symbol, CUDA version of
 * the ABI declared, required, (parameters)).  The single source of truth
 * for the function table, its loader and its documentation.  The versions
 * are those whose signature the parameter list spells; a symbol whose ABI
 * changed after 12.0 asks for the version it was introduced in. */
#define STIR_CU_FUNCS(X) \
	X(DeviceGetCount, "cuDeviceGetCount", "cuDeviceGetCount", 12000, 1, \
		(int *count)) \
	X(DeviceGet, "cuDeviceGet", "cuDeviceGet", 12000, 1, \
		(cu_device *dev, int ordinal)) \
	X(DeviceGetName, "cuDeviceGetName", "cuDeviceGetName", 12000, 1, \
		(char *name, int len, cu_device dev)) \
	X(DeviceGetAttribute, "cuDeviceGetAttribute", "cuDeviceGetAttribute", \
		12000, 1, (int *value, int attrib, cu_device dev)) \
	X(DeviceTotalMem, "cuDeviceTotalMem", "cuDeviceTotalMem_v2", 12000, 1, \
		(size_t *bytes, cu_device dev)) \
	X(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", \
		"cuDevicePrimaryCtxRetain", 12000, 1, \
		(cu_context *pctx, cu_device dev)) \
	X(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease", \
		"cuDevicePrimaryCtxRelease_v2", 12000, 1, (cu_device dev)) \
	X(CtxPushCurrent, "cuCtxPushCurrent", "cuCtxPushCurrent_v2", 12000, 1, \
		(cu_context ctx)) \
	X(CtxPopCurrent, "cuCtxPopCurrent", "cuCtxPopCurrent_v2", 12000, 1, \
		(cu_context *pctx)) \
	X(CtxGetCurrent, "cuCtxGetCurrent", "cuCtxGetCurrent", 12000, 0, \
		(cu_context *pctx)) \
	X(CtxSynchronize, "cuCtxSynchronize", "cuCtxSynchronize", 12000, 1, \
		(void)) \
	X(ModuleLoadData, "cuModuleLoadData", "cuModuleLoadData", 12000, 1, \
		(cu_module *mod, const void *image)) \
	X(ModuleUnload, "cuModuleUnload", "cuModuleUnload", 12000, 1, \
		(cu_module mod)) \
	X(ModuleGetFunction, "cuModuleGetFunction", "cuModuleGetFunction", \
		12000, 1, (cu_function *f, cu_module mod, const char *name)) \
	X(FuncSetAttribute, "cuFuncSetAttribute", "cuFuncSetAttribute", 12000, \
		1, (cu_function f, int attrib, int value)) \
	X(MemAlloc, "cuMemAlloc", "cuMemAlloc_v2", 12000, 1, \
		(cu_deviceptr *dptr, size_t bytes)) \
	X(MemFree, "cuMemFree", "cuMemFree_v2", 12000, 1, (cu_deviceptr dptr)) \
	X(MemcpyHtoD, "cuMemcpyHtoD", "cuMemcpyHtoD_v2", 12000, 1, \
		(cu_deviceptr dst, const void *src, size_t bytes)) \
	X(MemcpyDtoH, "cuMemcpyDtoH", "cuMemcpyDtoH_v2", 12000, 1, \
		(void *dst, cu_deviceptr src, size_t bytes)) \
	X(MemcpyDtoD, "cuMemcpyDtoD", "cuMemcpyDtoD_v2", 12000, 1, \
		(cu_deviceptr dst, cu_deviceptr src, size_t bytes)) \
	X(MemsetD8, "cuMemsetD8", "cuMemsetD8_v2", 12000, 1, \
		(cu_deviceptr dst, unsigned char uc, size_t n)) \
	X(MemsetD32, "cuMemsetD32", "cuMemsetD32_v2", 12000, 1, \
		(cu_deviceptr dst, unsigned int ui, size_t n)) \
	X(MemsetD32Async, "cuMemsetD32Async", "cuMemsetD32Async", 12000, 1, \
		(cu_deviceptr dst, unsigned int ui, size_t n, cu_stream s)) \
	X(StreamCreate, "cuStreamCreate", "cuStreamCreate", 12000, 1, \
		(cu_stream *s, unsigned int flags)) \
	X(StreamDestroy, "cuStreamDestroy", "cuStreamDestroy_v2", 12000, 1, \
		(cu_stream s)) \
	X(StreamSynchronize, "cuStreamSynchronize", "cuStreamSynchronize", \
		12000, 1, (cu_stream s)) \
	X(LaunchKernel, "cuLaunchKernel", "cuLaunchKernel", 12000, 1, \
		(cu_function f, unsigned int gx, unsigned int gy, \
		unsigned int gz, unsigned int bx, unsigned int by, \
		unsigned int bz, unsigned int shared, cu_stream s, \
		void **params, void **extra)) \
	X(LaunchKernelEx, "cuLaunchKernelEx", "cuLaunchKernelEx", 12000, 0, \
		(const cu_launch_config *cfg, cu_function f, void **params, \
		void **extra)) \
	X(EventCreate, "cuEventCreate", "cuEventCreate", 12000, 1, \
		(cu_event *ev, unsigned int flags)) \
	X(EventDestroy, "cuEventDestroy", "cuEventDestroy_v2", 12000, 1, \
		(cu_event ev)) \
	X(EventRecord, "cuEventRecord", "cuEventRecord", 12000, 1, \
		(cu_event ev, cu_stream s)) \
	X(EventSynchronize, "cuEventSynchronize", "cuEventSynchronize", 12000, \
		1, (cu_event ev)) \
	X(EventElapsedTime, "cuEventElapsedTime", "cuEventElapsedTime", 12000, \
		1, (float *ms, cu_event start, cu_event end)) \
	X(FuncGetParamInfo, "cuFuncGetParamInfo", "cuFuncGetParamInfo", 12040, \
		0, (cu_function f, size_t index, size_t *offset, size_t *size))

/* The resolved entry points; optional ones may be NULL.  Filled once by
 * stir_cu_load() and never changed afterwards. */
typedef struct stir_cu_api {
	/* resolved with dlsym: present in every driver */
	cu_result (*Init)(unsigned int flags);
	cu_result (*DriverGetVersion)(int *version);
	cu_result (*GetErrorName)(cu_result r, const char **name);
	cu_result (*GetErrorString)(cu_result r, const char **desc);
#define STIR_CU_FIELD(field, base, sym, version, required, params) \
	cu_result (*field) params;
	STIR_CU_FUNCS(STIR_CU_FIELD)
#undef STIR_CU_FIELD
	int driver_version;  /* from cuDriverGetVersion, e.g. 13000 */
} stir_cu_api;

/* The entry points of this process's driver, valid after a successful
 * stir_cu_load(). */
extern stir_cu_api stir_cu;

/* Load and initialise the driver once per process (thread-safe).  0, or -1
 * with an error in ctx (reported again on every call after a failure). */
int stir_cu_load(stir_ctx *ctx);

/* ctx, r, call: report the failure r of "call" as "CALL failed:
 * CUDA_ERROR_X: description" and return the diagnostic for notes. */
stir_diag *stir_cu_error(stir_ctx *ctx, cu_result r, const char *call);
/* ctx, r, call: when r is not CUDA_SUCCESS, report it as stir_cu_error does
 * and return -1; otherwise return 0. */
int stir_cu_check(stir_ctx *ctx, cu_result r, const char *call);

#endif
