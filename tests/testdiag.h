/* Diagnostics as compact text, for tests that compare them exactly. */
#ifndef STIR_TESTS_TESTDIAG_H
#define STIR_TESTS_TESTDIAG_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include <stir/stir.h>

/* ctx: every diagnostic as a "LINE:COL: error: MESSAGE" line, each note as
 * "LINE:COL: note: MESSAGE" after its diagnostic (file names left out).
 * The caller frees the string. */
static inline char *test_diags_to_str(const stir_ctx *ctx)
{
	static const char *const sev[] = { "note", "warning", "error" };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (int i = 0; i < stir_ctx_n_diagnostics(ctx); i++) {
		const stir_diag *d = stir_ctx_get_diagnostic(ctx, i);
		stir_loc l = stir_diag_get_loc(d);
		fprintf(f, "%d:%d: %s: %s\n", l.line, l.col,
			sev[stir_diag_get_severity(d)], stir_diag_get_message(d));
		for (int j = 0; j < stir_diag_n_notes(d); j++) {
			const stir_diag *n = stir_diag_get_note(d, j);
			l = stir_diag_get_loc(n);
			fprintf(f, "%d:%d: note: %s\n", l.line, l.col,
				stir_diag_get_message(n));
		}
	}
	fclose(f);
	return out;
}

/* ctx, text: whether the diagnostics hold text (printed to stderr when
 * they do not); they are cleared either way. */
static inline bool test_said(stir_ctx *ctx, const char *text)
{
	char *d = test_diags_to_str(ctx);
	bool r = d && strstr(d, text);
	if (!r)
		fprintf(stderr, "expected \"%s\" in:\n%s", text, d ? d : "");
	free(d);
	stir_ctx_clear_diagnostics(ctx);
	return r;
}

/* t, from, to, says: kernel text t reads back and prints the same; with
 * its first "from" replaced by "to" (of the same length) reading it fails
 * with "says" where it is written. */
static inline void test_reads_back(const char *t, const char *from,
	const char *to, const char *says)
{
	stir_ctx *c = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_mem(c, "t.stir", t, strlen(t));
	if (!m)
		stir_ctx_print_diagnostics(c, stderr);
	ck_assert_ptr_nonnull(m);
	char *t2 = stir_kernel_to_str(stir_module_get_kernel(m, 0));
	ck_assert(t2 && !strcmp(t, t2));
	free(t2);
	stir_module_free(m);
	char *bad = strdup(t);
	ck_assert(bad && strlen(from) == strlen(to) && strstr(bad, from));
	memcpy(strstr(bad, from), to, strlen(to));
	ck_assert_ptr_null(stir_module_read_from_mem(c, "t.stir", bad,
		strlen(bad)));
	ck_assert(test_said(c, says));
	free(bad);
	stir_ctx_free(c);
}

#endif
