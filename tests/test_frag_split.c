/* A tensor-core accumulator split over warps (docs/schedules.md,
 * "Accumulators split over warps"): the local cache of a block row's
 * 16 x 128 strip of C at the blocks' loop, 16 fragments of which each of
 * 4 warps keeps its own 4 (tests/tensorize/bsrmm_tc_fregs.yaml).  bind
 * accepts a warps' loop whose variable is a digit of the tile index (the
 * top one, f_1, or one below it, f_2) and refuses another loop, saying
 * why; the verifier refuses a launch in which a nest of the buffer is
 * left unbound or picks its tiles by another digit; the emitter declares
 * the warp's 4 fragments and drops a digit below the top from the index.
 * tests/tensorize/bsrmm64_tc_2x2.yaml splits one over threadIdx.y and z.
 * tests/test_cuda_emu.c runs the kernels in the CUDA emulation against
 * the interpreter. */
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>
#include "tests/testdiag.h"
#include "tests/testutil.h"

/* tests/tensorize/bsrmm_tc_fregs.yaml without its binds of threadIdx.y
 * (and f_2 not unrolled). */
static const char steps[] =
	"kernel: bsrmm\n"
	"stage1:\n"
	"  - sparse_reorder: {iter: bsrmm, order: [i, j, bi, f, bj]}\n"
	"stage2:\n"
	"  - specialize: {param: feat, value: 128}\n"
	"  - split: {block: bsrmm1, loop: f, factors: [null, 4, 4, 8]}\n"
	"  - reorder: {block: bsrmm1, loops: [f_0, j, f_1, f_2, bi, f_3, bj]}\n"
	"  - bind: {block: bsrmm1, loop: i, to: blockIdx.x}\n"
	"  - bind: {block: bsrmm1, loop: f_0, to: blockIdx.y}\n"
	"stage3:\n"
	"  - cache_write_over_init: {block: bsrmm1, buffer: C_data, loop: j, "
	"scope: local}\n"
	"  - reorder: {block: C_data_local_init, loops: [ax1, ax2, ax0, ax3]}\n"
	"  - reorder: {block: C_data_local, loops: [ax1, ax2, ax0, ax3]}\n"
	"  - tensorize: {block: C_data_local_init, loop: ax0, intrinsic: "
	"mma_m16n8k16_f16}\n"
	"  - tensorize: {block: bsrmm1, loop: bi, intrinsic: "
	"mma_m16n8k16_f16}\n"
	"  - tensorize: {block: C_data_local, loop: ax0, intrinsic: "
	"mma_m16n8k16_f16}\n";

/* ctx, m: the kernel of examples/bsrmm.stir with the steps above
 * applied (its module into *m). */
static stir_kernel *fregs_kernel(stir_ctx *ctx, stir_module **m)
{
	*m = stir_module_read_from_file(ctx, test_path("examples/bsrmm.stir"));
	ck_assert_ptr_nonnull(*m);
	stir_kernel *k = stir_module_find_kernel(*m, "bsrmm");
	stir_schedule *s = stir_schedule_read_from_mem(ctx, "t.yaml", steps,
		strlen(steps));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_schedule_apply(s, k, STIR_STAGE_3), 0);
	stir_schedule_free(s);
	return k;
}

/* ctx, k, block, loop, t, said: binding loop of block to t is refused,
 * with a diagnostic holding "said", and leaves k as it was. */
static void bind_refused(stir_ctx *ctx, stir_kernel *k, const char *block,
	const char *loop, stir_thread t, const char *said)
{
	char *before = stir_kernel_to_str(k);
	ck_assert_int_eq(stir_bind(k, block, loop, t), -1);
	ck_assert(test_said(ctx, said));
	char *after = stir_kernel_to_str(k);
	ck_assert_str_eq(after, before);
	free(after);
	free(before);
}

START_TEST(test_split)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = fregs_kernel(ctx, &m);
	/* threadIdx.x is the warp's lanes */
	bind_refused(ctx, k, "bsrmm1", "f_1", STIR_THREAD_X, "is accessed both "
		"inside and outside loop 'f_1', which is bound to threadIdx.x");
	/* the warps' loop: accepted, but the zeroing and the store still run
	 * every warp over all 16 fragments: the verifier refuses the launch */
	ck_assert_int_eq(stir_bind(k, "bsrmm1", "f_1", STIR_THREAD_Y), 0);
	ck_assert_ptr_null(stir_kernel_to_cuda(k));
	ck_assert(test_said(ctx, "local buffer 'C_data_local' is split over the 4 "
		"warps of threadIdx.y (each keeps 4 of its 16 fragments), but the "
		"tile index of loop 'ax0' does not pick them by the loop bound to "
		"threadIdx.y"));
	/* both bound too: each warp declares its 4 fragments */
	ck_assert_int_eq(stir_bind(k, "C_data_local_init", "ax1",
		STIR_THREAD_Y), 0);
	ck_assert_int_eq(stir_bind(k, "C_data_local", "ax1", STIR_THREAD_Y), 0);
	char *cu = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "_acc C_data_local[4];  // this "
		"warp's 4 of the 16 tensor-core fragments (split over "
		"threadIdx.y)"));
	free(cu);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* The warps of f_2, the digit below f_1 in the tile index f_1 * 32 +
 * f_2 * 8: warp f_2 keeps tiles f_2, f_2 + 4, .., printed with the digit
 * dropped, (I) / 32 * 8 + (I) % 8; every nest must pick its warp's tiles
 * by the same digit. */
/* ctx, m, init: fregs_kernel with the products' f_2, the zeroing's loop
 * "init" and the store's ax2 bound to threadIdx.y. */
static stir_kernel *digit_kernel(stir_ctx *ctx, stir_module **m,
	const char *init)
{
	stir_kernel *k = fregs_kernel(ctx, m);
	ck_assert_int_eq(stir_bind(k, "bsrmm1", "f_2", STIR_THREAD_Y), 0);
	ck_assert_int_eq(stir_bind(k, "C_data_local_init", init,
		STIR_THREAD_Y), 0);
	ck_assert_int_eq(stir_bind(k, "C_data_local", "ax2", STIR_THREAD_Y), 0);
	return k;
}

START_TEST(test_digit_below)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	/* the zeroing by the other digit (f_1's, ax1): each bind picks a
	 * digit, the launch two different ones */
	stir_kernel *k = digit_kernel(ctx, &m, "ax1");
	ck_assert_ptr_null(stir_kernel_to_cuda(k));
	ck_assert(test_said(ctx, "local buffer 'C_data_local' is split over the 4 "
		"warps of threadIdx.y (each keeps 4 of its 16 fragments), but the "
		"tile index of loop 'bi' does not pick them by the loop bound to "
		"threadIdx.y"));
	stir_module_free(m);
	k = digit_kernel(ctx, &m, "ax2");
	char *cu = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "_acc C_data_local[4];  // this "
		"warp's 4 of the 16 tensor-core fragments (split over "
		"threadIdx.y)"));
	ck_assert_ptr_nonnull(strstr(cu, "fill(C_data_local[((((ax0 * 4 + ax1) "
		"* 4 + 0) * 8 + ax3) / 32 * 8 + (((ax0 * 4 + ax1) * 4 + 0) * 8 + "
		"ax3) % 8) / 8]"));
	free(cu);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* The zeroing's warp loop of extent 2 (its f_1 split [2, 2]): no loop
 * of the products' nest has that extent, so none of its digits picks the
 * tiles of 2 warps: refused. */
START_TEST(test_no_digit)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = fregs_kernel(ctx, &m);
	const int64_t factors[] = { 2, 2 };
	ck_assert_int_eq(stir_split(k, "C_data_local_init", "ax1", 2, factors),
		0);
	bind_refused(ctx, k, "C_data_local_init", "ax1_0", STIR_THREAD_Y,
		"(and it is no tensor-core accumulator split "
		"over the loop's warps: the tile index of the nest of loop 'bi' "
		"does not pick its warp's tiles by a digit 'P' * C (C whole tiles, "
		"the tiles below it within C, the terms above it multiples of 2 * "
		"C))");
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* tests/tensorize/bsrmm64_tc_2x2.yaml: 4 warps as 2 x 2, the fragments
 * split over threadIdx.y (the top digit, the rows) and threadIdx.z (the
 * features, below the fragments' digit). */
START_TEST(test_two_indices)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = test_scheduled(ctx, &m, "bench/bsrmm64.stir", "bsrmm",
		"tests/tensorize/bsrmm64_tc_2x2.yaml", NULL);
	ck_assert_ptr_nonnull(k);
	char *cu = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "_acc C_data_local[16];  // this "
		"warp's 16 of the 64 tensor-core fragments (split over "
		"threadIdx.y and threadIdx.z)"));
	/* the rows' digit at the top needs no division; the features' is
	 * dropped */
	ck_assert_ptr_nonnull(strstr(cu, ") / 128 * 64 + ("));
	ck_assert_ptr_nonnull(strstr(cu, ") % 64) / 8]"));
	free(cu);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* examples/sddmm_tiles_csr_tiles2.yaml with g_2 left serial: the
 * accumulator holds a warp's 2 tiles one after another (frag_stride), which
 * no warps' loop may split. */
static const char tiles2[] =
	"kernel: sddmm_tiles_csr\n"
	"stage1:\n"
	"  - specialize: {param: feat, value: 32}\n"
	"stage2:\n"
	"  - split: {block: sddmm_tiles1, loop: k, factors: [null, 8]}\n"
	"  - split: {block: sddmm_tiles1, loop: k_0, factors: [null, 2]}\n"
	"  - split: {block: sddmm_tiles1, loop: g, factors: [null, 4, 2]}\n"
	"  - reorder: {block: sddmm_tiles1, loops: [g_0, g_1, k_0_0, g_2, k_0_1, c, r, k_1]}\n"
	"  - bind: {block: sddmm_tiles0, loop: w, to: blockIdx.x}\n"
	"  - bind: {block: sddmm_tiles1, loop: g_1, to: threadIdx.y}\n"
	"  - unroll: {block: sddmm_tiles1, loop: k_0_1}\n"
	"stage3:\n"
	"  - cache_write_over_init: {block: sddmm_tiles1, buffer: S_data, loop: k_0_0, scope: local}\n"
	"  - unroll: {block: S_data_local_init, loop: ax0}\n"
	"  - unroll: {block: S_data_local, loop: ax0}\n"
	"  - tensorize: {block: S_data_local_init, loop: ax1, intrinsic: mma_m16n8k8_3xtf32}\n"
	"  - tensorize: {block: sddmm_tiles1, loop: c, intrinsic: mma_m16n8k8_3xtf32}\n"
	"  - tensorize: {block: S_data_local, loop: ax1, intrinsic: mma_m16n8k8_3xtf32}\n";

START_TEST(test_one_after_another)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx,
		test_path("examples/sddmm_tiles_csr.stir"));
	ck_assert_ptr_nonnull(m);
	stir_kernel *k = stir_module_find_kernel(m, "sddmm_tiles_csr");
	stir_schedule *s = stir_schedule_read_from_mem(ctx, "t.yaml", tiles2,
		strlen(tiles2));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_schedule_apply(s, k, STIR_STAGE_3), 0);
	stir_schedule_free(s);
	bind_refused(ctx, k, "sddmm_tiles1", "g_2", STIR_THREAD_Z,
		"25:5: error: bind: local buffer 'S_data_local' "
		"is accessed both inside and outside loop 'g_2', which is bound to "
		"threadIdx.z (and it is no tensor-core accumulator split over the "
		"loop's warps: its 2 tiles are one after another, not side by "
		"side)");
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("frag_split");
	TCase *tc = tcase_create("frag_split");
	tcase_add_test(tc, test_split);
	tcase_add_test(tc, test_digit_below);
	tcase_add_test(tc, test_no_digit);
	tcase_add_test(tc, test_two_indices);
	tcase_add_test(tc, test_one_after_another);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
