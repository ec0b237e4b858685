/* Read/write region analysis (lower_sparse_iter step 4; see
 * passes/passes.h).  A block's regions summarize the accesses of its whole
 * body, nested blocks included, in terms of what is fixed for one instance
 * of the block: its own variables and everything bound outside it.  An
 * index that uses a variable bound inside the block (an inner loop, an
 * inner block, a let) varies, so that dimension becomes the whole
 * dimension.  Accesses of one buffer are merged per dimension: equal
 * points stay a point, points that differ by constants become the range
 * that covers them, anything else the whole dimension. */
#include <stdlib.h>
#include <string.h>
#include "passes/passes.h"
#include "passes/util.h"

/* The region of one buffer being accumulated. */
typedef struct acc_region {
	stir_buffer *buf;
	int n;                    /* dimensions */
	stir_expr **base;         /* per dimension: base expression, or NULL
	                             for the whole dimension (heap arrays) */
	int64_t *lo, *hi;         /* constant offsets covered: [lo, hi] */
} acc_region;

typedef struct region_set {
	acc_region *v;            /* heap array, in order of first access */
	int n, cap;
} region_set;

/* The analysis of one block. */
typedef struct ra {
	stir_kernel *k;
	const stir_var **inner;   /* variables bound inside the block (heap) */
	int n_inner, cap_inner;
	region_set reads, writes;
	bool failed;
} ra;

/* r, v: variable v is bound inside the block. */
static void add_inner(ra *r, const stir_var *v)
{
	if (r->n_inner == r->cap_inner) {
		int cap = r->cap_inner ? 2 * r->cap_inner : 16;
		const stir_var **p = realloc(r->inner, (size_t)cap * sizeof(*p));
		if (!p) {
			r->failed = true;
			return;
		}
		r->inner = p;
		r->cap_inner = cap;
	}
	r->inner[r->n_inner++] = v;
}

/* r, e: whether e uses a variable bound inside the block. */
static bool varies(const ra *r, const stir_expr *e)
{
	for (int i = 0; i < r->n_inner; i++)
		if (stir_expr_uses(e, r->inner[i]))
			return true;
	return false;
}

/* e, *base, *off: split e into base + constant offset. */
static void split_offset(stir_expr *e, stir_expr **base, int64_t *off)
{
	*off = 0;
	*base = e;
	if (e->kind == STIR_EXPR_BINARY && e->u.binary.op == STIR_ADD &&
	    e->u.binary.b->kind == STIR_EXPR_INT) {
		*base = e->u.binary.a;
		*off = e->u.binary.b->u.i;
	} else if (e->kind == STIR_EXPR_BINARY && e->u.binary.op == STIR_SUB &&
		   e->u.binary.b->kind == STIR_EXPR_INT &&
		   e->u.binary.b->u.i != INT64_MIN) {
		*base = e->u.binary.a;
		*off = -e->u.binary.b->u.i;
	} else if (e->kind == STIR_EXPR_INT) {
		*base = NULL; /* a plain constant: base 0 */
		*off = e->u.i;
	}
}

/* set, buf, n: the accumulated region of buf, new when absent. */
static acc_region *region_of(ra *r, region_set *set, stir_buffer *buf, int n)
{
	for (int i = 0; i < set->n; i++)
		if (set->v[i].buf == buf)
			return &set->v[i];
	if (set->n == set->cap) {
		int cap = set->cap ? 2 * set->cap : 8;
		acc_region *v = realloc(set->v, (size_t)cap * sizeof(*v));
		if (!v) {
			r->failed = true;
			return NULL;
		}
		set->v = v;
		set->cap = cap;
	}
	acc_region *a = &set->v[set->n++];
	a->buf = buf;
	a->n = -1;            /* no access merged yet */
	a->base = calloc((size_t)(n ? n : 1), sizeof(*a->base));
	a->lo = calloc((size_t)(n ? n : 1), sizeof(*a->lo));
	a->hi = calloc((size_t)(n ? n : 1), sizeof(*a->hi));
	if (!a->base || !a->lo || !a->hi)
		r->failed = true;
	(void)n;
	return a;
}

/* Marker base for "the whole dimension" in acc_region.base. */
static stir_expr whole_dim;

/* r, set, buf, n, idx, lo_idx, hi_idx: merge one access of buf, the point
 * idx[d] per dimension, or the range [lo_idx[0], hi_idx[0]) of a search
 * when idx is NULL. */
static void add_access(ra *r, region_set *set, stir_buffer *buf, int n,
	stir_expr *const *idx, stir_expr *range_lo)
{
	acc_region *a = region_of(r, set, buf, n);
	if (!a || r->failed)
		return;
	bool first = a->n < 0;
	a->n = n;
	for (int d = 0; d < n; d++) {
		stir_expr *e = idx ? idx[d] : range_lo;
		stir_expr *base;
		int64_t off;
		if (!idx || varies(r, e)) {
			a->base[d] = &whole_dim;
			continue;
		}
		split_offset(e, &base, &off);
		if (first) {
			a->base[d] = base;
			a->lo[d] = a->hi[d] = off;
		} else if (a->base[d] != &whole_dim &&
			   (a->base[d] == base || (a->base[d] && base &&
				stir_expr_same(a->base[d], base)))) {
			a->lo[d] = off < a->lo[d] ? off : a->lo[d];
			a->hi[d] = off > a->hi[d] ? off : a->hi[d];
		} else {
			a->base[d] = &whole_dim;
		}
	}
}

static void scan_expr(ra *r, const stir_expr *e);

/* r, buf: the number of dimensions an access of buf has. */
static int dims(const stir_buffer *buf)
{
	return buf->n_axes > 0 ? buf->n_axes : 1;
}

static void scan_expr(ra *r, const stir_expr *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case STIR_EXPR_LOAD:
		for (int i = 0; i < e->u.load.n; i++)
			scan_expr(r, e->u.load.idx[i]);
		if (e->u.load.n == dims(e->u.load.buf))
			add_access(r, &r->reads, e->u.load.buf, e->u.load.n,
				e->u.load.idx, NULL);
		break;
	case STIR_EXPR_UNARY:
		scan_expr(r, e->u.unary.a);
		break;
	case STIR_EXPR_BINARY:
		scan_expr(r, e->u.binary.a);
		scan_expr(r, e->u.binary.b);
		break;
	case STIR_EXPR_SELECT:
		scan_expr(r, e->u.select.c);
		scan_expr(r, e->u.select.a);
		scan_expr(r, e->u.select.b);
		break;
	case STIR_EXPR_CALL:
		for (int i = 0; i < e->u.call.n; i++)
			scan_expr(r, e->u.call.args[i]);
		break;
	case STIR_EXPR_CAST:
		scan_expr(r, e->u.cast.a);
		break;
	case STIR_EXPR_SEARCH:
		scan_expr(r, e->u.search.lo);
		scan_expr(r, e->u.search.hi);
		scan_expr(r, e->u.search.x);
		/* a search reads a range: the whole buffer as far as we know */
		add_access(r, &r->reads, e->u.search.buf, 1, NULL, e->u.search.lo);
		break;
	default:
		break;
	}
}

static void scan_list(ra *r, const stir_ptr_vec *list);

/* r, s: the accesses of statement s. */
static void scan_stmt(ra *r, const stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_STORE:
		for (int i = 0; i < s->u.store.n; i++)
			scan_expr(r, s->u.store.idx[i]);
		scan_expr(r, s->u.store.value);
		if (s->u.store.op != STIR_STORE_ASSIGN)
			add_access(r, &r->reads, s->u.store.buf, s->u.store.n,
				s->u.store.idx, NULL);
		add_access(r, &r->writes, s->u.store.buf, s->u.store.n,
			s->u.store.idx, NULL);
		break;
	case STIR_STMT_LET:
		scan_expr(r, s->u.let.value);
		add_inner(r, s->u.let.var);
		break;
	case STIR_STMT_IF:
		scan_expr(r, s->u.if_.cond);
		scan_list(r, &s->u.if_.then_body);
		scan_list(r, &s->u.if_.else_body);
		break;
	case STIR_STMT_FOR:
		scan_expr(r, s->u.for_.extent);
		add_inner(r, s->u.for_.var);
		scan_list(r, &s->u.for_.body);
		break;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++) {
			scan_expr(r, s->u.block.bindings[i]);
			add_inner(r, s->u.block.vars[i]);
		}
		scan_list(r, &s->u.block.body);
		break;
	case STIR_STMT_ITER:
		break;
	}
}

static void scan_list(ra *r, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		scan_stmt(r, stir_stmt_at(list, i));
}

/* r, set, n, out: the accumulated regions as IR regions (arena). */
static stir_region *to_regions(ra *r, region_set *set)
{
	stir_kernel *k = r->k;
	stir_arena *ar = stir_kernel_arena(k);
	stir_region *out = stir_arena_alloc(ar,
		(size_t)(set->n ? set->n : 1) * sizeof(*out));
	if (!out)
		return NULL;
	for (int i = 0; i < set->n; i++) {
		acc_region *a = &set->v[i];
		int n = a->n > 0 ? a->n : 0;
		out[i].buf = a->buf;
		out[i].n = n;
		out[i].lo = stir_arena_alloc(ar, (size_t)(n ? n : 1) * sizeof(stir_expr *));
		out[i].hi = stir_arena_alloc(ar, (size_t)(n ? n : 1) * sizeof(stir_expr *));
		if (!out[i].lo || !out[i].hi)
			return NULL;
		for (int d = 0; d < n; d++) {
			if (a->base[d] == &whole_dim)
				continue;
			stir_expr *base = a->base[d] ?
				stir_expr_copy(k, a->base[d], NULL) : stir_mk_int(k, 0);
			out[i].lo[d] = stir_mk_add(k, base, stir_mk_int(k, a->lo[d]));
			if (a->hi[d] != a->lo[d])
				out[i].hi[d] = stir_mk_add(k, stir_expr_copy(k, base, NULL),
					stir_mk_int(k, a->hi[d] + 1));
		}
	}
	return out;
}

/* set: release the accumulated regions. */
static void set_release(region_set *set)
{
	for (int i = 0; i < set->n; i++) {
		free(set->v[i].base);
		free(set->v[i].lo);
		free(set->v[i].hi);
	}
	free(set->v);
	memset(set, 0, sizeof(*set));
}

/* k, block: compute the regions of one block. */
static int analyze_block(stir_kernel *k, stir_stmt *block)
{
	ra r = { .k = k };
	scan_list(&r, &block->u.block.body);
	stir_region *reads = r.failed ? NULL : to_regions(&r, &r.reads);
	stir_region *writes = r.failed ? NULL : to_regions(&r, &r.writes);
	int rc = reads && writes ? 0 : -1;
	if (rc == 0) {
		block->u.block.reads = reads;
		block->u.block.n_reads = r.reads.n;
		block->u.block.writes = writes;
		block->u.block.n_writes = r.writes.n;
	}
	set_release(&r.reads);
	set_release(&r.writes);
	free(r.inner);
	return rc;
}

/* k, list, user: analyze every block of list. */
static int analyze_list(stir_kernel *k, stir_ptr_vec *list, void *user)
{
	(void)user;
	for (int i = 0; i < list->n; i++) {
		stir_stmt *s = stir_stmt_at(list, i);
		if (s->kind == STIR_STMT_BLOCK && analyze_block(k, s) < 0)
			return -1;
	}
	return 0;
}

int stir_analyze_regions(stir_kernel *k)
{
	if (stir_foreach_list(k, analyze_list, NULL) < 0) {
		stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	return 0;
}
