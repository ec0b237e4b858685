/* stir: Matrix Market and NumPy files.
 *
 * Readers accept plain and gzip-compressed files (detected by content).  A
 * malformed file is an error diagnostic located at the line (Matrix Market)
 * or byte offset (.npy) where it goes wrong; nothing is ever read out of
 * bounds.
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
 * general or symmetric).  Symmetric storage is expanded to both triangles;
 * duplicate entries are summed.  NULL (with diagnostics) on failure. */
STIR_EXPORT __stir_give stir_csr *stir_mtx_read(__stir_keep stir_ctx *ctx,
	const char *path);
STIR_EXPORT __stir_give stir_csr *stir_mtx_read_from_mem(
	__stir_keep stir_ctx *ctx, const char *name, const void *data, size_t len);

/* Read a NumPy .npy file (version 1, 2 or 3; C order; little-endian
 * '<i4' '<i8' '<f2' '<f4' '<f8' and '|i1').  NULL (with diagnostics) on
 * failure. */
STIR_EXPORT __stir_give stir_array *stir_npy_read(__stir_keep stir_ctx *ctx,
	const char *path);
STIR_EXPORT __stir_give stir_array *stir_npy_read_from_mem(
	__stir_keep stir_ctx *ctx, const char *name, const void *data, size_t len);
/* Write "a" as a version 1.0 .npy file.  bf16 arrays are written as '<f4'.
 * 0 or -1 (with diagnostics). */
STIR_EXPORT int stir_npy_write(__stir_keep stir_ctx *ctx, const char *path,
	__stir_keep const stir_array *a);

/* Decompress a whole gzip stream (RFC 1952, one or more members).  On
 * success *out (malloc'ed, caller frees) and *out_len are set and 0 is
 * returned; otherwise -1 with a diagnostic naming "name" and the byte
 * offset of the fault. */
STIR_EXPORT int stir_gunzip(__stir_keep stir_ctx *ctx, const char *name,
	const void *data, size_t len, void **out, size_t *out_len);

/* Read a whole file into memory, decompressing it when it starts with the
 * gzip magic bytes.  The buffer has a terminating NUL byte past *len. */
STIR_EXPORT int stir_read_file(__stir_keep stir_ctx *ctx, const char *path,
	char **data, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
