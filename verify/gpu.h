/* The GPU verifier's private declarations (docs/cuda.md, "Checking a
 * kernel for the GPU"), shared by its files and by the CUDA emitter,
 * which runs it first and prints what it accepted:
 *
 *   verify_gpu.c   the refusals that need no thread context, those of
 *                  cross-thread reductions, warp buffers, tensorized
 *                  nests and missing barriers in the context the walk
 *                  gives, and stir_kernel_verify_gpu; what the checks
 *                  and the emitter both ask of sizes and names
 *   verify_walk.c  the verifier's walk: the thread context of every
 *                  statement, the accesses, the checks that need both;
 *                  its entry points for the verifier, the barrier pass
 *                  and the pass hoist_warp_reads
 *   barriers.c     races and barriers: the analysis of the accesses, and
 *                  the pass stir_kernel_insert_barriers
 *   facts.c        what the walk and the emitter both ask of the IR: the
 *                  variables' thread dependences and bindings (gpu_facts,
 *                  built from the kernel), static facts about statements
 *
 * The walk has a state of its own (gpu_walk, below); it still reads the
 * launches' shapes through an emitter of its own that prints nothing
 * (cuda_emitter_open, cuda_launch_open in codegen/cuda.c) and follows
 * the emitter's statements through the helpers of codegen/ (reductions,
 * warp buffers, vector loops' scalar form, the accesses of tensorized
 * nests). */
#ifndef STIR_VERIFY_GPU_H
#define STIR_VERIFY_GPU_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stir/codegen.h>
#include "ir/nodes.h"

/* The six thread indices as bits (stir_thread values are 0..5). */
#define DIM_BIT(t) (1u << (unsigned)(t))
#define BLOCK_DIMS (DIM_BIT(STIR_BLOCK_X) | DIM_BIT(STIR_BLOCK_Y) | \
	DIM_BIT(STIR_BLOCK_Z))
#define THREAD_DIMS (DIM_BIT(STIR_THREAD_X) | DIM_BIT(STIR_THREAD_Y) | \
	DIM_BIT(STIR_THREAD_Z))
#define N_DIMS 6

/* The names of the thread indices, by stir_thread ("blockIdx.x", ...). */
extern const char *const cuda_dim_names[N_DIMS];

/* Most static shared memory a block may declare. */
#define MAX_STATIC_SHARED (48 * 1024)

/* Where an access runs, for one thread index: the loop bound to it, or one
 * of these markers. */
extern const char cuda_ctx_single[]; /* only index 0 (a guarded statement) */
extern const char cuda_ctx_all[];    /* every index, redundantly */

/* A load or store, remembered to decide where threads must synchronize. */
typedef struct access {
	const stir_buffer *buf;    /* borrowed */
	const stir_expr *idx;      /* the flat index; NULL: unknown (searches) */
	bool write;                /* a store (which may also read) */
	bool atomic;               /* an atomic add: commutes with the others */
	const void *ctx[N_DIMS];   /* per thread index (see above) */
	stir_loc loc;              /* for diagnostics */
} cg_access;

typedef struct acc_vec {
	int n, cap;
	cg_access *v;                 /* owned */
} acc_vec;

/* The accesses of a piece of code as seen from the code around it. */
typedef struct summary {
	acc_vec first;             /* before its first barrier (all of them
	                              when it has none) */
	acc_vec last;              /* after its last barrier */
	bool barrier;              /* it holds a barrier every thread reaches */
} summary;

/* A cross-thread reduction: a cross_thread block whose store becomes
 * "acc += value" in every thread of its threadIdx.x loop.  A reduction
 * into a register array (a local buffer of at most 32 elements) whose
 * element moves with loops inside the threadIdx.x loop (the lanes of a
 * register cache) keeps one accumulator per element of the array
 * ("acc[IDX] += value"), and a bit per element that says whether the
 * thread added to it. */
typedef struct red {
	const stir_stmt *block;    /* the cross_thread block */
	const stir_stmt *store;    /* its one store */
	int id;                    /* stir_redID */
	stir_dtype acc;            /* the accumulator's type */
	int64_t elems;             /* > 0: one accumulator per element of the
	                              local array of that many elements */
	struct red *next;
} red;

/* A value to store: an expression, or a generated variable. */
typedef struct sval {
	const stir_expr *x;        /* the expression, or NULL */
	const char *name;          /* else the variable */
	stir_dtype t;              /* its type */
} sval;

/* A warp-buffer read computed before a loop into the constant stir_sID. */
typedef struct cuda_memo {
	const stir_expr *x;        /* borrowed: the read */
	int id;
} cuda_memo;

/* What the code being emitted runs under. */
typedef struct ectx {
	const stir_stmt *bound[N_DIMS]; /* the loop bound to each index */
	unsigned single;           /* indices guarded to 0 */
	unsigned divergent;        /* thread indices control flow depends on */
	bool atomic;               /* inside an atomic block */
	struct red *red;           /* cross-thread reductions of the enclosing
	                              threadIdx.x loop, or NULL */
	const stir_var *fill;      /* in the fill loop of a warp buffer: the
	                              loop's variable, whose element this lane
	                              stores into stir_fN[...] (else NULL) */
	int fill_id;               /* that loop's counter, stir_fN */
	bool fill_tail;            /* inside a fill loop whose last round
	                              leaves some lanes out */
} ectx;


/* A place that needs a barrier: before statement "before" of the list
 * whose slots are "slots", or at its end when "before" is NULL.  The
 * slots, not the list, name it: the verifier's walk walks copies of some
 * statements (vector loops' scalar form), which share their lists' slots. */
typedef struct cuda_place {
	void *const *slots;        /* borrowed: the list's slot array */
	const stir_stmt *before;   /* borrowed, or NULL */
	stir_loc loc;              /* the barrier's: of the statement that
	                              needs it (of the loop at a body's end) */
} cuda_place;

typedef struct cuda_places {
	int n, cap;
	cuda_place *v;             /* owned */
} cuda_places;

/* A warp-buffer read that may be computed before a loop (cuda_hoist.c),
 * found by the verifier's walk for stir_kernel_hoist_warp_reads. */
typedef struct cuda_hoist_at {
	const stir_var *loop;      /* borrowed: the loop's variable (the
	                              walk's copies of a loop share it) */
	const stir_expr *x;        /* borrowed: the read */
} cuda_hoist_at;

typedef struct cuda_hoists {
	int n, cap;
	cuda_hoist_at *v;          /* owned */
} cuda_hoists;

/* What a walk of the verifier is for. */
typedef enum gpu_walk_mode {
	GPU_WALK_VERIFY,           /* report what the GPU cannot run
	                              (stir_kernel_verify_gpu) */
	GPU_WALK_PLACE,            /* record where barriers are missing
	                              (stir_kernel_insert_barriers) */
} gpu_walk_mode;

/* The verifier's walk of a kernel: its own state, apart from the
 * variables' facts (e->facts) and the launches' shapes it reads through
 * the emitter (e->walk points here while it runs; the emitter printing
 * has none). */
typedef struct gpu_walk {
	gpu_walk_mode mode;        /* what the walk is for */
	cuda_places *places;       /* GPU_WALK_PLACE: receives the places */
	cuda_hoists *hoists;       /* or NULL: receives the warp-buffer reads
	                              the walk computes before their loops */
	summary *sum;              /* receives accesses, or NULL */
	acc_vec local_writes;      /* local-buffer stores of the launch */
	/* warp-buffer reads held before their loops by the walk of the pass
	 * hoist_warp_reads (cuda_hoist.c) */
	int n_memo, cap_memo;
	cuda_memo *memo;           /* owned: those in scope, innermost last */
} gpu_walk;

/* The emitter (codegen/cuda_internal.h), through which the walk reads
 * the kernel's facts and reports. */
typedef struct emitter emitter;

/* ---- verify_gpu.c ---- */

/* ctx, k, x, v: the value of x when it holds only literals; false
 * otherwise. */
bool cuda_literal_value(stir_ctx *ctx, const stir_kernel *k,
	const stir_expr *x, int64_t *v);
/* x: whether x holds only literals and parameters (an extent a launch
 * can be sized by). */
bool cuda_expr_is_size(const stir_expr *x);
/* The word for a scope in diagnostics ("shared", ...). */
const char *cuda_scope_word(stir_scope s);
/* loc, buf, size: "FILE:LINE" (the file's base name) in buf. */
const char *cuda_loc_str(stir_loc loc, char *buf, size_t size);
/* k, launch, loc, fmt, ap: report an error of kernel k at loc, or, where
 * loc has no place in the source (what a schedule made), at the first
 * located statement of launch (NULL: none), else at the kernel; the
 * verifier's and the emitter's errors are all placed so. */
void cuda_vreport(const stir_kernel *k, const stir_stmt *launch,
	stir_loc loc, const char *fmt, va_list ap);
/* k: is k a stage III kernel (else an error at the kernel)?  0 or -1. */
int cuda_verify_stage(const stir_kernel *k);
/* k: the checks of stir_kernel_verify_gpu that need no thread context
 * (bindings, launches' shapes, arrays' sizes; see verify_gpu.c), which
 * the emitter assumes.  0, or -1 with located diagnostics. */
int cuda_verify_structure(const stir_kernel *k);
/* k: the checks of stir_kernel_verify_gpu run after its walk (its
 * refusals come first): a
 * register or shared array used by two launches, two buffers of one
 * array that the kernel writes.  0, or -1 with located diagnostics. */
int cuda_verify_sharing(const stir_kernel *k);

/* e, L, r, inner, ctx: check that reduction r can be computed across the
 * threads of loop L (bound to threadIdx.x) where ctx runs ("inner": the
 * variables defined inside L, by slot); reports the first refusal. */
void cuda_check_red(emitter *e, const stir_stmt *L, red *r,
	const bool *inner, const ectx *ctx);
/* e, ctx: the lanes of the loop bound to threadIdx.x where ctx runs, when
 * warp buffers can live there: a literal power of two up to 32 that is
 * the launch's threads in x; else 0 (cuda_warp.c). */
int64_t cuda_warp_lanes_here(const emitter *e, const ectx *ctx);
/* e, ctx, buf, loc, what, n: the lanes warp buffer buf is spread over
 * where ctx runs ("what" it does there, for diagnostics), after checking
 * that they can be and are the same as elsewhere in the launch (noted in
 * e->warp_lanes), and its elements in *n; 0 after an error. */
int64_t cuda_check_warp_lanes(emitter *e, const ectx *ctx,
	const stir_buffer *buf, stir_loc loc, const char *what, int64_t *n);
/* e, ctx, x: may warp-buffer load x be a shuffle where ctx runs (no
 * control flow or index that depends on threadIdx.x)?  false after an
 * error. */
bool cuda_check_warp_read(emitter *e, const ectx *ctx, const stir_expr *x);
/* e, ctx, buf, idx, op, v, s: may store s ("buf[idx] op= v") into warp
 * buffer buf be printed where ctx runs (in its fill loop, assigning the
 * fill's element a value the same in every lane)?  false after an
 * error. */
bool cuda_check_warp_store(emitter *e, const ectx *ctx,
	const stir_buffer *buf, const stir_expr *idx, stir_store_op op,
	const sval *v, const stir_stmt *s);
/* e, s, buf, size: has fill loop s of warp buffer buf (of "size"
 * elements) a literal extent of at most size?  false after an error. */
bool cuda_check_warp_fill(emitter *e, const stir_stmt *s,
	const stir_buffer *buf, int64_t size);

/* e, s, ctx: may tensorized loop s be printed where ctx runs: its nest
 * computes its intrinsic, no loop around it binds threadIdx.x, the launch
 * gives threadIdx.x exactly the 32 lanes of a warp, which do not diverge
 * there, and its accumulator buffer is no other intrinsic's?  false after
 * an error. */
bool cuda_check_mma(emitter *e, const stir_stmt *s, const ectx *ctx);
/* e, s: is pipelined loop s as the CUDA of codegen/cuda_pipeline.c
 * assumes (verify/pipeline.c): its copy nests, a barrier, their uses and
 * a barrier, in that order, the copied buffers held in slots "v % S * E +
 * .." and used only in the loop?  false after an error. */
bool cuda_check_pipeline(emitter *e, const stir_stmt *s);
/* e, s, ctx: may barrier statement s be printed where ctx runs (every
 * thread of the block reaches it)?  false after an error. */
bool cuda_check_barrier(emitter *e, const stir_stmt *s, const ectx *ctx);
/* e, ctx, loc, a, b: access a must be ordered before access b by a
 * barrier at loc, where ctx runs: may the walk record the place (every
 * thread of the block gets there, and the walk is placing barriers:
 * GPU_WALK_PLACE)?  false after an error. */
bool cuda_check_barrier_place(emitter *e, const ectx *ctx, stir_loc loc,
	const cg_access *a, const cg_access *b);

/* e, w, r: may register or warp-buffer read r see what write w stored
 * (r runs in the threads that ran w, in every thread index of the launch
 * that w does not run on all threads of)?  false after an error, at r. */
bool cuda_check_private_read(emitter *e, const cg_access *w,
	const cg_access *r);
/* e, loc, a, b: report that access a and the later access b conflict
 * across thread blocks of one launch (cuda_needs_barrier found them),
 * which no barrier orders. */
void cuda_check_block_dep(emitter *e, stir_loc loc, const cg_access *a,
	const cg_access *b);

/* ---- verify_walk.c: the verifier's walk ---- */

/* e, li: walk launch li of the kernel as the emitter prints it, printing
 * nothing: the thread context of every statement, the accesses and where
 * threads must synchronize (e->mode PLACE records the places, VERIFY
 * reports them), and every refusal that depends on the context. */
void cuda_walk_launch(emitter *e, int li);
/* e, ctx, x: record and check the loads and searches of expression x
 * where ctx runs (block variables marked in e->resolve as their
 * bindings; warp-buffer reads held in constants skipped). */
void cuda_walk_expr(emitter *e, const ectx *ctx, const stir_expr *x);
/* k, places, hoists: the walk of cuda_place_barriers, appending also to
 * hoists the warp-buffer reads that may be computed before their loops
 * (stir_kernel_hoist_warp_reads).  0 or -1. */
int cuda_walk_hoists(const stir_kernel *k, cuda_places *places,
	cuda_hoists *hoists);
/* k: stir_kernel_verify_gpu's checks (cuda_verify_structure, the
 * verifier's walk of every launch, cuda_verify_sharing), reported as
 * located diagnostics.  0 or -1. */
int cuda_verify_walk(const stir_kernel *k);
/* k, places: walk k as the emitter does, printing nothing, and append to
 * places where threads must synchronize but k has no barrier (the
 * refusals are reported as when emitting).  0 or -1. */
int cuda_place_barriers(const stir_kernel *k, cuda_places *places);

/* ---- facts.c: the variables' facts, static facts about statements ---- */

/* What the thread mapping of a kernel says of its variables, by slot:
 * built from the kernel (cuda_facts_init), read by the verifier and the
 * emitter (which holds one: emitter.facts). */
typedef struct gpu_facts {
	unsigned *dep;             /* owned: DIM_BITs a variable's value
	                              depends on */
	const stir_expr **binding; /* owned array: a block variable's binding
	                              (borrowed), else NULL */
} gpu_facts;

/* f, k: the facts of kernel k's variables in *f (release them).  0, or
 * -1 when memory runs out (nothing to release; not reported). */
int cuda_facts_init(gpu_facts *f, const stir_kernel *k);
void cuda_facts_release(gpu_facts *f);
/* v, user: the binding of block variable v in the gpu_facts "user", else
 * NULL (a stir_eq, stir_uses or stir_affine_opts hook: a block variable
 * is the expression it prints as). */
const stir_expr *cuda_binding_hook(const stir_var *v, const void *user);
/* f, a, b: structural equality of two expressions, block variables
 * replaced by their bindings. */
bool cuda_expr_equal(const gpu_facts *f, const stir_expr *a,
	const stir_expr *b);
/* f, x: DIM_BITs the value of x depends on. */
unsigned cuda_expr_deps(const gpu_facts *f, const stir_expr *x);
/* f, x, v: whether x (block variables resolved) uses variable v. */
bool cuda_expr_uses(const gpu_facts *f, const stir_expr *x,
	const stir_var *v);
/* f, x, inner: the first variable of x marked in inner, block variables
 * replaced by their bindings, or NULL. */
const stir_var *cuda_inner_var(const gpu_facts *f, const stir_expr *x,
	const bool *inner);
/* f, L, r, inner: the elements of the register array reduction r adds
 * into, one accumulator each (see red), when its element moves with the
 * variables defined inside threadIdx.x loop L ("inner", by slot); else
 * 0. */
int64_t cuda_red_elems(const gpu_facts *f, const stir_stmt *L,
	const red *r, const bool *inner);
/* s: the indices bound by loops in s (s included). */
unsigned cuda_bound_inside(const stir_stmt *s);
/* s: does s store into a global or shared buffer? */
bool cuda_stores_shared_data(const stir_stmt *s);
/* list, buf, except, where: does a statement of list (store "except"
 * aside, but not its value and index) access buf?  *where receives its
 * location. */
bool cuda_list_uses(const stir_ptr_vec *list, const stir_buffer *buf,
	const stir_stmt *except, stir_loc *where);
/* ctx, s: the red of store s in ctx's reductions, or NULL. */
red *cuda_red_of(const ectx *ctx, const stir_stmt *s);
/* r: free a list of reductions. */
void cuda_free_reds(red *r);
/* x: is x a power of two? */
bool cuda_is_pow2(int64_t x);
/* list: the warp buffer that a statement of list (through conditions and
 * blocks, not loops) stores into, or NULL. */
const stir_buffer *cuda_warp_fill_of(const stir_ptr_vec *list);
/* s, inner: mark (by slot) every variable s and its children define. */
void cuda_mark_defined(const stir_stmt *s, bool *inner);

/* ---- barriers.c: races and barriers ---- */

/* e, ctx, buf, idx, write, atomic, loc: note the index type; remember
 * the access in e->sum, or check a register read against the stores. */
void cuda_record(emitter *e, const ectx *ctx, const stir_buffer *buf,
	const stir_expr *idx, bool write, bool atomic, stir_loc loc);
/* s: free the vectors of a summary and empty it. */
void cuda_summary_release(summary *s);
/* s: accesses made since its last barrier (all when it has none). */
acc_vec *cuda_summary_pending(summary *s);
/* s: a barrier that every thread reaches follows what s holds. */
void cuda_summary_barrier(summary *s);
/* e, p, c: code c follows p in sequence (c runs exactly once). */
void cuda_summary_append(emitter *e, summary *p, const summary *c);
/* e, p, c: code c follows p but may not run at all, or only some of its
 * barriers may: every access of c stays pending. */
void cuda_summary_append_maybe(emitter *e, summary *p, const summary *c);
/* e, before, after, loc, wa, wb: does an access of "after" depend on one
 * of "before" across threads (the pair in *wa, *wb)?  A dependence
 * across thread blocks is reported (at loc) and answers false. */
bool cuda_needs_barrier(emitter *e, const acc_vec *before, const acc_vec *after,
	stir_loc loc, const cg_access **wa, const cg_access **wb);
/* e, ctx: does every thread of the block get here (may a barrier go
 * here)? */
bool cuda_block_uniform(const emitter *e, const ectx *ctx);
/* e, ctx, loc, a, b, sum, list, before: access a must be ordered before
 * access b by a barrier before statement "before" of list (at its end
 * when NULL): record the place (GPU_WALK_PLACE), or refuse. */
void cuda_need_barrier(emitter *e, const ectx *ctx, stir_loc loc,
	const cg_access *a, const cg_access *b, summary *sum,
	const stir_ptr_vec *list, const stir_stmt *before);
/* e, s, ctx, body: after the body of serial loop s: when its next
 * iteration would touch what other threads touched in this one, a barrier
 * ends the body. */
void cuda_loop_carried_barrier(emitter *e, const stir_stmt *s, const ectx *ctx,
	summary *body);

#endif
