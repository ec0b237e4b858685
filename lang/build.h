/* The builder's private declarations (lang/build.c, lang/build_stmt.c):
 * its state, the symbol table of names in scope, and what the two halves
 * ask of each other.  lang/build.c holds the symbol table, the
 * declarations and the kernels (and lang_build); lang/build_stmt.c the
 * expressions, sizes and statements. */
#ifndef STIR_LANG_BUILD_H
#define STIR_LANG_BUILD_H

#include <stdbool.h>
#include "lang/ast.h"
#include "ir/nodes.h"

typedef enum bind_kind {
	BIND_PARAM,
	BIND_AXIS,
	BIND_TENSOR,
	BIND_LOCAL,
	BIND_ITER,
	BIND_LET,
	BIND_FLAT,             /* a flat buffer (stages II, III) */
	BIND_LOOP,
	BIND_BLOCK,
} bind_kind;

/* What a name means at one point of the program. */
typedef struct binding {
	const char *name;      /* borrowed from the syntax tree */
	bind_kind kind;
	void *ptr;             /* stir_var *, stir_axis * or stir_buffer *;
	                          NULL until built, or when building failed */
	bool built;            /* building was attempted (tells an axis that
	                          failed from one declared later) */
	stir_loc loc;          /* of the declaring name token */
	bool dup;              /* the name was declared again (reported): a
	                          use of it as another kind of thing is no
	                          error of its own */
	int prev;              /* the binding this one hides, or -1 */
} binding;

/* A hash table slot: a name and its innermost binding. */
typedef struct slot {
	const char *name;      /* borrowed; NULL for an empty slot */
	int top;               /* index into the bindings, or -1 */
} slot;

/* An axis whose parent is declared after it: built with a placeholder
 * parent, fixed once every axis exists. */
typedef struct pending_parent {
	stir_axis *axis;
	int binding;           /* the parent's binding */
} pending_parent;

typedef struct builder {
	stir_ctx *ctx;         /* borrowed: receives diagnostics */
	stir_module *m;        /* the module being built */
	stir_kernel *k;        /* the kernel being built */
	binding *binds;        /* owned: a stack, innermost last */
	int n_binds, cap_binds;
	slot *slots;           /* owned: open addressing, cap a power of 2 */
	int n_slots, cap_slots;
	pending_parent *pending; /* owned */
	int n_pending, cap_pending;
	stir_axis *placeholder; /* module arena: stands in for a later parent */
	int n_errors;          /* errors the builder reported */
	bool oom;              /* a builder allocation failed */
	bool linked;           /* a block of the kernel being built wrote
	                          its iteration ("iter P", "init P") */
} builder;

/* Where a built statement goes. */
typedef enum target {
	TO_KERNEL,             /* the kernel's body */
	TO_THEN,               /* the then branch of "owner" */
	TO_ELSE,               /* its else branch */
	TO_INIT,               /* the init list of the iteration "owner" */
	TO_BODY,               /* the body of the iteration, loop or block
	                          "owner" */
} target;

/* b, loc, fmt: report a name error and count it. */
void build_error(builder *b, stir_loc loc, const char *fmt, ...)
	STIR_PRINTF(3, 4);
/* kind: how diagnostics call a name of this kind. */
const char *build_kind_name(bind_kind kind);

/* ---- the symbol table (build.c) ---- */

/* b, name, kind, ptr, loc: make "name", declared at loc, mean a new
 * binding (a duplicate in scope is reported and keeps meaning the first
 * declaration).  The binding's index, or -1 after a duplicate or when
 * memory runs out. */
int build_bind(builder *b, const char *name, bind_kind kind, void *ptr,
	stir_loc loc);
/* b, name: the innermost binding of "name", or NULL. */
binding *build_lookup(builder *b, const char *name);
/* b, mark: forget the bindings made since there were "mark" of them. */
void build_unbind_to(builder *b, int mark);
/* b, n: the binding of a name as written, reporting it when undefined. */
binding *build_resolve(builder *b, const lang_name *n);
/* b, n, allow_later: the axis named by n; when allow_later, an axis
 * declared after this point is accepted and gives the placeholder. */
stir_axis *build_resolve_axis(builder *b, const lang_name *n,
	bool allow_later);

/* ---- expressions and statements (build_stmt.c) ---- */

/* b, e, what, name: build the size or domain bound e of the axis or
 * buffer "name" ("what" names the role, as in the verifier's message:
 * "size of axis "); NULL after reporting one that is not a size. */
stir_expr *build_size(builder *b, const lang_expr *e, const char *what,
	const char *name);
/* b, l, owner, t: build a statement list into "owner" (NULL when it
 * failed: the list is still built, for its errors); let names end with
 * it. */
void build_list(builder *b, const lang_list *l, stir_stmt *owner,
	target t);

#endif
