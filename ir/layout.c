/* Sizes, structure arrays and their checks; see layout.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/lang.h>
#include "ir/coo.h"
#include "ir/interp_value.h"
#include "ir/layout.h"
#include "ir/verify.h"
#include "ir/visit.h"

/* ctx, e, what: report that size expression e cannot be evaluated. */
static int size_error(stir_ctx *ctx, const stir_expr *e, const char *what)
{
	stir_error(ctx, e->loc, "size expression %s", what);
	return -1;
}

/* e, v: whether v, the exact value of size expression e, fits e's own
 * type.  Stage III and the GPU compute sizes (loop extents, the grid) in
 * their types, so a size that leaves its type there would wrap. */
static bool size_fits(const stir_expr *e, int64_t v)
{
	return !stir_dtype_is_int(e->dtype) || stir_value_wrap(e->dtype, v) == v;
}

/* ctx, k, e, params, value, bad: evaluate size expression e exactly (in
 * 64 bits) into *value; *bad, when still NULL, is set to the first
 * subexpression whose value does not fit its type (not reported here).
 * 0, or -1 with a diagnostic when e cannot be evaluated at all. */
static int eval_size(stir_ctx *ctx, const stir_kernel *k, const stir_expr *e,
	const int64_t *params, int64_t *value, const stir_expr **bad)
{
	int64_t a, b;
	switch (e->kind) {
	case STIR_EXPR_INT:
		*value = e->u.i;
		break;
	case STIR_EXPR_VAR:
		if (e->u.var->kind != STIR_VAR_PARAM)
			return size_error(ctx, e, "uses a variable that is not a parameter");
		int i = 0;
		while (i < k->params.n && stir_var_at(&k->params, i) != e->u.var)
			i++;
		if (i == k->params.n)
			return size_error(ctx, e, "uses a parameter of another kernel");
		*value = params[i];
		break;
	case STIR_EXPR_UNARY:
		if (e->u.unary.op != STIR_NEG)
			return size_error(ctx, e, "is not an integer");
		if (eval_size(ctx, k, e->u.unary.a, params, &a, bad) < 0)
			return -1;
		if (a == INT64_MIN)
			return size_error(ctx, e, "overflows");
		*value = -a;
		break;
	case STIR_EXPR_CAST:
		if (!stir_dtype_is_int(e->dtype))
			return size_error(ctx, e, "is not an integer");
		if (eval_size(ctx, k, e->u.cast.a, params, value, bad) < 0)
			return -1;
		break;
	case STIR_EXPR_CALL:
		if (e->u.call.f == STIR_ABS && e->u.call.n == 1) {
			if (eval_size(ctx, k, e->u.call.args[0], params, &a, bad) < 0)
				return -1;
			if (a == INT64_MIN)
				return size_error(ctx, e, "overflows");
			*value = a < 0 ? -a : a;
			break;
		}
		if (e->u.call.f != STIR_MIN && e->u.call.f != STIR_MAX)
			return size_error(ctx, e, "calls a function other than min, "
				"max or abs");
		if (e->u.call.n != 2 ||
		    eval_size(ctx, k, e->u.call.args[0], params, &a, bad) < 0 ||
		    eval_size(ctx, k, e->u.call.args[1], params, &b, bad) < 0)
			return -1;
		*value = (e->u.call.f == STIR_MIN) == (a < b) ? a : b;
		break;
	case STIR_EXPR_BINARY:
		if (eval_size(ctx, k, e->u.binary.a, params, &a, bad) < 0 ||
		    eval_size(ctx, k, e->u.binary.b, params, &b, bad) < 0)
			return -1;
		switch (e->u.binary.op) {
		case STIR_ADD:
			if (__builtin_add_overflow(a, b, value))
				return size_error(ctx, e, "overflows");
			break;
		case STIR_SUB:
			if (__builtin_sub_overflow(a, b, value))
				return size_error(ctx, e, "overflows");
			break;
		case STIR_MUL:
			if (__builtin_mul_overflow(a, b, value))
				return size_error(ctx, e, "overflows");
			break;
		case STIR_DIV:
		case STIR_MOD:
			if (b == 0)
				return size_error(ctx, e, "divides by zero");
			if (a == INT64_MIN && b == -1)
				return size_error(ctx, e, "overflows");
			*value = e->u.binary.op == STIR_DIV ? a / b : a % b;
			break;
		default:
			return size_error(ctx, e, "is not an integer");
		}
		break;
	default:
		return size_error(ctx, e, "is not an integer expression of parameters");
	}
	if (!*bad && !size_fits(e, *value))
		*bad = e;
	return 0;
}

/* slot, user: stop the walk at the first expression with a location,
 * stored in *user (a stir_loc). */
static stir_visit_step first_loc(stir_expr **slot, void *user)
{
	if (!(*slot)->loc.line)
		return STIR_VISIT_GO;
	*(stir_loc *)user = (*slot)->loc;
	return STIR_VISIT_STOP;
}

/* e: the location of e, or of its first operand that has one (operands
 * depth first, left to right); line 0 when none has. */
static stir_loc expr_loc(const stir_expr *e)
{
	stir_loc l = e->loc;
	stir_visitor v = { NULL, NULL, first_loc, NULL, 0, &l };
	stir_expr *slot = (stir_expr *)e;
	stir_visit_expr(&v, &slot);
	return l;
}

/* ctx, e, value, where, what: report that size expression e, of value
 * "value", does not fit its type; at e, or at "where" (the declaration
 * it sizes) when e has no location of its own (it was built by lowering
 * or a schedule), or else at its first operand that has one; "what"
 * names that declaration, or is NULL. */
static int size_type_error(stir_ctx *ctx, const stir_expr *e, int64_t value,
	stir_loc where, const char *what)
{
	char *text = stir_expr_to_str(e);
	if (!text)
		return stir_error_oom(ctx), -1;
	stir_error(ctx, e->loc.line ? e->loc : where.line ? where : expr_loc(e),
		"size expression '%s'%s%s is %" PRId64 ", which does not fit in "
		"its type %s%s", text, what ? " of " : "", what ? what : "",
		value, stir_dtype_get_name(e->dtype),
		e->dtype == STIR_I64 ? "" : " (declare the sizes it uses i64)");
	free(text);
	return -1;
}

/* ctx, k, e, params, value, where, what: evaluate size expression e into
 * *value; every subexpression must fit its type (size_type_error's
 * "where" and "what" locate the report).  0, or -1 with a diagnostic. */
static int eval_size_in(stir_ctx *ctx, const stir_kernel *k,
	const stir_expr *e, const int64_t *params, int64_t *value,
	stir_loc where, const char *what)
{
	const stir_expr *bad = NULL;
	if (eval_size(ctx, k, e, params, value, &bad) < 0)
		return -1;
	if (!bad)
		return 0;
	int64_t v = 0;
	const stir_expr *again = NULL;
	eval_size(ctx, k, bad, params, &v, &again);
	return size_type_error(ctx, bad, v, where, what);
}

int stir_eval_size(stir_ctx *ctx, const stir_kernel *k, const stir_expr *e,
	const int64_t *params, int64_t *value)
{
	return eval_size_in(ctx, k, e, params, value, e->loc, NULL);
}

int stir_eval_size_at(stir_ctx *ctx, const stir_kernel *k, const stir_expr *e,
	const int64_t *params, int64_t *value, stir_loc where)
{
	return eval_size_in(ctx, k, e, params, value, where, NULL);
}

bool stir_axis_has_indptr(const stir_axis *a)
{
	return a->kind == STIR_DENSE_VARIABLE || a->kind == STIR_SPARSE_VARIABLE;
}

bool stir_axis_has_indices(const stir_axis *a)
{
	return a->kind == STIR_SPARSE_FIXED || a->kind == STIR_SPARSE_VARIABLE;
}

/* ctx, a, suffix: the name of a's array "suffix" ("indptr", "indices"),
 * interned in ctx; NULL after reporting that memory ran out. */
static const char *axis_array_name(stir_ctx *ctx, const stir_axis *a,
	const char *suffix)
{
	size_t n = strlen(a->name) + 1 + strlen(suffix) + 1;
	char *buf = malloc(n);
	if (!buf)
		return stir_error_oom(ctx);
	snprintf(buf, n, "%s.%s", a->name, suffix);
	const char *name = stir_ctx_intern(ctx, buf);
	free(buf);
	return name ? name : stir_error_oom(ctx);
}

const char *stir_axis_indptr_name(stir_ctx *ctx, const stir_axis *a)
{
	return axis_array_name(ctx, a, "indptr");
}

const char *stir_axis_indices_name(stir_ctx *ctx, const stir_axis *a)
{
	return axis_array_name(ctx, a, "indices");
}

/* a, fa, b, fb, flexible: the type of an integer operation on operands of
 * types a and b, fa and fb telling whether each is built of literals only
 * (which take the other operand's type, as stir_expr_binary does); sets
 * *flexible when both are. */
static stir_dtype join_type(stir_dtype a, bool fa, stir_dtype b, bool fb,
	bool *flexible)
{
	*flexible = fa && fb;
	if (fa != fb)
		return fa ? b : a;
	return stir_int_rank(a) >= stir_int_rank(b) ? a : b;
}

/* a, flexible: the type of axis a's number of positions as lowering
 * builds it (stir_axis_npos_expr: LEN, npos(parent) * C or NNZ). */
static stir_dtype npos_type(const stir_axis *a, bool *flexible)
{
	const stir_expr *e = a->kind == STIR_DENSE_FIXED ? a->len : a->nnz;
	if (a->kind != STIR_SPARSE_FIXED || !a->parent) {
		*flexible = e->flexible;
		return e->dtype;
	}
	bool fp;
	stir_dtype tp = npos_type(a->parent, &fp);
	return join_type(tp, fp, e->dtype, e->flexible, flexible);
}

stir_dtype stir_buffer_offset_dtype(const stir_buffer *b)
{
	if (b->n_axes == 0)
		return b->extent ? b->extent->dtype : STIR_I32;
	stir_dtype t = STIR_I32;
	bool flexible = true;
	for (int i = 0; i < b->n_axes; i++) {
		if (!stir_buffer_axis_ends_chain(b, i))
			continue;
		bool fa;
		stir_dtype ta = npos_type(b->axes[i], &fa);
		t = join_type(t, flexible, ta, fa, &flexible);
	}
	return t;
}

int64_t stir_layout_buffer_len(const stir_layout *l, const stir_buffer *b)
{
	int64_t n = 1;
	for (int i = 0; i < b->n_axes; i++) {
		if (!stir_buffer_axis_ends_chain(b, i))
			continue;
		int64_t npos = l->axes[b->axes[i]->index].npos;
		if (npos && n > INT64_MAX / npos)
			return -1;
		n *= npos;
	}
	return n;
}

/* ctx, buf, len: a buffer of "len" elements (negative: more than int64
 * holds) must fit in memory's address range, or no array can hold it:
 * an error that names it, where it is declared.  0 or -1. */
static int check_buffer_bytes(stir_ctx *ctx, const stir_buffer *buf,
	int64_t len)
{
	size_t elem = stir_dtype_get_size(buf->dtype);
	if (len < 0) {
		stir_error(ctx, buf->loc, "'%s' has too many elements (more "
			"than %" PRId64 ")", buf->name, INT64_MAX);
		return -1;
	}
	if (elem && (uint64_t)len > SIZE_MAX / elem) {
		stir_error(ctx, buf->loc, "'%s' has too many elements (%" PRId64
			" of %zu bytes)", buf->name, len, elem);
		return -1;
	}
	return 0;
}

void stir_layout_release(stir_layout *l)
{
	free(l->params);
	free(l->axes);
	free(l->buffer_len);
	memset(l, 0, sizeof(*l));
}

/* ctx, name, a, want, len: check that array "name" is bound to "a" with
 * element type "want" and "len" elements.  0 or -1. */
static int check_array(stir_ctx *ctx, const char *name, const stir_array *a,
	stir_dtype want, int64_t len)
{
	if (!a) {
		stir_error(ctx, stir_loc_none(), "array '%s' is not bound", name);
		return -1;
	}
	if (stir_array_get_dtype(a) != want) {
		stir_error(ctx, stir_loc_none(), "array '%s' has type %s, expected %s",
			name, stir_dtype_get_name(stir_array_get_dtype(a)),
			stir_dtype_get_name(want));
		return -1;
	}
	if (stir_array_get_len(a) != len) {
		stir_error(ctx, stir_loc_none(),
			"array '%s' has %" PRId64 " elements, expected %" PRId64,
			name, stir_array_get_len(a), len);
		return -1;
	}
	return 0;
}

/* ctx, name, a, al, parent_npos: check the indptr array (called "name")
 * of variable axis a. */
static int check_indptr(stir_ctx *ctx, const char *name, const stir_axis *a,
	const stir_axis_layout *al, int64_t parent_npos)
{
	if (check_array(ctx, name, al->indptr, a->idtype, parent_npos + 1) < 0)
		return -1;
	int64_t prev = stir_array_get_int(al->indptr, 0);
	if (prev != 0) {
		stir_error(ctx, stir_loc_none(),
			"array '%s': entry 0 is %" PRId64 ", expected 0", name, prev);
		return -1;
	}
	for (int64_t i = 1; i <= parent_npos; i++) {
		int64_t v = stir_array_get_int(al->indptr, i);
		if (v < prev) {
			stir_error(ctx, stir_loc_none(),
				"array '%s': entry %" PRId64 " is %" PRId64
				", less than entry %" PRId64 " (%" PRId64 ")",
				name, i, v, i - 1, prev);
			return -1;
		}
		if (a->kind == STIR_DENSE_VARIABLE && v - prev > al->len) {
			stir_error(ctx, stir_loc_none(),
				"array '%s': row %" PRId64 " has %" PRId64
				" entries, more than the axis length %" PRId64,
				name, i - 1, v - prev, al->len);
			return -1;
		}
		prev = v;
	}
	if (prev != al->nnz) {
		stir_error(ctx, stir_loc_none(),
			"array '%s': last entry is %" PRId64 ", expected NNZ = %" PRId64,
			name, prev, al->nnz);
		return -1;
	}
	return 0;
}

/* ctx, name, a, al, parent_npos: check the indices array (called "name")
 * of sparse axis a: in range, and strictly ascending within each parent
 * position when sorted. */
static int check_indices(stir_ctx *ctx, const char *name, const stir_axis *a,
	const stir_axis_layout *al, int64_t parent_npos)
{
	if (check_array(ctx, name, al->indices, a->idtype, al->npos) < 0)
		return -1;
	for (int64_t p = 0; p < parent_npos; p++) {
		int64_t lo, hi;
		if (a->kind == STIR_SPARSE_FIXED) {
			lo = p * al->nnz;
			hi = lo + al->nnz;
		} else {
			lo = stir_array_get_int(al->indptr, p);
			hi = stir_array_get_int(al->indptr, p + 1);
		}
		for (int64_t q = lo; q < hi; q++) {
			int64_t c = stir_array_get_int(al->indices, q);
			if (c < 0 || c >= al->len) {
				stir_error(ctx, stir_loc_none(),
					"array '%s': entry %" PRId64 " is %" PRId64
					", outside [0, %" PRId64 ")", name, q, c, al->len);
				return -1;
			}
			if (a->sorted && q > lo &&
			    c <= stir_array_get_int(al->indices, q - 1)) {
				stir_error(ctx, stir_loc_none(),
					"array '%s': entry %" PRId64 " is %" PRId64
					", not greater than entry %" PRId64 " (%" PRId64
					") in the same row", name, q, c, q - 1,
					stir_array_get_int(al->indices, q - 1));
				return -1;
			}
		}
	}
	return 0;
}

/* x, y: (value, entry) pairs in ascending order. */
static int compare_pairs(const void *x, const void *y)
{
	const int64_t *a = x, *b = y;
	return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) :
		a[1] != b[1] ? (a[1] < b[1] ? -1 : 1) : 0;
}

/* ctx, buf, a, lo, hi: no two entries of array a, bound to buffer buf
 * declared distinct, are equal (they lie in [lo, hi) already). */
static int check_distinct(stir_ctx *ctx, const stir_buffer *buf,
	const stir_array *a, int64_t lo, int64_t hi)
{
	int64_t n = stir_array_get_len(a);
	if (n > hi - lo) {
		stir_error(ctx, buf->loc, "array '%s' has %" PRId64 " entries, more "
			"than the %" PRId64 " distinct values of the domain of '%s', "
			"declared distinct", stir_buffer_get_array_name(buf), n,
			hi - lo, buf->name);
		return -1;
	}
	/* (value, entry) pairs sorted: equal values side by side, each
	 * value's entries in order, so the pair reported (the one whose
	 * later entry comes first) is a value's first two entries */
	int64_t (*pair)[2] = malloc((size_t)(n ? n : 1) * sizeof(*pair));
	if (!pair) {
		stir_error(ctx, buf->loc, "out of memory checking '%s'", buf->name);
		return -1;
	}
	for (int64_t i = 0; i < n; i++) {
		pair[i][0] = stir_array_get_int(a, i);
		pair[i][1] = i;
	}
	qsort(pair, (size_t)n, sizeof(*pair), compare_pairs);
	int64_t bad = -1;
	for (int64_t i = 1; i < n; i++)
		if (pair[i][0] == pair[i - 1][0] &&
		    (bad < 0 || pair[i][1] < pair[bad][1]))
			bad = i;
	if (bad >= 0)
		stir_error(ctx, buf->loc, "array '%s': entries %" PRId64 " and %"
			PRId64 " are both %" PRId64 ", but '%s' is declared distinct "
			"(a permutation)", stir_buffer_get_array_name(buf),
			pair[bad - 1][1], pair[bad][1], pair[bad][0], buf->name);
	free(pair);
	return bad >= 0 ? -1 : 0;
}

/* l, buf, b: check the array bound to buffer buf (a tensor's values, or in
 * stages II and III any buffer bound to an argument) and its value domain. */
static int check_tensor(stir_layout *l, const stir_buffer *buf,
	const stir_bindings *b)
{
	stir_ctx *ctx = stir_kernel_ctx(l->kernel);
	const char *name = stir_buffer_get_array_name(buf);
	const stir_array *a = stir_bindings_get_array(b, name);
	if (check_array(ctx, name, a, buf->dtype,
		l->buffer_len[buf->index]) < 0)
		return -1;
	if (!buf->domain_lo)
		return 0;
	int64_t lo, hi;
	if (eval_size_in(ctx, l->kernel, buf->domain_lo, l->params, &lo,
		buf->loc, buf->name) < 0 ||
	    eval_size_in(ctx, l->kernel, buf->domain_hi, l->params, &hi,
		buf->loc, buf->name) < 0)
		return -1;
	for (int64_t i = 0; i < stir_array_get_len(a); i++) {
		int64_t v = stir_array_get_int(a, i);
		if (v < lo || v >= hi) {
			stir_error(ctx, stir_loc_none(),
				"array '%s': entry %" PRId64 " is %" PRId64
				", outside its domain [%" PRId64 ", %" PRId64 ")",
				name, i, v, lo, hi);
			return -1;
		}
	}
	return buf->distinct ? check_distinct(ctx, buf, a, lo, hi) : 0;
}

/* slot, user: stop the walk at a search of buffer "user" by bisection
 * (lower_bound, upper_bound: find scans, and needs no order). */
static stir_visit_step bisects(stir_expr **slot, void *user)
{
	const stir_expr *x = *slot;
	return x->kind == STIR_EXPR_SEARCH && x->u.search.buf == user &&
		x->u.search.op != STIR_FIND ? STIR_VISIT_STOP : STIR_VISIT_GO;
}

/* list, buf: whether a statement of list, or one inside it, searches
 * buffer buf by bisection. */
static bool list_bisects(const stir_ptr_vec *list, const stir_buffer *buf)
{
	stir_visitor v = { NULL, NULL, bisects, NULL, 0, (void *)buf };
	return stir_visit_list(&v, (stir_ptr_vec *)list);
}

/* k, indices: the stage III indptr buffer of the same axis as indices
 * buffer "indices" ("X.indptr" beside "X.indices"), or NULL. */
static const stir_buffer *indptr_beside(const stir_kernel *k,
	const stir_buffer *indices)
{
	size_t n = strlen(indices->arg) - strlen(".indices");
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *b = stir_buffer_at(&k->buffers, i);
		if (b->kind == STIR_BUFFER_INDPTR && b->arg &&
		    !strncmp(b->arg, indices->arg, n) &&
		    !strcmp(b->arg + n, ".indptr"))
			return b;
	}
	return NULL;
}

/* l, b: at stage III, where axes are gone, the structure arrays checked
 * as far as the buffers tell (the interpreter of stage I checks them
 * against their axes): an indptr array starts at 0 and does not
 * decrease; an indices array that the kernel bisects ascends strictly
 * within each range of its axis's indptr array (a bisection of unsorted
 * indices would miss).  The domains are checked with the tensors. */
static int check_stage3_structure(stir_layout *l, const stir_bindings *b)
{
	const stir_kernel *k = l->kernel;
	stir_ctx *ctx = stir_kernel_ctx(k);
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *buf = stir_buffer_at(&k->buffers, i);
		if (buf->kind != STIR_BUFFER_INDPTR || !buf->arg)
			continue;
		const stir_array *a = stir_bindings_get_array(b, buf->arg);
		int64_t n = stir_array_get_len(a);
		if (n > 0 && stir_array_get_int(a, 0) != 0) {
			stir_error(ctx, stir_loc_none(), "array '%s': entry 0 is %"
				PRId64 ", expected 0", buf->arg,
				stir_array_get_int(a, 0));
			return -1;
		}
		for (int64_t j = 1; j < n; j++) {
			int64_t v = stir_array_get_int(a, j);
			int64_t prev = stir_array_get_int(a, j - 1);
			if (v < prev) {
				stir_error(ctx, stir_loc_none(), "array '%s': entry %"
					PRId64 " is %" PRId64 ", less than entry %"
					PRId64 " (%" PRId64 ")", buf->arg, j, v, j - 1,
					prev);
				return -1;
			}
		}
	}
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *buf = stir_buffer_at(&k->buffers, i);
		const stir_buffer *ptr;
		if (buf->kind != STIR_BUFFER_INDICES || !buf->arg ||
		    !(ptr = indptr_beside(k, buf)) || !list_bisects(&k->body, buf))
			continue;
		const stir_array *a = stir_bindings_get_array(b, buf->arg);
		const stir_array *p = stir_bindings_get_array(b, ptr->arg);
		int64_t len = stir_array_get_len(a);
		for (int64_t r = 0; r + 1 < stir_array_get_len(p); r++) {
			int64_t lo = stir_array_get_int(p, r);
			int64_t hi = stir_array_get_int(p, r + 1);
			for (int64_t q = lo + 1; q < hi && q < len; q++) {
				int64_t c = stir_array_get_int(a, q);
				int64_t prev = stir_array_get_int(a, q - 1);
				if (c <= prev) {
					stir_error(ctx, stir_loc_none(), "array '%s': "
						"entry %" PRId64 " is %" PRId64 ", not "
						"greater than entry %" PRId64 " (%" PRId64
						") in the same row", buf->arg, q, c, q - 1,
						prev);
					return -1;
				}
			}
		}
	}
	return 0;
}

/* l, b: evaluate the parameters of l->kernel from b. */
static int init_params(stir_layout *l, const stir_bindings *b)
{
	const stir_kernel *k = l->kernel;
	stir_ctx *ctx = stir_kernel_ctx(k);
	int errors = 0;
	for (int i = 0; i < k->params.n; i++) {
		const stir_var *p = stir_var_at(&k->params, i);
		if (!stir_bindings_get_size(b, p->name, &l->params[i])) {
			stir_error(ctx, p->loc, "size '%s' is not bound", p->name);
			errors++;
		} else if (p->dtype == STIR_I32 &&
			   (l->params[i] < INT32_MIN || l->params[i] > INT32_MAX)) {
			stir_error(ctx, p->loc, "size '%s' = %" PRId64
				" does not fit in i32", p->name, l->params[i]);
			errors++;
		}
	}
	return errors ? -1 : 0;
}

/* t, n: whether a count n fits integer type t. */
static bool count_fits(stir_dtype t, int64_t n)
{
	return stir_value_wrap(t, n) == n;
}

/* l, a: check that the coordinates of a dense_fixed axis a (sizes
 * evaluated) fit its index type, and NNZ a variable axis's (its indptr
 * holds it); and that its positions can be counted in the types lowering
 * computes them in: npos(a) for a sparse_fixed axis (the extent of its
 * indices array), and for a variable axis npos(parent) + 1 and NNZ + 1
 * (its indptr array's extent and value bound).  Stages II and III check
 * the latter through the extents and domains of the auxiliary buffers;
 * stage I checks them here, so that a binding is refused at every stage
 * alike. */
static int check_axis_counts(stir_layout *l, const stir_axis *a)
{
	stir_ctx *ctx = stir_kernel_ctx(l->kernel);
	const stir_axis_layout *al = &l->axes[a->index];
	bool flexible;
	if (a->kind == STIR_DENSE_FIXED && al->len > 0 &&
	    !count_fits(a->idtype, al->len - 1)) {
		/* the iterator (of the axis's index type) holds the coordinate */
		stir_error(ctx, a->loc, "axis '%s' has length %" PRId64 ": its "
			"coordinates do not fit its index type %s (declare it "
			"idtype = i64)", a->name, al->len, stir_dtype_get_name(a->idtype));
		return -1;
	}
	if (stir_axis_has_indptr(a) && !count_fits(a->idtype, al->nnz)) {
		/* indptr, of the index type, ends at NNZ */
		stir_error(ctx, a->loc, "axis '%s' has NNZ = %" PRId64 ", more than "
			"its index type %s holds (declare it idtype = i64)", a->name,
			al->nnz, stir_dtype_get_name(a->idtype));
		return -1;
	}
	if (a->kind == STIR_SPARSE_FIXED) {
		stir_dtype t = npos_type(a, &flexible);
		if (!count_fits(t, al->npos)) {
			stir_error(ctx, a->loc, "axis '%s' has %" PRId64 " positions, "
				"more than its sizes' type %s counts (declare them i64)",
				a->name, al->npos, stir_dtype_get_name(t));
			return -1;
		}
	}
	if (!stir_axis_has_indptr(a))
		return 0;
	stir_dtype t = npos_type(a->parent, &flexible);
	int64_t n = l->axes[a->parent->index].npos, n1, nnz1;
	bool rows = __builtin_add_overflow(n, 1, &n1) || !count_fits(t, n1);
	if (rows || __builtin_add_overflow(al->nnz, 1, &nnz1) ||
	    !count_fits(a->nnz->dtype, nnz1)) {
		stir_error(ctx, a->loc, "axis '%s': %s + 1 (its indptr's %s) does "
			"not fit in %s (declare the sizes i64)", a->name,
			rows ? "the parent's positions" : "NNZ",
			rows ? "length" : "value bound",
			stir_dtype_get_name(rows ? t : a->nnz->dtype));
		return -1;
	}
	return 0;
}

/* l, a: evaluate the sizes and positions of axis a (parents come first). */
static int init_axis(stir_layout *l, const stir_axis *a)
{
	stir_ctx *ctx = stir_kernel_ctx(l->kernel);
	stir_axis_layout *al = &l->axes[a->index];
	if (eval_size_in(ctx, l->kernel, a->len, l->params, &al->len, a->loc,
		a->name) < 0)
		return -1;
	if (a->nnz && eval_size_in(ctx, l->kernel, a->nnz, l->params, &al->nnz,
		a->loc, a->name) < 0)
		return -1;
	if (al->len < 0 || al->nnz < 0) {
		stir_error(ctx, a->loc, "axis '%s' has a negative size (%" PRId64 ")",
			a->name, al->len < 0 ? al->len : al->nnz);
		return -1;
	}
	switch (a->kind) {
	case STIR_DENSE_FIXED:
		al->npos = al->len;
		break;
	case STIR_SPARSE_FIXED:
		if (__builtin_mul_overflow(l->axes[a->parent->index].npos, al->nnz,
			&al->npos)) {
			stir_error(ctx, a->loc, "axis '%s' has too many positions",
				a->name);
			return -1;
		}
		break;
	default:
		al->npos = al->nnz;
		break;
	}
	return check_axis_counts(l, a);
}

/* l, b: find and check the structure arrays of every axis. */
static int check_axes(stir_layout *l, const stir_bindings *b)
{
	const stir_kernel *k = l->kernel;
	stir_ctx *ctx = stir_kernel_ctx(k);
	for (int i = 0; i < k->axes.n; i++) {
		const stir_axis *a = stir_axis_at(&k->axes, i);
		stir_axis_layout *al = &l->axes[i];
		int64_t parent_npos = a->parent ? l->axes[a->parent->index].npos : 0;
		const char *name;
		if (stir_axis_has_indptr(a)) {
			if (!(name = stir_axis_indptr_name(ctx, a)))
				return -1;
			al->indptr = stir_bindings_get_array(b, name);
			if (check_indptr(ctx, name, a, al, parent_npos) < 0)
				return -1;
		}
		if (stir_axis_has_indices(a)) {
			if (!(name = stir_axis_indices_name(ctx, a)))
				return -1;
			al->indices = stir_bindings_get_array(b, name);
			if (check_indices(ctx, name, a, al, parent_npos) < 0)
				return -1;
		}
	}
	return 0;
}

/* l, b: check the COO arrays of fused groups against the axes' indptr
 * arrays (checked before): stages I and II, where the axes tell which
 * positions they must hold. */
static int check_coo_arrays(stir_layout *l, const stir_bindings *b)
{
	const stir_kernel *k = l->kernel;
	int n = stir_kernel_coo_pairs(k, 0, NULL, NULL);
	if (n == 0)
		return 0;
	const stir_axis **js = calloc((size_t)n, sizeof(*js));
	const stir_axis **xs = calloc((size_t)n, sizeof(*xs));
	int rc = js && xs ? 0 : -1;
	if (rc < 0)
		stir_error_oom(stir_kernel_ctx(k));
	else
		stir_kernel_coo_pairs(k, n, js, xs);
	for (int i = 0; i < n && rc == 0; i++)
		rc = stir_coo_check(l, b, js[i], xs[i]);
	free(js);
	free(xs);
	return rc;
}

/* l, buf: check that every offset into buffer buf (over axes; its
 * element count evaluated) fits the type lowering computes it in
 * (stir_buffer_offset_dtype): otherwise stage III, the GPU and the
 * interpreter of stage III would wrap.  A flat buffer's extent has been
 * checked in its own type already. */
static int check_offset_type(stir_layout *l, const stir_buffer *buf)
{
	if (buf->n_axes == 0)
		return 0;
	stir_dtype t = stir_buffer_offset_dtype(buf);
	int64_t n = l->buffer_len[buf->index];
	if (count_fits(t, n))
		return 0;
	stir_error(stir_kernel_ctx(l->kernel), buf->loc, "%s '%s' has %" PRId64
		" elements, more than its offsets' type %s reaches (the type of "
		"its sizes: declare them i64)",
		buf->kind == STIR_BUFFER_LOCAL ? "local" : "tensor", buf->name, n,
		stir_dtype_get_name(t));
	return -1;
}

stir_loc stir_stmt_first_loc(const stir_stmt *s)
{
	if (s->loc.line > 0)
		return s->loc;
	const stir_ptr_vec *lists[2] = { NULL, NULL };
	if (s->kind == STIR_STMT_IF) {
		lists[0] = &s->u.if_.then_body;
		lists[1] = &s->u.if_.else_body;
	} else {
		lists[0] = stir_stmt_body((stir_stmt *)s);
	}
	for (int l = 0; l < 2; l++) {
		for (int i = 0; lists[l] && i < lists[l]->n; i++) {
			stir_loc loc = stir_stmt_first_loc(stir_stmt_at(lists[l], i));
			if (loc.line > 0)
				return loc;
		}
	}
	return s->loc;
}

/* e, k: see layout.h. */
const stir_expr *stir_size_offender(const stir_expr *e, const stir_kernel *k)
{
	const stir_expr *o;
	switch (e->kind) {
	case STIR_EXPR_INT:
		return stir_dtype_is_int(e->dtype) ? NULL : e;
	case STIR_EXPR_VAR:
		return e->u.var->kind == STIR_VAR_PARAM &&
			(!k || param_in_kernel(k, e->u.var)) &&
			stir_dtype_is_int(e->u.var->dtype) ? NULL : e;
	case STIR_EXPR_UNARY:
		return e->u.unary.op == STIR_NEG ?
			stir_size_offender(e->u.unary.a, k) : e;
	case STIR_EXPR_BINARY:
		if (!stir_binop_is_arith(e->u.binary.op))
			return e;
		o = stir_size_offender(e->u.binary.a, k);
		return o ? o : stir_size_offender(e->u.binary.b, k);
	case STIR_EXPR_CALL:
		if (!stir_func_is_int_call(e->u.call.f, e->u.call.n))
			return e;
		for (int i = 0; i < e->u.call.n; i++)
			if ((o = stir_size_offender(e->u.call.args[i], k)))
				return o;
		return NULL;
	case STIR_EXPR_CAST:
		return stir_dtype_is_int(e->dtype) ?
			stir_size_offender(e->u.cast.a, k) : e;
	default:
		return e;
	}
}

/* s, user: the extent of loop s, when a size expression, computed
 * in its type (a stir_layout); the walk stops at the first failure. */
static stir_visit_step check_extent(stir_stmt *s, void *user)
{
	stir_layout *l = user;
	int64_t v;
	if (s->kind == STIR_STMT_FOR && !stir_size_offender(s->u.for_.extent,
	    NULL) &&
	    eval_size_in(stir_kernel_ctx(l->kernel), l->kernel,
		s->u.for_.extent, l->params, &v, stir_stmt_first_loc(s),
		NULL) < 0)
		return STIR_VISIT_STOP;
	return STIR_VISIT_GO;
}

/* l, list: check the extents of the loops in list (and nested lists) that
 * are size expressions ((m + 7) / 8 after a split): the interpreter of
 * stage III and the GPU compute them in their types, so each part must
 * fit its type as declared sizes do.  0 or -1 with a diagnostic. */
static int check_loop_extents(stir_layout *l, const stir_ptr_vec *list)
{
	stir_visitor v = { check_extent, NULL, NULL, NULL, 0, l };
	return stir_visit_list(&v, (stir_ptr_vec *)list) ? -1 : 0;
}

int stir_layout_init(stir_layout *l, const stir_kernel *k,
	const stir_bindings *b, bool check_arrays)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	memset(l, 0, sizeof(*l));
	l->kernel = k;
	l->params = calloc((size_t)k->params.n + 1, sizeof(*l->params));
	l->axes = calloc((size_t)k->axes.n + 1, sizeof(*l->axes));
	l->buffer_len = calloc((size_t)k->buffers.n + 1, sizeof(*l->buffer_len));
	if (!l->params || !l->axes || !l->buffer_len) {
		stir_layout_release(l);
		stir_error_oom(ctx);
		return -1;
	}
	if (init_params(l, b) < 0)
		goto fail;
	for (int i = 0; i < k->axes.n; i++)
		if (init_axis(l, stir_axis_at(&k->axes, i)) < 0)
			goto fail;
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *buf = stir_buffer_at(&k->buffers, i);
		if (buf->n_axes == 0 && buf->extent) {
			if (eval_size_in(ctx, k, buf->extent, l->params,
				&l->buffer_len[i], buf->loc, buf->name) < 0)
				goto fail;
			if (l->buffer_len[i] < 0) {
				stir_error(ctx, buf->extent->loc, "extent of buffer "
					"'%s' is negative (%" PRId64 ")", buf->name,
					l->buffer_len[i]);
				goto fail;
			}
		} else {
			l->buffer_len[i] = stir_layout_buffer_len(l, buf);
		}
		if (check_buffer_bytes(ctx, buf, l->buffer_len[i]) < 0)
			goto fail;
		if (check_offset_type(l, buf) < 0)
			goto fail;
	}
	if (check_loop_extents(l, &k->body) < 0)
		goto fail;
	if (!check_arrays)
		return 0;
	if (check_axes(l, b) < 0 || check_coo_arrays(l, b) < 0)
		goto fail;
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *buf = stir_buffer_at(&k->buffers, i);
		if (buf->kind != STIR_BUFFER_LOCAL && check_tensor(l, buf, b) < 0)
			goto fail;
	}
	if (k->stage == STIR_STAGE_3 && check_stage3_structure(l, b) < 0)
		goto fail;
	return 0;
fail:
	stir_layout_release(l);
	return -1;
}

void stir_layout_range(const stir_layout *l, const stir_axis *a, int64_t pp,
	int64_t *lo, int64_t *hi)
{
	const stir_axis_layout *al = &l->axes[a->index];
	switch (a->kind) {
	case STIR_DENSE_FIXED:
		*lo = 0;
		*hi = al->len;
		break;
	case STIR_SPARSE_FIXED:
		*lo = pp * al->nnz;
		*hi = *lo + al->nnz;
		break;
	default:
		*lo = stir_array_get_int(al->indptr, pp);
		*hi = stir_array_get_int(al->indptr, pp + 1);
		break;
	}
}

int64_t stir_layout_coord(const stir_layout *l, const stir_axis *a, int64_t pp,
	int64_t p)
{
	const stir_axis_layout *al = &l->axes[a->index];
	switch (a->kind) {
	case STIR_DENSE_FIXED:
		return p;
	case STIR_DENSE_VARIABLE:
		return p - stir_array_get_int(al->indptr, pp);
	default:
		return stir_array_get_int(al->indices, p);
	}
}

int64_t stir_layout_lookup_stored(const stir_layout *l, const stir_axis *a,
	int64_t pp, int64_t c)
{
	const stir_axis_layout *al = &l->axes[a->index];
	int64_t lo, end;
	stir_layout_range(l, a, pp, &lo, &end);
	if (a->kind == STIR_DENSE_VARIABLE)
		return c >= 0 && c < end - lo ? lo + c : -1;
	if (!a->sorted) {
		for (int64_t q = lo; q < end; q++)
			if (stir_array_get_int(al->indices, q) == c)
				return q;
		return -1;
	}
	int64_t hi = end;
	while (lo < hi) { /* lower bound of c */
		int64_t mid = lo + (hi - lo) / 2;
		if (stir_array_get_int(al->indices, mid) < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < end && stir_array_get_int(al->indices, lo) == c ? lo : -1;
}
