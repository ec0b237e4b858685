/* The fuzz regressions: every file of tests/fuzz/regressions/ is an input
 * that once made the lang fuzzer fail (a crash, a sanitizer report, a leak,
 * a hang or a broken round trip), or a hand-written nasty one (deep
 * nesting, huge literals, NUL bytes, very long names, ...).  Each must pass
 * the property the fuzzer checks (tests/fuzz/fuzz_lang_check.h), with the
 * same sizes, and without a sanitizer report in the sanitizer build.  The
 * folder is scanned, so adding a file adds a test. */
#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>
#include <stir/stir.h>
#include "tests/fuzz/fuzz_lang_check.h"
#include "tests/testutil.h"

#define REGRESSIONS "tests/fuzz/regressions"

/* The regression files, sorted by name. */
static int n_files;
static char **files;          /* malloc'd, each malloc'd */

/* a, b: two names for qsort. */
static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Fill "files" with the names of the plain files of REGRESSIONS (hidden
 * ones left out). */
static void list_files(void)
{
	DIR *d = opendir(test_path(REGRESSIONS));
	if (!d) {
		fprintf(stderr, "cannot open %s\n", test_path(REGRESSIONS));
		exit(EXIT_FAILURE);
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		char rel[512];
		struct stat st;
		snprintf(rel, sizeof(rel), REGRESSIONS "/%s", e->d_name);
		if (e->d_name[0] == '.' || stat(test_path(rel), &st) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		files = realloc(files, (size_t)(n_files + 1) * sizeof(char *));
		files[n_files++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(files, (size_t)n_files, sizeof(char *), &name_cmp);
}

/* name, len: the bytes of REGRESSIONS/name (length in *len); the caller
 * frees them. */
static uint8_t *slurp(const char *name, size_t *len)
{
	char rel[512];
	snprintf(rel, sizeof(rel), REGRESSIONS "/%s", name);
	FILE *f = fopen(test_path(rel), "rb");
	ck_assert_msg(f != NULL, "cannot open %s", test_path(rel));
	uint8_t *data = NULL;
	size_t cap = 0;
	*len = 0;
	for (;;) {
		if (*len + 4096 > cap) {
			cap = 2 * cap + 4096;
			data = realloc(data, cap);
			ck_assert_ptr_nonnull(data);
		}
		size_t n = fread(data + *len, 1, 4096, f);
		*len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	return data;
}


START_TEST(test_regression)
{
	static char why[FUZZ_WHY_MAX];
	size_t len;
	uint8_t *data = slurp(files[_i], &len);
	int rc = fuzz_lang_check_flags(data, len, 0,
		why, sizeof(why));
	ck_assert_msg(rc == 0, "%s: %s", files[_i], why);
	free(data);
}
END_TEST

/* A plain program passes the property, with no failure text. */
START_TEST(test_property_passes_a_program)
{
	static const char text[] =
		"kernel k(n: i32) {\n"
		"  axis I = dense_fixed(n);\n"
		"  tensor A: f32[I];\n"
		"  iter it (i) in [I] \"S\" { A[i] = A[i] * 2.0; }\n"
		"}\n";
	static char why[FUZZ_WHY_MAX];
	ck_assert_int_eq(fuzz_lang_check((const uint8_t *)text,
		sizeof(text) - 1, why, sizeof(why)), 0);
	ck_assert_str_eq(why, "");
}
END_TEST

/* The default schedule splits a loop of constant extent near INT64_MAX
 * into blocks of 256 threads: the number of blocks is INT64_MAX / 256
 * rounded up, computed without overflowing (it computed INT64_MAX + 255,
 * which UBSan reports; found by fuzz_lang on nasty-huge-sizes.stir once it
 * emitted CUDA). */
START_TEST(test_default_schedule_huge_extent)
{
	static const char text[] =
		"kernel k() {\n"
		"  axis I = dense_fixed(9223372036854775807);\n"
		"  tensor A: f32[I];\n"
		"  iter it (i) in [I] \"S\" { A[i] = 1.0; }\n"
		"}\n";
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_mem(ctx, "t.stir", text,
		strlen(text));
	ck_assert_ptr_nonnull(m);
	stir_kernel *k = stir_module_get_kernel(m, 0);
	ck_assert_int_eq(stir_lower_sparse_iter(k), 0);
	ck_assert_int_eq(stir_default_schedule(k), 0);
	char *printed = stir_kernel_to_str(k);
	ck_assert_ptr_nonnull(printed);
	ck_assert_msg(strstr(printed, "[0, 36028797018963968)") != NULL, "%s",
		printed);
	free(printed);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- sizes beyond the fuzzer's budgets ----
 *
 * The fuzzer binds only sizes that keep arrays small, so these inputs,
 * found by reading the binder after it had found other faults, are
 * checked here directly: sizes whose arrays cannot exist must be refused
 * before anything is allocated (the sanitizer build catches an overflow
 * or a write out of bounds). */

/* text, seed, b: read the one kernel of text and bind it at random into b
 * (a fresh one when NULL).  Returns the binder's result; *diags receives
 * the diagnostics (the caller frees them), of which a failure must leave
 * at least one. */
static int bind_text(const char *text, uint64_t seed, stir_bindings *b,
	char **diags)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_mem(ctx, "t.stir", text,
		strlen(text));
	ck_assert_msg(m != NULL, "%s", text);
	stir_bindings *own = b ? NULL : stir_bindings_alloc();
	int rc = stir_kernel_bind_random(stir_module_get_kernel(m, 0),
		b ? b : own, seed);
	if (rc == 0)
		ck_assert_int_eq(stir_kernel_verify_bindings(
			stir_module_get_kernel(m, 0), b ? b : own), 0);
	else
		ck_assert_int_gt(stir_ctx_n_errors(ctx), 0);
	*diags = stir_ctx_diagnostics_to_str(ctx);
	stir_bindings_free(own);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}

/* diags, msg: whether the diagnostics hold message msg. */
static void assert_diag(char *diags, const char *msg)
{
	ck_assert_msg(strstr(diags, msg) != NULL, "expected '%s' in:\n%s", msg,
		diags);
	free(diags);
}

START_TEST(test_bind_rows_overflow)
{
	/* (2^61 + 1) rows: the row lengths took (rows * 8) mod 2^64 = 8
	 * bytes and were written far past them */
	char *d;
	ck_assert_int_eq(bind_text("kernel k() {\n"
		"  axis I = dense_fixed(2305843009213693953, idtype = i64);\n"
		"  axis J = dense_variable(I, 1, 0);\n}\n", 1, NULL, &d), -1);
	assert_diag(d, "axis 'J' has too many rows (2305843009213693953) to "
		"bind");
	/* INT64_MAX rows: rows + 1 overflowed (now refused with the sizes,
	 * before anything is drawn) */
	ck_assert_int_eq(bind_text("kernel k() {\n"
		"  axis I = dense_fixed(9223372036854775807, idtype = i64);\n"
		"  axis J = sparse_variable(I, 1, 0);\n}\n", 1, NULL, &d), -1);
	assert_diag(d, "axis 'J': the parent's positions + 1 (its indptr's "
		"length) does not fit in i64");
}
END_TEST

START_TEST(test_bind_positions_overflow)
{
	/* rows times columns of a sparse_fixed axis overflowed */
	char *d;
	ck_assert_int_eq(bind_text("kernel k() {\n"
		"  axis I = dense_fixed(4611686018427387904, idtype = i64);\n"
		"  axis J = sparse_fixed(I, 10, 4, sorted = false);\n}\n", 1,
		NULL, &d), -1);
	assert_diag(d, "axis 'J' has too many positions");
	/* free row lengths up to LEN = INT64_MAX (LEN + 1 overflowed), and
	 * a full row plus a row of one overflow NNZ, whatever the seed */
	for (uint64_t seed = 1; seed <= 8; seed++) {
		ck_assert_int_eq(bind_text("kernel k(z: i64) {\n"
			"  axis I = dense_fixed(3);\n"
			"  axis J = dense_variable(I, 9223372036854775807, z);\n"
			"}\n", seed, NULL, &d), -1);
		assert_diag(d, "axis 'J' has too many positions");
	}
}
END_TEST

START_TEST(test_bind_exact_lengths_wide_rows)
{
	/* 5 entries in 4 rows of length 2^62: rows * length overflowed in
	 * the test whether they fit */
	char *d;
	stir_bindings *b = stir_bindings_alloc();
	ck_assert_int_eq(bind_text("kernel k() {\n"
		"  axis I = dense_fixed(4);\n"
		"  axis J = dense_variable(I, 4611686018427387904, 5, "
		"idtype = i64);\n}\n", 3, b, &d), 0);
	free(d);
	stir_array *indptr = stir_bindings_get_array(b, "J.indptr");
	ck_assert_int_eq(stir_array_get_int(indptr, 4), 5);
	stir_bindings_free(b);
}
END_TEST

START_TEST(test_bind_extreme_bound_indptr)
{
	/* a bound indptr whose rows overflow when subtracted: reported,
	 * never computed with */
	char *d;
	stir_ctx *ctx = stir_ctx_alloc();
	int64_t n = 3;
	stir_array *a = stir_array_alloc(ctx, STIR_I64, 1, &n);
	stir_array_set_int(a, 1, INT64_MAX);
	stir_array_set_int(a, 2, INT64_MIN);
	stir_bindings *b = stir_bindings_alloc();
	ck_assert_int_eq(stir_bindings_set_array(b, "J.indptr", a), 0);
	ck_assert_int_eq(bind_text("kernel k() {\n"
		"  axis I = dense_fixed(2);\n"
		"  axis J = sparse_variable(I, 4, 3, idtype = i64);\n"
		"  tensor A: f32[I, J];\n}\n", 1, b, &d), -1);
	free(d);
	stir_bindings_free(b);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	list_files();
	if (n_files == 0) {
		fprintf(stderr, "no files in %s\n", test_path(REGRESSIONS));
		return EXIT_FAILURE;
	}
	Suite *s = suite_create("fuzz_regressions");
	TCase *tc = tcase_create("regressions");
	/* the deepest nesting files take a while under the sanitizers */
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_regression, 0, n_files);
	suite_add_tcase(s, tc);
	tc = tcase_create("property");
	tcase_add_test(tc, test_property_passes_a_program);
	tcase_add_test(tc, test_default_schedule_huge_extent);
	suite_add_tcase(s, tc);
	tc = tcase_create("beyond_budgets");
	tcase_add_test(tc, test_bind_rows_overflow);
	tcase_add_test(tc, test_bind_positions_overflow);
	tcase_add_test(tc, test_bind_exact_lengths_wide_rows);
	tcase_add_test(tc, test_bind_extreme_bound_indptr);
	suite_add_tcase(s, tc);
	int r = test_run_suite(s);
	for (int i = 0; i < n_files; i++)
		free(files[i]);
	free(files);
	return r;
}
