#!/bin/sh
# bench_bsr without a GPU (--list): the generated cases are deterministic
# and hold exactly round(density x blocks) blocks; the options and the
# data are checked, with a clear message and status 2 (usage) or 1 (data).
srcdir=${srcdir:-.}
B=./bench/bench_bsr
[ -x "$B" ] || { echo "bench_bsr not built (no cusparse.h): skipped"; exit 77; }
t=${TMPDIR:-/tmp}/test_bench_bsr.$$
mkdir -p "$t" || exit 1
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$B" --help > "$t/a" 2> "$t/b" || fail "--help: not status 0"
grep -q '^usage: bench_bsr .*\[--recipe\]' "$t/a" || fail "--help: no usage on stdout"
[ -s "$t/b" ] && fail "--help wrote to stderr"
"$B" --list > "$t/a" 2>&1 || { cat "$t/a"; fail "--list"; }
"$B" --list > "$t/b" 2>&1 || fail "--list again"
cmp -s "$t/a" "$t/b" || fail "the cases differ between two runs"
# 4 shapes x 3 blocks x 4 densities x 2 distributions + 2 masks
n=$(grep -c -E '^(w|attn)' "$t/a")
[ "$n" = 98 ] || fail "$n cases, expected 98"
# every weight case holds round(d x mb x nb) blocks; at most nb a row is
# checked by the generator's construction (distinct columns)
awk '/^w/ { split($1, p, "_d"); d = substr(p[2], 1, 2) / 100;
	want = int(d * $11 + 0.5); if ($9 != want) { print "bad: " $0; bad = 1 } }
	END { exit bad }' "$t/a" || fail "block counts"
grep -q '^w768x768_b16_d05_uni m 768 n 768 b 16 blocks 115 of 2304 ' "$t/a" ||
	fail "768x768 b16 5%"
grep -q '^w4096x4096_b64_d50_pow m 4096 n 4096 b 64 blocks 2048 of 4096 ' "$t/a" ||
	fail "4096x4096 b64 50% power law"
# a band of 3 over 64 block rows: 64 x 7 - 12 (its corners) = 436; the
# 2 global block rows add 64 - 4 and 64 - 5 blocks, the 2 global block
# columns as many: 436 + 2 x 119 = 674
grep -q '^attn4096_band3_glob2 m 4096 n 4096 b 64 blocks 674 of 4096 ' "$t/a" ||
	fail "attention"
grep -q 'examples/bsrmm.stir + .*bsrmm_cuda.yaml: blocks 16, A and B f16' "$t/a" ||
	fail "the program's block size"
# --block without --mtx: the cases of one block size
"$B" --list --block 32 > "$t/k" 2>&1 || { cat "$t/k"; fail "--block 32"; }
[ "$(grep -c -E '^(w|attn)' "$t/k")" = 32 ] &&
	[ "$(grep -c -E '^w[0-9x]*_b32_' "$t/k")" = 32 ] || fail "--block 32 cases"
"$B" --list --block 64 > "$t/k" 2>&1 || fail "--block 64"
[ "$(grep -c -E '^(w|attn)' "$t/k")" = 34 ] || fail "--block 64 cases"
# a Matrix Market file, and its refusals
m="$srcdir/tests/data/graphs/small.mtx"
rows=$(grep -v '^%' "$m" | head -1 | awk '{print $1}')
"$B" --list --cases none --mtx "$m" --block 16 > "$t/c" 2>&1
rc=$?
if [ $((rows % 16)) = 0 ]; then
	[ $rc = 0 ] || { cat "$t/c"; fail "--mtx"; }
else
	[ $rc = 1 ] && grep -q "does not divide" "$t/c" || { cat "$t/c"; fail "block not dividing"; }
fi
expect() { # status, message, args...
	st=$1 msg=$2; shift 2
	"$B" "$@" > "$t/e" 2>&1
	rc=$?
	[ $rc = "$st" ] || { cat "$t/e"; fail "$*: status $rc, expected $st"; }
	grep -q -- "$msg" "$t/e" || { cat "$t/e"; fail "$*: no '$msg'"; }
}
expect 1 "no.such.mtx: cannot read the file" --list --mtx "$t/no.such.mtx" --block 16
printf '%%%%MatrixMarket matrix coordinate real general\n40 40 2\n1 1 1\n40 3 2\n' > "$t/m40.mtx"
expect 1 "the block size 16 does not divide the 40 x 40 matrix" --list --mtx "$t/m40.mtx" --block 16
expect 1 "no program given has that block size" --list --mtx "$t/m40.mtx" --block 8
printf '%%%%MatrixMarket matrix coordinate real general\n32 48 2\n1 1 1\n32 3 2\n' > "$t/m32.mtx"
"$B" --list --cases none --mtx "$t/m32.mtx" --block 16 > "$t/f" 2>&1 || { cat "$t/f"; fail "32 x 48"; }
grep -q "^m32_b16 m 32 n 48 b 16 blocks 2 of 6 " "$t/f" || { cat "$t/f"; fail "32 x 48 blocks"; }
# the file alone without --cases; with --cases weights, the generated too
"$B" --list --mtx "$t/m32.mtx" --block 16 > "$t/f" 2>&1 || { cat "$t/f"; fail "32 x 48 alone"; }
[ "$(grep -c -E '^(w|attn|m32)' "$t/f")" = 1 ] || { cat "$t/f"; fail "--mtx without --cases: not the file alone"; }
"$B" --list --cases weights --mtx "$t/m32.mtx" --block 16 > "$t/f" 2>&1 || { cat "$t/f"; fail "32 x 48 with weights"; }
[ "$(grep -c -E '^(w|m32)' "$t/f")" = 33 ] || { cat "$t/f"; fail "--mtx --cases weights: not the file and the 32 weights"; }
expect 1 "no program given has that block size" --list --mtx "$t/m32.mtx" --block 16 \
	--program "$srcdir/bench/bsrmm32.stir" --schedule "$srcdir/examples/bsrmm_cuda.yaml"
expect 2 "--program and --schedule come in pairs" --list --program "$srcdir/examples/bsrmm.stir"
expect 2 "--mtx and --block go together" --list --mtx "$m"
expect 2 "--block needs a positive integer (got '0')" --list --mtx "$m" --block 0
expect 2 "--widths needs a positive integer (got 'x')" --list --widths 128,x
expect 2 "unknown option '--bogus'" --list --bogus 1
expect 2 "--cases takes weights, attention or none" --list --cases foo
expect 1 "--shape 5x5: not one of" --list --shape 5x5
expect 1 "csrmm.stir has no kernel 'bsrmm'" --list --program "$srcdir/examples/csrmm.stir" \
	--schedule "$srcdir/examples/csrmm.yaml"
# --recipe: the library's candidate of each b16 case from its shape
# (stir_bsr_tc_pick, schedule/recipes/bsr.c)
"$B" --list --recipe --block 16 --cases weights > "$t/r" 2>&1 || { cat "$t/r"; fail "--recipe"; }
recipe() { # case, width, candidate: warps x features, stages, batch
	case $3 in
	pipe_t4_b2) l="1 warps x 32 features, 4 stages, batch 2" ;;
	pipe) l="1 warps x 64 features, 4 stages, batch 1" ;;
	warps_s4) l="4 warps x 32 features, 4 stages, batch 1" ;;
	warps_f64) l="4 warps x 64 features, 2 stages, batch 1" ;;
	esac
	grep -q "^$1 .* $2: blocks 16, $l" "$t/r" || { cat "$t/r"; fail "--recipe: $1 at $2 not $3"; }
}
# short rows for the grid: a warp a row, 32 features; long rows in a
# small grid: 4 warps, 32 features a warp (4 stages); a large even grid:
# a warp a row, 64 features; long rows in a large grid: 4 warps, 64
recipe w768x768_b16_d05_uni 128 pipe_t4_b2
recipe w768x768_b16_d20_uni 128 warps_s4
recipe w768x768_b16_d05_uni 512 pipe_t4_b2
recipe w768x3072_b16_d20_uni 512 warps_f64
recipe w4096x4096_b16_d50_uni 512 pipe
recipe w4096x4096_b16_d50_pow 512 warps_f64
recipe w4096x4096_b16_d50_pow 128 warps_s4
recipe w3072x768_b16_d05_uni 128 pipe_t4_b2
# rows of 24 blocks on 768 warps of 32 features: 32 L = R x N / 32, a warp a row
recipe w3072x768_b16_d50_uni 128 pipe_t4_b2
recipe w768x768_b16_d50_uni 512 pipe_t4_b2
# the attention masks (blocks of 64, 64 x 12 x 4 warps): a warp a strip
# of a block row; a small grid of blocks of 64 or 32: a 16-row strip a
# thread block
"$B" --list --recipe --cases attention > "$t/r" 2>&1 || { cat "$t/r"; fail "--recipe (masks)"; }
grep -q "^attn4096_band3_glob2 .* 768: blocks 64, 4 warps x 64 features, 3 stages, batch 1" "$t/r" ||
	{ cat "$t/r"; fail "--recipe: the masks not on the rows of blocks of 64"; }
"$B" --list --recipe --cases weights --block 64 > "$t/r" 2>&1 || { cat "$t/r"; fail "--recipe (blocks of 64)"; }
grep -q "^w768x768_b64_d50_uni .* 512: blocks 64, 1 warps x 64 features, 4 stages, batch 1" "$t/r" ||
	{ cat "$t/r"; fail "--recipe: a small grid of blocks of 64 not on the strips"; }
# a large grid of even rows: a warp on 32 rows of a block row; of skewed
# rows: a warp a strip of a block row
grep -q "^w4096x4096_b64_d50_uni .* 512: blocks 64, 2 warps x 32 rows x 64 features, 3 stages, batch 1" "$t/r" ||
	{ cat "$t/r"; fail "--recipe: a large even grid of blocks of 64 not on 32 rows a warp"; }
grep -q "^w4096x4096_b64_d50_pow .* 512: blocks 64, 4 warps x 64 features, 3 stages, batch 1" "$t/r" ||
	{ cat "$t/r"; fail "--recipe: a large skewed grid of blocks of 64 not on the strips of rows"; }
expect 2 "--recipe picks the schedules: no --program" --list --recipe \
	--program "$srcdir/examples/bsrmm.stir" --schedule "$srcdir/bench/bsrmm_tc16_pipe.yaml"
expect 2 "--recipe: the widths must be multiples of 32" --list --recipe --widths 128,80
exit 0
