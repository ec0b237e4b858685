/* The registry of the standard passes and the pipelines made of them
 * (include/stir/pipeline.h; docs/schedules.md, "Pipelines").  Preparing
 * a kernel for the GPU, from whatever stage it is at to stage III:
 *
 *   stage I   --lower_sparse_iter-->      stage II
 *             (the caller's stage II schedules happen before this call)
 *   stage II  --default_schedule-->       stage II  (nests left unbound)
 *             --lower_sparse_buffer-->    stage III
 *   stage III --lift_guards-->            stage III (the GPU rewrites of
 *             --hoist_invariants-->       include/stir/passes.h)
 *             --hoist_warp_reads-->       stage III (passes/hoist.c)
 *             --insert_barriers-->        stage III (passes/insert_barriers.c)
 *             --plan_vectors-->           stage III (passes/plan_vectors.c)
 *
 * Registering a new pass is one line of "registry" below (in pipeline
 * order: the GPU pipeline runs every registered pass); stirc print --after
 * then knows it.  This file sits in codegen/ because it is the one place
 * that knows the passes of every folder. */
#include <string.h>
#include <stir/codegen.h>
#include <stir/passes.h>
#include <stir/pipeline.h>
#include <stir/schedule.h>
#include "ir/nodes.h"
#include "passes/passes.h"

/* k, arg: lower_sparse_iter's rewrite (the pipeline verifies). */
static int pass_lower_sparse_iter(stir_kernel *k, void *arg)
{
	(void)arg;
	return stir_lower_sparse_iter_rewrite(k);
}

/* k, arg: lower_sparse_buffer's rewrite (the pipeline verifies). */
static int pass_lower_sparse_buffer(stir_kernel *k, void *arg)
{
	(void)arg;
	return stir_lower_sparse_buffer_rewrite(k);
}

/* k, arg: the default schedule (it verifies what it makes). */
static int pass_default_schedule(stir_kernel *k, void *arg)
{
	(void)arg;
	return stir_default_schedule(k);
}

/* k, arg: split guards tested before their loop nests (passes/lift_guards.c). */
static int pass_lift_guards(stir_kernel *k, void *arg)
{
	(void)arg;
	return stir_lift_guards(k);
}

/* k, arg: searches the loops do not change before them (passes/hoist.c). */
static int pass_hoist_invariants(stir_kernel *k, void *arg)
{
	(void)arg;
	return stir_hoist_invariants(k);
}

/* k, arg: the warp-buffer reads the loops do not change before them
 * (passes/hoist.c; it verifies what it makes). */
static int pass_hoist_warp_reads(stir_kernel *k, void *arg)
{
	(void)arg;
	return stir_hoist_warp_reads(k);
}

/* k, arg: the barriers a stage III kernel needs (passes/insert_barriers.c). */
static int pass_insert_barriers(stir_kernel *k, void *arg)
{
	(void)arg;
	return stir_insert_barriers(k);
}

/* k, arg: the vector plans of the vectorized loops
 * (passes/plan_vectors.c; it verifies what it makes). */
static int pass_plan_vectors(stir_kernel *k, void *arg)
{
	(void)arg;
	return stir_plan_vectors(k);
}

/* A registered pass. */
typedef struct registered {
	const char *name;
	stir_stage stage;      /* the stage it applies to (0: any) */
	unsigned flags;        /* STIR_PASS_* */
	stir_pass_fn fn;
} registered;

/* Every standard pass, in the order the GPU pipeline runs them. */
static const registered registry[] = {
	{ "lower_sparse_iter", STIR_STAGE_1, 0, pass_lower_sparse_iter },
	{ "default_schedule", STIR_STAGE_2, STIR_PASS_VERIFIES,
	  pass_default_schedule },
	{ "lower_sparse_buffer", STIR_STAGE_2, 0, pass_lower_sparse_buffer },
	{ "lift_guards", STIR_STAGE_3, 0, pass_lift_guards },
	{ "hoist_invariants", STIR_STAGE_3, 0, pass_hoist_invariants },
	{ "hoist_warp_reads", STIR_STAGE_3, STIR_PASS_VERIFIES,
	  pass_hoist_warp_reads },
	{ "insert_barriers", STIR_STAGE_3, 0, pass_insert_barriers },
	{ "plan_vectors", STIR_STAGE_3, STIR_PASS_VERIFIES, pass_plan_vectors },
};
#define N_REGISTERED (int)(sizeof(registry) / sizeof(registry[0]))

/* (none): see pipeline.h. */
int stir_pass_registry_n_passes(void)
{
	return N_REGISTERED;
}

/* i: see pipeline.h. */
const char *stir_pass_registry_get_pass_name(int i)
{
	return i >= 0 && i < N_REGISTERED ? registry[i].name : NULL;
}

/* p, name: see pipeline.h. */
int stir_pipeline_add(stir_pipeline *p, const char *name)
{
	for (int i = 0; name && i < N_REGISTERED; i++)
		if (!strcmp(registry[i].name, name))
			return stir_pipeline_add_pass(p, name, registry[i].stage,
				registry[i].flags, registry[i].fn, NULL);
	return -1;
}

/* stage: see pipeline.h. */
stir_pipeline *stir_pipeline_alloc_to_stage(stir_stage stage)
{
	if (stage < STIR_STAGE_1 || stage > STIR_STAGE_3)
		return NULL;
	stir_pipeline *p = stir_pipeline_alloc();
	if (p && ((stage >= STIR_STAGE_2 &&
	    stir_pipeline_add(p, "lower_sparse_iter") < 0) ||
	    (stage >= STIR_STAGE_3 &&
	    stir_pipeline_add(p, "lower_sparse_buffer") < 0))) {
		stir_pipeline_free(p);
		return NULL;
	}
	return p;
}

/* (none): see pipeline.h. */
stir_pipeline *stir_pipeline_alloc_for_gpu(void)
{
	stir_pipeline *p = stir_pipeline_alloc();
	for (int i = 0; p && i < N_REGISTERED; i++)
		if (stir_pipeline_add(p, registry[i].name) < 0) {
			stir_pipeline_free(p);
			return NULL;
		}
	return p;
}

/* k: the kernel to bring to stage III (see codegen.h). */
int stir_kernel_prepare_for_gpu(stir_kernel *k)
{
	if (!k)
		return -1;
	stir_pipeline *p = stir_pipeline_alloc_for_gpu();
	/* its steps are not the caller's schedule: out of the schedule log
	 * (a schedule file's GPU pipeline runs them itself) */
	bool log_on = k->log_on;
	k->log_on = false;
	int rc = p ? stir_pipeline_run(p, k) : -1;
	k->log_on = log_on;
	if (!p)
		stir_error_oom(stir_kernel_ctx(k));
	stir_pipeline_free(p);
	return rc;
}
