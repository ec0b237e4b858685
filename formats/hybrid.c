/* hybrid(c, [b1, .., bk]) (docs/formats.md; SparseTIR section 4.2.1).
 *
 * The columns are cut into c ranges of ceil(n / c) columns.  The entries
 * of a row that fall in range q (a run of its sorted columns) go to part
 * q_t of the smallest bucket t whose width holds them, padded to that
 * width; a run longer than the last width is cut into chunks of that width
 * which all go to the last bucket (the part is then "split").  Rows keep
 * their order in a part, the matrix's or with STIR_HYBRID_LOCALITY_ORDER
 * a locality order (formats/row_order.c), and a split row's chunks are
 * consecutive.
 * Covering the rows (STIR_HYBRID_COVER_ROWS, one range), an empty row is
 * one row of padding in part 0_0, in its place among that part's rows,
 * and the chunks of the runs longer than the last width go to a part of
 * their own, 0_k (k buckets), of the last width: only it is split.
 *
 * The first pass finds each run's part, counts the rows of every part and
 * checks that every run needing padding has a column left for it; the
 * second fills the arrays of the parts that have rows.  Both are linear in
 * the non-zeros and the rows; finding a run's bucket is a binary search of
 * the widths.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <stir/passes.h>
#include "formats/format_internal.h"
#include "ir/diag.h"

/* The arrays of one part while they are filled. */
typedef struct hyb_part {
	int64_t rows;     /* rows of the part (its chunks) */
	int64_t nnz;      /* original entries it holds */
	bool split;       /* a row has more than one chunk in it */
	int64_t next;     /* the next row to fill */
	void *r;          /* borrowed: R_S.indices data */
	void *c;          /* borrowed: C_S.indices data */
	void *a;          /* borrowed: A_S data */
} hyb_part;

/* bld, c, buckets, nbuckets: check the parameters and record them in the
 * description.  0 or -1. */
static int check_params(fmt_build *bld, int c, const int64_t *buckets,
	int nbuckets)
{
	stir_host_format *f = bld->f;
	if (c < 1)
		return fmt_build_error(bld, "the number of column ranges must "
			"be at least 1 (got %d)", c);
	if (nbuckets < 1 || !buckets)
		return fmt_build_error(bld, "at least one bucket is needed (got "
			"%d)", buckets ? nbuckets : 0);
	if (buckets[0] <= 0)
		return fmt_build_error(bld, "bucket widths must be positive "
			"(bucket 0 has width %" PRId64 ")", buckets[0]);
	for (int t = 1; t < nbuckets; t++)
		if (buckets[t] <= buckets[t - 1])
			return fmt_build_error(bld, "bucket widths must be "
				"strictly increasing (bucket %d has width %"
				PRId64 ", bucket %d has %" PRId64 ")", t - 1,
				buckets[t - 1], t, buckets[t]);
	f->buckets = malloc((size_t)nbuckets * sizeof(*f->buckets));
	if (!f->buckets) {
		stir_error_oom(bld->ctx);
		return -1;
	}
	for (int t = 0; t < nbuckets; t++)
		f->buckets[t] = buckets[t];
	f->nbuckets = nbuckets;
	f->c = c;
	return 0;
}

/* buckets, k, len: the smallest bucket whose width holds len entries, or
 * k when len exceeds the last width. */
static int bucket_of(const int64_t *buckets, int k, int64_t len)
{
	int lo = 0, hi = k;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (buckets[mid] >= len)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* bld, A, i, q, len, width, split: report that row i, which holds every
 * column, cannot pad its run of len entries in range q to the bucket
 * width (a multiple of it when split).  -1. */
static int padding_error(fmt_build *bld, const fmt_csr *A, int64_t i, int64_t q,
	int64_t len, int64_t width, bool split)
{
	if (width > A->ncols) {
		fmt_build_error(bld, "bucket width %" PRId64 " exceeds the %"
			PRId64 " columns of the matrix", width, A->ncols);
		stir_diag_add_note(bld->diag, stir_loc_none(), "row %" PRId64
			" holds every column, so no column is left to pad its %"
			PRId64 " entries in column range %" PRId64, i, len, q);
		return -1;
	}
	return fmt_build_error(bld, "row %" PRId64 " holds all %" PRId64
		" columns of the matrix, so no column is left to pad its %"
		PRId64 " entries in column range %" PRId64 " to %s%" PRId64,
		i, A->ncols, len, q, split ? "a multiple of " : "", width);
}

/* bld, A, parts, cw, pad_any: the first pass: count the rows and
 * entries of every part (q * k + t) and check that every run can be
 * padded (always, with "pad_any": at a column of the run).  0 or -1. */
static int count_parts(fmt_build *bld, const fmt_csr *A, hyb_part *parts,
	int64_t cw, bool pad_any)
{
	const stir_host_format *f = bld->f;
	int k = f->nbuckets;
	int64_t last = f->buckets[k - 1];
	for (int64_t i = 0; i < A->nrows; i++) {
		int64_t p = A->indptr[i], hi = A->indptr[i + 1];
		bool full = hi - p == A->ncols && !pad_any;
		if (p == hi && f->cover_rows) {
			/* an empty row: a row of padding in part 0_0 */
			if (A->ncols == 0)
				return fmt_build_error(bld, "row %" PRId64 " is "
					"empty and the matrix has no column to pad "
					"it with, so the rows cannot be covered", i);
			parts[0].rows++;
		}
		while (p < hi) {
			int64_t q = A->indices[p] / cw, end = (q + 1) * cw;
			int64_t e = p + 1;
			while (e < hi && A->indices[e] < end)
				e++;
			int64_t len = e - p;
			int t = bucket_of(f->buckets, k, len);
			hyb_part *part;
			if (t == k) {
				/* covering the rows, split rows have a part of
				 * their own, 0_k */
				part = &parts[f->cover_rows ? k : q * k + k - 1];
				part->rows += fmt_ceil_div(len, last);
				part->split = true;
				if (full && len % last != 0)
					return padding_error(bld, A, i, q, len,
						last, true);
			} else {
				part = &parts[q * k + t];
				part->rows++;
				if (full && len < f->buckets[t])
					return padding_error(bld, A, i, q, len,
						f->buckets[t], false);
			}
			part->nnz += len;
			p = e;
		}
	}
	return 0;
}

/* bld, A, parts, cw, order: the second pass: fill the arrays of the
 * parts, taking the rows in "order" (NULL: the matrix's). */
static void fill_parts(fmt_build *bld, const fmt_csr *A, hyb_part *parts,
	int64_t cw, const int64_t *order)
{
	const stir_host_format *f = bld->f;
	stir_dtype it = f->itype, vt = f->vtype;
	int k = f->nbuckets;
	for (int64_t x = 0; x < A->nrows; x++) {
		int64_t i = order ? order[x] : x;
		int64_t p = A->indptr[i], hi = A->indptr[i + 1];
		int64_t pad = -1;   /* found when a run first needs it */
		if (p == hi && f->cover_rows) {
			/* an empty row (count_parts): all padding, value 0 */
			hyb_part *part = &parts[0];
			int64_t o = part->next++;
			fmt_put_index(it, part->r, o, i);
			for (int64_t j = 0; j < f->buckets[0]; j++)
				fmt_put_index(it, part->c, o * f->buckets[0] + j, 0);
		}
		while (p < hi) {
			int64_t q = A->indices[p] / cw, end = (q + 1) * cw;
			int64_t e = p + 1;
			while (e < hi && A->indices[e] < end)
				e++;
			int t = bucket_of(f->buckets, k, e - p);
			if (t == k && !f->cover_rows)
				t = k - 1;
			hyb_part *part = &parts[q * k + t];
			int64_t width = fmt_hybrid_width(f, t);
			/* one row of the part per chunk of the run */
			for (int64_t s = p; s < e; s += width) {
				int64_t o = part->next++;
				int64_t n = e - s < width ? e - s : width;
				fmt_put_index(it, part->r, o, i);
				for (int64_t j = 0; j < n; j++) {
					fmt_put_index(it, part->c, o * width + j,
						A->indices[s + j]);
					fmt_put_value(vt, part->a, o * width + j,
						A->values[s + j]);
				}
				if (n == width)
					continue;
				if (pad < 0)
					pad = fmt_first_absent(A->indices +
						A->indptr[i], hi - A->indptr[i]);
				/* a full row (STIR_HYBRID_PAD_ANY_COLUMN) pads
				 * at the chunk's first column, a valid one */
				int64_t col = pad < A->ncols ? pad : A->indices[s];
				for (int64_t j = n; j < width; j++)
					fmt_put_index(it, part->c, o * width + j,
						col);
			}
			p = e;
		}
	}
}

/* bld, ps, rows, width, arrays: the arrays and size of the part whose
 * suffix (stir_format_hybrid_part_suffix) is ps, with "rows" rows of
 * "width" slots: its rows, columns and values into arrays[0..2] (the
 * names of include/stir/passes.h).  0 or -1. */
static int bind_part(fmt_build *bld, const char *ps, int64_t rows,
	int64_t width, stir_array **arrays)
{
	int64_t shape[2] = { rows, width };
	stir_dtype it = bld->f->itype, vt = bld->f->vtype;
	return (arrays[0] = fmt_build_array(bld, it, 1, &rows, "R%s.indices",
			ps)) &&
		(arrays[1] = fmt_build_array(bld, it, 2, shape, "C%s.indices",
			ps)) &&
		(arrays[2] = fmt_build_array(bld, vt, 2, shape, "A%s", ps)) &&
		fmt_build_size(bld, rows, "rows%s", ps) == 0 ? 0 : -1;
}

/* bld, q, t: bind the arrays and size of part (q, t), which has no rows
 * (STIR_HYBRID_ALL_PARTS); it is not described.  0 or -1. */
static int bind_empty_part(fmt_build *bld, int q, int t)
{
	stir_array *arrays[3];
	char *ps = stir_format_hybrid_part_suffix(bld->f->suffix, q, t);
	int rc = ps ? bind_part(bld, ps, 0, fmt_hybrid_width(bld->f, t),
		arrays) : -1;
	if (!ps)
		stir_error_oom(bld->ctx);
	free(ps);
	return rc;
}

/* See formats.h (flags 0). */
stir_host_format *stir_csr_to_hybrid(stir_ctx *ctx, const stir_csr *csr, int c,
	int nbuckets, const int64_t *buckets, stir_dtype index_type,
	stir_dtype value_type, const char *suffix, stir_bindings *b)
{
	return stir_csr_to_hybrid_flags(ctx, csr, c, nbuckets, buckets,
		index_type, value_type, suffix, 0, b);
}

/* ctx, csr, c, nbuckets, buckets, index_type, value_type, suffix, flags,
 * b: see formats.h. */
stir_host_format *stir_csr_to_hybrid_flags(stir_ctx *ctx, const stir_csr *csr,
	int c, int nbuckets, const int64_t *buckets, stir_dtype index_type,
	stir_dtype value_type, const char *suffix, unsigned flags,
	stir_bindings *b)
{
	fmt_csr A;
	fmt_build bld;
	if (fmt_check_csr(ctx, csr, &A) < 0 ||
	    fmt_build_init(&bld, ctx, STIR_FORMAT_HYBRID, suffix, index_type,
		value_type, A.nrows, A.ncols, A.nnz) < 0)
		return NULL;
	if (check_params(&bld, c, buckets, nbuckets) < 0)
		return fmt_build_abort(&bld);
	stir_host_format *f = bld.f;
	f->cover_rows = (flags & STIR_HYBRID_COVER_ROWS) != 0;
	if (f->cover_rows && c != 1) {
		fmt_build_error(&bld, "covering the rows needs one column range, "
			"not %d: with several, a row lies in several parts", c);
		return fmt_build_abort(&bld);
	}
	/* ranges past the last column (c > n) are empty and not stored */
	int64_t cw = A.ncols > 0 ? fmt_ceil_div(A.ncols, c) : 1;
	int64_t nq = fmt_ceil_div(A.ncols, cw);
	f->range_width = cw;
	int k = nbuckets;
	int64_t nparts;
	hyb_part *parts = NULL;
	/* covering the rows (one range): a last part 0_k for split rows */
	if (__builtin_mul_overflow(nq, (int64_t)k, &nparts) ||
	    __builtin_add_overflow(nparts, (int64_t)f->cover_rows, &nparts) ||
	    (uint64_t)nparts > SIZE_MAX / sizeof(*parts) ||
	    !(parts = calloc(nparts ? (size_t)nparts : 1, sizeof(*parts)))) {
		stir_error_oom(ctx);
		return fmt_build_abort(&bld);
	}
	if (count_parts(&bld, &A, parts, cw,
	    (flags & STIR_HYBRID_PAD_ANY_COLUMN) != 0) < 0) {
		free(parts);
		return fmt_build_abort(&bld);
	}
	for (int64_t pi = 0; pi < nparts; pi++) {
		hyb_part *hp = &parts[pi];
		int q = (int)(pi / k), t = (int)(pi % k);
		if (pi == (int64_t)nq * k) {   /* the split part 0_k */
			q = 0;
			t = k;
		}
		if (hp->rows == 0 && (flags & STIR_HYBRID_ALL_PARTS) &&
		    bind_empty_part(&bld, q, t) < 0) {
			free(parts);
			return fmt_build_abort(&bld);
		}
		if (hp->rows == 0)
			continue;
		int64_t width = fmt_hybrid_width(f, t);
		/* the part's suffix is the format's and a tail */
		char *full = stir_format_hybrid_part_suffix(f->suffix, q, t);
		stir_host_format_part *part = full ? fmt_build_part(&bld, "%s",
			full + strlen(f->suffix)) : stir_error_oom(ctx);
		free(full);
		if (!part) {
			free(parts);
			return fmt_build_abort(&bld);
		}
		part->range = q;
		part->bucket = t;
		part->rows = hp->rows;
		part->width = width;
		part->split = hp->split;
		part->nnz = hp->nnz;
		/* the part's suffix is used before another part can move
		 * the parts array */
		stir_array *arrays[3];
		if (bind_part(&bld, part->suffix, hp->rows, width, arrays) < 0) {
			free(parts);
			return fmt_build_abort(&bld);
		}
		stir_array *ra = arrays[0], *ca = arrays[1], *va = arrays[2];
		part = &f->parts[f->n_parts - 1];
		part->slots = stir_array_get_len(va);
		hp->r = stir_array_get_data(ra);
		hp->c = stir_array_get_data(ca);
		hp->a = stir_array_get_data(va);
	}
	/* the ranges past the last column (c > n) are empty too */
	for (int64_t q = nq; (flags & STIR_HYBRID_ALL_PARTS) && q < c; q++)
		for (int t = 0; t < k; t++)
			if (bind_empty_part(&bld, (int)q, t) < 0) {
				free(parts);
				return fmt_build_abort(&bld);
			}
	int64_t *order = NULL;
	if ((flags & STIR_HYBRID_LOCALITY_ORDER) && fmt_locality_order(ctx, &A, &order) < 0) {
		free(parts);
		return fmt_build_abort(&bld);
	}
	fill_parts(&bld, &A, parts, cw, order);
	free(order);
	free(parts);
	return fmt_build_finish(&bld, b);
}
