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
#include "tools/stirc_cmd.h"

static const char usage_main[] =
"usage: stirc COMMAND FILE [OPTIONS]\n"
"       stirc --help | --version\n"
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
"  recipe  write one candidate of one of the library's recipes for a\n"
"          program as a schedule file\n"
"\n"
"Run 'stirc COMMAND --help' (or -h) for the options of a command;\n"
"'stirc --version' prints the version.\n"
"Exit status: 0 success, 1 the program or the data is wrong, 2 bad usage.\n";

const char usage_check[] =
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
"  -h, --help      show this help\n";

const char usage_print[] =
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
"  -h, --help       show this help\n";

const char usage_cuda[] =
"usage: stirc cuda FILE [--kernel K] [--schedule S.yaml] [--arch sm_XY]\n"
"                  [--min-blocks N] [--compile] [-o OUT.cu]\n"
"\n"
"Print the CUDA C of kernel K (needed when FILE holds several): one\n"
"extern \"C\" __global__ function per top-level statement of the kernel,\n"
"run in order (docs/cuda.md).  A stage I or II program is first lowered to\n"
"stage III, every nest without a thread binding getting the default\n"
"schedule; a stage III program is emitted as it is.\n"
"\n"
"  --kernel K       the kernel to emit\n"
"  --schedule S     apply the schedule file S to its kernel first, up to\n"
"                   its stage3 steps; the default schedule then binds the\n"
"                   nests the steps left unbound\n"
"  --min-blocks N   emit every launch for N thread blocks per\n"
"                   multiprocessor, 1 to 32 (__launch_bounds__(T, N)),\n"
"                   instead of S's min_blocks_per_sm\n"
"  --compile        also compile the CUDA C with NVRTC (no GPU needed)\n"
"                   and report NVRTC's diagnostics; exit 1 when it fails\n"
"  --arch A         with --compile: the architecture (default sm_90)\n"
"  -o OUT.cu        write the CUDA C to OUT.cu instead of the standard\n"
"                   output (not FILE or S)\n"
"  -h, --help       show this help\n";

const char usage_run[] =
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
"                      model's pick without measuring, and the RGMS\n"
"                      programs (rgms_agg, rgms_edge; --hetero, fin = fout)\n"
"                      under their CUDA-core recipe's candidate\n"
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
"  -h, --help          show this help\n"
"\n"
"Tensors the kernel writes that nothing binds start as zeros.  Without\n"
"--out, a summary of every tensor is printed.  The inputs are checked\n"
"(docs/language.md section 5) before anything is compiled or runs, on\n"
"either backend.\n";

const char usage_verify[] =
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
"  -h, --help        show this help\n";

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

/* cmd, fmt: print usage error fmt and the hint (tools/stirc_cmd.h). */
int usage_error(const char *cmd, const char *fmt, ...)
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
int parse_int(const char *s, int64_t *v)
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
int parse_options(const char *cmd, const char *help, int argc,
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
	while ((c = getopt_long(argc, argv, ":o:h", all_options, NULL)) != -1) {
		if (c == 'o')
			c = OPT_OUTPUT;
		if (c == 'h')
			c = OPT_HELP;
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
int finish(stir_ctx *ctx, int rc)
{
	stir_ctx_print_diagnostics(ctx, stderr);
	if (rc == 0 && stir_ctx_n_errors(ctx))
		rc = EXIT_WRONG;
	return rc;
}

/* m, o, need_one, k: select the kernel of m that o names (or the only
 * kernel when o names none and "need_one" is set) into *k.  Returns 0,
 * EXIT_WRONG or EXIT_USAGE. */
int select_kernel(const stir_module *m, const options *o, bool need_one,
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
int module_stage(const stir_module *m)
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
stir_module *read_at_stage(stir_ctx *ctx, const options *o, int stage,
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
int load_schedule(stir_ctx *ctx, const options *o, const stir_module *m,
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
stir_stage schedule_stage(const options *o, const stir_schedule *s,
	const stir_kernel *k)
{
	stir_stage last = stir_schedule_get_last_stage(s);
	if (o->stage)
		return (stir_stage)o->stage;
	return stir_kernel_get_stage(k) > last ? stir_kernel_get_stage(k) : last;
}

/* ---- stirc tune's help (the command: tools/stirc_tune.c) ---- */

const char usage_tune[] =
"usage: stirc tune FILE --mtx NAME=G.mtx[.gz] --size feat=F [--model-only]\n"
"                  [--budget-s S] [--top N] [--kernel K] [--sms N]\n"
"                  [--no-record] [-o SCHEDULE.yaml]\n"
"       stirc tune FILE --hetero NAME=G.hetero[.gz] --size feat=F [--tf32]\n"
"                  [--model-only] [--budget-s S] [--top N] [--kernel K]\n"
"                  [--no-record] [-o SCHEDULE.yaml]\n"
"       stirc tune --list\n"
"\n"
"Pick the schedule of a program that a recipe covers (csrmm of\n"
"examples/csrmm.stir: the hybrid SpMM; sddmm of examples/sddmm.stir and\n"
"sddmm_rows of examples/sddmm_rows.stir: the SDDMM; bsrmm of\n"
"examples/bsrmm.stir, bench/bsrmm32.stir and bsrmm64.stir: BSR SpMM on\n"
"tensor cores, the matrix in blocks of 16, 32 or 64; rgms_agg of\n"
"examples/rgms_agg.stir and rgms_edge of examples/rgms_edge.stir: RGMS) for\n"
"matrix G (A of the SpMM and BSR, S of the SDDMM) or relational graph G (A\n"
"of RGMS, fin = fout = F) at F features, and write it as a schedule file\n"
"(stdout without -o) that 'stirc run|cuda --schedule' applies.  What was\n"
"chosen, and why, goes to stderr.\n"
"\n"
"  --mtx NAME=FILE    the sparse matrix (Matrix Market, gzip or not)\n"
"  --hetero NAME=FILE the relational graph (the shared .hetero format)\n"
"  --size feat=F      the feature size (F >= 1)\n"
"  --tf32             rgms_agg: the tensor-core candidates too, which round\n"
"                     X and W to tf32 (10-bit mantissa); default f32 only\n"
"  --model-only       the cost model's pick (RGMS: its rules'), without a\n"
"                     GPU; otherwise the model's best candidates are\n"
"                     compiled at once and timed on the GPU as the\n"
"                     benchmarks time them\n"
"  --budget-s S       stop timing after S seconds (default 20)\n"
"  --top N            time at most the model's best N (default 24 for the\n"
"                     SpMM, 16 for the others; 4 when starting from a\n"
"                     similar graph's record entry)\n"
"  --kernel K         the kernel (default: the only one of FILE)\n"
"  --sms N            the GPU's SMs for the model (default 132)\n"
"  --no-record        neither read nor write the tuning record\n"
"  --list             print the tuning record's entries\n"
"  -o FILE            write the schedule to FILE\n"
"  -h, --help         show this help\n";

/* ---- stirc recipe's help (the command: tools/stirc_recipe.c) ---- */

const char usage_recipe[] =
"usage: stirc recipe FILE --recipe NAME --candidate I --size feat=F\n"
"                    [--kernel K] [-o SCHEDULE.yaml]\n"
"       stirc recipe FILE --recipe rgms_tc --hetero G.hetero --size feat=F\n"
"                    [-o SCHEDULE.yaml]\n"
"       stirc recipe --list\n"
"\n"
"Apply candidate I of the library's recipe NAME to the kernel of FILE at F\n"
"features and write what it did as a schedule file (stdout without -o)\n"
"that 'stirc run|cuda --schedule' applies to FILE: the recipes' fast\n"
"schedules for a program, without tuning (docs/recipes.md).\n"
"\n"
"  --recipe NAME      the recipe (--list names them, with their programs)\n"
"  --candidate I      the candidate's index (0 to the recipe's count - 1)\n"
"  --hetero G         instead of --candidate, the candidate the recipe's\n"
"                     rule picks for relational graph G (rgms_tc: its\n"
"                     pieces; the pick is said on stderr)\n"
"  --size feat=F      the feature size (F >= 1; RGMS: fin = fout = F)\n"
"  --kernel K         the kernel (default: the only one of FILE)\n"
"  --list             print the recipes, their candidates and programs\n"
"  -o FILE            write the schedule to FILE\n"
"  -h, --help         show this help\n";

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
	if (!strcmp(cmd, "recipe"))
		return cmd_recipe(argc - 1, argv + 1);
	return usage_error(NULL, "unknown command '%s'", cmd);
}
