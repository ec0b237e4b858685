/* Loading a schedule file's YAML (schedule/yaml.c reads the tree): libyaml's
 * document API, with the checks that come before the tree is read -- the
 * nesting depth, one document only -- and every alias given a node of its
 * own, located at the alias. */
#include <stdint.h>
#include <string.h>
#include <yaml.h>
#include "schedule/yaml.h"

/* r, m: see yaml.h. */
stir_loc sf_mark_loc(const reader *r, yaml_mark_t m)
{
	stir_loc l = { r->s->file, (int)m.line + 1, (int)m.column + 1 };
	return l;
}

/* r, offset: the location of byte "offset" of the text (libyaml's reader
 * errors give an offset only). */
static stir_loc offset_loc(const reader *r, size_t offset)
{
	stir_loc l = { r->s->file, 1, 1 };
	for (size_t i = 0; i < offset && i < r->s->len; i++) {
		if (r->s->text[i] == '\n') {
			l.line++;
			l.col = 1;
		} else {
			l.col++;
		}
	}
	return l;
}

/* r, p: report libyaml's error: its problem at its place, its context as
 * a note. */
static void yaml_error(reader *r, const yaml_parser_t *p)
{
	if (p->error == YAML_MEMORY_ERROR) {
		sf_oom(r);
		return;
	}
	stir_loc loc = p->error == YAML_READER_ERROR ?
		offset_loc(r, p->problem_offset) : sf_mark_loc(r, p->problem_mark);
	stir_diag *d = sf_fail(r, loc, "malformed YAML: %s", p->problem ?
		p->problem : "the parser failed");
	if (p->context)
		stir_diag_add_note(d, sf_mark_loc(r, p->context_mark), "%s",
			p->context);
}

/* The most nodes the copies of aliased nodes may add (see unshare). */
#define SF_MAX_ALIAS_NODES 100000

/* r, id, mark, budget: a copy of node id and of everything under it, every
 * node located at "mark"; its id, or 0 when *budget (nodes left to copy)
 * or memory runs out.  Adding nodes moves the document's node array, so
 * nodes are found again by id after each. */
static int copy_node(reader *r, int id, yaml_mark_t mark, int64_t *budget)
{
	yaml_document_t *d = r->doc;
	if (--*budget < 0)
		return 0;
	/* the item and pair stacks are allocated apart from the array */
	yaml_node_t n = *sf_node_at(r, id);
	int c = 0;
	switch (n.type) {
	case YAML_SCALAR_NODE:
		c = yaml_document_add_scalar(d, n.tag, n.data.scalar.value,
			(int)n.data.scalar.length, n.data.scalar.style);
		break;
	case YAML_SEQUENCE_NODE:
		c = yaml_document_add_sequence(d, n.tag, n.data.sequence.style);
		for (yaml_node_item_t *i = n.data.sequence.items.start;
		     c && i < n.data.sequence.items.top; i++) {
			int e = copy_node(r, *i, mark, budget);
			if (!e || !yaml_document_append_sequence_item(d, c, e))
				c = 0;
		}
		break;
	case YAML_MAPPING_NODE:
		c = yaml_document_add_mapping(d, n.tag, n.data.mapping.style);
		for (yaml_node_pair_t *q = n.data.mapping.pairs.start;
		     c && q < n.data.mapping.pairs.top; q++) {
			int k = copy_node(r, q->key, mark, budget);
			int v = k ? copy_node(r, q->value, mark, budget) : 0;
			if (!v || !yaml_document_append_mapping_pair(d, c, k, v))
				c = 0;
		}
		break;
	default:
		break;
	}
	if (c) {
		yaml_node_t *cn = sf_node_at(r, c);
		cn->start_mark = mark;
		cn->end_mark = mark;
	}
	return c;
}

/* A node whose events are being walked, and the one that holds it. */
typedef struct open_node {
	int id;
	const struct open_node *up;
} open_node;

/* r, p, slot, up, budget: walk the node whose id is in *slot (inside the
 * open nodes "up") together with its events from p; where the event is an
 * alias, put in *slot a copy of the aliased node located at the alias.  An
 * alias of a node that holds it (a cycle) is an error.  0, or -1 after an
 * error. */
static int unshare_node(reader *r, yaml_parser_t *p, int *slot,
	const open_node *up, int64_t *budget)
{
	yaml_event_t e;
	if (!yaml_parser_parse(p, &e)) {
		yaml_error(r, p);
		return -1;
	}
	int rc = 0;
	/* copies move the node array: keep the node itself, whose item and
	 * pair stacks do not move */
	yaml_node_t n0 = *sf_node_at(r, *slot), *n = &n0;
	open_node self = { *slot, up };
	switch (e.type) {
	case YAML_ALIAS_EVENT: {
		for (const open_node *o = up; o; o = o->up)
			if (o->id == *slot) {
				sf_fail(r, sf_mark_loc(r, e.start_mark), "a YAML alias may not "
					"stand for a node that holds it");
				yaml_event_delete(&e);
				return -1;
			}
		int c = copy_node(r, *slot, e.start_mark, budget);
		if (!c && *budget < 0)
			sf_fail(r, sf_mark_loc(r, e.start_mark), "the YAML aliases of the "
				"file stand for more than %d nodes", SF_MAX_ALIAS_NODES);
		else if (!c)
			sf_oom(r);
		*slot = c;
		rc = c ? 0 : -1;
		break;
	}
	case YAML_SEQUENCE_START_EVENT:
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     rc == 0 && i < n->data.sequence.items.top; i++)
			rc = unshare_node(r, p, i, &self, budget);
		break;
	case YAML_MAPPING_START_EVENT:
		for (yaml_node_pair_t *q = n->data.mapping.pairs.start;
		     rc == 0 && q < n->data.mapping.pairs.top; q++) {
			rc = unshare_node(r, p, &q->key, &self, budget);
			if (rc == 0)
				rc = unshare_node(r, p, &q->value, &self, budget);
		}
		break;
	default:
		break;
	}
	if (rc == 0 && (e.type == YAML_SEQUENCE_START_EVENT ||
	    e.type == YAML_MAPPING_START_EVENT)) {
		/* the end of the sequence or mapping */
		yaml_event_t end;
		if (!yaml_parser_parse(p, &end)) {
			yaml_error(r, p);
			rc = -1;
		} else {
			yaml_event_delete(&end);
		}
	}
	yaml_event_delete(&e);
	return rc;
}

/* r, p: a libyaml parser of the file's text in *p (to delete).  0, or -1
 * when memory runs out (reported; nothing to delete). */
static int open_parser(reader *r, yaml_parser_t *p)
{
	if (!yaml_parser_initialize(p)) {
		sf_oom(r);
		return -1;
	}
	yaml_parser_set_input_string(p, (const unsigned char *)r->s->text,
		r->s->len);
	return 0;
}

/* r: give every use of an alias a node of its own, located at the
 * alias (libyaml's loader makes it the aliased node itself, located at
 * its anchor), so that an error in a step written with an alias is
 * reported at that step.  The nodes' structure and the parser's events
 * come in the same order: the events are read again beside the tree.
 * 0, or -1 after an error. */
static int unshare_aliases(reader *r)
{
	yaml_parser_t p;
	if (!memchr(r->s->text, '*', r->s->len))
		return 0; /* no alias */
	if (open_parser(r, &p) < 0)
		return -1;
	int rc = 0;
	yaml_event_t e;
	/* the stream's and the document's start */
	for (int i = 0; i < 2 && rc == 0; i++) {
		if (!yaml_parser_parse(&p, &e)) {
			yaml_error(r, &p);
			rc = -1;
		} else {
			yaml_event_delete(&e);
		}
	}
	int root = 1;
	int64_t budget = SF_MAX_ALIAS_NODES;
	if (rc == 0)
		rc = unshare_node(r, &p, &root, NULL, &budget);
	yaml_parser_delete(&p);
	return rc;
}

/* How deep sequences and mappings may nest in a schedule file, its own
 * mapping included.  Real files nest fewer than ten levels; libyaml's
 * scanner costs the depth at every token (a line of a million '[' took
 * half an hour) and the readers below recurse. */
#define SF_MAX_DEPTH 64

/* r: walk the file's events before loading it and refuse sequences and
 * mappings nested more than SF_MAX_DEPTH deep, at the first one too deep,
 * before libyaml has scanned past it.  Syntax errors are left to the
 * loader.  0, or -1 after an error. */
static int check_depth(reader *r)
{
	yaml_parser_t p;
	if (open_parser(r, &p) < 0)
		return -1;
	int rc = 0, depth = 0;
	for (;;) {
		yaml_event_t e;
		if (!yaml_parser_parse(&p, &e))
			break; /* reported by the loader */
		yaml_event_type_t t = e.type;
		if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
			if (++depth > SF_MAX_DEPTH) {
				sf_fail(r, sf_mark_loc(r, e.start_mark), "sequences and mappings "
					"nested too deeply (more than %d levels)", SF_MAX_DEPTH);
				rc = -1;
			}
		} else if (t == YAML_SEQUENCE_END_EVENT ||
		    t == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		yaml_event_delete(&e);
		if (rc < 0 || t == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&p);
	return rc;
}

/* r, doc: see yaml.h. */
int sf_load(reader *r, yaml_document_t *doc)
{
	if (check_depth(r) < 0)
		return -1;
	yaml_parser_t p;
	if (open_parser(r, &p) < 0)
		return -1;
	if (!yaml_parser_load(&p, doc)) {
		yaml_error(r, &p);
		yaml_parser_delete(&p);
		return -1;
	}
	int rc = 0;
	if (!yaml_document_get_root_node(doc)) {
		stir_loc l = { r->s->file, 1, 1 };
		sf_fail(r, l, "the schedule file is empty: it must name a kernel "
			"('kernel: NAME')");
		rc = -1;
	} else {
		/* a second document is a mistake, not something to ignore */
		yaml_document_t extra;
		if (!yaml_parser_load(&p, &extra)) {
			yaml_error(r, &p);
			rc = -1;
		} else {
			if (yaml_document_get_root_node(&extra)) {
				sf_fail(r, sf_mark_loc(r, extra.start_mark), "a schedule file "
					"holds one YAML document, but a second one starts "
					"here");
				rc = -1;
			}
			yaml_document_delete(&extra);
		}
	}
	yaml_parser_delete(&p);
	if (rc == 0)
		rc = unshare_aliases(r);
	if (rc < 0)
		yaml_document_delete(doc);
	return rc;
}
