/* The one walker of the IR (docs/ir.md, "Walking the IR"): the children
 * of every node kind, a visitor over statements and expressions, the
 * "uses / writes" queries built on it, and the one structural equality
 * (ir/equal.c), parameterized by what it ignores.
 *
 * A pass that needs "every expression under this statement", "does this
 * loop store into B", or "are these two indices the same" asks here
 * instead of writing its own recursive switch over STIR_STMT_* and
 * STIR_EXPR_*: a new node kind or field is then added in one place.  A
 * switch that does different work per kind (printing, interpreting,
 * verifying) stays where it is; the walker is for the plain walks. */
#ifndef STIR_IR_VISIT_H
#define STIR_IR_VISIT_H

#include "ir/nodes.h"

/* ---- children ---- */

/* e: the address of the i-th operand of e (load indices, operands, call
 * arguments, the select's condition and arms, the cast's operand, a
 * search's lo, hi and x, in that order), or NULL when e has fewer.  The
 * slot may be assigned to replace the child. */
static inline stir_expr **stir_expr_child(stir_expr *e, int i)
{
	switch (e->kind) {
	case STIR_EXPR_LOAD:
		return i < e->u.load.n ? &e->u.load.idx[i] : NULL;
	case STIR_EXPR_UNARY:
		return i == 0 ? &e->u.unary.a : NULL;
	case STIR_EXPR_BINARY:
		return i == 0 ? &e->u.binary.a : i == 1 ? &e->u.binary.b : NULL;
	case STIR_EXPR_SELECT:
		return i == 0 ? &e->u.select.c : i == 1 ? &e->u.select.a :
			i == 2 ? &e->u.select.b : NULL;
	case STIR_EXPR_CALL:
		return i < e->u.call.n ? &e->u.call.args[i] : NULL;
	case STIR_EXPR_CAST:
		return i == 0 ? &e->u.cast.a : NULL;
	case STIR_EXPR_SEARCH:
		return i == 0 ? &e->u.search.lo : i == 1 ? &e->u.search.hi :
			i == 2 ? &e->u.search.x : NULL;
	default:
		return NULL;
	}
}

/* What a walk visits besides statements and the expressions statements
 * hold directly (store indices and value, let value, if condition, loop
 * extent, block bindings). */
enum {
	STIR_VISIT_REGIONS = 1, /* the lo/hi bounds of blocks' read and write
	                           regions (after the bindings) */
	STIR_VISIT_VECTORS = 2, /* the accesses of a vectorized loop's plan
	                           (after the extent; ir/vector.h) */
};

/* s, i, flags: the address of the i-th expression statement s holds
 * itself (not those of nested statements), in the order the walker
 * visits them: a store's indices then its value; a let's value; an if's
 * condition; a loop's extent (then, with STIR_VISIT_VECTORS, the
 * accesses of its vector plan); a block's bindings, then (with
 * STIR_VISIT_REGIONS) each read region's lo and hi bounds, then each
 * write region's.  NULL past the last.  A slot may hold NULL (an
 * unbounded region dimension). */
stir_expr **stir_stmt_expr(stir_stmt *s, int i, unsigned flags);

/* s, lists: store in lists[0..1] the statement lists nested directly in
 * s (if: then and else bodies; iteration: init and body; loop and block:
 * body) and return how many (0 for a store or let). */
int stir_stmt_lists(stir_stmt *s, stir_ptr_vec *lists[2]);

/* s, n, vals: the variables statement s binds (a let's variable, a
 * loop's, a block's or an iteration's), *n of them, or NULL with *n = 0;
 * with vals non-NULL, *vals = the values they are bound to where the
 * statement says (a let's value and a block's bindings, in the same
 * order), else NULL (loops, iterations). */
stir_var **stir_stmt_binds(stir_stmt *s, int *n, stir_expr ***vals);

/* ---- the visitor ---- */

/* What a callback tells the walk. */
typedef enum stir_visit_step {
	STIR_VISIT_GO = 0,   /* go on (into the children, for a pre callback) */
	STIR_VISIT_SKIP = 1, /* pre callback: do not enter this node's children
	                        (its post callback is not called either) */
	STIR_VISIT_STOP = 2, /* end the whole walk now */
} stir_visit_step;

/* A walk over statements and the expressions below them.  Every callback
 * may be NULL; with both expression callbacks NULL the walk does not
 * enter expressions at all (a statement-only walk costs nothing per
 * expression).  Expression callbacks get the slot that holds the
 * expression, so they may rewrite it in place (*slot = new): a pre
 * callback's replacement is the one whose children are walked.  Statement
 * callbacks may change the statement's fields but not the list that holds
 * it while the walk is inside that list. */
typedef struct stir_visitor {
	stir_visit_step (*stmt_pre)(stir_stmt *s, void *user);
	stir_visit_step (*stmt_post)(stir_stmt *s, void *user);
	stir_visit_step (*expr_pre)(stir_expr **slot, void *user);
	stir_visit_step (*expr_post)(stir_expr **slot, void *user);
	unsigned flags;  /* STIR_VISIT_* */
	void *user;      /* passed to every callback */
} stir_visitor;

/* v, slot: walk the expression in *slot (nothing when NULL): pre callback,
 * children in stir_expr_child order, post callback.  Whether a callback
 * stopped the walk. */
bool stir_visit_expr(const stir_visitor *v, stir_expr **slot);
/* v, s: walk statement s: stmt_pre, its own expressions (stir_stmt_expr
 * order), its nested lists (stir_stmt_lists order), stmt_post.  Whether a
 * callback stopped the walk. */
bool stir_visit_stmt(const stir_visitor *v, stir_stmt *s);
/* v, list: stir_visit_stmt on each statement of list in order. */
bool stir_visit_list(const stir_visitor *v, stir_ptr_vec *list);

/* ---- uses and writes ---- */

/* A question about a subtree, answered by one walk (stir_uses_stmt):
 * fill the "ask" fields, zero the counts, walk.  Buffer accesses are
 * counted as the CUDA program makes them: a load or a search reads its
 * buffer, a store writes its buffer, and a store with an update operator
 * (+=, max=, ...) also reads it. */
typedef struct stir_uses {
	/* ask: */
	const stir_var *var;     /* count the uses of this variable, or NULL */
	const stir_buffer *buf;  /* count accesses of this buffer, or NULL */
	bool any_buf;            /* count accesses of every buffer (buf NULL) */
	bool first;              /* stop at the first thing counted */
	/* When set and it returns non-NULL for a variable (other than var),
	 * the variable counts as that expression: what it uses is counted
	 * (the emitter's block variables, which print as their bindings). */
	const stir_expr *(*expand)(const stir_var *v, const void *user);
	const void *expand_user;   /* passed to expand */
	/* answer: */
	int var_uses;            /* VAR expressions naming var */
	int loads;               /* loads and searches of the buffer(s) */
	int stores;              /* stores into the buffer(s) */
	int updates;             /* of those, stores with an update operator */
} stir_uses;

/* u, e / s / list: add what e (s, list) holds to u's counts. */
void stir_uses_expr(stir_uses *u, const stir_expr *e);
void stir_uses_stmt(stir_uses *u, const stir_stmt *s);
void stir_uses_list(stir_uses *u, const stir_ptr_vec *list);

/* The common questions. */
/* e, v: whether e uses variable v. */
bool stir_expr_uses(const stir_expr *e, const stir_var *v);
/* e: whether e holds a load or a search (its value depends on data). */
bool stir_expr_reads_data(const stir_expr *e);
/* e, b: whether e loads or searches buffer b. */
bool stir_expr_reads(const stir_expr *e, const stir_buffer *b);
/* x: whether node x itself (not its operands) can be evaluated anywhere,
 * speculatively: an integer literal, a variable, an integer unary
 * operation, a cast from integer to integer, +, - and * of integers, and
 * / and % of integers by a non-zero literal; not a load, a search, a
 * call, a select or anything of floats.  A caller that sees a variable
 * through its binding judges the binding itself (the hoisters). */
bool stir_expr_node_is_safe(const stir_expr *x);
/* s, v: whether statement s, or anything nested in it, uses variable v
 * (block regions are not looked at: they describe, they do not use). */
bool stir_stmt_uses(const stir_stmt *s, const stir_var *v);
/* list, v: the same for a statement list. */
bool stir_list_uses_var(const stir_ptr_vec *list, const stir_var *v);
/* s, b: whether s, or anything nested in it, stores into buffer b (b NULL:
 * into any buffer). */
bool stir_stmt_writes(const stir_stmt *s, const stir_buffer *b);
/* s, b: whether s reads buffer b: loads or searches it, or updates it
 * (+=, ...), which reads the old value. */
bool stir_stmt_reads(const stir_stmt *s, const stir_buffer *b);

/* ---- structural equality (ir/equal.c) ---- */

/* What an equality ignores or looks through. */
enum {
	/* Variables compare by name, kind and type (what they print as)
	 * rather than by identity: two kernels' texts. */
	STIR_EQ_VAR_BY_NAME = 1,
	/* Axes and buffers compare by their position in their kernel rather
	 * than by identity: nodes of two different kernels. */
	STIR_EQ_REF_BY_INDEX = 2,
	/* NULL equals nothing, not even NULL (the emitter compares values
	 * that must exist). */
	STIR_EQ_NULL_UNEQUAL = 4,
};

/* An equality: flags, and two optional hooks. */
typedef struct stir_eq {
	unsigned flags;  /* STIR_EQ_* */
	/* When set and it returns non-NULL for a variable, the variable
	 * compares as that expression (the emitter prints a block variable
	 * as its binding). */
	const stir_expr *(*expand)(const stir_var *v, const void *user);
	/* When set, two variables are equal when it maps them to the same
	 * variable, whatever their types (the scheduler's copies of a loop
	 * variable). */
	const stir_var *(*canon)(const stir_var *v, const void *user);
	const void *user;  /* passed to the hooks */
} stir_eq;

/* eq, a, b: whether expressions a and b are equal under eq (eq NULL: by
 * identity of variables and buffers, exact types, float literals bit for
 * bit so that -0.0 differs from 0.0). */
bool stir_expr_equal(const stir_eq *eq, const stir_expr *a,
	const stir_expr *b);
/* eq, a, b: the same for two statements with everything nested in them
 * (locations are never compared). */
bool stir_stmt_equal(const stir_eq *eq, const stir_stmt *a,
	const stir_stmt *b);
/* eq, a, b: the same for two statement lists. */
bool stir_list_equal(const stir_eq *eq, const stir_ptr_vec *a,
	const stir_ptr_vec *b);
/* a, b: stir_expr_equal with identity (eq NULL). */
bool stir_expr_same(const stir_expr *a, const stir_expr *b);

#endif
