/* Tensor-core intrinsics as data, and the matching of a loop nest against
 * one (ir/intrinsics.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "ir/affine.h"
#include "ir/intrinsics.h"
#include "ir/visit.h"

static const stir_intrinsic intrinsics[] = {
	{ "mma_m16n8k16_f16", 16, 8, 16, STIR_F16, false,
	  "stir_mma_m16n8k16_f16",
	  "mma.sync m16n8k16, f16 inputs, f32 accumulation", false, 0 },
	{ "mma_m16n8k16_bf16", 16, 8, 16, STIR_BF16, false,
	  "stir_mma_m16n8k16_bf16",
	  "mma.sync m16n8k16, bf16 inputs, f32 accumulation", false, 0 },
	{ "mma_m16n8k8_tf32", 16, 8, 8, STIR_F32, true,
	  "stir_mma_m16n8k8_tf32",
	  "mma.sync m16n8k8, f32 inputs rounded to tf32, f32 accumulation",
	  false, 0 },
	{ "mma_m16n8k8_3xtf32", 16, 8, 8, STIR_F32, false,
	  "stir_mma_m16n8k8_3xtf32",
	  "three mma.sync m16n8k8 on tf32 (3xTF32: each f32 input split into "
	  "a tf32 big and small part, big * big + big * small + small * big), "
	  "f32 accumulation, about f32's error", false, 0 },
	{ "wmma_m16n16k16_f16", 16, 16, 16, STIR_F16, false,
	  "stir_wmma_m16n16k16_f16",
	  "nvcuda::wmma m16n16k16, f16 inputs, f32 accumulation", false, 32 },
	{ "cp_async_16", 0, 0, 0, STIR_F32, false, "stir_cp_async_16",
	  "cp.async: a tile copied from global into shared memory in 16-byte "
	  "pieces by the lanes of a warp", true, 0 },
};
#define N_INTRINSICS (int)(sizeof(intrinsics) / sizeof(intrinsics[0]))

/* x: see intrinsics.h. */
double stir_round_tf32(double x)
{
	float f = (float)x;
	uint32_t u;
	memcpy(&u, &f, 4);
	if ((u & 0x7f800000u) != 0x7f800000u)
		u = (u + 0x1000u) & 0xffffe000u;
	memcpy(&f, &u, 4);
	return f;
}

/* The lane layouts of the m16n8 shapes (stir_intrinsic_lanes): A and B
 * of K = 8 (tf32) and of K = 16 (16-bit, two a register), and the f32
 * accumulator of both, for element stir_e of lane stir_l; g = stir_l >> 2,
 * t = stir_l & 3 as in codegen/mma_prelude.c. */
/* tf32 (k8): the PTX ISA puts column (A) and row (B) t + 4j of the tile
 * in register j of lane t; stir loads the tile's column (row) 2t + j
 * there instead, in A and in B alike, so that the mma's sum runs over the
 * same 8 products (in another order) and a lane's two A elements of a
 * row are neighbours in memory (one float2 load, codegen/cuda_mma.c). */
static const stir_mma_lanes lanes_a_k8 = { 4, 1,
	"(int)(stir_l >> 2) + 8 * (stir_e & 1)", "2 * (int)(stir_l & 3) + (stir_e >> 1)",
	2 };
static const stir_mma_lanes lanes_b_k8 = { 2, 1,
	"2 * (int)(stir_l & 3) + stir_e", "(int)(stir_l >> 2)", 0 };
static const stir_mma_lanes lanes_a_k16 = { 8, 2,
	"(int)(stir_l >> 2) + 8 * ((stir_e >> 1) & 1)",
	"2 * (int)(stir_l & 3) + 8 * (stir_e >> 2) + (stir_e & 1)", 1 };
static const stir_mma_lanes lanes_b_k16 = { 4, 2,
	"2 * (int)(stir_l & 3) + 8 * (stir_e >> 1) + (stir_e & 1)", "(int)(stir_l >> 2)",
	0 };
static const stir_mma_lanes lanes_acc = { 4, 1,
	"(int)(stir_l >> 2) + 8 * (stir_e >> 1)", "2 * (int)(stir_l & 3) + (stir_e & 1)",
	1 };

/* in, what: see intrinsics.h. */
const stir_mma_lanes *stir_intrinsic_lanes(const stir_intrinsic *in,
	char what)
{
	if (!in || in->copy || in->align || in->m != 16 || in->n != 8)
		return NULL;
	if (what == 'c')
		return &lanes_acc;
	if (in->k == 8)
		return what == 'a' ? &lanes_a_k8 : &lanes_b_k8;
	if (in->k == 16)
		return what == 'a' ? &lanes_a_k16 : &lanes_b_k16;
	return NULL;
}

/* The count of intrinsics. */
int stir_intrinsic_count(void)
{
	return N_INTRINSICS;
}

/* i: the intrinsic's index. */
const stir_intrinsic *stir_intrinsic_at(int i)
{
	return i >= 0 && i < N_INTRINSICS ? &intrinsics[i] : NULL;
}

/* name: the intrinsic's name. */
const stir_intrinsic *stir_intrinsic_find(const char *name)
{
	for (int i = 0; name && i < N_INTRINSICS; i++)
		if (!strcmp(intrinsics[i].name, name))
			return &intrinsics[i];
	return NULL;
}

/* The names, comma-separated (the table's rows, in order). */
const char *stir_intrinsic_names(void)
{
	return "mma_m16n8k16_f16, mma_m16n8k16_bf16, mma_m16n8k8_tf32, "
		"mma_m16n8k8_3xtf32, wmma_m16n16k16_f16, cp_async_16";
}

/* What a match works with. */
typedef struct matcher {
	const stir_stmt *block;    /* the block around the store, or NULL */
	char *why;
	size_t why_size;
	stir_loc *where;
	bool failed;
	bool allow_guard;          /* nest may take "if (c) store" */
	const stir_expr *guard;    /* the condition it took, or NULL */
} matcher;

/* m, loc, fmt: record the first mismatch. */
static bool mismatch(matcher *m, stir_loc loc, const char *fmt, ...)
	STIR_PRINTF(3, 4);
static bool mismatch(matcher *m, stir_loc loc, const char *fmt, ...)
{
	if (!m->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(m->why, m->why_size, fmt, ap);
		va_end(ap);
		*m->where = loc;
		m->failed = true;
	}
	return false;
}

/* v, user: see intrinsics.h. */
const stir_expr *stir_mma_block_binding(const stir_var *v, const void *user)
{
	const stir_stmt *b = user;
	for (int i = 0; b && i < b->u.block.n_vars; i++)
		if (b->u.block.vars[i] == v)
			return b->u.block.bindings[i];
	return NULL;
}

/* m, x, v, c: *c = the coefficient of tile variable v in index x. */
static bool coef(matcher *m, const stir_expr *x, const stir_var *v,
	int64_t *c)
{
	stir_affine_opts o = { .flags = STIR_AFFINE_NEG |
		STIR_AFFINE_WIDENING_CASTS | STIR_AFFINE_OPAQUE,
		.expand = stir_mma_block_binding, .user = m->block };
	if (stir_affine_coef_of(x, v, &o, c))
		return true;
	return mismatch(m, x->loc, "the index is not an affine function of "
		"loop '%s' with a literal coefficient", v->name);
}

/* x: x without a conversion to f32 around it (the intrinsics convert
 * their inputs). */
static const stir_expr *strip_f32(const stir_expr *x)
{
	return x->kind == STIR_EXPR_CAST && x->dtype == STIR_F32 ? x->u.cast.a : x;
}

/* block, x, v: see intrinsics.h. */
bool stir_mma_index_uses(const stir_stmt *block, const stir_expr *x,
	const stir_var *v)
{
	if (stir_expr_uses(x, v))
		return true;
	for (int i = 0; block && i < block->u.block.n_vars; i++)
		if (stir_expr_uses(x, block->u.block.vars[i]) &&
		    stir_expr_uses(block->u.block.bindings[i], v))
			return true;
	return false;
}

/* m, x, v: whether x uses v, a block variable of the store's block
 * reading as its binding. */
static bool uses(const matcher *m, const stir_expr *x, const stir_var *v)
{
	return stir_mma_index_uses(m->block, x, v);
}

/* m, idx, row, col, other: whether operand index idx gathers its rows:
 * an affine sum, with loads as opaque terms, whose one term that uses
 * tile variable row is a load (of an index array: B[J[.. + k] * ld + n]),
 * with stride 1 along col and not using other. */
static bool gathered(const matcher *m, const stir_expr *idx,
	const stir_var *row, const stir_var *col, const stir_var *other)
{
	stir_affine a = { 0 };
	stir_affine_opts o = { .flags = STIR_AFFINE_NEG |
		STIR_AFFINE_WIDENING_CASTS | STIR_AFFINE_OPAQUE, .wrt = col,
		.expand = stir_mma_block_binding, .user = m->block };
	if (!stir_affine_add(&a, idx, 1, &o) || stir_affine_coef(&a, col) != 1 ||
	    uses(m, idx, other))
		return false;
	int loads = 0;
	for (int i = 0; i < a.n; i++) {
		if (a.t[i].var == row)
			return false;
		if (a.t[i].atom && uses(m, a.t[i].atom, row)) {
			if (!stir_expr_reads_data(a.t[i].atom))
				return false;
			loads++;
		}
	}
	return loads == 1;
}

/* m, in, what, x, row, col, other, op: operand "what" (A or B), the load
 * x, with tile variables row and col, and "other" not in it, into *op. */
static bool operand(matcher *m, const stir_intrinsic *in, const char *what,
	const stir_expr *x, const stir_var *row, const stir_var *col,
	const stir_var *other, stir_mma_operand *op)
{
	if (x->kind != STIR_EXPR_LOAD || x->u.load.n != 1)
		return mismatch(m, x->loc, "%s must be a load of a flat buffer",
			what);
	const stir_buffer *buf = x->u.load.buf;
	if (buf->dtype != in->in)
		return mismatch(m, x->loc, "%s '%s' holds %s; %s takes %s", what,
			buf->name, stir_dtype_get_name(buf->dtype), in->name,
			stir_dtype_get_name(in->in));
	const stir_expr *idx = x->u.load.idx[0];
	int64_t cr, cc, co;
	op->buf = buf;
	op->index = idx;
	if (gathered(m, idx, row, col, other)) {
		op->gather = true;
		return true;
	}
	if (!coef(m, idx, row, &cr) || !coef(m, idx, col, &cc) ||
	    !coef(m, idx, other, &co))
		return false;
	if (co != 0)
		return mismatch(m, idx->loc, "%s's index depends on loop '%s'",
			what, other->name);
	if (cc == 1 && cr > 1) {
		op->ld = cr;
		op->transposed = false;
	} else if (cr == 1 && cc > 1) {
		op->ld = cc;
		op->transposed = true;
	} else {
		return mismatch(m, idx->loc, "%s's index has strides %lld along "
			"'%s' and %lld along '%s': one must be 1 and the other the "
			"literal distance between rows", what, (long long)cr, row->name,
			(long long)cc, col->name);
	}
	return true;
}

/* m, x, vars, nv, unit: whether index x is a sum c_i * vars[i] of the nv
 * tile variables with nothing else (a fragment buffer's index), or, when
 * unit > 1, plus other terms of coefficients (and a constant) that are
 * multiples of unit (the first element of one of several tiles). */
static bool tile_only(matcher *m, const stir_expr *x, const stir_var *const *vars,
	int nv, int64_t unit)
{
	stir_affine a = { 0 };
	stir_affine_opts o = { .flags = STIR_AFFINE_NEG |
		STIR_AFFINE_WIDENING_CASTS, .expand = stir_mma_block_binding,
		.user = m->block };
	if (!stir_affine_add(&a, x, 1, &o) || a.konst % unit != 0 ||
	    (unit == 1 && a.konst != 0))
		return false;
	for (int i = 0; i < a.n; i++) {
		bool tile = false;
		for (int j = 0; j < nv; j++)
			tile |= a.t[i].var == vars[j];
		if (!tile && a.t[i].coef % unit != 0)
			return false;
		if (!tile && unit == 1 && a.t[i].coef != 0)
			return false;
	}
	return true;
}

/* m, in, mm, buf, idx, vars, nv, mv, nvv: whether buf (indexed by idx)
 * is a fragment buffer of intrinsic "in" for tile variables mv (rows) and
 * nvv (columns): local, f32, M * N elements indexed [m * N + n], or
 * M * T * N elements indexed [m * T * N + base + n] (T tiles side by
 * side, base a multiple of N) or [base + m * N + n] (T tiles one after
 * another, base a multiple of M * N); then mm->frag and the rest are
 * set. */
static bool is_frag(matcher *m, const stir_intrinsic *in, stir_mma_match *mm,
	const stir_buffer *buf, const stir_expr *idx, const stir_var *const *vars,
	int nv, const stir_var *mv, const stir_var *nvv)
{
	int64_t cm, cn, ext, mn = (int64_t)in->m * in->n;
	if (buf->scope != STIR_SCOPE_LOCAL)
		return false;
	if (buf->dtype != STIR_F32 || !buf->extent ||
	    buf->extent->kind != STIR_EXPR_INT ||
	    (ext = buf->extent->u.i) < mn || ext % mn != 0)
		return mismatch(m, idx->loc, "the local buffer '%s' of the "
			"accumulator must hold %d x %d f32 elements (or a multiple: "
			"tiles side by side), as %s's fragment", buf->name, in->m,
			in->n, in->name);
	if (!coef(m, idx, mv, &cm) || !coef(m, idx, nvv, &cn))
		return false;
	int64_t t = ext / mn;
	bool side_by_side = cm == in->n * t && cn == 1 &&
		tile_only(m, idx, vars, nv, t > 1 ? in->n : 1);
	bool one_after_another = t > 1 && cm == in->n && cn == 1 &&
		tile_only(m, idx, vars, nv, mn);
	if (!side_by_side && !one_after_another)
		return mismatch(m, idx->loc, "the local buffer '%s' of the "
			"accumulator must be indexed [%s * %lld + %s]%s, as %s's "
			"fragment%s", buf->name, mv->name, (long long)(in->n * t),
			nvv->name, t > 1 ? " plus a multiple of the tile width" : "",
			in->name, t > 1 ? "s side by side (or [m * N + n] plus a "
			"multiple of M * N: one after another)" : "");
	mm->frag = buf;
	mm->frag_index = idx;
	mm->frag_tiles = (int)t;
	mm->frag_stride = side_by_side ? in->n : (int)mn;
	return true;
}

/* m, s: s without the if (no else, one statement) around it when the
 * nest may take a guard (m->allow_guard) and none was seen yet (then
 * m->guard is its condition). */
static const stir_stmt *unguard(matcher *m, const stir_stmt *s)
{
	if (!m->allow_guard || m->guard || s->kind != STIR_STMT_IF ||
	    s->u.if_.else_body.n || s->u.if_.then_body.n != 1)
		return s;
	m->guard = s->u.if_.cond;
	return stir_stmt_at(&s->u.if_.then_body, 0);
}

/* m, l, loops, n, allow, body: n perfectly nested loops headed by l (the
 * inner ones plain) around one statement, in *body (a block's, when the
 * innermost loop holds a block: then m->block is set, and it may carry
 * no annotation but those of "allow"); with m->allow_guard, one if
 * around the block or inside it (m->guard, checked by check_guard). */
static bool nest(matcher *m, const stir_stmt *l, const stir_stmt **loops,
	int n, unsigned allow, const stir_stmt **body)
{
	const stir_stmt *s = l;
	for (int d = 0; d < n; d++) {
		if (s->kind != STIR_STMT_FOR)
			return mismatch(m, s->loc, "the nest must be %d perfectly "
				"nested loops around one store; found %s inside loop '%s'",
				n, s->kind == STIR_STMT_IF ? "a condition (a split that "
				"does not divide: specialize the size first?)" : "another "
				"statement", loops[d - 1]->u.for_.var->name);
		if (d > 0 && s->u.for_.kind != STIR_LOOP_SERIAL)
			return mismatch(m, s->loc, "loop '%s' inside the nest is "
				"annotated; the nest's inner loops must be plain",
				s->u.for_.var->name);
		loops[d] = s;
		if (s->u.for_.body.n != 1)
			return mismatch(m, s->loc, "loop '%s' holds %d statements; "
				"the nest must be %d perfectly nested loops around one "
				"store", s->u.for_.var->name, s->u.for_.body.n, n);
		s = stir_stmt_at(&s->u.for_.body, 0);
	}
	s = unguard(m, s);
	if (s->kind == STIR_STMT_FOR)
		return mismatch(m, s->loc, "the nest has more than %d loops: loop "
			"'%s' inside loop '%s'", n, s->u.for_.var->name,
			loops[n - 1]->u.for_.var->name);
	if (s->kind == STIR_STMT_BLOCK) {
		m->block = s;
		if (s->u.block.flags & ~allow)
			return mismatch(m, s->loc, "block '%s' is annotated; a "
				"tensorized block must be plain", s->u.block.name);
		if (s->u.block.body.n != 1)
			return mismatch(m, s->loc, "block '%s' holds %d statements; "
				"it must hold one store", s->u.block.name,
				s->u.block.body.n);
		s = unguard(m, stir_stmt_at(&s->u.block.body, 0));
	}
	if (s->kind != STIR_STMT_STORE || s->u.store.n != 1)
		return mismatch(m, s->loc, "the nest must end in one store to a "
			"flat buffer");
	*body = s;
	return true;
}

/* m, mm: whether the guard of the matched nest mm, if any (the if that
 * nest() found around the store, stir_mma_match's guard), is a row guard
 * the form takes: it uses the M loop (a store's may use none of the
 * nest's loops: the guard of one of several tiles, same for all its
 * elements), neither the N nor the K loop, and reads nothing the nest
 * writes (the emitter evaluates it per element of a lane's fragment,
 * codegen/cuda_mma.c); a fill takes none, and products
 * take one only into a local accumulator (the rows it stops read A as 0
 * and keep their sums there). */
static bool check_guard(matcher *m, const stir_mma_match *mm)
{
	const stir_expr *g = mm->guard;
	if (!g)
		return true;
	if (mm->form == STIR_MMA_FORM_FILL)
		return mismatch(m, g->loc, "a fill of the accumulator '%s' must "
			"not be guarded", mm->frag->name);
	if (stir_expr_reads(g, mm->store->u.store.buf))
		return mismatch(m, g->loc, "the condition around the store reads "
			"'%s', which the nest writes", mm->store->u.store.buf->name);
	if (uses(m, g, mm->nv) || (mm->kv && uses(m, g, mm->kv)))
		return mismatch(m, g->loc, "the condition around the store "
			"depends on loop '%s'; a tensorized nest may be guarded by its "
			"rows (loop '%s') alone", uses(m, g, mm->nv) ? mm->nv->name :
			mm->kv->name, mm->mv->name);
	if (!uses(m, g, mm->mv) && mm->form != STIR_MMA_FORM_STORE)
		return mismatch(m, g->loc, "the condition around the store does "
			"not depend on the nest's loops: it belongs outside the nest");
	if (mm->form == STIR_MMA_FORM_MMA && !mm->frag)
		return mismatch(m, g->loc, "a guarded product must add into a "
			"local accumulator (cache_write C first): the rows it stops "
			"are computed as zeros there");
	return true;
}

/* m, mm, what, op: operand "what" of nest mm, of an intrinsic with an
 * opaque fragment layout (stir_intrinsic's align): global (A and B may
 * also be shared: the emitter declares the buffer aligned), its rows a
 * multiple of 16 bytes apart, its tile's first element aligned. */
static bool opaque_operand(matcher *m, const stir_mma_match *mm,
	const char *what, const stir_mma_operand *op)
{
	const stir_intrinsic *in = mm->in;
	int64_t size = (int64_t)stir_dtype_get_size(op->buf->dtype);
	if (op->buf->scope != STIR_SCOPE_GLOBAL &&
	    (op == &mm->c || op->buf->scope != STIR_SCOPE_SHARED))
		return mismatch(m, op->index->loc, "%s loads A and B from global "
			"or shared memory and stores C in global memory; %s '%s' is "
			"in neither", in->name, what, op->buf->name);
	if (op->ld * size % 16 != 0)
		return mismatch(m, op->index->loc, "%s's rows are %lld bytes apart; "
			"%s needs a multiple of 16", what, (long long)(op->ld * size),
			in->name);
	if (!stir_mma_operand_aligned(mm, op, in->align / size))
		return mismatch(m, op->index->loc, "the index of %s '%s' at the "
			"tile's first element must be a multiple of %lld (%d bytes): "
			"%s loads aligned tiles", what, op->buf->name,
			(long long)(in->align / size), in->align, in->name);
	return true;
}

/* m, x, kv, nv, scale: x, a product S[..] * A[..] (either order, each
 * maybe converted to f32) whose load S has an f32 buffer and an index
 * that moves with neither loop kv nor nv, as A[..] with *scale = S[..];
 * else x itself with *scale NULL. */
static const stir_expr *unscale(matcher *m, const stir_expr *x,
	const stir_var *kv, const stir_var *nv, const stir_expr **scale)
{
	*scale = NULL;
	if (x->kind != STIR_EXPR_BINARY || x->u.binary.op != STIR_MUL)
		return x;
	const stir_expr *f[2] = { strip_f32(x->u.binary.a),
		strip_f32(x->u.binary.b) };
	for (int i = 0; i < 2; i++) {
		const stir_expr *s = f[i];
		if (s->kind == STIR_EXPR_LOAD && s->u.load.n == 1 &&
		    s->u.load.buf->dtype == STIR_F32 &&
		    !uses(m, s->u.load.idx[0], kv) &&
		    !uses(m, s->u.load.idx[0], nv)) {
			*scale = s;
			return f[1 - i];
		}
	}
	return x;
}

/* m, mm: whether matched nest mm suits its intrinsic when that has an
 * opaque fragment layout (stir_intrinsic's align): nothing placed
 * element by element (no row guard, no gathered operand or rows, no
 * atomic store), every operand in memory as opaque_operand says. */
static bool check_opaque(matcher *m, const stir_mma_match *mm)
{
	const stir_intrinsic *in = mm->in;
	const char *why = NULL;
	stir_loc loc = mm->store->loc;
	if (!in->align)
		return true;
	if (mm->guard) {
		why = "row guard";
		loc = mm->guard->loc;
	} else if (mm->a.scale) {
		why = "row scale of A";
		loc = mm->a.scale->loc;
	} else if (mm->a.gather || mm->b.gather) {
		why = "gathered operand (rows picked by a load)";
		loc = (mm->a.gather ? mm->a : mm->b).index->loc;
	} else if (mm->c_rows || mm->c_scatter) {
		why = mm->c_rows ? "gathered rows of C" : "C through a map";
	} else if (mm->atomic) {
		why = "atomic store";
	}
	if (why)
		return mismatch(m, loc, "the fragment layout of %s is opaque: it "
			"takes no %s, which places elements one by one (an mma.sync "
			"intrinsic does)", in->name, why);
	if (mm->form == STIR_MMA_FORM_MMA &&
	    (!opaque_operand(m, mm, "A", &mm->a) ||
	     !opaque_operand(m, mm, "B", &mm->b)))
		return false;
	if (mm->form == STIR_MMA_FORM_STORE ||
	    (mm->form == STIR_MMA_FORM_MMA && !mm->frag))
		return opaque_operand(m, mm, "C", &mm->c);
	return true;
}

/* m, mm, in, l: a two-loop nest: a fill of a fragment buffer or its
 * store into C. */
static bool match_fill_store(matcher *m, stir_mma_match *mm,
	const stir_intrinsic *in, const stir_stmt *l)
{
	const stir_stmt *s = NULL;
	if (!nest(m, l, mm->loops, 2, STIR_BLOCK_ATOMIC, &s))
		return false;
	mm->block = m->block;
	mm->store = s;
	mm->guard = m->guard;
	const stir_var *vars[2] = { mm->loops[0]->u.for_.var,
		mm->loops[1]->u.for_.var };
	const stir_expr *v = s->u.store.value;
	/* the fragment: the target of a fill, the value of a store */
	const stir_buffer *fb = v->kind == STIR_EXPR_LOAD ? v->u.load.buf :
		s->u.store.buf;
	const stir_expr *fidx = v->kind == STIR_EXPR_LOAD ? v->u.load.idx[0] :
		s->u.store.idx[0];
	if (fb->scope != STIR_SCOPE_LOCAL)
		return mismatch(m, s->loc, "a two-loop tensorized nest fills the "
			"local buffer of an accumulator or stores it; '%s' is not "
			"local", fb->name);
	/* rows and columns: stride 1 along the columns */
	int64_t c0, c1;
	if (!coef(m, fidx, vars[0], &c0) || !coef(m, fidx, vars[1], &c1))
		return false;
	int nd = c1 == 1 ? 1 : 0, md = 1 - nd;
	mm->mv = vars[md];
	mm->nv = vars[nd];
	if (!is_frag(m, in, mm, fb, fidx, vars, 2, mm->mv, mm->nv))
		return false;
	int64_t want[2];
	want[md] = in->m;
	want[nd] = in->n;
	for (int d = 0; d < 2; d++) {
		const stir_expr *ext = mm->loops[d]->u.for_.extent;
		if (ext->kind != STIR_EXPR_INT || ext->u.i != want[d])
			return mismatch(m, mm->loops[d]->loc, "loop '%s' must have the "
				"literal extent %lld for %s's accumulator", vars[d]->name,
				(long long)want[d], in->name);
	}
	if (v->kind != STIR_EXPR_LOAD) {
		if (s->u.store.op != STIR_STORE_ASSIGN || (v->kind !=
		    STIR_EXPR_FLOAT && v->kind != STIR_EXPR_INT))
			return mismatch(m, s->loc, "a fill of the accumulator '%s' "
				"must store one literal", fb->name);
		mm->form = STIR_MMA_FORM_FILL;
		mm->fill = v->kind == STIR_EXPR_FLOAT ? v->u.f : (double)v->u.i;
		return true;
	}
	/* C[c] = F[..] or C[c] += F[..] (atomic in an atomic block): C
	 * row-major with a literal row distance */
	if (s->u.store.op != STIR_STORE_ASSIGN && s->u.store.op != STIR_STORE_ADD)
		return mismatch(m, s->loc, "the store of the accumulator '%s' must "
			"assign (=) or add (+=)", fb->name);
	mm->add = s->u.store.op == STIR_STORE_ADD;
	mm->atomic = mm->add && m->block &&
		(m->block->u.block.flags & STIR_BLOCK_ATOMIC);
	const stir_expr *cidx = s->u.store.idx[0];
	int64_t cm, cn;
	if (s->u.store.buf->dtype != STIR_F32)
		return mismatch(m, s->loc, "C '%s' holds %s; the accumulator is "
			"f32", s->u.store.buf->name,
			stir_dtype_get_name(s->u.store.buf->dtype));
	/* C through a distinct map, S[Dst[..]]: the tile's elements at
	 * distinct places of the map (its index of literal strides along
	 * the rows and the columns, rows at least N columns apart), which
	 * the map's distinct entries take to distinct places of C */
	if (cidx->kind == STIR_EXPR_LOAD && cidx->u.load.buf->distinct &&
	    cidx->u.load.n == 1) {
		const stir_expr *di = cidx->u.load.idx[0];
		if (!coef(m, di, mm->mv, &cm) || !coef(m, di, mm->nv, &cn))
			return false;
		if (cn == 0 || llabs(cm) < in->n * llabs(cn))
			return mismatch(m, di->loc, "the index into the distinct map "
				"'%s' must take the tile's elements to distinct entries: "
				"a stride along '%s' at least %d times the one along '%s'",
				cidx->u.load.buf->name, mm->mv->name, in->n, mm->nv->name);
		mm->c_scatter = true;
		mm->form = STIR_MMA_FORM_STORE;
		mm->c = (stir_mma_operand){ s->u.store.buf, cidx, 0, false, false,
			NULL };
		return true;
	}
	/* gathered rows: C's index not affine in the rows' loop */
	stir_affine_opts o = { .flags = STIR_AFFINE_NEG |
		STIR_AFFINE_WIDENING_CASTS | STIR_AFFINE_OPAQUE,
		.expand = stir_mma_block_binding, .user = m->block };
	mm->c_rows = !stir_affine_coef_of(cidx, mm->mv, &o, &cm);
	if (mm->c_rows) {
		cm = 0;
		if (!coef(m, cidx, mm->nv, &cn))
			return false;
		if (cn != 1)
			return mismatch(m, cidx->loc, "C's index must have stride 1 "
				"along '%s'", mm->nv->name);
		if (!mm->atomic)
			return mismatch(m, cidx->loc, "C's index is not affine in loop "
				"'%s' (gathered rows): only an atomic add (in an atomic "
				"block) stores gathered rows, since two may be one",
				mm->mv->name);
	} else if (!coef(m, cidx, mm->nv, &cn)) {
		return false;
	} else if (cn != 1 || cm < in->n)
		return mismatch(m, cidx->loc, "C's index must have stride 1 along "
			"'%s' and a literal row distance of at least %d along '%s'",
			mm->nv->name, in->n, mm->mv->name);
	mm->form = STIR_MMA_FORM_STORE;
	mm->c = (stir_mma_operand){ s->u.store.buf, cidx, cm, false, false, NULL };
	return true;
}

/* m, mm, in, l: a copy: one to four loops around S[s] = X[x]. */
static bool match_copy(matcher *m, stir_mma_match *mm,
	const stir_intrinsic *in, const stir_stmt *l)
{
	const stir_stmt *s = NULL;
	int n = 1;
	for (const stir_stmt *t = l; n < 4 && t->kind == STIR_STMT_FOR &&
	     t->u.for_.body.n == 1; n++) {
		t = stir_stmt_at(&t->u.for_.body, 0);
		if (t->kind != STIR_STMT_FOR)
			break;
	}
	if (!nest(m, l, mm->loops, n, 0, &s))
		return false;
	mm->form = STIR_MMA_FORM_COPY;
	mm->block = m->block;
	mm->store = s;
	mm->n_loops = n;
	const stir_buffer *dst = s->u.store.buf;
	const stir_expr *v = s->u.store.value;
	if (s->u.store.op != STIR_STORE_ASSIGN || v->kind != STIR_EXPR_LOAD ||
	    v->u.load.n != 1)
		return mismatch(m, s->loc, "%s copies: the store must assign a "
			"load of a flat buffer (S[..] = X[..])", in->name);
	const stir_buffer *src = v->u.load.buf;
	size_t size = stir_dtype_get_size(dst->dtype);
	if (dst->scope != STIR_SCOPE_SHARED)
		return mismatch(m, s->loc, "%s copies into shared memory; '%s' is "
			"not shared", in->name, dst->name);
	if (src->scope != STIR_SCOPE_GLOBAL)
		return mismatch(m, v->loc, "%s copies from global memory; '%s' is "
			"not global", in->name, src->name);
	if (src->dtype != dst->dtype || size == 0 || 16 % size != 0)
		return mismatch(m, s->loc, "%s copies elements of 1, 2, 4, 8 or 16 "
			"bytes between buffers of one type; '%s' holds %s and '%s' %s",
			in->name, dst->name, stir_dtype_get_name(dst->dtype), src->name,
			stir_dtype_get_name(src->dtype));
	mm->vec = (int)(16 / size);
	mm->c = (stir_mma_operand){ dst, s->u.store.idx[0], 0, false, false, NULL };
	mm->a = (stir_mma_operand){ src, v->u.load.idx[0], 0, false, false, NULL };
	for (int d = 0; d < n; d++) {
		const stir_expr *ext = mm->loops[d]->u.for_.extent;
		const stir_var *lv = mm->loops[d]->u.for_.var;
		if (ext->kind != STIR_EXPR_INT || ext->u.i < 1)
			return mismatch(m, mm->loops[d]->loc, "loop '%s' must have a "
				"positive literal extent", lv->name);
		mm->ext[d] = ext->u.i;
		if (!coef(m, mm->c.index, lv, &mm->dst_coef[d]) ||
		    !coef(m, mm->a.index, lv, &mm->src_coef[d]))
			return false;
	}
	if (mm->dst_coef[n - 1] != 1 || mm->src_coef[n - 1] != 1)
		return mismatch(m, mm->loops[n - 1]->loc, "the innermost loop '%s' "
			"must have stride 1 in both indices",
			mm->loops[n - 1]->u.for_.var->name);
	for (int d = 0; d < n; d++) {
		const stir_var *lv = mm->loops[d]->u.for_.var;
		bool inner = d == n - 1;
		if (inner ? mm->ext[d] % mm->vec != 0 :
		    mm->dst_coef[d] % mm->vec != 0 || mm->src_coef[d] % mm->vec != 0)
			return mismatch(m, mm->loops[d]->loc, "loop '%s' %s: the copy "
				"moves pieces of 16 bytes (%d elements)", lv->name, inner ?
				"must have an extent that is a multiple of 16 bytes" :
				"must have strides that are multiples of 16 bytes",
				mm->vec);
	}
	if (!stir_mma_operand_aligned(mm, &mm->c, mm->vec))
		return mismatch(m, mm->c.index->loc, "the index of '%s' at the "
			"tile's first element must be a multiple of %d (16 bytes)",
			dst->name, mm->vec);
	return true;
}

/* l, in, mm, why, why_size, where: see intrinsics.h. */
bool stir_tensorize_match(const stir_stmt *l, const stir_intrinsic *in,
	stir_mma_match *mm, char *why, size_t why_size, stir_loc *where)
{
	matcher m = { .why = why, .why_size = why_size, .where = where,
		.allow_guard = !in->copy };
	memset(mm, 0, sizeof(*mm));
	mm->in = in;
	if (in->copy)
		return match_copy(&m, mm, in, l);
	/* two loops around a store into a local buffer or of one: a fill or
	 * a store of the accumulator */
	const stir_stmt *inner = l->kind == STIR_STMT_FOR &&
		l->u.for_.body.n == 1 ? stir_stmt_at(&l->u.for_.body, 0) : NULL;
	const stir_stmt *st = inner && inner->kind == STIR_STMT_FOR &&
		inner->u.for_.body.n == 1 ? stir_stmt_at(&inner->u.for_.body, 0) :
		NULL;
	/* (past a row guard around the block or inside it) */
	matcher peek = { .allow_guard = true };
	if (st)
		st = unguard(&peek, st);
	if (st && st->kind == STIR_STMT_BLOCK && st->u.block.body.n == 1)
		st = unguard(&peek, stir_stmt_at(&st->u.block.body, 0));
	if (st && st->kind == STIR_STMT_STORE &&
	    (st->u.store.buf->scope == STIR_SCOPE_LOCAL ||
	     (st->u.store.value->kind == STIR_EXPR_LOAD &&
	      st->u.store.value->u.load.buf->scope == STIR_SCOPE_LOCAL)))
		return match_fill_store(&m, mm, in, l) && check_opaque(&m, mm) &&
			check_guard(&m, mm);
	mm->form = STIR_MMA_FORM_MMA;
	const stir_stmt *s = NULL;
	if (!nest(&m, l, mm->loops, 3, STIR_BLOCK_ATOMIC, &s))
		return false;
	mm->guard = m.guard;
	mm->block = m.block;
	mm->store = s;
	if (s->u.store.op != STIR_STORE_ADD)
		return mismatch(&m, s->loc, "the store must add into C (+=)");
	if (s->u.store.buf->dtype != STIR_F32)
		return mismatch(&m, s->loc, "C '%s' holds %s; the intrinsics "
			"accumulate in f32", s->u.store.buf->name,
			stir_dtype_get_name(s->u.store.buf->dtype));
	const stir_expr *v = s->u.store.value;
	if (v->kind != STIR_EXPR_BINARY || v->u.binary.op != STIR_MUL)
		return mismatch(&m, v->loc, "the value added must be a product "
			"f32(A[..]) * f32(B[..])");
	/* the roles of the loops: m in A and C, n in B and C, k in A and B */
	const stir_expr *x = strip_f32(v->u.binary.a);
	const stir_expr *y = strip_f32(v->u.binary.b);
	const stir_expr *cidx = s->u.store.idx[0];
	const stir_var *vars[3];
	for (int d = 0; d < 3; d++)
		vars[d] = mm->loops[d]->u.for_.var;
	int64_t c_of[3];
	for (int d = 0; d < 3; d++)
		if (!coef(&m, cidx, vars[d], &c_of[d]))
			return false;
	/* k: the one loop C does not move with */
	int kd = -1;
	for (int d = 0; d < 3; d++)
		if (c_of[d] == 0) {
			if (kd >= 0)
				return mismatch(&m, cidx->loc, "C's index moves with only "
					"one of loops '%s', '%s', '%s'", vars[0]->name,
					vars[1]->name, vars[2]->name);
			kd = d;
		}
	if (kd < 0)
		return mismatch(&m, cidx->loc, "C's index moves with all three "
			"loops: no loop is the reduction");
	/* n: the one with stride 1 in C; m the other */
	int nd = -1, md = -1;
	for (int d = 0; d < 3; d++)
		if (d != kd) {
			if (c_of[d] == 1 && nd < 0)
				nd = d;
			else
				md = d;
		}
	if (nd < 0 || md < 0 || c_of[md] < 1)
		return mismatch(&m, cidx->loc, "C's index must have stride 1 "
			"along one loop and a literal row distance along the other");
	mm->mv = vars[md];
	mm->nv = vars[nd];
	mm->kv = vars[kd];
	mm->c = (stir_mma_operand){ s->u.store.buf, cidx, c_of[md], false, false, NULL };
	if (s->u.store.buf->scope == STIR_SCOPE_LOCAL) {
		if (!is_frag(&m, in, mm, s->u.store.buf, cidx, vars, 3, mm->mv,
		    mm->nv))
			return false;
	} else if (m.block && (m.block->u.block.flags & STIR_BLOCK_ATOMIC)) {
		/* atomic adds into a fragment's registers are plain adds */
		return mismatch(&m, s->loc, "block '%s' is atomic: its products "
			"must add into a local accumulator (cache_write C first)",
			m.block->u.block.name);
	}
	if (mm->c.ld < in->n)
		return mismatch(&m, cidx->loc, "C's rows are %lld apart, fewer "
			"than its %d columns", (long long)mm->c.ld, in->n);
	int64_t want[3];
	want[md] = in->m;
	want[nd] = in->n;
	want[kd] = in->k;
	static const char *const role[3] = { "M", "N", "K" };
	for (int d = 0; d < 3; d++) {
		int64_t e;
		const stir_expr *ext = mm->loops[d]->u.for_.extent;
		int r = d == md ? 0 : d == nd ? 1 : 2;
		if (ext->kind != STIR_EXPR_INT || (e = ext->u.i) != want[d])
			return mismatch(&m, mm->loops[d]->loc, "loop '%s' (the %s "
				"dimension) must have the literal extent %lld for %s",
				vars[d]->name, role[r], (long long)want[d], in->name);
	}
	/* A moves with m and k, B with k and n; A may be scaled by row */
	const stir_expr *xs, *ys;
	x = unscale(&m, x, mm->kv, mm->nv, &xs);
	y = unscale(&m, y, mm->kv, mm->nv, &ys);
	if (xs && ys)
		return mismatch(&m, v->loc, "two row scales ('%s' and '%s'); "
			"the product takes one", xs->u.load.buf->name,
			ys->u.load.buf->name);
	/* (a row scale scales A's rows, whichever factor it is written on) */
	const stir_expr *scale = xs ? xs : ys;
	const stir_expr *ax = x, *bx = y;
	int64_t t;
	stir_affine_opts o = { .flags = STIR_AFFINE_NEG |
		STIR_AFFINE_WIDENING_CASTS | STIR_AFFINE_OPAQUE,
		.expand = stir_mma_block_binding, .user = m.block };
	if (x->kind == STIR_EXPR_LOAD && x->u.load.n == 1 &&
	    stir_affine_coef_of(x->u.load.idx[0], mm->nv, &o, &t) && t != 0) {
		ax = y;
		bx = x;
	}
	if (scale && in->in != STIR_F32)
		return mismatch(&m, scale->loc, "a row scale of A needs f32 "
			"inputs (mma_m16n8k8_tf32); %s takes %s", in->name,
			stir_dtype_get_name(in->in));
	if (!operand(&m, in, "A", ax, mm->mv, mm->kv, mm->nv, &mm->a) ||
	    !operand(&m, in, "B", bx, mm->kv, mm->nv, mm->mv, &mm->b))
		return false;
	mm->a.scale = scale;
	if (v->u.binary.a->kind != STIR_EXPR_CAST && in->in != STIR_F32)
		return mismatch(&m, v->loc, "the product must convert its "
			"operands to f32");
	return check_opaque(&m, mm) && check_guard(&m, mm);
}

/* s, m: see intrinsics.h. */
bool stir_is_copy_nest(const stir_stmt *s, stir_mma_match *m)
{
	stir_mma_match own;
	char why[200];
	stir_loc where;
	const stir_intrinsic *in;
	if (s->kind != STIR_STMT_FOR || s->u.for_.kind != STIR_LOOP_TENSORIZE ||
	    !(in = stir_intrinsic_find(s->u.for_.intrinsic)))
		return false;
	if (!m)
		m = &own;
	return stir_tensorize_match(s, in, m, why, sizeof(why), &where) &&
		m->form == STIR_MMA_FORM_COPY;
}

/* s: see intrinsics.h. */
const stir_stmt *stir_pipeline_copy(const stir_stmt *s)
{
	if (s->kind == STIR_STMT_IF && !s->u.if_.else_body.n &&
	    s->u.if_.then_body.n == 1)
		s = stir_stmt_at(&s->u.if_.then_body, 0);
	while (s->kind == STIR_STMT_FOR && s->u.for_.body.n == 1 &&
	    (s->u.for_.kind == STIR_LOOP_SERIAL ||
	     (s->u.for_.kind == STIR_LOOP_BIND &&
	      (s->u.for_.thread == STIR_THREAD_Y ||
	       s->u.for_.thread == STIR_THREAD_Z))))
		s = stir_stmt_at(&s->u.for_.body, 0);
	return stir_is_copy_nest(s, NULL) ? s : NULL;
}

/* l: see intrinsics.h. */
int stir_pipeline_copies(const stir_stmt *l)
{
	int n = 0;
	while (n < l->u.for_.body.n &&
	       stir_pipeline_copy(stir_stmt_at(&l->u.for_.body, n)))
		n++;
	return n;
}

/* m: see intrinsics.h. */
bool stir_mma_elem_store(const stir_mma_match *m)
{
	return m->form == STIR_MMA_FORM_STORE &&
		(m->guard || m->c_rows || m->c_scatter);
}

/* m, op, unit: see intrinsics.h. */
bool stir_mma_operand_aligned(const stir_mma_match *m,
	const stir_mma_operand *op, int64_t unit)
{
	stir_affine a = { 0 };
	stir_affine_opts o = { .flags = STIR_AFFINE_NEG |
		STIR_AFFINE_WIDENING_CASTS | STIR_AFFINE_OPAQUE,
		.expand = stir_mma_block_binding, .user = m->block };
	int nloops = m->form == STIR_MMA_FORM_MMA ? 3 :
		m->form == STIR_MMA_FORM_COPY ? m->n_loops : 2;
	if (unit < 1 || !stir_affine_add(&a, op->index, 1, &o) ||
	    a.konst % unit != 0)
		return false;
	for (int i = 0; i < a.n; i++) {
		bool tile = false;
		for (int d = 0; d < nloops && a.t[i].var; d++)
			tile |= a.t[i].var == m->loops[d]->u.for_.var;
		if (!tile && a.t[i].coef % unit != 0)
			return false;
	}
	return true;
}

/* m, a: see intrinsics.h. */
bool stir_mma_frag_form(const stir_mma_match *m, stir_affine *a)
{
	stir_affine_opts o = { .flags = STIR_AFFINE_NEG |
		STIR_AFFINE_WIDENING_CASTS, .expand = stir_mma_block_binding,
		.user = m->block };
	*a = (stir_affine){ 0 };
	return m->frag && stir_affine_add(a, m->frag_index, 1, &o);
}

/* s, user: stmt_pre of stir_kernel_get_tolerance: stop at a loop
 * tensorized with a tf32 intrinsic. */
static stir_visit_step find_tf32(stir_stmt *s, void *user)
{
	(void)user;
	const stir_intrinsic *in;
	if (s->kind == STIR_STMT_FOR && s->u.for_.kind == STIR_LOOP_TENSORIZE &&
	    (in = stir_intrinsic_find(s->u.for_.intrinsic)) && in->tf32)
		return STIR_VISIT_STOP;
	return STIR_VISIT_GO;
}

/* k, t: see include/stir/ir.h. */
double stir_kernel_get_tolerance(const stir_kernel *k, stir_dtype t)
{
	double tol = stir_dtype_get_tolerance(t);
	stir_visitor v = { .stmt_pre = find_tf32 };
	if (k && stir_dtype_is_float(t) &&
	    stir_visit_list(&v, (stir_ptr_vec *)&k->body) &&
	    stir_dtype_get_tolerance(STIR_F16) > tol)
		tol = stir_dtype_get_tolerance(STIR_F16);
	return tol;
}
