/* Helpers shared by the check suites. */
#ifndef STIR_TESTS_TESTUTIL_H
#define STIR_TESTS_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>

/* The source tree (for data files); set by make check. */
static inline const char *test_srcdir(void)
{
	const char *d = getenv("STIR_SRCDIR");
	return d ? d : ".";
}

/* A path under the source tree in a static buffer. */
static inline const char *test_path(const char *rel)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf), "%s/%s", test_srcdir(), rel);
	return buf;
}

/* src, what: the number of times "what" occurs in src. */
static inline int test_count(const char *src, const char *what)
{
	int n = 0;
	for (const char *s = strstr(src, what); s; s = strstr(s + 1, what))
		n++;
	return n;
}

/* ctx, m, program, kernel, file, cut: kernel "kernel" of a fresh module
 * of source file "program" (*m, freed by the caller) under the steps of
 * schedule file "file" up to the line holding "cut", at stage III; or
 * (cut NULL) all of them, ready for the GPU. */
static inline stir_kernel *test_scheduled(stir_ctx *ctx, stir_module **m,
	const char *program, const char *kernel, const char *file,
	const char *cut)
{
	*m = stir_module_read_from_file(ctx, test_path(program));
	ck_assert_ptr_nonnull(*m);
	stir_kernel *k = stir_module_find_kernel(*m, kernel);
	FILE *f = fopen(test_path(file), "r");
	ck_assert_ptr_nonnull(f);
	static char text[16384];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	char *at = cut ? strstr(text, cut) : NULL;
	if (cut) {
		ck_assert_ptr_nonnull(at);
		*at = '\0';
	}
	stir_schedule *s = stir_schedule_read_from_mem(ctx, "t.yaml", text,
		strlen(text));
	ck_assert_ptr_nonnull(s);
	int rc = cut ? stir_schedule_apply(s, k, STIR_STAGE_3) :
		stir_schedule_prepare_for_gpu(s, k);
	if (rc)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_int_eq(rc, 0);
	stir_schedule_free(s);
	return k;
}

/* b, spec: bind the sizes "NAME=V,..." of spec (at most 255 characters)
 * into b. */
static inline void test_bind_sizes(stir_bindings *b, const char *spec)
{
	char s[256];
	snprintf(s, sizeof(s), "%s", spec);
	for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
		char *eq = strchr(t, '=');
		ck_assert_ptr_nonnull(eq);
		*eq = '\0';
		stir_bindings_set_size(b, t, atoll(eq + 1));
	}
}

/* Run one suite and return the exit status make check expects. */
static inline int test_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* k, got, want, what: every tensor of k has the same length in got and
 * want and agrees (stir_array_compare: NaN with NaN); "what" names the
 * run in the failure. */
static inline void test_compare_tensors(const stir_kernel *k,
	const stir_bindings *got, const stir_bindings *want, const char *what)
{
	for (int i = 0; i < stir_kernel_n_buffers(k); i++) {
		stir_buffer *buf = stir_kernel_get_buffer(k, i);
		if (stir_buffer_get_kind(buf) != STIR_BUFFER_TENSOR)
			continue;
		const char *name = stir_buffer_get_array_name(buf);
		stir_array *a = stir_bindings_get_array(got, name);
		stir_array *r = stir_bindings_get_array(want, name);
		ck_assert_ptr_nonnull(a);
		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(stir_array_get_len(a), stir_array_get_len(r));
		int64_t j;
		if (stir_array_compare(a, r, &j, NULL) > 0)
			ck_abort_msg("%s: %s[%ld] is %g, the reference gives %g",
				what, name, (long)j, stir_array_get_double(a, j),
				stir_array_get_double(r, j));
	}
}

#endif
