/* The interpreter on kernels built through the C API, against plain
 * references: CSR SpMM with init (empty rows), fused SDDMM, and the checks
 * of malformed bindings; the magnitudes of sums and the arithmetic of
 * every element type, on kernels read from text. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>
#include "tests/testutil.h"

/* m, fused_sddmm: build csrmm of LANGUAGE.md section 6 into a new kernel
 * of m. */
static stir_kernel *build_csrmm(stir_module *m, bool fused_sddmm)
{
	stir_kernel *k = stir_module_add_kernel(m, fused_sddmm ? "sddmm" : "csrmm");
	stir_var *pm = stir_kernel_add_param(k, "m", STIR_I32);
	stir_var *pn = stir_kernel_add_param(k, "n", STIR_I32);
	stir_var *pf = stir_kernel_add_param(k, "feat", STIR_I32);
	stir_var *pz = stir_kernel_add_param(k, "nnz", STIR_I32);
	stir_axis *I = stir_kernel_add_dense_fixed(k, "I", stir_expr_var(k, pm));
	stir_axis *J = stir_kernel_add_sparse_variable(k, "J", I,
		stir_expr_var(k, pn), stir_expr_var(k, pz));
	stir_axis *Jd = stir_kernel_add_dense_fixed(k, "Jd", stir_expr_var(k, pn));
	stir_axis *K = stir_kernel_add_dense_fixed(k, "K", stir_expr_var(k, pf));
	stir_axis *ij[] = { I, J }, *jk[] = { Jd, K }, *ik[] = { I, K };
	if (!fused_sddmm) {
		stir_buffer *A = stir_kernel_add_tensor(k, "A", STIR_F32, 2, ij);
		stir_buffer *B = stir_kernel_add_tensor(k, "B", STIR_F32, 2, jk);
		stir_buffer *C = stir_kernel_add_tensor(k, "C", STIR_F32, 2, ik);
		stir_iter_group g[] = {
			{ STIR_GROUP_AXIS, 1, &I, NULL, false },
			{ STIR_GROUP_AXIS, 1, &J, NULL, false },
			{ STIR_GROUP_AXIS, 1, &K, NULL, false },
		};
		const char *names[] = { "i", "j", "k" };
		stir_stmt *it = stir_stmt_iter(k, "csrmm", 3, g, 3, names, "SRS");
		stir_expr *i = stir_expr_var(k, stir_stmt_iter_get_var(it, 0));
		stir_expr *j = stir_expr_var(k, stir_stmt_iter_get_var(it, 1));
		stir_expr *kk = stir_expr_var(k, stir_stmt_iter_get_var(it, 2));
		stir_expr *cik[] = { i, kk }, *aij[] = { i, j }, *bjk[] = { j, kk };
		stir_stmt_iter_append_init(it, stir_stmt_store(k, C, 2, cik,
			STIR_STORE_ASSIGN, stir_expr_float(k, 0.0)));
		stir_stmt_iter_append_body(it, stir_stmt_store(k, C, 2, cik,
			STIR_STORE_ADD, stir_expr_binary(k, STIR_MUL,
				stir_expr_load(k, A, 2, aij),
				stir_expr_load(k, B, 2, bjk))));
		ck_assert_int_eq(stir_kernel_append_stmt(k, it), 0);
		return k;
	}
	stir_buffer *X = stir_kernel_add_tensor(k, "X", STIR_F32, 2, ik);
	stir_buffer *Y = stir_kernel_add_tensor(k, "Y", STIR_F32, 2, jk);
	stir_buffer *S = stir_kernel_add_tensor(k, "S", STIR_F32, 2, ij);
	stir_iter_group g[] = {
		{ STIR_GROUP_FUSE, 2, ij, NULL, false },
		{ STIR_GROUP_AXIS, 1, &K, NULL, false },
	};
	const char *names[] = { "i", "j", "k" };
	stir_stmt *it = stir_stmt_iter(k, "sddmm", 2, g, 3, names, "SSR");
	stir_expr *i = stir_expr_var(k, stir_stmt_iter_get_var(it, 0));
	stir_expr *j = stir_expr_var(k, stir_stmt_iter_get_var(it, 1));
	stir_expr *kk = stir_expr_var(k, stir_stmt_iter_get_var(it, 2));
	stir_expr *sij[] = { i, j }, *xik[] = { i, kk }, *yjk[] = { j, kk };
	stir_stmt_iter_append_init(it, stir_stmt_store(k, S, 2, sij,
		STIR_STORE_ASSIGN, stir_expr_float(k, 0.0)));
	stir_stmt_iter_append_body(it, stir_stmt_store(k, S, 2, sij,
		STIR_STORE_ADD, stir_expr_binary(k, STIR_MUL,
			stir_expr_load(k, X, 2, xik), stir_expr_load(k, Y, 2, yjk))));
	ck_assert_int_eq(stir_kernel_append_stmt(k, it), 0);
	return k;
}

/* b, name: element i of array "name" as a double. */
static double at(stir_bindings *b, const char *name, int64_t i)
{
	return stir_array_get_double(stir_bindings_get_array(b, name), i);
}

static int64_t size(stir_bindings *b, const char *name)
{
	int64_t v = -1;
	ck_assert(stir_bindings_get_size(b, name, &v));
	return v;
}

START_TEST(test_csrmm_random)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m = stir_module_alloc(ctx);
		stir_kernel *k = build_csrmm(m, false);
		stir_bindings *b = stir_bindings_alloc();
		ck_assert_int_eq(stir_kernel_bind_random(k, b, seed), 0);
		stir_bindings *in = stir_bindings_copy(b);
		ck_assert_int_eq(stir_kernel_interpret(k, b), 0);
		ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
		int64_t M = size(b, "m"), N = size(b, "n"), F = size(b, "feat");
		bool empty_row = false;
		/* dense reference: C = dense(A) * B in double */
		for (int64_t i = 0; i < M; i++) {
			int64_t lo = (int64_t)at(in, "J.indptr", i);
			int64_t hi = (int64_t)at(in, "J.indptr", i + 1);
			empty_row |= lo == hi;
			for (int64_t f = 0; f < F; f++) {
				double dense_row_dot = 0;
				for (int64_t c = 0; c < N; c++) {
					double a = 0;
					for (int64_t p = lo; p < hi; p++)
						if ((int64_t)at(in, "J.indices", p) == c)
							a = at(in, "A", p);
					dense_row_dot += a * at(in, "B", c * F + f);
				}
				ck_assert_double_eq_tol(at(b, "C", i * F + f),
					dense_row_dot, 1e-5);
			}
		}
		ck_assert_msg(M < 3 || empty_row, "random data has no empty row");
		stir_bindings_free(in);
		stir_bindings_free(b);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
}
END_TEST

START_TEST(test_sddmm_fused_random)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m = stir_module_alloc(ctx);
		stir_kernel *k = build_csrmm(m, true);
		stir_bindings *b = stir_bindings_alloc();
		ck_assert_int_eq(stir_kernel_bind_random(k, b, seed), 0);
		stir_bindings *in = stir_bindings_copy(b);
		ck_assert_int_eq(stir_kernel_interpret(k, b), 0);
		int64_t M = size(b, "m"), F = size(b, "feat");
		for (int64_t i = 0; i < M; i++) {
			for (int64_t p = (int64_t)at(in, "J.indptr", i);
			     p < (int64_t)at(in, "J.indptr", i + 1); p++) {
				int64_t j = (int64_t)at(in, "J.indices", p);
				double s = 0;
				for (int64_t f = 0; f < F; f++)
					s += at(in, "X", i * F + f) * at(in, "Y", j * F + f);
				ck_assert_double_eq_tol(at(b, "S", p), s, 1e-5);
			}
		}
		stir_bindings_free(in);
		stir_bindings_free(b);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
}
END_TEST

/* Run csrmm after "spoil" damages one array; expect one error whose
 * message starts with "msg". */
static void expect_binding_error(void (*spoil)(stir_bindings *), const char *msg)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_alloc(ctx);
	stir_kernel *k = build_csrmm(m, false);
	stir_bindings *b = stir_bindings_alloc();
	stir_bindings_set_size(b, "m", 4);
	stir_bindings_set_size(b, "n", 5);
	stir_bindings_set_size(b, "feat", 2);
	ck_assert_int_eq(stir_kernel_bind_random(k, b, 7), 0);
	spoil(b);
	ck_assert_int_eq(stir_kernel_interpret(k, b), -1);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	const char *got = stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 0));
	ck_assert_msg(!strncmp(got, msg, strlen(msg)), "got '%s'", got);
	stir_bindings_free(b);
	stir_module_free(m);
	stir_ctx_free(ctx);
}

static void spoil_indptr_order(stir_bindings *b)
{
	stir_array *a = stir_bindings_get_array(b, "J.indptr");
	stir_array_set_int(a, 2, stir_array_get_int(a, 1) - 1);
}

static void spoil_indptr_end(stir_bindings *b)
{
	stir_array *a = stir_bindings_get_array(b, "J.indptr");
	stir_array_set_int(a, 4, stir_array_get_int(a, 4) + 1);
}

static void spoil_indices_range(stir_bindings *b)
{
	stir_array_set_int(stir_bindings_get_array(b, "J.indices"), 0, 5);
}

static void spoil_missing(stir_bindings *b)
{
	stir_bindings_remove_array(b, "B");
}

static void spoil_type(stir_bindings *b)
{
	int64_t n = stir_array_get_len(stir_bindings_get_array(b, "J.indptr"));
	stir_ctx *ctx = stir_ctx_alloc();
	stir_bindings_set_array(b, "J.indptr", stir_array_alloc(ctx, STIR_I64, 1, &n));
	stir_ctx_free(ctx);
}

START_TEST(test_bad_bindings)
{
	expect_binding_error(spoil_indices_range,
		"array 'J.indices': entry 0 is 5, outside [0, 5)");
	expect_binding_error(spoil_missing, "array 'B' is not bound");
	expect_binding_error(spoil_type,
		"array 'J.indptr' has type i64, expected i32");
	expect_binding_error(spoil_indptr_end,
		"array 'J.indptr': last entry is ");
	expect_binding_error(spoil_indptr_order,
		"array 'J.indptr': entry 2 is ");
}
END_TEST

/* text, want: interpreting the first kernel of "text" with m = 3 fails
 * with the one diagnostic "want" ("LINE:COL: error: MESSAGE"). */
static void expect_size_error(const char *text, const char *want)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_mem(ctx, "t.stir", text,
		strlen(text));
	ck_assert_ptr_nonnull(m);
	stir_bindings *b = stir_bindings_alloc();
	stir_bindings_set_size(b, "m", 3);
	ck_assert_int_eq(stir_kernel_interpret(stir_module_get_kernel(m, 0), b),
		-1);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 1);
	const stir_diag *d = stir_ctx_get_diagnostic(ctx, 0);
	char got[256];
	snprintf(got, sizeof(got), "%d:%d: error: %s", stir_diag_get_loc(d).line,
		stir_diag_get_loc(d).col, stir_diag_get_message(d));
	ck_assert_str_eq(got, want);
	stir_bindings_free(b);
	stir_module_free(m);
	stir_ctx_free(ctx);
}

/* A negative extent is said so, at the extent (it was "'P' has too many
 * elements"); a local too large for memory's address range is named and
 * located (it was "array size out of range", with neither). */
START_TEST(test_buffer_size_errors)
{
	expect_size_error(
		"kernel k(m: i32) stage 3 {\n"
		"  buffer P: f32[m - 10] = P;\n"
		"  for i in [0, m) { P[i] = 1.0; }\n"
		"}\n",
		"2:19: error: extent of buffer 'P' is negative (-7)");
	expect_size_error(
		"kernel k(m: i32) {\n"
		"  axis I = dense_fixed(m);\n"
		"  axis B = dense_fixed(1300000000);\n"
		"  axis C = dense_fixed(1300000000);\n"
		"  tensor P: f32[I];\n"
		"  local L: f32[B, I, C];\n"
		"  iter it (i) in [I] \"S\" { L[0, i, 0] = 1.0; }\n"
		"}\n",
		"6:9: error: 'L' has too many elements (5070000000000000000 of "
		"4 bytes)");
}
END_TEST

/* from, v, to, want: converting a one-element array of type "from"
 * holding v (set as a double) to "to" fails with "want", or succeeds with
 * the same value when want is NULL. */
static void expect_convert(stir_dtype from, double v, stir_dtype to,
	const char *want)
{
	stir_ctx *ctx = stir_ctx_alloc();
	int64_t n = 1;
	stir_array *a = stir_array_alloc(ctx, from, 1, &n);
	stir_array_set_double(a, 0, v);
	stir_array *c = stir_array_convert(ctx, a, to);
	char *d = stir_ctx_diagnostics_to_str(ctx);
	if (want) {
		ck_assert_ptr_null(c);
		ck_assert_msg(strstr(d, want), "expected '%s' in '%s'", want, d);
	} else {
		ck_assert_ptr_nonnull(c);
		ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
		ck_assert(stir_array_get_double(c, 0) == v ||
			(isnan(v) && isnan(stir_array_get_double(c, 0))));
	}
	free(d);
	stir_array_free(c);
	stir_array_free(a);
	stir_ctx_free(ctx);
}

/* 64-bit integers: a = 2^32 + 1, set through set_int. */
START_TEST(test_convert_checked)
{
	stir_ctx *ctx = stir_ctx_alloc();
	int64_t n = 1;
	stir_array *a = stir_array_alloc(ctx, STIR_I64, 1, &n);
	stir_array_set_int(a, 0, 4294967297LL);
	ck_assert_ptr_null(stir_array_convert(ctx, a, STIR_I32));
	char *d = stir_ctx_diagnostics_to_str(ctx);
	ck_assert_str_eq(d, "error: entry 0 is 4294967297 (i64), which is out "
		"of the range of i32\n");
	free(d);
	stir_array_set_int(a, 0, INT64_MAX);
	stir_array *f = stir_array_convert(ctx, a, STIR_F64);
	ck_assert_ptr_nonnull(f); /* rounded, as values may be */
	stir_array_free(f);
	stir_array_free(a);
	stir_ctx_free(ctx);

	expect_convert(STIR_F64, 2.5, STIR_I32, "entry 0 is 2.5 (f64), which "
		"is not exactly representable in i32");
	expect_convert(STIR_F32, 0.1f, STIR_I64, "entry 0 is 0.1 (f32)");
	expect_convert(STIR_F64, NAN, STIR_I64, "entry 0 is nan (f64)");
	expect_convert(STIR_F64, -INFINITY, STIR_I32, "entry 0 is -inf (f64)");
	expect_convert(STIR_F64, 9223372036854775808.0, STIR_I64,
		"entry 0 is 9.223372036854776e+18 (f64), which is out of the range of i64");
	expect_convert(STIR_F64, 3e9, STIR_I32, "entry 0 is 3000000000 (f64), which is out of the range of i32");
	expect_convert(STIR_I32, 200, STIR_I8, "entry 0 is 200 (i32), which is "
		"out of the range of i8");
	expect_convert(STIR_I32, 2, STIR_BOOL, "entry 0 is 2 (i32)");
	expect_convert(STIR_F64, 1e300, STIR_F32, "entry 0 is 1e+300 (f64), "
		"which overflows f32");
	expect_convert(STIR_F32, 70000, STIR_F16, "which overflows f16");
	expect_convert(STIR_F64, 7.0, STIR_I8, NULL);
	expect_convert(STIR_F64, -2147483648.0, STIR_I32, NULL);
	expect_convert(STIR_F16, 3.0, STIR_I32, NULL);
	expect_convert(STIR_I32, 1, STIR_BOOL, NULL);
	expect_convert(STIR_F64, NAN, STIR_F32, NULL);
	expect_convert(STIR_F64, INFINITY, STIR_F16, NULL);
}
END_TEST

/* text, x, n, want: the magnitudes (stir_kernel_interpret_magnitudes) of
 * Y in the first kernel of "text", run with m = n on X = x (n values),
 * are "want" (n values); want NULL: the kernel's magnitudes are unknown
 * (the call answers 1). */
static void expect_magnitudes(const char *text, const double *x, int n,
	const double *want)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_mem(ctx, "t.stir", text,
		strlen(text));
	ck_assert_ptr_nonnull(m);
	stir_bindings *b = stir_bindings_alloc();
	int64_t len = n;
	stir_array *a = stir_array_alloc(ctx, STIR_F32, 1, &len);
	for (int i = 0; i < n; i++)
		stir_array_set_double(a, i, x[i]);
	stir_bindings_set_size(b, "m", n);
	stir_bindings_set_array(b, "X", a);
	stir_bindings_set_array(b, "Y", stir_array_alloc(ctx, STIR_F32, 1,
		&len));
	int rc = stir_kernel_interpret_magnitudes(stir_module_get_kernel(m, 0),
		b);
	ck_assert_int_eq(rc, want ? 0 : 1);
	const stir_array *y = stir_bindings_get_array(b, "Y");
	for (int i = 0; want && i < n; i++)
		ck_assert_double_eq_tol(stir_array_get_double(y, i), want[i],
			1e-6);
	stir_bindings_free(b);
	stir_module_free(m);
	stir_ctx_free(ctx);
}

/* The magnitudes of a kernel's sums: subtractions add, negations drop,
 * min is max (a ReLU keeps its operand's scale); exp is unknown. */
START_TEST(test_magnitudes)
{
	static const double x[] = { 3, -5, 0.5 };
	static const double relu[] = { 8, 10, 5.5 };
	expect_magnitudes("kernel k(m: i32) {\n  axis I = dense_fixed(m);\n"
		"  tensor X: f32[I];\n  tensor Y: f32[I];\n"
		"  iter s (i) in [I] \"S\" { Y[i] = max(X[i] - 5.0, 0.0); }\n}\n",
		x, 3, relu);
	static const double lo[] = { 6, 10, 1 };
	expect_magnitudes("kernel k(m: i32) {\n  axis I = dense_fixed(m);\n"
		"  tensor X: f32[I];\n  tensor Y: f32[I];\n"
		"  iter s (i) in [I] \"S\" { Y[i] = min(-X[i], X[i] + X[i]); }\n}\n",
		x, 3, lo);
	expect_magnitudes("kernel k(m: i32) {\n  axis I = dense_fixed(m);\n"
		"  tensor X: f32[I];\n  tensor Y: f32[I];\n"
		"  iter s (i) in [I] \"S\" { Y[i] = exp(X[i]); }\n}\n",
		x, 3, NULL);
}
END_TEST

/* x: x rounded to f16, bf16 and f32 (the public conversions). */
static double to_f16(double x)
{
	return stir_f16_to_double(stir_f16_from_double(x));
}

static double to_bf16(double x)
{
	return stir_bf16_to_double(stir_bf16_from_double(x));
}

static double to_f32(double x)
{
	return (float)x;
}

/* Every element type of a tensor read and updated in place, X[i] +=
 * X[i] * 3, each in its own arithmetic (the interpreter reads and writes
 * f32, f64, i32 and i64 in place and f16, bf16 and i8 through the array):
 * floats round after each operation, integers wrap. */
START_TEST(test_element_types)
{
	static const char text[] = "kernel k(m: i32) {\n"
		"  axis I = dense_fixed(m);\n"
		"  tensor H: f16[I];\n  tensor B: bf16[I];\n  tensor F: f32[I];\n"
		"  tensor D: f64[I];\n  tensor C: i8[I];\n  tensor N: i32[I];\n"
		"  tensor L: i64[I];\n"
		"  iter s (i) in [I] \"S\" {\n"
		"    H[i] += H[i] * 3.0;\n    B[i] += B[i] * 3.0;\n"
		"    F[i] += F[i] * 3.0;\n    D[i] += D[i] * 3.0;\n"
		"    C[i] += C[i] * 3;\n    N[i] += N[i] * 3;\n"
		"    L[i] += L[i] * 3;\n  }\n}\n";
	static const struct {
		const char *name;
		stir_dtype t;
		double x;
	} in[] = {
		{ "H", STIR_F16, 0.1 }, { "B", STIR_BF16, 0.1 },
		{ "F", STIR_F32, 0.1 }, { "D", STIR_F64, 0.1 },
		{ "C", STIR_I8, 100 }, { "N", STIR_I32, 1073741824.0 },
		{ "L", STIR_I64, 5e15 },
	};
	double h = to_f16(0.1), bf = to_bf16(0.1), f = to_f32(0.1);
	const double want[] = {
		to_f16(h + to_f16(3 * h)), to_bf16(bf + to_bf16(3 * bf)),
		to_f32(f + to_f32(3 * f)), 0.1 + 0.1 * 3,
		-112,   /* 100 * 3 wraps to 44 in i8, 100 + 44 to -112 */
		0,      /* 2^30 * 3 wraps to -2^30 in i32 */
		2e16,
	};
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_mem(ctx, "t.stir", text,
		strlen(text));
	ck_assert_ptr_nonnull(m);
	stir_bindings *b = stir_bindings_alloc();
	int64_t len = 2;
	stir_bindings_set_size(b, "m", len);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		stir_array *a = stir_array_alloc(ctx, in[i].t, 1, &len);
		stir_array_set_double(a, 1, in[i].x);
		stir_bindings_set_array(b, in[i].name, a);
	}
	ck_assert_int_eq(stir_kernel_interpret(stir_module_get_kernel(m, 0), b),
		0);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		const stir_array *a = stir_bindings_get_array(b, in[i].name);
		ck_assert_double_eq(stir_array_get_double(a, 0), 0);
		ck_assert_msg(stir_array_get_double(a, 1) == want[i],
			"%s: %.17g, want %.17g", in[i].name,
			stir_array_get_double(a, 1), want[i]);
	}
	stir_bindings_free(b);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("interp_capi");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_csrmm_random);
	tcase_add_test(tc, test_sddmm_fused_random);
	tcase_add_test(tc, test_bad_bindings);
	tcase_add_test(tc, test_buffer_size_errors);
	tcase_add_test(tc, test_convert_checked);
	tcase_add_test(tc, test_magnitudes);
	tcase_add_test(tc, test_element_types);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
