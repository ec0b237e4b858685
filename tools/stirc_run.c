/* stirc run: bind the inputs the options name to a kernel, run it on the
 * interpreter or the GPU, check it against the interpreter and write
 * its outputs; the binding and comparing helpers verify uses too. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stir/stir.h>
#include "config.h"
#include "tools/stirc_cmd.h"

/* An array bound by an option: for the check that no two bind one. */
typedef struct claim {
	const char *array;        /* the array's name */
	const char *opt;          /* "--mtx" or "--in" */
	const name_value *arg;    /* the option's NAME=FILE */
} claim;

/* list, n, array, opt, arg, prefix: record in list[*n] that option "opt
 * arg" binds "array"; EXIT_USAGE, naming both, when another option of the
 * list binds it too. */
static int claim_array(claim *list, int *n, const char *array,
	const char *opt, const name_value *arg, const char *prefix)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(list[i].array, array))
			return usage_error(prefix, "%s %s=%s and %s %s=%s both bind "
				"array '%s'", list[i].opt, list[i].arg->name,
				list[i].arg->value, opt, arg->name, arg->value, array);
	list[*n].array = array;
	list[*n].opt = opt;
	list[(*n)++].arg = arg;
	return 0;
}

/* k, name: has kernel k a size parameter called "name"? */
bool has_param(const stir_kernel *k, const char *name)
{
	for (int p = 0; p < stir_kernel_n_params(k); p++)
		if (!strcmp(stir_var_get_name(stir_kernel_get_param(k, p)), name))
			return true;
	return false;
}

/* ctx, k, list, n, nv, prefix: claim in list[*n] the arrays --hetero nv
 * binds: the tensor and the indptr and indices of its two sparse axes (a
 * tensor of another shape: binding it says so).  0, EXIT_WRONG or
 * EXIT_USAGE. */
static int claim_hetero(stir_ctx *ctx, const stir_kernel *k, claim *list,
	int *n, const name_value *nv, const char *prefix)
{
	int rc = claim_array(list, n, nv->name, "--hetero", nv, prefix);
	stir_buffer *buf = stir_kernel_find_buffer(k, nv->name);
	if (rc || stir_buffer_n_axes(buf) != 3)
		return rc;
	for (int a = 1; a <= 2 && rc == 0; a++) {
		stir_axis *ax = stir_buffer_get_axis(buf, a);
		if (stir_axis_get_kind(ax) != STIR_SPARSE_VARIABLE)
			return 0;
		const char *an = stir_axis_get_name(ax);
		size_t len = strlen(an) + 9;
		char *b1 = malloc(len);
		if (!b1)
			return EXIT_WRONG;
		const char *sfx[2] = { "indptr", "indices" };
		for (int s = 0; s < 2 && rc == 0; s++) {
			snprintf(b1, len, "%s.%s", an, sfx[s]);
			/* interned: the names live as long as the context */
			const char *nm = stir_ctx_intern(ctx, b1);
			rc = nm ? claim_array(list, n, nm, "--hetero", nv, prefix) :
				EXIT_WRONG;
		}
		free(b1);
	}
	return rc;
}

/* ctx, k, o, prefix: check the names the options give against kernel k
 * before any data is read: every --size a size parameter of k, every
 * --out an array of k, and no array bound by two options (--mtx binds a
 * tensor and the indptr and indices of its sparse axis).  0, EXIT_WRONG
 * or EXIT_USAGE. */
static int check_names(stir_ctx *ctx, const stir_kernel *k,
	const options *o, const char *prefix)
{
	for (int i = 0; i < o->n_sizes && k; i++) {
		if (!has_param(k, o->sizes[i].name)) {
			fprintf(stderr, "stirc: --size %s=%s: kernel '%s' has no size "
				"parameter '%s'\n", o->sizes[i].name, o->sizes[i].value,
				stir_kernel_get_name(k), o->sizes[i].name);
			return EXIT_WRONG;
		}
	}
	int n_names = stir_kernel_get_array_names(k, 0, NULL);
	const char **names = malloc((size_t)(n_names + 1) * sizeof(*names));
	if (!names)
		return EXIT_WRONG;
	stir_kernel_get_array_names(k, n_names, names);
	/* --out before any data is read or anything runs; --in and --mtx
	 * before any file is read */
	for (int i = 0; i < o->n_out + o->n_in + o->n_mtx; i++) {
		const name_value *nv = i < o->n_out ? &o->out[i] :
			i < o->n_out + o->n_in ? &o->in[i - o->n_out] :
			&o->mtx[i - o->n_out - o->n_in];
		const char *opt = i < o->n_out ? "--out" :
			i < o->n_out + o->n_in ? "--in" : "--mtx";
		bool found = false;
		for (int j = 0; j < n_names && !found; j++)
			found = !strcmp(names[j], nv->name);
		if (i >= o->n_out + o->n_in) {
			const stir_buffer *t = stir_kernel_find_buffer(k, nv->name);
			found = t && stir_buffer_get_kind(t) == STIR_BUFFER_TENSOR;
		}
		if (!found) {
			fprintf(stderr, "stirc: %s %s=%s: kernel '%s' has no %s '%s'\n",
				opt, nv->name, nv->value, stir_kernel_get_name(k),
				i < o->n_out + o->n_in ? "array" : "tensor", nv->name);
			free(names);
			return i < o->n_out ? EXIT_USAGE : EXIT_WRONG;
		}
	}
	free(names);
	for (int i = 0; i < o->n_hetero; i++) {
		const stir_buffer *t = stir_kernel_find_buffer(k, o->hetero[i].name);
		if (!t || stir_buffer_get_kind(t) != STIR_BUFFER_TENSOR) {
			fprintf(stderr, "stirc: --hetero %s=%s: kernel '%s' has no "
				"tensor '%s'\n", o->hetero[i].name, o->hetero[i].value,
				stir_kernel_get_name(k), o->hetero[i].name);
			return EXIT_WRONG;
		}
	}
	int n = 0, rc = 0;
	claim bound[3 * MAX_BINDINGS + 5 * MAX_BINDINGS + MAX_BINDINGS];
	for (int i = 0; i < o->n_hetero && rc == 0; i++)
		rc = claim_hetero(ctx, k, bound, &n, &o->hetero[i], prefix);
	for (int i = 0; i < o->n_mtx && rc == 0; i++) {
		const name_value *nv = &o->mtx[i];
		rc = claim_array(bound, &n, nv->name, "--mtx", nv, prefix);
		stir_buffer *buf = stir_kernel_find_buffer(k, nv->name);
		stir_axis *j = buf && stir_buffer_get_kind(buf) ==
			STIR_BUFFER_TENSOR && stir_buffer_n_axes(buf) == 2 ?
			stir_buffer_get_axis(buf, 1) : NULL;
		if (!j || stir_axis_get_kind(j) != STIR_SPARSE_VARIABLE)
			continue; /* not a CSR matrix: binding it says so */
		const char *an = stir_axis_get_name(j);
		size_t len = strlen(an) + 9;
		char *buf1 = malloc(len), *buf2 = malloc(len);
		const char *ip = NULL, *ix = NULL;
		if (buf1 && buf2) {
			snprintf(buf1, len, "%s.indptr", an);
			snprintf(buf2, len, "%s.indices", an);
			/* interned: the names live as long as the context */
			ip = stir_ctx_intern(ctx, buf1);
			ix = stir_ctx_intern(ctx, buf2);
		}
		free(buf1);
		free(buf2);
		if (!ip || !ix)
			return EXIT_WRONG;
		if (rc == 0)
			rc = claim_array(bound, &n, ip, "--mtx", nv, prefix);
		if (rc == 0)
			rc = claim_array(bound, &n, ix, "--mtx", nv, prefix);
	}
	for (int i = 0; i < o->n_in && rc == 0; i++)
		rc = claim_array(bound, &n, o->in[i].name, "--in", &o->in[i],
			prefix);
	return rc;
}

/* b, o, s: bind --size, then the sizes schedule s (or NULL) specializes.
 * 0 or -1. */
int bind_sizes(stir_bindings *b, const options *o,
	const stir_schedule *s)
{
	for (int i = 0; i < o->n_sizes; i++) {
		int64_t v;
		parse_int(o->sizes[i].value, &v);
		stir_bindings_set_size(b, o->sizes[i].name, v);
	}
	return s ? stir_schedule_bind_sizes(s, b) : 0;
}

/* ctx, opt, nv: after a failed binding of data file nv->value, say
 * which option bound it, located in that file.  Returns -1. */
int note_option(stir_ctx *ctx, const char *opt, const name_value *nv)
{
	stir_loc loc = { stir_ctx_intern(ctx, nv->value), 0, 0 };
	stir_ctx_report(ctx, STIR_NOTE, loc, "read for %s %s=%s", opt, nv->name,
		nv->value);
	return -1;
}

/* ctx, o: after a failed check of the arrays, say which --in file held
 * the array the last error names (a COO array that disagrees with the
 * structure is found only once everything is bound).  Returns -1. */
static int name_in_file(stir_ctx *ctx, const options *o)
{
	int nd = stir_ctx_n_diagnostics(ctx);
	const char *msg = nd ? stir_diag_get_message(stir_ctx_get_diagnostic(ctx,
		nd - 1)) : "";
	for (int i = 0; i < o->n_in; i++) {
		size_t len = strlen(o->in[i].name);
		const char *at = strstr(msg, o->in[i].name);
		if (at && at > msg && at[-1] == '\'' && at[len] == '\'')
			fprintf(stderr, "stirc: array '%s' was read from --in %s=%s\n",
				o->in[i].name, o->in[i].name, o->in[i].value);
	}
	return -1;
}

/* ctx, k, b, o, s: bind --size, --mtx and --in (converting arrays to the
 * kernel's types and taking sizes from their shapes), then --random, to
 * unscheduled kernel k; then what schedule s (or NULL) needs besides:
 * the sizes it specializes (first) and the formats it decomposes into
 * (last). */
static int bind_inputs(stir_ctx *ctx, stir_kernel *k, stir_bindings *b,
	const options *o, const stir_schedule *s)
{
	if (bind_sizes(b, o, s) < 0)
		return -1;
	for (int i = 0; i < o->n_mtx; i++) {
		stir_csr *csr = stir_kernel_read_csr_from_file(k, o->mtx[i].name,
			o->mtx[i].value);
		int rc = csr ? stir_kernel_bind_csr(k, b, o->mtx[i].name, csr) : -1;
		stir_csr_free(csr);
		if (rc < 0)
			return csr ? note_option(ctx, "--mtx", &o->mtx[i]) : -1;
	}
	for (int i = 0; i < o->n_hetero; i++) {
		stir_hetero *h = stir_hetero_read_from_file(ctx, o->hetero[i].value);
		bool read = h != NULL;
		int rc = read ? stir_kernel_bind_hetero(k, b, o->hetero[i].name,
			h) : -1;
		stir_hetero_free(h);
		if (rc < 0)
			return read ? note_option(ctx, "--hetero", &o->hetero[i]) : -1;
	}
	for (int i = 0; i < o->n_in; i++) {
		stir_array *a = stir_npy_read_from_file(ctx, o->in[i].value);
		if (!a)
			return -1;
		if (stir_kernel_bind_array(k, b, o->in[i].name, a) < 0)
			return note_option(ctx, "--in", &o->in[i]);
	}
	/* both derive the COO arrays of fused groups, or check those read */
	if ((o->have_seed && stir_kernel_bind_random(k, b, o->seed) < 0) ||
	    stir_kernel_bind_coo(k, b) < 0)
		return name_in_file(ctx, o);
	if (stir_kernel_bind_outputs(k, b) < 0)
		return -1;
	return s ? stir_schedule_bind_formats(s, k, b) : 0;
}

/* got, want, mag, tol, where: the number of elements of "got" that differ
 * from "want" by more than tol * (1 + the larger of |want| and "mag"'s
 * element, the sum of the magnitudes of its terms); the worst in *where
 * (-1 when none). */
static int64_t count_beyond_sum_bound(const stir_array *got,
	const stir_array *want, const stir_array *mag, double tol, int64_t *where)
{
	int64_t bad = 0;
	double far = 0;
	*where = -1;
	for (int64_t j = 0; j < stir_array_get_len(want); j++) {
		double x = stir_array_get_double(got, j);
		double y = stir_array_get_double(want, j);
		double m = fmax(fabs(y), stir_array_get_double(mag, j));
		double d = isnan(x) != isnan(y) ? INFINITY : fabs(x - y);
		if (d > tol * (1 + m) || isnan(m)) {
			if (bad == 0 || d > far)
				*where = j;
			far = fmax(far, d);
			bad++;
		}
	}
	return bad;
}

/* k, by, got, want, in, what, worst: compare every tensor of k in the
 * two bindings, "got" computed by kernel "by" (a form of k) from inputs
 * "in" (NULL: unknown); *worst receives the largest absolute difference.
 * A tensor that differs beyond the tolerance of its type as "by" computes
 * it (stir_kernel_get_tolerance) relative to each element is compared
 * again, when k is a sum of products and "in" is known, with the
 * tolerance relative to the sum of the magnitudes of each element's terms
 * (stir_kernel_interpret_magnitudes: a float sum's rounding scales with
 * it, and where terms cancel it is far larger than the result).  Each
 * tensor beyond that too is reported on stderr, saying what "want" came
 * from.  Returns the number of such tensors. */
int compare_outputs(stir_kernel *k, const stir_kernel *by,
	stir_bindings *got, stir_bindings *want, const stir_bindings *in,
	const char *what, double *worst)
{
	int bad = 0, mag_rc = 1;
	stir_bindings *mag = NULL;
	*worst = 0;
	for (int i = 0; i < stir_kernel_n_buffers(k); i++) {
		stir_buffer *buf = stir_kernel_get_buffer(k, i);
		if (stir_buffer_get_kind(buf) != STIR_BUFFER_TENSOR)
			continue;
		const char *name = stir_buffer_get_array_name(buf);
		stir_array *a = stir_bindings_get_array(got, name);
		stir_array *r = stir_bindings_get_array(want, name);
		int64_t where;
		double far;
		double tol = stir_kernel_get_tolerance(by, stir_array_get_dtype(r));
		stir_array_compare_within(a, r, tol, &where, &far);
		*worst = fmax(*worst, far);
		if (where >= 0 && in && stir_dtype_is_float(stir_array_get_dtype(r))) {
			if (!mag && (mag = stir_bindings_copy(in)))
				mag_rc = stir_kernel_interpret_magnitudes(k, mag);
			stir_array *m = mag_rc == 0 ? stir_bindings_get_array(mag,
				name) : NULL;
			if (m && stir_array_get_len(m) == stir_array_get_len(r) &&
			    count_beyond_sum_bound(a, r, m, tol, &where) == 0)
				printf("check: %s is within the float-sum bound of %s "
					"(max |diff| %g: its terms cancel; tolerance %g "
					"relative to the sum of their magnitudes)\n", name,
					what, far, tol);
		}
		if (where >= 0) {
			fprintf(stderr, "stirc: mismatch: %s[%" PRId64 "] is %.9g, %s "
				"gives %.9g\n", name, where,
				stir_array_get_double(a, where), what,
				stir_array_get_double(r, where));
			bad++;
		}
	}
	stir_bindings_free(mag);
	return bad;
}

/* k, b, o: write every --out array. */
static int write_outputs(stir_ctx *ctx, stir_kernel *k, stir_bindings *b,
	const options *o)
{
	for (int i = 0; i < o->n_out; i++) {
		stir_array *a = stir_bindings_get_array(b, o->out[i].name);
		if (!a) {
			fprintf(stderr, "stirc: --out: kernel '%s' has no array '%s'\n",
				stir_kernel_get_name(k), o->out[i].name);
			return -2;
		}
		int ndim;
		int64_t shape[STIR_MAX_DIMS];
		if (stir_kernel_get_array_shape(k, b, o->out[i].name, &ndim, shape) < 0 ||
		    stir_array_reshape(a, ndim, shape) < 0 ||
		    stir_npy_write(ctx, o->out[i].value, a) < 0)
			return -1;
	}
	return 0;
}

/* k, b: print a line per tensor: its type, shape and a checksum. */
static void print_summary(stir_kernel *k, stir_bindings *b)
{
	for (int i = 0; i < stir_kernel_n_buffers(k); i++) {
		stir_buffer *buf = stir_kernel_get_buffer(k, i);
		if (stir_buffer_get_kind(buf) != STIR_BUFFER_TENSOR)
			continue;
		const char *name = stir_buffer_get_array_name(buf);
		stir_array *a = stir_bindings_get_array(b, name);
		int ndim;
		int64_t shape[STIR_MAX_DIMS];
		if (stir_kernel_get_array_shape(k, b, name, &ndim, shape) < 0)
			continue;
		double sum = 0, amax = 0;
		for (int64_t j = 0; j < stir_array_get_len(a); j++) {
			double x = stir_array_get_double(a, j);
			sum += x;
			amax = fmax(amax, fabs(x));
		}
		printf("%s: %s[", name, stir_dtype_get_name(stir_buffer_get_dtype(buf)));
		for (int d = 0; d < ndim; d++)
			printf("%s%" PRId64, d ? ", " : "", shape[d]);
		printf("] sum %.6g max|x| %.6g\n", sum, amax);
	}
}

/* ms, k: the kernel of module ms named like k. */
stir_kernel *same_kernel(const stir_module *ms, const stir_kernel *k)
{
	return stir_module_find_kernel(ms, stir_kernel_get_name(k));
}

/* o: is the GPU the backend? */
bool use_cuda(const options *o)
{
	return !strcmp(o->backend, "cuda");
}

/* k, o, s, dev: bring kernel k (a copy the caller may change) to stage
 * III for the GPU, under schedule s when not NULL, and compile it for dev,
 * or for --arch.  NULL on failure. */
stir_gpu_kernel *compile_for_gpu(stir_kernel *k, const options *o,
	const stir_schedule *s, stir_device *dev)
{
	if ((s ? stir_schedule_prepare_for_gpu(s, k) :
	    stir_kernel_prepare_for_gpu(k)) < 0)
		return NULL;
	stir_compile_options co = { .arch = o->arch, .device = dev,
		.min_blocks_per_sm = o->min_blocks };
	return stir_gpu_kernel_compile(k, &co);
}

/* t0: milliseconds since t0. */
double elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) * 1e-6;
}

/* gk, dev, b, o, t: run gk on dev with the arrays of b and download the
 * result into b; with --time, first time it as a benchmark does
 * (stir_gpu_run_time: o's warm-ups and repetitions, *t), then upload b
 * again for the run whose result counts, since the timed runs may have
 * changed what the kernel reads.  0, or -1 with diagnostics. */
static int run_on_gpu(const stir_gpu_kernel *gk, stir_device *dev,
	stir_bindings *b, const options *o, stir_gpu_timing *t)
{
	stir_gpu_run *r = stir_gpu_run_alloc(gk, dev);
	int rc = r && stir_gpu_run_upload(r, b) == 0 ? 0 : -1;
	if (rc == 0 && o->time)
		rc = stir_gpu_run_time(r, o->warmups, o->reps, t) < 0 ||
			stir_gpu_run_upload(r, b) < 0 ? -1 : 0;
	if (rc == 0)
		rc = stir_gpu_run_launch(r, 0);
	if (rc == 0)
		rc = stir_gpu_run_download(r, b);
	stir_gpu_run_free(r);
	return rc;
}

/* argc, argv: stirc run.  Inputs are bound to the kernel as written in the
 * file; a second copy, lowered to the stage asked for (or prepared for the
 * GPU), runs on them. */
int cmd_run(int argc, char **argv)
{
	static const int allowed[] = { OPT_KERNEL, OPT_STAGE, OPT_SCHEDULE,
		OPT_BACKEND, OPT_SIZE, OPT_MTX, OPT_HETERO, OPT_IN, OPT_RANDOM, OPT_OUT,
		OPT_CHECK, OPT_TIME, OPT_ARCH, OPT_MIN_BLOCKS, OPT_WARMUPS, OPT_REPS,
		OPT_TUNE, OPT_BUDGET_S, 0 };
	options o;
	int rc = parse_options("run", usage_run, argc, argv, allowed, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	bool cuda = use_cuda(&o);
	if (cuda && o.stage)
		return usage_error("run ", "%s", "--stage applies to --backend "
			"interp only");
	if ((o.arch || o.min_blocks) && !cuda)
		return usage_error("run ", "%s", "--arch and --min-blocks apply to "
			"--backend cuda only");
	if (o.timing_set && !(cuda && o.time))
		return usage_error("run ", "%s", "--warmups and --reps apply to "
			"--time with --backend cuda only");
	if (o.tune && (o.schedule || o.stage))
		return usage_error("run ", "%s", "--tune chooses the schedule: "
			"not with --schedule or --stage");
	if (o.budget_s > 0 && !(cuda && o.tune))
		return usage_error("run ", "%s", "--budget-s applies to --tune "
			"with --backend cuda only");
	stir_ctx *ctx = stir_ctx_alloc();
	stir_module *src = read_at_stage(ctx, &o, 0, &rc), *m = NULL;
	stir_kernel *k = NULL, *kr = NULL;
	stir_bindings *b = stir_bindings_alloc(), *ref = NULL,
		*in = NULL;
	stir_device *dev = NULL;
	stir_gpu_kernel *gk = NULL;
	stir_schedule *s = NULL;
	if (rc == 0)
		rc = o.schedule ? load_schedule(ctx, &o, src, &s, &k) :
			select_kernel(src, &o, true, &k);
	if (rc == 0 && (cuda || o.tune) && !s)
		rc = tuned_schedule(ctx, &o, src, &s, &k);
	/* a schedule lowers its kernel itself, between its sections */
	if (rc == 0)
		m = read_at_stage(ctx, &o, s ? 0 : o.stage ? o.stage :
			module_stage(src), &rc);
	if (rc)
		goto out;
	if ((rc = check_names(ctx, k, &o, "run ")))
		goto out;
	kr = same_kernel(m, k);
	if (s && !cuda && stir_schedule_apply(s, kr, schedule_stage(&o, s,
	    kr)) < 0) {
		rc = EXIT_WRONG;
		goto out;
	}
	if (o.check && !cuda && stir_kernel_get_stage(k) != STIR_STAGE_1) {
		fprintf(stderr, "stirc: --check needs a stage I program\n");
		rc = EXIT_USAGE;
		goto out;
	}
	/* the inputs are checked against the kernel as FILE writes it, with
	 * its axes (a stage III kernel has lost them: its checks cover the
	 * domains alone), before anything runs or is compiled: both
	 * backends validate alike */
	struct timespec t_in;
	clock_gettime(CLOCK_MONOTONIC, &t_in);
	int r = bind_inputs(ctx, k, b, &o, s);
	double inputs_ms = elapsed_ms(&t_in);
	if (r == 0 && stir_kernel_verify_bindings(k, b) < 0)
		r = -1;
	if (r < 0) {
		rc = r == -2 ? EXIT_USAGE : EXIT_WRONG;
		goto out;
	}
	if (cuda && (!(dev = stir_device_alloc(ctx, 0)) ||
	    !(gk = compile_for_gpu(kr, &o, s, dev)))) {
		rc = EXIT_WRONG;
		goto out;
	}
	if (stir_kernel_verify_bindings(kr, b) < 0) {
		rc = EXIT_WRONG;
		goto out;
	}
	if (o.check && cuda)
		stir_cuda_plan_poison_outputs(stir_gpu_kernel_get_plan(gk), b);
	if (o.check && (!(ref = stir_bindings_copy(b)) ||
	    !(in = stir_bindings_copy(b)))) {
		rc = EXIT_WRONG;
		goto out;
	}
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	stir_gpu_timing t;
	if (cuda ? run_on_gpu(gk, dev, b, &o, &t) < 0 :
	    stir_kernel_interpret(kr, b) < 0) {
		rc = EXIT_WRONG;
		goto out;
	}
	if (o.time && cuda)
		printf("time: %.4f ms, the median of %d run%s after %d warm-up%s, "
			"the L2 cache flushed before each (min %.4f, max %.4f; %s; "
			"code %s)\n", t.median_ms, t.reps, t.reps == 1 ? "" : "s",
			t.warmups, t.warmups == 1 ? "" : "s", t.min_ms, t.max_ms,
			stir_device_get_name(dev),
			stir_gpu_code_is_from_cache(stir_gpu_kernel_get_code(gk)) ?
			"from the cache" : "compiled by NVRTC");
	else if (o.time)
		printf("time: %.3f ms (interp, stage %d)\n", elapsed_ms(&t0),
			(int)stir_kernel_get_stage(kr));
	if (o.time)
		printf("inputs: read, generated and formats built on the host in "
			"%.1f ms\n", inputs_ms);
	if (ref) {
		double worst;
		char what[64];
		snprintf(what, sizeof(what), "the stage %s interpreter",
			stir_kernel_get_stage(k) == STIR_STAGE_1 ? "I" :
			stir_kernel_get_stage(k) == STIR_STAGE_2 ? "II" : "III");
		if (stir_kernel_interpret(k, ref) < 0 ||
		    compare_outputs(k, kr, b, ref, in, what, &worst)) {
			rc = EXIT_WRONG;
			goto out;
		}
		printf("check: %s matches %s (max |diff| %g)\n",
			stir_kernel_get_name(k), what, worst);
	}
	r = write_outputs(ctx, k, b, &o);
	if (r < 0)
		rc = r == -2 ? EXIT_USAGE : EXIT_WRONG;
	else if (o.n_out == 0)
		print_summary(k, b);
out:
	rc = finish(ctx, rc);
	stir_gpu_kernel_free(gk);
	stir_device_free(dev);
	stir_schedule_free(s);
	stir_bindings_free(ref);
	stir_bindings_free(in);
	stir_bindings_free(b);
	stir_module_free(m);
	stir_module_free(src);
	stir_ctx_free(ctx);
	return rc;
}
