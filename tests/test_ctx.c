/* Tests of the context: diagnostics, their formatting, interning. */
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

int main(void)
{
	Suite *s = suite_create("ctx");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_report_and_format);
	tcase_add_test(tc, test_no_location);
	tcase_add_test(tc, test_intern);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
