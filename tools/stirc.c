/* stirc: the stir compiler's command line (LANGUAGE.md section 7).
 *
 * A thin layer over the public API: every command reads a program, picks a
 * kernel, and calls the library.  Exit status: 0 success, 1 the program or
 * the data is wrong (diagnostics on stderr), 2 bad usage. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <stir/stir.h>
#include "config.h"
#include "tools/stirc.h"

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

static const char usage_main[] =
"usage: stirc COMMAND FILE [OPTIONS]\n"
"\n"
"Compile and run sparse tensor programs written in the stir language.\n"
"\n"
"commands:\n"
"  check   read and verify a program; print nothing when it is correct\n"
"  print   print a program in canonical form, at any stage\n"
"  cuda    print the CUDA C of a kernel, and compile it with NVRTC\n"
"  run     execute a kernel on host arrays, at any stage, or on the GPU\n"
"          (--tune: tune it first for its matrix and feature size)\n"
"  verify  run a program at every stage (and on the GPU) on random inputs\n"
"          and compare\n"
"  tune    pick a recipe's schedule for a program, a matrix and a feature\n"
"          size, and write it as a schedule file\n"
"\n"
"Run 'stirc COMMAND --help' for the options of a command.\n"
"Exit status: 0 success, 1 the program or the data is wrong, 2 bad usage.\n";

static const char usage_check[] =
"usage: stirc check FILE [--kernel K] [--gpu [--schedule S.yaml]]\n"
"\n"
"Read FILE, resolve names and verify every kernel (or only K).  Errors are\n"
"printed as FILE:LINE:COL: error: MESSAGE with the source line and a caret.\n"
"\n"
"  --kernel K      check only kernel K\n"
"  --gpu           also prepare each kernel for the GPU as 'stirc cuda'\n"
"                  does (lowering, the default schedule, barriers) and\n"
"                  check that it can be emitted as CUDA: every illegal\n"
"                  binding or mapping is reported with its location, and\n"
"                  no CUDA is printed\n"
"  --schedule S    with --gpu: apply schedule file S to its kernel first\n"
"  --help          show this help\n";

static const char usage_print[] =
"usage: stirc print FILE [--kernel K] [--stage 1|2|3] [--schedule S.yaml]\n"
"                   [--after PASS]\n"
"\n"
"Print the program (or kernel K) in canonical form, lowered first to the\n"
"stage asked for.  Reading the printed text back gives the same program.\n"
"FILE may hold a program of any stage (docs/ir.md).\n"
"\n"
"  --kernel K       print only kernel K\n"
"  --stage N        lower to stage N first: 2 (loops and blocks over sparse\n"
"                   buffers) or 3 (loops over flat buffers); default: the\n"
"                   stage of FILE\n"
"  --schedule S     apply the schedule file S (docs/schedules.md, \"Schedule\n"
"                   files\") to its kernel, lowering it on the way, and\n"
"                   print that kernel; default stage: the last one S has\n"
"                   steps for (or FILE's, when later)\n"
"  --after PASS     run the passes that prepare a kernel for the GPU (as\n"
"                   'stirc cuda' does) up to PASS, and print the program\n"
"                   right after it (not with --stage).  The passes, in\n"
"                   order: lower_sparse_iter, default_schedule,\n"
"                   lower_sparse_buffer (each skipped on a kernel past\n"
"                   its stage); with --schedule: the steps of S's format\n"
"                   and stage1 sections, lower_sparse_iter, its stage2\n"
"                   steps, lower_sparse_buffer, its stage3 steps,\n"
"                   default_schedule, where step N of a section is the\n"
"                   pass SECTION.N (stage2.1, ...) and SECTION ends it;\n"
"                   then, in both cases, the stage III rewrites\n"
"                   lift_guards, hoist_invariants, hoist_warp_reads,\n"
"                   insert_barriers and plan_vectors\n"
"  --help           show this help\n";

static const char usage_cuda[] =
"usage: stirc cuda FILE [--kernel K] [--schedule S.yaml] [--arch sm_XY]\n"
"                  [--compile] [-o OUT.cu]\n"
"\n"
"Print the CUDA C of kernel K (needed when FILE holds several): one\n"
"extern \"C\" __global__ function per top-level statement of the kernel,\n"
"run in order (docs/cuda.md).  A stage I or II program is first lowered to\n"
"stage III, every nest without a thread binding getting the default\n"
"schedule; a stage III program is emitted as it is.\n"
"\n"
"  --kernel K   the kernel to emit\n"
"  --schedule S apply the schedule file S to its kernel first, up to its\n"
"               stage3 steps; the default schedule then binds the nests\n"
"               the steps left unbound\n"
"  --compile    also compile the CUDA C with NVRTC (no GPU needed) and\n"
"               report NVRTC's diagnostics; exit 1 when it fails\n"
"  --arch A     with --compile: the architecture (default sm_90)\n"
"  -o OUT.cu    write the CUDA C to OUT.cu instead of the standard output\n"
"               (not FILE or S)\n"
"  --help       show this help\n";

static const char usage_run[] =
"usage: stirc run FILE [--kernel K] [--backend interp|cuda] [--stage 1|2|3]\n"
"                 [--schedule S.yaml]\n"
"                 [--size NAME=INT]... [--mtx TENSOR=FILE.mtx[.gz]]...\n"
"                 [--hetero TENSOR=FILE.hetero[.gz]]...\n"
"                 [--in ARRAY=FILE.npy]... [--random SEED]\n"
"                 [--out ARRAY=FILE.npy]... [--check] [--time] [--arch A]\n"
"                 [--min-blocks N] [--warmups N] [--reps N]\n"
"                 [--tune [--budget-s S]]\n"
"\n"
"Execute kernel K (needed when FILE holds several) on host arrays, or on\n"
"the GPU.  Arrays are named after tensors ('A') and axes ('J.indptr',\n"
"'J.indices').\n"
"\n"
"  --kernel K          the kernel to run\n"
"  --backend B         interp (the host interpreter; the default) or cuda\n"
"                      (the first GPU: the kernel is lowered to stage III,\n"
"                      nests without a thread binding getting the default\n"
"                      schedule, compiled with NVRTC and run; without a GPU\n"
"                      or CUDA driver this is an error)\n"
"  --stage N           lower to stage N and interpret that; default: the\n"
"                      stage of FILE (interp only)\n"
"  --schedule S        apply the schedule file S (docs/schedules.md) to its\n"
"                      kernel; with interp, up to --stage (default: the last\n"
"                      stage S has steps for), with cuda before the default\n"
"                      schedule (for the nests S leaves unbound).  Inputs\n"
"                      are bound to the kernel as FILE writes it; the\n"
"                      formats S's decompose steps make are built from them\n"
"                      on the host, and the sizes S specializes are bound to\n"
"                      its values\n"
"  --tune              tune first (docs/recipes.md, 'The tuner'), for a\n"
"                      kernel a recipe covers with its matrix from --mtx\n"
"                      and --size feat=F, and run the winner: the tuning\n"
"                      record's entry, else with cuda the measured search\n"
"                      on the GPU (as 'stirc tune', stored in the record),\n"
"                      with interp the cost model's pick.  Without --tune\n"
"                      and --schedule, cuda runs the record's or the\n"
"                      model's pick without measuring\n"
"  --budget-s S        with --tune on cuda: stop the search's timing after\n"
"                      S seconds (default 20)\n"
"  --arch A            compile for architecture A instead of the GPU's own\n"
"                      (cuda only)\n"
"  --min-blocks N      compile every launch for N thread blocks per\n"
"                      multiprocessor, 1 to 32 (__launch_bounds__(T, N):\n"
"                      more registers per thread for small N; cuda only)\n"
"  --size NAME=INT     bind size parameter NAME (a size of the kernel, at\n"
"                      least 0, given once; it must agree with the sizes\n"
"                      --mtx and --in imply)\n"
"  --mtx T=FILE        bind CSR tensor T (axes [I, J], I dense_fixed,\n"
"                      J sparse_variable) to a Matrix Market file: its sizes,\n"
"                      J.indptr, J.indices and values (1 for a pattern)\n"
"  --hetero T=FILE     bind relational tensor T (axes [R, I, J], R\n"
"                      dense_fixed, I sparse_variable child of R, J of I) to\n"
"                      a .hetero graph (docs/formats.md): edge src -> dst of\n"
"                      relation r is T[r, dst, src]; its sizes, I.indptr,\n"
"                      I.indices, J.indptr, J.indices and values\n"
"  --in ARRAY=FILE     bind ARRAY to a NumPy .npy file (converted to the\n"
"                      array's type when every value survives: exactly,\n"
"                      into an integer type).  No array may be bound by two\n"
"                      of --mtx and --in\n"
"  --random SEED       fill every size and array not bound otherwise with\n"
"                      valid random data drawn from SEED\n"
"  --out ARRAY=FILE    write ARRAY after the run as .npy (dense tensors with\n"
"                      their shape, sparse ones as their 1-D value array);\n"
"                      each ARRAY once, each FILE once and never a file\n"
"                      another option reads\n"
"  --check             also run the stage I interpreter on the same inputs\n"
"                      and fail (exit 1) on a mismatch beyond the type's\n"
"                      tolerance (FILE must be a stage I program; with\n"
"                      --backend cuda, the interpreter at FILE's own stage,\n"
"                      and the arrays the kernel writes start as NaN in both\n"
"                      runs, so that elements the GPU leaves unwritten show)\n"
"  --time              print the kernel's run time.  On the GPU as a benchmark\n"
"                      measures it (docs/cuda.md): the launches alone, with\n"
"                      CUDA events, the median of --reps runs after\n"
"                      --warmups untimed ones, the L2 cache flushed before\n"
"                      each, then one more run for the result; also the\n"
"                      spread, the GPU and whether the code was compiled by\n"
"                      NVRTC or taken from the cache.  With interp: one run,\n"
"                      wall clock.  Then, apart, the host time to read and\n"
"                      generate the inputs and build the formats the\n"
"                      schedule decomposes into\n"
"  --warmups N         with --time on cuda: untimed runs first (default 10)\n"
"  --reps N            with --time on cuda: timed runs (default 100)\n"
"  --help              show this help\n"
"\n"
"Tensors the kernel writes that nothing binds start as zeros.  Without\n"
"--out, a summary of every tensor is printed.  The inputs are checked\n"
"(docs/language.md section 5) before anything is compiled or runs, on\n"
"either backend.\n";

static const char usage_verify[] =
"usage: stirc verify FILE [--kernel K] [--schedule S.yaml] [--seed N]\n"
"                    [--seeds COUNT] [--size NAME=INT]...\n"
"                    [--backend interp|cuda] [--arch A] [--min-blocks N]\n"
"\n"
"Run every kernel (or K) of the stage I program FILE at stages I, II and\n"
"III on seeded random inputs (structure with empty rows, rows of one\n"
"entry and full rows; values in [-1, 1)) and report the largest\n"
"difference of each stage from stage I.  Exit 1 on a mismatch beyond the\n"
"type's tolerance.\n"
"\n"
"  --kernel K        verify only kernel K\n"
"  --schedule S      verify only the kernel of the schedule file S, scheduled\n"
"                    by it at stages II and III and on the GPU (the formats\n"
"                    of its decompose steps built from the random inputs)\n"
"  --backend B       interp (the default) or cuda: also run the kernel on\n"
"                    the GPU (lowered with the default schedule for nests\n"
"                    without a thread binding) and compare it with stage I;\n"
"                    the arrays the kernel writes start as NaN in both runs,\n"
"                    so that elements the GPU leaves unwritten show\n"
"  --arch A          compile for architecture A instead of the GPU's own\n"
"  --min-blocks N    compile every launch for N thread blocks per\n"
"                    multiprocessor, 1 to 32 (cuda only)\n"
"  --seed N          the first seed (default 1)\n"
"  --seeds COUNT     how many seeds to try: N, N+1, ... (default 1)\n"
"  --size NAME=INT   bind size parameter NAME instead of drawing it (a\n"
"                    size of a kernel verified, at least 0, given once)\n"
"  --help            show this help\n";

/* s: the message of a usage error; prints it and the hint. */
/* a: whether a names a GPU architecture as NVRTC takes it: sm_ or
 * compute_, digits, and an optional "a" (sm_90a). */
static bool is_arch(const char *a)
{
	const char *d = !strncmp(a, "sm_", 3) ? a + 3 :
		!strncmp(a, "compute_", 8) ? a + 8 : NULL;
	if (!d || !isdigit((unsigned char)*d))
		return false;
	while (isdigit((unsigned char)*d))
		d++;
	return !strcmp(d, "") || !strcmp(d, "a");
}

static int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "stirc: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'stirc %s--help'.\n", cmd ? cmd : "");
	return EXIT_USAGE;
}

/* arg, list, n: split "NAME=VALUE" into list[*n]; -1 when malformed. */
static int add_name_value(char *arg, name_value *list, int *n)
{
	char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return -1;
	*eq = '\0';
	list[*n].name = arg;
	list[*n].value = eq + 1;
	(*n)++;
	return 0;
}

/* s, v: parse a whole decimal integer (an optional sign, then digits
 * only: no spaces, no trailing characters, no overflow); -1 when
 * malformed. */
static int parse_int(const char *s, int64_t *v)
{
	char *end;
	const char *d = s + (*s == '-' || *s == '+');
	if (*d < '0' || *d > '9')
		return -1;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*v = x;
	return 0;
}

enum {
	OPT_KERNEL = 256, OPT_STAGE, OPT_SCHEDULE, OPT_BACKEND, OPT_SIZE,
	OPT_MTX, OPT_IN, OPT_RANDOM, OPT_OUT, OPT_CHECK, OPT_TIME, OPT_SEED,
	OPT_SEEDS, OPT_ARCH, OPT_MIN_BLOCKS, OPT_COMPILE, OPT_OUTPUT, OPT_AFTER,
	OPT_GPU, OPT_HETERO, OPT_WARMUPS, OPT_REPS, OPT_TUNE, OPT_BUDGET_S,
	OPT_HELP,
};

static const struct option all_options[] = {
	{ "kernel", required_argument, 0, OPT_KERNEL },
	{ "stage", required_argument, 0, OPT_STAGE },
	{ "schedule", required_argument, 0, OPT_SCHEDULE },
	{ "backend", required_argument, 0, OPT_BACKEND },
	{ "size", required_argument, 0, OPT_SIZE },
	{ "mtx", required_argument, 0, OPT_MTX },
	{ "hetero", required_argument, 0, OPT_HETERO },
	{ "in", required_argument, 0, OPT_IN },
	{ "random", required_argument, 0, OPT_RANDOM },
	{ "out", required_argument, 0, OPT_OUT },
	{ "check", no_argument, 0, OPT_CHECK },
	{ "time", no_argument, 0, OPT_TIME },
	{ "seed", required_argument, 0, OPT_SEED },
	{ "seeds", required_argument, 0, OPT_SEEDS },
	{ "arch", required_argument, 0, OPT_ARCH },
	{ "min-blocks", required_argument, 0, OPT_MIN_BLOCKS },
	{ "compile", no_argument, 0, OPT_COMPILE },
	{ "after", required_argument, 0, OPT_AFTER },
	{ "gpu", no_argument, 0, OPT_GPU },
	{ "warmups", required_argument, 0, OPT_WARMUPS },
	{ "reps", required_argument, 0, OPT_REPS },
	{ "tune", no_argument, 0, OPT_TUNE },
	{ "budget-s", required_argument, 0, OPT_BUDGET_S },
	{ "help", no_argument, 0, OPT_HELP },
	{ 0, 0, 0, 0 },
};

/* The identity of a file: its device and inode when it exists, else its
 * directory's real path and its base name (a file about to be made). */
typedef struct file_key {
	bool exists;
	dev_t dev;
	ino_t ino;
	char *path;  /* owned, when !exists; NULL when it cannot be resolved */
} file_key;

/* path, key: fill *key for path. */
static void file_key_init(const char *path, file_key *key)
{
	struct stat st;
	memset(key, 0, sizeof(*key));
	if (stat(path, &st) == 0) {
		key->exists = true;
		key->dev = st.st_dev;
		key->ino = st.st_ino;
		return;
	}
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path + (slash == path)))
		: strdup(".");
	char *real = dir ? realpath(dir, NULL) : NULL;
	const char *base = slash ? slash + 1 : path;
	if (real && (key->path = malloc(strlen(real) + strlen(base) + 2)))
		sprintf(key->path, "%s/%s", real, base);
	free(real);
	free(dir);
}

/* a, b: do the keys name the same file? */
static bool file_key_same(const file_key *a, const file_key *b)
{
	if (a->exists || b->exists)
		return a->exists && b->exists && a->dev == b->dev &&
			a->ino == b->ino;
	return a->path && b->path && !strcmp(a->path, b->path);
}

/* prefix, o: the files an option writes must differ from each other and
 * from every file an option reads (the program, the schedule, --in and
 * --mtx files); an array may be written by one --out only.  0 or
 * EXIT_USAGE. */
static int check_files(const char *prefix, const options *o)
{
	int n_in = 2 + o->n_in + o->n_mtx + o->n_hetero, n_out = o->n_out + 1;
	const char *in[2 + 3 * MAX_BINDINGS], *in_opt[2 + 3 * MAX_BINDINGS];
	const char *out[MAX_BINDINGS + 1], *out_opt[MAX_BINDINGS + 1];
	in[0] = o->file;
	in_opt[0] = "the program";
	in[1] = o->schedule;
	in_opt[1] = "--schedule";
	for (int i = 0; i < o->n_in; i++) {
		in[2 + i] = o->in[i].value;
		in_opt[2 + i] = "--in";
	}
	for (int i = 0; i < o->n_mtx; i++) {
		in[2 + o->n_in + i] = o->mtx[i].value;
		in_opt[2 + o->n_in + i] = "--mtx";
	}
	for (int i = 0; i < o->n_hetero; i++) {
		in[2 + o->n_in + o->n_mtx + i] = o->hetero[i].value;
		in_opt[2 + o->n_in + o->n_mtx + i] = "--hetero";
	}
	for (int i = 0; i < o->n_out; i++) {
		out[i] = o->out[i].value;
		out_opt[i] = "--out";
		for (int j = 0; j < i; j++)
			if (!strcmp(o->out[i].name, o->out[j].name))
				return usage_error(prefix, "--out %s is given twice",
					o->out[i].name);
	}
	out[o->n_out] = o->output;
	out_opt[o->n_out] = "-o";
	int rc = 0;
	file_key ki[2 + 3 * MAX_BINDINGS], ko[MAX_BINDINGS + 1];
	memset(ko, 0, sizeof(ko));
	for (int i = 0; i < n_in; i++)
		if (in[i])
			file_key_init(in[i], &ki[i]);
	for (int i = 0; i < n_out && rc == 0; i++) {
		if (!out[i])
			continue;
		file_key_init(out[i], &ko[i]);
		for (int j = 0; j < i && rc == 0; j++)
			if (out[j] && file_key_same(&ko[i], &ko[j])) {
				rc = usage_error(prefix, "%s %s and %s %s write the same "
					"file", out_opt[j], out[j], out_opt[i], out[i]);
			}
		for (int j = 0; j < n_in && rc == 0; j++)
			if (in[j] && file_key_same(&ko[i], &ki[j])) {
				rc = usage_error(prefix, "%s %s would overwrite %s %s",
					out_opt[i], out[i], in_opt[j], in[j]);
			}
	}
	for (int i = 0; i < n_in; i++)
		if (in[i])
			free(ki[i].path);
	for (int i = 0; i < n_out; i++)
		free(ko[i].path);
	return rc;
}

/* c: the name of option c, as written ("--size", "-o"). */
static const char *option_name(int c)
{
	static char buf[64];
	if (c == OPT_OUTPUT)
		return "-o";
	for (const struct option *op = all_options; op->name; op++)
		if (op->val == c) {
			snprintf(buf, sizeof(buf), "--%s", op->name);
			return buf;
		}
	return "?";
}

/* c: what the value of option c looks like, for "needs a value". */
static const char *option_value_form(int c)
{
	switch (c) {
	case OPT_SIZE: return "NAME=INT";
	case OPT_MTX: case OPT_HETERO: return "TENSOR=FILE";
	case OPT_IN: case OPT_OUT: return "ARRAY=FILE";
	case OPT_STAGE: return "1, 2 or 3";
	case OPT_BACKEND: return "interp or cuda";
	case OPT_RANDOM: case OPT_SEED: case OPT_SEEDS: case OPT_MIN_BLOCKS:
	case OPT_WARMUPS: case OPT_REPS:
		return "an integer";
	case OPT_KERNEL: return "a kernel name";
	case OPT_AFTER: return "a pass name";
	case OPT_SCHEDULE: case OPT_OUTPUT: return "a file name";
	case OPT_ARCH: return "an architecture such as sm_90";
	case OPT_BUDGET_S: return "seconds";
	default: return "a value";
	}
}

/* cmd, argc, argv, allowed, o: parse the options of command cmd; only
 * options whose letters appear in "allowed" are accepted.  Returns 0, 1
 * when --help was printed, or EXIT_USAGE. */
static int parse_options(const char *cmd, const char *help, int argc,
	char **argv, const int *allowed, options *o)
{
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "%s ", cmd);
	memset(o, 0, sizeof(*o));
	o->backend = "interp";
	o->seed = 1;
	o->seeds = 1;
	o->warmups = 10;
	o->reps = 100;
	optind = 1;
	opterr = 0;
	bool seen[OPT_HELP - OPT_KERNEL + 1] = { false };
	int c;
	while ((c = getopt_long(argc, argv, ":o:", all_options, NULL)) != -1) {
		if (c == 'o')
			c = OPT_OUTPUT;
		if (c == ':') {
			/* the option ends the command line: its value is missing */
			int m = optopt == 'o' ? OPT_OUTPUT : optopt;
			return usage_error(prefix, "%s needs a value (%s)",
				option_name(m), option_value_form(m));
		}
		if (c == '?') {
			if (optopt >= 256) {
				return usage_error(prefix, "%s takes no value",
					option_name(optopt));
			}
			if (optopt) {
				char opt[3] = { '-', (char)optopt, 0 };
				return usage_error(prefix, "unknown option '%s'", opt);
			}
			const char *arg = argv[optind - 1];
			return usage_error(prefix, "unknown or ambiguous option '%s'",
				arg);
		}
		bool ok = c == OPT_HELP;
		for (const int *a = allowed; *a && !ok; a++)
			ok = *a == c;
		if (!ok) {
			return usage_error(prefix, "'stirc %s' does not take %s",
				cmd, option_name(c));
		}
		/* an option given twice is a mistake, except the lists and
		 * the flags */
		if (c != OPT_SIZE && c != OPT_MTX && c != OPT_HETERO && c != OPT_IN && c != OPT_OUT &&
		    c != OPT_CHECK && c != OPT_TIME && c != OPT_COMPILE &&
		    c != OPT_GPU && c != OPT_TUNE && c != OPT_HELP) {
			if (seen[c - OPT_KERNEL])
				return usage_error(prefix, "%s is given twice",
					option_name(c));
			seen[c - OPT_KERNEL] = true;
		}
		if ((c == OPT_SIZE && o->n_sizes >= MAX_BINDINGS) ||
		    (c == OPT_MTX && o->n_mtx >= MAX_BINDINGS) ||
		    (c == OPT_HETERO && o->n_hetero >= MAX_BINDINGS) ||
		    (c == OPT_IN && o->n_in >= MAX_BINDINGS) ||
		    (c == OPT_OUT && o->n_out >= MAX_BINDINGS)) {
			return usage_error(prefix, "more than %d %s options",
				MAX_BINDINGS, option_name(c));
		}
		int64_t v;
		switch (c) {
		case OPT_HELP:
			fputs(help, stdout);
			return 1;
		case OPT_KERNEL:
			o->kernel = optarg;
			break;
		case OPT_STAGE:
			if (parse_int(optarg, &v) || v < 1 || v > 3)
				return usage_error(prefix, "--stage takes 1, 2 or 3, not '%s'",
					optarg);
			o->stage = (int)v;
			break;
		case OPT_BACKEND:
			if (strcmp(optarg, "interp") && strcmp(optarg, "cuda"))
				return usage_error(prefix,
					"unknown backend '%s' (expected interp or cuda)",
					optarg);
			o->backend = optarg;
			break;
		case OPT_ARCH:
			if (!is_arch(optarg))
				return usage_error(prefix, "--arch takes an architecture "
					"such as sm_90 or sm_90a, not '%s'", optarg);
			o->arch = optarg;
			break;
		case OPT_MIN_BLOCKS:
			if (parse_int(optarg, &v) || v < 1 || v > 32)
				return usage_error(prefix, "--min-blocks takes 1 to 32, "
					"not '%s'", optarg);
			o->min_blocks = (int)v;
			break;
		case OPT_WARMUPS:
			if (parse_int(optarg, &v) || v < 0 || v > 10000)
				return usage_error(prefix, "--warmups takes 0 to 10000, "
					"not '%s'", optarg);
			o->warmups = (int)v;
			o->timing_set = true;
			break;
		case OPT_REPS:
			if (parse_int(optarg, &v) || v < 1 || v > 100000)
				return usage_error(prefix, "--reps takes 1 to 100000, "
					"not '%s'", optarg);
			o->reps = (int)v;
			o->timing_set = true;
			break;
		case OPT_SCHEDULE:
			o->schedule = optarg;
			break;
		case OPT_AFTER:
			o->after = optarg;
			break;
		case OPT_COMPILE:
			o->compile = true;
			break;
		case OPT_OUTPUT:
			o->output = optarg;
			break;
		case OPT_SIZE:
			if (add_name_value(optarg, o->sizes, &o->n_sizes))
				return usage_error(prefix, "--size takes NAME=INT, not '%s'",
					optarg);
			if (parse_int(o->sizes[o->n_sizes - 1].value, &v))
				return usage_error(prefix, "--size: '%s' is not a whole number in range",
					o->sizes[o->n_sizes - 1].value);
			if (v < 0)
				return usage_error(prefix, "--size: '%s' is negative; a "
					"size is at least 0", o->sizes[o->n_sizes - 1].value);
			for (int i = 0; i < o->n_sizes - 1; i++)
				if (!strcmp(o->sizes[i].name, optarg))
					return usage_error(prefix, "--size %s is given twice",
						optarg);
			break;
		case OPT_MTX:
			if (add_name_value(optarg, o->mtx, &o->n_mtx))
				return usage_error(prefix, "--mtx takes TENSOR=FILE, not '%s'",
					optarg);
			break;
		case OPT_HETERO:
			if (add_name_value(optarg, o->hetero, &o->n_hetero))
				return usage_error(prefix, "--hetero takes TENSOR=FILE, "
					"not '%s'", optarg);
			break;
		case OPT_IN:
			if (add_name_value(optarg, o->in, &o->n_in))
				return usage_error(prefix, "--in takes ARRAY=FILE, not '%s'",
					optarg);
			break;
		case OPT_OUT:
			if (add_name_value(optarg, o->out, &o->n_out))
				return usage_error(prefix, "--out takes ARRAY=FILE, not '%s'",
					optarg);
			break;
		case OPT_RANDOM:
		case OPT_SEED:
			if (parse_int(optarg, &v) || v < 0)
				return usage_error(prefix, c == OPT_SEED ?
					"--seed takes a non-negative integer, not '%s'" :
					"--random takes a non-negative integer, not '%s'", optarg);
			o->seed = (uint64_t)v;
			o->have_seed = true;
			break;
		case OPT_SEEDS:
			if (parse_int(optarg, &v) || v < 1)
				return usage_error(prefix,
					"--seeds takes a positive integer, not '%s'", optarg);
			o->seeds = v;
			break;
		case OPT_CHECK:
			o->check = true;
			break;
		case OPT_GPU:
			o->gpu = true;
			break;
		case OPT_TIME:
			o->time = true;
			break;
		case OPT_TUNE:
			o->tune = true;
			break;
		case OPT_BUDGET_S: {
			char *end;
			errno = 0;
			o->budget_s = strtod(optarg, &end);
			if (!(o->budget_s > 0 && o->budget_s <= 86400) || errno ||
			    end == optarg || *end)
				return usage_error(prefix, "--budget-s takes seconds "
					"(> 0), not '%s'", optarg);
			break;
		}
		}
	}
	if (optind >= argc)
		return usage_error(prefix, "%s: no input file", cmd);
	if (optind + 1 < argc)
		return usage_error(prefix, "unexpected argument '%s'", argv[optind + 1]);
	o->file = argv[optind];
	return check_files(prefix, o);
}

/* ctx, rc: print the context's diagnostics; return rc. */
static int finish(stir_ctx *ctx, int rc)
{
	stir_ctx_print_diagnostics(ctx, stderr);
	if (rc == 0 && stir_ctx_n_errors(ctx))
		rc = EXIT_WRONG;
	return rc;
}

/* m, o, need_one, k: select the kernel of m that o names (or the only
 * kernel when o names none and "need_one" is set) into *k.  Returns 0,
 * EXIT_WRONG or EXIT_USAGE. */
static int select_kernel(const stir_module *m, const options *o, bool need_one,
	stir_kernel **k)
{
	*k = NULL;
	if (o->kernel) {
		*k = stir_module_find_kernel(m, o->kernel);
		if (!*k) {
			fprintf(stderr, "stirc: %s has no kernel '%s'\n", o->file,
				o->kernel);
			return EXIT_USAGE;
		}
		return 0;
	}
	if (need_one && stir_module_n_kernels(m) != 1) {
		fprintf(stderr, "stirc: %s holds %d kernels; choose one with "
			"--kernel\n", o->file, stir_module_n_kernels(m));
		return EXIT_USAGE;
	}
	if (need_one)
		*k = stir_module_get_kernel(m, 0);
	return 0;
}

/* m: the highest stage of m's kernels. */
static int module_stage(const stir_module *m)
{
	int stage = 1;
	for (int i = 0; i < stir_module_n_kernels(m); i++) {
		int s = (int)stir_kernel_get_stage(stir_module_get_kernel(m, i));
		stage = s > stage ? s : stage;
	}
	return stage;
}

/* ctx, o, stage: read o->file and lower it to "stage" (0: leave it at its
 * own).  NULL with *rc set when that fails. */
static stir_module *read_at_stage(stir_ctx *ctx, const options *o, int stage,
	int *rc)
{
	stir_module *m = stir_module_read_from_file(ctx, o->file);
	*rc = m ? 0 : EXIT_WRONG;
	if (!m || stage == 0)
		return m;
	if (module_stage(m) > stage) {
		fprintf(stderr, "stirc: %s is a stage %d program; it cannot be "
			"raised to stage %d\n", o->file, module_stage(m), stage);
		*rc = EXIT_USAGE;
	} else {
		stir_pipeline *p = stir_pipeline_alloc_to_stage((stir_stage)stage);
		if (!p)
			fprintf(stderr, "stirc: out of memory\n");
		if (!p || stir_pipeline_run_module(p, m) < 0)
			*rc = EXIT_WRONG;
		stir_pipeline_free(p);
	}
	if (*rc) {
		stir_module_free(m);
		return NULL;
	}
	return m;
}

/* ctx, o, m, s, k: with --schedule, read the schedule file into *s and
 * pick its kernel of m into *k (--kernel, when given, must name that
 * kernel).  Returns 0, EXIT_WRONG or EXIT_USAGE; without --schedule, 0
 * with *s and *k NULL. */
static int load_schedule(stir_ctx *ctx, const options *o, const stir_module *m,
	stir_schedule **s, stir_kernel **k)
{
	*s = NULL;
	*k = NULL;
	if (!o->schedule)
		return 0;
	if (!(*s = stir_schedule_read_from_file(ctx, o->schedule)))
		return EXIT_WRONG;
	const char *name = stir_schedule_get_kernel_name(*s);
	if (o->kernel && strcmp(o->kernel, name)) {
		fprintf(stderr, "stirc: --kernel %s, but %s is a schedule for "
			"kernel '%s'\n", o->kernel, o->schedule, name);
		return EXIT_USAGE;
	}
	*k = stir_schedule_find_kernel(*s, m);
	return *k ? 0 : EXIT_WRONG;
}

/* o, s, k: the stage to bring kernel k to under schedule s: --stage, else
 * the last stage s has steps for, or k's own when later. */
static stir_stage schedule_stage(const options *o, const stir_schedule *s,
	const stir_kernel *k)
{
	stir_stage last = stir_schedule_get_last_stage(s);
	if (o->stage)
		return (stir_stage)o->stage;
	return stir_kernel_get_stage(k) > last ? stir_kernel_get_stage(k) : last;
}

/* argc, argv: stirc check. */
static int cmd_check(int argc, char **argv)
{
	static const int allowed[] = { OPT_KERNEL, OPT_GPU, OPT_SCHEDULE, 0 };
	options o;
	int rc = parse_options("check", usage_check, argc, argv, allowed, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (o.schedule && !o.gpu)
		return usage_error("check ", "%s", "--schedule applies to --gpu "
			"only");
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx, o.file);
	stir_kernel *k = NULL;
	stir_schedule *s = NULL;
	if (!m)
		rc = EXIT_WRONG;
	else if (o.schedule)
		rc = load_schedule(ctx, &o, m, &s, &k);
	else
		rc = select_kernel(m, &o, false, &k);
	/* --gpu: the kernel chosen, or every kernel, as 'stirc cuda' takes
	 * it, checked by the GPU verifier instead of emitted */
	int n = rc == 0 && o.gpu ? (k ? 1 : stir_module_n_kernels(m)) : 0;
	for (int i = 0; i < n; i++) {
		stir_kernel *g = k ? k : stir_module_get_kernel(m, i);
		if ((s ? stir_schedule_prepare_for_gpu(s, g) :
		    stir_kernel_prepare_for_gpu(g)) < 0 ||
		    stir_kernel_verify_gpu(g) < 0)
			rc = EXIT_WRONG;
	}
	rc = finish(ctx, rc);
	stir_schedule_free(s);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}

/* p, prefix, after: make p stop after pass "after"; when p has no such
 * pass, a usage error that lists the passes it has. */
static int stop_after(stir_pipeline *p, const char *prefix, const char *after)
{
	if (stir_pipeline_set_stop_after(p, after) == 0)
		return 0;
	size_t len = 1;
	for (int i = 0; i < stir_pipeline_n_passes(p); i++)
		len += strlen(stir_pipeline_get_pass_name(p, i)) + 2;
	char *names = malloc(len);
	if (!names) {
		fprintf(stderr, "stirc: out of memory\n");
		return EXIT_WRONG;
	}
	names[0] = '\0';
	for (int i = 0; i < stir_pipeline_n_passes(p); i++) {
		if (i)
			strcat(names, ", ");
		strcat(names, stir_pipeline_get_pass_name(p, i));
	}
	int rc = usage_error(prefix, "--after: unknown pass '%s' (the passes: "
		"%s)", after, names);
	free(names);
	return rc;
}

/* o, m, s, k: print --after: run the GPU pipeline (with schedule s: the
 * schedule's, on its kernel k) up to pass o->after on kernel k (NULL:
 * every kernel of m).  0, EXIT_WRONG or EXIT_USAGE. */
static int run_until_after(const options *o, stir_module *m,
	const stir_schedule *s, stir_kernel *k)
{
	stir_pipeline *p = s ? stir_pipeline_alloc_for_schedule(s, k,
		STIR_STAGE_3, true) : stir_pipeline_alloc_for_gpu();
	int rc = 0;
	if (!p) {
		if (!s)
			fprintf(stderr, "stirc: out of memory\n");
		return EXIT_WRONG;
	}
	if ((rc = stop_after(p, "print ", o->after)) == 0 &&
	    (k ? stir_pipeline_run(p, k) : stir_pipeline_run_module(p, m)) < 0)
		rc = EXIT_WRONG;
	stir_pipeline_free(p);
	return rc;
}

/* argc, argv: stirc print. */
static int cmd_print(int argc, char **argv)
{
	static const int allowed[] = { OPT_KERNEL, OPT_STAGE, OPT_SCHEDULE,
		OPT_AFTER, 0 };
	options o;
	int rc = parse_options("print", usage_print, argc, argv, allowed, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (o.after && o.stage)
		return usage_error("print ", "%s", "--after and --stage cannot go "
			"together: --after PASS stops right after PASS");
	if (o.after && !o.schedule) {
		/* a misspelt pass is named before anything is read */
		stir_pipeline *p = stir_pipeline_alloc_for_gpu();
		rc = p ? stop_after(p, "print ", o.after) : EXIT_WRONG;
		stir_pipeline_free(p);
		if (rc)
			return rc;
	}
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = read_at_stage(ctx, &o, o.schedule ? 0 : o.stage, &rc);
	stir_kernel *k = NULL;
	stir_schedule *s = NULL;
	if (rc == 0 && o.schedule) {
		/* the scheduled kernel alone: the others stay as they were */
		rc = load_schedule(ctx, &o, m, &s, &k);
		if (rc == 0 && !o.after && stir_schedule_apply(s, k,
		    schedule_stage(&o, s, k)) < 0)
			rc = EXIT_WRONG;
	} else if (rc == 0) {
		rc = select_kernel(m, &o, false, &k);
	}
	if (rc == 0 && o.after)
		rc = run_until_after(&o, m, s, k);
	if (rc == 0) {
		char *text = k ? stir_kernel_to_str(k) : stir_module_to_str(m);
		if (text)
			fputs(text, stdout);
		else
			rc = EXIT_WRONG;
		free(text);
	}
	rc = finish(ctx, rc);
	stir_schedule_free(s);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}

/* An array bound by an option: for the check that no two bind one. */
typedef struct claim {
	const char *array;        /* the array's name */
	const char *opt;          /* "--mtx" or "--in" */
	const name_value *arg;    /* the option's NAME=FILE */
} claim;

/* list, n, array, opt, arg, prefix: record in list[*n] that option "opt
 * arg" binds "array"; EXIT_USAGE, naming both, when another option of the
 * list binds it too. */
static int claim_array(claim *list, int *n, const char *array,
	const char *opt, const name_value *arg, const char *prefix)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(list[i].array, array))
			return usage_error(prefix, "%s %s=%s and %s %s=%s both bind "
				"array '%s'", list[i].opt, list[i].arg->name,
				list[i].arg->value, opt, arg->name, arg->value, array);
	list[*n].array = array;
	list[*n].opt = opt;
	list[(*n)++].arg = arg;
	return 0;
}

/* k, name: has kernel k a size parameter called "name"? */
static bool has_param(const stir_kernel *k, const char *name)
{
	for (int p = 0; p < stir_kernel_n_params(k); p++)
		if (!strcmp(stir_var_get_name(stir_kernel_get_param(k, p)), name))
			return true;
	return false;
}

/* ctx, k, list, n, nv, prefix: claim in list[*n] the arrays --hetero nv
 * binds: the tensor and the indptr and indices of its two sparse axes (a
 * tensor of another shape: binding it says so).  0, EXIT_WRONG or
 * EXIT_USAGE. */
static int claim_hetero(stir_ctx *ctx, const stir_kernel *k, claim *list,
	int *n, const name_value *nv, const char *prefix)
{
	int rc = claim_array(list, n, nv->name, "--hetero", nv, prefix);
	stir_buffer *buf = stir_kernel_find_buffer(k, nv->name);
	if (rc || stir_buffer_n_axes(buf) != 3)
		return rc;
	for (int a = 1; a <= 2 && rc == 0; a++) {
		stir_axis *ax = stir_buffer_get_axis(buf, a);
		if (stir_axis_get_kind(ax) != STIR_SPARSE_VARIABLE)
			return 0;
		const char *an = stir_axis_get_name(ax);
		size_t len = strlen(an) + 9;
		char *b1 = malloc(len);
		if (!b1)
			return EXIT_WRONG;
		const char *sfx[2] = { "indptr", "indices" };
		for (int s = 0; s < 2 && rc == 0; s++) {
			snprintf(b1, len, "%s.%s", an, sfx[s]);
			/* interned: the names live as long as the context */
			const char *nm = stir_ctx_intern(ctx, b1);
			rc = nm ? claim_array(list, n, nm, "--hetero", nv, prefix) :
				EXIT_WRONG;
		}
		free(b1);
	}
	return rc;
}

/* ctx, k, o, prefix: check the names the options give against kernel k
 * before any data is read: every --size a size parameter of k, every
 * --out an array of k, and no array bound by two options (--mtx binds a
 * tensor and the indptr and indices of its sparse axis).  0, EXIT_WRONG
 * or EXIT_USAGE. */
static int check_names(stir_ctx *ctx, const stir_kernel *k,
	const options *o, const char *prefix)
{
	for (int i = 0; i < o->n_sizes && k; i++) {
		if (!has_param(k, o->sizes[i].name)) {
			fprintf(stderr, "stirc: --size %s=%s: kernel '%s' has no size "
				"parameter '%s'\n", o->sizes[i].name, o->sizes[i].value,
				stir_kernel_get_name(k), o->sizes[i].name);
			return EXIT_WRONG;
		}
	}
	int n_names = stir_kernel_get_array_names(k, 0, NULL);
	const char **names = malloc((size_t)(n_names + 1) * sizeof(*names));
	if (!names)
		return EXIT_WRONG;
	stir_kernel_get_array_names(k, n_names, names);
	/* --out before any data is read or anything runs; --in and --mtx
	 * before any file is read */
	for (int i = 0; i < o->n_out + o->n_in + o->n_mtx; i++) {
		const name_value *nv = i < o->n_out ? &o->out[i] :
			i < o->n_out + o->n_in ? &o->in[i - o->n_out] :
			&o->mtx[i - o->n_out - o->n_in];
		const char *opt = i < o->n_out ? "--out" :
			i < o->n_out + o->n_in ? "--in" : "--mtx";
		bool found = false;
		for (int j = 0; j < n_names && !found; j++)
			found = !strcmp(names[j], nv->name);
		if (i >= o->n_out + o->n_in) {
			const stir_buffer *t = stir_kernel_find_buffer(k, nv->name);
			found = t && stir_buffer_get_kind(t) == STIR_BUFFER_TENSOR;
		}
		if (!found) {
			fprintf(stderr, "stirc: %s %s=%s: kernel '%s' has no %s '%s'\n",
				opt, nv->name, nv->value, stir_kernel_get_name(k),
				i < o->n_out + o->n_in ? "array" : "tensor", nv->name);
			free(names);
			return i < o->n_out ? EXIT_USAGE : EXIT_WRONG;
		}
	}
	free(names);
	for (int i = 0; i < o->n_hetero; i++) {
		const stir_buffer *t = stir_kernel_find_buffer(k, o->hetero[i].name);
		if (!t || stir_buffer_get_kind(t) != STIR_BUFFER_TENSOR) {
			fprintf(stderr, "stirc: --hetero %s=%s: kernel '%s' has no "
				"tensor '%s'\n", o->hetero[i].name, o->hetero[i].value,
				stir_kernel_get_name(k), o->hetero[i].name);
			return EXIT_WRONG;
		}
	}
	int n = 0, rc = 0;
	claim bound[3 * MAX_BINDINGS + 5 * MAX_BINDINGS + MAX_BINDINGS];
	for (int i = 0; i < o->n_hetero && rc == 0; i++)
		rc = claim_hetero(ctx, k, bound, &n, &o->hetero[i], prefix);
	for (int i = 0; i < o->n_mtx && rc == 0; i++) {
		const name_value *nv = &o->mtx[i];
		rc = claim_array(bound, &n, nv->name, "--mtx", nv, prefix);
		stir_buffer *buf = stir_kernel_find_buffer(k, nv->name);
		stir_axis *j = buf && stir_buffer_get_kind(buf) ==
			STIR_BUFFER_TENSOR && stir_buffer_n_axes(buf) == 2 ?
			stir_buffer_get_axis(buf, 1) : NULL;
		if (!j || stir_axis_get_kind(j) != STIR_SPARSE_VARIABLE)
			continue; /* not a CSR matrix: binding it says so */
		const char *an = stir_axis_get_name(j);
		size_t len = strlen(an) + 9;
		char *buf1 = malloc(len), *buf2 = malloc(len);
		const char *ip = NULL, *ix = NULL;
		if (buf1 && buf2) {
			snprintf(buf1, len, "%s.indptr", an);
			snprintf(buf2, len, "%s.indices", an);
			/* interned: the names live as long as the context */
			ip = stir_ctx_intern(ctx, buf1);
			ix = stir_ctx_intern(ctx, buf2);
		}
		free(buf1);
		free(buf2);
		if (!ip || !ix)
			return EXIT_WRONG;
		if (rc == 0)
			rc = claim_array(bound, &n, ip, "--mtx", nv, prefix);
		if (rc == 0)
			rc = claim_array(bound, &n, ix, "--mtx", nv, prefix);
	}
	for (int i = 0; i < o->n_in && rc == 0; i++)
		rc = claim_array(bound, &n, o->in[i].name, "--in", &o->in[i],
			prefix);
	return rc;
}

/* b, o, s: bind --size, then the sizes schedule s (or NULL) specializes.
 * 0 or -1. */
static int bind_sizes(stir_bindings *b, const options *o,
	const stir_schedule *s)
{
	for (int i = 0; i < o->n_sizes; i++) {
		int64_t v;
		parse_int(o->sizes[i].value, &v);
		stir_bindings_set_size(b, o->sizes[i].name, v);
	}
	return s ? stir_schedule_bind_sizes(s, b) : 0;
}

/* ctx, opt, nv: after a failed binding of data file nv->value, say
 * which option bound it, located in that file.  Returns -1. */
static int note_option(stir_ctx *ctx, const char *opt, const name_value *nv)
{
	stir_loc loc = { stir_ctx_intern(ctx, nv->value), 0, 0 };
	stir_ctx_report(ctx, STIR_NOTE, loc, "read for %s %s=%s", opt, nv->name,
		nv->value);
	return -1;
}

/* ctx, o: after a failed check of the arrays, say which --in file held
 * the array the last error names (a COO array that disagrees with the
 * structure is found only once everything is bound).  Returns -1. */
static int name_in_file(stir_ctx *ctx, const options *o)
{
	int nd = stir_ctx_n_diagnostics(ctx);
	const char *msg = nd ? stir_diag_get_message(stir_ctx_get_diagnostic(ctx,
		nd - 1)) : "";
	for (int i = 0; i < o->n_in; i++) {
		size_t len = strlen(o->in[i].name);
		const char *at = strstr(msg, o->in[i].name);
		if (at && at > msg && at[-1] == '\'' && at[len] == '\'')
			fprintf(stderr, "stirc: array '%s' was read from --in %s=%s\n",
				o->in[i].name, o->in[i].name, o->in[i].value);
	}
	return -1;
}

/* ctx, k, b, o, s: bind --size, --mtx and --in (converting arrays to the
 * kernel's types and taking sizes from their shapes), then --random, to
 * unscheduled kernel k; then what schedule s (or NULL) needs besides:
 * the sizes it specializes (first) and the formats it decomposes into
 * (last). */
static int bind_inputs(stir_ctx *ctx, stir_kernel *k, stir_bindings *b,
	const options *o, const stir_schedule *s)
{
	if (bind_sizes(b, o, s) < 0)
		return -1;
	for (int i = 0; i < o->n_mtx; i++) {
		stir_csr *csr = stir_kernel_read_csr_from_file(k, o->mtx[i].name,
			o->mtx[i].value);
		int rc = csr ? stir_kernel_bind_csr(k, b, o->mtx[i].name, csr) : -1;
		stir_csr_free(csr);
		if (rc < 0)
			return csr ? note_option(ctx, "--mtx", &o->mtx[i]) : -1;
	}
	for (int i = 0; i < o->n_hetero; i++) {
		stir_hetero *h = stir_hetero_read_from_file(ctx, o->hetero[i].value);
		bool read = h != NULL;
		int rc = read ? stir_kernel_bind_hetero(k, b, o->hetero[i].name,
			h) : -1;
		stir_hetero_free(h);
		if (rc < 0)
			return read ? note_option(ctx, "--hetero", &o->hetero[i]) : -1;
	}
	for (int i = 0; i < o->n_in; i++) {
		stir_array *a = stir_npy_read_from_file(ctx, o->in[i].value);
		if (!a)
			return -1;
		if (stir_kernel_bind_array(k, b, o->in[i].name, a) < 0)
			return note_option(ctx, "--in", &o->in[i]);
	}
	/* both derive the COO arrays of fused groups, or check those read */
	if ((o->have_seed && stir_kernel_bind_random(k, b, o->seed) < 0) ||
	    stir_kernel_bind_coo(k, b) < 0)
		return name_in_file(ctx, o);
	if (stir_kernel_bind_outputs(k, b) < 0)
		return -1;
	return s ? stir_schedule_bind_formats(s, k, b) : 0;
}

/* got, want, mag, tol, where: the number of elements of "got" that differ
 * from "want" by more than tol * (1 + the larger of |want| and "mag"'s
 * element, the sum of the magnitudes of its terms); the worst in *where
 * (-1 when none). */
static int64_t count_beyond_sum_bound(const stir_array *got,
	const stir_array *want, const stir_array *mag, double tol, int64_t *where)
{
	int64_t bad = 0;
	double far = 0;
	*where = -1;
	for (int64_t j = 0; j < stir_array_get_len(want); j++) {
		double x = stir_array_get_double(got, j);
		double y = stir_array_get_double(want, j);
		double m = fmax(fabs(y), stir_array_get_double(mag, j));
		double d = isnan(x) != isnan(y) ? INFINITY : fabs(x - y);
		if (d > tol * (1 + m) || isnan(m)) {
			if (bad == 0 || d > far)
				*where = j;
			far = fmax(far, d);
			bad++;
		}
	}
	return bad;
}

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
static int compare_outputs(stir_kernel *k, const stir_kernel *by,
	stir_bindings *got, stir_bindings *want, const stir_bindings *in,
	const char *what, double *worst)
{
	int bad = 0, mag_rc = 1;
	stir_bindings *mag = NULL;
	*worst = 0;
	for (int i = 0; i < stir_kernel_n_buffers(k); i++) {
		stir_buffer *buf = stir_kernel_get_buffer(k, i);
		if (stir_buffer_get_kind(buf) != STIR_BUFFER_TENSOR)
			continue;
		const char *name = stir_buffer_get_array_name(buf);
		stir_array *a = stir_bindings_get_array(got, name);
		stir_array *r = stir_bindings_get_array(want, name);
		int64_t where;
		double far;
		double tol = stir_kernel_get_tolerance(by, stir_array_get_dtype(r));
		stir_array_compare_within(a, r, tol, &where, &far);
		*worst = fmax(*worst, far);
		if (where >= 0 && in && stir_dtype_is_float(stir_array_get_dtype(r))) {
			if (!mag && (mag = stir_bindings_copy(in)))
				mag_rc = stir_kernel_interpret_magnitudes(k, mag);
			stir_array *m = mag_rc == 0 ? stir_bindings_get_array(mag,
				name) : NULL;
			if (m && stir_array_get_len(m) == stir_array_get_len(r) &&
			    count_beyond_sum_bound(a, r, m, tol, &where) == 0)
				printf("check: %s is within the float-sum bound of %s "
					"(max |diff| %g: its terms cancel; tolerance %g "
					"relative to the sum of their magnitudes)\n", name,
					what, far, tol);
		}
		if (where >= 0) {
			fprintf(stderr, "stirc: mismatch: %s[%" PRId64 "] is %.9g, %s "
				"gives %.9g\n", name, where,
				stir_array_get_double(a, where), what,
				stir_array_get_double(r, where));
			bad++;
		}
	}
	stir_bindings_free(mag);
	return bad;
}

/* k, b, o: write every --out array. */
static int write_outputs(stir_ctx *ctx, stir_kernel *k, stir_bindings *b,
	const options *o)
{
	for (int i = 0; i < o->n_out; i++) {
		stir_array *a = stir_bindings_get_array(b, o->out[i].name);
		if (!a) {
			fprintf(stderr, "stirc: --out: kernel '%s' has no array '%s'\n",
				stir_kernel_get_name(k), o->out[i].name);
			return -2;
		}
		int ndim;
		int64_t shape[STIR_MAX_DIMS];
		if (stir_kernel_get_array_shape(k, b, o->out[i].name, &ndim, shape) < 0 ||
		    stir_array_reshape(a, ndim, shape) < 0 ||
		    stir_npy_write(ctx, o->out[i].value, a) < 0)
			return -1;
	}
	return 0;
}

/* k, b: print a line per tensor: its type, shape and a checksum. */
static void print_summary(stir_kernel *k, stir_bindings *b)
{
	for (int i = 0; i < stir_kernel_n_buffers(k); i++) {
		stir_buffer *buf = stir_kernel_get_buffer(k, i);
		if (stir_buffer_get_kind(buf) != STIR_BUFFER_TENSOR)
			continue;
		const char *name = stir_buffer_get_array_name(buf);
		stir_array *a = stir_bindings_get_array(b, name);
		int ndim;
		int64_t shape[STIR_MAX_DIMS];
		if (stir_kernel_get_array_shape(k, b, name, &ndim, shape) < 0)
			continue;
		double sum = 0, amax = 0;
		for (int64_t j = 0; j < stir_array_get_len(a); j++) {
			double x = stir_array_get_double(a, j);
			sum += x;
			amax = fmax(amax, fabs(x));
		}
		printf("%s: %s[", name, stir_dtype_name(stir_buffer_get_dtype(buf)));
		for (int d = 0; d < ndim; d++)
			printf("%s%" PRId64, d ? ", " : "", shape[d]);
		printf("] sum %.6g max|x| %.6g\n", sum, amax);
	}
}

/* ms, k: the kernel of module ms named like k. */
static stir_kernel *same_kernel(const stir_module *ms, const stir_kernel *k)
{
	return stir_module_find_kernel(ms, stir_kernel_get_name(k));
}

/* o: is the GPU the backend? */
static bool use_cuda(const options *o)
{
	return !strcmp(o->backend, "cuda");
}

/* k, o, s, dev: bring kernel k (a copy the caller may change) to stage
 * III for the GPU, under schedule s when not NULL, and compile it for dev,
 * or for --arch.  NULL on failure. */
static stir_gpu_kernel *compile_for_gpu(stir_kernel *k, const options *o,
	const stir_schedule *s, stir_device *dev)
{
	if ((s ? stir_schedule_prepare_for_gpu(s, k) :
	    stir_kernel_prepare_for_gpu(k)) < 0)
		return NULL;
	stir_compile_options co = { .arch = o->arch, .device = dev,
		.min_blocks_per_sm = o->min_blocks };
	return stir_gpu_kernel_compile(k, &co);
}

/* gk, b: make every array the GPU kernel writes start as NaN (floats) or a
 * sentinel (integers), so that elements left unwritten show. */
static void poison_outputs(const stir_gpu_kernel *gk, stir_bindings *b)
{
	const stir_cuda_plan *p = stir_gpu_kernel_get_plan(gk);
	for (int i = 0; i < stir_cuda_plan_n_launches(p); i++) {
		for (int j = 0; j < stir_cuda_plan_n_args(p, i); j++) {
			const stir_buffer *buf = stir_cuda_plan_get_arg_buffer(p, i, j);
			const char *name = buf ? stir_buffer_get_array_name(buf) : NULL;
			stir_array *a = name ? stir_bindings_get_array(b, name) : NULL;
			if (!a || !stir_cuda_plan_arg_is_written(p, i, j))
				continue;
			if (stir_dtype_is_float(stir_array_get_dtype(a)))
				stir_array_fill(a, NAN);
			else
				for (int64_t e = 0; e < stir_array_get_len(a); e++)
					stir_array_set_int(a, e, -1234567);
		}
	}
}

/* t0: milliseconds since t0. */
static double elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) * 1e-6;
}

/* gk, dev, b, o, t: run gk on dev with the arrays of b and download the
 * result into b; with --time, first time it as a benchmark does
 * (stir_gpu_run_time: o's warm-ups and repetitions, *t), then upload b
 * again for the run whose result counts, since the timed runs may have
 * changed what the kernel reads.  0, or -1 with diagnostics. */
static int run_on_gpu(const stir_gpu_kernel *gk, stir_device *dev,
	stir_bindings *b, const options *o, stir_gpu_timing *t)
{
	stir_gpu_run *r = stir_gpu_run_alloc(gk, dev);
	int rc = r && stir_gpu_run_upload(r, b) == 0 ? 0 : -1;
	if (rc == 0 && o->time)
		rc = stir_gpu_run_time(r, o->warmups, o->reps, t) < 0 ||
			stir_gpu_run_upload(r, b) < 0 ? -1 : 0;
	if (rc == 0)
		rc = stir_gpu_run_launch(r, 0);
	if (rc == 0)
		rc = stir_gpu_run_download(r, b);
	stir_gpu_run_free(r);
	return rc;
}

static int tuned_schedule(stir_ctx *ctx, const options *o,
	const stir_module *m, stir_schedule **s, stir_kernel **k);
static void tune_report(const char *cmd, const stir_tune_result *r,
	bool model_only, double budget_s);

/* argc, argv: stirc run.  Inputs are bound to the kernel as written in the
 * file; a second copy, lowered to the stage asked for (or prepared for the
 * GPU), runs on them. */
static int cmd_run(int argc, char **argv)
{
	static const int allowed[] = { OPT_KERNEL, OPT_STAGE, OPT_SCHEDULE,
		OPT_BACKEND, OPT_SIZE, OPT_MTX, OPT_HETERO, OPT_IN, OPT_RANDOM, OPT_OUT,
		OPT_CHECK, OPT_TIME, OPT_ARCH, OPT_MIN_BLOCKS, OPT_WARMUPS, OPT_REPS,
		OPT_TUNE, OPT_BUDGET_S, 0 };
	options o;
	int rc = parse_options("run", usage_run, argc, argv, allowed, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	bool cuda = use_cuda(&o);
	if (cuda && o.stage)
		return usage_error("run ", "%s", "--stage applies to --backend "
			"interp only");
	if ((o.arch || o.min_blocks) && !cuda)
		return usage_error("run ", "%s", "--arch and --min-blocks apply to "
			"--backend cuda only");
	if (o.timing_set && !(cuda && o.time))
		return usage_error("run ", "%s", "--warmups and --reps apply to "
			"--time with --backend cuda only");
	if (o.tune && (o.schedule || o.stage))
		return usage_error("run ", "%s", "--tune chooses the schedule: "
			"not with --schedule or --stage");
	if (o.budget_s > 0 && !(cuda && o.tune))
		return usage_error("run ", "%s", "--budget-s applies to --tune "
			"with --backend cuda only");
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *src = read_at_stage(ctx, &o, 0, &rc), *m = NULL;
	stir_kernel *k = NULL, *kr = NULL;
	stir_bindings *b = stir_bindings_alloc(), *ref = NULL,
		*in = NULL;
	stir_device *dev = NULL;
	stir_gpu_kernel *gk = NULL;
	stir_schedule *s = NULL;
	if (rc == 0)
		rc = o.schedule ? load_schedule(ctx, &o, src, &s, &k) :
			select_kernel(src, &o, true, &k);
	if (rc == 0 && (cuda || o.tune) && !s)
		rc = tuned_schedule(ctx, &o, src, &s, &k);
	/* a schedule lowers its kernel itself, between its sections */
	if (rc == 0)
		m = read_at_stage(ctx, &o, s ? 0 : o.stage ? o.stage :
			module_stage(src), &rc);
	if (rc)
		goto out;
	if ((rc = check_names(ctx, k, &o, "run ")))
		goto out;
	kr = same_kernel(m, k);
	if (s && !cuda && stir_schedule_apply(s, kr, schedule_stage(&o, s,
	    kr)) < 0) {
		rc = EXIT_WRONG;
		goto out;
	}
	if (o.check && !cuda && stir_kernel_get_stage(k) != STIR_STAGE_1) {
		fprintf(stderr, "stirc: --check needs a stage I program\n");
		rc = EXIT_USAGE;
		goto out;
	}
	/* the inputs are checked against the kernel as FILE writes it, with
	 * its axes (a stage III kernel has lost them: its checks cover the
	 * domains alone), before anything runs or is compiled: both
	 * backends validate alike */
	struct timespec t_in;
	clock_gettime(CLOCK_MONOTONIC, &t_in);
	int r = bind_inputs(ctx, k, b, &o, s);
	double inputs_ms = elapsed_ms(&t_in);
	if (r == 0 && stir_kernel_check_bindings(k, b) < 0)
		r = -1;
	if (r < 0) {
		rc = r == -2 ? EXIT_USAGE : EXIT_WRONG;
		goto out;
	}
	if (cuda && (!(dev = stir_device_alloc(ctx, 0)) ||
	    !(gk = compile_for_gpu(kr, &o, s, dev)))) {
		rc = EXIT_WRONG;
		goto out;
	}
	if (stir_kernel_check_bindings(kr, b) < 0) {
		rc = EXIT_WRONG;
		goto out;
	}
	if (o.check && cuda)
		poison_outputs(gk, b);
	if (o.check && (!(ref = stir_bindings_copy(b)) ||
	    !(in = stir_bindings_copy(b)))) {
		rc = EXIT_WRONG;
		goto out;
	}
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	stir_gpu_timing t;
	if (cuda ? run_on_gpu(gk, dev, b, &o, &t) < 0 :
	    stir_kernel_interpret(kr, b) < 0) {
		rc = EXIT_WRONG;
		goto out;
	}
	if (o.time && cuda)
		printf("time: %.4f ms, the median of %d run%s after %d warm-up%s, "
			"the L2 cache flushed before each (min %.4f, max %.4f; %s; "
			"code %s)\n", t.median_ms, t.reps, t.reps == 1 ? "" : "s",
			t.warmups, t.warmups == 1 ? "" : "s", t.min_ms, t.max_ms,
			stir_device_get_name(dev),
			stir_gpu_code_is_from_cache(stir_gpu_kernel_get_code(gk)) ?
			"from the cache" : "compiled by NVRTC");
	else if (o.time)
		printf("time: %.3f ms (interp, stage %d)\n", elapsed_ms(&t0),
			(int)stir_kernel_get_stage(kr));
	if (o.time)
		printf("inputs: read, generated and formats built on the host in "
			"%.1f ms\n", inputs_ms);
	if (ref) {
		double worst;
		char what[64];
		snprintf(what, sizeof(what), "the stage %s interpreter",
			stir_kernel_get_stage(k) == STIR_STAGE_1 ? "I" :
			stir_kernel_get_stage(k) == STIR_STAGE_2 ? "II" : "III");
		if (stir_kernel_interpret(k, ref) < 0 ||
		    compare_outputs(k, kr, b, ref, in, what, &worst)) {
			rc = EXIT_WRONG;
			goto out;
		}
		printf("check: %s matches %s (max |diff| %g)\n",
			stir_kernel_get_name(k), what, worst);
	}
	r = write_outputs(ctx, k, b, &o);
	if (r < 0)
		rc = r == -2 ? EXIT_USAGE : EXIT_WRONG;
	else if (o.n_out == 0)
		print_summary(k, b);
out:
	rc = finish(ctx, rc);
	stir_gpu_kernel_free(gk);
	stir_device_free(dev);
	stir_schedule_free(s);
	stir_bindings_free(ref);
	stir_bindings_free(in);
	stir_bindings_free(b);
	stir_module_free(m);
	stir_module_free(src);
	stir_ctx_free(ctx);
	return rc;
}

/* k, gk, dev, in, worst: run GPU kernel gk against stage I kernel k
 * on a copy of inputs "in" whose outputs start poisoned.  Returns the
 * number of mismatches, or -1 on an error. */
static int verify_gpu(stir_kernel *k, const stir_gpu_kernel *gk,
	stir_device *dev, const stir_bindings *in, double *worst)
{
	stir_bindings *got = stir_bindings_copy(in), *want = NULL;
	int bad = -1;
	if (!got)
		return -1;
	poison_outputs(gk, got);
	if (!(want = stir_bindings_copy(got)) ||
	    stir_kernel_interpret(k, want) < 0 ||
	    stir_gpu_kernel_run(gk, dev, got, 0, NULL) < 0)
		goto out;
	double d;
	bad = compare_outputs(k, stir_cuda_plan_get_kernel(
		stir_gpu_kernel_get_plan(gk)), got, want, in, "stage I (vs cuda)",
		&d);
	*worst = fmax(*worst, d);
out:
	stir_bindings_free(got);
	stir_bindings_free(want);
	return bad;
}

/* ctx, k, kn, gk, dev, o, sched, seed, worst: one seed of stirc verify: bind
 * random inputs to stage I kernel k, run it and its lowered (and, with
 * schedule sched, scheduled) forms kn[0..1] (stages II and III) and, when gk
 * is set, GPU kernel gk on dev, and compare.  worst[i] grows to the
 * largest difference of each stage (i = 2: the GPU).  Returns the number
 * of mismatches, or -1 on an error. */
static int verify_seed(stir_ctx *ctx, stir_kernel *k, stir_kernel *const *kn,
	const stir_gpu_kernel *gk, stir_device *dev, const options *o,
	const stir_schedule *sched, uint64_t seed, double *worst)
{
	stir_bindings *in = stir_bindings_alloc(), *want = NULL;
	int bad = -1;
	if (!in)
		return -1;
	if (bind_sizes(in, o, sched) < 0 ||
	    stir_kernel_bind_random(k, in, seed) < 0 ||
	    (sched && stir_schedule_bind_formats(sched, k, in) < 0) ||
	    !(want = stir_bindings_copy(in)) || stir_kernel_interpret(k, want) < 0)
		goto out;
	bad = 0;
	for (int s = 0; s < 2; s++) {
		static const char *const what[] = { "stage I (vs stage II)",
			"stage I (vs stage III)" };
		stir_bindings *got = stir_bindings_copy(in);
		double d;
		if (!got || stir_kernel_interpret(kn[s], got) < 0) {
			stir_bindings_free(got);
			bad = -1;
			goto out;
		}
		bad += compare_outputs(k, kn[s], got, want, in, what[s], &d);
		worst[s] = fmax(worst[s], d);
		stir_bindings_free(got);
	}
	if (gk) {
		int r = verify_gpu(k, gk, dev, in, &worst[2]);
		if (r < 0) {
			bad = -1;
			goto out;
		}
		bad += r;
	}
	if (bad)
		fprintf(stderr, "stirc: kernel '%s' seed %" PRIu64 " mismatches\n",
			stir_kernel_get_name(k), seed);
out:
	stir_bindings_free(in);
	stir_bindings_free(want);
	(void)ctx;
	return bad;
}

/* argc, argv: stirc verify. */
static int cmd_verify(int argc, char **argv)
{
	static const int allowed[] = { OPT_KERNEL, OPT_SCHEDULE, OPT_SEED,
		OPT_SEEDS, OPT_SIZE, OPT_BACKEND, OPT_ARCH, OPT_MIN_BLOCKS, 0 };
	options o;
	int rc = parse_options("verify", usage_verify, argc, argv, allowed, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	bool cuda = use_cuda(&o);
	if ((o.arch || o.min_blocks) && !cuda)
		return usage_error("verify ", "%s", "--arch and --min-blocks apply "
			"to --backend cuda only");
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m[4] = { NULL, NULL, NULL, NULL };
	stir_device *dev = NULL;
	stir_schedule *sched = NULL;
	/* with a schedule, every copy stays at stage I: the schedule lowers
	 * its kernel between its sections */
	for (int s = 0; s < 3 && rc == 0; s++)
		m[s] = read_at_stage(ctx, &o, o.schedule ? 1 : s + 1, &rc);
	if (rc == 0 && cuda) {
		/* a copy for the GPU, prepared kernel by kernel */
		m[3] = read_at_stage(ctx, &o, 1, &rc);
		if (rc == 0 && !(dev = stir_device_alloc(ctx, 0)))
			rc = EXIT_WRONG;
	}
	stir_kernel *only = NULL;
	if (rc == 0)
		rc = o.schedule ? load_schedule(ctx, &o, m[0], &sched, &only) :
			select_kernel(m[0], &o, false, &only);
	/* every --size names a size of the kernel verified, or of one of
	 * them when there are several */
	for (int i = 0; rc == 0 && i < o.n_sizes; i++) {
		bool found = false;
		for (int j = 0; j < stir_module_n_kernels(m[0]) && !found; j++) {
			stir_kernel *k = stir_module_get_kernel(m[0], j);
			found = (!only || k == only) && has_param(k, o.sizes[i].name);
		}
		if (!found) {
			if (only)
				fprintf(stderr, "stirc: --size %s=%s: kernel '%s' has no "
					"size parameter '%s'\n", o.sizes[i].name,
					o.sizes[i].value, stir_kernel_get_name(only),
					o.sizes[i].name);
			else
				fprintf(stderr, "stirc: --size %s=%s: no kernel of %s has "
					"a size parameter '%s'\n", o.sizes[i].name,
					o.sizes[i].value, o.file, o.sizes[i].name);
			rc = EXIT_WRONG;
		}
	}
	for (int s = 1; rc == 0 && sched && s < 3; s++)
		if (stir_schedule_apply(sched, same_kernel(m[s], only),
		    (stir_stage)(s + 1)) < 0)
			rc = EXIT_WRONG;
	for (int i = 0; rc == 0 && i < stir_module_n_kernels(m[0]); i++) {
		stir_kernel *k = stir_module_get_kernel(m[0], i);
		if (only && k != only)
			continue;
		stir_kernel *kn[2] = { same_kernel(m[1], k), same_kernel(m[2], k) };
		stir_gpu_kernel *gk = NULL;
		if (cuda && !(gk = compile_for_gpu(same_kernel(m[3], k), &o, sched,
		    dev))) {
			rc = EXIT_WRONG;
			break;
		}
		double worst[3] = { 0, 0, 0 };
		int bad = 0;
		for (int64_t s = 0; s < o.seeds && bad >= 0; s++) {
			int r = verify_seed(ctx, k, kn, gk, dev, &o, sched,
				o.seed + (uint64_t)s, worst);
			bad = r < 0 ? -1 : bad + r;
		}
		stir_gpu_kernel_free(gk);
		if (bad < 0) {
			rc = EXIT_WRONG;
			break;
		}
		printf("%s: %" PRId64 " seed%s from %" PRIu64 ": stage II max |diff| "
			"%g, stage III max |diff| %g", stir_kernel_get_name(k),
			o.seeds, o.seeds == 1 ? "" : "s", o.seed, worst[0], worst[1]);
		if (cuda)
			printf(", cuda max |diff| %g", worst[2]);
		printf(": %s\n", bad ? "MISMATCH" : "ok");
		if (bad)
			rc = EXIT_WRONG;
	}
	rc = finish(ctx, rc);
	stir_device_free(dev);
	stir_schedule_free(sched);
	for (int s = 0; s < 4; s++)
		stir_module_free(m[s]);
	stir_ctx_free(ctx);
	return rc;
}

/* argc, argv: stirc cuda. */
static int cmd_cuda(int argc, char **argv)
{
	static const int allowed[] = { OPT_KERNEL, OPT_SCHEDULE, OPT_ARCH,
		OPT_COMPILE, OPT_OUTPUT, 0 };
	options o;
	int rc = parse_options("cuda", usage_cuda, argc, argv, allowed, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (o.arch && !o.compile)
		return usage_error("cuda ", "%s", "--arch applies to --compile "
			"only");
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = read_at_stage(ctx, &o, 0, &rc);
	stir_kernel *k = NULL;
	stir_schedule *s = NULL;
	char *source = NULL;
	if (rc == 0)
		rc = o.schedule ? load_schedule(ctx, &o, m, &s, &k) :
			select_kernel(m, &o, true, &k);
	if (rc == 0 && ((s ? stir_schedule_prepare_for_gpu(s, k) :
	    stir_kernel_prepare_for_gpu(k)) < 0 ||
	    !(source = stir_kernel_to_cuda(k))))
		rc = EXIT_WRONG;
	if (rc == 0) {
		FILE *f = o.output ? fopen(o.output, "w") : stdout;
		if (!f) {
			fprintf(stderr, "stirc: cannot write %s: %s\n", o.output,
				strerror(errno));
			rc = EXIT_WRONG;
		} else {
			fputs(source, f);
			if (ferror(f) | (o.output ? fclose(f) : fflush(f))) {
				fprintf(stderr, "stirc: cannot write %s\n",
					o.output ? o.output : "the standard output");
				rc = EXIT_WRONG;
			}
		}
	}
	if (rc == 0 && o.compile) {
		char name[256];
		snprintf(name, sizeof(name), "%s.cu", stir_kernel_get_name(k));
		stir_compile_options co = { .arch = o.arch ? o.arch : "sm_90" };
		stir_gpu_code *code = stir_gpu_code_compile(ctx, name, source, &co);
		if (!code)
			rc = EXIT_WRONG;
		else if (*stir_gpu_code_get_log(code))
			fputs(stir_gpu_code_get_log(code), stderr);
		stir_gpu_code_free(code);
	}
	rc = finish(ctx, rc);
	free(source);
	stir_schedule_free(s);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}

/* ---- stirc tune (docs/recipes.md, "The tuner") ---- */

static const char usage_tune[] =
"usage: stirc tune FILE --mtx NAME=G.mtx[.gz] --size feat=F [--model-only]\n"
"                  [--budget-s S] [--top N] [--kernel K] [--sms N]\n"
"                  [--no-record] [-o SCHEDULE.yaml]\n"
"       stirc tune --list\n"
"\n"
"Pick the schedule of a program that a recipe covers (csrmm of\n"
"examples/csrmm.stir: the hybrid SpMM; sddmm of examples/sddmm.stir and\n"
"sddmm_rows of examples/sddmm_rows.stir: the SDDMM) for matrix G (A of the\n"
"SpMM, S of the SDDMM) at F features, and write it as a schedule file\n"
"(stdout without -o) that 'stirc run|cuda --schedule' applies.  What was\n"
"chosen, and why, goes to stderr.\n"
"\n"
"  --mtx NAME=FILE    the sparse matrix (Matrix Market, gzip or not)\n"
"  --size feat=F      the feature size (F >= 1)\n"
"  --model-only       the cost model's pick, without a GPU; otherwise the\n"
"                     model's best candidates are compiled at once and\n"
"                     timed on the GPU as the benchmarks time them\n"
"  --budget-s S       stop timing after S seconds (default 20)\n"
"  --top N            time at most the model's best N (default 16; 4 when\n"
"                     starting from a similar graph's record entry)\n"
"  --kernel K         the kernel (default: the only one of FILE)\n"
"  --sms N            the GPU's SMs for the model (default 132)\n"
"  --no-record        neither read nor write the tuning record\n"
"  --list             print the tuning record's entries\n"
"  -o FILE            write the schedule to FILE\n";

/* file: the text of the file at "file", a heap string; NULL (said on
 * stderr) when it cannot be read. */
static char *file_text(const char *file)
{
	char *text = NULL;
	size_t tlen = 0;
	FILE *pf = fopen(file, "r");
	FILE *mf = pf ? open_memstream(&text, &tlen) : NULL;
	int ch;
	while (mf && (ch = getc(pf)) != EOF)
		putc(ch, mf);
	if (pf)
		fclose(pf);
	if (!mf || fclose(mf) != 0) {
		fprintf(stderr, "stirc: %s: cannot read\n", file);
		free(text);
		return NULL;
	}
	return text;
}

/* file, k, a, feat, dev, sms, key: the tuning record's key of kernel k
 * of program "file" with matrix "a" at "feat" features (stir_tune_key):
 * on GPU dev, or when NULL the cost model's on "sms" SMs (< 1: 132).  0,
 * or -1 (said on stderr) when "file" cannot be read. */
static int tune_key(const char *file, const stir_kernel *k, const stir_csr *a,
	int64_t feat, stir_device *dev, long sms, stir_tune_entry *key)
{
	char *text = file_text(file);
	stir_tune_options opt = { .feat = feat, .sms = (int)sms,
		.program_text = text };
	int rc = text ? stir_tune_key(k, a, &opt, dev, key) : -1;
	free(text);
	return rc;
}

/* ctx, o, k, a, feat, cand, how, len: the schedule file of stirc run
 * without --schedule for stage I kernel k (a recipe covers it) with
 * matrix a at feat features, a heap string of *len bytes, its candidate
 * in *cand and where it came from in how[160]: with --tune, stir_tune's
 * (with cuda the measured search, else the model's pick, through the
 * record); else the record's entry for this GPU's measured search or the
 * model's, else the model's pick.  NULL with diagnostics. */
static char *run_schedule_text(stir_ctx *ctx, const options *o,
	const stir_kernel *k, const stir_csr *a, int64_t feat, int *cand,
	char how[160], size_t *len)
{
	char *text = NULL;
	if (o->tune) {
		char *prog = file_text(o->file);
		stir_tune_options opt = { .feat = feat, .model_only = !use_cuda(o),
			.budget_s = o->budget_s, .program_text = prog,
			.program_file = o->file,
			.matrix_name = o->mtx[0].name };
		stir_tune_result r;
		if (prog && stir_tune(ctx, k, a, &opt, &r) == 0) {
			tune_report("run", &r, opt.model_only, opt.budget_s > 0 ?
				opt.budget_s : STIR_TUNE_BUDGET_S);
			text = r.schedule;
			*len = r.schedule_len;
			r.schedule = NULL;
			*cand = r.cand;
			if (r.from == STIR_TUNE_FROM_RECORD)
				snprintf(how, 160, "from the tuning record, %s",
					r.time_ms >= 0 ? "measured" : "the cost model's pick");
			else if (r.from == STIR_TUNE_FROM_SEARCH)
				snprintf(how, 160, "tuned: the fastest of %d measured, "
					"%.4f ms", r.n_timed, r.time_ms);
			else
				snprintf(how, 160, "tuned: the cost model's pick");
			stir_tune_result_clear(&r);
		}
		free(prog);
		return text;
	}
	/* the GPU's name, for its entries; its diagnostics (none there)
	 * are cmd_run's to give */
	stir_ctx *dctx = stir_ctx_alloc();
	stir_device *dev = dctx ? stir_device_alloc(dctx, 0) : NULL;
	stir_tune_entry key, e;
	int hit = 0;
	if (dev && tune_key(o->file, k, a, feat, dev, 0, &key) == 0)
		hit = stir_tune_record_find(ctx, NULL, &key, 0, &e) == 1;
	if (!hit && tune_key(o->file, k, a, feat, NULL, 0, &key) == 0)
		hit = stir_tune_record_find(ctx, NULL, &key, 0, &e) == 1;
	stir_device_free(dev);
	stir_ctx_free(dctx);
	stir_module *cm = NULL;
	stir_kernel *c = stir_kernel_copy(k, &cm);
	*cand = hit ? e.cand : -1;
	if (c && (hit ? stir_tune_apply_candidate(c, feat, *cand) :
	    stir_tune_model_apply(c, a, feat, 0, cand, NULL)) == 0)
		text = stir_kernel_schedule_to_str(c, len);
	stir_module_free(cm);
	if (hit && e.time_ms >= 0)
		snprintf(how, 160, "from the tuning record, measured %.4f ms on "
			"%s", e.time_ms, e.device);
	else
		snprintf(how, 160, "%sthe cost model's pick", hit ? "from the "
			"tuning record, " : "");
	return text;
}

/* ctx, o, m, s, k: for --backend cuda without --schedule, or --tune,
 * when a recipe covers kernel *k of m and --mtx and --size feat=F give
 * its matrix and features: the schedule run_schedule_text chooses into
 * *s, with *k its kernel of m; what was taken is said on stderr.  0
 * (nothing done for a kernel no recipe covers, without --tune), or
 * EXIT_WRONG with diagnostics (EXIT_USAGE when --tune lacks --mtx or
 * --size feat=F). */
static int tuned_schedule(stir_ctx *ctx, const options *o,
	const stir_module *m, stir_schedule **s, stir_kernel **k)
{
	int64_t feat = -1;
	for (int i = 0; i < o->n_sizes; i++)
		if (!strcmp(o->sizes[i].name, "feat"))
			parse_int(o->sizes[i].value, &feat);
	bool covered = stir_tune_recipe_of(*k) != STIR_TUNE_NONE;
	if (o->tune && (o->n_mtx != 1 || feat < 1))
		return usage_error("run ", "%s", "--tune needs the matrix "
			"(--mtx, once) and --size feat=F");
	if (o->tune && !covered) {
		fprintf(stderr, "stirc run: --tune: no recipe covers kernel '%s' "
			"(the tuner knows csrmm of examples/csrmm.stir, sddmm of "
			"examples/sddmm.stir and sddmm_rows of "
			"examples/sddmm_rows.stir)\n", stir_kernel_get_name(*k));
		return EXIT_WRONG;
	}
	if (!covered || o->n_mtx != 1 || feat < 1)
		return 0;
	stir_csr *a = stir_kernel_read_csr_from_file(*k, o->mtx[0].name,
		o->mtx[0].value);
	if (!a) {
		note_option(ctx, "--mtx", &o->mtx[0]);
		return EXIT_WRONG;
	}
	const char *name = stir_kernel_get_name(*k);
	char how[160];
	int cand = -1, rc = 0;
	size_t len = 0;
	char *text = run_schedule_text(ctx, o, *k, a, feat, &cand, how, &len);
	if (!text)
		rc = EXIT_WRONG;
	if (rc == 0 && !(*s = stir_schedule_read_from_mem(ctx,
	    "(tuned schedule)", text, len)))
		rc = EXIT_WRONG;
	if (rc == 0 && !(*k = stir_schedule_find_kernel(*s, m)))
		rc = EXIT_WRONG;
	if (rc == 0)
		fprintf(stderr, "stirc run: kernel %s at %lld features under the "
			"recipe's candidate %d (%s; %s)\n", name, (long long)feat,
			cand, how, o->tune ? "'stirc tune --list' shows the record" :
			"'stirc tune' measures, --schedule chooses another");
	free(text);
	stir_csr_free(a);
	return rc;
}

/* cmd, r, model_only, budget_s: say on stderr, as "stirc CMD:", how
 * stir_tune's search went (before the line of what it chose). */
static void tune_report(const char *cmd, const stir_tune_result *r,
	bool model_only, double budget_s)
{
	if (r->similar && model_only)
		fprintf(stderr, "stirc %s: the record holds a similar graph's "
			"entry (candidate %d, %s); without a GPU the model "
			"decides\n", cmd, r->similar_entry.cand, r->similar_entry.how);
	if (r->from != STIR_TUNE_FROM_SEARCH)
		return;
	if (r->similar)
		fprintf(stderr, "stirc %s: starting from a similar graph's "
			"entry (candidate %d)\n", cmd, r->similar_entry.cand);
	for (int i = 0; i < r->n_timed; i++)
		fprintf(stderr, "stirc %s: candidate %d: %.4f ms\n",
			cmd, r->timed_cand[i], r->timed_ms[i]);
	if (r->n_timed < r->n_compiled)
		fprintf(stderr, "stirc %s: the budget of %g s ran out after %d "
			"of %d candidates\n", cmd, budget_s, r->n_timed, r->n_compiled);
}

/* k, a, feat, sms: for an SDDMM kernel, say on stderr when the cost model
 * ranks a candidate of the other SDDMM program first for matrix "a" (a
 * program covers only its own candidates: the fused ones sddmm.stir, the
 * row ones sddmm_rows.stir), so that the user tunes that one too. */
static void sddmm_other_program(const stir_kernel *k, const stir_csr *a,
	int64_t feat, int sms)
{
	stir_tune_recipe r = stir_tune_recipe_of(k);
	if (r != STIR_TUNE_SDDMM && r != STIR_TUNE_SDDMM_ROWS)
		return;
	int n = stir_sddmm_n_candidates();
	int *order = malloc((size_t)n * sizeof(*order));
	double *costs = malloc((size_t)n * sizeof(*costs));
	if (order && costs && stir_sddmm_model_rank(a, feat, sms, order,
	    costs) > 0) {
		const stir_sddmm_params *best = stir_sddmm_get_candidate(order[0]);
		int i = 1;
		while (i < n && stir_sddmm_get_candidate(order[i])->rows ==
		       best->rows)
			i++;
		if (best->rows != (r == STIR_TUNE_SDDMM_ROWS) && i < n)
			fprintf(stderr, "stirc tune: note: the cost model ranks the "
				"%s schedule first for this matrix (candidate %d of "
				"examples/%s, cost %.4g; this program's best %.4g): "
				"tune that program too\n", best->rows ? "row" : "fused",
				order[0], best->rows ? "sddmm_rows.stir" : "sddmm.stir",
				costs[0], costs[i]);
	}
	free(order);
	free(costs);
}

/* argc, argv: "stirc tune" and its arguments (argv[0] is "tune"). */
static int cmd_tune(int argc, char **argv)
{
	const char *file = NULL, *mtx = NULL, *kname = NULL, *out = NULL;
	char mname[64] = "";
	int64_t feat = -1;
	long sms = 0, top = STIR_TUNE_TOP;
	double budget_s = STIR_TUNE_BUDGET_S;
	bool model_only = false, list = false, no_record = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_tune, stdout);
			return 0;
		} else if (!strcmp(a, "--model-only")) {
			model_only = true;
		} else if (!strcmp(a, "--list")) {
			list = true;
		} else if (!strcmp(a, "--no-record")) {
			no_record = true;
		} else if (!strcmp(a, "--mtx") || !strcmp(a, "--size") ||
			   !strcmp(a, "--kernel") || !strcmp(a, "--sms") ||
			   !strcmp(a, "--budget-s") || !strcmp(a, "--top") ||
			   !strcmp(a, "-o")) {
			if (!has)
				return usage_error("tune ", "%s needs a value", a);
			const char *v = argv[++i];
			char *end;
			if (!strcmp(a, "--mtx")) {
				const char *eq = strchr(v, '=');
				if (mtx || !eq || eq == v || !eq[1] ||
				    eq - v >= (ptrdiff_t)sizeof(mname))
					return usage_error("tune ", mtx ? "--mtx is given "
						"twice" : "--mtx takes NAME=FILE, not '%s'", v);
				mtx = eq + 1;
				memcpy(mname, v, (size_t)(eq - v));
			} else if (!strcmp(a, "--size")) {
				errno = 0;
				long long f = strncmp(v, "feat=", 5) ? -1 :
					strtoll(v + 5, &end, 10);
				if (feat >= 0 || f < 1 || errno || *end)
					return usage_error("tune ", feat >= 0 ? "--size is "
						"given twice" : "--size takes feat=F with F >= 1, "
						"not '%s'", v);
				feat = f;
			} else if (!strcmp(a, "--sms")) {
				errno = 0;
				sms = strtol(v, &end, 10);
				if (sms < 1 || sms > 100000 || errno || *end)
					return usage_error("tune ", "--sms takes a count of "
						"SMs, not '%s'", v);
			} else if (!strcmp(a, "--budget-s")) {
				errno = 0;
				budget_s = strtod(v, &end);
				if (!(budget_s > 0 && budget_s <= 86400) || errno || *end)
					return usage_error("tune ", "--budget-s takes seconds "
						"(> 0), not '%s'", v);
			} else if (!strcmp(a, "--top")) {
				errno = 0;
				top = strtol(v, &end, 10);
				if (top < 1 || top > 1000 || errno || *end)
					return usage_error("tune ", "--top takes a count of "
						"candidates (>= 1), not '%s'", v);
			} else if (!strcmp(a, "--kernel")) {
				kname = v;
			} else {
				out = v;
			}
		} else if (a[0] == '-') {
			return usage_error("tune ", "unknown option '%s'", a);
		} else if (file) {
			return usage_error("tune ", "unexpected argument '%s'", a);
		} else {
			file = a;
		}
	}
	if (list) {
		if (file || mtx || feat >= 0)
			return usage_error("tune ", "%s", "--list takes no program, "
				"--mtx or --size");
		stir_ctx *lctx = stir_ctx_alloc();
		int lrc = lctx && stir_tune_record_list(lctx, NULL, stdout) == 0 ?
			0 : EXIT_WRONG;
		if (lctx)
			lrc = finish(lctx, lrc);
		stir_ctx_free(lctx);
		return lrc;
	}
	if (!file)
		return usage_error("tune ", "%s", "no program given");
	if (!mtx || feat < 0)
		return usage_error("tune ", "%s", "--mtx NAME=FILE and --size "
			"feat=F are required");
	stir_ctx *ctx = stir_ctx_alloc();
	if (!ctx)
		return EXIT_WRONG;
	stir_module *m = stir_module_read_from_file(ctx, file);
	stir_kernel *k = NULL;
	stir_csr *a = NULL;
	int rc = m ? 0 : EXIT_WRONG;
	if (rc == 0) {
		options o = { .kernel = kname };
		rc = select_kernel(m, &o, true, &k);
	}
	if (rc == 0 && stir_tune_recipe_of(k) == STIR_TUNE_NONE) {
		fprintf(stderr, "stirc tune: %s: no recipe covers kernel '%s' "
			"(the tuner knows csrmm of examples/csrmm.stir, sddmm of "
			"examples/sddmm.stir and sddmm_rows of "
			"examples/sddmm_rows.stir)\n", file, stir_kernel_get_name(k));
		rc = EXIT_WRONG;
	}
	if (rc == 0 && !(a = stir_mtx_read_from_file(ctx, mtx)))
		rc = EXIT_WRONG;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char *text = rc == 0 ? file_text(file) : NULL;
	if (rc == 0 && !text)
		rc = EXIT_WRONG;
	stir_tune_options opt = { .feat = feat, .model_only = model_only,
		.no_record = no_record, .budget_s = budget_s, .top = (int)top,
		.sms = (int)sms, .program_text = text, .program_file = file,
		.matrix_name = mname };
	stir_tune_result r = { 0 };
	if (rc == 0 && stir_tune(ctx, k, a, &opt, &r) < 0)
		rc = EXIT_WRONG;
	free(text);
	if (rc == 0)
		tune_report("tune", &r, model_only, budget_s);
	if (rc == 0) {
		FILE *f = out ? fopen(out, "w") : stdout;
		if (!f || fwrite(r.schedule, 1, r.schedule_len, f) !=
		    r.schedule_len || (out && fclose(f) != 0)) {
			fprintf(stderr, "stirc tune: %s: %s\n", out ? out : "stdout",
				strerror(errno));
			rc = EXIT_WRONG;
		} else {
			char how[64];
			if (r.time_ms >= 0)
				snprintf(how, sizeof(how), "the fastest measured, %.4f "
					"ms", r.time_ms);
			else
				snprintf(how, sizeof(how), "not measured");
			fprintf(stderr, "stirc tune: kernel %s at %lld features: "
				"candidate %d, %s%s (cost %.4g; %s; %.2f s)%s%s\n",
				stir_kernel_get_name(k), (long long)feat, r.cand,
				r.from == STIR_TUNE_FROM_RECORD ?
				"from the tuning record: " : "",
				r.time_ms >= 0 ? "measured" : "the cost model's pick",
				r.cost, how, elapsed_ms(&t0) * 1e-3,
				out ? ", written to " : "", out ? out : "");
			sddmm_other_program(k, a, feat, (int)sms);
		}
	}
	stir_tune_result_clear(&r);
	rc = finish(ctx, rc);
	stir_csr_free(a);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}

/* argc, argv: the whole command line (tools/stirc.h). */
int stirc_main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error(NULL, "%s", "no command given");
	const char *cmd = argv[1];
	bool alone = !strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
		!strcmp(cmd, "--version");
	if (alone && argc > 2)
		return usage_error(NULL, "unexpected argument '%s' after %s",
			argv[2], cmd);
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("stirc (stir) %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(cmd, "print"))
		return cmd_print(argc - 1, argv + 1);
	if (!strcmp(cmd, "cuda"))
		return cmd_cuda(argc - 1, argv + 1);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "verify"))
		return cmd_verify(argc - 1, argv + 1);
	if (!strcmp(cmd, "tune"))
		return cmd_tune(argc - 1, argv + 1);
	return usage_error(NULL, "unknown command '%s'", cmd);
}
