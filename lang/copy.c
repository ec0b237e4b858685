/* stir_kernel_copy (include/stir/lang.h): a kernel's printed text read
 * back into a module of its own, then the original's source locations
 * laid over the copy.
 *
 * The text form holds everything a kernel is, at every stage (printing
 * and reading back give an equal kernel: tests/test_golden.sh), so the
 * copy needs no walker of its own that would have to learn every new
 * field; only the locations, which the text cannot carry, are copied by
 * walking the two kernels side by side.  Where they differ in shape
 * (never expected) the copy keeps the locations of its text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/lang.h>
#include "ir/nodes.h"

static void locs_list(const stir_ptr_vec *from, stir_ptr_vec *to);

/* from, to: lay the locations of expression from over its copy "to". */
static void locs_expr(const stir_expr *from, stir_expr *to)
{
	if (!from || !to || from->kind != to->kind)
		return;
	to->loc = from->loc;
	switch (from->kind) {
	case STIR_EXPR_LOAD:
		for (int i = 0; i < from->u.load.n && i < to->u.load.n; i++)
			locs_expr(from->u.load.idx[i], to->u.load.idx[i]);
		break;
	case STIR_EXPR_UNARY:
		locs_expr(from->u.unary.a, to->u.unary.a);
		break;
	case STIR_EXPR_BINARY:
		locs_expr(from->u.binary.a, to->u.binary.a);
		locs_expr(from->u.binary.b, to->u.binary.b);
		break;
	case STIR_EXPR_SELECT:
		locs_expr(from->u.select.c, to->u.select.c);
		locs_expr(from->u.select.a, to->u.select.a);
		locs_expr(from->u.select.b, to->u.select.b);
		break;
	case STIR_EXPR_CALL:
		for (int i = 0; i < from->u.call.n && i < to->u.call.n; i++)
			locs_expr(from->u.call.args[i], to->u.call.args[i]);
		break;
	case STIR_EXPR_CAST:
		locs_expr(from->u.cast.a, to->u.cast.a);
		break;
	case STIR_EXPR_SEARCH:
		locs_expr(from->u.search.lo, to->u.search.lo);
		locs_expr(from->u.search.hi, to->u.search.hi);
		locs_expr(from->u.search.x, to->u.search.x);
		break;
	default:
		break;
	}
}

/* from, to, n: the same for the variables from[0..n-1]. */
static void locs_vars(stir_var *const *from, stir_var **to, int n)
{
	for (int i = 0; i < n; i++)
		to[i]->loc = from[i]->loc;
}

/* from, to, n: the same for the regions from[0..n-1]. */
static void locs_regions(const stir_region *from, stir_region *to, int n)
{
	for (int i = 0; i < n; i++)
		for (int d = 0; d < from[i].n && d < to[i].n; d++) {
			locs_expr(from[i].lo[d], to[i].lo[d]);
			locs_expr(from[i].hi[d], to[i].hi[d]);
		}
}

/* from, to: the same for statement from and everything in it. */
static void locs_stmt(const stir_stmt *from, stir_stmt *to)
{
	if (from->kind != to->kind)
		return;
	to->loc = from->loc;
	switch (from->kind) {
	case STIR_STMT_STORE:
		for (int i = 0; i < from->u.store.n && i < to->u.store.n; i++)
			locs_expr(from->u.store.idx[i], to->u.store.idx[i]);
		locs_expr(from->u.store.value, to->u.store.value);
		break;
	case STIR_STMT_LET:
		to->u.let.var->loc = from->u.let.var->loc;
		locs_expr(from->u.let.value, to->u.let.value);
		break;
	case STIR_STMT_IF:
		locs_expr(from->u.if_.cond, to->u.if_.cond);
		locs_list(&from->u.if_.then_body, &to->u.if_.then_body);
		locs_list(&from->u.if_.else_body, &to->u.if_.else_body);
		break;
	case STIR_STMT_ITER:
		to->u.iter.kinds_loc = from->u.iter.kinds_loc;
		if (from->u.iter.n_vars == to->u.iter.n_vars)
			locs_vars(from->u.iter.vars, to->u.iter.vars,
				from->u.iter.n_vars);
		locs_list(&from->u.iter.init, &to->u.iter.init);
		locs_list(&from->u.iter.body, &to->u.iter.body);
		break;
	case STIR_STMT_FOR:
		to->u.for_.var->loc = from->u.for_.var->loc;
		locs_expr(from->u.for_.extent, to->u.for_.extent);
		locs_list(&from->u.for_.body, &to->u.for_.body);
		break;
	case STIR_STMT_BLOCK:
		if (from->u.block.n_vars == to->u.block.n_vars) {
			locs_vars(from->u.block.vars, to->u.block.vars,
				from->u.block.n_vars);
			for (int i = 0; i < from->u.block.n_vars; i++)
				locs_expr(from->u.block.bindings[i],
					to->u.block.bindings[i]);
		}
		if (from->u.block.n_reads == to->u.block.n_reads)
			locs_regions(from->u.block.reads, to->u.block.reads,
				from->u.block.n_reads);
		if (from->u.block.n_writes == to->u.block.n_writes)
			locs_regions(from->u.block.writes, to->u.block.writes,
				from->u.block.n_writes);
		locs_list(&from->u.block.body, &to->u.block.body);
		break;
	case STIR_STMT_BARRIER:
		break;
	}
}

/* from, to: locs_stmt on the statements of two lists of one length. */
static void locs_list(const stir_ptr_vec *from, stir_ptr_vec *to)
{
	if (from->n != to->n)
		return;
	for (int i = 0; i < from->n; i++)
		locs_stmt(stir_stmt_at(from, i), stir_stmt_at(to, i));
}

/* from, to: lay the source locations of kernel from over its copy. */
static void locs_kernel(const stir_kernel *from, stir_kernel *to)
{
	to->loc = from->loc;
	for (int i = 0; i < from->params.n && i < to->params.n; i++)
		stir_var_at(&to->params, i)->loc = stir_var_at(&from->params, i)->loc;
	for (int i = 0; i < from->axes.n && i < to->axes.n; i++) {
		const stir_axis *a = stir_axis_at(&from->axes, i);
		stir_axis *b = stir_axis_at(&to->axes, i);
		b->loc = a->loc;
		locs_expr(a->len, b->len);
		locs_expr(a->nnz, b->nnz);
	}
	for (int i = 0; i < from->buffers.n && i < to->buffers.n; i++) {
		const stir_buffer *a = stir_buffer_at(&from->buffers, i);
		stir_buffer *b = stir_buffer_at(&to->buffers, i);
		b->loc = a->loc;
		locs_expr(a->domain_lo, b->domain_lo);
		locs_expr(a->domain_hi, b->domain_hi);
		locs_expr(a->extent, b->extent);
	}
	locs_list(&from->body, &to->body);
}

/* k, owner: see lang.h. */
stir_kernel *stir_kernel_copy(const stir_kernel *k, stir_module **owner)
{
	if (owner)
		*owner = NULL;
	if (!k || !owner)
		return NULL;
	stir_ctx *ctx = stir_kernel_ctx(k);
	char *text = stir_kernel_to_str(k);
	size_t len = strlen(k->name) + sizeof("<copy of >");
	char *file = malloc(len);
	if (!text || !file) {
		free(text);
		free(file);
		return stir_error_oom(ctx);
	}
	snprintf(file, len, "<copy of %s>", k->name);
	stir_module *m = stir_module_read_from_mem(ctx, file, text, strlen(text));
	if (!m)
		stir_error(ctx, k->loc, "internal error: the printed form of kernel "
			"'%s' does not read back", k->name);
	free(file);
	free(text);
	if (!m)
		return NULL;
	stir_kernel *c = stir_kernel_at(&m->kernels, 0);
	locs_kernel(k, c);
	c->min_blocks_per_sm = k->min_blocks_per_sm;
	c->overlap_launches = k->overlap_launches;
	*owner = m;
	return c;
}
