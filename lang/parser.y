/* The grammar of stir programs (docs/language.md, "Grammar"): stage I, and
 * the stage II and III forms of docs/ir.md, whose keywords the scanner
 * only produces inside a kernel with a stage header.
 *
 * Every action is one call into a named constructor of lang/ast.c; the tree
 * lives in the parse context's arena, so values dropped by error recovery
 * need no destructors.  Errors recover at statement level ("error ;"), in
 * the header of a kernel or an iteration (skip to its "{"), and between
 * kernels, so that one file reports all its syntax errors.
 */
%define api.pure full
%define api.prefix {lang_yy}
%define api.token.prefix {TOK_}
%define api.location.type {stir_loc}
%define parse.error detailed
%define parse.lac full
%locations
%expect 0

%parse-param {lang_parser *p}
%lex-param {lang_parser *p}

%code requires {
#include "lang/ast.h"
}

%code provides {
/* The scanner (lang/lexer.l), called by the parser. */
int lang_yylex(LANG_YYSTYPE *val, stir_loc *loc, lang_parser *p);
/* Start scanning "len" bytes of "text"; 0, or -1 after reporting. */
int lang_lex_begin(lang_parser *p, const char *text, size_t len);
/* Release the scanner. */
void lang_lex_end(lang_parser *p);
}

%code {
#include "ir/diag.h"

/* A rule's location is its first token's: "Rhs[1]"; an empty rule takes
 * the location before it. */
#define YYLLOC_DEFAULT(Cur, Rhs, N) \
	do { (Cur) = (N) ? YYRHSLOC(Rhs, 1) : YYRHSLOC(Rhs, 0); } while (0)

/* The parser's stack holds what is open: within the limits on nesting
 * (see "nest" and "else_if" below) a program needs some 30,000 entries
 * at most (1000 open expressions of up to ten symbols each, with the
 * operators of every precedence level between them, inside 256 blocks),
 * so Bison's "memory exhausted" (10,000) must not come first.  The stack
 * is on the heap; an entry takes some 30 bytes. */
#define YYMAXDEPTH 100000

static void lang_yyerror(stir_loc *loc, lang_parser *p, const char *msg);
}

%initial-action {
	@$.file = p->file;
	@$.line = 1;
	@$.col = 1;
}

%union {
	int64_t i;
	double f;
	const char *s;
	stir_dtype dtype;
	stir_axis_kind axis_kind;
	stir_store_op store_op;
	stir_search search;
	unsigned flags;
	stir_scope scope;
	lang_loop loop;
	lang_binding *binding;
	lang_block_var *block_var;
	lang_block_link *block_link;
	lang_region *region;
	lang_vec *vec;
	lang_range *range;
	lang_list *list;
	lang_name *name;
	lang_expr *expr;
	lang_stmt *stmt;
	lang_group *group;
	lang_arg *arg;
	lang_decl *decl;
	lang_param *param;
	lang_kernel *kernel;
}

%token <s> IDENT "identifier"
%token <i> INT "integer"
%token <f> FLOAT "float"
%token <s> STRING "string"
%token <dtype> TYPE "type name"
%token <axis_kind> AXIS_KIND "axis constructor"
%token KERNEL "kernel" AXIS "axis" TENSOR "tensor" LOCAL "local"
%token ITER "iter" IN "in" INIT "init" LET "let" IF "if" ELSE "else"
%token TRUE "true" FALSE "false" FUSE "fuse" ATTACH "attach"
%token ADD_ASSIGN "+=" SUB_ASSIGN "-=" MUL_ASSIGN "*="
%token EQ "==" NE "!=" LE "<=" GE ">=" AND "&&" OR "||"
%token BUFFER "buffer" FOR "for" BLOCK "block" READS "reads" WRITES "writes"
%token UNROLL "unroll" VECTORIZE "vectorize" BIND "bind" BARRIER "barrier"
%token TENSORIZE "tensorize" PIPELINE "pipeline"
%token HOISTED "hoisted" DISTINCT "distinct"
%token SHARED "shared" GLOBAL "global" WARP "warp"
%token <search> SEARCH "lower_bound, upper_bound or find"
%token <flags> BLOCK_FLAG "block annotation"

%right '?' ':'
%left OR
%left AND
%left EQ NE
%left '<' LE '>' GE
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY

%type <kernel> kernel_body
%type <i> stage_opt
%type <list> params_opt params stmts braced else_opt names groups
%type <list> axis_args exprs exprs_opt domain_opt
%type <flags> block_flags distinct_opt
%type <list> block_vars_opt block_vars reads_opt writes_opt regions ranges
%type <list> vecs_opt vecs
%type <flags> vec_flags vec_flag
%type <vec> vec
%type <binding> binding_opt
%type <scope> scope_opt
%type <loop> loop_opt
%type <block_var> block_var
%type <block_link> block_link_opt
%type <region> region
%type <range> range
%type <param> param
%type <name> name
%type <decl> decl
%type <stmt> stmt if_stmt iter_stmt for_stmt block_stmt
%type <group> group
%type <arg> axis_arg
%type <store_op> store_op
%type <expr> expr primary

%%

module:
	  %empty
	| module kernel
	| module error          { lang_recovered(p); }
	;

kernel:
	  "kernel" name '(' params_opt ')' stage_opt '{' kernel_body '}'
		{ lang_kernel_finish(p, $2, $4, $6, $8); }
	| "kernel" error '{' kernel_body '}'
		{ lang_recovered(p); lang_kernel_finish(p, NULL, NULL, 0, NULL); }
	;

/* "stage" is no keyword, so that stage I programs may use it as a name */
stage_opt:
	  %empty                { $$ = STIR_STAGE_1; }
	| IDENT INT             { $$ = lang_stage_header(p, $1, @1, $2, @2); }
	;

params_opt:
	  %empty                { $$ = lang_list_new(p); }
	| params
	;

params:
	  param                 { $$ = lang_list_one(p, $1); }
	| params ',' param      { $$ = lang_list_append(p, $1, $3); }
	;

param:
	  name ':' TYPE         { $$ = lang_param_new(p, $1, $3); }
	;

name:
	  IDENT                 { $$ = lang_name_new(p, $1, @1); }
	;

kernel_body:
	  %empty                { $$ = lang_kernel_new(p); }
	| kernel_body decl      { $$ = lang_kernel_add_decl(p, $1, $2); }
	| kernel_body stmt      { $$ = lang_kernel_add_stmt(p, $1, $2); }
	;

/* ---- declarations ---- */

decl:
	  "axis" name '=' AXIS_KIND '(' axis_args ')' ';'
		{ $$ = lang_decl_axis(p, $2, $4, @4, $6); }
	| "tensor" name ':' TYPE '[' names ']' domain_opt distinct_opt ';'
		{ $$ = lang_decl_buffer(p, LANG_DECL_TENSOR, $2, $4, $6, $8, $9); }
	| "local" name ':' TYPE '[' names ']' domain_opt distinct_opt ';'
		{ $$ = lang_decl_buffer(p, LANG_DECL_LOCAL, $2, $4, $6, $8, $9); }
	| "buffer" name ':' TYPE '[' expr ']' binding_opt domain_opt distinct_opt
	  scope_opt ';'
		{ $$ = lang_decl_flat(p, $2, $4, $6, $8, $9, $10, $11); }
	;

binding_opt:
	  %empty                { $$ = NULL; }
	| '=' name              { $$ = lang_binding_new(p, $2, NULL); }
	| '=' name '.' name     { $$ = lang_binding_new(p, $2, $4); }
	;

scope_opt:
	  %empty                { $$ = STIR_SCOPE_GLOBAL; }
	| "global"              { $$ = STIR_SCOPE_GLOBAL; }
	| "shared"              { $$ = STIR_SCOPE_SHARED; }
	| "local"               { $$ = STIR_SCOPE_LOCAL; }
	| "warp"                { $$ = STIR_SCOPE_WARP; }
	;

distinct_opt:
	  %empty                { $$ = 0; }
	| "distinct"            { $$ = 1; }
	;

domain_opt:
	  %empty                { $$ = NULL; }
	| "in" '[' expr ',' expr ')' { $$ = lang_domain(p, $3, $5); }
	;

axis_args:
	  axis_arg              { $$ = lang_list_one(p, $1); }
	| axis_args ',' axis_arg { $$ = lang_list_append(p, $1, $3); }
	;

axis_arg:
	  expr                  { $$ = lang_arg_expr(p, $1, @1); }
	| IDENT '=' TYPE        { $$ = lang_arg_type(p, $1, @1, $3); }
	| IDENT '=' "true"      { $$ = lang_arg_flag(p, $1, @1, true); }
	| IDENT '=' "false"     { $$ = lang_arg_flag(p, $1, @1, false); }
	;

names:
	  name                  { $$ = lang_list_one(p, $1); }
	| names ',' name        { $$ = lang_list_append(p, $1, $3); }
	;

/* ---- statements ---- */

stmts:
	  %empty                { $$ = lang_list_new(p); }
	| stmts stmt            { $$ = lang_list_append(p, $1, $2); }
	;

braced:
	  '{' stmts '}'         { $$ = $2; }
	;

stmt:
	  name '[' exprs ']' store_op expr ';'
		{ $$ = lang_stmt_store(p, $1, $3, $5, $6); }
	| "let" name '=' expr ';' { $$ = lang_stmt_let(p, @1, $2, $4, false); }
	| "hoisted" "let" name '=' expr ';'
		{ $$ = lang_stmt_let(p, @1, $3, $5, true); }
	| if_stmt
	| iter_stmt
	| for_stmt
	| block_stmt
	| "init" braced         { $$ = lang_stmt_init(p, @1, $2); }
	| "barrier" ';'         { $$ = lang_stmt_barrier(p, @1); }
	| error ';'             { lang_recovered(p); $$ = NULL; }
	;

store_op:
	  '='                   { $$ = STIR_STORE_ASSIGN; }
	| "+="                  { $$ = STIR_STORE_ADD; }
	| "-="                  { $$ = STIR_STORE_SUB; }
	| "*="                  { $$ = STIR_STORE_MUL; }
	;

if_stmt:
	  "if" '(' expr ')' braced else_opt
		{ $$ = lang_stmt_if(p, @1, $3, lang_block(p, $5), $6); }
	| "if" '(' error ')' braced else_opt { lang_recovered(p); $$ = NULL; }
	;

else_opt:
	  %empty                { $$ = NULL; }
	| "else" braced         { $$ = lang_block(p, $2); }
	| "else" else_if if_stmt
		{ lang_unnest_else_if(p); $$ = lang_else_if(p, $3); }
	;

iter_stmt:
	  "iter" name '(' names ')' "in" '[' groups ']' STRING braced
		{ $$ = lang_stmt_iter(p, @1, $2, $4, $8, $10, @10, $11); }
	| "iter" error braced   { lang_recovered(p); $$ = NULL; }
	;

for_stmt:
	  "for" name "in" '[' expr ',' expr ')' loop_opt braced
		{ $$ = lang_stmt_for(p, @1, $2, $5, $7, $9, $10); }
	| "for" error braced    { lang_recovered(p); $$ = NULL; }
	;

loop_opt:
	  %empty                { $$ = (lang_loop){ STIR_LOOP_SERIAL, STIR_BLOCK_X }; }
	| "unroll"              { $$ = (lang_loop){ STIR_LOOP_UNROLL, STIR_BLOCK_X }; }
	| "vectorize"           { $$ = (lang_loop){ STIR_LOOP_VECTORIZE, STIR_BLOCK_X }; }
	| "vectorize" '(' vecs_opt ')' { $$ = lang_loop_vectorize(p, $3); }
	| "tensorize" '(' name ')' { $$ = lang_loop_tensorize(p, $3); }
	| "pipeline" '(' INT ')' { $$ = lang_loop_pipeline(p, @3, $3, @3, 0); }
	| "pipeline" '(' INT ',' INT ')' { $$ = lang_loop_pipeline(p, @3, $3, @5, $5); }
	| "bind" '(' name '.' name ')' { $$ = lang_loop_bind(p, $3, $5); }
	;

vecs_opt:
	  %empty                { $$ = lang_list_new(p); }
	| vecs
	;

vecs:
	  vec                   { $$ = lang_list_one(p, $1); }
	| vecs ',' vec          { $$ = lang_list_append(p, $1, $3); }
	;

vec:
	  expr vec_flags        { $$ = lang_vec_new(p, @1, $1, $2); }
	;

vec_flags:
	  vec_flag
	| vec_flags vec_flag    { $$ = $1 | $2; }
	;

vec_flag:
	  name                  { $$ = lang_vec_flag(p, $1); }
	| BLOCK_FLAG            { $$ = lang_vec_flag_block(p, @1, $1); }
	;

block_stmt:
	  "block" name '(' block_vars_opt ')' block_flags block_link_opt reads_opt
	  writes_opt braced
		{ $$ = lang_stmt_block(p, @1, $2, $4, $6, $7, $8, $9, $10); }
	| "block" error braced  { lang_recovered(p); $$ = NULL; }
	;

block_flags:
	  %empty                { $$ = 0; }
	| block_flags BLOCK_FLAG { $$ = $1 | $2; }
	;

block_link_opt:
	  %empty                { $$ = NULL; }
	| "iter" name           { $$ = lang_block_link_new(p, $2, false); }
	| "init" name           { $$ = lang_block_link_new(p, $2, true); }
	;

block_vars_opt:
	  %empty                { $$ = lang_list_new(p); }
	| block_vars
	;

block_vars:
	  block_var             { $$ = lang_list_one(p, $1); }
	| block_vars ',' block_var { $$ = lang_list_append(p, $1, $3); }
	;

block_var:
	  name ':' name '=' expr { $$ = lang_block_var_new(p, $1, $3, $5); }
	;

reads_opt:
	  %empty                { $$ = NULL; }
	| "reads" '(' regions ')' { $$ = $3; }
	;

writes_opt:
	  %empty                { $$ = NULL; }
	| "writes" '(' regions ')' { $$ = $3; }
	;

regions:
	  region                { $$ = lang_list_one(p, $1); }
	| regions ',' region    { $$ = lang_list_append(p, $1, $3); }
	;

region:
	  name '[' ranges ']'   { $$ = lang_region_new(p, $1, $3); }
	;

ranges:
	  range                 { $$ = lang_list_one(p, $1); }
	| ranges ',' range      { $$ = lang_list_append(p, $1, $3); }
	;

range:
	  expr                  { $$ = lang_range_new(p, $1, NULL, false); }
	| expr ':' expr         { $$ = lang_range_new(p, $1, $3, true); }
	| ':'                   { $$ = lang_range_new(p, NULL, NULL, true); }
	;

groups:
	  group                 { $$ = lang_list_one(p, $1); }
	| groups ',' group      { $$ = lang_list_append(p, $1, $3); }
	;

group:
	  name                  { $$ = lang_group_axis(p, $1); }
	| "fuse" '(' names ')'  { $$ = lang_group_fuse(p, @1, $3); }
	| "fuse" '(' names ',' IDENT '=' "true" ')'
		{ $$ = lang_group_fuse_option(p, @1, $3, $5, @5, true); }
	| "fuse" '(' names ',' IDENT '=' "false" ')'
		{ $$ = lang_group_fuse_option(p, @1, $3, $5, @5, false); }
	| "attach" '(' name ',' name ')'
		{ $$ = lang_group_attach(p, @1, $3, $5); }
	;

/* An "else if" nests its if inside the else branch: one block level
 * more, although its braces close (lang_nest_else_if). */
else_if:
	  %empty                { lang_nest_else_if(p, @$); }
	;

/* ---- expressions ---- */

/* Shifted after each token that opens an expression inside another, one
 * whose end the parser must wait for: a prefix operator, "(", an index or
 * argument list, the "?" of a conditional.  Counting them bounds the
 * parser's stack (and the tree's depth) before any node is built: more
 * than LANG_MAX_EXPR_DEPTH open is "expression nested too deeply" at the
 * token, and the input ends there (lang_nest).  Each rule that shifts it
 * closes it in its action (lang_unnest); error recovery forgets them all
 * (lang_recovered), since no expression holds a statement. */
nest:
	  %empty                { lang_nest(p, @$); }
	;

exprs:
	  expr                  { $$ = lang_list_one(p, $1); }
	| exprs ',' expr        { $$ = lang_list_append(p, $1, $3); }
	;

exprs_opt:
	  %empty                { $$ = lang_list_new(p); }
	| exprs
	;

expr:
	  expr '?' nest expr ':' expr
		{ lang_unnest(p); $$ = lang_expr_select(p, $1, $4, $6, @1); }
	| expr "||" expr        { $$ = lang_expr_binary(p, STIR_OR, $1, $3, @2); }
	| expr "&&" expr        { $$ = lang_expr_binary(p, STIR_AND, $1, $3, @2); }
	| expr "==" expr        { $$ = lang_expr_binary(p, STIR_EQ, $1, $3, @2); }
	| expr "!=" expr        { $$ = lang_expr_binary(p, STIR_NE, $1, $3, @2); }
	| expr '<' expr         { $$ = lang_expr_binary(p, STIR_LT, $1, $3, @2); }
	| expr "<=" expr        { $$ = lang_expr_binary(p, STIR_LE, $1, $3, @2); }
	| expr '>' expr         { $$ = lang_expr_binary(p, STIR_GT, $1, $3, @2); }
	| expr ">=" expr        { $$ = lang_expr_binary(p, STIR_GE, $1, $3, @2); }
	| expr '+' expr         { $$ = lang_expr_binary(p, STIR_ADD, $1, $3, @2); }
	| expr '-' expr         { $$ = lang_expr_binary(p, STIR_SUB, $1, $3, @2); }
	| expr '*' expr         { $$ = lang_expr_binary(p, STIR_MUL, $1, $3, @2); }
	| expr '/' expr         { $$ = lang_expr_binary(p, STIR_DIV, $1, $3, @2); }
	| expr '%' expr         { $$ = lang_expr_binary(p, STIR_MOD, $1, $3, @2); }
	| '-' nest expr %prec UNARY
		{ lang_unnest(p); $$ = lang_expr_unary(p, STIR_NEG, $3, @1); }
	| '!' nest expr %prec UNARY
		{ lang_unnest(p); $$ = lang_expr_unary(p, STIR_NOT, $3, @1); }
	| primary
	;

primary:
	  INT                   { $$ = lang_expr_int(p, $1, @1); }
	| FLOAT                 { $$ = lang_expr_float(p, $1, @1); }
	| "true"                { $$ = lang_expr_bool(p, true, @1); }
	| "false"               { $$ = lang_expr_bool(p, false, @1); }
	| IDENT                 { $$ = lang_expr_name(p, LANG_EXPR_NAME, $1, NULL, @1); }
	| IDENT '[' nest exprs ']'
		{ lang_unnest(p); $$ = lang_expr_name(p, LANG_EXPR_INDEX, $1, $4, @1); }
	| IDENT '(' nest exprs_opt ')'
		{ lang_unnest(p); $$ = lang_expr_name(p, LANG_EXPR_CALL, $1, $4, @1); }
	| TYPE                  { $$ = lang_expr_type(p, $1, NULL, @1); }
	| TYPE '(' nest exprs_opt ')'
		{ lang_unnest(p); $$ = lang_expr_type(p, $1, $4, @1); }
	| SEARCH '(' nest name ',' expr ',' expr ',' expr ')'
		{ lang_unnest(p); $$ = lang_expr_search(p, $1, $4, $6, $8, $10, @1); }
	| '(' nest expr ')'     { lang_unnest(p); $$ = $3; }
	;

%%

/* loc, p, msg: Bison's report of a syntax error at the lookahead token.
 * After the scanner gave up (and reported why), the only token left is the
 * end of the input, and an error there says nothing new. */
static void lang_yyerror(stir_loc *loc, lang_parser *p, const char *msg)
{
	if (p->lex_stopped) {
		p->n_errors++;
		return;
	}
	lang_syntax_error(p, *loc, "%s", msg);
}

/* p, text, len: run the scanner and the grammar over the text. */
lang_list *lang_parse(lang_parser *p, const char *text, size_t len)
{
	if (lang_lex_begin(p, text, len) < 0)
		return NULL;
	int r = lang_yyparse(p);
	lang_lex_end(p);
	if (p->arena.failed) {
		stir_error_oom(p->ctx);
		return NULL;
	}
	if (r != 0 || p->n_errors > 0)
		return NULL;
	lang_list *kernels = p->kernels ? p->kernels : lang_list_new(p);
	if (!kernels)
		stir_error_oom(p->ctx);
	return kernels;
}
