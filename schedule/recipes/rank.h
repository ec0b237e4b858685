/* The ranking the recipes' cost models share (schedule/recipes/model.c):
 * candidates ordered by a model's cost; and what the tuner's model and
 * record (model.c, record.c) ask of a recipe (codegen/tune.c, which may
 * not include schedule/, keeps its own). */
#ifndef STIR_SCHEDULE_RECIPES_RANK_H
#define STIR_SCHEDULE_RECIPES_RANK_H

#include <stdint.h>
#include <stir/io.h>
#include <stir/recipes.h>

/* A model's cost of candidate i on matrix a at feat features on n_sms
 * SMs, arg what the model computed once for a (or NULL); < 0 when it
 * does not apply. */
typedef double (*recipe_cost_fn)(int i, const void *arg, const stir_csr *a,
	int64_t feat, int n_sms);

/* n, cost, arg, a, feat, n_sms, order, costs: the candidates 0 .. n-1 that
 * apply (cost >= 0), cheapest first and ties by index, into order[] (room
 * for n), their costs into costs[] when not NULL.  The count, or -1 when
 * out of memory. */
int recipe_rank(int n, recipe_cost_fn cost, const void *arg,
	const stir_csr *a, int64_t feat, int n_sms, int *order, double *costs);

/* r: the count of tuner recipe r's candidates (0 for STIR_TUNE_NONE). */
int recipe_n_candidates(stir_tune_recipe r);
/* r: the block size of BSR recipe r, 0 for the others. */
int64_t recipe_block(stir_tune_recipe r);

#endif
