/* Tensor cores (docs/ir.md, "Tensorized loops"): the intrinsics' table,
 * the tensorize primitive on BSR SpMM (examples/bsrmm.stir) with the
 * nests it accepts and those it refuses (each with what does not match),
 * the stage III text's round trip, the verifier's check of a
 * hand-written annotation, and the emitter's refusals of launches a warp
 * cannot run.  tests/test_cuda_emu.c runs the tensorized kernels in the
 * CUDA emulation, whose mma.sync decodes every lane's registers with the
 * PTX ISA's fragment layouts; tools/run-gpu-tests runs them on a GPU. */
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>
#include "ir/intrinsics.h"
#include "tests/testdiag.h"
#include "tests/testutil.h"

/* The BSR SpMM of examples/bsrmm.stir up to stage III without its
 * tensorize steps: blocks outermost, the features split in tiles of 8
 * (f_0 on threadIdx.y, f_1), the nest bi, f_1, bj innermost. */
static const char stages[] =
	"kernel: bsrmm\n"
	"stage1:\n"
	"  - sparse_reorder: {iter: bsrmm, order: [i, j, bi, f, bj]}\n"
	"  - specialize: {param: feat, value: 64}\n"
	"stage2:\n"
	"  - split: {block: bsrmm1, loop: f, factors: [null, 8]}\n"
	"  - reorder: {block: bsrmm1, loops: [f_0, j, bi, f_1, bj]}\n"
	"  - bind: {block: bsrmm1, loop: i, to: blockIdx.x}\n"
	"  - bind: {block: bsrmm1, loop: f_0, to: threadIdx.y}\n";

/* ctx, extra, m: kernel bsrmm under "stages" plus the YAML steps
 * "extra" (appended), at stage III; NULL when a step fails. */
static stir_kernel *scheduled(stir_ctx *ctx, const char *extra,
	stir_module **m)
{
	*m = stir_module_read_from_file(ctx, test_path("examples/bsrmm.stir"));
	ck_assert_ptr_nonnull(*m);
	stir_kernel *k = stir_module_find_kernel(*m, "bsrmm");
	char text[4096];
	snprintf(text, sizeof(text), "%s%s", stages, extra);
	stir_schedule *s = stir_schedule_read_from_mem(ctx, "t.yaml", text,
		strlen(text));
	ck_assert_ptr_nonnull(s);
	int rc = stir_schedule_apply(s, k, STIR_STAGE_3);
	stir_schedule_free(s);
	return rc == 0 ? k : NULL;
}

START_TEST(test_table)
{
	ck_assert_int_eq(stir_intrinsic_count(), 6);
	const stir_intrinsic *in = stir_intrinsic_find("mma_m16n8k16_f16");
	ck_assert_ptr_nonnull(in);
	ck_assert(in->m == 16 && in->n == 8 && in->k == 16 && in->in == STIR_F16);
	ck_assert_ptr_null(stir_intrinsic_find("mma_m16n8k16"));
	ck_assert_ptr_null(stir_intrinsic_at(6));
	/* wmma: the API's opaque layout, no lanes to place elements by */
	const stir_intrinsic *w = stir_intrinsic_find("wmma_m16n16k16_f16");
	ck_assert(w && w->m == 16 && w->n == 16 && w->k == 16 && w->align == 32);
	ck_assert_ptr_null(stir_intrinsic_lanes(w, 'c'));
	ck_assert_ptr_nonnull(stir_intrinsic_lanes(in, 'c'));
	ck_assert(stir_intrinsic_find("cp_async_16")->copy && !in->copy);
	/* 3xTF32: tf32's layouts, its inputs read unrounded (f32's error) */
	const stir_intrinsic *x3 = stir_intrinsic_find("mma_m16n8k8_3xtf32");
	const stir_intrinsic *t = stir_intrinsic_find("mma_m16n8k8_tf32");
	ck_assert(x3 && x3->k == 8 && x3->in == STIR_F32 && !x3->tf32 && t->tf32);
	ck_assert_ptr_eq(stir_intrinsic_lanes(x3, 'a'), stir_intrinsic_lanes(t, 'a'));
	ck_assert_ptr_eq(stir_intrinsic_lanes(x3, 'b'), stir_intrinsic_lanes(t, 'b'));
	/* cvt.rna.tf32: 10 mantissa bits, to nearest, ties away from zero */
	ck_assert(stir_round_tf32(1.0 + 1.0 / 4096) == 1.0);
	ck_assert(stir_round_tf32(1.0 + 1.0 / 2048) == 1.0 + 1.0 / 1024);
	ck_assert(stir_round_tf32(-(1.0 + 1.0 / 2048)) == -(1.0 + 1.0 / 1024));
}
END_TEST

START_TEST(test_accepted)
{
	/* the products, then C's tile as a fragment around the blocks */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = scheduled(ctx, "stage3:\n"
		"  - cache_write_over_init: {block: bsrmm1, buffer: C_data, loop: j, "
		"scope: local}\n", &m);
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(stir_tensorize(k, "bsrmm1", "bi", "mma_m16n8k16_f16"),
		0);
	ck_assert_int_eq(stir_tensorize(k, "C_data_local_init", "ax0",
		"mma_m16n8k16_f16"), 0);
	ck_assert_int_eq(stir_tensorize(k, "C_data_local", "ax0",
		"mma_m16n8k16_f16"), 0);
	/* the order of the tile loops does not matter: the indices say which
	 * is M, N and K */
	stir_ctx *c3 = stir_ctx_alloc();
	stir_module *m3;
	stir_kernel *k3 = scheduled(c3, "stage3:\n"
		"  - reorder: {block: bsrmm1, loops: [bj, f_1]}\n", &m3);
	ck_assert_ptr_nonnull(k3);
	ck_assert_int_eq(stir_tensorize(k3, "bsrmm1", "bi", "mma_m16n8k16_f16"),
		0);
	stir_module_free(m3);
	stir_ctx_free(c3);
	/* the tail guard of a split of the blocks (split-K) is tested once
	 * around the tensorized nest */
	stir_ctx *c4 = stir_ctx_alloc();
	stir_module *m4;
	stir_kernel *k4 = scheduled(c4, "stage3:\n"
		"  - split: {block: bsrmm1, loop: j, factors: [null, 2]}\n", &m4);
	ck_assert_ptr_nonnull(k4);
	ck_assert_int_eq(stir_tensorize(k4, "bsrmm1", "bi", "mma_m16n8k16_f16"),
		0);
	char *t4 = stir_kernel_to_str(k4);
	const char *g4 = strstr(t4, "if (j_0 * 2 + j_1 <");
	ck_assert_ptr_nonnull(g4);
	ck_assert_ptr_nonnull(strstr(g4, "for bi in [0, 16) "
		"tensorize(mma_m16n8k16_f16) {"));
	free(t4);
	stir_module_free(m4);
	stir_ctx_free(c4);
	/* a second time: the loop is annotated */
	ck_assert_int_eq(stir_tensorize(k, "bsrmm1", "bi", "mma_m16n8k16_f16"),
		-1);
	ck_assert(test_said(ctx, "loop 'bi' is tensorized already"));
	/* the text shows it, reads back and prints the same */
	char *t = stir_kernel_to_str(k);
	ck_assert_ptr_nonnull(strstr(t, "for bi in [0, 16) "
		"tensorize(mma_m16n8k16_f16) {"));
	ck_assert_ptr_nonnull(strstr(t, "for ax0 in [0, 16) "
		"tensorize(mma_m16n8k16_f16) {"));
	stir_ctx *c2 = stir_ctx_alloc();
	stir_module *m2 = stir_module_read_from_mem(c2, "t.stir", t, strlen(t));
	if (!m2)
		stir_ctx_print_diagnostics(c2, stderr);
	ck_assert_ptr_nonnull(m2);
	char *t2 = stir_kernel_to_str(stir_module_get_kernel(m2, 0));
	ck_assert_str_eq(t, t2);
	/* the CUDA: fragments, no C round trip in the products */
	char *cu = stir_kernel_to_cuda(k);
	if (!cu)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k16_f16_acc "
		"C_data_local;"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k16_f16_mma("
		"C_data_local, stir_fa, stir_fb);"));
	ck_assert_ptr_null(strstr(cu, "_load_acc(stir_fc"));
	ck_assert_ptr_nonnull(strstr(cu, "block (32, 8, 1)"));
	free(cu);
	free(t);
	free(t2);
	stir_module_free(m2);
	stir_ctx_free(c2);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* A refused tensorize: the extra steps, the call's arguments, and what
 * the error must say. */
static const struct {
	const char *extra, *block, *loop, *intrinsic, *says;
} refused[] = {
	{ "", "bsrmm1", "bi", "mma_m16n8k8_tf32",
	  "loop 'bj' (the K dimension) must have the literal extent 8 for "
	  "mma_m16n8k8_tf32" },
	{ "", "bsrmm1", "bi", "mma_m16n8k16_bf16",
	  "A 'A_data' holds f16; mma_m16n8k16_bf16 takes bf16" },
	{ "", "bsrmm1", "bi", "wmma",
	  "unknown intrinsic 'wmma'; the intrinsics are mma_m16n8k16_f16" },
	{ "", "bsrmm1", "bi", "wmma_m16n16k16_f16",
	  "loop 'f_1' (the N dimension) must have the literal extent 16 for "
	  "wmma_m16n16k16_f16" },
	{ "", "bsrmm1", "f_1", "mma_m16n8k16_f16",
	  "the nest must be 3 perfectly nested loops around one store; found "
	  "another statement inside loop 'bj'" },
	{ "stage3:\n  - split: {block: bsrmm1, loop: f_1, factors: [null, 4]}\n",
	  "bsrmm1", "bi", "mma_m16n8k16_f16",
	  "the nest has more than 3 loops: loop 'bj' inside loop 'f_1_1'" },
	{ "stage3:\n  - split: {block: bsrmm1, loop: bj, factors: [null, 8]}\n",
	  "bsrmm1", "bi", "mma_m16n8k16_f16",
	  "the nest has more than 3 loops: loop 'bj_1' inside loop 'bj_0'" },
	{ "stage3:\n  - unroll: {block: bsrmm1, loop: bj}\n",
	  "bsrmm1", "bi", "mma_m16n8k16_f16",
	  "loop 'bj' inside the nest is annotated" },
	/* the tail guard of the split blocks leaves the nest for the match
	 * and comes back when the match fails */
	{ "stage3:\n  - split: {block: bsrmm1, loop: j, factors: [null, 2]}\n",
	  "bsrmm1", "bi", "mma_m16n8k8_tf32",
	  "loop 'bj' (the K dimension) must have the literal extent 8 for "
	  "mma_m16n8k8_tf32" },
	/* a guard on the nest's own loop stays, and the nest does not match */
	{ "stage3:\n  - split: {block: bsrmm1, loop: j, factors: [null, 2]}\n"
	  "  - reorder: {block: bsrmm1, loops: [j_0, bi, f_1, bj, j_1]}\n",
	  "bsrmm1", "bi", "mma_m16n8k16_f16",
	  "the nest has more than 3 loops: loop 'j_1' inside loop 'bj'" },
};

START_TEST(test_refused)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = scheduled(ctx, refused[_i].extra, &m);
	if (!k)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(k);
	char *before = stir_kernel_to_str(k);
	ck_assert_int_eq(stir_tensorize(k, refused[_i].block, refused[_i].loop,
		refused[_i].intrinsic), -1);
	ck_assert(test_said(ctx, refused[_i].says));
	/* nothing changed */
	char *after = stir_kernel_to_str(k);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* ctx, program, kernel, text, m, s: kernel of program (its module in
 * *m), and the schedule file "text" read into *s. */
static stir_kernel *with_schedule_text(stir_ctx *ctx, const char *program,
	const char *kernel, const char *text, stir_module **m,
	stir_schedule **s)
{
	*m = stir_module_read_from_file(ctx, test_path(program));
	ck_assert_ptr_nonnull(*m);
	stir_kernel *k = stir_module_find_kernel(*m, kernel);
	ck_assert_ptr_nonnull(k);
	*s = stir_schedule_read_from_mem(ctx, "t.yaml", text, strlen(text));
	ck_assert_ptr_nonnull(*s);
	return k;
}

/* ctx, program, kernel, file, gpu, m: kernel of program (its module in
 * *m) scheduled by schedule file "file" up to stage III, or for the GPU
 * when "gpu". */
static stir_kernel *read_scheduled(stir_ctx *ctx, const char *program,
	const char *kernel, const char *file, bool gpu, stir_module **m)
{
	*m = stir_module_read_from_file(ctx, test_path(program));
	ck_assert_ptr_nonnull(*m);
	stir_kernel *k = stir_module_find_kernel(*m, kernel);
	stir_schedule *s = stir_schedule_read_from_file(ctx, test_path(file));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(gpu ? stir_schedule_prepare_for_gpu(s, k) :
		stir_schedule_apply(s, k, STIR_STAGE_3), 0);
	stir_schedule_free(s);
	return k;
}

/* ctx, yaml, m: the CUDA of examples/bsrmm.stir under schedule file
 * "yaml" (its module in *m). */
static char *bsrmm_cuda(stir_ctx *ctx, const char *yaml, stir_module **m)
{
	stir_kernel *k = read_scheduled(ctx, "examples/bsrmm.stir", "bsrmm",
		yaml, false, m);
	char *cu = stir_kernel_to_cuda(k);
	if (!cu)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(cu);
	return cu;
}

/* The SDDMM tiles into CSR order (examples/sddmm_tiles_csr.stir,
 * sddmm_tiles_csr_tc.yaml): the accumulator is stored through the
 * distinct map one element at a time; the group's guard, which reads
 * G's indptr, is tested once before the unrolled steps; their fragments
 * are loaded before their mma; with the buffers allocated aligned Y's
 * gathered pairs carry no per-lane test.  Split over thread blocks
 * (sddmm_tiles_csr_splitk.yaml), the elements are added atomically, one
 * by one (two neighbours of a fragment are not neighbours in S). */
START_TEST(test_csr_order)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_scheduled(ctx, "examples/sddmm_tiles_csr.stir",
		"sddmm_tiles_csr", "examples/sddmm_tiles_csr_tc.yaml", true, &m);
	stir_cuda_plan *p = stir_cuda_plan_alloc(k, STIR_CUDA_ALIGNED_BUFFERS);
	ck_assert_ptr_nonnull(p);
	const char *cu = stir_cuda_plan_get_source(p);
	ck_assert_ptr_nonnull(strstr(cu, "S_data[Dst_data[v0 + v1 * 8 + v2]] = "
		"stir_fr.r[stir_e];"));
	ck_assert_ptr_nonnull(strstr(cu, "if (g_0 * 4 + g_1 < G_indptr[vw + 1] - "
		"G_indptr[vw]) {\n              {  // the 4 steps' fragments loaded "
		"first, then their mma"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k8_3xtf32_mma("
		"S_data_local, stir_fa_s[k_0], stir_fb_s[k_0]);"));
	ck_assert_ptr_null(strstr(cu, "stir_q % 8 == 0"));
	stir_cuda_plan_free(p);
	/* without aligned buffers, each lane tests its pair's address */
	char *plain = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(strstr(plain, "stir_q % 8 == 0"));
	free(plain);
	stir_module_free(m);
	k = read_scheduled(ctx, "examples/sddmm_tiles_csr.stir",
		"sddmm_tiles_csr", "examples/sddmm_tiles_csr_splitk.yaml", true, &m);
	plain = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(strstr(plain, "atomicAdd(&S_data[Dst_data[v0 + "
		"v1 * 8 + v2]], stir_fr.r[stir_e]);"));
	ck_assert_ptr_null(strstr(plain, "atomicAdd((float2 *)"));
	free(plain);
	stir_module_free(m);
	/* two groups a warp (sddmm_tiles_csr_tiles2.yaml): the accumulator
	 * two fragments one after another, the tile base / 128; each
	 * group's steps loaded first under its guard, each fragment stored
	 * under its own; X's fragments (B), the same for both groups, loaded
	 * once before the group loop where some group's guard holds
	 * (cuda_mma_invariant_steps), so the steps load only Y's */
	k = read_scheduled(ctx, "examples/sddmm_tiles_csr.stir",
		"sddmm_tiles_csr", "examples/sddmm_tiles_csr_tiles2.yaml", true, &m);
	plain = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(strstr(plain, "stir_mma_m16n8k8_3xtf32_acc "
		"S_data_local[2];"));
	ck_assert_ptr_nonnull(strstr(plain, "stir_mma_m16n8k8_3xtf32_mma("
		"S_data_local[((g_2 * 16 + c) * 8 + r) / 128], stir_fa_s[k_0_1], "
		"stir_fb_h[k_0_1]);"));
	ck_assert_ptr_nonnull(strstr(plain, "stir_mma_m16n8k8_3xtf32_b "
		"stir_fb_h[2];\n"));
	ck_assert_ptr_nonnull(strstr(plain, "for (int g_2 = 0; g_2 < 2; ++g_2)\n"
		"                  stir_any = stir_any || (g_0 * 4 + g_1) * 2 + g_2 "
		"< G_indptr[vw + 1] - G_indptr[vw];\n"
		"                if (stir_any) {\n"));
	const char *xl = strstr(plain, "load_b_t(stir_fb_h[k_0_1], "
		"&X_data[(vw * 8 + vr) * 32 + vk], 32);");
	ck_assert_ptr_nonnull(xl);
	ck_assert_ptr_null(strstr(xl + 1, "load_b_t("));
	ck_assert_ptr_null(strstr(plain, "stir_fb_s"));
	ck_assert_ptr_nonnull(strstr(plain, "if ((g_0 * 4 + g_1) * 2 + g_2 < "
		"G_indptr[vw + 1] - G_indptr[vw]) {\n"));
	ck_assert_ptr_nonnull(strstr(plain, "if ((g_0 * 4 + g_1) * 2 + v1 < "
		"G_indptr[vw + 1] - G_indptr[vw])\n"));
	free(plain);
	stir_module_free(m);
	/* the stage III text with the map's index transposed (the tile's
	 * rows 1 apart, as its columns): the reader's verifier refuses it,
	 * saying where */
	k = read_scheduled(ctx, "examples/sddmm_tiles_csr.stir",
		"sddmm_tiles_csr", "examples/sddmm_tiles_csr_tc.yaml", false, &m);
	char *t = stir_kernel_to_str(k);
	char *at = strstr(t, "S_data[Dst_data[v0 + v1 * 8 + v2]] = ");
	ck_assert_ptr_nonnull(at);
	memcpy(at + 16, "v0 + v1 * 1 + v2", 16);
	ck_assert_ptr_null(stir_module_read_from_mem(ctx, "t.stir", t,
		strlen(t)));
	ck_assert(test_said(ctx, "39:47: error: loop 'ax0' is tensorized "
		"with mma_m16n8k8_3xtf32, but its nest does not compute it: the "
		"index into the distinct map 'Dst_data' must take the tile's "
		"elements to distinct entries"));
	free(t);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* The operand the steps share is loaded once before an unrolled loop
 * around them only when its index does not use that loop's variable
 * (cuda_mma_invariant_steps): with the features' pieces k_0_0 unrolled
 * around the steps k_0_1 (one group a warp), X's index uses k_0_0, so
 * each piece's steps load X themselves, after Y's. */
START_TEST(test_invariant_steps_declined)
{
	static const char yaml[] =
		"kernel: sddmm_tiles_csr\n"
		"stage1:\n"
		"  - specialize: {param: feat, value: 32}\n"
		"stage2:\n"
		"  - split: {block: sddmm_tiles1, loop: k, factors: [null, 8]}\n"
		"  - split: {block: sddmm_tiles1, loop: k_0, factors: [null, 2]}\n"
		"  - split: {block: sddmm_tiles1, loop: g, factors: [null, 4]}\n"
		"  - reorder: {block: sddmm_tiles1, loops: [g_0, g_1, k_0_0, "
		"k_0_1, c, r, k_1]}\n"
		"  - bind: {block: sddmm_tiles0, loop: w, to: blockIdx.x}\n"
		"  - bind: {block: sddmm_tiles1, loop: g_1, to: threadIdx.y}\n"
		"  - unroll: {block: sddmm_tiles1, loop: k_0_1}\n"
		"stage3:\n"
		"  - cache_write_over_init: {block: sddmm_tiles1, buffer: S_data, "
		"loop: k_0_0, scope: local}\n"
		"  - unroll: {block: sddmm_tiles1, loop: k_0_0}\n"
		"  - tensorize: {block: S_data_local_init, loop: ax0, "
		"intrinsic: mma_m16n8k8_3xtf32}\n"
		"  - tensorize: {block: sddmm_tiles1, loop: c, "
		"intrinsic: mma_m16n8k8_3xtf32}\n"
		"  - tensorize: {block: S_data_local, loop: ax0, "
		"intrinsic: mma_m16n8k8_3xtf32}\n";
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_schedule *s;
	stir_kernel *k = with_schedule_text(ctx,
		"examples/sddmm_tiles_csr.stir", "sddmm_tiles_csr", yaml, &m, &s);
	ck_assert_int_eq(stir_schedule_prepare_for_gpu(s, k), 0);
	stir_schedule_free(s);
	char *cu = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_null(strstr(cu, "stir_fb_h"));
	const char *piece = strstr(cu, "for (int k_0_0 = 0; k_0_0 < 2; "
		"++k_0_0) {\n");
	ck_assert_ptr_nonnull(piece);
	const char *x = strstr(piece, "_load_b_t(stir_fb, "
		"&X_data[(vw * 8 + vr) * 32 + vk], 32);");
	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_nonnull(strstr(piece, "stir_fb_s[2];"));
	free(cu);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* wmma (tests/tensorize/bsrmm_wmma.yaml): its nests print as the API's
 * calls; misaligned tiles, an atomic store and an operand in local memory
 * are refused, with what does not match. */
START_TEST(test_wmma)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k;
	stir_schedule *s;
	char *cu = bsrmm_cuda(ctx, "tests/tensorize/bsrmm_wmma.yaml", &m);
	ck_assert_ptr_nonnull(strstr(cu, "#include <mma.h>"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_wmma::mma_sync(f, a.row, b.row, f);"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_wmma_m16n16k16_f16_mma("
		"C_data_local, stir_fa, stir_fb);"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_wmma_m16n16k16_f16_store_acc("
		"&C_data[v0 + v1 * 64 + v2], 64, C_data_local);"));
	ck_assert_ptr_null(strstr(cu, "stir_mma_m16n8k16"));
	free(cu);
	/* the stage III text with B's tiles 8 features apart: not 32-byte
	 * aligned, which the reader's verifier refuses */
	char *t = stir_kernel_to_str(stir_module_find_kernel(m, "bsrmm"));
	char *at = strstr(t, "vf: S = f_0 * 16 + f_1");
	ck_assert_ptr_nonnull(at);
	memcpy(at + 14, "8 + f_1 ", 8);
	ck_assert_ptr_null(stir_module_read_from_mem(ctx, "t.stir", t,
		strlen(t)));
	ck_assert(test_said(ctx, "the index of B 'B_data' at the tile's first element "
		"must be a multiple of 16 (32 bytes): wmma_m16n16k16_f16 loads "
		"aligned tiles"));
	free(t);
	stir_module_free(m);
	static const struct {
		const char *stage3, *block, *says;
	} cases[] = {
		{ "  - set_atomic: {block: bsrmm1}\n"
		  "stage3:\n"
		  "  - cache_write: {block: bsrmm1, buffer: C_data, loop: j, "
		  "scope: local}\n", "C_data_local",
		  "the fragment layout of wmma_m16n16k16_f16 is opaque: it takes "
		  "no atomic store" },
		{ "stage3:\n"
		  "  - cache_read: {block: bsrmm1, buffer: A_data, loop: bi, "
		  "scope: local}\n", "bsrmm1",
		  "wmma_m16n16k16_f16 loads A and B from global or shared memory "
		  "and stores C in global memory; A 'A_data_local' is in neither" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char y[2048];
		snprintf(y, sizeof(y), "kernel: bsrmm\n"
			"stage1:\n"
			"  - sparse_reorder: {iter: bsrmm, order: [i, j, bi, f, bj]}\n"
			"  - specialize: {param: feat, value: 64}\n"
			"stage2:\n"
			"  - split: {block: bsrmm1, loop: f, factors: [null, 16]}\n"
			"  - reorder: {block: bsrmm1, loops: [f_0, j, bi, f_1, bj]}\n"
			"%s", cases[i].stage3);
		m = stir_module_read_from_file(ctx, test_path("examples/bsrmm.stir"));
		k = stir_module_find_kernel(m, "bsrmm");
		s = stir_schedule_read_from_mem(ctx, "t.yaml", y, strlen(y));
		ck_assert_ptr_nonnull(s);
		if (stir_schedule_apply(s, k, STIR_STAGE_3) != 0)
			stir_ctx_print_diagnostics(ctx, stderr);
		stir_schedule_free(s);
		ck_assert_int_eq(stir_tensorize(k, cases[i].block,
			!strcmp(cases[i].block, "bsrmm1") ? "bi" : "ax0",
			"wmma_m16n16k16_f16"), -1);
		ck_assert(test_said(ctx, cases[i].says));
		stir_module_free(m);
	}
	stir_ctx_free(ctx);
}
END_TEST

/* Several tiles of C a warp (tests/tensorize/bsrmm_tc_tiles.yaml): the
 * accumulator is four fragments, each nest uses the one of its tile; a
 * fill nest over the tiles' columns (not one tile) is refused. */
START_TEST(test_tiles)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	char *cu = bsrmm_cuda(ctx, "tests/tensorize/bsrmm_tc_tiles.yaml", &m);
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k16_f16_acc "
		"C_data_local[4];  // 4 tensor-core fragments"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k16_f16_mma("
		"C_data_local[((bi * 4 + f_2) * 8 + f_3) / 8], stir_fa, stir_fb);"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k16_f16_fill("
		"C_data_local[((v1 * 4 + v2) * 8 + v3) / 8], 0.0f);"));
	free(cu);
	stir_module_free(m);
	/* without the reorder, loops ax1 (the tiles) and ax2 are no tile */
	m = stir_module_read_from_file(ctx, test_path("examples/bsrmm.stir"));
	stir_kernel *k = stir_module_find_kernel(m, "bsrmm");
	static const char y[] =
		"kernel: bsrmm\n"
		"stage1:\n"
		"  - sparse_reorder: {iter: bsrmm, order: [i, j, bi, f, bj]}\n"
		"  - specialize: {param: feat, value: 64}\n"
		"stage2:\n"
		"  - split: {block: bsrmm1, loop: f, factors: [null, 2, 4, 8]}\n"
		"  - reorder: {block: bsrmm1, loops: [f_0, f_1, j, f_2, bi, f_3, bj]}\n"
		"stage3:\n"
		"  - cache_write_over_init: {block: bsrmm1, buffer: C_data, loop: j, "
		"scope: local}\n";
	stir_schedule *s = stir_schedule_read_from_mem(ctx, "t.yaml", y,
		strlen(y));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_schedule_apply(s, k, STIR_STAGE_3), 0);
	stir_schedule_free(s);
	ck_assert_int_eq(stir_tensorize(k, "C_data_local_init", "ax1",
		"mma_m16n8k16_f16"), -1);
	ck_assert(test_said(ctx, "must be indexed [ax1 * 32 + ax2] plus a multiple "
		"of the tile width"));
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* ctx, file, extra, m: kernel bsrmm scheduled by schedule file "file"
 * for the GPU; or, when extra is not NULL, up to stage III with the lines
 * of the file holding "tensorize" left out and extra appended; NULL when
 * a step fails. */
static stir_kernel *from_file(stir_ctx *ctx, const char *file,
	const char *extra, stir_module **m)
{
	*m = stir_module_read_from_file(ctx, test_path("examples/bsrmm.stir"));
	ck_assert_ptr_nonnull(*m);
	stir_kernel *k = stir_module_find_kernel(*m, "bsrmm");
	FILE *f = fopen(test_path(file), "r");
	ck_assert_ptr_nonnull(f);
	char text[8192], line[512];
	size_t n = 0;
	while (fgets(line, sizeof(line), f))
		if (!extra || !strstr(line, "tensorize"))
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", line);
	fclose(f);
	if (extra)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", extra);
	ck_assert_uint_lt(n, sizeof(text));
	stir_schedule *s = stir_schedule_read_from_mem(ctx, file, text, n);
	ck_assert_ptr_nonnull(s);
	/* the whole schedule for the GPU (its barriers), or up to stage III
	 * for more steps */
	int rc = extra ? stir_schedule_apply(s, k, STIR_STAGE_3) :
		stir_schedule_prepare_for_gpu(s, k);
	stir_schedule_free(s);
	return rc == 0 ? k : NULL;
}

/* Staging through shared memory (tests/tensorize/bsrmm_tc_smem.yaml,
 * bsrmm_tc_cp.yaml): operands in shared buffers load with ldmatrix; the
 * copies tensorized with cp_async_16 move 16-byte pieces into buffers the
 * emitter swizzles (only the copies and ldmatrix touch them); copies that
 * are not one are refused with what does not match. */
START_TEST(test_staged)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = from_file(ctx, "tests/tensorize/bsrmm_tc_smem.yaml",
		NULL, &m);
	ck_assert_ptr_nonnull(k);
	char *cu = stir_kernel_to_cuda(k);
	if (!cu)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(cu);
	/* copied by plain stores: ldmatrix, not swizzled */
	ck_assert_ptr_nonnull(strstr(cu, "__shared__ __align__(16) __half "
		"B_data_shared[1024];"));
	/* A's tile is the same for the 8 tiles of the unrolled f_1: loaded
	 * once before it, each product reuses it; B's 8 tiles, 8 columns
	 * apart, load two at a time first (cuda_mma_invariant_a_pairs) */
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k16_f16_ldsm_a("
		"stir_fa_loop, A_data_shared, bi * 16 + bj, 16, 0);\n"
		"              }\n"
		"              {  // B's 8 tiles (one a f_1) loaded, then their mma "
		"with A's\n"
		"                stir_mma_m16n8k16_f16_b stir_fb_r[8];\n"
		"                #pragma unroll\n"
		"                for (int f_1 = 0; f_1 < 8; f_1 += 2) {"));
	ck_assert_ptr_null(strstr(cu, "ldsm_a(stir_fa,"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k16_f16_ldsm_b2("
		"stir_fb_r[f_1], stir_fb_r[f_1 + 1], B_data_shared, (bj * 8 + f_1) "
		"* 8 + f_2, 64, 0);"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k16_f16_mma(C_data_local"
		"[((bi * 8 + f_1) * 8 + f_2) / 8], stir_fa_loop, stir_fb_r[f_1]);"));
	ck_assert_ptr_nonnull(strstr(cu, "STIR_K16_LDSM(stir_mma_m16n8k16_f16, "
		"__half)"));
	ck_assert_ptr_null(strstr(cu, "stir_cp_async_16("));
	free(cu);
	stir_module_free(m);

	k = from_file(ctx, "tests/tensorize/bsrmm_tc_cp.yaml", NULL, &m);
	ck_assert_ptr_nonnull(k);
	cu = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "stir_cp_async_16(&stir_cd[stir_swz("
		"stir_co + (stir_c / 8) * 64 + (stir_c % 8) * 8, 8)], "
		"&stir_cs[(stir_c / 8) * 128 + (stir_c % 8) * 8]);"));
	ck_assert_ptr_nonnull(strstr(cu, "for (int stir_c = stir_lane(); "
		"stir_c < 32; stir_c += 32)"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k16_f16_ldsm_b2("
		"stir_fb_r[f_1], stir_fb_r[f_1 + 1], B_data_shared, (bj * 8 + f_1) "
		"* 8 + f_2, 64, 1);"));
	/* the stage III text reads back (the verifier matches the copies
	 * again) and prints the same kernel and the same CUDA (but for the
	 * file named in a comment) */
	char *t = stir_kernel_to_str(k);
	ck_assert_ptr_nonnull(strstr(t, "tensorize(cp_async_16)"));
	stir_ctx *c2 = stir_ctx_alloc();
	stir_module *m2 = stir_module_read_from_mem(c2, "t.stir", t, strlen(t));
	if (!m2)
		stir_ctx_print_diagnostics(c2, stderr);
	ck_assert_ptr_nonnull(m2);
	char *t2 = stir_kernel_to_str(stir_module_get_kernel(m2, 0));
	ck_assert(t2 && !strcmp(t, t2));
	char *cu2 = stir_kernel_to_cuda(stir_module_get_kernel(m2, 0));
	ck_assert_ptr_nonnull(cu2);
	/* the same but for the source location in the launch's comment */
	const char *l1 = strstr(cu, "// launch 0"), *l2 = strstr(cu2,
		"// launch 0");
	ck_assert(l1 && l2 && l1 - cu == l2 - cu2 && !strncmp(cu, cu2,
		(size_t)(l1 - cu)));
	ck_assert(!strcmp(strchr(l1, '\n'), strchr(l2, '\n')));
	free(cu2);
	free(t2);
	free(t);
	stir_module_free(m2);
	stir_ctx_free(c2);
	free(cu);
	stir_module_free(m);

	static const struct {
		const char *extra, *block, *loop, *says;
	} bad[] = {
		{ "", "bsrmm1", "bi", "cp_async_16 copies: the store must assign a "
		  "load of a flat buffer (S[..] = X[..])" },
		{ "  - fuse: {block: B_data_shared, loops: [ax1, ax2]}\n"
		  "  - split: {block: B_data_shared, loop: ax1_ax2, factors: "
		  "[null, 4]}\n", "B_data_shared", "ax0", "the index is not an "
		  "affine function of loop 'ax1_ax2_0' with a literal coefficient" },
		{ "  - reorder: {block: A_data_shared, loops: [ax1, ax0]}\n",
		  "A_data_shared", "ax1", "the innermost loop 'ax0' must have "
		  "stride 1 in both indices" },
		{ "  - split: {block: A_data_shared, loop: ax1, factors: [null, 4]}\n",
		  "A_data_shared", "ax0", "loop 'ax1_0' must have strides that are "
		  "multiples of 16 bytes: the copy moves pieces of 16 bytes (8 "
		  "elements)" },
		{ "  - split: {block: A_data_shared, loop: ax1, factors: [null, 4]}\n",
		  "A_data_shared", "ax1_1", "loop 'ax1_1' must have an extent that "
		  "is a multiple of 16 bytes" },
		{ "  - cache_read: {block: bsrmm1, buffer: A_data_shared, loop: bi, "
		  "scope: local}\n", "A_data_shared_local", "ax0",
		  "cp_async_16 copies into shared memory; 'A_data_shared_local' is "
		  "not shared" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		k = from_file(ctx, "tests/tensorize/bsrmm_tc_cp.yaml", bad[i].extra,
			&m);
		if (!k)
			stir_ctx_print_diagnostics(ctx, stderr);
		ck_assert_ptr_nonnull(k);
		ck_assert_int_eq(stir_tensorize(k, bad[i].block, bad[i].loop,
			"cp_async_16"), -1);
		ck_assert(test_said(ctx, bad[i].says));
		stir_module_free(m);
	}
	stir_ctx_free(ctx);
}
END_TEST

/* A software pipeline (tests/tensorize/bsrmm_tc_pipe.yaml): the copied
 * buffers hold 3 slots indexed by j % 3, the loop prints as pipeline(3)
 * and reads back; the CUDA issues the copies two blocks ahead, one commit
 * group a block, and waits for all but the newest two; requests that
 * cannot be pipelined are refused with why, the kernel unchanged. */
START_TEST(test_pipeline)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = from_file(ctx, "tests/tensorize/bsrmm_tc_pipe.yaml",
		NULL, &m);
	if (!k)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(k);
	char *t = stir_kernel_to_str(k);
	ck_assert_ptr_nonnull(strstr(t, "pipeline(3) {"));
	ck_assert_ptr_nonnull(strstr(t, "buffer A_data_shared: f16[768] shared;"));
	ck_assert_ptr_nonnull(strstr(t, "A_data_shared[j % 3 * 256 + (v1 * 16 + "
		"v2)] = A_data[v0 + v1 * 16 + v2];"));
	char *cu = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "__shared__ __align__(16) __half "
		"B_data_shared[3072];"));
	ck_assert_ptr_nonnull(strstr(cu, "for (int stir_p0 = 0; stir_p0 < 2; "
		"++stir_p0) {"));
	ck_assert_ptr_nonnull(strstr(cu, "const int stir_p0 = j + 2;"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_cp_async_16_ahead(&stir_cd["));
	ck_assert_ptr_nonnull(strstr(cu, "stir_cp_async_commit();\n"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_cp_async_wait_group<2>();\n"
		"              __syncthreads();"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k16_f16_ldsm_a("
		"stir_fa_loop, A_data_shared, j % 3 * 256 + (bi * 16 + bj), 16, "
		"1);"));
	/* no copy waits for all of its pieces at once */
	ck_assert_ptr_null(strstr(cu, "stir_cp_async_wait();"));
	free(cu);
	/* the text reads back and prints the same; a count out of range is
	 * an error where it is written */
	test_reads_back(t, "pipeline(3)", "pipeline(9)",
		"a pipeline has 2 to 8 stages, not 9");
	free(t);
	stir_module_free(m);

	/* a hand-written pipeline over buffers without slots: the
	 * interpreter runs it, the GPU verifier refuses it (and so the
	 * emitter) */
	k = from_file(ctx, "tests/tensorize/bsrmm_tc_cp.yaml", NULL, &m);
	ck_assert_ptr_nonnull(k);
	t = stir_kernel_to_str(k);
	stir_module_free(m);
	const char *hd = "for j in [0, J_indptr[vi + 1] - J_indptr[vi]) {";
	char *at = strstr(t, hd);
	ck_assert_ptr_nonnull(at);
	size_t pre = (size_t)(at - t) + strlen(hd) - 2;
	char *hand = malloc(strlen(t) + 16);
	snprintf(hand, strlen(t) + 16, "%.*s pipeline(2)%s", (int)pre, t,
		t + pre);
	m = stir_module_read_from_mem(ctx, "t.stir", hand, strlen(hand));
	if (!m)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(stir_kernel_verify_gpu(stir_module_get_kernel(m, 0)),
		-1);
	ck_assert(test_said(ctx, "pipelined loop 'j': shared buffer 'B_data_shared' "
		"is not held in 2 slots indexed 'j % 2 * E + ..'"));
	ck_assert_ptr_null(stir_kernel_to_cuda(stir_module_get_kernel(m, 0)));
	stir_module_free(m);
	free(hand);
	free(t);

	static const char copies[] =
		"  - tensorize: {block: B_data_shared, loop: ax0, intrinsic: "
		"cp_async_16}\n"
		"  - tensorize: {block: A_data_shared, loop: ax0, intrinsic: "
		"cp_async_16}\n";
	static const struct {
		const char *extra, *loop;
		int stages;
		const char *says;
	} refused[] = {
		{ "", "j", 2, "the body of loop 'j' does not open with a copy nest "
		  "into shared memory" },
		{ copies, "bi", 2, "the body of loop 'bi' does not open with a "
		  "copy nest" },
		{ copies, "j", 1, "a pipeline has 2 to 8 stages, not 1" },
		{ copies, "j", 9, "a pipeline has 2 to 8 stages, not 9" },
		{ "  - unroll: {block: bsrmm1, loop: j}\n", "j", 2, "loop 'j' is "
		  "unrolled already; a pipeline runs a serial loop" },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		k = from_file(ctx, "tests/tensorize/bsrmm_tc_cp.yaml",
			refused[i].extra, &m);
		if (!k)
			stir_ctx_print_diagnostics(ctx, stderr);
		ck_assert_ptr_nonnull(k);
		char *before = stir_kernel_to_str(k);
		ck_assert_int_eq(stir_software_pipeline(k, "bsrmm1", refused[i].loop,
			refused[i].stages), -1);
		ck_assert(test_said(ctx, refused[i].says));
		char *after = stir_kernel_to_str(k);
		ck_assert_str_eq(after, before);
		free(after);
		free(before);
		stir_module_free(m);
	}
	stir_ctx_free(ctx);
}
END_TEST

/* A shared cache under a loop bound to a thread index whose region
 * depends on that loop (each warp's own block of the row) is refused: the
 * warps would copy different regions into the one buffer. */
START_TEST(test_shared_per_thread)
{
	static const char text[] =
		"kernel: bsrmm\n"
		"stage1:\n"
		"  - sparse_reorder: {iter: bsrmm, order: [i, j, bi, f, bj]}\n"
		"  - specialize: {param: feat, value: 128}\n"
		"stage2:\n"
		"  - split: {block: bsrmm1, loop: f, factors: [null, 8, 8]}\n"
		"  - split: {block: bsrmm1, loop: j, factors: [null, 4]}\n"
		"  - reorder: {block: bsrmm1, loops: [f_0, j_1, j_0, f_1, bi, f_2, "
		"bj]}\n"
		"  - set_atomic: {block: bsrmm1}\n"
		"  - bind: {block: bsrmm1, loop: i, to: blockIdx.x}\n"
		"  - bind: {block: bsrmm1, loop: f_0, to: blockIdx.y}\n"
		"  - bind: {block: bsrmm1, loop: j_1, to: threadIdx.y}\n"
		"stage3:\n"
		"  - cache_write: {block: bsrmm1, buffer: C_data, loop: j_1, scope: "
		"shared}\n";
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_schedule *s;
	stir_kernel *k = with_schedule_text(ctx, "examples/bsrmm.stir",
		"bsrmm", text, &m, &s);
	/* the sums of the warps in one shared strip: its region is the same
	 * for every warp */
	int rc = stir_schedule_apply(s, k, STIR_STAGE_3);
	if (rc)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_int_eq(rc, 0);
	stir_schedule_free(s);
	char *before = stir_kernel_to_str(k);
	ck_assert_int_eq(stir_cache_read(k, "bsrmm1", "B_data", "f_1",
		STIR_SCOPE_SHARED), -1);
	ck_assert(test_said(ctx, "the region of 'B_data' under loop 'f_1' depends on "
		"loop 'j_1', bound to threadIdx.y: its threads would copy different "
		"regions into one shared cache"));
	ck_assert_int_eq(stir_cache_read(k, "bsrmm1", "A_data", "f_1",
		STIR_SCOPE_SHARED), -1);
	ck_assert(test_said(ctx, "the region of 'A_data' under loop 'f_1' depends on "
		"loop 'j_1'"));
	char *after = stir_kernel_to_str(k);
	ck_assert_str_eq(after, before);
	free(after);
	free(before);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* Caches per loop (stir_cache_read_per, stir_cache_write_per): a row's
 * blocks over 4 warps (tests/tensorize/bsrmm_tc_warps.yaml), each warp's
 * copies in a slot of its own and its partial strip of C in shared
 * memory, summed without atomics; and the requests refused with why,
 * each leaving the kernel as it was. */
START_TEST(test_per_warp)
{
	static const char text[] =
		"kernel: bsrmm\n"
		"stage1:\n"
		"  - sparse_reorder: {iter: bsrmm, order: [i, j, bi, f, bj]}\n"
		"  - specialize: {param: feat, value: 128}\n"
		"stage2:\n"
		"  - split: {block: bsrmm1, loop: f, factors: [null, 4, 8]}\n"
		"  - split: {block: bsrmm1, loop: j, factors: [null, 4]}\n"
		"  - reorder: {block: bsrmm1, loops: [f_0, j_1, j_0, f_1, bi, f_2, "
		"bj]}\n"
		"  - bind: {block: bsrmm1, loop: i, to: blockIdx.x}\n"
		"  - bind: {block: bsrmm1, loop: f_0, to: blockIdx.y}\n";
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_schedule *s;
	stir_kernel *k = with_schedule_text(ctx, "examples/bsrmm.stir",
		"bsrmm", text, &m, &s);
	ck_assert_int_eq(stir_schedule_apply(s, k, STIR_STAGE_3), 0);
	stir_schedule_free(s);
	const stir_scope sh = STIR_SCOPE_SHARED;
	char *before = stir_kernel_to_str(k);
	ck_assert_int_eq(stir_cache_read_per(k, "bsrmm1", "B_data", "f_1", sh,
		"g"), -1);
	ck_assert(test_said(ctx, "per: loop 'g' is neither loop 'f_1' nor a loop "
		"around it"));
	ck_assert_int_eq(stir_cache_read_per(k, "bsrmm1", "B_data", "f_1", sh,
		"j_0"), -1);
	ck_assert(test_said(ctx, "loop 'j_0' has extent (J_indptr[vi + 1] - "
		"J_indptr[vi] + 3) / 4: a cache per loop needs a literal extent "
		"from 1 to 32"));
	ck_assert_int_eq(stir_cache_read_per(k, "bsrmm1", "B_data", "f_1",
		STIR_SCOPE_WARP, "j_1"), -1);
	ck_assert(test_said(ctx, "a cache per loop is a shared or local cache_read"));
	ck_assert_int_eq(stir_cache_write_per(k, "bsrmm1", "C_data", "j_0", sh,
		false, "j_1"), -1);
	ck_assert(test_said(ctx, "a cache_write per loop 'j_1' around loop 'j_0' "
		"would write 'C_data' back once per iteration of 'j_1'"));
	ck_assert_int_eq(stir_cache_read_per(k, "bsrmm1", "B_data", "j_1", sh,
		"j_1"), -1);
	ck_assert(test_said(ctx, "a cache per loop 'j_1' taken at that loop holds "
		"partial sums: block 'bsrmm1' must only add into 'B_data'"));
	char *after = stir_kernel_to_str(k);
	ck_assert_str_eq(after, before);
	free(after);
	free(before);
	/* the partial strips alone: the products still store into shared
	 * memory, so j_1 may not go to threadIdx.y yet, and once it has, a
	 * cache of what each warp reads is refused (per j_1 comes first) */
	ck_assert_int_eq(stir_cache_write_per(k, "bsrmm1", "C_data", "j_1", sh,
		true, "j_1"), 0);
	ck_assert_int_eq(stir_bind(k, "bsrmm1", "j_1", STIR_THREAD_Y), -1);
	ck_assert(test_said(ctx, "loop 'j_1' iterates reduction variable 'vj' of "
		"block 'bsrmm1', which is neither atomic nor cross-thread"));
	ck_assert_int_eq(stir_cache_write(k, "bsrmm1", "C_data_shared", "j_0",
		STIR_SCOPE_LOCAL), 0);
	ck_assert_int_eq(stir_bind(k, "bsrmm1", "j_1", STIR_THREAD_Y), 0);
	before = stir_kernel_to_str(k);
	ck_assert_int_eq(stir_cache_read_per(k, "bsrmm1", "B_data", "f_1", sh,
		"j_1"), -1);
	ck_assert(test_said(ctx, "the region of 'B_data' under loop 'f_1' depends on "
		"loop 'j_1', bound to threadIdx.y: its threads would copy different "
		"regions into one shared cache (a cache per loop 'j_1', made before "
		"the loop is bound, gives each its own copy)"));
	after = stir_kernel_to_str(k);
	ck_assert_str_eq(after, before);
	free(after);
	free(before);
	stir_module_free(m);

	/* the whole schedule: 4 warps a thread block, slots of 4 stages for
	 * each, the 4 strips summed into C by a plain store; applied with the
	 * schedule log on, which prints the per: steps as the file has them */
	m = stir_module_read_from_file(ctx, test_path("examples/bsrmm.stir"));
	ck_assert_ptr_nonnull(m);
	k = stir_module_find_kernel(m, "bsrmm");
	stir_kernel_set_schedule_log(k, true);
	s = stir_schedule_read_from_file(ctx,
		test_path("tests/tensorize/bsrmm_tc_warps.yaml"));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_schedule_prepare_for_gpu(s, k), 0);
	stir_schedule_free(s);
	char *log = stir_kernel_schedule_to_str(k, NULL);
	ck_assert_ptr_nonnull(log);
	ck_assert_ptr_nonnull(strstr(log, "cache_write_over_init: {block: "
		"bsrmm1, buffer: C_data, loop: j_1, scope: shared, per: j_1}"));
	ck_assert_ptr_nonnull(strstr(log, "cache_read: {block: bsrmm1, buffer: "
		"A_data, loop: f_1, scope: shared, per: j_1}"));
	char *cu = stir_kernel_to_cuda(k);
	if (!cu)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(cu);
	/* the log, applied to the program again, makes the same CUDA */
	stir_module *m2 = stir_module_read_from_file(ctx,
		test_path("examples/bsrmm.stir"));
	ck_assert_ptr_nonnull(m2);
	stir_kernel *k2 = stir_module_find_kernel(m2, "bsrmm");
	s = stir_schedule_read_from_mem(ctx, "log.yaml", log, strlen(log));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_schedule_prepare_for_gpu(s, k2), 0);
	stir_schedule_free(s);
	char *cu2 = stir_kernel_to_cuda(k2);
	ck_assert_ptr_nonnull(cu2);
	ck_assert_str_eq(cu2, cu);
	free(cu2);
	free(log);
	stir_module_free(m2);
	ck_assert_ptr_nonnull(strstr(cu, "grid (mb, 4, 1), block (32, 4, 1)"));
	ck_assert_ptr_nonnull(strstr(cu, "__shared__ float C_data_shared[2048];"));
	ck_assert_ptr_nonnull(strstr(cu, "__shared__ __align__(16) __half "
		"B_data_shared[8192];"));
	ck_assert_ptr_nonnull(strstr(cu, "const int j_1 = threadIdx.y;"));
	/* A's tile loaded once for the 4 tiles, under the split's tail guard
	 * that the products are under */
	ck_assert_ptr_nonnull(strstr(cu, "if (j_0 * 4 + j_1 < J_indptr[vi + 1] "
		"- J_indptr[vi]) {\n"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k16_f16_ldsm_a("
		"stir_fa_loop, A_data_shared, j_0 % 4 * 1024 + (j_1 * 256 + (bi * "
		"16 + bj)), 16, 1);"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k16_f16_store_acc("
		"&C_data_shared[v0 + v1 * 32 + v2 * 8 + v3], 32, stir_fc);"));
	ck_assert_ptr_nonnull(strstr(cu, "C_data_shared[1536 + ((v1 * 4 + v2) "
		"* 8 + v3)]"));
	/* no atomics in the kernel (the prelude defines them) */
	ck_assert_ptr_nonnull(strstr(cu, "__global__"));
	ck_assert_ptr_null(strstr(strstr(cu, "__global__"), "atomic"));
	free(cu);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* prog, file, from, to: stir_schedule_prepare_for_gpu (which runs the
 * GPU verifier) of schedule file "file", its text "from" replaced by
 * "to", on the kernel "bsrmm" of program prog; the module in *m. */
static int edited(stir_ctx *ctx, const char *prog, const char *file,
	const char *from, const char *to, stir_module **m)
{
	*m = stir_module_read_from_file(ctx, test_path(prog));
	ck_assert_ptr_nonnull(*m);
	stir_kernel *k = stir_module_find_kernel(*m, "bsrmm");
	FILE *f = fopen(test_path(file), "r");
	ck_assert_ptr_nonnull(f);
	char text[8192], line[512];
	size_t n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *at = strstr(line, from);
		if (at)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%.*s%s%s",
				(int)(at - line), line, to, at + strlen(from));
		else
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", line);
	}
	fclose(f);
	ck_assert_uint_lt(n, sizeof(text));
	stir_schedule *s = stir_schedule_read_from_mem(ctx, file, text, n);
	ck_assert_ptr_nonnull(s);
	int rc = stir_schedule_prepare_for_gpu(s, k);
	stir_schedule_free(s);
	return rc;
}

/* The shared memory of a kernel, every stage of its pipelines and every
 * warp's copies counted, is checked by the GPU verifier (and so by the
 * emitter), at the launch's statement, against the 227 KiB an sm_90 thread
 * block may have: 32 warps a block row with copies of their own (256 KiB)
 * are refused, 4 warps (32 KiB) are not.  Up to 48 KiB the shared arrays
 * are static (blocks of 64 over 3 stages, 30 KiB); above, pieces of the
 * launch's dynamic shared memory, whose size the plan gives (8 stages,
 * 80 KiB: B's slots at 0, A's at 64 KiB). */
START_TEST(test_shared_limit)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	ck_assert_int_eq(edited(ctx, "examples/bsrmm.stir",
		"tests/tensorize/bsrmm_tc_warps.yaml", "[null, 4]", "[null, 32]",
		&m), -1);
	ck_assert(test_said(ctx, "14:5: error: launch 0 needs 262144 bytes of "
		"shared memory; a thread block may have at most 232448"));
	stir_module_free(m);
	ck_assert_int_eq(edited(ctx, "examples/bsrmm.stir",
		"tests/tensorize/bsrmm_tc_warps.yaml", "[null, 4]", "[null, 4]",
		&m), 0);
	stir_module_free(m);
	static const struct {
		const char *stages;
		unsigned dynamic;
		const char *decl;
	} pipe[] = {
		{ "stages: 3", 0, "__shared__ __align__(16) __half B_data_shared[" },
		{ "stages: 8", 81920, "__half *const A_data_shared = "
			"reinterpret_cast<__half *>(stir_shared + 65536);" },
	};
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(edited(ctx, "bench/bsrmm64.stir",
			"tests/tensorize/bsrmm64_tc_pipe.yaml", "stages: 3",
			pipe[i].stages, &m), 0);
		stir_cuda_plan *plan = stir_cuda_plan_alloc(
			stir_module_find_kernel(m, "bsrmm"), 0);
		ck_assert_ptr_nonnull(plan);
		ck_assert_uint_eq(stir_cuda_plan_get_launch_shared(plan, 0),
			pipe[i].dynamic);
		const char *cu = stir_cuda_plan_get_source(plan);
		ck_assert_ptr_nonnull(strstr(cu, pipe[i].decl));
		ck_assert(!strstr(cu, "extern __shared__") == !pipe[i].dynamic);
		stir_cuda_plan_free(plan);
		stir_module_free(m);
	}
	stir_ctx_free(ctx);
}
END_TEST

/* An accumulator added into C rather than stored over it
 * (tests/tensorize/bsrmm_tc_add.yaml, bsrmm_tc_atomic.yaml: cache_write,
 * C zeroed by its own launch): C's tile loaded, added to and stored, or
 * added with atomicAdd when the block is atomic; an atomic block whose
 * products add into C itself is refused. */
START_TEST(test_add)
{
	stir_ctx *ctx = stir_ctx_alloc();
	static const char *const files[2] = {
		"tests/tensorize/bsrmm_tc_add.yaml",
		"tests/tensorize/bsrmm_tc_atomic.yaml" };
	static const char *const says[2] = {
		"stir_fc.r[stir_i] += C_data_local.r[stir_i];",
		"stir_mma_m16n8k16_f16_atomic_add_acc(&C_data[v0 + v1 * 64 + v2], "
		"64, C_data_local);" };
	for (int i = 0; i < 2; i++) {
		stir_module *m;
		stir_kernel *k = from_file(ctx, files[i], NULL, &m);
		ck_assert_ptr_nonnull(k);
		char *cu = stir_kernel_to_cuda(k);
		if (!cu)
			stir_ctx_print_diagnostics(ctx, stderr);
		ck_assert_ptr_nonnull(cu);
		ck_assert_ptr_nonnull(strstr(cu, says[i]));
		ck_assert_ptr_nonnull(strstr(cu, i ? "the accumulator added "
			"atomically" : "the accumulator added, loops"));
		free(cu);
		stir_module_free(m);
	}
	stir_module *m;
	stir_kernel *k = scheduled(ctx, "  - set_atomic: {block: bsrmm1}\n", &m);
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(stir_tensorize(k, "bsrmm1", "bi", "mma_m16n8k16_f16"),
		-1);
	ck_assert(test_said(ctx, "block 'bsrmm1' is atomic: its products must add "
		"into a local accumulator (cache_write C first)"));
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* SR-BCRS written once (tests/tensorize/csrmm_srbcrs_once.yaml): the
 * rule covers the rows, so the windows' iteration holds the init over its
 * rows (not over the groups, a reduction axis), under the row guard;
 * cache_write_over_init takes it over and stores under the guard: one
 * launch. */
START_TEST(test_srbcrs_once)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_scheduled(ctx, "examples/csrmm.stir", "csrmm",
		"tests/tensorize/csrmm_srbcrs_once.yaml", false, &m);
	char *text = stir_kernel_to_str(k);
	ck_assert_ptr_null(strstr(text, "csrmm_srbcrs_init0"));
	ck_assert_ptr_nonnull(strstr(text, "if (0 <= 16 * vib + v1 && 16 * vib "
		"+ v1 < m) {\n                  C_data[v0 + v1 * 64 + v2 * 8 + v3] "
		"= C_data_local[(v1 * 4 + v2) * 8 + v3];"));
	free(text);
	stir_module_free(m);
	/* before stage III: the init over (ib, ti, k), the groups R */
	static const char steps[] =
		"kernel: csrmm\n"
		"format:\n"
		"  - decompose: {tensor: A, rules: [{sr_bcrs: {t: 16, g: 8, "
		"cover_rows: true}}]}\n";
	m = stir_module_read_from_file(ctx, test_path("examples/csrmm.stir"));
	ck_assert_ptr_nonnull(m);
	k = stir_module_find_kernel(m, "csrmm");
	stir_schedule *s = stir_schedule_read_from_mem(ctx, "t.yaml", steps,
		strlen(steps));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_schedule_apply(s, k, STIR_STAGE_2), 0);
	stir_schedule_free(s);
	text = stir_kernel_to_str(k);
	ck_assert_ptr_nonnull(strstr(text, "block csrmm_srbcrs_init0(vib: S = "
		"ib, vti: S = ti, vk: S = k) init csrmm_srbcrs"));
	ck_assert_ptr_nonnull(strstr(text, "block csrmm_srbcrs1(vg: R = g, "
		"vt: R = t, vti: S = ti, vk: S = k)"));
	free(text);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* An atomic accumulator added into a shared cache
 * (tests/tensorize/csrmm_srbcrs_splitk_warps.yaml) takes two f32 atomics
 * a pair: sm_90's float2 atomicAdd is for global memory only (the launch
 * failed on an H100); into C (global) it keeps the float2 one. */
START_TEST(test_atomic_shared)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_scheduled(ctx, "examples/csrmm.stir", "csrmm",
		"tests/tensorize/csrmm_srbcrs_splitk_warps.yaml", true, &m);
	char *cu = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "float *stir_p = &C_data_shared["));
	ck_assert_ptr_nonnull(strstr(cu, "atomicAdd(stir_p + 1, "));
	ck_assert_ptr_null(strstr(cu, "(float2 *)"));
	free(cu);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* s, from, to: a copy of s (malloc) with its first "from" (which it
 * must hold) replaced by "to". */
static char *replace_once(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	ck_assert_ptr_nonnull(at);
	size_t n = strlen(s) - strlen(from) + strlen(to) + 1;
	char *r = malloc(n);
	ck_assert_ptr_nonnull(r);
	snprintf(r, n, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
	return r;
}

/* The SR-BCRS(16, 8) SpMM of examples/csrmm.stir up to the tensorize
 * steps of examples/csrmm_srbcrs_tc.yaml (their "cache" the cache_write
 * of C over the groups, or nothing). */
static stir_kernel *srbcrs(stir_ctx *ctx, bool cache, stir_module **m)
{
	static const char steps[] =
		"kernel: csrmm\n"
		"format:\n"
		"  - decompose: {tensor: A, rules: [{sr_bcrs: {t: 16, g: 8}}]}\n"
		"stage1:\n"
		"  - specialize: {param: feat, value: 32}\n"
		"stage2:\n"
		"  - split: {block: csrmm_srbcrs1, loop: k, factors: [null, 8]}\n"
		"  - reorder: {block: csrmm_srbcrs1, loops: [k_0, g, ti, k_1, t]}\n"
		"  - bind: {block: csrmm_srbcrs0, loop: ib, to: blockIdx.x}\n"
		"  - bind: {block: csrmm_srbcrs1, loop: k_0, to: threadIdx.y}\n"
		"stage3:\n"
		"  - cache_write: {block: csrmm_srbcrs1, buffer: C_data, loop: g, "
		"scope: local}\n";
	*m = stir_module_read_from_file(ctx, test_path("examples/csrmm.stir"));
	ck_assert_ptr_nonnull(*m);
	stir_kernel *k = stir_module_find_kernel(*m, "csrmm");
	size_t n = strlen(steps);
	if (!cache)
		n = (size_t)(strstr(steps, "stage3:") - steps);
	stir_schedule *s = stir_schedule_read_from_mem(ctx, "t.yaml", steps, n);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_schedule_apply(s, k, STIR_STAGE_3), 0);
	stir_schedule_free(s);
	return k;
}

/* SR-BCRS on tensor cores: B's rows gathered by the group's columns, the
 * last window's row guard on the products and the write-back (the
 * cache_write's element guard), and what is refused around them. */
START_TEST(test_srbcrs)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = srbcrs(ctx, true, &m);
	/* the write-back adds only the rows of the matrix */
	char *text = stir_kernel_to_str(k);
	ck_assert_ptr_nonnull(strstr(text, "if (0 <= 16 * vib + v1 && "
		"16 * vib + v1 < m) {\n                C_data[v0 + v1 * 32 + v2] += "
		"C_data_local[v1 * 8 + v2];"));
	ck_assert_int_eq(stir_tensorize(k, "C_data_local_init", "ax0",
		"mma_m16n8k8_tf32"), 0);
	ck_assert_int_eq(stir_tensorize(k, "csrmm_srbcrs1", "ti",
		"mma_m16n8k8_tf32"), 0);
	ck_assert_int_eq(stir_tensorize(k, "C_data_local", "ax0",
		"mma_m16n8k8_tf32"), 0);
	ck_assert_int_eq(stir_kernel_verify(k), 0);
	char *cu = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cu);
	/* B element by element, through the index array; A's stopped rows
	 * 0, their sums kept; the guarded store */
	ck_assert_ptr_nonnull(strstr(cu, "stir_fb.r[stir_e] = stir_tf32(B_data["
		"T_srbcrs_indices[(G_srbcrs_indptr[vib] + vg) * 8 + vt] * 32 + vk]);"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_fa.r[stir_e] = (0 <= 16 * vib + "
		"vti && 16 * vib + vti < m) ? stir_tf32(A_srbcrs_data["));
	ck_assert_ptr_nonnull(strstr(cu, "stir_fr.r[stir_e] = stir_fs.r[stir_e];"));
	ck_assert_ptr_nonnull(strstr(cu, "C_data[v0 + v1 * 32 + v2] += "
		"stir_fr.r[stir_e];"));
	free(cu);

	/* on 3xTF32 the fragments take the inputs' bits, split in its _mma */
	stir_module *m3;
	stir_kernel *k3 = srbcrs(ctx, true, &m3);
	ck_assert_int_eq(stir_tensorize(k3, "C_data_local_init", "ax0",
		"mma_m16n8k8_3xtf32"), 0);
	ck_assert_int_eq(stir_tensorize(k3, "csrmm_srbcrs1", "ti",
		"mma_m16n8k8_3xtf32"), 0);
	ck_assert_int_eq(stir_tensorize(k3, "C_data_local", "ax0",
		"mma_m16n8k8_3xtf32"), 0);
	cu = stir_kernel_to_cuda(k3);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "stir_fb.r[stir_e] = stir_f32_bits(B_data["));
	ck_assert_ptr_nonnull(strstr(cu, "? stir_f32_bits(A_srbcrs_data["));
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k8_3xtf32_one(c.r, ab, bs);"));
	ck_assert_ptr_null(strstr(cu, "stir_tf32(B_data["));
	ck_assert(stir_kernel_get_tolerance(k3, STIR_F32) <
		stir_kernel_get_tolerance(k, STIR_F32));
	free(cu);
	stir_module_free(m3);

	/* a guard that depends on the features (N) is refused, in place */
	char *bad = replace_once(text, "16 * vib + vti < m) {",
		"16 * vib + vti < m && vk < n) {");
	stir_module *m2 = stir_module_read_from_mem(ctx, "bad.stir", bad,
		strlen(bad));
	ck_assert_ptr_nonnull(m2);
	stir_kernel *k2 = stir_module_find_kernel(m2, "csrmm");
	char *before = stir_kernel_to_str(k2);
	ck_assert_int_eq(stir_tensorize(k2, "csrmm_srbcrs1", "ti",
		"mma_m16n8k8_tf32"), -1);
	ck_assert(test_said(ctx, "the condition around the store depends on loop "
		"'k_1'; a tensorized nest may be guarded by its rows (loop 'ti') "
		"alone"));
	char *after = stir_kernel_to_str(k2);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	free(bad);
	stir_module_free(m2);
	/* a guard may read memory, but not what the nest writes */
	bad = replace_once(text, "16 * vib + vti < m) {",
		"16 * vib + vti < m && C_data_local[0] < 1.0) {");
	m2 = stir_module_read_from_mem(ctx, "bad.stir", bad, strlen(bad));
	ck_assert_ptr_nonnull(m2);
	k2 = stir_module_find_kernel(m2, "csrmm");
	ck_assert_int_eq(stir_tensorize(k2, "csrmm_srbcrs1", "ti",
		"mma_m16n8k8_tf32"), -1);
	ck_assert(test_said(ctx, "the condition around the store reads "
		"'C_data_local', which the nest writes"));
	free(bad);
	stir_module_free(m2);
	free(text);
	stir_module_free(m);

	/* without the cache, the guarded products would add into C */
	k = srbcrs(ctx, false, &m);
	ck_assert_int_eq(stir_tensorize(k, "csrmm_srbcrs1", "ti",
		"mma_m16n8k8_tf32"), -1);
	ck_assert(test_said(ctx, "a guarded product must add into a local "
		"accumulator (cache_write C first)"));
	/* a cache over a loop whose element guard uses a loop inside it that
	 * does not pick the element (t, the sum) is refused */
	text = stir_kernel_to_str(k);
	bad = replace_once(text, "16 * vib + vti < m) {",
		"16 * vib + vti < m && vt < n) {");
	m2 = stir_module_read_from_mem(ctx, "bad.stir", bad, strlen(bad));
	ck_assert_ptr_nonnull(m2);
	k2 = stir_module_find_kernel(m2, "csrmm");
	ck_assert_int_eq(stir_cache_write(k2, "csrmm_srbcrs1", "C_data", "g",
		STIR_SCOPE_LOCAL), -1);
	ck_assert(test_said(ctx, "the accesses of 'C_data' in block 'csrmm_srbcrs1' "
		"are conditional"));
	free(bad);
	stir_module_free(m2);
	/* the guard may read memory (SR-BCRS with chunks: the item's window)
	 * at an index fixed in the cached loop, of a buffer the block does
	 * not write; not at an index a loop inside it changes, nor the
	 * buffer it writes */
	static const struct {
		const char *guard, *said;   /* said: NULL when taken */
	} reads[] = {
		{ "16 * vib + vti < m && G_srbcrs_indptr[vib] >= 0) {", NULL },
		{ "16 * vib + vti < m && T_srbcrs_indices[vt] < n) {",
		  "the accesses of 'C_data' in block 'csrmm_srbcrs1' are "
		  "conditional" },
		/* a read of C itself: C's region is then the whole matrix */
		{ "16 * vib + vti < m && C_data[vib] < 1.0) {",
		  "a local buffer needs a literal size, but the region of "
		  "'C_data' under loop 'g' has m * 32 elements" },
	};
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		bad = replace_once(text, "16 * vib + vti < m) {", reads[i].guard);
		m2 = stir_module_read_from_mem(ctx, "bad.stir", bad, strlen(bad));
		ck_assert_ptr_nonnull(m2);
		k2 = stir_module_find_kernel(m2, "csrmm");
		ck_assert_int_eq(stir_cache_write(k2, "csrmm_srbcrs1", "C_data",
			"g", STIR_SCOPE_LOCAL), reads[i].said ? -1 : 0);
		ck_assert(!reads[i].said || test_said(ctx, reads[i].said));
		stir_ctx_clear_diagnostics(ctx);
		free(bad);
		stir_module_free(m2);
	}
	free(text);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* SR-BCRS with chunks (tests/tensorize/csrmm_srbcrs_chunks.yaml): the
 * split windows' chunks add into C atomically under the row guard, which
 * reads the item's window, after a launch zeroing their rows; the whole
 * windows store theirs once; both parts in one launch. */
START_TEST(test_srbcrs_chunks)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_scheduled(ctx, "examples/csrmm.stir", "csrmm",
		"tests/tensorize/csrmm_srbcrs_chunks.yaml", true, &m);
	char *cu = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "2 launches, run in order"));
	ck_assert_ptr_nonnull(strstr(cu, "grid (items_srbcrs_split + "
		"items_srbcrs_whole, 1, 1)"));
	ck_assert_ptr_nonnull(strstr(cu, "the accumulator added atomically"));
	ck_assert_ptr_nonnull(strstr(cu, "the accumulator stored"));
	ck_assert_ptr_nonnull(strstr(cu, "if (0 <= 16 * W_srbcrs_split_indices"
		"[vib + vw] + v1 && 16 * W_srbcrs_split_indices[vib + vw] + v1 < m)"));
	free(cu);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_tolerance)
{
	/* a kernel on tf32 compares at f16's tolerance, others at their
	 * types' */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx,
		test_path("tests/tensorize/bsrmm_f32.stir"));
	ck_assert_ptr_nonnull(m);
	stir_kernel *k = stir_module_find_kernel(m, "bsrmm");
	ck_assert(stir_kernel_get_tolerance(k, STIR_F32) == 1e-4);
	stir_schedule *s = stir_schedule_read_from_file(ctx,
		test_path("tests/tensorize/bsrmm_f32.yaml"));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_schedule_apply(s, k, STIR_STAGE_3), 0);
	ck_assert(stir_kernel_get_tolerance(k, STIR_F32) == 1e-2);
	ck_assert(stir_kernel_get_tolerance(k, STIR_F64) == 1e-2);
	ck_assert(stir_kernel_get_tolerance(k, STIR_I32) == 0);
	stir_schedule_free(s);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_stage)
{
	/* at stage II the buffers are not flat yet */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx,
		test_path("examples/bsrmm.stir"));
	stir_kernel *k = stir_module_find_kernel(m, "bsrmm");
	ck_assert_int_eq(stir_lower_sparse_iter(k), 0);
	ck_assert_int_eq(stir_tensorize(k, "bsrmm1", "bi", "mma_m16n8k16_f16"),
		-1);
	ck_assert(test_said(ctx, "kernel 'bsrmm' is at stage 2; tensorize applies "
		"at stage III (flat buffers)"));
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_verifier_and_emitter)
{
	/* a hand-written annotation on a nest of another shape: the
	 * verifier says what does not match; a tensorized nest under a loop
	 * bound to threadIdx.x: the emitter refuses it */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = scheduled(ctx, "stage3:\n"
		"  - tensorize: {block: bsrmm1, loop: bi, intrinsic: "
		"mma_m16n8k16_f16}\n", &m);
	ck_assert_ptr_nonnull(k);
	char *t = stir_kernel_to_str(k);
	char *at = strstr(t, "tensorize(mma_m16n8k16_f16)");
	ck_assert_ptr_nonnull(at);
	/* one character longer than the name it replaces */
	char *bad = malloc(strlen(t) + 2);
	ck_assert_ptr_nonnull(bad);
	strcpy(bad, t);
	memcpy(bad + (at - t), "tensorize(mma_m16n8k16_bf16)", 28);
	memmove(bad + (at - t) + 28, at + 27, strlen(at + 27) + 1);
	stir_ctx *c2 = stir_ctx_alloc();
	ck_assert_ptr_null(stir_module_read_from_mem(c2, "t.stir", bad,
		strlen(bad)));
	ck_assert(test_said(c2, "loop 'bi' is tensorized with mma_m16n8k16_bf16, "
		"but its nest does not compute it: A 'A_data' holds f16; "
		"mma_m16n8k16_bf16 takes bf16"));
	free(bad);
	/* the warps bound to threadIdx.x instead of threadIdx.y */
	bad = strdup(t);
	char *y = strstr(bad, "bind(threadIdx.y)");
	ck_assert_ptr_nonnull(y);
	y[15] = 'x';
	stir_module *m3 = stir_module_read_from_mem(c2, "t.stir", bad,
		strlen(bad));
	ck_assert_ptr_nonnull(m3);
	ck_assert_ptr_null(stir_kernel_to_cuda(stir_module_get_kernel(m3, 0)));
	ck_assert(test_said(c2, "loop 'bi' is tensorized inside loop 'f_0', which is "
		"bound to threadIdx.x: the intrinsic runs on the 32 lanes of "
		"threadIdx.x"));
	free(bad);
	free(t);
	stir_module_free(m3);
	stir_ctx_free(c2);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* The apply of examples/rgms_agg.stir up to its tensorize steps
 * (examples/rgms_tc_tf32.yaml without the other iterations): a relation's
 * rows split by 16, the split's tail a guard on the rows, and Y's rows
 * picked by I.indices; "%s" takes set_atomic and the relations on
 * blockIdx.x, or nothing (the relations in turn), and the stage III
 * steps. */
static const char rgms_apply[] =
	"kernel: rgms_agg\n"
	"stage1:\n"
	"  - specialize: {param: fin, value: 64}\n"
	"  - specialize: {param: fout, value: 64}\n"
	"stage2:\n"
	"  - split: {block: apply1, loop: i, factors: [null, 16]}\n"
	"  - split: {block: apply1, loop: fo, factors: [null, 8]}\n"
	"  - split: {block: apply1, loop: fi, factors: [null, 8]}\n"
	"  - reorder: {block: apply1, loops: [fo_0, i_0, fi_0, i_1, fo_1, fi_1]}\n"
	"  - bind: {block: apply1, loop: fo_0, to: threadIdx.y}\n"
	"%s"
	"stage3:\n"
	"%s";

/* ctx, atomic, extra, m: kernel rgms_agg under rgms_apply, the block
 * atomic or not, with the stage III steps extra; NULL when a step
 * failed. */
static stir_kernel *rgms_scheduled(stir_ctx *ctx, bool atomic,
	const char *extra, stir_module **m)
{
	*m = stir_module_read_from_file(ctx, test_path("examples/rgms_agg.stir"));
	ck_assert_ptr_nonnull(*m);
	stir_kernel *k = stir_module_find_kernel(*m, "rgms_agg");
	char text[4096];
	snprintf(text, sizeof(text), rgms_apply, atomic ?
		"  - set_atomic: {block: apply1}\n"
		"  - bind: {block: apply0, loop: rr, to: blockIdx.x}\n" : "", extra);
	stir_schedule *s = stir_schedule_read_from_mem(ctx, "t.yaml", text,
		strlen(text));
	ck_assert_ptr_nonnull(s);
	int rc = stir_schedule_apply(s, k, STIR_STAGE_3);
	stir_schedule_free(s);
	return rc == 0 ? k : NULL;
}

/* A warp on 32 rows of a block row of 64 (tests/tensorize/bsrmm64_tc_tile.yaml,
 * the BSR recipe's candidate 8): the fragment loop bi_2 (A's tile moves
 * with it, not with f_1) around the feature loop f_1 (B's tile moves
 * with it, not with bi_2) prints as an outer product (cuda_mma_outer):
 * A's 2 fragments loaded, then B's 8, two at a time (f_1 and f_1 + 1,
 * 8 columns apart: one ldmatrix.x4), then the 16 mma on them, each
 * operand loaded once in the source; test_cuda_emu runs it. */
START_TEST(test_mma_outer)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_scheduled(ctx, "bench/bsrmm64.stir", "bsrmm",
		"tests/tensorize/bsrmm64_tc_tile.yaml", true, &m);
	char *cu = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cu);
	const char *decl = strstr(cu, "stir_mma_m16n8k16_f16_a stir_fa_r[2];\n"
		"                    stir_mma_m16n8k16_f16_b stir_fb_r[8];");
	const char *la = strstr(cu, "for (int bi_2 = 0; bi_2 < 2; ++bi_2) {");
	const char *a = strstr(cu, "stir_mma_m16n8k16_f16_ldsm_a(stir_fa_r[bi_2], "
		"A_data_shared, j % 3 * 4096 + ((((bi_0 * 2 + bi_1) * 2 + bi_2) * 4 + "
		"bj_0) * 16 + bj_1), 256, 3);");
	const char *lb = strstr(cu, "for (int f_1 = 0; f_1 < 8; f_1 += 2) {");
	const char *b = strstr(cu, "stir_mma_m16n8k16_f16_ldsm_b2(stir_fb_r[f_1], "
		"stir_fb_r[f_1 + 1], B_data_shared, j % 3 * 4096 + (((bj_0 * 16 + "
		"bj_1) * 8 + f_1) * 8 + f_2), 64, 1);");
	const char *mma = strstr(cu, "stir_mma_m16n8k16_f16_mma(C_data_local["
		"((((bi_0 * 2 + 0) * 2 + bi_2) * 8 + f_1) * 8 + f_2) / 8], "
		"stir_fa_r[bi_2], stir_fb_r[f_1]);");
	ck_assert(decl && la && a && lb && b && mma);
	ck_assert(decl < la && la < a && a < lb && lb < b && b < mma);
	/* each once: no other load of A or B in the products */
	ck_assert_int_eq(test_count(cu, "_ldsm_a(stir_f"), 1);
	ck_assert_int_eq(test_count(cu, "_ldsm_b2(stir_f"), 1);
	ck_assert_int_eq(test_count(cu, "_ldsm_b(stir_f"), 0);
	ck_assert_int_eq(test_count(cu, "_f16_mma(C_data_local"), 1);
	ck_assert_ptr_null(strstr(cu, "stir_fa_loop"));
	free(cu);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* RGMS's apply on tensor cores (examples/rgms_tc_tf32.yaml): the cache of
 * Y over gathered rows, with the tail guard on each row of its
 * write-back; the products under the row guard (A's elements loaded only
 * in the rows it lets through, the others' sums kept) and the store of
 * gathered rows, element by element; and what is refused: products
 * under a guard into C itself, gathered rows stored without atomics. */
/* A's rows of a block row of 64 split over 4 warps (warp w its rows w,
 * w + 4, ..): an ldmatrix matrix reads rows 4 lines of 128 bytes apart,
 * so A's cache is swizzled by the line / 4 (stir_swzs(.., 8, 2), the
 * ldmatrix's last argument 3); B's rows, a line apart, as before.  The
 * emulation (test_cuda_emu, the BSR recipe's candidate 6) runs it. */
START_TEST(test_swizzle_stride)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = read_scheduled(ctx, "bench/bsrmm64.stir", "bsrmm",
		"tests/tensorize/bsrmm64_tc_rows.yaml", true, &m);
	char *cu = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "stir_mma_m16n8k16_f16_ldsm_a("
		"stir_fa_loop, A_data_shared, j % 3 * 4096 + (((bi_0 * 4 + bi_1) * "
		"4 + bj_0) * 16 + bj_1), 256, 3);"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_cp_async_16_ahead(&stir_cd["
		"stir_swzs(stir_co + (stir_c / 32) * 256 + (stir_c / 8 % 4) * 64 + "
		"(stir_c / 2 % 4) * 16 + (stir_c % 2) * 8, 8, 2)]"));
	ck_assert_ptr_nonnull(strstr(cu, "B_data_shared, j % 3 * 4096 + "
		"(((bj_0 * 16 + bj_1) * 8 + f_1) * 8 + f_2), 64, 1);"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_cp_async_16_ahead(&stir_cd["
		"stir_swz(stir_co + "));
	free(cu);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_rows)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	static const char cache[] = "  - cache_write: {block: apply1, buffer: "
		"Y_data, loop: fi_0, scope: local}\n";
	stir_kernel *k = rgms_scheduled(ctx, true, cache, &m);
	if (!k)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(k);
	char *ir = stir_kernel_to_str(k);
	ck_assert_ptr_nonnull(strstr(ir, "if (i_0 * 16 + v1 < I_indptr[vrr + 1] "
		"- I_indptr[vrr]) {\n"));
	ck_assert_ptr_nonnull(strstr(ir, "Y_data[v0 + I_indices[I_indptr[vrr] + "
		"(i_0 * 16 + v1)] * 64 + v2] += Y_data_local[v1 * 8 + v2];"));
	free(ir);
	ck_assert_int_eq(stir_tensorize(k, "Y_data_local_init", "ax0",
		"mma_m16n8k8_tf32"), 0);
	ck_assert_int_eq(stir_tensorize(k, "apply1", "i_1", "mma_m16n8k8_tf32"),
		0);
	ck_assert_int_eq(stir_tensorize(k, "Y_data_local", "ax0",
		"mma_m16n8k8_tf32"), 0);
	char *cu = stir_kernel_to_cuda(k);
	if (!cu)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(cu);
	/* A's rows under the guard, a lane's two elements of a row (k 2t
	 * and 2t + 1) by one float2 load; the accumulator's two columns of
	 * a row by one float2 atomic add */
	ck_assert_ptr_nonnull(strstr(cu, "if (!(i_0 * 16 + i_1 < "
		"I_indptr[vrr + 1] - I_indptr[vrr])) {"));
	ck_assert_ptr_nonnull(strstr(cu, "const float *stir_q = &T_data[(I_indptr[vrr] "
		"+ vi) * 64 + vfi];"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_fa.r[stir_e + 2] = stir_tf32(stir_v.y);"));
	ck_assert_ptr_nonnull(strstr(cu, "stir_fr.r[stir_e] = stir_fs.r[stir_e];"));
	ck_assert_ptr_nonnull(strstr(cu, "float *stir_p = &Y_data[v0 + I_indices["
		"I_indptr[vrr] + (i_0 * 16 + v1)] * 64 + v2];"));
	ck_assert_ptr_nonnull(strstr(cu, "atomicAdd((float2 *)stir_p, "
		"make_float2(stir_fr.r[stir_e], stir_fr.r[stir_e + 1]));"));
	free(cu);
	stir_module_free(m);

	/* products under the guard into Y itself (no cache): its index is
	 * no tile of the rows */
	k = rgms_scheduled(ctx, false, "", &m);
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(stir_tensorize(k, "apply1", "i_1", "mma_m16n8k8_tf32"),
		-1);
	ck_assert(test_said(ctx, "the index is not an affine function of loop 'i_1'"));
	stir_module_free(m);

	/* the gathered rows added without atomics: two rows may be one */
	k = rgms_scheduled(ctx, false, cache, &m);
	ck_assert_ptr_nonnull(k);
	char *before = stir_kernel_to_str(k);
	ck_assert_int_eq(stir_tensorize(k, "Y_data_local", "ax0",
		"mma_m16n8k8_tf32"), -1);
	ck_assert(test_said(ctx, "C's index is not affine in loop 'ax0' (gathered "
		"rows): only an atomic add"));
	char *after = stir_kernel_to_str(k);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* The suite. */
static Suite *tensorize_suite(void)
{
	Suite *s = suite_create("tensorize");
	TCase *tc = tcase_create("tensorize");
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_accepted);
	tcase_add_loop_test(tc, test_refused, 0,
		(int)(sizeof(refused) / sizeof(refused[0])));
	tcase_add_test(tc, test_stage);
	tcase_add_test(tc, test_tiles);
	tcase_add_test(tc, test_wmma);
	tcase_add_test(tc, test_csr_order);
	tcase_add_test(tc, test_invariant_steps_declined);
	tcase_add_test(tc, test_staged);
	tcase_add_test(tc, test_pipeline);
	tcase_add_test(tc, test_shared_per_thread);
	tcase_add_test(tc, test_add);
	tcase_add_test(tc, test_per_warp);
	tcase_add_test(tc, test_shared_limit);
	tcase_add_test(tc, test_tolerance);
	tcase_add_test(tc, test_srbcrs);
	tcase_add_test(tc, test_srbcrs_once);
	tcase_add_test(tc, test_srbcrs_chunks);
	tcase_add_test(tc, test_atomic_shared);
	tcase_add_test(tc, test_verifier_and_emitter);
	tcase_add_test(tc, test_rows);
	tcase_add_test(tc, test_swizzle_stride);
	tcase_add_test(tc, test_mma_outer);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run_suite(tensorize_suite());
}
