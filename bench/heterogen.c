/* heterogen: a synthetic relational graph in the shared ".hetero" format
 * (docs/formats.md), written to the standard output (pipe it through gzip
 * for a .hetero.gz).
 *
 *   heterogen NODES EDGES RELATIONS SEED
 *
 * EDGES counts the reverse edges and RELATIONS the reverse relations
 * (both even): EDGES / 2 distinct forward edges (src, dst, r) with r below
 * RELATIONS / 2 are drawn, each with its reverse (dst, src, r + RELATIONS
 * / 2), as DGL's RDF graphs have.  Skewed like them: relation r of the
 * forward half is drawn with weight 1 / (r + 1) (a few relations hold most
 * edges), and each end node with probability falling as a power of its
 * rank (rank = floor(NODES * u^3) for a uniform u, then scattered over the
 * ids by a fixed permutation), so a few hubs have thousands of edges and
 * most nodes few.  The same arguments always give the same file.
 *
 * bench/README.md gives the BGS- and AM-sized invocations.  Exit 1 with
 * a message on bad arguments or when the graph cannot hold EDGES / 2
 * distinct forward edges.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* An edge: source, destination, relation. */
typedef struct edge {
	int64_t src, dst, rel;
} edge;

/* *s: the generator's state; the next 64 random bits (splitmix64). */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* *s: the state; a uniform double in [0, 1). */
static double uniform(uint64_t *s)
{
	return (double)(next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* rank, n, mult, add: rank scattered over [0, n) by i -> (i * mult + add)
 * mod n, a permutation because mult is coprime with n. */
static int64_t scatter(int64_t rank, int64_t n, int64_t mult, int64_t add)
{
	return (int64_t)(((unsigned __int128)rank * (uint64_t)mult +
		(uint64_t)add) % (uint64_t)n);
}

/* a, b: the greatest common divisor. */
static int64_t gcd(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* a, b: two edges; order by source, destination, relation. */
static int edge_cmp(const void *a, const void *b)
{
	const edge *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return (x->rel > y->rel) - (x->rel < y->rel);
}

/* s, what, *v: parse a positive decimal integer argument.  0 or -1 with
 * a message. */
static int parse_arg(const char *s, const char *what, int64_t *v)
{
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || *end || end == s || x <= 0) {
		fprintf(stderr, "heterogen: %s must be a positive integer, not "
			"'%s'\n", what, s);
		return -1;
	}
	*v = x;
	return 0;
}

/* argc, argv: see the comment at the top. */
int main(int argc, char **argv)
{
	int64_t n, e, r, seed;
	if (argc != 5) {
		fprintf(stderr, "usage: heterogen NODES EDGES RELATIONS SEED\n");
		return 1;
	}
	if (parse_arg(argv[1], "NODES", &n) || parse_arg(argv[2], "EDGES", &e) ||
	    parse_arg(argv[3], "RELATIONS", &r) ||
	    parse_arg(argv[4], "SEED", &seed))
		return 1;
	if (e % 2 || r % 2 || n > INT32_MAX) {
		fprintf(stderr, "heterogen: EDGES and RELATIONS must be even and "
			"NODES below 2^31\n");
		return 1;
	}
	int64_t half = e / 2, rh = r / 2;
	if ((double)half > 0.5 * (double)n * (double)n * (double)rh) {
		fprintf(stderr, "heterogen: %" PRId64 " forward edges do not fit "
			"%" PRId64 " nodes and %" PRId64 " relations\n", half, n, rh);
		return 1;
	}
	uint64_t st = (uint64_t)seed;
	double *cum = malloc((size_t)rh * sizeof(double));
	edge *g = malloc((size_t)e * sizeof(edge));
	if (!cum || !g) {
		fprintf(stderr, "heterogen: out of memory\n");
		return 1;
	}
	double tot = 0;
	for (int64_t i = 0; i < rh; i++)
		cum[i] = tot += 1.0 / (double)(i + 1);
	/* two permutations: hubs as sources and as destinations differ */
	int64_t m1 = (int64_t)(n * 0.618) | 1, m2 = (int64_t)(n * 0.377) | 1;
	while (gcd(m1, n) != 1)
		m1 += 2;
	while (gcd(m2, n) != 1)
		m2 += 2;
	int64_t have = 0;
	while (have < half) {
		/* draw what is missing, then drop repeats */
		for (int64_t i = have; i < half; i++) {
			double u = uniform(&st) * tot;
			int64_t lo = 0, hi = rh - 1;
			while (lo < hi) {
				int64_t mid = (lo + hi) / 2;
				if (cum[mid] <= u)
					lo = mid + 1;
				else
					hi = mid;
			}
			int64_t a = (int64_t)((double)n * pow(uniform(&st), 3.0));
			int64_t b = (int64_t)((double)n * pow(uniform(&st), 3.0));
			g[i].src = scatter(a < n ? a : n - 1, n, m1, 7);
			g[i].dst = scatter(b < n ? b : n - 1, n, m2, 11);
			g[i].rel = lo;
		}
		qsort(g, (size_t)half, sizeof(edge), edge_cmp);
		int64_t k = 0;
		for (int64_t i = 0; i < half; i++)
			if (k == 0 || edge_cmp(&g[k - 1], &g[i]) != 0)
				g[k++] = g[i];
		have = k;
	}
	for (int64_t i = 0; i < half; i++) {
		g[half + i].src = g[i].dst;
		g[half + i].dst = g[i].src;
		g[half + i].rel = g[i].rel + rh;
	}
	qsort(g, (size_t)e, sizeof(edge), edge_cmp);
	printf("%%%%hetero %" PRId64 " %" PRId64 " %" PRId64 "\n", n, e, r);
	for (int64_t i = 0; i < e; i++)
		printf("%" PRId64 " %" PRId64 " %" PRId64 "\n", g[i].src, g[i].dst,
			g[i].rel);
	free(cum);
	free(g);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "heterogen: cannot write the output\n");
		return 1;
	}
	return 0;
}
