/* 64-bit sizes and offsets (issue 14, items 4 and 12).
 *
 * Programs with i64 sizes and i64 index types lower to stages II and III
 * (a loop variable has its extent's type), print and read back, and agree
 * with stage I at every stage; flat offsets are computed in the type of
 * their buffer's extent; a binding whose sizes would make a size or an
 * offset leave its type is refused, with the same located error at every
 * stage and before any array is drawn or allocated.  No test allocates a
 * large array: the offsets of a 4.5e9-element tensor are checked by their
 * type, and the refusals come before allocation.  The GPU side is run in
 * tests/test_cuda_emu.c (the programs of tests/wide) and tests/test_cuda.c
 * (the refusal on upload). */
#include <stir/stir.h>
#include "ir/layout.h"
#include "ir/nodes.h"
#include "tests/testdiag.h"
#include "tests/testlang.h"

/* The program of item 12, as the issue gives it. */
static const char issue12[] =
	"kernel k(m: i64) { axis I = dense_fixed(m); tensor C: f32[I]; "
	"iter it (i) in [I] \"S\" { C[i] = 1.0; } }\n";

/* A tensor of 3 x 1.5e9 elements (item 4) over sizes of type T. */
#define BIG(T) \
	"kernel big(m: " T ", n: " T ") {\n" \
	"  axis I = dense_fixed(m);\n" \
	"  axis J = dense_fixed(n);\n" \
	"  tensor C: i8[I, J];\n" \
	"  iter it (i, j) in [I, J] \"SS\" { C[i, j] = i8(1); }\n" \
	"}\n"

/* ctx, text, stage: the kernel of "text" lowered to "stage". */
static stir_kernel *lowered(stir_ctx *ctx, stir_module **m, const char *text,
	int stage)
{
	*m = test_read_str(ctx, text);
	if (!*m)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(*m);
	if (stage >= 2 && stir_module_lower_sparse_iter(*m) < 0)
		stir_ctx_print_diagnostics(ctx, stderr);
	if (stage >= 3 && stir_module_lower_sparse_buffer(*m) < 0)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
	stir_kernel *k = stir_module_get_kernel(*m, 0);
	ck_assert_int_eq((int)k->stage, stage);
	return k;
}

/* A count of the loops of a kernel, by the type of their variable. */
typedef struct loop_types {
	int i32, i64;
} loop_types;

/* list, t: count the loops in list (and nested lists) into t; every loop
 * variable must have its extent's type. */
static void count_loops(const stir_ptr_vec *list, loop_types *t)
{
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *s = list->v[i];
		if (s->kind == STIR_STMT_FOR) {
			ck_assert_int_eq(s->u.for_.var->dtype,
				s->u.for_.extent->dtype);
			t->i32 += s->u.for_.var->dtype == STIR_I32;
			t->i64 += s->u.for_.var->dtype == STIR_I64;
			count_loops(&s->u.for_.body, t);
		} else if (s->kind == STIR_STMT_BLOCK) {
			count_loops(&s->u.block.body, t);
		} else if (s->kind == STIR_STMT_IF) {
			count_loops(&s->u.if_.then_body, t);
			count_loops(&s->u.if_.else_body, t);
		}
	}
}

/* list, name: the first store into the buffer called "name" in list. */
static const stir_stmt *find_store(const stir_ptr_vec *list, const char *name)
{
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *s = list->v[i], *r = NULL;
		if (s->kind == STIR_STMT_STORE && !strcmp(s->u.store.buf->name, name))
			return s;
		if (s->kind == STIR_STMT_FOR)
			r = find_store(&s->u.for_.body, name);
		else if (s->kind == STIR_STMT_BLOCK)
			r = find_store(&s->u.block.body, name);
		else if (s->kind == STIR_STMT_IF)
			r = find_store(&s->u.if_.then_body, name);
		if (r)
			return r;
	}
	return NULL;
}

/* text, sizes, seed, want: bind random inputs (sizes "NAME=V,.." first),
 * run "text" at stages I, II and III, and compare every array with stage
 * I; *want (when not NULL) gets stage I's results (the caller frees). */
static void agree(const char *text, const char *sizes, uint64_t seed,
	stir_bindings **want)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = lowered(ctx, &m, text, 1);
	stir_bindings *in = stir_bindings_alloc();
	if (sizes)
		test_bind_sizes(in, sizes);
	ck_assert_int_eq(stir_kernel_bind_random(k, in, seed), 0);
	stir_bindings *ref = NULL;
	for (int stage = 1; stage <= 3; stage++) {
		stir_ctx *c = stir_ctx_alloc();
		stir_module *ms;
		stir_kernel *ks = lowered(c, &ms, text, stage);
		stir_bindings *b = stir_bindings_copy(in);
		int rc = stir_kernel_interpret(ks, b);
		if (rc)
			stir_ctx_print_diagnostics(c, stderr);
		ck_assert_int_eq(rc, 0);
		if (!ref) {
			ref = b;
		} else {
			for (int i = 0; i < stir_bindings_n_arrays(ref); i++) {
				const char *name = stir_bindings_get_array_name(ref, i);
				const stir_array *w = stir_bindings_get_array(ref, name);
				const stir_array *g = stir_bindings_get_array(b, name);
				ck_assert_ptr_nonnull(g);
				for (int64_t j = 0; j < stir_array_get_len(w); j++)
					ck_assert_msg(stir_array_get_double(g, j) ==
						stir_array_get_double(w, j),
						"stage %d seed %d: %s[%lld] is %g, not %g",
						stage, (int)seed, name, (long long)j,
						stir_array_get_double(g, j),
						stir_array_get_double(w, j));
			}
			stir_bindings_free(b);
		}
		stir_module_free(ms);
		stir_ctx_free(c);
	}
	if (want)
		*want = ref;
	else
		stir_bindings_free(ref);
	stir_bindings_free(in);
	stir_module_free(m);
	stir_ctx_free(ctx);
}

START_TEST(test_issue12_lowers_and_runs)
{
	/* stage II and III: one loop, i64 like its extent m; both print and
	 * read back */
	for (int stage = 2; stage <= 3; stage++) {
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m;
		stir_kernel *k = lowered(ctx, &m, issue12, stage);
		loop_types t = { 0 };
		count_loops(&k->body, &t);
		ck_assert_int_eq(t.i64, 1);
		ck_assert_int_eq(t.i32, 0);
		test_check_round_trip(m);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
	stir_bindings *want;
	agree(issue12, "m=7", 1, &want);
	const stir_array *c = stir_bindings_get_array(want, "C");
	ck_assert_int_eq(stir_array_get_len(c), 7);
	for (int64_t i = 0; i < 7; i++)
		ck_assert(stir_array_get_double(c, i) == 1.0);
	stir_bindings_free(want);
}
END_TEST

/* Programs with i64 sizes or index types, each run at every stage. */
static const char *const wide_programs[] = {
	"tests/wide/csrmm64.stir",
	"tests/wide/mixed64.stir",
	"tests/wide/sddmm64.stir",
	"examples/csrmm.stir",
	/* an i64 index type over i32 sizes: i32 loops, i64 iterators */
	"kernel k(m: i32, n: i32) {\n"
	"  axis I = dense_fixed(m, idtype = i64);\n"
	"  axis J = sparse_fixed(I, n, 2, idtype = i64);\n"
	"  tensor A: f32[I, J];\n"
	"  tensor C: i64[I];\n"
	"  iter s (i, j) in [I, J] \"SR\" {\n"
	"    init { C[i] = i * 100; }\n"
	"    C[i] += j + i64(A[i, j]);\n"
	"  }\n"
	"}\n",
	/* a literal length beyond i32 is i64 (the indices' domain), a cast
	 * size */
	"kernel k(m: i32, nnz: i32) {\n"
	"  axis I = dense_fixed(m);\n"
	"  axis B = dense_fixed(i64(m) * 3);\n"
	"  axis J = sparse_variable(I, 3000000000, nnz, idtype = i64);\n"
	"  tensor X: i64[B];\n"
	"  tensor Y: i64[I];\n"
	"  iter s (b) in [B] \"S\" { X[b] = b; }\n"
	"  iter t (i, j) in [I, J] \"SR\" {\n"
	"    init { Y[i] = 0; }\n"
	"    Y[i] += j - i;\n"
	"  }\n"
	"}\n",
};

/* i: the text of wide_programs[i] (to free). */
static char *wide_text(int i)
{
	const char *p = wide_programs[i];
	if (strncmp(p, "kernel", 6))
		return test_slurp(p, NULL);
	return strdup(p);
}

START_TEST(test_wide_programs)
{
	char *text = wide_text(_i);
	/* every stage prints and reads back; every loop has its extent's
	 * type */
	for (int stage = 1; stage <= 3; stage++) {
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m;
		stir_kernel *k = lowered(ctx, &m, text, stage);
		loop_types t = { 0 };
		count_loops(&k->body, &t);
		test_check_round_trip(m);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
	for (uint64_t seed = 1; seed <= 4; seed++)
		agree(text, strstr(text, "3000000000") ? "m=5,nnz=9" : NULL, seed,
			NULL);
	free(text);
}
END_TEST

/* k, name: the type of the flat offset of the first store into "name". */
static stir_dtype store_offset_type(const stir_kernel *k, const char *name)
{
	const stir_stmt *s = find_store(&k->body, name);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->u.store.n, 1);
	return s->u.store.idx[0]->dtype;
}

START_TEST(test_offset_types)
{
	/* i64 sizes: the 4.5e9-element tensor's offsets are i64, in stage III
	 * and in CUDA; i32 sizes keep i32 offsets (the catalogue's code does
	 * not change) */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = lowered(ctx, &m, BIG("i64"), 3);
	ck_assert_int_eq(store_offset_type(k, "C_data"), STIR_I64);
	ck_assert_int_eq(stir_buffer_offset_dtype(stir_kernel_find_buffer(k,
		"C_data")), STIR_I64);
	/* the sizes of the issue are accepted (no array is allocated) */
	stir_bindings *b = stir_bindings_alloc();
	test_bind_sizes(b, "m=3,n=1500000000");
	stir_layout l;
	ck_assert_int_eq(stir_layout_init(&l, k, b, false), 0);
	ck_assert_int_eq(l.buffer_len[stir_kernel_find_buffer(k, "C_data")->index],
		4500000000LL);
	stir_layout_release(&l);
	ck_assert_int_eq(stir_kernel_prepare_for_gpu(k), 0);
	char *cuda = stir_kernel_to_cuda(k);
	ck_assert_ptr_nonnull(cuda);
	ck_assert_ptr_nonnull(strstr(cuda, "C_data[vi * n + vj] = 1;"));
	ck_assert_ptr_nonnull(strstr(cuda, "const long long vi = "));
	free(cuda);
	stir_bindings_free(b);
	stir_module_free(m);
	stir_ctx_free(ctx);

	ctx = stir_ctx_alloc();
	k = lowered(ctx, &m, BIG("i32"), 3);
	ck_assert_int_eq(store_offset_type(k, "C_data"), STIR_I32);
	stir_module_free(m);
	stir_ctx_free(ctx);

	/* an i64 NNZ over i32 index arrays: the row position (i32) times the
	 * i32 width is computed in i64, the type of the extent nnz * feat */
	char *text = test_slurp("tests/wide/mixed64.stir", NULL);
	ctx = stir_ctx_alloc();
	k = lowered(ctx, &m, text, 3);
	ck_assert_int_eq(store_offset_type(k, "Y_data"), STIR_I32);
	char *s = stir_kernel_to_str(k);
	ck_assert_ptr_nonnull(strstr(s,
		"A_data[i64(J_indptr[vi] + vj) * feat + vk]"));
	/* an i32 iterator over an i64 length: the loop is i64, the
	 * iterator's value its position cast back */
	ck_assert_ptr_nonnull(strstr(s, "for q in [0, w) {"));
	ck_assert_ptr_nonnull(strstr(s, "Z_data[vq] = f32(i32(vq) * 2 - w);"));
	free(s);
	free(text);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* text, stage, sizes, random, want: bind "sizes" to the kernel of "text"
 * lowered to "stage" and check the bindings (or draw random inputs
 * around them): refused with exactly the diagnostics "want". */
static void expect_refused(const char *text, int stage, const char *sizes,
	bool random, const char *want)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_kernel *k = lowered(ctx, &m, text, stage);
	stir_bindings *b = stir_bindings_alloc();
	test_bind_sizes(b, sizes);
	int rc = random ? stir_kernel_bind_random(k, b, 1) :
		stir_kernel_interpret(k, b);
	ck_assert_int_eq(rc, -1);
	char *d = test_diags_to_str(ctx);
	ck_assert_str_eq(d, want);
	free(d);
	stir_bindings_free(b);
	stir_module_free(m);
	stir_ctx_free(ctx);
}

START_TEST(test_refused_sizes)
{
	/* item 4: 3 x 1.5e9 elements over i32 sizes, at every stage, and
	 * before random inputs are drawn */
	const char *big = "4:10: error: tensor 'C' has 4500000000 elements, "
		"more than its offsets' type i32 reaches (the type of its sizes: "
		"declare them i64)\n";
	for (int stage = 1; stage <= 2; stage++) {
		expect_refused(BIG("i32"), stage, "m=3,n=1500000000", false, big);
		expect_refused(BIG("i32"), stage, "m=3,n=1500000000", true, big);
	}
	/* stage III (from the lowered text: the flat buffer's extent) */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	lowered(ctx, &m, BIG("i32"), 3);
	char *stage3 = stir_module_to_str(m);
	stir_module_free(m);
	stir_ctx_free(ctx);
	expect_refused(stage3, 3, "m=3,n=1500000000", false,
		"2:23: error: size expression 'm * n' of C_data is 4500000000, "
		"which does not fit in its type i32 (declare the sizes it uses "
		"i64)\n");
	free(stage3);

	/* a size expression that leaves its type: a product of i32 sizes, a
	 * cast to a narrower type */
	const char *prod = "kernel k(m: i32, n: i32) {\n"
		"  axis I = dense_fixed(m * n);\n"
		"  tensor C: f32[I];\n"
		"  iter s (i) in [I] \"S\" { C[i] = 1.0; }\n"
		"}\n";
	for (int stage = 1; stage <= 3; stage++)
		expect_refused(prod, stage, "m=65536,n=65536", false,
			stage < 3 ?
			"2:26: error: size expression 'm * n' of I is 4294967296, "
			"which does not fit in its type i32 (declare the sizes it "
			"uses i64)\n" :
			"2:26: error: size expression 'm * n' of C_data is "
			"4294967296, which does not fit in its type i32 (declare "
			"the sizes it uses i64)\n");
	expect_refused("kernel k(m: i32) {\n"
		"  axis I = dense_fixed(i8(m));\n"
		"  tensor C: f32[I];\n"
		"  iter s (i) in [I] \"S\" { C[i] = 1.0; }\n"
		"}\n", 1, "m=300", false,
		"2:24: error: size expression 'i8(m)' of I is 300, which does not "
		"fit in its type i8 (declare the sizes it uses i64)\n");

	/* a CSR matrix of 2^31 - 1 rows: its indptr (2^31 entries) cannot be
	 * indexed in i32; refused before anything is drawn */
	char *csr = test_slurp("examples/csrmm.stir", NULL);
	for (int stage = 1; stage <= 3; stage++)
		expect_refused(csr, stage,
			"m=2147483647,n=4,feat=1,nnz=0", stage > 1, stage < 3 ?
			"4:8: error: axis 'J': the parent's positions + 1 (its "
			"indptr's length) does not fit in i32 (declare the sizes "
			"i64)\n" :
			"4:8: error: size expression 'm + 1' of J_indptr is "
			"2147483648, which does not fit in its type i32 (declare "
			"the sizes it uses i64)\n");
	free(csr);
	/* coordinates beyond the index type: an i64 length over the default
	 * i32 iterator (the issue's program), NNZ beyond i32 index arrays;
	 * refused before random inputs are drawn */
	expect_refused(issue12, 1, "m=3000000000", true,
		"1:25: error: axis 'I' has length 3000000000: its coordinates do "
		"not fit its index type i32 (declare it idtype = i64)\n");
	char *mixed = test_slurp("tests/wide/mixed64.stir", NULL);
	for (int stage = 1; stage <= 2; stage++)
		expect_refused(mixed, stage, "m=2,n=2,feat=2,nnz=2147483648,w=1",
			true, "7:8: error: axis 'J' has NNZ = 2147483648, more than "
			"its index type i32 holds (declare it idtype = i64)\n");
	free(mixed);
	/* a loop extent of sizes (a split's (m + 127) / 128), computed in
	 * m's type by the interpreter of stage III and on the GPU */
	expect_refused("kernel k(m: i32) stage 3 {\n"
		"  buffer B: f32[m] = B;\n"
		"  for i_0 in [0, (m + 127) / 128) {\n"
		"    for i_1 in [0, 128) {\n"
		"      if (i_0 * 128 + i_1 < m) { B[i_0 * 128 + i_1] = 1.0; }\n"
		"    }\n"
		"  }\n"
		"}\n", 3, "m=2147483600", false,
		"3:21: error: size expression 'm + 127' is 2147483727, which does "
		"not fit in its type i32 (declare the sizes it uses i64)\n");
	/* sparse_fixed: rows times C beyond i32 */
	expect_refused("kernel k(m: i32, c: i32) {\n"
		"  axis I = dense_fixed(m);\n"
		"  axis J = sparse_fixed(I, 8, c, sorted = false);\n"
		"  tensor C: f32[I];\n"
		"  iter s (i, j) in [I, J] \"SR\" { C[i] += 1.0; }\n"
		"}\n", 1, "m=100000,c=100000", true,
		"3:8: error: axis 'J' has 10000000000 positions, more than its "
		"sizes' type i32 counts (declare them i64)\n");
}
END_TEST

START_TEST(test_launch_sizes)
{
	/* the default schedule's grid, (m + 255) / 256, is computed in m's
	 * type on the device: an i32 m this close to 2^31 is refused at the
	 * launch (the block index times 256 would wrap); an i64 m is not */
	for (int wide = 0; wide < 2; wide++) {
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m;
		stir_kernel *k = lowered(ctx, &m, wide ?
			"kernel k(m: i64) {\n"
			"  axis I = dense_fixed(m);\n"
			"  tensor C: i8[I];\n"
			"  iter s (i) in [I] \"S\" { C[i] = i8(1); }\n"
			"}\n" :
			"kernel k(m: i32) {\n"
			"  axis I = dense_fixed(m);\n"
			"  tensor C: i8[I];\n"
			"  iter s (i) in [I] \"S\" { C[i] = i8(1); }\n"
			"}\n", 1);
		ck_assert_int_eq(stir_kernel_prepare_for_gpu(k), 0);
		stir_cuda_plan *plan = stir_cuda_plan_alloc(k, 0);
		ck_assert_ptr_nonnull(plan);
		stir_bindings *b = stir_bindings_alloc();
		test_bind_sizes(b, "m=2147483600");
		unsigned grid[3], block[3];
		int rc = stir_cuda_plan_get_launch_dims(plan, 0, b, grid, block);
		char *d = test_diags_to_str(ctx);
		if (wide) {
			ck_assert_str_eq(d, "");
			ck_assert_int_eq(rc, 0);
			ck_assert_uint_eq(grid[0], 8388608);
		} else {
			ck_assert_int_eq(rc, -1);
			ck_assert_str_eq(d, "4:27: error: size expression 'm + 255' is "
				"2147483855, which does not fit in its type i32 "
				"(declare the sizes it uses i64)\n");
		}
		free(d);
		stir_bindings_free(b);
		stir_cuda_plan_free(plan);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("wide");
	TCase *tc = tcase_create("wide");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_issue12_lowers_and_runs);
	tcase_add_loop_test(tc, test_wide_programs, 0,
		(int)(sizeof(wide_programs) / sizeof(wide_programs[0])));
	tcase_add_test(tc, test_offset_types);
	tcase_add_test(tc, test_refused_sizes);
	tcase_add_test(tc, test_launch_sizes);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
