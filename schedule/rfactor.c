/* rfactor: split a reduction into partial results (TVM's rfactor;
 * include/stir/schedule.h).
 *
 * Requires: a verified stage II or III kernel; a serial loop L of literal
 * extent E around block B that iterates a reduction variable of B; B is,
 * once its lets are inlined, one "X[..] += e" (or -=) whose target
 * depends neither on L nor on the loops between L and B; L holds nothing
 * but the nest of B (loops and ifs without else, one statement each); L
 * is not inside an atomic block; B is not cross-thread.
 * Produces, in place of L:
 *
 *   for L in [0, E) { block B_rf_init(vL: S = L) { X_rf[vL] = 0; } }
 *   for L in [0, E) { ..  block B_rf(B's variables, vL: S = L) {
 *                             X_rf[vL] += e; } }
 *   for L in [0, E) { block B(B's variables bound outside L, vL: R = L) {
 *                         X[..] += X_rf[vL]; } }      (or -=)
 *
 * X_rf is a new local buffer of E elements (scope local: one per thread;
 * the whole of its life is at L's place, so every point the loops around
 * L fix has its own).  The combining block keeps B's name and its atomic
 * annotation.  In B_rf, L iterates a spatial variable.
 * Keeps: what the kernel computes, up to rounding (the sum is
 * reassociated).  Breaks: nothing; L stays serial (binding it would
 * share X_rf between threads, which the scope rule refuses). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "schedule/sched.h"

/* s, path, li: check that loop path->stmt[li] holds only the nest of
 * block path->stmt[n-1]. */
static bool check_nest(sched *s, const sched_path *path, int li)
{
	stir_stmt *b = path->stmt[path->n - 1], *l = path->stmt[li];
	for (int j = li; j < path->n - 1; j++) {
		stir_stmt *st = path->stmt[j];
		const stir_ptr_vec *body = st->kind == STIR_STMT_FOR ?
			&st->u.for_.body : st->kind == STIR_STMT_IF ?
			&st->u.if_.then_body : NULL;
		if (!body || body->n != 1 || (st->kind == STIR_STMT_IF &&
		    st->u.if_.else_body.n)) {
			sched_fail(s, l->loc, "loop '%s' holds more than the nest of "
				"block '%s'", l->u.for_.var->name, b->u.block.name);
			return false;
		}
	}
	return true;
}

/* What the checks of one rfactor found, for the rewrite. */
typedef struct rf_req {
	stir_stmt *b, *l;        /* the block B and the loop L */
	int64_t ext;             /* L's literal extent E */
	stir_stmt *store;        /* B's one update X[..] += e */
	bool *inner;             /* arena: by B's variable, bound inside L */
} rf_req;

/* s, path, li, r: check the rfactor of block path->stmt[n-1] over loop
 * path->stmt[li] (the conditions at the top of this file), filling r;
 * false after recording the first failure. */
static bool rf_check(sched *s, const sched_path *path, int li, rf_req *r)
{
	stir_kernel *k = s->k;
	stir_stmt *b = path->stmt[path->n - 1], *l = path->stmt[li];
	const stir_var *lv = l->u.for_.var;
	const char *ln = lv->name, *bn = b->u.block.name;
	int64_t ext;
	stir_stmt *atomic = sched_atomic_around(path, li);
	if (l->u.for_.kind != STIR_LOOP_SERIAL) {
		sched_fail(s, l->loc, "loop '%s' is %s; rfactor needs a serial "
			"loop", ln, sched_loop_annotation(l));
		return false;
	}
	if (b->u.block.flags & STIR_BLOCK_CROSS_THREAD) {
		sched_fail(s, b->loc, "block '%s' is cross-thread", bn);
		return false;
	}
	if (atomic) {
		sched_fail(s, l->loc, "loop '%s' lies inside atomic block '%s'",
			ln, atomic->u.block.name);
		return false;
	}
	if (!check_nest(s, path, li))
		return false;
	bool reduces = false;
	for (int i = 0; i < b->u.block.n_vars; i++)
		reduces |= b->u.block.kinds[i] == 'R' &&
			stir_expr_uses(b->u.block.bindings[i], lv);
	if (!reduces) {
		sched_fail(s, b->loc, "loop '%s' iterates no reduction variable "
			"of block '%s'", ln, bn);
		return false;
	}
	if (!sched_int_value(l->u.for_.extent, &ext) || ext < 1 || ext > 4096) {
		sched_fail(s, l->loc, "the extent of loop '%s' is %s, not a "
			"literal: the partial results live in a local buffer", ln,
			sched_str(s, l->u.for_.extent));
		return false;
	}
	stir_stmt *store = sched_single_update(s, b);
	if (!store)
		return false;
	/* B's variables bound inside L, and the loops there */
	int nv = b->u.block.n_vars;
	bool *inner = sched_check(s, stir_kernel_array(k, (size_t)nv,
		sizeof(*inner)));
	if (!inner)
		return false;
	for (int i = 0; i < nv; i++) {
		inner[i] = false;
		for (int j = li; j < path->n - 1; j++)
			if (path->stmt[j]->kind == STIR_STMT_FOR &&
			    stir_expr_uses(b->u.block.bindings[i],
				path->stmt[j]->u.for_.var))
				inner[i] = true;
	}
	for (int d = 0; d < store->u.store.n; d++) {
		const stir_expr *e = store->u.store.idx[d];
		for (int j = li; j < path->n - 1; j++)
			if (path->stmt[j]->kind == STIR_STMT_FOR &&
			    stir_expr_uses(e, path->stmt[j]->u.for_.var)) {
				sched_fail(s, b->loc, "the target of block '%s' depends "
					"on loop '%s'", bn, path->stmt[j]->u.for_.var->name);
				return false;
			}
		for (int i = 0; i < nv; i++)
			if (inner[i] && stir_expr_uses(e, b->u.block.vars[i])) {
				sched_fail(s, b->loc, "the target of block '%s' depends "
					"on variable '%s', which loops inside loop '%s' "
					"bind", bn, b->u.block.vars[i]->name, ln);
				return false;
			}
	}
	*r = (rf_req){ b, l, ext, store, inner };
	return true;
}

/* s, path, li, r: rewrite what rf_check accepted (r); 0, or -1 when memory
 * ran out. */
static int rf_rewrite(sched *s, sched_path *path, int li, const rf_req *r)
{
	stir_kernel *k = s->k;
	stir_stmt *b = r->b, *l = r->l, *store = r->store;
	const stir_var *lv = l->u.for_.var;
	const char *ln = lv->name, *bn = b->u.block.name;
	int64_t ext = r->ext;
	int nv = b->u.block.n_vars;
	const bool *inner = r->inner;
	/* the partial results */
	stir_buffer *x = store->u.store.buf;
	const char *rn = sched_fresh_global(s, sched_check(s,
		stir_kernel_strf(k, "%s_rf", x->name)));
	stir_buffer *rf = sched_check(s, rn ? stir_kernel_add_flat_buffer(k, rn,
		STIR_BUFFER_LOCAL, x->dtype, stir_mk_int(k, ext), NULL) : NULL);
	if (!rf)
		return -1;
	rf->loc = b->loc;
	rf->scope = STIR_SCOPE_LOCAL;
	sched_made(s, STIR_MADE_BUFFER, rn, x->name);

	/* names at L's place */
	sched_names scope;
	if (sched_scope_names(s, path, li, path->list[li], path->index[li],
	    &scope) < 0)
		return -1;
	const char *loop_name = sched_names_fresh(s, &scope, ln);
	const char *base = sched_check(s, stir_kernel_strf(k, "v%s", ln));
	if (!base) {
		sched_names_release(&scope);
		return -1;
	}
	int mark = stir_names_mark(&scope);
	const char *var_name = sched_names_fresh(s, &scope, base);
	stir_names_reset(&scope, mark);
	for (int i = 0; i < nv; i++)
		if (!inner[i] && !sched_names_has(&scope, b->u.block.vars[i]->name))
			sched_names_fresh(s, &scope, b->u.block.vars[i]->name);
	const char *comb_var = sched_names_fresh(s, &scope, base);
	sched_names_release(&scope);
	const char *rf_var = sched_fresh_global(s, base);
	const char *rf_base = sched_check(s, stir_kernel_strf(k, "%s_rf", bn));
	const char *rf_block = rf_base ? sched_fresh_block_name(s, rf_base) : NULL;
	const char *init_base = sched_check(s, stir_kernel_strf(k, "%s_rf_init",
		bn));
	const char *init_block = init_base ? sched_fresh_block_name(s,
		init_base) : NULL;
	if (s->oom || !loop_name || !var_name || !comb_var || !rf_var ||
	    !rf_block || !init_block)
		return -1;

	/* the init nest: X_rf[vL] = 0 */
	stir_var *iv = stir_kernel_new_var(k, loop_name, STIR_VAR_LOOP,
		l->u.for_.extent->dtype);
	stir_var *ivb = stir_kernel_new_var(k, var_name, STIR_VAR_BLOCK,
		l->u.for_.extent->dtype);
	stir_expr *ib = iv ? stir_mk_var(k, iv) : NULL;
	stir_stmt *init_for = iv ? stir_stmt_for(k, iv,
		stir_expr_copy(k, l->u.for_.extent, NULL)) : NULL;
	stir_stmt *init_blk = ivb && ib ? stir_stmt_block(k, init_block, 1, &ivb,
		&ib, "S") : NULL;
	stir_expr *iidx = ivb ? stir_mk_var(k, ivb) : NULL;
	stir_stmt *zero = iidx ? stir_stmt_store(k, rf, 1, &iidx,
		STIR_STORE_ASSIGN, sched_zero(k, x->dtype)) : NULL;
	if (!sched_check(s, zero) || stir_stmt_append_body(init_blk, zero) < 0 ||
	    stir_stmt_append_body(init_for, init_blk) < 0)
		return sched_check(s, NULL), -1;

	/* B becomes B_rf: X_rf[vL] += e, with vL: S = L */
	stir_var *rv = sched_check(s, stir_kernel_new_var(k, rf_var,
		STIR_VAR_BLOCK, lv->dtype));
	stir_arena *ar = stir_kernel_arena(k);
	stir_var **vars = sched_check(s, stir_arena_alloc(ar,
		(size_t)(nv + 1) * sizeof(*vars)));
	stir_expr **binds = sched_check(s, stir_arena_alloc(ar,
		(size_t)(nv + 1) * sizeof(*binds)));
	char *kinds = sched_check(s, stir_arena_alloc(ar, (size_t)nv + 2));
	stir_expr *ridx = rv ? stir_mk_var(k, rv) : NULL;
	stir_stmt *upd = ridx ? stir_stmt_store(k, rf, 1, &ridx, STIR_STORE_ADD,
		store->u.store.value) : NULL;
	if (!rv || !vars || !binds || !kinds || !sched_check(s, upd))
		return -1;
	memcpy(vars, b->u.block.vars, (size_t)nv * sizeof(*vars));
	memcpy(binds, b->u.block.bindings, (size_t)nv * sizeof(*binds));
	memcpy(kinds, b->u.block.kinds, (size_t)nv);
	vars[nv] = rv;
	binds[nv] = stir_mk_var(k, (stir_var *)lv);
	kinds[nv] = 'S';
	kinds[nv + 1] = '\0';
	upd->loc = store->loc;

	/* the combining block: X[..] op= X_rf[vL] over L */
	stir_var *cv = stir_kernel_new_var(k, loop_name, STIR_VAR_LOOP,
		l->u.for_.extent->dtype);
	stir_stmt *comb_for = cv ? stir_stmt_for(k, cv,
		stir_expr_copy(k, l->u.for_.extent, NULL)) : NULL;
	stir_var **cvars = sched_check(s, stir_kernel_array(k, (size_t)nv + 1,
		sizeof(*cvars)));
	stir_expr **cbinds = sched_check(s, stir_kernel_array(k, (size_t)nv + 1,
		sizeof(*cbinds)));
	char *ckinds = sched_check(s, stir_kernel_array(k, (size_t)nv + 2, 1));
	stir_expr **cidx = sched_check(s, stir_kernel_array(k,
		(size_t)store->u.store.n, sizeof(*cidx)));
	if (!cvars || !cbinds || !ckinds || !cidx)
		return -1;
	int nc = 0;
	stir_subst sub = { 0 };
	for (int i = 0; i < nv && !s->oom; i++) {
		if (inner[i])
			continue;
		stir_var *o = b->u.block.vars[i];
		cvars[nc] = sched_check(s, stir_kernel_new_var(k, o->name,
			STIR_VAR_BLOCK, o->dtype));
		cbinds[nc] = sched_check(s, stir_expr_copy(k,
			b->u.block.bindings[i], NULL));
		ckinds[nc] = b->u.block.kinds[i];
		if (cvars[nc] && stir_subst_add_var(&sub, o, cvars[nc]) < 0)
			s->oom = true;
		if (cvars[nc])
			cvars[nc]->loc = o->loc;
		nc++;
	}
	cvars[nc] = sched_check(s, stir_kernel_new_var(k, comb_var,
		STIR_VAR_BLOCK, l->u.for_.extent->dtype));
	cbinds[nc] = cv ? stir_mk_var(k, cv) : NULL;
	ckinds[nc++] = 'R';
	ckinds[nc] = '\0';
	stir_stmt *comb = !s->oom && cbinds[nc - 1] ? stir_stmt_block(k, bn, nc,
		cvars, cbinds, ckinds) : NULL;
	for (int d = 0; d < store->u.store.n; d++)
		cidx[d] = stir_expr_copy(k, store->u.store.idx[d], &sub);
	stir_expr *cval = cvars[nc - 1] ? stir_mk_load1(k, rf,
		stir_mk_var(k, cvars[nc - 1])) : NULL;
	stir_stmt *cst = cval ? stir_stmt_store(k, x, store->u.store.n, cidx,
		store->u.store.op, cval) : NULL;
	stir_subst_release(&sub);
	if (!sched_check(s, cst) || stir_stmt_append_body(comb, cst) < 0 ||
	    stir_stmt_append_body(comb_for, comb) < 0)
		return sched_check(s, NULL), -1;
	cst->loc = store->loc;
	comb->loc = b->loc;
	comb->u.block.flags = b->u.block.flags & STIR_BLOCK_ATOMIC;
	/* the combining block keeps the name, so it is the one the iteration's
	 * init belongs to (as the text form's names say) */
	comb->u.block.iter = b->u.block.iter;
	comb->u.block.init = b->u.block.init;
	init_for->loc = comb_for->loc = l->loc;
	init_blk->loc = b->loc;
	iv->loc = cv->loc = lv->loc;

	/* install */
	sched_made(s, STIR_MADE_INIT_BLOCK, init_block, bn);
	sched_made(s, STIR_MADE_BLOCK, rf_block, bn);
	sched_made(s, STIR_MADE_LOOP, loop_name, ln);
	b->u.block.name = rf_block;
	b->u.block.iter = NULL;
	b->u.block.init = false;
	b->u.block.vars = vars;
	b->u.block.bindings = binds;
	b->u.block.kinds = kinds;
	b->u.block.n_vars = nv + 1;
	b->u.block.flags = 0;
	b->u.block.body.n = 0;
	if (stir_stmt_append_body(b, upd) < 0)
		return sched_check(s, NULL), -1;
	int at = path->index[li];
	if (sched_list_insert(s, path->list[li], at + 1, comb_for) < 0 ||
	    sched_list_insert(s, path->list[li], at, init_for) < 0)
		return -1;
	return 0;
}

/* k, block, loop: see include/stir/schedule.h. */
int stir_rfactor(stir_kernel *k, const char *block, const char *loop)
{
	sched s;
	if (sched_begin(&s, k, "rfactor") < 0)
		return -1;
	sched_path p;
	int li;
	rf_req r;
	if ((li = sched_find_block_loop(&s, block, loop, &p)) >= 0 &&
	    rf_check(&s, &p, li, &r))
		rf_rewrite(&s, &p, li, &r);
	sched_path_release(&p);
	return stir_kernel_log_step(k, sched_end(&s), "rfactor: {block: %s, "
		"loop: %s}", block, loop);
}
