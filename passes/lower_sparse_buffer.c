/* lower_sparse_buffer: stage II -> stage III (include/stir/passes.h;
 * SparseTIR's sparse buffer lowering, paper eq. 6-8).
 *
 * Requires: a verified stage II kernel.
 * Every tensor or local over axes becomes a flat buffer ("A_data" bound to
 * "A"; a local keeps its name) whose element for relative positions
 * (p1, .., pn) is at the offset of docs/language.md section 4: the global
 * position of each axis is its parent's row start (J_indptr[g] for a
 * variable axis, g * C for sparse_fixed) plus its relative position, and
 * the chains combine mixed-radix by their last axis's number of positions.
 * The axes disappear; the auxiliary buffers stay, no longer tied to axes;
 * lets that flat offsets no longer need (a fused row's search, when only
 * the non-zero's own position is used) are removed; regions are computed
 * again for the flat buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <stir/passes.h>
#include "ir/layout.h"
#include "passes/passes.h"
#include "ir/util.h"
#include "ir/visit.h"

typedef struct flat {
	stir_kernel *k;
	stir_buffer **map;   /* new flat buffer of each old buffer, by index */
	bool failed;
} flat;

/* f, p: p, or note that memory ran out. */
static void *check(flat *f, void *p)
{
	if (!p)
		f->failed = true;
	return p;
}

/* f, off, npos, t: off * npos computed in the integer type t: when both
 * are narrower than t, off is converted to t first (one operand of type t
 * makes the product t, in the interpreter as in C). */
static stir_expr *scale(flat *f, stir_expr *off, stir_expr *npos,
	stir_dtype t)
{
	if (off && npos && stir_int_rank(off->dtype) < stir_int_rank(t) &&
	    stir_int_rank(npos->dtype) < stir_int_rank(t))
		off = check(f, stir_expr_cast(f->k, t, off));
	return stir_mk_mul(f->k, off, npos);
}

/* f, buf, pos: the flat offset of buf[pos[0], .., pos[n-1]], computed in
 * the type of the buffer's extent (stir_buffer_offset_dtype): the sum so
 * far is scaled by the next chain's positions in that type, where a
 * narrower one could wrap (an i32 row position times an i32 width, in a
 * buffer whose i64 NNZ makes its extent i64).
 * The bindings are checked to keep every offset within that type, and
 * each global position is below its axis's number of positions, which
 * fits the position's own type; so no step wraps. */
static stir_expr *offset(flat *f, const stir_buffer *buf, stir_expr *const *pos)
{
	stir_kernel *k = f->k;
	stir_dtype t = stir_buffer_offset_dtype(buf);
	stir_expr *off = NULL, *gpos = NULL;
	for (int i = 0; i < buf->n_axes; i++) {
		const stir_axis *a = buf->axes[i];
		stir_expr *p = pos[i];
		if (a->parent) {
			stir_expr *start = a->kind == STIR_SPARSE_FIXED ?
				stir_mk_mul(k, gpos, stir_expr_copy(k, a->nnz, NULL)) :
				stir_mk_load1(k, a->indptr_buf, gpos);
			gpos = stir_mk_add(k, start, p);
		} else {
			gpos = p;
		}
		if (!check(f, gpos))
			return NULL;
		if (!stir_buffer_axis_ends_chain(buf, i))
			continue;
		off = off ? stir_mk_add(k, scale(f, off, stir_axis_npos_expr(k, a),
			t), stir_expr_copy(k, gpos, NULL)) :
			stir_expr_copy(k, gpos, NULL);
		/* the next chain starts afresh */
		if (i + 1 < buf->n_axes)
			gpos = NULL;
	}
	return check(f, off ? off : stir_mk_int(k, 0));
}

/* f, buf: the flat buffer replacing buf (over axes). */
static stir_buffer *flatten_buffer(flat *f, stir_names *names,
	const stir_buffer *buf)
{
	stir_kernel *k = f->k;
	stir_expr *extent = NULL;
	for (int i = 0; i < buf->n_axes; i++)
		if (stir_buffer_axis_ends_chain(buf, i))
			extent = extent ? stir_mk_mul(k, extent,
				stir_axis_npos_expr(k, buf->axes[i])) :
				stir_axis_npos_expr(k, buf->axes[i]);
	bool tensor = buf->kind == STIR_BUFFER_TENSOR;
	const char *base = tensor ? stir_kernel_strf(k, "%s_data", buf->name) :
		NULL;
	const char *name = !tensor ? buf->name :
		base ? stir_names_fresh(names, base) : NULL;
	stir_buffer *b = check(f, name && extent ? stir_kernel_add_flat_buffer(k,
		name, buf->kind, buf->dtype, extent, tensor ? buf->name : NULL) : NULL);
	if (!b || stir_made_add(k, STIR_MADE_BUFFER, name, buf->name) < 0)
		return check(f, NULL);
	b->loc = buf->loc;
	b->scope = buf->scope;
	if (buf->domain_lo)
		stir_buffer_set_domain(b, stir_expr_copy(k, buf->domain_lo, NULL),
			stir_expr_copy(k, buf->domain_hi, NULL));
	b->distinct = buf->distinct;
	return b;
}

/* f, buf, n, idx: the access buf[idx..], its indices already flat, made
 * flat: *buf and *idx replaced. */
static void flat_access(flat *f, stir_buffer **buf, int *n, stir_expr ***idx)
{
	if ((*buf)->n_axes == 0)
		return;
	stir_expr *off = offset(f, *buf, *idx);
	stir_expr **v = check(f, stir_arena_alloc(stir_kernel_arena(f->k),
		sizeof(*v)));
	if (!off || !v)
		return;
	v[0] = off;
	*buf = f->map[(*buf)->index];
	*n = 1;
	*idx = v;
}

/* slot, user: flatten a load whose indices are flat already (a flat). */
static stir_visit_step flat_load(stir_expr **slot, void *user)
{
	stir_expr *e = *slot;
	if (e->kind == STIR_EXPR_LOAD)
		flat_access(user, &e->u.load.buf, &e->u.load.n, &e->u.load.idx);
	return STIR_VISIT_GO;
}

/* s, user: flatten a store whose indices and value are flat already (a
 * flat). */
static stir_visit_step flat_store(stir_stmt *s, void *user)
{
	if (s->kind == STIR_STMT_STORE)
		flat_access(user, &s->u.store.buf, &s->u.store.n, &s->u.store.idx);
	return STIR_VISIT_GO;
}

/* k: see passes/passes.h: the rewrite, without the verifier. */
int stir_lower_sparse_buffer_rewrite(stir_kernel *k)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	stir_made_clear(k);
	int n = k->buffers.n;
	flat f = { .k = k, .map = calloc((size_t)n + 1, sizeof(stir_buffer *)) };
	stir_names names;
	if (!f.map || stir_names_init(&names, k) < 0) {
		free(f.map);
		stir_error_oom(ctx);
		return -1;
	}
	for (int i = 0; i < n && !f.failed; i++) {
		const stir_buffer *b = stir_buffer_at(&k->buffers, i);
		if (b->n_axes > 0)
			f.map[i] = flatten_buffer(&f, &names, b);
	}
	stir_names_release(&names);
	if (!f.failed) {
		/* bottom-up: an access is made flat after its indices */
		stir_visitor v = { NULL, flat_store, NULL, flat_load, 0, &f };
		stir_visit_list(&v, &k->body);
	}
	if (!f.failed) {
		/* the flat buffers take the places of the old ones */
		stir_ptr_vec buffers = { 0 };
		for (int i = 0; i < n && !f.failed; i++) {
			stir_buffer *b = f.map[i] ? f.map[i] : stir_buffer_at(&k->buffers, i);
			b->aux_axis = NULL;
			b->coo_axis = NULL;
			b->index = buffers.n;
			if (stir_ptr_vec_push(stir_kernel_arena(k), &buffers, b) < 0)
				f.failed = true;
		}
		k->buffers = buffers;
		k->axes.n = 0;
		k->stage = STIR_STAGE_3;
	}
	free(f.map);
	if (f.failed) {
		stir_made_clear(k);
		stir_error_oom(ctx);
		return -1;
	}
	stir_remove_dead_lets(k);
	return stir_analyze_regions(k);
}

/* k: see include/stir/passes.h. */
int stir_lower_sparse_buffer(stir_kernel *k)
{
	return stir_lowering_run(k, "lower_sparse_buffer", STIR_STAGE_2,
		stir_lower_sparse_buffer_rewrite);
}

/* m: see include/stir/passes.h. */
int stir_module_lower_sparse_buffer(stir_module *m)
{
	return stir_lowering_run_module(m, STIR_STAGE_2, stir_lower_sparse_buffer);
}
