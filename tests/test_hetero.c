/* Tests of the relational graph reader (formats/hetero.c) and of binding
 * a graph to examples/rgms.stir: the structure of a small graph written
 * out by hand, plain and gzipped; one malformed file per error with its
 * message, line and column; and the interpreter's RGMS on the graph
 * against a sum over the file's edge lines computed here. */
#include <math.h>
#include <stdio.h>
#include <stir/io.h>
#include <stir/interp.h>
#include <stir/lang.h>
#include "tests/testio.h"

#define SMALL "tests/data/graphs/small.hetero"

/* h: the graph of tests/data/graphs/small.hetero, checked entry by
 * entry: relation 2 has no edge, node 0 is a hub of relation 0, node 5
 * has edges in relations 0, 1 and 3, and (3, 5, 1) is given twice. */
static void check_small(const stir_hetero *h)
{
	static const int64_t rel_ptr[] = { 0, 3, 7, 7, 11 };
	static const int64_t rows[] = { 0, 5, 11, 2, 3, 5, 10, 4, 5, 6, 9 };
	static const int64_t row_ptr[] = { 0, 11, 12, 13, 14, 15, 17, 18, 19,
		20, 21, 22 };
	static const int64_t cols[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 2,
		10, 1, 0, 3, 8, 11, 9, 7, 6, 4 };
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(h->nnodes, 12);
	ck_assert_int_eq(h->nrels, 4);
	ck_assert_int_eq(h->nedges, 23);
	ck_assert_int_eq(h->nrows, 11);
	ck_assert_int_eq(h->nnz, 22);
	for (int r = 0; r <= 4; r++)
		ck_assert_int_eq(h->rel_ptr[r], rel_ptr[r]);
	for (int i = 0; i < 11; i++)
		ck_assert_int_eq(h->rows[i], rows[i]);
	for (int i = 0; i <= 11; i++)
		ck_assert_int_eq(h->row_ptr[i], row_ptr[i]);
	for (int k = 0; k < 22; k++) {
		ck_assert_int_eq(h->cols[k], cols[k]);
		/* (3, 5, 1): row 5 of relation 1, its first column */
		ck_assert_double_eq(h->values[k], k == 15 ? 2.0 : 1.0);
	}
}

START_TEST(test_small)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_hetero *h = stir_hetero_read_from_file(ctx, test_path(SMALL));
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	check_small(h);
	stir_hetero_free(h);
	/* the same, gzipped in small stored blocks, from memory */
	size_t len, glen;
	uint8_t *text = test_read_fixture(SMALL, &len);
	uint8_t *gz = test_gzip_stored(text, len, 17, &glen);
	h = stir_hetero_read_from_mem(ctx, "small.hetero.gz", gz, glen);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	check_small(h);
	stir_hetero_free(h);
	/* cut short: gunzip's error, nothing read */
	h = stir_hetero_read_from_mem(ctx, "cut.hetero.gz", gz, glen - 12);
	ck_assert_ptr_null(h);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_str_eq(test_only_loc(ctx).file, "cut.hetero.gz");
	free(gz);
	free(text);
	stir_ctx_free(ctx);
}
END_TEST

/* A malformed file and the error it must give. */
static const struct {
	const char *text;
	int line, col;
	const char *message;
} bad_texts[] = {
	{ "", 1, 0, "empty file: expected the header '%%hetero <nodes> "
		"<edges> <relations>'" },
	{ "%%MatrixMarket matrix coordinate pattern general\n", 1, 1,
		"bad header: expected '%%hetero <nodes> <edges> <relations>'" },
	{ "%%hetero 3 1\n", 1, 13, "expected the relation count" },
	{ "%%hetero 3 x 1\n", 1, 12, "expected the edge count (a non-negative "
		"integer), found 'x 1'" },
	{ "%%hetero 3 1 2 4\n", 1, 16, "unexpected '4' at the end of the line" },
	{ "%%hetero 4294967296 1 2\n", 1, 0, "4294967296 nodes: at most "
		"2^31 - 1 are read" },
	{ "%%hetero 3 1 99999999\n", 1, 0, "99999999 relations: at most "
		"16777216 are read" },
	{ "%%hetero 3 2 2\n0 1 0\n", 3, 0, "file ends after 1 of the 2 edges "
		"the header declares" },
	{ "%%hetero 3 2 2\n0 1 0", 2, 0, "file ends after 1 of the 2 edges "
		"the header declares" },
	{ "%%hetero 3 1 2\n0 1 0\n1 2 0\n", 3, 1, "more edge lines than the 1 "
		"the header declares" },
	{ "%%hetero 3 1 2\n3 1 0\n", 2, 1, "source node 3 out of range: the "
		"header declares 3 nodes" },
	{ "%%hetero 3 1 2\n0 3 0\n", 2, 3, "destination node 3 out of range: "
		"the header declares 3 nodes" },
	{ "%%hetero 3 1 2\n0 1 2\n", 2, 5, "relation 2 out of range: the "
		"header declares 2 relations" },
	{ "%%hetero 3 1 0\n0 1 0\n", 2, 5, "relation 0 out of range: the "
		"header declares 0 relations" },
	{ "%%hetero 3 1 2\n0 1\n", 2, 4, "expected the relation" },
	{ "%%hetero 3 1 2\n0 -1 0\n", 2, 3, "expected the destination node "
		"(a non-negative integer), found '-1 0'" },
	{ "%%hetero 3 2 2\n0 1 0\n\n", 3, 1, "expected the source node" },
	{ "%%hetero 3 1 2\n0 99999999999999999999 0\n", 2, 3,
		"destination node out of range" },
};

START_TEST(test_bad_text)
{
	stir_ctx *ctx = stir_ctx_alloc();
	const char *t = bad_texts[_i].text;
	uint8_t *c = test_copy_exact((const uint8_t *)t, strlen(t));
	ck_assert_ptr_null(stir_hetero_read_from_mem(ctx, "g.hetero", c,
		strlen(t)));
	ck_assert_str_eq(test_only_error(ctx), bad_texts[_i].message);
	stir_loc loc = test_only_loc(ctx);
	ck_assert_str_eq(loc.file, "g.hetero");
	ck_assert_int_eq(loc.line, bad_texts[_i].line);
	ck_assert_int_eq(loc.col, bad_texts[_i].col);
	free(c);
	stir_ctx_free(ctx);
}
END_TEST

/* b, name, i: element i of array "name" of b. */
static double at(const stir_bindings *b, const char *name, int64_t i)
{
	const stir_array *a = stir_bindings_get_array(b, name);
	ck_assert_msg(a != NULL, "no array %s", name);
	ck_assert_int_lt(i, stir_array_get_len(a));
	return stir_array_get_double(a, i);
}

/* rgms.stir on the small graph through the interpreter, against Y[dst] +=
 * W[r] X[src] summed over the file's lines, read here with sscanf. */
START_TEST(test_rgms)
{
	const int64_t fin = 3, fout = 5;
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx,
		test_path("examples/rgms.stir"));
	ck_assert_ptr_nonnull(m);
	stir_kernel *k = stir_module_get_kernel(m, 0);
	stir_hetero *h = stir_hetero_read_from_file(ctx, test_path(SMALL));
	ck_assert_ptr_nonnull(h);
	stir_bindings *b = stir_bindings_alloc();
	stir_bindings_set_size(b, "fin", fin);
	stir_bindings_set_size(b, "fout", fout);
	ck_assert_int_eq(stir_kernel_bind_hetero(k, b, "A", h), 0);
	int64_t v;
	ck_assert(stir_bindings_get_size(b, "nnz_i", &v) && v == 11);
	ck_assert(stir_bindings_get_size(b, "nnz_j", &v) && v == 22);
	ck_assert(stir_bindings_get_size(b, "r", &v) && v == 4);
	ck_assert_int_eq(stir_kernel_bind_random(k, b, 3), 0);
	stir_bindings *in = stir_bindings_copy(b);
	ck_assert_int_eq(stir_kernel_interpret(k, b), 0);
	double want[12][5] = { { 0 } };
	FILE *f = fopen(test_path(SMALL), "r");
	ck_assert_ptr_nonnull(f);
	char line[128];
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	int s, d, r, n = 0;
	while (fscanf(f, "%d %d %d", &s, &d, &r) == 3) {
		for (int64_t o = 0; o < fout; o++)
			for (int64_t i = 0; i < fin; i++)
				want[d][o] += at(in, "W", (r * fout + o) * fin + i) *
					at(in, "X", s * fin + i);
		n++;
	}
	fclose(f);
	ck_assert_int_eq(n, 23);
	for (int64_t i = 0; i < 12; i++)
		for (int64_t o = 0; o < fout; o++) {
			double got = at(b, "Y", i * fout + o);
			ck_assert_msg(fabs(got - want[i][o]) <= 1e-5 *
				(1 + fabs(want[i][o])), "Y[%lld, %lld]: %g, want %g",
				(long long)i, (long long)o, got, want[i][o]);
		}
	/* a tensor of another shape is refused */
	ck_assert_int_eq(stir_kernel_bind_hetero(k, b, "W", h), -1);
	stir_hetero_free(h);
	stir_bindings_free(in);
	stir_bindings_free(b);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hetero");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_small);
	tcase_add_loop_test(tc, test_bad_text, 0,
		(int)(sizeof(bad_texts) / sizeof(bad_texts[0])));
	tcase_add_test(tc, test_rgms);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
