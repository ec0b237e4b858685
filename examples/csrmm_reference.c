/* An independent check of the csrmm example: reads the Matrix Market
 * graph and the B and C arrays that `stirc run --out` wrote, computes
 * C = A B plainly in double precision, and reports the largest difference.
 *
 * usage: csrmm_reference GRAPH.mtx[.gz] B.npy C.npy
 * Exit status 0 when every element agrees within 1e-4 (relative). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stir/stir.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s GRAPH.mtx[.gz] B.npy C.npy\n", argv[0]);
		return 2;
	}
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *a = stir_mtx_read_from_file(ctx, argv[1]);
	stir_array *b = stir_npy_read_from_file(ctx, argv[2]);
	stir_array *c = stir_npy_read_from_file(ctx, argv[3]);
	int rc = 1;
	if (!a || !b || !c)
		goto out;
	int64_t feat = stir_array_get_dim(b, 1);
	if (stir_array_get_ndim(b) != 2 || stir_array_get_ndim(c) != 2 ||
	    stir_array_get_dim(b, 0) != a->ncols ||
	    stir_array_get_dim(c, 0) != a->nrows ||
	    stir_array_get_dim(c, 1) != feat) {
		fprintf(stderr, "csrmm_reference: shapes do not match the graph\n");
		goto out;
	}
	double worst = 0;
	for (int64_t i = 0; i < a->nrows; i++)
		for (int64_t f = 0; f < feat; f++) {
			double s = 0;
			for (int64_t p = a->indptr[i]; p < a->indptr[i + 1]; p++)
				s += a->values[p] *
					stir_array_get_double(b, a->indices[p] * feat + f);
			double d = fabs(stir_array_get_double(c, i * feat + f) - s) /
				(1 + fabs(s));
			if (d > worst)
				worst = d;
		}
	rc = worst <= 1e-4 ? 0 : 1;
	printf("%s: %lld x %lld, %lld non-zeros, %lld features: "
		"max relative |C - A B| = %.3g: %s\n", argv[1], (long long)a->nrows,
		(long long)a->ncols, (long long)a->nnz, (long long)feat, worst,
		rc ? "MISMATCH" : "PASS");
out:
	stir_ctx_print_diagnostics(ctx, stderr);
	stir_csr_free(a);
	stir_array_free(b);
	stir_array_free(c);
	stir_ctx_free(ctx);
	return rc;
}
