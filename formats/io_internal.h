/* Helpers shared by the file readers in formats/ (not exported).
 *
 * Every reader takes its input as a stream (stir_io_stream): a file or a
 * memory buffer, decompressed on the fly when it starts with the gzip
 * magic bytes, handed out a chunk at a time.  Nothing reads a whole file
 * into memory unless asked to with a limit (stir_io_read_text), so memory
 * is bounded by what the reader keeps (a matrix, an array), not by the
 * size of the file, and an endless input (/dev/zero, a pipe) ends in an
 * error as soon as a reader sees that it is wrong or too long.
 */
#ifndef STIR_FORMATS_IO_INTERNAL_H
#define STIR_FORMATS_IO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stir/ctx.h>

/* Whether data (len bytes) starts with the two gzip magic bytes. */
static inline int stir_io_is_gzip(const void *data, size_t len)
{
	const uint8_t *p = data;
	return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/* ---- streaming gunzip (formats/gunzip.c) ---- */

/* arg: the source's state; *p, *n: the next chunk of compressed bytes
 * (borrowed, valid until the next call).  1 with a chunk, 0 at the end of
 * the input, -1 when reading failed (with a diagnostic). */
typedef int (*stir_inflate_more)(void *arg, const uint8_t **p, size_t *n);

typedef struct stir_inflater stir_inflater;

/* ctx, name: diagnostics and the file name they use; in, len: the first
 * chunk of gzip data (borrowed); more, arg: where the next chunks come
 * from (NULL: "in" is all).  A decompressor whose memory does not depend
 * on the data (about 100 KiB); NULL when memory runs out. */
stir_inflater *stir_inflater_new(stir_ctx *ctx, const char *name,
	const uint8_t *in, size_t len, stir_inflate_more more, void *arg);
/* s: the decompressor; *p, *n: the next chunk of plain bytes (borrowed,
 * valid until the next call).  1 with a chunk, 0 at the end of the last
 * gzip member (all checked), -1 on an error (one diagnostic naming the
 * byte offset of the fault; every later call fails too). */
int stir_inflater_read(stir_inflater *s, const uint8_t **p, size_t *n);
/* s, n: give back the last n bytes of the chunk the last
 * stir_inflater_read handed out: the next call hands them out again. */
void stir_inflater_unread(stir_inflater *s, size_t n);
/* s: the decompressor; how many compressed bytes it has consumed. */
uint64_t stir_inflater_in_offset(const stir_inflater *s);
void stir_inflater_free(stir_inflater *s);

/* ---- input streams (formats/readfile.c) ---- */

typedef struct stir_io_stream stir_io_stream;

/* ctx, path: open the file for reading as a stream, to be decompressed
 * when it starts with the gzip magic bytes.  NULL, with a diagnostic
 * naming the path and the system's reason, when it cannot be opened or
 * is a directory. */
stir_io_stream *stir_io_open(stir_ctx *ctx, const char *path);
/* ctx, name, data, len: a stream over len bytes at data (borrowed; gzip
 * detected as for files); "name" is used in diagnostics. */
stir_io_stream *stir_io_open_mem(stir_ctx *ctx, const char *name,
	const void *data, size_t len);
/* s: the stream; *p, *n: its next bytes (borrowed, valid until the next
 * call), which count as read.  1 with at least one byte, 0 at the end,
 * -1 on an error (reported once). */
int stir_io_next(stir_io_stream *s, const uint8_t **p, size_t *n);
/* s, buf, n: read up to n bytes into buf.  The number read (less than n
 * only at the end of the stream), or -1 on an error. */
int64_t stir_io_read(stir_io_stream *s, void *buf, size_t n);
/* s: how many bytes the stream has handed out so far. */
uint64_t stir_io_offset(const stir_io_stream *s);
/* s: an upper bound on the bytes the stream has left to give: exact for a
 * regular file or a buffer, 1032 times the compressed bytes left for gzip
 * data (the most deflate can expand), UINT64_MAX when unknown (a pipe, a
 * device). */
uint64_t stir_io_max_left(const stir_io_stream *s);
/* s: whether the stream is being decompressed. */
bool stir_io_is_compressed(const stir_io_stream *s);
/* s: the stream's name, as diagnostics use it. */
const char *stir_io_name(const stir_io_stream *s);
/* s: the stream to close (NULL is fine). */
void stir_io_close(stir_io_stream *s);

/* The most bytes a program or a schedule file may hold (after
 * decompression): far more than any real one, little enough to read in a
 * moment; docs/language.md promises it. */
#define STIR_IO_TEXT_LIMIT ((size_t)16 << 20)

/* ctx, path: read the whole file (decompressed) into *text, a malloc'ed
 * NUL-terminated buffer of *len bytes.  "what" ("program", "schedule")
 * names the contents in the error given when the file holds more than
 * "limit" bytes, which is found as soon as byte limit + 1 arrives.  0 or
 * -1 with a diagnostic. */
int stir_io_read_text(stir_ctx *ctx, const char *path, const char *what,
	size_t limit, char **text, size_t *len);

/* ctx, file, text, len, what: the first control byte of the text (a byte
 * below 0x20 other than tab, line feed, carriage return, vertical tab and
 * form feed, or 0x7f) is reported as an error at its line and column,
 * naming "what" the text is ("program").  0 when there is none, -1
 * otherwise. */
int stir_io_check_text(stir_ctx *ctx, const char *file, const char *text,
	size_t len, const char *what);
/* c: the name of control byte c ("NUL", "0x07"), in a static buffer of
 * the caller's: buf holds at least 8 bytes. */
const char *stir_io_control_name(unsigned char c, char *buf);

#endif
