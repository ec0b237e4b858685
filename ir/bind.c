/* Binding data to a kernel: checking bindings, CSR matrices, and the
 * names and shapes of a kernel's arrays (see include/stir/interp.h);
 * seeded random inputs are in ir/bind_random.c. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <stir/formats.h>
#include "ir/coo.h"
#include "ir/layout.h"
#include "ir/visit.h"

int stir_kernel_verify_bindings(const stir_kernel *k, const stir_bindings *b)
{
	stir_layout l;
	if (stir_layout_init(&l, k, b, true) < 0)
		return -1;
	stir_layout_release(&l);
	return 0;
}

int stir_kernel_get_array_names(const stir_kernel *k, int max, const char **names)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	int n = 0;
	for (int i = 0; i < k->axes.n; i++) {
		const stir_axis *a = stir_axis_at(&k->axes, i);
		if (stir_axis_has_indptr(a)) {
			if (n < max)
				names[n] = stir_axis_indptr_name(ctx, a);
			n++;
		}
		if (stir_axis_has_indices(a)) {
			if (n < max)
				names[n] = stir_axis_indices_name(ctx, a);
			n++;
		}
	}
	/* the COO arrays of fused groups, named from their axes too */
	int nc = stir_kernel_coo_pairs(k, 0, NULL, NULL);
	const stir_axis **js = calloc((size_t)nc + 1, sizeof(*js));
	const stir_axis **xs = calloc((size_t)nc + 1, sizeof(*xs));
	if (js && xs)
		stir_kernel_coo_pairs(k, nc, js, xs);
	for (int i = 0; i < nc; i++) {
		if (n < max)
			names[n] = js && xs ? stir_coo_array_name(ctx, js[i], xs[i]) :
				NULL;
		n++;
	}
	free(js);
	free(xs);
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *b = stir_buffer_at(&k->buffers, i);
		/* structure arrays were named from the axes, unless the axes
		 * are gone (stage III) */
		if (b->kind == STIR_BUFFER_LOCAL ||
		    (b->kind != STIR_BUFFER_TENSOR && b->aux_axis))
			continue;
		if (n < max)
			names[n] = stir_buffer_get_array_name(b);
		n++;
	}
	return n;
}

/* k, name: the buffer bound to array "name", or NULL. */
static const stir_buffer *buffer_of_array(const stir_kernel *k, const char *name)
{
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *b = stir_buffer_at(&k->buffers, i);
		const char *a = stir_buffer_get_array_name(b);
		if (a && !strcmp(a, name))
			return b;
	}
	return NULL;
}

/* k, name, *is_indptr: the axis whose structure array is called "name"
 * ("J.indptr" or "J.indices"), or NULL. */
static const stir_axis *axis_of_array(const stir_kernel *k, const char *name,
	bool *is_indptr)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	for (int i = 0; i < k->axes.n; i++) {
		const stir_axis *a = stir_axis_at(&k->axes, i);
		const char *s;
		if (stir_axis_has_indptr(a) &&
		    (s = stir_axis_indptr_name(ctx, a)) && !strcmp(s, name)) {
			*is_indptr = true;
			return a;
		}
		if (stir_axis_has_indices(a) &&
		    (s = stir_axis_indices_name(ctx, a)) && !strcmp(s, name)) {
			*is_indptr = false;
			return a;
		}
	}
	return NULL;
}

int stir_kernel_get_array_shape(const stir_kernel *k, const stir_bindings *b,
	const char *name, int *ndim, int64_t *shape)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	stir_layout l;
	if (stir_layout_init(&l, k, b, false) < 0)
		return -1;
	int r = 0;
	bool is_indptr;
	const stir_buffer *buf = buffer_of_array(k, name);
	const stir_axis *a = axis_of_array(k, name, &is_indptr), *cj, *cx;
	if (buf && buf->kind == STIR_BUFFER_TENSOR && stir_buffer_is_dense(buf) &&
	    buf->n_axes > 0 && buf->n_axes <= STIR_MAX_DIMS) {
		*ndim = buf->n_axes;
		for (int i = 0; i < buf->n_axes; i++)
			shape[i] = l.axes[buf->axes[i]->index].len;
	} else if (a) {
		*ndim = 1;
		shape[0] = is_indptr ? l.axes[a->parent->index].npos + 1 :
			l.axes[a->index].npos;
	} else if (stir_kernel_coo_of_array(k, name, &cj, &cx)) {
		*ndim = 1;
		shape[0] = l.axes[cj->index].npos;
	} else if (buf) {
		*ndim = 1;
		shape[0] = l.buffer_len[buf->index];
	} else {
		stir_error(ctx, stir_loc_none(), "kernel '%s' has no array '%s'",
			k->name, name);
		r = -1;
	}
	stir_layout_release(&l);
	return r;
}

/* k, b, e, v, what: make size e equal v when e is a bare parameter: bind
 * it when unbound, else check it.  Other expressions are left to the
 * binding checks. */
static int infer_size(const stir_kernel *k, stir_bindings *b, const stir_expr *e,
	int64_t v, const char *what, const char *array)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	int64_t have;
	if (e->kind != STIR_EXPR_VAR || e->u.var->kind != STIR_VAR_PARAM)
		return 0;
	if (!stir_bindings_get_size(b, e->u.var->name, &have)) {
		if (stir_bindings_set_size(b, e->u.var->name, v) < 0) {
			stir_error_oom(ctx);
			return -1;
		}
		return 0;
	}
	if (have != v) {
		stir_error(ctx, stir_loc_none(), "array '%s' gives %s %" PRId64
			", but size '%s' is bound to %" PRId64, array, what, v,
			e->u.var->name, have);
		return -1;
	}
	return 0;
}

int stir_kernel_bind_array(const stir_kernel *k, stir_bindings *b,
	const char *name, stir_array *a)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	bool is_indptr = false;
	const stir_buffer *buf = buffer_of_array(k, name);
	const stir_axis *ax = axis_of_array(k, name, &is_indptr), *cj, *cx;
	stir_dtype want = buf ? buf->dtype : ax ? ax->idtype :
		stir_kernel_coo_of_array(k, name, &cj, &cx) ? cx->idtype :
		STIR_DTYPE_NONE;
	if (!a)
		return -1;
	if (want == STIR_DTYPE_NONE) {
		stir_error(ctx, stir_loc_none(), "kernel '%s' has no array '%s'",
			k->name, name);
		stir_array_free(a);
		return -1;
	}
	if (stir_array_get_dtype(a) != want) {
		stir_array *c = stir_array_convert_named(ctx, a, want, name);
		stir_array_free(a);
		if (!c)
			return -1;
		a = c;
	}
	int rc = 0;
	if (buf && buf->n_axes > 0 && stir_buffer_is_dense(buf) &&
	    stir_array_get_ndim(a) == buf->n_axes && buf->n_axes > 1) {
		for (int i = 0; i < buf->n_axes && rc == 0; i++)
			rc = infer_size(k, b, buf->axes[i]->len, stir_array_get_dim(a, i),
				"an axis length", name);
	} else if (ax && is_indptr && stir_array_get_len(a) > 0) {
		int64_t n = stir_array_get_len(a);
		if (ax->parent->kind == STIR_DENSE_FIXED)
			rc = infer_size(k, b, ax->parent->len, n - 1, "a row count", name);
		if (rc == 0)
			rc = infer_size(k, b, ax->nnz, stir_array_get_int(a, n - 1),
				"a last entry (NNZ)", name);
	}
	if (rc < 0) {
		stir_array_free(a);
		return -1;
	}
	if (stir_bindings_set_array(b, name, a) < 0) {
		stir_error_oom(ctx);
		return -1;
	}
	return 0;
}

/* s, user: mark (by buffer index, in the bool array "user") the buffer
 * s stores to. */
static stir_visit_step mark_store(stir_stmt *s, void *user)
{
	if (s->kind == STIR_STMT_STORE)
		((bool *)user)[s->u.store.buf->index] = true;
	return STIR_VISIT_GO;
}

/* list, written: mark (by buffer index) every buffer stored to in list. */
static void mark_written(const stir_ptr_vec *list, bool *written)
{
	stir_visitor v = { mark_store, NULL, NULL, NULL, 0, written };
	stir_visit_list(&v, (stir_ptr_vec *)list);
}

int stir_kernel_bind_outputs(const stir_kernel *k, stir_bindings *b)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	bool *written = calloc((size_t)k->buffers.n + 1, sizeof(bool));
	stir_layout l;
	if (!written) {
		stir_error_oom(ctx);
		return -1;
	}
	if (stir_layout_init(&l, k, b, false) < 0) {
		free(written);
		return -1;
	}
	mark_written(&k->body, written);
	int rc = 0;
	for (int i = 0; i < k->buffers.n && rc == 0; i++) {
		const stir_buffer *buf = stir_buffer_at(&k->buffers, i);
		const char *name = stir_buffer_get_array_name(buf);
		if (buf->kind != STIR_BUFFER_TENSOR || !written[i] ||
		    stir_bindings_get_array(b, name))
			continue;
		int64_t len = l.buffer_len[i];
		stir_array *a = stir_array_alloc(ctx, buf->dtype, 1, &len);
		if (!a || stir_bindings_set_array(b, name, a) < 0)
			rc = -1;
	}
	stir_layout_release(&l);
	free(written);
	return rc;
}

int stir_kernel_bind_coo(const stir_kernel *k, stir_bindings *b)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	int n = stir_kernel_coo_pairs(k, 0, NULL, NULL);
	if (n == 0)
		return 0;
	const stir_axis **js = calloc((size_t)n, sizeof(*js));
	const stir_axis **xs = calloc((size_t)n, sizeof(*xs));
	stir_layout l;
	int rc = -1;
	if (!js || !xs)
		stir_error_oom(ctx);
	else if (stir_layout_init(&l, k, b, false) == 0) {
		stir_kernel_coo_pairs(k, n, js, xs);
		rc = 0;
		for (int i = 0; i < n && rc == 0; i++)
			rc = stir_coo_bind(k, b, &l, js[i], xs[i], k->loc);
		stir_layout_release(&l);
	}
	free(js);
	free(xs);
	return rc;
}

/* ---- CSR matrices ---- */

/* k, b, e, v, what, tensor: make size expression e equal v: bind it when
 * e is a bare unbound parameter, otherwise check that it evaluates to
 * v. */
static int bind_size_to(const stir_kernel *k, stir_bindings *b,
	const stir_expr *e, int64_t v, const char *what, const char *tensor)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	int64_t have;
	if (e->kind == STIR_EXPR_VAR && e->u.var->kind == STIR_VAR_PARAM &&
	    !stir_bindings_get_size(b, e->u.var->name, &have)) {
		if (stir_bindings_set_size(b, e->u.var->name, v) < 0) {
			stir_error_oom(ctx);
			return -1;
		}
		return 0;
	}
	/* evaluate with whatever is bound; an unbound parameter counts as 0
	 * and the mismatch is reported */
	int64_t *params = calloc((size_t)k->params.n + 1, sizeof(*params));
	if (!params) {
		stir_error_oom(ctx);
		return -1;
	}
	for (int i = 0; i < k->params.n; i++) {
		const stir_var *p = stir_var_at(&k->params, i);
		if (!stir_bindings_get_size(b, p->name, &params[i]))
			params[i] = 0;
	}
	int rc = stir_eval_size(ctx, k, e, params, &have);
	free(params);
	if (rc < 0)
		return -1;
	if (have != v && e->kind == STIR_EXPR_VAR &&
	    e->u.var->kind == STIR_VAR_PARAM) {
		stir_error(ctx, e->loc, "the matrix bound to '%s' has %s %" PRId64
			", but size '%s' is bound to %" PRId64, tensor, what, v,
			e->u.var->name, have);
		return -1;
	}
	if (have != v) {
		stir_error(ctx, e->loc, "the matrix bound to '%s' has %s %" PRId64
			", but the kernel's size is %" PRId64, tensor, what, v, have);
		return -1;
	}
	return 0;
}

static int64_t group_rows(const stir_buffer *buf);
static int64_t tile_rows(const stir_buffer *buf);
static int64_t block_size(const stir_buffer *buf);

/* k, buf: for a tensor over [V] (V dense_fixed), the kernel's one tensor
 * over row groups [I, J, G] or tiles [W, G, C, R] (tile_rows) declared
 * distinct in [0, V's length): the places in V of the groups' or tiles'
 * slots (examples/sddmm_vb4_csr.stir's and sddmm_tiles_csr.stir's Dst);
 * NULL otherwise. */
static const stir_buffer *places_of(const stir_kernel *k,
	const stir_buffer *buf)
{
	if (buf->n_axes != 1 || buf->axes[0]->kind != STIR_DENSE_FIXED)
		return NULL;
	const stir_buffer *found = NULL;
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *p = stir_buffer_at(&k->buffers, i);
		if (p->kind != STIR_BUFFER_TENSOR || !p->distinct ||
		    !(p->n_axes == 3 ? group_rows(p) : tile_rows(p)) ||
		    !stir_expr_same(p->domain_hi, buf->axes[0]->len))
			continue;
		if (found)
			return NULL;
		found = p;
	}
	return found;
}

/* k, tensor: the buffer of k named "tensor" when it is a CSR matrix
 * ([I, J], I dense_fixed, J a sparse_variable child of I), its row
 * groups, its BSR blocks (block_size) or the values of a tensor over
 * groups or tiles; otherwise NULL with an error. */
static const stir_buffer *csr_tensor(const stir_kernel *k, const char *tensor)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	const stir_buffer *buf = stir_kernel_find_buffer(k, tensor);
	if (!buf || buf->kind != STIR_BUFFER_TENSOR) {
		stir_error(ctx, k->loc, "kernel '%s' has no tensor '%s'", k->name,
			tensor);
		return NULL;
	}
	const stir_buffer *places = places_of(k, buf);
	if (places)
		buf = places;
	if ((places && tile_rows(places)) || block_size(buf))
		return buf;
	if (buf->n_axes < 2 || buf->n_axes > 3 ||
	    buf->axes[0]->kind != STIR_DENSE_FIXED ||
	    buf->axes[1]->kind != STIR_SPARSE_VARIABLE ||
	    buf->axes[1]->parent != buf->axes[0] ||
	    (buf->n_axes == 3 && group_rows(buf) < 1)) {
		stir_error(ctx, buf->loc, "tensor '%s' is not a CSR matrix: a matrix "
			"binds only to [I, J] with I dense_fixed and J a "
			"sparse_variable child of I, to its row groups [I, J, G] "
			"with G dense_fixed of a literal length, to its BSR blocks "
			"[I, J, BI, BJ] with BI and BJ dense_fixed of one literal "
			"length (examples/bsrmm.stir), or to [V] with V "
			"dense_fixed, its values in the matrix's order at the places "
			"a distinct tensor over row groups [I, J, G] or tiles [W, G, "
			"C, R] in [0, len(V)) holds (examples/sddmm_vb4_csr.stir, "
			"sddmm_tiles_csr.stir)", tensor);
		return NULL;
	}
	return buf;
}

/* buf: the rows a group of a tensor over [I, J, G] (row groups: G
 * dense_fixed of a literal length from 1 to 1024, not a child); 0
 * otherwise. */
static int64_t group_rows(const stir_buffer *buf)
{
	const stir_axis *g = buf->n_axes == 3 ? buf->axes[2] : NULL;
	if (!g || g->kind != STIR_DENSE_FIXED || g->parent ||
	    g->len->kind != STIR_EXPR_INT || g->len->u.i < 1 ||
	    g->len->u.i > 1024)
		return 0;
	return g->len->u.i;
}

/* buf: the rows a tile of a tensor over SR-BCRS tiles [W, G, C, R] (W
 * dense_fixed, G a dense_variable child of W: a window's groups, C a
 * sparse_fixed child of G of a literal count: a group's tiles, R
 * dense_fixed of a literal length, not a child: a tile's rows; each
 * literal 1 to 1024; examples/sddmm_tiles_csr.stir's Dst); 0 otherwise. */
static int64_t tile_rows(const stir_buffer *buf)
{
	const stir_axis *const *a = (const stir_axis *const *)buf->axes;
	if (buf->n_axes != 4 || a[0]->kind != STIR_DENSE_FIXED ||
	    a[1]->kind != STIR_DENSE_VARIABLE || a[1]->parent != a[0] ||
	    a[2]->kind != STIR_SPARSE_FIXED || a[2]->parent != a[1] ||
	    a[2]->nnz->kind != STIR_EXPR_INT || a[2]->nnz->u.i < 1 ||
	    a[2]->nnz->u.i > 1024 || a[3]->kind != STIR_DENSE_FIXED ||
	    a[3]->parent || a[3]->len->kind != STIR_EXPR_INT ||
	    a[3]->len->u.i < 1 || a[3]->len->u.i > 1024)
		return 0;
	return a[3]->len->u.i;
}

/* buf: the rows (and columns) of a block of a tensor over BSR blocks
 * [I, J, BI, BJ] (I dense_fixed, J a sparse_variable child of I, BI and
 * BJ dense_fixed of one literal length from 1 to 1024, not children;
 * examples/bsrmm.stir's A); 0 otherwise. */
static int64_t block_size(const stir_buffer *buf)
{
	const stir_axis *const *a = (const stir_axis *const *)buf->axes;
	if (buf->n_axes != 4 || a[0]->kind != STIR_DENSE_FIXED ||
	    a[1]->kind != STIR_SPARSE_VARIABLE || a[1]->parent != a[0])
		return 0;
	for (int i = 2; i < 4; i++)
		if (a[i]->kind != STIR_DENSE_FIXED || a[i]->parent ||
		    a[i]->len->kind != STIR_EXPR_INT || a[i]->len->u.i < 1 ||
		    a[i]->len->u.i > 1024 || a[i]->len->u.i != a[2]->len->u.i)
			return 0;
	return a[2]->len->u.i;
}

/* a, b: two bounds, 0 meaning none; the tighter. */
static int64_t min_bound(int64_t a, int64_t b)
{
	return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

/* t: the most a size or index of type t holds; 0 (no bound) for 64 bits. */
static int64_t type_bound(stir_dtype t)
{
	return t == STIR_I32 ? INT32_MAX : 0;
}

stir_csr *stir_kernel_read_csr_from_file(const stir_kernel *k, const char *tensor,
	const char *path)
{
	const stir_buffer *buf = csr_tensor(k, tensor);
	if (!buf)
		return NULL;
	/* for tiles, the columns' axis is C (the tiles' columns) */
	const stir_axis *ai = buf->axes[0];
	const stir_axis *aj = buf->axes[tile_rows(buf) ? 2 : 1];
	/* the row count is a size (the type of I's length); the column
	 * count and the entries are sizes and, in indices and indptr,
	 * indices of J's idtype */
	stir_mtx_limits lim = {
		.max_rows = type_bound(ai->len->dtype),
		.max_cols = min_bound(type_bound(aj->len->dtype),
			type_bound(aj->idtype)),
		.max_entries = min_bound(type_bound(aj->nnz->dtype),
			type_bound(aj->idtype)),
	};
	char why[300];
	if (lim.max_rows == INT32_MAX && lim.max_cols == INT32_MAX &&
	    lim.max_entries == INT32_MAX)
		snprintf(why, sizeof(why), "the i32 sizes of tensor '%.200s'",
			tensor);
	else
		snprintf(why, sizeof(why), "tensor '%.200s'", tensor);
	lim.why = why;
	return stir_mtx_read_from_file_limited(stir_kernel_ctx(k), path, &lim);
}

/* ctx, b, buf, tensor, indptr_name, indptr, indices_name, indices,
 * values: convert values (f64, as the matrix holds them) to the type of
 * tensor buf (named "tensor"), checked: 2.5 does not go into an integer
 * tensor as 2; then bind the three arrays in b under their names.  Takes
 * all three arrays (any may be NULL after a failed allocation: then all
 * are freed).  0 or -1 with diagnostics. */
static int set_csr_arrays(stir_ctx *ctx, stir_bindings *b,
	const stir_buffer *buf, const char *tensor, const char *indptr_name,
	stir_array *indptr, const char *indices_name, stir_array *indices,
	stir_array *values)
{
	if (values && buf->dtype != STIR_F64) {
		stir_array *c = stir_array_convert_named(ctx, values, buf->dtype,
			tensor);
		stir_array_free(values);
		values = c;
	}
	if (!indptr || !indices || !values) {
		stir_array_free(indptr);
		stir_array_free(indices);
		stir_array_free(values);
		return -1;
	}
	int rc = stir_bindings_set_array(b, indptr_name, indptr);
	rc |= stir_bindings_set_array(b, indices_name, indices);
	rc |= stir_bindings_set_array(b, tensor, values);
	if (rc) {
		stir_error_oom(ctx);
		return -1;
	}
	return 0;
}

/* ctx, t, n: a 1-D array of type t holding the n values v; NULL (the
 * error reported) when out of memory. */
static stir_array *int_array(stir_ctx *ctx, stir_dtype t, int64_t n,
	const int64_t *v)
{
	stir_array *a = stir_array_alloc(ctx, t, 1, &n);
	for (int64_t i = 0; a && i < n; i++)
		stir_array_set_int(a, i, v[i]);
	return a;
}

/* ctx, aj, tensor, big, ip, ix: the names of J's (aj's) indptr and
 * indices into *ip and *ix, once counts past 32 bits ("big") are
 * refused for an aj of i32 indices.  0 or -1 with an error. */
static int index_names(stir_ctx *ctx, const stir_axis *aj, const char *tensor,
	bool big, const char **ip, const char **ix)
{
	if (big && aj->idtype == STIR_I32) {
		stir_error(ctx, aj->loc, "the matrix bound to '%s' needs 64-bit "
			"indices: declare '%s' with idtype = i64", tensor, aj->name);
		return -1;
	}
	*ip = stir_axis_indptr_name(ctx, aj);
	*ix = stir_axis_indices_name(ctx, aj);
	return *ip && *ix ? 0 : -1;
}

/* k, b, buf, vals, csr: bind tensor buf over [I, J, G] (group_rows) to
 * the row groups of csr (stir_csr_to_row_groups): I's length the groups,
 * J's the columns and its non-zeros the groups' columns, J.indptr and
 * J.indices the groups'; without vals, buf's values at the slots (0 where
 * a row of the group lacks the column); with vals (a tensor over [V],
 * buf its places, places_of), buf's values the slots' places (dst), V's
 * length the slots, vals's values the matrix's in its order (0 at the
 * places past them).  0 or -1 with diagnostics. */
static int bind_row_groups(const stir_kernel *k, stir_bindings *b,
	const stir_buffer *buf, const stir_buffer *vals, const stir_csr *csr)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	const stir_axis *ai = buf->axes[0], *aj = buf->axes[1];
	const char *tensor = buf->name;
	stir_row_groups *g = stir_csr_to_row_groups(ctx, csr, group_rows(buf));
	if (!g)
		return -1;
	int rc = bind_size_to(k, b, ai->len, g->ngroups, "groups of rows",
		tensor) < 0 || bind_size_to(k, b, aj->len, csr->ncols, "columns",
		tensor) < 0 || bind_size_to(k, b, aj->nnz, g->ncols_union,
		"groups' columns", tensor) < 0 ? -1 : 0;
	int64_t ns = g->ncols_union * g->rows;
	if (rc == 0 && vals && bind_size_to(k, b, vals->axes[0]->len, ns,
	    "slots of the groups", vals->name) < 0)
		rc = -1;
	const char *indptr_name = NULL, *indices_name = NULL;
	if (rc < 0 || index_names(ctx, aj, tensor, g->ncols_union > INT32_MAX ||
	    csr->ncols > INT32_MAX, &indptr_name, &indices_name) < 0) {
		stir_row_groups_free(g);
		return -1;
	}
	stir_array *indptr = int_array(ctx, aj->idtype, g->ngroups + 1,
		g->indptr);
	stir_array *indices = int_array(ctx, aj->idtype, g->ncols_union,
		g->indices);
	stir_array *values = stir_array_alloc(ctx, STIR_F64, 1, &ns);
	stir_array *places = vals ? int_array(ctx, buf->dtype, ns, g->dst) :
		NULL;
	if (values) {
		for (int64_t i = 0; i < ns; i++)
			stir_array_set_double(values, i, 0.0);
		for (int64_t p = 0; p < csr->nnz; p++)
			stir_array_set_double(values, vals ? p : g->pos[p],
				csr->values[p]);
	}
	stir_row_groups_free(g);
	if (vals && (!places || stir_bindings_set_array(b, tensor, places))) {
		stir_array_free(places);
		stir_array_free(indptr);
		stir_array_free(indices);
		stir_array_free(values);
		stir_error_oom(ctx);
		return -1;
	}
	return set_csr_arrays(ctx, b, vals ? vals : buf, vals ? vals->name :
		tensor, indptr_name, indptr, indices_name, indices, values);
}

/* k, b, places, vals, csr: bind the tensor over tiles "places" (a
 * distinct tensor over [W, G, C, R], tile_rows) and the tensor "vals"
 * over [V] whose places it holds to the tile groups of csr
 * (stir_csr_to_tile_groups with R's rows a tile and C's tiles a group):
 * W's length the windows, G's the most groups a window and its non-zeros
 * the groups, C's the columns, G.indptr and C.indices the tiles', places
 * the slots' places (dst), V's length the slots and vals's values the
 * matrix's in its order (0 at the places past them).  0 or -1 with
 * diagnostics. */
static int bind_tiles(const stir_kernel *k, stir_bindings *b,
	const stir_buffer *places, const stir_buffer *vals, const stir_csr *csr)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	const stir_axis *aw = places->axes[0], *ag = places->axes[1];
	const stir_axis *ac = places->axes[2];
	const char *tensor = vals->name;
	stir_tile_groups *g = stir_csr_to_tile_groups(ctx, csr,
		tile_rows(places), ac->nnz->u.i);
	if (!g)
		return -1;
	int rc = bind_size_to(k, b, aw->len, g->nwindows, "windows of rows",
		tensor) < 0 || bind_size_to(k, b, ag->len, g->maxg, "most groups "
		"of tiles a window", tensor) < 0 || bind_size_to(k, b, ag->nnz,
		g->ngroups, "groups of tiles", tensor) < 0 || bind_size_to(k, b,
		ac->len, csr->ncols, "columns", tensor) < 0 || bind_size_to(k, b,
		vals->axes[0]->len, g->nslots, "slots of the tiles", tensor) < 0 ?
		-1 : 0;
	int64_t too_big = rc == 0 && (ac->idtype == STIR_I32 ||
		ag->idtype == STIR_I32 || places->dtype == STIR_I32) &&
		g->nslots > INT32_MAX ? g->nslots : 0;
	if (too_big) {
		stir_error(ctx, places->loc, "the matrix bound to '%s' has %"
			PRId64 " slots of tiles, more than i32 indices hold: declare "
			"'%s' i64 and its axes with idtype = i64", tensor, too_big,
			places->name);
		rc = -1;
	}
	const char *indptr_name = rc == 0 ? stir_axis_indptr_name(ctx, ag) :
		NULL;
	const char *indices_name = rc == 0 ? stir_axis_indices_name(ctx, ac) :
		NULL;
	if (!indptr_name || !indices_name) {
		stir_tile_groups_free(g);
		return -1;
	}
	int64_t ns = g->nslots;
	stir_array *indptr = int_array(ctx, ag->idtype, g->nwindows + 1,
		g->indptr);
	stir_array *indices = int_array(ctx, ac->idtype, g->ngroups * g->cols,
		g->indices);
	stir_array *dst = int_array(ctx, places->dtype, ns, g->dst);
	stir_array *values = stir_array_alloc(ctx, STIR_F64, 1, &ns);
	for (int64_t i = 0; values && i < ns; i++)
		stir_array_set_double(values, i, i < csr->nnz ? csr->values[i] :
			0.0);
	stir_tile_groups_free(g);
	if (!dst || stir_bindings_set_array(b, places->name, dst)) {
		stir_array_free(dst);
		stir_array_free(indptr);
		stir_array_free(indices);
		stir_array_free(values);
		stir_error_oom(ctx);
		return -1;
	}
	return set_csr_arrays(ctx, b, vals, tensor, indptr_name, indptr,
		indices_name, indices, values);
}

/* k, b, buf, csr: bind tensor buf over BSR blocks [I, J, BI, BJ]
 * (block_size) to csr's blocks (stir_csr_to_bsr: a block stored when it
 * holds an entry, zeros elsewhere in it): I's length the block rows, J's
 * the block columns and its non-zeros the blocks, J.indptr, J.indices
 * and the blocks' values, row by row within a block.  0 or -1 with
 * diagnostics. */
static int bind_blocks(const stir_kernel *k, stir_bindings *b,
	const stir_buffer *buf, const stir_csr *csr)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	const stir_axis *ai = buf->axes[0], *aj = buf->axes[1];
	const char *tensor = buf->name;
	int64_t blk = block_size(buf), mb = 0, nb = 0, nnzb = 0;
	if (csr->nrows < 1 || csr->ncols < 1) {
		stir_error(ctx, buf->loc, "the matrix bound to '%s' has no %s: "
			"it makes no blocks", tensor, csr->nrows < 1 ? "rows" :
			"columns");
		return -1;
	}
	stir_bindings *t = stir_bindings_alloc();
	stir_host_format *f = t ? stir_csr_to_bsr(ctx, csr, blk, STIR_I64,
		STIR_F64, "", t) : NULL;
	stir_host_format_free(f);
	int rc = f && stir_bindings_get_size(t, "mb", &mb) &&
		stir_bindings_get_size(t, "nb", &nb) &&
		stir_bindings_get_size(t, "nnzb", &nnzb) ? 0 : -1;
	if (rc == 0 && (bind_size_to(k, b, ai->len, mb, "block rows",
	    tensor) < 0 || bind_size_to(k, b, aj->len, nb, "block columns",
	    tensor) < 0 || bind_size_to(k, b, aj->nnz, nnzb, "blocks",
	    tensor) < 0))
		rc = -1;
	const char *indptr_name = NULL, *indices_name = NULL;
	if (rc < 0 || index_names(ctx, aj, tensor, nnzb > INT32_MAX ||
	    nb > INT32_MAX, &indptr_name, &indices_name) < 0) {
		stir_bindings_free(t);
		return -1;
	}
	/* the format's arrays under the kernel's names, the values flat */
	const stir_array *tp = stir_bindings_get_array(t, "JB.indptr");
	const stir_array *tj = stir_bindings_get_array(t, "JB.indices");
	const stir_array *tv = stir_bindings_get_array(t, "A");
	int64_t nv = nnzb * blk * blk;
	stir_array *indptr = stir_array_convert_named(ctx, tp, aj->idtype,
		indptr_name);
	stir_array *indices = stir_array_convert_named(ctx, tj, aj->idtype,
		indices_name);
	stir_array *values = stir_array_alloc(ctx, STIR_F64, 1, &nv);
	if (values)
		memcpy(stir_array_get_data(values), stir_array_get_const_data(tv),
			(size_t)nv * sizeof(double));
	stir_bindings_free(t);
	return set_csr_arrays(ctx, b, buf, tensor, indptr_name, indptr,
		indices_name, indices, values);
}

int stir_kernel_bind_csr(const stir_kernel *k, stir_bindings *b,
	const char *tensor, const stir_csr *csr)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	const stir_buffer *buf = csr_tensor(k, tensor);
	if (!buf)
		return -1;
	const stir_axis *ai = buf->axes[0], *aj = buf->axes[1];
	/* a caller's structure without its arrays: refused, not read */
	const char *missing = !csr->indptr ? "row pointers" : csr->nnz > 0 &&
		!csr->indices ? "column indices" : csr->nnz > 0 && !csr->values ?
		"values" : NULL;
	if (missing) {
		stir_error(ctx, buf->loc, "the matrix bound to '%s' has no %s "
			"(NULL)", tensor, missing);
		return -1;
	}
	if (block_size(buf))
		return bind_blocks(k, b, buf, csr);
	if (buf->n_axes == 4)
		return bind_tiles(k, b, buf, stir_kernel_find_buffer(k, tensor),
			csr);
	if (buf->n_axes == 3) {
		const stir_buffer *vals = stir_kernel_find_buffer(k, tensor);
		return bind_row_groups(k, b, buf, vals != buf ? vals : NULL, csr);
	}
	if (bind_size_to(k, b, ai->len, csr->nrows, "rows", tensor) < 0 ||
	    bind_size_to(k, b, aj->len, csr->ncols, "columns", tensor) < 0 ||
	    bind_size_to(k, b, aj->nnz, csr->nnz, "non-zeros", tensor) < 0)
		return -1;
	const char *indptr_name, *indices_name;
	if (index_names(ctx, aj, tensor, csr->nnz > INT32_MAX ||
	    csr->ncols > INT32_MAX, &indptr_name, &indices_name) < 0)
		return -1;
	int64_t n1 = csr->nrows + 1, nnz = csr->nnz;
	stir_array *indptr = stir_array_alloc(ctx, aj->idtype, 1, &n1);
	stir_array *indices = stir_array_alloc(ctx, aj->idtype, 1, &nnz);
	/* the values as the file holds them, then converted with a check:
	 * 2.5 does not go into an integer tensor as 2 */
	stir_array *values = stir_array_alloc(ctx, STIR_F64, 1, &nnz);
	if (!indptr || !indices || !values) {
		stir_array_free(indptr);
		stir_array_free(indices);
		stir_array_free(values);
		return -1;
	}
	for (int64_t i = 0; i <= csr->nrows; i++)
		stir_array_set_int(indptr, i, csr->indptr[i]);
	for (int64_t i = 0; i < nnz; i++) {
		stir_array_set_int(indices, i, csr->indices[i]);
		stir_array_set_double(values, i, csr->values[i]);
	}
	return set_csr_arrays(ctx, b, buf, tensor, indptr_name, indptr,
		indices_name, indices, values);
}

/* ---- relational graphs ---- */

/* k, b, tensor, h: see interp.h. */
int stir_kernel_bind_hetero(const stir_kernel *k, stir_bindings *b,
	const char *tensor, const stir_hetero *h)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	const stir_buffer *buf = stir_kernel_find_buffer(k, tensor);
	if (!buf || buf->kind != STIR_BUFFER_TENSOR) {
		stir_error(ctx, k->loc, "kernel '%s' has no tensor '%s'", k->name,
			tensor);
		return -1;
	}
	if (buf->n_axes != 3 || buf->axes[0]->kind != STIR_DENSE_FIXED ||
	    buf->axes[1]->kind != STIR_SPARSE_VARIABLE ||
	    buf->axes[1]->parent != buf->axes[0] ||
	    buf->axes[2]->kind != STIR_SPARSE_VARIABLE ||
	    buf->axes[2]->parent != buf->axes[1]) {
		stir_error(ctx, buf->loc, "tensor '%s' is not a relational "
			"matrix: a relational graph binds only to [R, I, J] with "
			"R dense_fixed, I a sparse_variable child of R and J a "
			"sparse_variable child of I", tensor);
		return -1;
	}
	const stir_axis *ar = buf->axes[0], *ai = buf->axes[1],
		*aj = buf->axes[2];
	if (bind_size_to(k, b, ar->len, h->nrels, "relations", tensor) < 0 ||
	    bind_size_to(k, b, ai->len, h->nnodes, "rows", tensor) < 0 ||
	    bind_size_to(k, b, ai->nnz, h->nrows, "non-empty rows", tensor) < 0 ||
	    bind_size_to(k, b, aj->len, h->nnodes, "columns", tensor) < 0 ||
	    bind_size_to(k, b, aj->nnz, h->nnz, "non-zeros", tensor) < 0)
		return -1;
	const stir_axis *wide[2] = { ai, aj };
	int64_t need[2] = { h->nrows > h->nnodes ? h->nrows : h->nnodes,
		h->nnz > h->nnodes ? h->nnz : h->nnodes };
	for (int i = 0; i < 2; i++)
		if (wide[i]->idtype == STIR_I32 && need[i] > INT32_MAX) {
			stir_error(ctx, wide[i]->loc, "the graph bound to '%s' needs "
				"64-bit indices: declare '%s' with idtype = i64",
				tensor, wide[i]->name);
			return -1;
		}
	const char *ip_i = stir_axis_indptr_name(ctx, ai);
	const char *ix_i = stir_axis_indices_name(ctx, ai);
	const char *ip_j = stir_axis_indptr_name(ctx, aj);
	const char *ix_j = stir_axis_indices_name(ctx, aj);
	if (!ip_i || !ix_i || !ip_j || !ix_j)
		return -1;
	int64_t nr1 = h->nrels + 1, nrows = h->nrows, nrows1 = h->nrows + 1,
		nnz = h->nnz;
	stir_array *a_ip_i = stir_array_alloc(ctx, ai->idtype, 1, &nr1);
	stir_array *a_ix_i = stir_array_alloc(ctx, ai->idtype, 1, &nrows);
	stir_array *a_ip_j = stir_array_alloc(ctx, aj->idtype, 1, &nrows1);
	stir_array *a_ix_j = stir_array_alloc(ctx, aj->idtype, 1, &nnz);
	stir_array *values = stir_array_alloc(ctx, STIR_F64, 1, &nnz);
	int rc = -1;
	if (!a_ip_i || !a_ix_i || !a_ip_j || !a_ix_j || !values)
		goto out;
	for (int64_t i = 0; i <= h->nrels; i++)
		stir_array_set_int(a_ip_i, i, h->rel_ptr[i]);
	for (int64_t i = 0; i < h->nrows; i++)
		stir_array_set_int(a_ix_i, i, h->rows[i]);
	for (int64_t i = 0; i <= h->nrows; i++)
		stir_array_set_int(a_ip_j, i, h->row_ptr[i]);
	for (int64_t i = 0; i < nnz; i++) {
		stir_array_set_int(a_ix_j, i, h->cols[i]);
		stir_array_set_double(values, i, h->values[i]);
	}
	if (buf->dtype != STIR_F64) {
		stir_array *c = stir_array_convert_named(ctx, values, buf->dtype,
			tensor);
		stir_array_free(values);
		if (!(values = c))
			goto out;
	}
	rc = stir_bindings_set_array(b, ip_i, a_ip_i);
	a_ip_i = NULL;
	rc |= stir_bindings_set_array(b, ix_i, a_ix_i);
	a_ix_i = NULL;
	rc |= stir_bindings_set_array(b, ip_j, a_ip_j);
	a_ip_j = NULL;
	rc |= stir_bindings_set_array(b, ix_j, a_ix_j);
	a_ix_j = NULL;
	rc |= stir_bindings_set_array(b, tensor, values);
	values = NULL;
	if (rc) {
		stir_error_oom(ctx);
		rc = -1;
	}
out:
	stir_array_free(a_ip_i);
	stir_array_free(a_ix_i);
	stir_array_free(a_ip_j);
	stir_array_free(a_ix_j);
	stir_array_free(values);
	return rc;
}
