/* Loop annotations: bind, unroll, vectorize (include/stir/schedule.h).
 * They change how the emitter maps a loop, never what the interpreter
 * computes; their checks are what make the mapping race-free.
 *
 * bind requires: a serial loop around the block whose extent is an
 * expression of parameters (launch sizes come from it), no loop around it
 * or inside it bound to the same index, and no work that threads would
 * share unsafely:
 *  - a block inside the loop with a reduction variable whose binding
 *    depends on the loop (directly or through variables of blocks inside
 *    it) is cross-thread reduced (threadIdx.x only) or has every store to
 *    a non-local buffer inside an atomic block;
 *  - every store inside the loop lies in a block inside it;
 *  - an outermost block inside the loop whose variables do not depend on
 *    the loop (every thread would run it) holds no stores other than
 *    atomic ones or ones to local buffers;
 *  - (checked after every schedule, sched_check_scopes) a local buffer, or
 *    for a blockIdx loop a shared one, used inside the loop is used
 *    nowhere outside it.
 * unroll requires a serial loop; vectorize an innermost serial loop of
 * literal extent 2 or 4 that no block reduces over.
 * Keep: everything.  Break: nothing. */
#include <stdlib.h>
#include <string.h>
#include "ir/intrinsics.h"
#include "schedule/sched.h"

/* The walk of the body of a loop being bound. */
typedef struct bind_walk {
	sched *s;
	const stir_stmt *loop;   /* the loop being bound */
	stir_thread thread;      /* to this index */
	const stir_var **dep;    /* variables whose value depends on the loop */
	int n_dep, cap_dep;
} bind_walk;

/* w, e: whether e depends on the loop. */
static bool depends(const bind_walk *w, const stir_expr *e)
{
	for (int i = 0; i < w->n_dep; i++)
		if (stir_expr_uses(e, w->dep[i]))
			return true;
	return false;
}

/* w, v: record that v depends on the loop. */
static void add_dep(bind_walk *w, const stir_var *v)
{
	if (w->n_dep == w->cap_dep) {
		int cap = w->cap_dep ? 2 * w->cap_dep : 16;
		const stir_var **d = sched_check(w->s, realloc(w->dep,
			(size_t)cap * sizeof(*d)));
		if (!d)
			return;
		w->dep = d;
		w->cap_dep = cap;
	}
	w->dep[w->n_dep++] = v;
}

/* What unsafe_store carries. */
typedef struct safe_walk {
	int atomic;            /* atomic blocks around (1 when st is in one) */
	bool block_idx;        /* the loop is bound to a blockIdx index */
	bool safe;             /* no unsafe store seen */
} safe_walk;

/* st, user: stop at a store that is not private or atomic (a safe_walk). */
static stir_visit_step unsafe_store(stir_stmt *st, void *user)
{
	safe_walk *w = user;
	if (st->kind == STIR_STMT_BLOCK &&
	    (st->u.block.flags & STIR_BLOCK_ATOMIC))
		w->atomic++;
	if (st->kind != STIR_STMT_STORE)
		return STIR_VISIT_GO;
	stir_scope sc = st->u.store.buf->scope;
	w->safe = w->atomic || sc == STIR_SCOPE_LOCAL || sc == STIR_SCOPE_WARP ||
		(w->block_idx && sc == STIR_SCOPE_SHARED);
	return w->safe ? STIR_VISIT_GO : STIR_VISIT_STOP;
}

/* st, user: leave an atomic block (a safe_walk). */
static stir_visit_step leave_block(stir_stmt *st, void *user)
{
	if (st->kind == STIR_STMT_BLOCK &&
	    (st->u.block.flags & STIR_BLOCK_ATOMIC))
		((safe_walk *)user)->atomic--;
	return STIR_VISIT_GO;
}

/* st, atomic, block_idx: whether every store in st is private to a
 * thread of the loop being bound or inside an atomic block ("atomic": st
 * is inside one already): stores to local (and warp) buffers are, and for a loop
 * bound to a blockIdx index (whose iterations are thread blocks) stores
 * to shared buffers too. */
static bool stores_safe(const stir_stmt *st, bool atomic, bool block_idx)
{
	safe_walk w = { atomic, block_idx, true };
	stir_visitor v = { unsafe_store, leave_block, NULL, NULL, 0, &w };
	stir_visit_stmt(&v, (stir_stmt *)st);
	return w.safe;
}

static void bind_list(bind_walk *w, const stir_ptr_vec *list, bool in_block,
	bool atomic);

/* w, b, in_block, atomic: a block inside the loop. */
static void bind_block(bind_walk *w, const stir_stmt *b, bool in_block,
	bool atomic)
{
	sched *s = w->s;
	int n_dep = w->n_dep;
	bool any = false;
	atomic |= (b->u.block.flags & STIR_BLOCK_ATOMIC) != 0;
	const char *loop = w->loop->u.for_.var->name;
	for (int i = 0; i < b->u.block.n_vars && !s->failed; i++) {
		if (!depends(w, b->u.block.bindings[i]))
			continue;
		any = true;
		add_dep(w, b->u.block.vars[i]);
		if (b->u.block.kinds[i] != 'R')
			continue;
		bool cross = (b->u.block.flags & STIR_BLOCK_CROSS_THREAD) != 0;
		if (cross && w->thread == STIR_THREAD_X)
			continue;
		if (stores_safe(b, atomic, w->thread <= STIR_BLOCK_Z))
			continue;
		if (cross)
			sched_fail(s, w->loop->loc, "loop '%s' iterates reduction "
				"variable '%s' of cross-thread block '%s', so it must be "
				"bound to threadIdx.x, not %s", loop,
				b->u.block.vars[i]->name, b->u.block.name,
				sched_thread_name(w->thread));
		else
			sched_fail(s, w->loop->loc, "loop '%s' iterates reduction "
				"variable '%s' of block '%s', which is neither atomic nor "
				"cross-thread", loop, b->u.block.vars[i]->name,
				b->u.block.name);
	}
	if (!in_block && !any && !s->failed &&
	    !stores_safe(b, atomic, w->thread <= STIR_BLOCK_Z))
		sched_fail(s, w->loop->loc, "block '%s' does not depend on loop "
			"'%s': every thread would run its stores", b->u.block.name,
			loop);
	bind_list(w, &b->u.block.body, true, atomic);
	w->n_dep = n_dep;
}

/* w, list, in_block, atomic: the statements of a list inside the loop. */
static void bind_list(bind_walk *w, const stir_ptr_vec *list, bool in_block,
	bool atomic)
{
	for (int i = 0; i < list->n && !w->s->failed; i++) {
		const stir_stmt *st = stir_stmt_at(list, i);
		switch (st->kind) {
		case STIR_STMT_STORE:
			if (!in_block)
				sched_fail(w->s, st->loc, "loop '%s' holds a store to "
					"'%s' outside any block inside it",
					w->loop->u.for_.var->name, st->u.store.buf->name);
			break;
		case STIR_STMT_LET:
			if (depends(w, st->u.let.value))
				add_dep(w, st->u.let.var);
			break;
		case STIR_STMT_IF:
			bind_list(w, &st->u.if_.then_body, in_block, atomic);
			bind_list(w, &st->u.if_.else_body, in_block, atomic);
			break;
		case STIR_STMT_FOR:
			if (st->u.for_.kind == STIR_LOOP_BIND &&
			    st->u.for_.thread == w->thread)
				sched_fail(w->s, st->loc, "loop '%s' inside loop '%s' is "
					"already bound to %s", st->u.for_.var->name,
					w->loop->u.for_.var->name,
					sched_thread_name(w->thread));
			bind_list(w, &st->u.for_.body, in_block, atomic);
			break;
		case STIR_STMT_BLOCK:
			bind_block(w, st, in_block, atomic);
			break;
		default:
			break;
		}
	}
}

/* The walk of sched_check_binds. */
typedef struct recheck {
	sched *s;
	bool report;
	bool ok;
} recheck;

/* k, list, user: check the race rules of bind on the bound loops of
 * list. */
static int recheck_list(stir_kernel *k, stir_ptr_vec *list, void *user)
{
	recheck *r = user;
	(void)k;
	for (int i = 0; i < list->n && r->ok; i++) {
		const stir_stmt *st = stir_stmt_at(list, i);
		if (st->kind != STIR_STMT_FOR || st->u.for_.kind != STIR_LOOP_BIND)
			continue;
		sched probe = { .k = r->s->k, .prim = r->s->prim };
		sched *s = r->report ? r->s : &probe;
		bind_walk w = { .s = s, .loop = st, .thread = st->u.for_.thread };
		add_dep(&w, st->u.for_.var);
		bind_list(&w, &st->u.for_.body, false, false);
		free(w.dep);
		if (s->failed || s->oom)
			r->ok = false;
	}
	return 0;
}

bool sched_check_binds(sched *s, bool report)
{
	recheck r = { s, report, true };
	stir_foreach_list(s->k, recheck_list, &r);
	return r.ok;
}

int sched_bind(sched *s, sched_path *path, int li, stir_thread thread)
{
	stir_stmt *loop = path->stmt[li];
	const char *name = loop->u.for_.var->name;
	if ((unsigned)thread > STIR_THREAD_Z) {
		sched_fail(s, loop->loc, "invalid thread index %d", (int)thread);
		return -1;
	}
	const char *ann = sched_loop_annotation(loop);
	if (ann) {
		sched_fail(s, loop->loc, "loop '%s' is %s already", name, ann);
		return -1;
	}
	for (int i = 0; i < li; i++) {
		const stir_stmt *o = path->stmt[i];
		if (o->kind == STIR_STMT_FOR && o->u.for_.kind == STIR_LOOP_BIND &&
		    o->u.for_.thread == thread) {
			sched_fail(s, loop->loc, "loop '%s' is inside loop '%s', which "
				"is already bound to %s", name, o->u.for_.var->name,
				sched_thread_name(thread));
			return -1;
		}
	}
	/* first what makes threads race, then what the launch needs */
	bind_walk w = { .s = s, .loop = loop, .thread = thread };
	add_dep(&w, loop->u.for_.var);
	bind_list(&w, &loop->u.for_.body, false, false);
	free(w.dep);
	if (s->failed || s->oom)
		return -1;
	if (!sched_is_param_expr(loop->u.for_.extent)) {
		sched_fail(s, loop->loc, "the extent of loop '%s', %s, is not an "
			"expression of parameters", name,
			sched_str(s, loop->u.for_.extent));
		return -1;
	}
	loop->u.for_.kind = STIR_LOOP_BIND;
	loop->u.for_.thread = thread;
	return 0;
}

/* list: the first loop in list (at any depth), or NULL. */
static const stir_stmt *find_loop(const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *st = stir_stmt_at(list, i), *f = NULL;
		if (st->kind == STIR_STMT_FOR)
			return st;
		if (st->kind == STIR_STMT_IF) {
			f = find_loop(&st->u.if_.then_body);
			if (!f)
				f = find_loop(&st->u.if_.else_body);
		} else if (st->kind == STIR_STMT_BLOCK) {
			f = find_loop(&st->u.block.body);
		}
		if (f)
			return f;
	}
	return NULL;
}

/* list, v, var: a block in list (at any depth) with a reduction variable
 * bound to an expression that uses v, or NULL; its variable in *var. */
static const stir_stmt *find_reduction(const stir_ptr_vec *list,
	const stir_var *v, const stir_var **var)
{
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *st = stir_stmt_at(list, i), *f = NULL;
		if (st->kind == STIR_STMT_BLOCK) {
			for (int j = 0; j < st->u.block.n_vars; j++)
				if (st->u.block.kinds[j] == 'R' &&
				    stir_expr_uses(st->u.block.bindings[j], v)) {
					*var = st->u.block.vars[j];
					return st;
				}
			f = find_reduction(&st->u.block.body, v, var);
		} else if (st->kind == STIR_STMT_IF) {
			f = find_reduction(&st->u.if_.then_body, v, var);
			if (!f)
				f = find_reduction(&st->u.if_.else_body, v, var);
		} else if (st->kind == STIR_STMT_FOR) {
			f = find_reduction(&st->u.for_.body, v, var);
		}
		if (f)
			return f;
	}
	return NULL;
}

/* s, block, loop, kind: annotate a serial loop around the block with
 * "kind" (unroll or vectorize). */
static int annotate(sched *s, const char *block, const char *loop,
	stir_loop_kind kind)
{
	sched_path p;
	int li;
	if ((li = sched_find_block_loop(s, block, loop, &p)) < 0) {
		sched_path_release(&p);
		return -1;
	}
	stir_stmt *l = p.stmt[li];
	const char *ann = sched_loop_annotation(l);
	const stir_stmt *inner, *red;
	const stir_var *rv = NULL;
	int64_t ext;
	if (ann) {
		sched_fail(s, l->loc, "loop '%s' is %s already", loop, ann);
	} else if (kind == STIR_LOOP_VECTORIZE) {
		if ((inner = find_loop(&l->u.for_.body)))
			sched_fail(s, l->loc, "loop '%s' is not innermost: it "
				"encloses loop '%s'", loop, inner->u.for_.var->name);
		else if (!sched_int_value(l->u.for_.extent, &ext) ||
			 (ext != 2 && ext != 4))
			sched_fail(s, l->loc, "loop '%s' has extent %s, not the "
				"literal 2 or 4", loop, sched_str(s, l->u.for_.extent));
		else if ((red = find_reduction(&l->u.for_.body, l->u.for_.var, &rv)))
			sched_fail(s, l->loc, "block '%s' reduces over loop '%s' "
				"(variable '%s')", red->u.block.name, loop, rv->name);
	}
	if (!s->failed)
		l->u.for_.kind = kind;
	sched_path_release(&p);
	return s->failed ? -1 : 0;
}

/* k, block, loop, thread: see include/stir/schedule.h. */
int stir_bind(stir_kernel *k, const char *block, const char *loop,
	stir_thread thread)
{
	sched s;
	if (sched_begin(&s, k, "bind") < 0)
		return -1;
	sched_path p;
	int li;
	if ((li = sched_find_block_loop(&s, block, loop, &p)) >= 0)
		sched_bind(&s, &p, li, thread);
	sched_path_release(&p);
	return stir_kernel_log_step(k, sched_end(&s), "bind: {block: %s, "
		"loop: %s, to: %s}", block, loop, stir_log_thread((int)thread));
}

/* k, block, loop: see include/stir/schedule.h. */
int stir_unroll(stir_kernel *k, const char *block, const char *loop)
{
	sched s;
	if (sched_begin(&s, k, "unroll") < 0)
		return -1;
	annotate(&s, block, loop, STIR_LOOP_UNROLL);
	return stir_kernel_log_step(k, sched_end(&s), "unroll: {block: %s, "
		"loop: %s}", block, loop);
}

/* k, block, loop: see include/stir/schedule.h. */
int stir_vectorize(stir_kernel *k, const char *block, const char *loop)
{
	sched s;
	if (sched_begin(&s, k, "vectorize") < 0)
		return -1;
	annotate(&s, block, loop, STIR_LOOP_VECTORIZE);
	return stir_kernel_log_step(k, sched_end(&s), "vectorize: {block: %s, "
		"loop: %s}", block, loop);
}

/* A guard moved out of a nest to be tensorized (lift_nest_guard): the
 * if, the loop whose body held it, and the list slot of the nest. */
typedef struct lifted_guard {
	stir_stmt *guard;        /* NULL: nothing was moved */
	stir_stmt *holder;
	stir_ptr_vec *list;
	int index;
} lifted_guard;

/* s, p, li, out: the tail guard of a split reduction loop around the nest
 * of loop p->stmt[li] sits in the nest's innermost body; move it out so
 * that it wraps the nest (*out says what moved, for lift_undo), when it
 * is the innermost body's one if, without else, around one statement,
 * uses none of the nest's loops, reads nothing the nest writes, is the
 * same for the lanes of a warp (the intrinsic is the warp's), and every
 * loop of the nest runs (a literal extent of at least 1): the nest then
 * runs the same, with the condition tested once before it. */
static void lift_nest_guard(sched *s, sched_path *p, int li,
	lifted_guard *out)
{
	stir_kernel *k = s->k;
	memset(out, 0, sizeof(*out));
	stir_stmt *l = p->stmt[li], *x = l, *g;
	for (;;) {
		int64_t e;
		if (x->kind != STIR_STMT_FOR || x->u.for_.body.n != 1 ||
		    !sched_int_value(x->u.for_.extent, &e) || e < 1)
			return;
		g = stir_stmt_at(&x->u.for_.body, 0);
		if (g->kind == STIR_STMT_IF)
			break;
		x = g;
	}
	const stir_expr *c = g->u.if_.cond;
	if (g->u.if_.else_body.n || g->u.if_.then_body.n != 1 ||
	    sched_thread_dependent(s, c, p, li, true))
		return;
	for (const stir_stmt *y = l; y != g;
	     y = stir_stmt_at(&y->u.for_.body, 0))
		if (stir_expr_uses(c, y->u.for_.var))
			return;
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *b = k->buffers.v[i];
		if (stir_expr_reads(c, b) && stir_stmt_writes(l, b))
			return;
	}
	stir_ptr_vec one = { 0 };
	if (stir_ptr_vec_push(stir_kernel_arena(k), &one, l) < 0)
		return;
	*out = (lifted_guard){ g, x, p->list[li], p->index[li] };
	x->u.for_.body = g->u.if_.then_body;
	g->u.if_.then_body = one;
	p->list[li]->v[p->index[li]] = g;
}

/* d: put a guard lift_nest_guard moved back where it was. */
static void lift_undo(const lifted_guard *d)
{
	if (!d->guard)
		return;
	stir_stmt *l = stir_stmt_at(&d->guard->u.if_.then_body, 0);
	d->guard->u.if_.then_body = d->holder->u.for_.body;
	d->holder->u.for_.body.v[0] = d->guard;
	d->list->v[d->index] = l;
}

/* s, b: block b's lets put into its one store (sched_single_update), so
 * that the nest it ends is one store, as the intrinsics' forms need (the
 * row of a fused iteration's edge, `let vi = J_pos_I[..]`, read where the
 * store reads it); a block of one statement, or one that is more than lets
 * and an add, is left as it is (the match then says why). */
static void inline_block_lets(sched *s, stir_stmt *b)
{
	stir_ptr_vec *body = &b->u.block.body;
	if (body->n < 2)
		return;
	for (int i = 0; i + 1 < body->n; i++)
		if (stir_stmt_at(body, i)->kind != STIR_STMT_LET)
			return;
	const stir_stmt *last = stir_stmt_at(body, body->n - 1);
	if (last->kind != STIR_STMT_STORE || (last->u.store.op != STIR_STORE_ADD &&
	    last->u.store.op != STIR_STORE_SUB))
		return;
	stir_stmt *store = sched_single_update(s, b);
	if (store) {
		body->v[0] = store;
		body->n = 1;
	}
}

/* k, block, loop, intrinsic: see include/stir/schedule.h. */
int stir_tensorize(stir_kernel *k, const char *block, const char *loop,
	const char *intrinsic)
{
	sched s;
	if (sched_begin(&s, k, "tensorize") < 0)
		return -1;
	const stir_intrinsic *in = stir_intrinsic_find(intrinsic);
	sched_path p = { 0 };
	int li;
	if (k->stage != STIR_STAGE_3) {
		sched_fail(&s, k->loc, "kernel '%s' is at stage %d; tensorize "
			"applies at stage III (flat buffers)", k->name, (int)k->stage);
	} else if (!in) {
		sched_fail(&s, k->loc, "unknown intrinsic '%s'; the intrinsics "
			"are %s", intrinsic ? intrinsic : "(null)",
			stir_intrinsic_names());
	} else if ((li = sched_find_block_loop(&s, block, loop, &p)) >= 0) {
		stir_stmt *l = p.stmt[li];
		const char *ann = sched_loop_annotation(l);
		stir_mma_match m;
		char why[400];
		stir_loc where;
		lifted_guard lg = { 0 };
		if (!ann && !in->copy)
			inline_block_lets(&s, p.stmt[p.n - 1]);
		if (!ann)
			lift_nest_guard(&s, &p, li, &lg);
		if (ann)
			sched_fail(&s, l->loc, "loop '%s' is %s already", loop, ann);
		else if (!stir_tensorize_match(l, in, &m, why, sizeof(why), &where)) {
			lift_undo(&lg);
			sched_fail(&s, where, "the nest at loop '%s' does not compute "
				"%s (%s): %s", loop, in->name, in->doc, why);
		} else {
			l->u.for_.kind = STIR_LOOP_TENSORIZE;
			l->u.for_.intrinsic = stir_ctx_intern(stir_kernel_ctx(k),
				in->name);
		}
	}
	sched_path_release(&p);
	return stir_kernel_log_step(k, sched_end(&s), "tensorize: {block: %s, "
		"loop: %s, intrinsic: %s}", block, loop, intrinsic);
}
