#!/bin/sh
# The Python package (python/stir, docs/python.md) on the host: runs
# tests/test_python.py with the first Python 3 that has NumPy and SciPy
# ($PYTHON, then python3, then /usr/bin/python3), on the build's shared
# libstir.  Skipped (77) with a message when there is no such Python, the
# build has no shared library (--disable-shared), or the library is built
# with AddressSanitizer (--enable-sanitizers: Python would have to preload
# its runtime; the C tests cover that build).
set -u
srcdir=${STIR_SRCDIR:-.}
builddir=${STIR_BUILDDIR:-build}
lib="$builddir/.libs/libstir.so"
if [ ! -f "$lib" ]; then
	echo "SKIP: no shared library $lib (configured with --disable-shared)"
	exit 77
fi
if ldd "$lib" 2>/dev/null | grep -q libasan; then
	echo "SKIP: $lib is built with AddressSanitizer, which Python cannot" \
		"load without preloading its runtime (the normal build runs this test)"
	exit 77
fi
py=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$p" -c 'import numpy, scipy.sparse, scipy.io' 2>/dev/null; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	echo "SKIP: no Python 3 with NumPy and SciPy (install python3-numpy" \
		"and python3-scipy, or set PYTHON)"
	exit 77
fi
STIR_LIBRARY=$lib PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}" \
	exec "$py" "$srcdir/tests/test_python.py" "$srcdir"
