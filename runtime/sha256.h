/* SHA-256 (FIPS 180-4), used to name and check the entries of the kernel
 * cache.  Small and dependency-free; tested against the NIST vectors. */
#ifndef STIR_RUNTIME_SHA256_H
#define STIR_RUNTIME_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define STIR_SHA256_SIZE 32

/* The state of a hash being computed. */
typedef struct stir_sha256 {
	uint32_t h[8];           /* chaining value */
	uint64_t n_bytes;        /* bytes hashed so far */
	unsigned char buf[64];   /* a partial block */
	size_t n_buf;            /* bytes in buf */
} stir_sha256;

void stir_sha256_init(stir_sha256 *s);
void stir_sha256_update(stir_sha256 *s, const void *data, size_t len);
/* Finish the hash into "out"; "s" must be initialised again before reuse. */
void stir_sha256_final(stir_sha256 *s, unsigned char out[STIR_SHA256_SIZE]);
/* The hash of one buffer. */
void stir_sha256_buf(const void *data, size_t len,
	unsigned char out[STIR_SHA256_SIZE]);
/* Write the 64 lower-case hex digits of "digest" and a NUL into "hex". */
void stir_sha256_to_hex(const unsigned char digest[STIR_SHA256_SIZE],
	char hex[2 * STIR_SHA256_SIZE + 1]);

#endif
