/* Stage II/III schedules that move computation and data: compute_at,
 * reverse_compute_at, decompose_reduction, cache_read, cache_write,
 * cache_write_over_init, cache_write_runs, reverse_cache_read,
 * reverse_cache_write, horizontal_fuse.  Legal requests keep what the programs compute;
 * refused ones give one exact diagnostic and leave the kernel unchanged;
 * some results are compared with their expected text. */
#include "tests/testsched.h"

#define SEEDS 4

/* A producer nest and a consumer nest over a local buffer. */
static const char *const pc_text =
	"kernel pc(m: i32, n: i32) stage 3 {\n"
	"  buffer X_data: f32[m * n] = X;\n"
	"  buffer Y_data: f32[m] = Y;\n"
	"  buffer Z_data: f32[m] = Z;\n"
	"  buffer T: f32[m];\n"
	"  for i in [0, m) {\n"
	"    block p0(vi: S = i) {\n"
	"      T[vi] = 0.0;\n"
	"      for j in [0, n) {\n"
	"        block p1(vj: R = j) {\n"
	"          T[vi] += X_data[vi * n + vj];\n"
	"        }\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"  for i in [0, m) {\n"
	"    block c0(vi: S = i) {\n"
	"      Y_data[vi] = T[vi] * 2.0;\n"
	"    }\n"
	"  }\n"
	"  for i in [0, m - 1) {\n"
	"    block c1(vi: S = i) {\n"
	"      Z_data[vi] = T[vi] + 1.0;\n"
	"    }\n"
	"  }\n"
	"  for i in [0, m) {\n"
	"    block c2(vi: S = i) {\n"
	"      Z_data[vi] += T[vi];\n"
	"    }\n"
	"  }\n"
	"}\n";

/* An iteration whose name ends in a digit. */
static const char *const it2_text =
	"kernel d2(m: i32, n: i32, nnz: i32) {\n"
	"  axis I = dense_fixed(m);\n"
	"  axis J = sparse_variable(I, n, nnz);\n"
	"  tensor A: f32[I, J];\n"
	"  tensor B: f32[I];\n"
	"  iter it2 (i, j) in [I, J] \"SR\" {\n"
	"    init { B[i] = 1.0; }\n"
	"    B[i] += A[i, j];\n"
	"  }\n"
	"}\n";

/* Four independent-ish iterations for horizontal fusion. */
static const char *const two_text =
	"kernel two(m: i32, n: i32, nnz: i32) {\n"
	"  axis I = dense_fixed(m);\n"
	"  axis J = sparse_variable(I, n, nnz);\n"
	"  tensor A: f32[I, J];\n"
	"  tensor B: f32[I, J];\n"
	"  tensor C: f32[I, J];\n"
	"  tensor D: f32[I];\n"
	"  iter p (i, j) in [I, J] \"SS\" { B[i, j] = A[i, j] * 2.0; }\n"
	"  iter q (i, j) in [I, J] \"SS\" { C[i, j] = A[i, j] + 1.0; }\n"
	"  iter r (i, j) in [I, J] \"SR\" { D[i] += A[i, j]; }\n"
	"  iter s (i, j) in [I, J] \"SR\" { D[i] += B[i, j]; }\n"
	"}\n";

static const char *const l_kj[] = { "k", "j" };

/* ---- compute_at, reverse_compute_at ---- */

static void compute_pc(loaded *l)
{
	SCHED_OK(*l, stir_compute_at(l->k, "p0", "c0", "i"));
}

static void reverse_pc(loaded *l)
{
	SCHED_OK(*l, stir_reverse_compute_at(l->k, "c0", "p0", "i"));
	SCHED_OK(*l, stir_bind(l->k, "p0", "i", STIR_BLOCK_X));
}

static void compute_csrmm(loaded *l)
{
	/* the init into the row loop: a point (the row) and a whole
	 * dimension (the features) */
	SCHED_OK(*l, stir_compute_at(l->k, "csrmm_init0", "csrmm1", "i"));
	SCHED_OK(*l, stir_bind(l->k, "csrmm1", "i", STIR_BLOCK_X));
}

START_TEST(test_compute_at_keeps)
{
	sched_check_keeps(NULL, pc_text, 3, compute_pc, 0, SEEDS);
	sched_check_keeps(NULL, pc_text, 3, reverse_pc, 0, SEEDS);
	sched_check_keeps("examples/csrmm.stir", NULL, 2, compute_csrmm, 0, SEEDS);
	sched_check_keeps("examples/csrmm.stir", NULL, 3, compute_csrmm, 0, SEEDS);
}
END_TEST

START_TEST(test_compute_at_text)
{
	loaded l = sched_load(NULL, pc_text);
	reverse_pc(&l);
	char *s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s,
		"  for i in [0, m) bind(blockIdx.x) {\n"
		"    block p0(vi: S = i) reads(X_data[:], T[vi]) writes(T[vi]) {\n"));
	ck_assert_ptr_nonnull(strstr(s,
		"    }\n"
		"    block c0(vi: S = i) reads(T[vi]) writes(Y_data[vi]) {\n"
		"      Y_data[vi] = T[vi] * 2.0;\n"
		"    }\n"
		"  }\n"
		"  for i in [0, m - 1) {\n"));
	free(s);
	sched_unload(&l);

	l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_OK(l, stir_compute_at(l.k, "csrmm_init0", "csrmm1", "i"));
	s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s,
		"  for i in [0, m) {\n"
		"    for k in [0, feat) {\n"
		"      block csrmm_init0(vi: S = i, vk: S = k) init csrmm writes(C[vi, vk]) {\n"
		"        C[vi, vk] = 0.0;\n"
		"      }\n"
		"    }\n"
		"    block csrmm0(vi: S = i) iter csrmm "));
	free(s);
	sched_unload(&l);
}
END_TEST

START_TEST(test_compute_at_refused)
{
	loaded l = sched_load(NULL, pc_text);
	SCHED_REFUSED(l, stir_compute_at(l.k, "c0", "p0", "i"),
		"compute_at: block 'c0' does not come before block 'p0' in one "
		"statement list");
	SCHED_REFUSED(l, stir_compute_at(l.k, "p0", "c1", "i"),
		"compute_at: loop 'i' of block 'p0' has extent m but loop 'i' has "
		"extent m - 1");
	SCHED_REFUSED(l, stir_compute_at(l.k, "p0", "c2", "i"),
		"compute_at: a statement between block 'p0' and its new place "
		"accesses 'T'");
	SCHED_REFUSED(l, stir_reverse_compute_at(l.k, "p0", "c0", "i"),
		"reverse_compute_at: block 'p0' does not come after block 'c0' in "
		"one statement list");
	SCHED_REFUSED(l, stir_reverse_compute_at(l.k, "c2", "p0", "i"),
		"reverse_compute_at: a statement between block 'c2' and its new "
		"place accesses 'Z_data'");
	SCHED_REFUSED(l, stir_compute_at(l.k, "p1", "c0", "i"),
		"compute_at: block 'p1' does not come before block 'c0' in one "
		"statement list");
	sched_unload(&l);

	l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_compute_at(l.k, "csrmm_init0", "csrmm1", "j"),
		"compute_at: loop 'j' encloses the new place of block 'csrmm_init0' "
		"but no loop of the block matches it");
	SCHED_REFUSED(l, stir_compute_at(l.k, "csrmm_init0", "csrmm1", "q"),
		"compute_at: block 'csrmm1' has no enclosing loop 'q'");
	static const char *const ik[] = { "i", "k" };
	SCHED_OK(l, stir_fuse(l.k, "csrmm_init0", 2, ik));
	SCHED_REFUSED(l, stir_compute_at(l.k, "csrmm_init0", "csrmm1", "i"),
		"compute_at: block 'csrmm_init0' binds variable 'vi' to i_k / feat, "
		"not to one of its loops");
	sched_unload(&l);
}
END_TEST

/* ---- decompose_reduction ---- */

static void decompose_csrmm(loaded *l)
{
	SCHED_OK(*l, stir_decompose_reduction(l->k, "csrmm1", "j"));
	SCHED_OK(*l, stir_reorder(l->k, "csrmm1", 2, l_kj));
	SCHED_OK(*l, stir_bind(l->k, "csrmm1", "i", STIR_BLOCK_X));
}

static void decompose_rgcn(loaded *l)
{
	SCHED_OK(*l, stir_decompose_reduction(l->k, "rgcn1", "j"));
}

static void decompose_sddmm3(loaded *l)
{
	SCHED_OK(*l, stir_decompose_reduction(l->k, "sddmm0", "k"));
	SCHED_OK(*l, stir_bind(l->k, "sddmm0", "ij", STIR_BLOCK_X));
}

static void decompose_softmax(loaded *l)
{
	/* the inits already sit before their loops */
	SCHED_OK(*l, stir_decompose_reduction(l->k, "mx0", "j"));
	SCHED_OK(*l, stir_decompose_reduction(l->k, "sm0", "j"));
}

static void decompose_it2(loaded *l)
{
	SCHED_OK(*l, stir_decompose_reduction(l->k, "it21", "j"));
	char *s = stir_kernel_to_str(l->k);
	ck_assert_ptr_nonnull(strstr(s, "block it2_init0(vi1: S = vi)"));
	free(s);
}

static void decompose_bsr(loaded *l)
{
	static const char *const f_bj[] = { "f", "bj" };
	SCHED_OK(*l, stir_reorder(l->k, "bsrmm0", 2, f_bj));
	SCHED_OK(*l, stir_decompose_reduction(l->k, "bsrmm1", "bj"));
}

START_TEST(test_decompose_keeps)
{
	sched_check_keeps("examples/csrmm.stir", NULL, 2, decompose_csrmm, 0,
		SEEDS);
	sched_check_keeps("examples/csrmm.stir", NULL, 3, decompose_csrmm, 0,
		SEEDS);
	sched_check_keeps("examples/rgcn_homo.stir", NULL, 2, decompose_rgcn, 0,
		SEEDS);
	sched_check_keeps("examples/sddmm.stir", NULL, 3, decompose_sddmm3, 0,
		SEEDS);
	sched_check_keeps("examples/csr_softmax.stir", NULL, 2,
		decompose_softmax, 0, SEEDS);
	sched_check_keeps("examples/bsrmm.stir", NULL, 2, decompose_bsr, 1e-4, 2);
	sched_check_keeps(NULL, it2_text, 3, decompose_it2, 0, SEEDS);
}
END_TEST

START_TEST(test_decompose_text)
{
	loaded l = sched_load("examples/segment_sum.stir", NULL);
	sched_lower(&l, 3);
	SCHED_OK(l, stir_decompose_reduction(l.k, "seg1", "j"));
	sched_expect_text(&l,
		"kernel segment_sum(m: i32, maxlen: i32, nnz: i32) stage 3 {\n"
		"  buffer J_indptr: i32[m + 1] = J.indptr in [0, nnz + 1);\n"
		"  buffer A_data: f32[nnz] = A;\n"
		"  buffer B_data: f32[m] = B;\n"
		"  for i in [0, m) {\n"
		"    block seg0(vi: S = i) iter seg reads(J_indptr[vi:vi + 2], A_data[:], "
		"B_data[vi]) writes(B_data[:]) {\n"
		"      block seg_init0(vi1: S = vi) init seg writes(B_data[vi1]) {\n"
		"        B_data[vi1] = 0.0;\n"
		"      }\n"
		"      for j in [0, J_indptr[vi + 1] - J_indptr[vi]) {\n"
		"        block seg1(vj: R = j) iter seg reads(J_indptr[vi], "
		"A_data[J_indptr[vi] + vj], B_data[vi]) writes(B_data[vi]) {\n"
		"          B_data[vi] += A_data[J_indptr[vi] + vj];\n"
		"        }\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	sched_unload(&l);
}
END_TEST

START_TEST(test_decompose_refused)
{
	loaded l = sched_load("examples/bsrmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_decompose_reduction(l.k, "bsrmm1", "j"),
		"decompose_reduction: loop 'bj' encloses loop 'j' and iterates "
		"reduction variable 'vbj' of block 'bsrmm0'");
	sched_unload(&l);

	l = sched_load("examples/rgms.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_decompose_reduction(l.k, "rgms2", "j"),
		"decompose_reduction: loop 'rr' encloses loop 'j' and iterates "
		"reduction variable 'vrr' of block 'rgms0'");
	SCHED_REFUSED(l, stir_decompose_reduction(l.k, "rgms0", "rr"),
		"decompose_reduction: iteration 'rgms' of block 'rgms0' has no init "
		"block 'rgms_init0'");
	sched_unload(&l);

	l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	static const int64_t f[] = { 0, 8 };
	SCHED_OK(l, stir_split(l.k, "csrmm1", "i", 2, f));
	SCHED_REFUSED(l, stir_decompose_reduction(l.k, "csrmm1", "j"),
		"decompose_reduction: an if statement lies between block "
		"'csrmm_init0' and its new place");
	sched_unload(&l);
}
END_TEST

/* ---- cache_read, cache_write ---- */

static void cache_read_sddmm2(loaded *l)
{
	SCHED_OK(*l, stir_cache_read(l->k, "sddmm0", "X", "k",
		STIR_SCOPE_SHARED));
	SCHED_OK(*l, stir_bind(l->k, "sddmm0", "ij", STIR_BLOCK_X));
}

static void cache_read_sddmm3(loaded *l)
{
	SCHED_OK(*l, stir_cache_read(l->k, "sddmm0", "X_data", "k",
		STIR_SCOPE_SHARED));
	SCHED_OK(*l, stir_cache_read(l->k, "sddmm0", "Y_data", "k",
		STIR_SCOPE_SHARED));
	SCHED_OK(*l, stir_bind(l->k, "sddmm0", "ij", STIR_BLOCK_X));
	SCHED_OK(*l, stir_bind(l->k, "X_data_shared", "ax0", STIR_THREAD_X));
}

static void cache_read_whole(loaded *l)
{
	/* B's rows are scattered: the whole buffer (correct, and large) */
	SCHED_OK(*l, stir_cache_read(l->k, "csrmm1", "B_data", "j",
		STIR_SCOPE_SHARED));
}

/* l: csrmm at 10 features, k split by 4 (a tail guard), B's and A's
 * elements cached in registers at k_0. */
static void cache_read_split_tail(loaded *l)
{
	static const int64_t f4[] = { 0, 4 };
	SCHED_OK(*l, stir_specialize(l->k, "feat", 10));
	SCHED_OK(*l, stir_split(l->k, "csrmm1", "k", 2, f4));
	SCHED_OK(*l, stir_cache_read(l->k, "csrmm1", "B_data", "k_0",
		STIR_SCOPE_LOCAL));
	SCHED_OK(*l, stir_cache_read(l->k, "csrmm1", "A_data", "k_0",
		STIR_SCOPE_LOCAL));
}

/* A's element under the tail guard of k's split, which A's index does not
 * use: copied when the guard passes at k's first iteration (and k_0 runs:
 * feat may be 0) */
static void cache_read_guarded(loaded *l)
{
	static const int64_t f4[] = { 0, 4 };
	SCHED_OK(*l, stir_split(l->k, "csrmm1", "k", 2, f4));
	SCHED_OK(*l, stir_cache_read(l->k, "csrmm1", "A_data", "k_0",
		STIR_SCOPE_LOCAL));
}

static void cache_write_csrmm(loaded *l)
{
	SCHED_OK(*l, stir_reorder(l->k, "csrmm1", 2, l_kj));
	SCHED_OK(*l, stir_cache_write(l->k, "csrmm1",
		stir_kernel_get_stage(l->k) == 2 ? "C" : "C_data", "j",
		STIR_SCOPE_LOCAL));
	SCHED_OK(*l, stir_bind(l->k, "csrmm1", "k", STIR_THREAD_X));
	SCHED_OK(*l, stir_bind(l->k, "csrmm1", "i", STIR_BLOCK_X));
}

static void cache_write_softmax(loaded *l)
{
	/* max is no sum: copied in and written back */
	SCHED_OK(*l, stir_cache_write(l->k, "mx0", "rmax", "j",
		STIR_SCOPE_LOCAL));
	SCHED_OK(*l, stir_cache_write(l->k, "sm0", "rsum", "j",
		STIR_SCOPE_LOCAL));
	SCHED_OK(*l, stir_bind(l->k, "mx0", "i", STIR_THREAD_X));
}

static void cache_write_rgms(loaded *l)
{
	/* the write-back of an atomic block is atomic */
	static const char *const fo_j[] = { "fo", "j" };
	SCHED_OK(*l, stir_set_atomic(l->k, "rgms2"));
	SCHED_OK(*l, stir_reorder(l->k, "rgms2", 2, fo_j));
	SCHED_OK(*l, stir_cache_write(l->k, "rgms2", stir_kernel_get_stage(l->k)
		== 2 ? "Y" : "Y_data", "j", STIR_SCOPE_LOCAL));
	SCHED_OK(*l, stir_bind(l->k, "rgms2", "rr", STIR_BLOCK_X));
	SCHED_OK(*l, stir_bind(l->k, "rgms2", "fo", STIR_THREAD_X));
}

START_TEST(test_cache_keeps)
{
	sched_check_keeps("examples/sddmm.stir", NULL, 2, cache_read_sddmm2, 0,
		SEEDS);
	sched_check_keeps("examples/sddmm.stir", NULL, 3, cache_read_sddmm3, 0,
		SEEDS);
	sched_check_keeps("examples/csrmm.stir", NULL, 3, cache_read_whole, 0,
		SEEDS);
	sched_check_keeps("examples/csrmm.stir", NULL, 3, cache_read_guarded,
		1e-5, SEEDS);
	sched_check_keeps("examples/csrmm.stir", NULL, 2, cache_write_csrmm,
		1e-5, SEEDS);
	sched_check_keeps("examples/csrmm.stir", NULL, 3, cache_write_csrmm,
		1e-5, SEEDS);
	sched_check_keeps("examples/csr_softmax.stir", NULL, 3,
		cache_write_softmax, 1e-5, SEEDS);
	sched_check_keeps("examples/rgms.stir", NULL, 2, cache_write_rgms, 1e-5,
		SEEDS);
	sched_check_keeps("examples/rgms.stir", NULL, 3, cache_write_rgms, 1e-5,
		SEEDS);
}
END_TEST

START_TEST(test_cache_text)
{
	loaded l = sched_load("examples/ellmv.stir", NULL);
	sched_lower(&l, 3);
	SCHED_OK(l, stir_cache_write(l.k, "ellmv0", "y_data", "j",
		STIR_SCOPE_LOCAL));
	sched_expect_text(&l,
		"kernel ellmv(m: i32, n: i32, c: i32) stage 3 {\n"
		"  buffer J_indices: i32[m * c] = J.indices in [0, n);\n"
		"  buffer A_data: f32[m * c] = A;\n"
		"  buffer x_data: f32[n] = x;\n"
		"  buffer y_data: f32[m] = y;\n"
		"  buffer y_data_local: f32[1] local;\n"
		"  for i in [0, m) {\n"
		"    block ellmv_init0(vi: S = i) init ellmv writes(y_data[vi]) {\n"
		"      y_data[vi] = 0.0;\n"
		"    }\n"
		"  }\n"
		"  for i in [0, m) {\n"
		"    block y_data_local_init(v0: S = i) writes(y_data_local[0]) {\n"
		"      y_data_local[0] = 0.0;\n"
		"    }\n"
		"    for j in [0, c) {\n"
		"      block ellmv0(vi: S = i, vj: R = j) iter ellmv reads(A_data[vi * c + vj], "
		"J_indices[vi * c + vj], x_data[J_indices[vi * c + vj]], "
		"y_data_local[0]) writes(y_data_local[0]) {\n"
		"        y_data_local[0] += A_data[vi * c + vj] * "
		"x_data[J_indices[vi * c + vj]];\n"
		"      }\n"
		"    }\n"
		"    block y_data_local(v0: S = i) reads(y_data_local[0], "
		"y_data[v0]) writes(y_data[v0]) {\n"
		"      y_data[v0] += y_data_local[0];\n"
		"    }\n"
		"  }\n"
		"}\n");
	sched_unload(&l);

	l = sched_load("examples/sddmm.stir", NULL);
	sched_lower(&l, 3);
	SCHED_OK(l, stir_cache_read(l.k, "sddmm0", "X_data", "k",
		STIR_SCOPE_SHARED));
	char *s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s,
		"  buffer X_data_shared: f32[feat] shared;\n"));
	ck_assert_ptr_nonnull(strstr(s,
		"  for ij in [0, nnz) {\n"
		"    for ax0 in [0, feat) {\n"
		"      block X_data_shared(v0: S = (upper_bound(J_indptr, 0, m + 1, "
		"ij) - 1) * feat, v1: S = ax0) reads(X_data[v0 + v1]) "
		"writes(X_data_shared[v1]) {\n"
		"        X_data_shared[v1] = X_data[v0 + v1];\n"
		"      }\n"
		"    }\n"
		"    for k in [0, feat) {\n"));
	ck_assert_ptr_nonnull(strstr(s, "S_data[vij] += X_data_shared[vk] * "));
	free(s);
	sched_unload(&l);
}
END_TEST

START_TEST(test_cache_refused)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_cache_read(l.k, "csrmm1", "Q", "j",
		STIR_SCOPE_SHARED), "cache_read: kernel 'csrmm' has no buffer 'Q'");
	SCHED_REFUSED(l, stir_cache_read(l.k, "csrmm_init0", "A", "k",
		STIR_SCOPE_SHARED),
		"cache_read: block 'csrmm_init0' does not read 'A'");
	SCHED_REFUSED(l, stir_cache_read(l.k, "csrmm1", "C", "k",
		STIR_SCOPE_SHARED), "cache_read: 'C' is written under loop 'k'");
	SCHED_REFUSED(l, stir_cache_read(l.k, "csrmm1", "A", "j",
		STIR_SCOPE_SHARED),
		"cache_read: the region of 'A' under loop 'j' is not constant-sized: "
		"it spans the variable axis 'J'");
	SCHED_REFUSED(l, stir_cache_read(l.k, "csrmm1", "B", "j",
		STIR_SCOPE_GLOBAL),
		"cache_read: a cache lives in shared, local or warp memory");
	SCHED_REFUSED(l, stir_cache_write(l.k, "csrmm1", "C", "j",
		STIR_SCOPE_LOCAL),
		"cache_write: a local buffer needs a literal size, but the region of "
		"'C' under loop 'j' has feat elements");
	SCHED_REFUSED(l, stir_cache_write(l.k, "csrmm1", "B", "j",
		STIR_SCOPE_LOCAL), "cache_write: block 'csrmm1' does not write 'B'");
	SCHED_OK(l, stir_decompose_reduction(l.k, "csrmm1", "j"));
	SCHED_REFUSED(l, stir_cache_write(l.k, "csrmm1", "C", "i",
		STIR_SCOPE_SHARED),
		"cache_write: 'C' is written under loop 'i' outside block 'csrmm1'");
	sched_unload(&l);

	l = sched_load("examples/sddmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_cache_read(l.k, "sddmm0", "J_indptr", "k",
		STIR_SCOPE_SHARED), "cache_read: block 'sddmm0' searches 'J_indptr'");
	SCHED_OK(l, stir_cross_thread_reduce(l.k, "sddmm0", "k"));
	SCHED_REFUSED(l, stir_cache_write(l.k, "sddmm0", "S", "k",
		STIR_SCOPE_LOCAL), "cache_write: block 'sddmm0' is cross-thread");
	sched_unload(&l);

	/* a read under a tail guard that picks the element read (B's column
	 * is the split loop's): the copy of each element under the guard
	 * (cache_read_split_tail); A's, outside it, is taken at
	 * the guard's first iteration */
	l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 3);
	cache_read_split_tail(&l);
	char *text = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(text, "if (0 * 4 + 0 < 10) {\n"
		"          block A_data_local("));
	ck_assert_ptr_nonnull(strstr(text, "if (v1 * 4 + v2 < 10) {\n"
		"                B_data_local[v1 * 4 + v2] = B_data[v0 + v1 * 4 + v2];"));
	free(text);
	/* and it computes what csrmm at 10 features does */
	loaded plain = sched_load("examples/csrmm.stir", NULL);
	SCHED_OK(plain, stir_specialize(plain.k, "feat", 10));
	stir_bindings *in = stir_bindings_alloc();
	ck_assert_int_eq(stir_kernel_bind_random(plain.k, in, 7919), 0);
	stir_bindings *want = sched_run(&plain, in);
	stir_bindings *got = sched_run(&l, in);
	sched_expect_same(want, got, 1e-6, "B and A cached at k_0");
	stir_bindings_free(got);
	stir_bindings_free(want);
	stir_bindings_free(in);
	sched_unload(&plain);
	sched_unload(&l);

	/* a copy that threads of a bound loop would all run */
	l = sched_load("examples/sddmm.stir", NULL);
	sched_lower(&l, 3);
	static const int64_t f32[] = { 0, 32 };
	static const char *const k10[] = { "k_1", "k_0" };
	SCHED_OK(l, stir_split(l.k, "sddmm0", "k", 2, f32));
	SCHED_OK(l, stir_reorder(l.k, "sddmm0", 2, k10));
	SCHED_OK(l, stir_cross_thread_reduce(l.k, "sddmm0", "k_1"));
	SCHED_OK(l, stir_bind(l.k, "sddmm0", "k_1", STIR_THREAD_X));
	SCHED_REFUSED(l, stir_cache_read(l.k, "sddmm0", "X_data", "k_0",
		STIR_SCOPE_SHARED),
		"cache_read: block 'X_data_shared' does not depend on loop 'k_1': "
		"every thread would run its stores");
	sched_unload(&l);

	l = sched_load("examples/rgms.stir", NULL);
	sched_lower(&l, 2);
	SCHED_OK(l, stir_set_atomic(l.k, "rgms0"));
	SCHED_REFUSED(l, stir_cache_write(l.k, "rgms2", "Y", "j",
		STIR_SCOPE_LOCAL),
		"cache_write: loop 'j' lies inside atomic block 'rgms1'");
	sched_unload(&l);

	l = sched_load("examples/csr_softmax.stir", NULL);
	sched_lower(&l, 3);
	SCHED_OK(l, stir_set_atomic(l.k, "sm0"));
	SCHED_OK(l, stir_cache_write(l.k, "sm0", "rsum", "j", STIR_SCOPE_LOCAL));
	sched_unload(&l);
}
END_TEST

/* ---- warp caches ---- */

/* ELL SpMM, 8 columns a row (of n + 8, so that every row has 8 distinct
 * ones) and 8 features. */
static const char *const ellmm8_text =
	"kernel ellmm8(m: i32, n: i32) {\n"
	"  axis I = dense_fixed(m);\n"
	"  axis J = sparse_fixed(I, n + 8, 8);\n"
	"  axis Jd = dense_fixed(n + 8);\n"
	"  axis K = dense_fixed(8);\n"
	"  tensor A: f32[I, J];\n"
	"  tensor B: f32[Jd, K];\n"
	"  tensor C: f32[I, K];\n"
	"  iter ellmm (i, j, k) in [I, J, K] \"SRS\" {\n"
	"    init { C[i, k] = 0.0; }\n"
	"    C[i, k] += A[i, j] * B[j, k];\n"
	"  }\n"
	"}\n";

/* l: the features over threadIdx.x, rows over blockIdx.x; k outside j. */
static void ellmm8_lanes(loaded *l)
{
	SCHED_OK(*l, stir_reorder(l->k, "ellmm0", 2, l_kj));
	SCHED_OK(*l, stir_bind(l->k, "ellmm0", "i", STIR_BLOCK_X));
	SCHED_OK(*l, stir_bind(l->k, "ellmm0", "k", STIR_THREAD_X));
}

static void warp_cache_ellmm(loaded *l)
{
	ellmm8_lanes(l);
	SCHED_OK(*l, stir_cache_read(l->k, "ellmm0", "J_indices", "j",
		STIR_SCOPE_WARP));
	SCHED_OK(*l, stir_cache_read(l->k, "ellmm0", "A_data", "j",
		STIR_SCOPE_WARP));
}

static void warp_cache_pieces(loaded *l)
{
	/* pieces of 4 columns: the cache under the inner loop */
	static const int64_t f24[] = { 2, 4 };
	ellmm8_lanes(l);
	SCHED_OK(*l, stir_split(l->k, "ellmm0", "j", 2, f24));
	SCHED_OK(*l, stir_cache_read(l->k, "ellmm0", "A_data", "j_1",
		STIR_SCOPE_WARP));
}

START_TEST(test_warp_cache_keeps)
{
	sched_check_keeps(NULL, ellmm8_text, 3, warp_cache_ellmm, 1e-5, SEEDS);
	sched_check_keeps(NULL, ellmm8_text, 3, warp_cache_pieces, 1e-5, SEEDS);
}
END_TEST

START_TEST(test_warp_cache_text)
{
	loaded l = sched_load(NULL, ellmm8_text);
	sched_lower(&l, 3);
	warp_cache_ellmm(&l);
	char *s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s,
		"  buffer J_indices_warp: i32[8] warp;\n"
		"  buffer A_data_warp: f32[8] warp;\n"));
	ck_assert_ptr_nonnull(strstr(s,
		"    for k in [0, 8) bind(threadIdx.x) {\n"
		"      for ax0 in [0, 8) {\n"
		"        block J_indices_warp(v0: S = i * 8, v1: S = ax0) "
		"reads(J_indices[v0 + v1]) writes(J_indices_warp[v1]) {\n"
		"          J_indices_warp[v1] = J_indices[v0 + v1];\n"
		"        }\n"
		"      }\n"));
	ck_assert_ptr_nonnull(strstr(s, "C_data[vi * 8 + vk] += "
		"A_data_warp[vj] * B_data[J_indices_warp[vj] * 8 + vk];\n"));
	free(s);
	sched_unload(&l);
}
END_TEST

START_TEST(test_warp_cache_refused)
{
	loaded l = sched_load(NULL, ellmm8_text);
	sched_lower(&l, 3);
	SCHED_OK(l, stir_reorder(l.k, "ellmm0", 2, l_kj));
	SCHED_REFUSED(l, stir_cache_read(l.k, "ellmm0", "A_data", "j",
		STIR_SCOPE_WARP), "cache_read: loop 'j' is not inside a loop bound "
		"to threadIdx.x, whose lanes a warp cache is spread over");
	SCHED_OK(l, stir_bind(l.k, "ellmm0", "k", STIR_THREAD_X));
	SCHED_REFUSED(l, stir_cache_write(l.k, "ellmm0", "C_data", "j",
		STIR_SCOPE_WARP), "cache_write: a warp cache is a plain cache_read: "
		"the lanes share one copy of what the block reads");
	SCHED_REFUSED(l, stir_reverse_cache_read(l.k, "ellmm0", "B_data", "j",
		STIR_SCOPE_WARP), "reverse_cache_read: a warp cache is a plain "
		"cache_read: the lanes share one copy of what the block reads");
	/* B's row under j is the lane's own feature */
	SCHED_REFUSED(l, stir_cache_read(l.k, "ellmm0", "B_data", "j",
		STIR_SCOPE_WARP), "cache_read: a warp buffer needs a literal size, "
		"but the region of 'B_data' under loop 'j' has (n + 8) * 8 elements");
	sched_unload(&l);

	/* a row's features in two pieces: under k_1 the lanes (k_0) read
	 * places of their own */
	l = sched_load(NULL, ellmm8_text);
	sched_lower(&l, 3);
	static const int64_t f24[] = { 2, 4 };
	SCHED_OK(l, stir_split(l.k, "ellmm0", "k", 2, f24));
	SCHED_OK(l, stir_bind(l.k, "ellmm0", "k_0", STIR_THREAD_X));
	SCHED_REFUSED(l, stir_cache_read(l.k, "ellmm0", "B_data", "k_1",
		STIR_SCOPE_WARP), "cache_read: block 'ellmm0' reads 'B_data' under "
		"loop 'k_1' at places that depend on loop 'k_0' (threadIdx.x): the "
		"lanes of a warp cache share one copy");
	sched_unload(&l);

	/* lanes that are no literal power of two; a region of c elements */
	l = sched_load("examples/ellmv.stir", NULL);
	sched_lower(&l, 3);
	SCHED_OK(l, stir_bind(l.k, "ellmv0", "i", STIR_THREAD_X));
	SCHED_REFUSED(l, stir_cache_read(l.k, "ellmv0", "A_data", "j",
		STIR_SCOPE_WARP), "cache_read: a warp buffer needs a literal size, "
		"but the region of 'A_data' under loop 'j' has c elements");
	SCHED_OK(l, stir_specialize(l.k, "c", 4));
	SCHED_REFUSED(l, stir_cache_read(l.k, "ellmv0", "A_data", "j",
		STIR_SCOPE_WARP), "cache_read: loop 'i' bound to threadIdx.x has "
		"extent m: the lanes of a warp cache are a literal power of two up "
		"to 32");
	sched_unload(&l);

	/* 16-bit numbers */
	l = sched_load(NULL,
		"kernel h(m: i32) stage 3 {\n"
		"  buffer P: f16[m * 4] = P;\n"
		"  buffer Q: f16[m * 8] = Q;\n"
		"  for i in [0, m) bind(blockIdx.x) {\n"
		"    for t in [0, 8) bind(threadIdx.x) {\n"
		"      for j in [0, 4) {\n"
		"        block b(vi: S = i, vt: S = t, vj: R = j) {\n"
		"          Q[vi * 8 + vt] += P[vi * 4 + vj];\n"
		"        }\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	SCHED_REFUSED(l, stir_cache_read(l.k, "b", "P", "j", STIR_SCOPE_WARP),
		"cache_read: a warp cache holds 32- or 64-bit numbers (what warp "
		"shuffles move), and 'P' is f16");
	sched_unload(&l);

	/* stage II: buffers over axes */
	l = sched_load(NULL, ellmm8_text);
	sched_lower(&l, 2);
	SCHED_OK(l, stir_reorder(l.k, "ellmm0", 2, l_kj));
	SCHED_OK(l, stir_bind(l.k, "ellmm0", "k", STIR_THREAD_X));
	SCHED_REFUSED(l, stir_cache_read(l.k, "ellmm0", "A", "j",
		STIR_SCOPE_WARP), "cache_read: a warp cache needs a flat buffer "
		"(stage III), and 'A' is over axes");
	sched_unload(&l);
}
END_TEST

/* ---- strided caches ---- */

/* ELL SpMM of 8 features, k split 2 x 2 x 2 and its loops i, k_1, j,
 * k_0, k_2: under j a thread's features are k_0 * 4 + k_2 (plus k_1 * 2),
 * two pairs 4 apart. */
static void strided_ellmm(loaded *l)
{
	static const int64_t f222[] = { 2, 2, 2 };
	static const char *const order[] = { "k_1", "j", "k_0", "k_2" };
	SCHED_OK(*l, stir_split(l->k, "ellmm0", "k", 3, f222));
	SCHED_OK(*l, stir_reorder(l->k, "ellmm0", 4, order));
	SCHED_OK(*l, stir_bind(l->k, "ellmm0", "i", STIR_BLOCK_X));
	SCHED_OK(*l, stir_bind(l->k, "ellmm0", "k_1", STIR_THREAD_X));
}

static void strided_write(loaded *l)
{
	strided_ellmm(l);
	SCHED_OK(*l, stir_cache_write(l->k, "ellmm0", "C_data", "j",
		STIR_SCOPE_LOCAL));
}

static void strided_over_init(loaded *l)
{
	strided_ellmm(l);
	SCHED_OK(*l, stir_cache_write_over_init(l->k, "ellmm0", "C_data", "j",
		STIR_SCOPE_LOCAL));
}

static void strided_read(loaded *l)
{
	/* B's row of a column: the thread's 4 features of it */
	strided_ellmm(l);
	SCHED_OK(*l, stir_cache_read(l->k, "ellmm0", "B_data", "k_0",
		STIR_SCOPE_LOCAL));
}

START_TEST(test_strided_cache_keeps)
{
	sched_check_keeps(NULL, ellmm8_text, 3, strided_write, 1e-5, SEEDS);
	sched_check_keeps(NULL, ellmm8_text, 3, strided_over_init, 1e-5, SEEDS);
	sched_check_keeps(NULL, ellmm8_text, 3, strided_read, 1e-5, SEEDS);
}
END_TEST

/* Two loops over one range of X: the elements they reach overlap. */
static const char *const overlap_text =
	"kernel overlap(m: i32) stage 3 {\n"
	"  buffer X_data: f32[m * 8] = X;\n"
	"  buffer Y_data: f32[m] = Y;\n"
	"  for i in [0, m) {\n"
	"    for a in [0, 4) {\n"
	"      for b in [0, 4) {\n"
	"        block ov0(vi: S = i, va: R = a, vb: R = b) {\n"
	"          Y_data[vi] += X_data[vi * 8 + va + vb];\n"
	"        }\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"}\n";

START_TEST(test_strided_cache_text)
{
	loaded l = sched_load(NULL, ellmm8_text);
	sched_lower(&l, 3);
	strided_write(&l);
	char *s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s,
		"  buffer C_data_local: f32[4] local;\n"));
	/* the cache row-major over the terms, strides descending */
	ck_assert_ptr_nonnull(strstr(s, "C_data_local[k_0 * 2 + k_2] += "));
	ck_assert_ptr_nonnull(strstr(s,
		"      for ax0 in [0, 2) {\n"
		"        for ax1 in [0, 2) {\n"
		"          block C_data_local(v0: S = i * 8 + k_1 * 2, v1: S = ax0, "
		"v2: S = ax1) reads(C_data_local[v1 * 2 + v2], "
		"C_data[v0 + v1 * 4 + v2]) writes(C_data[v0 + v1 * 4 + v2]) {\n"
		"            C_data[v0 + v1 * 4 + v2] += C_data_local[v1 * 2 + v2];\n"));
	free(s);
	sched_unload(&l);

	/* overlapping terms: no strided region, so the whole buffer */
	l = sched_load(NULL, overlap_text);
	SCHED_REFUSED(l, stir_cache_read(l.k, "ov0", "X_data", "a",
		STIR_SCOPE_LOCAL), "cache_read: a local buffer needs a literal "
		"size, but the region of 'X_data' under loop 'a' has m * 8 elements");
	SCHED_OK(l, stir_cache_read(l.k, "ov0", "X_data", "b",
		STIR_SCOPE_LOCAL));
	sched_unload(&l);
}
END_TEST

/* ---- cache_write_over_init ---- */

/* CSR SpMM over 8 features: splits of the features need no guard. */
static const char *const csrmm8_text =
	"kernel csrmm8(m: i32, n: i32, nnz: i32) {\n"
	"  axis I = dense_fixed(m);\n"
	"  axis J = sparse_variable(I, n, nnz);\n"
	"  axis Jd = dense_fixed(n);\n"
	"  axis K = dense_fixed(8);\n"
	"  tensor A: f32[I, J];\n"
	"  tensor B: f32[Jd, K];\n"
	"  tensor C: f32[I, K];\n"
	"  iter csrmm (i, j, k) in [I, J, K] \"SRS\" {\n"
	"    init { C[i, k] = 0.0; }\n"
	"    C[i, k] += A[i, j] * B[j, k];\n"
	"  }\n"
	"}\n";

/* An iteration at stage III (of it2_text's shape) whose init block
 * stores %s, and %s: what stands between the init nest and the nest of
 * block it21 (nothing: ""). */
static const char *const over_fmt =
	"kernel d3(m: i32, n: i32, nnz: i32) stage 3 {\n"
	"  buffer J_indptr: i32[m + 1] = J.indptr in [0, nnz + 1);\n"
	"  buffer A_data: f32[nnz] = A;\n"
	"  buffer B_data: f32[m] = B;\n"
	"  buffer D_data: f32[m] = D;\n"
	"  for i in [0, m) {\n"
	"    block it2_init0(vi: S = i) {\n"
	"      %s\n"
	"    }\n"
	"  }\n"
	"%s"
	"  for i in [0, m) {\n"
	"    block it20(vi: S = i) {\n"
	"      for j in [0, J_indptr[vi + 1] - J_indptr[vi]) {\n"
	"        block it21(vj: R = j) {\n"
	"          B_data[vi] += A_data[J_indptr[vi] + vj];\n"
	"        }\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"}\n";

/* init, between: over_fmt filled in (static storage, one at a time). */
static const char *over_text(const char *init, const char *between)
{
	static char text[2048];
	snprintf(text, sizeof(text), over_fmt, init, between);
	return text;
}

static void over_init_csrmm(loaded *l)
{
	SCHED_OK(*l, stir_reorder(l->k, "csrmm1", 2, l_kj));
	SCHED_OK(*l, stir_cache_write_over_init(l->k, "csrmm1",
		stir_kernel_get_stage(l->k) == 2 ? "C" : "C_data", "j",
		STIR_SCOPE_LOCAL));
	SCHED_OK(*l, stir_bind(l->k, "csrmm1", "k", STIR_THREAD_X));
	SCHED_OK(*l, stir_bind(l->k, "csrmm1", "i", STIR_BLOCK_X));
}

static void over_init_it2(loaded *l)
{
	/* the init stores 1.0: the cache starts there */
	SCHED_OK(*l, stir_cache_write_over_init(l->k, "it21",
		stir_kernel_get_stage(l->k) == 2 ? "B" : "B_data", "j",
		STIR_SCOPE_LOCAL));
}

static void over_init_range(loaded *l)
{
	/* a cache of 4 consecutive features of a row, a range of C_data */
	static const int64_t f24[] = { 2, 4 };
	SCHED_OK(*l, stir_reorder(l->k, "csrmm1", 2, l_kj));
	SCHED_OK(*l, stir_split(l->k, "csrmm1", "k", 2, f24));
	SCHED_OK(*l, stir_cache_write_over_init(l->k, "csrmm1", "C_data", "k_1",
		STIR_SCOPE_LOCAL));
	char *s = stir_kernel_to_str(l->k);
	ck_assert_ptr_nonnull(strstr(s, "  buffer C_data_local: f32[4] local;\n"));
	ck_assert_ptr_null(strstr(s, "csrmm_init0"));
	free(s);
	SCHED_OK(*l, stir_bind(l->k, "csrmm1", "i", STIR_BLOCK_X));
}

static void over_init_ellmv(loaded *l)
{
	SCHED_OK(*l, stir_cache_write_over_init(l->k, "ellmv0",
		stir_kernel_get_stage(l->k) == 2 ? "y" : "y_data", "j",
		STIR_SCOPE_LOCAL));
}

/* SDDMM row by row at stage III (examples/sddmm_rows.stir): the init
 * nest is two blocks, the row's around its non-zeros', whose loop runs to
 * the row's length J_indptr[vi + 1] - J_indptr[vi] (read-only J_indptr);
 * the sum's non-zeros split by 4 under a tail guard on that length. */
static void over_init_sddmm_rows(loaded *l)
{
	static const int64_t f4[] = { 0, 4 };
	SCHED_OK(*l, stir_split(l->k, "sddmm1", "j", 2, f4));
	SCHED_OK(*l, stir_cache_write_over_init(l->k, "sddmm1", "S_data", "k",
		STIR_SCOPE_LOCAL));
	char *s = stir_kernel_to_str(l->k);
	ck_assert_ptr_null(strstr(s, "sddmm_init"));
	ck_assert_ptr_nonnull(strstr(s, "block S_data_local(v0: S = J_indptr[vi] "
		"+ (j_0 * 4 + j_1)) reads(S_data_local[0]) writes(S_data[v0]) {\n"
		"              S_data[v0] = S_data_local[0];"));
	free(s);
	SCHED_OK(*l, stir_bind(l->k, "sddmm1", "i", STIR_BLOCK_X));
}

/* The cache takes over the init, which it must write everywhere: the
 * random inputs give C (y, B) values that a missed element would keep. */
START_TEST(test_over_init_keeps)
{
	sched_check_keeps("examples/csrmm.stir", NULL, 2, over_init_csrmm, 1e-5,
		SEEDS);
	sched_check_keeps("examples/csrmm.stir", NULL, 3, over_init_csrmm, 1e-5,
		SEEDS);
	sched_check_keeps("examples/ellmv.stir", NULL, 2, over_init_ellmv, 1e-5,
		SEEDS);
	sched_check_keeps(NULL, it2_text, 2, over_init_it2, 1e-5, SEEDS);
	sched_check_keeps(NULL, it2_text, 3, over_init_it2, 1e-5, SEEDS);
	sched_check_keeps(NULL, csrmm8_text, 3, over_init_range, 1e-5, SEEDS);
	sched_check_keeps("examples/sddmm_rows.stir", NULL, 3,
		over_init_sddmm_rows, 1e-5, SEEDS);
}
END_TEST

START_TEST(test_over_init_text)
{
	loaded l = sched_load("examples/ellmv.stir", NULL);
	sched_lower(&l, 3);
	SCHED_OK(l, stir_cache_write_over_init(l.k, "ellmv0", "y_data", "j",
		STIR_SCOPE_LOCAL));
	/* test_cache_text's kernel without the init nest, storing its
	 * element once */
	sched_expect_text(&l,
		"kernel ellmv(m: i32, n: i32, c: i32) stage 3 {\n"
		"  buffer J_indices: i32[m * c] = J.indices in [0, n);\n"
		"  buffer A_data: f32[m * c] = A;\n"
		"  buffer x_data: f32[n] = x;\n"
		"  buffer y_data: f32[m] = y;\n"
		"  buffer y_data_local: f32[1] local;\n"
		"  for i in [0, m) {\n"
		"    block y_data_local_init(v0: S = i) writes(y_data_local[0]) {\n"
		"      y_data_local[0] = 0.0;\n"
		"    }\n"
		"    for j in [0, c) {\n"
		"      block ellmv0(vi: S = i, vj: R = j) iter ellmv reads(A_data[vi * c + vj], "
		"J_indices[vi * c + vj], x_data[J_indices[vi * c + vj]], "
		"y_data_local[0]) writes(y_data_local[0]) {\n"
		"        y_data_local[0] += A_data[vi * c + vj] * "
		"x_data[J_indices[vi * c + vj]];\n"
		"      }\n"
		"    }\n"
		"    block y_data_local(v0: S = i) reads(y_data_local[0]) "
		"writes(y_data[v0]) {\n"
		"      y_data[v0] = y_data_local[0];\n"
		"    }\n"
		"  }\n"
		"}\n");
	sched_unload(&l);

	/* CSR SpMM at stage II: a cache per feature, the init gone */
	l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_OK(l, stir_reorder(l.k, "csrmm1", 2, l_kj));
	SCHED_OK(l, stir_cache_write_over_init(l.k, "csrmm1", "C", "j",
		STIR_SCOPE_LOCAL));
	char *s = stir_kernel_to_str(l.k);
	ck_assert_ptr_null(strstr(s, "csrmm_init0"));
	ck_assert_ptr_nonnull(strstr(s,
		"      for k in [0, feat) {\n"
		"        block C_local_init(v0: S = vi, v1: S = k) "
		"writes(C_local[0]) {\n"
		"          C_local[0] = 0.0;\n"
		"        }\n"
		"        for j in [0, J_indptr[vi + 1] - J_indptr[vi]) {\n"));
	ck_assert_ptr_nonnull(strstr(s,
		"            C_local[0] += A[vi, vj] * "
		"B[J_indices[J_indptr[vi] + vj], vk];\n"));
	ck_assert_ptr_nonnull(strstr(s,
		"        block C_local(v0: S = vi, v1: S = k) reads(C_local[0]) "
		"writes(C[v0, v1]) {\n"
		"          C[v0, v1] = C_local[0];\n"));
	ck_assert_ptr_null(strstr(s, "C[v0, v1] += "));
	free(s);
	sched_unload(&l);

	/* the init's constant, not 0, starts the cache */
	l = sched_load(NULL, it2_text);
	sched_lower(&l, 3);
	over_init_it2(&l);
	s = stir_kernel_to_str(l.k);
	ck_assert_ptr_null(strstr(s, "it2_init0"));
	ck_assert_ptr_nonnull(strstr(s, "        B_data_local[0] = 1.0;\n"));
	ck_assert_ptr_nonnull(strstr(s, "        B_data[v0] = B_data_local[0];\n"));
	free(s);
	sched_unload(&l);

	/* hybrid parts that cover the rows: each part's init nest lies just
	 * before its own nest, and each is taken over by its own cache */
	l = sched_load("examples/csrmm.stir", NULL);
	stir_format_rule *rules[2] = { stir_format_rule_hybrid_part("_hyb", 0, 0, 1),
		stir_format_rule_hybrid_part("_hyb", 0, 1, 2) };
	for (int i = 0; i < 2; i++)
		stir_format_rule_set_cover_rows(rules[i], true);
	SCHED_OK(l, stir_decompose_format(l.k, "A", 2, rules));
	stir_format_rule_free(rules[0]);
	stir_format_rule_free(rules[1]);
	sched_lower(&l, 2);
	static const char *const l_kc[] = { "k", "c" };
	SCHED_OK(l, stir_reorder(l.k, "csrmm_hyb_0_10", 2, l_kc));
	SCHED_OK(l, stir_cache_write_over_init(l.k, "csrmm_hyb_0_10", "C", "c",
		STIR_SCOPE_LOCAL));
	s = stir_kernel_to_str(l.k);
	ck_assert_ptr_null(strstr(s, "csrmm_hyb_0_1_init0"));
	ck_assert_ptr_nonnull(strstr(s, "block csrmm_hyb_0_0_init0("));
	ck_assert_ptr_nonnull(strstr(s, "C[v0, v1] = C_local[0];\n"));
	free(s);
	SCHED_OK(l, stir_reorder(l.k, "csrmm_hyb_0_00", 2, l_kc));
	SCHED_OK(l, stir_cache_write_over_init(l.k, "csrmm_hyb_0_00", "C", "c",
		STIR_SCOPE_LOCAL));
	s = stir_kernel_to_str(l.k);
	ck_assert_ptr_null(strstr(s, "_init0("));
	free(s);
	sched_unload(&l);
}
END_TEST

/* ellmv at stage II with its main nest over fewer rows than its init
 * (LOOP), or under a condition of its own (COND): taking the init over
 * would leave rows unwritten. */
#define ELLMV2(LOOP, COND) \
	"kernel ellmv(m: i32, n: i32, c: i32) stage 2 {\n" \
	"  axis I = dense_fixed(m);\n" \
	"  axis J = sparse_fixed(I, n, c);\n" \
	"  axis Jd = dense_fixed(n);\n" \
	"  buffer J_indices: i32[m * c] = J.indices in [0, n);\n" \
	"  tensor A: f32[I, J];\n" \
	"  tensor x: f32[Jd];\n" \
	"  tensor y: f32[I];\n" \
	"  for i in [0, m) {\n" \
	"    block ellmv_init0(vi: S = i) init ellmv writes(y[vi]) {\n" \
	"      y[vi] = 0.0;\n" \
	"    }\n" \
	"  }\n" \
	"  for i in [0, " LOOP ") {\n" \
	"    if (" COND ") {\n" \
	"      for j in [0, c) {\n" \
	"        block ellmv0(vi: S = i, vj: R = j) iter ellmv reads(A[vi, vj], " \
	"J_indices[vi * c + vj], x[J_indices[vi * c + vj]], y[vi]) " \
	"writes(y[vi]) {\n" \
	"          y[vi] += A[vi, vj] * x[J_indices[vi * c + vj]];\n" \
	"        }\n" \
	"      }\n" \
	"    }\n" \
	"  }\n" \
	"}\n"

/* cache_write_over_init's refusal of nests it cannot show to run over
 * the same points, for init block INIT and block BLK. */
#define SAME_POINTS_REFUSED(INIT, BLK) \
	"cache_write_over_init: cannot show that init block '" INIT "' and " \
	"block '" BLK "' run over the same spatial points, each once (every " \
	"spatial variable must be a sum of its own loops over [0, N), bounded " \
	"by the loops or a split's tail guard, with the same N in both nests, " \
	"and the nests may hold no other condition)"

START_TEST(test_over_init_domains)
{
	static const char *const texts[] = {
		ELLMV2("m - 1", "i < m"),    /* one row fewer */
		ELLMV2("m", "i % 2 == 0"),   /* a condition of its own */
		ELLMV2("m", "i < m - 1"),    /* a guard that cuts a row */
	};
	for (int t = 0; t < 3; t++) {
		loaded l = sched_load(NULL, texts[t]);
		SCHED_REFUSED(l, stir_cache_write_over_init(l.k, "ellmv0", "y", "j",
			STIR_SCOPE_LOCAL),
			SAME_POINTS_REFUSED("ellmv_init0", "ellmv0"));
		sched_unload(&l);
	}
	/* the same nest with a tail guard that cuts nothing is taken */
	loaded l = sched_load(NULL, ELLMV2("m", "i < m"));
	SCHED_OK(l, stir_cache_write_over_init(l.k, "ellmv0", "y", "j",
		STIR_SCOPE_LOCAL));
	sched_unload(&l);
}
END_TEST

START_TEST(test_over_init_refused)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	/* cache_write's own conditions first */
	SCHED_REFUSED(l, stir_cache_write_over_init(l.k, "csrmm1", "C", "j",
		STIR_SCOPE_LOCAL),
		"cache_write_over_init: a local buffer needs a literal size, but the "
		"region of 'C' under loop 'j' has feat elements");
	SCHED_REFUSED(l, stir_cache_write_over_init(l.k, "csrmm1", "C", "j",
		STIR_SCOPE_SHARED),
		"cache_write_over_init: the region of 'C' under loop 'j' has a whole "
		"dimension");
	SCHED_OK(l, stir_reorder(l.k, "csrmm1", 2, l_kj));
	SCHED_OK(l, stir_set_atomic(l.k, "csrmm1"));
	SCHED_REFUSED(l, stir_cache_write_over_init(l.k, "csrmm1", "C", "j",
		STIR_SCOPE_LOCAL),
		"cache_write_over_init: block 'csrmm1' adds atomically: several of "
		"its instances add into one element of 'C', so the cache cannot take "
		"over the init");
	sched_unload(&l);

	/* the init moved into the nest */
	l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_OK(l, stir_reorder(l.k, "csrmm1", 2, l_kj));
	SCHED_OK(l, stir_decompose_reduction(l.k, "csrmm1", "j"));
	SCHED_REFUSED(l, stir_cache_write_over_init(l.k, "csrmm1", "C", "j",
		STIR_SCOPE_LOCAL),
		"cache_write_over_init: 'C' is accessed in the nest of block "
		"'csrmm1' outside loop 'j'");
	sched_unload(&l);

	/* a loop of the reduction around the cache's: its write-back would
	 * store one partial sum after another (a range of 4 features under
	 * the loop over the row's columns) */
	l = sched_load(NULL, csrmm8_text);
	sched_lower(&l, 3);
	static const int64_t f24[] = { 2, 4 };
	SCHED_OK(l, stir_split(l.k, "csrmm1", "k", 2, f24));
	SCHED_REFUSED(l, stir_cache_write_over_init(l.k, "csrmm1", "C_data",
		"k_1", STIR_SCOPE_LOCAL),
		"cache_write_over_init: loop 'j' encloses loop 'k_1' and iterates "
		"reduction variable 'vj' of block 'csrmm1'");
	/* (cache_write takes it: the write-back adds) */
	SCHED_OK(l, stir_cache_write(l.k, "csrmm1", "C_data", "k_1",
		STIR_SCOPE_LOCAL));
	sched_unload(&l);

	l = sched_load("examples/rgms.stir", NULL);
	sched_lower(&l, 2);
	static const char *const fo_j[] = { "fo", "j" };
	SCHED_OK(l, stir_reorder(l.k, "rgms2", 2, fo_j));
	SCHED_REFUSED(l, stir_cache_write_over_init(l.k, "rgms2", "Y", "j",
		STIR_SCOPE_LOCAL),
		"cache_write_over_init: loop 'rr' encloses loop 'j' and iterates "
		"reduction variable 'vrr' of block 'rgms0'");
	sched_unload(&l);

	/* not a sum */
	l = sched_load("examples/csr_softmax.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_cache_write_over_init(l.k, "mx0", "rmax", "j",
		STIR_SCOPE_LOCAL),
		"cache_write_over_init: block 'mx0' does not only add into 'rmax'");
	sched_unload(&l);

	/* no init nest just before the block's nest: an iteration without
	 * init after another's nest, or another nest in between */
	l = sched_load(NULL, two_text);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_cache_write_over_init(l.k, "s1", "D", "j",
		STIR_SCOPE_LOCAL),
		"cache_write_over_init: the statement before the nest of block 's1' "
		"is not the init nest of its iteration (a block s_initN, or such "
		"blocks one inside the other)");
	sched_unload(&l);
	/* hybrid parts that do not cover the rows: one init iteration
	 * before them all */
	l = sched_load("examples/csrmm.stir", NULL);
	stir_format_rule *rules[2] = { stir_format_rule_hybrid_part("_hyb", 0, 0, 1),
		stir_format_rule_hybrid_part("_hyb", 0, 1, 2) };
	SCHED_OK(l, stir_decompose_format(l.k, "A", 2, rules));
	stir_format_rule_free(rules[0]);
	stir_format_rule_free(rules[1]);
	sched_lower(&l, 2);
	static const char *const l_kc[] = { "k", "c" };
	SCHED_OK(l, stir_reorder(l.k, "csrmm_hyb_0_10", 2, l_kc));
	SCHED_REFUSED(l, stir_cache_write_over_init(l.k, "csrmm_hyb_0_10", "C",
		"c", STIR_SCOPE_LOCAL),
		"cache_write_over_init: the statement before the nest of block "
		"'csrmm_hyb_0_10' is not the init nest of its iteration (a block "
		"csrmm_hyb_0_1_initN, or such blocks one inside the other)");
	sched_unload(&l);
	static const struct {
		const char *init, *between, *msg;
	} bad_init[] = {
		{ "B_data[vi] = 1.0;",
		  "  for i in [0, m) {\n    block other0(vi: S = i) {\n"
		  "      D_data[vi] = 2.0;\n    }\n  }\n",
		  "cache_write_over_init: the statement before the nest of block "
		  "'it21' is not the init nest of its iteration (a block "
		  "it2_initN, or such blocks one inside the other)" },
		{ "B_data[vi] = D_data[vi];", "",
		  "cache_write_over_init: init block 'it2_init0' does not store one "
		  "constant into 'B_data'" },
		{ "D_data[vi] = 0.0;", "",
		  "cache_write_over_init: init block 'it2_init0' does not store one "
		  "constant into 'B_data'" },
		{ "B_data[vi] = 0.0;\n      D_data[vi] = 0.0;", "",
		  "cache_write_over_init: init block 'it2_init0' does not store one "
		  "constant into 'B_data'" },
		{ "B_data[m - 1 - vi] = 0.0;", "",
		  "cache_write_over_init: init block 'it2_init0' does not store the "
		  "element of 'B_data' that block 'it21' adds into" },
		/* blocks one inside the other, the inner over the row's
		 * non-zeros: B_data[vi] stored once a non-zero */
		{ "for j in [0, J_indptr[vi + 1] - J_indptr[vi]) {\n"
		  "        block it2_init1(vj: S = j) {\n"
		  "          B_data[vi] = 0.0;\n        }\n      }", "",
		  "cache_write_over_init: init block 'it2_init1' does not store the "
		  "element of 'B_data' that block 'it21' adds into" },
	};
	for (size_t i = 0; i < sizeof(bad_init) / sizeof(bad_init[0]); i++) {
		l = sched_load(NULL, over_text(bad_init[i].init,
			bad_init[i].between));
		SCHED_REFUSED(l, stir_cache_write_over_init(l.k, "it21", "B_data",
			"j", STIR_SCOPE_LOCAL), bad_init[i].msg);
		sched_unload(&l);
	}
	/* SDDMM row by row: the init's loop over the row's non-zeros split
	 * with a first loop of 2 iterations, so that a non-zero is j_0 *
	 * ((len + 1) / 2) + j_1, whose points are not shown to be the row's
	 * (the inner extent is not a literal) */
	l = sched_load("examples/sddmm_rows.stir", NULL);
	sched_lower(&l, 3);
	static const int64_t f2[] = { 2, 0 };
	SCHED_OK(l, stir_split(l.k, "sddmm_init1", "j", 2, f2));
	SCHED_REFUSED(l, stir_cache_write_over_init(l.k, "sddmm1", "S_data", "k",
		STIR_SCOPE_LOCAL),
		SAME_POINTS_REFUSED("sddmm_init1", "sddmm1"));
	sched_unload(&l);
	/* the init block renamed: no block links to an iteration, which is
	 * said, not a name guessed from the block's */
	char text[2048];
	snprintf(text, sizeof(text), "%s", over_text("B_data[vi] = 0.0;", ""));
	memcpy(strstr(text, "it2_init0"), "it2_zero0", 9);
	l = sched_load(NULL, text);
	SCHED_REFUSED(l, stir_cache_write_over_init(l.k, "it21", "B_data", "j",
		STIR_SCOPE_LOCAL), "cache_write_over_init: block 'it21' has no "
		"iteration (no 'iter' link), so no init nest");
	sched_unload(&l);
}
END_TEST

/* ---- reverse_cache_read, reverse_cache_write ---- */

static void reverse_read_csrmm(loaded *l)
{
	static const int64_t f[] = { 0, 8 };
	SCHED_OK(*l, stir_split(l->k, "csrmm1", "j", 2, f));
	SCHED_OK(*l, stir_reverse_cache_read(l->k, "csrmm1",
		stir_kernel_get_stage(l->k) == 2 ? "B" : "B_data", "j_1",
		STIR_SCOPE_SHARED));
	SCHED_OK(*l, stir_bind(l->k, "csrmm1", "i", STIR_BLOCK_X));
}

static void reverse_write_rgms(loaded *l)
{
	/* rows of Y gathered per relation; the tile is private to the thread
	 * block of rr, its write-back atomic like rgms2's stores */
	static const int64_t f[] = { 0, 4 };
	SCHED_OK(*l, stir_set_atomic(l->k, "rgms2"));
	SCHED_OK(*l, stir_split(l->k, "rgms1", "i", 2, f));
	SCHED_OK(*l, stir_reverse_cache_write(l->k, "rgms2",
		stir_kernel_get_stage(l->k) == 2 ? "Y" : "Y_data", "i_1",
		STIR_SCOPE_SHARED));
	SCHED_OK(*l, stir_bind(l->k, "rgms2", "rr", STIR_BLOCK_X));
}

START_TEST(test_reverse_cache_keeps)
{
	sched_check_keeps("examples/csrmm.stir", NULL, 2, reverse_read_csrmm, 0,
		SEEDS);
	sched_check_keeps("examples/csrmm.stir", NULL, 3, reverse_read_csrmm, 0,
		SEEDS);
	sched_check_keeps("examples/rgms.stir", NULL, 2, reverse_write_rgms,
		1e-5, SEEDS);
	sched_check_keeps("examples/rgms.stir", NULL, 3, reverse_write_rgms,
		1e-5, SEEDS);
}
END_TEST

START_TEST(test_reverse_cache_text)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 3);
	static const int64_t f[] = { 0, 8 };
	SCHED_OK(l, stir_split(l.k, "csrmm1", "j", 2, f));
	SCHED_OK(l, stir_reverse_cache_read(l.k, "csrmm1", "B_data", "j_1",
		STIR_SCOPE_SHARED));
	char *s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s,
		"  buffer B_data_shared: f32[8 * feat] shared;\n"));
	ck_assert_ptr_nonnull(strstr(s,
		"        for t in [0, 8) {\n"
		"          for ax0 in [0, feat) {\n"
		"            block B_data_shared(v0: S = t, v1: S = ax0) "));
	ck_assert_ptr_nonnull(strstr(s,
		"              if (j_0 * 8 + v0 < J_indptr[vi + 1] - J_indptr[vi]) {\n"
		"                B_data_shared[v0 * feat + v1] = "
		"B_data[J_indices[J_indptr[vi] + (j_0 * 8 + v0)] * feat + v1];\n"));
	ck_assert_ptr_nonnull(strstr(s,
		"C_data[vi * feat + vk] += A_data[J_indptr[vi] + vj] * "
		"B_data_shared[j_1 * feat + vk];\n"));
	free(s);
	sched_unload(&l);
}
END_TEST

/* ---- cache_write_runs ---- */

/* RGMS edge by edge (examples/rgms_edge.stir) with 5 input and 6 output
 * features, the edges one loop with COO arrays. */
static const char *const rgms_runs_text =
	"kernel rgms_edge(r: i32, m: i32, n: i32, nnz_i: i32, nnz_j: i32) {\n"
	"  axis R = dense_fixed(r);\n"
	"  axis I = sparse_variable(R, m, nnz_i);\n"
	"  axis J = sparse_variable(I, n, nnz_j);\n"
	"  axis Id = dense_fixed(m);\n"
	"  axis Jd = dense_fixed(n);\n"
	"  axis Fi = dense_fixed(5);\n"
	"  axis Fo = dense_fixed(6);\n"
	"  tensor A: f32[R, I, J];\n"
	"  tensor W: f32[R, Fi, Fo];\n"
	"  tensor X: f32[Jd, Fi];\n"
	"  tensor Y: f32[Id, Fo];\n"
	"  iter zero (i, fo) in [Id, Fo] \"SS\" { Y[i, fo] = 0.0; }\n"
	"  iter rgms (rr, i, j, fo, fi) in [fuse(R, I, J, coo = true), Fo, Fi]"
	" \"RSRSR\" {\n"
	"    Y[i, fo] += A[rr, i, j] * X[j, fi] * W[rr, fi, fo];\n"
	"  }\n"
	"}\n";

/* l: groups of 3 edges (the last one short), 2 of them in parallel
 * (atomic), the output features split 2 x 3, each group's rows summed
 * in registers over its edges (rrij_2), the copies unrolled. */
static void runs_rgms(loaded *l)
{
	static const int64_t e[] = { 0, 2, 3 }, f[] = { 2, 0 };
	static const char *const order[] = { "rrij_0", "rrij_1", "fo_1",
		"rrij_2", "fi", "fo_0" };
	SCHED_OK(*l, stir_set_atomic(l->k, "rgms0"));
	SCHED_OK(*l, stir_split(l->k, "rgms0", "rrij", 3, e));
	SCHED_OK(*l, stir_split(l->k, "rgms0", "fo", 2, f));
	SCHED_OK(*l, stir_reorder(l->k, "rgms0", 6, order));
	SCHED_OK(*l, stir_bind(l->k, "rgms0", "rrij_1", STIR_THREAD_X));
	SCHED_OK(*l, stir_cache_write_runs(l->k, "rgms0", "Y_data", "rrij_2",
		STIR_SCOPE_LOCAL));
	SCHED_OK(*l, stir_unroll(l->k, "Y_data_local_run", "ax0"));
	SCHED_OK(*l, stir_unroll(l->k, "Y_data_local", "ax0"));
}

START_TEST(test_runs_keeps)
{
	sched_check_keeps(NULL, rgms_runs_text, 3, runs_rgms, 1e-5, SEEDS);
}
END_TEST

START_TEST(test_runs_made)
{
	loaded l = sched_load(NULL, rgms_runs_text);
	sched_lower(&l, 3);
	runs_rgms(&l);
	char *s = stir_kernel_to_str(l.k);
	/* the row held and the write-back when it changes */
	ck_assert_ptr_nonnull(strstr(s, "buffer Y_data_local_row: i32[2] local;"));
	ck_assert_ptr_nonnull(strstr(s, "block Y_data_local_run(v0: S = fo_1, "
		"v1: S = ax0) atomic reads("));
	ck_assert_ptr_nonnull(strstr(s, "if (Y_data_local_row[1] != 0 && "
		"Y_data_local_row[0] != I_indices[J_pos_I[(rrij_0 * 2 + rrij_1) * 3 "
		"+ rrij_2]]) {"));
	ck_assert_ptr_nonnull(strstr(s, "Y_data[Y_data_local_row[0] * 6 + (v0 + "
		"v1 * 3)] += Y_data_local[v1];"));
	free(s);
	/* the text reads back */
	sched_unload(&l);
	l = sched_load(NULL, rgms_runs_text);
	sched_lower(&l, 3);
	SCHED_OK(l, stir_cache_write_runs(l.k, "rgms0", "Y_data", "rrij",
		STIR_SCOPE_LOCAL));
	ck_assert_str_eq(stir_kernel_get_made(l.k, STIR_MADE_BUFFER, 1),
		"Y_data_local_row");
	ck_assert_str_eq(stir_kernel_get_made(l.k, STIR_MADE_INIT_BLOCK, 0),
		"Y_data_local_init");
	s = stir_kernel_to_str(l.k);
	loaded r = sched_load(NULL, s);
	char *t = stir_kernel_to_str(r.k);
	ck_assert_str_eq(s, t);
	free(t);
	free(s);
	sched_unload(&r);
	sched_unload(&l);
}
END_TEST

START_TEST(test_runs_refused)
{
	loaded l = sched_load(NULL, rgms_runs_text);
	sched_lower(&l, 3);
	static const int64_t e[] = { 0, 4 };
	SCHED_OK(l, stir_set_atomic(l.k, "rgms0"));
	SCHED_OK(l, stir_split(l.k, "rgms0", "rrij", 2, e));
	SCHED_REFUSED(l, stir_cache_write_runs(l.k, "rgms0", "Y_data", "rrij_1",
		STIR_SCOPE_SHARED),
		"cache_write_runs: the cache of the runs of a row lives in "
		"registers: scope local");
	SCHED_REFUSED(l, stir_cache_write_runs(l.k, "rgms0", "Y_data", "fi",
		STIR_SCOPE_LOCAL),
		"cache_write_runs: block 'rgms0' does not add into a row of "
		"'Y_data' that a load of loop 'fi' picks (the rest of the index "
		"fixed or strided loops inside it)");
	SCHED_REFUSED(l, stir_cache_write_runs(l.k, "rgms0", "Y_data", "rrij_0",
		STIR_SCOPE_LOCAL),
		"cache_write_runs: a local buffer needs a literal size, but the "
		"region of 'Y_data' under loop 'rrij_0' has m * 6 elements");
	SCHED_OK(l, stir_bind(l.k, "rgms0", "rrij_1", STIR_THREAD_X));
	SCHED_REFUSED(l, stir_cache_write_runs(l.k, "rgms0", "Y_data", "rrij_1",
		STIR_SCOPE_LOCAL),
		"cache_write_runs: loop 'rrij_1' is not serial: the runs of a row "
		"are the loop's iterations one after another");
	SCHED_REFUSED(l, stir_cache_write_runs(l.k, "rgms0", "Z", "rrij_1",
		STIR_SCOPE_LOCAL),
		"cache_write_runs: kernel 'rgms_edge' has no buffer 'Z'");
	sched_unload(&l);
}
END_TEST

START_TEST(test_reverse_cache_refused)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_reverse_cache_read(l.k, "csrmm1", "B", "j",
		STIR_SCOPE_SHARED),
		"reverse_cache_read: the extent of loop 'j', J_indptr[vi + 1] - "
		"J_indptr[vi], is not an expression of parameters");
	SCHED_REFUSED(l, stir_reverse_cache_read(l.k, "csrmm1", "A", "k",
		STIR_SCOPE_SHARED),
		"reverse_cache_read: no index of 'A' in block 'csrmm1' is a load "
		"that depends on loop 'k'");
	static const int64_t f[] = { 0, 8 };
	SCHED_OK(l, stir_split(l.k, "csrmm1", "j", 2, f));
	SCHED_REFUSED(l, stir_reverse_cache_read(l.k, "csrmm1", "B", "j_1",
		STIR_SCOPE_LOCAL),
		"reverse_cache_read: a local buffer needs a literal size, but the "
		"region of 'B' under loop 'j_1' has 8 * feat elements");
	sched_unload(&l);

	l = sched_load("examples/csr_softmax.stir", NULL);
	sched_lower(&l, 2);
	static const int64_t g[] = { 0, 4 };
	SCHED_OK(l, stir_split(l.k, "mx0", "j", 2, g));
	SCHED_REFUSED(l, stir_reverse_cache_write(l.k, "mx0", "rmax", "j_1",
		STIR_SCOPE_SHARED),
		"reverse_cache_write: no index of 'rmax' in block 'mx0' is a load "
		"that depends on loop 'j_1'");
	sched_unload(&l);
}
END_TEST

/* ---- horizontal_fuse ---- */

static void hfuse_two(loaded *l)
{
	static const char *const pq[] = { "q0", "p0" }, *const rs[] = { "r0",
		"s0" };
	SCHED_OK(*l, stir_default_schedule(l->k));
	SCHED_OK(*l, stir_horizontal_fuse(l->k, 2, pq));
	SCHED_OK(*l, stir_set_atomic(l->k, "r0"));
	SCHED_OK(*l, stir_set_atomic(l->k, "s0"));
	SCHED_OK(*l, stir_horizontal_fuse(l->k, 2, rs));
}

START_TEST(test_hfuse_keeps)
{
	sched_check_keeps(NULL, two_text, 2, hfuse_two, 1e-5, SEEDS);
	sched_check_keeps(NULL, two_text, 3, hfuse_two, 1e-5, SEEDS);
}
END_TEST

START_TEST(test_hfuse_text)
{
	loaded l = sched_load(NULL, two_text);
	sched_lower(&l, 3);
	hfuse_two(&l);
	char *s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s,
		"  block hfuse() horizontal reads(J_indptr[:], A_data[:]) "
		"writes(B_data[:], C_data[:]) {\n"
		"    for i_0 in [0, (m + 255) / 256) bind(blockIdx.x) {\n"));
	ck_assert_ptr_nonnull(strstr(s,
		"  block hfuse1() horizontal reads(J_indptr[:], A_data[:], "
		"D_data[:], B_data[:]) writes(D_data[:]) {\n"
		"    for i_0 in [0, (m + 255) / 256) bind(blockIdx.x) {\n"));
	/* p's nest first (program order), then q's */
	char *p = strstr(s, "block p0("), *q = strstr(s, "block q0(");
	ck_assert(p && q && p < q);
	free(s);
	sched_unload(&l);
}
END_TEST

START_TEST(test_hfuse_refused)
{
	static const char *const pq[] = { "p0", "q0" }, *const ps[] = { "p0",
		"s0" }, *const rs[] = { "r0", "s0" }, *const qs[] = { "q0", "s0" },
		*const pp[] = { "p0", "p1" };
	loaded l = sched_load(NULL, two_text);
	sched_lower(&l, 2);
	SCHED_REFUSED(l, stir_horizontal_fuse(l.k, 2, pq),
		"horizontal_fuse: the nest of block 'p0' is not bound to blockIdx.x "
		"at its outermost loop");
	SCHED_OK(l, stir_default_schedule(l.k));
	SCHED_REFUSED(l, stir_horizontal_fuse(l.k, 1, pq),
		"horizontal_fuse: horizontal fusion needs at least 2 blocks, not 1");
	SCHED_REFUSED(l, stir_horizontal_fuse(l.k, 2, pp),
		"horizontal_fuse: blocks 'p0' and 'p1' are in the same nest");
	SCHED_REFUSED(l, stir_horizontal_fuse(l.k, 2, ps),
		"horizontal_fuse: the nests of blocks 'p0' and 's0' share 'B' other "
		"than through atomic stores");
	SCHED_REFUSED(l, stir_horizontal_fuse(l.k, 2, rs),
		"horizontal_fuse: the nests of blocks 'r0' and 's0' share 'D' other "
		"than through atomic stores");
	SCHED_OK(l, stir_set_atomic(l.k, "r0"));
	SCHED_OK(l, stir_set_atomic(l.k, "s0"));
	SCHED_REFUSED(l, stir_horizontal_fuse(l.k, 2, qs),
		"horizontal_fuse: the nest of block 's0' cannot move before this "
		"statement: both access 'D'");
	sched_unload(&l);
}
END_TEST

/* Two nests that write the two halves of B: independent, but only the
 * caller knows it. */
static const char *const halves_text =
	"kernel halves(m: i32) {\n"
	"  axis I = dense_fixed(m);\n"
	"  axis I2 = dense_fixed(2 * m);\n"
	"  tensor A: f32[I];\n"
	"  tensor B: f32[I2];\n"
	"  iter lo (i) in [I] \"S\" { B[i] = A[i]; }\n"
	"  iter hi (i) in [I] \"S\" { B[i + m] = 2.0 * A[i]; }\n"
	"}\n";

/* l: both nests over blockIdx.x / threadIdx.x. */
static void bind_halves(loaded *l)
{
	static const int64_t f[] = { 0, 32 };
	static const char *const b[] = { "lo0", "hi0" };
	for (int i = 0; i < 2; i++) {
		SCHED_OK(*l, stir_split(l->k, b[i], "i", 2, f));
		SCHED_OK(*l, stir_bind(l->k, b[i], "i_0", STIR_BLOCK_X));
		SCHED_OK(*l, stir_bind(l->k, b[i], "i_1", STIR_THREAD_X));
	}
}

static void hfuse_halves(loaded *l)
{
	static const char *const b[] = { "lo0", "hi0" }, *const B[] = { "B" };
	bind_halves(l);
	SCHED_OK(*l, stir_horizontal_fuse_disjoint(l->k, 2, b, 1, B));
}

START_TEST(test_hfuse_disjoint)
{
	static const char *const b[] = { "lo0", "hi0" }, *const B[] = { "B" },
		*const Q[] = { "Q" }, *const A[] = { "A" };
	sched_check_keeps(NULL, halves_text, 2, hfuse_halves, 0, SEEDS);
	loaded l = sched_load(NULL, halves_text);
	sched_lower(&l, 2);
	bind_halves(&l);
	SCHED_REFUSED(l, stir_horizontal_fuse(l.k, 2, b),
		"horizontal_fuse: the nests of blocks 'lo0' and 'hi0' share 'B' "
		"other than through atomic stores");
	SCHED_REFUSED(l, stir_horizontal_fuse_disjoint(l.k, 2, b, 1, Q),
		"horizontal_fuse: kernel 'halves' has no buffer 'Q'");
	/* disjoint A is no help: B is still shared */
	SCHED_REFUSED(l, stir_horizontal_fuse_disjoint(l.k, 2, b, 1, A),
		"horizontal_fuse: the nests of blocks 'lo0' and 'hi0' share 'B' "
		"other than through atomic stores");
	SCHED_OK(l, stir_horizontal_fuse_disjoint(l.k, 2, b, 1, B));
	char *s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s, "  block hfuse() horizontal "));
	free(s);
	sched_unload(&l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("schedule_mem");
	TCase *tc = tcase_create("compute_at");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_compute_at_keeps);
	tcase_add_test(tc, test_compute_at_text);
	tcase_add_test(tc, test_compute_at_refused);
	tcase_add_test(tc, test_decompose_keeps);
	tcase_add_test(tc, test_decompose_text);
	tcase_add_test(tc, test_decompose_refused);
	suite_add_tcase(s, tc);
	TCase *ta = tcase_create("cache");
	tcase_set_timeout(ta, 60);
	tcase_add_test(ta, test_cache_keeps);
	tcase_add_test(ta, test_cache_text);
	tcase_add_test(ta, test_cache_refused);
	tcase_add_test(ta, test_strided_cache_keeps);
	tcase_add_test(ta, test_strided_cache_text);
	tcase_add_test(ta, test_warp_cache_keeps);
	tcase_add_test(ta, test_warp_cache_text);
	tcase_add_test(ta, test_warp_cache_refused);
	tcase_add_test(ta, test_over_init_keeps);
	tcase_add_test(ta, test_over_init_text);
	tcase_add_test(ta, test_over_init_refused);
	tcase_add_test(ta, test_over_init_domains);
	tcase_add_test(ta, test_reverse_cache_keeps);
	tcase_add_test(ta, test_reverse_cache_text);
	tcase_add_test(ta, test_reverse_cache_refused);
	tcase_add_test(ta, test_runs_keeps);
	tcase_add_test(ta, test_runs_made);
	tcase_add_test(ta, test_runs_refused);
	suite_add_tcase(s, ta);
	TCase *th = tcase_create("hfuse");
	tcase_set_timeout(th, 60);
	tcase_add_test(th, test_hfuse_keeps);
	tcase_add_test(th, test_hfuse_text);
	tcase_add_test(th, test_hfuse_refused);
	tcase_add_test(th, test_hfuse_disjoint);
	suite_add_tcase(s, th);
	return test_run_suite(s);
}
