/* The interpreter: runs a kernel of any stage on host arrays.  Stage I
 * follows docs/language.md section 5 (coordinates, searches, absent
 * elements); stages II and III follow docs/ir.md (relative positions, flat
 * indices, loops and blocks).  The stage I interpreter is the reference
 * that every lowered stage and every GPU kernel is checked against, so all
 * of it favours plainness over speed: a tree walk with one value slot per
 * variable.  What it does at every point of an iteration is kept cheap
 * all the same (the --check of tools/run-gpu-tests runs stage I on graphs
 * of 150,000 edges times 1,024 features): a buffer's array and the layout
 * of each of its axes are looked up once per run (buffer_view), not at
 * each access.
 *
 * Requires: a kernel that passed the verifier.
 * Run-time errors (division by zero, an attach whose parent position has
 * no row; in stages II and III any access or search out of bounds, which
 * only a wrong lowering or schedule can cause) stop the run with a located
 * diagnostic. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ir/interp_value.h"
#include "ir/intrinsics.h"
#include "ir/layout.h"

/* An axis of a buffer as a stage I access walks it. */
typedef struct access_axis {
	const stir_axis *axis;
	const stir_axis_layout *layout;  /* its sizes and arrays */
	bool child;               /* its positions lie under its parent's */
	bool ends_chain;          /* stir_buffer_axis_ends_chain */
} access_axis;

/* A buffer as the interpreter accesses it: f32, f64, i32 and i64
 * elements in place, the other types through the array; its axes with
 * what an access needs of each at hand (a tree walk spends most of its
 * time in accesses: this saves calls, switches and pointer chases). */
typedef struct buffer_view {
	stir_array *array;        /* tensors borrowed, locals owned */
	void *data;               /* the array's elements */
	stir_dtype dtype;         /* the array's element type */
	access_axis *axes;        /* owned: one per axis of the buffer */
} buffer_view;

/* Where an iterator stands: its position and its parent's (-1, -1 when
 * it stands nowhere). */
typedef struct iter_pos {
	int64_t pos, parent;
} iter_pos;

typedef struct interp {
	stir_ctx *ctx;            /* receives run-time errors */
	const stir_kernel *k;     /* the kernel being run */
	stir_layout layout;       /* sizes and structure arrays */
	buffer_view *views;       /* value array of each buffer, by index */
	stir_value *vals;         /* value of each variable, by slot */
	iter_pos *iters;          /* ITER variables: where each stands, by slot */
	int64_t *axis_pos;        /* current position of each axis, -1 if none */
	bool failed;              /* a run-time error stopped the run */
	const stir_buffer *tf32[2]; /* inside a nest tensorized with a tf32
	                             intrinsic: its A and B, whose values it
	                             reads rounded to tf32 as the hardware */
} interp;

/* in, buf, off, loc: check a flat offset into buf's array. */
static bool in_bounds(interp *in, const stir_buffer *buf, int64_t off,
	stir_loc loc);

static stir_value eval(interp *in, const stir_expr *e);
static void exec_list(interp *in, const stir_ptr_vec *list);
static int64_t access_offset(interp *in, const stir_buffer *buf, int n,
	stir_expr *const *idx);

/* in, loc, msg: report a run-time error at loc and stop the run. */
static void runtime_error(interp *in, stir_loc loc, const char *msg)
{
	if (!in->failed)
		stir_error(in->ctx, loc, "%s", msg);
	in->failed = true;
}

/* v, i: element i of a buffer's array. */
static stir_value view_load(const buffer_view *v, int64_t i)
{
	stir_value x;
	switch (v->dtype) {
	case STIR_F32: x.f = ((const float *)v->data)[i]; return x;
	case STIR_F64: x.f = ((const double *)v->data)[i]; return x;
	case STIR_I32: x.i = ((const int32_t *)v->data)[i]; return x;
	case STIR_I64: x.i = ((const int64_t *)v->data)[i]; return x;
	default: return stir_value_load(v->array, i);
	}
}

/* v, i, x: store x (of the array's type) into element i. */
static void view_store(buffer_view *v, int64_t i, stir_value x)
{
	switch (v->dtype) {
	case STIR_F32: ((float *)v->data)[i] = (float)x.f; break;
	case STIR_F64: ((double *)v->data)[i] = x.f; break;
	case STIR_I32: ((int32_t *)v->data)[i] = (int32_t)x.i; break;
	case STIR_I64: ((int64_t *)v->data)[i] = x.i; break;
	default: stir_value_store(v->array, i, x); break;
	}
}

/* in, buf, n, idx: the offset of buf[idx..] in its value array, or -1 when
 * a coordinate is not stored (docs/language.md section 5, "Access"). */
static int64_t access_offset(interp *in, const stir_buffer *buf, int n,
	stir_expr *const *idx)
{
	const access_axis *axes = in->views[buf->index].axes;
	int64_t offset = 0, prev_pos = -1;
	if (n > buf->n_axes)
		n = buf->n_axes;
	for (int k = 0; k < n; k++) {
		const stir_axis *a = axes[k].axis;
		int64_t pp = axes[k].child ? prev_pos : -1;
		const stir_expr *e = idx[k];
		const stir_var *v = e->kind == STIR_EXPR_VAR ? e->u.var : NULL;
		const iter_pos *at = v ? &in->iters[v->slot] : NULL;
		int64_t pos;
		if (v && v->axis == a && at->pos >= 0 && at->parent == pp) {
			pos = at->pos;
		} else {
			stir_value c = v ? in->vals[v->slot] : eval(in, e);
			if (in->failed)
				return -1;
			pos = stir_layout_lookup(&in->layout, a, pp, c.i);
			if (pos < 0) {
				/* absent; the later indices are still evaluated, as
				 * the lowered stages do, so that a run-time error in
				 * one (a division by zero) is an error at every stage */
				for (int j = k + 1; j < n && !in->failed; j++)
					eval(in, idx[j]);
				return -1;
			}
		}
		if (axes[k].ends_chain)
			offset = offset * axes[k].layout->npos + pos;
		prev_pos = pos;
	}
	return offset;
}

/* in, buf, n, idx: the offset of buf[idx..] in stages II and III: one
 * flat index, or one relative position per axis (docs/ir.md, "Access in
 * stage II"); -1 after a run-time error when out of bounds. */
static int64_t position_offset(interp *in, const stir_buffer *buf, int n,
	stir_expr *const *idx, stir_loc loc)
{
	if (buf->n_axes == 0) {
		stir_value v = eval(in, idx[0]);
		if (in->failed || !in_bounds(in, buf, v.i, loc))
			return -1;
		return v.i;
	}
	int64_t offset = 0, gpos = -1;
	for (int k = 0; k < n && k < buf->n_axes; k++) {
		const stir_axis *a = buf->axes[k];
		stir_value p = eval(in, idx[k]);
		if (in->failed)
			return -1;
		int64_t lo, hi;
		stir_layout_range(&in->layout, a, gpos, &lo, &hi);
		if (p.i < 0 || p.i >= hi - lo) {
			stir_error(in->ctx, loc, "position %" PRId64 " of axis '%s' is "
				"out of range [0, %" PRId64 ") in an access to '%s'", p.i,
				a->name, hi - lo, buf->name);
			in->failed = true;
			return -1;
		}
		gpos = lo + p.i;
		if (stir_buffer_axis_ends_chain(buf, k))
			offset = offset * in->layout.axes[a->index].npos + gpos;
	}
	return offset;
}

static bool in_bounds(interp *in, const stir_buffer *buf, int64_t off,
	stir_loc loc)
{
	int64_t len = in->layout.buffer_len[buf->index];
	if (off >= 0 && off < len)
		return true;
	stir_error(in->ctx, loc, "index %" PRId64 " is out of bounds of '%s' "
		"(%" PRId64 " elements)", off, buf->name, len);
	in->failed = true;
	return false;
}

/* in, buf, n, idx, loc: the offset of an access at the kernel's stage, or
 * -1 (absent in stage I, or a run-time error). */
static int64_t offset_of(interp *in, const stir_buffer *buf, int n,
	stir_expr *const *idx, stir_loc loc)
{
	if (in->k->stage == STIR_STAGE_1)
		return access_offset(in, buf, n, idx);
	return position_offset(in, buf, n, idx, loc);
}

/* in, e: a search (lower_bound, upper_bound or find). */
static stir_value eval_search(interp *in, const stir_expr *e)
{
	stir_value lo = eval(in, e->u.search.lo), hi = eval(in, e->u.search.hi);
	stir_value x = eval(in, e->u.search.x), r = { 0 };
	if (in->failed)
		return r;
	const stir_buffer *buf = e->u.search.buf;
	int64_t len = in->layout.buffer_len[buf->index];
	if (lo.i < 0 || lo.i > hi.i || hi.i > len) {
		stir_error(in->ctx, e->loc, "search range [%" PRId64 ", %" PRId64
			") is out of bounds of '%s' (%" PRId64 " elements)", lo.i, hi.i,
			buf->name, len);
		in->failed = true;
		return r;
	}
	const stir_array *a = in->views[buf->index].array;
	if (e->u.search.op == STIR_FIND) {
		while (lo.i < hi.i && stir_array_get_int(a, lo.i) != x.i)
			lo.i++;
		return lo;
	}
	bool upper = e->u.search.op == STIR_UPPER_BOUND;
	while (lo.i < hi.i) {
		int64_t mid = lo.i + (hi.i - lo.i) / 2;
		int64_t v = stir_array_get_int(a, mid);
		if (v < x.i || (upper && v == x.i))
			lo.i = mid + 1;
		else
			hi.i = mid;
	}
	r.i = lo.i;
	return r;
}

/* in, e: evaluate a binary operation. */
static stir_value eval_binary(interp *in, const stir_expr *e)
{
	stir_binop op = e->u.binary.op;
	const stir_expr *ea = e->u.binary.a, *eb = e->u.binary.b;
	stir_value a = eval(in, ea), r = { 0 };
	if (in->failed)
		return r;
	if (op == STIR_AND || op == STIR_OR) {
		if ((op == STIR_AND) != (a.i != 0))
			return a;          /* short circuit */
		return eval(in, eb);
	}
	stir_value b = eval(in, eb);
	if (in->failed)
		return r;
	if (op >= STIR_LT && op <= STIR_NE)
		return stir_value_compare(op, ea->dtype, a, eb->dtype, b);
	if ((op == STIR_DIV || op == STIR_MOD) && stir_dtype_is_int(e->dtype) &&
	    b.i == 0) {
		runtime_error(in, e->loc, "integer division by zero");
		return r;
	}
	return stir_value_arith(op, e->dtype, a, b);
}

/* in, e: evaluate a call of min max abs exp log sqrt tanh. */
static stir_value eval_call(interp *in, const stir_expr *e)
{
	stir_value args[2] = { { 0 }, { 0 } };
	for (int i = 0; i < e->u.call.n && i < 2; i++) {
		args[i] = eval(in, e->u.call.args[i]);
		if (in->failed)
			return args[0];
	}
	return stir_value_call(e->u.call.f, e->dtype, args);
}

/* in, e: evaluate e; integers and bools in .i, floats in .f, already
 * rounded or wrapped to e->dtype. */
/* in, x: the value of a hoisted let, x.  A read of a warp buffer moved
 * before its loop (hoist_warp_reads) may stand where the index is out of
 * the buffer, where the loop would not have read it (no iteration, or a
 * condition): its value is then 0, never used (docs/ir.md). */
static stir_value eval_hoisted(interp *in, const stir_expr *x)
{
	stir_value zero = { 0 };
	if (x->kind == STIR_EXPR_LOAD && x->u.load.n == 1 &&
	    x->u.load.buf->scope == STIR_SCOPE_WARP) {
		stir_value i = eval(in, x->u.load.idx[0]);
		if (in->failed || i.i < 0 ||
		    i.i >= in->layout.buffer_len[x->u.load.buf->index])
			return zero;
	}
	return eval(in, x);
}

static stir_value eval(interp *in, const stir_expr *e)
{
	stir_value v = { 0 };
	switch (e->kind) {
	case STIR_EXPR_INT:
		if (stir_dtype_is_float(e->dtype))
			v.f = stir_value_round(e->dtype, (double)e->u.i);
		else
			v.i = stir_value_wrap(e->dtype, e->u.i);
		return v;
	case STIR_EXPR_FLOAT:
		v.f = stir_value_round(e->dtype, e->u.f);
		return v;
	case STIR_EXPR_VAR:
		return in->vals[e->u.var->slot];
	case STIR_EXPR_LOAD: {
		const stir_buffer *buf = e->u.load.buf;
		int64_t off = offset_of(in, buf, e->u.load.n, e->u.load.idx, e->loc);
		if (off < 0)
			return v; /* absent: 0 */
		v = view_load(&in->views[buf->index], off);
		if (buf == in->tf32[0] || buf == in->tf32[1])
			v.f = stir_round_tf32(v.f);
		return v;
	}
	case STIR_EXPR_UNARY:
		v = eval(in, e->u.unary.a);
		if (e->u.unary.op == STIR_NOT)
			v.i = !v.i;
		else if (stir_dtype_is_float(e->dtype))
			v.f = stir_value_round(e->dtype, -v.f);
		else
			v.i = stir_value_wrap(e->dtype, (int64_t)(0 - (uint64_t)v.i));
		return v;
	case STIR_EXPR_BINARY:
		return eval_binary(in, e);
	case STIR_EXPR_SELECT:
		v = eval(in, e->u.select.c);
		if (in->failed)
			return v;
		return eval(in, v.i ? e->u.select.a : e->u.select.b);
	case STIR_EXPR_CALL:
		return eval_call(in, e);
	case STIR_EXPR_CAST:
		v = eval(in, e->u.cast.a);
		return stir_value_convert(e->u.cast.a->dtype, e->dtype, v);
	case STIR_EXPR_SEARCH:
		return eval_search(in, e);
	}
	return v;
}

/* in, s: execute a store (skipped when the coordinate is not stored). */
static void exec_store(interp *in, const stir_stmt *s)
{
	const stir_buffer *buf = s->u.store.buf;
	int64_t off = offset_of(in, buf, s->u.store.n, s->u.store.idx, s->loc);
	if (off < 0 || in->failed)
		return;
	const stir_expr *ve = s->u.store.value;
	stir_value v = eval(in, ve);
	if (in->failed)
		return;
	v = stir_value_convert(ve->dtype, buf->dtype, v);
	buffer_view *arr = &in->views[buf->index];
	if (s->u.store.op != STIR_STORE_ASSIGN) {
		static const stir_binop ops[] = {
			[STIR_STORE_ADD] = STIR_ADD,
			[STIR_STORE_SUB] = STIR_SUB,
			[STIR_STORE_MUL] = STIR_MUL,
		};
		v = stir_value_arith(ops[s->u.store.op], buf->dtype,
			view_load(arr, off), v);
	}
	view_store(arr, off, v);
}

/* The iteration being executed and whether its init points or its full
 * space is being enumerated. */
typedef struct iter_run {
	const stir_stmt *s;  /* the ITER statement */
	bool init;           /* enumerate spatial points for init only */
	int *first_var;      /* first variable index of each group */
} iter_run;

/* in, v, a, pos, pp: make iterator v of axis a stand at position pos under
 * parent position pp.  Returns the previous position of a for leave(). */
static int64_t enter(interp *in, const stir_var *v, const stir_axis *a,
	int64_t pos, int64_t pp)
{
	int64_t saved = in->axis_pos[a->index];
	in->axis_pos[a->index] = pos;
	in->iters[v->slot] = (iter_pos){ pos, pp };
	in->vals[v->slot].i = stir_layout_coord(&in->layout, a, pp, pos);
	return saved;
}

/* in, v, a, saved: undo enter(). */
static void leave(interp *in, const stir_var *v, const stir_axis *a,
	int64_t saved)
{
	in->axis_pos[a->index] = saved;
	in->iters[v->slot] = (iter_pos){ -1, -1 };
}

static void run_groups(interp *in, const iter_run *r, int g);

/* in, s, p: the current position of parent axis p (or -1 when p is NULL,
 * for a root), for an axis that s iterates.  A parent
 * that is not being iterated is a run-time error (the verifier prevents
 * it). */
static int64_t parent_pos(interp *in, const stir_stmt *s, const stir_axis *p)
{
	if (!p)
		return -1;
	int64_t pp = in->axis_pos[p->index];
	if (pp < 0)
		runtime_error(in, s->loc, "axis iterated outside its parent");
	return pp;
}

/* in, r, g, member, a, pp: iterate member "member" (axis a) of group g over
 * its positions under parent position pp, continuing at each with the
 * next member or group. */
static void run_axis(interp *in, const iter_run *r, int g, int member,
	const stir_axis *a, int64_t pp);

/* in, r, g, member: continue the enumeration after member "member" of
 * group g (member-wise, used for init points and single axes). */
static void run_next(interp *in, const iter_run *r, int g, int member)
{
	const stir_iter_group *grp = &r->s->u.iter.groups[g];
	if (member + 1 < grp->n_axes) {
		const stir_axis *a = grp->axes[member + 1];
		char kind = r->s->u.iter.kinds[r->first_var[g] + member + 1];
		if (r->init && kind == 'R') {
			run_next(in, r, g, member + 1);
			return;
		}
		int64_t pp = parent_pos(in, r->s, a->parent);
		if (!in->failed)
			run_axis(in, r, g, member + 1, a, pp);
		return;
	}
	run_groups(in, r, g + 1);
}

static void run_axis(interp *in, const iter_run *r, int g, int member,
	const stir_axis *a, int64_t pp)
{
	const stir_var *v = r->s->u.iter.vars[r->first_var[g] + member];
	int64_t lo, hi;
	stir_layout_range(&in->layout, a, pp, &lo, &hi);
	for (int64_t p = lo; p < hi && !in->failed; p++) {
		int64_t saved = enter(in, v, a, p, pp);
		run_next(in, r, g, member);
		leave(in, v, a, saved);
	}
}

/* in, a, p: the first position of child axis a under parent position p
 * (p may be one past the parent's last position). */
static int64_t child_start(interp *in, const stir_axis *a, int64_t p)
{
	const stir_axis_layout *al = &in->layout.axes[a->index];
	if (a->kind == STIR_SPARSE_FIXED)
		return p * al->nnz;
	return stir_array_get_int(al->indptr, p);
}

/* in, r, g: iterate fuse group g as one flat loop over the positions of its
 * last member, deriving every member's position from it. */
static void run_fused(interp *in, const iter_run *r, int g)
{
	const stir_iter_group *grp = &r->s->u.iter.groups[g];
	int n = grp->n_axes;
	/* four arrays of n positions: on the stack for the usual few axes */
	int64_t small[4 * 8], *heap = NULL;
	if (n > 8 && !(heap = malloc(4 * (size_t)n * sizeof(*heap)))) {
		stir_error_oom(in->ctx);
		in->failed = true;
		return;
	}
	int64_t *lo = heap ? heap : small, *hi = lo + (heap ? n : 8);
	int64_t *pos = hi + (heap ? n : 8), *saved = pos + (heap ? n : 8);
	int64_t pp0 = parent_pos(in, r->s, grp->axes[0]->parent);
	if (in->failed) {
		free(heap);
		return;
	}
	stir_layout_range(&in->layout, grp->axes[0], pp0, &lo[0], &hi[0]);
	for (int k = 1; k < n; k++) {
		lo[k] = child_start(in, grp->axes[k], lo[k - 1]);
		hi[k] = child_start(in, grp->axes[k], hi[k - 1]);
	}
	for (int k = 0; k < n; k++)
		pos[k] = lo[k];
	for (int64_t p = lo[n - 1]; p < hi[n - 1] && !in->failed; p++) {
		pos[n - 1] = p;
		/* positions only grow: advance each ancestor to the row that
		 * holds its child's position */
		for (int k = n - 2; k >= 0; k--)
			while (child_start(in, grp->axes[k + 1], pos[k] + 1) <= pos[k + 1])
				pos[k]++;
		for (int k = 0; k < n; k++)
			saved[k] = enter(in, r->s->u.iter.vars[r->first_var[g] + k],
				grp->axes[k], pos[k], k ? pos[k - 1] : pp0);
		run_groups(in, r, g + 1);
		for (int k = n - 1; k >= 0; k--)
			leave(in, r->s->u.iter.vars[r->first_var[g] + k], grp->axes[k],
				saved[k]);
	}
	free(heap);
}

/* in, r, g: enumerate groups g.. of the iteration, then run its init or
 * body at each point. */
static void run_groups(interp *in, const iter_run *r, int g)
{
	const stir_stmt *s = r->s;
	if (g == s->u.iter.n_groups) {
		exec_list(in, r->init ? &s->u.iter.init : &s->u.iter.body);
		return;
	}
	const stir_iter_group *grp = &s->u.iter.groups[g];
	char kind = s->u.iter.kinds[r->first_var[g]];
	if (grp->kind == STIR_GROUP_FUSE && !r->init) {
		run_fused(in, r, g);
		return;
	}
	if (r->init && kind == 'R') {
		run_next(in, r, g, 0);
		return;
	}
	const stir_axis *a = grp->axes[0];
	const stir_axis *p = grp->kind == STIR_GROUP_ATTACH ?
		grp->attach_parent : a->parent;
	int64_t pp = parent_pos(in, s, p);
	if (in->failed)
		return;
	if (grp->kind == STIR_GROUP_ATTACH &&
	    pp >= in->layout.axes[a->parent->index].npos) {
		stir_error(in->ctx, s->loc, "attach(%s, %s): position %" PRId64
			" of '%s' has no row in '%s'", a->name, p->name, pp,
			p->name, a->name);
		in->failed = true;
		return;
	}
	run_axis(in, r, g, 0, a, pp);
}

/* in, s: run a sparse iteration: its init points first, then its body. */
static void exec_iter(interp *in, const stir_stmt *s)
{
	int *first = malloc(((size_t)s->u.iter.n_groups + 1) * sizeof(*first));
	if (!first) {
		stir_error_oom(in->ctx);
		in->failed = true;
		return;
	}
	for (int g = 0, v = 0; g < s->u.iter.n_groups; g++) {
		first[g] = v;
		v += s->u.iter.groups[g].n_axes;
	}
	iter_run r = { s, true, first };
	if (s->u.iter.init.n)
		run_groups(in, &r, 0);
	r.init = false;
	if (!in->failed)
		run_groups(in, &r, 0);
	free(first);
}

/* in, s: run a loop. */
static void exec_for(interp *in, const stir_stmt *s)
{
	stir_value n = eval(in, s->u.for_.extent);
	int slot = s->u.for_.var->slot;
	const stir_buffer *saved[2] = { in->tf32[0], in->tf32[1] };
	const stir_intrinsic *tc = s->u.for_.kind == STIR_LOOP_TENSORIZE ?
		stir_intrinsic_find(s->u.for_.intrinsic) : NULL;
	stir_mma_match m;
	char why[200];
	stir_loc where;
	/* (the verifier has matched the nest) */
	if (tc && tc->tf32 && stir_tensorize_match(s, tc, &m, why,
	    sizeof(why), &where) && m.form == STIR_MMA_FORM_MMA) {
		in->tf32[0] = m.a.buf;
		in->tf32[1] = m.b.buf;
	}
	for (int64_t i = 0; i < n.i && !in->failed; i++) {
		in->vals[slot].i = i;
		exec_list(in, &s->u.for_.body);
	}
	in->tf32[0] = saved[0];
	in->tf32[1] = saved[1];
}

/* in, s: execute one statement. */
static void exec_stmt(interp *in, const stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_STORE:
		exec_store(in, s);
		break;
	case STIR_STMT_LET:
		in->vals[s->u.let.var->slot] = s->u.let.hoisted ?
			eval_hoisted(in, s->u.let.value) : eval(in, s->u.let.value);
		break;
	case STIR_STMT_IF: {
		stir_value c = eval(in, s->u.if_.cond);
		if (!in->failed)
			exec_list(in, c.i ? &s->u.if_.then_body : &s->u.if_.else_body);
		break;
	}
	case STIR_STMT_ITER:
		exec_iter(in, s);
		break;
	case STIR_STMT_FOR:
		exec_for(in, s);
		break;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars && !in->failed; i++)
			in->vals[s->u.block.vars[i]->slot] =
				eval(in, s->u.block.bindings[i]);
		if (!in->failed)
			exec_list(in, &s->u.block.body);
		break;
	case STIR_STMT_BARRIER:
		/* one thread runs the whole program: nothing to wait for */
		break;
	}
}

/* in, list: execute the statements of list in order. */
static void exec_list(interp *in, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n && !in->failed; i++)
		exec_stmt(in, stir_stmt_at(list, i));
}

/* in: release everything the run allocated. */
static void interp_release(interp *in)
{
	for (int i = 0; in->views && i < in->k->buffers.n; i++) {
		if (stir_buffer_at(&in->k->buffers, i)->kind == STIR_BUFFER_LOCAL)
			stir_array_free(in->views[i].array);
		free(in->views[i].axes);
	}
	free(in->views);
	free(in->vals);
	free(in->iters);
	free(in->axis_pos);
	stir_layout_release(&in->layout);
}

/* in, b: bind every buffer to its array: tensors from b, locals fresh. */
static int bind_arrays(interp *in, stir_bindings *b)
{
	const stir_kernel *k = in->k;
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *buf = stir_buffer_at(&k->buffers, i);
		buffer_view *v = &in->views[i];
		v->axes = malloc(((size_t)buf->n_axes + 1) * sizeof(*v->axes));
		if (!v->axes) {
			stir_error_oom(in->ctx);
			return -1;
		}
		for (int a = 0; a < buf->n_axes; a++)
			v->axes[a] = (access_axis){ buf->axes[a],
				&in->layout.axes[buf->axes[a]->index],
				buf->axes[a]->parent != NULL,
				stir_buffer_axis_ends_chain(buf, a) };
		if (buf->kind != STIR_BUFFER_LOCAL) {
			v->array = stir_bindings_get_array(b,
				stir_buffer_get_array_name(buf));
		} else {
			int64_t len = in->layout.buffer_len[i];
			v->array = stir_array_alloc(in->ctx, buf->dtype, 1, &len);
			if (!v->array) {
				stir_error(in->ctx, buf->loc, "cannot allocate local "
					"'%s' (%lld elements)", buf->name, (long long)len);
				return -1;
			}
		}
		v->data = stir_array_get_data(v->array);
		v->dtype = stir_array_get_dtype(v->array);
	}
	return 0;
}

int stir_kernel_interpret(const stir_kernel *k, stir_bindings *b)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	interp in = { .ctx = ctx, .k = k };
	if (stir_layout_init(&in.layout, k, b, true) < 0)
		return -1;
	size_t nv = (size_t)k->n_vars + 1;
	in.views = calloc((size_t)k->buffers.n + 1, sizeof(*in.views));
	in.vals = calloc(nv, sizeof(*in.vals));
	in.iters = malloc(nv * sizeof(*in.iters));
	in.axis_pos = malloc(((size_t)k->axes.n + 1) * sizeof(*in.axis_pos));
	if (!in.views || !in.vals || !in.iters || !in.axis_pos) {
		interp_release(&in);
		stir_error_oom(ctx);
		return -1;
	}
	for (size_t i = 0; i < nv; i++)
		in.iters[i] = (iter_pos){ -1, -1 };
	for (int i = 0; i <= k->axes.n; i++)
		in.axis_pos[i] = -1;
	for (int i = 0; i < k->params.n; i++)
		in.vals[stir_var_at(&k->params, i)->slot].i = in.layout.params[i];
	if (bind_arrays(&in, b) == 0)
		exec_list(&in, &k->body);
	else
		in.failed = true;
	bool failed = in.failed;
	interp_release(&in);
	return failed ? -1 : 0;
}
