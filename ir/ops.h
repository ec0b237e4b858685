/* The operators of the IR in one table (docs/ir.md, "Walking the IR"):
 * how the text form and C/CUDA spell them, how tightly they bind, and the
 * category the verifier checks their operands by.  lang/print.c, ir/verify.c,
 * lang/build.c and codegen/cuda_expr.c read their spellings here; a new
 * operator is one new row. */
#ifndef STIR_IR_OPS_H
#define STIR_IR_OPS_H

#include "ir/nodes.h"

/* Precedence levels of the text form, loosest first (docs/language.md,
 * "Grammar"). */
enum {
	STIR_PREC_SELECT = 1,
	STIR_PREC_OR,
	STIR_PREC_AND,
	STIR_PREC_EQ,
	STIR_PREC_REL,
	STIR_PREC_ADD,
	STIR_PREC_MUL,
	STIR_PREC_UNARY,
	STIR_PREC_PRIMARY,
};

/* C's precedence levels of the binary operators, as the CUDA emitter
 * numbers them (its P_* levels, codegen/cuda_internal.h: the emitter
 * checks that they agree). */
enum {
	STIR_CPREC_OR = 4,
	STIR_CPREC_AND = 5,
	STIR_CPREC_EQ = 9,
	STIR_CPREC_REL = 10,
	STIR_CPREC_ADD = 12,
	STIR_CPREC_MUL = 13,
};

/* What a binary operator takes and gives, for the verifier. */
typedef enum stir_op_class {
	STIR_OPC_ARITH,     /* numbers of one type in, that type out: + - * / */
	STIR_OPC_INT_ARITH, /* the same for integers only: % */
	STIR_OPC_COMPARE,   /* numbers in, bool out: < <= > >= */
	STIR_OPC_EQUALITY,  /* numbers, or two conditions, in; bool out */
	STIR_OPC_LOGIC,     /* conditions in, bool out: && || */
} stir_op_class;

/* One binary operator. */
typedef struct stir_binop_info {
	const char *text;     /* its spelling, the same in .stir text and C */
	int prec;             /* text precedence, STIR_PREC_* */
	int c_prec;           /* C precedence, STIR_CPREC_* */
	stir_op_class cls;    /* operand category */
} stir_binop_info;

/* op: its row, or NULL for a value outside the enumeration. */
const stir_binop_info *stir_binop_get(stir_binop op);
/* op: whether it computes a number from numbers (+ - * / %): what a size
 * expression may use. */
bool stir_binop_is_arith(stir_binop op);
/* op: the spelling of a unary operator ("-", "!"), or NULL. */
const char *stir_unop_text(stir_unop op);

/* One built-in function. */
typedef struct stir_func_info {
	const char *name;     /* in .stir text: "min", "sqrt" */
	int n_args;           /* the number of arguments it takes */
	bool int_ok;          /* whether it also takes integers (min max abs) */
	const char *c_f32;    /* the CUDA math function for f32 ("sqrtf") */
	const char *c_f64;    /* and for f64 ("sqrt") */
} stir_func_info;

/* f: its row, or NULL for a value outside the enumeration. */
const stir_func_info *stir_func_get(stir_func f);
/* f, n: whether f called with n arguments is one that also computes on
 * integers (min, max, abs with their arity): what a size may use. */
bool stir_func_is_int_call(stir_func f, int n);
/* name: the function the text form spells "name", or -1. */
int stir_func_lookup(const char *name);

/* op: the spelling of a store operator ("=", "+=", "-=", "*="), or NULL. */
const char *stir_store_op_text(stir_store_op op);
/* (stir_search_name, ir/nodes.h, spells the searches; ir/ops.c holds it.) */

#endif
