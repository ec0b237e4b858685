#!/bin/sh
# bench/bench_rgms.py's schedules at fin = fout = 16 (every candidate of the
# library's RGMS recipes, written by `stirc recipe`: rgms_tc_pP on tensor
# cores and rgms_kK on CUDA cores, both of rgms_agg.stir, and rgms_edge_kK
# of rgms_edge.stir; and the user's --schedule) and examples/rgms_coo.yaml
# and examples/rgms_runs.yaml run on the interpreter and match stage I on
# a small relational graph; the benchmark's option errors exit non-zero.
set -u
srcdir=${srcdir:-.}
stirc=${STIRC:-tools/stirc}
command -v python3 > /dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
python3 "$srcdir/bench/bench_rgms.py" --schedules-only "$tmp/s" --features 16 \
	--schedule "$srcdir/examples/rgms_agg.yaml" --stirc "$stirc" || { echo "FAIL: --schedules-only"; exit 1; }
n=0
for s in "$tmp"/s/*.yaml; do
	n=$((n + 1))
	prog=rgms_agg
	case $(basename "$s") in rgms_edge_*) prog=rgms_edge ;; esac
	if ! "$stirc" run "$srcdir/examples/$prog.stir" --schedule "$s" \
	    --hetero A="$srcdir/tests/data/graphs/small.hetero" --size fin=16 \
	    --size fout=16 --random 3 --check > "$tmp/out" 2>&1; then
		echo "FAIL: $s"; cat "$tmp/out"; fail=1
	fi
done
# 6 on tensor cores, 2 aggregated and 3 edge by edge on CUDA cores, and
# the --schedule file
for f in rgms_tc_p32 rgms_tc_p64 rgms_tc_p128 rgms_tc_p256 rgms_tc_p512 \
    rgms_tc_p1024 rgms_k4 rgms_k8 rgms_edge_k1 rgms_edge_k4 rgms_edge_k8 rgms_agg; do
	[ -f "$tmp/s/${f}_f16.yaml" ] || { echo "FAIL: no ${f}_f16.yaml"; fail=1; }
done
[ "$n" -eq 12 ] || { echo "FAIL: $n schedules, not 12"; ls "$tmp/s"; fail=1; }
# --no-tc and --candidates keep what they say; 12 features fit no recipe
python3 "$srcdir/bench/bench_rgms.py" --schedules-only "$tmp/c" --features 12,32 \
	--stirc "$stirc" --no-tc --candidates 'rgms_edge_*,rgms_tc_*' > /dev/null 2>&1
[ "$(ls "$tmp/c" | tr '\n' ' ')" = "rgms_edge_k1_f32.yaml rgms_edge_k4_f32.yaml rgms_edge_k8_f32.yaml " ] ||
	{ echo "FAIL: --no-tc --candidates wrote:"; ls "$tmp/c"; fail=1; }
# examples/rgms_coo.yaml and rgms_runs.yaml (specialized to 32 features)
# on the small graph
for ex in rgms_coo rgms_runs; do
	if ! "$stirc" run "$srcdir/examples/rgms_edge.stir" --schedule \
	    "$srcdir/examples/$ex.yaml" --hetero \
	    A="$srcdir/tests/data/graphs/small.hetero" --random 2 --check \
	    > "$tmp/out" 2>&1; then
		echo "FAIL: $ex.yaml"; cat "$tmp/out"; fail=1
	fi
done
# cache_write_runs refused, located in the schedule file: a shared cache
# (the lanes' regions differ), the step in stage2 (it is a stage III one)
sed 's/loop: rrij_2, scope: local}/loop: rrij_2, scope: shared}/' \
	"$srcdir/examples/rgms_runs.yaml" > "$tmp/bad1.yaml"
awk '/^stage3:/ { next } !/cache_read|vectorize|unroll/' \
	"$srcdir/examples/rgms_runs.yaml" > "$tmp/bad2.yaml"
for b in "bad1.yaml:[0-9]*:5: note: while applying cache_write_runs to block 'rgms0'" \
    "bad2.yaml:[0-9]*:5: error: cache_write_runs cannot appear in stage2: it belongs in stage3"; do
	f=${b%%:*}
	if "$stirc" print "$srcdir/examples/rgms_edge.stir" --schedule "$tmp/$f" \
	    > "$tmp/out" 2>&1 || ! grep -q "$b" "$tmp/out"; then
		echo "FAIL: $f not refused as '$b'"; cat "$tmp/out"; fail=1
	fi
done
# the two example schedules on the shared AIFB and MUTAG graphs, where the
# checkout has them beside it (../shared/data), else on the first 4000
# edges of AIFB
data=$srcdir/../shared/data
if [ -f "$data/aifb.hetero.gz" ] && [ -f "$data/mutag.hetero.gz" ]; then
	graphs="$data/aifb.hetero.gz $data/mutag.hetero.gz"
else
	graphs=$srcdir/tests/data/formats/aifb-head.hetero.gz
fi
for g in $graphs; do
	for prog in rgms_agg rgms_edge; do
		if ! "$stirc" run "$srcdir/examples/$prog.stir" --hetero A="$g" \
		    --size fin=16 --size fout=16 --random 1 \
		    --schedule "$srcdir/examples/$prog.yaml" --check > "$tmp/out" 2>&1; then
			echo "FAIL: $prog.yaml on $g"; cat "$tmp/out"; fail=1
		fi
	done
done
# at 128 features: rgms_tc_p512 makes the kernel of
# tests/tensorize/rgms_tc_tsh_f128_p512.yaml (the text bench_rgms.py wrote
# for it before it called the library), and each rgms_tc_pP is in P pieces
python3 "$srcdir/bench/bench_rgms.py" --schedules-only "$tmp/s128" --features 128 \
	--stirc "$stirc" --candidates 'rgms_tc_*' > /dev/null 2>&1
"$stirc" cuda "$srcdir/examples/rgms_agg.stir" --schedule \
	"$srcdir/tests/tensorize/rgms_tc_tsh_f128_p512.yaml" > "$tmp/want.cu" 2>&1
"$stirc" cuda "$srcdir/examples/rgms_agg.stir" --schedule \
	"$tmp/s128/rgms_tc_p512_f128.yaml" > "$tmp/got.cu" 2>&1
if ! grep -q "__global__" "$tmp/want.cu" || ! cmp -s "$tmp/want.cu" "$tmp/got.cu"; then
	echo "FAIL: rgms_tc_p512_f128 is not tests/tensorize/rgms_tc_tsh_f128_p512.yaml's kernel"
	fail=1
fi
for p in 32 64 128 256 512 1024; do
	grep -q "factors: \[$p, null\]" "$tmp/s128/rgms_tc_p${p}_f128.yaml" ||
		{ echo "FAIL: rgms_tc_p${p}_f128 is not in $p pieces"; fail=1; }
done
if python3 "$srcdir/bench/bench_rgms.py" --schedules-only "$tmp/x" \
    --stirc "$tmp/no-stirc" > "$tmp/out" 2>&1 || ! grep -q "cannot run" "$tmp/out"; then
	echo "FAIL: bench_rgms.py with no stirc"; cat "$tmp/out"; fail=1
fi
for bad in "--features x" "--features 0" "--reps x" "--bogus"; do
	if python3 "$srcdir/bench/bench_rgms.py" $bad > "$tmp/out" 2>&1; then
		echo "FAIL: bench_rgms.py $bad exited 0"; fail=1
	fi
done
# bench/rgms_counts.py (needs numpy) on the small graph: its pairs
# (distinct row and relation) and tiles of 16 edges of one relation
# against the same counted with awk
if python3 -c "import numpy" 2> /dev/null; then
	g="$srcdir/tests/data/graphs/small.hetero"
	pairs=$(awk '!/^%/ { print $2, $3 }' "$g" | sort -u | wc -l)
	tiles=$(awk '!/^%/ { c[$3]++ } END { for (r in c) t += int((c[r] + 15) / 16); print t }' "$g")
	python3 "$srcdir/bench/rgms_counts.py" "$g" > "$tmp/out" 2>&1
	grep -q "pairs $pairs edges/pair" "$tmp/out" &&
	    grep -q "in 128 pieces: $tiles tiles, at most 1 a thread block" "$tmp/out" ||
	    { echo "FAIL: rgms_counts.py (pairs $pairs, tiles $tiles)"; cat "$tmp/out"; fail=1; }
	python3 "$srcdir/bench/rgms_counts.py" > "$tmp/out" 2>&1 &&
	    { echo "FAIL: rgms_counts.py with no graph exited 0"; fail=1; }
fi
exit $fail
