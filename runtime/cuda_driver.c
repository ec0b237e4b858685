/* Loading the CUDA driver with dlopen and turning its results into
 * diagnostics.
 *
 * The driver is loaded at most once per process and never unloaded: the
 * driver does not support being unloaded, and a failed load (no driver, no
 * device) is remembered so that every later call reports the same reason
 * without trying again. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir/diag.h"
#include "runtime/cuda_driver.h"

stir_cu_api stir_cu;

/* Why loading failed (or LOAD_OK). */
typedef enum load_status {
	LOAD_OK,
	LOAD_NO_LIBRARY,      /* dlopen failed */
	LOAD_NO_SYMBOL,       /* a required entry point is missing */
	LOAD_INIT_FAILED,     /* cuInit returned an error */
} load_status;

/* The outcome of the one load of the process. */
static struct {
	load_status status;
	char library[256];    /* the library name tried */
	char detail[512];     /* dlerror() text, or the missing symbol */
	cu_result init_result; /* for LOAD_INIT_FAILED */
} load;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* dst, size, src: copy src into dst, truncating, always NUL-terminated. */
static void copy_str(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/* Signature of cuGetProcAddress_v2 (CUDA 12.0 and later). */
typedef cu_result (*get_proc_fn)(const char *symbol, void **pfn,
	int cuda_version, unsigned long long flags, int *symbol_status);

/* handle, get_proc, base, sym, version: find one entry point, first
 * through cuGetProcAddress_v2 (when the driver has it) asking for the ABI
 * of "version", then as the exported symbol "sym".  NULL when absent. */
static void *resolve(void *handle, get_proc_fn get_proc, const char *base,
	const char *sym, int version)
{
	if (get_proc) {
		void *p = NULL;
		int status = 0;
		if (get_proc(base, &p, version, CU_PROC_ADDRESS_LEGACY_STREAM,
				&status) == CU_SUCCESS && p && status == 0)
			return p;
		/* an older driver may know the symbol under a version
		 * below the one asked for: fall through to dlsym */
	}
	return dlsym(handle, sym);
}

/* Load the library, resolve every entry point and call cuInit; the
 * outcome goes into "load" and "stir_cu".  Runs once per process. */
static void load_driver(void)
{
	const char *name = getenv("STIR_LIBCUDA");
	if (!name || !*name)
		name = "libcuda.so.1";
	copy_str(load.library, sizeof(load.library), name);
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		load.status = LOAD_NO_LIBRARY;
		copy_str(load.detail, sizeof(load.detail), dlerror());
		return;
	}
	/* these four exist unversioned in every driver, and cuGetProcAddress
	 * may need an initialised driver, so they come first */
	static const char *const first[] = {
		"cuInit", "cuDriverGetVersion", "cuGetErrorName",
		"cuGetErrorString",
	};
	void *p[4];
	for (int i = 0; i < 4; i++) {
		p[i] = dlsym(h, first[i]);
		if (!p[i]) {
			load.status = LOAD_NO_SYMBOL;
			copy_str(load.detail, sizeof(load.detail), first[i]);
			return;
		}
	}
	/* object pointers to function pointers: POSIX guarantees dlsym's
	 * result converts; memcpy keeps -Wpedantic quiet */
	memcpy(&stir_cu.Init, &p[0], sizeof(p[0]));
	memcpy(&stir_cu.DriverGetVersion, &p[1], sizeof(p[1]));
	memcpy(&stir_cu.GetErrorName, &p[2], sizeof(p[2]));
	memcpy(&stir_cu.GetErrorString, &p[3], sizeof(p[3]));
	cu_result r = stir_cu.Init(0);
	if (r != CU_SUCCESS) {
		load.status = LOAD_INIT_FAILED;
		load.init_result = r;
		return;
	}
	if (stir_cu.DriverGetVersion(&stir_cu.driver_version) != CU_SUCCESS)
		stir_cu.driver_version = 0;
	get_proc_fn get_proc = NULL;
	void *gp = dlsym(h, "cuGetProcAddress_v2");
	if (gp)
		memcpy(&get_proc, &gp, sizeof(gp));
#define STIR_CU_RESOLVE(field, base, sym, version, required, params) \
	{ \
		void *q = resolve(h, get_proc, base, sym, version); \
		if (!q && required) { \
			load.status = LOAD_NO_SYMBOL; \
			copy_str(load.detail, sizeof(load.detail), sym); \
			return; \
		} \
		memcpy(&stir_cu.field, &q, sizeof(q)); \
	}
	STIR_CU_FUNCS(STIR_CU_RESOLVE)
#undef STIR_CU_RESOLVE
	load.status = LOAD_OK;
}

/* ctx: receives the reason when the driver cannot be used. */
int stir_cu_load(stir_ctx *ctx)
{
	if (pthread_once(&load_once, load_driver) != 0) {
		stir_error(ctx, stir_loc_none(), "cannot load the CUDA driver");
		return -1;
	}
	switch (load.status) {
	case LOAD_OK:
		return 0;
	case LOAD_NO_LIBRARY: {
		stir_diag *d = stir_error(ctx, stir_loc_none(),
			"no CUDA driver: %s not found", load.library);
		if (load.detail[0])
			stir_diag_add_note(d, stir_loc_none(), "%s", load.detail);
		return -1;
	}
	case LOAD_NO_SYMBOL:
		stir_error(ctx, stir_loc_none(),
			"the CUDA driver %s lacks %s (stir needs CUDA 12.0 or "
			"later)", load.library, load.detail);
		return -1;
	case LOAD_INIT_FAILED:
		return stir_cu_check(ctx, load.init_result, "cuInit");
	}
	return -1;
}

/* ctx, r, call: see the header. */
stir_diag *stir_cu_error(stir_ctx *ctx, cu_result r, const char *call)
{
	const char *name = NULL, *desc = NULL;
	if (stir_cu.GetErrorName && stir_cu.GetErrorName(r, &name) != CU_SUCCESS)
		name = NULL;
	if (stir_cu.GetErrorString &&
			stir_cu.GetErrorString(r, &desc) != CU_SUCCESS)
		desc = NULL;
	if (name && desc)
		return stir_error(ctx, stir_loc_none(), "%s failed: %s: %s",
			call, name, desc);
	return stir_error(ctx, stir_loc_none(), "%s failed: CUDA error %d",
		call, r);
}

/* ctx, r, call: see the header. */
int stir_cu_check(stir_ctx *ctx, cu_result r, const char *call)
{
	if (r == CU_SUCCESS)
		return 0;
	stir_cu_error(ctx, r, call);
	return -1;
}
