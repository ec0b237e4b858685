#!/bin/sh
# The documentation names the tree as it is: every path of the source tree
# that README.md, docs/*.md and bench/README.md write in backquotes
# (`passes/hoist.c`, `examples/csrmm_hyb.yaml`; not placeholders such as
# NAME, nor patterns) exists, and every source file of the library, the
# tools, the Python package, the C examples and the benchmarks is named
# there (docs/map.md is the file-by-file map); and every cross-reference
# to a section of a document names one it has.
set -u
srcdir=${STIR_SRCDIR:-.}
cd "$srcdir" || exit 1
fail=0
docs="README.md docs/*.md bench/README.md"
sources="ir/* lang/* formats/* verify/* passes/* runtime/* schedule/* \
	schedule/recipes/* codegen/* tools/* include/stir/* python/stir/*.py \
	examples/*.c bench/*.c bench/*.h bench/*.py bench/*.sh"

# every `PATH` under a folder of the tree exists (or PATH.c: a program)
# shellcheck disable=SC2086
grep -ohE '`[^`]+`' $docs | tr -d '`' | tr ' ,;()' '\n\n\n\n\n' |
	grep -E '^(ir|lang|formats|verify|passes|runtime|schedule|codegen|tools|python|tests|examples|bench|include|docs)/[A-Za-z0-9_./-]*$' |
	grep -vE 'NAME|WHAT|\.\.\.|/$' | sed 's/[.:]$//' | sort -u > "${TMPDIR:-/tmp}/doc_paths.$$"
while IFS= read -r path; do
	# a program of the build tree (tests/test_cuda) is named by its source
	if [ ! -e "$path" ] && [ ! -e "$path.c" ]; then
		echo "FAIL: the docs name $path, which does not exist"
		fail=1
	fi
done < "${TMPDIR:-/tmp}/doc_paths.$$"
rm -f "${TMPDIR:-/tmp}/doc_paths.$$"

# every cross-reference (docs/cuda.md, "Barriers") of the docs and the
# sources names a heading or a bold title (**Barriers.**) of that document
# shellcheck disable=SC2086
grep -sohE '(README|docs/[a-z]+\.md|bench/README\.md)[,:]? *\(?"[^"]+"' \
	$docs $sources | sort -u |
while IFS= read -r ref; do
	file=${ref%%[,: (\"]*}
	[ "$file" = README ] && file=README.md
	title=${ref#*\"}
	title=${title%\"}
	if ! awk -v t="$title" '{ gsub(/`/, "") }
	    index($0, "**" t) || (/^#/ && index($0, t)) { found = 1 }
	    END { exit !found }' "$file"; then
		echo "FAIL: $ref: no heading or bold title \"$title\" in $file"
		echo x > "${TMPDIR:-/tmp}/doc_refs_failed.$$"
	fi
done
if [ -e "${TMPDIR:-/tmp}/doc_refs_failed.$$" ]; then
	rm -f "${TMPDIR:-/tmp}/doc_refs_failed.$$"
	fail=1
fi

# every source file is named somewhere in the docs
# shellcheck disable=SC2086
all=$(cat $docs)
# shellcheck disable=SC2086
for f in $sources; do
	[ -f "$f" ] || continue
	case "$f" in *.o|*.lo|*.la|*~) continue ;; esac
	# the scanner and parser Flex and Bison generate (in a tarball)
	[ -f "${f%.[ch]}.l" ] || [ -f "${f%.[ch]}.y" ] && continue
	name=${f##*/}
	case "$all" in
	*"$name"*) ;;
	*) echo "FAIL: $f is named nowhere in $docs (docs/map.md lists every file)"
	   fail=1 ;;
	esac
done
exit $fail
