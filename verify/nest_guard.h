/* The if a loop nest may test once before it (verify/nest_guard.c),
 * shared by the pass lift_guards (passes/lift_guards.c), which lifts it,
 * and the verifier and the emitter, which print a vectorized loop's
 * scalar fallback with it lifted (verify/launch.c, gpu_scalar_form). */
#ifndef STIR_VERIFY_NEST_GUARD_H
#define STIR_VERIFY_NEST_GUARD_H

#include <stdbool.h>
#include "ir/nodes.h"

/* The most lifted ifs that enclose one another. */
#define STIR_MAX_LIFTED 16

/* What may differ between the lanes of threadIdx.x in a kernel, and the
 * ifs lifted already (lift_guards' walk). */
typedef struct gpu_lanes {
	const stir_kernel *k;
	bool *depx;                /* per slot: the value may differ between
	                              the lanes of threadIdx.x */
	int n_stack;               /* lifted ifs enclosing the walk */
	const stir_stmt *stack[STIR_MAX_LIFTED];
} gpu_lanes;

/* L, k: the lanes' facts of kernel k, no if lifted yet (release them).
 * 0, or -1 when memory runs out. */
int gpu_lanes_init(gpu_lanes *L, const stir_kernel *k);
/* L: free what gpu_lanes_init allocated. */
void gpu_lanes_release(gpu_lanes *L);

/* L, s: the if that loop nest s (a loop that is not bound, and the loops
 * each holding only the next) may test once before it, or NULL: the one
 * if, without else, of its innermost body, not lifted already, that reads
 * no memory (or, when every loop of the nest has a literal extent of at
 * least 1, reads none that the if's body writes: the nest's first
 * iteration reads it anyway, and every iteration sees the same), uses
 * none of the nest's variables, and does not differ between the lanes
 * where the body uses a warp buffer. */
stir_stmt *gpu_nest_guard(const gpu_lanes *L, const stir_stmt *s);

/* k, s: the if that lift_guards would test before loop s of kernel k, s
 * taken as the outer loop of a nest (a serial or unrolled loop), or NULL
 * (none, a bound loop, or memory ran out): the scalar fallback of a
 * vectorized loop is printed so (verify/launch.c). */
const stir_stmt *stir_nest_guard(const stir_kernel *k, const stir_stmt *s);

#endif
