/* Reading schedule files (include/stir/schedule.h; docs/schedules.md,
 * "Schedule files").
 *
 * libyaml's document API loads the text into a tree of nodes that know
 * their line and column (schedule/yaml_load.c); the tree is then checked
 * completely -- top-level keys, sections, primitives, their arguments and
 * the types of the values, format rules -- into the steps of
 * schedule/file.h.  Every error is reported at the node it is about, and
 * checking goes on after one so that a single read reports every problem
 * of the file; any error gives NULL.  What cannot be known without the
 * kernel (whether a block or loop exists, whether a primitive is legal) is
 * left to stir_schedule_apply. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include <stir/io.h>
#include "formats/io_internal.h"
#include "ir/diag.h"
#include "schedule/yaml.h"

const char *const sf_section_key[SF_N_SECTIONS] = {
	"format", "stage1", "stage2", "stage3",
};

/* The primitives' names, sections and arguments (file.h's table). */
static const struct {
	const char *name;
	unsigned sections;   /* SF_IN bits */
	unsigned required;   /* SF_A bits */
	unsigned optional;
} prims[SF_N_PRIMS] = {
#define SF_PRIM_ROW(id, name, sections, req, opt) \
	{ name, sections, req, opt },
	SF_PRIMS(SF_PRIM_ROW)
#undef SF_PRIM_ROW
};

/* The arguments' keys and types. */
static const struct {
	const char *key;
	sf_type type;
} args[SF_N_ARGS] = {
#define SF_ARG_ROW(id, key, type) { key, type },
	SF_ARGS(SF_ARG_ROW)
#undef SF_ARG_ROW
};

/* The format rules' keys and default suffixes. */
static const struct {
	const char *key;
	const char *suffix;
} rule_kinds[SF_N_RULE_KINDS] = {
#define SF_RULE_ROW(id, key, suffix) { key, suffix },
	SF_RULE_KINDS(SF_RULE_ROW)
#undef SF_RULE_ROW
};

/* The thread indices as a file writes them, in stir_thread order. */
static const char *const thread_names[] = {
	"blockIdx.x", "blockIdx.y", "blockIdx.z",
	"threadIdx.x", "threadIdx.y", "threadIdx.z",
};

/* p: the name of primitive p. */
const char *sf_prim_name(sf_prim p)
{
	return p < SF_N_PRIMS ? prims[p].name : "?";
}

/* a: the key of argument a. */
const char *sf_arg_key(sf_arg_id a)
{
	return a < SF_N_ARGS ? args[a].key : "?";
}

/* k: the key of rule kind k. */
const char *sf_rule_kind_key(sf_rule_kind k)
{
	return k < SF_N_RULE_KINDS ? rule_kinds[k].key : "?";
}

/* k: the default suffix of rule kind k. */
const char *sf_rule_kind_suffix(sf_rule_kind k)
{
	return k < SF_N_RULE_KINDS ? rule_kinds[k].suffix : "";
}

/* r, loc, fmt: report an error; the diagnostic, for notes. */
stir_diag *sf_fail(reader *r, stir_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	stir_diag *d = stir_ctx_vreport(r->ctx, STIR_ERROR, loc, fmt, ap);
	va_end(ap);
	r->errors++;
	return d;
}

/* r: report that memory ran out (once is enough to fail the read). */
void sf_oom(reader *r)
{
	stir_error_oom(r->ctx);
	r->errors++;
}

/* r, n: the location of node n. */
stir_loc sf_node_loc(const reader *r, const yaml_node_t *n)
{
	return sf_mark_loc(r, n->start_mark);
}

/* r, index: node "index" of the document (libyaml's ids count from 1). */
yaml_node_t *sf_node_at(const reader *r, int index)
{
	return yaml_document_get_node(r->doc, index);
}

/* r, p, n: a NUL-terminated copy of n bytes at p, owned by the schedule;
 * NULL when memory runs out (reported). */
static const char *keep(reader *r, const char *p, size_t n)
{
	stir_schedule *s = r->s;
	if (s->n_strings == s->cap_strings) {
		int cap = s->cap_strings ? 2 * s->cap_strings : 32;
		char **v = realloc(s->strings, (size_t)cap * sizeof(*v));
		if (!v) {
			sf_oom(r);
			return NULL;
		}
		s->strings = v;
		s->cap_strings = cap;
	}
	char *c = malloc(n + 1);
	if (!c) {
		sf_oom(r);
		return NULL;
	}
	memcpy(c, p, n);
	c[n] = '\0';
	s->strings[s->n_strings++] = c;
	return c;
}

/* n: whether node n is YAML's null: a plain scalar "", "~" or "null". */
bool sf_is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *v = (const char *)n->data.scalar.value;
	return !strcmp(v, "") || !strcmp(v, "~") || !strcmp(v, "null") ||
		!strcmp(v, "Null") || !strcmp(v, "NULL");
}

/* n: node n in words for messages ("a list", "an empty list", "a
 * mapping", "null", or the scalar itself, quoted). */
const char *sf_describe(const yaml_node_t *n, char *buf, size_t size)
{
	if (n->type == YAML_SEQUENCE_NODE)
		return n->data.sequence.items.top == n->data.sequence.items.start ?
			"an empty list" : "a list";
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (sf_is_null(n))
		return "null";
	snprintf(buf, size, "'%.*s'", n->data.scalar.length > 80 ? 80 :
		(int)n->data.scalar.length, (const char *)n->data.scalar.value);
	return buf;
}

/* r, n: the text of scalar node n, owned by the schedule; NULL (with an
 * error) when it holds a NUL byte or memory runs out.  n must be a
 * scalar. */
const char *sf_scalar_text(reader *r, const yaml_node_t *n)
{
	const char *v = (const char *)n->data.scalar.value;
	size_t len = n->data.scalar.length;
	if (memchr(v, '\0', len)) {
		sf_fail(r, sf_node_loc(r, n), "a name may not hold a NUL character");
		return NULL;
	}
	return keep(r, v, len);
}

/* r, n, prefix, what, expected: the text of n when n is a scalar that is
 * not null nor empty; else an error "PREFIX'WHAT' must be EXPECTED, not
 * ..." and NULL. */
const char *sf_need_name(reader *r, const yaml_node_t *n,
	const char *prefix, const char *what, const char *expected)
{
	char buf[100];
	if (n->type != YAML_SCALAR_NODE || sf_is_null(n)) {
		sf_fail(r, sf_node_loc(r, n), "%s'%s' must be %s, not %s", prefix, what,
			expected, sf_describe(n, buf, sizeof(buf)));
		return NULL;
	}
	return sf_scalar_text(r, n);
}

/* n, v: whether n is a plain scalar holding a decimal integer (optional
 * sign) that fits in int64_t; its value in *v. */
bool sf_int_value(const yaml_node_t *n, int64_t *v)
{
	if (n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *s = (const char *)n->data.scalar.value;
	const char *d = s + (*s == '-' || *s == '+');
	if (*d < '0' || *d > '9')
		return false;
	for (const char *c = d; *c; c++)
		if (*c < '0' || *c > '9')
			return false;
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

/* r, n, prefix, what, v: *v is the positive integer n holds; else an
 * error and -1. */
int sf_need_positive(reader *r, const yaml_node_t *n, const char *prefix,
	const char *what, int64_t *v)
{
	char buf[100];
	if (sf_int_value(n, v) && *v > 0)
		return 0;
	sf_fail(r, sf_node_loc(r, n), "%s'%s' must be a positive integer, not %s",
		prefix, what, sf_describe(n, buf, sizeof(buf)));
	return -1;
}

/* keys, n, buf, size: "a, b or c". */
const char *sf_key_list(const char *const *keys, int n, char *buf,
	size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
			i == 0 ? "" : i == n - 1 ? " or " : ", ", keys[i]);
	return buf;
}

/* r, map, prefix, noun, keys, n, required, vals: check mapping "map":
 * every key a scalar among keys[0..n-1], none twice, those whose bit is
 * set in "required" present.  vals[i] receives the value of keys[i] or
 * NULL.  Errors read "PREFIXunknown NOUN 'k' (expected ...)", "PREFIXNOUN
 * 'k' given twice", "PREFIXmissing NOUN 'k'".  0, or -1 after errors (the
 * keys that were fine are still in vals). */
int sf_read_keys(reader *r, const yaml_node_t *map, const char *prefix,
	const char *noun, const char *const *keys, int n, unsigned required,
	yaml_node_t **vals)
{
	int errors = r->errors;
	const yaml_node_t *key_node[32];
	for (int i = 0; i < n; i++) {
		vals[i] = NULL;
		key_node[i] = NULL;
	}
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = sf_node_at(r, p->key);
		char buf[100], list[400];
		if (k->type != YAML_SCALAR_NODE) {
			sf_fail(r, sf_node_loc(r, k), "%sa %s must be a name, not %s",
				prefix, noun, sf_describe(k, buf, sizeof(buf)));
			continue;
		}
		const char *name = (const char *)k->data.scalar.value;
		int i = 0;
		while (i < n && strcmp(keys[i], name))
			i++;
		if (i == n) {
			sf_fail(r, sf_node_loc(r, k), "%sunknown %s '%s' (expected %s)",
				prefix, noun, name, sf_key_list(keys, n, list,
				sizeof(list)));
		} else if (key_node[i]) {
			stir_diag *d = sf_fail(r, sf_node_loc(r, k), "%s%s '%s' given twice",
				prefix, noun, name);
			stir_diag_add_note(d, sf_node_loc(r, key_node[i]),
				"first given here");
		} else {
			key_node[i] = k;
			vals[i] = sf_node_at(r, p->value);
		}
	}
	for (int i = 0; i < n; i++)
		if ((required & (1u << i)) && !key_node[i])
			sf_fail(r, sf_node_loc(r, map), "%smissing %s '%s'", prefix, noun,
				keys[i]);
	return r->errors > errors ? -1 : 0;
}

/* r, n, prefix, what, locs, count: the scalars of sequence n (a
 * non-empty list of names), owned; their locations in *locs; NULL after an
 * error. */
const char **sf_read_names(reader *r, const yaml_node_t *n,
	const char *prefix, const char *what, stir_loc **locs, int *count)
{
	char buf[100];
	*locs = NULL;
	*count = 0;
	if (n->type != YAML_SEQUENCE_NODE) {
		sf_fail(r, sf_node_loc(r, n), "%s'%s' must be a list of names, not %s",
			prefix, what, sf_describe(n, buf, sizeof(buf)));
		return NULL;
	}
	int len = (int)(n->data.sequence.items.top -
		n->data.sequence.items.start);
	if (len == 0) {
		sf_fail(r, sf_node_loc(r, n), "%s'%s' must not be empty", prefix, what);
		return NULL;
	}
	const char **v = calloc((size_t)len, sizeof(*v));
	*locs = calloc((size_t)len, sizeof(**locs));
	if (!v || !*locs) {
		free(v);
		free(*locs);
		*locs = NULL;
		sf_oom(r);
		return NULL;
	}
	bool ok = true;
	for (int i = 0; i < len; i++) {
		const yaml_node_t *e = sf_node_at(r, n->data.sequence.items.start[i]);
		(*locs)[i] = sf_node_loc(r, e);
		if (e->type != YAML_SCALAR_NODE || sf_is_null(e)) {
			sf_fail(r, sf_node_loc(r, e), "%selement %d of '%s' must be a name, "
				"not %s", prefix, i + 1, what, sf_describe(e, buf,
				sizeof(buf)));
			ok = false;
		} else if (!(v[i] = sf_scalar_text(r, e))) {
			ok = false;
		}
	}
	if (!ok) {
		free(v);
		free(*locs);
		*locs = NULL;
		return NULL;
	}
	*count = len;
	return v;
}

/* r, n, prefix, a: the factors of split: at least two, each a positive
 * integer or null (0: inferred), at most one null. */
static int read_factors(reader *r, const yaml_node_t *n, const char *prefix,
	sf_arg *a)
{
	char buf[100];
	if (n->type != YAML_SEQUENCE_NODE) {
		sf_fail(r, sf_node_loc(r, n), "%s'factors' must be a list of positive "
			"integers and null, not %s", prefix, sf_describe(n, buf,
			sizeof(buf)));
		return -1;
	}
	int len = (int)(n->data.sequence.items.top -
		n->data.sequence.items.start);
	if (len < 2) {
		sf_fail(r, sf_node_loc(r, n), "%s'factors' needs at least 2 factors, not "
			"%d", prefix, len);
		return -1;
	}
	a->ints = calloc((size_t)len, sizeof(*a->ints));
	a->locs = calloc((size_t)len, sizeof(*a->locs));
	if (!a->ints || !a->locs) {
		sf_oom(r);
		return -1;
	}
	int errors = r->errors, nulls = 0;
	for (int i = 0; i < len; i++) {
		const yaml_node_t *e = sf_node_at(r, n->data.sequence.items.start[i]);
		a->locs[i] = sf_node_loc(r, e);
		if (sf_is_null(e) && nulls++ > 0)
			sf_fail(r, sf_node_loc(r, e), "%sonly one factor may be null "
				"(inferred)", prefix);
		else if (!sf_is_null(e) && (!sf_int_value(e, &a->ints[i]) ||
			 a->ints[i] <= 0))
			sf_fail(r, sf_node_loc(r, e), "%sfactor %s is not a positive integer "
				"or null", prefix, sf_describe(e, buf, sizeof(buf)));
	}
	a->n = len;
	return r->errors > errors ? -1 : 0;
}

/* r, n, prefix, noun, table, count, value: the index in
 * table[0..count-1] of the name n holds; else an error naming the
 * expected values and -1. */
int sf_read_enum(reader *r, const yaml_node_t *n, const char *prefix,
	const char *noun, const char *const *table, int count, int *value)
{
	char buf[100], list[300];
	if (n->type == YAML_SCALAR_NODE && !sf_is_null(n)) {
		for (int i = 0; i < count; i++)
			if (!strcmp(table[i], (const char *)n->data.scalar.value)) {
				*value = i;
				return 0;
			}
	}
	sf_fail(r, sf_node_loc(r, n), "%sunknown %s %s (expected %s)", prefix, noun,
		sf_describe(n, buf, sizeof(buf)), sf_key_list(table, count, list,
		sizeof(list)));
	return -1;
}

/* ---- steps ---- */

/* r, st, id, n, prefix: argument "id" of step st from node n. */
static void read_arg(reader *r, sf_step *st, sf_arg_id id,
	const yaml_node_t *n, const char *prefix)
{
	sf_arg *a = &st->args[id];
	const char *key = args[id].key;
	a->set = true;
	a->loc = sf_node_loc(r, n);
	switch (args[id].type) {
	case SF_PATTERN:
		a->str = sf_need_name(r, n, prefix, key, "a name or pattern");
		break;
	case SF_NAME:
		a->str = sf_need_name(r, n, prefix, key, "a name");
		break;
	case SF_NAMES:
	case SF_PATTERNS:
		a->strs = sf_read_names(r, n, prefix, key, &a->locs, &a->n);
		break;
	case SF_FACTORS:
		read_factors(r, n, prefix, a);
		break;
	case SF_THREAD:
		sf_read_enum(r, n, prefix, "thread index", thread_names, 6, &a->value);
		break;
	case SF_SCOPE: {
		static const char *const scopes[] = { "shared", "local", "warp" };
		static const stir_scope values[] = { STIR_SCOPE_SHARED,
			STIR_SCOPE_LOCAL, STIR_SCOPE_WARP };
		if (sf_read_enum(r, n, prefix, "scope", scopes, 3, &a->value) == 0)
			a->value = values[a->value];
		break;
	}
	case SF_RULES:
		sf_read_rules(r, n, a);
		break;
	case SF_BOOL: {
		static const char *const bools[] = { "false", "true" };
		sf_read_enum(r, n, prefix, "value", bools, 2, &a->value);
		break;
	}
	case SF_INT: {
		char buf[100];
		if (!sf_int_value(n, &a->num))
			sf_fail(r, sf_node_loc(r, n), "%s'%s' must be an integer, not %s",
				prefix, key, sf_describe(n, buf, sizeof(buf)));
		break;
	}
	}
}

/* r, sec: room for one more step in section sec; the new, zeroed step or
 * NULL. */
static sf_step *new_step(reader *r, sf_section sec)
{
	stir_schedule *s = r->s;
	sf_step *v = realloc(s->steps[sec], (size_t)(s->n_steps[sec] + 1) *
		sizeof(*v));
	if (!v) {
		sf_oom(r);
		return NULL;
	}
	s->steps[sec] = v;
	memset(&v[s->n_steps[sec]], 0, sizeof(*v));
	return &v[s->n_steps[sec]++];
}

/* sections, buf, size: the sections a primitive may go in, in words
 * ("stage2 or stage3"). */
static const char *where(unsigned sections, char *buf, size_t size)
{
	const char *keys[SF_N_SECTIONS];
	int n = 0;
	for (int sec = 0; sec < SF_N_SECTIONS; sec++)
		if (sections & SF_IN(sec))
			keys[n++] = sf_section_key[sec];
	return sf_key_list(keys, n, buf, size);
}

/* r, st, sec: specialize step st (the last of section sec) gives a size:
 * a value of at least 0, for a parameter no earlier step specializes
 * (after the first, the kernel no longer has it). */
static void check_specialize(reader *r, const sf_step *st, sf_section sec)
{
	const sf_arg *name = &st->args[SF_ARG_PARAM], *v = &st->args[SF_ARG_VALUE];
	if (v->num < 0)
		sf_fail(r, v->loc, "specialize: the value of size '%s' must be at "
			"least 0, not %" PRId64, name->str, v->num);
	for (int sc = 0; sc <= (int)sec; sc++)
		for (int i = 0; i < r->s->n_steps[sc]; i++) {
			const sf_step *o = &r->s->steps[sc][i];
			if (o == st || o->prim != SF_PRIM_SPECIALIZE ||
			    !o->args[SF_ARG_PARAM].set ||
			    strcmp(o->args[SF_ARG_PARAM].str, name->str))
				continue;
			stir_diag *d = sf_fail(r, name->loc, "specialize: size '%s' is "
				"specialized twice", name->str);
			stir_diag_add_note(d, o->loc, "the first time, to %" PRId64,
				o->args[SF_ARG_VALUE].num);
			return;
		}
}

/* r, n, sec: one step of section sec: "- PRIMITIVE: {ARGUMENTS}", or
 * "- PRIMITIVE" for one without arguments. */
static void read_step(reader *r, const yaml_node_t *n, sf_section sec)
{
	char buf[100];
	const yaml_node_t *name = n, *argn = NULL;
	if (n->type == YAML_MAPPING_NODE &&
	    n->data.mapping.pairs.top - n->data.mapping.pairs.start == 1) {
		name = sf_node_at(r, n->data.mapping.pairs.start->key);
		argn = sf_node_at(r, n->data.mapping.pairs.start->value);
	}
	if (name->type != YAML_SCALAR_NODE || sf_is_null(name)) {
		sf_fail(r, sf_node_loc(r, n), "a step must be a primitive with its "
			"arguments, such as '- split: {block: B, loop: i, factors: "
			"[null, 8]}', not %s", n->type == YAML_MAPPING_NODE ?
			"a mapping of several keys" : sf_describe(n, buf, sizeof(buf)));
		return;
	}
	const char *pname = (const char *)name->data.scalar.value;
	int p = 0;
	while (p < SF_N_PRIMS && strcmp(prims[p].name, pname))
		p++;
	if (p == SF_N_PRIMS) {
		sf_fail(r, sf_node_loc(r, name), "unknown primitive '%s'", pname);
		return;
	}
	if (!(prims[p].sections & SF_IN(sec))) {
		char list[100];
		sf_fail(r, sf_node_loc(r, name), "%s cannot appear in %s: it belongs in "
			"%s", pname, sf_section_key[sec], where(prims[p].sections,
			list, sizeof(list)));
		return;
	}
	sf_step *st = new_step(r, sec);
	if (!st)
		return;
	st->prim = (sf_prim)p;
	st->loc = sf_node_loc(r, name);
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "%s: ", pname);
	yaml_node_t empty = { 0 };
	empty.type = YAML_MAPPING_NODE;
	empty.start_mark = name->start_mark;
	if (argn && argn->type != YAML_MAPPING_NODE && !sf_is_null(argn)) {
		sf_fail(r, sf_node_loc(r, argn), "%sthe arguments must be a mapping, such "
			"as {block: B, loop: i}, not %s", prefix, sf_describe(argn, buf,
			sizeof(buf)));
		return;
	}
	/* the primitive's arguments, required ones first */
	const char *keys[SF_N_ARGS];
	sf_arg_id ids[SF_N_ARGS];
	yaml_node_t *vals[SF_N_ARGS];
	unsigned allowed = prims[p].required | prims[p].optional;
	int nk = 0;
	unsigned req = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int a = 0; a < SF_N_ARGS; a++) {
			unsigned bit = 1u << a;
			if (!(allowed & bit) ||
			    (pass == 0) != ((prims[p].required & bit) != 0))
				continue;
			if (pass == 0)
				req |= 1u << nk;
			ids[nk] = (sf_arg_id)a;
			keys[nk++] = args[a].key;
		}
	const yaml_node_t *map = argn && !sf_is_null(argn) ? argn : &empty;
	if (nk == 0 && map->data.mapping.pairs.top !=
	    map->data.mapping.pairs.start) {
		sf_fail(r, sf_node_loc(r, map), "%stakes no arguments", prefix);
		return;
	}
	sf_read_keys(r, map, prefix, "argument", keys, nk, req, vals);
	int errors = r->errors;
	for (int i = 0; i < nk; i++)
		if (vals[i])
			read_arg(r, st, ids[i], vals[i], prefix);
	if (st->prim == SF_PRIM_SPECIALIZE && r->errors == errors &&
	    st->args[SF_ARG_PARAM].set && st->args[SF_ARG_VALUE].set)
		check_specialize(r, st, sec);
}

/* r, n, sec: section sec: a list of steps (null: none). */
static void read_section(reader *r, const yaml_node_t *n, sf_section sec)
{
	char buf[100];
	if (sf_is_null(n))
		return;
	if (n->type != YAML_SEQUENCE_NODE) {
		sf_fail(r, sf_node_loc(r, n), "'%s' must be a list of steps, not %s",
			sf_section_key[sec], sf_describe(n, buf, sizeof(buf)));
		return;
	}
	for (yaml_node_item_t *i = n->data.sequence.items.start;
	     i < n->data.sequence.items.top; i++)
		read_step(r, sf_node_at(r, *i), sec);
}

/* r, root: the whole file: a mapping of kernel and the sections. */
static void read_top(reader *r, const yaml_node_t *root)
{
	static const char *const keys[] = { "kernel", "format", "stage1",
		"stage2", "stage3", "min_blocks_per_sm", "overlap_launches" };
	char buf[100];
	if (root->type != YAML_MAPPING_NODE) {
		sf_fail(r, sf_node_loc(r, root), "a schedule file must be a mapping with "
			"the keys kernel, format, stage1, stage2 and stage3, not %s",
			sf_describe(root, buf, sizeof(buf)));
		return;
	}
	yaml_node_t *v[7];
	sf_read_keys(r, root, "", "top-level key", keys, 7, 1, v);
	if (v[0]) {
		r->s->kernel = sf_need_name(r, v[0], "", "kernel", "a kernel name");
		r->s->kernel_loc = sf_node_loc(r, v[0]);
	}
	int64_t mb;
	if (v[5] && sf_need_positive(r, v[5], "", "min_blocks_per_sm", &mb) == 0) {
		if (mb > 32)
			sf_fail(r, sf_node_loc(r, v[5]), "'min_blocks_per_sm' must be "
				"1 to 32, not %lld", (long long)mb);
		else
			r->s->min_blocks_per_sm = (int)mb;
	}
	if (v[6]) {
		static const char *const bools[] = { "false", "true" };
		int on = 0;
		sf_read_enum(r, v[6], "'overlap_launches': ", "value", bools, 2,
			&on);
		r->s->overlap_launches = on == 1;
	}
	/* in the file's order, so that the diagnostics are in that order */
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++)
		for (int sec = 0; sec < SF_N_SECTIONS; sec++)
			if (v[sec + 1] && v[sec + 1] == sf_node_at(r, p->value))
				read_section(r, v[sec + 1], (sf_section)sec);
}

/* ---- the schedule object ---- */

/* a: free what argument a owns. */
static void arg_release(sf_arg *a)
{
	free(a->strs);
	free(a->locs);
	free(a->ints);
	for (int i = 0; i < a->n_rules; i++)
		stir_format_rule_free(a->rules[i]);
	free(a->rules);
	for (int i = 0; i < a->n_srcs; i++)
		free(a->srcs[i].buckets);
	free(a->srcs);
}

/* s: the schedule to free. */
void stir_schedule_free(stir_schedule *s)
{
	if (!s)
		return;
	for (int sec = 0; sec < SF_N_SECTIONS; sec++) {
		for (int i = 0; i < s->n_steps[sec]; i++)
			for (int a = 0; a < SF_N_ARGS; a++)
				arg_release(&s->steps[sec][i].args[a]);
		free(s->steps[sec]);
	}
	for (int i = 0; i < s->n_strings; i++)
		free(s->strings[i]);
	free(s->strings);
	free(s->text);
	free(s);
}

/* ctx, file, text, len: see schedule.h. */
stir_schedule *stir_schedule_read_from_mem(stir_ctx *ctx, const char *file,
	const char *text, size_t len)
{
	if (!ctx)
		return NULL;
	if (!text)
		text = "", len = 0;
	stir_schedule *s = calloc(1, sizeof(*s));
	if (!s)
		return stir_error_oom(ctx);
	s->ctx = ctx;
	s->file = stir_ctx_add_source(ctx, file ? file : "<string>", text, len);
	s->text = malloc(len + 1);
	if (!s->file || !s->text) {
		stir_schedule_free(s);
		return stir_error_oom(ctx);
	}
	memcpy(s->text, text, len);
	s->text[len] = '\0';
	s->len = len;
	if (stir_io_check_text(ctx, s->file, text, len, "schedule") < 0) {
		stir_schedule_free(s);
		return NULL;
	}
	yaml_document_t doc;
	reader r = { ctx, s, &doc, 0, 0 };
	if (sf_load(&r, &doc) == 0) {
		read_top(&r, yaml_document_get_root_node(&doc));
		yaml_document_delete(&doc);
	}
	if (r.errors) {
		stir_schedule_free(s);
		return NULL;
	}
	return s;
}

/* ctx, path: read the file (at most STIR_IO_TEXT_LIMIT bytes, after
 * decompression), then as stir_schedule_read_from_mem. */
stir_schedule *stir_schedule_read_from_file(stir_ctx *ctx, const char *path)
{
	if (!ctx || !path)
		return NULL;
	char *text;
	size_t len;
	if (stir_io_read_text(ctx, path, "schedule", STIR_IO_TEXT_LIMIT, &text,
	    &len) < 0)
		return NULL;
	stir_schedule *s = stir_schedule_read_from_mem(ctx, path, text, len);
	free(text);
	return s;
}

/* s, ctx: see file.h. */
const char *sf_file_in(const stir_schedule *s, stir_ctx *ctx)
{
	if (ctx == s->ctx)
		return s->file;
	return stir_ctx_add_source(ctx, s->file, s->text, s->len);
}

/* s: the kernel the schedule is for. */
const char *stir_schedule_get_kernel_name(const stir_schedule *s)
{
	return s ? s->kernel : NULL;
}

/* s: the latest stage with steps. */
stir_stage stir_schedule_get_last_stage(const stir_schedule *s)
{
	if (s && s->n_steps[SF_STAGE3])
		return STIR_STAGE_3;
	if (s && s->n_steps[SF_STAGE2])
		return STIR_STAGE_2;
	return STIR_STAGE_1;
}
