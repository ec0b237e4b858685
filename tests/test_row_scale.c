/* A row scale of A on tensor cores (docs/ir.md, "Tensorized loops"): the
 * edge tiles of RGMS (tests/tensorize/rgms_tc_edges.yaml on
 * examples/rgms_edge.stir), whose products are A[e] * X[J[e], k] * W[k, n],
 * match mma_m16n8k8_tf32 with A[e] scaling row e of the X tile as it is
 * loaded; the block's let (the edge's row, from J.pos_I) is put into the
 * store by tensorize.  The scale is taken on either factor of the product,
 * and two scales, or one with f16 inputs, are refused with the reason.
 * tests/test_cuda_emu.c runs the kernel in the CUDA emulation. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>
#include "tests/testdiag.h"
#include "tests/testutil.h"

/* examples/rgms_edge.stir with its products written as "product" (types
 * of W and X as given). */
static char *program(const char *product, const char *wtype)
{
	static const char fmt[] =
		"kernel rgms_edge(r: i32, m: i32, n: i32, nnz_i: i32, nnz_j: i32, "
		"fin: i32, fout: i32) {\n"
		"  axis R = dense_fixed(r);\n"
		"  axis I = sparse_variable(R, m, nnz_i);\n"
		"  axis J = sparse_variable(I, n, nnz_j);\n"
		"  axis Id = dense_fixed(m);\n"
		"  axis Jd = dense_fixed(n);\n"
		"  axis Fi = dense_fixed(fin);\n"
		"  axis Fo = dense_fixed(fout);\n"
		"  tensor A: f32[R, I, J];\n"
		"  tensor W: %s[R, Fi, Fo];\n"
		"  tensor X: %s[Jd, Fi];\n"
		"  tensor Y: f32[Id, Fo];\n"
		"  iter zero (i, fo) in [Id, Fo] \"SS\" { Y[i, fo] = 0.0; }\n"
		"  iter rgms (rr, i, j, fo, fi) in [R, I, J, Fo, Fi] \"RSRSR\" {\n"
		"    Y[i, fo] += %s;\n"
		"  }\n"
		"}\n";
	size_t n = sizeof(fmt) + strlen(product) + 2 * strlen(wtype);
	char *s = malloc(n);
	ck_assert_ptr_nonnull(s);
	snprintf(s, n, fmt, wtype, wtype, product);
	return s;
}

/* path: the file's text (NUL-terminated). */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	char *t = malloc(65536);
	ck_assert_ptr_nonnull(t);
	size_t n = fread(t, 1, 65535, f);
	fclose(f);
	t[n] = 0;
	return t;
}

/* text, from, to: text with each "from" replaced by "to" (text freed). */
static char *replaced(char *text, const char *from, const char *to)
{
	size_t nf = strlen(from), nt = strlen(to), n = strlen(text) + 1;
	for (const char *p = text; (p = strstr(p, from)); p += nf)
		n += nt;
	char *r = malloc(n), *o = r;
	ck_assert_ptr_nonnull(r);
	for (const char *p = text; *p;) {
		if (!strncmp(p, from, nf)) {
			o += sprintf(o, "%s", to);
			p += nf;
		} else {
			*o++ = *p++;
		}
	}
	*o = 0;
	free(text);
	return r;
}

/* ctx, product, wtype, f16, m: the program of "product" under
 * tests/tensorize/rgms_tc_edges.yaml, ready for the GPU (with f16, on
 * mma_m16n8k16_f16: the input features by 16), or NULL when a step
 * fails. */
static stir_kernel *scheduled(stir_ctx *ctx, const char *product,
	const char *wtype, bool f16, stir_module **m)
{
	char *text = program(product, wtype);
	*m = stir_module_read_from_mem(ctx, "t.stir", text, strlen(text));
	free(text);
	ck_assert_ptr_nonnull(*m);
	stir_kernel *k = stir_module_find_kernel(*m, "rgms_edge");
	char *y = read_text(test_path("tests/tensorize/rgms_tc_edges.yaml"));
	if (f16) {
		y = replaced(y, "mma_m16n8k8_tf32", "mma_m16n8k16_f16");
		y = replaced(y, "loop: fi, factors: [null, 8]",
			"loop: fi, factors: [null, 16]");
	}
	stir_schedule *s = stir_schedule_read_from_mem(ctx, "t.yaml", y,
		strlen(y));
	free(y);
	ck_assert_ptr_nonnull(s);
	int rc = stir_schedule_prepare_for_gpu(s, k);
	stir_schedule_free(s);
	return rc == 0 ? k : NULL;
}

/* The scale on the X factor (as examples/rgms_edge.stir writes it) and on
 * the W factor: the same CUDA, each A element scaled as it is loaded. */
START_TEST(test_accepted)
{
	static const char *const products[] = {
		"A[rr, i, j] * X[j, fi] * W[rr, fi, fo]",
		"X[j, fi] * (A[rr, i, j] * W[rr, fi, fo])",
	};
	char *cu[2];
	for (int i = 0; i < 2; i++) {
		stir_ctx *ctx = stir_ctx_alloc();
		stir_module *m;
		stir_kernel *k = scheduled(ctx, products[i], "f32", false, &m);
		if (!k)
			stir_ctx_print_diagnostics(ctx, stderr);
		ck_assert_ptr_nonnull(k);
		cu[i] = stir_kernel_to_cuda(k);
		if (!cu[i])
			stir_ctx_print_diagnostics(ctx, stderr);
		ck_assert_ptr_nonnull(cu[i]);
		ck_assert_ptr_nonnull(strstr(cu[i], "const float stir_s = A_data["));
		ck_assert_ptr_nonnull(strstr(cu[i], "stir_tf32(stir_s * stir_v.x)"));
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
	ck_assert_str_eq(cu[0], cu[1]);
	free(cu[0]);
	free(cu[1]);
}
END_TEST

static const struct {
	const char *product, *wtype;
	bool f16;
	const char *where, *says;
} refused[] = {
	/* (at the product, then at the scale) */
	{ "A[rr, i, j] * X[j, fi] * (A[rr, i, j] * W[rr, fi, fo])", "f32",
	  false, "15:40: error", "two row scales ('A_data' and 'A_data'); the product takes one" },
	{ "A[rr, i, j] * f32(X[j, fi]) * f32(W[rr, fi, fo])", "f16",
	  true, "15:17: error", "a row scale of A needs f32 inputs (mma_m16n8k8_tf32); "
	  "mma_m16n8k16_f16 takes f16" },
};

START_TEST(test_refused)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	ck_assert_ptr_null(scheduled(ctx, refused[_i].product, refused[_i].wtype,
		refused[_i].f16, &m));
	char *d = test_diags_to_str(ctx);
	ck_assert_ptr_nonnull(d);
	if (!strstr(d, refused[_i].says))
		fprintf(stderr, "expected \"%s\" in:\n%s", refused[_i].says, d);
	ck_assert_ptr_nonnull(strstr(d, refused[_i].where));
	ck_assert_ptr_nonnull(strstr(d, "tensorize: the nest at loop 'ij_1' "
		"does not compute"));
	ck_assert_ptr_nonnull(strstr(d, refused[_i].says));
	free(d);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

static Suite *row_scale_suite(void)
{
	Suite *s = suite_create("row_scale");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_accepted);
	tcase_add_loop_test(tc, test_refused, 0,
		(int)(sizeof(refused) / sizeof(refused[0])));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run_suite(row_scale_suite());
}
