/* Reading schedule files, the format rules of decompose steps
 * (docs/schedules.md, "Format rules"): the shipped kinds, hybrid parts
 * and custom rules (schedule/yaml.c reads the rest). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/passes.h>
#include "schedule/yaml.h"

/* The axis kinds of a custom rule, in stir_axis_kind order. */
static const char *const axis_kinds[] = {
	"dense_fixed", "dense_variable", "sparse_fixed", "sparse_variable",
};

/* ---- format rules ---- */

/* r, n, prefix, dflt: the suffix a rule gives (n, or the kind's default
 * dflt when n is NULL): letters, digits and '_' only, as the builders want. */
static const char *read_suffix(reader *r, const yaml_node_t *n,
	const char *prefix, const char *dflt)
{
	if (!n)
		return dflt;
	const char *s = sf_need_name(r, n, prefix, "suffix", "a name");
	if (!s)
		return NULL;
	for (const char *c = s; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '_')
			continue;
		sf_fail(r, sf_node_loc(r, n), "%ssuffix '%s' may hold only letters, "
			"digits and '_'", prefix, s);
		return NULL;
	}
	return s;
}

/* Names a custom rule's axes are known by: new ones by name, kept ones
 * as "^K". */
typedef struct rule_names {
	int n;
	const char *v[64];        /* schedule strings */
} rule_names;

/* r, n, prefix, size: a size of a custom rule's axis: an integer (a
 * literal, >= 0), "^K" (the length of the tensor's axis K) or a name (a
 * new parameter).  0 or -1. */
static int read_size(reader *r, const yaml_node_t *n, const char *prefix,
	const char *what, stir_size *size)
{
	int64_t v;
	if (sf_int_value(n, &v) && v >= 0) {
		*size = stir_size_literal(v);
		return 0;
	}
	const char *s = sf_need_name(r, n, prefix, what, "an integer, '^K' or a "
		"parameter name");
	if (!s)
		return -1;
	if (s[0] == '^') {
		char *end;
		long k = strtol(s + 1, &end, 10);
		if (s[1] < '0' || s[1] > '9' || *end || k > 64) {
			sf_fail(r, sf_node_loc(r, n), "%s'%s' is not a tensor axis '^K' (K "
				"from 0)", prefix, s);
			return -1;
		}
		*size = stir_size_of_axis((int)k);
		return 0;
	}
	*size = stir_size_param(s);
	return 0;
}

/* r, n, prefix, key, out: the boolean value n of parameter "key" into
 * *out.  0, or -1 with an error. */
static int read_bool(reader *r, const yaml_node_t *n, const char *prefix,
	const char *key, bool *out)
{
	char buf[100];
	const char *b = n->type == YAML_SCALAR_NODE ?
		(const char *)n->data.scalar.value : "";
	if (!strcmp(b, "true") || !strcmp(b, "false")) {
		*out = !strcmp(b, "true");
		return 0;
	}
	sf_fail(r, sf_node_loc(r, n), "%s'%s' must be true or false, not %s", prefix,
		key, sf_describe(n, buf, sizeof(buf)));
	return -1;
}

/* r, n, prefix, src: an SR-BCRS rule's row_order (stir_row_order), which
 * needs chunks, into src->row_order.  0 or -1. */
static int read_row_order(reader *r, const yaml_node_t *n, const char *prefix,
	sf_rule *src)
{
	static const char *const names[] = { "natural", "degree", "locality",
		"fewest_slots" };
	char buf[100], list[100];
	const char *s = n->type == YAML_SCALAR_NODE ?
		(const char *)n->data.scalar.value : "";
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			src->row_order = (stir_row_order)i;
			if (i == 0 || src->chunk)
				return 0;
			sf_fail(r, sf_node_loc(r, n), "%sa row order needs chunks "
				"(chunk: C)", prefix);
			return -1;
		}
	sf_fail(r, sf_node_loc(r, n), "%s'row_order' must be one of %s, not %s",
		prefix, sf_key_list(names, 4, list, sizeof(list)),
		sf_describe(n, buf, sizeof(buf)));
	return -1;
}

/* r, n, rule, names, prefix: one entry of a custom rule's "axes": {keep:
 * ^K} or {name, kind, parent, len, nnz, sorted}.  0 or -1. */
static int read_custom_axis(reader *r, const yaml_node_t *n,
	stir_format_rule *rule, rule_names *names, const char *prefix)
{
	static const char *const keep_keys[] = { "keep" };
	static const char *const keys[] = { "name", "kind", "parent", "len",
		"nnz", "sorted" };
	char buf[100];
	yaml_node_t *v[6];
	if (n->type != YAML_MAPPING_NODE) {
		sf_fail(r, sf_node_loc(r, n), "%san axis must be a mapping, such as "
			"{keep: ^0} or {name: J, kind: sparse_fixed, parent: ^0, len: "
			"^1, nnz: 4}, not %s", prefix, sf_describe(n, buf, sizeof(buf)));
		return -1;
	}
	bool keep_form = false;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = sf_node_at(r, p->key);
		keep_form |= k->type == YAML_SCALAR_NODE &&
			!strcmp((const char *)k->data.scalar.value, "keep");
	}
	if (names->n == (int)(sizeof(names->v) / sizeof(names->v[0]))) {
		sf_fail(r, sf_node_loc(r, n), "%sa rule may have at most 64 axes", prefix);
		return -1;
	}
	if (keep_form) {
		if (sf_read_keys(r, n, prefix, "key", keep_keys, 1, 1, v) < 0)
			return -1;
		stir_size s;
		if (read_size(r, v[0], prefix, "keep", &s) < 0)
			return -1;
		if (s.old_axis < 0) {
			sf_fail(r, sf_node_loc(r, v[0]), "%s'keep' takes a tensor axis '^K' "
				"(K from 0), not %s", prefix, sf_describe(v[0], buf,
				sizeof(buf)));
			return -1;
		}
		const char *name = sf_scalar_text(r, v[0]);
		if (!name || stir_format_rule_keep_axis(rule, name) < 0) {
			if (name)
				sf_oom(r);
			return -1;
		}
		names->v[names->n++] = name;
		return 0;
	}
	if (sf_read_keys(r, n, prefix, "key", keys, 6, 1 | 2 | 8, v) < 0)
		return -1;
	int kind = 0;
	bool sorted = true;
	stir_size len, nnz = stir_size_literal(0);
	const char *name = sf_need_name(r, v[0], prefix, "name", "a name");
	const char *parent = v[2] ? sf_need_name(r, v[2], prefix, "parent",
		"a name") : NULL;
	int errors = r->errors;
	sf_read_enum(r, v[1], prefix, "axis kind", axis_kinds, 4, &kind);
	read_size(r, v[3], prefix, "len", &len);
	if (v[4])
		read_size(r, v[4], prefix, "nnz", &nnz);
	if (v[5])
		read_bool(r, v[5], prefix, "sorted", &sorted);
	if (!name || (v[2] && !parent) || r->errors > errors)
		return -1;
	if (stir_format_rule_add_axis(rule, name, (stir_axis_kind)kind, parent,
	    len, nnz, sorted) < 0) {
		sf_oom(r);
		return -1;
	}
	names->v[names->n++] = name;
	return 0;
}

/* r, n, rule, names, prefix: one entry of a custom rule's "map": {axis:
 * K, from: [A, B], coefs: [4, 1]} (coefs default to 1).  0 or -1. */
static int read_custom_map(reader *r, const yaml_node_t *n,
	stir_format_rule *rule, const rule_names *names, const char *prefix)
{
	static const char *const keys[] = { "axis", "from", "coefs" };
	char buf[100];
	yaml_node_t *v[3];
	if (n->type != YAML_MAPPING_NODE) {
		sf_fail(r, sf_node_loc(r, n), "%sa map entry must be a mapping, such as "
			"{axis: 1, from: [JB, BJ], coefs: [4, 1]}, not %s", prefix,
			sf_describe(n, buf, sizeof(buf)));
		return -1;
	}
	if (sf_read_keys(r, n, prefix, "key", keys, 3, 1 | 2, v) < 0)
		return -1;
	int64_t axis;
	if (!sf_int_value(v[0], &axis) || axis < 0 || axis > 64) {
		sf_fail(r, sf_node_loc(r, v[0]), "%s'axis' must be the number of an axis "
			"of the tensor (from 0), not %s", prefix, sf_describe(v[0], buf,
			sizeof(buf)));
		return -1;
	}
	stir_loc *locs;
	int count;
	const char **from = sf_read_names(r, v[1], prefix, "from", &locs, &count);
	if (!from)
		return -1;
	int64_t *coefs = malloc(((size_t)count + 1) * sizeof(*coefs));
	if (!coefs) {
		sf_oom(r);
		free(from);
		free(locs);
		return -1;
	}
	int errors = r->errors;
	for (int i = 0; i < count; i++) {
		coefs[i] = 1;
		int j = 0;
		while (j < names->n && strcmp(names->v[j], from[i]))
			j++;
		if (j == names->n)
			sf_fail(r, locs[i], "%s'%s' is not an axis of this rule", prefix,
				from[i]);
	}
	if (v[2] && (v[2]->type != YAML_SEQUENCE_NODE ||
	    v[2]->data.sequence.items.top - v[2]->data.sequence.items.start !=
	    count)) {
		sf_fail(r, sf_node_loc(r, v[2]), "%s'coefs' must be a list of %d "
			"integers, one per axis of 'from'", prefix, count);
	} else {
		for (int i = 0; v[2] && i < count; i++) {
			const yaml_node_t *e = sf_node_at(r,
				v[2]->data.sequence.items.start[i]);
			if (!sf_int_value(e, &coefs[i]))
				sf_fail(r, sf_node_loc(r, e), "%scoefficient %s is not an "
					"integer", prefix, sf_describe(e, buf, sizeof(buf)));
		}
	}
	int rc = r->errors > errors ? -1 : 0;
	if (rc == 0 && stir_format_rule_map(rule, (int)axis, count, from,
	    coefs) < 0) {
		sf_oom(r);
		rc = -1;
	}
	free(coefs);
	free(from);
	free(locs);
	return rc;
}

/* r, v, prefix, suffix: a custom rule from its parameters v (axes, map)
 * and its suffix: the rule, or NULL after errors. */
static stir_format_rule *read_custom(reader *r, yaml_node_t *const *v,
	const char *prefix, const char *suffix)
{
	char buf[100];
	const yaml_node_t *axes = v[0], *map = v[1];
	stir_format_rule *rule = stir_format_rule_alloc(suffix);
	if (!rule) {
		sf_oom(r);
		return NULL;
	}
	int errors = r->errors;
	rule_names names = { 0 };
	for (int i = 0; i < 2; i++) {
		const yaml_node_t *n = v[i];
		if (n->type != YAML_SEQUENCE_NODE ||
		    n->data.sequence.items.top == n->data.sequence.items.start)
			sf_fail(r, sf_node_loc(r, n), "%s'%s' must be a non-empty list, not "
				"%s", prefix, i ? "map" : "axes", sf_describe(n, buf,
				sizeof(buf)));
	}
	if (r->errors > errors) {
		stir_format_rule_free(rule);
		return NULL;
	}
	for (yaml_node_item_t *i = axes->data.sequence.items.start;
	     i < axes->data.sequence.items.top; i++)
		read_custom_axis(r, sf_node_at(r, *i), rule, &names, prefix);
	for (yaml_node_item_t *i = map->data.sequence.items.start;
	     r->errors == errors && i < map->data.sequence.items.top; i++)
		read_custom_map(r, sf_node_at(r, *i), rule, &names, prefix);
	if (r->errors > errors) {
		stir_format_rule_free(rule);
		return NULL;
	}
	return rule;
}

/* r, a, rule: append rule to a's expanded rules (taking it).  0 or -1. */
static int add_rule(reader *r, sf_arg *a, stir_format_rule *rule)
{
	stir_format_rule **v = realloc(a->rules, (size_t)(a->n_rules + 1) *
		sizeof(*v));
	if (!v || !rule) {
		stir_format_rule_free(rule);
		sf_oom(r);
		return -1;
	}
	a->rules = v;
	a->rules[a->n_rules++] = rule;
	return 0;
}

/* r, n, prefix, src: the buckets of a hybrid rule, node n (positive,
 * strictly increasing), into src.  0 or -1. */
static int read_buckets(reader *r, const yaml_node_t *n, const char *prefix,
	sf_rule *src)
{
	char buf[100];
	int len = n->type == YAML_SEQUENCE_NODE ? (int)(n->data.sequence.items.top
		- n->data.sequence.items.start) : 0;
	if (len == 0) {
		sf_fail(r, sf_node_loc(r, n), "%s'buckets' must be a non-empty list of "
			"widths, not %s", prefix, sf_describe(n, buf, sizeof(buf)));
		return -1;
	}
	src->buckets = calloc((size_t)len, sizeof(*src->buckets));
	if (!src->buckets) {
		sf_oom(r);
		return -1;
	}
	int errors = r->errors;
	for (int i = 0; i < len; i++) {
		const yaml_node_t *e = sf_node_at(r, n->data.sequence.items.start[i]);
		int64_t w;
		if (sf_need_positive(r, e, prefix, "buckets", &w) < 0)
			continue;
		if (i > 0 && w <= src->buckets[i - 1] && src->buckets[i - 1] > 0)
			sf_fail(r, sf_node_loc(r, e), "%sbucket widths must increase "
				"strictly (%" PRId64 " after %" PRId64 ")", prefix, w,
				src->buckets[i - 1]);
		src->buckets[i] = w;
	}
	src->n_buckets = len;
	return r->errors > errors ? -1 : 0;
}

/* r, n, a: one rule of a decompose step: {KIND: {PARAMS}}, expanded into
 * a's rules and described in a's srcs.  0 or -1. */
static int read_rule(reader *r, const yaml_node_t *n, sf_arg *a)
{
	/* the parameters of each kind; the first required ones, then suffix */
	static const struct {
		const char *keys[6];
		int n;
		unsigned required;
	} params[SF_N_RULE_KINDS] = {
		[SF_RULE_ELL] = { { "width", "suffix" }, 2, 1 },
		[SF_RULE_BSR] = { { "block", "suffix" }, 2, 1 },
		[SF_RULE_PADDING] = { { "p", "suffix" }, 2, 1 },
		[SF_RULE_HYBRID] = { { "column_parts", "buckets", "cover_rows",
			"locality_order", "suffix" }, 5, 3 },
		[SF_RULE_ELL3D] = { { "width", "suffix" }, 2, 1 },
		[SF_RULE_DBSR] = { { "block", "suffix" }, 2, 1 },
		[SF_RULE_SR_BCRS] = { { "t", "g", "cover_rows", "chunk",
			"row_order", "suffix" }, 6, 3 },
		[SF_RULE_CUSTOM] = { { "axes", "map", "suffix" }, 3, 7 },
	};
	char buf[100], prefix[64], list[200];
	const char *kinds[SF_N_RULE_KINDS];
	for (int i = 0; i < SF_N_RULE_KINDS; i++)
		kinds[i] = sf_rule_kind_key(i);
	if (n->type != YAML_MAPPING_NODE || n->data.mapping.pairs.top -
	    n->data.mapping.pairs.start != 1) {
		sf_fail(r, sf_node_loc(r, n), "decompose: a rule must be a mapping of one "
			"format to its parameters, such as {ell: {width: 8}}, not %s",
			n->type == YAML_MAPPING_NODE ? "a mapping of several keys" :
			sf_describe(n, buf, sizeof(buf)));
		return -1;
	}
	const yaml_node_t *k = sf_node_at(r, n->data.mapping.pairs.start->key);
	const yaml_node_t *pv = sf_node_at(r, n->data.mapping.pairs.start->value);
	int kind = 0;
	while (kind < SF_N_RULE_KINDS && (k->type != YAML_SCALAR_NODE ||
	       strcmp(kinds[kind], (const char *)k->data.scalar.value)))
		kind++;
	if (kind == SF_N_RULE_KINDS) {
		sf_fail(r, sf_node_loc(r, k), "decompose: unknown format %s (expected "
			"%s)", sf_describe(k, buf, sizeof(buf)), sf_key_list(kinds,
			SF_N_RULE_KINDS, list, sizeof(list)));
		return -1;
	}
	snprintf(prefix, sizeof(prefix), "decompose: %s: ", kinds[kind]);
	yaml_node_t *v[6] = { NULL, NULL, NULL, NULL, NULL, NULL };
	yaml_node_t empty = { 0 };
	empty.type = YAML_MAPPING_NODE;
	empty.start_mark = pv->start_mark;
	if (pv->type != YAML_MAPPING_NODE && !sf_is_null(pv)) {
		sf_fail(r, sf_node_loc(r, pv), "%sthe parameters must be a mapping, not "
			"%s", prefix, sf_describe(pv, buf, sizeof(buf)));
		return -1;
	}
	if (sf_read_keys(r, sf_is_null(pv) ? &empty : pv, prefix, "parameter",
	    params[kind].keys, params[kind].n, params[kind].required, v) < 0)
		return -1;
	sf_rule *srcs = realloc(a->srcs, (size_t)(a->n_srcs + 1) *
		sizeof(*srcs));
	if (!srcs) {
		sf_oom(r);
		return -1;
	}
	a->srcs = srcs;
	sf_rule *src = &a->srcs[a->n_srcs++];
	memset(src, 0, sizeof(*src));
	src->kind = (sf_rule_kind)kind;
	src->loc = sf_node_loc(r, k);
	src->first = a->n_rules;
	src->suffix = read_suffix(r, v[params[kind].n - 1], prefix,
		sf_rule_kind_suffix(kind));
	int errors = r->errors;
	switch ((sf_rule_kind)kind) {
	case SF_RULE_ELL:
	case SF_RULE_BSR:
	case SF_RULE_PADDING:
	case SF_RULE_ELL3D:
	case SF_RULE_DBSR:
		sf_need_positive(r, v[0], prefix, params[kind].keys[0], &src->size);
		break;
	case SF_RULE_SR_BCRS:
		sf_need_positive(r, v[0], prefix, "t", &src->size);
		sf_need_positive(r, v[1], prefix, "g", &src->group);
		if (v[2])
			read_bool(r, v[2], prefix, "cover_rows", &src->cover_rows);
		if (v[3])
			sf_need_positive(r, v[3], prefix, "chunk", &src->chunk);
		if (v[4])
			read_row_order(r, v[4], prefix, src);
		break;
	case SF_RULE_HYBRID: {
		int64_t c = 0;
		if (sf_need_positive(r, v[0], prefix, "column_parts", &c) == 0 &&
		    c > SF_MAX_PARTS)
			sf_fail(r, sf_node_loc(r, v[0]), "%sat most %d column parts, not %"
				PRId64, prefix, SF_MAX_PARTS, c);
		if (read_buckets(r, v[1], prefix, src) == 0 && c > 0 &&
		    c <= SF_MAX_PARTS && c * src->n_buckets > SF_MAX_PARTS)
			sf_fail(r, sf_node_loc(r, v[1]), "%s%" PRId64 " column parts x %d "
				"buckets make more than %d parts", prefix, c,
				src->n_buckets, SF_MAX_PARTS);
		src->column_parts = (int)c;
		if (v[2] && read_bool(r, v[2], prefix, "cover_rows",
		    &src->cover_rows) == 0 && src->cover_rows && c > 1)
			sf_fail(r, sf_node_loc(r, v[2]), "%scovering the rows needs one "
				"column part, not %" PRId64, prefix, c);
		if (v[3])
			read_bool(r, v[3], prefix, "locality_order",
				&src->locality_order);
		break;
	}
	case SF_RULE_CUSTOM:
	case SF_N_RULE_KINDS:
		break;
	}
	if (!src->suffix || r->errors > errors)
		return -1;
	/* each rule becomes an iteration: a bound on them all keeps a small
	 * file (or one of YAML aliases) from asking for millions */
	int64_t count = kind == SF_RULE_HYBRID ? stir_format_hybrid_n_parts(
		src->column_parts, src->n_buckets, src->cover_rows) :
		kind == SF_RULE_SR_BCRS && src->chunk ? 2 : 1;
	if (r->n_rules + count > SF_MAX_PARTS) {
		sf_fail(r, src->loc, "decompose: more than %d rules in the file "
			"(hybrid parts count one each)", SF_MAX_PARTS);
		return -1;
	}
	r->n_rules += count;
	switch ((sf_rule_kind)kind) {
	case SF_RULE_ELL:
		add_rule(r, a, stir_format_rule_ell(src->suffix, src->size));
		break;
	case SF_RULE_BSR:
		add_rule(r, a, stir_format_rule_bsr(src->suffix, src->size));
		break;
	case SF_RULE_PADDING:
		add_rule(r, a, stir_format_rule_padding(src->suffix, src->size));
		break;
	case SF_RULE_ELL3D:
		add_rule(r, a, stir_format_rule_ell3d(src->suffix, src->size));
		break;
	case SF_RULE_DBSR:
		add_rule(r, a, stir_format_rule_dbsr(src->suffix, src->size));
		break;
	case SF_RULE_SR_BCRS:
		/* with chunks, the split windows' part first (its init then
		 * runs before the whole windows) */
		for (int i = 0; i < (src->chunk ? 2 : 1); i++) {
			stir_format_rule *rule = src->chunk ?
				stir_format_rule_sr_bcrs_chunks(src->suffix,
				src->size, src->group, i,
				src->row_order != STIR_ROWS_NATURAL) :
				stir_format_rule_sr_bcrs(src->suffix, src->size,
				src->group);
			stir_format_rule_set_cover_rows(rule, src->cover_rows);
			if (add_rule(r, a, rule) < 0)
				return -1;
		}
		break;
	case SF_RULE_HYBRID:
		/* every part, in the order of stir_format_hybrid_get_part */
		for (int i = 0; i < stir_format_hybrid_n_parts(src->column_parts,
		    src->n_buckets, src->cover_rows); i++)
			if (add_rule(r, a, stir_format_rule_hybrid(src->suffix,
			    src->column_parts, src->n_buckets, src->buckets,
			    src->cover_rows, i)) < 0)
				return -1;
		break;
	case SF_RULE_CUSTOM: {
		stir_format_rule *rule = read_custom(r, v, prefix, src->suffix);
		if (!rule)
			return -1;
		add_rule(r, a, rule);
		break;
	}
	case SF_N_RULE_KINDS:
		break;
	}
	src->n = a->n_rules - src->first;
	return r->errors > errors ? -1 : 0;
}

/* r, n, a: the rules of a decompose step. */
int sf_read_rules(reader *r, const yaml_node_t *n, sf_arg *a)
{
	char buf[100];
	if (n->type != YAML_SEQUENCE_NODE) {
		sf_fail(r, sf_node_loc(r, n), "decompose: 'rules' must be a list of "
			"format rules, not %s", sf_describe(n, buf, sizeof(buf)));
		return -1;
	}
	if (n->data.sequence.items.top == n->data.sequence.items.start) {
		sf_fail(r, sf_node_loc(r, n), "decompose: 'rules' must not be empty");
		return -1;
	}
	int errors = r->errors;
	for (yaml_node_item_t *i = n->data.sequence.items.start;
	     i < n->data.sequence.items.top; i++)
		read_rule(r, sf_node_at(r, *i), a);
	return r->errors > errors ? -1 : 0;
}

