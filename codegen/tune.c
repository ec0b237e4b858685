/* The tuner in one call (include/stir/tune.h, docs/recipes.md "The
 * tuner"): the tuning record, the cost model's pick, or the measured
 * search -- the model's best candidates, each scheduled by its recipe (on
 * threads) and printed as its schedule file, compiled at once on a pool
 * of threads, timed on the GPU as the benchmarks time them on the inputs
 * their schedule files, read back, make.  Here rather than in
 * schedule/recipes/ because the search compiles and runs kernels
 * (codegen/gpu.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stir/stir.h>
#include <stir/tune.h>
#include "codegen/tune_finalists.h"

/* What a recipe is tuned for: a CSR matrix (the SpMM's A, the SDDMM's
 * S; stir_tune) or a relational graph (RGMS; stir_tune_hetero), the
 * other NULL. */
typedef struct tune_graph {
	const stir_csr *a;
	const stir_hetero *h;
} tune_graph;

/* t0: seconds since t0. */
static double elapsed_s(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
		(double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* ctx: report that memory ran out; -1. */
static int no_memory(stir_ctx *ctx)
{
	stir_loc loc = { 0, 0, 0 };
	stir_ctx_report(ctx, STIR_ERROR, loc, "stir_tune: out of memory");
	return -1;
}

/* r: free r's arrays and zero it. */
void stir_tune_result_clear(stir_tune_result *r)
{
	if (!r)
		return;
	free(r->schedule);
	free(r->timed_cand);
	free(r->timed_ms);
	memset(r, 0, sizeof(*r));
}

/* k, feat, cand, len, kc, mc: the schedule file of candidate "cand" of
 * the recipe covering stage I kernel k at "feat" features (applied to a
 * copy of k), a heap string of *len bytes; NULL with diagnostics.  When
 * kc is not NULL, the scheduled copy (at stage III, ready for the GPU)
 * into *kc and its module, the caller's to free, into *mc. */
static char *candidate_text(const stir_kernel *k, int64_t feat, int cand,
	size_t *len, stir_kernel **kc, stir_module **mc)
{
	stir_module *cm = NULL;
	stir_kernel *c = stir_kernel_copy(k, &cm);
	char *text = c && stir_tune_apply_candidate(c, feat, cand) == 0 ?
		stir_kernel_schedule_to_str(c, len) : NULL;
	if (text && kc) {
		*kc = c;
		*mc = cm;
	} else {
		stir_module_free(cm);
	}
	return text;
}

/* text, len, n: the part of schedule file "text" (len bytes) that decides
 * a candidate's inputs: from its format (or stage1) section up to its
 * stage2 or stage3 section -- the decompositions, whose formats are built
 * on the host, and the specialized sizes.  Its start, *n bytes. */
static const char *inputs_part(const char *text, size_t len, size_t *n)
{
	const char *from = strstr(text, "\nformat:");
	if (!from)
		from = strstr(text, "\nstage1:");
	if (!from)
		from = text;
	const char *to = strstr(from, "\nstage2:");
	if (!to)
		to = strstr(from, "\nstage3:");
	if (!to)
		to = text + len;
	*n = (size_t)(to - from);
	return from;
}

/* k, g, opt, dev_name, key: stir_kernel_get_tune_key with the device
 * given by its name (NULL: the model's pick, "model-smsN"); rgms_agg's
 * recipe STIR_TUNE_RGMS_TF32 with opt->tf32. */
static int tune_key(const stir_kernel *k, const tune_graph *g,
	const stir_tune_options *opt, const char *dev_name,
	stir_tune_entry *key)
{
	memset(key, 0, sizeof(*key));
	key->recipe = stir_kernel_get_tune_recipe(k);
	if (key->recipe == STIR_TUNE_RGMS && opt->tf32)
		key->recipe = STIR_TUNE_RGMS_TF32;
	key->feat = opt->feat;
	key->time_ms = -1;
	if (g->h)
		stir_hetero_get_sig(g->h, &key->sig);
	else
		stir_csr_get_sig(g->a, &key->sig);
	if (opt->program_text) {
		stir_tune_program_hash(opt->program_text, key->program);
	} else {
		char *text = stir_kernel_to_str(k);
		if (!text)
			return -1;
		stir_tune_program_hash(text, key->program);
		free(text);
	}
	if (dev_name) {
		snprintf(key->device, sizeof(key->device), "%s", dev_name);
		for (char *p = key->device; *p; p++)
			if (isspace((unsigned char)*p))
				*p = '_';
	} else {
		snprintf(key->device, sizeof(key->device), "model-sms%d",
			opt->sms > 0 ? opt->sms : 132);
	}
	return 0;
}

/* k, a, opt, dev, key: see tune.h. */
int stir_kernel_get_tune_key(const stir_kernel *k, const stir_csr *a,
	const stir_tune_options *opt, const stir_device *dev,
	stir_tune_entry *key)
{
	tune_graph g = { .a = a };
	return tune_key(k, &g, opt, dev ? stir_device_get_name(dev) : NULL,
		key);
}

/* k, h, opt, dev, key: see tune.h. */
int stir_kernel_get_tune_key_hetero(const stir_kernel *k,
	const stir_hetero *h, const stir_tune_options *opt,
	const stir_device *dev, stir_tune_entry *key)
{
	tune_graph g = { .h = h };
	return tune_key(k, &g, opt, dev ? stir_device_get_name(dev) : NULL,
		key);
}

/* k, name, g, feat, s: the inputs every candidate of the search shares,
 * for stage I kernel k: g's matrix or relational graph bound to tensor
 * "name" at "feat" features (fin = fout = feat for a graph), the sizes
 * schedule s specializes (the same in every candidate's), random dense
 * inputs (seed 1) and the outputs.  NULL with diagnostics. */
static stir_bindings *shared_inputs(const stir_kernel *k, const char *name,
	const tune_graph *g, int64_t feat, const stir_schedule *s)
{
	stir_bindings *b = stir_bindings_alloc();
	bool sized = b && (g->h ? stir_bindings_set_size(b, "fin", feat) == 0 &&
		stir_bindings_set_size(b, "fout", feat) == 0 :
		stir_bindings_set_size(b, "feat", feat) == 0);
	if (sized && stir_schedule_bind_sizes(s, b) == 0 &&
	    (g->h ? stir_kernel_bind_hetero(k, b, name, g->h) :
	     stir_kernel_bind_csr(k, b, name, g->a)) == 0 &&
	    stir_kernel_bind_random(k, b, 1) == 0 &&
	    stir_kernel_bind_outputs(k, b) == 0)
		return b;
	stir_bindings_free(b);
	return NULL;
}

/* b, n0, k, s: make b, whose first n0 arrays are shared_inputs', the
 * inputs of a candidate of schedule s: the arrays bound after those
 * removed (a format built for another candidate), then the formats s's
 * decompositions make, built on the host from k's arrays.  0, or -1 with
 * diagnostics. */
static int bind_candidate_formats(stir_bindings *b, int n0,
	const stir_kernel *k, const stir_schedule *s)
{
	while (stir_bindings_n_arrays(b) > n0) {
		int last = stir_bindings_n_arrays(b) - 1;
		char *name = strdup(stir_bindings_get_array_name(b, last));
		if (!name)
			return -1;
		stir_bindings_remove_array(b, name);
		free(name);
	}
	return stir_schedule_bind_formats(s, k, b);
}

/* The arrays of the search's inputs in device memory, each copied once
 * for every candidate that takes it: the dense operands (the first n_kept
 * arrays of the bindings, shared_inputs') for the whole search, a
 * format's arrays until the next candidate's formats replace them.  At
 * 512 features a shared graph's dense operands are hundreds of MB, which
 * a copy for each candidate took seconds to move. */
typedef struct device_inputs {
	stir_device *dev;
	int n;                     /* arrays on the device */
	stir_gpu_extern *ext;      /* their names (owned), addresses, sizes */
	stir_gpu_buf **bufs;
} device_inputs;

/* d, from: free the arrays of d from the from-th on. */
static void device_inputs_drop(device_inputs *d, int from)
{
	for (int i = from; i < d->n; i++) {
		stir_gpu_buf_free(d->bufs[i]);
		free((char *)d->ext[i].name);
	}
	if (from < d->n)
		d->n = from;
}

/* d, b, n_kept: d holding b's arrays: its arrays from the n_kept-th on
 * (a format built for another candidate) replaced by b's, each copied to
 * the device once.  0, or -1 with diagnostics. */
static int device_inputs_sync(device_inputs *d, const stir_bindings *b,
	int n_kept)
{
	device_inputs_drop(d, n_kept);
	int nb = stir_bindings_n_arrays(b);
	stir_gpu_extern *ext = realloc(d->ext, (size_t)(nb + 1) * sizeof(*ext));
	if (ext)
		d->ext = ext;
	stir_gpu_buf **bufs = realloc(d->bufs, (size_t)(nb + 1) * sizeof(*bufs));
	if (bufs)
		d->bufs = bufs;
	if (!ext || !bufs)
		return no_memory(stir_device_get_ctx(d->dev));
	for (; d->n < nb; d->n++) {
		const char *name = stir_bindings_get_array_name(b, d->n);
		const stir_array *a = stir_bindings_get_array(b, name);
		stir_dtype t = stir_array_get_dtype(a);
		size_t bytes = (size_t)stir_array_get_len(a) * stir_dtype_get_size(t);
		stir_gpu_buf *buf = stir_gpu_buf_alloc(d->dev, bytes);
		char *own = strdup(name);
		if (!buf || !own || stir_gpu_buf_copy_from_host(buf, 0,
		    stir_array_get_const_data(a), bytes) < 0) {
			stir_gpu_buf_free(buf);
			free(own);
			return own ? -1 : no_memory(stir_device_get_ctx(d->dev));
		}
		d->bufs[d->n] = buf;
		d->ext[d->n] = (stir_gpu_extern){ own, stir_gpu_buf_get_ptr(buf),
			bytes, t };
	}
	return 0;
}

/* d: free what d holds. */
static void device_inputs_free(device_inputs *d)
{
	device_inputs_drop(d, 0);
	free(d->ext);
	free(d->bufs);
}

/* r, gk, d, b: bind run r of kernel gk to the arrays of d its launches
 * take (b, whose arrays d holds, gives the sizes).  0, or -1 with
 * diagnostics. */
static int bind_inputs(stir_gpu_run *r, const stir_gpu_kernel *gk,
	const device_inputs *d, const stir_bindings *b)
{
	const stir_cuda_plan *p = stir_gpu_kernel_get_plan(gk);
	stir_gpu_extern *use = calloc((size_t)d->n + 1, sizeof(*use));
	int n = 0;
	if (!use)
		return no_memory(stir_device_get_ctx(d->dev));
	for (int i = 0; i < stir_cuda_plan_n_launches(p); i++)
		for (int j = 0; j < stir_cuda_plan_n_args(p, i); j++) {
			const stir_buffer *buf = stir_cuda_plan_get_arg_buffer(p, i, j);
			if (!buf || stir_buffer_get_kind(buf) == STIR_BUFFER_LOCAL)
				continue;
			const char *name = stir_buffer_get_array_name(buf);
			bool seen = false;
			for (int q = 0; q < n && !seen; q++)
				seen = !strcmp(use[q].name, name);
			for (int q = 0; q < d->n && !seen; q++)
				if (!strcmp(d->ext[q].name, name)) {
					use[n++] = d->ext[q];
					seen = true;
				}
		}
	int rc = stir_gpu_run_bind_device(r, b, n, use);
	free(use);
	return rc;
}

/* d, b, gk, warmups, reps, best_ms, ms, dropped: time candidate gk with
 * inputs b, whose arrays d holds on the device, in a run of its own:
 * "warmups" warm-ups, then the median of "reps" runs with the L2 cache
 * flushed before each (stir_gpu_run_time) into *ms.  With a best median
 * so far (best_ms > 0), a screening first (STIR_TUNE_SCREEN_*): slower
 * than the margin, the candidate is dropped (*dropped; *ms the
 * screening's median).  0, or -1 with diagnostics. */
static int time_candidate(const device_inputs *d, const stir_bindings *b,
	const stir_gpu_kernel *gk, int warmups, int reps, double best_ms,
	double *ms, bool *dropped)
{
	stir_gpu_run *r = NULL;
	stir_gpu_timing t;
	int rc = (r = stir_gpu_run_alloc(gk, d->dev)) &&
		bind_inputs(r, gk, d, b) == 0 ? 0 : -1;
	*dropped = false;
	if (rc == 0 && best_ms > 0 && (rc = stir_gpu_run_time(r,
	    STIR_TUNE_SCREEN_WARMUPS, STIR_TUNE_SCREEN_REPS, &t)) == 0)
		*dropped = t.min_ms > STIR_TUNE_SCREEN_MARGIN * best_ms;
	if (rc == 0 && !*dropped)
		rc = stir_gpu_run_time(r, warmups, reps, &t);
	stir_gpu_run_free(r);
	if (rc == 0)
		*ms = t.median_ms;
	return rc;
}

/* One candidate scheduled for the search: by its recipe on a copy of the
 * program (k), or, when "text" is set, on the program read from its text
 * into a context of its own, so that candidates can be scheduled on
 * threads (a context is not shared between threads). */
typedef struct made {
	int cand;                  /* the recipe's candidate */
	int64_t feat;
	const stir_kernel *k;      /* the program */
	const char *file;          /* the name its text was read under */
	const char *text;          /* its text, or NULL: copy k */
	size_t text_len;
	const char *kname;         /* k's name */
	stir_ctx *ctx;             /* its own context, or NULL (k's) */
	stir_module *mod;          /* the scheduled kernel's module */
	stir_kernel *kern;         /* the scheduled kernel, at stage III */
	char *sched;               /* its schedule file; NULL on failure */
	size_t len;
} made;

/* w: schedule candidate w->cand (made's contract). */
static void make_one(made *w)
{
	if (!w->text) {
		w->sched = candidate_text(w->k, w->feat, w->cand, &w->len,
			&w->kern, &w->mod);
		return;
	}
	w->ctx = stir_ctx_alloc();
	w->mod = w->ctx ? stir_module_read_from_mem(w->ctx, w->file, w->text,
		w->text_len) : NULL;
	w->kern = w->mod ? stir_module_find_kernel(w->mod, w->kname) : NULL;
	if (w->kern && stir_tune_apply_candidate(w->kern, w->feat, w->cand) == 0)
		w->sched = stir_kernel_schedule_to_str(w->kern, &w->len);
}

/* arg, i: schedule candidate i of the made array arg. */
static void make_at(void *arg, int i)
{
	make_one(&((made *)arg)[i]);
}

/* w, n: schedule candidates w[0 .. n-1]: on a thread per processor when
 * each reads its own program (w[i].text set), else one after another. */
static void make_all(made *w, int n)
{
	if (n > 0 && w[0].text) {
		stir_parallel_for(n, make_at, w);
		return;
	}
	for (int i = 0; i < n; i++)
		make_one(&w[i]);
}

/* w: whether w->text, read under w->file, holds kernel w->kname as
 * w->k is (printed alike): else (a compressed file's bytes, another
 * program) the candidates are scheduled on copies of w->k. */
static bool text_is_program(const made *w)
{
	stir_ctx *c = stir_ctx_alloc();
	stir_module *m = c ? stir_module_read_from_mem(c, w->file, w->text,
		w->text_len) : NULL;
	stir_kernel *k = m ? stir_module_find_kernel(m, w->kname) : NULL;
	char *a = k ? stir_kernel_to_str(k) : NULL;
	char *b = a ? stir_kernel_to_str(w->k) : NULL;
	bool same = a && b && !strcmp(a, b);
	free(a);
	free(b);
	stir_module_free(m);
	stir_ctx_free(c);
	return same;
}

/* ctx, from, cand: say in ctx that candidate "cand" failed, with the
 * diagnostics of its own context "from" (nothing when NULL: they are in
 * ctx already). */
static void forward_diagnostics(stir_ctx *ctx, stir_ctx *from, int cand)
{
	if (!from)
		return;
	char *d = stir_ctx_diagnostics_to_str(from);
	stir_loc loc = { 0, 0, 0 };
	stir_ctx_report(ctx, STIR_ERROR, loc, "candidate %d failed:\n%s", cand,
		d ? d : "(out of memory)");
	free(d);
}

/* The candidates of one search, each as its schedule file, read back. */
typedef struct search {
	int n;                     /* kept */
	stir_ctx **ctxs;           /* each candidate's own context, or NULL */
	stir_module **mods;        /* each candidate's copy of the program */
	stir_schedule **ss;
	stir_kernel **ks;          /* scheduled, in mods[i] */
	stir_gpu_kernel **gks;
	char **texts;
	int *pos;                  /* its position in the model's order */
	int *inputs;               /* the first candidate with the same
	                              inputs (inputs_part equal) */
} search;

/* s: free what s holds. */
static void search_free(search *s)
{
	for (int i = 0; i < s->n; i++) {
		stir_gpu_kernel_free(s->gks[i]);
		stir_schedule_free(s->ss[i]);
		stir_module_free(s->mods[i]);
		stir_ctx_free(s->ctxs[i]);
		free(s->texts[i]);
	}
	free(s->ctxs);
	free(s->inputs);
	free(s->mods);
	free(s->ss);
	free(s->ks);
	free(s->gks);
	free(s->texts);
	free(s->pos);
}

/* s, d, b, n0, k, c, bound: the formats of candidate c (s's place)
 * built into b and copied to d, unless *bound, the inputs d holds the
 * formats of (search.inputs), are already c's.  0, or -1 with
 * diagnostics. */
static int bind_formats_of(const search *s, device_inputs *d,
	stir_bindings *b, int n0, const stir_kernel *k, int c, int *bound)
{
	if (s->inputs[c] == *bound)
		return 0;
	*bound = s->inputs[c];
	return bind_candidate_formats(b, n0, k, s->ss[c]) < 0 ||
		device_inputs_sync(d, b, n0) < 0 ? -1 : 0;
}

/* ctx, s, d, b, n0, k, cands, budget_s, t0, ms, dropped, bound, out:
 * the search's rounds (STIR_TUNE_ROUNDS; include/stir/tune.h): the
 * first in s's order, each candidate after the first screened against
 * the round's best median so far (dropped[i]), until budget_s seconds
 * from t0 have passed; the others, begun only when every candidate was
 * timed and within the budget, over those not dropped, the candidates of
 * the same inputs together (tune_order_by_inputs: each format built once
 * a round).
 * Candidate i's time in round q into ms[i * STIR_TUNE_ROUNDS + q]; the
 * first round's timed candidates, its dropped ones and its fastest
 * (search_cand) into out; *bound: as bind_formats_of's.  The rounds
 * timed, or -1 with diagnostics. */
static int time_rounds(stir_ctx *ctx, const search *s, device_inputs *d,
	stir_bindings *b, int n0, const stir_kernel *k, const int *cands,
	double budget_s,
	const struct timespec *t0, double *ms, bool *dropped, int *bound,
	stir_tune_result *out)
{
	enum { R = STIR_TUNE_ROUNDS };
	int *order = malloc((size_t)s->n * sizeof(*order));
	if (!order)
		return no_memory(ctx);
	tune_order_by_inputs(s->n, s->inputs, order);
	int fastest = -1, q = 0, rc = 0;
	for (; rc == 0 && q < R && (q == 0 || (out->n_timed == s->n &&
	    elapsed_s(t0) <= budget_s)); q++) {
		for (int j = 0; rc == 0 && j < s->n; j++) {
			int i = q == 0 ? j : order[j];
			if (q == 0 && i > 0 && elapsed_s(t0) > budget_s)
				break;
			if (q > 0 && dropped[i])
				continue;
			bool drop;
			if (bind_formats_of(s, d, b, n0, k, i, bound) < 0 ||
			    time_candidate(d, b, s->gks[i],
			    STIR_TUNE_ROUND_WARMUPS, STIR_TUNE_ROUND_REPS,
			    q == 0 && fastest >= 0 ? ms[fastest * R] : 0,
			    &ms[i * R + q], &drop) < 0)
				rc = -1;
			if (rc < 0 || q > 0)
				continue;
			dropped[i] = drop;
			out->timed_cand[out->n_timed++] = cands[s->pos[i]];
			out->n_dropped += drop;
			if (!drop && (fastest < 0 || ms[i * R] < ms[fastest * R]))
				fastest = i;
		}
	}
	free(order);
	if (fastest >= 0)
		out->search_cand = cands[s->pos[fastest]];
	return rc < 0 ? -1 : q;
}

/* ctx, k, src, name, g, feat, cands, n, top, dev, budget_s, t0,
 * cache_dir, out: the measured search over the first "top" candidates of cands[0 ..
 * n-1] (the model's order) whose schedule files differ, for stage I
 * kernel k at "feat" features with g's matrix or graph bound to tensor "name"
 * (stir_tune's contract); the candidates are scheduled on threads when
 * src (a made with file and text set) gives k's program.  The fastest's position in cands into *best,
 * its schedule file into out->schedule, its re-measured time into
 * out->time_ms and every timing into out.  0, or -1 with diagnostics. */
static int tune_measure(stir_ctx *ctx, const stir_kernel *k,
	const made *src, const char *name, const tune_graph *g, int64_t feat, const int *cands,
	int n, int top, stir_device *dev, double budget_s,
	const struct timespec *t0, const char *cache_dir, int *best,
	stir_tune_result *out)
{
	search s = { 0 };
	s.ctxs = calloc((size_t)top, sizeof(*s.ctxs));
	s.mods = calloc((size_t)top, sizeof(*s.mods));
	s.ss = calloc((size_t)top, sizeof(*s.ss));
	s.ks = calloc((size_t)top, sizeof(*s.ks));
	s.gks = calloc((size_t)top, sizeof(*s.gks));
	s.texts = calloc((size_t)top, sizeof(*s.texts));
	s.pos = calloc((size_t)top, sizeof(*s.pos));
	s.inputs = calloc((size_t)top, sizeof(*s.inputs));
	out->timed_cand = calloc((size_t)top, sizeof(*out->timed_cand));
	out->timed_ms = calloc((size_t)top, sizeof(*out->timed_ms));
	made *w = calloc((size_t)top, sizeof(*w));
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int rc = w && s.ctxs && s.mods && s.ss && s.ks && s.gks && s.texts && s.pos &&
		s.inputs && out->timed_cand && out->timed_ms ? 0 : no_memory(ctx);
	/* the first "top" candidates whose schedule files differ, scheduled
	 * a wave at a time (as many as may still be kept); the kernel each
	 * compiles is the recipe's, which the schedule file gives again
	 * (tests/test_recipes.c, test_tune_candidates_read_back), and the
	 * schedule file, read back, builds its inputs */
	for (int i = 0; rc == 0 && i < n && s.n < top; ) {
		int cnt = top - s.n < n - i ? top - s.n : n - i;
		for (int j = 0; j < cnt; j++) {
			w[j] = *src;
			w[j].cand = cands[i + j];
		}
		make_all(w, cnt);
		for (int j = 0; j < cnt; j++) {
			if (rc == 0 && !w[j].sched) {
				forward_diagnostics(ctx, w[j].ctx, w[j].cand);
				rc = -1;
			}
			bool seen = false;
			for (int q = 0; rc == 0 && q < s.n && !seen; q++)
				seen = !strcmp(s.texts[q], w[j].sched);
			if (rc < 0 || seen) {
				free(w[j].sched);
				stir_module_free(w[j].mod);
				stir_ctx_free(w[j].ctx);
				continue;
			}
			int at = s.n++;
			s.texts[at] = w[j].sched;
			s.pos[at] = i + j;
			s.mods[at] = w[j].mod;
			s.ctxs[at] = w[j].ctx;
			s.ks[at] = w[j].kern;
			if (!(s.ss[at] = stir_schedule_read_from_mem(ctx,
			    "(stir_tune)", w[j].sched, w[j].len)))
				rc = -1;
			/* the inputs of the first candidate with the same ones */
			size_t pn, qn;
			const char *p = inputs_part(w[j].sched, w[j].len, &pn);
			s.inputs[at] = at;
			for (int q = 0; q < at && s.inputs[at] == at; q++) {
				const char *o = inputs_part(s.texts[q],
					strlen(s.texts[q]), &qn);
				if (pn == qn && !memcmp(p, o, pn))
					s.inputs[at] = s.inputs[q];
			}
		}
		i += cnt;
	}
	free(w);
	out->n_compiled = s.n;
	out->schedule_s = elapsed_s(&ts);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	long nvrtc0 = stir_nvrtc_n_invocations();
	/* the options a schedule file gives: the device's defaults */
	stir_compile_options *co = calloc((size_t)(s.n ? s.n : 1), sizeof(*co));
	for (int i = 0; co && i < s.n; i++) {
		co[i].device = dev;
		co[i].cache_dir = cache_dir;
	}
	if (rc == 0 && !co)
		rc = no_memory(ctx);
	if (rc == 0 && stir_gpu_kernel_compile_all(
	    s.n, (const stir_kernel *const *)s.ks, co, 0, s.gks) != 0) {
		for (int i = 0; i < s.n; i++)
			if (!s.gks[i])
				forward_diagnostics(ctx, s.ctxs[i],
					cands[s.pos[i]]);
		rc = -1;
	}
	free(co);
	out->compile_s = elapsed_s(&ts);
	out->n_nvrtc = (int)(stir_nvrtc_n_invocations() - nvrtc0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	*best = -1;
	int n0 = 0;
	/* one set of inputs: the dense operands drawn and copied to the
	 * device once, each distinct format built and copied when a
	 * candidate of it is timed after another's */
	stir_bindings *b = rc == 0 && s.n > 0 ? shared_inputs(k, name, g, feat,
		s.ss[0]) : NULL;
	device_inputs d = { .dev = dev };
	if (rc == 0 && s.n > 0 && !b)
		rc = -1;
	if (b)
		n0 = stir_bindings_n_arrays(b);
	/* each candidate's time in each round, whether the screening
	 * dropped it, its median over the rounds */
	size_t cap = s.n ? (size_t)s.n : 1;
	double *round_ms = calloc(cap * STIR_TUNE_ROUNDS, sizeof(*round_ms));
	double *median = calloc(cap, sizeof(*median));
	bool *dropped = calloc(cap, sizeof(*dropped));
	if (rc == 0 && (!round_ms || !median || !dropped))
		rc = no_memory(ctx);
	int won = -1, bound = -1;
	int rounds = rc == 0 && s.n > 0 ? time_rounds(ctx, &s, &d, b, n0, k,
		cands, budget_s, t0, round_ms, dropped, &bound, out) : 0;
	if (rounds < 0)
		rc = -1;
	else if (out->n_timed > 0) {
		won = tune_pick_median(out->n_timed, rounds, round_ms, dropped,
			median);
		memcpy(out->timed_ms, median, (size_t)out->n_timed *
			sizeof(*median));
		int idx[STIR_TUNE_FINALISTS];
		int nf = tune_get_finalists(out->n_timed, median, dropped, idx);
		for (int f = 0; nf > 1 && f < nf; f++) {
			out->finalist_cand[f] = out->timed_cand[idx[f]];
			out->finalist_ms[f] = median[idx[f]];
		}
		out->n_finalists = nf > 1 ? nf : 0;
	}
	/* the winner, re-measured in a fresh run as the benchmarks time;
	 * its schedule file is the result */
	bool unused;
	if (rc == 0 && won >= 0 && (bind_formats_of(&s, &d, b, n0, k, won,
	    &bound) < 0 || time_candidate(&d, b, s.gks[won], 10,
	    STIR_TUNE_FINAL_REPS, 0, &out->time_ms, &unused) < 0))
		rc = -1;
	if (rc == 0 && won >= 0) {
		*best = s.pos[won];
		out->schedule = s.texts[won];
		out->schedule_len = strlen(s.texts[won]);
		s.texts[won] = NULL;
	}
	out->time_s = elapsed_s(&ts);
	free(round_ms);
	free(median);
	free(dropped);
	device_inputs_free(&d);
	stir_bindings_free(b);
	search_free(&s);
	return rc;
}

/* order, costs, n, cand: candidate "cand" moved to the front of
 * order[0 .. n-1] with its cost (costs may be NULL; the others keep
 * their order); nothing when it is not there (it does not apply). */
static void move_to_front(int *order, double *costs, int n, int cand)
{
	int at = 0;
	while (at < n && order[at] != cand)
		at++;
	if (at == n)
		return;
	memmove(order + 1, order, (size_t)at * sizeof(*order));
	order[0] = cand;
	if (costs) {
		double c = costs[at];
		memmove(costs + 1, costs, (size_t)at * sizeof(*costs));
		costs[0] = c;
	}
}

/* r, g, feat, n_sms, similar, order, costs: stir_tune_get_search_order
 * for g's matrix, or for its relational graph stir_rgms_rank's order with
 * "similar" first. */
static int search_order(stir_tune_recipe r, const tune_graph *g,
	int64_t feat, int n_sms, int similar, int *order, double *costs)
{
	if (!g->h)
		return stir_tune_get_search_order(r, g->a, feat, n_sms, similar,
			order, costs);
	int n = stir_rgms_rank(r, g->h, feat, order, costs);
	if (n > 0 && similar >= 0)
		move_to_front(order, costs, n, similar);
	return n;
}

/* r: the block size of BSR recipe r, 0 for the others. */
static int64_t recipe_block(stir_tune_recipe r)
{
	return r == STIR_TUNE_BSR16 ? 16 : r == STIR_TUNE_BSR32 ? 32 :
		r == STIR_TUNE_BSR64 ? 64 : 0;
}

/* r, a, feat, n_sms, similar, order, costs: see include/stir/tune.h. */
int stir_tune_get_search_order(stir_tune_recipe r, const stir_csr *a,
	int64_t feat, int n_sms, int similar, int *order, double *costs)
{
	int n = r == STIR_TUNE_SPMM ? stir_spmm_hybrid_model_rank(a, feat,
		n_sms, order, costs) : recipe_block(r) ? stir_bsr_rank(
		recipe_block(r), a, feat, order, costs) : stir_sddmm_rank(r, a,
		feat, n_sms, order, costs);
	if (n <= 0)
		return n;
	if (similar >= 0) {
		move_to_front(order, costs, n, similar);
		return n;
	}
	if (r != STIR_TUNE_SPMM)
		return n;
	/* the model's pick, then the candidates most often fastest (the
	 * last of the list moved first), then the rest of the model's order */
	int pick = order[0];
	for (int i = stir_spmm_hybrid_n_often_fastest() - 1; i >= 0; i--)
		move_to_front(order, costs, n,
			stir_spmm_hybrid_get_often_fastest(i));
	move_to_front(order, costs, n, pick);
	return n;
}

/* r: see include/stir/tune.h. */
int stir_tune_get_top(stir_tune_recipe r)
{
	return r == STIR_TUNE_SPMM ? STIR_TUNE_TOP_SPMM : STIR_TUNE_TOP;
}

/* ctx, program, g, opt, dev, t0, out: the measured search's part of
 * stir_tune (no record hit; out->key and out->similar set): the
 * candidates in search_order's order (at most
 * STIR_TUNE_TOP_SIMILAR from a similar graph's winner), searched (the
 * budget counted from *t0), and the fastest's candidate and schedule text
 * into out.  0 or -1. */
static int tune_search(stir_ctx *ctx, const stir_kernel *program,
	const tune_graph *g, const stir_tune_options *opt, stir_device *dev,
	const struct timespec *t0, stir_tune_result *out)
{
	stir_tune_recipe recipe = out->key.recipe;
	int64_t feat = opt->feat;
	int top = opt->top > 0 ? opt->top : stir_tune_get_top(recipe);
	double budget_s = opt->budget_s > 0 ? opt->budget_s :
		STIR_TUNE_BUDGET_S;
	/* S for the SDDMM's programs, A for the others' */
	const char *name = opt->matrix_name ? opt->matrix_name :
		recipe >= STIR_TUNE_SDDMM && recipe <= STIR_TUNE_SDDMM_TILES ?
		"S" : "A";
	int nc = stir_spmm_hybrid_n_candidates() + stir_sddmm_n_candidates() +
		stir_sddmm_vblock_n_candidates() +
		stir_sddmm_tiles_n_candidates() + stir_rgms_n_candidates() +
		stir_rgms_tc_n_candidates() + stir_rgms_edge_n_candidates() +
		stir_bsr_tc_n_candidates() + 1;
	int *order = malloc((size_t)nc * sizeof(*order));
	double *costs = malloc((size_t)nc * sizeof(*costs));
	int n = !order || !costs ? -1 : search_order(recipe, g, feat, opt->sms,
		out->similar ? out->similar_entry.cand : -1, order, costs);
	int rc = n < 0 ? no_memory(ctx) : 0;
	if (out->similar && top > STIR_TUNE_TOP_SIMILAR)
		top = STIR_TUNE_TOP_SIMILAR;
	int best = -1;
	if (rc == 0 && n == 0) {
		stir_loc loc = { 0, 0, 0 };
		stir_ctx_report(ctx, STIR_ERROR, loc, "no candidate of the "
			"recipe applies at %lld features", (long long)feat);
		rc = -1;
	}
	made src = { .feat = feat, .k = program,
		.file = opt->program_file, .text = opt->program_file ?
		opt->program_text : NULL, .text_len = opt->program_text ?
		strlen(opt->program_text) : 0,
		.kname = stir_kernel_get_name(program) };
	if (src.text && !text_is_program(&src))
		src.text = NULL;
	if (rc == 0 && (tune_measure(ctx, program, &src, name, g, feat, order,
	    n, top, dev, budget_s, t0, opt->cache_dir, &best, out) < 0 ||
	    best < 0))
		rc = -1;
	if (rc == 0) {
		out->cand = order[best];
		out->cost = costs[best];
		out->from = STIR_TUNE_FROM_SEARCH;
		if (!out->schedule)
			rc = -1;
	}
	free(order);
	free(costs);
	return rc;
}

/* ctx, program, g, opt: whether stir_tune (g->a) or stir_tune_hetero
 * (g->h) may tune "program" with "opt"; else false, said in ctx. */
static bool tune_args_ok(stir_ctx *ctx, const stir_kernel *program,
	const tune_graph *g, const stir_tune_options *opt)
{
	stir_loc loc = { 0, 0, 0 };
	const char *fn = g->h ? "stir_tune_hetero" : "stir_tune";
	if (!program || !(g->a || g->h) || !opt || opt->feat < 1) {
		stir_ctx_report(ctx, STIR_ERROR, loc, "%s: %s", fn,
			!program || !(g->a || g->h) || !opt ? "no program, graph or "
			"options" : "the feature size must be at least 1");
		return false;
	}
	stir_tune_recipe r = stir_kernel_get_tune_recipe(program);
	const char *name = stir_kernel_get_name(program);
	if (r == STIR_TUNE_NONE) {
		stir_ctx_report(ctx, STIR_ERROR, loc, "no recipe covers kernel "
			"'%s' (the tuner knows csrmm of examples/csrmm.stir, sddmm "
			"of examples/sddmm.stir, sddmm_rows of examples/sddmm_rows.stir, "
			"sddmm_vb of examples/sddmm_vb4.stir, sddmm_vb_csr of "
			"examples/sddmm_vb4_csr.stir, sddmm_tiles_csr of "
			"examples/sddmm_tiles_csr.stir, bsrmm of examples/bsrmm.stir "
			"(or bench/bsrmm32.stir, bsrmm64.stir), and over a relational graph "
			"rgms_agg of examples/rgms_agg.stir and rgms_edge of "
			"examples/rgms_edge.stir)", name);
		return false;
	}
	if (stir_tune_recipe_is_hetero(r) != !!g->h) {
		stir_ctx_report(ctx, STIR_ERROR, loc, "%s: kernel '%s' is tuned "
			"for %s (%s)", fn, name, g->h ? "a matrix, not a relational "
			"graph" : "a relational graph, not a matrix", g->h ?
			"stir_tune" : "stir_tune_hetero");
		return false;
	}
	if (opt->tf32 && r != STIR_TUNE_RGMS) {
		stir_ctx_report(ctx, STIR_ERROR, loc, "%s: the recipe of kernel "
			"'%s' has no tf32 candidates (tf32 is for rgms_agg)", fn,
			name);
		return false;
	}
	return true;
}

/* ctx, program, g, opt, out: stir_tune for g's matrix, stir_tune_hetero
 * for its relational graph. */
static int tune(stir_ctx *ctx, const stir_kernel *program,
	const tune_graph *g, const stir_tune_options *opt, stir_tune_result *out)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(out, 0, sizeof(*out));
	out->cand = -1;
	out->time_ms = -1;
	stir_loc loc = { 0, 0, 0 };
	if (!tune_args_ok(ctx, program, g, opt))
		return -1;
	/* the device's name keys the record; the device itself (its context
	 * takes a few tenths of a second to make) only when a search runs */
	stir_device *dev = opt->device, *own = NULL;
	char dev_name[256];
	if (!opt->model_only && !dev && stir_ctx_get_device_name(ctx, 0, dev_name,
	    sizeof(dev_name)) < 0) {
		stir_ctx_report(ctx, STIR_NOTE, loc, "the measured search needs a "
			"GPU; --model-only picks with the cost model alone (stirc "
			"run --tune: without --backend cuda)");
		return -1;
	}
	int rc = tune_key(program, g, opt, opt->model_only ? NULL : dev ?
		stir_device_get_name(dev) : dev_name, &out->key) == 0 ? 0 :
		no_memory(ctx);
	int hit = 0;
	stir_tune_entry e;
	if (rc == 0 && !opt->no_record)
		hit = stir_tune_record_find(ctx, opt->cache_dir, &out->key,
			STIR_TUNE_SIMILAR_TOL, &e);
	if (hit == 2) {
		out->similar = true;
		out->similar_entry = e;
	}
	if (rc == 0 && hit == 1) {
		out->cand = e.cand;
		out->cost = e.cost;
		out->time_ms = e.time_ms;
		out->from = STIR_TUNE_FROM_RECORD;
		/* the schedule file stored with the entry; else (an entry
		 * stored without one) the candidate scheduled again */
		out->schedule = stir_tune_record_find_schedule(ctx,
			opt->cache_dir, &e, &out->schedule_len);
		if (!out->schedule && (!(out->schedule = candidate_text(program,
		    opt->feat, e.cand, &out->schedule_len, NULL, NULL)) ||
		    stir_tune_record_store_schedule(ctx, opt->cache_dir, &e,
		    out->schedule, out->schedule_len) < 0))
			rc = -1;
	} else if (rc == 0 && opt->model_only) {
		stir_module *cm = NULL;
		stir_kernel *c = stir_kernel_copy(program, &cm);
		out->from = STIR_TUNE_FROM_MODEL;
		if (!c || (g->h ? stir_tune_model_apply_hetero(c, g->h, opt->feat,
		    opt->tf32, &out->cand, &out->cost) : stir_tune_model_apply(c,
		    g->a, opt->feat, opt->sms, &out->cand, &out->cost)) < 0 ||
		    !(out->schedule = stir_kernel_schedule_to_str(c,
		    &out->schedule_len)))
			rc = -1;
		stir_module_free(cm);
	} else if (rc == 0) {
		if (!dev && !(dev = own = stir_device_alloc(ctx, 0)))
			rc = -1;
		else
			rc = tune_search(ctx, program, g, opt, dev, &t0, out);
	}
	if (rc == 0 && hit != 1) {
		out->key.cand = out->cand;
		out->key.cost = out->cost;
		out->key.time_ms = out->time_ms;
		snprintf(out->key.how, sizeof(out->key.how), "%s",
			opt->model_only ? "model" : "measured");
		if (!opt->no_record && (stir_tune_record_store(ctx,
		    opt->cache_dir, &out->key) < 0 ||
		    stir_tune_record_store_schedule(ctx, opt->cache_dir,
		    &out->key, out->schedule, out->schedule_len) < 0))
			rc = -1;
	}
	if (rc == 0 && hit == 1)
		out->key = e;
	stir_device_free(own);
	if (rc < 0)
		stir_tune_result_clear(out);
	return rc;
}

/* ctx, program, a, opt, out: see include/stir/tune.h. */
int stir_tune(stir_ctx *ctx, const stir_kernel *program, const stir_csr *a,
	const stir_tune_options *opt, stir_tune_result *out)
{
	tune_graph g = { .a = a };
	return tune(ctx, program, &g, opt, out);
}

/* ctx, program, h, opt, out: see include/stir/tune.h. */
int stir_tune_hetero(stir_ctx *ctx, const stir_kernel *program,
	const stir_hetero *h, const stir_tune_options *opt,
	stir_tune_result *out)
{
	tune_graph g = { .h = h };
	return tune(ctx, program, &g, opt, out);
}
