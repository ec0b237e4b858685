/* Programs that must be rejected, and programs that must be accepted.
 *
 * Every tests/broken/NAME.stir starts with one or more lines
 *   // expect: LINE:COL: error: MESSAGE
 * (and "note" lines for the notes of the error before them); reading the
 * file must fail with exactly those diagnostics, in that order.  Every
 * catalogue program examples/NAME.stir must read (parse, build, verify)
 * with no diagnostic at all.  Both folders are scanned, so adding a file
 * adds a test; the folders travel in the distribution through EXTRA_DIST. */
#include <stir/lang.h>
#include "tests/testdiag.h"
#include "tests/testlang.h"

/* The .stir files of one folder, sorted by name. */
typedef struct file_list {
	const char *dir;        /* under the source tree */
	int n;
	char **names;           /* malloc'd, each malloc'd */
} file_list;

static file_list broken = { "tests/broken", 0, NULL };
static file_list catalogue = { "examples", 0, NULL };

/* l: filled with the names of the .stir files in l->dir. */
static void list_files(file_list *l)
{
	l->n = test_list_stir(l->dir, &l->names);
}

/* dir, name, len: the contents of dir/name (NUL-terminated, length in
 * *len); the caller frees it. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
	char rel[512];
	snprintf(rel, sizeof(rel), "%s/%s", dir, name);
	return test_slurp(rel, len);
}

/* text: the "// expect: " lines of a broken program, without the prefix,
 * one per line; the caller frees it. */
static char *expectations(const char *text)
{
	static const char prefix[] = "// expect: ";
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	for (const char *p = text; *p; ) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (!strncmp(p, prefix, sizeof(prefix) - 1))
			fprintf(f, "%.*s\n", (int)(n - (sizeof(prefix) - 1)),
				p + sizeof(prefix) - 1);
		p += n + (end ? 1 : 0);
	}
	fclose(f);
	return out;
}

START_TEST(test_broken_program)
{
	const char *name = broken.names[_i];
	size_t len;
	char *text = slurp(broken.dir, name, &len);
	char *want = expectations(text);
	ck_assert_msg(*want, "%s has no '// expect:' line", name);
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_mem(ctx, name, text, len);
	char *got = test_diags_to_str(ctx);
	ck_assert_msg(!strcmp(got, want), "%s: expected\n%sgot\n%s", name, want,
		got);
	ck_assert_msg(m == NULL, "%s was accepted", name);
	free(got);
	free(want);
	free(text);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_catalogue_program)
{
	const char *name = catalogue.names[_i];
	size_t len;
	char *text = slurp(catalogue.dir, name, &len);
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_mem(ctx, name, text, len);
	char *got = test_diags_to_str(ctx);
	ck_assert_msg(!strcmp(got, ""), "%s:\n%s", name, got);
	ck_assert_msg(m != NULL, "%s was rejected", name);
	ck_assert_int_ge(stir_module_n_kernels(m), 1);
	stir_module_free(m);
	free(got);
	free(text);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	list_files(&broken);
	list_files(&catalogue);
	if (broken.n == 0 || catalogue.n == 0) {
		fprintf(stderr, "no .stir files in %s or %s\n", broken.dir,
			catalogue.dir);
		return EXIT_FAILURE;
	}
	Suite *s = suite_create("broken");
	TCase *tc = tcase_create("broken");
	tcase_add_loop_test(tc, test_broken_program, 0, broken.n);
	suite_add_tcase(s, tc);
	tc = tcase_create("catalogue");
	tcase_add_loop_test(tc, test_catalogue_program, 0, catalogue.n);
	suite_add_tcase(s, tc);
	int r = test_run_suite(s);
	test_free_names(broken.names, broken.n);
	test_free_names(catalogue.names, catalogue.n);
	return r;
}
