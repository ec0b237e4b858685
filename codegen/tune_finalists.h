/* The rounds of the tuner's measured search (codegen/tune.c): the
 * candidate of least median over its interleaved rounds wins, and those
 * within STIR_TUNE_FINALIST_MARGIN of it are the finalists.  Pure
 * functions, tested on the host (tests/test_tune_finalists.c). */
#ifndef STIR_CODEGEN_TUNE_FINALISTS_H
#define STIR_CODEGEN_TUNE_FINALISTS_H

#include <stdbool.h>

/* n, ms, dropped, idx: of the n timed candidates, ms[i] the median of
 * candidate i (dropped[i]: the screening dropped it, so ms[i] is not a
 * median), the indices of those not dropped within
 * STIR_TUNE_FINALIST_MARGIN times the fastest, the fastest first (equal
 * times in the search's order), at most STIR_TUNE_FINALISTS of them,
 * into idx[]; their count (0 when every candidate was dropped). */
int tune_get_finalists(int n, const double *ms, const bool *dropped,
	int *idx);

/* n, rounds, ms, dropped, median: candidate i's time in round q at
 * ms[i * STIR_TUNE_ROUNDS + q] (i < n, q < rounds; rounds from 1 to
 * STIR_TUNE_ROUNDS; for one the screening dropped, dropped[i], only
 * round 0, the screening's median): each candidate's median over its
 * rounds into median[i], and the one not dropped of least median (the
 * first of equal ones), or -1 when every one was dropped. */
int tune_pick_median(int n, int rounds, const double *ms,
	const bool *dropped, double *median);

/* n, inputs, order: the candidates 0 .. n-1, inputs[i] the first
 * candidate of the same inputs as i (inputs[i] <= i, inputs[g] == g for
 * the first), the candidates of the same inputs together, each group in
 * the order of its first, into order[0 .. n-1]: a round in this order
 * builds each format once. */
void tune_order_by_inputs(int n, const int *inputs, int *order);

#endif
