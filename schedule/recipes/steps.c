/* The schedule steps the recipes share (steps.h). */
#include <stir/stir.h>
#include "ir/diag.h"
#include "ir/nodes.h"
#include "schedule/recipes/steps.h"

/* k, block, loop, n, factors, made: see steps.h. */
int recipe_split(stir_kernel *k, const char *block, const char *loop, int n,
	const int64_t *factors, const char **made)
{
	if (stir_split(k, block, loop, n, factors) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		made[i] = stir_kernel_get_made(k, STIR_MADE_LOOP, i);
	return 0;
}

/* k, acc: see steps.h. */
int recipe_unroll_tiles(stir_kernel *k, const char *acc)
{
	char init[256];
	snprintf(init, sizeof(init), "%s_init", acc);
	return REORDER(k, init, "ax1", "ax0", "ax2") < 0 ||
		REORDER(k, acc, "ax1", "ax0", "ax2") < 0 ||
		stir_unroll(k, init, "ax1") < 0 || stir_unroll(k, acc, "ax1") < 0 ?
		-1 : 0;
}

/* k, recipe, has_candidate, feat, takes: see steps.h. */
int recipe_refuse(stir_kernel *k, const char *recipe, bool has_candidate,
	int64_t feat, const char *takes)
{
	stir_error(stir_kernel_ctx(k), k->loc, "%s: %s%s' at %lld features (%s)",
		recipe, has_candidate ? "the candidate does not apply to kernel '" :
		"no candidate for kernel '", k->name, (long long)feat, takes);
	return -1;
}
