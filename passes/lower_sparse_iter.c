/* lower_sparse_iter: stage I -> stage II (include/stir/passes.h), the
 * pipeline of its sub-passes, one line each (passes/passes.h):
 *
 *   materialize_aux_buffers   structure arrays become buffers
 *   generate_loops            iterations become loops, blocks, init nests
 *   translate_coords          coordinates become positions
 *   analyze_regions           blocks get their read/write regions
 *
 * The kernel is checked first (verified, stage I) and verified again at
 * the end; a failure in between leaves the kernel unusable, which only an
 * internal error or running out of memory can cause.  A pipeline
 * (include/stir/pipeline.h) calls the rewrite alone: it verifies between
 * its passes itself. */
#include <stir/passes.h>
#include "passes/passes.h"

/* k: see passes/passes.h: the sub-passes, without the verifier. */
int stir_lower_sparse_iter_rewrite(stir_kernel *k)
{
	stir_made_clear(k);
	if (stir_materialize_aux_buffers(k) < 0 || stir_generate_loops(k) < 0 ||
	    stir_translate_coords(k) < 0)
		return -1;
	k->stage = STIR_STAGE_2;
	return stir_analyze_regions(k);
}

/* k: stir_lower_sparse_iter before the collection. */
static int lower_sparse_iter(stir_kernel *k)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	stir_made_clear(k);
	if (k->stage != STIR_STAGE_1) {
		stir_error(ctx, k->loc, "lower_sparse_iter: kernel '%s' is at stage "
			"%d, not stage 1", k->name, (int)k->stage);
		return -1;
	}
	if (stir_kernel_verify(k) < 0)
		return -1;
	if (stir_lower_sparse_iter_rewrite(k) < 0 || stir_kernel_verify(k) < 0) {
		stir_made_clear(k);
		return -1;
	}
	return 0;
}

/* k: the pass, then the module's arena collected
 * (stir_module_collect keeps what the kernels reach). */
int stir_lower_sparse_iter(stir_kernel *k)
{
	int r = lower_sparse_iter(k);
	if (k)
		(void)stir_module_collect(k->module);
	return r;
}

int stir_module_lower_sparse_iter(stir_module *m)
{
	for (int i = 0; i < m->kernels.n; i++) {
		stir_kernel *k = stir_kernel_at(&m->kernels, i);
		if (k->stage == STIR_STAGE_1 && stir_lower_sparse_iter(k) < 0)
			return -1;
	}
	return 0;
}
