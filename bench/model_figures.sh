#!/bin/sh
# The tuner's cost models against every stored exhaustive search of
# bench/results, one set of files per card (docs/recipes.md, "The cost
# model" and "The SDDMM cost model"): the SpMM model's first pick over the
# best (geometric mean) and the tuner's timed search replayed on the
# files' times (bench/model_eval.py), then the SDDMM model's first pick
# (bench/model_eval_sddmm.py).  Host only.  --check exits 1 when the
# figures miss issue 18's targets (the pick within 10% of the best on the
# geometric mean, SpMM and SDDMM; the SpMM search within 3% in 90% of the
# cases); --logo also refits the weights without each graph in turn
# (bench/model_fit.py, minutes, and bench/model_fit_sddmm.py) for the
# held-out figures.  Run from the source root, or set SRC; LIB (default
# build/.libs/libstir.so) and DATA (default ../shared/data) name the
# library and the graphs.
#
#     bench/model_figures.sh [--check] [--logo]
set -u
src=${SRC:-.}
lib=${LIB:-build/.libs/libstir.so}
data=${DATA:-$src/../shared/data}
r=$src/bench/results
check=
sddmm_check=
logo=
for arg in "$@"; do
	case $arg in
	--check) check="--max-model 1.10 --min-search 0.90"
		sddmm_check="--max-model 1.10" ;;
	--logo) logo=1 ;;
	*) echo "usage: $0 [--check] [--logo]" >&2; exit 2 ;;
	esac
done
h100="$r/tune_full_spmm_search20_h100.json $(ls "$r"/tune6_spmm_h100/exhaustive-*.json \
	"$r"/tune7_h100/exhaustive-*.json "$r"/tune8_h100/exhaustive-*.json \
	"$r"/tune9_h100/exhaustive-*.json)"
h200="$r/spmm_shared.json $(ls "$r"/tune_h200_0245/exhaustive-*.json)"
fail=0
echo "== SpMM, H100"
# shellcheck disable=SC2086
python3 "$src/bench/model_eval.py" --lib "$lib" --data "$data" $check $h100 || fail=1
echo "== SpMM, H200"
# shellcheck disable=SC2086
python3 "$src/bench/model_eval.py" --lib "$lib" --data "$data" $check $h200 || fail=1
if [ -n "$logo" ]; then
	echo "== SpMM, weights refitted without each graph (held out)"
	# shellcheck disable=SC2086
	python3 "$src/bench/model_fit.py" --lib "$lib" --data "$data" --logo \
		$h100 $h200 || fail=1
fi
sddmm="$r/sddmm_shared_h100.json $r/tune_full_sddmm_search20_h100.json \
	$r/sddmm_shared.json"
for f in $sddmm; do
	echo "== SDDMM, $(basename "$f")"
	# shellcheck disable=SC2086
	python3 "$src/bench/model_eval_sddmm.py" --lib "$lib" --data "$data" \
		$sddmm_check "$f" 2> /dev/null || fail=1
done
if [ -n "$logo" ]; then
	echo "== SDDMM, weights refitted without each graph (held out)"
	# shellcheck disable=SC2086
	python3 "$src/bench/model_fit_sddmm.py" --lib "$lib" --data "$data" \
		--logo $sddmm || fail=1
fi
exit $fail
