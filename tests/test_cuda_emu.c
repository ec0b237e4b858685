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
 * tests/stages (against their own interpretation), the fast SDDMM
 * schedules of schedule/recipes/sddmm.c (fused, and row by row on
 * examples/sddmm_rows.stir) at several feature sizes on the small graph
 * of tests/data/graphs, which has a hub row and empty rows (against
 * examples/sddmm.stir at stage I), and the catalogue under each written schedule examples/NAME.yaml
 * (against the unscheduled stage I program; the formats of its decompose
 * steps built on the host), and the programs of 64-bit sizes of
 * tests/wide under a schedule.
 *
 * Then stirc itself, on the GPU backend with --schedule: the emulated
 * objects are put in a kernel cache under the keys of the NVRTC
 * compilations stirc asks for, so that stirc run and verify --backend
 * cuda run them through the fake driver, from the schedule file to the
 * check against the interpreter (on the Cora graph for the SpMM and SDDMM
 * schedules of the hybrid format and of vector loads).
 *
 * Compiled objects are cached in the build tree (or in STIR_EMU_CACHE, a
 * folder tools/run-tests shares between its builds) by a hash of their
 * source and of the compiler and emulation headers, so only changed
 * kernels are compiled again.
 *
 * The test is two programs built from this file, which make check runs
 * side by side: tests/test_cuda_emu (EMU_SHARD 0) and tests/test_cuda_emu_2
 * (EMU_SHARD 1).  Each compiles and emulates every other program; the
 * second also runs the other cases (stirc's runs, the SDDMM shape, the
 * shared memory limit).  Skipped (77) without g++. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stir/stir.h>
#include "runtime/internal.h"

/* This program's share of the emulated programs: those whose index is
 * EMU_SHARD modulo EMU_SHARDS (the header says why). */
#ifndef EMU_SHARD
#define EMU_SHARD 0
#endif
#define EMU_SHARDS 2
#define EMU_LAST_SHARD (EMU_SHARD == EMU_SHARDS - 1)
#include "tests/testutil.h"

/* A hybrid format for the hybrid SpMM schedule: hybrid(c, buckets). */
typedef struct hyb_case {
	int c, nb;
	int64_t buckets[8];
} hyb_case;

/* Two cases on the small graph: its hub row is split over rows of the
 * widest bucket (atomic adds); two column ranges make every part atomic. */
static const hyb_case hyb_cases[] = {
	{ 1, 3, { 1, 2, 4 } },
	{ 2, 2, { 1, 4 } },
};

/* The benchmark's configuration that examples/csrmm_hyb.yaml writes. */
static const hyb_case hyb_bench = { 1, 6, { 1, 2, 4, 8, 16, 32 } };

/* Buckets of 8 columns and more: every row of the small graph shared by
 * 8 threads (the candidates for small matrices of long rows). */
static const hyb_case hyb_wide = { 1, 2, { 8, 16 } };

/* What a benchmark schedule is applied with. */
typedef struct sched_arg {
	int64_t feat;              /* the features */
	int64_t max_lanes;         /* SDDMM rows: lanes per non-zero at most */
	const hyb_case *hybrid;    /* hybrid SpMM: the format (with a graph,
	                              also built and bound), or NULL */
	int64_t group;             /* hybrid SpMM: threads a row (0: one) */
	int64_t serial_lanes;      /* hybrid SpMM: > 0, serial chunks over
	                              these lanes (stir_spmm_map_serial) */
	int candidate;             /* SDDMM candidate (stir_sddmm_get_candidate,
	                              or a group one) */
} sched_arg;

/* One program to run. */
typedef struct emu_prog {
	char file[256];            /* the stage III program */
	char kernel[128];          /* its kernel */
	char ref_file[256];        /* the program of the reference */
	char ref_kernel[128];      /* its kernel ("" for the kernel itself) */
	const char *sizes;         /* sizes to bind first, or NULL */
	unsigned plan_flags;       /* STIR_CUDA_* it is emitted with (the
	                              runtime's STIR_CUDA_ALIGNED_BUFFERS, or
	                              0: the vector paths' alignment checks) */
	/* a schedule applied to the kernel once read, with its argument */
	int (*schedule)(stir_kernel *k, const sched_arg *a);
	sched_arg arg;
	const char *graph;         /* a Matrix Market file that gives J's
	                              structure and m, n, nnz (and with
	                              arg.hybrid A's values), or NULL */
	int64_t slots;             /* with graph: nv bound to nnz * slots
	                              (sddmm_vb4_csr.stir: the graph's rows
	                              as groups of 4 slots, Dst drawn as a
	                              permutation of them), or 0 */
	const char *sched_file;    /* a schedule file that prepares file's
	                            * kernel (a stage I program) for the GPU,
	                            * or NULL */
	char so[1200];             /* the compiled object */
} emu_prog;

#define MAX_PROGS 600
static emu_prog progs[MAX_PROGS];
static int n_progs;

/* Larger sizes for the hand-written programs, so that their launches span
 * several blocks (small enough for one host thread per CUDA thread). */
static const char *const larger[][2] = {
	{ "csrmm_rows", "m=40,n=30,feat=48" },
	{ "diag", "m=100" },
	{ "ellmm_warp", "m=50,n=40" },
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

/* h, path: h extended by the bytes of the file at path (nothing when it
 * cannot be read). */
static uint64_t hash_file(uint64_t h, const char *path)
{
	FILE *f = fopen(path, "rb");
	int c;
	while (f && (c = getc(f)) != EOF)
		h = (h ^ (unsigned char)c) * 0x100000001b3ULL;
	if (f)
		fclose(f);
	return h;
}

/* The hash an object's name starts from: the compiler command and the
 * emulation headers it is compiled against, so that a change to either
 * compiles every program again. */
static uint64_t compile_hash(void)
{
	static const char *const headers[] = { "tests/emu/cuda_emu.h",
		"tests/emu/cuda_fp16.h", "tests/emu/cuda_bf16.h" };
	uint64_t h = hash(0xcbf29ce484222325ULL, compiler);
	for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
		h = hash_file(h, test_path(headers[i]));
	return h;
}

/* path, text: write a file. */
static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* p, ctx, m, s: p's kernel, read into *m and scheduled (by p's schedule
 * file, read into *s, it is prepared for the GPU), or NULL. */
static stir_kernel *load_kernel(const emu_prog *p, stir_ctx *ctx,
	stir_module **m, stir_schedule **s)
{
	*s = NULL;
	*m = stir_module_read_from_file(ctx, test_path(p->file));
	stir_kernel *k = *m ? stir_module_find_kernel(*m, p->kernel) : NULL;
	if (k && p->schedule && p->schedule(k, &p->arg) < 0)
		return NULL;
	if (k && p->sched_file && (!(*s = stir_schedule_read_from_file(ctx,
	    test_path(p->sched_file))) || stir_schedule_prepare_for_gpu(*s,
	    k) < 0))
		return NULL;
	/* a stage III file read as it is: the GPU's stage III passes (a
	 * second run after a schedule changes nothing) */
	if (k && stir_kernel_prepare_for_gpu(k) < 0)
		return NULL;
	return k;
}

/* p, ctx: emit p's kernel with the wrappers the emulated driver calls,
 * and name the object it compiles to.  Returns the source to compile (to
 * free), or NULL when the object is cached already. */
static char *prepare_source(emu_prog *p, stir_ctx *ctx, const char *cache)
{
	stir_module *m;
	stir_schedule *sched;
	stir_kernel *k = load_kernel(p, ctx, &m, &sched);
	stir_cuda_plan *plan = k ? stir_cuda_plan_alloc(k, p->plan_flags) : NULL;
	stir_schedule_free(sched);
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
	uint64_t h = hash(compile_hash(), src);
	snprintf(p->so, sizeof(p->so), "%s/%016llx.so", cache,
		(unsigned long long)h);
	if (access(p->so, R_OK) == 0) {
		free(src);
		return NULL;
	}
	return src;
}

static bool used_by_other_cases(const emu_prog *p);

/* i: whether this shard compiles program i when it is not cached: its
 * own, and in the last shard those the other cases run. */
static bool compiled_here(int i)
{
	return i % EMU_SHARDS == EMU_SHARD ||
		(EMU_LAST_SHARD && used_by_other_cases(&progs[i]));
}

/* Compile every program this shard runs (or its other cases use) that is
 * not cached yet, eight at a time; name every program's object. */
static void compile_all(void)
{
	const char *b = getenv("STIR_BUILDDIR"), *shared = getenv("STIR_EMU_CACHE");
	char cache[1024], inc[1024];
	if (shared && *shared)
		snprintf(cache, sizeof(cache), "%s", shared);
	else
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
			twice |= compiled_here(j) &&
				!strcmp(progs[j].so, progs[i].so);
		if (!src || !compiled_here(i) || twice) {
			/* cached, another shard's, or being compiled here for
			 * another program */
			free(src);
			continue;
		}
		/* (the source's and the temporary's names are this
		 * process's: the other shard may compile the same object) */
		long self = (long)getpid();
		char cu[1300], cmd[8192];
		snprintf(cu, sizeof(cu), "%s.%ld.cu", progs[i].so, self);
		int w = write_file(cu, src);
		free(src);
		if (w < 0) {
			fprintf(stderr, "cannot write %s\n", cu);
			continue;
		}
		/* into a temporary name, renamed when complete */
		snprintf(cmd, sizeof(cmd), "%s -I%s -include cuda_emu.h -x c++ %s "
			"-o %s.%ld.tmp && mv %s.%ld.tmp %s; mv %s %s.cu", compiler,
			inc, cu, progs[i].so, self, progs[i].so, self, progs[i].so,
			cu, progs[i].so);
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
	if (n_progs == MAX_PROGS) {
		fprintf(stderr, "test_cuda_emu: more than %d programs\n",
			MAX_PROGS);
		exit(1);
	}
	emu_prog *p = &progs[n_progs++];
	snprintf(p->file, sizeof(p->file), "%s", file);
	snprintf(p->kernel, sizeof(p->kernel), "%s", kernel);
	snprintf(p->ref_file, sizeof(p->ref_file), "%s", ref_file);
	snprintf(p->ref_kernel, sizeof(p->ref_kernel), "%s", ref_kernel);
	p->sizes = sizes;
	return p;
}

/* k, a: the hybrid SpMM schedule of format a->hybrid. */
static int spmm_hybrid(stir_kernel *k, const sched_arg *a)
{
	const hyb_case *h = a->hybrid;
	return stir_recipe_spmm_hybrid(k, h->c, h->nb, h->buckets,
		a->serial_lanes ? stir_spmm_map_serial(a->feat, a->serial_lanes) :
		stir_spmm_map_grouped(a->feat, a->group > 1 ? a->group : 1));
}

/* k, a: the fast SDDMM schedule. */
static int sddmm_fast(stir_kernel *k, const sched_arg *a)
{
	return stir_recipe_sddmm(k, stir_sddmm_map_features(a->feat));
}

/* k, a: the row SDDMM schedule with at most a->max_lanes lanes. */
static int sddmm_rows(stir_kernel *k, const sched_arg *a)
{
	return stir_recipe_sddmm_rows(k, stir_sddmm_map_lanes(a->feat,
		a->max_lanes));
}

/* k, a: SDDMM candidate a->candidate with its own mapping. */
static int sddmm_candidate(stir_kernel *k, const sched_arg *a)
{
	return stir_recipe_sddmm_candidate(k,
		stir_sddmm_get_candidate(a->candidate), a->feat);
}

/* k, a: tile candidate a->candidate (stir_sddmm_tiles_get_candidate) at
 * a->feat features. */
static int sddmm_tiles_candidate(stir_kernel *k, const sched_arg *a)
{
	return stir_recipe_sddmm_tiles_candidate(k,
		stir_sddmm_tiles_get_candidate(a->candidate), a->feat);
}

/* k, a: BSR candidate a->candidate (stir_bsr_tc_get_candidate) at
 * a->feat features. */
static int bsr_tc_candidate(stir_kernel *k, const sched_arg *a)
{
	return stir_recipe_bsr_tc_candidate(k,
		stir_bsr_tc_get_candidate(a->candidate), a->feat);
}

/* SR-BCRS candidates with chunks of 2 groups, so that the test's windows
 * (of up to 5 groups) are split: the library's have chunks of 8 and 32. */
static const stir_srbcrs_tc_candidate srbcrs_short[] = {
	{ 2, STIR_ROWS_NATURAL }, { 2, STIR_ROWS_FEWEST_SLOTS } };

/* i: the library's SR-BCRS candidate i, then those of srbcrs_short. */
static const stir_srbcrs_tc_candidate *srbcrs_candidate(int i)
{
	int n = stir_srbcrs_tc_n_candidates();
	return i < n ? stir_srbcrs_tc_get_candidate(i) : &srbcrs_short[i - n];
}

/* k, a: SR-BCRS candidate a->candidate (srbcrs_candidate) at a->feat
 * features; test_emulated builds and binds its format. */
static int srbcrs_tc_candidate(stir_kernel *k, const sched_arg *a)
{
	return stir_recipe_srbcrs_tc_candidate(k,
		srbcrs_candidate(a->candidate), a->feat);
}

/* k, a: the SDDMM over groups of 4 rows (stir_recipe_sddmm_vblock) at
 * a->feat features. */
static int sddmm_vblock(stir_kernel *k, const sched_arg *a)
{
	return stir_recipe_sddmm_vblock(k, stir_sddmm_map_features(a->feat));
}

/* k, a: group candidate a->candidate (stir_sddmm_vblock_get_candidate)
 * at a->feat features. */
static int sddmm_vblock_candidate(stir_kernel *k, const sched_arg *a)
{
	return stir_recipe_sddmm_vblock_candidate(k,
		stir_sddmm_vblock_get_candidate(a->candidate), a->feat);
}

/* The written schedules, with the sizes of a larger run (some launches of
 * several thread blocks; the runs on Cora are stirc's, below). */
static const struct {
	const char *kernel, *schedule, *sizes;
} scheduled[] = {
	{ "bsrmm", "examples/bsrmm.yaml", "mb=5,nb=6,feat=20" },
	{ "bsrmm", "examples/bsrmm_tc16.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_mem.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_tiles.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_smem.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_wmma.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_wmma_add.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_wmma_tiles.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_wmma_cp.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_cp.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_add.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_atomic.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_splitk.yaml", "mb=5,nb=6" },
	/* software pipelines: rows longer and shorter than the stages */
	{ "bsrmm", "tests/tensorize/bsrmm_tc_pipe.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_pipe.yaml", "mb=3,nb=13" },
	/* the copies of two blocks waited for together: rows of odd and
	 * even lengths (the last, partial batch), shorter than the stages */
	{ "bsrmm", "tests/tensorize/bsrmm_tc_pipe_batch.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_pipe_batch.yaml", "mb=3,nb=13" },
	/* several warps on a block row: rows of fewer blocks than warps, and
	 * of more than warps times stages */
	{ "bsrmm", "tests/tensorize/bsrmm_tc_warps.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_warps.yaml", "mb=3,nb=23" },
	/* and 64 features a warp, 8 products a block sharing A's fragment */
	{ "bsrmm", "tests/tensorize/bsrmm_tc_warps_f64.yaml", "mb=3,nb=23" },
	/* with 4 stages, 2 blocks a wait: 56 KiB of dynamic shared memory */
	{ "bsrmm", "tests/tensorize/bsrmm_tc_warps_f64_s4b2.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_warps_f64_s4b2.yaml", "mb=3,nb=23" },
	/* 3 stages (static, 47104 bytes); 2 warps on a row with 64 and 128
	 * features a warp; 4 warps with 128 (dynamic, 69632 bytes) */
	{ "bsrmm", "tests/tensorize/bsrmm_tc_warps_f64_s3.yaml", "mb=3,nb=23" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_warps2_f64.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_warps2_f64.yaml", "mb=3,nb=23" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_warps2_f128.yaml", "mb=3,nb=23" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_warps_f128.yaml", "mb=3,nb=23" },
	/* 4 warps on a row's 128 features, each copy split over the warps:
	 * rows shorter and longer than the stages */
	{ "bsrmm", "tests/tensorize/bsrmm_tc_fwarps.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_fwarps.yaml", "mb=3,nb=13" },
	/* the same with each warp's 4 fragments of the row's 16 kept in its
	 * registers across the row (split over the warps of threadIdx.y) */
	{ "bsrmm", "tests/tensorize/bsrmm_tc_fregs.yaml", "mb=5,nb=6" },
	{ "bsrmm", "tests/tensorize/bsrmm_tc_fregs.yaml", "mb=3,nb=13" },
	/* the strips' sum added into C, zeroed by a launch of its own */
	{ "bsrmm", "tests/tensorize/bsrmm_tc_warps_add.yaml", "mb=3,nb=23" },
	{ "bsrmm", "examples/bsrmm_cuda.yaml", "mb=5,nb=6,feat=40" },
	{ "csf_square_sum", "examples/csf_square_sum.yaml", "m=300" },
	{ "csr2bsr", "examples/csr2bsr.yaml", "m=200,n=100" },
	{ "csr_softmax", "examples/csr_softmax.yaml", "m=300,n=40" },
	{ "csrmm", "examples/csrmm.yaml", "m=40,n=30,feat=24" },
	{ "csrmm", "examples/csrmm_hyb.yaml", "m=70,n=50" },
	{ "csrmm", "examples/csrmm_hyb_grouped.yaml", "m=70,n=50" },
	/* SR-BCRS(8, 4): rows not a multiple of t, features not of the
	 * lanes, and fewer columns than g (windows holding every column) */
	{ "csrmm", "examples/csrmm_srbcrs.yaml", "m=43,n=30,feat=40" },
	{ "csrmm", "examples/csrmm_srbcrs.yaml", "m=13,n=3,feat=5" },
	/* SR-BCRS(16, 8) on tensor cores (tf32): gathered B rows, the last
	 * window's row guard on the products and the write-back */
	{ "csrmm", "examples/csrmm_srbcrs_tc.yaml", "m=43,n=30" },
	{ "csrmm", "examples/csrmm_srbcrs_tc.yaml", "m=13,n=5" },
	/* the same on 3xTF32 (three tf32 mma.sync a step), compared at f32's
	 * tolerance */
	{ "csrmm", "tests/tensorize/csrmm_srbcrs_3xtf32.yaml", "m=43,n=30" },
	{ "ellmv", "examples/ellmv.yaml", "m=300,n=50" },
	{ "rgcn_homo", "examples/rgcn_homo.yaml", "m=20,n=30,fout=40" },
	{ "rgms", "examples/rgms.yaml", "r=3,m=20,n=20,fout=24" },
	/* the apply on tensor cores: relations of more than 16 rows (a
	 * partial tile: the row guard) and rows shared between relations
	 * (the gathered rows of Y, added atomically) */
	{ "rgms_agg", "examples/rgms_tc_tf32.yaml", "r=3,m=40,n=30" },
	/* after an aggregation by runs of a pair's edges (COO arrays, float4
	 * atomics into T), 2 tiles of 8 output features a warp, overlapping */
	{ "rgms_agg", "examples/rgms_tc_runs.yaml", "r=3,m=40,n=30" },
	/* each warp's slice of W[r] in shared memory, copied before the
	 * piece's tiles under their tail guard at its first tile (pieces
	 * without tiles copy nothing) */
	{ "rgms_agg", "examples/rgms_tc_wshared.yaml", "r=3,m=40,n=30" },
	/* the same slices padded: rows of 16 floats 20 apart */
	{ "rgms_agg", "tests/tensorize/rgms_tc_wshared_pad.yaml", "r=3,m=40,n=30" },
	/* a tile of T in shared memory for the warps, its copy under the
	 * row guard of a relation's last tile (40 rows: 16 + 16 + 8) */
	{ "rgms_agg", "tests/tensorize/rgms_tc_tstaged.yaml", "r=3,m=40,n=30" },
	/* the same with the input features' loop unrolled after T and Y
	 * zeroed by float4 stores, 64 rows a thread block (the last under
	 * the row guard) */
	{ "rgms_agg", "tests/tensorize/rgms_tc_tstaged_zf4.yaml", "r=3,m=40,n=30" },
	/* the same in 2 pieces, the tile loop bounded by the pieces' tail
	 * guard (guard_to_bound): second pieces of one tile, empty ones */
	{ "rgms_agg", "tests/tensorize/rgms_tc_tstaged_bound.yaml", "r=3,m=40,n=30" },
	/* the same apply after an aggregation that stores each pair's sum
	 * into T once, from a register its init zeroed (no zeroing launch of
	 * T, no atomics into it) */
	{ "rgms_agg_once", "tests/tensorize/rgms_tc_once.yaml", "r=3,m=40,n=30" },
	/* no T: tiles of 16 edges of a relation (rows from J.pos_I through
	 * the block's let), their gathered X rows staged in shared memory
	 * and scaled by A in the A fragment (a row scale), the last tile's
	 * row guard, Y's rows added atomically */
	{ "rgms_edge", "tests/tensorize/rgms_tc_edges.yaml", "r=3,m=40,n=30" },
	{ "rgms_tc16", "examples/rgms_tc16.yaml", "r=3,m=40,n=30" },
	{ "rgms_agg", "examples/rgms_agg.yaml", "r=3,m=20,n=20,fin=20,fout=24" },
	{ "rgms_edge", "examples/rgms_edge.yaml", "r=3,m=20,n=20,fin=20,fout=24" },
	/* the edges' rows and relations from COO arrays (sparse_fuse with
	 * coo), float4 loads of X and W; COO SpMM likewise */
	{ "rgms_edge", "examples/rgms_coo.yaml", "r=3,m=20,n=20" },
	/* groups of 4 edges a thread, a row's run of edges summed in
	 * registers (cache_write_runs) and written back by float4 atomics
	 * (here their scalar form), the group's tail guard; overlapping
	 * launches (nothing to emulate: the launches run in order) */
	{ "rgms_edge", "examples/rgms_runs.yaml", "r=3,m=20,n=20" },
	{ "rgms_edge", "examples/rgms_runs.yaml", "r=2,m=7,n=9" },
	/* the rgms_edge recipe's candidates 0 and 1 (tests/test_recipes.c):
	 * an edge a thread with a float4 atomic a lane, and groups of 4 edges
	 * with runs, Y zeroed by float4 stores */
	{ "rgms_edge", "tests/coo/rgms_coo_f32_a.yaml", "r=3,m=20,n=20" },
	{ "rgms_edge", "tests/coo/rgms_runs_f64_k4.yaml", "r=2,m=7,n=9" },
	{ "csrmm", "tests/coo/csrmm_coo.yaml", "m=40,n=30,feat=24" },
	{ "sddmm", "examples/sddmm.yaml", "m=30,n=30,feat=40" },
	{ "sddmm", "examples/sddmm_fast.yaml", "m=30,n=40" },
	{ "sddmm_rows", "examples/sddmm_rows.yaml", "m=30,n=40" },
	/* several non-zeros a lane: the row's tail guard inside the lanes'
	 * loop on the cache's write-back (rows of any length, a partial
	 * block of rows) */
	{ "sddmm_rows", "examples/sddmm_row_lanes.yaml", "m=30,n=40" },
	{ "sddmm_rows", "examples/sddmm_row_lanes.yaml", "m=5,n=70" },
	{ "sddmm_rows", "tests/sddmm_lanes/sddmm_row_lanes_u4.yaml", "m=30,n=40" },
	{ "sddmm_rows", "tests/sddmm_lanes/sddmm_row_lanes_r4.yaml", "m=13,n=50" },
	{ "segment_sum", "examples/segment_sum.yaml", "m=300" },
};

/* The programs: tests/cuda, tests/golden's stage III catalogue, two of
 * tests/stages, the SDDMM schedule of the benchmark, the written
 * schedules. */
static void find_programs(void)
{
	DIR *d = opendir(test_path("tests/cuda"));
	struct dirent *de;
	while (d && (de = readdir(d)) && n_progs < MAX_PROGS - 64) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".stir"))
			continue;
		char file[300], name[256], ref[300];
		snprintf(file, sizeof(file), "tests/cuda/%s", de->d_name);
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), de->d_name);
		snprintf(ref, sizeof(ref), "%s_ref", name);
		add(file, name, file, ref, NULL);
		/* (the vector loops at the larger sizes also without their
		 * alignment checks, as stir_gpu_kernel_compile emits them) */
		for (size_t i = 0; i < sizeof(larger) / sizeof(larger[0]); i++)
			if (!strcmp(larger[i][0], name))
				add(file, name, file, ref, larger[i][1])->plan_flags =
					!strcmp(name, "vectorize") ? STIR_CUDA_ALIGNED_BUFFERS :
					0;
	}
	if (d)
		closedir(d);
	d = opendir(test_path("tests/golden"));
	while (d && (de = readdir(d)) && n_progs < MAX_PROGS - 40) {
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
		p->arg.feat = feats[i];
		p->graph = "tests/data/graphs/small.mtx";
	}
	/* the row schedule: the same feature sizes, and 32 with at most 4
	 * lanes (64 non-zeros of a row at a time, more than most rows have) */
	static const sched_arg rows[] = { { 6, 32, NULL, 0, 0, 0 },
		{ 32, 32, NULL, 0, 0, 0 }, { 96, 32, NULL, 0, 0, 0 },
		{ 256, 32, NULL, 0, 0, 0 }, { 32, 4, NULL, 0, 0, 0 } };
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		emu_prog *p = add("examples/sddmm_rows.stir", "sddmm_rows",
			"examples/sddmm.stir", "sddmm", NULL);
		p->schedule = sddmm_rows;
		p->arg = rows[i];
		p->graph = "tests/data/graphs/small.mtx";
	}
	/* the candidates past the first eight (thread blocks of 128 and 64
	 * threads, 2 lanes), at 32 and 6 features: 8 lanes of float4 at most,
	 * or 1 and 2 lanes of float2 */
	static const int64_t cand_feats[] = { 32, 6, 5 };
	for (int c = 8; c < stir_sddmm_n_candidates(); c++) {
		const stir_sddmm_candidate *q = stir_sddmm_get_candidate(c);
		/* the row tiles also at 5 features: no vectors, no split */
		for (size_t i = 0; i < (q->row_tile > 0 ? 3u : 2u); i++) {
			emu_prog *p = add(q->rows ? "examples/sddmm_rows.stir" :
				"examples/sddmm.stir", q->rows ? "sddmm_rows" :
				"sddmm", "examples/sddmm.stir", "sddmm", NULL);
			p->schedule = sddmm_candidate;
			p->arg.feat = cand_feats[i];
			p->arg.candidate = c;
			p->graph = "tests/data/graphs/small.mtx";
		}
	}
	/* the SDDMM over groups of 4 and of 8 rows: the graph's rows as the
	 * groups, at 32 features (8 lanes of float4), 6 (3 lanes of float2)
	 * and 1 */
	static const int64_t vb_feats[] = { 32, 6, 1 };
	static const char *const vb_files[] = { "examples/sddmm_vb4.stir",
		"examples/sddmm_vb8.stir" };
	for (size_t i = 0; i < 6; i++) {
		emu_prog *p = add(vb_files[i / 3], "sddmm_vb", vb_files[i / 3],
			"sddmm_vb", NULL);
		p->schedule = sddmm_vblock;
		p->arg.feat = vb_feats[i % 3];
		p->graph = "tests/data/graphs/small.mtx";
	}
	/* the group candidates (stir_sddmm_vblock_get_candidate): each at
	 * 32 features, the one-lane and two-lane ones (a thread's register
	 * tile of 4 or 8 rows, no shuffles or one) also at 6 (float2) and 1;
	 * the graph's rows as the groups */
	for (int c = 0; c < stir_sddmm_vblock_n_candidates(); c++) {
		const stir_sddmm_vblock_candidate *q =
			stir_sddmm_vblock_get_candidate(c);
		for (int fi = 0; fi < (q->max_lanes <= 2 ? 3 : 1); fi++) {
			const char *f = q->rows == 4 ? "examples/sddmm_vb4.stir" :
				"examples/sddmm_vb8.stir";
			emu_prog *p = add(f, "sddmm_vb", f, "sddmm_vb", NULL);
			p->schedule = sddmm_vblock_candidate;
			p->arg.feat = vb_feats[fi];
			p->arg.candidate = c;
			p->graph = "tests/data/graphs/small.mtx";
		}
	}
	/* the group candidates of 4 rows on sddmm_vb4_csr.stir, S written
	 * through Dst (a random permutation of the slots) in one launch: each
	 * at 32 features, the one- and two-lane ones also at 6 */
	for (int c = 0; c < stir_sddmm_vblock_n_candidates(); c++) {
		const stir_sddmm_vblock_candidate *q =
			stir_sddmm_vblock_get_candidate(c);
		for (int fi = 0; q->rows == 4 && fi < (q->max_lanes <= 2 ? 2 : 1);
		    fi++) {
			emu_prog *p = add("examples/sddmm_vb4_csr.stir",
				"sddmm_vb_csr", "examples/sddmm_vb4_csr.stir",
				"sddmm_vb_csr", NULL);
			p->schedule = sddmm_vblock_candidate;
			p->arg.feat = vb_feats[fi];
			p->arg.candidate = c;
			p->graph = "tests/data/graphs/small.mtx";
			p->slots = 4;
		}
	}
	/* features and threads a row: 8 features, 2 lanes of float4; 6:
	 * float2 in three chunks on threadIdx.z; 64: 16 lanes; 256: 32 lanes
	 * in two chunks.  Rows shared by a group of threads (cross-thread sums
	 * of register arrays): 32 features, 4 threads a row, 8 lanes of
	 * float4; 64: 2 a row; 256: 4 a row, 8 lanes, 8 chunks (32 sums a
	 * thread); 6: 2 a row of float2 lanes; 32: 8 a row, 4 lanes of float4
	 * in two chunks.  The parts narrower than the
	 * group put rows on those threads instead; every part of hybrid(2, ..)
	 * adds atomically */
	static const int64_t spmm_cases[][2] = {
		{ 8, 1 }, { 6, 1 }, { 64, 1 }, { 256, 1 },
		{ 32, 4 }, { 64, 2 }, { 256, 4 }, { 6, 2 }, { 32, 8 },
	};
	for (size_t h = 0; h < sizeof(hyb_cases) / sizeof(hyb_cases[0]); h++) {
		for (size_t i = 0; i < sizeof(spmm_cases) / sizeof(spmm_cases[0]);
		     i++) {
			emu_prog *p = add("examples/csrmm.stir", "csrmm",
				"examples/csrmm.stir", "csrmm", NULL);
			p->schedule = spmm_hybrid;
			p->arg = (sched_arg){ spmm_cases[i][0], 0, &hyb_cases[h],
				spmm_cases[i][1], 0, 0 };
			p->graph = "tests/data/graphs/small.mtx";
		}
		/* serial chunks: 64 features over 8 lanes of float4 (two chunks
		 * a thread), 128 over 8 (four), 256 over 32 (two) */
		static const int64_t serial_cases[][2] = {
			{ 64, 8 }, { 128, 8 }, { 256, 32 },
		};
		for (size_t i = 0; i < sizeof(serial_cases) /
		     sizeof(serial_cases[0]); i++) {
			emu_prog *p = add("examples/csrmm.stir", "csrmm",
				"examples/csrmm.stir", "csrmm", NULL);
			p->schedule = spmm_hybrid;
			p->arg = (sched_arg){ serial_cases[i][0], 0, &hyb_cases[h], 0,
				serial_cases[i][1], 0 };
			p->plan_flags = STIR_CUDA_ALIGNED_BUFFERS;
			p->graph = "tests/data/graphs/small.mtx";
		}
	}
	/* 32 features, 8 threads a row of every part: the sums of 8
	 * threads combined by shuffles, the hub split over rows of 16 */
	emu_prog *wp = add("examples/csrmm.stir", "csrmm",
		"examples/csrmm.stir", "csrmm", NULL);
	wp->schedule = spmm_hybrid;
	wp->arg = (sched_arg){ 32, 0, &hyb_wide, 8, 0, 0 };
	wp->graph = "tests/data/graphs/small.mtx";
	for (size_t i = 0; i < sizeof(scheduled) / sizeof(scheduled[0]); i++) {
		char file[300];
		snprintf(file, sizeof(file), "examples/%s.stir", scheduled[i].kernel);
		/* as stir_gpu_kernel_compile emits it (stirc's runs below use
		 * this one), and with the alignment checks at larger sizes */
		for (int size = 0; size < 2; size++) {
			emu_prog *p = add(file, scheduled[i].kernel, file,
				scheduled[i].kernel, size ? scheduled[i].sizes : NULL);
			p->sched_file = scheduled[i].schedule;
			p->plan_flags = size ? 0 : STIR_CUDA_ALIGNED_BUFFERS;
		}
	}
	/* SDDMM over SR-BCRS(8, 16) tiles on tensor cores, 3xTF32 (f32's
	 * tolerance) and tf32: Y's rows gathered by the group's columns as
	 * A, X's window rows read transposed as B (sizes given: a group
	 * needs 16 columns) */
	static const char *const tiles[][2] = {
		{ "examples/sddmm_tiles_tc.yaml", "nw=5,n=40" },
		{ "tests/tensorize/sddmm_tiles_tf32.yaml", "nw=4,n=16" },
	};
	for (size_t i = 0; i < sizeof(tiles) / sizeof(tiles[0]); i++) {
		emu_prog *p = add("examples/sddmm_tiles.stir", "sddmm_tiles",
			"examples/sddmm_tiles.stir", "sddmm_tiles", tiles[i][1]);
		p->sched_file = tiles[i][0];
	}
	/* the same written straight into CSR order through Dst (the
	 * fragment stored element by element through the distinct map), the
	 * steps unrolled under the group's guard tested once; as
	 * stir_gpu_kernel_compile emits it (Y's gathered pairs float2 loads
	 * with no test) and with the tests */
	for (int aligned = 0; aligned < 2; aligned++) {
		emu_prog *p = add("examples/sddmm_tiles_csr.stir",
			"sddmm_tiles_csr", "examples/sddmm_tiles_csr.stir",
			"sddmm_tiles_csr", "nw=5,n=40");
		p->sched_file = "examples/sddmm_tiles_csr_tc.yaml";
		p->plan_flags = aligned ? STIR_CUDA_ALIGNED_BUFFERS : 0;
	}
	/* the features over 2 thread blocks, the fragments added
	 * atomically through Dst into the slots zeroed first */
	emu_prog *sk = add("examples/sddmm_tiles_csr.stir", "sddmm_tiles_csr",
		"examples/sddmm_tiles_csr.stir", "sddmm_tiles_csr", "nw=5,n=40");
	sk->sched_file = "examples/sddmm_tiles_csr_splitk.yaml";
	sk->plan_flags = STIR_CUDA_ALIGNED_BUFFERS;
	/* the features over 2 warps of the block, their partial tiles summed
	 * in shared memory and stored through Dst */
	emu_prog *kw = add("examples/sddmm_tiles_csr.stir", "sddmm_tiles_csr",
		"examples/sddmm_tiles_csr.stir", "sddmm_tiles_csr", "nw=5,n=40");
	kw->sched_file = "examples/sddmm_tiles_csr_kwarps.yaml";
	kw->plan_flags = STIR_CUDA_ALIGNED_BUFFERS;
	/* two groups a warp, the accumulator two fragments one after
	 * another, each stored under its group's guard */
	emu_prog *t2 = add("examples/sddmm_tiles_csr.stir", "sddmm_tiles_csr",
		"examples/sddmm_tiles_csr.stir", "sddmm_tiles_csr", "nw=5,n=40");
	t2->sched_file = "examples/sddmm_tiles_csr_tiles2.yaml";
	t2->plan_flags = STIR_CUDA_ALIGNED_BUFFERS;
	/* the tile recipe's candidates of each shape (schedule/recipes/
	 * sddmm_tiles.c): 16 warps a group each, the steps in pieces of 8
	 * at 128 features; the features over 4 warps; 4 groups on each of
	 * 4 warps; 2 groups on each of 16 warps */
	static const struct {
		int candidate;
		int64_t feat;
		const char *sizes;
	} tile_cands[] = { { 0, 128, "nw=5,n=40,feat=128" },
		{ 5, 32, "nw=5,n=40,feat=32" }, { 9, 64, "nw=5,n=40,feat=64" },
		{ 10, 64, "nw=5,n=40,feat=64" } };
	for (size_t i = 0; i < sizeof(tile_cands) / sizeof(tile_cands[0]); i++) {
		emu_prog *p = add("examples/sddmm_tiles_csr.stir",
			"sddmm_tiles_csr", "examples/sddmm_tiles_csr.stir",
			"sddmm_tiles_csr", tile_cands[i].sizes);
		p->schedule = sddmm_tiles_candidate;
		p->arg.candidate = tile_cands[i].candidate;
		p->arg.feat = tile_cands[i].feat;
		p->plan_flags = STIR_CUDA_ALIGNED_BUFFERS;
	}
	/* the BSR recipe's candidates (schedule/recipes/bsr.c), on rows of
	 * fewer blocks than the warps and stages and of more */
	static const struct {
		int candidate;
		int64_t feat;
		const char *sizes;
	} bsr_cands[] = { { 0, 64, "mb=5,nb=6,feat=64" },
		{ 0, 32, "mb=3,nb=23,feat=32" }, { 1, 64, "mb=3,nb=23,feat=64" },
		{ 2, 64, "mb=3,nb=23,feat=64" }, { 3, 128, "mb=5,nb=6,feat=128" },
		{ 3, 64, "mb=3,nb=23,feat=64" }, { 4, 64, "mb=2,nb=3,feat=64" },
		{ 5, 64, "mb=3,nb=5,feat=64" }, { 6, 128, "mb=2,nb=3,feat=128" },
		{ 7, 64, "mb=3,nb=23,feat=64" }, { 8, 128, "mb=2,nb=3,feat=128" },
		{ 8, 64, "mb=3,nb=23,feat=64" }, { 9, 128, "mb=3,nb=5,feat=128" } };
	for (size_t i = 0; i < sizeof(bsr_cands) / sizeof(bsr_cands[0]); i++) {
		const stir_bsr_tc_candidate *q =
			stir_bsr_tc_get_candidate(bsr_cands[i].candidate);
		const char *prog = q->block == 64 ? "bench/bsrmm64.stir" :
			q->block == 32 ? "bench/bsrmm32.stir" :
			"examples/bsrmm.stir";
		emu_prog *p = add(prog, "bsrmm", prog, "bsrmm",
			bsr_cands[i].sizes);
		p->schedule = bsr_tc_candidate;
		p->arg.candidate = bsr_cands[i].candidate;
		p->arg.feat = bsr_cands[i].feat;
	}
	/* the SR-BCRS recipe's candidates (schedule/recipes/srbcrs.c), their
	 * formats built on the host (srbcrs_format); windows of up to 5
	 * groups, split by chunks of 2 */
	for (int i = 0; i < stir_srbcrs_tc_n_candidates() + 2; i++) {
		emu_prog *p = add("examples/csrmm.stir", "csrmm",
			"examples/csrmm.stir", "csrmm", "m=45,n=40,feat=64");
		p->schedule = srbcrs_tc_candidate;
		p->arg.candidate = i;
		p->arg.feat = 64;
		p->plan_flags = STIR_CUDA_ALIGNED_BUFFERS;
	}
	/* four groups a warp at 64 features, X's fragments loaded once per
	 * piece of steps before the group loop (cuda_mma_invariant_steps),
	 * where some group's guard holds */
	emu_prog *t4 = add("examples/sddmm_tiles_csr.stir", "sddmm_tiles_csr",
		"examples/sddmm_tiles_csr.stir", "sddmm_tiles_csr", "nw=5,n=40");
	t4->sched_file = "examples/sddmm_tiles_csr_tiles4.yaml";
	t4->plan_flags = STIR_CUDA_ALIGNED_BUFFERS;
	/* tensor cores on bf16 blocks, and on f32 blocks through tf32
	 * (tests/tensorize) */
	static const char *const tc[][2] = {
		{ "tests/tensorize/bsrmm_bf16.stir",
		  "tests/tensorize/bsrmm_bf16.yaml" },
		{ "tests/tensorize/bsrmm_f32.stir",
		  "tests/tensorize/bsrmm_f32.yaml" },
		/* bf16, both operands transposed, staged by cp.async: the
		 * transposed ldmatrix loads */
		{ "tests/tensorize/bsrmm_bf16_t.stir",
		  "tests/tensorize/bsrmm_bf16_t.yaml" },
		/* wmma on f16 operands stored transposed: the API's column-major
		 * fragments */
		{ "tests/tensorize/bsrmm_f16_t.stir",
		  "tests/tensorize/bsrmm_wmma_t.yaml" },
		/* 32x32 and 64x64 blocks as 16x16 sub-blocks, 4 tiles a warp */
		{ "bench/bsrmm32.stir", "tests/tensorize/bsrmm32_tc.yaml" },
		{ "bench/bsrmm64.stir", "tests/tensorize/bsrmm64_tc.yaml" },
		/* the same staged by cp.async, one warp, the strips in turn: the
		 * copy of B's rows is a nest of four loops */
		{ "bench/bsrmm32.stir", "tests/tensorize/bsrmm32_tc_cp.yaml" },
		{ "bench/bsrmm64.stir", "tests/tensorize/bsrmm64_tc_cp.yaml" },
		/* blocks of 64 over 2 warps a row, slots and strips of each */
		{ "bench/bsrmm64.stir", "tests/tensorize/bsrmm64_tc_warps.yaml" },
		/* blocks of 64, each 16-row strip a thread block (blockIdx.z) */
		{ "bench/bsrmm64.stir", "tests/tensorize/bsrmm64_tc_strips.yaml" },
		/* C's fragments split over warps by a digit below the top of
		 * the tile index: blocks of 32 over 2 warps of the features,
		 * blocks of 64 over 2 x 2 (threadIdx.y and z) */
		{ "bench/bsrmm32.stir", "tests/tensorize/bsrmm32_tc_1x2.yaml" },
		{ "bench/bsrmm64.stir", "tests/tensorize/bsrmm64_tc_2x2.yaml" },
	};
	for (size_t t = 0; t < sizeof(tc) / sizeof(tc[0]); t++)
		for (int size = 0; size < 2; size++) {
			emu_prog *p = add(tc[t][0], "bsrmm", tc[t][0], "bsrmm",
				size ? "mb=7,nb=5" : NULL);
			p->sched_file = tc[t][1];
			p->plan_flags = STIR_CUDA_ALIGNED_BUFFERS;
		}
	/* SR-BCRS(16, 16) on tensor cores with f16 A and B: the gathered
	 * rows of B two a register */
	for (int size = 0; size < 2; size++) {
		emu_prog *p = add("tests/tensorize/csrmm_f16.stir", "csrmm",
			"tests/tensorize/csrmm_f16.stir", "csrmm",
			size ? "m=45,n=40" : NULL);
		p->sched_file = "tests/tensorize/csrmm_srbcrs_f16.yaml";
		p->plan_flags = size ? 0 : STIR_CUDA_ALIGNED_BUFFERS;
		/* tf32: 4 tiles a warp; the same split over 4 thread blocks
		 * (the guarded atomic adds); written once over the init (the
		 * row-guarded stores), and with a window's groups over 2 warps;
		 * split-K over thread blocks and warps (atomic adds into the
		 * warps' shared strips, then into C); the windows of more than
		 * 4 groups in chunks (their rows zeroed by a launch of their
		 * own, the chunks added atomically, the other windows stored
		 * once, the row guard reading the item's window) */
		static const char *const tf32[] = {
			"tests/tensorize/csrmm_srbcrs_tiles.yaml",
			"tests/tensorize/csrmm_srbcrs_splitk.yaml",
			"tests/tensorize/csrmm_srbcrs_once.yaml",
			"tests/tensorize/csrmm_srbcrs_once_warps.yaml",
			"tests/tensorize/csrmm_srbcrs_splitk_warps.yaml",
			"tests/tensorize/csrmm_srbcrs_chunks.yaml" };
		for (size_t i = 0; i < sizeof(tf32) / sizeof(tf32[0]); i++) {
			p = add("examples/csrmm.stir", "csrmm", "examples/csrmm.stir",
				"csrmm", size ? "m=45,n=40" : NULL);
			p->sched_file = tf32[i];
			p->plan_flags = size ? 0 : STIR_CUDA_ALIGNED_BUFFERS;
		}
		/* the chunks with the windows' rows in the locality order, on
		 * CUDA cores: C's rows through P (zeroed, added atomically,
		 * added) */
		p = add("examples/csrmm.stir", "csrmm", "examples/csrmm.stir",
			"csrmm", size ? "m=45,n=40" : NULL);
		p->sched_file = "tests/tensorize/csrmm_srbcrs_rows.yaml";
		/* the same on tensor cores: the fragments added atomically into
		 * the gathered rows under the row guard */
		p = add("examples/csrmm.stir", "csrmm", "examples/csrmm.stir",
			"csrmm", size ? "m=45,n=40" : NULL);
		p->sched_file = "tests/tensorize/csrmm_srbcrs_rows_tc.yaml";
		p->plan_flags = size ? 0 : STIR_CUDA_ALIGNED_BUFFERS;
	}
	/* 64-bit sizes and index arrays (tests/wide), lowered from stage I:
	 * i64 loops, i64 offsets, i32 iterators over i64 lengths */
	static const struct {
		const char *file, *kernel, *schedule, *sizes;
	} wide[] = {
		{ "tests/wide/csrmm64.stir", "csrmm", "examples/csrmm.yaml",
		  "m=40,n=30,feat=24" },
		{ "tests/wide/mixed64.stir", "mixed", "tests/wide/mixed64.yaml",
		  "m=30,n=20,feat=12,w=300" },
		{ "tests/wide/csrmm64.stir", "csrmm", "examples/csrmm_hyb.yaml",
		  "m=70,n=50" },
		{ "tests/wide/csrmm64.stir", "csrmm",
		  "examples/csrmm_hyb_grouped.yaml", "m=70,n=50" },
		{ "tests/wide/sddmm64.stir", "sddmm", "examples/sddmm.yaml",
		  "m=30,n=30,feat=40" },
		{ "tests/wide/sddmm64.stir", "sddmm", "examples/sddmm_fast.yaml",
		  "m=30,n=40" },
	};
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++) {
		emu_prog *p = add(wide[i].file, wide[i].kernel, wide[i].file,
			wide[i].kernel, wide[i].sizes);
		p->sched_file = wide[i].schedule;
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

/* ctx, b, file, h, slots: bind m, n, nnz and J's structure from a Matrix
 * Market file (as i32 arrays); with h, also A's values (f32) and the
 * hybrid format h of the matrix, every part bound; with slots, nv to
 * nnz * slots. */
static void bind_graph(stir_ctx *ctx, stir_bindings *b, const char *file,
	const hyb_case *h, int64_t slots)
{
	stir_csr *c = stir_mtx_read_from_file(ctx, test_path(file));
	ck_assert_ptr_nonnull(c);
	stir_bindings_set_size(b, "m", c->nrows);
	stir_bindings_set_size(b, "n", c->ncols);
	stir_bindings_set_size(b, "nnz", c->nnz);
	if (slots)
		stir_bindings_set_size(b, "nv", c->nnz * slots);
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
	if (h) {
		stir_array *a = stir_array_alloc(ctx, STIR_F32, 1, &ni);
		ck_assert_ptr_nonnull(a);
		for (int64_t i = 0; i < ni; i++) {
			c->values[i] *= (double)(1 + i % 7) / 4;
			stir_array_set_double(a, i, c->values[i]);
		}
		stir_bindings_set_array(b, "A", a);
		stir_host_format *f = stir_csr_to_hybrid_flags(ctx, c, h->c, h->nb,
			h->buckets, STIR_I32, STIR_F32, "_hyb", stir_spmm_hybrid_format_flags(h->c), b);
		ck_assert_ptr_nonnull(f);
		stir_host_format_free(f);
	}
	stir_csr_free(c);
}

/* k, by, got, want, what: the tensors of k agree (NaN with NaN), "got"
 * computed by kernel "by", at its tolerance (stir_kernel_get_tolerance). */
static void compare(const stir_kernel *k, const stir_kernel *by,
	const stir_bindings *got, const stir_bindings *want, const char *what)
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
		int64_t j;
		if (stir_array_compare_within(a, r, stir_kernel_get_tolerance(by,
		    stir_array_get_dtype(r)), &j, NULL) != 0)
			ck_abort_msg("%s: %s[%lld] is %.9g emulated, %.9g interpreted",
				what, name, (long long)j, j >= 0 ?
				stir_array_get_double(a, j) : NAN, j >= 0 ?
				stir_array_get_double(r, j) : NAN);
	}
}

/* ctx: the fake driver's device (tests/fake_cuda.c). */
static stir_device *fake_device(stir_ctx *ctx)
{
	setenv("STIR_LIBCUDA", fake_path(), 1);
	unsetenv("FAKE_CUDA_NO_DEVICE");
	unsetenv("FAKE_CUDA_NO_PROC");
	stir_device *dev = stir_device_alloc(ctx, 0);
	ck_assert_ptr_nonnull(dev);
	return dev;
}

/* p, ctx, k: the GPU kernel of k (p's kernel) with p's emulated object
 * as its code. */
static stir_gpu_kernel *emulated_kernel(const emu_prog *p, stir_ctx *ctx,
	stir_kernel *k)
{
	size_t size;
	void *so = read_all(p->so, &size);
	stir_gpu_code *code = stir_gpu_code_alloc(ctx, p->kernel, "sm_90", so,
		size);
	free(so);
	stir_gpu_kernel *gk = stir_gpu_kernel_alloc(k, code);
	ck_assert_ptr_nonnull(gk);
	return gk;
}

/* ctx, b, p: SR-BCRS candidate p's format (stir_srbcrs_tc_format) of
 * A as b binds it (J.indptr, J.indices, A of examples/csrmm.stir), bound
 * into b. */
static void srbcrs_format(stir_ctx *ctx, stir_bindings *b,
	const stir_srbcrs_tc_candidate *p)
{
	stir_array *ptr = stir_bindings_get_array(b, "J.indptr");
	stir_array *ind = stir_bindings_get_array(b, "J.indices");
	stir_array *val = stir_bindings_get_array(b, "A");
	int64_t m, n;
	ck_assert(ptr && ind && val && stir_bindings_get_size(b, "m", &m) &&
		stir_bindings_get_size(b, "n", &n));
	stir_csr c = { m, n, stir_array_get_int(ptr, m), NULL, NULL, NULL };
	c.indptr = malloc((size_t)(m + 1) * sizeof(int64_t));
	c.indices = malloc((size_t)(c.nnz + 1) * sizeof(int64_t));
	c.values = malloc((size_t)(c.nnz + 1) * sizeof(double));
	ck_assert(c.indptr && c.indices && c.values);
	for (int64_t i = 0; i <= m; i++)
		c.indptr[i] = stir_array_get_int(ptr, i);
	for (int64_t i = 0; i < c.nnz; i++) {
		c.indices[i] = stir_array_get_int(ind, i);
		c.values[i] = stir_array_get_double(val, i);
	}
	stir_host_format *f = stir_srbcrs_tc_format(ctx, &c, p, STIR_I32,
		STIR_F32, b);
	if (!f)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(f);
	stir_host_format_free(f);
	free(c.indptr);
	free(c.indices);
	free(c.values);
}

START_TEST(test_emulated)
{
	emu_prog *p = &progs[_i * EMU_SHARDS + EMU_SHARD];
	stir_ctx *ctx = stir_ctx_alloc();
	alarm(120); /* a barrier some thread misses deadlocks */
	stir_device *dev = fake_device(ctx);
	stir_module *m;
	stir_schedule *sched;
	stir_kernel *k = load_kernel(p, ctx, &m, &sched);
	if (!k)
		stir_ctx_print_diagnostics(ctx, stderr);
	stir_module *rm = stir_module_read_from_file(ctx, test_path(p->ref_file));
	ck_assert(m && rm);
	stir_kernel *ref = *p->ref_kernel ?
		stir_module_find_kernel(rm, p->ref_kernel) :
		stir_module_find_kernel(rm, p->kernel);
	ck_assert(k && ref);
	stir_gpu_kernel *gk = emulated_kernel(p, ctx, k);
	for (uint64_t seed = 1; seed <= 2; seed++) {
		/* the threads of a block in increasing, then decreasing order */
		if (seed == 2)
			setenv("STIR_EMU_REVERSE", "1", 1);
		else
			unsetenv("STIR_EMU_REVERSE");
		stir_bindings *b = stir_bindings_alloc();
		if (p->sizes)
			test_bind_sizes(b, p->sizes);
		if (p->graph) {
			bind_graph(ctx, b, p->graph, p->arg.hybrid, p->slots);
			stir_bindings_set_size(b, "feat", p->arg.feat);
		}
		if (sched)
			ck_assert_int_eq(stir_schedule_bind_sizes(sched, b), 0);
		ck_assert_int_eq(stir_kernel_bind_random(ref, b, seed), 0);
		ck_assert_int_eq(stir_kernel_bind_outputs(ref, b), 0);
		/* the formats the schedule (or recipe) decomposes into */
		if (sched)
			ck_assert_int_eq(stir_schedule_bind_formats(sched, ref, b), 0);
		if (p->schedule == srbcrs_tc_candidate)
			srbcrs_format(ctx, b, srbcrs_candidate(p->arg.candidate));
		stir_cuda_plan_poison_outputs(stir_gpu_kernel_get_plan(gk), b);
		stir_bindings *want = stir_bindings_copy(b);
		ck_assert_int_eq(stir_kernel_interpret(ref, want), 0);
		int rc = stir_gpu_kernel_run(gk, dev, b, STIR_GPU_RUN_TIME, NULL);
		if (rc < 0)
			stir_ctx_print_diagnostics(ctx, stderr);
		ck_assert_int_eq(rc, 0);
		char what[700];
		snprintf(what, sizeof(what), "%s %s seed %d%s%s%s%s%s%s", p->file,
			p->kernel, (int)seed, p->sizes ? " " : "",
			p->sizes ? p->sizes : "", p->graph ? " scheduled, on " : "",
			p->graph ? p->graph : "", p->sched_file ? " under " : "",
			p->sched_file ? p->sched_file : "");
		if (p->schedule)
			snprintf(what + strlen(what), sizeof(what) - strlen(what),
				" with %lld features", (long long)p->arg.feat);
		compare(ref, k, b, want, what);
		stir_bindings_free(b);
		stir_bindings_free(want);
	}
	stir_gpu_kernel_free(gk);
	stir_device_free(dev);
	stir_schedule_free(sched);
	stir_module_free(m);
	stir_module_free(rm);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
	stir_ctx_free(ctx);
}
END_TEST

/* The schedule test_dynamic_shared_limit runs. */
static const char dynamic_shared_file[] =
	"tests/tensorize/bsrmm_tc_warps_f64_s4b2.yaml";

/* A kernel of more than 48 KiB of shared arrays (57344 bytes of dynamic
 * shared memory) on a device that allows only 48 KiB: the launch is
 * refused before it runs, at the launch's statement, with the device's
 * limit (the runs of test_emulated pass it the size the plan gives; the
 * emulator fails a launch given less). */
START_TEST(test_dynamic_shared_limit)
{
	const char *file = dynamic_shared_file;
	emu_prog *p = NULL;
	for (int i = 0; i < n_progs && !p; i++)
		if (progs[i].sched_file && progs[i].sizes &&
		    !strcmp(progs[i].sched_file, file))
			p = &progs[i];
	ck_assert_ptr_nonnull(p);
	stir_ctx *ctx = stir_ctx_alloc();
	setenv("FAKE_CUDA_SHARED_OPTIN", "49152", 1);
	stir_device *dev = fake_device(ctx);
	stir_module *m;
	stir_schedule *sched;
	stir_kernel *k = load_kernel(p, ctx, &m, &sched);
	ck_assert_ptr_nonnull(k);
	stir_gpu_kernel *gk = emulated_kernel(p, ctx, k);
	ck_assert_uint_eq(stir_cuda_plan_get_launch_shared(
		stir_gpu_kernel_get_plan(gk), 0), 57344);
	stir_bindings *b = stir_bindings_alloc();
	test_bind_sizes(b, p->sizes);
	ck_assert_int_eq(stir_schedule_bind_sizes(sched, b), 0);
	stir_module *rm = stir_module_read_from_file(ctx, test_path(p->ref_file));
	ck_assert_ptr_nonnull(rm);
	stir_kernel *ref = stir_module_find_kernel(rm, p->kernel);
	ck_assert_int_eq(stir_kernel_bind_random(ref, b, 1), 0);
	ck_assert_int_eq(stir_kernel_bind_outputs(ref, b), 0);
	ck_assert_int_eq(stir_schedule_bind_formats(sched, ref, b), 0);
	ck_assert_int_eq(stir_gpu_kernel_run(gk, dev, b, 0, NULL), -1);
	char *d = stir_ctx_diagnostics_to_str(ctx);
	ck_assert_msg(strstr(d, "bsrmm.stir:14:5: error: launch 0 of kernel "
		"'bsrmm' needs 57344 bytes of shared memory") &&
		strstr(d, "with 57344 bytes of dynamic shared memory: Fake CUDA "
		"Device allows 49152"), "%s", d);
	free(d);
	unsetenv("FAKE_CUDA_SHARED_OPTIN");
	stir_bindings_free(b);
	stir_gpu_kernel_free(gk);
	stir_device_free(dev);
	stir_schedule_free(sched);
	stir_module_free(m);
	stir_module_free(rm);
	stir_ctx_free(ctx);
}
END_TEST

/* ctx, fm, rows: schedule SDDMM for fm, fused (examples/sddmm.stir) or
 * row by row (examples/sddmm_rows.stir), and check the shape each
 * promises: one launch of (lanes, non-zeros at a time) threads, the X and
 * Y vectors loaded as float4, the lanes' parts combined by shuffles, the
 * features a literal; fused: a block per fm.nnz non-zeros, the row of a
 * non-zero searched once; rows: a block per row, X's row in shared
 * memory, no search.  NVRTC compiles it for sm_90 (when stir has NVRTC). */
static void check_sddmm_shape(stir_ctx *ctx, stir_sddmm_map fm, bool rows)
{
	stir_module *m = stir_module_read_from_file(ctx, test_path(rows ?
		"examples/sddmm_rows.stir" : "examples/sddmm.stir"));
	stir_kernel *k = m ? stir_module_find_kernel(m, rows ? "sddmm_rows" :
		"sddmm") : NULL;
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(rows ? stir_recipe_sddmm_rows(k, fm) :
		stir_recipe_sddmm(k, fm), 0);
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
	ck_assert_int_eq(test_count(src, "stir_upper_bound_i32("), rows ? 0 : 2);
	ck_assert(!rows || !strstr(src, "upper_bound"));
	ck_assert_int_eq(test_count(src, decl), rows ? 1 : 0);
	ck_assert_int_eq(test_count(src, "float4 stir_v"), 2);
	ck_assert_int_ge(test_count(src, "__shfl_down_sync"), 1);
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
		stir_sddmm_map fm = stir_sddmm_map_features(feats[i]);
		ck_assert_int_eq(fm.vec, 4);
		ck_assert_int_eq(fm.lanes * fm.nnz, 256);
		ck_assert_int_eq(feats[i] % (fm.lanes * fm.vec), 0);
		check_sddmm_shape(ctx, fm, false);
		check_sddmm_shape(ctx, fm, true);
		check_sddmm_shape(ctx, stir_sddmm_map_lanes(feats[i], 8), true);
	}
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
	stir_ctx_free(ctx);
}
END_TEST

/* program, yaml, schedule, arg: the schedule file "yaml" makes of
 * "program" for the GPU the stage III kernel that schedule(k, &arg)
 * makes (both printed). */
static void expect_same_kernel(const char *program, const char *yaml,
	int (*schedule)(stir_kernel *k, const sched_arg *a), sched_arg arg)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *a = stir_module_read_from_file(ctx, test_path(program));
	stir_module *b = stir_module_read_from_file(ctx, test_path(program));
	stir_schedule *s = stir_schedule_read_from_file(ctx, test_path(yaml));
	ck_assert(a && b && s);
	stir_kernel *ka = stir_module_find_kernel(a, stir_schedule_get_kernel_name(s));
	stir_kernel *kb = stir_schedule_find_kernel(s, b);
	ck_assert_int_eq(schedule(ka, &arg), 0);
	ck_assert_int_eq(stir_schedule_prepare_for_gpu(s, kb), 0);
	char *ta = stir_kernel_to_str(ka), *tb = stir_kernel_to_str(kb);
	/* the first line that differs (the kernels are too long for a
	 * message of check's) */
	const char *la = ta, *lb = tb;
	while (*la && *la == *lb)
		la++, lb++;
	if (*la || *lb) {
		while (la > ta && la[-1] != '\n')
			la--, lb--;
		ck_abort_msg("the C schedule makes\n%.200s\nwhere %s makes\n%.200s",
			la, yaml, lb);
	}
	free(ta);
	free(tb);
	stir_schedule_free(s);
	stir_module_free(a);
	stir_module_free(b);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
	stir_ctx_free(ctx);
}

/* The schedule files of examples/ that are the benchmarks' schedules for
 * 64 features make the same kernels. */
START_TEST(test_bench_files)
{
	expect_same_kernel("examples/sddmm.stir", "examples/sddmm_fast.yaml",
		sddmm_fast, (sched_arg){ 64, 0, NULL, 0, 0, 0 });
	expect_same_kernel("examples/sddmm_rows.stir",
		"examples/sddmm_rows.yaml", sddmm_rows,
		(sched_arg){ 64, 32, NULL, 0, 0, 0 });
	expect_same_kernel("examples/csrmm.stir", "examples/csrmm_hyb.yaml",
		spmm_hybrid, (sched_arg){ 64, 0, &hyb_bench, 0, 0, 0 });
	expect_same_kernel("examples/csrmm.stir",
		"examples/csrmm_hyb_grouped.yaml", spmm_hybrid,
		(sched_arg){ 32, 0, &hyb_bench, 4, 0, 0 });
}
END_TEST

/* ---- stirc --backend cuda, emulated ----------------------------------- */

/* stirc's GPU runs under a schedule: the command's arguments (after
 * "stirc"), and what its output must hold. */
static const struct {
	const char *schedule;     /* the schedule file of the run */
	const char *args;
	const char *expect;
	const char *expect_time;  /* what --time must print, or NULL */
} stirc_runs[] = {
	{ "examples/csrmm_hyb.yaml", "run examples/csrmm.stir --backend cuda "
	  "--mtx A=examples/data/cora.mtx.gz --random 1 --check --time --warmups 1 "
	  "--reps 3", "check: csrmm matches the stage I interpreter",
	  "the median of 3 runs after 1 warm-up, the L2 cache flushed before "
	  "each" },
	{ "examples/sddmm_fast.yaml", "run examples/sddmm.stir --backend cuda "
	  "--mtx S=examples/data/cora.mtx.gz --random 1 --check --time --warmups 0 "
	  "--reps 1",
	  "check: sddmm matches the stage I interpreter", NULL },
	{ "examples/sddmm_rows.yaml", "run examples/sddmm_rows.stir --backend "
	  "cuda --mtx S=tests/data/graphs/small.mtx --random 1 --check --time "
	  "--warmups 0 --reps 1",
	  "check: sddmm_rows matches the stage I interpreter", NULL },
	{ "examples/csrmm.yaml", "run examples/csrmm.stir --backend cuda "
	  "--random 2 --size m=60 --size feat=24 --check --time --warmups 0 "
	  "--reps 1",
	  "check: csrmm matches the stage I interpreter", NULL },
	{ "examples/sddmm.yaml", "verify examples/sddmm.stir --backend cuda "
	  "--seeds 3", ": ok", NULL },
	{ "examples/csrmm_hyb.yaml", "verify examples/csrmm.stir --backend cuda "
	  "--seeds 2", ": ok", NULL },
	{ "examples/csrmm_hyb_grouped.yaml", "run examples/csrmm.stir --backend "
	  "cuda --mtx A=examples/data/cora.mtx.gz --random 1 --check --time --warmups 0 "
	  "--reps 1",
	  "check: csrmm matches the stage I interpreter", NULL },
	/* SR-BCRS on tensor cores, built from Cora (2708 rows: the last
	 * window guarded) */
	{ "examples/csrmm_srbcrs_tc.yaml", "run examples/csrmm.stir --backend "
	  "cuda --mtx A=examples/data/cora.mtx.gz --random 1 --check --time "
	  "--warmups 0 --reps 1",
	  "check: csrmm matches the stage I interpreter", NULL },
};

/* p: whether a case other than test_emulated runs p's object (so the
 * last shard compiles it whatever its index). */
static bool used_by_other_cases(const emu_prog *p)
{
	if (!p->sched_file)
		return false;
	if (!strcmp(p->sched_file, dynamic_shared_file))
		return true;
	for (size_t i = 0; i < sizeof(stirc_runs) / sizeof(stirc_runs[0]); i++)
		if (!strcmp(p->sched_file, stirc_runs[i].schedule))
			return true;
	return false;
}

/* path, text: whether the file at path holds text. */
static bool file_has(const char *path, const char *text)
{
	size_t size;
	char *s = read_all(path, &size);
	s = realloc(s, size + 1);
	s[size] = '\0';
	bool has = strstr(s, text) != NULL;
	free(s);
	return has;
}

START_TEST(test_stirc)
{
	const char *sched = stirc_runs[_i].schedule;
	const emu_prog *p = NULL;
	for (int i = 0; i < n_progs && !p; i++)
		if (progs[i].sched_file && !strcmp(progs[i].sched_file, sched))
			p = &progs[i];
	ck_assert_ptr_nonnull(p);
	char dir[] = "/tmp/stir-emu-stirc-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));

	/* the emulated object, where stirc will look for its NVRTC code */
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m;
	stir_schedule *s;
	stir_kernel *k = load_kernel(p, ctx, &m, &s);
	ck_assert_ptr_nonnull(k);
	stir_cuda_plan *plan = stir_cuda_plan_alloc(k, p->plan_flags);
	ck_assert_ptr_nonnull(plan);
	size_t size;
	void *so = read_all(p->so, &size);
	char name[200];
	snprintf(name, sizeof(name), "%s.cu", p->kernel);
	stir_compile_options co = { .arch = "sm_90", .cache_dir = dir };
	int rc = stir_gpu_code_cache_put(ctx, name,
		stir_cuda_plan_get_source(plan), &co, so, size);
	if (rc)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_int_eq(rc, 0);
	free(so);
	stir_cuda_plan_free(plan);
	stir_schedule_free(s);
	stir_module_free(m);
	stir_ctx_free(ctx);

	char cmd[16384], out[300];
	const char *b = getenv("STIR_BUILDDIR");
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(cmd, sizeof(cmd), "cd '%s' && STIR_LIBCUDA='%s' "
		"STIR_CACHE_DIR='%s' '%s/tools/stirc' %s --arch sm_90 --schedule "
		"%s > '%s' 2>&1", test_srcdir(), fake_path(), dir, b ? b : ".",
		stirc_runs[_i].args, sched, out);
	rc = system(cmd);
	if (rc != 0 || !file_has(out, stirc_runs[_i].expect)) {
		snprintf(cmd, sizeof(cmd), "cat '%s' >&2", out);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot show %s\n", out);
	}
	ck_assert_int_eq(rc, 0);
	ck_assert(file_has(out, stirc_runs[_i].expect));
	if (stirc_runs[_i].expect_time)
		ck_assert(file_has(out, stirc_runs[_i].expect_time));
	else if (strstr(stirc_runs[_i].args, "--reps 1"))
		ck_assert(file_has(out, "the median of 1 run after 0 warm-ups"));
	/* the code came from the cache: NVRTC's would not load in the fake */
	if (!strncmp(stirc_runs[_i].args, "run", 3))
		ck_assert(file_has(out, "code from the cache"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
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
	tcase_add_loop_test(tc, test_emulated, 0,
		(n_progs - EMU_SHARD + EMU_SHARDS - 1) / EMU_SHARDS);
	suite_add_tcase(s, tc);
	if (!EMU_LAST_SHARD)
		return test_run_suite(s);
	TCase *ts = tcase_create("sddmm");
	tcase_set_timeout(ts, 150);
	tcase_add_test(ts, test_sddmm_shape);
	tcase_add_test(ts, test_bench_files);
	tcase_add_test(ts, test_dynamic_shared_limit);
	suite_add_tcase(s, ts);
	if (stir_nvrtc_is_available()) {
		/* (NVRTC's version is part of the cache's keys) */
		TCase *tk = tcase_create("stirc");
		tcase_set_timeout(tk, 150);
		tcase_add_loop_test(tk, test_stirc, 0,
			(int)(sizeof(stirc_runs) / sizeof(stirc_runs[0])));
		suite_add_tcase(s, tk);
	}
	return test_run_suite(s);
}
