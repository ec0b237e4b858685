/* Construction and inspection of modules, kernels, axes, buffers and
 * variables (include/stir/ir.h); the expressions and statements over them
 * are built in ir/expr_stmt.c. */
#include <stdlib.h>
#include <string.h>
#include "ir/nodes.h"

/* ---- module ---- */

stir_module *stir_module_alloc(stir_ctx *ctx)
{
	if (!ctx)
		return NULL;
	stir_module *m = calloc(1, sizeof(*m));
	if (!m)
		return stir_error_oom(ctx);
	m->ctx = ctx;
	stir_arena_init(&m->arena);
	stir_arena_init(&m->decls);
	stir_arena_init(&m->names);
	return m;
}

void stir_module_free(stir_module *m)
{
	if (!m)
		return;
	stir_made_release(m);
	stir_arena_release(&m->arena);
	stir_arena_release(&m->decls);
	stir_arena_release(&m->names);
	free(m->name_set);
	for (int i = 0; i < m->n_all; i++)
		free(m->all[i]);
	free(m->all);
	free(m);
}

/* s: the FNV-1a hash of string s. */
static size_t name_hash(const char *s)
{
	size_t h = (size_t)2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * (size_t)16777619u;
	return h;
}

/* m: double the slots of the name set (or make its first 64).  0 or -1. */
static int name_set_grow(stir_module *m)
{
	size_t cap = m->name_cap ? 2 * m->name_cap : 64;
	const char **set = calloc(cap, sizeof(*set));
	if (!set)
		return -1;
	for (size_t i = 0; i < m->name_cap; i++) {
		const char *n = m->name_set[i];
		if (!n)
			continue;
		size_t j = name_hash(n) & (cap - 1);
		while (set[j])
			j = (j + 1) & (cap - 1);
		set[j] = n;
	}
	free(m->name_set);
	m->name_set = set;
	m->name_cap = cap;
	return 0;
}

const char *stir_module_intern(stir_module *m, const char *s)
{
	if (!s)
		return NULL;
	if (2 * (m->n_names + 1) > m->name_cap && name_set_grow(m) < 0) {
		m->arena.failed = true;
		return NULL;
	}
	size_t i = name_hash(s) & (m->name_cap - 1);
	for (; m->name_set[i]; i = (i + 1) & (m->name_cap - 1))
		if (m->name_set[i] == s || !strcmp(m->name_set[i], s))
			return m->name_set[i];
	const char *c = stir_arena_strdup(&m->names, s);
	if (!c) {
		m->arena.failed = true;
		return NULL;
	}
	m->name_set[i] = c;
	m->n_names++;
	return c;
}

/* m, size: zeroed memory for a parameter, axis or buffer struct, which
 * no collection moves (see struct stir_module). */
static void *decl_alloc(stir_module *m, size_t size)
{
	void *p = stir_arena_alloc(&m->decls, size);
	if (!p)
		m->arena.failed = true;
	return p;
}

size_t stir_module_arena_bytes(const stir_module *m)
{
	return stir_arena_bytes(&m->arena) + stir_arena_bytes(&m->decls) +
		stir_arena_bytes(&m->names);
}

stir_ctx *stir_module_get_ctx(const stir_module *m)
{
	return m->ctx;
}

int stir_module_n_kernels(const stir_module *m)
{
	return m->kernels.n;
}

stir_kernel *stir_module_get_kernel(const stir_module *m, int i)
{
	return i >= 0 && i < m->kernels.n ? stir_kernel_at(&m->kernels, i) : NULL;
}

stir_kernel *stir_module_find_kernel(const stir_module *m, const char *name)
{
	for (int i = 0; i < m->kernels.n; i++)
		if (!strcmp(stir_kernel_at(&m->kernels, i)->name, name))
			return stir_kernel_at(&m->kernels, i);
	return NULL;
}

/* ---- kernel ---- */

/* m: the module receiving a new empty stage I kernel called "name". */
stir_kernel *stir_module_add_kernel(stir_module *m, const char *name)
{
	if (!m || !name)
		return NULL;
	if (m->n_all == m->cap_all) {
		int cap = m->cap_all ? 2 * m->cap_all : 4;
		stir_kernel **all = realloc(m->all, (size_t)cap * sizeof(*all));
		if (!all) {
			m->arena.failed = true;
			return NULL;
		}
		m->all = all;
		m->cap_all = cap;
	}
	stir_kernel *k = calloc(1, sizeof(*k));
	if (!k) {
		m->arena.failed = true;
		return NULL;
	}
	m->all[m->n_all++] = k;
	k->module = m;
	k->name = stir_module_intern(m, name);
	k->stage = STIR_STAGE_1;
	if (!k->name || stir_ptr_vec_push(&m->arena, &m->kernels, k) < 0)
		return NULL;
	return k;
}

const char *stir_kernel_get_name(const stir_kernel *k)
{
	return k->name;
}

stir_stage stir_kernel_get_stage(const stir_kernel *k)
{
	return k->stage;
}

stir_module *stir_kernel_get_module(const stir_kernel *k)
{
	return k->module;
}

/* k: the kernel; name, kind, dtype: the new variable's.  Gives it the next
 * slot. */
static stir_var *var_new(stir_kernel *k, const char *name, stir_var_kind kind,
	stir_dtype dtype)
{
	stir_var *v = kind == STIR_VAR_PARAM ? decl_alloc(k->module, sizeof(*v)) :
		stir_arena_alloc(stir_kernel_arena(k), sizeof(*v));
	if (!v)
		return NULL;
	v->name = stir_module_intern(k->module, name);
	if (!v->name)
		return NULL;
	v->kind = kind;
	v->dtype = dtype;
	v->slot = k->n_vars++;
	return v;
}

stir_var *stir_kernel_add_param(stir_kernel *k, const char *name,
	stir_dtype dtype)
{
	if (!k || !name)
		return NULL;
	stir_var *v = var_new(k, name, STIR_VAR_PARAM, dtype);
	if (!v || stir_ptr_vec_push(stir_kernel_arena(k), &k->params, v) < 0)
		return NULL;
	return v;
}

int stir_kernel_n_params(const stir_kernel *k)
{
	return k->params.n;
}

stir_var *stir_kernel_get_param(const stir_kernel *k, int i)
{
	return i >= 0 && i < k->params.n ? stir_var_at(&k->params, i) : NULL;
}

/* ---- axes ---- */

/* k: the kernel; the rest: the new axis's fields.  "nnz" may be NULL only
 * for dense_fixed; "parent" is NULL for dense_fixed. */
static stir_axis *axis_new(stir_kernel *k, const char *name, stir_axis_kind kind,
	stir_axis *parent, stir_expr *len, stir_expr *nnz)
{
	if (!k || !name || !len)
		return NULL;
	if (kind != STIR_DENSE_FIXED && (!parent || !nnz))
		return NULL;
	stir_axis *a = decl_alloc(k->module, sizeof(*a));
	if (!a)
		return NULL;
	a->name = stir_module_intern(k->module, name);
	a->kind = kind;
	a->parent = parent;
	a->len = len;
	a->nnz = nnz;
	a->idtype = STIR_I32;
	a->sorted = true;
	a->index = k->axes.n;
	if (!a->name || stir_ptr_vec_push(stir_kernel_arena(k), &k->axes, a) < 0)
		return NULL;
	return a;
}

stir_axis *stir_kernel_add_dense_fixed(stir_kernel *k, const char *name,
	stir_expr *len)
{
	return axis_new(k, name, STIR_DENSE_FIXED, NULL, len, NULL);
}

stir_axis *stir_kernel_add_dense_variable(stir_kernel *k, const char *name,
	stir_axis *parent, stir_expr *len, stir_expr *nnz)
{
	return axis_new(k, name, STIR_DENSE_VARIABLE, parent, len, nnz);
}

stir_axis *stir_kernel_add_sparse_fixed(stir_kernel *k, const char *name,
	stir_axis *parent, stir_expr *len, stir_expr *nnz_cols)
{
	return axis_new(k, name, STIR_SPARSE_FIXED, parent, len, nnz_cols);
}

stir_axis *stir_kernel_add_sparse_variable(stir_kernel *k, const char *name,
	stir_axis *parent, stir_expr *len, stir_expr *nnz)
{
	return axis_new(k, name, STIR_SPARSE_VARIABLE, parent, len, nnz);
}

void stir_axis_set_idtype(stir_axis *a, stir_dtype t)
{
	if (a)
		a->idtype = t;
}

void stir_axis_set_sorted(stir_axis *a, bool sorted)
{
	if (a)
		a->sorted = sorted;
}

int stir_kernel_n_axes(const stir_kernel *k)
{
	return k->axes.n;
}

stir_axis *stir_kernel_get_axis(const stir_kernel *k, int i)
{
	return i >= 0 && i < k->axes.n ? stir_axis_at(&k->axes, i) : NULL;
}

stir_axis *stir_kernel_find_axis(const stir_kernel *k, const char *name)
{
	for (int i = 0; i < k->axes.n; i++)
		if (!strcmp(stir_axis_at(&k->axes, i)->name, name))
			return stir_axis_at(&k->axes, i);
	return NULL;
}

const char *stir_axis_get_name(const stir_axis *a)
{
	return a->name;
}

stir_axis_kind stir_axis_get_kind(const stir_axis *a)
{
	return a->kind;
}

stir_axis *stir_axis_get_parent(const stir_axis *a)
{
	return a->parent;
}

stir_dtype stir_axis_get_idtype(const stir_axis *a)
{
	return a->idtype;
}

bool stir_axis_is_sorted(const stir_axis *a)
{
	return a->sorted;
}

/* ---- buffers ---- */

/* k: the kernel; the rest: the new buffer's fields (axes copied). */
static stir_buffer *buffer_new(stir_kernel *k, const char *name,
	stir_buffer_kind kind, stir_dtype dtype, int n_axes,
	stir_axis *const *axes)
{
	if (!k || !name || n_axes < 0 || (n_axes > 0 && !axes))
		return NULL;
	for (int i = 0; i < n_axes; i++)
		if (!axes[i])
			return NULL;
	stir_arena *ar = stir_kernel_arena(k);
	stir_buffer *b = decl_alloc(k->module, sizeof(*b));
	if (!b)
		return NULL;
	b->name = stir_module_intern(k->module, name);
	b->kind = kind;
	b->dtype = dtype;
	b->n_axes = n_axes;
	b->axes = stir_arena_alloc(ar, (size_t)(n_axes ? n_axes : 1) * sizeof(*b->axes));
	b->index = k->buffers.n;
	if (!b->name || !b->axes || stir_ptr_vec_push(ar, &k->buffers, b) < 0)
		return NULL;
	for (int i = 0; i < n_axes; i++)
		b->axes[i] = axes[i];
	return b;
}

stir_buffer *stir_kernel_add_tensor(stir_kernel *k, const char *name,
	stir_dtype dtype, int n_axes, stir_axis *const *axes)
{
	return buffer_new(k, name, STIR_BUFFER_TENSOR, dtype, n_axes, axes);
}

stir_buffer *stir_kernel_add_local(stir_kernel *k, const char *name,
	stir_dtype dtype, int n_axes, stir_axis *const *axes)
{
	return buffer_new(k, name, STIR_BUFFER_LOCAL, dtype, n_axes, axes);
}

void stir_buffer_set_domain(stir_buffer *b, stir_expr *lo, stir_expr *hi)
{
	if (!b)
		return;
	b->domain_lo = lo;
	b->domain_hi = hi;
}

void stir_buffer_set_distinct(stir_buffer *b, bool distinct)
{
	if (b)
		b->distinct = distinct;
}

bool stir_buffer_get_distinct(const stir_buffer *b)
{
	return b && b->distinct;
}

int stir_kernel_n_buffers(const stir_kernel *k)
{
	return k->buffers.n;
}

stir_buffer *stir_kernel_get_buffer(const stir_kernel *k, int i)
{
	return i >= 0 && i < k->buffers.n ? stir_buffer_at(&k->buffers, i) : NULL;
}

stir_buffer *stir_kernel_find_buffer(const stir_kernel *k, const char *name)
{
	for (int i = 0; i < k->buffers.n; i++)
		if (!strcmp(stir_buffer_at(&k->buffers, i)->name, name))
			return stir_buffer_at(&k->buffers, i);
	return NULL;
}

const char *stir_buffer_get_name(const stir_buffer *b)
{
	return b->name;
}

stir_buffer_kind stir_buffer_get_kind(const stir_buffer *b)
{
	return b->kind;
}

stir_dtype stir_buffer_get_dtype(const stir_buffer *b)
{
	return b->dtype;
}

int stir_buffer_n_axes(const stir_buffer *b)
{
	return b->n_axes;
}

stir_axis *stir_buffer_get_axis(const stir_buffer *b, int i)
{
	return i >= 0 && i < b->n_axes ? b->axes[i] : NULL;
}

const char *stir_buffer_get_array_name(const stir_buffer *b)
{
	if (b->kind == STIR_BUFFER_LOCAL)
		return NULL;
	return b->arg ? b->arg : b->name;
}

bool stir_buffer_is_dense(const stir_buffer *b)
{
	for (int i = 0; i < b->n_axes; i++)
		if (b->axes[i]->kind != STIR_DENSE_FIXED)
			return false;
	return true;
}

const char *stir_var_get_name(const stir_var *v)
{
	return v->name;
}

stir_var_kind stir_var_get_kind(const stir_var *v)
{
	return v->kind;
}

stir_dtype stir_var_get_dtype(const stir_var *v)
{
	return v->dtype;
}

/* ---- stage II and III nodes (internal, see ir/nodes.h) ---- */

stir_buffer *stir_kernel_add_flat_buffer(stir_kernel *k, const char *name,
	stir_buffer_kind kind, stir_dtype dtype, stir_expr *extent,
	const char *arg)
{
	if (!extent)
		return NULL;
	stir_buffer *b = buffer_new(k, name, kind, dtype, 0, NULL);
	if (!b)
		return NULL;
	b->extent = extent;
	if (arg && !(b->arg = stir_module_intern(k->module, arg)))
		return NULL;
	return b;
}

stir_var *stir_kernel_new_var(stir_kernel *k, const char *name,
	stir_var_kind kind, stir_dtype dtype)
{
	if (!k || !name)
		return NULL;
	return var_new(k, name, kind, dtype);
}

