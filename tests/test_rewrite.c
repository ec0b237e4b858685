/* The stage III rewrites for the GPU (include/stir/passes.h, docs/ir.md
 * "Stage III rewrites for the GPU"): the text each makes, that the text
 * reads back and verifies, that running them again changes nothing, and
 * that the rewritten kernels compute what their stage I references do. */
#include <dirent.h>
#include <stir/stir.h>
#include "tests/testdiag.h"
#include "tests/testutil.h"

/* A module read from text or a file, with its context. */
typedef struct prog {
	stir_ctx *ctx;
	stir_module *m;
	stir_kernel *k;
} prog;

/* file: read a program of the source tree; its kernel "name". */
static prog load_prog(const char *file, const char *name)
{
	prog p = { stir_ctx_alloc(), NULL, NULL };
	p.m = stir_module_read_from_file(p.ctx, test_path(file));
	if (!p.m)
		stir_ctx_print_diagnostics(p.ctx, stderr);
	ck_assert_ptr_nonnull(p.m);
	p.k = stir_module_find_kernel(p.m, name);
	ck_assert_ptr_nonnull(p.k);
	return p;
}

/* text: read a program from text; its first kernel. */
static prog read_prog(const char *text)
{
	prog p = { stir_ctx_alloc(), NULL, NULL };
	p.m = stir_module_read_from_mem(p.ctx, "k.stir", text, strlen(text));
	if (!p.m)
		stir_ctx_print_diagnostics(p.ctx, stderr);
	ck_assert_ptr_nonnull(p.m);
	p.k = stir_module_get_kernel(p.m, 0);
	return p;
}

/* p: free a program and its context. */
static void free_prog(prog *p)
{
	stir_module_free(p->m);
	stir_ctx_free(p->ctx);
}

/* k: the text of k, which must read back (verified) to the same text. */
static char *round_trip(const stir_kernel *k)
{
	char *t = stir_kernel_to_str(k);
	ck_assert_ptr_nonnull(t);
	prog q = read_prog(t);
	ck_assert_int_eq(stir_kernel_verify(q.k), 0);
	char *u = stir_kernel_to_str(q.k);
	ck_assert_str_eq(u, t);
	free(u);
	free_prog(&q);
	return t;
}

/* ---- lift_guards --------------------------------------------------------- */

/* A guard without loads around a nest's innermost body wraps the nest; one
 * with loads stays; the loops keep their order. */
START_TEST(test_lift_guards_text)
{
	prog p = read_prog(
		"kernel g(n: i32) stage 3 {\n"
		"  buffer X_data: f32[n] = X;\n"
		"  buffer Y_data: f32[n * 8] = Y;\n"
		"  for b in [0, (n + 127) / 128) bind(blockIdx.x) {\n"
		"    for t in [0, 128) bind(threadIdx.x) {\n"
		"      for u in [0, 2) {\n"
		"        for w in [0, 4) unroll {\n"
		"          if (b * 128 + t < n) {\n"
		"            if (X_data[b * 128 + t] > 0.0) {\n"
		"              block y(vi: S = b * 128 + t, vw: S = u * 4 + w) {\n"
		"                Y_data[vi * 8 + vw] = 1.0;\n"
		"              }\n"
		"            }\n"
		"          }\n"
		"        }\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	ck_assert_int_eq(stir_lift_guards(p.k), 0);
	char *t = round_trip(p.k);
	ck_assert_ptr_nonnull(strstr(t,
		"    for t in [0, 128) bind(threadIdx.x) {\n"
		"      if (b * 128 + t < n) {\n"
		"        for u in [0, 2) {\n"
		"          for w in [0, 4) unroll {\n"
		"            if (X_data[b * 128 + t] > 0.0) {\n"));
	/* again: nothing to lift */
	ck_assert_int_eq(stir_lift_guards(p.k), 0);
	char *u = stir_kernel_to_str(p.k);
	ck_assert_str_eq(u, t);
	free(u);
	free(t);
	free_prog(&p);
}
END_TEST

/* What stays: a guard that uses a loop of the nest, one with an else, one
 * under a loop that holds another statement too, and the refusal of a
 * kernel that is not at stage III. */
START_TEST(test_lift_guards_stays)
{
	static const char *const kept[] = {
		/* uses w */
		"      for w in [0, 4) {\n"
		"        if (b * 4 + w < n) {\n"
		"          block y(vi: S = b * 4 + w) {\n"
		"            Y_data[vi] = 1.0;\n"
		"          }\n"
		"        }\n"
		"      }\n",
		/* an else */
		"      for w in [0, 4) {\n"
		"        if (b < n) {\n"
		"          block y(vi: S = b * 4 + w) {\n"
		"            Y_data[vi] = 1.0;\n"
		"          }\n"
		"        } else {\n"
		"          block z(vi: S = b * 4 + w) {\n"
		"            Y_data[vi] = 2.0;\n"
		"          }\n"
		"        }\n"
		"      }\n",
		/* not the loop's only statement */
		"      for w in [0, 4) {\n"
		"        if (b < n) {\n"
		"          block y(vi: S = b * 4 + w) {\n"
		"            Y_data[vi] = 1.0;\n"
		"          }\n"
		"        }\n"
		"        block z(vi: S = b * 4 + w) {\n"
		"          Y_data[vi] = 2.0;\n"
		"        }\n"
		"      }\n",
	};
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		char text[2048];
		snprintf(text, sizeof(text),
			"kernel g(n: i32) stage 3 {\n"
			"  buffer Y_data: f32[n * 4] = Y;\n"
			"  for b in [0, n) bind(blockIdx.x) {\n"
			"    for t in [0, 1) bind(threadIdx.x) {\n"
			"%s"
			"    }\n"
			"  }\n"
			"}\n", kept[i]);
		prog p = read_prog(text);
		char *before = stir_kernel_to_str(p.k);
		ck_assert_int_eq(stir_lift_guards(p.k), 0);
		char *after = stir_kernel_to_str(p.k);
		ck_assert_str_eq(after, before);
		free(before);
		free(after);
		free_prog(&p);
	}
	prog p = load_prog("tests/cuda/hoist.stir", "hoist_ref");
	ck_assert_int_eq(stir_lift_guards(p.k), -1);
	ck_assert_int_eq(stir_ctx_n_errors(p.ctx), 1);
	ck_assert_str_eq(stir_diag_get_message(stir_ctx_get_diagnostic(p.ctx, 0)),
		"lift_guards: kernel 'hoist_ref' is at stage 1; the pass takes "
		"stage III");
	free_prog(&p);
}
END_TEST



/* Lifted out of a loop of the top level, the guard is the launch: it
 * takes the loop's location, which names the launch in the CUDA. */
START_TEST(test_lift_guards_top_level)
{
	prog p = read_prog(
		"kernel top(n: i32) stage 3 {\n"
		"  buffer Y_data: f32[4] = Y;\n"
		"  for w in [0, 4) {\n"
		"    if (n > 3) {\n"
		"      block y(vw: S = w) {\n"
		"        Y_data[vw] = 1.0;\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	ck_assert_int_eq(stir_lift_guards(p.k), 0);
	char *t = round_trip(p.k);
	ck_assert_ptr_nonnull(strstr(t,
		"  if (n > 3) {\n"
		"    for w in [0, 4) {\n"
		"      block y(vw: S = w) {\n"));
	char *cu = stir_kernel_to_cuda(p.k);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_nonnull(strstr(cu, "// launch 0 of 1 (k.stir:3): grid "
		"(1, 1, 1), block (1, 1, 1)\n"));
	free(cu);
	free(t);
	free_prog(&p);
}
END_TEST

/* ---- hoist_invariants ------------------------------------------------------ */

/* tests/cuda/hoist.stir: the row's search moves before loop w (inside the
 * lifted guard), and the equal searches inside become its variable; the
 * one over P (stored by the kernel), the one whose value reads memory and
 * the one whose range is read stay. */
START_TEST(test_hoist_text)
{
	prog p = load_prog("tests/cuda/hoist.stir", "hoist");
	ck_assert_int_eq(stir_lift_guards(p.k), 0);
	ck_assert_int_eq(stir_hoist_invariants(p.k), 0);
	char *t = round_trip(p.k);
	ck_assert_ptr_nonnull(strstr(t,
		"      if (p0 * 64 + p1 < nnz) {\n"
		"        hoisted let s = upper_bound(J_indptr, 0, m + 1, p0 * 64 + p1);\n"
		"        for w in [0, 4) {\n"
		"          block rows(vp: S = p0 * 64 + p1, vw: S = w) {\n"
		"            let row = s - 1;\n"));
	ck_assert_ptr_nonnull(strstr(t, "f32(upper_bound(P, 0, m + 1, vp))"));
	ck_assert_ptr_nonnull(strstr(t,
		"f32(upper_bound(J_indptr, 0, m + 1, J_indptr[s - 1]) - 1)"));
	ck_assert_ptr_nonnull(strstr(t,
		"A_data[lower_bound(J_indices, J_indptr[s - 1], J_indptr[s], "
		"J_indices[vp])]"));
	/* one search moved, once */
	ck_assert_ptr_null(strstr(strstr(t, "hoisted let") + 1, "hoisted let"));
	/* again: nothing moves */
	ck_assert_int_eq(stir_hoist_invariants(p.k), 0);
	char *u = stir_kernel_to_str(p.k);
	ck_assert_str_eq(u, t);
	free(u);
	free(t);
	free_prog(&p);
}
END_TEST

/* Nested loops: a search that uses the outer loop's variable moves before
 * the inner loop only; one over a literal range of a literal extent
 * before the outer loop; one whose range is not the whole buffer nowhere;
 * the loops of the top level get no let before them.  The name of the
 * let does not clash with the kernel's. */
START_TEST(test_hoist_nested)
{
	prog p = read_prog(
		"kernel h(n: i32, s: i32) stage 3 {\n"
		"  buffer K: i32[8] = K in [0, 100);\n"
		"  buffer J: i32[n] = J in [0, 100);\n"
		"  buffer Y: i32[n * 4] = Y;\n"
		"  for b in [0, n) bind(blockIdx.x) {\n"
		"    for i in [0, 2) {\n"
		"      for j in [0, 4) {\n"
		"        block y(vi: S = b, vj: S = i, vk: S = j) {\n"
		"          Y[vi * 4 + vk] = upper_bound(J, 0, n, vi + vj) +\n"
		"            lower_bound(K, 0, 8, 3) + lower_bound(J, 1, n, s);\n"
		"        }\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	ck_assert_int_eq(stir_hoist_invariants(p.k), 0);
	char *t = round_trip(p.k);
	ck_assert_ptr_nonnull(strstr(t,
		"  for b in [0, n) bind(blockIdx.x) {\n"
		"    hoisted let s1 = lower_bound(K, 0, 8, 3);\n"
		"    for i in [0, 2) {\n"
		"      hoisted let s2 = upper_bound(J, 0, n, b + i);\n"
		"      for j in [0, 4) {\n"));
	ck_assert_ptr_nonnull(strstr(t,
		"Y[vi * 4 + vk] = s2 + s1 + lower_bound(J, 1, n, s);\n"));
	free(t);
	free_prog(&p);
}
END_TEST

/* A search of a let's value moves once the search in that value has (the
 * relation of a fused position's row, rgms_edge.yaml): both go before loop
 * w, the second taking the first's variable; the let that only the moved
 * search used goes (row), the other keeps its place; a second run moves
 * nothing (the pass hoists before a loop until nothing more moves
 * there). */
START_TEST(test_hoist_let_chain)
{
	prog p = read_prog(
		"kernel h(n: i32, r: i32, m: i32) stage 3 {\n"
		"  buffer P: i32[r + 1] = P in [0, m + 1);\n"
		"  buffer Q: i32[m + 1] = Q in [0, n + 1);\n"
		"  buffer Y: f32[n * 4] = Y;\n"
		"  for b in [0, n) bind(blockIdx.x) {\n"
		"    for w in [0, 4) {\n"
		"      block y(vb: S = b, vw: S = w) {\n"
		"        let row = upper_bound(Q, 0, m + 1, vb) - 1;\n"
		"        let rel = upper_bound(P, 0, r + 1, row) - 1;\n"
		"        Y[vb * 4 + vw] = f32(rel);\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	ck_assert_int_eq(stir_hoist_invariants(p.k), 0);
	char *t = round_trip(p.k);
	ck_assert_ptr_nonnull(strstr(t,
		"  for b in [0, n) bind(blockIdx.x) {\n"
		"    hoisted let s = upper_bound(Q, 0, m + 1, b);\n"
		"    hoisted let s1 = upper_bound(P, 0, r + 1, s - 1);\n"
		"    for w in [0, 4) {\n"));
	ck_assert_ptr_nonnull(strstr(t,
		"      block y(vb: S = b, vw: S = w) {\n"
		"        let rel = s1 - 1;\n"));
	ck_assert_ptr_null(strstr(t, "let row"));
	ck_assert_int_eq(stir_hoist_invariants(p.k), 0);
	char *u = stir_kernel_to_str(p.k);
	ck_assert_str_eq(u, t);
	free(u);
	free(t);
	free_prog(&p);
}
END_TEST

/* The reader and the verifier: "hoisted let" is a stage III statement
 * whose value is a search or a warp-buffer read. */
START_TEST(test_hoisted_let_checked)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "kernel h(n: i32) stage 3 {\n"
		  "  buffer J: i32[n] = J;\n"
		  "  for b in [0, n) bind(blockIdx.x) {\n"
		  "    hoisted let s = J[b];\n"
		  "    J[b] = s;\n"
		  "  }\n"
		  "}\n",
		  "4:5: error: hoisted let 's': its value must be a search or a "
		  "read of a warp buffer\n" },
		{ "kernel h(n: i32) stage 2 {\n"
		  "  buffer J: i32[n] = J;\n"
		  "  for b in [0, n) bind(blockIdx.x) {\n"
		  "    hoisted let s = upper_bound(J, 0, n, b);\n"
		  "    J[b] = s;\n"
		  "  }\n"
		  "}\n",
		  "4:5: error: hoisted let 's' is not allowed in a stage 2 "
		  "kernel\n" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m = stir_module_read_from_mem(ctx, "k.stir",
			bad[i].text, strlen(bad[i].text));
		if (m)
			ck_assert_int_eq(stir_module_verify(m), -1);
		char *d = test_diags_to_str(ctx);
		ck_assert_str_eq(d, bad[i].want);
		free(d);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
}
END_TEST

/* ---- hoist_warp_reads --------------------------------------------------- */

static char *replace(const char *s, const char *from, const char *to);

/* Reads of a warp buffer that a loop does not change, one of them at an
 * index past the buffer where the loop's condition keeps it unused. */
static const char warp_prog[] =
	"kernel h(n: i32) stage 3 {\n"
	"  buffer X: f32[8] = X;\n"
	"  buffer Y: f32[n * 32] = Y;\n"
	"  buffer W: f32[8] warp;\n"
	"  for b in [0, n) bind(blockIdx.x) {\n"
	"    for t in [0, 8) bind(threadIdx.x) {\n"
	"      for e in [0, 8) {\n"
	"        W[e] = X[e];\n"
	"      }\n"
	"      for j in [0, 4) {\n"
	"        for u in [0, 4) {\n"
	"          if (j + 5 < 8) {\n"
	"            Y[(b * 8 + t) * 4 + u] += W[j] * W[j + 5];\n"
	"          }\n"
	"        }\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"}\n";

/* The reads move before the innermost loop that does not change them,
 * as lets the text shows and reads back; a second run changes nothing;
 * the emitter prints the lets as constants (without the pass, the reads
 * stay shuffles in place); the interpreter runs the moved read past the
 * buffer (j = 3) without error and computes what the kernel did. */
START_TEST(test_hoist_warp_reads)
{
	prog p = read_prog(warp_prog), q = read_prog(warp_prog);
	ck_assert_int_eq(stir_hoist_warp_reads(p.k), 0);
	char *t = round_trip(p.k);
	ck_assert_ptr_nonnull(strstr(t,
		"        hoisted let s = W[j];\n"
		"        hoisted let s1 = W[j + 5];\n"
		"        for u in [0, 4) {\n"
		"          if (j + 5 < 8) {\n"
		"            Y[(b * 8 + t) * 4 + u] += s * s1;\n"));
	ck_assert_int_eq(stir_hoist_warp_reads(p.k), 0);
	char *again = stir_kernel_to_str(p.k);
	ck_assert_str_eq(again, t);
	free(again);
	free(t);
	char *moved = stir_kernel_to_cuda(p.k), *kept = stir_kernel_to_cuda(q.k);
	ck_assert_ptr_nonnull(moved);
	ck_assert_ptr_nonnull(kept);
	ck_assert_ptr_nonnull(strstr(moved, "const float stir_s1 = "
		"__shfl_sync(stir_lanes(8), W[0], j + 5, 8);  // a warp buffer "
		"read the loop does not change\n"));
	ck_assert_ptr_nonnull(strstr(moved, "+= stir_s0 * stir_s1;"));
	ck_assert_ptr_null(strstr(kept, "stir_s0"));
	ck_assert_ptr_nonnull(strstr(kept, "+= __shfl_sync(stir_lanes(8), W[0], "
		"j, 8) * __shfl_sync(stir_lanes(8), W[0], j + 5, 8);"));
	free(moved);
	free(kept);
	for (uint64_t seed = 1; seed <= 2; seed++) {
		stir_bindings *b = stir_bindings_alloc();
		ck_assert_int_eq(stir_bindings_set_size(b, "n", 3), 0);
		ck_assert_int_eq(stir_kernel_bind_random(q.k, b, seed), 0);
		stir_bindings *want = stir_bindings_copy(b);
		int rc = stir_kernel_interpret(p.k, b);
		if (rc < 0)
			stir_ctx_print_diagnostics(p.ctx, stderr);
		ck_assert_int_eq(rc, 0);
		ck_assert_int_eq(stir_kernel_interpret(q.k, want), 0);
		test_compare_tensors(q.k, b, want, "hoist_warp_reads");
		stir_bindings_free(b);
		stir_bindings_free(want);
	}
	free_prog(&q);
	free_prog(&p);
}
END_TEST

/* A read under control flow that depends on threadIdx.x is a shuffle
 * only some lanes make: refused where it is, legal once the pass has
 * moved it before its loop, where every lane runs. */
START_TEST(test_hoist_warp_reads_makes_legal)
{
	char *text = replace(warp_prog, "if (j + 5 < 8)", "if (t < 6)    ");
	prog p = read_prog(text);
	ck_assert_int_eq(stir_kernel_verify_gpu(p.k), -1);
	char *d = test_diags_to_str(p.ctx);
	ck_assert_str_eq(d, "13:39: error: warp buffer 'W' is read under "
		"control flow that depends on threadIdx.x: its lanes shuffle "
		"together\n");
	free(d);
	ck_assert_int_eq(stir_hoist_warp_reads(p.k), 0);
	ck_assert_int_eq(stir_kernel_verify_gpu(p.k), 0);
	char *t = stir_kernel_to_str(p.k);
	ck_assert_ptr_nonnull(strstr(t, "        hoisted let s = W[j];\n"));
	free(t);
	free_prog(&p);
	free(text);
}
END_TEST

/* A kernel the GPU verifier refuses is refused by the pass, with the
 * verifier's error, and left as it was. */
START_TEST(test_hoist_warp_reads_refused)
{
	char *text = strdup(warp_prog);
	ck_assert_ptr_nonnull(text);
	/* the reads outside the loop bound to threadIdx.x */
	char *at = strstr(text, "bind(threadIdx.x)");
	ck_assert_ptr_nonnull(at);
	memcpy(at, "unroll           ", strlen("bind(threadIdx.x)"));
	prog p = read_prog(text);
	char *before = stir_kernel_to_str(p.k);
	ck_assert_int_eq(stir_hoist_warp_reads(p.k), -1);
	char *d = test_diags_to_str(p.ctx);
	ck_assert_ptr_nonnull(strstr(d, "error: warp buffer 'W' is filled "
		"outside a loop bound to threadIdx.x, whose lanes hold it\n"));
	free(d);
	char *after = stir_kernel_to_str(p.k);
	ck_assert_str_eq(after, before);
	free(after);
	free(before);
	free_prog(&p);
	free(text);
}
END_TEST

/* ---- plan_vectors ------------------------------------------------------- */

/* A vectorized loop whose lanes are vectors, one that has no vector path
 * (a lane reads what the next one writes), and a loop that is not
 * vectorized. */
static const char vec_prog[] =
	"kernel v(n: i32) stage 3 {\n"
	"  buffer X: f32[n * 4] = X;\n"
	"  buffer Y: f32[n * 4 + 1] = Y;\n"
	"  buffer Z: f32[n * 4] = Z;\n"
	"  for i in [0, n) bind(blockIdx.x) {\n"
	"    block b(vi: S = i) {\n"
	"      for w in [0, 4) vectorize {\n"
	"        block l(vw: S = vi * 4 + w) {\n"
	"          Z[vw] += X[vw] * 2.0;\n"
	"        }\n"
	"      }\n"
	"      for u in [0, 4) vectorize {\n"
	"        Y[vi * 4 + u] = Y[vi * 4 + u + 1];\n"
	"      }\n"
	"      for x in [0, 4) {\n"
	"        Y[vi * 4 + x] = 0.0;\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"}\n";

/* The plans the pass writes: vectors in the loop's scope (the block
 * variable vw is its binding), "()" for a loop without a vector path,
 * nothing on other loops; the text reads back, and a second run changes
 * nothing. */
START_TEST(test_plan_vectors_text)
{
	prog p = read_prog(vec_prog);
	ck_assert_int_eq(stir_plan_vectors(p.k), 0);
	char *t = round_trip(p.k);
	ck_assert_ptr_nonnull(strstr(t, "      for w in [0, 4) vectorize("
		"X[vi * 4 + w] load, Z[vi * 4 + w] load store) {\n"));
	ck_assert_ptr_nonnull(strstr(t, "      for u in [0, 4) vectorize() {\n"));
	ck_assert_ptr_nonnull(strstr(t, "      for x in [0, 4) {\n"));
	ck_assert_int_eq(stir_plan_vectors(p.k), 0);
	char *again = stir_kernel_to_str(p.k);
	ck_assert_str_eq(again, t);
	free(again);
	/* the plan read back is kept as it is, and planned again the same */
	prog q = read_prog(t);
	ck_assert_int_eq(stir_plan_vectors(q.k), 0);
	again = stir_kernel_to_str(q.k);
	ck_assert_str_eq(again, t);
	free(again);
	free_prog(&q);
	free(t);
	/* stage II has no plans to make */
	prog r = read_prog("kernel w(n: i32) stage 2 {\n"
		"  buffer X: f32[n] = X;\n"
		"  for i in [0, n) {\n"
		"    X[i] = 0.0;\n"
		"  }\n"
		"}\n");
	ck_assert_int_eq(stir_plan_vectors(r.k), -1);
	char *d = test_diags_to_str(r.ctx);
	ck_assert_str_eq(d, "1:8: error: plan_vectors: kernel 'w' is at "
		"stage 2; the pass takes stage III\n");
	free(d);
	free_prog(&r);
	free_prog(&p);
}
END_TEST

/* s, from, to: s with the first "from" replaced by "to" (to free). */
static char *replace(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	ck_assert_ptr_nonnull(at);
	size_t n = strlen(s) - strlen(from) + strlen(to) + 1;
	char *r = malloc(n);
	ck_assert_ptr_nonnull(r);
	snprintf(r, n, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
	return r;
}

/* A plan written by hand that is not its loop's is refused where it is
 * written; so is a plan on a loop that cannot have one, and a plan that
 * does not read. */
START_TEST(test_plan_vectors_refused)
{
	static const struct {
		const char *from, *to, *want;
	} bad[] = {
		{ "for w in [0, 4) vectorize {",
		  "for w in [0, 4) vectorize(X[vi * 4 + w] load, "
		  "Z[vi * 4 + w] store) {",
		  "7:53: error: the vector plan of loop 'w' is not that of its "
		  "body: its vector 1 is 'store', the body's 'load store'\n" },
		{ "for w in [0, 4) vectorize {",
		  "for w in [0, 4) vectorize(X[vi * 4 + w + 1] load, "
		  "Z[vi * 4 + w] load store) {",
		  "7:33: error: the vector plan of loop 'w' is not that of its "
		  "body: its vector 0 is not the body's (an access of 'X')\n" },
		{ "for w in [0, 4) vectorize {",
		  "for w in [0, 4) vectorize(Z[vi * 4 + w] load store, "
		  "X[vi * 4 + w] load) {",
		  "7:33: error: the vector plan of loop 'w' is not that of its "
		  "body: its vector 0 is not the body's (an access of 'X')\n" },
		{ "for w in [0, 4) vectorize {",
		  "for w in [0, 4) vectorize() {",
		  "7:7: error: the vector plan of loop 'w' is not that of its "
		  "body: it has 0 vectors, the body 2\n" },
		{ "for u in [0, 4) vectorize {",
		  "for u in [0, 4) vectorize(Y[vi * 4 + u] store) {",
		  "12:7: error: the vector plan of loop 'u' is not that of its "
		  "body: it has 1 vector, the body 0\n" },
		{ "for u in [0, 4) vectorize {",
		  "for u in [0, 3) vectorize() {",
		  "12:7: error: loop 'u' has a vector plan, but only a vectorized "
		  "loop of extent 2 or 4 in a stage III kernel has one\n" },
		{ "for u in [0, 4) vectorize {",
		  "for u in [0, 4) vectorize(u load) {",
		  "12:33: error: a vector of a vector plan is an access "
		  "BUF[INDEX] of a flat buffer\n" },
		{ "for u in [0, 4) vectorize {",
		  "for u in [0, 4) vectorize(Y[u] loaded) {",
		  "12:38: error: unknown word 'loaded' in a vector plan: expected "
		  "load, store or atomic\n" },
		{ "for u in [0, 4) vectorize {",
		  "for u in [0, 4) vectorize(Y[u] horizontal) {",
		  "12:38: error: unknown word 'horizontal' in a vector plan: "
		  "expected load, store or atomic\n" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *text = replace(vec_prog, bad[i].from, bad[i].to);
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m = stir_module_read_from_mem(ctx, "k.stir", text,
			strlen(text));
		if (m)
			ck_assert_int_eq(stir_module_verify(m), -1);
		char *d = test_diags_to_str(ctx);
		/* the first diagnostic is the one wanted */
		char *nl = strchr(d, '\n');
		if (nl)
			nl[1] = '\0';
		ck_assert_str_eq(d, bad[i].want);
		free(d);
		stir_module_free(m);
		stir_ctx_free(ctx);
		free(text);
	}
}
END_TEST

/* The emitter prints the plans the loops carry: tests/cuda/vectorize.stir
 * after the rewrites, read back from its text with its plans, gives the
 * CUDA of the text without them planned by the pass; without plans, the
 * loops run as scalar loops. */
START_TEST(test_plan_vectors_cuda)
{
	prog p = load_prog("tests/cuda/vectorize.stir", "vectorize");
	ck_assert_int_eq(stir_kernel_prepare_for_gpu(p.k), 0);
	char *t = stir_kernel_to_str(p.k);
	ck_assert_ptr_nonnull(t);
	/* the text without plans: "vectorize(...)" as "vectorize" */
	char *bare = strdup(t);
	ck_assert_ptr_nonnull(bare);
	int plans = 0;
	for (char *at = bare; (at = strstr(at, " vectorize(")); plans++) {
		at += strlen(" vectorize");
		char *end = strstr(at, ") {\n");
		ck_assert_ptr_nonnull(end);
		memset(at, ' ', (size_t)(end + 1 - at));
	}
	ck_assert_int_ge(plans, 5);
	prog a = read_prog(t), b = read_prog(bare);
	char *ca = stir_kernel_to_cuda(a.k), *cb = stir_kernel_to_cuda(b.k);
	ck_assert_ptr_nonnull(ca);
	ck_assert_ptr_nonnull(cb);
	ck_assert_ptr_nonnull(strstr(ca, "vectorized: 4 lanes"));
	ck_assert_ptr_null(strstr(cb, "vectorized"));
	free(cb);
	ck_assert_int_eq(stir_plan_vectors(b.k), 0);
	cb = stir_kernel_to_cuda(b.k);
	ck_assert_ptr_nonnull(cb);
	ck_assert_str_eq(ca, cb);
	free(ca);
	free(cb);
	free_prog(&a);
	free_prog(&b);
	free(bare);
	free(t);
	free_prog(&p);
}
END_TEST

/* ---- all rewrites on the programs of tests/cuda ---------------------------- */

/* Every tests/cuda/NAME.stir: kernel NAME after the rewrites
 * (stir_kernel_prepare_for_gpu) prints a text that reads back, verifies
 * and, run by the interpreter, agrees with NAME_ref (stage I) on random
 * data; preparing again changes nothing. */
START_TEST(test_rewrites_match_references)
{
	DIR *dir = opendir(test_path("tests/cuda"));
	ck_assert_ptr_nonnull(dir);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".stir"))
			continue;
		char file[512], name[256], ref[300];
		snprintf(file, sizeof(file), "tests/cuda/%s", de->d_name);
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), de->d_name);
		snprintf(ref, sizeof(ref), "%s_ref", name);
		prog p = load_prog(file, name);
		stir_kernel *r = stir_module_find_kernel(p.m, ref);
		ck_assert_ptr_nonnull(r);
		int rc = stir_kernel_prepare_for_gpu(p.k);
		if (rc < 0)
			stir_ctx_print_diagnostics(p.ctx, stderr);
		ck_assert_int_eq(rc, 0);
		char *t = round_trip(p.k);
		ck_assert_int_eq(stir_kernel_prepare_for_gpu(p.k), 0);
		char *again = stir_kernel_to_str(p.k);
		ck_assert_str_eq(again, t);
		free(again);
		/* the text read back is what runs */
		prog q = read_prog(t);
		free(t);
		for (uint64_t seed = 1; seed <= 3; seed++) {
			stir_bindings *b = stir_bindings_alloc();
			ck_assert_int_eq(stir_kernel_bind_random(r, b, seed), 0);
			stir_bindings *want = stir_bindings_copy(b);
			rc = stir_kernel_interpret(q.k, b);
			if (rc < 0)
				stir_ctx_print_diagnostics(q.ctx, stderr);
			ck_assert_int_eq(rc, 0);
			ck_assert_int_eq(stir_kernel_interpret(r, want), 0);
			test_compare_tensors(r, b, want, file);
			stir_bindings_free(b);
			stir_bindings_free(want);
		}
		free_prog(&q);
		free_prog(&p);
		n++;
	}
	closedir(dir);
	ck_assert_int_ge(n, 10);
}
END_TEST

/* k: the CUDA of k and of its copy through its text (stir_kernel_copy,
 * which keeps the locations), which must be the same: the vector plans
 * and the hoisted lets read back are what the emitter prints. */
static void same_cuda_through_text(stir_kernel *k)
{
	stir_module *owner = NULL;
	stir_kernel *c = stir_kernel_copy(k, &owner);
	ck_assert_ptr_nonnull(c);
	char *a = stir_kernel_to_cuda(k), *b = stir_kernel_to_cuda(c);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	stir_module_free(owner);
}

/* The stage III text holds what the emitter prints: every
 * tests/cuda/NAME.stir and two scheduled examples (warp-buffer reads that
 * move, vectorized loops) after the GPU pipeline give the same CUDA as
 * their copies read back from their text. */
START_TEST(test_text_holds_the_cuda)
{
	DIR *dir = opendir(test_path("tests/cuda"));
	ck_assert_ptr_nonnull(dir);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".stir"))
			continue;
		char file[512], name[256];
		snprintf(file, sizeof(file), "tests/cuda/%s", de->d_name);
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), de->d_name);
		prog a = load_prog(file, name);
		ck_assert_int_eq(stir_kernel_prepare_for_gpu(a.k), 0);
		same_cuda_through_text(a.k);
		free_prog(&a);
		n++;
	}
	closedir(dir);
	ck_assert_int_ge(n, 10);
	static const char *const ex[][2] = {
		{ "examples/csrmm.stir", "examples/csrmm_hyb.yaml" },
		{ "examples/sddmm.stir", "examples/sddmm_fast.yaml" },
	};
	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		prog v = { stir_ctx_alloc(), NULL, NULL };
		v.m = stir_module_read_from_file(v.ctx, test_path(ex[i][0]));
		ck_assert_ptr_nonnull(v.m);
		stir_schedule *sc = stir_schedule_read_from_file(v.ctx,
			test_path(ex[i][1]));
		ck_assert_ptr_nonnull(sc);
		v.k = stir_schedule_find_kernel(sc, v.m);
		ck_assert_ptr_nonnull(v.k);
		ck_assert_int_eq(stir_schedule_prepare_for_gpu(sc, v.k), 0);
		stir_schedule_free(sc);
		char *t = stir_kernel_to_str(v.k);
		ck_assert_ptr_nonnull(strstr(t, "vectorize("));
		if (i == 0)
			ck_assert_ptr_nonnull(strstr(t, "hoisted let s = "
				"A_hyb_0_6_data_warp[c_1];\n"));
		free(t);
		same_cuda_through_text(v.k);
		free_prog(&v);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rewrite");
	TCase *tc = tcase_create("lift_guards");
	tcase_add_test(tc, test_lift_guards_text);
	tcase_add_test(tc, test_lift_guards_stays);
	tcase_add_test(tc, test_lift_guards_top_level);
	suite_add_tcase(s, tc);
	TCase *th = tcase_create("hoist_invariants");
	tcase_add_test(th, test_hoist_text);
	tcase_add_test(th, test_hoist_nested);
	tcase_add_test(th, test_hoist_let_chain);
	tcase_add_test(th, test_hoisted_let_checked);
	suite_add_tcase(s, th);
	TCase *tw = tcase_create("hoist_warp_reads");
	tcase_add_test(tw, test_hoist_warp_reads);
	tcase_add_test(tw, test_hoist_warp_reads_refused);
	tcase_add_test(tw, test_hoist_warp_reads_makes_legal);
	suite_add_tcase(s, tw);
	TCase *tv = tcase_create("plan_vectors");
	tcase_add_test(tv, test_plan_vectors_text);
	tcase_add_test(tv, test_plan_vectors_refused);
	tcase_add_test(tv, test_plan_vectors_cuda);
	suite_add_tcase(s, tv);
	TCase *ta = tcase_create("all");
	tcase_set_timeout(ta, 60);
	tcase_add_test(ta, test_rewrites_match_references);
	tcase_add_test(ta, test_text_holds_the_cuda);
	suite_add_tcase(s, ta);
	return test_run_suite(s);
}
