/* Tensor-core intrinsics as data, and the matching of a loop nest against
 * one (ir/intrinsics.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ir/affine.h"
#include "ir/intrinsics.h"

static const stir_intrinsic intrinsics[] = {
	{ "mma_m16n8k16_f16", 16, 8, 16, STIR_F16, false,
	  "stir_mma_m16n8k16_f16",
	  "mma.sync m16n8k16, f16 inputs, f32 accumulation" },
	{ "mma_m16n8k16_bf16", 16, 8, 16, STIR_BF16, false,
	  "stir_mma_m16n8k16_bf16",
	  "mma.sync m16n8k16, bf16 inputs, f32 accumulation" },
	{ "mma_m16n8k8_tf32", 16, 8, 8, STIR_F32, true,
	  "stir_mma_m16n8k8_tf32",
	  "mma.sync m16n8k8, f32 inputs rounded to tf32, f32 accumulation" },
};
#define N_INTRINSICS (int)(sizeof(intrinsics) / sizeof(intrinsics[0]))

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

/* The names, comma-separated. */
const char *stir_intrinsic_names(void)
{
	return "mma_m16n8k16_f16, mma_m16n8k16_bf16, mma_m16n8k8_tf32";
}

/* What a match works with. */
typedef struct matcher {
	const stir_stmt *block;    /* the block around the store, or NULL */
	char *why;
	size_t why_size;
	stir_loc *where;
	bool failed;
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

/* v, user: a variable of the store's block reads as its binding. */
static const stir_expr *block_binding(const stir_var *v, const void *user)
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
		.expand = block_binding, .user = m->block };
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

/* m, in, what, x, row, col, rows, cols, op: operand "what" (A or B), the
 * load x, with tile variables row (extent rows) and col (cols) and
 * "other" not in it. */
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
			buf->name, stir_dtype_name(buf->dtype), in->name,
			stir_dtype_name(in->in));
	const stir_expr *idx = x->u.load.idx[0];
	int64_t cr, cc, co;
	if (!coef(m, idx, row, &cr) || !coef(m, idx, col, &cc) ||
	    !coef(m, idx, other, &co))
		return false;
	if (co != 0)
		return mismatch(m, idx->loc, "%s's index depends on loop '%s'",
			what, other->name);
	op->buf = buf;
	op->index = idx;
	if (cc == 1 && cr >= 1 && cr != 1) {
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

/* l, in, mm, why, why_size, where: see intrinsics.h. */
bool stir_tensorize_match(const stir_stmt *l, const stir_intrinsic *in,
	stir_mma_match *mm, char *why, size_t why_size, stir_loc *where)
{
	matcher m = { .why = why, .why_size = why_size, .where = where };
	memset(mm, 0, sizeof(*mm));
	mm->in = in;
	/* three perfectly nested loops */
	const stir_stmt *s = l;
	for (int d = 0; d < 3; d++) {
		if (s->kind != STIR_STMT_FOR)
			return mismatch(&m, s->loc, "the nest must be three perfectly "
				"nested loops around one store; found %s inside loop '%s'",
				s->kind == STIR_STMT_IF ? "a condition (a split that does "
				"not divide: specialize the size first?)" : "another "
				"statement", mm->loops[d - 1]->u.for_.var->name);
		if (d > 0 && s->u.for_.kind != STIR_LOOP_SERIAL)
			return mismatch(&m, s->loc, "loop '%s' inside the nest is "
				"annotated; the nest's inner loops must be plain",
				s->u.for_.var->name);
		mm->loops[d] = s;
		if (d < 2 && s->u.for_.body.n != 1)
			return mismatch(&m, s->loc, "loop '%s' holds %d statements; "
				"the nest must be three perfectly nested loops around one "
				"store", s->u.for_.var->name, s->u.for_.body.n);
		if (d < 2)
			s = stir_stmt_at(&s->u.for_.body, 0);
	}
	const stir_ptr_vec *body = &mm->loops[2]->u.for_.body;
	if (body->n != 1)
		return mismatch(&m, mm->loops[2]->loc, "the innermost loop '%s' "
			"holds %d statements; it must hold one store",
			mm->loops[2]->u.for_.var->name, body->n);
	s = stir_stmt_at(body, 0);
	if (s->kind == STIR_STMT_BLOCK) {
		mm->block = m.block = s;
		if (s->u.block.flags)
			return mismatch(&m, s->loc, "block '%s' is annotated; a "
				"tensorized block must be plain", s->u.block.name);
		if (s->u.block.body.n != 1)
			return mismatch(&m, s->loc, "block '%s' holds %d statements; "
				"it must hold one store", s->u.block.name,
				s->u.block.body.n);
		s = stir_stmt_at(&s->u.block.body, 0);
	}
	if (s->kind != STIR_STMT_STORE || s->u.store.n != 1)
		return mismatch(&m, s->loc, "the nest must end in one store to a "
			"flat buffer");
	mm->store = s;
	if (s->u.store.op != STIR_STORE_ADD)
		return mismatch(&m, s->loc, "the store must add into C (+=)");
	if (s->u.store.buf->dtype != STIR_F32)
		return mismatch(&m, s->loc, "C '%s' holds %s; the intrinsics "
			"accumulate in f32", s->u.store.buf->name,
			stir_dtype_name(s->u.store.buf->dtype));
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
	mm->c = (stir_mma_operand){ s->u.store.buf, cidx, c_of[md], false };
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
	/* A moves with m and k, B with k and n */
	const stir_expr *ax = x, *bx = y;
	int64_t t;
	stir_affine_opts o = { .flags = STIR_AFFINE_NEG |
		STIR_AFFINE_WIDENING_CASTS | STIR_AFFINE_OPAQUE,
		.expand = block_binding, .user = m.block };
	if (x->kind == STIR_EXPR_LOAD && x->u.load.n == 1 &&
	    stir_affine_coef_of(x->u.load.idx[0], mm->nv, &o, &t) && t != 0) {
		ax = y;
		bx = x;
	}
	if (!operand(&m, in, "A", ax, mm->mv, mm->kv, mm->nv, &mm->a) ||
	    !operand(&m, in, "B", bx, mm->kv, mm->nv, mm->mv, &mm->b))
		return false;
	if (v->u.binary.a->kind != STIR_EXPR_CAST && in->in != STIR_F32)
		return mismatch(&m, v->loc, "the product must convert its "
			"operands to f32");
	return true;
}
