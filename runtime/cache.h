/* The on-disk cache of compiled GPU code.
 *
 * An entry is named by the SHA-256 of its key, the byte string that
 * determines the compiled code: the NVRTC version, the architecture, the
 * program name, every option and the source.  The entry holds the whole key
 * besides the code, so that a colliding or damaged entry is recognised and
 * recompiled rather than loaded, and ends with a SHA-256 of everything
 * before it, so that a truncated or corrupted file is never trusted.
 *
 * Entries are written to a temporary file in the cache directory and
 * renamed into place: rename is atomic within a file system, so a process
 * reading the cache sees either no entry or a complete one, even while
 * another process writes the same entry.
 *
 * File layout (integers are 64-bit little-endian):
 *   "STIRKC1\n" | key length | key | code length | code | SHA-256 of all
 *   the preceding bytes
 */
#ifndef STIR_RUNTIME_CACHE_H
#define STIR_RUNTIME_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stir/ctx.h>
#include "runtime/sha256.h"

/* A cache key under construction: a sequence of length-prefixed fields, so
 * that no two different field lists give the same bytes. */
typedef struct stir_cache_key {
	unsigned char *data;   /* owned */
	size_t len, cap;       /* bytes used and allocated */
	bool failed;           /* sticky: memory ran out */
} stir_cache_key;

void stir_cache_key_init(stir_cache_key *k);
void stir_cache_key_release(stir_cache_key *k);
/* Append one field of n bytes. */
void stir_cache_key_add(stir_cache_key *k, const void *p, size_t n);
/* Append a NUL-terminated string as one field. */
void stir_cache_key_add_str(stir_cache_key *k, const char *s);

/* The cache directory: "override" unless NULL or "", else $STIR_CACHE_DIR,
 * else $XDG_CACHE_HOME/stir (an absolute XDG_CACHE_HOME only), else
 * $HOME/.cache/stir.  A string to free, or NULL when none is defined. */
char *stir_cache_dir(const char *override);
/* Whether $STIR_NO_CACHE asks to bypass the cache (set, not "" or "0"). */
bool stir_cache_disabled_by_env(void);
/* The path of the entry for key "k" in "dir" (to free), or NULL. */
char *stir_cache_entry_path(const char *dir, const stir_cache_key *k);

/* Look "k" up in "dir".  1 with *code (malloc'ed) and *size set when a
 * valid entry for exactly this key exists; 0 otherwise (absent, unreadable,
 * corrupted or for another key): the caller compiles. */
int stir_cache_lookup(const char *dir, const stir_cache_key *k,
	unsigned char **code, size_t *size);
/* Store "code" for "k" in "dir", creating the directory as needed.  0, or
 * -1 with a warning in ctx: a cache that cannot be written slows the next
 * run down but is no error. */
int stir_cache_store(stir_ctx *ctx, const char *dir, const stir_cache_key *k,
	const void *code, size_t size);
/* mkdir -p: create "path" and its missing parents.  0, or -1 with errno. */
int stir_mkdir_p(const char *path);

#endif
