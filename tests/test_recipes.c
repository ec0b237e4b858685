/* The recipes (include/stir/recipes.h): their candidate spaces, every
 * candidate applied to its program at several feature sizes (each must
 * bring the kernel to stage III, ready for the GPU, or be refused by
 * stir_*_fits beforehand), and a recipe given a kernel it is not for,
 * which must fail with diagnostics, not crash.  The kernels the recipes
 * make are run in the emulator by test_cuda_emu and on the GPU by
 * bench_spmm and bench_sddmm. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stir/stir.h>
#include "tests/testutil.h"
#include "tests/testdiag.h"
#include "tests/fake_cuda.h"

/* ctx, file, name: kernel "name" of the source tree's "file" (its module
 * in *m). */
static stir_kernel *read_kernel(stir_ctx *ctx, const char *file,
	const char *name, stir_module **m)
{
	*m = stir_module_read_from_file(ctx, test_path(file));
	if (!*m)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(*m);
	stir_kernel *k = stir_module_find_kernel(*m, name);
	ck_assert_ptr_nonnull(k);
	return k;
}

START_TEST(test_spmm_candidates)
{
	int n = stir_spmm_hybrid_n_candidates();
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_null(stir_spmm_hybrid_get_candidate(-1));
	ck_assert_ptr_null(stir_spmm_hybrid_get_candidate(n));
	static const int64_t feats[] = { 24, 256 };
	for (int f = 0; f < 2; f++) {
		int fits = 0;
		for (int i = 0; i < n; i++) {
			const stir_spmm_hybrid_candidate *p =
				stir_spmm_hybrid_get_candidate(i);
			ck_assert_int_ge(p->nb, 1);
			ck_assert_int_le(p->nb, 8);
			for (int b = 1; b < p->nb; b++)
				ck_assert_int_lt(p->buckets[b - 1], p->buckets[b]);
			if (!stir_spmm_hybrid_fits(p, feats[f]))
				continue;
			fits++;
			stir_ctx *ctx = stir_ctx_alloc();
			stir_module *m;
			stir_kernel *k = read_kernel(ctx, "examples/csrmm.stir",
				"csrmm", &m);
			stir_spmm_map fm = stir_spmm_hybrid_map(p, feats[f]);
			int rc = stir_recipe_spmm_hybrid(k, p->c, p->nb, p->buckets, fm);
			if (rc < 0) {
				fprintf(stderr, "candidate %d at %lld features:\n", i,
					(long long)feats[f]);
				stir_ctx_print_diagnostics(ctx, stderr);
			}
			ck_assert_int_eq(rc, 0);
			ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_3);
			ck_assert_int_eq(stir_kernel_verify_gpu(k), 0);
			stir_module_free(m);
			stir_ctx_free(ctx);
		}
		/* the plain mappings apply at every feature size */
		ck_assert_int_gt(fits, 0);
	}
	/* the candidates the measured search times first: distinct
	 * candidates, fewer than the search's default count, and at least
	 * one that applies at every feature size */
	int nf = stir_spmm_hybrid_n_often_fastest();
	ck_assert_int_gt(nf, 0);
	ck_assert_int_lt(nf, stir_tune_get_top(STIR_TUNE_SPMM));
	ck_assert_int_eq(stir_spmm_hybrid_get_often_fastest(-1), -1);
	ck_assert_int_eq(stir_spmm_hybrid_get_often_fastest(nf), -1);
	bool seen[256] = { false }, plain = false;
	for (int i = 0; i < nf; i++) {
		int c = stir_spmm_hybrid_get_often_fastest(i);
		ck_assert_int_ge(c, 0);
		ck_assert_int_lt(c, n);
		ck_assert(!seen[c]);
		seen[c] = true;
		plain |= stir_spmm_hybrid_fits(stir_spmm_hybrid_get_candidate(c), 4);
	}
	ck_assert(plain);
}
END_TEST

START_TEST(test_sddmm_candidates)
{
	int n = stir_sddmm_n_candidates();
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_null(stir_sddmm_get_candidate(n));
	for (int i = 0; i < n; i++) {
		const stir_sddmm_candidate *p = stir_sddmm_get_candidate(i);
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m;
		stir_kernel *k = read_kernel(ctx, p->rows ?
			"examples/sddmm_rows.stir" : "examples/sddmm.stir",
			p->rows ? "sddmm_rows" : "sddmm", &m);
		stir_sddmm_map fm = stir_sddmm_candidate_map(p, 96);
		ck_assert_int_le(fm.lanes, p->max_lanes);
		ck_assert_int_eq(fm.lanes * fm.nnz * (p->row_tile > 0 ?
			p->row_tile : 1), p->threads > 0 ? p->threads : 256);
		ck_assert(p->rows || p->row_tile == 0);
		ck_assert(p->row_tile == 0 || (fm.lanes == 1 && p->x_global));
		int rc = stir_recipe_sddmm_candidate(k, p, 96);
		if (rc < 0)
			stir_ctx_print_diagnostics(ctx, stderr);
		ck_assert_int_eq(rc, 0);
		ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_3);
		/* the kernel says where X's row is read from */
		char *cuda = stir_kernel_to_cuda(k);
		ck_assert_ptr_nonnull(cuda);
		ck_assert_int_eq(strstr(cuda, "X_shared") != NULL,
			p->rows && !p->x_global);
		ck_assert(p->rows || !p->x_global);
		/* and whether a row is cut over several thread blocks */
		ck_assert_int_eq(strstr(cuda, "blockIdx.y") != NULL,
			p->chunks > 1);
		ck_assert(p->rows || p->chunks <= 1);
		/* a row tile: one thread a non-zero (no shuffle), several rows
		 * a block on threadIdx.y, each sum stored once (no zeroing of
		 * S) */
		if (p->row_tile > 0) {
			ck_assert_ptr_null(strstr(cuda, "__shfl"));
			ck_assert_ptr_null(strstr(cuda, "S_data[v0] = 0"));
			ck_assert_ptr_nonnull(strstr(cuda, "const int i_1 = "
				"threadIdx.y"));
		}
		free(cuda);
		/* the candidate's row schedule with X shared is
		 * stir_recipe_sddmm_rows, the fused one stir_recipe_sddmm */
		if (!p->x_global) {
			stir_module *m2;
			stir_kernel *k2 = read_kernel(ctx, p->rows ?
				"examples/sddmm_rows.stir" : "examples/sddmm.stir",
				p->rows ? "sddmm_rows" : "sddmm", &m2);
			ck_assert_int_eq(p->rows ? stir_recipe_sddmm_rows(k2, fm) :
				stir_recipe_sddmm(k2, fm), 0);
			char *c1 = stir_kernel_to_cuda(k), *c2 =
				stir_kernel_to_cuda(k2);
			ck_assert_str_eq(c1, c2);
			free(c1);
			free(c2);
			stir_module_free(m2);
		}
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
}
END_TEST

START_TEST(test_sddmm_row_chunks_refused)
{
	/* a row cut over two thread blocks with X's row read from global
	 * memory: the zeroing of an element and the sum into it are not
	 * shown to be in one block (without the copy of X and its barrier),
	 * so the GPU verifier refuses the kernel at the init's line */
	const stir_sddmm_candidate p = { true, 4, 64, true, 2 };
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_kernel(ctx, "examples/sddmm_rows.stir",
		"sddmm_rows", &m);
	ck_assert_int_eq(stir_recipe_sddmm_candidate(k, &p, 32), -1);
	const stir_diag *dg = stir_ctx_get_diagnostic(ctx, 0);
	const char *msg = stir_diag_get_message(dg);
	if (!strstr(msg, "'S_data' is accessed at sddmm_rows.stir:13 and at "
	    "sddmm_rows.stir:14 by different thread blocks of one launch"))
		ck_abort_msg("unexpected: %s", msg);
	ck_assert_int_eq(stir_diag_get_loc(dg).line, 13);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_sddmm_row_tile_refused)
{
	/* the row tile schedule with 4 lanes a non-zero: refused at the
	 * kernel, nothing scheduled */
	stir_sddmm_map fm = stir_sddmm_map_lanes(32, 4);
	fm.row_tile = 8;
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_kernel(ctx, "examples/sddmm_rows.stir",
		"sddmm_rows", &m);
	ck_assert_int_eq(stir_recipe_sddmm_row_tile(k, fm), -1);
	const stir_diag *dg = stir_ctx_get_diagnostic(ctx, 0);
	const char *msg = stir_diag_get_message(dg);
	if (!strstr(msg, "needs one lane a non-zero") ||
	    !strstr(msg, "lanes 4, row_tile 8"))
		ck_abort_msg("unexpected: %s", msg);
	ck_assert_int_eq(stir_diag_get_loc(dg).line, 4);
	ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_1);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_sddmm_vblock)
{
	/* the SDDMM over groups of 4 and 8 rows: stage III, one launch, X's
	 * rows of the group in shared memory, a register array of one sum a
	 * row of the group reduced across the lanes; on the row program it
	 * is refused with diagnostics */
	static const char *const files[] = { "examples/sddmm_vb4.stir",
		"examples/sddmm_vb8.stir" };
	static const char *const arrays[] = { "stir_red0[4]", "stir_red0[8]" };
	for (int t = 0; t < 2; t++) {
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m;
		stir_kernel *k = read_kernel(ctx, files[t], "sddmm_vb", &m);
		int rc = stir_recipe_sddmm_vblock(k, stir_sddmm_map_features(128));
		if (rc < 0)
			stir_ctx_print_diagnostics(ctx, stderr);
		ck_assert_int_eq(rc, 0);
		ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_3);
		char *cuda = stir_kernel_to_cuda(k);
		ck_assert_ptr_nonnull(cuda);
		ck_assert_ptr_nonnull(strstr(cuda, "1 launch,"));
		ck_assert_ptr_nonnull(strstr(cuda, "__shared__ float X_shared["));
		ck_assert_ptr_nonnull(strstr(cuda, arrays[t]));
		free(cuda);
		stir_module_free(m);
		k = read_kernel(ctx, "examples/sddmm_rows.stir", "sddmm_rows", &m);
		ck_assert_int_eq(stir_recipe_sddmm_vblock(k,
			stir_sddmm_map_features(128)), -1);
		ck_assert_int_gt(stir_ctx_n_errors(ctx), 0);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
}
END_TEST

START_TEST(test_sddmm_vblock_candidates)
{
	/* every group candidate on its program at 512, 128, 32 and 6
	 * features: stage III in one launch, X's rows shared; a one-lane
	 * candidate (a thread's register tile of the group's rows) has no
	 * shuffle; no candidate or no features is refused with a message */
	static const int64_t feats[] = { 512, 128, 32, 6 };
	ck_assert_int_ge(stir_sddmm_vblock_n_candidates(), 8);
	ck_assert_ptr_null(stir_sddmm_vblock_get_candidate(-1));
	ck_assert_ptr_null(stir_sddmm_vblock_get_candidate(
		stir_sddmm_vblock_n_candidates()));
	for (int c = 0; c < stir_sddmm_vblock_n_candidates(); c++) {
		const stir_sddmm_vblock_candidate *p =
			stir_sddmm_vblock_get_candidate(c);
		ck_assert(p->rows == 4 || p->rows == 8);
		for (int f = 0; f < 4; f++) {
			stir_ctx *ctx = stir_ctx_alloc();
			stir_module *m;
			stir_kernel *k = read_kernel(ctx, p->rows == 4 ?
				"examples/sddmm_vb4.stir" :
				"examples/sddmm_vb8.stir", "sddmm_vb", &m);
			stir_sddmm_map fm = stir_sddmm_vblock_candidate_map(p,
				feats[f]);
			ck_assert_int_le(fm.lanes, p->max_lanes);
			ck_assert_int_eq(fm.lanes * fm.nnz, p->threads ?
				p->threads : 256);
			int rc = stir_recipe_sddmm_vblock_candidate(k, p, feats[f]);
			if (rc < 0)
				stir_ctx_print_diagnostics(ctx, stderr);
			ck_assert_int_eq(rc, 0);
			char *cuda = stir_kernel_to_cuda(k);
			ck_assert_ptr_nonnull(cuda);
			ck_assert_ptr_nonnull(strstr(cuda, "1 launch,"));
			ck_assert_ptr_nonnull(strstr(cuda,
				"__shared__ float X_shared["));
			if (fm.lanes == 1)
				ck_assert_ptr_null(strstr(cuda, "__shfl"));
			else
				ck_assert_ptr_nonnull(strstr(cuda, "__shfl"));
			free(cuda);
			stir_module_free(m);
			stir_ctx_free(ctx);
		}
	}
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_kernel(ctx, "examples/sddmm_vb4.stir",
		"sddmm_vb", &m);
	ck_assert_int_eq(stir_recipe_sddmm_vblock_candidate(k, NULL, 32), -1);
	ck_assert_int_eq(stir_recipe_sddmm_vblock_candidate(k,
		stir_sddmm_vblock_get_candidate(0), 0), -1);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 2);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* A 6 x 7 matrix for the row groups: row 2 empty, rows 0 and 1 sharing
 * columns, the last group of 3 rows short of 4 (rows 4 and 5 only). */
static const char groups_mtx[] =
	"%%MatrixMarket matrix coordinate real general\n"
	"6 7 10\n"
	"1 1 1.5\n1 3 2\n2 3 3\n2 6 4\n4 2 5\n4 7 6\n"
	"5 1 7\n6 1 8\n6 4 9\n6 5 10\n";

/* ctx, a: groups_mtx read into *a, and its groups of 4 rows. */
static stir_row_groups *groups_of_mtx(stir_ctx *ctx, stir_csr **a)
{
	*a = stir_mtx_read_from_mem(ctx, "g.mtx", groups_mtx,
		sizeof(groups_mtx) - 1);
	ck_assert_ptr_nonnull(*a);
	stir_row_groups *g = stir_csr_to_row_groups(ctx, *a, 4);
	ck_assert_ptr_nonnull(g);
	return g;
}

START_TEST(test_row_groups)
{
	/* the groups of 4 rows: group 0 rows 0-3 over columns {0, 1, 2, 5,
	 * 6}, group 1 rows 4-5 over {0, 3, 4}; every non-zero's slot; the
	 * check accepts them and refuses each kind of damage with the array
	 * and entry; stir_kernel_bind_csr binds them for sddmm_vb4.stir's S
	 * (values at the slots, 0 elsewhere) */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *a;
	stir_row_groups *g = groups_of_mtx(ctx, &a);
	ck_assert_int_eq(g->ngroups, 2);
	ck_assert_int_eq(g->ncols_union, 8);
	static const int64_t ptr[] = { 0, 5, 8 };
	static const int64_t ind[] = { 0, 1, 2, 5, 6, 0, 3, 4 };
	/* (0,0) (0,2) (1,2) (1,5) (3,1) (3,6) (4,0) (5,0) (5,3) (5,4) */
	static const int64_t pos[] = { 0, 8, 9, 13, 7, 19, 20, 21, 25, 29 };
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(g->indptr[i], ptr[i]);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(g->indices[i], ind[i]);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(g->pos[i], pos[i]);
	/* dst: pos's inverse, the 22 empty slots at 10, 11, .. in order */
	for (int64_t s = 0, next = 10; s < 32; s++) {
		int64_t want = -1;
		for (int p = 0; p < 10; p++)
			if (pos[p] == s)
				want = p;
		ck_assert_int_eq(g->dst[s], want >= 0 ? want : next++);
	}
	ck_assert_int_eq(stir_row_groups_verify(ctx, g, a), 0);
	/* damage: a slot at the wrong row, a column out of order, a short
	 * indptr end, a wrong group count */
	static const struct { int what, at; int64_t v; const char *msg; }
	bad[] = {
		{ 2, 3, 12, "pos entry 3 is 12: not the slot" },
		{ 1, 2, 0, "indices entry 2 is 0: outside the columns or not "
			"ascending" },
		{ 0, 1, 9, "indptr entry 1 is 9: not a group's end" },
		{ 3, 0, 3, "the sizes (4 rows a group, 3 groups" },
		/* dst: a non-zero at another's slot, an empty slot out of
		 * order, a place past the slots, a non-zero's slot sent to
		 * the empty ones' places */
		{ 4, 0, 1, "dst entry 0 is 1: neither the non-zero" },
		{ 4, 1, 11, "dst entry 1 is 11: neither the non-zero" },
		{ 4, 31, 32, "dst entry 31 is 32: neither the non-zero" },
		{ 4, 0, 10, "dst entry 1 is 10: neither the non-zero" },
	};
	for (int t = 0; t < 8; t++) {
		int64_t *arr = bad[t].what == 0 ? g->indptr : bad[t].what == 1 ?
			g->indices : bad[t].what == 2 ? g->pos : bad[t].what == 4 ?
			g->dst : &g->ngroups;
		int64_t keep = arr[bad[t].at];
		arr[bad[t].at] = bad[t].v;
		ck_assert_int_eq(stir_row_groups_verify(ctx, g, a), -1);
		ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
		const char *msg = stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 0));
		if (!strstr(msg, bad[t].msg))
			ck_abort_msg("'%s' lacks '%s'", msg, bad[t].msg);
		stir_ctx_clear_diagnostics(ctx);
		arr[bad[t].at] = keep;
	}
	/* the last non-zero's slot (29) and the two empty ones after it at
	 * 30, 31, 32: in order, but not a permutation */
	g->dst[29] = 30;
	g->dst[30] = 31;
	g->dst[31] = 32;
	ck_assert_int_eq(stir_row_groups_verify(ctx, g, a), -1);
	ck_assert_ptr_nonnull(strstr(stir_diag_get_message(
		stir_ctx_get_diagnostic(ctx, 0)), "not a permutation"));
	stir_ctx_clear_diagnostics(ctx);
	g->dst[29] = 9;
	g->dst[30] = 30;
	g->dst[31] = 31;
	ck_assert_int_eq(stir_row_groups_verify(ctx, g, a), 0);
	ck_assert_ptr_null(stir_csr_to_row_groups(ctx, a, 0));
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	stir_ctx_clear_diagnostics(ctx);
	stir_row_groups_free(g);
	/* bound for the program's S [I, J, G] */
	stir_module *m;
	stir_kernel *k = read_kernel(ctx, "examples/sddmm_vb4.stir",
		"sddmm_vb", &m);
	stir_bindings *b = stir_bindings_alloc();
	ck_assert_int_eq(stir_kernel_bind_csr(k, b, "S", a), 0);
	int64_t v;
	ck_assert(stir_bindings_get_size(b, "m", &v) && v == 2);
	ck_assert(stir_bindings_get_size(b, "n", &v) && v == 7);
	ck_assert(stir_bindings_get_size(b, "nnz", &v) && v == 8);
	const stir_array *s = stir_bindings_get_array(b, "S");
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_array_get_len(s), 32);
	for (int64_t i = 0; i < 32; i++) {
		double want = 0;
		for (int p = 0; p < 10; p++)
			if (pos[p] == i)
				want = a->values[p];
		ck_assert_double_eq(stir_array_get_double(s, i), want);
	}
	const stir_array *jp = stir_bindings_get_array(b, "J.indptr");
	ck_assert(jp && stir_array_get_int(jp, 1) == 5);
	stir_bindings_free(b);
	stir_module_free(m);
	/* the gather back into the matrix's order (sddmm_vb_gather.stir)
	 * with the groups' pos: S[p] is slot pos[p]'s value; a Pos entry
	 * past the slots is refused, naming the array */
	for (int bad_pos = 0; bad_pos < 2; bad_pos++) {
		k = read_kernel(ctx, "examples/sddmm_vb_gather.stir",
			"sddmm_vb_gather", &m);
		b = stir_bindings_alloc();
		int64_t np = 10, nv = 32;
		stir_array *pa = stir_array_alloc(ctx, STIR_I32, 1, &np);
		stir_array *sv = stir_array_alloc(ctx, STIR_F32, 1, &nv);
		ck_assert(pa && sv);
		stir_bindings_set_size(b, "nnz", np);
		stir_bindings_set_size(b, "nv", nv);
		for (int i = 0; i < 10; i++)
			stir_array_set_int(pa, i, bad_pos && i == 4 ? 32 : pos[i]);
		for (int i = 0; i < 32; i++)
			stir_array_set_double(sv, i, i * 0.5);
		ck_assert_int_eq(stir_kernel_bind_array(k, b, "Pos", pa), 0);
		ck_assert_int_eq(stir_kernel_bind_array(k, b, "Sv", sv), 0);
		int rc = stir_kernel_bind_outputs(k, b);
		if (rc == 0)
			rc = stir_kernel_interpret(k, b);
		if (rc < 0 && !bad_pos)
			stir_ctx_print_diagnostics(ctx, stderr);
		if (bad_pos) {
			ck_assert_int_eq(rc, -1);
			const char *msg = stir_diag_get_message(
				stir_ctx_get_diagnostic(ctx, 0));
			ck_assert_ptr_nonnull(strstr(msg, "array 'Pos': entry 4 is "
				"32, outside its domain [0, 32)"));
			stir_ctx_clear_diagnostics(ctx);
		} else {
			ck_assert_int_eq(rc, 0);
			const stir_array *out = stir_bindings_get_array(b, "S");
			for (int i = 0; i < 10; i++)
				ck_assert_double_eq(stir_array_get_double(out, i),
					pos[i] * 0.5);
		}
		stir_bindings_free(b);
		stir_module_free(m);
	}
	stir_csr_free(a);
	stir_ctx_free(ctx);
}
END_TEST

/* ctx, n, v: a 1-D array of type t with entries v[0 .. n-1]. */
static stir_array *array_of(stir_ctx *ctx, stir_dtype t, int64_t n,
	const int64_t *v)
{
	stir_array *x = stir_array_alloc(ctx, t, 1, &n);
	ck_assert_ptr_nonnull(x);
	for (int64_t i = 0; i < n; i++)
		stir_array_set_int(x, i, v[i]);
	return x;
}

START_TEST(test_tile_groups)
{
	/* the SR-BCRS(2, 2) tile groups of groups_mtx (stir_csr_to_tile_groups):
	 * every non-zero's slot in its window, at its tile's column and its
	 * row of the window; dst pos's inverse, the empty slots nnz upwards
	 * in order; t or g out of range refused with one error */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *a = stir_mtx_read_from_mem(ctx, "g.mtx", groups_mtx,
		sizeof(groups_mtx) - 1);
	ck_assert_ptr_nonnull(a);
	stir_tile_groups *g = stir_csr_to_tile_groups(ctx, a, 2, 2);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->nwindows, 3);
	ck_assert_int_eq(g->nslots, g->ngroups * 4);
	for (int64_t r = 0; r < a->nrows; r++)
		for (int64_t p = a->indptr[r]; p < a->indptr[r + 1]; p++) {
			int64_t s = g->pos[p], q = s / 4, w = r / 2;
			ck_assert_int_eq(s % 2, r % 2);
			ck_assert_int_eq(g->indices[s / 2], a->indices[p]);
			ck_assert(q >= g->indptr[w] && q < g->indptr[w + 1]);
			ck_assert_int_eq(g->dst[s], p);
		}
	for (int64_t s = 0, next = a->nnz; s < g->nslots; s++)
		if (g->dst[s] >= a->nnz)
			ck_assert_int_eq(g->dst[s], next++);
	for (int64_t w = 0; w < g->nwindows; w++)
		ck_assert(g->indptr[w + 1] - g->indptr[w] <= g->maxg);
	stir_tile_groups_free(g);
	ck_assert_ptr_null(stir_csr_to_tile_groups(ctx, a, 0, 16));
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	stir_csr_free(a);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_sddmm_vb_csr)
{
	/* sddmm_vb4_csr.stir in the interpreter, on the row groups of
	 * groups_mtx with their dst as Dst: S's first 10 values are the
	 * SDDMM at the matrix's non-zeros in its own order (float64
	 * reference, X padded with zero rows 6 and 7), unscheduled and
	 * under group candidate 1 (the write through Dst cached in
	 * registers); a Dst entry past the slots is refused, naming the
	 * array, and so is one equal to another (Dst is declared distinct),
	 * at Dst's declaration */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *a;
	stir_row_groups *g = groups_of_mtx(ctx, &a);
	enum { FEAT = 3 };
	int64_t ns = g->ncols_union * 4, nx = g->ngroups * 4 * FEAT,
		ny = a->ncols * FEAT;
	for (int run = 0; run < 4; run++) {
		int bad = run >= 2 ? run - 1 : 0;
		stir_module *m;
		stir_kernel *k = read_kernel(ctx, "examples/sddmm_vb4_csr.stir",
			"sddmm_vb_csr", &m);
		if (run == 1)
			ck_assert_int_eq(stir_recipe_sddmm_vblock_candidate(k,
				stir_sddmm_vblock_get_candidate(1), FEAT), 0);
		stir_bindings *b = stir_bindings_alloc();
		stir_bindings_set_size(b, "m", g->ngroups);
		stir_bindings_set_size(b, "n", a->ncols);
		stir_bindings_set_size(b, "nnz", g->ncols_union);
		stir_bindings_set_size(b, "feat", FEAT);
		stir_bindings_set_size(b, "nv", ns);
		stir_array *x = stir_array_alloc(ctx, STIR_F32, 1, &nx);
		stir_array *y = stir_array_alloc(ctx, STIR_F32, 1, &ny);
		ck_assert(x && y);
		for (int64_t r = 0; r < g->ngroups * 4; r++)
			for (int f = 0; f < FEAT; f++)
				stir_array_set_double(x, r * FEAT + f, r < a->nrows ?
					0.25 * (double)(r + 1) - 0.5 * f : 0.0);
		for (int64_t c = 0; c < a->ncols; c++)
			for (int f = 0; f < FEAT; f++)
				stir_array_set_double(y, c * FEAT + f,
					0.125 * (double)c + f);
		stir_array *dst = array_of(ctx, STIR_I32, ns, g->dst);
		if (bad)
			stir_array_set_int(dst, 5, bad == 1 ? ns :
				stir_array_get_int(dst, 6));
		ck_assert_int_eq(stir_kernel_bind_array(k, b, "J.indptr",
			array_of(ctx, STIR_I32, g->ngroups + 1, g->indptr)), 0);
		ck_assert_int_eq(stir_kernel_bind_array(k, b, "J.indices",
			array_of(ctx, STIR_I32, g->ncols_union, g->indices)), 0);
		ck_assert_int_eq(stir_kernel_bind_array(k, b, "Dst", dst), 0);
		ck_assert_int_eq(stir_kernel_bind_array(k, b, "X", x), 0);
		ck_assert_int_eq(stir_kernel_bind_array(k, b, "Y", y), 0);
		int rc = stir_kernel_bind_outputs(k, b);
		if (rc == 0)
			rc = stir_kernel_interpret(k, b);
		if (rc < 0 && !bad)
			stir_ctx_print_diagnostics(ctx, stderr);
		ck_assert_int_eq(rc, bad ? -1 : 0);
		if (bad) {
			const char *msg = stir_diag_get_message(
				stir_ctx_get_diagnostic(ctx, 0));
			if (!strstr(msg, bad == 1 ? "array 'Dst': entry 5 is 32, "
			    "outside its domain [0, 32)" : "array 'Dst': entries 5 "
			    "and 6 are both "))
				ck_abort_msg("unexpected: %s", msg);
			stir_loc loc = stir_diag_get_loc(stir_ctx_get_diagnostic(
				ctx, 0));
			if (bad == 2) {
				ck_assert(strstr(msg, "but 'Dst' is declared distinct"));
				ck_assert_int_eq(loc.line, 21);
			}
			stir_ctx_clear_diagnostics(ctx);
		} else {
			const stir_array *out = stir_bindings_get_array(b, "S");
			for (int64_t r = 0; r < a->nrows; r++)
				for (int64_t p = a->indptr[r]; p < a->indptr[r + 1];
				    p++) {
					double want = 0;
					for (int f = 0; f < FEAT; f++)
						want += (0.25 * (double)(r + 1) - 0.5 * f) *
							(0.125 * (double)a->indices[p] + f);
					ck_assert_double_eq_tol(stir_array_get_double(out,
						p), want, 1e-5);
				}
		}
		stir_bindings_free(b);
		stir_module_free(m);
	}
	stir_row_groups_free(g);
	stir_csr_free(a);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_sddmm_vb_csr_refused)
{
	/* sddmm_vb4_csr.stir without "distinct" on Dst: the group schedule's
	 * cache_write_over_init refuses the sum's write S[Dst[..]], whose
	 * index is a load that may repeat (two points adding into one
	 * element, which the sums would each store); with it, every group
	 * candidate applies at 32 and 6 features */
	stir_ctx *ctx = stir_ctx_alloc();
	FILE *f = fopen(test_path("examples/sddmm_vb4_csr.stir"), "rb");
	ck_assert_ptr_nonnull(f);
	static char text[4096];
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	char *d = strstr(text, " distinct;");
	ck_assert_ptr_nonnull(d);
	memmove(d, d + strlen(" distinct"), strlen(d + strlen(" distinct")) + 1);
	stir_module *m = stir_module_read_from_mem(ctx, "plain.stir", text,
		strlen(text));
	ck_assert_ptr_nonnull(m);
	stir_kernel *k = stir_module_find_kernel(m, "sddmm_vb_csr");
	ck_assert_int_eq(stir_recipe_sddmm_vblock_candidate(k,
		stir_sddmm_vblock_get_candidate(1), 32), -1);
	const stir_diag *dg = stir_ctx_get_diagnostic(ctx, 0);
	const char *msg = stir_diag_get_message(dg);
	if (strcmp(msg, "cache_write_over_init: block 'sddmm1' adds into "
	    "'S_data' at an index read from 'Dst_data', which is not declared "
	    "distinct: two of its points may add into one element, so the cache "
	    "cannot take over the init"))
		ck_abort_msg("unexpected: %s", msg);
	ck_assert_int_eq(stir_diag_get_loc(dg).line, 25);
	stir_ctx_clear_diagnostics(ctx);
	stir_module_free(m);
	for (int c = 0; c < stir_sddmm_vblock_n_candidates(); c++) {
		const stir_sddmm_vblock_candidate *q =
			stir_sddmm_vblock_get_candidate(c);
		for (int feat = 32; feat >= 6; feat -= 26) {
			k = read_kernel(ctx, "examples/sddmm_vb4_csr.stir",
				"sddmm_vb_csr", &m);
			int rc = stir_recipe_sddmm_vblock_candidate(k, q, feat);
			if (rc < 0)
				stir_ctx_print_diagnostics(ctx, stderr);
			ck_assert_int_eq(rc, 0);
			stir_module_free(m);
		}
	}
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_tune_vblock)
{
	/* the group programs are tuner recipes: the model ranks every group
	 * candidate, deterministically, cheapest first; the model's pick of
	 * each program is one of its own row count, and its schedule runs
	 * (stage III); a candidate of the other row count is refused */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *a = stir_mtx_read_from_file(ctx,
		test_path("examples/data/cora.mtx.gz"));
	ck_assert_ptr_nonnull(a);
	int n = stir_sddmm_vblock_n_candidates();
	int o1[64], o2[64];
	double c1[64], c2[64];
	ck_assert_int_le(n, 64);
	ck_assert_int_eq(stir_sddmm_vblock_model_rank(a, 64, 132, o1, c1), n);
	ck_assert_int_eq(stir_sddmm_vblock_model_rank(a, 64, 132, o2, c2), n);
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(o1[i], o2[i]);
		ck_assert(c1[i] > 0 && (i == 0 || c1[i] >= c1[i - 1]));
	}
	static const char *const files[] = { "examples/sddmm_vb4.stir",
		"examples/sddmm_vb8.stir" };
	for (int t = 0; t < 2; t++) {
		stir_module *m;
		stir_kernel *k = read_kernel(ctx, files[t], "sddmm_vb", &m);
		stir_tune_recipe r = stir_kernel_get_tune_recipe(k);
		ck_assert_int_eq(r, t ? STIR_TUNE_SDDMM_VB8 : STIR_TUNE_SDDMM_VB4);
		int kept = stir_sddmm_rank(r, a, 64, 132, o1, c1);
		ck_assert_int_gt(kept, 0);
		for (int i = 0; i < kept; i++)
			ck_assert_int_eq(stir_sddmm_vblock_get_candidate(
				o1[i])->rows, t ? 8 : 4);
		int cand = -1;
		double cost = 0;
		ck_assert_int_eq(stir_tune_model_apply(k, a, 64, 132, &cand,
			&cost), 0);
		ck_assert_int_eq(cand, o1[0]);
		ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_3);
		stir_module_free(m);
		k = read_kernel(ctx, files[t], "sddmm_vb", &m);
		/* a candidate of the other program's rows a group */
		int other = 0;
		while (stir_sddmm_vblock_get_candidate(other)->rows == (t ? 8 : 4))
			other++;
		ck_assert_int_eq(stir_tune_apply_candidate(k, 64, other), -1);
		ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
		stir_ctx_clear_diagnostics(ctx);
		stir_module_free(m);
	}
	stir_csr_free(a);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_wrong_kernel)
{
	/* the SpMM recipe on the SDDMM kernel, and the other way round:
	 * refused with diagnostics */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_kernel(ctx, "examples/sddmm.stir", "sddmm", &m);
	ck_assert_int_eq(stir_recipe_spmm_csr(k, stir_spmm_map_features(64)),
		-1);
	ck_assert_int_gt(stir_ctx_n_errors(ctx), 0);
	stir_module_free(m);
	stir_ctx_clear_diagnostics(ctx);
	k = read_kernel(ctx, "examples/csrmm.stir", "csrmm", &m);
	ck_assert_int_eq(stir_recipe_sddmm(k, stir_sddmm_map_features(64)), -1);
	ck_assert_int_gt(stir_ctx_n_errors(ctx), 0);
	stir_module_free(m);
	/* no candidate, no features: refused with an error, k unchanged */
	stir_ctx_clear_diagnostics(ctx);
	k = read_kernel(ctx, "examples/sddmm_rows.stir", "sddmm_rows", &m);
	ck_assert_int_eq(stir_recipe_sddmm_candidate(k, NULL, 32), -1);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_int_eq(stir_recipe_sddmm_candidate(k,
		stir_sddmm_get_candidate(20), 0), -1);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 2);
	ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_1);
	ck_assert_int_eq(stir_recipe_sddmm_candidate(NULL, NULL, 32), -1);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* n, deg: a CSR matrix of n rows and columns, row i of deg(i, n) columns
 * (0 .. deg - 1: the model looks at row lengths only); free with stir_csr_free. */
static stir_csr *make_csr(int64_t n, int64_t (*deg)(int64_t, int64_t))
{
	stir_csr *a = calloc(1, sizeof(*a));
	ck_assert_ptr_nonnull(a);
	a->nrows = a->ncols = n;
	a->indptr = malloc(sizeof(int64_t) * (size_t)(n + 1));
	ck_assert_ptr_nonnull(a->indptr);
	a->indptr[0] = 0;
	for (int64_t i = 0; i < n; i++)
		a->indptr[i + 1] = a->indptr[i] + deg(i, n);
	a->nnz = a->indptr[n];
	a->indices = malloc(sizeof(int64_t) * (size_t)(a->nnz + 1));
	a->values = malloc(sizeof(double) * (size_t)(a->nnz + 1));
	ck_assert_ptr_nonnull(a->indices);
	ck_assert_ptr_nonnull(a->values);
	for (int64_t i = 0; i < n; i++) {
		int64_t d = a->indptr[i + 1] - a->indptr[i];
		for (int64_t j = 0; j < d; j++) {
			/* ascending: columns 0 .. d - 1 */
			a->indices[a->indptr[i] + j] = j;
			a->values[a->indptr[i] + j] = 1;
		}
	}
	return a;
}

/* i, n: four columns a row. */
static int64_t deg_four(int64_t i, int64_t n)
{
	(void)i, (void)n;
	return 4;
}

/* i, n: two columns a row, and every 64th row a hub of 250. */
static int64_t deg_hubs(int64_t i, int64_t n)
{
	(void)n;
	return i % 64 == 0 ? 250 : 2;
}

/* i, n: a power-law-like spread of row lengths, 1 to 128. */
static int64_t deg_spread(int64_t i, int64_t n)
{
	(void)n;
	int64_t d = 1;
	for (int64_t x = i * 2654435761u % 1024; x > 0 && d < 128; x /= 3)
		d *= 2;
	return d;
}

/* The row-length shapes and the feature sizes the SpMM model's tests
 * rank on. */
static int64_t (*const model_degs[])(int64_t, int64_t) = { deg_four,
	deg_hubs, deg_spread };
#define N_MODEL_DEGS (sizeof(model_degs) / sizeof(model_degs[0]))
static const int64_t model_feats[] = { 32, 64, 128, 256, 512 };
#define N_MODEL_FEATS (sizeof(model_feats) / sizeof(model_feats[0]))

/* The cost model: deterministic, only candidates that apply, the
 * cheapest first; sane on the shapes of graphs: short even rows prefer
 * narrow buckets without splits, hubs a widest bucket that holds them. */
START_TEST(test_spmm_model)
{
	int n = stir_spmm_hybrid_n_candidates();
	int order[256], order2[256];
	double costs[256];
	ck_assert_int_le(n, 256);
	for (size_t g = 0; g < N_MODEL_DEGS; g++) {
		stir_csr *a = make_csr(20000, model_degs[g]);
		for (size_t f = 0; f < N_MODEL_FEATS; f++) {
			int m = stir_spmm_hybrid_model_rank(a, model_feats[f], 132,
				order, costs);
			ck_assert_int_gt(m, 0);
			ck_assert_int_le(m, n);
			int m2 = stir_spmm_hybrid_model_rank(a, model_feats[f], 132,
				order2, NULL);
			ck_assert_int_eq(m, m2);
			for (int i = 0; i < m; i++) {
				const stir_spmm_hybrid_candidate *p =
					stir_spmm_hybrid_get_candidate(order[i]);
				ck_assert_int_eq(order[i], order2[i]);
				ck_assert(stir_spmm_hybrid_fits(p, model_feats[f]));
				ck_assert(costs[i] > 0);
				if (i > 0)
					ck_assert(costs[i] >= costs[i - 1]);
			}
			/* the candidates left out do not apply */
			int fit = 0;
			for (int i = 0; i < n; i++)
				fit += stir_spmm_hybrid_fits(
					stir_spmm_hybrid_get_candidate(i), model_feats[f]);
			ck_assert_int_eq(m, fit);
			const stir_spmm_hybrid_candidate *top =
				stir_spmm_hybrid_get_candidate(order[0]);
			if (model_degs[g] == deg_four)
				/* no row split, little padding */
				ck_assert(top->buckets[0] <= 4 &&
					top->buckets[top->nb - 1] >= 4);
			if (model_degs[g] == deg_hubs) {
				/* a hub is cut into few pieces, if any */
				ck_assert_int_ge(top->buckets[top->nb - 1], 32);
			}
			/* a row's columns in warp caches (37) cost no
			 * more than every lane loading them (0, alike
			 * otherwise; faster in 81 of the 115 cases) */
			ck_assert(stir_spmm_hybrid_model_cost(
				stir_spmm_hybrid_get_candidate(37), a,
				model_feats[f], 132) <=
				stir_spmm_hybrid_model_cost(
				stir_spmm_hybrid_get_candidate(0), a,
				model_feats[f], 132));
		}
		stir_csr_free(a);
	}
	/* not for this feature size: -1 */
	for (int i = 0; i < n; i++) {
		const stir_spmm_hybrid_candidate *p =
			stir_spmm_hybrid_get_candidate(i);
		if (!stir_spmm_hybrid_fits(p, 3)) {
			stir_csr *a = make_csr(100, deg_four);
			ck_assert(stir_spmm_hybrid_model_cost(p, a, 3, 132) < 0);
			stir_csr_free(a);
			break;
		}
	}
}
END_TEST

/* i, n: the long even rows of a finite-element matrix, 64 a row. */
static int64_t deg_fem(int64_t i, int64_t n)
{
	(void)i, (void)n;
	return 64;
}

/* i, n: a power-law graph's rows: three columns, and every 1000th row a
 * hub of 5000. */
static int64_t deg_power(int64_t i, int64_t n)
{
	(void)n;
	return i % 1000 == 0 ? 5000 : 3;
}

/* The SDDMM cost model: deterministic, every candidate ranked, the
 * cheapest first, candidates that map alike tied; sane on the shapes:
 * the long even rows of a finite-element matrix go row by row (no search
 * for a row, X's row read once), a power-law graph's hubs fused over the
 * non-zeros (a hub row would hold one thread block for its whole
 * length). */
/* position of "c" in v[0 .. n-1], or -1. */
static int position(const int *v, int n, int c)
{
	for (int i = 0; i < n; i++)
		if (v[i] == c)
			return i;
	return -1;
}

/* The measured search's order: for the SpMM the model's pick first, then
 * the often-fastest list (those that apply, in its order), then the rest
 * of the model's order, so that a search its budget cuts short after one
 * candidate has timed the model's pick; the first STIR_TUNE_TOP are those
 * of the list then the model's order (the same candidates timed when the
 * budget holds); a similar graph's winner first instead; the SDDMM's the
 * model's order. */
START_TEST(test_tune_search_order)
{
	int model[256], order[256], order2[256], rows[256];
	double mcosts[256], costs[256];
	ck_assert_int_le(stir_spmm_hybrid_n_candidates(), 256);
	ck_assert_int_le(stir_sddmm_n_candidates(), 256);
	int nf = stir_spmm_hybrid_n_often_fastest();
	for (size_t g = 0; g < N_MODEL_DEGS; g++) {
		stir_csr *a = make_csr(20000, model_degs[g]);
		for (size_t f = 0; f < N_MODEL_FEATS; f++) {
			int64_t feat = model_feats[f];
			int n = stir_spmm_hybrid_model_rank(a, feat, 132, model,
				mcosts);
			ck_assert_int_gt(n, stir_tune_get_top(STIR_TUNE_SPMM));
			ck_assert_int_eq(stir_tune_get_search_order(
				STIR_TUNE_SPMM, a, feat, 132, -1, order, costs), n);
			ck_assert_int_eq(stir_tune_get_search_order(
				STIR_TUNE_SPMM, a, feat, 132, -1, order2, NULL), n);
			/* the model's pick, then the list, then the model's
			 * order; each with its cost */
			int want[256], w = 0;
			want[w++] = model[0];
			for (int i = 0; i < nf; i++) {
				int c = stir_spmm_hybrid_get_often_fastest(i);
				if (position(model, n, c) >= 0 &&
				    position(want, w, c) < 0)
					want[w++] = c;
			}
			ck_assert_int_gt(w, 1);
			/* all of them among the candidates timed by default */
			ck_assert_int_le(w, stir_tune_get_top(STIR_TUNE_SPMM));
			for (int i = 0; i < n; i++)
				if (position(want, w, model[i]) < 0)
					want[w++] = model[i];
			ck_assert_int_eq(w, n);
			for (int i = 0; i < n; i++) {
				ck_assert_int_eq(order[i], want[i]);
				ck_assert_int_eq(order2[i], want[i]);
				ck_assert(costs[i] ==
					mcosts[position(model, n, order[i])]);
			}
			/* the first STIR_TUNE_TOP: those of the list, then
			 * the model's order (259ff23's, replayed in
			 * bench/RESULTS.md) */
			int old[256], o = 0;
			for (int i = 0; i < nf; i++) {
				int c = stir_spmm_hybrid_get_often_fastest(i);
				if (position(model, n, c) >= 0)
					old[o++] = c;
			}
			for (int i = 0; i < n; i++)
				if (position(old, o, model[i]) < 0)
					old[o++] = model[i];
			for (int i = 0; i < STIR_TUNE_TOP; i++)
				ck_assert_int_ge(position(order, STIR_TUNE_TOP,
					old[i]), 0);
			/* a similar graph's winner first, then the model's
			 * order */
			int sim = model[n / 2];
			ck_assert_int_eq(stir_tune_get_search_order(
				STIR_TUNE_SPMM, a, feat, 132, sim, order, costs), n);
			ck_assert_int_eq(order[0], sim);
			for (int i = 1, j = 0; i < n; i++, j++) {
				if (model[j] == sim)
					j++;
				ck_assert_int_eq(order[i], model[j]);
			}
			/* the SDDMM by rows: the model's order */
			int m = stir_sddmm_rank(STIR_TUNE_SDDMM_ROWS, a, feat, 132,
				rows, NULL);
			ck_assert_int_gt(m, 0);
			ck_assert_int_eq(stir_tune_get_search_order(
				STIR_TUNE_SDDMM_ROWS, a, feat, 132, -1, order,
				NULL), m);
			for (int i = 0; i < m; i++)
				ck_assert_int_eq(order[i], rows[i]);
		}
		stir_csr_free(a);
	}
}
END_TEST

/* The measured search's default count: 24 for the SpMM (the model's pick,
 * the 15 often-fastest candidates, the model's next 8: bench/RESULTS.md,
 * "The tuner's list of 15, 24 timed"), 16 for the SDDMM's recipes; every
 * count at most a recipe's candidates. */
START_TEST(test_tune_top)
{
	ck_assert_int_eq(stir_tune_get_top(STIR_TUNE_SPMM), 24);
	ck_assert_int_eq(STIR_TUNE_TOP_SPMM, 24);
	ck_assert_int_le(STIR_TUNE_TOP_SPMM, stir_spmm_hybrid_n_candidates());
	stir_tune_recipe sddmm[] = { STIR_TUNE_SDDMM, STIR_TUNE_SDDMM_ROWS,
		STIR_TUNE_SDDMM_VB4, STIR_TUNE_SDDMM_VB8, STIR_TUNE_SDDMM_VB4_CSR,
		STIR_TUNE_SDDMM_VB8_CSR };
	for (size_t i = 0; i < sizeof(sddmm) / sizeof(sddmm[0]); i++)
		ck_assert_int_eq(stir_tune_get_top(sddmm[i]), STIR_TUNE_TOP);
	ck_assert_int_eq(STIR_TUNE_TOP, 16);
	ck_assert_int_le(STIR_TUNE_TOP, stir_sddmm_n_candidates());
}
END_TEST

/* i, n: a small finite-element matrix's rows, 30 to 45 columns (as
 * FIDAP_ex6's 1651 and HB_bcsstk13's 2003 rows). */
static int64_t deg_small_fem(int64_t i, int64_t n)
{
	(void)n;
	return 30 + i * 7 % 16;
}

/* The SpMM search times candidate 65 (64-thread blocks of 4 threads a row
 * with a register budget), the fastest at 32 features on the H100 on such
 * matrices (bench/RESULTS.md, "The tuner's list with candidate 65"):
 * without a similar graph's entry it is among the first STIR_TUNE_TOP
 * of the search's order at every feature size it applies to.  Since the
 * model counts the L1 hits of rows that share their columns in the
 * matrix's own order (column_share), it ranks 65 among its own first 3 at
 * 32 features (before: 14th, behind ten locality-order candidates). */
START_TEST(test_tune_search_order_long_rows)
{
	int model[256], order[256];
	stir_csr *a = make_csr(2000, deg_small_fem);
	ck_assert(stir_spmm_hybrid_fits(stir_spmm_hybrid_get_candidate(65), 32));
	for (size_t f = 0; f < N_MODEL_FEATS; f++) {
		int64_t feat = model_feats[f];
		if (!stir_spmm_hybrid_fits(stir_spmm_hybrid_get_candidate(65),
		    feat))
			continue;
		int n = stir_spmm_hybrid_model_rank(a, feat, 132, model, NULL);
		ck_assert_int_eq(stir_tune_get_search_order(STIR_TUNE_SPMM, a,
			feat, 132, -1, order, NULL), n);
		int at = position(order, n, 65);
		ck_assert_int_ge(at, 0);
		ck_assert_int_lt(at, STIR_TUNE_TOP);
		if (feat == 32)
			ck_assert_int_lt(position(model, n, 65), 3);
	}
	stir_csr_free(a);
}
END_TEST

/* The SpMM model's gathers of B cost less where neighbouring rows share
 * their columns (a banded matrix: L1 hits in its own order) than on the
 * same row lengths with no column shared: the same candidate, warp
 * caches in the matrix's order (37), at every size. */
START_TEST(test_spmm_model_column_share)
{
	stir_csr *shared = make_csr(2000, deg_small_fem);
	stir_csr *apart = make_csr(2000, deg_small_fem);
	for (int64_t i = 0; i < apart->nrows; i++)
		for (int64_t e = apart->indptr[i]; e < apart->indptr[i + 1]; e++)
			apart->indices[e] = (i * 45 + e - apart->indptr[i]) %
				apart->ncols;
	const stir_spmm_hybrid_candidate *p = stir_spmm_hybrid_get_candidate(37);
	ck_assert(!p->locality);
	for (size_t f = 0; f < N_MODEL_FEATS; f++) {
		double near = stir_spmm_hybrid_model_cost(p, shared,
			model_feats[f], 132);
		double far = stir_spmm_hybrid_model_cost(p, apart,
			model_feats[f], 132);
		ck_assert(near > 0);
		ck_assert(near < far);
	}
	stir_csr_free(shared);
	stir_csr_free(apart);
}
END_TEST

START_TEST(test_sddmm_model)
{
	int n = stir_sddmm_n_candidates();
	int order[64], order2[64];
	double costs[64];
	ck_assert_int_le(n, 64);
	int64_t feats[] = { 32, 64, 128, 256, 512 };
	stir_csr *fem = make_csr(8000, deg_fem);
	stir_csr *power = make_csr(20000, deg_power);
	for (size_t f = 0; f < sizeof(feats) / sizeof(feats[0]); f++) {
		for (int g = 0; g < 2; g++) {
			stir_csr *a = g ? power : fem;
			int m = stir_sddmm_model_rank(a, feats[f], 132, order,
				costs);
			ck_assert_int_eq(m, n);
			ck_assert_int_eq(stir_sddmm_model_rank(a, feats[f], 132,
				order2, NULL), n);
			for (int i = 0; i < m; i++) {
				ck_assert_int_eq(order[i], order2[i]);
				ck_assert(costs[i] > 0);
				ck_assert(costs[i] == stir_sddmm_model_cost(
					stir_sddmm_get_candidate(order[i]), a,
					feats[f], 132));
				if (i > 0)
					ck_assert(costs[i] >= costs[i - 1]);
			}
			ck_assert(stir_sddmm_get_candidate(order[0])->rows == !g);
		}
	}
	/* unusable: -1 */
	ck_assert(stir_sddmm_model_cost(NULL, fem, 32, 132) < 0);
	ck_assert(stir_sddmm_model_cost(stir_sddmm_get_candidate(0), fem, 0,
		132) < 0);
	stir_csr_free(fem);
	stir_csr_free(power);
}
END_TEST

/* i, n: four columns a row but row 0, three. */
static int64_t deg_four_but_one(int64_t i, int64_t n)
{
	(void)n;
	return i == 0 ? 3 : 4;
}

/* Matrix signatures: the histogram's buckets, equality at tolerance 0,
 * a graph one non-zero apart alike within a tolerance and not at 0,
 * graphs of other shapes not alike. */
START_TEST(test_matrix_sig)
{
	stir_matrix_sig s4, s4b, shub, sspread;
	stir_csr *a = make_csr(20000, deg_four);
	stir_csr_get_sig(a, &s4);
	ck_assert_int_eq(s4.rows, 20000);
	ck_assert_int_eq(s4.cols, 20000);
	ck_assert_int_eq(s4.nnz, 80000);
	ck_assert_int_eq(s4.hist[3], 20000);   /* 4 .. 7 columns */
	ck_assert(stir_matrix_sig_is_similar(&s4, &s4, 0));
	stir_csr_free(a);
	/* row 0 one column shorter: 3 columns, in bucket 2 */
	a = make_csr(20000, deg_four_but_one);
	stir_csr_get_sig(a, &s4b);
	ck_assert_int_eq(s4b.hist[2], 1);
	ck_assert_int_eq(s4b.hist[3], 19999);
	ck_assert(!stir_matrix_sig_is_similar(&s4, &s4b, 0));
	ck_assert_int_eq(s4b.nnz, 79999);
	ck_assert(stir_matrix_sig_is_similar(&s4, &s4b, 0.01));
	stir_csr_free(a);
	a = make_csr(20000, deg_hubs);
	stir_csr_get_sig(a, &shub);
	stir_csr_free(a);
	a = make_csr(20000, deg_spread);
	stir_csr_get_sig(a, &sspread);
	stir_csr_free(a);
	ck_assert_int_eq(shub.hist[2] + shub.hist[8], 20000);
	ck_assert(!stir_matrix_sig_is_similar(&s4, &shub, 0.1));
	ck_assert(!stir_matrix_sig_is_similar(&shub, &sspread, 0.1));
	ck_assert(!stir_matrix_sig_is_similar(&s4, &sspread, 0.1));
}
END_TEST

/* The suite. */
/* One recipe candidate for test_print_schedule: which recipe, and its
 * parameters (the hybrid's candidate index, or the SDDMM's lanes). */
typedef struct print_case {
	int recipe;             /* 0 hybrid SpMM, 1 CSR SpMM, 2 SDDMM fused,
	                           3 SDDMM rows */
	int index;              /* hybrid: candidate; SDDMM: max lanes */
} print_case;

/* c, feat, ctx, m, log: kernel of case c at "feat" features read into
 * *m and scheduled by its recipe, with the schedule log on when "log". */
static stir_kernel *recipe_kernel(print_case c, int64_t feat, stir_ctx *ctx,
	stir_module **m, bool log)
{
	static const char *const files[] = { "examples/csrmm.stir",
		"examples/csrmm.stir", "examples/sddmm.stir",
		"examples/sddmm_rows.stir" };
	static const char *const names[] = { "csrmm", "csrmm", "sddmm",
		"sddmm_rows" };
	stir_kernel *k = read_kernel(ctx, files[c.recipe], names[c.recipe], m);
	if (!log)
		return k;
	stir_kernel_set_schedule_log(k, true);
	const stir_spmm_hybrid_candidate *p = stir_spmm_hybrid_get_candidate(
		c.index);
	int rc = c.recipe == 0 ? stir_recipe_spmm_hybrid(k, p->c, p->nb,
			p->buckets, stir_spmm_hybrid_map(p, feat)) :
		c.recipe == 1 ? stir_recipe_spmm_csr(k,
			stir_spmm_map_features(feat)) :
		c.recipe == 2 ? stir_recipe_sddmm(k,
			stir_sddmm_map_lanes(feat, c.index)) :
		stir_recipe_sddmm_rows(k, stir_sddmm_map_lanes(feat, c.index));
	if (rc < 0)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_int_eq(rc, 0);
	return k;
}

/* A recipe prints as a schedule file (stir_kernel_print_schedule) that,
 * applied to the same program, makes the same stage III kernel and the
 * same CUDA: hybrid SpMM candidates with different bucket sets, column
 * partitions and mappings, the CSR SpMM, the SDDMM fused and by rows, at
 * two feature sizes. */
START_TEST(test_print_schedule)
{
	print_case cases[16];
	int n = 0, nh = stir_spmm_hybrid_n_candidates();
	/* hybrid candidates spread over the space (several bucket sets,
	 * c > 1, grouped and serial rows when the space has them) */
	for (int i = 0; i < nh && n < 8; i += nh / 8 > 0 ? nh / 8 : 1)
		cases[n++] = (print_case){ 0, i };
	cases[n++] = (print_case){ 1, 0 };
	cases[n++] = (print_case){ 2, 32 };
	cases[n++] = (print_case){ 2, 4 };
	cases[n++] = (print_case){ 3, 32 };
	cases[n++] = (print_case){ 3, 8 };
	static const int64_t feats[] = { 32, 128 };
	int checked = 0;
	for (int f = 0; f < 2; f++)
		for (int i = 0; i < n; i++) {
			if (cases[i].recipe == 0 && !stir_spmm_hybrid_fits(
			    stir_spmm_hybrid_get_candidate(cases[i].index), feats[f]))
				continue;
			stir_ctx *ctx = stir_ctx_alloc();
			stir_module *m, *m2;
			stir_kernel *k = recipe_kernel(cases[i], feats[f], ctx, &m,
				true);
			size_t len = 0;
			char *text = stir_kernel_schedule_to_str(k, &len);
			ck_assert_ptr_nonnull(text);
			ck_assert_uint_eq(len, strlen(text));
			char *ir = stir_kernel_to_str(k), *cuda = stir_kernel_to_cuda(k);
			ck_assert_ptr_nonnull(ir);
			ck_assert_ptr_nonnull(cuda);
			/* the file, applied to the program read again */
			stir_kernel *k2 = recipe_kernel(cases[i], feats[f], ctx, &m2,
				false);
			stir_schedule *s = stir_schedule_read_from_mem(ctx,
				"printed.yaml", text, len);
			if (!s || stir_schedule_prepare_for_gpu(s, k2) < 0) {
				fprintf(stderr, "case %d/%d at %lld:\n%s", cases[i].recipe,
					cases[i].index, (long long)feats[f], text);
				stir_ctx_print_diagnostics(ctx, stderr);
			}
			ck_assert_ptr_nonnull(s);
			ck_assert_ptr_eq(stir_schedule_find_kernel(s, m2), k2);
			char *ir2 = stir_kernel_to_str(k2);
			char *cuda2 = stir_kernel_to_cuda(k2);
			ck_assert_str_eq(ir2, ir);
			ck_assert_str_eq(cuda2, cuda);
			checked++;
			free(ir);
			free(ir2);
			free(cuda);
			free(cuda2);
			free(text);
			stir_schedule_free(s);
			stir_module_free(m2);
			stir_module_free(m);
			stir_ctx_free(ctx);
		}
	/* the five non-hybrid cases apply at both sizes, and some hybrid ones */
	ck_assert_int_gt(checked, 10);
}
END_TEST

/* The tuner's candidates print as schedule files with what the recipe's
 * parameters say beyond the primitives: a hybrid SpMM candidate's blocks
 * per SM (min_blocks_per_sm, in __launch_bounds__) and an SDDMM
 * candidate's threads per block; applied to the program read again, the
 * file makes the same stage III kernel and the same CUDA. */
/* Each SpMM candidate's schedule file says its row order: the hybrid rule
 * with locality_order exactly for the candidates that have it. */
START_TEST(test_candidate_locality)
{
	int seen[2] = { 0, 0 };
	for (int i = 0; i < stir_spmm_hybrid_n_candidates(); i++) {
		const stir_spmm_hybrid_candidate *p = stir_spmm_hybrid_get_candidate(i);
		if (!stir_spmm_hybrid_fits(p, 64) || seen[p->locality] >= 2)
			continue;
		seen[p->locality]++;
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m;
		stir_kernel *k = read_kernel(ctx, "examples/csrmm.stir", "csrmm", &m);
		ck_assert_int_eq(stir_tune_apply_candidate(k, 64, i), 0);
		char *text = stir_kernel_schedule_to_str(k, NULL);
		ck_assert_ptr_nonnull(text);
		ck_assert_int_eq(strstr(text, ", locality_order: true}}]}") != NULL,
			p->locality);
		free(text);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
	ck_assert_int_eq(seen[0], 2);
	ck_assert_int_eq(seen[1], 2);
}
END_TEST

START_TEST(test_tune_candidate_file)
{
	int spmm = -1, sddmm = -1;
	for (int i = 0; i < stir_spmm_hybrid_n_candidates() && spmm < 0; i++)
		if (stir_spmm_hybrid_get_candidate(i)->min_blocks == 4 &&
		    stir_spmm_hybrid_fits(stir_spmm_hybrid_get_candidate(i), 64))
			spmm = i;
	for (int i = 0; i < stir_sddmm_n_candidates() && sddmm < 0; i++)
		if (stir_sddmm_get_candidate(i)->threads == 64 &&
		    stir_sddmm_get_candidate(i)->rows)
			sddmm = i;
	ck_assert_int_ge(spmm, 0);
	ck_assert_int_ge(sddmm, 0);
	const char *files[] = { "examples/csrmm.stir",
		"examples/sddmm_rows.stir" };
	const char *names[] = { "csrmm", "sddmm_rows" };
	const int cands[] = { spmm, sddmm };
	for (int t = 0; t < 2; t++) {
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m, *m2;
		stir_kernel *k = read_kernel(ctx, files[t], names[t], &m);
		ck_assert_int_eq(stir_tune_apply_candidate(k, 64, cands[t]), 0);
		size_t len = 0;
		char *text = stir_kernel_schedule_to_str(k, &len);
		ck_assert_ptr_nonnull(text);
		char *ir = stir_kernel_to_str(k), *cuda = stir_kernel_to_cuda(k);
		if (t == 0) {
			ck_assert_ptr_nonnull(strstr(text, "\nmin_blocks_per_sm: 4\n"));
			ck_assert_ptr_nonnull(strstr(cuda, "__launch_bounds__(256, 4)"));
			/* the rule says the candidate's row order */
			ck_assert(!strstr(text, "locality_order: true") ==
				!stir_spmm_hybrid_get_candidate(spmm)->locality);
		} else {
			ck_assert_ptr_null(strstr(text, "min_blocks_per_sm"));
			ck_assert_ptr_nonnull(strstr(cuda, "__launch_bounds__(64)"));
			ck_assert_ptr_null(strstr(cuda, "__launch_bounds__(256"));
		}
		stir_kernel *k2 = read_kernel(ctx, files[t], names[t], &m2);
		stir_schedule *s = stir_schedule_read_from_mem(ctx, "tuned.yaml",
			text, len);
		ck_assert_ptr_nonnull(s);
		ck_assert_int_eq(stir_schedule_prepare_for_gpu(s, k2), 0);
		char *ir2 = stir_kernel_to_str(k2), *cuda2 = stir_kernel_to_cuda(k2);
		ck_assert_str_eq(ir2, ir);
		ck_assert_str_eq(cuda2, cuda);
		free(ir);
		free(ir2);
		free(cuda);
		free(cuda2);
		free(text);
		stir_schedule_free(s);
		stir_module_free(m2);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
}
END_TEST

/* The measured search (codegen/tune.c) compiles the kernel a recipe made
 * and builds its inputs from the schedule file it printed: for every
 * candidate of every recipe, the kernel that file gives, read back and
 * applied as `stirc run --schedule` applies it, emits the same CUDA. */
START_TEST(test_tune_candidates_read_back)
{
	const char *files[] = { "examples/csrmm.stir", "examples/sddmm.stir",
		"examples/sddmm_rows.stir" };
	const char *names[] = { "csrmm", "sddmm", "sddmm_rows" };
	const int64_t feats[] = { 64, 32, 32 };
	int checked = 0;
	for (int t = 0; t < 3; t++) {
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m;
		stir_kernel *k = read_kernel(ctx, files[t], names[t], &m);
		stir_tune_recipe r = stir_kernel_get_tune_recipe(k);
		int n = r == STIR_TUNE_SPMM ? stir_spmm_hybrid_n_candidates() :
			stir_sddmm_n_candidates();
		for (int i = 0; i < n; i++) {
			if (r == STIR_TUNE_SPMM ? !stir_spmm_hybrid_fits(
			    stir_spmm_hybrid_get_candidate(i), feats[t]) :
			    stir_sddmm_get_candidate(i)->rows !=
			    (r == STIR_TUNE_SDDMM_ROWS))
				continue;
			stir_module *m1, *m2;
			stir_kernel *k1 = stir_kernel_copy(k, &m1);
			ck_assert_int_eq(stir_tune_apply_candidate(k1, feats[t], i), 0);
			size_t len = 0;
			char *text = stir_kernel_schedule_to_str(k1, &len);
			ck_assert_ptr_nonnull(text);
			stir_kernel *k2 = stir_kernel_copy(k, &m2);
			stir_schedule *s = stir_schedule_read_from_mem(ctx,
				"tuned.yaml", text, len);
			ck_assert_ptr_nonnull(s);
			ck_assert_int_eq(stir_schedule_prepare_for_gpu(s, k2), 0);
			char *c1 = stir_kernel_to_cuda(k1), *c2 = stir_kernel_to_cuda(k2);
			ck_assert_ptr_nonnull(c1);
			ck_assert_str_eq(c2, c1);
			checked++;
			free(c1);
			free(c2);
			free(text);
			stir_schedule_free(s);
			stir_module_free(m1);
			stir_module_free(m2);
		}
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
	ck_assert_int_ge(checked, 40);
}
END_TEST

/* ctx, what: whether ctx's diagnostics mention "what". */
static bool diagnosed(stir_ctx *ctx, const char *what)
{
	char *d = stir_ctx_diagnostics_to_str(ctx);
	bool has = d && strstr(d, what);
	free(d);
	return has;
}

/* stir_tune (include/stir/tune.h) without a GPU: the model's pick as a
 * schedule file that applies to the program, the same as
 * stir_tune_model_apply's; stored, then a record hit with the same text;
 * no_record and another program text miss; the SDDMM by rows; bad calls
 * refused with diagnostics, the measured search without a driver too. */
START_TEST(test_tune_api)
{
	char dir[] = "/tmp/stir-tune-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m, *m2, *cm = NULL;
	stir_kernel *k = read_kernel(ctx, "examples/csrmm.stir", "csrmm", &m);
	stir_csr *a = stir_mtx_read_from_file(ctx,
		test_path("examples/data/cora.mtx.gz"));
	ck_assert_ptr_nonnull(a);
	char *before = stir_kernel_to_str(k);

	/* the model's pick, as stir_tune_model_apply schedules it */
	stir_kernel *c = stir_kernel_copy(k, &cm);
	int cand = -1;
	double cost = 0;
	ck_assert_int_eq(stir_tune_model_apply(c, a, 64, 0, &cand, &cost), 0);
	size_t want_len = 0;
	char *want = stir_kernel_schedule_to_str(c, &want_len);
	ck_assert_ptr_nonnull(want);

	stir_tune_options opt = { .feat = 64, .model_only = true,
		.cache_dir = dir };
	stir_tune_result r;
	ck_assert_int_eq(stir_tune(ctx, k, a, &opt, &r), 0);
	ck_assert_int_eq(r.from, STIR_TUNE_FROM_MODEL);
	ck_assert_int_eq(r.cand, cand);
	ck_assert(r.cost == cost);
	ck_assert(r.time_ms < 0);
	ck_assert_uint_eq(r.schedule_len, want_len);
	ck_assert_str_eq(r.schedule, want);
	ck_assert_str_eq(r.key.device, "model-sms132");
	ck_assert_str_eq(r.key.how, "model");
	ck_assert_int_eq(r.key.feat, 64);
	ck_assert_int_eq(r.n_timed, 0);
	/* the program is not changed; the schedule applies to it */
	char *after = stir_kernel_to_str(k);
	ck_assert_str_eq(after, before);
	free(after);
	stir_kernel *k2 = read_kernel(ctx, "examples/csrmm.stir", "csrmm", &m2);
	stir_schedule *s = stir_schedule_read_from_mem(ctx, "tuned.yaml",
		r.schedule, r.schedule_len);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_schedule_prepare_for_gpu(s, k2), 0);
	stir_schedule_free(s);
	stir_module_free(m2);
	stir_tune_result_clear(&r);
	ck_assert_ptr_null(r.schedule);

	/* a record hit: the same schedule */
	ck_assert_int_eq(stir_tune(ctx, k, a, &opt, &r), 0);
	ck_assert_int_eq(r.from, STIR_TUNE_FROM_RECORD);
	ck_assert_int_eq(r.cand, cand);
	ck_assert_str_eq(r.schedule, want);
	stir_tune_result_clear(&r);
	/* without the record, and for another program's text: misses */
	opt.no_record = true;
	ck_assert_int_eq(stir_tune(ctx, k, a, &opt, &r), 0);
	ck_assert_int_eq(r.from, STIR_TUNE_FROM_MODEL);
	stir_tune_result_clear(&r);
	opt.no_record = false;
	opt.program_text = "another program";
	ck_assert_int_eq(stir_tune(ctx, k, a, &opt, &r), 0);
	ck_assert_int_eq(r.from, STIR_TUNE_FROM_MODEL);
	ck_assert_str_eq(r.schedule, want);
	stir_tune_result_clear(&r);
	ck_assert_int_eq(stir_tune(ctx, k, a, &opt, &r), 0);
	ck_assert_int_eq(r.from, STIR_TUNE_FROM_RECORD);
	stir_tune_result_clear(&r);
	opt.program_text = NULL;
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);

	/* bad calls */
	opt.feat = 0;
	ck_assert_int_eq(stir_tune(ctx, k, a, &opt, &r), -1);
	ck_assert(diagnosed(ctx, "the feature size must be at least 1"));
	opt.feat = 64;
	opt.model_only = false;
	ck_assert_int_eq(setenv("STIR_LIBCUDA", "/nonexistent/libcuda.so.1", 1),
		0);
	ck_assert_int_eq(stir_tune(ctx, k, a, &opt, &r), -1);
	ck_assert(diagnosed(ctx, "the measured search needs a GPU"));
	ck_assert_ptr_null(r.schedule);
	opt.model_only = true;
	stir_module *mb;
	stir_kernel *kb = read_kernel(ctx, "examples/csr_softmax.stir",
		"csr_softmax", &mb);
	ck_assert_int_eq(stir_tune(ctx, kb, a, &opt, &r), -1);
	ck_assert(diagnosed(ctx, "no recipe covers kernel 'csr_softmax'"));
	stir_module_free(mb);

	/* the SDDMM by rows at 32 features */
	stir_module *md;
	stir_kernel *kd = read_kernel(ctx, "examples/sddmm_rows.stir",
		"sddmm_rows", &md);
	opt.feat = 32;
	stir_ctx *dctx = stir_ctx_alloc();
	ck_assert_int_eq(stir_tune(dctx, kd, a, &opt, &r), 0);
	ck_assert_int_eq(r.from, STIR_TUNE_FROM_MODEL);
	ck_assert_int_eq(r.key.recipe, STIR_TUNE_SDDMM_ROWS);
	ck_assert(stir_sddmm_get_candidate(r.cand)->rows);
	ck_assert_ptr_nonnull(strstr(r.schedule, "kernel: sddmm_rows"));
	stir_tune_result_clear(&r);
	stir_ctx_free(dctx);
	stir_module_free(md);

	free(want);
	free(before);
	stir_module_free(cm);
	stir_csr_free(a);
	stir_module_free(m);
	stir_ctx_free(ctx);
	char cmd[100];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The search draws the dense operands once and swaps the candidates'
 * formats in the same bindings (codegen/tune.c, bind_candidate_formats):
 * the arrays bound after the shared ones removed, another candidate's
 * format bound, the bindings hold exactly what a fresh binding of that
 * candidate holds (the sizes the other format left behind aside). */
START_TEST(test_tune_swap_formats)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_kernel(ctx, "examples/csrmm.stir", "csrmm", &m);
	stir_csr *a = stir_mtx_read_from_file(ctx,
		test_path("tests/data/graphs/small.mtx"));
	ck_assert_ptr_nonnull(a);
	/* two candidates of different formats at 32 features */
	int c1 = -1, c2 = -1;
	for (int i = 0; i < stir_spmm_hybrid_n_candidates() && c2 < 0; i++) {
		const stir_spmm_hybrid_candidate *p = stir_spmm_hybrid_get_candidate(i);
		if (!stir_spmm_hybrid_fits(p, 32))
			continue;
		if (c1 < 0 && p->nb >= 4 && p->c == 1)
			c1 = i;
		else if (c1 >= 0 && p->nb != stir_spmm_hybrid_get_candidate(c1)->nb)
			c2 = i;
	}
	ck_assert_int_ge(c2, 0);
	stir_schedule *s[2];
	const int cands[2] = { c1, c2 };
	for (int t = 0; t < 2; t++) {
		stir_module *cm;
		stir_kernel *c = stir_kernel_copy(k, &cm);
		ck_assert_int_eq(stir_tune_apply_candidate(c, 32, cands[t]), 0);
		size_t len = 0;
		char *text = stir_kernel_schedule_to_str(c, &len);
		ck_assert_ptr_nonnull(text);
		s[t] = stir_schedule_read_from_mem(ctx, "c.yaml", text, len);
		ck_assert_ptr_nonnull(s[t]);
		free(text);
		stir_module_free(cm);
	}
	stir_bindings *b[2];
	for (int t = 0; t < 2; t++) {
		b[t] = stir_bindings_alloc();
		ck_assert_int_eq(stir_bindings_set_size(b[t], "feat", 32), 0);
		ck_assert_int_eq(stir_kernel_bind_csr(k, b[t], "A", a), 0);
		ck_assert_int_eq(stir_kernel_bind_random(k, b[t], 1), 0);
		ck_assert_int_eq(stir_kernel_bind_outputs(k, b[t]), 0);
	}
	int n0 = stir_bindings_n_arrays(b[0]);
	/* b[0]: c1's format, removed, then c2's; b[1]: c2's alone */
	ck_assert_int_eq(stir_schedule_bind_formats(s[0], k, b[0]), 0);
	ck_assert_int_gt(stir_bindings_n_arrays(b[0]), n0);
	while (stir_bindings_n_arrays(b[0]) > n0) {
		char *name = strdup(stir_bindings_get_array_name(b[0],
			stir_bindings_n_arrays(b[0]) - 1));
		stir_bindings_remove_array(b[0], name);
		free(name);
	}
	ck_assert_int_eq(stir_schedule_bind_formats(s[1], k, b[0]), 0);
	ck_assert_int_eq(stir_schedule_bind_formats(s[1], k, b[1]), 0);
	ck_assert_int_eq(stir_bindings_n_arrays(b[0]),
		stir_bindings_n_arrays(b[1]));
	for (int i = 0; i < stir_bindings_n_arrays(b[1]); i++) {
		const char *name = stir_bindings_get_array_name(b[1], i);
		const stir_array *x = stir_bindings_get_array(b[0], name);
		ck_assert_msg(x != NULL, "%s missing", name);
		ck_assert_int_eq(stir_array_compare(x,
			stir_bindings_get_array(b[1], name), NULL, NULL), 0);
	}
	for (int i = 0; i < stir_bindings_n_sizes(b[1]); i++) {
		const char *name = stir_bindings_get_size_name(b[1], i);
		int64_t v0, v1;
		ck_assert(stir_bindings_get_size(b[0], name, &v0));
		stir_bindings_get_size(b[1], name, &v1);
		ck_assert_int_eq(v0, v1);
	}
	/* c2's kernel at stage III takes the swapped binding (the sizes c1's
	 * format left behind do not matter) and computes what it computes
	 * on the fresh one */
	stir_module *m2;
	stir_kernel *k2 = stir_kernel_copy(k, &m2);
	ck_assert_int_eq(stir_tune_apply_candidate(k2, 32, c2), 0);
	for (int t = 0; t < 2; t++) {
		ck_assert_int_eq(stir_kernel_verify_bindings(k2, b[t]), 0);
		ck_assert_int_eq(stir_kernel_interpret(k2, b[t]), 0);
	}
	ck_assert_int_eq(stir_array_compare(stir_bindings_get_array(b[0], "C"),
		stir_bindings_get_array(b[1], "C"), NULL, NULL), 0);
	stir_module_free(m2);
	for (int t = 0; t < 2; t++) {
		stir_bindings_free(b[t]);
		stir_schedule_free(s[t]);
	}
	stir_csr_free(a);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* dir: the compiled kernels in kernel cache "dir". */
static int kernels_cached(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d)); )
		n += strlen(e->d_name) > 3 &&
			!strcmp(e->d_name + strlen(e->d_name) - 3, ".kc");
	if (d)
		closedir(d);
	return n;
}

/* The measured search on the fake driver of the tests (which runs no
 * NVRTC code, so that the search stops, with diagnostics, when it loads
 * the first candidate): its candidates scheduled on threads, each on the
 * program read from its text, are compiled by NVRTC into the kernel
 * cache; scheduled one after another on copies of the program (also when
 * the text given is not the program's), they are the same kernels, found
 * in the cache.  Skipped without NVRTC. */
START_TEST(test_tune_search_fake)
{
	const char *b = getenv("STIR_BUILDDIR");
	char fake[4096], file[4096];
	snprintf(fake, sizeof(fake), "%s/tests/.libs/libfakecuda.so",
		b ? b : ".");
	if (!stir_nvrtc_is_available() || access(fake, R_OK) != 0)
		return;
	ck_assert_int_eq(setenv("STIR_LIBCUDA", fake, 1), 0);
	ck_assert_int_eq(unsetenv("STIR_NO_CACHE"), 0);
	char dir[] = "/tmp/stir-tune-fake-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	snprintf(file, sizeof(file), "%s", test_path("examples/csrmm.stir"));
	stir_kernel *k = read_kernel(ctx, "examples/csrmm.stir", "csrmm", &m);
	stir_csr *a = stir_mtx_read_from_file(ctx,
		test_path("examples/data/cora.mtx.gz"));
	ck_assert_ptr_nonnull(a);
	char *text = NULL;
	size_t len = 0;
	FILE *in = fopen(file, "r"), *mf = open_memstream(&text, &len);
	for (int ch; (ch = getc(in)) != EOF; )
		putc(ch, mf);
	fclose(in);
	fclose(mf);
	stir_tune_options opt = { .feat = 16, .top = 2, .no_record = true,
		.cache_dir = dir, .program_text = text, .program_file = file };
	stir_tune_result r;
	/* threads, copies, and a text that is not the program (the copies) */
	for (int seq = 0; seq < 3; seq++) {
		if (seq == 1)
			opt.program_file = NULL;
		if (seq == 2) {
			opt.program_file = file;
			opt.program_text = "kernel csrmm() {}";
		}
		ck_assert_int_eq(stir_tune(ctx, k, a, &opt, &r), -1);
		ck_assert_ptr_null(r.schedule);
		ck_assert(diagnosed(ctx, "has no kernel"));
		ck_assert_int_eq(kernels_cached(dir), 2);
		stir_ctx_clear_diagnostics(ctx);
	}
	/* an RGMS program on a relational graph: its rules' first two */
	stir_module *mg;
	stir_kernel *kg = read_kernel(ctx, "examples/rgms_agg.stir", "rgms_agg",
		&mg);
	stir_hetero *g = stir_hetero_read_from_file(ctx,
		test_path("tests/data/graphs/small.hetero"));
	ck_assert_ptr_nonnull(g);
	opt.program_text = NULL;
	opt.program_file = NULL;
	ck_assert_int_eq(stir_tune_hetero(ctx, kg, g, &opt, &r), -1);
	ck_assert(diagnosed(ctx, "has no kernel"));
	ck_assert_int_eq(kernels_cached(dir), 4);
	stir_hetero_free(g);
	stir_module_free(mg);
	free(text);
	stir_csr_free(a);
	stir_module_free(m);
	stir_ctx_free(ctx);
	char cmd[100];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A record hit on the fake driver: stir_tune finds the measured entry
 * of the device it would search on by the device's name alone, without
 * making its context (the few tenths of a second a record hit must not
 * spend); a miss still opens it for the search. */
START_TEST(test_tune_record_hit_fake)
{
	const char *b = getenv("STIR_BUILDDIR");
	char fake[4096];
	snprintf(fake, sizeof(fake), "%s/tests/.libs/libfakecuda.so",
		b ? b : ".");
	if (access(fake, R_OK) != 0)
		return;
	ck_assert_int_eq(setenv("STIR_LIBCUDA", fake, 1), 0);
	char dir[] = "/tmp/stir-tune-hit-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_kernel(ctx, "examples/sddmm_rows.stir",
		"sddmm_rows", &m);
	stir_csr *a = stir_mtx_read_from_file(ctx,
		test_path("examples/data/cora.mtx.gz"));
	ck_assert_ptr_nonnull(a);
	char name[64];
	ck_assert_int_eq(stir_ctx_get_device_name(ctx, 0, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "Fake CUDA Device");
	ck_assert_int_eq(stir_ctx_get_device_name(ctx, 1, name, sizeof(name)), -1);
	stir_ctx_clear_diagnostics(ctx);
	void *h = dlopen(fake, RTLD_NOW | RTLD_NOLOAD);
	ck_assert_ptr_nonnull(h);
	void *p = dlsym(h, "fake_cuda_stats_get");
	ck_assert_ptr_nonnull(p);
	fake_cuda_stats *(*get)(void);
	memcpy(&get, &p, sizeof(p));
	dlclose(h);
	/* the entry a measured search on this device would store: the key
	 * of the opened device, candidate 22 (X from global memory) */
	stir_tune_options opt = { .feat = 32, .cache_dir = dir };
	stir_device *dev = stir_device_alloc(ctx, 0);
	ck_assert_ptr_nonnull(dev);
	stir_tune_entry e;
	ck_assert_int_eq(stir_kernel_get_tune_key(k, a, &opt, dev, &e), 0);
	stir_device_free(dev);
	ck_assert_str_eq(e.device, "Fake_CUDA_Device");
	e.cand = 22;
	e.cost = 1;
	e.time_ms = 0.01;
	snprintf(e.how, sizeof(e.how), "measured");
	ck_assert_int_eq(stir_tune_record_store(ctx, dir, &e), 0);
	int retains = get()->primary_retains;
	stir_tune_result r;
	ck_assert_int_eq(stir_tune(ctx, k, a, &opt, &r), 0);
	ck_assert_int_eq(r.from, STIR_TUNE_FROM_RECORD);
	ck_assert_int_eq(r.cand, 22);
	ck_assert(r.time_ms == 0.01);
	ck_assert_ptr_null(strstr(r.schedule, "scope: shared"));
	ck_assert_int_eq(get()->primary_retains, retains);
	stir_tune_result_clear(&r);
	/* another feature size misses: the search opens the device (and
	 * stops at the fake's first load, or without NVRTC at compiling) */
	opt.feat = 16;
	opt.no_record = true;
	ck_assert_int_eq(stir_tune(ctx, k, a, &opt, &r), -1);
	ck_assert_int_eq(get()->primary_retains, retains + 1);
	ck_assert_int_eq(get()->primary_refs, 0);
	stir_csr_free(a);
	stir_module_free(m);
	stir_ctx_free(ctx);
	char cmd[100];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* i, n: 1 to n columns a row, in no order along the rows (windows of 8
 * rows over 1 to 3 groups of 16 columns). */
static int64_t deg_tiles(int64_t i, int64_t n)
{
	return (i * 13) % n + 1;
}

/* k, p, feat: the BSR recipe's candidate p (same_as_file's apply). */
static int recipe_bsr(stir_kernel *k, const void *p, int64_t feat)
{
	return stir_recipe_bsr_tc_candidate(k, p, feat);
}

/* k, p, feat: the RGMS recipe's candidate p (same_as_file's apply). */
static int recipe_rgms(stir_kernel *k, const void *p, int64_t feat)
{
	return stir_recipe_rgms_tc_candidate(k, p, feat);
}

/* k, p, feat: the CUDA-core RGMS recipe's candidate p (same_as_file's
 * apply). */
static int recipe_rgms_cuda(stir_kernel *k, const void *p, int64_t feat)
{
	return stir_recipe_rgms_candidate(k, p, feat);
}

/* k, p, feat: the edge-by-edge RGMS recipe's candidate p (same_as_file's
 * apply). */
static int recipe_rgms_edge(stir_kernel *k, const void *p, int64_t feat)
{
	return stir_recipe_rgms_edge_candidate(k, p, feat);
}

/* k, p, feat: the SR-BCRS recipe's candidate p (same_as_file's apply). */
static int recipe_srbcrs(stir_kernel *k, const void *p, int64_t feat)
{
	return stir_recipe_srbcrs_tc_candidate(k, p, feat);
}

/* prog, kernel, file, feat, apply, p: kernel "kernel" of program prog
 * scheduled by apply(k, p, feat) gives the same stage III kernel and CUDA
 * as schedule file "file" on the kernel specialized to feat (feat < 0:
 * as it is, the file specializing it), and so does its schedule log read
 * back and applied. */
static void same_as_file(const char *prog, const char *kernel,
	const char *file, int64_t feat,
	int (*apply)(stir_kernel *, const void *, int64_t), const void *p)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m1 = stir_module_read_from_file(ctx, test_path(prog));
	stir_module *m2 = stir_module_read_from_file(ctx, test_path(prog));
	stir_module *m3 = stir_module_read_from_file(ctx, test_path(prog));
	ck_assert(m1 && m2 && m3);
	stir_kernel *k1 = stir_module_find_kernel(m1, kernel);
	stir_kernel *k2 = stir_module_find_kernel(m2, kernel);
	stir_kernel *k3 = stir_module_find_kernel(m3, kernel);
	stir_schedule *s = stir_schedule_read_from_file(ctx, test_path(file));
	ck_assert_ptr_nonnull(s);
	if (feat >= 0)
		ck_assert_int_eq(stir_specialize(k1, "feat", feat), 0);
	ck_assert_int_eq(stir_schedule_prepare_for_gpu(s, k1), 0);
	stir_kernel_set_schedule_log(k2, true);
	ck_assert_int_eq(apply(k2, p, feat < 0 ? -feat : feat), 0);
	size_t len = 0;
	char *text = stir_kernel_schedule_to_str(k2, &len);
	ck_assert_ptr_nonnull(text);
	stir_schedule *s3 = stir_schedule_read_from_mem(ctx, "printed.yaml",
		text, len);
	ck_assert_ptr_nonnull(s3);
	ck_assert_int_eq(stir_schedule_prepare_for_gpu(s3, k3), 0);
	char *ir1 = stir_kernel_to_str(k1), *ir2 = stir_kernel_to_str(k2);
	char *cu1 = stir_kernel_to_cuda(k1), *cu2 = stir_kernel_to_cuda(k2);
	char *cu3 = stir_kernel_to_cuda(k3);
	ck_assert_str_eq(ir2, ir1);
	ck_assert_str_eq(cu2, cu1);
	ck_assert_str_eq(cu3, cu1);
	free(ir1);
	free(ir2);
	free(cu1);
	free(cu2);
	free(cu3);
	free(text);
	stir_schedule_free(s);
	stir_schedule_free(s3);
	stir_module_free(m1);
	stir_module_free(m2);
	stir_module_free(m3);
	stir_ctx_free(ctx);
}

/* name, apply, prog, kernel, unfit, feat, other, other_kernel, fit:
 * recipe "name" (applied by apply) refuses candidate unfit at feat
 * features and no candidate on kernel "kernel" of prog, each with its
 * message in the kernel's context, and candidate fit on kernel
 * other_kernel of program "other", which it is not for, with an error. */
static void refusals(const char *name,
	int (*apply)(stir_kernel *, const void *, int64_t), const char *prog,
	const char *kernel, const void *unfit, int64_t feat, const char *other,
	const char *other_kernel, const void *fit)
{
	char said[300];
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx, test_path(prog));
	stir_kernel *k = stir_module_find_kernel(m, kernel);
	ck_assert_int_eq(apply(k, unfit, feat), -1);
	snprintf(said, sizeof(said), "%s: the candidate does not apply to "
		"kernel '%s' at %lld features", name, kernel, (long long)feat);
	ck_assert(test_said(ctx, said));
	ck_assert_int_eq(apply(k, NULL, 64), -1);
	snprintf(said, sizeof(said), "no candidate for kernel '%s'", kernel);
	ck_assert(test_said(ctx, said));
	stir_module_free(m);
	m = stir_module_read_from_file(ctx, test_path(other));
	k = stir_module_find_kernel(m, other_kernel);
	ck_assert_ptr_nonnull(k);
	int errors = stir_ctx_n_errors(ctx);
	ck_assert_int_eq(apply(k, fit, 64), -1);
	ck_assert_int_gt(stir_ctx_n_errors(ctx), errors);
	stir_module_free(m);
	stir_ctx_free(ctx);
}

/* The BSR recipe (schedule/recipes/bsr.c): each candidate gives the same
 * stage III kernel and CUDA as the schedule file it was written from
 * (the bench schedule files, which bench_bsr --program --schedule can still run one by
 * one), and as its own schedule log read back; the shape rule's
 * refusals; a candidate that does not fit, or meets a program of the
 * other block size, gets a located error. */
START_TEST(test_bsr_tc)
{
	static const char *const files[] = { "bench/bsrmm_tc16_pipe_t4_b2.yaml",
		"bench/bsrmm_tc16_pipe.yaml", "bench/bsrmm_tc16_warps_s4.yaml",
		"bench/bsrmm_tc16_warps_f64.yaml", "bench/bsrmm64_tc_strips.yaml",
		"bench/bsrmm32_tc_strips.yaml", "bench/bsrmm64_tc_rows.yaml",
		"bench/bsrmm32_tc_rows.yaml", "bench/bsrmm64_tc_tile.yaml",
		"bench/bsrmm32_tc_tile.yaml" };
	ck_assert_int_eq(stir_bsr_tc_n_candidates(), 10);
	ck_assert_ptr_null(stir_bsr_tc_get_candidate(10));
	for (int i = 0; i < 10; i++)
		for (int64_t w = 64; w <= 256; w *= 4) {
			const stir_bsr_tc_candidate *p = stir_bsr_tc_get_candidate(i);
			same_as_file(p->block == 64 ? "bench/bsrmm64.stir" :
				p->block == 32 ? "bench/bsrmm32.stir" :
				"examples/bsrmm.stir", "bsrmm", files[i], w,
				recipe_bsr, p);
		}
	/* the rule: blocks of 16, 32 or 64, widths of whole warps */
	const int32_t even[] = { 0, 2, 4, 6 };
	/* rows of 2 blocks: 4 warps a row on a grid of 12 warps of 32
	 * features, a warp a row on 96 */
	ck_assert_int_eq(stir_bsr_tc_pick(16, 3, even, 128), 2);
	ck_assert_int_eq(stir_bsr_tc_pick(16, 3, even, 1024), 0);
	ck_assert_int_eq(stir_bsr_tc_pick(64, 3, even, 128), 4);
	ck_assert_int_eq(stir_bsr_tc_pick(64, 3, even, 96), -1);
	ck_assert_int_eq(stir_bsr_tc_pick(32, 3, even, 128), 5);
	ck_assert_int_eq(stir_bsr_tc_pick(32, 3, even, 96), -1);
	ck_assert_int_eq(stir_bsr_tc_pick(8, 3, even, 128), -1);
	ck_assert_int_eq(stir_bsr_tc_pick(16, 3, even, 80), -1);
	ck_assert_int_eq(stir_bsr_tc_pick(16, 0, even, 128), -1);
	/* blocks of 32 and 64 from 1024 warps of a strip on: a warp on 32
	 * rows of a row where the rows are even, else a warp a strip of a
	 * row (one row of 2 + 12 blocks among rows of 2) */
	int32_t rows64[65], skew64[65];
	for (int i = 0; i <= 64; i++) {
		rows64[i] = 2 * i;
		skew64[i] = 2 * i + (i ? 12 : 0);
	}
	ck_assert_int_eq(stir_bsr_tc_pick(64, 64, rows64, 128), 4);
	ck_assert_int_eq(stir_bsr_tc_pick(64, 64, rows64, 512), 8);
	ck_assert_int_eq(stir_bsr_tc_pick(64, 64, skew64, 512), 6);
	ck_assert_int_eq(stir_bsr_tc_pick(64, 64, skew64, 128), 4);
	ck_assert_int_eq(stir_bsr_tc_pick(32, 64, rows64, 448), 5);
	ck_assert_int_eq(stir_bsr_tc_pick(32, 64, rows64, 512), 9);
	ck_assert_int_eq(stir_bsr_tc_pick(32, 64, skew64, 512), 7);
	refusals("stir_recipe_bsr_tc_candidate", recipe_bsr,
		"examples/bsrmm.stir", "bsrmm", stir_bsr_tc_get_candidate(1), 96,
		"bench/bsrmm64.stir", "bsrmm", stir_bsr_tc_get_candidate(0));
}
END_TEST

/* The SR-BCRS recipe (schedule/recipes/srbcrs.c): each candidate gives
 * the same stage III kernel and CUDA as the bench schedule file it was
 * written from, and as its own schedule log read back; the format it
 * builds on the host binds what the kernel reads; a candidate that does
 * not fit gets a located error. */
START_TEST(test_srbcrs_tc)
{
	static const char *const files[] = { "bench/csrmm_srbcrs_tc.yaml",
		"bench/csrmm_srbcrs_tc_chunks.yaml",
		"bench/csrmm_srbcrs_tc_chunks8.yaml",
		"bench/csrmm_srbcrs_tc_rows8.yaml" };
	ck_assert_int_eq(stir_srbcrs_tc_n_candidates(), 4);
	ck_assert_ptr_null(stir_srbcrs_tc_get_candidate(4));
	for (int i = 0; i < 4; i++)
		for (int64_t w = 32; w <= 128; w *= 4)
			same_as_file("examples/csrmm.stir", "csrmm", files[i], w,
				recipe_srbcrs, stir_srbcrs_tc_get_candidate(i));
	const stir_srbcrs_tc_candidate gathered_whole = { 0,
		STIR_ROWS_FEWEST_SLOTS };
	ck_assert(!stir_srbcrs_tc_fits(&gathered_whole, 64));
	ck_assert(!stir_srbcrs_tc_fits(stir_srbcrs_tc_get_candidate(0), 48));
	ck_assert(stir_srbcrs_tc_fits(stir_srbcrs_tc_get_candidate(3), 96));
	/* (a kernel the recipe is not for: the step's located error) */
	refusals("stir_recipe_srbcrs_tc_candidate", recipe_srbcrs,
		"examples/csrmm.stir", "csrmm", stir_srbcrs_tc_get_candidate(1),
		48, "examples/bsrmm.stir", "bsrmm",
		stir_srbcrs_tc_get_candidate(0));
}
END_TEST

/* The RGMS recipes (schedule/recipes/rgms.c): a candidate gives the same
 * stage III kernel and CUDA as the schedule file bench_rgms.py wrote for
 * it (the files specialize fin and fout themselves: same_as_file's
 * negative feat), on tensor cores at 64 features in 2 pieces (no
 * candidate of the table) and at 128 in 512, on CUDA cores at 64, and as
 * its own schedule log read back; refusals. */
START_TEST(test_rgms_tc)
{
	ck_assert_int_eq(stir_rgms_tc_n_candidates(), 6);
	ck_assert_ptr_null(stir_rgms_tc_get_candidate(6));
	const stir_rgms_tc_candidate two = { 4, 2 };
	same_as_file("examples/rgms_agg.stir", "rgms_agg",
		"tests/tensorize/rgms_tc_tstaged_bound.yaml", -64, recipe_rgms, &two);
	const stir_rgms_tc_candidate *p512 = stir_rgms_tc_get_candidate(4);
	ck_assert_int_eq(p512->pieces, 512);
	same_as_file("examples/rgms_agg.stir", "rgms_agg",
		"tests/tensorize/rgms_tc_tsh_f128_p512.yaml", -128, recipe_rgms,
		p512);
	ck_assert(stir_rgms_tc_fits(p512, 16));
	ck_assert(!stir_rgms_tc_fits(p512, 256));
	ck_assert(!stir_rgms_tc_fits(p512, 24));
	refusals("stir_recipe_rgms_tc_candidate", recipe_rgms,
		"examples/rgms_agg.stir", "rgms_agg", p512, 40,
		"examples/csrmm.stir", "csrmm", p512);
	/* on CUDA cores: candidate 1 (8 edges a thread) as
	 * examples/rgms_aggruns.yaml */
	ck_assert_int_eq(stir_rgms_n_candidates(), 2);
	ck_assert_ptr_null(stir_rgms_get_candidate(2));
	const stir_rgms_candidate *k8 = stir_rgms_get_candidate(1);
	ck_assert_int_eq(k8->edges, 8);
	same_as_file("examples/rgms_agg.stir", "rgms_agg",
		"examples/rgms_aggruns.yaml", -64, recipe_rgms_cuda, k8);
	ck_assert(stir_rgms_fits(k8, 20));
	ck_assert(!stir_rgms_fits(k8, 132));
	refusals("stir_recipe_rgms_candidate", recipe_rgms_cuda,
		"examples/rgms_agg.stir", "rgms_agg", k8, 18,
		"examples/csrmm.stir", "csrmm", k8);
}
END_TEST

/* The edge-by-edge RGMS recipe: candidate 0 (an edge a thread) as
 * tests/coo/rgms_coo_f32_a.yaml at 32 features, candidate 1 (4 edges a
 * thread, runs of a row in registers) as tests/coo/rgms_runs_f64_k4.yaml
 * at 64: the files bench_rgms.py wrote for them; refusals. */
START_TEST(test_rgms_edge)
{
	ck_assert_int_eq(stir_rgms_edge_n_candidates(), 3);
	ck_assert_ptr_null(stir_rgms_edge_get_candidate(3));
	ck_assert_ptr_null(stir_rgms_edge_get_candidate(-1));
	const stir_rgms_edge_candidate *one = stir_rgms_edge_get_candidate(0);
	const stir_rgms_edge_candidate *k4 = stir_rgms_edge_get_candidate(1);
	ck_assert_int_eq(one->edges, 1);
	ck_assert_int_eq(k4->edges, 4);
	same_as_file("examples/rgms_edge.stir", "rgms_edge",
		"tests/coo/rgms_coo_f32_a.yaml", -32, recipe_rgms_edge, one);
	same_as_file("examples/rgms_edge.stir", "rgms_edge",
		"tests/coo/rgms_runs_f64_k4.yaml", -64, recipe_rgms_edge, k4);
	ck_assert(stir_rgms_edge_fits(k4, 16));
	ck_assert(!stir_rgms_edge_fits(k4, 12));
	ck_assert(!stir_rgms_edge_fits(k4, 130));
	refusals("stir_recipe_rgms_edge_candidate", recipe_rgms_edge,
		"examples/rgms_edge.stir", "rgms_edge", k4, 18,
		"examples/rgms_agg.stir", "rgms_agg", k4);
}
END_TEST

/* rels, tiles, rel_ptr: rel_ptr[0..rels] of "rels" relations, the first
 * of tiles x 16 (relation, row) pairs, the others of 16. */
static void pairs_of(int64_t rels, int64_t tiles, int64_t *rel_ptr)
{
	rel_ptr[0] = 0;
	for (int64_t r = 0; r < rels; r++)
		rel_ptr[r + 1] = rel_ptr[r] + (r ? 16 : tiles * 16);
}

/* stir_rgms_tc_pick: the pieces that minimize the busiest thread block's
 * tiles plus the thread blocks over 4096, on the shapes of AIFB (104
 * relations, the largest 77 tiles: 64 pieces), MUTAG (50, 596: 256), BGS
 * (200, 2219: 256) and AM (260, 18601: 512), and a graph of one tile (32,
 * the fewest); -1 for no relations. */
START_TEST(test_rgms_tc_pick)
{
	static const struct {
		int64_t rels, tiles, pieces;
	} cases[] = {
		{ 104, 77, 64 }, { 50, 596, 256 }, { 200, 2219, 256 },
		{ 260, 18601, 512 }, { 1, 1, 32 },
	};
	int64_t rel_ptr[261];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pairs_of(cases[i].rels, cases[i].tiles, rel_ptr);
		const stir_rgms_tc_candidate *p = stir_rgms_tc_get_candidate(
			stir_rgms_tc_pick(cases[i].rels, rel_ptr));
		ck_assert_ptr_nonnull(p);
		ck_assert_int_eq(p->pieces, cases[i].pieces);
	}
	ck_assert_int_eq(stir_rgms_tc_pick(0, rel_ptr), -1);
	ck_assert_int_eq(stir_rgms_tc_pick(3, NULL), -1);
}
END_TEST

/* The RGMS recipes in the tuner: stir_rgms_rank's orders (the CUDA-core
 * candidates of 4 edges a thread first; with tf32 the tensor-core ones
 * before them, the pieces rule's pick first; rgms_edge 4, 8, then 1
 * edges; none at a size no candidate takes), a relational graph's
 * signature, every candidate applied through stir_tune_apply_candidate,
 * stir_tune_hetero's model pick stored and found again in the record
 * (keyed apart with tf32 and by the relations), and the calls refused:
 * a matrix's kernel with a graph, a graph's kernel with a matrix, tf32
 * for rgms_edge. */
START_TEST(test_tune_rgms)
{
	char dir[] = "/tmp/stir-tune-rgms-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	stir_ctx *ctx = stir_ctx_alloc();
	stir_hetero *h = stir_hetero_read_from_file(ctx,
		test_path("tests/data/graphs/small.hetero"));
	ck_assert_ptr_nonnull(h);
	int order[16], n_cuda = stir_rgms_n_candidates();
	double costs[16];
	ck_assert_int_eq(stir_rgms_rank(STIR_TUNE_RGMS, h, 16, order, costs),
		n_cuda);
	ck_assert_int_eq(order[0], 0);
	ck_assert(costs[0] == 0 && costs[1] == 1);
	int n = stir_rgms_rank(STIR_TUNE_RGMS_TF32, h, 64, order, costs);
	ck_assert_int_eq(n, n_cuda + stir_rgms_tc_n_candidates());
	ck_assert_int_eq(order[0], n_cuda + stir_rgms_tc_pick(h->nrels,
		h->rel_ptr));
	ck_assert_int_eq(order[n - n_cuda], 0);
	/* tf32 at a size the tensor cores do not take: CUDA cores alone */
	ck_assert_int_eq(stir_rgms_rank(STIR_TUNE_RGMS_TF32, h, 20, order,
		NULL), n_cuda);
	ck_assert_int_eq(stir_rgms_rank(STIR_TUNE_RGMS_EDGE, h, 32, order,
		NULL), 3);
	ck_assert(order[0] == 1 && order[1] == 2 && order[2] == 0);
	ck_assert_int_eq(stir_rgms_rank(STIR_TUNE_RGMS, h, 12, order, NULL), 0);
	ck_assert_int_eq(stir_rgms_rank(STIR_TUNE_SPMM, h, 16, order, NULL), -1);

	stir_matrix_sig sig;
	stir_hetero_get_sig(h, &sig);
	ck_assert_int_eq(sig.rows, h->nrows);
	ck_assert_int_eq(sig.cols, h->nnodes);
	ck_assert_int_eq(sig.nnz, h->nnz);
	ck_assert_int_eq(sig.rels, h->nrels);

	stir_module *m, *me, *mc, *cm;
	stir_kernel *k = read_kernel(ctx, "examples/rgms_agg.stir", "rgms_agg",
		&m);
	stir_kernel *ke = read_kernel(ctx, "examples/rgms_edge.stir",
		"rgms_edge", &me);
	stir_kernel *kc = read_kernel(ctx, "examples/csrmm.stir", "csrmm", &mc);
	ck_assert_int_eq(stir_kernel_get_tune_recipe(k), STIR_TUNE_RGMS);
	ck_assert_int_eq(stir_kernel_get_tune_recipe(ke), STIR_TUNE_RGMS_EDGE);
	ck_assert(stir_tune_recipe_is_hetero(STIR_TUNE_RGMS_TF32));
	ck_assert(!stir_tune_recipe_is_hetero(STIR_TUNE_SPMM));
	for (int c = 0; c < n; c++) {
		stir_kernel *copy = stir_kernel_copy(k, &cm);
		ck_assert_int_eq(stir_tune_apply_candidate(copy, 16, c), 0);
		stir_module_free(cm);
	}
	stir_kernel *copy = stir_kernel_copy(k, &cm);
	ck_assert_int_eq(stir_tune_apply_candidate(copy, 16, n), -1);
	ck_assert(diagnosed(ctx, "candidate 8 does not apply"));
	stir_module_free(cm);
	stir_ctx_clear_diagnostics(ctx);

	/* the model's pick, stored, then found; tf32 is another entry */
	stir_tune_options opt = { .feat = 16, .model_only = true,
		.cache_dir = dir };
	stir_tune_result r;
	for (int tf32 = 0; tf32 < 2; tf32++) {
		opt.tf32 = tf32;
		int want = tf32 ? n_cuda + stir_rgms_tc_pick(h->nrels,
			h->rel_ptr) : 0;
		ck_assert_int_eq(stir_tune_hetero(ctx, k, h, &opt, &r), 0);
		ck_assert_int_eq(r.from, STIR_TUNE_FROM_MODEL);
		ck_assert_int_eq(r.cand, want);
		ck_assert_int_eq(r.key.recipe, tf32 ? STIR_TUNE_RGMS_TF32 :
			STIR_TUNE_RGMS);
		char *first = strdup(r.schedule);
		stir_tune_result_clear(&r);
		ck_assert_int_eq(stir_tune_hetero(ctx, k, h, &opt, &r), 0);
		ck_assert_int_eq(r.from, STIR_TUNE_FROM_RECORD);
		ck_assert_int_eq(r.cand, want);
		ck_assert_int_eq(r.key.sig.rels, h->nrels);
		ck_assert_str_eq(r.schedule, first);
		free(first);
		stir_tune_result_clear(&r);
	}
	/* the same key with other relations misses */
	stir_tune_entry key, e;
	ck_assert_int_eq(stir_kernel_get_tune_key_hetero(k, h, &opt, NULL,
		&key), 0);
	ck_assert_int_eq(stir_tune_record_find(ctx, dir, &key, 0, &e), 1);
	key.sig.rels++;
	ck_assert_int_eq(stir_tune_record_find(ctx, dir, &key, 0, &e), 0);
	opt.tf32 = false;
	ck_assert_int_eq(stir_tune_hetero(ctx, ke, h, &opt, &r), 0);
	ck_assert_int_eq(r.cand, 1);
	stir_tune_result_clear(&r);

	/* refused */
	ck_assert_int_eq(stir_tune_hetero(ctx, kc, h, &opt, &r), -1);
	ck_assert(diagnosed(ctx, "kernel 'csrmm' is tuned for a matrix"));
	stir_ctx_clear_diagnostics(ctx);
	stir_csr *a = stir_mtx_read_from_file(ctx,
		test_path("examples/data/cora.mtx.gz"));
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(stir_tune(ctx, k, a, &opt, &r), -1);
	ck_assert(diagnosed(ctx, "kernel 'rgms_agg' is tuned for a relational "
		"graph"));
	stir_ctx_clear_diagnostics(ctx);
	opt.tf32 = true;
	ck_assert_int_eq(stir_tune_hetero(ctx, ke, h, &opt, &r), -1);
	ck_assert(diagnosed(ctx, "has no tf32 candidates"));
	stir_ctx_clear_diagnostics(ctx);
	opt.tf32 = false;
	opt.feat = 12;
	ck_assert_int_eq(stir_tune_hetero(ctx, k, h, &opt, &r), -1);
	ck_assert(diagnosed(ctx, "no candidate of the recipe"));
	copy = stir_kernel_copy(kc, &cm);
	ck_assert_int_eq(stir_tune_model_apply_hetero(copy, h, 16, false, NULL,
		NULL), -1);
	ck_assert_int_eq(stir_tune_model_apply(copy, a, 16, 0, NULL, NULL), 0);
	stir_module_free(cm);
	copy = stir_kernel_copy(k, &cm);
	ck_assert_int_eq(stir_tune_model_apply(copy, a, 16, 0, NULL, NULL), -1);
	ck_assert(diagnosed(ctx, "takes a relational graph"));
	stir_module_free(cm);

	stir_csr_free(a);
	stir_hetero_free(h);
	stir_module_free(m);
	stir_module_free(me);
	stir_module_free(mc);
	stir_ctx_free(ctx);
	char cmd[100];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The BSR recipe in the tuner: a matrix bound to bsrmm's A over blocks
 * (stir_kernel_bind_csr: the block rows, the blocks, every entry once in
 * its block); stir_bsr_rank's order (stir_bsr_tc_pick's first, the
 * candidates of the kernel's block size that fit); the kernel's recipe
 * by its block size; the model's pick stored and found; a candidate of
 * other blocks refused. */
START_TEST(test_tune_bsr)
{
	char dir[] = "/tmp/stir-tune-bsr-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *a = stir_mtx_read_from_file(ctx,
		test_path("tests/data/graphs/small.mtx"));
	ck_assert_ptr_nonnull(a);
	stir_module *m, *m64, *cm;
	stir_kernel *k = read_kernel(ctx, "examples/bsrmm.stir", "bsrmm", &m);
	stir_kernel *k64 = read_kernel(ctx, "bench/bsrmm64.stir", "bsrmm", &m64);
	ck_assert_int_eq(stir_kernel_get_tune_recipe(k), STIR_TUNE_BSR16);
	ck_assert_int_eq(stir_kernel_get_tune_recipe(k64), STIR_TUNE_BSR64);
	ck_assert(!stir_tune_recipe_is_model_ranked(STIR_TUNE_BSR16));
	ck_assert(stir_tune_recipe_is_model_ranked(STIR_TUNE_SDDMM_TILES));

	/* the blocks: 120 rows in 8 block rows, each entry in its block */
	stir_bindings *b = stir_bindings_alloc();
	ck_assert_int_eq(stir_kernel_bind_csr(k, b, "A", a), 0);
	int64_t mb = 0, nnzb = 0;
	ck_assert(stir_bindings_get_size(b, "mb", &mb) && mb == 8);
	ck_assert(stir_bindings_get_size(b, "nnzb", &nnzb) && nnzb > 0);
	const stir_array *ptr = stir_bindings_get_array(b, "J.indptr");
	const stir_array *idx = stir_bindings_get_array(b, "J.indices");
	const stir_array *val = stir_bindings_get_array(b, "A");
	ck_assert_int_eq(stir_array_get_int(ptr, mb), nnzb);
	ck_assert_int_eq(stir_array_get_len(val), nnzb * 256);
	for (int64_t i = 0; i < a->nrows; i++)
		for (int64_t p = a->indptr[i]; p < a->indptr[i + 1]; p++) {
			int64_t j = a->indices[p], q = stir_array_get_int(ptr, i / 16);
			while (stir_array_get_int(idx, q) != j / 16)
				q++;
			ck_assert(stir_array_get_double(val, (q * 16 + i % 16) * 16 +
				j % 16) == 1.0);
		}
	double sum = 0;
	for (int64_t v = 0; v < nnzb * 256; v++)
		sum += stir_array_get_double(val, v);
	ck_assert(sum == (double)a->nnz);
	int32_t bptr[9];
	for (int i = 0; i <= 8; i++)
		bptr[i] = (int32_t)stir_array_get_int(ptr, i);
	stir_bindings_free(b);

	/* the rules' order */
	int order[16];
	double costs[16];
	ck_assert_int_le(stir_bsr_tc_n_candidates(), 16);
	ck_assert_int_eq(stir_bsr_rank(16, a, 64, order, costs), 4);
	ck_assert_int_eq(order[0], stir_bsr_tc_pick(16, 8, bptr, 64));
	ck_assert(costs[0] == 0 && costs[3] == 3);
	ck_assert_int_eq(stir_bsr_rank(16, a, 32, order, NULL), 2);
	ck_assert_int_eq(stir_bsr_rank(64, a, 64, order, NULL), 3);
	ck_assert_int_eq(order[0], 4);
	ck_assert_int_eq(order[1], 6);
	ck_assert_int_eq(order[2], 8);
	ck_assert_int_eq(stir_bsr_rank(32, a, 32, order, NULL), 0);
	ck_assert_int_eq(stir_bsr_rank(8, a, 64, order, NULL), -1);

	/* the model's pick, stored, then found */
	stir_tune_options opt = { .feat = 64, .model_only = true,
		.cache_dir = dir };
	stir_tune_result r;
	ck_assert_int_eq(stir_tune(ctx, k, a, &opt, &r), 0);
	ck_assert_int_eq(r.from, STIR_TUNE_FROM_MODEL);
	ck_assert_int_eq(r.cand, stir_bsr_tc_pick(16, 8, bptr, 64));
	ck_assert_int_eq(r.key.recipe, STIR_TUNE_BSR16);
	stir_tune_result_clear(&r);
	ck_assert_int_eq(stir_tune(ctx, k, a, &opt, &r), 0);
	ck_assert_int_eq(r.from, STIR_TUNE_FROM_RECORD);
	stir_tune_result_clear(&r);
	stir_kernel *copy = stir_kernel_copy(k, &cm);
	ck_assert_int_eq(stir_tune_apply_candidate(copy, 64, 4), -1);
	ck_assert(diagnosed(ctx, "candidate 4 does not apply to kernel "
		"'bsrmm' (blocks of 16)"));
	stir_module_free(cm);

	stir_csr_free(a);
	stir_module_free(m);
	stir_module_free(m64);
	stir_ctx_free(ctx);
	char cmd[100];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* k, a, feat: bindings of sddmm_tiles_csr kernel k for S = a at "feat"
 * features (the tile groups, Dst, X and Y random with seed 1). */
static stir_bindings *tiles_bindings(const stir_kernel *k, const stir_csr *a,
	int64_t feat)
{
	stir_bindings *b = stir_bindings_alloc();
	ck_assert_int_eq(stir_bindings_set_size(b, "feat", feat), 0);
	ck_assert_int_eq(stir_kernel_bind_csr(k, b, "S", a), 0);
	ck_assert_int_eq(stir_kernel_bind_random(k, b, 1), 0);
	ck_assert_int_eq(stir_kernel_bind_outputs(k, b), 0);
	return b;
}

START_TEST(test_sddmm_tiles)
{
	/* the tile recipe: every candidate applies at two feature sizes
	 * (or is refused by stir_sddmm_tiles_fits beforehand) on a small
	 * matrix and on Cora, and the interpreter's stage III agrees with
	 * stage I on S; the tuner knows the program by its structure, the
	 * model ranks the candidates that fit, and a feature size no
	 * candidate takes is refused with an error at the kernel */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_kernel(ctx, "examples/sddmm_tiles_csr.stir",
		"sddmm_tiles_csr", &m);
	ck_assert_int_eq(stir_kernel_get_tune_recipe(k), STIR_TUNE_SDDMM_TILES);
	int n = stir_sddmm_tiles_n_candidates();
	ck_assert_int_ge(n, 10);
	ck_assert_ptr_null(stir_sddmm_tiles_get_candidate(n));
	stir_csr *mats[2] = { make_csr(48, deg_tiles),
		stir_mtx_read_from_file(ctx, test_path("examples/data/cora.mtx.gz")) };
	ck_assert_ptr_nonnull(mats[1]);
	static const int64_t feats[2][2] = { { 32, 64 }, { 16, 24 } };
	for (int t = 0; t < 2; t++) {
		for (int f = 0; f < 2; f++) {
			int64_t feat = feats[t][f];
			stir_bindings *ref = tiles_bindings(k, mats[t], feat);
			ck_assert_int_eq(stir_kernel_interpret(k, ref), 0);
			const stir_array *want = stir_bindings_get_array(ref, "S");
			int fits = 0;
			for (int i = 0; i < n; i++) {
				const stir_sddmm_tiles_candidate *p =
					stir_sddmm_tiles_get_candidate(i);
				if (!stir_sddmm_tiles_fits(p, feat))
					continue;
				fits++;
				stir_module *cm;
				stir_kernel *c = stir_kernel_copy(k, &cm);
				int rc = stir_recipe_sddmm_tiles_candidate(c, p, feat);
				if (rc < 0)
					stir_ctx_print_diagnostics(ctx, stderr);
				ck_assert_int_eq(rc, 0);
				ck_assert_int_eq(stir_kernel_get_stage(c), STIR_STAGE_3);
				stir_bindings *b = tiles_bindings(k, mats[t], feat);
				ck_assert_int_eq(stir_kernel_interpret(c, b), 0);
				double worst = 0;
				ck_assert_msg(stir_array_compare(stir_bindings_get_array(b,
					"S"), want, NULL, &worst) == 0, "candidate %d at %lld "
					"features: S differs by %g", i, (long long)feat, worst);
				stir_bindings_free(b);
				stir_module_free(cm);
			}
			ck_assert_int_eq(fits, n);
			int order[64];
			double costs[64];
			ck_assert_int_le(n, 64);
			ck_assert_int_eq(stir_sddmm_rank(STIR_TUNE_SDDMM_TILES,
				mats[t], feat, 132, order, costs), n);
			for (int i = 1; i < n; i++)
				ck_assert(costs[i] >= costs[i - 1] && costs[0] > 0);
			stir_bindings_free(ref);
		}
	}
	/* 80 features: 10 steps, which pieces of 8 and 16 do not divide */
	const stir_sddmm_tiles_candidate *p0 = stir_sddmm_tiles_get_candidate(0);
	ck_assert(!stir_sddmm_tiles_fits(p0, 80));
	ck_assert_int_eq(stir_recipe_sddmm_tiles_candidate(k, p0, 80), -1);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_1);
	stir_ctx_clear_diagnostics(ctx);
	/* 12 features, not steps of 8: no candidate, a located error */
	ck_assert_int_eq(stir_sddmm_rank(STIR_TUNE_SDDMM_TILES, mats[1], 12, 132,
		(int[64]){ 0 }, NULL), 0);
	ck_assert_int_eq(stir_tune_model_apply(k, mats[1], 12, 132, NULL, NULL),
		-1);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	const stir_diag *d = stir_ctx_get_diagnostic(ctx, 0);
	ck_assert(strstr(stir_diag_get_message(d), "applies at 12 features"));
	ck_assert_int_gt(stir_diag_get_loc(d).line, 0);
	stir_ctx_clear_diagnostics(ctx);
	/* the tile recipe on another kernel: refused */
	stir_module *m2;
	stir_kernel *k2 = read_kernel(ctx, "examples/sddmm.stir", "sddmm", &m2);
	ck_assert_int_eq(stir_recipe_sddmm_tiles_candidate(k2, p0, 32), -1);
	ck_assert_int_gt(stir_ctx_n_errors(ctx), 0);
	stir_module_free(m2);
	stir_csr_free(mats[0]);
	stir_csr_free(mats[1]);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST
static Suite *recipes_suite(void)
{
	Suite *s = suite_create("recipes");
	TCase *tc = tcase_create("recipes");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_spmm_candidates);
	tcase_add_test(tc, test_sddmm_candidates);
	tcase_add_test(tc, test_sddmm_row_chunks_refused);
	tcase_add_test(tc, test_sddmm_row_tile_refused);
	tcase_add_test(tc, test_sddmm_vblock);
	tcase_add_test(tc, test_sddmm_vblock_candidates);
	tcase_add_test(tc, test_row_groups);
	tcase_add_test(tc, test_tile_groups);
	tcase_add_test(tc, test_sddmm_vb_csr);
	tcase_add_test(tc, test_sddmm_vb_csr_refused);
	tcase_add_test(tc, test_tune_vblock);
	tcase_add_test(tc, test_wrong_kernel);
	tcase_add_test(tc, test_spmm_model);
	tcase_add_test(tc, test_tune_search_order);
	tcase_add_test(tc, test_tune_search_order_long_rows);
	tcase_add_test(tc, test_spmm_model_column_share);
	tcase_add_test(tc, test_tune_top);
	tcase_add_test(tc, test_sddmm_model);
	tcase_add_test(tc, test_matrix_sig);
	tcase_add_test(tc, test_print_schedule);
	tcase_add_test(tc, test_candidate_locality);
	tcase_add_test(tc, test_tune_candidate_file);
	tcase_add_test(tc, test_tune_api);
	tcase_add_test(tc, test_tune_search_fake);
	tcase_add_test(tc, test_tune_record_hit_fake);
	tcase_add_test(tc, test_tune_swap_formats);
	suite_add_tcase(s, tc);
	/* every candidate of three programs printed, read back and emitted
	 * twice: most of the 41 s of CPU the sanitizer build spends on this
	 * suite, so a longer limit of its own (on a contended core it went
	 * past 120 s) */
	TCase *all = tcase_create("candidates");
	tcase_set_timeout(all, 400);
	tcase_add_test(all, test_tune_candidates_read_back);
	tcase_add_test(all, test_sddmm_tiles);
	tcase_add_test(all, test_bsr_tc);
	tcase_add_test(all, test_srbcrs_tc);
	tcase_add_test(all, test_rgms_tc);
	tcase_add_test(all, test_rgms_edge);
	tcase_add_test(all, test_rgms_tc_pick);
	tcase_add_test(all, test_tune_rgms);
	tcase_add_test(all, test_tune_bsr);
	suite_add_tcase(s, all);
	return s;
}

int main(void)
{
	return test_run_suite(recipes_suite());
}
