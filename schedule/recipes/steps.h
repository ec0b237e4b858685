/* The schedule steps the recipes share (schedule/recipes/steps.c). */
#ifndef STIR_SCHEDULE_RECIPES_STEPS_H
#define STIR_SCHEDULE_RECIPES_STEPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stir/schedule.h>

/* k, block, loop, n, factors, made: stir_split, with the names of the n
 * loops it made in made[0..n-1].  0, or -1 with the diagnostic in k's
 * context. */
int recipe_split(stir_kernel *k, const char *block, const char *loop, int n,
	const int64_t *factors, const char **made);

/* k, acc: an accumulator's zeroing (acc_init) and store (acc) nests
 * (ax0 its rows, ax1 its tiles, ax2 a tile's columns) tile by tile: the
 * tile loop outermost and unrolled, so that each nest inside is one
 * fragment for tensorize.  0, or -1 with the diagnostic in k's context. */
int recipe_unroll_tiles(stir_kernel *k, const char *acc);

/* k, recipe, has_candidate, feat, takes: the located error of recipe
 * function "recipe" refusing its candidate (has_candidate) or the lack
 * of one for kernel k at "feat" features, "takes" saying which features
 * it takes; -1. */
int recipe_refuse(stir_kernel *k, const char *recipe, bool has_candidate,
	int64_t feat, const char *takes);

/* k, block, loops: reorder, the loops a list. */
#define REORDER(k, block, ...) \
	stir_reorder(k, block, \
		(int)(sizeof((const char *[]){ __VA_ARGS__ }) / sizeof(char *)), \
		(const char *[]){ __VA_ARGS__ })

#endif
