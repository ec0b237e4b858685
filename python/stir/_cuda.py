"""Kernel.run(backend='cuda'): a kernel on torch CUDA tensors, through
stir_gpu_run_bind_device (the caller's device memory: nothing copied) on
the caller's current stream (stir_stream_wrap), queued without waiting."""
import ctypes

from ._lib import lib, CompileOptions, Extern

STIR_GPU_RUN_ASYNC = 4

_TORCH_DTYPES = None


def _dtype_code(t):
    """The stir_dtype of torch tensor t's element type, or None."""
    global _TORCH_DTYPES
    import torch
    if _TORCH_DTYPES is None:
        _TORCH_DTYPES = {torch.int8: 1, torch.int32: 2, torch.int64: 3,
                         torch.float16: 4, torch.bfloat16: 5,
                         torch.float32: 6, torch.float64: 7}
    return _TORCH_DTYPES.get(t.dtype)


_TORCH_OF = {1: "int8", 2: "int32", 3: "int64", 4: "float16",
             5: "bfloat16", 6: "float32", 7: "float64"}


class GpuKernel(object):
    """A Kernel prepared for the GPU and compiled (NVRTC, through the
    kernel cache), loaded on one device with one run, made on first use."""

    def __init__(self, kernel):
        from . import _raise_from
        self._kernel = kernel
        ctx = kernel._ctx
        owner = ctypes.c_void_p()
        k = lib.stir_kernel_copy(kernel._base, ctypes.byref(owner))
        if not k:
            _raise_from(ctx, "out of memory")
        self._module = owner.value
        self._k = k
        self._dev = None
        self._gk = None
        self._run = None
        self._streams = {}
        self._outputs = {}
        self._device_index = None
        try:
            rc = lib.stir_schedule_prepare_for_gpu(kernel._schedule, k) \
                if kernel._schedule else lib.stir_kernel_prepare_for_gpu(k)
            if rc < 0:
                _raise_from(ctx, "cannot prepare %s for the GPU"
                            % kernel.name)
        except BaseException:
            self.close()
            raise

    def close(self):
        """Free the run, the compiled kernel, the device and the copy."""
        for st in self._streams.values():
            lib.stir_stream_free(st)
        self._streams = {}
        if self._run:
            lib.stir_gpu_run_free(self._run)
            self._run = None
        if self._gk:
            lib.stir_gpu_kernel_free(self._gk)
            self._gk = None
        if self._dev:
            lib.stir_device_free(self._dev)
            self._dev = None
        if self._module:
            lib.stir_module_free(self._module)
            self._module = None

    def _open(self, index):
        """Open device "index", compile for it and make the run."""
        from . import _raise_from
        ctx = self._kernel._ctx
        self._dev = lib.stir_device_alloc(ctx, index)
        if not self._dev:
            _raise_from(ctx, "cannot open CUDA device %d" % index)
        opts = CompileOptions()
        opts.device = self._dev
        self._gk = lib.stir_gpu_kernel_compile(self._k, ctypes.byref(opts))
        if not self._gk:
            _raise_from(ctx, "cannot compile %s" % self._kernel.name)
        self._run = lib.stir_gpu_run_alloc(self._gk, self._dev)
        if not self._run:
            _raise_from(ctx, "cannot load %s" % self._kernel.name)
        self._device_index = index

    def _output_specs(self, sizes, given):
        """[(name, torch dtype name, shape)] of the arrays the kernel
        writes that are not in "given", at these sizes (cached)."""
        from . import _raise_from, _DTYPES
        key = (tuple(sorted(sizes.items())), tuple(sorted(given)))
        specs = self._outputs.get(key)
        if specs is not None:
            return specs
        ctx = self._kernel._ctx
        base = self._kernel._base
        b = lib.stir_bindings_alloc()
        try:
            for name, v in sizes.items():
                lib.stir_bindings_set_size(b, name.encode(), int(v))
            # stand-ins for the given arrays, so that only the others
            # are made (their contents are not read)
            names = self._kernel.array_names
            if lib.stir_kernel_bind_outputs(base, b) < 0:
                _raise_from(ctx, "cannot size the outputs")
            specs = []
            for i in range(lib.stir_bindings_n_arrays(b)):
                name = lib.stir_bindings_get_array_name(b, i).decode()
                if name in given or name not in names:
                    continue
                arr = lib.stir_bindings_get_array(b, name.encode())
                ndim = ctypes.c_int(0)
                shape = (ctypes.c_int64 * 8)()
                lib.stir_kernel_get_array_shape(base, b, name.encode(),
                                                ctypes.byref(ndim), shape)
                specs.append((name, _TORCH_OF[lib.stir_array_get_dtype(arr)],
                              tuple(shape[j] for j in range(ndim.value))))
        finally:
            lib.stir_bindings_free(b)
        self._outputs[key] = specs
        return specs

    def run(self, sizes, arrays):
        """Run on the torch CUDA tensors "arrays" at "sizes" (every size
        parameter); returns {name: new tensor} for the outputs."""
        import torch
        from . import _raise_from
        ctx = self._kernel._ctx
        index = None
        for name, t in arrays.items():
            if not isinstance(t, torch.Tensor) or not t.is_cuda:
                raise TypeError("stir: array %s: the cuda backend takes "
                                "torch CUDA tensors" % name)
            if index is None:
                index = t.device.index
            elif t.device.index != index:
                raise ValueError("stir: array %s is on cuda:%d, the others "
                                 "on cuda:%d" % (name, t.device.index, index))
            if not t.is_contiguous():
                raise ValueError("stir: array %s is not contiguous" % name)
            if _dtype_code(t) is None:
                raise TypeError("stir: array %s: element type %s is not "
                                "one of stir's" % (name, t.dtype))
        if index is None:
            index = torch.cuda.current_device()
        if self._run is None:
            self._open(index)
        elif index != self._device_index:
            raise ValueError("stir: kernel %s runs on cuda:%d, not cuda:%d"
                             % (self._kernel.name, self._device_index, index))
        out = {}
        for name, dt, shape in self._output_specs(sizes, set(arrays)):
            out[name] = torch.empty(shape, dtype=getattr(torch, dt),
                                    device=torch.device("cuda", index))
        every = dict(arrays)
        every.update(out)
        ext = (Extern * max(len(every), 1))()
        keep = []
        for i, (name, t) in enumerate(every.items()):
            nb = name.encode()
            keep.append(nb)
            ext[i] = Extern(nb, t.data_ptr(), t.numel() * t.element_size(),
                            _dtype_code(t))
        b = lib.stir_bindings_alloc()
        try:
            for name, v in sizes.items():
                lib.stir_bindings_set_size(b, name.encode(), int(v))
            if lib.stir_gpu_run_bind_device(self._run, b, len(every),
                                            ext) < 0:
                _raise_from(ctx, "cannot bind the device arrays")
        finally:
            lib.stir_bindings_free(b)
        cs = torch.cuda.current_stream(index).cuda_stream
        st = self._streams.get(cs)
        if st is None:
            st = lib.stir_stream_wrap(self._dev, ctypes.c_void_p(cs))
            if not st:
                _raise_from(ctx, "out of memory")
            self._streams[cs] = st
        lib.stir_gpu_run_set_stream(self._run, st)
        if lib.stir_gpu_run_launch(self._run, STIR_GPU_RUN_ASYNC) < 0:
            _raise_from(ctx, "the launch failed")
        return out
