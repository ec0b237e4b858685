/* Vectorized loops (docs/cuda.md, "vectorize").
 *
 * A loop "for w in [0, W) vectorize" (W = 2 or 4) whose body is stores in
 * blocks, without lets, conditions or inner loops (except conditions that
 * wrap the whole body and do not use w, such as split's tail guards, which
 * are tested once for all lanes), runs its W iterations as
 * lanes: every access BUF[base + w] to a float, int (W = 2 or 4) or double
 * (W = 2) buffer in global or shared memory becomes one vector load or
 * store of float4 / int2 / double2 ..., when the address is aligned to the
 * vector's size, which is checked at run time (on the buffer's address
 * alone when the index at lane 0 is known to be a multiple of W, so that
 * the check does not wait for the loads of the index and is the same in
 * every iteration); the other accesses stay
 * scalar, one per lane.  Every statement runs for all lanes before the
 * next, which keeps the meaning only when no lane touches what another
 * lane writes: every access to a buffer the body stores into must use the
 * same index, which must move with w.  Otherwise, and when the alignment
 * check fails, the loop runs as a scalar unrolled loop. */
/* Vectorized loops (docs/cuda.md, "vectorize"): the printing of a loop
 * "for w in [0, W) vectorize" with the vector plan of ir/vector.c, which
 * says which accesses are vectors of W lanes.  Each vector's address is
 * checked at run time to be aligned to its size (on the buffer's address
 * alone when the index at lane 0 is known to be a multiple of W, so that
 * the check does not wait for the loads of the index and is the same in
 * every iteration); when the check fails, or the loop has no plan, the
 * loop runs as a scalar unrolled loop. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "codegen/cuda_internal.h"
#include "ir/ops.h"
#include "ir/vector.h"
#include "passes/passes.h"

struct vec_ctx {
	const stir_vec_plan *p;    /* the loop's plan */
	int lane;                  /* the lane being printed */
};

/* e, x: see cuda_internal.h. */
bool cuda_vector_load(emitter *e, const stir_expr *x)
{
	struct vec_ctx *vc = e->vec;
	static const char comp[] = "xyzw";
	if (!vc || x->kind != STIR_EXPR_LOAD)
		return false;
	int i = stir_vec_find(vc->p, x->u.load.buf, x->u.load.idx[0],
		cuda_binding_hook, &e->facts);
	if (i < 0)
		return false;
	if (e->buf_used)
		e->buf_used[x->u.load.buf->index] = true;
	cg_putf(e->out, "stir_v%d_%d.%c", e->n_vec, vc->p->v[i].id,
		comp[vc->lane]);
	return true;
}

/* e, ctx, a: print &BUF[base] of vector a (lane 0). */
static void put_base(emitter *e, const ectx *ctx,
	const stir_vec_access *a)
{
	cg_put(e->out, "&");
	cuda_put_name(e, a->buf->name);
	cg_put(e->out, "[");
	cuda_expr(e, ctx, a->idx, P_TOP);
	cg_put(e->out, "]");
}

/* e, ctx, a, id, w: add atomic vector a of vector loop "id" to memory:
 * one vector atomic add on sm_90 and later, one per lane before. */
static void put_atomic(emitter *e, const ectx *ctx,
	const stir_vec_access *a, int id, int64_t w)
{
	static const char comp[] = "xyzw";
	cg_printer *p = e->out;
	cg_line(p, "#if __CUDA_ARCH__ >= 900");
	cg_indent(p);
	cg_putf(p, "atomicAdd((%s *)", stir_vec_type(a->buf->dtype, w));
	put_base(e, ctx, a);
	cg_putf(p, ", stir_v%d_%d);\n", id, a->id);
	cg_line(p, "#else");
	for (int lane = 0; lane < w; lane++) {
		cg_indent(p);
		cg_put(p, "atomicAdd(");
		put_base(e, ctx, a);
		cg_putf(p, " + %d, stir_v%d_%d.%c);\n", lane, id, a->id, comp[lane]);
	}
	cg_line(p, "#endif");
}

/* e, ctx, vc: the vector path (lane printing set up by the caller). */
static void emit_lanes(emitter *e, const ectx *ctx, struct vec_ctx *vc)
{
	static const char comp[] = "xyzw";
	cg_printer *p = e->out;
	const stir_vec_plan *pl = vc->p;
	int64_t w = pl->width;
	int id = e->n_vec;
	e->lane_val = 0;
	for (int i = 0; i < pl->n; i++) {
		const stir_vec_access *a = &pl->v[i];
		const char *vt = stir_vec_type(a->buf->dtype, w);
		cg_indent(p);
		cg_putf(p, "%s stir_v%d_%d", vt, id, a->id);
		if (a->loaded) {
			cg_putf(p, " = *(const %s *)", vt);
			put_base(e, ctx, a);
		} else if (a->atomic) {
			cg_putf(p, " = make_%s(%s)", vt, w == 4 ?
				"0.0f, 0.0f, 0.0f, 0.0f" : "0.0f, 0.0f");
		}
		cg_put(p, ";\n");
	}
	for (int i = 0; i < pl->n_stores; i++) {
		const stir_stmt *s = pl->stores[i];
		int j = stir_vec_find(pl, s->u.store.buf, s->u.store.idx[0],
			cuda_binding_hook, &e->facts);
		for (int lane = 0; lane < w; lane++) {
			vc->lane = lane;
			e->lane_val = lane;
			if (j < 0) {
				/* a scalar store of this lane */
				cuda_emit_store(e, s, ctx);
				continue;
			}
			cg_indent(p);
			cg_putf(p, "stir_v%d_%d.%c %s ", id, pl->v[j].id, comp[lane],
				stir_store_op_text(s->u.store.op));
			cuda_conv(e, ctx, s->u.store.value, s->u.store.buf->dtype,
				P_COND);
			cg_put(p, ";");
			cuda_put_loc_comment(e, s);
			cg_put(p, "\n");
		}
	}
	e->lane_val = 0;
	for (int i = 0; i < pl->n; i++) {
		const stir_vec_access *a = &pl->v[i];
		if (!a->stored)
			continue;
		if (a->atomic) {
			put_atomic(e, ctx, a, id, w);
			continue;
		}
		cg_indent(p);
		cg_putf(p, "*(%s *)", stir_vec_type(a->buf->dtype, w));
		put_base(e, ctx, a);
		cg_putf(p, " = stir_v%d_%d;\n", id, a->id);
	}
}

/* What form_print hands on. */
typedef struct form_print {
	emitter *e;
	const ectx *ctx;
	cuda_stmt_fn fn;
} form_print;

/* form, user: gpu_form_fn of cuda_scalar_form (user: the form_print). */
static void form_print_fn(const stir_stmt *form, void *user)
{
	const form_print *f = user;
	f->fn(f->e, form, f->ctx);
}

/* e, s, ctx, fn: see cuda_internal.h. */
void cuda_scalar_form(emitter *e, const stir_stmt *s, const ectx *ctx,
	cuda_stmt_fn fn)
{
	form_print f = { e, ctx, fn };
	if (gpu_scalar_form(e->k, s, form_print_fn, &f) < 0)
		cuda_error(e, s->loc, "out of memory");
}

/* e, s, ctx: the scalar form of loop s printed nowhere, for a vector path
 * that has no fallback: the counters of generated names (stir_nN, stir_sN,
 * ...) and the arrays the launch uses move on as they did when this walk
 * recorded the accesses (the verifier's walk does that now), so that the
 * source stays what it was. */
static void emit_scalar_names(emitter *e, const stir_stmt *s,
	const ectx *ctx)
{
	cg_printer scratch, *out = e->out;
	cg_printer_init(&scratch, out->indent);
	e->out = &scratch;
	cuda_scalar_form(e, s, ctx, cuda_emit_stmt);
	e->out = out;
	cg_printer_release(&scratch);
}

/* e, s, ctx: the vector path when the loop has a plan (ir/vector.c),
 * and the scalar loop (which alone records the accesses). */
void cuda_emit_vector_loop(emitter *e, const stir_stmt *s, const ectx *ctx)
{
	const stir_var *v = s->u.for_.var;
	stir_vec_plan *pl = calloc(1, sizeof(*pl));
	bool *inner = calloc((size_t)e->k->n_vars + 1, sizeof(bool));
	/* the plan the pass plan_vectors wrote into the loop; a loop it did
	 * not plan runs as its scalar loop */
	int r = !pl || !inner ? -1 : s->u.for_.planned ?
		stir_vec_plan_from_note(s, cuda_binding_hook, &e->facts, pl) : 0;
	if (r < 0) {
		if (pl && inner)
			cuda_error(e, s->loc, "the vector plan of loop '%s' names an "
				"access its body does not make", s->u.for_.var->name);
		else
			cuda_error(e, s->loc, "out of memory");
		free(pl);
		free(inner);
		return;
	}
	if (r == 0) {
		cuda_scalar_form(e, s, ctx, cuda_emit_stmt);
		goto out;
	}
	int64_t w = pl->width;
	struct vec_ctx vc = { .p = pl };
	/* print the lanes with w replaced by the lane number and the blocks'
	 * variables by their bindings */
	cg_printer *p = e->out;
	cuda_mark_defined(s, inner);
	e->lane_var = v;
	e->resolve = inner;
	e->vec = &vc;
	cg_line(p, "// loop '%s' vectorized: %" PRId64 " lanes", v->name, w);
	if (pl->n_guards) {
		/* the addresses below may be read only where the guards hold */
		cg_indent(p);
		cg_put(p, "if (");
		e->vec = NULL;
		for (int i = 0; i < pl->n_guards; i++) {
			cg_put(p, i ? " && " : "");
			cuda_expr(e, ctx, pl->guards[i],
				pl->n_guards > 1 ? P_AND + 1 : P_TOP);
		}
		cg_put(p, ") {\n");
		p->indent++;
	}
	/* with aligned buffers (STIR_CUDA_ALIGNED_BUFFERS), vectors in global
	 * memory at multiples of w need no check and no fallback */
	bool check = !(e->flags & STIR_CUDA_ALIGNED_BUFFERS);
	for (int i = 0; !check && i < pl->n; i++) {
		int64_t rs;
		check = pl->v[i].buf->scope != STIR_SCOPE_GLOBAL ||
			!stir_vec_known_residue(pl->v[i].idx, v, w,
			cuda_binding_hook, &e->facts, &rs) || rs != 0;
	}
	if (check) {
		cg_indent(p);
		cg_put(p, "if (");
		for (int i = 0; i < pl->n; i++) {
			const stir_vec_access *a = &pl->v[i];
			size_t bytes = (size_t)w * stir_dtype_get_size(a->buf->dtype);
			int64_t rs;
			e->vec = NULL;
			cg_putf(p, "%s(unsigned long long)", i ? " && " : "");
			if (stir_vec_known_residue(a->idx, v, w, cuda_binding_hook, &e->facts,
			    &rs) && rs == 0) {
				/* the index is a multiple of w: only the buffer's
				 * address decides, the same for every iteration */
				cuda_put_name(e, a->buf->name);
			} else {
				put_base(e, ctx, a);
			}
			cg_putf(p, " %% %zu == 0", bytes);
		}
		cg_put(p, ") {\n");
		p->indent++;
	}
	e->vec = &vc;
	emit_lanes(e, ctx, &vc);
	e->vec = NULL;
	e->lane_var = NULL;
	e->resolve = NULL;
	e->n_vec++;
	if (check) {
		p->indent--;
		cg_line(p, "} else {");
		p->indent++;
		cuda_scalar_form(e, s, ctx, cuda_emit_stmt);
		p->indent--;
		cg_line(p, "}");
	} else {
		emit_scalar_names(e, s, ctx);
	}
	if (pl->n_guards) {
		p->indent--;
		cg_line(p, "}");
	}
out:
	free(pl);
	free(inner);
}
