/* Generated CUDA, run: the emitted source of each test program is compiled
 * for the host with g++ against the CUDA emulation of tests/emu/cuda_emu.h
 * (one POSIX thread per CUDA thread, real barriers and warp shuffles), and
 * run through the whole GPU path of the library -- upload, launches,
 * download -- on the fake driver of tests/fake_cuda.c, which loads such
 * shared objects as modules.  The results must match the interpreter's on
 * the same seeded random inputs, with the arrays the kernel writes
 * poisoned in both runs.
 *
 * The programs: the hand-written stage III programs of tests/cuda (against
 * their stage I references), the unscheduled stage III catalogue of
 * tests/golden (one thread, against the stage I catalogue), two of
 * tests/stages (against their own interpretation), and the fast SDDMM
 * schedules of bench/sddmm_schedule.c (fused, and row by row on
 * examples/sddmm_rows.stir) at several feature sizes on the small graph
 * of tests/data/graphs, which has a hub row and empty rows (against
 * examples/sddmm.stir at stage I).
 *
 * Compiled objects are cached in the build tree by a hash of their source,
 * so only changed kernels are compiled again.  Skipped (77) without g++. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stir/stir.h>
#include "bench/sddmm_schedule.h"
#include "tests/testutil.h"

/* One program to run. */
typedef struct emu_prog {
	char file[256];            /* the stage III program */
	char kernel[128];          /* its kernel */
	char ref_file[256];        /* the program of the reference */
	char ref_kernel[128];      /* its kernel ("" for the kernel itself) */
	const char *sizes;         /* sizes to bind first, or NULL */
	/* a schedule applied to the kernel once read, with its argument */
	int (*schedule)(stir_kernel *k, int64_t arg);
	int64_t arg;
	const char *graph;         /* a Matrix Market file that gives J's
	                              structure and m, n, nnz, or NULL; then
	                              arg % 1024 is the features */
	char so[1200];             /* the compiled object */
} emu_prog;

#define MAX_PROGS 80
static emu_prog progs[MAX_PROGS];
static int n_progs;

/* Larger sizes for the hand-written programs, so that their launches span
 * several blocks (small enough for one host thread per CUDA thread). */
static const char *const larger[][2] = {
	{ "csrmm_rows", "m=40,n=30,feat=48" },
	{ "diag", "m=100" },
	{ "halfmix", "n=300" },
	{ "horizontal", "m=150,n=200" },
	{ "ints", "n=100" },
	{ "mathfns", "n=200" },
	{ "names", "threadIdx=40,int=25" },
	{ "softmax_block", "m=20,n=150" },
	{ "spmv_rows16", "m=40,n=60" },
	{ "spmv_atomic", "m=300,n=200" },
	{ "spmv_warp", "m=30,n=100" },
	{ "tiled_mv", "m=100,n=150" },
	{ "vectorize", "n=300" },
};

/* s: a 64-bit FNV-1a hash of s, continuing from h. */
static uint64_t hash(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* The compiler command, without its files. */
static const char compiler[] = "g++ -std=c++17 -O1 -w -shared -fPIC";

/* path, text: write a file. */
static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* p, ctx, m: p's kernel, read into *m and scheduled, or NULL. */
static stir_kernel *load_kernel(const emu_prog *p, stir_ctx *ctx,
	stir_module **m)
{
	*m = stir_module_read_file(ctx, test_path(p->file));
	stir_kernel *k = *m ? stir_module_find_kernel(*m, p->kernel) : NULL;
	if (k && p->schedule && p->schedule(k, p->arg) < 0)
		return NULL;
	return k;
}

/* p, ctx: emit p's kernel with the wrappers the emulated driver calls,
 * and name the object it compiles to.  Returns the source to compile (to
 * free), or NULL when the object is cached already. */
static char *prepare_source(emu_prog *p, stir_ctx *ctx, const char *cache)
{
	stir_module *m;
	stir_kernel *k = load_kernel(p, ctx, &m);
	stir_cuda_plan *plan = k ? stir_cuda_plan_alloc(k, 0) : NULL;
	if (!plan) {
		/* the test of this program fails when it finds no object */
		stir_ctx_print_diagnostics(ctx, stderr);
		fprintf(stderr, "cannot emit %s\n", p->file);
		stir_module_free(m);
		snprintf(p->so, sizeof(p->so), "%s/missing.so", cache);
		return NULL;
	}
	char *src = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&src, &len);
	fputs(stir_cuda_plan_get_source(plan), f);
	fputs("\n// the entry points of the emulated driver\n", f);
	for (int i = 0; i < stir_cuda_plan_n_launches(plan); i++) {
		const char *n = stir_cuda_plan_get_launch_name(plan, i);
		fprintf(f, "extern \"C\" void stir_emu_k_%s(void **a)\n"
			"{\n  stir_emu_call(%s, a);\n}\n"
			"extern \"C\" const size_t *stir_emu_s_%s(size_t *n)\n"
			"{\n  *n = stir_emu_sig<decltype(%s)>::n;\n"
			"  return stir_emu_sig<decltype(%s)>::size;\n}\n", n, n, n, n, n);
	}
	fclose(f);
	stir_cuda_plan_free(plan);
	stir_module_free(m);
	uint64_t h = hash(hash(0xcbf29ce484222325ULL, compiler), src);
	snprintf(p->so, sizeof(p->so), "%s/%016llx.so", cache,
		(unsigned long long)h);
	if (access(p->so, R_OK) == 0) {
		free(src);
		return NULL;
	}
	return src;
}

/* Compile every program not cached yet, eight at a time. */
static void compile_all(void)
{
	const char *b = getenv("STIR_BUILDDIR");
	char cache[1024], inc[1024];
	snprintf(cache, sizeof(cache), "%s/tests/emu-cache", b ? b : ".");
	snprintf(inc, sizeof(inc), "%s", test_path("tests/emu"));
	mkdir(cache, 0777);
	stir_ctx *ctx = stir_ctx_alloc();
	int running = 0;
	for (int i = 0; i <= n_progs; i++) {
		while (running && (running >= 8 || i == n_progs)) {
			int st;
			if (wait(&st) < 0)
				break;
			running--;
		}
		if (i == n_progs)
			break;
		char *src = prepare_source(&progs[i], ctx, cache);
		bool twice = false;
		for (int j = 0; j < i && src; j++)
			twice |= !strcmp(progs[j].so, progs[i].so);
		if (!src || twice) {
			/* cached, or being compiled for another program */
			free(src);
			continue;
		}
		char cu[1300], cmd[8192];
		snprintf(cu, sizeof(cu), "%s.cu", progs[i].so);
		int w = write_file(cu, src);
		free(src);
		if (w < 0) {
			fprintf(stderr, "cannot write %s\n", cu);
			continue;
		}
		/* into a temporary name, renamed when complete */
		snprintf(cmd, sizeof(cmd), "%s -I%s -include cuda_emu.h -x c++ %s "
			"-o %s.tmp && mv %s.tmp %s", compiler, inc, cu,
			progs[i].so, progs[i].so, progs[i].so);
		pid_t pid = fork();
		if (pid == 0) {
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			running++;
	}
	stir_ctx_free(ctx);
}

/* file, kernel, ref_file, ref_kernel, sizes: add a program (returned, for
 * the optional fields). */
static emu_prog *add(const char *file, const char *kernel,
	const char *ref_file, const char *ref_kernel, const char *sizes)
{
	emu_prog *p = &progs[n_progs++];
	snprintf(p->file, sizeof(p->file), "%s", file);
	snprintf(p->kernel, sizeof(p->kernel), "%s", kernel);
	snprintf(p->ref_file, sizeof(p->ref_file), "%s", ref_file);
	snprintf(p->ref_kernel, sizeof(p->ref_kernel), "%s", ref_kernel);
	p->sizes = sizes;
	return p;
}

/* k, feat: the fast SDDMM schedule for "feat" features. */
static int sddmm_fast(stir_kernel *k, int64_t feat)
{
	return bench_sddmm_schedule(k, bench_sddmm_map_features(feat));
}

/* k, arg: the row SDDMM schedule for arg % 1024 features with at most
 * arg / 1024 lanes. */
static int sddmm_rows(stir_kernel *k, int64_t arg)
{
	return bench_sddmm_rows_schedule(k, bench_sddmm_map_lanes(arg % 1024,
		arg / 1024));
}

/* The programs: tests/cuda, tests/golden's stage III catalogue, two of
 * tests/stages. */
static void find_programs(void)
{
	DIR *d = opendir(test_path("tests/cuda"));
	struct dirent *de;
	while (d && (de = readdir(d)) && n_progs < MAX_PROGS - 32) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".stir"))
			continue;
		char file[300], name[256], ref[300];
		snprintf(file, sizeof(file), "tests/cuda/%s", de->d_name);
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), de->d_name);
		snprintf(ref, sizeof(ref), "%s_ref", name);
		add(file, name, file, ref, NULL);
		for (size_t i = 0; i < sizeof(larger) / sizeof(larger[0]); i++)
			if (!strcmp(larger[i][0], name))
				add(file, name, file, ref, larger[i][1]);
	}
	if (d)
		closedir(d);
	d = opendir(test_path("tests/golden"));
	while (d && (de = readdir(d)) && n_progs < MAX_PROGS - 8) {
		size_t len = strlen(de->d_name);
		if (len < 12 || strcmp(de->d_name + len - 11, ".stage3.stir"))
			continue;
		char file[300], name[256], ref[300];
		snprintf(file, sizeof(file), "tests/golden/%s", de->d_name);
		snprintf(name, sizeof(name), "%.*s", (int)(len - 11), de->d_name);
		snprintf(ref, sizeof(ref), "examples/%s.stir", name);
		add(file, name, ref, name, NULL);
	}
	if (d)
		closedir(d);
	add("tests/stages/annotations.stage3.stir", "scale",
		"tests/stages/annotations.stage3.stir", "", NULL);
	add("tests/stages/shared.stage3.stir", "rowsum",
		"tests/stages/shared.stage3.stir", "", "m=20,n=100");
	/* lanes per non-zero and vector width: 6: 1 and 2 (no reduction);
	 * 32: 8 and 4 (four non-zeros a warp); 96: 8 and 4, three vectors a
	 * lane; 256: 32 and 4, two vectors a lane */
	static const int64_t feats[] = { 6, 32, 96, 256 };
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		emu_prog *p = add("examples/sddmm.stir", "sddmm",
			"examples/sddmm.stir", "sddmm", NULL);
		p->schedule = sddmm_fast;
		p->arg = feats[i];
		p->graph = "tests/data/graphs/small.mtx";
	}
	/* the row schedule: the same feature sizes, and 32 with at most 4
	 * lanes (64 non-zeros of a row at a time, more than most rows have) */
	static const int64_t rows[] = { 32 * 1024 + 6, 32 * 1024 + 32,
		32 * 1024 + 96, 32 * 1024 + 256, 4 * 1024 + 32 };
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		emu_prog *p = add("examples/sddmm_rows.stir", "sddmm_rows",
			"examples/sddmm.stir", "sddmm", NULL);
		p->schedule = sddmm_rows;
		p->arg = rows[i];
		p->graph = "tests/data/graphs/small.mtx";
	}
}

/* ---- running ---------------------------------------------------------- */

/* The fake driver in the build tree. */
static const char *fake_path(void)
{
	static char path[4096];
	const char *b = getenv("STIR_BUILDDIR");
	snprintf(path, sizeof(path), "%s/tests/.libs/libfakecuda.so",
		b ? b : ".");
	return path;
}

/* t: the tolerance of type t, relative and absolute. */
static double tolerance(stir_dtype t)
{
	switch (t) {
	case STIR_F64: return 1e-9;
	case STIR_F32: return 1e-4;
	case STIR_F16: return 1e-2;
	case STIR_BF16: return 5e-2;
	default: return 0;
	}
}

/* gk, b: poison every array the kernel writes. */
static void poison(const stir_gpu_kernel *gk, stir_bindings *b)
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

/* path, size: the bytes of a file (to free). */
static void *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "no compiled object %s (g++ failed?)", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	void *p = malloc((size_t)n);
	ck_assert_int_eq(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return p;
}

/* b, spec: bind "NAME=V,..." sizes. */
static void bind_sizes(stir_bindings *b, const char *spec)
{
	char s[256];
	snprintf(s, sizeof(s), "%s", spec);
	for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
		char *eq = strchr(t, '=');
		*eq = '\0';
		stir_bindings_set_size(b, t, atoll(eq + 1));
	}
}

/* ctx, b, file: bind m, n, nnz and J's structure from a Matrix Market
 * file (as i32 arrays). */
static void bind_graph(stir_ctx *ctx, stir_bindings *b, const char *file)
{
	stir_csr *c = stir_mtx_read(ctx, test_path(file));
	ck_assert_ptr_nonnull(c);
	stir_bindings_set_size(b, "m", c->nrows);
	stir_bindings_set_size(b, "n", c->ncols);
	stir_bindings_set_size(b, "nnz", c->nnz);
	int64_t np = c->nrows + 1, ni = c->nnz;
	stir_array *ptr = stir_array_alloc(ctx, STIR_I32, 1, &np);
	stir_array *ind = stir_array_alloc(ctx, STIR_I32, 1, &ni);
	ck_assert(ptr && ind);
	for (int64_t i = 0; i < np; i++)
		stir_array_set_int(ptr, i, c->indptr[i]);
	for (int64_t i = 0; i < ni; i++)
		stir_array_set_int(ind, i, c->indices[i]);
	stir_bindings_set_array(b, "J.indptr", ptr);
	stir_bindings_set_array(b, "J.indices", ind);
	stir_csr_free(c);
}

/* k, got, want, what: the tensors agree (NaN with NaN). */
static void compare(const stir_kernel *k, const stir_bindings *got,
	const stir_bindings *want, const char *what)
{
	for (int i = 0; i < stir_kernel_n_buffers(k); i++) {
		stir_buffer *buf = stir_kernel_get_buffer(k, i);
		if (stir_buffer_get_kind(buf) != STIR_BUFFER_TENSOR &&
		    !stir_buffer_get_array_name(buf))
			continue;
		const char *name = stir_buffer_get_array_name(buf);
		stir_array *a = stir_bindings_get_array(got, name);
		stir_array *r = stir_bindings_get_array(want, name);
		ck_assert_ptr_nonnull(a);
		ck_assert_ptr_nonnull(r);
		double tol = tolerance(stir_buffer_get_dtype(buf));
		for (int64_t j = 0; j < stir_array_get_len(r); j++) {
			double x = stir_array_get_double(a, j);
			double y = stir_array_get_double(r, j);
			if (isnan(x) ? isnan(y) : fabs(x - y) <= tol * (1 + fabs(y)))
				continue;
			ck_abort_msg("%s: %s[%lld] is %.9g emulated, %.9g interpreted",
				what, name, (long long)j, x, y);
		}
	}
}

START_TEST(test_emulated)
{
	emu_prog *p = &progs[_i];
	stir_ctx *ctx = stir_ctx_alloc();
	alarm(120); /* a barrier some thread misses deadlocks */
	setenv("STIR_LIBCUDA", fake_path(), 1);
	unsetenv("FAKE_CUDA_NO_DEVICE");
	unsetenv("FAKE_CUDA_NO_PROC");
	stir_device *dev = stir_device_open(ctx, 0);
	ck_assert_ptr_nonnull(dev);
	stir_module *m;
	stir_kernel *k = load_kernel(p, ctx, &m);
	stir_module *rm = stir_module_read_file(ctx, test_path(p->ref_file));
	ck_assert(m && rm);
	stir_kernel *ref = *p->ref_kernel ?
		stir_module_find_kernel(rm, p->ref_kernel) :
		stir_module_find_kernel(rm, p->kernel);
	ck_assert(k && ref);
	size_t size;
	void *so = read_all(p->so, &size);
	stir_gpu_code *code = stir_gpu_code_alloc(ctx, p->kernel, "sm_90", so,
		size);
	free(so);
	stir_gpu_kernel *gk = stir_gpu_kernel_alloc(k, code);
	ck_assert_ptr_nonnull(gk);
	for (uint64_t seed = 1; seed <= 2; seed++) {
		/* the threads of a block in increasing, then decreasing order */
		if (seed == 2)
			setenv("STIR_EMU_REVERSE", "1", 1);
		else
			unsetenv("STIR_EMU_REVERSE");
		stir_bindings *b = stir_bindings_alloc();
		if (p->sizes)
			bind_sizes(b, p->sizes);
		if (p->graph) {
			bind_graph(ctx, b, p->graph);
			stir_bindings_set_size(b, "feat", p->arg % 1024);
		}
		ck_assert_int_eq(stir_kernel_bind_random(ref, b, seed), 0);
		ck_assert_int_eq(stir_kernel_bind_outputs(ref, b), 0);
		poison(gk, b);
		stir_bindings *want = stir_bindings_copy(b);
		ck_assert_int_eq(stir_kernel_interpret(ref, want), 0);
		int rc = stir_gpu_kernel_run(gk, dev, b, STIR_GPU_RUN_TIME, NULL);
		if (rc < 0)
			stir_ctx_print_diagnostics(ctx, stderr);
		ck_assert_int_eq(rc, 0);
		char what[700];
		snprintf(what, sizeof(what), "%s %s seed %d%s%s%s%s", p->file,
			p->kernel, (int)seed, p->sizes ? " " : "",
			p->sizes ? p->sizes : "", p->graph ? " scheduled, on " : "",
			p->graph ? p->graph : "");
		if (p->schedule)
			snprintf(what + strlen(what), sizeof(what) - strlen(what),
				" with argument %lld", (long long)p->arg);
		compare(ref, b, want, what);
		stir_bindings_free(b);
		stir_bindings_free(want);
	}
	stir_gpu_kernel_free(gk);
	stir_device_close(dev);
	stir_module_free(m);
	stir_module_free(rm);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
	stir_ctx_free(ctx);
}
END_TEST

/* src, what: the number of times "what" occurs in src. */
static int count(const char *src, const char *what)
{
	int n = 0;
	for (const char *s = strstr(src, what); s; s = strstr(s + 1, what))
		n++;
	return n;
}

/* ctx, fm, rows: schedule SDDMM for fm, fused (examples/sddmm.stir) or
 * row by row (examples/sddmm_rows.stir), and check the shape each
 * promises: one launch of (lanes, non-zeros at a time) threads, the X and
 * Y vectors loaded as float4, the lanes' parts combined by shuffles, the
 * features a literal; fused: a block per fm.nnz non-zeros, the row of a
 * non-zero searched once; rows: a block per row, X's row in shared
 * memory, no search.  NVRTC compiles it for sm_90 (when stir has NVRTC). */
static void check_sddmm_shape(stir_ctx *ctx, bench_sddmm_map fm, bool rows)
{
	stir_module *m = stir_module_read_file(ctx, test_path(rows ?
		"examples/sddmm_rows.stir" : "examples/sddmm.stir"));
	stir_kernel *k = m ? stir_module_find_kernel(m, rows ? "sddmm_rows" :
		"sddmm") : NULL;
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(rows ? bench_sddmm_rows_schedule(k, fm) :
		bench_sddmm_schedule(k, fm), 0);
	stir_cuda_plan *plan = stir_cuda_plan_alloc(k, 0);
	ck_assert_ptr_nonnull(plan);
	ck_assert_int_eq(stir_cuda_plan_n_launches(plan), 1);
	stir_bindings *sz = stir_bindings_alloc();
	stir_bindings_set_size(sz, "m", 100);
	stir_bindings_set_size(sz, "n", 100);
	stir_bindings_set_size(sz, "nnz", 1000);
	unsigned grid[3], block[3];
	ck_assert_int_eq(stir_cuda_plan_get_launch_dims(plan, 0, sz, grid,
		block), 0);
	ck_assert_uint_eq(block[0], (unsigned)fm.lanes);
	ck_assert_uint_eq(block[1], (unsigned)fm.nnz);
	ck_assert_uint_eq(grid[0], rows ? 100 :
		(unsigned)((1000 + fm.nnz - 1) / fm.nnz));
	const char *src = stir_cuda_plan_get_source(plan);
	char decl[64];
	snprintf(decl, sizeof(decl), "__shared__ float X_shared[%lld];",
		(long long)fm.feat);
	/* fused: the helper's definition and one call; rows: no search */
	ck_assert_int_eq(count(src, "stir_upper_bound_i32("), rows ? 0 : 2);
	ck_assert(!rows || !strstr(src, "upper_bound"));
	ck_assert_int_eq(count(src, decl), rows ? 1 : 0);
	ck_assert_int_eq(count(src, "float4 stir_v"), 2);
	ck_assert_int_ge(count(src, "__shfl_down_sync"), 1);
	/* the features are a literal: no guard on them */
	ck_assert_ptr_null(strstr(src, "feat"));
	stir_compile_options co = { .arch = "sm_90" };
	stir_gpu_kernel *gk = stir_gpu_kernel_compile(k, &co);
	if (!gk) {
		const char *msg = stir_diag_get_message(
			stir_ctx_get_diagnostic(ctx, 0));
		ck_assert_msg(strstr(msg, "built without NVRTC"), "%s", msg);
		stir_ctx_clear_diagnostics(ctx);
	}
	stir_gpu_kernel_free(gk);
	stir_bindings_free(sz);
	stir_cuda_plan_free(plan);
	stir_module_free(m);
}

/* The SDDMM schedules have the shape they promise (check_sddmm_shape):
 * both with the default mapping of several feature sizes, the row one
 * also with at most 8 lanes. */
START_TEST(test_sddmm_shape)
{
	static const int64_t feats[] = { 32, 64, 256, 512 };
	const char *b = getenv("STIR_BUILDDIR");
	char cache[1024];
	snprintf(cache, sizeof(cache), "%s/tests/emu-cache", b ? b : ".");
	setenv("STIR_CACHE_DIR", cache, 1);
	stir_ctx *ctx = stir_ctx_alloc();
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		bench_sddmm_map fm = bench_sddmm_map_features(feats[i]);
		ck_assert_int_eq(fm.vec, 4);
		ck_assert_int_eq(fm.lanes * fm.nnz, 256);
		ck_assert_int_eq(feats[i] % (fm.lanes * fm.vec), 0);
		check_sddmm_shape(ctx, fm, false);
		check_sddmm_shape(ctx, fm, true);
		check_sddmm_shape(ctx, bench_sddmm_map_lanes(feats[i], 8), true);
	}
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
	stir_ctx_free(ctx);
}
END_TEST

/* Find and compile the programs, then run each as a test. */
int main(void)
{
	if (system("g++ --version > /dev/null 2>&1") != 0) {
		printf("SKIP: no g++ to compile the emulated kernels\n");
		return 77;
	}
	find_programs();
	compile_all();
	Suite *s = suite_create("cuda_emu");
	TCase *tc = tcase_create("emulated");
	tcase_set_timeout(tc, 150);
	tcase_add_loop_test(tc, test_emulated, 0, n_progs);
	suite_add_tcase(s, tc);
	TCase *ts = tcase_create("sddmm");
	tcase_add_test(ts, test_sddmm_shape);
	suite_add_tcase(s, ts);
	return test_run_suite(s);
}
