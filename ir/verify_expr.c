/* The verifier, expressions (ir/verify.c says how the verifier is laid
 * out): the scope that the statement walk carries (variables, iterated
 * axes, open statements) and the type and scope rules of every
 * expression kind (rule 6). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir/verify.h"

/* ---- the scope of the statement walk ---- */

/* v, sc: a scope for kernel v->k with its parameters in scope.  0 or -1
 * (memory). */
int verify_scope_init(verifier *v, scope *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->n_slots = v->k->n_vars;
	size_t n = (size_t)(sc->n_slots ? sc->n_slots : 1);
	sc->bound = calloc(n, sizeof(*sc->bound));
	sc->slot_var = calloc(n, sizeof(*sc->slot_var));
	sc->in_init = calloc(n, sizeof(*sc->in_init));
	if (!sc->bound || !sc->slot_var || !sc->in_init) {
		v->oom = true;
		stir_error_oom(v->ctx);
		return -1;
	}
	return 0;
}

/* sc: the scope whose memory is released. */
void verify_scope_release(scope *sc)
{
	free(sc->vars);
	free(sc->axes);
	free(sc->open);
	free(sc->bound);
	free(sc->slot_var);
	free(sc->in_init);
}

/* v, sc, var: bring an iterator or let into scope (its name checked
 * first). */
void verify_scope_push_var(verifier *v, scope *sc, stir_var *var)
{
	verify_check_new_var_name(v, sc, var);
	if (verify_grow(v, (void **)&sc->vars, &sc->cap_vars, sc->n_vars + 1,
		 sizeof(*sc->vars)) < 0)
		return;
	sc->vars[sc->n_vars++] = var;
	if (slot_ok(sc, var)) {
		if (sc->slot_var[var->slot] != var)
			sc->bound[var->slot] = 0;
		sc->slot_var[var->slot] = var;
		sc->bound[var->slot]++;
	}
}

/* sc, n: take the variables brought into scope after the first n out. */
void verify_scope_pop_vars(scope *sc, int n)
{
	while (sc->n_vars > n) {
		stir_var *var = sc->vars[--sc->n_vars];
		if (slot_ok(sc, var) && sc->slot_var[var->slot] == var &&
		    sc->bound[var->slot] > 0)
			sc->bound[var->slot]--;
	}
}

/* sc, var: whether "var" is an iterator or let in scope. */
static bool scope_has_var(const scope *sc, const stir_var *var)
{
	return slot_ok(sc, var) && sc->slot_var[var->slot] == var &&
		sc->bound[var->slot] > 0;
}

/* sc, a: the innermost entry iterating "a", or NULL. */
const iterated *verify_scope_find_axis(const scope *sc, const stir_axis *a)
{
	for (int i = sc->n_axes - 1; i >= 0; i--)
		if (sc->axes[i].axis == a)
			return &sc->axes[i];
	return NULL;
}

/* ---- expressions (rule 6) ---- */


/* v, sc, e, what, n, name: an expression that must be an integer (an
 * index, a bound, an extent), named in messages "WHAT N of 'NAME'" (n > 0)
 * or "WHAT 'NAME'".  A literal that could not become an integer is
 * reported as such.  Returns its type, or STIR_DTYPE_NONE when it is not
 * an integer or is unknown. */
stir_dtype verify_check_int(verifier *v, scope *sc, const stir_expr *e,
	const char *what, int n, const char *name)
{
	stir_dtype t = verify_check_expr(v, sc, e);
	if (t == STIR_DTYPE_NONE || stir_dtype_is_int(t))
		return t;
	if (e->flexible && stir_dtype_is_float(t))
		stir_error(v->ctx, e->loc,
			"float literal where an integer is expected");
	else if (n > 0)
		stir_error(v->ctx, e->loc, "%s %d of '%s' is %s, not an integer",
			what, n, name, stir_dtype_get_name(t));
	else
		stir_error(v->ctx, e->loc, "%s '%s' is %s, not an integer", what,
			name, stir_dtype_get_name(t));
	return STIR_DTYPE_NONE;
}

/* v, what, loc, a, ta, b, tb: two operands (of types ta and tb) that must
 * agree; "what" names them ("operands of '+'").  Returns their common
 * type: the wider of two integer types, or the one type they share;
 * STIR_DTYPE_NONE after reporting a disagreement. */
static stir_dtype agree(verifier *v, const char *what, stir_loc loc,
	const stir_expr *a, stir_dtype ta, const stir_expr *b, stir_dtype tb)
{
	if (ta == STIR_DTYPE_NONE || tb == STIR_DTYPE_NONE)
		return STIR_DTYPE_NONE;
	if (ta == tb)
		return ta;
	if (stir_dtype_is_int(ta) && stir_dtype_is_int(tb))
		return stir_int_rank(ta) >= stir_int_rank(tb) ? ta : tb;
	if (a->flexible && stir_dtype_is_float(ta) && stir_dtype_is_int(tb))
		stir_error(v->ctx, a->loc,
			"float literal where an integer is expected");
	else if (b->flexible && stir_dtype_is_float(tb) && stir_dtype_is_int(ta))
		stir_error(v->ctx, b->loc,
			"float literal where an integer is expected");
	else
		stir_error(v->ctx, loc, "%s do not agree: %s and %s", what,
			stir_dtype_get_name(ta), stir_dtype_get_name(tb));
	return STIR_DTYPE_NONE;
}

/* v, sc, e, what: a condition (of `if`, `?:`, or an operand of && || !,
 * named by "what"); it must be bool. */
void verify_check_cond(verifier *v, scope *sc, const stir_expr *e,
	const char *what)
{
	stir_dtype t = verify_check_expr(v, sc, e);
	if (t != STIR_DTYPE_NONE && t != STIR_BOOL)
		stir_error(v->ctx, e->loc, "%s is %s, not bool", what,
			stir_dtype_get_name(t));
}

/* v, sc, e: a use of a variable: a parameter of this kernel, or an
 * iterator (stage I only), let, loop or block variable in scope (a
 * reduction iterator not inside its iteration's init). */
static void check_var_use(verifier *v, scope *sc, const stir_expr *e)
{
	const stir_var *var = e->u.var;
	switch (var->kind) {
	case STIR_VAR_PARAM:
		if (!param_in_kernel(v->k, var))
			stir_error(v->ctx, e->loc,
				"parameter '%s' belongs to another kernel",
				var->name);
		return;
	case STIR_VAR_ITER:
		if (v->k->stage != STIR_STAGE_1)
			verify_report_stage(v, e->loc, "iterator", var->name);
		else if (!scope_has_var(sc, var))
			stir_error(v->ctx, e->loc,
				"'%s' is used outside its iteration", var->name);
		else if (sc->in_init[var->slot])
			stir_error(v->ctx, e->loc,
				"reduction iterator '%s' cannot be used in init",
				var->name);
		return;
	case STIR_VAR_LET:
	case STIR_VAR_LOOP:
	case STIR_VAR_BLOCK:
		if (!scope_has_var(sc, var))
			stir_error(v->ctx, e->loc, "'%s' is used outside its %s",
				var->name, var->kind == STIR_VAR_LET ? "scope" :
				var->kind == STIR_VAR_LOOP ? "loop" : "block");
		return;
	}
	stir_error(v->ctx, e->loc, "variable '%s' has an invalid kind",
		var->name);
}

/* v, sc, loc, b, n, idx: an access b[idx..] (a load, or the target of a
 * store, at "loc"): a buffer of this kernel, one integer index per axis,
 * or exactly one for a flat buffer. */
void verify_check_access(verifier *v, scope *sc, stir_loc loc,
	const stir_buffer *b, int n, stir_expr *const *idx)
{
	if (!buffer_in_kernel(v->k, b))
		stir_error(v->ctx, loc, "%s '%s' belongs to another kernel",
			buffer_word(b), b->name);
	else if (is_flat(b) && n != 1)
		stir_error(v->ctx, loc, "'%s' is a flat buffer: it takes 1 index, "
			"not %d", b->name, n);
	else if (!is_flat(b) && n != b->n_axes)
		stir_error(v->ctx, loc, "'%s' has %d %s but %d %s", b->name,
			b->n_axes, plural(b->n_axes, "axis", "axes"), n,
			plural(n, "index", "indices"));
	for (int i = 0; i < n; i++)
		verify_check_int(v, sc, idx[i], "index", i + 1, b->name);
}

/* v, op, e, t: operand "e" (of type t) of the arithmetic or comparison
 * operator "op" must be a number.  Whether it is. */
static bool check_num_operand(verifier *v, const char *op, const stir_expr *e,
	stir_dtype t)
{
	if (t == STIR_DTYPE_NONE || is_num(t))
		return true;
	stir_error(v->ctx, e->loc, "operand of '%s' is %s, not a number", op,
		stir_dtype_get_name(t));
	return false;
}

/* v, sc, e: a unary operation; its type. */
static stir_dtype check_unary(verifier *v, scope *sc, const stir_expr *e)
{
	if (e->u.unary.op == STIR_NOT) {
		verify_check_cond(v, sc, e->u.unary.a, "operand of '!'");
		return STIR_BOOL;
	}
	stir_dtype t = verify_check_expr(v, sc, e->u.unary.a);
	if (e->u.unary.op != STIR_NEG) {
		stir_error(v->ctx, e->loc, "invalid unary operator");
		return STIR_DTYPE_NONE;
	}
	return check_num_operand(v, "-", e->u.unary.a, t) ? t : STIR_DTYPE_NONE;
}

/* v, sc, e: a binary operation; its type. */
static stir_dtype check_binary(verifier *v, scope *sc, const stir_expr *e)
{
	stir_binop op = e->u.binary.op;
	const stir_expr *a = e->u.binary.a, *b = e->u.binary.b;
	const stir_binop_info *info = stir_binop_get(op);
	char what[32];
	if (!info) {
		stir_error(v->ctx, e->loc, "invalid binary operator");
		return STIR_DTYPE_NONE;
	}
	const char *name = info->text;
	if (info->cls == STIR_OPC_LOGIC) {
		snprintf(what, sizeof(what), "operand of '%s'", name);
		verify_check_cond(v, sc, a, what);
		verify_check_cond(v, sc, b, what);
		return STIR_BOOL;
	}
	bool cmp = info->cls == STIR_OPC_COMPARE ||
		info->cls == STIR_OPC_EQUALITY;
	stir_dtype ta = verify_check_expr(v, sc, a);
	stir_dtype tb = verify_check_expr(v, sc, b);
	/* == and != also compare two conditions */
	if (info->cls == STIR_OPC_EQUALITY && ta == STIR_BOOL && tb == STIR_BOOL)
		return STIR_BOOL;
	bool ok_a = check_num_operand(v, name, a, ta);
	bool ok_b = check_num_operand(v, name, b, tb);
	if (!ok_a || !ok_b)
		return cmp ? STIR_BOOL : STIR_DTYPE_NONE;
	snprintf(what, sizeof(what), "operands of '%s'", name);
	stir_dtype t = agree(v, what, e->loc, a, ta, b, tb);
	if (info->cls == STIR_OPC_INT_ARITH && stir_dtype_is_float(t)) {
		stir_error(v->ctx, e->loc, "'%s' needs integer operands, not %s",
			name, stir_dtype_get_name(t));
		return STIR_DTYPE_NONE;
	}
	return cmp ? STIR_BOOL : t;
}

/* v, sc, e: c ? a : b; its type. */
static stir_dtype check_select(verifier *v, scope *sc, const stir_expr *e)
{
	verify_check_cond(v, sc, e->u.select.c, "condition of '?:'");
	const stir_expr *a = e->u.select.a, *b = e->u.select.b;
	stir_dtype ta = verify_check_expr(v, sc, a);
	stir_dtype tb = verify_check_expr(v, sc, b);
	return agree(v, "branches of '?:'", e->loc, a, ta, b, tb);
}

/* v, sc, e: a call of min max abs exp log sqrt tanh; its type. */
static stir_dtype check_call(verifier *v, scope *sc, const stir_expr *e)
{
	stir_func f = e->u.call.f;
	const stir_func_info *info = stir_func_get(f);
	const char *name = spelled(info ? info->name : NULL);
	int n = e->u.call.n;
	stir_dtype t[2] = { STIR_DTYPE_NONE, STIR_DTYPE_NONE };
	for (int i = 0; i < n; i++) {
		stir_dtype ti = verify_check_expr(v, sc, e->u.call.args[i]);
		if (i < 2)
			t[i] = ti;
	}
	if (!info) {
		stir_error(v->ctx, e->loc, "invalid function");
		return STIR_DTYPE_NONE;
	}
	int want = info->n_args;
	if (n != want) {
		stir_error(v->ctx, e->loc, "'%s' takes %d %s, not %d", name, want,
			plural(want, "argument", "arguments"), n);
		return STIR_DTYPE_NONE;
	}
	const stir_expr *a = e->u.call.args[0];
	if (t[0] == STIR_DTYPE_NONE)
		return STIR_DTYPE_NONE;
	if (info->int_ok) {
		bool ok = true;
		for (int i = 0; i < n; i++)
			if (t[i] != STIR_DTYPE_NONE && !is_num(t[i])) {
				stir_error(v->ctx, e->u.call.args[i]->loc,
					"argument of '%s' is %s, not a number", name,
					stir_dtype_get_name(t[i]));
				ok = false;
			}
		if (!ok)
			return STIR_DTYPE_NONE;
		if (n == 1)
			return t[0];
		char what[32];
		snprintf(what, sizeof(what), "arguments of '%s'", name);
		return agree(v, what, e->loc, a, t[0], e->u.call.args[1], t[1]);
	}
	if (!stir_dtype_is_float(t[0])) {
		stir_error(v->ctx, a->loc, "argument of '%s' is %s, not a float",
			name, stir_dtype_get_name(t[0]));
		return STIR_DTYPE_NONE;
	}
	return t[0];
}

/* v, sc, e: a cast; its type, a number, of a number. */
static stir_dtype check_cast(verifier *v, scope *sc, const stir_expr *e)
{
	stir_dtype t = verify_check_expr(v, sc, e->u.cast.a);
	if (!is_num(e->dtype)) {
		stir_error(v->ctx, e->loc, "cannot cast to %s",
			stir_dtype_get_name(e->dtype));
		return STIR_DTYPE_NONE;
	}
	if (t != STIR_DTYPE_NONE && !is_num(t))
		stir_error(v->ctx, e->loc, "cannot cast %s to %s",
			stir_dtype_get_name(t), stir_dtype_get_name(e->dtype));
	return e->dtype;
}

/* v, sc, e: lower_bound(buf, lo, hi, x), upper_bound or find (stages II
 * and III): a flat integer buffer and three integers; its type is the
 * wider of lo's and hi's, the range it gives a position in. */
static stir_dtype check_search(verifier *v, scope *sc, const stir_expr *e)
{
	const char *name = stir_search_name(e->u.search.op);
	const stir_buffer *b = e->u.search.buf;
	if (!name) {
		stir_error(v->ctx, e->loc, "invalid search");
		return STIR_DTYPE_NONE;
	}
	if (v->k->stage == STIR_STAGE_1) {
		stir_error(v->ctx, e->loc, "'%s' is not allowed in a stage 1 "
			"kernel", name);
		return STIR_DTYPE_NONE;
	}
	if (!buffer_in_kernel(v->k, b))
		stir_error(v->ctx, e->loc, "%s '%s' belongs to another kernel",
			buffer_word(b), b->name);
	else if (!is_flat(b))
		stir_error(v->ctx, e->loc, "'%s' needs a flat buffer, not %s '%s'",
			name, buffer_word(b), b->name);
	else if (!stir_dtype_is_int(b->dtype))
		stir_error(v->ctx, e->loc, "'%s' needs an integer buffer, not '%s' "
			"of type %s", name, b->name, stir_dtype_get_name(b->dtype));
	stir_dtype lo = verify_check_int(v, sc, e->u.search.lo, "argument",
		2, name);
	stir_dtype hi = verify_check_int(v, sc, e->u.search.hi, "argument",
		3, name);
	verify_check_int(v, sc, e->u.search.x, "argument", 4, name);
	if (lo == STIR_DTYPE_NONE || hi == STIR_DTYPE_NONE)
		return STIR_DTYPE_NONE;
	return stir_int_rank(lo) >= stir_int_rank(hi) ? lo : hi;
}

/* v, sc, e: an expression; reports what is wrong in it and returns its
 * type (STIR_DTYPE_NONE when an error leaves it unknown).  The type the
 * rules give must also be the one recorded in the node, which the later
 * stages trust. */
stir_dtype verify_check_expr(verifier *v, scope *sc, const stir_expr *e)
{
	stir_dtype t;
	switch (e->kind) {
	case STIR_EXPR_INT:
		if (e->dtype == STIR_BOOL || is_num(e->dtype))
			return e->dtype;
		stir_error(v->ctx, e->loc, "literal of invalid type %s",
			stir_dtype_get_name(e->dtype));
		return STIR_DTYPE_NONE;
	case STIR_EXPR_FLOAT:
		if (stir_dtype_is_float(e->dtype))
			return e->dtype;
		stir_error(v->ctx, e->loc, "float literal of type %s",
			stir_dtype_get_name(e->dtype));
		return STIR_DTYPE_NONE;
	case STIR_EXPR_VAR:
		check_var_use(v, sc, e);
		t = e->u.var->dtype;
		break;
	case STIR_EXPR_LOAD:
		verify_check_access(v, sc, e->loc, e->u.load.buf, e->u.load.n,
			e->u.load.idx);
		t = e->u.load.buf->dtype;
		break;
	case STIR_EXPR_UNARY:
		t = check_unary(v, sc, e);
		break;
	case STIR_EXPR_BINARY:
		t = check_binary(v, sc, e);
		break;
	case STIR_EXPR_SELECT:
		t = check_select(v, sc, e);
		break;
	case STIR_EXPR_CALL:
		t = check_call(v, sc, e);
		break;
	case STIR_EXPR_CAST:
		t = check_cast(v, sc, e);
		break;
	case STIR_EXPR_SEARCH:
		t = check_search(v, sc, e);
		break;
	default:
		stir_error(v->ctx, e->loc, "invalid expression");
		return STIR_DTYPE_NONE;
	}
	if (t != STIR_DTYPE_NONE && t != e->dtype) {
		stir_error(v->ctx, e->loc,
			"expression of type %s where its operands give %s",
			stir_dtype_get_name(e->dtype), stir_dtype_get_name(t));
		return STIR_DTYPE_NONE;
	}
	return t;
}
