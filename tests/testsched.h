/* Helpers of the stage II/III schedule tests (test_schedule*.c): programs
 * from the source tree or from strings, lowered to a stage; the
 * differential check that a schedule keeps what a program computes (the
 * scheduled kernel, interpreted at stage II and after lowering to III,
 * against the unscheduled stage I kernel, on seeded random inputs); the
 * check that a refused request gives one exact diagnostic and leaves the
 * printed kernel unchanged. */
#ifndef STIR_TESTS_TESTSCHED_H
#define STIR_TESTS_TESTSCHED_H

#include <math.h>
#include <stir/stir.h>
#include "tests/testdiag.h"
#include "tests/testutil.h"

/* A module with its context and first kernel. */
typedef struct loaded {
	stir_ctx *ctx;
	stir_module *m;
	stir_kernel *k;
} loaded;

/* l: print the diagnostics of l (when a step fails). */
static inline void sched_dump(const loaded *l)
{
	stir_ctx_print_diagnostics(l->ctx, stderr);
}

/* file, text: a program from the source tree (text NULL) or from text. */
static inline loaded sched_load(const char *file, const char *text)
{
	loaded l = { stir_ctx_alloc(), NULL, NULL };
	l.m = text ? stir_module_read_from_mem(l.ctx, "t.stir", text,
		strlen(text)) : stir_module_read_from_file(l.ctx, test_path(file));
	if (!l.m)
		sched_dump(&l);
	ck_assert_ptr_nonnull(l.m);
	l.k = stir_module_get_kernel(l.m, 0);
	return l;
}

static inline void sched_unload(loaded *l)
{
	stir_module_free(l->m);
	stir_ctx_free(l->ctx);
}

/* l, stage: lower l's kernel up to "stage". */
static inline void sched_lower(loaded *l, int stage)
{
	int rc = 0;
	if (stage >= 2 && stir_kernel_get_stage(l->k) < 2)
		rc = stir_lower_sparse_iter(l->k);
	if (!rc && stage >= 3 && stir_kernel_get_stage(l->k) < 3)
		rc = stir_lower_sparse_buffer(l->k);
	if (rc)
		sched_dump(l);
	ck_assert_int_eq(rc, 0);
}

/* rc, l: a schedule call that must succeed. */
#define SCHED_OK(l, call) do { \
		int rc_ = (call); \
		if (rc_) \
			sched_dump(&(l)); \
		ck_assert_msg(rc_ == 0, "%s failed", #call); \
	} while (0)

/* l, in: run l's kernel on a copy of in. */
static inline stir_bindings *sched_run(loaded *l, const stir_bindings *in)
{
	stir_bindings *b = stir_bindings_copy(in);
	int rc = stir_kernel_interpret(l->k, b);
	if (rc)
		sched_dump(l);
	ck_assert_int_eq(rc, 0);
	return b;
}

/* want, got, tol, what: every array of want equals got's (within tol
 * relative, 0: exactly). */
static inline void sched_expect_same(const stir_bindings *want,
	stir_bindings *got, double tol, const char *what)
{
	for (int i = 0; i < stir_bindings_n_arrays(want); i++) {
		const char *name = stir_bindings_get_array_name(want, i);
		const stir_array *w = stir_bindings_get_array(want, name);
		const stir_array *g = stir_bindings_get_array(got, name);
		ck_assert_ptr_nonnull(g);
		ck_assert_int_eq(stir_array_get_len(w), stir_array_get_len(g));
		for (int64_t j = 0; j < stir_array_get_len(w); j++) {
			double x = stir_array_get_double(w, j);
			double y = stir_array_get_double(g, j);
			ck_assert_msg(tol ? fabs(x - y) <= tol * (1 + fabs(x)) : x == y,
				"%s: %s[%lld] is %.9g, not %.9g", what, name,
				(long long)j, y, x);
		}
	}
}

/* A schedule applied to a kernel (asserting each step). */
typedef void (*sched_fn)(loaded *l);

/* file, text, stage, apply, tol, seeds: the program scheduled by "apply"
 * at "stage" (2: then lowered to 3 and run again; 3) computes what the
 * stage I program computes. */
static inline void sched_check_keeps(const char *file, const char *text,
	int stage, sched_fn apply, double tol, int seeds)
{
	loaded plain = sched_load(file, text);
	int start = stir_kernel_get_stage(plain.k);
	for (int seed = 1; seed <= seeds; seed++) {
		stir_bindings *in = stir_bindings_alloc();
		ck_assert_int_eq(stir_kernel_bind_random(plain.k, in,
			(uint64_t)seed * 7919), 0);
		stir_bindings *want = sched_run(&plain, in);
		loaded l = sched_load(file, text);
		sched_lower(&l, stage);
		apply(&l);
		ck_assert_int_eq(stir_kernel_verify(l.k), 0);
		char what[64];
		for (int st = stage; st <= 3; st++) {
			if (st > (int)stir_kernel_get_stage(l.k))
				sched_lower(&l, st);
			stir_bindings *got = sched_run(&l, in);
			snprintf(what, sizeof(what), "stage %d seed %d", st, seed);
			/* a program given at stage II/III is its own reference */
			sched_expect_same(want, got, start == 1 || tol ? tol : 0, what);
			stir_bindings_free(got);
		}
		sched_unload(&l);
		stir_bindings_free(want);
		stir_bindings_free(in);
	}
	sched_unload(&plain);
}

/* l, rc, msg: a refused request: rc is -1, the context holds exactly one
 * diagnostic, an error whose message is msg, and the kernel prints as
 * "before". */
static inline void sched_expect_refused(loaded *l, const char *before, int rc,
	const char *msg)
{
	ck_assert_int_eq(rc, -1);
	if (stir_ctx_n_diagnostics(l->ctx) != 1)
		sched_dump(l);
	ck_assert_int_eq(stir_ctx_n_diagnostics(l->ctx), 1);
	const stir_diag *d = stir_ctx_get_diagnostic(l->ctx, 0);
	ck_assert_str_eq(stir_diag_get_message(d), msg);
	char *after = stir_kernel_to_str(l->k);
	ck_assert_str_eq(after, before);
	free(after);
	stir_ctx_clear_diagnostics(l->ctx);
}

/* Call "call" on l and expect it refused with "msg". */
#define SCHED_REFUSED(l, call, msg) do { \
		char *before_ = stir_kernel_to_str((l).k); \
		stir_ctx_clear_diagnostics((l).ctx); \
		sched_expect_refused(&(l), before_, (call), (msg)); \
		free(before_); \
	} while (0)

/* l, want: the kernel prints exactly as want. */
static inline void sched_expect_text(const loaded *l, const char *want)
{
	char *s = stir_kernel_to_str(l->k);
	if (strcmp(s, want))
		fprintf(stderr, "got:\n%s\nwanted:\n%s\n", s, want);
	ck_assert_str_eq(s, want);
	free(s);
}

#endif
