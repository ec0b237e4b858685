/* The verifier, declarations (ir/verify.c says how the verifier is laid
 * out): the parameters and the size expressions (rule 2), axes (rule 3),
 * tensors and locals (rule 4), and the flat and auxiliary buffers that
 * stages II and III add. */
#include <string.h>
#include "ir/layout.h"
#include "ir/verify.h"

/* ---- parameters and sizes (rule 2) ---- */

/* v: parameters must be i32 or i64. */
void verify_check_params(verifier *v)
{
	for (int i = 0; i < v->k->params.n; i++) {
		stir_var *p = stir_var_at(&v->k->params, i);
		if (p->dtype != STIR_I32 && p->dtype != STIR_I64)
			stir_error(v->ctx, p->loc,
				"parameter '%s' must be i32 or i64, not %s",
				p->name, stir_dtype_get_name(p->dtype));
	}
}

/* v, e, what, name: a size or domain bound ("what" and "name" name it in
 * the message: "size of axis 'I'"); reported at its first offending node. */
static void check_size(verifier *v, const stir_expr *e, const char *what,
	const char *name)
{
	if (!e)
		return;
	const stir_expr *o = stir_size_offender(e, v->k);
	if (o)
		stir_error(v->ctx, o->loc, "%s'%s' must be an integer expression "
			"of parameters and literals", what, name);
}

/* ---- flat and auxiliary buffers (stages II and III) ---- */

/* kind: a buffer kind; the word naming it in messages. */
static const char *kind_word(stir_buffer_kind kind)
{
	switch (kind) {
	case STIR_BUFFER_TENSOR: return "tensor";
	case STIR_BUFFER_LOCAL: return "local";
	case STIR_BUFFER_INDPTR: return "indptr";
	case STIR_BUFFER_INDICES: return "indices";
	case STIR_BUFFER_COO: return "COO";
	}
	return "?";
}

/* arg: what a flat buffer binds to (NULL: nothing); the kind that the
 * text "= arg" reads back as (docs/ir.md): an allocated buffer without
 * one, a structure array for "X.indptr" and "X.indices", a COO array for
 * "J.pos_X", a tensor's values for a plain name; -1 for any other name
 * with a '.'. */
static int arg_kind(const char *arg)
{
	if (!arg)
		return STIR_BUFFER_LOCAL;
	const char *dot = strchr(arg, '.');
	if (!dot)
		return STIR_BUFFER_TENSOR;
	if (!strcmp(dot, ".indptr"))
		return STIR_BUFFER_INDPTR;
	if (!strcmp(dot, ".indices"))
		return STIR_BUFFER_INDICES;
	if (!strncmp(dot, ".pos_", 5) && dot[5])
		return STIR_BUFFER_COO;
	return -1;
}

/* kind, a: whether an axis of kind "a" has a structure array of buffer
 * kind "kind": indptr for the variable kinds, indices for the sparse
 * ones. */
static bool axis_has_array(stir_buffer_kind kind, stir_axis_kind a)
{
	if (kind == STIR_BUFFER_INDPTR)
		return a == STIR_DENSE_VARIABLE || a == STIR_SPARSE_VARIABLE;
	return a == STIR_SPARSE_FIXED || a == STIR_SPARSE_VARIABLE;
}

/* v, b, a: the auxiliary buffer b of stage II names axis a of the kernel:
 * the array it binds to must be a's, of a kind a has, with a's index type;
 * a has at most one buffer of each kind and records it. */
static void check_aux_axis(verifier *v, const stir_buffer *b,
	const stir_axis *a)
{
	const char *what = kind_word(b->kind);
	size_t n = strlen(a->name);
	if (b->arg && (strncmp(b->arg, a->name, n) || b->arg[n] != '.'))
		stir_error(v->ctx, b->loc, "buffer '%s' binds to '%s' but is the "
			"%s of axis '%s'", b->name, b->arg, what, a->name);
	if (!axis_has_array(b->kind, a->kind)) {
		stir_error(v->ctx, b->loc, "axis '%s' is %s and has no %s",
			a->name, axis_kind_name(a->kind), what);
		return;
	}
	if (stir_dtype_is_int(b->dtype) && b->dtype != a->idtype)
		stir_error(v->ctx, b->loc, "%s buffer '%s' has type %s but axis "
			"'%s' has index type %s", what, b->name,
			stir_dtype_get_name(b->dtype), a->name,
			stir_dtype_get_name(a->idtype));
	for (int i = 0; i < v->k->buffers.n; i++) {
		const stir_buffer *o = stir_buffer_at(&v->k->buffers, i);
		if (o == b)
			break;
		if (is_flat(o) && o->kind == b->kind && o->aux_axis == a) {
			stir_diag *d = stir_error(v->ctx, b->loc, "axis '%s' already "
				"has an %s buffer", a->name, what);
			stir_diag_add_note(d, o->loc, "previous %s buffer of '%s' is "
				"here", what, a->name);
			return;
		}
	}
	const stir_buffer *rec = b->kind == STIR_BUFFER_INDPTR ?
		a->indptr_buf : a->indices_buf;
	if (!rec)
		stir_error(v->ctx, b->loc, "axis '%s' does not record its %s "
			"buffer '%s'", a->name, what, b->name);
}

/* v, b: a flat buffer bound to an axis's indptr or indices: an integer
 * buffer; in stage II, the auxiliary buffer of a declared axis; in stage
 * III, where axes are gone, of none. */
static void check_aux_buffer(verifier *v, const stir_buffer *b)
{
	const char *what = kind_word(b->kind);
	if (!stir_dtype_is_int(b->dtype))
		stir_error(v->ctx, b->loc, "%s buffer '%s' must have an integer "
			"type, not %s", what, b->name, stir_dtype_get_name(b->dtype));
	if (v->k->stage == STIR_STAGE_3 && b->aux_axis)
		stir_error(v->ctx, b->loc, "buffer '%s' names axis '%s', but "
			"stage 3 has no axes", b->name, b->aux_axis->name);
	if (v->k->stage != STIR_STAGE_2)
		return;
	if (!b->aux_axis)
		stir_error(v->ctx, b->loc, "%s buffer '%s' names no axis", what,
			b->name);
	else if (!axis_in_kernel(v->k, b->aux_axis))
		stir_error(v->ctx, b->loc, "axis '%s' of buffer '%s' belongs to "
			"another kernel", b->aux_axis->name, b->name);
	else
		check_aux_axis(v, b, b->aux_axis);
}

/* v, b: a COO array (a flat buffer of kind STIR_BUFFER_COO): an integer
 * buffer; in stage II it names its fused group's last axis J and an
 * ancestor X of J whose descendants down to J all have an indptr (the
 * rows the array stores are those a search of the indptr arrays would
 * find), and binds to "J.pos_X"; in stage III it names no axis. */
static void check_coo_buffer(verifier *v, const stir_buffer *b)
{
	if (!stir_dtype_is_int(b->dtype))
		stir_error(v->ctx, b->loc, "COO buffer '%s' must have an integer "
			"type, not %s", b->name, stir_dtype_get_name(b->dtype));
	if (v->k->stage == STIR_STAGE_3 && (b->aux_axis || b->coo_axis))
		stir_error(v->ctx, b->loc, "buffer '%s' names an axis, but stage 3 "
			"has no axes", b->name);
	if (v->k->stage != STIR_STAGE_2)
		return;
	const stir_axis *j = b->aux_axis, *x = b->coo_axis;
	if (!j || !x || !axis_in_kernel(v->k, j) || !axis_in_kernel(v->k, x)) {
		stir_error(v->ctx, b->loc, "COO buffer '%s' must name two axes of "
			"the kernel", b->name);
		return;
	}
	const stir_axis *a = j;
	while (a && a->parent != x) {
		if (a->kind != STIR_DENSE_VARIABLE && a->kind != STIR_SPARSE_VARIABLE)
			break;
		a = a->parent;
	}
	if (!a || a == x || (a->kind != STIR_DENSE_VARIABLE &&
	    a->kind != STIR_SPARSE_VARIABLE))
		stir_error(v->ctx, b->loc, "COO buffer '%s': '%s' is not an "
			"ancestor of '%s' through axes with an indptr", b->name,
			x->name, j->name);
	size_t nj = strlen(j->name);
	if (b->arg && (strncmp(b->arg, j->name, nj) || strncmp(b->arg + nj,
	    ".pos_", 5) || strcmp(b->arg + nj + 5, x->name)))
		stir_error(v->ctx, b->loc, "COO buffer '%s' binds to '%s', not "
			"'%s.pos_%s'", b->name, b->arg, j->name, x->name);
}

/* v, b: a flat buffer (stages II and III): its extent, what it binds to,
 * which must agree with its kind, and its scope: only a buffer the kernel
 * allocates lives elsewhere than in global memory. */
static void check_flat_buffer(verifier *v, const stir_buffer *b)
{
	if (v->k->stage == STIR_STAGE_1)
		verify_report_stage(v, b->loc, "flat buffer", b->name);
	if (b->n_axes > 0)
		stir_error(v->ctx, b->loc, "buffer '%s' has both axes and an "
			"extent", b->name);
	check_size(v, b->extent, "extent of buffer ", b->name);
	if ((unsigned)b->kind > STIR_BUFFER_COO) {
		stir_error(v->ctx, b->loc, "buffer '%s' has an invalid kind",
			b->name);
		return;
	}
	if (!b->arg && b->kind != STIR_BUFFER_LOCAL)
		stir_error(v->ctx, b->loc, "buffer '%s' of kind %s binds to no "
			"array", b->name, kind_word(b->kind));
	else if (arg_kind(b->arg) != (int)b->kind)
		stir_error(v->ctx, b->loc, "buffer '%s' of kind %s cannot bind to "
			"'%s'", b->name, kind_word(b->kind), b->arg);
	if ((unsigned)b->scope > STIR_SCOPE_WARP)
		stir_error(v->ctx, b->loc, "buffer '%s' has an invalid scope",
			b->name);
	else if (b->scope != STIR_SCOPE_GLOBAL && b->arg)
		stir_error(v->ctx, b->loc, "buffer '%s' bound to '%s' must be "
			"global", b->name, b->arg);
	if (b->kind == STIR_BUFFER_INDPTR || b->kind == STIR_BUFFER_INDICES)
		check_aux_buffer(v, b);
	if (b->kind == STIR_BUFFER_COO)
		check_coo_buffer(v, b);
}

/* v, a, buf, kind: the auxiliary buffer of kind "kind" that axis a
 * records (NULL: none); only stage II has them, and each must be a flat
 * buffer of the kernel that names a as its axis. */
static void check_axis_aux(verifier *v, const stir_axis *a,
	const stir_buffer *buf, stir_buffer_kind kind)
{
	if (!buf)
		return;
	if (v->k->stage != STIR_STAGE_2)
		stir_error(v->ctx, a->loc, "axis '%s' has an %s buffer in a stage "
			"%d kernel", a->name, kind_word(kind), (int)v->k->stage);
	else if (!buffer_in_kernel(v->k, buf) || !is_flat(buf) ||
		 buf->kind != kind || buf->aux_axis != a)
		stir_error(v->ctx, a->loc, "'%s' is not an %s buffer of axis '%s'",
			buf->name, kind_word(kind), a->name);
}

/* ---- axes (rule 3) ---- */

/* v, a, i: the axis at position i of the kernel's list; its parent must be
 * an earlier axis of the same kernel, present exactly when the kind needs
 * one. */
static void check_axis_parent(verifier *v, const stir_axis *a, int i)
{
	if (!axis_kind_name(a->kind)) {
		stir_error(v->ctx, a->loc, "axis '%s' has an invalid kind",
			a->name);
		return;
	}
	if (a->kind == STIR_DENSE_FIXED) {
		if (a->parent)
			stir_error(v->ctx, a->loc,
				"dense_fixed axis '%s' cannot have a parent",
				a->name);
		return;
	}
	if (!a->parent) {
		stir_error(v->ctx, a->loc, "%s axis '%s' needs a parent",
			axis_kind_name(a->kind), a->name);
	} else if (!axis_in_kernel(v->k, a->parent)) {
		stir_error(v->ctx, a->loc,
			"parent '%s' of axis '%s' belongs to another kernel",
			a->parent->name, a->name);
	} else if (a->parent == a) {
		stir_error(v->ctx, a->loc, "axis '%s' is its own parent",
			a->name);
	} else if (a->parent->index > i) {
		stir_diag *d = stir_error(v->ctx, a->loc,
			"parent '%s' of axis '%s' is declared after it",
			a->parent->name, a->name);
		stir_diag_add_note(d, a->parent->loc, "'%s' is declared here",
			a->parent->name);
	}
}

/* v: every axis of the kernel: its parent, sizes and index type. */
void verify_check_axes(verifier *v)
{
	for (int i = 0; i < v->k->axes.n; i++) {
		stir_axis *a = stir_axis_at(&v->k->axes, i);
		check_axis_parent(v, a, i);
		check_size(v, a->len, "size of axis ", a->name);
		if (a->kind == STIR_SPARSE_FIXED)
			check_size(v, a->nnz, "column count of axis ", a->name);
		else if (a->kind != STIR_DENSE_FIXED)
			check_size(v, a->nnz, "nnz of axis ", a->name);
		if (a->idtype != STIR_I32 && a->idtype != STIR_I64)
			stir_error(v->ctx, a->loc,
				"index type of axis '%s' must be i32 or i64, not %s",
				a->name, stir_dtype_get_name(a->idtype));
		if (v->k->stage == STIR_STAGE_3)
			verify_report_stage(v, a->loc, "axis", a->name);
		check_axis_aux(v, a, a->indptr_buf, STIR_BUFFER_INDPTR);
		check_axis_aux(v, a, a->indices_buf, STIR_BUFFER_INDICES);
	}
}

/* ---- tensors and locals (rule 4) ---- */

/* v, b, p: the p-th axis of b's list, an axis of the kernel: it may not be
 * listed twice, and a child must immediately follow its parent. */
static void check_buffer_axis(verifier *v, const stir_buffer *b, int p)
{
	stir_axis *a = b->axes[p];
	for (int q = 0; q < p; q++)
		if (b->axes[q] == a) {
			stir_error(v->ctx, b->loc,
				"axis '%s' is listed twice in %s '%s'", a->name,
				buffer_word(b), b->name);
			return;
		}
	if (!a->parent || (p > 0 && b->axes[p - 1] == a->parent))
		return;
	for (int q = 0; q < p; q++)
		if (b->axes[q] == a->parent) {
			stir_error(v->ctx, b->loc, "axis '%s' must immediately "
				"follow its parent '%s' in %s '%s'", a->name,
				a->parent->name, buffer_word(b), b->name);
			return;
		}
	stir_error(v->ctx, b->loc, "axis '%s' breaks parent order in %s '%s': "
		"its parent '%s' must come before it", a->name, buffer_word(b),
		b->name, a->parent->name);
}

/* v, b: a tensor, local or flat buffer: its type, axis list or extent,
 * and value domain. */
static void check_buffer(verifier *v, const stir_buffer *b)
{
	if (is_flat(b))
		check_flat_buffer(v, b);
	else if (v->k->stage == STIR_STAGE_3)
		stir_error(v->ctx, b->loc, "%s '%s' over axes is not allowed in a "
			"stage 3 kernel", buffer_word(b), b->name);
	if (!is_flat(b) && b->scope != STIR_SCOPE_GLOBAL)
		stir_error(v->ctx, b->loc, "%s '%s' over axes must be global",
			buffer_word(b), b->name);
	if (b->dtype == STIR_BOOL)
		stir_error(v->ctx, b->loc, "%s '%s' cannot have type bool",
			buffer_word(b), b->name);
	else if (!is_num(b->dtype))
		stir_error(v->ctx, b->loc, "%s '%s' has an invalid type",
			buffer_word(b), b->name);
	for (int p = 0; p < b->n_axes; p++) {
		if (axis_in_kernel(v->k, b->axes[p]))
			check_buffer_axis(v, b, p);
		else
			stir_error(v->ctx, b->loc,
				"axis '%s' of %s '%s' belongs to another kernel",
				b->axes[p]->name, buffer_word(b), b->name);
	}
	if (b->distinct && !b->domain_lo && !b->domain_hi)
		stir_error(v->ctx, b->loc, "%s '%s' is declared distinct but has "
			"no value domain 'in [lo, hi)'", buffer_word(b), b->name);
	if (!b->domain_lo && !b->domain_hi)
		return;
	if (!stir_dtype_is_int(b->dtype))
		stir_error(v->ctx, b->loc,
			"%s '%s' of type %s cannot have a value domain",
			buffer_word(b), b->name, stir_dtype_get_name(b->dtype));
	if (!b->domain_lo || !b->domain_hi)
		stir_error(v->ctx, b->loc, "the value domain of %s '%s' lacks "
			"its %s bound", buffer_word(b), b->name,
			b->domain_lo ? "upper" : "lower");
	check_size(v, b->domain_lo, "domain bound of ", b->name);
	check_size(v, b->domain_hi, "domain bound of ", b->name);
}

/* v: every buffer of the kernel. */
void verify_check_buffers(verifier *v)
{
	for (int i = 0; i < v->k->buffers.n; i++)
		check_buffer(v, stir_buffer_at(&v->k->buffers, i));
}
