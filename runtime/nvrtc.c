/* Compiling CUDA C with NVRTC, through the kernel cache.
 *
 * Without NVRTC (configure --without-cuda, or no toolkit found) the code
 * objects still exist, so precompiled code can be wrapped and loaded, but
 * every compilation fails with an error saying how to get NVRTC. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_NVRTC
#include <nvrtc.h>
#endif
#include "ir/diag.h"
#include "runtime/cache.h"
#include "runtime/internal.h"

/* Log lines attached as notes at most; a runaway log (thousands of
 * errors from one bad macro) ends with a note saying how many were left. */
#define MAX_LOG_NOTES 400

/* Compiled code and where it came from. */
struct stir_gpu_code {
	char *name;            /* owned: the program name */
	char *arch;            /* owned: "sm_90" or "compute_90" */
	bool is_ptx;           /* PTX text rather than a cubin */
	bool from_cache;       /* read from the cache, not compiled now */
	unsigned char *data;   /* owned: the code; PTX ends with its NUL */
	size_t size;           /* bytes of data */
	char *log;             /* owned: NVRTC's log, "" when none */
};

/* NVRTC compilations run by this process; updated atomically so that
 * threads compiling at once count right. */
static long n_invocations;

/* The count of NVRTC compilations so far. */
long stir_nvrtc_n_invocations(void)
{
	return __atomic_load_n(&n_invocations, __ATOMIC_RELAXED);
}

/* Whether NVRTC was found at configure time. */
bool stir_nvrtc_is_available(void)
{
#ifdef HAVE_NVRTC
	return true;
#else
	return false;
#endif
}

/* major, minor: receive NVRTC's version. */
int stir_nvrtc_get_version(int *major, int *minor)
{
#ifdef HAVE_NVRTC
	int a, b;
	if (nvrtcVersion(&a, &b) != NVRTC_SUCCESS)
		return -1;
	if (major)
		*major = a;
	if (minor)
		*minor = b;
	return 0;
#else
	(void)major;
	(void)minor;
	return -1;
#endif
}

/* code: the code object to free. */
void stir_gpu_code_free(stir_gpu_code *code)
{
	if (!code)
		return;
	free(code->name);
	free(code->arch);
	free(code->data);
	free(code->log);
	free(code);
}

/* arch: an architecture name; is it "sm_" or "compute_" followed by
 * digits and at most one letter ("sm_90a", "compute_100f")? */
static bool arch_is_valid(const char *arch)
{
	const char *p;
	if (!strncmp(arch, "sm_", 3))
		p = arch + 3;
	else if (!strncmp(arch, "compute_", 8))
		p = arch + 8;
	else
		return false;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (islower((unsigned char)*p))
		p++;
	return *p == '\0' && strlen(arch) < 32;
}

/* ctx, name, arch, data, size, log: a new code object holding copies of
 * everything; PTX is given a terminating NUL when it lacks one. */
static stir_gpu_code *code_new(stir_ctx *ctx, const char *name,
	const char *arch, const void *data, size_t size, const char *log)
{
	stir_gpu_code *c = calloc(1, sizeof(*c));
	if (!c)
		return stir_error_oom(ctx);
	c->is_ptx = !strncmp(arch, "compute_", 8);
	bool add_nul = c->is_ptx && (size == 0 ||
		((const char *)data)[size - 1] != '\0');
	c->name = strdup(name);
	c->arch = strdup(arch);
	c->log = strdup(log ? log : "");
	c->data = malloc(size + add_nul + (size == 0));
	if (!c->name || !c->arch || !c->log || !c->data) {
		stir_gpu_code_free(c);
		return stir_error_oom(ctx);
	}
	if (size)
		memcpy(c->data, data, size);
	if (add_nul)
		c->data[size++] = '\0';
	c->size = size;
	return c;
}

/* ctx, name, arch, data, size: wrap precompiled code. */
stir_gpu_code *stir_gpu_code_alloc(stir_ctx *ctx, const char *name,
	const char *arch, const void *data, size_t size)
{
	if (!arch || !arch_is_valid(arch)) {
		stir_error(ctx, stir_loc_none(), "invalid GPU architecture "
			"'%s' (expected sm_XY or compute_XY)",
			arch ? arch : "(null)");
		return NULL;
	}
	if (!data || size == 0) {
		stir_error(ctx, stir_loc_none(), "no GPU code given");
		return NULL;
	}
	return code_new(ctx, name ? name : "kernel.cu", arch, data, size,
		NULL);
}

/* code: the code object (NULL gives NULL, 0 or false); its name. */
const char *stir_gpu_code_get_name(const stir_gpu_code *code)
{
	return code ? code->name : NULL;
}

/* code: the code object; the architecture it was compiled for. */
const char *stir_gpu_code_get_arch(const stir_gpu_code *code)
{
	return code ? code->arch : NULL;
}

/* code: the code object; its cubin or PTX. */
const void *stir_gpu_code_get_data(const stir_gpu_code *code)
{
	return code ? code->data : NULL;
}

/* code: the code object; the size of its data. */
size_t stir_gpu_code_get_size(const stir_gpu_code *code)
{
	return code ? code->size : 0;
}

/* code: the code object; is it PTX? */
bool stir_gpu_code_is_ptx(const stir_gpu_code *code)
{
	return code && code->is_ptx;
}

/* code: the code object; did it come from the cache? */
bool stir_gpu_code_is_from_cache(const stir_gpu_code *code)
{
	return code && code->from_cache;
}

/* code: the code object; NVRTC's log of its compilation. */
const char *stir_gpu_code_get_log(const stir_gpu_code *code)
{
	return code ? code->log : NULL;
}

/* major, minor, archs, n_archs, out, size: see internal.h. */
int stir_nvrtc_pick_arch(int major, int minor, const int *archs, int n_archs,
	char *out, size_t size)
{
	int cc = 10 * major + minor, best = -1;
	for (int i = 0; i < n_archs; i++) {
		if (archs[i] == cc) {
			snprintf(out, size, "sm_%d", cc);
			return 0;
		}
		if (archs[i] < cc && archs[i] > best)
			best = archs[i];
	}
	if (best < 0)
		return -1;
	snprintf(out, size, "compute_%d", best);
	return 0;
}

#ifdef HAVE_NVRTC

/* ctx, r, call: when r is an NVRTC failure, report it naming the call.
 * 0 or -1. */
static int nvrtc_check(stir_ctx *ctx, nvrtcResult r, const char *call)
{
	if (r == NVRTC_SUCCESS)
		return 0;
	stir_error(ctx, stir_loc_none(), "%s failed: %s", call,
		nvrtcGetErrorString(r));
	return -1;
}

/* ctx, opts, arch, size: the architecture to compile for, into arch.
 * 0 or -1. */
static int choose_arch(stir_ctx *ctx, const stir_compile_options *opts,
	char *arch, size_t size)
{
	if (opts && opts->arch) {
		if (!arch_is_valid(opts->arch)) {
			stir_error(ctx, stir_loc_none(), "invalid GPU "
				"architecture '%s' (expected sm_XY or "
				"compute_XY)", opts->arch);
			return -1;
		}
		snprintf(arch, size, "%s", opts->arch);
		return 0;
	}
	if (!opts || !opts->device) {
		stir_error(ctx, stir_loc_none(), "no GPU architecture to "
			"compile for: give an architecture or a device");
		return -1;
	}
	int n = 0;
	if (nvrtc_check(ctx, nvrtcGetNumSupportedArchs(&n),
			"nvrtcGetNumSupportedArchs"))
		return -1;
	int *archs = malloc(((size_t)n + 1) * sizeof(*archs));
	if (!archs) {
		stir_error_oom(ctx);
		return -1;
	}
	int r = nvrtc_check(ctx, nvrtcGetSupportedArchs(archs),
		"nvrtcGetSupportedArchs");
	int major, minor;
	stir_device_get_compute_capability(opts->device, &major, &minor);
	if (r == 0 && stir_nvrtc_pick_arch(major, minor, archs, n, arch,
			size) < 0) {
		stir_error(ctx, stir_loc_none(), "NVRTC cannot generate code "
			"for %s (sm_%d%d)", stir_device_get_name(opts->device),
			major, minor);
		r = -1;
	}
	free(archs);
	return r;
}

/* d, log: attach the log to d, one note per non-empty line. */
static void attach_log(stir_diag *d, const char *log)
{
	int n_notes = 0, n_left = 0;
	for (const char *p = log; *p; ) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		size_t trimmed = len;
		while (trimmed > 0 && isspace((unsigned char)p[trimmed - 1]))
			trimmed--;
		if (trimmed > 0) {
			if (n_notes < MAX_LOG_NOTES) {
				stir_diag_add_note(d, stir_loc_none(), "%.*s",
					(int)trimmed, p);
				n_notes++;
			} else {
				n_left++;
			}
		}
		p += len + (e != NULL);
	}
	if (n_left)
		stir_diag_add_note(d, stir_loc_none(),
			"(%d more lines of the NVRTC log left out)", n_left);
}

/* prog: a compiled program; its log as a string to free ("" when empty),
 * or NULL when memory runs out. */
static char *program_log(nvrtcProgram prog)
{
	size_t n = 0;
	if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n == 0)
		return strdup("");
	char *log = malloc(n + 1);
	if (!log)
		return NULL;
	if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS)
		log[0] = '\0';
	log[n] = '\0';
	return log;
}

/* ctx, name, source, arch, options, n_options: run NVRTC.  The new code
 * object, or NULL with the log attached to the error. */
static stir_gpu_code *run_nvrtc(stir_ctx *ctx, const char *name,
	const char *source, const char *arch, const char **options,
	int n_options)
{
	nvrtcProgram prog;
	__atomic_add_fetch(&n_invocations, 1, __ATOMIC_RELAXED);
	if (nvrtc_check(ctx, nvrtcCreateProgram(&prog, source, name, 0, NULL,
			NULL), "nvrtcCreateProgram"))
		return NULL;
	nvrtcResult r = nvrtcCompileProgram(prog, n_options, options);
	char *log = program_log(prog);
	stir_gpu_code *code = NULL;
	if (!log) {
		stir_error_oom(ctx);
	} else if (r != NVRTC_SUCCESS) {
		stir_diag *d = stir_error(ctx, stir_loc_none(),
			"NVRTC failed to compile '%s'", name);
		if (log[0])
			attach_log(d, log);
		else
			stir_diag_add_note(d, stir_loc_none(), "%s",
				nvrtcGetErrorString(r));
	} else {
		bool ptx = !strncmp(arch, "compute_", 8);
		size_t n = 0;
		char *data = NULL;
		if (nvrtc_check(ctx, ptx ? nvrtcGetPTXSize(prog, &n) :
				nvrtcGetCUBINSize(prog, &n), ptx ?
				"nvrtcGetPTXSize" : "nvrtcGetCUBINSize") == 0) {
			data = malloc(n ? n : 1);
			if (!data)
				stir_error_oom(ctx);
			else if (nvrtc_check(ctx, ptx ? nvrtcGetPTX(prog, data) :
					nvrtcGetCUBIN(prog, data), ptx ?
					"nvrtcGetPTX" : "nvrtcGetCUBIN") == 0) {
				if (n == 0)
					stir_error(ctx, stir_loc_none(), "NVRTC "
						"produced no code for '%s'",
						name);
				else
					code = code_new(ctx, name, arch, data,
						n, log);
			}
		}
		free(data);
	}
	free(log);
	nvrtcDestroyProgram(&prog);
	return code;
}

/* k, arch, name, options, n_options, source: fill the cache key with
 * everything that determines the compiled code. */
static void build_key(stir_cache_key *k, const char *arch, const char *name,
	const char **options, int n_options, const char *source)
{
	char line[64];
	int major = 0, minor = 0;
	stir_nvrtc_get_version(&major, &minor);
	/* bump the first field whenever the meaning of a key changes */
	stir_cache_key_add_str(k, "stir kernel cache 1");
	snprintf(line, sizeof(line), "nvrtc %d.%d", major, minor);
	stir_cache_key_add_str(k, line);
	stir_cache_key_add_str(k, arch);
	stir_cache_key_add_str(k, name);
	snprintf(line, sizeof(line), "%d options", n_options);
	stir_cache_key_add_str(k, line);
	for (int i = 0; i < n_options; i++)
		stir_cache_key_add_str(k, options[i]);
	stir_cache_key_add_str(k, source);
}

/* The options of one NVRTC compilation. */
typedef struct nvrtc_options {
	char arch[32];            /* the architecture chosen */
	char arch_opt[64];        /* --gpu-architecture=ARCH */
	int n;                    /* how many in v */
	const char **v;           /* owned array (of borrowed strings) */
} nvrtc_options;

/* ctx, name, source, opts, o: check a compilation's arguments and fill o
 * with its options: the architecture, the standard, the toolkit's include
 * directory, the caller's extra options.  0, or -1 with an error (o then
 * owns nothing). */
static int compile_options(stir_ctx *ctx, const char *name,
	const char *source, const stir_compile_options *opts, nvrtc_options *o)
{
	o->v = NULL;
	if (!source) {
		stir_error(ctx, stir_loc_none(), "no source to compile for '%s'",
			name);
		return -1;
	}
	int n_extra = opts ? opts->n_extra : 0;
	if (n_extra < 0 || (n_extra > 0 && !opts->extra)) {
		stir_error(ctx, stir_loc_none(), "invalid list of %d NVRTC "
			"options", n_extra);
		return -1;
	}
	for (int i = 0; i < n_extra; i++) {
		if (!opts->extra[i]) {
			stir_error(ctx, stir_loc_none(),
				"NVRTC option %d is NULL", i);
			return -1;
		}
	}
	if (choose_arch(ctx, opts, o->arch, sizeof(o->arch)) < 0)
		return -1;
	snprintf(o->arch_opt, sizeof(o->arch_opt), "--gpu-architecture=%s",
		o->arch);
	o->v = malloc((size_t)(n_extra + 3) * sizeof(*o->v));
	if (!o->v) {
		stir_error_oom(ctx);
		return -1;
	}
	o->n = 0;
	o->v[o->n++] = o->arch_opt;
	o->v[o->n++] = "--std=c++17";
	/* NVRTC ships no headers of its own: cuda_fp16.h and cuda_bf16.h
	 * come from the toolkit's include directory */
	o->v[o->n++] = "-I" STIR_CUDA_DIR "/include";
	for (int i = 0; i < n_extra; i++)
		o->v[o->n++] = opts->extra[i];
	return 0;
}

/* ctx, name, source, opts, code, size: see runtime/internal.h. */
int stir_gpu_code_cache_put(stir_ctx *ctx, const char *name,
	const char *source, const stir_compile_options *opts, const void *code,
	size_t size)
{
	nvrtc_options o;
	if (!name)
		name = "kernel.cu";
	if (compile_options(ctx, name, source, opts, &o) < 0)
		return -1;
	char *dir = stir_cache_dir(opts ? opts->cache_dir : NULL);
	stir_cache_key key;
	stir_cache_key_init(&key);
	build_key(&key, o.arch, name, o.v, o.n, source);
	int rc = dir ? stir_cache_store(ctx, dir, &key, code, size) : -1;
	if (!dir)
		stir_error(ctx, stir_loc_none(), "no kernel cache: set "
			"STIR_CACHE_DIR or HOME");
	stir_cache_key_release(&key);
	free(dir);
	free(o.v);
	return rc;
}

/* ctx, name, source, opts: see the header. */
stir_gpu_code *stir_gpu_code_compile(stir_ctx *ctx, const char *name,
	const char *source, const stir_compile_options *opts)
{
	nvrtc_options o;
	if (!name)
		name = "kernel.cu";
	if (compile_options(ctx, name, source, opts, &o) < 0)
		return NULL;
	const char *arch = o.arch;
	const char **options = o.v;
	int n_options = o.n;

	stir_gpu_code *code = NULL;
	char *dir = NULL;
	stir_cache_key key;
	stir_cache_key_init(&key);
	bool use_cache = !(opts && (opts->flags & STIR_COMPILE_NO_CACHE)) &&
		!stir_cache_disabled_by_env();
	if (use_cache) {
		dir = stir_cache_dir(opts ? opts->cache_dir : NULL);
		if (!dir)
			stir_warning(ctx, stir_loc_none(), "no kernel cache: "
				"set STIR_CACHE_DIR or HOME");
		build_key(&key, arch, name, options, n_options, source);
		unsigned char *data;
		size_t size;
		if (dir && stir_cache_lookup(dir, &key, &data, &size) == 1) {
			code = code_new(ctx, name, arch, data, size, NULL);
			if (code)
				code->from_cache = true;
			free(data);
			goto done;
		}
	}
	code = run_nvrtc(ctx, name, source, arch, options, n_options);
	if (code && dir)
		stir_cache_store(ctx, dir, &key, code->data, code->size);
done:
	stir_cache_key_release(&key);
	free(dir);
	free(options);
	return code;
}

#else /* !HAVE_NVRTC */

/* ctx, name, source, opts: without NVRTC nothing can be compiled. */
stir_gpu_code *stir_gpu_code_compile(stir_ctx *ctx, const char *name,
	const char *source, const stir_compile_options *opts)
{
	(void)name;
	(void)source;
	(void)opts;
	stir_error(ctx, stir_loc_none(),
		"stir was built without NVRTC (configure --with-cuda=DIR)");
	return NULL;
}

/* ctx, name, source, opts, code, size: without NVRTC there is no key. */
int stir_gpu_code_cache_put(stir_ctx *ctx, const char *name,
	const char *source, const stir_compile_options *opts, const void *code,
	size_t size)
{
	(void)name;
	(void)source;
	(void)opts;
	(void)code;
	(void)size;
	stir_error(ctx, stir_loc_none(),
		"stir was built without NVRTC (configure --with-cuda=DIR)");
	return -1;
}

#endif
