/* The CUDA emitter's expressions: types, names, literals, conversions and
 * operators with the interpreter's semantics (docs/language.md section 3,
 * ir/interp_value.c):
 *
 * - integers wrap at their width: i8 results are cast back to signed char
 *   (C computes them in int);
 * - f16 and bf16 values are stored as __half / __nv_bfloat16 and every
 *   operation on them is computed in float and rounded back to nearest
 *   even, which is exactly the interpreter's rounding (a float holds the
 *   exact result of + - * / of two 16-bit values to round from);
 * - f32 math calls the single-precision functions (expf), f64 the double
 *   ones (exp);
 * - float-to-integer casts truncate toward zero and saturate, NaN giving 0
 *   (the __float2int_rz family does exactly that);
 * - literals are rounded to their type on the host, so that the device
 *   sees the value the interpreter uses.
 *
 * Every load is noted (cuda_record) for the narrowest index type of its
 * buffer; the barrier analysis and the checks of the
 * accesses are the verifier's walk's (verify/, gpu_record). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codegen/cuda_internal.h"
#include "ir/interp_value.h"
#include "ir/ops.h"
#include "ir/visit.h"
#include "lang/c_locale.h"

/* ---- types and names -------------------------------------------------- */

const char *cuda_ctype(stir_dtype t)
{
	switch (t) {
	case STIR_I8: return "signed char";
	case STIR_I32: return "int";
	case STIR_I64: return "long long";
	case STIR_F16: return "__half";
	case STIR_BF16: return "__nv_bfloat16";
	case STIR_F32: return "float";
	case STIR_F64: return "double";
	case STIR_BOOL: return "bool";
	default: return "void";
	}
}

/* t: see cuda_internal.h. */
stir_dtype cuda_compute_type(stir_dtype t)
{
	return t == STIR_F16 || t == STIR_BF16 ? STIR_F32 : t;
}

/* Words a stir name may not stay in the CUDA source: C++ keywords, CUDA's
 * built-in variables and vector types, and the functions the generated
 * code calls (a variable named "expf" would hide the function). */
static const char *const reserved[] = {
	"NULL", "abs", "alignas", "alignof", "and", "and_eq", "asm", "atomicAdd",
	"atomicSub", "auto", "bitand", "bitor", "blockDim", "blockIdx", "bool",
	"break", "case", "catch", "char", "char16_t", "char32_t", "char8_t",
	"class", "co_await", "co_return", "co_yield", "compl", "concept", "const",
	"const_cast", "consteval", "constexpr", "constinit", "continue", "decltype",
	"default", "delete", "do", "double", "double2", "dynamic_cast", "else",
	"enum", "exp", "expf", "explicit", "export", "extern", "fabs", "fabsf",
	"false", "float", "float2", "float4", "fmax", "fmaxf", "fmin", "fminf",
	"fmod", "fmodf", "for", "friend", "goto", "gridDim", "half", "if", "inline",
	"int", "int2", "int4", "llabs", "log", "logf", "long", "max", "min",
	"mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
	"nv_bfloat16", "operator", "or", "or_eq", "private", "protected", "public",
	"register", "reinterpret_cast", "requires", "return", "short", "signed",
	"sizeof", "sqrt", "sqrtf", "static", "static_assert", "static_cast",
	"struct", "switch", "tanh", "tanhf", "template", "this", "threadIdx",
	"thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
	"union", "unsigned", "using", "virtual", "void", "volatile", "warpSize",
	"wchar_t", "while", "xor", "xor_eq",
};

/* n: is it one of the reserved words? */
static bool is_reserved(const char *n)
{
	size_t lo = 0, hi = sizeof(reserved) / sizeof(reserved[0]);
	while (lo < hi) { /* the table is sorted (strcmp order) */
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(reserved[mid], n);
		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The escaping is injective, and its results never look like the names
 * stir generates ("stir_" and a letter): a name that starts with '_' or
 * "stir_", or ends with '_', becomes "stir_LEN" + name; a reserved word
 * gets a '_' appended; any other name stays. */
char *cuda_escape(const char *n)
{
	size_t len = strlen(n);
	char *r = malloc(len + 32);
	if (!r)
		return NULL;
	if (n[0] == '_' || !strncmp(n, "stir_", 5) || (len && n[len - 1] == '_'))
		snprintf(r, len + 32, "stir_%zu%s", len, n);
	else if (is_reserved(n))
		snprintf(r, len + 32, "%s_", n);
	else
		memcpy(r, n, len + 1);
	return r;
}

/* e, n: see cuda_internal.h. */
void cuda_put_name(emitter *e, const char *n)
{
	char *s = cuda_escape(n);
	if (!s) {
		e->out->failed = true;
		return;
	}
	cg_put(e->out, s);
	free(s);
}

/* e, v: see cuda_internal.h. */
void cuda_put_const(emitter *e, const stir_var *v)
{
	cg_indent(e->out);
	cg_putf(e->out, "const %s ", cuda_ctype(v->dtype));
	cuda_put_name(e, v->name);
}

/* ---- literals ----------------------------------------------------------- */

void cuda_int_literal(emitter *e, stir_dtype t, int64_t v)
{
	cg_printer *p = e->out;
	if (t == STIR_BOOL) {
		cg_put(p, v ? "true" : "false");
	} else if (t == STIR_I64) {
		if (v == INT64_MIN)
			cg_put(p, "(-9223372036854775807LL - 1)");
		else
			cg_putf(p, "%" PRId64 "LL", v);
	} else if (v == INT32_MIN) {
		cg_put(p, "(-2147483647 - 1)");
	} else {
		cg_putf(p, "%" PRId64, v);
	}
}

/* p, v, is_float: the shortest decimal that reads back as v in float
 * (is_float) or double, always with a '.' or an exponent. */
static void put_decimal(cg_printer *p, double v, bool is_float)
{
	char buf[64];
	lang_c_locale l;
	lang_c_locale_enter(&l);
	if (v == floor(v) && fabs(v) < 1e15) {
		/* whole numbers as such: "100.0", not "1e+02" */
		snprintf(buf, sizeof(buf), "%.1f", v);
		lang_c_locale_leave(&l);
		cg_put(p, buf);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (is_float ? strtof(buf, NULL) == (float)v :
		    strtod(buf, NULL) == v)
			break;
	}
	lang_c_locale_leave(&l);
	cg_put(p, buf);
	if (!strpbrk(buf, ".e"))
		cg_put(p, ".0");
}

/* p, v: a float-typed literal of value v (already a float value). */
static void put_f32(cg_printer *p, double v)
{
	if (isnan(v))
		cg_put(p, "__int_as_float(0x7fffffff)");
	else if (isinf(v))
		cg_put(p, v < 0 ? "__int_as_float(0xff800000)" :
			"__int_as_float(0x7f800000)");
	else {
		put_decimal(p, v, true);
		cg_put(p, "f");
	}
}

/* e, t, v: v rounded to t on the host, written so the device reads back
 * exactly that value. */
void cuda_float_literal(emitter *e, stir_dtype t, double v)
{
	cg_printer *p = e->out;
	v = stir_value_round(t, v);
	switch (t) {
	case STIR_F64:
		if (isnan(v))
			cg_put(p, "__longlong_as_double(0x7ff8000000000000LL)");
		else if (isinf(v))
			cg_put(p, v < 0 ?
				"(-__longlong_as_double(0x7ff0000000000000LL))" :
				"__longlong_as_double(0x7ff0000000000000LL)");
		else
			put_decimal(p, v, false);
		break;
	case STIR_F16:
	case STIR_BF16:
		/* the rounded value is exact in float */
		cg_put(p, t == STIR_F16 ? "__float2half_rn(" :
			"__float2bfloat16_rn(");
		put_f32(p, v);
		cg_put(p, ")");
		break;
	default:
		put_f32(p, v);
		break;
	}
}

/* ---- conversions ------------------------------------------------------ */

bool cuda_round_open(emitter *e, stir_dtype t)
{
	if (t == STIR_F16) {
		cg_put(e->out, "__float2half_rn(");
		return true;
	}
	if (t == STIR_BF16) {
		cg_put(e->out, "__float2bfloat16_rn(");
		return true;
	}
	return false;
}

/* e, ctx, x, prec: see cuda_internal.h. */
void cuda_as_compute(emitter *e, const ectx *ctx, const stir_expr *x,
	int prec)
{
	cuda_conv(e, ctx, x, cuda_compute_type(x->dtype), prec);
}

/* e, ctx, x, call: print call(x) ("__half2float(" ... ")"). */
static void wrap(emitter *e, const ectx *ctx, const stir_expr *x,
	const char *call)
{
	cg_put(e->out, call);
	cuda_expr(e, ctx, x, P_TOP);
	cg_put(e->out, ")");
}

/* e, prec, own: open a parenthesis when an operator of precedence "own"
 * appears where "prec" is required; returns whether to close it. */
static bool open_paren(emitter *e, int prec, int own)
{
	if (own >= prec)
		return false;
	cg_put(e->out, "(");
	return true;
}

/* e, ctx, x, t, prec: "(T)x", the C cast. */
static void c_cast(emitter *e, const ectx *ctx, const stir_expr *x,
	stir_dtype t, int prec)
{
	bool par = open_paren(e, prec, P_UNARY);
	cg_putf(e->out, "(%s)", cuda_ctype(t));
	cuda_expr(e, ctx, x, P_UNARY);
	if (par)
		cg_put(e->out, ")");
}

/* e, ctx, x, to: x (a float type) to an integer type or bool. */
static void float_to_int(emitter *e, const ectx *ctx, const stir_expr *x,
	stir_dtype to, int prec)
{
	cg_printer *p = e->out;
	bool dbl = x->dtype == STIR_F64;
	if (to == STIR_BOOL) {
		bool par = open_paren(e, prec, P_EQ);
		cuda_as_compute(e, ctx, x, P_REL);
		cg_put(p, dbl ? " != 0.0" : " != 0.0f");
		if (par)
			cg_put(p, ")");
		return;
	}
	const char *f = to == STIR_I64 ? (dbl ? "__double2ll_rz(" :
		"__float2ll_rz(") : (dbl ? "__double2int_rz(" : "__float2int_rz(");
	if (to == STIR_I8) {
		bool par = open_paren(e, prec, P_UNARY);
		cg_put(p, "(signed char)max(-128, min(127, ");
		cg_put(p, f);
		cuda_as_compute(e, ctx, x, P_TOP);
		cg_put(p, ")))");
		if (par)
			cg_put(p, ")");
		return;
	}
	cg_put(p, f);
	cuda_as_compute(e, ctx, x, P_TOP);
	cg_put(p, ")");
}

/* e, ctx, x, to: x (not of a float type) to f16 or bf16. */
static void int_to_half(emitter *e, const ectx *ctx, const stir_expr *x,
	stir_dtype to)
{
	bool h = to == STIR_F16;
	if (x->dtype == STIR_I64)
		wrap(e, ctx, x, h ? "__ll2half_rn(" : "__ll2bfloat16_rn(");
	else
		wrap(e, ctx, x, h ? "__int2half_rn(" : "__int2bfloat16_rn(");
}

/* e, ctx, x, to, prec: see cuda_internal.h. */
void cuda_conv(emitter *e, const ectx *ctx, const stir_expr *x,
	stir_dtype to, int prec)
{
	stir_dtype from = x->dtype;
	bool ff = stir_dtype_is_float(from), tf = stir_dtype_is_float(to);
	if (from == to) {
		cuda_expr(e, ctx, x, prec);
		return;
	}
	if (x->kind == STIR_EXPR_INT && (stir_dtype_is_int(to) || tf)) {
		/* a literal converts on the host */
		stir_value v = { .i = x->u.i };
		v = stir_value_convert(from == STIR_DTYPE_NONE ? STIR_I64 : from,
			to, v);
		if (tf)
			cuda_float_literal(e, to, v.f);
		else
			cuda_int_literal(e, to, v.i);
		return;
	}
	if (x->kind == STIR_EXPR_FLOAT && tf) {
		/* a float literal: its value in its own type, then in "to" */
		cuda_float_literal(e, to, stir_value_round(from, x->u.f));
		return;
	}
	if (ff && !tf) {
		float_to_int(e, ctx, x, to, prec);
		return;
	}
	if (!ff && to == STIR_BOOL) {
		bool par = open_paren(e, prec, P_EQ);
		cuda_expr(e, ctx, x, P_REL);
		cg_put(e->out, " != 0");
		if (par)
			cg_put(e->out, ")");
		return;
	}
	switch (to) {
	case STIR_F16:
	case STIR_BF16:
		if (!ff)
			int_to_half(e, ctx, x, to);
		else if (from == STIR_F64)
			wrap(e, ctx, x, to == STIR_F16 ? "__double2half(" :
				"__double2bfloat16(");
		else {
			/* f32, or the other 16-bit type (exact in float) */
			cuda_round_open(e, to);
			cuda_as_compute(e, ctx, x, P_TOP);
			cg_put(e->out, ")");
		}
		return;
	case STIR_F32:
		if (from == STIR_F16)
			wrap(e, ctx, x, "__half2float(");
		else if (from == STIR_BF16)
			wrap(e, ctx, x, "__bfloat162float(");
		else
			c_cast(e, ctx, x, to, prec);
		return;
	case STIR_F64:
		if (from == STIR_F16 || from == STIR_BF16) {
			bool par = open_paren(e, prec, P_UNARY);
			cg_put(e->out, "(double)");
			wrap(e, ctx, x, from == STIR_F16 ? "__half2float(" :
				"__bfloat162float(");
			if (par)
				cg_put(e->out, ")");
		} else {
			c_cast(e, ctx, x, to, prec);
		}
		return;
	default:
		/* integer to integer: C's conversion wraps (two's complement) */
		c_cast(e, ctx, x, to, prec);
		return;
	}
}

/* ---- expressions ------------------------------------------------------ */

/* The operator table's C precedences are the emitter's levels. */
_Static_assert((int)STIR_CPREC_OR == P_OR && (int)STIR_CPREC_AND == P_AND &&
	(int)STIR_CPREC_EQ == P_EQ && (int)STIR_CPREC_REL == P_REL &&
	(int)STIR_CPREC_ADD == P_ADD && (int)STIR_CPREC_MUL == P_MUL,
	"ir/ops.h and cuda_internal.h disagree on C precedence");

/* e, ctx, x, prec: a binary operation. */
static void print_binary(emitter *e, const ectx *ctx, const stir_expr *x,
	int prec)
{
	cg_printer *p = e->out;
	stir_binop op = x->u.binary.op;
	const stir_expr *a = x->u.binary.a, *b = x->u.binary.b;
	stir_dtype t = x->dtype;
	if (op >= STIR_LT && op <= STIR_OR) {
		/* comparisons of 16-bit floats compare floats */
		int own = stir_binop_get(op)->c_prec;
		bool par = open_paren(e, prec, own);
		cuda_as_compute(e, ctx, a, own);
		cg_putf(p, " %s ", stir_binop_get(op)->text);
		cuda_as_compute(e, ctx, b, own + 1);
		if (par)
			cg_put(p, ")");
		return;
	}
	if (op == STIR_MOD && stir_dtype_is_float(t)) {
		bool close = cuda_round_open(e, t);
		cg_put(p, t == STIR_F64 ? "fmod(" : "fmodf(");
		cuda_as_compute(e, ctx, a, P_TOP);
		cg_put(p, ", ");
		cuda_as_compute(e, ctx, b, P_TOP);
		cg_put(p, close ? "))" : ")");
		return;
	}
	bool half = t == STIR_F16 || t == STIR_BF16, narrow = t == STIR_I8;
	int own = stir_binop_get(op)->c_prec;
	bool par = false;
	if (half) {
		cuda_round_open(e, t);
	} else if (narrow) {
		par = open_paren(e, prec, P_UNARY);
		cg_put(p, "(signed char)(");
	} else {
		par = open_paren(e, prec, own);
	}
	cuda_as_compute(e, ctx, a, own);
	cg_putf(p, " %s ", stir_binop_get(op)->text);
	cuda_as_compute(e, ctx, b, own + 1);
	if (half || narrow)
		cg_put(p, ")");
	if (par)
		cg_put(p, ")");
}

/* e, ctx, x, prec: a unary operation. */
static void print_unary(emitter *e, const ectx *ctx, const stir_expr *x,
	int prec)
{
	cg_printer *p = e->out;
	stir_dtype t = x->dtype;
	if (x->u.unary.op == STIR_NOT) {
		bool par = open_paren(e, prec, P_UNARY);
		cg_put(p, "!");
		cuda_expr(e, ctx, x->u.unary.a, P_UNARY);
		if (par)
			cg_put(p, ")");
		return;
	}
	if (t == STIR_F16 || t == STIR_BF16) {
		cuda_round_open(e, t);
		cg_put(p, "-");
		cuda_as_compute(e, ctx, x->u.unary.a, P_UNARY);
		cg_put(p, ")");
		return;
	}
	bool par = open_paren(e, prec, P_UNARY);
	cg_put(p, t == STIR_I8 ? "(signed char)(-" : "-");
	cuda_expr(e, ctx, x->u.unary.a, P_UNARY);
	if (t == STIR_I8)
		cg_put(p, ")");
	if (par)
		cg_put(p, ")");
}

/* e, ctx, x, prec: a call of min max abs exp log sqrt tanh. */
static void print_call(emitter *e, const ectx *ctx, const stir_expr *x,
	int prec)
{
	cg_printer *p = e->out;
	stir_dtype t = x->dtype;
	stir_func f = x->u.call.f;
	int n = x->u.call.n;
	if (!stir_dtype_is_float(t)) {
		/* min, max and abs of integers; i8 computed in int */
		bool par = false;
		if (t == STIR_I8) {
			par = open_paren(e, prec, P_UNARY);
			cg_put(p, "(signed char)");
		}
		cg_put(p, f == STIR_MIN ? "min(" : f == STIR_MAX ? "max(" :
			t == STIR_I64 ? "llabs(" : "abs(");
		for (int i = 0; i < n; i++) {
			if (i)
				cg_put(p, ", ");
			cuda_expr(e, ctx, x->u.call.args[i], P_COND);
		}
		cg_put(p, ")");
		if (par)
			cg_put(p, ")");
		return;
	}
	bool close = cuda_round_open(e, t);
	cg_put(p, t == STIR_F64 ? stir_func_get(f)->c_f64 :
		stir_func_get(f)->c_f32);
	cg_put(p, "(");
	for (int i = 0; i < n; i++) {
		if (i)
			cg_put(p, ", ");
		cuda_as_compute(e, ctx, x->u.call.args[i], P_COND);
	}
	cg_put(p, close ? "))" : ")");
}

/* e, ctx, x, prec: a search, through the helper emitted once per
 * operation and element type (they compute in long long). */
static void print_search(emitter *e, const ectx *ctx, const stir_expr *x,
	int prec)
{
	cg_printer *p = e->out;
	const stir_buffer *buf = x->u.search.buf;
	e->search_used[x->u.search.op] |= 1u << buf->dtype;
	if (e->buf_used)
		e->buf_used[buf->index] = true;
	bool par = false;
	if (x->dtype != STIR_I64) {
		par = open_paren(e, prec, P_UNARY);
		cg_putf(p, "(%s)", cuda_ctype(x->dtype));
	}
	cg_putf(p, "stir_%s_%s(", stir_search_name(x->u.search.op),
		stir_dtype_get_name(buf->dtype));
	cuda_put_name(e, buf->name);
	cg_put(p, ", ");
	cuda_expr(e, ctx, x->u.search.lo, P_COND);
	cg_put(p, ", ");
	cuda_expr(e, ctx, x->u.search.hi, P_COND);
	cg_put(p, ", ");
	cuda_expr(e, ctx, x->u.search.x, P_COND);
	cg_put(p, ")");
	if (par)
		cg_put(p, ")");
}

/* e, ctx, x: a variable, as its lane value or binding when asked for. */
static void print_var(emitter *e, const ectx *ctx, const stir_expr *x,
	int prec)
{
	const stir_var *v = x->u.var;
	if (v == e->lane_var) {
		cuda_int_literal(e, v->dtype, e->lane_val);
		return;
	}
	if (v == e->warp_var[0] || v == e->warp_var[1]) {
		cuda_int_literal(e, v->dtype, 0);
		return;
	}
	if (v->kind == STIR_VAR_BLOCK && e->facts.binding[v->slot] && e->resolve &&
	    e->resolve[v->slot]) {
		/* the binding in place of the variable: its type is the
		 * binding's, so the value is the same */
		cuda_expr(e, ctx, e->facts.binding[v->slot], prec);
		return;
	}
	if (e->hoist_id[v->slot]) {
		/* a hoisted let (passes/hoist.c) */
		cg_putf(e->out, "stir_s%d", e->hoist_id[v->slot] - 1);
		return;
	}
	cuda_put_name(e, v->name);
}

/* e, ctx, x, prec: see cuda_internal.h. */
void cuda_expr(emitter *e, const ectx *ctx, const stir_expr *x, int prec)
{
	cg_printer *p = e->out;
	switch (x->kind) {
	case STIR_EXPR_INT:
		if (stir_dtype_is_float(x->dtype)) {
			cuda_float_literal(e, x->dtype, (double)x->u.i);
		} else {
			bool par = x->u.i < 0 && open_paren(e, prec, P_UNARY);
			cuda_int_literal(e, x->dtype, x->u.i);
			if (par)
				cg_put(p, ")");
		}
		return;
	case STIR_EXPR_FLOAT: {
		bool par = signbit(x->u.f) && open_paren(e, prec, P_UNARY);
		cuda_float_literal(e, x->dtype, x->u.f);
		if (par)
			cg_put(p, ")");
		return;
	}
	case STIR_EXPR_VAR:
		print_var(e, ctx, x, prec);
		return;
	case STIR_EXPR_LOAD:
		if (cuda_vector_load(e, x))
			return;
		if (x->u.load.buf->scope == STIR_SCOPE_WARP) {
			cuda_warp_load(e, ctx, x);
			return;
		}
		cuda_record(e, x->u.load.buf, x->u.load.idx[0]);
		if (e->buf_used)
			e->buf_used[x->u.load.buf->index] = true;
		cuda_put_name(e, x->u.load.buf->name);
		cg_put(p, "[");
		cuda_expr(e, ctx, x->u.load.idx[0], P_TOP);
		cg_put(p, "]");
		return;
	case STIR_EXPR_UNARY:
		print_unary(e, ctx, x, prec);
		return;
	case STIR_EXPR_BINARY:
		print_binary(e, ctx, x, prec);
		return;
	case STIR_EXPR_SELECT: {
		bool par = open_paren(e, prec, P_COND);
		cuda_expr(e, ctx, x->u.select.c, P_OR);
		cg_put(p, " ? ");
		cuda_conv(e, ctx, x->u.select.a, x->dtype, P_COND + 1);
		cg_put(p, " : ");
		cuda_conv(e, ctx, x->u.select.b, x->dtype, P_COND);
		if (par)
			cg_put(p, ")");
		return;
	}
	case STIR_EXPR_CALL:
		print_call(e, ctx, x, prec);
		return;
	case STIR_EXPR_CAST:
		cuda_conv(e, ctx, x->u.cast.a, x->dtype, prec);
		return;
	case STIR_EXPR_SEARCH:
		print_search(e, ctx, x, prec);
		return;
	}
}

