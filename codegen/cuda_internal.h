/* The CUDA emitter's internal state, shared by its files:
 *
 *   cuda.c        launches, statements, thread mapping
 *   cuda_expr.c   types, literals, conversions and expressions
 *   cuda_vector.c vectorized loops
 *   plan.c        the public launch plan (include/stir/codegen.h)
 *
 * The GPU verifier, its walk, the race analysis and what the walk and the
 * emitter both compute of a launch are verify/ (their declarations:
 * verify/gpu.h, included here); the emitter runs the verifier first and
 * prints what it accepted.  verify/ does not depend on codegen/.
 *
 * docs/cuda.md describes the mapping this code implements. */
#ifndef STIR_CODEGEN_CUDA_INTERNAL_H
#define STIR_CODEGEN_CUDA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stir/codegen.h>
#include "codegen/printer.h"
#include "verify/gpu.h"
#include "ir/intrinsics.h"
#include "ir/nodes.h"

/* One argument of a launch, in the order the __global__ function takes
 * them: the kernel's parameters, then the arrays the launch uses. */
typedef struct cuda_arg {
	char *name;                /* owned: the name in the CUDA source */
	stir_arg_type type;        /* I32 or I64 for sizes, PTR for arrays */
	const stir_var *param;     /* the size parameter, or NULL */
	const stir_buffer *buf;    /* the buffer of an array, or NULL */
	bool written;              /* the launch stores into the array */
} cuda_arg;

/* One launch: a top-level statement of the kernel. */
typedef struct cuda_launch {
	gpu_launch shape;          /* its statement and shape (verify/gpu.h,
	                              gpu_launch_scan) */
	char *name;                /* owned: KERNEL_kN (escaped) */
	int n_args;
	cuda_arg *args;            /* owned, n_args entries */
	unsigned dynamic_shared;   /* bytes of dynamic shared memory its
	                              arrays take (over MAX_STATIC_SHARED), or
	                              0: they are declared statically */
} cuda_launch;

struct stir_cuda_plan {
	const stir_kernel *k;      /* borrowed: must outlive the plan */
	char *source;              /* owned: the CUDA C */
	int n_launches;
	cuda_launch *launches;     /* owned */
	/* Per buffer (by index): the largest element count its narrowest
	 * index type can address (INT64_MAX for 64-bit indices only), and
	 * whether some launch writes it. */
	int64_t *max_elems;        /* owned */
	bool *written;             /* owned */
	/* > 0: every launch's __launch_bounds__ asks for this many thread
	 * blocks per multiprocessor (stir_compile_options) */
	int min_blocks_per_sm;
	/* the launches overlap (stir_kernel_set_overlap_launches): each
	 * after the first waits for the one before itself */
	bool overlap;
	unsigned flags;            /* the STIR_CUDA_* it was emitted with */
};

/* stir_cuda_plan_alloc whose launches ask for "min_blocks" thread blocks
 * per multiprocessor when it is > 0 (stir_compile_options). */
stir_cuda_plan *cuda_plan_alloc_bounded(const stir_kernel *k, unsigned flags,
	int min_blocks);

/* ---- emitter state -------------------------------------------------- */

struct vec_ctx;

typedef struct emitter emitter;

struct emitter {
	/* first, so that an emitter passed where its facts are expected (a
	 * hook's user data, code written before they moved out) reads them */
	gpu_facts facts;           /* kernel-wide facts, by variable slot
	                              (verify/gpu.h) */
	const stir_kernel *k;      /* the kernel */
	stir_ctx *ctx;             /* receives diagnostics */
	unsigned flags;            /* STIR_CUDA_* */
	bool failed;               /* an error was reported */
	stir_cuda_plan *plan;      /* being built */
	cg_printer *out;           /* where code goes now */
	/* helpers the source needs */
	bool need_fp16, need_bf16;
	unsigned search_used[3];   /* per stir_search: bits of element dtypes */
	/* the launch being emitted */
	cuda_launch *launch;
	bool *buf_used, *buf_written; /* per buffer, in this launch */
	int n_red, n_vec, n_tmp;   /* counters of generated names */
	int64_t *warp_lanes;       /* per warp buffer: the lanes it is spread
	                              over in this launch (0: not used yet) */
	bool need_lanes;           /* the source needs stir_lanes() */
	unsigned need_mma;         /* the intrinsics the source needs, by
	                              index in ir/intrinsics.c's table */
	const stir_intrinsic **frag; /* per buffer: the intrinsic whose
	                              accumulator fragment it is in this
	                              launch (cuda_mma_scan), else NULL */
	gpu_frag_split *frag_split; /* per buffer: split over warps in this
	                              launch (gpu_frag_scan) */
	bool in_mma;               /* printing a tensorized nest */
	const stir_stmt *mma_a_loaded; /* the product nest whose A tile is in
	                              stir_fa_loop, loaded before the
	                              unrolled loop around it */
	const stir_stmt *mma_steps; /* the product nest whose steps are
	                              printed in two passes (cuda_mma_steps) */
	const stir_var *mma_steps_var; /* the loop's variable */
	int mma_phase;             /* 1: its fragments' loads into
	                              stir_fa_s[v], stir_fb_s[v]; 2: its mma
	                              on them; 3: only the hoisted operand's
	                              loads (cuda_mma_invariant_steps); 4 to
	                              6: those of mma_outer */
	const stir_stmt *mma_hoist; /* the product nest whose steps' operand
	                              mma_hoist_op is in stir_f?_h[v], loaded
	                              before the unrolled loop around the
	                              steps (cuda_mma_invariant_steps) */
	char mma_hoist_op;         /* 'a' or 'b' */
	const stir_stmt *mma_outer; /* the product nest of a warp's tiles
	                              printed as an outer product
	                              (cuda_mma_outer): its fragments' loads
	                              into stir_fa_r[u], stir_fb_r[v] (phase
	                              4 and 5), then its mma on them (6) */
	const stir_var *mma_outer_a; /* the loop variable A's tile uses
	                              (NULL: A in stir_fa_loop,
	                              cuda_mma_invariant_a_pairs) */
	const stir_var *mma_outer_b; /* the one B's tile uses */
	bool mma_outer_pairs;      /* B's fragments loaded two at a time
	                              (cuda_mma_outer_pairs) */
	bool need_pipe;            /* the source needs the functions of
	                              pipelined loops (cuda_pipeline.c) */
	bool pipe_issue;           /* printing the copies a pipelined loop
	                              issues ahead: no wait after them */
	unsigned need_ldsm;        /* the intrinsics whose ldmatrix loads the
	                              source needs, by index as need_mma */
	int *align;                /* per buffer: the bytes a shared buffer is
	                              aligned to in this launch, or 0: 16 when
	                              ldmatrix reads it or cp.async writes
	                              it, an intrinsic's align when its API
	                              loads from it (cuda_mma_scan) */
	int *swz;                  /* per buffer: 0, or swizzled with
	                              stir_swzs's shift swz - 1
	                              (cuda_mma_scan) */
	/* expression printing overrides */
	const bool *resolve;       /* per slot: print the block variable as its
	                              binding (cross-thread targets) */
	const stir_var *lane_var;  /* print this variable as lane_val */
	int64_t lane_val;
	const stir_var *warp_var[2]; /* print these as 0: the warp digits of
	                              a split fragment's index (put_frag) */
	struct vec_ctx *vec;       /* loads read from vectors (vector paths) */
	int n_hoist;               /* counter of the names of the hoisted lets
	                              (passes/hoist.c), stir_sN */
	int *hoist_id;             /* per slot: 1 + N for the variable of a
	                              hoisted let printed as stir_sN, else 0 */
};


/* ---- cuda.c ---- */

/* e, loc, fmt: report an error and mark the emission failed. */
void cuda_error(emitter *e, stir_loc loc, const char *fmt, ...)
	STIR_PRINTF(3, 4);
/* e: report that memory ran out. */
void cuda_oom(emitter *e);
/* e, ctx: the indices used by the launch that nothing binds or guards
 * here: code runs along them redundantly (gpu_unbound). */
unsigned cuda_unbound(const emitter *e, const ectx *ctx);
/* e, buf, idx: an access of buf at flat index idx printed: note the
 * narrowest index type of buf (the plan's max_elems).  The verifier's
 * walk made the access's checks (gpu_record). */
void cuda_record(emitter *e, const stir_buffer *buf, const stir_expr *idx);


/* ---- cuda_stmt.c ---- */


/* e, dims: print "threadIdx.x == 0 && ..." for the indices dims. */
void cuda_put_index_zero(emitter *e, unsigned dims);
/* e, s, ctx: let v = value as a constant. */
void cuda_emit_let(emitter *e, const stir_stmt *s, const ectx *ctx);

/* ---- cuda_reduce.c ---- */


/* e, ctx, v, to, prec: v converted to type "to" (v's type is "to", a
 * narrower integer, or for a variable the compute type of "to"). */
void cuda_put_val(emitter *e, const ectx *ctx, const sval *v,
	stir_dtype to, int prec);
/* e, s, ctx, c, reds, inner: enter loop s, bound to a thread index, where
 * ctx runs (gpu_bound_loop_enter, as the verifier's walk does): the
 * context of its body in *c, the cross-thread reductions of a
 * threadIdx.x loop in *reds (each with its elements) and the variables
 * defined inside it in *inner (free them: cuda_free_reds, free).  Whether
 * the threads past its extent must skip the body (a guard): 1 or 0; -1
 * after an error (nothing to free). */
int cuda_bound_loop_enter(emitter *e, const stir_stmt *s, const ectx *ctx,
	ectx *c, red **reds, bool **inner);
/* e, s, ctx: a loop bound to a thread index: the index is the loop
 * variable; threads past the extent skip the body. */
void cuda_emit_bound_loop(emitter *e, const stir_stmt *s, const ectx *ctx);


/* Build the plan and the source of p->k (the verifier first).  0 or
 * -1. */
int cuda_emit(stir_cuda_plan *p, unsigned flags);
/* e, p, flags: an emitter of p->k (launches named, variable facts
 * computed); release it with cuda_emitter_close.  0, or -1 when memory
 * ran out. */
int cuda_emitter_open(emitter *e, stir_cuda_plan *p, unsigned flags);
void cuda_emitter_close(emitter *e);
/* e, li: make launch li the current one: its shape, and the state of a
 * launch reset.  false after an error. */
bool cuda_launch_open(emitter *e, int li);

/* ---- cuda_expr.c ---- */

/* The C type of a stir type ("float", "__half", ...). */
const char *cuda_ctype(stir_dtype t);
/* The name of n in the CUDA source: n, or an escaped form when n is a C++
 * or CUDA word or could clash with the names stir generates (see
 * docs/cuda.md).  A string to free, or NULL. */
char *cuda_escape(const char *n);
/* e, n: print the escaped name n. */
void cuda_put_name(emitter *e, const char *n);
/* e, v: open a line declaring v, "const TYPE NAME" (the caller prints
 * the rest: " = ...;\n"). */
void cuda_put_const(emitter *e, const stir_var *v);

/* C precedence levels (higher binds tighter). */
enum {
	P_TOP = 0, P_COND = 3, P_OR = 4, P_AND = 5, P_EQ = 9, P_REL = 10,
	P_ADD = 12, P_MUL = 13, P_UNARY = 14, P_POSTFIX = 16,
};
/* e, ctx, x, prec: print x where precedence prec is required. */
void cuda_expr(emitter *e, const ectx *ctx, const stir_expr *x, int prec);
/* e, ctx, x, to, prec: print x converted to type "to" with the
 * interpreter's conversion (stir_value_convert). */
void cuda_conv(emitter *e, const ectx *ctx, const stir_expr *x,
	stir_dtype to, int prec);
/* e, ctx, x, prec: print x as a float when it is f16 or bf16 (the type
 * 16-bit arithmetic is done in), as it is otherwise. */
void cuda_as_compute(emitter *e, const ectx *ctx, const stir_expr *x,
	int prec);
/* The type arithmetic of type t is computed in: float for f16 and bf16. */
stir_dtype cuda_compute_type(stir_dtype t);
/* e, t: open the call that rounds a float to t when t is f16/bf16
 * ("__float2half_rn("), returning whether a ")" must close it. */
bool cuda_round_open(emitter *e, stir_dtype t);
/* e, t, v: a literal of type t with value v (integers exactly). */
void cuda_int_literal(emitter *e, stir_dtype t, int64_t v);
void cuda_float_literal(emitter *e, stir_dtype t, double v);


/* ---- warp buffers (cuda_warp.c) ---- */

/* e, ctx, buf, idx, op, v, s: a store into warp buffer buf, which only
 * its fill loop makes: this lane's element "idx", the fill's variable. */
void cuda_put_warp_store(emitter *e, const ectx *ctx,
	const stir_buffer *buf, const stir_expr *idx, stir_store_op op,
	const sval *v, const stir_stmt *s);
/* e, s, ctx, buf: fill loop s of warp buffer buf: its iterations spread
 * over the lanes, each lane storing its own elements. */
void cuda_emit_warp_fill(emitter *e, const stir_stmt *s, const ectx *ctx,
	const stir_buffer *buf);

/* e, ctx, x: print load x of a warp buffer: a shuffle from the lane that
 * holds the element. */
void cuda_warp_load(emitter *e, const ectx *ctx, const stir_expr *x);
/* e, ctx: the lanes of the loop bound to threadIdx.x where ctx runs, when
 * warp buffers can live there (gpu_warp_lanes_here); else 0. */
int64_t cuda_warp_lanes_here(const emitter *e, const ectx *ctx);

/* ---- cuda_vector.c ---- */

/* e, s, ctx: emit a vectorized loop (vector path with a run-time alignment
 * check, scalar fallback). */
void cuda_emit_vector_loop(emitter *e, const stir_stmt *s, const ectx *ctx);
/* What cuda_scalar_form hands a statement to: e, s, ctx. */
typedef void (*cuda_stmt_fn)(emitter *e, const stir_stmt *s, const ectx *ctx);
/* e, s, ctx, fn: the scalar form of vectorized loop s (gpu_scalar_form,
 * as the verifier's walk sees it); fn gets the statement that is that
 * form. */
void cuda_scalar_form(emitter *e, const stir_stmt *s, const ectx *ctx,
	cuda_stmt_fn fn);

/* ---- cuda_mma.c, cuda_mma_shapes.c (the shapes of product loops),
 * mma_prelude.c: tensorized loops ---- */

/* e, s, ctx: a tensorized loop (tensorize(INTRINSIC)): its nest as the
 * intrinsic's device functions on the lanes of threadIdx.x, which no loop
 * around it may bind and which the launch must give 32 lanes. */
void cuda_emit_mma(emitter *e, const stir_stmt *s, const ectx *ctx);
/* s, guard: an unrolled loop whose body is one tensorized product nest
 * (or "if (COND) nest", COND free of the loop's variable, the nest into
 * fragments: *guard is that if) that loads A's tile whole (no gather, no
 * row guard), at an index that does not change with the loop's
 * variable: that nest, else NULL.  The loop then loads A's fragment
 * once, before it (cuda_mma_load_invariant_a, under COND), and each
 * product reuses it: a warp's T tiles of C share one A tile. */
const stir_stmt *cuda_mma_invariant_a(const stir_stmt *s,
	const stir_stmt **guard);
/* s: an unrolled loop of a literal extent from 2 to 16 whose body is one
 * tensorized product nest into a fragment (no row guard, A's tile not
 * loaded before the loop), with an operand gathered (rows picked by a
 * load): that nest, else NULL.  The loop then prints as two (cuda_stmt.c):
 * every step's fragments loaded first (stir_fa_s[v], stir_fb_s[v]), then
 * the chain of mma on them, so that the steps' gathered loads are all in
 * flight before the first mma waits on its own. */
const stir_stmt *cuda_mma_steps(const stir_stmt *s);
/* s, guard, steps, op: an unrolled loop of a literal extent from 2 to 16
 * whose body is one unrolled loop of steps (cuda_mma_steps), or "if
 * (COND) steps" (*guard is that if; COND may use s's variable), where
 * the steps' nest loads operand *op ('a' or 'b') whole (no gather, no
 * scale) at an index that does not change with s's variable, into a
 * buffer the nest does not write: that nest (*steps the steps' loop),
 * else NULL.  The operand's fragments of all steps are then loaded once,
 * before s (stir_f?_h[step], where any iteration's COND holds), and each
 * iteration's steps load only the other operand: a warp's T tiles of a
 * window share the window's fragments. */
const stir_stmt *cuda_mma_invariant_steps(const stir_stmt *s,
	const stir_stmt **guard, const stir_stmt **steps, char *op);
/* s, a_loop, b_loop: an unrolled loop of a literal extent from 2 to 16
 * whose body is one such loop, whose body is one tensorized product nest
 * into a fragment (no row guard, no gather, no scale), A's tile moving
 * with one of the two loops' variables and not the other, B's with the
 * other and not the first: that nest (*a_loop the loop A's tile moves
 * with, *b_loop B's), else NULL.  The loops then print as an outer
 * product (cuda_stmt.c): A's fragments of a_loop's iterations and B's
 * of b_loop's loaded first (stir_fa_r, stir_fb_r), then the mma of
 * every pair: a warp's tile of U x V fragments loads U + V tiles, not
 * 2 U V, each B fragment serving U products. */
const stir_stmt *cuda_mma_outer(const stir_stmt *s, const stir_stmt **a_loop,
	const stir_stmt **b_loop);
/* m, b_loop: whether the outer product of nest m (cuda_mma_outer) may
 * load B's fragments two at a time, one ldmatrix.x4 for the tiles of
 * b_loop's iterations v and v + 1: an even count of them, B by ldmatrix
 * and not transposed, its tile moving N columns (the next tile) a step
 * of b_loop. */
bool cuda_mma_outer_pairs(const stir_mma_match *m, const stir_stmt *b_loop);
/* s, nest: whether unrolled loop s, whose body is product nest "nest"
 * with A's tile loaded before it (cuda_mma_invariant_a, no guard), may
 * print as the B half of an outer product: B's fragments loaded two at
 * a time (cuda_mma_outer_pairs), then the mma on stir_fa_loop and each,
 * the nest's accumulator a fragment (the conditions of cuda_mma_outer
 * otherwise). */
bool cuda_mma_invariant_a_pairs(const stir_stmt *s, const stir_stmt *nest);
/* e, nest, guard, ctx: print "PRE_a stir_fa_loop;" and its load, A's
 * tile of product nest, under guard's condition where guard is not NULL
 * (as cuda_mma_invariant_a gave them); ctx is the loop's. */
void cuda_mma_load_invariant_a(emitter *e, const stir_stmt *nest,
	const stir_stmt *guard, const ectx *ctx);
/* e, s: mark the fragment buffers of the tensorized nests in launch
 * statement s (e->frag), the alignment of the shared buffers they read
 * or copy into (e->align), and those the emitter swizzles (e->swz). */
void cuda_mma_scan(emitter *e, const stir_stmt *s);
/* m, op: whether operand op (A or B) of the matched nest m loads with
 * ldmatrix: 16-bit elements in a shared buffer, rows 16-byte aligned. */
bool cuda_mma_use_ldsm(const stir_mma_match *m, const stir_mma_operand *op);
/* The CUDA every intrinsic needs first, and that of intrinsic "in" (NULL
 * for an unknown one). */
const char *cuda_mma_prelude_common(void);
const char *cuda_mma_prelude(const stir_intrinsic *in);
/* The ldmatrix loads' common text, and intrinsic in's (NULL when its
 * operands are not 16-bit): put after the intrinsics' own text. */
const char *cuda_mma_prelude_ldsm_common(void);
const char *cuda_mma_prelude_ldsm(const stir_intrinsic *in);
/* The functions of pipelined loops (after cp_async_16's text). */
const char *cuda_mma_prelude_pipeline(void);
/* e, x: when x is a load a vector path holds in a vector, print the
 * lane's component and return true. */
bool cuda_vector_load(emitter *e, const stir_expr *x);

/* ---- statements and stores (cuda_stmt.c, cuda_reduce.c), shared with
 * cuda_vector.c ---- */

/* e, list, ctx: emit a statement list, each statement guarded where it
 * would run redundantly. */
void cuda_emit_list(emitter *e, const stir_ptr_vec *list, const ectx *ctx);
/* e, s, ctx: emit one statement of a list at the current depth. */
void cuda_emit_stmt(emitter *e, const stir_stmt *s, const ectx *ctx);
/* e, v, bound, step: print "for (T v = 0; v < BOUND; ++v)" (step 1) or
 * "..; v += STEP)" at the current depth, without what follows the
 * parenthesis (cuda_stmt.c). */
void cuda_put_for_head(emitter *e, const stir_var *v, const char *bound,
	int step);
/* e, s, ctx: a pipelined loop (cuda_pipeline.c): its copies issued
 * stages - 1 iterations ahead. */
void cuda_emit_pipeline(emitter *e, const stir_stmt *s, const ectx *ctx);
/* e, s: the "// FILE:LINE" comment of a store, when asked for. */
void cuda_put_loc_comment(emitter *e, const stir_stmt *s);
/* e, s, ctx: print store statement s at the current depth, as one line
 * (in vector paths, for the lane being printed). */
void cuda_emit_store(emitter *e, const stir_stmt *s, const ectx *ctx);

#endif
