/* Tensor-core intrinsics as data (docs/ir.md, "Tensorized loops"): what
 * each computes, on which types, and the names of the CUDA device
 * functions that run it (codegen/cuda_mma.c emits them; the functions are
 * the prelude of codegen/mma_prelude.c).  One intrinsic computes, on one
 * warp,
 *
 *   for m in [0, M) for n in [0, N) for k in [0, K)
 *     C[m, n] += f32(A[m, k]) * f32(B[k, n])
 *
 * with A and B of element type "in" (f32 for tf32: the inputs are rounded
 * to tf32 first, as the hardware does) and C of f32.  stir_tensorize_match
 * says whether a loop nest computes exactly that, and how its operands
 * sit in memory.  One intrinsic is a copy instead (copy set): a tile of
 * a global buffer into a shared one, in 16-byte pieces (cp.async), by the
 * lanes of a warp together (STIR_MMA_FORM_COPY). */
#ifndef STIR_IR_INTRINSICS_H
#define STIR_IR_INTRINSICS_H

#include "ir/nodes.h"

/* One intrinsic. */
typedef struct stir_intrinsic {
	const char *name;          /* as written: tensorize(NAME) */
	int m, n, k;               /* the shape */
	stir_dtype in;             /* A's and B's element type in memory */
	bool tf32;                 /* the inputs are rounded to tf32 */
	const char *cuda;          /* the prefix of its device functions:
	                              CUDA_fill, _load_a, _mma, ... */
	const char *doc;           /* what it is, for messages and docs */
	bool copy;                 /* a copy (STIR_MMA_FORM_COPY): m, n, k,
	                              in and tf32 unused */
	/* 0, or the bytes to which an API with an opaque fragment layout
	 * (nvcuda::wmma: stir_intrinsic_lanes gives none) needs the first
	 * element of each operand's tile in memory aligned; its rows must
	 * then be a multiple of 16 bytes apart, its operands (and C where
	 * the accumulator is not a fragment) global, and its nests take no
	 * row guard, no gathered operand or rows and no atomic store, which
	 * place elements one by one */
	int align;
} stir_intrinsic;

/* x (an f32 value) rounded to tf32 as cvt.rna.tf32.f32 does: to nearest,
 * ties away from zero, 10 mantissa bits kept. */
double stir_round_tf32(double x);

/* The intrinsics, in a fixed order. */
int stir_intrinsic_count(void);
const stir_intrinsic *stir_intrinsic_at(int i);
/* The intrinsic called "name", or NULL. */
const stir_intrinsic *stir_intrinsic_find(const char *name);
/* "a, b, c": the names of all, for messages. */
const char *stir_intrinsic_names(void);

/* One operand of a matched nest: element (r, c) of the tile is
 * buf[base + r * ld + c], or buf[base + c * ld + r] when transposed (the
 * tile variables at 0 in base). */
typedef struct stir_mma_operand {
	const stir_buffer *buf;
	const stir_expr *index;    /* the access's index (borrowed) */
	int64_t ld;                /* the leading dimension, a literal */
	bool transposed;
	/* gathered: the index is not affine in the tile's row variable (B's
	 * rows picked by a load, B[J[.. + k] * ld + n]) but has stride 1
	 * along its column: each lane loads its elements one by one (ld,
	 * transposed unused) */
	bool gather;
	/* A's row scale (NULL: none): the load S[..] of a product S[..] *
	 * A[..] whose index moves with neither K nor N (an edge's weight
	 * times its gathered row), each element of A multiplied by it as it
	 * is loaded (borrowed; tf32 only) */
	const stir_expr *scale;
} stir_mma_operand;

/* Which elements of an operand's tile one lane of a warp holds (the PTX
 * ISA's fragment layouts, as codegen/mma_prelude.c reads them): element
 * stir_e in [0, n) of lane stir_l is at row ROW and column COL of the
 * tile, C expressions of stir_l (unsigned) and stir_e (int) (for A: row m, column k; for B: row k, column n;
 * for the accumulator: row m, column n); "pack" consecutive elements make
 * one 32-bit register (1 for tf32, 2 for 16-bit types); element
 * stir_e + "next" is the one right of stir_e in the same row (0: a lane
 * holds no such pairs), which the emitter moves as one 8-byte access.
 * The emitter loads an operand element by element with it where the nest
 * gathers or guards it (stir_mma_match's gather and guard). */
typedef struct stir_mma_lanes {
	int n, pack;
	const char *row, *col;
	int next;
} stir_mma_lanes;

/* in, what: the lane layout of operand "what" ('a', 'b', or 'c' for the
 * accumulator) of mma intrinsic in; NULL for a copy and for an intrinsic
 * whose layout is opaque (stir_intrinsic's align). */
const stir_mma_lanes *stir_intrinsic_lanes(const stir_intrinsic *in,
	char what);

/* The forms of a tensorized nest. */
typedef enum stir_mma_form {
	/* three loops: C[..] += f32(A[..]) * f32(B[..]) */
	STIR_MMA_FORM_MMA,
	/* two loops over M x N: F[..] = a literal (F a fragment buffer) */
	STIR_MMA_FORM_FILL,
	/* two loops over M x N: C[..] = F[..] or C[..] += F[..] (F a
	 * fragment buffer; the add atomic in an atomic block) */
	STIR_MMA_FORM_STORE,
	/* one to four loops: S[..] = X[..], S shared, X global (a copy
	 * intrinsic): c is S, a is X */
	STIR_MMA_FORM_COPY,
} stir_mma_form;

/* What a tensorized nest computes, as matched. */
typedef struct stir_mma_match {
	stir_mma_form form;
	const stir_intrinsic *in;
	/* the accumulator's buffer when it is a fragment: a local f32 buffer
	 * of M * N elements that the nest indexes as [m * N + n] (a cache of
	 * C of scope local, cache_write), or of T such tiles side by side,
	 * M * (T * N) elements indexed [m * T * N + base + n] with base a
	 * multiple of N (the tile is base / N), or one after another,
	 * indexed [base + m * N + n] with base a multiple of M * N (the tile
	 * is base / (M * N)); it lives in the warp's fragment registers (T
	 * fragments), and only tensorized nests may touch it; else NULL */
	const stir_buffer *frag;
	const stir_expr *frag_index; /* the nest's index of frag (borrowed) */
	int frag_tiles;            /* T: frag's extent / (M * N) */
	int frag_stride;           /* N (side by side) or M * N (one after
	                              another): the tile is base / stride */
	double fill;               /* STIR_MMA_FORM_FILL: the value */
	bool add, atomic;          /* STIR_MMA_FORM_STORE: C[..] += F[..],
	                              atomically (an atomic block) */
	const stir_stmt *loops[4]; /* the nest's loops, outermost first */
	const stir_var *mv, *nv, *kv; /* the loop variables of m, n, k */
	const stir_stmt *block;    /* the block of the store, or NULL */
	const stir_stmt *store;    /* C[..] += f32(A[..]) * f32(B[..]) */
	stir_mma_operand a, b, c;
	/* STIR_MMA_FORM_COPY: the nest's loops (n_loops of loops[]), their
	 * extents and their coefficients in S's index (c) and X's (a); the
	 * innermost has 1 in both, and its extent and every other
	 * coefficient are multiples of vec, the elements of 16 bytes */
	int n_loops;
	int64_t ext[4], dst_coef[4], src_coef[4];
	int vec;
	/* STIR_MMA_FORM_MMA into a fragment, STIR_MMA_FORM_STORE: the
	 * condition of "if (GUARD) store", an if without else around the
	 * nest's store (inside its block or around it), or NULL.  It uses the
	 * M loop (a row guard: a window of rows past the matrix's end, a
	 * split's tail over the rows), no N or K loop, and reads nothing the
	 * nest writes: the warp then runs the intrinsic on the rows it lets
	 * through, A's other rows read as 0 and their accumulator rows kept,
	 * and stores only those rows (codegen/cuda_mma.c).  A fill or a copy
	 * takes none */
	const stir_expr *guard;
	/* STIR_MMA_FORM_STORE: C's rows are gathered: its index is g(m) + n,
	 * affine in n with stride 1 and not affine in m (a row picked by a
	 * load, Y[rows[i] * ld + n]); c.ld is then 0 and each element is
	 * placed on its own.  Only an atomic add stores gathered rows (two
	 * rows may be one) */
	bool c_rows;
	/* STIR_MMA_FORM_STORE: C's index is one load of a buffer declared
	 * distinct, S[Dst[d]], with d of literal strides along M and N that
	 * keep the tile's elements apart (a tile's slots written straight
	 * into a matrix's order); c.ld is then 0 and each element is placed
	 * on its own, assigned or added (no two elements meet) */
	bool c_scatter;
} stir_mma_match;

/* m: whether match m stores its accumulator element by element (a row
 * guard, gathered rows of C, or C through a distinct map). */
bool stir_mma_elem_store(const stir_mma_match *m);

/* s, m: whether statement s is a loop tensorized with a copy intrinsic
 * (cp_async_16) whose nest matches (STIR_MMA_FORM_COPY, into *m when m is
 * not NULL). */
bool stir_is_copy_nest(const stir_stmt *s, stir_mma_match *m);
/* s: the copy nest (stir_is_copy_nest) that statement s is, or holds as
 * the one statement of an if without else (a split's tail guard that
 * tensorize moved out of the nest), or of loops one inside another,
 * each serial or bound to threadIdx.y or z (the copy split over the
 * warps of a thread block); else NULL. */
const stir_stmt *stir_pipeline_copy(const stir_stmt *s);
/* l: the number of statements that open the body of loop l and are copy
 * nests, guarded or not (stir_pipeline_copy): the copies a software
 * pipeline issues ahead (docs/ir.md, "Pipelined loops"). */
int stir_pipeline_copies(const stir_stmt *l);

/* block, x, v: whether index x of a tensorized nest uses v, itself or
 * through a variable of the nest's block (NULL: none) bound to an
 * expression of v. */
bool stir_mma_index_uses(const stir_stmt *block, const stir_expr *x,
	const stir_var *v);

/* Whether the nest headed by loop "l" computes exactly intrinsic "in"
 * (stir_mma_form): three perfectly nested serial (or the head tensorized)
 * loops of literal extents M, N, K in some order, around one store (in a
 * block or not) C[c] += f32(A[a]) * f32(B[b]) of the intrinsic's types,
 * each index affine in the tile variables with unit stride along one of
 * them and a literal leading dimension along the other; or two loops of
 * extents M and N filling a fragment buffer with a literal or storing it
 * into C; or, for a copy intrinsic, one to four such loops around
 * S[s] = X[x] (STIR_MMA_FORM_COPY) with S a shared buffer whose index
 * at the tile's first element is a multiple of 16 bytes, X a global one
 * of the same element type (of 1, 2, 4, 8 or 16 bytes), the innermost
 * loop of stride 1 in both.  The products and the store may be under a
 * row guard, and the store's C over gathered rows (stir_mma_match's
 * guard and c_rows), or through a distinct map (c_scatter).  On a
 * mismatch, false, with what does not match in why (a sentence fragment,
 * "loop 'f_1' has extent 16, the intrinsic needs N = 8") and its location
 * in *where. */
bool stir_tensorize_match(const stir_stmt *l, const stir_intrinsic *in,
	stir_mma_match *m, char *why, size_t why_size, stir_loc *where);

/* Whether the index of operand op of match m, at the tile's first element
 * (the tile variables at 0), is a multiple of unit whatever the other
 * variables and loaded values are: every other term's coefficient and the
 * constant multiples of unit (block variables read as their bindings). */
bool stir_mma_operand_aligned(const stir_mma_match *m,
	const stir_mma_operand *op, int64_t unit);


/* m, a: *a = the accumulator fragment's index m->frag_index as an affine
 * form of loop variables (the nest's block variables read as their
 * bindings); false when m has no fragment or the index is no such form.
 * A fragment buffer split over the warps of a loop bound to threadIdx.y
 * or z (docs/schedules.md, "Accumulators split over warps") is indexed
 * [P * N * K + ..] with P that loop's variable: each warp keeps the K
 * tiles of its own P. */
struct stir_affine;
bool stir_mma_frag_form(const stir_mma_match *m, struct stir_affine *a);
/* v, user: a variable of the block "user" (a stir_stmt, or NULL) reads as
 * its binding, else NULL: the expand of the affine reads of a nest's
 * indices (ir/affine.h). */
const stir_expr *stir_mma_block_binding(const stir_var *v, const void *user);

#endif
