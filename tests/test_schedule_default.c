/* The default schedule on every catalogue program and every program of
 * tests/lower, at stages II and III: every top-level nest is bound to
 * blockIdx.x / threadIdx.x (race-free by partition, or with atomic
 * stores) or deliberately left serial, and the results still match stage
 * I.  Then one schedule per catalogue program that a GPU would run well
 * (the seeds of the YAML schedule files), checked the same way. */
#include "ir/nodes.h"
#include "tests/testsched.h"

#define SEEDS 4

/* list: whether a block in list (at any depth) is atomic. */
static bool has_atomic(const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *s = stir_stmt_at(list, i);
		if (s->kind == STIR_STMT_BLOCK && (s->u.block.flags & STIR_BLOCK_ATOMIC))
			return true;
		if (s->kind == STIR_STMT_IF) {
			if (has_atomic(&s->u.if_.then_body) ||
			    has_atomic(&s->u.if_.else_body))
				return true;
		} else if (stir_stmt_body((stir_stmt *)s) &&
			   has_atomic(stir_stmt_body((stir_stmt *)s))) {
			return true;
		}
	}
	return false;
}

/* list: whether a loop in list (at any depth) is bound. */
static bool has_bound(const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *s = stir_stmt_at(list, i);
		if (s->kind == STIR_STMT_FOR && s->u.for_.kind == STIR_LOOP_BIND)
			return true;
		if (s->kind == STIR_STMT_IF) {
			if (has_bound(&s->u.if_.then_body) ||
			    has_bound(&s->u.if_.else_body))
				return true;
		} else if (stir_stmt_body((stir_stmt *)s) &&
			   has_bound(stir_stmt_body((stir_stmt *)s))) {
			return true;
		}
	}
	return false;
}

/* k: one letter per top-level nest: P (its outermost loop split and bound
 * to blockIdx.x / threadIdx.x, no atomics), A (the same with atomic
 * blocks), S (serial: nothing bound). */
static void shape(const stir_kernel *k, char *out)
{
	int n = 0;
	for (int i = 0; i < k->body.n; i++) {
		const stir_stmt *s = stir_stmt_at(&k->body, i);
		char c = 'S';
		if (s->kind == STIR_STMT_FOR && s->u.for_.kind == STIR_LOOP_BIND) {
			const stir_stmt *in = stir_stmt_at(&s->u.for_.body, 0);
			ck_assert_int_eq(s->u.for_.thread, STIR_BLOCK_X);
			ck_assert_int_eq(in->kind, STIR_STMT_FOR);
			ck_assert_int_eq(in->u.for_.kind, STIR_LOOP_BIND);
			ck_assert_int_eq(in->u.for_.thread, STIR_THREAD_X);
			c = has_atomic(&s->u.for_.body) ? 'A' : 'P';
		} else {
			ck_assert(s->kind != STIR_STMT_FOR ||
				!has_bound(&s->u.for_.body));
		}
		out[n++] = c;
	}
	out[n] = '\0';
}

/* The programs and the shape the default schedule gives them. */
static const struct {
	const char *file;
	const char *shape;
} programs[] = {
	{ "examples/bsrmm.stir", "PP" },
	{ "examples/csf_square_sum.stir", "PP" },
	{ "examples/csr2bsr.stir", "S" },     /* "=" at rows i/4: unproven */
	{ "examples/csr_softmax.stir", "P" },
	{ "examples/csrmm.stir", "PP" },      /* main nest partitioned */
	{ "examples/ellmv.stir", "PP" },
	{ "examples/rgcn_homo.stir", "PP" },
	{ "examples/rgms.stir", "PA" },       /* reduction outermost: atomic */
	{ "examples/sddmm.stir", "PP" },      /* by the fused non-zeros */
	{ "examples/sddmm_rows.stir", "PP" }, /* by the rows */
	{ "examples/segment_sum.stir", "PP" },
	{ "tests/lower/attach.stir", "PP" },
	{ "tests/lower/fuse3.stir", "P" },
	{ "tests/lower/lookups.stir", "S" },  /* writes to row (i + 1) % m */
	{ "tests/lower/nested.stir", "P" },
};

static void apply_default(loaded *l)
{
	SCHED_OK(*l, stir_default_schedule(l->k));
	/* a second time: every nest is bound or deliberately serial now */
	char *before = stir_kernel_to_str(l->k);
	SCHED_OK(*l, stir_default_schedule(l->k));
	sched_expect_text(l, before);
	free(before);
}

START_TEST(test_default_keeps)
{
	const char *file = programs[_i].file;
	double tol = strstr(file, "bsrmm") ? 1e-4 : 0;
	sched_check_keeps(file, NULL, 2, apply_default, tol, SEEDS);
	sched_check_keeps(file, NULL, 3, apply_default, tol, SEEDS);
}
END_TEST

START_TEST(test_default_shape)
{
	for (int stage = 2; stage <= 3; stage++) {
		loaded l = sched_load(programs[_i].file, NULL);
		sched_lower(&l, stage);
		SCHED_OK(l, stir_default_schedule(l.k));
		char got[64];
		shape(l.k, got);
		ck_assert_msg(!strcmp(got, programs[_i].shape),
			"%s at stage %d: %s, not %s", programs[_i].file, stage, got,
			programs[_i].shape);
		sched_unload(&l);
	}
}
END_TEST

START_TEST(test_default_text)
{
	loaded l = sched_load("examples/rgms.stir", NULL);
	sched_lower(&l, 3);
	SCHED_OK(l, stir_default_schedule(l.k));
	char *s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s,
		"  for rr_0 in [0, (r + 255) / 256) bind(blockIdx.x) {\n"
		"    for rr_1 in [0, 256) bind(threadIdx.x) {\n"
		"      if (rr_0 * 256 + rr_1 < r) {\n"
		"        block rgms0(vrr: R = rr_0 * 256 + rr_1) atomic iter rgms "));
	free(s);
	sched_unload(&l);

	/* a schedule the user started is left alone */
	l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	SCHED_OK(l, stir_bind(l.k, "csrmm1", "k", STIR_THREAD_X));
	SCHED_OK(l, stir_default_schedule(l.k));
	s = stir_kernel_to_str(l.k);
	ck_assert_ptr_nonnull(strstr(s, "  for i in [0, m) {\n    block csrmm0"));
	ck_assert_ptr_nonnull(strstr(s, "  for i_0 in [0, (m + 255) / 256) "
		"bind(blockIdx.x) {\n    for i_1 in [0, 256) bind(threadIdx.x) {\n"
		"      for k in [0, feat) {\n        if (i_0 * 256 + i_1 < m) {\n"
		"          block csrmm_init0("));
	free(s);
	sched_unload(&l);

	l = sched_load("examples/csrmm.stir", NULL);
	SCHED_REFUSED(l, stir_default_schedule(l.k),
		"default_schedule: kernel 'csrmm' is at stage 1; stage II and III "
		"schedules apply after lower_sparse_iter");
	sched_unload(&l);
}
END_TEST

/* ---- one GPU schedule per catalogue program ---- */

/* st: the thread indices bound in st, as bits. */
static unsigned bound_in(const stir_stmt *st)
{
	unsigned used = 0;
	const stir_ptr_vec *lists[2] = { NULL, NULL };
	if (st->kind == STIR_STMT_FOR && st->u.for_.kind == STIR_LOOP_BIND)
		used |= 1u << st->u.for_.thread;
	if (st->kind == STIR_STMT_IF) {
		lists[0] = &st->u.if_.then_body;
		lists[1] = &st->u.if_.else_body;
	} else {
		lists[0] = stir_stmt_body((stir_stmt *)st);
	}
	for (int l = 0; l < 2; l++)
		for (int i = 0; lists[l] && i < lists[l]->n; i++)
			used |= bound_in(stir_stmt_at(lists[l], i));
	return used;
}

/* st, launch, around: every store in st to a buffer that is not local
 * lies inside loops bound to every index the launch binds ("around": the
 * indices bound around st), so no two threads run the same store
 * whatever the emitter does with code outside its thread loops. */
static void expect_stores_bound(const stir_stmt *st, unsigned launch,
	unsigned around)
{
	const stir_ptr_vec *lists[2] = { NULL, NULL };
	switch (st->kind) {
	case STIR_STMT_STORE:
		if (st->u.store.buf->scope != STIR_SCOPE_LOCAL)
			ck_assert_msg((around & launch) == launch, "a store to %s lies "
				"outside a bound loop of its launch", st->u.store.buf->name);
		return;
	case STIR_STMT_FOR:
		if (st->u.for_.kind == STIR_LOOP_BIND)
			around |= 1u << st->u.for_.thread;
		lists[0] = &st->u.for_.body;
		break;
	case STIR_STMT_IF:
		lists[0] = &st->u.if_.then_body;
		lists[1] = &st->u.if_.else_body;
		break;
	case STIR_STMT_BLOCK:
		lists[0] = &st->u.block.body;
		break;
	default:
		return;
	}
	for (int l = 0; l < 2; l++)
		for (int i = 0; lists[l] && i < lists[l]->n; i++)
			expect_stores_bound(stir_stmt_at(lists[l], i), launch, around);
}

/* After a written schedule, the default binds what is left (the init
 * nests); every nest must then be bound, with all its stores inside all
 * of its bound loops. */
static void finish(loaded *l)
{
	SCHED_OK(*l, stir_default_schedule(l->k));
	for (int i = 0; i < l->k->body.n; i++) {
		const stir_stmt *s = stir_stmt_at(&l->k->body, i);
		ck_assert(s->kind == STIR_STMT_FOR && s->u.for_.kind ==
			STIR_LOOP_BIND && s->u.for_.thread == STIR_BLOCK_X);
		expect_stores_bound(s, bound_in(s), 0);
	}
}

/* l, tensor: the name of tensor's buffer at the kernel's stage ("C" in
 * stage II, "C_data" in stage III). */
static const char *buf(const loaded *l, const char *tensor)
{
	static char name[4][64];
	static int next;
	char *n = name[next++ % 4];
	snprintf(n, 64, stir_kernel_get_stage(l->k) == 2 ? "%s" : "%s_data",
		tensor);
	return n;
}

/* l: csrmm: rows over blockIdx.x (8 per block, threadIdx.y), features over
 * threadIdx.x, each thread accumulating its C[i, k] in a register. */
static void gpu_csrmm(loaded *l)
{
	static const char *const kj[] = { "k", "j" };
	static const int64_t rows[] = { 0, 8 };
	SCHED_OK(*l, stir_reorder(l->k, "csrmm1", 2, kj));
	SCHED_OK(*l, stir_split(l->k, "csrmm1", "i", 2, rows));
	SCHED_OK(*l, stir_bind(l->k, "csrmm1", "i_0", STIR_BLOCK_X));
	SCHED_OK(*l, stir_bind(l->k, "csrmm1", "i_1", STIR_THREAD_Y));
	SCHED_OK(*l, stir_bind(l->k, "csrmm1", "k", STIR_THREAD_X));
	SCHED_OK(*l, stir_cache_write(l->k, "csrmm1", buf(l, "C"), "j",
		STIR_SCOPE_LOCAL));
	finish(l);
}

/* l: sddmm: one non-zero per thread block, the features split over a warp
 * and reduced across it. */
static void gpu_sddmm(loaded *l)
{
	static const int64_t f[] = { 0, 32 };
	static const char *const k10[] = { "k_1", "k_0" };
	SCHED_OK(*l, stir_split(l->k, "sddmm0", "k", 2, f));
	SCHED_OK(*l, stir_reorder(l->k, "sddmm0", 2, k10));
	SCHED_OK(*l, stir_cross_thread_reduce(l->k, "sddmm0", "k_1"));
	SCHED_OK(*l, stir_bind(l->k, "sddmm0", "ij", STIR_BLOCK_X));
	SCHED_OK(*l, stir_bind(l->k, "sddmm0", "k_1", STIR_THREAD_X));
	finish(l);
}

/* l: bsrmm: a block row per thread block, its 16 rows over threadIdx.y, the
 * features over threadIdx.x, the sum over (bj, j) in a register. */
static void gpu_bsrmm(loaded *l)
{
	static const char *const f_bj[] = { "f", "bj" };
	SCHED_OK(*l, stir_reorder(l->k, "bsrmm0", 2, f_bj));
	SCHED_OK(*l, stir_bind(l->k, "bsrmm0", "i", STIR_BLOCK_X));
	SCHED_OK(*l, stir_bind(l->k, "bsrmm0", "bi", STIR_THREAD_Y));
	SCHED_OK(*l, stir_bind(l->k, "bsrmm0", "f", STIR_THREAD_X));
	SCHED_OK(*l, stir_cache_write(l->k, "bsrmm1", buf(l, "C"), "bj",
		STIR_SCOPE_LOCAL));
	finish(l);
}

/* A row per thread, 128 threads per block, the row's sum of block
 * "blk" over loop "loop" in a register. */
static void row_per_thread(loaded *l, const char *blk, const char *out,
	const char *loop)
{
	static const int64_t rows[] = { 0, 128 };
	SCHED_OK(*l, stir_split(l->k, blk, "i", 2, rows));
	SCHED_OK(*l, stir_bind(l->k, blk, "i_0", STIR_BLOCK_X));
	SCHED_OK(*l, stir_bind(l->k, blk, "i_1", STIR_THREAD_X));
	if (out)
		SCHED_OK(*l, stir_cache_write(l->k, blk, out, loop,
			STIR_SCOPE_LOCAL));
	finish(l);
}

static void gpu_ellmv(loaded *l)
{
	row_per_thread(l, "ellmv0", buf(l, "y"), "j");
}

static void gpu_segment_sum(loaded *l)
{
	row_per_thread(l, "seg1", buf(l, "B"), "j");
}

static void gpu_csf_square_sum(loaded *l)
{
	row_per_thread(l, "sq2", buf(l, "B"), "j");
}

/* l: csr_softmax: a row per thread, the running max and sum in registers. */
static void gpu_csr_softmax(loaded *l)
{
	SCHED_OK(*l, stir_cache_write(l->k, "mx0", "rmax", "j",
		STIR_SCOPE_LOCAL));
	SCHED_OK(*l, stir_cache_write(l->k, "sm0", "rsum", "j",
		STIR_SCOPE_LOCAL));
	row_per_thread(l, "out0", NULL, NULL);
}

/* l: csr2bsr: a row per thread (each (i, j) writes its own element of B). */
static void gpu_csr2bsr(loaded *l)
{
	row_per_thread(l, "cvt1", NULL, NULL);
}

/* l: rgcn_homo: a row per thread block, the output features over
 * threadIdx.x, each Y[i, fo] summed in a register. */
static void gpu_rgcn_homo(loaded *l)
{
	SCHED_OK(*l, stir_bind(l->k, "rgcn1", "i", STIR_BLOCK_X));
	SCHED_OK(*l, stir_bind(l->k, "rgcn1", "fo", STIR_THREAD_X));
	SCHED_OK(*l, stir_cache_write(l->k, "rgcn1", buf(l, "Y"), "j",
		STIR_SCOPE_LOCAL));
	finish(l);
}

/* l: rgms: a relation per thread block, the output features over
 * threadIdx.x; each row's sum in a register, added to Y atomically. */
static void gpu_rgms(loaded *l)
{
	static const char *const fo_j[] = { "fo", "j" };
	SCHED_OK(*l, stir_set_atomic(l->k, "rgms2"));
	SCHED_OK(*l, stir_reorder(l->k, "rgms2", 2, fo_j));
	SCHED_OK(*l, stir_cache_write(l->k, "rgms2", buf(l, "Y"), "j",
		STIR_SCOPE_LOCAL));
	SCHED_OK(*l, stir_bind(l->k, "rgms2", "rr", STIR_BLOCK_X));
	SCHED_OK(*l, stir_bind(l->k, "rgms2", "fo", STIR_THREAD_X));
	finish(l);
}

static const struct {
	const char *file;
	sched_fn apply;
	double tol;
} gpu[] = {
	{ "examples/bsrmm.stir", gpu_bsrmm, 1e-4 },
	{ "examples/csf_square_sum.stir", gpu_csf_square_sum, 1e-5 },
	{ "examples/csr2bsr.stir", gpu_csr2bsr, 0 },
	{ "examples/csr_softmax.stir", gpu_csr_softmax, 1e-5 },
	{ "examples/csrmm.stir", gpu_csrmm, 1e-5 },
	{ "examples/ellmv.stir", gpu_ellmv, 1e-5 },
	{ "examples/rgcn_homo.stir", gpu_rgcn_homo, 1e-5 },
	{ "examples/rgms.stir", gpu_rgms, 1e-5 },
	{ "examples/sddmm.stir", gpu_sddmm, 0 },
	{ "examples/segment_sum.stir", gpu_segment_sum, 1e-5 },
};

START_TEST(test_gpu_schedules)
{
	sched_check_keeps(gpu[_i].file, NULL, 2, gpu[_i].apply, gpu[_i].tol,
		SEEDS);
	sched_check_keeps(gpu[_i].file, NULL, 3, gpu[_i].apply, gpu[_i].tol,
		SEEDS);
}
END_TEST

START_TEST(test_gpu_text)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 3);
	gpu_csrmm(&l);
	sched_expect_text(&l,
		"kernel csrmm(m: i32, n: i32, feat: i32, nnz: i32) stage 3 {\n"
		"  buffer J_indptr: i32[m + 1] = J.indptr in [0, nnz + 1);\n"
		"  buffer J_indices: i32[nnz] = J.indices in [0, n);\n"
		"  buffer A_data: f32[nnz] = A;\n"
		"  buffer B_data: f32[n * feat] = B;\n"
		"  buffer C_data: f32[m * feat] = C;\n"
		"  buffer C_data_local: f32[1] local;\n"
		"  for i_0 in [0, (m + 255) / 256) bind(blockIdx.x) {\n"
		"    for i_1 in [0, 256) bind(threadIdx.x) {\n"
		"      for k in [0, feat) {\n"
		"        if (i_0 * 256 + i_1 < m) {\n"
		"          block csrmm_init0(vi: S = i_0 * 256 + i_1, vk: S = k) init csrmm "
		"writes(C_data[vi * feat + vk]) {\n"
		"            C_data[vi * feat + vk] = 0.0;\n"
		"          }\n"
		"        }\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"  for i_0 in [0, (m + 7) / 8) bind(blockIdx.x) {\n"
		"    for i_1 in [0, 8) bind(threadIdx.y) {\n"
		"      if (i_0 * 8 + i_1 < m) {\n"
		"        block csrmm0(vi: S = i_0 * 8 + i_1) iter csrmm reads(J_indptr[vi:vi + 2], "
		"A_data[:], J_indices[:], B_data[:], C_data_local[0], C_data[:]) "
		"writes(C_data_local[0], C_data[:]) {\n"
		"          for k in [0, feat) bind(threadIdx.x) {\n"
		"            block C_data_local_init(v0: S = vi * feat + k) "
		"writes(C_data_local[0]) {\n"
		"              C_data_local[0] = 0.0;\n"
		"            }\n"
		"            for j in [0, J_indptr[vi + 1] - J_indptr[vi]) {\n"
		"              block csrmm1(vj: R = j, vk: S = k) iter csrmm reads(J_indptr[vi], "
		"A_data[J_indptr[vi] + vj], J_indices[J_indptr[vi] + vj], "
		"B_data[J_indices[J_indptr[vi] + vj] * feat + vk], C_data_local[0]) "
		"writes(C_data_local[0]) {\n"
		"                C_data_local[0] += A_data[J_indptr[vi] + vj] * "
		"B_data[J_indices[J_indptr[vi] + vj] * feat + vk];\n"
		"              }\n"
		"            }\n"
		"            block C_data_local(v0: S = vi * feat + k) "
		"reads(C_data_local[0], C_data[v0]) writes(C_data[v0]) {\n"
		"              C_data[v0] += C_data_local[0];\n"
		"            }\n"
		"          }\n"
		"        }\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	sched_unload(&l);
}
END_TEST

int main(void)
{
	int np = (int)(sizeof(programs) / sizeof(programs[0]));
	int ng = (int)(sizeof(gpu) / sizeof(gpu[0]));
	Suite *s = suite_create("schedule_default");
	TCase *tc = tcase_create("default");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_default_keeps, 0, np);
	tcase_add_loop_test(tc, test_default_shape, 0, np);
	tcase_add_test(tc, test_default_text);
	suite_add_tcase(s, tc);
	TCase *tg = tcase_create("gpu");
	tcase_set_timeout(tg, 60);
	tcase_add_loop_test(tg, test_gpu_schedules, 0, ng);
	tcase_add_test(tg, test_gpu_text);
	suite_add_tcase(s, tg);
	return test_run_suite(s);
}
