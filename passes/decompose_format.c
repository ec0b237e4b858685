/* decompose_format (include/stir/passes.h, docs/formats.md; SparseTIR
 * section 3.2.1).
 *
 * Requires: a verified stage I kernel; the tensor read, and only at the
 * iterators of a run of its own axes, in top-level iterations.
 * Does: for every such iteration and every rule, a copy of the iteration
 * over the rule's new axes (in place of the tensor's), reading the new
 * tensor at the new iterators and using the inverse map wherever the old
 * coordinates were used; the iteration's init as an iteration NAME_init of
 * its own before them (rules that cover the rows: in each copy, over the
 * copy's own rows); the value copies in a new kernel KERNEL_copy; the
 * old tensor, and axes and parameters left unused, removed.
 * Checks everything it can first; if verification still fails at the end
 * (an inconsistent rule), the kernel and the module are restored. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passes/decompose.h"
#include "ir/util.h"
#include "ir/visit.h"

/* ---- finding the computations ---- */

/* Why a tensor cannot be decomposed when it is written. */
static const char written_msg[] = "is written; only tensors that are read "
	"can be decomposed";

typedef struct access_check {
	const stir_buffer *t;
	stir_var *const *vars; /* the iterators the tensor must be read at */
	const char *bad;       /* what was wrong, or NULL */
	stir_loc loc;
} access_check;

/* slot, user: a load of the tensor must be at exactly c->vars (an
 * access_check: *slot's indices are looked at after it). */
static stir_visit_step check_load(stir_expr **slot, void *user)
{
	access_check *c = user;
	const stir_expr *e = *slot;
	if (e->kind != STIR_EXPR_LOAD || e->u.load.buf != c->t)
		return STIR_VISIT_GO;
	for (int i = 0; i < e->u.load.n; i++) {
		const stir_expr *x = e->u.load.idx[i];
		if (!c->vars || x->kind != STIR_EXPR_VAR || x->u.var != c->vars[i]) {
			c->bad = "is read at other coordinates than the iterators of "
				"its own axes";
			c->loc = e->loc;
			return STIR_VISIT_STOP;
		}
	}
	return STIR_VISIT_GO;
}

/* s, user: the tensor must not be stored to (an access_check). */
static stir_visit_step check_store(stir_stmt *s, void *user)
{
	access_check *c = user;
	if (s->kind != STIR_STMT_STORE || s->u.store.buf != c->t)
		return STIR_VISIT_GO;
	c->bad = written_msg;
	c->loc = s->loc;
	return STIR_VISIT_STOP;
}

/* c, list: the accesses in the statements of list; the first wrong one
 * sets c->bad. */
static void check_list_access(access_check *c, const stir_ptr_vec *list)
{
	stir_visitor v = { check_store, NULL, check_load, NULL, 0, c };
	if (!c->bad)
		stir_visit_list(&v, (stir_ptr_vec *)list);
}

/* d, it, first_var: the first group of a run of plain groups iterating the
 * tensor's axes in order, or -1; *first_var its first iterator. */
static int find_run(const dec *d, const stir_stmt *it, int *first_var)
{
	int n = d->t->n_axes;
	for (int g = 0, v = 0; g < it->u.iter.n_groups; g++) {
		bool run = g + n <= it->u.iter.n_groups;
		for (int i = 0; run && i < n; i++) {
			const stir_iter_group *grp = &it->u.iter.groups[g + i];
			run = grp->kind == STIR_GROUP_AXIS &&
				grp->axes[0] == d->t->axes[i];
		}
		if (run) {
			*first_var = v;
			return g;
		}
		v += it->u.iter.groups[g].n_axes;
	}
	return -1;
}

/* d: find the iterations to rewrite and check that the tensor is used
 * nowhere else. */
static void find_computations(dec *d)
{
	stir_ptr_vec *body = &d->k->body;
	d->comps = calloc((size_t)body->n + 1, sizeof(*d->comps));
	if (!d->comps) {
		d->failed = true;
		stir_error_oom(d->ctx);
		return;
	}
	for (int i = 0; i < body->n && !d->failed; i++) {
		stir_stmt *it = stir_stmt_at(body, i);
		stir_ptr_vec one = { 1, 1, (void **)&it };
		access_check any = { d->t, NULL, NULL, { 0, 0, 0 } };
		check_list_access(&any, &one);
		if (!any.bad)
			continue; /* does not touch the tensor */
		if (any.bad == written_msg) {
			fail(d, any.loc, "'%s' %s", d->t->name, written_msg);
			break;
		}
		int first_var = 0, g = it->kind == STIR_STMT_ITER ?
			find_run(d, it, &first_var) : -1;
		access_check c = { d->t, g >= 0 ? it->u.iter.vars + first_var : NULL,
			NULL, { 0, 0, 0 } };
		if (g >= 0) {
			check_list_access(&c, &it->u.iter.init);
			check_list_access(&c, &it->u.iter.body);
		}
		if (g < 0) {
			fail(d, it->loc, "iteration '%s' does not iterate the axes of "
				"'%s' in order, as plain axes",
				it->kind == STIR_STMT_ITER ? it->u.iter.name : "?",
				d->t->name);
		} else if (c.bad) {
			fail(d, c.loc, "'%s' %s", d->t->name, c.bad);
		} else {
			computation comp = { i, it, g, first_var };
			d->comps[d->n_comps++] = comp;
		}
	}
	if (!d->failed && d->n_comps == 0)
		fail(d, d->t->loc, "no iteration of kernel '%s' reads '%s'",
			d->k->name, d->t->name);
}

/* ---- checking the rules ---- */

/* d, ref: the tensor axis number of "^K", or -1. */
static int old_ref(const dec *d, const char *ref)
{
	if (!ref || ref[0] != '^' || !isdigit((unsigned char)ref[1]))
		return -1;
	int k = atoi(ref + 1);
	return k < d->t->n_axes ? k : -1;
}

/* r, before, name: the index of the rule axis called "name" before axis
 * number "before", or -1. */
static int rule_axis_index(const stir_format_rule *r, int before,
	const char *name)
{
	for (int j = 0; j < before; j++)
		if (!r->axes[j].keep && !strcmp(r->axes[j].name, name))
			return j;
	return -1;
}

/* d, base, suffix: see decompose.h. */
const char *decompose_suffixed(dec *d, const char *base, const char *suffix)
{
	const char *s = stir_kernel_strf(d->k, "%s%s", base, suffix);
	if (!s)
		d->failed = true;
	return s;
}

/* k, name: whether a parameter, axis or buffer of the kernel is "name". */
static bool kernel_has_name(const stir_kernel *k, const char *name)
{
	if (!name)
		return false;
	for (int i = 0; i < k->params.n; i++)
		if (!strcmp(stir_var_at(&k->params, i)->name, name))
			return true;
	return stir_kernel_find_axis(k, name) || stir_kernel_find_buffer(k, name);
}

/* d, r: check rule r against the tensor before anything changes. */
static void check_rule(dec *d, const stir_format_rule *r)
{
	int n_old = d->t->n_axes;
	bool *mapped = stir_kernel_array(d->k, (size_t)n_old, sizeof(*mapped));
	if (!mapped) {
		d->failed = true;
		return;
	}
	if (r->n_axes == 0)
		fail(d, d->t->loc, "rule '%s' has no axes", r->suffix);
	for (int i = 0; i < r->n_axes && !d->failed; i++) {
		const rule_axis *a = &r->axes[i];
		if (a->keep) {
			int k = old_ref(d, a->name);
			if (k < 0)
				fail(d, d->t->loc, "rule '%s' keeps '%s', which is not "
					"an axis of '%s'", r->suffix, a->name, d->t->name);
			else
				mapped[k] = true;
			continue;
		}
		const char *nm = decompose_suffixed(d, a->name, r->suffix);
		if (kernel_has_name(d->k, nm))
			fail(d, d->t->loc, "rule '%s': the name '%s' is already used "
				"in kernel '%s'", r->suffix, nm, d->k->name);
		bool has_parent = a->kind != STIR_DENSE_FIXED;
		if (has_parent != (a->parent != NULL) || (a->parent &&
		    old_ref(d, a->parent) < 0 && rule_axis_index(r, i, a->parent) < 0))
			fail(d, d->t->loc, "rule '%s': axis '%s' has %s parent",
				r->suffix, a->name, has_parent ? "no valid" : "a");
		for (int s = 0; s < 2; s++) {
			const stir_size *z = s ? &a->nnz : &a->len;
			const char *pn = z->param ? decompose_suffixed(d, z->param, r->suffix) :
				NULL;
			if (kernel_has_name(d->k, pn))
				fail(d, d->t->loc, "rule '%s': the parameter '%s' is "
					"already a name in kernel '%s'", r->suffix, pn,
					d->k->name);
			if (!z->param && z->old_axis >= n_old)
				fail(d, d->t->loc, "rule '%s': axis '%s' takes the size "
					"of a tensor axis '%s' does not have", r->suffix,
					a->name, d->t->name);
		}
	}
	for (int i = 0; i < r->n_maps && !d->failed; i++) {
		const rule_map *m = &r->maps[i];
		const char *tn = m->through ? decompose_suffixed(d, m->through,
			r->suffix) : NULL;
		if (kernel_has_name(d->k, tn) || (tn && kernel_has_name(d->k,
		    stir_kernel_strf(d->k, "%s_rows", tn))))
			fail(d, d->t->loc, "rule '%s': the name '%s' is already used "
				"in kernel '%s'", r->suffix, tn, d->k->name);
		else if (m->old_axis < 0 || m->old_axis >= n_old ||
		    mapped[m->old_axis])
			fail(d, d->t->loc, "rule '%s' maps axis %d of '%s' twice or "
				"not at all", r->suffix, m->old_axis, d->t->name);
		else
			mapped[m->old_axis] = true;
	}
	for (int k = 0; k < n_old && !d->failed; k++)
		if (!mapped[k])
			fail(d, d->t->loc, "rule '%s' gives no coordinate for axis '%s' "
				"of '%s'", r->suffix, d->t->axes[k]->name, d->t->name);
}

/* ---- building the new format ---- */

/* d, kind, name, from: record what the pass made (stir_kernel_get_made). */
static void made(dec *d, stir_made_kind kind, const char *name,
	const char *from)
{
	if (!d->failed && name && stir_made_add(d->k, kind, name, from) < 0)
		d->failed = true;
}

/* d, r, z: the expression of size z of rule r (a new parameter is added
 * to the kernel the first time). */
static stir_expr *size_expr(dec *d, const stir_format_rule *r, const stir_size *z)
{
	if (z->param) {
		const char *name = decompose_suffixed(d, z->param, r->suffix);
		if (!name)
			return NULL;
		for (int i = 0; i < d->k->params.n; i++)
			if (!strcmp(stir_var_at(&d->k->params, i)->name, name))
				return stir_expr_var(d->k, stir_var_at(&d->k->params, i));
		made(d, STIR_MADE_PARAM, name, d->t->name);
		return stir_expr_var(d->k, stir_kernel_add_param(d->k, name, STIR_I32));
	}
	if (z->old_axis >= 0)
		return stir_expr_copy(d->k, d->t->axes[z->old_axis]->len, NULL);
	return stir_expr_int(d->k, z->value);
}

/* d, ri, m: the tensor THROUGH_SUFFIX that map m of rule ri reads, over
 * an axis of its own, THROUGH_SUFFIX_rows, as long as the map's sum
 * reaches (1 + sum of coef x (extent - 1)), declared distinct in [0, that
 * length) and of the mapped axis's index type. */
static void build_through(dec *d, int ri, const rule_map *m)
{
	const stir_format_rule *r = d->rules[ri];
	stir_kernel *k = d->k;
	stir_expr *len = NULL;
	int64_t lit = 1;
	for (int j = 0; j < m->n; j++) {
		const stir_expr *x = d->axes[ri][m->axes[j]]->len;
		lit -= m->coefs[j];
		if (x->kind == STIR_EXPR_INT) {
			lit += m->coefs[j] * x->u.i;
			continue;
		}
		stir_expr *term = stir_mk_mul(k, stir_expr_int(k, m->coefs[j]),
			stir_expr_copy(k, x, NULL));
		len = len ? stir_mk_add(k, len, term) : term;
	}
	if (lit || !len)
		len = len ? stir_mk_add(k, len, stir_expr_int(k, lit)) :
			stir_expr_int(k, lit);
	const char *name = decompose_suffixed(d, m->through, r->suffix);
	const char *aname = name ? stir_kernel_strf(k, "%s_rows", name) : NULL;
	stir_axis *axis = aname && len ? stir_kernel_add_dense_fixed(k, aname,
		len) : NULL;
	stir_buffer *p = axis ? stir_kernel_add_tensor(k, name,
		d->t->axes[m->old_axis]->idtype, 1, &axis) : NULL;
	if (!p) {
		d->failed = true;
		return;
	}
	axis->loc = p->loc = d->t->loc;
	stir_axis_set_idtype(axis, d->t->axes[m->old_axis]->idtype);
	stir_buffer_set_domain(p, stir_expr_int(k, 0), stir_expr_copy(k, len,
		NULL));
	stir_buffer_set_distinct(p, true);
	d->through[ri] = p;
	made(d, STIR_MADE_AXIS, aname, name);
	made(d, STIR_MADE_BUFFER, name, d->t->name);
}

/* d, ri: add rule ri's new axes and tensor to the kernel. */
static void build_format(dec *d, int ri)
{
	const stir_format_rule *r = d->rules[ri];
	stir_kernel *k = d->k;
	stir_axis **axes = calloc((size_t)r->n_axes, sizeof(*axes));
	d->axes[ri] = axes;
	if (!axes) {
		d->failed = true;
		return;
	}
	for (int i = 0; i < r->n_axes && !d->failed; i++) {
		const rule_axis *a = &r->axes[i];
		if (a->keep) {
			axes[i] = d->t->axes[old_ref(d, a->name)];
			continue;
		}
		stir_axis *parent = NULL;
		if (a->parent)
			parent = old_ref(d, a->parent) >= 0 ?
				d->t->axes[old_ref(d, a->parent)] :
				axes[rule_axis_index(r, i, a->parent)];
		const char *name = decompose_suffixed(d, a->name, r->suffix);
		stir_expr *len = size_expr(d, r, &a->len);
		switch (a->kind) {
		case STIR_DENSE_FIXED:
			axes[i] = stir_kernel_add_dense_fixed(k, name, len);
			break;
		case STIR_DENSE_VARIABLE:
			axes[i] = stir_kernel_add_dense_variable(k, name, parent, len,
				size_expr(d, r, &a->nnz));
			break;
		case STIR_SPARSE_FIXED:
			axes[i] = stir_kernel_add_sparse_fixed(k, name, parent, len,
				size_expr(d, r, &a->nnz));
			break;
		case STIR_SPARSE_VARIABLE:
			axes[i] = stir_kernel_add_sparse_variable(k, name, parent, len,
				size_expr(d, r, &a->nnz));
			break;
		}
		if (!axes[i]) {
			d->failed = true;
			return;
		}
		axes[i]->loc = d->t->loc;
		stir_axis_set_sorted(axes[i], a->sorted);
		stir_axis_set_idtype(axes[i], d->t->axes[r->maps[0].old_axis]->idtype);
	}
	d->tensors[ri] = stir_kernel_add_tensor(k,
		decompose_suffixed(d, d->t->name, r->suffix), d->t->dtype, r->n_axes, axes);
	if (!d->tensors[ri]) {
		d->failed = true;
		return;
	}
	d->tensors[ri]->loc = d->t->loc;
	made(d, STIR_MADE_BUFFER, d->tensors[ri]->name, d->t->name);
	for (int i = 0; i < r->n_axes; i++)
		made(d, STIR_MADE_AXIS, axes[i]->name, d->tensors[ri]->name);
	for (int i = 0; i < r->n_maps && !d->failed; i++)
		if (r->maps[i].through)
			build_through(d, ri, &r->maps[i]);
}

/* ---- rewriting the computations ---- */

/* k, name: see decompose.h. */
const char *decompose_lower_case(stir_kernel *k, const char *name)
{
	char *s = stir_kernel_strf(k, "%s", name);
	for (char *p = s; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}

/* Iterator names in scope of a rewritten iteration. */
typedef struct iter_names {
	stir_names names;
} iter_names;

/* s, user: reserve in the name set "user" the iterator names of s, when
 * an iteration: fresh names skip them from now on. */
static stir_visit_step reserve_iter_names(stir_stmt *s, void *user)
{
	if (s->kind == STIR_STMT_ITER)
		for (int j = 0; j < s->u.iter.n_vars; j++)
			stir_names_fresh(user, s->u.iter.vars[j]->name);
	return STIR_VISIT_GO;
}

/* names, list: record the iterator names used in list (a stage I list:
 * iterations, ifs, stores and lets), outermost first. */
static void add_iter_names(stir_names *names, const stir_ptr_vec *list)
{
	stir_visitor v = { reserve_iter_names, NULL, NULL, NULL, 0, names };
	stir_visit_list(&v, (stir_ptr_vec *)list);
}

/* d, r, k, new_vars, through: see decompose.h. */
stir_expr *decompose_inverse(dec *d, const stir_format_rule *r, int k,
	stir_var *const *new_vars, stir_buffer *through)
{
	for (int i = 0; i < r->n_axes; i++)
		if (r->axes[i].keep && old_ref(d, r->axes[i].name) == k)
			return stir_expr_var(d->k, new_vars[i]);
	for (int i = 0; i < r->n_maps; i++) {
		const rule_map *m = &r->maps[i];
		if (m->old_axis != k)
			continue;
		stir_expr *e = NULL;
		for (int j = 0; j < m->n; j++) {
			stir_expr *term = stir_mk_mul(d->k, stir_expr_int(d->k,
				m->coefs[j]), stir_expr_var(d->k, new_vars[m->axes[j]]));
			e = e ? stir_mk_add(d->k, e, term) : term;
		}
		return m->through ? stir_expr_load(d->k, through, 1, &e) : e;
	}
	return NULL;
}

/* d, r, i, old_kinds: the letter of rule axis i: the letter of the tensor
 * axis it maps to (a kept axis: its own), else R when an axis under it is
 * a reduction, else the letter of the tensor's first axis. */
static char new_letter(dec *d, const stir_format_rule *r, int i,
	const char *old_kinds)
{
	if (r->axes[i].keep)
		return old_kinds[old_ref(d, r->axes[i].name)];
	for (int m = 0; m < r->n_maps; m++)
		for (int j = 0; j < r->maps[m].n; j++)
			if (r->maps[m].axes[j] == i)
				return old_kinds[r->maps[m].old_axis];
	/* an axis no map names groups the axes under it (SR-BCRS's groups
	 * hold its tiles): a reduction when they are */
	for (int j = i + 1; j < r->n_axes; j++)
		if (!r->axes[j].keep && r->axes[j].parent &&
		    !strcmp(r->axes[j].parent, r->axes[i].name) &&
		    new_letter(d, r, j, old_kinds) == 'R')
			return 'R';
	return old_kinds[0];
}

/* What retarget_load carries. */
typedef struct retarget {
	dec *d;
	int ri;                   /* the rule */
	stir_var *const *vars;    /* the new iterators */
} retarget;

/* slot, user: a load of the old tensor becomes a load of rule ri's new
 * tensor at the new iterators (a retarget); its old indices are dropped,
 * so the walk does not enter them. */
static stir_visit_step retarget_load(stir_expr **slot, void *user)
{
	retarget *t = user;
	dec *d = t->d;
	stir_expr *e = *slot;
	if (e->kind != STIR_EXPR_LOAD || e->u.load.buf != d->t)
		return STIR_VISIT_GO;
	const stir_format_rule *r = d->rules[t->ri];
	stir_expr **idx = stir_arena_alloc(stir_kernel_arena(d->k),
		(size_t)r->n_axes * sizeof(*idx));
	if (!idx) {
		d->failed = true;
		return STIR_VISIT_SKIP;
	}
	for (int i = 0; i < r->n_axes; i++)
		if (!(idx[i] = stir_expr_var(d->k, t->vars[i])))
			d->failed = true;
	e->u.load.buf = d->tensors[t->ri];
	e->u.load.n = r->n_axes;
	e->u.load.idx = idx;
	return STIR_VISIT_SKIP;
}

/* d, list, ri, vars: every load of the old tensor in list becomes a load
 * of the new tensor at the new iterators. */
static void retarget_list(dec *d, stir_ptr_vec *list, int ri,
	stir_var *const *vars)
{
	retarget t = { d, ri, vars };
	stir_visitor v = { NULL, NULL, retarget_load, NULL, 0, &t };
	stir_visit_list(&v, list);
}

/* d, c, ri, used: the iteration of computation c rewritten for rule ri;
 * used holds the names of the kernel (and is left as it was). */
static stir_stmt *rewrite(dec *d, const computation *c, int ri,
	stir_names *used)
{
	const stir_format_rule *r = d->rules[ri];
	stir_kernel *k = d->k;
	const stir_stmt *it = c->it;
	int n_old = d->t->n_axes, n_new = r->n_axes;
	int n_groups = it->u.iter.n_groups - n_old + n_new;
	int n_vars = it->u.iter.n_vars - n_old + n_new;
	stir_iter_group *groups = stir_kernel_array(k, (size_t)n_groups,
		sizeof(*groups));
	const char **names = stir_kernel_array(k, (size_t)n_vars, sizeof(*names));
	char *kinds = stir_kernel_array(k, (size_t)n_vars + 1, 1);
	if (!groups || !names || !kinds) {
		d->failed = true;
		return NULL;
	}
	int mark = stir_names_mark(used);
	add_iter_names(used, &it->u.iter.body);
	stir_ptr_vec self = { 1, 1, (void **)&it };
	add_iter_names(used, &self);
	const char *old_kinds = it->u.iter.kinds + c->first_var;
	int g = 0, v = 0;
	for (int i = 0; i < c->first; i++)
		groups[g++] = it->u.iter.groups[i];
	for (int i = 0; i < c->first_var; i++, v++) {
		names[v] = it->u.iter.vars[i]->name;
		kinds[v] = it->u.iter.kinds[i];
	}
	for (int i = 0; i < n_new; i++, v++) {
		stir_iter_group grp = { STIR_GROUP_AXIS, 1, &d->axes[ri][i], NULL,
			false };
		groups[g++] = grp;
		if (r->axes[i].keep) {
			names[v] = it->u.iter.vars[c->first_var +
				old_ref(d, r->axes[i].name)]->name;
		} else {
			const char *base = decompose_lower_case(k, r->axes[i].name);
			names[v] = base ? stir_names_fresh(used, base) : NULL;
		}
		kinds[v] = new_letter(d, r, i, old_kinds);
	}
	for (int i = c->first + n_old; i < it->u.iter.n_groups; i++)
		groups[g++] = it->u.iter.groups[i];
	for (int i = c->first_var + n_old; i < it->u.iter.n_vars; i++, v++) {
		names[v] = it->u.iter.vars[i]->name;
		kinds[v] = it->u.iter.kinds[i];
	}
	kinds[v] = '\0';
	const char *name = decompose_suffixed(d, it->u.iter.name, r->suffix);
	stir_stmt *s = name ? stir_stmt_iter(k, name, n_groups, groups, n_vars,
		names, kinds) : NULL;
	stir_names_reset(used, mark);
	if (!s) {
		d->failed = true;
		return NULL;
	}
	s->loc = it->loc;
	s->u.iter.kinds_loc = it->u.iter.kinds_loc;
	made(d, STIR_MADE_ITER, name, it->u.iter.name);
	/* the old iterators become the new ones, or inverse-map coordinates */
	stir_subst subst = { 0 };
	stir_var *const *new_vars = s->u.iter.vars + c->first_var;
	for (int i = 0; i < it->u.iter.n_vars; i++) {
		int rel = i - c->first_var;
		stir_var *to = rel < 0 ? s->u.iter.vars[i] :
			rel >= n_old ? s->u.iter.vars[i - n_old + n_new] : NULL;
		if (to)
			stir_subst_add_var(&subst, it->u.iter.vars[i], to);
		else
			stir_subst_add_expr(&subst, it->u.iter.vars[i],
				decompose_inverse(d, r, rel, new_vars,
				d->through[ri]));
	}
	for (int i = 0; i < it->u.iter.body.n; i++) {
		stir_stmt *b = stir_stmt_copy(k, stir_stmt_at(&it->u.iter.body, i),
			&subst);
		if (!b || stir_stmt_iter_append_body(s, b) < 0)
			d->failed = true;
	}
	/* rules that cover the rows: the init over this rule's own rows */
	for (int i = 0; r->cover_rows && i < it->u.iter.init.n; i++) {
		stir_stmt *b = stir_stmt_copy(k, stir_stmt_at(&it->u.iter.init, i),
			&subst);
		if (!b || stir_stmt_iter_append_init(s, b) < 0)
			d->failed = true;
	}
	stir_subst_release(&subst);
	retarget_list(d, &s->u.iter.init, ri, new_vars);
	retarget_list(d, &s->u.iter.body, ri, new_vars);
	return s;
}

/* d, c: computation c's init as an iteration of its own over the spatial
 * axes, or NULL when it has none. */
static stir_stmt *init_iteration(dec *d, const computation *c)
{
	const stir_stmt *it = c->it;
	if (!it->u.iter.init.n)
		return NULL;
	int ng = it->u.iter.n_groups, nv = it->u.iter.n_vars;
	stir_kernel *k = d->k;
	stir_iter_group *groups = stir_kernel_array(k, (size_t)ng,
		sizeof(*groups));
	const char **names = stir_kernel_array(k, (size_t)nv, sizeof(*names));
	stir_var **olds = stir_kernel_array(k, (size_t)nv, sizeof(*olds));
	char *kinds = stir_kernel_array(k, (size_t)nv + 1, 1);
	if (!groups || !names || !olds || !kinds) {
		d->failed = true;
		return NULL;
	}
	int g = 0, v = 0;
	for (int i = 0, m = 0; i < ng; i++) {
		const stir_iter_group *grp = &it->u.iter.groups[i];
		bool spatial = true;
		for (int j = 0; j < grp->n_axes; j++)
			spatial &= it->u.iter.kinds[m + j] == 'S';
		if (spatial) {
			groups[g++] = *grp;
			for (int j = 0; j < grp->n_axes; j++, v++) {
				names[v] = it->u.iter.vars[m + j]->name;
				olds[v] = it->u.iter.vars[m + j];
				kinds[v] = 'S';
			}
		}
		m += grp->n_axes;
	}
	kinds[v] = '\0';
	const char *name = decompose_suffixed(d, it->u.iter.name, "_init");
	stir_stmt *s = name ? stir_stmt_iter(k, name, g, groups, v, names,
		kinds) : NULL;
	if (!s) {
		d->failed = true;
		return NULL;
	}
	s->loc = it->loc;
	made(d, STIR_MADE_INIT_ITER, name, it->u.iter.name);
	stir_subst subst = { 0 };
	for (int i = 0; i < v; i++)
		stir_subst_add_var(&subst, olds[i], s->u.iter.vars[i]);
	for (int i = 0; i < it->u.iter.init.n; i++) {
		stir_stmt *b = stir_stmt_copy(d->k, stir_stmt_at(&it->u.iter.init, i),
			&subst);
		if (!b || stir_stmt_iter_append_body(s, b) < 0)
			d->failed = true;
	}
	stir_subst_release(&subst);
	return s;
}

/* ---- the pass ---- */

/* What decompose_format changes, saved to put back on failure. */
typedef struct snapshot {
	stir_ptr_vec body, axes, buffers, params, kernels;
} snapshot;

/* k, s: put k (and its module's kernel list) back as s saved it. */
static void restore(stir_kernel *k, const snapshot *s)
{
	k->body = s->body;
	k->axes = s->axes;
	k->buffers = s->buffers;
	k->params = s->params;
	k->module->kernels = s->kernels;
	for (int i = 0; i < k->buffers.n; i++)
		stir_buffer_at(&k->buffers, i)->index = i;
	for (int i = 0; i < k->axes.n; i++)
		stir_axis_at(&k->axes, i)->index = i;
}

/* d: replace every computation by its init iteration and one iteration per
 * rule, in place in the kernel body. */
static void rewrite_body(dec *d)
{
	stir_kernel *k = d->k;
	stir_ptr_vec body = { 0 };
	/* the kernel's names stay the same while the new body is built (it
	 * replaces the old at the end): recorded once, each rewrite adding and
	 * then forgetting its iteration's */
	stir_names used;
	if (stir_names_init(&used, k) < 0) {
		d->failed = true;
		return;
	}
	for (int i = 0, c = 0; i < k->body.n && !d->failed; i++) {
		if (c < d->n_comps && d->comps[c].index == i) {
			stir_stmt *init = d->rules[0]->cover_rows ? NULL :
				init_iteration(d, &d->comps[c]);
			if (init && stir_ptr_vec_push(stir_kernel_arena(k), &body, init))
				d->failed = true;
			for (int r = 0; r < d->n_rules && !d->failed; r++) {
				stir_stmt *s = rewrite(d, &d->comps[c], r, &used);
				if (!s || stir_ptr_vec_push(stir_kernel_arena(k), &body, s))
					d->failed = true;
			}
			c++;
		} else if (stir_ptr_vec_push(stir_kernel_arena(k), &body,
			stir_stmt_at(&k->body, i))) {
			d->failed = true;
		}
	}
	stir_names_release(&used);
	if (!d->failed)
		k->body = body;
}

/* k, tensor, n, rules: stir_decompose_format before the collection. */
static int decompose_format(stir_kernel *k, const char *tensor, int n,
	stir_format_rule *const *rules)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	dec d = { .k = k, .ctx = ctx, .n_rules = n, .rules = rules };
	stir_made_clear(k);
	if (k->stage != STIR_STAGE_1) {
		stir_error(ctx, k->loc, "decompose_format: kernel '%s' is at stage %d, "
			"not stage 1", k->name, (int)k->stage);
		return -1;
	}
	if (stir_kernel_verify(k) < 0)
		return -1;
	d.t = tensor ? stir_kernel_find_buffer(k, tensor) : NULL;
	if (!d.t || d.t->kind != STIR_BUFFER_TENSOR) {
		stir_error(ctx, k->loc, "decompose_format: kernel '%s' has no tensor "
			"'%s'", k->name, tensor ? tensor : "(null)");
		return -1;
	}
	if (n < 1 || !rules) {
		stir_error(ctx, k->loc, "decompose_format: no rules");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (!rules[i]) {
			stir_error(ctx, k->loc, "decompose_format: rule %d is missing", i);
			return -1;
		}
		for (int j = 0; j < i; j++)
			if (!strcmp(rules[i]->suffix, rules[j]->suffix)) {
				stir_error(ctx, k->loc, "decompose_format: two rules have "
					"the suffix '%s'", rules[i]->suffix);
				return -1;
			}
	}
	for (int i = 1; i < n; i++) {
		if (rules[i]->cover_rows == rules[0]->cover_rows)
			continue;
		const stir_format_rule *yes = rules[0]->cover_rows ? rules[0] :
			rules[i], *no = rules[0]->cover_rows ? rules[i] : rules[0];
		stir_error(ctx, k->loc, "decompose_format: rule '%s' covers the "
			"rows and rule '%s' does not; either every rule covers them "
			"or none", yes->suffix, no->suffix);
		return -1;
	}
	find_computations(&d);
	for (int i = 0; i < n && !d.failed; i++)
		check_rule(&d, rules[i]);
	if (d.failed) {
		free(d.comps);
		return -1;
	}
	snapshot snap = { k->body, k->axes, k->buffers, k->params,
		k->module->kernels };
	d.axes = calloc((size_t)n, sizeof(*d.axes));
	d.tensors = calloc((size_t)n, sizeof(*d.tensors));
	d.through = calloc((size_t)n, sizeof(*d.through));
	if (!d.axes || !d.tensors || !d.through)
		d.failed = true;
	for (int i = 0; i < n && !d.failed; i++)
		build_format(&d, i);
	stir_kernel *copy = d.failed ? NULL : decompose_copy_kernel(&d);
	if (copy)
		made(&d, STIR_MADE_KERNEL, copy->name, k->name);
	if (!d.failed)
		rewrite_body(&d);
	if (!d.failed && decompose_prune(k, d.t) < 0)
		d.failed = true;
	int errors = stir_ctx_n_errors(ctx);
	if (!d.failed && (stir_kernel_verify(k) < 0 || stir_kernel_verify(copy) < 0)) {
		stir_error(ctx, k->loc, "decompose_format: the rules do not make a "
			"valid program (see the errors above)");
		d.failed = true;
	} else if (d.failed && stir_ctx_n_errors(ctx) == errors) {
		stir_error_oom(ctx);
	}
	if (d.failed) {
		restore(k, &snap);
		stir_made_clear(k);
	}
	for (int i = 0; d.axes && i < n; i++)
		free(d.axes[i]);
	free(d.axes);
	free(d.tensors);
	free(d.through);
	free(d.comps);
	return d.failed ? -1 : 0;
}

/* k, tensor, n, rules: the pass, then the module's arena collected
 * (stir_module_collect keeps what the kernels reach). */
int stir_decompose_format(stir_kernel *k, const char *tensor, int n,
	stir_format_rule *const *rules)
{
	int r = decompose_format(k, tensor, n, rules);
	if (k)
		(void)stir_module_collect(k->module);
	return r;
}
