/* lower_sparse_iter, step 1: auxiliary buffer materialization (see
 * passes/passes.h).  The structure arrays that axes name implicitly in
 * stage I become buffers of their own, with value domains that later
 * analyses may use. */
#include "passes/passes.h"
#include <stdio.h>
#include "ir/util.h"

stir_expr *stir_axis_npos_expr(stir_kernel *k, const stir_axis *a)
{
	switch (a->kind) {
	case STIR_DENSE_FIXED:
		return stir_expr_copy(k, a->len, NULL);
	case STIR_SPARSE_FIXED:
		return stir_mk_mul(k, stir_axis_npos_expr(k, a->parent),
			stir_expr_copy(k, a->nnz, NULL));
	default:
		return stir_expr_copy(k, a->nnz, NULL);
	}
}

/* k, names, a, indptr: the auxiliary buffer of axis a (its indptr when
 * "indptr", else its indices). */
static stir_buffer *aux_buffer(stir_kernel *k, stir_names *names,
	stir_axis *a, bool indptr)
{
	const char *base = stir_kernel_strf(k, "%s_%s", a->name,
		indptr ? "indptr" : "indices");
	const char *arg = stir_kernel_strf(k, "%s.%s", a->name,
		indptr ? "indptr" : "indices");
	if (!base || !arg)
		return NULL;
	stir_expr *extent = indptr ?
		stir_mk_add(k, stir_axis_npos_expr(k, a->parent), stir_mk_int(k, 1)) :
		stir_axis_npos_expr(k, a);
	const char *name = stir_names_fresh(names, base);
	stir_buffer *b = name ? stir_kernel_add_flat_buffer(k, name,
		indptr ? STIR_BUFFER_INDPTR : STIR_BUFFER_INDICES, a->idtype,
		extent, arg) : NULL;
	if (!b)
		return NULL;
	b->aux_axis = a;
	b->loc = a->loc;
	stir_expr *lo = stir_mk_int(k, 0);
	stir_expr *hi = indptr ?
		stir_mk_add(k, stir_expr_copy(k, a->nnz, NULL), stir_mk_int(k, 1)) :
		stir_expr_copy(k, a->len, NULL);
	stir_buffer_set_domain(b, lo, hi);
	if (indptr)
		a->indptr_buf = b;
	else
		a->indices_buf = b;
	if (stir_made_add(k, indptr ? STIR_MADE_INDPTR : STIR_MADE_INDICES, name,
	    a->name) < 0)
		return NULL;
	return lo && hi ? b : NULL;
}

stir_buffer *stir_kernel_coo_buffer(const stir_kernel *k, const stir_axis *j,
	const stir_axis *x)
{
	for (int i = 0; i < k->buffers.n; i++) {
		stir_buffer *b = stir_buffer_at(&k->buffers, i);
		if (b->kind == STIR_BUFFER_COO && b->aux_axis == j &&
		    b->coo_axis == x)
			return b;
	}
	return NULL;
}

/* k, names, j, x: the COO buffer of axis j for its ancestor x, made
 * unless k has it (several fuse groups may share it). */
static stir_buffer *coo_buffer(stir_kernel *k, stir_names *names,
	stir_axis *j, stir_axis *x)
{
	stir_buffer *b = stir_kernel_coo_buffer(k, j, x);
	if (b)
		return b;
	const char *base = stir_kernel_strf(k, "%s_pos_%s", j->name, x->name);
	const char *arg = stir_kernel_strf(k, "%s.pos_%s", j->name, x->name);
	const char *name = base && arg ? stir_names_fresh(names, base) : NULL;
	b = name ? stir_kernel_add_flat_buffer(k, name, STIR_BUFFER_COO,
		x->idtype, stir_axis_npos_expr(k, j), arg) : NULL;
	if (!b)
		return NULL;
	b->aux_axis = j;
	b->coo_axis = x;
	b->loc = j->loc;
	stir_expr *lo = stir_mk_int(k, 0), *hi = stir_axis_npos_expr(k, x);
	stir_buffer_set_domain(b, lo, hi);
	if (stir_made_add(k, STIR_MADE_COO, name, j->name) < 0)
		return NULL;
	return lo && hi ? b : NULL;
}

/* k, names, list: the COO buffers of the fuse groups with coo of the
 * iterations in list (and nested in them).  0 or -1. */
static int coo_buffers(stir_kernel *k, stir_names *names, stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++) {
		stir_stmt *s = stir_stmt_at(list, i);
		if (s->kind == STIR_STMT_IF) {
			if (coo_buffers(k, names, &s->u.if_.then_body) < 0 ||
			    coo_buffers(k, names, &s->u.if_.else_body) < 0)
				return -1;
			continue;
		}
		if (s->kind != STIR_STMT_ITER)
			continue;
		for (int g = 0; g < s->u.iter.n_groups; g++) {
			const stir_iter_group *grp = &s->u.iter.groups[g];
			stir_axis *j = grp->coo ? grp->axes[grp->n_axes - 1] : NULL;
			for (int m = 0; j && m + 1 < grp->n_axes; m++)
				if (!coo_buffer(k, names, j, grp->axes[m]))
					return -1;
		}
		if (coo_buffers(k, names, &s->u.iter.init) < 0 ||
		    coo_buffers(k, names, &s->u.iter.body) < 0)
			return -1;
	}
	return 0;
}

/* v, from, to: reverse the elements [from, to) of v. */
static void reverse(void **v, int from, int to)
{
	for (int i = from, j = to - 1; i < j; i++, j--) {
		void *t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

/* k, first: move the buffers from index "first" on to the front of the
 * buffer list, keeping both groups in order, and renumber. */
static void move_to_front(stir_kernel *k, int first)
{
	int n = k->buffers.n;
	/* a rotation by three reversals: no scratch array */
	reverse(k->buffers.v, 0, first);
	reverse(k->buffers.v, first, n);
	reverse(k->buffers.v, 0, n);
	for (int i = 0; i < n; i++)
		stir_buffer_at(&k->buffers, i)->index = i;
}

int stir_materialize_aux_buffers(stir_kernel *k)
{
	stir_names names;
	if (stir_names_init(&names, k) < 0) {
		stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	int first = k->buffers.n, rc = 0;
	for (int i = 0; i < k->axes.n && rc == 0; i++) {
		stir_axis *a = stir_axis_at(&k->axes, i);
		bool has_indptr = a->kind == STIR_DENSE_VARIABLE ||
			a->kind == STIR_SPARSE_VARIABLE;
		bool has_indices = a->kind == STIR_SPARSE_FIXED ||
			a->kind == STIR_SPARSE_VARIABLE;
		if ((has_indptr && !a->indptr_buf && !aux_buffer(k, &names, a, true)) ||
		    (has_indices && !a->indices_buf &&
		     !aux_buffer(k, &names, a, false)))
			rc = -1;
	}
	if (rc == 0)
		rc = coo_buffers(k, &names, &k->body);
	stir_names_release(&names);
	if (rc < 0) {
		stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	move_to_front(k, first);
	return 0;
}
