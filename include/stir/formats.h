/* stir: host builders of the composable formats.
 *
 * Each builder reads a CSR matrix (ELL3D: a three-level CSF tensor), checks
 * it and its parameters, and binds the arrays and sizes of one format into a
 * stir_bindings, named exactly as docs/formats.md says with a suffix the
 * caller chooses (for "_ell", "J_ell.indices" and "A_ell").  It returns a
 * stir_host_format that describes what it built: the parts, their row counts and
 * widths, whether a part holds a row more than once, and the block counts.
 *
 * Index arrays get the index type the caller asks for (STIR_I32 or
 * STIR_I64); i32 is refused, with an error naming what does not fit, when
 * the matrix's rows or columns, a length or a size exceed INT32_MAX.  Values
 * are converted to the value type (f16, bf16, f32 or f64; rounded to
 * nearest even).  A padded slot holds 0 at the smallest column absent from
 * its row (row block for SR-BCRS tiles).  A part with no rows is left out:
 * nothing is bound for it and the description does not list it.
 *
 * Every builder is linear in the non-zeros and the rows (BSR, DBSR and
 * SR-BCRS add a log factor of the block height), never in the columns
 * (hybrid keeps a counter per column range and bucket).  On
 * failure a builder returns NULL with one error in the context and binds
 * nothing (unless memory runs out while binding, which can leave some of
 * the format's arrays bound).
 *
 * stir_host_format_verify checks conservation: the real entries of all parts are
 * the original non-zeros, each exactly once, with the original value (as
 * converted), and every other slot holds 0 at a coordinate absent from the
 * original.
 */
#ifndef STIR_FORMATS_H
#define STIR_FORMATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stir/ctx.h>
#include <stir/array.h>
#include <stir/io.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum stir_format_kind {
	STIR_FORMAT_ELL,
	STIR_FORMAT_BSR,
	STIR_FORMAT_PADDING,
	STIR_FORMAT_HYBRID,
	STIR_FORMAT_ELL3D,
	STIR_FORMAT_DBSR,
	STIR_FORMAT_SR_BCRS,
} stir_format_kind;

/* A three-level CSF tensor [R, I, J] (relation, row, column), the input of
 * ELL3D: the arrays of "axis I = sparse_variable(R, m, nnz_i)" and "axis J
 * = sparse_variable(I, n, nnz)" and the values.  Every pointer is borrowed
 * from the caller. */
typedef struct stir_csf {
	int64_t nrels;              /* relations (the extent of R) */
	int64_t nrows;              /* m: rows of each relation's matrix */
	int64_t ncols;              /* n: columns */
	int64_t nnz_i;              /* (relation, row) pairs stored */
	int64_t nnz;                /* non-zeros */
	const int64_t *rel_indptr;  /* nrels + 1 entries: I.indptr */
	const int64_t *row_indices; /* nnz_i entries: I.indices, strictly
	                             * ascending within each relation */
	const int64_t *row_indptr;  /* nnz_i + 1 entries: J.indptr */
	const int64_t *col_indices; /* nnz entries: J.indices, strictly
	                             * ascending within each row */
	const double *values;       /* nnz entries */
} stir_csf;

/* What a builder made of one part of a format.  Fields that do not apply
 * to the format are 0. */
typedef struct stir_host_format_part {
	const char *suffix; /* owned by the format: the suffix of the part's
	                     * names ("_hyb_0_2"; for a format of one part,
	                     * the format's suffix) */
	int range;          /* hybrid: the column range q */
	int bucket;         /* hybrid: the bucket index t (0-based; the
	                     * number of buckets for the split rows' part
	                     * when covering the rows) */
	int64_t rows;       /* extent of the part's outer axis: m (ELL,
	                     * padding), nnz_i (ELL3D), rows_S (hybrid), mb
	                     * (BSR), nbr (DBSR), mt (SR-BCRS); never 0 */
	int64_t width;      /* w (ELL, ELL3D), p (padding), the bucket width
	                     * (hybrid), b (BSR, DBSR), g (SR-BCRS) */
	bool split;         /* hybrid: some original row fills more than one
	                     * row of the part (its updates need atomics) */
	int64_t nnz;        /* original non-zeros the part holds */
	int64_t slots;      /* value slots (elements of A_S), padding included */
	int64_t mb;         /* BSR, DBSR: ceil(m / b); SR-BCRS: mt */
	int64_t nb;         /* BSR, DBSR: ceil(n / b) */
	int64_t nnzb;       /* BSR, DBSR: blocks stored */
	int64_t nbr;        /* DBSR: block rows holding a block */
	int64_t ngroups;    /* SR-BCRS: groups of tiles */
	int64_t maxg;       /* SR-BCRS: most groups in one row block */
	int row_order;      /* SR-BCRS with chunks: the stir_row_order its
	                     * windows take the rows in (the one chosen for
	                     * STIR_ROWS_FEWEST_SLOTS) */
} stir_host_format_part;

/* A description of a built format. */
typedef struct stir_host_format stir_host_format;

/* ELL(w): every row padded to exactly w entries; a longer row is an error.
 * Binds J_S.indices and A_S (m x w). */
STIR_EXPORT __stir_give stir_host_format *stir_csr_to_ell(__stir_keep stir_ctx *ctx,
	__stir_keep const stir_csr *csr, int64_t w, stir_dtype index_type,
	stir_dtype value_type, const char *suffix, __stir_keep stir_bindings *b);

/* BSR(b): b x b blocks, a block stored when it holds an entry.  Binds
 * JB_S.indptr, JB_S.indices, A_S (nnzb x b x b) and sizes mb_S, nb_S,
 * nnzb_S. */
STIR_EXPORT __stir_give stir_host_format *stir_csr_to_bsr(__stir_keep stir_ctx *ctx,
	__stir_keep const stir_csr *csr, int64_t block, stir_dtype index_type,
	stir_dtype value_type, const char *suffix, __stir_keep stir_bindings *b);

/* padding(p): every row padded to a multiple of p entries.  Binds
 * J_S.indptr, J_S.indices, A_S and size nnz_S. */
STIR_EXPORT __stir_give stir_host_format *stir_csr_to_padding(
	__stir_keep stir_ctx *ctx, __stir_keep const stir_csr *csr, int64_t p,
	stir_dtype index_type, stir_dtype value_type, const char *suffix,
	__stir_keep stir_bindings *b);

/* hybrid(c, buckets): columns cut into c ranges of ceil(n / c) columns;
 * "nbuckets" strictly increasing positive widths.  Part (q, t) has suffix
 * SUFFIX_q_t (decimal, both 0-based) and binds R_S.indices, C_S.indices,
 * A_S (rows x width) and size rows_S. */
STIR_EXPORT __stir_give stir_host_format *stir_csr_to_hybrid(
	__stir_keep stir_ctx *ctx, __stir_keep const stir_csr *csr, int c,
	int nbuckets, const int64_t *buckets, stir_dtype index_type,
	stir_dtype value_type, const char *suffix, __stir_keep stir_bindings *b);

/* Flags of stir_csr_to_hybrid_flags. */
enum {
	/* Bind every part (q, t) of all c column ranges and all buckets, the
	 * empty ones too (arrays without elements, rows_S = 0), so that a
	 * kernel decomposed into every part (stir_format_rule_hybrid_part for each
	 * q < c and t < nbuckets) runs on any matrix.  The description still
	 * lists only the parts that have rows. */
	STIR_HYBRID_ALL_PARTS = 1u << 0,
	/* Pad a run of a row that holds every column at a column of the run
	 * instead of failing; the slot still holds 0.  A computation over the
	 * parts (a sum) is unchanged, but the value-copy kernel of
	 * stir_decompose_format would copy the real entry into such a slot,
	 * and stir_host_format_verify reports it. */
	STIR_HYBRID_PAD_ANY_COLUMN = 1u << 1,
	/* Cover every row exactly once, for rules that cover the rows
	 * (stir_format_rule_set_cover_rows): an empty row becomes a row of
	 * padding (column 0, value 0) in part 0_0, and a row longer than the
	 * widest bucket goes, in chunks of that width, to a part of its own,
	 * 0_K for K buckets (bucket index K, the widest width), so that every
	 * row of the matrix lies in exactly one part, and more than once only
	 * in part 0_K.  Needs one column range (c = 1) and a matrix with at
	 * least one column when a row is empty; stir_host_format_verify then also
	 * checks the cover.  A kernel for it holds the K + 1 parts. */
	STIR_HYBRID_COVER_ROWS = 1u << 2,
	/* Put the rows of every part in a locality order instead of the
	 * matrix's: a breadth-first traversal of the graph of rows and
	 * columns (Cuthill-McKee: each row joined to its columns, fewest
	 * entries first), so that rows sharing columns lie next to each other
	 * and a thread block taking consecutive rows of a part reads many of
	 * the same rows of the dense operand (its L1 cache serves them).  The
	 * parts hold the same entries and a computation over them the same
	 * result; only the order of their rows changes, deterministically.
	 * Costs O(nnz log(row length)) time and O(nnz) memory on the host. */
	STIR_HYBRID_LOCALITY_ORDER = 1u << 3,
};

/* stir_csr_to_hybrid with flags (above); flags 0 is stir_csr_to_hybrid. */
STIR_EXPORT __stir_give stir_host_format *stir_csr_to_hybrid_flags(
	__stir_keep stir_ctx *ctx, __stir_keep const stir_csr *csr, int c,
	int nbuckets, const int64_t *buckets, stir_dtype index_type,
	stir_dtype value_type, const char *suffix, unsigned flags,
	__stir_keep stir_bindings *b);

/* ELL3D(w): every (relation, row) of "csf" padded to w columns.  Binds
 * J_S.indices and A_S (nnz_i x w). */
STIR_EXPORT __stir_give stir_host_format *stir_csf_to_ell3d(
	__stir_keep stir_ctx *ctx, __stir_keep const stir_csf *csf, int64_t w,
	stir_dtype index_type, stir_dtype value_type, const char *suffix,
	__stir_keep stir_bindings *b);

/* DBSR(b): BSR over the block rows holding a block.  Binds RB_S.indices,
 * JB_S.indptr, JB_S.indices, A_S and sizes nbr_S, mb_S, nb_S, nnzb_S. */
STIR_EXPORT __stir_give stir_host_format *stir_csr_to_dbsr(
	__stir_keep stir_ctx *ctx, __stir_keep const stir_csr *csr,
	int64_t block, stir_dtype index_type, stir_dtype value_type,
	const char *suffix, __stir_keep stir_bindings *b);

/* SR-BCRS(t, g): row blocks of t rows, a tile per column holding an entry
 * of the block, tiles grouped by g.  Binds G_S.indptr, T_S.indices, A_S
 * (ngroups x g x t) and sizes mt_S, maxg_S, ngroups_S. */
STIR_EXPORT __stir_give stir_host_format *stir_csr_to_sr_bcrs(
	__stir_keep stir_ctx *ctx, __stir_keep const stir_csr *csr, int64_t t,
	int64_t g, stir_dtype index_type, stir_dtype value_type,
	const char *suffix, __stir_keep stir_bindings *b);

/* The order in which SR-BCRS windows take the matrix's rows: as they
 * are, by number of entries (most first, ties by index), a locality order
 * (Cuthill-McKee on the row-column graph: rows sharing columns near each
 * other), or whichever of those three stores the fewest slots (ties to
 * the earlier).  Rows that share columns in one window share its tiles,
 * so an order can cut the padding (docs/formats.md, "Row orders"). */
typedef enum stir_row_order {
	STIR_ROWS_NATURAL,
	STIR_ROWS_DEGREE,
	STIR_ROWS_LOCALITY,
	STIR_ROWS_FEWEST_SLOTS
} stir_row_order;

/* SR-BCRS(t, g) with chunks of at most c groups: the windows of more than
 * c groups cut into chunks, in part _split of the suffix, the others
 * whole (empty ones too), in part _whole; each part a list of work items
 * (stir_format_rule_sr_bcrs_chunks).  Binds, for each part P, whether it
 * has items or not, W_P.indices (the window of each item), G_P.indptr
 * (items + 1), T_P.indices, A_P (ngroups x g x t) and sizes items_P,
 * mt_P, maxg_P (at most c), ngroups_P.  The description lists the parts
 * with items; the split part's items are "split" (several add into one
 * window's rows).  With a row order other than STIR_ROWS_NATURAL, window
 * row x (row TI of window W is x = t * W + TI) holds the matrix's row
 * P_P[x], bound for each part: a permutation of [0, mt * t) whose
 * entries from m on are the windows' rows past the matrix (no row). */
STIR_EXPORT __stir_give stir_host_format *stir_csr_to_sr_bcrs_chunks(
	__stir_keep stir_ctx *ctx, __stir_keep const stir_csr *csr, int64_t t,
	int64_t g, int64_t c, stir_row_order order, stir_dtype index_type,
	stir_dtype value_type, const char *suffix, __stir_keep stir_bindings *b);

/* Row groups(R): the rows in groups of R consecutive rows (the last group
 * fewer) over the union of their columns, ascending: the structure of
 * the SDDMM over groups of rows (examples/sddmm_vb4.stir, sddmm_vb8.stir;
 * stir_kernel_bind_csr binds it for a tensor over [I, J, G], G of extent
 * R).  Slot (q, r) of group b, q a place in its column list, is
 * (indptr[b] + q) * R + r; pos[p] is the slot of non-zero p
 * (sddmm_vb_gather.stir's Pos), and dst its inverse made a permutation of
 * the ncols_union * R slots: dst[pos[p]] is p, and the slots no non-zero
 * holds take nnz, nnz + 1, .. in their order (sddmm_vb4_csr.stir's Dst:
 * a kernel writing slot s to place dst[s] leaves the non-zeros' values
 * first, in the matrix's order).  Every array is owned by the struct. */
typedef struct stir_row_groups {
	int64_t rows;           /* R, rows a group */
	int64_t nrows;          /* the matrix's rows */
	int64_t ncols;          /* the matrix's columns */
	int64_t nnz;            /* the matrix's non-zeros */
	int64_t ngroups;        /* ceil(nrows / R) */
	int64_t ncols_union;    /* the groups' columns, all groups */
	int64_t *indptr;        /* ngroups + 1 entries */
	int64_t *indices;       /* ncols_union entries (room for nnz) */
	int64_t *pos;           /* nnz entries */
	int64_t *dst;           /* ncols_union * R entries */
} stir_row_groups;

/* The row groups of "csr" with "rows" (1 to 1024) rows a group; NULL with
 * one error when csr is malformed, rows out of range or memory runs out. */
STIR_EXPORT __stir_give stir_row_groups *stir_csr_to_row_groups(
	__stir_keep stir_ctx *ctx, __stir_keep const stir_csr *csr,
	int64_t rows);
/* Check row groups "g" (made by a caller) against their matrix: the sizes,
 * indptr (from 0, a group's end no smaller than its start and at most its
 * rows' non-zeros past it, ncols_union last), the columns (in range,
 * ascending in a group), every non-zero's slot (in its group, at its
 * row and column) and dst (pos's inverse at the non-zeros' slots, nnz
 * upwards in order at the others).  0, or -1 with one error naming the
 * array and entry. */
STIR_EXPORT int stir_row_groups_verify(__stir_keep stir_ctx *ctx,
	__stir_keep const stir_row_groups *g, __stir_keep const stir_csr *csr);
STIR_EXPORT void stir_row_groups_free(__stir_take stir_row_groups *g);

/* Tile groups(t, g): the SR-BCRS(t, g) tiles of a matrix
 * (stir_csr_to_sr_bcrs: windows of t rows, a window's tiles, one a column
 * holding an entry of its rows, in groups of g) as the SDDMM over them
 * takes them (examples/sddmm_tiles_csr.stir; stir_kernel_bind_csr binds
 * them for a distinct tensor over [W, G, C, R], bench_sddmm --tiles).
 * Slot (c, r) of group q, c its tile and r the tile's row, is
 * (q * g + c) * t + r; pos[p] is the slot of non-zero p and dst its
 * inverse made a permutation of the slots, as in the row groups: dst[s]
 * is the non-zero holding slot s, the slots none holds nnz, nnz + 1, ..
 * in their order.  Every array is owned by the struct. */
typedef struct stir_tile_groups {
	int64_t rows;           /* t, rows a window (a tile's rows) */
	int64_t cols;           /* g, tiles a group */
	int64_t nrows;          /* the matrix's rows */
	int64_t ncols;          /* the matrix's columns */
	int64_t nnz;            /* the matrix's non-zeros */
	int64_t nwindows;       /* ceil(nrows / t) */
	int64_t maxg;           /* the most groups a window holds */
	int64_t ngroups;        /* the groups, all windows */
	int64_t nslots;         /* ngroups * g * t */
	int64_t *indptr;        /* nwindows + 1 entries: a window's groups */
	int64_t *indices;       /* ngroups * g entries: the tiles' columns */
	int64_t *pos;           /* nnz entries */
	int64_t *dst;           /* nslots entries */
} stir_tile_groups;

/* The tile groups of "csr" with t rows a window and g tiles a group (each
 * 1 to 1024); NULL with one error when csr is malformed, t or g out of
 * range or memory runs out. */
STIR_EXPORT __stir_give stir_tile_groups *stir_csr_to_tile_groups(
	__stir_keep stir_ctx *ctx, __stir_keep const stir_csr *csr, int64_t t,
	int64_t g);
STIR_EXPORT void stir_tile_groups_free(__stir_take stir_tile_groups *g);

/* Check that the format "f" bound in "b" conserves "csr" (see above), after
 * checking that every array and size it names is bound with the right type
 * and length and is well formed.  0, or -1 with one error naming the first
 * violation.  ELL3D formats are checked against their CSF with
 * stir_host_format_verify_csf. */
STIR_EXPORT int stir_host_format_verify(__stir_keep stir_ctx *ctx,
	__stir_keep const stir_host_format *f, __stir_keep const stir_csr *csr,
	__stir_keep const stir_bindings *b);
STIR_EXPORT int stir_host_format_verify_csf(__stir_keep stir_ctx *ctx,
	__stir_keep const stir_host_format *f, __stir_keep const stir_csf *csf,
	__stir_keep const stir_bindings *b);

STIR_EXPORT void stir_host_format_free(__stir_take stir_host_format *f);

/* "ELL", "BSR", "padding", "hybrid", "ELL3D", "DBSR", "SR-BCRS" or "?". */
STIR_EXPORT const char *stir_format_kind_get_name(stir_format_kind kind);
STIR_EXPORT stir_format_kind stir_host_format_get_kind(
	__stir_keep const stir_host_format *f);
/* The suffix the format was built with (owned by the format). */
STIR_EXPORT const char *stir_host_format_get_suffix(
	__stir_keep const stir_host_format *f);
STIR_EXPORT stir_dtype stir_host_format_get_index_type(
	__stir_keep const stir_host_format *f);
STIR_EXPORT stir_dtype stir_host_format_get_value_type(
	__stir_keep const stir_host_format *f);
/* The parts that exist (empty ones are left out), hybrid parts ordered by
 * column range, then bucket.  stir_host_format_get_part returns NULL when i is
 * out of range; the part belongs to the format. */
STIR_EXPORT int stir_host_format_n_parts(__stir_keep const stir_host_format *f);
STIR_EXPORT __stir_keep const stir_host_format_part *stir_host_format_get_part(
	__stir_keep const stir_host_format *f, int i);

#ifdef __cplusplus
}
#endif
#endif
