/* stir: Matrix Market and NumPy files.
 *
 * Readers accept plain and gzip-compressed files (detected by content),
 * read as streams: memory is bounded by the matrix or array read, not by
 * the size of the file, and an endless input (a device, a pipe) ends in an
 * error as soon as it goes wrong.  A malformed file is an error diagnostic
 * located at the line (Matrix Market) or byte offset (.npy) where it goes
 * wrong; nothing is ever read out of bounds.
 */
#ifndef STIR_IO_H
#define STIR_IO_H

#include <stdint.h>
#include <stir/ctx.h>
#include <stir/array.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A matrix in compressed sparse row form.  Column indices are strictly
 * ascending within each row. */
typedef struct stir_csr {
	int64_t nrows;
	int64_t ncols;
	int64_t nnz;
	int64_t *indptr;  /* nrows + 1 entries, owned */
	int64_t *indices; /* nnz entries, owned */
	double *values;   /* nnz entries, owned; 1.0 for a pattern matrix */
} stir_csr;

STIR_EXPORT void stir_csr_free(__stir_take stir_csr *csr);

/* Read a Matrix Market "coordinate" file (pattern, real or integer;
 * general or symmetric).  Symmetric storage (the lower triangle) is
 * expanded to both triangles; duplicate entries are summed (merged in a
 * pattern matrix).  NULL (with one diagnostic, located at the line and
 * column at fault) on failure.  The _from_mem variant reads "len" bytes at
 * "data" (no terminating NUL needed, gzip detected as for files) and uses
 * "name" in its diagnostics. */
STIR_EXPORT __stir_give stir_csr *stir_mtx_read_from_file(__stir_keep stir_ctx *ctx,
	const char *path);
STIR_EXPORT __stir_give stir_csr *stir_mtx_read_from_mem(
	__stir_keep stir_ctx *ctx, const char *name, const void *data, size_t len);

/* Bounds on the sizes a Matrix Market file may declare, checked at the
 * size line, before anything is allocated for them (a matrix bound for a
 * kernel cannot have more rows than the kernel's size type holds).  A
 * bound of 0 or less is no bound. */
typedef struct stir_mtx_limits {
	int64_t max_rows;      /* most rows */
	int64_t max_cols;      /* most columns */
	int64_t max_entries;   /* most entries the size line may announce */
	const char *why;       /* borrowed: where the bounds come from, quoted
	                        * in the error ("the kernel's size type i32"),
	                        * or NULL */
} stir_mtx_limits;

/* As stir_mtx_read_from_file and stir_mtx_read_from_mem, refusing (with an error
 * located at the size line) a file that declares more than "limits"
 * allows; NULL limits: none. */
STIR_EXPORT __stir_give stir_csr *stir_mtx_read_from_file_limited(
	__stir_keep stir_ctx *ctx, const char *path,
	__stir_keep const stir_mtx_limits *limits);
STIR_EXPORT __stir_give stir_csr *stir_mtx_read_from_mem_limited(
	__stir_keep stir_ctx *ctx, const char *name, const void *data,
	size_t len, __stir_keep const stir_mtx_limits *limits);

/* A relational graph: per relation, the CSR of the rows (destination
 * nodes) that have edges of that relation, with their columns (source
 * nodes).  Edge src -> dst of relation r is entry [r, dst, src], the
 * layout of axes R, I = sparse_variable(R), J = sparse_variable(I)
 * (examples/rgms.stir). */
typedef struct stir_hetero {
	int64_t nnodes;   /* nodes (rows and columns of every relation) */
	int64_t nrels;    /* relations, with or without edges */
	int64_t nedges;   /* edge lines read */
	int64_t nrows;    /* (relation, row) pairs: the I positions */
	int64_t nnz;      /* distinct (relation, row, column): J positions */
	int64_t *rel_ptr; /* nrels + 1: relation r's rows are
	                   * rows[rel_ptr[r] .. rel_ptr[r + 1]), owned */
	int64_t *rows;    /* nrows: each row's node, ascending per relation,
	                   * owned */
	int64_t *row_ptr; /* nrows + 1: row k's entries are
	                   * cols[row_ptr[k] .. row_ptr[k + 1]), owned */
	int64_t *cols;    /* nnz: source nodes, ascending per row, owned */
	double *values;   /* nnz: 1.0, or how often a triple repeats, owned */
} stir_hetero;

STIR_EXPORT void stir_hetero_free(__stir_take stir_hetero *h);

/* Read a relational graph file in the shared ".hetero" format (plain or
 * gzip): the header "%%hetero <nodes> <edges> <relations>", then exactly
 * <edges> lines "src dst relation", 0-based (docs/formats.md).  NULL,
 * with one diagnostic at the line and column at fault (bad header,
 * counts that disagree, a node or relation out of range, a truncated or
 * corrupt gzip stream), on failure. */
STIR_EXPORT __stir_give stir_hetero *stir_hetero_read_from_file(
	__stir_keep stir_ctx *ctx, const char *path);
STIR_EXPORT __stir_give stir_hetero *stir_hetero_read_from_mem(
	__stir_keep stir_ctx *ctx, const char *name, const void *data,
	size_t len);

/* Read a NumPy .npy file (version 1, 2 or 3; C order; little-endian
 * '<i4' '<i8' '<f2' '<f4' '<f8' and '|i1', giving STIR_I32, I64, F16, F32,
 * F64 and I8; 0-d arrays and zero-length dimensions allowed).  NULL (with
 * one diagnostic naming the byte offset at fault) on failure. */
STIR_EXPORT __stir_give stir_array *stir_npy_read_from_file(__stir_keep stir_ctx *ctx,
	const char *path);
STIR_EXPORT __stir_give stir_array *stir_npy_read_from_mem(
	__stir_keep stir_ctx *ctx, const char *name, const void *data, size_t len);
/* Write "a" as a version 1.0 .npy file, its header padded to a multiple
 * of 64 bytes as NumPy does.  bf16 arrays are written as '<f4' (exactly);
 * bool arrays cannot be written.  0 or -1 (with diagnostics; a partly
 * written file is removed). */
STIR_EXPORT int stir_npy_write(__stir_keep stir_ctx *ctx, const char *path,
	__stir_keep const stir_array *a);

/* Decompress a whole gzip stream (RFC 1952, one or more members; any
 * bytes after the last member are an error).  On success *out (malloc'ed,
 * caller frees; followed by a NUL byte that *out_len does not count) and
 * *out_len are set and 0 is returned; otherwise -1, *out and *out_len are
 * untouched, and one diagnostic names "name" and the byte offset of the
 * fault. */
STIR_EXPORT int stir_gunzip(__stir_keep stir_ctx *ctx, const char *name,
	const void *data, size_t len, void **out, size_t *out_len);

/* Read a whole file into memory, decompressing it when it starts with the
 * gzip magic bytes (as a stream: no copy of the compressed bytes is kept).
 * There is no size limit: programs and schedule files are read with one
 * (docs/formats.md), and the Matrix Market and .npy readers stream.  The buffer (malloc'ed, caller frees) has a
 * terminating NUL byte past *len.  0, or -1 with a diagnostic naming the
 * path and the system's reason. */
STIR_EXPORT int stir_bytes_read_from_file(__stir_keep stir_ctx *ctx, const char *path,
	char **data, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
