/* bench_bsr: block-sparse SpMM C = A B (A block-sparse, B dense), stir's
 * kernel against cuSPARSE BSR, cuSPARSE Blocked-ELL (f16 and f32) and
 * cuBLAS's dense GEMM on the densified A, in one process on one GPU
 * (bench/README.md).
 *
 * Cases: pruned-transformer weights (768x768, 768x3072, 3072x768,
 * 4096x4096; blocks 16, 32, 64; block densities 5, 10, 20, 50 %; blocks
 * per block row uniform or power law), sparse attention masks (sequence
 * 4096 and 8192, 64x64 blocks, a band and global tokens, a 768-wide dense
 * operand: 12 heads x 64 features) and any Matrix Market file (--mtx FILE
 * --block B; bench/bsr_cases.c).  Everything is generated from a fixed
 * seed.  stir's kernel is a program and a schedule file (--program,
 * --schedule, in pairs): the block size and the types come from the
 * program, and it runs on the cases of its block size, its features
 * specialized to each width first (so a schedule file must not specialize
 * them).  Every kernel's result is checked against an fp64
 * host reference (on a spread of rows) before it is timed
 * (bench/common.c: warm-ups, L2 flushed, median).  With --recipe, the
 * blocks of 16 run examples/bsrmm.stir, those of 32 bench/bsrmm32.stir
 * and those of 64 bench/bsrmm64.stir, each with a tensor-core schedule that a rule picks
 * for each case from its shape (stir_bsr_tc_pick, the library's BSR
 * recipe).
 *
 * With --list, the cases are printed (sizes, blocks, a digest of the
 * structure) and nothing runs on the GPU. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench/bsr_cases.h"
#include "bench/common.h"
#include "ir/diag.h"

#define MAX_PROGRAMS 4
#define MAX_WIDTHS 8
#define CHECK_ROWS 96

/* A stir kernel: a program and its schedule file (or with --recipe the
 * library's candidate for the case, schedule NULL), its block size and
 * types read from the program. */
typedef struct stir_prog {
	const char *program, *schedule;
	const stir_bsr_tc_candidate *candidate;
	int64_t block;
	stir_dtype atype, btype;
} stir_prog;

/* The command line. */
typedef struct bsr_options {
	stir_prog progs[MAX_PROGRAMS];
	int n_programs, n_schedules;
	int64_t widths[MAX_WIDTHS];
	int n_widths;
	int reps;
	bool list;
	bool recipe;             /* --recipe: the library's pick for each case */
	bool weights, attention;
	const char *mtx;
	int64_t mtx_block;       /* --block: the --mtx file's blocks; without
	                            --mtx, only the cases of blocks of it */
	const char *shape;       /* only the weight shape "MxN", or NULL */
} bsr_options;

/* msg: print the usage line after "msg" on stderr and exit with status 2;
 * msg NULL (--help): the usage line alone, on stdout, and status 0. */
static void usage(const char *msg)
{
	FILE *f = msg ? stderr : stdout;
	if (msg)
		fprintf(f, "bench_bsr: %s\n", msg);
	fprintf(f, "usage: bench_bsr [--program P.stir "
		"--schedule S.yaml]... [--widths N,...] [--all-widths] "
		"[--cases weights,attention] [--shape MxN] [--block B] [--mtx FILE "
		"--block B] "
		"[--reps N] [--list] [--recipe]\n  (bench/README.md, "
		"\"bench_bsr\")\n");
	exit(msg ? 2 : 0);
}

/* s, what: the positive integer s, or usage() naming option "what". */
static int64_t parse_positive(const char *s, const char *what)
{
	char *end;
	long long v = s ? strtoll(s, &end, 10) : 0;
	if (!s || *s == '\0' || *end != '\0' || v <= 0 || v > (1ll << 30)) {
		char msg[160];
		snprintf(msg, sizeof(msg), "%s needs a positive integer (got "
			"'%s')", what, s ? s : "");
		usage(msg);
	}
	return v;
}

/* path: path if it exists, else the same relative to the source tree
 * (the default programs), in a static buffer. */
static const char *source_path(const char *path)
{
	static char buf[8][1024];
	static int next;
	if (access(path, R_OK) == 0 || path[0] == '/')
		return path;
	char *b = buf[next++ % 8];
	snprintf(b, 1024, "%s/%s", BENCH_SRCDIR, path);
	return access(b, R_OK) == 0 ? b : path;
}

/* c, w: the recipe's candidate for case c at width w
 * (stir_bsr_tc_pick: from the matrix's shape alone), or NULL. */
static const stir_bsr_tc_candidate *recipe_pick(const bsr_case *c, int64_t w)
{
	return stir_bsr_tc_get_candidate(stir_bsr_tc_pick(c->b, c->mb, c->ptr,
		w));
}

/* p: candidate p as a label, in a buffer of 8 that calls take in turn. */
static const char *candidate_label(const stir_bsr_tc_candidate *p)
{
	static char buf[8][96];
	static int next;
	if (!p)
		return "none";
	char *b = buf[next++ % 8];
	char rows[32] = "";
	if (p->warp_rows != 16)
		snprintf(rows, sizeof(rows), " x %" PRId64 " rows", p->warp_rows);
	snprintf(b, 96, "blocks %" PRId64 ", %" PRId64 " warps%s x %" PRId64
		" features, %" PRId64 " stages, batch %" PRId64, p->block,
		p->warps, rows, p->warp_feat, p->stages, p->batch);
	return b;
}

/* argc, argv, o: parse the command line into o (usage() when wrong). */
static void parse_options(int argc, char **argv, bsr_options *o)
{
	static const int64_t def_widths[] = { 128, 512 };
	memset(o, 0, sizeof(*o));
	o->reps = BENCH_REPS;
	o->weights = o->attention = true;
	bool cases = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help"))
			usage(NULL);
		if (!strcmp(a, "--list")) {
			o->list = true;
			continue;
		}
		if (!strcmp(a, "--recipe")) {
			o->recipe = true;
			continue;
		}
		if (!strcmp(a, "--all-widths")) {
			static const int64_t all[] = { 128, 256, 512, 1024, 2048, 4096 };
			memcpy(o->widths, all, sizeof(all));
			o->n_widths = 6;
			continue;
		}
		if (!v) {
			char msg[160];
			snprintf(msg, sizeof(msg), "unknown option or missing "
				"value: '%s'", a);
			usage(msg);
		}
		i++;
		if (!strcmp(a, "--program") || !strcmp(a, "--schedule")) {
			bool p = a[2] == 'p';
			int *n = p ? &o->n_programs : &o->n_schedules;
			if (*n == MAX_PROGRAMS)
				usage("at most 4 programs");
			if (p)
				o->progs[(*n)++].program = v;
			else
				o->progs[(*n)++].schedule = v;
		} else if (!strcmp(a, "--widths")) {
			char buf[256], *save = NULL;
			snprintf(buf, sizeof(buf), "%s", v);
			o->n_widths = 0;
			for (char *t = strtok_r(buf, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				if (o->n_widths == MAX_WIDTHS)
					usage("at most 8 widths");
				o->widths[o->n_widths++] = parse_positive(t, "--widths");
			}
			if (o->n_widths == 0)
				usage("--widths needs a width");
		} else if (!strcmp(a, "--cases")) {
			if (!cases)
				o->weights = o->attention = false;
			cases = true;
			char buf[256], *save = NULL;
			snprintf(buf, sizeof(buf), "%s", v);
			for (char *t = strtok_r(buf, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				if (!strcmp(t, "weights"))
					o->weights = true;
				else if (!strcmp(t, "attention"))
					o->attention = true;
				else if (strcmp(t, "none"))
					usage("--cases takes weights, attention or none");
			}
		} else if (!strcmp(a, "--shape")) {
			o->shape = v;
		} else if (!strcmp(a, "--mtx")) {
			o->mtx = v;
		} else if (!strcmp(a, "--block")) {
			o->mtx_block = parse_positive(v, "--block");
		} else if (!strcmp(a, "--reps")) {
			o->reps = (int)parse_positive(v, "--reps");
		} else {
			char msg[160];
			snprintf(msg, sizeof(msg), "unknown option '%s'", a);
			usage(msg);
		}
	}
	if (o->n_programs != o->n_schedules)
		usage("--program and --schedule come in pairs");
	if (o->mtx && !o->mtx_block)
		usage("--mtx and --block go together");
	/* a file alone, unless --cases asks for generated ones too */
	if (o->mtx && !cases)
		o->weights = o->attention = false;
	if (o->n_widths == 0) {
		memcpy(o->widths, def_widths, sizeof(def_widths));
		o->n_widths = 2;
	}
	if (o->recipe) {
		if (o->n_programs)
			usage("--recipe picks the schedules: no --program");
		for (int i = 0; i < o->n_widths; i++)
			if (o->widths[i] % 32)
				usage("--recipe: the widths must be multiples of 32");
		o->progs[0].program = source_path("examples/bsrmm.stir");
		o->progs[1].program = source_path("bench/bsrmm32.stir");
		o->progs[2].program = source_path("bench/bsrmm64.stir");
		o->n_programs = o->n_schedules = 3;
	}
	if (o->n_programs == 0) {
		static const char *const defp[] = { "examples/bsrmm.stir",
			"bench/bsrmm32.stir", "bench/bsrmm64.stir" };
		for (int i = 0; i < 3; i++) {
			o->progs[i].program = source_path(defp[i]);
			o->progs[i].schedule = source_path("examples/bsrmm_cuda.yaml");
		}
		o->n_programs = o->n_schedules = 3;
	}
}

/* ctx, p: read p's program (kernel "bsrmm") and schedule; its block size
 * from the length of C (f32[I, BI, F]) at one block row and one feature,
 * and the types of A and B.
 * 0 or -1 with a diagnostic. */
static int inspect_program(stir_ctx *ctx, stir_prog *p)
{
	stir_module *m = NULL;
	stir_kernel *k = bench_read_kernel(ctx, p->program, "bsrmm", &m);
	stir_schedule *s = k && p->schedule ?
		stir_schedule_read_from_file(ctx, p->schedule) : NULL;
	int rc = -1;
	if (k && (!p->schedule || (s && stir_schedule_find_kernel(s, m)))) {
		stir_bindings *b = stir_bindings_alloc();
		stir_bindings_set_size(b, "mb", 1);
		stir_bindings_set_size(b, "nb", 1);
		stir_bindings_set_size(b, "nnzb", 1);
		stir_bindings_set_size(b, "feat", 1);
		stir_buffer *A = stir_kernel_find_buffer(k, "A");
		stir_buffer *B = stir_kernel_find_buffer(k, "B");
		const stir_array *c = NULL;
		if (A && B && stir_kernel_bind_outputs(k, b) == 0)
			c = stir_bindings_get_array(b, "C");
		/* C: mb x b x feat = b elements (flat or not) */
		if (!A || !B || !c || stir_array_get_dtype(c) != STIR_F32) {
			stir_error(ctx, stir_loc_none(), "%s: kernel bsrmm needs "
				"tensors A[I, J, BI, BJ], B[Jd, BJ, F] and "
				"C: f32[I, BI, F] (examples/bsrmm.stir)", p->program);
		} else {
			p->block = stir_array_get_len(c);
			p->atype = stir_buffer_get_dtype(A);
			p->btype = stir_buffer_get_dtype(B);
			if ((p->atype != STIR_F16 && p->atype != STIR_F32) ||
			    p->btype != p->atype)
				stir_error(ctx, stir_loc_none(), "%s: A and B "
					"must both be f16 or both f32",
					p->program);
			else
				rc = 0;
		}
		stir_bindings_free(b);
	}
	stir_schedule_free(s);
	stir_module_free(m);
	return rc;
}

/* The results of one case at one width. */
typedef struct result {
	double stir_ms, bsr_ms, ell16_ms, ell32_ms, gemm_ms;
	double stir_err, bsr_err, ell16_err, ell32_err, gemm_err;
	double flops;            /* useful: 2 x stored blocks x b^2 x N */
	bool bsr_f16;            /* cuSPARSE BSR took f16 (else f32) */
	const char *schedule;    /* --recipe: the schedule run, else NULL */
} result;

/* c, B, w, rows, nrows, ref: the fp64 reference C = A B on rows "rows"
 * (nrows of them), into ref (nrows x w); B is n x w f16. */
static void reference(const bsr_case *c, const uint16_t *B, int64_t w,
	const int64_t *rows, int nrows, double *ref)
{
	int64_t b = c->b;
	double *bd = malloc((size_t)w * sizeof(*bd));
	for (int q = 0; q < nrows; q++) {
		int64_t r = rows[q], ib = r / b, bi = r % b;
		double *o = ref + (int64_t)q * w;
		memset(o, 0, (size_t)w * sizeof(*o));
		for (int32_t k = c->ptr[ib]; k < c->ptr[ib + 1]; k++)
			for (int64_t bj = 0; bj < b; bj++) {
				double a = stir_f16_to_double(
					c->vals[((int64_t)k * b + bi) * b + bj]);
				if (a == 0)
					continue;
				const uint16_t *br = B + (c->cols[k] * b + bj) * w;
				for (int64_t f = 0; f < w; f++)
					bd[f] = stir_f16_to_double(br[f]);
				for (int64_t f = 0; f < w; f++)
					o[f] += a * bd[f];
			}
	}
	free(bd);
}

/* got, w, rows, nrows, ref: the largest |got - ref| / (1 + |ref|) over
 * the reference rows (got: the whole m x w result); NaN stays NaN. */
static double check_rows(const float *got, int64_t w, const int64_t *rows,
	int nrows, const double *ref)
{
	double worst = 0;
	for (int q = 0; q < nrows; q++)
		for (int64_t f = 0; f < w; f++) {
			double g = got[rows[q] * w + f], x = ref[(int64_t)q * w + f];
			double d = fabs(g - x) / (1 + fabs(x));
			if (!(d <= worst))
				worst = d;
		}
	return worst;
}

/* ctx, g, op, cbuf, m, w, rows, nrows, ref, reps, *ms, *err: run op once,
 * check C (cbuf, m x w f32) on the reference rows into *err, then time it
 * into *ms.  On failure the diagnostics are printed and both are NaN. */
static void time_op(stir_ctx *ctx, bench_gpu *g, bench_op *op,
	stir_gpu_buf *cbuf, int64_t m, int64_t w, const int64_t *rows,
	int nrows, const double *ref, int reps, double *ms, double *err)
{
	*ms = *err = NAN;
	float *got = malloc((size_t)(m * w) * sizeof(*got));
	if (!op || !got || stir_gpu_buf_memset(cbuf, 0, (size_t)(m * w) * 4, 0xff) < 0 ||
	    bench_op_run(op) < 0 ||
	    stir_gpu_buf_copy_to_host(cbuf, 0, got, (size_t)(m * w) * 4) < 0) {
		stir_ctx_print_diagnostics(ctx, stderr);
		free(got);
		return;
	}
	*err = check_rows(got, w, rows, nrows, ref);
	free(got);
	if (bench_time_cusparse(g->dev, op, reps, ms) < 0) {
		stir_ctx_print_diagnostics(ctx, stderr);
		*ms = NAN;
	}
}

/* ctx, g, p, c, B, w, rows, nrows, ref, reps, r: stir's kernel of p on
 * case c at width w, checked and timed into r. */
static void time_stir(stir_ctx *ctx, bench_gpu *g, const stir_prog *p,
	const bsr_case *c, const uint16_t *B, int64_t w, const int64_t *rows,
	int nrows, const double *ref, int reps, result *r)
{
	stir_module *m = NULL;
	stir_kernel *k = bench_read_kernel(ctx, p->program, "bsrmm", &m);
	stir_schedule *s = k && !p->candidate ?
		stir_schedule_read_from_file(ctx, p->schedule) : NULL;
	stir_gpu_kernel *gk = NULL;
	stir_bindings *b = stir_bindings_alloc();
	stir_gpu_run *run = NULL;
	int64_t bb = c->b * c->b, nv = c->nnzb * bb;
	bool f16 = p->atype == STIR_F16;
	r->stir_ms = r->stir_err = NAN;
	/* the width a literal of the kernel, as the fast schedules want it
	 * (their splits of the features then need no guards) */
	if (p->candidate ? stir_recipe_bsr_tc_candidate(k, p->candidate, w) < 0 :
	    !s || stir_specialize(k, "feat", w) < 0)
		goto out;
	stir_bindings_set_size(b, "mb", c->mb);
	stir_bindings_set_size(b, "nb", c->nb);
	stir_bindings_set_size(b, "nnzb", c->nnzb);
	bench_bind_copy(ctx, b, "J.indptr", STIR_I32, c->mb + 1, c->ptr);
	bench_bind_copy(ctx, b, "J.indices", STIR_I32, c->nnzb, c->cols);
	if (f16) {
		bench_bind_copy(ctx, b, "A", STIR_F16, nv, c->vals);
		bench_bind_copy(ctx, b, "B", STIR_F16, c->n * w, B);
	} else {
		float *a32 = malloc((size_t)(nv > c->n * w ? nv : c->n * w) * 4);
		if (!a32)
			goto out;
		for (int64_t v = 0; v < nv; v++)
			a32[v] = (float)stir_f16_to_double(c->vals[v]);
		bench_bind_copy(ctx, b, "A", STIR_F32, nv, a32);
		for (int64_t v = 0; v < c->n * w; v++)
			a32[v] = (float)stir_f16_to_double(B[v]);
		bench_bind_copy(ctx, b, "B", STIR_F32, c->n * w, a32);
		free(a32);
	}
	if (stir_kernel_bind_outputs(k, b) < 0 ||
	    (s && stir_schedule_prepare_for_gpu(s, k) < 0) ||
	    !(gk = stir_gpu_kernel_compile(k, &g->co)))
		goto out;
	stir_array *o = stir_bindings_get_array(b, "C");
	stir_array_fill(o, NAN);
	run = stir_gpu_run_alloc(gk, g->dev);
	if (!run || stir_gpu_run_upload(run, b) < 0 ||
	    stir_gpu_run_launch(run, 0) < 0 || stir_gpu_run_download(run, b) < 0)
		goto out;
	r->stir_err = check_rows(stir_array_get_const_data(o), w, rows, nrows,
		ref);
	if (bench_time_stir(run, reps, &r->stir_ms) < 0)
		r->stir_ms = NAN;
out:
	if (isnan(r->stir_ms))
		stir_ctx_print_diagnostics(ctx, stderr);
	stir_gpu_run_free(run);
	stir_gpu_kernel_free(gk);
	stir_bindings_free(b);
	stir_schedule_free(s);
	stir_module_free(m);
}

/* x: a float as f16 bits. */
static uint16_t to_f16(float x)
{
	return stir_f16_from_double(x);
}

/* ctx, g, o, c, w, r: every kernel on case c at width w into r. */
static void run_case(stir_ctx *ctx, bench_gpu *g, const bsr_options *o,
	const bsr_case *c, int64_t w, result *r)
{
	int64_t bb = c->b * c->b, nv = c->nnzb * bb;
	int64_t mbmax = 0;
	for (int64_t i = 0; i < c->mb; i++)
		if (c->ptr[i + 1] - c->ptr[i] > mbmax)
			mbmax = c->ptr[i + 1] - c->ptr[i];
	r->flops = 2.0 * (double)nv * (double)w;
	/* no stir kernel of this block size: no time, left out of the means */
	r->stir_ms = r->stir_err = NAN;
	uint16_t *B = malloc((size_t)(c->n * w) * sizeof(*B));
	float *tmp = malloc((size_t)(c->n * w) * sizeof(*tmp));
	int64_t rows[CHECK_ROWS + 1];
	int nrows = 0;
	for (int q = 0; q < CHECK_ROWS && q < c->m; q++)
		rows[nrows++] = (int64_t)q * c->m / CHECK_ROWS;
	rows[nrows++] = c->m - 1;
	double *ref = malloc((size_t)(nrows * w) * sizeof(*ref));
	if (!B || !tmp || !ref)
		bench_fail(ctx, "allocating the operands");
	bench_random_floats(tmp, c->n * w, 12345u + (uint64_t)w);
	for (int64_t v = 0; v < c->n * w; v++)
		B[v] = to_f16(tmp[v]);
	reference(c, B, w, rows, nrows, ref);
	r->schedule = NULL;
	for (int i = 0; i < o->n_programs; i++) {
		stir_prog p = o->progs[i];
		if (p.block != c->b)
			continue;
		if (o->recipe) {
			p.candidate = recipe_pick(c, w);
			r->schedule = candidate_label(p.candidate);
			if (!p.candidate)
				continue;
		}
		time_stir(ctx, g, &p, c, B, w, rows, nrows, ref, o->reps, r);
	}
	/* the baselines' operands on the device: A as BSR (f16, f32), as
	 * Blocked-ELL (f16, f32; mbmax blocks a row, -1 for none) and dense
	 * (f16); B f16 and f32; C f32 */
	int64_t ne = c->mb * mbmax;
	int32_t *ecol = malloc((size_t)(ne ? ne : 1) * sizeof(*ecol));
	size_t nev = (size_t)(c->m * mbmax * c->b);
	uint16_t *ev16 = calloc(nev ? nev : 1, sizeof(*ev16));
	float *ev32 = calloc(nev ? nev : 1, sizeof(*ev32));
	float *v32 = malloc((size_t)(nv ? nv : 1) * sizeof(*v32));
	uint16_t *dense = calloc((size_t)(c->m * c->n), sizeof(*dense));
	if (!ecol || !ev16 || !ev32 || !v32 || !dense)
		bench_fail(ctx, "allocating the baselines' matrices");
	for (int64_t v = 0; v < nv; v++)
		v32[v] = (float)stir_f16_to_double(c->vals[v]);
	for (int64_t ib = 0; ib < c->mb; ib++)
		for (int64_t e = 0; e < mbmax; e++) {
			int64_t k = c->ptr[ib] + e;
			bool has = k < c->ptr[ib + 1];
			ecol[ib * mbmax + e] = has ? c->cols[k] : -1;
			for (int64_t bi = 0; has && bi < c->b; bi++)
				for (int64_t bj = 0; bj < c->b; bj++) {
					uint16_t x = c->vals[(k * c->b + bi) * c->b + bj];
					size_t at = (size_t)((ib * c->b + bi) *
						mbmax * c->b + e * c->b + bj);
					ev16[at] = x;
					ev32[at] = v32[(k * c->b + bi) * c->b + bj];
					dense[(ib * c->b + bi) * c->n +
						c->cols[k] * c->b + bj] = x;
				}
		}
	for (int64_t v = 0; v < c->n * w; v++)
		tmp[v] = (float)stir_f16_to_double(B[v]);
	stir_gpu_buf *dptr = bench_upload(g->dev, c->ptr, (size_t)(c->mb + 1) * 4);
	stir_gpu_buf *dcol = bench_upload(g->dev, c->cols, (size_t)(c->nnzb + 1) * 4);
	stir_gpu_buf *dv16 = bench_upload(g->dev, c->vals, (size_t)(nv + 1) * 2);
	stir_gpu_buf *dv32 = bench_upload(g->dev, v32, (size_t)(nv + 1) * 4);
	stir_gpu_buf *decol = bench_upload(g->dev, ecol, (size_t)(ne + 1) * 4);
	stir_gpu_buf *dev16 = bench_upload(g->dev, ev16, (nev + 1) * 2);
	stir_gpu_buf *dev32 = bench_upload(g->dev, ev32, (nev + 1) * 4);
	stir_gpu_buf *dden = bench_upload(g->dev, dense, (size_t)(c->m * c->n) * 2);
	stir_gpu_buf *db16 = bench_upload(g->dev, B, (size_t)(c->n * w) * 2);
	stir_gpu_buf *db32 = bench_upload(g->dev, tmp, (size_t)(c->n * w) * 4);
	stir_gpu_buf *dc = stir_gpu_buf_alloc(g->dev, (size_t)(c->m * w) * 4);
	if (!dptr || !dcol || !dv16 || !dv32 || !decol || !dev16 || !dev32 ||
	    !dden || !db16 || !db32 || !dc)
		bench_fail(ctx, "uploading the baselines' matrices");
#define P(x) stir_gpu_buf_get_ptr(x)
	/* BSR: f16 where cuSPARSE takes it, else f32 */
	bench_op *op = bench_blocked_create(g->cs, false, c->m, c->n, c->b,
		c->nnzb, P(dptr), P(dcol), P(dv16), true, w, P(db16), P(dc));
	r->bsr_f16 = op != NULL;
	if (!op) {
		stir_ctx_print_diagnostics(ctx, stderr);
		op = bench_blocked_create(g->cs, false, c->m, c->n, c->b,
			c->nnzb, P(dptr), P(dcol), P(dv32), false, w, P(db32), P(dc));
	}
	time_op(ctx, g, op, dc, c->m, w, rows, nrows, ref, o->reps, &r->bsr_ms,
		&r->bsr_err);
	bench_op_free(op);
	op = bench_blocked_create(g->cs, true, c->m, c->n, c->b, mbmax, 0,
		P(decol), P(dev16), true, w, P(db16), P(dc));
	time_op(ctx, g, op, dc, c->m, w, rows, nrows, ref, o->reps,
		&r->ell16_ms, &r->ell16_err);
	bench_op_free(op);
	op = bench_blocked_create(g->cs, true, c->m, c->n, c->b, mbmax, 0,
		P(decol), P(dev32), false, w, P(db32), P(dc));
	time_op(ctx, g, op, dc, c->m, w, rows, nrows, ref, o->reps,
		&r->ell32_ms, &r->ell32_err);
	bench_op_free(op);
	op = bench_gemm_create(g->cs, c->m, w, c->n, P(dden), P(db16), P(dc));
	time_op(ctx, g, op, dc, c->m, w, rows, nrows, ref, o->reps,
		&r->gemm_ms, &r->gemm_err);
	bench_op_free(op);
#undef P
	stir_gpu_buf *bufs[] = { dptr, dcol, dv16, dv32, decol, dev16, dev32,
		dden, db16, db32, dc };
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		stir_gpu_buf_free(bufs[i]);
	free(ecol);
	free(ev16);
	free(ev32);
	free(v32);
	free(dense);
	free(B);
	free(tmp);
	free(ref);
}

/* o, cs, n: fill cs (room for 512) with the cases of o; their number in
 * *n.  Exit 1 with the diagnostics when one cannot be made. */
static void make_cases(stir_ctx *ctx, const bsr_options *o, bsr_case *cs,
	int *n)
{
	static const int64_t shapes[][2] = { { 768, 768 }, { 768, 3072 },
		{ 3072, 768 }, { 4096, 4096 } };
	static const int64_t blocks[] = { 16, 32, 64 };
	static const double dens[] = { 0.05, 0.10, 0.20, 0.50 };
	*n = 0;
	for (size_t s = 0; o->weights && s < 4; s++) {
		char sh[64];
		snprintf(sh, sizeof(sh), "%" PRId64 "x%" PRId64, shapes[s][0],
			shapes[s][1]);
		if (o->shape && strcmp(o->shape, sh))
			continue;
		for (size_t bi = 0; bi < 3; bi++)
			for (size_t d = 0; d < 4 && (!o->mtx_block ||
			     o->mtx_block == blocks[bi]); d++)
				for (int u = 1; u >= 0; u--) {
					bsr_case *c = &cs[(*n)++];
					memset(c, 0, sizeof(*c));
					c->m = shapes[s][0];
					c->n = shapes[s][1];
					c->b = blocks[bi];
					c->mb = c->m / c->b;
					c->nb = c->n / c->b;
					c->uniform = u;
					snprintf(c->name, sizeof(c->name),
						"w%s_b%" PRId64 "_d%02d_%s", sh,
						c->b, (int)(dens[d] * 100 + 0.5),
						u ? "uni" : "pow");
					uint64_t seed = 1000 * s + 100 * bi + 10 * d + (uint64_t)u;
					if (gen_weights(c, dens[d], u, seed) < 0)
						bench_fail(ctx, "generating the weights");
				}
	}
	if (o->shape && *n == 0 && o->weights) {
		stir_error(ctx, stir_loc_none(), "--shape %s: not one of 768x768, "
			"768x3072, 3072x768, 4096x4096", o->shape);
		bench_fail(ctx, "choosing the cases");
	}
	static const int64_t seqs[] = { 4096, 8192 };
	for (size_t s = 0; o->attention && (!o->mtx_block ||
	     o->mtx_block == 64) && s < 2; s++) {
		bsr_case *c = &cs[(*n)++];
		memset(c, 0, sizeof(*c));
		c->m = c->n = seqs[s];
		c->b = 64;
		c->mb = c->nb = seqs[s] / 64;
		c->width = 768;
		/* a band of 3 blocks each side (a 448-token window) and 2
		 * blocks (128 tokens) of global tokens */
		snprintf(c->name, sizeof(c->name), "attn%" PRId64 "_band3_glob2",
			seqs[s]);
		if (gen_attention(c, 3, 2, 77 + s) < 0)
			bench_fail(ctx, "generating the masks");
	}
	if (o->mtx) {
		bsr_case *c = &cs[(*n)++];
		memset(c, 0, sizeof(*c));
		char nm[100];
		snprintf(c->name, sizeof(c->name), "%s_b%" PRId64,
			bench_graph_name(o->mtx, nm, sizeof(nm)), o->mtx_block);
		if (load_mtx(ctx, c, o->mtx, o->mtx_block) < 0)
			bench_fail(ctx, "reading the matrix");
	}
}

/* x: x, or NaN printed as "-" by the %s of fmt_ms. */
static const char *fmt_num(char *buf, size_t size, const char *f, double x)
{
	if (isnan(x) || isinf(x))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, f, x);
	return buf;
}

int main(int argc, char **argv)
{
	bsr_options o;
	parse_options(argc, argv, &o);
	stir_ctx *ctx = stir_ctx_alloc();
	for (int i = 0; i < o.n_programs; i++)
		if (inspect_program(ctx, &o.progs[i]) < 0)
			bench_fail(ctx, "reading the stir program");
	if (o.mtx) {
		bool found = false;
		for (int i = 0; i < o.n_programs; i++)
			found |= o.progs[i].block == o.mtx_block;
		if (!found) {
			stir_error(ctx, stir_loc_none(), "--block %" PRId64
				": the program %s has blocks of %" PRId64 " x %"
				PRId64 ", no program given has that block size",
				o.mtx_block, o.progs[0].program, o.progs[0].block,
				o.progs[0].block);
			bench_fail(ctx, "choosing the program");
		}
	}
	bsr_case *cs = calloc(512, sizeof(*cs));
	int n = 0;
	if (!cs)
		bench_fail(ctx, "allocating the cases");
	make_cases(ctx, &o, cs, &n);
	for (int i = 0; i < o.n_programs; i++)
		printf("# stir: %s + %s: blocks %" PRId64 ", A and B %s\n",
			o.progs[i].program, o.recipe ? "--recipe (the library's "
			"candidate of each case after its errors)" :
			o.progs[i].schedule,
			o.progs[i].block, stir_dtype_get_name(o.progs[i].atype));
	if (o.list) {
		for (int i = 0; i < n; i++) {
			bsr_case *c = &cs[i];
			printf("%s m %" PRId64 " n %" PRId64 " b %" PRId64
				" blocks %" PRId64 " of %" PRId64 " digest %016"
				PRIx64, c->name, c->m, c->n, c->b, c->nnzb,
				c->mb * c->nb, case_digest(c));
			for (int wi = 0; o.recipe &&
			     wi < (c->width ? 1 : o.n_widths); wi++) {
				int64_t w = c->width ? c->width : o.widths[wi];
				printf(" %" PRId64 ": %s", w,
					candidate_label(recipe_pick(c, w)));
			}
			printf("\n");
		}
		for (int i = 0; i < n; i++)
			case_release(&cs[i]);
		free(cs);
		bench_forget_programs();
		stir_ctx_free(ctx);
		return 0;
	}
	bench_gpu g;
	bench_options bo = { .n_graphs = 0 };
	bench_start(ctx, &bo, NULL, &g);
	printf("# times in ms (median of %d, L2 flushed); TFLOP/s useful "
		"(2 x stored blocks x b^2 x N); ratios: baseline time / stir "
		"time; err: max |x - ref| / (1 + |ref|) vs fp64 on %d rows\n",
		o.reps, CHECK_ROWS + 1);
	printf("%-28s %5s %8s %8s %8s %8s %8s %7s %7s %6s %6s %6s %6s %9s %9s\n",
		"case", "N", "stir", "bsr", "ell16", "ell32", "cublas",
		"stirTF", "cublTF", "xell16", "xbsr", "xcubl", "dense%",
		"stir_err", "ell16_err");
	double lg_all[3] = { 0 }, lg_uni[3] = { 0 };
	int n_all[3] = { 0 }, n_uni[3] = { 0 }, dense_ok = 0, dense_n = 0;
	double lg_dense = 0, dense_best = 0;  /* of the dense% column */
	for (int i = 0; i < n; i++) {
		bsr_case *c = &cs[i];
		int nw = c->width ? 1 : o.n_widths;
		for (int wi = 0; wi < nw; wi++) {
			int64_t w = c->width ? c->width : o.widths[wi];
			result r;
			run_case(ctx, &g, &o, c, w, &r);
			double ratio[3] = { r.ell16_ms / r.stir_ms,
				r.bsr_ms / r.stir_ms, r.gemm_ms / r.stir_ms };
			double d = (double)c->nnzb / (double)(c->mb * c->nb);
			/* stir's useful TFLOP/s over cuBLAS's dense ones */
			double of_dense = (r.flops / r.stir_ms) / (2.0 *
				(double)(c->m * c->n * w) / r.gemm_ms);
			char b[15][32];
			printf("%-28s %5" PRId64 " %8s %8s %8s %8s %8s %7s %7s "
				"%6s %6s %6s %6s %9s %9s\n", c->name, w,
				fmt_num(b[0], 32, "%.4f", r.stir_ms),
				fmt_num(b[1], 32, "%.4f", r.bsr_ms),
				fmt_num(b[2], 32, "%.4f", r.ell16_ms),
				fmt_num(b[3], 32, "%.4f", r.ell32_ms),
				fmt_num(b[4], 32, "%.4f", r.gemm_ms),
				fmt_num(b[5], 32, "%.2f", r.flops / r.stir_ms * 1e-9),
				fmt_num(b[6], 32, "%.2f", 2.0 * (double)(c->m *
					c->n * w) / r.gemm_ms * 1e-9),
				fmt_num(b[7], 32, "%.2f", ratio[0]),
				fmt_num(b[8], 32, "%.2f", ratio[1]),
				fmt_num(b[9], 32, "%.2f", ratio[2]),
				fmt_num(b[10], 32, "%.1f", 100 * of_dense),
				fmt_num(b[11], 32, "%.1e", r.stir_err),
				fmt_num(b[12], 32, "%.1e", r.ell16_err));
			printf("%-28s       bsr (%s) err %s ell32_err %s "
				"cublas_err %s%s%s\n", "", r.bsr_f16 ? "f16" : "f32",
				fmt_num(b[13], 32, "%.1e", r.bsr_err),
				fmt_num(b[14], 32, "%.1e", r.ell32_err),
				fmt_num(b[0], 32, "%.1e", r.gemm_err),
				r.schedule ? " schedule " : "",
				r.schedule ? r.schedule : "");
			for (int k = 0; k < 3; k++)
				if (isfinite(ratio[k]) && ratio[k] > 0) {
					lg_all[k] += log(ratio[k]);
					n_all[k]++;
					if (c->uniform) {
						lg_uni[k] += log(ratio[k]);
						n_uni[k]++;
					}
				}
			if (isfinite(r.stir_ms) && isfinite(r.gemm_ms)) {
				dense_n++;
				dense_ok += r.stir_ms <= d * r.gemm_ms / 0.7;
				lg_dense += log(of_dense);
				dense_best = fmax(dense_best, of_dense);
			}
			fflush(stdout);
		}
	}
	static const char *const names[] = { "Blocked-ELL f16", "BSR",
		"cuBLAS dense" };
	for (int k = 0; k < 3; k++)
		printf("# geomean of stir's speedup over %s: %.3f over %d "
			"cases, %.3f over %d uniform\n", names[k],
			n_all[k] ? exp(lg_all[k] / n_all[k]) : NAN, n_all[k],
			n_uni[k] ? exp(lg_uni[k] / n_uni[k]) : NAN, n_uni[k]);
	printf("# time <= d x dense / 0.7: %d of %d cases\n", dense_ok, dense_n);
	printf("# stir's useful TFLOP/s over cuBLAS's dense f16 (dense%%; the "
		"target is 70%%): geomean %.1f%%, best %.1f%% over %d cases\n",
		dense_n ? 100 * exp(lg_dense / dense_n) : NAN, 100 * dense_best,
		dense_n);
	for (int i = 0; i < n; i++)
		case_release(&cs[i]);
	free(cs);
	bench_finish(&g);
	bench_forget_programs();
	stir_ctx_free(ctx);
	return 0;
}
