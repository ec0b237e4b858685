/* stirc tune (docs/recipes.md, "The tuner"), and the schedule stirc run
 * takes from the tuner or its record without --schedule. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stir/stir.h>
#include <stir/recipes.h>
#include "config.h"
#include "tools/stirc_cmd.h"

/* file: the text of the file at "file", a heap string; NULL (said on
 * stderr) when it cannot be read. */
static char *file_text(const char *file)
{
	char *text = NULL;
	size_t tlen = 0;
	FILE *pf = fopen(file, "r");
	FILE *mf = pf ? open_memstream(&text, &tlen) : NULL;
	int ch;
	while (mf && (ch = getc(pf)) != EOF)
		putc(ch, mf);
	if (pf)
		fclose(pf);
	if (!mf || fclose(mf) != 0) {
		fprintf(stderr, "stirc: %s: cannot read\n", file);
		free(text);
		return NULL;
	}
	return text;
}

/* file, k, a, feat, dev, sms, key: the tuning record's key of kernel k
 * of program "file" with matrix "a" at "feat" features
 * (stir_kernel_get_tune_key): on GPU dev, or when NULL the cost model's
 * on "sms" SMs (< 1: 132).  0, or -1 (said on stderr) when "file" cannot
 * be read. */
static int tune_key(const char *file, const stir_kernel *k, const stir_csr *a,
	int64_t feat, stir_device *dev, long sms, stir_tune_entry *key)
{
	char *text = file_text(file);
	stir_tune_options opt = { .feat = feat, .sms = (int)sms,
		.program_text = text };
	int rc = text ? stir_kernel_get_tune_key(k, a, &opt, dev, key) : -1;
	free(text);
	return rc;
}

/* ctx, o, k, a, feat, cand, how, len: the schedule file of stirc run
 * without --schedule for stage I kernel k (a recipe covers it) with
 * matrix a at feat features, a heap string of *len bytes, its candidate
 * in *cand and where it came from in how[160]: with --tune, stir_tune's
 * (with cuda the measured search, else the model's pick, through the
 * record); else the record's entry for this GPU's measured search or the
 * model's, else the model's pick.  NULL with diagnostics. */
static char *run_schedule_text(stir_ctx *ctx, const options *o,
	const stir_kernel *k, const stir_csr *a, int64_t feat, int *cand,
	char how[160], size_t *len)
{
	char *text = NULL;
	if (o->tune) {
		char *prog = file_text(o->file);
		stir_tune_options opt = { .feat = feat, .model_only = !use_cuda(o),
			.budget_s = o->budget_s, .program_text = prog,
			.program_file = o->file,
			.matrix_name = o->mtx[0].name };
		stir_tune_result r;
		if (prog && stir_tune(ctx, k, a, &opt, &r) == 0) {
			tune_report("run", &r, opt.model_only, opt.budget_s > 0 ?
				opt.budget_s : STIR_TUNE_BUDGET_S);
			text = r.schedule;
			*len = r.schedule_len;
			r.schedule = NULL;
			*cand = r.cand;
			if (r.from == STIR_TUNE_FROM_RECORD)
				snprintf(how, 160, "from the tuning record, %s",
					r.time_ms >= 0 ? "measured" : "the cost model's pick");
			else if (r.from == STIR_TUNE_FROM_SEARCH)
				snprintf(how, 160, "tuned: the fastest of %d measured, "
					"%.4f ms", r.n_timed, r.time_ms);
			else
				snprintf(how, 160, "tuned: the cost model's pick");
			stir_tune_result_clear(&r);
		}
		free(prog);
		return text;
	}
	/* the GPU's name, for its entries; its diagnostics (none there)
	 * are cmd_run's to give */
	stir_ctx *dctx = stir_ctx_alloc();
	stir_device *dev = dctx ? stir_device_alloc(dctx, 0) : NULL;
	stir_tune_entry key, e;
	int hit = 0;
	if (dev && tune_key(o->file, k, a, feat, dev, 0, &key) == 0)
		hit = stir_tune_record_find(ctx, NULL, &key, 0, &e) == 1;
	if (!hit && tune_key(o->file, k, a, feat, NULL, 0, &key) == 0)
		hit = stir_tune_record_find(ctx, NULL, &key, 0, &e) == 1;
	stir_device_free(dev);
	stir_ctx_free(dctx);
	stir_module *cm = NULL;
	stir_kernel *c = stir_kernel_copy(k, &cm);
	*cand = hit ? e.cand : -1;
	if (c && (hit ? stir_tune_apply_candidate(c, feat, *cand) :
	    stir_tune_model_apply(c, a, feat, 0, cand, NULL)) == 0)
		text = stir_kernel_schedule_to_str(c, len);
	stir_module_free(cm);
	if (hit && e.time_ms >= 0)
		snprintf(how, 160, "from the tuning record, measured %.4f ms on "
			"%s", e.time_ms, e.device);
	else
		snprintf(how, 160, "%sthe cost model's pick", hit ? "from the "
			"tuning record, " : "");
	return text;
}

/* o, name: the value --size gives "name", or -1. */
static int64_t size_value(const options *o, const char *name)
{
	int64_t v = -1;
	for (int i = 0; i < o->n_sizes; i++)
		if (!strcmp(o->sizes[i].name, name))
			parse_int(o->sizes[i].value, &v);
	return v;
}

/* ctx, text, len, what, m, s, k: schedule file text (len bytes, named
 * "what" in its diagnostics) read into *s, with *k its kernel of m.  0,
 * or EXIT_WRONG with diagnostics (also for a NULL text). */
static int take_schedule(stir_ctx *ctx, const char *text, size_t len,
	const char *what, const stir_module *m, stir_schedule **s,
	stir_kernel **k)
{
	return text && (*s = stir_schedule_read_from_mem(ctx, what, text,
		len)) && (*k = stir_schedule_find_kernel(*s, m)) ? 0 : EXIT_WRONG;
}

/* ctx, o, m, s, k: for --backend cuda without --schedule, when *k is
 * rgms_agg (examples/rgms_agg.stir) or rgms_edge (examples/rgms_edge.stir)
 * with --hetero and fin = fout = F sizes a CUDA-core RGMS recipe takes:
 * that recipe's candidate of 4 edges a thread (f32; within 6% (rgms) and
 * 22% (rgms_edge) of its recipe's fastest candidate on AIFB, MUTAG, BGS
 * and AM at 16 to 128 features, bench/RESULTS.md "RGMS through the
 * library's three recipes") into *s, with *k its kernel of m, said on
 * stderr.  0 (nothing done for other kernels or sizes), or EXIT_WRONG
 * with diagnostics (the recipe refuses a kernel of that name). */
static int rgms_schedule(stir_ctx *ctx, const options *o,
	const stir_module *m, stir_schedule **s, stir_kernel **k)
{
	const char *name = stir_kernel_get_name(*k);
	bool agg = !strcmp(name, "rgms_agg");
	int64_t f = size_value(o, "fin");
	const stir_rgms_candidate *pa = stir_rgms_get_candidate(0);
	const stir_rgms_edge_candidate *pe = stir_rgms_edge_get_candidate(1);
	if ((!agg && strcmp(name, "rgms_edge")) || o->n_hetero != 1 ||
	    f != size_value(o, "fout") || !(agg ? stir_rgms_fits(pa, f) :
	    stir_rgms_edge_fits(pe, f)))
		return 0;
	stir_module *cm = NULL;
	stir_kernel *c = stir_kernel_copy(*k, &cm);
	char *text = NULL;
	size_t len = 0;
	if (c) {
		stir_kernel_set_schedule_log(c, true);
		if ((agg ? stir_recipe_rgms_candidate(c, pa, f) :
		     stir_recipe_rgms_edge_candidate(c, pe, f)) == 0)
			text = stir_kernel_schedule_to_str(c, &len);
	}
	stir_module_free(cm);
	int rc = take_schedule(ctx, text, len, "(recipe schedule)", m, s, k);
	free(text);
	if (rc == 0)
		fprintf(stderr, "stirc run: kernel %s at %lld features under the "
			"%s recipe's candidate %d (4 edges a thread, f32 on CUDA "
			"cores; 'stirc recipe' writes the others and the "
			"tensor-core rgms_tc, --schedule chooses another)\n", name,
			(long long)f, agg ? "rgms" : "rgms_edge", agg ? 0 : 1);
	return rc;
}

/* ctx, o, m, s, k: for --backend cuda without --schedule, or --tune,
 * when a recipe covers kernel *k of m and --mtx and --size feat=F give
 * its matrix and features: the schedule run_schedule_text chooses into
 * *s, with *k its kernel of m; what was taken is said on stderr.  0
 * (nothing done for a kernel no recipe covers, without --tune), or
 * EXIT_WRONG with diagnostics (EXIT_USAGE when --tune lacks --mtx or
 * --size feat=F). */
int tuned_schedule(stir_ctx *ctx, const options *o,
	const stir_module *m, stir_schedule **s, stir_kernel **k)
{
	int64_t feat = size_value(o, "feat");
	if (!o->tune) {
		int rc = rgms_schedule(ctx, o, m, s, k);
		if (rc || *s)
			return rc;
	}
	bool covered = stir_kernel_get_tune_recipe(*k) != STIR_TUNE_NONE;
	if (o->tune && (o->n_mtx != 1 || feat < 1))
		return usage_error("run ", "%s", "--tune needs the matrix "
			"(--mtx, once) and --size feat=F");
	if (o->tune && !covered) {
		fprintf(stderr, "stirc run: --tune: no recipe covers kernel '%s' "
			"(the tuner knows csrmm of examples/csrmm.stir, sddmm of "
			"examples/sddmm.stir, sddmm_rows of examples/sddmm_rows.stir, "
			"sddmm_vb of examples/sddmm_vb4.stir, sddmm_vb_csr of "
			"examples/sddmm_vb4_csr.stir and sddmm_tiles_csr of "
			"examples/sddmm_tiles_csr.stir)\n", stir_kernel_get_name(*k));
		return EXIT_WRONG;
	}
	if (!covered || o->n_mtx != 1 || feat < 1)
		return 0;
	stir_csr *a = stir_kernel_read_csr_from_file(*k, o->mtx[0].name,
		o->mtx[0].value);
	if (!a) {
		note_option(ctx, "--mtx", &o->mtx[0]);
		return EXIT_WRONG;
	}
	const char *name = stir_kernel_get_name(*k);
	char how[160];
	int cand = -1;
	size_t len = 0;
	char *text = run_schedule_text(ctx, o, *k, a, feat, &cand, how, &len);
	int rc = take_schedule(ctx, text, len, "(tuned schedule)", m, s, k);
	if (rc == 0)
		fprintf(stderr, "stirc run: kernel %s at %lld features under the "
			"recipe's candidate %d (%s; %s)\n", name, (long long)feat,
			cand, how, o->tune ? "'stirc tune --list' shows the record" :
			"'stirc tune' measures, --schedule chooses another");
	free(text);
	stir_csr_free(a);
	return rc;
}

/* cmd, r, model_only, budget_s: say on stderr, as "stirc CMD:", how
 * stir_tune's search went (before the line of what it chose). */
void tune_report(const char *cmd, const stir_tune_result *r,
	bool model_only, double budget_s)
{
	if (r->similar && model_only)
		fprintf(stderr, "stirc %s: the record holds a similar graph's "
			"entry (candidate %d, %s); without a GPU the model "
			"decides\n", cmd, r->similar_entry.cand, r->similar_entry.how);
	if (r->from != STIR_TUNE_FROM_SEARCH)
		return;
	if (r->similar)
		fprintf(stderr, "stirc %s: starting from a similar graph's "
			"entry (candidate %d)\n", cmd, r->similar_entry.cand);
	for (int i = 0; i < r->n_timed; i++)
		fprintf(stderr, "stirc %s: candidate %d: %.4f ms\n",
			cmd, r->timed_cand[i], r->timed_ms[i]);
	if (r->n_timed > 0)
		fprintf(stderr, "stirc %s: the times above are medians over "
			"%d interleaved rounds, the screening's for those "
			"dropped (the first round's fastest "
			"candidate %d)\n", cmd, STIR_TUNE_ROUNDS, r->search_cand);
	if (r->n_finalists > 0) {
		fprintf(stderr, "stirc %s: the finalists (within %.0f%% of the "
			"least median), their medians:", cmd,
			(STIR_TUNE_FINALIST_MARGIN - 1) * 100);
		for (int i = 0; i < r->n_finalists; i++)
			fprintf(stderr, "%s %d %.4f ms", i ? "," : "",
				r->finalist_cand[i], r->finalist_ms[i]);
		fprintf(stderr, "\n");
	}
	fprintf(stderr, "stirc %s: the search: %.2f s scheduling %d candidates, "
		"%.2f s compiling (%d by NVRTC), %.2f s timing (%d dropped by "
		"the screening)\n", cmd, r->schedule_s, r->n_compiled,
		r->compile_s, r->n_nvrtc, r->time_s, r->n_dropped);
	if (r->n_timed < r->n_compiled)
		fprintf(stderr, "stirc %s: the budget of %g s ran out after %d "
			"of %d candidates\n", cmd, budget_s, r->n_timed, r->n_compiled);
}

/* k, a, feat, sms: for an SDDMM kernel, say on stderr when the cost model
 * ranks a candidate of the other SDDMM program first for matrix "a" (a
 * program covers only its own candidates: the fused ones sddmm.stir, the
 * row ones sddmm_rows.stir), so that the user tunes that one too. */
static void sddmm_other_program(const stir_kernel *k, const stir_csr *a,
	int64_t feat, int sms)
{
	stir_tune_recipe r = stir_kernel_get_tune_recipe(k);
	if (r != STIR_TUNE_SDDMM && r != STIR_TUNE_SDDMM_ROWS)
		return;
	int n = stir_sddmm_n_candidates();
	int *order = malloc((size_t)n * sizeof(*order));
	double *costs = malloc((size_t)n * sizeof(*costs));
	if (order && costs && stir_sddmm_model_rank(a, feat, sms, order,
	    costs) > 0) {
		const stir_sddmm_candidate *best = stir_sddmm_get_candidate(order[0]);
		int i = 1;
		while (i < n && stir_sddmm_get_candidate(order[i])->rows ==
		       best->rows)
			i++;
		if (best->rows != (r == STIR_TUNE_SDDMM_ROWS) && i < n)
			fprintf(stderr, "stirc tune: note: the cost model ranks the "
				"%s schedule first for this matrix (candidate %d of "
				"examples/%s, cost %.4g; this program's best %.4g): "
				"tune that program too\n", best->rows ? "row" : "fused",
				order[0], best->rows ? "sddmm_rows.stir" : "sddmm.stir",
				costs[0], costs[i]);
	}
	free(order);
	free(costs);
}

/* argc, argv: "stirc tune" and its arguments (argv[0] is "tune"). */
int cmd_tune(int argc, char **argv)
{
	const char *file = NULL, *mtx = NULL, *kname = NULL, *out = NULL;
	char mname[64] = "";
	int64_t feat = -1;
	long sms = 0, top = 0;
	double budget_s = STIR_TUNE_BUDGET_S;
	bool model_only = false, list = false, no_record = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_tune, stdout);
			return 0;
		} else if (!strcmp(a, "--model-only")) {
			model_only = true;
		} else if (!strcmp(a, "--list")) {
			list = true;
		} else if (!strcmp(a, "--no-record")) {
			no_record = true;
		} else if (!strcmp(a, "--mtx") || !strcmp(a, "--size") ||
			   !strcmp(a, "--kernel") || !strcmp(a, "--sms") ||
			   !strcmp(a, "--budget-s") || !strcmp(a, "--top") ||
			   !strcmp(a, "-o")) {
			if (!has)
				return usage_error("tune ", "%s needs a value", a);
			const char *v = argv[++i];
			char *end;
			if (!strcmp(a, "--mtx")) {
				const char *eq = strchr(v, '=');
				if (mtx || !eq || eq == v || !eq[1] ||
				    eq - v >= (ptrdiff_t)sizeof(mname))
					return usage_error("tune ", mtx ? "--mtx is given "
						"twice" : "--mtx takes NAME=FILE, not '%s'", v);
				mtx = eq + 1;
				memcpy(mname, v, (size_t)(eq - v));
			} else if (!strcmp(a, "--size")) {
				errno = 0;
				long long f = strncmp(v, "feat=", 5) ? -1 :
					strtoll(v + 5, &end, 10);
				if (feat >= 0 || f < 1 || errno || *end)
					return usage_error("tune ", feat >= 0 ? "--size is "
						"given twice" : "--size takes feat=F with F >= 1, "
						"not '%s'", v);
				feat = f;
			} else if (!strcmp(a, "--sms")) {
				errno = 0;
				sms = strtol(v, &end, 10);
				if (sms < 1 || sms > 100000 || errno || *end)
					return usage_error("tune ", "--sms takes a count of "
						"SMs, not '%s'", v);
			} else if (!strcmp(a, "--budget-s")) {
				errno = 0;
				budget_s = strtod(v, &end);
				if (!(budget_s > 0 && budget_s <= 86400) || errno || *end)
					return usage_error("tune ", "--budget-s takes seconds "
						"(> 0), not '%s'", v);
			} else if (!strcmp(a, "--top")) {
				errno = 0;
				top = strtol(v, &end, 10);
				if (top < 1 || top > 1000 || errno || *end)
					return usage_error("tune ", "--top takes a count of "
						"candidates (>= 1), not '%s'", v);
			} else if (!strcmp(a, "--kernel")) {
				kname = v;
			} else {
				out = v;
			}
		} else if (a[0] == '-') {
			return usage_error("tune ", "unknown option '%s'", a);
		} else if (file) {
			return usage_error("tune ", "unexpected argument '%s'", a);
		} else {
			file = a;
		}
	}
	if (list) {
		if (file || mtx || feat >= 0)
			return usage_error("tune ", "%s", "--list takes no program, "
				"--mtx or --size");
		stir_ctx *lctx = stir_ctx_alloc();
		int lrc = lctx && stir_tune_record_print(lctx, NULL, stdout) == 0 ?
			0 : EXIT_WRONG;
		if (lctx)
			lrc = finish(lctx, lrc);
		stir_ctx_free(lctx);
		return lrc;
	}
	if (!file)
		return usage_error("tune ", "%s", "no program given");
	if (!mtx || feat < 0)
		return usage_error("tune ", "%s", "--mtx NAME=FILE and --size "
			"feat=F are required");
	stir_ctx *ctx = stir_ctx_alloc();
	if (!ctx)
		return EXIT_WRONG;
	stir_module *m = stir_module_read_from_file(ctx, file);
	stir_kernel *k = NULL;
	stir_csr *a = NULL;
	int rc = m ? 0 : EXIT_WRONG;
	if (rc == 0) {
		options o = { .kernel = kname };
		rc = select_kernel(m, &o, true, &k);
	}
	if (rc == 0 && stir_kernel_get_tune_recipe(k) == STIR_TUNE_NONE) {
		fprintf(stderr, "stirc tune: %s: no recipe covers kernel '%s' "
			"(the tuner knows csrmm of examples/csrmm.stir, sddmm of "
			"examples/sddmm.stir, sddmm_rows of examples/sddmm_rows.stir, "
			"sddmm_vb of examples/sddmm_vb4.stir, sddmm_vb_csr of "
			"examples/sddmm_vb4_csr.stir and sddmm_tiles_csr of "
			"examples/sddmm_tiles_csr.stir)\n", file, stir_kernel_get_name(k));
		rc = EXIT_WRONG;
	}
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (rc == 0 && !(a = stir_mtx_read_from_file(ctx, mtx)))
		rc = EXIT_WRONG;
	double read_s = elapsed_ms(&t0) * 1e-3;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char *text = rc == 0 ? file_text(file) : NULL;
	if (rc == 0 && !text)
		rc = EXIT_WRONG;
	stir_tune_options opt = { .feat = feat, .model_only = model_only,
		.no_record = no_record, .budget_s = budget_s, .top = (int)top,
		.sms = (int)sms, .program_text = text, .program_file = file,
		.matrix_name = mname };
	stir_tune_result r = { 0 };
	if (rc == 0 && stir_tune(ctx, k, a, &opt, &r) < 0)
		rc = EXIT_WRONG;
	free(text);
	if (rc == 0)
		tune_report("tune", &r, model_only, budget_s);
	if (rc == 0) {
		FILE *f = out ? fopen(out, "w") : stdout;
		if (!f || fwrite(r.schedule, 1, r.schedule_len, f) !=
		    r.schedule_len || (out && fclose(f) != 0)) {
			fprintf(stderr, "stirc tune: %s: %s\n", out ? out : "stdout",
				strerror(errno));
			rc = EXIT_WRONG;
		} else {
			char how[64];
			if (r.time_ms >= 0)
				snprintf(how, sizeof(how), "the fastest measured, %.4f "
					"ms", r.time_ms);
			else
				snprintf(how, sizeof(how), "not measured");
			fprintf(stderr, "stirc tune: kernel %s at %lld features: "
				"candidate %d, %s%s (cost %.4g; %s; %.2f s, the "
				"matrix read in %.2f s)%s%s\n",
				stir_kernel_get_name(k), (long long)feat, r.cand,
				r.from == STIR_TUNE_FROM_RECORD ?
				"from the tuning record: " : "",
				r.time_ms >= 0 ? "measured" : "the cost model's pick",
				r.cost, how, elapsed_ms(&t0) * 1e-3, read_s,
				out ? ", written to " : "", out ? out : "");
			sddmm_other_program(k, a, feat, (int)sms);
		}
	}
	stir_tune_result_clear(&r);
	rc = finish(ctx, rc);
	stir_csr_free(a);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}
