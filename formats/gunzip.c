/* gzip decompression without zlib: RFC 1951 (inflate) and RFC 1952 (gzip
 * members).
 *
 * The decoder follows Mark Adler's puff (canonical Huffman codes described
 * by their per-length counts and a symbol list in code order) and adds a
 * direct lookup table for codes of up to FAST_BITS bits, which is what
 * makes it fast enough for multi-megabyte files: nearly every symbol of a
 * real stream is found with one table access, and the rare longer code
 * falls back to puff's bit-by-bit walk.
 *
 * Every read of the input goes through the bit buffer or an explicit
 * bounds check, every write of the output through out_reserve(), and every
 * loop either consumes input or stops with an error, so no input can make
 * it read or write out of bounds or spin forever.  Faults are reported as
 * "<what> at byte offset N" in the file "name"; N counts from the start of
 * the compressed data.
 *
 * There is no global state (the CRC table and the fixed Huffman tables are
 * built per call), so two threads may decompress at once.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/io.h>
#include "ir/diag.h"

#define MAX_BITS 15     /* longest code in deflate */
#define FAST_BITS 10    /* codes up to this length are decoded by table */
#define MAX_LCODES 288  /* literal/length symbols (286 and 287 unused) */
#define MAX_DCODES 32   /* distance symbols (30 and 31 unused) */
#define MAX_CLCODES 19  /* code-length code symbols */

/* A canonical Huffman code. */
typedef struct huffman {
	/* Indexed by the next FAST_BITS input bits: (symbol << 4) | length
	 * for codes of at most FAST_BITS bits; 0 where the code is longer or
	 * unassigned, in which case decode_slow() walks count/symbol. */
	uint16_t fast[1 << FAST_BITS];
	uint16_t count[MAX_BITS + 1];  /* number of codes of each length */
	uint16_t symbol[MAX_LCODES];   /* symbols in canonical code order */
} huffman;

/* The state of one stir_gunzip call. */
typedef struct inflater {
	stir_ctx *ctx;          /* borrowed: receives the diagnostics */
	const char *name;       /* borrowed: file name for diagnostics */
	const uint8_t *in;      /* borrowed: the compressed bytes */
	size_t len;             /* number of bytes in "in" */
	size_t pos;             /* next byte of "in" to load into bitbuf */
	uint64_t bitbuf;        /* unread bits, least significant first;
	                         * bits above bitcnt are always zero */
	int bitcnt;             /* number of valid bits in bitbuf */
	uint8_t *out;           /* owned (until handed to the caller) */
	size_t out_len;         /* bytes produced so far */
	size_t out_cap;         /* allocated size of out */
	size_t member_start;    /* out_len when the current member began */
	bool have_fixed;        /* whether fixed_len/fixed_dist are built */
	huffman fixed_len;      /* the fixed literal/length code (3.2.6) */
	huffman fixed_dist;     /* the fixed distance code */
	huffman dyn_len;        /* the current dynamic literal/length code */
	huffman dyn_dist;       /* the current dynamic distance code */
	uint32_t crc_table[256]; /* CRC-32 (reflected 0xedb88320) by byte */
} inflater;

/* Base lengths and extra bits of length symbols 257..285 (3.2.5). */
static const uint16_t len_base[29] = {
	3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
	35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t len_extra[29] = {
	0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
	3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
/* Base distances and extra bits of distance symbols 0..29. */
static const uint16_t dist_base[30] = {
	1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
	257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289,
	16385, 24577 };
static const uint8_t dist_extra[30] = {
	0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
	7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

/* s: the inflater; off: the byte offset of the fault; fmt: what is wrong.
 * Reports the error and returns -1. */
static int fail(inflater *s, size_t off, const char *fmt, ...)
	STIR_PRINTF(3, 4);
static int fail(inflater *s, size_t off, const char *fmt, ...)
{
	char what[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	stir_error(s->ctx, stir_loc_file(s->name), "%s at byte offset %zu",
		what, off);
	return -1;
}

/* s: the inflater whose input ran out. */
static int truncated(inflater *s)
{
	return fail(s, s->len, "unexpected end of gzip data");
}

/* s: the inflater; the offset of the byte holding the next unread bit. */
static size_t bit_offset(const inflater *s)
{
	return s->pos - (size_t)(s->bitcnt / 8) - (s->bitcnt % 8 ? 1 : 0);
}

/* s: the inflater whose bit buffer is topped up from the input, as far as
 * the input goes. */
static inline void refill(inflater *s)
{
	while (s->bitcnt <= 56 && s->pos < s->len) {
		s->bitbuf |= (uint64_t)s->in[s->pos++] << s->bitcnt;
		s->bitcnt += 8;
	}
}

/* s: the inflater; n: how many bits (0..16) to read into *v, first bit in
 * the least significant place.  0, or -1 when the input ends. */
static inline int getbits(inflater *s, int n, unsigned *v)
{
	*v = 0;  /* defined even on failure, which keeps gcc's flow analysis quiet */
	if (s->bitcnt < n) {
		refill(s);
		if (s->bitcnt < n)
			return truncated(s);
	}
	*v = (unsigned)(s->bitbuf & ((1u << n) - 1));
	s->bitbuf >>= n;
	s->bitcnt -= n;
	return 0;
}

/* s: the inflater, moved to the next byte boundary; the whole bytes still
 * in the bit buffer are given back to the input so that byte-oriented
 * reads (stored blocks, the gzip trailer) can use s->in directly. */
static void align_to_byte(inflater *s)
{
	s->pos -= (size_t)(s->bitcnt / 8);
	s->bitbuf = 0;
	s->bitcnt = 0;
}

/* s: the inflater; n: bytes about to be appended.  Grows the output
 * geometrically, always leaving room for a terminating NUL.  0 or -1. */
static int out_reserve(inflater *s, size_t n)
{
	if (n < s->out_cap - s->out_len)
		return 0;
	if (n > SIZE_MAX - 1 - s->out_len)
		return fail(s, bit_offset(s), "decompressed data too large");
	size_t need = s->out_len + n + 1;
	size_t cap = s->out_cap ? s->out_cap : 4096;
	while (cap < need) {
		if (cap > SIZE_MAX / 2) {
			cap = need;
			break;
		}
		cap *= 2;
	}
	uint8_t *p = realloc(s->out, cap);
	if (!p) {
		stir_error(s->ctx, stir_loc_file(s->name),
			"out of memory decompressing (%zu bytes)", cap);
		return -1;
	}
	s->out = p;
	s->out_cap = cap;
	return 0;
}

/* s: the inflater whose CRC table is filled. */
static void crc_init(inflater *s)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		s->crc_table[i] = c;
	}
}

/* s: the inflater (for its table); p, n: the bytes whose CRC-32 is
 * returned. */
static uint32_t crc32_of(const inflater *s, const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++)
		c = s->crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

/* p: four bytes of a little-endian number. */
static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		(uint32_t)p[3] << 24;
}

/* The result of building a Huffman code. */
enum build_result {
	CODE_COMPLETE,     /* every bit string decodes */
	CODE_EMPTY,        /* no symbol has a code */
	CODE_SINGLE,       /* one code of length 1, the other bit unused */
	CODE_INCOMPLETE,   /* some bit strings decode to nothing */
	CODE_OVERSUBSCRIBED, /* more codes than bit strings */
};

/* code, len: reverse the low "len" bits of code (deflate sends Huffman
 * codes most significant bit first into a least-significant-first
 * stream). */
static unsigned reverse_bits(unsigned code, int len)
{
	unsigned r = 0;
	for (int i = 0; i < len; i++, code >>= 1)
		r = (r << 1) | (code & 1);
	return r;
}

/* h: the code to build; lens, n: the code length (0..15) of each of the n
 * symbols.  The caller decides which kinds of result it accepts. */
static enum build_result build(huffman *h, const uint8_t *lens, int n)
{
	uint16_t offs[MAX_BITS + 2];
	unsigned next[MAX_BITS + 1];

	memset(h->count, 0, sizeof(h->count));
	for (int i = 0; i < n; i++)
		h->count[lens[i]]++;
	memset(h->fast, 0, sizeof(h->fast));
	if (h->count[0] == n)
		return CODE_EMPTY;

	/* each length doubles the bit strings left; codes use them up */
	int left = 1;
	for (int len = 1; len <= MAX_BITS; len++) {
		left <<= 1;
		left -= h->count[len];
		if (left < 0)
			return CODE_OVERSUBSCRIBED;
	}

	offs[1] = 0;
	for (int len = 1; len <= MAX_BITS; len++)
		offs[len + 1] = offs[len] + h->count[len];
	for (int i = 0; i < n; i++)
		if (lens[i])
			h->symbol[offs[lens[i]]++] = (uint16_t)i;

	/* canonical codes (3.2.2): first code of each length, then in
	 * symbol order within a length */
	unsigned code = 0;
	next[0] = 0;
	for (int len = 1; len <= MAX_BITS; len++) {
		code = (code + (len > 1 ? h->count[len - 1] : 0)) << 1;
		next[len] = code;
	}
	for (int i = 0; i < n; i++) {
		int len = lens[i];
		if (!len)
			continue;
		unsigned c = next[len]++;
		if (len > FAST_BITS)
			continue;
		uint16_t e = (uint16_t)(i << 4 | len);
		for (unsigned j = reverse_bits(c, len); j < (1u << FAST_BITS);
		     j += 1u << len)
			h->fast[j] = e;
	}
	if (left == 0)
		return CODE_COMPLETE;
	if (h->count[1] == 1 && left == (1 << MAX_BITS) / 2)
		return CODE_SINGLE;
	return CODE_INCOMPLETE;
}

/* s, h: decode one symbol of h bit by bit (puff's method), for codes
 * longer than FAST_BITS and for bit strings the code leaves unassigned.
 * The symbol, or -1. */
static int decode_slow(inflater *s, const huffman *h)
{
	size_t off = bit_offset(s);
	int code = 0, first = 0, index = 0;
	for (int len = 1; len <= MAX_BITS; len++) {
		if (len > s->bitcnt)
			return truncated(s);
		code |= (int)(s->bitbuf >> (len - 1)) & 1;
		int count = h->count[len];
		if (code - count < first) {
			s->bitbuf >>= len;
			s->bitcnt -= len;
			return h->symbol[index + (code - first)];
		}
		index += count;
		first = (first + count) << 1;
		code <<= 1;
	}
	return fail(s, off, "invalid Huffman code");
}

/* s, h: decode one symbol of h.  The symbol, or -1. */
static inline int decode(inflater *s, const huffman *h)
{
	if (s->bitcnt < MAX_BITS)
		refill(s);
	unsigned e = h->fast[s->bitbuf & ((1u << FAST_BITS) - 1)];
	if (!e)
		return decode_slow(s, h);
	int n = (int)(e & 15);
	/* bits past the end of the input read as zeros; a code that needs
	 * them is a truncation */
	if (n > s->bitcnt)
		return truncated(s);
	s->bitbuf >>= n;
	s->bitcnt -= n;
	return (int)(e >> 4);
}

/* s: the inflater; one stored block (3.2.4) after its header bits. */
static int inflate_stored(inflater *s)
{
	align_to_byte(s);
	if (s->len - s->pos < 4)
		return truncated(s);
	const uint8_t *p = s->in + s->pos;
	unsigned n = p[0] | (unsigned)p[1] << 8;
	unsigned nn = p[2] | (unsigned)p[3] << 8;
	if (n != (~nn & 0xffffu))
		return fail(s, s->pos, "stored block length does not match its complement");
	s->pos += 4;
	if (s->len - s->pos < n)
		return truncated(s);
	if (out_reserve(s, n) < 0)
		return -1;
	memcpy(s->out + s->out_len, s->in + s->pos, n);
	s->out_len += n;
	s->pos += n;
	return 0;
}

/* s: the inflater; lencode, distcode: the codes of one compressed block,
 * whose symbols are decoded up to the end-of-block symbol. */
static int inflate_codes(inflater *s, const huffman *lencode,
	const huffman *distcode)
{
	for (;;) {
		size_t off = bit_offset(s);
		int sym = decode(s, lencode);
		if (sym < 0)
			return -1;
		if (sym < 256) {
			if (s->out_cap - s->out_len < 2 && out_reserve(s, 1) < 0)
				return -1;
			s->out[s->out_len++] = (uint8_t)sym;
			continue;
		}
		if (sym == 256)
			return 0;
		sym -= 257;
		if (sym >= 29)
			return fail(s, off, "invalid literal/length symbol %d",
				sym + 257);
		unsigned extra;
		if (getbits(s, len_extra[sym], &extra) < 0)
			return -1;
		size_t len = len_base[sym] + extra;

		off = bit_offset(s);
		int dsym = decode(s, distcode);
		if (dsym < 0)
			return -1;
		if (dsym >= 30)
			return fail(s, off, "invalid distance symbol %d", dsym);
		if (getbits(s, dist_extra[dsym], &extra) < 0)
			return -1;
		size_t dist = dist_base[dsym] + extra;
		if (dist > s->out_len - s->member_start)
			return fail(s, off, "distance %zu too far back", dist);

		if (out_reserve(s, len) < 0)
			return -1;
		uint8_t *to = s->out + s->out_len;
		const uint8_t *from = to - dist;
		if (dist >= len)
			memcpy(to, from, len);
		else
			for (size_t i = 0; i < len; i++)
				to[i] = from[i];  /* overlapping: repeats the pattern */
		s->out_len += len;
	}
}

/* s: the inflater, whose fixed codes (3.2.6) are built on first use. */
static void build_fixed(inflater *s)
{
	uint8_t lens[MAX_LCODES];
	int i = 0;
	for (; i < 144; i++)
		lens[i] = 8;
	for (; i < 256; i++)
		lens[i] = 9;
	for (; i < 280; i++)
		lens[i] = 7;
	for (; i < MAX_LCODES; i++)
		lens[i] = 8;
	build(&s->fixed_len, lens, MAX_LCODES);
	for (i = 0; i < MAX_DCODES; i++)
		lens[i] = 5;
	build(&s->fixed_dist, lens, MAX_DCODES);
	s->have_fixed = true;
}

/* s: the inflater; off: where the block's code description starts; h:
 * the code just built from it, with result r; what: its name. 0 when a
 * literal/length or distance code of this kind is acceptable: complete,
 * or (as zlib allows) a single one-bit code; an empty distance code is
 * also fine, for a block of literals only. */
static int check_code(inflater *s, size_t off, enum build_result r,
	const char *what, bool empty_ok)
{
	switch (r) {
	case CODE_COMPLETE:
	case CODE_SINGLE:
		return 0;
	case CODE_EMPTY:
		if (empty_ok)
			return 0;
		return fail(s, off, "empty %s code", what);
	case CODE_OVERSUBSCRIBED:
		return fail(s, off, "over-subscribed %s code", what);
	default:
		return fail(s, off, "incomplete %s code", what);
	}
}

/* s: the inflater; one dynamic block (3.2.7) after its header bits. */
static int inflate_dynamic(inflater *s)
{
	static const uint8_t order[MAX_CLCODES] = {
		16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
	uint8_t cl_lens[MAX_CLCODES];
	uint8_t lens[MAX_LCODES + MAX_DCODES];
	unsigned nlen, ndist, ncode, v;
	size_t off = bit_offset(s);

	if (getbits(s, 5, &nlen) < 0 || getbits(s, 5, &ndist) < 0 ||
	    getbits(s, 4, &ncode) < 0)
		return -1;
	nlen += 257;
	ndist += 1;
	ncode += 4;
	if (nlen > 286 || ndist > 30)
		return fail(s, off, "too many length or distance symbols (%u, %u)",
			nlen, ndist);

	memset(cl_lens, 0, sizeof(cl_lens));
	for (unsigned i = 0; i < ncode; i++) {
		if (getbits(s, 3, &v) < 0)
			return -1;
		cl_lens[order[i]] = (uint8_t)v;
	}
	huffman *clcode = &s->dyn_len;  /* reused: built again below */
	enum build_result r = build(clcode, cl_lens, MAX_CLCODES);
	if (r != CODE_COMPLETE)
		return fail(s, off, "%s code-length code",
			r == CODE_OVERSUBSCRIBED ? "over-subscribed" : "incomplete");

	unsigned index = 0;
	while (index < nlen + ndist) {
		size_t soff = bit_offset(s);
		int sym = decode(s, clcode);
		if (sym < 0)
			return -1;
		if (sym < 16) {
			lens[index++] = (uint8_t)sym;
			continue;
		}
		uint8_t len = 0;
		unsigned rep;
		if (sym == 16) {
			if (index == 0)
				return fail(s, soff, "repeated code length with no previous length");
			len = lens[index - 1];
			if (getbits(s, 2, &rep) < 0)
				return -1;
			rep += 3;
		} else if (sym == 17) {
			if (getbits(s, 3, &rep) < 0)
				return -1;
			rep += 3;
		} else {
			if (getbits(s, 7, &rep) < 0)
				return -1;
			rep += 11;
		}
		if (index + rep > nlen + ndist)
			return fail(s, soff, "too many code lengths");
		while (rep--)
			lens[index++] = len;
	}
	if (lens[256] == 0)
		return fail(s, off, "missing end-of-block code");

	r = build(&s->dyn_len, lens, (int)nlen);
	if (check_code(s, off, r, "literal/length", false) < 0)
		return -1;
	r = build(&s->dyn_dist, lens + nlen, (int)ndist);
	if (check_code(s, off, r, "distance", true) < 0)
		return -1;
	return inflate_codes(s, &s->dyn_len, &s->dyn_dist);
}

/* s: the inflater, at the start of a raw deflate stream, which is
 * decoded block by block up to and including the final block. */
static int inflate_blocks(inflater *s)
{
	unsigned last, type;
	do {
		size_t off = bit_offset(s);
		if (getbits(s, 1, &last) < 0 || getbits(s, 2, &type) < 0)
			return -1;
		int r;
		switch (type) {
		case 0:
			r = inflate_stored(s);
			break;
		case 1:
			if (!s->have_fixed)
				build_fixed(s);
			r = inflate_codes(s, &s->fixed_len, &s->fixed_dist);
			break;
		case 2:
			r = inflate_dynamic(s);
			break;
		default:
			r = fail(s, off, "invalid deflate block type 3");
			break;
		}
		if (r < 0)
			return -1;
	} while (!last);
	return 0;
}

/* s: the inflater; n: bytes the header field at s->pos needs. */
static int need_bytes(inflater *s, size_t n)
{
	return s->len - s->pos < n ? truncated(s) : 0;
}

/* s: the inflater; a zero-terminated header field (FNAME, FCOMMENT) at
 * s->pos is skipped. */
static int skip_zstring(inflater *s)
{
	const uint8_t *z = memchr(s->in + s->pos, 0, s->len - s->pos);
	if (!z)
		return truncated(s);
	s->pos = (size_t)(z - s->in) + 1;
	return 0;
}

/* s: the inflater, at a byte boundary where a gzip member (2.3) starts;
 * the member is parsed and its data appended to the output. */
static int gzip_member(inflater *s)
{
	enum { FTEXT = 1, FHCRC = 2, FEXTRA = 4, FNAME = 8, FCOMMENT = 16 };
	size_t start = s->pos;
	const uint8_t *h = s->in + start;

	if (s->len - start >= 1 && h[0] != 0x1f)
		return fail(s, start, "not gzip data (bad magic bytes)");
	if (s->len - start >= 2 && h[1] != 0x8b)
		return fail(s, start + 1, "not gzip data (bad magic bytes)");
	if (s->len - start >= 3 && h[2] != 8)
		return fail(s, start + 2, "unsupported gzip compression method %u",
			h[2]);
	if (s->len - start >= 4 && (h[3] & 0xe0))
		return fail(s, start + 3, "reserved gzip header flags set (0x%02x)",
			h[3]);
	if (need_bytes(s, 10) < 0)
		return -1;
	unsigned flags = h[3];
	s->pos += 10;
	if (flags & FEXTRA) {
		if (need_bytes(s, 2) < 0)
			return -1;
		size_t xlen = s->in[s->pos] | (size_t)s->in[s->pos + 1] << 8;
		s->pos += 2;
		if (need_bytes(s, xlen) < 0)
			return -1;
		s->pos += xlen;
	}
	if ((flags & FNAME) && skip_zstring(s) < 0)
		return -1;
	if ((flags & FCOMMENT) && skip_zstring(s) < 0)
		return -1;
	if (flags & FHCRC) {
		if (need_bytes(s, 2) < 0)
			return -1;
		unsigned want = s->in[s->pos] | (unsigned)s->in[s->pos + 1] << 8;
		unsigned got = crc32_of(s, s->in + start, s->pos - start) & 0xffff;
		if (want != got)
			return fail(s, s->pos, "gzip header CRC mismatch");
		s->pos += 2;
	}

	s->member_start = s->out_len;
	if (inflate_blocks(s) < 0)
		return -1;
	align_to_byte(s);

	if (need_bytes(s, 8) < 0)
		return -1;
	uint32_t want_crc = get_le32(s->in + s->pos);
	uint32_t want_size = get_le32(s->in + s->pos + 4);
	size_t n = s->out_len - s->member_start;
	uint32_t crc = crc32_of(s, s->out + s->member_start, n);
	if (crc != want_crc)
		return fail(s, s->pos,
			"CRC-32 mismatch (stored %08x, computed %08x)",
			(unsigned)want_crc, (unsigned)crc);
	if ((uint32_t)n != want_size)
		return fail(s, s->pos + 4,
			"length mismatch (stored %u, decompressed %zu mod 2^32)",
			(unsigned)want_size, n);
	s->pos += 8;
	return 0;
}

/* len, data: the compressed bytes, whose last four bytes give the size of
 * the last member modulo 2^32.  A first guess of the output size that is
 * exact for the usual single-member file and never absurd: deflate cannot
 * expand more than 1032 times, and the guess is capped at 256 MiB. */
static size_t size_hint(const uint8_t *data, size_t len)
{
	size_t hint = len >= 18 ? get_le32(data + len - 4) : 0;
	size_t most = len > SIZE_MAX / 1032 ? SIZE_MAX : len * 1032;
	if (hint > most)
		hint = most;
	if (hint > ((size_t)256 << 20))
		hint = (size_t)256 << 20;
	return hint;
}

/* ctx, name: diagnostics and the file they name; data, len: gzip data of
 * one or more members.  *out receives the decompressed bytes followed by a
 * NUL that *out_len does not count. */
int stir_gunzip(stir_ctx *ctx, const char *name, const void *data, size_t len,
	void **out, size_t *out_len)
{
	inflater *s = calloc(1, sizeof(*s));
	if (!s) {
		stir_error_oom(ctx);
		return -1;
	}
	s->ctx = ctx;
	s->name = name;
	s->in = data;
	s->len = len;
	crc_init(s);

	int r = out_reserve(s, size_hint(s->in, len));
	if (r == 0) {
		/* at least one member, then as many as follow */
		do
			r = gzip_member(s);
		while (r == 0 && s->pos < s->len);
	}
	if (r < 0) {
		free(s->out);
		free(s);
		return -1;
	}
	s->out[s->out_len] = '\0';
	*out = s->out;
	*out_len = s->out_len;
	free(s);
	return 0;
}
