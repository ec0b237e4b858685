/* The operator table; see ops.h. */
#include <string.h>
#include "ir/ops.h"

/* The binary operators, by stir_binop. */
static const stir_binop_info binops[] = {
	[STIR_ADD] = { "+", STIR_PREC_ADD, STIR_CPREC_ADD, STIR_OPC_ARITH },
	[STIR_SUB] = { "-", STIR_PREC_ADD, STIR_CPREC_ADD, STIR_OPC_ARITH },
	[STIR_MUL] = { "*", STIR_PREC_MUL, STIR_CPREC_MUL, STIR_OPC_ARITH },
	[STIR_DIV] = { "/", STIR_PREC_MUL, STIR_CPREC_MUL, STIR_OPC_ARITH },
	[STIR_MOD] = { "%", STIR_PREC_MUL, STIR_CPREC_MUL, STIR_OPC_INT_ARITH },
	[STIR_LT] = { "<", STIR_PREC_REL, STIR_CPREC_REL, STIR_OPC_COMPARE },
	[STIR_LE] = { "<=", STIR_PREC_REL, STIR_CPREC_REL, STIR_OPC_COMPARE },
	[STIR_GT] = { ">", STIR_PREC_REL, STIR_CPREC_REL, STIR_OPC_COMPARE },
	[STIR_GE] = { ">=", STIR_PREC_REL, STIR_CPREC_REL, STIR_OPC_COMPARE },
	[STIR_EQ] = { "==", STIR_PREC_EQ, STIR_CPREC_EQ, STIR_OPC_EQUALITY },
	[STIR_NE] = { "!=", STIR_PREC_EQ, STIR_CPREC_EQ, STIR_OPC_EQUALITY },
	[STIR_AND] = { "&&", STIR_PREC_AND, STIR_CPREC_AND, STIR_OPC_LOGIC },
	[STIR_OR] = { "||", STIR_PREC_OR, STIR_CPREC_OR, STIR_OPC_LOGIC },
};

/* The built-in functions, by stir_func. */
static const stir_func_info funcs[] = {
	[STIR_MIN] = { "min", 2, true, "fminf", "fmin" },
	[STIR_MAX] = { "max", 2, true, "fmaxf", "fmax" },
	[STIR_ABS] = { "abs", 1, true, "fabsf", "fabs" },
	[STIR_EXP] = { "exp", 1, false, "expf", "exp" },
	[STIR_LOG] = { "log", 1, false, "logf", "log" },
	[STIR_SQRT] = { "sqrt", 1, false, "sqrtf", "sqrt" },
	[STIR_TANH] = { "tanh", 1, false, "tanhf", "tanh" },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* op: see ops.h. */
const stir_binop_info *stir_binop_get(stir_binop op)
{
	return (unsigned)op < N_OF(binops) ? &binops[op] : NULL;
}

/* op: see ops.h. */
bool stir_binop_is_arith(stir_binop op)
{
	const stir_binop_info *b = stir_binop_get(op);
	return b && (b->cls == STIR_OPC_ARITH || b->cls == STIR_OPC_INT_ARITH);
}

/* op: see ops.h. */
const char *stir_unop_text(stir_unop op)
{
	return op == STIR_NEG ? "-" : op == STIR_NOT ? "!" : NULL;
}

/* f: see ops.h. */
const stir_func_info *stir_func_get(stir_func f)
{
	return (unsigned)f < N_OF(funcs) ? &funcs[f] : NULL;
}

/* f, n: see ops.h. */
bool stir_func_is_int_call(stir_func f, int n)
{
	const stir_func_info *i = stir_func_get(f);
	return i && i->int_ok && i->n_args == n;
}

/* name: see ops.h. */
int stir_func_lookup(const char *name)
{
	for (size_t i = 0; i < N_OF(funcs); i++)
		if (!strcmp(funcs[i].name, name))
			return (int)i;
	return -1;
}

/* op: see ops.h. */
const char *stir_store_op_text(stir_store_op op)
{
	static const char *const ops[] = {
		[STIR_STORE_ASSIGN] = "=", [STIR_STORE_ADD] = "+=",
		[STIR_STORE_SUB] = "-=", [STIR_STORE_MUL] = "*=",
	};
	return (unsigned)op < N_OF(ops) ? ops[op] : NULL;
}

/* op: see ir/nodes.h. */
const char *stir_search_name(stir_search op)
{
	static const char *const names[] = {
		[STIR_LOWER_BOUND] = "lower_bound",
		[STIR_UPPER_BOUND] = "upper_bound", [STIR_FIND] = "find",
	};
	return (unsigned)op < N_OF(names) ? names[op] : NULL;
}
