#!/bin/sh
# One device call (h-trec): the tile recipe's tuner on the GPU.  From the
# repository root with build-gpu (static), .devcache (the NVRTC cache of
# bench_sddmm --tiles --candidates 0 --compile-only sm_90, filled on the
# host) and .devdata (the graphs) carried.
export LD_LIBRARY_PATH=$PWD/build-gpu/lib
S=build-gpu/tools/stirc
B=build-gpu/bench/bench_sddmm
P=examples/sddmm_tiles_csr.stir
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
date -u > $OUT/date.txt
# every tile candidate against cusparseSDDMM, a fresh process a graph
for g in HB_bcsstk13 HB_bcsstk33 FIDAP_ex6; do
	STIR_CACHE_DIR=$PWD/.devcache $B --tiles --candidates 0 --features 32,64,128 \
		.devdata/$g.mtx.gz > $OUT/bench-$g.txt 2>&1
done
for g in HB_bcsstk13 HB_bcsstk33 FIDAP_ex6; do
	for f in 32 64 128; do
		c=$(mktemp -d)
		# cold: an empty kernel cache and record
		t0=$(date +%s.%N)
		STIR_CACHE_DIR=$c $S tune $P --mtx S=.devdata/$g.mtx.gz --size feat=$f \
			-o $OUT/$g-$f.yaml 2> $OUT/$g-$f.tune.txt
		t1=$(date +%s.%N)
		echo "wall $(awk "BEGIN { print $t1 - $t0 }") s" >> $OUT/$g-$f.tune.txt
		# the model's pick, timed as stirc run --time does (median of 100)
		STIR_CACHE_DIR=$c $S tune $P --mtx S=.devdata/$g.mtx.gz --size feat=$f \
			--model-only --no-record -o $OUT/$g-$f.model.yaml 2> $OUT/$g-$f.model.txt
		STIR_CACHE_DIR=$c $S run $P --backend cuda --time --schedule $OUT/$g-$f.model.yaml \
			--mtx S=.devdata/$g.mtx.gz --size feat=$f --random 1 \
			> $OUT/$g-$f.model.run.txt 2>&1
		[ $g-$f = HB_bcsstk13-64 ] && STIR_CACHE_DIR=$c $S run $P --backend cuda \
			--time --check --schedule $OUT/$g-$f.yaml \
			--mtx S=.devdata/$g.mtx.gz --size feat=$f --random 1 \
			> $OUT/$g-$f.pick.run.txt 2>&1
		rm -rf $c
	done
done
date -u >> $OUT/date.txt
