/* The finalists of the tuner's measured search; see
 * codegen/tune_finalists.h. */
#include <stir/tune.h>
#include "codegen/tune_finalists.h"

/* n, ms, dropped, idx: see codegen/tune_finalists.h. */
int tune_get_finalists(int n, const double *ms, const bool *dropped,
	int *idx)
{
	int best = -1;
	for (int i = 0; i < n; i++)
		if (!dropped[i] && (best < 0 || ms[i] < ms[best]))
			best = i;
	int k = 0;
	for (int i = 0; best >= 0 && i < n; i++) {
		if (dropped[i] || ms[i] > STIR_TUNE_FINALIST_MARGIN * ms[best])
			continue;
		/* insert by time, after the equal ones; past the last place
		 * kept, nothing */
		int at = k;
		while (at > 0 && ms[idx[at - 1]] > ms[i])
			at--;
		if (at == STIR_TUNE_FINALISTS)
			continue;
		if (k < STIR_TUNE_FINALISTS)
			k++;
		for (int j = k - 1; j > at; j--)
			idx[j] = idx[j - 1];
		idx[at] = i;
	}
	return k;
}

/* n, rounds, ms, median: see codegen/tune_finalists.h. */
int tune_pick_finalist(int n, int rounds, const double *ms, double *median)
{
	int won = 0;
	for (int f = 0; f < n; f++) {
		double v[STIR_TUNE_FINALIST_ROUNDS];
		int k = 0;
		/* the rounds sorted, by insertion */
		for (int q = 0; q < rounds; q++) {
			double x = ms[f * rounds + q];
			int at = k++;
			while (at > 0 && v[at - 1] > x) {
				v[at] = v[at - 1];
				at--;
			}
			v[at] = x;
		}
		median[f] = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
		if (median[f] < median[won])
			won = f;
	}
	return won;
}
