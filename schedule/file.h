/* Schedule files (include/stir/schedule.h; docs/schedules.md, "Schedule
 * files"): the checked form of a file.  schedule/yaml.c reads a YAML file
 * into it and checks its whole shape; schedule/file_apply.c applies it to
 * a kernel; schedule/file_formats.c builds on the host the formats its
 * decompose steps ask for.
 *
 * The tables below are the single source of truth for the primitives,
 * their arguments and the format rules a file may name. */
#ifndef STIR_SCHEDULE_FILE_H
#define STIR_SCHEDULE_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stir/formats.h>
#include <stir/passes.h>
#include <stir/schedule.h>

/* The sections of a file, in the order they apply. */
typedef enum sf_section {
	SF_FORMAT,   /* format decompositions (stage I) */
	SF_STAGE1,   /* stage I schedules */
	SF_STAGE2,   /* after lower_sparse_iter */
	SF_STAGE3,   /* after lower_sparse_buffer */
	SF_N_SECTIONS
} sf_section;

/* The YAML key of each section. */
extern const char *const sf_section_key[SF_N_SECTIONS];

/* What the value of an argument must be. */
typedef enum sf_type {
	SF_PATTERN,  /* a block or iteration name, or a glob pattern */
	SF_PATTERNS, /* a non-empty list of those */
	SF_NAME,     /* a name */
	SF_NAMES,    /* a non-empty list of names */
	SF_FACTORS,  /* split factors: positive integers and at most one null */
	SF_THREAD,   /* blockIdx.x .. threadIdx.z */
	SF_SCOPE,    /* shared or local */
	SF_RULES,    /* a non-empty list of format rules */
	SF_INT,      /* an integer */
	SF_BOOL,     /* true or false */
} sf_type;

/* The arguments of the primitives: X(ID, key, type). */
#define SF_ARGS(X) \
	X(BLOCK, "block", SF_PATTERN) \
	X(ITER, "iter", SF_PATTERN) \
	X(LOOP, "loop", SF_NAME) \
	X(LOOPS, "loops", SF_NAMES) \
	X(ITERS, "iters", SF_NAMES) \
	X(ORDER, "order", SF_NAMES) \
	X(FACTORS, "factors", SF_FACTORS) \
	X(TO, "to", SF_THREAD) \
	X(TARGET, "target", SF_PATTERN) \
	X(BUFFER, "buffer", SF_NAME) \
	X(SCOPE, "scope", SF_SCOPE) \
	X(BLOCKS, "blocks", SF_PATTERNS) \
	X(DISJOINT, "disjoint", SF_NAMES) \
	X(TENSOR, "tensor", SF_NAME) \
	X(RULES, "rules", SF_RULES) \
	X(PARAM, "param", SF_NAME) \
	X(VALUE, "value", SF_INT) \
	X(INTRINSIC, "intrinsic", SF_NAME) \
	X(COO, "coo", SF_BOOL) \
	X(STAGES, "stages", SF_INT) \
	X(PER, "per", SF_NAME) \
	X(PAD_EVERY, "pad_every", SF_INT) \
	X(PAD, "pad", SF_INT) \
	X(BATCH, "batch", SF_INT)

typedef enum sf_arg_id {
#define SF_ARG_ENUM(id, key, type) SF_ARG_##id,
	SF_ARGS(SF_ARG_ENUM)
#undef SF_ARG_ENUM
	SF_N_ARGS
} sf_arg_id;

/* Sets of sections and of arguments, as bits. */
#define SF_IN(sec) (1u << (sec))
#define SF_IN_LOOPS (SF_IN(SF_STAGE2) | SF_IN(SF_STAGE3))
#define SF_IN_KERNEL (SF_IN(SF_STAGE1) | SF_IN_LOOPS)
#define SF_A(id) (1u << SF_ARG_##id)

/* The primitives: X(ID, name, sections, required arguments, optional
 * arguments).  The C function each one calls is in file_apply.c. */
#define SF_PRIMS(X) \
	X(DECOMPOSE, "decompose", SF_IN(SF_FORMAT), \
		SF_A(TENSOR) | SF_A(RULES), 0) \
	X(SPARSE_REORDER, "sparse_reorder", SF_IN(SF_STAGE1), \
		SF_A(ITER) | SF_A(ORDER), 0) \
	X(SPARSE_FUSE, "sparse_fuse", SF_IN(SF_STAGE1), \
		SF_A(ITER) | SF_A(ITERS), SF_A(COO)) \
	X(SPECIALIZE, "specialize", SF_IN_KERNEL, \
		SF_A(PARAM) | SF_A(VALUE), 0) \
	X(SPLIT, "split", SF_IN_LOOPS, \
		SF_A(BLOCK) | SF_A(LOOP) | SF_A(FACTORS), 0) \
	X(FUSE, "fuse", SF_IN_LOOPS, SF_A(BLOCK) | SF_A(LOOPS), 0) \
	X(REORDER, "reorder", SF_IN_LOOPS, SF_A(BLOCK) | SF_A(LOOPS), 0) \
	X(BIND, "bind", SF_IN_LOOPS, SF_A(BLOCK) | SF_A(LOOP) | SF_A(TO), 0) \
	X(UNROLL, "unroll", SF_IN_LOOPS, SF_A(BLOCK) | SF_A(LOOP), 0) \
	X(VECTORIZE, "vectorize", SF_IN_LOOPS, SF_A(BLOCK) | SF_A(LOOP), 0) \
	X(GUARD_TO_BOUND, "guard_to_bound", SF_IN(SF_STAGE3), \
		SF_A(BLOCK) | SF_A(LOOP), 0) \
	X(TENSORIZE, "tensorize", SF_IN(SF_STAGE3), \
		SF_A(BLOCK) | SF_A(LOOP) | SF_A(INTRINSIC), 0) \
	X(PIPELINE, "pipeline", SF_IN(SF_STAGE3), \
		SF_A(BLOCK) | SF_A(LOOP) | SF_A(STAGES), SF_A(BATCH)) \
	X(SET_ATOMIC, "set_atomic", SF_IN_LOOPS, SF_A(BLOCK), 0) \
	X(CROSS_THREAD_REDUCE, "cross_thread_reduce", SF_IN_LOOPS, \
		SF_A(BLOCK) | SF_A(LOOP), 0) \
	X(RFACTOR, "rfactor", SF_IN_LOOPS, SF_A(BLOCK) | SF_A(LOOP), 0) \
	X(DECOMPOSE_REDUCTION, "decompose_reduction", SF_IN_LOOPS, \
		SF_A(BLOCK) | SF_A(LOOP), 0) \
	X(COMPUTE_AT, "compute_at", SF_IN_LOOPS, \
		SF_A(BLOCK) | SF_A(TARGET) | SF_A(LOOP), 0) \
	X(REVERSE_COMPUTE_AT, "reverse_compute_at", SF_IN_LOOPS, \
		SF_A(BLOCK) | SF_A(TARGET) | SF_A(LOOP), 0) \
	X(CACHE_READ, "cache_read", SF_IN_LOOPS, \
		SF_A(BLOCK) | SF_A(BUFFER) | SF_A(LOOP) | SF_A(SCOPE), \
		SF_A(PER) | SF_A(PAD_EVERY) | SF_A(PAD)) \
	X(CACHE_WRITE, "cache_write", SF_IN_LOOPS, \
		SF_A(BLOCK) | SF_A(BUFFER) | SF_A(LOOP) | SF_A(SCOPE), SF_A(PER)) \
	X(CACHE_WRITE_OVER_INIT, "cache_write_over_init", SF_IN_LOOPS, \
		SF_A(BLOCK) | SF_A(BUFFER) | SF_A(LOOP) | SF_A(SCOPE), SF_A(PER)) \
	X(CACHE_WRITE_RUNS, "cache_write_runs", SF_IN(SF_STAGE3), \
		SF_A(BLOCK) | SF_A(BUFFER) | SF_A(LOOP) | SF_A(SCOPE), 0) \
	X(REVERSE_CACHE_READ, "reverse_cache_read", SF_IN_LOOPS, \
		SF_A(BLOCK) | SF_A(BUFFER) | SF_A(LOOP) | SF_A(SCOPE), 0) \
	X(REVERSE_CACHE_WRITE, "reverse_cache_write", SF_IN_LOOPS, \
		SF_A(BLOCK) | SF_A(BUFFER) | SF_A(LOOP) | SF_A(SCOPE), 0) \
	X(HORIZONTAL_FUSE, "horizontal_fuse", SF_IN_LOOPS, SF_A(BLOCKS), \
		SF_A(DISJOINT)) \
	X(DEFAULT_SCHEDULE, "default_schedule", SF_IN_LOOPS, 0, 0)

typedef enum sf_prim {
#define SF_PRIM_ENUM(id, name, sections, req, opt) SF_PRIM_##id,
	SF_PRIMS(SF_PRIM_ENUM)
#undef SF_PRIM_ENUM
	SF_N_PRIMS
} sf_prim;

/* The format rules a decompose step may name: X(ID, key, default
 * suffix). */
#define SF_RULE_KINDS(X) \
	X(ELL, "ell", "_ell") \
	X(BSR, "bsr", "_bsr") \
	X(PADDING, "padding", "_pad") \
	X(HYBRID, "hybrid", "_hyb") \
	X(ELL3D, "ell3d", "_ell3d") \
	X(DBSR, "dbsr", "_dbsr") \
	X(SR_BCRS, "sr_bcrs", "_srbcrs") \
	X(CUSTOM, "custom", NULL)

typedef enum sf_rule_kind {
#define SF_RULE_ENUM(id, key, suffix) SF_RULE_##id,
	SF_RULE_KINDS(SF_RULE_ENUM)
#undef SF_RULE_ENUM
	SF_N_RULE_KINDS
} sf_rule_kind;

/* One rule as the file writes it; a hybrid rule stands for all its parts
 * (c x buckets of stir_format_rule_hybrid_part, range-major). */
typedef struct sf_rule {
	sf_rule_kind kind;
	stir_loc loc;             /* of the rule's kind key */
	const char *suffix;       /* the schedule's string */
	int64_t size;             /* width (ELL, ELL3D), block (BSR, DBSR),
	                             p (padding), t (SR-BCRS) */
	int64_t group;            /* g (SR-BCRS) */
	int64_t chunk;            /* SR-BCRS: chunk, else 0 */
	stir_row_order row_order; /* SR-BCRS with chunks: row_order */
	int column_parts;         /* c (hybrid) */
	int n_buckets;            /* hybrid */
	int64_t *buckets;         /* owned (hybrid): the widths */
	bool cover_rows;          /* hybrid, SR-BCRS: cover_rows */
	bool locality_order;      /* hybrid: locality_order (host builder) */
	int first;                /* its first rule in the step's rules */
	int n;                    /* how many rules it stands for */
} sf_rule;

/* The value of one argument of a step. */
typedef struct sf_arg {
	bool set;                 /* the step gives it */
	stir_loc loc;             /* of its value */
	const char *str;          /* PATTERN, NAME, THREAD, SCOPE: the
	                             schedule's string */
	int n;                    /* list arguments: their length */
	const char **strs;        /* owned array of schedule strings (lists
	                             of names; FACTORS: the text of each) */
	stir_loc *locs;           /* owned: the location of each element */
	int64_t *ints;            /* owned (FACTORS): 0 for null */
	int64_t num;              /* INT: the integer */
	int value;                /* THREAD: a stir_thread; SCOPE: a
	                             stir_scope; BOOL: 0 or 1 */
	int n_rules;              /* RULES: the expanded rules */
	stir_format_rule **rules; /* owned, with the rules */
	int n_srcs;               /* RULES: as the file writes them */
	sf_rule *srcs;            /* owned */
} sf_arg;

/* One step: a primitive and its arguments. */
typedef struct sf_step {
	sf_prim prim;
	stir_loc loc;             /* of the primitive's name */
	sf_arg args[SF_N_ARGS];
} sf_step;

struct stir_schedule {
	stir_ctx *ctx;            /* borrowed: where the file was read */
	const char *file;         /* interned in ctx */
	char *text;               /* owned: the file's text (registered again
	                             in the context of a kernel it applies to
	                             when that differs) */
	size_t len;
	const char *kernel;       /* the schedule's string */
	stir_loc kernel_loc;      /* of the kernel's name */
	int min_blocks_per_sm;    /* the top-level min_blocks_per_sm: 0 none */
	bool overlap_launches;    /* the top-level overlap_launches */
	int n_steps[SF_N_SECTIONS];
	sf_step *steps[SF_N_SECTIONS]; /* owned, in file order */
	int n_strings, cap_strings;
	char **strings;           /* owned: every string the steps point to */
};

/* s, ctx: the schedule's file name as ctx knows it, its text registered
 * there when ctx is not the context it was read in (so that diagnostics
 * in another context show its lines); NULL when memory runs out. */
const char *sf_file_in(const stir_schedule *s, stir_ctx *ctx);

/* ctx, n0, loc, fmt: add the note "fmt" at loc (in the schedule) to every
 * error of ctx since diagnostic n0, which the library reported at places
 * in the kernel or at none (those then take loc as their place too);
 * whether there was one. */
bool sf_note_errors(stir_ctx *ctx, int n0, stir_loc loc, const char *fmt,
	...) STIR_PRINTF(4, 5);

/* The name of primitive p, and of an argument. */
const char *sf_prim_name(sf_prim p);
const char *sf_arg_key(sf_arg_id a);
const char *sf_rule_kind_key(sf_rule_kind k);

#endif
