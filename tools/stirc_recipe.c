/* stirc recipe (docs/recipes.md, "A recipe as a schedule file"): one
 * candidate of one of the library's recipes applied to a program's
 * kernel, written as the schedule file it is; --list, the recipes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stir/stir.h>
#include <stir/recipes.h>
#include "tools/stirc_cmd.h"

/* k, i, feat: apply candidate i of a recipe (-1: i is not a candidate,
 * with nothing done). */
typedef int (*apply_fn)(stir_kernel *k, int i, int64_t feat);

/* apply_NAME: the apply_fn of recipe NAME, whose candidates are
 * stir_NAME_candidate, got by stir_NAME_get_candidate and applied by
 * stir_recipe_NAME_candidate. */
#define APPLY(NAME) \
	static int apply_##NAME(stir_kernel *k, int i, int64_t feat) \
	{ \
		const stir_##NAME##_candidate *p = stir_##NAME##_get_candidate(i); \
		return p ? stir_recipe_##NAME##_candidate(k, p, feat) : -1; \
	}
APPLY(spmm_hybrid)
APPLY(sddmm)
APPLY(sddmm_vblock)
APPLY(sddmm_tiles)
APPLY(bsr_tc)
APPLY(srbcrs_tc)
APPLY(rgms_tc)
APPLY(rgms)
APPLY(rgms_edge)

/* The recipes, by name: the programs they schedule, their candidates. */
static const struct recipe {
	const char *name, *programs, *what;
	int (*n_candidates)(void);
	apply_fn apply;
	int (*pick)(int64_t nrels, const int64_t *rel_ptr); /* or NULL */
} recipes[] = {
	{ "spmm_hybrid", "csrmm of examples/csrmm.stir",
	  "SpMM on CUDA cores, A in hybrid ELL (the tuner's)",
	  stir_spmm_hybrid_n_candidates, apply_spmm_hybrid, NULL },
	{ "sddmm", "sddmm of examples/sddmm.stir, sddmm_rows of "
	  "examples/sddmm_rows.stir (row candidates)",
	  "SDDMM, fused or by rows (the tuner's)",
	  stir_sddmm_n_candidates, apply_sddmm, NULL },
	{ "sddmm_vblock", "sddmm_vb of examples/sddmm_vb4.stir or "
	  "sddmm_vb8.stir", "SDDMM over groups of rows",
	  stir_sddmm_vblock_n_candidates, apply_sddmm_vblock, NULL },
	{ "sddmm_tiles", "sddmm_tiles_csr of examples/sddmm_tiles_csr.stir",
	  "SDDMM over tensor-core tiles",
	  stir_sddmm_tiles_n_candidates, apply_sddmm_tiles, NULL },
	{ "bsr_tc", "bsrmm of examples/bsrmm.stir (blocks of 16), "
	  "bench/bsrmm32.stir (32) or bench/bsrmm64.stir (64)",
	  "BSR SpMM on tensor cores",
	  stir_bsr_tc_n_candidates, apply_bsr_tc, NULL },
	{ "srbcrs_tc", "csrmm of examples/csrmm.stir",
	  "CSR SpMM through SR-BCRS(16, 8) on tensor cores",
	  stir_srbcrs_tc_n_candidates, apply_srbcrs_tc, NULL },
	{ "rgms_tc", "rgms_agg of examples/rgms_agg.stir (fin = fout = F)",
	  "RGMS (an RGCN layer) on tensor cores",
	  stir_rgms_tc_n_candidates, apply_rgms_tc, stir_rgms_tc_pick },
	{ "rgms", "rgms_agg of examples/rgms_agg.stir (fin = fout = F)",
	  "RGMS (an RGCN layer) on CUDA cores",
	  stir_rgms_n_candidates, apply_rgms, NULL },
	{ "rgms_edge", "rgms_edge of examples/rgms_edge.stir (fin = fout = F)",
	  "RGMS edge by edge on CUDA cores",
	  stir_rgms_edge_n_candidates, apply_rgms_edge, NULL },
};
#define N_RECIPES (int)(sizeof(recipes) / sizeof(recipes[0]))

/* name: the recipe of that name, or NULL. */
static const struct recipe *find_recipe(const char *name)
{
	for (int i = 0; i < N_RECIPES; i++)
		if (!strcmp(recipes[i].name, name))
			return &recipes[i];
	return NULL;
}

/* The recipes, a line each, to stdout. */
static int list_recipes(void)
{
	for (int i = 0; i < N_RECIPES; i++)
		printf("%-13s %3d candidates  %s: %s\n", recipes[i].name,
			recipes[i].n_candidates(), recipes[i].what,
			recipes[i].programs);
	return 0;
}

/* ctx, r, graph, cand: read relational graph "graph" and set *cand to
 * the candidate recipe r's rule picks for it, said on stderr.  0, or
 * EXIT_WRONG (the graph's error in ctx). */
static int pick_candidate(stir_ctx *ctx, const struct recipe *r,
	const char *graph, int64_t *cand)
{
	stir_hetero *h = stir_hetero_read_from_file(ctx, graph);
	if (!h)
		return EXIT_WRONG;
	*cand = r->pick(h->nrels, h->rel_ptr);
	fprintf(stderr, "stirc recipe: %s: %lld relations, %lld (relation, "
		"row) pairs: recipe %s's rule picks candidate %lld\n", graph,
		(long long)h->nrels, (long long)h->nrows, r->name,
		(long long)*cand);
	stir_hetero_free(h);
	return *cand < 0 ? EXIT_WRONG : 0;
}

/* argc, argv: "stirc recipe" and its arguments (argv[0] is "recipe"). */
int cmd_recipe(int argc, char **argv)
{
	const char *file = NULL, *name = NULL, *kname = NULL, *out = NULL;
	const char *graph = NULL;
	int64_t feat = -1, cand = -1;
	bool list = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_recipe, stdout);
			return 0;
		} else if (!strcmp(a, "--list")) {
			list = true;
		} else if (!strcmp(a, "--recipe") || !strcmp(a, "--candidate") ||
			   !strcmp(a, "--size") || !strcmp(a, "--kernel") ||
			   !strcmp(a, "--hetero") || !strcmp(a, "-o")) {
			if (i + 1 >= argc)
				return usage_error("recipe ", "%s needs a value", a);
			const char *v = argv[++i];
			if (!strcmp(a, "--recipe")) {
				name = v;
			} else if (!strcmp(a, "--candidate")) {
				if (parse_int(v, &cand) < 0 || cand < 0)
					return usage_error("recipe ", "--candidate takes "
						"an index (>= 0), not '%s'", v);
			} else if (!strcmp(a, "--size")) {
				if (feat >= 0)
					return usage_error("recipe ", "%s", "--size is "
						"given twice");
				if (strncmp(v, "feat=", 5) ||
				    parse_int(v + 5, &feat) < 0 || feat < 1)
					return usage_error("recipe ", "--size takes "
						"feat=F with F >= 1, not '%s'", v);
			} else if (!strcmp(a, "--kernel")) {
				kname = v;
			} else if (!strcmp(a, "--hetero")) {
				graph = v;
			} else {
				out = v;
			}
		} else if (a[0] == '-') {
			return usage_error("recipe ", "unknown option '%s'", a);
		} else if (file) {
			return usage_error("recipe ", "unexpected argument '%s'", a);
		} else {
			file = a;
		}
	}
	if (list) {
		if (file || name || cand >= 0 || feat >= 0 || graph)
			return usage_error("recipe ", "%s", "--list takes no program, "
				"--recipe, --candidate, --hetero or --size");
		return list_recipes();
	}
	if (!file)
		return usage_error("recipe ", "%s", "no program given");
	if (!name || (cand < 0) == !graph || feat < 0)
		return usage_error("recipe ", "%s", "--recipe NAME, --size feat=F "
			"and one of --candidate I and --hetero G are required");
	const struct recipe *r = find_recipe(name);
	if (!r)
		return usage_error("recipe ", "no recipe '%s' ('stirc recipe "
			"--list' names them)", name);
	if (graph && !r->pick)
		return usage_error("recipe ", "recipe %s has no rule that picks "
			"from a relational graph (--hetero): give --candidate",
			name);
	if (cand >= r->n_candidates())
		return usage_error("recipe ", "recipe %s has candidates 0 to %d, "
			"not %lld", name, r->n_candidates() - 1, (long long)cand);
	stir_ctx *ctx = stir_ctx_alloc();
	if (!ctx)
		return EXIT_WRONG;
	int rc = graph ? pick_candidate(ctx, r, graph, &cand) : 0;
	stir_module *m = rc ? NULL : stir_module_read_from_file(ctx, file);
	stir_kernel *k = NULL;
	if (!m && !rc)
		rc = EXIT_WRONG;
	if (rc == 0) {
		options o = { .kernel = kname };
		rc = select_kernel(m, &o, true, &k);
	}
	if (rc == 0) {
		stir_kernel_set_schedule_log(k, true);
		if (r->apply(k, (int)cand, feat) < 0) {
			fprintf(stderr, "stirc recipe: %s: recipe %s's candidate %lld "
				"does not apply to kernel '%s' at %lld features (it "
				"schedules %s)\n", file, name, (long long)cand,
				stir_kernel_get_name(k), (long long)feat, r->programs);
			rc = EXIT_WRONG;
		}
	}
	if (rc == 0) {
		FILE *f = out ? fopen(out, "w") : stdout;
		if (!f || stir_kernel_print_schedule(k, f) < 0 ||
		    (out && fclose(f) != 0)) {
			fprintf(stderr, "stirc recipe: %s: %s\n", out ? out : "stdout",
				strerror(errno));
			rc = EXIT_WRONG;
		}
	}
	rc = finish(ctx, rc);
	stir_module_free(m);
	stir_ctx_free(ctx);
	return rc;
}
