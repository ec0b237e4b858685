/* Schedule files (include/stir/schedule.h; docs/schedules.md, "Schedule
 * files"): every class of error the reader reports, each at its exact
 * line and column; errors found while applying a file (patterns that
 * match nothing, primitives that refuse, the wrong kernel or stage, formats
 * that cannot be built); every written schedule examples/NAME.yaml applied
 * to its program and interpreted at stages II and III against the
 * unscheduled stage I program, on random inputs and on the Cora graph;
 * every format rule through decompose and the host builders; custom rules
 * against the shipped ones they spell out. */
#include "ir/nodes.h"
#include "tests/testsched.h"

/* ctx, text: the schedule read from text (file name "s.yaml"). */
static stir_schedule *read_str(stir_ctx *ctx, const char *text)
{
	return stir_schedule_read_from_mem(ctx, "s.yaml", text, strlen(text));
}

/* A schedule that the reader must refuse, and its diagnostics. */
typedef struct bad_file {
	const char *text;
	const char *diags;
} bad_file;

static const bad_file bad[] = {
	/* YAML syntax: libyaml's message at its place, its context a note */
	{ "kernel: csrmm\nstage2:\n  - split: {block: b, loop: i, factors: "
	  "[1, 2}\n",
	  "3:46: error: malformed YAML: did not find expected ',' or ']'\n"
	  "3:41: note: while parsing a flow sequence\n" },
	{ "kernel: csrmm\nstage2:\n\t- unroll\n",
	  "3:1: error: malformed YAML: found character that cannot start any "
	  "token\n3:1: note: while scanning for the next token\n" },
	{ "kernel: csrmm\n---\nkernel: sddmm\n",
	  "2:1: error: a schedule file holds one YAML document, but a second "
	  "one starts here\n" },
	{ "",
	  "1:1: error: the schedule file is empty: it must name a kernel "
	  "('kernel: NAME')\n" },
	/* the top level */
	{ "- split\n",
	  "1:1: error: a schedule file must be a mapping with the keys kernel, "
	  "format, stage1, stage2 and stage3, not a list\n" },
	{ "kernel: csrmm\nstages:\n  - unroll: {block: b, loop: i}\n",
	  "2:1: error: unknown top-level key 'stages' (expected kernel, format, "
	  "stage1, stage2, stage3, min_blocks_per_sm or overlap_launches)\n" },
	{ "kernel: csrmm\noverlap_launches: yes\n",
	  "2:19: error: 'overlap_launches': unknown value 'yes' (expected false "
	  "or true)\n" },
	{ "kernel: csrmm\nmin_blocks_per_sm: 0\n",
	  "2:20: error: 'min_blocks_per_sm' must be a positive integer, not "
	  "'0'\n" },
	{ "kernel: csrmm\nmin_blocks_per_sm: 33\n",
	  "2:20: error: 'min_blocks_per_sm' must be 1 to 32, not 33\n" },
	{ "stage2:\n  - unroll: {block: b, loop: i}\n",
	  "1:1: error: missing top-level key 'kernel'\n" },
	{ "kernel: [csrmm]\n",
	  "1:9: error: 'kernel' must be a kernel name, not a list\n" },
	{ "kernel: csrmm\nstage2: {unroll: {block: b, loop: i}}\n",
	  "2:9: error: 'stage2' must be a list of steps, not a mapping\n" },
	{ "kernel: csrmm\nstage2: []\nstage2: []\n",
	  "3:1: error: top-level key 'stage2' given twice\n"
	  "2:1: note: first given here\n" },
	/* steps and primitives */
	{ "kernel: csrmm\nstage2:\n  - unroll: {block: b, loop: i}\n"
	  "    bind: {block: b, loop: i, to: threadIdx.x}\n",
	  "3:5: error: a step must be a primitive with its arguments, such as "
	  "'- split: {block: B, loop: i, factors: [null, 8]}', not a mapping of "
	  "several keys\n" },
	{ "kernel: csrmm\nstage2:\n  - unrol: {block: b, loop: i}\n",
	  "3:5: error: unknown primitive 'unrol'\n" },
	{ "kernel: csrmm\nstage1:\n  - unroll: {block: b, loop: i}\nformat:\n"
	  "  - split: {block: b, loop: i, factors: [2, 2]}\nstage3:\n"
	  "  - sparse_fuse: {iter: x, iters: [i, j]}\n  - decompose: {tensor: A, "
	  "rules: [{ell: {width: 2}}]}\n",
	  "3:5: error: unroll cannot appear in stage1: it belongs in stage2 or "
	  "stage3\n"
	  "5:5: error: split cannot appear in format: it belongs in stage2 or "
	  "stage3\n"
	  "7:5: error: sparse_fuse cannot appear in stage3: it belongs in "
	  "stage1\n"
	  "8:5: error: decompose cannot appear in stage3: it belongs in "
	  "format\n" },
	{ "kernel: csrmm\nformat:\n  - specialize: {param: feat, value: 8}\n",
	  "3:5: error: specialize cannot appear in format: it belongs in "
	  "stage1, stage2 or stage3\n" },
	/* arguments */
	{ "kernel: csrmm\nstage2:\n  - unroll: [b, i]\n",
	  "3:13: error: unroll: the arguments must be a mapping, such as "
	  "{block: B, loop: i}, not a list\n" },
	{ "kernel: csrmm\nstage2:\n  - unroll: {block: b, loop: i, factor: 4}\n",
	  "3:33: error: unroll: unknown argument 'factor' (expected block or "
	  "loop)\n" },
	{ "kernel: csrmm\nstage2:\n  - bind: {block: b, to: threadIdx.x}\n"
	  "  - set_atomic:\n",
	  "3:11: error: bind: missing argument 'loop'\n"
	  "4:5: error: set_atomic: missing argument 'block'\n" },
	{ "kernel: csrmm\nstage2:\n  - unroll: {block: b, loop: i, loop: j}\n",
	  "3:33: error: unroll: argument 'loop' given twice\n"
	  "3:24: note: first given here\n" },
	{ "kernel: csrmm\nstage2:\n  - default_schedule: {block: b}\n",
	  "3:23: error: default_schedule: takes no arguments\n" },
	/* values */
	{ "kernel: csrmm\nstage2:\n"
	  "  - split: {block: b, loop: i, factors: [null, 0, null]}\n"
	  "  - split: {block: b, loop: i, factors: [8]}\n"
	  "  - split: {block: b, loop: i, factors: 8}\n"
	  "  - split: {block: b, loop: i, factors: [x, 2.5, \"4\"]}\n",
	  "3:48: error: split: factor '0' is not a positive integer or null\n"
	  "3:51: error: split: only one factor may be null (inferred)\n"
	  "4:41: error: split: 'factors' needs at least 2 factors, not 1\n"
	  "5:41: error: split: 'factors' must be a list of positive integers "
	  "and null, not '8'\n"
	  "6:42: error: split: factor 'x' is not a positive integer or null\n"
	  "6:45: error: split: factor '2.5' is not a positive integer or null\n"
	  "6:50: error: split: factor '4' is not a positive integer or null\n" },
	{ "kernel: csrmm\nstage2:\n"
	  "  - bind: {block: b, loop: i, to: threadIdx.w}\n"
	  "  - cache_read: {block: b, buffer: B, loop: i, scope: global}\n"
	  "  - unroll: {block: [b], loop: ~}\n"
	  "  - fuse: {block: b, loops: []}\n"
	  "  - reorder: {block: b, loops: [i, [j]]}\n"
	  "  - specialize: {param: feat, value: big}\n"
	  "  - horizontal_fuse: {blocks: b}\n",
	  "3:35: error: bind: unknown thread index 'threadIdx.w' (expected "
	  "blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y or "
	  "threadIdx.z)\n"
	  "4:55: error: cache_read: unknown scope 'global' (expected shared, "
	  "local or warp)\n"
	  "5:21: error: unroll: 'block' must be a name or pattern, not a list\n"
	  "5:32: error: unroll: 'loop' must be a name, not null\n"
	  "6:29: error: fuse: 'loops' must not be empty\n"
	  "7:36: error: reorder: element 2 of 'loops' must be a name, not a "
	  "list\n"
	  "8:38: error: specialize: 'value' must be an integer, not 'big'\n"
	  "9:31: error: horizontal_fuse: 'blocks' must be a list of names, not "
	  "'b'\n" },
	/* format rules */
	{ "kernel: csrmm\nformat:\n"
	  "  - decompose: {tensor: A, rules: [{elll: {width: 4}}]}\n"
	  "  - decompose: {tensor: A, rules: [{ell: {width: 0}}, {bsr: {}}, "
	  "{padding: {p: 2, q: 3}}]}\n"
	  "  - decompose: {tensor: A, rules: [{hybrid: {column_parts: 1, "
	  "buckets: [1, 4, 2]}}, {sr_bcrs: {t: 2}}]}\n"
	  "  - decompose: {tensor: A, rules: [{ell: {width: 4, suffix: "
	  "\"_e-1\"}}, ell, {ell: 4}]}\n"
	  "  - decompose: {tensor: A, rules: []}\n"
	  "  - decompose: {tensor: A, rules: [{hybrid: {column_parts: 0, "
	  "buckets: []}}, {dbsr: {block: -2}}, {ell3d: {width: 1, x: 1}}]}\n",
	  "3:37: error: decompose: unknown format 'elll' (expected ell, bsr, "
	  "padding, hybrid, ell3d, dbsr, sr_bcrs or custom)\n"
	  "4:50: error: decompose: ell: 'width' must be a positive integer, not "
	  "'0'\n"
	  "4:61: error: decompose: bsr: missing parameter 'block'\n"
	  "4:83: error: decompose: padding: unknown parameter 'q' (expected p "
	  "or suffix)\n"
	  "5:79: error: decompose: hybrid: bucket widths must increase strictly "
	  "(2 after 4)\n"
	  "5:95: error: decompose: sr_bcrs: missing parameter 'g'\n"
	  "6:61: error: decompose: ell: suffix '_e-1' may hold only letters, "
	  "digits and '_'\n"
	  "6:71: error: decompose: a rule must be a mapping of one format to "
	  "its parameters, such as {ell: {width: 8}}, not 'ell'\n"
	  "6:82: error: decompose: ell: the parameters must be a mapping, not "
	  "'4'\n"
	  "7:35: error: decompose: 'rules' must not be empty\n"
	  "8:60: error: decompose: hybrid: 'column_parts' must be a positive "
	  "integer, not '0'\n"
	  "8:72: error: decompose: hybrid: 'buckets' must be a non-empty list "
	  "of widths, not an empty list\n"
	  "8:93: error: decompose: dbsr: 'block' must be a positive integer, "
	  "not '-2'\n"
	  "8:118: error: decompose: ell3d: unknown parameter 'x' (expected "
	  "width or suffix)\n" },
	{ "kernel: csrmm\nformat:\n  - decompose:\n      tensor: A\n"
	  "      rules:\n        - custom:\n            suffix: _x\n"
	  "            axes:\n              - {keep: ^0}\n"
	  "              - {name: J, kind: sparse_fixd, parent: ^0, len: ^1}\n"
	  "              - {keep: 1}\n"
	  "              - {name: L, kind: dense_fixed, len: ^x}\n"
	  "              - {name: M, kind: dense_fixed, len: 4, sorted: maybe}\n"
	  "              - 7\n"
	  "            map:\n              - {axis: 1, from: [J]}\n",
	  "10:33: error: decompose: custom: unknown axis kind 'sparse_fixd' "
	  "(expected dense_fixed, dense_variable, sparse_fixed or "
	  "sparse_variable)\n"
	  "11:24: error: decompose: custom: 'keep' takes a tensor axis '^K' (K "
	  "from 0), not '1'\n"
	  "12:51: error: decompose: custom: '^x' is not a tensor axis '^K' (K "
	  "from 0)\n"
	  "13:62: error: decompose: custom: 'sorted' must be true or false, not "
	  "'maybe'\n"
	  "14:17: error: decompose: custom: an axis must be a mapping, such as "
	  "{keep: ^0} or {name: J, kind: sparse_fixed, parent: ^0, len: ^1, "
	  "nnz: 4}, not '7'\n" },
	{ "kernel: csrmm\nformat:\n  - decompose:\n      tensor: A\n"
	  "      rules:\n        - custom:\n            suffix: _x\n"
	  "            axes: [{keep: ^0}, {name: J, kind: sparse_fixed, "
	  "parent: ^0, len: ^1, nnz: 4}]\n"
	  "            map: [{axis: 1, from: [J, Q], coefs: [1]}]\n",
	  "9:39: error: decompose: custom: 'Q' is not an axis of this rule\n"
	  "9:50: error: decompose: custom: 'coefs' must be a list of 2 "
	  "integers, one per axis of 'from'\n" },
	/* covering the rows: a boolean, and one column part (false asks
	 * nothing of them) */
	{ "kernel: csrmm\nformat:\n"
	  "  - decompose: {tensor: A, rules: [{hybrid: {column_parts: 1, "
	  "buckets: [1, 2], cover_rows: yes}}]}\n"
	  "  - decompose: {tensor: A, rules: [{hybrid: {column_parts: 2, "
	  "buckets: [1, 2], cover_rows: true}}]}\n"
	  "  - decompose: {tensor: A, rules: [{hybrid: {column_parts: 1, "
	  "buckets: [4], cover_rows: [true]}}]}\n"
	  "  - decompose: {tensor: A, rules: [{hybrid: {column_parts: 3, "
	  "buckets: [4], cover_rows: false}}]}\n"
	  "  - decompose:\n      tensor: A\n      rules:\n"
	  "        - hybrid:\n            column_parts: 4\n"
	  "            buckets: [1, 2]\n            cover_rows: TRUE\n"
	  "        - hybrid: {column_parts: 4, buckets: [8], cover_rows: true, "
	  "suffix: _w}\n",
	  "3:92: error: decompose: hybrid: 'cover_rows' must be true or false, "
	  "not 'yes'\n"
	  "4:92: error: decompose: hybrid: covering the rows needs one column "
	  "part, not 2\n"
	  "5:89: error: decompose: hybrid: 'cover_rows' must be true or false, "
	  "not a list\n"
	  "13:25: error: decompose: hybrid: 'cover_rows' must be true or false, "
	  "not 'TRUE'\n"
	  "14:63: error: decompose: hybrid: covering the rows needs one column "
	  "part, not 4\n" },
	/* SR-BCRS covers the rows when asked: a boolean */
	{ "kernel: csrmm\nformat:\n"
	  "  - decompose: {tensor: A, rules: [{sr_bcrs: {t: 16, g: 8, "
	  "cover_rows: 1}}]}\n",
	  "3:72: error: decompose: sr_bcrs: 'cover_rows' must be true or false, "
	  "not '1'\n" },
	/* the chunks of SR-BCRS: a positive number of groups */
	{ "kernel: csrmm\nformat:\n"
	  "  - decompose: {tensor: A, rules: [{sr_bcrs: {t: 16, g: 8, "
	  "chunk: 0}}]}\n",
	  "3:67: error: decompose: sr_bcrs: 'chunk' must be a positive integer, not "
	  "'0'\n" },
	/* a row order: one of four names, and only with chunks */
	{ "kernel: csrmm\nformat:\n"
	  "  - decompose: {tensor: A, rules: [{sr_bcrs: {t: 16, g: 8, "
	  "chunk: 8, row_order: rcm}}]}\n",
	  "3:81: error: decompose: sr_bcrs: 'row_order' must be one of natural, "
	  "degree, locality or fewest_slots, not 'rcm'\n" },
	{ "kernel: csrmm\nformat:\n"
	  "  - decompose: {tensor: A, rules: [{sr_bcrs: {t: 16, g: 8, "
	  "row_order: degree}}]}\n",
	  "3:71: error: decompose: sr_bcrs: a row order needs chunks (chunk: C)\n" },
	/* the locality order: a boolean */
	{ "kernel: csrmm\nformat:\n"
	  "  - decompose: {tensor: A, rules: [{hybrid: {column_parts: 1, "
	  "buckets: [1, 2], locality_order: 1}}]}\n",
	  "3:96: error: decompose: hybrid: 'locality_order' must be true or false, "
	  "not '1'\n" },
	/* a bound on the rules, which YAML aliases could multiply */
	{ "kernel: csrmm\nformat:\n  - decompose:\n      tensor: A\n"
	  "      rules:\n        - &h {hybrid: {column_parts: 64, buckets: [1, "
	  "2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, "
	  "21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, "
	  "38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, "
	  "55, 56, 57, 58, 59, 60, 61, 62, 63, 64]}}\n  - decompose: {tensor: "
	  "A, rules: [*h]}\n",
	  "7:36: error: decompose: more than 4096 rules in the file (hybrid "
	  "parts count one each)\n" },
	/* an error in a node written with an alias is located at the alias,
	 * not at its anchor */
	{ "kernel: csrmm\nstage2:\n  - bind: &m {block: csrmm1, loop: k, to: "
	  "threadIdx.x}\n  - unroll: *m\n",
	  "4:13: error: unroll: unknown argument 'to' (expected block or "
	  "loop)\n" },
	{ "kernel: csrmm\nstage2:\n  - unroll: {block: csrmm1, loop: &l [k]}\n"
	  "  - unroll: {block: csrmm1, loop: *l}\n",
	  "3:35: error: unroll: 'loop' must be a name, not a list\n"
	  "4:35: error: unroll: 'loop' must be a name, not a list\n" },
	/* specialize gives a size, once per parameter */
	{ "kernel: csrmm\nstage1:\n  - specialize: {param: feat, value: -3}\n",
	  "3:38: error: specialize: the value of size 'feat' must be at least 0, "
	  "not -3\n" },
	{ "kernel: csrmm\nstage1:\n  - specialize: {param: feat, value: 3}\n"
	  "stage2:\n  - specialize: {param: feat, value: 4}\n",
	  "5:25: error: specialize: size 'feat' is specialized twice\n"
	  "3:5: note: the first time, to 3\n" },
	/* an alias inside the node it stands for */
	{ "kernel: csrmm\nstage2: &x [*x]\n",
	  "2:13: error: a YAML alias may not stand for a node that holds it\n" },
	{ "kernel: csrmm\nstage2: [{unroll: &y {block: b, loop: [*y]}}]\n",
	  "2:40: error: a YAML alias may not stand for a node that holds it\n" },
	/* aliases of aliases (billion laughs): a bound, at the alias */
	{ "kernel: csrmm\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
	  "a1: &a1 [*a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0]\n"
	  "a2: &a2 [*a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1]\n"
	  "a3: &a3 [*a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2]\n"
	  "a4: &a4 [*a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3]\n"
	  "a5: &a5 [*a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4]\n",
	  "6:45: error: the YAML aliases of the file stand for more than 100000 "
	  "nodes\n" },
	{ "kernel: csrmm\nformat:\n  - decompose:\n      tensor: A\n"
	  "      rules:\n        - custom: {axes: [], map: [{axis: 0, from: "
	  "[I]}]}\n",
	  "6:19: error: decompose: custom: missing parameter 'suffix'\n" },
};

START_TEST(test_read_errors)
{
	stir_ctx *ctx = stir_ctx_alloc();
	ck_assert_ptr_null(read_str(ctx, bad[_i].text));
	char *got = test_diags_to_str(ctx);
	if (strcmp(got, bad[_i].diags))
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_str_eq(got, bad[_i].diags);
	/* the file is registered: the formatted diagnostics quote it */
	char *text = stir_ctx_diagnostics_to_str(ctx);
	ck_assert_ptr_nonnull(strstr(text, "s.yaml:"));
	free(text);
	free(got);
	stir_ctx_free(ctx);
}
END_TEST

/* Sequences and mappings nested 200,000 deep, in flow style and as block
 * sequences on one line: refused at the 65th level (libyaml's scanner
 * took minutes over the flow ones), and 64 levels still read as YAML. */
START_TEST(test_read_too_deep)
{
	static const struct {
		const char *head, *open, *tail;
		const char *want;
	} forms[] = {
		{ "kernel: csrmm\nstage2: ", "[", "",
		  "2:72: error: sequences and mappings nested too deeply (more than "
		  "64 levels)\n" },
		{ "kernel: csrmm\nstage2: ", "{a: ", "",
		  "2:261: error: sequences and mappings nested too deeply (more "
		  "than 64 levels)\n" },
		{ "kernel: csrmm\nstage2:\n  ", "- ", "x",
		  "3:129: error: sequences and mappings nested too deeply (more "
		  "than 64 levels)\n" },
	};
	for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
		size_t n = 200000, h = strlen(forms[f].head);
		size_t o = strlen(forms[f].open), t = strlen(forms[f].tail);
		char *text = malloc(h + n * o + t + 1);
		ck_assert_ptr_nonnull(text);
		memcpy(text, forms[f].head, h);
		for (size_t i = 0; i < n; i++)
			memcpy(text + h + i * o, forms[f].open, o);
		strcpy(text + h + n * o, forms[f].tail);
		stir_ctx *ctx = stir_ctx_alloc();
		ck_assert_ptr_null(read_str(ctx, text));
		char *got = test_diags_to_str(ctx);
		ck_assert_str_eq(got, forms[f].want);
		free(got);
		stir_ctx_free(ctx);
		free(text);
	}
	/* 64 levels (the file's mapping and 63 sequences) are YAML the
	 * reader walks: the error is the schedule's */
	char text[64 + 2 * 63];
	int len = sprintf(text, "kernel: csrmm\nstage2: ");
	for (int i = 0; i < 63; i++)
		text[len++] = '[';
	for (int i = 0; i < 63; i++)
		text[len++] = ']';
	text[len] = 0;
	stir_ctx *ctx = stir_ctx_alloc();
	ck_assert_ptr_null(read_str(ctx, text));
	char *got = test_diags_to_str(ctx);
	ck_assert_ptr_null(strstr(got, "nested too deeply"));
	ck_assert_ptr_nonnull(strstr(got, "not a list"));
	free(got);
	stir_ctx_free(ctx);
}
END_TEST

/* Every primitive, each section, every rule kind: the reader takes it. */
START_TEST(test_read_all)
{
	static const char text[] =
		"# every primitive\n"
		"kernel: k\n"
		"format:\n"
		"  - decompose:\n"
		"      tensor: A\n"
		"      rules:\n"
		"        - ell: {width: 4}\n"
		"        - bsr: {block: 2, suffix: _b2}\n"
		"        - padding: {p: 4}\n"
		"        - hybrid: {column_parts: 2, buckets: [1, 8]}\n"
		"        - hybrid: {column_parts: 1, buckets: [2], cover_rows: true, "
		"suffix: _hc}\n"
		"        - hybrid: {column_parts: 3, buckets: [2], cover_rows: false, "
		"suffix: _hf}\n"
		"        - hybrid: {column_parts: 2, buckets: [2], locality_order: "
		"true, suffix: _hl}\n"
		"        - ell3d: {width: 2}\n"
		"        - dbsr: {block: 4}\n"
		"        - sr_bcrs: {t: 8, g: 2}\n"
		"        - custom:\n"
		"            suffix: _c\n"
		"            axes:\n"
		"              - {name: IB, kind: dense_fixed, len: mb}\n"
		"              - {name: JB, kind: sparse_variable, parent: IB, "
		"len: nb, nnz: nnzb}\n"
		"              - {name: BI, kind: dense_fixed, len: 2}\n"
		"              - {name: BJ, kind: dense_variable, parent: JB, "
		"len: ^1, nnz: 0, sorted: false}\n"
		"              - {keep: ^2}\n"
		"            map:\n"
		"              - {axis: 0, from: [IB, BI], coefs: [2, 1]}\n"
		"              - {axis: 1, from: [JB, BJ], coefs: [2, -1]}\n"
		"stage1:\n"
		"  - sparse_reorder: {iter: it, order: [j, i]}\n"
		"  - sparse_fuse: {iter: it, iters: [i, j]}\n"
		"  - specialize: {param: n, value: 3}\n"
		"stage2:\n"
		"  - split: {block: 'b*', loop: i, factors: [2, null, 4]}\n"
		"  - fuse: {block: b, loops: [i, j]}\n"
		"  - reorder: {block: b, loops: [j, i]}\n"
		"  - bind: {block: b, loop: i, to: blockIdx.y}\n"
		"  - unroll: {block: b, loop: i}\n"
		"  - vectorize: {block: b, loop: i}\n"
		"  - set_atomic: {block: b}\n"
		"  - cross_thread_reduce: {block: b, loop: i}\n"
		"  - rfactor: {block: b, loop: i}\n"
		"  - decompose_reduction: {block: b, loop: i}\n"
		"  - compute_at: {block: b, target: c, loop: i}\n"
		"  - reverse_compute_at: {block: b, target: c, loop: i}\n"
		"stage3:\n"
		"  - cache_read: {block: b, buffer: X, loop: i, scope: shared}\n"
		"  - cache_read: {block: b, buffer: X, loop: i, scope: warp}\n"
		"  - cache_write: {block: b, buffer: X, loop: i, scope: local}\n"
		"  - cache_write_over_init: {block: b, buffer: X, loop: i, "
		"scope: local}\n"
		"  - reverse_cache_read: {block: b, buffer: X, loop: i, "
		"scope: shared}\n"
		"  - reverse_cache_write: {block: b, buffer: X, loop: i, "
		"scope: local}\n"
		"  - horizontal_fuse: {blocks: [a, 'b?']}\n"
		"  - horizontal_fuse: {blocks: [a], disjoint: [C, D]}\n"
		"  - default_schedule\n"
		"  - default_schedule: {}\n";
	stir_ctx *ctx = stir_ctx_alloc();
	stir_schedule *s = read_str(ctx, text);
	if (!s)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_ctx_n_diagnostics(ctx), 0);
	ck_assert_str_eq(stir_schedule_get_kernel_name(s), "k");
	ck_assert_int_eq(stir_schedule_get_last_stage(s), STIR_STAGE_3);
	stir_schedule_free(s);

	s = read_str(ctx, "kernel: k\nstage1: [{sparse_fuse: {iter: a, iters: "
		"[i, j]}}]\nstage2:\nstage3: ~\n");
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_schedule_get_last_stage(s), STIR_STAGE_1);
	stir_schedule_free(s);
	s = read_str(ctx, "kernel: k\nstage2:\n  - set_atomic: {block: b}\n");
	ck_assert_int_eq(stir_schedule_get_last_stage(s), STIR_STAGE_2);
	stir_schedule_free(s);

	/* a missing file */
	ck_assert_ptr_null(stir_schedule_read_from_file(ctx, "/nonexistent/s.yaml"));
	ck_assert_int_eq(stir_ctx_n_errors(ctx), 1);
	ck_assert_ptr_nonnull(strstr(stir_diag_get_message(
		stir_ctx_get_diagnostic(ctx, 0)), "cannot open"));
	stir_ctx_free(ctx);
}
END_TEST

/* ---- applying ---------------------------------------------------------- */

/* A schedule that reads but fails on a program: the program (a file, or
 * text when it starts with "kernel"), what is done, the diagnostics. */
typedef struct bad_apply {
	const char *program;
	const char *yaml;
	int up_to;                /* stir_schedule_apply's stage; 0: the GPU */
	const char *diags;
} bad_apply;

static const bad_apply bad_applies[] = {
	/* a pattern that matches nothing, at the pattern */
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage2:\n  - unroll: {block: \"csrmm9*\", loop: j}\n",
	  2, "3:21: error: unroll: no block of kernel 'csrmm' matches "
	  "'csrmm9*'\n" },
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage1:\n  - sparse_reorder: {iter: nope, order: "
	  "[i, j, k]}\n",
	  1, "3:28: error: sparse_reorder: no iteration of kernel 'csrmm' "
	  "matches 'nope'\n" },
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage2:\n  - horizontal_fuse: {blocks: [csrmm1, "
	  "zz]}\n",
	  2, "3:40: error: horizontal_fuse: no block of kernel 'csrmm' matches "
	  "'zz'\n" },
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage2:\n  - compute_at: {block: csrmm_init0, "
	  "target: \"csrmm*\", loop: i}\n",
	  2, "3:46: error: compute_at: 'target' must name one block, but "
	  "'csrmm*' matches 3 ('csrmm_init0', 'csrmm0', ...)\n" },
	/* a name the kernel does not have, at the name */
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage2:\n  - split: {block: csrmm1, loop: q, "
	  "factors: [null, 4]}\n",
	  2, "3:34: error: split: block 'csrmm1' has no enclosing loop 'q'\n" },
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage2:\n  - reorder: {block: csrmm1, loops: [k, "
	  "i, jj]}\n",
	  2, "3:44: error: reorder: block 'csrmm1' has no enclosing loop 'jj'\n" },
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage2:\n  - compute_at: {block: csrmm_init0, "
	  "target: csrmm1, loop: z}\n",
	  2, "3:60: error: compute_at: block 'csrmm1' has no enclosing loop "
	  "'z'\n" },
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage1:\n  - sparse_reorder: {iter: csrmm, order: "
	  "[i, q, k]}\n",
	  1, "3:46: error: sparse_reorder: 'q' is not an iterator of iteration "
	  "'csrmm'\n" },
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage2:\n  - horizontal_fuse: {blocks: [csrmm1], "
	  "disjoint: [C, E]}\n",
	  2, "3:55: error: horizontal_fuse: kernel 'csrmm' has no buffer 'E'\n" },
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nformat:\n  - decompose: {tensor: J_indptr, rules: "
	  "[{ell: {width: 3}}]}\n",
	  1, "3:25: error: decompose: kernel 'csrmm' has no tensor 'J_indptr'\n" },
	/* a primitive that refuses: its diagnostic, at the first statement of
	 * the block the step names (the lowered loop has no location), a note
	 * at the step */
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage2:\n  - vectorize: {block: csrmm1, loop: k}\n",
	  2, "12:5: error: vectorize: loop 'k' has extent feat, not the literal 2 "
	  "or 4\n3:5: note: while applying vectorize to block 'csrmm1'\n" },
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nformat:\n  - decompose: {tensor: B, rules: [{ell: "
	  "{width: 2}}]}\n",
	  1, "10:3: error: decompose_format: iteration 'csrmm' does not "
	  "iterate the axes of 'B' in order, as plain axes\n"
	  "3:5: note: while applying decompose to tensor 'B'\n" },
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage1:\n  - specialize: {param: q, value: 4}\n",
	  1, "3:25: error: specialize: kernel 'csrmm' has no size parameter "
	  "'q'\n" },
	/* a cache of C whose element the split's tail guard decides */
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage1:\n  - specialize: {param: feat, value: 10}\n"
	  "stage2:\n  - split: {block: csrmm1, loop: k, factors: [null, 4]}\n"
	  "  - cache_write: {block: csrmm1, buffer: C, loop: k_0, scope: "
	  "local}\n",
	  2, "12:5: error: cache_write: the accesses of 'C' in block 'csrmm1' are "
	  "under a condition that changes while loop 'k_0' runs\n6:5: note: "
	  "while applying cache_write to block 'csrmm1'\n" },
	/* a value the parameter's type cannot hold: at the value */
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage1:\n  - specialize: {param: feat, value: "
	  "2147483648}\n",
	  1, "3:38: error: specialize: 2147483648 does not fit size 'feat', "
	  "which the program declares i32\n" },
	{ "examples/csrmm.stir",
	  "kernel: csrmm\nstage3:\n  - unroll: {block: csrmm1, loop: k}\n"
	  "  - cache_write: {block: csrmm1, buffer: C, loop: j, scope: "
	  "local}\n",
	  3, "4:42: error: cache_write: kernel 'csrmm' has no buffer 'C'\n" },
	/* the wrong kernel; steps for a stage the kernel is past */
	{ "examples/sddmm.stir",
	  "kernel: csrmm\nstage2:\n  - unroll: {block: b, loop: i}\n",
	  2, "1:9: error: this schedule is for kernel 'csrmm', not for kernel "
	  "'sddmm'\n" },
	{ "tests/golden/csrmm.stage2.stir",
	  "kernel: csrmm\nstage1:\n  - sparse_fuse: {iter: csrmm, iters: [i, "
	  "j]}\n",
	  0, "3:5: error: the steps of stage1 apply to a stage 1 kernel, but "
	  "kernel 'csrmm' is at stage 2\n" },
	{ "tests/golden/csrmm.stage3.stir",
	  "kernel: csrmm\nstage3:\n  - unroll: {block: csrmm1, loop: j}\n",
	  2, "1:8: error: kernel 'csrmm' is at stage 3; a schedule cannot bring "
	  "it back to stage 2\n" },
};

/* program: load the program "program". */
static loaded load_program(const char *program)
{
	return strncmp(program, "kernel", 6) ? sched_load(program, NULL) :
		sched_load(NULL, program);
}

START_TEST(test_apply_errors)
{
	const bad_apply *b = &bad_applies[_i];
	/* the schedule in a context of its own: the kernel's context gets
	 * its text too, so that its diagnostics show the schedule's lines */
	stir_ctx *sctx = stir_ctx_alloc();
	stir_schedule *s = read_str(sctx, b->yaml);
	ck_assert_ptr_nonnull(s);
	loaded l = load_program(b->program);
	int rc = b->up_to ? stir_schedule_apply(s, l.k, (stir_stage)b->up_to) :
		stir_schedule_prepare_for_gpu(s, l.k);
	ck_assert_int_eq(rc, -1);
	char *got = test_diags_to_str(l.ctx);
	ck_assert_str_eq(got, b->diags);
	ck_assert_int_eq(stir_ctx_n_diagnostics(sctx), 0);
	/* what was applied before the failure (the lowering too) stays,
	 * and the kernel is still valid */
	stir_ctx_clear_diagnostics(l.ctx);
	ck_assert_int_eq(stir_kernel_verify(l.k), 0);
	free(got);
	sched_unload(&l);
	stir_schedule_free(s);
	stir_ctx_free(sctx);
}
END_TEST

/* The kernel a schedule names must be in the program; sizes it
 * specializes must agree with the bindings; custom rules and tensors
 * that are not CSR cannot be built on the host. */
START_TEST(test_kernel_and_bindings)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	stir_schedule *s = read_str(l.ctx, "kernel: spmm\n");
	ck_assert_ptr_null(stir_schedule_find_kernel(s, l.m));
	char *got = test_diags_to_str(l.ctx);
	ck_assert_str_eq(got, "1:9: error: the program has no kernel 'spmm'\n");
	free(got);
	stir_schedule_free(s);
	stir_ctx_clear_diagnostics(l.ctx);

	s = read_str(l.ctx, "kernel: csrmm\nstage1:\n  - specialize: {param: "
		"feat, value: 16}\n");
	ck_assert_ptr_eq(stir_schedule_find_kernel(s, l.m), l.k);
	stir_bindings *b = stir_bindings_alloc();
	ck_assert_int_eq(stir_schedule_bind_sizes(s, b), 0);
	int64_t v;
	ck_assert(stir_bindings_get_size(b, "feat", &v));
	ck_assert_int_eq(v, 16);
	ck_assert_int_eq(stir_schedule_bind_sizes(s, b), 0);
	stir_bindings_set_size(b, "feat", 8);
	ck_assert_int_eq(stir_schedule_bind_sizes(s, b), -1);
	got = test_diags_to_str(l.ctx);
	ck_assert_str_eq(got, "3:38: error: size 'feat' is bound to 8, but the "
		"schedule specializes the kernel for 16\n");
	free(got);
	/* nothing to build without decompose steps */
	ck_assert_int_eq(stir_schedule_bind_formats(s, l.k, b), 0);
	stir_schedule_free(s);
	stir_bindings_free(b);
	stir_ctx_clear_diagnostics(l.ctx);

	/* read in one context, applied in another: the kernel's context
	 * shows the schedule's line */
	stir_ctx *sctx = stir_ctx_alloc();
	s = read_str(sctx, "kernel: csrmm\nstage2:\n  - unroll: {block: zz, "
		"loop: i}\n");
	ck_assert_int_eq(stir_schedule_apply(s, l.k, STIR_STAGE_2), -1);
	got = stir_ctx_diagnostics_to_str(l.ctx);
	ck_assert_str_eq(got, "s.yaml:3:21: error: unroll: no block of kernel "
		"'csrmm' matches 'zz'\n   - unroll: {block: zz, loop: i}\n"
		"                     ^\n");
	free(got);
	stir_schedule_free(s);
	stir_ctx_free(sctx);
	stir_ctx_clear_diagnostics(l.ctx);

	static const struct {
		const char *program, *yaml, *sizes, *diags;
	} cases[] = {
		{ "examples/csrmm.stir",
		  "kernel: csrmm\nformat:\n  - decompose:\n      tensor: A\n"
		  "      rules:\n        - custom:\n            suffix: _x\n"
		  "            axes: [{keep: ^0}, {name: J, kind: sparse_fixed, "
		  "parent: ^0, len: ^1, nnz: 4}]\n"
		  "            map: [{axis: 1, from: [J]}]\n", NULL,
		  "6:11: error: cannot build the format of a custom rule on the "
		  "host\n" },
		{ "examples/csrmm.stir",
		  "kernel: csrmm\nformat:\n  - decompose: {tensor: A, rules: [{ell: "
		  "{width: 2}}]}\n", "m=5,n=8",
		  "3:37: error: ELL: row 0 has 8 entries, more than the width 2\n"
		  "3:37: note: while building the ell format of tensor 'A' on the "
		  "host\n" },
		{ "examples/bsrmm.stir",
		  "kernel: bsrmm\nformat:\n  - decompose: {tensor: A, rules: [{ell: "
		  "{width: 2}}]}\n", NULL,
		  "3:37: error: cannot build ell of tensor 'A' on the host: its "
		  "axes must be [dense_fixed, sparse_variable under it] (CSR)\n" },
		{ "examples/csrmm.stir",
		  "kernel: csrmm\nformat:\n  - decompose: {tensor: A, rules: [{ell: "
		  "{width: 12}}, {bsr: {block: 4}}]}\n", "m=5,n=12",
		  "3:57: error: cannot build the formats of several rules on the "
		  "host: each would hold every entry of 'A', which the kernel would "
		  "then count once per rule\n" },
		{ "examples/csrmm.stir",
		  "kernel: csrmm\nformat:\n  - decompose: {tensor: Q, rules: [{ell: "
		  "{width: 2}}]}\n", NULL,
		  "3:25: error: cannot build the formats of 'Q' on the host: kernel "
		  "'csrmm' has no tensor 'Q'\n" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		loaded p = sched_load(cases[i].program, NULL);
		s = read_str(p.ctx, cases[i].yaml);
		ck_assert_ptr_nonnull(s);
		b = stir_bindings_alloc();
		/* (the random structure has full rows: n entries) */
		if (cases[i].sizes)
			test_bind_sizes(b, cases[i].sizes);
		ck_assert_int_eq(stir_kernel_bind_random(p.k, b, 1), 0);
		ck_assert_int_eq(stir_schedule_bind_formats(s, p.k, b), -1);
		got = test_diags_to_str(p.ctx);
		ck_assert_str_eq(got, cases[i].diags);
		free(got);
		stir_bindings_free(b);
		stir_schedule_free(s);
		sched_unload(&p);
	}
	sched_unload(&l);
}
END_TEST

/* ---- the written schedules --------------------------------------------- */

/* The schedules of examples/ and the tolerance of their results. */
static const struct {
	const char *yaml;
	double tol;
} examples[] = {
	{ "examples/bsrmm.yaml", 1e-4 },
	{ "examples/csf_square_sum.yaml", 1e-5 },
	{ "examples/csr2bsr.yaml", 0 },
	{ "examples/csr_softmax.yaml", 1e-5 },
	{ "examples/csrmm.yaml", 1e-5 },
	{ "examples/csrmm_hyb.yaml", 1e-5 },
	{ "examples/ellmv.yaml", 1e-5 },
	{ "examples/rgcn_homo.yaml", 1e-5 },
	{ "examples/rgms.yaml", 1e-5 },
	{ "examples/sddmm.yaml", 1e-5 },
	{ "examples/sddmm_fast.yaml", 1e-5 },
	{ "examples/segment_sum.yaml", 1e-5 },
};

/* ctx, yaml: the schedule file examples/NAME.yaml. */
static stir_schedule *read_example(stir_ctx *ctx, const char *yaml)
{
	stir_schedule *s = stir_schedule_read_from_file(ctx, test_path(yaml));
	if (!s)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(s);
	return s;
}

/* s: its program, examples/KERNEL.stir. */
static const char *program_of(const stir_schedule *s)
{
	static char path[256];
	snprintf(path, sizeof(path), "examples/%s.stir",
		stir_schedule_get_kernel_name(s));
	return path;
}

/* s, in, plain, stage, tol, what: the program scheduled by s up to
 * "stage" computes on inputs "in" (bound to the unscheduled kernel of
 * "plain") what plain computes. */
static void expect_keeps(const stir_schedule *s, loaded *plain,
	const stir_bindings *in, int stage, double tol, const char *what)
{
	stir_bindings *want = sched_run(plain, in);
	loaded l = sched_load(program_of(s), NULL);
	int rc = stir_schedule_apply(s, l.k, (stir_stage)stage);
	if (rc)
		sched_dump(&l);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(stir_kernel_get_stage(l.k), stage);
	ck_assert_int_eq(stir_kernel_verify(l.k), 0);
	stir_bindings *b = stir_bindings_copy(in);
	rc = stir_schedule_bind_formats(s, plain->k, b);
	if (rc)
		sched_dump(plain);
	ck_assert_int_eq(rc, 0);
	stir_bindings *got = sched_run(&l, b);
	sched_expect_same(want, got, tol, what);
	stir_bindings_free(got);
	stir_bindings_free(b);
	stir_bindings_free(want);
	sched_unload(&l);
}

START_TEST(test_examples_random)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_schedule *s = read_example(ctx, examples[_i].yaml);
	loaded plain = sched_load(program_of(s), NULL);
	for (int seed = 1; seed <= 3; seed++) {
		stir_bindings *in = stir_bindings_alloc();
		ck_assert_int_eq(stir_schedule_bind_sizes(s, in), 0);
		ck_assert_int_eq(stir_kernel_bind_random(plain.k, in,
			(uint64_t)seed * 7919), 0);
		for (int stage = 2; stage <= 3; stage++) {
			char what[300];
			snprintf(what, sizeof(what), "%s stage %d seed %d",
				examples[_i].yaml, stage, seed);
			expect_keeps(s, &plain, in, stage, examples[_i].tol, what);
		}
		stir_bindings_free(in);
	}
	sched_unload(&plain);
	stir_schedule_free(s);
	stir_ctx_free(ctx);
}
END_TEST

/* A sum cached over a split reduction loop whose tail guard skips terms
 * but not elements (split-K): each row's columns in pieces of 4, C's
 * element summed in a register over them, stored once. */
START_TEST(test_cache_over_split_tail)
{
	stir_ctx *ctx = stir_ctx_alloc();
	stir_schedule *s = read_str(ctx, "kernel: csrmm\nstage2:\n"
		"  - reorder: {block: csrmm1, loops: [k, j]}\n"
		"  - split: {block: csrmm1, loop: j, factors: [null, 4]}\n"
		"  - cache_write: {block: csrmm1, buffer: C, loop: j_0, scope: "
		"local}\n");
	ck_assert_ptr_nonnull(s);
	loaded plain = sched_load("examples/csrmm.stir", NULL);
	for (int seed = 1; seed <= 3; seed++) {
		stir_bindings *in = stir_bindings_alloc();
		ck_assert_int_eq(stir_kernel_bind_random(plain.k, in,
			(uint64_t)seed), 0);
		for (int stage = 2; stage <= 3; stage++)
			expect_keeps(s, &plain, in, stage, 1e-5, "split tail");
		stir_bindings_free(in);
	}
	sched_unload(&plain);
	stir_schedule_free(s);
	stir_ctx_free(ctx);
}
END_TEST

/* The SpMM and SDDMM schedules on the Cora citation graph (2708 rows,
 * 10556 non-zeros; rows of up to 168 entries, which the hybrid format
 * cuts into rows of the widest bucket). */
START_TEST(test_examples_cora)
{
	static const struct {
		const char *yaml, *tensor;
	} cases[] = {
		{ "examples/csrmm.yaml", "A" },
		{ "examples/csrmm_hyb.yaml", "A" },
		{ "examples/sddmm.yaml", "S" },
		{ "examples/sddmm_fast.yaml", "S" },
	};
	stir_ctx *ctx = stir_ctx_alloc();
	stir_csr *cora = stir_mtx_read_from_file(ctx, test_path("examples/data/cora.mtx.gz"));
	ck_assert_ptr_nonnull(cora);
	stir_schedule *s = read_example(ctx, cases[_i].yaml);
	loaded plain = sched_load(program_of(s), NULL);
	stir_bindings *in = stir_bindings_alloc();
	ck_assert_int_eq(stir_kernel_bind_csr(plain.k, in, cases[_i].tensor,
		cora), 0);
	ck_assert_int_eq(stir_schedule_bind_sizes(s, in), 0);
	int64_t feat;
	if (!stir_bindings_get_size(in, "feat", &feat))
		stir_bindings_set_size(in, "feat", 32);
	ck_assert_int_eq(stir_kernel_bind_random(plain.k, in, 5), 0);
	for (int stage = 2; stage <= 3; stage++) {
		char what[300];
		snprintf(what, sizeof(what), "%s on cora, stage %d",
			cases[_i].yaml, stage);
		expect_keeps(s, &plain, in, stage, 1e-5, what);
	}
	stir_bindings_free(in);
	sched_unload(&plain);
	stir_schedule_free(s);
	stir_csr_free(cora);
	stir_ctx_free(ctx);
}
END_TEST

/* Glob patterns: csrmm_hyb's steps reach every part, and its
 * horizontal_fuse puts all seven in one top-level block after the init
 * nest of the split rows' part; the steps it writes for that part alone
 * reach that part alone; the other parts took over their init nests
 * (cache_write_over_init) and store their rows of C once. */
START_TEST(test_patterns)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	stir_schedule *s = read_example(l.ctx, "examples/csrmm_hyb.yaml");
	ck_assert_int_eq(stir_schedule_apply(s, l.k, STIR_STAGE_3), 0);
	ck_assert_int_eq(l.k->body.n, 2);
	const stir_stmt *h = stir_stmt_at(&l.k->body, 1);
	ck_assert(h->kind == STIR_STMT_BLOCK &&
		(h->u.block.flags & STIR_BLOCK_HORIZONTAL));
	char *text = stir_kernel_to_str(l.k);
	int atomic = 0, parts = 0, inits = 0, stores = 0;
	for (const char *p = text; (p = strstr(p, "block csrmm_hyb_0_")); p++) {
		const char *eol = strchr(p, '\n');
		const char *i = strstr(p, "_init");
		if (i && i < eol) {
			inits++;
			continue;
		}
		parts++;
		const char *a = strstr(p, ") atomic ");
		atomic += a && a < eol;
	}
	for (const char *p = text; (p = strstr(p, "] = C_data_local")); p++)
		stores++;
	ck_assert_int_eq(parts, 7);
	ck_assert_int_eq(atomic, 1);
	ck_assert_int_eq(inits, 1);
	ck_assert_ptr_nonnull(strstr(text, "block csrmm_hyb_0_6_init0"));
	ck_assert_int_eq(stores, 6);
	const char *split = strstr(text, "block csrmm_hyb_0_60");
	ck_assert_ptr_nonnull(split);
	ck_assert(strstr(split, ") atomic") < strchr(split, '\n'));
	free(text);
	stir_schedule_free(s);
	sched_unload(&l);
}
END_TEST

/* sddmm_fast.yaml fuses the iterators of an SDDMM written over [I, J, K]:
 * the result is the kernel it makes of the catalogue's fused one. */
START_TEST(test_sparse_fuse)
{
	static const char unfused[] =
		"kernel sddmm(m: i32, n: i32, feat: i32, nnz: i32) {\n"
		"  axis I = dense_fixed(m);\n"
		"  axis J = sparse_variable(I, n, nnz);\n"
		"  axis Jd = dense_fixed(n);\n"
		"  axis K = dense_fixed(feat);\n"
		"  tensor X: f32[I, K];\n"
		"  tensor Y: f32[Jd, K];\n"
		"  tensor S: f32[I, J];\n"
		"  iter sddmm (i, j, k) in [I, J, K] \"SSR\" {\n"
		"    init { S[i, j] = 0.0; }\n"
		"    S[i, j] += X[i, k] * Y[j, k];\n"
		"  }\n"
		"}\n";
	loaded a = sched_load(NULL, unfused);
	loaded b = sched_load("examples/sddmm.stir", NULL);
	stir_schedule *s = read_example(a.ctx, "examples/sddmm_fast.yaml");
	ck_assert_int_eq(stir_schedule_apply(s, a.k, STIR_STAGE_3), 0);
	ck_assert_int_eq(stir_schedule_apply(s, b.k, STIR_STAGE_3), 0);
	char *ta = stir_kernel_to_str(a.k), *tb = stir_kernel_to_str(b.k);
	ck_assert_str_eq(ta, tb);
	/* the features are a literal now; the loads go through registers */
	ck_assert_ptr_null(strstr(ta, "feat"));
	ck_assert_ptr_nonnull(strstr(ta, "for ax0 in [0, 4) vectorize {"));
	free(ta);
	free(tb);
	stir_schedule_free(s);
	sched_unload(&a);
	sched_unload(&b);
}
END_TEST

/* ---- format rules ------------------------------------------------------- */

/* Each rule kind through a decompose step and the host builders: the
 * decomposed kernel, run on what stir_schedule_bind_formats builds,
 * computes what the original computes. */
static const struct {
	const char *program;
	const char *rules;        /* the YAML of the rules */
	const char *sizes;        /* "NAME=V,..." bound first */
} rule_cases[] = {
	{ "examples/csrmm.stir", "[{ell: {width: 12}}]", "m=7,n=12,feat=3" },
	{ "examples/csrmm.stir", "[{bsr: {block: 3}}]", "m=7,n=12,feat=3" },
	{ "examples/csrmm.stir", "[{padding: {p: 3}}]", "m=7,n=12,feat=3" },
	{ "examples/csrmm.stir", "[{dbsr: {block: 2}}]", "m=7,n=12,feat=3" },
	{ "examples/csrmm.stir", "[{sr_bcrs: {t: 2, g: 2}}]", "m=7,n=12,feat=3" },
	{ "examples/csrmm.stir", "[{sr_bcrs: {t: 2, g: 2, chunk: 2}}]",
	  "m=9,n=12,feat=3" },
	{ "examples/csrmm.stir", "[{sr_bcrs: {t: 2, g: 1, chunk: 1, cover_rows: "
	  "true}}]", "m=7,n=5,feat=2" },
	{ "examples/csrmm.stir", "[{sr_bcrs: {t: 2, g: 1, chunk: 1, cover_rows: "
	  "true, row_order: fewest_slots}}]", "m=7,n=5,feat=2" },
	{ "examples/csrmm.stir", "[{sr_bcrs: {t: 2, g: 2, chunk: 1, row_order: "
	  "degree}}]", "m=9,n=12,feat=3" },
	{ "examples/csrmm.stir", "[{hybrid: {column_parts: 1, buckets: [1, 2, "
	  "4]}}]", "m=7,n=12,feat=3" },
	{ "examples/csrmm.stir", "[{hybrid: {column_parts: 2, buckets: [1, 3], "
	  "suffix: _h}}]", "m=9,n=12,feat=2" },
	{ "examples/csrmm.stir", "[{hybrid: {column_parts: 3, buckets: [2]}}]",
	  "m=9,n=12,feat=2" },
	{ "examples/csrmm.stir", "[{hybrid: {column_parts: 1, buckets: [1, 2, "
	  "4], cover_rows: true}}]", "m=7,n=12,feat=3" },
	{ "examples/csrmm.stir", "[{hybrid: {column_parts: 1, buckets: [4], "
	  "cover_rows: true, suffix: _h}}]", "m=9,n=6,feat=2" },
	{ "examples/csrmm.stir", "[{hybrid: {column_parts: 1, buckets: [1, 2], "
	  "cover_rows: true, locality_order: true}}]", "m=9,n=6,feat=2" },
	{ "examples/csrmm.stir", "[{hybrid: {column_parts: 2, buckets: [1, 3], "
	  "locality_order: true}}]", "m=9,n=12,feat=2" },
	{ "examples/rgms.stir", "[{ell3d: {width: 6, suffix: _e3}}]",
	  "n=6,fin=2,fout=2" },
};

START_TEST(test_rules)
{
	char yaml[512], name[64];
	loaded plain = sched_load(rule_cases[_i].program, NULL);
	snprintf(yaml, sizeof(yaml), "kernel: %s\nformat:\n  - decompose: "
		"{tensor: A, rules: %s}\n", stir_kernel_get_name(plain.k),
		rule_cases[_i].rules);
	snprintf(name, sizeof(name), "%.50s", rule_cases[_i].rules);
	stir_schedule *s = read_str(plain.ctx, yaml);
	if (!s)
		sched_dump(&plain);
	ck_assert_ptr_nonnull(s);
	for (int seed = 1; seed <= 6; seed++) {
		stir_bindings *in = stir_bindings_alloc();
		test_bind_sizes(in, rule_cases[_i].sizes);
		ck_assert_int_eq(stir_kernel_bind_random(plain.k, in,
			(uint64_t)seed), 0);
		stir_bindings *want = sched_run(&plain, in);
		loaded l = sched_load(rule_cases[_i].program, NULL);
		for (int stage = 1; stage <= 3; stage++) {
			if (stage > 1)
				sched_lower(&l, stage);
			else
				ck_assert_int_eq(stir_schedule_apply(s, l.k,
					STIR_STAGE_1), 0);
			stir_bindings *b = stir_bindings_copy(in);
			int rc = stir_schedule_bind_formats(s, plain.k, b);
			if (rc)
				sched_dump(&plain);
			ck_assert_int_eq(rc, 0);
			stir_bindings *got = sched_run(&l, b);
			char what[200];
			snprintf(what, sizeof(what), "%s seed %d stage %d", name, seed,
				stage);
			sched_expect_same(want, got, 1e-5, what);
			stir_bindings_free(got);
			stir_bindings_free(b);
		}
		sched_unload(&l);
		stir_bindings_free(want);
		stir_bindings_free(in);
	}
	stir_schedule_free(s);
	sched_unload(&plain);
}
END_TEST

/* A hybrid rule that covers the rows: its split rows' part 0_K first,
 * then the buckets' parts, each iteration with its own init and no init
 * iteration of its own; the host builder binds 0_K, empty or not. */
START_TEST(test_cover_rows)
{
	loaded l = sched_load("examples/csrmm.stir", NULL);
	stir_schedule *s = read_str(l.ctx, "kernel: csrmm\nformat:\n  - "
		"decompose: {tensor: A, rules: [{hybrid: {column_parts: 1, buckets: "
		"[1, 2, 4], cover_rows: true}}]}\n");
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_schedule_apply(s, l.k, STIR_STAGE_1), 0);
	char *text = stir_kernel_to_str(l.k);
	ck_assert_ptr_null(strstr(text, "csrmm_init"));
	const char *prev = text;
	for (int i = 0; i < 4; i++) {
		char head[64];
		snprintf(head, sizeof(head), "  iter csrmm_hyb_0_%d (", (i + 3) % 4);
		const char *it = strstr(text, head);
		ck_assert_msg(it != NULL && it >= prev, "%s out of order", head);
		ck_assert_ptr_nonnull(strstr(it, "{\n    init {\n      C[r, k] = "
			"0.0;\n    }\n"));
		prev = it;
	}
	free(text);
	/* rows of 1 and 2 entries only: 0_3 bound without rows */
	loaded plain = sched_load("examples/csrmm.stir", NULL);
	stir_bindings *b = stir_bindings_alloc();
	stir_bindings_set_size(b, "feat", 2);
	stir_csr csr = { 3, 4, 3, (int64_t []){ 0, 2, 2, 3 },
		(int64_t []){ 0, 3, 1 }, (double []){ 1, 2, 3 } };
	ck_assert_int_eq(stir_kernel_bind_csr(plain.k, b, "A", &csr), 0);
	int rc = stir_schedule_bind_formats(s, plain.k, b);
	if (rc)
		sched_dump(&plain);
	ck_assert_int_eq(rc, 0);
	int64_t rows;
	ck_assert(stir_bindings_get_size(b, "rows_hyb_0_3", &rows));
	ck_assert_int_eq(rows, 0);
	ck_assert(stir_bindings_get_size(b, "rows_hyb_0_0", &rows));
	ck_assert_int_eq(rows, 2);
	const stir_array *r0 = stir_bindings_get_array(b, "R_hyb_0_0.indices");
	ck_assert_ptr_nonnull(r0);
	ck_assert_int_eq(stir_array_get_int(r0, 0), 1);
	ck_assert_int_eq(stir_array_get_int(r0, 1), 2);
	stir_bindings_free(b);
	sched_unload(&plain);
	stir_schedule_free(s);
	sched_unload(&l);
}
END_TEST

/* A custom rule spelling out a shipped one makes the same kernel. */
START_TEST(test_custom_rules)
{
	static const struct {
		const char *shipped, *custom;
	} cases[] = {
		{ "{ell: {width: 5, suffix: _c}}",
		  "{custom: {suffix: _c, axes: [{keep: ^0}, {name: J, kind: "
		  "sparse_fixed, parent: ^0, len: ^1, nnz: 5, sorted: false}], "
		  "map: [{axis: 1, from: [J]}]}}" },
		{ "{bsr: {block: 3, suffix: _c}}",
		  "{custom: {suffix: _c, axes: [{name: IB, kind: dense_fixed, "
		  "len: mb}, {name: JB, kind: sparse_variable, parent: IB, len: nb, "
		  "nnz: nnzb}, {name: BI, kind: dense_fixed, len: 3}, {name: BJ, "
		  "kind: dense_fixed, len: 3}], map: [{axis: 0, from: [IB, BI], "
		  "coefs: [3, 1]}, {axis: 1, from: [JB, BJ], coefs: [3, 1]}]}}" },
	};
	char *text[2];
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		for (int i = 0; i < 2; i++) {
			char yaml[1024];
			snprintf(yaml, sizeof(yaml), "kernel: csrmm\nformat:\n  - "
				"decompose: {tensor: A, rules: [%s]}\n", i ?
				cases[c].custom : cases[c].shipped);
			loaded l = sched_load("examples/csrmm.stir", NULL);
			stir_schedule *s = read_str(l.ctx, yaml);
			if (!s)
				sched_dump(&l);
			ck_assert_ptr_nonnull(s);
			ck_assert_int_eq(stir_schedule_apply(s, l.k, STIR_STAGE_3), 0);
			text[i] = stir_module_to_str(l.m);
			stir_schedule_free(s);
			sched_unload(&l);
		}
		ck_assert_str_eq(text[1], text[0]);
		free(text[0]);
		free(text[1]);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("schedule_file");
	TCase *tr = tcase_create("read");
	tcase_add_loop_test(tr, test_read_errors, 0,
		(int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tr, test_read_all);
	tcase_add_test(tr, test_read_too_deep);
	suite_add_tcase(s, tr);
	TCase *ta = tcase_create("apply");
	tcase_add_loop_test(ta, test_apply_errors, 0,
		(int)(sizeof(bad_applies) / sizeof(bad_applies[0])));
	tcase_add_test(ta, test_kernel_and_bindings);
	tcase_add_test(ta, test_patterns);
	tcase_add_test(ta, test_sparse_fuse);
	tcase_add_test(ta, test_cache_over_split_tail);
	suite_add_tcase(s, ta);
	TCase *te = tcase_create("examples");
	tcase_set_timeout(te, 120);
	tcase_add_loop_test(te, test_examples_random, 0,
		(int)(sizeof(examples) / sizeof(examples[0])));
	tcase_add_loop_test(te, test_examples_cora, 0, 4);
	suite_add_tcase(s, te);
	TCase *tf = tcase_create("rules");
	tcase_set_timeout(tf, 60);
	tcase_add_loop_test(tf, test_rules, 0,
		(int)(sizeof(rule_cases) / sizeof(rule_cases[0])));
	tcase_add_test(tf, test_cover_rows);
	tcase_add_test(tf, test_custom_rules);
	suite_add_tcase(s, tf);
	return test_run_suite(s);
}
