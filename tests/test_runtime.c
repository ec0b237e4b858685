/* Tests of the GPU runtime that need no GPU: SHA-256, the kernel cache,
 * NVRTC compilation (skipped when stir was built without NVRTC), the
 * driver loader, and every driver path of devices, memory, modules,
 * argument packs and launches against a fake driver (tests/fake_cuda.c).
 * The real GPU is exercised by tests/gpu/test_runtime_gpu.c. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stir/runtime.h>
#include "runtime/cache.h"
#include "runtime/internal.h"
#include "runtime/sha256.h"
#include "tests/fake_cuda.h"
#include "tests/testutil.h"

/* ---- helpers ------------------------------------------------------------ */

/* A fresh temporary directory (static buffer, one per test process). */
static const char *make_tmpdir(void)
{
	static char dir[64];
	snprintf(dir, sizeof(dir), "/tmp/stir-test-runtime-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	return dir;
}

/* nftw callback: remove one entry. */
static int rm_entry(const char *path, const struct stat *st, int flag,
	struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* dir: remove it and everything below. */
static void rm_rf(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* dir: the number of files in dir ending in ".kc" (cache entries), or of
 * any other name when "other" is set. */
static int count_files(const char *dir, bool other)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		size_t len = strlen(e->d_name);
		bool kc = len > 3 && !strcmp(e->d_name + len - 3, ".kc");
		n += kc != other;
	}
	closedir(d);
	return n;
}

/* ctx, i: the message of diagnostic i. */
static const char *diag_msg(stir_ctx *ctx, int i)
{
	const stir_diag *d = stir_ctx_get_diagnostic(ctx, i);
	ck_assert_ptr_nonnull(d);
	return stir_diag_get_message(d);
}

/* ctx: the message of the last diagnostic. */
static const char *last_msg(stir_ctx *ctx)
{
	return diag_msg(ctx, stir_ctx_n_diagnostics(ctx) - 1);
}

/* ---- SHA-256 -------------------------------------------------------------- */

/* data, len, hex: check one digest. */
static void check_sha(const void *data, size_t len, const char *hex)
{
	unsigned char d[STIR_SHA256_SIZE];
	char h[2 * STIR_SHA256_SIZE + 1];
	stir_sha256_buf(data, len, d);
	stir_sha256_to_hex(d, h);
	ck_assert_str_eq(h, hex);
}

START_TEST(test_sha256_vectors)
{
	/* FIPS 180-2 appendix B and NIST example values */
	check_sha("", 0,
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_sha("abc", 3,
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *m56 =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	check_sha(m56, strlen(m56),
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	const char *m112 =
		"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		"hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	check_sha(m112, strlen(m112),
		"cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	/* lengths around the padding boundary (55, 56, 64, 119, 120) */
	char a[1000];
	memset(a, 'a', sizeof(a));
	check_sha(a, 55,
		"9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	check_sha(a, 56,
		"b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	check_sha(a, 64,
		"ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
	check_sha(a, 119,
		"31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb");
	check_sha(a, 120,
		"2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c");
}
END_TEST

START_TEST(test_sha256_incremental)
{
	/* one million 'a' fed in uneven pieces, crossing block boundaries */
	stir_sha256 s;
	unsigned char d[STIR_SHA256_SIZE];
	char h[2 * STIR_SHA256_SIZE + 1];
	char a[1024]; /* more than the largest step */
	memset(a, 'a', sizeof(a));
	stir_sha256_init(&s);
	size_t left = 1000000, step = 1;
	while (left > 0) {
		size_t n = step < left ? step : left;
		stir_sha256_update(&s, a, n);
		left -= n;
		step = step % 997 + 13;
	}
	stir_sha256_final(&s, d);
	stir_sha256_to_hex(d, h);
	ck_assert_str_eq(h,
		"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

/* ---- the cache file format ------------------------------------------------ */

/* k, tag: a key of a few fields. */
static void make_key(stir_cache_key *k, const char *tag)
{
	stir_cache_key_init(k);
	stir_cache_key_add_str(k, "test");
	stir_cache_key_add_str(k, tag);
	stir_cache_key_add_str(k, "__global__ void k() {}");
}

START_TEST(test_cache_roundtrip)
{
	stir_ctx *ctx = stir_ctx_alloc();
	const char *tmp = make_tmpdir();
	char dir[128];
	snprintf(dir, sizeof(dir), "%s/a/b/c", tmp);
	stir_cache_key k1, k2;
	make_key(&k1, "one");
	make_key(&k2, "two");
	const char code[] = "\x7f" "ELF some code";
	unsigned char *got;
	size_t n;
	ck_assert_int_eq(stir_cache_lookup(dir, &k1, &got, &n), 0);
	/* the store creates the missing directories */
	ck_assert_int_eq(stir_cache_store(ctx, dir, &k1, code, sizeof(code)), 0);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	ck_assert_int_eq(stir_cache_lookup(dir, &k1, &got, &n), 1);
	ck_assert_uint_eq(n, sizeof(code));
	ck_assert_mem_eq(got, code, n);
	free(got);
	ck_assert_int_eq(stir_cache_lookup(dir, &k2, &got, &n), 0);
	/* one entry and no temporary file left behind */
	ck_assert_int_eq(count_files(dir, false), 1);
	ck_assert_int_eq(count_files(dir, true), 0);
	/* keys differing only in how fields split differ */
	stir_cache_key a, b;
	stir_cache_key_init(&a);
	stir_cache_key_init(&b);
	stir_cache_key_add_str(&a, "ab");
	stir_cache_key_add_str(&a, "c");
	stir_cache_key_add_str(&b, "a");
	stir_cache_key_add_str(&b, "bc");
	char *pa = stir_cache_entry_path(dir, &a);
	char *pb = stir_cache_entry_path(dir, &b);
	ck_assert_str_ne(pa, pb);
	free(pa);
	free(pb);
	stir_cache_key_release(&a);
	stir_cache_key_release(&b);
	stir_cache_key_release(&k1);
	stir_cache_key_release(&k2);
	rm_rf(tmp);
	stir_ctx_free(ctx);
}
END_TEST

/* path, offset, byte: overwrite one byte of a file. */
static void poke(const char *path, long offset, int byte)
{
	FILE *f = fopen(path, "r+b");
	ck_assert_ptr_nonnull(f);
	fseek(f, offset, offset < 0 ? SEEK_END : SEEK_SET);
	fputc(byte, f);
	fclose(f);
}

START_TEST(test_cache_rejects_damage)
{
	stir_ctx *ctx = stir_ctx_alloc();
	const char *dir = make_tmpdir();
	stir_cache_key k1, k2;
	make_key(&k1, "one");
	make_key(&k2, "two");
	const char code[] = "0123456789abcdef";
	unsigned char *got;
	size_t n;
	char *p1 = stir_cache_entry_path(dir, &k1);
	char *p2 = stir_cache_entry_path(dir, &k2);

	/* a flipped byte in the code */
	ck_assert_int_eq(stir_cache_store(ctx, dir, &k1, code, 16), 0);
	poke(p1, -40, 'X');
	ck_assert_int_eq(stir_cache_lookup(dir, &k1, &got, &n), 0);
	/* a truncated file */
	ck_assert_int_eq(stir_cache_store(ctx, dir, &k1, code, 16), 0);
	ck_assert_int_eq(truncate(p1, 30), 0);
	ck_assert_int_eq(stir_cache_lookup(dir, &k1, &got, &n), 0);
	ck_assert_int_eq(truncate(p1, 0), 0);
	ck_assert_int_eq(stir_cache_lookup(dir, &k1, &got, &n), 0);
	/* an entry whose name collides with another key's: the stored key
	 * differs, so it is not used */
	ck_assert_int_eq(stir_cache_store(ctx, dir, &k1, code, 16), 0);
	ck_assert_int_eq(rename(p1, p2), 0);
	ck_assert_int_eq(stir_cache_lookup(dir, &k2, &got, &n), 0);
	/* a directory in place of the entry */
	ck_assert_int_eq(mkdir(p1, 0700), 0);
	ck_assert_int_eq(stir_cache_lookup(dir, &k1, &got, &n), 0);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	free(p1);
	free(p2);
	stir_cache_key_release(&k1);
	stir_cache_key_release(&k2);
	rm_rf(dir);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_cache_concurrent)
{
	/* four processes write and read one entry at once: a reader sees no
	 * entry or the whole one, never a partial file, and no temporary
	 * file is left behind */
	const char *dir = make_tmpdir();
	enum { N_PROC = 4, ROUNDS = 50, SIZE = 256 << 10 };
	unsigned char *code = malloc(SIZE);
	for (int i = 0; i < SIZE; i++)
		code[i] = (unsigned char)(i * 7 + (i >> 9));
	stir_cache_key k;
	make_key(&k, "shared");
	pid_t pids[N_PROC];
	for (int p = 0; p < N_PROC; p++) {
		pids[p] = fork();
		ck_assert_int_ge(pids[p], 0);
		if (pids[p] > 0)
			continue;
		stir_ctx *ctx = stir_ctx_alloc();
		int bad = 0, hits = 0;
		for (int r = 0; r < ROUNDS; r++) {
			unsigned char *got;
			size_t n;
			if (stir_cache_lookup(dir, &k, &got, &n) == 1) {
				hits++;
				bad += n != SIZE || memcmp(got, code, SIZE) != 0;
				free(got);
			}
			bad += stir_cache_store(ctx, dir, &k, code, SIZE) != 0;
		}
		stir_ctx_free(ctx);
		_exit(bad ? 1 : hits > 0 ? 0 : 2);
	}
	for (int p = 0; p < N_PROC; p++) {
		int status;
		ck_assert_int_eq(waitpid(pids[p], &status, 0), pids[p]);
		ck_assert(WIFEXITED(status));
		ck_assert_int_eq(WEXITSTATUS(status), 0);
	}
	ck_assert_int_eq(count_files(dir, false), 1);
	ck_assert_int_eq(count_files(dir, true), 0);
	free(code);
	stir_cache_key_release(&k);
	rm_rf(dir);
}
END_TEST

START_TEST(test_cache_unwritable)
{
	stir_ctx *ctx = stir_ctx_alloc();
	const char *tmp = make_tmpdir();
	char file[128], dir[160];
	/* a directory below a regular file cannot be made, even by root */
	snprintf(file, sizeof(file), "%s/file", tmp);
	snprintf(dir, sizeof(dir), "%s/sub", file);
	FILE *f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	stir_cache_key k;
	make_key(&k, "one");
	ck_assert_int_eq(stir_cache_store(ctx, dir, &k, "x", 1), -1);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 1);
	ck_assert_int_eq(stir_diag_get_severity(stir_ctx_get_diagnostic(ctx, 0)),
		STIR_WARNING);
	ck_assert_ptr_nonnull(strstr(diag_msg(ctx, 0),
		"cannot write the kernel cache in"));
	ck_assert_ptr_nonnull(strstr(diag_msg(ctx, 0), "Not a directory"));
	stir_cache_key_release(&k);
	rm_rf(tmp);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_cache_dir_from_env)
{
	char *d;
	setenv("STIR_CACHE_DIR", "/x/stir-cache", 1);
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	d = stir_cache_dir("/given");
	ck_assert_str_eq(d, "/given");
	free(d);
	d = stir_cache_dir(NULL);
	ck_assert_str_eq(d, "/x/stir-cache");
	free(d);
	d = stir_cache_dir("");
	ck_assert_str_eq(d, "/x/stir-cache");
	free(d);
	unsetenv("STIR_CACHE_DIR");
	d = stir_cache_dir(NULL);
	ck_assert_str_eq(d, "/xdg/stir");
	free(d);
	/* a relative XDG_CACHE_HOME is ignored, as the specification says */
	setenv("XDG_CACHE_HOME", "relative", 1);
	d = stir_cache_dir(NULL);
	ck_assert_str_eq(d, "/home/u/.cache/stir");
	free(d);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	ck_assert_ptr_null(stir_cache_dir(NULL));
	unsetenv("STIR_NO_CACHE");
	ck_assert(!stir_cache_disabled_by_env());
	setenv("STIR_NO_CACHE", "0", 1);
	ck_assert(!stir_cache_disabled_by_env());
	setenv("STIR_NO_CACHE", "1", 1);
	ck_assert(stir_cache_disabled_by_env());
}
END_TEST

START_TEST(test_mkdir_p)
{
	const char *tmp = make_tmpdir();
	char dir[160];
	snprintf(dir, sizeof(dir), "%s/x//y/z/", tmp);
	ck_assert_int_eq(stir_mkdir_p(dir), 0);
	ck_assert_int_eq(stir_mkdir_p(dir), 0); /* already there */
	ck_assert_int_eq(stir_mkdir_p(""), -1);
	struct stat st;
	snprintf(dir, sizeof(dir), "%s/x/y/z", tmp);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	rm_rf(tmp);
}
END_TEST

/* ---- choosing an architecture for a device ---------------------------- */

START_TEST(test_pick_arch)
{
	static const int archs[] = { 75, 80, 86, 87, 89, 90, 100, 120 };
	int n = (int)(sizeof(archs) / sizeof(archs[0]));
	char out[32];
	ck_assert_int_eq(stir_nvrtc_pick_arch(9, 0, archs, n, out,
		sizeof(out)), 0);
	ck_assert_str_eq(out, "sm_90");
	ck_assert_int_eq(stir_nvrtc_pick_arch(12, 0, archs, n, out,
		sizeof(out)), 0);
	ck_assert_str_eq(out, "sm_120");
	/* a device newer than NVRTC knows gets PTX of the newest older one */
	ck_assert_int_eq(stir_nvrtc_pick_arch(10, 3, archs, n, out,
		sizeof(out)), 0);
	ck_assert_str_eq(out, "compute_100");
	ck_assert_int_eq(stir_nvrtc_pick_arch(8, 8, archs, n, out,
		sizeof(out)), 0);
	ck_assert_str_eq(out, "compute_87");
	/* an older one than NVRTC supports cannot be served */
	ck_assert_int_eq(stir_nvrtc_pick_arch(7, 0, archs, n, out,
		sizeof(out)), -1);
}
END_TEST

/* ---- NVRTC --------------------------------------------------------------- */

/* A kernel that needs cuda_fp16.h. */
static const char *half_src =
	"#include <cuda_fp16.h>\n"
	"extern \"C\" __global__ void to_float(const __half *x, float *y,"
	" int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] = __half2float(x[i]) * 2.0f;\n"
	"}\n";

/* True (after saying so) when the NVRTC tests must be skipped. */
static bool skip_without_nvrtc(const char *test)
{
	if (stir_nvrtc_is_available())
		return false;
	fprintf(stderr, "%s skipped: stir was built without NVRTC\n", test);
	return true;
}

START_TEST(test_nvrtc_missing)
{
	/* without NVRTC every compilation fails with a clear error */
	if (stir_nvrtc_is_available())
		return;
	stir_ctx *ctx = stir_ctx_alloc();
	stir_compile_options o = { .arch = "sm_90" };
	ck_assert_ptr_null(stir_gpu_code_compile(ctx, "k.cu", half_src, &o));
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_str_eq(diag_msg(ctx, 0),
		"stir was built without NVRTC (configure --with-cuda=DIR)");
	ck_assert_int_eq(stir_nvrtc_get_version(NULL, NULL), -1);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_nvrtc_compile_half)
{
	if (skip_without_nvrtc(__func__))
		return;
	stir_ctx *ctx = stir_ctx_alloc();
	int major = 0, minor = -1;
	ck_assert_int_eq(stir_nvrtc_get_version(&major, &minor), 0);
	ck_assert_int_ge(major, 11);
	ck_assert_int_ge(minor, 0);
	long before = stir_nvrtc_n_invocations();
	stir_compile_options o = { .arch = "sm_90",
		.flags = STIR_COMPILE_NO_CACHE };
	stir_gpu_code *c = stir_gpu_code_compile(ctx, "half.cu", half_src, &o);
	if (!c)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	ck_assert_int_eq(stir_nvrtc_n_invocations(), before + 1);
	ck_assert(!stir_gpu_code_is_ptx(c));
	ck_assert(!stir_gpu_code_is_from_cache(c));
	ck_assert_str_eq(stir_gpu_code_get_arch(c), "sm_90");
	ck_assert_str_eq(stir_gpu_code_get_name(c), "half.cu");
	ck_assert_uint_gt(stir_gpu_code_get_size(c), 64);
	/* a cubin is an ELF file */
	ck_assert_mem_eq(stir_gpu_code_get_data(c), "\x7f" "ELF", 4);
	stir_gpu_code_free(c);

	/* for compute_90 the result is PTX text, NUL-terminated */
	o.arch = "compute_90";
	c = stir_gpu_code_compile(ctx, "half.cu", half_src, &o);
	ck_assert_ptr_nonnull(c);
	ck_assert(stir_gpu_code_is_ptx(c));
	const char *ptx = stir_gpu_code_get_data(c);
	size_t n = stir_gpu_code_get_size(c);
	ck_assert_int_eq(ptx[n - 1], '\0');
	ck_assert_ptr_nonnull(strstr(ptx, ".target sm_90"));
	ck_assert_ptr_nonnull(strstr(ptx, ".entry to_float"));
	stir_gpu_code_free(c);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_nvrtc_syntax_error)
{
	if (skip_without_nvrtc(__func__))
		return;
	stir_ctx *ctx = stir_ctx_alloc();
	const char *src =
		"extern \"C\" __global__ void k(int *x)\n"
		"{\n"
		"\tx[0] = 1\n"
		"}\n";
	stir_compile_options o = { .arch = "sm_90",
		.flags = STIR_COMPILE_NO_CACHE };
	ck_assert_ptr_null(stir_gpu_code_compile(ctx, "bad.cu", src, &o));
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 1);
	const stir_diag *d = stir_ctx_get_diagnostic(ctx, 0);
	ck_assert_str_eq(stir_diag_get_message(d),
		"NVRTC failed to compile 'bad.cu'");
	/* the log arrives as notes, one per line; one of them locates the
	 * error at line 4 (the missing ';' is seen at the '}') */
	ck_assert_int_ge(stir_diag_n_notes(d), 1);
	bool located = false;
	for (int i = 0; i < stir_diag_n_notes(d); i++) {
		const char *m = stir_diag_get_message(stir_diag_get_note(d, i));
		ck_assert_ptr_null(strchr(m, '\n'));
		ck_assert_int_gt(strlen(m), 0);
		if (strstr(m, "bad.cu(") && strstr(m, "error"))
			located = true;
	}
	ck_assert(located);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_nvrtc_bad_arguments)
{
	if (skip_without_nvrtc(__func__))
		return;
	stir_ctx *ctx = stir_ctx_alloc();
	stir_compile_options o = { .arch = "sm90" };
	ck_assert_ptr_null(stir_gpu_code_compile(ctx, "k.cu", half_src, &o));
	ck_assert_str_eq(last_msg(ctx), "invalid GPU architecture 'sm90' "
		"(expected sm_XY or compute_XY)");
	stir_compile_options none = { 0 };
	ck_assert_ptr_null(stir_gpu_code_compile(ctx, "k.cu", half_src,
		&none));
	ck_assert_str_eq(last_msg(ctx), "no GPU architecture to compile for: "
		"give an architecture or a device");
	/* an option NVRTC does not know is its error, with its log */
	const char *extra[] = { "--no-such-option" };
	stir_compile_options bad = { .arch = "sm_90", .extra = extra,
		.n_extra = 1, .flags = STIR_COMPILE_NO_CACHE };
	ck_assert_ptr_null(stir_gpu_code_compile(ctx, "k.cu", half_src, &bad));
	ck_assert_str_eq(last_msg(ctx), "NVRTC failed to compile 'k.cu'");
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_nvrtc_cache)
{
	if (skip_without_nvrtc(__func__))
		return;
	stir_ctx *ctx = stir_ctx_alloc();
	const char *dir = make_tmpdir();
	unsetenv("STIR_NO_CACHE");
	stir_compile_options o = { .arch = "sm_90", .cache_dir = dir };
	long n0 = stir_nvrtc_n_invocations();
	stir_gpu_code *c1 = stir_gpu_code_compile(ctx, "half.cu", half_src, &o);
	ck_assert_ptr_nonnull(c1);
	ck_assert(!stir_gpu_code_is_from_cache(c1));
	ck_assert_int_eq(stir_nvrtc_n_invocations(), n0 + 1);
	ck_assert_int_eq(count_files(dir, false), 1);

	/* the same compilation again: from the cache, NVRTC not run */
	stir_gpu_code *c2 = stir_gpu_code_compile(ctx, "half.cu", half_src, &o);
	ck_assert_ptr_nonnull(c2);
	ck_assert(stir_gpu_code_is_from_cache(c2));
	ck_assert_int_eq(stir_nvrtc_n_invocations(), n0 + 1);
	ck_assert_uint_eq(stir_gpu_code_get_size(c2),
		stir_gpu_code_get_size(c1));
	ck_assert_mem_eq(stir_gpu_code_get_data(c2),
		stir_gpu_code_get_data(c1), stir_gpu_code_get_size(c1));
	stir_gpu_code_free(c2);

	/* another option, another architecture, another source: new
	 * entries, each compiled */
	const char *extra[] = { "-DUNUSED=1" };
	stir_compile_options o2 = o;
	o2.extra = extra;
	o2.n_extra = 1;
	c2 = stir_gpu_code_compile(ctx, "half.cu", half_src, &o2);
	ck_assert_ptr_nonnull(c2);
	ck_assert(!stir_gpu_code_is_from_cache(c2));
	ck_assert_int_eq(stir_nvrtc_n_invocations(), n0 + 2);
	stir_gpu_code_free(c2);
	stir_compile_options o3 = o;
	o3.arch = "sm_80";
	c2 = stir_gpu_code_compile(ctx, "half.cu", half_src, &o3);
	ck_assert_ptr_nonnull(c2);
	ck_assert(!stir_gpu_code_is_from_cache(c2));
	ck_assert_str_eq(stir_gpu_code_get_arch(c2), "sm_80");
	ck_assert_int_eq(stir_nvrtc_n_invocations(), n0 + 3);
	stir_gpu_code_free(c2);
	char *src2;
	ck_assert_int_ge(asprintf(&src2, "%s// changed\n", half_src), 0);
	c2 = stir_gpu_code_compile(ctx, "half.cu", src2, &o);
	ck_assert_ptr_nonnull(c2);
	ck_assert(!stir_gpu_code_is_from_cache(c2));
	ck_assert_int_eq(stir_nvrtc_n_invocations(), n0 + 4);
	stir_gpu_code_free(c2);
	free(src2);
	ck_assert_int_eq(count_files(dir, false), 4);
	ck_assert_int_eq(count_files(dir, true), 0);
	/* and the first two are still served from the cache */
	c2 = stir_gpu_code_compile(ctx, "half.cu", half_src, &o2);
	ck_assert(stir_gpu_code_is_from_cache(c2));
	stir_gpu_code_free(c2);
	c2 = stir_gpu_code_compile(ctx, "half.cu", half_src, &o3);
	ck_assert(stir_gpu_code_is_from_cache(c2));
	stir_gpu_code_free(c2);
	ck_assert_int_eq(stir_nvrtc_n_invocations(), n0 + 4);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	stir_gpu_code_free(c1);
	rm_rf(dir);
	stir_ctx_free(ctx);
}
END_TEST

/* dir: the path of the only cache entry in dir (to free). */
static char *only_entry(const char *dir)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	char *path = NULL;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		ck_assert_ptr_null(path);
		ck_assert_int_ge(asprintf(&path, "%s/%s", dir, e->d_name), 0);
	}
	closedir(d);
	ck_assert_ptr_nonnull(path);
	return path;
}

START_TEST(test_nvrtc_cache_corrupted)
{
	if (skip_without_nvrtc(__func__))
		return;
	stir_ctx *ctx = stir_ctx_alloc();
	const char *dir = make_tmpdir();
	unsetenv("STIR_NO_CACHE");
	stir_compile_options o = { .arch = "sm_90", .cache_dir = dir };
	stir_gpu_code *c1 = stir_gpu_code_compile(ctx, "half.cu", half_src, &o);
	ck_assert_ptr_nonnull(c1);
	char *entry = only_entry(dir);
	/* damage a byte inside the cubin part of the entry */
	poke(entry, -100, 0x55 ^ 0xff);
	poke(entry, -101, 0x55);
	long n0 = stir_nvrtc_n_invocations();
	stir_gpu_code *c2 = stir_gpu_code_compile(ctx, "half.cu", half_src, &o);
	ck_assert_ptr_nonnull(c2);
	ck_assert(!stir_gpu_code_is_from_cache(c2));
	ck_assert_int_eq(stir_nvrtc_n_invocations(), n0 + 1);
	ck_assert_mem_eq(stir_gpu_code_get_data(c2),
		stir_gpu_code_get_data(c1), stir_gpu_code_get_size(c1));
	stir_gpu_code_free(c2);
	/* the recompilation rewrote the entry: served again */
	c2 = stir_gpu_code_compile(ctx, "half.cu", half_src, &o);
	ck_assert(stir_gpu_code_is_from_cache(c2));
	ck_assert_int_eq(stir_nvrtc_n_invocations(), n0 + 1);
	stir_gpu_code_free(c2);
	/* an entry cut short is recompiled too */
	ck_assert_int_eq(truncate(entry, 200), 0);
	c2 = stir_gpu_code_compile(ctx, "half.cu", half_src, &o);
	ck_assert(!stir_gpu_code_is_from_cache(c2));
	ck_assert_int_eq(stir_nvrtc_n_invocations(), n0 + 2);
	stir_gpu_code_free(c2);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	free(entry);
	stir_gpu_code_free(c1);
	rm_rf(dir);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_nvrtc_cache_unwritable)
{
	if (skip_without_nvrtc(__func__))
		return;
	stir_ctx *ctx = stir_ctx_alloc();
	const char *tmp = make_tmpdir();
	char file[128], dir[160];
	snprintf(file, sizeof(file), "%s/file", tmp);
	snprintf(dir, sizeof(dir), "%s/cache", file);
	FILE *f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	unsetenv("STIR_NO_CACHE");
	/* through the environment this time */
	setenv("STIR_CACHE_DIR", dir, 1);
	stir_compile_options o = { .arch = "sm_90" };
	stir_gpu_code *c = stir_gpu_code_compile(ctx, "half.cu", half_src, &o);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_gt(stir_gpu_code_get_size(c), 0);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 1);
	ck_assert_int_eq(stir_diag_get_severity(stir_ctx_get_diagnostic(ctx, 0)),
		STIR_WARNING);
	ck_assert_ptr_nonnull(strstr(diag_msg(ctx, 0),
		"cannot write the kernel cache"));
	stir_gpu_code_free(c);
	rm_rf(tmp);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_nvrtc_cache_disabled)
{
	if (skip_without_nvrtc(__func__))
		return;
	stir_ctx *ctx = stir_ctx_alloc();
	const char *dir = make_tmpdir();
	stir_compile_options o = { .arch = "sm_90", .cache_dir = dir };
	long n0 = stir_nvrtc_n_invocations();
	setenv("STIR_NO_CACHE", "1", 1);
	for (int i = 0; i < 2; i++) {
		stir_gpu_code *c = stir_gpu_code_compile(ctx, "half.cu",
			half_src, &o);
		ck_assert_ptr_nonnull(c);
		ck_assert(!stir_gpu_code_is_from_cache(c));
		stir_gpu_code_free(c);
	}
	ck_assert_int_eq(stir_nvrtc_n_invocations(), n0 + 2);
	ck_assert_int_eq(count_files(dir, false), 0);
	/* the flag does the same */
	unsetenv("STIR_NO_CACHE");
	o.flags = STIR_COMPILE_NO_CACHE;
	stir_gpu_code *c = stir_gpu_code_compile(ctx, "half.cu", half_src, &o);
	ck_assert_ptr_nonnull(c);
	stir_gpu_code_free(c);
	ck_assert_int_eq(stir_nvrtc_n_invocations(), n0 + 3);
	ck_assert_int_eq(count_files(dir, false), 0);
	rm_rf(dir);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- code objects -------------------------------------------------------- */

START_TEST(test_code_alloc)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_gpu_code *c = stir_gpu_code_alloc(ctx, "k.ptx", "compute_90",
		".version 8.0", 12);
	ck_assert_ptr_nonnull(c);
	ck_assert(stir_gpu_code_is_ptx(c));
	/* the missing NUL was added */
	ck_assert_uint_eq(stir_gpu_code_get_size(c), 13);
	ck_assert_str_eq(stir_gpu_code_get_data(c), ".version 8.0");
	ck_assert_str_eq(stir_gpu_code_get_log(c), "");
	stir_gpu_code_free(c);
	ck_assert_ptr_null(stir_gpu_code_alloc(ctx, "k", "gfx90a", "x", 1));
	ck_assert_str_eq(last_msg(ctx), "invalid GPU architecture 'gfx90a' "
		"(expected sm_XY or compute_XY)");
	ck_assert_ptr_null(stir_gpu_code_alloc(ctx, "k", "sm_90", "x", 0));
	stir_ctx_free(ctx);
}
END_TEST

/* ---- the driver loader ---------------------------------------------------- */

START_TEST(test_no_driver)
{
	/* this machine may have a driver after all (a GPU host running
	 * make check): then there is nothing to test here */
	unsetenv("STIR_LIBCUDA");
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		fprintf(stderr, "test_no_driver skipped: libcuda.so.1 exists\n");
		dlclose(h);
		return;
	}
	stir_ctx *ctx = stir_ctx_alloc();
	ck_assert_ptr_null(stir_device_alloc(ctx, 0));
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_str_eq(diag_msg(ctx, 0),
		"no CUDA driver: libcuda.so.1 not found");
	/* the dlerror text is a note */
	ck_assert_int_eq(stir_diag_n_notes(stir_ctx_get_diagnostic(ctx, 0)), 1);
	/* the same reason every time */
	ck_assert_int_eq(stir_ctx_n_devices(ctx), -1);
	ck_assert_str_eq(diag_msg(ctx, 1),
		"no CUDA driver: libcuda.so.1 not found");
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_driver_path_missing)
{
	stir_ctx *ctx = stir_ctx_alloc();
	setenv("STIR_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	ck_assert_ptr_null(stir_device_alloc(ctx, 0));
	ck_assert_str_eq(diag_msg(ctx, 0),
		"no CUDA driver: /nonexistent/libcuda.so.1 not found");
	stir_ctx_free(ctx);
}
END_TEST

/* The fake driver's path in the build tree. */
static const char *fake_path(void)
{
	static char path[4096];
	const char *b = getenv("STIR_BUILDDIR");
	snprintf(path, sizeof(path), "%s/tests/.libs/libfakecuda.so",
		b ? b : ".");
	return path;
}

/* Make the runtime load the fake driver. */
static void use_fake(void)
{
	ck_assert_int_eq(access(fake_path(), R_OK), 0);
	setenv("STIR_LIBCUDA", fake_path(), 1);
}

/* The fake driver's counters (after the runtime has loaded it). */
static fake_cuda_stats *fake(void)
{
	void *h = dlopen(fake_path(), RTLD_NOW | RTLD_NOLOAD);
	ck_assert_ptr_nonnull(h);
	fake_cuda_stats *(*get)(void);
	void *p = dlsym(h, "fake_cuda_stats_get");
	ck_assert_ptr_nonnull(p);
	memcpy(&get, &p, sizeof(p));
	dlclose(h);
	return get();
}

START_TEST(test_fake_no_device)
{
	stir_ctx *ctx = stir_ctx_alloc();
	use_fake();
	setenv("FAKE_CUDA_NO_DEVICE", "1", 1);
	ck_assert_ptr_null(stir_device_alloc(ctx, 0));
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_str_eq(diag_msg(ctx, 0), "cuInit failed: CUDA_ERROR_NO_DEVICE: "
		"no CUDA-capable device is detected");
	ck_assert_int_eq(stir_ctx_n_devices(ctx), -1);
	stir_ctx_free(ctx);
}
END_TEST

/* getproc: whether cuGetProcAddress_v2 is to work.  Open the fake device
 * and check what it says about itself. */
static void check_open(bool getproc)
{
	stir_ctx *ctx = stir_ctx_alloc();
	use_fake();
	unsetenv("FAKE_CUDA_NO_DEVICE");
	setenv("FAKE_CUDA_NO_PROC", getproc ? "0" : "1", 1);
	ck_assert_int_eq(stir_ctx_n_devices(ctx), 1);
	stir_device *dev = stir_device_alloc(ctx, 0);
	if (!dev)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(dev);
	ck_assert_int_gt(fake()->getproc_calls, 0);
	ck_assert_str_eq(stir_device_get_name(dev), "Fake CUDA Device");
	ck_assert_str_eq(stir_device_get_arch(dev), "sm_90");
	int major, minor;
	stir_device_get_compute_capability(dev, &major, &minor);
	ck_assert_int_eq(major, 9);
	ck_assert_int_eq(minor, 0);
	ck_assert_uint_eq(stir_device_get_total_mem(dev), (size_t)80 << 30);
	ck_assert_int_eq(stir_device_get_driver_version(dev), 13000);
	ck_assert_ptr_eq(stir_device_get_ctx(dev), ctx);
	ck_assert_int_eq(stir_device_synchronize(dev), 0);
	ck_assert_int_eq(fake()->primary_refs, 1);
	ck_assert_int_eq(fake()->ctx_depth, 0);
	ck_assert_int_eq(fake()->max_ctx_depth, 1);
	stir_device_free(dev);
	ck_assert_int_eq(fake()->primary_refs, 0);
	/* a device that does not exist */
	ck_assert_ptr_null(stir_device_alloc(ctx, 3));
	ck_assert_str_eq(last_msg(ctx), "cuDeviceGet failed: "
		"CUDA_ERROR_INVALID_DEVICE: invalid device ordinal");
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_int_eq(fake()->primary_refs, 0);
	stir_ctx_free(ctx);
}

START_TEST(test_fake_open)
{
	check_open(true);
}
END_TEST

START_TEST(test_fake_open_without_getproc)
{
	/* the versioned names found with dlsym serve as well */
	check_open(false);
}
END_TEST

/* ctx: open the fake device. */
static stir_device *open_fake(stir_ctx *ctx)
{
	use_fake();
	unsetenv("FAKE_CUDA_NO_DEVICE");
	unsetenv("FAKE_CUDA_NO_PROC");
	stir_device *dev = stir_device_alloc(ctx, 0);
	if (!dev)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(dev);
	return dev;
}

START_TEST(test_fake_memory)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_device *dev = open_fake(ctx);
	float x[100], y[100];
	for (int i = 0; i < 100; i++)
		x[i] = (float)i * 0.5f - 7.0f;
	stir_gpu_buf *a = stir_gpu_buf_alloc(dev, sizeof(x));
	stir_gpu_buf *b = stir_gpu_buf_alloc(dev, sizeof(x));
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(stir_gpu_buf_get_size(a), sizeof(x));
	ck_assert_uint_ne(stir_gpu_buf_get_ptr(a), 0);
	ck_assert_int_eq(fake()->live_allocs, 2);
	ck_assert_int_eq(stir_gpu_buf_copy_from_host(a, 0, x, sizeof(x)), 0);
	ck_assert_int_eq(stir_gpu_buf_copy(b, 0, a, 0, sizeof(x)), 0);
	memset(y, 0, sizeof(y));
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(b, 0, y, sizeof(y)), 0);
	ck_assert_mem_eq(x, y, sizeof(x));
	/* partial copies at offsets */
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(a, 40, y, 8), 0);
	ck_assert(y[0] == x[10] && y[1] == x[11]);
	/* memset and 32-bit fill */
	ck_assert_int_eq(stir_gpu_buf_memset(b, 4, 8, 0xab), 0);
	ck_assert_int_eq(stir_gpu_buf_fill_u32(b, 16, 2, 0x7fc00001u), 0);
	uint32_t w[6];
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(b, 0, w, sizeof(w)), 0);
	ck_assert_mem_eq(&w[0], &x[0], 4);
	ck_assert_uint_eq(w[1], 0xababababu);
	ck_assert_uint_eq(w[2], 0xababababu);
	ck_assert_mem_eq(&w[3], &x[3], 4);
	ck_assert_uint_eq(w[4], 0x7fc00001u);
	ck_assert_uint_eq(w[5], 0x7fc00001u);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);

	/* out of bounds: refused before the driver sees it */
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(a, 396, y, 8), -1);
	ck_assert_str_eq(last_msg(ctx), "copy to the host of 8 bytes at "
		"offset 396 is outside a device buffer of 400 bytes");
	ck_assert_int_eq(stir_gpu_buf_copy_from_host(a, SIZE_MAX, x, 2), -1);
	ck_assert_int_eq(stir_gpu_buf_copy(b, 0, a, 1, 400), -1);
	ck_assert_int_eq(stir_gpu_buf_memset(a, 401, 0, 0), -1);
	ck_assert_int_eq(stir_gpu_buf_fill_u32(a, 2, 1, 0), -1);
	ck_assert_int_eq(stir_gpu_buf_fill_u32(a, 0, 101, 0), -1);
	ck_assert_int_eq(stir_gpu_buf_fill_u32(a, 0, SIZE_MAX / 2, 0), -1);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 7);

	/* an empty buffer has address 0 and allows empty copies */
	stir_gpu_buf *e = stir_gpu_buf_alloc(dev, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(stir_gpu_buf_get_ptr(e), 0);
	ck_assert_int_eq(stir_gpu_buf_copy_from_host(e, 0, x, 0), 0);
	ck_assert_int_eq(fake()->live_allocs, 2);
	stir_gpu_buf_free(e);

	/* the driver's failure is reported with the call's name */
	stir_ctx_clear_diagnostics(ctx);
	ck_assert_ptr_null(stir_gpu_buf_alloc(dev, (size_t)2 << 40));
	ck_assert_str_eq(diag_msg(ctx, 0), "cuMemAlloc failed: "
		"CUDA_ERROR_OUT_OF_MEMORY: out of memory");
	ck_assert_int_eq(stir_diag_n_notes(stir_ctx_get_diagnostic(ctx, 0)), 1);

	/* buffers keep the device: closing first is fine */
	stir_device_free(dev);
	ck_assert_int_eq(fake()->primary_refs, 1);
	stir_gpu_buf_free(a);
	stir_gpu_buf_free(b);
	ck_assert_int_eq(fake()->live_allocs, 0);
	ck_assert_int_eq(fake()->primary_refs, 0);
	ck_assert_int_eq(fake()->ctx_depth, 0);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_fake_streams_events)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_device *dev = open_fake(ctx);
	stir_stream *s = stir_stream_alloc(dev);
	stir_event *e0 = stir_event_alloc(dev);
	stir_event *e1 = stir_event_alloc(dev);
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(e0);
	ck_assert_ptr_nonnull(e1);
	ck_assert_int_eq(fake()->live_streams, 1);
	ck_assert_int_eq(fake()->live_events, 2);
	float ms = -1;
	/* unrecorded events: the driver's error, named */
	ck_assert_int_eq(stir_event_elapsed_ms(e0, e1, &ms), -1);
	ck_assert_str_eq(last_msg(ctx), "cuEventElapsedTime failed: "
		"CUDA_ERROR_INVALID_HANDLE: invalid resource handle");
	ck_assert_int_eq(stir_event_record(e0, s), 0);
	ck_assert_int_eq(stir_device_flush_l2(dev, s), 0);
	ck_assert_int_eq(stir_device_flush_l2(dev, NULL), 0);
	ck_assert_int_eq(fake()->memset32_async, 2);
	/* the flush buffer is one allocation, kept */
	ck_assert_int_eq(fake()->live_allocs, 1);
	ck_assert_int_eq(stir_event_record(e1, NULL), 0);
	ck_assert_int_eq(stir_event_synchronize(e1), 0);
	ck_assert_int_eq(stir_stream_synchronize(s), 0);
	ck_assert_int_eq(stir_event_elapsed_ms(e0, e1, &ms), 0);
	ck_assert(ms == 0.5f); /* one tick of the fake clock */
	stir_event_free(e0);
	stir_event_free(e1);
	stir_stream_free(s);
	stir_event_free(NULL);
	stir_stream_free(NULL);
	ck_assert_int_eq(fake()->live_streams, 0);
	ck_assert_int_eq(fake()->live_events, 0);
	stir_device_free(dev);
	ck_assert_int_eq(fake()->live_allocs, 0);
	ck_assert_int_eq(fake()->primary_refs, 0);
	ck_assert_int_eq(fake()->ctx_depth, 0);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	stir_ctx_free(ctx);
}
END_TEST

/* ctx, dev: a module of the fake kernels. */
static stir_gpu_module *fake_module(stir_ctx *ctx, stir_device *dev)
{
	static const char image[] = "\x7f" "ELF fake cubin";
	stir_gpu_code *code = stir_gpu_code_alloc(ctx, "fake.cu", "sm_90",
		image, sizeof(image));
	ck_assert_ptr_nonnull(code);
	stir_gpu_module *m = stir_gpu_module_load(dev, code);
	stir_gpu_code_free(code);
	ck_assert_ptr_nonnull(m);
	return m;
}

static const stir_gpu_param vadd_sig[] = {
	{ "a", STIR_ARG_PTR }, { "b", STIR_ARG_PTR }, { "c", STIR_ARG_PTR },
	{ "n", STIR_ARG_I32 },
};

START_TEST(test_fake_module)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_device *dev = open_fake(ctx);
	stir_gpu_module *m = fake_module(ctx, dev);
	ck_assert_int_eq(fake()->live_modules, 1);
	stir_gpu_func *f = stir_gpu_module_get_func(m, "vadd");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_eq(stir_gpu_module_get_func(m, "vadd"), f);
	ck_assert_str_eq(stir_gpu_func_get_name(f), "vadd");
	ck_assert_ptr_null(stir_gpu_module_get_func(m, "vsub"));
	ck_assert_str_eq(last_msg(ctx), "module 'fake.cu' has no kernel 'vsub'");
	/* an image the driver rejects */
	stir_gpu_code *junk = stir_gpu_code_alloc(ctx, "junk.ptx", "compute_90",
		"garbage", 7);
	ck_assert_ptr_null(stir_gpu_module_load(dev, junk));
	ck_assert_str_eq(last_msg(ctx), "cuModuleLoadData failed: "
		"CUDA_ERROR_INVALID_IMAGE: device kernel image is invalid");
	const stir_diag *d = stir_ctx_get_diagnostic(ctx,
		stir_ctx_n_diagnostics(ctx) - 1);
	ck_assert_str_eq(stir_diag_get_message(stir_diag_get_note(d, 0)),
		"loading 'junk.ptx' (compute_90) on device 0 (Fake CUDA Device, "
		"sm_90)");
	stir_gpu_code_free(junk);
	stir_device_free(dev);
	stir_gpu_module_free(m);
	ck_assert_int_eq(fake()->live_modules, 0);
	ck_assert_int_eq(fake()->primary_refs, 0);
	ck_assert_int_eq(fake()->ctx_depth, 0);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_fake_launch_vadd)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_device *dev = open_fake(ctx);
	stir_gpu_module *m = fake_module(ctx, dev);
	stir_gpu_func *f = stir_gpu_module_get_func(m, "vadd");
	enum { N = 1000 };
	float a[N], b[N], c[N];
	for (int i = 0; i < N; i++) {
		a[i] = (float)i * 0.25f;
		b[i] = 3.0f - (float)i;
	}
	stir_gpu_buf *da = stir_gpu_buf_alloc(dev, sizeof(a));
	stir_gpu_buf *db = stir_gpu_buf_alloc(dev, sizeof(b));
	stir_gpu_buf *dc = stir_gpu_buf_alloc(dev, sizeof(c));
	stir_gpu_buf_copy_from_host(da, 0, a, sizeof(a));
	stir_gpu_buf_copy_from_host(db, 0, b, sizeof(b));
	stir_gpu_buf_fill_u32(dc, 0, N, 0xffffffffu);
	stir_arg_pack *p = stir_arg_pack_alloc(ctx, 4, vadd_sig);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(stir_arg_pack_n_params(p), 4);
	ck_assert_str_eq(stir_arg_pack_get_param_name(p, 3), "n");
	ck_assert_int_eq(stir_arg_pack_get_param_type(p, 3), STIR_ARG_I32);
	ck_assert_ptr_null(stir_arg_pack_get_param_name(p, 4));
	/* by name, in any order */
	ck_assert_int_eq(stir_arg_pack_set_i32(p, "n", N), 0);
	ck_assert_int_eq(stir_arg_pack_set_buf(p, "c", dc), 0);
	ck_assert_int_eq(stir_arg_pack_set_buf(p, "b", db), 0);
	ck_assert_int_eq(stir_arg_pack_set_ptr(p, "a",
		stir_gpu_buf_get_ptr(da)), 0);
	ck_assert_int_eq(stir_arg_pack_verify(p), 0);
	stir_stream *s = stir_stream_alloc(dev);
	stir_launch_config cfg = { .grid = { (N + 127) / 128 },
		.block = { 128 }, .stream = s };
	ck_assert_int_eq(stir_gpu_func_launch(f, &cfg, p), 0);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	ck_assert_int_eq(fake()->launches, 1);
	ck_assert_uint_eq(fake()->last_grid[0], 8);
	ck_assert_uint_eq(fake()->last_grid[1], 1);
	ck_assert_uint_eq(fake()->last_grid[2], 1);
	ck_assert_uint_eq(fake()->last_block[0], 128);
	ck_assert_uint_eq(fake()->last_block[1], 1);
	ck_assert_uint_eq(fake()->last_block[2], 1);
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(dc, 0, c, sizeof(c)), 0);
	for (int i = 0; i < N; i++)
		ck_assert(c[i] == a[i] + b[i]);
	stir_arg_pack_free(p);
	stir_stream_free(s);
	stir_gpu_buf_free(da);
	stir_gpu_buf_free(db);
	stir_gpu_buf_free(dc);
	stir_gpu_module_free(m);
	stir_device_free(dev);
	ck_assert_int_eq(fake()->live_allocs, 0);
	ck_assert_int_eq(fake()->primary_refs, 0);
	ck_assert_int_eq(fake()->ctx_depth, 0);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_fake_launch_rejected)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_device *dev = open_fake(ctx);
	stir_gpu_module *m = fake_module(ctx, dev);
	stir_gpu_func *f = stir_gpu_module_get_func(m, "vadd");
	stir_gpu_buf *buf = stir_gpu_buf_alloc(dev, 64);
	stir_launch_config cfg = { .grid = { 1 }, .block = { 16 } };
	stir_arg_pack *p = stir_arg_pack_alloc(ctx, 4, vadd_sig);
	stir_arg_pack_set_buf(p, "a", buf);
	stir_arg_pack_set_buf(p, "b", buf);
	stir_arg_pack_set_buf(p, "c", buf);

	/* a missing argument */
	ck_assert_int_eq(stir_gpu_func_launch(f, &cfg, p), -1);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_str_eq(last_msg(ctx),
		"cannot launch 'vadd': argument 'n' (i32) is not set");
	ck_assert_int_eq(stir_arg_pack_verify(p), -1);
	ck_assert_str_eq(last_msg(ctx), "kernel argument 'n' (i32) is not set");

	/* the wrong type, after a good value: the pack refuses until
	 * cleared, so the stale 16 cannot be launched */
	ck_assert_int_eq(stir_arg_pack_set_i32(p, "n", 16), 0);
	ck_assert_int_eq(stir_arg_pack_set_f32(p, "n", 16.0f), -1);
	ck_assert_str_eq(last_msg(ctx), "kernel argument 'n' is i32, not f32");
	stir_ctx_clear_diagnostics(ctx);
	ck_assert_int_eq(stir_gpu_func_launch(f, &cfg, p), -1);
	ck_assert_str_eq(diag_msg(ctx, 0), "cannot launch 'vadd': setting one "
		"of its arguments failed");
	ck_assert_str_eq(diag_msg(ctx, 1),
		"cannot launch 'vadd': argument 'n' (i32) is not set");
	ck_assert_int_eq(stir_arg_pack_set_i32(p, "n", 16), 0);
	ck_assert_int_eq(stir_gpu_func_launch(f, &cfg, p), -1);

	/* an unknown name lists the signature */
	stir_ctx_clear_diagnostics(ctx);
	ck_assert_int_eq(stir_arg_pack_set_i32(p, "m", 1), -1);
	const stir_diag *d = stir_ctx_get_diagnostic(ctx, 0);
	ck_assert_str_eq(stir_diag_get_message(d),
		"no kernel parameter named 'm'");
	ck_assert_str_eq(stir_diag_get_message(stir_diag_get_note(d, 0)),
		"the kernel's parameters are (ptr a, ptr b, ptr c, i32 n)");
	ck_assert_int_eq(stir_arg_pack_set_buf(p, "a", NULL), -1);
	ck_assert_int_eq(fake()->launches, 0);

	/* clear, set all again: it launches */
	stir_arg_pack_clear(p);
	ck_assert_int_eq(stir_arg_pack_verify(p), -1);
	stir_arg_pack_set_buf(p, "a", buf);
	stir_arg_pack_set_buf(p, "b", buf);
	stir_arg_pack_set_buf(p, "c", buf);
	stir_arg_pack_set_i32(p, "n", 16);
	stir_ctx_clear_diagnostics(ctx);
	ck_assert_int_eq(stir_gpu_func_launch(f, &cfg, p), 0);
	ck_assert_int_eq(fake()->launches, 1);

	/* a bad shape */
	stir_launch_config zero = { .grid = { 0 }, .block = { 16 } };
	ck_assert_int_eq(stir_gpu_func_launch(f, &zero, p), -1);
	ck_assert_str_eq(last_msg(ctx),
		"cannot launch 'vadd' with a grid of 0 in x");
	/* the driver's refusal names the call and the shape */
	stir_launch_config big = { .grid = { 1 }, .block = { 64, 32 } };
	ck_assert_int_eq(stir_gpu_func_launch(f, &big, p), -1);
	ck_assert_str_eq(last_msg(ctx), "cuLaunchKernel failed: "
		"CUDA_ERROR_INVALID_VALUE: invalid argument");
	d = stir_ctx_get_diagnostic(ctx, stir_ctx_n_diagnostics(ctx) - 1);
	ck_assert_str_eq(stir_diag_get_message(stir_diag_get_note(d, 0)),
		"launching 'vadd' with grid (1, 1, 1), block (64, 32, 1) and 0 "
		"bytes of dynamic shared memory");
	ck_assert_int_eq(fake()->launches, 1);
	ck_assert_int_eq(fake()->ctx_depth, 0);
	stir_arg_pack_free(p);
	stir_gpu_buf_free(buf);
	stir_gpu_module_free(m);
	stir_device_free(dev);
	ck_assert_int_eq(fake()->primary_refs, 0);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_fake_signature_mismatch)
{
	/* the driver describes the kernel's parameters: a pack whose
	 * signature disagrees in count or sizes is refused */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_device *dev = open_fake(ctx);
	stir_gpu_module *m = fake_module(ctx, dev);
	stir_gpu_func *f = stir_gpu_module_get_func(m, "vadd");
	stir_launch_config cfg = { .grid = { 1 }, .block = { 32 } };
	stir_gpu_param wide[4];
	memcpy(wide, vadd_sig, sizeof(wide));
	wide[3].type = STIR_ARG_I64;
	stir_arg_pack *p = stir_arg_pack_alloc(ctx, 4, wide);
	stir_arg_pack_set_ptr(p, "a", 0);
	stir_arg_pack_set_ptr(p, "b", 0);
	stir_arg_pack_set_ptr(p, "c", 0);
	stir_arg_pack_set_i64(p, "n", 0);
	ck_assert_int_eq(stir_gpu_func_launch(f, &cfg, p), -1);
	ck_assert_str_eq(last_msg(ctx), "cannot launch 'vadd': parameter 3 "
		"takes 4 bytes, but argument 'n' is i64");
	stir_arg_pack_free(p);
	p = stir_arg_pack_alloc(ctx, 3, vadd_sig);
	stir_arg_pack_set_ptr(p, "a", 0);
	stir_arg_pack_set_ptr(p, "b", 0);
	stir_arg_pack_set_ptr(p, "c", 0);
	ck_assert_int_eq(stir_gpu_func_launch(f, &cfg, p), -1);
	ck_assert_str_eq(last_msg(ctx), "cannot launch 'vadd': the kernel "
		"takes 4 parameters, the arguments are for 3");
	/* no pack at all for a kernel with parameters */
	ck_assert_int_eq(stir_gpu_func_launch(f, &cfg, NULL), -1);
	ck_assert_str_eq(last_msg(ctx), "cannot launch 'vadd': the kernel "
		"takes 4 parameters, the arguments are for 0");
	ck_assert_int_eq(fake()->launches, 0);
	stir_arg_pack_free(p);
	stir_gpu_module_free(m);
	stir_device_free(dev);
	ck_assert_int_eq(fake()->ctx_depth, 0);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_fake_launch_scalars)
{
	/* every scalar type reaches its parameter */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_device *dev = open_fake(ctx);
	stir_gpu_module *m = fake_module(ctx, dev);
	stir_gpu_func *f = stir_gpu_module_get_func(m, "mix");
	static const stir_gpu_param sig[] = {
		{ "out", STIR_ARG_PTR }, { "i64", STIR_ARG_I64 },
		{ "f32", STIR_ARG_F32 }, { "f64", STIR_ARG_F64 },
		{ "u32", STIR_ARG_U32 }, { "u64", STIR_ARG_U64 },
		{ "i32", STIR_ARG_I32 },
	};
	stir_arg_pack *p = stir_arg_pack_alloc(ctx, 7, sig);
	stir_gpu_buf *out = stir_gpu_buf_alloc(dev, 6 * sizeof(double));
	ck_assert_int_eq(stir_arg_pack_set_i32(p, "i32", -7), 0);
	ck_assert_int_eq(stir_arg_pack_set_u64(p, "u64", 1ull << 40), 0);
	ck_assert_int_eq(stir_arg_pack_set_u32(p, "u32", 4000000000u), 0);
	ck_assert_int_eq(stir_arg_pack_set_f64(p, "f64", 0.1), 0);
	ck_assert_int_eq(stir_arg_pack_set_f32(p, "f32", 2.5f), 0);
	ck_assert_int_eq(stir_arg_pack_set_i64(p, "i64", -(1ll << 33)), 0);
	ck_assert_int_eq(stir_arg_pack_set_buf(p, "out", out), 0);
	stir_launch_config cfg = { .grid = { 1 }, .block = { 1 } };
	ck_assert_int_eq(stir_gpu_func_launch(f, &cfg, p), 0);
	double v[6];
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(out, 0, v, sizeof(v)), 0);
	ck_assert(v[0] == -(double)(1ll << 33));
	ck_assert(v[1] == 2.5);
	ck_assert(v[2] == 0.1);
	ck_assert(v[3] == 4000000000.0);
	ck_assert(v[4] == (double)(1ull << 40));
	ck_assert(v[5] == -7.0);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	stir_arg_pack_free(p);
	stir_gpu_buf_free(out);
	stir_gpu_module_free(m);
	stir_device_free(dev);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_fake_shared_memory)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_device *dev = open_fake(ctx);
	stir_gpu_module *m = fake_module(ctx, dev);
	stir_gpu_func *f = stir_gpu_module_get_func(m, "noparams");
	stir_arg_pack *p = stir_arg_pack_alloc(ctx, 0, NULL);
	ck_assert_ptr_nonnull(p);
	stir_launch_config cfg = { .grid = { 2, 3, 4 }, .block = { 8, 8, 2 },
		.shared_bytes = 40 << 10 };
	/* below 48 KiB: no opt-in needed */
	ck_assert_int_eq(stir_gpu_func_launch(f, &cfg, p), 0);
	ck_assert_int_eq(fake()->shared_optin, 0);
	ck_assert_uint_eq(fake()->last_grid[2], 4);
	ck_assert_uint_eq(fake()->last_block[1], 8);
	ck_assert_uint_eq(fake()->last_shared, 40 << 10);
	/* above: opted in, once */
	cfg.shared_bytes = 100 << 10;
	ck_assert_int_eq(stir_gpu_func_launch(f, &cfg, NULL), 0);
	ck_assert_int_eq(fake()->shared_optin, 100 << 10);
	ck_assert_int_eq(fake()->launches, 2);
	/* beyond what the device offers: refused before the driver */
	cfg.shared_bytes = 300 << 10;
	ck_assert_int_eq(stir_gpu_func_launch(f, &cfg, NULL), -1);
	ck_assert_str_eq(last_msg(ctx), "cannot launch 'noparams' with 307200 "
		"bytes of dynamic shared memory: Fake CUDA Device allows "
		"232448");
	ck_assert_int_eq(fake()->launches, 2);
	stir_arg_pack_free(p);
	stir_gpu_module_free(m);
	stir_device_free(dev);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_arg_pack_signature)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_gpu_param dup[] = { { "x", STIR_ARG_PTR }, { "x", STIR_ARG_I32 } };
	ck_assert_ptr_null(stir_arg_pack_alloc(ctx, 2, dup));
	ck_assert_str_eq(last_msg(ctx), "kernel parameter 'x' is declared twice");
	stir_gpu_param unnamed[] = { { "", STIR_ARG_PTR } };
	ck_assert_ptr_null(stir_arg_pack_alloc(ctx, 1, unnamed));
	ck_assert_str_eq(last_msg(ctx), "kernel parameter 0 has no name");
	stir_gpu_param untyped[] = { { "x", STIR_ARG_NONE } };
	ck_assert_ptr_null(stir_arg_pack_alloc(ctx, 1, untyped));
	ck_assert_str_eq(last_msg(ctx), "kernel parameter 'x' has no valid type");
	ck_assert_ptr_null(stir_arg_pack_alloc(ctx, 2, NULL));
	ck_assert_str_eq(stir_arg_type_get_name(STIR_ARG_F64), "f64");
	ck_assert_str_eq(stir_arg_type_get_name((stir_arg_type)99), "?");
	ck_assert_uint_eq(stir_arg_type_size(STIR_ARG_U32), 4);
	ck_assert_uint_eq(stir_arg_type_size(STIR_ARG_PTR), 8);
	/* the names are copied */
	char name[8] = "alpha";
	stir_gpu_param one[] = { { name, STIR_ARG_F32 } };
	stir_arg_pack *p = stir_arg_pack_alloc(ctx, 1, one);
	strcpy(name, "beta");
	ck_assert_int_eq(stir_arg_pack_set_f32(p, "alpha", 1.0f), 0);
	ck_assert_int_eq(stir_arg_pack_verify(p), 0);
	stir_arg_pack_free(p);
	/* a pointer by its index: the same value as by name; another type or
	 * an index out of range refused, and the pack with it */
	stir_gpu_param two[] = { { "a", STIR_ARG_PTR }, { "n", STIR_ARG_I32 } };
	p = stir_arg_pack_alloc(ctx, 2, two);
	ck_assert_int_eq(stir_arg_pack_set_i32(p, "n", 3), 0);
	ck_assert_int_eq(stir_arg_pack_set_ptr_at(p, 0, 0x1234), 0);
	ck_assert_int_eq(stir_arg_pack_verify(p), 0);
	ck_assert_uint_eq(*(uint64_t *)stir_arg_pack_get_kernel_params(p)[0],
		0x1234);
	ck_assert_int_eq(stir_arg_pack_set_ptr_at(p, 1, 0x10), -1);
	ck_assert_str_eq(last_msg(ctx), "kernel argument 'n' is i32, not ptr");
	ck_assert_int_eq(stir_arg_pack_verify(p), -1);
	stir_arg_pack_clear(p);
	ck_assert_int_eq(stir_arg_pack_set_ptr_at(p, 2, 0x10), -1);
	ck_assert_str_eq(last_msg(ctx), "no kernel parameter 2 (the kernel "
		"has 2)");
	ck_assert_int_eq(stir_arg_pack_set_ptr_at(NULL, 0, 0x10), -1);
	stir_arg_pack_free(p);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_fake_nvrtc_vadd)
{
	/* the whole chain: NVRTC compiles a real cubin that the (fake)
	 * driver loads, and the launch binds arguments by name */
	if (skip_without_nvrtc(__func__))
		return;
	static const char *src =
		"extern \"C\" __global__ void vadd(const float *a, "
		"const float *b, float *c, int n)\n"
		"{\n"
		"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"\tif (i < n)\n"
		"\t\tc[i] = a[i] + b[i];\n"
		"}\n";
	stir_ctx *ctx = stir_ctx_alloc();
	stir_device *dev = open_fake(ctx);
	/* the architecture comes from the device */
	stir_compile_options o = { .device = dev,
		.flags = STIR_COMPILE_NO_CACHE };
	stir_gpu_code *code = stir_gpu_code_compile(ctx, "vadd.cu", src, &o);
	if (!code)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(code);
	ck_assert_str_eq(stir_gpu_code_get_arch(code), "sm_90");
	stir_gpu_module *m = stir_gpu_module_load(dev, code);
	ck_assert_ptr_nonnull(m);
	stir_gpu_func *f = stir_gpu_module_get_func(m, "vadd");
	ck_assert_ptr_nonnull(f);
	float a[3] = { 1, 2, 3 }, b[3] = { 10, 20, 30 }, c[3] = { 0 };
	stir_gpu_buf *da = stir_gpu_buf_alloc(dev, sizeof(a));
	stir_gpu_buf *db = stir_gpu_buf_alloc(dev, sizeof(b));
	stir_gpu_buf *dc = stir_gpu_buf_alloc(dev, sizeof(c));
	stir_gpu_buf_copy_from_host(da, 0, a, sizeof(a));
	stir_gpu_buf_copy_from_host(db, 0, b, sizeof(b));
	stir_arg_pack *p = stir_arg_pack_alloc(ctx, 4, vadd_sig);
	stir_arg_pack_set_buf(p, "a", da);
	stir_arg_pack_set_buf(p, "b", db);
	stir_arg_pack_set_buf(p, "c", dc);
	stir_arg_pack_set_i32(p, "n", 3);
	stir_launch_config cfg = { .grid = { 1 }, .block = { 32 } };
	ck_assert_int_eq(stir_gpu_func_launch(f, &cfg, p), 0);
	stir_gpu_buf_copy_to_host(dc, 0, c, sizeof(c));
	ck_assert(c[0] == 11 && c[1] == 22 && c[2] == 33);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	stir_arg_pack_free(p);
	stir_gpu_buf_free(da);
	stir_gpu_buf_free(db);
	stir_gpu_buf_free(dc);
	stir_gpu_module_free(m);
	stir_gpu_code_free(code);
	stir_device_free(dev);
	ck_assert_int_eq(fake()->primary_refs, 0);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_null_propagates)
{
	/* a failed creation returns NULL; handing that NULL on fails
	 * quietly (the first failure was reported) instead of crashing, so
	 * a chain of calls can be checked once at the end */
	uint32_t w = 0;
	float ms;
	ck_assert_ptr_null(stir_gpu_buf_alloc(NULL, 16));
	ck_assert_ptr_null(stir_stream_alloc(NULL));
	ck_assert_ptr_null(stir_event_alloc(NULL));
	ck_assert_ptr_null(stir_gpu_module_load(NULL, NULL));
	ck_assert_ptr_null(stir_gpu_module_get_func(NULL, "k"));
	ck_assert_int_eq(stir_gpu_func_launch(NULL, NULL, NULL), -1);
	ck_assert_int_eq(stir_gpu_buf_copy_from_host(NULL, 0, &w, 4), -1);
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(NULL, 0, &w, 4), -1);
	ck_assert_int_eq(stir_gpu_buf_copy(NULL, 0, NULL, 0, 4), -1);
	ck_assert_int_eq(stir_gpu_buf_memset(NULL, 0, 4, 0), -1);
	ck_assert_int_eq(stir_gpu_buf_fill_u32(NULL, 0, 1, 0), -1);
	ck_assert_uint_eq(stir_gpu_buf_get_ptr(NULL), 0);
	ck_assert_int_eq(stir_stream_synchronize(NULL), -1);
	ck_assert_int_eq(stir_event_record(NULL, NULL), -1);
	ck_assert_int_eq(stir_event_synchronize(NULL), -1);
	ck_assert_int_eq(stir_event_elapsed_ms(NULL, NULL, &ms), -1);
	ck_assert_int_eq(stir_device_synchronize(NULL), -1);
	ck_assert_int_eq(stir_device_flush_l2(NULL, NULL), -1);
	ck_assert_ptr_null(stir_device_get_name(NULL));
	ck_assert_int_eq(stir_arg_pack_set_i32(NULL, "n", 1), -1);
	ck_assert_int_eq(stir_arg_pack_set_buf(NULL, "p", NULL), -1);
	ck_assert_int_eq(stir_arg_pack_verify(NULL), -1);
	ck_assert_int_eq(stir_arg_pack_n_params(NULL), 0);
	ck_assert_ptr_null(stir_gpu_code_get_data(NULL));
	ck_assert(!stir_gpu_code_is_from_cache(NULL));
	stir_arg_pack_clear(NULL);
	stir_arg_pack_free(NULL);
	stir_gpu_buf_free(NULL);
	stir_gpu_module_free(NULL);
	stir_gpu_code_free(NULL);
	stir_device_free(NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runtime");
	TCase *tc = tcase_create("sha256");
	tcase_add_test(tc, test_sha256_vectors);
	tcase_add_test(tc, test_sha256_incremental);
	suite_add_tcase(s, tc);

	/* four processes writing 256 KiB entries 50 times each take a few
	 * seconds on a loaded machine under the sanitizers */
	tc = tcase_create("cache");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cache_roundtrip);
	tcase_add_test(tc, test_cache_rejects_damage);
	tcase_add_test(tc, test_cache_concurrent);
	tcase_add_test(tc, test_cache_unwritable);
	tcase_add_test(tc, test_cache_dir_from_env);
	tcase_add_test(tc, test_mkdir_p);
	suite_add_tcase(s, tc);

	/* NVRTC takes a few hundred milliseconds per compilation */
	tc = tcase_create("nvrtc");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_pick_arch);
	tcase_add_test(tc, test_nvrtc_missing);
	tcase_add_test(tc, test_nvrtc_compile_half);
	tcase_add_test(tc, test_nvrtc_syntax_error);
	tcase_add_test(tc, test_nvrtc_bad_arguments);
	tcase_add_test(tc, test_nvrtc_cache);
	tcase_add_test(tc, test_nvrtc_cache_corrupted);
	tcase_add_test(tc, test_nvrtc_cache_unwritable);
	tcase_add_test(tc, test_nvrtc_cache_disabled);
	tcase_add_test(tc, test_code_alloc);
	suite_add_tcase(s, tc);

	/* each test runs in its own process (check forks), so each loads
	 * the driver afresh with its own environment */
	tc = tcase_create("driver");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_no_driver);
	tcase_add_test(tc, test_driver_path_missing);
	tcase_add_test(tc, test_fake_no_device);
	tcase_add_test(tc, test_fake_open);
	tcase_add_test(tc, test_fake_open_without_getproc);
	tcase_add_test(tc, test_fake_memory);
	tcase_add_test(tc, test_fake_streams_events);
	tcase_add_test(tc, test_fake_module);
	tcase_add_test(tc, test_fake_launch_vadd);
	tcase_add_test(tc, test_fake_launch_rejected);
	tcase_add_test(tc, test_fake_signature_mismatch);
	tcase_add_test(tc, test_fake_launch_scalars);
	tcase_add_test(tc, test_fake_shared_memory);
	tcase_add_test(tc, test_arg_pack_signature);
	tcase_add_test(tc, test_null_propagates);
	tcase_add_test(tc, test_fake_nvrtc_vadd);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
