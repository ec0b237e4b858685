/* The verifier, statements (ir/verify.c says how the verifier is laid
 * out): stores, lets and ifs (rule 6), iterations and their axis groups
 * (rule 5), and the loops and blocks of stages II and III. */
#include <string.h>
#include "ir/intrinsics.h"
#include "ir/verify.h"

/* v, s: a tensorized loop: a stage III loop heading a nest that computes
 * its intrinsic (ir/intrinsics.h). */
static void check_tensorized(verifier *v, const stir_stmt *s)
{
	const stir_intrinsic *in = stir_intrinsic_find(s->u.for_.intrinsic);
	const char *name = s->u.for_.var->name;
	stir_mma_match m;
	char why[400];
	stir_loc where;
	if (!in)
		stir_error(v->ctx, s->loc, "loop '%s' is tensorized with an unknown "
			"intrinsic", name);
	else if (v->k->stage != STIR_STAGE_3)
		stir_error(v->ctx, s->loc, "loop '%s' is tensorized at stage %d; "
			"tensorize applies at stage III", name, (int)v->k->stage);
	else if (!stir_tensorize_match(s, in, &m, why, sizeof(why), &where))
		stir_error(v->ctx, where, "loop '%s' is tensorized with %s, but "
			"its nest does not compute it: %s", name, in->name, why);
}

/* ---- statements (rule 6) ---- */

static void check_iter(verifier *v, scope *sc, const stir_stmt *s);
static void check_for(verifier *v, scope *sc, const stir_stmt *s);
static void check_block(verifier *v, scope *sc, const stir_stmt *s);

/* op: whether an atomic block may hold a store with op. */
static bool additive(stir_store_op op)
{
	return op == STIR_STORE_ADD || op == STIR_STORE_SUB;
}

/* v, sc, s: b[idx..] op= value: the value must have the buffer's type, or
 * be an integer no wider than an integer buffer. */
static void check_store(verifier *v, scope *sc, const stir_stmt *s)
{
	const stir_buffer *b = s->u.store.buf;
	const stir_expr *val = s->u.store.value;
	verify_check_access(v, sc, s->loc, b, s->u.store.n, s->u.store.idx);
	stir_dtype t = verify_check_expr(v, sc, val), bt = b->dtype;
	const char *op = spelled(stir_store_op_text(s->u.store.op));
	if (*op == '?')
		stir_error(v->ctx, s->loc, "invalid store operator");
	else if (sc->atomic && !additive(s->u.store.op))
		stir_error(v->ctx, s->loc, "atomic block '%s' may only hold += "
			"and -= stores", sc->atomic->u.block.name);
	else if (s->u.store.op != STIR_STORE_ASSIGN && bt == STIR_BOOL)
		stir_error(v->ctx, s->loc, "'%s' on '%s' of type bool", op,
			b->name);
	if (t == STIR_DTYPE_NONE || t == bt ||
	    (stir_dtype_is_int(t) && stir_dtype_is_int(bt) &&
	     stir_int_rank(t) <= stir_int_rank(bt)))
		return;
	if (val->flexible && stir_dtype_is_float(t) && stir_dtype_is_int(bt))
		stir_error(v->ctx, val->loc,
			"float literal where an integer is expected");
	else
		stir_error(v->ctx, s->loc, "cannot store %s into '%s' of type %s%s",
			stir_dtype_get_name(t), b->name, stir_dtype_get_name(bt),
			is_num(t) && is_num(bt) ? " without a cast" : "");
}

/* v, var, t, word, what: a variable ("word" says which kind) takes its
 * value from an expression ("what") of type t, which must be its type. */
static void check_var_type(verifier *v, const stir_var *var, stir_dtype t,
	const char *word, const char *what)
{
	if (t != STIR_DTYPE_NONE && t != var->dtype)
		stir_error(v->ctx, var->loc, "%s '%s' of type %s has %s of type %s",
			word, var->name, stir_dtype_get_name(var->dtype), what,
			stir_dtype_get_name(t));
}

/* v, sc, s: let var = value; var comes into scope after the value. */
static void check_let(verifier *v, scope *sc, const stir_stmt *s)
{
	stir_var *var = s->u.let.var;
	const stir_expr *x = s->u.let.value;
	check_var_type(v, var, verify_check_expr(v, sc, x), "let",
		"a value");
	/* what the emitter prints as a constant computed once */
	if (s->u.let.hoisted && v->k->stage != STIR_STAGE_3)
		verify_report_stage(v, s->loc, "hoisted let", var->name);
	else if (s->u.let.hoisted && x && x->kind != STIR_EXPR_SEARCH &&
	    !(x->kind == STIR_EXPR_LOAD &&
	      x->u.load.buf->scope == STIR_SCOPE_WARP))
		stir_error(v->ctx, s->loc, "hoisted let '%s': its value must be a "
			"search or a read of a warp buffer", var->name);
	verify_scope_push_var(v, sc, var);
}

/* v, sc, s: if (cond) { .. } else { .. }. */
static void check_if(verifier *v, scope *sc, const stir_stmt *s)
{
	verify_check_cond(v, sc, s->u.if_.cond, "condition");
	verify_check_stmts(v, sc, &s->u.if_.then_body);
	verify_check_stmts(v, sc, &s->u.if_.else_body);
}

/* v, sc, s, more: whether the body of statement s, "more" blocks inside
 * the blocks open around it, stays within the nesting the text of the
 * kernel's stage may have (ir/nodes.h); otherwise
 * an error at s (its text could not be read back).  Lowering adds levels
 * (an iteration becomes loops and a block), so a stage I kernel near the
 * bound is refused here by the pass that would deepen it. */
static bool check_depth(verifier *v, const scope *sc, const stir_stmt *s,
	int more)
{
	int max = v->k->stage == STIR_STAGE_1 ? STIR_MAX_BLOCK_DEPTH :
		STIR_MAX_LOWERED_BLOCK_DEPTH;
	if (sc->depth + more <= max)
		return true;
	/* loops and blocks made by lowering point at their iterator */
	stir_loc loc = s->loc;
	if (loc.line <= 0 && s->kind == STIR_STMT_FOR)
		loc = s->u.for_.var->loc;
	if (loc.line <= 0)
		loc = stir_stmt_first_loc(s);
	stir_error(v->ctx, loc, "statements nested too deeply: this one's "
		"body would be at level %d of the kernel's text, more than %d",
		sc->depth + more, max);
	return false;
}

/* v, sc, s: one statement of the kernel; one that contains itself, or
 * belongs to another kernel, is reported and not walked. */
static void check_stmt(verifier *v, scope *sc, const stir_stmt *s)
{
	for (int i = 0; i < sc->n_open; i++)
		if (sc->open[i] == s) {
			stir_error(v->ctx, s->loc, "statement contains itself");
			return;
		}
	if (s->kernel != v->k) {
		stir_error(v->ctx, s->loc, "statement of kernel '%s' in kernel '%s'",
			s->kernel->name, v->k->name);
		return;
	}
	if (s->kind != STIR_STMT_STORE && s->kind != STIR_STMT_LET &&
	    !check_depth(v, sc, s, 1))
		return;
	if (verify_grow(v, (void **)&sc->open, &sc->cap_open, sc->n_open + 1,
		 sizeof(*sc->open)) < 0)
		return;
	sc->open[sc->n_open++] = s;
	sc->depth++;
	switch (s->kind) {
	case STIR_STMT_STORE:
		check_store(v, sc, s);
		break;
	case STIR_STMT_LET:
		check_let(v, sc, s);
		break;
	case STIR_STMT_IF:
		check_if(v, sc, s);
		break;
	case STIR_STMT_ITER:
		if (v->k->stage != STIR_STAGE_1)
			verify_report_stage(v, s->loc, "iteration",
				s->u.iter.name);
		else
			check_iter(v, sc, s);
		break;
	case STIR_STMT_FOR:
		if (v->k->stage == STIR_STAGE_1)
			verify_report_stage(v, s->loc, "loop",
				s->u.for_.var->name);
		else
			check_for(v, sc, s);
		break;
	case STIR_STMT_BLOCK:
		if (v->k->stage == STIR_STAGE_1)
			verify_report_stage(v, s->loc, "block", s->u.block.name);
		else
			check_block(v, sc, s);
		break;
	case STIR_STMT_BARRIER:
		if (v->k->stage != STIR_STAGE_3)
			verify_report_stage(v, s->loc, "barrier", NULL);
		break;
	default:
		stir_error(v->ctx, s->loc, "invalid statement");
		break;
	}
	sc->depth--;
	sc->n_open--;
}

/* v, sc, list: a statement list; the lets it binds end with it. */
void verify_check_stmts(verifier *v, scope *sc, const stir_ptr_vec *list)
{
	int n_vars = sc->n_vars;
	for (int i = 0; i < list->n && !v->oom; i++)
		check_stmt(v, sc, stir_stmt_at(list, i));
	verify_scope_pop_vars(sc, n_vars);
}

/* ---- iterations (rule 5) ---- */

/* s: an iteration; the number of member axes (one per fuse member). */
static int iter_n_members(const stir_stmt *s)
{
	int n = 0;
	for (int g = 0; g < s->u.iter.n_groups; g++)
		if (s->u.iter.groups[g].n_axes > 0)
			n += s->u.iter.groups[g].n_axes;
	return n;
}

/* v, s, n: the letters of iteration s, which has n members: one 'S' or
 * 'R' per member.  Whether they are usable for the init rule. */
static bool check_iter_letters(verifier *v, const stir_stmt *s, int n)
{
	const char *kinds = s->u.iter.kinds;
	int len = (int)strlen(kinds);
	bool ok = true;
	if (len != n) {
		stir_error(v->ctx, s->u.iter.kinds_loc,
			"iteration '%s' has %d %s but %d %s in \"%s\"",
			s->u.iter.name, n, plural(n, "axis", "axes"), len,
			plural(len, "letter", "letters"), kinds);
		ok = false;
	}
	for (int i = 0; i < len; i++)
		if (kinds[i] != 'S' && kinds[i] != 'R') {
			stir_error(v->ctx, s->u.iter.kinds_loc,
				"invalid letter '%c' in \"%s\": expected 'S' or 'R'",
				kinds[i], kinds);
			return false;
		}
	return ok;
}

/* v, sc, s, a, parent, later: member "a" of iteration s is iterated under
 * "parent", which must be iterated already: by an enclosing iteration or
 * an earlier member (both in sc->axes).  "later" tells whether the parent
 * comes later in s's own list. */
static void check_member_parent(verifier *v, const scope *sc,
	const stir_stmt *s, const stir_axis *a, const stir_axis *parent,
	bool later)
{
	if (!parent || verify_scope_find_axis(sc, parent))
		return;
	if (later)
		stir_error(v->ctx, s->loc, "axis '%s' is iterated before its "
			"parent '%s'", a->name, parent->name);
	else
		stir_error(v->ctx, s->loc, "axis '%s' is iterated without its "
			"parent '%s'", a->name, parent->name);
}

/* s, g, j, p: whether axis p is a member of iteration s after member j of
 * group g. */
static bool member_later(const stir_stmt *s, int g, int j, const stir_axis *p)
{
	for (; g < s->u.iter.n_groups; g++, j = -1) {
		const stir_iter_group *gr = &s->u.iter.groups[g];
		for (int i = j + 1; i < gr->n_axes; i++)
			if (gr->axes[i] == p)
				return true;
	}
	return false;
}

/* v, sc, s, g, j, base: member j of group g of iteration s, an axis of
 * the kernel; the members before it are sc->axes[base ..].  Returns the
 * axis it is iterated under (see iterated.parent). */
static stir_axis *check_member(verifier *v, const scope *sc,
	const stir_stmt *s, int g, int j, int base)
{
	const stir_iter_group *gr = &s->u.iter.groups[g];
	stir_axis *a = gr->axes[j];
	const char *name = s->u.iter.name;
	for (int i = base; i < sc->n_axes; i++)
		if (sc->axes[i].axis == a) {
			stir_error(v->ctx, s->loc, "axis '%s' is listed twice in "
				"iteration '%s'", a->name, name);
			break;
		}
	if (gr->kind == STIR_GROUP_FUSE && j > 0) {
		if (a->parent != gr->axes[j - 1])
			stir_error(v->ctx, s->loc, "fuse is not a parent chain: "
				"'%s' is not the parent of '%s'",
				gr->axes[j - 1]->name, a->name);
		return gr->axes[j - 1];
	}
	if (gr->kind == STIR_GROUP_ATTACH && j == 0) {
		stir_axis *p = gr->attach_parent;
		if (a->kind == STIR_DENSE_FIXED)
			stir_error(v->ctx, s->loc,
				"cannot attach dense_fixed axis '%s'", a->name);
		if (!p)
			stir_error(v->ctx, s->loc, "attach of '%s' has no new "
				"parent", a->name);
		else if (!axis_in_kernel(v->k, p))
			stir_error(v->ctx, s->loc, "attach parent '%s' belongs "
				"to another kernel", p->name);
		else if (!verify_scope_find_axis(sc, p))
			stir_error(v->ctx, s->loc, "attach parent '%s' of '%s' is "
				"not iterated before it", p->name, a->name);
		return p;
	}
	check_member_parent(v, sc, s, a, a->parent,
		member_later(s, g, j, a->parent));
	return a->parent;
}

/* v, sc, s, letters_ok: the axis list of iteration s, each member checked
 * and pushed on sc->axes with its letter (when the letters are valid). */
static void check_iter_groups(verifier *v, scope *sc, const stir_stmt *s,
	bool letters_ok)
{
	int base = sc->n_axes, m = 0;
	for (int g = 0; g < s->u.iter.n_groups; g++) {
		const stir_iter_group *gr = &s->u.iter.groups[g];
		if (gr->kind != STIR_GROUP_AXIS && gr->kind != STIR_GROUP_FUSE &&
		    gr->kind != STIR_GROUP_ATTACH)
			stir_error(v->ctx, s->loc, "invalid axis group in "
				"iteration '%s'", s->u.iter.name);
		else if (gr->kind == STIR_GROUP_AXIS && gr->n_axes != 1)
			stir_error(v->ctx, s->loc, "invalid axis group in "
				"iteration '%s'", s->u.iter.name);
		else if (gr->kind == STIR_GROUP_FUSE && gr->n_axes < 2)
			stir_error(v->ctx, s->loc, "fuse needs at least two axes");
		else if (gr->coo && gr->kind != STIR_GROUP_FUSE)
			stir_error(v->ctx, s->loc, "coo is an option of fuse only");
		for (int j = 1; gr->coo && j < gr->n_axes; j++)
			if (gr->axes[j]->kind != STIR_DENSE_VARIABLE &&
			    gr->axes[j]->kind != STIR_SPARSE_VARIABLE)
				stir_error(v->ctx, s->loc, "fuse with coo stores the "
					"rows that searches of indptr arrays find, but axis "
					"'%s' is %s (its rows come by division): fuse it "
					"without coo", gr->axes[j]->name,
					axis_kind_name(gr->axes[j]->kind));
		else if (gr->kind == STIR_GROUP_ATTACH && gr->n_axes != 1)
			stir_error(v->ctx, s->loc,
				"attach takes one axis and its new parent");
		for (int j = 0; j < gr->n_axes; j++, m++) {
			stir_axis *a = gr->axes[j], *parent = NULL;
			if (!axis_in_kernel(v->k, a))
				stir_error(v->ctx, s->loc, "axis '%s' of iteration "
					"'%s' belongs to another kernel", a->name,
					s->u.iter.name);
			else
				parent = check_member(v, sc, s, g, j, base);
			if (verify_grow(v, (void **)&sc->axes, &sc->cap_axes,
				 sc->n_axes + 1, sizeof(*sc->axes)) < 0)
				return;
			sc->axes[sc->n_axes++] = (iterated){ a, parent, s,
				letters_ok ? s->u.iter.kinds[m] : 0 };
		}
	}
}

/* v, sc, s, base: iteration s has an init and its members are
 * sc->axes[base ..]; no spatial member may be iterated under a reduction
 * member, directly or through other members (init runs once per spatial
 * point, before the reduction starts).  Whether none is. */
static bool check_init_deps(verifier *v, const scope *sc, const stir_stmt *s,
	int base)
{
	for (int m = base; m < sc->n_axes; m++) {
		if (sc->axes[m].letter != 'S')
			continue;
		/* the walk goes to strictly earlier members, so it ends */
		for (int cur = m;;) {
			int q = cur - 1;
			while (q >= base && sc->axes[q].axis != sc->axes[cur].parent)
				q--;
			if (q < base || !sc->axes[cur].parent)
				break;
			if (sc->axes[q].letter == 'R') {
				stir_error(v->ctx, s->loc, "init is not allowed: "
					"spatial axis '%s' depends on reduction "
					"axis '%s'", sc->axes[m].axis->name,
					sc->axes[q].axis->name);
				return false;
			}
			cur = q;
		}
	}
	return true;
}

/* sc, s, on: mark the reduction iterators of s (whose letters are valid)
 * as forbidden ("on": its init is being walked) or allowed again. */
static void mark_reduction_iters(scope *sc, const stir_stmt *s, bool on)
{
	int len = (int)strlen(s->u.iter.kinds);
	for (int i = 0; i < s->u.iter.n_vars && i < len; i++) {
		stir_var *var = s->u.iter.vars[i];
		if (s->u.iter.kinds[i] == 'R' && slot_ok(sc, var))
			sc->in_init[var->slot] = on;
	}
}

/* v, sc, s: an iteration: its name, letters, iterators and axis list, then
 * its init and body with its iterators and axes in scope. */
static void check_iter(verifier *v, scope *sc, const stir_stmt *s)
{
	int n_vars = sc->n_vars, n_axes = sc->n_axes;
	int n = iter_n_members(s);
	verify_check_stmt_name(v, s);
	if (n == 0)
		stir_error(v->ctx, s->loc, "iteration '%s' has no axes",
			s->u.iter.name);
	bool letters_ok = check_iter_letters(v, s, n);
	if (s->u.iter.n_vars != n)
		stir_error(v->ctx, s->loc, "iteration '%s' has %d %s but %d %s",
			s->u.iter.name, n, plural(n, "axis", "axes"),
			s->u.iter.n_vars, plural(s->u.iter.n_vars, "iterator",
				"iterators"));
	check_iter_groups(v, sc, s, letters_ok);
	/* an init rejected for its dependences would also use reduction
	 * iterators; one error says enough */
	bool mark = letters_ok;
	if (s->u.iter.init.n > 0 && !check_init_deps(v, sc, s, n_axes))
		mark = false;
	for (int i = 0; i < s->u.iter.n_vars; i++)
		verify_scope_push_var(v, sc, s->u.iter.vars[i]);
	if (mark)
		mark_reduction_iters(sc, s, true);
	/* the init is a block of its own inside the iteration's body */
	if (s->u.iter.init.n > 0 && check_depth(v, sc, s, 1)) {
		sc->depth++;
		verify_check_stmts(v, sc, &s->u.iter.init);
		sc->depth--;
	}
	if (mark)
		mark_reduction_iters(sc, s, false);
	verify_check_stmts(v, sc, &s->u.iter.body);
	verify_scope_pop_vars(sc, n_vars);
	sc->n_axes = n_axes;
}

/* ---- loops and blocks (stages II and III) ---- */

/* v, sc, s, saved: the loop s, bound to a GPU index, must not be nested
 * in a loop bound to the same one: each thread (or block) has one value of
 * each index, so the inner loop would not run over its extent (the CUDA
 * emitter refused it; "check" accepted it).  Returns the scope's entry
 * for that index, now s, whose previous value goes to *saved. */
static const stir_stmt **check_thread(verifier *v, scope *sc,
	const stir_stmt *s, const stir_stmt **saved)
{
	static const char *const names[] = {
		[STIR_BLOCK_X] = "blockIdx.x", [STIR_BLOCK_Y] = "blockIdx.y",
		[STIR_BLOCK_Z] = "blockIdx.z", [STIR_THREAD_X] = "threadIdx.x",
		[STIR_THREAD_Y] = "threadIdx.y", [STIR_THREAD_Z] = "threadIdx.z",
	};
	stir_thread d = s->u.for_.thread;
	const stir_stmt *o = sc->thread_loop[d];
	if (o) {
		stir_diag *diag = stir_error(v->ctx, s->loc, "loop '%s' is bound "
			"to %s inside loop '%s', bound to the same index",
			s->u.for_.var->name, names[d], o->u.for_.var->name);
		stir_diag_add_note(diag, o->loc, "loop '%s' is bound to %s here",
			o->u.for_.var->name, names[d]);
	}
	*saved = o;
	sc->thread_loop[d] = s;
	return &sc->thread_loop[d];
}

/* v, sc, s: for var in [0, extent) { body }: an integer extent of the
 * variable's type, checked outside the loop; the variable holds in the
 * body. */
static void check_for(verifier *v, scope *sc, const stir_stmt *s)
{
	stir_var *var = s->u.for_.var;
	stir_dtype t = verify_check_int(v, sc, s->u.for_.extent,
		"extent of loop", 0, var->name);
	if (var->kind != STIR_VAR_LOOP)
		stir_error(v->ctx, var->loc, "variable '%s' of a loop is not a "
			"loop variable", var->name);
	else
		check_var_type(v, var, t, "loop variable", "an extent");
	stir_loop_kind kind = s->u.for_.kind;
	const stir_stmt **outer = NULL, *saved = NULL;
	if ((unsigned)kind > STIR_LOOP_PIPELINE || (kind == STIR_LOOP_BIND &&
	    (unsigned)s->u.for_.thread > STIR_THREAD_Z))
		stir_error(v->ctx, s->loc, "invalid annotation of loop '%s'",
			var->name);
	else if (kind == STIR_LOOP_BIND)
		outer = check_thread(v, sc, s, &saved);
	else if (kind == STIR_LOOP_TENSORIZE)
		check_tensorized(v, s);
	else if (kind == STIR_LOOP_PIPELINE &&
		 (s->u.for_.stages < 2 || s->u.for_.stages > 8))
		stir_error(v->ctx, s->loc, "loop '%s' is a pipeline of %d stages; "
			"a pipeline has 2 to 8", var->name, s->u.for_.stages);
	else if (kind == STIR_LOOP_PIPELINE && s->u.for_.batch > 1 &&
		 2 * s->u.for_.batch > s->u.for_.stages)
		stir_error(v->ctx, s->loc, "loop '%s' is a pipeline of %d stages "
			"waiting for %d iterations' copies together; a batch is at "
			"most half the stages", var->name, s->u.for_.stages,
			s->u.for_.batch);
	int n_vars = sc->n_vars;
	verify_scope_push_var(v, sc, var);
	verify_check_stmts(v, sc, &s->u.for_.body);
	verify_scope_pop_vars(sc, n_vars);
	if (outer)
		*outer = saved;
}

/* v, sc, s, r: a read or write region of block s, checked where the
 * block's variables are in scope: a buffer of the kernel, one range per
 * dimension, integer bounds. */
static void check_region(verifier *v, scope *sc, const stir_stmt *s,
	const stir_region *r)
{
	const stir_buffer *b = r->buf;
	if (!b || (r->n > 0 && (!r->lo || !r->hi))) {
		stir_error(v->ctx, s->loc, "invalid region in block '%s'",
			s->u.block.name);
		return;
	}
	int dims = buffer_dims(b);
	if (!buffer_in_kernel(v->k, b))
		stir_error(v->ctx, s->loc, "%s '%s' belongs to another kernel",
			buffer_word(b), b->name);
	else if (r->n != dims)
		stir_error(v->ctx, s->loc, "region of '%s' has %d %s but '%s' has "
			"%d %s", b->name, r->n, plural(r->n, "range", "ranges"),
			b->name, dims, plural(dims, "dimension", "dimensions"));
	for (int d = 0; d < r->n; d++) {
		if (!r->lo[d] && r->hi[d])
			stir_error(v->ctx, s->loc, "range %d of a region of '%s' has "
				"an upper bound but no lower bound", d + 1, b->name);
		if (r->lo[d])
			verify_check_int(v, sc, r->lo[d],
				"bound of a region of", 0, b->name);
		if (r->hi[d])
			verify_check_int(v, sc, r->hi[d],
				"bound of a region of", 0, b->name);
	}
}

/* v, sc, s: the variables of block s: their bindings, checked outside the
 * block, are integers of the variables' types, and each has the letter S
 * or R. */
static void check_block_vars(verifier *v, scope *sc, const stir_stmt *s)
{
	int n = s->u.block.n_vars;
	const char *kinds = s->u.block.kinds;
	int len = (int)strlen(kinds);
	if (len != n)
		stir_error(v->ctx, s->loc, "block '%s' has %d %s but %d %s in "
			"\"%s\"", s->u.block.name, n, plural(n, "variable",
			"variables"), len, plural(len, "letter", "letters"), kinds);
	for (int i = 0; i < n; i++) {
		stir_var *var = s->u.block.vars[i];
		stir_dtype t = verify_check_int(v, sc, s->u.block.bindings[i],
			"binding of block variable", 0, var->name);
		if (var->kind != STIR_VAR_BLOCK)
			stir_error(v->ctx, var->loc, "variable '%s' of a block is not "
				"a block variable", var->name);
		else
			check_var_type(v, var, t, "block variable", "a binding");
		if (i < len && kinds[i] != 'S' && kinds[i] != 'R')
			stir_error(v->ctx, var->loc, "invalid letter '%c' for block "
				"variable '%s': expected 'S' or 'R'", kinds[i],
				var->name);
	}
}


/* v, s: the annotations of block s (docs/schedules.md): a cross-thread
 * block is one += (or -=) store; a horizontal block has no variables and
 * holds only loops.  (That an atomic block's stores are += or -= is checked
 * at each store.) */
static void check_block_flags(verifier *v, const stir_stmt *s)
{
	unsigned flags = s->u.block.flags;
	const stir_ptr_vec *body = &s->u.block.body;
	if (flags & ~(unsigned)STIR_BLOCK_FLAGS)
		stir_error(v->ctx, s->loc, "block '%s' has invalid annotations",
			s->u.block.name);
	if ((flags & STIR_BLOCK_CROSS_THREAD) &&
	    (body->n != 1 || stir_stmt_at(body, 0)->kind != STIR_STMT_STORE ||
	     !additive(stir_stmt_at(body, 0)->u.store.op)))
		stir_error(v->ctx, s->loc, "cross-thread block '%s' must hold "
			"exactly one += or -= store", s->u.block.name);
	if (flags & STIR_BLOCK_HORIZONTAL) {
		if (s->u.block.n_vars)
			stir_error(v->ctx, s->loc, "horizontal block '%s' cannot have "
				"variables", s->u.block.name);
		for (int i = 0; i < body->n; i++)
			if (stir_stmt_at(body, i)->kind != STIR_STMT_FOR)
				stir_error(v->ctx, stir_stmt_at(body, i)->loc,
					"horizontal block '%s' may only hold loops",
					s->u.block.name);
	}
}

/* v, sc, s: block NAME(vars = bindings) flags reads(..) writes(..)
 * { body }: a name unique among the kernel's blocks, its variables and
 * annotations, then its regions and body with the variables in scope. */
static void check_block(verifier *v, scope *sc, const stir_stmt *s)
{
	verify_check_stmt_name(v, s);
	check_block_vars(v, sc, s);
	check_block_flags(v, s);
	int n_vars = sc->n_vars;
	for (int i = 0; i < s->u.block.n_vars; i++)
		verify_scope_push_var(v, sc, s->u.block.vars[i]);
	for (int i = 0; i < s->u.block.n_reads; i++)
		check_region(v, sc, s, &s->u.block.reads[i]);
	for (int i = 0; i < s->u.block.n_writes; i++)
		check_region(v, sc, s, &s->u.block.writes[i]);
	const stir_stmt *atomic = sc->atomic;
	if (s->u.block.flags & STIR_BLOCK_ATOMIC)
		sc->atomic = s;
	verify_check_stmts(v, sc, &s->u.block.body);
	sc->atomic = atomic;
	verify_scope_pop_vars(sc, n_vars);
}
