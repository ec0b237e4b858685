/* decompose_format's state (passes/decompose_format.c), shared with the
 * kernel of the value copies and the pruning (passes/decompose_copy.c). */
#ifndef STIR_PASSES_DECOMPOSE_H
#define STIR_PASSES_DECOMPOSE_H

#include <stdbool.h>
#include "formats/rule.h"
#include "ir/nodes.h"

/* A top-level iteration to rewrite. */
typedef struct computation {
	int index;             /* in the kernel body */
	stir_stmt *it;
	int first;             /* the first of the groups that iterate the
	                          tensor's axes */
	int first_var;         /* the first iterator of those groups */
} computation;

/* The state of one decomposition. */
typedef struct dec {
	stir_kernel *k;
	stir_ctx *ctx;
	stir_buffer *t;        /* the tensor decomposed */
	int n_rules;
	stir_format_rule *const *rules;
	computation *comps;    /* heap */
	int n_comps;
	stir_axis ***axes;     /* per rule: the new tensor's axes (heap) */
	stir_buffer **tensors; /* per rule: the new tensor (heap) */
	stir_buffer **through; /* per rule: the tensor its rows' map reads
	                          (rule_map's through), or NULL (heap) */
	bool failed;
} dec;

/* d, loc, fmt: report an error of the pass. */
#define fail(d, loc, ...) \
	((d)->failed = true, stir_error((d)->ctx, (loc), "decompose_format: " __VA_ARGS__))

/* d, base, suffix: "BASE" + suffix in d's kernel's arena (a name of the
 * new format); NULL, with d->failed set, when memory runs out. */
const char *decompose_suffixed(dec *d, const char *base, const char *suffix);

/* k, name: name in lower case, in k's arena (iterators are named after
 * their axes so); NULL when memory runs out. */
const char *decompose_lower_case(stir_kernel *k, const char *name);

/* d, r, k, new_vars, through: the inverse-map coordinate of tensor axis k
 * as an expression of the new iterators; a map through a tensor loads
 * "through" (rule r's, or its copy in another kernel). */
stir_expr *decompose_inverse(dec *d, const stir_format_rule *r, int k,
	stir_var *const *new_vars, stir_buffer *through);

/* d: the kernel KERNEL_copy holding the value copies, in d->k's module. */
stir_kernel *decompose_copy_kernel(dec *d);

/* k: drop buffer t, then the axes and parameters nothing uses. */
int decompose_prune(stir_kernel *k, const stir_buffer *t);

#endif
