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
 * A let defined inside the loop is looked at through its value as it
 * stands (a let is computed once, from values fixed where it stands):
 * once the search in "let vi = upper_bound(J_indptr, ..) - 1" has moved,
 * vi is "s - 1" and a search of vi (the relation of the row, in a
 * three-level fuse) may move as well, after which a let that only the
 * moved search used is dead and removed.  The pass hoists before a loop
 * until nothing more moves there, which also keeps a second run from
 * moving anything.
 * The loops of the kernel's top level (launches) and the nests of a
 * horizontal block are not hoisted before: a let cannot stand there.
 * Reads of warp buffers, which are also computed once before a loop,
 * are moved by the pass hoist_warp_reads (at the end of this file), which
 * asks the GPU verifier's walk which of them may move (verify/hoist.c):
 * whether the lanes run a loop together is a fact of the thread mapping.
 *
 * Requires: a verified stage III kernel.
 * Keeps: what the kernel computes.
 * Breaks: nothing. */
#include <stdlib.h>
#include <string.h>
#include <stir/passes.h>
#include "passes/passes.h"
#include "verify/gpu.h"
#include "ir/util.h"
#include "ir/visit.h"

/* loop, x, user: may warp-buffer read x (inside loop) be computed before
 * loop?  What hoist_warp_reads asks of the verifier's walk. */
typedef bool (*hoist_select)(const stir_stmt *loop, const stir_expr *x,
	void *user);

typedef struct hoister {
	stir_kernel *k;
	stir_ctx *ctx;
	const stir_expr **binding; /* per slot: a block variable's binding */
	const stir_stmt **let_of;  /* per slot: a let variable's let (its
	                              value as the hoisting left it) */
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
	/* hoist_warp_reads: the warp-buffer reads that "select" says may
	 * move before a loop are the candidates instead of the searches */
	hoist_select select;
	void *select_user;
	const stir_stmt *loop;     /* the loop looked at */
} hoister;

/* H, v: the binding of block variable v, or NULL. */
static const stir_expr *binding_of(const hoister *H, const stir_var *v)
{
	return v->kind == STIR_VAR_BLOCK && (size_t)v->slot < H->slots ?
		H->binding[v->slot] : NULL;
}

/* H, v: the value of let variable v as it stands now, when searches are
 * hoisted (not warp-buffer reads), or NULL: a let inside a loop whose
 * value is a search hoisted before an outer loop (the row of a fused
 * position, "vi = stir_s0 - 1") lets a search of it move too (the
 * relation of that row in a three-level fuse). */
static const stir_expr *let_value(const hoister *H, const stir_var *v)
{
	return !H->select && v->kind == STIR_VAR_LET &&
		(size_t)v->slot < H->slots && H->let_of[v->slot] ?
		H->let_of[v->slot]->u.let.value : NULL;
}

/* v, user: the binding of block variable v (user: the hoister), or NULL:
 * the equality's expand hook. */
static const stir_expr *binding_hook(const stir_var *v, const void *user)
{
	return binding_of(user, v);
}

/* H, a, b: structural equality (ir/equal.c), block variables seen
 * through their bindings; NULL equals nothing. */
static bool same(const hoister *H, const stir_expr *a, const stir_expr *b)
{
	stir_eq eq = { STIR_EQ_NULL_UNEQUAL, binding_hook, NULL, H };
	return stir_expr_equal(&eq, a, b);
}

static bool safe_value(const hoister *H, const stir_expr *x);

/* slot, user: stop the walk at a node that may not be evaluated
 * anywhere (user: the hoister): a load, a search, a float, a division or
 * remainder by anything but a non-zero literal; a block variable is
 * looked at through its binding. */
static stir_visit_step unsafe_node(stir_expr **slot, void *user)
{
	const hoister *H = user;
	const stir_expr *x = *slot;
	if (x->kind == STIR_EXPR_VAR) {
		const stir_var *v = x->u.var;
		const stir_expr *b = binding_of(H, v);
		if (!b && let_value(H, v) && H->inner[v->slot])
			b = let_value(H, v);   /* a let inside: by its value */
		return b && !safe_value(H, b) ? STIR_VISIT_STOP : STIR_VISIT_GO;
	}
	return stir_expr_node_is_safe(x) ? STIR_VISIT_GO : STIR_VISIT_STOP;
}

/* H, x: whether x can be evaluated anywhere: no loads, no searches, no
 * division or remainder by anything but a non-zero literal (block
 * variables through their bindings). */
static bool safe_value(const hoister *H, const stir_expr *x)
{
	stir_visitor v = { NULL, NULL, unsafe_node, NULL, 0, (void *)H };
	stir_expr *slot = (stir_expr *)x;
	return !stir_visit_expr(&v, &slot);
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

static bool uses_inner(const hoister *H, const stir_expr *x);

/* slot, user: stop the walk at a variable defined inside the loop (user:
 * the hoister); a block variable defined there is looked at through its
 * binding. */
static stir_visit_step inner_var(stir_expr **slot, void *user)
{
	const hoister *H = user;
	const stir_expr *x = *slot;
	if (x->kind != STIR_EXPR_VAR || (size_t)x->u.var->slot >= H->slots ||
	    !H->inner[x->u.var->slot])
		return STIR_VISIT_GO;
	const stir_expr *b = binding_of(H, x->u.var);
	if (!b)
		b = let_value(H, x->u.var);
	return !b || uses_inner(H, b) ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* H, x: whether x uses a variable defined inside the loop (block
 * variables through their bindings). */
static bool uses_inner(const hoister *H, const stir_expr *x)
{
	stir_visitor v = { NULL, NULL, inner_var, NULL, 0, (void *)H };
	stir_expr *slot = (stir_expr *)x;
	return stir_visit_expr(&v, &slot);
}

/* H, x: whether search x (a warp-buffer read for hoist_warp_reads) may
 * be computed before the loop. */
static bool movable(const hoister *H, const stir_expr *x)
{
	if (H->select)
		return H->select(H->loop, x, H->select_user);
	const stir_buffer *b = x->u.search.buf;
	return b->scope == STIR_SCOPE_GLOBAL && !H->stored[b->index] &&
		whole_range(H, x) && safe_value(H, x->u.search.x) &&
		!uses_inner(H, x->u.search.x);
}

/* H, x: add search x to the candidates when it is movable and not held
 * yet. */
static void gather(hoister *H, const stir_expr *x)
{
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

/* x: whether x is a read of a warp buffer. */
static bool is_warp_read(const stir_expr *x)
{
	return x->kind == STIR_EXPR_LOAD &&
		x->u.load.buf->scope == STIR_SCOPE_WARP;
}

/* slot, user: gather the search in *slot (user: the hoister).  A search
 * is looked at as a whole, not inside: one that stays keeps its inner
 * ones where they are, unless another place moves an equal one. */
static stir_visit_step gather_search(stir_expr **slot, void *user)
{
	hoister *H = user;
	if (H->failed)
		return STIR_VISIT_STOP;
	if (H->select && is_warp_read(*slot)) {
		gather(H, *slot);
		return STIR_VISIT_SKIP;
	}
	if ((*slot)->kind != STIR_EXPR_SEARCH)
		return STIR_VISIT_GO;
	if (!H->select)
		gather(H, *slot);
	return STIR_VISIT_SKIP;
}

/* s, user: mark (by slot, in the hoister's "inner") the variables s
 * binds. */
static stir_visit_step mark_defined(stir_stmt *s, void *user)
{
	hoister *H = user;
	int n;
	stir_var **vars = stir_stmt_binds(s, &n, NULL);
	for (int i = 0; i < n; i++)
		H->inner[vars[i]->slot] = true;
	return STIR_VISIT_GO;
}

static stir_expr *rewrite(hoister *H, stir_expr *x, bool resolve);

/* H, x, resolve: x with its children rewritten (a copy of the node when
 * one changes). */
static stir_expr *rewrite_children(hoister *H, stir_expr *x, bool resolve)
{
	stir_expr *y = x, **c;
	for (int i = 0; (c = stir_expr_child(y, i)) && !H->failed; i++) {
		stir_expr *n = rewrite(H, *c, resolve);
		if (n == *c)
			continue;
		if (y == x && !(y = stir_expr_copy_node(H->k, x))) {
			H->failed = true;
			return x;
		}
		*stir_expr_child(y, i) = n;
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
	if (resolve && x->kind == STIR_EXPR_VAR && let_value(H, x->u.var) &&
	    H->inner[x->u.var->slot])
		return rewrite(H, (stir_expr *)let_value(H, x->u.var), true);
	if (!resolve && (H->select ? is_warp_read(x) :
	    x->kind == STIR_EXPR_SEARCH))
		for (int i = 0; i < H->n; i++)
			if (same(H, H->cand[i], x)) {
				stir_expr *v = stir_mk_var(H->k, H->vars[i]);
				if (!v)
					H->failed = true;
				return v ? v : x;
			}
	return rewrite_children(H, x, resolve);
}

/* slot, user: the expression in *slot with every search equal to a
 * hoisted one replaced by its variable (user: the hoister). */
static stir_visit_step replace_searches(stir_expr **slot, void *user)
{
	*slot = rewrite(user, *slot, false);
	return STIR_VISIT_SKIP;
}

/* H, list, at: hoist the searches of loop list[at] into lets before it;
 * the number of lets put there. */
static int hoist_loop(hoister *H, stir_ptr_vec *list, int at)
{
	stir_stmt *s = stir_stmt_at(list, at);
	H->loop = s;
	memset(H->inner, 0, H->slots * sizeof(bool));
	stir_visitor marker = { mark_defined, NULL, NULL, NULL, 0, H };
	stir_visit_stmt(&marker, s);
	H->n = 0;
	stir_visitor gatherer = { NULL, NULL, gather_search, NULL, 0, H };
	stir_visit_stmt(&gatherer, s);
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
	stir_visitor replacer = { NULL, NULL, replace_searches, NULL, 0, H };
	stir_visit_stmt(&replacer, s);
	return H->n;
}

static void hoist_list(hoister *H, stir_ptr_vec *list, bool here);

/* H, s: hoist before the loops inside s. */
static void hoist_in(hoister *H, stir_stmt *s)
{
	stir_ptr_vec *lists[2];
	int n = stir_stmt_lists(s, lists);
	/* the nests of a horizontal block stand alone */
	bool here = s->kind != STIR_STMT_BLOCK ||
		!(s->u.block.flags & STIR_BLOCK_HORIZONTAL);
	for (int i = 0; i < n; i++)
		hoist_list(H, lists[i], here);
}

/* H, list, here: hoist before each loop of list (when "here": lets may
 * stand in list) and inside it. */
static void hoist_list(hoister *H, stir_ptr_vec *list, bool here)
{
	for (int i = 0; i < list->n && !H->failed; i++) {
		stir_stmt *s = stir_stmt_at(list, i);
		/* again until nothing moves: a search of a let inside the
		 * loop moves only once the search in the let's value has */
		for (int n; here && s->kind == STIR_STMT_FOR &&
		     (n = hoist_loop(H, list, i)) > 0; )
			i += n;
		hoist_in(H, stir_stmt_at(list, i));
	}
}

/* s, user: record (in the hoister) the bindings of the block variables
 * of s and the buffer s stores into. */
static stir_visit_step facts(stir_stmt *s, void *user)
{
	hoister *H = user;
	if (s->kind == STIR_STMT_STORE)
		H->stored[s->u.store.buf->index] = true;
	else if (s->kind == STIR_STMT_LET &&
	    (size_t)s->u.let.var->slot < H->slots)
		H->let_of[s->u.let.var->slot] = s;
	else if (s->kind == STIR_STMT_BLOCK)
		for (int i = 0; i < s->u.block.n_vars; i++)
			H->binding[s->u.block.vars[i]->slot] =
				s->u.block.bindings[i];
	return STIR_VISIT_GO;
}

/* k, select, user, pass: hoist_invariants, or (select set) the hoisting
 * of the warp-buffer reads that select allows instead of searches: before
 * each loop, outermost first, each such read (block variables defined
 * inside the loop replaced by their bindings) becomes a "hoisted let" in
 * front of it, and the equal reads inside the loop its variable; "pass"
 * names it in diagnostics. */
static int hoist(stir_kernel *k, hoist_select select, void *user,
	const char *pass)
{
	if (!k)
		return -1;
	stir_ctx *ctx = stir_kernel_ctx(k);
	if (k->stage != STIR_STAGE_3) {
		stir_error(ctx, k->loc, "%s: kernel '%s' is at stage %d; the pass "
			"takes stage III", pass, k->name, (int)k->stage);
		return -1;
	}
	if (stir_kernel_verify(k) < 0)
		return -1;
	hoister H = { .k = k, .ctx = ctx, .select = select,
		.select_user = user };
	/* the slots the pass adds are past n_vars: never looked up */
	H.slots = (size_t)k->n_vars + 1;
	H.binding = calloc(H.slots, sizeof(*H.binding));
	H.inner = calloc(H.slots, sizeof(*H.inner));
	H.let_of = calloc(H.slots, sizeof(*H.let_of));
	H.stored = calloc((size_t)k->buffers.n + 1, sizeof(*H.stored));
	int rc = -1;
	if (!H.binding || !H.inner || !H.stored || !H.let_of ||
	    stir_names_init(&H.names, k) < 0)
		goto out;
	stir_visitor fact_finder = { facts, NULL, NULL, NULL, 0, &H };
	stir_visit_list(&fact_finder, &k->body);
	hoist_list(&H, &k->body, false);
	/* "let vi = s - 1" that only the moved search used goes, as does a
	 * let that a cache's copy took every use of (an edge's row read from
	 * a COO array, then only by the copy): an unused constant is an
	 * NVRTC warning */
	if (!H.failed && stir_remove_dead_lets(k) < 0)
		H.failed = true;
	rc = H.failed ? -1 : 0;
	stir_names_release(&H.names);
out:
	if (rc < 0)
		stir_error_oom(ctx);
	free(H.binding);
	free(H.inner);
	free(H.let_of);
	free(H.stored);
	free(H.cand);
	free(H.vars);
	return rc < 0 ? -1 : stir_kernel_verify(k);
}

/* k: see passes.h. */
int stir_hoist_invariants(stir_kernel *k)
{
	return hoist(k, NULL, NULL, "hoist_invariants");
}

/* ---- hoist_warp_reads ---------------------------------------------------- */

/* loop, x, user: the hoist_select of hoist_warp_reads (user: the
 * cuda_hoists): did the walk compute read x before loop "loop"? */
static bool walked_before(const stir_stmt *loop, const stir_expr *x,
	void *user)
{
	const cuda_hoists *h = user;
	for (int i = 0; i < h->n; i++)
		if (h->v[i].loop == loop->u.for_.var && h->v[i].x == x)
			return true;
	return false;
}

/* k: see passes.h. */
int stir_hoist_warp_reads(stir_kernel *k)
{
	if (!k)
		return -1;
	if (k->stage != STIR_STAGE_3)
		return hoist(k, walked_before, NULL, "hoist_warp_reads");
	if (stir_kernel_verify(k) < 0)
		return -1;
	cuda_places pl = { 0 };
	cuda_hoists h = { 0 };
	int r = cuda_walk_hoists(k, &pl, &h);
	if (r == 0 && h.n)
		r = hoist(k, walked_before, &h, "hoist_warp_reads");
	free(pl.v);
	free(h.v);
	return r;
}
