/* decompose_format (passes/decompose_format.c): the kernel KERNEL_copy
 * that fills the new format's tensors from the old tensor, and the
 * pruning of the old tensor and of the axes and parameters left unused. */
#include <stdbool.h>
#include <stdlib.h>
#include "passes/decompose.h"
#include "ir/util.h"
#include "ir/visit.h"

/* ---- the preprocessing kernel ---- */

/* dst, a, subst, axis_map: a copy in dst of axis a of the source kernel,
 * its parent and sizes mapped. */
static stir_axis *clone_axis(stir_kernel *dst, const stir_axis *a,
	const stir_subst *subst, stir_axis **axis_map)
{
	stir_expr *len = stir_expr_copy(dst, a->len, subst);
	stir_expr *nnz = a->nnz ? stir_expr_copy(dst, a->nnz, subst) : NULL;
	stir_axis *p = a->parent ? axis_map[a->parent->index] : NULL;
	stir_axis *c = NULL;
	switch (a->kind) {
	case STIR_DENSE_FIXED:
		c = stir_kernel_add_dense_fixed(dst, a->name, len);
		break;
	case STIR_DENSE_VARIABLE:
		c = stir_kernel_add_dense_variable(dst, a->name, p, len, nnz);
		break;
	case STIR_SPARSE_FIXED:
		c = stir_kernel_add_sparse_fixed(dst, a->name, p, len, nnz);
		break;
	case STIR_SPARSE_VARIABLE:
		c = stir_kernel_add_sparse_variable(dst, a->name, p, len, nnz);
		break;
	}
	if (c) {
		c->loc = a->loc;
		c->idtype = a->idtype;
		c->sorted = a->sorted;
	}
	return c;
}

/* c, p, subst, axis_map: a copy in c of tensor p that a rule's map reads
 * (one axis, a value domain, distinct), its sizes mapped; NULL when memory
 * runs out. */
static stir_buffer *copy_through(stir_kernel *c, const stir_buffer *p,
	const stir_subst *subst, stir_axis **axis_map)
{
	stir_buffer *b = stir_kernel_add_tensor(c, p->name, p->dtype, 1,
		&axis_map[p->axes[0]->index]);
	stir_expr *lo = b ? stir_expr_copy(c, p->domain_lo, subst) : NULL;
	stir_expr *hi = lo ? stir_expr_copy(c, p->domain_hi, subst) : NULL;
	if (!hi)
		return NULL;
	stir_buffer_set_domain(b, lo, hi);
	stir_buffer_set_distinct(b, true);
	return b;
}

/* slot, user: mark (by slot, in the bool array "user") the parameter
 * *slot is. */
static stir_visit_step mark_param(stir_expr **slot, void *user)
{
	if ((*slot)->kind == STIR_EXPR_VAR &&
	    (*slot)->u.var->kind == STIR_VAR_PARAM)
		((bool *)user)[(*slot)->u.var->slot] = true;
	return STIR_VISIT_GO;
}

/* e, used: mark every parameter e uses (by slot). */
static void mark_params(const stir_expr *e, bool *used)
{
	stir_visitor v = { NULL, NULL, mark_param, NULL, 0, used };
	stir_expr *slot = (stir_expr *)e;
	stir_visit_expr(&v, &slot);
}

/* d: see decompose.h. */
stir_kernel *decompose_copy_kernel(dec *d)
{
	stir_kernel *k = d->k;
	const char *name = decompose_suffixed(d, k->name, "_copy");
	bool *used = stir_kernel_array(k, (size_t)k->n_vars + 1, sizeof(*used));
	bool *need = stir_kernel_array(k, (size_t)k->axes.n + 1, sizeof(*need));
	stir_axis **axis_map = stir_kernel_array(k, (size_t)k->axes.n + 1,
		sizeof(*axis_map));
	stir_axis **taxes = stir_kernel_array(k, (size_t)d->t->n_axes,
		sizeof(*taxes));
	if (!name || !used || !need || !axis_map || !taxes) {
		d->failed = true;
		return NULL;
	}
	if (stir_module_find_kernel(k->module, name)) {
		fail(d, k->loc, "the module already has a kernel '%s'", name);
		return NULL;
	}
	stir_kernel *c = stir_module_add_kernel(k->module, name);
	for (int i = 0; i < d->t->n_axes; i++)
		need[d->t->axes[i]->index] = true;
	for (int r = 0; r < d->n_rules; r++) {
		for (int i = 0; i < d->rules[r]->n_axes; i++)
			need[d->axes[r][i]->index] = true;
		if (d->through[r])
			need[d->through[r]->axes[0]->index] = true;
	}
	for (int i = 0; i < k->axes.n; i++) {
		if (!need[i])
			continue;
		mark_params(stir_axis_at(&k->axes, i)->len, used);
		mark_params(stir_axis_at(&k->axes, i)->nnz, used);
	}
	stir_subst subst = { 0 };
	for (int i = 0; c && i < k->params.n; i++) {
		stir_var *p = stir_var_at(&k->params, i);
		if (used[p->slot])
			stir_subst_add_var(&subst, p, stir_kernel_add_param(c, p->name,
				p->dtype));
	}
	for (int i = 0; c && i < k->axes.n; i++)
		axis_map[i] = need[i] ? clone_axis(c, stir_axis_at(&k->axes, i),
			&subst, axis_map) : NULL;
	if (!c) {
		stir_subst_release(&subst);
		d->failed = true;
		return NULL;
	}
	for (int i = 0; i < d->t->n_axes; i++)
		taxes[i] = axis_map[d->t->axes[i]->index];
	stir_buffer *old = stir_kernel_add_tensor(c, d->t->name, d->t->dtype,
		d->t->n_axes, taxes);
	for (int r = 0; r < d->n_rules && old; r++) {
		const stir_format_rule *rule = d->rules[r];
		size_t na = (size_t)rule->n_axes;
		stir_axis **axes = stir_kernel_array(k, na, sizeof(*axes));
		const char **names = stir_kernel_array(k, na, sizeof(*names));
		char *kinds = stir_kernel_array(k, na + 1, 1);
		stir_iter_group *groups = stir_kernel_array(k, na, sizeof(*groups));
		stir_expr **dst = stir_kernel_array(k, na, sizeof(*dst));
		stir_expr **src = stir_kernel_array(k, (size_t)d->t->n_axes,
			sizeof(*src));
		stir_names taken;
		if (!axes || !names || !kinds || !groups || !dst || !src ||
		    stir_names_init(&taken, c) < 0) {
			d->failed = true;
			break;
		}
		for (int i = 0; i < rule->n_axes; i++) {
			axes[i] = axis_map[d->axes[r][i]->index];
			stir_iter_group g = { STIR_GROUP_AXIS, 1, &axes[i], NULL,
				false };
			groups[i] = g;
			/* iterators named after their axes, in lower case */
			const char *lower = decompose_lower_case(k, axes[i]->name);
			names[i] = lower ? stir_names_fresh(&taken, lower) : NULL;
			kinds[i] = 'S';
		}
		kinds[rule->n_axes] = '\0';
		stir_buffer *t = stir_kernel_add_tensor(c, d->tensors[r]->name,
			d->t->dtype, rule->n_axes, axes);
		stir_buffer *through = d->through[r] ? copy_through(c,
			d->through[r], &subst, axis_map) : NULL;
		if (d->through[r] && !through)
			t = NULL;
		const char *iname = decompose_suffixed(d, "copy", rule->suffix);
		stir_stmt *it = t && iname ? stir_stmt_iter(c, iname, rule->n_axes,
			groups, rule->n_axes, names, kinds) : NULL;
		stir_names_release(&taken);
		if (!it) {
			d->failed = true;
			break;
		}
		for (int i = 0; i < rule->n_axes; i++)
			dst[i] = stir_expr_var(c, it->u.iter.vars[i]);
		for (int k2 = 0; k2 < d->t->n_axes; k2++) {
			stir_expr *e = decompose_inverse(d, rule, k2,
				it->u.iter.vars, through);
			src[k2] = e ? stir_expr_copy(c, e, NULL) : NULL;
		}
		stir_stmt *st = stir_stmt_store(c, t, rule->n_axes, dst,
			STIR_STORE_ASSIGN, stir_expr_load(c, old, d->t->n_axes, src));
		if (!st || stir_stmt_iter_append_body(it, st) < 0 ||
		    stir_kernel_append_stmt(c, it) < 0)
			d->failed = true;
	}
	stir_subst_release(&subst);
	if (!old)
		d->failed = true;
	return c;
}

/* ---- pruning ---- */

/* k, t: see decompose.h. */
int decompose_prune(stir_kernel *k, const stir_buffer *t)
{
	stir_arena *ar = stir_kernel_arena(k);
	stir_ptr_vec buffers = { 0 }, axes = { 0 }, params = { 0 };
	bool *axis_used = stir_kernel_array(k, (size_t)k->axes.n + 1,
		sizeof(*axis_used));
	bool *used = stir_kernel_array(k, (size_t)k->n_vars + 1, sizeof(*used));
	if (!axis_used || !used)
		return -1;
	for (int i = 0; i < k->buffers.n; i++) {
		stir_buffer *b = stir_buffer_at(&k->buffers, i);
		if (b == t)
			continue;
		for (int j = 0; j < b->n_axes; j++)
			axis_used[b->axes[j]->index] = true;
		mark_params(b->domain_lo, used);
		mark_params(b->domain_hi, used);
		if (stir_ptr_vec_push(ar, &buffers, b) < 0)
			return -1;
	}
	for (int i = 0; i < k->body.n; i++) {
		const stir_stmt *s = stir_stmt_at(&k->body, i);
		for (int g = 0; g < s->u.iter.n_groups; g++) {
			const stir_iter_group *grp = &s->u.iter.groups[g];
			for (int j = 0; j < grp->n_axes; j++)
				axis_used[grp->axes[j]->index] = true;
			if (grp->attach_parent)
				axis_used[grp->attach_parent->index] = true;
		}
	}
	/* parents of used axes are used; children come after parents */
	for (int i = k->axes.n - 1; i >= 0; i--) {
		stir_axis *a = stir_axis_at(&k->axes, i);
		if (axis_used[i] && a->parent)
			axis_used[a->parent->index] = true;
	}
	for (int i = 0; i < k->axes.n; i++) {
		stir_axis *a = stir_axis_at(&k->axes, i);
		if (!axis_used[i])
			continue;
		mark_params(a->len, used);
		mark_params(a->nnz, used);
		if (stir_ptr_vec_push(ar, &axes, a) < 0)
			return -1;
	}
	/* parameters: those the sizes use, or any statement */
	for (int i = 0; i < k->params.n; i++) {
		stir_var *p = stir_var_at(&k->params, i);
		if ((used[p->slot] || stir_list_uses_var(&k->body, p)) &&
		    stir_ptr_vec_push(ar, &params, p) < 0)
			return -1;
	}
	k->buffers = buffers;
	k->axes = axes;
	k->params = params;
	for (int i = 0; i < k->buffers.n; i++)
		stir_buffer_at(&k->buffers, i)->index = i;
	for (int i = 0; i < k->axes.n; i++)
		stir_axis_at(&k->axes, i)->index = i;
	return 0;
}
