#!/bin/sh
# Golden files: the printed stage II and III of every catalogue program
# (tests/golden/NAME.stageN.stir) must match what stirc prints now, and
# each golden file must read back and print to identical text.
# `make golden` regenerates them; review the diff before committing.
set -u
srcdir=${STIR_SRCDIR:-.}
stirc=${STIR_BUILDDIR:-.}/tools/stirc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for src in "$srcdir"/examples/*.stir; do
	name=$(basename "$src" .stir)
	for stage in 2 3; do
		golden="$srcdir/tests/golden/$name.stage$stage.stir"
		if ! "$stirc" print "$src" --stage $stage > "$tmp/out" 2> "$tmp/err"; then
			echo "FAIL: stirc print $name --stage $stage"; cat "$tmp/err"; fail=1
			continue
		fi
		if ! cmp -s "$tmp/out" "$golden"; then
			echo "FAIL: $name stage $stage differs from $golden:"
			diff -u "$golden" "$tmp/out" | head -40
			fail=1
		fi
		if ! "$stirc" print "$golden" > "$tmp/again" 2> "$tmp/err" ||
		   ! cmp -s "$tmp/again" "$golden"; then
			echo "FAIL: $golden does not read back to identical text"
			cat "$tmp/err"; fail=1
		fi
	done
done
[ $fail = 0 ] && echo "golden files: all match"
exit $fail
