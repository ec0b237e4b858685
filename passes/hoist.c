/* hoist_invariants (include/stir/passes.h): searches computed once,
 * before the loops that do not change them (docs/cuda.md, "Searches").
 *
 * A fused iteration finds the row of a flat position by a binary search
 * (upper_bound(J_indptr, 0, m + 1, p) - 1), and lowering puts the search
 * wherever the row is used: inside the innermost loops, once per feature
 * and per vector load.  The CUDA compiler does not merge two searches (they
 * are loops), so this pass does: before each loop, outermost first, the
 * searches of the loop (its extent and body) that the loop does not change
 * become lets marked "hoisted", in the order they are met, and every
 * search inside the loop equal to one of them (block variables seen
 * through their bindings) becomes the let's variable.  The let's value is
 * the search with the block variables defined inside the loop replaced by
 * their bindings.  The emitter prints a hoisted let as the constant
 * "const int stir_sN = ...;  // a search the loop does not change".
 *
 * The value is computed where the search might not run (the loop may run
 * no iteration, the search may sit under a condition such as a split's
 * guard), so a search moves only when that is always safe and gives the
 * same value:
 *  - its range [lo, hi) is literal or exactly the whole buffer: [0, N)
 *    with N the buffer's extent (so it reads nothing out of bounds, where
 *    any value x is searched);
 *  - the value searched, x, reads no memory and divides by nothing but
 *    non-zero literals (so it can always be evaluated), and uses no
 *    variable defined inside the loop (block variables inside are seen
 *    through their bindings);
 *  - the buffer lives in global memory and no statement of the kernel
 *    stores into it (so no store between the two places changes it).
 * The loops of the kernel's top level (launches) and the nests of a
 * horizontal block are not hoisted before: a let cannot stand there.
 * Reads of warp buffers, which the emitter also computes once before a
 * loop (codegen/cuda_hoist.c), stay the emitter's: whether the lanes run a
 * loop together is a fact of the thread mapping.
 *
 * Requires: a verified stage III kernel.
 * Keeps: what the kernel computes.
 * Breaks: nothing. */
#include <stdlib.h>
#include <string.h>
#include <stir/passes.h>
#include "passes/passes.h"
#include "ir/util.h"

typedef struct hoister {
	stir_kernel *k;
	stir_ctx *ctx;
	const stir_expr **binding; /* per slot: a block variable's binding */
	bool *stored;              /* per buffer: some statement stores to it */
	bool *inner;               /* per slot: defined inside the loop */
	size_t slots;              /* of inner and binding: the variables the
	                              kernel had (the lets made since are
	                              never inside a loop looked at) */
	stir_names names;
	int n, cap;
	const stir_expr **cand;    /* heap: the searches of the loop */
	stir_var **vars;           /* heap: their lets' variables */
	bool failed;
} hoister;

/* H, v: the binding of block variable v, or NULL. */
static const stir_expr *binding_of(const hoister *H, const stir_var *v)
{
	return v->kind == STIR_VAR_BLOCK && (size_t)v->slot < H->slots ?
		H->binding[v->slot] : NULL;
}

/* H, a, b: structural equality, block variables seen through their
 * bindings. */
static bool same(const hoister *H, const stir_expr *a, const stir_expr *b)
{
	if (!a || !b)
		return false;
	if (a->kind == STIR_EXPR_VAR && a->u.var->kind == STIR_VAR_BLOCK &&
	    binding_of(H, a->u.var))
		return same(H, binding_of(H, a->u.var), b);
	if (b->kind == STIR_EXPR_VAR && b->u.var->kind == STIR_VAR_BLOCK &&
	    binding_of(H, b->u.var))
		return same(H, a, binding_of(H, b->u.var));
	if (a->kind != b->kind || a->dtype != b->dtype)
		return false;
	switch (a->kind) {
	case STIR_EXPR_INT:
		return a->u.i == b->u.i;
	case STIR_EXPR_FLOAT:
		return !memcmp(&a->u.f, &b->u.f, sizeof(double));
	case STIR_EXPR_VAR:
		return a->u.var == b->u.var;
	case STIR_EXPR_LOAD:
		return a->u.load.buf == b->u.load.buf &&
			same(H, a->u.load.idx[0], b->u.load.idx[0]);
	case STIR_EXPR_UNARY:
		return a->u.unary.op == b->u.unary.op &&
			same(H, a->u.unary.a, b->u.unary.a);
	case STIR_EXPR_BINARY:
		return a->u.binary.op == b->u.binary.op &&
			same(H, a->u.binary.a, b->u.binary.a) &&
			same(H, a->u.binary.b, b->u.binary.b);
	case STIR_EXPR_SELECT:
		return same(H, a->u.select.c, b->u.select.c) &&
			same(H, a->u.select.a, b->u.select.a) &&
			same(H, a->u.select.b, b->u.select.b);
	case STIR_EXPR_CALL:
		if (a->u.call.f != b->u.call.f || a->u.call.n != b->u.call.n)
			return false;
		for (int i = 0; i < a->u.call.n; i++)
			if (!same(H, a->u.call.args[i], b->u.call.args[i]))
				return false;
		return true;
	case STIR_EXPR_CAST:
		return same(H, a->u.cast.a, b->u.cast.a);
	case STIR_EXPR_SEARCH:
		return a->u.search.op == b->u.search.op &&
			a->u.search.buf == b->u.search.buf &&
			same(H, a->u.search.lo, b->u.search.lo) &&
			same(H, a->u.search.hi, b->u.search.hi) &&
			same(H, a->u.search.x, b->u.search.x);
	}
	return false;
}

/* H, x: whether x can be evaluated anywhere: no loads, no searches, no
 * division or remainder by anything but a non-zero literal (block
 * variables through their bindings). */
static bool safe_value(const hoister *H, const stir_expr *x)
{
	switch (x->kind) {
	case STIR_EXPR_INT:
		return true;
	case STIR_EXPR_VAR:
		if (x->u.var->kind == STIR_VAR_BLOCK && binding_of(H, x->u.var))
			return safe_value(H, binding_of(H, x->u.var));
		return true;
	case STIR_EXPR_UNARY:
		return stir_dtype_is_int(x->dtype) && safe_value(H, x->u.unary.a);
	case STIR_EXPR_CAST:
		return stir_dtype_is_int(x->dtype) &&
			stir_dtype_is_int(x->u.cast.a->dtype) &&
			safe_value(H, x->u.cast.a);
	case STIR_EXPR_BINARY:
		switch (x->u.binary.op) {
		case STIR_DIV:
		case STIR_MOD:
			if (x->u.binary.b->kind != STIR_EXPR_INT ||
			    x->u.binary.b->u.i == 0)
				return false;
			break;
		case STIR_ADD:
		case STIR_SUB:
		case STIR_MUL:
			break;
		default:
			return false;
		}
		return stir_dtype_is_int(x->dtype) &&
			safe_value(H, x->u.binary.a) && safe_value(H, x->u.binary.b);
	default:
		return false;
	}
}

/* H, x: whether the range of search x lies inside its buffer whatever
 * runs: literal bounds inside a literal extent, or [0, extent). */
static bool whole_range(const hoister *H, const stir_expr *x)
{
	const stir_expr *lo = x->u.search.lo, *hi = x->u.search.hi;
	const stir_expr *ext = x->u.search.buf->extent;
	if (!ext || lo->kind != STIR_EXPR_INT || lo->u.i < 0)
		return false;
	if (hi->kind == STIR_EXPR_INT && ext->kind == STIR_EXPR_INT)
		return lo->u.i <= hi->u.i && hi->u.i <= ext->u.i;
	return lo->u.i == 0 && same(H, hi, ext);
}

/* H, x: whether x uses a variable defined inside the loop (block
 * variables through their bindings). */
static bool uses_inner(const hoister *H, const stir_expr *x)
{
	switch (x->kind) {
	case STIR_EXPR_VAR:
		if ((size_t)x->u.var->slot >= H->slots || !H->inner[x->u.var->slot])
			return false;
		if (x->u.var->kind == STIR_VAR_BLOCK && binding_of(H, x->u.var))
			return uses_inner(H, binding_of(H, x->u.var));
		return true;
	case STIR_EXPR_LOAD:
		return uses_inner(H, x->u.load.idx[0]);
	case STIR_EXPR_UNARY:
		return uses_inner(H, x->u.unary.a);
	case STIR_EXPR_BINARY:
		return uses_inner(H, x->u.binary.a) || uses_inner(H, x->u.binary.b);
	case STIR_EXPR_SELECT:
		return uses_inner(H, x->u.select.c) ||
			uses_inner(H, x->u.select.a) || uses_inner(H, x->u.select.b);
	case STIR_EXPR_CALL:
		for (int i = 0; i < x->u.call.n; i++)
			if (uses_inner(H, x->u.call.args[i]))
				return true;
		return false;
	case STIR_EXPR_CAST:
		return uses_inner(H, x->u.cast.a);
	case STIR_EXPR_SEARCH:
		return uses_inner(H, x->u.search.lo) ||
			uses_inner(H, x->u.search.hi) || uses_inner(H, x->u.search.x);
	default:
		return false;
	}
}

/* H, x: whether search x may be computed before the loop. */
static bool movable(const hoister *H, const stir_expr *x)
{
	const stir_buffer *b = x->u.search.buf;
	return b->scope == STIR_SCOPE_GLOBAL && !H->stored[b->index] &&
		whole_range(H, x) && safe_value(H, x->u.search.x) &&
		!uses_inner(H, x->u.search.x);
}

/* H, x: add each movable search of x not held yet (a search is looked at
 * as a whole, not inside: one that stays keeps its inner ones where they
 * are, unless another place moves an equal one). */
static void gather_expr(hoister *H, const stir_expr *x)
{
	if (!x || H->failed)
		return;
	switch (x->kind) {
	case STIR_EXPR_LOAD:
		gather_expr(H, x->u.load.idx[0]);
		return;
	case STIR_EXPR_UNARY:
		gather_expr(H, x->u.unary.a);
		return;
	case STIR_EXPR_BINARY:
		gather_expr(H, x->u.binary.a);
		gather_expr(H, x->u.binary.b);
		return;
	case STIR_EXPR_SELECT:
		gather_expr(H, x->u.select.c);
		gather_expr(H, x->u.select.a);
		gather_expr(H, x->u.select.b);
		return;
	case STIR_EXPR_CALL:
		for (int i = 0; i < x->u.call.n; i++)
			gather_expr(H, x->u.call.args[i]);
		return;
	case STIR_EXPR_CAST:
		gather_expr(H, x->u.cast.a);
		return;
	case STIR_EXPR_SEARCH:
		break;
	default:
		return;
	}
	if (!movable(H, x))
		return;
	for (int i = 0; i < H->n; i++)
		if (same(H, H->cand[i], x))
			return;
	if (H->n == H->cap) {
		int cap = H->cap ? 2 * H->cap : 8;
		const stir_expr **c = realloc(H->cand, (size_t)cap * sizeof(*c));
		if (c)
			H->cand = c;
		stir_var **v = c ? realloc(H->vars, (size_t)cap * sizeof(*v)) : NULL;
		if (!v) {
			H->failed = true;
			return;
		}
		H->vars = v;
		H->cap = cap;
	}
	H->cand[H->n++] = x;
}

static void gather_list(hoister *H, const stir_ptr_vec *list);

/* H, s: gather_expr of every expression of s that the emitter prints. */
static void gather_stmt(hoister *H, const stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_STORE:
		for (int i = 0; i < s->u.store.n; i++)
			gather_expr(H, s->u.store.idx[i]);
		gather_expr(H, s->u.store.value);
		return;
	case STIR_STMT_LET:
		gather_expr(H, s->u.let.value);
		return;
	case STIR_STMT_IF:
		gather_expr(H, s->u.if_.cond);
		gather_list(H, &s->u.if_.then_body);
		gather_list(H, &s->u.if_.else_body);
		return;
	case STIR_STMT_FOR:
		gather_expr(H, s->u.for_.extent);
		gather_list(H, &s->u.for_.body);
		return;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++)
			gather_expr(H, s->u.block.bindings[i]);
		gather_list(H, &s->u.block.body);
		return;
	default:
		return;
	}
}

/* H, list: gather_stmt of each statement. */
static void gather_list(hoister *H, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		gather_stmt(H, stir_stmt_at(list, i));
}

static void mark_list(bool *inner, const stir_ptr_vec *list);

/* inner, s: mark (by slot) every variable s and its children define. */
static void mark_defined(bool *inner, const stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_LET:
		inner[s->u.let.var->slot] = true;
		return;
	case STIR_STMT_IF:
		mark_list(inner, &s->u.if_.then_body);
		mark_list(inner, &s->u.if_.else_body);
		return;
	case STIR_STMT_FOR:
		inner[s->u.for_.var->slot] = true;
		mark_list(inner, &s->u.for_.body);
		return;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++)
			inner[s->u.block.vars[i]->slot] = true;
		mark_list(inner, &s->u.block.body);
		return;
	default:
		return;
	}
}

/* inner, list: mark_defined of each statement. */
static void mark_list(bool *inner, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		mark_defined(inner, stir_stmt_at(list, i));
}

/* H, x: a node like x in the kernel's arena (children shared), or NULL. */
static stir_expr *dup(hoister *H, const stir_expr *x)
{
	stir_expr *c = stir_arena_alloc(stir_kernel_arena(H->k), sizeof(*c));
	if (!c) {
		H->failed = true;
		return NULL;
	}
	*c = *x;
	if (x->kind == STIR_EXPR_CALL) {
		size_t n = (size_t)(x->u.call.n ? x->u.call.n : 1);
		c->u.call.args = stir_arena_alloc(stir_kernel_arena(H->k),
			n * sizeof(*c->u.call.args));
		if (!c->u.call.args) {
			H->failed = true;
			return NULL;
		}
		memcpy(c->u.call.args, x->u.call.args,
			(size_t)x->u.call.n * sizeof(*c->u.call.args));
	}
	return c;
}

/* x, i: the place of child i of x (NULL past the last). */
static stir_expr **child(stir_expr *x, int i)
{
	switch (x->kind) {
	case STIR_EXPR_LOAD:
		return i == 0 ? &x->u.load.idx[0] : NULL;
	case STIR_EXPR_UNARY:
		return i == 0 ? &x->u.unary.a : NULL;
	case STIR_EXPR_BINARY:
		return i == 0 ? &x->u.binary.a : i == 1 ? &x->u.binary.b : NULL;
	case STIR_EXPR_SELECT:
		return i == 0 ? &x->u.select.c : i == 1 ? &x->u.select.a :
			i == 2 ? &x->u.select.b : NULL;
	case STIR_EXPR_CAST:
		return i == 0 ? &x->u.cast.a : NULL;
	case STIR_EXPR_SEARCH:
		return i == 0 ? &x->u.search.lo : i == 1 ? &x->u.search.hi :
			i == 2 ? &x->u.search.x : NULL;
	case STIR_EXPR_CALL:
		return i < x->u.call.n ? &x->u.call.args[i] : NULL;
	default:
		return NULL;
	}
}

static stir_expr *rewrite(hoister *H, stir_expr *x, bool resolve);

/* H, x, resolve: x with its children rewritten (a copy of the node when
 * one changes). */
static stir_expr *rewrite_children(hoister *H, stir_expr *x, bool resolve)
{
	stir_expr *y = x, **c;
	for (int i = 0; (c = child(y, i)) && !H->failed; i++) {
		stir_expr *n = rewrite(H, *c, resolve);
		if (n == *c)
			continue;
		if (y == x && !(y = dup(H, x)))
			return x;
		*child(y, i) = n;
	}
	return y;
}

/* H, x, resolve: with "resolve", x with the block variables defined inside
 * the loop replaced by their bindings; else x with every search equal to
 * a hoisted one replaced by its variable.  A copy where anything
 * changes. */
static stir_expr *rewrite(hoister *H, stir_expr *x, bool resolve)
{
	if (!x || H->failed)
		return x;
	if (resolve && x->kind == STIR_EXPR_VAR && binding_of(H, x->u.var) &&
	    H->inner[x->u.var->slot])
		return rewrite(H, (stir_expr *)binding_of(H, x->u.var), true);
	if (!resolve && x->kind == STIR_EXPR_SEARCH)
		for (int i = 0; i < H->n; i++)
			if (same(H, H->cand[i], x)) {
				stir_expr *v = stir_mk_var(H->k, H->vars[i]);
				if (!v)
					H->failed = true;
				return v ? v : x;
			}
	return rewrite_children(H, x, resolve);
}

static void replace_list(hoister *H, stir_ptr_vec *list);

/* H, x: rewrite, the searches replaced. */
static stir_expr *rewrite_r(hoister *H, stir_expr *x)
{
	return rewrite(H, x, false);
}

/* H, s: rewrite_r of every expression of s the emitter prints. */
static void replace_stmt(hoister *H, stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_STORE:
		for (int i = 0; i < s->u.store.n; i++)
			s->u.store.idx[i] = rewrite_r(H, s->u.store.idx[i]);
		s->u.store.value = rewrite_r(H, s->u.store.value);
		return;
	case STIR_STMT_LET:
		s->u.let.value = rewrite_r(H, s->u.let.value);
		return;
	case STIR_STMT_IF:
		s->u.if_.cond = rewrite_r(H, s->u.if_.cond);
		replace_list(H, &s->u.if_.then_body);
		replace_list(H, &s->u.if_.else_body);
		return;
	case STIR_STMT_FOR:
		s->u.for_.extent = rewrite_r(H, s->u.for_.extent);
		replace_list(H, &s->u.for_.body);
		return;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++)
			s->u.block.bindings[i] = rewrite_r(H, s->u.block.bindings[i]);
		replace_list(H, &s->u.block.body);
		return;
	default:
		return;
	}
}

/* H, list: replace_stmt of each statement. */
static void replace_list(hoister *H, stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		replace_stmt(H, stir_stmt_at(list, i));
}

/* H, list, at: hoist the searches of loop list[at] into lets before it;
 * the number of lets put there. */
static int hoist_loop(hoister *H, stir_ptr_vec *list, int at)
{
	stir_stmt *s = stir_stmt_at(list, at);
	memset(H->inner, 0, H->slots * sizeof(bool));
	mark_defined(H->inner, s);
	H->n = 0;
	gather_stmt(H, s);
	if (H->failed || !H->n)
		return 0;
	stir_stmt **lets = calloc((size_t)H->n, sizeof(*lets));
	if (!lets) {
		H->failed = true;
		return 0;
	}
	for (int i = 0; i < H->n && !H->failed; i++) {
		stir_expr *value = rewrite(H, (stir_expr *)H->cand[i], true);
		const char *name = stir_names_fresh(&H->names, "s");
		lets[i] = name && !H->failed ? stir_stmt_let(H->k, name, value) :
			NULL;
		if (!lets[i]) {
			H->failed = true;
			break;
		}
		lets[i]->loc = H->cand[i]->loc;
		lets[i]->u.let.var->loc = H->cand[i]->loc;
		lets[i]->u.let.hoisted = true;
		H->vars[i] = lets[i]->u.let.var;
	}
	/* the lets go in front of the loop, in order */
	for (int i = 0; i < H->n && !H->failed; i++)
		if (stir_ptr_vec_push(stir_kernel_arena(H->k), list, NULL) < 0)
			H->failed = true;
	if (H->failed) {
		free(lets);
		return 0;
	}
	memmove(&list->v[at + H->n], &list->v[at],
		(size_t)(list->n - H->n - at) * sizeof(list->v[0]));
	for (int i = 0; i < H->n; i++)
		list->v[at + i] = lets[i];
	free(lets);
	replace_stmt(H, s);
	return H->n;
}

static void hoist_list(hoister *H, stir_ptr_vec *list, bool here);

/* H, s: hoist before the loops inside s. */
static void hoist_in(hoister *H, stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_IF:
		hoist_list(H, &s->u.if_.then_body, true);
		hoist_list(H, &s->u.if_.else_body, true);
		return;
	case STIR_STMT_FOR:
		hoist_list(H, &s->u.for_.body, true);
		return;
	case STIR_STMT_BLOCK:
		/* the nests of a horizontal block stand alone */
		hoist_list(H, &s->u.block.body,
			!(s->u.block.flags & STIR_BLOCK_HORIZONTAL));
		return;
	default:
		return;
	}
}

/* H, list, here: hoist before each loop of list (when "here": lets may
 * stand in list) and inside it. */
static void hoist_list(hoister *H, stir_ptr_vec *list, bool here)
{
	for (int i = 0; i < list->n && !H->failed; i++) {
		stir_stmt *s = stir_stmt_at(list, i);
		if (here && s->kind == STIR_STMT_FOR)
			i += hoist_loop(H, list, i);
		hoist_in(H, stir_stmt_at(list, i));
	}
}

static void facts_list(hoister *H, const stir_ptr_vec *list);

/* H, s: the bindings of block variables and the buffers stored into. */
static void facts(hoister *H, const stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_STORE:
		H->stored[s->u.store.buf->index] = true;
		return;
	case STIR_STMT_IF:
		facts_list(H, &s->u.if_.then_body);
		facts_list(H, &s->u.if_.else_body);
		return;
	case STIR_STMT_FOR:
		facts_list(H, &s->u.for_.body);
		return;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++)
			H->binding[s->u.block.vars[i]->slot] = s->u.block.bindings[i];
		facts_list(H, &s->u.block.body);
		return;
	default:
		return;
	}
}

/* H, list: facts of each statement. */
static void facts_list(hoister *H, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		facts(H, stir_stmt_at(list, i));
}

/* k: see passes.h. */
int stir_kernel_hoist_invariants(stir_kernel *k)
{
	if (!k)
		return -1;
	stir_ctx *ctx = stir_kernel_ctx(k);
	if (k->stage != STIR_STAGE_3) {
		stir_error(ctx, k->loc, "hoist_invariants: kernel '%s' is at stage "
			"%d; the pass takes stage III", k->name, (int)k->stage);
		return -1;
	}
	if (stir_kernel_verify(k) < 0)
		return -1;
	hoister H = { .k = k, .ctx = ctx };
	/* the slots the pass adds are past n_vars: never looked up */
	H.slots = (size_t)k->n_vars + 1;
	H.binding = calloc(H.slots, sizeof(*H.binding));
	H.inner = calloc(H.slots, sizeof(*H.inner));
	H.stored = calloc((size_t)k->buffers.n + 1, sizeof(*H.stored));
	int rc = -1;
	if (!H.binding || !H.inner || !H.stored ||
	    stir_names_init(&H.names, k) < 0)
		goto out;
	facts_list(&H, &k->body);
	hoist_list(&H, &k->body, false);
	rc = H.failed ? -1 : 0;
	stir_names_release(&H.names);
out:
	if (rc < 0)
		stir_error_oom(ctx);
	free(H.binding);
	free(H.inner);
	free(H.stored);
	free(H.cand);
	free(H.vars);
	return rc < 0 ? -1 : stir_kernel_verify(k);
}
