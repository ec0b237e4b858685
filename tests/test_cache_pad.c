/* cache_read with padding (stir_cache_read_padded; docs/schedules.md,
 * "Padded rows"): the padded slice of W[r] of
 * tests/tensorize/rgms_tc_wshared_pad.yaml, its copy and the tensor-core
 * loads from it; the step as the schedule log prints it; the requests
 * refused with why, each leaving the kernel as it was; and a padded tile
 * of T copied under its row guard (tests/tensorize/rgms_tc_tstaged.yaml).
 * (test_cuda_emu runs both schedules' CUDA against the interpreter.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>
#include "tests/testdiag.h"
#include "tests/testutil.h"

static const char wshared_pad[] = "tests/tensorize/rgms_tc_wshared_pad.yaml";

/* ctx, file, whole, m: kernel rgms_agg of a fresh module under schedule
 * file "file": whole, ready for the GPU; or its steps before the cache of
 * W alone, at stage III. */
static stir_kernel *scheduled(stir_ctx *ctx, const char *file, bool whole,
	stir_module **m)
{
	return test_scheduled(ctx, m, "examples/rgms_agg.stir", "rgms_agg",
		file, whole ? NULL : "  - cache_read: {block: apply1, buffer: W_data");
}

/* The padded slice: 4 copies (one a warp) of 64 rows of 16 + 4 floats,
 * the copy and the B fragments at row stride 20, and the log's step. */
START_TEST(test_padded)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = scheduled(ctx, wshared_pad, false, &m);
	stir_kernel_set_schedule_log(k, true);
	ck_assert_int_eq(stir_cache_read_padded(k, "apply1", "W_data", "i_0_1",
		STIR_SCOPE_SHARED, "fo_0", 16, 4), 0);
	char *log = stir_kernel_schedule_to_str(k, NULL);
	ck_assert_ptr_nonnull(log);
	ck_assert_ptr_nonnull(strstr(log, "cache_read: {block: apply1, buffer: "
		"W_data, loop: i_0_1, scope: shared, per: fo_0, pad_every: 16, "
		"pad: 4}"));
	free(log);
	stir_module_free(m);

	k = scheduled(ctx, wshared_pad, true, &m);
	char *cu = stir_kernel_to_cuda(k);
	if (!cu)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "__shared__ float W_data_shared[5120];"));
	ck_assert_ptr_nonnull(strstr(cu, "W_data_shared[v0 * 1280 + ((v2 * 8 + "
		"v3) * 20 + (v4 * 8 + v5))] = W_data[v1 + v2 * 512 + v3 * 64 + v4 * "
		"8 + v5];"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k8_tf32_load_b(stir_fb, "
		"&W_data_shared[fo_0 * 1280 + ((fi_0 * 8 + fi_1) * 20 + (fo_1 * 8 + "
		"fo_2))], 20);"));
	free(cu);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* What is refused, and why; the kernel is left as it was. */
START_TEST(test_refused)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = scheduled(ctx, wshared_pad, false, &m);
	const stir_scope sh = STIR_SCOPE_SHARED;
	char *before = stir_kernel_to_str(k);
	/* the slice's rows: 8 (a tile's), 16 (the warp's 2 tiles), 128 (an
	 * input feature's 8 of the warp's 8 x 16); not 24, not the whole */
	ck_assert_int_eq(stir_cache_read_padded(k, "apply1", "W_data", "i_0_1",
		sh, "fo_0", 24, 4), -1);
	ck_assert(test_said(ctx, "padding after every 24 elements of the cache of "
		"'W_data': its rows hold 8, 16, 128 elements"));
	ck_assert_int_eq(stir_cache_read_padded(k, "apply1", "W_data", "i_0_1",
		sh, "fo_0", 1024, 4), -1);
	ck_assert(test_said(ctx, "its rows hold 8, 16, 128 elements"));
	ck_assert_int_eq(stir_cache_read_padded(k, "apply1", "W_data", "i_0_1",
		sh, "fo_0", 1, 1), -1);
	ck_assert(test_said(ctx, "padding after every 1 elements of the cache of "
		"'W_data': its rows hold 8, 16, 128 elements"));
	ck_assert_int_eq(stir_cache_read_padded(k, "apply1", "W_data", "i_0_1",
		sh, "fo_0", 16, 0), -1);
	ck_assert(test_said(ctx, "padding of 0 elements after every 16: both must be "
		"at least 1"));
	ck_assert_int_eq(stir_cache_read_padded(k, "apply1", "W_data", "i_0_1",
		STIR_SCOPE_LOCAL, "fo_0", 16, 4), -1);
	ck_assert(test_said(ctx, "padding is for a shared cache (rows apart in "
		"shared memory's banks), not a local one"));
	/* a point of T (one element a thread): no rows */
	ck_assert_int_eq(stir_cache_read_padded(k, "apply1", "T_data", "fi_1",
		sh, NULL, 8, 4), -1);
	ck_assert(test_said(ctx, "padding needs the region of 'T_data' under loop "
		"'fi_1' to be loops of literal strides in a flat buffer (rows of a "
		"literal size)"));
	char *after = stir_kernel_to_str(k);
	ck_assert_str_eq(after, before);
	free(after);
	free(before);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* A tile of T for the thread block's warps: its rows of 64 floats 72
 * apart, each element copied under the tile's row guard (the block reads
 * the rows the guard lets through), a barrier after the copy, and the
 * A fragments from the cache, read whole (gpu_mma_a_whole: no row test,
 * one aligned float2 a pair, the cache declared 8-byte aligned; the
 * accumulator's rows the guard stops still restored); A from global
 * memory (rgms_tc_wshared_pad.yaml's T) keeps its row test. */
START_TEST(test_row_guard)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = scheduled(ctx, "tests/tensorize/rgms_tc_tstaged.yaml",
		true, &m);
	char *cu = stir_kernel_to_cuda(k);
	if (!cu)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu,
		"__shared__ __align__(8) float T_data_shared[1152];"));
	ck_assert_ptr_nonnull(strstr(cu, "* 16 + v1 < I_indptr[vrr + 1] - "
		"I_indptr[vrr]) {\n"
		"                        T_data_shared[v1 * 72 + (v2 * 8 + v3)] = "
		"T_data[v0 + v1 * 64 + v2 * 8 + v3];"));
	const char *sync = strstr(cu, "T_data_shared[v1 * 72");
	ck_assert_ptr_nonnull(strstr(sync, "__syncthreads();"));
	ck_assert_ptr_nonnull(strstr(cu, "const float *stir_q = "
		"&T_data_shared[i_1 * 72 + (fi_0 * 8 + fi_1)];\n"
		"                        const float2 stir_v = "
		"*(const float2 *)stir_q;"));
	ck_assert_ptr_null(strstr(cu, "stir_fa.r[stir_e] = stir_fa.r[stir_e + 2] = 0u;"));
	ck_assert_ptr_null(strstr(cu, "stir_q % 8"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_fr.r[stir_e] = stir_fs.r[stir_e];"));
	free(cu);
	stir_module_free(m);
	k = scheduled(ctx, wshared_pad, true, &m);
	cu = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "stir_fa.r[stir_e] = stir_fa.r[stir_e + 2] = 0u;"));
	ck_assert_ptr_nonnull(strstr(cu, "if ((unsigned long long)stir_q % 8 == 0) {"));
	free(cu);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cache_pad");
	TCase *tc = tcase_create("cache_pad");
	tcase_add_test(tc, test_padded);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_row_guard);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
