/* Tests of the context: diagnostics, their formatting, interning, and
 * stir_parallel_for (a context per item). */
#include <stdbool.h>
#include <string.h>
#include <stir/ctx.h>
#include "ir/diag.h"
#include "tests/testutil.h"

START_TEST(test_report_and_format)
{
	stir_ctx *ctx = stir_ctx_alloc();
	const char *text = "kernel k() {\n  axis I = bogus(3);\n}\n";
	const char *file = stir_ctx_add_source(ctx, "a.stir", text, strlen(text));
	stir_loc loc = { file, 2, 12 };
	stir_diag *d = stir_error(ctx, loc, "unknown axis kind '%s'", "bogus");
	stir_loc nloc = { file, 1, 8 };
	stir_diag_add_note(d, nloc, "in kernel '%s'", "k");
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 1);
	ck_assert_int_eq(stir_diag_n_notes(d), 1);
	char *s = stir_ctx_diagnostics_to_str(ctx);
	ck_assert_str_eq(s,
		"a.stir:2:12: error: unknown axis kind 'bogus'\n"
		"   axis I = bogus(3);\n"
		"            ^\n"
		"a.stir:1:8: note: in kernel 'k'\n"
		" kernel k() {\n"
		"        ^\n");
	free(s);
	stir_ctx_clear_diagnostics(ctx);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_control_bytes_in_source)
{
	/* a NUL in the source line must not end the text, which holds both
	 * diagnostics; control bytes show as '?', tabs stay */
	stir_ctx *ctx = stir_ctx_alloc();
	static const char text[] = "a\0b\x1b[2J\tc\r\nd\r\n";
	const char *file = stir_ctx_add_source(ctx, "n.stir", text,
		sizeof(text) - 1);
	stir_loc l1 = { file, 1, 9 }, l2 = { file, 2, 1 };
	stir_error(ctx, l1, "first");
	stir_error(ctx, l2, "second");
	char *s = stir_ctx_diagnostics_to_str(ctx);
	ck_assert_str_eq(s,
		"n.stir:1:9: error: first\n"
		" a?b?[2J\tc\n"
		"        \t^\n"
		"n.stir:2:1: error: second\n"
		" d\n"
		" ^\n");
	free(s);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_no_location)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_warning(ctx, stir_loc_none(), "plain %d", 7);
	stir_loc fl = { "x.npy", 0, 0 };
	stir_error(ctx, fl, "bad header");
	char *s = stir_ctx_diagnostics_to_str(ctx);
	ck_assert_str_eq(s, "warning: plain 7\nx.npy: error: bad header\n");
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	free(s);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_intern)
{
	stir_ctx *ctx = stir_ctx_alloc();
	char buf[32];
	const char *first[500];
	for (int i = 0; i < 500; i++) {
		snprintf(buf, sizeof(buf), "name%d", i);
		first[i] = stir_ctx_intern(ctx, buf);
	}
	for (int i = 0; i < 500; i++) {
		snprintf(buf, sizeof(buf), "name%d", i);
		ck_assert_ptr_eq(stir_ctx_intern(ctx, buf), first[i]);
		ck_assert_str_eq(first[i], buf);
	}
	stir_ctx_free(ctx);
}
END_TEST

/* arg, i: count item i once more, and give it a context of its own. */
static void count_item(void *arg, int i)
{
	int *runs = arg;
	stir_ctx *c = stir_ctx_alloc();
	bool ok = c && stir_ctx_intern(c, "item");
	stir_ctx_free(c);
	/* counted only when its context worked (checked by the caller) */
	if (ok)
		__atomic_add_fetch(&runs[i], 1, __ATOMIC_RELAXED);
}

START_TEST(test_parallel_for)
{
	/* every item exactly once, more items than threads and fewer; none */
	static int runs[1000];
	static const int counts[] = { 1000, 3, 1, 0 };
	for (int c = 0; c < 4; c++) {
		memset(runs, 0, sizeof(runs));
		stir_parallel_for(counts[c], count_item, runs);
		for (int i = 0; i < 1000; i++)
			ck_assert_int_eq(runs[i], i < counts[c] ? 1 : 0);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctx");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_report_and_format);
	tcase_add_test(tc, test_no_location);
	tcase_add_test(tc, test_control_bytes_in_source);
	tcase_add_test(tc, test_intern);
	tcase_add_test(tc, test_parallel_for);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
