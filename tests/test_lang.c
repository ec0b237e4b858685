/* Tests of the front end: scanner, grammar, builder, printer, equality.
 *
 * Expected texts, messages and locations are written out by hand from the
 * rules of docs/language.md, not captured from the implementation. */
#include <pthread.h>
#include <stir/lang.h>
#include <stir/passes.h>
#include "ir/nodes.h"
#include "lang/ast.h"
#include "tests/testdiag.h"
#include "tests/testlang.h"

static const char *const catalogue[] = {
	"bsrmm", "csf_square_sum", "csr2bsr", "csr_softmax", "csrmm",
	"ellmv", "rgcn_homo", "rgms", "sddmm", "sddmm_rows", "segment_sum",
};
#define N_CATALOGUE (sizeof(catalogue) / sizeof(catalogue[0]))

/* name: the path of examples/NAME.stir in a static buffer. */
static const char *example_path(const char *name)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "examples/%s.stir", name);
	return test_path(rel);
}

/* ---- the catalogue ---- */

START_TEST(test_catalogue_round_trip)
{
	const char *name = catalogue[_i];
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx, example_path(name));
	if (!m)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	ck_assert_int_eq(stir_module_n_kernels(m), 1);
	ck_assert_str_eq(stir_kernel_get_name(stir_module_get_kernel(m, 0)), name);
	test_check_round_trip(m);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_golden_csrmm)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx, example_path("csrmm"));
	ck_assert_ptr_nonnull(m);
	char *s = stir_module_to_str(m);
	ck_assert_str_eq(s,
		"kernel csrmm(m: i32, n: i32, feat: i32, nnz: i32) {\n"
		"  axis I = dense_fixed(m);\n"
		"  axis J = sparse_variable(I, n, nnz);\n"
		"  axis Jd = dense_fixed(n);\n"
		"  axis K = dense_fixed(feat);\n"
		"  tensor A: f32[I, J];\n"
		"  tensor B: f32[Jd, K];\n"
		"  tensor C: f32[I, K];\n"
		"  iter csrmm (i, j, k) in [I, J, K] \"SRS\" {\n"
		"    init {\n"
		"      C[i, k] = 0.0;\n"
		"    }\n"
		"    C[i, k] += A[i, j] * B[j, k];\n"
		"  }\n"
		"}\n");
	char *k = stir_kernel_to_str(stir_module_get_kernel(m, 0));
	ck_assert_str_eq(k, s);
	free(k);
	free(s);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* Every construct of the language, in canonical form already: printing
 * must give back exactly this text. */
static const char everything[] =
	"kernel all(m: i32, n: i64, nnz: i32, c: i32) {\n"
	"  axis I = dense_fixed(m * 2 + 1);\n"
	"  axis J = sparse_variable(I, n, nnz, idtype = i64, sorted = false);\n"
	"  axis K = sparse_fixed(I, n, c);\n"
	"  axis L = dense_variable(I, 8, nnz, sorted = false);\n"
	"  axis P = dense_fixed(4);\n"
	"  local T: f64[I];\n"
	"  tensor A: f32[I, J];\n"
	"  tensor B: f16[I, K];\n"
	"  tensor E: i64[I, L] in [-1, m - (2 - 1));\n"
	"  iter a (q, i, j, p) in [P, fuse(I, J), attach(K, P)] \"SSRS\" {\n"
	"    init {\n"
	"      T[i] = 0.0;\n"
	"    }\n"
	"    let x = -(i + 1) * 2 - (3 - j % 4);\n"
	"    let y = x > 3 && !(x < 2) || x == 0 ? 0.0025 : -0.0;\n"
	"    if (x != 2) {\n"
	"      T[i] += f64(A[i, j]) * 2.0;\n"
	"    } else if (x <= -1) {\n"
	"      T[i] -= f64(abs(A[i, j]));\n"
	"    } else {\n"
	"      T[i] *= 1e+20;\n"
	"      if (true) {\n"
	"      } else {\n"
	"        T[i] = f64(sqrt(exp(log(tanh(1.0)))));\n"
	"      }\n"
	"    }\n"
	"    A[i, j] = min(max(A[i, j], 0.1), inf) / (1.0 / 3.0);\n"
	"    E[i, x] = i64(c) - -5 + i64(i32(y));\n"
	"    A[i, j] = y > 0.0 ? 1.0 : y < 0.0 ? -inf : 3;\n"
	"    A[i, j] = (y > 0.0 ? x > 1 : false) ? 3.0 : 4.0;\n"
	"    A[i, j] = -(-y);\n"
	"  }\n"
	"  iter b (i) in [I] \"S\" {\n"
	"  }\n"
	"}\n"
	"\n"
	"kernel second() {\n"
	"}\n";

START_TEST(test_print_everything)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = test_read_str(ctx, everything);
	if (!m)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(m);
	char *s = stir_module_to_str(m);
	ck_assert_str_eq(s, everything);
	free(s);
	test_check_round_trip(m);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* A program written loosely (comments, extra parentheses, spacing,
 * literal spellings, else { if }) prints in canonical form. */
START_TEST(test_print_canonical)
{
	const char *in =
		"/* block\n comment */ kernel k(m: i32) { // line comment\n"
		"axis I=dense_fixed(m);tensor A:f32[I];\n"
		"iter x(i)in[I]\"S\"{ init{} A[i]=((1.)+.5)*(2.5e-3-(1e5)); "
		"if(i<2){A[i]=-1;}else{if(i>3){A[i]=(i==0)?1.0:2.0;}}\n"
		"A[i] = (A[i] - A[i]) - (A[i] - A[i]); A[i] = -0.5 * 1;}}";
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = test_read_str(ctx, in);
	ck_assert_ptr_nonnull(m);
	char *s = stir_module_to_str(m);
	ck_assert_str_eq(s,
		"kernel k(m: i32) {\n"
		"  axis I = dense_fixed(m);\n"
		"  tensor A: f32[I];\n"
		"  iter x (i) in [I] \"S\" {\n"
		"    A[i] = (1.0 + 0.5) * (0.0025 - 1e+05);\n"
		"    if (i < 2) {\n"
		"      A[i] = -1;\n"
		"    } else if (i > 3) {\n"
		"      A[i] = i == 0 ? 1.0 : 2.0;\n"
		"    }\n"
		"    A[i] = A[i] - A[i] - (A[i] - A[i]);\n"
		"    A[i] = -0.5 * 1;\n"
		"  }\n"
		"}\n");
	free(s);
	test_check_round_trip(m);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* Float literals print with the shortest precision that reads back. */
START_TEST(test_print_floats)
{
	static const struct {
		double v;
		const char *text;
	} cases[] = {
		{ 0.0, "0.0" }, { -0.0, "-0.0" }, { 1.0, "1.0" }, { 0.1, "0.1" },
		{ 2.5e-3, "0.0025" }, { 1e20, "1e+20" }, { 123456789.0, "123456789.0" },
		{ 1.0 / 3.0, "0.3333333333333333" }, { 5e-324, "5e-324" },
		{ -1.5e300, "-1.5e+300" }, { 1.0 / 0.0, "inf" }, { -1.0 / 0.0, "-inf" },
	};
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_alloc(ctx);
	stir_kernel *k = stir_module_add_kernel(m, "k");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = stir_expr_to_str(stir_expr_float(k, cases[i].v));
		ck_assert_str_eq(s, cases[i].text);
		free(s);
	}
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* A module built through the API prints as text that reads back equal. */
START_TEST(test_print_api_module)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_alloc(ctx);
	stir_kernel *k = stir_module_add_kernel(m, "api");
	stir_var *n = stir_kernel_add_param(k, "n", STIR_I64);
	stir_axis *I = stir_kernel_add_dense_fixed(k, "I", stir_expr_var(k, n));
	stir_buffer *x = stir_kernel_add_tensor(k, "x", STIR_F64, 1, &I);
	const char *vars[] = { "i" };
	stir_iter_group g = { STIR_GROUP_AXIS, 1, &I, NULL, false };
	stir_stmt *it = stir_stmt_iter(k, "s", 1, &g, 1, vars, "S");
	stir_expr *idx = stir_expr_var(k, stir_stmt_iter_get_var(it, 0));
	stir_expr *val = stir_expr_binary(k, STIR_MUL, stir_expr_float(k, 0.1),
		stir_expr_int(k, 3));
	stir_stmt_iter_append_body(it, stir_stmt_store(k, x, 1, &idx,
		STIR_STORE_ASSIGN, val));
	stir_kernel_append_stmt(k, it);
	char *s = stir_module_to_str(m);
	ck_assert_str_eq(s,
		"kernel api(n: i64) {\n"
		"  axis I = dense_fixed(n);\n"
		"  tensor x: f64[I];\n"
		"  iter s (i) in [I] \"S\" {\n"
		"    x[i] = 0.1 * 3;\n"
		"  }\n"
		"}\n");
	free(s);
	test_check_round_trip(m);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- equality ---- */

START_TEST(test_equal)
{
	const char *base =
		"kernel k(m: i32) { axis I = dense_fixed(m); tensor A: f32[I];\n"
		"  iter x (i) in [I] \"S\" { A[i] = 1.0; } }";
	const char *variants[] = {
		"kernel k(m: i32) { axis I = dense_fixed(m); tensor A: f32[I];\n"
		"  iter x (i) in [I] \"S\" { A[i] = 2.0; } }",
		"kernel k(m: i64) { axis I = dense_fixed(m); tensor A: f32[I];\n"
		"  iter x (i) in [I] \"S\" { A[i] = 1.0; } }",
		"kernel k(m: i32) { axis I = dense_fixed(m); tensor A: f64[I];\n"
		"  iter x (i) in [I] \"S\" { A[i] = 1.0; } }",
		"kernel k(m: i32) { axis I = dense_fixed(m); tensor A: f32[I];\n"
		"  iter y (i) in [I] \"S\" { A[i] = 1.0; } }",
		"kernel k(m: i32) { axis I = dense_fixed(m); tensor A: f32[I];\n"
		"  iter x (i) in [I] \"R\" { A[i] = 1.0; } }",
		"kernel k(m: i32) { axis I = dense_fixed(m); tensor A: f32[I];\n"
		"  iter x (j) in [I] \"S\" { A[j] = 1.0; } }",
		"kernel k(m: i32) { axis I = dense_fixed(m); local A: f32[I];\n"
		"  iter x (i) in [I] \"S\" { A[i] = 1.0; } }",
		"kernel k(m: i32) { axis I = dense_fixed(m); tensor A: f32[I];\n"
		"  iter x (i) in [I] \"S\" { A[i] += 1.0; } }",
		"kernel k(m: i32) { axis I = dense_fixed(m); tensor A: f32[I];\n"
		"  iter x (i) in [I] \"S\" { A[i] = -0.0 + 1.0; } }",
		"kernel k(m: i32) { axis I = dense_fixed(m + 0); tensor A: f32[I];\n"
		"  iter x (i) in [I] \"S\" { A[i] = 1.0; } }",
		"kernel k2(m: i32) { axis I = dense_fixed(m); tensor A: f32[I];\n"
		"  iter x (i) in [I] \"S\" { A[i] = 1.0; } }",
	};
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *a = test_read_str(ctx, base);
	/* the same program spelled differently: locations differ */
	stir_module *b = test_read_str(ctx,
		"kernel k(m: i32) {\n\n axis I = dense_fixed((m));\n tensor A: f32[I];\n"
		"  iter x (i) in [I] \"S\" {\n\n A[i] = 1.; } }");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert(stir_module_is_equal(a, b));
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		stir_module *v = test_read_str(ctx, variants[i]);
		ck_assert_ptr_nonnull(v);
		ck_assert_msg(!stir_module_is_equal(a, v), "variant %zu", i);
		ck_assert_msg(!stir_module_is_equal(v, a), "variant %zu", i);
		stir_module_free(v);
	}
	ck_assert(!stir_module_is_equal(a, NULL));
	ck_assert(stir_module_is_equal(NULL, NULL));
	stir_module_free(a);
	stir_module_free(b);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- errors ---- */

/* The location and message of one diagnostic. */
typedef struct expect {
	int line, col;
	const char *msg;
} expect;

/* text, n, want: reading text fails with exactly these n errors. */
static void check_errors(const char *text, int n, const expect *want)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = test_read_str(ctx, text);
	ck_assert_ptr_null(m);
	if (stir_ctx_n_diagnostics(ctx) != n)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), n);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), n);
	for (int i = 0; i < n; i++) {
		const stir_diag *d = stir_ctx_get_diagnostic(ctx, i);
		stir_loc l = stir_diag_get_loc(d);
		ck_assert_str_eq(stir_diag_get_message(d), want[i].msg);
		ck_assert_str_eq(l.file, "t.stir");
		ck_assert_int_eq(l.line, want[i].line);
		ck_assert_int_eq(l.col, want[i].col);
	}
	stir_ctx_free(ctx);
}

/* text, line, col, msg: reading text fails with this one error. */
static void check_error(const char *text, int line, int col, const char *msg)
{
	expect e = { line, col, msg };
	check_errors(text, 1, &e);
}

START_TEST(test_error_missing_semicolon)
{
	check_error(
		"kernel k(m: i32) {\n"
		"  axis I = dense_fixed(m)\n"
		"  tensor A: f32[I];\n"
		"}\n",
		3, 3, "syntax error, unexpected tensor, expecting ';'");
}
END_TEST

START_TEST(test_error_unexpected_token)
{
	check_error(
		"kernel k(m: i32) {\n"
		"  axis I = dense_fixed(m);\n"
		"  tensor A: f32[I] = 3;\n"
		"}\n",
		3, 20, "syntax error, unexpected '=', expecting in or distinct or ';'");
	check_error("kernel k(m: i32) { iter x (i) in [I] S { } }",
		1, 38, "syntax error, unexpected identifier, expecting string");
	check_error("kernel k() {", 1, 13,
		"syntax error, unexpected end of file");
}
END_TEST

START_TEST(test_error_unterminated_comment)
{
	check_error(
		"kernel k(m: i32) {\n"
		"  /* a comment\n"
		"     that never ends\n",
		2, 3, "unterminated comment");
}
END_TEST

START_TEST(test_error_bad_character)
{
	check_error(
		"kernel k(m: i32) {\n"
		"\taxis I = dense_fixed(m # 2);\n"
		"}\n",
		2, 25, "unexpected character '#'");
	/* control bytes are found before the scanner runs, named as in
	 * every other text input (docs/formats.md) */
	check_error("kernel k(m: i32) { let x = \x01; }", 1, 28,
		"control character 0x01 in the program");
	check_error("kernel k\xc3\xa9(m: i32) { }", 1, 9, "non-ASCII character");
}
END_TEST

START_TEST(test_error_strings)
{
	check_error("kernel k() { iter x (i) in [I] \"SR { } }", 1, 32,
		"unterminated string");
	check_error("kernel k() { iter x (i) in [I] \"S\\R\" { } }", 1, 34,
		"invalid character in string");
}
END_TEST

START_TEST(test_error_integer_too_large)
{
	/* INT64_MAX is fine; one more is not */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = test_read_str(ctx,
		"kernel k(m: i64) { axis I = dense_fixed(9223372036854775807); }");
	ck_assert_ptr_nonnull(m);
	stir_module_free(m);
	stir_ctx_free(ctx);
	check_error(
		"kernel k(m: i64) {\n"
		"  axis I = dense_fixed(9223372036854775808);\n"
		"}\n",
		2, 24, "integer literal too large");
}
END_TEST

START_TEST(test_error_init_not_first)
{
	const expect want[] = {
		{ 5, 5, "init must be the first statement of an iteration body" },
		{ 9, 7, "init must be the first statement of an iteration body" },
		{ 11, 3, "init must be the first statement of an iteration body" },
	};
	check_errors(
		"kernel k(m: i32) {\n"
		"  axis I = dense_fixed(m);\n"
		"  iter x (i) in [I] \"S\" {\n"
		"    let a = 1;\n"
		"    init { }\n"
		"  }\n"
		"  iter y (i) in [I] \"S\" {\n"
		"    if (true) {\n"
		"      init { }\n"
		"    } }\n"
		"  init { }\n"
		"}\n", 3, want);
}
END_TEST

START_TEST(test_error_several)
{
	const expect want[] = {
		{ 3, 3, "syntax error, unexpected tensor, expecting ';'" },
		{ 5, 17, "syntax error, unexpected ';'" },
		{ 6, 15, "unexpected character '@'" },
		{ 9, 12, "syntax error, unexpected '{', expecting identifier or ')'" },
		{ 10, 11, "syntax error, unexpected ';'" },
		{ 12, 39, "syntax error, unexpected identifier, expecting string" },
	};
	check_errors(
		"kernel k(m: i32) {\n"
		"  axis I = dense_fixed(m)\n"
		"  tensor A: f32[I];\n"
		"  iter x (i) in [I] \"S\" {\n"
		"    A[i] = 1.0 +;\n"
		"    let y = 2 @ 3;\n"
		"  }\n"
		"}\n"
		"kernel k2( {\n"
		"  let z = ;\n"
		"}\n"
		"kernel k3(m: i32) { iter q (i) in [I] S { A[i] = 1; } }\n",
		6, want);
}
END_TEST

START_TEST(test_error_names)
{
	const expect want[] = {
		{ 6, 12, "undefined name 'q'" },
		{ 6, 16, "tensor 'A' used without an index" },
		{ 7, 12, "axis 'I' used as a value" },
		{ 7, 16, "unknown function 'foo'" },
		{ 7, 25, "parameter 'm' cannot be indexed" },
		{ 7, 32, "type name 'f32' used as a value" },
		{ 8, 5, "undefined name 'Z'" },
		{ 8, 12, "local 'T' used without an index" },
		{ 9, 12, "undefined name 'j'" },
	};
	check_errors(
		"kernel k(m: i32) {\n"
		"  axis I = dense_fixed(m);\n"
		"  tensor A: f32[I];\n"
		"  local T: f32[I];\n"
		"  iter x (i) in [I] \"S\" {\n"
		"    A[i] = q + A;\n"
		"    A[i] = I + foo(i) + m[i] + f32;\n"
		"    Z[i] = T;\n"
		"  } A[0] = j;\n"
		"}\n", 9, want);
}
END_TEST

START_TEST(test_error_declarations)
{
	const expect want[] = {
		{ 2, 12, "dense_fixed takes 1 argument" },
		{ 3, 12, "sparse_variable takes 3 arguments" },
		{ 4, 28, "undefined name 'P'" },
		{ 5, 28, "tensor 'A' is not an axis" },
		{ 6, 36, "idtype must be i32 or i64" },
		{ 7, 36, "unknown axis option 'order'" },
		{ 8, 51, "option 'sorted' given twice" },
		{ 9, 48, "positional argument after options" },
		{ 10, 27, "expected the name of the parent axis" },
		{ 11, 17, "undefined name 'Q'" },
		{ 12, 18, "parameter 'm' is not an axis" },
	};
	check_errors(
		"kernel k(m: i32) {\n"
		"  axis X = dense_fixed(m, m);\n"
		"  axis Y = sparse_variable(X, m);\n"
		"  axis J = sparse_variable(P, m, m);\n"
		"  axis K = sparse_variable(A, m, m);\n"
		"  axis L = dense_variable(X, m, m, idtype = f32);\n"
		"  axis M = dense_variable(X, m, m, order = true);\n"
		"  axis N = dense_variable(X, m, m, sorted = true, sorted = true);\n"
		"  axis O = dense_variable(X, m, sorted = true, m);\n"
		"  axis R = dense_variable(X + 1, m, m);\n"
		"  tensor A: f32[Q];\n"
		"  iter x (i) in [m] \"S\" { }\n"
		"}\n", 11, want);
}
END_TEST

START_TEST(test_error_calls)
{
	const expect want[] = {
		{ 1, 28, "'exp' called without arguments" },
		{ 1, 43, "a cast to f32 takes one argument" },
	};
	check_errors("kernel k() { let a = 1.0 + exp(); let b = f32(1, 2); }",
		2, want);
}
END_TEST

START_TEST(test_error_too_deep)
{
	/* deep left-leaning chains and deep parentheses are refused, not
	 * recursed into */
	size_t n = 3000;
	char *s = malloc(6 * n + 64);
	strcpy(s, "kernel k() { let x = ");
	for (size_t i = 0; i < n; i++)
		strcat(s, "1+");
	strcat(s, "1; }");
	stir_ctx *ctx = stir_ctx_alloc();
	ck_assert_ptr_null(test_read_str(ctx, s));
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_str_eq(stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 0)),
		"expression nested too deeply (more than 1000 levels)");
	stir_ctx_free(ctx);
	n = 50000;
	s = realloc(s, 2 * n + 64);
	strcpy(s, "kernel k() { let x = ");
	size_t len = strlen(s);
	memset(s + len, '(', n);
	s[len + n] = '1';
	memset(s + len + n + 1, ')', n);
	strcpy(s + len + 2 * n + 1, "; }");
	ctx = stir_ctx_alloc();
	ck_assert_ptr_null(test_read_str(ctx, s));
	ck_assert_int_ge(stir_ctx_n_errors(ctx), 1);
	stir_ctx_free(ctx);
	free(s);
}
END_TEST

/* Every construct that opens an expression inside another (a prefix
 * operator, parentheses, an index, a call, a cast, either branch of ?:,
 * a search) nested 100,000 deep: one error at the 1001st opening token,
 * where the input ends (it once ended in Bison's "memory exhausted"). */
START_TEST(test_error_open_too_deep)
{
	static const struct {
		const char *head;  /* the kernel up to the expression */
		const char *unit;  /* repeated; opens one expression */
		int at;            /* the opening token's offset in unit */
	} forms[] = {
		{ "kernel k() { let x = ", "-", 0 },
		{ "kernel k() { let x = ", "!", 0 },
		{ "kernel k() { let x = ", "(", 0 },
		{ "kernel k() { let x = ", "A[", 1 },
		{ "kernel k() { let x = ", "abs(", 3 },
		{ "kernel k() { let x = ", "i32(", 3 },
		{ "kernel k() { let x = ", "true ? 1 : ", 5 },
		{ "kernel k() { let x = ", "true ? ", 5 },
		{ "kernel k() { let x = ", "1 + (2 * ", 4 },
		{ "kernel k(m: i32) stage 3 { buffer C: i32[m] = C; "
		  "let x = ", "lower_bound(C, 0, 1, ", 11 },
	};
	const int n = 100000;
	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		size_t hl = strlen(forms[f].head), ul = strlen(forms[f].unit);
		char *s = malloc(hl + (size_t)n * ul + 16);
		strcpy(s, forms[f].head);
		for (int i = 0; i < n; i++)
			memcpy(s + hl + (size_t)i * ul, forms[f].unit, ul);
		strcpy(s + hl + (size_t)n * ul, "1; }");
		stir_ctx *ctx = stir_ctx_alloc();
		ck_assert_ptr_null(test_read_str(ctx, s));
		ck_assert_msg(stir_ctx_n_errors(ctx) == 1, "form %zu: %d errors",
			f, stir_ctx_n_errors(ctx));
		const stir_diag *d = stir_ctx_get_diagnostic(ctx, 0);
		ck_assert_str_eq(stir_diag_get_message(d),
			"expression nested too deeply (more than 1000 levels)");
		ck_assert_int_eq(stir_diag_get_loc(d).line, 1);
		ck_assert_int_eq(stir_diag_get_loc(d).col,
			(int)(hl + LANG_MAX_EXPR_DEPTH * ul) + forms[f].at + 1);
		stir_ctx_free(ctx);
		free(s);
	}
}
END_TEST

/* n: an iteration whose body is an if with n "else if" after it.  The
 * caller frees it. */
static char *else_if_chain(int n)
{
	char *s = malloc(48 * (size_t)n + 256);
	strcpy(s, "kernel k() {\n  axis I = dense_fixed(1);\n"
		"  tensor A: f32[I];\n  iter x (i) in [I] \"S\" {\n"
		"    if (i == 0) { A[i] = 1.0; }");
	size_t len = strlen(s);
	for (int i = 0; i < n; i++)
		len += (size_t)sprintf(s + len, " else if (i == %d) { }", i);
	strcpy(s + len, "\n  }\n}\n");
	return s;
}

/* An "else if" nests its if one level deeper (the passes recurse into
 * it), although its braces close: a long chain is blocks nested too
 * deeply (it once ended in "memory exhausted", or overflowed the stack
 * of a pass); one within the limit reads and prints back. */
START_TEST(test_error_else_if_too_deep)
{
	char *s = else_if_chain(LANG_MAX_BLOCK_DEPTH - 3);
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = test_read_str(ctx, s);
	ck_assert_ptr_nonnull(m);
	test_check_round_trip(m);
	stir_module_free(m);
	stir_ctx_free(ctx);
	free(s);
	s = else_if_chain(100000);
	ctx = stir_ctx_alloc();
	ck_assert_ptr_null(test_read_str(ctx, s));
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_str_eq(stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 0)),
		"blocks nested too deeply (more than 256 levels)");
	ck_assert_int_eq(stir_diag_get_loc(stir_ctx_get_diagnostic(ctx, 0)).line,
		5);
	stir_ctx_free(ctx);
	free(s);
}
END_TEST

/* n: a kernel whose body holds an iteration and then ifs, so that the
 * innermost "{" opens n blocks; one if per line.  The caller frees it. */
static char *nested_blocks(int n)
{
	char *s = malloc(64 * (size_t)n + 256);
	strcpy(s, "kernel k() {\n  axis I = dense_fixed(1);\n"
		"  tensor A: f32[I];\n  iter x (i) in [I] \"S\" {\n");
	for (int i = 2; i < n; i++)
		strcat(s, "if (i < 1) {\n");
	strcat(s, "A[i] = 1.0;\n");
	for (int i = 0; i < n; i++)
		strcat(s, "}\n");
	return s;
}

START_TEST(test_error_blocks_too_deep)
{
	/* 256 blocks read and print back; the 257th "{" is refused where it
	 * is (line 4 holds the second "{", line n + 2 the n-th), once */
	char *s = nested_blocks(LANG_MAX_BLOCK_DEPTH);
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = test_read_str(ctx, s);
	ck_assert_ptr_nonnull(m);
	test_check_round_trip(m);
	stir_module_free(m);
	stir_ctx_free(ctx);
	free(s);
	s = nested_blocks(LANG_MAX_BLOCK_DEPTH + 1);
	ctx = stir_ctx_alloc();
	ck_assert_ptr_null(test_read_str(ctx, s));
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	const stir_diag *d = stir_ctx_get_diagnostic(ctx, 0);
	ck_assert_str_eq(stir_diag_get_message(d),
		"blocks nested too deeply (more than 256 levels)");
	ck_assert_int_eq(stir_diag_get_loc(d).line, LANG_MAX_BLOCK_DEPTH + 3);
	ck_assert_int_eq(stir_diag_get_loc(d).col, 12);
	stir_ctx_free(ctx);
	free(s);
}
END_TEST

/* n: a kernel of n nested iterations, each over 8 dense axes of its own,
 * which lowering makes 8 loops and a block each (9 levels of stage II text
 * an iteration, where stage I has 1).  The caller frees it. */
static char *nested_wide_iterations(int n)
{
	size_t cap = (size_t)n * 400 + 256, len = 0;
	char *s = malloc(cap);
	len += (size_t)sprintf(s + len, "kernel k() {\n");
	for (int i = 0; i < n; i++)
		for (int a = 0; a < 8; a++)
			len += (size_t)sprintf(s + len, "  axis I%d_%d = "
				"dense_fixed(1);\n", i, a);
	len += (size_t)sprintf(s + len, "  tensor A: f32[I0_0];\n");
	for (int i = 0; i < n; i++) {
		len += (size_t)sprintf(s + len, "iter x%d (", i);
		for (int a = 0; a < 8; a++)
			len += (size_t)sprintf(s + len, "%sv%d_%d", a ? ", " : "", i, a);
		len += (size_t)sprintf(s + len, ") in [");
		for (int a = 0; a < 8; a++)
			len += (size_t)sprintf(s + len, "%sI%d_%d", a ? ", " : "", i, a);
		len += (size_t)sprintf(s + len, "] \"SSSSSSSS\" {\n");
	}
	len += (size_t)sprintf(s + len, "A[v0_0] = 1.0;\n");
	for (int i = 0; i <= n; i++)
		len += (size_t)sprintf(s + len, "}\n");
	return s;
}

/* Lowering adds levels (an iteration becomes its loops and a block), so
 * stage II and III text may nest deeper than stage I's: up to
 * STIR_MAX_LOWERED_BLOCK_DEPTH.  The deepest stage I program lowers,
 * prints and reads back; a kernel whose lowered text would pass the bound
 * is refused by the verifier, located, rather than printed as text the
 * reader refuses. */
START_TEST(test_lowered_too_deep)
{
	char *s = nested_blocks(LANG_MAX_BLOCK_DEPTH);
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = test_read_str(ctx, s);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(stir_module_lower_sparse_iter(m), 0);
	test_check_round_trip(m);
	stir_module_free(m);
	stir_ctx_free(ctx);
	free(s);
	/* 1 + 9 * 113 = 1018 levels read back; 1 + 9 * 114 do not fit */
	for (int n = 113; n <= 114; n++) {
		s = nested_wide_iterations(n);
		ctx = stir_ctx_alloc();
		m = test_read_str(ctx, s);
		ck_assert_ptr_nonnull(m);
		int rc = stir_module_lower_sparse_iter(m);
		if (n == 113) {
			ck_assert_int_eq(rc, 0);
			test_check_round_trip(m);
		} else {
			ck_assert_int_lt(rc, 0);
			ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
			const stir_diag *d = stir_ctx_get_diagnostic(ctx, 0);
			ck_assert_str_eq(stir_diag_get_message(d), "statements nested "
				"too deeply: this one's body would be at level 1025 of the "
				"kernel's text, more than 1024");
			ck_assert_int_gt(stir_diag_get_loc(d).line, 0);
		}
		stir_module_free(m);
		stir_ctx_free(ctx);
		free(s);
	}
}
END_TEST

START_TEST(test_diagnostic_text)
{
	stir_ctx *ctx = stir_ctx_alloc();
	ck_assert_ptr_null(test_read_str(ctx,
		"kernel k(m: i32) {\n"
		"  axis I = dense_fixed(mm);\n"
		"}\n"));
	char *s = stir_ctx_diagnostics_to_str(ctx);
	ck_assert_str_eq(s,
		"t.stir:2:24: error: undefined name 'mm'\n"
		"   axis I = dense_fixed(mm);\n"
		"                        ^\n");
	free(s);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_read_file_missing)
{
	stir_ctx *ctx = stir_ctx_alloc();
	ck_assert_ptr_null(stir_module_read_from_file(ctx, "/nonexistent/dir/x.stir"));
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	char *text = stir_ctx_diagnostics_to_str(ctx);
	ck_assert_str_eq(text, "/nonexistent/dir/x.stir: error: cannot open file: "
		"No such file or directory\n");
	free(text);
	stir_ctx_free(ctx);
}
END_TEST

/* An empty text is a module without kernels; a NULL file name is
 * "<string>". */
START_TEST(test_read_empty)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_mem(ctx, NULL, "// nothing\n", 11);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(stir_module_n_kernels(m), 0);
	char *s = stir_module_to_str(m);
	ck_assert_str_eq(s, "");
	free(s);
	stir_module_free(m);
	ck_assert_ptr_null(stir_module_read_from_mem(ctx, NULL, "kernel", 6));
	ck_assert_str_eq(stir_diag_get_loc(stir_ctx_get_diagnostic(ctx, 0)).file,
		"<string>");
	stir_ctx_free(ctx);
}
END_TEST

/* ---- locations ---- */

START_TEST(test_locations)
{
	const char *text =
		"kernel k(m: i32) {\n"                             /* 1 */
		"  axis I = dense_fixed(m);\n"                     /* 2 */
		"  axis J = sparse_variable(I, m, m);\n"           /* 3 */
		"  tensor A: f32[I, J];\n"                         /* 4 */
		"  iter x (i, j) in [I, J] \"SR\" {\n"             /* 5 */
		"    let v = -1.0;\n"                              /* 6 */
		"    if (i < 2) { A[i, j] = (v + 1.0) * A[i, j]; }\n" /* 7 */
		"  }\n"
		"}\n";
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = test_read_str(ctx, text);
	ck_assert_ptr_nonnull(m);
	const char *f = stir_ctx_intern(ctx, "t.stir");
	stir_kernel *k = stir_module_get_kernel(m, 0);
	test_check_loc(k->loc, f, 1, 8);
	test_check_loc(stir_kernel_get_param(k, 0)->loc, f, 1, 10);
	test_check_loc(stir_kernel_get_axis(k, 0)->loc, f, 2, 8);
	test_check_loc(stir_kernel_get_axis(k, 0)->len->loc, f, 2, 24);
	test_check_loc(stir_kernel_get_axis(k, 1)->loc, f, 3, 8);
	test_check_loc(stir_kernel_get_buffer(k, 0)->loc, f, 4, 10);
	stir_stmt *it = stir_stmt_at(&k->body, 0);
	test_check_loc(it->loc, f, 5, 3);
	test_check_loc(it->u.iter.kinds_loc, f, 5, 27);
	test_check_loc(it->u.iter.vars[0]->loc, f, 5, 11);
	test_check_loc(it->u.iter.vars[1]->loc, f, 5, 14);
	stir_stmt *let = stir_stmt_at(&it->u.iter.body, 0);
	test_check_loc(let->loc, f, 6, 5);
	test_check_loc(let->u.let.var->loc, f, 6, 9);
	test_check_loc(let->u.let.value->loc, f, 6, 13); /* -1.0 folds at the '-' */
	stir_stmt *ifs = stir_stmt_at(&it->u.iter.body, 1);
	test_check_loc(ifs->loc, f, 7, 5);
	test_check_loc(ifs->u.if_.cond->loc, f, 7, 11);      /* the '<' */
	test_check_loc(ifs->u.if_.cond->u.binary.a->loc, f, 7, 9);
	stir_stmt *st = stir_stmt_at(&ifs->u.if_.then_body, 0);
	test_check_loc(st->loc, f, 7, 18);
	stir_expr *mul = st->u.store.value;
	test_check_loc(mul->loc, f, 7, 38);                  /* the '*' */
	test_check_loc(mul->u.binary.a->loc, f, 7, 31);      /* the '+' */
	test_check_loc(mul->u.binary.a->u.binary.a->loc, f, 7, 29);
	test_check_loc(mul->u.binary.b->loc, f, 7, 40);      /* the load */
	test_check_loc(st->u.store.idx[1]->loc, f, 7, 23);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* text: parse and build a program without verifying it (the verifier
 * rejects what the builder accepts here); NULL on a parse or name error. */
static stir_module *build_str(stir_ctx *ctx, const char *text)
{
	lang_parser p;
	lang_parser_init(&p, ctx, "t.stir");
	lang_list *kernels = lang_parse(&p, text, strlen(text));
	stir_module *m = kernels ? lang_build(ctx, kernels) : NULL;
	lang_parser_release(&p);
	return m;
}

/* A name declared twice is a duplicate where it is written again, and
 * keeps meaning its first declaration, so that the uses of a duplicate of
 * another kind (an axis and a local 'I') give no error of their own; a
 * parent declared later is resolved (the verifier rejects it). */
START_TEST(test_latest_declaration)
{
	static const char text[] =
		"kernel k(m: i32, n: i32) {\n"
		"  axis J = sparse_variable(I, n, n);\n"
		"  axis I = dense_fixed(m);\n"
		"  tensor A: f32[I];\n"
		"  iter x (i) in [I] \"S\" { A[i] = 1.0; }\n"
		"}\n";
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = build_str(ctx, text);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	stir_kernel *k = stir_module_get_kernel(m, 0);
	ck_assert_ptr_eq(stir_axis_get_parent(stir_kernel_get_axis(k, 0)),
		stir_kernel_get_axis(k, 1));
	stir_module_free(m);
	ck_assert_ptr_null(test_read_str(ctx, text));
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_str_eq(stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 0)),
		"parent 'I' of axis 'J' is declared after it");
	stir_ctx_free(ctx);

	static const char twice[] =
		"kernel k(m: i32) {\n"
		"  axis I = dense_fixed(m);\n"
		"  tensor A: f32[I];\n"
		"  tensor A: f64[I];\n"
		"  local I: f32[I];\n"
		"  iter x (i) in [I] \"S\" { let A = 1; A[i] = 1.0; }\n"
		"}\n";
	ctx = stir_ctx_alloc();
	ck_assert_ptr_null(test_read_str(ctx, twice));
	char *got = test_diags_to_str(ctx);
	ck_assert_str_eq(got,
		"4:10: error: duplicate name 'A'\n"
		"3:10: note: previous declaration of 'A' is here\n"
		"5:9: error: duplicate name 'I'\n"
		"2:8: note: previous declaration of 'I' is here\n"
		"6:31: error: duplicate name 'A'\n"
		"3:10: note: previous declaration of 'A' is here\n");
	free(got);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- threads ---- */

/* One thread's work: read and print a catalogue program many times. */
typedef struct job {
	const char *name;      /* the catalogue program */
	char *text;            /* its source */
	char *expected;        /* its printed form, computed beforehand */
	int failures;          /* result */
} job;

/* arg: a job; parses with a context of its own. */
static void *run_job(void *arg)
{
	job *j = arg;
	for (int i = 0; i < 200; i++) {
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m = stir_module_read_from_mem(ctx, j->name, j->text,
			strlen(j->text));
		char *s = m ? stir_module_to_str(m) : NULL;
		if (!s || strcmp(s, j->expected) || stir_ctx_n_diagnostics(ctx))
			j->failures++;
		free(s);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
	return NULL;
}

/* path: the whole file in a malloc'd string. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	char *buf = calloc(1, 1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

START_TEST(test_threads)
{
	job jobs[2] = { { "csr_softmax", NULL, NULL, 0 },
			{ "rgcn_homo", NULL, NULL, 0 } };
	for (int i = 0; i < 2; i++) {
		jobs[i].text = slurp(example_path(jobs[i].name));
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m = stir_module_read_from_mem(ctx, jobs[i].name,
			jobs[i].text, strlen(jobs[i].text));
		ck_assert_ptr_nonnull(m);
		jobs[i].expected = stir_module_to_str(m);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, run_job, &jobs[i]), 0);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		ck_assert_int_eq(jobs[i].failures, 0);
		free(jobs[i].text);
		free(jobs[i].expected);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lang");
	TCase *tc = tcase_create("print");
	tcase_add_loop_test(tc, test_catalogue_round_trip, 0, (int)N_CATALOGUE);
	tcase_add_test(tc, test_golden_csrmm);
	tcase_add_test(tc, test_print_everything);
	tcase_add_test(tc, test_print_canonical);
	tcase_add_test(tc, test_print_floats);
	tcase_add_test(tc, test_print_api_module);
	tcase_add_test(tc, test_equal);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, test_error_missing_semicolon);
	tcase_add_test(tc, test_error_unexpected_token);
	tcase_add_test(tc, test_error_unterminated_comment);
	tcase_add_test(tc, test_error_bad_character);
	tcase_add_test(tc, test_error_strings);
	tcase_add_test(tc, test_error_integer_too_large);
	tcase_add_test(tc, test_error_init_not_first);
	tcase_add_test(tc, test_error_several);
	tcase_add_test(tc, test_error_names);
	tcase_add_test(tc, test_error_declarations);
	tcase_add_test(tc, test_error_calls);
	tcase_add_test(tc, test_error_too_deep);
	tcase_add_test(tc, test_error_open_too_deep);
	tcase_add_test(tc, test_error_else_if_too_deep);
	tcase_add_test(tc, test_error_blocks_too_deep);
	tcase_add_test(tc, test_lowered_too_deep);
	tcase_add_test(tc, test_diagnostic_text);
	tcase_add_test(tc, test_read_file_missing);
	tcase_add_test(tc, test_read_empty);
	suite_add_tcase(s, tc);
	tc = tcase_create("names");
	tcase_add_test(tc, test_locations);
	tcase_add_test(tc, test_latest_declaration);
	tcase_add_test(tc, test_threads);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
