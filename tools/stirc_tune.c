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

/* The programs the tuner knows, for the messages of a kernel no recipe
 * covers. */
#define TUNE_KNOWS "the tuner knows csrmm of examples/csrmm.stir, sddmm of " \
	"examples/sddmm.stir, sddmm_rows of examples/sddmm_rows.stir, " \
	"sddmm_vb of examples/sddmm_vb4.stir, sddmm_vb_csr of " \
	"examples/sddmm_vb4_csr.stir, sddmm_tiles_csr of " \
	"examples/sddmm_tiles_csr.stir, bsrmm of examples/bsrmm.stir (or " \
	"bench/bsrmm32.stir, bsrmm64.stir), and with --hetero rgms_agg of " \
	"examples/rgms_agg.stir and rgms_edge of examples/rgms_edge.stir"

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

/* What stirc run tunes for: --mtx's matrix or --hetero's relational
 * graph (the other NULL), bound to tensor "name". */
typedef struct run_graph {
	stir_csr *a;
	stir_hetero *h;
	const char *name;
} run_graph;

/* file, k, g, feat, dev, key: the tuning record's key of kernel k
 * of program "file" with g's matrix or graph at "feat" features
 * (stir_kernel_get_tune_key, _hetero): on GPU dev, or when NULL the cost
 * model's.  0, or -1 (said on stderr) when "file" cannot be read. */
static int tune_key(const char *file, const stir_kernel *k,
	const run_graph *g, int64_t feat, stir_device *dev,
	stir_tune_entry *key)
{
	char *text = file_text(file);
	stir_tune_options opt = { .feat = feat, .program_text = text };
	int rc = !text ? -1 : g->h ? stir_kernel_get_tune_key_hetero(k, g->h,
		&opt, dev, key) : stir_kernel_get_tune_key(k, g->a, &opt, dev,
		key);
	free(text);
	return rc;
}

/* ctx, o, k, g, feat, cand, how, len: the schedule file of stirc run
 * without --schedule for stage I kernel k (a recipe covers it) with g's
 * matrix or graph at feat features, a heap string of *len bytes, its
 * candidate in *cand and where it came from in how[160]: with --tune,
 * stir_tune's (with cuda the measured search, else the model's pick,
 * through the record); else the record's entry for this GPU's measured
 * search or the model's, else the model's pick (f32: rgms_agg's recipe
 * without tf32).  NULL with diagnostics. */
static char *run_schedule_text(stir_ctx *ctx, const options *o,
	const stir_kernel *k, const run_graph *g, int64_t feat, int *cand,
	char how[160], size_t *len)
{
	char *text = NULL;
	const char *pick = stir_tune_recipe_is_model_ranked(
		stir_kernel_get_tune_recipe(k)) ? "the cost model's pick" :
		"the recipe's rules' pick";
	if (o->tune) {
		char *prog = file_text(o->file);
		stir_tune_options opt = { .feat = feat, .model_only = !use_cuda(o),
			.budget_s = o->budget_s, .program_text = prog,
			.program_file = o->file, .matrix_name = g->name };
		stir_tune_result r;
		if (prog && (g->h ? stir_tune_hetero(ctx, k, g->h, &opt, &r) :
		    stir_tune(ctx, k, g->a, &opt, &r)) == 0) {
			tune_report("run", &r, opt.model_only, opt.budget_s > 0 ?
				opt.budget_s : STIR_TUNE_BUDGET_S);
			text = r.schedule;
			*len = r.schedule_len;
			r.schedule = NULL;
			*cand = r.cand;
			if (r.from == STIR_TUNE_FROM_RECORD)
				snprintf(how, 160, "from the tuning record, %s",
					r.time_ms >= 0 ? "measured" : pick);
			else if (r.from == STIR_TUNE_FROM_SEARCH)
				snprintf(how, 160, "tuned: the fastest of %d measured, "
					"%.4f ms", r.n_timed, r.time_ms);
			else
				snprintf(how, 160, "tuned: %s", pick);
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
	if (dev && tune_key(o->file, k, g, feat, dev, &key) == 0)
		hit = stir_tune_record_find(ctx, NULL, &key, 0, &e) == 1;
	if (!hit && tune_key(o->file, k, g, feat, NULL, &key) == 0)
		hit = stir_tune_record_find(ctx, NULL, &key, 0, &e) == 1;
	stir_device_free(dev);
	stir_ctx_free(dctx);
	stir_module *cm = NULL;
	stir_kernel *c = stir_kernel_copy(k, &cm);
	*cand = hit ? e.cand : -1;
	if (c && (hit ? stir_tune_apply_candidate(c, feat, *cand) : g->h ?
	    stir_tune_model_apply_hetero(c, g->h, feat, false, cand, NULL) :
	    stir_tune_model_apply(c, g->a, feat, 0, cand, NULL)) == 0)
		text = stir_kernel_schedule_to_str(c, len);
	stir_module_free(cm);
	if (hit && e.time_ms >= 0)
		snprintf(how, 160, "from the tuning record, measured %.4f ms on "
			"%s", e.time_ms, e.device);
	else
		snprintf(how, 160, "%s%s", hit ? "from the tuning record, " : "",
			pick);
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

/* ctx, o, m, s, k: for --backend cuda without --schedule, or --tune,
 * when a recipe covers kernel *k of m and --mtx and --size feat=F give
 * its matrix and features (for RGMS: --hetero, and --size fin=F and
 * fout=F that its recipe takes): the schedule run_schedule_text chooses
 * into *s, with *k its kernel of m; what was taken is said on stderr.  0
 * (nothing done for a kernel no recipe covers, without --tune), or
 * EXIT_WRONG with diagnostics (EXIT_USAGE when --tune lacks the graph or
 * the sizes). */
int tuned_schedule(stir_ctx *ctx, const options *o,
	const stir_module *m, stir_schedule **s, stir_kernel **k)
{
	stir_tune_recipe recipe = stir_kernel_get_tune_recipe(*k);
	bool covered = recipe != STIR_TUNE_NONE;
	bool hetero = stir_tune_recipe_is_hetero(recipe);
	int64_t fin = size_value(o, "fin");
	int64_t feat = !hetero ? size_value(o, "feat") :
		fin == size_value(o, "fout") ? fin : -1;
	int order[16];
	bool sized = feat >= 1 && (!hetero ||
		stir_rgms_rank(recipe, NULL, feat, order, NULL) > 0);
	int n_in = hetero ? o->n_hetero : o->n_mtx;
	if (o->tune && (n_in != 1 || !sized))
		return usage_error("run ", "%s", hetero ? "--tune needs the "
			"relational graph (--hetero, once) and --size fin=F --size "
			"fout=F, the same F, a multiple of 4 from 16 to 128" :
			"--tune needs the matrix (--mtx, once) and --size feat=F");
	if (o->tune && !covered) {
		fprintf(stderr, "stirc run: --tune: no recipe covers kernel '%s' "
			"(%s)\n", stir_kernel_get_name(*k), TUNE_KNOWS);
		return EXIT_WRONG;
	}
	if (!covered || n_in != 1 || !sized)
		return 0;
	run_graph g = { .name = hetero ? o->hetero[0].name : o->mtx[0].name };
	const char *file = hetero ? o->hetero[0].value : o->mtx[0].value;
	if (hetero)
		g.h = stir_hetero_read_from_file(ctx, file);
	else
		g.a = stir_kernel_read_csr_from_file(*k, g.name, file);
	if (!g.a && !g.h) {
		note_option(ctx, hetero ? "--hetero" : "--mtx", hetero ?
			&o->hetero[0] : &o->mtx[0]);
		return EXIT_WRONG;
	}
	const char *name = stir_kernel_get_name(*k);
	char how[160];
	int cand = -1;
	size_t len = 0;
	char *text = run_schedule_text(ctx, o, *k, &g, feat, &cand, how, &len);
	int rc = take_schedule(ctx, text, len, "(tuned schedule)", m, s, k);
	if (rc == 0)
		fprintf(stderr, "stirc run: kernel %s at %lld features under the "
			"recipe's candidate %d (%s; %s)\n", name, (long long)feat,
			cand, how, o->tune ? "'stirc tune --list' shows the record" :
			hetero ? "'stirc tune' measures, --tf32 there adds tensor "
			"cores, --schedule chooses another" : "'stirc tune' "
			"measures, --schedule chooses another");
	free(text);
	stir_csr_free(g.a);
	stir_hetero_free(g.h);
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
	bool model_only = false, list = false, no_record = false, tf32 = false;
	bool hetero = false;
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
		} else if (!strcmp(a, "--tf32")) {
			tf32 = true;
		} else if (!strcmp(a, "--mtx") || !strcmp(a, "--hetero") ||
			   !strcmp(a, "--size") ||
			   !strcmp(a, "--kernel") || !strcmp(a, "--sms") ||
			   !strcmp(a, "--budget-s") || !strcmp(a, "--top") ||
			   !strcmp(a, "-o")) {
			if (!has)
				return usage_error("tune ", "%s needs a value", a);
			const char *v = argv[++i];
			char *end;
			if (!strcmp(a, "--mtx") || !strcmp(a, "--hetero")) {
				const char *eq = strchr(v, '=');
				if (mtx)
					return usage_error("tune ", "%s", "give one of --mtx "
						"and --hetero, once");
				if (!eq || eq == v || !eq[1] ||
				    eq - v >= (ptrdiff_t)sizeof(mname))
					return usage_error("tune ", "%s takes NAME=FILE, not "
						"'%s'", a, v);
				mtx = eq + 1;
				hetero = !strcmp(a, "--hetero");
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
				"--mtx, --hetero or --size");
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
		return usage_error("tune ", "%s", "--mtx NAME=FILE (or --hetero "
			"NAME=FILE) and --size feat=F are required");
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
	stir_tune_recipe recipe = rc == 0 ? stir_kernel_get_tune_recipe(k) :
		STIR_TUNE_NONE;
	if (rc == 0 && recipe == STIR_TUNE_NONE) {
		fprintf(stderr, "stirc tune: %s: no recipe covers kernel '%s' "
			"(%s)\n", file, stir_kernel_get_name(k), TUNE_KNOWS);
		rc = EXIT_WRONG;
	} else if (rc == 0 && stir_tune_recipe_is_hetero(recipe) != hetero) {
		fprintf(stderr, "stirc tune: %s: kernel '%s' takes %s, not %s\n",
			file, stir_kernel_get_name(k), hetero ? "a matrix (--mtx)" :
			"a relational graph (--hetero)", hetero ? "--hetero" :
			"--mtx");
		rc = EXIT_USAGE;
	} else if (rc == 0 && tf32 && recipe != STIR_TUNE_RGMS) {
		fprintf(stderr, "stirc tune: %s: --tf32: the recipe of kernel '%s' "
			"has no tf32 candidates (rgms_agg's has)\n", file,
			stir_kernel_get_name(k));
		rc = EXIT_USAGE;
	}
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	stir_hetero *h = NULL;
	if (rc == 0 && hetero)
		h = stir_hetero_read_from_file(ctx, mtx);
	else if (rc == 0)
		a = stir_mtx_read_from_file(ctx, mtx);
	if (rc == 0 && !a && !h)
		rc = EXIT_WRONG;
	double read_s = elapsed_ms(&t0) * 1e-3;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char *text = rc == 0 ? file_text(file) : NULL;
	if (rc == 0 && !text)
		rc = EXIT_WRONG;
	stir_tune_options opt = { .feat = feat, .model_only = model_only,
		.no_record = no_record, .tf32 = tf32, .budget_s = budget_s,
		.top = (int)top, .sms = (int)sms, .program_text = text,
		.program_file = file, .matrix_name = mname };
	stir_tune_result r = { 0 };
	if (rc == 0 && (h ? stir_tune_hetero(ctx, k, h, &opt, &r) :
	    stir_tune(ctx, k, a, &opt, &r)) < 0)
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
			char how[64], cost[48];
			if (r.time_ms >= 0)
				snprintf(how, sizeof(how), "the fastest measured, %.4f "
					"ms", r.time_ms);
			else
				snprintf(how, sizeof(how), "not measured");
			/* rules rank RGMS and BSR; their cost is the place */
			bool model = stir_tune_recipe_is_model_ranked(recipe);
			if (!model)
				snprintf(cost, sizeof(cost), "place %.0f in the rules' "
					"order", r.cost);
			else
				snprintf(cost, sizeof(cost), "cost %.4g", r.cost);
			fprintf(stderr, "stirc tune: kernel %s at %lld features: "
				"candidate %d, %s%s (%s; %s; %.2f s, the %s read in "
				"%.2f s)%s%s\n",
				stir_kernel_get_name(k), (long long)feat, r.cand,
				r.from == STIR_TUNE_FROM_RECORD ?
				"from the tuning record: " : "",
				r.time_ms >= 0 ? "measured" : model ?
				"the cost model's pick" : "the rules' pick", cost, how,
				elapsed_ms(&t0) * 1e-3, h ? "graph" : "matrix", read_s,
				out ? ", written to " : "", out ? out : "");
			if (a)
				sddmm_other_program(k, a, feat, (int)sms);
		}
	}
	stir_tune_result_clear(&r);
	rc = finish(ctx, rc);
	stir_csr_free(a);
	stir_hetero_free(h);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}
