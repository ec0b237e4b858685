/* The verifier's private state and the helpers its files share
 * (ir/verify.c, ir/verify_decl.c, ir/verify_expr.c, ir/verify_stmt.c; the
 * first says how the rules are divided among them).  Not installed; only
 * the verifier includes it. */
#ifndef STIR_IR_VERIFY_H
#define STIR_IR_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include "ir/layout.h"
#include "ir/nodes.h"
#include "ir/ops.h"
#include "ir/util.h"

/* One axis iterated by an enclosing iteration or by an earlier member of
 * the iteration being checked. */
typedef struct iterated {
	stir_axis *axis;        /* the member axis, borrowed */
	stir_axis *parent;      /* the axis it is iterated under: its parent,
	                           the previous fuse member, or the attach
	                           parent; NULL for a root */
	const stir_stmt *iter;  /* the iteration that iterates it */
	char letter;            /* 'S', 'R', or 0 when the iteration has no
	                           valid letter for it */
} iterated;

/* What the statement walk knows at one point of the kernel body.  Blocks
 * record the lengths of the stacks on entry and cut them back on exit. */
typedef struct scope {
	stir_var **vars;        /* iterators and lets in scope, outermost
	                           first; malloc'd, entries borrowed */
	int n_vars, cap_vars;
	iterated *axes;         /* iterated axes, outermost first; malloc'd */
	int n_axes, cap_axes;
	const stir_stmt **open; /* statements being walked, to catch one that
	                           contains itself; malloc'd */
	int n_open, cap_open;
	int *bound;             /* by variable slot: how many times the variable
	                           in slot_var is in scope; malloc'd */
	stir_var **slot_var;    /* by slot: the variable last bound there */
	bool *in_init;          /* by slot: a reduction iterator of an
	                           iteration whose init is being walked */
	int n_slots;            /* the kernel's variable count */
	const stir_stmt *atomic; /* the innermost enclosing atomic block, or
	                            NULL */
	const stir_stmt *thread_loop[STIR_THREAD_Z + 1]; /* by GPU index: the
	                            enclosing loop bound to it, or NULL */
	int depth;              /* blocks ("{") open in the kernel's text
	                           around the statement walked, the body's
	                           included */
} scope;

/* The state of one kernel's verification. */
typedef struct verifier {
	stir_kernel *k;         /* the kernel checked, borrowed */
	stir_ctx *ctx;          /* receives the diagnostics, borrowed */
	const stir_stmt **named; /* every iteration and block met so far (for
	                           duplicate names); malloc'd */
	int n_named, cap_named;
	stir_names named_set[2]; /* names of the iterations [0] and blocks [1]
	                            in named, hashed: the first of each name */
	const stir_stmt **named_first[2]; /* per name of named_set: the first
	                            statement so named; malloc'd */
	int cap_first[2];
	stir_names kernel_names; /* the parameters, axes and buffers, hashed
	                            (built on first use) */
	stir_loc *kernel_locs;  /* per name of kernel_names: the first
	                           declaration's; malloc'd */
	int cap_kernel_locs;
	bool kernel_names_ok;   /* kernel_names is built */
	bool oom;               /* memory ran out; reported once */
} verifier;

/* ---- small helpers ---- */

/* t: a type; whether it is a number (an integer or a float). */
static inline bool is_num(stir_dtype t)
{
	return stir_dtype_is_int(t) || stir_dtype_is_float(t);
}

/* n, one, many: the word for n things ("1 axis", "3 axes"). */
static inline const char *plural(int n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* b: a buffer; the word naming its kind in messages (its declaration's
 * keyword). */
static inline const char *buffer_word(const stir_buffer *b)
{
	if (b->extent)
		return "buffer";
	return b->kind == STIR_BUFFER_LOCAL ? "local" : "tensor";
}

/* b: whether b is flat: one dimension of "extent" elements. */
static inline bool is_flat(const stir_buffer *b)
{
	return b->extent != NULL;
}

/* b: the number of dimensions an access to b takes. */
static inline int buffer_dims(const stir_buffer *b)
{
	return is_flat(b) ? 1 : b->n_axes;
}

/* kind: an axis kind; its constructor's name, or NULL for an invalid
 * one. */
static inline const char *axis_kind_name(stir_axis_kind kind)
{
	static const char *const kinds[] = {
		[STIR_DENSE_FIXED] = "dense_fixed",
		[STIR_DENSE_VARIABLE] = "dense_variable",
		[STIR_SPARSE_FIXED] = "sparse_fixed",
		[STIR_SPARSE_VARIABLE] = "sparse_variable",
	};
	if ((unsigned)kind >= sizeof(kinds) / sizeof(kinds[0]))
		return NULL;
	return kinds[kind];
}

/* k, a: whether "a" is one of k's axes (and not another kernel's). */
static inline bool axis_in_kernel(const stir_kernel *k, const stir_axis *a)
{
	return a && a->index >= 0 && a->index < k->axes.n &&
		stir_axis_at(&k->axes, a->index) == a;
}

/* k, b: whether "b" is one of k's buffers. */
static inline bool buffer_in_kernel(const stir_kernel *k, const stir_buffer *b)
{
	return b && b->index >= 0 && b->index < k->buffers.n &&
		stir_buffer_at(&k->buffers, b->index) == b;
}

/* k, p: whether "p" is one of k's parameters. */
static inline bool param_in_kernel(const stir_kernel *k, const stir_var *p)
{
	for (int i = 0; i < k->params.n; i++)
		if (stir_var_at(&k->params, i) == p)
			return true;
	return false;
}

/* x: a spelling from the operator table (ir/ops.h), "?" for NULL. */
static inline const char *spelled(const char *x)
{
	return x ? x : "?";
}

/* sc, var: whether "var" is a slot of this kernel's numbering. */
static inline bool slot_ok(const scope *sc, const stir_var *var)
{
	return var->slot >= 0 && var->slot < sc->n_slots;
}

/* ---- verify.c ---- */

/* v: the verifier; p, cap: a malloc'd array and its capacity in elements;
 * need: the count it must hold; size: one element's size.  Grows the
 * array, reporting "out of memory" once on failure.  0 or -1. */
int verify_grow(verifier *v, void **p, int *cap, int need, size_t size);

/* v, loc, what, name: "what" (with "name" in quotes when not NULL) is
 * not allowed in a kernel of v's stage. */
void verify_report_stage(verifier *v, stir_loc loc, const char *what,
	const char *name);

/* v, sc, var: an iterator or let about to come into scope; its name must
 * not repeat a name already in scope. */
void verify_check_new_var_name(verifier *v, const scope *sc,
	const stir_var *var);

/* v, s: an iteration or block whose name must differ from every other
 * iteration's (block's) in the kernel: schedules find them by name. */
void verify_check_stmt_name(verifier *v, const stir_stmt *s);

/* ---- verify_decl.c ---- */

/* v: parameters must be i32 or i64. */
void verify_check_params(verifier *v);

/* v: every axis of the kernel: its parent, sizes and index type. */
void verify_check_axes(verifier *v);

/* v: every buffer of the kernel. */
void verify_check_buffers(verifier *v);

/* ---- verify_expr.c ---- */

/* v, sc: a scope for kernel v->k with its parameters in scope.  0 or -1
 * (memory). */
int verify_scope_init(verifier *v, scope *sc);

/* sc: the scope whose memory is released. */
void verify_scope_release(scope *sc);

/* v, sc, var: bring an iterator or let into scope (its name checked
 * first). */
void verify_scope_push_var(verifier *v, scope *sc, stir_var *var);

/* sc, n: take the variables brought into scope after the first n out. */
void verify_scope_pop_vars(scope *sc, int n);

/* sc, a: the innermost entry iterating "a", or NULL. */
const iterated *verify_scope_find_axis(const scope *sc, const stir_axis *a);

/* v, sc, e, what, n, name: an expression that must be an integer (an
 * index, a bound, an extent), named in messages "WHAT N of 'NAME'" (n > 0)
 * or "WHAT 'NAME'".  A literal that could not become an integer is
 * reported as such.  Returns its type, or STIR_DTYPE_NONE when it is not
 * an integer or is unknown. */
stir_dtype verify_check_int(verifier *v, scope *sc, const stir_expr *e,
	const char *what, int n, const char *name);

/* v, sc, e, what: a condition (of `if`, `?:`, or an operand of && || !,
 * named by "what"); it must be bool. */
void verify_check_cond(verifier *v, scope *sc, const stir_expr *e,
	const char *what);

/* v, sc, loc, b, n, idx: an access b[idx..] (a load, or the target of a
 * store, at "loc"): a buffer of this kernel, one integer index per axis,
 * or exactly one for a flat buffer. */
void verify_check_access(verifier *v, scope *sc, stir_loc loc,
	const stir_buffer *b, int n, stir_expr *const *idx);

/* v, sc, e: an expression; reports what is wrong in it and returns its
 * type (STIR_DTYPE_NONE when an error leaves it unknown).  The type the
 * rules give must also be the one recorded in the node, which the later
 * stages trust. */
stir_dtype verify_check_expr(verifier *v, scope *sc, const stir_expr *e);

/* ---- verify_stmt.c ---- */

/* v, sc, list: a statement list; the lets it binds end with it. */
void verify_check_stmts(verifier *v, scope *sc, const stir_ptr_vec *list);

#endif
