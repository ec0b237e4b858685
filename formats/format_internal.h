/* Shared by the format builders and the conservation checker (formats/
 * format.c, ell.c, block.c, hybrid.c, verify.c), and fmt_group_union with
 * the SDDMM cost model (schedule/recipes/model_sddmm.c); not exported. */
#ifndef STIR_FORMATS_FORMAT_INTERNAL_H
#define STIR_FORMATS_FORMAT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stir/formats.h>

/* The longest suffix a caller may choose: the longest name built from it
 * ("ngroups" + suffix + ".indices", hybrid's "_q_t") stays well under the
 * 256 bytes the interpreter reserves for an array name. */
#define FMT_SUFFIX_MAX 160

struct stir_host_format {
	stir_format_kind kind;
	char *suffix;             /* owned: the caller's suffix */
	stir_dtype itype;         /* index type: STIR_I32 or STIR_I64 */
	stir_dtype vtype;         /* value type: f16, bf16, f32 or f64 */
	int64_t m;                /* rows of the original (ELL3D: nnz_i) */
	int64_t n;                /* columns of the original */
	int64_t nnz;              /* non-zeros of the original */
	int64_t width;            /* w (ELL, ELL3D), p, b, or t (SR-BCRS) */
	int64_t group;            /* SR-BCRS: g */
	int64_t chunk;            /* SR-BCRS with chunks: c, else 0 */
	stir_row_order row_order; /* SR-BCRS with chunks: the windows' rows */
	int c;                    /* hybrid: column ranges asked for */
	int64_t range_width;      /* hybrid: columns per range, ceil(n / c) */
	int nbuckets;             /* hybrid: number of buckets */
	int64_t *buckets;         /* owned (hybrid): the bucket widths */
	bool cover_rows;          /* hybrid: STIR_HYBRID_COVER_ROWS */
	int n_parts;              /* parts that exist */
	int cap_parts;            /* room in parts */
	stir_host_format_part *parts;  /* owned, with their suffix strings */
};

/* f, t: the width of hybrid part t's rows: bucket t's, or for the split
 * rows' part of a format that covers the rows (t = nbuckets) the widest. */
static inline int64_t fmt_hybrid_width(const stir_host_format *f, int t)
{
	return f->buckets[t < f->nbuckets ? t : f->nbuckets - 1];
}

/* A CSR matrix whose arrays have been checked (fmt_check_csr): borrowed
 * arrays, well formed. */
typedef struct fmt_csr {
	int64_t nrows;
	int64_t ncols;
	int64_t nnz;
	const int64_t *indptr;    /* nrows + 1 entries */
	const int64_t *indices;   /* nnz entries, ascending within rows */
	const double *values;     /* nnz entries */
} fmt_csr;

/* An array made by a builder, bound only when the whole format is built. */
typedef struct fmt_pending_array {
	char *name;               /* owned */
	stir_array *a;            /* owned until bound */
} fmt_pending_array;

/* A size made by a builder, bound with the arrays. */
typedef struct fmt_pending_size {
	char *name;               /* owned */
	int64_t value;
} fmt_pending_size;

/* The state of one build: the description and what will be bound. */
typedef struct fmt_build {
	stir_ctx *ctx;            /* borrowed: receives the diagnostics */
	const char *what;         /* the format's name for messages */
	stir_host_format *f;           /* owned until returned */
	int n_arrays;
	int cap_arrays;
	fmt_pending_array *arrays; /* owned */
	int n_sizes;
	int cap_sizes;
	fmt_pending_size *sizes;  /* owned */
	stir_diag *diag;          /* the last error reported, for notes */
} fmt_build;

/* ctx, csr, *out: check "csr" (counts, indptr from 0, monotone and ending
 * at nnz, indices in range and strictly ascending within rows) and
 * describe it in *out.  0, or -1 with an error naming the array and its
 * first bad entry. */
int fmt_check_csr(stir_ctx *ctx, const stir_csr *csr, fmt_csr *out);
/* ctx, csf, *inner: check the CSF tensor in the same way (both levels) and
 * describe its lower level (one row per (relation, row) pair) in *inner. */
int fmt_check_csf(stir_ctx *ctx, const stir_csf *csf, fmt_csr *inner);

/* indptr, indices, r0, r1, b, mark, out: the union of the columns of
 * rows r0 to r1 - 1 of a CSR matrix (row group b, formats/row_groups.c):
 * each column c met with mark[c] != b is marked b and, unless out is
 * NULL, appended to out (in the order met); how many.  mark has an entry
 * for every column, none b on entry for a group's columns to be counted
 * once.  Also the SDDMM model's count of a group's columns
 * (schedule/recipes/model_sddmm.c). */
int64_t fmt_group_union(const int64_t *indptr, const int64_t *indices,
	int64_t r0, int64_t r1, int64_t b, int64_t *mark, int64_t *out);

/* ctx, A, order: a locality order of A's rows (formats/row_order.c:
 * Cuthill-McKee on the row-column graph, rows sharing columns near each
 * other), every row once, in a new array of A->nrows entries in *order.
 * 0, or -1 when memory runs out (reported). */
int fmt_locality_order(stir_ctx *ctx, const fmt_csr *A, int64_t **order);
/* ctx, A, order: A's rows by their number of entries, most first, ties by
 * index, in a new array of A->nrows entries in *order.  0, or -1 when
 * memory runs out (reported). */
int fmt_degree_order(stir_ctx *ctx, const fmt_csr *A, int64_t **order);

/* bld, ctx, kind, suffix, itype, vtype, m, n, nnz: start a build of "kind"
 * after checking the suffix, the two types and, for i32, that m and n fit.
 * 0, or -1 with an error (bld is then empty and needs no abort). */
int fmt_build_init(fmt_build *bld, stir_ctx *ctx, stir_format_kind kind,
	const char *suffix, stir_dtype itype, stir_dtype vtype, int64_t m,
	int64_t n, int64_t nnz);
/* bld, dtype, ndim, shape, fmt...: a new zero-filled array of the given
 * shape named by fmt, to bind at the end.  Refused when its length
 * overflows or, for i32 indices, does not fit in i32 (values are addressed
 * with the same index type).  The array, owned by bld, or NULL with an
 * error. */
stir_array *fmt_build_array(fmt_build *bld, stir_dtype dtype, int ndim,
	const int64_t *shape, const char *fmt, ...) STIR_PRINTF(5, 6);
/* bld, value, fmt...: a size named by fmt to bind at the end; for i32
 * indices the value must fit in i32.  0 or -1. */
int fmt_build_size(fmt_build *bld, int64_t value, const char *fmt, ...)
	STIR_PRINTF(3, 4);
/* bld, value, what: for i32 indices, check that "value" (described by
 * "what") fits in i32.  0 or -1 with an error. */
int fmt_build_fits(fmt_build *bld, int64_t value, const char *what);
/* bld, fmt...: a new part of the description, zero-filled but for its
 * suffix (fmt, appended to the format's suffix).  NULL when memory runs
 * out. */
stir_host_format_part *fmt_build_part(fmt_build *bld, const char *fmt, ...)
	STIR_PRINTF(2, 3);
/* bld, b: bind every pending array and size into b and return the
 * description; bld is left empty.  NULL when memory runs out. */
stir_host_format *fmt_build_finish(fmt_build *bld, stir_bindings *b);
/* bld: give up: free the description and the pending arrays.  NULL. */
void *fmt_build_abort(fmt_build *bld);
/* bld, fmt...: report an error prefixed with the format's name (kept in
 * bld->diag so that the caller can attach notes).  -1. */
int fmt_build_error(fmt_build *bld, const char *fmt, ...) STIR_PRINTF(2, 3);

/* t, p, i, v: store index v at element i of the i32 or i64 array data p. */
static inline void fmt_put_index(stir_dtype t, void *p, int64_t i, int64_t v)
{
	if (t == STIR_I32)
		((int32_t *)p)[i] = (int32_t)v;
	else
		((int64_t *)p)[i] = v;
}

/* t, p, i, v: store v, rounded to type t, at element i of array data p. */
static inline void fmt_put_value(stir_dtype t, void *p, int64_t i, double v)
{
	switch (t) {
	case STIR_F16: ((uint16_t *)p)[i] = stir_f16_from_double(v); break;
	case STIR_BF16: ((uint16_t *)p)[i] = stir_bf16_from_double(v); break;
	case STIR_F32: ((float *)p)[i] = (float)v; break;
	default: ((double *)p)[i] = v; break;
	}
}

/* t, v: v as a value of type t holds it (the value a builder stores). */
double fmt_round_value(stir_dtype t, double v);

/* cols, len: a row's strictly ascending, non-negative columns.  The
 * smallest column absent from the row (len when the row holds 0 .. len-1);
 * it costs one step per column skipped, never a pass over the matrix. */
static inline int64_t fmt_first_absent(const int64_t *cols, int64_t len)
{
	int64_t c = 0;
	while (c < len && cols[c] == c)
		c++;
	return c;
}

/* a, b: ceil(a / b) for a >= 0, b > 0, without overflow. */
static inline int64_t fmt_ceil_div(int64_t a, int64_t b)
{
	return a / b + (a % b != 0);
}

#endif
