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
 * The decoder is a resumable state machine (enum inflate_state): input is
 * pulled from a source a chunk at a time, and output goes into a window of
 * fixed size (the 32 KiB of history back references need, plus a chunk),
 * from which the reader takes a chunk per call.  Decoding stops between
 * symbols when the window is full, so memory is the same whatever the
 * data inflates to, and a reader that finds a fault early (a Matrix
 * Market file whose first line is wrong) never inflates the rest.
 *
 * Every read of the input goes through the bit buffer or an explicit
 * bounds check, every write of the output is preceded by a check of the
 * window's room (out_full()), and every loop either consumes input or
 * stops with an error, so no input can make it read or write out of
 * bounds or spin forever.  Faults are reported as "<what> at byte offset
 * N" in the file "name"; N counts from the start of the compressed
 * data.
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
#include "formats/io_internal.h"
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

/* Where a streaming inflater is between calls. */
enum inflate_state {
	ST_MEMBER,      /* at the start of a gzip member */
	ST_BLOCK,       /* at the header of a deflate block */
	ST_STORED,      /* inside a stored block (stored_left bytes to go) */
	ST_CODES,       /* inside a Huffman-coded block */
	ST_TRAILER,     /* after the last block of a member */
	ST_NEXT,        /* after a member: another one or the end */
	ST_END,         /* the stream ended well */
	ST_FAILED,      /* an error was reported */
};

/* Room the output window keeps for history: the farthest a deflate
 * distance reaches back. */
#define WINDOW_HISTORY 32768
/* Fresh bytes produced per call of stir_inflater_read (at most). */
#define WINDOW_CHUNK 65536
/* The longest output of one symbol (a match of 258 bytes). */
#define MAX_MATCH 258
#define WINDOW_SIZE (WINDOW_HISTORY + WINDOW_CHUNK + MAX_MATCH)

/* The state of one decompression.  Input is pulled, a chunk at a time,
 * from a source callback; output goes into a window of fixed size that
 * keeps the last 32 KiB for back references, so memory stays the same
 * whatever the stream inflates to. */
struct stir_inflater {
	stir_ctx *ctx;          /* borrowed: receives the diagnostics */
	const char *name;       /* borrowed: file name for diagnostics */
	stir_inflate_more more; /* borrowed: gives the next input chunk, or
	                         * NULL when "in" is all there is */
	void *more_arg;         /* borrowed: its argument */
	const uint8_t *in;      /* borrowed: the current input chunk */
	size_t len;             /* number of bytes in "in" */
	size_t pos;             /* next byte of "in" to load into bitbuf */
	uint64_t base;          /* offset of in[0] in the compressed data */
	bool in_eof;            /* whether "more" said there is no more */
	bool src_failed;        /* whether "more" failed (and said why) */
	uint64_t bitbuf;        /* unread bits, least significant first;
	                         * bits above bitcnt are always zero */
	int bitcnt;             /* number of valid bits in bitbuf */
	enum inflate_state state; /* where decoding resumes */
	bool last;              /* whether the current block is the last */
	size_t stored_left;     /* bytes left in the current stored block */
	const huffman *cur_len; /* borrowed: the current block's codes */
	const huffman *cur_dist;
	uint64_t member_out;    /* bytes the current member produced */
	uint32_t crc;           /* running CRC-32 of the member (pre-final) */
	uint8_t *win;           /* owned: WINDOW_SIZE bytes of output */
	size_t wr;              /* bytes of win written */
	size_t rd;              /* bytes of win handed to the reader */
	size_t crc_from;        /* bytes of win already in crc */
	bool have_fixed;        /* whether fixed_len/fixed_dist are built */
	huffman fixed_len;      /* the fixed literal/length code (3.2.6) */
	huffman fixed_dist;     /* the fixed distance code */
	huffman dyn_len;        /* the current dynamic literal/length code */
	huffman dyn_dist;       /* the current dynamic distance code */
	uint32_t crc_table[8][256]; /* CRC-32 (reflected 0xedb88320): [0] by
	                         * byte, [k] for a byte followed by k zero
	                         * bytes (slicing by 8) */
};
typedef struct stir_inflater inflater;

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
	if (s->src_failed)
		return -1;  /* the source reported why */
	return fail(s, (size_t)(s->base + s->len), "unexpected end of gzip data");
}

/* s: the inflater; the offset of the byte holding the next unread bit. */
static size_t bit_offset(const inflater *s)
{
	return (size_t)(s->base + s->pos) - (size_t)(s->bitcnt / 8) -
		(s->bitcnt % 8 ? 1 : 0);
}

/* s: the inflater whose input chunk is used up; asks the source for the
 * next one.  False at the end of the input, or when the source failed
 * (and reported why: truncated() then adds nothing). */
static bool next_chunk(inflater *s)
{
	if (s->in_eof || !s->more) {
		s->in_eof = true;
		return false;
	}
	const uint8_t *p;
	size_t n;
	int r = s->more(s->more_arg, &p, &n);
	if (r <= 0 || n == 0) {
		s->in_eof = true;
		s->src_failed = r < 0;
		return false;
	}
	s->base += s->len;
	s->in = p;
	s->len = n;
	s->pos = 0;
	return true;
}

/* s: the inflater whose bit buffer is topped up from the input, as far as
 * the input goes. */
static inline void refill(inflater *s)
{
	while (s->bitcnt <= 56) {
		if (s->pos == s->len && !next_chunk(s))
			return;
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

/* s: the inflater, moved to the next byte boundary (the whole bytes left
 * in the bit buffer are read next, through getbits). */
static void align_to_byte(inflater *s)
{
	s->bitbuf >>= s->bitcnt % 8;
	s->bitcnt -= s->bitcnt % 8;
}

/* s: the inflater, at a byte boundary; the next byte into *v. */
static int get_byte(inflater *s, unsigned *v)
{
	return getbits(s, 8, v);
}

/* s: the inflater, at a byte boundary; whether any input is left. */
static bool more_input(inflater *s)
{
	return s->bitcnt > 0 || s->pos < s->len || next_chunk(s);
}

/* s: the inflater; n: bytes about to be appended: 0 when the window has
 * room for them, 1 when it is full and the reader must take what it has
 * first. */
static int out_full(const inflater *s, size_t n)
{
	return WINDOW_SIZE - s->wr < n;
}

/* s: the inflater whose CRC tables are filled. */
static void crc_init(inflater *s)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		s->crc_table[0][i] = c;
	}
	for (int t = 1; t < 8; t++)
		for (int i = 0; i < 256; i++) {
			uint32_t c = s->crc_table[t - 1][i];
			s->crc_table[t][i] = s->crc_table[0][c & 0xff] ^ (c >> 8);
		}
}

/* s: the inflater (for its tables); crc: the CRC-32 of the bytes before;
 * p, n: more bytes.  The CRC-32 of them all (zlib's crc32() convention:
 * start from 0).  Eight bytes a step (slicing by 8), in any byte order. */
static uint32_t crc32_of(const inflater *s, uint32_t crc, const uint8_t *p,
	size_t n)
{
	const uint32_t (*t)[256] = s->crc_table;
	uint32_t c = crc ^ 0xffffffffu;
	for (; n >= 8; n -= 8, p += 8) {
		uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			(uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		c = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^
			t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
			t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
	}
	for (; n > 0; n--, p++)
		c = t[0][(c ^ *p) & 0xff] ^ (c >> 8);
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

/* s: the inflater; the header of a stored block (3.2.4) after its
 * first three bits. */
static int stored_header(inflater *s)
{
	align_to_byte(s);
	unsigned b[4];
	size_t off = bit_offset(s);
	for (int i = 0; i < 4; i++)
		if (get_byte(s, &b[i]) < 0)
			return -1;
	unsigned n = b[0] | b[1] << 8;
	unsigned nn = b[2] | b[3] << 8;
	if (n != (~nn & 0xffffu))
		return fail(s, off, "stored block length does not match its complement");
	s->stored_left = n;
	s->state = ST_STORED;
	return 0;
}

/* s: the inflater, inside a stored block; copies as much of it as the
 * window has room for. */
static int inflate_stored(inflater *s)
{
	while (s->stored_left > 0 && !out_full(s, 1)) {
		/* whole bytes still in the bit buffer first, then straight
		 * from the input chunk */
		if (s->bitcnt >= 8) {
			unsigned v;
			getbits(s, 8, &v);
			s->win[s->wr++] = (uint8_t)v;
			s->stored_left--;
			s->member_out++;
			continue;
		}
		if (s->pos == s->len && !next_chunk(s))
			return truncated(s);
		size_t n = s->len - s->pos;
		if (n > s->stored_left)
			n = s->stored_left;
		if (n > WINDOW_SIZE - s->wr)
			n = WINDOW_SIZE - s->wr;
		memcpy(s->win + s->wr, s->in + s->pos, n);
		s->wr += n;
		s->pos += n;
		s->stored_left -= n;
		s->member_out += n;
	}
	if (s->stored_left == 0)
		s->state = s->last ? ST_TRAILER : ST_BLOCK;
	return 0;
}

/* s: the inflater, inside a Huffman-coded block whose codes are
 * s->cur_len and s->cur_dist; decodes symbols while the window has room
 * for the longest one, up to the end-of-block symbol. */
static int inflate_codes(inflater *s)
{
	const huffman *lencode = s->cur_len, *distcode = s->cur_dist;
	while (!out_full(s, MAX_MATCH)) {
		size_t off = bit_offset(s);
		int sym = decode(s, lencode);
		if (sym < 0)
			return -1;
		if (sym < 256) {
			s->win[s->wr++] = (uint8_t)sym;
			s->member_out++;
			continue;
		}
		if (sym == 256) {
			s->state = s->last ? ST_TRAILER : ST_BLOCK;
			return 0;
		}
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
		/* the window keeps WINDOW_HISTORY bytes, the most a distance
		 * can reach */
		if (dist > s->member_out)
			return fail(s, off, "distance %zu too far back", dist);

		uint8_t *to = s->win + s->wr;
		const uint8_t *from = to - dist;
		/* an overlapping copy repeats the last "dist" bytes: copied
		 * in doubling steps, each from bytes already in place */
		for (size_t step = dist, left = len; left > 0; step *= 2) {
			size_t k = left < step ? left : step;
			memcpy(to + (len - left), from, k);
			left -= k;
		}
		s->wr += len;
		s->member_out += len;
	}
	return 0;
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
	s->cur_len = &s->dyn_len;
	s->cur_dist = &s->dyn_dist;
	s->state = ST_CODES;
	return 0;
}

/* s: the inflater, at the header of a deflate block, which is read
 * (and, for a dynamic block, its code description). */
static int block_header(inflater *s)
{
	unsigned last, type;
	size_t off = bit_offset(s);
	if (getbits(s, 1, &last) < 0 || getbits(s, 2, &type) < 0)
		return -1;
	s->last = last;
	switch (type) {
	case 0:
		return stored_header(s);
	case 1:
		if (!s->have_fixed)
			build_fixed(s);
		s->cur_len = &s->fixed_len;
		s->cur_dist = &s->fixed_dist;
		s->state = ST_CODES;
		return 0;
	case 2:
		return inflate_dynamic(s);
	default:
		return fail(s, off, "invalid deflate block type 3");
	}
}

/* s: the inflater; *crc: the header CRC so far, updated with byte v. */
static void crc_byte(inflater *s, uint32_t *crc, unsigned v)
{
	uint8_t b = (uint8_t)v;
	*crc = crc32_of(s, *crc, &b, 1);
}

/* s: the inflater, at a byte boundary where a gzip member (2.3) starts;
 * the member's header is read and checked. */
static int member_header(inflater *s)
{
	enum { FTEXT = 1, FHCRC = 2, FEXTRA = 4, FNAME = 8, FCOMMENT = 16 };
	size_t start = bit_offset(s);
	unsigned h[10];
	uint32_t hcrc = 0;

	for (int i = 0; i < 10; i++) {
		if (get_byte(s, &h[i]) < 0)
			return -1;
		crc_byte(s, &hcrc, h[i]);
		if (i == 0 && h[0] != 0x1f)
			return fail(s, start, "not gzip data (bad magic bytes)");
		if (i == 1 && h[1] != 0x8b)
			return fail(s, start + 1, "not gzip data (bad magic bytes)");
		if (i == 2 && h[2] != 8)
			return fail(s, start + 2,
				"unsupported gzip compression method %u", h[2]);
		if (i == 3 && (h[3] & 0xe0))
			return fail(s, start + 3,
				"reserved gzip header flags set (0x%02x)", h[3]);
	}
	unsigned flags = h[3], v;
	if (flags & FEXTRA) {
		unsigned lo, hi;
		if (get_byte(s, &lo) < 0 || get_byte(s, &hi) < 0)
			return -1;
		crc_byte(s, &hcrc, lo);
		crc_byte(s, &hcrc, hi);
		for (size_t xlen = lo | hi << 8; xlen > 0; xlen--) {
			if (get_byte(s, &v) < 0)
				return -1;
			crc_byte(s, &hcrc, v);
		}
	}
	/* FNAME, then FCOMMENT: zero-terminated, of any length (read and
	 * dropped a byte at a time) */
	for (unsigned f = FNAME; f <= FCOMMENT; f <<= 1) {
		if (!(flags & f))
			continue;
		do {
			if (get_byte(s, &v) < 0)
				return -1;
			crc_byte(s, &hcrc, v);
		} while (v != 0);
	}
	if (flags & FHCRC) {
		size_t off = bit_offset(s);
		unsigned lo, hi;
		if (get_byte(s, &lo) < 0 || get_byte(s, &hi) < 0)
			return -1;
		if ((lo | hi << 8) != (hcrc & 0xffff))
			return fail(s, off, "gzip header CRC mismatch");
	}
	s->member_out = 0;
	s->crc = 0;
	s->state = ST_BLOCK;
	return 0;
}

/* s: the inflater; adds the window's bytes not yet counted to the
 * member's CRC. */
static void crc_catch_up(inflater *s)
{
	s->crc = crc32_of(s, s->crc, s->win + s->crc_from, s->wr - s->crc_from);
	s->crc_from = s->wr;
}

/* s: the inflater, after a member's last block: its trailer (CRC-32 and
 * size modulo 2^32) is read and checked. */
static int member_trailer(inflater *s)
{
	align_to_byte(s);
	crc_catch_up(s);
	size_t off = bit_offset(s);
	uint8_t t[8];
	for (int i = 0; i < 8; i++) {
		unsigned v;
		if (get_byte(s, &v) < 0)
			return -1;
		t[i] = (uint8_t)v;
	}
	uint32_t want_crc = get_le32(t);
	uint32_t want_size = get_le32(t + 4);
	if (s->crc != want_crc)
		return fail(s, off,
			"CRC-32 mismatch (stored %08x, computed %08x)",
			(unsigned)want_crc, (unsigned)s->crc);
	if ((uint32_t)s->member_out != want_size)
		return fail(s, off + 4,
			"length mismatch (stored %u, decompressed %llu mod 2^32)",
			(unsigned)want_size, (unsigned long long)s->member_out);
	s->state = ST_NEXT;
	return 0;
}

/* s: the inflater; runs the decoder until the window holds a chunk of
 * fresh output or the stream ends.  0 or -1. */
static int inflate_some(inflater *s)
{
	/* everything handed out: keep only the history back references
	 * need */
	if (s->rd == s->wr && s->wr > WINDOW_HISTORY + WINDOW_CHUNK / 2) {
		memmove(s->win, s->win + s->wr - WINDOW_HISTORY, WINDOW_HISTORY);
		s->wr = s->rd = s->crc_from = WINDOW_HISTORY;
	}
	while (s->wr - s->rd < WINDOW_CHUNK / 2) {
		int r = 0;
		switch (s->state) {
		case ST_MEMBER:
			r = member_header(s);
			break;
		case ST_BLOCK:
			r = block_header(s);
			break;
		case ST_STORED:
			r = inflate_stored(s);
			break;
		case ST_CODES:
			r = inflate_codes(s);
			break;
		case ST_TRAILER:
			r = member_trailer(s);
			break;
		case ST_NEXT:
			/* any bytes after a member start another one */
			s->state = more_input(s) ? ST_MEMBER : ST_END;
			break;
		case ST_END:
		case ST_FAILED:
			crc_catch_up(s);
			return s->state == ST_END ? 0 : -1;
		}
		if (r < 0) {
			s->state = ST_FAILED;
			return -1;
		}
		if (out_full(s, MAX_MATCH))
			break;
	}
	crc_catch_up(s);
	return 0;
}

/* ctx, name, in, len, more, arg: see io_internal.h. */
stir_inflater *stir_inflater_new(stir_ctx *ctx, const char *name,
	const uint8_t *in, size_t len, stir_inflate_more more, void *arg)
{
	inflater *s = calloc(1, sizeof(*s));
	uint8_t *win = malloc(WINDOW_SIZE);
	if (!s || !win) {
		free(s);
		free(win);
		stir_error_oom(ctx);
		return NULL;
	}
	s->ctx = ctx;
	s->name = name;
	s->in = in;
	s->len = len;
	s->more = more;
	s->more_arg = arg;
	s->win = win;
	s->state = ST_MEMBER;
	crc_init(s);
	return s;
}

/* s, p, n: see io_internal.h. */
int stir_inflater_read(stir_inflater *s, const uint8_t **p, size_t *n)
{
	if (s->rd == s->wr) {
		if (s->state == ST_FAILED)
			return -1;
		if (inflate_some(s) < 0)
			return -1;
		if (s->rd == s->wr)
			return 0;
	}
	*p = s->win + s->rd;
	*n = s->wr - s->rd;
	s->rd = s->wr;
	return 1;
}

/* s, n: see io_internal.h. */
void stir_inflater_unread(stir_inflater *s, size_t n)
{
	s->rd -= n;
}

/* s: see io_internal.h. */
uint64_t stir_inflater_in_offset(const stir_inflater *s)
{
	return s->base + s->pos - (uint64_t)(s->bitcnt / 8);
}

/* s: the inflater to free (NULL is fine). */
void stir_inflater_free(stir_inflater *s)
{
	if (!s)
		return;
	free(s->win);
	free(s);
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
	stir_inflater *s = stir_inflater_new(ctx, name, data, len, NULL, NULL);
	if (!s)
		return -1;
	size_t cap = size_hint(data, len) + 1, n = 0;
	uint8_t *buf = malloc(cap);
	if (!buf) {
		stir_inflater_free(s);
		stir_error(ctx, stir_loc_file(name),
			"out of memory decompressing (%zu bytes)", cap);
		return -1;
	}
	const uint8_t *p;
	size_t got;
	int r;
	while ((r = stir_inflater_read(s, &p, &got)) > 0) {
		if (got >= cap - n) {
			size_t ncap = cap;
			while (got >= ncap - n) {
				if (ncap > SIZE_MAX / 2) {
					ncap = 0;
					break;
				}
				ncap *= 2;
			}
			uint8_t *nb = ncap ? realloc(buf, ncap) : NULL;
			if (!nb) {
				stir_error(ctx, stir_loc_file(name),
					"out of memory decompressing (%zu bytes)",
					n + got + 1);
				r = -1;
				break;
			}
			buf = nb;
			cap = ncap;
		}
		memcpy(buf + n, p, got);
		n += got;
	}
	stir_inflater_free(s);
	if (r < 0) {
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	*out = buf;
	*out_len = n;
	return 0;
}
