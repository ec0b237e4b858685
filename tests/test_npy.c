/* Tests of the .npy reader and writer (formats/npy.c): hand-written files
 * of versions 1.0, 2.0 and 3.0 and of key orders NumPy never writes,
 * round trips of every type, and malformed headers with the byte offset
 * of the fault. */
#include <stdint.h>
#include <unistd.h>
#include <stir/io.h>
#include "tests/testio.h"

/* ctx, rel: read fixture "rel" through stir_npy_read_from_file. */
static stir_array *read_fixture(stir_ctx *ctx, const char *rel)
{
	stir_array *a = stir_npy_read_from_file(ctx, test_path(rel));
	ck_assert_msg(a != NULL, "%s: %s", rel, stir_ctx_n_diagnostics(ctx) ?
		stir_diag_get_message(stir_ctx_get_diagnostic(ctx, 0)) : "?");
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	return a;
}

/* a, dtype, ndim, shape: the array must have this type and shape. */
static void check_shape(const stir_array *a, stir_dtype dtype, int ndim,
	const int64_t *shape)
{
	ck_assert_int_eq(stir_array_get_dtype(a), dtype);
	ck_assert_int_eq(stir_array_get_ndim(a), ndim);
	int64_t len = 1;
	for (int i = 0; i < ndim; i++) {
		ck_assert_int_eq(stir_array_get_dim(a, i), shape[i]);
		len *= shape[i];
	}
	ck_assert_int_eq(stir_array_get_len(a), len);
}

START_TEST(test_read_versions)
{
	stir_ctx *ctx = stir_ctx_alloc();
	/* version 1.0 as NumPy writes it, plain and gzipped */
	for (int gz = 0; gz < 2; gz++) {
		stir_array *a = read_fixture(ctx, gz ? "tests/data/io/f8-v1.npy.gz" :
			"tests/data/io/f8-v1.npy");
		const int64_t shape[] = { 3 };
		check_shape(a, STIR_F64, 1, shape);
		const double *d = stir_array_get_const_data(a);
		ck_assert_double_eq(d[0], 1.5);
		ck_assert_double_eq(d[1], -2.0);
		ck_assert_double_eq(d[2], 1e300);
		stir_array_free(a);
	}

	/* version 2.0: a four-byte header length */
	stir_array *a = read_fixture(ctx, "tests/data/io/i4-v2.npy");
	const int64_t s23[] = { 2, 3 };
	check_shape(a, STIR_I32, 2, s23);
	const int32_t want_i4[] = { 1, -2, 3, INT32_MAX, INT32_MIN, 0 };
	ck_assert(memcmp(stir_array_get_const_data(a), want_i4, 24) == 0);
	stir_array_free(a);

	/* version 3.0 */
	a = read_fixture(ctx, "tests/data/io/i8-v3.npy");
	const int64_t s2[] = { 2 };
	check_shape(a, STIR_I64, 1, s2);
	ck_assert_int_eq(stir_array_get_int(a, 0), (int64_t)1 << 62);
	ck_assert_int_eq(stir_array_get_int(a, 1), -5);
	stir_array_free(a);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_read_odd_headers)
{
	stir_ctx *ctx = stir_ctx_alloc();
	/* keys in another order, no spaces, no trailing comma */
	stir_array *a = read_fixture(ctx, "tests/data/io/f4-order.npy");
	const int64_t s22[] = { 2, 2 };
	check_shape(a, STIR_F32, 2, s22);
	const float *f = stir_array_get_const_data(a);
	ck_assert_float_eq(f[0], 0.5f);
	ck_assert_float_eq(f[3], 100.0f);
	stir_array_free(a);

	/* double quotes, spaces around everything, a line break inside, no
	 * padding */
	a = read_fixture(ctx, "tests/data/io/f2-order.npy");
	const int64_t s2[] = { 2 };
	check_shape(a, STIR_F16, 1, s2);
	ck_assert_double_eq(stir_array_get_double(a, 0), 1.0);
	ck_assert_double_eq(stir_array_get_double(a, 1), -2.0);
	stir_array_free(a);

	/* Python 2 longs, as old NumPy versions wrote them */
	uint8_t buf[128];
	const char *hdr = "{'descr': '<i8', 'fortran_order': False, "
		"'shape': (2L, 1L), }\n";
	size_t hlen = strlen(hdr);
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (uint8_t)hlen;
	buf[9] = 0;
	memcpy(buf + 10, hdr, hlen);
	memset(buf + 10 + hlen, 0, 16);
	a = stir_npy_read_from_mem(ctx, "py2.npy", buf, 10 + hlen + 16);
	ck_assert_ptr_nonnull(a);
	const int64_t s21[] = { 2, 1 };
	check_shape(a, STIR_I64, 2, s21);
	stir_array_free(a);

	/* a 0-d array of type |i1 */
	a = read_fixture(ctx, "tests/data/io/i1-scalar.npy");
	check_shape(a, STIR_I8, 0, NULL);
	ck_assert_int_eq(stir_array_get_int(a, 0), -2);
	stir_array_free(a);

	/* shape (2, 0, 3): no data at all */
	a = read_fixture(ctx, "tests/data/io/empty.npy");
	const int64_t s203[] = { 2, 0, 3 };
	check_shape(a, STIR_F64, 3, s203);
	stir_array_free(a);
	stir_ctx_free(ctx);
}
END_TEST

/* buf, n: a fresh temporary file name in *buf (created, empty). */
static void temp_name(char *buf, size_t n)
{
	const char *dir = getenv("TMPDIR");
	snprintf(buf, n, "%s/stir-npy-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(buf);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

/* a: written to a temporary file and read back; the array read, with the
 * file's bytes in *bytes / *nbytes when bytes is not NULL. */
static stir_array *round_trip(stir_ctx *ctx, const stir_array *a,
	uint8_t **bytes, size_t *nbytes)
{
	char path[512];
	temp_name(path, sizeof(path));
	ck_assert_int_eq(stir_npy_write(ctx, path, a), 0);
	stir_array *b = stir_npy_read_from_file(ctx, path);
	ck_assert_ptr_nonnull(b);
	if (bytes) {
		FILE *f = fopen(path, "rb");
		ck_assert_ptr_nonnull(f);
		uint8_t *buf = malloc(1 << 16);
		*nbytes = fread(buf, 1, 1 << 16, f);
		fclose(f);
		*bytes = buf;
	}
	unlink(path);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	return b;
}

/* p, n: a written file: the header must be padded to a multiple of 64
 * bytes with spaces and end with '\n', and name "descr" and "shape". */
static void check_written_header(const uint8_t *p, size_t n,
	const char *descr, const char *shape)
{
	ck_assert_uint_ge(n, 10);
	ck_assert(memcmp(p, "\x93NUMPY\x01\x00", 8) == 0);
	size_t hlen = p[8] | (size_t)p[9] << 8;
	ck_assert_uint_eq((10 + hlen) % 64, 0);
	ck_assert_uint_le(10 + hlen, n);
	ck_assert_int_eq(p[10 + hlen - 1], '\n');
	char want[256];
	int len = snprintf(want, sizeof(want), "{'descr': '%s', "
		"'fortran_order': False, 'shape': %s, }", descr, shape);
	ck_assert(memcmp(p + 10, want, (size_t)len) == 0);
	for (size_t i = 10 + (size_t)len; i < 10 + hlen - 1; i++)
		ck_assert_int_eq(p[i], ' ');
}

START_TEST(test_round_trip_types)
{
	static const struct {
		stir_dtype dtype;
		const char *descr;
	} types[] = {
		{ STIR_I8, "|i1" }, { STIR_I32, "<i4" }, { STIR_I64, "<i8" },
		{ STIR_F16, "<f2" }, { STIR_F32, "<f4" }, { STIR_F64, "<f8" },
	};
	stir_ctx *ctx = stir_ctx_alloc();
	const int64_t shape[] = { 2, 3, 4 };
	stir_array *a = stir_array_alloc(ctx, types[_i].dtype, 3, shape);
	for (int64_t k = 0; k < 24; k++)
		stir_array_set_double(a, k, (double)(k - 12) * 0.5 *
			(stir_dtype_is_int(types[_i].dtype) ? 2 : 1));
	uint8_t *bytes;
	size_t n;
	stir_array *b = round_trip(ctx, a, &bytes, &n);
	check_written_header(bytes, n, types[_i].descr, "(2, 3, 4)");
	size_t size = stir_dtype_get_size(types[_i].dtype);
	ck_assert_uint_eq(n, 128 + 24 * size);
	check_shape(b, types[_i].dtype, 3, shape);
	ck_assert(memcmp(stir_array_get_const_data(a),
		stir_array_get_const_data(b), 24 * size) == 0);
	free(bytes);
	stir_array_free(a);
	stir_array_free(b);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_round_trip_bf16)
{
	/* bf16 has no NumPy type: written as '<f4', exactly */
	stir_ctx *ctx = stir_ctx_alloc();
	const int64_t shape[] = { 5 };
	stir_array *a = stir_array_alloc(ctx, STIR_BF16, 1, shape);
	const double vals[] = { 1.0, -0.5, 3.140625, 1e30, -65536.0 };
	for (int k = 0; k < 5; k++)
		stir_array_set_double(a, k, vals[k]);
	uint8_t *bytes;
	size_t n;
	stir_array *b = round_trip(ctx, a, &bytes, &n);
	check_written_header(bytes, n, "<f4", "(5,)");
	check_shape(b, STIR_F32, 1, shape);
	for (int k = 0; k < 5; k++)
		ck_assert_double_eq(stir_array_get_double(b, k),
			stir_array_get_double(a, k));
	ck_assert_double_eq(stir_array_get_double(b, 2), 3.140625);
	free(bytes);
	stir_array_free(a);
	stir_array_free(b);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_round_trip_shapes)
{
	/* a 0-d array, empty arrays, and the most dimensions */
	static const struct {
		int ndim;
		int64_t shape[STIR_MAX_DIMS];
		const char *text;
	} shapes[] = {
		{ 0, { 0 }, "()" },
		{ 1, { 0 }, "(0,)" },
		{ 2, { 3, 0 }, "(3, 0)" },
		{ 8, { 1, 2, 1, 2, 1, 2, 1, 3 }, "(1, 2, 1, 2, 1, 2, 1, 3)" },
	};
	stir_ctx *ctx = stir_ctx_alloc();
	stir_array *a = stir_array_alloc(ctx, STIR_F64, shapes[_i].ndim,
		shapes[_i].shape);
	int64_t len = stir_array_get_len(a);
	for (int64_t k = 0; k < len; k++)
		stir_array_set_double(a, k, (double)k + 0.25);
	uint8_t *bytes;
	size_t n;
	stir_array *b = round_trip(ctx, a, &bytes, &n);
	check_written_header(bytes, n, "<f8", shapes[_i].text);
	check_shape(b, STIR_F64, shapes[_i].ndim, shapes[_i].shape);
	for (int64_t k = 0; k < len; k++)
		ck_assert_double_eq(stir_array_get_double(b, k), (double)k + 0.25);
	free(bytes);
	stir_array_free(a);
	stir_array_free(b);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_write_matches_fixture)
{
	/* the writer's output for f8-v1.npy's array is that file, byte for
	 * byte */
	stir_ctx *ctx = stir_ctx_alloc();
	size_t want_len;
	uint8_t *want = test_read_fixture("tests/data/io/f8-v1.npy", &want_len);
	stir_array *a = stir_npy_read_from_mem(ctx, "f8.npy", want, want_len);
	ck_assert_ptr_nonnull(a);
	uint8_t *bytes;
	size_t n;
	stir_array *b = round_trip(ctx, a, &bytes, &n);
	ck_assert_uint_eq(n, want_len);
	ck_assert(memcmp(bytes, want, n) == 0);
	free(bytes);
	free(want);
	stir_array_free(a);
	stir_array_free(b);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_write_errors)
{
	stir_ctx *ctx = stir_ctx_alloc();
	const int64_t shape[] = { 2 };
	stir_array *a = stir_array_alloc(ctx, STIR_F32, 1, shape);
	const char *path = "/nonexistent-dir-for-stir/x.npy";
	ck_assert_int_eq(stir_npy_write(ctx, path, a), -1);
	ck_assert_str_eq(test_only_error(ctx),
		"cannot open file for writing: No such file or directory");
	ck_assert_str_eq(test_only_loc(ctx).file, path);
	stir_ctx_clear_diagnostics(ctx);
	stir_array_free(a);

	a = stir_array_alloc(ctx, STIR_BOOL, 1, shape);
	ck_assert_int_eq(stir_npy_write(ctx, "unused.npy", a), -1);
	ck_assert_str_eq(test_only_error(ctx),
		"cannot write an array of type bool to a .npy file");
	ck_assert_int_eq(access("unused.npy", F_OK), -1);
	stir_array_free(a);
	stir_ctx_free(ctx);
}
END_TEST

/* buf: receives a .npy file of format version "major" with header text
 * hdr (taken as is: no padding) and "ndata" data bytes of value 0x11; its
 * length.  *hdr_start receives the offset of the header text. */
static size_t make_npy(uint8_t *buf, int major, const char *hdr,
	size_t ndata, size_t *hdr_start)
{
	size_t hlen = strlen(hdr);
	memcpy(buf, "\x93NUMPY", 6);
	buf[6] = (uint8_t)major;
	buf[7] = 0;
	size_t at = 8;
	buf[at++] = (uint8_t)hlen;
	buf[at++] = (uint8_t)(hlen >> 8);
	if (major > 1) {
		buf[at++] = 0;
		buf[at++] = 0;
	}
	*hdr_start = at;
	memcpy(buf + at, hdr, hlen);
	memset(buf + at + hlen, 0x11, ndata);
	return at + hlen + ndata;
}

#define HDR(descr, shape) \
	"{'descr': '" descr "', 'fortran_order': False, 'shape': " shape ", }"

/* A malformed header and its error; the offset is that of "at" in the
 * header text (or, with at NULL, "off" from the start of the file). */
static const struct {
	const char *hdr;
	size_t ndata;
	const char *message;
	const char *at;
	size_t off;
} bad_headers[] = {
	{ HDR("<f8", "(3,)"), 16, "truncated .npy data: the shape needs 24 "
		"bytes from byte offset 67, the file holds 16", NULL, 83 },
	{ HDR("<f8", "(3,)"), 26, "unexpected data after the .npy array (2 "
		"extra bytes)", NULL, 91 },
	{ HDR("<f8", "(3, 0)"), 1, "unexpected data after the .npy array (1 "
		"extra byte)", NULL, 69 },
	{ "{'descr': '<f8', 'fortran_order': True, 'shape': (3,), }", 24,
		"unsupported .npy file: fortran_order is True (only C order is "
		"supported)", "True", 0 },
	{ HDR(">f8", "(3,)"), 24, "unsupported .npy descr '>f8': big-endian "
		"data is not supported", "'>f8'", 0 },
	{ HDR("<u1", "(3,)"), 3, "unsupported .npy descr '<u1' (supported: "
		"'|i1', '<i4', '<i8', '<f2', '<f4', '<f8')", "'<u1'", 0 },
	{ HDR("|b1", "(3,)"), 3, "unsupported .npy descr '|b1' (supported: "
		"'|i1', '<i4', '<i8', '<f2', '<f4', '<f8')", "'|b1'", 0 },
	{ "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }",
		12, "unsupported .npy descr: structured arrays are not supported",
		"[", 0 },
	{ "{'descr': '<f8', 'fortran_order': False}", 8,
		"missing key 'shape' in .npy header", "}", 0 },
	{ "{'descr': '<f8', 'shape': (1,), 'descr': '<f8'}", 8,
		"duplicate key 'descr' in .npy header", "'descr': '<f8'}", 0 },
	{ "{'descr': '<f8', 'shape': (1,), 'fortran': False}", 8,
		"unexpected key 'fortran' in .npy header", "'fortran'", 0 },
	{ HDR("<f8", "(3)"), 24, "'shape' of .npy header is not a tuple (a "
		"one-element tuple needs a trailing comma)", ")", 0 },
	{ HDR("<f8", "3"), 24, "expected a tuple for 'shape' in .npy header",
		"3", 0 },
	{ HDR("<f8", "(3, -1)"), 0, "negative dimension -1 in .npy shape",
		"-1", 0 },
	{ HDR("<f8", "(1, 1, 1, 1, 1, 1, 1, 1, 1)"), 8, "too many dimensions "
		"in .npy shape (at most 8)", "1)", 0 },
	{ HDR("<f8", "(99999999999999999999,)"), 8,
		"dimension out of range in .npy shape", "9", 0 },
	{ HDR("<f8", "(4294967296, 4294967296)"), 8,
		"array size in .npy header out of range", NULL, 10 },
	{ HDR("<f8", "(3, x)"), 24, "expected an integer or ')' in the "
		"'shape' of .npy header", "x", 0 },
	{ HDR("<f8", "(3 4)"), 24, "expected ',' or ')' in the 'shape' of "
		".npy header", "4", 0 },
	{ HDR("<f8", "(3,)") " x", 24, "unexpected text after the .npy header "
		"dictionary", "x", 0 },
	{ "{'descr' '<f8', 'shape': (3,)}", 24, "expected ':' after a key in "
		".npy header", "'<f8'", 0 },
	{ "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'x", 24,
		"unterminated string in .npy header", "'x", 0 },
	{ "{'descr': '<f8' 'shape': (3,)}", 24,
		"expected ',' or '}' in .npy header", "'shape'", 0 },
	{ "{'descr': '<f8', 'fortran_order': None, 'shape': (3,)}", 24,
		"expected True or False for 'fortran_order' in .npy header",
		"None", 0 },
	{ "['descr']", 24, "expected '{' starting the dictionary in .npy "
		"header", "[", 0 },
	{ "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), } ;", 24,
		"unexpected character ';' in .npy header", ";", 0 },
	{ "", 24, "expected '{' starting the dictionary in .npy header",
		NULL, 10 },
	{ "{'descr': '<f\\8', 'fortran_order': False, 'shape': (3,), }", 24,
		"unsupported character in a .npy header string", "\\", 0 },
	{ HDR("<f8", "(3.5,)"), 24, "invalid number in .npy header", ".", 0 },
	{ HDR("<f8", "(-,)"), 24, "invalid number in .npy header", "-", 0 },
	{ HDR("<f8", "(3,\001)"), 24, "control character 0x01 in .npy header",
		"\001", 0 },
	{ "{'descr': 8, 'fortran_order': False, 'shape': (3,), }", 24,
		"expected a string for 'descr' in .npy header", "8", 0 },
	/* a control byte is named, in a string too (it once cut the quoted
	 * descr short) */
	{ HDR("<f\0018", "(3,)"), 24, "control character 0x01 in .npy header",
		"\001", 0 },
	{ HDR("<f8", "(3,)\033"), 24, "control character 0x1b in .npy header",
		"\033", 0 },
};

START_TEST(test_bad_headers)
{
	uint8_t buf[512];
	size_t hs;
	size_t n = make_npy(buf, 1, bad_headers[_i].hdr, bad_headers[_i].ndata,
		&hs);
	size_t off = bad_headers[_i].off;
	if (bad_headers[_i].at) {
		const char *p = strstr(bad_headers[_i].hdr, bad_headers[_i].at);
		ck_assert_ptr_nonnull(p);
		off = hs + (size_t)(p - bad_headers[_i].hdr);
	}
	char want[512];
	snprintf(want, sizeof(want), "%s at byte offset %zu",
		bad_headers[_i].message, off);
	stir_ctx *ctx = stir_ctx_alloc();
	uint8_t *p = test_copy_exact(buf, n);
	ck_assert_ptr_null(stir_npy_read_from_mem(ctx, "h.npy", p, n));
	ck_assert_str_eq(test_only_error(ctx), want);
	ck_assert_str_eq(test_only_loc(ctx).file, "h.npy");
	free(p);
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_bad_preamble)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *message;
	} cases[] = {
		{ "\x93NUMPX\x01\x00", 8, "not a .npy file (bad magic string) at "
			"byte offset 5" },
		{ "PK\x03\x04", 4, "not a .npy file (bad magic string) at byte "
			"offset 0" },
		{ "\x93NUMPY\x04\x00\x00\x00", 10, "unsupported .npy format "
			"version 4.0 at byte offset 6" },
		{ "\x93NUMPY\x01\x01\x00\x00", 10, "unsupported .npy format "
			"version 1.1 at byte offset 6" },
		{ "\x93NUMPY\x01\x00\x10\x00{}", 12, "truncated .npy header (16 "
			"bytes announced at byte offset 8) at byte offset 12" },
		{ "\x93NUMPY\x02\x00\x00\x00\x00\x01", 12, "truncated .npy header "
			"(16777216 bytes announced at byte offset 8) at byte offset 12" },
		{ "\x93NUMPY\x02\x00\x00", 9, "truncated .npy header at byte "
			"offset 9" },
	};
	stir_ctx *ctx = stir_ctx_alloc();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t *p = test_copy_exact((const uint8_t *)cases[i].bytes,
			cases[i].len);
		ck_assert_ptr_null(stir_npy_read_from_mem(ctx, "p.npy", p,
			cases[i].len));
		ck_assert_str_eq(test_only_error(ctx), cases[i].message);
		stir_ctx_clear_diagnostics(ctx);
		free(p);
	}
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_bounded)
{
	stir_ctx *ctx = stir_ctx_alloc();
	uint8_t buf[512];
	size_t hs, len;

	/* a shape the file cannot hold is refused before anything is
	 * allocated for it: 8 GB in 100 bytes, plain or compressed (where
	 * deflate's largest ratio bounds what the file can hold) */
	size_t n = make_npy(buf, 1, HDR("<f8", "(1000000000,)"), 8, &hs);
	ck_assert_ptr_null(stir_npy_read_from_mem(ctx, "b.npy", buf, n));
	ck_assert_str_eq(test_only_error(ctx), "truncated .npy data: the shape "
		"needs 8000000000 bytes from byte offset 76, the file holds 8 at "
		"byte offset 84");
	stir_ctx_clear_diagnostics(ctx);
	uint8_t *gz = test_gzip_stored(buf, n, 65535, &len);
	ck_assert_ptr_null(stir_npy_read_from_mem(ctx, "b.npy.gz", gz, len));
	const char *msg = test_only_error(ctx);
	ck_assert_msg(strstr(msg, "truncated .npy data: the shape needs "
		"8000000000 bytes from byte offset 76, the file holds at most ") ==
		msg, "%s", msg);
	stir_ctx_clear_diagnostics(ctx);
	free(gz);

	/* compressed, short by one byte, and one byte too long */
	n = make_npy(buf, 1, HDR("<f8", "(3,)"), 23, &hs);
	gz = test_gzip_stored(buf, n, 65535, &len);
	ck_assert_ptr_null(stir_npy_read_from_mem(ctx, "c.npy.gz", gz, len));
	ck_assert_str_eq(test_only_error(ctx), "truncated .npy data: the shape "
		"needs 24 bytes from byte offset 67, the file holds 23 at byte "
		"offset 90");
	stir_ctx_clear_diagnostics(ctx);
	free(gz);
	n = make_npy(buf, 1, HDR("<f8", "(3,)"), 25, &hs);
	gz = test_gzip_stored(buf, n, 65535, &len);
	ck_assert_ptr_null(stir_npy_read_from_mem(ctx, "c.npy.gz", gz, len));
	ck_assert_str_eq(test_only_error(ctx), "unexpected data after the .npy "
		"array (1 extra byte) at byte offset 91");
	stir_ctx_clear_diagnostics(ctx);
	free(gz);
	n = make_npy(buf, 1, HDR("<f8", "(3,)"), 24, &hs);
	gz = test_gzip_stored(buf, n, 65535, &len);
	stir_array *a = stir_npy_read_from_mem(ctx, "c.npy.gz", gz, len);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(stir_array_get_len(a), 3);
	stir_array_free(a);
	free(gz);

	/* a header longer than 1 MiB is refused after reading 1 MiB + 1 */
	size_t big = (2 << 20) + 64;
	uint8_t *h = malloc(big);
	ck_assert_ptr_nonnull(h);
	const char *dict = HDR("<f8", "(0,)");
	memcpy(h, "\x93NUMPY\x02\x00", 8);
	size_t hlen = big - 12;
	for (int i = 0; i < 4; i++)
		h[8 + i] = (uint8_t)(hlen >> (8 * i));
	memset(h + 12, ' ', hlen);
	memcpy(h + 12, dict, strlen(dict));
	h[big - 1] = '\n';
	ck_assert_ptr_null(stir_npy_read_from_mem(ctx, "h.npy", h, big));
	ck_assert_str_eq(test_only_error(ctx), ".npy header of 2097204 bytes "
		"too long (at most 1048576) at byte offset 8");
	stir_ctx_clear_diagnostics(ctx);
	free(h);

	/* a device that never ends, and one that gives random bytes */
	ck_assert_ptr_null(stir_npy_read_from_file(ctx, "/dev/zero"));
	ck_assert_str_eq(test_only_error(ctx), "not a .npy file (bad magic "
		"string) at byte offset 0");
	stir_ctx_free(ctx);
}
END_TEST

START_TEST(test_truncation)
{
	/* every proper prefix of a small file is an error naming an
	 * offset; none reads past the buffer */
	static const char *const files[] = { "tests/data/io/f8-v1.npy",
		"tests/data/io/i4-v2.npy", "tests/data/io/f2-order.npy" };
	size_t n;
	uint8_t *whole = test_read_fixture(files[_i], &n);
	stir_ctx *ctx = stir_ctx_alloc();
	for (size_t k = 0; k < n; k++) {
		uint8_t *p = test_copy_exact(whole, k);
		ck_assert_ptr_null(stir_npy_read_from_mem(ctx, "t.npy", p, k));
		const char *msg = test_only_error(ctx);
		ck_assert_msg(strstr(msg, " at byte offset ") != NULL, "%s", msg);
		stir_ctx_clear_diagnostics(ctx);
		free(p);
	}
	stir_array *a = stir_npy_read_from_mem(ctx, "t.npy", whole, n);
	ck_assert_ptr_nonnull(a);
	stir_array_free(a);
	free(whole);
	stir_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("npy");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_read_versions);
	tcase_add_test(tc, test_read_odd_headers);
	tcase_add_loop_test(tc, test_round_trip_types, 0, 6);
	tcase_add_test(tc, test_round_trip_bf16);
	tcase_add_loop_test(tc, test_round_trip_shapes, 0, 4);
	tcase_add_test(tc, test_write_matches_fixture);
	tcase_add_test(tc, test_write_errors);
	tcase_add_loop_test(tc, test_bad_headers, 0,
		(int)(sizeof(bad_headers) / sizeof(bad_headers[0])));
	tcase_add_test(tc, test_bad_preamble);
	tcase_add_test(tc, test_bounded);
	tcase_add_loop_test(tc, test_truncation, 0, 3);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
