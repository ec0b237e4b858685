#!/bin/sh
# bench/bench_rgms.py's schedules (the example's and every generated
# variant at fin = fout = 16: the aggregated order's on rgms_agg.stir, the
# edge by edge ones, edge_* and coo_* (with COO arrays) and runs_* (COO
# arrays, several edges a thread, a row's run of edges summed in registers:
# cache_write_runs), on rgms_edge.stir, the aggregated order with runs
# (aggruns_*; with T and Y zeroed by float4 stores, _zf4, as tc_tsh_*_u_zf4)
# and the tensor-core ones (tc_f16_*: tc16 on rgms_tc16.stir,
# tf32 and tc_runs_* on rgms_agg.stir, tc_once_* on rgms_agg_once.stir, tc_edges_*
# on rgms_edge.stir), and examples/rgms_coo.yaml and
# examples/rgms_runs.yaml) run on the interpreter and
# match stage I on a small relational graph; the benchmark's option errors
# exit non-zero.
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
ne=0
nc=0
nr=0
nt=0
no=0
nd=0
for s in "$tmp"/s/*.yaml; do
	# NAME_o is NAME with overlapping launches: the same kernel (checked
	# once below)
	case $s in *_o.yaml) continue ;; esac
	n=$((n + 1))
	prog=rgms_agg
	case $(basename "$s") in
	edge_*) prog=rgms_edge; ne=$((ne + 1)) ;;
	coo_*) prog=rgms_edge; nc=$((nc + 1)) ;;
	runs_*) prog=rgms_edge; nr=$((nr + 1)) ;;
	tc_*_tc16.yaml) prog=rgms_tc16; nt=$((nt + 1)) ;;
	tc_*_tc_once_*) prog=rgms_agg_once; nt=$((nt + 1)); no=$((no + 1)) ;;
	tc_*_tc_edges_*) prog=rgms_edge; nt=$((nt + 1)); nd=$((nd + 1)) ;;
	tc_*) nt=$((nt + 1)) ;;
	esac
	if ! "$stirc" run "$srcdir/examples/$prog.stir" --schedule "$s" \
	    --hetero A="$srcdir/tests/data/graphs/small.hetero" --size fin=16 \
	    --size fout=16 --random 3 --check > "$tmp/out" 2>&1; then
		echo "FAIL: $s"; cat "$tmp/out"; fail=1
	fi
done
[ "$n" -ge 7 ] || { echo "FAIL: only $n schedules"; fail=1; }
[ "$ne" -ge 3 ] || { echo "FAIL: only $ne edge by edge schedules"; fail=1; }
[ "$nc" -ge 6 ] || { echo "FAIL: only $nc schedules with COO arrays"; fail=1; }
[ "$nr" -ge 9 ] || { echo "FAIL: only $nr schedules with runs of rows"; fail=1; }
[ "$nt" -ge 5 ] || { echo "FAIL: only $nt tensor-core schedules"; fail=1; }
[ "$no" -ge 2 ] || { echo "FAIL: only $no schedules on rgms_agg_once"; fail=1; }
[ "$nd" -ge 4 ] || { echo "FAIL: only $nd edge-tile tensor-core schedules"; fail=1; }
[ -f "$tmp/s/aggruns_f16_q4_k4.yaml" ] || { echo "FAIL: no aggruns_f16_q4_k4"; fail=1; }
# T and Y zeroed by float4 stores (_zf4) on both paths
for z in tc_f16_tc_tsh_k4_p128_t2_u_zf4 aggruns_f16_q4_k4_zf4 runs_f16_v4_k4_o_zf4; do
	grep -q "vectorize: {block: zero0" "$tmp/s/$z.yaml" 2>/dev/null ||
		{ echo "FAIL: no $z with float4 zeroing"; fail=1; }
done
[ -f "$tmp/s/runs_f16_q2_k4_o.yaml" ] && grep -q "^overlap_launches: true" \
	"$tmp/s/runs_f16_q2_k4_o.yaml" || { echo "FAIL: no runs_f16_q2_k4_o"; fail=1; }
if ! "$stirc" run "$srcdir/examples/rgms_edge.stir" --schedule \
    "$tmp/s/runs_f16_q2_k4_o.yaml" --hetero A="$srcdir/tests/data/graphs/small.hetero" \
    --size fin=16 --size fout=16 --random 3 --check > "$tmp/out" 2>&1; then
	echo "FAIL: runs_f16_q2_k4_o.yaml"; cat "$tmp/out"; fail=1
fi
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
# the library's RGMS recipe (stirc recipe, which bench_rgms.py calls for
# its tc_tsh_*_gb) at 128 features: candidate 4 makes the kernel of
# tests/tensorize/rgms_tc_tsh_f128_p512.yaml, the text bench_rgms.py wrote
# for it before it called the library, and bench_rgms.py names each
# candidate by its pieces
python3 "$srcdir/bench/bench_rgms.py" --schedules-only "$tmp/s128" --features 128 \
	--schedule "$srcdir/examples/rgms_agg.yaml" --stirc "$stirc" > /dev/null 2>&1
"$stirc" cuda "$srcdir/examples/rgms_agg.stir" --schedule \
	"$srcdir/tests/tensorize/rgms_tc_tsh_f128_p512.yaml" > "$tmp/want.cu" 2>&1
"$stirc" cuda "$srcdir/examples/rgms_agg.stir" --schedule \
	"$tmp/s128/tc_f128_tc_tsh_k4_p512_t2_u_zf4_gb.yaml" > "$tmp/got.cu" 2>&1
if ! grep -q "__global__" "$tmp/want.cu" || ! cmp -s "$tmp/want.cu" "$tmp/got.cu"; then
	echo "FAIL: tc_tsh_k4_p512_t2_u_zf4_gb at 128 is not the recipe's candidate 4"
	fail=1
fi
for p in 32 64 128 256 512 1024; do
	grep -q "factors: \[$p, null\]" "$tmp/s128/tc_f128_tc_tsh_k4_p${p}_t2_u_zf4_gb.yaml" ||
		{ echo "FAIL: tc_tsh_k4_p${p}_t2_u_zf4_gb is not in $p pieces"; fail=1; }
done
for bad in "--features x" "--features 0" "--bogus"; do
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
