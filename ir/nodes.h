/* The IR's node structures, shared by the library's own modules (lang,
 * passes, schedule, codegen).  Users see only the opaque types of
 * include/stir/ir.h.  Every node lives in its module (see struct
 * stir_module for which storage). */
#ifndef STIR_IR_NODES_H
#define STIR_IR_NODES_H

#include <stir/ir.h>
#include <stir/schedule.h>
#include "ir/arena.h"
#include "ir/diag.h"

/* The deepest nesting of blocks ("{ .. }", a kernel's body included) in a
 * kernel's text: STIR_MAX_BLOCK_DEPTH at stage I, where a program is
 * written by hand, and STIR_MAX_LOWERED_BLOCK_DEPTH at stages II and III,
 * since lowering adds levels (an iteration becomes its loops and blocks: a
 * chain of 200 sparse axes nests some 400 deep).  The reader refuses text
 * nested deeper (lang/ast.h explains the bound: the passes recurse over
 * nested statements) and the verifier refuses a kernel whose text would
 * be, so that every kernel that verifies prints as text that reads back. */
#define STIR_MAX_BLOCK_DEPTH 256
#define STIR_MAX_LOWERED_BLOCK_DEPTH 1024

/* Memory of a module (docs/ir.md, "Memory").  Statements, expressions,
 * non-parameter variables and every array live in "arena", which
 * stir_module_collect replaces by a fresh one holding only what the
 * kernels still reach (after each pass and schedule primitive).  What a
 * caller keeps a handle to across those stays put: kernels (heap, one
 * each), parameters, axes and buffers ("decls"), and names (interned in
 * "names", each text stored once). */
struct stir_module {
	stir_ctx *ctx;         /* borrowed: receives diagnostics */
	stir_arena arena;      /* owns the collected nodes of the module */
	size_t collected;      /* arena's bytes after the last collection */
	stir_arena decls;      /* owns the parameter, axis and buffer structs */
	stir_arena names;      /* owns the interned names */
	const char **name_set; /* heap hash set of the strings in names */
	size_t name_cap;       /* slots of name_set: 0 or a power of two */
	size_t n_names;        /* strings in name_set */
	stir_kernel **all;     /* heap: every kernel allocated, owned */
	int n_all, cap_all;
	stir_ptr_vec kernels;  /* stir_kernel *, in order */
};

struct stir_kernel {
	stir_module *module;   /* the owning module */
	const char *name;      /* arena string */
	stir_loc loc;          /* of the kernel's name */
	stir_stage stage;      /* which stage's nodes the body holds */
	stir_ptr_vec params;   /* stir_var *, kind STIR_VAR_PARAM, in order */
	stir_ptr_vec axes;     /* stir_axis *, in declaration order */
	stir_ptr_vec buffers;  /* stir_buffer *, in declaration order */
	stir_ptr_vec body;     /* stir_stmt *, run in order */
	int n_vars;            /* variables created so far: the next slot */
	int n_made, cap_made;  /* what the last primitive made (ir/made.c) */
	struct stir_made_entry *made; /* heap */
	bool log_on;           /* record the primitives' calls (ir/made.c) */
	int n_log, cap_log;    /* the calls recorded: "S|STEP", S the section */
	char **log;            /* heap, each string heap */
	int min_blocks_per_sm; /* the launch bound its CUDA asks for: 0, or
	                          1 to 32 (stir_kernel_set_min_blocks_per_sm) */
	bool overlap_launches; /* each launch after the first may start while
	                          the one before runs, waiting for it itself
	                          (stir_kernel_set_overlap_launches) */
};

struct stir_axis {
	const char *name;      /* arena string */
	stir_loc loc;          /* of the declaration */
	stir_axis_kind kind;
	stir_axis *parent;     /* NULL for dense_fixed */
	stir_expr *len;        /* LEN: coordinates lie in [0, len) */
	stir_expr *nnz;        /* NNZ (variable kinds), NNZ_COLS (sparse_fixed),
	                          NULL (dense_fixed) */
	stir_dtype idtype;     /* type of indptr/indices: i32 or i64 */
	bool sorted;           /* indices ascending within a parent position */
	int index;             /* position in the kernel's axis list */
	stir_buffer *indptr_buf;  /* stage II: the materialized indptr, or NULL */
	stir_buffer *indices_buf; /* stage II: the materialized indices, or NULL */
};

struct stir_buffer {
	const char *name;      /* arena string */
	stir_loc loc;          /* of the declaration */
	stir_buffer_kind kind;
	stir_dtype dtype;      /* element type */
	int n_axes;
	stir_axis **axes;      /* arena array of n_axes borrowed axes */
	stir_expr *domain_lo;  /* declared value domain [lo, hi), or NULL */
	stir_expr *domain_hi;
	bool distinct;         /* no two entries equal (declared "distinct";
	                          needs the domain): a permutation's index */
	int index;             /* position in the kernel's buffer list */
	/* Flat buffers (n_axes == 0: every buffer of stage III, the
	 * auxiliary buffers of stage II): */
	stir_expr *extent;     /* number of elements, or NULL for sparse ones */
	const char *arg;       /* the array it binds to ("A", "J.indptr"), arena
	                          string; NULL for buffers the kernel allocates */
	stir_axis *aux_axis;   /* STIR_BUFFER_INDPTR/INDICES: the axis (stage II;
	                          NULL in stage III, where axes are gone);
	                          STIR_BUFFER_COO: the fused group's last axis */
	stir_axis *coo_axis;   /* STIR_BUFFER_COO: the ancestor whose positions
	                          it holds (stage II; NULL in stage III) */
	stir_scope scope;      /* memory scope (stage III) */
};

struct stir_var {
	const char *name;      /* arena string */
	stir_loc loc;          /* where it is bound */
	stir_var_kind kind;
	stir_dtype dtype;
	int slot;              /* unique within the kernel: 0 .. n_vars-1 */
	stir_axis *axis;       /* STIR_VAR_ITER: the axis iterated; else NULL */
	/* Set on iterators while lower_sparse_iter runs (passes/loops.c),
	 * each an expression valid inside the iterator's innermost block: */
	stir_expr *pos;        /* the relative position (docs/ir.md) */
	stir_expr *gpos;       /* the global position */
	stir_expr *coord;      /* the coordinate */
	stir_var *parent_var;  /* the iterator whose position this one's range
	                          is taken under (NULL for a root axis) */
};

struct stir_expr {
	stir_expr_kind kind;
	stir_dtype dtype;      /* type of the value */
	stir_loc loc;          /* where the expression starts */
	bool flexible;         /* built from literals alone: takes the type its
	                          context asks for (LANGUAGE.md section 1) */
	union {
		int64_t i;         /* STIR_EXPR_INT (0/1 when dtype is bool) */
		double f;          /* STIR_EXPR_FLOAT */
		stir_var *var;     /* STIR_EXPR_VAR, borrowed */
		struct {
			stir_buffer *buf;  /* borrowed */
			int n;
			stir_expr **idx;   /* arena array of n indices */
		} load;
		struct {
			stir_unop op;
			stir_expr *a;
		} unary;
		struct {
			stir_binop op;
			stir_expr *a, *b;
		} binary;
		struct {
			stir_expr *c, *a, *b;
		} select;
		struct {
			stir_func f;
			int n;
			stir_expr **args;  /* arena array of n arguments */
		} call;
		struct {
			stir_expr *a;      /* converted to the node's dtype */
		} cast;
		struct {
			stir_search op;
			stir_buffer *buf;  /* a flat buffer, borrowed */
			stir_expr *lo, *hi, *x;
		} search;
	} u;
};

/* Annotations of a block (docs/schedules.md): they keep what the block
 * computes and tell the CUDA emitter how to map it. */
enum {
	STIR_BLOCK_ATOMIC = 1,       /* its += and -= stores are atomic */
	STIR_BLOCK_CROSS_THREAD = 2, /* its reduction over a threadIdx.x loop is
	                                a warp-shuffle reduction */
	STIR_BLOCK_HORIZONTAL = 4,   /* its nests are one launch */
	STIR_BLOCK_FLAGS = 7,        /* all of them */
};

/* The text form's name of block flag "flag" (one bit), or NULL. */
const char *stir_block_flag_name(unsigned flag);

/* A read or write region of a block: for each dimension of the buffer
 * (its axes in stage II, its one flat dimension otherwise) the range
 * [lo, hi), or the whole dimension when lo is NULL.  hi == NULL with lo set
 * means the single point lo. */
typedef struct stir_region {
	stir_buffer *buf;      /* borrowed */
	int n;                 /* number of dimensions */
	stir_expr **lo;        /* arena array of n (entries may be NULL) */
	stir_expr **hi;        /* arena array of n (entries may be NULL) */
} stir_region;

/* One vector of a vectorized loop's plan (ir/vector.h): the W elements
 * BUF[idx .. idx + W), written "BUF[IDX] load store" after the loop's
 * "vectorize(" in the text form (docs/ir.md, "Vector plans"). */
enum {
	STIR_VEC_LOAD = 1,     /* read before it is written: loaded first */
	STIR_VEC_STORE = 2,    /* written back at the end */
	STIR_VEC_ATOMIC = 4,   /* its lanes sum from 0 and are added to memory
	                          with one atomic add */
};

typedef struct stir_vec_note {
	/* the access of lane w, BUF[IDX], in the loop's scope: variables of
	 * blocks inside the loop replaced by their bindings */
	stir_expr *access;
	unsigned flags;        /* STIR_VEC_* */
	stir_loc loc;          /* where it is written, or none */
} stir_vec_note;

struct stir_stmt {
	stir_stmt_kind kind;
	stir_loc loc;          /* where the statement starts */
	stir_kernel *kernel;   /* the owning kernel */
	union {
		struct {
			stir_buffer *buf;  /* borrowed */
			int n;
			stir_expr **idx;   /* arena array of n indices */
			stir_store_op op;
			stir_expr *value;
		} store;
		struct {
			stir_var *var;     /* kind STIR_VAR_LET */
			stir_expr *value;
			bool hoisted;      /* "hoisted let": a search or warp-buffer
			                      read moved before a loop
			                      (passes/hoist.c; stage III) */
		} let;
		struct {
			stir_expr *cond;
			stir_ptr_vec then_body; /* stir_stmt * */
			stir_ptr_vec else_body; /* stir_stmt * */
		} if_;
		struct {
			const char *name;       /* arena string */
			int n_groups;
			stir_iter_group *groups; /* arena array; axes arena-copied */
			int n_vars;             /* one per member axis */
			stir_var **vars;        /* iterators, kind STIR_VAR_ITER */
			char *kinds;            /* n_vars letters 'S'/'R', NUL-ended */
			stir_ptr_vec init;      /* stir_stmt *, may be empty */
			stir_ptr_vec body;      /* stir_stmt * */
			stir_loc kinds_loc;     /* of the kinds string */
		} iter;
		struct {
			stir_var *var;          /* kind STIR_VAR_LOOP, runs 0..extent-1 */
			stir_expr *extent;
			stir_loop_kind kind;
			stir_thread thread;     /* for STIR_LOOP_BIND */
			int stages;             /* for STIR_LOOP_PIPELINE: its
			                           number of buffers (2 to 8) */
			int batch;              /* for STIR_LOOP_PIPELINE: the
			                           iterations whose copies are
			                           waited for together; 0 or 1:
			                           each its own (2 * batch <=
			                           stages) */
			const char *intrinsic;  /* for STIR_LOOP_TENSORIZE: its name
			                           (interned in the context) */
			stir_ptr_vec body;      /* stir_stmt * */
			/* For STIR_LOOP_VECTORIZE, once planned (the pass
			 * plan_vectors, passes/plan_vectors.c): its vector plan,
			 * n_vecs entries (0: it runs only as its scalar loop).
			 * Not visited by ir/visit.c: the verifier checks that it
			 * is the plan of the loop's body (ir/vector.c). */
			bool planned;
			int n_vecs;
			stir_vec_note *vecs;    /* arena array */
		} for_;
		struct {
			const char *name;       /* arena string, unique in the kernel */
			int n_vars;
			stir_var **vars;        /* kind STIR_VAR_BLOCK */
			stir_expr **bindings;   /* value of each var, from outer loops */
			char *kinds;            /* 'S'/'R' per var, NUL-ended */
			int n_reads, n_writes;
			stir_region *reads;     /* arena arrays */
			stir_region *writes;
			stir_ptr_vec body;      /* stir_stmt * */
			unsigned flags;         /* STIR_BLOCK_* annotations */
			const char *iter;       /* the sparse iteration it was
			                           lowered from (interned in the
			                           context), or NULL */
			bool init;              /* in that iteration's init nest */
		} block;
	} u;
};

/* Typed access to the pointer vectors above. */
static inline stir_stmt *stir_stmt_at(const stir_ptr_vec *v, int i)
{
	return (stir_stmt *)v->v[i];
}
static inline stir_kernel *stir_kernel_at(const stir_ptr_vec *v, int i)
{
	return (stir_kernel *)v->v[i];
}
static inline stir_axis *stir_axis_at(const stir_ptr_vec *v, int i)
{
	return (stir_axis *)v->v[i];
}
static inline stir_buffer *stir_buffer_at(const stir_ptr_vec *v, int i)
{
	return (stir_buffer *)v->v[i];
}
static inline stir_var *stir_var_at(const stir_ptr_vec *v, int i)
{
	return (stir_var *)v->v[i];
}

/* The arena of the module that owns "k". */
static inline stir_arena *stir_kernel_arena(const stir_kernel *k)
{
	return &k->module->arena;
}
static inline stir_ctx *stir_kernel_ctx(const stir_kernel *k)
{
	return k->module->ctx;
}

/* ---- what a primitive made (include/stir/schedule.h, ir/made.c) ---- */

/* One thing a primitive made: its kind, its name and the name of what it
 * was made from (NULL when nothing), both interned in the context. */
typedef struct stir_made_entry {
	stir_made_kind kind;
	const char *name;
	const char *from;
} stir_made_entry;

/* k: forget what the previous primitive made (every primitive starts
 * with this). */
void stir_made_clear(stir_kernel *k);
/* k, kind, name, from: record that the running primitive made "name"
 * (from "from", or NULL).  0, or -1 when memory ran out (reported). */
int stir_made_add(stir_kernel *k, stir_made_kind kind, const char *name,
	const char *from);
/* m: release the records of every kernel of m (and their schedule
 * logs). */
void stir_made_release(stir_module *m);

/* The schedule log (stir_kernel_set_schedule_log): k, rc, fmt: when rc is
 * 0 and k's log is on, record the step "fmt" (printf-style, a schedule
 * file's step without its "- ", e.g. "bind: {block: b, loop: i, to:
 * threadIdx.x}") in the section of k's stage (decompose: format).  One
 * call at the end of every primitive's C entry point.  rc, or -1 when
 * memory ran out (reported). */
int stir_kernel_log_step(stir_kernel *k, int rc, const char *fmt, ...)
	STIR_PRINTF(3, 4);
/* n, names, ints: a YAML flow list of names, or of sizes (0 as null: an
 * inferred split factor), in a heap string; NULL when out of memory. */
char *stir_log_names(int n, const char *const *names);
char *stir_log_ints(int n, const int64_t *ints);
/* t: the name of thread index t, as schedule files spell it. */
const char *stir_log_thread(int t);

/* The link between the blocks of an iteration and those of its init nest
 * is in the blocks (iter, init), set by lower_sparse_iter; the text form
 * writes it ("iter P", "init P"; docs/ir.md).  k: set the links of a
 * kernel read from a text that writes none (printed before the syntax
 * existed) from the names: a block P_initN (N digits) is in the init nest
 * of iteration P, and a block P followed by digits (the fewest for which
 * such an init exists) in its body.  0, or -1 when memory ran out
 * (reported). */
int stir_kernel_link_inits(stir_kernel *k);
/* init, blk: whether block "init" is in the init nest of the iteration
 * that block "blk" belongs to. */
bool stir_block_is_init_of(const stir_stmt *init, const stir_stmt *blk);

/* m, s: the interned copy of s (one per text, lives until m is freed), or
 * NULL when s is NULL or memory runs out (then m->arena.failed is set). */
const char *stir_module_intern(stir_module *m, const char *s);
/* m: copy everything its kernels reach into a fresh arena and free the old
 * one; renumbers the variables' slots.  Every statement, expression and
 * non-parameter variable moves; kernels, parameters, axes, buffers and
 * names stay.  0, or -1 when memory ran out: the module is then as good
 * as before, only nothing was reclaimed (no diagnostic: the caller's work
 * did not fail). */
int stir_module_collect(stir_module *m);
/* m: stir_module_collect unless nothing was allocated in its node arena
 * since the last collection (a pass made of primitives, which collect
 * themselves).  0 or -1 as stir_module_collect. */
int stir_module_collect_if_grown(stir_module *m);
/* m: the bytes its three arenas have handed out (their live size; a
 * test's measure). */
size_t stir_module_arena_bytes(const stir_module *m);

/* The name of a search as the text form writes it ("lower_bound",
 * "upper_bound", "find"), or NULL for an invalid value. */
const char *stir_search_name(stir_search op);

/* ---- internal constructors for stage II and III ---- */

/* A flat buffer of "extent" elements (see the fields of stir_buffer). */
stir_buffer *stir_kernel_add_flat_buffer(stir_kernel *k, const char *name,
	stir_buffer_kind kind, stir_dtype dtype, stir_expr *extent,
	const char *arg);
/* A new variable of kind "kind" (loop or block variable). */
stir_var *stir_kernel_new_var(stir_kernel *k, const char *name,
	stir_var_kind kind, stir_dtype dtype);
stir_expr *stir_expr_search(stir_kernel *k, stir_search op, stir_buffer *buf,
	stir_expr *lo, stir_expr *hi, stir_expr *x);
stir_stmt *stir_stmt_for(stir_kernel *k, stir_var *var, stir_expr *extent);
/* block name(vars = bindings) with n_vars variables and their kinds. */
stir_stmt *stir_stmt_block(stir_kernel *k, const char *name, int n_vars,
	stir_var *const *vars, stir_expr *const *bindings, const char *kinds);
/* k: a new "barrier;" statement (stage III), in no list yet. */
stir_stmt *stir_stmt_barrier(stir_kernel *k);
/* Append to the body of a for or block statement. */
int stir_stmt_append_body(stir_stmt *s, stir_stmt *child);
/* The statement list holding s's children (body of for, block, iter;
 * NULL for other kinds). */
stir_ptr_vec *stir_stmt_body(stir_stmt *s);

/* Give an expression built from literals alone the type "t" where the
 * literals allow it (an integer literal becomes any numeric type, a float
 * literal any float type); other expressions are left as they are. */
void stir_expr_adopt_type(stir_expr *e, stir_dtype t);

/* The bit width rank of an integer type (i8 < i32 < i64), 0 otherwise. */
int stir_int_rank(stir_dtype t);

#endif
