/* Moving a block with its loops: compute_at, reverse_compute_at and
 * decompose_reduction (include/stir/schedule.h).
 *
 * A block M moves with its chain: the loops directly around it that hold
 * nothing else.  Its new place is inside a nest N that comes after it
 * (compute_at: M is a producer) or before it (reverse_compute_at: a
 * consumer) in one statement list, the "common list"; the loops of N
 * between that list and the new place are the "enclosing loops".  M
 * computes there only what is needed, by the point-or-whole-dimension
 * rule: per dimension of a buffer M writes (reads), the region the
 * neighbouring subtree of N reads (writes) in one iteration of the
 * enclosing loops is either one point, an expression of variables fixed
 * there, or the whole dimension.
 *
 * Requires:
 *  - M binds each variable to exactly one of its chain loops or to an
 *    expression of none; it writes (compute_at) or reads (reverse) the
 *    buffer at indices that are exactly such variables, or invariant;
 *    its chain loops appear nowhere else;
 *  - a chain loop whose dimension is a point everywhere, the point being
 *    (through block variables bound to exactly it) the variable of an
 *    enclosing loop with the same extent, is replaced by that point; the
 *    others stay;
 *  - every enclosing loop replaces exactly one chain loop, and no if lies
 *    between the common list and the new place: so every instance of M
 *    runs exactly once, as before;
 *  - nothing M's move jumps over accesses what M writes or writes what M
 *    reads, and the other statements of N leave those buffers alone.
 * Keeps: what the kernel computes.  Breaks: nothing; M's variables and
 * kept loops are renamed where their names are taken at the new place.
 *
 * A buffer accessed through a distinct buffer P, x[P[e..]]
 * (sched_acc.through), counts as a buffer of P's shape indexed by e..: the
 * moves are one-to-one where P's indices are.
 *
 * decompose_reduction is compute_at of the init nest (the outermost block
 * NAME_initN of the iteration NAME that the block belongs to) to just
 * before the loop, when no loop around that loop iterates a reduction
 * variable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "schedule/sched.h"

/* The block being moved and what the move needs to know about it. */
typedef struct mover {
	stir_stmt *blk;          /* M */
	sched_path path;         /* the path to M */
	int top;                 /* path index of the outermost chain loop
	                            (path.n - 1 when M has none) */
	int n_loops;             /* chain loops: path.stmt[top .. top+n-1] */
	int *var_loop;           /* heap, per variable of M: its chain loop,
	                            or -1 when invariant */
	int *state;              /* heap, per chain loop: KEEP, or the path
	                            index (in the nest's path) of the
	                            enclosing loop it becomes */
	stir_expr **point;       /* heap, per chain loop: its point */
} mover;

enum { UNDECIDED = -2, KEEP = -1 };

/* m: release. */
static void mover_release(mover *m)
{
	sched_path_release(&m->path);
	free(m->var_loop);
	free(m->state);
	free(m->point);
}

/* s, m, name: find block "name" and its chain; check its bindings. */
static bool mover_init(sched *s, mover *m, const char *name)
{
	memset(m, 0, sizeof(*m));
	if (sched_find_block(s, name, &m->path) < 0)
		return false;
	sched_path *p = &m->path;
	m->blk = p->stmt[p->n - 1];
	m->top = p->n - 1;
	while (m->top > 0 && p->stmt[m->top - 1]->kind == STIR_STMT_FOR &&
	       p->stmt[m->top - 1]->u.for_.body.n == 1)
		m->top--;
	m->n_loops = p->n - 1 - m->top;
	int nv = m->blk->u.block.n_vars;
	m->var_loop = sched_check(s, calloc((size_t)nv + 1, sizeof(int)));
	m->state = sched_check(s, calloc((size_t)m->n_loops + 1, sizeof(int)));
	m->point = sched_check(s, calloc((size_t)m->n_loops + 1,
		sizeof(stir_expr *)));
	if (s->oom)
		return false;
	for (int c = 0; c < m->n_loops; c++)
		m->state[c] = UNDECIDED;
	const stir_stmt *b = m->blk;
	for (int i = 0; i < nv; i++) {
		const stir_expr *e = b->u.block.bindings[i];
		m->var_loop[i] = -1;
		for (int c = 0; c < m->n_loops; c++) {
			const stir_var *lv = p->stmt[m->top + c]->u.for_.var;
			if (!stir_expr_uses(e, lv))
				continue;
			if (e->kind != STIR_EXPR_VAR || m->var_loop[i] >= 0) {
				sched_fail(s, b->loc, "block '%s' binds variable '%s' to "
					"%s, not to one of its loops", b->u.block.name,
					b->u.block.vars[i]->name, sched_str(s, e));
				return false;
			}
			m->var_loop[i] = c;
		}
	}
	for (int c = 0; c < m->n_loops; c++) {
		const stir_var *lv = p->stmt[m->top + c]->u.for_.var;
		int uses = 0;
		for (int i = 0; i < nv; i++)
			uses += m->var_loop[i] == c;
		bool elsewhere = false;
		for (int i = 0; i < b->u.block.body.n; i++)
			elsewhere |= stir_stmt_uses(stir_stmt_at(&b->u.block.body, i),
				lv);
		if (uses > 1 || elsewhere) {
			sched_fail(s, b->loc, "block '%s' uses loop '%s' other than "
				"through one variable", b->u.block.name, lv->name);
			return false;
		}
	}
	return true;
}

/* One buffer M writes (compute_at) or reads (reverse): per dimension the
 * chain loop whose variable indexes it, or -1 when invariant.  A flat
 * buffer indexed "(v0 * E1 + v1) * E2 + v2 .." (a stage III offset of
 * several dimensions), each vd bound to a chain loop of extent Ed, counts
 * as that many dimensions, delinearized by those radices. */
typedef struct mbuf {
	stir_buffer *buf;
	stir_buffer *through;    /* accessed through it (sched_acc.through) */
	int n;                   /* dimensions */
	int dim_loop[16];
	bool flat;               /* delinearized flat index */
	stir_expr *radix[16];    /* radix[d], d >= 1: the extent of dimension
	                            d (flat only) */
} mbuf;

/* The buffers of a move. */
typedef struct mbufs {
	int n;
	mbuf v[32];
} mbufs;

/* m, e: the chain loop that e, a variable of M, is bound to, or -1. */
static int var_chain(const mover *m, const stir_expr *e)
{
	const stir_stmt *b = m->blk;
	for (int i = 0; e->kind == STIR_EXPR_VAR && i < b->u.block.n_vars; i++)
		if (e->u.var == b->u.block.vars[i])
			return m->var_loop[i];
	return -1;
}

/* s, m, e, parts, radix: split the flat index e of M into variables of M
 * bound to chain loops, "(v0 * E1 + v1) * E2 + v2 ..", with Ed the extent
 * of vd's loop; the number of parts (at least 2), or 0. */
static int delinearize(sched *s, const mover *m, stir_expr *e,
	stir_expr **parts, stir_expr **radix)
{
	stir_expr *p[16], *r[16];
	int n = 0;
	while (n < 15 && e->kind == STIR_EXPR_BINARY &&
	       e->u.binary.op == STIR_ADD &&
	       e->u.binary.a->kind == STIR_EXPR_BINARY &&
	       e->u.binary.a->u.binary.op == STIR_MUL) {
		int c = var_chain(m, e->u.binary.b);
		if (c < 0 || !sched_same(s, e->u.binary.a->u.binary.b,
		    m->path.stmt[m->top + c]->u.for_.extent))
			break;
		p[n] = e->u.binary.b;
		r[n++] = e->u.binary.a->u.binary.b;
		e = e->u.binary.a->u.binary.a;
	}
	if (!n || var_chain(m, e) < 0)
		return 0;
	parts[0] = e;
	radix[0] = NULL;
	for (int i = 0; i < n; i++) {
		parts[i + 1] = p[n - 1 - i];
		radix[i + 1] = r[n - 1 - i];
	}
	return n + 1;
}

/* s, m, a, out, verb: the dimensions of access a by M (collected with M
 * as the root, so xidx is in terms of M's chain loops); added to out. */
static bool add_mbuf(sched *s, mover *m, const sched_acc *a, mbufs *out,
	const char *verb)
{
	const stir_stmt *b = m->blk;
	mbuf *mb = NULL;
	for (int i = 0; i < out->n; i++)
		if (out->v[i].buf == a->buf)
			mb = &out->v[i];
	if (a->n > 16 || (!mb && out->n == 32)) {
		sched_fail(s, b->loc, "block '%s' accesses too many buffers or "
			"dimensions", b->u.block.name);
		return false;
	}
	stir_expr *parts[16], *radix[16];
	int n = a->n;
	bool flat = false;
	for (int d = 0; d < n; d++)
		parts[d] = a->idx[d];
	if ((a->through ? a->through : a->buf)->n_axes == 0 && n == 1) {
		int nd = delinearize(s, m, a->idx[0], parts, radix);
		if (nd) {
			n = nd;
			flat = true;
		}
	}
	if (mb && (mb->n != n || mb->flat != flat || mb->through != a->through)) {
		sched_fail(s, b->loc, "block '%s' %s '%s' at different places",
			b->u.block.name, verb, a->buf->name);
		return false;
	}
	for (int d = 0; d < n; d++) {
		const stir_expr *e = parts[d];
		int c = var_chain(m, e);
		if (c < 0)
			for (int j = 0; j < m->n_loops; j++)
				if (stir_expr_uses(a->xidx[d],
				    m->path.stmt[m->top + j]->u.for_.var)) {
					sched_fail(s, b->loc, "block '%s' %s '%s' at an "
						"index that is not one of its variables: %s",
						b->u.block.name, verb, a->buf->name,
						sched_str(s, e));
					return false;
				}
		if (mb && mb->dim_loop[d] != c) {
			sched_fail(s, b->loc, "block '%s' %s '%s' at different "
				"places", b->u.block.name, verb, a->buf->name);
			return false;
		}
		if (!mb)
			out->v[out->n].dim_loop[d] = c;
	}
	if (!mb) {
		mbuf *nb = &out->v[out->n++];
		nb->buf = a->buf;
		nb->through = a->through;
		nb->n = n;
		nb->flat = flat;
		for (int d = 1; flat && d < n; d++)
			nb->radix[d] = radix[d];
	}
	return true;
}

/* s, acc, mb, x, q: the parts of the expanded flat index x by the radices
 * of mb; whether it splits so, with every part after the first that
 * varies being a loop inside the subtree over exactly its radix (so that
 * the index stays in the row the other parts fix). */
static bool split_parts(sched *s, const sched_accs *acc, const mbuf *mb,
	stir_expr *x, stir_expr **q)
{
	for (int d = mb->n - 1; d >= 1; d--) {
		if (x->kind != STIR_EXPR_BINARY || x->u.binary.op != STIR_ADD ||
		    x->u.binary.a->kind != STIR_EXPR_BINARY ||
		    x->u.binary.a->u.binary.op != STIR_MUL ||
		    !sched_same(s, x->u.binary.a->u.binary.b, mb->radix[d]))
			return false;
		q[d] = x->u.binary.b;
		if (sched_varies(acc, q[d])) {
			const stir_stmt *l = q[d]->kind == STIR_EXPR_VAR &&
				sched_is_inner(acc, q[d]->u.var) ?
				sched_def(s, q[d]->u.var) : NULL;
			if (!l || l->kind != STIR_STMT_FOR ||
			    !sched_same(s, l->u.for_.extent, mb->radix[d]))
				return false;
		}
		x = x->u.binary.a->u.binary.a;
	}
	q[0] = x;
	return true;
}

/* s, acc, mb, stores, need: per dimension of mb's buffer, the point the
 * accesses of acc (with stores only when "stores") need, or NULL for the
 * whole dimension.  Whether any access was found. */
static bool need_region(sched *s, const sched_accs *acc, const mbuf *mb,
	bool stores, stir_expr **need)
{
	const stir_buffer *x = mb->buf;
	int n = mb->n;
	bool found = false;
	bool *whole = sched_check(s, stir_kernel_array(s->k, (size_t)n,
		sizeof(*whole)));
	if (!whole)
		return false;
	for (int d = 0; d < n; d++) {
		need[d] = NULL;
		whole[d] = false;
	}
	for (int i = 0; i < acc->n; i++) {
		const sched_acc *a = &acc->v[i];
		if (a->buf != x || (stores && !a->store))
			continue;
		stir_expr *parts[16];
		/* through another buffer (or none): the whole of every
		 * dimension */
		bool split = a->through == mb->through;
		if (split && mb->flat)
			split = a->n == 1 && split_parts(s, acc, mb, a->xidx[0], parts);
		else if (split)
			for (int d = 0; d < n; d++)
				parts[d] = d < a->n ? a->xidx[d] : NULL;
		for (int d = 0; d < n; d++) {
			stir_expr *e = split ? parts[d] : NULL;
			if (!e || sched_varies(acc, e))
				whole[d] = true;
			else if (!found)
				need[d] = e;
			else if (!need[d] || !sched_same(s, need[d], e))
				whole[d] = true;
		}
		found = true;
	}
	for (int d = 0; d < n; d++)
		if (whole[d])
			need[d] = NULL;
	return found;
}

/* The place a block moves to. */
typedef struct place {
	sched_path *path;        /* path to the neighbouring block of N */
	int e;                   /* the new place is in path->list[e] */
	int at;                  /* at this index (before insertion) */
	stir_stmt *sub;          /* the neighbouring subtree: path->stmt[e] */
	int d0;                  /* the common list is path->list[d0] */
	bool after;              /* M comes after N (reverse) */
} place;

/* s, m, pl: find the common list; whether M's chain lies in a list on the
 * path, before (or after) it. */
static bool find_common(sched *s, const mover *m, place *pl, const char *what)
{
	stir_ptr_vec *list = m->path.list[m->top];
	int a = m->path.index[m->top];
	for (int d = 0; d <= pl->e; d++) {
		if (pl->path->list[d] != list)
			continue;
		int b = pl->path->index[d];
		if (pl->after ? a > b : a < b) {
			pl->d0 = d;
			return true;
		}
		break;
	}
	sched_fail(s, m->blk->loc, "block '%s' does not come %s %s in one "
		"statement list", m->blk->u.block.name,
		pl->after ? "after" : "before", what);
	return false;
}

/* s, pl, m: no if between the common list and the new place. */
static bool check_enclosing(sched *s, const place *pl, const mover *m)
{
	for (int j = pl->d0; j < pl->e; j++) {
		const stir_stmt *st = pl->path->stmt[j];
		if (st->kind == STIR_STMT_IF) {
			sched_fail(s, st->loc, "an if statement lies between block "
				"'%s' and its new place", m->blk->u.block.name);
			return false;
		}
	}
	return true;
}

/* s, m, pl, bufs, acc, what: decide for every chain loop whether it stays or
 * becomes an enclosing loop; check the extents and that every enclosing
 * loop is matched once. */
static bool decide(sched *s, mover *m, const place *pl, const mbufs *bufs,
	const sched_accs *acc, const char *what)
{
	const stir_stmt *b = m->blk;
	bool found = false;
	for (int i = 0; i < bufs->n; i++) {
		const mbuf *mb = &bufs->v[i];
		stir_expr *need[16];
		found |= need_region(s, acc, mb, pl->after, need);
		for (int d = 0; d < mb->n; d++) {
			int c = mb->dim_loop[d];
			if (c < 0)
				continue;
			int o = -1;
			if (need[d] && need[d]->kind == STIR_EXPR_VAR) {
				const stir_var *v = sched_canon(s, need[d]->u.var);
				for (int j = pl->d0; j < pl->e; j++)
					if (pl->path->stmt[j]->kind == STIR_STMT_FOR &&
					    pl->path->stmt[j]->u.for_.var == v)
						o = j;
			}
			if (o < 0) {
				m->state[c] = KEEP;
			} else if (m->state[c] == UNDECIDED) {
				m->state[c] = o;
				m->point[c] = need[d];
			} else if (m->state[c] >= 0 && m->state[c] != o) {
				sched_fail(s, b->loc, "block '%s' would need loop '%s' at "
					"two places", b->u.block.name,
					m->path.stmt[m->top + c]->u.for_.var->name);
				return false;
			}
		}
	}
	if (!found) {
		sched_fail(s, pl->sub->loc, "%s %s nothing that block '%s' %s",
			what, pl->after ? "writes" : "accesses", b->u.block.name,
			pl->after ? "reads" : "writes");
		return false;
	}
	for (int c = 0; c < m->n_loops; c++)
		if (m->state[c] == UNDECIDED)
			m->state[c] = KEEP;
	for (int j = pl->d0; j < pl->e; j++) {
		const stir_stmt *o = pl->path->stmt[j];
		if (o->kind != STIR_STMT_FOR)
			continue;
		int n = 0;
		for (int c = 0; c < m->n_loops; c++)
			n += m->state[c] == j;
		if (n != 1) {
			sched_fail(s, o->loc, "loop '%s' encloses the new place of "
				"block '%s' but %s", o->u.for_.var->name,
				b->u.block.name, n ? "indexes what it computes twice" :
				"no loop of the block matches it");
			return false;
		}
	}
	/* extents, with the loops replaced so far substituted */
	stir_subst sub = { 0 };
	bool ok = true;
	for (int c = 0; c < m->n_loops && ok && !s->oom; c++) {
		const stir_stmt *l = m->path.stmt[m->top + c];
		if (m->state[c] < 0)
			continue;
		const stir_stmt *o = pl->path->stmt[m->state[c]];
		stir_expr *ext = sched_check(s, stir_expr_copy(s->k,
			l->u.for_.extent, &sub));
		if (ext && !sched_same(s, ext, o->u.for_.extent)) {
			sched_fail(s, l->loc, "loop '%s' of block '%s' has extent %s "
				"but loop '%s' has extent %s", l->u.for_.var->name,
				b->u.block.name, sched_str(s, l->u.for_.extent),
				o->u.for_.var->name, sched_str(s, o->u.for_.extent));
			ok = false;
		}
		if (stir_subst_add_expr(&sub, l->u.for_.var, m->point[c]) < 0)
			s->oom = true;
	}
	stir_subst_release(&sub);
	return ok && !s->oom;
}

/* st, writes, reads: whether statement st conflicts with M:
 * it accesses a buffer M writes or writes one M reads. */
static const stir_buffer *conflict(const stir_stmt *st, const mbufs *writes,
	const mbufs *reads)
{
	for (int i = 0; i < writes->n; i++)
		if (sched_count_accesses(st, writes->v[i].buf))
			return writes->v[i].buf;
	for (int i = 0; i < reads->n; i++)
		if (stir_stmt_writes(st, reads->v[i].buf))
			return reads->v[i].buf;
	return NULL;
}

/* s, m, pl, writes, reads: the statements M's move jumps over, and the
 * rest of the nest N, leave M's buffers alone. */
static bool check_between(sched *s, const mover *m, const place *pl,
	const mbufs *writes, const mbufs *reads)
{
	const stir_ptr_vec *list = pl->path->list[pl->d0];
	int a = m->path.index[m->top], b = pl->path->index[pl->d0];
	int from = pl->after ? b + 1 : a + 1, to = pl->after ? a : b;
	const char *name = m->blk->u.block.name;
	for (int i = from; i < to; i++) {
		const stir_stmt *st = stir_stmt_at(list, i);
		const stir_buffer *x = conflict(st, writes, reads);
		if (x) {
			sched_fail(s, st->loc, "a statement between block '%s' and "
				"its new place accesses '%s'", name, x->name);
			return false;
		}
	}
	/* inside N: only the neighbouring subtree may touch what M writes,
	 * and nothing may write what M reads, but for the buffers a consumer
	 * takes from its producer, which only that producer writes */
	const stir_stmt *n = pl->path->stmt[pl->d0];
	for (int i = 0; i < writes->n; i++) {
		const stir_buffer *x = writes->v[i].buf;
		int outside = sched_count_accesses(n, x) -
			(pl->after ? 0 : sched_count_accesses(pl->sub, x));
		if (outside) {
			sched_fail(s, n->loc, "'%s', which block '%s' writes, is "
				"accessed elsewhere in the nest of its new place",
				x->name, name);
			return false;
		}
	}
	for (int i = 0; i < reads->n; i++) {
		const stir_buffer *x = reads->v[i].buf;
		int outside = sched_count_stores(n, x) -
			(pl->after ? sched_count_stores(pl->sub, x) : 0);
		if (outside) {
			sched_fail(s, n->loc, "'%s', which block '%s' reads, is "
				"written elsewhere in the nest of its new place",
				x->name, name);
			return false;
		}
	}
	return true;
}

/* s, m, pl: move M: remove its chain from the common list, rebuild it
 * with the kept loops and the new bindings, insert it at the new place,
 * rename what clashes there. */
static int move(sched *s, mover *m, place *pl)
{
	stir_kernel *k = s->k;
	sched_names names;
	if (sched_scope_names(s, pl->path, pl->e, pl->path->list[pl->e],
	    pl->at, &names) < 0)
		return -1;
	stir_subst sub = { 0 };
	for (int c = 0; c < m->n_loops; c++)
		if (m->state[c] >= 0 &&
		    stir_subst_add_expr(&sub, m->path.stmt[m->top + c]->u.for_.var,
		    m->point[c]) < 0)
			s->oom = true;
	stir_stmt *b = m->blk;
	for (int i = 0; i < b->u.block.n_vars && !s->oom; i++) {
		stir_expr *e = sched_check(s, stir_expr_copy(k,
			b->u.block.bindings[i], &sub));
		b->u.block.bindings[i] = sched_check(s, sched_cast(k, e,
			b->u.block.vars[i]->dtype));
	}
	stir_stmt *nest = b;
	for (int c = m->n_loops - 1; c >= 0 && !s->oom; c--) {
		stir_stmt *l = m->path.stmt[m->top + c];
		if (m->state[c] >= 0)
			continue;
		l->u.for_.extent = sched_check(s, stir_expr_copy(k,
			l->u.for_.extent, &sub));
		l->u.for_.body.n = 0;
		if (stir_stmt_append_body(l, nest) < 0)
			s->oom = true;
		nest = l;
	}
	stir_subst_release(&sub);
	if (s->oom) {
		sched_names_release(&names);
		return -1;
	}
	stir_ptr_vec *from = m->path.list[m->top];
	int a = m->path.index[m->top];
	stir_ptr_vec *to = pl->path->list[pl->e];
	int at = pl->at;
	sched_list_remove(from, a);
	if (from == to && a < at)
		at--;
	sched_list_insert(s, to, at, nest);
	sched_rename_clashes(s, nest, &names);
	sched_names_release(&names);
	return s->oom ? -1 : 0;
}

/* s, m, pl, what: the whole move of M to place pl ("what" names the
 * neighbour in messages). */
static int move_block(sched *s, mover *m, place *pl, const char *what)
{
	stir_stmt *b = m->blk;
	const char *name = b->u.block.name;
	if (!find_common(s, m, pl, what) || !check_enclosing(s, pl, m))
		return -1;
	stir_stmt *atomic = sched_atomic_around(pl->path, pl->e);
	/* what M writes and reads, by dimension */
	sched_accs macc;
	s->through = true;
	if (sched_collect(s, b, NULL, &macc) < 0)
		return -1;
	mbufs writes = { 0 }, reads = { 0 }, keyed = { 0 };
	bool ok = true;
	for (int i = 0; i < macc.n && ok; i++) {
		const sched_acc *a = &macc.v[i];
		if (a->store) {
			mbufs *w = &writes;
			int j = 0;
			while (j < w->n && w->v[j].buf != a->buf)
				j++;
			if (j == w->n && w->n < 32)
				w->v[w->n++] = (mbuf){ .buf = a->buf };
			if (!pl->after)
				ok = add_mbuf(s, m, a, &keyed, "writes");
		} else {
			mbufs *r = &reads;
			int j = 0;
			while (j < r->n && r->v[j].buf != a->buf)
				j++;
			if (j == r->n && r->n < 32)
				r->v[r->n++] = (mbuf){ .buf = a->buf };
		}
	}
	for (int i = 0; i < macc.n && ok; i++) {
		const sched_acc *a = &macc.v[i];
		if (a->store) {
			stir_store_op op = a->store->u.store.op;
			if (atomic && op != STIR_STORE_ADD && op != STIR_STORE_SUB) {
				sched_fail(s, b->loc, "block '%s' would move into atomic "
					"block '%s'", name, atomic->u.block.name);
				ok = false;
			}
			continue;
		}
		for (int j = 0; j < writes.n && ok; j++)
			if (writes.v[j].buf == a->buf) {
				sched_fail(s, b->loc, "block '%s' reads '%s', which it "
					"writes", name, a->buf->name);
				ok = false;
			}
		/* a consumer is keyed by what it reads from the producer */
		if (ok && pl->after && sched_count_stores(pl->sub, a->buf)) {
			if (a->n == 0) {
				sched_fail(s, b->loc, "block '%s' searches '%s'", name,
					a->buf->name);
				ok = false;
			} else {
				ok = add_mbuf(s, m, a, &keyed, "reads");
			}
		}
	}
	sched_accs_release(&macc);
	if (!ok || s->failed)
		return -1;
	if (!keyed.n) {
		sched_fail(s, b->loc, "block '%s' %s nothing that %s %s", name,
			pl->after ? "reads" : "writes", what,
			pl->after ? "writes" : "accesses");
		return -1;
	}
	sched_accs nacc;
	if (sched_collect(s, pl->sub, NULL, &nacc) < 0)
		return -1;
	ok = decide(s, m, pl, &keyed, &nacc, what);
	sched_accs_release(&nacc);
	if (!ok || !check_between(s, m, pl, &writes, &reads))
		return -1;
	/* a bound loop would change launches and thread mappings */
	for (int c = 0; c < m->n_loops; c++) {
		const stir_stmt *l = m->path.stmt[m->top + c];
		if (m->state[c] == KEEP && l->u.for_.kind == STIR_LOOP_BIND) {
			sched_fail(s, l->loc, "loop '%s' of block '%s' is %s; move the "
				"block before binding its loops", l->u.for_.var->name,
				name, sched_loop_annotation(l));
			return -1;
		}
	}
	return move(s, m, pl);
}

/* k, block, target, loop, after: move block into loop "loop" of the
 * nest of block target: before target's statement there (compute_at), or
 * after it (reverse_compute_at, "after"). */
static int compute_at(stir_kernel *k, const char *block, const char *target,
	const char *loop, bool after)
{
	const char *name = after ? "reverse_compute_at" : "compute_at";
	sched s;
	if (sched_begin(&s, k, name) < 0)
		return -1;
	mover m;
	sched_path p = { 0 };
	int li;
	if (mover_init(&s, &m, block) &&
	    (li = sched_find_block_loop(&s, target, loop, &p)) >= 0) {
		place pl = { .path = &p, .e = li + 1,
			.at = p.index[li + 1] + (after ? 1 : 0),
			.sub = p.stmt[li + 1], .after = after };
		char what[300];
		snprintf(what, sizeof(what), "block '%s'", target);
		move_block(&s, &m, &pl, what);
	}
	sched_path_release(&p);
	mover_release(&m);
	return stir_kernel_log_step(k, sched_end(&s), "%s: {block: %s, "
		"target: %s, loop: %s}", name, block, target, loop);
}

/* k, block, target, loop: see include/stir/schedule.h. */
int stir_compute_at(stir_kernel *k, const char *block, const char *target,
	const char *loop)
{
	return compute_at(k, block, target, loop, false);
}

/* k, block, target, loop: see include/stir/schedule.h. */
int stir_reverse_compute_at(stir_kernel *k, const char *block,
	const char *target, const char *loop)
{
	return compute_at(k, block, target, loop, true);
}

/* ---- decompose_reduction ---- */

/* The init blocks of an iteration. */
typedef struct init_find {
	const stir_stmt *blk;    /* a block of the iteration */
	stir_stmt *found[8];     /* outermost init blocks */
	int n;
} init_find;

/* f, list: collect the outermost init blocks in list. */
static void find_inits(init_find *f, stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++) {
		stir_stmt *st = stir_stmt_at(list, i);
		if (st->kind == STIR_STMT_BLOCK &&
		    stir_block_is_init_of(st, f->blk)) {
			if (f->n < 8)
				f->found[f->n] = st;
			f->n++;
			continue;
		}
		if (st->kind == STIR_STMT_IF) {
			find_inits(f, &st->u.if_.then_body);
			find_inits(f, &st->u.if_.else_body);
		} else if (stir_stmt_body(st)) {
			find_inits(f, stir_stmt_body(st));
		}
	}
}

/* s, block, loop: decompose_reduction. */
static int decompose(sched *s, const char *block, const char *loop)
{
	sched_path p = { 0 };
	mover m = { 0 };
	int li, rc = -1;
	if ((li = sched_find_block_loop(s, block, loop, &p)) < 0)
		goto out;
	stir_stmt *l = p.stmt[li];
	/* the loops around "loop" must be spatial */
	if (!sched_spatial_around(s, &p, li))
		goto out;
	/* the init blocks of the block's iteration (linked by lowering) */
	const stir_stmt *b = p.stmt[p.n - 1];
	init_find f = { .blk = b };
	find_inits(&f, &s->k->body);
	const char *it = b->u.block.iter;
	if (!it) {
		/* no link, so no init nest (stir_block_is_init_of) */
		sched_fail(s, b->loc, "block '%s' has no iteration (no 'iter' "
			"link), so no init block to move", block);
		goto out;
	}
	if (f.n != 1) {
		if (f.n == 0)
			sched_fail(s, b->loc, "iteration '%s' of block '%s' has no "
				"init block '%s_init0'", it, block, it);
		else
			sched_fail(s, b->loc, "iteration '%s' of block '%s' has %d "
				"init nests", it, block, f.n);
		goto out;
	}
	if (!mover_init(s, &m, f.found[0]->u.block.name))
		goto out;
	place pl = { .path = &p, .e = li, .at = p.index[li], .sub = l };
	char what[300];
	snprintf(what, sizeof(what), "loop '%s'", loop);
	rc = move_block(s, &m, &pl, what);
out:
	mover_release(&m);
	sched_path_release(&p);
	return rc;
}

/* k, block, loop: see include/stir/schedule.h. */
int stir_decompose_reduction(stir_kernel *k, const char *block,
	const char *loop)
{
	sched s;
	if (sched_begin(&s, k, "decompose_reduction") < 0)
		return -1;
	decompose(&s, block, loop);
	return stir_kernel_log_step(k, sched_end(&s), "decompose_reduction: "
		"{block: %s, loop: %s}", block, loop);
}
