/* Internal access to launch plans for the GPU runner (gpu.c). */
#ifndef STIR_CODEGEN_PLAN_H
#define STIR_CODEGEN_PLAN_H

#include <stir/codegen.h>

/* p, i, params, ctx: the grid and block of launch i for the parameter
 * values "params" (by parameter index).  0, or -1 with an error in ctx. */
int cuda_plan_dims(const stir_cuda_plan *p, int i, const int64_t *params,
	stir_ctx *ctx, unsigned grid[3], unsigned block[3]);

/* p, i: where a refusal of launch i points: its statement, or the first
 * located statement in it (a loop a schedule made has no place of its
 * own), or the kernel. */
stir_loc cuda_plan_launch_loc(const stir_cuda_plan *p, int i);

/* p, i, params, ctx, empty: whether launch i runs nothing at these
 * parameter values: its statement is a bound loop of extent 0 or less,
 * or a horizontal block all of whose nests are.  Such a launch is
 * skipped (a launch of one block would do nothing, but a kernel of
 * parts that may be empty should not pay for them).  0, or -1 with an
 * error in ctx. */
int cuda_plan_launch_is_empty(const stir_cuda_plan *p, int i,
	const int64_t *params, stir_ctx *ctx, bool *empty);

#endif
