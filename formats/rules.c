/* Format rewrite rules (include/stir/passes.h, docs/formats.md): the data
 * a rule holds, the generic constructors, and the shipped formats. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "formats/rule.h"

stir_size stir_size_literal(int64_t v)
{
	stir_size s = { NULL, v, -1 };
	return s;
}

stir_size stir_size_param(const char *name)
{
	stir_size s = { name, 0, -1 };
	return s;
}

stir_size stir_size_of_axis(int old_axis)
{
	stir_size s = { NULL, 0, old_axis };
	return s;
}

/* s: a copy of size s owning its parameter name (NULL name on failure is
 * told apart by *ok). */
static stir_size size_dup(stir_size s, bool *ok)
{
	if (s.param && !(s.param = strdup(s.param)))
		*ok = false;
	return s;
}

stir_format_rule *stir_format_rule_alloc(const char *suffix)
{
	stir_format_rule *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->suffix = strdup(suffix ? suffix : "");
	if (!r->suffix) {
		free(r);
		return NULL;
	}
	return r;
}

void stir_format_rule_free(stir_format_rule *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->n_axes; i++) {
		free(r->axes[i].name);
		free(r->axes[i].parent);
		free((char *)r->axes[i].len.param);
		free((char *)r->axes[i].nnz.param);
	}
	free(r->axes);
	for (int i = 0; i < r->n_maps; i++) {
		free(r->maps[i].axes);
		free(r->maps[i].coefs);
		free(r->maps[i].through);
	}
	free(r->maps);
	free(r->suffix);
	free(r);
}

/* r: room for one more axis; the new, zeroed entry or NULL. */
static rule_axis *axis_new(stir_format_rule *r)
{
	rule_axis *v = realloc(r->axes, (size_t)(r->n_axes + 1) * sizeof(*v));
	if (!v)
		return NULL;
	r->axes = v;
	memset(&v[r->n_axes], 0, sizeof(*v));
	return &v[r->n_axes++];
}

int stir_format_rule_add_axis(stir_format_rule *r, const char *name,
	stir_axis_kind kind, const char *parent, stir_size len, stir_size nnz,
	bool sorted)
{
	if (!r || !name)
		return -1;
	rule_axis *a = axis_new(r);
	if (!a)
		return -1;
	bool ok = true;
	a->name = strdup(name);
	a->parent = parent ? strdup(parent) : NULL;
	a->kind = kind;
	a->len = size_dup(len, &ok);
	a->nnz = size_dup(nnz, &ok);
	a->sorted = sorted;
	return a->name && (!parent || a->parent) && ok ? 0 : -1;
}

int stir_format_rule_keep_axis(stir_format_rule *r, const char *old_name)
{
	if (!r || !old_name)
		return -1;
	rule_axis *a = axis_new(r);
	if (!a)
		return -1;
	a->keep = true;
	a->name = strdup(old_name);
	a->len = stir_size_literal(0);
	a->nnz = stir_size_literal(0);
	return a->name ? 0 : -1;
}

int stir_format_rule_map(stir_format_rule *r, int old_axis, int n,
	const char *const *axes, const int64_t *coefs)
{
	if (!r || n < 1 || !axes || !coefs)
		return -1;
	rule_map *v = realloc(r->maps, (size_t)(r->n_maps + 1) * sizeof(*v));
	if (!v)
		return -1;
	r->maps = v;
	rule_map *m = &v[r->n_maps];
	memset(m, 0, sizeof(*m));
	m->old_axis = old_axis;
	m->axes = calloc((size_t)n, sizeof(*m->axes));
	m->coefs = calloc((size_t)n, sizeof(*m->coefs));
	if (!m->axes || !m->coefs) {
		free(m->axes);
		free(m->coefs);
		return -1;
	}
	m->n = n;
	r->n_maps++;
	for (int i = 0; i < n; i++) {
		m->coefs[i] = coefs[i];
		m->axes[i] = -1;
		for (int j = 0; j < r->n_axes; j++)
			if (axes[i] && !strcmp(r->axes[j].name, axes[i]))
				m->axes[i] = j;
		if (m->axes[i] < 0)
			return -1;
	}
	return 0;
}

/* ---- the shipped rules ---- */

/* r, old_axis, axis: the map "old coordinate = coordinate of axis". */
static int map_one(stir_format_rule *r, int old_axis, const char *axis)
{
	const int64_t one = 1;
	return stir_format_rule_map(r, old_axis, 1, &axis, &one);
}

/* r, old_axis, outer, inner, b: "old = outer * b + inner". */
static int map_blocked(stir_format_rule *r, int old_axis, const char *outer,
	const char *inner, int64_t b)
{
	const char *axes[] = { outer, inner };
	const int64_t coefs[] = { b, 1 };
	return stir_format_rule_map(r, old_axis, 2, axes, coefs);
}

/* r, ok: r when every step succeeded, else NULL (r freed). */
static stir_format_rule *done(stir_format_rule *r, bool ok)
{
	if (ok)
		return r;
	stir_format_rule_free(r);
	return NULL;
}

stir_format_rule *stir_format_rule_ell(const char *suffix, int64_t width)
{
	stir_format_rule *r = stir_format_rule_alloc(suffix);
	bool ok = r && width > 0 &&
		stir_format_rule_keep_axis(r, "^0") == 0 &&
		stir_format_rule_add_axis(r, "J", STIR_SPARSE_FIXED, "^0",
			stir_size_of_axis(1), stir_size_literal(width), false) == 0 &&
		map_one(r, 1, "J") == 0;
	return done(r, ok);
}

stir_format_rule *stir_format_rule_padding(const char *suffix, int64_t p)
{
	stir_format_rule *r = stir_format_rule_alloc(suffix);
	bool ok = r && p > 0 &&
		stir_format_rule_keep_axis(r, "^0") == 0 &&
		stir_format_rule_add_axis(r, "J", STIR_SPARSE_VARIABLE, "^0",
			stir_size_of_axis(1), stir_size_param("nnz"), false) == 0 &&
		map_one(r, 1, "J") == 0;
	if (r)
		r->padding = p;
	return done(r, ok);
}

void stir_format_rule_set_cover_rows(stir_format_rule *r, bool cover)
{
	if (r)
		r->cover_rows = cover;
}

stir_format_rule *stir_format_rule_bsr(const char *suffix, int64_t b)
{
	stir_format_rule *r = stir_format_rule_alloc(suffix);
	bool ok = r && b > 0 &&
		stir_format_rule_add_axis(r, "IB", STIR_DENSE_FIXED, NULL,
			stir_size_param("mb"), stir_size_literal(0), true) == 0 &&
		stir_format_rule_add_axis(r, "JB", STIR_SPARSE_VARIABLE, "IB",
			stir_size_param("nb"), stir_size_param("nnzb"), true) == 0 &&
		stir_format_rule_add_axis(r, "BI", STIR_DENSE_FIXED, NULL,
			stir_size_literal(b), stir_size_literal(0), true) == 0 &&
		stir_format_rule_add_axis(r, "BJ", STIR_DENSE_FIXED, NULL,
			stir_size_literal(b), stir_size_literal(0), true) == 0 &&
		map_blocked(r, 0, "IB", "BI", b) == 0 &&
		map_blocked(r, 1, "JB", "BJ", b) == 0;
	return done(r, ok);
}

/* suffix, q, t: see passes.h. */
char *stir_format_hybrid_part_suffix(const char *suffix, int q, int t)
{
	/* the suffix whole, however long (a cut one could name two parts
	 * alike) */
	const char *sfx = suffix ? suffix : "";
	size_t len = strlen(sfx) + 2 * 12 + 3;
	char *full = malloc(len);
	if (full)
		snprintf(full, len, "%s_%d_%d", sfx, q, t);
	return full;
}

/* c, nb, cover: see passes.h. */
int stir_format_hybrid_n_parts(int c, int nb, bool cover)
{
	if (c < 1 || nb < 1 || (cover && c != 1) || c > INT_MAX / nb - 1)
		return -1;
	return c * nb + cover;
}

/* c, nb, cover, i, q, t: see passes.h. */
int stir_format_hybrid_get_part(int c, int nb, bool cover, int i, int *q,
	int *t)
{
	int n = stir_format_hybrid_n_parts(c, nb, cover);
	if (n < 0 || i < 0 || i >= n || !q || !t)
		return -1;
	/* covering the rows, first the split rows' part 0_NB: its init then
	 * runs before all the other parts */
	if (cover) {
		*q = 0;
		*t = i == 0 ? nb : i - 1;
	} else {
		*q = i / nb;
		*t = i % nb;
	}
	return 0;
}

/* suffix, c, nb, buckets, cover, i: see passes.h. */
stir_format_rule *stir_format_rule_hybrid(const char *suffix, int c, int nb,
	const int64_t *buckets, bool cover, int i)
{
	int q, t;
	if (!buckets || stir_format_hybrid_get_part(c, nb, cover, i, &q, &t) < 0)
		return NULL;
	stir_format_rule *r = stir_format_rule_hybrid_part(suffix, q, t,
		buckets[t < nb ? t : nb - 1]);
	if (r)
		stir_format_rule_set_cover_rows(r, cover);
	return r;
}

stir_format_rule *stir_format_rule_hybrid_part(const char *suffix, int q, int t,
	int64_t width)
{
	char *full = stir_format_hybrid_part_suffix(suffix, q, t);
	if (!full)
		return NULL;
	stir_format_rule *r = stir_format_rule_alloc(full);
	free(full);
	bool ok = r && width > 0 && q >= 0 && t >= 0 &&
		stir_format_rule_add_axis(r, "O", STIR_DENSE_FIXED, NULL,
			stir_size_param("rows"), stir_size_literal(0), true) == 0 &&
		stir_format_rule_add_axis(r, "R", STIR_SPARSE_FIXED, "O",
			stir_size_of_axis(0), stir_size_literal(1), true) == 0 &&
		stir_format_rule_add_axis(r, "C", STIR_SPARSE_FIXED, "R",
			stir_size_of_axis(1), stir_size_literal(width), false) == 0 &&
		map_one(r, 0, "R") == 0 && map_one(r, 1, "C") == 0;
	return done(r, ok);
}

stir_format_rule *stir_format_rule_ell3d(const char *suffix, int64_t width)
{
	stir_format_rule *r = stir_format_rule_alloc(suffix);
	bool ok = r && width > 0 &&
		stir_format_rule_keep_axis(r, "^0") == 0 &&
		stir_format_rule_keep_axis(r, "^1") == 0 &&
		stir_format_rule_add_axis(r, "J", STIR_SPARSE_FIXED, "^1",
			stir_size_of_axis(2), stir_size_literal(width), false) == 0 &&
		map_one(r, 2, "J") == 0;
	return done(r, ok);
}

stir_format_rule *stir_format_rule_dbsr(const char *suffix, int64_t b)
{
	stir_format_rule *r = stir_format_rule_alloc(suffix);
	bool ok = r && b > 0 &&
		stir_format_rule_add_axis(r, "IB", STIR_DENSE_FIXED, NULL,
			stir_size_param("nbr"), stir_size_literal(0), true) == 0 &&
		stir_format_rule_add_axis(r, "RB", STIR_SPARSE_FIXED, "IB",
			stir_size_param("mb"), stir_size_literal(1), true) == 0 &&
		stir_format_rule_add_axis(r, "JB", STIR_SPARSE_VARIABLE, "RB",
			stir_size_param("nb"), stir_size_param("nnzb"), true) == 0 &&
		stir_format_rule_add_axis(r, "BI", STIR_DENSE_FIXED, NULL,
			stir_size_literal(b), stir_size_literal(0), true) == 0 &&
		stir_format_rule_add_axis(r, "BJ", STIR_DENSE_FIXED, NULL,
			stir_size_literal(b), stir_size_literal(0), true) == 0 &&
		map_blocked(r, 0, "RB", "BI", b) == 0 &&
		map_blocked(r, 1, "JB", "BJ", b) == 0;
	return done(r, ok);
}

/* r, window, t, through: the map row = t * WINDOW + TI, or P[t * WINDOW
 * + TI] when "through".  Whether it was added. */
static bool add_rows(stir_format_rule *r, const char *window, int64_t t,
	bool through)
{
	if (map_blocked(r, 0, window, "TI", t) < 0)
		return false;
	return !through ||
		(r->maps[r->n_maps - 1].through = strdup("P")) != NULL;
}

/* r, window, t, g, through: the groups of SR-BCRS(t, g) under axis
 * "window" (G, its tiles T, their rows TI), and the maps row = t * WINDOW
 * + TI, or P[t * WINDOW + TI] when "through", column = T.  Whether every
 * step succeeded. */
static bool add_sr_groups(stir_format_rule *r, const char *window, int64_t t,
	int64_t g, bool through)
{
	return stir_format_rule_add_axis(r, "G", STIR_DENSE_VARIABLE, window,
			stir_size_param("maxg"), stir_size_param("ngroups"), true) == 0 &&
		stir_format_rule_add_axis(r, "T", STIR_SPARSE_FIXED, "G",
			stir_size_of_axis(1), stir_size_literal(g), false) == 0 &&
		stir_format_rule_add_axis(r, "TI", STIR_DENSE_FIXED, NULL,
			stir_size_literal(t), stir_size_literal(0), true) == 0 &&
		add_rows(r, window, t, through) && map_one(r, 1, "T") == 0;
}

stir_format_rule *stir_format_rule_sr_bcrs(const char *suffix, int64_t t, int64_t g)
{
	stir_format_rule *r = stir_format_rule_alloc(suffix);
	bool ok = r && t > 0 && g > 0 &&
		stir_format_rule_add_axis(r, "IB", STIR_DENSE_FIXED, NULL,
			stir_size_param("mt"), stir_size_literal(0), true) == 0 &&
		add_sr_groups(r, "IB", t, g, false);
	return done(r, ok);
}

/* suffix, part: see passes.h. */
char *stir_format_sr_bcrs_part_suffix(const char *suffix, int part)
{
	const char *sfx = suffix ? suffix : "";
	const char *tail = part == 0 ? "_split" : "_whole";
	size_t len = strlen(sfx) + strlen(tail) + 1;
	char *full = part == 0 || part == 1 ? malloc(len) : NULL;
	if (full)
		snprintf(full, len, "%s%s", sfx, tail);
	return full;
}

stir_format_rule *stir_format_rule_sr_bcrs_chunks(const char *suffix,
	int64_t t, int64_t g, int part, bool row_order)
{
	char *full = stir_format_sr_bcrs_part_suffix(suffix, part);
	if (!full)
		return NULL;
	stir_format_rule *r = stir_format_rule_alloc(full);
	free(full);
	bool ok = r && t > 0 && g > 0 &&
		stir_format_rule_add_axis(r, "IB", STIR_DENSE_FIXED, NULL,
			stir_size_param("items"), stir_size_literal(0), true) == 0 &&
		stir_format_rule_add_axis(r, "W", STIR_SPARSE_FIXED, "IB",
			stir_size_param("mt"), stir_size_literal(1), true) == 0 &&
		add_sr_groups(r, "W", t, g, row_order);
	return done(r, ok);
}
