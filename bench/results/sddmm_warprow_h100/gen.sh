#!/bin/sh
# gen.sh NAME R Y U L FEAT: sddmm_rows.stir scheduled with R rows a block
# (threadIdx.z), Y x U non-zeros of a row at a time (Y on threadIdx.y, U in
# turn inside the lanes), L lanes over the features (threadIdx.x), float4
# (or narrower) loads.
name=$1 R=$2 Y=$3 U=$4 L=$5 F=$6
V=$((F / L)); [ $V -gt 4 ] && V=4
cat <<Y
kernel: sddmm_rows
stage1:
  - specialize: {param: feat, value: $F}
stage2:
  - split: {block: sddmm1, loop: i, factors: [null, $R]}
  - split: {block: sddmm1, loop: j, factors: [null, $Y, $U]}
  - split: {block: sddmm1, loop: k, factors: [null, $L, $V]}
  - reorder: {block: sddmm1, loops: [j_1, k_1, k_0, j_2, k_2]}
  - bind: {block: sddmm1, loop: i_0, to: blockIdx.x}
  - bind: {block: sddmm1, loop: i_1, to: threadIdx.z}
  - bind: {block: sddmm1, loop: j_1, to: threadIdx.y}
  - unroll: {block: sddmm1, loop: k_0}
  - unroll: {block: sddmm1, loop: j_2}
stage3:
  - cache_write_over_init: {block: sddmm1, buffer: S_data, loop: k_1, scope: local}
  - cross_thread_reduce: {block: sddmm1, loop: k_1}
  - bind: {block: sddmm1, loop: k_1, to: threadIdx.x}
  - cache_read: {block: sddmm1, buffer: X_data, loop: j_2, scope: local}
  - cache_read: {block: sddmm1, buffer: Y_data, loop: k_2, scope: local}
Y
if [ $V -gt 1 ]; then
echo "  - vectorize: {block: X_data_local, loop: ax0}"
echo "  - vectorize: {block: Y_data_local, loop: ax0}"
fi
echo "  - unroll: {block: sddmm1, loop: k_2}"
