/* Helpers shared by the suites of the front end (test_lang, test_stages,
 * test_broken): programs read from strings and from the source tree,
 * round trips through the printer, source locations. */
#ifndef STIR_TESTS_TESTLANG_H
#define STIR_TESTS_TESTLANG_H

#include <dirent.h>
#include <stir/lang.h>
#include "tests/testutil.h"

/* ctx, text: read a program from a string named "t.stir". */
static inline stir_module *test_read_str(stir_ctx *ctx, const char *text)
{
	return stir_module_read_from_mem(ctx, "t.stir", text, strlen(text));
}

/* m: print, read back, compare both ways; print again and compare the
 * texts. */
static inline void test_check_round_trip(const stir_module *m)
{
	char *s1 = stir_module_to_str(m);
	ck_assert_ptr_nonnull(s1);
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m2 = test_read_str(ctx, s1);
	if (!m2 || stir_ctx_n_diagnostics(ctx))
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(m2);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	ck_assert(stir_module_is_equal(m, m2));
	ck_assert(stir_module_is_equal(m2, m));
	char *s2 = stir_module_to_str(m2);
	ck_assert_str_eq(s1, s2);
	free(s1);
	free(s2);
	stir_module_free(m2);
	stir_ctx_free(ctx);
}

/* l, file, line, col: l is at that place of "file" (an interned name). */
static inline void test_check_loc(stir_loc l, const char *file, int line,
	int col)
{
	ck_assert_ptr_eq(l.file, file);
	ck_assert_int_eq(l.line, line);
	ck_assert_int_eq(l.col, col);
}

/* rel, len: the whole of the file at "rel" under the source tree,
 * NUL-terminated, its length in *len (when len is not NULL); the caller
 * frees it. */
static inline char *test_slurp(const char *rel, size_t *len)
{
	FILE *f = fopen(test_path(rel), "rb");
	ck_assert_msg(f != NULL, "cannot open %s", test_path(rel));
	char *text = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = 2 * cap + 4096 + 1;
			text = realloc(text, cap);
		}
		size_t got = fread(text + n, 1, 4096, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	text[n] = '\0';
	if (len)
		*len = n;
	return text;
}

/* a, b: two names for qsort. */
static inline int test_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* dir, names: the .stir files of "dir" under the source tree, sorted by
 * name, into *names (malloc'd, each malloc'd; see test_free_names).
 * Returns their count; a folder that cannot be opened ends the program. */
static inline int test_list_stir(const char *dir, char ***names)
{
	DIR *d = opendir(test_path(dir));
	if (!d) {
		fprintf(stderr, "cannot open %s\n", test_path(dir));
		exit(EXIT_FAILURE);
	}
	int n = 0;
	*names = NULL;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".stir"))
			continue;
		*names = realloc(*names, (size_t)(n + 1) * sizeof(char *));
		(*names)[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(*names, (size_t)n, sizeof(char *), &test_name_cmp);
	return n;
}

/* names, n: release what test_list_stir made. */
static inline void test_free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

#endif
