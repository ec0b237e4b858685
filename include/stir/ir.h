/* stir: the intermediate representation.
 *
 * A module holds kernels; a kernel holds size parameters, axes, buffers and
 * a body of statements.  Every node belongs to its module; handles returned
 * by the functions below are borrowed from it.  Kernels, parameters, axes,
 * buffers and names live until the module is freed; statements,
 * expressions and other variables until the next pass or schedule
 * primitive on the module, which moves what the kernels still reach and
 * frees the rest (docs/ir.md, "Memory").  One set of node types serves
 * the three stages (see docs/ir.md); a kernel records its stage and the
 * verifier checks which nodes each stage may hold.
 *
 * Construction functions follow isl's convention: they return NULL when an
 * argument is NULL or memory runs out, so a chain of calls can be checked
 * once at the end.  They do not check the program: call stir_module_verify.
 */
#ifndef STIR_IR_H
#define STIR_IR_H

#include <stdbool.h>
#include <stdint.h>
#include <stir/ctx.h>
#include <stir/array.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stir_module stir_module;
typedef struct stir_kernel stir_kernel;
typedef struct stir_axis stir_axis;
typedef struct stir_buffer stir_buffer;
typedef struct stir_var stir_var;
typedef struct stir_expr stir_expr;
typedef struct stir_stmt stir_stmt;

typedef enum stir_stage {
	STIR_STAGE_1 = 1, /* coordinate space: axes and sparse iterations */
	STIR_STAGE_2 = 2, /* position space: loops and blocks */
	STIR_STAGE_3 = 3, /* loops over flat buffers */
} stir_stage;

typedef enum stir_axis_kind {
	STIR_DENSE_FIXED,
	STIR_DENSE_VARIABLE,
	STIR_SPARSE_FIXED,
	STIR_SPARSE_VARIABLE,
} stir_axis_kind;

typedef enum stir_buffer_kind {
	STIR_BUFFER_TENSOR, /* a kernel argument holding values */
	STIR_BUFFER_LOCAL,  /* allocated by the kernel */
	STIR_BUFFER_INDPTR, /* stage II/III: an axis's indptr array */
	STIR_BUFFER_INDICES, /* stage II/III: an axis's indices array */
	STIR_BUFFER_COO,    /* stage II/III: for every position of a fused
	                       group's last axis J, the position of its
	                       ancestor X ("J.pos_X", a COO array) */
} stir_buffer_kind;

/* Where a buffer lives on the GPU (stage III). */
typedef enum stir_scope {
	STIR_SCOPE_GLOBAL,
	STIR_SCOPE_SHARED,
	STIR_SCOPE_LOCAL,
	/* registers spread over the lanes of the threadIdx.x loop that uses
	 * the buffer (lane t holds elements t, t + L, ...), written by fill
	 * loops and read through warp shuffles (docs/cuda.md, "Warp
	 * buffers"); the interpreter treats it as local */
	STIR_SCOPE_WARP,
} stir_scope;

typedef enum stir_var_kind {
	STIR_VAR_PARAM, /* a size parameter of the kernel */
	STIR_VAR_ITER,  /* an iterator of a sparse iteration (a coordinate) */
	STIR_VAR_LET,   /* bound by a let statement */
	STIR_VAR_LOOP,  /* stage II/III: a loop variable */
	STIR_VAR_BLOCK, /* stage II/III: a block variable (a position) */
} stir_var_kind;

typedef enum stir_expr_kind {
	STIR_EXPR_INT,    /* integer or boolean literal */
	STIR_EXPR_FLOAT,  /* floating-point literal (may be inf) */
	STIR_EXPR_VAR,    /* parameter, iterator or let variable */
	STIR_EXPR_LOAD,   /* buffer element */
	STIR_EXPR_UNARY,
	STIR_EXPR_BINARY,
	STIR_EXPR_SELECT, /* c ? a : b */
	STIR_EXPR_CALL,   /* min max abs exp log sqrt tanh */
	STIR_EXPR_CAST,
	STIR_EXPR_SEARCH, /* stage II/III: lower_bound / upper_bound */
} stir_expr_kind;

/* Searches in a range buf[lo .. hi) (stage II/III): in a sorted range
 * lower_bound gives the first position whose value is >= x, upper_bound
 * the first whose value is > x; in any range find gives the first position
 * whose value is x; all give hi when there is none. */
typedef enum stir_search {
	STIR_LOWER_BOUND,
	STIR_UPPER_BOUND,
	STIR_FIND,
} stir_search;

typedef enum stir_unop {
	STIR_NEG,
	STIR_NOT,
} stir_unop;

typedef enum stir_binop {
	STIR_ADD, STIR_SUB, STIR_MUL, STIR_DIV, STIR_MOD,
	STIR_LT, STIR_LE, STIR_GT, STIR_GE, STIR_EQ, STIR_NE,
	STIR_AND, STIR_OR,
} stir_binop;

typedef enum stir_func {
	STIR_MIN, STIR_MAX, STIR_ABS, STIR_EXP, STIR_LOG, STIR_SQRT, STIR_TANH,
} stir_func;

typedef enum stir_stmt_kind {
	STIR_STMT_STORE, /* X[..] = e, +=, -=, *= */
	STIR_STMT_LET,   /* let v = e; binds v for the rest of the list */
	STIR_STMT_IF,
	STIR_STMT_ITER,  /* sparse iteration (stage I) */
	STIR_STMT_FOR,   /* stage II/III: for v in [0, extent) */
	STIR_STMT_BLOCK, /* stage II/III: a scheduling boundary */
	STIR_STMT_BARRIER, /* stage III: "barrier;", every thread of the
	                      block waits for the others (__syncthreads) */
} stir_stmt_kind;

/* How a loop runs (stage II/III). */
typedef enum stir_loop_kind {
	STIR_LOOP_SERIAL,
	STIR_LOOP_UNROLL,
	STIR_LOOP_VECTORIZE,
	STIR_LOOP_BIND,   /* bound to a GPU thread index, see stir_thread */
	STIR_LOOP_TENSORIZE, /* stage III: the nest it heads runs as one
	                        tensor-core intrinsic on a warp (docs/ir.md,
	                        "Tensorized loops"); the interpreter runs it
	                        as its loops */
	STIR_LOOP_PIPELINE, /* stage III: a software pipeline of "stages"
	                       steps (docs/ir.md, "Pipelined loops"): the
	                       copies that open its body are issued
	                       stages - 1 iterations ahead on the GPU; the
	                       interpreter runs it as a serial loop */
} stir_loop_kind;

typedef enum stir_thread {
	STIR_BLOCK_X, STIR_BLOCK_Y, STIR_BLOCK_Z,
	STIR_THREAD_X, STIR_THREAD_Y, STIR_THREAD_Z,
} stir_thread;

typedef enum stir_store_op {
	STIR_STORE_ASSIGN,
	STIR_STORE_ADD,
	STIR_STORE_SUB,
	STIR_STORE_MUL,
} stir_store_op;

/* One entry of a sparse iteration's axis list. */
typedef enum stir_iter_group_kind {
	STIR_GROUP_AXIS,   /* a single axis */
	STIR_GROUP_FUSE,   /* fuse(A, B, ...): a parent chain as one flat space */
	STIR_GROUP_ATTACH, /* attach(X, P): X iterated re-parented under P */
} stir_iter_group_kind;

typedef struct stir_iter_group {
	stir_iter_group_kind kind;
	int n_axes;              /* 1 unless kind is STIR_GROUP_FUSE */
	stir_axis **axes;        /* the member axes, borrowed */
	stir_axis *attach_parent; /* the new parent for STIR_GROUP_ATTACH */
	bool coo;                /* STIR_GROUP_FUSE: every member's position
	                            read from a stored array (the group's COO
	                            arrays, docs/schedules.md) instead of
	                            searched; stage I semantics unchanged */
} stir_iter_group;

/* ---- module ---- */

/* A new empty module whose diagnostics go to "ctx"; ctx must outlive it. */
STIR_EXPORT __stir_give stir_module *stir_module_alloc(__stir_keep stir_ctx *ctx);
STIR_EXPORT void stir_module_free(__stir_take stir_module *m);
STIR_EXPORT __stir_keep stir_ctx *stir_module_get_ctx(
	__stir_keep const stir_module *m);
STIR_EXPORT int stir_module_n_kernels(__stir_keep const stir_module *m);
STIR_EXPORT __stir_keep stir_kernel *stir_module_get_kernel(
	__stir_keep const stir_module *m, int i);
/* The kernel named "name", or NULL. */
STIR_EXPORT __stir_keep stir_kernel *stir_module_find_kernel(
	__stir_keep const stir_module *m, const char *name);
/* Check every kernel (see stir_kernel_verify).  0 or -1. */
STIR_EXPORT int stir_module_verify(__stir_keep stir_module *m);
/* Whether two modules hold the same program (names, structure, types,
 * literals; source locations are ignored). */
STIR_EXPORT bool stir_module_is_equal(__stir_keep const stir_module *a,
	__stir_keep const stir_module *b);

/* ---- kernel ---- */

/* Append a new stage I kernel named "name" to "m".  The kernel belongs to
 * m (freed with it), as every node does: hence _add, not _alloc. */
STIR_EXPORT __stir_keep stir_kernel *stir_module_add_kernel(
	__stir_keep stir_module *m, const char *name);
STIR_EXPORT const char *stir_kernel_get_name(__stir_keep const stir_kernel *k);
STIR_EXPORT stir_stage stir_kernel_get_stage(__stir_keep const stir_kernel *k);
STIR_EXPORT __stir_keep stir_module *stir_kernel_get_module(
	__stir_keep const stir_kernel *k);
/* Check the kernel against the rules of its stage; every violation becomes
 * an error diagnostic.  Returns 0, or -1 when anything is wrong. */
STIR_EXPORT int stir_kernel_verify(__stir_keep stir_kernel *k);
/* Check that stage III kernel k can be emitted as CUDA: every refusal of
 * the emitter (illegal bindings and mappings, races, missing barriers)
 * with its location, by a walk of its own that prints nothing
 * (verify/verify_walk.c); stir_cuda_plan_alloc (include/stir/codegen.h)
 * runs it first.  0, or -1 with diagnostics. */
STIR_EXPORT int stir_kernel_verify_gpu(__stir_keep const stir_kernel *k);
/* The tolerance at which the outputs of type t that kernel k computes
 * compare with those of another stage or backend (stir_array_compare_within):
 * that of t (stir_dtype_get_tolerance), or that of f16 where k tensorizes with
 * mma_m16n8k8_tf32, whose inputs keep the 10 mantissa bits of an f16
 * (docs/ir.md, "Tensorized loops"). */
STIR_EXPORT double stir_kernel_get_tolerance(__stir_keep const stir_kernel *k,
	stir_dtype t);

/* Size parameters (i32 or i64). */
STIR_EXPORT __stir_keep stir_var *stir_kernel_add_param(__stir_keep stir_kernel *k,
	const char *name, stir_dtype dtype);
STIR_EXPORT int stir_kernel_n_params(__stir_keep const stir_kernel *k);
STIR_EXPORT __stir_keep stir_var *stir_kernel_get_param(
	__stir_keep const stir_kernel *k, int i);

/* Axes.  "len", "nnz" and "nnz_cols" are integer expressions of literals and
 * parameters, built with the expression constructors below. */
STIR_EXPORT __stir_keep stir_axis *stir_kernel_add_dense_fixed(
	__stir_keep stir_kernel *k, const char *name, __stir_keep stir_expr *len);
STIR_EXPORT __stir_keep stir_axis *stir_kernel_add_dense_variable(
	__stir_keep stir_kernel *k, const char *name, __stir_keep stir_axis *parent,
	__stir_keep stir_expr *len, __stir_keep stir_expr *nnz);
STIR_EXPORT __stir_keep stir_axis *stir_kernel_add_sparse_fixed(
	__stir_keep stir_kernel *k, const char *name, __stir_keep stir_axis *parent,
	__stir_keep stir_expr *len, __stir_keep stir_expr *nnz_cols);
STIR_EXPORT __stir_keep stir_axis *stir_kernel_add_sparse_variable(
	__stir_keep stir_kernel *k, const char *name, __stir_keep stir_axis *parent,
	__stir_keep stir_expr *len, __stir_keep stir_expr *nnz);
/* Index type of the structure arrays (i32, the default, or i64). */
STIR_EXPORT void stir_axis_set_idtype(__stir_keep stir_axis *a, stir_dtype t);
/* Whether indices are strictly ascending within one parent position
 * (default true). */
STIR_EXPORT void stir_axis_set_sorted(__stir_keep stir_axis *a, bool sorted);
STIR_EXPORT int stir_kernel_n_axes(__stir_keep const stir_kernel *k);
STIR_EXPORT __stir_keep stir_axis *stir_kernel_get_axis(
	__stir_keep const stir_kernel *k, int i);
STIR_EXPORT __stir_keep stir_axis *stir_kernel_find_axis(
	__stir_keep const stir_kernel *k, const char *name);
STIR_EXPORT const char *stir_axis_get_name(__stir_keep const stir_axis *a);
STIR_EXPORT stir_axis_kind stir_axis_get_kind(__stir_keep const stir_axis *a);
STIR_EXPORT __stir_keep stir_axis *stir_axis_get_parent(
	__stir_keep const stir_axis *a);
STIR_EXPORT stir_dtype stir_axis_get_idtype(__stir_keep const stir_axis *a);
STIR_EXPORT bool stir_axis_is_sorted(__stir_keep const stir_axis *a);

/* Buffers: tensors (kernel arguments) and locals. */
STIR_EXPORT __stir_keep stir_buffer *stir_kernel_add_tensor(
	__stir_keep stir_kernel *k, const char *name, stir_dtype dtype,
	int n_axes, stir_axis *const *axes);
STIR_EXPORT __stir_keep stir_buffer *stir_kernel_add_local(
	__stir_keep stir_kernel *k, const char *name, stir_dtype dtype,
	int n_axes, stir_axis *const *axes);
/* Declare that the values of an integer tensor lie in [lo, hi). */
STIR_EXPORT void stir_buffer_set_domain(__stir_keep stir_buffer *b,
	__stir_keep stir_expr *lo, __stir_keep stir_expr *hi);
/* Declare that no two entries of an integer tensor with a value domain
 * are equal ("distinct", docs/language.md): a permutation into the domain,
 * checked when an array is bound; the schedule primitives take a write
 * through it, S[P[..]], as one-to-one. */
STIR_EXPORT void stir_buffer_set_distinct(__stir_keep stir_buffer *b,
	bool distinct);
STIR_EXPORT bool stir_buffer_get_distinct(__stir_keep const stir_buffer *b);
STIR_EXPORT int stir_kernel_n_buffers(__stir_keep const stir_kernel *k);
STIR_EXPORT __stir_keep stir_buffer *stir_kernel_get_buffer(
	__stir_keep const stir_kernel *k, int i);
STIR_EXPORT __stir_keep stir_buffer *stir_kernel_find_buffer(
	__stir_keep const stir_kernel *k, const char *name);
STIR_EXPORT const char *stir_buffer_get_name(__stir_keep const stir_buffer *b);
STIR_EXPORT stir_buffer_kind stir_buffer_get_kind(__stir_keep const stir_buffer *b);
STIR_EXPORT stir_dtype stir_buffer_get_dtype(__stir_keep const stir_buffer *b);
STIR_EXPORT int stir_buffer_n_axes(__stir_keep const stir_buffer *b);
STIR_EXPORT __stir_keep stir_axis *stir_buffer_get_axis(
	__stir_keep const stir_buffer *b, int i);
/* The name of the array the buffer binds to: its own name for a tensor of
 * stages I and II, its argument ("A", "J.indptr") for a flat buffer of
 * stages II and III; NULL for a local the kernel allocates. */
STIR_EXPORT const char *stir_buffer_get_array_name(__stir_keep const stir_buffer *b);
/* Whether every axis of the buffer is dense_fixed. */
STIR_EXPORT bool stir_buffer_is_dense(__stir_keep const stir_buffer *b);

STIR_EXPORT const char *stir_var_get_name(__stir_keep const stir_var *v);
STIR_EXPORT stir_var_kind stir_var_get_kind(__stir_keep const stir_var *v);
STIR_EXPORT stir_dtype stir_var_get_dtype(__stir_keep const stir_var *v);

/* ---- expressions (all borrowed from the kernel's module) ---- */

STIR_EXPORT __stir_keep stir_expr *stir_expr_int(__stir_keep stir_kernel *k,
	int64_t value);
STIR_EXPORT __stir_keep stir_expr *stir_expr_bool(__stir_keep stir_kernel *k,
	bool value);
/* A float literal; it takes the type of the other operand, or f32. */
STIR_EXPORT __stir_keep stir_expr *stir_expr_float(__stir_keep stir_kernel *k,
	double value);
STIR_EXPORT __stir_keep stir_expr *stir_expr_var(__stir_keep stir_kernel *k,
	__stir_keep stir_var *v);
/* b[idx[0], .., idx[n-1]]: coordinates in stage I. */
STIR_EXPORT __stir_keep stir_expr *stir_expr_load(__stir_keep stir_kernel *k,
	__stir_keep stir_buffer *b, int n, stir_expr *const *idx);
STIR_EXPORT __stir_keep stir_expr *stir_expr_unary(__stir_keep stir_kernel *k,
	stir_unop op, __stir_keep stir_expr *a);
STIR_EXPORT __stir_keep stir_expr *stir_expr_binary(__stir_keep stir_kernel *k,
	stir_binop op, __stir_keep stir_expr *a, __stir_keep stir_expr *b);
STIR_EXPORT __stir_keep stir_expr *stir_expr_select(__stir_keep stir_kernel *k,
	__stir_keep stir_expr *c, __stir_keep stir_expr *a, __stir_keep stir_expr *b);
/* min and max take two arguments; the others one. */
STIR_EXPORT __stir_keep stir_expr *stir_expr_call(__stir_keep stir_kernel *k,
	stir_func f, int n, stir_expr *const *args);
STIR_EXPORT __stir_keep stir_expr *stir_expr_cast(__stir_keep stir_kernel *k,
	stir_dtype dtype, __stir_keep stir_expr *a);
STIR_EXPORT stir_expr_kind stir_expr_get_kind(__stir_keep const stir_expr *e);
STIR_EXPORT stir_dtype stir_expr_get_dtype(__stir_keep const stir_expr *e);

/* ---- statements ---- */

/* Append a statement to the kernel's body (it runs after those before it). */
STIR_EXPORT int stir_kernel_append_stmt(__stir_keep stir_kernel *k,
	__stir_keep stir_stmt *s);
STIR_EXPORT __stir_keep stir_stmt *stir_stmt_store(__stir_keep stir_kernel *k,
	__stir_keep stir_buffer *b, int n, stir_expr *const *idx, stir_store_op op,
	__stir_keep stir_expr *value);
/* let name = value; the new variable is stir_stmt_let_get_var(s). */
STIR_EXPORT __stir_keep stir_stmt *stir_stmt_let(__stir_keep stir_kernel *k,
	const char *name, __stir_keep stir_expr *value);
STIR_EXPORT __stir_keep stir_var *stir_stmt_let_get_var(__stir_keep stir_stmt *s);
STIR_EXPORT __stir_keep stir_stmt *stir_stmt_if(__stir_keep stir_kernel *k,
	__stir_keep stir_expr *cond);
STIR_EXPORT int stir_stmt_if_append_then(__stir_keep stir_stmt *s,
	__stir_keep stir_stmt *child);
STIR_EXPORT int stir_stmt_if_append_else(__stir_keep stir_stmt *s,
	__stir_keep stir_stmt *child);
/* iter name (vars..) in [groups..] "kinds".  One iterator name and one 'S' or
 * 'R' letter per member axis (a fuse group has one per member).  The
 * iterators are stir_stmt_iter_get_var(s, i). */
STIR_EXPORT __stir_keep stir_stmt *stir_stmt_iter(__stir_keep stir_kernel *k,
	const char *name, int n_groups, const stir_iter_group *groups,
	int n_vars, const char *const *var_names, const char *kinds);
STIR_EXPORT int stir_stmt_iter_n_vars(__stir_keep const stir_stmt *s);
STIR_EXPORT __stir_keep stir_var *stir_stmt_iter_get_var(
	__stir_keep const stir_stmt *s, int i);
STIR_EXPORT int stir_stmt_iter_append_init(__stir_keep stir_stmt *s,
	__stir_keep stir_stmt *child);
STIR_EXPORT int stir_stmt_iter_append_body(__stir_keep stir_stmt *s,
	__stir_keep stir_stmt *child);
STIR_EXPORT stir_stmt_kind stir_stmt_get_kind(__stir_keep const stir_stmt *s);

#ifdef __cplusplus
}
#endif
#endif
