/* The launch plan of a stage III kernel (include/stir/codegen.h): the
 * emitted CUDA C, and for each launch its function, its arguments, and its
 * grid and block sizes as expressions of the kernel's parameters,
 * evaluated here for concrete sizes. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "codegen/cuda_internal.h"
#include "codegen/plan.h"
#include "ir/layout.h"

/* p: the plan to free, with its launches and source. */
void stir_cuda_plan_free(stir_cuda_plan *p)
{
	if (!p)
		return;
	for (int i = 0; p->launches && i < p->n_launches; i++) {
		cuda_launch *L = &p->launches[i];
		free(L->name);
		gpu_launch_release(&L->shape);
		for (int j = 0; j < L->n_args; j++)
			free(L->args[j].name);
		free(L->args);
	}
	free(p->launches);
	free(p->source);
	free(p->max_elems);
	free(p->written);
	free(p);
}

/* k, flags: emit k into a new plan. */
stir_cuda_plan *stir_cuda_plan_alloc(const stir_kernel *k, unsigned flags)
{
	return cuda_plan_alloc_bounded(k, flags, k ? k->min_blocks_per_sm : 0);
}

/* k, flags, min_blocks: see cuda_internal.h. */
stir_cuda_plan *cuda_plan_alloc_bounded(const stir_kernel *k, unsigned flags,
	int min_blocks)
{
	if (!k)
		return NULL;
	stir_cuda_plan *p = calloc(1, sizeof(*p));
	if (!p) {
		stir_error_oom(stir_kernel_ctx(k));
		return NULL;
	}
	p->k = k;
	p->min_blocks_per_sm = min_blocks;
	p->overlap = k->overlap_launches;
	p->flags = flags;
	if (cuda_emit(p, flags) < 0) {
		stir_cuda_plan_free(p);
		return NULL;
	}
	return p;
}

/* k: the source of a plan made for it, the plan discarded. */
char *stir_kernel_to_cuda(const stir_kernel *k)
{
	stir_cuda_plan *p = stir_cuda_plan_alloc(k, 0);
	if (!p)
		return NULL;
	char *s = p->source;
	p->source = NULL;
	stir_cuda_plan_free(p);
	return s;
}

/* p: the plan to read (this and the accessors below). */
const stir_kernel *stir_cuda_plan_get_kernel(const stir_cuda_plan *p)
{
	return p ? p->k : NULL;
}

/* p: the plan. */
const char *stir_cuda_plan_get_source(const stir_cuda_plan *p)
{
	return p ? p->source : NULL;
}

/* p: the plan. */
int stir_cuda_plan_n_launches(const stir_cuda_plan *p)
{
	return p ? p->n_launches : 0;
}

/* p, i: launch i, or NULL. */
static const cuda_launch *launch_at(const stir_cuda_plan *p, int i)
{
	return p && i >= 0 && i < p->n_launches ? &p->launches[i] : NULL;
}

/* p, i: launch i of the plan. */
const char *stir_cuda_plan_get_launch_name(const stir_cuda_plan *p, int i)
{
	const cuda_launch *L = launch_at(p, i);
	return L ? L->name : NULL;
}

/* p, i: see codegen.h. */
unsigned stir_cuda_plan_get_launch_shared(const stir_cuda_plan *p, int i)
{
	const cuda_launch *L = launch_at(p, i);
	return L ? L->dynamic_shared : 0;
}

/* p, i, d: the extents bound to index d of launch i. */
int stir_cuda_plan_n_extents(const stir_cuda_plan *p, int i, stir_thread d)
{
	const cuda_launch *L = launch_at(p, i);
	return L && (int)d >= 0 && (int)d < N_DIMS ? L->shape.n_ext[d] : -1;
}

/* p, i, d, j: extent j of index d of launch i, or NULL. */
const stir_expr *stir_cuda_plan_get_extent(const stir_cuda_plan *p, int i,
	stir_thread d, int j)
{
	int n = stir_cuda_plan_n_extents(p, i, d);
	return j >= 0 && j < n ? p->launches[i].shape.ext[d][j] : NULL;
}

/* p, i: launch i of the plan. */
bool stir_cuda_plan_launch_is_horizontal(const stir_cuda_plan *p, int i)
{
	const cuda_launch *L = launch_at(p, i);
	return L && L->shape.horizontal;
}

/* p, i: launch i of the plan. */
int stir_cuda_plan_n_args(const stir_cuda_plan *p, int i)
{
	const cuda_launch *L = launch_at(p, i);
	return L ? L->n_args : -1;
}

/* p, i, j: argument j of launch i, or NULL. */
static const cuda_arg *arg_at(const stir_cuda_plan *p, int i, int j)
{
	const cuda_launch *L = launch_at(p, i);
	return L && j >= 0 && j < L->n_args ? &L->args[j] : NULL;
}

/* p, i, j: argument j of launch i (this and the three below). */
const char *stir_cuda_plan_get_arg_name(const stir_cuda_plan *p, int i, int j)
{
	const cuda_arg *a = arg_at(p, i, j);
	return a ? a->name : NULL;
}

/* p, i, j: argument j of launch i. */
stir_arg_type stir_cuda_plan_get_arg_type(const stir_cuda_plan *p, int i,
	int j)
{
	const cuda_arg *a = arg_at(p, i, j);
	return a ? a->type : STIR_ARG_NONE;
}

/* p, i, j: argument j of launch i. */
const stir_buffer *stir_cuda_plan_get_arg_buffer(const stir_cuda_plan *p,
	int i, int j)
{
	const cuda_arg *a = arg_at(p, i, j);
	return a ? a->buf : NULL;
}

/* p, i, j: argument j of launch i. */
bool stir_cuda_plan_arg_is_written(const stir_cuda_plan *p, int i, int j)
{
	const cuda_arg *a = arg_at(p, i, j);
	return a && a->written;
}

/* p, b: see codegen.h. */
void stir_cuda_plan_poison_outputs(const stir_cuda_plan *p, stir_bindings *b)
{
	for (int i = 0; i < stir_cuda_plan_n_launches(p); i++) {
		for (int j = 0; j < stir_cuda_plan_n_args(p, i); j++) {
			const stir_buffer *buf = stir_cuda_plan_get_arg_buffer(p, i, j);
			const char *name = buf ? stir_buffer_get_array_name(buf) : NULL;
			stir_array *a = name ? stir_bindings_get_array(b, name) : NULL;
			if (!a || !stir_cuda_plan_arg_is_written(p, i, j))
				continue;
			if (stir_dtype_is_float(stir_array_get_dtype(a)))
				stir_array_fill(a, NAN);
			else
				for (int64_t e = 0; e < stir_array_get_len(a); e++)
					stir_array_set_int(a, e, -1234567);
		}
	}
}

/* The largest size CUDA allows per index (grid x, y, z, block x, y, z). */
static const int64_t dim_limit[N_DIMS] = {
	INT32_MAX, 65535, 65535, 1024, 1024, 64,
};

/* p, i: see plan.h. */
stir_loc cuda_plan_launch_loc(const stir_cuda_plan *p, int i)
{
	stir_loc loc = stir_stmt_first_loc(p->launches[i].shape.stmt);
	return loc.line > 0 ? loc : p->k->loc;
}

/* p, i, params, ctx, grid, block: see plan.h. */
int cuda_plan_dims(const stir_cuda_plan *p, int i, const int64_t *params,
	stir_ctx *ctx, unsigned grid[3], unsigned block[3])
{
	static const char *const what[N_DIMS] = {
		"blocks in x", "blocks in y", "blocks in z",
		"threads per block in x", "threads per block in y",
		"threads per block in z",
	};
	const cuda_launch *L = &p->launches[i];
	int64_t size[N_DIMS];
	for (int d = 0; d < N_DIMS; d++) {
		bool sum = L->shape.horizontal && d == STIR_BLOCK_X;
		int64_t m = sum ? 0 : 1;
		for (int j = 0; j < L->shape.n_ext[d]; j++) {
			int64_t v;
			if (stir_eval_size_at(ctx, p->k, L->shape.ext[d][j], params, &v,
				stir_stmt_first_loc(L->shape.stmt)) < 0)
				return -1;
			if (!sum) {
				m = v > m ? v : m;
			} else if (v > 0 && __builtin_add_overflow(m, v, &m)) {
				m = INT64_MAX;
			}
		}
		size[d] = m > 0 ? m : 1;
		if (size[d] > dim_limit[d]) {
			stir_error(ctx, cuda_plan_launch_loc(p, i), "launch '%s' "
				"needs %" PRId64 " %s; CUDA allows at most %" PRId64, L->name, size[d],
				what[d], dim_limit[d]);
			return -1;
		}
	}
	int64_t threads = size[3] * size[4] * size[5];
	if (threads > 1024) {
		stir_error(ctx, cuda_plan_launch_loc(p, i), "launch '%s' needs %"
			PRId64 " threads per block; CUDA allows at most 1024", L->name,
			threads);
		return -1;
	}
	for (int d = 0; d < 3; d++) {
		grid[d] = (unsigned)size[d];
		block[d] = (unsigned)size[3 + d];
	}
	return 0;
}

/* k, st, params, ctx, empty: whether statement st is a bound loop whose
 * extent (an expression of parameters, as bind requires) is at most 0.
 * 0 or -1. */
static int bound_loop_is_empty(const stir_kernel *k, const stir_stmt *st,
	const int64_t *params, stir_ctx *ctx, bool *empty)
{
	int64_t v;
	*empty = false;
	if (st->kind != STIR_STMT_FOR || st->u.for_.kind != STIR_LOOP_BIND)
		return 0;
	if (stir_eval_size_at(ctx, k, st->u.for_.extent, params, &v,
		stir_stmt_first_loc(st)) < 0)
		return -1;
	*empty = v <= 0;
	return 0;
}

/* p, i, params, ctx, empty: see plan.h. */
int cuda_plan_launch_is_empty(const stir_cuda_plan *p, int i,
	const int64_t *params, stir_ctx *ctx, bool *empty)
{
	const stir_stmt *st = p->launches[i].shape.stmt;
	if (!p->launches[i].shape.horizontal)
		return bound_loop_is_empty(p->k, st, params, ctx, empty);
	/* a horizontal block: empty when every nest is */
	*empty = true;
	for (int j = 0; j < st->u.block.body.n && *empty; j++)
		if (bound_loop_is_empty(p->k, stir_stmt_at(&st->u.block.body, j),
		    params, ctx, empty) < 0)
			return -1;
	return 0;
}

/* p, i, b, grid, block: the parameters from b, then cuda_plan_dims. */
int stir_cuda_plan_get_launch_dims(const stir_cuda_plan *p, int i,
	const stir_bindings *b, unsigned grid[3], unsigned block[3])
{
	if (!p || !b)
		return -1;
	if (i < 0 || i >= p->n_launches) {
		stir_error(stir_kernel_ctx(p->k), stir_loc_none(), "kernel '%s' "
			"has no launch %d", p->k->name, i);
		return -1;
	}
	stir_layout l;
	if (stir_layout_init(&l, p->k, b, false) < 0)
		return -1;
	int r = cuda_plan_dims(p, i, l.params, stir_kernel_ctx(p->k), grid,
		block);
	stir_layout_release(&l);
	return r;
}
