/* The IR walker (ir/visit.h), the one structural equality (ir/equal.c),
 * the affine forms (ir/affine.h) and the operator table (ir/ops.h): the
 * order and reach of a walk, skipping, stopping and rewriting in place,
 * the uses / writes queries on a lowered kernel, what may be evaluated
 * anywhere, what each equality flag and hook ignores, the linear forms
 * the schedule, regions and vector code ask for, and the table's
 * agreement with the printer and reader. */
#include <stir/ir.h>
#include <stir/lang.h>
#include <stir/passes.h>
#include "ir/affine.h"
#include "ir/nodes.h"
#include "ir/ops.h"
#include "ir/util.h"
#include "ir/visit.h"
#include "tests/testutil.h"

/* A kernel to build expressions in, with its module and context. */
typedef struct fixture {
	stir_ctx *ctx;
	stir_module *m;
	stir_kernel *k;
	stir_var *n;       /* parameter n: i32 */
	stir_var *i, *j;   /* loop variables i, j: i32 */
} fixture;

/* A fresh fixture. */
static fixture setup(void)
{
	fixture f;
	f.ctx = stir_ctx_alloc();
	f.m = stir_module_alloc(f.ctx);
	f.k = stir_module_add_kernel(f.m, "t");
	f.n = stir_kernel_add_param(f.k, "n", STIR_I32);
	f.i = stir_kernel_new_var(f.k, "i", STIR_VAR_LOOP, STIR_I32);
	f.j = stir_kernel_new_var(f.k, "j", STIR_VAR_LOOP, STIR_I32);
	ck_assert_ptr_nonnull(f.j);
	return f;
}

/* f: free the fixture. */
static void teardown(fixture *f)
{
	stir_module_free(f->m);
	stir_ctx_free(f->ctx);
}

/* f, v: v as an expression. */
static stir_expr *V(fixture *f, stir_var *v)
{
	return stir_expr_var(f->k, v);
}

/* f, c: the literal c. */
static stir_expr *I(fixture *f, int64_t c)
{
	return stir_expr_int(f->k, c);
}

/* f, op, a, b: a op b. */
static stir_expr *B(fixture *f, stir_binop op, stir_expr *a, stir_expr *b)
{
	return stir_expr_binary(f->k, op, a, b);
}

/* ---- the walk ---- */

/* What the counting callbacks record. */
typedef struct trace {
	char s[4096];         /* one letter per node, pre order */
	int n;
	int stop_after;       /* stop at this many nodes (0: never) */
	bool skip_binary;     /* do not enter binary operations */
} trace;

/* slot, user: record the node's kind (a trace). */
static stir_visit_step trace_expr(stir_expr **slot, void *user)
{
	trace *t = user;
	const char *kinds = "IFVLUBSCXs";
	ck_assert_int_lt(t->n, (int)sizeof(t->s) - 1);
	t->s[t->n++] = kinds[(*slot)->kind];
	t->s[t->n] = '\0';
	if (t->stop_after && t->n == t->stop_after)
		return STIR_VISIT_STOP;
	if (t->skip_binary && (*slot)->kind == STIR_EXPR_BINARY)
		return STIR_VISIT_SKIP;
	return STIR_VISIT_GO;
}

/* slot, user: replace every use of loop variable i by 7 (a fixture). */
static stir_visit_step subst_i(stir_expr **slot, void *user)
{
	fixture *f = user;
	if ((*slot)->kind == STIR_EXPR_VAR && (*slot)->u.var == f->i)
		*slot = I(f, 7);
	return STIR_VISIT_GO;
}

START_TEST(test_walk_order_skip_stop_rewrite)
{
	fixture f = setup();
	/* (i + n) * min(j, 3) */
	stir_expr *args[2] = { V(&f, f.j), I(&f, 3) };
	stir_expr *e = B(&f, STIR_MUL, B(&f, STIR_ADD, V(&f, f.i), V(&f, f.n)),
		stir_expr_call(f.k, STIR_MIN, 2, args));
	trace t = { .n = 0 };
	stir_visitor v = { NULL, NULL, trace_expr, NULL, 0, &t };
	ck_assert(!stir_visit_expr(&v, &e));
	ck_assert_str_eq(t.s, "BBVVCVI");
	t = (trace){ .skip_binary = true };
	stir_visit_expr(&v, &e);
	ck_assert_str_eq(t.s, "B");
	t = (trace){ .stop_after = 3 };
	ck_assert(stir_visit_expr(&v, &e));
	ck_assert_str_eq(t.s, "BBV");
	/* rewriting in place: i becomes 7 */
	stir_visitor r = { NULL, NULL, subst_i, NULL, 0, &f };
	stir_visit_expr(&r, &e);
	ck_assert(!stir_expr_uses(e, f.i));
	ck_assert(stir_expr_uses(e, f.j));
	ck_assert_int_eq(e->u.binary.a->u.binary.a->kind, STIR_EXPR_INT);
	ck_assert_int_eq(e->u.binary.a->u.binary.a->u.i, 7);
	teardown(&f);
}
END_TEST

/* A kernel lowered to stage III from a file of the source tree. */
typedef struct lowered {
	stir_ctx *ctx;
	stir_module *m;
	stir_kernel *k;
} lowered;

/* file: read it and lower its first kernel to stage III. */
static lowered lower3(const char *file)
{
	lowered l = { stir_ctx_alloc(), NULL, NULL };
	l.m = stir_module_read_from_file(l.ctx, test_path(file));
	ck_assert_ptr_nonnull(l.m);
	l.k = stir_module_get_kernel(l.m, 0);
	ck_assert_int_eq(stir_lower_sparse_iter(l.k), 0);
	ck_assert_int_eq(stir_lower_sparse_buffer(l.k), 0);
	return l;
}

/* k, name: the buffer of k called name. */
static stir_buffer *buffer(stir_kernel *k, const char *name)
{
	for (int i = 0; i < k->buffers.n; i++)
		if (!strcmp(stir_buffer_at(&k->buffers, i)->name, name))
			return stir_buffer_at(&k->buffers, i);
	ck_abort_msg("no buffer %s", name);
	return NULL;
}

/* s, user: count statements by kind (an int[6]). */
static stir_visit_step count_stmt(stir_stmt *s, void *user)
{
	((int *)user)[s->kind]++;
	return STIR_VISIT_GO;
}

/* ellmv at stage III: a loop storing y_data[vi] = 0.0, then a nest whose
 * block does y_data[vi] += A_data[..] * x_data[J_indices[..]]. */
START_TEST(test_uses_on_lowered_kernel)
{
	lowered l = lower3("examples/ellmv.stir");
	stir_buffer *y = buffer(l.k, "y_data"), *a = buffer(l.k, "A_data");
	stir_buffer *x = buffer(l.k, "x_data");
	stir_buffer *ji = buffer(l.k, "J_indices");
	int kinds[6] = { 0 };
	stir_visitor v = { count_stmt, NULL, NULL, NULL, 0, kinds };
	stir_visit_list(&v, &l.k->body);
	ck_assert_int_eq(kinds[STIR_STMT_STORE], 2);
	ck_assert_int_eq(kinds[STIR_STMT_FOR], 3);
	ck_assert_int_eq(kinds[STIR_STMT_BLOCK], 2);
	ck_assert_int_eq(kinds[STIR_STMT_ITER], 0);

	ck_assert_int_eq(l.k->body.n, 2);
	stir_stmt *init = stir_stmt_at(&l.k->body, 0);
	stir_stmt *nest = stir_stmt_at(&l.k->body, 1);
	ck_assert(stir_stmt_writes(init, y));
	ck_assert(!stir_stmt_reads(init, y));   /* = does not read */
	ck_assert(!stir_stmt_writes(init, a));
	ck_assert(!stir_stmt_reads(init, a));
	ck_assert(stir_stmt_writes(nest, NULL));
	ck_assert(stir_stmt_reads(nest, a));
	ck_assert(stir_stmt_reads(nest, x));
	ck_assert(stir_stmt_reads(nest, ji));   /* inside x_data's index */
	ck_assert(stir_stmt_reads(nest, y));    /* += reads y_data */

	stir_uses u = { .buf = y };
	stir_uses_list(&u, &l.k->body);
	ck_assert_int_eq(u.stores, 2);
	ck_assert_int_eq(u.updates, 1);
	ck_assert_int_eq(u.loads, 0);
	u = (stir_uses){ .buf = ji };
	stir_uses_list(&u, &l.k->body);
	ck_assert_int_eq(u.loads, 1);          /* regions are not accesses */
	ck_assert_int_eq(u.stores, 0);
	u = (stir_uses){ .any_buf = true, .first = true };
	stir_uses_list(&u, &l.k->body);
	ck_assert_int_eq(u.loads + u.stores, 1);   /* stopped at the first */

	/* c (parameter 2) is a loop extent; m is used by the loops only */
	ck_assert(stir_stmt_uses(nest, nest->u.for_.var));
	ck_assert(stir_list_uses_var(&l.k->body, stir_kernel_get_param(l.k, 2)));
	ck_assert(!stir_list_uses_var(&nest->u.for_.body,
		stir_kernel_get_param(l.k, 0)));
	ck_assert(!stir_list_uses_var(&l.k->body, stir_kernel_get_param(l.k, 1)));
	stir_module_free(l.m);
	stir_ctx_free(l.ctx);
}
END_TEST

/* Region bounds are walked only when asked (STIR_VISIT_REGIONS). */
START_TEST(test_walk_regions)
{
	lowered l = lower3("examples/ellmv.stir");
	trace t = { .n = 0 };
	stir_visitor v = { NULL, NULL, trace_expr, NULL, 0, &t };
	stir_stmt *nest = stir_stmt_at(&l.k->body, 1);
	stir_visit_stmt(&v, nest);
	int plain = t.n;
	t = (trace){ .n = 0 };
	v.flags = STIR_VISIT_REGIONS;
	stir_visit_stmt(&v, nest);
	ck_assert_int_gt(t.n, plain);
	stir_module_free(l.m);
	stir_ctx_free(l.ctx);
}
END_TEST

/* ---- equality ---- */

/* v, user: j stands for i (a fixture): a canon hook. */
static const stir_var *canon_j_is_i(const stir_var *v, const void *user)
{
	const fixture *f = user;
	return v == f->j ? f->i : v;
}

/* v, user: j reads as i + 1 (a fixture): an expand hook. */
static const stir_expr *expand_j(const stir_var *v, const void *user)
{
	fixture *f = (fixture *)user;
	static stir_expr *bound;
	if (v != f->j)
		return NULL;
	bound = B(f, STIR_ADD, V(f, f->i), I(f, 1));
	return bound;
}

START_TEST(test_equality_flags_and_hooks)
{
	fixture f = setup();
	stir_expr *a = B(&f, STIR_ADD, V(&f, f.i), I(&f, 1));
	stir_expr *b = B(&f, STIR_ADD, V(&f, f.i), I(&f, 1));
	stir_expr *c = B(&f, STIR_ADD, V(&f, f.j), I(&f, 1));
	ck_assert(stir_expr_same(a, b));
	ck_assert(stir_expr_equal(NULL, a, b));
	ck_assert(!stir_expr_same(a, c));
	ck_assert(stir_expr_same(NULL, NULL));
	/* float literals bit for bit */
	ck_assert(!stir_expr_same(stir_expr_float(f.k, 0.0),
		stir_expr_float(f.k, -0.0)));

	stir_eq canon = { 0, NULL, canon_j_is_i, &f };
	ck_assert(stir_expr_equal(&canon, a, c));
	stir_eq expand = { 0, expand_j, NULL, &f };
	ck_assert(stir_expr_equal(&expand, a, V(&f, f.j)));
	ck_assert(stir_expr_equal(&expand, V(&f, f.j), a));
	ck_assert(!stir_expr_equal(&expand, b, c));
	stir_eq strict = { STIR_EQ_NULL_UNEQUAL, NULL, NULL, NULL };
	ck_assert(!stir_expr_equal(&strict, NULL, NULL));
	ck_assert(stir_expr_equal(&strict, a, b));

	/* uses through an expansion: j reads as i + 1 */
	stir_uses u = { .var = f.i, .expand = expand_j, .expand_user = &f };
	stir_uses_expr(&u, B(&f, STIR_MUL, V(&f, f.j), V(&f, f.j)));
	ck_assert_int_eq(u.var_uses, 2);
	ck_assert(!stir_expr_uses(V(&f, f.j), f.i));

	/* by name: a variable of another kernel with the same name, kind and
	 * type */
	stir_kernel *k2 = stir_module_add_kernel(f.m, "u");
	stir_var *i2 = stir_kernel_new_var(k2, "i", STIR_VAR_LOOP, STIR_I32);
	stir_expr *d = stir_expr_binary(k2, STIR_ADD, stir_expr_var(k2, i2),
		stir_expr_int(k2, 1));
	ck_assert(!stir_expr_same(a, d));
	stir_eq by_name = { STIR_EQ_VAR_BY_NAME, NULL, NULL, NULL };
	ck_assert(stir_expr_equal(&by_name, a, d));
	ck_assert(!stir_expr_equal(&by_name, c, d));
	teardown(&f);
}
END_TEST

/* s, user: stop at the first store, kept in *user (a stir_stmt *). */
static stir_visit_step first_store(stir_stmt *s, void *user)
{
	if (s->kind != STIR_STMT_STORE)
		return STIR_VISIT_GO;
	*(stir_stmt **)user = s;
	return STIR_VISIT_STOP;
}

START_TEST(test_stmt_equality)
{
	lowered p = lower3("examples/ellmv.stir");
	lowered q = lower3("examples/ellmv.stir");
	lowered r = lower3("examples/csrmm.stir");
	stir_eq text = { STIR_EQ_VAR_BY_NAME | STIR_EQ_REF_BY_INDEX, NULL,
		NULL, NULL };
	ck_assert(stir_list_equal(&text, &p.k->body, &q.k->body));
	ck_assert(!stir_list_equal(NULL, &p.k->body, &q.k->body));
	ck_assert(stir_list_equal(NULL, &p.k->body, &p.k->body));
	ck_assert(!stir_list_equal(&text, &p.k->body, &r.k->body));
	ck_assert(stir_module_is_equal(p.m, q.m));
	/* a changed store operator makes them differ */
	stir_stmt *s = stir_stmt_at(&q.k->body, 0);
	ck_assert(stir_stmt_equal(&text, stir_stmt_at(&p.k->body, 0), s));
	stir_stmt *store = NULL;
	stir_visitor v = { first_store, NULL, NULL, NULL, 0, &store };
	ck_assert(stir_visit_stmt(&v, s));
	store->u.store.op = STIR_STORE_MUL;
	ck_assert(!stir_stmt_equal(&text, stir_stmt_at(&p.k->body, 0), s));
	ck_assert(!stir_module_is_equal(p.m, q.m));
	lowered *all[3] = { &p, &q, &r };
	for (int i = 0; i < 3; i++) {
		stir_module_free(all[i]->m);
		stir_ctx_free(all[i]->ctx);
	}
}
END_TEST

/* ---- affine forms ---- */

/* stir_expr_copy_node owns the arrays of children it holds: replacing a
 * child of the copy (what a copy-on-write rewrite does, passes/hoist.c)
 * leaves the original as it was; stir_expr_copy builds new nodes equal to
 * the old. */
START_TEST(test_copy_node)
{
	fixture f = setup();
	stir_buffer *a = stir_kernel_add_flat_buffer(f.k, "a", STIR_BUFFER_LOCAL,
		STIR_I32, I(&f, 8), NULL);
	ck_assert_ptr_nonnull(a);
	stir_expr *idx[1] = { V(&f, f.i) };
	stir_expr *load = stir_expr_load(f.k, a, 1, idx);
	stir_expr *args[2] = { V(&f, f.j), load };
	stir_expr *call = stir_expr_call(f.k, STIR_MIN, 2, args);
	stir_expr *sum = B(&f, STIR_ADD, call, V(&f, f.n));
	ck_assert_ptr_nonnull(sum);
	stir_expr *zero = I(&f, 0);

	stir_expr *lc = stir_expr_copy_node(f.k, load);
	ck_assert_ptr_ne(lc, load);
	ck_assert_ptr_eq(*stir_expr_child(lc, 0), *stir_expr_child(load, 0));
	*stir_expr_child(lc, 0) = zero;
	ck_assert_ptr_eq(load->u.load.idx[0], idx[0]);
	ck_assert_int_eq(load->u.load.idx[0]->kind, STIR_EXPR_VAR);
	ck_assert_ptr_eq(lc->u.load.idx[0], zero);

	stir_expr *cc = stir_expr_copy_node(f.k, call);
	*stir_expr_child(cc, 1) = zero;
	ck_assert_ptr_eq(call->u.call.args[1], load);
	ck_assert_ptr_eq(cc->u.call.args[0], call->u.call.args[0]);

	/* a node without an array shares its children until one is set */
	stir_expr *sc = stir_expr_copy_node(f.k, sum);
	ck_assert_ptr_eq(sc->u.binary.a, call);
	*stir_expr_child(sc, 0) = zero;
	ck_assert_ptr_eq(sum->u.binary.a, call);

	stir_expr *deep = stir_expr_copy(f.k, sum, NULL);
	ck_assert(stir_expr_same(deep, sum));
	ck_assert_ptr_ne(deep->u.binary.a, call);
	ck_assert_ptr_ne(deep->u.binary.a->u.call.args[1], load);
	teardown(&f);
}
END_TEST

/* What stir_expr_node_is_safe lets both hoisters evaluate anywhere: the
 * node alone is judged, its operands are not. */
START_TEST(test_node_is_safe)
{
	fixture f = setup();
	stir_buffer *a = stir_kernel_add_flat_buffer(f.k, "a", STIR_BUFFER_LOCAL,
		STIR_I32, I(&f, 8), NULL);
	ck_assert_ptr_nonnull(a);
	stir_expr *idx[1] = { V(&f, f.i) };
	stir_expr *load = stir_expr_load(f.k, a, 1, idx);
	stir_expr *args[2] = { V(&f, f.i), V(&f, f.j) };
	stir_expr *fl = stir_expr_float(f.k, 1.5);
	ck_assert_ptr_nonnull(load);
	ck_assert_ptr_nonnull(fl);
	ck_assert(stir_expr_node_is_safe(I(&f, 3)));
	ck_assert(stir_expr_node_is_safe(V(&f, f.n)));
	ck_assert(stir_expr_node_is_safe(B(&f, STIR_ADD, V(&f, f.i), I(&f, 1))));
	ck_assert(stir_expr_node_is_safe(B(&f, STIR_SUB, V(&f, f.i), V(&f, f.j))));
	ck_assert(stir_expr_node_is_safe(B(&f, STIR_MUL, V(&f, f.i), V(&f, f.j))));
	ck_assert(stir_expr_node_is_safe(B(&f, STIR_DIV, V(&f, f.i), I(&f, 4))));
	ck_assert(stir_expr_node_is_safe(B(&f, STIR_MOD, V(&f, f.i), I(&f, 3))));
	ck_assert(stir_expr_node_is_safe(stir_expr_unary(f.k, STIR_NEG,
		V(&f, f.i))));
	ck_assert(stir_expr_node_is_safe(stir_expr_cast(f.k, STIR_I64,
		V(&f, f.i))));
	/* the operands are not looked at: a sum over a load is the
	 * caller's walk to refuse */
	ck_assert(stir_expr_node_is_safe(B(&f, STIR_ADD, load, I(&f, 1))));
	/* division by zero or by a variable may fault */
	ck_assert(!stir_expr_node_is_safe(B(&f, STIR_DIV, V(&f, f.i), I(&f, 0))));
	ck_assert(!stir_expr_node_is_safe(B(&f, STIR_MOD, V(&f, f.i),
		V(&f, f.j))));
	/* memory, calls, selects, comparisons and floats */
	ck_assert(!stir_expr_node_is_safe(load));
	ck_assert(!stir_expr_node_is_safe(stir_expr_call(f.k, STIR_MIN, 2,
		args)));
	ck_assert(!stir_expr_node_is_safe(stir_expr_select(f.k,
		B(&f, STIR_LT, V(&f, f.i), V(&f, f.j)), V(&f, f.i), V(&f, f.j))));
	ck_assert(!stir_expr_node_is_safe(B(&f, STIR_LT, V(&f, f.i),
		V(&f, f.j))));
	ck_assert(!stir_expr_node_is_safe(fl));
	ck_assert(!stir_expr_node_is_safe(stir_expr_cast(f.k, STIR_I32, fl)));
	ck_assert(!stir_expr_node_is_safe(stir_expr_cast(f.k, STIR_F32,
		V(&f, f.i))));
	teardown(&f);
}
END_TEST

START_TEST(test_affine)
{
	fixture f = setup();
	stir_affine_opts loops = { STIR_AFFINE_LOOP_VARS, NULL, NULL, NULL };
	/* 4 * i + (j - 2) * 3 + 5 = 4i + 3j - 1 */
	stir_expr *e = B(&f, STIR_ADD, B(&f, STIR_ADD,
		B(&f, STIR_MUL, I(&f, 4), V(&f, f.i)),
		B(&f, STIR_MUL, B(&f, STIR_SUB, V(&f, f.j), I(&f, 2)), I(&f, 3))),
		I(&f, 5));
	stir_affine a = { 0 };
	ck_assert(stir_affine_add(&a, e, 1, &loops));
	ck_assert_int_eq(a.n, 2);
	ck_assert_int_eq(stir_affine_coef(&a, f.i), 4);
	ck_assert_int_eq(stir_affine_coef(&a, f.j), 3);
	ck_assert_int_eq(stir_affine_coef(&a, f.n), 0);
	ck_assert_int_eq(a.konst, -1);
	/* the same sum written otherwise */
	stir_affine b = { 0 };
	ck_assert(stir_affine_add(&b, B(&f, STIR_SUB, B(&f, STIR_ADD,
		B(&f, STIR_MUL, V(&f, f.j), I(&f, 3)),
		B(&f, STIR_MUL, V(&f, f.i), I(&f, 4))), I(&f, 1)), 1, &loops));
	ck_assert(stir_affine_same(&a, &b));
	b.konst = 0;
	ck_assert(!stir_affine_same(&a, &b));
	/* a parameter is no loop variable; i * j is not linear */
	stir_affine c = { 0 };
	ck_assert(!stir_affine_add(&c, B(&f, STIR_ADD, V(&f, f.i), V(&f, f.n)),
		1, &loops));
	c = (stir_affine){ 0 };
	ck_assert(!stir_affine_add(&c, B(&f, STIR_MUL, V(&f, f.i), V(&f, f.j)),
		1, &loops));
	/* overflow is refused, not wrapped */
	c = (stir_affine){ 0 };
	ck_assert(!stir_affine_add(&c, B(&f, STIR_MUL, V(&f, f.i),
		I(&f, INT64_MAX)), 2, &loops));

	/* the vector paths' question: coefficient of j in n * 8 + 2 * j + i,
	 * the rest opaque; residue modulo 4 with j at 0 */
	stir_affine_opts vec = { STIR_AFFINE_NEG | STIR_AFFINE_WIDENING_CASTS |
		STIR_AFFINE_OPAQUE, NULL, NULL, NULL };
	stir_expr *x = B(&f, STIR_ADD, B(&f, STIR_ADD,
		B(&f, STIR_MUL, V(&f, f.n), I(&f, 8)),
		B(&f, STIR_MUL, I(&f, 2), V(&f, f.j))), I(&f, 6));
	int64_t k;
	ck_assert(stir_affine_coef_of(x, f.j, &vec, &k));
	ck_assert_int_eq(k, 2);
	stir_affine w = { 0 };
	vec.wrt = f.j;
	ck_assert(stir_affine_add(&w, x, 1, &vec));
	int64_t r;
	ck_assert(stir_affine_residue(&w, f.j, 4, &r));
	ck_assert_int_eq(r, 2);
	ck_assert(!stir_affine_residue(&w, f.j, 16, &r));   /* 8n mod 16? */
	ck_assert(stir_affine_coef_of(stir_expr_unary(f.k, STIR_NEG, V(&f, f.j)),
		f.j, &vec, &k));
	ck_assert_int_eq(k, -1);
	ck_assert(!stir_affine_coef_of(B(&f, STIR_MUL, V(&f, f.j), V(&f, f.n)),
		f.j, &vec, &k));
	/* through an expansion: j reads as i + 1, so 3j is 3i + 3 */
	stir_affine_opts ex = vec;
	ex.expand = expand_j;
	ex.user = &f;
	ck_assert(stir_affine_coef_of(B(&f, STIR_MUL, V(&f, f.j), I(&f, 3)),
		f.i, &ex, &k));
	ck_assert_int_eq(k, 3);

	/* regions' split: base + literal at the top only */
	stir_expr *base;
	int64_t off;
	stir_expr *ip = B(&f, STIR_ADD, V(&f, f.i), I(&f, 1));
	stir_affine_split_const(B(&f, STIR_SUB, ip, I(&f, 3)), &base, &off);
	ck_assert_ptr_eq(base, ip);
	ck_assert_int_eq(off, -3);
	stir_affine_split_const(I(&f, 9), &base, &off);
	ck_assert_ptr_null(base);
	ck_assert_int_eq(off, 9);
	stir_affine_split_const(V(&f, f.i), &base, &off);
	ck_assert_int_eq(off, 0);
	ck_assert_int_eq(base->kind, STIR_EXPR_VAR);
	teardown(&f);
}
END_TEST

/* ---- the operator table ---- */

START_TEST(test_ops_table)
{
	for (int op = STIR_ADD; op <= STIR_OR; op++) {
		const stir_binop_info *b = stir_binop_get(op);
		ck_assert_ptr_nonnull(b);
		ck_assert_ptr_nonnull(b->text);
		ck_assert_int_ge(b->prec, STIR_PREC_OR);
		ck_assert_int_le(b->prec, STIR_PREC_MUL);
		ck_assert_int_ge(b->c_prec, STIR_CPREC_OR);
	}
	ck_assert_ptr_null(stir_binop_get((stir_binop)(STIR_OR + 1)));
	ck_assert_str_eq(stir_binop_get(STIR_MOD)->text, "%");
	ck_assert_int_eq(stir_binop_get(STIR_MOD)->cls, STIR_OPC_INT_ARITH);
	ck_assert(stir_binop_is_arith(STIR_SUB));
	ck_assert(!stir_binop_is_arith(STIR_LT));
	for (int fn = STIR_MIN; fn <= STIR_TANH; fn++)
		ck_assert_int_eq(stir_func_lookup(stir_func_get(fn)->name), fn);
	ck_assert_int_eq(stir_func_lookup("sin"), -1);
	ck_assert(stir_func_is_int_call(STIR_MAX, 2));
	ck_assert(!stir_func_is_int_call(STIR_MAX, 1));
	ck_assert(!stir_func_is_int_call(STIR_SQRT, 1));
	ck_assert_str_eq(stir_func_get(STIR_SQRT)->c_f32, "sqrtf");
	ck_assert_str_eq(stir_store_op_text(STIR_STORE_MUL), "*=");
	ck_assert_ptr_null(stir_store_op_text((stir_store_op)9));
	ck_assert_str_eq(stir_search_name(STIR_FIND), "find");
	ck_assert_str_eq(stir_unop_text(STIR_NOT), "!");
}
END_TEST

/* Every operator and function printed from the table reads back as the
 * same program. */
START_TEST(test_ops_round_trip)
{
	const char *src =
		"kernel t(m: i32) {\n"
		"  axis I = dense_fixed(m);\n"
		"  tensor A: f32[I];\n"
		"  tensor N: i32[I];\n"
		"  iter s (i) in [I] \"S\" {\n"
		"    let a = A[i];\n"
		"    let k = N[i];\n"
		"    let b = k + 1 - 2 * (k / 3) % 4 < 5 && k <= 6 || k > 7 &&"
		" k >= 8 == (k != 9);\n"
		"    A[i] = b ? min(a, max(a, abs(a))) : exp(log(sqrt(tanh(-a))));\n"
		"    A[i] += a; A[i] -= a; A[i] *= a;\n"
		"    N[i] = !b ? min(k, 3) : abs(k);\n"
		"  }\n"
		"}\n";
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_mem(ctx, "t.stir", src,
		strlen(src));
	if (!m)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(m);
	char *text = stir_module_to_str(m);
	ck_assert_ptr_nonnull(text);
	stir_module *m2 = stir_module_read_from_mem(ctx, "t2.stir", text,
		strlen(text));
	ck_assert_ptr_nonnull(m2);
	ck_assert(stir_module_is_equal(m, m2));
	ck_assert_ptr_nonnull(strstr(text, "A[i] *= a;"));
	ck_assert_ptr_nonnull(strstr(text, "exp(log(sqrt(tanh(-a))))"));
	free(text);
	stir_module_free(m2);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("visit");
	TCase *tc = tcase_create("visit");
	tcase_add_test(tc, test_walk_order_skip_stop_rewrite);
	tcase_add_test(tc, test_uses_on_lowered_kernel);
	tcase_add_test(tc, test_walk_regions);
	tcase_add_test(tc, test_equality_flags_and_hooks);
	tcase_add_test(tc, test_stmt_equality);
	tcase_add_test(tc, test_copy_node);
	tcase_add_test(tc, test_node_is_safe);
	tcase_add_test(tc, test_affine);
	tcase_add_test(tc, test_ops_table);
	tcase_add_test(tc, test_ops_round_trip);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
