#!/bin/sh
# sh .devdata/final/extra.sh: bench_bsr --recipe, main before (schedule files) and the library's recipe, the weight cases at 128 and 512;
# then ncu of the SDDMM tile kernel and cuSPARSE's at 512 features on HB_bcsstk13, and of SR-BCRS chunks8 on pubmed at 128
cd "$(dirname "$0")/../.." && D=.devdata; B=$D/final/b
export STIR_CACHE_DIR=/tmp/stircache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/extra-log.txt; date -u >> $OUT/extra-log.txt
timeout 150 $B/bench/bench_bsr --recipe --cases weights --widths 128,512 > $OUT/bsr_recipe_new.txt 2>&1; echo "bsr new rc=$?" >> $OUT/extra-log.txt
timeout 150 $B/bench/bench_bsr_old --recipe --cases weights --widths 128,512 > $OUT/bsr_recipe_old.txt 2>&1; echo "bsr old rc=$?" >> $OUT/extra-log.txt
date -u >> $OUT/extra-log.txt
timeout 60 $B/tools/stirc tune examples/sddmm_tiles_csr.stir --mtx S=$D/HB_bcsstk13.mtx.gz --size feat=512 -o $OUT/t512.yaml > $OUT/t512.txt 2>&1; echo "tune rc=$?" >> $OUT/extra-log.txt
M="--section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section SchedulerStats"
timeout 90 ncu $M -k regex:sddmm_tiles -c 1 $B/tools/stirc run examples/sddmm_tiles_csr.stir --backend cuda --schedule $OUT/t512.yaml --mtx S=$D/HB_bcsstk13.mtx.gz --size feat=512 --random 1 --time --warmups 1 --reps 1 > $OUT/ncu_tiles512.txt 2>&1; echo "ncu tiles rc=$?" >> $OUT/extra-log.txt
timeout 90 ncu $M -k regex:sddmm_ker -c 1 $B/bench/bench_sddmm --features 512 --reps 1 --candidates 0 $D/HB_bcsstk13.mtx.gz > $OUT/ncu_cusparse512.txt 2>&1; echo "ncu cusparse rc=$?" >> $OUT/extra-log.txt
timeout 90 ncu $M -k regex:csrmm -c 2 $B/tools/stirc run examples/csrmm.stir --backend cuda --schedule bench/csrmm_srbcrs_tc_chunks8.yaml --mtx A=$D/pubmed.mtx.gz --size feat=128 --random 1 --time --warmups 1 --reps 1 > $OUT/ncu_srbcrs128.txt 2>&1; echo "ncu srbcrs rc=$?" >> $OUT/extra-log.txt
date -u >> $OUT/extra-log.txt
