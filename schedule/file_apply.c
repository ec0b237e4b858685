/* Applying a schedule file to a kernel (include/stir/schedule.h;
 * docs/schedules.md, "Schedule files").
 *
 *   stage I   format steps (decompose), stage1 steps
 *             --lower_sparse_iter-->
 *   stage II  stage2 steps
 *             --lower_sparse_buffer-->
 *   stage III stage3 steps
 *             [stir_schedule_prepare_for_gpu: default_schedule on the
 *              nests left unbound, then lift_guards, hoist_invariants,
 *              hoist_warp_reads, insert_barriers and plan_vectors]
 *
 * Each step is a pass of a pipeline (include/stir/pipeline.h) named
 * SECTION.N (the N-th step of the section, from 1), and each section ends
 * with a pass named after its key, so that stirc print --after shows the
 * kernel after any step or section.
 *
 * Requires: a verified kernel named as the schedule's "kernel", at a stage
 * no later than the first section that has steps.  Each step calls the
 * primitive of include/stir/schedule.h or passes.h once per block (or
 * iteration) its pattern matches, in kernel order, the matches taken
 * before the first call.  The names a step gives (loops, iterators,
 * buffers, the tensor, the size parameter) are looked up first, so that
 * a missing one is an error at its place in the file; any other refusal
 * is the primitive's own diagnostic, with a note at the step's line.  The
 * steps before a failing one stay applied. */
#include <stir/codegen.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stir/pipeline.h>
#include "ir/nodes.h"
#include "passes/passes.h"
#include "schedule/file.h"

/* One application of a schedule to a kernel. */
typedef struct applier {
	const stir_schedule *s;  /* borrowed */
	stir_kernel *k;          /* borrowed: the kernel being scheduled */
	stir_ctx *ctx;           /* borrowed: the kernel's context */
	const char *file;        /* the schedule's file name, interned in ctx */
} applier;

/* Names found in a kernel, in kernel order. */
typedef struct name_list {
	int n, cap;
	const char **v;          /* heap array of arena strings */
} name_list;

/* a, l: location l (of the schedule) in the kernel's context. */
static stir_loc at(const applier *a, stir_loc l)
{
	l.file = a->file;
	return l;
}

/* l, name: add name to l, a second time too.  0 or -1 (memory). */
static int push_name(name_list *l, const char *name)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		const char **v = realloc(l->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = name;
	return 0;
}

/* l, name: add name to l unless it is there.  0 or -1 (memory). */
static int add_name(name_list *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return 0;
	return push_name(l, name);
}

/* l, name: whether name is in l. */
static bool has_name(const name_list *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return true;
	return false;
}

/* st, iters, inner: the statement lists nested in st, into inner[0..1]
 * (NULL where none); st's name when it is a block (an iteration, when
 * "iters"), else NULL. */
static const char *children(const stir_stmt *st, bool iters,
	const stir_ptr_vec *inner[2])
{
	inner[0] = inner[1] = NULL;
	switch (st->kind) {
	case STIR_STMT_BLOCK:
		inner[0] = &st->u.block.body;
		return iters ? NULL : st->u.block.name;
	case STIR_STMT_ITER:
		inner[0] = &st->u.iter.init;
		inner[1] = &st->u.iter.body;
		return iters ? st->u.iter.name : NULL;
	case STIR_STMT_IF:
		inner[0] = &st->u.if_.then_body;
		inner[1] = &st->u.if_.else_body;
		return NULL;
	case STIR_STMT_FOR:
		inner[0] = &st->u.for_.body;
		return NULL;
	default:
		return NULL;
	}
}

/* list, iters, pattern, out: the names of the blocks (iterations, when
 * "iters") in list and everything nested in it that match pattern, in
 * program order.  0 or -1 (memory). */
static int collect(const stir_ptr_vec *list, bool iters, const char *pattern,
	name_list *out)
{
	for (int i = 0; i < list->n; i++) {
		const stir_ptr_vec *inner[2];
		const char *name = children(stir_stmt_at(list, i), iters, inner);
		if (name && fnmatch(pattern, name, 0) == 0 && add_name(out, name) < 0)
			return -1;
		for (int j = 0; j < 2; j++)
			if (inner[j] && collect(inner[j], iters, pattern, out) < 0)
				return -1;
	}
	return 0;
}

/* list, name, iters, out: find block (iteration, when "iters") "name" in
 * list, at any depth; *out then holds the names of the loops enclosing
 * it, outermost first (of an iteration: its iterators), pushed onto what
 * it held.  1 when found, 0 when not, -1 when memory ran out. */
static int names_around(const stir_ptr_vec *list, const char *name,
	bool iters, name_list *out)
{
	for (int i = 0; i < list->n; i++) {
		const stir_stmt *st = stir_stmt_at(list, i);
		const stir_ptr_vec *inner[2];
		const char *here = children(st, iters, inner);
		int n0 = out->n, rc;
		if (here && !strcmp(here, name)) {
			for (int v = 0; iters && v < st->u.iter.n_vars; v++)
				if (push_name(out, st->u.iter.vars[v]->name) < 0)
					return -1;
			return 1;
		}
		if (st->kind == STIR_STMT_FOR &&
		    push_name(out, st->u.for_.var->name) < 0)
			return -1;
		for (int j = 0; j < 2; j++)
			if (inner[j] && (rc = names_around(inner[j], name, iters,
			    out)) != 0)
				return rc;
		out->n = n0;
	}
	return 0;
}

/* a, st, name, target: the names step st gives that must exist in the
 * kernel do: its loops enclose block "name" (compute_at's: "target"),
 * the iterators of iteration "name", buffers, the tensor, the size
 * parameter.  A missing one is an error at its place in the schedule, as
 * the primitive would report it at none.  0 or -1. */
static int check_names(applier *a, const sf_step *st, const char *name,
	const char *target)
{
	const sf_arg *A = st->args;
	const char *prim = sf_prim_name(st->prim);
	stir_kernel *k = a->k;
	bool iters = st->prim == SF_PRIM_SPARSE_REORDER ||
		st->prim == SF_PRIM_SPARSE_FUSE;
	name_list around = { 0 };
	const char *where = target ? target : name;
	int rc = where ? names_around(&k->body, where, iters, &around) : 0;
	if (rc < 0) {
		free(around.v);
		stir_error_oom(a->ctx);
		return -1;
	}
	rc = 0;
	static const sf_arg_id loops[] = { SF_ARG_LOOP, SF_ARG_LOOPS,
		SF_ARG_ORDER, SF_ARG_ITERS };
	for (int i = 0; where && i < 4 && rc == 0; i++) {
		const sf_arg *x = &A[loops[i]];
		int n = x->strs ? x->n : x->set;
		for (int j = 0; j < n && rc == 0; j++) {
			const char *v = x->strs ? x->strs[j] : x->str;
			if (has_name(&around, v))
				continue;
			stir_error(a->ctx, at(a, x->strs ? x->locs[j] : x->loc),
				iters ? "%s: '%s' is not an iterator of iteration '%s'" :
				"%s: block '%s' has no enclosing loop '%s'", prim,
				iters ? v : where, iters ? where : v);
			rc = -1;
		}
	}
	free(around.v);
	const sf_arg *buf = &A[SF_ARG_BUFFER], *dis = &A[SF_ARG_DISJOINT];
	for (int j = 0; j < (buf->set ? 1 : dis->n) && rc == 0; j++) {
		const char *b = buf->set ? buf->str : dis->strs[j];
		if (stir_kernel_find_buffer(k, b))
			continue;
		stir_error(a->ctx, at(a, buf->set ? buf->loc : dis->locs[j]),
			"%s: kernel '%s' has no buffer '%s'", prim, k->name, b);
		rc = -1;
	}
	const sf_arg *t = &A[SF_ARG_TENSOR];
	const stir_buffer *tb = t->set ? stir_kernel_find_buffer(k, t->str) :
		NULL;
	if (rc == 0 && t->set && (!tb || tb->kind != STIR_BUFFER_TENSOR)) {
		stir_error(a->ctx, at(a, t->loc), "%s: kernel '%s' has no tensor "
			"'%s'", prim, k->name, t->str);
		rc = -1;
	}
	const sf_arg *p = &A[SF_ARG_PARAM];
	bool found = !p->set;
	for (int i = 0; !found && i < k->params.n; i++)
		found = !strcmp(stir_var_at(&k->params, i)->name, p->str);
	if (rc == 0 && !found) {
		stir_error(a->ctx, at(a, p->loc), "%s: kernel '%s' has no size "
			"parameter '%s'", prim, k->name, p->str);
		rc = -1;
	}
	return rc;
}

/* a, st, pattern, loc, iters, out: the blocks (iterations) of the kernel
 * that "pattern" (at loc in the schedule) matches; none is an error
 * there.  0 or -1. */
static int match(applier *a, const sf_step *st, const char *pattern,
	stir_loc loc, bool iters, name_list *out)
{
	int n0 = out->n;
	if (collect(&a->k->body, iters, pattern, out) < 0) {
		stir_error_oom(a->ctx);
		return -1;
	}
	if (out->n > n0)
		return 0;
	stir_error(a->ctx, at(a, loc), "%s: no %s of kernel '%s' matches '%s'",
		sf_prim_name(st->prim), iters ? "iteration" : "block", a->k->name,
		pattern);
	return -1;
}

/* a, st: the value of specialize step st must fit the type of its size
 * parameter (when the kernel has it: check_names says when not);
 * reported at the value in the file.  0 or -1. */
static int check_value(applier *a, const sf_step *st)
{
	const sf_arg *name = &st->args[SF_ARG_PARAM], *v = &st->args[SF_ARG_VALUE];
	for (int i = 0; i < a->k->params.n; i++) {
		const stir_var *p = stir_var_at(&a->k->params, i);
		if (strcmp(p->name, name->str) || p->dtype != STIR_I32 ||
		    v->num <= INT32_MAX)
			continue;
		stir_error(a->ctx, at(a, v->loc), "specialize: %lld does not fit "
			"size '%s', which the program declares i32", (long long)v->num,
			p->name);
		return -1;
	}
	return 0;
}

/* a, st, n0, rc, fmt: the result rc of a primitive called for step st;
 * when it failed, every error reported since diagnostic n0 gets a note at
 * the step: "while applying PRIM" and what fmt says. */
static int done(applier *a, const sf_step *st, int n0, int rc,
	const char *fmt, ...) STIR_PRINTF(5, 6);
static int done(applier *a, const sf_step *st, int n0, int rc,
	const char *fmt, ...)
{
	if (rc == 0)
		return 0;
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!sf_note_errors(a->ctx, n0, at(a, st->loc), "while applying %s%s",
	    sf_prim_name(st->prim), what))
		stir_error(a->ctx, at(a, st->loc), "%s failed%s",
			sf_prim_name(st->prim), what);
	return -1;
}

/* ctx, n0, loc, fmt: see file.h. */
bool sf_note_errors(stir_ctx *ctx, int n0, stir_loc loc, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	bool noted = false;
	for (int i = n0; i < stir_ctx_n_diagnostics(ctx); i++) {
		/* the diagnostics belong to the context, which is ours to
		 * annotate; the accessor only hands out const pointers */
		stir_diag *d = (stir_diag *)stir_ctx_get_diagnostic(ctx, i);
		if (stir_diag_get_severity(d) != STIR_ERROR)
			continue;
		stir_diag_locate(d, loc);
		stir_diag_add_note(d, loc, "%s", what);
		noted = true;
	}
	return noted;
}

/* a, st, name, target: call the primitive of step st for block (or
 * iteration) "name"; "target" is the consumer of compute_at. */
static int call_one(applier *a, const sf_step *st, const char *name,
	const char *target)
{
	const sf_arg *A = st->args;
	stir_kernel *k = a->k;
	const char *loop = A[SF_ARG_LOOP].str, *buf = A[SF_ARG_BUFFER].str;
	stir_scope scope = (stir_scope)A[SF_ARG_SCOPE].value;
	const char *per = A[SF_ARG_PER].set ? A[SF_ARG_PER].str : NULL;
	switch (st->prim) {
	case SF_PRIM_SPARSE_REORDER:
		return stir_sparse_reorder(k, name, A[SF_ARG_ORDER].n,
			A[SF_ARG_ORDER].strs);
	case SF_PRIM_SPARSE_FUSE:
		return (A[SF_ARG_COO].value ? stir_sparse_fuse_coo :
			stir_sparse_fuse)(k, name, A[SF_ARG_ITERS].n,
			A[SF_ARG_ITERS].strs);
	case SF_PRIM_SPLIT:
		return stir_split(k, name, loop, A[SF_ARG_FACTORS].n,
			A[SF_ARG_FACTORS].ints);
	case SF_PRIM_FUSE:
		return stir_fuse(k, name, A[SF_ARG_LOOPS].n, A[SF_ARG_LOOPS].strs);
	case SF_PRIM_REORDER:
		return stir_reorder(k, name, A[SF_ARG_LOOPS].n,
			A[SF_ARG_LOOPS].strs);
	case SF_PRIM_BIND:
		return stir_bind(k, name, loop, (stir_thread)A[SF_ARG_TO].value);
	case SF_PRIM_UNROLL:
		return stir_unroll(k, name, loop);
	case SF_PRIM_VECTORIZE:
		return stir_vectorize(k, name, loop);
	case SF_PRIM_GUARD_TO_BOUND:
		return stir_guard_to_bound(k, name, loop);
	case SF_PRIM_TENSORIZE:
		return stir_tensorize(k, name, loop, A[SF_ARG_INTRINSIC].str);
	case SF_PRIM_PIPELINE:
		return stir_software_pipeline_batched(k, name, loop,
			A[SF_ARG_STAGES].num,
			A[SF_ARG_BATCH].set ? A[SF_ARG_BATCH].num : 1);
	case SF_PRIM_SET_ATOMIC:
		return stir_set_atomic(k, name);
	case SF_PRIM_CROSS_THREAD_REDUCE:
		return stir_cross_thread_reduce(k, name, loop);
	case SF_PRIM_RFACTOR:
		return stir_rfactor(k, name, loop);
	case SF_PRIM_DECOMPOSE_REDUCTION:
		return stir_decompose_reduction(k, name, loop);
	case SF_PRIM_COMPUTE_AT:
		return stir_compute_at(k, name, target, loop);
	case SF_PRIM_REVERSE_COMPUTE_AT:
		return stir_reverse_compute_at(k, name, target, loop);
	case SF_PRIM_CACHE_READ:
		if (A[SF_ARG_PAD_EVERY].set || A[SF_ARG_PAD].set)
			return stir_cache_read_padded(k, name, buf, loop, scope, per,
				A[SF_ARG_PAD_EVERY].set ? A[SF_ARG_PAD_EVERY].num : 0,
				A[SF_ARG_PAD].set ? A[SF_ARG_PAD].num : 0);
		return per ? stir_cache_read_per(k, name, buf, loop, scope, per) :
			stir_cache_read(k, name, buf, loop, scope);
	case SF_PRIM_CACHE_WRITE:
	case SF_PRIM_CACHE_WRITE_OVER_INIT:
		if (per)
			return stir_cache_write_per(k, name, buf, loop, scope,
				st->prim == SF_PRIM_CACHE_WRITE_OVER_INIT, per);
		return st->prim == SF_PRIM_CACHE_WRITE ? stir_cache_write(k, name, buf,
			loop, scope) : stir_cache_write_over_init(k, name, buf, loop,
			scope);
	case SF_PRIM_CACHE_WRITE_RUNS:
		return stir_cache_write_runs(k, name, buf, loop, scope);
	case SF_PRIM_REVERSE_CACHE_READ:
		return stir_reverse_cache_read(k, name, buf, loop, scope);
	case SF_PRIM_REVERSE_CACHE_WRITE:
		return stir_reverse_cache_write(k, name, buf, loop, scope);
	case SF_PRIM_DECOMPOSE:
	case SF_PRIM_SPECIALIZE:
	case SF_PRIM_HORIZONTAL_FUSE:
	case SF_PRIM_DEFAULT_SCHEDULE:
	case SF_N_PRIMS:
		break;
	}
	return -1;
}

/* a, st: horizontal_fuse: every block each pattern of "blocks" matches
 * (in the list's order, then kernel order), in one call. */
static int apply_hfuse(applier *a, const sf_step *st)
{
	const sf_arg *blocks = &st->args[SF_ARG_BLOCKS];
	const sf_arg *disjoint = &st->args[SF_ARG_DISJOINT];
	name_list l = { 0 };
	int rc = 0;
	for (int i = 0; i < blocks->n && rc == 0; i++)
		rc = match(a, st, blocks->strs[i], blocks->locs[i], false, &l);
	if (rc == 0)
		rc = check_names(a, st, NULL, NULL);
	if (rc == 0) {
		int n0 = stir_ctx_n_diagnostics(a->ctx);
		rc = disjoint->set ? stir_horizontal_fuse_disjoint(a->k, l.n, l.v,
			disjoint->n, disjoint->strs) : stir_horizontal_fuse(a->k, l.n,
			l.v);
		rc = done(a, st, n0, rc, " to %d block%s", l.n, l.n == 1 ? "" : "s");
	}
	free(l.v);
	return rc;
}

/* a, st, target: the one block that compute_at's "target" pattern
 * matches, in *target.  0 or -1. */
static int match_target(applier *a, const sf_step *st, const char **target)
{
	const sf_arg *t = &st->args[SF_ARG_TARGET];
	name_list l = { 0 };
	int rc = match(a, st, t->str, t->loc, false, &l);
	if (rc == 0 && l.n > 1) {
		stir_error(a->ctx, at(a, t->loc), "%s: 'target' must name one "
			"block, but '%s' matches %d ('%s', '%s'%s)",
			sf_prim_name(st->prim), t->str, l.n, l.v[0], l.v[1],
			l.n > 2 ? ", ..." : "");
		rc = -1;
	}
	*target = rc == 0 ? l.v[0] : NULL;
	free(l.v);
	return rc;
}

/* a, st: apply step st. */
static int apply_step(applier *a, const sf_step *st)
{
	const sf_arg *A = st->args;
	int n0 = stir_ctx_n_diagnostics(a->ctx);
	switch (st->prim) {
	case SF_PRIM_DECOMPOSE:
		if (check_names(a, st, NULL, NULL) < 0)
			return -1;
		return done(a, st, n0, stir_decompose_format(a->k,
			A[SF_ARG_TENSOR].str, A[SF_ARG_RULES].n_rules,
			A[SF_ARG_RULES].rules), " to tensor '%s'", A[SF_ARG_TENSOR].str);
	case SF_PRIM_SPECIALIZE:
		if (check_names(a, st, NULL, NULL) < 0 || check_value(a, st) < 0)
			return -1;
		return done(a, st, n0, stir_specialize(a->k, A[SF_ARG_PARAM].str,
			A[SF_ARG_VALUE].num), " to '%s'", A[SF_ARG_PARAM].str);
	case SF_PRIM_DEFAULT_SCHEDULE:
		return done(a, st, n0, stir_default_schedule(a->k), "%s", "");
	case SF_PRIM_HORIZONTAL_FUSE:
		return apply_hfuse(a, st);
	default:
		break;
	}
	bool iters = st->prim == SF_PRIM_SPARSE_REORDER ||
		st->prim == SF_PRIM_SPARSE_FUSE;
	const sf_arg *pat = &A[iters ? SF_ARG_ITER : SF_ARG_BLOCK];
	const char *target = NULL;
	if (A[SF_ARG_TARGET].set && match_target(a, st, &target) < 0)
		return -1;
	/* the matches are taken first: a step may add blocks (caches,
	 * rfactor) that its pattern would match */
	name_list l = { 0 };
	int rc = match(a, st, pat->str, pat->loc, iters, &l);
	for (int i = 0; i < l.n && rc == 0; i++) {
		if ((rc = check_names(a, st, l.v[i], target)) < 0)
			break;
		n0 = stir_ctx_n_diagnostics(a->ctx);
		rc = done(a, st, n0, call_one(a, st, l.v[i], target), " to %s '%s'",
			iters ? "iteration" : "block", l.v[i]);
	}
	free(l.v);
	return rc;
}

/* sec: the stage of the kernels section sec applies to. */
static stir_stage section_stage(sf_section sec)
{
	return sec <= SF_STAGE1 ? STIR_STAGE_1 : sec == SF_STAGE2 ?
		STIR_STAGE_2 : STIR_STAGE_3;
}

/* a, s, k: start applying s to k: k must be the schedule's kernel.  0 or
 * -1. */
static int applier_init(applier *a, const stir_schedule *s, stir_kernel *k)
{
	a->s = s;
	a->k = k;
	a->ctx = stir_kernel_ctx(k);
	a->file = sf_file_in(s, a->ctx);
	if (!a->file) {
		stir_error_oom(a->ctx);
		return -1;
	}
	if (strcmp(k->name, s->kernel)) {
		stir_error(a->ctx, at(a, s->kernel_loc), "this schedule is for "
			"kernel '%s', not for kernel '%s'", s->kernel, k->name);
		return -1;
	}
	return 0;
}

/* One step of a schedule as a pass of its pipeline (owned by the
 * pipeline). */
typedef struct step_pass {
	const stir_schedule *s;  /* borrowed: outlives the pipeline */
	const sf_step *st;       /* borrowed: a step of s */
	stir_ctx *ctx;           /* borrowed: the context "file" is in */
	const char *file;        /* the schedule's file name, interned in ctx */
} step_pass;

/* k, arg: apply the step of step_pass arg to k. */
static int pass_step(stir_kernel *k, void *arg)
{
	const step_pass *sp = arg;
	applier a = { .s = sp->s, .k = k, .ctx = sp->ctx, .file = sp->file };
	if (stir_kernel_ctx(k) != sp->ctx && applier_init(&a, sp->s, k) < 0)
		return -1;
	return apply_step(&a, sp->st);
}

/* k, arg: the end of a section: nothing to do, a name to stop at. */
static int pass_section_end(stir_kernel *k, void *arg)
{
	(void)k;
	(void)arg;
	return 0;
}

/* a, p, sec: add to p a pass per step of section sec, named SECTION.N (N
 * from 1), then the pass SECTION that ends it.  0 or -1 (memory). */
static int add_section(const applier *a, stir_pipeline *p, sf_section sec)
{
	stir_stage stage = section_stage(sec);
	char name[64];
	for (int i = 0; i < a->s->n_steps[sec]; i++) {
		step_pass *sp = malloc(sizeof(*sp));
		if (!sp)
			return -1;
		*sp = (step_pass){ .s = a->s, .st = &a->s->steps[sec][i],
			.ctx = a->ctx, .file = a->file };
		snprintf(name, sizeof(name), "%s.%d", sf_section_key[sec], i + 1);
		if (stir_pipeline_add_pass_owned(p, name, stage, STIR_PASS_VERIFIES,
		    pass_step, sp) < 0)
			return -1;
	}
	return stir_pipeline_add_pass(p, sf_section_key[sec], 0,
		STIR_PASS_VERIFIES, pass_section_end, NULL);
}

/* k, arg: the default schedule, after the stage3 steps. */
static int pass_default_schedule(stir_kernel *k, void *arg)
{
	(void)arg;
	return stir_default_schedule(k);
}

/* a, up_to: refuse a schedule whose steps apply to a stage before the
 * kernel's, or a kernel past stage up_to.  0 or -1. */
static int check_stages(applier *a, stir_stage up_to)
{
	stir_kernel *k = a->k;
	stir_stage start = k->stage;
	for (int sec = 0; sec < SF_N_SECTIONS; sec++) {
		if (!a->s->n_steps[sec] || section_stage((sf_section)sec) > up_to ||
		    section_stage((sf_section)sec) >= start)
			continue;
		stir_error(a->ctx, at(a, a->s->steps[sec][0].loc), "the steps of %s "
			"apply to a stage %d kernel, but kernel '%s' is at stage %d",
			sf_section_key[sec], (int)section_stage((sf_section)sec),
			k->name, (int)start);
		return -1;
	}
	if (k->stage > up_to) {
		stir_error(a->ctx, k->loc, "kernel '%s' is at stage %d; a schedule "
			"cannot bring it back to stage %d", k->name, (int)k->stage,
			(int)up_to);
		return -1;
	}
	return 0;
}

/* s, k, up_to, gpu: see schedule.h.  The pipeline of the header comment:
 * each step a pass (the primitives verify what they make), skipped on a
 * kernel past its stage; for the GPU, the default schedule after all of
 * them, so that stage3 steps may schedule a nest that stage2 steps left
 * alone (a kernel given at stage III is taken as it is, as
 * stir_kernel_prepare_for_gpu takes it). */
stir_pipeline *stir_pipeline_alloc_for_schedule(const stir_schedule *s,
	const stir_kernel *k, stir_stage up_to, bool gpu)
{
	applier a;
	if (!s || !k || applier_init(&a, s, (stir_kernel *)k) < 0)
		return NULL;
	if (up_to < STIR_STAGE_1 || up_to > STIR_STAGE_3) {
		stir_error(a.ctx, k->loc, "a schedule applies up to stage 1, 2 or "
			"3, not %d", (int)up_to);
		return NULL;
	}
	if (check_stages(&a, up_to) < 0)
		return NULL;
	stir_pipeline *p = stir_pipeline_alloc();
	int rc = p ? 0 : -1;
	rc |= add_section(&a, p, SF_FORMAT);
	rc |= add_section(&a, p, SF_STAGE1);
	if (up_to >= STIR_STAGE_2) {
		rc |= stir_pipeline_add(p, "lower_sparse_iter");
		rc |= add_section(&a, p, SF_STAGE2);
	}
	if (up_to >= STIR_STAGE_3) {
		rc |= stir_pipeline_add(p, "lower_sparse_buffer");
		rc |= add_section(&a, p, SF_STAGE3);
	}
	if (gpu && up_to == STIR_STAGE_3 && k->stage < STIR_STAGE_3)
		rc |= stir_pipeline_add_pass(p, "default_schedule", 0,
			STIR_PASS_VERIFIES, pass_default_schedule, NULL);
	/* then the GPU's stage III rewrites and the barriers, as
	 * stir_kernel_prepare_for_gpu runs them */
	if (gpu && up_to == STIR_STAGE_3) {
		rc |= stir_pipeline_add(p, "lift_guards");
		rc |= stir_pipeline_add(p, "hoist_invariants");
		rc |= stir_pipeline_add(p, "hoist_warp_reads");
		rc |= stir_pipeline_add(p, "insert_barriers");
		rc |= stir_pipeline_add(p, "plan_vectors");
	}
	if (rc < 0) {
		stir_pipeline_free(p);
		return stir_error_oom(a.ctx);
	}
	return p;
}

/* s, k, up_to, gpu: run the schedule's pipeline on k.  0 or -1. */
static int run(const stir_schedule *s, stir_kernel *k, stir_stage up_to,
	bool gpu)
{
	stir_pipeline *p = stir_pipeline_alloc_for_schedule(s, k, up_to, gpu);
	int rc = p ? stir_pipeline_run(p, k) : -1;
	stir_pipeline_free(p);
	if (rc == 0 && s->min_blocks_per_sm)
		k->min_blocks_per_sm = s->min_blocks_per_sm;
	if (rc == 0 && s->overlap_launches)
		k->overlap_launches = true;
	return rc;
}

/* s, k, up_to: see schedule.h. */
int stir_schedule_apply(const stir_schedule *s, stir_kernel *k,
	stir_stage up_to)
{
	return run(s, k, up_to, false);
}

/* s, k: see schedule.h. */
int stir_schedule_prepare_for_gpu(const stir_schedule *s, stir_kernel *k)
{
	return run(s, k, STIR_STAGE_3, true);
}

/* s, m: see schedule.h. */
stir_kernel *stir_schedule_find_kernel(const stir_schedule *s,
	const stir_module *m)
{
	if (!s || !m)
		return NULL;
	stir_kernel *k = stir_module_find_kernel(m, s->kernel);
	if (k)
		return k;
	stir_ctx *ctx = stir_module_get_ctx(m);
	stir_loc l = s->kernel_loc;
	l.file = sf_file_in(s, ctx);
	if (!l.file)
		return stir_error_oom(ctx);
	stir_error(ctx, l, "the program has no kernel '%s'", s->kernel);
	return NULL;
}
