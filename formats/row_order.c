/* Row orders of a matrix (format_internal.h): by degree (fmt_degree_order)
 * and a locality order (fmt_locality_order), Cuthill-McKee on the graph whose nodes are the rows
 * and the columns, a row joined to the columns it holds.
 *
 * A breadth-first traversal from a row of fewest entries visits the
 * columns of each row in the order of their row counts (fewest first),
 * and each newly reached column appends its rows not yet visited, fewest
 * entries first; a component done, the next starts at the unvisited row
 * of fewest entries.  Rows that share columns thus come out near each
 * other, so that a thread block that takes consecutive rows of a part
 * reads many of the same rows of the dense operand.  Ties go to the lower
 * index, so the order is deterministic.  Time O(nnz log(row length) + m +
 * n), memory O(nnz + m + n). */
#include <stdlib.h>
#include "formats/format_internal.h"
#include "ir/diag.h"

/* A column with its number of rows, to visit columns fewest rows first. */
typedef struct col_rank {
	int64_t rows;
	int64_t col;
} col_rank;

static int compare_col_rank(const void *pa, const void *pb)
{
	const col_rank *a = pa, *b = pb;
	if (a->rows != b->rows)
		return a->rows < b->rows ? -1 : 1;
	return (a->col > b->col) - (a->col < b->col);
}

/* A: the most entries a row has. */
static int64_t longest_row(const fmt_csr *A)
{
	int64_t longest = 0;
	for (int64_t i = 0; i < A->nrows; i++) {
		int64_t len = A->indptr[i + 1] - A->indptr[i];
		longest = len > longest ? len : longest;
	}
	return longest;
}

/* A, longest, by_len: the rows sorted by their number of entries (at most
 * "longest"), ties by index (a counting sort over the row lengths).  0 or
 * -1 (memory). */
static int rows_by_length(const fmt_csr *A, int64_t longest, int64_t *by_len)
{
	int64_t *start = calloc((size_t)longest + 2, sizeof(*start));
	if (!start)
		return -1;
	for (int64_t i = 0; i < A->nrows; i++)
		start[A->indptr[i + 1] - A->indptr[i] + 1]++;
	for (int64_t l = 1; l <= longest + 1; l++)
		start[l] += start[l - 1];
	for (int64_t i = 0; i < A->nrows; i++)
		by_len[start[A->indptr[i + 1] - A->indptr[i]]++] = i;
	free(start);
	return 0;
}

/* A, by_len, colptr, colrows: the rows of every column, in by_len's order
 * (fewest entries first): column c's in colrows[colptr[c] ..
 * colptr[c + 1]). */
static void column_rows(const fmt_csr *A, const int64_t *by_len,
	int64_t *colptr, int64_t *colrows)
{
	for (int64_t p = 0; p < A->nnz; p++)
		colptr[A->indices[p] + 1]++;
	for (int64_t c = 0; c < A->ncols; c++)
		colptr[c + 1] += colptr[c];
	/* colptr[c] walks from the start of column c to the start of column
	 * c + 1; shifting it back afterwards restores the starts */
	for (int64_t x = 0; x < A->nrows; x++) {
		int64_t i = by_len[x];
		for (int64_t p = A->indptr[i]; p < A->indptr[i + 1]; p++)
			colrows[colptr[A->indices[p]]++] = i;
	}
	for (int64_t c = A->ncols; c > 0; c--)
		colptr[c] = colptr[c - 1];
	colptr[0] = 0;
}

/* ctx, A, order: see format_internal.h. */
int fmt_locality_order(stir_ctx *ctx, const fmt_csr *A, int64_t **order)
{
	int64_t m = A->nrows, n = A->ncols, nnz = A->nnz;
	int64_t *out = malloc((size_t)(m ? m : 1) * sizeof(*out));
	int64_t *by_len = malloc((size_t)(m ? m : 1) * sizeof(*by_len));
	int64_t *colptr = calloc((size_t)n + 1, sizeof(*colptr));
	int64_t *colrows = malloc((size_t)(nnz ? nnz : 1) * sizeof(*colrows));
	int64_t longest = longest_row(A);
	col_rank *scratch = malloc((size_t)(longest ? longest : 1) *
		sizeof(*scratch));
	bool *row_seen = calloc((size_t)(m ? m : 1), sizeof(*row_seen));
	bool *col_seen = calloc((size_t)(n ? n : 1), sizeof(*col_seen));
	int rc = out && by_len && colptr && colrows && scratch && row_seen &&
		col_seen && rows_by_length(A, longest, by_len) == 0 ? 0 : -1;
	if (rc == 0)
		column_rows(A, by_len, colptr, colrows);
	/* the traversal, its queue the output itself */
	int64_t head = 0, tail = 0;
	for (int64_t x = 0; rc == 0 && x < m; x++) {
		if (row_seen[by_len[x]])
			continue;
		row_seen[by_len[x]] = true;
		out[tail++] = by_len[x];
		while (head < tail) {
			int64_t v = out[head++], len = 0;
			for (int64_t p = A->indptr[v]; p < A->indptr[v + 1]; p++) {
				int64_t c = A->indices[p];
				if (!col_seen[c])
					scratch[len++] = (col_rank){
						colptr[c + 1] - colptr[c], c };
			}
			qsort(scratch, (size_t)len, sizeof(*scratch),
				compare_col_rank);
			for (int64_t s = 0; s < len; s++) {
				int64_t c = scratch[s].col;
				col_seen[c] = true;
				for (int64_t p = colptr[c]; p < colptr[c + 1]; p++)
					if (!row_seen[colrows[p]]) {
						row_seen[colrows[p]] = true;
						out[tail++] = colrows[p];
					}
			}
		}
	}
	free(by_len);
	free(colptr);
	free(colrows);
	free(scratch);
	free(row_seen);
	free(col_seen);
	if (rc < 0) {
		free(out);
		stir_error_oom(ctx);
		return -1;
	}
	*order = out;
	return 0;
}

/* ctx, A, order: see format_internal.h. */
int fmt_degree_order(stir_ctx *ctx, const fmt_csr *A, int64_t **order)
{
	int64_t m = A->nrows;
	int64_t *out = malloc((size_t)(m ? m : 1) * sizeof(*out));
	if (!out || rows_by_length(A, longest_row(A), out) < 0) {
		free(out);
		stir_error_oom(ctx);
		return -1;
	}
	/* most entries first, ties by index: reverse the runs of equal
	 * lengths, then the whole */
	for (int64_t lo = 0, hi; lo < m; lo = hi) {
		int64_t len = A->indptr[out[lo] + 1] - A->indptr[out[lo]];
		for (hi = lo + 1; hi < m &&
		     A->indptr[out[hi] + 1] - A->indptr[out[hi]] == len; hi++)
			;
		for (int64_t a = lo, b = hi - 1; a < b; a++, b--) {
			int64_t x = out[a];
			out[a] = out[b];
			out[b] = x;
		}
	}
	for (int64_t a = 0, b = m - 1; a < b; a++, b--) {
		int64_t x = out[a];
		out[a] = out[b];
		out[b] = x;
	}
	*order = out;
	return 0;
}
