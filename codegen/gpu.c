/* Compiled kernels and runs on a device (include/stir/codegen.h).
 *
 * A run holds, for one compiled kernel on one device: the loaded module,
 * one argument pack per launch (bound by name: the sizes, then the arrays
 * as device pointers), a device buffer per array the launches take, a
 * stream, and the events of timed launches.  Upload, launch and download
 * are separate so that a benchmark can time launches alone. */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "codegen/cuda_internal.h"
#include "codegen/plan.h"
#include "ir/layout.h"

struct stir_gpu_kernel {
	stir_cuda_plan *plan;      /* owned */
	stir_gpu_code *code;       /* owned */
};

struct stir_gpu_run {
	const stir_gpu_kernel *gk; /* borrowed */
	stir_device *dev;          /* borrowed (the module holds a reference) */
	stir_ctx *ctx;             /* the device's: receives errors */
	stir_gpu_module *mod;      /* owned */
	int n;                     /* launches */
	stir_gpu_func **funcs;     /* owned array; functions owned by mod */
	stir_arg_pack **packs;     /* owned, one per launch */
	int n_bufs;                /* the kernel's buffers */
	stir_gpu_buf **bufs;       /* owned; per buffer index, NULL when no
	                              launch takes it */
	int64_t *params;           /* owned: parameter values of the upload */
	bool uploaded;             /* upload succeeded since the last change */
	uint64_t *ext;             /* owned: per buffer, the caller's device
	                              address (stir_gpu_run_bind_device), or
	                              0 */
	bool external;             /* bound by stir_gpu_run_bind_device */
	size_t *ext_need;          /* owned: per buffer, the bytes the caller's
	                              array must have at the bound sizes */
	unsigned *dims;            /* owned: per launch, grid then block sizes
	                              at the bound sizes (6 each) */
	bool *empty;               /* owned: per launch, nothing to run */
	bool dims_valid;           /* dims and empty are those of params */
	stir_stream *stream;       /* owned */
	stir_stream *user_stream;  /* borrowed, or NULL: stream is used */
	stir_event **ev;           /* owned: start and end per launch, made on
	                              first timed launch */
	double ms;                 /* the last timed run, or -1 */
	double *launch_ms;         /* owned, per launch */
	const stir_gpu_extern *re_arrays; /* borrowed: the arrays of the last
	                              successful stir_gpu_run_rebind_device,
	                              which stir_gpu_run_relaunch reads again;
	                              NULL when there is none */
	int re_n;                  /* their number */
	int *re_idx;               /* owned: their buffer indices (re_cap) */
	int re_cap;
};

/* ---- compiled kernels ---------------------------------------------------- */

stir_gpu_kernel *stir_gpu_kernel_alloc(const stir_kernel *k,
	stir_gpu_code *code)
{
	if (!k || !code) {
		stir_gpu_code_free(code);
		return NULL;
	}
	stir_gpu_kernel *gk = calloc(1, sizeof(*gk));
	if (!gk) {
		stir_error_oom(stir_kernel_ctx(k));
		stir_gpu_code_free(code);
		return NULL;
	}
	gk->code = code;
	gk->plan = stir_cuda_plan_alloc(k, 0);
	if (!gk->plan) {
		stir_gpu_kernel_free(gk);
		return NULL;
	}
	return gk;
}

/* k, opts: a compiled kernel of k with its plan and no code yet, or NULL
 * with errors in k's context. */
static stir_gpu_kernel *plan_kernel(const stir_kernel *k,
	const stir_compile_options *opts)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	int min_blocks = opts && opts->min_blocks_per_sm ?
		opts->min_blocks_per_sm : k->min_blocks_per_sm;
	if (min_blocks < 0 || min_blocks > 32) {
		stir_error(ctx, k->loc, "min_blocks_per_sm must be 0 to 32, not %d",
			min_blocks);
		return NULL;
	}
	stir_gpu_kernel *gk = calloc(1, sizeof(*gk));
	if (!gk) {
		stir_error_oom(ctx);
		return NULL;
	}
	/* stir_gpu_run allocates every buffer on its own: aligned */
	gk->plan = cuda_plan_alloc_bounded(k, STIR_CUDA_ALIGNED_BUFFERS,
		min_blocks);
	if (!gk->plan) {
		free(gk);
		return NULL;
	}
	return gk;
}

/* gk, ctx, opts: compile gk's source as "KERNEL.cu" into gk->code, errors
 * into ctx.  0 or -1. */
static int compile_plan(stir_gpu_kernel *gk, stir_ctx *ctx,
	const stir_compile_options *opts)
{
	const char *kname = gk->plan->k->name;
	size_t len = strlen(kname) + 4;
	char *name = malloc(len);
	if (!name) {
		stir_error_oom(ctx);
		return -1;
	}
	snprintf(name, len, "%s.cu", kname);
	gk->code = stir_gpu_code_compile(ctx, name, gk->plan->source, opts);
	free(name);
	return gk->code ? 0 : -1;
}

/* k, opts: the plan of k, and its source compiled as "KERNEL.cu". */
stir_gpu_kernel *stir_gpu_kernel_compile(const stir_kernel *k,
	const stir_compile_options *opts)
{
	if (!k)
		return NULL;
	stir_gpu_kernel *gk = plan_kernel(k, opts);
	if (gk && compile_plan(gk, stir_kernel_ctx(k), opts) < 0) {
		stir_gpu_kernel_free(gk);
		return NULL;
	}
	return gk;
}

/* One kernel of stir_gpu_kernel_compile_all. */
typedef struct compile_job {
	stir_gpu_kernel *gk;       /* planned, or NULL when planning failed */
	const stir_compile_options *opts;
	stir_ctx *ctx;             /* owned: the compilation's diagnostics */
	int rc;
} compile_job;

/* What the threads of stir_gpu_kernel_compile_all share. */
typedef struct compile_pool {
	compile_job *jobs;
	int n;
	int next;                  /* the next job to take, atomically */
} compile_pool;

/* arg: a compile_pool; take jobs until none is left. */
static void *compile_worker(void *arg)
{
	compile_pool *pool = arg;
	for (;;) {
		int i = __atomic_fetch_add(&pool->next, 1, __ATOMIC_RELAXED);
		if (i >= pool->n)
			return NULL;
		compile_job *j = &pool->jobs[i];
		if (j->gk)
			j->rc = compile_plan(j->gk, j->ctx, j->opts);
	}
}

/* dst, src: report every diagnostic of src again in dst, with its notes
 * (file names interned in dst). */
static void copy_diagnostics(stir_ctx *dst, const stir_ctx *src)
{
	for (int i = 0; i < stir_ctx_n_diagnostics(src); i++) {
		const stir_diag *d = stir_ctx_get_diagnostic(src, i);
		stir_loc loc = stir_diag_get_loc(d);
		if (loc.file)
			loc.file = stir_ctx_intern(dst, loc.file);
		stir_diag *c = stir_ctx_report(dst, stir_diag_get_severity(d), loc,
			"%s", stir_diag_get_message(d));
		for (int j = 0; j < stir_diag_n_notes(d); j++) {
			const stir_diag *n = stir_diag_get_note(d, j);
			stir_loc nloc = stir_diag_get_loc(n);
			if (nloc.file)
				nloc.file = stir_ctx_intern(dst, nloc.file);
			stir_diag_add_note(c, nloc, "%s", stir_diag_get_message(n));
		}
	}
}

/* n, ks, opts, threads, gks: see codegen.h. */
int stir_gpu_kernel_compile_all(int n, const stir_kernel *const *ks,
	const stir_compile_options *opts, int threads, stir_gpu_kernel **gks)
{
	if (n < 0 || (n > 0 && (!ks || !gks)))
		return -1;
	compile_job *jobs = calloc((size_t)n + 1, sizeof(*jobs));
	if (!jobs)
		return -1;
	/* the emitter, one kernel after another, in this thread */
	int failed = 0;
	for (int i = 0; i < n; i++) {
		gks[i] = NULL;
		jobs[i].opts = opts ? &opts[i] : NULL;
		jobs[i].rc = -1;
		if (ks[i] && (jobs[i].gk = plan_kernel(ks[i], jobs[i].opts)) &&
		    !(jobs[i].ctx = stir_ctx_alloc())) {
			stir_error_oom(stir_kernel_ctx(ks[i]));
			stir_gpu_kernel_free(jobs[i].gk);
			jobs[i].gk = NULL;
		}
	}
	/* NVRTC, on a pool of threads */
	if (threads <= 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		threads = cpus > 0 ? (int)cpus : 1;
	}
	if (threads > n)
		threads = n;
	compile_pool pool = { jobs, n, 0 };
	pthread_t *tids = calloc((size_t)threads + 1, sizeof(*tids));
	int started = 0;
	for (; tids && started < threads - 1; started++)
		if (pthread_create(&tids[started], NULL, compile_worker, &pool))
			break;
	compile_worker(&pool);  /* this thread works too */
	for (int t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	free(tids);
	/* the results and diagnostics, in the order of the kernels */
	for (int i = 0; i < n; i++) {
		compile_job *j = &jobs[i];
		if (j->ctx)
			copy_diagnostics(stir_kernel_ctx(ks[i]), j->ctx);
		stir_ctx_free(j->ctx);
		if (j->gk && j->rc == 0) {
			gks[i] = j->gk;
		} else {
			stir_gpu_kernel_free(j->gk);
			failed += ks[i] != NULL;
		}
	}
	free(jobs);
	return failed;
}


/* gk: the compiled kernel to free, with its plan and code. */
void stir_gpu_kernel_free(stir_gpu_kernel *gk)
{
	if (!gk)
		return;
	stir_cuda_plan_free(gk->plan);
	stir_gpu_code_free(gk->code);
	free(gk);
}

/* gk: the compiled kernel (this and the one below). */
const stir_cuda_plan *stir_gpu_kernel_get_plan(const stir_gpu_kernel *gk)
{
	return gk ? gk->plan : NULL;
}

/* gk: the compiled kernel. */
const stir_gpu_code *stir_gpu_kernel_get_code(const stir_gpu_kernel *gk)
{
	return gk ? gk->code : NULL;
}

/* ---- runs ----------------------------------------------------------------- */

void stir_gpu_run_free(stir_gpu_run *r)
{
	if (!r)
		return;
	for (int i = 0; r->packs && i < r->n; i++)
		stir_arg_pack_free(r->packs[i]);
	for (int i = 0; r->ev && i < 2 * r->n; i++)
		stir_event_free(r->ev[i]);
	for (int i = 0; r->bufs && i < r->n_bufs; i++)
		stir_gpu_buf_free(r->bufs[i]);
	free(r->packs);
	free(r->ev);
	free(r->bufs);
	free(r->funcs);
	free(r->params);
	free(r->ext);
	free(r->ext_need);
	free(r->dims);
	free(r->empty);
	free(r->launch_ms);
	free(r->re_idx);
	stir_stream_free(r->stream);
	stir_gpu_module_free(r->mod);
	free(r);
}

/* r, i: the argument pack of launch i, from the plan's signature. */
static stir_arg_pack *make_pack(stir_gpu_run *r, int i)
{
	const stir_cuda_plan *p = r->gk->plan;
	int n = stir_cuda_plan_n_args(p, i);
	stir_gpu_param *params = calloc((size_t)n + 1, sizeof(*params));
	if (!params) {
		stir_error_oom(r->ctx);
		return NULL;
	}
	for (int j = 0; j < n; j++) {
		params[j].name = stir_cuda_plan_get_arg_name(p, i, j);
		params[j].type = stir_cuda_plan_get_arg_type(p, i, j);
	}
	stir_arg_pack *pack = stir_arg_pack_alloc(r->ctx, n, params);
	free(params);
	return pack;
}

/* gk, dev: load gk's code on dev, find every launch's function and make
 * its argument pack and the run's stream. */
stir_gpu_run *stir_gpu_run_alloc(const stir_gpu_kernel *gk, stir_device *dev)
{
	if (!gk || !dev)
		return NULL;
	stir_ctx *ctx = stir_device_get_ctx(dev);
	stir_gpu_run *r = calloc(1, sizeof(*r));
	if (!r) {
		stir_error_oom(ctx);
		return NULL;
	}
	const stir_cuda_plan *p = gk->plan;
	r->gk = gk;
	r->dev = dev;
	r->ctx = ctx;
	r->n = p->n_launches;
	r->n_bufs = p->k->buffers.n;
	r->ms = -1;
	r->funcs = calloc((size_t)r->n + 1, sizeof(*r->funcs));
	r->packs = calloc((size_t)r->n + 1, sizeof(*r->packs));
	r->launch_ms = calloc((size_t)r->n + 1, sizeof(*r->launch_ms));
	r->bufs = calloc((size_t)r->n_bufs + 1, sizeof(*r->bufs));
	r->params = calloc((size_t)p->k->params.n + 1, sizeof(*r->params));
	r->ext = calloc((size_t)r->n_bufs + 1, sizeof(*r->ext));
	r->ext_need = calloc((size_t)r->n_bufs + 1, sizeof(*r->ext_need));
	r->dims = calloc((size_t)r->n * 6 + 1, sizeof(*r->dims));
	r->empty = calloc((size_t)r->n + 1, sizeof(*r->empty));
	if (!r->funcs || !r->packs || !r->launch_ms || !r->bufs || !r->params ||
	    !r->ext || !r->ext_need || !r->dims || !r->empty) {
		stir_error_oom(ctx);
		stir_gpu_run_free(r);
		return NULL;
	}
	r->mod = stir_gpu_module_load(dev, gk->code);
	if (!r->mod)
		goto fail;
	for (int i = 0; i < r->n; i++) {
		r->funcs[i] = stir_gpu_module_get_func(r->mod,
			stir_cuda_plan_get_launch_name(p, i));
		r->packs[i] = r->funcs[i] ? make_pack(r, i) : NULL;
		if (!r->packs[i])
			goto fail;
	}
	r->stream = stir_stream_alloc(dev);
	if (!r->stream)
		goto fail;
	return r;
fail:
	stir_gpu_run_free(r);
	return NULL;
}

/* r, buf: does some launch take buffer buf as an array? */
static bool taken(const stir_gpu_run *r, const stir_buffer *buf)
{
	const stir_cuda_plan *p = r->gk->plan;
	for (int i = 0; i < p->n_launches; i++)
		for (int j = 0; j < p->launches[i].n_args; j++)
			if (p->launches[i].args[j].buf == buf)
				return true;
	return false;
}

/* r, l: refuse buffers larger than their index type can address. */
static int check_index_types(stir_gpu_run *r, const stir_layout *l)
{
	const stir_cuda_plan *p = r->gk->plan;
	for (int i = 0; i < r->n_bufs; i++) {
		const stir_buffer *b = stir_buffer_at(&p->k->buffers, i);
		if (l->buffer_len[i] <= p->max_elems[i])
			continue;
		stir_error(r->ctx, b->loc, "buffer '%s' has %" PRId64 " elements; "
			"%s-bit indices cannot address it", b->name, l->buffer_len[i],
			p->max_elems[i] == INT8_MAX ? "8" : "32");
		return -1;
	}
	return 0;
}

/* r, b, l, i: make the device buffer of buffer i and fill it from b. */
static int upload_buffer(stir_gpu_run *r, const stir_bindings *b,
	const stir_layout *l, int i)
{
	const stir_buffer *buf = stir_buffer_at(&r->gk->plan->k->buffers, i);
	size_t bytes = (size_t)l->buffer_len[i] * stir_dtype_get_size(buf->dtype);
	if (r->bufs[i] && stir_gpu_buf_get_size(r->bufs[i]) != bytes) {
		stir_gpu_buf_free(r->bufs[i]);
		r->bufs[i] = NULL;
	}
	if (!r->bufs[i] && !(r->bufs[i] = stir_gpu_buf_alloc(r->dev, bytes)))
		return -1;
	if ((r->gk->plan->flags & STIR_CUDA_ALIGNED_BUFFERS) &&
	    stir_gpu_buf_get_ptr(r->bufs[i]) % 16) {
		stir_error(r->ctx, buf->loc, "the device buffer of '%s' is not "
			"aligned to 16 bytes, which its kernel's vector accesses "
			"assume", buf->name);
		return -1;
	}
	if (buf->kind == STIR_BUFFER_LOCAL || bytes == 0)
		return 0;
	const stir_array *a = stir_bindings_get_array(b,
		stir_buffer_get_array_name(buf));
	return stir_gpu_buf_copy_from_host(r->bufs[i], 0,
		stir_array_get_const_data(a), bytes);
}

/* r: set every argument of every launch. */
static int bind_args(stir_gpu_run *r)
{
	const stir_cuda_plan *p = r->gk->plan;
	r->dims_valid = false;     /* the sizes may have changed */
	for (int i = 0; i < r->n; i++) {
		stir_arg_pack *pack = r->packs[i];
		stir_arg_pack_clear(pack);
		for (int j = 0; j < p->launches[i].n_args; j++) {
			const cuda_arg *a = &p->launches[i].args[j];
			int rc;
			if (a->buf && r->external &&
			    a->buf->kind != STIR_BUFFER_LOCAL) {
				rc = stir_arg_pack_set_ptr(pack, a->name,
					r->ext[a->buf->index]);
			} else if (a->buf) {
				rc = stir_arg_pack_set_buf(pack, a->name,
					r->bufs[a->buf->index]);
			} else {
				int pi = 0;
				while (stir_var_at(&p->k->params, pi) != a->param)
					pi++;
				rc = a->type == STIR_ARG_I64 ?
					stir_arg_pack_set_i64(pack, a->name, r->params[pi]) :
					stir_arg_pack_set_i32(pack, a->name,
						(int32_t)r->params[pi]);
			}
			if (rc < 0)
				return -1;
		}
	}
	return 0;
}

/* r, b, check_arrays, l: forget the arrays r had and lay out its
 * kernel's buffers for the sizes of b in *l (stir_layout_init, checking
 * b's arrays too when check_arrays), to release.  0, or -1 with nothing
 * to release. */
static int run_begin(stir_gpu_run *r, const stir_bindings *b,
	bool check_arrays, stir_layout *l)
{
	r->uploaded = false;
	r->external = false;
	r->re_arrays = NULL;
	memset(r->ext, 0, (size_t)r->n_bufs * sizeof(*r->ext));
	return stir_layout_init(l, r->gk->plan->k, b, check_arrays);
}

/* r, b: check b, then copy its arrays and bind the arguments. */
int stir_gpu_run_upload(stir_gpu_run *r, const stir_bindings *b)
{
	if (!r || !b)
		return -1;
	const stir_kernel *k = r->gk->plan->k;
	stir_layout l;
	if (run_begin(r, b, true, &l) < 0)
		return -1;
	int rc = check_index_types(r, &l);
	for (int i = 0; rc == 0 && i < r->n_bufs; i++)
		if (taken(r, stir_buffer_at(&k->buffers, i)))
			rc = upload_buffer(r, b, &l, i);
	if (rc == 0) {
		memcpy(r->params, l.params, (size_t)k->params.n * sizeof(int64_t));
		rc = bind_args(r);
	}
	stir_layout_release(&l);
	r->uploaded = rc == 0;
	return rc;
}

/* r, l, i, e: check the caller's memory "e" for buffer i at layout l. */
static int check_extern(stir_gpu_run *r, const stir_layout *l, int i,
	const stir_gpu_extern *e)
{
	const stir_buffer *buf = stir_buffer_at(&r->gk->plan->k->buffers, i);
	size_t size = stir_dtype_get_size(buf->dtype);
	size_t need = (size_t)l->buffer_len[i] * size;
	const char *name = e->name;
	if (e->dtype != buf->dtype) {
		stir_error(r->ctx, buf->loc, "device array '%s' holds %s; the "
			"kernel takes %s", name, stir_dtype_get_name(e->dtype),
			stir_dtype_get_name(buf->dtype));
		return -1;
	}
	if (e->bytes < need) {
		stir_error(r->ctx, buf->loc, "device array '%s' has %zu bytes; "
			"%" PRId64 " elements of %s (%zu bytes) are needed at these "
			"sizes", name, e->bytes, l->buffer_len[i],
			stir_dtype_get_name(buf->dtype), need);
		return -1;
	}
	if (need && !e->ptr) {
		stir_error(r->ctx, buf->loc, "device array '%s' has address 0",
			name);
		return -1;
	}
	unsigned align = (r->gk->plan->flags & STIR_CUDA_ALIGNED_BUFFERS) ?
		16 : (unsigned)size;
	if (e->ptr % align) {
		stir_error(r->ctx, buf->loc, "device array '%s' at 0x%" PRIx64
			" is not aligned to %u bytes, which its kernel assumes",
			name, e->ptr, align);
		return -1;
	}
	return 0;
}

/* r, sizes, n, arrays: bind the caller's device memory (see codegen.h). */
int stir_gpu_run_bind_device(stir_gpu_run *r, const stir_bindings *sizes,
	int n, const stir_gpu_extern *arrays)
{
	if (!r || !sizes || n < 0 || (n && !arrays))
		return -1;
	const stir_kernel *k = r->gk->plan->k;
	stir_layout l;
	if (run_begin(r, sizes, false, &l) < 0)
		return -1;
	int rc = check_index_types(r, &l);
	/* each given array names a buffer a launch takes, once */
	for (int j = 0; rc == 0 && j < n; j++) {
		int found = -1;
		for (int i = 0; found < 0 && i < r->n_bufs; i++) {
			const stir_buffer *buf = stir_buffer_at(&k->buffers, i);
			if (buf->kind != STIR_BUFFER_LOCAL && taken(r, buf) &&
			    arrays[j].name && !strcmp(arrays[j].name,
			    stir_buffer_get_array_name(buf)))
				found = i;
		}
		for (int i = 0; found >= 0 && i < j; i++)
			if (!strcmp(arrays[i].name, arrays[j].name)) {
				stir_error(r->ctx, k->loc, "device array '%s' given "
					"twice", arrays[j].name);
				return stir_layout_release(&l), -1;
			}
		if (found < 0) {
			stir_error(r->ctx, k->loc, "kernel '%s' takes no array '%s' "
				"on the GPU", k->name, arrays[j].name ?
				arrays[j].name : "(null)");
			rc = -1;
		} else if ((rc = check_extern(r, &l, found, &arrays[j])) == 0) {
			r->ext[found] = arrays[j].ptr;
			r->ext_need[found] = (size_t)l.buffer_len[found] *
				stir_dtype_get_size(stir_buffer_at(&k->buffers,
				found)->dtype);
		}
	}
	/* every array taken is given; the kernel's own buffers are made */
	for (int i = 0; rc == 0 && i < r->n_bufs; i++) {
		const stir_buffer *buf = stir_buffer_at(&k->buffers, i);
		if (!taken(r, buf))
			continue;
		if (buf->kind == STIR_BUFFER_LOCAL) {
			rc = upload_buffer(r, sizes, &l, i);
			continue;
		}
		bool given = false;
		for (int j = 0; j < n; j++)
			given |= !strcmp(arrays[j].name,
				stir_buffer_get_array_name(buf));
		if (!given) {
			stir_error(r->ctx, buf->loc, "device array '%s' of kernel "
				"'%s' is not given", stir_buffer_get_array_name(buf),
				k->name);
			rc = -1;
		}
	}
	if (rc == 0) {
		memcpy(r->params, l.params, (size_t)k->params.n * sizeof(int64_t));
		r->external = true;
		rc = bind_args(r);
	}
	stir_layout_release(&l);
	if (rc < 0)
		memset(r->ext, 0, (size_t)r->n_bufs * sizeof(*r->ext));
	r->uploaded = rc == 0;
	r->external = rc == 0;
	return rc;
}

/* r, i, e: whether e may replace the caller's array bound to buffer i
 * (element type, bytes at the bound sizes, address, alignment).  0, or -1
 * with a diagnostic. */
static int check_rebind(stir_gpu_run *r, int i, const stir_gpu_extern *e)
{
	const stir_buffer *buf = stir_buffer_at(&r->gk->plan->k->buffers, i);
	size_t size = stir_dtype_get_size(buf->dtype);
	unsigned align = (r->gk->plan->flags & STIR_CUDA_ALIGNED_BUFFERS) ? 16 :
		(unsigned)size;
	if (e->dtype != buf->dtype) {
		stir_error(r->ctx, buf->loc, "device array '%s' holds %s; the "
			"kernel takes %s", e->name, stir_dtype_get_name(e->dtype),
			stir_dtype_get_name(buf->dtype));
		return -1;
	}
	if (e->bytes < r->ext_need[i]) {
		stir_error(r->ctx, buf->loc, "device array '%s' has %zu bytes; "
			"%zu are needed at the bound sizes", e->name, e->bytes,
			r->ext_need[i]);
		return -1;
	}
	if (r->ext_need[i] && !e->ptr) {
		stir_error(r->ctx, buf->loc, "device array '%s' has address 0",
			e->name);
		return -1;
	}
	if (e->ptr % align) {
		stir_error(r->ctx, buf->loc, "device array '%s' at 0x%" PRIx64
			" is not aligned to %u bytes, which its kernel assumes",
			e->name, e->ptr, align);
		return -1;
	}
	return 0;
}

/* r, i, ptr: the caller's array of buffer i is at ptr now: into the
 * arguments of every launch that takes it.  0 or -1. */
static int set_address(stir_gpu_run *r, int i, uint64_t ptr)
{
	const stir_cuda_plan *p = r->gk->plan;
	r->ext[i] = ptr;
	for (int l = 0; l < r->n; l++)
		for (int a = 0; a < p->launches[l].n_args; a++)
			/* the pack's parameters are the launch's arguments in
			 * order (make_pack) */
			if (p->launches[l].args[a].buf &&
			    p->launches[l].args[a].buf->index == i &&
			    stir_arg_pack_set_ptr_at(r->packs[l], a, ptr) < 0)
				return -1;
	return 0;
}

/* r, n, arrays: see codegen.h. */
int stir_gpu_run_rebind_device(stir_gpu_run *r, int n,
	const stir_gpu_extern *arrays)
{
	if (!r || n < 0 || (n && !arrays))
		return -1;
	const stir_kernel *k = r->gk->plan->k;
	r->re_arrays = NULL;
	if (!r->external) {
		stir_error(r->ctx, k->loc, "kernel '%s': no device arrays bound "
			"to rebind (stir_gpu_run_bind_device first)", k->name);
		return -1;
	}
	/* the buffer of each array, kept for stir_gpu_run_relaunch: a
	 * framework's calls rebind the same few arrays, so this grows once */
	if (n > r->re_cap) {
		int *idx = realloc(r->re_idx, (size_t)n * sizeof(*idx));
		if (!idx) {
			stir_error_oom(r->ctx);
			return -1;
		}
		r->re_idx = idx;
		r->re_cap = n;
	}
	/* check every array before changing anything */
	for (int j = 0; j < n; j++) {
		const stir_gpu_extern *e = &arrays[j];
		int found = -1;
		for (int i = 0; found < 0 && i < r->n_bufs; i++) {
			const stir_buffer *b = stir_buffer_at(&k->buffers, i);
			/* the name first: taken() walks every launch's
			 * arguments */
			if (b->kind != STIR_BUFFER_LOCAL && e->name &&
			    !strcmp(e->name, stir_buffer_get_array_name(b)) &&
			    taken(r, b))
				found = i;
		}
		if (found < 0) {
			stir_error(r->ctx, k->loc, "kernel '%s' has no device array "
				"'%s' bound to rebind", k->name, e->name ? e->name :
				"(null)");
			return -1;
		}
		if (check_rebind(r, found, e) < 0)
			return -1;
		r->re_idx[j] = found;
	}
	/* then the new addresses, into the arguments that hold them */
	for (int j = 0; j < n; j++)
		if (set_address(r, r->re_idx[j], arrays[j].ptr) < 0)
			return -1;
	r->re_arrays = arrays;
	r->re_n = n;
	return 0;
}

/* r, n, arrays, flags: see codegen.h. */
int stir_gpu_run_rebind_launch(stir_gpu_run *r, int n,
	const stir_gpu_extern *arrays, unsigned flags)
{
	if (stir_gpu_run_rebind_device(r, n, arrays) < 0)
		return -1;
	return stir_gpu_run_launch(r, flags);
}

/* r, stream: see codegen.h. */
int stir_gpu_run_set_stream(stir_gpu_run *r, stir_stream *stream)
{
	if (!r)
		return -1;
	r->user_stream = stream;
	return 0;
}

/* r: the events of timed launches, made once. */
static int make_events(stir_gpu_run *r)
{
	if (r->ev)
		return 0;
	r->ev = calloc((size_t)2 * r->n + 1, sizeof(*r->ev));
	if (!r->ev) {
		stir_error_oom(r->ctx);
		return -1;
	}
	for (int i = 0; i < 2 * r->n; i++)
		if (!(r->ev[i] = stir_event_alloc(r->dev)))
			return -1;
	return 0;
}

/* r: zero the buffers the kernel owns, as the interpreter allocates
 * them. */
static int zero_owned(stir_gpu_run *r)
{
	const stir_kernel *k = r->gk->plan->k;
	bool waited = false;
	for (int i = 0; i < r->n_bufs; i++) {
		const stir_buffer *b = stir_buffer_at(&k->buffers, i);
		stir_gpu_buf *d = r->bufs[i];
		if (!d || b->kind != STIR_BUFFER_LOCAL || !stir_gpu_buf_get_size(d))
			continue;
		/* the memset runs on the default stream: on a caller's stream
		 * (perhaps a non-blocking one), wait for the launches before
		 * that may still use the buffer */
		if (r->user_stream && !waited &&
		    stir_stream_synchronize(r->user_stream) < 0)
			return -1;
		waited = true;
		if (stir_gpu_buf_memset(d, 0, stir_gpu_buf_get_size(d), 0) < 0)
			return -1;
	}
	/* and the launches on the caller's stream wait for the memsets */
	if (waited && r->user_stream && stir_device_synchronize(r->dev) < 0)
		return -1;
	return 0;
}

/* r, flags: every launch in order (those with nothing to do, r->empty,
 * left out), then wait. */
static int launch_all(stir_gpu_run *r, unsigned flags)
{
	const bool *empty = r->empty;
	const stir_cuda_plan *p = r->gk->plan;
	bool timed = flags & (STIR_GPU_RUN_TIME | STIR_GPU_RUN_FLUSH_L2);
	stir_stream *stream = r->user_stream ? r->user_stream : r->stream;
	r->ms = -1;
	if (timed && (flags & STIR_GPU_RUN_ASYNC)) {
		stir_error(r->ctx, stir_loc_none(), "kernel '%s': a timed run "
			"cannot be asynchronous", p->k->name);
		return -1;
	}
	if (!r->uploaded) {
		stir_error(r->ctx, stir_loc_none(), "kernel '%s' cannot run: its "
			"arrays were not uploaded", p->k->name);
		return -1;
	}
	if (zero_owned(r) < 0 || (timed && make_events(r) < 0))
		return -1;
	/* the launches' sizes, evaluated once per binding of the sizes */
	for (int i = 0; !r->dims_valid && i < r->n; i++) {
		if (cuda_plan_launch_is_empty(p, i, r->params, r->ctx,
		    &r->empty[i]) < 0 || (!r->empty[i] && cuda_plan_dims(p, i,
		    r->params, r->ctx, &r->dims[6 * i], &r->dims[6 * i + 3]) < 0))
			return -1;
		r->dims_valid = i == r->n - 1;
	}
	int first = -1, last = -1;  /* the launches that ran */
	/* overlapping launches (stir_kernel_set_overlap_launches) are timed
	 * as a whole: an event between two of them would keep the second
	 * from starting during the first */
	bool whole = timed && p->overlap;
	for (int i = 0; i < r->n; i++) {
		stir_launch_config cfg = { .stream = stream,
			.overlap = p->overlap && first >= 0,
			.shared_bytes = p->launches[i].dynamic_shared };
		if (empty[i])
			continue;
		memcpy(cfg.grid, &r->dims[6 * i], 3 * sizeof(*cfg.grid));
		memcpy(cfg.block, &r->dims[6 * i + 3], 3 * sizeof(*cfg.block));
		if ((flags & STIR_GPU_RUN_FLUSH_L2) && first < 0 &&
		    stir_device_flush_l2(r->dev, stream) < 0)
			return -1;
		if (timed && (!whole || first < 0) &&
		    stir_event_record(r->ev[2 * i], stream) < 0)
			return -1;
		if (stir_gpu_func_launch(r->funcs[i], &cfg, r->packs[i]) < 0) {
			if (cfg.shared_bytes)
				stir_error(r->ctx, cuda_plan_launch_loc(p, i),
					"launch %d of kernel '%s' needs %u bytes "
					"of shared memory",
					i, p->k->name, cfg.shared_bytes);
			return -1;
		}
		if (timed && !whole && stir_event_record(r->ev[2 * i + 1],
		    stream) < 0)
			return -1;
		if (first < 0)
			first = i;
		last = i;
	}
	if (whole && last >= 0 && stir_event_record(r->ev[2 * last + 1],
	    stream) < 0)
		return -1;
	if (flags & STIR_GPU_RUN_ASYNC)
		return 0;
	if (stir_stream_synchronize(stream) < 0) {
		/* a fault inside a kernel shows here, not at its launch */
		stir_error(r->ctx, p->k->loc, "kernel '%s' failed on the GPU "
			"(one of its %d launches)", p->k->name, r->n);
		return -1;
	}
	if (!timed)
		return 0;
	for (int i = 0; i < r->n; i++) {
		float ms = 0;
		if (whole)
			ms = -1;   /* overlapped: the run as a whole only */
		else if (!empty[i] && stir_event_elapsed_ms(r->ev[2 * i],
		    r->ev[2 * i + 1], &ms) < 0)
			return -1;
		r->launch_ms[i] = ms;
	}
	/* the run as a whole: from the first launch's start to the last
	 * one's end, gaps between launches included */
	float total = 0;
	if (first >= 0 && stir_event_elapsed_ms(r->ev[2 * first],
		r->ev[2 * last + 1], &total) < 0)
		return -1;
	r->ms = total;
	if (whole && first == last && first >= 0)
		r->launch_ms[first] = total;
	return 0;
}

/* r, flags: see codegen.h. */
int stir_gpu_run_launch(stir_gpu_run *r, unsigned flags)
{
	if (!r)
		return -1;
	return launch_all(r, flags);
}

/* r, flags: see codegen.h. */
int stir_gpu_run_relaunch(stir_gpu_run *r, unsigned flags)
{
	if (!r)
		return -1;
	const stir_gpu_extern *arrays = r->re_arrays;
	if (!arrays) {
		stir_error(r->ctx, r->gk->plan->k->loc, "kernel '%s': no arrays "
			"to relaunch with (a successful stir_gpu_run_rebind_device "
			"first)", r->gk->plan->k->name);
		return -1;
	}
	/* the same checks as the rebind's, the names not looked up again */
	for (int j = 0; j < r->re_n; j++)
		if (check_rebind(r, r->re_idx[j], &arrays[j]) < 0) {
			r->re_arrays = NULL;
			return -1;
		}
	for (int j = 0; j < r->re_n; j++)
		if (set_address(r, r->re_idx[j], arrays[j].ptr) < 0) {
			r->re_arrays = NULL;
			return -1;
		}
	return launch_all(r, flags);
}

/* r: the run (this and the one below). */
double stir_gpu_run_get_ms(const stir_gpu_run *r)
{
	return r ? r->ms : -1;
}

/* r, i: launch i of the last timed run. */
double stir_gpu_run_get_launch_ms(const stir_gpu_run *r, int i)
{
	if (!r || r->ms < 0 || i < 0 || i >= r->n)
		return -1;
	return r->launch_ms[i];
}

/* a, b: ascending order of two doubles, for qsort. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* r, warmups, reps, t: see codegen.h. */
int stir_gpu_run_time(stir_gpu_run *r, int warmups, int reps,
	stir_gpu_timing *t)
{
	if (!r || !t)
		return -1;
	if (warmups < 0 || reps < 1) {
		stir_error(r->ctx, stir_loc_none(), "cannot time kernel '%s': %d "
			"warm-up runs and %d timed runs (at least 0 and 1)",
			r->gk->plan->k->name, warmups, reps);
		return -1;
	}
	double *ms = malloc((size_t)reps * sizeof(*ms));
	if (!ms) {
		stir_error_oom(r->ctx);
		return -1;
	}
	int rc = 0;
	for (int i = 0; rc == 0 && i < warmups; i++)
		rc = stir_gpu_run_launch(r, 0);
	for (int i = 0; rc == 0 && i < reps; i++) {
		rc = stir_gpu_run_launch(r, STIR_GPU_RUN_FLUSH_L2);
		ms[i] = r->ms;
	}
	if (rc == 0) {
		qsort(ms, (size_t)reps, sizeof(*ms), cmp_double);
		t->warmups = warmups;
		t->reps = reps;
		t->median_ms = reps % 2 ? ms[reps / 2] :
			(ms[reps / 2 - 1] + ms[reps / 2]) / 2;
		t->min_ms = ms[0];
		t->max_ms = ms[reps - 1];
	}
	free(ms);
	return rc;
}

/* r, b: the arrays the kernel writes, into b's arrays. */
int stir_gpu_run_download(stir_gpu_run *r, stir_bindings *b)
{
	if (!r || !b)
		return -1;
	const stir_cuda_plan *p = r->gk->plan;
	for (int i = 0; i < r->n_bufs; i++) {
		const stir_buffer *buf = stir_buffer_at(&p->k->buffers, i);
		stir_gpu_buf *d = r->bufs[i];
		if (r->external) {
			stir_error(r->ctx, stir_loc_none(), "kernel '%s' runs on "
				"device arrays of its caller: its results are there, "
				"not downloaded", p->k->name);
			return -1;
		}
		if (!d || !p->written[i] || buf->kind == STIR_BUFFER_LOCAL)
			continue;
		const char *name = stir_buffer_get_array_name(buf);
		stir_array *a = stir_bindings_get_array(b, name);
		size_t bytes = stir_gpu_buf_get_size(d);
		if (!a || stir_array_get_dtype(a) != buf->dtype ||
		    (size_t)stir_array_get_len(a) * stir_dtype_get_size(buf->dtype) !=
		    bytes) {
			stir_error(r->ctx, stir_loc_none(), "cannot download '%s': "
				"the bindings have no array of the uploaded size", name);
			return -1;
		}
		if (bytes && stir_gpu_buf_copy_to_host(d, 0, stir_array_get_data(a),
			bytes) < 0)
			return -1;
	}
	return 0;
}

/* gk, dev, b, flags, ms: a run from start to end. */
int stir_gpu_kernel_run(const stir_gpu_kernel *gk, stir_device *dev,
	stir_bindings *b, unsigned flags, double *ms)
{
	stir_gpu_run *r = stir_gpu_run_alloc(gk, dev);
	int rc = r ? 0 : -1;
	if (rc == 0)
		rc = stir_gpu_run_upload(r, b);
	if (rc == 0)
		rc = stir_gpu_run_launch(r, flags);
	if (rc == 0)
		rc = stir_gpu_run_download(r, b);
	if (rc == 0 && ms)
		*ms = stir_gpu_run_get_ms(r);
	stir_gpu_run_free(r);
	return rc;
}
