/* cache_write_runs (include/stir/schedule.h): a cache_write of gathered
 * rows whose cache holds one row at a time, the row that loop L's own
 * iteration picks, kept while consecutive iterations pick the same row
 * and added into x when the row changes and after L.  The request is
 * checked by cache_check (schedule/cache.c) and then by cache_runs_check;
 * cache_runs_rewrite builds the nests with cache.c's copy nests. */
#include "schedule/cache.h"

/* c, cond, body: "if (cond) { body }" at the block's place (NULL when
 * memory ran out). */
static stir_stmt *runs_if(creq *c, stir_expr *cond, stir_stmt *body)
{
	stir_stmt *g = cond && body ? stir_stmt_if(c->k, cond) : NULL;
	if (!g || stir_stmt_if_append_then(g, body) < 0)
		return NULL;
	g->loc = c->blk->loc;
	return g;
}

/* c, cb, out, row, cond: fill the copy nest out with the write-back of
 * its element out->cache_idx of the runs cache cb into x's element at
 * the row that "row" (a load of the row buffer) holds, "x[row * scale +
 * ..] += cb[..]" (atomic when the block's stores were), and put the nest
 * under "if (cond)"; false when memory ran out. */
static bool runs_write_back(creq *c, stir_buffer *cb, copy_nest *out,
	stir_expr *row, stir_expr *cond)
{
	sched *s = c->s;
	stir_kernel *k = c->k;
	stir_expr *r = c->terms.gscale == 1 ? row : stir_mk_mul(k, row,
		stir_mk_int(k, c->terms.gscale));
	stir_expr *idx = stir_mk_add(k, r, stir_expr_copy(k, out->x_idx[0],
		NULL));
	stir_expr *v = stir_mk_load1(k, cb, stir_expr_copy(k, out->cache_idx,
		NULL));
	stir_stmt *st = idx && v ? stir_stmt_store(k, c->x, 1, &idx,
		STIR_STORE_ADD, v) : NULL;
	if (st)
		st->loc = c->blk->loc;
	bool ok = sched_check(s, st) && stir_stmt_append_body(out->blk, st) == 0;
	if (c->atomic_wb)
		out->blk->u.block.flags |= STIR_BLOCK_ATOMIC;
	out->outer = ok ? runs_if(c, cond, out->outer) : NULL;
	return ok && sched_check(s, out->outer);
}

/* c, rb, i, v: block statement "rb[i] = v" (NULL when memory ran out). */
static stir_stmt *runs_set(creq *c, stir_buffer *rb, int i, stir_expr *v)
{
	stir_expr *idx = stir_mk_int(c->k, i);
	stir_stmt *st = idx && v ? stir_stmt_store(c->k, rb, 1, &idx,
		STIR_STORE_ASSIGN, v) : NULL;
	if (st)
		st->loc = c->blk->loc;
	return st;
}

/* c, name, body0, body1: a block without variables holding body0 and
 * (when not NULL) body1, at the block's place (NULL when memory ran
 * out). */
static stir_stmt *runs_block(creq *c, const char *name, stir_stmt *body0,
	stir_stmt *body1)
{
	stir_stmt *b = name && body0 ? stir_stmt_block(c->k, name, 0, NULL,
		NULL, "") : NULL;
	if (!b || stir_stmt_append_body(b, body0) < 0 ||
	    (body1 && stir_stmt_append_body(b, body1) < 0))
		return NULL;
	b->loc = c->blk->loc;
	return b;
}

/* c: cache_write_runs's own conditions, after cache_check: a local cache
 * of a flat buffer whose one varying row is a load that the loop's own
 * variable picks (and no loop inside it), the rest a strided region of
 * loops inside it; the loop serial (each thread runs its iterations in
 * order, so that a row's consecutive terms meet in the cache); no guard
 * inside the block picking elements.  false after recording the
 * failure. */
bool cache_runs_check(creq *c)
{
	sched *s = c->s;
	const char *xn = c->x->name, *bn = c->blk->u.block.name;
	const char *ln = c->loop->u.for_.var->name;
	if (c->scope != STIR_SCOPE_LOCAL) {
		sched_fail(s, c->blk->loc, "the cache of the runs of a row lives "
			"in registers: scope local");
		return false;
	}
	if (c->loop->u.for_.kind != STIR_LOOP_SERIAL &&
	    c->loop->u.for_.kind != STIR_LOOP_UNROLL) {
		sched_fail(s, c->loop->loc, "loop '%s' is not serial: the runs "
			"of a row are the loop's iterations one after another", ln);
		return false;
	}
	if (!c->flat || c->fkind != F_STRIDED || !c->terms.gather ||
	    c->terms.gvar != c->loop->u.for_.var) {
		sched_fail(s, c->blk->loc, "block '%s' does not add into a row "
			"of '%s' that a load of loop '%s' picks (the rest of the "
			"index fixed or strided loops inside it)", bn, xn, ln);
		return false;
	}
	if (c->elem_guard) {
		sched_fail(s, c->blk->loc, "the accesses of '%s' in block '%s' are "
			"conditional", xn, bn);
		return false;
	}
	return true;
}

/* c: rewrite what cache_check and cache_runs_check accepted (cache_write_runs):
 * the cache X_local holds the elements of one row, and X_local_row (2
 * elements of the row's type) the row and whether one is held.  Before
 * L, block X_local_init holds none; at the start of each iteration of
 * L, where the block's accesses run, when the iteration's row differs
 * from the one held, block X_local_run (over the elements) adds each
 * element into the row held, and X_local_zero zeroes it (also when none
 * is held); then block X_local_row holds the iteration's row; after L, block X_local
 * adds the elements into the row held, if any.  The write-backs are
 * atomic when the block's stores were.  0, or -1 when memory ran out. */
int cache_runs_rewrite(creq *c)
{
	sched *s = c->s;
	stir_kernel *k = c->k;
	const char *bn = c->blk->u.block.name;
	const char *base;
	stir_buffer *cb = cache_add_buffer(c, &base);
	if (!cb)
		return -1;
	const char *rn = sched_fresh_global(s, sched_check(s,
		stir_kernel_strf(k, "%s_row", cb->name)));
	stir_dtype rt = c->terms.gather->dtype;
	stir_buffer *rb = rn ? stir_kernel_add_flat_buffer(k, rn,
		STIR_BUFFER_LOCAL, rt, stir_mk_int(k, 2), NULL) : NULL;
	if (!sched_check(s, rb))
		return -1;
	rb->scope = STIR_SCOPE_LOCAL;
	rb->loc = c->blk->loc;
	sched_made(s, STIR_MADE_BUFFER, rn, c->x->name);
	const char *init_name;
	const char *wb_name = cache_nest_names(s, base, &init_name);
	const char *run_name = !init_name ? NULL : sched_fresh_block_name(s,
		sched_check(s, stir_kernel_strf(k, "%s_run", wb_name)));
	const char *zero_name = !run_name ? NULL : sched_fresh_block_name(s,
		sched_check(s, stir_kernel_strf(k, "%s_zero", wb_name)));
	const char *row_name = !zero_name ? NULL : sched_fresh_block_name(s,
		sched_check(s, stir_kernel_strf(k, "%s_row", wb_name)));
	sched_names names;
	if (!row_name || sched_scope_names(s, &c->path, c->li,
	    c->path.list[c->li], c->path.index[c->li], &names) < 0)
		return -1;
	int mark = stir_names_mark(&names);
#define HELD() stir_mk_load1(k, rb, stir_mk_int(k, 1))
#define ROW() stir_mk_load1(k, rb, stir_mk_int(k, 0))
	/* before L: no row held */
	copy_nest in = { 0 }, run, zero, out;
	in.outer = runs_block(c, init_name, runs_set(c, rb, 1, stir_expr_int(k,
		0)), NULL);
	bool ok = sched_check(s, in.outer) != NULL;
	/* at the start of L's body: a new row's first term */
	stir_expr *grow = stir_expr_copy(k, c->terms.gather, NULL);
	stir_expr *next = grow ? stir_expr_binary(k, STIR_NE, ROW(), grow) :
		NULL;
	stir_stmt *rowset = NULL;
	ok = ok && sched_check(s, next);
	if (ok)
		ok = cache_build_nest(c, &names, run_name, false, &run);
	if (ok) {
		stir_expr *held = stir_expr_binary(k, STIR_NE, HELD(),
			stir_expr_int(k, 0));
		ok = runs_write_back(c, cb, &run, ROW(), stir_mk_and(k, held,
			stir_expr_copy(k, next, NULL)));
	}
	stir_names_reset(&names, mark);
	if (ok)
		ok = cache_build_nest(c, &names, zero_name, false, &zero);
	if (ok) {
		stir_expr *none = stir_expr_binary(k, STIR_EQ, HELD(),
			stir_expr_int(k, 0));
		stir_expr *fresh = none ? stir_expr_binary(k, STIR_OR, none,
			stir_expr_copy(k, next, NULL)) : NULL;
		stir_expr *zi = stir_expr_copy(k, zero.cache_idx, NULL);
		stir_stmt *st = zi ? stir_stmt_store(k, cb, 1, &zi,
			STIR_STORE_ASSIGN, sched_zero(k, cb->dtype)) : NULL;
		ok = sched_check(s, st) &&
			stir_stmt_append_body(zero.blk, st) == 0;
		zero.outer = ok ? runs_if(c, fresh, zero.outer) : NULL;
		ok = ok && sched_check(s, zero.outer);
		rowset = ok ? runs_block(c, row_name, runs_set(c, rb, 0,
			stir_expr_copy(k, grow, NULL)), runs_set(c, rb, 1,
			stir_expr_int(k, 1))) : NULL;
		ok = ok && sched_check(s, rowset);
	}
	/* after L: the last row */
	stir_names_reset(&names, mark);
	if (ok)
		ok = cache_build_nest(c, &names, wb_name, false, &out);
	if (ok)
		ok = runs_write_back(c, cb, &out, ROW(), stir_expr_binary(k,
			STIR_NE, HELD(), stir_expr_int(k, 0)));
#undef HELD
#undef ROW
	sched_names_release(&names);
	/* the iteration's part runs where the block's accesses do: under the
	 * conditions fixed at L and those on the row alone */
	stir_expr *cond = NULL;
	for (int j = 0; ok && j < c->n_conds; j++)
		cond = stir_mk_and(k, cond, stir_expr_copy(k, c->conds[j], NULL));
	for (int j = 0; ok && j < c->n_row_conds; j++)
		cond = stir_mk_and(k, cond, stir_expr_copy(k, c->row_conds[j],
			NULL));
	stir_stmt *step = NULL;
	if (ok && cond) {
		step = runs_if(c, cond, run.outer);
		ok = sched_check(s, step) && stir_stmt_if_append_then(step,
			zero.outer) == 0 && stir_stmt_if_append_then(step,
			rowset) == 0;
	}
	ok = ok && cache_guard_nest(c, &in) && cache_guard_nest(c, &out);
	if (!ok || s->oom)
		return -1;
	sched_made(s, STIR_MADE_INIT_BLOCK, init_name, bn);
	sched_made(s, STIR_MADE_BLOCK, run_name, bn);
	sched_made(s, STIR_MADE_BLOCK, zero_name, bn);
	sched_made(s, STIR_MADE_BLOCK, row_name, bn);
	sched_made(s, STIR_MADE_BLOCK, wb_name, bn);
	cache_redirect(c, cb);
	stir_ptr_vec *body = &c->loop->u.for_.body;
	if (step) {
		sched_list_insert(s, body, 0, step);
	} else {
		sched_list_insert(s, body, 0, rowset);
		sched_list_insert(s, body, 0, zero.outer);
		sched_list_insert(s, body, 0, run.outer);
	}
	int at = c->path.index[c->li];
	stir_ptr_vec *list = c->path.list[c->li];
	sched_list_insert(s, list, at + 1, out.outer);
	sched_list_insert(s, list, at, in.outer);
	return s->oom ? -1 : 0;
}
