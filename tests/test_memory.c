/* Memory in proportion to the program (issue 15, item 5): every pass and
 * schedule primitive collects the module's arena (stir_module_collect), so
 * that a kernel transformed a thousand times holds no more than one
 * transformed once, and a scheduled kernel about what its printed text
 * holds when read back.  Handles to kernels, parameters, axes and buffers,
 * and names, stay valid across the collections (docs/ir.md, "Memory"). */
#include <stir/stir.h>
#include "ir/nodes.h"
#include "tests/testlang.h"
#include "tests/testsched.h"

/* A loop nest to reorder back and forth at stage III. */
static const char *const nest_text =
	"kernel nest(m: i32, n: i32) stage 3 {\n"
	"  buffer X_data: f32[m * n] = X;\n"
	"  buffer Y_data: f32[m * n] = Y;\n"
	"  for i in [0, m) {\n"
	"    for j in [0, n) {\n"
	"      block b(vi: S = i, vj: S = j) {\n"
	"        Y_data[vi * n + vj] = X_data[vi * n + vj] * 2.0;\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"}\n";

/* The arena bytes after "warm" rounds, then after "rounds" more, of
 * calls to round(l, i); the kernel prints the same after both. */
typedef void (*round_fn)(loaded *l, int i);

/* l, round, rounds: run the rounds; as each round gives the program back
 * as it was, the module's live size must stay exactly what it was after
 * the first few (rounds that only add garbage grew it by kilobytes
 * each). */
static void expect_bounded(loaded *l, round_fn round, int rounds)
{
	for (int i = 0; i < 4; i++)
		round(l, i);
	size_t warm = stir_module_arena_bytes(l->m);
	char *before = stir_module_to_str(l->m);
	for (int i = 4; i < 4 + rounds; i++) {
		round(l, i);
		ck_assert_msg(stir_module_arena_bytes(l->m) == warm,
			"round %d: the module holds %zu bytes, %zu after 4 rounds", i,
			stir_module_arena_bytes(l->m), warm);
	}
	char *after = stir_module_to_str(l->m);
	ck_assert_str_eq(after, before);
	free(before);
	free(after);
}

/* l, i: reorder i and j, then back (two primitives). */
static void reorder_round(loaded *l, int i)
{
	(void)i;
	const char *ji[] = { "j", "i" }, *ij[] = { "i", "j" };
	SCHED_OK(*l, stir_reorder(l->k, "b", 2, ji));
	SCHED_OK(*l, stir_reorder(l->k, "b", 2, ij));
}

/* 2000 successful primitives: the arena stays at its size after 8. */
START_TEST(test_primitives_bounded)
{
	loaded l = sched_load(NULL, nest_text);
	stir_buffer *x = stir_kernel_find_buffer(l.k, "X_data");
	const char *kname = stir_kernel_get_name(l.k);
	stir_var *m = stir_kernel_get_param(l.k, 0);
	expect_bounded(&l, reorder_round, 1000);
	/* the handles given out before still stand for the same things */
	ck_assert_ptr_eq(stir_kernel_find_buffer(l.k, "X_data"), x);
	ck_assert_str_eq(stir_buffer_get_name(x), "X_data");
	ck_assert_ptr_eq(stir_kernel_get_name(l.k), kname);
	ck_assert_ptr_eq(stir_kernel_get_param(l.k, 0), m);
	ck_assert_str_eq(stir_var_get_name(m), "m");
	sched_unload(&l);
}
END_TEST

/* l, i: a refused request (the loop does not exist), and a split with
 * factors that leave a tail guard, undone by nothing: only the refusal
 * repeats. */
static void refused_round(loaded *l, int i)
{
	(void)i;
	const int64_t f[] = { 0, 4 };
	ck_assert_int_eq(stir_split(l->k, "b", "nope", 2, f), -1);
	ck_assert_int_eq(stir_ctx_n_errors(l->ctx), 1);
	stir_ctx_clear_diagnostics(l->ctx);
}

/* 1000 refused primitives: each worked on a copy it dropped. */
START_TEST(test_refused_bounded)
{
	loaded l = sched_load(NULL, nest_text);
	expect_bounded(&l, refused_round, 1000);
	sched_unload(&l);
}
END_TEST

/* l, i: the stage I iteration of csrmm reordered and back (a pass). */
static void sparse_round(loaded *l, int i)
{
	(void)i;
	const char *ikj[] = { "i", "k", "j" }, *ijk[] = { "i", "j", "k" };
	SCHED_OK(*l, stir_sparse_reorder(l->k, "csrmm", 3, ikj));
	SCHED_OK(*l, stir_sparse_reorder(l->k, "csrmm", 3, ijk));
}

/* 1000 round trips of a stage I pass. */
START_TEST(test_passes_bounded)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	expect_bounded(&l, sparse_round, 500);
	sched_unload(&l);
}
END_TEST

/* m: the arena bytes of m's text read back (a module that never held
 * anything but its program). */
static size_t reread_bytes(const stir_module *m)
{
	char *text = stir_module_to_str(m);
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m2 = test_read_str(ctx, text);
	ck_assert_ptr_nonnull(m2);
	size_t n = stir_module_arena_bytes(m2);
	stir_module_free(m2);
	stir_ctx_free(ctx);
	free(text);
	return n;
}

/* The example: csrmm through the hybrid format and its schedule
 * file (examples/csrmm_hyb.yaml) holds at stage III at most a quarter more
 * than its text read back holds (it held 14.6 MB before, some 70 times
 * as much). */
START_TEST(test_hybrid_schedule)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	stir_schedule *s = stir_schedule_read_from_file(l.ctx,
		test_path("examples/csrmm_hyb.yaml"));
	ck_assert_ptr_nonnull(s);
	SCHED_OK(l, stir_schedule_apply(s, l.k, STIR_STAGE_3));
	size_t held = stir_module_arena_bytes(l.m), text = reread_bytes(l.m);
	ck_assert_msg(held <= text + text / 4, "the scheduled module holds %zu "
		"bytes, its text read back %zu", held, text);
	test_check_round_trip(l.m);
	stir_schedule_free(s);
	sched_unload(&l);
}
END_TEST

/* The GPU pipeline (stir_schedule_prepare_for_gpu, as stirc cuda runs
 * it: the schedule's steps, the lowerings, the default schedule and the
 * stage III rewrites) collects between its passes: csrmm through
 * examples/csrmm_hyb.yaml, and csrmm unscheduled, hold at stage III at
 * most a sixteenth more than their text read back (without the
 * collections, 11% and 37% more: 253,584 bytes for 227,744 read back,
 * 22,624 for 16,544). */
START_TEST(test_gpu_pipeline)
{
	for (int scheduled = 0; scheduled < 2; scheduled++) {
		loaded l = sched_load("examples/csrmm.stir", NULL);
		stir_schedule *s = NULL;
		if (scheduled) {
			s = stir_schedule_read_from_file(l.ctx,
				test_path("examples/csrmm_hyb.yaml"));
			ck_assert_ptr_nonnull(s);
			SCHED_OK(l, stir_schedule_prepare_for_gpu(s, l.k));
		} else {
			SCHED_OK(l, stir_kernel_prepare_for_gpu(l.k));
		}
		size_t held = stir_module_arena_bytes(l.m);
		size_t text = reread_bytes(l.m);
		ck_assert_msg(held <= text + text / 16, "the prepared module "
			"holds %zu bytes, its text read back %zu", held, text);
		stir_schedule_free(s);
		sched_unload(&l);
	}
}
END_TEST

/* A schedule file of 1000 steps (reorders there and back) holds what one
 * of 8 steps does. */
START_TEST(test_long_schedule_file)
{
	size_t held[2];
	char *texts[2];
	for (int t = 0; t < 2; t++) {
		int steps = t ? 1000 : 8;
		size_t cap = 64 + (size_t)steps * 80, len = 0;
		char *yaml = malloc(cap);
		ck_assert_ptr_nonnull(yaml);
		len += (size_t)snprintf(yaml + len, cap - len,
			"kernel: nest\nstage3:\n");
		for (int i = 0; i < steps; i++)
			len += (size_t)snprintf(yaml + len, cap - len,
				"  - reorder: {block: b, loops: [%s]}\n",
				i % 2 ? "i, j" : "j, i");
		loaded l = sched_load(NULL, nest_text);
		stir_schedule *s = stir_schedule_read_from_mem(l.ctx, "s.yaml",
			yaml, len);
		if (!s)
			sched_dump(&l);
		ck_assert_ptr_nonnull(s);
		SCHED_OK(l, stir_schedule_apply(s, l.k, STIR_STAGE_3));
		held[t] = stir_module_arena_bytes(l.m);
		texts[t] = stir_module_to_str(l.m);
		stir_schedule_free(s);
		sched_unload(&l);
		free(yaml);
	}
	ck_assert_str_eq(texts[1], texts[0]);
	ck_assert_msg(held[1] == held[0],
		"1000 steps hold %zu bytes, 8 steps %zu", held[1], held[0]);
	free(texts[0]);
	free(texts[1]);
}
END_TEST

/* Every program of examples/ lowered to stage III (every pass on the
 * way collecting) holds at most a quarter more than its text read back
 * (the passes' nodes are a little larger: regions, unused variables);
 * without the collections the lowering's leftovers doubled it. */
START_TEST(test_lowered_examples)
{
	char **names;
	int n = test_list_stir("examples", &names);
	ck_assert_int_gt(n, 0);
	for (int i = 0; i < n; i++) {
		char rel[512];
		snprintf(rel, sizeof(rel), "examples/%s", names[i]);
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m = stir_module_read_from_file(ctx, test_path(rel));
		ck_assert_ptr_nonnull(m);
		if (stir_module_lower_sparse_iter(m) < 0 || stir_module_lower_sparse_buffer(m) < 0)
			stir_ctx_print_diagnostics(ctx, stderr);
		ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
		size_t held = stir_module_arena_bytes(m), text = reread_bytes(m);
		ck_assert_msg(held <= text + text / 4, "%s: the lowered module holds %zu "
			"bytes, its text read back %zu", rel, held, text);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
	test_free_names(names, n);
}
END_TEST

/* Names are interned: one copy per text, the same pointer for equal
 * names, alive until the module goes. */
START_TEST(test_intern)
{
	loaded l = sched_load(NULL, nest_text);
	const char *a = stir_module_intern(l.m, "X_data");
	ck_assert_ptr_eq(a, stir_buffer_get_name(
		stir_kernel_find_buffer(l.k, "X_data")));
	char buf[] = "fresh_name";
	const char *b = stir_module_intern(l.m, buf);
	ck_assert_ptr_ne(b, buf);
	ck_assert_str_eq(b, "fresh_name");
	ck_assert_ptr_eq(stir_module_intern(l.m, "fresh_name"), b);
	/* many names: the set grows and keeps every one */
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "n%d", i);
		ck_assert_str_eq(stir_module_intern(l.m, buf), buf);
	}
	ck_assert_ptr_eq(stir_module_intern(l.m, "fresh_name"), b);
	ck_assert_ptr_eq(stir_module_intern(l.m, "n4999"),
		stir_module_intern(l.m, "n4999"));
	sched_unload(&l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("memory");
	TCase *tc = tcase_create("memory");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_primitives_bounded);
	tcase_add_test(tc, test_refused_bounded);
	tcase_add_test(tc, test_passes_bounded);
	tcase_add_test(tc, test_hybrid_schedule);
	tcase_add_test(tc, test_gpu_pipeline);
	tcase_add_test(tc, test_long_schedule_file);
	tcase_add_test(tc, test_lowered_examples);
	tcase_add_test(tc, test_intern);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
