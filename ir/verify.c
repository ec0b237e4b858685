/* The verifier: docs/language.md section 6, and for kernels of stages II
 * and III the rules of docs/ir.md ("What the verifier checks"), which
 * extend the same walk: the type and scope rules of expressions and
 * statements hold at every stage, and each stage admits its own nodes.
 *
 * Requires: nothing.  A kernel may be malformed in any way the C API
 * allows: axes, buffers, variables or statements of another kernel, wrong
 * counts, an iteration or `if` appended inside itself.  Nothing here
 * follows a chain of pointers (axis parents, nested statements) without a
 * bound, so every such module is reported on, never crashed on.
 * Preserves: everything; the verifier only reads the IR and reports.
 *
 * Every violation is one error at the offending node's location, with
 * notes pointing at related nodes; checking goes on after an error, and an
 * expression whose type cannot be known (because of an error below it)
 * gives STIR_DTYPE_NONE so that one mistake is reported once.
 *
 * The verifier is four files, one group of rules of section 6 each, with
 * their shared state and helpers in ir/verify.h:
 *   ir/verify.c       names (rule 1), the entry points for kernels and
 *                     modules;
 *   ir/verify_decl.c  parameters and sizes (rule 2), axes (rule 3),
 *                     tensors and locals (rule 4), the flat and auxiliary
 *                     buffers of stages II and III;
 *   ir/verify_expr.c  the scope of the statement walk, expressions
 *                     (rule 6);
 *   ir/verify_stmt.c  statements (rule 6), iterations (rule 5), the loops
 *                     and blocks of stages II and III.
 */
#include <stdlib.h>
#include <string.h>
#include "ir/verify.h"
#include "ir/vector.h"

/* ---- small helpers ---- */

/* v: memory ran out; reported once. */
static void note_oom(verifier *v)
{
	if (!v->oom)
		stir_error_oom(v->ctx);
	v->oom = true;
}

/* v: the verifier; p, cap: a malloc'd array and its capacity in elements;
 * need: the count it must hold; size: one element's size.  Grows the
 * array, reporting "out of memory" once on failure.  0 or -1. */
int verify_grow(verifier *v, void **p, int *cap, int need, size_t size)
{
	if (need <= *cap)
		return 0;
	int n = *cap ? 2 * *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, (size_t)n * size);
	if (!q) {
		note_oom(v);
		return -1;
	}
	*p = q;
	*cap = n;
	return 0;
}

/* v, loc, what, name: "what" (with "name" in quotes when not NULL) is
 * not allowed in a kernel of v's stage. */
void verify_report_stage(verifier *v, stir_loc loc, const char *what,
	const char *name)
{
	if (name)
		stir_error(v->ctx, loc, "%s '%s' is not allowed in a stage %d "
			"kernel", what, name, (int)v->k->stage);
	else
		stir_error(v->ctx, loc, "%s is not allowed in a stage %d kernel",
			what, (int)v->k->stage);
}

/* ---- names (rule 1) ---- */

/* One name of the kernel namespace, for the duplicate check. */
typedef struct decl {
	const char *name;       /* borrowed */
	stir_loc loc;           /* of the declaration */
} decl;

/* a, b, ia, ib: two declarations with the same name, at positions ia and
 * ib of the list (parameters, then axes, then buffers); whether "a" comes
 * first in the source.  Nodes built without a location fall back on the
 * order of the lists. */
static bool decl_before(const decl *a, int ia, const decl *b, int ib)
{
	if (a->loc.line > 0 && b->loc.line > 0 &&
	    (a->loc.line != b->loc.line || a->loc.col != b->loc.col))
		return a->loc.line < b->loc.line ||
			(a->loc.line == b->loc.line && a->loc.col < b->loc.col);
	return ia < ib;
}

/* v, what, name, loc, prev_loc: report a second declaration of "name"
 * ("what" says in which namespace: "name ", "iteration name "). */
static void report_duplicate(verifier *v, const char *what, const char *name,
	stir_loc loc, stir_loc prev_loc)
{
	stir_diag *d = stir_error(v->ctx, loc, "duplicate %s'%s'", what, name);
	stir_diag_add_note(d, prev_loc, "previous declaration of '%s' is here",
		name);
}

/* v: the verifier of a kernel whose parameters, axes, tensors and locals
 * must have distinct names.  Each duplicate is reported at the later
 * declaration in the source, with a note at the first one. */
static void check_kernel_names(verifier *v)
{
	stir_kernel *k = v->k;
	int n = k->params.n + k->axes.n + k->buffers.n;
	if (n == 0)
		return;
	decl *d = malloc((size_t)n * sizeof(*d));
	if (!d) {
		v->oom = true;
		stir_error_oom(v->ctx);
		return;
	}
	int j = 0;
	for (int i = 0; i < k->params.n; i++, j++) {
		stir_var *p = stir_var_at(&k->params, i);
		d[j] = (decl){ p->name, p->loc };
	}
	for (int i = 0; i < k->axes.n; i++, j++) {
		stir_axis *a = stir_axis_at(&k->axes, i);
		d[j] = (decl){ a->name, a->loc };
	}
	for (int i = 0; i < k->buffers.n; i++, j++) {
		stir_buffer *b = stir_buffer_at(&k->buffers, i);
		d[j] = (decl){ b->name, b->loc };
	}
	/* the declarations grouped by name (hashed), each group in index
	 * order: only a name's own declarations are compared */
	stir_names set = { 0 };
	int *gid = malloc((size_t)n * sizeof(*gid));
	int *start = calloc((size_t)n + 1, sizeof(*start));
	int *member = malloc((size_t)n * sizeof(*member));
	bool ok = gid && start && member;
	for (int i = 0; ok && i < n; i++) {
		if ((gid[i] = stir_names_find(&set, d[i].name)) < 0 &&
		    stir_names_add(&set, d[i].name) == 0)
			gid[i] = set.n - 1;
		ok = gid[i] >= 0;
		if (ok)
			start[gid[i] + 1]++;
	}
	if (!ok) {
		note_oom(v);
		n = 0;
		set.n = 0;
	}
	for (int g = 0; g < set.n; g++)
		start[g + 1] += start[g];
	for (int i = 0, *fill = start; i < n; i++)
		member[fill[gid[i]]++] = i;
	/* start[g] is now the end of group g: group g is [start[g-1], start[g]) */
	for (int i = 0; i < n; i++) {
		int first = -1, g = gid[i];
		for (int m = g ? start[g - 1] : 0; m < start[g]; m++) {
			int p = member[m];
			if (p != i && decl_before(&d[p], p, &d[i], i) &&
			    (first < 0 || decl_before(&d[p], p, &d[first], first)))
				first = p;
		}
		if (first >= 0)
			report_duplicate(v, "name ", d[i].name, d[i].loc,
				d[first].loc);
	}
	stir_names_release(&set);
	free(gid);
	free(start);
	free(member);
	free(d);
}

/* v, name, loc: record a kernel name declared at loc, the first of its
 * name kept. */
static void add_kernel_name(verifier *v, const char *name, stir_loc loc)
{
	if (stir_names_has(&v->kernel_names, name))
		return;
	int n = v->kernel_names.n;
	if (verify_grow(v, (void **)&v->kernel_locs, &v->cap_kernel_locs, n + 1,
	    sizeof(*v->kernel_locs)) < 0)
		return;
	if (stir_names_add(&v->kernel_names, name) < 0) {
		note_oom(v);
		return;
	}
	v->kernel_locs[n] = loc;
}

/* v, name, loc: the location of a declaration of "name" in the kernel
 * namespace (parameters, axes, buffers) in *loc; false when there is
 * none.  Hashed: a kernel of thousands of names
 * costs one lookup per name checked, not a scan. */
static bool find_kernel_name(verifier *v, const char *name, stir_loc *loc)
{
	stir_kernel *k = v->k;
	if (!v->kernel_names_ok && !v->oom) {
		for (int i = 0; i < k->params.n; i++)
			add_kernel_name(v, stir_var_at(&k->params, i)->name,
				stir_var_at(&k->params, i)->loc);
		for (int i = 0; i < k->axes.n; i++)
			add_kernel_name(v, stir_axis_at(&k->axes, i)->name,
				stir_axis_at(&k->axes, i)->loc);
		for (int i = 0; i < k->buffers.n; i++)
			add_kernel_name(v, stir_buffer_at(&k->buffers, i)->name,
				stir_buffer_at(&k->buffers, i)->loc);
		v->kernel_names_ok = !v->oom;
	}
	if (v->kernel_names_ok) {
		int i = stir_names_find(&v->kernel_names, name);
		if (i >= 0)
			*loc = v->kernel_locs[i];
		return i >= 0;
	}
	/* out of memory: the scan */
	for (int i = 0; i < k->params.n; i++)
		if (!strcmp(stir_var_at(&k->params, i)->name, name)) {
			*loc = stir_var_at(&k->params, i)->loc;
			return true;
		}
	for (int i = 0; i < k->axes.n; i++)
		if (!strcmp(stir_axis_at(&k->axes, i)->name, name)) {
			*loc = stir_axis_at(&k->axes, i)->loc;
			return true;
		}
	for (int i = 0; i < k->buffers.n; i++)
		if (!strcmp(stir_buffer_at(&k->buffers, i)->name, name)) {
			*loc = stir_buffer_at(&k->buffers, i)->loc;
			return true;
		}
	return false;
}

/* v, sc, var: an iterator or let about to come into scope; its name must
 * not repeat a name already in scope. */
void verify_check_new_var_name(verifier *v, const scope *sc,
	const stir_var *var)
{
	stir_loc prev;
	if (find_kernel_name(v, var->name, &prev)) {
		report_duplicate(v, "name ", var->name, var->loc, prev);
		return;
	}
	for (int i = sc->n_vars - 1; i >= 0; i--)
		if (!strcmp(sc->vars[i]->name, var->name)) {
			report_duplicate(v, "name ", var->name, var->loc,
				sc->vars[i]->loc);
			return;
		}
}

/* s: an iteration or a block; its name. */
static const char *stmt_name(const stir_stmt *s)
{
	return s->kind == STIR_STMT_ITER ? s->u.iter.name : s->u.block.name;
}

/* v, s: an iteration or block whose name must differ from every other
 * iteration's (block's) in the kernel: schedules find them by name. */
void verify_check_stmt_name(verifier *v, const stir_stmt *s)
{
	int kind = s->kind == STIR_STMT_BLOCK;
	stir_names *set = &v->named_set[kind];
	int i = stir_names_find(set, stmt_name(s));
	if (i >= 0 && v->named_first[kind][i] != s) {
		report_duplicate(v, s->kind == STIR_STMT_ITER ?
			"iteration name " : "block name ", stmt_name(s),
			s->loc, v->named_first[kind][i]->loc);
	} else if (i < 0 && verify_grow(v, (void **)&v->named_first[kind],
		   &v->cap_first[kind], set->n + 1, sizeof(*v->named_first[kind]))
		   == 0) {
		v->named_first[kind][set->n] = s;
		if (stir_names_add(set, stmt_name(s)) < 0)
			note_oom(v);
	}
	if (verify_grow(v, (void **)&v->named, &v->cap_named, v->n_named + 1,
		 sizeof(*v->named)) == 0)
		v->named[v->n_named++] = s;
}

/* ---- kernels and modules ---- */

/* v: the body of the kernel, walked with a fresh scope.  In stage I its
 * statements are iterations (LANGUAGE.md section 2): stores, lets and ifs
 * have a place only inside one. */
static void check_body(verifier *v)
{
	for (int i = 0; v->k->stage == STIR_STAGE_1 && i < v->k->body.n; i++) {
		const stir_stmt *s = stir_stmt_at(&v->k->body, i);
		if (s->kind != STIR_STMT_ITER)
			stir_error(v->ctx, s->loc, "only iterations may appear at "
				"the top level of a kernel");
	}
	scope sc;
	if (verify_scope_init(v, &sc) == 0) {
		sc.depth = 1; /* the kernel's body */
		verify_check_stmts(v, &sc, &v->k->body);
	}
	verify_scope_release(&sc);
}

/* k: the kernel to check against the rules of its stage. */
int stir_kernel_verify(stir_kernel *k)
{
	if (!k)
		return -1;
	stir_ctx *ctx = stir_kernel_ctx(k);
	int errors = stir_ctx_n_errors(ctx);
	if (k->stage < STIR_STAGE_1 || k->stage > STIR_STAGE_3) {
		stir_error(ctx, k->loc, "kernel '%s' has an invalid stage %d",
			k->name, (int)k->stage);
		return -1;
	}
	verifier v = { .k = k, .ctx = ctx };
	check_kernel_names(&v);
	verify_check_params(&v);
	verify_check_axes(&v);
	verify_check_buffers(&v);
	check_body(&v);
	/* the loops' vector plans assume a kernel otherwise sound */
	if (stir_ctx_n_errors(ctx) == errors)
		stir_vec_verify_kernel(k);
	free(v.named);
	for (int i = 0; i < 2; i++) {
		stir_names_release(&v.named_set[i]);
		free(v.named_first[i]);
	}
	stir_names_release(&v.kernel_names);
	free(v.kernel_locs);
	return stir_ctx_n_errors(ctx) > errors ? -1 : 0;
}

/* m: the module; kernel names must be distinct, and every kernel is
 * verified even after one fails. */
int stir_module_verify(stir_module *m)
{
	if (!m)
		return -1;
	int errors = stir_ctx_n_errors(m->ctx);
	for (int i = 0; i < m->kernels.n; i++) {
		stir_kernel *k = stir_kernel_at(&m->kernels, i);
		for (int j = 0; j < i; j++) {
			stir_kernel *p = stir_kernel_at(&m->kernels, j);
			if (!strcmp(p->name, k->name)) {
				stir_diag *d = stir_error(m->ctx, k->loc,
					"duplicate kernel name '%s'", k->name);
				stir_diag_add_note(d, p->loc,
					"previous declaration of '%s' is here",
					k->name);
				break;
			}
		}
		stir_kernel_verify(k);
	}
	return stir_ctx_n_errors(m->ctx) > errors ? -1 : 0;
}
