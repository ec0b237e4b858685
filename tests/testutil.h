/* Helpers shared by the check suites. */
#ifndef STIR_TESTS_TESTUTIL_H
#define STIR_TESTS_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
