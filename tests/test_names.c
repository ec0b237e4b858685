/* Fresh names, input-sized lists and compile-time growth (issue 14, items
 * 8, 9 and 13): names of any length through every stage and through
 * schedule files (the fresh-name generator cut names at 255 bytes and
 * looped forever when the cut name was taken); lists longer than the
 * loops they name are refused before anything is sized by them (a
 * reorder of millions of loops overflowed the stack); a chain of 200
 * sparse axes and a hybrid decomposition of 1600 buckets print at stage
 * III in bounded time (they took minutes: quadratic and quartic steps). */
#include <stdarg.h>
#include <time.h>
#include "tests/testlang.h"
#include "tests/testsched.h"

/* c, n: a string of n copies of c (heap). */
static char *repeat(char c, int n)
{
	char *s = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(s);
	memset(s, c, (size_t)n);
	s[n] = '\0';
	return s;
}

/* fmt, ...: a formatted string (heap). */
static char *strf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(s);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* l: the kernel's text prints and reads back at its stage. */
static void round_trips(const loaded *l)
{
	test_check_round_trip(l->m);
}

/* text, needle: text holds needle. */
static void expect_has(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fprintf(stderr, "missing: %.80s...\n", needle);
	ck_assert_ptr_nonnull(strstr(text, needle));
}

/* The issue's program: a 255-character parameter and a 400-character
 * iterator whose first 255 characters are the parameter's name.  The
 * block is the iterator's name and 0 (401 characters, nothing cut), at
 * stages II and III, and both texts read back. */
START_TEST(test_issue_program)
{
	char *p = repeat('a', 255), *it = repeat('a', 400);
	char *src = strf("kernel k(%s: i32) {\n  axis I = dense_fixed(%s);\n"
		"  tensor C: f32[I];\n  iter %s (i) in [I] \"S\" { C[i] = 1.0; }\n"
		"}\n", p, p, it);
	for (int stage = 2; stage <= 3; stage++) {
		loaded l = sched_load(NULL, src);
		sched_lower(&l, stage);
		char *text = stir_kernel_to_str(l.k);
		char *block = strf("block %s0(", it);
		expect_has(text, block);
		round_trips(&l);
		free(block);
		free(text);
		sched_unload(&l);
	}
	free(src);
	free(p);
	free(it);
}
END_TEST

/* Long names everywhere a name is derived from one: a sparse axis (its
 * buffers NAME_indptr and NAME_indices, bound to NAME.indptr and
 * NAME.indices), a tensor (NAME_data), iterators (block variables vNAME),
 * an iteration (NAME0, NAME_init0), each 300 characters, and a parameter
 * already called like the derived names cut at 255 bytes.  Every derived
 * name is whole at every stage, and the texts read back. */
START_TEST(test_long_derived_names)
{
	char *ax = repeat('J', 300), *t = repeat('T', 300), *v = repeat('j', 300);
	char *it = repeat('s', 300), *cut = repeat('J', 255);
	char *src = strf("kernel k(m: i32, n: i32, nnz: i32, %s: i32) {\n"
		"  axis I = dense_fixed(m);\n"
		"  axis %s = sparse_variable(I, n, nnz);\n"
		"  tensor %s: f32[I, %s];\n  tensor C: f32[I];\n"
		"  iter %s (i, %s) in [I, %s] \"SR\" {\n"
		"    init { C[i] = 0.0; }\n    C[i] += %s[i, %s];\n  }\n}\n",
		cut, ax, t, ax, it, v, ax, t, v);
	char *indptr = strf("buffer %s_indptr: ", ax);
	char *bound = strf("= %s.indptr", ax);
	char *indices = strf("buffer %s_indices: ", ax);
	char *data = strf("buffer %s_data: ", t);
	char *bvar = strf("v%s: R = %s", v, v);
	char *block = strf("block %s1(", it);
	char *init = strf("block %s_init0(", it);
	for (int stage = 2; stage <= 3; stage++) {
		loaded l = sched_load(NULL, src);
		sched_lower(&l, stage);
		char *text = stir_kernel_to_str(l.k);
		expect_has(text, indptr);
		expect_has(text, bound);
		expect_has(text, indices);
		expect_has(text, bvar);
		expect_has(text, block);
		expect_has(text, init);
		if (stage == 3)
			expect_has(text, data);
		round_trips(&l);
		free(text);
		sched_unload(&l);
	}
	char *names[] = { ax, t, v, it, cut, src, indptr, bound, indices, data,
		bvar, block, init };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		free(names[i]);
}
END_TEST

/* l, yaml, up_to: apply the schedule text yaml to l's kernel; its rc. */
static int apply_yaml(loaded *l, const char *yaml, stir_stage up_to)
{
	stir_schedule *s = stir_schedule_read_from_mem(l->ctx, "s.yaml", yaml,
		strlen(yaml));
	if (!s)
		sched_dump(l);
	ck_assert_ptr_nonnull(s);
	int rc = stir_schedule_apply(s, l->k, up_to);
	stir_schedule_free(s);
	return rc;
}

/* Schedule files on long names: split (LOOP_0, LOOP_1), fuse
 * (LOOP1_LOOP2), cache_write (BUFFER_local and its block), rfactor
 * (BUFFER_rf, vLOOP, BLOCK_rf) each name whole, from loops and buffers of
 * 300 characters whose cut names are taken. */
START_TEST(test_schedule_long_names)
{
	char *i = repeat('i', 300), *k = repeat('k', 300), *c = repeat('C', 300);
	char *src = strf("kernel t(m: i32, f: i32) {\n  axis I = dense_fixed(m);\n"
		"  axis K = dense_fixed(f);\n  tensor A: f32[I, K];\n"
		"  tensor %s: f32[I];\n"
		"  iter r (%s, %s) in [I, K] \"SR\" {\n"
		"    init { %s[%s] = 0.0; }\n    %s[%s] += A[%s, %s];\n  }\n}\n",
		c, i, k, c, i, c, i, i, k);
	char *yaml = strf("kernel: t\nstage2:\n"
		"  - split: {block: r0, loop: %s, factors: [null, 4]}\n"
		"  - rfactor: {block: r0, loop: %s_1}\n", k, k);
	loaded l = sched_load(NULL, src);
	SCHED_OK(l, apply_yaml(&l, yaml, STIR_STAGE_2));
	char *text = stir_kernel_to_str(l.k);
	char *split0 = strf("for %s_0 in", k), *split1 = strf("for %s_1 in", k);
	char *rf = strf("buffer %s_rf: ", c), *rfb = strf("block r0_rf(");
	expect_has(text, split0);
	expect_has(text, split1);
	expect_has(text, rf);
	expect_has(text, rfb);
	round_trips(&l);
	free(text);
	sched_unload(&l);

	/* fuse and cache_write on a copy nest of the same names (literal
	 * sizes: a local cache has a literal size) */
	char *src2 = strf("kernel u(m: i32, f: i32) {\n"
		"  axis I = dense_fixed(8);\n  axis K = dense_fixed(4);\n"
		"  tensor A: f32[I, K];\n  tensor %s: f32[I, K];\n"
		"  iter u (%s, %s) in [I, K] \"SS\" { %s[%s, %s] = A[%s, %s]; }\n"
		"}\n", c, i, k, c, i, k, i, k);
	char *yaml2 = strf("kernel: u\nstage2:\n"
		"  - fuse: {block: u0, loops: [%s, %s]}\n"
		"stage3:\n"
		"  - cache_write: {block: u0, buffer: %s_data, loop: %s_%s, "
		"scope: local}\n", i, k, c, i, k);
	free(src);
	src = src2;
	l = sched_load(NULL, src);
	SCHED_OK(l, apply_yaml(&l, yaml2, STIR_STAGE_3));
	text = stir_kernel_to_str(l.k);
	char *fused = strf("for %s_%s in", i, k);
	char *local = strf("buffer %s_data_local: ", c);
	expect_has(text, fused);
	expect_has(text, local);
	round_trips(&l);
	free(text);
	sched_unload(&l);
	char *all[] = { i, k, c, src, yaml, yaml2, split0, split1, rf, rfb,
		fused, local };
	for (size_t j = 0; j < sizeof(all) / sizeof(all[0]); j++)
		free(all[j]);
}
END_TEST

/* A hybrid rule whose suffix is 300 characters: every part's names
 * (tensor A_SUFFIX_0_T, iteration csrmm_SUFFIX_0_T) whole, so the parts
 * stay apart (a suffix cut at 255 bytes named every part alike). */
START_TEST(test_long_hybrid_suffix)
{
	char *sfx = repeat('h', 300);
	char *yaml = strf("kernel: csrmm\nformat:\n  - decompose:\n"
		"      tensor: A\n      rules:\n"
		"        - hybrid: {column_parts: 1, buckets: [1, 2], suffix: _%s}\n",
		sfx);
	loaded l = sched_load("examples/csrmm.stir", NULL);
	SCHED_OK(l, apply_yaml(&l, yaml, STIR_STAGE_3));
	char *text = stir_kernel_to_str(l.k);
	char *p0 = strf("block csrmm_%s_0_00(", sfx);
	char *p1 = strf("block csrmm_%s_0_10(", sfx);
	char *t1 = strf("buffer A_%s_0_1_data: ", sfx);
	expect_has(text, p0);
	expect_has(text, p1);
	expect_has(text, t1);
	round_trips(&l);
	free(text);
	sched_unload(&l);
	char *all[] = { sfx, yaml, p0, p1, t1 };
	for (size_t j = 0; j < sizeof(all) / sizeof(all[0]); j++)
		free(all[j]);
}
END_TEST

/* csrmm.stir's main nest has loops i, j, k: a reorder list of 200,000
 * loops is refused by its length, and so is a list of four; a split
 * into 65 loops is refused; the kernel is left as it was. */
START_TEST(test_list_limits)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	sched_lower(&l, 2);
	int n = 200000;
	const char **loops = malloc((size_t)n * sizeof(*loops));
	ck_assert_ptr_nonnull(loops);
	for (int q = 0; q < n; q++)
		loops[q] = "k";
	SCHED_REFUSED(l, stir_reorder(l.k, "csrmm1", n, loops),
		"reorder: 200000 loops listed, but block 'csrmm1' is inside 3");
	const char *four[] = { "k", "j", "i", "k" };
	SCHED_REFUSED(l, stir_reorder(l.k, "csrmm1", 4, four),
		"reorder: 4 loops listed, but block 'csrmm1' is inside 3");
	SCHED_REFUSED(l, stir_fuse(l.k, "csrmm1", 4, four),
		"fuse: 4 loops listed, but block 'csrmm1' is inside 3");
	int64_t factors[65];
	for (int q = 0; q < 65; q++)
		factors[q] = 1;
	SCHED_REFUSED(l, stir_split(l.k, "csrmm1", "k", 65, factors),
		"split: loop 'k' is split into 65 loops; at most 64");
	free(loops);
	sched_unload(&l);

	/* the same through a schedule file: a located note at the step */
	size_t cap = 64 + 3 * (size_t)n;
	char *yaml = malloc(cap);
	ck_assert_ptr_nonnull(yaml);
	size_t at = (size_t)snprintf(yaml, cap, "kernel: csrmm\nstage2:\n"
		"  - reorder: {block: csrmm1, loops: [k");
	for (int q = 1; q < n; q++)
		at += (size_t)snprintf(yaml + at, cap - at, ", k");
	snprintf(yaml + at, cap - at, "]}\n");
	l = sched_load("examples/csrmm.stir", NULL);
	ck_assert_int_eq(apply_yaml(&l, yaml, STIR_STAGE_2), -1);
	const stir_diag *d = stir_ctx_get_diagnostic(l.ctx, 0);
	ck_assert_str_eq(stir_diag_get_message(d),
		"reorder: 200000 loops listed, but block 'csrmm1' is inside 3");
	sched_unload(&l);
	free(yaml);
}
END_TEST

/* The CPU seconds since start. */
static double cpu_since(clock_t start)
{
	return (double)(clock() - start) / CLOCKS_PER_SEC;
}

/* The bound on the growth cases' CPU time: generous (the sanitizer build
 * is several times slower), far below what the quadratic and quartic
 * steps took (248 s and 297 s). */
#define GROWTH_BOUND_S 40.0

/* A chain of 200 sparse axes (A0 dense, Ak = sparse_variable(Ak-1))
 * reduced into Y[v0], printed at stage III.  Its text is O(N^3) (block k
 * reads the k row starts above it), but nothing more: the region
 * analysis compared and rescanned every nested index (O(N^4)). */
START_TEST(test_growth_chain)
{
	int n = 200;
	size_t cap = 64 * 1024;
	char *src = malloc(cap);
	ck_assert_ptr_nonnull(src);
	size_t at = (size_t)snprintf(src, cap, "kernel chain(m: i32");
	for (int i = 1; i <= n; i++)
		at += (size_t)snprintf(src + at, cap - at, ", n%d: i32, z%d: i32",
			i, i);
	at += (size_t)snprintf(src + at, cap - at,
		") {\n  axis A0 = dense_fixed(m);\n");
	for (int i = 1; i <= n; i++)
		at += (size_t)snprintf(src + at, cap - at,
			"  axis A%d = sparse_variable(A%d, n%d, z%d);\n", i, i - 1, i, i);
	at += (size_t)snprintf(src + at, cap - at, "  tensor X: f32[A0");
	for (int i = 1; i <= n; i++)
		at += (size_t)snprintf(src + at, cap - at, ", A%d", i);
	at += (size_t)snprintf(src + at, cap - at,
		"];\n  tensor Y: f32[A0];\n  iter s (v0");
	for (int i = 1; i <= n; i++)
		at += (size_t)snprintf(src + at, cap - at, ", v%d", i);
	at += (size_t)snprintf(src + at, cap - at, ") in [A0");
	for (int i = 1; i <= n; i++)
		at += (size_t)snprintf(src + at, cap - at, ", A%d", i);
	at += (size_t)snprintf(src + at, cap - at, "] \"S");
	for (int i = 1; i <= n; i++)
		at += (size_t)snprintf(src + at, cap - at, "R");
	at += (size_t)snprintf(src + at, cap - at,
		"\" {\n    init { Y[v0] = 0.0; }\n    Y[v0] += X[v0");
	for (int i = 1; i <= n; i++)
		at += (size_t)snprintf(src + at, cap - at, ", v%d", i);
	snprintf(src + at, cap - at, "];\n  }\n}\n");
	ck_assert_uint_lt(at + 32, cap);

	clock_t start = clock();
	loaded l = sched_load(NULL, src);
	sched_lower(&l, 3);
	char *text = stir_kernel_to_str(l.k);
	double s = cpu_since(start);
	ck_assert_ptr_nonnull(text);
	/* the innermost block reads X at the end of the chain */
	expect_has(text, "block s200(vv200: R = v200)");
	free(text);
	sched_unload(&l);
	free(src);
	fprintf(stderr, "chain of %d sparse axes at stage III: %.2f s\n", n, s);
	ck_assert_msg(s < GROWTH_BOUND_S, "%.1f s", s);
}
END_TEST

/* csrmm.stir decomposed into 1600 hybrid buckets (widths 1 .. 1600),
 * printed at stage III.  The verifier scanned every kernel name for
 * every name, and the decomposition collected the kernel's names once
 * per part, both quadratic in the parts. */
START_TEST(test_growth_hybrid)
{
	int n = 1600;
	size_t cap = 256 + 6 * (size_t)n;
	char *yaml = malloc(cap);
	ck_assert_ptr_nonnull(yaml);
	size_t at = (size_t)snprintf(yaml, cap, "kernel: csrmm\nformat:\n"
		"  - decompose:\n      tensor: A\n      rules:\n"
		"        - hybrid: {column_parts: 1, buckets: [1");
	for (int i = 2; i <= n; i++)
		at += (size_t)snprintf(yaml + at, cap - at, ", %d", i);
	snprintf(yaml + at, cap - at, "]}\n");

	clock_t start = clock();
	loaded l = sched_load("examples/csrmm.stir", NULL);
	SCHED_OK(l, apply_yaml(&l, yaml, STIR_STAGE_3));
	char *text = stir_kernel_to_str(l.k);
	double s = cpu_since(start);
	ck_assert_ptr_nonnull(text);
	expect_has(text, "block csrmm_hyb_0_15990(");
	free(text);
	sched_unload(&l);
	free(yaml);
	fprintf(stderr, "%d hybrid buckets at stage III: %.2f s\n", n, s);
	ck_assert_msg(s < GROWTH_BOUND_S, "%.1f s", s);
}
END_TEST

/* A schedule file of a million nested lists is refused at the first
 * bracket too deep, at once (libyaml's scanner took half an hour); a file
 * whose comments and quoted names hold brackets is read as before. */
START_TEST(test_deep_yaml)
{
	int n = 1000000;
	size_t cap = 128 + 2 * (size_t)n;
	char *yaml = malloc(cap);
	ck_assert_ptr_nonnull(yaml);
	size_t at = (size_t)snprintf(yaml, cap, "kernel: csrmm\nstage2:\n"
		"  - reorder: {block: csrmm1, loops: ");
	memset(yaml + at, '[', (size_t)n);
	memset(yaml + at + n, ']', (size_t)n);
	snprintf(yaml + at + 2 * (size_t)n, cap - at - 2 * (size_t)n, "}\n");
	stir_ctx *ctx = stir_ctx_alloc();
	clock_t start = clock();
	ck_assert_ptr_null(stir_schedule_read_from_mem(ctx, "s.yaml", yaml,
		strlen(yaml)));
	ck_assert(cpu_since(start) < GROWTH_BOUND_S);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 1);
	const stir_diag *d = stir_ctx_get_diagnostic(ctx, 0);
	ck_assert_str_eq(stir_diag_get_message(d),
		"sequences and mappings nested too deeply (more than 64 levels)");
	stir_loc loc = stir_diag_get_loc(d);
	ck_assert_str_eq(loc.file, "s.yaml");
	ck_assert_int_eq(loc.line, 3);
	ck_assert_int_eq(loc.col, 97);
	stir_ctx_free(ctx);
	free(yaml);

	char *brackets = repeat('[', 100);
	char *ok = strf("kernel: csrmm # %s\nstage2:\n"
		"  - reorder: {block: 'csrmm1', loops: [\"k\", j]} # %s\n",
		brackets, brackets);
	loaded l = sched_load("examples/csrmm.stir", NULL);
	SCHED_OK(l, apply_yaml(&l, ok, STIR_STAGE_2));
	sched_unload(&l);
	free(ok);
	free(brackets);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("names");
	TCase *tc = tcase_create("names");
	tcase_add_test(tc, test_issue_program);
	tcase_add_test(tc, test_long_derived_names);
	tcase_add_test(tc, test_schedule_long_names);
	tcase_add_test(tc, test_long_hybrid_suffix);
	tcase_add_test(tc, test_list_limits);
	suite_add_tcase(s, tc);
	TCase *tg = tcase_create("growth");
	tcase_set_timeout(tg, 300);
	tcase_add_test(tg, test_growth_chain);
	tcase_add_test(tg, test_growth_hybrid);
	tcase_add_test(tg, test_deep_yaml);
	suite_add_tcase(s, tg);
	return test_run_suite(s);
}
