/* Helpers shared by the check suites. */
#ifndef STIR_TESTS_TESTUTIL_H
#define STIR_TESTS_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/array.h>

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

#endif
