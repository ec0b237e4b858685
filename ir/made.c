/* What the last schedule primitive or pass applied to a kernel made: the
 * names of the loops, blocks, buffers, iterations, axes and kernels it
 * created, each with the name of what it was made from (the convention
 * is described in include/stir/schedule.h).  The names are interned in the
 * context, so that they outlive the kernel's later rewrites. */
#include <stdlib.h>
#include <string.h>
#include <stir/schedule.h>
#include "ir/diag.h"
#include "ir/nodes.h"

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
	}
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
