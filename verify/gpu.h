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
 *                  the places where the pass insert_barriers
 *                  (passes/insert_barriers.c) puts barriers
 *   facts.c        what the walk and the emitter both ask of the IR: the
 *                  variables' thread dependences and bindings (gpu_facts,
 *                  built from the kernel), static facts about statements
 *
 *   launch.c       what the walk and the emitter both compute of a launch:
 *                  its shape (gpu_launch), the context inside a loop bound
 *                  to a thread index, a vectorized loop's scalar form, the
 *                  fragment buffers of tensorized nests
 *   mma.c          the accesses of a tensorized nest, from the intrinsic's
 *                  description (ir/intrinsics.c) as the emitter prints it
 *   hoist.c        the warp-buffer reads the walk computes before their
 *                  loops, which the pass hoist_warp_reads (passes/hoist.c)
 *                  moves there
 *   nest_guard.c   the if a loop nest may test once before it (its own
 *                  header, nest_guard.h, shared with passes/lift_guards.c)
 *
 * The walk has a state of its own (gpu_walk, below): the kernel's facts,
 * the launches' shapes, the accesses.  verify/ depends on ir/ only;
 * passes/ (insert_barriers, hoist_warp_reads) and codegen/ include this
 * header, and codegen/ prints what the verifier accepted. */
#ifndef STIR_VERIFY_GPU_H
#define STIR_VERIFY_GPU_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include "ir/intrinsics.h"
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

/* Most static shared memory a block may declare; above it a launch's
 * shared arrays are dynamic shared memory (codegen/cuda.c), of which an
 * sm_90 thread block may have at most MAX_DYNAMIC_SHARED bytes (the
 * runtime checks the device's own limit before a launch). */
#define MAX_STATIC_SHARED (48 * 1024)
#define MAX_DYNAMIC_SHARED (227 * 1024)

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

/* A warp-buffer read that may be computed before a loop (hoist.c),
 * found by the verifier's walk for stir_hoist_warp_reads. */
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
	                              (stir_insert_barriers) */
} gpu_walk_mode;

/* What the thread mapping of a kernel says of its variables, by slot:
 * built from the kernel (cuda_facts_init, facts.c), read by the verifier
 * and the emitter (which holds one: emitter.facts). */
typedef struct gpu_facts {
	unsigned *dep;             /* owned: DIM_BITs a variable's value
	                              depends on */
	const stir_expr **binding; /* owned array: a block variable's binding
	                              (borrowed), else NULL */
} gpu_facts;

/* One launch: a top-level statement of the kernel, and its shape
 * (gpu_launch_scan, launch.c), which the walk and the emitter share
 * (the emitter's cuda_launch holds one). */
typedef struct gpu_launch {
	const stir_stmt *stmt;     /* borrowed: the statement it runs */
	/* For each thread index, the distinct extents (borrowed from the
	 * kernel) of the loops bound to it; the launch size is the largest,
	 * and at least 1.  A horizontal launch lists, for blockIdx.x, the
	 * extent of each nest in order, and its grid is their sum. */
	int n_ext[N_DIMS];
	const stir_expr **ext[N_DIMS]; /* owned arrays of borrowed extents */
	bool horizontal;           /* a horizontal block's nests, end to end */
	unsigned used;             /* DIM_BITs of the indices bound somewhere */
	int64_t lit_block[3];      /* the block size when every threadIdx
	                              extent is a literal (1 when unused),
	                              else -1 */
} gpu_launch;

/* A fragment buffer split over the warps of loops bound to threadIdx.y,
 * z or both (docs/cuda.md, "Tensor cores"): its tile index names each such
 * loop's variable as a digit (docs/schedules.md, "Accumulators split over
 * warps"), and each warp keeps only the tiles of its own values of them.
 * Index 0 is threadIdx.y, 1 threadIdx.z. */
typedef struct gpu_frag_split {
	int64_t warps[2];          /* the loop's extent; 0: not split by it */
	int64_t coef[2];           /* its variable's coefficient in the tile
	                              index (elements) */
} gpu_frag_split;

/* sp: the warps a fragment buffer is split over (1 when not split). */
int64_t gpu_frag_split_warps(const gpu_frag_split *sp);

/* The verifier's walk of a kernel: its own state (the emitter has its
 * own, and prints what the walk accepted). */
typedef struct gpu_walk {
	gpu_walk_mode mode;        /* what the walk is for */
	const stir_kernel *k;      /* the kernel walked */
	stir_ctx *ctx;             /* receives diagnostics */
	gpu_facts facts;           /* the kernel's variables' facts */
	bool failed;               /* an error was reported */
	int n_launches;
	gpu_launch *launches;      /* owned: each launch's shape */
	const gpu_launch *launch;  /* the launch being walked, or NULL */
	int64_t *warp_lanes;       /* owned, per buffer: the lanes a warp
	                              buffer is spread over in this launch
	                              (0: not used yet) */
	const stir_intrinsic **frag; /* owned, per buffer: the intrinsic
	                              whose accumulator fragment it is in
	                              this launch (gpu_frag_scan), else NULL */
	gpu_frag_split *frag_split; /* owned, per buffer (gpu_frag_scan) */
	bool in_mma;               /* walking a tensorized nest */
	const bool *resolve;       /* per slot: a block variable stands for
	                              its binding (cross-thread targets) */
	int n_red, n_tmp, n_hoist; /* counters, as the emitter's */
	cuda_places *places;       /* GPU_WALK_PLACE: receives the places */
	cuda_hoists *hoists;       /* or NULL: receives the warp-buffer reads
	                              the walk computes before their loops */
	summary *sum;              /* receives accesses, or NULL */
	stir_loc place;            /* the nearest place in the source around
	                              the statement walked (the first located
	                              statement of the innermost statement or
	                              launch around it that has one): where an
	                              access of a node a schedule made, which
	                              has no location, is cited */
	acc_vec local_writes;      /* local-buffer stores of the launch */
	/* warp-buffer reads held before their loops by the walk of the pass
	 * hoist_warp_reads (hoist.c) */
	int n_memo, cap_memo;
	cuda_memo *memo;           /* owned: those in scope, innermost last */
} gpu_walk;

/* ---- verify_gpu.c ---- */

/* ctx, k, x, v: the value of x when it holds only literals; false
 * otherwise. */
bool cuda_literal_value(stir_ctx *ctx, const stir_kernel *k,
	const stir_expr *x, int64_t *v);
/* x: whether x holds only literals and parameters (an extent a launch
 * can be sized by: a size expression, stir_size_offender). */
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
/* walk, loc, fmt: report an error of the walk (placed as cuda_vreport
 * places it, in the launch being walked) and mark the walk failed. */
void gpu_error(gpu_walk *walk, stir_loc loc, const char *fmt, ...)
	STIR_PRINTF(3, 4);
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

/* walk, L, r, inner, ctx: check that reduction r can be computed across the
 * threads of loop L (bound to threadIdx.x) where ctx runs ("inner": the
 * variables defined inside L, by slot); reports the first refusal. */
void cuda_check_red(gpu_walk *walk, const stir_stmt *L, red *r,
	const bool *inner, const ectx *ctx);
/* walk, ctx, buf, loc, what, n: the lanes warp buffer buf is spread over
 * where ctx runs ("what" it does there, for diagnostics), after checking
 * that they can be and are the same as elsewhere in the launch (noted in
 * walk->warp_lanes), and its elements in *n; 0 after an error. */
int64_t cuda_check_warp_lanes(gpu_walk *walk, const ectx *ctx,
	const stir_buffer *buf, stir_loc loc, const char *what, int64_t *n);
/* walk, ctx, x: may warp-buffer load x be a shuffle where ctx runs (no
 * control flow or index that depends on threadIdx.x)?  false after an
 * error. */
bool cuda_check_warp_read(gpu_walk *walk, const ectx *ctx, const stir_expr *x);
/* walk, ctx, buf, idx, op, v, s: may store s ("buf[idx] op= v") into warp
 * buffer buf be printed where ctx runs (in its fill loop, assigning the
 * fill's element a value the same in every lane)?  false after an
 * error. */
bool cuda_check_warp_store(gpu_walk *walk, const ectx *ctx,
	const stir_buffer *buf, const stir_expr *idx, stir_store_op op,
	const sval *v, const stir_stmt *s);
/* walk, s, buf, size: has fill loop s of warp buffer buf (of "size"
 * elements) a literal extent of at most size?  false after an error. */
bool cuda_check_warp_fill(gpu_walk *walk, const stir_stmt *s,
	const stir_buffer *buf, int64_t size);

/* walk, s, ctx: may tensorized loop s be printed where ctx runs: its nest
 * computes its intrinsic, no loop around it binds threadIdx.x, the launch
 * gives threadIdx.x exactly the 32 lanes of a warp, which do not diverge
 * there, and its accumulator buffer is no other intrinsic's?  false after
 * an error. */
bool cuda_check_mma(gpu_walk *walk, const stir_stmt *s, const ectx *ctx);
/* walk, s: is pipelined loop s as the CUDA of codegen/cuda_pipeline.c
 * assumes (verify/pipeline.c): its copy nests, a barrier, their uses and
 * a barrier, in that order, the copied buffers held in slots "v % S * E +
 * .." and used only in the loop?  false after an error. */
bool cuda_check_pipeline(gpu_walk *walk, const stir_stmt *s);
/* walk, s, ctx: may barrier statement s be printed where ctx runs (every
 * thread of the block reaches it)?  false after an error. */
bool cuda_check_barrier(gpu_walk *walk, const stir_stmt *s, const ectx *ctx);
/* walk, ctx, loc, a, b: access a must be ordered before access b by a
 * barrier at loc, where ctx runs: may the walk record the place (every
 * thread of the block gets there, and the walk is placing barriers:
 * GPU_WALK_PLACE)?  false after an error. */
bool cuda_check_barrier_place(gpu_walk *walk, const ectx *ctx, stir_loc loc,
	const cg_access *a, const cg_access *b);

/* walk, w, r: may register or warp-buffer read r see what write w stored
 * (r runs in the threads that ran w, in every thread index of the launch
 * that w does not run on all threads of)?  false after an error, at r. */
bool cuda_check_private_read(gpu_walk *walk, const cg_access *w,
	const cg_access *r);
/* walk, loc, a, b: report that access a and the later access b conflict
 * across thread blocks of one launch (cuda_needs_barrier found them),
 * which no barrier orders. */
void cuda_check_block_dep(gpu_walk *walk, stir_loc loc, const cg_access *a,
	const cg_access *b);

/* ---- verify_walk.c: the verifier's walk ---- */

/* walk, li: walk launch li of the kernel as the emitter prints it, printing
 * nothing: the thread context of every statement, the accesses and where
 * threads must synchronize (walk->mode PLACE records the places, VERIFY
 * reports them), and every refusal that depends on the context. */
void cuda_walk_launch(gpu_walk *walk, int li);
/* walk, ctx, x: record and check the loads and searches of expression x
 * where ctx runs (block variables marked in walk->resolve as their
 * bindings; warp-buffer reads held in constants skipped). */
void cuda_walk_expr(gpu_walk *walk, const ectx *ctx, const stir_expr *x);
/* walk, x, v: does x, as the emitter prints it, name variable v (block
 * variables not resolved; a warp-buffer read the walk holds in a
 * constant names nothing; walk NULL: the emitter's, which holds none)? */
bool gpu_names_var(const gpu_walk *walk, const stir_expr *x,
	const stir_var *v);
/* walk, list, v: does a statement of list name variable v (as
 * gpu_names_var)? */
bool gpu_list_names_var(const gpu_walk *walk, const stir_ptr_vec *list,
	const stir_var *v);
/* k, places, hoists: the walk of cuda_place_barriers, appending also to
 * hoists the warp-buffer reads that may be computed before their loops
 * (stir_hoist_warp_reads).  0 or -1. */
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

/* What a statement becomes on the GPU: the one classification that the
 * emitter's dispatch (cuda_emit_stmt, codegen/cuda_stmt.c) and the
 * verifier's walk (walk_stmt, verify_walk.c) both switch over, so that
 * the walk mirrors the emitter construct by construct (docs/cuda.md,
 * "Checking a kernel for the GPU"). */
typedef enum gpu_form {
	GPU_FORM_STORE,         /* a store (cuda_reduce.c) */
	GPU_FORM_LET,           /* a let, hoisted (passes/hoist.c) or not */
	GPU_FORM_IF,
	GPU_FORM_BLOCK,         /* a scope holding its variables */
	GPU_FORM_BOUND_LOOP,    /* a loop bound to a thread index */
	GPU_FORM_VECTOR_LOOP,   /* a vectorized loop (its scalar form) */
	GPU_FORM_MMA,           /* a tensorized nest: one intrinsic */
	GPU_FORM_PIPELINE,      /* a software-pipelined loop */
	GPU_FORM_WARP_FILL,     /* a serial loop storing into a warp buffer
	                           (cuda_warp_fill_of its body) */
	GPU_FORM_SERIAL_LOOP,   /* any other loop: serial or unrolled */
	GPU_FORM_BARRIER,       /* __syncthreads() */
	GPU_FORM_REFUSED,       /* a sparse iteration (cuda_verify_structure
	                           refuses it) */
} gpu_form;
/* s: what s becomes on the GPU. */
gpu_form gpu_form_of(const stir_stmt *s);
/* list, i: the last statement of the group that list[i] opens: the
 * hoisted lets (passes/hoist.c) go with the statement after them, so that
 * a group is a run of them and that statement, or one statement. */
int gpu_group_end(const stir_ptr_vec *list, int i);
/* atomic, buf, op: whether a store "buf[..] op= .." in a block that is
 * atomic or not ("atomic") is an atomic add on the GPU: an update (+=,
 * -=) of memory other threads see (not a local or warp buffer).  The
 * emitter prints it so, the walk records it so and the structural checks
 * refuse one of type i8. */
bool gpu_store_is_atomic(bool atomic, const stir_buffer *buf,
	stir_store_op op);
/* s, unbound: the indices along which statement s, run where the indices
 * "unbound" are neither bound nor guarded (gpu_unbound), is guarded to
 * index 0: all of them when s stores to memory other threads see and no
 * loop inside s binds one of them (the guard then goes further in); else
 * none. */
unsigned gpu_guard_dims(const stir_stmt *s, unsigned unbound);
/* s, inner: mark (by slot) every variable s and its children define. */
void cuda_mark_defined(const stir_stmt *s, bool *inner);

/* ---- launch.c: launches, thread-bound loops, scalar forms ---- */

/* The extent a tensorized loop gives threadIdx.x: the lanes of a warp. */
extern const stir_expr cuda_mma_lanes;
/* L, f: the shape of launch L (L->stmt set, the rest zero) from its
 * statement (f: the variables' facts, to compare extents); release it
 * with gpu_launch_release.  0, or -1 when memory runs out (not
 * reported). */
int gpu_launch_scan(gpu_launch *L, const gpu_facts *f);
void gpu_launch_release(gpu_launch *L);
/* L, ctx: the indices used by launch L that nothing binds or guards
 * where ctx runs: code runs along them redundantly. */
unsigned gpu_unbound(const gpu_launch *L, const ectx *ctx);
/* f, L, d, x: does launch L bind index d to one extent only, and is it
 * x? */
bool gpu_only_extent(const gpu_facts *f, const gpu_launch *L, int d,
	const stir_expr *x);
/* f, L, ctx: the lanes of the loop bound to threadIdx.x where ctx runs,
 * when warp buffers can live there: a literal power of two up to 32 that
 * is launch L's threads in x; else 0. */
int64_t gpu_warp_lanes_here(const gpu_facts *f, const gpu_launch *L,
	const ectx *ctx);
/* t: the accumulator type of a reduction into type t. */
stir_dtype cuda_red_acc_type(stir_dtype t);
/* k, f, L, n_red, s, ctx, c, reds, inner: enter loop s of kernel k,
 * bound to a thread index, in launch L where ctx runs (the emitter and
 * the verifier's walk alike): the context of its body in *c, the
 * cross-thread reductions of a threadIdx.x loop in *reds (each with its
 * elements, numbered from *n_red on) and the variables defined inside it
 * in *inner (free them: cuda_free_reds, free).  Whether the threads past
 * its extent must skip the body (a guard): 1 or 0; -1 when the index is
 * bound already (cuda_verify_structure reported it) or memory ran out
 * (reported); nothing to free then. */
int gpu_bound_loop_enter(const stir_kernel *k, const gpu_facts *f,
	const gpu_launch *L, int *n_red, const stir_stmt *s, const ectx *ctx,
	ectx *c, red **reds, bool **inner);
/* What gpu_scalar_form hands the form to: form, user. */
typedef void (*gpu_form_fn)(const stir_stmt *form, void *user);
/* k, s, fn, user: the scalar form of vectorized loop s of kernel k
 * (unrolled), with the split guard that lift_guards would lift out of it
 * as an unrolled loop tested before it (stir_nest_guard): a copy of the
 * nest from s to the loop whose body is the guard, that body the
 * guard's, inside a copy of the guard; fn gets the statement that is
 * that form.  0, or -1 when memory runs out (not reported; fn not
 * called). */
int gpu_scalar_form(const stir_kernel *k, const stir_stmt *s,
	gpu_form_fn fn, void *user);
/* s, m: the match of tensorized loop s against its intrinsic's
 * description (stir_tensorize_match) in *m; false when it has none
 * (cuda_check_mma refuses it). */
bool gpu_mma_match(const stir_stmt *s, stir_mma_match *m);
/* s, frag, split: note in frag (by buffer index) the intrinsic of the
 * first tensorized nest in s that accumulates in each fragment buffer,
 * and in split whether a nest's tile index of it names the variable of
 * the loop bound to threadIdx.y or z around the nest. */
void gpu_frag_scan(const stir_stmt *s, const stir_intrinsic **frag,
	gpu_frag_split *split);
/* m, ctx, sp: the thread index (STIR_THREAD_Y or Z) whose warps the
 * accumulator of nest m, split as sp says, does not pick where ctx runs
 * (no loop bound to it around the nest, or its variable's coefficient in
 * the tile index not the one the split noted); STIR_THREAD_X when it
 * picks them all. */
stir_thread gpu_frag_split_miss(const stir_mma_match *m, const ectx *ctx,
	const gpu_frag_split *sp);

/* ---- mma.c: the accesses of tensorized nests ---- */

/* m, printed: the indices the emitter prints at the top of matched nest
 * m (C's or a fragment's, A's and B's; the bindings of the block
 * variables they name are declared first) into printed[4]; returns how
 * many. */
int gpu_mma_top_indices(const stir_mma_match *m, const stir_expr **printed);
/* k, m: whether nest m of kernel k (an mma under a row guard) reads its
 * A whole: A is a shared buffer of literal size, and its index is affine
 * in loops of literal extents with nonnegative coefficients, at most the
 * buffer's last element where each is at its last value (a cache of the
 * tile, cache_read, which holds its rows whatever the guard).  The
 * emitter then loads the rows the guard stops as they are instead of as
 * 0 (no test a row; their accumulator rows are restored all the same,
 * and the guard keeps them out of C). */
bool gpu_mma_a_whole(const stir_kernel *k, const stir_mma_match *m);
/* walk, s, ctx: record the accesses of tensorized loop s (its nest matches
 * its intrinsic: cuda_check_mma) where ctx runs, in the order the
 * emitter makes them (codegen/cuda_mma.c). */
void gpu_walk_mma(gpu_walk *walk, const stir_stmt *s, const ectx *ctx);

/* ---- hoist.c: warp-buffer reads computed before their loops ---- */

/* walk, s, ctx: in the walk of the pass hoist_warp_reads, before loop s:
 * hold each read of a warp buffer in s that may be computed there (see
 * hoist.c), recorded and checked where ctx runs and noted in walk->hoists;
 * the walk skips them inside until gpu_unhoist(walk, the value returned). */
int gpu_hoist(gpu_walk *walk, const stir_stmt *s, const ectx *ctx);
void gpu_unhoist(gpu_walk *walk, int mark);
/* walk, x: whether warp-buffer read x is held so. */
bool gpu_is_hoisted(const gpu_walk *walk, const stir_expr *x);

/* ---- barriers.c: races and barriers ---- */

/* walk, ctx, buf, idx, write, atomic, loc: an access the walk meets:
 * refuse one of a fragment buffer outside a tensorized nest; remember it
 * in walk->sum, or check a register read against the stores. */
void gpu_record(gpu_walk *walk, const ectx *ctx, const stir_buffer *buf,
	const stir_expr *idx, bool write, bool atomic, stir_loc loc);
/* s: free the vectors of a summary and empty it. */
void cuda_summary_release(summary *s);
/* s: accesses made since its last barrier (all when it has none). */
acc_vec *cuda_summary_pending(summary *s);
/* s: a barrier that every thread reaches follows what s holds. */
void cuda_summary_barrier(summary *s);
/* walk, p, c: code c follows p in sequence (c runs exactly once). */
void cuda_summary_append(gpu_walk *walk, summary *p, const summary *c);
/* walk, p, c: code c follows p but may not run at all, or only some of its
 * barriers may: every access of c stays pending. */
void cuda_summary_append_maybe(gpu_walk *walk, summary *p, const summary *c);
/* walk, before, after, loc, wa, wb: does an access of "after" depend on one
 * of "before" across threads (the pair in *wa, *wb)?  A dependence
 * across thread blocks is reported (at loc) and answers false. */
bool cuda_needs_barrier(gpu_walk *walk, const acc_vec *before, const acc_vec *after,
	stir_loc loc, const cg_access **wa, const cg_access **wb);
/* walk, ctx: does every thread of the block get here (may a barrier go
 * here)? */
bool cuda_block_uniform(const gpu_walk *walk, const ectx *ctx);
/* walk, ctx, loc, a, b, sum, list, before: access a must be ordered before
 * access b by a barrier before statement "before" of list (at its end
 * when NULL): record the place (GPU_WALK_PLACE), or refuse. */
void cuda_need_barrier(gpu_walk *walk, const ectx *ctx, stir_loc loc,
	const cg_access *a, const cg_access *b, summary *sum,
	const stir_ptr_vec *list, const stir_stmt *before);
/* walk, s, ctx, body: after the body of serial loop s: when its next
 * iteration would touch what other threads touched in this one, a barrier
 * ends the body. */
void cuda_loop_carried_barrier(gpu_walk *walk, const stir_stmt *s, const ectx *ctx,
	summary *body);

#endif
