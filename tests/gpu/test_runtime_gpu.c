/* The GPU runtime on a real GPU: run by `make check-gpu`, never by `make
 * check` (which only builds it).  Exits 77 (skipped) when there is no
 * driver or no device, 0 when every check passes, 1 otherwise.
 *
 * It does not use the `check` framework, so that the binary built on a
 * machine without a GPU runs on one that lacks the framework. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/array.h>
#include <stir/runtime.h>

static int n_failed;   /* checks that failed */
static int n_passed;   /* checks that passed */

/* Record one check; print the failing ones with their place. */
#define CHECK(cond) check((cond), #cond, __FILE__, __LINE__)

/* ok, what, file, line: count the check, and print it when it failed. */
static void check(int ok, const char *what, const char *file, int line)
{
	if (ok) {
		n_passed++;
		return;
	}
	n_failed++;
	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
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

/* state: a xorshift state; the next pseudo-random 32 bits. */
static uint32_t rnd(uint32_t *state)
{
	uint32_t x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

/* Three kernels: vector addition; a histogram that counts in dynamic
 * shared memory with shared atomics, then adds to global counts with
 * global atomics, and also sums its input with a static shared-memory
 * tree reduction and a 64-bit atomic; and a conversion from __half, which
 * needs cuda_fp16.h to be found by NVRTC. */
static const char *source =
	"#include <cuda_fp16.h>\n"
	"\n"
	"extern \"C\" __global__ void vadd(const float *a, const float *b,\n"
	"\tfloat *c, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\tc[i] = a[i] + b[i];\n"
	"}\n"
	"\n"
	"extern \"C\" __global__ void histogram(const int *x, long long n,\n"
	"\tint nbins, unsigned int *counts, unsigned long long *sum)\n"
	"{\n"
	"\textern __shared__ unsigned int bins[];\n"
	"\t__shared__ unsigned long long part[256];\n"
	"\tfor (int b = threadIdx.x; b < nbins; b += blockDim.x)\n"
	"\t\tbins[b] = 0;\n"
	"\t__syncthreads();\n"
	"\tunsigned long long s = 0;\n"
	"\tfor (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
	"\t     i < n; i += (long long)gridDim.x * blockDim.x) {\n"
	"\t\tatomicAdd(&bins[x[i]], 1u);\n"
	"\t\ts += (unsigned long long)x[i];\n"
	"\t}\n"
	"\tpart[threadIdx.x] = s;\n"
	"\t__syncthreads();\n"
	"\tfor (int w = blockDim.x / 2; w > 0; w /= 2) {\n"
	"\t\tif (threadIdx.x < w)\n"
	"\t\t\tpart[threadIdx.x] += part[threadIdx.x + w];\n"
	"\t\t__syncthreads();\n"
	"\t}\n"
	"\tif (threadIdx.x == 0)\n"
	"\t\tatomicAdd(sum, part[0]);\n"
	"\tfor (int b = threadIdx.x; b < nbins; b += blockDim.x)\n"
	"\t\tif (bins[b])\n"
	"\t\t\tatomicAdd(&counts[b], bins[b]);\n"
	"}\n"
	"\n"
	"extern \"C\" __global__ void half_to_float(const __half *x, float *y,\n"
	"\tint n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] = __half2float(x[i]);\n"
	"}\n";

static const stir_gpu_param vadd_sig[] = {
	{ "a", STIR_ARG_PTR }, { "b", STIR_ARG_PTR }, { "c", STIR_ARG_PTR },
	{ "n", STIR_ARG_I32 },
};

static const stir_gpu_param hist_sig[] = {
	{ "x", STIR_ARG_PTR }, { "n", STIR_ARG_I64 }, { "nbins", STIR_ARG_I32 },
	{ "counts", STIR_ARG_PTR }, { "sum", STIR_ARG_PTR },
};

static const stir_gpu_param half_sig[] = {
	{ "x", STIR_ARG_PTR }, { "y", STIR_ARG_PTR }, { "n", STIR_ARG_I32 },
};

/* ctx, dev, mod: vector addition of 2^20 + 3 random floats (not a multiple
 * of the block), arguments set out of order, on a created stream, timed
 * with events.  Also the launch rejections: they must leave the poisoned
 * output untouched. */
static void test_vadd(stir_ctx *ctx, stir_device *dev, stir_gpu_module *mod)
{
	const int n = (1 << 20) + 3;
	size_t bytes = (size_t)n * sizeof(float);
	float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
	uint32_t seed = 12345;
	for (int i = 0; i < n; i++) {
		a[i] = (float)(rnd(&seed) % 20001) / 100.0f - 100.0f;
		b[i] = (float)(rnd(&seed) % 20001) / 1000.0f - 10.0f;
	}
	stir_gpu_buf *da = stir_gpu_buf_alloc(dev, bytes);
	stir_gpu_buf *db = stir_gpu_buf_alloc(dev, bytes);
	stir_gpu_buf *dc = stir_gpu_buf_alloc(dev, bytes);
	stir_gpu_func *f = stir_gpu_module_get_func(mod, "vadd");
	stir_arg_pack *p = stir_arg_pack_alloc(ctx, 4, vadd_sig);
	stir_stream *s = stir_stream_alloc(dev);
	stir_event *e0 = stir_event_alloc(dev), *e1 = stir_event_alloc(dev);
	CHECK(da && db && dc && f && p && s && e0 && e1);
	if (!(da && db && dc && f && p && s && e0 && e1))
		goto out;
	CHECK(stir_gpu_buf_copy_from_host(da, 0, a, bytes) == 0);
	CHECK(stir_gpu_buf_copy_from_host(db, 0, b, bytes) == 0);
	/* poison the output: a quiet NaN pattern */
	CHECK(stir_gpu_buf_fill_u32(dc, 0, (size_t)n, 0x7fc0dead) == 0);
	stir_launch_config cfg = { .grid = { (unsigned)((n + 255) / 256) },
		.block = { 256 }, .stream = s };

	/* rejected before launch: a missing argument */
	CHECK(stir_arg_pack_set_buf(p, "c", dc) == 0);
	CHECK(stir_arg_pack_set_buf(p, "a", da) == 0);
	CHECK(stir_arg_pack_set_buf(p, "b", db) == 0);
	CHECK(stir_gpu_func_launch(f, &cfg, p) == -1);
	CHECK(last_has(ctx, "argument 'n' (i32) is not set"));
	/* and a value of the wrong type */
	CHECK(stir_arg_pack_set_i64(p, "n", n) == -1);
	CHECK(last_has(ctx, "kernel argument 'n' is i32, not i64"));
	CHECK(stir_gpu_func_launch(f, &cfg, p) == -1);
	/* a signature that disagrees with the kernel (i64 for its int):
	 * refused where the driver can describe parameters (12.4+) */
	stir_gpu_param wrong[4];
	memcpy(wrong, vadd_sig, sizeof(wrong));
	wrong[3].type = STIR_ARG_I64;
	stir_arg_pack *pw = stir_arg_pack_alloc(ctx, 4, wrong);
	stir_arg_pack_set_buf(pw, "a", da);
	stir_arg_pack_set_buf(pw, "b", db);
	stir_arg_pack_set_buf(pw, "c", dc);
	stir_arg_pack_set_i64(pw, "n", n);
	if (stir_device_get_driver_version(dev) >= 12040) {
		CHECK(stir_gpu_func_launch(f, &cfg, pw) == -1);
		CHECK(last_has(ctx, "parameter 3 takes 4 bytes"));
	}
	stir_arg_pack_free(pw);
	CHECK(stir_stream_synchronize(s) == 0);
	uint32_t probe[4];
	CHECK(stir_gpu_buf_copy_to_host(dc, 0, probe, sizeof(probe)) == 0);
	CHECK(probe[0] == 0x7fc0dead && probe[3] == 0x7fc0dead);
	stir_ctx_clear_diagnostics(ctx);

	/* now correctly, and timed */
	stir_arg_pack_clear(p);
	CHECK(stir_arg_pack_set_i32(p, "n", n) == 0);
	CHECK(stir_arg_pack_set_buf(p, "b", db) == 0);
	CHECK(stir_arg_pack_set_buf(p, "c", dc) == 0);
	CHECK(stir_arg_pack_set_buf(p, "a", da) == 0);
	CHECK(stir_event_record(e0, s) == 0);
	CHECK(stir_gpu_func_launch(f, &cfg, p) == 0);
	CHECK(stir_event_record(e1, s) == 0);
	float ms = -1;
	CHECK(stir_event_elapsed_ms(e0, e1, &ms) == 0);
	CHECK(ms > 0 && ms < 1000);
	CHECK(stir_gpu_buf_copy_to_host(dc, 0, c, bytes) == 0);
	int wrong_values = 0;
	for (int i = 0; i < n; i++)
		wrong_values += c[i] != a[i] + b[i];
	CHECK(wrong_values == 0);
	/* ten more with the L2 flushed before each, on the default stream */
	float total = 0;
	for (int r = 0; r < 10; r++) {
		cfg.stream = NULL;
		CHECK(stir_device_flush_l2(dev, NULL) == 0);
		CHECK(stir_event_record(e0, NULL) == 0);
		CHECK(stir_gpu_func_launch(f, &cfg, p) == 0);
		CHECK(stir_event_record(e1, NULL) == 0);
		CHECK(stir_event_elapsed_ms(e0, e1, &ms) == 0);
		total += ms;
	}
	printf("vadd of %d floats: %.3f ms on average (L2 flushed), %s\n", n,
		total / 10, stir_device_get_name(dev));
	CHECK(stir_device_synchronize(dev) == 0);
out:
	flush_diags(ctx);
	stir_event_free(e0);
	stir_event_free(e1);
	stir_stream_free(s);
	stir_arg_pack_free(p);
	stir_gpu_buf_free(da);
	stir_gpu_buf_free(db);
	stir_gpu_buf_free(dc);
	free(a);
	free(b);
	free(c);
}

/* ctx, dev, mod: the histogram of 3 million random bins in [0, 1000),
 * with 4000 bytes of dynamic shared memory, and then again with the
 * number of bins raised so that the dynamic shared memory exceeds 48 KiB
 * (the opt-in path). */
static void test_histogram(stir_ctx *ctx, stir_device *dev,
	stir_gpu_module *mod)
{
	const long long n = 3000000;
	stir_gpu_func *f = stir_gpu_module_get_func(mod, "histogram");
	stir_arg_pack *p = stir_arg_pack_alloc(ctx, 5, hist_sig);
	int *x = malloc((size_t)n * sizeof(int));
	CHECK(f && p && x);
	if (!f || !p || !x)
		goto out;
	for (int round = 0; round < 2; round++) {
		int nbins = round == 0 ? 1000 : 16000;
		uint32_t seed = 777 + round;
		unsigned *expect = calloc((size_t)nbins, sizeof(unsigned));
		unsigned *got = calloc((size_t)nbins, sizeof(unsigned));
		unsigned long long sum = 0, dsum = 0;
		for (long long i = 0; i < n; i++) {
			x[i] = (int)(rnd(&seed) % (uint32_t)nbins);
			expect[x[i]]++;
			sum += (unsigned long long)x[i];
		}
		stir_gpu_buf *dx = stir_gpu_buf_alloc(dev, (size_t)n * sizeof(int));
		stir_gpu_buf *dcounts = stir_gpu_buf_alloc(dev,
			(size_t)nbins * sizeof(unsigned));
		stir_gpu_buf *dsumb = stir_gpu_buf_alloc(dev, sizeof(dsum));
		CHECK(dx && dcounts && dsumb);
		if (dx && dcounts && dsumb) {
			CHECK(stir_gpu_buf_copy_from_host(dx, 0, x,
				(size_t)n * sizeof(int)) == 0);
			CHECK(stir_gpu_buf_memset(dcounts, 0,
				(size_t)nbins * sizeof(unsigned), 0) == 0);
			CHECK(stir_gpu_buf_memset(dsumb, 0, sizeof(dsum), 0) == 0);
			CHECK(stir_arg_pack_set_buf(p, "sum", dsumb) == 0);
			CHECK(stir_arg_pack_set_i32(p, "nbins", nbins) == 0);
			CHECK(stir_arg_pack_set_buf(p, "counts", dcounts) == 0);
			CHECK(stir_arg_pack_set_i64(p, "n", n) == 0);
			CHECK(stir_arg_pack_set_buf(p, "x", dx) == 0);
			stir_launch_config cfg = { .grid = { 264 },
				.block = { 256 },
				.shared_bytes = (unsigned)nbins * 4 };
			CHECK(stir_gpu_func_launch(f, &cfg, p) == 0);
			CHECK(stir_gpu_buf_copy_to_host(dcounts, 0, got,
				(size_t)nbins * sizeof(unsigned)) == 0);
			CHECK(stir_gpu_buf_copy_to_host(dsumb, 0, &dsum,
				sizeof(dsum)) == 0);
			CHECK(memcmp(got, expect,
				(size_t)nbins * sizeof(unsigned)) == 0);
			CHECK(dsum == sum);
		}
		flush_diags(ctx);
		stir_gpu_buf_free(dx);
		stir_gpu_buf_free(dcounts);
		stir_gpu_buf_free(dsumb);
		free(expect);
		free(got);
	}
out:
	stir_arg_pack_free(p);
	free(x);
}

/* ctx, dev, mod: __half inputs converted on the device agree with the
 * host's own conversion. */
static void test_half(stir_ctx *ctx, stir_device *dev, stir_gpu_module *mod)
{
	enum { N = 4096 };
	uint16_t h[N];
	float y[N];
	uint32_t seed = 99;
	for (int i = 0; i < N; i++)
		h[i] = stir_f16_from_double(((double)(rnd(&seed) % 200001) -
			100000.0) / 977.0);
	stir_gpu_func *f = stir_gpu_module_get_func(mod, "half_to_float");
	stir_arg_pack *p = stir_arg_pack_alloc(ctx, 3, half_sig);
	stir_gpu_buf *dh = stir_gpu_buf_alloc(dev, sizeof(h));
	stir_gpu_buf *dy = stir_gpu_buf_alloc(dev, sizeof(y));
	CHECK(f && p && dh && dy);
	if (f && p && dh && dy) {
		CHECK(stir_gpu_buf_copy_from_host(dh, 0, h, sizeof(h)) == 0);
		CHECK(stir_arg_pack_set_buf(p, "x", dh) == 0);
		CHECK(stir_arg_pack_set_buf(p, "y", dy) == 0);
		CHECK(stir_arg_pack_set_i32(p, "n", N) == 0);
		stir_launch_config cfg = { .grid = { N / 128 }, .block = { 128 } };
		CHECK(stir_gpu_func_launch(f, &cfg, p) == 0);
		CHECK(stir_gpu_buf_copy_to_host(dy, 0, y, sizeof(y)) == 0);
		int bad = 0;
		for (int i = 0; i < N; i++)
			bad += (double)y[i] != stir_f16_to_double(h[i]);
		CHECK(bad == 0);
	}
	flush_diags(ctx);
	stir_arg_pack_free(p);
	stir_gpu_buf_free(dh);
	stir_gpu_buf_free(dy);
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
	printf("device: %s (%s), %.1f GiB, driver %d\n",
		stir_device_get_name(dev), stir_device_get_arch(dev),
		(double)stir_device_get_total_mem(dev) / (1 << 30),
		stir_device_get_driver_version(dev));
	if (!stir_nvrtc_is_available()) {
		printf("SKIP: stir was built without NVRTC\n");
		stir_device_free(dev);
		stir_ctx_free(ctx);
		return 77;
	}

	/* compile for the device, through a private cache: the second
	 * compilation must come from it and load as well */
	char dir[] = "/tmp/stir-gpu-cache-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	stir_compile_options o = { .device = dev, .cache_dir = dir };
	long before = stir_nvrtc_n_invocations();
	stir_gpu_code *code = stir_gpu_code_compile(ctx, "runtime_gpu.cu",
		source, &o);
	stir_gpu_code *again = stir_gpu_code_compile(ctx, "runtime_gpu.cu",
		source, &o);
	CHECK(code && again);
	CHECK(stir_nvrtc_n_invocations() == before + 1);
	CHECK(again && stir_gpu_code_is_from_cache(again));
	stir_gpu_module *mod = again ? stir_gpu_module_load(dev, again) : NULL;
	CHECK(mod != NULL);
	flush_diags(ctx);
	if (mod) {
		test_vadd(ctx, dev, mod);
		test_histogram(ctx, dev, mod);
		test_half(ctx, dev, mod);
	}
	stir_gpu_module_free(mod);
	stir_gpu_code_free(code);
	stir_gpu_code_free(again);
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
