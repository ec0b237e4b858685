/* Read/write region analysis (lower_sparse_iter step 4; see
 * passes/passes.h).  A block's regions summarize the accesses of its whole
 * body, nested blocks included, in terms of what is fixed for one instance
 * of the block: its own variables and everything bound outside it.  An
 * index that uses a variable bound inside the block (an inner loop, an
 * inner block, a let) varies, so that dimension becomes the whole
 * dimension.  Accesses of one buffer are merged per dimension: equal
 * points stay a point, points that differ by constants become the range
 * that covers them, anything else the whole dimension. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "passes/passes.h"
#include "ir/affine.h"
#include "ir/visit.h"
#include "ir/util.h"

/* The region of one buffer being accumulated. */
typedef struct acc_region {
	stir_buffer *buf;
	int n;                    /* dimensions */
	stir_expr **base;         /* per dimension: base expression, or NULL
	                             for the whole dimension (heap arrays) */
	int *base_vn;             /* per dimension: the base's value number,
	                             -2 for a constant base (heap array) */
	int64_t *lo, *hi;         /* constant offsets covered: [lo, hi] */
} acc_region;

typedef struct region_set {
	acc_region *v;            /* heap array, in order of first access */
	int n, cap;
	int *at;                  /* per buffer index of the kernel: its place
	                             in v + 1, or 0 (borrowed from the
	                             scratch: zero again when a block is done) */
	int n_at;
} region_set;

/* Value numbers: structurally equal expressions (stir_expr_same) of one
 * block get the same number, computed bottom-up from their children's
 * numbers, so that comparing two bases costs one integer comparison
 * instead of a walk (a chain of N indirect indices would otherwise be
 * compared O(N) deep, O(N^2) times per block). */
typedef struct vn_table {
	int64_t *words;           /* heap: the signatures, one after another */
	size_t n_words, cap_words;
	size_t *off;              /* heap, per number: its signature in words */
	int *len;                 /* heap, per number: its length */
	int n, cap;               /* numbers given */
	int *slot;                /* heap hash table: number + 1, or 0 */
	int n_slot;               /* a power of two, or 0 */
} vn_table;

/* The analysis of one block. */
typedef struct ra {
	stir_kernel *k;
	bool *inner;              /* per variable slot: bound inside the block
	                             (borrowed from the scratch) */
	int *inner_slots;         /* the slots set in inner, to clear (heap) */
	int n_inner_slots, cap_inner_slots;
	region_set reads, writes;
	vn_table vn;
	int64_t *sig;             /* heap: the signature being built */
	int cap_sig;
	bool failed;
} ra;

/* What scan_expr finds out about an expression. */
typedef struct scan_info {
	bool varies;              /* uses a variable bound inside the block */
	int vn;                   /* its value number; -1 for NULL */
	int vn_a;                 /* a binary's left operand's number */
} scan_info;

/* w, n: the hash of a signature of n words. */
static uint64_t vn_hash(const int64_t *w, int n)
{
	uint64_t h = 1469598103934665603u;
	for (int i = 0; i < n; i++) {
		h ^= (uint64_t)w[i];
		h *= 1099511628211u;
		h ^= h >> 29;
	}
	return h;
}

/* t: double the hash table and place every number again; -1 when memory
 * runs out. */
static int vn_grow(vn_table *t)
{
	int n_slot = t->n_slot ? 2 * t->n_slot : 256;
	int *slot = calloc((size_t)n_slot, sizeof(*slot));
	if (!slot)
		return -1;
	for (int id = 0; id < t->n; id++) {
		uint64_t h = vn_hash(t->words + t->off[id], t->len[id]);
		size_t i = (size_t)h & (size_t)(n_slot - 1);
		while (slot[i])
			i = (i + 1) & (size_t)(n_slot - 1);
		slot[i] = id + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->n_slot = n_slot;
	return 0;
}

/* r, w, n: the number of the signature w (n words), new when unseen. */
static int vn_number(ra *r, const int64_t *w, int n)
{
	vn_table *t = &r->vn;
	if (r->failed)
		return -1;
	if (2 * (t->n + 1) > t->n_slot && vn_grow(t) < 0)
		goto oom;
	uint64_t h = vn_hash(w, n);
	size_t i = (size_t)h & (size_t)(t->n_slot - 1);
	for (; t->slot[i]; i = (i + 1) & (size_t)(t->n_slot - 1)) {
		int id = t->slot[i] - 1;
		if (t->len[id] == n &&
		    !memcmp(t->words + t->off[id], w, (size_t)n * sizeof(*w)))
			return id;
	}
	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 256;
		size_t *off = realloc(t->off, (size_t)cap * sizeof(*off));
		if (off)
			t->off = off;
		int *len = realloc(t->len, (size_t)cap * sizeof(*len));
		if (len)
			t->len = len;
		if (!off || !len)
			goto oom;
		t->cap = cap;
	}
	if (t->n_words + (size_t)n > t->cap_words) {
		size_t cap = 2 * t->cap_words + (size_t)n + 256;
		int64_t *words = realloc(t->words, cap * sizeof(*words));
		if (!words)
			goto oom;
		t->words = words;
		t->cap_words = cap;
	}
	memcpy(t->words + t->n_words, w, (size_t)n * sizeof(*w));
	t->off[t->n] = t->n_words;
	t->len[t->n] = n;
	t->n_words += (size_t)n;
	t->slot[i] = t->n + 1;
	return t->n++;
oom:
	r->failed = true;
	return -1;
}

/* t: release the table. */
static void vn_release(vn_table *t)
{
	free(t->words);
	free(t->off);
	free(t->len);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* r, v: variable v is bound inside the block. */
static void add_inner(ra *r, const stir_var *v)
{
	if (r->inner[v->slot])
		return;
	if (r->n_inner_slots == r->cap_inner_slots) {
		int cap = r->cap_inner_slots ? 2 * r->cap_inner_slots : 16;
		int *p = realloc(r->inner_slots, (size_t)cap * sizeof(*p));
		if (!p) {
			r->failed = true;
			return;
		}
		r->inner_slots = p;
		r->cap_inner_slots = cap;
	}
	r->inner_slots[r->n_inner_slots++] = v->slot;
	r->inner[v->slot] = true;
}

/* set, buf, n: the accumulated region of buf, new when absent. */
static acc_region *region_of(ra *r, region_set *set, stir_buffer *buf, int n)
{
	/* the kernel's buffers by index; any other by a scan */
	const stir_ptr_vec *kb = &r->k->buffers;
	bool indexed = buf->index >= 0 && buf->index < set->n_at &&
		buf->index < kb->n && kb->v[buf->index] == buf;
	if (indexed && set->at[buf->index])
		return &set->v[set->at[buf->index] - 1];
	for (int i = 0; !indexed && i < set->n; i++)
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
	if (indexed)
		set->at[buf->index] = set->n + 1;
	acc_region *a = &set->v[set->n++];
	a->buf = buf;
	a->n = -1;            /* no access merged yet */
	a->base = calloc((size_t)(n ? n : 1), sizeof(*a->base));
	a->base_vn = calloc((size_t)(n ? n : 1), sizeof(*a->base_vn));
	a->lo = calloc((size_t)(n ? n : 1), sizeof(*a->lo));
	a->hi = calloc((size_t)(n ? n : 1), sizeof(*a->hi));
	if (!a->base || !a->base_vn || !a->lo || !a->hi)
		r->failed = true;
	(void)n;
	return a;
}

/* Marker base for "the whole dimension" in acc_region.base. */
static stir_expr whole_dim;

/* r, set, buf, n, idx, info, range_lo: merge one access of buf, the point
 * idx[d] per dimension (info[d]: what scan_expr found out about idx[d]),
 * or a search from range_lo when idx is NULL. */
static void add_access(ra *r, region_set *set, stir_buffer *buf, int n,
	stir_expr *const *idx, const scan_info *info, stir_expr *range_lo)
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
		if (!idx || info[d].varies) {
			a->base[d] = &whole_dim;
			continue;
		}
		stir_affine_split_const(e, &base, &off);
		int vn = !base ? -2 : base == e ? info[d].vn : info[d].vn_a;
		if (first) {
			a->base[d] = base;
			a->base_vn[d] = vn;
			a->lo[d] = a->hi[d] = off;
		} else if (a->base[d] != &whole_dim && a->base_vn[d] == vn) {
			a->lo[d] = off < a->lo[d] ? off : a->lo[d];
			a->hi[d] = off > a->hi[d] ? off : a->hi[d];
		} else {
			a->base[d] = &whole_dim;
		}
	}
}

static scan_info scan_expr(ra *r, const stir_expr *e);

/* r, buf: the number of dimensions an access of buf has. */
static int dims(const stir_buffer *buf)
{
	return buf->n_axes > 0 ? buf->n_axes : 1;
}

/* What scan_indices finds out: on the stack for a few dimensions. */
typedef struct idx_info {
	scan_info small[8];
	scan_info *v;             /* small, or a heap array */
} idx_info;

/* r, n, idx, f: scan the n index expressions idx into f->v[d]; false
 * when memory runs out. */
static bool scan_indices(ra *r, int n, stir_expr *const *idx, idx_info *f)
{
	f->v = n <= 8 ? f->small : malloc((size_t)n * sizeof(*f->v));
	if (!f->v) {
		r->failed = true;
		return false;
	}
	for (int d = 0; d < n; d++)
		f->v[d] = scan_expr(r, idx[d]);
	return true;
}

/* f: release what scan_indices allocated. */
static void idx_info_release(idx_info *f)
{
	if (f->v != f->small)
		free(f->v);
}

/* r, n: room for a signature of n words in r->sig; NULL when memory runs
 * out. */
static int64_t *sig_room(ra *r, int n)
{
	if (n > r->cap_sig) {
		int64_t *sig = realloc(r->sig, (size_t)n * sizeof(*sig));
		if (!sig) {
			r->failed = true;
			return NULL;
		}
		r->sig = sig;
		r->cap_sig = n;
	}
	return r->sig;
}

/* A pointer as a signature word. */
#define PTR_WORD(p) ((int64_t)(intptr_t)(p))

/* r, e, n, w: the value number of e from the n words w that follow its
 * kind and type (its fields and its children's numbers). */
static int vn_of(ra *r, const stir_expr *e, int n, const int64_t *w)
{
	int64_t *sig = sig_room(r, n + 2);
	if (!sig)
		return -1;
	sig[0] = e->kind;
	sig[1] = e->dtype;
	memcpy(sig + 2, w, (size_t)n * sizeof(*w));
	return vn_number(r, sig, n + 2);
}

/* r, e, n, f, w0, w1: the value number of a node with n children (their
 * numbers in f) after the words w0 and w1. */
static int vn_of_list(ra *r, const stir_expr *e, int n, const scan_info *f,
	int64_t w0, int64_t w1)
{
	int64_t *sig = sig_room(r, n + 4);
	if (!sig)
		return -1;
	sig[0] = e->kind;
	sig[1] = e->dtype;
	sig[2] = w0;
	sig[3] = w1;
	for (int i = 0; i < n; i++)
		sig[4 + i] = f[i].vn;
	return vn_number(r, sig, n + 4);
}

/* r, e: record the accesses of e; whether e uses a variable bound inside
 * the block, and its value number.  Both are computed bottom-up in the
 * same walk, so that an access nested in the index of another costs
 * nothing more (a chain of indirect indices is walked once, not once per
 * level). */
static scan_info scan_expr(ra *r, const stir_expr *e)
{
	scan_info x = { false, -1, -1 }, a, b, c;
	if (!e)
		return x;
	switch (e->kind) {
	case STIR_EXPR_INT: {
		int64_t w[1] = { e->u.i };
		x.vn = vn_of(r, e, 1, w);
		break;
	}
	case STIR_EXPR_FLOAT: {
		int64_t w[1];
		memcpy(&w[0], &e->u.f, sizeof(w[0]));
		x.vn = vn_of(r, e, 1, w);
		break;
	}
	case STIR_EXPR_VAR: {
		int64_t w[1] = { PTR_WORD(e->u.var) };
		x.varies = r->inner[e->u.var->slot];
		x.vn = vn_of(r, e, 1, w);
		break;
	}
	case STIR_EXPR_LOAD: {
		idx_info f;
		if (!scan_indices(r, e->u.load.n, e->u.load.idx, &f))
			return x;
		for (int i = 0; i < e->u.load.n; i++)
			x.varies = x.varies || f.v[i].varies;
		x.vn = vn_of_list(r, e, e->u.load.n, f.v, PTR_WORD(e->u.load.buf),
			e->u.load.n);
		if (e->u.load.n == dims(e->u.load.buf))
			add_access(r, &r->reads, e->u.load.buf, e->u.load.n,
				e->u.load.idx, f.v, NULL);
		idx_info_release(&f);
		break;
	}
	case STIR_EXPR_UNARY: {
		a = scan_expr(r, e->u.unary.a);
		int64_t w[2] = { e->u.unary.op, a.vn };
		x.varies = a.varies;
		x.vn = vn_of(r, e, 2, w);
		break;
	}
	case STIR_EXPR_BINARY: {
		a = scan_expr(r, e->u.binary.a);
		b = scan_expr(r, e->u.binary.b);
		int64_t w[3] = { e->u.binary.op, a.vn, b.vn };
		x.varies = a.varies || b.varies;
		x.vn = vn_of(r, e, 3, w);
		x.vn_a = a.vn;
		break;
	}
	case STIR_EXPR_SELECT: {
		c = scan_expr(r, e->u.select.c);
		a = scan_expr(r, e->u.select.a);
		b = scan_expr(r, e->u.select.b);
		int64_t w[3] = { c.vn, a.vn, b.vn };
		x.varies = c.varies || a.varies || b.varies;
		x.vn = vn_of(r, e, 3, w);
		break;
	}
	case STIR_EXPR_CALL: {
		idx_info f;
		if (!scan_indices(r, e->u.call.n, e->u.call.args, &f))
			return x;
		for (int i = 0; i < e->u.call.n; i++)
			x.varies = x.varies || f.v[i].varies;
		x.vn = vn_of_list(r, e, e->u.call.n, f.v, e->u.call.f, e->u.call.n);
		idx_info_release(&f);
		break;
	}
	case STIR_EXPR_CAST: {
		a = scan_expr(r, e->u.cast.a);
		int64_t w[1] = { a.vn };
		x.varies = a.varies;
		x.vn = vn_of(r, e, 1, w);
		break;
	}
	case STIR_EXPR_SEARCH: {
		a = scan_expr(r, e->u.search.lo);
		b = scan_expr(r, e->u.search.hi);
		c = scan_expr(r, e->u.search.x);
		int64_t w[5] = { e->u.search.op, PTR_WORD(e->u.search.buf), a.vn,
			b.vn, c.vn };
		x.varies = a.varies || b.varies || c.varies;
		x.vn = vn_of(r, e, 5, w);
		/* a search reads a range: the whole buffer as far as we know */
		add_access(r, &r->reads, e->u.search.buf, 1, NULL, NULL,
			e->u.search.lo);
		break;
	}
	}
	return x;
}

/* s, user: the accesses statement s makes itself (an ra); the walk
 * (scan_list) goes on into the statements nested in it. */
static stir_visit_step scan_stmt(stir_stmt *s, void *user)
{
	ra *r = user;
	switch (s->kind) {
	case STIR_STMT_STORE: {
		idx_info f;
		if (!scan_indices(r, s->u.store.n, s->u.store.idx, &f))
			break;
		scan_expr(r, s->u.store.value);
		if (s->u.store.op != STIR_STORE_ASSIGN)
			add_access(r, &r->reads, s->u.store.buf, s->u.store.n,
				s->u.store.idx, f.v, NULL);
		add_access(r, &r->writes, s->u.store.buf, s->u.store.n,
			s->u.store.idx, f.v, NULL);
		idx_info_release(&f);
		break;
	}
	case STIR_STMT_LET:
		scan_expr(r, s->u.let.value);
		add_inner(r, s->u.let.var);
		break;
	case STIR_STMT_IF:
		scan_expr(r, s->u.if_.cond);
		break;
	case STIR_STMT_FOR:
		scan_expr(r, s->u.for_.extent);
		add_inner(r, s->u.for_.var);
		break;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++) {
			scan_expr(r, s->u.block.bindings[i]);
			add_inner(r, s->u.block.vars[i]);
		}
		break;
	case STIR_STMT_ITER:
		return STIR_VISIT_SKIP;
	}
	return STIR_VISIT_GO;
}

/* r, list: the accesses of the statements of list. */
static void scan_list(ra *r, const stir_ptr_vec *list)
{
	stir_visitor v = { scan_stmt, NULL, NULL, NULL, 0, r };
	stir_visit_list(&v, (stir_ptr_vec *)list);
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
		free(set->v[i].base_vn);
		free(set->v[i].lo);
		free(set->v[i].hi);
	}
	free(set->v);
	memset(set, 0, sizeof(*set));
}

/* The per-kernel arrays of the analysis, allocated once and handed
 * clean to each block (so that a kernel of many blocks and variables
 * does not pay for both at every block). */
typedef struct ra_scratch {
	bool *inner;              /* per variable slot, all false (heap) */
	int *at[2];               /* per buffer index, all 0: reads, writes
	                             (heap) */
} ra_scratch;

/* set: zero the entries of set->at its buffers took. */
static void clear_at(region_set *set)
{
	for (int i = 0; i < set->n; i++) {
		int b = set->v[i].buf->index;
		if (b >= 0 && b < set->n_at && set->at[b] == i + 1)
			set->at[b] = 0;
	}
}

/* k, block, sc: compute the regions of one block; sc is left clean. */
static int analyze_block(stir_kernel *k, stir_stmt *block, ra_scratch *sc)
{
	ra r = { .k = k, .inner = sc->inner };
	r.reads.at = sc->at[0];
	r.writes.at = sc->at[1];
	r.reads.n_at = r.writes.n_at = k->buffers.n;
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
	clear_at(&r.reads);
	clear_at(&r.writes);
	for (int i = 0; i < r.n_inner_slots; i++)
		sc->inner[r.inner_slots[i]] = false;
	set_release(&r.reads);
	set_release(&r.writes);
	free(r.inner_slots);
	free(r.sig);
	vn_release(&r.vn);
	return rc;
}

/* k, list, user: analyze every block of list (user: the scratch). */
static int analyze_list(stir_kernel *k, stir_ptr_vec *list, void *user)
{
	for (int i = 0; i < list->n; i++) {
		stir_stmt *s = stir_stmt_at(list, i);
		if (s->kind == STIR_STMT_BLOCK && analyze_block(k, s, user) < 0)
			return -1;
	}
	return 0;
}

int stir_analyze_regions(stir_kernel *k)
{
	size_t nb = (size_t)k->buffers.n + 1;
	ra_scratch sc = {
		calloc((size_t)k->n_vars + 1, sizeof(*sc.inner)),
		{ calloc(nb, sizeof(int)), calloc(nb, sizeof(int)) },
	};
	int rc = sc.inner && sc.at[0] && sc.at[1] ?
		stir_foreach_list(k, analyze_list, &sc) : -1;
	free(sc.inner);
	free(sc.at[0]);
	free(sc.at[1]);
	if (rc < 0) {
		stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	return 0;
}
