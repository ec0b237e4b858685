/* Building on the host the formats a schedule file's decompose steps ask
 * for (stir_schedule_bind_formats, include/stir/schedule.h).
 *
 * A decompose step replaces a tensor by new ones whose arrays the
 * kernel's caller must supply.  Here they are built with the host builders
 * of include/stir/formats.h from the arrays the unscheduled stage I kernel
 * takes: the tensor's CSR structure (ELL3D: its three-level CSF), its
 * values and sizes.  The builders name the value array "A_S"; the
 * decomposed kernel names it after the tensor ("X_S" for tensor X).  A
 * hybrid rule stands for every part, so every part is bound, the empty
 * ones without elements; full rows are padded at a column they hold
 * (STIR_HYBRID_PAD_ANY_COLUMN), which a computation over the parts does
 * not see, so that any matrix can run. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <stir/formats.h>
#include "formats/rule.h"
#include "ir/coo.h"
#include "ir/layout.h"
#include "schedule/file.h"

/* What the builders read: the arrays converted, owned. */
typedef struct host_input {
	stir_csr csr;             /* CSR kinds: arrays owned */
	stir_csf csf;             /* ELL3D: arrays below */
	int64_t *arrays[4];       /* owned: the CSF's index arrays */
	double *values;           /* owned: the CSF's values */
} host_input;

/* in: free what in owns. */
static void input_release(host_input *in)
{
	free(in->csr.indptr);
	free(in->csr.indices);
	free(in->csr.values);
	for (int i = 0; i < 4; i++)
		free(in->arrays[i]);
	free(in->values);
}

/* ctx, where, b, name, len, ints, vals, n: array "name" of b, which must
 * have "len" elements (-1: any), as int64 (ints) or double (vals); its
 * length in *n.  0 or -1 with an error at "where". */
static int fetch(stir_ctx *ctx, stir_loc where, const stir_bindings *b,
	const char *name, int64_t len, int64_t **ints, double **vals, int64_t *n)
{
	const stir_array *a = stir_bindings_get_array(b, name);
	if (!a) {
		stir_error(ctx, where, "cannot build the format on the host: array "
			"'%s' is not bound", name);
		return -1;
	}
	*n = stir_array_get_len(a);
	if (len >= 0 && *n != len) {
		stir_error(ctx, where, "cannot build the format on the host: array "
			"'%s' has %lld elements, not %lld", name, (long long)*n,
			(long long)len);
		return -1;
	}
	size_t bytes = (size_t)(*n ? *n : 1) * 8;
	void *p = malloc(bytes);
	if (!p) {
		stir_error_oom(ctx);
		return -1;
	}
	for (int64_t i = 0; i < *n; i++) {
		if (ints)
			((int64_t *)p)[i] = stir_array_get_int(a, i);
		else
			((double *)p)[i] = stir_array_get_double(a, i);
	}
	if (ints)
		*ints = p;
	else
		*vals = p;
	return 0;
}

/* ctx, where, b, ax, n_ptr, indptr, indices, nnz: the structure arrays
 * of axis ax (indptr with n_ptr + 1 entries), as int64; the length of
 * indices in *nnz.  0 or -1. */
static int fetch_axis(stir_ctx *ctx, stir_loc where, const stir_bindings *b,
	const stir_axis *ax, int64_t n_ptr, int64_t **indptr, int64_t **indices,
	int64_t *nnz)
{
	int64_t n;
	const char *ptr = stir_axis_indptr_name(ctx, ax);
	const char *idx = stir_axis_indices_name(ctx, ax);
	if (!ptr || !idx ||
	    fetch(ctx, where, b, ptr, n_ptr + 1, indptr, NULL, &n) < 0)
		return -1;
	return fetch(ctx, where, b, idx, -1, indices, NULL, nnz);
}

/* k, t, kind, l, b, where, in: the builders' input from tensor t of k:
 * CSR ([I, J], I dense_fixed, J sparse_variable under I) or, for ELL3D,
 * CSF ([R, I, J], R dense_fixed, I and J sparse_variable, each under the
 * one before).  0 or -1 with an error at "where". */
static int read_input(const stir_kernel *k, const stir_buffer *t,
	sf_rule_kind kind, const stir_layout *l, const stir_bindings *b,
	stir_loc where, host_input *in)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	int n = kind == SF_RULE_ELL3D ? 3 : 2;
	bool ok = t->n_axes == n && t->axes[0]->kind == STIR_DENSE_FIXED;
	for (int i = 1; ok && i < n; i++)
		ok = t->axes[i]->kind == STIR_SPARSE_VARIABLE &&
			t->axes[i]->parent == t->axes[i - 1];
	if (!ok) {
		stir_error(ctx, where, "cannot build %s of tensor '%s' on the host: "
			"its axes must be %s", sf_rule_kind_key(kind), t->name,
			n == 3 ? "[dense_fixed, sparse_variable, sparse_variable], "
			"each under the one before" : "[dense_fixed, sparse_variable "
			"under it] (CSR)");
		return -1;
	}
	int64_t nnz, nv;
	const stir_axis_layout *ax = l->axes;
	const char *vname = stir_buffer_get_array_name(t);
	if (n == 2) {
		const stir_axis *I = t->axes[0], *J = t->axes[1];
		in->csr.nrows = ax[I->index].len;
		in->csr.ncols = ax[J->index].len;
		if (fetch_axis(ctx, where, b, J, in->csr.nrows, &in->csr.indptr,
		    &in->csr.indices, &nnz) < 0 ||
		    fetch(ctx, where, b, vname, nnz, NULL, &in->csr.values, &nv) < 0)
			return -1;
		in->csr.nnz = nnz;
		return 0;
	}
	const stir_axis *R = t->axes[0], *I = t->axes[1], *J = t->axes[2];
	int64_t nnz_i;
	stir_csf *c = &in->csf;
	c->nrels = ax[R->index].len;
	c->nrows = ax[I->index].len;
	c->ncols = ax[J->index].len;
	if (fetch_axis(ctx, where, b, I, c->nrels, &in->arrays[0],
	    &in->arrays[1], &nnz_i) < 0 ||
	    fetch_axis(ctx, where, b, J, nnz_i, &in->arrays[2], &in->arrays[3],
	    &nnz) < 0 ||
	    fetch(ctx, where, b, vname, nnz, NULL, &in->values, &nv) < 0)
		return -1;
	c->nnz_i = nnz_i;
	c->nnz = nnz;
	c->rel_indptr = in->arrays[0];
	c->row_indices = in->arrays[1];
	c->row_indptr = in->arrays[2];
	c->col_indices = in->arrays[3];
	c->values = in->values;
	return 0;
}

/* ctx, src, in, itype, vtype, out: run the builder of rule src into out
 * (the description it returns is not needed).  0, or -1 with an error. */
static int build(stir_ctx *ctx, const sf_rule *src, const host_input *in,
	stir_dtype itype, stir_dtype vtype, stir_bindings *out)
{
	const stir_csr *c = &in->csr;
	const char *sfx = src->suffix;
	stir_host_format *f = NULL;
	switch (src->kind) {
	case SF_RULE_ELL:
		f = stir_csr_to_ell(ctx, c, src->size, itype, vtype, sfx, out);
		break;
	case SF_RULE_BSR:
		f = stir_csr_to_bsr(ctx, c, src->size, itype, vtype, sfx, out);
		break;
	case SF_RULE_PADDING:
		f = stir_csr_to_padding(ctx, c, src->size, itype, vtype, sfx, out);
		break;
	case SF_RULE_HYBRID:
		f = stir_csr_to_hybrid_flags(ctx, c, src->column_parts,
			src->n_buckets, src->buckets, itype, vtype, sfx,
			STIR_HYBRID_ALL_PARTS | STIR_HYBRID_PAD_ANY_COLUMN |
			(src->cover_rows ? STIR_HYBRID_COVER_ROWS : 0) |
			(src->locality_order ? STIR_HYBRID_LOCALITY_ORDER : 0), out);
		break;
	case SF_RULE_ELL3D:
		f = stir_csf_to_ell3d(ctx, &in->csf, src->size, itype, vtype, sfx,
			out);
		break;
	case SF_RULE_DBSR:
		f = stir_csr_to_dbsr(ctx, c, src->size, itype, vtype, sfx, out);
		break;
	case SF_RULE_SR_BCRS:
		f = src->chunk ? stir_csr_to_sr_bcrs_chunks(ctx, c, src->size,
			src->group, src->chunk, src->row_order, itype, vtype,
			sfx, out) :
			stir_csr_to_sr_bcrs(ctx, c, src->size, src->group, itype,
			vtype, sfx, out);
		break;
	case SF_RULE_CUSTOM:
	case SF_N_RULE_KINDS:
		break;
	}
	stir_host_format_free(f);
	return f ? 0 : -1;
}

/* ctx, from, t, b: move the arrays and sizes of "from" into b, the value
 * arrays ("A_S", no '.') renamed after tensor t ("X_S"); the others (index
 * arrays, SR-BCRS's row order P_S) keep their names.  0 or -1. */
static int move_into(stir_ctx *ctx, const stir_bindings *from,
	const stir_buffer *t, stir_bindings *b)
{
	for (int i = 0; i < stir_bindings_n_sizes(from); i++) {
		const char *name = stir_bindings_get_size_name(from, i);
		int64_t v;
		stir_bindings_get_size(from, name, &v);
		if (stir_bindings_set_size(b, name, v) < 0) {
			stir_error_oom(ctx);
			return -1;
		}
	}
	for (int i = 0; i < stir_bindings_n_arrays(from); i++) {
		const char *name = stir_bindings_get_array_name(from, i);
		size_t len = strlen(t->name) + strlen(name) + 1;
		char *renamed = malloc(len);
		if (!renamed) {
			stir_error_oom(ctx);
			return -1;
		}
		if (strchr(name, '.') || name[0] != 'A')
			memcpy(renamed, name, strlen(name) + 1);
		else
			snprintf(renamed, len, "%s%s", t->name, name + 1);
		stir_array *a = stir_array_copy(ctx, stir_bindings_get_array(from,
			name));
		int rc = a ? stir_bindings_set_array(b, renamed, a) : -1;
		free(renamed);
		if (rc < 0) {
			if (a)
				stir_error_oom(ctx);
			return -1;
		}
	}
	return 0;
}

/* ctx, n0: did an error since diagnostic n0 say that a format needs
 * 64-bit indices (formats/format.c, fmt_build_fits)? */
static bool needs_wide_indices(stir_ctx *ctx, int n0)
{
	for (int i = n0; i < stir_ctx_n_diagnostics(ctx); i++)
		if (strstr(stir_diag_get_message(stir_ctx_get_diagnostic(ctx, i)),
		    "does not fit in i32 indices"))
			return true;
	return false;
}

/* s, k, st, l, b: the formats of decompose step st. */
static int bind_step(const stir_schedule *s, const stir_kernel *k,
	const sf_step *st, const stir_layout *l, stir_bindings *b)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	const sf_arg *tensor = &st->args[SF_ARG_TENSOR];
	const sf_arg *rules = &st->args[SF_ARG_RULES];
	stir_loc where = tensor->loc;
	where.file = sf_file_in(s, ctx);
	const stir_buffer *t = stir_kernel_find_buffer(k, tensor->str);
	if (!t || t->kind != STIR_BUFFER_TENSOR) {
		stir_error(ctx, where, "cannot build the formats of '%s' on the "
			"host: kernel '%s' has no tensor '%s'", tensor->str, k->name,
			tensor->str);
		return -1;
	}
	for (int i = 0; i < rules->n_srcs; i++) {
		const sf_rule *src = &rules->srcs[i];
		stir_loc rloc = src->loc;
		rloc.file = where.file;
		if (i > 0) {
			/* a builder's format holds every entry of the tensor, and
			 * the decomposed kernel adds each rule's computation */
			stir_error(ctx, rloc, "cannot build the formats of several "
				"rules on the host: each would hold every entry of '%s', "
				"which the kernel would then count once per rule",
				t->name);
			return -1;
		}
		if (src->kind == SF_RULE_CUSTOM) {
			stir_error(ctx, rloc, "cannot build the format of a custom "
				"rule on the host");
			return -1;
		}
		/* the index type decompose_format gives the new axes: that of
		 * the tensor axis its first map recovers */
		const stir_format_rule *r = rules->rules[src->first];
		int old = r->n_maps > 0 ? r->maps[0].old_axis : 0;
		stir_dtype itype = old >= 0 && old < t->n_axes ?
			t->axes[old]->idtype : STIR_I32;
		host_input in;
		memset(&in, 0, sizeof(in));
		int n0 = stir_ctx_n_diagnostics(ctx);
		stir_bindings *out = stir_bindings_alloc();
		int rc = out ? 0 : -1;
		if (rc == 0)
			rc = read_input(k, t, src->kind, l, b, rloc, &in);
		if (rc == 0 && build(ctx, src, &in, itype, t->dtype, out) < 0) {
			/* the builder's errors have no place in the file, and
			 * its advice about index types speaks C: say what the
			 * program must declare instead */
			if (itype == STIR_I32 && t->n_axes > 0 &&
			    needs_wide_indices(ctx, n0))
				sf_note_errors(ctx, n0, rloc, "while building the %s "
					"format of tensor '%s' on the host: its indices "
					"take the type of axis '%s' (i32); declare it with "
					"idtype = i64 in the program",
					sf_rule_kind_key(src->kind), t->name,
					t->axes[old >= 0 && old < t->n_axes ? old : 0]->name);
			else
				sf_note_errors(ctx, n0, rloc, "while building the %s "
					"format of tensor '%s' on the host",
					sf_rule_kind_key(src->kind), t->name);
			rc = -1;
		}
		if (rc == 0)
			rc = move_into(ctx, out, t, b);
		input_release(&in);
		stir_bindings_free(out);
		if (rc < 0) {
			if (!out)
				stir_error_oom(ctx);
			return -1;
		}
	}
	return 0;
}

/* k, b, l, it, st, where: the COO arrays of fuse step st (with coo) on
 * iteration it of k: for the last fused axis J and every other fused axis
 * X, "J.pos_X" derived from the indptr arrays bound in b, or checked when
 * bound.  0, or -1 with an error at "where". */
static int bind_coo_iter(const stir_kernel *k, stir_bindings *b,
	const stir_layout *l, const stir_stmt *it, const sf_step *st,
	stir_loc where)
{
	const sf_arg *iters = &st->args[SF_ARG_ITERS];
	const stir_axis **axes = calloc((size_t)iters->n + 1, sizeof(*axes));
	if (!axes) {
		stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < iters->n && rc == 0; i++) {
		for (int v = 0; v < it->u.iter.n_vars && !axes[i]; v++)
			if (!strcmp(it->u.iter.vars[v]->name, iters->strs[i]))
				axes[i] = it->u.iter.vars[v]->axis;
		if (!axes[i]) {
			stir_loc at = iters->locs[i];
			at.file = where.file;
			stir_error(stir_kernel_ctx(k), at, "cannot derive the COO "
				"arrays on the host: '%s' is not an iterator of iteration "
				"'%s'", iters->strs[i], it->u.iter.name);
			rc = -1;
		}
	}
	for (int i = 0; i + 1 < iters->n && rc == 0; i++)
		rc = stir_coo_bind(k, b, l, axes[iters->n - 1], axes[i], where);
	free(axes);
	return rc;
}

/* k, b, l, list, st, where, found: bind_coo_iter for every iteration of
 * list (and nested in it) whose name matches step st's pattern; *found
 * counts them.  0 or -1. */
static int bind_coo_list(const stir_kernel *k, stir_bindings *b,
	const stir_layout *l, const stir_ptr_vec *list, const sf_step *st,
	stir_loc where, int *found)
{
	const char *pattern = st->args[SF_ARG_ITER].str;
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *it = stir_stmt_at(list, i);
		if (it->kind != STIR_STMT_ITER)
			continue;
		if (fnmatch(pattern, it->u.iter.name, 0) == 0) {
			++*found;
			if (bind_coo_iter(k, b, l, it, st, where) < 0)
				return -1;
		}
		if (bind_coo_list(k, b, l, &it->u.iter.body, st, where, found) < 0)
			return -1;
	}
	return 0;
}

/* s, k, b, l: the COO arrays of the stage I sparse_fuse steps with coo,
 * from the structure of the unscheduled kernel k.  0 or -1. */
static int bind_coo_steps(const stir_schedule *s, const stir_kernel *k,
	stir_bindings *b, const stir_layout *l)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	for (int i = 0; i < s->n_steps[SF_STAGE1]; i++) {
		const sf_step *st = &s->steps[SF_STAGE1][i];
		if (st->prim != SF_PRIM_SPARSE_FUSE || !st->args[SF_ARG_COO].value)
			continue;
		stir_loc where = st->args[SF_ARG_COO].loc;
		where.file = sf_file_in(s, ctx);
		int found = 0;
		if (bind_coo_list(k, b, l, &k->body, st, where, &found) < 0)
			return -1;
		if (found == 0) {
			stir_error(ctx, where, "cannot derive the COO arrays on the "
				"host: kernel '%s' has no iteration '%s' before the "
				"schedule (one an earlier step makes cannot take coo "
				"here; bind its arrays with stir_kernel_bind_coo)",
				k->name, st->args[SF_ARG_ITER].str);
			return -1;
		}
	}
	return 0;
}

/* s: whether a stage I step of s fuses with coo. */
static bool fuses_with_coo(const stir_schedule *s)
{
	for (int i = 0; i < s->n_steps[SF_STAGE1]; i++)
		if (s->steps[SF_STAGE1][i].prim == SF_PRIM_SPARSE_FUSE &&
		    s->steps[SF_STAGE1][i].args[SF_ARG_COO].value)
			return true;
	return false;
}

/* s, k, b: see schedule.h. */
int stir_schedule_bind_formats(const stir_schedule *s, const stir_kernel *k,
	stir_bindings *b)
{
	if (!s || !k || !b)
		return -1;
	if (s->n_steps[SF_FORMAT] == 0 && !fuses_with_coo(s))
		return 0;
	stir_layout l;
	if (stir_layout_init(&l, k, b, false) < 0)
		return -1;
	int rc = 0;
	for (int i = 0; i < s->n_steps[SF_FORMAT] && rc == 0; i++)
		rc = bind_step(s, k, &s->steps[SF_FORMAT][i], &l, b);
	if (rc == 0)
		rc = bind_coo_steps(s, k, b, &l);
	stir_layout_release(&l);
	return rc;
}

/* s, b: see schedule.h. */
int stir_schedule_bind_sizes(const stir_schedule *s, stir_bindings *b)
{
	if (!s || !b)
		return -1;
	for (int sec = 0; sec < SF_N_SECTIONS; sec++) {
		for (int i = 0; i < s->n_steps[sec]; i++) {
			const sf_step *st = &s->steps[sec][i];
			if (st->prim != SF_PRIM_SPECIALIZE)
				continue;
			const char *name = st->args[SF_ARG_PARAM].str;
			int64_t want = st->args[SF_ARG_VALUE].num, have;
			if (!stir_bindings_get_size(b, name, &have)) {
				if (stir_bindings_set_size(b, name, want) < 0) {
					stir_error_oom(s->ctx);
					return -1;
				}
			} else if (have != want) {
				stir_error(s->ctx, st->args[SF_ARG_VALUE].loc, "size "
					"'%s' is bound to %lld, but the schedule specializes "
					"the kernel for %lld", name, (long long)have,
					(long long)want);
				return -1;
			}
		}
	}
	return 0;
}
