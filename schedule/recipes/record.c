/* The tuning record (docs/recipes.md, "The tuning record"): what the
 * tuner chose, one file per key in the directory "tune" of the kernel
 * cache (runtime/cache.c), so that two processes never write one file
 * together: each entry is written to a temporary file and renamed over
 * its name (atomic), and a reader sees a whole entry or none.  An entry
 * is text, one "field value" a line, closed by the SHA-256 of the lines
 * before it: a damaged entry is ignored with a warning. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stir/stir.h>
#include <stir/recipes.h>
#include "ir/diag.h"
#include "runtime/cache.h"
#include "runtime/sha256.h"
#include "schedule/recipes/rank.h"

/* The largest entry read: a damaged file must not make us read without
 * bound. */
#define MAX_ENTRY 8192

/* The recipes' names in an entry, by stir_tune_recipe. */
static const char *const recipe_names[] = {
	[STIR_TUNE_NONE] = "none",
	[STIR_TUNE_SPMM] = "spmm_hybrid",
	[STIR_TUNE_SDDMM] = "sddmm",
	[STIR_TUNE_SDDMM_ROWS] = "sddmm_rows",
	[STIR_TUNE_SDDMM_VB4] = "sddmm_vb4",
	[STIR_TUNE_SDDMM_VB8] = "sddmm_vb8",
	[STIR_TUNE_SDDMM_VB4_CSR] = "sddmm_vb4_csr",
	[STIR_TUNE_SDDMM_VB8_CSR] = "sddmm_vb8_csr",
	[STIR_TUNE_SDDMM_TILES] = "sddmm_tiles",
	[STIR_TUNE_RGMS] = "rgms",
	[STIR_TUNE_RGMS_TF32] = "rgms_tf32",
	[STIR_TUNE_RGMS_EDGE] = "rgms_edge",
	[STIR_TUNE_BSR16] = "bsr16",
	[STIR_TUNE_BSR32] = "bsr32",
	[STIR_TUNE_BSR64] = "bsr64",
};
#define N_RECIPES (int)(sizeof(recipe_names) / sizeof(recipe_names[0]))

/* r: the recipe's name in an entry. */
static const char *recipe_name(stir_tune_recipe r)
{
	return (int)r > 0 && (int)r < N_RECIPES ? recipe_names[r] : "none";
}

/* name: the recipe an entry names, or STIR_TUNE_NONE. */
static stir_tune_recipe recipe_of_name(const char *name)
{
	for (int r = 1; r < N_RECIPES; r++)
		if (!strcmp(name, recipe_names[r]))
			return (stir_tune_recipe)r;
	return STIR_TUNE_NONE;
}

/* text, len, hex: the SHA-256 of text[0..len) in hex. */
static void hash_hex(const char *text, size_t len,
	char hex[2 * STIR_SHA256_SIZE + 1])
{
	unsigned char d[STIR_SHA256_SIZE];
	stir_sha256_buf(text, len, d);
	stir_sha256_to_hex(d, hex);
}

/* text, hex: see recipes.h. */
void stir_tune_program_hash(const char *text, char hex[65])
{
	hash_hex(text, strlen(text), hex);
}

/* e, key, n: the lines of entry e that key it (key: without the
 * chosen candidate) into a heap string; its length in *n.  NULL when out
 * of memory. */
static char *entry_text(const stir_tune_entry *e, bool key, size_t *n)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	fprintf(f, "stir-tune 1\nprogram %s\nrecipe %s\ndevice %s\n"
		"feat %" PRId64 "\nsig %" PRId64 " %" PRId64 " %" PRId64,
		e->program, recipe_name(e->recipe), e->device, e->feat,
		e->sig.rows, e->sig.cols, e->sig.nnz);
	for (int i = 0; i < STIR_MATRIX_SIG_BUCKETS; i++)
		fprintf(f, " %" PRId64, e->sig.hist[i]);
	fputc('\n', f);
	/* a relational graph's relations (a matrix's entries, written
	 * before graphs were tuned, have none) */
	if (e->sig.rels != 1)
		fprintf(f, "rels %" PRId64 "\n", e->sig.rels);
	if (!key)
		fprintf(f, "candidate %d\nhow %s\ncost %.17g\ntime_ms %.17g\n",
			e->cand, e->how, e->cost, e->time_ms);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	*n = len;
	return s;
}

/* dir: the record's directory for cache directory "dir" (NULL: the
 * kernel cache's, stir_cache_dir), heap; NULL when there is none. */
static char *record_dir(const char *dir)
{
	char *base = stir_cache_dir(dir), *d = NULL;
	if (base && asprintf(&d, "%s/tune", base) < 0)
		d = NULL;
	free(base);
	return d;
}

/* rdir, e: the path of e's file in record directory rdir, heap. */
static char *entry_path(const char *rdir, const stir_tune_entry *e)
{
	size_t n;
	char *key = entry_text(e, true, &n), *path = NULL;
	char hex[2 * STIR_SHA256_SIZE + 1];
	if (!key)
		return NULL;
	hash_hex(key, n, hex);
	free(key);
	if (asprintf(&path, "%s/%s", rdir, hex) < 0)
		path = NULL;
	return path;
}

/* ctx, path, e: read entry file "path" into *e.  1 when it is whole, 0
 * when it is missing, -1 when it is damaged (a warning in ctx). */
static int read_entry(stir_ctx *ctx, const char *path, stir_tune_entry *e)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char *buf = malloc(MAX_ENTRY + 1);
	size_t n = buf ? fread(buf, 1, MAX_ENTRY + 1, f) : 0;
	fclose(f);
	if (!buf)
		return -1;
	buf[n < MAX_ENTRY ? n : MAX_ENTRY] = '\0';
	memset(e, 0, sizeof(*e));
	char *sum = n <= MAX_ENTRY ? strstr(buf, "sum ") : NULL;
	char hex[2 * STIR_SHA256_SIZE + 1], rec[16] = "", name[16] = "";
	bool ok = sum && (sum == buf || sum[-1] == '\n');
	if (ok) {
		hash_hex(buf, (size_t)(sum - buf), hex);
		ok = !strncmp(sum + 4, hex, 2 * STIR_SHA256_SIZE) &&
			sum[4 + 2 * STIR_SHA256_SIZE] == '\n';
	}
	int at = 0;
	ok = ok && sscanf(buf, "stir-tune 1\nprogram %64s\nrecipe %15s\n"
		"device %63s\nfeat %" SCNd64 "\nsig %" SCNd64 " %" SCNd64 " %"
		SCNd64 "%n", e->program, rec, e->device, &e->feat, &e->sig.rows,
		&e->sig.cols, &e->sig.nnz, &at) == 7;
	const char *p = buf + at;
	for (int i = 0; ok && i < STIR_MATRIX_SIG_BUCKETS; i++) {
		int m = 0;
		ok = sscanf(p, " %" SCNd64 "%n", &e->sig.hist[i], &m) == 1;
		p += m;
	}
	int m = 0;
	e->sig.rels = 1;
	if (ok && sscanf(p, "\nrels %" SCNd64 "%n", &e->sig.rels, &m) == 1)
		p += m;
	ok = ok && sscanf(p, "\ncandidate %d\nhow %15s\ncost %lg\ntime_ms %lg",
		&e->cand, name, &e->cost, &e->time_ms) == 4;
	e->recipe = recipe_of_name(rec);
	ok = ok && e->recipe != STIR_TUNE_NONE && e->sig.rels >= 1 &&
		e->cand >= 0 && e->cand < recipe_n_candidates(e->recipe);
	snprintf(e->how, sizeof(e->how), "%s", name);
	free(buf);
	if (!ok) {
		stir_warning(ctx, stir_loc_none(), "tuning record entry %s is "
			"damaged; ignored", path);
		return -1;
	}
	return 1;
}

/* ctx, dir, key, tol, out: see recipes.h. */
int stir_tune_record_find(stir_ctx *ctx, const char *dir,
	const stir_tune_entry *key, double tol, stir_tune_entry *out)
{
	char *rdir = record_dir(dir);
	if (!rdir)
		return 0;
	char *path = entry_path(rdir, key);
	int r = path ? read_entry(ctx, path, out) : 0;
	if (r == 1) {
		stir_tune_entry k2 = *out;
		/* the file's name is the key's hash; its content must agree */
		r = !strcmp(k2.program, key->program) && k2.recipe == key->recipe &&
			!strcmp(k2.device, key->device) && k2.feat == key->feat &&
			stir_matrix_sig_is_similar(&k2.sig, &key->sig, 0) ? 1 : 0;
		if (r) {
			free(path);
			free(rdir);
			return 1;
		}
	}
	/* a similar graph: the same program, recipe, device and features */
	DIR *d = opendir(rdir);
	int found = 0;
	char best[2 * STIR_SHA256_SIZE + 1] = "";
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (strlen(de->d_name) != 2 * STIR_SHA256_SIZE)
			continue;
		char *p = NULL;
		stir_tune_entry e;
		if (asprintf(&p, "%s/%s", rdir, de->d_name) < 0)
			break;
		/* the key's own file was read above (and warned about) */
		if (path && !strcmp(p, path)) {
			free(p);
			continue;
		}
		if (read_entry(ctx, p, &e) == 1 && !strcmp(e.program, key->program) &&
		    e.recipe == key->recipe && !strcmp(e.device, key->device) &&
		    e.feat == key->feat && stir_matrix_sig_is_similar(&e.sig,
		    &key->sig, tol) && (!found || strcmp(de->d_name, best) < 0)) {
			/* of several, the first by name: the same answer for
			 * any order of the directory */
			*out = e;
			found = 2;
			snprintf(best, sizeof(best), "%s", de->d_name);
		}
		free(p);
	}
	if (d)
		closedir(d);
	free(path);
	free(rdir);
	return found;
}

/* ctx, path, text, n, mark: write text[0 .. n) then the line
 * "<mark>sum <its SHA-256>" to "path", whole: through a temporary file
 * renamed over it.  0, or -1 with an error in ctx. */
static int write_summed(stir_ctx *ctx, const char *path, const char *text,
	size_t n, const char *mark)
{
	char hex[2 * STIR_SHA256_SIZE + 1], *tmp = NULL;
	hash_hex(text, n, hex);
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		stir_error_oom(ctx);
		return -1;
	}
	int fd = mkstemp(tmp), rc = -1;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		stir_error(ctx, stir_loc_none(), "%s: %s", tmp, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
	} else {
		fwrite(text, 1, n, f);
		fprintf(f, "%ssum %s\n", mark, hex);
		if (fclose(f) != 0 || rename(tmp, path) < 0) {
			stir_error(ctx, stir_loc_none(), "%s: %s", path,
				strerror(errno));
			unlink(tmp);
		} else {
			rc = 0;
		}
	}
	free(tmp);
	return rc;
}

/* ctx, dir, suffix, e: the path of e's file in the record of cache
 * directory "dir", its name followed by "suffix", the directory made;
 * heap, or NULL with an error in ctx. */
static char *stored_path(stir_ctx *ctx, const char *dir, const char *suffix,
	const stir_tune_entry *e)
{
	char *rdir = record_dir(dir), *path = NULL, *p = NULL;
	if (!rdir) {
		stir_error(ctx, stir_loc_none(), "the tuning record has no "
			"directory: set STIR_CACHE_DIR or HOME");
		return NULL;
	}
	if (stir_mkdir_p(rdir) < 0)
		stir_error(ctx, stir_loc_none(), "%s: %s", rdir, strerror(errno));
	else if (!(p = entry_path(rdir, e)) || asprintf(&path, "%s%s", p,
	    suffix) < 0)
		path = stir_error_oom(ctx);
	free(p);
	free(rdir);
	return path;
}

/* ctx, dir, e: see recipes.h. */
int stir_tune_record_store(stir_ctx *ctx, const char *dir,
	const stir_tune_entry *e)
{
	size_t n = 0;
	char *path = stored_path(ctx, dir, "", e);
	char *text = path ? entry_text(e, false, &n) : NULL;
	if (path && !text)
		stir_error_oom(ctx);
	int rc = text ? write_summed(ctx, path, text, n, "") : -1;
	free(text);
	free(path);
	return rc;
}

/* The schedule file stored beside an entry: a header line naming the
 * entry's candidate, its feature size and the text's length, the text,
 * and a comment line of the SHA-256 of the lines before it. */
#define SCHEDULE_SUFFIX ".schedule"
#define SCHEDULE_HEADER "# stir-tune schedule: candidate %d, feat %" PRId64 \
	", %zu bytes\n"
#define MAX_SCHEDULE ((size_t)1 << 22)

/* ctx, dir, e, text, len: see recipes.h. */
int stir_tune_record_store_schedule(stir_ctx *ctx, const char *dir,
	const stir_tune_entry *e, const char *text, size_t len)
{
	char *path = stored_path(ctx, dir, SCHEDULE_SUFFIX, e), *buf = NULL;
	int n = path && len <= MAX_SCHEDULE ? asprintf(&buf, SCHEDULE_HEADER
		"%.*s", e->cand, e->feat, len, (int)len, text) : -1;
	if (path && n < 0)
		stir_error(ctx, stir_loc_none(), "%s: the schedule file is too "
			"long or memory ran out", path);
	int rc = n >= 0 ? write_summed(ctx, path, buf, (size_t)n, "# ") : -1;
	free(buf);
	free(path);
	return rc;
}

/* ctx, dir, e, len: see recipes.h. */
char *stir_tune_record_find_schedule(stir_ctx *ctx, const char *dir,
	const stir_tune_entry *e, size_t *len)
{
	char *rdir = record_dir(dir), *p = rdir ? entry_path(rdir, e) : NULL;
	char *path = NULL;
	if (p && asprintf(&path, "%s%s", p, SCHEDULE_SUFFIX) < 0)
		path = NULL;
	free(p);
	free(rdir);
	FILE *f = path ? fopen(path, "r") : NULL;
	char *buf = f ? malloc(MAX_SCHEDULE + 256) : NULL;
	size_t n = buf ? fread(buf, 1, MAX_SCHEDULE + 255, f) : 0;
	if (f)
		fclose(f);
	char *text = NULL;
	int cand = -1, at = 0;
	int64_t feat = -1;
	size_t tlen = 0;
	if (buf) {
		buf[n] = '\0';
		sscanf(buf, "# stir-tune schedule: candidate %d, feat %" SCNd64
			", %zu bytes\n%n", &cand, &feat, &tlen, &at);
	}
	char hex[2 * STIR_SHA256_SIZE + 1];
	size_t body = (size_t)at + tlen;
	/* whole: the header, the text, then only the sum of the two */
	bool ok = at > 0 && tlen <= MAX_SCHEDULE && body + 6 +
		2 * STIR_SHA256_SIZE + 1 == n && !strncmp(buf + body, "# sum ", 6);
	if (ok) {
		hash_hex(buf, body, hex);
		ok = !strncmp(buf + body + 6, hex, 2 * STIR_SHA256_SIZE);
	}
	if (buf && !ok)
		stir_warning(ctx, stir_loc_none(), "tuning record schedule %s is "
			"damaged; ignored", path);
	/* another process may have stored another candidate's entry since */
	if (ok && cand == e->cand && feat == e->feat &&
	    (text = malloc(tlen + 1))) {
		memcpy(text, buf + at, tlen);
		text[tlen] = '\0';
		*len = tlen;
	}
	free(buf);
	free(path);
	return text;
}

/* The entries' file names, sorted, for stir_tune_record_print. */
static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ctx, dir, out: see recipes.h. */
int stir_tune_record_print(stir_ctx *ctx, const char *dir, FILE *out)
{
	char *rdir = record_dir(dir);
	DIR *d = rdir ? opendir(rdir) : NULL;
	char **names = NULL;
	int n = 0, cap = 0, shown = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (strlen(de->d_name) != 2 * STIR_SHA256_SIZE)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			char **v = realloc(names, (size_t)cap * sizeof(*v));
			if (!v)
				break;
			names = v;
		}
		if (!(names[n] = strdup(de->d_name)))
			break;
		n++;
	}
	if (d)
		closedir(d);
	if (n > 1)
		qsort(names, (size_t)n, sizeof(*names), by_name);
	fprintf(out, "# tuning record %s\n", rdir ? rdir : "(none)");
	for (int i = 0; i < n; i++) {
		char *p = NULL;
		stir_tune_entry e;
		if (asprintf(&p, "%s/%s", rdir, names[i]) >= 0 &&
		    read_entry(ctx, p, &e) == 1) {
			fprintf(out, "%.12s  program %.12s  %s  feat %" PRId64
				"  rows %" PRId64 " nnz %" PRId64, names[i], e.program,
				recipe_name(e.recipe), e.feat, e.sig.rows, e.sig.nnz);
			if (e.sig.rels != 1)
				fprintf(out, " rels %" PRId64, e.sig.rels);
			fprintf(out, "  device %s  candidate %d (%s", e.device,
				e.cand, e.how);
			if (e.time_ms >= 0)
				fprintf(out, ", %.4f ms", e.time_ms);
			fprintf(out, ")\n");
			shown++;
		}
		free(p);
		free(names[i]);
	}
	free(names);
	free(rdir);
	fprintf(out, "# %d entries\n", shown);
	return ferror(out) ? -1 : 0;
}
