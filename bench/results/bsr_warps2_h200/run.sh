#!/bin/bash
# h-bsr12, for a next call (not run): the two 2-warp candidates, each in a
# process of its own (bench_bsr keeps one stir time per case and block
# size), on the 4096x4096 weights, then main's recipe on the same cases.
# carry: [".devdata/h-bsr12"]; command: bash .devdata/h-bsr12/run2.sh
cd "$(dirname "$0")"
o=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $o/gpu.txt
for c in warps2_f64 warps2_f128; do
	timeout 60 bin/bench_bsr --program examples/bsrmm.stir --schedule bench/bsrmm_tc16_$c.yaml \
		--block 16 --cases weights --shape 4096x4096 --widths 128,512 --reps 20 > $o/cand_$c.txt 2>&1
done
timeout 60 bin/bench_bsr --recipe --cases weights --shape 4096x4096 --widths 128,512 --reps 20 > $o/recipe_4096.txt 2>&1
grep -h "^w4096x4096_b16" $o/cand_*.txt $o/recipe_4096.txt | sort
