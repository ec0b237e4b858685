/* SHA-256 as specified in FIPS 180-4, section 6.2.  Written for clarity
 * rather than speed: the cache hashes a few hundred kilobytes per compile,
 * which takes well under a millisecond either way. */
#include <string.h>
#include "runtime/sha256.h"

/* The first 32 bits of the fractional parts of the cube roots of the first
 * 64 primes (FIPS 180-4, 4.2.2). */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* x, n: rotate the 32-bit word x right by n (0 < n < 32) bits. */
static uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

/* s: the state to start afresh with the initial hash value (5.3.3). */
void stir_sha256_init(stir_sha256 *s)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	memcpy(s->h, h0, sizeof(h0));
	s->n_bytes = 0;
	s->n_buf = 0;
}

/* s: the state; p: one 64-byte block to compress into s->h. */
static void compress(stir_sha256 *s, const unsigned char *p)
{
	uint32_t w[64];
	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
			(uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^
			(w[t - 15] >> 3);
		uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^
			(w[t - 2] >> 10);
		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (int t = 0; t < 64; t++) {
		uint32_t S1 = ror(e, 6) ^ ror(e, 11) ^ ror(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = h + S1 + ch + K[t] + w[t];
		uint32_t S0 = ror(a, 2) ^ ror(a, 13) ^ ror(a, 22);
		uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = S0 + maj;
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
	s->h[5] += f;
	s->h[6] += g;
	s->h[7] += h;
}

/* s: the state; data, len: the next bytes of the message. */
void stir_sha256_update(stir_sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	s->n_bytes += len;
	if (s->n_buf > 0) {
		size_t take = 64 - s->n_buf < len ? 64 - s->n_buf : len;
		memcpy(s->buf + s->n_buf, p, take);
		s->n_buf += take;
		p += take;
		len -= take;
		if (s->n_buf < 64)
			return;
		compress(s, s->buf);
		s->n_buf = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		compress(s, p);
	memcpy(s->buf, p, len);
	s->n_buf = len;
}

/* s: the state to finish; out: receives the digest, big-endian words. */
void stir_sha256_final(stir_sha256 *s, unsigned char out[STIR_SHA256_SIZE])
{
	uint64_t bits = s->n_bytes * 8;
	/* pad with 0x80, zeros, and the 64-bit message length in bits, so
	 * that the padded message is a whole number of blocks (5.1.1) */
	s->buf[s->n_buf++] = 0x80;
	if (s->n_buf > 56) {
		memset(s->buf + s->n_buf, 0, 64 - s->n_buf);
		compress(s, s->buf);
		s->n_buf = 0;
	}
	memset(s->buf + s->n_buf, 0, 56 - s->n_buf);
	for (int i = 0; i < 8; i++)
		s->buf[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	compress(s, s->buf);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}

/* data, len: the message; out: its digest. */
void stir_sha256_buf(const void *data, size_t len,
	unsigned char out[STIR_SHA256_SIZE])
{
	stir_sha256 s;
	stir_sha256_init(&s);
	stir_sha256_update(&s, data, len);
	stir_sha256_final(&s, out);
}

/* digest: the hash to print; hex: receives 64 hex digits and a NUL. */
void stir_sha256_to_hex(const unsigned char digest[STIR_SHA256_SIZE],
	char hex[2 * STIR_SHA256_SIZE + 1])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < STIR_SHA256_SIZE; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[2 * STIR_SHA256_SIZE] = '\0';
}
