/* Stage II/III schedules on loops, annotations and reductions: split,
 * fuse, reorder, bind, unroll, vectorize, set_atomic, cross_thread_reduce,
 * rfactor.  Legal requests keep what the catalogue programs compute (at
 * stage II, and at stage III after lowering, against stage I, on seeded
 * random inputs, tails included); refused ones give one exact diagnostic
 * and leave the printed kernel unchanged; a few results are compared with
 * their expected text. */
#include "tests/testsched.h"

#define SEEDS 4

/* A stage III program with what lowering never produces: a triangular
 * nest, an if between loops, a block whose spatial-looking loop reduces,
 * a store outside any block, a block that depends on no loop. */
static const char *const odd_text =
	"kernel odd(m: i32, n: i32) stage 3 {\n"
	"  buffer X_data: f32[m * n] = X;\n"
	"  buffer Y_data: f32[m] = Y;\n"
	"  for i in [0, m) {\n"
	"    for j in [0, min(i, n)) {\n"
	"      block tri(vi: S = i, vj: R = j) {\n"
	"        Y_data[vi] += X_data[vi * n + vj];\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"  for i in [0, m) {\n"
	"    if (i > 0) {\n"
	"      for j in [0, n) {\n"
	"        block guarded(vi: S = i, vj: S = j) {\n"
	"          X_data[vi * n + vj] *= 2.0;\n"
	"        }\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"  for i in [0, m) {\n"
	"    block red(vr: R = i) {\n"
	"      Y_data[vr] += 1.0;\n"
	"    }\n"
	"  }\n"
	"  for i in [0, m) {\n"
	"    Y_data[i] -= 1.0;\n"
	"    block outside(vi: S = i) {\n"
	"      Y_data[vi] += 1.0;\n"
	"    }\n"
	"  }\n"
	"  for i in [0, m) {\n"
	"    block nodep() {\n"
	"      Y_data[0] += 1.0;\n"
	"    }\n"
	"  }\n"
	"  for i in [0, m) {\n"
	"    for j in [0, n) {\n"
	"      block two_a(vi: S = i, vj: S = j) {\n"
	"        X_data[vi * n + vj] += 1.0;\n"
	"      }\n"
	"      for k in [0, 2) {\n"
	"        block two_b(vi: S = i, vj: S = j, vk: R = k) {\n"
	"          X_data[vi * n + vj] += 1.0;\n"
	"        }\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"}\n";

static const char *const l_kj[] = { "k", "j" };

/* ---- split ---- */

static void split_csrmm(loaded *l)
{
	static const int64_t rows[] = { 0, 32 }, feats[] = { 4, 0 },
		nz[] = { 0, 3 }, init[] = { 3, 0, 2 };
	SCHED_OK(*l, stir_split(l->k, "csrmm1", "i", 2, rows));
	SCHED_OK(*l, stir_split(l->k, "csrmm1", "k", 2, feats));
	SCHED_OK(*l, stir_split(l->k, "csrmm1", "j", 2, nz));
	SCHED_OK(*l, stir_split(l->k, "csrmm_init0", "k", 3, init));
}

static void split_exact(loaded *l)
{
	/* 16 = 4 * 4 and 16 = 2 * 0 (8): no guard */
	static const int64_t f44[] = { 4, 4 }, f20[] = { 2, 0 };
	SCHED_OK(*l, stir_split(l->k, "bsrmm0", "bi", 2, f44));
	SCHED_OK(*l, stir_split(l->k, "bsrmm0", "bj", 2, f20));
}

static void split_ell3(loaded *l)
{
	static const int64_t f[] = { 0, 2 }, g[] = { 5, 0 };
	SCHED_OK(*l, stir_split(l->k, "ellmv0", "j", 2, f));
	SCHED_OK(*l, stir_split(l->k, "ellmv0", "i", 2, g));
}

START_TEST(test_split_keeps)
{
	sched_check_keeps("examples/csrmm.stir", NULL, 2, split_csrmm, 0, SEEDS);
	sched_check_keeps("examples/bsrmm.stir", NULL, 2, split_exact, 1e-4, 2);
	sched_check_keeps("examples/ellmv.stir", NULL, 3, split_ell3, 0, SEEDS);
}
END_TEST

/* i64 sizes: the new loops take their extents' types, bindings keep
 * theirs. */
static const char *const wide_text =
	"kernel wide(m: i64, n: i64) stage 3 {\n"
	"  buffer X_data: f32[m * n] = X;\n"
	"  for i in [0, m) {\n"
	"    for j in [0, n) {\n"
	"      block b(vi: S = i, vj: S = j) {\n"
	"        X_data[vi * n + vj] *= 2.0;\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"}\n";

static void split_wide(loaded *l)
{
	static const int64_t f[] = { 0, 32 }, g[] = { 4, 0 };
	static const char *const ij[] = { "i", "j" };
	SCHED_OK(*l, stir_fuse(l->k, "b", 2, ij));
	SCHED_OK(*l, stir_split(l->k, "b", "i_j", 2, f));
	SCHED_OK(*l, stir_split(l->k, "b", "i_j_1", 2, g));
}

START_TEST(test_split_types)
{
	sched_check_keeps(NULL, wide_text, 3, split_wide, 0, SEEDS);
	loaded l = sched_load(NULL, wide_text);
	split_wide(&l);
	char *s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s, "for i_j_0 in [0, (m * n + 31) / 32) {"));
	ck_assert_ptr_nonnull(strstr(s, "for i_j_1_0 in [0, 4) {"));
	ck_assert_ptr_nonnull(strstr(s, "for i_j_1_1 in [0, 8) {"));
	ck_assert_ptr_nonnull(strstr(s, "block b(vi: S = (i_j_0 * 32 + (i_j_1_0 "
		"* 8 + i_j_1_1)) / n, vj: S = (i_j_0 * 32 + (i_j_1_0 * 8 + i_j_1_1)) "
		"% n)"));
	free(s);
	sched_unload(&l);
}
END_TEST

START_TEST(test_split_text)
{
	loaded l = sched_load("examples/bsrmm.stir", NULL);
	sched_lower(&l, 2);
	split_exact(&l);
	char *s = stir_kernel_to_str(l.k);
	/* exact factors: no guard, the old variables folded */
	ck_assert_ptr_nonnull(strstr(s, "for bi_0 in [0, 4) {\n"));
	ck_assert_ptr_nonnull(strstr(s, "for bj_1 in [0, 8) {\n"));
	ck_assert_ptr_null(strstr(s, "if ("));
	ck_assert_ptr_nonnull(strstr(s, "vbi: S = bi_0 * 4 + bi_1"));
	free(s);
	sched_unload(&l);

	l = sched_load("examples/ellmv.stir", NULL);
	sched_lower(&l, 3);
	static const int64_t f[] = { 0, 32 };
	SCHED_OK(l, stir_split(l.k, "ellmv0", "i", 2, f));
	sched_expect_text(&l,
		"kernel ellmv(m: i32, n: i32, c: i32) stage 3 {\n"
		"  buffer J_indices: i32[m * c] = J.indices in [0, n);\n"
		"  buffer A_data: f32[m * c] = A;\n"
		"  buffer x_data: f32[n] = x;\n"
		"  buffer y_data: f32[m] = y;\n"
		"  for i in [0, m) {\n"
		"    block ellmv_init0(vi: S = i) init ellmv writes(y_data[vi]) {\n"
		"      y_data[vi] = 0.0;\n"
		"    }\n"
		"  }\n"
		"  for i_0 in [0, (m + 31) / 32) {\n"
		"    for i_1 in [0, 32) {\n"
		"      for j in [0, c) {\n"
		"        if (i_0 * 32 + i_1 < m) {\n"
		"          block ellmv0(vi: S = i_0 * 32 + i_1, vj: R = j) iter ellmv "
		"reads(A_data[vi * c + vj], J_indices[vi * c + vj], "
		"x_data[J_indices[vi * c + vj]], y_data[vi]) writes(y_data[vi]) {\n"
		"            y_data[vi] += A_data[vi * c + vj] * "
		"x_data[J_indices[vi * c + vj]];\n"
		"          }\n"
		"        }\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	sched_unload(&l);
}
END_TEST

/* ellmv with its init moved into the nest, then the rows split: the body
 * of the row loop is the init and the loop over the row, so each gets the
 * guard, the loop keeping it inside. */
static void split_each(loaded *l)
{
	static const int64_t f[] = { 0, 32 };
	SCHED_OK(*l, stir_decompose_reduction(l->k, "ellmv0", "j"));
	SCHED_OK(*l, stir_split(l->k, "ellmv0", "i", 2, f));
}

/* A let in the body: it may read what only the guard makes valid (here
 * A_data[vi] past m), so the guard covers the whole list. */
static const char *const let_text =
	"kernel lets(m: i32) stage 3 {\n"
	"  buffer A_data: f32[m] = A;\n"
	"  buffer B_data: f32[m * 4] = B;\n"
	"  for i in [0, m) {\n"
	"    let a = A_data[i];\n"
	"    for j in [0, 4) {\n"
	"      block b(vi: S = i, vj: S = j) {\n"
	"        B_data[vi * 4 + vj] = a;\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"}\n";

static void split_let(loaded *l)
{
	static const int64_t f[] = { 0, 8 };
	SCHED_OK(*l, stir_split(l->k, "b", "i", 2, f));
}

START_TEST(test_split_guard_each)
{
	sched_check_keeps("examples/ellmv.stir", NULL, 3, split_each, 0, SEEDS);
	sched_check_keeps(NULL, let_text, 3, split_let, 0, SEEDS);
	loaded l = sched_load("examples/ellmv.stir", NULL);
	sched_lower(&l, 3);
	split_each(&l);
	char *s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s,
		"    for i_1 in [0, 32) {\n"
		"      if (i_0 * 32 + i_1 < m) {\n"
		"        block ellmv_init0(vi: S = i_0 * 32 + i_1) init ellmv "
		"writes(y_data[vi]) {\n"
		"          y_data[vi] = 0.0;\n"
		"        }\n"
		"      }\n"
		"      for j in [0, c) {\n"
		"        if (i_0 * 32 + i_1 < m) {\n"
		"          block ellmv0(vi: S = i_0 * 32 + i_1, vj: R = j) iter ellmv "));
	free(s);
	sched_unload(&l);

	l = sched_load(NULL, let_text);
	split_let(&l);
	sched_expect_text(&l,
		"kernel lets(m: i32) stage 3 {\n"
		"  buffer A_data: f32[m] = A;\n"
		"  buffer B_data: f32[m * 4] = B;\n"
		"  for i_0 in [0, (m + 7) / 8) {\n"
		"    for i_1 in [0, 8) {\n"
		"      if (i_0 * 8 + i_1 < m) {\n"
		"        let a = A_data[i_0 * 8 + i_1];\n"
		"        for j in [0, 4) {\n"
		"          block b(vi: S = i_0 * 8 + i_1, vj: S = j) "
		"writes(B_data[vi * 4 + vj]) {\n"
		"            B_data[vi * 4 + vj] = a;\n"
		"          }\n"
		"        }\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	sched_unload(&l);
}
END_TEST

START_TEST(test_split_refused)
{
	static const int64_t neg[] = { -2, 4 }, zeros[] = { 0, 0 },
		one[] = { 4 }, fixed[] = { 4, 8 }, few[] = { 3, 4 }, ok[] = { 0, 4 };
	loaded l = sched_load("examples/csrmm.stir", NULL);
	SCHED_REFUSED(l, stir_split(l.k, "csrmm1", "i", 2, ok),
		"split: kernel 'csrmm' is at stage 1; stage II and III schedules "
		"apply after lower_sparse_iter");
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_split(l.k, "nope", "i", 2, ok),
		"split: kernel 'csrmm' has no block 'nope'");
	SCHED_REFUSED(l, stir_split(l.k, "csrmm1", "q", 2, ok),
		"split: block 'csrmm1' has no enclosing loop 'q'");
	SCHED_REFUSED(l, stir_split(l.k, "csrmm0", "j", 2, ok),
		"split: block 'csrmm0' has no enclosing loop 'j'");
	SCHED_REFUSED(l, stir_split(l.k, "csrmm1", "i", 2, neg),
		"split: factor -2 of loop 'i' is not positive");
	SCHED_REFUSED(l, stir_split(l.k, "csrmm1", "i", 2, zeros),
		"split: more than one factor of loop 'i' is 0 (inferred)");
	SCHED_REFUSED(l, stir_split(l.k, "csrmm1", "i", 1, one),
		"split: loop 'i' needs at least 2 factors, not 1");
	SCHED_REFUSED(l, stir_split(l.k, "csrmm1", "i", 2, fixed),
		"split: the fixed factors of loop 'i' cannot cover its extent m; "
		"make one factor 0 (inferred)");
	SCHED_OK(l, stir_bind(l.k, "csrmm1", "i", STIR_BLOCK_X));
	SCHED_REFUSED(l, stir_split(l.k, "csrmm1", "i", 2, ok),
		"split: loop 'i' is bound to blockIdx.x; split it before "
		"annotating it");
	sched_unload(&l);

	l = sched_load("examples/bsrmm.stir", NULL);
	sched_lower(&l, 3);
	SCHED_REFUSED(l, stir_split(l.k, "bsrmm0", "bi", 2, few),
		"split: the factors of loop 'bi' give 12 iterations, fewer than "
		"its extent 16");
	sched_unload(&l);
}
END_TEST

/* ---- fuse ---- */

static void fuse_csrmm(loaded *l)
{
	static const char *const ik[] = { "i", "k" };
	SCHED_OK(*l, stir_fuse(l->k, "csrmm_init0", 2, ik));
}

static void fuse_ell3(loaded *l)
{
	static const char *const ij[] = { "i", "j" };
	SCHED_OK(*l, stir_fuse(l->k, "ellmv0", 2, ij));
}

static void fuse_bsr(loaded *l)
{
	static const char *const all[] = { "i", "bi", "bj", "f" };
	SCHED_OK(*l, stir_fuse(l->k, "bsrmm0", 4, all));
}

START_TEST(test_fuse_keeps)
{
	sched_check_keeps("examples/csrmm.stir", NULL, 2, fuse_csrmm, 0, SEEDS);
	sched_check_keeps("examples/ellmv.stir", NULL, 3, fuse_ell3, 0, SEEDS);
	sched_check_keeps("examples/bsrmm.stir", NULL, 2, fuse_bsr, 1e-4, 2);
}
END_TEST

START_TEST(test_fuse_text)
{
	loaded l = sched_load("examples/ellmv.stir", NULL);
	sched_lower(&l, 3);
	fuse_ell3(&l);
	char *s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s,
		"  for i_j in [0, m * c) {\n"
		"    block ellmv0(vi: S = i_j / c, vj: R = i_j % c) iter ellmv "));
	free(s);
	sched_unload(&l);
}
END_TEST

START_TEST(test_fuse_refused)
{
	static const char *const ij[] = { "i", "j" }, *const ji[] = { "j", "k" },
		*const kj[] = { "k", "j" }, *const one[] = { "k" },
		*const ii[] = { "k", "k" };
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_fuse(l.k, "csrmm1", 2, ij),
		"fuse: loop 'j' is not the only statement of loop 'i'");
	SCHED_REFUSED(l, stir_fuse(l.k, "csrmm1", 2, kj),
		"fuse: loop 'j' encloses loop 'k': list the loops outermost first");
	SCHED_REFUSED(l, stir_fuse(l.k, "csrmm1", 1, one),
		"fuse: fusing needs at least 2 loops, not 1");
	SCHED_REFUSED(l, stir_fuse(l.k, "csrmm1", 2, ii),
		"fuse: loop 'k' is listed twice");
	SCHED_OK(l, stir_unroll(l.k, "csrmm1", "k"));
	SCHED_REFUSED(l, stir_fuse(l.k, "csrmm1", 2, ji),
		"fuse: loop 'k' is unrolled; fuse loops before annotating them");
	sched_unload(&l);

	l = sched_load(NULL, odd_text);
	static const char *const tri[] = { "i", "j" };
	SCHED_REFUSED(l, stir_fuse(l.k, "tri", 2, tri),
		"fuse: the extent of loop 'j' depends on loop 'i'");
	SCHED_REFUSED(l, stir_fuse(l.k, "guarded", 2, tri),
		"fuse: loop 'j' is not the only statement of loop 'i'");
	sched_unload(&l);
}
END_TEST

/* ---- reorder ---- */

static void reorder_csrmm(loaded *l)
{
	SCHED_OK(*l, stir_reorder(l->k, "csrmm1", 2, l_kj));
}

static void reorder_bsr(loaded *l)
{
	static const char *const order[] = { "f", "bj", "bi" };
	SCHED_OK(*l, stir_reorder(l->k, "bsrmm0", 3, order));
}

static void reorder_rgcn3(loaded *l)
{
	static const char *const order[] = { "fo", "i" }, *const inner[] = {
		"fi", "j" };
	SCHED_OK(*l, stir_reorder(l->k, "rgcn1", 2, order));
	SCHED_OK(*l, stir_reorder(l->k, "rgcn1", 2, inner));
}

START_TEST(test_reorder_keeps)
{
	sched_check_keeps("examples/csrmm.stir", NULL, 2, reorder_csrmm, 0, SEEDS);
	sched_check_keeps("examples/bsrmm.stir", NULL, 2, reorder_bsr, 1e-4, 2);
	sched_check_keeps("examples/rgcn_homo.stir", NULL, 3, reorder_rgcn3, 1e-5,
		SEEDS);
}
END_TEST

START_TEST(test_reorder_refused)
{
	static const char *const ki[] = { "k", "i" }, *const jj[] = { "j", "j" };
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	static const char *const ji0[] = { "j", "i" };
	SCHED_REFUSED(l, stir_reorder(l.k, "csrmm1", 2, ji0),
		"reorder: loops 'i' and 'j' are separated by block 'csrmm0'");
	SCHED_REFUSED(l, stir_reorder(l.k, "csrmm1", 2, ki),
		"reorder: loops 'i' and 'k' are separated by block 'csrmm0'");
	SCHED_REFUSED(l, stir_reorder(l.k, "csrmm1", 2, jj),
		"reorder: loop 'j' is listed twice");
	sched_unload(&l);

	l = sched_load(NULL, odd_text);
	static const char *const ji[] = { "j", "i" };
	SCHED_REFUSED(l, stir_reorder(l.k, "tri", 2, ji),
		"reorder: the extent of loop 'j' depends on loop 'i', which would "
		"move inside it");
	SCHED_REFUSED(l, stir_reorder(l.k, "guarded", 2, ji),
		"reorder: loops 'i' and 'j' are not perfectly nested: a statement "
		"other than a loop lies between them");
	static const char *const ki2[] = { "k", "i" };
	SCHED_REFUSED(l, stir_reorder(l.k, "two_b", 2, ki2),
		"reorder: loops 'i' and 'k' are not perfectly nested: loop 'j' holds "
		"more than one statement");
	sched_unload(&l);
}
END_TEST

/* ---- bind, unroll, vectorize ---- */

static void bind_csrmm(loaded *l)
{
	SCHED_OK(*l, stir_reorder(l->k, "csrmm1", 2, l_kj));
	SCHED_OK(*l, stir_bind(l->k, "csrmm1", "i", STIR_BLOCK_X));
	SCHED_OK(*l, stir_bind(l->k, "csrmm1", "k", STIR_THREAD_X));
	SCHED_OK(*l, stir_bind(l->k, "csrmm_init0", "i", STIR_BLOCK_X));
	SCHED_OK(*l, stir_bind(l->k, "csrmm_init0", "k", STIR_THREAD_X));
	SCHED_OK(*l, stir_unroll(l->k, "csrmm1", "j"));
}

static void bind_atomic_ell(loaded *l)
{
	SCHED_OK(*l, stir_set_atomic(l->k, "ellmv0"));
	SCHED_OK(*l, stir_bind(l->k, "ellmv0", "j", STIR_THREAD_X));
	SCHED_OK(*l, stir_bind(l->k, "ellmv0", "i", STIR_BLOCK_X));
}

static void vectorize_csrmm(loaded *l)
{
	static const int64_t f[] = { 0, 4 };
	SCHED_OK(*l, stir_split(l->k, "csrmm1", "k", 2, f));
	SCHED_OK(*l, stir_vectorize(l->k, "csrmm1", "k_1"));
	SCHED_OK(*l, stir_unroll(l->k, "csrmm_init0", "k"));
}

START_TEST(test_annotate_keeps)
{
	sched_check_keeps("examples/csrmm.stir", NULL, 2, bind_csrmm, 0, SEEDS);
	sched_check_keeps("examples/ellmv.stir", NULL, 2, bind_atomic_ell, 0,
		SEEDS);
	sched_check_keeps("examples/csrmm.stir", NULL, 3, vectorize_csrmm, 0,
		SEEDS);
}
END_TEST

START_TEST(test_bind_refused)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_bind(l.k, "csrmm1", "j", STIR_THREAD_X),
		"bind: loop 'j' iterates reduction variable 'vj' of block 'csrmm1', "
		"which is neither atomic nor cross-thread");
	SCHED_OK(l, stir_bind(l.k, "csrmm1", "i", STIR_THREAD_X));
	SCHED_REFUSED(l, stir_bind(l.k, "csrmm1", "k", STIR_THREAD_X),
		"bind: loop 'k' is inside loop 'i', which is already bound to "
		"threadIdx.x");
	SCHED_REFUSED(l, stir_bind(l.k, "csrmm1", "i", STIR_BLOCK_X),
		"bind: loop 'i' is bound to threadIdx.x already");
	SCHED_OK(l, stir_bind(l.k, "csrmm_init0", "k", STIR_THREAD_Y));
	SCHED_REFUSED(l, stir_bind(l.k, "csrmm_init0", "i", STIR_THREAD_Y),
		"bind: loop 'k' inside loop 'i' is already bound to threadIdx.y");
	SCHED_REFUSED(l, stir_unroll(l.k, "csrmm1", "i"),
		"unroll: loop 'i' is bound to threadIdx.x already");
	sched_unload(&l);

	l = sched_load("examples/csr_softmax.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_bind(l.k, "out0", "j", STIR_THREAD_X),
		"bind: the extent of loop 'j', J_indptr[vi + 1] - J_indptr[vi], is "
		"not an expression of parameters");
	sched_unload(&l);

	l = sched_load(NULL, odd_text);
	SCHED_REFUSED(l, stir_bind(l.k, "red", "i", STIR_BLOCK_X),
		"bind: loop 'i' iterates reduction variable 'vr' of block 'red', "
		"which is neither atomic nor cross-thread");
	SCHED_REFUSED(l, stir_bind(l.k, "outside", "i", STIR_BLOCK_X),
		"bind: loop 'i' holds a store to 'Y_data' outside any block inside "
		"it");
	SCHED_REFUSED(l, stir_bind(l.k, "nodep", "i", STIR_BLOCK_X),
		"bind: block 'nodep' does not depend on loop 'i': every thread "
		"would run its stores");
	/* atomic stores may repeat */
	SCHED_OK(l, stir_set_atomic(l.k, "nodep"));
	SCHED_OK(l, stir_bind(l.k, "nodep", "i", STIR_BLOCK_X));
	SCHED_OK(l, stir_set_atomic(l.k, "red"));
	SCHED_OK(l, stir_bind(l.k, "red", "i", STIR_BLOCK_X));
	sched_unload(&l);

	/* a local cache may not be shared by the threads of a loop */
	l = sched_load("examples/ellmv.stir", NULL);
	sched_lower(&l, 2);
	SCHED_OK(l, stir_cache_write(l.k, "ellmv0", "y", "j", STIR_SCOPE_LOCAL));
	SCHED_OK(l, stir_set_atomic(l.k, "ellmv0"));
	SCHED_REFUSED(l, stir_bind(l.k, "ellmv0", "j", STIR_THREAD_X),
		"bind: local buffer 'y_local' is accessed both inside and outside "
		"loop 'j', which is bound to threadIdx.x");
	SCHED_OK(l, stir_bind(l.k, "ellmv0", "i", STIR_THREAD_X));
	sched_unload(&l);

	/* unless the loop reaches it only as the target of cross-thread
	 * blocks: after the loop every thread's copy holds the whole sum */
	l = sched_load("examples/ellmv.stir", NULL);
	sched_lower(&l, 2);
	SCHED_OK(l, stir_cache_write(l.k, "ellmv0", "y", "j", STIR_SCOPE_LOCAL));
	SCHED_OK(l, stir_cross_thread_reduce(l.k, "ellmv0", "j"));
	SCHED_REFUSED(l, stir_bind(l.k, "ellmv0", "j", STIR_THREAD_Y),
		"bind: local buffer 'y_local' is accessed both inside and outside "
		"loop 'j', which is bound to threadIdx.y");
	SCHED_OK(l, stir_bind(l.k, "ellmv0", "j", STIR_THREAD_X));
	sched_unload(&l);
}
END_TEST

START_TEST(test_vectorize_refused)
{
	static const int64_t f[] = { 0, 4 };
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_vectorize(l.k, "csrmm1", "j"),
		"vectorize: loop 'j' is not innermost: it encloses loop 'k'");
	SCHED_REFUSED(l, stir_vectorize(l.k, "csrmm1", "k"),
		"vectorize: loop 'k' has extent feat, not the literal 2 or 4");
	SCHED_OK(l, stir_split(l.k, "csrmm1", "j", 2, f));
	static const char *const kj1[] = { "k", "j_1" };
	SCHED_OK(l, stir_reorder(l.k, "csrmm1", 2, kj1));
	SCHED_REFUSED(l, stir_vectorize(l.k, "csrmm1", "j_1"),
		"vectorize: block 'csrmm1' reduces over loop 'j_1' (variable 'vj')");
	SCHED_OK(l, stir_unroll(l.k, "csrmm1", "j_1"));
	SCHED_REFUSED(l, stir_vectorize(l.k, "csrmm1", "j_1"),
		"vectorize: loop 'j_1' is unrolled already");
	sched_unload(&l);
}
END_TEST

/* ---- set_atomic, cross_thread_reduce ---- */

static void atomic_rgms(loaded *l)
{
	static const char *const fo_j[] = { "fo", "j" };
	SCHED_OK(*l, stir_set_atomic(l->k, "rgms0"));
	SCHED_OK(*l, stir_reorder(l->k, "rgms2", 2, fo_j));
	SCHED_OK(*l, stir_bind(l->k, "rgms2", "rr", STIR_BLOCK_X));
	SCHED_OK(*l, stir_bind(l->k, "rgms2", "fo", STIR_THREAD_X));
}

static void cross_sddmm(loaded *l)
{
	static const int64_t f[] = { 0, 32 };
	static const char *const k10[] = { "k_1", "k_0" };
	SCHED_OK(*l, stir_split(l->k, "sddmm0", "k", 2, f));
	SCHED_OK(*l, stir_reorder(l->k, "sddmm0", 2, k10));
	SCHED_OK(*l, stir_cross_thread_reduce(l->k, "sddmm0", "k_1"));
	SCHED_OK(*l, stir_bind(l->k, "sddmm0", "k_1", STIR_THREAD_X));
	SCHED_OK(*l, stir_bind(l->k, "sddmm0", "ij", STIR_BLOCK_X));
}

START_TEST(test_reduction_keeps)
{
	sched_check_keeps("examples/rgms.stir", NULL, 2, atomic_rgms, 0, SEEDS);
	sched_check_keeps("examples/sddmm.stir", NULL, 2, cross_sddmm, 0, SEEDS);
	sched_check_keeps("examples/sddmm.stir", NULL, 3, cross_sddmm, 0, SEEDS);
}
END_TEST

START_TEST(test_reduction_text)
{
	loaded l = sched_load("examples/sddmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_OK(l, stir_cross_thread_reduce(l.k, "sddmm0", "k"));
	sched_lower(&l, 3);
	char *s = stir_kernel_to_str(l.k);
	/* the let went into the store, and lowering folded the row away */
	ck_assert_ptr_nonnull(strstr(s,
		"      block sddmm0(vij: S = ij, vk: R = k) cross_thread iter sddmm "));
	ck_assert_ptr_nonnull(strstr(s,
		"        S_data[vij] += X_data[(upper_bound(J_indptr, 0, m + 1, vij) "
		"- 1) * feat + vk] * Y_data[J_indices[vij] * feat + vk];\n"
		"      }\n"));
	free(s);
	sched_unload(&l);

	l = sched_load("examples/rgms.stir", NULL);
	sched_lower(&l, 2);
	SCHED_OK(l, stir_set_atomic(l.k, "rgms0"));
	s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s, "block rgms0(vrr: R = rr) atomic iter rgms "));
	ck_assert_ptr_nonnull(strstr(s, "block rgms1(vi: S = i) atomic iter rgms "));
	ck_assert_ptr_nonnull(strstr(s, "vfi: R = fi) atomic "));
	free(s);
	sched_unload(&l);
}
END_TEST

START_TEST(test_reduction_refused)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_set_atomic(l.k, "csrmm_init0"),
		"set_atomic: block 'csrmm_init0' holds a store '=' to 'C'; only += "
		"and -= can be atomic");
	SCHED_REFUSED(l, stir_cross_thread_reduce(l.k, "csrmm1", "k"),
		"cross_thread_reduce: loop 'k' iterates no reduction variable of "
		"block 'csrmm1'");
	SCHED_REFUSED(l, stir_cross_thread_reduce(l.k, "csrmm0", "i"),
		"cross_thread_reduce: loop 'i' iterates no reduction variable of "
		"block 'csrmm0'");
	sched_unload(&l);

	l = sched_load("examples/csr_softmax.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_cross_thread_reduce(l.k, "mx0", "j"),
		"cross_thread_reduce: block 'mx0' must hold exactly one += or -= "
		"store (after its lets)");
	SCHED_REFUSED(l, stir_set_atomic(l.k, "rows0"),
		"set_atomic: block 'rows0' holds a store '=' to 'rmax'; only += and "
		"-= can be atomic");
	sched_unload(&l);

	l = sched_load(NULL, odd_text);
	SCHED_REFUSED(l, stir_cross_thread_reduce(l.k, "red", "i"),
		"cross_thread_reduce: the target of block 'red' depends on loop 'i'");
	sched_unload(&l);

	l = sched_load("examples/sddmm.stir", NULL);
	sched_lower(&l, 3);
	SCHED_OK(l, stir_cross_thread_reduce(l.k, "sddmm0", "k"));
	SCHED_REFUSED(l, stir_bind(l.k, "sddmm0", "k", STIR_THREAD_Y),
		"bind: loop 'k' iterates reduction variable 'vk' of cross-thread "
		"block 'sddmm0', so it must be bound to threadIdx.x, not "
		"threadIdx.y");
	SCHED_OK(l, stir_bind(l.k, "sddmm0", "ij", STIR_BLOCK_X));
	SCHED_REFUSED(l, stir_cross_thread_reduce(l.k, "sddmm0", "ij"),
		"cross_thread_reduce: loop 'ij' is bound to blockIdx.x; a "
		"cross-thread reduction runs over threadIdx.x");
	sched_unload(&l);
}
END_TEST

/* ---- rfactor ---- */

static void rfactor_csrmm(loaded *l)
{
	static const int64_t f[] = { 0, 4 };
	static const char *const j10[] = { "j_1", "j_0" };
	SCHED_OK(*l, stir_reorder(l->k, "csrmm1", 2, l_kj));
	SCHED_OK(*l, stir_split(l->k, "csrmm1", "j", 2, f));
	SCHED_OK(*l, stir_reorder(l->k, "csrmm1", 2, j10));
	SCHED_OK(*l, stir_rfactor(l->k, "csrmm1", "j_1"));
	SCHED_OK(*l, stir_bind(l->k, "csrmm1_rf", "k", STIR_THREAD_X));
	SCHED_OK(*l, stir_unroll(l->k, "csrmm1", "j_1"));
}

static void rfactor_ell(loaded *l)
{
	static const int64_t f[] = { 0, 2 };
	static const char *const j10[] = { "j_1", "j_0" };
	SCHED_OK(*l, stir_split(l->k, "ellmv0", "j", 2, f));
	SCHED_OK(*l, stir_reorder(l->k, "ellmv0", 2, j10));
	SCHED_OK(*l, stir_rfactor(l->k, "ellmv0", "j_1"));
	SCHED_OK(*l, stir_bind(l->k, "ellmv0", "i", STIR_THREAD_X));
}

START_TEST(test_rfactor_keeps)
{
	sched_check_keeps("examples/csrmm.stir", NULL, 2, rfactor_csrmm, 1e-5,
		SEEDS);
	sched_check_keeps("examples/ellmv.stir", NULL, 3, rfactor_ell, 1e-5,
		SEEDS);
}
END_TEST

START_TEST(test_rfactor_text)
{
	loaded l = sched_load("examples/ellmv.stir", NULL);
	sched_lower(&l, 3);
	static const int64_t f[] = { 2, 0 };
	SCHED_OK(l, stir_split(l.k, "ellmv0", "j", 2, f));
	SCHED_OK(l, stir_rfactor(l.k, "ellmv0", "j_0"));
	sched_expect_text(&l,
		"kernel ellmv(m: i32, n: i32, c: i32) stage 3 {\n"
		"  buffer J_indices: i32[m * c] = J.indices in [0, n);\n"
		"  buffer A_data: f32[m * c] = A;\n"
		"  buffer x_data: f32[n] = x;\n"
		"  buffer y_data: f32[m] = y;\n"
		"  buffer y_data_rf: f32[2] local;\n"
		"  for i in [0, m) {\n"
		"    block ellmv_init0(vi: S = i) init ellmv writes(y_data[vi]) {\n"
		"      y_data[vi] = 0.0;\n"
		"    }\n"
		"  }\n"
		"  for i in [0, m) {\n"
		"    for j_0 in [0, 2) {\n"
		"      block ellmv0_rf_init(vj_0: S = j_0) writes(y_data_rf[vj_0]) {\n"
		"        y_data_rf[vj_0] = 0.0;\n"
		"      }\n"
		"    }\n"
		"    for j_0 in [0, 2) {\n"
		"      for j_1 in [0, (c + 1) / 2) {\n"
		"        if (j_0 * ((c + 1) / 2) + j_1 < c) {\n"
		"          block ellmv0_rf(vi: S = i, vj: R = j_0 * ((c + 1) / 2) + "
		"j_1, vj_0: S = j_0) reads(A_data[vi * c + vj], "
		"J_indices[vi * c + vj], x_data[J_indices[vi * c + vj]], "
		"y_data_rf[vj_0]) writes(y_data_rf[vj_0]) {\n"
		"            y_data_rf[vj_0] += A_data[vi * c + vj] * "
		"x_data[J_indices[vi * c + vj]];\n"
		"          }\n"
		"        }\n"
		"      }\n"
		"    }\n"
		"    for j_0 in [0, 2) {\n"
		"      block ellmv0(vi: S = i, vj_0: R = j_0) iter ellmv reads(y_data_rf[vj_0], "
		"y_data[vi]) writes(y_data[vi]) {\n"
		"        y_data[vi] += y_data_rf[vj_0];\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	sched_unload(&l);
}
END_TEST

START_TEST(test_rfactor_refused)
{
	static const int64_t f[] = { 0, 4 };
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_rfactor(l.k, "csrmm1", "j"),
		"rfactor: the extent of loop 'j' is J_indptr[vi + 1] - J_indptr[vi], "
		"not a literal: the partial results live in a local buffer");
	SCHED_OK(l, stir_split(l.k, "csrmm1", "j", 2, f));
	SCHED_REFUSED(l, stir_rfactor(l.k, "csrmm1", "j_1"),
		"rfactor: the target of block 'csrmm1' depends on variable 'vk', "
		"which loops inside loop 'j_1' bind");
	SCHED_OK(l, stir_split(l.k, "csrmm1", "k", 2, f));
	SCHED_REFUSED(l, stir_rfactor(l.k, "csrmm1", "k_1"),
		"rfactor: loop 'k_1' iterates no reduction variable of block "
		"'csrmm1'");
	SCHED_OK(l, stir_unroll(l.k, "csrmm1", "j_1"));
	SCHED_REFUSED(l, stir_rfactor(l.k, "csrmm1", "j_1"),
		"rfactor: loop 'j_1' is unrolled; rfactor needs a serial loop");
	sched_unload(&l);

	l = sched_load("examples/csr_softmax.stir", NULL);
	sched_lower(&l, 3);
	SCHED_REFUSED(l, stir_rfactor(l.k, "mx0", "i"),
		"rfactor: loop 'i' holds more than the nest of block 'mx0'");
	sched_unload(&l);
}
END_TEST

/* Missing arguments are refusals, not crashes. */
START_TEST(test_null_arguments)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	static const int64_t f[] = { 0, 4 };
	ck_assert_int_eq(stir_split(NULL, "csrmm1", "i", 2, f), -1);
	SCHED_REFUSED(l, stir_split(l.k, NULL, "i", 2, f),
		"split: kernel 'csrmm' has no block '(null)'");
	SCHED_REFUSED(l, stir_split(l.k, "csrmm1", NULL, 2, f),
		"split: block 'csrmm1' has no enclosing loop '(null)'");
	SCHED_REFUSED(l, stir_split(l.k, "csrmm1", "i", 2, NULL),
		"split: loop 'i' needs at least 2 factors, not 0");
	SCHED_REFUSED(l, stir_fuse(l.k, "csrmm1", 2, NULL),
		"fuse: fusing needs at least 2 loops, not 0");
	SCHED_REFUSED(l, stir_reorder(l.k, "csrmm1", 2, NULL),
		"reorder: no loops to reorder");
	SCHED_REFUSED(l, stir_bind(l.k, "csrmm1", "i", (stir_thread)9),
		"bind: invalid thread index 9");
	SCHED_REFUSED(l, stir_cache_read(l.k, "csrmm1", NULL, "j",
		STIR_SCOPE_SHARED), "cache_read: kernel 'csrmm' has no buffer "
		"'(null)'");
	SCHED_REFUSED(l, stir_compute_at(l.k, NULL, "csrmm1", "i"),
		"compute_at: kernel 'csrmm' has no block '(null)'");
	SCHED_REFUSED(l, stir_horizontal_fuse(l.k, 2, NULL),
		"horizontal_fuse: horizontal fusion needs at least 2 blocks, not 0");
	sched_unload(&l);
}
END_TEST

/* ---- what primitives make (stir_kernel_get_made) ---- */

/* k, kind, want: the names of kind "kind" the last primitive on k made
 * are exactly want[0..], NULL-terminated, with their origins from[]. */
static void expect_made(const stir_kernel *k, stir_made_kind kind,
	const char *const *want, const char *const *from)
{
	int n = 0;
	while (want[n])
		n++;
	ck_assert_int_eq(stir_kernel_n_made(k, kind), n);
	for (int i = 0; i < n; i++) {
		ck_assert_str_eq(stir_kernel_get_made(k, kind, i), want[i]);
		int nth = 0;    /* the things made before from the same one */
		for (int j = 0; from && j < i; j++)
			nth += !strcmp(from[j], from[i]);
		if (from)
			ck_assert_str_eq(stir_kernel_get_made_from(k, kind, from[i],
				nth), want[i]);
	}
	ck_assert_ptr_null(stir_kernel_get_made(k, kind, n));
}

START_TEST(test_made_lowering)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	/* a stage I kernel made by reading has no record */
	ck_assert_int_eq(stir_kernel_n_made(l.k, STIR_MADE_BLOCK), 0);
	SCHED_OK(l, stir_lower_sparse_iter(l.k));
	static const char *const blocks[] = { "csrmm0", "csrmm1", NULL };
	static const char *const inits[] = { "csrmm_init0", NULL };
	static const char *const indptr[] = { "J_indptr", NULL };
	static const char *const indices[] = { "J_indices", NULL };
	static const char *const from_j[] = { "J" };
	expect_made(l.k, STIR_MADE_BLOCK, blocks, NULL);
	ck_assert_str_eq(stir_kernel_get_made_from(l.k, STIR_MADE_BLOCK,
		"csrmm", 1), "csrmm1");
	expect_made(l.k, STIR_MADE_INIT_BLOCK, inits, NULL);
	ck_assert_str_eq(stir_kernel_get_made_from(l.k, STIR_MADE_INIT_BLOCK,
		"csrmm", 0), "csrmm_init0");
	expect_made(l.k, STIR_MADE_INDPTR, indptr, from_j);
	expect_made(l.k, STIR_MADE_INDICES, indices, from_j);
	SCHED_OK(l, stir_lower_sparse_buffer(l.k));
	static const char *const bufs[] = { "A_data", "B_data", "C_data", NULL };
	static const char *const from_abc[] = { "A", "B", "C" };
	expect_made(l.k, STIR_MADE_BUFFER, bufs, from_abc);
	ck_assert_int_eq(stir_kernel_n_made(l.k, STIR_MADE_BLOCK), 0);
	sched_unload(&l);
}
END_TEST

START_TEST(test_made_schedules)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	static const int64_t f[] = { 0, 32 };
	SCHED_OK(l, stir_split(l.k, "csrmm1", "i", 2, f));
	static const char *const split[] = { "i_0", "i_1", NULL };
	static const char *const from_i[] = { "i", "i" };
	expect_made(l.k, STIR_MADE_LOOP, split, from_i);
	const char *inner = stir_kernel_get_made(l.k, STIR_MADE_LOOP, 1);
	/* an annotation makes nothing; a refused request leaves no record */
	SCHED_OK(l, stir_bind(l.k, "csrmm1", inner, STIR_THREAD_X));
	ck_assert_int_eq(stir_kernel_n_made(l.k, STIR_MADE_LOOP), 0);
	ck_assert_str_eq(inner, "i_1");  /* the name outlives the record */
	SCHED_OK(l, stir_split(l.k, "csrmm1", "k", 2, f));
	SCHED_REFUSED(l, stir_split(l.k, "csrmm1", "k", 2, f),
		"split: block 'csrmm1' has no enclosing loop 'k'");
	ck_assert_int_eq(stir_kernel_n_made(l.k, STIR_MADE_LOOP), 0);
	/* fuse: one loop, made from the outermost loop fused */
	static const char *const kk[] = { "k_0", "k_1" };
	SCHED_OK(l, stir_fuse(l.k, "csrmm1", 2, kk));
	static const char *const fused[] = { "k_0_k_1", NULL };
	expect_made(l.k, STIR_MADE_LOOP, fused, kk);
	sched_unload(&l);

	/* cache_read and cache_write: the cache, its copy block and the
	 * copy block's loops */
	l = sched_load("examples/csrmm.stir", NULL);
	SCHED_OK(l, stir_specialize(l.k, "feat", 8));
	ck_assert_int_eq(stir_kernel_n_made(l.k, STIR_MADE_LOOP), 0);
	sched_lower(&l, 2);
	SCHED_OK(l, stir_cache_read(l.k, "csrmm1", "B", "k", STIR_SCOPE_LOCAL));
	static const char *const c1[] = { "B_local", NULL };
	static const char *const from_b[] = { "B" };
	static const char *const from_blk[] = { "csrmm1" };
	expect_made(l.k, STIR_MADE_BUFFER, c1, from_b);
	expect_made(l.k, STIR_MADE_BLOCK, c1, from_blk);
	ck_assert_int_eq(stir_kernel_n_made(l.k, STIR_MADE_INIT_BLOCK), 0);
	SCHED_OK(l, stir_cache_write(l.k, "csrmm1", "C", "j", STIR_SCOPE_LOCAL));
	static const char *const w1[] = { "C_local", NULL };
	static const char *const w1i[] = { "C_local_init", NULL };
	static const char *const from_c[] = { "C" };
	static const char *const ax[] = { "ax0", "ax0", NULL };
	static const char *const from_nests[] = { "C_local_init", "C_local" };
	expect_made(l.k, STIR_MADE_BUFFER, w1, from_c);
	expect_made(l.k, STIR_MADE_BLOCK, w1, from_blk);
	expect_made(l.k, STIR_MADE_INIT_BLOCK, w1i, from_blk);
	expect_made(l.k, STIR_MADE_LOOP, ax, from_nests);
	sched_unload(&l);

	/* rfactor: the partial results, the rf block and its init */
	l = sched_load("examples/ellmv.stir", NULL);
	sched_lower(&l, 3);
	static const int64_t g[] = { 2, 0 };
	SCHED_OK(l, stir_split(l.k, "ellmv0", "j", 2, g));
	SCHED_OK(l, stir_rfactor(l.k, "ellmv0",
		stir_kernel_get_made(l.k, STIR_MADE_LOOP, 0)));
	static const char *const rf[] = { "y_data_rf", NULL };
	static const char *const from_y[] = { "y_data" };
	static const char *const rfb[] = { "ellmv0_rf", NULL };
	static const char *const rfi[] = { "ellmv0_rf_init", NULL };
	static const char *const from_e[] = { "ellmv0" };
	expect_made(l.k, STIR_MADE_BUFFER, rf, from_y);
	expect_made(l.k, STIR_MADE_BLOCK, rfb, from_e);
	expect_made(l.k, STIR_MADE_INIT_BLOCK, rfi, from_e);
	sched_unload(&l);
}
END_TEST

START_TEST(test_made_hybrid)
{
	/* the parts in decomposition order, and their iterations, tensors
	 * and axes as decompose_format makes them */
	static const int64_t buckets[] = { 1, 4 };
	int q, t;
	ck_assert_int_eq(stir_format_hybrid_n_parts(1, 2, true), 3);
	ck_assert_int_eq(stir_format_hybrid_n_parts(2, 2, false), 4);
	ck_assert_int_eq(stir_format_hybrid_n_parts(2, 2, true), -1);
	ck_assert_int_eq(stir_format_hybrid_n_parts(0, 2, false), -1);
	ck_assert_int_eq(stir_format_hybrid_get_part(1, 2, true, 0, &q, &t), 0);
	ck_assert(q == 0 && t == 2);
	ck_assert_int_eq(stir_format_hybrid_get_part(2, 2, false, 3, &q, &t), 0);
	ck_assert(q == 1 && t == 1);
	ck_assert_int_eq(stir_format_hybrid_get_part(2, 2, false, 4, &q, &t), -1);
	char *sfx = stir_format_hybrid_part_suffix("_hyb", 1, 0);
	ck_assert_str_eq(sfx, "_hyb_1_0");
	free(sfx);
	loaded l = sched_load("examples/csrmm.stir", NULL);
	stir_format_rule *rules[3];
	for (int i = 0; i < 3; i++)
		ck_assert_ptr_nonnull(rules[i] = stir_format_rule_hybrid("_h", 1,
			2, buckets, true, i));
	ck_assert_ptr_null(stir_format_rule_hybrid("_h", 1, 2, buckets, true, 3));
	int rc = stir_decompose_format(l.k, "A", 3, rules);
	for (int i = 0; i < 3; i++)
		stir_format_rule_free(rules[i]);
	SCHED_OK(l, rc);
	static const char *const iters[] = { "csrmm_h_0_2", "csrmm_h_0_0",
		"csrmm_h_0_1", NULL };
	static const char *const tensors[] = { "A_h_0_2", "A_h_0_0", "A_h_0_1",
		NULL };
	static const char *const copy[] = { "csrmm_copy", NULL };
	expect_made(l.k, STIR_MADE_ITER, iters, NULL);
	expect_made(l.k, STIR_MADE_BUFFER, tensors, NULL);
	expect_made(l.k, STIR_MADE_KERNEL, copy, NULL);
	/* covering the rows: no init iteration of its own */
	ck_assert_int_eq(stir_kernel_n_made(l.k, STIR_MADE_INIT_ITER), 0);
	ck_assert_str_eq(stir_kernel_get_made_from(l.k, STIR_MADE_AXIS,
		"A_h_0_1", 2), "C_h_0_1");
	SCHED_OK(l, stir_module_lower_sparse_iter(l.m));
	ck_assert_str_eq(stir_kernel_get_made_from(l.k, STIR_MADE_BLOCK,
		"csrmm_h_0_2", 0), "csrmm_h_0_20");
	ck_assert_str_eq(stir_kernel_get_made_from(l.k, STIR_MADE_INIT_BLOCK,
		"csrmm_h_0_2", 0), "csrmm_h_0_2_init0");
	ck_assert_str_eq(stir_kernel_get_made_from(l.k, STIR_MADE_INDICES,
		"C_h_0_1", 0), "C_h_0_1_indices");
	sched_unload(&l);
}
END_TEST

/* Two iterations, s (with an init) and s1 (without): block s10 is
 * s1's, whatever its name suggests ("s" followed by digits). */
static const char *const two_iters =
	"kernel two(m: i32, n: i32) {\n"
	"  axis I = dense_fixed(m);\n"
	"  axis K = dense_fixed(n);\n"
	"  tensor X: f32[I, K];\n"
	"  tensor Y: f32[I];\n"
	"  tensor Z: f32[I];\n"
	"  iter s (i, k) in [I, K] \"SR\" {\n"
	"    init { Y[i] = 0.0; }\n"
	"    Y[i] += X[i, k];\n"
	"  }\n"
	"  iter s1 (i, k) in [I, K] \"SR\" {\n"
	"    Z[i] += X[i, k];\n"
	"  }\n"
	"}\n";

START_TEST(test_init_link)
{
	loaded l = sched_load("t.stir", two_iters);
	sched_lower(&l, 2);
	static const char *const blocks[] = { "s0", "s10", NULL };
	static const char *const from[] = { "s", "s1" };
	expect_made(l.k, STIR_MADE_BLOCK, blocks, from);
	/* the link is the lowering's, not the names' */
	SCHED_REFUSED(l, stir_decompose_reduction(l.k, "s10", "k"),
		"decompose_reduction: iteration 's1' of block 's10' has no init "
		"block 's1_init0'");
	/* the text form writes the link ("iter s1"; docs/ir.md): read
	 * back, s10 is still s1's, not s's as its name suggests, and s0
	 * finds its init as before */
	char *text = stir_module_to_str(l.m);
	ck_assert_ptr_nonnull(strstr(text, "block s10(vi: S = i, vk: R = k) iter s1 "));
	loaded r = sched_load("t.stir", text);
	free(text);
	SCHED_REFUSED(r, stir_decompose_reduction(r.k, "s10", "k"),
		"decompose_reduction: iteration 's1' of block 's10' has no init "
		"block 's1_init0'");
	SCHED_OK(r, stir_decompose_reduction(r.k, "s0", "k"));
	SCHED_OK(l, stir_decompose_reduction(l.k, "s0", "k"));
	char *a = stir_kernel_to_str(l.k), *b = stir_kernel_to_str(r.k);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	sched_unload(&r);
	sched_unload(&l);
	/* a block linked to no iteration has no init nest: said so, not a
	 * name guessed from the block's */
	l = sched_load("t.stir",
		"kernel one(m: i32, n: i32) stage 2 {\n"
		"  axis I = dense_fixed(m);\n"
		"  axis K = dense_fixed(n);\n"
		"  tensor X: f32[I, K];\n"
		"  tensor Z: f32[I];\n"
		"  for i in [0, m) {\n"
		"    for k in [0, n) {\n"
		"      block acc(vi: S = i, vk: R = k) reads(X[vi, vk], Z[vi]) "
		"writes(Z[vi]) {\n"
		"        Z[vi] += X[vi, vk];\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	SCHED_REFUSED(l, stir_decompose_reduction(l.k, "acc", "k"),
		"decompose_reduction: block 'acc' has no iteration (no 'iter' "
		"link), so no init block to move");
	sched_unload(&l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("schedule");
	TCase *tc = tcase_create("loops");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_split_keeps);
	tcase_add_test(tc, test_split_text);
	tcase_add_test(tc, test_split_types);
	tcase_add_test(tc, test_split_guard_each);
	tcase_add_test(tc, test_split_refused);
	tcase_add_test(tc, test_fuse_keeps);
	tcase_add_test(tc, test_fuse_text);
	tcase_add_test(tc, test_fuse_refused);
	tcase_add_test(tc, test_reorder_keeps);
	tcase_add_test(tc, test_reorder_refused);
	suite_add_tcase(s, tc);
	TCase *ta = tcase_create("annotations");
	tcase_set_timeout(ta, 60);
	tcase_add_test(ta, test_annotate_keeps);
	tcase_add_test(ta, test_bind_refused);
	tcase_add_test(ta, test_vectorize_refused);
	tcase_add_test(ta, test_reduction_keeps);
	tcase_add_test(ta, test_reduction_text);
	tcase_add_test(ta, test_reduction_refused);
	tcase_add_test(ta, test_rfactor_keeps);
	tcase_add_test(ta, test_rfactor_text);
	tcase_add_test(ta, test_rfactor_refused);
	tcase_add_test(ta, test_null_arguments);
	suite_add_tcase(s, ta);
	TCase *tm = tcase_create("made");
	tcase_set_timeout(tm, 60);
	tcase_add_test(tm, test_made_lowering);
	tcase_add_test(tm, test_made_schedules);
	tcase_add_test(tm, test_made_hybrid);
	tcase_add_test(tm, test_init_link);
	suite_add_tcase(s, tm);
	return test_run_suite(s);
}
