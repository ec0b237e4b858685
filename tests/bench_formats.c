/* Timing of the host format builders and the conservation checker on a
 * large matrix: a Matrix Market file, or a seeded synthetic power-law graph
 * of a given size (reddit: 232965 nodes, 114615892 edges).  Not run by
 * make check; build it with `make tests/bench_formats`.
 *
 *   tests/bench_formats FILE.mtx[.gz] [FORMAT...]
 *   tests/bench_formats --synthetic NODES EDGES SEED [FORMAT...]
 *
 * FORMAT is one of hyb1 hyb2 hyb3 (hybrid with c = 1, 2, 3 and buckets
 * 1 .. 32), hyb-4-32 (c = 1, buckets 4 and 32), pad4, bsr16, dbsr16,
 * srbcrsTxG (SR-BCRS(T, G), e.g. srbcrs16x8), srbcrsTxGcC (chunks of C
 * groups, e.g. srbcrs16x8c8) in the rows' own order, srbcrsTxGcC-degree,
 * -locality and -fewest (in a row order, stir_row_order); the default is
 * hyb1 hyb3.  Each is built with i32 indices
 * and f32 values and checked; the times go to stdout. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stir/formats.h>

/* The time in seconds on a monotonic clock. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* s: the next number of a xorshift64* sequence. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* s: a uniform double in (0, 1). */
static double rng_unit(uint64_t *s)
{
	return ((rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

/* nodes, edges, seed: a square matrix whose row lengths follow a
 * log-normal law scaled to about "edges" entries, each row's columns a
 * sorted uniform sample (exponential spacings), values 1.  NULL when
 * memory runs out. */
static stir_csr *synthetic(int64_t nodes, int64_t edges, uint64_t seed)
{
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
	stir_csr *m = calloc(1, sizeof(*m));
	double *deg = malloc(nodes * sizeof(double));
	if (!m || !deg)
		return NULL;
	/* log-normal lengths (sigma 2): a median near a seventh of the
	 * mean, so that every bucket has rows, and a long tail */
	double sum = 0;
	for (int64_t i = 0; i < nodes; i++) {
		double z = sqrt(-2 * log(rng_unit(&s))) *
			cos(6.283185307179586 * rng_unit(&s));
		sum += deg[i] = exp(2 * z);
	}
	m->nrows = m->ncols = nodes;
	m->indptr = malloc((nodes + 1) * sizeof(int64_t));
	m->indptr[0] = 0;
	for (int64_t i = 0; i < nodes; i++) {
		int64_t len = (int64_t)(deg[i] * edges / sum + 0.5);
		if (len > nodes)
			len = nodes;
		m->indptr[i + 1] = m->indptr[i] + len;
	}
	free(deg);
	int64_t cap = m->indptr[nodes];
	m->indices = malloc(cap * sizeof(int64_t));
	m->values = malloc(cap * sizeof(double));
	if (!m->indptr || !m->indices || !m->values)
		return NULL;
	int64_t nnz = 0;
	for (int64_t i = 0; i < nodes; i++) {
		int64_t len = m->indptr[i + 1] - m->indptr[i];
		int64_t start = nnz;
		/* len sorted uniforms in [0, 1) from len + 1 spacings */
		double total = 0;
		for (int64_t k = 0; k <= len; k++)
			total += -log(rng_unit(&s));
		double at = 0;
		for (int64_t k = 0; k < len; k++) {
			at += -log(rng_unit(&s));
			int64_t col = (int64_t)(at / total * nodes);
			if (col >= nodes)
				col = nodes - 1;
			if (nnz > start && m->indices[nnz - 1] >= col)
				continue;
			m->indices[nnz] = col;
			m->values[nnz++] = 1;
		}
		m->indptr[i] = start;
	}
	m->indptr[nodes] = nnz;
	m->nnz = nnz;
	return m;
}

/* An SR-BCRS format asked for by name: srbcrsTxG (no chunks) or
 * srbcrsTxGcC[-ORDER] (chunks of C groups, in a row order). */
typedef struct {
	int t, g, chunk;        /* chunk 0: stir_csr_to_sr_bcrs */
	stir_row_order order;
} sr_bcrs_name;

/* name, s: parse "name" into s.  true when it names an SR-BCRS format. */
static bool sr_bcrs_of(const char *name, sr_bcrs_name *s)
{
	static const char *const orders[] = { "", "-degree", "-locality",
		"-fewest" };
	int used = 0;
	*s = (sr_bcrs_name){ 0 };
	if (sscanf(name, "srbcrs%dx%d%n", &s->t, &s->g, &used) != 2 ||
	    s->t <= 0 || s->g <= 0)
		return false;
	if (!name[used])
		return true;
	int more = 0;
	if (sscanf(name + used, "c%d%n", &s->chunk, &more) != 1 ||
	    s->chunk <= 0)
		return false;
	for (int i = 0; i < 4; i++)
		if (!strcmp(name + used + more, orders[i])) {
			s->order = (stir_row_order)i;
			return true;
		}
	return false;
}

/* ctx, m, name: build format "name" of m with i32/f32, check it, print the
 * times and the padding.  0 or -1. */
static int bench(stir_ctx *ctx, const stir_csr *m, const char *name)
{
	static const int64_t all[] = { 1, 2, 4, 8, 16, 32 }, two[] = { 4, 32 };
	stir_bindings *b = stir_bindings_alloc();
	double t0 = now();
	stir_host_format *f = NULL;
	sr_bcrs_name sr;
	if (!strcmp(name, "hyb1") || !strcmp(name, "hyb2") ||
	    !strcmp(name, "hyb3"))
		f = stir_csr_to_hybrid(ctx, m, name[3] - '0', 6, all, STIR_I32,
			STIR_F32, "_hyb", b);
	else if (!strcmp(name, "hyb-4-32"))
		f = stir_csr_to_hybrid(ctx, m, 1, 2, two, STIR_I32, STIR_F32,
			"_hyb", b);
	else if (!strcmp(name, "pad4"))
		f = stir_csr_to_padding(ctx, m, 4, STIR_I32, STIR_F32, "_pad", b);
	else if (!strcmp(name, "bsr16"))
		f = stir_csr_to_bsr(ctx, m, 16, STIR_I32, STIR_F32, "_bsr", b);
	else if (!strcmp(name, "dbsr16"))
		f = stir_csr_to_dbsr(ctx, m, 16, STIR_I32, STIR_F32, "_dbsr", b);
	else if (sr_bcrs_of(name, &sr) && !sr.chunk)
		f = stir_csr_to_sr_bcrs(ctx, m, sr.t, sr.g, STIR_I32, STIR_F32,
			"_sr", b);
	else if (sr_bcrs_of(name, &sr))
		f = stir_csr_to_sr_bcrs_chunks(ctx, m, sr.t, sr.g, sr.chunk,
			sr.order, STIR_I32, STIR_F32, "_sr", b);
	else {
		fprintf(stderr, "unknown format %s\n", name);
		stir_bindings_free(b);
		return -1;
	}
	double t1 = now();
	if (!f || stir_host_format_verify(ctx, f, m, b) < 0) {
		stir_ctx_print_diagnostics(ctx, stderr);
		stir_host_format_free(f);
		stir_bindings_free(b);
		return -1;
	}
	double t2 = now();
	int64_t slots = 0;
	for (int i = 0; i < stir_host_format_n_parts(f); i++)
		slots += stir_host_format_get_part(f, i)->slots;
	printf("%-10s build %7.3f s  verify %7.3f s  parts %3d  slots %"
		PRId64 "  padding %.1f%%  slots/nnz %.2f\n", name, t1 - t0,
		t2 - t1, stir_host_format_n_parts(f), slots,
		slots ? 100.0 * (slots - m->nnz) / slots : 0.0,
		m->nnz ? (double)slots / m->nnz : 0.0);
	stir_host_format_free(f);
	stir_bindings_free(b);
	return 0;
}

/* argc, argv: see the comment at the top. */
int main(int argc, char **argv)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *m;
	int first;
	double t0 = now();
	if (argc >= 5 && !strcmp(argv[1], "--synthetic")) {
		m = synthetic(atoll(argv[2]), atoll(argv[3]), atoll(argv[4]));
		first = 5;
	} else if (argc >= 2) {
		m = stir_mtx_read_from_file(ctx, argv[1]);
		first = 2;
	} else {
		fprintf(stderr, "usage: %s FILE.mtx | --synthetic NODES EDGES "
			"SEED [FORMAT...]\n", argv[0]);
		return 2;
	}
	if (!m) {
		stir_ctx_print_diagnostics(ctx, stderr);
		return 1;
	}
	printf("matrix %" PRId64 " x %" PRId64 ", %" PRId64 " entries (%.1f s "
		"to make)\n", m->nrows, m->ncols, m->nnz, now() - t0);
	static const char *const dflt[] = { "hyb1", "hyb3" };
	int rc = 0;
	if (first >= argc)
		for (int i = 0; i < 2; i++)
			rc |= bench(ctx, m, dflt[i]) < 0;
	for (int i = first; i < argc; i++)
		rc |= bench(ctx, m, argv[i]) < 0;
	stir_csr_free(m);
	stir_ctx_free(ctx);
	return rc;
}
