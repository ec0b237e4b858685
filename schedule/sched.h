/* The toolkit the stage II/III schedule primitives share (the files of schedule/):
 * one request at a time ("sched"), worked on a private copy of the
 * kernel's body so that a refused or failed request leaves the kernel
 * exactly as it was; finding blocks and the loops around them; facts about
 * expressions (parameters only, canonical variables); the accesses of a
 * subtree with their indices expanded in terms of loop variables; and the
 * names of the variables in scope at a place.
 *
 * Every primitive is "analyse and check, then rewrite": checks record the
 * first problem with sched_fail (later ones are ignored, so one request
 * gives one diagnostic) and the rewrite starts only when nothing failed. */
#ifndef STIR_SCHEDULE_SCHED_H
#define STIR_SCHEDULE_SCHED_H

#include <stir/schedule.h>
#include "ir/nodes.h"
#include "ir/util.h"

/* One schedule request on one kernel. */
typedef struct sched {
	stir_kernel *k;          /* the kernel (its body is the working copy) */
	stir_ctx *ctx;           /* receives the diagnostic */
	const char *prim;        /* the primitive's name, first in messages */
	bool failed;             /* a check failed: nothing may be rewritten */
	bool oom;                /* memory ran out */
	stir_loc err_loc;        /* where the first failure is reported */
	stir_loc place;          /* the first located statement of the first
	                            block the request found, where a failure at
	                            a node that has no location (made by
	                            lowering or a primitive) is reported */
	char err[1024];          /* its message, without the primitive */
	stir_ptr_vec saved_body; /* the kernel's own body, put back on failure */
	int saved_n_buffers;     /* buffers the kernel had before */
	bool scopes_ok;          /* the kernel obeyed the scope rule before
	                            (sched_check_scopes), so it must after */
	bool binds_ok;           /* its bound loops obeyed the race rules of
	                            bind before (sched_check_binds) */
	bool through;            /* sched_collect takes an access x[P[..]],
	                            P declared distinct, as through P
	                            (sched_acc.through): set by the
	                            primitives that handle it */
	bool replan;             /* the kernel had vector plans: the copy's
	                            were dropped, made again at the end */
	int n_slots;             /* entries of def and val */
	stir_stmt **def;         /* heap: statement binding each variable (by
	                            slot): its for, block or let; or NULL */
	stir_expr **val;         /* heap: a block variable's binding or a let's
	                            value (by slot); NULL for others */
	char str[2][512];        /* expressions printed for messages */
	int str_next;            /* the entry of str to use next */
} sched;

/* s, loc, fmt: record a failure (only the first one counts). */
void sched_fail(sched *s, stir_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* s, p: p; when p is NULL, memory ran out. */
void *sched_check(sched *s, void *p);

/* s, k, prim: start request "prim" on kernel k: k must be a verified
 * stage II or III kernel; its body is replaced by a deep copy that the
 * request works on, without vector plans (plan_vectors'; sched_end makes
 * them again when k had any).  0, or -1 (with a diagnostic, nothing
 * started). */
int sched_begin(sched *s, stir_kernel *k, const char *prim);
/* s: finish the request.  When a check failed, put the kernel back and
 * report the failure; otherwise recompute the regions (and the vector
 * plans, when the kernel had them: a rewritten body has other plans) and
 * verify, and
 * when that fails put the kernel back and report an internal error.
 * Either way the module's arena is then collected (stir_module_collect):
 * statements, expressions and variables held from before move.  0 or
 * -1. */
int sched_end(sched *s);
/* s, kind, name, from: record that the request made "name" (from
 * "from", or NULL) for stir_kernel_get_made; sched_end forgets it when
 * the request fails. */
void sched_made(sched *s, stir_made_kind kind, const char *name,
	const char *from);
/* s: (re)build the index of variable definitions (def, val). */
int sched_index(sched *s);

/* The statements enclosing a statement, outermost first. */
typedef struct sched_path {
	int n, cap;
	stir_stmt **stmt;        /* heap: stmt[n - 1] is the statement found */
	stir_ptr_vec **list;     /* heap: the list that holds stmt[i] */
	int *index;              /* heap: stmt[i]'s index in list[i] */
} sched_path;

void sched_path_release(sched_path *p);
/* s, name, p: the path to block "name" ("KERNEL has no block NAME" when
 * there is none).  0 or -1. */
int sched_find_block(sched *s, const char *name, sched_path *p);
/* s, p, loop: the index in p of the loop named "loop" that encloses the
 * block p leads to, or -1 ("block B has no enclosing loop L"). */
int sched_path_loop(sched *s, const sched_path *p, const char *loop);
/* s, block, loop, p: the path to block "block" in *p (sched_find_block)
 * and the index in it of its enclosing loop "loop" (sched_path_loop),
 * or -1 with the error of either; release *p in both cases. */
int sched_find_block_loop(sched *s, const char *block, const char *loop,
	sched_path *p);
/* s, target, p: the path to statement "target" (by identity).  0, or
 * -1 when it is not in the kernel. */
int sched_find_stmt(sched *s, stir_stmt *target, sched_path *p);

/* s, c, p, li, lanes: whether expression c (NULL: no) may differ between
 * the threads of a block (lanes: between the lanes of a warp) at
 * p->stmt[li]: it uses a loop around it bound to threadIdx (lanes:
 * threadIdx.x), or a let before it or a block variable around it whose
 * value does (sched_fail when out of memory). */
bool sched_thread_dependent(sched *s, const stir_expr *c, const sched_path *p,
	int li, bool lanes);

/* The name of a thread index as the text form writes it. */
const char *sched_thread_name(stir_thread t);
/* The name of a scope as the text form writes it ("shared", "local"). */
const char *sched_scope_name(stir_scope scope);
/* The annotation of loop s in words ("bound to blockIdx.x", "unrolled",
 * "vectorized"), or NULL for a serial loop. */
const char *sched_loop_annotation(const stir_stmt *s);

/* e: whether e is an integer expression of literals and parameters
 * (what the verifier accepts as a size). */
bool sched_is_param_expr(const stir_expr *e);
/* s, e: e as text, in one of two buffers of s (for messages). */
const char *sched_str(sched *s, const stir_expr *e);
/* s, v: the variable v stands for: while v is a block variable or let
 * bound to exactly a variable, that variable. */
const stir_var *sched_canon(const sched *s, const stir_var *v);
/* s, a, b: structural equality where variables compare by sched_canon. */
bool sched_same(const sched *s, const stir_expr *a, const stir_expr *b);
/* s, v: the statement binding v (a for, block or let), or NULL. */
stir_stmt *sched_def(const sched *s, const stir_var *v);
/* e, v: whether e is a literal integer; its value in *v. */
bool sched_int_value(const stir_expr *e, int64_t *v);

/* k, e, t: e converted to integer type t (a cast when its type differs). */
stir_expr *sched_cast(stir_kernel *k, stir_expr *e, stir_dtype t);
/* k, t: the literal 0 of type t (0.0 for floats). */
stir_expr *sched_zero(stir_kernel *k, stir_dtype t);

/* ---- accesses ---- */

/* One access of a buffer inside a subtree. */
typedef struct sched_acc {
	stir_buffer *buf;        /* the buffer accessed (or searched) */
	stir_stmt *store;        /* the store, or NULL */
	stir_expr *load;         /* the load or search, or NULL */
	int n;                   /* number of indices (0 for a search) */
	stir_expr **idx;         /* the access's own index array */
	stir_expr **xidx;        /* arena: the indices with every let and block
	                            variable bound inside the subtree replaced
	                            by its (expanded) value */
	bool in_target;          /* inside the target block */
	bool cond_inner;         /* conditional inside the target block (an
	                            if there, or a ?: branch or the right
	                            operand of && or || anywhere) */
	int n_conds;             /* if conditions around it outside the
	                            target block, within the subtree */
	stir_expr **conds;       /* arena: those conditions, expanded */
	stir_stmt *block;        /* innermost block around it in the subtree,
	                            or NULL */
	/* with sched.through, for an access buf[P[e..]] whose one index is
	 * a load of a buffer P declared distinct that the kernel never
	 * writes: P, and n, idx and xidx are P's indices e..; since no two
	 * entries of P are equal, two such accesses are of one element of
	 * buf exactly when their indices into P are equal, so the analyses
	 * take buf through P as a buffer of P's shape.  NULL otherwise */
	stir_buffer *through;
} sched_acc;

/* The accesses of a subtree. */
typedef struct sched_accs {
	int n, cap;
	sched_acc *v;            /* heap array, in program order */
	int n_inner, cap_inner;
	const stir_var **inner;  /* heap: the loop variables bound inside the
	                            subtree (the subtree's own loop included) */
} sched_accs;

/* s, root, target, a: collect the accesses of statement root and
 * everything in it; "target" (a block inside root, or NULL) marks
 * in_target.  0 or -1 (memory). */
int sched_collect(sched *s, stir_stmt *root, stir_stmt *target,
	sched_accs *a);
void sched_accs_release(sched_accs *a);
/* a, e: whether e uses a loop variable bound inside the subtree. */
bool sched_varies(const sched_accs *a, const stir_expr *e);
/* a, v: whether v is a loop variable bound inside the subtree. */
bool sched_is_inner(const sched_accs *a, const stir_var *v);

/* k, p: whether a statement of kernel k writes buffer p. */
bool sched_kernel_writes(const stir_kernel *k, const stir_buffer *p);

/* st, b: the number of accesses of b in st (loads, searches, stores),
 * and of stores to b alone (stir_uses, ir/visit.h, counts them). */
int sched_count_accesses(const stir_stmt *st, const stir_buffer *b);
int sched_count_stores(const stir_stmt *st, const stir_buffer *b);

/* s, path, n: refuse a list of n loops longer than the loops around
 * the block at the end of path (one is listed twice or is not there), so
 * that nothing is sized by a list that cannot be right; 0 or -1. */
int sched_check_loop_list(sched *s, const sched_path *path, int n);

/* ---- names ---- */

/* Names that a new variable at some place may not take: the library's
 * one name set (ir/util.h); {0} is empty. */
typedef stir_names sched_names;

/* s, p, depth, list, index, names: the names in scope at index "index"
 * of list "list", which is inside p->stmt[depth - 1] (depth 0: the
 * kernel's body): the kernel's parameters, axes and buffers, the
 * variables of p->stmt[0 .. depth-1], and the lets before the place in
 * each enclosing list. */
int sched_scope_names(sched *s, const sched_path *p, int depth,
	const stir_ptr_vec *list, int index, sched_names *names);
void sched_names_release(sched_names *names);
/* s, st, names: add the names of the variables bound in st (at any
 * depth) to names. */
int sched_names_add_bound(sched *s, const stir_stmt *st, sched_names *names);
/* s, path, li, names: the names a loop replacing path->stmt[li] (or
 * wrapping its body) may not take: those in scope there and those bound
 * inside it. */
int sched_loop_names(sched *s, const sched_path *path, int li,
	sched_names *names);
bool sched_names_has(const sched_names *names, const char *name);
/* s, names, base: "base", or "base1", "base2", ..., one not in names;
 * recorded there; an interned name (stir_module_intern: it lives as long
 * as the module, so a primitive may return it). */
const char *sched_names_fresh(sched *s, sched_names *names, const char *base);
/* s, st, names: rename every variable bound in st whose name is in
 * names (the scope of st's new place) to a fresh one. */
int sched_rename_clashes(sched *s, stir_stmt *st, sched_names *names);
/* s, base: a block name not yet taken by a block of the kernel. */
const char *sched_fresh_block_name(sched *s, const char *base);
/* s, base: a name that no parameter, axis, buffer or variable anywhere in
 * the kernel has. */
const char *sched_fresh_global(sched *s, const char *base);

/* ---- shared checks ---- */

/* s, path, li, thread: bind loop path->stmt[li] (see
 * schedule/bind.c). */
int sched_bind(sched *s, sched_path *path, int li, stir_thread thread);
/* s, report: whether every bound loop of the kernel still obeys the race
 * rules of bind (schedule/annotate.c); reports the first violation with
 * sched_fail when "report". */
bool sched_check_binds(sched *s, bool report);
/* s, report: whether every local (and, for a blockIdx loop, shared) buffer
 * accessed inside a bound loop is accessed only inside it; reports the
 * first violation with sched_fail. */
bool sched_check_scopes(sched *s, bool report);
/* s, loop, b, why, why_size: whether local buffer b, accessed inside and
 * outside loop "loop" (bound to threadIdx.y or z), is a tensor-core
 * accumulator split over that loop's warps: every access is a tensorized
 * nest's fragment, whose tile index picks K of its T tiles by a loop P of
 * the bound loop's literal extent W (T = W * K; P the bound loop inside
 * it, else serial or bound to the same index) and stays within them;
 * else the reason in why (schedule/cache_threads.c). */
bool sched_frag_split_ok(sched *s, const stir_stmt *loop,
	const stir_buffer *b, char *why, size_t why_size);
/* s, path, li, n, factors: split loop path->stmt[li] (schedule/split.c). */
int sched_split(sched *s, sched_path *path, int li, int n,
	const int64_t *factors);
/* s, b: the body of block b as one "X[..] += e" (or -=) store, its lets
 * put into it (a new statement; b is unchanged); NULL, with a failure,
 * when b is not lets followed by one such store (schedule/reduction.c). */
stir_stmt *sched_single_update(sched *s, stir_stmt *b);
/* s, list, index, st: insert st into list before index "index". */
int sched_list_insert(sched *s, stir_ptr_vec *list, int index, stir_stmt *st);
/* list, index: remove the statement at index "index" of list. */
void sched_list_remove(stir_ptr_vec *list, int index);
/* path, depth: the innermost atomic block among
 * path->stmt[0 .. depth-1], or NULL. */
stir_stmt *sched_atomic_around(const sched_path *path, int depth);
/* s, path, li: check that no loop around path->stmt[li] (a loop) iterates
 * a reduction variable of a block below it on the path, which is then
 * run once per spatial point of those loops.  true, or false with an
 * error. */
bool sched_spatial_around(sched *s, const sched_path *path, int li);

/* s, b: block b and every block nested in it made atomic when all their
 * stores are += or -= (schedule/reduction.c). */
int sched_set_atomic(sched *s, stir_stmt *b);

#endif
