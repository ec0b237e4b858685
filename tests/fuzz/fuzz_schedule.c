/* A libFuzzer harness for schedule files (docs/schedules.md, "Schedule
 * files").
 *
 * Every input is read as a YAML schedule; one that reads is applied to
 * the kernel it names among all the kernels of the catalogue
 * (the .stir files of examples/, read once at start from FUZZ_EXAMPLES_DIR, or from
 * the folder in $FUZZ_EXAMPLES; an unknown name is an error), once up to
 * stage II and once up to stage III, each on its own copy of the
 * catalogue.  Every input must read or fail with at least one error,
 * apply or fail with at least one error, never a sanitizer report; a
 * kernel a schedule leaves verifies, prints, and its module's text reads
 * back and prints as the same text.  Then, as `stirc verify --schedule`
 * does, the unscheduled stage I kernel is bound to random inputs (the
 * sizes the schedule specializes first, the formats its decompose steps
 * make last), run, and the scheduled stage II and III kernels must give
 * the same tensors on the same inputs, within stirc verify's tolerance.
 * Inputs that specialize a size beyond MAX_SIZE, or sizes with which the
 * kernel's arrays or work are large (fuzz_kernel_is_small), are not run.  With FUZZ_SCHEDULE_TRACE set in the environment, each
 * comparison that passes is said on stderr.  `make fuzz` builds and runs it with the catalogue's schedule
 * files as seeds (see docs/fuzzing.md). */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>
#include "ir/nodes.h"
#include "tests/fuzz/fuzz_lang_check.h"

#ifndef FUZZ_EXAMPLES_DIR
#define FUZZ_EXAMPLES_DIR "examples"
#endif

/* The largest size a schedule may specialize for the kernels to run. */
#define MAX_SIZE 64

/* The largest size the random binder draws for a parameter left unbound
 * (an estimate for fuzz_kernel_is_small). */
#define RANDOM_SIZE_MAX 10

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* The programs of the catalogue, one after the other; a program that
 * names a kernel an earlier one names is left out (add_program), so
 * kernel names are unique across it. */
static char *programs;
static size_t programs_len;

/* path: the contents of the file "path" (NUL-terminated, its length in
 * *len); exits when it cannot be read (the harness cannot run without
 * its programs). */
static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(1);
	}
	char *text = NULL, buf[4096];
	size_t n, have = 0;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		text = realloc(text, have + n + 1);
		if (!text)
			exit(1);
		memcpy(text + have, buf, n);
		have += n;
	}
	fclose(f);
	if (!text && !(text = malloc(1)))
		exit(1);
	text[have] = '\0';
	*len = have;
	return text;
}

/* path: append the program in the file "path" to "programs", unless a
 * kernel of it has the name of a kernel already there (two examples may
 * define variants under one name, e.g. sddmm_vb4.stir and
 * sddmm_vb8.stir): that program is left out, saying so on stderr. */
static void add_program(const char *path)
{
	size_t n;
	char *text = read_whole(path, &n);
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_mem(ctx, path, text, n);
	stir_module *all = programs ? stir_module_read_from_mem(ctx,
		"programs.stir", programs, programs_len) : NULL;
	int clash = 0;
	for (int i = 0; m && all && i < stir_module_n_kernels(m); i++)
		if (stir_module_find_kernel(all, stir_kernel_get_name(
			stir_module_get_kernel(m, i))))
			clash = 1;
	if (clash)
		fprintf(stderr, "fuzz_schedule: %s left out of the catalogue "
			"(a kernel name of it is taken)\n", path);
	else {
		programs = realloc(programs, programs_len + n + 2);
		if (!programs)
			exit(1);
		memcpy(programs + programs_len, text, n);
		programs_len += n;
		programs[programs_len++] = '\n';
		programs[programs_len] = '\0';
	}
	stir_module_free(all);
	stir_module_free(m);
	stir_ctx_free(ctx);
	free(text);
}

/* a, b: two names for qsort. */
static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* argc, argv: read the catalogue's programs, in the order of their names. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *dir = getenv("FUZZ_EXAMPLES");
	dir = dir ? dir : FUZZ_EXAMPLES_DIR;
	DIR *d = opendir(dir);
	if (!d) {
		perror(dir);
		exit(1);
	}
	char **names = NULL;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".stir"))
			continue;
		names = realloc(names, (size_t)(n + 1) * sizeof(*names));
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(*names), name_cmp);
	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		add_program(path);
		free(names[i]);
	}
	free(names);
	if (!programs) {
		fprintf(stderr, "fuzz_schedule: no programs in %s\n", dir);
		exit(1);
	}
	return 0;
}

/* A failed property: say what, with the diagnostics of ctx, and stop the
 * fuzzer (the trap is the harness's; the library never aborts). */
static void fail(const stir_ctx *ctx, const char *what)
{
	fprintf(stderr, "fuzz_schedule: %s\n", what);
	if (ctx)
		stir_ctx_print_diagnostics(ctx, stderr);
	__builtin_trap();
}

/* ctx: the catalogue, read into ctx (it is valid). */
static stir_module *read_programs(stir_ctx *ctx)
{
	stir_module *m = stir_module_read_from_mem(ctx, "programs.stir",
		programs, programs_len);
	if (!m)
		fail(ctx, "the catalogue does not read");
	return m;
}

/* m: its text must read back as an equal module that prints the same. */
static void check_round_trip(const stir_module *m)
{
	char *text = stir_module_to_str(m);
	if (!text)
		fail(NULL, "a scheduled module does not print");
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m2 = stir_module_read_from_mem(ctx, "printed.stir", text,
		strlen(text));
	if (!m2)
		fail(ctx, "a scheduled module's text does not read back");
	char *text2 = stir_module_to_str(m2);
	if (!stir_module_is_equal(m, m2) || !text2 || strcmp(text, text2)) {
		fprintf(stderr, "%s\n", text);
		fail(NULL, "a scheduled module reads back as another");
	}
	free(text);
	free(text2);
	stir_module_free(m2);
	stir_ctx_free(ctx);
}

/* k, by, got, want, what: every tensor of stage I kernel k must be the
 * same in both, "got" computed by kernel "by" (a form of k), within the
 * tolerance of its type as "by" computes it (stir_kernel_get_tolerance: a
 * tensorized kernel's tf32 or f16 products compare at f16's), as stirc
 * verify compares them. */
static void compare(const stir_kernel *k, const stir_kernel *by,
	const stir_bindings *got, const stir_bindings *want, const char *what)
{
	for (int i = 0; i < stir_kernel_n_buffers(k); i++) {
		stir_buffer *buf = stir_kernel_get_buffer(k, i);
		if (stir_buffer_get_kind(buf) != STIR_BUFFER_TENSOR)
			continue;
		const char *name = stir_buffer_get_array_name(buf);
		const stir_array *a = stir_bindings_get_array(got, name);
		const stir_array *r = stir_bindings_get_array(want, name);
		if (!a || !r || stir_array_get_len(a) != stir_array_get_len(r))
			fail(NULL, "a scheduled kernel lost a tensor");
		int64_t j;
		double tol = stir_kernel_get_tolerance(by, stir_array_get_dtype(r));
		if (stir_array_compare_within(a, r, tol, &j, NULL) > 0) {
			fprintf(stderr, "fuzz_schedule: kernel '%s': %s gives "
				"%s[%lld] = %.9g, stage I %.9g\n",
				stir_kernel_get_name(k), what, name, (long long)j,
				stir_array_get_double(a, j), stir_array_get_double(r, j));
			__builtin_trap();
		}
	}
}

/* data, len: FNV-1a over the input: the seed of the random inputs. */
static uint64_t hash_input(const uint8_t *data, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h;
}

/* s, k, kn, seed: stirc verify's comparison for one seed: random inputs
 * bound to stage I kernel k (sizes s specializes first, formats it
 * decomposes into last), k run on them, and each scheduled kernel kn[i]
 * (NULL: none) on a copy, which must agree. */
static void run_and_compare(const stir_schedule *s, stir_kernel *k,
	stir_kernel *const *kn, uint64_t seed)
{
	static const char *const what[] = { "stage II", "stage III" };
	stir_ctx *ctx = stir_kernel_ctx(k);
	stir_bindings *in = stir_bindings_alloc(), *want = NULL;
	if (!in)
		return;
	int errors = stir_ctx_n_errors(ctx);
	if (stir_schedule_bind_sizes(s, in) < 0)
		goto out;
	for (int i = 0; i < stir_bindings_n_sizes(in); i++) {
		int64_t v;
		stir_bindings_get_size(in, stir_bindings_get_size_name(in, i), &v);
		if (v > MAX_SIZE) {
			stir_bindings_free(in);
			return;
		}
	}
	/* a schedule that specializes large sizes (64 input and output
	 * features of RGMS: seconds of interpretation) is applied, not run;
	 * the sizes it leaves are estimated at the random binder's largest */
	stir_bindings *est = stir_bindings_copy(in);
	for (int i = 0; est && i < k->params.n; i++) {
		const char *name = stir_var_at(&k->params, i)->name;
		int64_t v;
		if (!stir_bindings_get_size(est, name, &v))
			stir_bindings_set_size(est, name, RANDOM_SIZE_MAX);
	}
	bool small = est && fuzz_kernel_is_small(k, est);
	stir_bindings_free(est);
	if (!small) {
		stir_bindings_free(in);
		return;
	}
	if (stir_kernel_bind_random(k, in, seed) < 0 ||
	    stir_schedule_bind_formats(s, k, in) < 0 ||
	    !(want = stir_bindings_copy(in)) ||
	    stir_kernel_interpret(k, want) < 0)
		goto out;
	for (int i = 0; i < 2; i++) {
		if (!kn[i])
			continue;
		stir_bindings *got = stir_bindings_copy(in);
		if (!got)
			goto out;
		if (stir_kernel_interpret(kn[i], got) < 0) {
			fprintf(stderr, "fuzz_schedule: the %s interpreter fails "
				"where stage I's works\n", what[i]);
			fail(stir_kernel_ctx(kn[i]), "");
		}
		compare(k, kn[i], got, want, what[i]);
		if (getenv("FUZZ_SCHEDULE_TRACE"))
			fprintf(stderr, "kernel '%s': %s agrees with stage I\n",
				stir_kernel_get_name(k), what[i]);
		stir_bindings_free(got);
	}
out:
	if (!want && stir_ctx_n_errors(ctx) == errors)
		fail(ctx, "binding failed without an error");
	stir_bindings_free(in);
	stir_bindings_free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	stir_ctx *ctx = stir_ctx_alloc();
	if (!ctx)
		return 0;
	stir_schedule *s = stir_schedule_read_from_mem(ctx, "fuzz.yaml",
		(const char *)data, len);
	if (!s) {
		if (stir_ctx_n_errors(ctx) < 1)
			fail(ctx, "a refusal without an error");
		stir_ctx_free(ctx);
		return 0;
	}
	/* m[0]: stage I, as written; m[1] and m[2]: scheduled up to stages
	 * II and III, each in its own context */
	stir_ctx *sctx[2] = { stir_ctx_alloc(), stir_ctx_alloc() };
	stir_module *m[3] = { read_programs(ctx), read_programs(sctx[0]),
		read_programs(sctx[1]) };
	stir_kernel *k = stir_schedule_find_kernel(s, m[0]);
	stir_kernel *kn[2] = { NULL, NULL };
	if (!k && stir_ctx_n_errors(ctx) < 1)
		fail(ctx, "an unknown kernel without an error");
	for (int i = 0; k && i < 2; i++) {
		stir_kernel *ki = stir_module_find_kernel(m[i + 1],
			stir_kernel_get_name(k));
		int errors = stir_ctx_n_errors(sctx[i]);
		if (stir_schedule_apply(s, ki, (stir_stage)(i + 2)) == 0) {
			/* a schedule that applies leaves a valid kernel, which
			 * prints and reads back */
			if (stir_kernel_verify(ki) < 0)
				fail(sctx[i], "a scheduled kernel does not verify");
			check_round_trip(m[i + 1]);
			kn[i] = ki;
		} else if (stir_ctx_n_errors(sctx[i]) == errors) {
			fail(sctx[i], "a failure without an error");
		}
	}
	if (kn[0] || kn[1])
		run_and_compare(s, k, kn, hash_input(data, len));
	/* the diagnostics format */
	for (int i = 0; i < 3; i++) {
		char *d = stir_ctx_diagnostics_to_str(i ? sctx[i - 1] : ctx);
		free(d);
	}
	for (int i = 0; i < 3; i++)
		stir_module_free(m[i]);
	stir_schedule_free(s);
	stir_ctx_free(sctx[0]);
	stir_ctx_free(sctx[1]);
	stir_ctx_free(ctx);
	return 0;
}
