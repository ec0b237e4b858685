/* What the files of stirc's commands share (tools/stirc.c the dispatcher,
 * the usage texts and the option parsing; stirc_print.c check, print and
 * cuda; stirc_run.c run; stirc_verify.c verify; stirc_tune.c tune;
 * stirc_recipe.c recipe).
 * tools/stirc.h is the harness's interface, stirc_main alone. */
#ifndef STIR_TOOLS_STIRC_CMD_H
#define STIR_TOOLS_STIRC_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <stir/stir.h>

#define EXIT_WRONG 1
#define EXIT_USAGE 2
#define MAX_BINDINGS 64

/* A NAME=VALUE argument of --size, --mtx, --hetero, --in or --out. */
typedef struct name_value {
	const char *name;  /* points into argv (the '=' replaced by NUL) */
	const char *value;
} name_value;

/* Everything the options of any command can say. */
typedef struct options {
	const char *file;        /* the program */
	const char *kernel;      /* --kernel, or NULL */
	int stage;               /* --stage (1, 2 or 3); 0: the file's own */
	const char *schedule;    /* --schedule */
	const char *after;       /* --after: the pass to print after */
	const char *backend;     /* --backend: "interp" or "cuda" */
	const char *arch;        /* --arch */
	int min_blocks;          /* --min-blocks: 0, or 1 to 32 */
	int warmups;             /* --warmups: untimed runs before --time's */
	int reps;                /* --reps: --time's timed runs */
	bool tune;               /* --tune */
	double budget_s;         /* --budget-s: the tuner's (0: its default) */
	bool timing_set;         /* --warmups or --reps given */
	const char *output;      /* -o */
	bool compile;            /* --compile */
	bool check;              /* --check */
	bool gpu;                /* --gpu */
	bool time;               /* --time */
	bool have_seed;          /* --random or --seed given */
	uint64_t seed;
	int64_t seeds;           /* --seeds: how many seeds verify tries */
	int n_sizes, n_mtx, n_in, n_out, n_hetero;
	name_value sizes[MAX_BINDINGS], mtx[MAX_BINDINGS];
	name_value hetero[MAX_BINDINGS]; /* --hetero */
	name_value in[MAX_BINDINGS], out[MAX_BINDINGS];
} options;

/* The options, as getopt_long returns them (tools/stirc.c's table). */
enum {
	OPT_KERNEL = 256, OPT_STAGE, OPT_SCHEDULE, OPT_BACKEND, OPT_SIZE,
	OPT_MTX, OPT_IN, OPT_RANDOM, OPT_OUT, OPT_CHECK, OPT_TIME, OPT_SEED,
	OPT_SEEDS, OPT_ARCH, OPT_MIN_BLOCKS, OPT_COMPILE, OPT_OUTPUT, OPT_AFTER,
	OPT_GPU, OPT_HETERO, OPT_WARMUPS, OPT_REPS, OPT_TUNE, OPT_BUDGET_S,
	OPT_HELP,
};

/* The help of each command (tools/stirc.c). */
extern const char usage_check[], usage_print[], usage_cuda[], usage_run[],
	usage_verify[], usage_tune[], usage_recipe[];

/* cmd, fmt: print the usage error fmt (printf's arguments follow) with
 * the hint to run 'stirc CMD--help' (cmd: "run " or NULL); returns
 * EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- tools/stirc.c: options and the helpers every command uses ---- */

/* s, v: parse a whole decimal integer (an optional sign, then digits
 * only: no spaces, no trailing characters, no overflow); -1 when
 * malformed. */
int parse_int(const char *s, int64_t *v);

/* cmd, argc, argv, allowed, o: parse the options of command cmd; only
 * options whose letters appear in "allowed" are accepted.  Returns 0, 1
 * when --help was printed, or EXIT_USAGE. */
int parse_options(const char *cmd, const char *help, int argc,
	char **argv, const int *allowed, options *o);

/* ctx, rc: print the context's diagnostics; return rc. */
int finish(stir_ctx *ctx, int rc);

/* m, o, need_one, k: select the kernel of m that o names (or the only
 * kernel when o names none and "need_one" is set) into *k.  Returns 0,
 * EXIT_WRONG or EXIT_USAGE. */
int select_kernel(const stir_module *m, const options *o, bool need_one,
	stir_kernel **k);

/* m: the highest stage of m's kernels. */
int module_stage(const stir_module *m);

/* ctx, o, stage: read o->file and lower it to "stage" (0: leave it at its
 * own).  NULL with *rc set when that fails. */
stir_module *read_at_stage(stir_ctx *ctx, const options *o, int stage,
	int *rc);

/* ctx, o, m, s, k: with --schedule, read the schedule file into *s and
 * pick its kernel of m into *k (--kernel, when given, must name that
 * kernel).  Returns 0, EXIT_WRONG or EXIT_USAGE; without --schedule, 0
 * with *s and *k NULL. */
int load_schedule(stir_ctx *ctx, const options *o, const stir_module *m,
	stir_schedule **s, stir_kernel **k);

/* o, s, k: the stage to bring kernel k to under schedule s: --stage, else
 * the last stage s has steps for, or k's own when later. */
stir_stage schedule_stage(const options *o, const stir_schedule *s,
	const stir_kernel *k);

/* ---- tools/stirc_run.c: binding inputs, running and comparing (also verify's) ---- */

/* k, name: has kernel k a size parameter called "name"? */
bool has_param(const stir_kernel *k, const char *name);

/* b, o, s: bind --size, then the sizes schedule s (or NULL) specializes.
 * 0 or -1. */
int bind_sizes(stir_bindings *b, const options *o,
	const stir_schedule *s);

/* ctx, opt, nv: after a failed binding of data file nv->value, say
 * which option bound it, located in that file.  Returns -1. */
int note_option(stir_ctx *ctx, const char *opt, const name_value *nv);

/* k, by, got, want, in, what, worst: compare every tensor of k in the
 * two bindings, "got" computed by kernel "by" (a form of k) from inputs
 * "in" (NULL: unknown); *worst receives the largest absolute difference.
 * A tensor that differs beyond the tolerance of its type as "by" computes
 * it (stir_kernel_get_tolerance) relative to each element is compared
 * again, when k is a sum of products and "in" is known, with the
 * tolerance relative to the sum of the magnitudes of each element's terms
 * (stir_kernel_interpret_magnitudes: a float sum's rounding scales with
 * it, and where terms cancel it is far larger than the result).  Each
 * tensor beyond that too is reported on stderr, saying what "want" came
 * from.  Returns the number of such tensors. */
int compare_outputs(stir_kernel *k, const stir_kernel *by,
	stir_bindings *got, stir_bindings *want, const stir_bindings *in,
	const char *what, double *worst);

/* ms, k: the kernel of module ms named like k. */
stir_kernel *same_kernel(const stir_module *ms, const stir_kernel *k);

/* o: is the GPU the backend? */
bool use_cuda(const options *o);

/* k, o, s, dev: bring kernel k (a copy the caller may change) to stage
 * III for the GPU, under schedule s when not NULL, and compile it for dev,
 * or for --arch.  NULL on failure. */
stir_gpu_kernel *compile_for_gpu(stir_kernel *k, const options *o,
	const stir_schedule *s, stir_device *dev);

/* t0: milliseconds since t0. */
double elapsed_ms(const struct timespec *t0);

/* ---- tools/stirc_tune.c: the tuner's schedule for run ---- */

/* ctx, o, m, s, k: for --backend cuda without --schedule, or --tune,
 * when a recipe covers kernel *k of m and --mtx and --size feat=F give
 * its matrix and features: the schedule run_schedule_text chooses into
 * *s, with *k its kernel of m; what was taken is said on stderr.  0
 * (nothing done for a kernel no recipe covers, without --tune), or
 * EXIT_WRONG with diagnostics (EXIT_USAGE when --tune lacks --mtx or
 * --size feat=F). */
int tuned_schedule(stir_ctx *ctx, const options *o,
	const stir_module *m, stir_schedule **s, stir_kernel **k);

/* cmd, r, model_only, budget_s: say on stderr, as "stirc CMD:", how
 * stir_tune's search went (before the line of what it chose). */
void tune_report(const char *cmd, const stir_tune_result *r,
	bool model_only, double budget_s);

/* argc, argv: the command, argv[0] its name, and its arguments. */
int cmd_check(int argc, char **argv);
int cmd_print(int argc, char **argv);
int cmd_cuda(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_recipe(int argc, char **argv);

#endif
