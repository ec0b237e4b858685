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
	stir_names_release(&names);
	if (rc < 0) {
		stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	move_to_front(k, first);
	return 0;
}
