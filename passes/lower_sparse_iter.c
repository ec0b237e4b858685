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

/* k: see include/stir/passes.h. */
int stir_lower_sparse_iter(stir_kernel *k)
{
	return stir_lowering_run(k, "lower_sparse_iter", STIR_STAGE_1,
		stir_lower_sparse_iter_rewrite);
}

/* m: see include/stir/passes.h. */
int stir_module_lower_sparse_iter(stir_module *m)
{
	return stir_lowering_run_module(m, STIR_STAGE_1, stir_lower_sparse_iter);
}
