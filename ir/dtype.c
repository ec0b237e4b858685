/* Scalar types: names, sizes, and the 16-bit float conversions. */
#include <math.h>
#include <string.h>
#include <stir/array.h>
#include "ir/nodes.h"

static const struct {
	stir_dtype t;
	const char *name;
	size_t size;
} dtypes[] = {
	{ STIR_I8, "i8", 1 },
	{ STIR_I32, "i32", 4 },
	{ STIR_I64, "i64", 8 },
	{ STIR_F16, "f16", 2 },
	{ STIR_BF16, "bf16", 2 },
	{ STIR_F32, "f32", 4 },
	{ STIR_F64, "f64", 8 },
	{ STIR_BOOL, "bool", 1 },
};

#define N_DTYPES (sizeof(dtypes) / sizeof(dtypes[0]))

const char *stir_dtype_get_name(stir_dtype t)
{
	for (size_t i = 0; i < N_DTYPES; i++)
		if (dtypes[i].t == t)
			return dtypes[i].name;
	return "?";
}

/* name: a type name as the language spells it; "bool" is not one. */
stir_dtype stir_dtype_from_name(const char *name)
{
	for (size_t i = 0; i < N_DTYPES; i++)
		if (dtypes[i].t != STIR_BOOL && !strcmp(dtypes[i].name, name))
			return dtypes[i].t;
	return STIR_DTYPE_NONE;
}

size_t stir_dtype_get_size(stir_dtype t)
{
	for (size_t i = 0; i < N_DTYPES; i++)
		if (dtypes[i].t == t)
			return dtypes[i].size;
	return 0;
}

bool stir_dtype_is_int(stir_dtype t)
{
	return t == STIR_I8 || t == STIR_I32 || t == STIR_I64;
}

bool stir_dtype_is_float(stir_dtype t)
{
	return t == STIR_F16 || t == STIR_BF16 || t == STIR_F32 || t == STIR_F64;
}

int stir_int_rank(stir_dtype t)
{
	switch (t) {
	case STIR_I8: return 1;
	case STIR_I32: return 2;
	case STIR_I64: return 3;
	default: return 0;
	}
}

/* x: the value to round to the nearest binary16, ties to even; values
 * beyond the largest finite half become infinities. */
uint16_t stir_f16_from_double(double x)
{
	uint16_t sign = signbit(x) ? 0x8000 : 0;
	double a = fabs(x);
	if (isnan(x))
		return 0x7e00;
	if (a >= 65520.0) /* rounds to infinity */
		return sign | 0x7c00;
	if (a < 0x1p-14) {
		/* subnormal: units of 2^-24, rounded to even by nearbyint */
		double m = nearbyint(a * 0x1p24);
		return sign | (uint16_t)m; /* m may reach 0x400: the smallest normal */
	}
	int e;
	double f = frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
	double m = nearbyint(f * 2048.0); /* 11 significant bits */
	if (m == 2048.0) {
		m = 1024.0;
		e++;
	}
	int exp = e - 1 + 15;
	if (exp >= 31)
		return sign | 0x7c00;
	return sign | (uint16_t)(exp << 10) | (uint16_t)((uint32_t)m & 0x3ff);
}

double stir_f16_to_double(uint16_t h)
{
	int sign = h & 0x8000;
	int exp = (h >> 10) & 0x1f;
	int mant = h & 0x3ff;
	double v;
	if (exp == 0)
		v = ldexp(mant, -24);
	else if (exp == 31)
		v = mant ? NAN : INFINITY;
	else
		v = ldexp(mant | 0x400, exp - 25);
	return sign ? -v : v;
}

/* x: the value to round to bfloat16 (the top half of a binary32), ties to
 * even.  The double is first rounded to binary32 only when that is exact
 * enough not to cause double rounding: we round from the double directly. */
uint16_t stir_bf16_from_double(double x)
{
	if (isnan(x))
		return 0x7fc0;
	uint16_t sign = signbit(x) ? 0x8000 : 0;
	double a = fabs(x);
	/* largest finite bf16 is (2 - 2^-7) * 2^127; halfway to 2^128 overflows */
	if (a >= 0x1.ffp127)
		return sign | 0x7f80;
	if (a < 0x1p-126) {
		double m = nearbyint(a * 0x1p133); /* subnormal units of 2^-133 */
		return sign | (uint16_t)m;
	}
	int e;
	double f = frexp(a, &e);
	double m = nearbyint(f * 256.0); /* 8 significant bits */
	if (m == 256.0) {
		m = 128.0;
		e++;
	}
	int exp = e - 1 + 127;
	if (exp >= 255)
		return sign | 0x7f80;
	return sign | (uint16_t)(exp << 7) | (uint16_t)((uint32_t)m & 0x7f);
}

double stir_bf16_to_double(uint16_t h)
{
	int sign = h & 0x8000;
	int exp = (h >> 7) & 0xff;
	int mant = h & 0x7f;
	double v;
	if (exp == 0)
		v = ldexp(mant, -133);
	else if (exp == 255)
		v = mant ? NAN : INFINITY;
	else
		v = ldexp(mant | 0x80, exp - 134);
	return sign ? -v : v;
}
