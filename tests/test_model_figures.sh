#!/bin/sh
# The SpMM and SDDMM cost models meet issue 18's targets on every stored
# exhaustive search of bench/results, H100 and H200
# (bench/model_figures.sh --check: the model's first pick within 10% of
# the best on the geometric mean, the tuner's SpMM search replayed within
# 3% in 90% of the cases), and the SDDMM model's Python copy, which its
# weights are fitted with, picks as the C model does
# (bench/model_fit_sddmm.py --eval).  Skipped
# without python3, the shared library, the shared graphs beside the
# checkout (../shared/data) or bench/results (not distributed), and with a
# library built with AddressSanitizer.
set -u
srcdir=${srcdir:-.}
lib=${LIB:-.libs/libstir.so}
data=$srcdir/../shared/data
command -v python3 > /dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }
[ -f "$lib" ] || { echo "no $lib (a static build): skipped"; exit 77; }
# Python loads the library with ctypes, which a library built with
# AddressSanitizer refuses unless the runtime is preloaded
if ldd "$lib" 2>/dev/null | grep -q libasan; then
	echo "$lib is built with AddressSanitizer, which Python cannot load:" \
		"skipped"
	exit 77
fi
[ -f "$data/cora.mtx.gz" ] || { echo "no $data: skipped"; exit 77; }
[ -f "$srcdir/bench/results/spmm_shared.json" ] ||
	{ echo "no bench/results: skipped"; exit 77; }
r=$srcdir/bench/results
python3 "$srcdir/bench/model_fit_sddmm.py" --eval --lib "$lib" --data "$data" \
	"$r/sddmm_shared_h100.json" "$r/tune_full_sddmm_search20_h100.json" \
	"$r/sddmm_shared.json" || exit 1
SRC=$srcdir LIB=$lib DATA=$data sh "$srcdir/bench/model_figures.sh" --check
