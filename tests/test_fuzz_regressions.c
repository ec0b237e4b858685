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
	int rc = fuzz_lang_check(data, len, why, sizeof(why));
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
	suite_add_tcase(s, tc);
	int r = test_run_suite(s);
	for (int i = 0; i < n_files; i++)
		free(files[i]);
	free(files);
	return r;
}
