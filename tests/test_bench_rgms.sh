#!/bin/sh
# bench/bench_rgms.py's schedules (the example's and every generated
# variant at fin = fout = 16) run on the interpreter and match stage I on a
# small relational graph; the benchmark's option errors exit non-zero.
set -u
srcdir=${srcdir:-.}
stirc=${STIRC:-tools/stirc}
command -v python3 > /dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
python3 "$srcdir/bench/bench_rgms.py" --schedules-only "$tmp/s" --features 16 \
	--schedule "$srcdir/examples/rgms_agg.yaml" || { echo "FAIL: --schedules-only"; exit 1; }
n=0
for s in "$tmp"/s/*.yaml; do
	n=$((n + 1))
	if ! "$stirc" run "$srcdir/examples/rgms_agg.stir" --schedule "$s" \
	    --hetero A="$srcdir/tests/data/graphs/small.hetero" --size fin=16 \
	    --size fout=16 --random 3 --check > "$tmp/out" 2>&1; then
		echo "FAIL: $s"; cat "$tmp/out"; fail=1
	fi
done
[ "$n" -ge 4 ] || { echo "FAIL: only $n schedules"; fail=1; }
for bad in "--features x" "--features 0" "--bogus"; do
	if python3 "$srcdir/bench/bench_rgms.py" $bad > "$tmp/out" 2>&1; then
		echo "FAIL: bench_rgms.py $bad exited 0"; fail=1
	fi
done
exit $fail
