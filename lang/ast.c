/* Syntax tree constructors: the named builder functions that the grammar
 * actions call (see ast.h).  Besides allocating, they do the checks that
 * belong to the syntax: where init may appear, how deep an expression may
 * nest. */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include "lang/ast.h"
#include "ir/diag.h"

/* p: the parse context; ctx: where its errors go; file: the interned name
 * that every location will carry. */
void lang_parser_init(lang_parser *p, stir_ctx *ctx, const char *file)
{
	memset(p, 0, sizeof(*p));
	p->ctx = ctx;
	p->file = file;
	stir_arena_init(&p->arena);
	p->line = 1;
	p->col = 1;
}

/* p: the parse context whose tree goes (the scanner is released by
 * lang_parse itself). */
void lang_parser_release(lang_parser *p)
{
	stir_arena_release(&p->arena);
	p->kernels = NULL;
}

/* p, loc, fmt: report a lexical or syntax error and count it, so that the
 * parse fails even if the grammar recovers. */
void lang_syntax_error(lang_parser *p, stir_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	stir_ctx_vreport(p->ctx, STIR_ERROR, loc, fmt, ap);
	va_end(ap);
	p->n_errors++;
}

/* ---- nesting ---- */

/* p, loc: see ast.h.  The error ends the input like the scanner's "blocks
 * nested too deeply", so that the parser's stack stops growing there. */
void lang_nest(lang_parser *p, stir_loc loc)
{
	if (++p->expr_open != LANG_MAX_EXPR_DEPTH + 1)
		return;
	lang_syntax_error(p, loc, "expression nested too deeply (more than %d "
		"levels)", LANG_MAX_EXPR_DEPTH);
	p->lex_stopped = true;
}

/* p: see ast.h. */
void lang_unnest(lang_parser *p)
{
	if (p->expr_open > 0)
		p->expr_open--;
}

/* p, loc: see ast.h; the block levels are the scanner's count of "{".
 * The "{" after the "if" usually passes the limit first (the scanner's
 * error, with the same message). */
void lang_nest_else_if(lang_parser *p, stir_loc loc)
{
	if (++p->block_depth != LANG_BLOCK_LIMIT(p) + 1)
		return;
	lang_syntax_error(p, loc, "blocks nested too deeply (more than %d "
		"levels)", LANG_BLOCK_LIMIT(p));
	p->lex_stopped = true;
}

/* p: see ast.h. */
void lang_unnest_else_if(lang_parser *p)
{
	if (p->block_depth > 0)
		p->block_depth--;
}

/* p: see ast.h.  No expression holds a statement, so at any point where
 * the grammar recovers none is open. */
void lang_recovered(lang_parser *p)
{
	p->expr_open = 0;
}

/* p, size: zeroed arena memory for a node. */
static void *node_alloc(lang_parser *p, size_t size)
{
	return stir_arena_alloc(&p->arena, size);
}

/* ---- lists and names ---- */

/* p: the parse whose arena holds a new empty list. */
lang_list *lang_list_new(lang_parser *p)
{
	return node_alloc(p, sizeof(lang_list));
}

/* p, l, item: append; a NULL item (left by error recovery) is skipped. */
lang_list *lang_list_append(lang_parser *p, lang_list *l, void *item)
{
	if (l && item && stir_ptr_vec_push(&p->arena, &l->v, item) < 0)
		return NULL;
	return l;
}

/* p, item: a list holding just "item". */
lang_list *lang_list_one(lang_parser *p, void *item)
{
	return lang_list_append(p, lang_list_new(p), item);
}

/* p, name, loc: a name as written; "name" is already an arena string. */
lang_name *lang_name_new(lang_parser *p, const char *name, stir_loc loc)
{
	lang_name *n = node_alloc(p, sizeof(*n));
	if (n) {
		n->name = name;
		n->loc = loc;
	}
	return n;
}

/* n: a name node that may be NULL after error recovery; its value. */
static lang_name name_value(const lang_name *n)
{
	lang_name none = { NULL, { NULL, 0, 0 } };
	return n ? *n : none;
}

/* ---- expressions ---- */

/* p, kind, loc: a new expression node (a leaf until children are set). */
static lang_expr *expr_new(lang_parser *p, lang_expr_kind kind, stir_loc loc)
{
	lang_expr *e = node_alloc(p, sizeof(*e));
	if (e) {
		e->kind = kind;
		e->loc = loc;
		e->depth = 1;
	}
	return e;
}

/* e, child: account for one more child of e.  When e is the first node of
 * a chain to pass the depth limit, the error is reported there, once. */
static void expr_child(lang_parser *p, lang_expr *e, const lang_expr *child)
{
	if (!child || child->depth < e->depth)
		return;
	e->depth = child->depth + 1;
	if (e->depth == LANG_MAX_EXPR_DEPTH + 1)
		lang_syntax_error(p, e->loc,
			"expression nested too deeply (more than %d levels)",
			LANG_MAX_EXPR_DEPTH);
}

/* e, args: account for every expression of an argument list. */
static void expr_children(lang_parser *p, lang_expr *e, const lang_list *args)
{
	for (int i = 0; args && i < args->v.n; i++)
		expr_child(p, e, args->v.v[i]);
}

/* p, v, loc: an integer literal (already known to fit in int64). */
lang_expr *lang_expr_int(lang_parser *p, int64_t v, stir_loc loc)
{
	lang_expr *e = expr_new(p, LANG_EXPR_INT, loc);
	if (e)
		e->u.i = v;
	return e;
}

/* p, v, loc: a float literal or inf. */
lang_expr *lang_expr_float(lang_parser *p, double v, stir_loc loc)
{
	lang_expr *e = expr_new(p, LANG_EXPR_FLOAT, loc);
	if (e)
		e->u.f = v;
	return e;
}

/* p, v, loc: true or false. */
lang_expr *lang_expr_bool(lang_parser *p, bool v, stir_loc loc)
{
	lang_expr *e = expr_new(p, LANG_EXPR_BOOL, loc);
	if (e)
		e->u.b = v;
	return e;
}

/* p, kind (NAME, INDEX or CALL), name, args (NULL for NAME), loc. */
lang_expr *lang_expr_name(lang_parser *p, lang_expr_kind kind,
	const char *name, lang_list *args, stir_loc loc)
{
	lang_expr *e = expr_new(p, kind, loc);
	if (!e)
		return NULL;
	e->u.name.name = name;
	e->u.name.args = args;
	expr_children(p, e, args);
	return e;
}

/* p, dtype, args: a type name alone (args NULL) or a cast. */
lang_expr *lang_expr_type(lang_parser *p, stir_dtype dtype, lang_list *args,
	stir_loc loc)
{
	lang_expr *e = expr_new(p, args ? LANG_EXPR_CAST : LANG_EXPR_TYPE, loc);
	if (!e)
		return NULL;
	e->u.type.dtype = dtype;
	e->u.type.args = args;
	expr_children(p, e, args);
	return e;
}

/* p, op, a; loc: of the operator, which is also the first token. */
lang_expr *lang_expr_unary(lang_parser *p, stir_unop op, lang_expr *a,
	stir_loc loc)
{
	lang_expr *e = expr_new(p, LANG_EXPR_UNARY, loc);
	if (!e)
		return NULL;
	e->u.unary.op = op;
	e->u.unary.a = a;
	expr_child(p, e, a);
	return e;
}

/* p, op, a, b; loc: of the operator token. */
lang_expr *lang_expr_binary(lang_parser *p, stir_binop op, lang_expr *a,
	lang_expr *b, stir_loc loc)
{
	lang_expr *e = expr_new(p, LANG_EXPR_BINARY, loc);
	if (!e)
		return NULL;
	e->u.binary.op = op;
	e->u.binary.a = a;
	e->u.binary.b = b;
	expr_child(p, e, a);
	expr_child(p, e, b);
	return e;
}

/* p, c, a, b; loc: of the first token of c. */
lang_expr *lang_expr_select(lang_parser *p, lang_expr *c, lang_expr *a,
	lang_expr *b, stir_loc loc)
{
	lang_expr *e = expr_new(p, LANG_EXPR_SELECT, loc);
	if (!e)
		return NULL;
	e->u.select.c = c;
	e->u.select.a = a;
	e->u.select.b = b;
	expr_child(p, e, c);
	expr_child(p, e, a);
	expr_child(p, e, b);
	return e;
}

/* p, op, buf, lo, hi, x; loc: of lower_bound / upper_bound. */
lang_expr *lang_expr_search(lang_parser *p, stir_search op, lang_name *buf,
	lang_expr *lo, lang_expr *hi, lang_expr *x, stir_loc loc)
{
	lang_expr *e = expr_new(p, LANG_EXPR_SEARCH, loc);
	if (!e)
		return NULL;
	e->u.search.op = op;
	e->u.search.buf = buf;
	e->u.search.lo = lo;
	e->u.search.hi = hi;
	e->u.search.x = x;
	expr_child(p, e, lo);
	expr_child(p, e, hi);
	expr_child(p, e, x);
	return e;
}

/* ---- statements ---- */

/* p, kind, loc: a new statement node. */
static lang_stmt *stmt_new(lang_parser *p, lang_stmt_kind kind, stir_loc loc)
{
	lang_stmt *s = node_alloc(p, sizeof(*s));
	if (s) {
		s->kind = kind;
		s->loc = loc;
	}
	return s;
}

/* l, from: report every init statement of l at index "from" or later:
 * init is only allowed as the first statement of an iteration body. */
static void check_no_init(lang_parser *p, const lang_list *l, int from)
{
	for (int i = from; l && i < l->v.n; i++) {
		const lang_stmt *s = l->v.v[i];
		if (s->kind == LANG_STMT_INIT)
			lang_syntax_error(p, s->loc,
				"init must be the first statement of an iteration body");
	}
}

/* p, stmts: a block that is not an iteration body. */
lang_list *lang_block(lang_parser *p, lang_list *stmts)
{
	check_no_init(p, stmts, 0);
	return stmts;
}

/* p, buf, idx, op, value: a store, located at the buffer's name. */
lang_stmt *lang_stmt_store(lang_parser *p, lang_name *buf, lang_list *idx,
	stir_store_op op, lang_expr *value)
{
	lang_name b = name_value(buf);
	lang_stmt *s = stmt_new(p, LANG_STMT_STORE, b.loc);
	if (!s)
		return NULL;
	s->u.store.buf = b;
	s->u.store.idx = idx;
	s->u.store.op = op;
	s->u.store.value = value;
	return s;
}

/* p, loc (of the first word), var, value, hoisted: let var = value; (hoisted let
 * when "hoisted"). */
lang_stmt *lang_stmt_let(lang_parser *p, stir_loc loc, lang_name *var,
	lang_expr *value, bool hoisted)
{
	lang_stmt *s = stmt_new(p, LANG_STMT_LET, loc);
	if (!s)
		return NULL;
	s->u.let.var = name_value(var);
	s->u.let.value = value;
	s->u.let.hoisted = hoisted;
	return s;
}

/* p, loc, cond, then_body, else_body (NULL when there is no else). */
lang_stmt *lang_stmt_if(lang_parser *p, stir_loc loc, lang_expr *cond,
	lang_list *then_body, lang_list *else_body)
{
	lang_stmt *s = stmt_new(p, LANG_STMT_IF, loc);
	if (!s)
		return NULL;
	s->u.if_.cond = cond;
	s->u.if_.then_body = then_body ? then_body : lang_list_new(p);
	s->u.if_.else_body = else_body ? else_body : lang_list_new(p);
	return s;
}

/* p, s: the else branch holding just the if statement s. */
lang_list *lang_else_if(lang_parser *p, lang_stmt *s)
{
	return lang_list_one(p, s);
}

/* p, loc, name, vars, groups, kinds, kinds_loc, body: an iteration; a
 * leading init statement of body becomes its init list. */
lang_stmt *lang_stmt_iter(lang_parser *p, stir_loc loc, lang_name *name,
	lang_list *vars, lang_list *groups, const char *kinds,
	stir_loc kinds_loc, lang_list *body)
{
	lang_stmt *s = stmt_new(p, LANG_STMT_ITER, loc);
	if (!s || !body)
		return NULL;
	s->u.iter.name = name_value(name);
	s->u.iter.vars = vars;
	s->u.iter.groups = groups;
	s->u.iter.kinds = kinds;
	s->u.iter.kinds_loc = kinds_loc;
	s->u.iter.body = body;
	s->u.iter.init = lang_list_new(p);
	if (body->v.n > 0 &&
	    ((lang_stmt *)body->v.v[0])->kind == LANG_STMT_INIT) {
		s->u.iter.init = ((lang_stmt *)body->v.v[0])->u.init.body;
		/* drop the init statement from the front of the body */
		memmove(body->v.v, body->v.v + 1,
			(size_t)(body->v.n - 1) * sizeof(void *));
		body->v.n--;
	}
	check_no_init(p, body, 0);
	return s;
}

/* p, loc, body: "init { body }", placed by lang_stmt_iter. */
lang_stmt *lang_stmt_init(lang_parser *p, stir_loc loc, lang_list *body)
{
	lang_stmt *s = stmt_new(p, LANG_STMT_INIT, loc);
	if (!s)
		return NULL;
	check_no_init(p, body, 0);
	s->u.init.body = body ? body : lang_list_new(p);
	return s;
}

/* p, loc: see ast.h. */
lang_stmt *lang_stmt_barrier(lang_parser *p, stir_loc loc)
{
	return stmt_new(p, LANG_STMT_BARRIER, loc);
}

/* p, loc (of "for"), var, lo, extent, loop, body: a loop of stage II or
 * III; the builder checks that lo is the literal 0. */
lang_stmt *lang_stmt_for(lang_parser *p, stir_loc loc, lang_name *var,
	lang_expr *lo, lang_expr *extent, lang_loop loop, lang_list *body)
{
	lang_stmt *s = stmt_new(p, LANG_STMT_FOR, loc);
	if (!s)
		return NULL;
	check_no_init(p, body, 0);
	s->u.for_.var = name_value(var);
	s->u.for_.lo = lo;
	s->u.for_.extent = extent;
	s->u.for_.loop = loop;
	s->u.for_.body = body ? body : lang_list_new(p);
	return s;
}

/* p, head, field: the thread index of bind(head.field). */
lang_loop lang_loop_bind(lang_parser *p, lang_name *head, lang_name *field)
{
	static const char *const heads[] = { "blockIdx", "threadIdx" };
	static const char *const fields[] = { "x", "y", "z" };
	lang_loop l = { STIR_LOOP_BIND, STIR_BLOCK_X, NULL, stir_loc_none(),
		NULL, 0, 0 };
	lang_name h = name_value(head), f = name_value(field);
	if (!h.name || !f.name)
		return l;
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			if (!strcmp(h.name, heads[i]) && !strcmp(f.name, fields[j])) {
				l.thread = (stir_thread)(STIR_BLOCK_X + 3 * i + j);
				return l;
			}
	lang_syntax_error(p, h.loc, "unknown thread index '%s.%s': expected "
		"blockIdx or threadIdx, then x, y or z", h.name, f.name);
	return l;
}

/* p, intrinsic: "tensorize(NAME)"; the name is checked when the kernel
 * is built. */
lang_loop lang_loop_tensorize(lang_parser *p, lang_name *intrinsic)
{
	(void)p;
	lang_loop l = { STIR_LOOP_TENSORIZE, STIR_BLOCK_X, NULL,
		stir_loc_none(), NULL, 0, 0 };
	lang_name n = name_value(intrinsic);
	l.intrinsic = n.name;
	l.intrinsic_loc = n.loc;
	return l;
}

/* p, loc, stages: see ast.h. */
lang_loop lang_loop_pipeline(lang_parser *p, stir_loc loc, int64_t stages,
	stir_loc bloc, int64_t batch)
{
	lang_loop l = { STIR_LOOP_PIPELINE, STIR_BLOCK_X, NULL,
		stir_loc_none(), NULL, 2, 0 };
	if (stages < 2 || stages > 8)
		lang_syntax_error(p, loc, "a pipeline has 2 to 8 stages, not %lld",
			(long long)stages);
	else if (batch && (batch < 2 || 2 * batch > stages))
		lang_syntax_error(p, bloc, "a pipeline of %lld stages waits for "
			"2 to %lld iterations' copies together, not %lld",
			(long long)stages, (long long)stages / 2, (long long)batch);
	else {
		l.stages = (int)stages;
		l.batch = (int)batch;
	}
	return l;
}

/* p, vecs: see ast.h. */
lang_loop lang_loop_vectorize(lang_parser *p, lang_list *vecs)
{
	lang_loop l = { STIR_LOOP_VECTORIZE, STIR_BLOCK_X, NULL,
		stir_loc_none(), vecs ? vecs : lang_list_new(p), 0, 0 };
	return l;
}

/* p, loc, access, flags: see ast.h. */
lang_vec *lang_vec_new(lang_parser *p, stir_loc loc, lang_expr *access,
	unsigned flags)
{
	lang_vec *v = access ? node_alloc(p, sizeof(*v)) : NULL;
	if (v) {
		v->access = access;
		v->flags = flags;
		v->loc = loc;
	}
	return v;
}

/* p, word: see ast.h. */
unsigned lang_vec_flag(lang_parser *p, lang_name *word)
{
	lang_name n = name_value(word);
	if (n.name && !strcmp(n.name, "load"))
		return STIR_VEC_LOAD;
	if (n.name && !strcmp(n.name, "store"))
		return STIR_VEC_STORE;
	if (n.name)
		lang_syntax_error(p, n.loc, "unknown word '%s' in a vector plan: "
			"expected load, store or atomic", n.name);
	return 0;
}

/* p, loc, flag: see ast.h. */
unsigned lang_vec_flag_block(lang_parser *p, stir_loc loc, unsigned flag)
{
	if (flag == STIR_BLOCK_ATOMIC)
		return STIR_VEC_ATOMIC;
	lang_syntax_error(p, loc, "unknown word '%s' in a vector plan: "
		"expected load, store or atomic", stir_block_flag_name(flag));
	return 0;
}

/* p, iter, init: see ast.h. */
lang_block_link *lang_block_link_new(lang_parser *p, lang_name *iter,
	bool init)
{
	lang_block_link *l = iter ? node_alloc(p, sizeof(*l)) : NULL;
	if (l) {
		l->iter = *iter;
		l->init = init;
	}
	return l;
}

/* p, loc (of "block"), name, vars, flags, link, reads, writes (NULL when
 * absent), body: a block of stage II or III. */
lang_stmt *lang_stmt_block(lang_parser *p, stir_loc loc, lang_name *name,
	lang_list *vars, unsigned flags, lang_block_link *link,
	lang_list *reads, lang_list *writes, lang_list *body)
{
	lang_stmt *s = stmt_new(p, LANG_STMT_BLOCK, loc);
	if (!s)
		return NULL;
	check_no_init(p, body, 0);
	s->u.block.name = name_value(name);
	s->u.block.vars = vars ? vars : lang_list_new(p);
	s->u.block.reads = reads ? reads : lang_list_new(p);
	s->u.block.writes = writes ? writes : lang_list_new(p);
	s->u.block.body = body ? body : lang_list_new(p);
	s->u.block.flags = flags;
	if (link)
		s->u.block.link = *link;
	return s;
}

/* p, name, kind, binding: one variable of a block, "name: kind = binding". */
lang_block_var *lang_block_var_new(lang_parser *p, lang_name *name,
	lang_name *kind, lang_expr *binding)
{
	lang_block_var *v = name && kind ? node_alloc(p, sizeof(*v)) : NULL;
	if (v) {
		v->name = *name;
		v->kind = *kind;
		v->binding = binding;
	}
	return v;
}

/* p, buf, dims: a region BUF[dims]. */
lang_region *lang_region_new(lang_parser *p, lang_name *buf, lang_list *dims)
{
	lang_region *r = buf ? node_alloc(p, sizeof(*r)) : NULL;
	if (r) {
		r->buf = *buf;
		r->dims = dims ? dims : lang_list_new(p);
	}
	return r;
}

/* p, lo, hi, range: one dimension of a region. */
lang_range *lang_range_new(lang_parser *p, lang_expr *lo, lang_expr *hi,
	bool range)
{
	lang_range *r = node_alloc(p, sizeof(*r));
	if (r) {
		r->lo = lo;
		r->hi = hi;
		r->range = range;
	}
	return r;
}

/* ---- iteration groups ---- */

/* p, kind, loc, axes: a new group. */
static lang_group *group_new(lang_parser *p, stir_iter_group_kind kind,
	stir_loc loc, lang_list *axes)
{
	lang_group *g = node_alloc(p, sizeof(*g));
	if (g) {
		g->kind = kind;
		g->loc = loc;
		g->axes = axes;
	}
	return g;
}

/* p, axis: a single axis, located at its name. */
lang_group *lang_group_axis(lang_parser *p, lang_name *axis)
{
	return group_new(p, STIR_GROUP_AXIS, name_value(axis).loc,
		lang_list_one(p, axis));
}

/* p, loc (of "fuse"), axes: fuse(A, B, ..). */
lang_group *lang_group_fuse(lang_parser *p, stir_loc loc, lang_list *axes)
{
	return group_new(p, STIR_GROUP_FUSE, loc, axes);
}

/* p, loc (of "fuse"), axes, option, option_loc, value: fuse(A, B, ..,
 * OPTION = VALUE); the only option is coo (docs/language.md). */
lang_group *lang_group_fuse_option(lang_parser *p, stir_loc loc,
	lang_list *axes, const char *option, stir_loc option_loc, bool value)
{
	lang_group *g = group_new(p, STIR_GROUP_FUSE, loc, axes);
	if (option && strcmp(option, "coo")) {
		lang_syntax_error(p, option_loc, "unknown option '%s' of fuse: "
			"expected coo", option);
		return g;
	}
	if (g)
		g->coo = value;
	return g;
}

/* p, loc (of "attach"), axis, parent: attach(X, P). */
lang_group *lang_group_attach(lang_parser *p, stir_loc loc, lang_name *axis,
	lang_name *parent)
{
	return group_new(p, STIR_GROUP_ATTACH, loc,
		lang_list_append(p, lang_list_one(p, axis), parent));
}

/* ---- declarations ---- */

/* p, loc: a new axis constructor argument. */
static lang_arg *arg_new(lang_parser *p, stir_loc loc)
{
	lang_arg *a = node_alloc(p, sizeof(*a));
	if (a)
		a->loc = loc;
	return a;
}

/* p, e, loc: a positional argument; loc is of its first token. */
lang_arg *lang_arg_expr(lang_parser *p, lang_expr *e, stir_loc loc)
{
	lang_arg *a = e ? arg_new(p, loc) : NULL;
	if (a)
		a->expr = e;
	return a;
}

/* p, option, loc, dtype: "option = TYPE". */
lang_arg *lang_arg_type(lang_parser *p, const char *option, stir_loc loc,
	stir_dtype dtype)
{
	lang_arg *a = arg_new(p, loc);
	if (a) {
		a->option = option;
		a->is_type = true;
		a->dtype = dtype;
	}
	return a;
}

/* p, option, loc, flag: "option = true|false". */
lang_arg *lang_arg_flag(lang_parser *p, const char *option, stir_loc loc,
	bool flag)
{
	lang_arg *a = arg_new(p, loc);
	if (a) {
		a->option = option;
		a->flag = flag;
	}
	return a;
}

/* p, kind, name: a new declaration. */
static lang_decl *decl_new(lang_parser *p, lang_decl_kind kind,
	lang_name *name)
{
	lang_decl *d = name ? node_alloc(p, sizeof(*d)) : NULL;
	if (d) {
		d->kind = kind;
		d->name = *name;
	}
	return d;
}

/* p, name, kind, ctor_loc, args: axis NAME = ctor(args); the
 * arguments are checked by the builder. */
lang_decl *lang_decl_axis(lang_parser *p, lang_name *name,
	stir_axis_kind kind, stir_loc ctor_loc, lang_list *args)
{
	lang_decl *d = decl_new(p, LANG_DECL_AXIS, name);
	if (d) {
		d->axis_kind = kind;
		d->ctor_loc = ctor_loc;
		d->args = args ? args : lang_list_new(p);
	}
	return d;
}

/* p, lo, hi: the bounds of a value domain, kept together until the
 * declaration is built. */
lang_list *lang_domain(lang_parser *p, lang_expr *lo, lang_expr *hi)
{
	lang_list *l = lang_list_new(p);
	if (!l || !lo || !hi)
		return l;
	return lang_list_append(p, lang_list_append(p, l, lo), hi);
}

/* p, kind (tensor or local), name, dtype, axes, domain (NULL, or lo and
 * hi as made by lang_domain), distinct (no two entries equal). */
lang_decl *lang_decl_buffer(lang_parser *p, lang_decl_kind kind,
	lang_name *name, stir_dtype dtype, lang_list *axes, lang_list *domain,
	bool distinct)
{
	lang_decl *d = decl_new(p, kind, name);
	if (!d)
		return NULL;
	d->dtype = dtype;
	d->axes = axes;
	d->distinct = distinct;
	if (domain && domain->v.n == 2) {
		d->lo = domain->v.v[0];
		d->hi = domain->v.v[1];
	}
	return d;
}

/* p, name, dtype, extent, bound_to (NULL: allocated by the kernel),
 * domain and distinct (as for lang_decl_buffer), scope: a flat buffer. */
lang_decl *lang_decl_flat(lang_parser *p, lang_name *name, stir_dtype dtype,
	lang_expr *extent, lang_binding *bound_to, lang_list *domain,
	bool distinct, stir_scope scope)
{
	lang_decl *d = lang_decl_buffer(p, LANG_DECL_FLAT, name, dtype, NULL,
		domain, distinct);
	if (!d)
		return NULL;
	d->extent = extent;
	if (bound_to)
		d->bound_to = *bound_to;
	d->scope = scope;
	return d;
}

/* p, array, field (NULL for "= A"): what a flat buffer binds to. */
lang_binding *lang_binding_new(lang_parser *p, lang_name *array,
	lang_name *field)
{
	lang_binding *b = array ? node_alloc(p, sizeof(*b)) : NULL;
	if (b) {
		b->array = *array;
		b->field = name_value(field);
	}
	return b;
}

/* p, name, dtype: a kernel parameter "name: dtype". */
lang_param *lang_param_new(lang_parser *p, lang_name *name, stir_dtype dtype)
{
	lang_param *pa = name ? node_alloc(p, sizeof(*pa)) : NULL;
	if (pa) {
		pa->name = *name;
		pa->dtype = dtype;
	}
	return pa;
}

/* ---- kernels ---- */

/* p: an empty kernel body (named by lang_kernel_finish). */
lang_kernel *lang_kernel_new(lang_parser *p)
{
	lang_kernel *k = node_alloc(p, sizeof(*k));
	if (!k)
		return NULL;
	k->params = lang_list_new(p);
	k->decls = lang_list_new(p);
	k->stmts = lang_list_new(p);
	return k->params && k->decls && k->stmts ? k : NULL;
}

/* p, k, d: a declaration of the kernel body k. */
lang_kernel *lang_kernel_add_decl(lang_parser *p, lang_kernel *k,
	lang_decl *d)
{
	if (k)
		lang_list_append(p, k->decls, d);
	return k;
}

/* p, k, s: a statement at the kernel's top level (init is not allowed). */
lang_kernel *lang_kernel_add_stmt(lang_parser *p, lang_kernel *k,
	lang_stmt *s)
{
	if (s && s->kind == LANG_STMT_INIT)
		lang_syntax_error(p, s->loc,
			"init must be the first statement of an iteration body");
	if (k)
		lang_list_append(p, k->stmts, s);
	return k;
}

/* p, word, word_loc, n, n_loc: see ast.h.  The keywords are turned on
 * even after an error, so that the body reads as the stage it meant. */
int lang_stage_header(lang_parser *p, const char *word, stir_loc word_loc,
	int64_t n, stir_loc n_loc)
{
	p->stage_words = true;
	if (strcmp(word, "stage")) {
		lang_syntax_error(p, word_loc, "expected 'stage' or '{', not '%s'",
			word);
		return 0;
	}
	if (n != STIR_STAGE_2 && n != STIR_STAGE_3) {
		lang_syntax_error(p, n_loc, "a stage header names stage 2 or 3, "
			"not %" PRId64, n);
		return 0;
	}
	return (int)n;
}

/* p, name, params, stage, k: the kernel is complete; a kernel whose header
 * failed to parse (k or name NULL) is dropped. */
void lang_kernel_finish(lang_parser *p, lang_name *name, lang_list *params,
	int stage, lang_kernel *k)
{
	p->stage_words = false;
	if (!k || !name)
		return;
	k->name = *name;
	k->stage = stage == 0 ? STIR_STAGE_1 : (stir_stage)stage;
	if (params)
		k->params = params;
	if (!p->kernels)
		p->kernels = lang_list_new(p);
	lang_list_append(p, p->kernels, k);
}
