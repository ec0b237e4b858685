/* The recipes (include/stir/recipes.h): their candidate spaces, every
 * candidate applied to its program at several feature sizes (each must
 * bring the kernel to stage III, ready for the GPU, or be refused by
 * stir_*_fits beforehand), and a recipe given a kernel it is not for,
 * which must fail with diagnostics, not crash.  The kernels the recipes
 * make are run in the emulator by test_cuda_emu and on the GPU by
 * bench_spmm and bench_sddmm. */
#include <stir/stir.h>
#include "tests/testutil.h"

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
			const stir_spmm_hybrid_params *p =
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
}
END_TEST

START_TEST(test_sddmm_candidates)
{
	int n = stir_sddmm_n_candidates();
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_null(stir_sddmm_get_candidate(n));
	for (int i = 0; i < n; i++) {
		const stir_sddmm_params *p = stir_sddmm_get_candidate(i);
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m;
		stir_kernel *k = read_kernel(ctx, p->rows ?
			"examples/sddmm_rows.stir" : "examples/sddmm.stir",
			p->rows ? "sddmm_rows" : "sddmm", &m);
		stir_sddmm_map fm = stir_sddmm_map_lanes(96, p->max_lanes);
		ck_assert_int_le(fm.lanes, p->max_lanes);
		int rc = p->rows ? stir_recipe_sddmm_rows(k, fm) :
			stir_recipe_sddmm(k, fm);
		if (rc < 0)
			stir_ctx_print_diagnostics(ctx, stderr);
		ck_assert_int_eq(rc, 0);
		ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_3);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
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
	stir_ctx_free(ctx);
}
END_TEST

/* The suite. */
static Suite *recipes_suite(void)
{
	Suite *s = suite_create("recipes");
	TCase *tc = tcase_create("recipes");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_spmm_candidates);
	tcase_add_test(tc, test_sddmm_candidates);
	tcase_add_test(tc, test_wrong_kernel);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run_suite(recipes_suite());
}
