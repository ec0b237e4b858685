/* stir: pipelines of passes (docs/schedules.md, "Pipelines").
 *
 * A pipeline is a list of named passes run in order on one kernel, with
 * the verifier between them, that can show the program after any of them
 * (LLVM's -print-after, MLIR's --mlir-print-ir-after).  The standard
 * passes are registered by name (stir_pass_registry_get_pass_name); a pass of
 * one's own is added with its function.  stirc's commands, the schedule
 * files, stir_kernel_prepare_for_gpu and the benchmarks lower kernels
 * through the pipelines below.
 *
 * A pass added with a stage runs only on a kernel at that stage; on any
 * other it is skipped (the kernel passes through it unchanged), so that
 * one pipeline takes a kernel from whatever stage it is at: the GPU
 * pipeline lowers a stage I kernel, schedules and lowers a stage II one,
 * and takes a stage III one as it is. */
#ifndef STIR_PIPELINE_H
#define STIR_PIPELINE_H

#include <stdio.h>
#include <stir/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stir_pipeline stir_pipeline;

/* A pass: rewrite kernel k; "arg" is what the pass was added with.  0, or
 * -1 with diagnostics in k's context. */
typedef int (*stir_pass_fn)(stir_kernel *k, void *arg);

/* Called after every pass of a run, skipped ones too, with the pass's
 * name and the kernel as the pass left it: 0 to go on, 1 to end the run
 * there (a success), -1 to fail it. */
typedef int (*stir_pipeline_hook)(const char *pass, stir_kernel *k,
	void *user);

/* Flags of stir_pipeline_add_pass. */
enum {
	/* the pass verifies its own result (as every public pass does): the
	 * pipeline does not verify again after it */
	STIR_PASS_VERIFIES = 1,
};

/* An empty pipeline, or NULL when memory runs out. */
STIR_EXPORT __stir_give stir_pipeline *stir_pipeline_alloc(void);
STIR_EXPORT void stir_pipeline_free(__stir_take stir_pipeline *p);

/* Append the registered pass "name" (stir_pass_registry_get_pass_name).  0, or
 * -1 when there is no such pass or memory runs out. */
STIR_EXPORT int stir_pipeline_add(__stir_keep stir_pipeline *p,
	const char *name);
/* Append a pass of one's own: "fn" called with "arg" (borrowed: it must
 * outlive the runs), on kernels at stage "stage" only (0: at any stage);
 * "flags" is 0 or STIR_PASS_VERIFIES.  The name (copied) is what
 * stir_pipeline_set_print_after and the hook know it by; it must not be
 * in p already.  0 or -1. */
STIR_EXPORT int stir_pipeline_add_pass(__stir_keep stir_pipeline *p,
	const char *name, stir_stage stage, unsigned flags, stir_pass_fn fn,
	void *arg);

/* The number of passes of p, and the name of pass i (0 ..). */
STIR_EXPORT int stir_pipeline_n_passes(__stir_keep const stir_pipeline *p);
STIR_EXPORT const char *stir_pipeline_get_pass_name(
	__stir_keep const stir_pipeline *p, int i);
/* The position of pass "name" in p, or -1. */
STIR_EXPORT int stir_pipeline_find_pass(__stir_keep const stir_pipeline *p,
	const char *name);

/* After pass "name" (NULL: after every pass; skipped passes too), print
 * the kernel's text to f (borrowed), headed by a line "// after NAME".
 * 0, or -1 when p has no such pass. */
STIR_EXPORT int stir_pipeline_set_print_after(__stir_keep stir_pipeline *p,
	const char *name, FILE *f);
/* End every run right after pass "name": the kernel is left as that pass
 * left it.  0, or -1 when p has no such pass. */
STIR_EXPORT int stir_pipeline_set_stop_after(__stir_keep stir_pipeline *p,
	const char *name);
/* Call hook(pass, k, user) after every pass (NULL: no hook). */
STIR_EXPORT void stir_pipeline_set_hook(__stir_keep stir_pipeline *p,
	stir_pipeline_hook hook, void *user);

/* Run p's passes in order on kernel k: k is verified first, and again
 * after each pass that ran, unless the pass verifies its result itself;
 * then the module's memory is collected, so that a pass must hold no
 * statement or expression of the module across its call (docs/ir.md,
 * "Memory").  0, or -1 at the first failure, with diagnostics in k's
 * context (the passes before it stay applied; a failing pass leaves k as
 * it says). */
STIR_EXPORT int stir_pipeline_run(__stir_keep const stir_pipeline *p,
	__stir_keep stir_kernel *k);
/* stir_pipeline_run on every kernel of m, in order.  0 or -1. */
STIR_EXPORT int stir_pipeline_run_module(__stir_keep const stir_pipeline *p,
	__stir_keep stir_module *m);

/* ---- the registry and the standard pipelines (codegen/prepare.c) ---- */

/* The number of registered passes, and the name of pass i, in pipeline
 * order: lower_sparse_iter (at stage I), default_schedule (stage II:
 * nests without a thread binding), lower_sparse_buffer (stage II), then
 * the GPU preparation passes of stage III. */
STIR_EXPORT int stir_pass_registry_n_passes(void);
STIR_EXPORT const char *stir_pass_registry_get_pass_name(int i);

/* The pipeline that lowers a kernel to stage "stage" (1, 2 or 3):
 * lower_sparse_iter, then lower_sparse_buffer, as far as the stage asks
 * (stirc print/run --stage).  NULL for another stage or out of memory. */
STIR_EXPORT __stir_give stir_pipeline *stir_pipeline_alloc_to_stage(
	stir_stage stage);
/* The pipeline that prepares a kernel for the GPU (stirc cuda, and
 * stir_kernel_prepare_for_gpu): every registered pass, in order.  NULL
 * when memory runs out. */
STIR_EXPORT __stir_give stir_pipeline *stir_pipeline_alloc_for_gpu(void);

#ifdef __cplusplus
}
#endif
#endif
