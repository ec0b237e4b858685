/* Read/write region analysis (lower_sparse_iter step 4; see
 * passes/passes.h).  A block's regions summarize the accesses of its whole
 * body, nested blocks included, in terms of what is fixed for one instance
 * of the block: its own variables and everything bound outside it.  An
 * index that uses a variable bound inside the block (an inner loop, an
 * inner block, a let) varies, so that dimension becomes the whole
 * dimension.  Accesses of one buffer are merged per dimension: equal
 * points stay a point, points that differ by constants become the range
 * that covers them, anything else the whole dimension.
 *
 * The blocks are analysed bottom-up in one walk of the kernel: a block's
 * regions merge the accesses of its own statements with the regions of
 * the blocks nested in it, so that every expression is scanned once
 * (scanning each block's whole body would cost the depth of the nesting
 * times more).  Merging a nested block's region is the same as merging
 * the accesses it summarizes: a dimension that varies inside the nested
 * block varies in the outer one, and two accesses with different bases
 * give the whole dimension either way. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "passes/passes.h"
#include "ir/affine.h"
#include "ir/util.h"

/* The region of one buffer being accumulated. */
typedef struct acc_region {
	stir_buffer *buf;
	int n;                    /* dimensions */
	stir_expr **base;         /* per dimension: base expression, or NULL
	                             for the whole dimension (heap arrays) */
	int *base_vn;             /* per dimension: the base's value number,
	                             -2 for a constant base (heap array) */
	int *base_lvl;            /* per dimension: the base's level (heap
	                             array; see ra.level) */
	int64_t *lo, *hi;         /* constant offsets covered: [lo, hi] */
} acc_region;

typedef struct region_set {
	acc_region *v;            /* heap array, in order of first access */
	int n, cap;
	int *slot;                /* heap hash table by buffer: place in v + 1,
	                             or 0 */
	int n_slot;               /* a power of two, or 0 */
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

/* The regions of the block being analysed. */
typedef struct block_regions {
	int depth;                /* blocks around the block's statement */
	region_set reads, writes;
} block_regions;

/* The analysis of a kernel.  A variable's level is the number of blocks
 * around the statement that binds it (a block's own variables: around the
 * block), so that a variable is bound inside block B exactly when its
 * level exceeds B's depth. */
typedef struct ra {
	stir_kernel *k;
	int *level;               /* per variable slot (heap; 0 for parameters) */
	block_regions *cur;       /* the innermost block around the statements
	                             being scanned, or NULL */
	vn_table vn;              /* value numbers for the whole kernel */
	int64_t *sig;             /* heap: the signature being built */
	int cap_sig;
	bool failed;
} ra;

/* What scan_expr finds out about an expression. */
typedef struct scan_info {
	int lvl;                  /* the highest level of its variables */
	int vn;                   /* its value number; -1 for NULL */
	int vn_a;                 /* a binary's left operand's number */
	int lvl_a;                /* and its level */
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

/* r, v, depth: variable v is bound in a list "depth" blocks deep. */
static void set_level(ra *r, const stir_var *v, int depth)
{
	r->level[v->slot] = depth;
}

/* buf: the hash of a buffer for region_set.slot. */
static size_t buf_hash(const stir_buffer *buf)
{
	uint64_t h = (uint64_t)(uintptr_t)buf;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	return (size_t)h;
}

/* set: double the hash table and place every region again; -1 when
 * memory runs out. */
static int set_grow(region_set *set)
{
	int n_slot = set->n_slot ? 2 * set->n_slot : 16;
	int *slot = calloc((size_t)n_slot, sizeof(*slot));
	if (!slot)
		return -1;
	for (int id = 0; id < set->n; id++) {
		size_t i = buf_hash(set->v[id].buf) & (size_t)(n_slot - 1);
		while (slot[i])
			i = (i + 1) & (size_t)(n_slot - 1);
		slot[i] = id + 1;
	}
	free(set->slot);
	set->slot = slot;
	set->n_slot = n_slot;
	return 0;
}

/* r, set, buf, n: the accumulated region of buf (n dimensions), new when
 * absent. */
static acc_region *region_of(ra *r, region_set *set, stir_buffer *buf, int n)
{
	if (2 * (set->n + 1) > set->n_slot && set_grow(set) < 0)
		goto oom;
	size_t i = buf_hash(buf) & (size_t)(set->n_slot - 1);
	for (; set->slot[i]; i = (i + 1) & (size_t)(set->n_slot - 1))
		if (set->v[set->slot[i] - 1].buf == buf)
			return &set->v[set->slot[i] - 1];
	if (set->n == set->cap) {
		int cap = set->cap ? 2 * set->cap : 8;
		acc_region *v = realloc(set->v, (size_t)cap * sizeof(*v));
		if (!v)
			goto oom;
		set->v = v;
		set->cap = cap;
	}
	set->slot[i] = set->n + 1;
	acc_region *a = &set->v[set->n++];
	size_t dn = (size_t)(n ? n : 1);
	a->buf = buf;
	a->n = -1;            /* no access merged yet */
	a->base = calloc(dn, sizeof(*a->base));
	a->base_vn = calloc(dn, sizeof(*a->base_vn));
	a->base_lvl = calloc(dn, sizeof(*a->base_lvl));
	a->lo = calloc(dn, sizeof(*a->lo));
	a->hi = calloc(dn, sizeof(*a->hi));
	if (!a->base || !a->base_vn || !a->base_lvl || !a->lo || !a->hi)
		goto oom;
	return a;
oom:
	r->failed = true;
	return NULL;
}

/* Marker base for "the whole dimension" in acc_region.base. */
static stir_expr whole_dim;

/* a, d, first, base, vn, lvl, lo, hi: merge the points base + [lo, hi]
 * (base NULL: the constant 0; &whole_dim: the whole dimension) into
 * dimension d of a, whose first access this is when "first". */
static void merge_dim(acc_region *a, int d, bool first, stir_expr *base,
	int vn, int lvl, int64_t lo, int64_t hi)
{
	if (first) {
		a->base[d] = base;
		a->base_vn[d] = vn;
		a->base_lvl[d] = lvl;
		a->lo[d] = lo;
		a->hi[d] = hi;
	} else if (base != &whole_dim && a->base[d] != &whole_dim &&
		   a->base_vn[d] == vn) {
		a->lo[d] = lo < a->lo[d] ? lo : a->lo[d];
		a->hi[d] = hi > a->hi[d] ? hi : a->hi[d];
	} else {
		a->base[d] = &whole_dim;
	}
}

/* r, set, buf, n, idx, info, range_lo: merge one access of buf, the point
 * idx[d] per dimension (info[d]: what scan_expr found out about idx[d]),
 * or a search from range_lo when idx is NULL, into the regions of the
 * innermost block. */
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
		if (!idx || info[d].lvl > r->cur->depth) {
			merge_dim(a, d, first, &whole_dim, -1, 0, 0, 0);
			continue;
		}
		stir_affine_split_const(e, &base, &off);
		int vn = !base ? -2 : base == e ? info[d].vn : info[d].vn_a;
		int lvl = !base ? 0 : base == e ? info[d].lvl : info[d].lvl_a;
		merge_dim(a, d, first, base, vn, lvl, off, off);
	}
}

/* r, to, from: merge the regions "from" of a block nested in the
 * innermost block into "to", that block's; a dimension whose base uses
 * a variable bound inside the innermost block becomes the whole
 * dimension. */
static void add_nested(ra *r, region_set *to, const region_set *from)
{
	for (int i = 0; i < from->n && !r->failed; i++) {
		const acc_region *f = &from->v[i];
		acc_region *a = region_of(r, to, f->buf, f->n > 0 ? f->n : 0);
		if (!a)
			return;
		bool first = a->n < 0;
		a->n = f->n;
		for (int d = 0; d < f->n; d++) {
			stir_expr *base = f->base[d];
			if (base != &whole_dim && f->base_lvl[d] > r->cur->depth)
				base = &whole_dim;
			merge_dim(a, d, first, base, f->base_vn[d],
				f->base_lvl[d], f->lo[d], f->hi[d]);
		}
	}
}

static scan_info scan_expr(ra *r, const stir_expr *e);

/* a, b: the higher of two levels. */
static int max_level(int a, int b)
{
	return a > b ? a : b;
}

/* buf: the number of dimensions an access of buf has. */
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

/* r, e: record the accesses of e in the innermost block; the highest
 * level of the variables e uses, and its value number.  Both are computed bottom-up in the
 * same walk, so that an access nested in the index of another costs
 * nothing more (a chain of indirect indices is walked once, not once per
 * level). */
static scan_info scan_expr(ra *r, const stir_expr *e)
{
	scan_info x = { 0, -1, -1, 0 }, a, b, c;
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
		x.lvl = r->level[e->u.var->slot];
		x.vn = vn_of(r, e, 1, w);
		break;
	}
	case STIR_EXPR_LOAD: {
		idx_info f;
		if (!scan_indices(r, e->u.load.n, e->u.load.idx, &f))
			return x;
		for (int i = 0; i < e->u.load.n; i++)
			x.lvl = max_level(x.lvl, f.v[i].lvl);
		x.vn = vn_of_list(r, e, e->u.load.n, f.v, PTR_WORD(e->u.load.buf),
			e->u.load.n);
		if (r->cur && e->u.load.n == dims(e->u.load.buf))
			add_access(r, &r->cur->reads, e->u.load.buf, e->u.load.n,
				e->u.load.idx, f.v, NULL);
		idx_info_release(&f);
		break;
	}
	case STIR_EXPR_UNARY: {
		a = scan_expr(r, e->u.unary.a);
		int64_t w[2] = { e->u.unary.op, a.vn };
		x.lvl = a.lvl;
		x.vn = vn_of(r, e, 2, w);
		break;
	}
	case STIR_EXPR_BINARY: {
		a = scan_expr(r, e->u.binary.a);
		b = scan_expr(r, e->u.binary.b);
		int64_t w[3] = { e->u.binary.op, a.vn, b.vn };
		x.lvl = max_level(a.lvl, b.lvl);
		x.vn = vn_of(r, e, 3, w);
		x.vn_a = a.vn;
		x.lvl_a = a.lvl;
		break;
	}
	case STIR_EXPR_SELECT: {
		c = scan_expr(r, e->u.select.c);
		a = scan_expr(r, e->u.select.a);
		b = scan_expr(r, e->u.select.b);
		int64_t w[3] = { c.vn, a.vn, b.vn };
		x.lvl = max_level(c.lvl, max_level(a.lvl, b.lvl));
		x.vn = vn_of(r, e, 3, w);
		break;
	}
	case STIR_EXPR_CALL: {
		idx_info f;
		if (!scan_indices(r, e->u.call.n, e->u.call.args, &f))
			return x;
		for (int i = 0; i < e->u.call.n; i++)
			x.lvl = max_level(x.lvl, f.v[i].lvl);
		x.vn = vn_of_list(r, e, e->u.call.n, f.v, e->u.call.f, e->u.call.n);
		idx_info_release(&f);
		break;
	}
	case STIR_EXPR_CAST: {
		a = scan_expr(r, e->u.cast.a);
		int64_t w[1] = { a.vn };
		x.lvl = a.lvl;
		x.vn = vn_of(r, e, 1, w);
		break;
	}
	case STIR_EXPR_SEARCH: {
		a = scan_expr(r, e->u.search.lo);
		b = scan_expr(r, e->u.search.hi);
		c = scan_expr(r, e->u.search.x);
		int64_t w[5] = { e->u.search.op, PTR_WORD(e->u.search.buf), a.vn,
			b.vn, c.vn };
		x.lvl = max_level(a.lvl, max_level(b.lvl, c.lvl));
		x.vn = vn_of(r, e, 5, w);
		/* a search reads a range: the whole buffer as far as we know */
		if (r->cur)
			add_access(r, &r->cur->reads, e->u.search.buf, 1, NULL,
				NULL, e->u.search.lo);
		break;
	}
	}
	return x;
}

static void scan_list(ra *r, const stir_ptr_vec *list, int depth);
static void analyze_block(ra *r, stir_stmt *block, int depth);

/* r, s, depth: the accesses of statement s, which lies in a list "depth"
 * blocks deep; analyse the blocks in it. */
static void scan_stmt(ra *r, stir_stmt *s, int depth)
{
	switch (s->kind) {
	case STIR_STMT_STORE: {
		idx_info f;
		if (!scan_indices(r, s->u.store.n, s->u.store.idx, &f))
			break;
		scan_expr(r, s->u.store.value);
		if (r->cur && s->u.store.op != STIR_STORE_ASSIGN)
			add_access(r, &r->cur->reads, s->u.store.buf, s->u.store.n,
				s->u.store.idx, f.v, NULL);
		if (r->cur)
			add_access(r, &r->cur->writes, s->u.store.buf,
				s->u.store.n, s->u.store.idx, f.v, NULL);
		idx_info_release(&f);
		break;
	}
	case STIR_STMT_LET:
		scan_expr(r, s->u.let.value);
		set_level(r, s->u.let.var, depth);
		break;
	case STIR_STMT_IF:
		scan_expr(r, s->u.if_.cond);
		scan_list(r, &s->u.if_.then_body, depth);
		scan_list(r, &s->u.if_.else_body, depth);
		break;
	case STIR_STMT_FOR:
		scan_expr(r, s->u.for_.extent);
		set_level(r, s->u.for_.var, depth);
		scan_list(r, &s->u.for_.body, depth);
		break;
	case STIR_STMT_BLOCK:
		for (int i = 0; i < s->u.block.n_vars; i++) {
			scan_expr(r, s->u.block.bindings[i]);
			set_level(r, s->u.block.vars[i], depth);
		}
		analyze_block(r, s, depth);
		break;
	case STIR_STMT_BARRIER:
		break;
	case STIR_STMT_ITER: {
		/* not an access of the blocks around it; its blocks are
		 * analysed on their own */
		block_regions *cur = r->cur;
		r->cur = NULL;
		for (int i = 0; i < s->u.iter.n_vars; i++)
			set_level(r, s->u.iter.vars[i], depth);
		scan_list(r, &s->u.iter.init, depth);
		scan_list(r, &s->u.iter.body, depth);
		r->cur = cur;
		break;
	}
	}
}

static void scan_list(ra *r, const stir_ptr_vec *list, int depth)
{
	for (int i = 0; i < list->n && !r->failed; i++)
		scan_stmt(r, stir_stmt_at(list, i), depth);
}

/* r, set: the accumulated regions as IR regions (arena). */
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
		free(set->v[i].base_lvl);
		free(set->v[i].lo);
		free(set->v[i].hi);
	}
	free(set->v);
	free(set->slot);
	memset(set, 0, sizeof(*set));
}

/* r, block, depth: compute the regions of "block", which lies in a list
 * "depth" blocks deep (its variables' levels set), and merge them into
 * the block around it. */
static void analyze_block(ra *r, stir_stmt *block, int depth)
{
	block_regions br = { .depth = depth };
	block_regions *outer = r->cur;
	r->cur = &br;
	scan_list(r, &block->u.block.body, depth + 1);
	r->cur = outer;
	stir_region *reads = r->failed ? NULL : to_regions(r, &br.reads);
	stir_region *writes = r->failed ? NULL : to_regions(r, &br.writes);
	if (reads && writes) {
		block->u.block.reads = reads;
		block->u.block.n_reads = br.reads.n;
		block->u.block.writes = writes;
		block->u.block.n_writes = br.writes.n;
	} else {
		r->failed = true;
	}
	if (outer && !r->failed) {
		add_nested(r, &outer->reads, &br.reads);
		add_nested(r, &outer->writes, &br.writes);
	}
	set_release(&br.reads);
	set_release(&br.writes);
}

int stir_analyze_regions(stir_kernel *k)
{
	ra r = { .k = k };
	r.level = calloc((size_t)k->n_vars + 1, sizeof(*r.level));
	if (r.level)
		scan_list(&r, &k->body, 0);
	else
		r.failed = true;
	free(r.level);
	free(r.sig);
	vn_release(&r.vn);
	if (r.failed) {
		stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	return 0;
}
