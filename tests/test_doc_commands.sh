#!/bin/sh
# The stirc commands the documentation shows run as shown: every `stirc`
# or `build/tools/stirc` command line of a ```sh block of README.md,
# docs/*.md and bench/README.md (continued lines joined, "# ..." comments
# dropped, "a; b" split) runs from a folder that looks like the top of the
# tree and exits 0, so that the docs cannot go stale silently.  Skipped:
# the commands that need a GPU (--backend cuda, or `stirc tune` without
# --model-only or --list), listed as such; `stirc cuda --compile` counts as
# skipped when stir was built without NVRTC.
set -u
srcdir=${STIR_SRCDIR:-.}
build=${STIR_BUILDDIR:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# the top of the tree, with build/tools/stirc; "stirc" is that one too
mkdir -p "$tmp/top/build/tools" "$tmp/bin" "$tmp/cache"
ln -s "$srcdir/examples" "$tmp/top/examples"
ln -s "$srcdir/bench" "$tmp/top/bench"
ln -s "$(cd "$build" && pwd)/tools/stirc" "$tmp/top/build/tools/stirc"
ln -s "$(cd "$build" && pwd)/tools/stirc" "$tmp/bin/stirc"
PATH="$tmp/bin:$PATH"
STIR_CACHE_DIR="$tmp/cache"   # the kernel cache and the tuning record
export PATH STIR_CACHE_DIR

# doc_commands FILE: its ```sh blocks' stirc commands, one a line,
# as "FILE:LINE: COMMAND"
doc_commands() {
	awk -v file="$1" '
	/^```/ { inb = !inb && $0 ~ /^```sh/; cmd = ""; next }
	!inb { next }
	{
		line = $0
		sub(/[ \t]+#.*$/, "", line); sub(/^[ \t]*#.*$/, "", line)
		if (cmd == "") start = NR
		cont = line ~ /\\$/
		if (cont) sub(/\\$/, "", line)
		cmd = cmd " " line
		if (cont) next
		n = split(cmd, part, ";")
		for (i = 1; i <= n; i++) {
			c = part[i]; gsub(/[ \t]+/, " ", c)
			sub(/^ /, "", c); sub(/ $/, "", c)
			if (c ~ /^(build\/tools\/)?stirc( |$)/)
				print file ":" start ": " c
		}
		cmd = ""
	}' "$srcdir/$1"
}

# needs_gpu COMMAND: whether COMMAND needs a GPU
needs_gpu() {
	case " $1 " in
	*" --backend cuda "*) return 0 ;;
	*" tune "*" --model-only "*|*" tune "*" --list "*) return 1 ;;
	*" tune "*) return 0 ;;
	esac
	return 1
}

ran=0
for doc in README.md docs/cuda.md docs/formats.md docs/fuzzing.md docs/ir.md \
    docs/language.md docs/python.md docs/recipes.md docs/schedules.md \
    bench/README.md; do
	doc_commands "$doc"
done > "$tmp/commands"
while IFS= read -r entry; do
	where=${entry%%: *}
	cmd=${entry#*: }
	if needs_gpu "$cmd"; then
		echo "needs a GPU, not run: $where: $cmd"
		continue
	fi
	(cd "$tmp/top" && eval "$cmd") > "$tmp/out" 2> "$tmp/err" < /dev/null
	rc=$?
	if [ $rc != 0 ] && grep -q "built without NVRTC" "$tmp/err"; then
		echo "needs NVRTC, skipped: $where: $cmd"
	elif [ $rc != 0 ]; then
		echo "FAIL: $where: exit $rc: $cmd"
		head -20 "$tmp/err"
		fail=1
	else
		ran=$((ran + 1))
	fi
done < "$tmp/commands"
# README.md alone shows a dozen commands that need no GPU: finding fewer
# means the extraction broke
if [ $ran -lt 12 ]; then
	echo "FAIL: only $ran documented commands ran"
	fail=1
fi
echo "$ran documented stirc commands ran"
exit $fail
