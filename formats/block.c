/* Blocked formats: BSR(b), DBSR(b) and SR-BCRS(t, g) (docs/formats.md).
 *
 * All three start from the same structure: for every block of rows, the
 * sorted distinct column blocks its rows touch (b columns wide for BSR and
 * DBSR; one column, a tile, for SR-BCRS).  The rows of a block are already
 * sorted, so their union comes from a k-way merge with a heap of one
 * cursor per row: one heap step per (row, column block) pair, never a pass
 * over the columns.  Values then go to their slots in one more pass, each
 * row walking the union of its block alongside its own entries.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <stir/passes.h>
#include "formats/format_internal.h"
#include "ir/diag.h"

/* The column blocks of every row block. */
typedef struct block_set {
	int64_t nrb;      /* row blocks */
	int64_t *ptr;     /* owned: nrb + 1 offsets into cols */
	int64_t *cols;    /* owned: the column blocks, ascending per row block */
	int64_t cap;      /* room in cols */
} block_set;

/* A row of a row block during the merge. */
typedef struct merge_cursor {
	int64_t key;      /* the column block of the row's next entry */
	int64_t k;        /* the position of that entry */
	int64_t end;      /* the end of the row */
} merge_cursor;

/* h, n, i: restore the min-heap order on key of h[0 .. n) below i. */
static void sift_down(merge_cursor *h, int64_t n, int64_t i)
{
	merge_cursor x = h[i];
	for (;;) {
		int64_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1].key < h[c].key)
			c++;
		if (h[c].key >= x.key)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* s: free its arrays. */
static void block_set_release(block_set *s)
{
	free(s->ptr);
	free(s->cols);
}

/* bld, s, n, key: store column block "key" as entry n of s->cols, making
 * room for it.  0 or -1 (memory). */
static int block_set_push(fmt_build *bld, block_set *s, int64_t n, int64_t key)
{
	if (n == s->cap) {
		int64_t cap = s->cap ? 2 * s->cap : 1024;
		int64_t *c = realloc(s->cols, (size_t)cap * sizeof(*c));
		if (!c) {
			stir_error_oom(bld->ctx);
			return -1;
		}
		s->cols = c;
		s->cap = cap;
	}
	s->cols[n] = key;
	return 0;
}

/* bld, A, rb, cb, s: fill s with the distinct column blocks (cb columns
 * wide) of each block of rb rows of A.  0 or -1 (memory). */
static int block_set_build(fmt_build *bld, const fmt_csr *A, int64_t rb,
	int64_t cb, block_set *s)
{
	s->nrb = fmt_ceil_div(A->nrows, rb);
	s->cols = NULL;
	s->cap = 0;
	s->ptr = malloc((size_t)(s->nrb + 1) * sizeof(*s->ptr));
	int64_t hmax = rb < A->nrows ? rb : A->nrows;
	merge_cursor *h = malloc((size_t)(hmax ? hmax : 1) * sizeof(*h));
	if (!s->ptr || !h) {
		free(h);
		block_set_release(s);
		stir_error_oom(bld->ctx);
		return -1;
	}
	int64_t count = 0;
	s->ptr[0] = 0;
	for (int64_t blk = 0; blk < s->nrb; blk++) {
		int64_t r0 = blk * rb;
		int64_t r1 = A->nrows - r0 < rb ? A->nrows : r0 + rb;
		int64_t n = 0;
		for (int64_t r = r0; r < r1; r++) {
			int64_t lo = A->indptr[r], hi = A->indptr[r + 1];
			if (lo == hi)
				continue;
			h[n].key = A->indices[lo] / cb;
			h[n].k = lo;
			h[n].end = hi;
			n++;
		}
		for (int64_t i = n / 2; i-- > 0; )
			sift_down(h, n, i);
		int64_t last = -1;
		while (n > 0) {
			int64_t key = h[0].key;
			if (key != last) {
				if (block_set_push(bld, s, count, key) < 0) {
					free(h);
					block_set_release(s);
					return -1;
				}
				count++;
				last = key;
			}
			/* the row's other entries in this column block need
			 * no heap step */
			int64_t k = h[0].k + 1, end = h[0].end;
			int64_t first = key * cb;
			while (k < end && A->indices[k] - first < cb)
				k++;
			if (k == end) {
				h[0] = h[--n];
			} else {
				h[0].k = k;
				h[0].key = A->indices[k] / cb;
			}
			if (n > 0)
				sift_down(h, n, 0);
		}
		s->ptr[blk + 1] = count;
	}
	free(h);
	return 0;
}

/* bld, A, s, blk, vd: store the values of A into the blocks of s (b x b,
 * row-major), in the value array data vd. */
static void fill_blocks(fmt_build *bld, const fmt_csr *A, const block_set *s,
	int64_t blk, void *vd)
{
	stir_dtype vt = bld->f->vtype;
	for (int64_t i = 0; i < A->nrows; i++) {
		int64_t ib = i / blk, bi = i - ib * blk;
		int64_t p = s->ptr[ib];
		for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; k++) {
			int64_t col = A->indices[k], bc = col / blk;
			while (s->cols[p] < bc)
				p++;
			fmt_put_value(vt, vd, (p * blk + bi) * blk + col - bc * blk,
				A->values[k]);
		}
	}
}

/* bld, A, blk, drop_empty, b: BSR(blk), or DBSR(blk) when drop_empty (only
 * the block rows holding a block).  The description or NULL. */
static stir_host_format *build_bsr(fmt_build *bld, const fmt_csr *A, int64_t blk,
	bool drop_empty, stir_bindings *b)
{
	stir_host_format *f = bld->f;
	int64_t area;
	if (blk <= 0) {
		fmt_build_error(bld, "the block size must be positive (got %"
			PRId64 ")", blk);
		return fmt_build_abort(bld);
	}
	if (__builtin_mul_overflow(blk, blk, &area)) {
		fmt_build_error(bld, "block size %" PRId64 " is too large", blk);
		return fmt_build_abort(bld);
	}
	f->width = blk;
	int64_t mb = fmt_ceil_div(A->nrows, blk);
	int64_t nb = fmt_ceil_div(A->ncols, blk);
	block_set s;
	if (block_set_build(bld, A, blk, blk, &s) < 0)
		return fmt_build_abort(bld);
	int64_t nnzb = s.ptr[mb];
	int64_t nbr = 0;
	for (int64_t ib = 0; ib < mb; ib++)
		nbr += s.ptr[ib + 1] > s.ptr[ib];
	int64_t rows = drop_empty ? nbr : mb;
	if (rows == 0) {
		block_set_release(&s);
		return fmt_build_finish(bld, b);
	}
	const char *sfx = f->suffix;
	int64_t nptr = rows + 1;
	int64_t vshape[3] = { nnzb, blk, blk };
	stir_array *ra = NULL;
	if (drop_empty)
		ra = fmt_build_array(bld, f->itype, 1, &nbr, "RB%s.indices", sfx);
	stir_array *pa = !drop_empty || ra ? fmt_build_array(bld, f->itype,
		1, &nptr, "JB%s.indptr", sfx) : NULL;
	stir_array *ja = pa ? fmt_build_array(bld, f->itype, 1, &nnzb,
		"JB%s.indices", sfx) : NULL;
	stir_array *va = ja ? fmt_build_array(bld, f->vtype, 3, vshape, "A%s",
		sfx) : NULL;
	stir_host_format_part *part = NULL;
	if (va && (!drop_empty || fmt_build_size(bld, nbr, "nbr%s", sfx) == 0) &&
	    fmt_build_size(bld, mb, "mb%s", sfx) == 0 &&
	    fmt_build_size(bld, nb, "nb%s", sfx) == 0 &&
	    fmt_build_size(bld, nnzb, "nnzb%s", sfx) == 0)
		part = fmt_build_part(bld, "%s", "");
	if (!part) {
		block_set_release(&s);
		return fmt_build_abort(bld);
	}
	void *pd = stir_array_get_data(pa);
	void *jd = stir_array_get_data(ja);
	int64_t r = 0;
	fmt_put_index(f->itype, pd, 0, 0);
	for (int64_t ib = 0; ib < mb; ib++) {
		if (drop_empty && s.ptr[ib + 1] == s.ptr[ib])
			continue;
		if (drop_empty)
			fmt_put_index(f->itype, stir_array_get_data(ra), r, ib);
		fmt_put_index(f->itype, pd, ++r, s.ptr[ib + 1]);
	}
	for (int64_t k = 0; k < nnzb; k++)
		fmt_put_index(f->itype, jd, k, s.cols[k]);
	fill_blocks(bld, A, &s, blk, stir_array_get_data(va));
	block_set_release(&s);
	part->rows = rows;
	part->width = blk;
	part->nnz = A->nnz;
	part->slots = nnzb * area;
	part->mb = mb;
	part->nb = nb;
	part->nnzb = nnzb;
	part->nbr = drop_empty ? nbr : 0;
	return fmt_build_finish(bld, b);
}

stir_host_format *stir_csr_to_bsr(stir_ctx *ctx, const stir_csr *csr,
	int64_t block, stir_dtype index_type, stir_dtype value_type,
	const char *suffix, stir_bindings *b)
{
	fmt_csr A;
	fmt_build bld;
	if (fmt_check_csr(ctx, csr, &A) < 0 ||
	    fmt_build_init(&bld, ctx, STIR_FORMAT_BSR, suffix, index_type,
		value_type, A.nrows, A.ncols, A.nnz) < 0)
		return NULL;
	return build_bsr(&bld, &A, block, false, b);
}

stir_host_format *stir_csr_to_dbsr(stir_ctx *ctx, const stir_csr *csr,
	int64_t block, stir_dtype index_type, stir_dtype value_type,
	const char *suffix, stir_bindings *b)
{
	fmt_csr A;
	fmt_build bld;
	if (fmt_check_csr(ctx, csr, &A) < 0 ||
	    fmt_build_init(&bld, ctx, STIR_FORMAT_DBSR, suffix, index_type,
		value_type, A.nrows, A.ncols, A.nnz) < 0)
		return NULL;
	return build_bsr(&bld, &A, block, true, b);
}

/* f, A, s, base, td, vd: the tiles of SR-BCRS(t, g) (t = f->width, g =
 * f->group) into the T indices td and the values of A into vd, the groups
 * of window k from group base[k] on; a window with base[k] < 0 belongs to
 * another part and is skipped. */
static void fill_windows(const stir_host_format *f, const fmt_csr *A,
	const block_set *s, const int64_t *base, void *td, void *vd)
{
	int64_t t = f->width, g = f->group;
	/* the tiles of each window, then its padding tiles */
	for (int64_t k = 0; k < s->nrb; k++) {
		if (base[k] < 0)
			continue;
		const int64_t *tiles = s->cols + s->ptr[k];
		int64_t nt = s->ptr[k + 1] - s->ptr[k];
		int64_t first = base[k] * g, end = first + fmt_ceil_div(nt, g) * g;
		for (int64_t j = 0; j < nt; j++)
			fmt_put_index(f->itype, td, first + j, tiles[j]);
		if (first + nt < end) {
			/* a column absent from the window, or its last one
			 * repeated when it holds every column */
			int64_t pad = nt < A->ncols ?
				fmt_first_absent(tiles, nt) : tiles[nt - 1];
			for (int64_t j = first + nt; j < end; j++)
				fmt_put_index(f->itype, td, j, pad);
		}
	}
	/* each value at (its tile's position, its row in the window) */
	for (int64_t i = 0; i < A->nrows; i++) {
		int64_t k = i / t, ti = i - k * t;
		if (base[k] < 0)
			continue;
		int64_t p = s->ptr[k], shift = base[k] * g - s->ptr[k];
		for (int64_t e = A->indptr[i]; e < A->indptr[i + 1]; e++) {
			while (s->cols[p] < A->indices[e])
				p++;
			fmt_put_value(f->vtype, vd, (shift + p) * t + ti,
				A->values[e]);
		}
	}
}

/* The rows SR-BCRS windows take: the matrix's own, or a copy of them in a
 * row order. */
typedef struct sr_rows {
	stir_row_order chosen; /* the order the rows are in */
	int64_t *order;       /* owned: window row x holds row order[x]; NULL
	                       * for the matrix's own order */
	int64_t *indptr;      /* owned: the copy's arrays */
	int64_t *indices;
	double *values;
} sr_rows;

/* r: free its arrays. */
static void sr_rows_release(sr_rows *r)
{
	free(r->order);
	free(r->indptr);
	free(r->indices);
	free(r->values);
}

/* ctx, A, order, r: unless order is STIR_ROWS_NATURAL, A's rows in that
 * order (STIR_ROWS_DEGREE or STIR_ROWS_LOCALITY) into r, and A made a
 * view of them.  0, or -1 with an error. */
static int order_rows(stir_ctx *ctx, fmt_csr *A, stir_row_order order,
	sr_rows *r)
{
	memset(r, 0, sizeof(*r));
	if (order == STIR_ROWS_NATURAL)
		return 0;
	if ((order == STIR_ROWS_DEGREE ? fmt_degree_order(ctx, A, &r->order) :
	     fmt_locality_order(ctx, A, &r->order)) < 0)
		return -1;
	int64_t m = A->nrows, nnz = A->nnz;
	r->indptr = malloc((size_t)(m + 1) * sizeof(*r->indptr));
	r->indices = malloc((size_t)(nnz ? nnz : 1) * sizeof(*r->indices));
	r->values = malloc((size_t)(nnz ? nnz : 1) * sizeof(*r->values));
	if (!r->indptr || !r->indices || !r->values) {
		sr_rows_release(r);
		stir_error_oom(ctx);
		return -1;
	}
	r->indptr[0] = 0;
	for (int64_t x = 0; x < m; x++) {
		int64_t lo = A->indptr[r->order[x]];
		int64_t len = A->indptr[r->order[x] + 1] - lo;
		memcpy(r->indices + r->indptr[x], A->indices + lo,
			(size_t)len * sizeof(*r->indices));
		memcpy(r->values + r->indptr[x], A->values + lo,
			(size_t)len * sizeof(*r->values));
		r->indptr[x + 1] = r->indptr[x] + len;
	}
	A->indptr = r->indptr;
	A->indices = r->indices;
	A->values = r->values;
	return 0;
}

/* s, g: the groups of g tiles that the windows of s need. */
static int64_t count_groups(const block_set *s, int64_t g)
{
	int64_t n = 0;
	for (int64_t k = 0; k < s->nrb; k++)
		n += fmt_ceil_div(s->ptr[k + 1] - s->ptr[k], g);
	return n;
}

/* bld, A, order, rows, s: A's rows in "order" (rows, A a view of them)
 * and the tiles of each window of t = bld->f->width rows in s; for
 * STIR_ROWS_FEWEST_SLOTS, the order of the three that needs the fewest
 * groups.  0, or -1 with an error (nothing left to free). */
static int window_rows(fmt_build *bld, fmt_csr *A, stir_row_order order,
	sr_rows *rows, block_set *s)
{
	int64_t t = bld->f->width, g = bld->f->group, best = -1;
	const fmt_csr orig = *A;
	stir_row_order last = order == STIR_ROWS_FEWEST_SLOTS ?
		STIR_ROWS_LOCALITY : order;
	for (stir_row_order o = order == STIR_ROWS_FEWEST_SLOTS ?
	     STIR_ROWS_NATURAL : order; o <= last; o++) {
		fmt_csr view = orig;
		sr_rows r;
		block_set x;
		if (order_rows(bld->ctx, &view, o, &r) < 0)
			return -1;
		if (block_set_build(bld, &view, t, 1, &x) < 0) {
			sr_rows_release(&r);
			return -1;
		}
		int64_t n = count_groups(&x, g);
		if (best >= 0 && n >= best) {
			sr_rows_release(&r);
			block_set_release(&x);
			continue;
		}
		if (best >= 0) {
			sr_rows_release(rows);
			block_set_release(s);
		}
		best = n;
		*rows = r;
		*s = x;
		*A = view;
		rows->chosen = o;
	}
	return 0;
}

/* ctx, csr, t, g, order, index_type, value_type, suffix, A, bld, s, rows:
 * start an SR-BCRS(t, g) build: the matrix and the parameters checked,
 * its rows in "order" (rows, A a view of them), each window's tiles in s.
 * 0, or -1 with an error (nothing left to free). */
static int sr_bcrs_start(stir_ctx *ctx, const stir_csr *csr, int64_t t,
	int64_t g, stir_row_order order, stir_dtype index_type,
	stir_dtype value_type, const char *suffix, fmt_csr *A, fmt_build *bld,
	block_set *s, sr_rows *rows)
{
	memset(rows, 0, sizeof(*rows));
	if (fmt_check_csr(ctx, csr, A) < 0 ||
	    fmt_build_init(bld, ctx, STIR_FORMAT_SR_BCRS, suffix, index_type,
		value_type, A->nrows, A->ncols, A->nnz) < 0)
		return -1;
	if (t <= 0 || g <= 0) {
		fmt_build_error(bld, "the %s must be positive (got %" PRId64
			")", t <= 0 ? "tile height" : "group size",
			t <= 0 ? t : g);
		fmt_build_abort(bld);
		return -1;
	}
	if (order < STIR_ROWS_NATURAL || order > STIR_ROWS_FEWEST_SLOTS) {
		fmt_build_error(bld, "unknown row order %d", (int)order);
		fmt_build_abort(bld);
		return -1;
	}
	bld->f->width = t;
	bld->f->group = g;
	bld->f->row_order = order;
	if (window_rows(bld, A, order, rows, s) < 0) {
		fmt_build_abort(bld);
		return -1;
	}
	return 0;
}

stir_host_format *stir_csr_to_sr_bcrs(stir_ctx *ctx, const stir_csr *csr,
	int64_t t, int64_t g, stir_dtype index_type, stir_dtype value_type,
	const char *suffix, stir_bindings *b)
{
	fmt_csr A;
	fmt_build bld;
	block_set s;
	sr_rows rows;
	if (sr_bcrs_start(ctx, csr, t, g, STIR_ROWS_NATURAL, index_type,
	    value_type, suffix, &A, &bld, &s, &rows) < 0)
		return NULL;
	stir_host_format *f = bld.f;
	int64_t mt = s.nrb;
	int64_t *gptr = malloc((size_t)(mt + 1) * sizeof(*gptr));
	if (!gptr) {
		stir_error_oom(ctx);
		block_set_release(&s);
		return fmt_build_abort(&bld);
	}
	int64_t maxg = 0;
	gptr[0] = 0;
	for (int64_t k = 0; k < mt; k++) {
		int64_t groups = fmt_ceil_div(s.ptr[k + 1] - s.ptr[k], g);
		gptr[k + 1] = gptr[k] + groups;
		if (groups > maxg)
			maxg = groups;
	}
	int64_t ngroups = gptr[mt];
	stir_host_format_part *part = NULL;
	stir_array *pa = NULL, *ta = NULL, *va = NULL;
	if (mt > 0) {
		int64_t nptr = mt + 1;
		int64_t tshape[2] = { ngroups, g };
		int64_t vshape[3] = { ngroups, g, t };
		pa = fmt_build_array(&bld, f->itype, 1, &nptr, "G%s.indptr",
			f->suffix);
		ta = pa ? fmt_build_array(&bld, f->itype, 2, tshape,
			"T%s.indices", f->suffix) : NULL;
		va = ta ? fmt_build_array(&bld, f->vtype, 3, vshape, "A%s",
			f->suffix) : NULL;
		if (va && fmt_build_size(&bld, mt, "mt%s", f->suffix) == 0 &&
		    fmt_build_size(&bld, maxg, "maxg%s", f->suffix) == 0 &&
		    fmt_build_size(&bld, ngroups, "ngroups%s", f->suffix) == 0)
			part = fmt_build_part(&bld, "%s", "");
		if (!part) {
			free(gptr);
			block_set_release(&s);
			return fmt_build_abort(&bld);
		}
	}
	if (part) {
		void *pd = stir_array_get_data(pa);
		for (int64_t k = 0; k <= mt; k++)
			fmt_put_index(f->itype, pd, k, gptr[k]);
		fill_windows(f, &A, &s, gptr, stir_array_get_data(ta),
			stir_array_get_data(va));
		part->rows = mt;
		part->width = g;
		part->nnz = A.nnz;
		part->slots = ngroups * g * t;
		part->mb = mt;
		part->ngroups = ngroups;
		part->maxg = maxg;
	}
	free(gptr);
	block_set_release(&s);
	return fmt_build_finish(&bld, b);
}

/* bld, rows, n, sfx: bind P_sfx, the matrix's row of each of the
 * n window rows: rows->order's (none: the rows' own order), then the rows
 * past the matrix as themselves.  0 or -1. */
static int bind_row_order(fmt_build *bld, const sr_rows *rows, int64_t n,
	const char *sfx)
{
	stir_array *pa = fmt_build_array(bld, bld->f->itype, 1, &n,
		"P%s", sfx);
	if (!pa)
		return -1;
	void *pd = stir_array_get_data(pa);
	for (int64_t x = 0; x < n; x++)
		fmt_put_index(bld->f->itype, pd, x, x < bld->f->m &&
			rows->order ? rows->order[x] : x);
	return 0;
}

/* One part of SR-BCRS with chunks while it is counted and filled. */
typedef struct chunk_part {
	int64_t items, ngroups, maxg, nnz;
	void *w, *gp;     /* borrowed: W_P.indices and G_P.indptr data */
	void *td, *vd;    /* borrowed: T_P.indices and A_P data */
} chunk_part;

stir_host_format *stir_csr_to_sr_bcrs_chunks(stir_ctx *ctx,
	const stir_csr *csr, int64_t t, int64_t g, int64_t c,
	stir_row_order order, stir_dtype index_type, stir_dtype value_type,
	const char *suffix, stir_bindings *b)
{
	fmt_csr A;
	fmt_build bld;
	block_set s;
	sr_rows rows;
	if (sr_bcrs_start(ctx, csr, t, g, order, index_type, value_type,
	    suffix, &A, &bld, &s, &rows) < 0)
		return NULL;
	stir_host_format *f = bld.f;
	f->chunk = c;
	int64_t mt = s.nrb;
	int64_t *base = c > 0 ? malloc((size_t)(mt ? mt : 1) * sizeof(*base)) :
		NULL;
	if (c <= 0)
		fmt_build_error(&bld, "the chunk size must be positive (got %"
			PRId64 ")", c);
	else if (!base)
		stir_error_oom(ctx);
	if (!base) {
		block_set_release(&s);
		sr_rows_release(&rows);
		return fmt_build_abort(&bld);
	}
	/* part 0, the split windows' chunks; part 1, the whole windows */
	chunk_part parts[2] = { { 0 }, { 0 } };
	for (int64_t k = 0; k < mt; k++) {
		int64_t ng = fmt_ceil_div(s.ptr[k + 1] - s.ptr[k], g);
		chunk_part *q = &parts[ng <= c];
		q->items += ng <= c ? 1 : fmt_ceil_div(ng, c);
		q->ngroups += ng;
		int64_t most = ng < c ? ng : c;
		if (most > q->maxg)
			q->maxg = most;
		int64_t r1 = (k + 1) * t < A.nrows ? (k + 1) * t : A.nrows;
		q->nnz += A.indptr[r1] - A.indptr[k * t];
	}
	bool ok = true;
	for (int i = 0; i < 2 && ok; i++) {
		chunk_part *q = &parts[i];
		char *sfx = stir_format_sr_bcrs_part_suffix(f->suffix, i);
		int64_t nptr = q->items + 1;
		int64_t tshape[2] = { q->ngroups, g };
		int64_t vshape[3] = { q->ngroups, g, t };
		stir_array *wa = sfx ? fmt_build_array(&bld, f->itype, 1,
			&q->items, "W%s.indices", sfx) : NULL;
		stir_array *pa = wa ? fmt_build_array(&bld, f->itype, 1, &nptr,
			"G%s.indptr", sfx) : NULL;
		stir_array *ta = pa ? fmt_build_array(&bld, f->itype, 2, tshape,
			"T%s.indices", sfx) : NULL;
		stir_array *va = ta ? fmt_build_array(&bld, f->vtype, 3, vshape,
			"A%s", sfx) : NULL;
		if (va && order != STIR_ROWS_NATURAL)
			ok = bind_row_order(&bld, &rows, mt * t, sfx) == 0;
		ok = ok && va && fmt_build_size(&bld, q->items, "items%s", sfx) == 0 &&
			fmt_build_size(&bld, mt, "mt%s", sfx) == 0 &&
			fmt_build_size(&bld, q->maxg, "maxg%s", sfx) == 0 &&
			fmt_build_size(&bld, q->ngroups, "ngroups%s", sfx) == 0;
		stir_host_format_part *part = ok && q->items > 0 ?
			fmt_build_part(&bld, "%s", sfx + strlen(f->suffix)) : NULL;
		if (!sfx)
			stir_error_oom(ctx);
		free(sfx);
		if (!ok || (q->items > 0 && !part)) {
			ok = false;
			break;
		}
		q->w = stir_array_get_data(wa);
		q->gp = stir_array_get_data(pa);
		q->td = stir_array_get_data(ta);
		q->vd = stir_array_get_data(va);
		if (part) {
			part->rows = q->items;
			part->width = g;
			part->split = i == 0;
			part->nnz = q->nnz;
			part->slots = q->ngroups * g * t;
			part->mb = mt;
			part->ngroups = q->ngroups;
			part->maxg = q->maxg;
			part->row_order = rows.chosen;
		}
	}
	if (!ok) {
		free(base);
		block_set_release(&s);
		sr_rows_release(&rows);
		return fmt_build_abort(&bld);
	}
	/* each part's items (a window whole, or a chunk of c groups, the
	 * last one fewer, of a split window), then its tiles and values */
	for (int i = 0; i < 2; i++) {
		int64_t item = 0, group = 0;
		fmt_put_index(f->itype, parts[i].gp, 0, 0);
		for (int64_t k = 0; k < mt; k++) {
			int64_t ng = fmt_ceil_div(s.ptr[k + 1] - s.ptr[k], g);
			base[k] = (ng <= c) == i ? group : -1;
			for (int64_t j = 0; base[k] >= 0 && (j == 0 || j < ng);
			     j += c) {
				group += ng - j < c ? ng - j : c;
				fmt_put_index(f->itype, parts[i].w, item, k);
				fmt_put_index(f->itype, parts[i].gp, ++item, group);
			}
		}
		fill_windows(f, &A, &s, base, parts[i].td, parts[i].vd);
	}
	free(base);
	block_set_release(&s);
	sr_rows_release(&rows);
	return fmt_build_finish(&bld, b);
}
