/* Tests of the verifier (docs/language.md section 6): one module built
 * through the C API per rule, with the offending node given a location so
 * that the test can assert the exact message, line and column; and valid
 * modules that must give no diagnostic at all. */
#include <math.h>
#include <stir/ir.h>
#include <stir/lang.h>
#include "ir/nodes.h"
#include "tests/testdiag.h"
#include "tests/testutil.h"

/* ---- building blocks ---- */

/* line, col: a location in the pretend file "t.stir". */
static stir_loc L(int line, int col)
{
	stir_loc l = { "t.stir", line, col };
	return l;
}

/* e, line, col: give e a location; returns e. */
static stir_expr *at_e(stir_expr *e, int line, int col)
{
	ck_assert_ptr_nonnull(e);
	e->loc = L(line, col);
	return e;
}

/* s, line, col: give s a location; returns s. */
static stir_stmt *at_s(stir_stmt *s, int line, int col)
{
	ck_assert_ptr_nonnull(s);
	s->loc = L(line, col);
	return s;
}

#define N_OF(...) ((int)(sizeof((stir_expr *[]){ __VA_ARGS__ }) / sizeof(stir_expr *)))
/* b[...] */
#define LOAD(k, b, ...) stir_expr_load(k, b, N_OF(__VA_ARGS__), \
	(stir_expr *[]){ __VA_ARGS__ })
/* b[...] op value */
#define STORE(k, b, op, value, ...) stir_stmt_store(k, b, N_OF(__VA_ARGS__), \
	(stir_expr *[]){ __VA_ARGS__ }, op, value)
#define CALL(k, f, ...) stir_expr_call(k, f, N_OF(__VA_ARGS__), \
	(stir_expr *[]){ __VA_ARGS__ })

/* The CSR SpMM kernel of the catalogue, without its iteration:
 *   kernel csrmm(m: i32, n: i32, feat: i32, nnz: i32) {
 *     axis I = dense_fixed(m);  axis J = sparse_variable(I, n, nnz);
 *     axis Jd = dense_fixed(n); axis K = dense_fixed(feat);
 *     tensor A: f32[I, J]; tensor B: f32[Jd, K]; tensor C: f32[I, K]; */
typedef struct fx {
	stir_ctx *ctx;          /* owned */
	stir_module *m;         /* owned */
	stir_kernel *k;
	stir_var *pm, *pn, *pfeat, *pnnz;
	stir_axis *I, *J, *Jd, *K;
	stir_buffer *A, *B, *C;
} fx;

/* f: filled with a new context, module and the kernel above. */
static void fx_init(fx *f)
{
	f->ctx = stir_ctx_alloc();
	f->m = stir_module_alloc(f->ctx);
	stir_kernel *k = f->k = stir_module_add_kernel(f->m, "csrmm");
	f->pm = stir_kernel_add_param(k, "m", STIR_I32);
	f->pn = stir_kernel_add_param(k, "n", STIR_I32);
	f->pfeat = stir_kernel_add_param(k, "feat", STIR_I32);
	f->pnnz = stir_kernel_add_param(k, "nnz", STIR_I32);
	f->I = stir_kernel_add_dense_fixed(k, "I", stir_expr_var(k, f->pm));
	f->J = stir_kernel_add_sparse_variable(k, "J", f->I,
		stir_expr_var(k, f->pn), stir_expr_var(k, f->pnnz));
	f->Jd = stir_kernel_add_dense_fixed(k, "Jd", stir_expr_var(k, f->pn));
	f->K = stir_kernel_add_dense_fixed(k, "K", stir_expr_var(k, f->pfeat));
	f->A = stir_kernel_add_tensor(k, "A", STIR_F32, 2,
		(stir_axis *[]){ f->I, f->J });
	f->B = stir_kernel_add_tensor(k, "B", STIR_F32, 2,
		(stir_axis *[]){ f->Jd, f->K });
	f->C = stir_kernel_add_tensor(k, "C", STIR_F32, 2,
		(stir_axis *[]){ f->I, f->K });
	ck_assert_ptr_nonnull(f->C);
}

/* f: released. */
static void fx_done(fx *f)
{
	stir_module_free(f->m);
	stir_ctx_free(f->ctx);
}

/* k, name, kinds, n, axes...: an iteration over single axes, with
 * iterators named after the lower-cased axis names given in "vars"
 * (space-separated). */
static stir_stmt *iter_axes(stir_kernel *k, const char *name, const char *vars,
	const char *kinds, int n, stir_axis *const *axes)
{
	stir_iter_group g[8];
	const char *names[8];
	char buf[8][16];
	int nv = 0;
	for (const char *p = vars; *p; ) {
		int len = 0;
		while (p[len] && p[len] != ' ')
			len++;
		snprintf(buf[nv], sizeof(buf[nv]), "%.*s", len, p);
		names[nv] = buf[nv];
		nv++;
		p += len;
		while (*p == ' ')
			p++;
	}
	for (int i = 0; i < n; i++)
		g[i] = (stir_iter_group){ STIR_GROUP_AXIS, 1,
			(stir_axis **)&axes[i], NULL, false };
	stir_stmt *s = stir_stmt_iter(k, name, n, g, nv, names, kinds);
	ck_assert_ptr_nonnull(s);
	return s;
}
#define ITER(k, name, vars, kinds, ...) iter_axes(k, name, vars, kinds, \
	(int)(sizeof((stir_axis *[]){ __VA_ARGS__ }) / sizeof(stir_axis *)), \
	(stir_axis *[]){ __VA_ARGS__ })

/* s, i: an expression of the i-th iterator of s. */
static stir_expr *it(stir_stmt *s, int i)
{
	return stir_expr_var(s->kernel, stir_stmt_iter_get_var(s, i));
}

/* f, expected: verify f's module; its diagnostics must be exactly
 * "expected" (an empty string for a valid module), and the result -1
 * exactly when there are some. */
static void expect(fx *f, const char *expected)
{
	int r = stir_module_verify(f->m);
	char *got = test_diags_to_str(f->ctx);
	ck_assert_str_eq(got, expected);
	ck_assert_int_eq(r, *expected ? -1 : 0);
	free(got);
}

/* f: append the catalogue's csrmm iteration to f->k; returns it. */
static stir_stmt *add_csrmm_iter(fx *f)
{
	stir_kernel *k = f->k;
	stir_stmt *s = ITER(k, "csrmm", "i j k", "SRS", f->I, f->J, f->K);
	stir_stmt_iter_append_init(s, STORE(k, f->C, STIR_STORE_ASSIGN,
		stir_expr_float(k, 0.0), it(s, 0), it(s, 2)));
	stir_stmt_iter_append_body(s, STORE(k, f->C, STIR_STORE_ADD,
		stir_expr_binary(k, STIR_MUL, LOAD(k, f->A, it(s, 0), it(s, 1)),
			LOAD(k, f->B, it(s, 1), it(s, 2))),
		it(s, 0), it(s, 2)));
	stir_kernel_append_stmt(k, s);
	return s;
}

/* ---- valid modules ---- */

START_TEST(test_valid_csrmm)
{
	fx f;
	fx_init(&f);
	add_csrmm_iter(&f);
	expect(&f, "");
	fx_done(&f);
}
END_TEST

/* SDDMM: fuse(I, J), K "SSR" with init. */
START_TEST(test_valid_fuse)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_buffer *S = stir_kernel_add_tensor(k, "S", STIR_F32, 2,
		(stir_axis *[]){ f.I, f.J });
	stir_iter_group g[2] = {
		{ STIR_GROUP_FUSE, 2, (stir_axis *[]){ f.I, f.J }, NULL, false },
		{ STIR_GROUP_AXIS, 1, (stir_axis *[]){ f.K }, NULL, false },
	};
	stir_stmt *s = stir_stmt_iter(k, "sddmm", 2, g, 3,
		(const char *[]){ "i", "j", "k" }, "SSR");
	stir_stmt_iter_append_init(s, STORE(k, S, STIR_STORE_ASSIGN,
		stir_expr_int(k, 0), it(s, 0), it(s, 1)));
	stir_stmt_iter_append_body(s, STORE(k, S, STIR_STORE_ADD,
		stir_expr_binary(k, STIR_MUL, LOAD(k, f.C, it(s, 0), it(s, 2)),
			LOAD(k, f.B, it(s, 1), it(s, 2))), it(s, 0), it(s, 1)));
	stir_kernel_append_stmt(k, s);
	expect(&f, "");
	fx_done(&f);
}
END_TEST

/* Row softmax: nested iterations, a let, an if, locals, -inf, calls, and
 * an attach(J, I) iterated under an enclosing I. */
START_TEST(test_valid_nested)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_buffer *rmax = stir_kernel_add_local(k, "rmax", STIR_F32, 1,
		(stir_axis *[]){ f.I });
	stir_buffer *E = stir_kernel_add_tensor(k, "E", STIR_I64, 2,
		(stir_axis *[]){ f.I, f.J });
	stir_buffer_set_domain(E, stir_expr_int(k, 0),
		stir_expr_binary(k, STIR_ADD, stir_expr_var(k, f.pm),
			stir_expr_int(k, 1)));
	stir_stmt *rows = ITER(k, "rows", "i", "S", f.I);
	stir_stmt *mx = ITER(k, "mx", "j", "R", f.J);
	stir_expr *ri = it(rows, 0);
	stir_stmt_iter_append_init(mx, STORE(k, rmax, STIR_STORE_ASSIGN,
		stir_expr_unary(k, STIR_NEG, stir_expr_float(k, INFINITY)),
		ri));
	stir_stmt *let = stir_stmt_let(k, "a", LOAD(k, f.A, it(rows, 0),
		it(mx, 0)));
	stir_stmt_iter_append_body(mx, let);
	stir_expr *a = stir_expr_var(k, stir_stmt_let_get_var(let));
	stir_stmt *cond = stir_stmt_if(k, stir_expr_binary(k, STIR_AND,
		stir_expr_binary(k, STIR_GT, a, LOAD(k, rmax, it(rows, 0))),
		stir_expr_unary(k, STIR_NOT, stir_expr_bool(k, false))));
	stir_stmt_if_append_then(cond, STORE(k, rmax, STIR_STORE_ASSIGN,
		CALL(k, STIR_MAX, LOAD(k, rmax, it(rows, 0)),
			CALL(k, STIR_EXP, stir_expr_var(k,
				stir_stmt_let_get_var(let)))), it(rows, 0)));
	stir_stmt_if_append_else(cond, STORE(k, E, STIR_STORE_ASSIGN,
		stir_expr_binary(k, STIR_MOD, it(mx, 0), stir_expr_int(k, 4)),
		it(rows, 0), it(mx, 0)));
	stir_stmt_iter_append_body(mx, cond);
	stir_stmt_iter_append_body(rows, mx);
	/* an i32 value into the i64 tensor E, and i64 / i32 as an index */
	stir_iter_group g = { STIR_GROUP_ATTACH, 1, (stir_axis *[]){ f.J }, f.I,
		false };
	stir_stmt *att = stir_stmt_iter(k, "att", 1, &g, 1,
		(const char *[]){ "jj" }, "S");
	stir_stmt_iter_append_body(att, STORE(k, E, STIR_STORE_ADD,
		stir_expr_cast(k, STIR_I32, LOAD(k, f.A, it(rows, 0), it(att, 0))),
		stir_expr_binary(k, STIR_DIV, LOAD(k, E, it(rows, 0), it(att, 0)),
			stir_expr_int(k, 2)), it(att, 0)));
	stir_stmt_iter_append_body(rows, att);
	stir_kernel_append_stmt(k, rows);
	expect(&f, "");
	fx_done(&f);
}
END_TEST

/* RGMS-like: a reduction axis under which spatial axes hang is fine
 * without init; two top-level iterations run in order. */
START_TEST(test_valid_no_init)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_stmt *zero = ITER(k, "zero", "i k", "SS", f.I, f.K);
	stir_stmt_iter_append_body(zero, STORE(k, f.C, STIR_STORE_ASSIGN,
		stir_expr_float(k, 0.0), it(zero, 0), it(zero, 1)));
	stir_kernel_append_stmt(k, zero);
	stir_stmt *s = ITER(k, "acc", "i j k", "RSS", f.I, f.J, f.K);
	stir_stmt_iter_append_body(s, STORE(k, f.C, STIR_STORE_ADD,
		LOAD(k, f.A, it(s, 0), it(s, 1)), it(s, 0), it(s, 2)));
	stir_kernel_append_stmt(k, s);
	expect(&f, "");
	fx_done(&f);
}
END_TEST

/* ---- rule 1: names ---- */

START_TEST(test_duplicate_kernel_names)
{
	fx f;
	fx_init(&f);
	f.pm->loc = L(1, 15);
	stir_var *p = stir_kernel_add_param(f.k, "m", STIR_I64);
	p->loc = L(1, 30);
	stir_buffer *b = stir_kernel_add_local(f.k, "K", STIR_F32, 1, &f.I);
	b->loc = L(9, 9);
	f.K->loc = L(5, 8);
	expect(&f,
		"1:30: error: duplicate name 'm'\n"
		"1:15: note: previous declaration of 'm' is here\n"
		"9:9: error: duplicate name 'K'\n"
		"5:8: note: previous declaration of 'K' is here\n");
	fx_done(&f);
}
END_TEST

/* A tensor declared before an axis of the same name: the error goes to
 * the later one in the source, whatever the list it is in. */
START_TEST(test_duplicate_source_order)
{
	fx f;
	fx_init(&f);
	stir_axis *a = stir_kernel_add_dense_fixed(f.k, "A", stir_expr_int(f.k, 4));
	f.A->loc = L(8, 10);
	a->loc = L(4, 8);
	expect(&f,
		"8:10: error: duplicate name 'A'\n"
		"4:8: note: previous declaration of 'A' is here\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_duplicate_module_kernels)
{
	fx f;
	fx_init(&f);
	f.k->loc = L(1, 8);
	stir_kernel *k2 = stir_module_add_kernel(f.m, "csrmm");
	k2->loc = L(20, 8);
	expect(&f,
		"20:8: error: duplicate kernel name 'csrmm'\n"
		"1:8: note: previous declaration of 'csrmm' is here\n");
	fx_done(&f);
}
END_TEST

/* Iterators that repeat a parameter, an axis, or each other. */
START_TEST(test_iterator_shadows)
{
	fx f;
	fx_init(&f);
	f.pn->loc = L(1, 23);
	f.K->loc = L(5, 8);
	stir_stmt *s = ITER(f.k, "x", "n K n", "SRS", f.I, f.J, f.K);
	stir_stmt_iter_get_var(s, 0)->loc = L(9, 12);
	stir_stmt_iter_get_var(s, 1)->loc = L(9, 15);
	stir_stmt_iter_get_var(s, 2)->loc = L(9, 18);
	stir_kernel_append_stmt(f.k, s);
	expect(&f,
		"9:12: error: duplicate name 'n'\n"
		"1:23: note: previous declaration of 'n' is here\n"
		"9:15: error: duplicate name 'K'\n"
		"5:8: note: previous declaration of 'K' is here\n"
		"9:18: error: duplicate name 'n'\n"
		"1:23: note: previous declaration of 'n' is here\n");
	fx_done(&f);
}
END_TEST

/* A let that repeats an enclosing iterator; the same name in two sibling
 * scopes is fine. */
START_TEST(test_let_shadows)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_stmt *s = ITER(k, "x", "i", "S", f.I);
	stir_stmt_iter_get_var(s, 0)->loc = L(9, 12);
	stir_stmt *l1 = stir_stmt_let(k, "t", stir_expr_int(k, 1));
	stir_stmt *c = stir_stmt_if(k, stir_expr_bool(k, true));
	stir_stmt_if_append_then(c, l1);
	stir_stmt_if_append_else(c, stir_stmt_let(k, "t", stir_expr_int(k, 2)));
	stir_stmt_iter_append_body(s, c);
	stir_stmt *l2 = stir_stmt_let(k, "i", stir_expr_int(k, 2));
	stir_stmt_let_get_var(l2)->loc = L(11, 9);
	stir_stmt_iter_append_body(s, l2);
	stir_kernel_append_stmt(k, s);
	expect(&f,
		"11:9: error: duplicate name 'i'\n"
		"9:12: note: previous declaration of 'i' is here\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_duplicate_iteration_names)
{
	fx f;
	fx_init(&f);
	stir_stmt *a = at_s(ITER(f.k, "x", "i", "S", f.I), 9, 3);
	stir_stmt *b = at_s(ITER(f.k, "x", "j", "S", f.J), 10, 5);
	stir_stmt_iter_append_body(a, b);
	stir_kernel_append_stmt(f.k, a);
	expect(&f,
		"10:5: error: duplicate iteration name 'x'\n"
		"9:3: note: previous declaration of 'x' is here\n");
	fx_done(&f);
}
END_TEST

/* An iterator of one iteration used in the next one. */
START_TEST(test_iterator_out_of_scope)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_stmt *a = ITER(k, "a", "i j", "SS", f.I, f.J);
	stir_kernel_append_stmt(k, a);
	stir_stmt *b = ITER(k, "b", "i2", "S", f.I);
	stir_stmt_iter_append_body(b, STORE(k, f.A, STIR_STORE_ASSIGN,
		stir_expr_float(k, 1.0), it(b, 0), at_e(it(a, 1), 12, 15)));
	stir_kernel_append_stmt(k, b);
	expect(&f, "12:15: error: 'j' is used outside its iteration\n");
	fx_done(&f);
}
END_TEST

/* A let used after the block that binds it, and one used in its own
 * value. */
START_TEST(test_let_out_of_scope)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_stmt *s = ITER(k, "x", "i", "S", f.I);
	stir_stmt *c = stir_stmt_if(k, stir_expr_bool(k, true));
	stir_stmt *l = stir_stmt_let(k, "t", stir_expr_float(k, 1.0));
	stir_stmt_if_append_then(c, l);
	stir_stmt_iter_append_body(s, c);
	stir_stmt_iter_append_body(s, STORE(k, f.C, STIR_STORE_ASSIGN,
		at_e(stir_expr_var(k, stir_stmt_let_get_var(l)), 12, 20),
		it(s, 0), stir_expr_int(k, 0)));
	stir_kernel_append_stmt(k, s);
	expect(&f, "12:20: error: 't' is used outside its scope\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_foreign_param)
{
	fx f;
	fx_init(&f);
	stir_kernel *k2 = stir_module_add_kernel(f.m, "other");
	stir_var *q = stir_kernel_add_param(k2, "q", STIR_I32);
	stir_axis *X = stir_kernel_add_dense_fixed(f.k, "X",
		at_e(stir_expr_var(f.k, q), 6, 22));
	(void)X;
	stir_stmt *s = ITER(f.k, "x", "i", "S", f.I);
	stir_stmt_iter_append_body(s, STORE(f.k, f.C, STIR_STORE_ASSIGN,
		stir_expr_float(f.k, 0.0), it(s, 0),
		at_e(stir_expr_var(f.k, q), 10, 12)));
	stir_kernel_append_stmt(f.k, s);
	expect(&f,
		"6:22: error: size of axis 'X' must be an integer expression "
		"of parameters and literals\n"
		"10:12: error: parameter 'q' belongs to another kernel\n");
	fx_done(&f);
}
END_TEST

/* ---- rule 2: parameters and sizes ---- */

START_TEST(test_param_type)
{
	fx f;
	fx_init(&f);
	stir_var *p = stir_kernel_add_param(f.k, "scale", STIR_F32);
	p->loc = L(1, 40);
	stir_var *q = stir_kernel_add_param(f.k, "small", STIR_I8);
	q->loc = L(1, 52);
	expect(&f,
		"1:40: error: parameter 'scale' must be i32 or i64, not f32\n"
		"1:52: error: parameter 'small' must be i32 or i64, not i8\n");
	fx_done(&f);
}
END_TEST

/* A float literal, a float parameter, an iterator and a comparison in
 * sizes, each reported at the offending node. */
START_TEST(test_sizes)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_var *s = stir_kernel_add_param(k, "s", STIR_F32);
	s->loc = L(1, 40);
	stir_kernel_add_dense_fixed(k, "X", stir_expr_binary(k, STIR_MUL,
		stir_expr_var(k, f.pm), at_e(stir_expr_float(k, 2.0), 6, 28)));
	stir_kernel_add_dense_fixed(k, "Y", at_e(stir_expr_var(k, s), 7, 22));
	stir_stmt *x = ITER(k, "x", "i", "S", f.I);
	stir_kernel_add_sparse_fixed(k, "Z", f.I, stir_expr_var(k, f.pn),
		at_e(it(x, 0), 8, 30));
	stir_kernel_add_sparse_variable(k, "W", f.I, stir_expr_var(k, f.pn),
		at_e(stir_expr_binary(k, STIR_LT, stir_expr_var(k, f.pn),
			stir_expr_int(k, 3)), 9, 33));
	stir_kernel_add_dense_fixed(k, "V", stir_expr_call(k, STIR_MAX, 2,
		(stir_expr *[]){ stir_expr_var(k, f.pm),
			stir_expr_cast(k, STIR_I64, stir_expr_binary(k, STIR_MOD,
				stir_expr_var(k, f.pn), stir_expr_int(k, 4))) }));
	expect(&f,
		"1:40: error: parameter 's' must be i32 or i64, not f32\n"
		"6:28: error: size of axis 'X' must be an integer expression "
		"of parameters and literals\n"
		"7:22: error: size of axis 'Y' must be an integer expression "
		"of parameters and literals\n"
		"8:30: error: column count of axis 'Z' must be an integer "
		"expression of parameters and literals\n"
		"9:33: error: nnz of axis 'W' must be an integer expression "
		"of parameters and literals\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_domain)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_buffer *E = stir_kernel_add_tensor(k, "E", STIR_I32, 2,
		(stir_axis *[]){ f.I, f.J });
	stir_buffer_set_domain(E, stir_expr_int(k, 0),
		at_e(stir_expr_float(k, 1.5), 9, 28));
	f.A->loc = L(6, 10);
	stir_buffer_set_domain(f.A, stir_expr_int(k, 0), stir_expr_int(k, 3));
	expect(&f,
		"6:10: error: tensor 'A' of type f32 cannot have a value domain\n"
		"9:28: error: domain bound of 'E' must be an integer expression "
		"of parameters and literals\n");
	fx_done(&f);
}
END_TEST

/* "distinct" (stir_buffer_set_distinct) needs a value domain: the bind
 * check and the schedule primitives count on one. */
START_TEST(test_distinct_needs_domain)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_buffer *E = stir_kernel_add_tensor(k, "E", STIR_I32, 1, &f.I);
	E->loc = L(7, 10);
	stir_buffer_set_distinct(E, true);
	ck_assert(stir_buffer_get_distinct(E));
	expect(&f, "7:10: error: tensor 'E' is declared distinct but has no "
		"value domain 'in [lo, hi)'\n");
	fx_done(&f);
}
END_TEST

/* A domain with one bound missing (a failed constructor's NULL, through
 * the C API): once accepted, and random binding dereferenced it. */
START_TEST(test_domain_missing_bound)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_buffer *E = stir_kernel_add_tensor(k, "E", STIR_I32, 1, &f.I);
	E->loc = L(7, 10);
	stir_buffer_set_domain(E, stir_expr_int(k, 0), NULL);
	stir_buffer *F = stir_kernel_add_tensor(k, "F", STIR_I32, 1, &f.I);
	F->loc = L(8, 10);
	stir_buffer_set_domain(F, NULL, stir_expr_int(k, 4));
	expect(&f,
		"7:10: error: the value domain of tensor 'E' lacks its upper "
		"bound\n"
		"8:10: error: the value domain of tensor 'F' lacks its lower "
		"bound\n");
	fx_done(&f);
}
END_TEST

/* ---- rule 3: axes ---- */

START_TEST(test_axis_parents)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_kernel *k2 = stir_module_add_kernel(f.m, "other");
	stir_axis *R = stir_kernel_add_dense_fixed(k2, "R", stir_expr_int(k2, 3));
	stir_axis *X = stir_kernel_add_dense_variable(k, "X", R,
		stir_expr_int(k, 4), stir_expr_int(k, 8));
	X->loc = L(6, 8);
	/* through the node structures: a later parent, none, itself, and
	 * a dense_fixed axis with one */
	stir_axis *Y = stir_kernel_add_sparse_fixed(k, "Y", f.I,
		stir_expr_int(k, 4), stir_expr_int(k, 2));
	Y->loc = L(7, 8);
	stir_axis *Z = stir_kernel_add_sparse_variable(k, "Z", f.I,
		stir_expr_int(k, 4), stir_expr_int(k, 2));
	Z->loc = L(8, 8);
	Y->parent = Z;
	Z->parent = NULL;
	stir_axis *W = stir_kernel_add_sparse_variable(k, "W", f.I,
		stir_expr_int(k, 4), stir_expr_int(k, 2));
	W->loc = L(9, 8);
	W->parent = W;
	stir_axis *D = stir_kernel_add_dense_fixed(k, "D", stir_expr_int(k, 4));
	D->loc = L(10, 8);
	D->parent = f.I;
	stir_axis_set_idtype(f.J, STIR_F32);
	f.J->loc = L(3, 8);
	expect(&f,
		"3:8: error: index type of axis 'J' must be i32 or i64, not f32\n"
		"6:8: error: parent 'R' of axis 'X' belongs to another kernel\n"
		"7:8: error: parent 'Z' of axis 'Y' is declared after it\n"
		"8:8: note: 'Z' is declared here\n"
		"8:8: error: sparse_variable axis 'Z' needs a parent\n"
		"9:8: error: axis 'W' is its own parent\n"
		"10:8: error: dense_fixed axis 'D' cannot have a parent\n");
	fx_done(&f);
}
END_TEST

/* ---- rule 4: tensors and locals ---- */

START_TEST(test_buffer_axis_lists)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_axis *BI = stir_kernel_add_dense_fixed(k, "BI", stir_expr_int(k, 4));
	stir_buffer *T;
	T = stir_kernel_add_tensor(k, "T1", STIR_F32, 2,
		(stir_axis *[]){ f.I, f.I });
	T->loc = L(10, 10);
	T = stir_kernel_add_tensor(k, "T2", STIR_F32, 2,
		(stir_axis *[]){ f.J, f.I });
	T->loc = L(11, 10);
	T = stir_kernel_add_local(k, "T3", STIR_F32, 1, (stir_axis *[]){ f.J });
	T->loc = L(12, 9);
	T = stir_kernel_add_tensor(k, "T4", STIR_F16, 3,
		(stir_axis *[]){ f.I, BI, f.J });
	T->loc = L(13, 10);
	expect(&f,
		"10:10: error: axis 'I' is listed twice in tensor 'T1'\n"
		"11:10: error: axis 'J' breaks parent order in tensor 'T2': "
		"its parent 'I' must come before it\n"
		"12:9: error: axis 'J' breaks parent order in local 'T3': "
		"its parent 'I' must come before it\n"
		"13:10: error: axis 'J' must immediately follow its parent 'I' "
		"in tensor 'T4'\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_buffer_types)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_kernel *k2 = stir_module_add_kernel(f.m, "other");
	stir_axis *R = stir_kernel_add_dense_fixed(k2, "R", stir_expr_int(k2, 3));
	stir_buffer *T = stir_kernel_add_tensor(k, "T", STIR_BOOL, 1, &f.I);
	T->loc = L(9, 10);
	stir_buffer *U = stir_kernel_add_local(k, "U", STIR_F32, 2,
		(stir_axis *[]){ f.I, R });
	U->loc = L(10, 9);
	stir_buffer *V = stir_kernel_add_local(k, "V", STIR_DTYPE_NONE, 1, &f.I);
	V->loc = L(11, 9);
	expect(&f,
		"9:10: error: tensor 'T' cannot have type bool\n"
		"10:9: error: axis 'R' of local 'U' belongs to another kernel\n"
		"11:9: error: local 'V' has an invalid type\n");
	fx_done(&f);
}
END_TEST

/* ---- rule 5: iterations ---- */

START_TEST(test_iter_counts)
{
	fx f;
	fx_init(&f);
	stir_stmt *s = at_s(ITER(f.k, "x", "i j", "SR", f.I, f.J, f.K), 9, 3);
	s->u.iter.kinds_loc = L(9, 38);
	stir_kernel_append_stmt(f.k, s);
	s = at_s(ITER(f.k, "y", "i j", "SXR", f.I, f.J), 10, 3);
	s->u.iter.kinds_loc = L(10, 30);
	stir_kernel_append_stmt(f.k, s);
	expect(&f,
		"9:38: error: iteration 'x' has 3 axes but 2 letters in \"SR\"\n"
		"9:3: error: iteration 'x' has 3 axes but 2 iterators\n"
		"10:30: error: iteration 'y' has 2 axes but 3 letters in \"SXR\"\n"
		"10:30: error: invalid letter 'X' in \"SXR\": expected 'S' or 'R'\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_iter_parent_order)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_kernel_append_stmt(k, at_s(ITER(k, "x", "j i", "SS", f.J, f.I), 9, 3));
	stir_kernel_append_stmt(k, at_s(ITER(k, "y", "j", "S", f.J), 10, 3));
	stir_kernel_append_stmt(k, at_s(ITER(k, "z", "i i2", "SS", f.I, f.I),
		11, 3));
	stir_kernel_append_stmt(k, at_s(stir_stmt_iter(k, "e", 0, NULL, 0, NULL,
		""), 12, 3));
	expect(&f,
		"9:3: error: axis 'J' is iterated before its parent 'I'\n"
		"10:3: error: axis 'J' is iterated without its parent 'I'\n"
		"11:3: error: axis 'I' is listed twice in iteration 'z'\n"
		"12:3: error: iteration 'e' has no axes\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_iter_foreign_axis)
{
	fx f;
	fx_init(&f);
	stir_kernel *k2 = stir_module_add_kernel(f.m, "other");
	stir_axis *R = stir_kernel_add_dense_fixed(k2, "R", stir_expr_int(k2, 3));
	stir_kernel_append_stmt(f.k, at_s(ITER(f.k, "x", "r", "S", R), 9, 3));
	expect(&f, "9:3: error: axis 'R' of iteration 'x' belongs to another "
		"kernel\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_fuse)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_iter_group g1 = { STIR_GROUP_FUSE, 2, (stir_axis *[]){ f.I, f.K },
		NULL, false };
	stir_kernel_append_stmt(k, at_s(stir_stmt_iter(k, "x", 1, &g1, 2,
		(const char *[]){ "i", "k" }, "SS"), 9, 3));
	stir_iter_group g2 = { STIR_GROUP_FUSE, 1, (stir_axis *[]){ f.I }, NULL,
		false };
	stir_kernel_append_stmt(k, at_s(stir_stmt_iter(k, "y", 1, &g2, 1,
		(const char *[]){ "i" }, "S"), 10, 3));
	/* fuse(J, K) under an enclosing I: J is fine, K is not J's child */
	stir_stmt *o = ITER(k, "o", "i", "S", f.I);
	stir_axis *Kc = stir_kernel_add_dense_variable(k, "Kc", f.J,
		stir_expr_int(k, 4), stir_expr_int(k, 8));
	stir_iter_group g3 = { STIR_GROUP_FUSE, 2, (stir_axis *[]){ f.J, Kc },
		NULL, false };
	stir_stmt_iter_append_body(o, at_s(stir_stmt_iter(k, "z", 1, &g3, 2,
		(const char *[]){ "j", "kc" }, "SS"), 11, 5));
	stir_kernel_append_stmt(k, o);
	expect(&f,
		"9:3: error: fuse is not a parent chain: 'I' is not the parent "
		"of 'K'\n"
		"10:3: error: fuse needs at least two axes\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_attach)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_iter_group g1[2] = {
		{ STIR_GROUP_AXIS, 1, (stir_axis *[]){ f.I }, NULL, false },
		{ STIR_GROUP_ATTACH, 1, (stir_axis *[]){ f.K }, f.I, false },
	};
	stir_kernel_append_stmt(k, at_s(stir_stmt_iter(k, "x", 2, g1, 2,
		(const char *[]){ "i", "k" }, "SS"), 9, 3));
	stir_iter_group g2 = { STIR_GROUP_ATTACH, 1, (stir_axis *[]){ f.J }, f.Jd,
		false };
	stir_kernel_append_stmt(k, at_s(stir_stmt_iter(k, "y", 1, &g2, 1,
		(const char *[]){ "j" }, "S"), 10, 3));
	expect(&f,
		"9:3: error: cannot attach dense_fixed axis 'K'\n"
		"10:3: error: attach parent 'Jd' of 'J' is not iterated before it\n");
	fx_done(&f);
}
END_TEST

/* init when a spatial axis hangs under a reduction axis, as a child or
 * attached. */
START_TEST(test_init_dependence)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	/* the init also uses the reduction iterator i: one error is enough */
	stir_stmt *s = at_s(ITER(k, "x", "i j", "RS", f.I, f.J), 9, 3);
	stir_stmt_iter_append_init(s, STORE(k, f.A, STIR_STORE_ASSIGN,
		stir_expr_float(k, 0.0), it(s, 0), it(s, 1)));
	stir_kernel_append_stmt(k, s);
	/* attach(J, Jd) hangs J under the reduction axis Jd */
	stir_iter_group g[3] = {
		{ STIR_GROUP_AXIS, 1, &f.I, NULL, false },
		{ STIR_GROUP_AXIS, 1, &f.Jd, NULL, false },
		{ STIR_GROUP_ATTACH, 1, &f.J, f.Jd, false },
	};
	s = at_s(stir_stmt_iter(k, "y", 3, g, 3,
		(const char *[]){ "i", "jd", "j" }, "SRS"), 10, 3);
	stir_stmt_iter_append_init(s, STORE(k, f.C, STIR_STORE_ASSIGN,
		stir_expr_float(k, 0.0), stir_expr_int(k, 0),
		stir_expr_int(k, 0)));
	stir_kernel_append_stmt(k, s);
	expect(&f,
		"9:3: error: init is not allowed: spatial axis 'J' depends on "
		"reduction axis 'I'\n"
		"10:3: error: init is not allowed: spatial axis 'J' depends on "
		"reduction axis 'Jd'\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_init_uses_reduction_iterator)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_stmt *s = ITER(k, "x", "i j", "SR", f.I, f.J);
	stir_stmt_iter_append_init(s, STORE(k, f.A, STIR_STORE_ASSIGN,
		stir_expr_float(k, 0.0), it(s, 0), at_e(it(s, 1), 10, 20)));
	stir_stmt_iter_append_body(s, STORE(k, f.A, STIR_STORE_ADD,
		stir_expr_float(k, 1.0), it(s, 0), it(s, 1)));
	stir_kernel_append_stmt(k, s);
	expect(&f, "10:20: error: reduction iterator 'j' cannot be used in "
		"init\n");
	fx_done(&f);
}
END_TEST

/* ---- rule 6: statements and expressions ---- */

START_TEST(test_index_count)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_stmt *s = ITER(k, "x", "i j", "SS", f.I, f.J);
	stir_stmt_iter_append_body(s, at_s(STORE(k, f.C, STIR_STORE_ASSIGN,
		at_e(LOAD(k, f.A, it(s, 0)), 10, 15), it(s, 0), it(s, 1),
		stir_expr_int(k, 0)), 10, 5));
	stir_kernel_append_stmt(k, s);
	expect(&f,
		"10:5: error: 'C' has 2 axes but 3 indices\n"
		"10:15: error: 'A' has 2 axes but 1 index\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_index_types)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_stmt *s = ITER(k, "x", "i j", "SS", f.I, f.J);
	stir_stmt_iter_append_body(s, STORE(k, f.C, STIR_STORE_ASSIGN,
		LOAD(k, f.B, it(s, 1), at_e(LOAD(k, f.A, it(s, 0), it(s, 1)),
			10, 20)),
		at_e(stir_expr_float(k, 2.0), 10, 7),
		at_e(stir_expr_bool(k, true), 10, 12)));
	stir_kernel_append_stmt(k, s);
	expect(&f,
		"10:7: error: float literal where an integer is expected\n"
		"10:12: error: index 2 of 'C' is bool, not an integer\n"
		"10:20: error: index 2 of 'B' is f32, not an integer\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_store_types)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_buffer *E = stir_kernel_add_tensor(k, "E", STIR_I32, 2,
		(stir_axis *[]){ f.I, f.J });
	stir_buffer *W = stir_kernel_add_tensor(k, "W", STIR_I64, 2,
		(stir_axis *[]){ f.I, f.J });
	stir_buffer *H = stir_kernel_add_tensor(k, "H", STIR_F16, 2,
		(stir_axis *[]){ f.I, f.J });
	stir_stmt *s = ITER(k, "x", "i j", "SS", f.I, f.J);
	/* fine: i32 into i64, a literal into f16 */
	stir_stmt_iter_append_body(s, STORE(k, W, STIR_STORE_ADD,
		LOAD(k, E, it(s, 0), it(s, 1)), it(s, 0), it(s, 1)));
	stir_stmt_iter_append_body(s, STORE(k, H, STIR_STORE_MUL,
		stir_expr_float(k, 0.5), it(s, 0), it(s, 1)));
	/* wrong */
	stir_stmt_iter_append_body(s, at_s(STORE(k, E, STIR_STORE_ASSIGN,
		LOAD(k, f.A, it(s, 0), it(s, 1)), it(s, 0), it(s, 1)), 11, 5));
	stir_stmt_iter_append_body(s, at_s(STORE(k, E, STIR_STORE_ASSIGN,
		LOAD(k, W, it(s, 0), it(s, 1)), it(s, 0), it(s, 1)), 12, 5));
	stir_stmt_iter_append_body(s, at_s(STORE(k, E, STIR_STORE_ASSIGN,
		at_e(stir_expr_float(k, 1.5), 13, 15), it(s, 0), it(s, 1)), 13, 5));
	stir_stmt_iter_append_body(s, at_s(STORE(k, H, STIR_STORE_ADD,
		LOAD(k, f.A, it(s, 0), it(s, 1)), it(s, 0), it(s, 1)), 14, 5));
	stir_stmt_iter_append_body(s, at_s(STORE(k, f.A, STIR_STORE_ASSIGN,
		stir_expr_binary(k, STIR_LT, it(s, 0), it(s, 1)), it(s, 0),
		it(s, 1)), 15, 5));
	stir_kernel_append_stmt(k, s);
	expect(&f,
		"11:5: error: cannot store f32 into 'E' of type i32 without a cast\n"
		"12:5: error: cannot store i64 into 'E' of type i32 without a cast\n"
		"13:15: error: float literal where an integer is expected\n"
		"14:5: error: cannot store f32 into 'H' of type f16 without a cast\n"
		"15:5: error: cannot store bool into 'A' of type f32\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_update_bool)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_buffer *T = stir_kernel_add_local(k, "T", STIR_BOOL, 1, &f.I);
	T->loc = L(6, 9);
	stir_stmt *s = ITER(k, "x", "i", "S", f.I);
	stir_stmt_iter_append_body(s, at_s(STORE(k, T, STIR_STORE_ADD,
		stir_expr_bool(k, true), it(s, 0)), 10, 5));
	stir_kernel_append_stmt(k, s);
	expect(&f,
		"6:9: error: local 'T' cannot have type bool\n"
		"10:5: error: '+=' on 'T' of type bool\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_conditions)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_stmt *s = ITER(k, "x", "i", "S", f.I);
	stir_stmt_iter_append_body(s, stir_stmt_if(k, at_e(it(s, 0), 10, 9)));
	stir_stmt *c = stir_stmt_if(k, stir_expr_binary(k, STIR_OR,
		stir_expr_bool(k, true), at_e(stir_expr_int(k, 1), 11, 17)));
	stir_stmt_if_append_then(c, STORE(k, f.C, STIR_STORE_ASSIGN,
		stir_expr_select(k, at_e(it(s, 0), 12, 14),
			stir_expr_float(k, 1.0), stir_expr_float(k, 2.0)),
		it(s, 0), stir_expr_unary(k, STIR_NEG, at_e(stir_expr_unary(k,
			STIR_NOT, at_e(stir_expr_float(k, 1.0), 12, 9)), 12, 8))));
	stir_stmt_iter_append_body(s, c);
	stir_kernel_append_stmt(k, s);
	expect(&f,
		"10:9: error: condition is i32, not bool\n"
		"11:17: error: operand of '||' is i32, not bool\n"
		"12:9: error: operand of '!' is f32, not bool\n"
		"12:8: error: operand of '-' is bool, not a number\n"
		"12:14: error: condition of '?:' is i32, not bool\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_operands)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_buffer *H = stir_kernel_add_tensor(k, "H", STIR_F16, 2,
		(stir_axis *[]){ f.I, f.J });
	stir_stmt *s = ITER(k, "x", "i j", "SS", f.I, f.J);
	stir_expr *a = LOAD(k, f.A, it(s, 0), it(s, 1));
	stir_expr *h = LOAD(k, H, it(s, 0), it(s, 1));
	stir_stmt_iter_append_body(s, STORE(k, f.A, STIR_STORE_ASSIGN,
		at_e(stir_expr_binary(k, STIR_MUL, h, a), 10, 20),
		it(s, 0), it(s, 1)));
	stir_stmt_iter_append_body(s, STORE(k, f.A, STIR_STORE_ASSIGN,
		stir_expr_float(k, 1.0), stir_expr_binary(k, STIR_MUL, it(s, 0),
			at_e(stir_expr_float(k, 2.0), 11, 15)), it(s, 1)));
	stir_stmt_iter_append_body(s, STORE(k, f.A, STIR_STORE_ASSIGN,
		at_e(stir_expr_binary(k, STIR_MOD,
			LOAD(k, f.A, it(s, 0), it(s, 1)), stir_expr_float(k, 2.0)),
			12, 25), it(s, 0), it(s, 1)));
	stir_stmt_iter_append_body(s, STORE(k, f.A, STIR_STORE_ASSIGN,
		at_e(stir_expr_select(k, stir_expr_bool(k, true),
			LOAD(k, f.A, it(s, 0), it(s, 1)),
			LOAD(k, H, it(s, 0), it(s, 1))), 13, 20),
		it(s, 0), it(s, 1)));
	stir_stmt_iter_append_body(s, stir_stmt_if(k,
		at_e(stir_expr_binary(k, STIR_LT, it(s, 0),
			LOAD(k, f.A, it(s, 0), it(s, 1))), 14, 11)));
	stir_stmt_iter_append_body(s, stir_stmt_if(k,
		stir_expr_binary(k, STIR_EQ, stir_expr_bool(k, true),
			stir_expr_binary(k, STIR_NE, stir_expr_bool(k, false),
				stir_expr_bool(k, true)))));
	stir_kernel_append_stmt(k, s);
	expect(&f,
		"10:20: error: operands of '*' do not agree: f16 and f32\n"
		"11:15: error: float literal where an integer is expected\n"
		"12:25: error: '%' needs integer operands, not f32\n"
		"13:20: error: branches of '?:' do not agree: f32 and f16\n"
		"14:11: error: operands of '<' do not agree: i32 and f32\n");
	fx_done(&f);
}
END_TEST

START_TEST(test_calls_and_casts)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_stmt *s = ITER(k, "x", "i j", "SS", f.I, f.J);
	stir_expr *a = LOAD(k, f.A, it(s, 0), it(s, 1));
	stir_stmt_iter_append_body(s, STORE(k, f.A, STIR_STORE_ASSIGN,
		stir_expr_cast(k, STIR_F32, CALL(k, STIR_EXP,
			at_e(it(s, 0), 10, 20))), it(s, 0), it(s, 1)));
	stir_stmt_iter_append_body(s, STORE(k, f.A, STIR_STORE_ASSIGN,
		at_e(CALL(k, STIR_MIN, a), 11, 15), it(s, 0), it(s, 1)));
	stir_stmt_iter_append_body(s, STORE(k, f.A, STIR_STORE_ASSIGN,
		at_e(CALL(k, STIR_SQRT, a, a), 12, 15), it(s, 0), it(s, 1)));
	stir_stmt_iter_append_body(s, STORE(k, f.A, STIR_STORE_ASSIGN,
		at_e(CALL(k, STIR_MAX, a, stir_expr_cast(k, STIR_F64, a)), 13, 15),
		it(s, 0), it(s, 1)));
	stir_stmt_iter_append_body(s, STORE(k, f.A, STIR_STORE_ASSIGN,
		at_e(stir_expr_cast(k, STIR_F32, stir_expr_bool(k, true)), 14, 15),
		it(s, 0), it(s, 1)));
	stir_stmt_iter_append_body(s, STORE(k, f.A, STIR_STORE_ASSIGN,
		CALL(k, STIR_ABS, at_e(stir_expr_binary(k, STIR_EQ, a, a), 15, 21)),
		it(s, 0), it(s, 1)));
	stir_kernel_append_stmt(k, s);
	expect(&f,
		"10:20: error: argument of 'exp' is i32, not a float\n"
		"11:15: error: 'min' takes 2 arguments, not 1\n"
		"12:15: error: 'sqrt' takes 1 argument, not 2\n"
		"13:15: error: arguments of 'max' do not agree: f32 and f64\n"
		"14:15: error: cannot cast bool to f32\n"
		"15:21: error: argument of 'abs' is bool, not a number\n");
	fx_done(&f);
}
END_TEST

/* ---- stages II and III (docs/ir.md), rules only the C API can break ---- */

/* k, name, kind, dtype, extent, arg, line: a flat buffer declared at
 * (line, 10). */
static stir_buffer *flat(stir_kernel *k, const char *name,
	stir_buffer_kind kind, stir_dtype dtype, stir_expr *extent,
	const char *arg, int line)
{
	stir_buffer *b = stir_kernel_add_flat_buffer(k, name, kind, dtype,
		extent, arg);
	ck_assert_ptr_nonnull(b);
	b->loc = L(line, 10);
	return b;
}

/* k, name, kind, dtype, line, col: a loop or block variable bound at
 * (line, col). */
static stir_var *new_var(stir_kernel *k, const char *name, stir_var_kind kind,
	stir_dtype dtype, int line, int col)
{
	stir_var *v = stir_kernel_new_var(k, name, kind, dtype);
	ck_assert_ptr_nonnull(v);
	v->loc = L(line, col);
	return v;
}

/* The nodes of stages II and III in a stage I kernel. */
START_TEST(test_stage_nodes_in_stage1)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	f.J->loc = L(1, 8);
	stir_buffer *X = flat(k, "X", STIR_BUFFER_INDPTR, STIR_I32,
		stir_expr_int(k, 4), "J.indptr", 2);
	f.J->indptr_buf = X;
	stir_var *i = new_var(k, "i", STIR_VAR_LOOP, STIR_I32, 3, 7);
	stir_kernel_append_stmt(k, at_s(stir_stmt_for(k, i, stir_expr_int(k, 4)),
		3, 3));
	stir_var *vi = new_var(k, "vi", STIR_VAR_BLOCK, STIR_I32, 4, 11);
	stir_expr *b0 = stir_expr_int(k, 0);
	stir_kernel_append_stmt(k, at_s(stir_stmt_block(k, "b", 1, &vi, &b0, "S"),
		4, 3));
	stir_stmt *iter = at_s(ITER(k, "x", "i2", "S", f.I), 5, 3);
	stir_expr *s = at_e(stir_expr_search(k, STIR_LOWER_BOUND, X,
		stir_expr_int(k, 0), stir_expr_int(k, 4), stir_expr_int(k, 1)), 6, 13);
	stir_stmt_iter_append_body(iter, at_s(stir_stmt_let(k, "t", s), 6, 5));
	stir_kernel_append_stmt(k, iter);
	expect(&f,
		"1:8: error: axis 'J' has an indptr buffer in a stage 1 kernel\n"
		"2:10: error: flat buffer 'X' is not allowed in a stage 1 kernel\n"
		"3:3: error: only iterations may appear at the top level of a kernel\n"
		"4:3: error: only iterations may appear at the top level of a kernel\n"
		"3:3: error: loop 'i' is not allowed in a stage 1 kernel\n"
		"4:3: error: block 'b' is not allowed in a stage 1 kernel\n"
		"6:13: error: 'lower_bound' is not allowed in a stage 1 kernel\n");
	fx_done(&f);
}
END_TEST

/* Flat and auxiliary buffers of stage II whose kind, binding, axis or
 * scope disagree. */
START_TEST(test_stage2_buffers)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	k->stage = STIR_STAGE_2;
	stir_kernel *o = stir_module_add_kernel(f.m, "other");
	stir_axis *Z = stir_kernel_add_dense_fixed(o, "Z", stir_expr_int(o, 2));
	f.K->loc = L(1, 8);
	f.K->indptr_buf = f.A;
	stir_buffer *P = flat(k, "P", STIR_BUFFER_INDPTR, STIR_I32,
		stir_expr_int(k, 5), "J.indptr", 2);
	P->aux_axis = f.J;
	stir_buffer *Q = flat(k, "Q", STIR_BUFFER_INDICES, STIR_I32,
		stir_expr_int(k, 5), "K.indices", 3);
	Q->aux_axis = f.J;
	f.J->indices_buf = Q;
	flat(k, "R", STIR_BUFFER_INDPTR, STIR_I32, stir_expr_int(k, 5),
		"I.indptr", 4);
	flat(k, "S", STIR_BUFFER_TENSOR, STIR_F32, stir_expr_int(k, 5), NULL, 5);
	flat(k, "T", STIR_BUFFER_LOCAL, STIR_F32, stir_expr_int(k, 5), "T", 6);
	flat(k, "U", STIR_BUFFER_TENSOR, STIR_I32, stir_expr_int(k, 5),
		"J.indptr", 7);
	flat(k, "V", STIR_BUFFER_LOCAL, STIR_F32, stir_expr_int(k, 5), NULL,
		8)->scope = (stir_scope)9;
	stir_buffer *W = stir_kernel_add_tensor(k, "W", STIR_F32, 1, &f.I);
	W->loc = L(9, 10);
	W->scope = STIR_SCOPE_SHARED;
	flat(k, "Y", STIR_BUFFER_INDPTR, STIR_I32, stir_expr_int(k, 5),
		"Z.indptr", 10)->aux_axis = Z;
	stir_buffer *Z2 = stir_kernel_add_tensor(k, "Z2", STIR_F32, 1, &f.I);
	Z2->loc = L(11, 10);
	Z2->extent = stir_expr_int(k, 3);
	expect(&f,
		"1:8: error: 'A' is not an indptr buffer of axis 'K'\n"
		"2:10: error: axis 'J' does not record its indptr buffer 'P'\n"
		"3:10: error: buffer 'Q' binds to 'K.indices' but is the indices of "
		"axis 'J'\n"
		"4:10: error: indptr buffer 'R' names no axis\n"
		"5:10: error: buffer 'S' of kind tensor binds to no array\n"
		"6:10: error: buffer 'T' of kind local cannot bind to 'T'\n"
		"7:10: error: buffer 'U' of kind tensor cannot bind to 'J.indptr'\n"
		"8:10: error: buffer 'V' has an invalid scope\n"
		"9:10: error: tensor 'W' over axes must be global\n"
		"10:10: error: axis 'Z' of buffer 'Y' belongs to another kernel\n"
		"11:10: error: buffer 'Z2' has both axes and an extent\n"
		"11:10: error: buffer 'Z2' of kind tensor binds to no array\n");
	fx_done(&f);
}
END_TEST

/* Loops, blocks, regions and searches of a stage III kernel that only
 * the constructors can get wrong. */
START_TEST(test_stage3_statements)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_alloc(ctx);
	stir_kernel *o = stir_module_add_kernel(m, "other");
	o->stage = STIR_STAGE_2;
	stir_axis *J = stir_kernel_add_dense_fixed(o, "J", stir_expr_int(o, 4));
	stir_buffer *O = stir_kernel_add_flat_buffer(o, "O", STIR_BUFFER_LOCAL,
		STIR_I32, stir_expr_int(o, 4), NULL);
	stir_kernel *k = stir_module_add_kernel(m, "k");
	k->stage = STIR_STAGE_3;
	stir_var *n = stir_kernel_add_param(k, "n", STIR_I32);
	stir_buffer *P = flat(k, "P", STIR_BUFFER_INDPTR, STIR_I32,
		stir_expr_int(k, 5), "J.indptr", 2);
	P->aux_axis = J;
	stir_buffer *X = flat(k, "X", STIR_BUFFER_LOCAL, STIR_I32,
		stir_expr_var(k, n), NULL, 3);
	/* a loop over a block variable; an i64 loop over an i32 extent */
	stir_var *x = new_var(k, "x", STIR_VAR_BLOCK, STIR_I32, 4, 7);
	stir_kernel_append_stmt(k, at_s(stir_stmt_for(k, x, stir_expr_var(k, n)),
		4, 3));
	stir_var *j = new_var(k, "j", STIR_VAR_LOOP, STIR_I64, 5, 7);
	stir_stmt *l2 = at_s(stir_stmt_for(k, j, stir_expr_var(k, n)), 5, 3);
	l2->u.for_.kind = (stir_loop_kind)7;
	stir_kernel_append_stmt(k, l2);
	stir_var *t = new_var(k, "t", STIR_VAR_LOOP, STIR_I32, 6, 7);
	stir_stmt *l3 = at_s(stir_stmt_for(k, t, stir_expr_var(k, n)), 6, 3);
	l3->u.for_.kind = STIR_LOOP_BIND;
	l3->u.for_.thread = (stir_thread)9;
	stir_kernel_append_stmt(k, l3);
	/* block b(v: S = t, w: R = v, u: S = t) with two letters */
	stir_var *v = new_var(k, "v", STIR_VAR_BLOCK, STIR_I32, 7, 13);
	stir_var *w = new_var(k, "w", STIR_VAR_LOOP, STIR_I32, 7, 20);
	stir_var *u = new_var(k, "u", STIR_VAR_BLOCK, STIR_I64, 7, 27);
	stir_stmt *blk = at_s(stir_stmt_block(k, "b", 3,
		(stir_var *[]){ v, w, u }, (stir_expr *[]){ stir_expr_var(k, t),
		at_e(stir_expr_var(k, v), 7, 24), stir_expr_var(k, t) }, "SRS"),
		7, 5);
	blk->u.block.kinds = (char *)"SR";
	stir_stmt_append_body(l3, blk);
	static stir_region reads[1];
	static stir_expr *lo[2][1], *hi[2][1];
	static stir_region writes[2];
	hi[0][0] = stir_expr_int(k, 1);
	lo[1][0] = stir_expr_int(k, 0);
	writes[0] = (stir_region){ X, 1, lo[0], hi[0] };
	writes[1] = (stir_region){ O, 1, lo[1], hi[1] };
	blk->u.block.n_reads = 1;
	blk->u.block.reads = reads;
	blk->u.block.n_writes = 2;
	blk->u.block.writes = writes;
	/* X[j] = an invalid search */
	stir_expr *bad = at_e(stir_expr_search(k, STIR_LOWER_BOUND, X,
		stir_expr_int(k, 0), stir_expr_int(k, 1), stir_expr_int(k, 2)), 8, 14);
	bad->u.search.op = (stir_search)5;
	stir_stmt_append_body(blk, at_s(STORE(k, X, STIR_STORE_ASSIGN, bad,
		at_e(stir_expr_var(k, j), 8, 9)), 8, 7));
	/* X[0] = lower_bound(O, 0, 4, 1): O is another kernel's */
	stir_stmt_append_body(blk, at_s(STORE(k, X, STIR_STORE_ASSIGN,
		at_e(stir_expr_search(k, STIR_LOWER_BOUND, O, stir_expr_int(k, 0),
		stir_expr_int(k, 4), stir_expr_int(k, 1)), 9, 14),
		stir_expr_int(k, 0)), 9, 7));
	/* X[0] = i, an iterator */
	stir_stmt *iter = stir_stmt_iter(k, "it", 0, NULL, 1,
		(const char *[]){ "i" }, "S");
	stir_stmt_append_body(blk, at_s(STORE(k, X, STIR_STORE_ASSIGN,
		at_e(it(iter, 0), 10, 14), stir_expr_int(k, 0)), 10, 7));
	/* X[0] = a search whose recorded type is not the one it gives */
	stir_expr *wrong = at_e(stir_expr_search(k, STIR_LOWER_BOUND, P,
		stir_expr_int(k, 0), stir_expr_var(k, n), stir_expr_int(k, 1)), 11, 14);
	wrong->dtype = STIR_I64;
	stir_stmt_append_body(blk, at_s(STORE(k, X, STIR_STORE_ASSIGN, wrong,
		stir_expr_int(k, 0)), 11, 7));
	int r = stir_module_verify(m);
	char *got = test_diags_to_str(ctx);
	ck_assert_str_eq(got,
		"2:10: error: buffer 'P' names axis 'J', but stage 3 has no axes\n"
		"4:7: error: variable 'x' of a loop is not a loop variable\n"
		"5:7: error: loop variable 'j' of type i64 has an extent of type i32\n"
		"5:3: error: invalid annotation of loop 'j'\n"
		"6:3: error: invalid annotation of loop 't'\n"
		"7:5: error: block 'b' has 3 variables but 2 letters in \"SR\"\n"
		"7:24: error: 'v' is used outside its block\n"
		"7:20: error: variable 'w' of a block is not a block variable\n"
		"7:27: error: block variable 'u' of type i64 has a binding of type "
		"i32\n"
		"7:5: error: invalid region in block 'b'\n"
		"7:5: error: range 1 of a region of 'X' has an upper bound but no "
		"lower bound\n"
		"7:5: error: buffer 'O' belongs to another kernel\n"
		"8:9: error: 'j' is used outside its loop\n"
		"8:14: error: invalid search\n"
		"9:14: error: buffer 'O' belongs to another kernel\n"
		"10:14: error: iterator 'i' is not allowed in a stage 3 kernel\n"
		"11:14: error: expression of type i64 where its operands give i32\n");
	ck_assert_int_eq(r, -1);
	free(got);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- malformed modules ---- */

/* A kernel of no known stage is reported once, and not checked further. */
START_TEST(test_stage)
{
	fx f;
	fx_init(&f);
	f.k->stage = (stir_stage)7;
	f.k->loc = L(1, 8);
	stir_kernel_add_param(f.k, "bad", STIR_F32);
	expect(&f, "1:8: error: kernel 'csrmm' has an invalid stage 7\n");
	fx_done(&f);
}
END_TEST

/* Statements appended inside themselves, statements and buffers of
 * another kernel: reported, never looped on. */
START_TEST(test_malformed_statements)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_stmt *o = ITER(k, "o", "i", "S", f.I);
	stir_stmt *c = at_s(stir_stmt_if(k, stir_expr_bool(k, true)), 9, 5);
	stir_stmt_if_append_then(c, c);
	stir_stmt_iter_append_body(o, c);
	stir_kernel *k2 = stir_module_add_kernel(f.m, "other");
	stir_axis *R = stir_kernel_add_dense_fixed(k2, "R", stir_expr_int(k2, 3));
	stir_buffer *T = stir_kernel_add_tensor(k2, "T", STIR_F32, 1, &R);
	stir_stmt_iter_append_body(o, at_s(STORE(k2, T, STIR_STORE_ASSIGN,
		stir_expr_float(k2, 1.0), stir_expr_int(k2, 0)), 10, 5));
	stir_stmt_iter_append_body(o, at_s(STORE(k, T, STIR_STORE_ASSIGN,
		stir_expr_float(k, 1.0), stir_expr_int(k, 0)), 11, 5));
	stir_kernel_append_stmt(k, o);
	stir_stmt *s = at_s(ITER(k, "x", "i", "S", f.I), 12, 3);
	stir_stmt_iter_append_body(s, s);
	stir_kernel_append_stmt(k, s);
	expect(&f,
		"9:5: error: statement contains itself\n"
		"10:5: error: statement of kernel 'other' in kernel 'csrmm'\n"
		"11:5: error: tensor 'T' belongs to another kernel\n"
		"12:3: error: statement contains itself\n");
	fx_done(&f);
}
END_TEST

/* The statements of a kernel are iterations. */
START_TEST(test_top_level)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_kernel_append_stmt(k, at_s(stir_stmt_let(k, "t",
		stir_expr_int(k, 1)), 9, 3));
	stir_kernel_append_stmt(k, at_s(stir_stmt_if(k, stir_expr_bool(k, true)),
		10, 3));
	stir_kernel_append_stmt(k, at_s(STORE(k, f.C, STIR_STORE_ASSIGN,
		stir_expr_float(k, 1.0), stir_expr_int(k, 0), stir_expr_int(k, 0)),
		11, 3));
	add_csrmm_iter(&f);
	expect(&f,
		"9:3: error: only iterations may appear at the top level of a "
		"kernel\n"
		"10:3: error: only iterations may appear at the top level of a "
		"kernel\n"
		"11:3: error: only iterations may appear at the top level of a "
		"kernel\n");
	fx_done(&f);
}
END_TEST

/* Verification goes on after errors: one kernel with a mistake in each
 * part, then a second kernel with its own. */
START_TEST(test_all_errors_reported)
{
	fx f;
	fx_init(&f);
	stir_kernel *k = f.k;
	stir_var *p = stir_kernel_add_param(k, "p", STIR_F64);
	p->loc = L(1, 50);
	stir_buffer *T = stir_kernel_add_tensor(k, "T", STIR_F32, 2,
		(stir_axis *[]){ f.J, f.I });
	T->loc = L(9, 10);
	stir_stmt *s = ITER(k, "x", "i j", "SR", f.I, f.J);
	s->u.iter.kinds_loc = L(10, 30);
	stir_stmt_iter_append_body(s, at_s(STORE(k, f.A, STIR_STORE_ASSIGN,
		stir_expr_cast(k, STIR_I32, stir_expr_float(k, 1.0)),
		it(s, 0), it(s, 1)), 11, 5));
	stir_kernel_append_stmt(k, s);
	stir_kernel *k2 = stir_module_add_kernel(f.m, "two");
	stir_var *q = stir_kernel_add_param(k2, "q", STIR_BF16);
	q->loc = L(20, 15);
	expect(&f,
		"1:50: error: parameter 'p' must be i32 or i64, not f64\n"
		"9:10: error: axis 'J' breaks parent order in tensor 'T': "
		"its parent 'I' must come before it\n"
		"11:5: error: cannot store i32 into 'A' of type f32 without a cast\n"
		"20:15: error: parameter 'q' must be i32 or i64, not bf16\n");
	/* a kernel on its own */
	stir_ctx_clear_diagnostics(f.ctx);
	ck_assert_int_eq(stir_kernel_verify(k2), -1);
	ck_assert_int_eq(stir_ctx_n_errors(f.ctx), 1);
	fx_done(&f);
}
END_TEST

/* ---- random malformed modules ---- */

/* A random generator of modules built from whatever the C API accepts:
 * objects of the other kernel, variables out of their scope, wrong
 * counts, any types, statements appended inside themselves. */
typedef struct gen {
	uint64_t state;          /* xorshift64 state */
	stir_kernel *k[2];
	stir_axis *axes[64];     /* of both kernels */
	int n_axes;
	stir_buffer *bufs[64];
	int n_bufs;
	stir_var *vars[256];     /* params, iterators, lets of both kernels */
	int n_vars;
	stir_stmt *stmts[256];   /* every statement built */
	int n_stmts;
} gen;

/* g: the next pseudo-random number below n (n > 0). */
static int rnd(gen *g, int n)
{
	g->state ^= g->state << 13;
	g->state ^= g->state >> 7;
	g->state ^= g->state << 17;
	return (int)(g->state % (uint64_t)n);
}

/* g: any type, bool and "none" included. */
static stir_dtype rnd_dtype(gen *g)
{
	return (stir_dtype)rnd(g, STIR_BOOL + 1);
}

/* g, k, depth: a random expression of kernel k. */
static stir_expr *rnd_expr(gen *g, stir_kernel *k, int depth)
{
	int c = rnd(g, depth > 3 ? 4 : 11);
	stir_expr *e = NULL;
	switch (c) {
	case 0: e = stir_expr_int(k, rnd(g, 7) - 2); break;
	case 1: e = stir_expr_float(k, 0.5 * rnd(g, 5)); break;
	case 2: e = stir_expr_bool(k, rnd(g, 2)); break;
	case 3:
		e = g->n_vars ? stir_expr_var(k, g->vars[rnd(g, g->n_vars)]) :
			stir_expr_int(k, 1);
		break;
	case 4:
		if (g->n_bufs) {
			stir_expr *idx[3];
			int n = rnd(g, 4);
			for (int i = 0; i < n; i++)
				idx[i] = rnd_expr(g, k, depth + 1);
			e = stir_expr_load(k, g->bufs[rnd(g, g->n_bufs)], n, idx);
		} else {
			e = stir_expr_int(k, 0);
		}
		break;
	case 5:
		e = stir_expr_unary(k, (stir_unop)rnd(g, 2),
			rnd_expr(g, k, depth + 1));
		break;
	case 6:
	case 7:
		e = stir_expr_binary(k, (stir_binop)rnd(g, STIR_OR + 1),
			rnd_expr(g, k, depth + 1), rnd_expr(g, k, depth + 1));
		break;
	case 8: {
		stir_expr *args[3];
		int n = 1 + rnd(g, 3);
		for (int i = 0; i < n; i++)
			args[i] = rnd_expr(g, k, depth + 1);
		e = stir_expr_call(k, (stir_func)rnd(g, STIR_TANH + 1), n, args);
		break;
	}
	case 9:
		e = g->n_bufs ? stir_expr_search(k, (stir_search)rnd(g, 3),
			g->bufs[rnd(g, g->n_bufs)], rnd_expr(g, k, depth + 1),
			rnd_expr(g, k, depth + 1), rnd_expr(g, k, depth + 1)) :
			stir_expr_int(k, 0);
		break;
	default:
		e = rnd(g, 2) ? stir_expr_cast(k, rnd_dtype(g),
				rnd_expr(g, k, depth + 1)) :
			stir_expr_select(k, rnd_expr(g, k, depth + 1),
				rnd_expr(g, k, depth + 1), rnd_expr(g, k, depth + 1));
		break;
	}
	ck_assert_ptr_nonnull(e);
	return e;
}

/* g, k: a random axis of kernel k (its parent from either kernel). */
static void rnd_axis(gen *g, stir_kernel *k)
{
	char name[16];
	snprintf(name, sizeof(name), "A%d", rnd(g, 20));
	stir_expr *len = rnd_expr(g, k, 2), *nnz = rnd_expr(g, k, 2);
	stir_axis *a;
	if (!g->n_axes || rnd(g, 3) == 0) {
		a = stir_kernel_add_dense_fixed(k, name, len);
	} else {
		stir_axis *p = g->axes[rnd(g, g->n_axes)];
		switch (rnd(g, 3)) {
		case 0: a = stir_kernel_add_dense_variable(k, name, p, len, nnz); break;
		case 1: a = stir_kernel_add_sparse_fixed(k, name, p, len, nnz); break;
		default: a = stir_kernel_add_sparse_variable(k, name, p, len, nnz); break;
		}
	}
	ck_assert_ptr_nonnull(a);
	if (rnd(g, 8) == 0)
		stir_axis_set_idtype(a, rnd_dtype(g));
	if (g->n_axes < 64)
		g->axes[g->n_axes++] = a;
}

/* g, k, name: a random flat buffer of kernel k, its kind, binding, axis
 * and scope often disagreeing. */
static stir_buffer *rnd_flat_buffer(gen *g, stir_kernel *k, const char *name)
{
	static const char *const args[] = { NULL, "A1", "A2.indptr",
		"A3.indices", "A4.x" };
	stir_buffer *b = stir_kernel_add_flat_buffer(k, name,
		(stir_buffer_kind)rnd(g, 5), rnd_dtype(g), rnd_expr(g, k, 2),
		args[rnd(g, 5)]);
	ck_assert_ptr_nonnull(b);
	b->scope = (stir_scope)rnd(g, 4);
	if (rnd(g, 2)) {
		stir_axis *a = g->axes[rnd(g, g->n_axes)];
		b->aux_axis = a;
		if (rnd(g, 2))
			a->indptr_buf = b;
		else
			a->indices_buf = b;
	}
	return b;
}

/* g, k: a random tensor, local or flat buffer of kernel k. */
static void rnd_buffer(gen *g, stir_kernel *k)
{
	char name[16];
	snprintf(name, sizeof(name), "B%d", rnd(g, 20));
	if (rnd(g, 3) == 0) {
		stir_buffer *b = rnd_flat_buffer(g, k, name);
		if (g->n_bufs < 64)
			g->bufs[g->n_bufs++] = b;
		return;
	}
	stir_axis *axes[4];
	int n = rnd(g, 5);
	for (int i = 0; i < n; i++)
		axes[i] = g->axes[rnd(g, g->n_axes)];
	stir_buffer *b = rnd(g, 2) ?
		stir_kernel_add_tensor(k, name, rnd_dtype(g), n, axes) :
		stir_kernel_add_local(k, name, rnd_dtype(g), n, axes);
	ck_assert_ptr_nonnull(b);
	if (rnd(g, 6) == 0)
		stir_buffer_set_domain(b, rnd_expr(g, k, 2), rnd_expr(g, k, 2));
	if (g->n_bufs < 64)
		g->bufs[g->n_bufs++] = b;
}

static stir_stmt *rnd_stmt(gen *g, stir_kernel *k, int depth);

/* g, k, depth: a random iteration of kernel k with a random body. */
static stir_stmt *rnd_iter(gen *g, stir_kernel *k, int depth)
{
	static const char *const names[] = { "i", "j", "k", "m", "A1", "x" };
	static const char *const kinds[] = { "S", "R", "SR", "RS", "SSR",
		"SRS", "", "SQ", "RRR" };
	stir_iter_group groups[3];
	stir_axis *members[3][3];
	int n_groups = rnd(g, 4), n_members = 0;
	for (int i = 0; i < n_groups; i++) {
		groups[i] = (stir_iter_group){ .coo = rnd(g, 2) };
		groups[i].kind = (stir_iter_group_kind)rnd(g, 3);
		groups[i].n_axes = groups[i].kind == STIR_GROUP_FUSE ?
			1 + rnd(g, 3) : 1;
		for (int j = 0; j < groups[i].n_axes; j++)
			members[i][j] = g->axes[rnd(g, g->n_axes)];
		groups[i].axes = members[i];
		groups[i].attach_parent = g->axes[rnd(g, g->n_axes)];
		n_members += groups[i].n_axes;
	}
	const char *vars[12];
	int n_vars = rnd(g, 2) ? n_members : rnd(g, 5);
	for (int i = 0; i < n_vars; i++)
		vars[i] = names[rnd(g, 6)];
	const char *kind = rnd(g, 2) ? "SRSRSRS" + (7 - (n_members > 7 ?
		7 : n_members)) : kinds[rnd(g, 9)];
	stir_stmt *s = stir_stmt_iter(k, rnd(g, 2) ? "it" : "it2", n_groups,
		groups, n_vars, vars, kind);
	ck_assert_ptr_nonnull(s);
	for (int i = 0; i < n_vars && g->n_vars < 256; i++)
		g->vars[g->n_vars++] = stir_stmt_iter_get_var(s, i);
	for (int i = rnd(g, 3); i > 0; i--)
		stir_stmt_iter_append_init(s, rnd_stmt(g, k, depth + 1));
	for (int i = rnd(g, 4); i > 0; i--)
		stir_stmt_iter_append_body(s, rnd_stmt(g, k, depth + 1));
	return s;
}

/* g, k, kind, name: a new loop or block variable, sometimes of the
 * other kind, made available to later expressions. */
static stir_var *rnd_var(gen *g, stir_kernel *k, stir_var_kind kind,
	const char *name)
{
	stir_var *v = stir_kernel_new_var(k, name, rnd(g, 6) ?
		kind : (stir_var_kind)rnd(g, 5), rnd_dtype(g));
	ck_assert_ptr_nonnull(v);
	if (g->n_vars < 256)
		g->vars[g->n_vars++] = v;
	return v;
}

/* g, k, n: n random regions in the kernel's arena (bounds missing at
 * random, buffers of either kernel, any number of dimensions). */
static stir_region *rnd_regions(gen *g, stir_kernel *k, int n)
{
	stir_region *r = stir_arena_alloc(stir_kernel_arena(k),
		(size_t)(n ? n : 1) * sizeof(*r));
	ck_assert_ptr_nonnull(r);
	for (int i = 0; i < n; i++) {
		int d = rnd(g, 3);
		r[i].buf = g->n_bufs && rnd(g, 8) ? g->bufs[rnd(g, g->n_bufs)] : NULL;
		r[i].n = d;
		r[i].lo = stir_arena_alloc(stir_kernel_arena(k), 3 * sizeof(void *));
		r[i].hi = stir_arena_alloc(stir_kernel_arena(k), 3 * sizeof(void *));
		for (int j = 0; j < d; j++) {
			r[i].lo[j] = rnd(g, 3) ? rnd_expr(g, k, 2) : NULL;
			r[i].hi[j] = rnd(g, 2) ? rnd_expr(g, k, 2) : NULL;
		}
	}
	return r;
}

/* g, k, depth: a random loop or block of kernel k with a random body. */
static stir_stmt *rnd_loop_or_block(gen *g, stir_kernel *k, int depth)
{
	static const char *const names[] = { "i", "v", "n", "A1", "b" };
	static const char *const kinds[] = { "", "S", "SR", "RSX", "Q" };
	stir_stmt *s;
	if (rnd(g, 2)) {
		s = stir_stmt_for(k, rnd_var(g, k, STIR_VAR_LOOP,
			names[rnd(g, 5)]), rnd_expr(g, k, 1));
		ck_assert_ptr_nonnull(s);
		s->u.for_.kind = (stir_loop_kind)rnd(g, 5);
		s->u.for_.thread = (stir_thread)rnd(g, 7);
	} else {
		const char *kind = kinds[rnd(g, 5)];
		int n = (int)strlen(kind);
		stir_var *vars[3];
		stir_expr *bindings[3];
		for (int i = 0; i < n; i++) {
			bindings[i] = rnd_expr(g, k, 1);
			vars[i] = rnd_var(g, k, STIR_VAR_BLOCK, names[rnd(g, 5)]);
		}
		s = stir_stmt_block(k, rnd(g, 2) ? "b" : "c", n, vars, bindings,
			kind);
		ck_assert_ptr_nonnull(s);
		if (rnd(g, 6) == 0)
			s->u.block.kinds = (char *)"SSSSSS";
		s->u.block.n_reads = rnd(g, 3);
		s->u.block.reads = rnd_regions(g, k, s->u.block.n_reads);
		s->u.block.n_writes = rnd(g, 3);
		s->u.block.writes = rnd_regions(g, k, s->u.block.n_writes);
	}
	for (int i = rnd(g, 4); i > 0; i--)
		stir_stmt_append_body(s, rnd_stmt(g, k, depth + 1));
	return s;
}

/* g, k, depth: a random statement of kernel k; sometimes one built
 * before (possibly an enclosing one, making a cycle). */
static stir_stmt *rnd_stmt(gen *g, stir_kernel *k, int depth)
{
	stir_stmt *s;
	int c = rnd(g, depth > 2 ? 3 : 8);
	if (g->n_stmts && rnd(g, 12) == 0)
		return g->stmts[rnd(g, g->n_stmts)];
	if (c == 0 || c == 1) {
		stir_expr *idx[3];
		int n = rnd(g, 4);
		for (int i = 0; i < n; i++)
			idx[i] = rnd_expr(g, k, 1);
		s = stir_stmt_store(k, g->bufs[rnd(g, g->n_bufs)], n, idx,
			(stir_store_op)rnd(g, 4), rnd_expr(g, k, 0));
	} else if (c == 2) {
		s = stir_stmt_let(k, rnd(g, 2) ? "t" : "i", rnd_expr(g, k, 0));
		if (g->n_vars < 256)
			g->vars[g->n_vars++] = stir_stmt_let_get_var(s);
	} else if (c == 3) {
		s = stir_stmt_if(k, rnd_expr(g, k, 0));
		for (int i = rnd(g, 3); i > 0; i--)
			stir_stmt_if_append_then(s, rnd_stmt(g, k, depth + 1));
		for (int i = rnd(g, 3); i > 0; i--)
			stir_stmt_if_append_else(s, rnd_stmt(g, k, depth + 1));
	} else if (c < 6) {
		s = rnd_iter(g, k, depth);
	} else {
		s = rnd_loop_or_block(g, k, depth);
	}
	ck_assert_ptr_nonnull(s);
	if (g->n_stmts < 256)
		g->stmts[g->n_stmts++] = s;
	/* now and then, a statement appended inside itself */
	if (rnd(g, 20) == 0 && s->kind == STIR_STMT_IF)
		stir_stmt_if_append_else(s, s);
	if (rnd(g, 20) == 0 && stir_stmt_body(s))
		stir_stmt_append_body(s, s);
	return s;
}

/* l, path, n: whether a statement of l, or one inside it, contains
 * itself; path holds the n statements being walked (a path longer than
 * it counts as a cycle). */
static bool has_cycle(const stir_ptr_vec *l, const stir_stmt **path, int n)
{
	for (int i = 0; i < l->n; i++) {
		stir_stmt *s = stir_stmt_at(l, i);
		for (int j = 0; j < n; j++)
			if (path[j] == s)
				return true;
		if (n == 64)
			return true;
		path[n] = s;
		const stir_ptr_vec *lists[] = { stir_stmt_body(s),
			s->kind == STIR_STMT_IF ? &s->u.if_.then_body : NULL,
			s->kind == STIR_STMT_IF ? &s->u.if_.else_body : NULL,
			s->kind == STIR_STMT_ITER ? &s->u.iter.init : NULL };
		for (int j = 0; j < 4; j++)
			if (lists[j] && has_cycle(lists[j], path, n + 1))
				return true;
	}
	return false;
}

/* Random malformed modules: verification must finish without a crash (or
 * a sanitizer report), return -1 exactly when it reported errors, and give
 * every error a message. */
START_TEST(test_random_modules)
{
	int n_rejected = 0;
	for (int round = 0; round < 400; round++) {
		gen g = { .state = 0x9e3779b97f4a7c15ull + (uint64_t)round };
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m = stir_module_alloc(ctx);
		for (int i = 0; i < 2; i++) {
			stir_kernel *k = g.k[i] = stir_module_add_kernel(m, "k");
			k->stage = (stir_stage)rnd(&g, 5);
			for (int j = rnd(&g, 4); j > 0; j--) {
				stir_var *p = stir_kernel_add_param(k, rnd(&g, 2) ?
					"n" : "A1", rnd_dtype(&g));
				if (g.n_vars < 256)
					g.vars[g.n_vars++] = p;
			}
			for (int j = 1 + rnd(&g, 5); j > 0; j--)
				rnd_axis(&g, k);
			for (int j = 1 + rnd(&g, 4); j > 0; j--)
				rnd_buffer(&g, k);
		}
		for (int i = 0; i < 2; i++)
			for (int j = rnd(&g, 4); j > 0; j--)
				stir_kernel_append_stmt(g.k[i], rnd_stmt(&g, g.k[i], 0));
		int r = stir_module_verify(m);
		ck_assert_int_eq(r, stir_ctx_n_errors(ctx) > 0 ? -1 : 0);
		for (int i = 0; i < stir_ctx_n_diagnostics(ctx); i++)
			ck_assert_int_gt(strlen(stir_diag_get_message(
				stir_ctx_get_diagnostic(ctx, i))), 0);
		n_rejected += r < 0;
		/* the printer must cope with them too, except with a statement
		 * inside itself, which it would print forever */
		bool cycle = false;
		for (int i = 0; i < 2; i++) {
			const stir_stmt *path[64];
			cycle |= has_cycle(&g.k[i]->body, path, 0);
		}
		char *text = cycle ? NULL : stir_module_to_str(m);
		ck_assert(cycle || text);
		free(text);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
	/* the generator does build broken modules */
	ck_assert_int_gt(n_rejected, 300);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("verify");
	TCase *tc = tcase_create("valid");
	tcase_add_test(tc, test_valid_csrmm);
	tcase_add_test(tc, test_valid_fuse);
	tcase_add_test(tc, test_valid_nested);
	tcase_add_test(tc, test_valid_no_init);
	suite_add_tcase(s, tc);
	tc = tcase_create("names");
	tcase_add_test(tc, test_duplicate_kernel_names);
	tcase_add_test(tc, test_duplicate_source_order);
	tcase_add_test(tc, test_duplicate_module_kernels);
	tcase_add_test(tc, test_iterator_shadows);
	tcase_add_test(tc, test_let_shadows);
	tcase_add_test(tc, test_duplicate_iteration_names);
	tcase_add_test(tc, test_iterator_out_of_scope);
	tcase_add_test(tc, test_let_out_of_scope);
	tcase_add_test(tc, test_foreign_param);
	suite_add_tcase(s, tc);
	tc = tcase_create("declarations");
	tcase_add_test(tc, test_param_type);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_domain);
	tcase_add_test(tc, test_domain_missing_bound);
	tcase_add_test(tc, test_distinct_needs_domain);
	tcase_add_test(tc, test_axis_parents);
	tcase_add_test(tc, test_buffer_axis_lists);
	tcase_add_test(tc, test_buffer_types);
	suite_add_tcase(s, tc);
	tc = tcase_create("iterations");
	tcase_add_test(tc, test_iter_counts);
	tcase_add_test(tc, test_iter_parent_order);
	tcase_add_test(tc, test_iter_foreign_axis);
	tcase_add_test(tc, test_fuse);
	tcase_add_test(tc, test_attach);
	tcase_add_test(tc, test_init_dependence);
	tcase_add_test(tc, test_init_uses_reduction_iterator);
	suite_add_tcase(s, tc);
	tc = tcase_create("statements");
	tcase_add_test(tc, test_index_count);
	tcase_add_test(tc, test_index_types);
	tcase_add_test(tc, test_store_types);
	tcase_add_test(tc, test_update_bool);
	tcase_add_test(tc, test_conditions);
	tcase_add_test(tc, test_operands);
	tcase_add_test(tc, test_calls_and_casts);
	suite_add_tcase(s, tc);
	tc = tcase_create("malformed");
	tcase_add_test(tc, test_stage);
	tcase_add_test(tc, test_stage_nodes_in_stage1);
	tcase_add_test(tc, test_stage2_buffers);
	tcase_add_test(tc, test_stage3_statements);
	tcase_add_test(tc, test_malformed_statements);
	tcase_add_test(tc, test_top_level);
	tcase_add_test(tc, test_all_errors_reported);
	tcase_add_test(tc, test_random_modules);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
