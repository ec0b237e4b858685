/* A structure-aware libFuzzer harness for the Matrix Market and .npy
 * readers.
 *
 * The input is not a file but the choices that build one: the first byte
 * picks the format, the rest (read a byte at a time, zeros when used up)
 * the banner, header, sizes and entries of a Matrix Market file (banner
 * words and their variants, comment and blank lines, the size line,
 * entries in and out of range, real, integer, pattern, complex values,
 * general, symmetric and other symmetries, CRLF line ends), or the
 * version, header (dtype, fortran_order, shape, key order, padding) and
 * data of a .npy file; either wrapped, on request, in a gzip stream of
 * stored blocks (with a correct or a wrong CRC), and with small
 * perturbations (a byte cut off, a line added or dropped).  The harness
 * knows what it built: a file it knows to be valid must read, and must
 * give the matrix (rows, columns, the sorted indices of every row, the
 * values summed in file order, mirrored for a symmetric matrix, 1 for a
 * pattern) or the array (dtype, shape, bytes) it computes on its own; a
 * file it knows to be invalid must fail; any file gives a result or
 * exactly one diagnostic, never a sanitizer report.  `make fuzz-formats`
 * runs it (no seeds needed: every input builds a file).  With
 * FUZZ_FORMATS_DUMP set, the file built is written to stderr. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stir/io.h>

/* The largest matrix the harness builds (rows and columns). */
#define MAX_DIM 9
#define MAX_ENTRIES 40

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* The choices: the input, read a byte at a time. */
typedef struct choices {
	const uint8_t *p, *end;
} choices;

/* c, n: a choice in 0..n-1 (0 when the input is used up). */
static unsigned pick(choices *c, unsigned n)
{
	return c->p < c->end && n > 0 ? (unsigned)*c->p++ % n : 0;
}

/* c, n: a choice in 0..n-1 for a perturbation, its cases the small
 * values: n-1 (no perturbation) when the input is used up, so that a
 * short input builds a valid file. */
static unsigned perturb(choices *c, unsigned n)
{
	return c->p < c->end ? pick(c, n) : n - 1;
}

/* A growing file. */
typedef struct text {
	char *s;
	size_t len, cap;
} text;

/* t, d, n: append n bytes. */
static void put(text *t, const void *d, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		t->cap = 2 * (t->len + n) + 64;
		t->s = realloc(t->s, t->cap);
		if (!t->s)
			abort();
	}
	memcpy(t->s + t->len, d, n);
	t->len += n;
	t->s[t->len] = '\0';
}

/* t, s: append a string. */
static void puts_(text *t, const char *s)
{
	put(t, s, strlen(s));
}

/* What the harness expects of a file. */
typedef enum verdict { VALID, INVALID, EITHER } verdict;

/* v, w: the verdict after a choice of verdict w (invalid wins over
 * either, either over valid). */
static void worsen(verdict *v, verdict w)
{
	if (w == INVALID || (w == EITHER && *v == VALID))
		*v = w;
}

/* ---- gzip of stored blocks ---- */

/* d, n: the CRC-32 of gzip. */
static uint32_t crc32_of(const uint8_t *d, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= d[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

/* c, t, v: replace t by a gzip stream holding it in stored blocks of a
 * chosen size, with a correct CRC, or (making it invalid) a wrong one. */
static void gzip_wrap(choices *c, text *t, verdict *v)
{
	text z = { NULL, 0, 0 };
	static const uint8_t head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	put(&z, head, sizeof(head));
	size_t block = 1 + pick(c, 64) * 16, at = 0;
	do {
		size_t n = t->len - at < block ? t->len - at : block;
		uint8_t h[5] = { at + n == t->len, (uint8_t)n, (uint8_t)(n >> 8),
			(uint8_t)~n, (uint8_t)(~n >> 8) };
		put(&z, h, 5);
		put(&z, t->s + at, n);
		at += n;
	} while (at < t->len);
	uint32_t crc = crc32_of((const uint8_t *)t->s, t->len);
	if (perturb(c, 16) == 0) {
		crc ^= 1;
		worsen(v, INVALID);
	}
	uint8_t tail[8] = { (uint8_t)crc, (uint8_t)(crc >> 8),
		(uint8_t)(crc >> 16), (uint8_t)(crc >> 24), (uint8_t)t->len,
		(uint8_t)(t->len >> 8), (uint8_t)(t->len >> 16),
		(uint8_t)(t->len >> 24) };
	put(&z, tail, 8);
	free(t->s);
	*t = z;
}

/* ---- Matrix Market ---- */

/* The matrix as the harness computes it. */
typedef struct matrix {
	int rows, cols;
	bool present[MAX_DIM][MAX_DIM];
	double value[MAX_DIM][MAX_DIM];
} matrix;

/* c, t, m, v: a Matrix Market file into t, the matrix into m (when the
 * file is valid), the verdict into v. */
static void build_mtx(choices *c, text *t, matrix *m, verdict *v)
{
	static const char *const fields[] = { "real", "integer", "pattern",
		"complex", "double", "Real" };
	static const char *const syms[] = { "general", "symmetric",
		"skew-symmetric", "hermitian", "General" };
	const char *eol = perturb(c, 4) == 0 ? "\r\n" : "\n";
	if (*eol == '\r')
		worsen(v, EITHER);
	/* banner */
	unsigned field = pick(c, 8), sym = pick(c, 6);
	field = field < 3 ? field : field < 6 ? field % 3 : 3 + field % 3;
	sym = sym < 2 ? sym : sym < 4 ? sym % 2 : 2 + sym % 3;
	if (field >= 3 || sym >= 2)
		worsen(v, field == 5 || sym == 4 ? EITHER : INVALID);
	switch (perturb(c, 16)) {
	case 0: puts_(t, "%%MatrixMarket matrix array "); worsen(v, INVALID);
		break;
	case 1: puts_(t, "%MatrixMarket matrix coordinate "); worsen(v, INVALID);
		break;
	case 2: puts_(t, "%%MatrixMarket vector coordinate ");
		worsen(v, INVALID);
		break;
	case 3: puts_(t, "%%MatrixMarket  matrix\tcoordinate ");
		worsen(v, EITHER);
		break;
	default: puts_(t, "%%MatrixMarket matrix coordinate "); break;
	}
	puts_(t, fields[field]);
	if (perturb(c, 16) == 0) {
		worsen(v, INVALID);        /* the symmetry left out */
	} else {
		puts_(t, " ");
		puts_(t, syms[sym]);
	}
	if (perturb(c, 16) == 0) {
		puts_(t, " extra");
		worsen(v, EITHER);
	}
	puts_(t, eol);
	/* comments and blank lines */
	for (unsigned n = pick(c, 4); n > 0; n--) {
		puts_(t, pick(c, 3) ? "% a comment" : pick(c, 2) ? "" : "%");
		puts_(t, eol);
	}
	/* the size line */
	m->rows = (int)pick(c, MAX_DIM + 1);
	m->cols = sym == 1 ? m->rows : (int)pick(c, MAX_DIM + 1);
	int nnz = (int)pick(c, MAX_ENTRIES + 1);
	if ((m->rows == 0 || m->cols == 0) && nnz > 0)
		nnz = 0;
	int declared = nnz;
	char line[128];
	switch (perturb(c, 24)) {
	case 0: declared = nnz + 1; worsen(v, INVALID); break;
	case 1: if (nnz > 0) { declared = nnz - 1; worsen(v, INVALID); } break;
	case 2: snprintf(line, sizeof(line), "%d %d%s", m->rows, m->cols, eol);
		puts_(t, line);
		worsen(v, INVALID);
		goto entries;
	case 3: snprintf(line, sizeof(line), "-%d %d %d%s", m->rows + 1,
		m->cols, nnz, eol);
		puts_(t, line);
		worsen(v, INVALID);
		goto entries;
	case 4: snprintf(line, sizeof(line), "%d %d %d 7%s", m->rows, m->cols,
		nnz, eol);
		puts_(t, line);
		worsen(v, INVALID);
		goto entries;
	default: break;
	}
	snprintf(line, sizeof(line), "%s%d %d %d%s", pick(c, 8) ? "" : "  ",
		m->rows, m->cols, declared, eol);
	puts_(t, line);
entries:
	for (int k = 0; k < nnz; k++) {
		int i = (int)pick(c, (unsigned)m->rows), j = (int)pick(c,
			(unsigned)m->cols);
		if (sym == 1 && j > i) {    /* the lower triangle, mostly */
			if (perturb(c, 8))
				{ int x = i; i = j; j = x; }
			else
				worsen(v, INVALID);
		}
		int ri = i + 1, rj = j + 1;
		switch (perturb(c, 32)) {
		case 0: ri = 0; worsen(v, INVALID); break;
		case 1: rj = m->cols + 1; worsen(v, INVALID); break;
		default: break;
		}
		snprintf(line, sizeof(line), "%d %d", ri, rj);
		puts_(t, line);
		double x = 1;
		if (field == 0 || field == 3 || field == 4 || field == 5) {
			static const char *const reals[] = { "1.5", "-2", "0.25",
				"1e3", "-7.125e-2", "3", "0", "+4.5", "1E1", ".5" };
			const char *r = reals[pick(c, 10)];
			x = strtod(r, NULL);
			snprintf(line, sizeof(line), " %s", r);
			puts_(t, line);
			if (field == 3)
				puts_(t, " 0.5");
		} else if (field == 1) {
			int n = (int)pick(c, 201) - 100;
			x = n;
			snprintf(line, sizeof(line), " %d", n);
			puts_(t, line);
		}
		switch (perturb(c, 48)) {
		case 0: puts_(t, " 9"); worsen(v, INVALID); break;
		case 1: puts_(t, " \t"); break;
		case 2: if (field == 0 || field == 1) {
				puts_(t, " x");
				worsen(v, INVALID);
			}
			break;
		default: break;
		}
		puts_(t, eol);
		if (*v == VALID) {
			bool fresh = !m->present[i][j];
			m->present[i][j] = true;
			m->value[i][j] = field == 2 ? 1 : fresh ? x :
				m->value[i][j] + x;
			if (sym == 1 && i != j)
				m->present[j][i] = true, m->value[j][i] = m->value[i][j];
		}
	}
	if (declared == nnz && perturb(c, 32) == 0) {
		puts_(t, "1 1 1");
		puts_(t, eol);
		worsen(v, INVALID);       /* one entry too many */
	}
	if (perturb(c, 32) == 0 && t->len > 0) {
		t->len--;                 /* the last byte cut off */
		worsen(v, EITHER);
	}
}

/* m, csr: whether the reader's matrix is the harness's (values within a
 * relative 1e-12: the reader sums duplicates in file order too). */
static bool same_matrix(const matrix *m, const stir_csr *csr, char *why,
	size_t size)
{
	if (csr->nrows != m->rows || csr->ncols != m->cols) {
		snprintf(why, size, "%lld x %lld, not %d x %d",
			(long long)csr->nrows, (long long)csr->ncols, m->rows,
			m->cols);
		return false;
	}
	int64_t k = 0;
	for (int i = 0; i < m->rows; i++) {
		if (csr->indptr[i] != k) {
			snprintf(why, size, "row %d starts at %lld, not %lld", i,
				(long long)csr->indptr[i], (long long)k);
			return false;
		}
		for (int j = 0; j < m->cols; j++) {
			if (!m->present[i][j])
				continue;
			if (k >= csr->nnz || csr->indices[k] != j ||
			    fabs(csr->values[k] - m->value[i][j]) >
			    1e-12 * (1 + fabs(m->value[i][j]))) {
				snprintf(why, size, "entry (%d, %d) = %g missing or "
					"wrong", i, j, m->value[i][j]);
				return false;
			}
			k++;
		}
	}
	if (csr->nnz != k || csr->indptr[m->rows] != k) {
		snprintf(why, size, "%lld entries, not %lld",
			(long long)csr->nnz, (long long)k);
		return false;
	}
	return true;
}

/* ---- .npy ---- */

/* The array as the harness built it. */
typedef struct array {
	stir_dtype dtype;
	int ndim;
	int64_t shape[4];
	const uint8_t *data;      /* into the file */
	size_t bytes;
} array;

/* c, t, a, v: a .npy file into t, the array into a, the verdict into v. */
static void build_npy(choices *c, text *t, array *a, verdict *v)
{
	static const struct {
		const char *descr;
		stir_dtype dtype;     /* STIR_DTYPE_COUNT-like: invalid */
		int size;
		bool ok;
	} types[] = {
		{ "<i4", STIR_I32, 4, true }, { "<i8", STIR_I64, 8, true },
		{ "<f2", STIR_F16, 2, true }, { "<f4", STIR_F32, 4, true },
		{ "<f8", STIR_F64, 8, true }, { "|i1", STIR_I8, 1, true },
		{ ">f4", STIR_F32, 4, false }, { "<u4", STIR_I32, 4, false },
		{ "<c8", STIR_F32, 8, false }, { "|b1", STIR_I8, 1, false },
		{ "<f16", STIR_F64, 16, false }, { "<i2", STIR_I32, 2, false },
	};
	unsigned ti = pick(c, 16);
	ti = ti < 6 ? ti : ti < 10 ? ti - 6 : 6 + ti % 6;
	if (!types[ti].ok)
		worsen(v, INVALID);
	a->dtype = types[ti].dtype;
	a->ndim = (int)pick(c, 4);
	int64_t n = 1;
	char shape[96] = "(";
	for (int d = 0; d < a->ndim; d++) {
		a->shape[d] = pick(c, 6);
		n *= a->shape[d];
		char s[24];
		snprintf(s, sizeof(s), "%s%lld", d ? ", " : "",
			(long long)a->shape[d]);
		strcat(shape, s);
	}
	strcat(shape, a->ndim == 1 ? ",)" : ")");
	bool fortran = perturb(c, 16) == 0;
	if (fortran)
		worsen(v, INVALID);
	char d[64], f[64], s[128];
	snprintf(d, sizeof(d), "'descr': '%s'", types[ti].descr);
	snprintf(f, sizeof(f), "'fortran_order': %s", fortran ? "True" :
		"False");
	snprintf(s, sizeof(s), "'shape': %s", shape);
	const char *parts[3] = { d, f, s };
	unsigned order = pick(c, 6);         /* a permutation of the keys */
	const char *p0 = parts[order % 3], *p1 = parts[(order / 3 + 1 +
		order % 3) % 3];
	const char *p2 = parts[3 - order % 3 - (order / 3 + 1 + order % 3) % 3];
	text h = { NULL, 0, 0 };
	puts_(&h, "{");
	puts_(&h, p0);
	puts_(&h, ", ");
	puts_(&h, p1);
	puts_(&h, pick(c, 2) ? ", " : ",\t");
	puts_(&h, p2);
	switch (perturb(c, 16)) {
	case 0: puts_(&h, ", 'extra': 1"); worsen(v, INVALID); break;
	case 1: break;
	default: puts_(&h, ", "); break;
	}
	puts_(&h, "}");
	/* the version and the padding */
	unsigned version = 1 + pick(c, 3) % 3;
	if (perturb(c, 32) == 0) {
		version = 4;
		worsen(v, INVALID);
	}
	size_t prefix = version == 1 ? 10 : 12;
	unsigned pad = pick(c, 4);
	size_t align = pad == 0 ? 1 : pad == 1 ? 16 : 64;
	while ((prefix + h.len + 1) % align)
		puts_(&h, " ");
	if (perturb(c, 32) == 0)
		worsen(v, EITHER);        /* no newline at the end */
	else
		puts_(&h, "\n");
	put(t, "\x93NUMPY", 6);
	uint8_t ver[2] = { (uint8_t)version, 0 };
	put(t, ver, 2);
	uint8_t hl[4] = { (uint8_t)h.len, (uint8_t)(h.len >> 8),
		(uint8_t)(h.len >> 16), (uint8_t)(h.len >> 24) };
	put(t, hl, version == 1 ? 2 : 4);
	put(t, h.s, h.len);
	free(h.s);
	/* the data, from the choices */
	size_t start = t->len;
	a->bytes = (size_t)n * (size_t)types[ti].size;
	for (size_t i = 0; i < a->bytes; i++) {
		uint8_t b = (uint8_t)pick(c, 256);
		put(t, &b, 1);
	}
	switch (perturb(c, 16)) {
	case 0: if (a->bytes > 0) { t->len--; worsen(v, INVALID); } break;
	case 1: put(t, "\0", 1); worsen(v, INVALID); break;
	default: break;
	}
	a->data = (const uint8_t *)(uintptr_t)start; /* an offset, for now */
}

/* a, got, file: whether the reader's array is the harness's. */
static bool same_array(const array *a, const stir_array *got,
	const uint8_t *file, char *why, size_t size)
{
	if (stir_array_get_dtype(got) != a->dtype ||
	    stir_array_get_ndim(got) != a->ndim) {
		snprintf(why, size, "dtype %s, %d dimensions, not %s, %d",
			stir_dtype_get_name(stir_array_get_dtype(got)),
			stir_array_get_ndim(got), stir_dtype_get_name(a->dtype),
			a->ndim);
		return false;
	}
	for (int d = 0; d < a->ndim; d++)
		if (stir_array_get_dim(got, d) != a->shape[d]) {
			snprintf(why, size, "dimension %d is %lld, not %lld", d,
				(long long)stir_array_get_dim(got, d),
				(long long)a->shape[d]);
			return false;
		}
	size_t bytes = (size_t)stir_array_get_len(got) *
		stir_dtype_get_size(stir_array_get_dtype(got));
	if (bytes != a->bytes || memcmp(stir_array_get_const_data(got),
	    file + (uintptr_t)a->data, bytes)) {
		snprintf(why, size, "the data differ");
		return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (len < 1)
		return 0;
	choices c = { data + 1, data + len };
	text t = { NULL, 0, 0 };
	puts_(&t, "");
	verdict v = VALID;
	static matrix m;
	array a;
	bool mtx = data[0] % 2 == 0;
	memset(&m, 0, sizeof(m));
	if (mtx)
		build_mtx(&c, &t, &m, &v);
	else
		build_npy(&c, &t, &a, &v);
	text plain = { NULL, 0, 0 };
	put(&plain, t.s, t.len);
	if (perturb(&c, 4) == 0)
		gzip_wrap(&c, &t, &v);
	if (getenv("FUZZ_FORMATS_DUMP"))
		fwrite(t.s, 1, t.len, stderr);
	stir_ctx *ctx = stir_ctx_alloc();
	char why[256] = "";
	bool ok, right = true;
	if (mtx) {
		stir_csr *csr = stir_mtx_read_from_mem(ctx, "f.mtx", t.s, t.len);
		ok = csr != NULL;
		if (ok && v == VALID)
			right = same_matrix(&m, csr, why, sizeof(why));
		stir_csr_free(csr);
	} else {
		stir_array *got = stir_npy_read_from_mem(ctx, "f.npy", t.s,
			t.len);
		ok = got != NULL;
		if (ok && v == VALID)
			right = same_array(&a, got, (const uint8_t *)plain.s, why,
				sizeof(why));
		stir_array_free(got);
	}
	int diags = stir_ctx_n_diagnostics(ctx);
	if (diags != (ok ? 0 : 1))
		snprintf(why, sizeof(why), "%s with %d diagnostics",
			ok ? "read" : "refused", diags);
	else if (ok && v == INVALID)
		snprintf(why, sizeof(why), "an invalid file reads");
	else if (!ok && v == VALID) {
		char *d = stir_ctx_diagnostics_to_str(ctx);
		snprintf(why, sizeof(why), "a valid file is refused: %s", d);
		free(d);
	}
	if (why[0] || !right) {
		fprintf(stderr, "fuzz_formats: %s\n", why);
		fwrite(plain.s, 1, plain.len, stderr);
		__builtin_trap();
	}
	stir_ctx_free(ctx);
	free(t.s);
	free(plain.s);
	return 0;
}
