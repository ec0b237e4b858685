/* The builder: from the syntax tree of a parse to IR (include/stir/ir.h).
 *
 * Names are resolved per docs/language.md section 2.  A kernel's parameters,
 * axes, tensors, locals and flat buffers form one namespace that holds over
 * the whole kernel, so every declaration is bound before anything is built;
 * a name declared twice is reported here and keeps meaning its first
 * declaration (see bind).  Iterators, let names, and the loop and block
 * variables of stages II and III are bound in nested scopes on top of it:
 * a loop's variable holds in its body, a block's variables in its regions
 * and body, and a block's bindings are resolved outside the block.  The builder reports undefined names and names used as the
 * wrong kind of thing; every other rule is the verifier's.  After an error
 * it goes on with NULL in place of the node it could not build, so that one
 * run reports as many errors as it can; the constructors of ir/module.c
 * pass NULL through.
 *
 * Every node built gets the location of its source; docs/language.md
 * section 7 states which token that is for each kind of node.
 *
 * This file holds the symbol table, the declarations and the kernels;
 * lang/build_stmt.c the expressions, sizes and statements (their shared
 * declarations: lang/build.h).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "lang/build.h"

/* b, loc, fmt: see lang/build.h. */
void build_error(builder *b, stir_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	stir_ctx_vreport(b->ctx, STIR_ERROR, loc, fmt, ap);
	va_end(ap);
	b->n_errors++;
}

/* kind: how diagnostics call a name of this kind. */
const char *build_kind_name(bind_kind kind)
{
	switch (kind) {
	case BIND_PARAM: return "parameter";
	case BIND_AXIS: return "axis";
	case BIND_TENSOR: return "tensor";
	case BIND_LOCAL: return "local";
	case BIND_ITER: return "iterator";
	case BIND_FLAT: return "buffer";
	case BIND_LOOP: return "loop variable";
	case BIND_BLOCK: return "block variable";
	default: return "let variable";
	}
}

/* ---- the symbol table ---- */

/* s: FNV-1a hash of a name. */
static size_t hash_name(const char *s)
{
	size_t h = (size_t)2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* b, name: the slot holding "name", or the empty one where it belongs.
 * The table always has a free slot (it grows at half full). */
static slot *slot_find(builder *b, const char *name)
{
	size_t mask = (size_t)b->cap_slots - 1;
	size_t i = hash_name(name) & mask;
	while (b->slots[i].name && strcmp(b->slots[i].name, name))
		i = (i + 1) & mask;
	return &b->slots[i];
}

/* b: double the hash table.  0, or -1 when memory runs out. */
static int slots_grow(builder *b)
{
	int old_cap = b->cap_slots;
	slot *old = b->slots;
	int cap = old_cap ? 2 * old_cap : 64;
	b->slots = calloc((size_t)cap, sizeof(slot));
	if (!b->slots) {
		b->slots = old;
		return -1;
	}
	b->cap_slots = cap;
	for (int i = 0; i < old_cap; i++)
		if (old[i].name)
			*slot_find(b, old[i].name) = old[i];
	free(old);
	return 0;
}

/* b, name, kind, ptr, loc: make "name", declared at loc, mean a new
 * binding.  Every binding is a declaration, and a name may not repeat one
 * in scope (docs/language.md section 2): such a name is reported as a
 * duplicate, with a note at the declaration in scope, and keeps meaning
 * that one, so that its uses do not cascade into errors about the wrong
 * kind of name.  Returns the binding's index, or -1 after a duplicate or
 * when memory runs out. */
int build_bind(builder *b, const char *name, bind_kind kind, void *ptr,
	stir_loc loc)
{
	if (!name)
		return -1;
	binding *prev = build_lookup(b, name);
	if (prev) {
		stir_diag *d = stir_error(b->ctx, loc, "duplicate name '%s'", name);
		stir_diag_add_note(d, prev->loc,
			"previous declaration of '%s' is here", name);
		b->n_errors++;
		prev->dup = true;
		return -1;
	}
	if (2 * (b->n_slots + 1) > b->cap_slots && slots_grow(b) < 0)
		return b->oom = true, -1;
	if (b->n_binds == b->cap_binds) {
		int cap = b->cap_binds ? 2 * b->cap_binds : 64;
		binding *v = realloc(b->binds, (size_t)cap * sizeof(*v));
		if (!v)
			return b->oom = true, -1;
		b->binds = v;
		b->cap_binds = cap;
	}
	slot *s = slot_find(b, name);
	if (!s->name) {
		s->name = name;
		s->top = -1;
		b->n_slots++;
	}
	binding *bd = &b->binds[b->n_binds];
	bd->name = name;
	bd->kind = kind;
	bd->ptr = ptr;
	bd->built = ptr != NULL;
	bd->loc = loc;
	bd->dup = false;
	bd->prev = s->top;
	s->top = b->n_binds;
	return b->n_binds++;
}

/* b, name: the innermost binding of "name", or NULL. */
binding *build_lookup(builder *b, const char *name)
{
	if (!name || !b->cap_slots)
		return NULL;
	slot *s = slot_find(b, name);
	return s->name && s->top >= 0 ? &b->binds[s->top] : NULL;
}

/* b, mark: forget the bindings made since there were "mark" of them. */
void build_unbind_to(builder *b, int mark)
{
	while (b->n_binds > mark) {
		binding *bd = &b->binds[--b->n_binds];
		slot_find(b, bd->name)->top = bd->prev;
	}
}

/* b, n: the binding of a name as written, reporting it when undefined. */
binding *build_resolve(builder *b, const lang_name *n)
{
	binding *bd = build_lookup(b, n->name);
	if (!bd && n->name)
		build_error(b, n->loc, "undefined name '%s'", n->name);
	return bd;
}

/* b, n, allow_later: the axis named by n; when allow_later, an axis
 * declared after this point is accepted and gives the placeholder. */
stir_axis *build_resolve_axis(builder *b, const lang_name *n,
	bool allow_later)
{
	binding *bd = build_resolve(b, n);
	if (!bd)
		return NULL;
	if (bd->kind != BIND_AXIS) {
		if (!bd->dup)
			build_error(b, n->loc, "%s '%s' is not an axis",
				build_kind_name(bd->kind), n->name);
		return NULL;
	}
	if (!bd->built && allow_later)
		return b->placeholder;
	return bd->ptr;
}

/* ---- declarations ---- */

/* kind: the constructor's name as written. */
static const char *ctor_name(stir_axis_kind kind)
{
	switch (kind) {
	case STIR_DENSE_FIXED: return "dense_fixed";
	case STIR_DENSE_VARIABLE: return "dense_variable";
	case STIR_SPARSE_FIXED: return "sparse_fixed";
	default: return "sparse_variable";
	}
}

/* The options of an axis constructor. */
typedef struct axis_options {
	stir_dtype idtype;     /* i32 unless given */
	bool sorted;           /* true unless given */
	bool seen_idtype, seen_sorted;
} axis_options;

/* b, a, o: record the option a in o.  0, or -1 after reporting. */
static int axis_option(builder *b, const lang_arg *a, axis_options *o)
{
	bool *seen;
	if (!strcmp(a->option, "idtype")) {
		if (!a->is_type || (a->dtype != STIR_I32 && a->dtype != STIR_I64)) {
			build_error(b, a->loc, "idtype must be i32 or i64");
			return -1;
		}
		o->idtype = a->dtype;
		seen = &o->seen_idtype;
	} else if (!strcmp(a->option, "sorted")) {
		if (a->is_type) {
			build_error(b, a->loc, "sorted must be true or false");
			return -1;
		}
		o->sorted = a->flag;
		seen = &o->seen_sorted;
	} else {
		build_error(b, a->loc, "unknown axis option '%s'", a->option);
		return -1;
	}
	if (*seen) {
		build_error(b, a->loc, "option '%s' given twice", a->option);
		return -1;
	}
	*seen = true;
	return 0;
}

/* b, d, pos, o: split the constructor's arguments into positional ones
 * (the first three go to pos) and options.  Returns the number of
 * positional arguments, or -1 after reporting. */
static int axis_args(builder *b, const lang_decl *d, const lang_arg **pos,
	axis_options *o)
{
	int n = 0, ok = 0;
	bool options = false;
	for (int i = 0; i < d->args->v.n; i++) {
		const lang_arg *a = d->args->v.v[i];
		if (a->option) {
			options = true;
			if (axis_option(b, a, o) < 0)
				ok = -1;
			continue;
		}
		if (options) {
			build_error(b, a->loc, "positional argument after options");
			ok = -1;
		}
		if (n < 3)
			pos[n] = a;
		n++;
	}
	return ok < 0 ? -1 : n;
}

/* b, a: the parent argument of an axis constructor, which must be an
 * axis's name; *later is set when that axis is declared after this one. */
static stir_axis *axis_parent(builder *b, const lang_arg *a, int *later)
{
	if (a->expr->kind != LANG_EXPR_NAME) {
		build_error(b, a->loc, "expected the name of the parent axis");
		return NULL;
	}
	lang_name n = { a->expr->u.name.name, a->loc };
	stir_axis *parent = build_resolve_axis(b, &n, true);
	if (parent == b->placeholder)
		*later = (int)(build_lookup(b, n.name) - b->binds);
	return parent;
}

/* b, d, pos: create the axis of declaration d from its positional
 * arguments (their number already checked); *later as for axis_parent. */
static stir_axis *create_axis(builder *b, const lang_decl *d,
	const lang_arg **pos, int *later)
{
	stir_kernel *k = b->k;
	const char *name = d->name.name;
	if (d->axis_kind == STIR_DENSE_FIXED)
		return stir_kernel_add_dense_fixed(k, name,
			build_size(b, pos[0]->expr, "size of axis ", name));
	stir_axis *parent = axis_parent(b, pos[0], later);
	stir_expr *len = build_size(b, pos[1]->expr, "size of axis ", name);
	stir_expr *nnz = build_size(b, pos[2]->expr,
		d->axis_kind == STIR_SPARSE_FIXED ? "column count of axis " :
		"nnz of axis ", name);
	switch (d->axis_kind) {
	case STIR_DENSE_VARIABLE:
		return stir_kernel_add_dense_variable(k, name, parent, len, nnz);
	case STIR_SPARSE_FIXED:
		return stir_kernel_add_sparse_fixed(k, name, parent, len, nnz);
	default:
		return stir_kernel_add_sparse_variable(k, name, parent, len, nnz);
	}
}

/* b, axis, parent_binding: remember to fix the axis's parent. */
static void add_pending(builder *b, stir_axis *axis, int parent_binding)
{
	if (b->n_pending == b->cap_pending) {
		int cap = b->cap_pending ? 2 * b->cap_pending : 8;
		pending_parent *v = realloc(b->pending, (size_t)cap * sizeof(*v));
		if (!v) {
			b->oom = true;
			return;
		}
		b->pending = v;
		b->cap_pending = cap;
	}
	b->pending[b->n_pending].axis = axis;
	b->pending[b->n_pending].binding = parent_binding;
	b->n_pending++;
}

/* b, d, ptr: the declaration d has been built into ptr (NULL when that
 * failed): its binding now means it. */
static void declared(builder *b, const lang_decl *d, void *ptr)
{
	if (d->binding < 0)
		return;
	b->binds[d->binding].ptr = ptr;
	b->binds[d->binding].built = true;
}

/* b, d: axis NAME = ctor(args, options); */
static void build_axis(builder *b, const lang_decl *d)
{
	const lang_arg *pos[3] = { NULL, NULL, NULL };
	axis_options o = { STIR_I32, true, false, false };
	int want = d->axis_kind == STIR_DENSE_FIXED ? 1 : 3;
	int n = axis_args(b, d, pos, &o);
	stir_axis *a = NULL;
	int later = -1;
	if (n >= 0 && n != want)
		build_error(b, d->ctor_loc, "%s takes %d argument%s",
			ctor_name(d->axis_kind), want, want == 1 ? "" : "s");
	else if (n == want)
		a = create_axis(b, d, pos, &later);
	if (a) {
		a->loc = d->name.loc;
		a->idtype = o.idtype;
		a->sorted = o.sorted;
		if (later >= 0)
			add_pending(b, a, later);
	}
	declared(b, d, a);
}

/* b: every axis exists now: give those whose parent is declared later
 * their parent. */
static void fix_parents(builder *b)
{
	for (int i = 0; i < b->n_pending; i++)
		b->pending[i].axis->parent = b->binds[b->pending[i].binding].ptr;
	b->n_pending = 0;
}

/* b, d, buf: the domain "in [lo, hi)" of declaration d, when it has one,
 * and "distinct", given to buffer buf (NULL when building it failed: the
 * bounds are still built, for their errors). */
static void build_domain(builder *b, const lang_decl *d, stir_buffer *buf)
{
	stir_buffer_set_distinct(buf, d->distinct);
	if (!d->lo)
		return;
	stir_expr *lo = build_size(b, d->lo, "domain bound of ", d->name.name);
	stir_expr *hi = build_size(b, d->hi, "domain bound of ", d->name.name);
	stir_buffer_set_domain(buf, lo, hi);
}

/* b, d: tensor or local NAME: TYPE[axes] in [lo, hi); */
static void build_buffer(builder *b, const lang_decl *d)
{
	int n = d->axes ? d->axes->v.n : 0;
	stir_axis **axes = calloc((size_t)(n ? n : 1), sizeof(*axes));
	bool ok = axes != NULL;
	b->oom |= !axes;
	for (int i = 0; axes && i < n; i++)
		if (!(axes[i] = build_resolve_axis(b, d->axes->v.v[i], false)))
			ok = false;
	stir_buffer *buf = NULL;
	if (ok && d->kind == LANG_DECL_TENSOR)
		buf = stir_kernel_add_tensor(b->k, d->name.name, d->dtype, n, axes);
	else if (ok)
		buf = stir_kernel_add_local(b->k, d->name.name, d->dtype, n, axes);
	free(axes);
	build_domain(b, d, buf);
	if (buf)
		buf->loc = d->name.loc;
	declared(b, d, buf);
}

/* b, bt, kind, axis, coo: what the flat buffer binding bt makes of a
 * buffer: its kind, its array name (malloc'd; NULL for an allocated
 * buffer) and, in stage II, the axis whose structure array it is (*axis)
 * and, for a COO array "J.pos_X", the ancestor X (*coo).  *ok is cleared
 * after an error. */
static char *flat_binding(builder *b, const lang_binding *bt,
	stir_buffer_kind *kind, stir_axis **axis, stir_axis **coo, bool *ok)
{
	*kind = STIR_BUFFER_LOCAL;
	*axis = NULL;
	*coo = NULL;
	if (!bt->array.name)
		return NULL;
	size_t len = strlen(bt->array.name) + 1 +
		(bt->field.name ? strlen(bt->field.name) + 1 : 0);
	char *arg = malloc(len);
	if (!arg) {
		b->oom = true;
		*ok = false;
		return NULL;
	}
	*kind = STIR_BUFFER_TENSOR;
	if (!bt->field.name) {
		strcpy(arg, bt->array.name);
		return arg;
	}
	snprintf(arg, len, "%s.%s", bt->array.name, bt->field.name);
	if (!strcmp(bt->field.name, "indptr")) {
		*kind = STIR_BUFFER_INDPTR;
	} else if (!strcmp(bt->field.name, "indices")) {
		*kind = STIR_BUFFER_INDICES;
	} else if (!strncmp(bt->field.name, "pos_", 4) && bt->field.name[4]) {
		*kind = STIR_BUFFER_COO;
	} else {
		build_error(b, bt->field.loc, "unknown structure array '%s': "
			"expected indptr, indices or pos_AXIS", arg);
		*ok = false;
	}
	/* stage III has no axes: the name only names the array */
	if (*ok && b->k->stage == STIR_STAGE_2 &&
	    !(*axis = build_resolve_axis(b, &bt->array, false)))
		*ok = false;
	if (*ok && b->k->stage == STIR_STAGE_2 && *kind == STIR_BUFFER_COO) {
		lang_name x = { bt->field.name + 4, bt->field.loc };
		x.name = stir_ctx_intern(b->ctx, x.name);
		if (!x.name || !(*coo = build_resolve_axis(b, &x, false)))
			*ok = false;
	}
	return arg;
}

/* b, d: buffer NAME: TYPE[EXTENT] = BINDING in [lo, hi) SCOPE; a structure
 * array of stage II becomes its axis's auxiliary buffer (the first one
 * declared, when there are several: the verifier reports the others). */
static void build_flat(builder *b, const lang_decl *d)
{
	bool ok = true;
	stir_buffer_kind kind;
	stir_axis *axis, *coo;
	char *arg = flat_binding(b, &d->bound_to, &kind, &axis, &coo, &ok);
	stir_expr *extent = build_size(b, d->extent, "extent of buffer ",
		d->name.name);
	stir_buffer *buf = ok ? stir_kernel_add_flat_buffer(b->k, d->name.name,
		kind, d->dtype, extent, arg) : NULL;
	free(arg);
	build_domain(b, d, buf);
	if (buf) {
		buf->loc = d->name.loc;
		buf->scope = d->scope;
		buf->aux_axis = axis;
		buf->coo_axis = coo;
		if (axis && kind == STIR_BUFFER_INDPTR && !axis->indptr_buf)
			axis->indptr_buf = buf;
		if (axis && kind == STIR_BUFFER_INDICES && !axis->indices_buf)
			axis->indices_buf = buf;
	}
	declared(b, d, buf);
}

/* b, lk: bind the parameters (built here) and every declaration (built
 * later): the kernel's namespace holds everywhere in the kernel. */
static void bind_kernel_names(builder *b, const lang_kernel *lk)
{
	for (int i = 0; i < lk->params->v.n; i++) {
		const lang_param *pa = lk->params->v.v[i];
		stir_var *v = stir_kernel_add_param(b->k, pa->name.name, pa->dtype);
		if (v)
			v->loc = pa->name.loc;
		build_bind(b, pa->name.name, BIND_PARAM, v, pa->name.loc);
	}
	static const bind_kind kinds[] = {
		[LANG_DECL_AXIS] = BIND_AXIS,
		[LANG_DECL_TENSOR] = BIND_TENSOR,
		[LANG_DECL_LOCAL] = BIND_LOCAL,
		[LANG_DECL_FLAT] = BIND_FLAT,
	};
	for (int i = 0; i < lk->decls->v.n; i++) {
		lang_decl *d = lk->decls->v.v[i];
		d->binding = build_bind(b, d->name.name, kinds[d->kind], NULL,
			d->name.loc);
	}
}

/* b, lk: one kernel: declarations, axes first (buffers refer to them),
 * then tensors, locals and flat buffers in the order written (which is
 * the kernel's buffer order), then the statements. */
static void build_kernel(builder *b, const lang_kernel *lk)
{
	b->k = stir_module_add_kernel(b->m, lk->name.name);
	if (!b->k)
		return;
	b->k->loc = lk->name.loc;
	b->k->stage = lk->stage;
	b->linked = false;
	bind_kernel_names(b, lk);
	if (b->oom)
		return;
	for (int i = 0; i < lk->decls->v.n; i++) {
		const lang_decl *d = lk->decls->v.v[i];
		if (d->kind == LANG_DECL_AXIS)
			build_axis(b, d);
	}
	fix_parents(b);
	for (int i = 0; i < lk->decls->v.n; i++) {
		const lang_decl *d = lk->decls->v.v[i];
		if (d->kind == LANG_DECL_FLAT)
			build_flat(b, d);
		else if (d->kind != LANG_DECL_AXIS)
			build_buffer(b, d);
	}
	build_list(b, lk->stmts, NULL, TO_KERNEL);
	build_unbind_to(b, 0);
	/* a text that writes no link ("iter P", "init P") carries it in the
	 * blocks' names, as the printer wrote it before it wrote links */
	if (b->k->stage != STIR_STAGE_1 && !b->linked &&
	    stir_kernel_link_inits(b->k) < 0)
		b->oom = true;
}

/* b: release the builder's own memory. */
static void builder_release(builder *b)
{
	free(b->binds);
	free(b->slots);
	free(b->pending);
}

/* ctx, kernels: see ast.h. */
stir_module *lang_build(stir_ctx *ctx, const lang_list *kernels)
{
	builder b;
	memset(&b, 0, sizeof(b));
	b.ctx = ctx;
	b.m = stir_module_alloc(ctx);
	if (!b.m)
		return NULL;
	b.placeholder = stir_arena_alloc(&b.m->arena, sizeof(stir_axis));
	for (int i = 0; b.placeholder && !b.oom && i < kernels->v.n; i++)
		build_kernel(&b, kernels->v.v[i]);
	builder_release(&b);
	if (b.oom || b.m->arena.failed || !b.placeholder)
		stir_error_oom(ctx);
	if (b.oom || b.m->arena.failed || !b.placeholder || b.n_errors > 0) {
		stir_module_free(b.m);
		return NULL;
	}
	return b.m;
}
