/* What made what.  What the last schedule primitive or pass applied to a
 * kernel made: the names of the loops, blocks, buffers, iterations, axes
 * and kernels it created, each with the name of what it was made from
 * (the convention is described in include/stir/schedule.h); the names are
 * interned in the context, so that they outlive the kernel's later
 * rewrites.  And the link between the blocks of an iteration and those
 * of its init nest (nodes.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/schedule.h>
#include "ir/diag.h"
#include "ir/nodes.h"
#include "ir/visit.h"

/* k: see nodes.h. */
void stir_made_clear(stir_kernel *k)
{
	k->n_made = 0;
}

/* k, kind, name, from: see nodes.h. */
int stir_made_add(stir_kernel *k, stir_made_kind kind, const char *name,
	const char *from)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	if (k->n_made == k->cap_made) {
		int cap = k->cap_made ? 2 * k->cap_made : 8;
		stir_made_entry *v = realloc(k->made, (size_t)cap * sizeof(*v));
		if (!v) {
			stir_error_oom(ctx);
			return -1;
		}
		k->made = v;
		k->cap_made = cap;
	}
	const char *n = stir_ctx_intern(ctx, name);
	const char *f = from ? stir_ctx_intern(ctx, from) : NULL;
	if (!n || (from && !f)) {
		stir_error_oom(ctx);
		return -1;
	}
	k->made[k->n_made++] = (stir_made_entry){ kind, n, f };
	return 0;
}

/* m: see nodes.h. */
void stir_made_release(stir_module *m)
{
	for (int i = 0; i < m->kernels.n; i++) {
		stir_kernel *k = stir_kernel_at(&m->kernels, i);
		free(k->made);
		k->made = NULL;
		k->n_made = k->cap_made = 0;
		for (int j = 0; j < k->n_log; j++)
			free(k->log[j]);
		free(k->log);
		k->log = NULL;
		k->n_log = k->cap_log = 0;
	}
}

/* ---- the schedule log ---- */

/* The sections of a schedule file, by the digit a log entry starts with. */
static const char *const log_sections[] = {
	"format", "stage1", "stage2", "stage3"
};

/* k, on: see schedule.h. */
void stir_kernel_set_schedule_log(stir_kernel *k, bool on)
{
	if (k)
		k->log_on = on;
}

/* k, rc, fmt: see nodes.h. */
int stir_kernel_log_step(stir_kernel *k, int rc, const char *fmt, ...)
{
	if (rc != 0 || !k || !k->log_on)
		return rc;
	int sec = k->stage == STIR_STAGE_3 ? 3 : k->stage == STIR_STAGE_2 ?
		2 : strncmp(fmt, "decompose:", 10) ? 1 : 0;
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *e = len >= 0 ? malloc((size_t)len + 3) : NULL;
	if (e) {
		e[0] = (char)('0' + sec);
		e[1] = '|';
		va_start(ap, fmt);
		vsnprintf(e + 2, (size_t)len + 1, fmt, ap);
		va_end(ap);
	}
	if (e && k->n_log == k->cap_log) {
		int cap = k->cap_log ? 2 * k->cap_log : 16;
		char **v = realloc(k->log, (size_t)cap * sizeof(*v));
		if (v) {
			k->log = v;
			k->cap_log = cap;
		} else {
			free(e);
			e = NULL;
		}
	}
	if (!e) {
		stir_error_oom(stir_kernel_ctx(k));
		return -1;
	}
	k->log[k->n_log++] = e;
	return 0;
}

/* n, v, iv: the flow list of n names v[] (v NULL: of n sizes iv[]). */
static char *log_list(int n, const char *const *v, const int64_t *iv)
{
	size_t len = 3;
	for (int i = 0; i < n; i++)
		len += (v ? strlen(v[i]) : 24) + 2;
	char *s = malloc(len), *at = s;
	if (!s)
		return NULL;
	*at++ = '[';
	for (int i = 0; i < n; i++) {
		const char *sep = i ? ", " : "";
		if (v)
			at += sprintf(at, "%s%s", sep, v[i]);
		else if (iv[i] == 0)
			at += sprintf(at, "%snull", sep);
		else
			at += sprintf(at, "%s%lld", sep, (long long)iv[i]);
	}
	strcpy(at, "]");
	return s;
}

/* n, names: see nodes.h. */
char *stir_log_names(int n, const char *const *names)
{
	return log_list(n, names, NULL);
}

/* n, ints: see nodes.h. */
char *stir_log_ints(int n, const int64_t *ints)
{
	return log_list(n, NULL, ints);
}

/* t: see nodes.h. */
const char *stir_log_thread(int t)
{
	static const char *const names[] = {
		"blockIdx.x", "blockIdx.y", "blockIdx.z",
		"threadIdx.x", "threadIdx.y", "threadIdx.z"
	};
	return t >= 0 && t < 6 ? names[t] : "?";
}

/* k, out: see schedule.h. */
int stir_kernel_print_schedule(const stir_kernel *k, FILE *out)
{
	if (!k || !out)
		return -1;
	fprintf(out, "# the schedule of kernel %s, as its primitives were "
		"called\nkernel: %s\n", k->name, k->name);
	if (k->min_blocks_per_sm > 0)
		fprintf(out, "min_blocks_per_sm: %d\n", k->min_blocks_per_sm);
	if (k->overlap_launches)
		fprintf(out, "overlap_launches: true\n");
	for (int sec = 0; sec < 4; sec++) {
		bool head = false;
		for (int i = 0; i < k->n_log; i++) {
			if (k->log[i][0] != '0' + sec)
				continue;
			if (!head)
				fprintf(out, "%s:\n", log_sections[sec]);
			head = true;
			fprintf(out, "  - %s\n", k->log[i] + 2);
		}
	}
	return ferror(out) ? -1 : 0;
}

/* k, len: see schedule.h. */
char *stir_kernel_schedule_to_str(const stir_kernel *k, size_t *len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	int rc = f && stir_kernel_print_schedule(k, f) == 0 ? 0 : -1;
	if (f && fclose(f) != 0)
		rc = -1;
	if (rc < 0) {
		free(text);
		return NULL;
	}
	if (len)
		*len = n;
	return text;
}

/* k, n: see schedule.h. */
int stir_kernel_set_min_blocks_per_sm(stir_kernel *k, int n)
{
	if (!k)
		return -1;
	if (n < 0 || n > 32) {
		stir_error(stir_kernel_ctx(k), k->loc, "min_blocks_per_sm must be "
			"0 to 32, not %d", n);
		return -1;
	}
	k->min_blocks_per_sm = n;
	return 0;
}

/* k: see schedule.h. */
int stir_kernel_get_min_blocks_per_sm(const stir_kernel *k)
{
	return k ? k->min_blocks_per_sm : 0;
}

/* k, on: see schedule.h. */
int stir_kernel_set_overlap_launches(stir_kernel *k, bool on)
{
	if (!k)
		return -1;
	k->overlap_launches = on;
	return 0;
}

/* k: see schedule.h. */
bool stir_kernel_get_overlap_launches(const stir_kernel *k)
{
	return k && k->overlap_launches;
}

/* k, kind: see schedule.h. */
int stir_kernel_n_made(const stir_kernel *k, stir_made_kind kind)
{
	int n = 0;
	for (int i = 0; k && i < k->n_made; i++)
		n += k->made[i].kind == kind;
	return n;
}

/* k, kind, from, i: see schedule.h. */
const char *stir_kernel_get_made_from(const stir_kernel *k,
	stir_made_kind kind, const char *from, int i)
{
	for (int j = 0; k && j < k->n_made; j++) {
		const stir_made_entry *e = &k->made[j];
		if (e->kind != kind || (from && (!e->from ||
		    strcmp(e->from, from))))
			continue;
		if (i-- == 0)
			return e->name;
	}
	return NULL;
}

/* k, kind, i: see schedule.h. */
const char *stir_kernel_get_made(const stir_kernel *k, stir_made_kind kind,
	int i)
{
	return stir_kernel_get_made_from(k, kind, NULL, i);
}

/* init, blk: see nodes.h. */
bool stir_block_is_init_of(const stir_stmt *init, const stir_stmt *blk)
{
	return init->kind == STIR_STMT_BLOCK && blk->kind == STIR_STMT_BLOCK &&
		init->u.block.init && !blk->u.block.init && init->u.block.iter &&
		blk->u.block.iter && !strcmp(init->u.block.iter,
		blk->u.block.iter);
}

/* The blocks of a kernel read from text, for stir_kernel_link_inits. */
typedef struct link_blocks {
	int n, cap;
	stir_stmt **v;           /* heap */
	bool oom;
} link_blocks;

/* s, user: add s to the link_blocks "user" when it is a block; the walk
 * stops when memory runs out. */
static stir_visit_step collect_block(stir_stmt *s, void *user)
{
	link_blocks *b = user;
	if (s->kind != STIR_STMT_BLOCK)
		return STIR_VISIT_GO;
	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 16;
		stir_stmt **v = realloc(b->v, (size_t)cap * sizeof(*v));
		if (!v) {
			b->oom = true;
			return STIR_VISIT_STOP;
		}
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = s;
	return STIR_VISIT_GO;
}

/* s: whether s is one or more digits and nothing else. */
static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* k: see nodes.h. */
int stir_kernel_link_inits(stir_kernel *k)
{
	stir_ctx *ctx = stir_kernel_ctx(k);
	link_blocks b = { 0 };
	stir_visitor walk = { collect_block, NULL, NULL, NULL, 0, &b };
	stir_visit_list(&walk, &k->body); /* the blocks, outermost first */
	int n_inits = 0;
	/* the init blocks P_initN: P is after the last "_init" */
	for (int i = 0; i < b.n && !b.oom; i++) {
		stir_stmt *st = b.v[i];
		const char *name = st->u.block.name, *at = strstr(name, "_init");
		while (at && strstr(at + 1, "_init"))
			at = strstr(at + 1, "_init");
		if (!at || !all_digits(at + 5))
			continue;
		size_t pl = (size_t)(at - name);
		char *p = malloc(pl + 1);
		if (p) {
			memcpy(p, name, pl);
			p[pl] = '\0';
		}
		st->u.block.iter = p ? stir_ctx_intern(ctx, p) : NULL;
		st->u.block.init = true;
		free(p);
		b.oom = !st->u.block.iter;
		/* the inits first in b.v, for the search below */
		b.v[i] = b.v[n_inits];
		b.v[n_inits++] = st;
	}
	/* the other blocks: P followed by the fewest digits with an init */
	for (int i = n_inits; i < b.n && !b.oom; i++) {
		stir_stmt *st = b.v[i];
		const char *name = st->u.block.name;
		size_t len = strlen(name);
		for (size_t cut = 1; cut <= len && name[len - cut] >= '0' &&
		     name[len - cut] <= '9' && !st->u.block.iter; cut++)
			for (int j = 0; j < n_inits; j++) {
				const char *p = b.v[j]->u.block.iter;
				if (strlen(p) == len - cut && !strncmp(p, name,
				    len - cut)) {
					st->u.block.iter = p;
					break;
				}
			}
	}
	free(b.v);
	if (b.oom) {
		stir_error_oom(ctx);
		return -1;
	}
	return 0;
}
