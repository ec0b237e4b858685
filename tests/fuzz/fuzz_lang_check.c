/* The read -> print -> read -> bind -> interpret property of one input;
 * see fuzz_lang_check.h.
 *
 * Sizes are what keeps one input fast: every parameter of a kernel is
 * bound to a small value derived from the input before the random binder
 * runs (but on one input in two, the NNZ parameters that the binder may
 * choose itself within a known bound: see free_nnz_axis), the array
 * lengths those values imply are checked against a budget
 * (size literals can be anything), and the interpreter only runs when an
 * estimate of its work, taken from the bound structure arrays, fits a
 * budget too (iterations can nest hundreds of levels deep).  When a budget
 * is exceeded, smaller sizes are tried; when even zeros exceed it, the
 * kernel is only read and printed.  The estimates walk the IR, so this
 * file reads the internal node structures (ir/nodes.h, ir/layout.h). */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>
#include "ir/layout.h"
#include "tests/fuzz/fuzz_lang_check.h"

/* Positions any one axis may have. */
#define MAX_AXIS_POSITIONS 256
/* Elements of all the arrays of a kernel together: structure arrays,
 * tensors and locals. */
#define MAX_ARRAY_ELEMENTS 4096.0
/* Expression nodes the interpreter may evaluate for one kernel. */
#define MAX_WORK 200000.0

/* The largest parameter value of each attempt, tried in order until the
 * arrays and the work fit their budgets. */
static const int size_caps[] = { 6, 2, 0 };

/* The state of checking one input. */
typedef struct check {
	char *why;             /* borrowed: receives the first failure */
	size_t why_size;
	bool failed;           /* a failure was recorded */
	uint64_t seed;         /* drawn from the input: sizes and data */
	/* the module lowered to stage II and to stage III (each read from
	 * the printed text, in its own context), or NULL */
	stir_module *lowered[2];
} check;

/* c, fmt: record a failure (the first one only) and return -1. */
static int fail(check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(check *c, const char *fmt, ...)
{
	if (!c->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->why, c->why_size, fmt, ap);
		va_end(ap);
		c->failed = true;
	}
	return -1;
}

/* c, ctx, what: record the failure "what", followed by the diagnostics of
 * ctx, and return -1. */
static int fail_diags(check *c, const stir_ctx *ctx, const char *what)
{
	char *d = stir_ctx_diagnostics_to_str(ctx);
	fail(c, "%s\n%s", what, d ? d : "(diagnostics could not be formatted)");
	free(d);
	return -1;
}

/* fmt: with FUZZ_LANG_TRACE set in the environment, say on stderr what
 * the check does with each kernel (to see whether an input reaches the
 * binder and the interpreter). */
static void trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void trace(const char *fmt, ...)
{
	if (!getenv("FUZZ_LANG_TRACE"))
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* data, len: FNV-1a over the input: the seed of everything random. */
static uint64_t hash_input(const uint8_t *data, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h;
}

/* state: the next 64 bits of a splitmix64 sequence. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ---- sizes before binding ---- */

/* e, p: how many times parameter p appears in the size expression e. */
static int param_uses(const stir_expr *e, const stir_var *p)
{
	if (!e)
		return 0;
	switch (e->kind) {
	case STIR_EXPR_VAR:
		return e->u.var == p;
	case STIR_EXPR_UNARY:
		return param_uses(e->u.unary.a, p);
	case STIR_EXPR_CAST:
		return param_uses(e->u.cast.a, p);
	case STIR_EXPR_BINARY:
		return param_uses(e->u.binary.a, p) + param_uses(e->u.binary.b, p);
	case STIR_EXPR_CALL: {
		int n = 0;
		for (int i = 0; i < e->u.call.n; i++)
			n += param_uses(e->u.call.args[i], p);
		return n;
	}
	default:
		return 0;
	}
}

/* k, p: the variable axis whose NNZ is exactly parameter p when p appears
 * in no other size or domain bound of k, else NULL.  The binder chooses
 * such a parameter itself when it is not bound (from row lengths it
 * draws, empty and full rows among them), and NNZ is at most the axis's
 * rows times its length, so the arrays stay within a bound known
 * beforehand. */
static const stir_axis *free_nnz_axis(const stir_kernel *k, const stir_var *p)
{
	const stir_axis *found = NULL;
	int uses = 0;
	for (int i = 0; i < k->axes.n; i++) {
		const stir_axis *a = stir_axis_at(&k->axes, i);
		uses += param_uses(a->len, p) + param_uses(a->nnz, p);
		if ((a->kind == STIR_DENSE_VARIABLE ||
		     a->kind == STIR_SPARSE_VARIABLE) &&
		    a->nnz->kind == STIR_EXPR_VAR && a->nnz->u.var == p)
			found = a;
	}
	for (int i = 0; i < k->buffers.n; i++) {
		const stir_buffer *buf = stir_buffer_at(&k->buffers, i);
		uses += param_uses(buf->domain_lo, p) + param_uses(buf->domain_hi, p);
	}
	return uses == 1 ? found : NULL;
}

/* k, p: the index of parameter p of k. */
static int param_index(const stir_kernel *k, const stir_var *p)
{
	for (int i = 0; i < k->params.n; i++)
		if (stir_var_at(&k->params, i) == p)
			return i;
	return k->params.n; /* the spare entry, never bound */
}

/* What the sizes of a kernel under its bound parameters allow. */
typedef enum sizes_verdict {
	SIZES_SMALL,           /* every array fits the budget */
	SIZES_BIG,             /* some array would not: do not bind */
	SIZES_INVALID,         /* an axis size cannot be evaluated or is
	                          negative; every axis before it is small, and
	                          the binder must stop there with an error */
} sizes_verdict;

/* k, b, ext: whether binding k with the sizes in b keeps its arrays small.
 * ext (NULL, or room for one entry per axis) receives, for a small
 * verdict, a bound of the positions each axis has under one parent
 * position (a variable axis: its NNZ).
 * Every parameter is bound but perhaps some that free_nnz_axis allows;
 * such a free NNZ counts as its largest value, rows times length.
 * Follows the binder: axes in order, each evaluated from the parameters;
 * then the tensors and locals. */
static sizes_verdict check_sizes(const stir_kernel *k, const stir_bindings *b,
	double *ext)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	int64_t *params = calloc((size_t)k->params.n + 1, sizeof(*params));
	bool *bound = calloc((size_t)k->params.n + 1, sizeof(*bound));
	double *npos = calloc((size_t)k->axes.n + 1, sizeof(*npos));
	sizes_verdict v = SIZES_BIG;
	if (!params || !bound || !npos)
		goto out;
	for (int i = 0; i < k->params.n; i++)
		bound[i] = stir_bindings_get_size(b,
			stir_var_at(&k->params, i)->name, &params[i]);
	double total = 0;
	v = SIZES_SMALL;
	for (int i = 0; i < k->axes.n && v == SIZES_SMALL; i++) {
		const stir_axis *a = stir_axis_at(&k->axes, i);
		double rows = a->parent ? npos[a->parent->index] : 1;
		int64_t len, nnz = 0;
		if (stir_eval_size(ctx, k, a->len, params, &len) < 0 || len < 0) {
			v = SIZES_INVALID;
			break;
		}
		if (a->nnz && a->nnz->kind == STIR_EXPR_VAR &&
		    a->nnz->u.var->kind == STIR_VAR_PARAM &&
		    !bound[param_index(k, a->nnz->u.var)]) {
			nnz = rows * (double)len > MAX_AXIS_POSITIONS ?
				MAX_AXIS_POSITIONS + 1 : (int64_t)rows * len;
		} else if (a->nnz &&
		    (stir_eval_size(ctx, k, a->nnz, params, &nnz) < 0 || nnz < 0)) {
			v = SIZES_INVALID;
			break;
		}
		switch (a->kind) {
		case STIR_DENSE_FIXED: npos[i] = (double)len; break;
		case STIR_SPARSE_FIXED: npos[i] = rows * (double)nnz; break;
		default: npos[i] = (double)nnz; break;
		}
		if (ext)
			ext[i] = a->kind == STIR_DENSE_FIXED ? (double)len :
				a->kind == STIR_SPARSE_FIXED ? (double)nnz : npos[i];
		total += npos[i] + rows + 1;
		if (npos[i] > MAX_AXIS_POSITIONS || total > MAX_ARRAY_ELEMENTS)
			v = SIZES_BIG;
	}
	for (int i = 0; i < k->buffers.n && v == SIZES_SMALL; i++) {
		const stir_buffer *buf = stir_buffer_at(&k->buffers, i);
		double n = 1;
		for (int j = 0; j < buf->n_axes; j++)
			if (stir_buffer_axis_ends_chain(buf, j))
				n *= npos[buf->axes[j]->index];
		total += n;
		if (total > MAX_ARRAY_ELEMENTS)
			v = SIZES_BIG;
	}
out:
	free(params);
	free(bound);
	free(npos);
	return v;
}

/* ---- work of the interpreter after binding ---- */

/* l, a: the most positions axis a has under one parent position. */
static double axis_extent(const stir_layout *l, const stir_axis *a)
{
	const stir_axis_layout *al = &l->axes[a->index];
	switch (a->kind) {
	case STIR_DENSE_FIXED:
		return (double)al->len;
	case STIR_SPARSE_FIXED:
		return (double)al->nnz;
	default: {
		int64_t rows = l->axes[a->parent->index].npos, most = 0;
		for (int64_t p = 0; p < rows; p++) {
			int64_t n = stir_array_get_int(al->indptr, p + 1) -
				stir_array_get_int(al->indptr, p);
			if (n > most)
				most = n;
		}
		return (double)most;
	}
	}
}

static double expr_work(const double *ext, const stir_expr *e);

/* ext, buf, n, idx: the work of one access buf[idx..]: its indices, and a
 * search through a row of every sparse axis (a scan when unsorted). */
static double access_work(const double *ext, const stir_buffer *buf,
	int n, stir_expr *const *idx)
{
	double w = 1;
	for (int i = 0; i < n; i++) {
		w += expr_work(ext, idx[i]);
		if (i < buf->n_axes && buf->axes[i]->kind >= STIR_SPARSE_FIXED)
			w += buf->axes[i]->sorted ? 64 :
				ext[buf->axes[i]->index];
	}
	return w;
}

/* ext, e: the nodes of e, counting an access as access_work says. */
static double expr_work(const double *ext, const stir_expr *e)
{
	double w = 1;
	switch (e->kind) {
	case STIR_EXPR_LOAD:
		return access_work(ext, e->u.load.buf, e->u.load.n, e->u.load.idx);
	case STIR_EXPR_UNARY:
		return w + expr_work(ext, e->u.unary.a);
	case STIR_EXPR_BINARY:
		return w + expr_work(ext, e->u.binary.a) +
			expr_work(ext, e->u.binary.b);
	case STIR_EXPR_SELECT:
		return w + expr_work(ext, e->u.select.c) +
			expr_work(ext, e->u.select.a) + expr_work(ext, e->u.select.b);
	case STIR_EXPR_CALL:
		for (int i = 0; i < e->u.call.n; i++)
			w += expr_work(ext, e->u.call.args[i]);
		return w;
	case STIR_EXPR_CAST:
		return w + expr_work(ext, e->u.cast.a);
	default:
		return w;
	}
}

static double list_work(const double *ext, const stir_ptr_vec *list);

/* ext, s: an upper bound of the work of running statement s once: an
 * iteration runs its init and body at most once per point of the product
 * of its members' extents. */
static double stmt_work(const double *ext, const stir_stmt *s)
{
	switch (s->kind) {
	case STIR_STMT_STORE:
		return access_work(ext, s->u.store.buf, s->u.store.n,
			s->u.store.idx) + expr_work(ext, s->u.store.value);
	case STIR_STMT_LET:
		return 1 + expr_work(ext, s->u.let.value);
	case STIR_STMT_IF:
		return expr_work(ext, s->u.if_.cond) +
			list_work(ext, &s->u.if_.then_body) +
			list_work(ext, &s->u.if_.else_body);
	case STIR_STMT_ITER: {
		double points = 1;
		for (int g = 0; g < s->u.iter.n_groups; g++)
			for (int i = 0; i < s->u.iter.groups[g].n_axes; i++)
				points *= ext[s->u.iter.groups[g].axes[i]->index];
		return 1 + points * (2 + list_work(ext, &s->u.iter.init) +
			list_work(ext, &s->u.iter.body));
	}
	default:          /* loops and blocks: stage I kernels have none */
		return 1;
	}
}

/* ext, list: the work of running the statements of list once. */
static double list_work(const double *ext, const stir_ptr_vec *list)
{
	double w = 0;
	for (int i = 0; i < list->n; i++)
		w += stmt_work(ext, stir_stmt_at(list, i));
	return w;
}

/* k, b: the work of interpreting k on the (checked) bindings b, or -1
 * when the layout cannot be built. */
static double kernel_work(const stir_kernel *k, const stir_bindings *b)
{
	stir_layout l;
	double *ext = calloc((size_t)k->axes.n + 1, sizeof(*ext));
	if (!ext || stir_layout_init(&l, k, b, true) < 0) {
		free(ext);
		return -1;
	}
	for (int i = 0; i < k->axes.n; i++)
		ext[i] = axis_extent(&l, stir_axis_at(&k->axes, i));
	double w = list_work(ext, &k->body);
	stir_layout_release(&l);
	free(ext);
	return w;
}

/* ---- binding and running one kernel ---- */

/* c, k, b: the bindings the binder made for k must have the shapes that
 * stir_kernel_get_array_shape gives for every array stir_kernel_get_array_names
 * lists. */
static int check_shapes(check *c, const stir_kernel *k, const stir_bindings *b)
{
	int n = stir_kernel_get_array_names(k, 0, NULL);
	const char **names = calloc((size_t)n + 1, sizeof(*names));
	if (!names)
		return fail(c, "out of memory in the harness");
	if (stir_kernel_get_array_names(k, n, names) != n) {
		free(names);
		return fail(c, "kernel '%s': array count changed", k->name);
	}
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		int ndim = 0;
		int64_t shape[STIR_MAX_DIMS], elems = 1;
		if (stir_kernel_get_array_shape(k, b, names[i], &ndim, shape) < 0) {
			rc = fail_diags(c, stir_kernel_ctx(k), "no shape for an array");
			break;
		}
		for (int d = 0; d < ndim; d++)
			elems *= shape[d];
		const stir_array *a = stir_bindings_get_array(b, names[i]);
		if (!a || stir_array_get_len(a) != elems)
			rc = fail(c, "kernel '%s': array '%s' is not bound with "
				"%lld elements", k->name, names[i], (long long)elems);
	}
	free(names);
	return rc;
}

/* a, b: whether two sets of bindings hold the same sizes and the same
 * arrays, bit for bit (NaNs included), in the same order. */
static bool bindings_equal(const stir_bindings *a, const stir_bindings *b)
{
	if (stir_bindings_n_sizes(a) != stir_bindings_n_sizes(b) ||
	    stir_bindings_n_arrays(a) != stir_bindings_n_arrays(b))
		return false;
	for (int i = 0; i < stir_bindings_n_sizes(a); i++) {
		const char *name = stir_bindings_get_size_name(a, i);
		int64_t x, y;
		if (strcmp(name, stir_bindings_get_size_name(b, i)) ||
		    !stir_bindings_get_size(a, name, &x) ||
		    !stir_bindings_get_size(b, name, &y) || x != y)
			return false;
	}
	for (int i = 0; i < stir_bindings_n_arrays(a); i++) {
		const char *name = stir_bindings_get_array_name(a, i);
		const stir_array *x = stir_bindings_get_array(a, name);
		const stir_array *y = stir_bindings_get_array(b, name);
		if (strcmp(name, stir_bindings_get_array_name(b, i)) || !y ||
		    stir_array_get_dtype(x) != stir_array_get_dtype(y) ||
		    stir_array_get_len(x) != stir_array_get_len(y) ||
		    memcmp(stir_array_get_const_data(x),
			stir_array_get_const_data(y),
			(size_t)stir_array_get_len(x) *
			stir_dtype_get_size(stir_array_get_dtype(x))))
			return false;
	}
	return true;
}

/* c, k, got, want, what: every tensor of k must be the same in "got" (a
 * lowered kernel's run) and "want" (stage I's) within its type's
 * tolerance, NaNs in the same places; compared as `stirc verify` does. */
static int compare_tensors(check *c, const stir_kernel *k,
	const stir_bindings *got, const stir_bindings *want, const char *what)
{
	for (int i = 0; i < stir_kernel_n_buffers(k); i++) {
		stir_buffer *buf = stir_kernel_get_buffer(k, i);
		if (stir_buffer_get_kind(buf) != STIR_BUFFER_TENSOR)
			continue;
		const char *name = stir_buffer_get_array_name(buf);
		const stir_array *a = stir_bindings_get_array(got, name);
		const stir_array *r = stir_bindings_get_array(want, name);
		if (!a || !r || stir_array_get_len(a) != stir_array_get_len(r))
			return fail(c, "kernel '%s': %s has no array '%s' of stage "
				"I's length", k->name, what, name);
		int64_t j;
		if (stir_array_compare(a, r, &j, NULL) > 0)
			return fail(c, "kernel '%s': %s gives %s[%lld] = %.9g, "
				"stage I %.9g", k->name, what, name, (long long)j,
				stir_array_get_double(a, j), stir_array_get_double(r, j));
	}
	return 0;
}

/* c, k, in, want: run the lowered forms of k (stages II and III, where
 * lowering worked) on copies of the inputs "in" and compare their tensors
 * with "want", stage I's results. */
static int run_lowered(check *c, const stir_kernel *k, const stir_bindings *in,
	const stir_bindings *want)
{
	static const char *const what[] = { "stage II", "stage III" };
	for (int s = 0; s < 2; s++) {
		if (!c->lowered[s])
			continue;
		stir_kernel *kl = stir_module_find_kernel(c->lowered[s], k->name);
		if (!kl)
			return fail(c, "kernel '%s' is missing at %s", k->name,
				what[s]);
		stir_bindings *got = stir_bindings_copy(in);
		if (!got)
			return fail(c, "out of memory in the harness");
		int rc = 0;
		if (stir_kernel_interpret(kl, got) < 0) {
			char msg[256];
			snprintf(msg, sizeof(msg), "kernel '%s': the %s interpreter "
				"fails where stage I's works", k->name, what[s]);
			rc = fail_diags(c, stir_kernel_ctx(kl), msg);
		} else {
			rc = compare_tensors(c, k, got, want, what[s]);
		}
		trace("kernel '%s': %s: %s\n", k->name, what[s],
			rc < 0 ? "differs" : "same");
		stir_bindings_free(got);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* c, ctx, k, b, again: bind_and_run on b, and the same on "again" (a copy
 * of b before binding) to compare. */
static int bind_and_run_twice(check *c, stir_ctx *ctx, const stir_kernel *k,
	stir_bindings *b, stir_bindings *again)
{
	int errors = stir_ctx_n_errors(ctx);
	int bound = stir_kernel_bind_random(k, b, c->seed);
	if ((stir_kernel_bind_random(k, again, c->seed) < 0) != (bound < 0))
		return fail(c, "kernel '%s': random binding with one seed "
			"fails once and works once", k->name);
	if (bound < 0) {
		trace("kernel '%s': binding fails\n", k->name);
		if (stir_ctx_n_errors(ctx) <= errors)
			return fail(c, "kernel '%s': random binding failed without "
				"an error", k->name);
		return 0;
	}
	if (!bindings_equal(b, again))
		return fail(c, "kernel '%s': random binding with one seed gives "
			"two different bindings", k->name);
	if (stir_kernel_verify_bindings(k, b) < 0)
		return fail_diags(c, ctx, "random bindings do not pass the check");
	if (check_shapes(c, k, b) < 0)
		return -1;
	double work = kernel_work(k, b);
	if (work < 0)
		return fail_diags(c, ctx, "no layout for checked bindings");
	if (work > MAX_WORK) {
		trace("kernel '%s': bound, work %g too large\n", k->name, work);
		return 1;
	}
	stir_bindings *in = stir_bindings_copy(b);
	if (!in)
		return fail(c, "out of memory in the harness");
	errors = stir_ctx_n_errors(ctx);
	int rc = stir_kernel_interpret(k, b);
	trace("kernel '%s': bound, work %g, interpreted: %s\n", k->name, work,
		rc < 0 ? "error" : "ok");
	int r = 0;
	if (rc < 0 && stir_ctx_n_errors(ctx) <= errors)
		r = fail(c, "kernel '%s': interpretation failed without an "
			"error", k->name);
	else if ((stir_kernel_interpret(k, again) < 0) != (rc < 0) ||
	    !bindings_equal(b, again))
		r = fail(c, "kernel '%s': interpreting the same inputs twice "
			"gives two different results", k->name);
	else if (rc == 0)
		r = run_lowered(c, k, in, b);
	stir_bindings_free(in);
	return r;
}

/* c, k, b: bind k's remaining arrays at random and, when that works and
 * the work is small, interpret it.  Both are done twice, on b and on a
 * copy of b as it was, and must give the same results: the binder is
 * deterministic for a seed, the interpreter for its inputs (a difference
 * would betray a read of uninitialized memory).  Returns 1 when the work
 * was too large (the caller tries smaller sizes), 0 when done, -1 on a
 * failure. */
static int bind_and_run(check *c, const stir_kernel *k, stir_bindings *b)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	stir_bindings *again = stir_bindings_copy(b);
	if (!again)
		return fail(c, "out of memory in the harness");
	int rc = bind_and_run_twice(c, ctx, k, b, again);
	stir_bindings_free(again);
	return rc;
}

/* c, k, ki: bind and run kernel k (the ki-th of its module) with the
 * largest sizes in size_caps that keep the work small.  Every parameter
 * is bound to a value drawn from the input, except, on one input in two,
 * the NNZ parameters that the binder may choose itself (free_nnz_axis):
 * bound, they seldom fit the rows and lengths drawn for the others, and
 * the binder then gives up before the interpreter has run. */
static int run_kernel(check *c, const stir_kernel *k, int ki)
{
	for (size_t r = 0; r < sizeof(size_caps) / sizeof(size_caps[0]); r++) {
		stir_bindings *b = stir_bindings_alloc();
		if (!b)
			return fail(c, "out of memory in the harness");
		uint64_t state = c->seed ^ (uint64_t)ki * 0x9e3779b97f4a7c15ull;
		bool leave_nnz = next_random(&state) & 1;
		int n_free = 0;
		for (int i = 0; i < k->params.n; i++) {
			const stir_var *p = stir_var_at(&k->params, i);
			int64_t v = (int64_t)(next_random(&state) %
				(uint64_t)(size_caps[r] + 1));
			if (leave_nnz && free_nnz_axis(k, p)) {
				n_free++;
				continue;
			}
			if (stir_bindings_set_size(b, p->name, v) < 0) {
				stir_bindings_free(b);
				return fail(c, "out of memory in the harness");
			}
		}
		int rc = 1;
		sizes_verdict v = check_sizes(k, b, NULL);
		trace("kernel '%s': sizes up to %d, %d NNZ free: %s\n", k->name,
			size_caps[r], n_free, v == SIZES_SMALL ? "small" :
			v == SIZES_BIG ? "too large" : "invalid");
		if (v != SIZES_BIG)
			rc = bind_and_run(c, k, b);
		stir_bindings_free(b);
		if (rc <= 0)
			return rc;
	}
	return 0;
}

bool fuzz_kernel_is_small(const stir_kernel *k, const stir_bindings *b)
{
	if (k->stage != STIR_STAGE_1)
		return false;
	double *ext = calloc((size_t)k->axes.n + 1, sizeof(*ext));
	if (!ext)
		return false;
	sizes_verdict v = check_sizes(k, b, ext);
	bool small = v == SIZES_INVALID ||
		(v == SIZES_SMALL && list_work(ext, &k->body) <= MAX_WORK);
	free(ext);
	return small;
}

/* ---- the round trip ---- */

/* c, m, text: the printed text of m must read back as an equal module
 * that prints as the same text. */
static int check_round_trip(check *c, const stir_module *m, const char *text)
{
	stir_ctx *ctx = stir_ctx_alloc();
	if (!ctx)
		return fail(c, "out of memory in the harness");
	stir_module *m2 = stir_module_read_from_mem(ctx, "printed.stir", text,
		strlen(text));
	int rc = 0;
	char *text2 = NULL;
	if (!m2) {
		rc = fail_diags(c, ctx, "the printed module does not read back");
	} else if (!stir_module_is_equal(m, m2)) {
		rc = fail(c, "the printed module reads back as a different "
			"module:\n%s", text);
	} else if (!(text2 = stir_module_to_str(m2))) {
		rc = fail(c, "the module read back does not print");
	} else if (strcmp(text, text2)) {
		rc = fail(c, "printing again gives other text:\n%s\n----\n%s",
			text, text2);
	}
	free(text2);
	stir_module_free(m2);
	stir_ctx_free(ctx);
	return rc;
}

/* ---- lowering and CUDA ---- */

static void check_diagnostics(check *c, const stir_ctx *ctx);

/* ctx: whether every error in ctx is the verifier's refusal of
 * statements nested deeper than STIR_MAX_BLOCK_DEPTH. */
static bool only_too_deep(const stir_ctx *ctx)
{
	int errors = 0;
	for (int i = 0; i < stir_ctx_n_diagnostics(ctx); i++) {
		const stir_diag *d = stir_ctx_get_diagnostic(ctx, i);
		if (stir_diag_get_severity(d) != STIR_ERROR)
			continue;
		errors++;
		if (strncmp(stir_diag_get_message(d), "statements nested too "
		    "deeply", 27))
			return false;
	}
	return errors > 0;
}

/* c, text, stage: read text (a module that reads) in a new context and
 * lower it to "stage" (2 or 3; kernels already there stay).  A verified
 * program must lower, unless lowering would nest it too deeply.  The lowered module prints, reads back and prints
 * again as the same text (check_round_trip).  Returns the module (its
 * context in *ctx_out), or NULL after a failure. */
static stir_module *lower_module(check *c, const char *text, int stage,
	stir_ctx **ctx_out)
{
	stir_ctx *ctx = stir_ctx_alloc();
	*ctx_out = ctx;
	if (!ctx) {
		fail(c, "out of memory in the harness");
		return NULL;
	}
	stir_module *m = stir_module_read_from_mem(ctx, "printed.stir", text,
		strlen(text));
	if (!m) {
		fail_diags(c, ctx, "the printed module does not read back");
		return NULL;
	}
	char what[64];
	snprintf(what, sizeof(what), "a verified program does not lower to "
		"stage %s", stage == 2 ? "II" : "III");
	/* the pipeline stirc print --stage N runs */
	stir_pipeline *p = stir_pipeline_alloc_to_stage((stir_stage)stage);
	int lowered_rc = p ? stir_pipeline_run_module(p, m) : -1;
	stir_pipeline_free(p);
	if (lowered_rc < 0) {
		/* the one refusal allowed: lowering would nest the kernel's
		 * text deeper than any text may be (the verifier's bound) */
		if (!only_too_deep(ctx))
			fail_diags(c, ctx, what);
		stir_module_free(m);
		return NULL;
	}
	char *lowered = stir_module_to_str(m);
	if (!lowered) {
		fail_diags(c, ctx, "the lowered module does not print");
		stir_module_free(m);
		return NULL;
	}
	int rc = check_round_trip(c, m, lowered);
	free(lowered);
	if (rc < 0) {
		stir_module_free(m);
		return NULL;
	}
	return m;
}

/* c, text: every kernel of the module printed as text, brought to stage
 * III for the GPU (stir_kernel_prepare_for_gpu: the default schedule for
 * every nest), must emit CUDA C or refuse with an error. */
static int check_cuda(check *c, const char *text)
{
	stir_ctx *ctx = stir_ctx_alloc();
	if (!ctx)
		return fail(c, "out of memory in the harness");
	stir_module *m = stir_module_read_from_mem(ctx, "printed.stir", text,
		strlen(text));
	int rc = 0;
	if (!m)
		rc = fail_diags(c, ctx, "the printed module does not read back");
	for (int i = 0; m && rc == 0 && i < stir_module_n_kernels(m); i++) {
		stir_kernel *k = stir_module_get_kernel(m, i);
		int errors = stir_ctx_n_errors(ctx);
		char *cuda = NULL;
		if (stir_kernel_prepare_for_gpu(k) == 0)
			cuda = stir_kernel_to_cuda(k);
		if (!cuda && stir_ctx_n_errors(ctx) <= errors)
			rc = fail(c, "kernel '%s': no CUDA C and no error",
				k->name);
		trace("kernel '%s': CUDA: %s\n", k->name,
			cuda ? "emitted" : "refused");
		free(cuda);
	}
	if (rc == 0)
		check_diagnostics(c, ctx);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}

/* c, ctx: the diagnostics of ctx, with their source lines, must format,
 * and the text must hold every message (a source line must not cut it
 * short). */
static void check_diagnostics(check *c, const stir_ctx *ctx)
{
	char *text = stir_ctx_diagnostics_to_str(ctx);
	if (!text) {
		fail(c, "the diagnostics do not format");
		return;
	}
	for (int i = 0; i < stir_ctx_n_diagnostics(ctx); i++) {
		const char *msg = stir_diag_get_message(
			stir_ctx_get_diagnostic(ctx, i));
		if (!strstr(text, msg)) {
			fail(c, "diagnostic %d ('%s') is missing from the "
				"formatted diagnostics:\n%s", i, msg, text);
			break;
		}
	}
	free(text);
}

int fuzz_lang_check(const uint8_t *data, size_t len, char *why,
	size_t why_size)
{
	return fuzz_lang_check_flags(data, len, 0, why, why_size);
}

int fuzz_lang_check_flags(const uint8_t *data, size_t len, unsigned flags,
	char *why, size_t why_size)
{
	check c = { why, why_size, false, hash_input(data, len), { NULL, NULL } };
	if (why_size > 0)
		why[0] = '\0';
	stir_ctx *ctx = stir_ctx_alloc();
	if (!ctx)
		return fail(&c, "out of memory in the harness");
	stir_module *m = stir_module_read_from_mem(ctx, "input.stir",
		(const char *)data, len);
	check_diagnostics(&c, ctx);
	if (!m) {
		if (stir_ctx_n_errors(ctx) == 0)
			fail(&c, "rejected without an error");
	} else if (stir_ctx_n_errors(ctx) > 0) {
		fail_diags(&c, ctx, "a module read with errors");
	} else {
		char *text = stir_module_to_str(m);
		if (!text)
			fail(&c, "the module does not print");
		else if (check_round_trip(&c, m, text) == 0) {
			stir_ctx *lctx[2] = { NULL, NULL };
			bool lower = !(flags & FUZZ_LANG_STAGE_1_ONLY);
			if (lower)
				c.lowered[0] = lower_module(&c, text, 2, &lctx[0]);
			if (c.lowered[0])
				c.lowered[1] = lower_module(&c, text, 3, &lctx[1]);
			if (lower && !c.failed)
				check_cuda(&c, text);
			for (int i = 0; !c.failed && i < stir_module_n_kernels(m);
			    i++)
				if (run_kernel(&c, stir_module_get_kernel(m, i), i) < 0)
					break;
			for (int s = 0; s < 2; s++) {
				stir_module_free(c.lowered[s]);
				stir_ctx_free(lctx[s]);
			}
		}
		free(text);
	}
	stir_module_free(m);
	stir_ctx_free(ctx);
	return c.failed ? -1 : 0;
}
