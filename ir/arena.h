/* A bump allocator: nothing in an arena is freed on its own, only the
 * whole arena at once.  A module's nodes live in its arenas (struct
 * stir_module in ir/nodes.h), the collected ones replaced by a fresh arena
 * after each pass and schedule primitive (ir/collect.c). */
#ifndef STIR_IR_ARENA_H
#define STIR_IR_ARENA_H

#include <stddef.h>
#include <stdbool.h>

typedef struct stir_arena_chunk stir_arena_chunk;

typedef struct stir_arena {
	stir_arena_chunk *chunks; /* owned: newest first */
	bool failed;              /* sticky: an allocation ran out of memory */
} stir_arena;

void stir_arena_init(stir_arena *a);
void stir_arena_release(stir_arena *a);
/* "size" zeroed bytes aligned for any type, or NULL (and a->failed set). */
void *stir_arena_alloc(stir_arena *a, size_t size);
/* A copy of "s" in the arena, or NULL. */
char *stir_arena_strdup(stir_arena *a, const char *s);
char *stir_arena_strndup(stir_arena *a, const char *s, size_t n);
/* Move the chunks of "src" into "dst" (freed with it); src is left
 * empty. */
void stir_arena_merge(stir_arena *dst, stir_arena *src);
/* The bytes the arena has handed out (its live size: chunks add at most
 * 64 KiB unused, their headers a few bytes each). */
size_t stir_arena_bytes(const stir_arena *a);

/* A growable array of pointers whose storage lives in an arena.  Growing
 * copies into a larger block; the old one is left to the arena. */
typedef struct stir_ptr_vec {
	int n;    /* number of elements */
	int cap;  /* allocated slots */
	void **v; /* slots, arena-owned */
} stir_ptr_vec;

/* Append "p"; 0, or -1 when memory runs out. */
int stir_ptr_vec_push(stir_arena *a, stir_ptr_vec *vec, void *p);

#endif
