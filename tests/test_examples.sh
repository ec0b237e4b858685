#!/bin/sh
# The C examples run and agree with their references: the demo's reference
# check, the pass-composition example of the README, the GNN kernels and
# the two-layer RGCN.
set -u
srcdir=${STIR_SRCDIR:-.}
build=${STIR_BUILDDIR:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$build/examples/compose_passes" "$srcdir/examples/csrmm.stir" \
	"$srcdir/examples/data/cora.mtx.gz" > "$tmp/out" || fail=1
grep -q "max |diff| from stage I = 0: ok" "$tmp/out" || { tail -3 "$tmp/out"; fail=1; }
grep -q "stage 2 {" "$tmp/out" || { echo "FAIL: no stage II printed"; fail=1; }
"$build/tools/stirc" run "$srcdir/examples/csrmm.stir" --mtx A="$srcdir/examples/data/citeseer.mtx.gz" \
	--size feat=8 --random 2 --out B="$tmp/B.npy" --out C="$tmp/C.npy" > /dev/null || fail=1
"$build/examples/csrmm_reference" "$srcdir/examples/data/citeseer.mtx.gz" "$tmp/B.npy" "$tmp/C.npy" || fail=1
# the GNN kernels through the C API, stage III on the host (no GPU here)
for args in "$srcdir/tests/data/graphs/small.mtx 12" "$srcdir/examples/data/cora.mtx.gz 8"; do
	STIR_SRCDIR=$srcdir STIR_LIBCUDA=/nonexistent "$build/examples/gnn_kernels" $args > "$tmp/gnn" || {
		cat "$tmp/gnn"; fail=1; }
	[ "$(grep -c ': ok$' "$tmp/gnn")" = 3 ] || { echo "FAIL: gnn_kernels $args"; cat "$tmp/gnn"; fail=1; }
done
# two RGCN layers through the C API, stage III on the host; bad sizes refused
STIR_SRCDIR=$srcdir STIR_LIBCUDA=/nonexistent "$build/examples/rgcn" \
	"$srcdir/tests/data/graphs/small.hetero" 6 5 3 > "$tmp/rgcn" || { cat "$tmp/rgcn"; fail=1; }
[ "$(grep -c ': ok$' "$tmp/rgcn")" = 2 ] || { echo "FAIL: rgcn"; cat "$tmp/rgcn"; fail=1; }
grep -q "nodes per predicted class" "$tmp/rgcn" || { echo "FAIL: rgcn classes"; fail=1; }
# BSR SpMM on tensor cores through the C API, stage III on the host: the
# default schedule and split-K; features the schedule does not take refused
for args in "12 10" "6 6 128 $srcdir/tests/tensorize/bsrmm_tc_splitk.yaml"; do
	STIR_SRCDIR=$srcdir STIR_LIBCUDA=/nonexistent "$build/examples/bsrmm_tc" \
		$args > "$tmp/bsr" 2>&1 || { cat "$tmp/bsr"; fail=1; }
	grep -q ': ok$' "$tmp/bsr" || { echo "FAIL: bsrmm_tc $args"; cat "$tmp/bsr"; fail=1; }
done
STIR_SRCDIR=$srcdir STIR_LIBCUDA=/nonexistent "$build/examples/bsrmm_tc" 4 4 128 \
	> "$tmp/bsr" 2>&1 && { echo "FAIL: bsrmm_tc took 128 features"; fail=1; }
grep -q "specializes the features to 64, not 128" "$tmp/bsr" || { cat "$tmp/bsr"; fail=1; }
STIR_SRCDIR=$srcdir "$build/examples/rgcn" "$srcdir/tests/data/graphs/small.hetero" 0 \
	> /dev/null 2>&1 && { echo "FAIL: rgcn took size 0"; fail=1; }
# stir_tune from C (examples/tune.c): the model's pick without a GPU, run
# and checked; a second call is a record hit
for p in csrmm:16 sddmm:16 sddmm_rows:8; do
	STIR_CACHE_DIR="$tmp/cache" STIR_LIBCUDA=/nonexistent "$build/examples/tune" \
		"$srcdir/examples/${p%:*}.stir" "$srcdir/examples/data/cora.mtx.gz" \
		"${p#*:}" > "$tmp/tune" 2>&1 || { cat "$tmp/tune"; fail=1; }
	grep -q "from the cost model" "$tmp/tune" &&
		grep -q "stage III on the host.*: ok$" "$tmp/tune" ||
		{ echo "FAIL: tune $p"; cat "$tmp/tune"; fail=1; }
done
STIR_CACHE_DIR="$tmp/cache" STIR_LIBCUDA=/nonexistent "$build/examples/tune" \
	"$srcdir/examples/csrmm.stir" "$srcdir/examples/data/cora.mtx.gz" 16 \
	> "$tmp/tune" 2>&1 || fail=1
grep -q "from the tuning record" "$tmp/tune" || { echo "FAIL: tune record"; cat "$tmp/tune"; fail=1; }
exit $fail
