#!/bin/sh
# The library's folders depend on each other one way (docs/ir.md, "Where
# things live"): a file includes the internal headers ("DIR/NAME.h") of
# its own folder and of the folders below it only.  RULES below is the
# rule, one line per folder: the folder, then the folders it may include
# from.  The public headers (<stir/...>) are the API and are not checked;
# tools/, bench/, tests/ and python/ sit above everything.
#
# First the check must refuse a sample tree that breaks the rule (ir/
# including codegen/, verify/ including passes/) and name both lines;
# then it must find nothing in the tree.
set -u
srcdir=${STIR_SRCDIR:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

RULES='ir
formats ir
lang ir formats
verify ir
passes ir formats verify
runtime ir
schedule ir formats passes runtime
codegen ir formats lang passes runtime verify'

# check ROOT: print "FILE:LINE: includes DIR/... (FOLDER may include
# ...)" for every include of ROOT's folders that RULES does not allow, and
# an unknown folder of the rule; exit 1 when there is any.
check() {
	root=$1
	bad=0
	echo "$RULES" > "$tmp/rules"
	while read -r folder allowed; do
		[ -d "$root/$folder" ] || { echo "no folder $folder"; bad=1; continue; }
		find "$root/$folder" -type f \( -name '*.c' -o -name '*.h' \) |
			LC_ALL=C sort > "$tmp/files"
		while read -r f; do
			grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]*/' \
				"$f" > "$tmp/inc" || continue
			while IFS= read -r line; do
				n=${line%%:*}
				dir=$(echo "$line" | sed 's/^[^"]*"\([a-z_]*\)\/.*/\1/')
				ok=0
				for a in "$folder" $allowed; do
					[ "$dir" = "$a" ] && ok=1
				done
				if [ $ok -eq 0 ]; then
					echo "${f#$root/}:$n: includes $dir/... ($folder may" \
						"include ${allowed:-nothing} only)"
					bad=1
				fi
			done < "$tmp/inc"
		done < "$tmp/files"
	done < "$tmp/rules"
	return $bad
}

# the sample: one forbidden include in ir/ and one in verify/, and
# allowed ones around them
s="$tmp/sample"
for d in ir formats lang passes runtime schedule verify codegen; do
	mkdir -p "$s/$d"
	echo "#include \"$d/own.h\"" > "$s/$d/own.c"
done
printf '#include "ir/nodes.h"\n#include "codegen/cuda_internal.h"\n' \
	> "$s/ir/bad.c"
printf '#include "ir/nodes.h"\n  #include "passes/passes.h"\n' \
	> "$s/verify/bad.h"
printf '#include "verify/gpu.h"\n#include "lang/ast.h"\n' \
	> "$s/codegen/good.c"
check "$s" > "$tmp/sample.out"
rc=$?
cat > "$tmp/sample.want" <<'EOF'
ir/bad.c:2: includes codegen/... (ir may include nothing only)
verify/bad.h:2: includes passes/... (verify may include ir only)
EOF
if [ $rc -ne 1 ] || ! cmp -s "$tmp/sample.want" "$tmp/sample.out"; then
	echo "FAIL: the check on the sample tree (exit $rc) gives:"
	diff -u "$tmp/sample.want" "$tmp/sample.out"
	fail=1
fi

if ! check "$srcdir" > "$tmp/tree.out"; then
	echo "FAIL: includes against the folder rule (tests/test_folder_deps.sh):"
	cat "$tmp/tree.out"
	fail=1
fi
exit $fail
