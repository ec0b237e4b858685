/* Shared parts of the benchmark programs: graphs, timing, checks, output.
 *
 * Measuring follows shared/design/GPU.md: results are checked before
 * anything is timed; every timed run starts with the L2 cache flushed;
 * 10 warm-up runs, then the median of 100; CUDA events on the GPU. */
#ifndef STIR_BENCH_COMMON_H
#define STIR_BENCH_COMMON_H

#include <stdio.h>
#include <stdint.h>
#include <stir/stir.h>
#include "bench/cusparse.h"

#define BENCH_WARMUP 10
#define BENCH_REPS 100

/* A graph to run on: a Matrix Market file, or "synthetic:NAME" for the
 * seeded power-law graphs at the sizes of ogbn-arxiv, ogbn-proteins and
 * reddit.  NULL with a diagnostic. */
stir_csr *bench_load_graph(stir_ctx *ctx, const char *spec);
/* The short name of a graph spec ("cora" for ".../cora.mtx.gz"). */
const char *bench_graph_name(const char *spec, char *buf, size_t size);

/* Milliseconds since an arbitrary start (the host clock). */
double bench_now_ms(void);
/* The median of n values (reorders them). */
double bench_median(double *v, int n);

/* The time of one cuSPARSE operation: warm-ups, then "reps" runs each
 * after an L2 flush, timed with events on the default stream; the median
 * in *ms.  0 or -1. */
int bench_time_cusparse(stir_device *dev, bench_op *op, int reps, double *ms);
/* The same for a stir kernel already uploaded. */
int bench_time_stir(stir_gpu_run *run, int reps, double *ms);
/* Device-to-device copy bandwidth in bytes per second (bytes read plus
 * bytes written), the median of 20 copies of 1 GiB. */
double bench_copy_bandwidth(stir_device *dev);

/* The largest relative difference between two float arrays of n
 * elements: |a - b| / (1 + |b|). */
double bench_max_rel_diff(const float *a, const float *b, int64_t n);

/* A device buffer holding "n" floats or ints copied from the host. */
stir_gpu_buf *bench_upload(stir_device *dev, const void *data, size_t bytes);

/* The kernel "name" of the program at "path"; *mod receives its module (to
 * free, also on failure).  NULL with diagnostics.  Each program is read
 * once: every candidate after the first gets a copy (stir_kernel_copy) of
 * the kernel as read, kept until bench_forget_programs. */
stir_kernel *bench_read_kernel(stir_ctx *ctx, const char *path,
	const char *name, stir_module **mod);
/* Free the programs bench_read_kernel keeps (before their context). */
void bench_forget_programs(void);

/* The CSR matrix with 32-bit indices and f32 values on the host. */
typedef struct bench_csr32 {
	int64_t m, n, nnz;
	int32_t *indptr, *indices;
	float *values;
} bench_csr32;

int bench_csr32_init(stir_ctx *ctx, bench_csr32 *c, const stir_csr *csr);
void bench_csr32_release(bench_csr32 *c);

/* Print the context's diagnostics and exit with status 1. */
void bench_fail(stir_ctx *ctx, const char *what) __attribute__((noreturn));
/* rc, or bench_fail(ctx, what) when rc is negative. */
int bench_must(stir_ctx *ctx, int rc, const char *what);

/* The most rounds --rounds takes. */
#define BENCH_MAX_ROUNDS 64

/* The command line every benchmark takes:
 *   [--features 32,64,...] [--reps N] [--json FILE] [--program FILE.stir]
 *   [--compile-only ARCH] [--candidates I,J,...] [--rounds R]
 *   [--shift-kib K] [FLAG...] GRAPH...
 * (--rounds and --shift-kib where the program takes them)
 * where the flags are a program's own options without a value (exits with
 * status 2 and a usage line when it is wrong; --help prints it and exits
 * with status 0). */
typedef struct bench_options {
	int64_t feats[8];       /* feature sizes, n_feats of them */
	int n_feats;
	int reps;               /* timed runs (the median is reported) */
	const char *json;       /* where to write the results, or NULL */
	const char *program;    /* the .stir program */
	const char *arch;       /* --compile-only: compile for it, run nothing */
	unsigned flags;         /* bit i: the program's flag i was given */
	uint64_t candidates[2]; /* --candidates: bit i % 64 of word i / 64
	                           runs the search's candidate i (all bits set
	                           by default) */
	int rounds;             /* --rounds (1 to BENCH_MAX_ROUNDS): a
	                           search's candidates timed in this many
	                           rounds, one after another in each, the
	                           median of the rounds' medians reported
	                           (default 1) */
	int shift_kib;          /* --shift-kib: round q's arrays uploaded
	                           after a spacer of q * K KiB on the device,
	                           so that each round runs at other addresses
	                           (default 0: no spacer) */
	int n_graphs;
	char **graphs;          /* borrowed from argv */
} bench_options;

/* argc, argv, program, flags, o: parse the command line into o; "program"
 * is the default of --program, relative to the source tree: when it is
 * not found from the current folder, the source tree the benchmark was
 * built from is tried.  "flags" (NULL-terminated, at most 8, or NULL)
 * names the program's own flags ("--no-csr"); "rounds": whether it takes
 * --rounds and --shift-kib. */
void bench_parse_options(int argc, char **argv, const char *program,
	const char *const *flags, bool rounds, bench_options *o);

/* Whether --candidates (all by default) selects candidate i of a search. */
bool bench_candidate_selected(const bench_options *o, int i);

/* The spacer of round q (bench_options.shift_kib): a device buffer to
 * free when the round is done, or NULL (none, or round 0). */
stir_gpu_buf *bench_round_spacer(stir_device *dev, const bench_options *o,
	int q);

/* What a benchmark runs with: the GPU, cuSPARSE, the options to compile
 * stir's kernels for that GPU, the measured copy bandwidth. */
typedef struct bench_gpu {
	stir_device *dev;        /* owned */
	bench_cusparse *cs;      /* owned */
	stir_compile_options co; /* for dev */
	double copy_bw;          /* bytes per second (read + write) */
} bench_gpu;

/* What --compile-only does for one graph: compile (for o->arch) every
 * kernel the graph and o's feature sizes need. */
typedef void bench_compile_fn(stir_ctx *ctx, const bench_options *o,
	const char *graph);

/* With --compile-only: compile(ctx, o, graph) for every graph, a line
 * saying so, and exit with status 0.  Otherwise open the GPU and cuSPARSE
 * into *g (exit on failure), measure the copy bandwidth and print the
 * device line. */
void bench_start(stir_ctx *ctx, const bench_options *o,
	bench_compile_fn *compile, bench_gpu *g);
void bench_finish(bench_gpu *g);

/* The JSON file of the results: its header (the device) written, NULL
 * without a path (exit when it cannot be opened); bench_json_end writes
 * the end and closes it.  Each result is an object of the "results"
 * array, all but the last followed by a comma. */
FILE *bench_json_begin(stir_ctx *ctx, const char *path, const bench_gpu *g);
void bench_json_end(FILE *f);

/* The geometric mean of the finite ones among n speedups (a kernel not
 * run has none), their number in *used and the smallest in *worst. */
double bench_geomean(const double *speedup, int n, double *worst,
	int *used);
/* '"key": x, ' in JSON, null when x is not finite (a kernel not run). */
void bench_json_num(FILE *f, const char *key, double x);
/* '"search_ms": [..]' in JSON: the n times of a search, null for the
 * negative ones (a candidate not run). */
void bench_json_search(FILE *f, const double *ms, int n);
/* ', "search_rounds_ms": [[..], ..]' in JSON: the "rounds" times of each
 * of the n candidates of a search (ms[i * rounds + q]), null for one
 * that failed; nothing when rounds is 1. */
void bench_json_rounds(FILE *f, const double *ms, int n, int rounds);

/* n floats in [-1, 1) drawn from "seed" (the same for the same seed). */
void bench_random_floats(float *v, int64_t n, uint64_t seed);

/* Bind a 1-D array "name" of n elements of dtype copied from data (exit
 * on failure). */
void bench_bind_copy(stir_ctx *ctx, stir_bindings *b, const char *name,
	stir_dtype dtype, int64_t n, const void *data);

/* Run stir kernel gk on dev with the arrays of b: the output array "out"
 * (f32, n_out elements) poisoned with NaN, uploaded, one launch,
 * downloaded and compared with "want" (*err, bench_max_rel_diff), then
 * timed (*ms, bench_time_stir).  With BENCH_VERBOSE set in the
 * environment, the time of each launch of the last run goes to stderr.
 * 0 or -1 (diagnostics in the device's or the kernel's context). */
int bench_run_stir(stir_gpu_kernel *gk, stir_device *dev, stir_bindings *b,
	const char *out, const float *want, int64_t n_out, int reps, double *ms,
	double *err);

#endif
