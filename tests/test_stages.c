/* Tests of the stage II and III text form (docs/ir.md): reading, printing,
 * equality and the reader's errors.
 *
 * Every tests/stages/NAME.stir is a program in canonical form: reading it
 * must succeed with no diagnostic, printing must give back exactly its
 * text, and reading the printed text must give an equal module.  The
 * folder is scanned, so adding a file adds a test.  Expected structures,
 * texts, messages and locations are written out by hand from docs/ir.md
 * and docs/language.md, not captured from the implementation. */
#include <stir/passes.h>
#include "ir/nodes.h"
#include "tests/testdiag.h"
#include "tests/testlang.h"

/* The canonical programs of tests/stages, sorted by name. */
static int n_files;
static char **files;          /* malloc'd, each malloc'd */

/* name: the whole of tests/stages/NAME in a malloc'd string. */
static char *slurp(const char *name)
{
	char rel[512];
	snprintf(rel, sizeof(rel), "tests/stages/%s", name);
	return test_slurp(rel, NULL);
}

/* ctx, text: read a program that must be correct; its new context goes
 * to *ctx, for the caller to free. */
static stir_module *read_ok(stir_ctx **ctx, const char *text)
{
	*ctx = stir_ctx_alloc();
	stir_module *m = test_read_str(*ctx, text);
	if (!m || stir_ctx_n_diagnostics(*ctx))
		stir_ctx_print_diagnostics(*ctx, stderr);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(stir_ctx_n_diagnostics(*ctx), 0);
	return m;
}

/* ---- the canonical programs ---- */

START_TEST(test_canonical_file)
{
	char *text = slurp(files[_i]);
	stir_ctx *ctx = stir_ctx_alloc();
	char rel[512];
	snprintf(rel, sizeof(rel), "tests/stages/%s", files[_i]);
	stir_module *m = stir_module_read_from_file(ctx, test_path(rel));
	if (!m || stir_ctx_n_diagnostics(ctx))
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	char *s = stir_module_to_str(m);
	ck_assert_msg(!strcmp(s, text), "%s prints as\n%s", files[_i], s);
	test_check_round_trip(m);
	free(s);
	free(text);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* The folder holds the programs the other tests look into. */
START_TEST(test_files_present)
{
	static const char *const want[] = {
		"annotations.stage3.stir", "csrmm.stage2.stir", "csrmm.stage3.stir",
		"fused_row.stage3.stir", "mixed.stir", "nested_blocks.stage2.stir",
		"search.stage2.stir", "shared.stage3.stir",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		bool found = false;
		for (int j = 0; j < n_files; j++)
			found |= !strcmp(files[j], want[i]);
		ck_assert_msg(found, "tests/stages/%s is missing", want[i]);
	}
}
END_TEST

/* name: read tests/stages/NAME, which must be correct. */
static stir_module *read_stage_file(stir_ctx **ctx, const char *name)
{
	char *text = slurp(name);
	stir_module *m = read_ok(ctx, text);
	free(text);
	return m;
}

/* What the stage II csrmm reads into: the stage, the auxiliary buffers
 * and their axis, the loops and the blocks with their regions. */
START_TEST(test_csrmm_stage2_structure)
{
	stir_ctx *ctx;
	stir_module *m = read_stage_file(&ctx, "csrmm.stage2.stir");
	stir_kernel *k = stir_module_get_kernel(m, 0);
	ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_2);
	ck_assert_int_eq(stir_kernel_n_axes(k), 4);
	ck_assert_int_eq(stir_kernel_n_buffers(k), 5);
	stir_axis *J = stir_kernel_find_axis(k, "J");
	stir_buffer *ptr = stir_kernel_get_buffer(k, 0);
	stir_buffer *idx = stir_kernel_get_buffer(k, 1);
	stir_buffer *A = stir_kernel_get_buffer(k, 2);
	ck_assert_str_eq(ptr->name, "J_indptr");
	ck_assert_int_eq(ptr->kind, STIR_BUFFER_INDPTR);
	ck_assert_str_eq(ptr->arg, "J.indptr");
	ck_assert_ptr_eq(ptr->aux_axis, J);
	ck_assert_int_eq(ptr->n_axes, 0);
	ck_assert_int_eq(ptr->extent->kind, STIR_EXPR_BINARY);
	ck_assert_int_eq(ptr->scope, STIR_SCOPE_GLOBAL);
	ck_assert_int_eq(idx->kind, STIR_BUFFER_INDICES);
	ck_assert_ptr_eq(idx->aux_axis, J);
	ck_assert_ptr_eq(J->indptr_buf, ptr);
	ck_assert_ptr_eq(J->indices_buf, idx);
	ck_assert_ptr_null(stir_kernel_find_axis(k, "I")->indptr_buf);
	ck_assert_int_eq(A->kind, STIR_BUFFER_TENSOR);
	ck_assert_ptr_null(A->extent);
	ck_assert_int_eq(A->n_axes, 2);
	ck_assert_int_eq(k->body.n, 2);
	/* for i in [0, m) { block csrmm0(vi: S = i) reads(J_indptr[vi:vi + 2]) */
	stir_stmt *fi = stir_stmt_at(&k->body, 1);
	ck_assert_int_eq(fi->kind, STIR_STMT_FOR);
	ck_assert_int_eq(fi->u.for_.var->kind, STIR_VAR_LOOP);
	ck_assert_int_eq(fi->u.for_.var->dtype, STIR_I32);
	ck_assert_int_eq(fi->u.for_.kind, STIR_LOOP_SERIAL);
	ck_assert_int_eq(fi->u.for_.extent->kind, STIR_EXPR_VAR);
	stir_stmt *b0 = stir_stmt_at(&fi->u.for_.body, 0);
	ck_assert_int_eq(b0->kind, STIR_STMT_BLOCK);
	ck_assert_str_eq(b0->u.block.name, "csrmm0");
	ck_assert_int_eq(b0->u.block.n_vars, 1);
	ck_assert_str_eq(b0->u.block.kinds, "S");
	ck_assert_int_eq(b0->u.block.vars[0]->kind, STIR_VAR_BLOCK);
	ck_assert_ptr_eq(b0->u.block.bindings[0]->u.var, fi->u.for_.var);
	ck_assert_int_eq(b0->u.block.n_reads, 1);
	ck_assert_int_eq(b0->u.block.n_writes, 0);
	stir_region *r = &b0->u.block.reads[0];
	ck_assert_ptr_eq(r->buf, ptr);
	ck_assert_int_eq(r->n, 1);
	ck_assert_ptr_eq(r->lo[0]->u.var, b0->u.block.vars[0]);
	ck_assert_int_eq(r->hi[0]->kind, STIR_EXPR_BINARY);
	/* the innermost block: reads(A[vi, vj], B[:, vk], J_indptr[vi], ..) */
	stir_stmt *fj = stir_stmt_at(&b0->u.block.body, 0);
	stir_stmt *fk = stir_stmt_at(&fj->u.for_.body, 0);
	stir_stmt *b1 = stir_stmt_at(&fk->u.for_.body, 0);
	ck_assert_str_eq(b1->u.block.kinds, "RS");
	ck_assert_int_eq(b1->u.block.n_reads, 5);
	ck_assert_int_eq(b1->u.block.n_writes, 1);
	stir_region *rb = &b1->u.block.reads[1];
	ck_assert_str_eq(rb->buf->name, "B");
	ck_assert_ptr_null(rb->lo[0]);            /* ':' */
	ck_assert_ptr_null(rb->hi[0]);
	ck_assert_ptr_nonnull(rb->lo[1]);         /* the point vk */
	ck_assert_ptr_null(rb->hi[1]);
	/* the store uses the outer block's variable vi */
	stir_stmt *st = stir_stmt_at(&b1->u.block.body, 0);
	ck_assert_int_eq(st->u.store.op, STIR_STORE_ADD);
	ck_assert_ptr_eq(st->u.store.idx[0]->u.var, b0->u.block.vars[0]);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* Stage III: flat buffers bound by name, no axes, structure arrays without
 * an axis; scopes and annotations. */
START_TEST(test_stage3_structure)
{
	stir_ctx *ctx;
	stir_module *m = read_stage_file(&ctx, "csrmm.stage3.stir");
	stir_kernel *k = stir_module_get_kernel(m, 0);
	ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_3);
	ck_assert_int_eq(stir_kernel_n_axes(k), 0);
	stir_buffer *ptr = stir_kernel_get_buffer(k, 0);
	ck_assert_int_eq(ptr->kind, STIR_BUFFER_INDPTR);
	ck_assert_str_eq(ptr->arg, "J.indptr");
	ck_assert_ptr_null(ptr->aux_axis);
	stir_buffer *a = stir_kernel_get_buffer(k, 2);
	ck_assert_str_eq(a->name, "A_data");
	ck_assert_int_eq(a->kind, STIR_BUFFER_TENSOR);
	ck_assert_str_eq(a->arg, "A");
	ck_assert_ptr_null(a->domain_lo);
	stir_module_free(m);
	stir_ctx_free(ctx);

	m = read_stage_file(&ctx, "shared.stage3.stir");
	k = stir_module_get_kernel(m, 0);
	static const struct {
		const char *name;
		stir_buffer_kind kind;
		stir_scope scope;
	} bufs[] = {
		{ "X_data", STIR_BUFFER_TENSOR, STIR_SCOPE_GLOBAL },
		{ "Y_data", STIR_BUFFER_TENSOR, STIR_SCOPE_GLOBAL },
		{ "partial", STIR_BUFFER_LOCAL, STIR_SCOPE_SHARED },
		{ "acc", STIR_BUFFER_LOCAL, STIR_SCOPE_LOCAL },
		{ "scratch", STIR_BUFFER_LOCAL, STIR_SCOPE_GLOBAL },
	};
	ck_assert_int_eq(stir_kernel_n_buffers(k), 5);
	for (int i = 0; i < 5; i++) {
		stir_buffer *b = stir_kernel_get_buffer(k, i);
		ck_assert_str_eq(b->name, bufs[i].name);
		ck_assert_int_eq(b->kind, bufs[i].kind);
		ck_assert_int_eq(b->scope, bufs[i].scope);
		if (bufs[i].kind == STIR_BUFFER_TENSOR)
			ck_assert_ptr_nonnull(b->arg);
		else
			ck_assert_ptr_null(b->arg);
	}
	stir_stmt *bx = stir_stmt_at(&k->body, 0);
	ck_assert_int_eq(bx->u.for_.kind, STIR_LOOP_BIND);
	ck_assert_int_eq(bx->u.for_.thread, STIR_BLOCK_X);
	stir_stmt *tx = stir_stmt_at(&bx->u.for_.body, 0);
	ck_assert_int_eq(tx->u.for_.thread, STIR_THREAD_X);
	/* "block stage(..)": stage is no keyword */
	ck_assert_str_eq(stir_stmt_at(&tx->u.for_.body, 2)->u.block.name, "stage");
	stir_module_free(m);
	stir_ctx_free(ctx);

	m = read_stage_file(&ctx, "annotations.stage3.stir");
	k = stir_module_get_kernel(m, 0);
	static const stir_thread threads[] = {
		STIR_BLOCK_Z, STIR_BLOCK_Y, STIR_BLOCK_X,
		STIR_THREAD_Z, STIR_THREAD_Y, STIR_THREAD_X,
	};
	stir_stmt *s = stir_stmt_at(&k->body, 0);
	for (int i = 0; i < 6; i++) {
		ck_assert_int_eq(s->kind, STIR_STMT_FOR);
		ck_assert_int_eq(s->u.for_.kind, STIR_LOOP_BIND);
		ck_assert_int_eq(s->u.for_.thread, threads[i]);
		s = stir_stmt_at(&s->u.for_.body, 0);
	}
	ck_assert_int_eq(s->kind, STIR_STMT_BLOCK);
	stir_stmt *cond = stir_stmt_at(&s->u.block.body, 0);
	ck_assert_int_eq(stir_stmt_at(&cond->u.if_.then_body, 0)->u.for_.kind,
		STIR_LOOP_UNROLL);
	ck_assert_int_eq(stir_stmt_at(&cond->u.if_.then_body, 1)->u.for_.kind,
		STIR_LOOP_VECTORIZE);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* lower_bound and upper_bound read as searches of the named flat buffer,
 * typed as their range. */
START_TEST(test_search_structure)
{
	stir_ctx *ctx;
	stir_module *m = read_stage_file(&ctx, "search.stage2.stir");
	stir_kernel *k = stir_module_get_kernel(m, 0);
	stir_stmt *blk = stir_stmt_at(&stir_stmt_at(&k->body, 0)->u.for_.body, 0);
	stir_stmt *let = stir_stmt_at(&blk->u.block.body, 0);
	stir_expr *e = let->u.let.value;
	ck_assert_int_eq(e->kind, STIR_EXPR_SEARCH);
	ck_assert_int_eq(e->u.search.op, STIR_LOWER_BOUND);
	ck_assert_ptr_eq(e->u.search.buf, stir_kernel_find_buffer(k, "J_indices"));
	ck_assert_int_eq(e->dtype, STIR_I32);
	ck_assert_int_eq(e->u.search.lo->kind, STIR_EXPR_LOAD);
	ck_assert_int_eq(e->u.search.x->kind, STIR_EXPR_VAR);
	stir_module_free(m);
	stir_ctx_free(ctx);

	m = read_stage_file(&ctx, "fused_row.stage3.stir");
	k = stir_module_get_kernel(m, 0);
	blk = stir_stmt_at(&stir_stmt_at(&k->body, 1)->u.for_.body, 0);
	e = stir_stmt_at(&blk->u.block.body, 0)->u.let.value;
	ck_assert_int_eq(e->kind, STIR_EXPR_BINARY);
	ck_assert_int_eq(e->u.binary.a->kind, STIR_EXPR_SEARCH);
	ck_assert_int_eq(e->u.binary.a->u.search.op, STIR_UPPER_BOUND);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* In stage I kernels the words of stages II and III are names, also
 * after a stage II kernel and before one. */
START_TEST(test_stage1_names)
{
	stir_ctx *ctx;
	stir_module *m = read_stage_file(&ctx, "mixed.stir");
	ck_assert_int_eq(stir_module_n_kernels(m), 4);
	static const stir_stage stages[] = {
		STIR_STAGE_1, STIR_STAGE_2, STIR_STAGE_3, STIR_STAGE_1,
	};
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(stir_kernel_get_stage(stir_module_get_kernel(m, i)),
			stages[i]);
	stir_kernel *k = stir_module_get_kernel(m, 0);
	ck_assert_str_eq(stir_kernel_get_param(k, 0)->name, "block");
	ck_assert_str_eq(stir_kernel_get_param(k, 1)->name, "for");
	ck_assert_str_eq(stir_kernel_get_axis(k, 0)->name, "buffer");
	ck_assert_str_eq(stir_kernel_get_buffer(k, 0)->name, "reads");
	ck_assert_str_eq(stir_kernel_get_buffer(k, 1)->name, "writes");
	stir_stmt *it = stir_stmt_at(&k->body, 0);
	ck_assert_str_eq(it->u.iter.name, "shared");
	ck_assert_str_eq(it->u.iter.vars[0]->name, "global");
	ck_assert_str_eq(stir_stmt_at(&it->u.iter.body, 0)->u.let.var->name,
		"stage");
	k = stir_module_get_kernel(m, 3);
	ck_assert_str_eq(stir_kernel_get_buffer(k, 0)->name, "lower_bound");
	stir_module_free(m);
	stir_ctx_free(ctx);
	/* the same words in a one-line stage I program */
	m = read_ok(&ctx, "kernel k(global: i32) { axis shared = dense_fixed("
		"global); tensor block: f32[shared]; iter for (unroll) in [shared] "
		"\"S\" { let reads = unroll; let writes = reads; block[writes] = "
		"1.0; } }");
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* Names that are keywords of the text they are printed in are printed
 * between backquotes and read back: the words of stages II and III used
 * as stage I names (whose stage II text once did not read back), and any
 * keyword written escaped.  The program uses every word of both lists,
 * lowers to stages II and III, and each stage prints, reads back to an
 * equal module and prints the same text; the interpreter agrees. */
START_TEST(test_keyword_names)
{
	stir_ctx *ctx;
	stir_module *m = read_ok(&ctx,
		"kernel `kernel`(bind: i32, find: i32, atomic: i32, `i32`: i32) {\n"
		"  axis warp = dense_fixed(bind);\n"
		"  axis global = sparse_variable(warp, find, atomic);\n"
		"  axis unroll = dense_fixed(find);\n"
		"  axis `axis` = dense_fixed(`i32`);\n"
		"  tensor reads: f32[warp, global];\n"
		"  tensor writes: f32[unroll];\n"
		"  tensor shared: f32[warp];\n"
		"  tensor `tensor`: f32[`axis`];\n"
		"  local horizontal: f32[warp];\n"
		"  local `local`: f32[warp];\n"
		"  iter block (for, cross_thread) in [warp, global] \"SR\" {\n"
		"    init { shared[for] = 0.0; }\n"
		"    let lower_bound = reads[for, cross_thread];\n"
		"    let vectorize = writes[cross_thread];\n"
		"    let `let` = lower_bound * vectorize;\n"
		"    shared[for] += `let`;\n"
		"  }\n"
		"  iter upper_bound (buffer) in [warp] \"S\" {\n"
		"    horizontal[buffer] = shared[buffer];\n"
		"    `local`[buffer] = horizontal[buffer];\n"
		"  }\n"
		"  iter `iter` (`in`, `f32`) in [warp, `axis`] \"SS\" {\n"
		"    `tensor`[`f32`] = `local`[`in`];\n"
		"  }\n"
		"}\n");
	stir_kernel *k = stir_module_get_kernel(m, 0);
	ck_assert_str_eq(k->name, "kernel");
	ck_assert_str_eq(stir_kernel_get_param(k, 3)->name, "i32");
	test_check_round_trip(m);
	char *s1 = stir_module_to_str(m);
	ck_assert_ptr_nonnull(strstr(s1, "kernel `kernel`(bind: i32"));
	ck_assert_ptr_nonnull(strstr(s1, "  iter `iter` (`in`, `f32`) in "
		"[warp, `axis`] \"SS\" {\n"));
	free(s1);
	ck_assert_int_eq(stir_module_lower_sparse_iter(m), 0);
	test_check_round_trip(m);
	char *s2 = stir_module_to_str(m);
	ck_assert_ptr_nonnull(strstr(s2, "  axis `warp` = dense_fixed(`bind`);\n"));
	ck_assert_ptr_nonnull(strstr(s2, " = `global`.indptr in [0, `atomic` "
		"+ 1);\n"));
	free(s2);
	ck_assert_int_eq(stir_module_lower_sparse_buffer(m), 0);
	test_check_round_trip(m);
	stir_module_free(m);
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 0);
	stir_ctx_free(ctx);
}
END_TEST

/* A program written loosely prints in canonical form: "global" left out,
 * spacing, redundant parentheses, and a select as a range bound in
 * parentheses (its ':' is not the range's). */
START_TEST(test_print_canonical)
{
	const char *in =
		"kernel k(n: i32)stage 3{/* c */buffer X:f32[(n)]=X global;"
		"buffer P:i32[n+1]=J.indptr in[0,n+1);buffer S:f64[4]shared;\n"
		"for i in[0,n)unroll{block b(v:S=(i))reads(P[n>0?v:0:v+1],P[:],"
		"P[(v)])writes(X[v]){X[v]=f32(upper_bound(P,0,n,(v)));}}"
		"block c(){}}\n";
	stir_ctx *ctx;
	stir_module *m = read_ok(&ctx, in);
	char *s = stir_module_to_str(m);
	ck_assert_str_eq(s,
		"kernel k(n: i32) stage 3 {\n"
		"  buffer X: f32[n] = X;\n"
		"  buffer P: i32[n + 1] = J.indptr in [0, n + 1);\n"
		"  buffer S: f64[4] shared;\n"
		"  for i in [0, n) unroll {\n"
		"    block b(v: S = i) reads(P[(n > 0 ? v : 0):v + 1], P[:], P[v]) "
		"writes(X[v]) {\n"
		"      X[v] = f32(upper_bound(P, 0, n, v));\n"
		"    }\n"
		"  }\n"
		"  block c() {\n"
		"  }\n"
		"}\n");
	test_check_round_trip(m);
	free(s);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- equality ---- */

START_TEST(test_equal)
{
	const char *base =
		"kernel k(n: i32, z: i32) stage 2 {\n"
		"  axis I = dense_fixed(n);\n"
		"  axis J = sparse_variable(I, n, z);\n"
		"  buffer P: i32[n + 1] = J.indptr;\n"
		"  buffer Q: i32[z] = J.indices;\n"
		"  buffer T: f32[n];\n"
		"  tensor A: f32[I, J];\n"
		"  for i in [0, n) bind(threadIdx.x) {\n"
		"    block b(v: S = i) reads(P[v:v + 2], A[v, :]) writes(T[v]) {\n"
		"      T[v] = f32(lower_bound(Q, P[v], P[v + 1], 0));\n"
		"    }\n"
		"  }\n"
		"}\n";
	/* each differs from base in one place */
	const char *variants[][2] = {
		{ "buffer P: i32[n + 1]", "buffer P: i32[n + 2]" },
		{ "buffer T: f32[n];", "buffer T: f32[n] = T;" },
		{ "buffer T: f32[n];", "buffer T: f32[n] shared;" },
		{ "buffer T: f32[n];", "buffer T: f32[n] local;" },
		{ "buffer Q: i32[z] = J.indices;",
		  "buffer Q: i32[z] = J.indices in [0, n);" },
		{ "buffer P: i32[n + 1] = J.indptr;\n  buffer Q: i32[z] = J.indices;",
		  "buffer Q: i32[z] = J.indices;\n  buffer P: i32[n + 1] = J.indptr;" },
		{ "bind(threadIdx.x)", "bind(threadIdx.y)" },
		{ "bind(threadIdx.x)", "bind(blockIdx.x)" },
		{ "bind(threadIdx.x)", "unroll" },
		{ "bind(threadIdx.x)", "vectorize" },
		{ " bind(threadIdx.x)", "" },
		{ "for i in [0, n)", "for i in [0, z)" },
		{ "block b(", "block c(" },
		{ "v: S = i", "v: R = i" },
		{ "v: S = i", "v: S = i + 0" },
		{ "reads(P[v:v + 2], A[v, :])", "reads(P[v:v + 1], A[v, :])" },
		{ "reads(P[v:v + 2], A[v, :])", "reads(P[v], A[v, :])" },
		{ "reads(P[v:v + 2], A[v, :])", "reads(P[:], A[v, :])" },
		{ "reads(P[v:v + 2], A[v, :])", "reads(P[v:v + 2], A[v, 0])" },
		{ "reads(P[v:v + 2], A[v, :])", "reads(Q[v:v + 2], A[v, :])" },
		{ "reads(P[v:v + 2], A[v, :])", "reads(P[v:v + 2])" },
		{ "reads(P[v:v + 2], A[v, :]) writes(T[v])",
		  "reads(P[v:v + 2], A[v, :])" },
		{ "reads(P[v:v + 2], A[v, :]) writes(T[v])",
		  "reads(P[v:v + 2]) writes(T[v], A[v, :])" },
		{ "lower_bound", "upper_bound" },
		{ "lower_bound(Q, P[v], P[v + 1], 0)",
		  "lower_bound(P, P[v], P[v + 1], 0)" },
		{ "lower_bound(Q, P[v], P[v + 1], 0)",
		  "lower_bound(Q, P[v], P[v + 1], 1)" },
	};
	stir_ctx *ctx;
	stir_module *a = read_ok(&ctx, base);
	test_check_round_trip(a);
	/* the same program spelled differently */
	stir_module *same = test_read_str(ctx,
		"kernel k(n: i32, z: i32) stage 2 { axis I = dense_fixed(n);\n"
		"axis J = sparse_variable(I, n, z); buffer P: i32[(n + 1)] = J.indptr "
		"global; buffer Q: i32[z] = J.indices; buffer T: f32[n] global;\n"
		"tensor A: f32[I, J]; for i in [0, n) bind(threadIdx.x) { block b("
		"v: S = i) reads(P[v:(v + 2)], A[v, :]) writes(T[v]) { T[v] = "
		"f32(lower_bound(Q, P[v], P[v + 1], 0)); } } }");
	ck_assert_ptr_nonnull(same);
	ck_assert(stir_module_is_equal(a, same));
	stir_module_free(same);
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		const char *at = strstr(base, variants[i][0]);
		ck_assert_ptr_nonnull(at);
		char text[2048];
		snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - base), base,
			variants[i][1], at + strlen(variants[i][0]));
		stir_module *v = test_read_str(ctx, text);
		if (!v)
			stir_ctx_print_diagnostics(ctx, stderr);
		ck_assert_msg(v != NULL, "variant %zu does not read", i);
		ck_assert_msg(!stir_module_is_equal(a, v), "variant %zu", i);
		ck_assert_msg(!stir_module_is_equal(v, a), "variant %zu", i);
		stir_module_free(v);
	}
	/* the stage counts too */
	stir_module *b = test_read_str(ctx, base);
	stir_module_get_kernel(b, 0)->stage = STIR_STAGE_3;
	ck_assert(!stir_module_is_equal(a, b));
	stir_module_free(b);
	stir_module_free(a);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- errors of the reader ---- */

/* text, want: reading text fails with exactly these diagnostics (as
 * test_diags_to_str writes them). */
static void check_errors(const char *text, const char *want)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = test_read_str(ctx, text);
	char *got = test_diags_to_str(ctx);
	ck_assert_str_eq(got, want);
	ck_assert_ptr_null(m);
	free(got);
	stir_ctx_free(ctx);
}

START_TEST(test_error_stage_header)
{
	check_errors("kernel k(n: i32) stage 4 { }",
		"1:24: error: a stage header names stage 2 or 3, not 4\n");
	check_errors("kernel k(n: i32) stage 1 { }",
		"1:24: error: a stage header names stage 2 or 3, not 1\n");
	check_errors("kernel k(n: i32) stages 2 { }",
		"1:18: error: expected 'stage' or '{', not 'stages'\n");
	check_errors("kernel k(n: i32) stage { }",
		"1:24: error: syntax error, unexpected '{', expecting integer\n");
	/* the stage words are keywords in the body of a stage II kernel */
	check_errors("kernel k(n: i32) stage 2 {\n  let block = 1;\n}\n",
		"2:7: error: syntax error, unexpected block, expecting "
		"identifier\n");
	/* ... and not in a stage I kernel: neither they nor '.' */
	check_errors("kernel k(n: i32) {\n  buffer X: f32[n];\n}\n",
		"2:10: error: syntax error, unexpected identifier, expecting '['\n");
	check_errors("kernel k(n: i32) {\n  let x = J.indptr;\n}\n",
		"2:12: error: unexpected character '.'\n");
}
END_TEST

/* A kernel whose stage header fails still reads its body as the stage it
 * meant; the next kernel starts in stage I again. */
START_TEST(test_error_recovery)
{
	check_errors(
		"kernel k(n: i32) stage 5 {\n"
		"  buffer X: f32[n];\n"
		"  for i in [0, n) { X[i] = 0.0; }\n"
		"}\n"
		"kernel k2(n: i32) {\n"
		"  let for = 1;\n"
		"  for i in [0, n) { }\n"
		"}\n",
		"1:24: error: a stage header names stage 2 or 3, not 5\n"
		"7:7: error: syntax error, unexpected identifier, expecting '['\n");
}
END_TEST

START_TEST(test_error_statements)
{
	/* a block's link names its iteration */
	check_errors(
		"kernel k(m: i32) stage 2 {\n"
		"  axis I = dense_fixed(m);\n"
		"  tensor Y: f32[I];\n"
		"  for i in [0, m) {\n"
		"    block b(vi: S = i) iter writes(Y[vi]) {\n"
		"      Y[vi] = 0.0;\n"
		"    }\n"
		"    block c(vi: S = i) init { }\n"
		"  }\n"
		"}\n",
		"5:29: error: syntax error, unexpected writes, expecting "
		"identifier\n"
		"8:29: error: syntax error, unexpected '{', expecting identifier\n");
	check_errors(
		"kernel k(n: i32) stage 3 {\n"
		"  buffer X: f32[n] = X.values;\n"
		"  for i in [1, n) bind(threadIdx.w) {\n"
		"    block b(v: Spatial = i, w: S = v, u: R = q) reads(n[0]) {\n"
		"      X[v] = f32(lower_bound(i, 0, n, v));\n"
		"    }\n"
		"    X[v] = 0.0;\n"
		"  }\n"
		"  X[i] = 1.0;\n"
		"}\n",
		"3:24: error: unknown thread index 'threadIdx.w': expected blockIdx "
		"or threadIdx, then x, y or z\n");
	check_errors(
		"kernel k(n: i32) stage 3 {\n"
		"  buffer X: f32[n] = X.values;\n"
		"  for i in [1, n) {\n"
		"    block b(v: Spatial = i, w: S = v, u: R = q) reads(n[0]) {\n"
		"      X[v] = f32(lower_bound(i, 0, n, v));\n"
		"    }\n"
		"    X[v] = 0.0;\n"
		"  }\n"
		"  X[i] = 1.0;\n"
		"}\n",
		"2:24: error: unknown structure array 'X.values': expected indptr, "
		"indices or pos_AXIS\n"
		"3:13: error: a loop starts at 0\n"
		"4:16: error: a block variable is 'S' or 'R', not 'Spatial'\n"
		"4:36: error: undefined name 'v'\n"
		"4:46: error: undefined name 'q'\n"
		"4:55: error: parameter 'n' cannot be indexed\n"
		"5:30: error: loop variable 'i' cannot be indexed\n"
		"7:7: error: undefined name 'v'\n"
		"9:5: error: undefined name 'i'\n");
	/* in stage II, "= J.indptr" names an axis */
	check_errors(
		"kernel k(n: i32) stage 2 {\n"
		"  buffer P: i32[n] = J.indptr;\n"
		"  buffer Q: i32[n] = n.indices;\n"
		"  buffer R: i32[n] = Z;\n"
		"}\n",
		"2:22: error: undefined name 'J'\n"
		"3:22: error: parameter 'n' is not an axis\n");
	/* block variables and buffers used as values */
	check_errors(
		"kernel k(n: i32) stage 3 {\n"
		"  buffer X: f32[n];\n"
		"  block b(v: S = 0) { X[0] = v[0] + X; }\n"
		"}\n",
		"3:30: error: block variable 'v' cannot be indexed\n"
		"3:37: error: buffer 'X' used without an index\n");
}
END_TEST

/* ---- locations ---- */

START_TEST(test_locations)
{
	const char *text =
		"kernel k(n: i32) stage 3 {\n"                           /* 1 */
		"  buffer P: i32[n + 1] = J.indptr;\n"                   /* 2 */
		"  for i in [0, n) {\n"                                  /* 3 */
		"    block b(v: S = i, w: R = 2 * i) reads(P[v:w]) {\n"  /* 4 */
		"      P[v] = lower_bound(P, 0, n, w);\n"                /* 5 */
		"    }\n"
		"  }\n"
		"}\n";
	stir_ctx *ctx;
	stir_module *m = read_ok(&ctx, text);
	const char *f = stir_ctx_intern(ctx, "t.stir");
	stir_kernel *k = stir_module_get_kernel(m, 0);
	test_check_loc(k->loc, f, 1, 8);
	stir_buffer *P = stir_kernel_get_buffer(k, 0);
	test_check_loc(P->loc, f, 2, 10);
	test_check_loc(P->extent->loc, f, 2, 19);                /* the '+' */
	stir_stmt *fr = stir_stmt_at(&k->body, 0);
	test_check_loc(fr->loc, f, 3, 3);
	test_check_loc(fr->u.for_.var->loc, f, 3, 7);
	test_check_loc(fr->u.for_.extent->loc, f, 3, 16);
	stir_stmt *b = stir_stmt_at(&fr->u.for_.body, 0);
	test_check_loc(b->loc, f, 4, 5);
	test_check_loc(b->u.block.vars[0]->loc, f, 4, 13);
	test_check_loc(b->u.block.vars[1]->loc, f, 4, 23);
	test_check_loc(b->u.block.bindings[0]->loc, f, 4, 20);
	test_check_loc(b->u.block.bindings[1]->loc, f, 4, 32);   /* the '*' */
	test_check_loc(b->u.block.reads[0].lo[0]->loc, f, 4, 45);
	test_check_loc(b->u.block.reads[0].hi[0]->loc, f, 4, 47);
	stir_stmt *st = stir_stmt_at(&b->u.block.body, 0);
	test_check_loc(st->loc, f, 5, 7);
	test_check_loc(st->u.store.value->loc, f, 5, 14);
	test_check_loc(st->u.store.value->u.search.x->loc, f, 5, 35);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- the link of a block to its iteration ---- */

/* A stage II text that writes its blocks' links (docs/ir.md): names that
 * say nothing of them, an iteration whose name is a stage word (written
 * escaped), a block named like an init ("t_init0") that is not one, and
 * a block with no link. */
static const char link_text[] =
	"kernel k(m: i32) stage 2 {\n"
	"  axis I = dense_fixed(m);\n"
	"  tensor Y: f32[I];\n"
	"  tensor Z: f32[I];\n"
	"  for i in [0, m) {\n"
	"    block zero(vi: S = i) init rows writes(Y[vi]) {\n"
	"      Y[vi] = 0.0;\n"
	"    }\n"
	"  }\n"
	"  for i in [0, m) {\n"
	"    block add(vi: S = i) iter rows reads(Y[vi]) writes(Y[vi]) {\n"
	"      Y[vi] += 1.0;\n"
	"    }\n"
	"    block t_init0(vi: S = i) iter `for` writes(Z[vi]) {\n"
	"      Z[vi] = 0.0;\n"
	"    }\n"
	"    block t0(vi: S = i) writes(Z[vi]) {\n"
	"      Z[vi] += 1.0;\n"
	"    }\n"
	"  }\n"
	"}\n";

/* k, i, j: block j of the body of the i-th statement of k (a loop). */
static const stir_stmt *loop_block(const stir_kernel *k, int i, int j)
{
	const stir_stmt *loop = stir_stmt_at(&k->body, i);
	ck_assert_int_eq(loop->kind, STIR_STMT_FOR);
	const stir_stmt *b = stir_stmt_at(&loop->u.for_.body, j);
	ck_assert_int_eq(b->kind, STIR_STMT_BLOCK);
	return b;
}

/* b, name, iter, init: block b is "name", linked to iteration iter (NULL:
 * to none), in its init nest when init. */
static void check_link(const stir_stmt *b, const char *name,
	const char *iter, bool init)
{
	ck_assert_str_eq(b->u.block.name, name);
	if (iter)
		ck_assert_str_eq(b->u.block.iter, iter);
	else
		ck_assert_ptr_null(b->u.block.iter);
	ck_assert_int_eq(b->u.block.init, init);
}

START_TEST(test_block_link)
{
	stir_ctx *ctx;
	stir_module *m = read_ok(&ctx, link_text);
	const stir_kernel *k = stir_module_get_kernel(m, 0);
	/* the links are those written, whatever the names say */
	check_link(loop_block(k, 0, 0), "zero", "rows", true);
	check_link(loop_block(k, 1, 0), "add", "rows", false);
	check_link(loop_block(k, 1, 1), "t_init0", "for", false);
	check_link(loop_block(k, 1, 2), "t0", NULL, false);
	char *s = stir_module_to_str(m);
	ck_assert_str_eq(s, link_text);
	free(s);
	/* print, read, print: identical, the links kept (module equality
	 * compares them) */
	test_check_round_trip(m);
	stir_ctx *ctx2;
	stir_module *m2 = read_ok(&ctx2, link_text);
	ck_assert(stir_module_is_equal(m, m2));
	stir_kernel *k2 = stir_module_get_kernel(m2, 0);
	stir_stmt *zero = stir_stmt_at(&stir_stmt_at(&k2->body, 0)->u.for_.body,
		0);
	zero->u.block.init = false;
	ck_assert(!stir_module_is_equal(m, m2));
	zero->u.block.init = true;
	zero->u.block.iter = "add";
	ck_assert(!stir_module_is_equal(m, m2));
	stir_module_free(m2);
	stir_ctx_free(ctx2);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* A text without links (as printed before they were written) links its
 * blocks by their names: P_initN to the init nest of iteration P, P
 * followed by digits to P; printed again, it writes the links. */
START_TEST(test_block_link_by_names)
{
	static const char text[] =
		"kernel k(m: i32) stage 2 {\n"
		"  axis I = dense_fixed(m);\n"
		"  tensor Y: f32[I];\n"
		"  for i in [0, m) {\n"
		"    block sum_init0(vi: S = i) writes(Y[vi]) {\n"
		"      Y[vi] = 0.0;\n"
		"    }\n"
		"  }\n"
		"  for i in [0, m) {\n"
		"    block sum0(vi: S = i) reads(Y[vi]) writes(Y[vi]) {\n"
		"      Y[vi] += 1.0;\n"
		"    }\n"
		"    block other(vi: S = i) writes(Y[vi]) {\n"
		"      Y[vi] += 2.0;\n"
		"    }\n"
		"  }\n"
		"}\n";
	stir_ctx *ctx;
	stir_module *m = read_ok(&ctx, text);
	const stir_kernel *k = stir_module_get_kernel(m, 0);
	check_link(loop_block(k, 0, 0), "sum_init0", "sum", true);
	check_link(loop_block(k, 1, 0), "sum0", "sum", false);
	check_link(loop_block(k, 1, 1), "other", NULL, false);
	char *s = stir_module_to_str(m);
	ck_assert_ptr_nonnull(strstr(s,
		"    block sum_init0(vi: S = i) init sum writes(Y[vi]) {\n"));
	ck_assert_ptr_nonnull(strstr(s,
		"    block sum0(vi: S = i) iter sum reads(Y[vi]) writes(Y[vi]) {\n"));
	ck_assert_ptr_nonnull(strstr(s,
		"    block other(vi: S = i) writes(Y[vi]) {\n"));
	free(s);
	test_check_round_trip(m);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- modules built through the API ---- */

/* A stage III kernel built with the internal constructors prints as the
 * text of docs/ir.md and reads back equal. */
START_TEST(test_print_api_module)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *m = stir_module_alloc(ctx);
	stir_kernel *k = stir_module_add_kernel(m, "api");
	k->stage = STIR_STAGE_3;
	stir_var *n = stir_kernel_add_param(k, "n", STIR_I64);
	stir_buffer *ptr = stir_kernel_add_flat_buffer(k, "J_indptr",
		STIR_BUFFER_INDPTR, STIR_I64, stir_expr_binary(k, STIR_ADD,
		stir_expr_var(k, n), stir_expr_int(k, 1)), "J.indptr");
	stir_buffer *t = stir_kernel_add_flat_buffer(k, "tmp", STIR_BUFFER_LOCAL,
		STIR_F64, stir_expr_int(k, 32), NULL);
	t->scope = STIR_SCOPE_SHARED;
	stir_var *i = stir_kernel_new_var(k, "i", STIR_VAR_LOOP, STIR_I64);
	stir_stmt *loop = stir_stmt_for(k, i, stir_expr_var(k, n));
	loop->u.for_.kind = STIR_LOOP_BIND;
	loop->u.for_.thread = STIR_THREAD_Y;
	stir_var *vi = stir_kernel_new_var(k, "vi", STIR_VAR_BLOCK, STIR_I64);
	stir_expr *bind = stir_expr_var(k, i);
	stir_stmt *blk = stir_stmt_block(k, "b", 1, &vi, &bind, "R");
	stir_expr *lo[1] = { stir_expr_int(k, 0) }, *hi[1] = { NULL };
	stir_region w = { t, 1, lo, hi };
	blk->u.block.n_writes = 1;
	blk->u.block.writes = &w;
	stir_expr *pos = stir_expr_search(k, STIR_UPPER_BOUND, ptr,
		stir_expr_int(k, 0), stir_expr_var(k, n), stir_expr_var(k, vi));
	stir_expr *zero = stir_expr_int(k, 0);
	stir_stmt_append_body(blk, stir_stmt_store(k, t, 1, &zero,
		STIR_STORE_ADD, stir_expr_cast(k, STIR_F64, pos)));
	stir_stmt_append_body(loop, blk);
	stir_kernel_append_stmt(k, loop);
	ck_assert_int_eq(stir_module_verify(m), 0);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	char *s = stir_module_to_str(m);
	ck_assert_str_eq(s,
		"kernel api(n: i64) stage 3 {\n"
		"  buffer J_indptr: i64[n + 1] = J.indptr;\n"
		"  buffer tmp: f64[32] shared;\n"
		"  for i in [0, n) bind(threadIdx.y) {\n"
		"    block b(vi: R = i) writes(tmp[0]) {\n"
		"      tmp[0] += f64(upper_bound(J_indptr, 0, n, vi));\n"
		"    }\n"
		"  }\n"
		"}\n");
	free(s);
	test_check_round_trip(m);
	stir_module_free(m);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	n_files = test_list_stir("tests/stages", &files);
	if (n_files == 0) {
		fprintf(stderr, "no .stir files in tests/stages\n");
		return EXIT_FAILURE;
	}
	Suite *s = suite_create("stages");
	TCase *tc = tcase_create("print");
	tcase_add_loop_test(tc, test_canonical_file, 0, n_files);
	tcase_add_test(tc, test_files_present);
	tcase_add_test(tc, test_csrmm_stage2_structure);
	tcase_add_test(tc, test_stage3_structure);
	tcase_add_test(tc, test_search_structure);
	tcase_add_test(tc, test_stage1_names);
	tcase_add_test(tc, test_keyword_names);
	tcase_add_test(tc, test_print_canonical);
	tcase_add_test(tc, test_equal);
	tcase_add_test(tc, test_print_api_module);
	tcase_add_test(tc, test_block_link);
	tcase_add_test(tc, test_block_link_by_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, test_error_stage_header);
	tcase_add_test(tc, test_error_recovery);
	tcase_add_test(tc, test_error_statements);
	tcase_add_test(tc, test_locations);
	suite_add_tcase(s, tc);
	int r = test_run_suite(s);
	test_free_names(files, n_files);
	return r;
}
