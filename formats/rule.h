/* The insides of a format rewrite rule (include/stir/passes.h), shared by
 * the rule constructors (formats/rules.c) and the decompose_format pass
 * (passes/decompose_format.c). */
#ifndef STIR_FORMATS_RULE_H
#define STIR_FORMATS_RULE_H

#include <stdio.h>
#include <stir/passes.h>

/* One axis of the new format. */
typedef struct rule_axis {
	char *name;            /* owned; a new axis's name without the suffix,
	                          or "^K" for the tensor's own axis number K */
	bool keep;             /* the tensor's own axis, kept as it is */
	stir_axis_kind kind;   /* new axes only */
	char *parent;          /* owned: a new axis's name, "^K", or NULL */
	stir_size len, nnz;    /* sizes; param names owned */
	bool sorted;
} rule_axis;

/* The inverse map of one axis of the tensor. */
typedef struct rule_map {
	int old_axis;          /* position in the tensor's axis list */
	int n;
	int *axes;             /* owned: rule axis indices */
	int64_t *coefs;        /* owned */
	char *through;         /* owned, or NULL: the coordinate is
	                          THROUGH_SUFFIX[sum of coefs x axes], a tensor
	                          the pass declares distinct in [0, its
	                          length) (a permutation of its positions) */
} rule_map;

struct stir_format_rule {
	char *suffix;          /* owned */
	int n_axes;
	rule_axis *axes;       /* owned, in the new tensor's axis order */
	int n_maps;
	rule_map *maps;        /* owned */
	int64_t padding;       /* padding(p): p, else 0 (for the host builder) */
	bool cover_rows;       /* stir_format_rule_set_cover_rows */
};

#endif
