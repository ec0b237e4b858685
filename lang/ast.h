/* The syntax tree of a .stir file, and the parse context the grammar
 * actions work on.
 *
 * The parser (lang/parser.y) builds this tree; the builder (lang/build.c,
 * with its statements in lang/build_stmt.c)
 * resolves names over a whole kernel and turns it into IR.  Every node, list
 * and string of the tree lives in the parse context's arena, so that error
 * recovery can drop half-built values without destructors and one release
 * frees everything.  Constructors take NULL children (what an error
 * production leaves) and return NULL only when memory runs out, which also
 * sets the arena's sticky "failed" flag.
 */
#ifndef STIR_LANG_AST_H
#define STIR_LANG_AST_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stir/ir.h>
#include "ir/arena.h"
#include "ir/nodes.h"

/* Expressions deeper than this are rejected while parsing, so that the
 * recursive passes over an expression (builder, typing, printer, verifier)
 * never run out of stack on hostile input. */
#define LANG_MAX_EXPR_DEPTH 1000

/* Blocks ("{ .. }", a kernel's body included) deeper than this are
 * refused by the scanner at the first "{" too many, for the same reason:
 * the passes recurse over nested statements too.  Together the two limits
 * bound their stack: the deepest program they allow needs less than 512
 * KiB (gcc -O2), less than 1 MiB under AddressSanitizer (255 nested
 * iterations around a 1000-level expression, interpreted).  Without this
 * one the bound was the parser's own stack ("memory exhausted" after some
 * 800 nested iterations), and those needed several times more. */
#define LANG_MAX_BLOCK_DEPTH STIR_MAX_BLOCK_DEPTH

/* p: the most blocks the kernel being read may nest: more in the text of
 * a lowered kernel (a stage header), which lowering made deeper. */
#define LANG_BLOCK_LIMIT(p) ((p)->stage_words ? \
	STIR_MAX_LOWERED_BLOCK_DEPTH : LANG_MAX_BLOCK_DEPTH)

typedef struct lang_list lang_list;
typedef struct lang_expr lang_expr;
typedef struct lang_stmt lang_stmt;
typedef struct lang_group lang_group;
typedef struct lang_arg lang_arg;
typedef struct lang_decl lang_decl;
typedef struct lang_kernel lang_kernel;

/* A growable list of nodes of one type (named at each use). */
struct lang_list {
	stir_ptr_vec v;        /* elements, never NULL; storage in the arena */
};

/* A name as written, with where it was written. */
typedef struct lang_name {
	const char *name;      /* arena string */
	stir_loc loc;          /* of the identifier token */
} lang_name;

typedef enum lang_expr_kind {
	LANG_EXPR_INT,         /* integer literal */
	LANG_EXPR_FLOAT,       /* float literal or inf */
	LANG_EXPR_BOOL,        /* true, false */
	LANG_EXPR_NAME,        /* x */
	LANG_EXPR_INDEX,       /* x[args] */
	LANG_EXPR_CALL,        /* x(args) */
	LANG_EXPR_TYPE,        /* a type name alone: an error when built */
	LANG_EXPR_CAST,        /* t(args) */
	LANG_EXPR_UNARY,
	LANG_EXPR_BINARY,
	LANG_EXPR_SELECT,      /* c ? a : b */
	LANG_EXPR_SEARCH,      /* lower_bound / upper_bound (stages II, III) */
} lang_expr_kind;

struct lang_expr {
	lang_expr_kind kind;
	stir_loc loc;          /* first token; a binary operator's token */
	int depth;             /* 1 for a leaf, else 1 + the deepest child */
	union {
		int64_t i;         /* LANG_EXPR_INT */
		double f;          /* LANG_EXPR_FLOAT */
		bool b;            /* LANG_EXPR_BOOL */
		struct {
			const char *name; /* arena string */
			lang_list *args;  /* lang_expr *; NULL for LANG_EXPR_NAME */
		} name;            /* LANG_EXPR_NAME, _INDEX, _CALL */
		struct {
			stir_dtype dtype;
			lang_list *args;  /* lang_expr *; NULL for LANG_EXPR_TYPE */
		} type;            /* LANG_EXPR_TYPE, _CAST */
		struct {
			stir_unop op;
			lang_expr *a;
		} unary;
		struct {
			stir_binop op;
			lang_expr *a, *b;
		} binary;
		struct {
			lang_expr *c, *a, *b;
		} select;
		struct {
			stir_search op;
			lang_name *buf;    /* the searched buffer */
			lang_expr *lo, *hi, *x;
		} search;
	} u;
};

typedef enum lang_stmt_kind {
	LANG_STMT_STORE,       /* X[..] op e; */
	LANG_STMT_LET,         /* let v = e; */
	LANG_STMT_IF,          /* if (c) { } else { } */
	LANG_STMT_ITER,        /* iter NAME (..) in [..] "..." { } */
	LANG_STMT_INIT,        /* init { }: only first in an iteration body */
	LANG_STMT_FOR,         /* for v in [0, e) ANNOTATION { } */
	LANG_STMT_BLOCK,       /* block NAME(v: S = e, ..) reads() writes() { } */
	LANG_STMT_BARRIER,     /* barrier; (stage III) */
} lang_stmt_kind;

/* A loop's annotation as written (stages II, III). */
typedef struct lang_loop {
	stir_loop_kind kind;
	stir_thread thread;    /* for STIR_LOOP_BIND */
	const char *intrinsic; /* for STIR_LOOP_TENSORIZE (the parser's) */
	stir_loc intrinsic_loc;
	lang_list *vecs;       /* for STIR_LOOP_VECTORIZE: its vector plan
	                          (lang_vec *), or NULL when none is written */
	int stages;            /* for STIR_LOOP_PIPELINE: as written */
	int batch;             /* for STIR_LOOP_PIPELINE: as written, 0 when
	                          not */
} lang_loop;

/* One vector of a vectorized loop's plan: "BUF[IDX] load store". */
typedef struct lang_vec {
	lang_expr *access;     /* BUF[IDX] (the builder checks the form) */
	unsigned flags;        /* STIR_VEC_* */
	stir_loc loc;          /* of the access */
} lang_vec;

/* A block's link to the sparse iteration it was lowered from: "iter P"
 * (in the main nest of iteration P) or "init P" (in its init nest). */
typedef struct lang_block_link {
	lang_name iter;        /* name NULL: no link written */
	bool init;
} lang_block_link;

/* One variable of a block: "name: KIND = binding". */
typedef struct lang_block_var {
	lang_name name;
	lang_name kind;        /* the letter S or R, as an identifier */
	lang_expr *binding;
} lang_block_var;

/* One dimension of a region: "e" (hi NULL), "lo:hi", or ":" (both NULL). */
typedef struct lang_range {
	lang_expr *lo, *hi;
	bool range;            /* written with a ':' */
} lang_range;

/* A read or write region of a block: BUF[range, ..]. */
typedef struct lang_region {
	lang_name buf;
	lang_list *dims;       /* lang_range * */
} lang_region;

/* One entry of an iteration's axis list. */
struct lang_group {
	stir_iter_group_kind kind;
	stir_loc loc;          /* of the axis name, or of fuse / attach */
	lang_list *axes;       /* lang_name *: the axis; the fuse members; or
	                          the attached axis and its new parent */
	bool coo;              /* fuse(.., coo = true) */
};

struct lang_stmt {
	lang_stmt_kind kind;
	stir_loc loc;          /* of the first token */
	union {
		struct {
			lang_name buf;     /* the stored-to tensor or local */
			lang_list *idx;    /* lang_expr * */
			stir_store_op op;
			lang_expr *value;
		} store;
		struct {
			lang_name var;
			lang_expr *value;
			bool hoisted;      /* hoisted let v = e; */
		} let;
		struct {
			lang_expr *cond;
			lang_list *then_body; /* lang_stmt * */
			lang_list *else_body; /* lang_stmt *, may be empty */
		} if_;
		struct {
			lang_name name;
			lang_list *vars;   /* lang_name *, the iterators */
			lang_list *groups; /* lang_group * */
			const char *kinds; /* arena string, as written */
			stir_loc kinds_loc;
			lang_list *init;   /* lang_stmt *, may be empty */
			lang_list *body;   /* lang_stmt * */
		} iter;
		struct {
			lang_list *body;   /* lang_stmt * */
		} init;
		struct {
			lang_name var;
			lang_expr *lo;     /* must be the literal 0 (builder) */
			lang_expr *extent;
			lang_loop loop;
			lang_list *body;   /* lang_stmt * */
		} for_;
		struct {
			lang_name name;
			lang_list *vars;   /* lang_block_var * */
			lang_list *reads;  /* lang_region * */
			lang_list *writes; /* lang_region * */
			lang_list *body;   /* lang_stmt * */
			unsigned flags;    /* STIR_BLOCK_* written after the variables */
			lang_block_link link; /* "iter P" or "init P"; iter.name
			                         NULL when absent */
		} block;
	} u;
};

/* An argument of an axis constructor: an expression (positional) or an
 * option "name = value". */
struct lang_arg {
	stir_loc loc;          /* of the first token */
	lang_expr *expr;       /* the positional argument, or NULL */
	const char *option;    /* the option's name (arena), or NULL */
	bool is_type;          /* the option's value is a type name ... */
	stir_dtype dtype;      /* ... this one */
	bool flag;             /* else it is true or false */
};

typedef enum lang_decl_kind {
	LANG_DECL_AXIS,
	LANG_DECL_TENSOR,
	LANG_DECL_LOCAL,
	LANG_DECL_FLAT,        /* buffer NAME: TYPE[EXTENT] (stages II, III) */
} lang_decl_kind;

/* What a flat buffer is bound to: "= A" (field NULL) or "= J.indptr". */
typedef struct lang_binding {
	lang_name array;       /* the tensor or axis; name NULL: no binding */
	lang_name field;       /* "indptr", "indices" (checked by the builder),
	                          or name NULL */
} lang_binding;

struct lang_decl {
	lang_decl_kind kind;
	lang_name name;
	stir_axis_kind axis_kind;  /* LANG_DECL_AXIS: the constructor ... */
	stir_loc ctor_loc;         /* ... where it is written */
	lang_list *args;           /* ... and its lang_arg * */
	stir_dtype dtype;          /* buffers: element type */
	lang_list *axes;           /* buffers: lang_name * */
	lang_expr *lo, *hi;        /* buffers: value domain [lo, hi), or NULL */
	bool distinct;             /* buffers: no two entries equal */
	lang_expr *extent;         /* flat buffers: the number of elements ... */
	lang_binding bound_to;     /* ... the array it binds to ... */
	stir_scope scope;          /* ... and its memory scope */
	int binding;               /* used by the builder */
};

/* A kernel parameter (the builder checks nothing; the verifier does). */
typedef struct lang_param {
	lang_name name;
	stir_dtype dtype;
} lang_param;

struct lang_kernel {
	lang_name name;
	stir_stage stage;      /* from the stage header; 1 without one */
	lang_list *params;     /* lang_param * */
	lang_list *decls;      /* lang_decl *, in order */
	lang_list *stmts;      /* lang_stmt *, in order */
};

/* The state of one parse: the grammar's %parse-param and the scanner's
 * extra data.  Nothing here is shared between parses. */
typedef struct lang_parser {
	stir_ctx *ctx;         /* borrowed: receives diagnostics */
	const char *file;      /* interned name put in every location */
	stir_arena arena;      /* owns the syntax tree */
	lang_list *kernels;    /* lang_kernel *, parsed so far */
	int n_errors;          /* lexical and syntax errors reported */
	void *scanner;         /* the flex scanner (yyscan_t), owned */
	int line, col;         /* where the scanner is: the next byte */
	int block_depth;       /* "{" scanned and not closed yet, and the
	                          "else if" of the chains still open */
	int expr_open;         /* expressions opened inside others and not
	                          closed yet (the grammar's "nest") */
	stir_loc comment_loc;  /* start of the block comment being skipped */
	bool lex_stopped;      /* the scanner gave up: only the end follows,
	                          and syntax errors there are consequences */
	bool stage_words;      /* inside a stage II/III kernel: the words of
	                          docs/ir.md are keywords (set by the grammar
	                          at the stage header, cleared at the end of
	                          the kernel and by the scanner at "kernel") */
	jmp_buf *fatal;        /* where the scanner's fatal errors jump to */
} lang_parser;

/* p: a parse context to set up for reading "file" (interned) into ctx. */
void lang_parser_init(lang_parser *p, stir_ctx *ctx, const char *file);
/* p: the parse context whose tree and scanner are released. */
void lang_parser_release(lang_parser *p);

/* Parse "len" bytes of "text".  Returns the list of lang_kernel *, or NULL
 * when any lexical or syntax error was reported (or memory ran out). */
lang_list *lang_parse(lang_parser *p, const char *text, size_t len);

/* Whether "name" is a keyword of the text (lang/lexer.l holds the one
 * list): of stage I, or, when "staged", of a stage II or III kernel too.
 * Such a name is printed between backquotes, which make any word an
 * identifier. */
bool lang_is_keyword(const char *name, bool staged);

/* Report a lexical or syntax error at "loc" and count it. */
void lang_syntax_error(lang_parser *p, stir_loc loc, const char *fmt, ...)
	STIR_PRINTF(3, 4);

/* ---- nesting, counted by the grammar actions ---- */

/* An expression opens inside another at loc: more than
 * LANG_MAX_EXPR_DEPTH open is an error there, and the input ends. */
void lang_nest(lang_parser *p, stir_loc loc);
/* The innermost open expression is closed. */
void lang_unnest(lang_parser *p);
/* An "else if" at loc nests one block level until its chain ends: more
 * than LANG_MAX_BLOCK_DEPTH is an error there, and the input ends. */
void lang_nest_else_if(lang_parser *p, stir_loc loc);
/* An "else if" chain link is closed. */
void lang_unnest_else_if(lang_parser *p);
/* The grammar recovered from a syntax error: what was open is dropped. */
void lang_recovered(lang_parser *p);

/* ---- constructors called from the grammar actions ---- */

lang_list *lang_list_new(lang_parser *p);
/* Append "item" unless it is NULL; returns "l". */
lang_list *lang_list_append(lang_parser *p, lang_list *l, void *item);
lang_list *lang_list_one(lang_parser *p, void *item);
lang_name *lang_name_new(lang_parser *p, const char *name, stir_loc loc);

lang_expr *lang_expr_int(lang_parser *p, int64_t v, stir_loc loc);
lang_expr *lang_expr_float(lang_parser *p, double v, stir_loc loc);
lang_expr *lang_expr_bool(lang_parser *p, bool v, stir_loc loc);
lang_expr *lang_expr_name(lang_parser *p, lang_expr_kind kind,
	const char *name, lang_list *args, stir_loc loc);
lang_expr *lang_expr_type(lang_parser *p, stir_dtype dtype, lang_list *args,
	stir_loc loc);
lang_expr *lang_expr_unary(lang_parser *p, stir_unop op, lang_expr *a,
	stir_loc loc);
lang_expr *lang_expr_binary(lang_parser *p, stir_binop op, lang_expr *a,
	lang_expr *b, stir_loc loc);
lang_expr *lang_expr_select(lang_parser *p, lang_expr *c, lang_expr *a,
	lang_expr *b, stir_loc loc);
lang_expr *lang_expr_search(lang_parser *p, stir_search op, lang_name *buf,
	lang_expr *lo, lang_expr *hi, lang_expr *x, stir_loc loc);

lang_stmt *lang_stmt_store(lang_parser *p, lang_name *buf, lang_list *idx,
	stir_store_op op, lang_expr *value);
lang_stmt *lang_stmt_let(lang_parser *p, stir_loc loc, lang_name *var,
	lang_expr *value, bool hoisted);
lang_stmt *lang_stmt_if(lang_parser *p, stir_loc loc, lang_expr *cond,
	lang_list *then_body, lang_list *else_body);
/* "else if": the second if as the whole else branch. */
lang_list *lang_else_if(lang_parser *p, lang_stmt *s);
lang_stmt *lang_stmt_iter(lang_parser *p, stir_loc loc, lang_name *name,
	lang_list *vars, lang_list *groups, const char *kinds,
	stir_loc kinds_loc, lang_list *body);
lang_stmt *lang_stmt_init(lang_parser *p, stir_loc loc, lang_list *body);
/* p, loc (of "barrier"): barrier; */
lang_stmt *lang_stmt_barrier(lang_parser *p, stir_loc loc);
lang_stmt *lang_stmt_for(lang_parser *p, stir_loc loc, lang_name *var,
	lang_expr *lo, lang_expr *extent, lang_loop loop, lang_list *body);
/* bind(HEAD.FIELD): the thread index named blockIdx.x .. threadIdx.z;
 * reports any other. */
lang_loop lang_loop_bind(lang_parser *p, lang_name *head, lang_name *field);
lang_loop lang_loop_tensorize(lang_parser *p, lang_name *intrinsic);
/* p, loc, stages, bloc, batch: "pipeline(STAGES)" (the count at loc; batch
 * 0) or "pipeline(STAGES, BATCH)" (the batch at bloc): 2 to 8 stages and
 * a batch of 2 to stages / 2, else a located error. */
lang_loop lang_loop_pipeline(lang_parser *p, stir_loc loc, int64_t stages,
	stir_loc bloc, int64_t batch);
/* p, vecs: "vectorize(VECS)", a loop with its vector plan (lang_vec *). */
lang_loop lang_loop_vectorize(lang_parser *p, lang_list *vecs);
/* p, loc, access, flags: one vector of a plan. */
lang_vec *lang_vec_new(lang_parser *p, stir_loc loc, lang_expr *access,
	unsigned flags);
/* p, word: the STIR_VEC_* flag a word of a vector plan names ("load",
 * "store"; "atomic" is lexed as a block flag, flag); 0 after a syntax
 * error. */
unsigned lang_vec_flag(lang_parser *p, lang_name *word);
unsigned lang_vec_flag_block(lang_parser *p, stir_loc loc, unsigned flag);
/* p, iter, init: the link "iter ITER" (init false) or "init ITER". */
lang_block_link *lang_block_link_new(lang_parser *p, lang_name *iter,
	bool init);
lang_stmt *lang_stmt_block(lang_parser *p, stir_loc loc, lang_name *name,
	lang_list *vars, unsigned flags, lang_block_link *link,
	lang_list *reads, lang_list *writes, lang_list *body);
lang_block_var *lang_block_var_new(lang_parser *p, lang_name *name,
	lang_name *kind, lang_expr *binding);
lang_region *lang_region_new(lang_parser *p, lang_name *buf, lang_list *dims);
/* A region dimension: "lo" alone (range false), "lo:hi", or ":" (both
 * NULL, range true). */
lang_range *lang_range_new(lang_parser *p, lang_expr *lo, lang_expr *hi,
	bool range);
/* A statement list outside an iteration body: reports any init in it. */
lang_list *lang_block(lang_parser *p, lang_list *stmts);

lang_group *lang_group_axis(lang_parser *p, lang_name *axis);
lang_group *lang_group_fuse(lang_parser *p, stir_loc loc, lang_list *axes);
lang_group *lang_group_fuse_option(lang_parser *p, stir_loc loc,
	lang_list *axes, const char *option, stir_loc option_loc, bool value);
lang_group *lang_group_attach(lang_parser *p, stir_loc loc, lang_name *axis,
	lang_name *parent);

lang_arg *lang_arg_expr(lang_parser *p, lang_expr *e, stir_loc loc);
lang_arg *lang_arg_type(lang_parser *p, const char *option, stir_loc loc,
	stir_dtype dtype);
lang_arg *lang_arg_flag(lang_parser *p, const char *option, stir_loc loc,
	bool flag);

lang_decl *lang_decl_axis(lang_parser *p, lang_name *name,
	stir_axis_kind kind, stir_loc ctor_loc, lang_list *args);
/* A value domain "in [lo, hi)": the list of its two bounds. */
lang_list *lang_domain(lang_parser *p, lang_expr *lo, lang_expr *hi);
lang_decl *lang_decl_buffer(lang_parser *p, lang_decl_kind kind,
	lang_name *name, stir_dtype dtype, lang_list *axes, lang_list *domain,
	bool distinct);
/* buffer NAME: TYPE[EXTENT] = BINDING in [lo, hi) distinct SCOPE; */
lang_decl *lang_decl_flat(lang_parser *p, lang_name *name, stir_dtype dtype,
	lang_expr *extent, lang_binding *bound_to, lang_list *domain,
	bool distinct, stir_scope scope);
/* "= array" or "= array.field"; field may be NULL. */
lang_binding *lang_binding_new(lang_parser *p, lang_name *array,
	lang_name *field);
lang_param *lang_param_new(lang_parser *p, lang_name *name, stir_dtype dtype);

/* The stage header "WORD N" of a kernel: WORD must be "stage" and N 2 or 3
 * (reported otherwise).  Turns the stage keywords on for the kernel's body.
 * Returns the stage, or 0 after an error. */
int lang_stage_header(lang_parser *p, const char *word, stir_loc word_loc,
	int64_t n, stir_loc n_loc);

/* An empty kernel body, then its items one by one. */
lang_kernel *lang_kernel_new(lang_parser *p);
lang_kernel *lang_kernel_add_decl(lang_parser *p, lang_kernel *k,
	lang_decl *d);
lang_kernel *lang_kernel_add_stmt(lang_parser *p, lang_kernel *k,
	lang_stmt *s);
/* Name the body "k", record its stage (1, 2, 3; 0 after an error in the
 * header) and add it to the parse's kernels; the stage keywords end. */
void lang_kernel_finish(lang_parser *p, lang_name *name, lang_list *params,
	int stage, lang_kernel *k);

/* ---- the builder (lang/build.c) ---- */

/* Build the kernels of a parse into a new module in ctx; resolves names and
 * reports undefined ones and names used as the wrong kind of thing.  NULL
 * when any error was reported. */
stir_module *lang_build(stir_ctx *ctx, const lang_list *kernels);

#endif
