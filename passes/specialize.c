/* specialize (include/stir/passes.h): a size parameter becomes a literal.
 *
 * Requires: a verified kernel of any stage.
 * Keeps: what the kernel computes for that value of the parameter.
 * Breaks: nothing; the kernel no longer takes the parameter. */
#include <string.h>
#include <stir/passes.h>
#include "ir/util.h"

/* k, param, value: stir_specialize before the collection. */
static int specialize(stir_kernel *k, const char *param, int64_t value)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	stir_made_clear(k);
	int at = -1;
	for (int i = 0; param && i < k->params.n; i++)
		if (!strcmp(stir_var_at(&k->params, i)->name, param))
			at = i;
	if (at < 0) {
		stir_error(ctx, k->loc, "specialize: kernel '%s' has no size parameter "
			"'%s'", k->name, param ? param : "(null)");
		return -1;
	}
	stir_var *p = stir_var_at(&k->params, at);
	if (p->dtype == STIR_I32 && (value < INT32_MIN || value > INT32_MAX)) {
		stir_error(ctx, p->loc, "specialize: %lld does not fit parameter '%s' "
			"of type i32", (long long)value, p->name);
		return -1;
	}
	if (stir_kernel_verify(k) < 0)
		return -1;
	/* the literal has the parameter's type, as the variable had */
	stir_expr *lit = stir_expr_int(k, value);
	stir_subst sub = { 0 };
	if (!lit || stir_subst_add_expr(&sub, p, lit) < 0)
		goto oom;
	lit->dtype = p->dtype;
	lit->flexible = false;
	for (int i = 0; i < k->axes.n; i++) {
		stir_axis *a = stir_axis_at(&k->axes, i);
		a->len = stir_expr_copy(k, a->len, &sub);
		if (a->nnz)
			a->nnz = stir_expr_copy(k, a->nnz, &sub);
		if (!a->len)
			goto oom;
	}
	for (int i = 0; i < k->buffers.n; i++) {
		stir_buffer *b = stir_buffer_at(&k->buffers, i);
		if (b->extent)
			b->extent = stir_expr_copy(k, b->extent, &sub);
		if (b->domain_lo) {
			b->domain_lo = stir_expr_copy(k, b->domain_lo, &sub);
			b->domain_hi = stir_expr_copy(k, b->domain_hi, &sub);
		}
	}
	if (stir_list_subst(k, &k->body, &sub) < 0)
		goto oom;
	stir_subst_release(&sub);
	memmove(&k->params.v[at], &k->params.v[at + 1],
		(size_t)(k->params.n - at - 1) * sizeof(void *));
	k->params.n--;
	return stir_kernel_verify(k);
oom:
	stir_subst_release(&sub);
	stir_error_oom(ctx);
	return -1;
}

/* k, param, value: the pass, then the module's arena collected
 * (stir_module_collect keeps what the kernels reach). */
int stir_specialize(stir_kernel *k, const char *param, int64_t value)
{
	int r = specialize(k, param, value);
	if (k)
		(void)stir_module_collect(k->module);
	return stir_kernel_log_step(k, r, "specialize: {param: %s, value: "
		"%lld}", param, (long long)value);
}
