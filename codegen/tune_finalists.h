/* The finalists of the tuner's measured search (codegen/tune.c): the
 * candidates timed within STIR_TUNE_FINALIST_MARGIN of the fastest, timed
 * again in rounds, each round on the inputs at other device addresses,
 * and the one of least median over the rounds chosen.  Pure functions,
 * tested on the host (tests/test_tune_finalists.c). */
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

/* n, rounds, ms, median: finalist f's time in round q at
 * ms[f * rounds + q] (f < n, q < rounds; n and rounds at least 1, rounds
 * at most STIR_TUNE_FINALIST_ROUNDS): the finalist of the least median
 * over its rounds (the first of equal ones), each finalist's median into
 * median[f]. */
int tune_pick_finalist(int n, int rounds, const double *ms, double *median);

#endif
