/* A fake CUDA driver, loaded by the runtime tests in place of libcuda.so.1
 * (through $STIR_LIBCUDA), so that every path of runtime/ that talks to the
 * driver runs, under the sanitizers, on a machine without a GPU.
 *
 * It is strict where the real driver is and where stir could go wrong:
 * calls that need a context fail with CUDA_ERROR_INVALID_CONTEXT unless one
 * was pushed, copies must lie inside one allocation, frees must name an
 * allocation, launches need enough shared memory opted in.  Device memory
 * is host memory; "kernels" are a few host functions (see fake_cuda.h).
 *
 * A module image that is an ELF shared object is an emulated module
 * (tests/emu/cuda_emu.h): generated CUDA compiled for the host, whose
 * kernels run on host threads, one per CUDA thread.
 *
 * Environment: FAKE_CUDA_NO_DEVICE=1 makes cuInit fail with
 * CUDA_ERROR_NO_DEVICE; FAKE_CUDA_NO_PROC=1 makes cuGetProcAddress_v2 fail
 * so that the runtime falls back to the versioned symbol names. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/fake_cuda.h"

#define API __attribute__((visibility("default")))

typedef int res;
typedef unsigned long long dptr;

enum {
	OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NOT_INITIALIZED = 3,
	NO_DEVICE = 100,
	INVALID_DEVICE = 101, INVALID_IMAGE = 200, INVALID_CONTEXT = 201,
	INVALID_HANDLE = 400, NOT_FOUND = 500, NOT_READY = 600,
	LAUNCH_FAILED = 719, NOT_SUPPORTED = 801,
};

static fake_cuda_stats stats;
static int initialised;
static int primary_token; /* its address is the primary context */
/* the context made current by cuCtxSetCurrent (as the CUDA runtime, and
 * so PyTorch, does), under whatever is pushed: NULL or &primary_token */
static void *set_current;

/* The error names and descriptions of the real driver. */
static const struct {
	res r;
	const char *name, *desc;
} errors[] = {
	{ OK, "CUDA_SUCCESS", "no error" },
	{ INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
		"no CUDA-capable device is detected" },
	{ INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE",
		"invalid device ordinal" },
	{ INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE",
		"device kernel image is invalid" },
	{ INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT",
		"invalid device context" },
	{ INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE",
		"invalid resource handle" },
	{ LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED",
		"unspecified launch failure" },
	{ NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
	{ NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready" },
	{ NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED",
		"operation not supported" },
};

/* The counters a test reads (see fake_cuda.h). */
API fake_cuda_stats *fake_cuda_stats_get(void)
{
	return &stats;
}

/* flags: must be 0.  Fails when FAKE_CUDA_NO_DEVICE=1. */
API res cuInit(unsigned flags)
{
	const char *v = getenv("FAKE_CUDA_NO_DEVICE");
	if (flags != 0)
		return INVALID_VALUE;
	if (v && !strcmp(v, "1"))
		return NO_DEVICE;
	initialised = 1;
	return OK;
}

/* v: receives 13000, as from a CUDA 13.0 driver. */
API res cuDriverGetVersion(int *v)
{
	*v = 13000;
	return OK;
}

/* r, name: the enumerator's name of r. */
API res cuGetErrorName(res r, const char **name)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].r == r) {
			*name = errors[i].name;
			return OK;
		}
	*name = NULL;
	return INVALID_VALUE;
}

/* r, desc: the description of r. */
API res cuGetErrorString(res r, const char **desc)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].r == r) {
			*desc = errors[i].desc;
			return OK;
		}
	*desc = NULL;
	return INVALID_VALUE;
}

/* Calls that need a current context check this first. */
#define NEED_CTX() do { \
		if (!initialised || (stats.ctx_depth <= 0 && !set_current)) \
			return INVALID_CONTEXT; \
	} while (0)

/* n: receives 1: there is one fake device. */
API res cuDeviceGetCount(int *n)
{
	*n = 1;
	return initialised ? OK : INVALID_CONTEXT;
}

/* dev, ordinal: only ordinal 0 exists. */
API res cuDeviceGet(int *dev, int ordinal)
{
	if (ordinal != 0)
		return INVALID_DEVICE;
	*dev = 0;
	return OK;
}

/* name, len, dev: the fake name, truncated to len. */
API res cuDeviceGetName(char *name, int len, int dev)
{
	if (dev != 0 || len < 1)
		return INVALID_VALUE;
	strncpy(name, "Fake CUDA Device", (size_t)len - 1);
	name[len - 1] = '\0';
	return OK;
}

/* v, attr, dev: an H100-like sm_90 device; $FAKE_CUDA_SHARED_OPTIN, when
 * set, its dynamic shared memory limit instead of 227 KiB. */
API res cuDeviceGetAttribute(int *v, int attr, int dev)
{
	const char *optin = getenv("FAKE_CUDA_SHARED_OPTIN");
	if (dev != 0)
		return INVALID_DEVICE;
	switch (attr) {
	case 38: *v = 50 << 20; break;   /* L2 size */
	case 75: *v = 9; break;          /* compute capability */
	case 76: *v = 0; break;
	case 97: *v = optin ? atoi(optin) : 232448; break; /* shared opt-in */
	default: *v = 0; break;
	}
	return OK;
}

/* bytes, dev: 80 GiB. */
API res cuDeviceTotalMem_v2(size_t *bytes, int dev)
{
	if (dev != 0)
		return INVALID_DEVICE;
	*bytes = (size_t)80 << 30;
	return OK;
}

/* ctx, dev: counts references. */
API res cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
	if (dev != 0)
		return INVALID_DEVICE;
	stats.primary_refs++;
	stats.primary_retains++;
	*ctx = &primary_token;
	return OK;
}

/* dev: releasing more than retained fails. */
API res cuDevicePrimaryCtxRelease_v2(int dev)
{
	if (dev != 0)
		return INVALID_DEVICE;
	if (stats.primary_refs <= 0)
		return INVALID_CONTEXT;
	stats.primary_refs--;
	return OK;
}

/* ctx: only the retained primary context may be pushed. */
API res cuCtxPushCurrent_v2(void *ctx)
{
	if (ctx != &primary_token || stats.primary_refs <= 0)
		return INVALID_CONTEXT;
	stats.ctx_pushes++;
	if (++stats.ctx_depth > stats.max_ctx_depth)
		stats.max_ctx_depth = stats.ctx_depth;
	return OK;
}

/* ctx: popping an empty stack fails. */
API res cuCtxPopCurrent_v2(void **ctx)
{
	if (stats.ctx_depth <= 0)
		return INVALID_CONTEXT;
	stats.ctx_depth--;
	if (ctx)
		*ctx = &primary_token;
	return OK;
}

/* ctx: the context pushed last, else the one set, else NULL. */
API res cuCtxGetCurrent(void **ctx)
{
	if (!initialised)
		return NOT_INITIALIZED;
	*ctx = stats.ctx_depth > 0 ? &primary_token : set_current;
	return OK;
}

/* ctx: the primary context or NULL (none) becomes the one set: what a
 * CUDA runtime user's thread has current between stir's calls. */
API res cuCtxSetCurrent(void *ctx)
{
	if (ctx && (ctx != &primary_token || stats.primary_refs <= 0))
		return INVALID_CONTEXT;
	set_current = ctx;
	return OK;
}

/* Everything is synchronous here: only the context is checked. */
API res cuCtxSynchronize(void)
{
	NEED_CTX();
	return OK;
}

/* ---- memory: a list of host allocations ---------------------------- */

typedef struct alloc {
	unsigned char *p;
	size_t size;
	struct alloc *next;
} alloc;

static alloc *allocs;

/* p, n: is [p, p + n) inside one allocation? */
static int in_alloc(dptr p, size_t n)
{
	for (alloc *a = allocs; a; a = a->next) {
		dptr b = (dptr)(uintptr_t)a->p;
		if (p >= b && p - b <= a->size && n <= a->size - (p - b))
			return 1;
	}
	return 0;
}

/* p, size: host memory, 256-byte aligned; sizes of 0 or above 1 TiB
 * fail as they would on a GPU. */
API res cuMemAlloc_v2(dptr *p, size_t size)
{
	NEED_CTX();
	if (size == 0)
		return INVALID_VALUE;
	if (size > ((size_t)1 << 40))
		return OUT_OF_MEMORY;
	alloc *a = malloc(sizeof(*a));
	if (!a)
		return OUT_OF_MEMORY;
	/* (cuMemAlloc aligns to 256 bytes at least; wmma's loads need 32) */
	void *mem = NULL;
	if (posix_memalign(&mem, 256, size) != 0)
		mem = NULL;
	a->p = mem;
	if (!a->p) {
		free(a);
		return OUT_OF_MEMORY;
	}
	a->size = size;
	a->next = allocs;
	allocs = a;
	stats.live_allocs++;
	*p = (dptr)(uintptr_t)a->p;
	return OK;
}

/* p: must be an allocation's start. */
API res cuMemFree_v2(dptr p)
{
	NEED_CTX();
	for (alloc **a = &allocs; *a; a = &(*a)->next) {
		if ((dptr)(uintptr_t)(*a)->p != p)
			continue;
		alloc *x = *a;
		*a = x->next;
		free(x->p);
		free(x);
		stats.live_allocs--;
		return OK;
	}
	return INVALID_VALUE;
}

/* dst, src, n: the destination must lie in one allocation. */
API res cuMemcpyHtoD_v2(dptr dst, const void *src, size_t n)
{
	NEED_CTX();
	if (!in_alloc(dst, n))
		return INVALID_VALUE;
	memcpy((void *)(uintptr_t)dst, src, n);
	stats.htod_copies++;
	return OK;
}

/* dst, src, n: the source must lie in one allocation. */
API res cuMemcpyDtoH_v2(void *dst, dptr src, size_t n)
{
	NEED_CTX();
	if (!in_alloc(src, n))
		return INVALID_VALUE;
	memcpy(dst, (void *)(uintptr_t)src, n);
	return OK;
}

/* dst, src, n: both must lie in allocations. */
API res cuMemcpyDtoD_v2(dptr dst, dptr src, size_t n)
{
	NEED_CTX();
	if (!in_alloc(dst, n) || !in_alloc(src, n))
		return INVALID_VALUE;
	memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
	return OK;
}

/* dst, c, n: set n bytes inside one allocation. */
API res cuMemsetD8_v2(dptr dst, unsigned char c, size_t n)
{
	NEED_CTX();
	if (!in_alloc(dst, n))
		return INVALID_VALUE;
	memset((void *)(uintptr_t)dst, c, n);
	return OK;
}

/* dst, v, n: set n aligned words inside one allocation. */
API res cuMemsetD32_v2(dptr dst, unsigned v, size_t n)
{
	NEED_CTX();
	if (n > SIZE_MAX / 4 || !in_alloc(dst, 4 * n) || dst % 4)
		return INVALID_VALUE;
	uint32_t *p = (uint32_t *)(uintptr_t)dst;
	for (size_t i = 0; i < n; i++)
		p[i] = v;
	return OK;
}

/* A stream or an event: a token with a time stamp. */
typedef struct token {
	int kind;              /* 1 stream, 2 event */
	long recorded;         /* event: the fake clock when recorded, 0 if never */
} token;

static long fake_clock;

/* s: a stream argument; NULL (the default stream) or a live stream. */
static int stream_ok(void *s)
{
	return !s || ((token *)s)->kind == 1;
}

/* dst, v, n, s: as cuMemsetD32, counted (the L2 flush). */
API res cuMemsetD32Async(dptr dst, unsigned v, size_t n, void *s)
{
	NEED_CTX();
	if (!stream_ok(s))
		return INVALID_HANDLE;
	stats.memset32_async++;
	return cuMemsetD32_v2(dst, v, n);
}

/* s, flags: a stream token. */
API res cuStreamCreate(void **s, unsigned flags)
{
	NEED_CTX();
	token *t = calloc(1, sizeof(*t));
	if (!t)
		return OUT_OF_MEMORY;
	(void)flags;
	t->kind = 1;
	*s = t;
	stats.live_streams++;
	return OK;
}

/* s: a live stream. */
API res cuStreamDestroy_v2(void *s)
{
	NEED_CTX();
	if (!s || ((token *)s)->kind != 1)
		return INVALID_HANDLE;
	free(s);
	stats.live_streams--;
	return OK;
}

/* s: the default or a live stream. */
API res cuStreamSynchronize(void *s)
{
	NEED_CTX();
	return stream_ok(s) ? OK : INVALID_HANDLE;
}

/* e, flags: an event token, never recorded. */
API res cuEventCreate(void **e, unsigned flags)
{
	NEED_CTX();
	token *t = calloc(1, sizeof(*t));
	if (!t)
		return OUT_OF_MEMORY;
	(void)flags;
	t->kind = 2;
	*e = t;
	stats.live_events++;
	return OK;
}

/* e: a live event. */
API res cuEventDestroy_v2(void *e)
{
	NEED_CTX();
	if (!e || ((token *)e)->kind != 2)
		return INVALID_HANDLE;
	free(e);
	stats.live_events--;
	return OK;
}

/* e, s: stamp the event with the next tick of the fake clock. */
API res cuEventRecord(void *e, void *s)
{
	NEED_CTX();
	if (!e || ((token *)e)->kind != 2 || !stream_ok(s))
		return INVALID_HANDLE;
	((token *)e)->recorded = ++fake_clock;
	return OK;
}

/* e: a live event. */
API res cuEventSynchronize(void *e)
{
	NEED_CTX();
	return e && ((token *)e)->kind == 2 ? OK : INVALID_HANDLE;
}

/* Each tick of the fake clock is half a millisecond. */
API res cuEventElapsedTime(float *ms, void *a, void *b)
{
	NEED_CTX();
	token *s = a, *e = b;
	if (!s || !e || s->kind != 2 || e->kind != 2)
		return INVALID_HANDLE;
	if (!s->recorded || !e->recorded)
		return INVALID_HANDLE;
	*ms = (float)(e->recorded - s->recorded) * 0.5f;
	return OK;
}

/* ---- modules and kernels -------------------------------------------- */

/* The kernels and their parameter sizes. */
static const struct kernel {
	const char *name;
	int n;
	size_t size[8];
} kernels[] = {
	{ "vadd", 4, { 8, 8, 8, 4 } },
	{ "mix", 7, { 8, 8, 4, 8, 4, 8, 4 } },
	{ "noparams", 0, { 0 } },
	{ "histogram", 5, { 8, 8, 4, 8, 8 } },
	{ "half_to_float", 3, { 8, 8, 4 } },
	{ "twostep_k0", 3, { 4, 8, 8 } },
	{ "twostep_k1", 3, { 4, 8, 8 } },
};

/* Defined below, with the kernels of the GPU test. */
static res run_gpu_test_kernel(const char *name, void **params,
	unsigned shared, unsigned gx, unsigned bx);

struct func;

typedef struct module {
	int kind;              /* 3 */
	void *dl;              /* an emulated module: its dlopen handle */
	struct func *emu;      /* owned: its functions looked up so far */
} module;

/* p: the size of the ELF64 shared object at p (its section headers come
 * last), or 0 when p is no such object. */
static size_t emu_image_size(const unsigned char *p)
{
	uint64_t shoff;
	uint16_t type, shentsize, shnum;
	if (p[0] != 0x7f || p[1] != 'E' || p[2] != 'L' || p[3] != 'F' ||
	    p[4] != 2)
		return 0;
	memcpy(&type, p + 16, 2);
	memcpy(&shoff, p + 0x28, 8);
	memcpy(&shentsize, p + 0x3a, 2);
	memcpy(&shnum, p + 0x3c, 2);
	return type == 3 ? (size_t)(shoff + (uint64_t)shentsize * shnum) : 0;
}

/* m, image, size: load an emulated module through a temporary file. */
static res emu_load(module *m, const void *image, size_t size)
{
	char path[] = "/tmp/fake-cuda-emu-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return OUT_OF_MEMORY;
	int ok = write(fd, image, size) == (ssize_t)size;
	close(fd);
	m->dl = ok ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!m->dl)
		fprintf(stderr, "fake CUDA: %s\n", ok ? dlerror() : "write failed");
	unlink(path);
	return m->dl ? OK : INVALID_IMAGE;
}

/* mod, image: a cubin (ELF) or PTX text loads; anything else is
 * an invalid image. */
API res cuModuleLoadData(void **mod, const void *image)
{
	NEED_CTX();
	const char *p = image;
	if (!p)
		return INVALID_VALUE;
	/* byte by byte: the image may be shorter than four bytes */
	int elf = p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F';
	if (!elf && !strstr(p, ".version"))
		return INVALID_IMAGE;
	module *m = calloc(1, sizeof(*m));
	if (!m)
		return OUT_OF_MEMORY;
	size_t emu = elf ? emu_image_size(image) : 0;
	if (emu) {
		res r = emu_load(m, image, emu);
		if (r != OK) {
			free(m);
			return r;
		}
	}
	m->kind = 3;
	*mod = m;
	stats.live_modules++;
	return OK;
}

/* The function handles: one per kernel, with its opted-in shared memory;
 * those of emulated modules are made when asked for. */
struct func {
	const struct kernel *k;    /* a fake kernel, or NULL */
	int shared_optin;
	/* emulated: */
	void (*emu_fn)(void **);   /* the kernel's wrapper */
	const size_t *emu_size;    /* its parameter sizes */
	size_t emu_n;
	module *mod;               /* the module */
	struct func *next;         /* the module's next function */
};
static struct func funcs[sizeof(kernels) / sizeof(kernels[0])];

/* mod: a loaded module. */
API res cuModuleUnload(void *mod)
{
	NEED_CTX();
	module *m = mod;
	if (!m || m->kind != 3)
		return INVALID_HANDLE;
	while (m->emu) {
		struct func *f = m->emu;
		m->emu = f->next;
		free(f);
	}
	if (m->dl)
		dlclose(m->dl);
	free(m);
	stats.live_modules--;
	return OK;
}

/* m, name: function "name" of emulated module m, or NULL.  The module
 * defines stir_emu_k_NAME (the wrapper) and stir_emu_s_NAME (the
 * parameter sizes). */
static struct func *emu_func(module *m, const char *name)
{
	char sym[512];
	snprintf(sym, sizeof(sym), "stir_emu_k_%s", name);
	void *fn = dlsym(m->dl, sym);
	snprintf(sym, sizeof(sym), "stir_emu_s_%s", name);
	void *sz = dlsym(m->dl, sym);
	if (!fn || !sz)
		return NULL;
	struct func *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	const size_t *(*sizes)(size_t *);
	memcpy(&f->emu_fn, &fn, sizeof(fn));
	memcpy(&sizes, &sz, sizeof(sz));
	f->emu_size = sizes(&f->emu_n);
	f->mod = m;
	f->next = m->emu;
	m->emu = f;
	return f;
}

/* f, mod, name: one of the fake kernels, or not found. */
API res cuModuleGetFunction(void **f, void *mod, const char *name)
{
	NEED_CTX();
	module *m = mod;
	if (!m || m->kind != 3)
		return INVALID_HANDLE;
	if (m->dl) {
		*f = emu_func(m, name);
		return *f ? OK : NOT_FOUND;
	}
	for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
		if (strcmp(kernels[i].name, name))
			continue;
		funcs[i].k = &kernels[i];
		*f = &funcs[i];
		return OK;
	}
	return NOT_FOUND;
}

/* f, attr, v: only the dynamic shared memory limit, up to the
 * device's opt-in maximum. */
API res cuFuncSetAttribute(void *f, int attr, int v)
{
	NEED_CTX();
	if (attr != 8 || v < 0 || v > 232448)
		return INVALID_VALUE;
	((struct func *)f)->shared_optin = v;
	stats.shared_optin = v;
	return OK;
}

/* f, i, offset, size: the layout of parameter i; an index past
 * the last is an invalid value, as with the real driver. */
API res cuFuncGetParamInfo(void *f, size_t i, size_t *offset, size_t *size)
{
	const struct func *fn = f;
	NEED_CTX();
	size_t n = fn->k ? (size_t)fn->k->n : fn->emu_n;
	const size_t *sz = fn->k ? fn->k->size : fn->emu_size;
	if (i >= n)
		return INVALID_VALUE;
	size_t off = 0;
	for (size_t j = 0; j <= i; j++) {
		off = (off + sz[j] - 1) / sz[j] * sz[j];
		if (j < i)
			off += sz[j];
	}
	if (offset)
		*offset = off;
	if (size)
		*size = sz[i];
	return OK;
}

/* fp, gx..bz, shared, s, params, extra: check the shape as the
 * driver would, then run the kernel on the host at once. */
API res cuLaunchKernel(void *fp, unsigned gx, unsigned gy, unsigned gz,
	unsigned bx, unsigned by, unsigned bz, unsigned shared, void *s,
	void **params, void **extra)
{
	struct func *f = fp;
	NEED_CTX();
	if (!f || (!f->k && !f->emu_fn) || !stream_ok(s) || extra)
		return INVALID_HANDLE;
	if (!gx || !gy || !gz || !bx || !by || !bz ||
	    (unsigned long long)bx * by * bz > 1024)
		return INVALID_VALUE;
	if (shared > 48 * 1024 && (int)shared > f->shared_optin)
		return INVALID_VALUE;
	if ((f->k ? (size_t)f->k->n : f->emu_n) > 0 && !params)
		return INVALID_VALUE;
	if (f->emu_fn) {
		/* an emulated kernel: run on host threads */
		int (*launch)(void (*)(void **), const unsigned *,
			const unsigned *, unsigned, void **);
		void *l = dlsym(f->mod->dl, "stir_emu_launch");
		unsigned grid[3] = { gx, gy, gz }, block[3] = { bx, by, bz };
		if (!l)
			return INVALID_HANDLE;
		memcpy(&launch, &l, sizeof(l));
		if (launch(f->emu_fn, grid, block, shared, params) < 0)
			return LAUNCH_FAILED;
	} else if (!strcmp(f->k->name, "vadd")) {
		float *a = *(float **)params[0], *b = *(float **)params[1];
		float *c = *(float **)params[2];
		int n = *(int *)params[3];
		unsigned long long threads = (unsigned long long)gx * bx;
		if (n < 0)
			return INVALID_VALUE;
		if (threads < (unsigned long long)n)
			n = (int)threads;
		size_t bytes = (size_t)n * sizeof(float);
		if (n > 0 && (!in_alloc((dptr)(uintptr_t)a, bytes) ||
		    !in_alloc((dptr)(uintptr_t)b, bytes) ||
		    !in_alloc((dptr)(uintptr_t)c, bytes)))
			return INVALID_VALUE; /* an illegal address, really */
		for (int i = 0; i < n; i++)
			c[i] = a[i] + b[i];
	} else if (!strcmp(f->k->name, "mix")) {
		double *out = *(double **)params[0];
		if (!in_alloc((dptr)(uintptr_t)out, 6 * sizeof(double)))
			return INVALID_VALUE;
		out[0] = (double)*(long long *)params[1];
		out[1] = *(float *)params[2];
		out[2] = *(double *)params[3];
		out[3] = *(unsigned *)params[4];
		out[4] = (double)*(unsigned long long *)params[5];
		out[5] = *(int *)params[6];
	} else {
		res r = run_gpu_test_kernel(f->k->name, params, shared, gx, bx);
		if (r != OK)
			return r;
	}
	stats.launches++;
	stats.last_grid[0] = gx;
	stats.last_grid[1] = gy;
	stats.last_grid[2] = gz;
	stats.last_block[0] = bx;
	stats.last_block[1] = by;
	stats.last_block[2] = bz;
	stats.last_shared = shared;
	stats.last_stream = s;
	return OK;
}

/* cuLaunchKernelEx's configuration (cuda.h's layout). */
struct fake_launch_attr {
	int id;
	char pad[4];
	union {
		char bytes[64];
		int i;
	} value;
};
struct fake_launch_config {
	unsigned grid[3], block[3], shared;
	void *s;
	struct fake_launch_attr *attrs;
	unsigned n_attrs;
};

/* cfg, fp, params, extra: as cuLaunchKernel, with the shape in cfg;
 * counts the launches whose attributes allow programmatic stream
 * serialization (id 6), the only attribute it knows. */
API res cuLaunchKernelEx(const struct fake_launch_config *cfg, void *fp,
	void **params, void **extra)
{
	NEED_CTX();
	if (!cfg || (cfg->n_attrs && !cfg->attrs))
		return INVALID_VALUE;
	int overlap = 0;
	for (unsigned i = 0; i < cfg->n_attrs; i++) {
		if (cfg->attrs[i].id != 6)
			return INVALID_VALUE;
		overlap |= cfg->attrs[i].value.i != 0;
	}
	res r = cuLaunchKernel(fp, cfg->grid[0], cfg->grid[1], cfg->grid[2],
		cfg->block[0], cfg->block[1], cfg->block[2], cfg->shared, cfg->s,
		params, extra);
	if (r == OK && overlap)
		stats.overlap_launches++;
	return r;
}

/* h: an IEEE binary16 value; the float it stands for. */
static float half_to_float(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	float v;
	if (e == 0)
		v = (float)m / 16777216.0f;                 /* m * 2^-24 */
	else if (e == 31)
		v = m ? __builtin_nanf("") : __builtin_inff();
	else
		v = (float)(m | 0x400) * __builtin_ldexpf(1.0f, e - 25);
	return h & 0x8000 ? -v : v;
}

/* The kernels of tests/gpu/test_runtime_gpu.c and tests/test_cuda.c, on
 * the host: those tests run against this driver in make check.  gx and bx:
 * the launch's grid and block sizes in x.  0 or an error. */
static res run_gpu_test_kernel(const char *name, void **params,
	unsigned shared, unsigned gx, unsigned bx)
{
	if (!strcmp(name, "histogram")) {
		const int *x = *(int **)params[0];
		long long n = *(long long *)params[1];
		int nbins = *(int *)params[2];
		unsigned *counts = *(unsigned **)params[3];
		unsigned long long *sum = *(unsigned long long **)params[4];
		if (n < 0 || nbins < 0 || (unsigned long long)nbins * 4 > shared)
			return INVALID_VALUE;
		if (!in_alloc((dptr)(uintptr_t)x, (size_t)n * sizeof(int)) ||
		    !in_alloc((dptr)(uintptr_t)counts,
				(size_t)nbins * sizeof(unsigned)) ||
		    !in_alloc((dptr)(uintptr_t)sum, sizeof(*sum)))
			return INVALID_VALUE;
		for (long long i = 0; i < n; i++) {
			if (x[i] < 0 || x[i] >= nbins)
				return INVALID_VALUE;
			counts[x[i]]++;
			*sum += (unsigned long long)x[i];
		}
	} else if (!strcmp(name, "twostep_k0") || !strcmp(name, "twostep_k1")) {
		/* the launches of the stage III kernel "twostep" of
		 * tests/test_cuda.c: T = 2 X, then Y = T + 1, one element per
		 * thread of the grid.  T, which the kernel owns, must start
		 * zeroed. */
		int n = *(int *)params[0];
		float *in = *(float **)params[1], *out = *(float **)params[2];
		unsigned long long threads = (unsigned long long)gx * bx;
		size_t bytes = (size_t)(n > 0 ? n : 0) * sizeof(float);
		int first = !strcmp(name, "twostep_k0");
		if (n < 0 || threads < (unsigned long long)n)
			return INVALID_VALUE;
		if (n > 0 && (!in_alloc((dptr)(uintptr_t)in, bytes) ||
		    !in_alloc((dptr)(uintptr_t)out, bytes)))
			return INVALID_VALUE; /* an illegal address, really */
		for (int i = 0; i < n; i++) {
			if (first && out[i] != 0.0f)
				return INVALID_VALUE;
			out[i] = first ? 2.0f * in[i] : in[i] + 1.0f;
		}
	} else if (!strcmp(name, "half_to_float")) {
		const uint16_t *x = *(uint16_t **)params[0];
		float *y = *(float **)params[1];
		int n = *(int *)params[2];
		if (n < 0 || !in_alloc((dptr)(uintptr_t)x, (size_t)n * 2) ||
		    !in_alloc((dptr)(uintptr_t)y, (size_t)n * 4))
			return INVALID_VALUE;
		for (int i = 0; i < n; i++)
			y[i] = half_to_float(x[i]);
	}
	return OK;
}

/* ---- entry points by name --------------------------------------------- */

/* Each base name with the function and the CUDA version it appeared in. */
static const struct entry {
	const char *name;
	void *fn;
	int since;
} entries[] = {
	{ "cuInit", (void *)cuInit, 2000 },
	{ "cuDriverGetVersion", (void *)cuDriverGetVersion, 2020 },
	{ "cuGetErrorName", (void *)cuGetErrorName, 6000 },
	{ "cuGetErrorString", (void *)cuGetErrorString, 6000 },
	{ "cuDeviceGetCount", (void *)cuDeviceGetCount, 2000 },
	{ "cuDeviceGet", (void *)cuDeviceGet, 2000 },
	{ "cuDeviceGetName", (void *)cuDeviceGetName, 2000 },
	{ "cuDeviceGetAttribute", (void *)cuDeviceGetAttribute, 2000 },
	{ "cuDeviceTotalMem", (void *)cuDeviceTotalMem_v2, 3020 },
	{ "cuDevicePrimaryCtxRetain", (void *)cuDevicePrimaryCtxRetain, 7000 },
	{ "cuDevicePrimaryCtxRelease", (void *)cuDevicePrimaryCtxRelease_v2,
		11000 },
	{ "cuCtxPushCurrent", (void *)cuCtxPushCurrent_v2, 4000 },
	{ "cuCtxPopCurrent", (void *)cuCtxPopCurrent_v2, 4000 },
	{ "cuCtxGetCurrent", (void *)cuCtxGetCurrent, 4000 },
	{ "cuCtxSynchronize", (void *)cuCtxSynchronize, 2000 },
	{ "cuModuleLoadData", (void *)cuModuleLoadData, 2000 },
	{ "cuModuleUnload", (void *)cuModuleUnload, 2000 },
	{ "cuModuleGetFunction", (void *)cuModuleGetFunction, 2000 },
	{ "cuFuncSetAttribute", (void *)cuFuncSetAttribute, 9000 },
	{ "cuFuncGetParamInfo", (void *)cuFuncGetParamInfo, 12040 },
	{ "cuMemAlloc", (void *)cuMemAlloc_v2, 3020 },
	{ "cuMemFree", (void *)cuMemFree_v2, 3020 },
	{ "cuMemcpyHtoD", (void *)cuMemcpyHtoD_v2, 3020 },
	{ "cuMemcpyDtoH", (void *)cuMemcpyDtoH_v2, 3020 },
	{ "cuMemcpyDtoD", (void *)cuMemcpyDtoD_v2, 3020 },
	{ "cuMemsetD8", (void *)cuMemsetD8_v2, 3020 },
	{ "cuMemsetD32", (void *)cuMemsetD32_v2, 3020 },
	{ "cuMemsetD32Async", (void *)cuMemsetD32Async, 3020 },
	{ "cuStreamCreate", (void *)cuStreamCreate, 2000 },
	{ "cuStreamDestroy", (void *)cuStreamDestroy_v2, 4000 },
	{ "cuStreamSynchronize", (void *)cuStreamSynchronize, 2000 },
	{ "cuLaunchKernel", (void *)cuLaunchKernel, 4000 },
	{ "cuLaunchKernelEx", (void *)cuLaunchKernelEx, 11060 },
	{ "cuEventCreate", (void *)cuEventCreate, 2000 },
	{ "cuEventDestroy", (void *)cuEventDestroy_v2, 4000 },
	{ "cuEventRecord", (void *)cuEventRecord, 2000 },
	{ "cuEventSynchronize", (void *)cuEventSynchronize, 2000 },
	{ "cuEventElapsedTime", (void *)cuEventElapsedTime, 2000 },
};

/* symbol, pfn, version, flags, status: the entry point of
 * "symbol" for the ABI of "version"; fails for everything when
 * FAKE_CUDA_NO_PROC=1. */
API res cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
	unsigned long long flags, int *status)
{
	const char *v = getenv("FAKE_CUDA_NO_PROC");
	stats.getproc_calls++;
	*pfn = NULL;
	if (v && !strcmp(v, "1"))
		return NOT_SUPPORTED;
	if (version > 13000 || flags > 2)
		return INVALID_VALUE;
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		if (strcmp(entries[i].name, symbol))
			continue;
		if (version < entries[i].since) {
			if (status)
				*status = 2;
			return OK;
		}
		*pfn = entries[i].fn;
		if (status)
			*status = 0;
		return OK;
	}
	if (status)
		*status = 1;
	return OK;
}
