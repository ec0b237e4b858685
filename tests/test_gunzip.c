/* Tests of gzip decompression and whole-file reading (formats/gunzip.c,
 * formats/readfile.c).  The fixtures in tests/data/io/ come from
 * make-fixtures.py there: gzip -1/-9, zlib's stored and fixed-Huffman
 * strategies, hand-built streams with long codes and with one fault
 * each (all rejected by zlib for the same reason). */
#include <fcntl.h>
#include <unistd.h>
#include <stir/io.h>
#include "tests/testio.h"

/* ctx, rel: decompress fixture "rel"; *len receives the size.  The result
 * (NULL on failure) is the caller's. */
static uint8_t *gunzip_fixture(stir_ctx *ctx, const char *rel, size_t *len)
{
	size_t n;
	uint8_t *gz = test_read_fixture(rel, &n);
	void *out = NULL;
	int r = stir_gunzip(ctx, rel, gz, n, &out, len);
	free(gz);
	if (r < 0) {
		ck_assert_ptr_null(out);
		return NULL;
	}
	ck_assert_int_eq(r, 0);
	return out;
}

/* rel, want, want_len: fixture "rel" must decompress to exactly want. */
static void check_decodes_to(const char *rel, const uint8_t *want,
	size_t want_len)
{
	stir_ctx *ctx = stir_ctx_alloc();
	size_t len;
	uint8_t *out = gunzip_fixture(ctx, rel, &len);
	ck_assert_msg(out != NULL, "%s: %s", rel,
		stir_ctx_n_diagnostics(ctx) ? stir_diag_get_message(
			stir_ctx_get_diagnostic(ctx, 0)) : "?");
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	ck_assert_uint_eq(len, want_len);
	ck_assert_msg(memcmp(out, want, len) == 0, "%s differs", rel);
	ck_assert_int_eq(out[len], '\0');
	free(out);
	stir_ctx_free(ctx);
}

START_TEST(test_sample_every_kind)
{
	/* the same 33903 bytes compressed every way */
	static const char *const files[] = {
		"tests/data/io/sample-1.gz",  /* gzip -1 */
		"tests/data/io/sample-9.gz",  /* gzip -9 */
		"tests/data/io/stored.gz",    /* stored blocks only */
		"tests/data/io/fixed.gz",     /* fixed Huffman blocks only */
		"tests/data/io/multi.gz",     /* three members */
	};
	size_t n;
	uint8_t *want = test_read_fixture("tests/data/io/sample.bin", &n);
	ck_assert_uint_eq(n, 33903);
	check_decodes_to(files[_i], want, n);
	free(want);
}
END_TEST

START_TEST(test_small_and_flags)
{
	size_t n;
	uint8_t *want = test_read_fixture("tests/data/io/small.txt", &n);
	check_decodes_to("tests/data/io/small.gz", want, n);
	/* FEXTRA, FNAME, FCOMMENT and FHCRC all set */
	check_decodes_to("tests/data/io/flags.gz", want, n);
	free(want);
	check_decodes_to("tests/data/io/empty.gz", (const uint8_t *)"", 0);
}
END_TEST

START_TEST(test_long_codes)
{
	/* code lengths 1..15, a single one-bit distance code, and a block
	 * whose only code is end-of-block */
	const char *want = "abcdefghijklmnoonmlkjihgfedcba";
	check_decodes_to("tests/data/io/long-codes.gz", (const uint8_t *)want,
		strlen(want));
}
END_TEST

/* A corrupt fixture and the exact error it must give. */
static const struct {
	const char *file;
	const char *message;
} bad_files[] = {
	{ "bad-magic.gz", "not gzip data (bad magic bytes) at byte offset 1" },
	{ "bad-method.gz", "unsupported gzip compression method 7 at byte offset 2" },
	{ "bad-flags.gz", "reserved gzip header flags set (0x20) at byte offset 3" },
	{ "bad-hcrc.gz", "gzip header CRC mismatch at byte offset 12" },
	{ "bad-crc.gz", "CRC-32 mismatch (stored 3b8c50e9, computed 3b8c50e8) "
		"at byte offset 46" },
	{ "bad-isize.gz", "length mismatch (stored 94, decompressed 93 mod 2^32) "
		"at byte offset 50" },
	{ "trailing-garbage.gz", "not gzip data (bad magic bytes) at byte offset 54" },
	{ "bad-blocktype.gz", "invalid deflate block type 3 at byte offset 10" },
	{ "bad-stored-len.gz", "stored block length does not match its "
		"complement at byte offset 11" },
	{ "bad-too-many-lens.gz", "too many length or distance symbols (287, 1) "
		"at byte offset 10" },
	{ "bad-cl-oversubscribed.gz", "over-subscribed code-length code at byte "
		"offset 10" },
	{ "bad-cl-incomplete.gz", "incomplete code-length code at byte offset 10" },
	/* 3 + 14 header bits + 19 * 3 code-length bits = byte 19 */
	{ "bad-repeat-first.gz", "repeated code length with no previous length "
		"at byte offset 19" },
	/* the second repeat (after 7 + 3 bits more) */
	{ "bad-repeat-overflow.gz", "too many code lengths at byte offset 20" },
	{ "bad-no-eob.gz", "missing end-of-block code at byte offset 10" },
	{ "bad-lit-oversubscribed.gz", "over-subscribed literal/length code at "
		"byte offset 10" },
	{ "bad-lit-incomplete.gz", "incomplete literal/length code at byte "
		"offset 10" },
	{ "bad-dist-oversubscribed.gz", "over-subscribed distance code at byte "
		"offset 10" },
	/* 3 header bits, 8 for 'a', 7 for symbol 257: the distance at bit 18 */
	{ "bad-too-far.gz", "distance 2 too far back at byte offset 12" },
	/* header (3 + 14 + 57 bits), 259 code lengths of 4 bits, 'a' and
	 * symbol 257 (3 bits): bit 1113 */
	{ "bad-dist-unassigned.gz", "invalid Huffman code at byte offset 149" },
	{ "bad-dist-symbol.gz", "invalid distance symbol 30 at byte offset 12" },
	{ "bad-lit-symbol.gz", "invalid literal/length symbol 286 at byte offset 10" },
};

START_TEST(test_bad_files)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "tests/data/io/%s", bad_files[_i].file);
	stir_ctx *ctx = stir_ctx_alloc();
	size_t len = 12345;
	uint8_t *out = gunzip_fixture(ctx, rel, &len);
	ck_assert_ptr_null(out);
	ck_assert_uint_eq(len, 12345);  /* untouched on failure */
	ck_assert_str_eq(test_only_error(ctx), bad_files[_i].message);
	stir_loc loc = test_only_loc(ctx);
	ck_assert_str_eq(loc.file, rel);
	ck_assert_int_eq(loc.line, 0);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_formatted)
{
	stir_ctx *ctx = stir_ctx_alloc();
	const uint8_t junk[] = { 'h', 'i' };
	void *out;
	size_t len;
	ck_assert_int_eq(stir_gunzip(ctx, "x.gz", junk, 2, &out, &len), -1);
	char *s = stir_ctx_diagnostics_to_str(ctx);
	ck_assert_str_eq(s,
		"x.gz: error: not gzip data (bad magic bytes) at byte offset 0\n");
	free(s);
	stir_ctx_free(ctx);
}
END_TEST

/* rel: every proper prefix of fixture "rel" (the first 64, then one in
 * "stride") fails with
 * "unexpected end" at the prefix's length: a missing bit is never
 * guessed. */
static void check_truncations(const char *rel, size_t stride)
{
	size_t n;
	uint8_t *gz = test_read_fixture(rel, &n);
	stir_ctx *ctx = stir_ctx_alloc();
	char want[128];
	for (size_t k = 0; k < n; k += k < 64 ? 1 : stride) {
		uint8_t *p = test_copy_exact(gz, k);
		void *out = NULL;
		size_t len;
		ck_assert_int_eq(stir_gunzip(ctx, "t.gz", p, k, &out, &len), -1);
		ck_assert_ptr_null(out);
		snprintf(want, sizeof(want),
			"unexpected end of gzip data at byte offset %zu", k);
		ck_assert_str_eq(test_only_error(ctx), want);
		stir_ctx_clear_diagnostics(ctx);
		free(p);
	}
	/* and the whole file is fine */
	void *out;
	size_t len;
	uint8_t *p = test_copy_exact(gz, n);
	ck_assert_int_eq(stir_gunzip(ctx, "t.gz", p, n, &out, &len), 0);
	free(out);
	free(p);
	free(gz);
	stir_ctx_free(ctx);
}

START_TEST(test_truncation)
{
	check_truncations("tests/data/io/small.gz", 1);
	check_truncations("tests/data/io/flags.gz", 1);
	check_truncations("tests/data/io/long-codes.gz", 1);
	check_truncations("tests/data/io/stored.gz", 61);
	check_truncations("tests/data/io/sample-9.gz", 37);
}
END_TEST

START_TEST(test_random_corruption)
{
	/* flip bytes all over a real file: each result is an error or,
	 * when only a header field nobody checks changed (the time stamp,
	 * XFL, OS), the original data */
	size_t n, want_len;
	uint8_t *gz = test_read_fixture("tests/data/io/sample-9.gz", &n);
	uint8_t *want = test_read_fixture("tests/data/io/sample.bin", &want_len);
	uint32_t x = 20240601;
	stir_ctx *ctx = stir_ctx_alloc();
	int n_ok = 0;
	for (int iter = 0; iter < 400; iter++) {
		uint8_t *p = test_copy_exact(gz, n);
		for (int k = 0; k < 1 + iter % 3; k++) {
			x = x * 1664525u + 1013904223u;
			size_t at = (x >> 8) % n;
			x = x * 1664525u + 1013904223u;
			p[at] ^= (uint8_t)(1 + (x >> 24) % 255);
		}
		void *out = NULL;
		size_t len;
		if (stir_gunzip(ctx, "c.gz", p, n, &out, &len) == 0) {
			ck_assert_uint_eq(len, want_len);
			ck_assert(memcmp(out, want, len) == 0);
			ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
			n_ok++;
			free(out);
		} else {
			ck_assert_ptr_null(out);
			test_only_error(ctx);
		}
		stir_ctx_clear_diagnostics(ctx);
		free(p);
	}
	ck_assert_int_lt(n_ok, 40);
	stir_ctx_free(ctx);
	free(gz);
	free(want);
}
END_TEST

START_TEST(test_read_file)
{
	stir_ctx *ctx = stir_ctx_alloc();
	size_t want_len;
	uint8_t *want = test_read_fixture("tests/data/io/sample.bin", &want_len);
	static const char *const files[] = { "tests/data/io/sample.bin",
		"tests/data/io/sample-9.gz", "tests/data/io/multi.gz" };
	for (int i = 0; i < 3; i++) {
		char *data = NULL;
		size_t len = 0;
		ck_assert_int_eq(stir_bytes_read_from_file(ctx, test_path(files[i]), &data,
			&len), 0);
		ck_assert_uint_eq(len, want_len);
		ck_assert(memcmp(data, want, len) == 0);
		ck_assert_int_eq(data[len], '\0');
		free(data);
	}
	free(want);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);

	/* errors name the path and say why */
	char *data = NULL;
	size_t len;
	const char *missing = test_path("tests/data/io/no-such-file");
	ck_assert_int_eq(stir_bytes_read_from_file(ctx, missing, &data, &len), -1);
	ck_assert_str_eq(test_only_error(ctx),
		"cannot open file: No such file or directory");
	ck_assert_str_eq(test_only_loc(ctx).file, missing);
	stir_ctx_clear_diagnostics(ctx);

	const char *dir = test_path("tests/data/io");
	ck_assert_int_eq(stir_bytes_read_from_file(ctx, dir, &data, &len), -1);
	ck_assert_str_eq(test_only_error(ctx), "cannot read file: Is a directory");
	stir_ctx_clear_diagnostics(ctx);

	/* a corrupt .gz file: the gunzip error names the path */
	const char *bad = test_path("tests/data/io/bad-crc.gz");
	ck_assert_int_eq(stir_bytes_read_from_file(ctx, bad, &data, &len), -1);
	ck_assert_str_eq(test_only_loc(ctx).file, bad);
	ck_assert_ptr_null(data);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_stream_chunks)
{
	/* a file larger than the reader's chunks and window, its stored
	 * blocks straddling chunk boundaries: read back exactly, from a
	 * file and from memory */
	size_t n = 300007, len;
	uint8_t *plain = malloc(n);
	ck_assert_ptr_nonnull(plain);
	uint32_t x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		plain[i] = (uint8_t)(x >> 16);
	}
	uint8_t *gz = test_gzip_stored(plain, n, 40000, &len);
	char path[] = "/tmp/stir-gunzip-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, gz, len), (ssize_t)len);
	close(fd);
	stir_ctx *ctx = stir_ctx_alloc();
	char *data;
	size_t got;
	ck_assert_int_eq(stir_bytes_read_from_file(ctx, path, &data, &got), 0);
	ck_assert_uint_eq(got, n);
	ck_assert(memcmp(data, plain, n) == 0);
	free(data);
	void *out;
	ck_assert_int_eq(stir_gunzip(ctx, "m.gz", gz, len, &out, &got), 0);
	ck_assert_uint_eq(got, n);
	ck_assert(memcmp(out, plain, n) == 0);
	free(out);
	/* cut one byte short: the truncation is at the file's end */
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, gz, len - 1), (ssize_t)len - 1);
	close(fd);
	ck_assert_int_eq(stir_bytes_read_from_file(ctx, path, &data, &got), -1);
	char want[100];
	snprintf(want, sizeof(want), "unexpected end of gzip data at byte "
		"offset %zu", len - 1);
	ck_assert_str_eq(test_only_error(ctx), want);
	unlink(path);
	free(gz);
	free(plain);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gunzip");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_sample_every_kind, 0, 5);
	tcase_add_test(tc, test_small_and_flags);
	tcase_add_test(tc, test_long_codes);
	tcase_add_loop_test(tc, test_bad_files, 0,
		(int)(sizeof(bad_files) / sizeof(bad_files[0])));
	tcase_add_test(tc, test_formatted);
	tcase_add_test(tc, test_truncation);
	tcase_add_test(tc, test_random_corruption);
	tcase_add_test(tc, test_read_file);
	tcase_add_test(tc, test_stream_chunks);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
