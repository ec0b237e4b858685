/* plan_vectors (include/stir/passes.h): the vector plan of every
 * vectorized loop written into the IR (docs/ir.md, "Vector plans").
 *
 * Which accesses of a loop "for w in [0, W) vectorize" run as vectors of
 * W lanes is a pure function of the IR (ir/vector.c): this pass records
 * it as the loop's annotation, "vectorize(B[IDX] load, C[IDX] store)", or
 * "vectorize()" for a loop that runs only as its scalar loop, so that the
 * plan shows in stage III text, reads back with the kernel, and is what
 * the CUDA emitter prints (codegen/cuda_vector.c).  The verifier refuses
 * an annotation that is not the plan of its loop; the interpreter runs
 * the loop's plain iterations, which the plan keeps the meaning of.
 *
 * Every vectorized loop of extent 2 or 4 is planned afresh, so running
 * the pass twice gives the same kernel, and a plan written by hand is
 * replaced by the computed one (the same, or the verifier would have
 * refused the kernel).
 *
 * Requires: a verified stage III kernel.
 * Keeps: what the kernel computes.
 * Breaks: nothing. */
#include <stir/passes.h>
#include "ir/diag.h"
#include "ir/vector.h"
#include "ir/nodes.h"

/* The state of the pass. */
typedef struct planning {
	stir_kernel *k;            /* the kernel rewritten */
	bool oom;
} planning;

/* loop, p, user: record plan p (NULL: none) of vectorized loop "loop"
 * (user: the planning). */
static void annotate(const stir_stmt *loop, const stir_vec_plan *p,
	void *user)
{
	planning *pl = user;
	if (!pl->oom && stir_vec_annotate(pl->k, (stir_stmt *)loop, p) < 0)
		pl->oom = true;
}

/* k: see passes.h. */
int stir_plan_vectors(stir_kernel *k)
{
	if (!k)
		return -1;
	if (k->stage != STIR_STAGE_3) {
		stir_error(stir_kernel_ctx(k), k->loc, "plan_vectors: kernel '%s' "
			"is at stage %d; the pass takes stage III", k->name,
			(int)k->stage);
		return -1;
	}
	planning pl = { .k = k };
	if (stir_vec_plan_kernel(k, annotate, &pl) < 0 || pl.oom) {
		stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	return stir_kernel_verify(k);
}
