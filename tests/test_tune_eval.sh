#!/bin/sh
# bench/tune_eval.py's re-measure without a GPU: with --remeasure-procs 3
# it runs three benchmark processes (a fake bench_spmm here, whose times
# differ by process), passes --rounds and --shift-kib on, and compares the
# pick (and the search's fastest before the tuner's finalists) with the
# fastest of the candidates' medians over the processes, every candidate
# alike; bench_spmm refuses bad --rounds/--shift-kib with
# status 2, bench_sddmm (whose --help does not name them) refuses them at
# all; bench/render_results.py and bench/gen_chain.py answer a wrong
# argument with their usage, not a traceback.  Skipped without python3.
srcdir=${srcdir:-.}
command -v python3 > /dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }
t=${TMPDIR:-/tmp}/test_tune_eval.$$
mkdir -p "$t" || exit 1
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
if [ -x ./bench/bench_spmm ]; then
	for bad in "--rounds 0" "--rounds 65" "--shift-kib -1"; do
		# shellcheck disable=SC2086
		./bench/bench_spmm $bad x.mtx > "$t/out" 2>&1
		[ $? = 2 ] || fail "bench_spmm $bad: not refused with status 2"
		grep -q -- "--rounds/--shift-kib" "$t/out" ||
			fail "bench_spmm $bad: no message"
	done
	./bench/bench_spmm --help > "$t/out" 2>&1 || fail "bench_spmm --help: not status 0"
	grep -q -- "\[--rounds R\] \[--shift-kib K\]" "$t/out" ||
		fail "bench_spmm --help: no --rounds"
fi
if [ -x ./bench/bench_sddmm ]; then
	./bench/bench_sddmm --help > "$t/out" 2>&1 || fail "bench_sddmm --help: not status 0"
	grep -q -- "--rounds" "$t/out" && fail "bench_sddmm --help names --rounds"
	./bench/bench_sddmm --rounds 2 x.mtx > "$t/out" 2>&1
	[ $? = 2 ] || fail "bench_sddmm --rounds 2: not refused with status 2"
fi
for bad in "render_results.py --help" "render_results.py spmv x.json" \
    "gen_chain.py --help" "gen_chain.py 1 2"; do
	# shellcheck disable=SC2086
	python3 "$srcdir"/bench/$bad > "$t/out" 2>&1
	[ $? = 1 ] || fail "bench/$bad: not refused with status 1"
	grep -q "^usage: bench/" "$t/out" || fail "bench/$bad: no usage"
	grep -q Traceback "$t/out" && fail "bench/$bad: a traceback"
done
# the fake benchmark: candidates 1, 2, 3 at 32 features; process 0 times
# candidate 3 fast (an outlier), processes 1 and 2 slower
cat > "$t/bench" << 'EOF'
#!/usr/bin/env python3
import json, os, sys
a = sys.argv[1:]
n = len(os.listdir(os.environ["FAKE_DIR"]))
open(os.path.join(os.environ["FAKE_DIR"], "p%d" % n), "w").write(" ".join(a))
times = [{1: 1.00, 2: 1.05, 3: 0.95}, {1: 1.00, 2: 1.02, 3: 1.04},
         {1: 1.01, 2: 1.03, 3: 1.06}][n]
want = [int(c) for c in a[a.index("--candidates") + 1].split(",")]
ms = [times.get(i) if i in want else None for i in range(66)]
json.dump({"results": [{"features": 32, "search_ms": ms,
                        "cusparse_ms": 1.2 + n / 10}]},
          open(a[a.index("--json") + 1], "w"))
EOF
chmod +x "$t/bench"
mkdir "$t/procs"
FAKE_DIR=$t/procs SRC=$srcdir WORK=$t python3 - << 'EOF' || fail "re-measure"
import argparse, importlib.util, os
spec = importlib.util.spec_from_file_location(
    "tune_eval", os.path.join(os.environ["SRC"], "bench", "tune_eval.py"))
te = importlib.util.module_from_spec(spec)
spec.loader.exec_module(te)
assert te.median_over_processes([[1.0, None, 3.0], [2.0, 1.0, 1.0],
                                 [4.0, 1.0, 2.0]]) == [2.0, None, 2.0]
assert te.median_over_processes([[1.0, 2.0], [3.0]]) == [2.0, None]
args = argparse.Namespace(
    bench=os.path.join(os.environ["WORK"], "bench"), op="spmm",
    program="csrmm.stir", reps=30, remeasure=2, remeasure_procs=3,
    rounds=3, shift_kib=2112, work_dir=os.environ["WORK"])
case = {"graph": "g", "features": 32, "candidate": 1, "search_candidate": 3,
        "per_program": {"csrmm.stir": {"model_candidate": 2}}}
best = {32: {"search_ms": [None, 1.0, 1.1, 0.99, 1.2]}}
te.remeasure(args, "g", "g.mtx.gz", [32], os.environ["WORK"], best, [case])
procs = sorted(os.listdir(os.environ["FAKE_DIR"]))
assert procs == ["p0", "p1", "p2"], procs
for p in procs:
    cmd = open(os.path.join(os.environ["FAKE_DIR"], p)).read().split()
    assert cmd[cmd.index("--candidates") + 1] == "1,2,3", cmd
    assert cmd[cmd.index("--rounds") + 1] == "3", cmd
    assert cmd[cmd.index("--shift-kib") + 1] == "2112", cmd
# medians: candidate 1 1.00, 2 1.03, 3 1.04: the pick is the fastest,
# though process 0 alone puts it 5% behind candidate 3
assert case["re_best_candidate"] == 1, case
assert abs(case["re_tuned_over_best"] - 1.0) < 1e-9, case
assert abs(case["re_model_over_best"] - 1.03) < 1e-9, case
assert abs(case["re1_tuned_over_best"] - 1.0 / 0.95) < 1e-9, case
assert abs(case["re_cusparse_ms"] - 1.3) < 1e-9, case
# the search's fastest before the finalists' rounds, timed alike
assert abs(case["re_search_over_best"] - 1.04) < 1e-9, case
assert case["re_processes"] == 3 and case["re_rounds"] == 3, case
EOF
echo "tune_eval re-measure: ok"
