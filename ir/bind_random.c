/* Binding seeded random inputs to a kernel (stir_kernel_bind_random,
 * include/stir/interp.h): the unbound parameters drawn, then every axis's
 * structure and every tensor's values, the same for the same seed. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <stir/formats.h>
#include "ir/coo.h"
#include "ir/layout.h"
#include "ir/visit.h"

/* ---- random inputs ---- */

/* The state of a seeded generator (splitmix64) and of the sizes chosen so
 * far. */
typedef struct random_binder {
	const stir_kernel *k;   /* the kernel being bound */
	stir_bindings *b;       /* receives sizes and arrays */
	stir_ctx *ctx;
	uint64_t state;         /* splitmix64 state */
	int64_t *params;        /* value of each parameter, by index */
	bool *known;            /* whether params[i] is set */
	bool *chosen;           /* whether params[i] was drawn here */
	int64_t *npos;          /* positions of each axis, by index */
} random_binder;

/* r: the next 64 random bits (splitmix64). */
static uint64_t rng_next(random_binder *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* r, lo, hi: a uniform integer in [lo, hi) (hi > lo).  The span may not
 * fit in int64 (a value domain as wide as i64), so the arithmetic is
 * unsigned; the result is in range and converts back exactly. */
static int64_t rng_range(random_binder *r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo;
	return (int64_t)((uint64_t)lo + rng_next(r) % span);
}

/* r, hi: a uniform integer in [0, hi] (hi >= 0; hi + 1 may not fit). */
static int64_t rng_upto(random_binder *r, int64_t hi)
{
	return (int64_t)(rng_next(r) % ((uint64_t)hi + 1));
}

/* r: a uniform double in [0, 1). */
static double rng_unit(random_binder *r)
{
	return (double)(rng_next(r) >> 11) * 0x1p-53;
}

/* r, p: the index of parameter p. */
static int param_index(const random_binder *r, const stir_var *p)
{
	for (int i = 0; i < r->k->params.n; i++)
		if (stir_var_at(&r->k->params, i) == p)
			return i;
	return -1;
}

/* r, i, v: set parameter i to v and bind it. */
static int set_param(random_binder *r, int i, int64_t v)
{
	r->params[i] = v;
	r->known[i] = true;
	if (stir_bindings_set_size(r->b, stir_var_at(&r->k->params, i)->name, v)) {
		stir_error_oom(r->ctx);
		return -1;
	}
	return 0;
}

/* slot, user: draw a value for the parameter *slot names, when it is
 * one that has none yet (user: the random_binder); the walk stops when
 * memory runs out. */
static stir_visit_step draw_param(stir_expr **slot, void *user)
{
	random_binder *r = user;
	const stir_expr *e = *slot;
	int i = e->kind == STIR_EXPR_VAR ? param_index(r, e->u.var) : -1;
	if (i < 0 || r->known[i])
		return STIR_VISIT_GO;
	r->chosen[i] = true;
	return set_param(r, i, rng_range(r, 3, 11)) < 0 ? STIR_VISIT_STOP :
		STIR_VISIT_GO;
}

/* r, e: draw a value for every parameter e uses that has none yet, in
 * the order they appear.  0, or -1 when memory ran out. */
static int draw_params(random_binder *r, const stir_expr *e)
{
	stir_visitor v = { NULL, NULL, draw_param, NULL, 0, r };
	stir_expr *slot = (stir_expr *)e;
	return stir_visit_expr(&v, &slot) ? -1 : 0;
}

/* r, e, v: evaluate size e, drawing the parameters it needs. */
static int eval_drawn(random_binder *r, const stir_expr *e, int64_t *v)
{
	if (draw_params(r, e) < 0 ||
	    stir_eval_size(r->ctx, r->k, e, r->params, v) < 0)
		return -1;
	if (*v < 0) {
		stir_error(r->ctx, e->loc, "size is negative (%" PRId64 ")", *v);
		return -1;
	}
	return 0;
}

/* r, name, dtype, len: a new array of "len" elements bound to "name". */
static stir_array *new_array(random_binder *r, const char *name,
	stir_dtype dtype, int64_t len)
{
	stir_array *a = stir_array_alloc(r->ctx, dtype, 1, &len);
	if (a && stir_bindings_set_array(r->b, name, a) < 0) {
		stir_error_oom(r->ctx);
		return NULL;
	}
	return a;
}

/* r, lens, n, len: random row lengths in [0, len] for n rows, with an
 * empty row, a row of one and a full row among them when n allows. */
static void draw_free_lengths(random_binder *r, int64_t *lens, int64_t n,
	int64_t len)
{
	for (int64_t i = 0; i < n; i++) {
		double u = rng_unit(r);
		if (u < 0.2)
			lens[i] = 0;
		else if (u < 0.4)
			lens[i] = len < 1 ? len : 1;
		else if (u < 0.5)
			lens[i] = len;
		else
			lens[i] = rng_upto(r, len);
	}
	/* three distinct rows take the special lengths */
	int64_t special[3] = { len, 0, len < 1 ? len : 1 }, rows[3];
	for (int s = 0; s < 3 && s < n; s++) {
		bool taken;
		do {
			rows[s] = rng_range(r, 0, n);
			taken = false;
			for (int q = 0; q < s; q++)
				taken |= rows[q] == rows[s];
		} while (taken);
		lens[rows[s]] = special[s];
	}
}

/* r, lens, n, len, total: row lengths in [0, len] for n rows summing to
 * total.  -1 when total does not fit (compared without forming n * len,
 * which may overflow). */
static int draw_exact_lengths(random_binder *r, const stir_axis *a,
	int64_t *lens, int64_t n, int64_t len, int64_t total)
{
	if (n == 0 ? total != 0 : len == 0 ? total > 0 :
	    total / len > n || (total / len == n && total % len != 0)) {
		stir_error(r->ctx, a->loc, "cannot place %" PRId64
			" entries of axis '%s' in %" PRId64 " rows of length %" PRId64,
			total, a->name, n, len);
		return -1;
	}
	int64_t *open = malloc((size_t)(n ? n : 1) * sizeof(*open));
	if (!open) {
		stir_error_oom(r->ctx);
		return -1;
	}
	int64_t n_open = 0;
	for (int64_t i = 0; i < n; i++) {
		lens[i] = 0;
		if (len > 0)
			open[n_open++] = i;
	}
	for (int64_t t = 0; t < total; t++) {
		int64_t j = rng_range(r, 0, n_open);
		if (++lens[open[j]] == len)
			open[j] = open[--n_open];
	}
	free(open);
	return 0;
}

/* r, out, base, count, len, sorted: "count" coordinates in [0, len)
 * written to out[base..]: distinct (Floyd's sampling), ascending when
 * sorted, else shuffled.  Only an unsorted axis may have more entries in
 * a row than its length (then len > 0, checked by the caller): its
 * coordinates repeat, each drawn on its own. */
static void draw_columns(random_binder *r, stir_array *out, int64_t base,
	int64_t count, int64_t len, bool sorted)
{
	if (count > len) {
		for (int64_t q = 0; q < count; q++)
			stir_array_set_int(out, base + q, rng_range(r, 0, len));
		return;
	}
	int64_t *pick = malloc((size_t)(count ? count : 1) * sizeof(*pick));
	if (!pick)
		return;
	int64_t n = 0;
	for (int64_t j = len - count; j < len; j++) {
		int64_t t = rng_range(r, 0, j + 1);
		bool seen = false;
		for (int64_t q = 0; q < n && !seen; q++)
			seen = pick[q] == t;
		pick[n++] = seen ? j : t;
	}
	if (sorted) { /* insertion sort: rows are short */
		for (int64_t q = 1; q < n; q++)
			for (int64_t p = q; p > 0 && pick[p - 1] > pick[p]; p--) {
				int64_t t = pick[p];
				pick[p] = pick[p - 1];
				pick[p - 1] = t;
			}
	}
	for (int64_t q = 0; q < n; q++)
		stir_array_set_int(out, base + q, pick[q]);
	free(pick);
}

/* r, a: draw the sizes and structure arrays of axis a that are not bound. */
static int bind_axis(random_binder *r, const stir_axis *a)
{
	const char *name;
	int64_t len, nnz = 0;
	if (eval_drawn(r, a->len, &len) < 0)
		return -1;
	if (a->kind == STIR_DENSE_FIXED) {
		r->npos[a->index] = len;
		return 0;
	}
	int64_t rows = r->npos[a->parent->index];
	if (a->kind == STIR_SPARSE_FIXED) {
		int pi = a->nnz->kind == STIR_EXPR_VAR ? param_index(r, a->nnz->u.var) : -1;
		if (eval_drawn(r, a->nnz, &nnz) < 0)
			return -1;
		if (a->sorted && nnz > len) {
			if (pi < 0 || !r->chosen[pi]) {
				stir_error(r->ctx, a->loc, "axis '%s' needs %" PRId64
					" distinct coordinates per row but has length %"
					PRId64, a->name, nnz, len);
				return -1;
			}
			nnz = len;
			if (set_param(r, pi, nnz) < 0)
				return -1;
		}
		if (nnz > 0 && len == 0 && rows > 0) {
			/* unsorted: repeated coordinates, but there is none */
			stir_error(r->ctx, a->loc, "axis '%s' needs %" PRId64
				" coordinates per row but has length 0", a->name,
				nnz);
			return -1;
		}
		if (__builtin_mul_overflow(rows, nnz, &r->npos[a->index])) {
			stir_error(r->ctx, a->loc, "axis '%s' has too many "
				"positions", a->name);
			return -1;
		}
		if (!(name = stir_axis_indices_name(r->ctx, a)))
			return -1;
		if (stir_bindings_get_array(r->b, name))
			return 0;
		stir_array *ind = new_array(r, name, a->idtype, rows * nnz);
		if (!ind)
			return -1;
		for (int64_t p = 0; p < rows; p++)
			draw_columns(r, ind, p * nnz, nnz, len, a->sorted);
		return 0;
	}
	/* variable kinds: row lengths from indptr if bound, else drawn; the
	 * lengths and indptr need room for rows + 1 entries */
	if ((uint64_t)rows >= SIZE_MAX / sizeof(int64_t) ||
	    rows >= INT64_MAX / (int64_t)sizeof(int64_t)) {
		stir_error(r->ctx, a->loc, "axis '%s' has too many rows (%"
			PRId64 ") to bind", a->name, rows);
		return -1;
	}
	int64_t *lens = malloc((size_t)(rows ? rows : 1) * sizeof(*lens));
	if (!lens) {
		stir_error_oom(r->ctx);
		return -1;
	}
	int rc = -1;
	if (!(name = stir_axis_indptr_name(r->ctx, a)))
		goto out;
	stir_array *indptr = stir_bindings_get_array(r->b, name);
	int pi = a->nnz->kind == STIR_EXPR_VAR ? param_index(r, a->nnz->u.var) : -1;
	if (indptr) {
		if (stir_array_get_len(indptr) != rows + 1) {
			stir_error(r->ctx, stir_loc_none(), "array '%s' has %" PRId64
				" elements, expected %" PRId64, name,
				stir_array_get_len(indptr), rows + 1);
			goto out;
		}
		/* a bound indptr may hold anything: a row whose length
		 * overflows counts as empty here, and the check reports it */
		for (int64_t i = 0; i < rows; i++)
			if (__builtin_sub_overflow(stir_array_get_int(indptr, i + 1),
				stir_array_get_int(indptr, i), &lens[i]))
				lens[i] = -1;
	} else if (pi >= 0 && !r->known[pi]) {
		draw_free_lengths(r, lens, rows, len);
	} else {
		if (eval_drawn(r, a->nnz, &nnz) < 0 ||
		    draw_exact_lengths(r, a, lens, rows, len, nnz) < 0)
			goto out;
	}
	nnz = 0;
	for (int64_t i = 0; i < rows; i++)
		if (lens[i] > 0 && __builtin_add_overflow(nnz, lens[i], &nnz)) {
			stir_error(r->ctx, a->loc, "axis '%s' has too many "
				"positions", a->name);
			goto out;
		}
	if (pi >= 0 && !r->known[pi] && set_param(r, pi, nnz) < 0)
		goto out;
	r->npos[a->index] = nnz;
	if (!indptr) {
		indptr = new_array(r, name, a->idtype, rows + 1);
		if (!indptr)
			goto out;
		for (int64_t i = 0, acc = 0; i < rows; i++) {
			acc += lens[i];
			stir_array_set_int(indptr, i + 1, acc);
		}
	}
	rc = 0;
	if (a->kind == STIR_SPARSE_VARIABLE &&
	    !(name = stir_axis_indices_name(r->ctx, a))) {
		rc = -1;
		goto out;
	}
	if (a->kind == STIR_SPARSE_VARIABLE && !stir_bindings_get_array(r->b, name)) {
		stir_array *ind = new_array(r, name, a->idtype, nnz);
		if (!ind) {
			rc = -1;
			goto out;
		}
		for (int64_t i = 0; i < rows; i++) {
			int64_t lo = stir_array_get_int(indptr, i);
			if (lens[i] < 0 || lens[i] > len || lo < 0 ||
			    lo > nnz - lens[i])
				continue; /* a bad bound indptr: the check reports it */
			draw_columns(r, ind, lo, lens[i], len, a->sorted);
		}
	}
out:
	free(lens);
	return rc;
}

/* t, lo, hi: cut [*lo, *hi) to the values integer type t holds. */
static void clamp_to_type(stir_dtype t, int64_t *lo, int64_t *hi)
{
	int64_t min = t == STIR_I8 ? INT8_MIN : t == STIR_I32 ? INT32_MIN :
		INT64_MIN;
	int64_t max = t == STIR_I8 ? INT8_MAX : t == STIR_I32 ? INT32_MAX :
		INT64_MAX;
	if (*lo < min)
		*lo = min;
	if (max < INT64_MAX && *hi > max + 1)
		*hi = max + 1;
}

/* r, buf, a, lo, hi: fill array a, bound to tensor buf declared distinct,
 * with distinct values of [lo, hi) in a random order: entry i first one
 * value of the i-th of len equal strata of the domain (a permutation
 * when the domain has len values), then the entries shuffled. */
static int draw_distinct(random_binder *r, const stir_buffer *buf,
	stir_array *a, int64_t lo, int64_t hi)
{
	int64_t len = stir_array_get_len(a);
	if (len > hi - lo) {
		stir_error(r->ctx, buf->loc, "cannot draw %" PRId64 " distinct "
			"values for '%s' from its domain of %" PRId64, len, buf->name,
			hi - lo);
		return -1;
	}
	int64_t w = len ? (hi - lo) / len : 1;
	for (int64_t i = 0; i < len; i++)
		stir_array_set_int(a, i, lo + i * w + rng_range(r, 0, w));
	for (int64_t i = 0; i + 1 < len; i++) {
		int64_t j = rng_range(r, i, len), t = stir_array_get_int(a, i);
		stir_array_set_int(a, i, stir_array_get_int(a, j));
		stir_array_set_int(a, j, t);
	}
	return 0;
}

/* r, buf, len: bind random values to tensor buf of "len" elements:
 * integers in [-8, 8) or in its value domain (whose bounds, unlike sizes,
 * may be negative), within what the type holds. */
static int bind_tensor(random_binder *r, const stir_buffer *buf, int64_t len)
{
	int64_t lo = -8, hi = 8;
	if (buf->domain_lo &&
	    (stir_eval_size(r->ctx, r->k, buf->domain_lo, r->params, &lo) < 0 ||
	     stir_eval_size(r->ctx, r->k, buf->domain_hi, r->params, &hi) < 0))
		return -1;
	if (stir_dtype_is_int(buf->dtype))
		clamp_to_type(buf->dtype, &lo, &hi);
	if (stir_dtype_is_int(buf->dtype) && hi <= lo && len > 0) {
		stir_error(r->ctx, buf->loc, "the domain of '%s' holds no value "
			"of type %s", buf->name, stir_dtype_get_name(buf->dtype));
		return -1;
	}
	stir_array *a = new_array(r, stir_buffer_get_array_name(buf), buf->dtype,
		len);
	if (!a)
		return -1;
	if (buf->distinct)
		return draw_distinct(r, buf, a, lo, hi);
	for (int64_t i = 0; i < len; i++) {
		if (stir_dtype_is_float(buf->dtype))
			stir_array_set_double(a, i, 2.0 * rng_unit(r) - 1.0);
		else
			stir_array_set_int(a, i, rng_range(r, lo, hi));
	}
	return 0;
}

/* r: bind every tensor that is not bound yet (all sizes are known). */
static int bind_tensors(random_binder *r)
{
	stir_layout l;
	if (stir_layout_init(&l, r->k, r->b, false) < 0)
		return -1;
	int rc = 0;
	for (int i = 0; i < r->k->buffers.n && rc == 0; i++) {
		const stir_buffer *buf = stir_buffer_at(&r->k->buffers, i);
		const char *name = stir_buffer_get_array_name(buf);
		if (!name || stir_bindings_get_array(r->b, name))
			continue;
		if (buf->kind == STIR_BUFFER_TENSOR) {
			rc = bind_tensor(r, buf, l.buffer_len[i]);
		} else if (!buf->aux_axis) {
			stir_error(r->ctx, buf->loc, "cannot draw random structure for "
				"'%s': a stage III kernel has no axes to draw it from "
				"(bind it, or draw inputs for the stage I program)", name);
			rc = -1;
		}
	}
	stir_layout_release(&l);
	return rc;
}

/* k, b: check the sizes bound in b (every parameter is) before anything
 * is drawn: a size too large for its type is refused before its arrays
 * are allocated.  0 or -1 with diagnostics. */
static int sizes_fit(const stir_kernel *k, const stir_bindings *b)
{
	stir_layout l;
	if (stir_layout_init(&l, k, b, false) < 0)
		return -1;
	stir_layout_release(&l);
	return 0;
}

/* r, n_axes: for each tensor declared distinct whose axes are among the
 * first n_axes (drawn), and whose domain [lo, hi) has for hi a parameter
 * not yet known: hi drawn as lo + the tensor's length, so that its values
 * can be distinct (a permutation of the domain). */
static int size_distinct_domains(random_binder *r, int n_axes)
{
	for (int i = 0; i < r->k->buffers.n; i++) {
		const stir_buffer *buf = stir_buffer_at(&r->k->buffers, i);
		const stir_expr *hi = buf->domain_hi;
		int pi = hi && hi->kind == STIR_EXPR_VAR ? param_index(r,
			hi->u.var) : -1;
		if (!buf->distinct || buf->kind != STIR_BUFFER_TENSOR || pi < 0 ||
		    r->known[pi])
			continue;
		int64_t len = 1, lo;
		bool drawn = true;
		for (int a = 0; a < buf->n_axes; a++) {
			bool parent = false;
			for (int c = 0; c < buf->n_axes; c++)
				parent |= buf->axes[c]->parent == buf->axes[a];
			drawn &= buf->axes[a]->index < n_axes;
			if (drawn && !parent && __builtin_mul_overflow(len,
			    r->npos[buf->axes[a]->index], &len))
				drawn = false;
		}
		if (!drawn)
			continue;
		if (eval_drawn(r, buf->domain_lo, &lo) < 0 ||
		    set_param(r, pi, lo + len) < 0)
			return -1;
	}
	return 0;
}

int stir_kernel_bind_random(const stir_kernel *k, stir_bindings *b,
	uint64_t seed)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	size_t np = (size_t)k->params.n + 1, na = (size_t)k->axes.n + 1;
	random_binder r = {
		.k = k, .b = b, .ctx = ctx, .state = seed,
		.params = calloc(np, sizeof(int64_t)),
		.known = calloc(np, sizeof(bool)),
		.chosen = calloc(np, sizeof(bool)),
		.npos = calloc(na, sizeof(int64_t)),
	};
	int rc = -1;
	if (!r.params || !r.known || !r.chosen || !r.npos) {
		stir_error_oom(ctx);
		goto out;
	}
	bool all_known = true;
	for (int i = 0; i < k->params.n; i++)
		all_known &= r.known[i] = stir_bindings_get_size(b,
			stir_var_at(&k->params, i)->name, &r.params[i]);
	if (all_known && sizes_fit(k, b) < 0)
		goto out;
	for (int i = 0; i < k->axes.n; i++)
		if (size_distinct_domains(&r, i) < 0 ||
		    bind_axis(&r, stir_axis_at(&k->axes, i)) < 0)
			goto out;
	if (size_distinct_domains(&r, k->axes.n) < 0)
		goto out;
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *buf = stir_buffer_at(&k->buffers, i);
		if (buf->domain_lo && (draw_params(&r, buf->domain_lo) < 0 ||
			draw_params(&r, buf->domain_hi) < 0))
			goto out;
	}
	for (int i = 0; i < k->params.n; i++)
		if (!r.known[i] && set_param(&r, i, rng_range(&r, 3, 11)) < 0)
			goto out;
	rc = bind_tensors(&r);
	if (rc == 0 && stir_kernel_coo_pairs(k, 0, NULL, NULL) > 0)
		rc = stir_kernel_bind_coo(k, b);
out:
	free(r.params);
	free(r.known);
	free(r.chosen);
	free(r.npos);
	return rc;
}
