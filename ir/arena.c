/* Bump allocation in chunks; see arena.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ir/arena.h"

#define ARENA_CHUNK_SIZE (64 * 1024)
#define ARENA_ALIGN 16

struct stir_arena_chunk {
	stir_arena_chunk *next; /* older chunk */
	size_t size;            /* usable bytes in data */
	size_t used;            /* bytes handed out */
	_Alignas(ARENA_ALIGN) unsigned char data[];
};

/* a: the arena to initialize (empty). */
void stir_arena_init(stir_arena *a)
{
	a->chunks = NULL;
	a->failed = false;
}

/* a: the arena whose chunks are all freed. */
void stir_arena_release(stir_arena *a)
{
	stir_arena_chunk *c = a->chunks;
	while (c) {
		stir_arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->chunks = NULL;
}

/* dst, src: the arenas; src's chunks go behind dst's current one, which
 * keeps receiving small allocations. */
void stir_arena_merge(stir_arena *dst, stir_arena *src)
{
	stir_arena_chunk *c = src->chunks;
	if (!c)
		return;
	stir_arena_chunk *last = c;
	while (last->next)
		last = last->next;
	if (dst->chunks) {
		last->next = dst->chunks->next;
		dst->chunks->next = c;
	} else
		dst->chunks = c;
	dst->failed |= src->failed;
	src->chunks = NULL;
	src->failed = false;
}

/* a: the arena whose allocations are counted. */
size_t stir_arena_bytes(const stir_arena *a)
{
	size_t n = 0;
	for (const stir_arena_chunk *c = a->chunks; c; c = c->next)
		n += c->used;
	return n;
}

/* a: the arena; size: bytes wanted.  Large requests get a chunk of their
 * own so that small ones keep filling the current chunk. */
void *stir_arena_alloc(stir_arena *a, size_t size)
{
	size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (size == 0)
		size = ARENA_ALIGN;
	stir_arena_chunk *c = a->chunks;
	if (!c || c->size - c->used < size) {
		size_t want = size > ARENA_CHUNK_SIZE / 4 ? size : ARENA_CHUNK_SIZE;
		if (want > SIZE_MAX - sizeof(*c)) {
			a->failed = true;
			return NULL;
		}
		stir_arena_chunk *n = malloc(sizeof(*n) + want);
		if (!n) {
			a->failed = true;
			return NULL;
		}
		n->size = want;
		n->used = 0;
		if (c && want != ARENA_CHUNK_SIZE) {
			/* keep the partly used chunk in front */
			n->next = c->next;
			c->next = n;
		} else {
			n->next = c;
			a->chunks = n;
		}
		c = n;
	}
	void *p = c->data + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

/* a: the arena; s: the string to copy, n: its length. */
char *stir_arena_strndup(stir_arena *a, const char *s, size_t n)
{
	char *p = stir_arena_alloc(a, n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* a: the arena; s: the NUL-terminated string to copy. */
char *stir_arena_strdup(stir_arena *a, const char *s)
{
	return s ? stir_arena_strndup(a, s, strlen(s)) : NULL;
}

/* a: the arena holding vec's storage; vec: the vector; p: the new element. */
int stir_ptr_vec_push(stir_arena *a, stir_ptr_vec *vec, void *p)
{
	if (vec->n == vec->cap) {
		int cap = vec->cap ? 2 * vec->cap : 4;
		void **v = stir_arena_alloc(a, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		if (vec->n)
			memcpy(v, vec->v, (size_t)vec->n * sizeof(*v));
		vec->v = v;
		vec->cap = cap;
	}
	vec->v[vec->n++] = p;
	return 0;
}
