/* Helpers for passes that rewrite the IR: copying and substituting
 * expressions and statements, structural comparison, and constructors
 * that fold integer literals so that generated code stays readable. */
#ifndef STIR_IR_UTIL_H
#define STIR_IR_UTIL_H

#include "ir/nodes.h"
#include "ir/visit.h"

/* A substitution: the expression that replaces variable "var" (copied at
 * every use), or a variable that replaces it. */
typedef struct stir_subst {
	int n, cap;
	const stir_var **from;   /* heap arrays */
	stir_expr **to_expr;     /* replacement expression, or NULL */
	stir_var **to_var;       /* replacement variable, or NULL */
} stir_subst;

void stir_subst_release(stir_subst *s);
int stir_subst_add_expr(stir_subst *s, const stir_var *from, stir_expr *to);
int stir_subst_add_var(stir_subst *s, const stir_var *from, stir_var *to);

/* k, e: a copy of node e in k's arena whose arrays of children (load
 * indices, call arguments) are its own, the children themselves shared:
 * assigning a stir_expr_child slot of the copy leaves e as it was.  NULL
 * when memory runs out. */
stir_expr *stir_expr_copy_node(stir_kernel *k, const stir_expr *e);
/* A deep copy of e into kernel k with the substitution applied (s may be
 * NULL).  Types and locations are kept. */
stir_expr *stir_expr_copy(stir_kernel *k, const stir_expr *e,
	const stir_subst *s);
/* A deep copy of statement st; variables it binds (lets, loop and block
 * variables, iterators) are cloned and the clones substituted in the copy. */
stir_stmt *stir_stmt_copy(stir_kernel *k, const stir_stmt *st, stir_subst *s);

/* Apply substitution s in place to every expression of statement st and
 * of everything nested in it (bindings, extents, conditions, indices,
 * values, regions, vector plans): each is replaced by a substituted
 * copy.  Variables st binds are kept.  0, or -1 when memory runs out. */
int stir_stmt_subst(stir_kernel *k, stir_stmt *st, const stir_subst *s);
/* The same for every statement of a list. */
int stir_list_subst(stir_kernel *k, stir_ptr_vec *list, const stir_subst *s);

/* Constructors that fold literals: x + 0, x * 1, 0 * x, c1 + c2, ... */
stir_expr *stir_mk_int(stir_kernel *k, int64_t v);
stir_expr *stir_mk_add(stir_kernel *k, stir_expr *a, stir_expr *b);
stir_expr *stir_mk_sub(stir_kernel *k, stir_expr *a, stir_expr *b);
stir_expr *stir_mk_mul(stir_kernel *k, stir_expr *a, stir_expr *b);
stir_expr *stir_mk_and(stir_kernel *k, stir_expr *a, stir_expr *b);
/* buf[idx] for a flat buffer. */
stir_expr *stir_mk_load1(stir_kernel *k, stir_buffer *buf, stir_expr *idx);
/* var as an expression. */
stir_expr *stir_mk_var(stir_kernel *k, stir_var *v);

/* Names that do not clash: the one fresh-name generator of the library
 * (the schedule primitives' sched_names is this set too).  A set of names
 * hashed, so that recording and looking up a name costs the same however
 * many there are; names of any length (no fixed buffer).
 * stir_names_init records the names a kernel declares and binds
 * (iterators excepted: lowering replaces them, so their names are free
 * for the loops that take their place); stir_names_fresh returns "base",
 * or "base1", "base2", ... (the first not yet recorded), and records it.
 * stir_names_mark and stir_names_reset forget the names recorded since a
 * mark, for names whose scope has ended.  A set all zero is empty. */
typedef struct stir_names {
	int n, cap;
	const char **v;          /* heap array of borrowed strings, in the
	                            order recorded */
	int *next;               /* heap, per name: index + 1 of the next older
	                            name of its hash chain, or 0 */
	int *head;               /* heap, per bucket: index + 1 of the newest
	                            name hashed there, or 0 */
	int n_head;              /* buckets: a power of two, or 0 */
	stir_kernel *k;          /* borrowed: its arena holds fresh names */
} stir_names;

int stir_names_init(stir_names *names, stir_kernel *k);
/* names, k: record k's parameters, axes and buffers; 0 or -1 (memory). */
int stir_names_add_kernel(stir_names *names, stir_kernel *k);
void stir_names_release(stir_names *names);
/* names, name: record name (borrowed: it must outlive the set); 0, or -1
 * when memory runs out. */
int stir_names_add(stir_names *names, const char *name);
bool stir_names_has(const stir_names *names, const char *name);
/* names, name: the index in names->v of name, or -1. */
int stir_names_find(const stir_names *names, const char *name);
/* names, a, base: a fresh name built from base, copied into arena a and
 * recorded; NULL when memory runs out.  Always ends: of the n + 1
 * candidates "base", "base1", .. "base<n>" one is free. */
char *stir_names_fresh_in(stir_names *names, stir_arena *a, const char *base);
/* k, n, size: a zeroed array of n elements of size bytes (at least one
 * element) in k's arena, for the scratch arrays of a pass whose length
 * the input decides (never on the stack); NULL when memory runs out or
 * n * size overflows. */
void *stir_kernel_array(stir_kernel *k, size_t n, size_t size);
/* k, fmt, ...: the formatted string, in k's arena, however long (names
 * built from user names have no length limit); NULL when memory runs
 * out. */
char *stir_kernel_strf(stir_kernel *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* names, base: stir_names_fresh_in into the arena of names->k; the name
 * returned is interned (stir_module_intern), so it lives as long as the
 * module. */
const char *stir_names_fresh(stir_names *names, const char *base);
int stir_names_mark(const stir_names *names);
void stir_names_reset(stir_names *names, int mark);

/* Remove every let of kernel k whose variable is not used after it (lets
 * have no effects), repeatedly, so chains of dead lets go too. */
int stir_remove_dead_lets(stir_kernel *k);

/* Visit every statement list of kernel k (the body and every nested one),
 * outermost first. */
typedef int (*stir_list_fn)(stir_kernel *k, stir_ptr_vec *list, void *user);
int stir_foreach_list(stir_kernel *k, stir_list_fn fn, void *user);

#endif
