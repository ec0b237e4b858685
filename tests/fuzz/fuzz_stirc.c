/* A libFuzzer harness for stirc's command line and the binding of its
 * inputs: tools/stirc.c's stirc_main() run in process.
 *
 * An input is an argument vector and small files:
 *
 *   ARG                  one argument per line, up to the first line
 *   ARG                  that starts with "== " (argv[0] is "stirc")
 *   == NAME              then files: "== NAME" starts file NAME, which
 *   CONTENT              holds every byte up to the next "\n== " line
 *   == NAME              (NAME: letters, digits, '.', '_', '-')
 *   CONTENT
 *
 * The harness runs in a scratch folder of its own (made at start under
 * $TMPDIR), where it writes the files before each run, next to ex/, a copy
 * of the catalogue (the .stir and .yaml files of examples/) rewritten before each run.
 * Arguments that could reach outside the folder (a '/' other than the
 * "ex/" prefix, "..") make the input uninteresting, as do inputs whose run
 * would be large: --seeds beyond 4, --compile (NVRTC), and run or verify
 * of a program some kernel of which, bound with the --size values and
 * random sizes (at most 10), has large arrays or work
 * (fuzz_kernel_is_small), or with a Matrix Market file declaring more than
 * 10 rows or columns.
 *
 * Property: stirc_main returns 0, 1 or 2 (the documented exit statuses),
 * not 0 when two outputs name one file or an output names an input;
 * no sanitizer report, no hang; afterwards the folder holds the input
 * files unchanged and no file besides those an argument names (-o FILE,
 * --out ARRAY=FILE).  Standard output goes to /dev/null; `make fuzz`
 * passes -close_fd_mask=2 for standard error.  `make fuzz` builds and
 * runs it (see docs/fuzzing.md). */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stir/stir.h>
#include "tests/fuzz/fuzz_lang_check.h"
#include "tools/stirc.h"

#ifndef FUZZ_EXAMPLES_DIR
#define FUZZ_EXAMPLES_DIR "examples"
#endif

#define MAX_ARGS 32
#define MAX_FILES 6
#define MAX_NAME 32
/* Rows and columns a Matrix Market file may declare for run and verify. */
#define MAX_MTX_DIM 10

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* One file of the catalogue copy or of an input. */
typedef struct file {
	char name[MAX_NAME + 8];   /* relative to the scratch folder */
	const uint8_t *data;
	size_t len;
} file;

/* The catalogue (ex/NAME), kept in memory to be rewritten. */
static file examples[64];
static int n_examples;

/* Where the harness reports a failure: standard error as it was at start
 * (libFuzzer's -close_fd_mask=2, which `make fuzz` passes, closes it for
 * stirc's diagnostics). */
static int report_fd = 2;

/* The folder libFuzzer runs in (where it keeps its corpus and writes
 * what fails) and the scratch folder, where each input runs. */
static int home_fd = -1, scratch_fd = -1;

/* what: a harness failure at start (not a finding). */
static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* name, data, len: write a file (replacing what is there). */
static void write_file(const char *name, const uint8_t *data, size_t len)
{
	FILE *f = fopen(name, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		die(name);
}

/* path, len: the bytes of file "path" (length in *len), or NULL. */
static uint8_t *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *d = NULL;
	size_t cap = 0, n;
	*len = 0;
	do {
		if (*len + 4096 > cap && !(d = realloc(d, cap = 2 * cap + 4096)))
			die("realloc");
		n = fread(d + *len, 1, 4096, f);
		*len += n;
	} while (n > 0);
	fclose(f);
	return d;
}

/* argc, argv: make the scratch folder, go there, copy the catalogue, and
 * send stirc's output to /dev/null. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *src = getenv("FUZZ_EXAMPLES");
	src = src ? src : FUZZ_EXAMPLES_DIR;
	char tmpl[4096];
	snprintf(tmpl, sizeof(tmpl), "%s/fuzz_stirc.XXXXXX",
		getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	DIR *d = opendir(src);
	if (!d)
		die(src);
	if (!mkdtemp(tmpl) || (home_fd = open(".", O_RDONLY)) < 0 ||
	    chdir(tmpl) < 0 || mkdir("ex", 0755) < 0 ||
	    (scratch_fd = open(".", O_RDONLY)) < 0 || fchdir(home_fd) < 0)
		die(tmpl);
	struct dirent *e;
	while ((e = readdir(d)) && n_examples < 64) {
		size_t l = strlen(e->d_name);
		if (l > MAX_NAME || (!(l > 5 && !strcmp(e->d_name + l - 5, ".stir"))
		    && !(l > 5 && !strcmp(e->d_name + l - 5, ".yaml"))))
			continue;
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", src, e->d_name);
		file *f = &examples[n_examples++];
		snprintf(f->name, sizeof(f->name), "ex/%s", e->d_name);
		if (!(f->data = read_whole(path, &f->len)))
			die(path);
	}
	closedir(d);
	int null = open("/dev/null", O_WRONLY);
	if (null < 0 || dup2(null, 1) < 0 || (report_fd = dup(2)) < 0)
		die("/dev/null");
	close(null);
	return 0;
}

/* The decoded input. */
typedef struct input {
	int argc;
	char *argv[MAX_ARGS + 2];
	int n_files;
	file files[MAX_FILES];
	char *buf;                 /* a NUL-terminated copy of the input */
} input;

/* s: whether s is a file name the harness writes. */
static bool good_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > MAX_NAME || s[0] == '.' || !strcmp(s, "ex"))
		return false;   /* ex/ holds the catalogue */
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

/* in, data, len: decode (see above).  False when the input does not
 * decode. */
static bool decode(input *in, const uint8_t *data, size_t len)
{
	memset(in, 0, sizeof(*in));
	if (!(in->buf = malloc(len + 1)))
		return false;
	memcpy(in->buf, data, len);
	in->buf[len] = '\0';
	char *p = in->buf, *end = in->buf + len;
	in->argv[in->argc++] = "stirc";
	/* arguments */
	while (p < end && strncmp(p, "== ", 3)) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *stop = nl ? nl : end;
		*stop = '\0';
		if (in->argc > MAX_ARGS)
			return false;
		in->argv[in->argc++] = p;
		p = nl ? nl + 1 : end;
	}
	/* files */
	while (p < end && in->n_files < MAX_FILES) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return false;
		*nl = '\0';
		file *f = &in->files[in->n_files++];
		if (strlen(p + 3) > MAX_NAME || !good_name(p + 3))
			return false;
		strcpy(f->name, p + 3);
		for (int i = 0; i < in->n_files - 1; i++)
			if (!strcmp(in->files[i].name, f->name))
				return false;
		f->data = (const uint8_t *)nl + 1;
		char *next = memmem(nl + 1, (size_t)(end - nl - 1), "\n== ", 4);
		next = next ? next : end;
		f->len = (size_t)(next - (char *)f->data);
		p = next < end ? next + 1 : end;
	}
	return p >= end;
}

/* s: whether argument s stays inside the scratch folder: no "..", and
 * every '/' ends an "ex" at the start of s or after a '='. */
static bool arg_is_safe(const char *s)
{
	if (strstr(s, ".."))
		return false;
	for (const char *q = strchr(s, '/'); q; q = strchr(q + 1, '/'))
		if (q - s < 2 || strncmp(q - 2, "ex", 2) ||
		    (q - s > 2 && q[-3] != '='))
			return false;
	return true;
}

/* in, i, opt: the value of option argv[i] when it is "opt" or an
 * abbreviation of it of at least one letter (getopt_long takes unique
 * ones; ambiguous ones fail, and counting them errs on the safe side),
 * written "--opt V" or "--opt=V"; else NULL. */
static const char *opt_value(const input *in, int i, const char *opt)
{
	const char *a = in->argv[i], *eq = strchr(a, '=');
	size_t n = eq ? (size_t)(eq - a) : strlen(a);
	if (n < 3 || n > strlen(opt) || strncmp(a, opt, n))
		return NULL;
	if (eq)
		return eq + 1;
	return i + 1 < in->argc ? in->argv[i + 1] : NULL;
}

/* path: whether a Matrix Market file declares at most MAX_MTX_DIM rows
 * and columns (or is not one the size check would get to). */
static bool mtx_is_small(const char *path)
{
	size_t len;
	uint8_t *d = read_whole(path, &len);
	if (!d)
		return true;
	bool small = true;
	if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b) {
		small = false;        /* gzip: not looked into */
	} else {
		char *text = malloc(len + 1);
		memcpy(text, d, len);
		text[len] = '\0';
		char *line = strchr(text, '\n');
		while (line && (line[1] == '%' || line[1] == '\n'))
			line = strchr(line + 1, '\n');
		long long r = 0, c = 0;
		if (line && sscanf(line + 1, "%lld %lld", &r, &c) >= 1)
			small = r >= -1 && r <= MAX_MTX_DIM && c >= -1 &&
				c <= MAX_MTX_DIM;
		free(text);
	}
	free(d);
	return small;
}

/* path, in: whether every kernel of program "path" stays small when bound
 * with the --size values of in and random sizes (fuzz_kernel_is_small). */
static bool program_is_small(const char *path, const input *in)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx, path);
	bool small = true;
	stir_bindings *b = stir_bindings_alloc();
	for (int i = 1; i < in->argc; i++) {
		const char *v = opt_value(in, i, "--size");
		const char *eq = v ? strchr(v, '=') : NULL;
		if (eq) {
			char name[256];
			snprintf(name, sizeof(name), "%.*s", (int)(eq - v), v);
			stir_bindings_set_size(b, name, strtoll(eq + 1, NULL, 10));
		}
	}
	for (int i = 0; m && small && i < stir_module_n_kernels(m); i++)
		small = fuzz_kernel_is_small(stir_module_get_kernel(m, i), b);
	stir_bindings_free(b);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return small;
}

/* in: whether running the input stays small and inside the folder. */
static bool is_runnable(const input *in)
{
	bool runs = in->argc > 1 && (!strcmp(in->argv[1], "run") ||
		!strcmp(in->argv[1], "verify"));
	for (int i = 1; i < in->argc; i++) {
		const char *a = in->argv[i], *v;
		if (!arg_is_safe(a) || !strcmp(a, "--compile"))
			return false;
		if ((v = opt_value(in, i, "--seeds")) && strtoll(v, NULL, 10) > 4)
			return false;
		if (runs && (v = opt_value(in, i, "--mtx")) && strchr(v, '=') &&
		    !mtx_is_small(strchr(v, '=') + 1))
			return false;
		size_t n = strlen(a);
		if (runs && n > 5 && !strcmp(a + n - 5, ".stir") &&
		    !program_is_small(a, in))
			return false;
	}
	return true;
}

/* name, in: whether an argument names "name" as an output: -o FILE,
 * -oFILE, --out ARRAY=FILE. */
static bool is_output(const char *name, const input *in)
{
	for (int i = 1; i < in->argc; i++) {
		const char *a = in->argv[i], *v = opt_value(in, i, "--out");
		if (v && strchr(v, '='))
			v = strchr(v, '=') + 1;
		else if (a[0] == '-' && a[1] == 'o')
			v = a[2] ? a + 2 : i + 1 < in->argc ? in->argv[i + 1] : NULL;
		if (v && !strcmp(v, name))
			return true;
	}
	return false;
}

/* in: whether an argument asks for help (--help, an abbreviation of it,
 * or -h), which stirc answers whatever else the command line says,
 * running and writing nothing. */
static bool asks_help(const input *in)
{
	for (int i = 0; i < in->argc; i++) {
		const char *a = in->argv[i];
		size_t n = strlen(a);  /* getopt_long takes "--he" for "--help" */
		if (!strcmp(a, "-h") || (n >= 3 && !strncmp(a, "--help", n)))
			return true;
	}
	return false;
}

/* name, in: whether an argument other than an output names "name" as a
 * file stirc reads: the program, or the value of --schedule, --in or
 * --mtx (ARRAY=FILE).  A file of the folder that no argument reads may be
 * overwritten by an output, as any existing file may. */
static bool is_read(const char *name, const input *in)
{
	static const char *const reading[] = { "--schedule", "--in", "--mtx" };
	for (int i = 1; i < in->argc; i++) {
		const char *a = in->argv[i];
		bool out_value = (i > 1 && opt_value(in, i - 1, "--out") &&
			!strchr(in->argv[i - 1], '=')) ||
			(i > 1 && !strcmp(in->argv[i - 1], "-o"));
		if (!out_value && !strcmp(a, name))
			return true;
		for (size_t r = 0; r < sizeof(reading) / sizeof(*reading); r++) {
			const char *v = opt_value(in, i, reading[r]);
			if (v && r > 0 && strchr(v, '='))
				v = strchr(v, '=') + 1;
			if (v && !strcmp(v, name))
				return true;
		}
	}
	return false;
}

/* in: whether two output arguments name one file, or an output names a
 * file stirc reads (stirc must refuse both: docs/language.md, "--out"). */
static bool outputs_clash(const input *in)
{
	for (int i = 0; i < in->n_files; i++)
		if (is_output(in->files[i].name, in) &&
		    is_read(in->files[i].name, in))
			return true;
	for (int i = 0; i < n_examples; i++)
		if (is_output(examples[i].name, in) &&
		    is_read(examples[i].name, in))
			return true;
	for (int i = 1; i < in->argc; i++) {
		const char *a = in->argv[i], *v = opt_value(in, i, "--out");
		if (v && strchr(v, '='))
			v = strchr(v, '=') + 1;
		else if (a[0] == '-' && a[1] == 'o')
			v = a[2] ? a + 2 : i + 1 < in->argc ? in->argv[i + 1] : NULL;
		else
			v = NULL;
		/* is_output on a copy without argument i */
		if (v) {
			input rest = *in;
			rest.argv[i] = "";
			if (i + 1 < in->argc && (v == in->argv[i + 1] ||
			    (v > in->argv[i + 1] && v < in->argv[i + 1] +
			    strlen(in->argv[i + 1]) + 1)))
				rest.argv[i + 1] = "";
			if (is_output(v, &rest))
				return true;
		}
	}
	return false;
}

/* f: whether file f is still there with its contents. */
static bool unchanged(const file *f)
{
	size_t len;
	uint8_t *d = read_whole(f->name, &len);
	bool same = d && len == f->len && !memcmp(d, f->data, len);
	free(d);
	return same;
}

/* in: the folder after a run: inputs unchanged (unless named as outputs,
 * which stirc should refuse anyway), no other file but named outputs;
 * every file but ex/ is removed for the next input.  False on a failure
 * (what in *why). */
static bool check_folder(const input *in, char *why, size_t size)
{
	bool ok = true;
	for (int i = 0; i < n_examples && ok; i++)
		if (!unchanged(&examples[i]) && !is_output(examples[i].name, in)) {
			snprintf(why, size, "%s was changed", examples[i].name);
			ok = false;
		}
	for (int i = 0; i < in->n_files && ok; i++)
		if (!unchanged(&in->files[i]) && !is_output(in->files[i].name, in)) {
			snprintf(why, size, "input %s was changed", in->files[i].name);
			ok = false;
		}
	for (int dir = 0; dir < 2; dir++) {
		DIR *d = opendir(dir ? "ex" : ".");
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char name[512];
			snprintf(name, sizeof(name), "%s%s", dir ? "ex/" : "",
				e->d_name);
			if (e->d_name[0] == '.' && (!e->d_name[1] ||
			    !strcmp(e->d_name, "..")))
				continue;
			bool known = !strcmp(name, "ex") || is_output(name, in);
			for (int i = 0; i < in->n_files; i++)
				known |= !strcmp(name, in->files[i].name);
			for (int i = 0; i < n_examples; i++)
				known |= !strcmp(name, examples[i].name);
			if (!known && ok) {
				snprintf(why, size, "stirc wrote %s, which no argument "
					"names", name);
				ok = false;
			}
			if (strcmp(name, "ex"))
				unlink(name);
		}
		if (d)
			closedir(d);
	}
	return ok;
}

/* in: run the decoded input in the scratch folder (see above). */
static void run_input(input *in)
{
	for (int i = 0; i < n_examples; i++)
		write_file(examples[i].name, examples[i].data, examples[i].len);
	for (int i = 0; i < in->n_files; i++)
		write_file(in->files[i].name, in->files[i].data, in->files[i].len);
	if (!is_runnable(in)) {        /* now that the files are there */
		char why[64];
		check_folder(in, why, sizeof(why));
		return;
	}
	/* stirc_main permutes argv (getopt) and writes into its strings
	 * (NAME=VALUE is cut at '='): it gets copies */
	char *argv[MAX_ARGS + 2] = { NULL };
	for (int i = 0; i < in->argc; i++)
		if (!(argv[i] = strdup(in->argv[i])))
			die("strdup");
	optind = 0;                    /* a fresh getopt (glibc) */
	int rc = stirc_main(in->argc, argv);
	for (int i = 0; i < in->argc; i++)
		free(argv[i]);
	fflush(stdout);
	char why[256];
	if (rc == 0 && !asks_help(in) && outputs_clash(in)) {
		dprintf(report_fd, "fuzz_stirc: exit status 0 with two outputs "
			"to one file, or an output over an input\n");
		__builtin_trap();
	}
	if (rc < 0 || rc > 2) {
		dprintf(report_fd, "fuzz_stirc: exit status %d\n", rc);
		__builtin_trap();
	}
	if (!check_folder(in, why, sizeof(why))) {
		dprintf(report_fd, "fuzz_stirc: %s\n", why);
		__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	input in;
	if (decode(&in, data, len) && is_runnable(&in)) {
		if (fchdir(scratch_fd) < 0)
			die("the scratch folder");
		run_input(&in);
		if (fchdir(home_fd) < 0)
			die("the fuzzer's folder");
	}
	free(in.buf);
	return 0;
}
