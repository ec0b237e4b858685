/* A libFuzzer harness for schedule files (docs/schedules.md, "Schedule
 * files").
 *
 * Every input is read as a YAML schedule; one that reads is applied, up to
 * stage III, to the kernel of a small program of the catalogue it names
 * (csrmm, sddmm or ellmv; any other name is an error).  Every input must
 * read or fail with at least one error, apply or fail with at least one
 * error, never a sanitizer report; a kernel a schedule leaves at any stage
 * must verify and print.  `make fuzz` builds and runs it with the
 * catalogue's schedule files as seeds (see docs/fuzzing.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* The programs the schedules may name (examples/csrmm.stir, sddmm.stir,
 * ellmv.stir). */
static const char programs[] =
	"kernel csrmm(m: i32, n: i32, feat: i32, nnz: i32) {\n"
	"  axis I = dense_fixed(m);\n"
	"  axis J = sparse_variable(I, n, nnz);\n"
	"  axis Jd = dense_fixed(n);\n"
	"  axis K = dense_fixed(feat);\n"
	"  tensor A: f32[I, J];\n"
	"  tensor B: f32[Jd, K];\n"
	"  tensor C: f32[I, K];\n"
	"  iter csrmm (i, j, k) in [I, J, K] \"SRS\" {\n"
	"    init { C[i, k] = 0.0; }\n"
	"    C[i, k] += A[i, j] * B[j, k];\n"
	"  }\n"
	"}\n"
	"kernel sddmm(m: i32, n: i32, feat: i32, nnz: i32) {\n"
	"  axis I = dense_fixed(m);\n"
	"  axis J = sparse_variable(I, n, nnz);\n"
	"  axis Jd = dense_fixed(n);\n"
	"  axis K = dense_fixed(feat);\n"
	"  tensor X: f32[I, K];\n"
	"  tensor Y: f32[Jd, K];\n"
	"  tensor S: f32[I, J];\n"
	"  iter sddmm (i, j, k) in [I, J, K] \"SSR\" {\n"
	"    init { S[i, j] = 0.0; }\n"
	"    S[i, j] += X[i, k] * Y[j, k];\n"
	"  }\n"
	"}\n"
	"kernel ellmv(m: i32, n: i32, c: i32) {\n"
	"  axis I = dense_fixed(m);\n"
	"  axis J = sparse_fixed(I, n, c);\n"
	"  axis Jd = dense_fixed(n);\n"
	"  tensor A: f32[I, J];\n"
	"  tensor x: f32[Jd];\n"
	"  tensor y: f32[I];\n"
	"  iter ellmv (i, j) in [I, J] \"SR\" {\n"
	"    init { y[i] = 0.0; }\n"
	"    y[i] += A[i, j] * x[j];\n"
	"  }\n"
	"}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	stir_ctx *ctx = stir_ctx_alloc();
	if (!ctx)
		return 0;
	stir_schedule *s = stir_schedule_read_from_str(ctx, "fuzz.yaml",
		(const char *)data, len);
	if (!s) {
		if (stir_ctx_n_errors(ctx) < 1)
			abort();  /* a refusal without an error */
		stir_ctx_free(ctx);
		return 0;
	}
	stir_module *m = stir_module_read_from_str(ctx, "programs.stir",
		programs, sizeof(programs) - 1);
	if (!m) {
		stir_ctx_print_diagnostics(ctx, stderr);
		abort();  /* the programs above are valid */
	}
	int errors = stir_ctx_n_errors(ctx);
	stir_kernel *k = stir_schedule_find_kernel(s, m);
	if (k && stir_schedule_apply(s, k, STIR_STAGE_3) == 0) {
		if (stir_kernel_verify(k) < 0)
			abort();  /* a schedule that applies leaves a valid kernel */
		char *text = stir_module_to_str(m);
		if (!text)
			abort();
		free(text);
	} else if (stir_ctx_n_errors(ctx) == errors) {
		abort();  /* a failure without an error */
	}
	/* the diagnostics format */
	char *d = stir_ctx_diagnostics_to_str(ctx);
	free(d);
	stir_module_free(m);
	stir_schedule_free(s);
	stir_ctx_free(ctx);
	return 0;
}
