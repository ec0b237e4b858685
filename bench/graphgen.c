/* The power-law generator of graphgen.h.
 *
 * Row lengths: weights w_i = (i + i0)^(-1/(alpha-1)) (a Zipf profile, in a
 * random order of rows, flattened at the top by the offset i0 that brings
 * the largest row to the target maximum degree), scaled to sum to "edges", rounded by carrying the
 * fractions, capped at "nodes", and the excess handed to rows with room.
 * Columns: an alias table over the same weights gives popular targets; a
 * row draws until it has its length of distinct columns (rows longer than
 * half the nodes are drawn as a complement, so dense rows stay cheap).
 * Every step is linear in the edges apart from sorting each row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench/graphgen.h"
#include "ir/diag.h"

/* splitmix64 */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double unit(uint64_t *s)
{
	return (double)(next(s) >> 11) * 0x1p-53;
}

/* An alias table (Vose) over n weights. */
typedef struct alias {
	int64_t n;
	double *prob;
	int64_t *other;
} alias;

/* a, w, n: build the table; -1 when memory runs out. */
static int alias_init(alias *a, const double *w, int64_t n)
{
	a->n = n;
	a->prob = malloc((size_t)n * sizeof(*a->prob));
	a->other = malloc((size_t)n * sizeof(*a->other));
	int64_t *small = malloc((size_t)n * sizeof(int64_t));
	int64_t *large = malloc((size_t)n * sizeof(int64_t));
	if (!a->prob || !a->other || !small || !large) {
		free(small);
		free(large);
		return -1;
	}
	double sum = 0;
	for (int64_t i = 0; i < n; i++)
		sum += w[i];
	int64_t ns = 0, nl = 0;
	for (int64_t i = 0; i < n; i++) {
		a->prob[i] = w[i] * (double)n / sum;
		a->other[i] = i;
		if (a->prob[i] < 1)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	while (ns && nl) {
		int64_t s = small[--ns], l = large[nl - 1];
		a->other[s] = l;
		a->prob[l] -= 1 - a->prob[s];
		if (a->prob[l] < 1) {
			nl--;
			small[ns++] = l;
		}
	}
	while (nl)
		a->prob[large[--nl]] = 1;
	while (ns)
		a->prob[small[--ns]] = 1;
	free(small);
	free(large);
	return 0;
}

static int64_t alias_draw(const alias *a, uint64_t *s)
{
	int64_t i = (int64_t)(next(s) % (uint64_t)a->n);
	return unit(s) < a->prob[i] ? i : a->other[i];
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* len, n, a, s, mark, out: "len" distinct columns of n into out, sorted;
 * mark is a zeroed byte per column, left zeroed. */
static void draw_row(int64_t len, int64_t n, const alias *a, uint64_t *s,
	unsigned char *mark, int64_t *out)
{
	bool complement = len > n / 2;
	int64_t want = complement ? n - len : len, have = 0;
	int64_t *picked = out;
	if (complement) /* the columns left out, drawn uniformly */
		picked = malloc((size_t)(want ? want : 1) * sizeof(int64_t));
	while (have < want) {
		int64_t c = complement ? (int64_t)(next(s) % (uint64_t)n) :
			alias_draw(a, s);
		if (!mark[c]) {
			mark[c] = 1;
			picked[have++] = c;
		}
	}
	if (complement) {
		int64_t k = 0;
		for (int64_t c = 0; c < n; c++)
			if (!mark[c])
				out[k++] = c;
		for (int64_t i = 0; i < want; i++)
			mark[picked[i]] = 0;
		free(picked);
		return;
	}
	for (int64_t i = 0; i < len; i++)
		mark[out[i]] = 0;
	qsort(out, (size_t)len, sizeof(int64_t), cmp_i64);
}

/* n, edges, beta, i0: the length of the largest row for offset i0. */
static double top_length(int64_t n, int64_t edges, double beta, double i0)
{
	double sum = 0;
	for (int64_t i = 0; i < n; i++)
		sum += pow((double)i + i0, -beta);
	return pow(i0, -beta) * (double)edges / sum;
}

/* n, edges, beta, max_degree: the offset that brings the largest row to
 * about max_degree (bisection on a log scale; 1 when no target). */
static double find_offset(int64_t n, int64_t edges, double beta,
	int64_t max_degree)
{
	if (max_degree <= 0 || top_length(n, edges, beta, 1) <= (double)max_degree)
		return 1;
	double lo = 1, hi = (double)n;
	for (int it = 0; it < 40; it++) {
		double mid = sqrt(lo * hi);
		if (top_length(n, edges, beta, mid) > (double)max_degree)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

stir_csr *stir_bench_powerlaw(stir_ctx *ctx, int64_t nodes, int64_t edges,
	double alpha, int64_t max_degree, uint64_t seed)
{
	if (nodes <= 0 || edges < 0 || alpha <= 1 ||
	    (double)edges > (double)nodes * (double)nodes) {
		stir_error(ctx, stir_loc_none(), "power-law graph: %lld edges do not "
			"fit %lld nodes (or alpha %g <= 1)", (long long)edges,
			(long long)nodes, alpha);
		return NULL;
	}
	uint64_t s = seed;
	stir_csr *g = calloc(1, sizeof(*g));
	double *w = malloc((size_t)nodes * sizeof(double));
	int64_t *perm = malloc((size_t)nodes * sizeof(int64_t));
	unsigned char *mark = calloc((size_t)nodes, 1);
	alias a = { 0 };
	if (!g || !w || !perm || !mark)
		goto oom;
	g->nrows = g->ncols = nodes;
	g->nnz = edges;
	g->indptr = malloc((size_t)(nodes + 1) * sizeof(int64_t));
	g->indices = malloc((size_t)(edges ? edges : 1) * sizeof(int64_t));
	g->values = malloc((size_t)(edges ? edges : 1) * sizeof(double));
	if (!g->indptr || !g->indices || !g->values)
		goto oom;
	/* weights in a random order of rows */
	for (int64_t i = 0; i < nodes; i++)
		perm[i] = i;
	for (int64_t i = nodes - 1; i > 0; i--) {
		int64_t j = (int64_t)(next(&s) % (uint64_t)(i + 1));
		int64_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	double sum = 0, beta = 1.0 / (alpha - 1);
	double i0 = find_offset(nodes, edges, beta, max_degree);
	for (int64_t i = 0; i < nodes; i++) {
		w[perm[i]] = pow((double)i + i0, -beta);
		sum += w[perm[i]];
	}
	if (alias_init(&a, w, nodes) < 0)
		goto oom;
	/* row lengths: scaled, rounded by carrying the fraction, capped */
	int64_t *len = perm; /* reuse */
	double carry = 0;
	int64_t total = 0;
	for (int64_t i = 0; i < nodes; i++) {
		double x = w[i] * (double)edges / sum + carry;
		int64_t l = (int64_t)floor(x);
		carry = x - (double)l;
		len[i] = l > nodes ? nodes : l;
		total += len[i];
	}
	for (int64_t i = 0; total < edges; i = (i + 1) % nodes) {
		int64_t add = edges - total < nodes - len[i] ? edges - total :
			nodes - len[i];
		add = add > 1 + (edges - total) / nodes ? 1 + (edges - total) / nodes : add;
		len[i] += add;
		total += add;
	}
	for (int64_t i = 0; total > edges; i = (i + 1) % nodes) {
		if (len[i] > 0) {
			len[i]--;
			total--;
		}
	}
	g->indptr[0] = 0;
	for (int64_t i = 0; i < nodes; i++) {
		g->indptr[i + 1] = g->indptr[i] + len[i];
		draw_row(len[i], nodes, &a, &s, mark, g->indices + g->indptr[i]);
	}
	for (int64_t e = 0; e < edges; e++)
		g->values[e] = 1.0;
	free(w);
	free(perm);
	free(mark);
	free(a.prob);
	free(a.other);
	return g;
oom:
	free(w);
	free(perm);
	free(mark);
	free(a.prob);
	free(a.other);
	stir_csr_free(g);
	stir_error(ctx, stir_loc_none(), "power-law graph: out of memory");
	return NULL;
}
