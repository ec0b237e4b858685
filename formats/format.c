/* The format description (stir_host_format), the checks every builder runs on
 * its input, and the build state that collects arrays and sizes until a
 * format is complete, so that a failed build binds nothing. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/format_internal.h"
#include "ir/diag.h"

/* ---- checking the input ---- */

/* ctx, name, ptr, n, total, what: check indptr array "name" of n + 1
 * entries: 0 first, never decreasing, never past "total", "total" last
 * ("what" names the total in messages).  0 or -1. */
static int check_indptr(stir_ctx *ctx, const char *name, const int64_t *ptr,
	int64_t n, int64_t total, const char *what)
{
	if (!ptr) {
		stir_error(ctx, stir_loc_none(), "%s is NULL", name);
		return -1;
	}
	if (ptr[0] != 0) {
		stir_error(ctx, stir_loc_none(),
			"%s: entry 0 is %" PRId64 ", expected 0", name, ptr[0]);
		return -1;
	}
	for (int64_t i = 1; i <= n; i++) {
		if (ptr[i] < ptr[i - 1]) {
			stir_error(ctx, stir_loc_none(), "%s: entry %" PRId64
				" is %" PRId64 ", less than entry %" PRId64
				" (%" PRId64 ")", name, i, ptr[i], i - 1,
				ptr[i - 1]);
			return -1;
		}
		/* checked before the end so that no later loop reads past
		 * the arrays the entries index */
		if (ptr[i] > total) {
			stir_error(ctx, stir_loc_none(), "%s: entry %" PRId64
				" is %" PRId64 ", more than %s = %" PRId64, name,
				i, ptr[i], what, total);
			return -1;
		}
	}
	if (ptr[n] != total) {
		stir_error(ctx, stir_loc_none(), "%s: entry %" PRId64
			" (the last) is %" PRId64 ", expected %s = %" PRId64,
			name, n, ptr[n], what, total);
		return -1;
	}
	return 0;
}

/* ctx, name, ptr, n, idx, bound, outer: check indices array "name": in
 * [0, bound) and strictly ascending within each of the n groups ptr
 * delimits (called "outer" in messages).  0 or -1. */
static int check_indices(stir_ctx *ctx, const char *name, const int64_t *ptr,
	int64_t n, const int64_t *idx, int64_t bound, const char *outer)
{
	if (!idx && ptr[n] > 0) {
		stir_error(ctx, stir_loc_none(), "%s is NULL", name);
		return -1;
	}
	for (int64_t i = 0; i < n; i++) {
		for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
			if (idx[k] < 0 || idx[k] >= bound) {
				stir_error(ctx, stir_loc_none(), "%s: entry %"
					PRId64 " (%s %" PRId64 ") is %" PRId64
					", outside [0, %" PRId64 ")", name, k,
					outer, i, idx[k], bound);
				return -1;
			}
			if (k > ptr[i] && idx[k] <= idx[k - 1]) {
				stir_error(ctx, stir_loc_none(), "%s: entry %"
					PRId64 " (%s %" PRId64 ") is %" PRId64
					", not greater than entry %" PRId64
					" (%" PRId64 ")", name, k, outer, i,
					idx[k], k - 1, idx[k - 1]);
				return -1;
			}
		}
	}
	return 0;
}

/* ctx, what, name, v: check that count "name" of "what" is not negative. */
static int check_count(stir_ctx *ctx, const char *what, const char *name,
	int64_t v)
{
	if (v >= 0)
		return 0;
	stir_error(ctx, stir_loc_none(), "%s: %s is negative (%" PRId64 ")",
		what, name, v);
	return -1;
}

int fmt_check_csr(stir_ctx *ctx, const stir_csr *csr, fmt_csr *out)
{
	if (!csr) {
		stir_error(ctx, stir_loc_none(), "no CSR matrix");
		return -1;
	}
	if (check_count(ctx, "CSR", "nrows", csr->nrows) < 0 ||
	    check_count(ctx, "CSR", "ncols", csr->ncols) < 0 ||
	    check_count(ctx, "CSR", "nnz", csr->nnz) < 0)
		return -1;
	if (check_indptr(ctx, "CSR indptr", csr->indptr, csr->nrows, csr->nnz,
		"nnz") < 0)
		return -1;
	if (check_indices(ctx, "CSR indices", csr->indptr, csr->nrows,
		csr->indices, csr->ncols, "row") < 0)
		return -1;
	if (!csr->values && csr->nnz > 0) {
		stir_error(ctx, stir_loc_none(), "CSR values is NULL");
		return -1;
	}
	out->nrows = csr->nrows;
	out->ncols = csr->ncols;
	out->nnz = csr->nnz;
	out->indptr = csr->indptr;
	out->indices = csr->indices;
	out->values = csr->values;
	return 0;
}

int fmt_check_csf(stir_ctx *ctx, const stir_csf *csf, fmt_csr *inner)
{
	if (!csf) {
		stir_error(ctx, stir_loc_none(), "no CSF tensor");
		return -1;
	}
	if (check_count(ctx, "CSF", "nrels", csf->nrels) < 0 ||
	    check_count(ctx, "CSF", "nrows", csf->nrows) < 0 ||
	    check_count(ctx, "CSF", "ncols", csf->ncols) < 0 ||
	    check_count(ctx, "CSF", "nnz_i", csf->nnz_i) < 0 ||
	    check_count(ctx, "CSF", "nnz", csf->nnz) < 0)
		return -1;
	if (check_indptr(ctx, "CSF rel_indptr", csf->rel_indptr, csf->nrels,
		csf->nnz_i, "nnz_i") < 0)
		return -1;
	if (check_indices(ctx, "CSF row_indices", csf->rel_indptr, csf->nrels,
		csf->row_indices, csf->nrows, "relation") < 0)
		return -1;
	if (check_indptr(ctx, "CSF row_indptr", csf->row_indptr, csf->nnz_i,
		csf->nnz, "nnz") < 0)
		return -1;
	if (check_indices(ctx, "CSF col_indices", csf->row_indptr, csf->nnz_i,
		csf->col_indices, csf->ncols, "row position") < 0)
		return -1;
	if (!csf->values && csf->nnz > 0) {
		stir_error(ctx, stir_loc_none(), "CSF values is NULL");
		return -1;
	}
	inner->nrows = csf->nnz_i;
	inner->ncols = csf->ncols;
	inner->nnz = csf->nnz;
	inner->indptr = csf->row_indptr;
	inner->indices = csf->col_indices;
	inner->values = csf->values;
	return 0;
}

double fmt_round_value(stir_dtype t, double v)
{
	switch (t) {
	case STIR_F16: return stir_f16_to_double(stir_f16_from_double(v));
	case STIR_BF16: return stir_bf16_to_double(stir_bf16_from_double(v));
	case STIR_F32: return (float)v;
	default: return v;
	}
}

/* ---- the build state ---- */

/* kind: the format's name in messages. */
const char *stir_format_kind_get_name(stir_format_kind kind)
{
	switch (kind) {
	case STIR_FORMAT_ELL: return "ELL";
	case STIR_FORMAT_BSR: return "BSR";
	case STIR_FORMAT_PADDING: return "padding";
	case STIR_FORMAT_HYBRID: return "hybrid";
	case STIR_FORMAT_ELL3D: return "ELL3D";
	case STIR_FORMAT_DBSR: return "DBSR";
	case STIR_FORMAT_SR_BCRS: return "SR-BCRS";
	}
	return "?";
}

/* ctx, what, suffix: check that the suffix can end a name of the language:
 * letters, digits and '_' only, and short enough.  0 or -1. */
static int check_suffix(stir_ctx *ctx, const char *what, const char *suffix)
{
	size_t len = strlen(suffix);
	if (len > FMT_SUFFIX_MAX) {
		stir_error(ctx, stir_loc_none(), "%s: the suffix has %zu "
			"characters, more than %d", what, len, FMT_SUFFIX_MAX);
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		char ch = suffix[i];
		if (!(ch == '_' || (ch >= '0' && ch <= '9') ||
		      (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) {
			stir_error(ctx, stir_loc_none(), "%s: suffix '%s' may "
				"hold only letters, digits and '_'", what,
				suffix);
			return -1;
		}
	}
	return 0;
}

int fmt_build_error(fmt_build *bld, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	bld->diag = stir_error(bld->ctx, stir_loc_none(), "%s: %s", bld->what,
		msg);
	return -1;
}

int fmt_build_fits(fmt_build *bld, int64_t value, const char *what)
{
	if (bld->f->itype != STIR_I32 || value <= INT32_MAX)
		return 0;
	return fmt_build_error(bld, "%s (%" PRId64 ") does not fit in i32 "
		"indices: build the format with i64 indices", what, value);
}

int fmt_build_init(fmt_build *bld, stir_ctx *ctx, stir_format_kind kind,
	const char *suffix, stir_dtype itype, stir_dtype vtype, int64_t m,
	int64_t n, int64_t nnz)
{
	memset(bld, 0, sizeof(*bld));
	bld->ctx = ctx;
	bld->what = stir_format_kind_get_name(kind);
	if (!suffix)
		suffix = "";
	if (check_suffix(ctx, bld->what, suffix) < 0)
		return -1;
	if (itype != STIR_I32 && itype != STIR_I64) {
		stir_error(ctx, stir_loc_none(), "%s: the index type must be "
			"i32 or i64, not %s", bld->what, stir_dtype_get_name(itype));
		return -1;
	}
	if (vtype != STIR_F16 && vtype != STIR_BF16 && vtype != STIR_F32 &&
	    vtype != STIR_F64) {
		stir_error(ctx, stir_loc_none(), "%s: the value type must be "
			"f16, bf16, f32 or f64, not %s", bld->what,
			stir_dtype_get_name(vtype));
		return -1;
	}
	stir_host_format *f = calloc(1, sizeof(*f));
	if (!f || !(f->suffix = strdup(suffix))) {
		free(f);
		stir_error_oom(ctx);
		return -1;
	}
	f->kind = kind;
	f->itype = itype;
	f->vtype = vtype;
	f->m = m;
	f->n = n;
	f->nnz = nnz;
	bld->f = f;
	if (fmt_build_fits(bld, m, kind == STIR_FORMAT_ELL3D ?
		"the number of (relation, row) pairs" : "the number of rows") < 0 ||
	    fmt_build_fits(bld, n, "the number of columns") < 0) {
		fmt_build_abort(bld);
		return -1;
	}
	return 0;
}

/* fmt, ap: the name fmt formats, malloc'ed, or NULL (memory). */
static char *format_name(const char *fmt, va_list ap)
{
	char buf[512];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	return strdup(buf);
}

stir_array *fmt_build_array(fmt_build *bld, stir_dtype dtype, int ndim,
	const int64_t *shape, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *name = format_name(fmt, ap);
	va_end(ap);
	if (!name)
		return stir_error_oom(bld->ctx);
	int64_t len = 1;
	for (int i = 0; i < ndim; i++) {
		if (__builtin_mul_overflow(len, shape[i], &len)) {
			fmt_build_error(bld, "array '%s' would have more than %"
				PRId64 " elements", name, INT64_MAX);
			free(name);
			return NULL;
		}
	}
	char what[600];
	snprintf(what, sizeof(what), "the length of array '%s'", name);
	if (fmt_build_fits(bld, len, what) < 0) {
		free(name);
		return NULL;
	}
	if (bld->n_arrays == bld->cap_arrays) {
		int cap = bld->cap_arrays ? 2 * bld->cap_arrays : 8;
		fmt_pending_array *p = realloc(bld->arrays, cap * sizeof(*p));
		if (!p) {
			free(name);
			return stir_error_oom(bld->ctx);
		}
		bld->arrays = p;
		bld->cap_arrays = cap;
	}
	stir_array *a = stir_array_alloc(bld->ctx, dtype, ndim, shape);
	if (!a) {
		free(name);
		return NULL;
	}
	bld->arrays[bld->n_arrays].name = name;
	bld->arrays[bld->n_arrays].a = a;
	bld->n_arrays++;
	return a;
}

int fmt_build_size(fmt_build *bld, int64_t value, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *name = format_name(fmt, ap);
	va_end(ap);
	if (!name) {
		stir_error_oom(bld->ctx);
		return -1;
	}
	char what[600];
	snprintf(what, sizeof(what), "size '%s'", name);
	if (fmt_build_fits(bld, value, what) < 0) {
		free(name);
		return -1;
	}
	if (bld->n_sizes == bld->cap_sizes) {
		int cap = bld->cap_sizes ? 2 * bld->cap_sizes : 8;
		fmt_pending_size *p = realloc(bld->sizes, cap * sizeof(*p));
		if (!p) {
			free(name);
			stir_error_oom(bld->ctx);
			return -1;
		}
		bld->sizes = p;
		bld->cap_sizes = cap;
	}
	bld->sizes[bld->n_sizes].name = name;
	bld->sizes[bld->n_sizes].value = value;
	bld->n_sizes++;
	return 0;
}

stir_host_format_part *fmt_build_part(fmt_build *bld, const char *fmt, ...)
{
	stir_host_format *f = bld->f;
	if (f->n_parts == f->cap_parts) {
		int cap = f->cap_parts ? 2 * f->cap_parts : 4;
		stir_host_format_part *p = realloc(f->parts, cap * sizeof(*p));
		if (!p)
			return stir_error_oom(bld->ctx);
		f->parts = p;
		f->cap_parts = cap;
	}
	char tail[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tail, sizeof(tail), fmt, ap);
	va_end(ap);
	size_t len = strlen(f->suffix) + strlen(tail) + 1;
	char *suffix = malloc(len);
	if (!suffix)
		return stir_error_oom(bld->ctx);
	snprintf(suffix, len, "%s%s", f->suffix, tail);
	stir_host_format_part *part = &f->parts[f->n_parts++];
	memset(part, 0, sizeof(*part));
	part->suffix = suffix;
	return part;
}

/* bld: free the pending arrays and sizes (not the description). */
static void release_pending(fmt_build *bld)
{
	for (int i = 0; i < bld->n_arrays; i++) {
		free(bld->arrays[i].name);
		stir_array_free(bld->arrays[i].a);
	}
	for (int i = 0; i < bld->n_sizes; i++)
		free(bld->sizes[i].name);
	free(bld->arrays);
	free(bld->sizes);
	bld->arrays = NULL;
	bld->sizes = NULL;
	bld->n_arrays = bld->n_sizes = 0;
}

stir_host_format *fmt_build_finish(fmt_build *bld, stir_bindings *b)
{
	int failed = 0;
	for (int i = 0; i < bld->n_sizes && !failed; i++)
		failed = stir_bindings_set_size(b, bld->sizes[i].name,
			bld->sizes[i].value) < 0;
	for (int i = 0; i < bld->n_arrays; i++) {
		/* the bindings own the array from here on, even on failure */
		stir_array *a = bld->arrays[i].a;
		bld->arrays[i].a = NULL;
		if (failed)
			stir_array_free(a);
		else
			failed = stir_bindings_set_array(b,
				bld->arrays[i].name, a) < 0;
	}
	release_pending(bld);
	if (failed) {
		fmt_build_abort(bld);
		return stir_error_oom(bld->ctx);
	}
	stir_host_format *f = bld->f;
	bld->f = NULL;
	return f;
}

void *fmt_build_abort(fmt_build *bld)
{
	release_pending(bld);
	stir_host_format_free(bld->f);
	bld->f = NULL;
	return NULL;
}

/* ---- the description ---- */

void stir_host_format_free(stir_host_format *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->n_parts; i++)
		free((char *)f->parts[i].suffix);
	free(f->parts);
	free(f->buckets);
	free(f->suffix);
	free(f);
}

stir_format_kind stir_host_format_get_kind(const stir_host_format *f)
{
	return f->kind;
}

const char *stir_host_format_get_suffix(const stir_host_format *f)
{
	return f->suffix;
}

stir_dtype stir_host_format_get_index_type(const stir_host_format *f)
{
	return f->itype;
}

stir_dtype stir_host_format_get_value_type(const stir_host_format *f)
{
	return f->vtype;
}

int stir_host_format_n_parts(const stir_host_format *f)
{
	return f->n_parts;
}

const stir_host_format_part *stir_host_format_get_part(const stir_host_format *f, int i)
{
	if (i < 0 || i >= f->n_parts)
		return NULL;
	return &f->parts[i];
}
