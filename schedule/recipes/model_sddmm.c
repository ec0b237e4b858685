/* The cost model of the SDDMM candidates (docs/recipes.md, "The SDDMM
 * cost model"): an estimate of a candidate's time on a matrix at a
 * feature size, from the bytes it moves (the gathered rows of Y, with the
 * share L2 holds, X's rows, the indices, S) over the bandwidth its
 * threads in flight can draw, and the serial steps of its threads: a
 * non-zero's vectors per lane and shuffles, the fused schedule's row
 * search per vector, the row schedule's steps of fm.nnz non-zeros per row
 * (the last one part idle), its copy of X's row and barrier, and the
 * waves of thread blocks over the SMs.  The figures are relative: only
 * the order of the candidates matters. */
#include <stdlib.h>
#include <stir/recipes.h>
#include "schedule/recipes/rank.h"

/* Modeled machine: H100-like bandwidth (bytes per ns) and L2 size. */
#define DRAM_BW 3000.0
#define L2_BYTES (50.0 * 1024 * 1024)
#define L2_BW_FACTOR 0.3        /* a gather that hits L2, against DRAM */
#define LOAD_NS 400.0           /* a gather's latency, a serial step */
#define ISSUE_NS 4.0            /* a vector load or shuffle issued */
#define SEARCH_NS 20.0          /* a step of the fused row search */
#define BLOCK_NS 300.0          /* a thread block's start, copy, barrier */
#define SM_BW 40.0              /* bytes per ns one SM draws from L2 */

/* x: ceil(log2(x)) for x >= 1. */
static double log2_ceil(int64_t x)
{
	double l = 0;
	for (int64_t v = 1; v < x; v *= 2)
		l += 1;
	return l;
}

/* p, a, feat, n_sms: see recipes.h. */
double stir_sddmm_model_cost(const stir_sddmm_params *p, const stir_csr *a,
	int64_t feat, int n_sms)
{
	if (!p || !a || feat < 1 || p->max_lanes < 1 || p->threads < 0 ||
	    a->nrows < 1)
		return -1;
	if (n_sms < 1)
		n_sms = 132;
	stir_sddmm_map fm = stir_sddmm_params_map(p, feat);
	double f = (double)feat, nnz = (double)a->nnz;
	double threads = (double)(fm.lanes * fm.nnz);
	/* a non-zero's serial steps in each of its lanes: its vectors, the
	 * shuffles of the sum; the fused schedule searches the row once per
	 * vector */
	double vecs = f / (double)(fm.lanes * fm.vec);
	double nz_steps = LOAD_NS + ISSUE_NS * (vecs * 2 +
		log2_ceil(fm.lanes));
	if (!p->rows)
		nz_steps += SEARCH_NS * log2_ceil(a->nrows + 1) +
			ISSUE_NS * vecs * log2_ceil(a->nrows + 1);
	/* thread blocks, and the steps of the slowest and of all */
	double blocks, work = 0, longest = 0, busy = 0, used = 0;
	if (p->rows) {
		blocks = (double)a->nrows;
		for (int64_t i = 0; i < a->nrows; i++) {
			int64_t d = a->indptr[i + 1] - a->indptr[i];
			double steps = (double)((d + fm.nnz - 1) / fm.nnz);
			/* the copy of X's row (none when it is read from
			 * global memory) and a long row's gathers, all on one
			 * SM */
			double s = steps * nz_steps +
				(p->x_global ? 0 : LOAD_NS) +
				(double)d * f * 4 / SM_BW;
			work += s;
			busy += (double)d;
			used += steps * (double)fm.nnz;
			if (s > longest)
				longest = s;
		}
	} else {
		blocks = (nnz + (double)fm.nnz - 1) / (double)fm.nnz;
		if (blocks < 1)
			blocks = 1;
		work = blocks * (nz_steps + (double)fm.nnz * f * 4 / SM_BW);
		busy = nnz;
		used = blocks * (double)fm.nnz;
		longest = nz_steps + (double)fm.nnz * f * 4 / SM_BW;
	}
	/* bytes: Y's rows gathered (L2 holds a share of Y), X's rows (once
	 * a row in the row schedule; per non-zero, mostly L2 hits, fused),
	 * the indices, S */
	double y_bytes = (double)a->ncols * f * 4;
	double hit = y_bytes <= L2_BYTES ? 1.0 : L2_BYTES / y_bytes;
	double gather = nnz * f * 4 * (hit * L2_BW_FACTOR + (1 - hit));
	double x_bytes = p->rows ? (double)a->nrows * f * 4 :
		(double)a->nrows * f * 4 + nnz * f * 4 * L2_BW_FACTOR * 0.5;
	double mem_ns = (gather + x_bytes + nnz * 8 +
		(double)a->nrows * 4) / DRAM_BW;
	/* the threads in flight against the GPU's room; the row schedule's
	 * lanes idle in a row's last step draw nothing */
	double resident = 2048.0 / threads;
	if (resident > 32)
		resident = 32;
	double slots = (double)n_sms * resident;
	double fill = blocks * threads / ((double)n_sms * 2048);
	if (used > 0)
		fill *= busy / used;
	if (fill > 1)
		fill = 1;
	mem_ns /= fill < 0.1 ? 0.1 : fill;
	double lat_ns = work / slots + longest +
		blocks / slots * BLOCK_NS *
		(p->rows && !p->x_global ? 1.0 : 0.5);
	return mem_ns > lat_ns ? mem_ns + 0.25 * lat_ns :
		lat_ns + 0.25 * mem_ns;
}

/* i, a, feat, n_sms: the SDDMM model's cost of candidate i. */
static double sddmm_cost(int i, const stir_csr *a, int64_t feat, int n_sms)
{
	return stir_sddmm_model_cost(stir_sddmm_get_candidate(i), a, feat,
		n_sms);
}

/* a, feat, n_sms, order, costs: see recipes.h. */
int stir_sddmm_model_rank(const stir_csr *a, int64_t feat, int n_sms,
	int *order, double *costs)
{
	return recipe_rank(stir_sddmm_n_candidates(), sddmm_cost, a, feat, n_sms,
		order, costs);
}
