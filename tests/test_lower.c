/* The lowering passes: each sub-pass of lower_sparse_iter on its own
 * (structure of what it produces), the structural expectations of the
 * issue (CSR, ELL, fused SDDMM, csr2bsr, the BSR offset), and stage
 * agreement on programs that reach what the catalogue does not (attach, a
 * three-level fuse, unsorted axes, lookups into every axis kind, nested
 * iterations). */
#include <stir/stir.h>
#include "ir/nodes.h"
#include "passes/passes.h"
#include "ir/util.h"
#include "tests/testutil.h"

/* A module read from a file of the source tree, with its context. */
typedef struct loaded {
	stir_ctx *ctx;
	stir_module *m;
	stir_kernel *k;
} loaded;

static loaded load(const char *file)
{
	loaded l = { stir_ctx_alloc(), NULL, NULL };
	l.m = stir_module_read_from_file(l.ctx, test_path(file));
	if (!l.m)
		stir_ctx_print_diagnostics(l.ctx, stderr);
	ck_assert_ptr_nonnull(l.m);
	l.k = stir_module_get_kernel(l.m, 0);
	return l;
}

static void unload(loaded *l)
{
	stir_module_free(l->m);
	stir_ctx_free(l->ctx);
}

/* s, i: child i of a for or block statement. */
static stir_stmt *child(stir_stmt *s, int i)
{
	stir_ptr_vec *body = stir_stmt_body(s);
	ck_assert_ptr_nonnull(body);
	ck_assert_int_gt(body->n, i);
	return stir_stmt_at(body, i);
}

/* e, buf: whether e reads buffer buf anywhere. */
static bool reads(const stir_expr *e, const stir_buffer *buf);

static bool reads_any(int n, stir_expr *const *v, const stir_buffer *buf)
{
	for (int i = 0; i < n; i++)
		if (reads(v[i], buf))
			return true;
	return false;
}

static bool reads(const stir_expr *e, const stir_buffer *buf)
{
	switch (e->kind) {
	case STIR_EXPR_LOAD:
		return e->u.load.buf == buf ||
			reads_any(e->u.load.n, e->u.load.idx, buf);
	case STIR_EXPR_UNARY: return reads(e->u.unary.a, buf);
	case STIR_EXPR_BINARY:
		return reads(e->u.binary.a, buf) || reads(e->u.binary.b, buf);
	case STIR_EXPR_SELECT:
		return reads(e->u.select.c, buf) || reads(e->u.select.a, buf) ||
			reads(e->u.select.b, buf);
	case STIR_EXPR_CALL: return reads_any(e->u.call.n, e->u.call.args, buf);
	case STIR_EXPR_CAST: return reads(e->u.cast.a, buf);
	case STIR_EXPR_SEARCH:
		return e->u.search.buf == buf || reads(e->u.search.lo, buf) ||
			reads(e->u.search.hi, buf) || reads(e->u.search.x, buf);
	default: return false;
	}
}

/* Counting searches and statements in a subtree. */
typedef struct counts {
	int lower, upper, find, fors, blocks, ifs;
	bool reads_indptr;   /* any expression reads an indptr buffer */
} counts;

static void count_expr(counts *c, const stir_expr *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case STIR_EXPR_LOAD:
		c->reads_indptr |= e->u.load.buf->kind == STIR_BUFFER_INDPTR;
		for (int i = 0; i < e->u.load.n; i++)
			count_expr(c, e->u.load.idx[i]);
		break;
	case STIR_EXPR_UNARY: count_expr(c, e->u.unary.a); break;
	case STIR_EXPR_BINARY:
		count_expr(c, e->u.binary.a);
		count_expr(c, e->u.binary.b);
		break;
	case STIR_EXPR_SELECT:
		count_expr(c, e->u.select.c);
		count_expr(c, e->u.select.a);
		count_expr(c, e->u.select.b);
		break;
	case STIR_EXPR_CALL:
		for (int i = 0; i < e->u.call.n; i++)
			count_expr(c, e->u.call.args[i]);
		break;
	case STIR_EXPR_CAST: count_expr(c, e->u.cast.a); break;
	case STIR_EXPR_SEARCH:
		c->lower += e->u.search.op == STIR_LOWER_BOUND;
		c->upper += e->u.search.op == STIR_UPPER_BOUND;
		c->find += e->u.search.op == STIR_FIND;
		c->reads_indptr |= e->u.search.buf->kind == STIR_BUFFER_INDPTR;
		count_expr(c, e->u.search.lo);
		count_expr(c, e->u.search.hi);
		count_expr(c, e->u.search.x);
		break;
	default: break;
	}
}

static void count_list(counts *c, const stir_ptr_vec *list);

static void count_stmt(counts *c, const stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_STORE:
		for (int i = 0; i < s->u.store.n; i++)
			count_expr(c, s->u.store.idx[i]);
		count_expr(c, s->u.store.value);
		break;
	case STIR_STMT_LET: count_expr(c, s->u.let.value); break;
	case STIR_STMT_IF:
		c->ifs++;
		count_expr(c, s->u.if_.cond);
		count_list(c, &s->u.if_.then_body);
		count_list(c, &s->u.if_.else_body);
		break;
	case STIR_STMT_FOR:
		c->fors++;
		count_expr(c, s->u.for_.extent);
		count_list(c, &s->u.for_.body);
		break;
	case STIR_STMT_BLOCK:
		c->blocks++;
		for (int i = 0; i < s->u.block.n_vars; i++)
			count_expr(c, s->u.block.bindings[i]);
		count_list(c, &s->u.block.body);
		break;
	case STIR_STMT_ITER:
	case STIR_STMT_BARRIER:
		break;
	}
}

static void count_list(counts *c, const stir_ptr_vec *list)
{
	for (int i = 0; i < list->n; i++)
		count_stmt(c, stir_stmt_at(list, i));
}

static counts count(const stir_stmt *s)
{
	counts c = { 0 };
	count_stmt(&c, s);
	return c;
}

/* ---- step 1: auxiliary buffers ---- */

START_TEST(test_materialize_csr)
{
	loaded l = load("examples/csrmm.stir");
	ck_assert_int_eq(stir_materialize_aux_buffers(l.k), 0);
	stir_buffer *ip = stir_kernel_get_buffer(l.k, 0);
	stir_buffer *ix = stir_kernel_get_buffer(l.k, 1);
	ck_assert_str_eq(ip->name, "J_indptr");
	ck_assert_int_eq(ip->kind, STIR_BUFFER_INDPTR);
	ck_assert_str_eq(ip->arg, "J.indptr");
	ck_assert_str_eq(ix->name, "J_indices");
	ck_assert_int_eq(ix->kind, STIR_BUFFER_INDICES);
	char *s = stir_expr_to_str(ip->extent);
	ck_assert_str_eq(s, "m + 1");
	free(s);
	s = stir_expr_to_str(ip->domain_hi);
	ck_assert_str_eq(s, "nnz + 1");
	free(s);
	s = stir_expr_to_str(ix->extent);
	ck_assert_str_eq(s, "nnz");
	free(s);
	s = stir_expr_to_str(ix->domain_hi);
	ck_assert_str_eq(s, "n");
	free(s);
	stir_axis *J = stir_kernel_find_axis(l.k, "J");
	ck_assert_ptr_eq(J->indptr_buf, ip);
	ck_assert_ptr_eq(J->indices_buf, ix);
	/* the tensors keep their order after the auxiliary buffers */
	ck_assert_str_eq(stir_kernel_get_buffer(l.k, 2)->name, "A");
	ck_assert_int_eq(stir_kernel_get_buffer(l.k, 2)->index, 2);
	unload(&l);
}
END_TEST

START_TEST(test_materialize_kinds)
{
	loaded l = load("examples/ellmv.stir");
	ck_assert_int_eq(stir_materialize_aux_buffers(l.k), 0);
	stir_buffer *ix = stir_kernel_get_buffer(l.k, 0);
	ck_assert_str_eq(ix->name, "J_indices");
	char *s = stir_expr_to_str(ix->extent);
	ck_assert_str_eq(s, "m * c");      /* npos of a sparse_fixed axis */
	free(s);
	ck_assert_ptr_null(stir_kernel_find_axis(l.k, "J")->indptr_buf);
	unload(&l);

	l = load("examples/csf_square_sum.stir");
	ck_assert_int_eq(stir_materialize_aux_buffers(l.k), 0);
	stir_axis *K = stir_kernel_find_axis(l.k, "K");
	s = stir_expr_to_str(K->indptr_buf->extent);
	ck_assert_str_eq(s, "nnz_j + 1");  /* indexed by J's global position */
	free(s);
	unload(&l);

	l = load("examples/segment_sum.stir");
	ck_assert_int_eq(stir_materialize_aux_buffers(l.k), 0);
	stir_axis *J = stir_kernel_find_axis(l.k, "J");
	ck_assert_ptr_nonnull(J->indptr_buf);
	ck_assert_ptr_null(J->indices_buf); /* dense_variable: no indices */
	unload(&l);
}
END_TEST

/* ---- step 2: loops and blocks ---- */

START_TEST(test_loops_csr)
{
	loaded l = load("examples/csrmm.stir");
	ck_assert_int_eq(stir_materialize_aux_buffers(l.k), 0);
	ck_assert_int_eq(stir_generate_loops(l.k), 0);
	ck_assert_int_eq(l.k->body.n, 2);   /* init nest, main nest */
	stir_stmt *init = stir_stmt_at(&l.k->body, 0);
	counts ci = count(init);
	ck_assert_int_eq(ci.fors, 2);        /* i and k: the spatial axes */
	ck_assert_int_eq(ci.blocks, 1);
	stir_stmt *main = stir_stmt_at(&l.k->body, 1);
	ck_assert_int_eq(main->kind, STIR_STMT_FOR);           /* rows */
	stir_stmt *outer = child(main, 0);
	ck_assert_int_eq(outer->kind, STIR_STMT_BLOCK);
	ck_assert_str_eq(outer->u.block.name, "csrmm0");
	ck_assert_str_eq(outer->u.block.kinds, "S");
	stir_stmt *jloop = child(outer, 0);
	ck_assert_int_eq(jloop->kind, STIR_STMT_FOR);
	char *s = stir_expr_to_str(jloop->u.for_.extent);
	ck_assert_str_eq(s, "J_indptr[vi + 1] - J_indptr[vi]");
	free(s);
	stir_stmt *kloop = child(jloop, 0);
	ck_assert_int_eq(kloop->kind, STIR_STMT_FOR);
	stir_stmt *inner = child(kloop, 0);
	ck_assert_int_eq(inner->kind, STIR_STMT_BLOCK);
	ck_assert_str_eq(inner->u.block.name, "csrmm1");
	ck_assert_str_eq(inner->u.block.kinds, "RS");
	/* the body moved unchanged: it still stores through iterators */
	stir_stmt *body = child(inner, 0);
	ck_assert_int_eq(body->kind, STIR_STMT_STORE);
	ck_assert_int_eq(body->u.store.idx[0]->u.var->kind, STIR_VAR_ITER);
	unload(&l);
}
END_TEST

START_TEST(test_loops_ell_and_fuse)
{
	loaded l = load("examples/ellmv.stir");
	ck_assert_int_eq(stir_lower_sparse_iter(l.k), 0);
	stir_stmt *main = stir_stmt_at(&l.k->body, 1);
	/* one perfect nest: for i { for j { block } }, no indptr */
	ck_assert_int_eq(main->kind, STIR_STMT_FOR);
	stir_stmt *j = child(main, 0);
	ck_assert_int_eq(j->kind, STIR_STMT_FOR);
	ck_assert_int_eq(child(j, 0)->kind, STIR_STMT_BLOCK);
	counts c = count(main);
	ck_assert_int_eq(c.blocks, 1);
	ck_assert(!c.reads_indptr);
	unload(&l);

	l = load("examples/sddmm.stir");
	ck_assert_int_eq(stir_lower_sparse_iter(l.k), 0);
	main = stir_stmt_at(&l.k->body, 1);
	char *s = stir_expr_to_str(main->u.for_.extent);
	ck_assert_str_eq(s, "nnz");   /* one loop over the non-zeros */
	free(s);
	c = count(main);
	ck_assert_int_eq(c.fors, 2);  /* the non-zeros, then the features */
	ck_assert_int_eq(c.upper, 1); /* one row search */
	ck_assert_int_eq(c.lower, 0);
	unload(&l);

	l = load("tests/lower/fuse3.stir");
	ck_assert_int_eq(stir_lower_sparse_iter(l.k), 0);
	c = count(stir_stmt_at(&l.k->body, 0));
	ck_assert_int_eq(c.fors, 1);
	ck_assert_int_eq(c.upper, 2); /* the rows of J and of I */
	unload(&l);
}
END_TEST

/* ---- step 3: coordinates ---- */

START_TEST(test_translate_csr)
{
	loaded l = load("examples/csrmm.stir");
	ck_assert_int_eq(stir_lower_sparse_iter(l.k), 0);
	stir_stmt *inner = child(child(child(child(stir_stmt_at(&l.k->body, 1),
		0), 0), 0), 0);
	stir_stmt *st = child(inner, 0);
	ck_assert_int_eq(st->kind, STIR_STMT_STORE);
	char *s = stir_expr_to_str(st->u.store.value);
	/* B is read at the indices value; A and C at positions */
	ck_assert_str_eq(s, "A[vi, vj] * B[J_indices[J_indptr[vi] + vj], vk]");
	free(s);
	counts c = count(stir_stmt_at(&l.k->body, 1));
	ck_assert_int_eq(c.lower + c.upper + c.find, 0);
	ck_assert_int_eq(c.ifs, 0);
	unload(&l);
}
END_TEST

START_TEST(test_translate_search)
{
	loaded l = load("examples/csr2bsr.stir");
	ck_assert_int_eq(stir_lower_sparse_iter(l.k), 0);
	counts c = count(stir_stmt_at(&l.k->body, 0));
	ck_assert_int_eq(c.lower, 1); /* the block, in the BSR structure */
	ck_assert_int_eq(c.ifs, 1);   /* absent blocks are skipped */
	unload(&l);

	/* two accesses needing the same search share it; an unsorted axis is
	 * searched linearly */
	l = load("tests/lower/lookups.stir");
	ck_assert_int_eq(stir_lower_sparse_iter(l.k), 0);
	c = count(stir_stmt_at(&l.k->body, 0));
	ck_assert_int_eq(c.find, 1);  /* Un[i, j] */
	/* A[i, back] and S[i, back] share one search of J; Ell[i, j] one of E;
	 * S[(i + 1) % m, j] one of J in another row */
	ck_assert_int_eq(c.lower, 3);
	unload(&l);
}
END_TEST

/* ---- step 4: regions ---- */

/* r: region r as text "BUF[d0, d1]". */
static char *region_str(const stir_region *r)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	fprintf(f, "%s[", r->buf->name);
	for (int d = 0; d < r->n; d++) {
		fprintf(f, d ? ", " : "");
		if (!r->lo[d]) {
			fprintf(f, ":");
			continue;
		}
		char *lo = stir_expr_to_str(r->lo[d]);
		fprintf(f, "%s", lo);
		free(lo);
		if (r->hi[d]) {
			char *hi = stir_expr_to_str(r->hi[d]);
			fprintf(f, ":%s", hi);
			free(hi);
		}
	}
	fprintf(f, "]");
	fclose(f);
	return out;
}

static void expect_region(const stir_region *r, const char *want)
{
	char *s = region_str(r);
	ck_assert_str_eq(s, want);
	free(s);
}

START_TEST(test_regions_csr)
{
	loaded l = load("examples/csrmm.stir");
	ck_assert_int_eq(stir_lower_sparse_iter(l.k), 0);
	stir_stmt *outer = child(stir_stmt_at(&l.k->body, 1), 0);
	stir_stmt *inner = child(child(child(outer, 0), 0), 0);
	ck_assert_int_eq(inner->u.block.n_writes, 1);
	expect_region(&inner->u.block.writes[0], "C[vi, vk]");
	/* the row's extent reads J_indptr[vi] and J_indptr[vi + 1] */
	expect_region(&outer->u.block.reads[0], "J_indptr[vi:vi + 2]");
	/* k varies inside the outer block */
	expect_region(&outer->u.block.writes[0], "C[vi, :]");
	bool found_b = false;
	for (int i = 0; i < inner->u.block.n_reads; i++) {
		char *s = region_str(&inner->u.block.reads[i]);
		found_b |= !strcmp(s, "B[J_indices[J_indptr[vi] + vj], vk]");
		free(s);
	}
	ck_assert(found_b);
	unload(&l);
}
END_TEST

/* ---- stage III ---- */

START_TEST(test_flatten_bsr)
{
	loaded l = load("examples/bsrmm.stir");
	ck_assert_int_eq(stir_module_lower_sparse_iter(l.m), 0);
	ck_assert_int_eq(stir_module_lower_sparse_buffer(l.m), 0);
	ck_assert_int_eq(stir_kernel_n_axes(l.k), 0);
	stir_buffer *A = stir_kernel_find_buffer(l.k, "A_data");
	ck_assert_ptr_nonnull(A);
	ck_assert_str_eq(A->arg, "A");
	char *s = stir_expr_to_str(A->extent);
	ck_assert_str_eq(s, "nnzb * 16 * 16");
	free(s);
	/* find the load of A_data and check the offset of the issue */
	counts c = { 0 };
	(void)c;
	stir_stmt *st = stir_stmt_at(&l.k->body, 1);
	while (st->kind != STIR_STMT_STORE) {
		stir_ptr_vec *body = stir_stmt_body(st);
		st = stir_stmt_at(body, body->n - 1);
	}
	const stir_expr *v = st->u.store.value;   /* f32(A[..]) * f32(B[..]) */
	const stir_expr *a = v->u.binary.a->u.cast.a;
	ck_assert_ptr_eq(a->u.load.buf, A);
	s = stir_expr_to_str(a->u.load.idx[0]);
	ck_assert_str_eq(s, "((J_indptr[vi] + vj) * 16 + vbi) * 16 + vbj");
	free(s);
	unload(&l);
}
END_TEST

/* ---- stage agreement on the extra programs ---- */

static const char *const extra[] = {
	"tests/lower/fuse3.stir",
	"tests/lower/attach.stir",
	"tests/lower/lookups.stir",
	"tests/lower/nested.stir",
};

/* file, stage, in: run the program lowered to "stage" on a copy of in. */
static stir_bindings *run_at(const char *file, int stage, const stir_bindings *in)
{
	loaded l = load(file);
	if (stage >= 2)
		ck_assert_int_eq(stir_module_lower_sparse_iter(l.m), 0);
	if (stage >= 3)
		ck_assert_int_eq(stir_module_lower_sparse_buffer(l.m), 0);
	stir_bindings *b = stir_bindings_copy(in);
	int rc = stir_kernel_interpret(l.k, b);
	if (rc)
		stir_ctx_print_diagnostics(l.ctx, stderr);
	ck_assert_int_eq(rc, 0);
	unload(&l);
	return b;
}

START_TEST(test_extra_agree)
{
	const char *file = extra[_i];
	for (uint64_t seed = 1; seed <= 16; seed++) {
		loaded l = load(file);
		stir_bindings *in = stir_bindings_alloc();
		if (strstr(file, "attach")) /* I2 has I's length */
			stir_bindings_set_size(in, "m", 3 + (int64_t)seed % 5);
		ck_assert_int_eq(stir_kernel_bind_random(l.k, in, seed), 0);
		stir_bindings *want = run_at(file, 1, in);
		for (int stage = 2; stage <= 3; stage++) {
			stir_bindings *got = run_at(file, stage, in);
			for (int i = 0; i < stir_bindings_n_arrays(want); i++) {
				const char *name = stir_bindings_get_array_name(want, i);
				const stir_array *w = stir_bindings_get_array(want, name);
				const stir_array *g = stir_bindings_get_array(got, name);
				for (int64_t j = 0; j < stir_array_get_len(w); j++)
					ck_assert_msg(stir_array_get_double(g, j) ==
						stir_array_get_double(w, j),
						"%s stage %d seed %d: %s[%lld] is %g, not %g",
						file, stage, (int)seed, name, (long long)j,
						stir_array_get_double(g, j),
						stir_array_get_double(w, j));
			}
			stir_bindings_free(got);
		}
		stir_bindings_free(want);
		stir_bindings_free(in);
		unload(&l);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lower");
	TCase *tc = tcase_create("subpasses");
	tcase_add_test(tc, test_materialize_csr);
	tcase_add_test(tc, test_materialize_kinds);
	tcase_add_test(tc, test_loops_csr);
	tcase_add_test(tc, test_loops_ell_and_fuse);
	tcase_add_test(tc, test_translate_csr);
	tcase_add_test(tc, test_translate_search);
	tcase_add_test(tc, test_regions_csr);
	tcase_add_test(tc, test_flatten_bsr);
	suite_add_tcase(s, tc);
	TCase *te = tcase_create("agree");
	tcase_set_timeout(te, 60);
	tcase_add_loop_test(te, test_extra_agree, 0,
		(int)(sizeof(extra) / sizeof(extra[0])));
	suite_add_tcase(s, te);
	return test_run_suite(s);
}
