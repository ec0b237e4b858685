/* The vector plan of a vectorized loop (docs/cuda.md, "vectorize"): which
 * accesses of a loop "for w in [0, W) vectorize" (W = 2 or 4) run as one
 * vector load or store of W elements, a pure function of the IR.  The
 * CUDA emitter prints the plan (codegen/cuda_vector.c); the interpreter
 * runs the loop as its plain iterations, which the plan keeps the meaning
 * of.
 *
 * Block variables are seen through their bindings: the caller's "expand"
 * hook (NULL: none) gives the binding of a variable, or NULL. */
#ifndef STIR_IR_VECTOR_H
#define STIR_IR_VECTOR_H

#include <stddef.h>
#include "ir/nodes.h"

#define STIR_VEC_MAX 16        /* vectors one loop may hold */
#define STIR_VEC_MAX_GUARDS 8  /* conditions around a body that the lanes
                                  share */
#define STIR_VEC_MAX_STORES 64

/* A variable's binding, or NULL (see above). */
typedef const stir_expr *(*stir_vec_expand)(const stir_var *v,
	const void *user);

/* One vector: the W elements BUF[base .. base + W). */
typedef struct stir_vec_access {
	const stir_buffer *buf;    /* borrowed */
	const stir_expr *idx;      /* the index of lane w (borrowed) */
	int id;                    /* its number in the plan */
	bool loaded;               /* read before written: loaded first */
	bool stored;               /* written back at the end */
	bool atomic;               /* its lanes sum from 0 and are added to
	                              memory at the end with an atomic add */
} stir_vec_access;

/* The plan of one loop.  Everything is borrowed from the loop. */
typedef struct stir_vec_plan {
	int64_t width;             /* W */
	int n_guards;              /* conditions wrapping the whole body that
	                              do not use w (split's tail guards) */
	const stir_expr *guards[STIR_VEC_MAX_GUARDS];
	int n_stores;              /* the body's stores, in order */
	const stir_stmt *stores[STIR_VEC_MAX_STORES];
	bool store_atomic[STIR_VEC_MAX_STORES]; /* that store is an atomic
	                              add of a vector */
	int n;                     /* the vectors */
	stir_vec_access v[STIR_VEC_MAX];
} stir_vec_plan;

/* loop, atomic, expand, user, p: plan vectorized loop "loop" (extent the
 * literal 2 or 4), inside an atomic block when "atomic".  1 when it has a
 * vector path (*p filled), 0 when it runs only as its scalar loop, -1 out
 * of memory. */
int stir_vec_plan_loop(const stir_stmt *loop, bool atomic,
	stir_vec_expand expand, const void *user, stir_vec_plan *p);

/* x, v, w, expand, user, r: *r = x mod w (in [0, w)) when the residue is
 * known without running the kernel, with lane variable v at 0: literals,
 * multiples of literals that w divides, sums of such. */
bool stir_vec_known_residue(const stir_expr *x, const stir_var *v,
	int64_t w, stir_vec_expand expand, const void *user, int64_t *r);

/* t, w: the CUDA vector type of w elements of t, or NULL. */
const char *stir_vec_type(stir_dtype t, int64_t w);

/* p, buf, idx, expand, user: the vector of p that access buf[idx] reads
 * or writes, or -1. */
int stir_vec_find(const stir_vec_plan *p, const stir_buffer *buf,
	const stir_expr *idx, stir_vec_expand expand, const void *user);

/* loop, p, user: what stir_vec_plan_kernel calls for each vectorized
 * loop: p its plan, or NULL when it runs only as its scalar loop. */
typedef void (*stir_vec_fn)(const stir_stmt *loop, const stir_vec_plan *p,
	void *user);

/* k, fn, user: plan every vectorized loop of stage III kernel k whose
 * extent is the literal 2 or 4, in program order, from the IR alone
 * (block variables through their bindings, the atomic blocks around each
 * loop), as the emitter does, and call fn on each.  0, or -1 out of
 * memory. */
int stir_vec_plan_kernel(const stir_kernel *k, stir_vec_fn fn, void *user);

/* ---- the plan as an annotation of the loop (docs/ir.md, "Vector
 * plans"): the pass plan_vectors writes it, the printer and the parser
 * carry it, the verifier checks it, the emitter prints from it. ---- */

/* flags, buf, size: the words of STIR_VEC_* flags ("load store atomic",
 * in that order) into buf. */
const char *stir_vec_flags_text(unsigned flags, char *buf, size_t size);

/* k, loop, p: record plan p of vectorized loop "loop" of k (NULL: it runs
 * only as its scalar loop) as the loop's annotation, replacing any: each
 * vector's access with the variables of blocks inside the loop replaced
 * by their bindings.  0, or -1 out of memory. */
int stir_vec_annotate(stir_kernel *k, stir_stmt *loop,
	const stir_vec_plan *p);

/* loop, expand, user, p: the plan of planned loop "loop" read from its
 * annotation: the vectors in its order, each at the body's own first
 * access that the note names; the guards and the stores from the body.
 * 1 when it has a vector path, 0 when it runs only as its scalar loop,
 * -1 when the annotation names an access the body does not make (the
 * verifier refuses such a kernel). */
int stir_vec_plan_from_note(const stir_stmt *loop, stir_vec_expand expand,
	const void *user, stir_vec_plan *p);

/* k: check that the annotation of each planned loop of k is the plan of
 * its body (as stir_vec_plan_kernel computes it), and that only
 * vectorized loops of extent 2 or 4 have one; errors located at the
 * loop.  0, or -1. */
int stir_vec_verify_kernel(const stir_kernel *k);

#endif
