/* Preparing a kernel for the GPU: the pipeline of docs/schedules.md from
 * whatever stage the kernel is at to stage III.
 *
 *   stage I   --lower_sparse_iter-->      stage II
 *             (the caller's stage II schedules happen before this call)
 *   stage II  --default_schedule-->       stage II  (nests left unbound)
 *             --lower_sparse_buffer-->    stage III
 *   stage III --lift_guards-->            stage III (the GPU rewrites of
 *                                         passes/passes.h)
 *
 * Requires: a verified kernel.  Preserves what it computes; the passes
 * verify what they produce. */
#include <stir/codegen.h>
#include <stir/passes.h>
#include <stir/schedule.h>
#include "ir/nodes.h"
#include "passes/passes.h"

/* k: the kernel to bring to stage III (see codegen.h). */
int stir_kernel_prepare_for_gpu(stir_kernel *k)
{
	if (!k)
		return -1;
	if (k->stage == STIR_STAGE_1 && stir_kernel_lower_sparse_iter(k) < 0)
		return -1;
	if (k->stage == STIR_STAGE_2 && (stir_default_schedule(k) < 0 ||
	    stir_kernel_lower_sparse_buffer(k) < 0))
		return -1;
	return stir_kernel_gpu_rewrites(k);
}
