/* Row-padded formats: ELL(w), ELL3D(w) and padding(p) (docs/formats.md).
 *
 * Each row keeps its entries in order and is followed by padded slots that
 * hold 0 at the smallest column absent from the row.  One pass checks the
 * rows (too long, or full but in need of padding) and counts; a second
 * pass fills the arrays.
 */
#include <inttypes.h>
#include <stdio.h>
#include "formats/format_internal.h"
#include "ir/diag.h"

/* csf, i, buf, len: the name of row i of the rows being padded in
 * messages: "row i", or for a CSF tensor (csf not NULL) "row R of relation
 * Q", found by a binary search of the relations. */
static void row_name(const stir_csf *csf, int64_t i, char *buf, size_t len)
{
	if (!csf) {
		snprintf(buf, len, "row %" PRId64, i);
		return;
	}
	int64_t lo = 0, hi = csf->nrels;
	/* the last relation whose first position is at most i */
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if (csf->rel_indptr[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	snprintf(buf, len, "row %" PRId64 " of relation %" PRId64,
		csf->row_indices[i], lo);
}

/* bld, A, csf, w, b: the ELL (or, with csf, ELL3D) rule on the rows of A:
 * check them, then bind J_S.indices and A_S.  The description or NULL. */
static stir_host_format *build_ell(fmt_build *bld, const fmt_csr *A,
	const stir_csf *csf, int64_t w, stir_bindings *b)
{
	stir_host_format *f = bld->f;
	char name[128];
	if (w <= 0) {
		fmt_build_error(bld, "the width must be positive (got %" PRId64
			")", w);
		return fmt_build_abort(bld);
	}
	f->width = w;
	for (int64_t i = 0; i < A->nrows; i++) {
		int64_t len = A->indptr[i + 1] - A->indptr[i];
		if (len > w) {
			row_name(csf, i, name, sizeof(name));
			fmt_build_error(bld, "%s has %" PRId64 " entries, more "
				"than the width %" PRId64, name, len, w);
			return fmt_build_abort(bld);
		}
		/* a full row has no column left for its padding, which
		 * it needs only when the width exceeds the columns */
		if (len < w && len == A->ncols) {
			row_name(csf, i, name, sizeof(name));
			fmt_build_error(bld, "width %" PRId64 " exceeds the %"
				PRId64 " columns of the matrix", w, A->ncols);
			stir_diag_add_note(bld->diag, stir_loc_none(), "%s "
				"holds every column, so no column is left to "
				"pad it", name);
			return fmt_build_abort(bld);
		}
	}
	if (A->nrows == 0)
		return fmt_build_finish(bld, b);
	int64_t shape[2] = { A->nrows, w };
	stir_array *ja = fmt_build_array(bld, f->itype, 2, shape,
		"J%s.indices", f->suffix);
	stir_array *va = ja ? fmt_build_array(bld, f->vtype, 2, shape, "A%s",
		f->suffix) : NULL;
	stir_host_format_part *part = va ? fmt_build_part(bld, "%s", "") : NULL;
	if (!part)
		return fmt_build_abort(bld);
	void *jd = stir_array_get_data(ja);
	void *vd = stir_array_get_data(va);
	for (int64_t i = 0; i < A->nrows; i++) {
		int64_t lo = A->indptr[i], len = A->indptr[i + 1] - lo;
		int64_t base = i * w;
		for (int64_t k = 0; k < len; k++) {
			fmt_put_index(f->itype, jd, base + k,
				A->indices[lo + k]);
			fmt_put_value(f->vtype, vd, base + k,
				A->values[lo + k]);
		}
		if (len < w) {
			int64_t pad = fmt_first_absent(A->indices + lo, len);
			for (int64_t k = len; k < w; k++)
				fmt_put_index(f->itype, jd, base + k, pad);
		}
	}
	part->rows = A->nrows;
	part->width = w;
	part->nnz = A->nnz;
	part->slots = A->nrows * w;
	return fmt_build_finish(bld, b);
}

stir_host_format *stir_csr_to_ell(stir_ctx *ctx, const stir_csr *csr, int64_t w,
	stir_dtype index_type, stir_dtype value_type, const char *suffix,
	stir_bindings *b)
{
	fmt_csr A;
	fmt_build bld;
	if (fmt_check_csr(ctx, csr, &A) < 0 ||
	    fmt_build_init(&bld, ctx, STIR_FORMAT_ELL, suffix, index_type,
		value_type, A.nrows, A.ncols, A.nnz) < 0)
		return NULL;
	return build_ell(&bld, &A, NULL, w, b);
}

stir_host_format *stir_csf_to_ell3d(stir_ctx *ctx, const stir_csf *csf, int64_t w,
	stir_dtype index_type, stir_dtype value_type, const char *suffix,
	stir_bindings *b)
{
	fmt_csr A;
	fmt_build bld;
	if (fmt_check_csf(ctx, csf, &A) < 0 ||
	    fmt_build_init(&bld, ctx, STIR_FORMAT_ELL3D, suffix, index_type,
		value_type, A.nrows, A.ncols, A.nnz) < 0)
		return NULL;
	return build_ell(&bld, &A, csf, w, b);
}

stir_host_format *stir_csr_to_padding(stir_ctx *ctx, const stir_csr *csr,
	int64_t p, stir_dtype index_type, stir_dtype value_type,
	const char *suffix, stir_bindings *b)
{
	fmt_csr A;
	fmt_build bld;
	if (fmt_check_csr(ctx, csr, &A) < 0 ||
	    fmt_build_init(&bld, ctx, STIR_FORMAT_PADDING, suffix, index_type,
		value_type, A.nrows, A.ncols, A.nnz) < 0)
		return NULL;
	stir_host_format *f = bld.f;
	if (p <= 0) {
		fmt_build_error(&bld, "the multiple must be positive (got %"
			PRId64 ")", p);
		return fmt_build_abort(&bld);
	}
	f->width = p;
	/* count the padded slots, checking that every row can be padded */
	int64_t total = 0;
	for (int64_t i = 0; i < A.nrows; i++) {
		int64_t len = A.indptr[i + 1] - A.indptr[i];
		int64_t padded = fmt_ceil_div(len, p) * p;
		if (padded > len && len == A.ncols) {
			fmt_build_error(&bld, "row %" PRId64 " holds all %"
				PRId64 " columns of the matrix, so no column is "
				"left to pad its %" PRId64 " entries to a "
				"multiple of %" PRId64, i, A.ncols, len, p);
			return fmt_build_abort(&bld);
		}
		if (__builtin_add_overflow(total, padded, &total)) {
			fmt_build_error(&bld, "the padded rows would hold more "
				"than %" PRId64 " entries", INT64_MAX);
			return fmt_build_abort(&bld);
		}
	}
	if (A.nrows == 0)
		return fmt_build_finish(&bld, b);
	int64_t nptr = A.nrows + 1;
	stir_array *pa = fmt_build_array(&bld, f->itype, 1, &nptr,
		"J%s.indptr", f->suffix);
	stir_array *ja = pa ? fmt_build_array(&bld, f->itype, 1, &total,
		"J%s.indices", f->suffix) : NULL;
	stir_array *va = ja ? fmt_build_array(&bld, f->vtype, 1, &total,
		"A%s", f->suffix) : NULL;
	stir_host_format_part *part = NULL;
	if (va && fmt_build_size(&bld, total, "nnz%s", f->suffix) == 0)
		part = fmt_build_part(&bld, "%s", "");
	if (!part)
		return fmt_build_abort(&bld);
	void *pd = stir_array_get_data(pa);
	void *jd = stir_array_get_data(ja);
	void *vd = stir_array_get_data(va);
	int64_t pos = 0;
	fmt_put_index(f->itype, pd, 0, 0);
	for (int64_t i = 0; i < A.nrows; i++) {
		int64_t lo = A.indptr[i], len = A.indptr[i + 1] - lo;
		int64_t padded = fmt_ceil_div(len, p) * p;
		for (int64_t k = 0; k < len; k++) {
			fmt_put_index(f->itype, jd, pos + k, A.indices[lo + k]);
			fmt_put_value(f->vtype, vd, pos + k, A.values[lo + k]);
		}
		if (padded > len) {
			int64_t pad = fmt_first_absent(A.indices + lo, len);
			for (int64_t k = len; k < padded; k++)
				fmt_put_index(f->itype, jd, pos + k, pad);
		}
		pos += padded;
		fmt_put_index(f->itype, pd, i + 1, pos);
	}
	part->rows = A.nrows;
	part->width = p;
	part->nnz = A.nnz;
	part->slots = total;
	return fmt_build_finish(&bld, b);
}
