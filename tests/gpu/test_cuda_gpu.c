/* Generated CUDA on a real GPU: run by `make check-gpu`, never by `make
 * check` (which only builds it).  Exits 77 (skipped) when there is no
 * driver, no device or no NVRTC, 0 when every check passes, 1 otherwise.
 *
 * - every catalogue program (examples/NAME.stir), prepared for the GPU (the
 *   default schedule gives every nest its thread binding),
 * - every catalogue program under each written schedule examples/NAME.yaml
 *   (stir_schedule_prepare_for_gpu; the formats of its decompose steps
 *   built on the host from the random inputs), and
 * - every hand-written stage III program tests/cuda/NAME.stir (kernel
 *   NAME, with NAME_ref, a stage I kernel, giving the data and the
 *   reference)
 * runs on the GPU on seeded random inputs, small and larger, against the
 * stage I interpreter on the same inputs; the arrays the kernel writes
 * start as NaN (floats) or a sentinel (integers) in both runs, so that an
 * element the GPU leaves unwritten shows.  Each kernel is compiled twice:
 * the second compilation must come from the cache (NVRTC does not run).
 * One launch sequence of each is also timed with the L2 flushed.  Then
 * illegal schedules must be refused, with their diagnostics, before
 * anything is compiled.
 *
 * It links the shared library, so that it uses stir_default_schedule once
 * the library has one; it does not use the `check` framework, so that the
 * binary built on a machine without a GPU runs on one without it. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>

static int n_failed;   /* checks that failed */
static int n_passed;   /* checks that passed */

/* Record one check; print the failing ones with their place. */
#define CHECK(cond) check((cond), #cond, __FILE__, __LINE__)

/* ok, what, file, line: count the check, and print it when it failed. */
static int check(int ok, const char *what, const char *file, int line)
{
	if (ok)
		n_passed++;
	else {
		n_failed++;
		fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	}
	return ok;
}

/* ctx: print and forget the diagnostics collected so far. */
static void flush_diags(stir_ctx *ctx)
{
	stir_ctx_print_diagnostics(ctx, stderr);
	stir_ctx_clear_diagnostics(ctx);
}

/* ctx, text: does the last diagnostic's message contain "text"? */
static int last_has(stir_ctx *ctx, const char *text)
{
	int n = stir_ctx_n_diagnostics(ctx);
	if (n == 0)
		return 0;
	const char *m = stir_diag_get_message(stir_ctx_get_diagnostic(ctx,
		n - 1));
	return strstr(m, text) != NULL;
}

/* rel: a path under the source tree, in a static buffer. */
static const char *src_path(const char *rel)
{
	static char buf[4096];
	const char *d = getenv("STIR_SRCDIR");
	snprintf(buf, sizeof(buf), "%s/%s", d ? d : ".", rel);
	return buf;
}

/* k, by, got, want, what: the tensors of stage I kernel k agree (NaN
 * with NaN) at the tolerance of kernel "by", which computed "got"
 * (stir_kernel_get_tolerance: a tf32 tensorized kernel's is f16's); the
 * first difference is printed. */
static int agree(const stir_kernel *k, const stir_kernel *by,
	const stir_bindings *got, const stir_bindings *want, const char *what)
{
	for (int i = 0; i < stir_kernel_n_buffers(k); i++) {
		stir_buffer *buf = stir_kernel_get_buffer(k, i);
		if (stir_buffer_get_kind(buf) != STIR_BUFFER_TENSOR)
			continue;
		const char *name = stir_buffer_get_array_name(buf);
		stir_array *a = stir_bindings_get_array(got, name);
		stir_array *r = stir_bindings_get_array(want, name);
		int64_t j;
		if (a && r && stir_array_compare_within(a, r,
		    stir_kernel_get_tolerance(by, stir_array_get_dtype(r)), &j,
		    NULL) > 0) {
			fprintf(stderr, "%s: %s[%lld] is %.9g on the GPU, %.9g on the "
				"interpreter\n", what, name, (long long)j,
				stir_array_get_double(a, j), stir_array_get_double(r, j));
			return 0;
		}
	}
	return 1;
}

/* Larger sizes for the hand-written programs and the written schedules
 * (by the name of the program or of the schedule file), so that their
 * launches span several blocks ("NAME=V,..."; the other sizes stay
 * random). */
static const char *const larger[][2] = {
	{ "bsrmm.yaml", "mb=40,nb=30,feat=32" },
	{ "csf_square_sum.yaml", "m=1000" },
	{ "csr_softmax.yaml", "m=1000,n=200" },
	{ "csrmm.yaml", "m=500,n=300,feat=64" },
	{ "csrmm_hyb.yaml", "m=500,n=300" },
	{ "ellmv.yaml", "m=2000,n=300" },
	{ "rgcn_homo.yaml", "m=300,n=300,fout=64" },
	{ "rgms.yaml", "r=4,m=200,n=200,fout=64" },
	{ "sddmm.yaml", "m=300,n=300,feat=64" },
	{ "sddmm_fast.yaml", "m=300,n=300" },
	{ "segment_sum.yaml", "m=2000" },
	{ "csrmm_rows", "m=300,n=200,feat=64" },
	{ "diag", "m=300" },
	{ "halfmix", "n=1000" },
	{ "horizontal", "m=500,n=700" },
	{ "ints", "n=500" },
	{ "mathfns", "n=200" },
	{ "names", "threadIdx=100,int=50" },
	{ "softmax_block", "m=200,n=300" },
	{ "spmv_rows16", "m=40,n=60" },
	{ "spmv_atomic", "m=700,n=500" },
	{ "spmv_warp", "m=300,n=400" },
	{ "tiled_mv", "m=200,n=150" },
	{ "vectorize", "n=1000" },
};

/* b, name: bind the larger sizes of program "name". */
static void bind_larger(stir_bindings *b, const char *name)
{
	for (size_t i = 0; i < sizeof(larger) / sizeof(larger[0]); i++) {
		if (strcmp(larger[i][0], name))
			continue;
		char spec[256];
		snprintf(spec, sizeof(spec), "%s", larger[i][1]);
		for (char *s = strtok(spec, ","); s; s = strtok(NULL, ",")) {
			char *eq = strchr(s, '=');
			*eq = '\0';
			stir_bindings_set_size(b, s, atoll(eq + 1));
		}
	}
}

/* dev, dir, ref, k, label, s: kernel k (stage III; made by schedule s
 * from ref when s is not NULL) on the GPU against stage I kernel ref on
 * the interpreter.  "label" names the run and its larger sizes. */
static void run_one(stir_device *dev, const char *dir, stir_kernel *ref,
	stir_kernel *k, const char *label, const stir_schedule *s)
{
	stir_ctx *ctx = stir_module_get_ctx(stir_kernel_get_module(k));
	stir_compile_options o = { .device = dev, .cache_dir = dir };
	stir_gpu_kernel *gk = stir_gpu_kernel_compile(k, &o);
	if (!CHECK(gk != NULL)) {
		fprintf(stderr, "%s: cannot compile\n", label);
		flush_diags(ctx);
		return;
	}
	long before = stir_nvrtc_n_invocations();
	stir_gpu_kernel *again = stir_gpu_kernel_compile(k, &o);
	CHECK(again && stir_gpu_code_is_from_cache(stir_gpu_kernel_get_code(
		again)));
	CHECK(stir_nvrtc_n_invocations() == before);
	stir_gpu_kernel_free(again);
	for (int round = 0; round < 4; round++) {
		stir_bindings *b = stir_bindings_alloc();
		if (round >= 2)
			bind_larger(b, label);
		/* the schedule's specialized sizes first, its formats last */
		if (!CHECK(!s || stir_schedule_bind_sizes(s, b) == 0) ||
		    !CHECK(stir_kernel_bind_random(ref, b, 11 + round) == 0) ||
		    !CHECK(!s || stir_schedule_bind_formats(s, ref, b) == 0)) {
			flush_diags(ctx);
			stir_bindings_free(b);
			break;
		}
		stir_cuda_plan_poison_outputs(stir_gpu_kernel_get_plan(gk), b);
		stir_bindings *want = stir_bindings_copy(b);
		CHECK(stir_kernel_interpret(ref, want) == 0);
		unsigned flags = round == 3 ? STIR_GPU_RUN_FLUSH_L2 : 0;
		stir_gpu_run *r = stir_gpu_run_alloc(gk, dev);
		int ok = CHECK(r != NULL) && CHECK(stir_gpu_run_upload(r, b) == 0) &&
			CHECK(stir_gpu_run_launch(r, flags) == 0) &&
			CHECK(stir_gpu_run_download(r, b) == 0);
		if (ok) {
			char what[300];
			snprintf(what, sizeof(what), "%s (round %d)", label, round);
			CHECK(agree(ref, k, b, want, what));
			if (flags)
				printf("  %s: %.3f ms with the L2 flushed\n", label,
					stir_gpu_run_get_ms(r));
			CHECK(!flags || stir_gpu_run_get_ms(r) >= 0);
		}
		flush_diags(ctx);
		flush_diags(stir_device_get_ctx(dev));
		stir_gpu_run_free(r);
		stir_bindings_free(want);
		stir_bindings_free(b);
	}
	stir_gpu_kernel_free(gk);
}

/* What runs the programs of one file: dev, dir (run_one's), the file's
 * path under the source tree, its base name without the suffix. */
typedef void (*file_fn)(stir_device *dev, const char *dir, const char *rel,
	const char *base);

/* folder, suffix, fn, dev, dir: fn for every file of folder (under the
 * source tree) whose name ends in suffix. */
static void for_each_file(const char *folder, const char *suffix, file_fn fn,
	stir_device *dev, const char *dir)
{
	DIR *d = opendir(src_path(folder));
	if (!CHECK(d != NULL))
		return;
	struct dirent *de;
	size_t sl = strlen(suffix);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len <= sl || strcmp(de->d_name + len - sl, suffix))
			continue;
		char rel[600], base[256];
		snprintf(rel, sizeof(rel), "%s/%s", folder, de->d_name);
		snprintf(base, sizeof(base), "%.*s", (int)(len - sl), de->d_name);
		fn(dev, dir, rel, base);
	}
	closedir(d);
}

/* dev, dir, rel, base: a catalogue program, prepared with the default
 * schedule. */
static void run_catalogue(stir_device *dev, const char *dir, const char *rel,
	const char *base)
{
	(void)base;
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *ref = stir_module_read_from_file(ctx, src_path(rel));
	stir_module *gpu = stir_module_read_from_file(ctx, src_path(rel));
	if (CHECK(ref && gpu)) {
		for (int i = 0; i < stir_module_n_kernels(ref); i++) {
			stir_kernel *k = stir_module_get_kernel(ref, i);
			stir_kernel *g = stir_module_find_kernel(gpu,
				stir_kernel_get_name(k));
			printf("%s: %s\n", rel, stir_kernel_get_name(k));
			if (!CHECK(stir_kernel_prepare_for_gpu(g) == 0))
				flush_diags(ctx);
			else
				run_one(dev, dir, k, g, stir_kernel_get_name(k), NULL);
		}
	}
	flush_diags(ctx);
	stir_module_free(ref);
	stir_module_free(gpu);
	stir_ctx_free(ctx);
}

/* dev, dir, rel, base: a written schedule examples/NAME.yaml, applied to
 * the catalogue program of the kernel it names. */
static void run_scheduled(stir_device *dev, const char *dir, const char *rel,
	const char *base)
{
	char prog[600] = "?", label[300];
	stir_ctx *ctx = stir_ctx_alloc();
	stir_schedule *s = stir_schedule_read_from_file(ctx, src_path(rel));
	stir_module *ref = NULL, *gpu = NULL;
	if (CHECK(s != NULL)) {
		snprintf(prog, sizeof(prog), "examples/%s.stir",
			stir_schedule_get_kernel_name(s));
		ref = stir_module_read_from_file(ctx, src_path(prog));
		gpu = stir_module_read_from_file(ctx, src_path(prog));
	}
	stir_kernel *k = ref ? stir_schedule_find_kernel(s, ref) : NULL;
	stir_kernel *g = gpu ? stir_schedule_find_kernel(s, gpu) : NULL;
	printf("%s: %s\n", rel, prog);
	snprintf(label, sizeof(label), "%s.yaml", base);
	if (CHECK(k && g) && CHECK(stir_schedule_prepare_for_gpu(s, g) == 0))
		run_one(dev, dir, k, g, label, s);
	flush_diags(ctx);
	stir_module_free(ref);
	stir_module_free(gpu);
	stir_schedule_free(s);
	stir_ctx_free(ctx);
}

/* dev, dir, rel, name: a hand-written stage III program, kernel NAME
 * against its stage I kernel NAME_ref. */
static void run_handwritten(stir_device *dev, const char *dir,
	const char *rel, const char *name)
{
	char refname[300];
	snprintf(refname, sizeof(refname), "%s_ref", name);
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_read_from_file(ctx, src_path(rel));
	stir_kernel *k = m ? stir_module_find_kernel(m, name) : NULL;
	stir_kernel *ref = m ? stir_module_find_kernel(m, refname) : NULL;
	printf("%s: %s\n", rel, name);
	/* a stage III file as written, through the GPU's stage III passes
	 * (rewrites, barriers), as stirc cuda takes it */
	if (CHECK(k && ref) && CHECK(stir_kernel_prepare_for_gpu(k) == 0))
		run_one(dev, dir, ref, k, name, NULL);
	flush_diags(ctx);
	stir_module_free(m);
	stir_ctx_free(ctx);
}

/* Open the GPU (or skip), then run the catalogue and the test programs. */
/* Illegal schedules for examples/csrmm.stir, each with the start of the
 * diagnostic that must refuse it: races, a loop that cannot be vectorized,
 * dependent nests in one launch, a cross-thread reduction over a spatial
 * loop, an unknown primitive, a name that matches nothing. */
static const struct {
	const char *steps;         /* stage2 steps of the file */
	const char *error;         /* what the first error says */
} illegal[] = {
	{ "  - bind: {block: csrmm1, loop: j, to: threadIdx.x}\n", "bind:" },
	{ "  - split: {block: csrmm1, loop: k, factors: [null, 4]}\n"
	  "  - vectorize: {block: csrmm1, loop: j}\n", "vectorize:" },
	{ "  - bind: {block: csrmm_init0, loop: i, to: blockIdx.x}\n"
	  "  - bind: {block: csrmm0, loop: i, to: blockIdx.x}\n"
	  "  - horizontal_fuse: {blocks: [csrmm_init0, csrmm0]}\n",
	  "horizontal_fuse:" },
	{ "  - cross_thread_reduce: {block: csrmm0, loop: i}\n",
	  "cross_thread_reduce:" },
	{ "  - tile: {block: csrmm1, loop: k}\n", "unknown primitive" },
	{ "  - split: {block: csrmm9, loop: k, factors: [null, 4]}\n",
	  "no block" },
};

/* dev: every illegal schedule is refused with its diagnostic, before
 * anything is compiled or launched. */
static void run_illegal(stir_device *dev)
{
	for (size_t i = 0; i < sizeof(illegal) / sizeof(illegal[0]); i++) {
		stir_ctx *ctx = stir_ctx_alloc();
		char text[1024];
		snprintf(text, sizeof(text), "kernel: csrmm\nstage2:\n%s",
			illegal[i].steps);
		stir_module *m = stir_module_read_from_file(ctx,
			src_path("examples/csrmm.stir"));
		stir_schedule *s = stir_schedule_read_from_mem(ctx, "illegal.yaml",
			text, strlen(text));
		stir_kernel *k = m && s ? stir_schedule_find_kernel(s, m) : NULL;
		int rc = k ? stir_schedule_prepare_for_gpu(s, k) : -1;
		stir_gpu_kernel *gk = NULL;
		if (rc == 0) {
			stir_compile_options co = { .device = dev };
			gk = stir_gpu_kernel_compile(k, &co);
		}
		const char *first = stir_ctx_n_errors(ctx) ? stir_diag_get_message(
			stir_ctx_get_diagnostic(ctx, 0)) : "";
		printf("illegal schedule %zu: %s\n", i, *first ? first : "accepted");
		CHECK(m != NULL);
		CHECK(rc < 0 && gk == NULL);
		CHECK(strstr(first, illegal[i].error) != NULL);
		stir_gpu_kernel_free(gk);
		stir_schedule_free(s);
		stir_module_free(m);
		stir_ctx_free(ctx);
	}
}

int main(void)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_device *dev = stir_device_alloc(ctx, 0);
	if (!dev) {
		/* no driver, or no device: skipped; anything else fails */
		int skip = last_has(ctx, "no CUDA driver") ||
			last_has(ctx, "CUDA_ERROR_NO_DEVICE");
		flush_diags(ctx);
		stir_ctx_free(ctx);
		printf("%s: cannot open a GPU\n", skip ? "SKIP" : "FAIL");
		return skip ? 77 : 1;
	}
	printf("device: %s (%s)\n", stir_device_get_name(dev),
		stir_device_get_arch(dev));
	if (!stir_nvrtc_is_available()) {
		printf("SKIP: stir was built without NVRTC\n");
		stir_device_free(dev);
		stir_ctx_free(ctx);
		return 77;
	}
	char dir[] = "/tmp/stir-cuda-gpu-XXXXXX";
	if (!CHECK(mkdtemp(dir) != NULL))
		return 1;
	for_each_file("examples", ".stir", run_catalogue, dev, dir);
	for_each_file("examples", ".yaml", run_scheduled, dev, dir);
	for_each_file("tests/cuda", ".stir", run_handwritten, dev, dir);
	run_illegal(dev);
	stir_device_free(dev);
	flush_diags(ctx);
	stir_ctx_free(ctx);
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	printf("%s: %d checks passed, %d failed\n", n_failed ? "FAIL" : "PASS",
		n_passed, n_failed);
	return n_failed ? 1 : 0;
}
