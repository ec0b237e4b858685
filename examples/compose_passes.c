/* Composing passes from C: read the CSR SpMM example, fuse its row and
 * column iterators (a stage I schedule), lower it to stage II and print
 * it, lower it to stage III, and run it on a graph; the result must match
 * the unscheduled program run by the stage I interpreter.
 *
 * usage: compose_passes PROGRAM.stir GRAPH.mtx[.gz]
 * Exit status 0 when the two agree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stir/stir.h>

/* ctx, path: read a module or print why not. */
static stir_module *read_module(stir_ctx *ctx, const char *path)
{
	stir_module *m = stir_module_read_from_file(ctx, path);
	if (!m)
		stir_ctx_print_diagnostics(ctx, stderr);
	return m;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s PROGRAM.stir GRAPH.mtx[.gz]\n", argv[0]);
		return 2;
	}
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *plain = NULL, *m = read_module(ctx, argv[1]);
	stir_csr *graph = stir_mtx_read_from_file(ctx, argv[2]);
	stir_bindings *in = stir_bindings_alloc(), *want = NULL, *got = NULL;
	int rc = 1;
	stir_kernel *k = m ? stir_module_find_kernel(m, "csrmm") : NULL;
	/* the unscheduled reference: a copy taken before k is scheduled */
	stir_kernel *k0 = k ? stir_kernel_copy(k, &plain) : NULL;
	if (!k || !k0 || !graph)
		goto out;

	/* the schedule and the lowering, step by step */
	const char *ij[] = { "i", "j" };
	if (stir_sparse_fuse(k, "csrmm", 2, ij) < 0 ||
	    stir_lower_sparse_iter(k) < 0)
		goto out;
	char *text = stir_kernel_to_str(k);
	printf("%s", text);
	free(text);
	if (stir_lower_sparse_buffer(k) < 0)
		goto out;

	/* inputs: the graph and random features, once for both runs */
	stir_bindings_set_size(in, "feat", 16);
	if (stir_kernel_bind_csr(k0, in, "A", graph) < 0 ||
	    stir_kernel_bind_random(k0, in, 1) < 0)
		goto out;
	want = stir_bindings_copy(in);
	got = stir_bindings_copy(in);
	if (stir_kernel_interpret(k0, want) < 0 || stir_kernel_interpret(k, got) < 0)
		goto out;
	const stir_array *c0 = stir_bindings_get_array(want, "C");
	const stir_array *c1 = stir_bindings_get_array(got, "C");
	double worst = 0;
	for (int64_t i = 0; i < stir_array_get_len(c0); i++)
		worst = fmax(worst, fabs(stir_array_get_double(c0, i) -
			stir_array_get_double(c1, i)));
	rc = worst <= 1e-5 ? 0 : 1;
	printf("fused and lowered csrmm on %s: max |diff| from stage I = %g: %s\n",
		argv[2], worst, rc ? "MISMATCH" : "ok");
out:
	stir_ctx_print_diagnostics(ctx, stderr);
	stir_bindings_free(in);
	stir_bindings_free(want);
	stir_bindings_free(got);
	stir_csr_free(graph);
	stir_module_free(plain);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}
