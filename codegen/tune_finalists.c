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

/* n, rounds, ms, dropped, median: see codegen/tune_finalists.h. */
int tune_pick_median(int n, int rounds, const double *ms,
	const bool *dropped, double *median)
{
	int won = -1;
	for (int i = 0; i < n; i++) {
		const double *t = &ms[i * STIR_TUNE_ROUNDS];
		int k = dropped[i] ? 1 : rounds;
		double v[STIR_TUNE_ROUNDS] = { 0 };
		/* the rounds sorted, by insertion */
		for (int q = 0; q < k; q++) {
			int at = q;
			while (at > 0 && v[at - 1] > t[q]) {
				v[at] = v[at - 1];
				at--;
			}
			v[at] = t[q];
		}
		median[i] = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
		if (!dropped[i] && (won < 0 || median[i] < median[won]))
			won = i;
	}
	return won;
}

/* n, inputs, order: see codegen/tune_finalists.h. */
void tune_order_by_inputs(int n, const int *inputs, int *order)
{
	int k = 0;
	for (int g = 0; g < n; g++)
		for (int i = g; inputs[g] == g && i < n; i++)
			if (inputs[i] == g)
				order[k++] = i;
}
