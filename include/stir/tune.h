/* stir: the tuner in one call (docs/recipes.md, "The tuner").
 *
 * stir_tune picks the schedule of a stage I kernel that a recipe covers
 * (stir_kernel_get_tune_recipe: the hybrid SpMM, the SDDMM fused or by rows) for
 * one matrix and one feature size, stir_tune_hetero that of an RGMS
 * kernel (rgms_agg, rgms_edge) for one relational graph and fin = fout:
 * the tuning record's entry when it
 * holds one for them, else the cost model's pick (model_only), else the
 * measured search on the GPU (the model's best candidates compiled at
 * once, timed as the benchmarks time them, the fastest kept).  What it
 * chose is stored in the record and returned as a schedule file's text,
 * which stir_schedule_read_from_mem reads and stir_schedule_prepare_for_gpu
 * applies to the same program (as `stirc run --schedule` does).
 * `stirc tune` and `stirc run --tune` are thin callers of it. */
#ifndef STIR_TUNE_H
#define STIR_TUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stir/recipes.h>
#include <stir/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The measured search's defaults: how many of the model's best
 * candidates (whose schedule files differ) it compiles and times (the
 * SpMM's STIR_TUNE_TOP_SPMM, the SDDMM's STIR_TUNE_TOP: stir_tune_get_top),
 * how many when it starts from a similar graph's record entry (that
 * entry's winner first), the seconds it may spend timing, and the timed
 * runs of the winner, timed again after the search's rounds. */
#define STIR_TUNE_TOP 16
#define STIR_TUNE_TOP_SPMM 24
#define STIR_TUNE_TOP_SIMILAR 4
#define STIR_TUNE_BUDGET_S 20.0
#define STIR_TUNE_FINAL_REPS 100
/* A candidate timed after the first is screened before: its fastest of
 * STIR_TUNE_SCREEN_REPS runs (after STIR_TUNE_SCREEN_WARMUPS warm-ups,
 * the L2 cache flushed before each) slower than STIR_TUNE_SCREEN_MARGIN
 * times the best median so far, it cannot be the winner and is not timed
 * further (docs/recipes.md, "The tuner"). */
#define STIR_TUNE_SCREEN_WARMUPS 2
#define STIR_TUNE_SCREEN_REPS 3
#define STIR_TUNE_SCREEN_MARGIN 1.10
/* The rounds: the search times its candidates in STIR_TUNE_ROUNDS
 * interleaved rounds (A B C A B C), each candidate not dropped once a
 * round (STIR_TUNE_ROUND_WARMUPS warm-ups, the median of
 * STIR_TUNE_ROUND_REPS runs), the first round in the model's order with
 * the screening; the one of least median over its rounds wins.  The GPU's
 * speed drifts by 1-5% within a second, alike for the kernels timed
 * together, as much as near ties differ, so a single sequential timing
 * carries the drift of its moment (docs/recipes.md, "The tuner").  The
 * finalists: those within STIR_TUNE_FINALIST_MARGIN times the least
 * median (the fastest first, at most STIR_TUNE_FINALISTS), reported. */
#define STIR_TUNE_ROUNDS 3
#define STIR_TUNE_ROUND_WARMUPS 3
#define STIR_TUNE_ROUND_REPS 10
#define STIR_TUNE_FINALISTS 4
#define STIR_TUNE_FINALIST_MARGIN 1.03

/* What stir_tune is asked; zero-initialized means the defaults (with
 * feat set: it has none). */
typedef struct stir_tune_options {
	int64_t feat;           /* the feature size (>= 1) */
	bool model_only;        /* the cost model's pick, no GPU */
	bool no_record;         /* neither read nor write the tuning record */
	bool tf32;              /* rgms_agg only: the tensor-core candidates
	                           too, which round X and W to tf32 (10-bit
	                           mantissa; keyed apart in the record,
	                           STIR_TUNE_RGMS_TF32); default f32 */
	double budget_s;        /* seconds of timing (<= 0: STIR_TUNE_BUDGET_S) */
	int top;                /* candidates to time at most (< 1:
	                           stir_tune_get_top) */
	int sms;                /* the GPU's SMs for the model (< 1: 132) */
	/* The kernel cache's and the record's directory (the record is its
	 * tune/); NULL: $STIR_CACHE_DIR, else ~/.cache/stir. */
	const char *cache_dir;
	/* The program's text, whose SHA-256 keys the record; NULL: the
	 * kernel as printed (stir_kernel_to_str).  `stirc` passes the file's
	 * text. */
	const char *program_text;
	/* With program_text, the name the program was read under
	 * (stir_module_read_from_file's path): the search then schedules its
	 * candidates on a thread per processor, each on the program read
	 * from that text in a context of its own (the same kernel, source
	 * locations included) -- when that text holds the kernel as given
	 * (printed alike; not, say, a compressed file's bytes); NULL: one
	 * after another on copies. */
	const char *program_file;
	/* The kernel's tensor the matrix binds to; NULL: "A" for the SpMM
	 * and RGMS, "S" for the SDDMM. */
	const char *matrix_name;
	/* The GPU of the measured search (borrowed); NULL: device 0, opened
	 * and closed by stir_tune.  Not used with model_only. */
	stir_device *device;
} stir_tune_options;

/* Where the chosen schedule came from. */
typedef enum stir_tune_source {
	STIR_TUNE_FROM_RECORD = 1,  /* the record's entry for the same key */
	STIR_TUNE_FROM_MODEL,       /* the cost model's pick */
	STIR_TUNE_FROM_SEARCH       /* measured: the fastest of the search */
} stir_tune_source;

/* What stir_tune chose; free its arrays with stir_tune_result_clear. */
typedef struct stir_tune_result {
	char *schedule;         /* the schedule file's text (heap, NUL ended) */
	size_t schedule_len;    /* its bytes */
	int cand;               /* the recipe's candidate (stir_tune_apply_candidate) */
	double cost;            /* the model's cost of it */
	double time_ms;         /* its measured time (the median of
	                           STIR_TUNE_FINAL_REPS), or -1 */
	stir_tune_source from;
	stir_tune_entry key;    /* the record's key (and, stored, the entry) */
	/* A similar graph's record entry (stir_tune_record_find's 2): the
	 * search started from its winner, or with model_only the model
	 * decided. */
	bool similar;
	stir_tune_entry similar_entry;
	/* The search: the candidates compiled (schedule files that differ),
	 * and those timed, in order, with their times (the median over the
	 * rounds of each round's median; for one its screening dropped, the
	 * median of the screening's runs); n_timed < n_compiled when the
	 * budget ran out in the first round. */
	int n_compiled;
	int n_timed;
	int *timed_cand;        /* heap, n_timed */
	double *timed_ms;       /* heap, n_timed */
	/* The search's seconds: scheduling the candidates, compiling them
	 * (NVRTC or the kernel cache; n_nvrtc by NVRTC), timing them and the
	 * winner. */
	double schedule_s, compile_s, time_s;
	int n_nvrtc;
	int n_dropped;          /* of the n_timed, those the screening dropped */
	/* The search's fastest in its first round (one sequential timing
	 * each), and the finalists (none unless at least 2): each one's
	 * median over the rounds. */
	int search_cand;
	int n_finalists;
	int finalist_cand[STIR_TUNE_FINALISTS];
	double finalist_ms[STIR_TUNE_FINALISTS];
} stir_tune_result;

/* The order in which stir_tune's measured search takes the candidates
 * of recipe r for matrix "a" at "feat" features on a GPU of n_sms SMs
 * (< 1: 132), into order[] (room for stir_spmm_hybrid_n_candidates(),
 * stir_sddmm_n_candidates(), stir_sddmm_vblock_n_candidates() as
 * stir_sddmm_rank, or stir_bsr_tc_n_candidates()), the model's costs
 * into costs[] when not NULL: the model's order
 * (stir_spmm_hybrid_model_rank, stir_sddmm_rank; for BSR the rule's,
 * stir_bsr_rank; RGMS's is stir_rgms_rank, through stir_tune_hetero) with
 * candidate "similar" (a similar graph's winner; < 0: none) first; for
 * the SpMM without one, the model's pick first, then the candidates most
 * often fastest (stir_spmm_hybrid_get_often_fastest, in its order), then
 * the rest of the model's order -- so that a search cut short by its
 * budget has timed the model's pick.  The count, or -1 when out of
 * memory. */
STIR_EXPORT int stir_tune_get_search_order(stir_tune_recipe r,
	__stir_keep const stir_csr *a, int64_t feat, int n_sms, int similar,
	int *order, double *costs);

/* How many candidates of stir_tune_get_search_order's order the measured
 * search for recipe r compiles and times by default (stir_tune_options.top
 * below 1): STIR_TUNE_TOP_SPMM for the SpMM (the model's pick, the 15
 * often-fastest candidates, the model's next 8: on the H100's exhaustive
 * searches of bench/results/, 22 graphs x 5 sizes, one within 3% of the
 * fastest in every case, 105 of 110 with a list chosen without the case's
 * graph; on the H200's 115 in every case; bench/RESULTS.md, "The tuner's
 * list of 15, 24 timed"), STIR_TUNE_TOP for the others (the SDDMM's row
 * candidates take milliseconds each to time). */
STIR_EXPORT int stir_tune_get_top(stir_tune_recipe r);

/* Tune stage I kernel "program" (not changed; a recipe must cover it) for
 * CSR matrix "a" (A of the SpMM, S of the SDDMM) with options "opt" into
 * *out (cleared first): the record's entry for the same program, recipe,
 * device, feature size and matrix signature when there is one (no GPU
 * work: the candidate applied and printed); else with opt->model_only
 * the cost model's pick; else the measured search on the GPU: the
 * model's best opt->top candidates whose schedule files differ (a
 * similar graph's winner first, then at most STIR_TUNE_TOP_SIMILAR), each
 * read back from its schedule file as `stirc run --schedule` applies it,
 * compiled at once (stir_gpu_kernel_compile_all, through the kernel
 * cache), then timed in the model's order on random dense inputs (seed
 * 1; stir_gpu_run_time, the L2 cache flushed before each run) in
 * interleaved rounds (STIR_TUNE_ROUND*) until opt->budget_s seconds from
 * the call have passed (the first is always timed; a round is begun only
 * within the budget); the least median over the rounds wins, and is
 * timed again in a fresh run with STIR_TUNE_FINAL_REPS runs.  Unless
 * opt->no_record, what was chosen (not a record hit) is stored.  0, or
 * -1 with diagnostics in ctx (the measured search without a GPU says
 * that model_only is needed); *out is then cleared. */
STIR_EXPORT int stir_tune(__stir_keep stir_ctx *ctx,
	__stir_keep const stir_kernel *program, __stir_keep const stir_csr *a,
	const stir_tune_options *opt, stir_tune_result *out);
/* stir_tune for stage I kernel "program" of an RGMS recipe (rgms_agg of
 * examples/rgms_agg.stir, rgms_edge of examples/rgms_edge.stir) on
 * relational graph h at fin = fout = opt->feat: its candidates in
 * stir_rgms_rank's order (with opt->tf32, rgms_agg's tensor-core ones
 * too), the model's pick the first of them; the record keyed by h's
 * signature (stir_hetero_get_sig).  A kernel of a matrix's recipe, or
 * of rgms_agg's given to stir_tune, is refused. */
STIR_EXPORT int stir_tune_hetero(__stir_keep stir_ctx *ctx,
	__stir_keep const stir_kernel *program, __stir_keep const stir_hetero *h,
	const stir_tune_options *opt, stir_tune_result *out);
/* Free r's arrays and zero it. */
STIR_EXPORT void stir_tune_result_clear(stir_tune_result *r);
/* Fill *key, the tuning record's key of kernel k with matrix a at
 * opt->feat features (program: the SHA-256 of opt->program_text, or of
 * the kernel as printed): on GPU dev (its name, spaces as underscores),
 * or when NULL the cost model's on opt->sms SMs (< 1: 132).  The key
 * stir_tune looks up and stores under.  0, or -1 when out of memory. */
STIR_EXPORT int stir_kernel_get_tune_key(__stir_keep const stir_kernel *k,
	__stir_keep const stir_csr *a, const stir_tune_options *opt,
	__stir_keep const stir_device *dev, stir_tune_entry *key);
/* The same for an RGMS kernel on relational graph h (stir_tune_hetero's
 * key; rgms_agg's recipe STIR_TUNE_RGMS_TF32 with opt->tf32). */
STIR_EXPORT int stir_kernel_get_tune_key_hetero(
	__stir_keep const stir_kernel *k, __stir_keep const stir_hetero *h,
	const stir_tune_options *opt, __stir_keep const stir_device *dev,
	stir_tune_entry *key);

#ifdef __cplusplus
}
#endif
#endif
