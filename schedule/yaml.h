/* Reading schedule files (schedule/yaml.c): the state of one read and the
 * YAML node readers, shared with the format rules' reader
 * (schedule/yaml_rules.c) and the loader (schedule/yaml_load.c). */
#ifndef STIR_SCHEDULE_YAML_H
#define STIR_SCHEDULE_YAML_H

#include <stdbool.h>
#include <stdint.h>
#include <yaml.h>
#include "ir/diag.h"
#include "schedule/file.h"

/* The most parts a hybrid rule may stand for (column ranges x buckets),
 * and the most rules of all decompose steps: each becomes an iteration
 * and, lowered, a nest of its own. */
#define SF_MAX_PARTS 4096

/* The state of one read. */
typedef struct reader {
	stir_ctx *ctx;            /* borrowed: receives the diagnostics */
	stir_schedule *s;         /* borrowed: the schedule being filled */
	yaml_document_t *doc;     /* borrowed: the loaded tree */
	int errors;               /* errors reported so far */
	int64_t n_rules;          /* format rules of every step so far */
} reader;

/* k: the default suffix of rule kind k. */
const char *sf_rule_kind_suffix(sf_rule_kind k);

/* n: node n in words for messages ("a list", "an empty list", "a
 * mapping", "null", or the scalar itself, quoted). */
const char *sf_describe(const yaml_node_t *n, char *buf, size_t size);

/* r, loc, fmt: report an error; the diagnostic, for notes. */
stir_diag *sf_fail(reader *r, stir_loc loc, const char *fmt, ...)
	STIR_PRINTF(3, 4);

/* n, v: whether n is a plain scalar holding a decimal integer (optional
 * sign) that fits in int64_t; its value in *v. */
bool sf_int_value(const yaml_node_t *n, int64_t *v);

/* n: whether node n is YAML's null: a plain scalar "", "~" or "null". */
bool sf_is_null(const yaml_node_t *n);

/* keys, n, buf, size: "a, b or c". */
const char *sf_key_list(const char *const *keys, int n, char *buf,
	size_t size);

/* r, n, prefix, what, expected: the text of n when n is a scalar that is
 * not null nor empty; else an error "PREFIX'WHAT' must be EXPECTED, not
 * ..." and NULL. */
const char *sf_need_name(reader *r, const yaml_node_t *n,
	const char *prefix, const char *what, const char *expected);

/* r, n, prefix, what, v: *v is the positive integer n holds; else an
 * error and -1. */
int sf_need_positive(reader *r, const yaml_node_t *n, const char *prefix,
	const char *what, int64_t *v);

/* r, index: node "index" of the document (libyaml's ids count from 1). */
yaml_node_t *sf_node_at(const reader *r, int index);

/* r, n: the location of node n. */
stir_loc sf_node_loc(const reader *r, const yaml_node_t *n);

/* r, m: the location of a libyaml mark (0-based) in the file. */
stir_loc sf_mark_loc(const reader *r, yaml_mark_t m);

/* r, doc: load the one document of the file into *doc: nesting deeper
 * than a schedule file needs, a second document and aliases of a node
 * that holds them are errors; every use of an alias gets a node of its
 * own, located at the alias.  0, or -1 after an error (nothing to delete
 * then). */
int sf_load(reader *r, yaml_document_t *doc);

/* r: report that memory ran out (once is enough to fail the read). */
void sf_oom(reader *r);

/* r, n, prefix, noun, table, count, value: *value = the index in
 * table[0..count-1] of the name n holds, and 0; else an error naming
 * the "noun" and the expected values, and -1. */
int sf_read_enum(reader *r, const yaml_node_t *n, const char *prefix,
	const char *noun, const char *const *table, int count, int *value);

/* r, map, prefix, noun, keys, n, required, vals: check mapping "map":
 * every key a scalar among keys[0..n-1], none twice, those whose bit is
 * set in "required" present.  vals[i] receives the value of keys[i] or
 * NULL.  Errors read "PREFIXunknown NOUN 'k' (expected ...)", "PREFIXNOUN
 * 'k' given twice", "PREFIXmissing NOUN 'k'".  0, or -1 after errors (the
 * keys that were fine are still in vals). */
int sf_read_keys(reader *r, const yaml_node_t *map, const char *prefix,
	const char *noun, const char *const *keys, int n, unsigned required,
	yaml_node_t **vals);

/* r, n, prefix, what, locs, count: the scalars of sequence n (a
 * non-empty list of names), owned; their locations in *locs; NULL after an
 * error. */
const char **sf_read_names(reader *r, const yaml_node_t *n,
	const char *prefix, const char *what, stir_loc **locs, int *count);

/* r, n: the text of scalar node n, owned by the schedule; NULL (with an
 * error) when it holds a NUL byte or memory runs out.  n must be a
 * scalar. */
const char *sf_scalar_text(reader *r, const yaml_node_t *n);

/* r, n, a: the rules of a decompose step. */
int sf_read_rules(reader *r, const yaml_node_t *n, sf_arg *a);

#endif
