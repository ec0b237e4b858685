#!/bin/sh
# Run the GPU test program against the fake CUDA driver (tests/fake_cuda.c):
# no GPU is involved, but every step of the program runs, so that a change
# that breaks the program's own logic shows here and not first on a GPU.
# The fake computes its kernels on the host.  Skipped (77) without NVRTC.
b=${STIR_BUILDDIR:-.}
STIR_LIBCUDA=$b/tests/.libs/libfakecuda.so
STIR_NO_CACHE=
export STIR_LIBCUDA STIR_NO_CACHE
exec "$b/tests/gpu/test_runtime_gpu"
