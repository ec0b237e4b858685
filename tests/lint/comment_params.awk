# Lint: a function comment that opens with the names of parameters,
#   /* k, n, src: ... */
# (the house style: every function, static ones included, preceded by a
# comment naming its parameters) must name only parameters the function
# has.  For every comment at the start of a line directly followed by
# function definitions or declarations (a header may put several under
# one comment), each name before the colon must appear in the parameter
# list of one of them (as a parameter's name: a type does not count);
# otherwise it prints
#   FILE:LINE: FUNC: comment names "X", which is not a parameter
# (LINE is the comment's first line) and exits 1.  Not checked, since
# they are not parameter lists: a single capitalised word ("Note:",
# "Buffers:", a heading), and comments above a macro call at top level
# (START_TEST(name), DEFINE_SETTER(..)), whose names are all capitals.
# Usage: awk -f comment_params.awk FILE...  (any POSIX awk: mawk, nawk,
# gawk; no regular expression repeats a group, which some awks mis-match).
# forget the comment and the signatures read since it
function reset() {
	state = 0; names = ""; ngroup = 0; sig = ""; plists = ""; fnames = ""
}
# whether identifier w is one of the space-separated words of s
function ident_in(w, s) {
	return match(" " s " ", "[^A-Za-z0-9_]" w "[^A-Za-z0-9_]") > 0
}
# sig holds a complete signature: record its name and parameter text
function take_sig(   s, pre, i, c, depth, plist, name) {
	s = sig
	i = index(s, "(")
	pre = substr(s, 1, i - 1)
	if (pre ~ /(^|[^A-Za-z0-9_])(typedef)[^A-Za-z0-9_]/ || pre ~ /=/) return 0
	if (!match(pre, /[A-Za-z_][A-Za-z0-9_]*[ \t]*$/)) return 0
	name = substr(pre, RSTART, RLENGTH); sub(/[ \t]+$/, "", name)
	if (name ~ /^[A-Z][A-Z0-9_]*$/) return 0
	depth = 1; plist = ""
	for (i = i + 1; i <= length(s) && depth > 0; i++) {
		c = substr(s, i, 1)
		if (c == "(") depth++
		else if (c == ")") depth--
		if (depth > 0) plist = plist c
	}
	plists = plists " " param_names(plist)
	fnames = fnames (fnames == "" ? "" : ", ") name
	ngroup++
	return 1
}
# the names of the parameters declared in "plist" (the text between the
# parentheses), separated by spaces: of each declaration at depth 0, the
# name in "(*name)" for a function pointer, else its last identifier
# (arrays' bounds dropped); "void" and "..." declare none
function param_names(plist,   i, c, depth, cur, out) {
	depth = 0; cur = ""; out = ""
	for (i = 1; i <= length(plist); i++) {
		c = substr(plist, i, 1)
		if (c == "(" || c == "[") depth++
		else if (c == ")" || c == "]") depth--
		if (c == "," && depth == 0) { out = out " " decl_name(cur); cur = "" }
		else cur = cur c
	}
	return out " " decl_name(cur)
}
# the name one parameter declaration "d" declares, or ""
function decl_name(d,   n) {
	if (match(d, /\([ \t]*\*[ \t]*[A-Za-z_][A-Za-z0-9_]*/)) {
		n = substr(d, RSTART, RLENGTH)
		sub(/^\([ \t]*\*[ \t]*/, "", n)
		return n
	}
	sub(/=.*/, "", d)   # a C++ default argument (tests/emu)
	gsub(/\[[^]]*\]/, "", d)
	sub(/[^A-Za-z0-9_]+$/, "", d)
	if (!match(d, /[A-Za-z_][A-Za-z0-9_]*$/)) return ""
	n = substr(d, RSTART, RLENGTH)
	return n == "void" ? "" : n
}
# report each name of the comment that no signature read since has as a
# parameter, then forget both
function check(   n, a, i, w) {
	if (names ~ /^[A-Z][a-z]+$/ && !ident_in(names, plists)) names = ""
	if (names != "" && ngroup > 0) {
		n = split(names, a, ",")
		for (i = 1; i <= n; i++) {
			w = a[i]
			if (!ident_in(w, plists)) {
				printf "%s:%d: %s: comment names \"%s\", which is not a parameter\n", FILENAME, cline, fnames, w
				bad++
			}
		}
	}
	reset()
}
# the names before the colon of a comment opening "/* a, b, c: ...", or ""
# (plain string work: some awks mis-handle a repeated group in a regex)
function lead_names(line,   s, i, n, a, k) {
	s = line
	sub(/^\/\*[ \t]*/, "", s)
	i = index(s, ":")
	if (i == 0) return ""
	s = substr(s, 1, i - 1)
	if (s !~ /^[A-Za-z_][A-Za-z0-9_, \t]*$/) return ""
	n = split(s, a, ",")
	for (k = 1; k <= n; k++) {
		gsub(/^[ \t]+|[ \t]+$/, "", a[k])
		if (a[k] !~ /^[A-Za-z_][A-Za-z0-9_]*$/) return ""
	}
	gsub(/[ \t]+/, "", s)
	return s
}
# whether s holds a parenthesis and as many ( as )
function balanced(s,   o, c) {
	o = gsub(/\(/, "(", s); c = gsub(/\)/, ")", s)
	return o > 0 && o == c
}
# The states: 0 nothing pending; 1 a comment just ended; 2 inside a
# signature (parentheses still open); 3 a return type read on its own
# line; 4 one or more signatures read under the comment (a definition's
# "{" or the end of a group of declarations triggers the check).
FNR == 1 { if (state == 4) check(); reset(); incomment = 0 }
{
	line = $0
	if (incomment) {
		if (line ~ /\*\//) { incomment = 0; state = 1 }
		next
	}
	if (state == 2) {              # inside a signature
		sig = sig " " line
		if (balanced(sig)) {
			if (!take_sig()) { reset(); next }
			if (sig ~ /\{[ \t]*$/) { check(); next }
			state = 4; sig = ""
		}
		next
	}
	if (line ~ /^\/\*/) {
		if (state == 4) check()
		reset()
		cline = FNR
		names = lead_names(line)
		if (line ~ /\*\//) state = 1; else incomment = 1
		next
	}
	if (state == 4 && line ~ /^\{/) { check(); next }
	if ((state == 1 || state == 3 || state == 4) && line ~ /^[A-Za-z_]/) {
		if (state == 1 || state == 3) sig = sig " " line; else sig = line
		if (line ~ /\(/) {
			state = 2
			if (balanced(sig)) {
				if (!take_sig()) { reset(); next }
				if (sig ~ /\{[ \t]*$/) { check(); next }
				state = 4; sig = ""
			}
		} else if (line ~ /;/ || line ~ /[{}=]/) {
			if (state == 4) check(); else reset()
		} else state = 3       # a return type on its own line
		next
	}
	if (state == 4) check(); else reset()
}
END { if (state == 4) check(); exit bad > 0 }
