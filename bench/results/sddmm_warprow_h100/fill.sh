#!/bin/sh
# fill the NVRTC cache on the host (sm_90)
cd /work/main/.devdata/h-sdd13
export STIR_CACHE_DIR=$PWD/cache
mkdir -p cache
for y in yaml/*.yaml; do
  nice ./stirc cuda examples/sddmm_rows.stir --schedule $y --compile --arch sm_90 > /dev/null || echo "FAIL $y"
  STIR_PROTO_TRANSPOSE=1 nice ./stirc cuda examples/sddmm_rows.stir --schedule $y --compile --arch sm_90 > /dev/null || echo "FAIL T $y"
done
echo yaml done
nice ./bench_sddmm --vblock-csr --program examples/sddmm.stir --compile-only sm_90 2>&1 | tail -3
echo all done
