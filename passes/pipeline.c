/* The pipeline object (include/stir/pipeline.h): a list of named passes
 * run in order with the verifier between them, a hook and a printer after
 * any of them.  The registry of the standard passes is in
 * codegen/prepare.c, which knows every folder's passes.
 *
 * The verifier runs once between two passes, not before and after each:
 * the kernel is verified when the run starts and after every pass that
 * does not verify its own result, so that each pass may take a verified
 * kernel for granted (the 200-axis chain of docs/schedules.md spends a
 * quarter of its stage III print in the verifier). */
#include <stdlib.h>
#include <string.h>
#include <stir/lang.h>
#include <stir/pipeline.h>
#include "ir/diag.h"
#include "ir/nodes.h"
#include "passes/passes.h"

/* One pass of a pipeline. */
typedef struct pipe_pass {
	char *name;            /* owned */
	stir_stage stage;      /* runs on kernels at this stage; 0: any */
	unsigned flags;        /* STIR_PASS_* */
	stir_pass_fn fn;
	void *arg;             /* given to fn: borrowed, or owned when "owned" */
	bool owned;            /* arg is the pipeline's to free */
	bool print;            /* print the kernel after this pass */
} pipe_pass;

struct stir_pipeline {
	int n, cap;
	pipe_pass *v;          /* heap array of n passes, in run order */
	int stop;              /* stop after pass number stop; -1: never */
	FILE *out;             /* borrowed: where "print" passes print */
	stir_pipeline_hook hook;
	void *user;            /* borrowed: given to hook */
};

/* (none): see pipeline.h. */
stir_pipeline *stir_pipeline_alloc(void)
{
	stir_pipeline *p = calloc(1, sizeof(*p));
	if (p)
		p->stop = -1;
	return p;
}

/* p: see pipeline.h. */
void stir_pipeline_free(stir_pipeline *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->n; i++) {
		free(p->v[i].name);
		if (p->v[i].owned)
			free(p->v[i].arg);
	}
	free(p->v);
	free(p);
}

/* p, name, stage, flags, fn, arg: see pipeline.h. */
int stir_pipeline_add_pass(stir_pipeline *p, const char *name,
	stir_stage stage, unsigned flags, stir_pass_fn fn, void *arg)
{
	if (!p || !name || !fn || stir_pipeline_find_pass(p, name) >= 0)
		return -1;
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 8;
		pipe_pass *v = realloc(p->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		p->v = v;
		p->cap = cap;
	}
	char *copy = strdup(name);
	if (!copy)
		return -1;
	p->v[p->n++] = (pipe_pass){ .name = copy, .stage = stage,
		.flags = flags, .fn = fn, .arg = arg };
	return 0;
}

/* p, name, stage, flags, fn, arg: see passes/passes.h. */
int stir_pipeline_add_pass_owned(stir_pipeline *p, const char *name,
	stir_stage stage, unsigned flags, stir_pass_fn fn, void *arg)
{
	if (stir_pipeline_add_pass(p, name, stage, flags, fn, arg) < 0) {
		free(arg);
		return -1;
	}
	p->v[p->n - 1].owned = true;
	return 0;
}

/* p: see pipeline.h. */
int stir_pipeline_n_passes(const stir_pipeline *p)
{
	return p ? p->n : 0;
}

/* p, i: see pipeline.h. */
const char *stir_pipeline_get_pass_name(const stir_pipeline *p, int i)
{
	return p && i >= 0 && i < p->n ? p->v[i].name : NULL;
}

/* p, name: see pipeline.h. */
int stir_pipeline_find_pass(const stir_pipeline *p, const char *name)
{
	for (int i = 0; p && name && i < p->n; i++)
		if (!strcmp(p->v[i].name, name))
			return i;
	return -1;
}

/* p, name, f: see pipeline.h. */
int stir_pipeline_set_print_after(stir_pipeline *p, const char *name, FILE *f)
{
	int i = stir_pipeline_find_pass(p, name);
	if (!p || !f || (name && i < 0))
		return -1;
	for (int j = 0; j < p->n; j++)
		p->v[j].print |= !name || j == i;
	p->out = f;
	return 0;
}

/* p, name: see pipeline.h. */
int stir_pipeline_set_stop_after(stir_pipeline *p, const char *name)
{
	int i = stir_pipeline_find_pass(p, name);
	if (i < 0)
		return -1;
	p->stop = i;
	return 0;
}

/* p, hook, user: see pipeline.h. */
void stir_pipeline_set_hook(stir_pipeline *p, stir_pipeline_hook hook,
	void *user)
{
	if (!p)
		return;
	p->hook = hook;
	p->user = user;
}

/* p, pp, k: print kernel k after pass pp of p.  0 or -1. */
static int print_after(const stir_pipeline *p, const pipe_pass *pp,
	stir_kernel *k)
{
	char *text = stir_kernel_to_str(k);
	if (!text) {
		stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	fprintf(p->out, "// after %s\n%s", pp->name, text);
	free(text);
	return 0;
}

/* p, k: see pipeline.h. */
int stir_pipeline_run(const stir_pipeline *p, stir_kernel *k)
{
	if (!p || !k || stir_kernel_verify(k) < 0)
		return -1;
	for (int i = 0; i < p->n; i++) {
		const pipe_pass *pp = &p->v[i];
		if (!pp->stage || pp->stage == k->stage) {
			if (pp->fn(k, pp->arg) < 0)
				return -1;
			if (!(pp->flags & STIR_PASS_VERIFIES) && stir_kernel_verify(k) < 0)
				return -1;
			/* what the pass left behind goes, so that a module holds
			 * memory in proportion to its program between passes
			 * (docs/ir.md, "Memory"); the pass holds nothing across */
			(void)stir_module_collect_if_grown(k->module);
		}
		if (pp->print && print_after(p, pp, k) < 0)
			return -1;
		int rc = p->hook ? p->hook(pp->name, k, p->user) : 0;
		if (rc < 0)
			return -1;
		if (rc > 0 || i == p->stop)
			break;
	}
	return 0;
}

/* p, m: see pipeline.h. */
int stir_pipeline_run_module(const stir_pipeline *p, stir_module *m)
{
	if (!p || !m)
		return -1;
	for (int i = 0; i < m->kernels.n; i++)
		if (stir_pipeline_run(p, stir_kernel_at(&m->kernels, i)) < 0)
			return -1;
	return 0;
}

/* ---- one lowering pass, checked ---- */

/* k, name, stage, rewrite: see passes/passes.h. */
int stir_lowering_run(stir_kernel *k, const char *name, stir_stage stage,
	int (*rewrite)(stir_kernel *k))
{
	if (!k)
		return -1;
	int r = -1;
	stir_made_clear(k);
	if (k->stage != stage)
		stir_error(stir_kernel_ctx(k), k->loc, "%s: kernel '%s' is at "
			"stage %d, not stage %d", name, k->name, (int)k->stage,
			(int)stage);
	else if (stir_kernel_verify(k) == 0) {
		r = rewrite(k) < 0 || stir_kernel_verify(k) < 0 ? -1 : 0;
		if (r < 0)
			stir_made_clear(k);
	}
	(void)stir_module_collect(k->module);
	return r;
}

/* m, stage, pass: see passes/passes.h. */
int stir_lowering_run_module(stir_module *m, stir_stage stage,
	int (*pass)(stir_kernel *k))
{
	for (int i = 0; i < m->kernels.n; i++) {
		stir_kernel *k = stir_kernel_at(&m->kernels, i);
		if (k->stage == stage && pass(k) < 0)
			return -1;
	}
	return 0;
}
