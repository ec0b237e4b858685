/* Caller-owned device arrays on a real GPU (stir_gpu_run_bind_device): run
 * by `make check-gpu` and tools/run-gpu-tests, built by `make check`.
 * tests/cuda/twostep.stir (Y = 2 X + 1 through a buffer the kernel owns),
 * compiled by NVRTC, runs on device buffers the test allocates and fills
 * itself, on a stream of its own and on the legacy default stream wrapped
 * by stir_stream_wrap, asynchronously; Y rebound to another buffer
 * (stir_gpu_run_rebind_device) receives the next launch's result; then a
 * short array, a wrong type and a misaligned address are refused, by
 * both calls, and so is a rebind of an array not bound.  Exits 77 without a driver, a
 * device or NVRTC, 0 when every check passes, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>

static int n_failed;

/* ok, what: count a failed check "what" unless ok. */
static void check(int ok, const char *what)
{
	if (!ok) {
		printf("FAIL: %s\n", what);
		n_failed++;
	}
}

/* run, sizes, e, n, want: binding e[0..n-1] fails with "want" in the
 * first diagnostic of ctx. */
static void refused(stir_gpu_run *run, stir_ctx *ctx, stir_bindings *sizes,
	const stir_gpu_extern *e, int n, const char *want)
{
	int rc = stir_gpu_run_bind_device(run, sizes, n, e);
	const char *msg = stir_ctx_n_errors(ctx) ? stir_diag_get_message(
		stir_ctx_get_diagnostic(ctx, 0)) : "";
	printf("refused: %s\n", msg);
	check(rc < 0 && strstr(msg, want) != NULL, want);
	stir_ctx_clear_diagnostics(ctx);
}

int main(void)
{
	enum { N = 1000 };
	stir_ctx *ctx = stir_ctx_alloc();
	stir_device *dev = stir_device_alloc(ctx, 0);
	if (!dev || !stir_nvrtc_is_available()) {
		printf("SKIP: no GPU or no NVRTC\n");
		stir_ctx_print_diagnostics(ctx, stdout);
		stir_device_free(dev);
		stir_ctx_free(ctx);
		return 77;
	}
	const char *src = getenv("STIR_SRCDIR");
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/cuda/twostep.stir",
		src ? src : ".");
	stir_module *m = stir_module_read_from_file(ctx, path);
	stir_kernel *k = m ? stir_module_find_kernel(m, "twostep") : NULL;
	stir_compile_options co = { .device = dev };
	stir_gpu_kernel *gk = k ? stir_gpu_kernel_compile(k, &co) : NULL;
	stir_gpu_run *run = gk ? stir_gpu_run_alloc(gk, dev) : NULL;
	stir_gpu_buf *x = stir_gpu_buf_alloc(dev, N * sizeof(float));
	stir_gpu_buf *y = stir_gpu_buf_alloc(dev, N * sizeof(float));
	stir_stream *own = stir_stream_alloc(dev);
	stir_stream *legacy = stir_stream_wrap(dev, NULL);
	if (!run || !x || !y || !own || !legacy) {
		stir_ctx_print_diagnostics(ctx, stdout);
		printf("FAIL: set-up\n");
		return 1;
	}
	float h[N];
	for (int i = 0; i < N; i++)
		h[i] = 0.25f * (float)i;
	check(stir_gpu_buf_copy_from_host(x, 0, h, sizeof(h)) == 0, "copy X");
	stir_bindings *sizes = stir_bindings_alloc();
	stir_bindings_set_size(sizes, "n", N);
	stir_gpu_extern e[2] = {
		{ "X", stir_gpu_buf_get_ptr(x), N * sizeof(float), STIR_F32 },
		{ "Y", stir_gpu_buf_get_ptr(y), N * sizeof(float), STIR_F32 },
	};
	stir_stream *streams[2] = { own, legacy };
	for (int s = 0; s < 2; s++) {
		check(stir_gpu_buf_fill_u32(y, 0, N, 0x7fc00000u) == 0, "poison Y");
		check(stir_gpu_run_bind_device(run, sizes, 2, e) == 0, "bind");
		check(stir_gpu_run_set_stream(run, streams[s]) == 0, "stream");
		check(stir_gpu_run_launch(run, STIR_GPU_RUN_ASYNC) == 0, "launch");
		check(stir_stream_synchronize(streams[s]) == 0, "synchronize");
		check(stir_gpu_buf_copy_to_host(y, 0, h, sizeof(h)) == 0, "copy Y");
		int bad = 0;
		for (int i = 0; i < N; i++)
			bad += h[i] != 0.5f * (float)i + 1;
		printf("stream %d: %d wrong elements of %d\n", s, bad, N);
		check(bad == 0, "Y = 2 X + 1 in the caller's memory");
	}
	stir_ctx_print_diagnostics(ctx, stdout);
	stir_ctx_clear_diagnostics(ctx);
	/* Y rebound to y2: the next launch writes y2, and Y's old buffer
	 * keeps the last result */
	stir_gpu_buf *y2 = stir_gpu_buf_alloc(dev, N * sizeof(float));
	stir_gpu_extern e2 = { "Y", y2 ? stir_gpu_buf_get_ptr(y2) : 0,
		N * sizeof(float), STIR_F32 };
	check(y2 && stir_gpu_buf_fill_u32(y, 0, N, 0) == 0, "clear Y");
	check(stir_gpu_run_rebind_device(run, 1, &e2) == 0, "rebind Y");
	check(stir_gpu_run_launch(run, STIR_GPU_RUN_ASYNC) == 0, "launch 2");
	check(stir_stream_synchronize(legacy) == 0, "synchronize 2");
	float h2[N];
	check(stir_gpu_buf_copy_to_host(y2, 0, h2, sizeof(h2)) == 0 &&
		stir_gpu_buf_copy_to_host(y, 0, h, sizeof(h)) == 0, "copy Y, Y2");
	int bad2 = 0;
	for (int i = 0; i < N; i++)
		bad2 += h2[i] != 0.5f * (float)i + 1 || h[i] != 0;
	printf("rebound: %d wrong elements of %d\n", bad2, N);
	check(bad2 == 0, "Y rebound to a second buffer");
	stir_gpu_extern rb = e2;
	rb.bytes -= sizeof(float);
	check(stir_gpu_run_rebind_device(run, 1, &rb) < 0, "rebind short");
	rb = e2;
	rb.ptr += 4;
	check(stir_gpu_run_rebind_device(run, 1, &rb) < 0, "rebind misaligned");
	rb = e2;
	rb.dtype = STIR_F64;
	check(stir_gpu_run_rebind_device(run, 1, &rb) < 0, "rebind f64");
	rb = e2;
	rb.name = "Q";
	check(stir_gpu_run_rebind_device(run, 1, &rb) < 0, "rebind Q");
	printf("rebind refusals: %d diagnostics\n", stir_ctx_n_errors(ctx));
	check(stir_ctx_n_errors(ctx) == 4, "a diagnostic per refused rebind");
	stir_ctx_print_diagnostics(ctx, stdout);
	stir_ctx_clear_diagnostics(ctx);
	stir_gpu_buf_free(y2);
	stir_gpu_extern bad[2];
	memcpy(bad, e, sizeof(e));
	bad[1].bytes -= sizeof(float);
	refused(run, ctx, sizes, bad, 2, "bytes");
	memcpy(bad, e, sizeof(e));
	bad[0].dtype = STIR_F16;
	refused(run, ctx, sizes, bad, 2, "holds f16");
	memcpy(bad, e, sizeof(e));
	bad[0].ptr += 2;
	refused(run, ctx, sizes, bad, 2, "not aligned");
	check(stir_gpu_run_launch(run, 0) < 0, "no launch after a refusal");
	check(stir_gpu_run_rebind_device(run, 1, e) < 0,
		"no rebind after a refusal");
	stir_ctx_clear_diagnostics(ctx);

	stir_bindings_free(sizes);
	stir_gpu_run_free(run);
	stir_stream_free(legacy);
	stir_stream_free(own);
	stir_gpu_buf_free(x);
	stir_gpu_buf_free(y);
	stir_gpu_kernel_free(gk);
	stir_module_free(m);
	stir_device_free(dev);
	stir_ctx_free(ctx);
	printf("%s: test_bind_gpu\n", n_failed ? "FAIL" : "PASS");
	return n_failed ? 1 : 0;
}
