#!/bin/sh
# Every program and schedule file of examples/ and bench/, and every script
# of bench/, examples/python/ and tools/, is named in Makefile.am, so that
# it goes into the distribution: make distcheck builds and tests from the
# tarball, and a file left out fails only there, at the end of CI.
set -u
srcdir=${STIR_SRCDIR:-.}
cd "$srcdir" || exit 1
fail=0
for f in examples/*.stir examples/*.yaml bench/*.stir bench/*.yaml \
	bench/*.py examples/python/*.py tools/*; do
	[ -f "$f" ] || continue
	if ! grep -qF "$f" Makefile.am; then
		echo "FAIL: $f is not named in Makefile.am (EXTRA_DIST)"
		fail=1
	fi
done
[ "$fail" -eq 0 ] && echo "PASS: every example, schedule and script is in the distribution"
exit "$fail"
