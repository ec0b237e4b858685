/* The on-disk kernel cache; the format and its guarantees are described in
 * cache.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ir/diag.h"
#include "runtime/cache.h"

static const char magic[8] = { 'S', 'T', 'I', 'R', 'K', 'C', '1', '\n' };

/* Entries larger than this are not read: no compiled kernel comes close,
 * and a damaged length must not make us allocate without bound. */
#define MAX_ENTRY_BYTES ((size_t)1 << 30)

/* k: the key to start empty. */
void stir_cache_key_init(stir_cache_key *k)
{
	memset(k, 0, sizeof(*k));
}

/* k: the key whose memory is released. */
void stir_cache_key_release(stir_cache_key *k)
{
	free(k->data);
	stir_cache_key_init(k);
}

/* k, p, n: append n raw bytes, without a length. */
static void key_append(stir_cache_key *k, const void *p, size_t n)
{
	if (k->failed)
		return;
	if (n > SIZE_MAX / 2 - k->len) {
		k->failed = true;
		return;
	}
	if (k->len + n > k->cap) {
		size_t cap = k->cap ? k->cap : 256;
		while (cap < k->len + n)
			cap *= 2;
		unsigned char *d = realloc(k->data, cap);
		if (!d) {
			k->failed = true;
			return;
		}
		k->data = d;
		k->cap = cap;
	}
	if (n)
		memcpy(k->data + k->len, p, n);
	k->len += n;
}

/* out, v: store v as 8 little-endian bytes. */
static void put_u64(unsigned char out[8], uint64_t v)
{
	for (int i = 0; i < 8; i++)
		out[i] = (unsigned char)(v >> (8 * i));
}

/* in: 8 little-endian bytes. */
static uint64_t get_u64(const unsigned char *in)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)in[i] << (8 * i);
	return v;
}

/* k, p, n: append a field: its length, then its bytes. */
void stir_cache_key_add(stir_cache_key *k, const void *p, size_t n)
{
	unsigned char len[8];
	put_u64(len, n);
	key_append(k, len, 8);
	key_append(k, p, n);
}

/* k, s: append the string s (without its NUL) as a field. */
void stir_cache_key_add_str(stir_cache_key *k, const char *s)
{
	stir_cache_key_add(k, s, strlen(s));
}

/* name: an environment variable; its value when set and not empty. */
static const char *env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* override: see cache.h. */
char *stir_cache_dir(const char *override)
{
	const char *v;
	char *dir = NULL;
	if (override && *override)
		return strdup(override);
	if ((v = env("STIR_CACHE_DIR")))
		return strdup(v);
	/* the XDG base directory specification says to ignore relative
	 * paths in its variables */
	if ((v = env("XDG_CACHE_HOME")) && v[0] == '/') {
		if (asprintf(&dir, "%s/stir", v) < 0)
			return NULL;
		return dir;
	}
	if ((v = env("HOME"))) {
		if (asprintf(&dir, "%s/.cache/stir", v) < 0)
			return NULL;
		return dir;
	}
	return NULL;
}

/* Read $STIR_NO_CACHE. */
bool stir_cache_disabled_by_env(void)
{
	const char *v = env("STIR_NO_CACHE");
	return v && strcmp(v, "0") != 0;
}

/* dir, k: the entry's file name is the hash of the key. */
char *stir_cache_entry_path(const char *dir, const stir_cache_key *k)
{
	unsigned char digest[STIR_SHA256_SIZE];
	char hex[2 * STIR_SHA256_SIZE + 1];
	char *path;
	if (k->failed)
		return NULL;
	stir_sha256_buf(k->data, k->len, digest);
	stir_sha256_to_hex(digest, hex);
	if (asprintf(&path, "%s/%s.kc", dir, hex) < 0)
		return NULL;
	return path;
}

/* path: a file to read whole; *data (malloc'ed) and *size receive it.
 * 0 or -1. */
static int read_whole(const char *path, unsigned char **data, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
	    (uint64_t)st.st_size > MAX_ENTRY_BYTES) {
		close(fd);
		return -1;
	}
	size_t n = (size_t)st.st_size;
	unsigned char *buf = malloc(n ? n : 1);
	size_t got = 0;
	while (buf && got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (!buf || got != n) {
		free(buf);
		return -1;
	}
	*data = buf;
	*size = n;
	return 0;
}

/* dir, k, code, size: see cache.h.  Every length in the file is checked
 * against the bytes actually present before it is used. */
int stir_cache_lookup(const char *dir, const stir_cache_key *k,
	unsigned char **code, size_t *size)
{
	char *path = stir_cache_entry_path(dir, k);
	unsigned char *f;
	size_t n;
	if (!path)
		return 0;
	int r = read_whole(path, &f, &n);
	free(path);
	if (r < 0)
		return 0;
	int hit = 0;
	unsigned char digest[STIR_SHA256_SIZE];
	size_t min = sizeof(magic) + 16 + STIR_SHA256_SIZE;
	if (n < min || memcmp(f, magic, sizeof(magic)))
		goto out;
	size_t body = n - STIR_SHA256_SIZE;
	stir_sha256_buf(f, body, digest);
	if (memcmp(digest, f + body, STIR_SHA256_SIZE))
		goto out;
	uint64_t key_len = get_u64(f + sizeof(magic));
	size_t at = sizeof(magic) + 8;
	/* at + key_len + 8 <= body, written so that nothing overflows */
	if (key_len != k->len || key_len > body - at - 8 ||
	    memcmp(f + at, k->data, k->len))
		goto out;
	at += k->len;
	uint64_t code_len = get_u64(f + at);
	at += 8;
	if (code_len != body - at)
		goto out;
	unsigned char *c = malloc(code_len ? code_len : 1);
	if (!c)
		goto out;
	memcpy(c, f + at, code_len);
	*code = c;
	*size = code_len;
	hit = 1;
out:
	free(f);
	return hit;
}

/* path: see cache.h. */
int stir_mkdir_p(const char *path)
{
	if (!path[0]) {
		errno = ENOENT;
		return -1;
	}
	char *p = strdup(path);
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	/* create each prefix ending before a '/', then the whole path */
	for (char *s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			int e = errno;
			free(p);
			errno = e;
			return -1;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* fd, p, n: write all n bytes.  0 or -1 with errno. */
static int write_all(int fd, const void *p, size_t n)
{
	const unsigned char *b = p;
	while (n > 0) {
		ssize_t r = write(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;
			return -1;
		}
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

/* ctx, dir, k, code, size: see cache.h. */
int stir_cache_store(stir_ctx *ctx, const char *dir, const stir_cache_key *k,
	const void *code, size_t size)
{
	char *path = stir_cache_entry_path(dir, k);
	char *tmp = NULL;
	unsigned char *f = NULL;
	int fd = -1, err = ENOMEM;
	bool created = false;  /* the temporary file exists */
	if (!path || asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		tmp = NULL;
		goto fail;
	}
	if (stir_mkdir_p(dir) < 0) {
		err = errno;
		goto fail;
	}
	/* the whole file is built in memory so that its hash can close it */
	size_t n = sizeof(magic) + 8 + k->len + 8 + size + STIR_SHA256_SIZE;
	f = malloc(n);
	if (!f)
		goto fail;
	size_t at = 0;
	memcpy(f, magic, sizeof(magic));
	at += sizeof(magic);
	put_u64(f + at, k->len);
	at += 8;
	memcpy(f + at, k->data, k->len);
	at += k->len;
	put_u64(f + at, size);
	at += 8;
	if (size)
		memcpy(f + at, code, size);
	at += size;
	stir_sha256_buf(f, at, f + at);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		goto fail;
	}
	created = true;
	if (write_all(fd, f, n) < 0) {
		err = errno;
		goto fail;
	}
	if (close(fd) < 0) {
		fd = -1;
		err = errno;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		err = errno;
		goto fail;
	}
	free(f);
	free(tmp);
	free(path);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	if (created)
		unlink(tmp);
	stir_warning(ctx, stir_loc_none(),
		"cannot write the kernel cache in '%s': %s", dir, strerror(err));
	free(f);
	free(tmp);
	free(path);
	return -1;
}
