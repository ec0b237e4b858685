/* The conservation checker: stir_host_format_verify and stir_host_format_verify_csf.
 *
 * Every slot of every part is read back from the bindings as (row, column,
 * value).  A slot whose coordinate is an entry of the original must hold
 * that entry's value (as the value type rounds it) and must be the only
 * slot to hold it; any other slot is padding and must hold 0.  At the end
 * every original entry must have been seen.  The arrays are checked first
 * (bound, type, length, indices in range, indptr well formed) so that
 * nothing is read out of bounds whatever the bindings hold.  Looking an
 * entry up is a binary search of its row (skipped when the slot holds the
 * entry after the one found last, as row formats' slots do), so the check
 * is n log n at worst.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/passes.h>
#include "formats/format_internal.h"
#include "ir/diag.h"

/* The state of one check. */
typedef struct vstate {
	stir_ctx *ctx;          /* borrowed: receives the diagnostic */
	const stir_host_format *f;   /* borrowed: the description */
	const fmt_csr *A;       /* borrowed: the original (ELL3D: its rows
	                         * of (relation, row) pairs) */
	const stir_csf *csf;    /* borrowed, ELL3D only: to name rows */
	const stir_bindings *b; /* borrowed: the built arrays and sizes */
	uint8_t *seen;          /* owned: a bit per original entry */
	int64_t hint;           /* the entry after the last one found: the
	                         * next slot usually holds it, which saves
	                         * the binary search */
} vstate;

/* v, fmt...: report the violation.  -1. */
static int verr(vstate *v, const char *fmt, ...) STIR_PRINTF(2, 3);
static int verr(vstate *v, const char *fmt, ...)
{
	char msg[640];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	stir_error(v->ctx, stir_loc_none(), "%s format: %s",
		stir_format_kind_get_name(v->f->kind), msg);
	return -1;
}

/* v, i, j, buf, len: the coordinate (i, j) as messages name it: "(i, j)",
 * or for ELL3D "(relation r, row x, column j)" with i a row position. */
static void coord_name(vstate *v, int64_t i, int64_t j, char *buf, size_t len)
{
	if (!v->csf) {
		snprintf(buf, len, "(%" PRId64 ", %" PRId64 ")", i, j);
		return;
	}
	int64_t lo = 0, hi = v->csf->nrels;
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if (v->csf->rel_indptr[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	snprintf(buf, len, "(relation %" PRId64 ", row %" PRId64 ", column %"
		PRId64 ")", lo, v->csf->row_indices[i], j);
}

/* v, name, index, len: the array bound to "name", checked to have the
 * index type (index) or the value type and len elements; NULL with an
 * error otherwise. */
static const stir_array *get_array(vstate *v, const char *name, bool index,
	int64_t len)
{
	const stir_array *a = stir_bindings_get_array(v->b, name);
	stir_dtype want = index ? v->f->itype : v->f->vtype;
	if (!a) {
		verr(v, "array '%s' is not bound", name);
		return NULL;
	}
	if (stir_array_get_dtype(a) != want) {
		verr(v, "array '%s' has type %s, expected %s", name,
			stir_dtype_get_name(stir_array_get_dtype(a)),
			stir_dtype_get_name(want));
		return NULL;
	}
	if (stir_array_get_len(a) != len) {
		verr(v, "array '%s' has %" PRId64 " elements, expected %" PRId64,
			name, stir_array_get_len(a), len);
		return NULL;
	}
	return a;
}

/* v, name, want: check that size "name" is bound to "want".  0 or -1. */
static int check_size(vstate *v, const char *name, int64_t want)
{
	int64_t got;
	if (!stir_bindings_get_size(v->b, name, &got))
		return verr(v, "size '%s' is not bound", name);
	if (got != want)
		return verr(v, "size '%s' is %" PRId64 ", expected %" PRId64,
			name, got, want);
	return 0;
}

/* v, name, a, i, bound, *out: entry i of index array a (called name),
 * which must lie in [0, bound), in *out.  0 or -1. */
static int get_index(vstate *v, const char *name, const stir_array *a,
	int64_t i, int64_t bound, int64_t *out)
{
	int64_t x = stir_array_get_int(a, i);
	if (x < 0 || x >= bound)
		return verr(v, "array '%s': entry %" PRId64 " is %" PRId64
			", outside [0, %" PRId64 ")", name, i, x, bound);
	*out = x;
	return 0;
}

/* v, name, a, n, total: check indptr array a (n + 1 entries): 0 first,
 * never decreasing, total last.  0 or -1. */
static int check_ptr(vstate *v, const char *name, const stir_array *a,
	int64_t n, int64_t total)
{
	if (stir_array_get_int(a, 0) != 0)
		return verr(v, "array '%s': entry 0 is %" PRId64 ", expected 0",
			name, stir_array_get_int(a, 0));
	for (int64_t i = 1; i <= n; i++) {
		int64_t x = stir_array_get_int(a, i);
		int64_t prev = stir_array_get_int(a, i - 1);
		if (x < prev)
			return verr(v, "array '%s': entry %" PRId64 " is %"
				PRId64 ", less than entry %" PRId64 " (%" PRId64
				")", name, i, x, i - 1, prev);
	}
	if (stir_array_get_int(a, n) != total)
		return verr(v, "array '%s': entry %" PRId64 " (the last) is %"
			PRId64 ", expected %" PRId64, name, n,
			stir_array_get_int(a, n), total);
	return 0;
}

/* v, name, slot, i, j, x, *real: check slot "slot" of value array "name",
 * at coordinate (i, j) (i, j >= 0) and holding x: an original entry seen
 * for the first time with its value, or padding holding 0.  *real (when
 * not NULL) tells which.  0 or -1. */
static int check_cell(vstate *v, const char *name, int64_t slot, int64_t i,
	int64_t j, double x, bool *real)
{
	const fmt_csr *A = v->A;
	char at[160];
	if (real)
		*real = false;
	if (i >= A->nrows || j >= A->ncols) {
		if (x == 0)
			return 0;
		return verr(v, "array '%s': slot %" PRId64 " lies at (%" PRId64
			", %" PRId64 "), outside the %" PRId64 " x %" PRId64
			" matrix, but holds %.17g, not 0", name, slot, i, j,
			A->nrows, A->ncols, x);
	}
	int64_t lo = A->indptr[i], hi = A->indptr[i + 1];
	if (v->hint >= lo && v->hint < hi && A->indices[v->hint] == j)
		lo = hi = v->hint;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (A->indices[mid] < j)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == A->indptr[i + 1] || A->indices[lo] != j) {
		if (x == 0)
			return 0;
		coord_name(v, i, j, at, sizeof(at));
		return verr(v, "array '%s': slot %" PRId64 " pads %s, absent "
			"from the original, but holds %.17g, not 0", name, slot,
			at, x);
	}
	if (v->seen[lo >> 3] & (1u << (lo & 7))) {
		coord_name(v, i, j, at, sizeof(at));
		return verr(v, "entry %s of the original is stored more than "
			"once (again in slot %" PRId64 " of '%s')", at, slot,
			name);
	}
	v->seen[lo >> 3] |= (uint8_t)(1u << (lo & 7));
	v->hint = lo + 1;
	double want = fmt_round_value(v->f->vtype, A->values[lo]);
	if (x != want && !(isnan(x) && isnan(want))) {
		coord_name(v, i, j, at, sizeof(at));
		return verr(v, "array '%s': slot %" PRId64 " holds %.17g for "
			"entry %s, expected %.17g", name, slot, x, at, want);
	}
	if (real)
		*real = true;
	return 0;
}

/* v, rows: the only part of a one-part format, which must exist exactly
 * when it has rows; *part is NULL when it has none.  0 or -1. */
static int single_part(vstate *v, int64_t rows, const stir_host_format_part **part)
{
	int want = rows > 0;
	*part = NULL;
	if (v->f->n_parts != want)
		return verr(v, "the description lists %d parts, expected %d",
			v->f->n_parts, want);
	if (!want)
		return 0;
	*part = &v->f->parts[0];
	if ((*part)->rows != rows)
		return verr(v, "the description gives %" PRId64 " rows, "
			"expected %" PRId64, (*part)->rows, rows);
	return 0;
}

/* v: ELL and ELL3D: J_S.indices and A_S, m x w.  0 or -1. */
static int verify_ell(vstate *v)
{
	const stir_host_format *f = v->f;
	const stir_host_format_part *part;
	char jn[256], an[256];
	if (single_part(v, v->A->nrows, &part) < 0)
		return -1;
	if (!part)
		return 0;
	int64_t w = f->width, len = v->A->nrows * w;
	snprintf(jn, sizeof(jn), "J%s.indices", part->suffix);
	snprintf(an, sizeof(an), "A%s", part->suffix);
	const stir_array *ja = get_array(v, jn, true, len);
	const stir_array *va = ja ? get_array(v, an, false, len) : NULL;
	if (!va)
		return -1;
	for (int64_t o = 0; o < len; o++) {
		int64_t col = 0;
		if (get_index(v, jn, ja, o, v->A->ncols, &col) < 0 ||
		    check_cell(v, an, o, o / w, col,
			stir_array_get_double(va, o), NULL) < 0)
			return -1;
	}
	return 0;
}

/* v: padding: J_S.indptr, J_S.indices, A_S and nnz_S.  0 or -1. */
static int verify_padding(vstate *v)
{
	const stir_host_format *f = v->f;
	const stir_host_format_part *part;
	char pn[256], jn[256], an[256], sn[256];
	if (single_part(v, v->A->nrows, &part) < 0)
		return -1;
	if (!part)
		return 0;
	int64_t m = v->A->nrows, p = f->width, total = part->slots;
	snprintf(pn, sizeof(pn), "J%s.indptr", part->suffix);
	snprintf(jn, sizeof(jn), "J%s.indices", part->suffix);
	snprintf(an, sizeof(an), "A%s", part->suffix);
	snprintf(sn, sizeof(sn), "nnz%s", part->suffix);
	if (check_size(v, sn, total) < 0)
		return -1;
	const stir_array *pa = get_array(v, pn, true, m + 1);
	if (!pa || check_ptr(v, pn, pa, m, total) < 0)
		return -1;
	const stir_array *ja = get_array(v, jn, true, total);
	const stir_array *va = ja ? get_array(v, an, false, total) : NULL;
	if (!va)
		return -1;
	for (int64_t i = 0; i < m; i++) {
		int64_t lo = stir_array_get_int(pa, i);
		int64_t hi = stir_array_get_int(pa, i + 1);
		if ((hi - lo) % p != 0)
			return verr(v, "array '%s': row %" PRId64 " has %" PRId64
				" slots, not a multiple of %" PRId64, pn, i,
				hi - lo, p);
		for (int64_t o = lo; o < hi; o++) {
			int64_t col = 0;
			if (get_index(v, jn, ja, o, v->A->ncols, &col) < 0 ||
			    check_cell(v, an, o, i, col,
				stir_array_get_double(va, o), NULL) < 0)
				return -1;
		}
	}
	return 0;
}

/* v, part: one part of a hybrid format: rows_S, R_S.indices, C_S.indices
 * and A_S; its real entries must lie in its column range.  0 or -1. */
static int verify_hybrid_part(vstate *v, const stir_host_format_part *part)
{
	const stir_host_format *f = v->f;
	char rn[256], cn[256], an[256], sn[256];
	int64_t cw = f->range_width;
	/* covering the rows, bucket nbuckets is the split rows' part */
	int nb = f->nbuckets;
	if (part->bucket < 0 || part->bucket > nb ||
	    (part->bucket == nb && (!f->cover_rows || part->range != 0)) ||
	    part->width != fmt_hybrid_width(f, part->bucket) || part->range < 0 ||
	    (int64_t)part->range * cw >= v->A->ncols || part->rows <= 0)
		return verr(v, "the description of part '%s' does not match "
			"the format", part->suffix);
	int64_t rows = part->rows, w = part->width, len;
	if (__builtin_mul_overflow(rows, w, &len))
		return verr(v, "part '%s' is too large", part->suffix);
	snprintf(rn, sizeof(rn), "R%s.indices", part->suffix);
	snprintf(cn, sizeof(cn), "C%s.indices", part->suffix);
	snprintf(an, sizeof(an), "A%s", part->suffix);
	snprintf(sn, sizeof(sn), "rows%s", part->suffix);
	if (check_size(v, sn, rows) < 0)
		return -1;
	const stir_array *ra = get_array(v, rn, true, rows);
	const stir_array *ca = ra ? get_array(v, cn, true, len) : NULL;
	const stir_array *va = ca ? get_array(v, an, false, len) : NULL;
	if (!va)
		return -1;
	int64_t first = part->range * cw;
	for (int64_t o = 0; o < rows; o++) {
		int64_t row = 0;
		if (get_index(v, rn, ra, o, v->A->nrows, &row) < 0)
			return -1;
		for (int64_t s = o * w; s < (o + 1) * w; s++) {
			int64_t col = 0;
			bool real;
			if (get_index(v, cn, ca, s, v->A->ncols, &col) < 0 ||
			    check_cell(v, an, s, row, col,
				stir_array_get_double(va, s), &real) < 0)
				return -1;
			if (real && (col < first || col - first >= cw))
				return verr(v, "array '%s': slot %" PRId64
					" holds entry (%" PRId64 ", %" PRId64
					"), outside column range %d [%" PRId64
					", %" PRId64 ")", an, s, row, col,
					part->range, first, first + cw);
		}
	}
	return 0;
}

/* v: a hybrid format that covers the rows (STIR_HYBRID_COVER_ROWS):
 * every row of the matrix in exactly one part, and more than once only in
 * the split rows' part (bucket index nbuckets).  The parts are already verified.  0 or -1. */
static int verify_hybrid_cover(vstate *v)
{
	const stir_host_format *f = v->f;
	int64_t m = v->A->nrows;
	int *owner = malloc((size_t)(m ? m : 1) * sizeof(*owner));
	if (!owner) {
		stir_error_oom(v->ctx);
		return -1;
	}
	for (int64_t i = 0; i < m; i++)
		owner[i] = -1;
	int rc = 0;
	for (int pi = 0; pi < f->n_parts && !rc; pi++) {
		const stir_host_format_part *part = &f->parts[pi];
		char rn[256];
		snprintf(rn, sizeof(rn), "R%s.indices", part->suffix);
		const stir_array *ra = get_array(v, rn, true, part->rows);
		for (int64_t o = 0; ra && o < part->rows && !rc; o++) {
			int64_t row = stir_array_get_int(ra, o);
			if (owner[row] >= 0 && owner[row] != pi)
				rc = verr(v, "row %" PRId64 " lies in parts '%s' and "
					"'%s', so the rows are not covered once", row,
					f->parts[owner[row]].suffix, part->suffix);
			else if (owner[row] == pi && part->bucket != f->nbuckets)
				rc = verr(v, "row %" PRId64 " fills more than one row "
					"of part '%s', which is not the split rows' part",
					row, part->suffix);
			owner[row] = pi;
		}
	}
	for (int64_t i = 0; i < m && !rc; i++)
		if (owner[i] < 0)
			rc = verr(v, "row %" PRId64 " lies in no part, so the rows "
				"are not covered", i);
	free(owner);
	return rc;
}

/* v: hybrid: every part listed.  0 or -1. */
static int verify_hybrid(vstate *v)
{
	for (int i = 0; i < v->f->n_parts; i++)
		if (verify_hybrid_part(v, &v->f->parts[i]) < 0)
			return -1;
	return v->f->cover_rows ? verify_hybrid_cover(v) : 0;
}

/* v, dbsr: BSR (JB_S.indptr over every block row) or DBSR (RB_S.indices
 * naming the block rows stored), JB_S.indices, A_S and the sizes.  0 or
 * -1. */
static int verify_bsr(vstate *v, bool dbsr)
{
	const stir_host_format *f = v->f;
	const stir_host_format_part *part;
	char rn[256], pn[256], jn[256], an[256], sn[256];
	int64_t b = f->width;
	int64_t mb = fmt_ceil_div(v->A->nrows, b);
	int64_t nb = fmt_ceil_div(v->A->ncols, b);
	/* DBSR's row count is its own; check it against the sizes below */
	int64_t rows = dbsr ? (f->n_parts ? f->parts[0].rows : 0) : mb;
	if (single_part(v, rows, &part) < 0)
		return -1;
	if (!part)
		return 0;
	const char *sfx = part->suffix;
	int64_t nnzb = part->nnzb;
	snprintf(sn, sizeof(sn), "mb%s", sfx);
	if (check_size(v, sn, mb) < 0)
		return -1;
	snprintf(sn, sizeof(sn), "nb%s", sfx);
	if (check_size(v, sn, nb) < 0)
		return -1;
	snprintf(sn, sizeof(sn), "nnzb%s", sfx);
	if (check_size(v, sn, nnzb) < 0)
		return -1;
	snprintf(sn, sizeof(sn), "nbr%s", sfx);
	if (dbsr && check_size(v, sn, rows) < 0)
		return -1;
	int64_t area, len;
	if (__builtin_mul_overflow(b, b, &area) ||
	    __builtin_mul_overflow(nnzb, area, &len))
		return verr(v, "the blocks are too large");
	snprintf(rn, sizeof(rn), "RB%s.indices", sfx);
	snprintf(pn, sizeof(pn), "JB%s.indptr", sfx);
	snprintf(jn, sizeof(jn), "JB%s.indices", sfx);
	snprintf(an, sizeof(an), "A%s", sfx);
	const stir_array *ra = NULL;
	if (dbsr && !(ra = get_array(v, rn, true, rows)))
		return -1;
	const stir_array *pa = get_array(v, pn, true, rows + 1);
	if (!pa || check_ptr(v, pn, pa, rows, nnzb) < 0)
		return -1;
	const stir_array *ja = get_array(v, jn, true, nnzb);
	const stir_array *va = ja ? get_array(v, an, false, len) : NULL;
	if (!va)
		return -1;
	for (int64_t r = 0; r < rows; r++) {
		int64_t ib = r;
		if (dbsr && get_index(v, rn, ra, r, mb, &ib) < 0)
			return -1;
		int64_t lo = stir_array_get_int(pa, r);
		int64_t hi = stir_array_get_int(pa, r + 1);
		for (int64_t p = lo; p < hi; p++) {
			int64_t jb = 0;
			if (get_index(v, jn, ja, p, nb, &jb) < 0)
				return -1;
			for (int64_t s = 0; s < area; s++) {
				int64_t slot = p * area + s;
				if (check_cell(v, an, slot, ib * b + s / b,
					jb * b + s % b,
					stir_array_get_double(va, slot),
					NULL) < 0)
					return -1;
			}
		}
	}
	return 0;
}

/* v, tn, ta, an, va, rows, lo, hi, k, cont: the tiles of groups lo to
 * hi - 1 (T indices ta called tn, values va called an) as window k's,
 * window row x holding row rows[x] (NULL: row x); cont: the tile before
 * them is window k's too.  0 or -1. */
static int check_sr_groups(vstate *v, const char *tn, const stir_array *ta,
	const char *an, const stir_array *va, const int64_t *rows, int64_t lo,
	int64_t hi, int64_t k, bool cont)
{
	int64_t t = v->f->width, g = v->f->group;
	for (int64_t p = lo * g; p < hi * g; p++) {
		int64_t col = 0, prev = -1;
		if (p > 0 && (p > lo * g || cont) &&
		    get_index(v, tn, ta, p - 1, v->A->ncols, &prev) < 0)
			return -1;
		if (get_index(v, tn, ta, p, v->A->ncols, &col) < 0)
			return -1;
		for (int64_t ti = 0; ti < t; ti++) {
			int64_t slot = p * t + ti;
			double x = stir_array_get_double(va, slot);
			/* a tile repeating the column of the one before pads
			 * the last group of a window holding every column */
			if (col == prev && x != 0)
				return verr(v, "array '%s': slot %" PRId64 " pads "
					"a repeated column but holds %.17g, not 0",
					an, slot, x);
			int64_t row = rows ? rows[k * t + ti] : k * t + ti;
			if (col != prev && check_cell(v, an, slot, row, col, x,
			    NULL) < 0)
				return -1;
		}
	}
	return 0;
}

/* v: SR-BCRS: G_S.indptr, T_S.indices, A_S and the sizes.  0 or -1. */
static int verify_sr_bcrs(vstate *v)
{
	const stir_host_format *f = v->f;
	const stir_host_format_part *part;
	char pn[256], tn[256], an[256], sn[256];
	int64_t t = f->width, g = f->group;
	int64_t mt = fmt_ceil_div(v->A->nrows, t);
	if (single_part(v, mt, &part) < 0)
		return -1;
	if (!part)
		return 0;
	const char *sfx = part->suffix;
	int64_t ngroups = part->ngroups, maxg = part->maxg;
	snprintf(sn, sizeof(sn), "mt%s", sfx);
	if (check_size(v, sn, mt) < 0)
		return -1;
	snprintf(sn, sizeof(sn), "maxg%s", sfx);
	if (check_size(v, sn, maxg) < 0)
		return -1;
	snprintf(sn, sizeof(sn), "ngroups%s", sfx);
	if (check_size(v, sn, ngroups) < 0)
		return -1;
	int64_t ntiles, len;
	if (__builtin_mul_overflow(ngroups, g, &ntiles) ||
	    __builtin_mul_overflow(ntiles, t, &len))
		return verr(v, "the groups are too large");
	snprintf(pn, sizeof(pn), "G%s.indptr", sfx);
	snprintf(tn, sizeof(tn), "T%s.indices", sfx);
	snprintf(an, sizeof(an), "A%s", sfx);
	const stir_array *pa = get_array(v, pn, true, mt + 1);
	if (!pa || check_ptr(v, pn, pa, mt, ngroups) < 0)
		return -1;
	const stir_array *ta = get_array(v, tn, true, ntiles);
	const stir_array *va = ta ? get_array(v, an, false, len) : NULL;
	if (!va)
		return -1;
	for (int64_t k = 0; k < mt; k++) {
		int64_t lo = stir_array_get_int(pa, k);
		int64_t hi = stir_array_get_int(pa, k + 1);
		if (hi - lo > maxg)
			return verr(v, "array '%s': row block %" PRId64 " has %"
				PRId64 " groups, more than maxg = %" PRId64, pn,
				k, hi - lo, maxg);
		if (check_sr_groups(v, tn, ta, an, va, NULL, lo, hi, k,
		    false) < 0)
			return -1;
	}
	return 0;
}

/* v, name: size "name", bound and at least 0, in *out.  0 or -1. */
static int bound_size(vstate *v, const char *name, int64_t *out)
{
	if (!stir_bindings_get_size(v->b, name, out))
		return verr(v, "size '%s' is not bound", name);
	if (*out < 0)
		return verr(v, "size '%s' is %" PRId64 ", less than 0", name, *out);
	return 0;
}

/* v, sfx, n, *rows: with a row order, P_sfx, the row of each of
 * the n window rows, checked to be a permutation of [0, n) (the rows past
 * the matrix's read as no row), into a new array *rows; else *rows is
 * NULL.  0 or -1. */
static int get_row_order(vstate *v, const char *sfx, int64_t n,
	int64_t **rows)
{
	char xn[256];
	*rows = NULL;
	if (v->f->row_order == STIR_ROWS_NATURAL)
		return 0;
	snprintf(xn, sizeof(xn), "P%s", sfx);
	const stir_array *xa = get_array(v, xn, true, n);
	int64_t *out = xa ? malloc((size_t)(n ? n : 1) * sizeof(*out)) : NULL;
	int64_t *first = out ? malloc((size_t)(n ? n : 1) * sizeof(*first)) :
		NULL;
	if (xa && !first) {
		free(out);
		stir_error_oom(v->ctx);
		return -1;
	}
	if (!xa)
		return -1;
	for (int64_t x = 0; x < n; x++)
		first[x] = -1;
	int r = 0;
	for (int64_t x = 0; x < n && r == 0; x++) {
		r = get_index(v, xn, xa, x, n, &out[x]);
		if (r == 0 && first[out[x]] >= 0)
			r = verr(v, "array '%s': entries %" PRId64 " and %" PRId64
				" are both %" PRId64 ", but it must be a "
				"permutation (each window row a row of its own)",
				xn, first[out[x]], x, out[x]);
		else if (r == 0)
			first[out[x]] = x;
	}
	free(first);
	if (r < 0) {
		free(out);
		return -1;
	}
	*rows = out;
	return 0;
}

/* v, i, sfx, owner: part i (0 split, 1 whole) of SR-BCRS with chunks, its
 * suffix sfx: W_P.indices, G_P.indptr, T_P.indices, A_P and the sizes.
 * owner[k] records the part that holds window k (0, 1, or -1 for none):
 * a whole window is in one item, a split one in consecutive items.  0 or
 * -1. */
static int verify_sr_chunk_part(vstate *v, int i, const char *sfx,
	int8_t *owner)
{
	const stir_host_format *f = v->f;
	char wn[256], pn[256], tn[256], an[256], sn[256];
	int64_t t = f->width, g = f->group;
	int64_t mt = fmt_ceil_div(v->A->nrows, t);
	int64_t items, maxg, ngroups, ntiles, len;
	snprintf(sn, sizeof(sn), "mt%s", sfx);
	if (check_size(v, sn, mt) < 0)
		return -1;
	snprintf(sn, sizeof(sn), "items%s", sfx);
	if (bound_size(v, sn, &items) < 0)
		return -1;
	snprintf(sn, sizeof(sn), "maxg%s", sfx);
	if (bound_size(v, sn, &maxg) < 0)
		return -1;
	if (maxg > f->chunk)
		return verr(v, "size '%s' is %" PRId64 ", more than the chunk "
			"size %" PRId64, sn, maxg, f->chunk);
	snprintf(sn, sizeof(sn), "ngroups%s", sfx);
	if (bound_size(v, sn, &ngroups) < 0)
		return -1;
	if (__builtin_mul_overflow(ngroups, g, &ntiles) ||
	    __builtin_mul_overflow(ntiles, t, &len))
		return verr(v, "the groups are too large");
	const stir_host_format_part *part = NULL;
	for (int p = 0; p < f->n_parts; p++)
		if (!strcmp(f->parts[p].suffix, sfx))
			part = &f->parts[p];
	if ((part ? part->rows : 0) != items)
		return verr(v, "the description gives part '%s' %" PRId64
			" items, but %" PRId64 " are bound", sfx,
			part ? part->rows : 0, items);
	snprintf(wn, sizeof(wn), "W%s.indices", sfx);
	snprintf(pn, sizeof(pn), "G%s.indptr", sfx);
	snprintf(tn, sizeof(tn), "T%s.indices", sfx);
	snprintf(an, sizeof(an), "A%s", sfx);
	const stir_array *wa = get_array(v, wn, true, items);
	const stir_array *pa = wa ? get_array(v, pn, true, items + 1) : NULL;
	if (!pa || check_ptr(v, pn, pa, items, ngroups) < 0)
		return -1;
	const stir_array *ta = get_array(v, tn, true, ntiles);
	const stir_array *va = ta ? get_array(v, an, false, len) : NULL;
	int64_t *rows;
	if (!va || get_row_order(v, sfx, mt * t, &rows) < 0)
		return -1;
	int r = 0;
	for (int64_t it = 0, last = -1; it < items && r == 0; it++) {
		int64_t k = 0, lo = stir_array_get_int(pa, it);
		int64_t hi = stir_array_get_int(pa, it + 1);
		if (get_index(v, wn, wa, it, mt, &k) < 0)
			r = -1;
		else if (hi - lo > maxg)
			r = verr(v, "array '%s': item %" PRId64 " has %" PRId64
				" groups, more than maxg = %" PRId64, pn, it,
				hi - lo, maxg);
		/* a split window's chunks follow each other */
		else if (owner[k] >= 0 && !(i == 0 && k == last))
			r = verr(v, "array '%s': item %" PRId64 " holds window %"
				PRId64 ", which another item holds already", wn,
				it, k);
		else
			r = check_sr_groups(v, tn, ta, an, va, rows, lo, hi, k,
				k == last);
		owner[k] = (int8_t)i;
		last = k;
	}
	free(rows);
	return r;
}

/* v: SR-BCRS with chunks: both parts, every window in exactly one.  0 or
 * -1. */
static int verify_sr_chunks(vstate *v)
{
	int64_t mt = fmt_ceil_div(v->A->nrows, v->f->width);
	int8_t *owner = malloc((size_t)(mt ? mt : 1));
	if (!owner) {
		stir_error_oom(v->ctx);
		return -1;
	}
	memset(owner, -1, (size_t)mt);
	int r = 0;
	for (int i = 0; i < 2 && r == 0; i++) {
		char *sfx = stir_format_sr_bcrs_part_suffix(v->f->suffix, i);
		r = sfx ? verify_sr_chunk_part(v, i, sfx, owner) :
			(stir_error_oom(v->ctx), -1);
		free(sfx);
	}
	for (int64_t k = 0; k < mt && r == 0; k++)
		if (owner[k] < 0)
			r = verr(v, "window %" PRId64 " (rows %" PRId64 " to %"
				PRId64 ") is in no item", k, k * v->f->width,
				(k + 1) * v->f->width - 1);
	free(owner);
	return r;
}

/* v: every original entry must have been seen.  0 or -1. */
static int check_all_seen(vstate *v)
{
	const fmt_csr *A = v->A;
	for (int64_t i = 0; i < A->nrows; i++) {
		for (int64_t k = A->indptr[i]; k < A->indptr[i + 1]; k++) {
			if (v->seen[k >> 3] & (1u << (k & 7)))
				continue;
			char at[160];
			coord_name(v, i, A->indices[k], at, sizeof(at));
			return verr(v, "entry %s of the original (value %.17g) "
				"is in no part", at, A->values[k]);
		}
	}
	return 0;
}

/* ctx, f, A, csf, b: check f against the original A (csf: the CSF tensor
 * A was taken from, for ELL3D).  0 or -1. */
static int verify(stir_ctx *ctx, const stir_host_format *f, const fmt_csr *A,
	const stir_csf *csf, const stir_bindings *b)
{
	vstate v = { ctx, f, A, csf, b, NULL, 0 };
	if (f->m != A->nrows || f->n != A->ncols || f->nnz != A->nnz)
		return verr(&v, "it was built from a %" PRId64 " x %" PRId64
			" matrix with %" PRId64 " entries, not from this %" PRId64
			" x %" PRId64 " one with %" PRId64, f->m, f->n, f->nnz,
			A->nrows, A->ncols, A->nnz);
	v.seen = calloc((size_t)(A->nnz / 8 + 1), 1);
	if (!v.seen) {
		stir_error_oom(ctx);
		return -1;
	}
	int r;
	switch (f->kind) {
	case STIR_FORMAT_ELL:
	case STIR_FORMAT_ELL3D: r = verify_ell(&v); break;
	case STIR_FORMAT_PADDING: r = verify_padding(&v); break;
	case STIR_FORMAT_HYBRID: r = verify_hybrid(&v); break;
	case STIR_FORMAT_BSR: r = verify_bsr(&v, false); break;
	case STIR_FORMAT_DBSR: r = verify_bsr(&v, true); break;
	case STIR_FORMAT_SR_BCRS:
		r = f->chunk ? verify_sr_chunks(&v) : verify_sr_bcrs(&v);
		break;
	default: r = verr(&v, "unknown format"); break;
	}
	if (r == 0)
		r = check_all_seen(&v);
	free(v.seen);
	return r;
}

int stir_host_format_verify(stir_ctx *ctx, const stir_host_format *f,
	const stir_csr *csr, const stir_bindings *b)
{
	fmt_csr A;
	if (!f) {
		stir_error(ctx, stir_loc_none(), "no format to verify");
		return -1;
	}
	if (f->kind == STIR_FORMAT_ELL3D) {
		stir_error(ctx, stir_loc_none(), "an ELL3D format is checked "
			"against its CSF tensor (stir_host_format_verify_csf)");
		return -1;
	}
	if (fmt_check_csr(ctx, csr, &A) < 0)
		return -1;
	return verify(ctx, f, &A, NULL, b);
}

int stir_host_format_verify_csf(stir_ctx *ctx, const stir_host_format *f,
	const stir_csf *csf, const stir_bindings *b)
{
	fmt_csr A;
	if (!f) {
		stir_error(ctx, stir_loc_none(), "no format to verify");
		return -1;
	}
	if (f->kind != STIR_FORMAT_ELL3D) {
		stir_error(ctx, stir_loc_none(), "only an ELL3D format is "
			"checked against a CSF tensor; a %s format takes its "
			"CSR matrix (stir_host_format_verify)",
			stir_format_kind_get_name(f->kind));
		return -1;
	}
	if (fmt_check_csf(ctx, csf, &A) < 0)
		return -1;
	return verify(ctx, f, &A, csf, b);
}
