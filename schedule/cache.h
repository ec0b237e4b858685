/* The cache primitives' request (schedule/cache.c), shared with the
 * checks of cache_write_over_init (schedule/cache_over_init.c), the
 * region analysis (schedule/cache_region.c) and cache_write_runs
 * (schedule/cache_runs.c). */
#ifndef STIR_SCHEDULE_CACHE_H
#define STIR_SCHEDULE_CACHE_H

#include "schedule/sched.h"

#define MAX_DIMS 16

/* Region kinds of a flat buffer. */
enum { F_POINT, F_RANGE, F_STRIDED, F_WHOLE };

#define MAX_TERMS 16

/* F_STRIDED: the varying part of a flat index, a sum of loops inside L
 * with literal strides and extents, strides descending, no two elements
 * the same (each stride at least the span of the terms after it). */
typedef struct strided {
	int n;
	stir_var *loop[MAX_TERMS];
	int64_t stride[MAX_TERMS], ext[MAX_TERMS];
	/* gathered rows: one more term gscale * g, g an expression (expanded;
	 * a load: a row picked by data) that uses one loop inside L, gvar,
	 * of literal extent gext, and no other; the cache holds gext rows of
	 * the other terms' elements, row gvar first.  NULL when none */
	stir_expr *gather;
	stir_var *gvar;
	int64_t gscale, gext;
} strided;

/* One cache request. */
typedef struct creq {
	sched *s;
	stir_kernel *k;
	sched_path path;         /* to the block */
	int li;                  /* the loop's index in path */
	stir_stmt *loop, *blk;
	stir_buffer *x;          /* the buffer cached */
	stir_buffer *through;    /* x is accessed through it, x[P[..]]
	                            (sched_acc.through): the region is of
	                            P's indices, and the copies access x at
	                            P of them; or NULL */
	stir_scope scope;
	bool write, reverse;
	sched_accs acc;          /* the accesses inside the loop */
	bool flat;               /* x (through's, when set) is flat */
	int n;                   /* its dimensions */
	/* buffers over axes: per dimension its point (expanded) or NULL */
	stir_expr *point[MAX_DIMS];
	stir_expr *size[MAX_DIMS];   /* whole dimensions: their size */
	/* flat buffers */
	int fkind;
	stir_expr *base;         /* F_POINT, F_RANGE, F_STRIDED: the fixed part */
	stir_expr *range;        /* F_RANGE: E; gathered rows: W or NULL */
	stir_var *range_loop;    /* F_RANGE under a write's element guard
	                            (row_conds): the range's loop */
	strided terms;           /* F_STRIDED */
	/* gathered rows */
	int scat;                /* the dimension that holds the row */
	stir_expr *scat_x;       /* its index, expanded (uses the loop) */
	stir_expr *rows;         /* the number of rows: the loop's extent */
	int n_conds;
	stir_expr **conds;       /* conditions of the accesses, fixed at L */
	int n_row_conds;
	stir_expr **row_conds;   /* F_STRIDED with gathered rows: conditions
	                            of the accesses that vary only with the
	                            rows' loop (terms.gvar): they guard each
	                            row of the copies; a read without
	                            gathered rows: conditions that vary only
	                            with the terms' loops (a tile's row
	                            guard), guarding each element's copy */
	bool accum;              /* the write accumulates */
	bool over_init;          /* cache_write_over_init */
	bool runs;               /* cache_write_runs: one gathered row, the
	                            row L's own iteration picks, held while
	                            consecutive iterations pick the same row */
	const char *nest_name;   /* the block of the copy nest being built */
	bool any_whole;          /* a dimension of the region is whole */
	stir_expr *init_value;   /* over_init: the init nest's value */
	bool atomic_wb;          /* the write-back is atomic */
	stir_expr *total;        /* the cache's number of elements */
	/* an accumulating write whose block stores under "if (COND)" that
	 * picks the element (a row guard): COND, expanded (stage II/III
	 * loops); the write-back adds the elements it lets through */
	stir_expr *elem_guard;
	/* per: the loop P (path index pi <= li) each of whose iterations owns
	 * a copy of the region, per_n copies of slot_size elements (NULL: one
	 * copy).  P around L: every access at P's iteration's copy; P = L
	 * (an accumulating write): L's iterations add into their own copies,
	 * summed by the write-back */
	/* padding (cache_read, shared, a strided flat region): after every
	 * pad_every elements of the row-major cache (the product of the
	 * extents of its terms from pad_from on) pad unused ones; 0: none */
	int64_t pad_every, pad;
	int pad_from;
	const char *per_name;    /* the loop P asked for, or NULL */
	stir_stmt *per;
	int pi;
	int64_t per_n;
	stir_expr *slot_size;
} creq;

/* The loops and block variables of a copy nest. */
typedef struct copy_nest {
	stir_stmt *outer;        /* outermost statement */
	stir_stmt *blk;          /* the copy block */
	stir_var *row;           /* gathered rows: the row variable */
	stir_var *g;             /* F_STRIDED's gathered rows: their variable */
	stir_var *v[MAX_DIMS + 1];   /* per dimension of x: its variable */
	stir_var *r;             /* flat range / row offset variable */
	stir_expr *cache_idx;    /* the cache's index in the block */
	stir_expr *x_idx[MAX_DIMS];  /* x's indices in the block */
} copy_nest;

/* schedule/cache_region.c.  c: the accesses of x by the block; check
 * them and find the region (c->fkind, c->point, c->terms, ...); false
 * after recording the failure. */
bool cache_find_region(creq *c);
/* c: for an F_RANGE region, the loop inside L whose variable is the
 * varying term of every access of x in the block, or NULL. */
stir_var *cache_range_loop(const creq *c);
/* c, a, base, r, range, t: split flat access a into a fixed base and one
 * term r ranging over [0, range): F_RANGE; or strided terms t:
 * F_STRIDED; or F_POINT; or F_WHOLE. */
int cache_flat_kind(creq *c, const sched_acc *a, stir_expr **base,
	stir_expr **r, stir_expr **range, strided *t);
/* c, a, s, w, r: for a gathering access a of a flat buffer: its row s,
 * the row length w (NULL for 1) and the offset r in the row; whether a
 * has that form. */
bool cache_flat_rows(creq *c, const sched_acc *a, stir_expr **s,
	stir_expr **w, stir_expr **r);

/* schedule/cache.c: the pieces cache_write_runs shares.  c, base: the
 * cache buffer (cache_add_buffer); s, base, init_name: the copy nest's
 * block names (cache_nest_names); c, names, name, all_slots, out: a copy
 * nest's loops and block (cache_build_nest); c, nest: the nest under the
 * region's conditions (cache_guard_nest); c, cache: B's accesses of x
 * redirected to the cache (cache_redirect). */
stir_buffer *cache_add_buffer(creq *c, const char **base);
const char *cache_nest_names(sched *s, const char *base,
	const char **init_name);
bool cache_build_nest(creq *c, sched_names *names, const char *name,
	bool all_slots, copy_nest *out);
bool cache_guard_nest(creq *c, copy_nest *nest);
void cache_redirect(creq *c, stir_buffer *cache);

/* schedule/cache_runs.c.  c: cache_write_runs's own conditions, after
 * cache_check; false after recording the failure. */
bool cache_runs_check(creq *c);
/* c: rewrite what cache_check and cache_runs_check accepted; 0, or -1
 * when memory ran out. */
int cache_runs_rewrite(creq *c);

/* c: whether cache_write_over_init may take over the init nest of the
 * block's iteration (the conditions of include/stir/schedule.h); the
 * init's value into c->init_value.  A failure is recorded in c->s. */
bool cache_check_over_init(creq *c);
/* c: whether the block's update of X through an index read from a
 * buffer lets the cache take over the init (cache_over_init.c); a
 * failure is recorded in c->s. */
bool cache_check_over_init_index(creq *c);

/* schedule/cache_guard.c.  c, cond: whether an index of the buffer's
 * accesses in the block uses a loop variable inside the cache's loop that
 * condition cond uses (the element accessed depends on what it tests). */
bool cache_index_uses_cond(const creq *c, const stir_expr *cond);
/* c: the condition of a block that is one "if (COND) { .. }" deciding only
 * which elements an accumulating write of a strided region adds into,
 * expanded; else NULL (cache_guard.c says the whole rule). */
stir_expr *cache_element_guard(creq *c);
/* c, cond: whether the loops inside L that cond uses are the gathered
 * rows' loop alone. */
bool cache_row_only(const creq *c, const stir_expr *cond);
/* c, cond: whether the loops inside L that cond uses are all loops of
 * the strided terms. */
bool cache_terms_only(const creq *c, const stir_expr *cond);
/* c, cond: for a write of a strided region or a range, whether cond
 * tests only which element is written, so that it may guard each
 * element's write-back (cache_guard.c says the whole rule). */
bool cache_write_terms_guard(creq *c, const stir_expr *cond);
/* c, cond: for a read, a tail guard over loops inside L that the indices
 * do not use, taken at those loops' first iteration (it holds when some
 * iteration passes it); else NULL (cache_guard.c says the whole rule). */
stir_expr *cache_first_pass_guard(creq *c, const stir_expr *cond);

/* schedule/cache_threads.c.  c: after find_region, the conditions of a
 * warp cache (a flat buffer of 32- or 64-bit numbers, under a loop bound
 * to threadIdx.x of a literal power of two up to 32, read the same in
 * every lane); false after recording the failure. */
bool cache_check_warp(creq *c);
/* c: a shared cache's region does not depend on a loop around L bound to
 * a thread index (each thread would copy its own region into the one
 * buffer); false after recording the failure. */
bool cache_check_shared_threads(creq *c);

#endif
