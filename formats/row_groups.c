/* Row groups: a CSR matrix's rows in groups of R consecutive rows over the
 * union of their columns (stir_csr_to_row_groups, include/stir/formats.h),
 * the structure of the SDDMM over groups of rows (examples/sddmm_vb4.stir,
 * sddmm_vb8.stir; stir_recipe_sddmm_vblock), and the check of such
 * arrays against their matrix (stir_row_groups_verify).
 *
 * Group b holds rows b * R to b * R + R - 1 (the last group fewer when R
 * does not divide the rows); its columns are the union of theirs,
 * ascending; the group's slots are (column place q, row r of the group)
 * at q * R + r, so a slot of S[b, q, r] is S_data[(indptr[b] + q) * R + r]
 * as the program lays it out.  pos[p] is non-zero p's slot, the
 * index sddmm_vb_gather.stir reads its value at, and dst[s] the place
 * slot s is written to by sddmm_vb4_csr.stir (pos's inverse, the empty
 * slots after the non-zeros).  Linear in the non-zeros, the rows and the
 * slots, plus a sort of each group's union (the columns of R rows).
 *
 * Tile groups (stir_csr_to_tile_groups): the SR-BCRS(t, g) tiles of the
 * SDDMM over tensor-core tiles (examples/sddmm_tiles_csr.stir), with the
 * same pos and dst over their slots. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "formats/format_internal.h"
#include "ir/diag.h"

/* a, b: qsort's order of two int64_t. */
static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* g: free g and its arrays (NULL: nothing). */
void stir_row_groups_free(stir_row_groups *g)
{
	if (!g)
		return;
	free(g->indptr);
	free(g->indices);
	free(g->pos);
	free(g->dst);
	free(g);
}

/* indptr, indices, r0, r1, b, mark, out: see format_internal.h. */
int64_t fmt_group_union(const int64_t *indptr, const int64_t *indices,
	int64_t r0, int64_t r1, int64_t b, int64_t *mark, int64_t *out)
{
	int64_t n = 0;
	for (int64_t p = indptr[r0]; p < indptr[r1]; p++)
		if (mark[indices[p]] != b) {
			mark[indices[p]] = b;
			if (out)
				out[n] = indices[p];
			n++;
		}
	return n;
}

/* a, g, mark: fill g's arrays for the checked matrix a; mark[c] is
 * -1 for every column on entry (and left with no group's marks). */
static void group_rows(const fmt_csr *a, stir_row_groups *g, int64_t *mark)
{
	int64_t R = g->rows, nc = 0;
	g->indptr[0] = 0;
	for (int64_t b = 0; b < g->ngroups; b++) {
		int64_t r0 = b * R, r1 = r0 + R < a->nrows ? r0 + R : a->nrows;
		int64_t start = nc;
		nc += fmt_group_union(a->indptr, a->indices, r0, r1, b, mark,
			g->indices + nc);
		qsort(g->indices + start, (size_t)(nc - start),
			sizeof(*g->indices), cmp_i64);
		g->indptr[b + 1] = nc;
		/* mark[c]: now the column's place in the group's list, which
		 * no group number can be mistaken for (they are told apart by
		 * the -2 - place encoding) */
		for (int64_t q = start; q < nc; q++)
			mark[g->indices[q]] = -2 - q;
		for (int64_t r = r0; r < r1; r++)
			for (int64_t p = a->indptr[r]; p < a->indptr[r + 1]; p++)
				g->pos[p] = (-2 - mark[a->indices[p]]) * R + r - r0;
		for (int64_t q = start; q < nc; q++)
			mark[g->indices[q]] = -1;
	}
	g->ncols_union = nc;
}

/* pos, nnz, ns, dst: the place of each of ns slots into dst: dst[pos[p]]
 * is non-zero p, the slots no non-zero holds nnz, nnz + 1, .. in order. */
static void slot_places(const int64_t *pos, int64_t nnz, int64_t ns,
	int64_t *dst)
{
	for (int64_t s = 0; s < ns; s++)
		dst[s] = -1;
	for (int64_t p = 0; p < nnz; p++)
		dst[pos[p]] = p;
	for (int64_t s = 0, next = nnz; s < ns; s++)
		if (dst[s] < 0)
			dst[s] = next++;
}

/* ctx, csr, rows: see formats.h. */
stir_row_groups *stir_csr_to_row_groups(stir_ctx *ctx, const stir_csr *csr,
	int64_t rows)
{
	fmt_csr a;
	if (rows < 1 || rows > 1024) {
		stir_error(ctx, stir_loc_none(), "row groups: %" PRId64 " rows a "
			"group; expected 1 to 1024", rows);
		return NULL;
	}
	if (fmt_check_csr(ctx, csr, &a) < 0)
		return NULL;
	stir_row_groups *g = calloc(1, sizeof(*g));
	int64_t *mark = malloc((size_t)(a.ncols > 0 ? a.ncols : 1) *
		sizeof(*mark));
	if (g) {
		g->rows = rows;
		g->nrows = a.nrows;
		g->ncols = a.ncols;
		g->nnz = a.nnz;
		g->ngroups = (a.nrows + rows - 1) / rows;
		g->indptr = malloc((size_t)(g->ngroups + 1) * sizeof(int64_t));
		g->indices = malloc((size_t)(a.nnz > 0 ? a.nnz : 1) *
			sizeof(int64_t));
		g->pos = malloc((size_t)(a.nnz > 0 ? a.nnz : 1) *
			sizeof(int64_t));
	}
	if (!g || !mark || !g->indptr || !g->indices || !g->pos) {
		stir_error_oom(ctx);
		free(mark);
		stir_row_groups_free(g);
		return NULL;
	}
	for (int64_t c = 0; c < a.ncols; c++)
		mark[c] = -1;
	group_rows(&a, g, mark);
	free(mark);
	int64_t ns = g->ncols_union * rows;
	g->dst = malloc((size_t)(ns > 0 ? ns : 1) * sizeof(int64_t));
	if (!g->dst) {
		stir_error_oom(ctx);
		stir_row_groups_free(g);
		return NULL;
	}
	slot_places(g->pos, g->nnz, ns, g->dst);
	return g;
}

/* ctx, array, i, why, v: report that entry i of "array" is v, wrong
 * for the reason "why"; -1. */
static int bad_entry(stir_ctx *ctx, const char *array, int64_t i,
	const char *why, int64_t v)
{
	stir_error(ctx, stir_loc_none(), "row groups: %s entry %" PRId64 " is %"
		PRId64 ": %s", array, i, v, why);
	return -1;
}

/* ctx, g: dst, for groups whose pos is checked (distinct slots): at a
 * non-zero's slot that non-zero, at the others nnz upwards in order, so
 * a permutation of the slots.  0, or -1 with one error. */
static int check_dst(stir_ctx *ctx, const stir_row_groups *g)
{
	int64_t ns = g->ncols_union * g->rows, next = g->nnz;
	if (ns > 0 && !g->dst) {
		stir_error(ctx, stir_loc_none(), "row groups: an array is NULL");
		return -1;
	}
	for (int64_t s = 0; s < ns; s++) {
		int64_t d = g->dst[s];
		bool held = d >= 0 && d < g->nnz && g->pos[d] == s;
		if (!held && d != next++)
			return bad_entry(ctx, "dst", s, "neither the non-zero "
				"holding the slot nor the next place after the "
				"non-zeros", d);
	}
	/* every place below nnz taken once: as many held slots as non-zeros */
	if (next != ns)
		return bad_entry(ctx, "dst", ns - 1, "the slots' places are not "
			"a permutation (a non-zero's slot sent past the non-zeros)",
			g->dst[ns - 1]);
	return 0;
}

/* ctx, g, csr: see formats.h. */
int stir_row_groups_verify(stir_ctx *ctx, const stir_row_groups *g,
	const stir_csr *csr)
{
	fmt_csr a;
	if (fmt_check_csr(ctx, csr, &a) < 0)
		return -1;
	if (!g || !g->indptr || (a.nnz > 0 && (!g->indices || !g->pos))) {
		stir_error(ctx, stir_loc_none(), "row groups: %s", !g ?
			"no groups" : "an array is NULL");
		return -1;
	}
	int64_t R = g->rows;
	if (R < 1 || g->nrows != a.nrows || g->ncols != a.ncols ||
	    g->nnz != a.nnz || g->ngroups != (a.nrows + R - 1) / R) {
		stir_error(ctx, stir_loc_none(), "row groups: the sizes (%" PRId64
			" rows a group, %" PRId64 " groups of %" PRId64 " x %"
			PRId64 ", %" PRId64 " non-zeros) are not those of the "
			"matrix (%" PRId64 " x %" PRId64 ", %" PRId64
			" non-zeros)", R, g->ngroups, g->nrows, g->ncols, g->nnz,
			a.nrows, a.ncols, a.nnz);
		return -1;
	}
	if (g->indptr[0] != 0)
		return bad_entry(ctx, "indptr", 0, "expected 0", g->indptr[0]);
	for (int64_t b = 0; b < g->ngroups; b++) {
		int64_t r0 = b * R, r1 = r0 + R < a.nrows ? r0 + R : a.nrows;
		int64_t lo = g->indptr[b], hi = g->indptr[b + 1];
		/* a group's columns are at most its rows' non-zeros */
		if (hi < lo || hi - lo > a.indptr[r1] - a.indptr[r0] ||
		    hi > g->ncols_union)
			return bad_entry(ctx, "indptr", b + 1, "not a group's "
				"end (decreasing, or more columns than the "
				"group's non-zeros, or past ncols_union)", hi);
		for (int64_t q = lo; q < hi; q++)
			if (g->indices[q] < 0 || g->indices[q] >= a.ncols ||
			    (q > lo && g->indices[q] <= g->indices[q - 1]))
				return bad_entry(ctx, "indices", q, "outside the "
					"columns or not ascending in its group",
					g->indices[q]);
		/* every non-zero's slot: in its group, at its own column and
		 * row; distinct non-zeros of a row have distinct columns, so
		 * distinct slots */
		for (int64_t r = r0; r < r1; r++)
			for (int64_t p = a.indptr[r]; p < a.indptr[r + 1]; p++) {
				int64_t s = g->pos[p], q = s / R;
				if (s < lo * R || s >= hi * R || s % R != r - r0 ||
				    g->indices[q] != a.indices[p])
					return bad_entry(ctx, "pos", p, "not the "
						"slot of the non-zero's row and "
						"column in its group", s);
			}
	}
	if (g->indptr[g->ngroups] != g->ncols_union)
		return bad_entry(ctx, "indptr", g->ngroups, "the last entry is "
			"not ncols_union", g->indptr[g->ngroups]);
	return check_dst(ctx, g);
}

/* ---- tile groups ---- */

/* g: free g and its arrays (NULL: nothing). */
void stir_tile_groups_free(stir_tile_groups *g)
{
	if (!g)
		return;
	free(g->indptr);
	free(g->indices);
	free(g->pos);
	free(g->dst);
	free(g);
}

/* ctx, b, g: g's arrays from the SR-BCRS format bound in b under
 * suffix "_t" (A_t's values the non-zeros' numbers + 1, 0 for padding).
 * 0, or -1 with an error. */
static int tiles_from_format(stir_ctx *ctx, stir_bindings *b,
	stir_tile_groups *g)
{
	const stir_array *ptr = stir_bindings_get_array(b, "G_t.indptr");
	const stir_array *cols = stir_bindings_get_array(b, "T_t.indices");
	const stir_array *ids = stir_bindings_get_array(b, "A_t");
	if (!ptr || !cols || !ids) {
		stir_error(ctx, stir_loc_none(), "tile groups: the SR-BCRS "
			"format lacks an array");
		return -1;
	}
	g->nwindows = stir_array_get_len(ptr) - 1;
	g->ngroups = stir_array_get_len(cols) / g->cols;
	g->nslots = g->ngroups * g->cols * g->rows;
	g->indptr = malloc((size_t)(g->nwindows + 1) * sizeof(int64_t));
	g->indices = malloc((size_t)(g->ngroups * g->cols + 1) *
		sizeof(int64_t));
	g->pos = malloc((size_t)(g->nnz + 1) * sizeof(int64_t));
	g->dst = malloc((size_t)(g->nslots + 1) * sizeof(int64_t));
	if (!g->indptr || !g->indices || !g->pos || !g->dst) {
		stir_error_oom(ctx);
		return -1;
	}
	g->maxg = 0;
	for (int64_t w = 0; w <= g->nwindows; w++) {
		g->indptr[w] = (int64_t)stir_array_get_double(ptr, w);
		if (w && g->indptr[w] - g->indptr[w - 1] > g->maxg)
			g->maxg = g->indptr[w] - g->indptr[w - 1];
	}
	for (int64_t q = 0; q < g->ngroups * g->cols; q++)
		g->indices[q] = (int64_t)stir_array_get_double(cols, q);
	for (int64_t s = 0; s < g->nslots; s++) {
		int64_t id = (int64_t)stir_array_get_double(ids, s);
		if (id > 0)
			g->pos[id - 1] = s;
	}
	slot_places(g->pos, g->nnz, g->nslots, g->dst);
	return 0;
}

/* ctx, csr, t, g: see formats.h. */
stir_tile_groups *stir_csr_to_tile_groups(stir_ctx *ctx, const stir_csr *csr,
	int64_t t, int64_t g)
{
	fmt_csr a;
	if (t < 1 || t > 1024 || g < 1 || g > 1024) {
		stir_error(ctx, stir_loc_none(), "tile groups: %" PRId64 " rows a "
			"tile and %" PRId64 " tiles a group; expected 1 to 1024 "
			"each", t, g);
		return NULL;
	}
	if (fmt_check_csr(ctx, csr, &a) < 0)
		return NULL;
	/* the format over the non-zeros' numbers + 1 (exact in a double):
	 * each slot's value says which non-zero it holds */
	stir_csr numbered = *csr;
	double *ids = malloc((size_t)(a.nnz + 1) * sizeof(double));
	stir_tile_groups *tg = calloc(1, sizeof(*tg));
	stir_bindings *b = stir_bindings_alloc();
	if (!ids || !tg || !b) {
		stir_error_oom(ctx);
		free(ids);
		free(tg);
		stir_bindings_free(b);
		return NULL;
	}
	for (int64_t p = 0; p < a.nnz; p++)
		ids[p] = (double)(p + 1);
	numbered.values = ids;
	*tg = (stir_tile_groups){ .rows = t, .cols = g, .nrows = a.nrows,
		.ncols = a.ncols, .nnz = a.nnz };
	stir_host_format *f = stir_csr_to_sr_bcrs(ctx, &numbered, t, g,
		STIR_I64, STIR_F64, "_t", b);
	int rc = f ? tiles_from_format(ctx, b, tg) : -1;
	stir_host_format_free(f);
	stir_bindings_free(b);
	free(ids);
	if (rc < 0) {
		stir_tile_groups_free(tg);
		return NULL;
	}
	return tg;
}
