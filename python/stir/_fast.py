"""The fast kernels of a stir.Graph: the library's recipes
(include/stir/recipes.h) prepared once per (graph, feature size).

- SpMM: the hybrid ELL format and schedule of the candidate the cost model
  ranks first for the matrix and the feature size
  (stir_spmm_hybrid_model_rank, then stir_csr_to_hybrid_flags and
  stir_recipe_spmm_hybrid, as bench/bench_spmm.c builds them); the format
  is built on the host from the CSR once and kept in device memory.
- SDDMM: stir_recipe_sddmm (fused over the non-zeros) with the default
  mapping of the feature size (candidate 0 of stir_sddmm_get_candidate: no
  model ranks the SDDMM candidates yet), on the CSR arrays as they are.

A compiled kernel depends on the candidate and the feature size only, so
it is shared by every graph (_compiled); each prepared graph has its own
run (stir_gpu_run) bound to its arrays.  A call binds the caller's input
and a new output tensor (stir_gpu_run_bind_device: nothing copied) and
queues the launches on torch's current stream without waiting
(STIR_GPU_RUN_ASYNC); the ctypes argument arrays and the size bindings
are made once.  HybridSpmm.interpret runs the same stage III kernel on the
host interpreter (make check tests the preparation there)."""
import ctypes

from ._lib import lib, Csr, CompileOptions, Extern, GpuTiming
from ._kernels import SPMM_SOURCE, SDDMM_SOURCE

STIR_I32 = 2
STIR_F32 = 6
STIR_BUFFER_LOCAL = 1
STIR_GPU_RUN_ASYNC = 4

# one context for the kernels, formats and devices made here
_CTX = None
_DEVICES = {}
_COMPILED = {}


def _ctx():
    """The context of this module's objects (made on first use)."""
    global _CTX
    if _CTX is None:
        _CTX = lib.stir_ctx_alloc()
        if not _CTX:
            raise MemoryError("stir: out of memory")
    return _CTX


def _fail(what):
    """Raise the StirError of the diagnostics in this module's context."""
    from . import _raise_from
    _raise_from(_ctx(), what)


class _Kernel(object):
    """A stage I kernel read from "source" into its own module, to be
    scheduled by a recipe (which changes it)."""

    def __init__(self, source, name):
        data = source.encode()
        self.module = lib.stir_module_read_from_mem(
            _ctx(), ("<stir.%s>" % name).encode(), data, len(data))
        if not self.module:
            _fail("cannot read the %s program" % name)
        self.k = lib.stir_module_get_kernel(self.module, 0)

    def __del__(self):
        if getattr(self, "module", None):
            lib.stir_module_free(self.module)
            self.module = None


def _taken(plan):
    """The names of the arrays the launches of "plan" take from the caller
    (not the kernel's own buffers), in first-use order."""
    out = []
    seen = set()
    for i in range(lib.stir_cuda_plan_n_launches(plan)):
        for j in range(lib.stir_cuda_plan_n_args(plan, i)):
            buf = lib.stir_cuda_plan_get_arg_buffer(plan, i, j)
            if not buf:
                continue
            name = lib.stir_buffer_get_array_name(buf).decode()
            if name not in seen:
                seen.add(name)
                out.append((name, lib.stir_buffer_get_kind(buf)
                            == STIR_BUFFER_LOCAL))
    return out


def _host_taken(k):
    """_taken of stage III kernel k's launch plan, made on the host (no
    GPU, no NVRTC)."""
    plan = lib.stir_cuda_plan_alloc(k, 0)
    if not plan:
        _fail("cannot plan the launches")
    try:
        return _taken(plan)
    finally:
        lib.stir_cuda_plan_free(plan)


def _spmm_kernel(cand, feat):
    """csrmm scheduled by stir_recipe_spmm_hybrid for hybrid candidate
    "cand" at "feat" features (stage III)."""
    p = lib.stir_spmm_hybrid_get_candidate(cand).contents
    kern = _Kernel(SPMM_SOURCE, "spmm")
    fm = lib.stir_spmm_hybrid_map(ctypes.byref(p), feat)
    if lib.stir_recipe_spmm_hybrid(kern.k, p.c, p.nb, p.buckets, fm) < 0:
        _fail("cannot schedule the hybrid SpMM (candidate %d, %d features)"
              % (cand, feat))
    return kern, p.min_blocks


def _sddmm_kernel(feat):
    """sddmm scheduled by stir_recipe_sddmm with the default mapping of
    "feat" features (stage III)."""
    kern = _Kernel(SDDMM_SOURCE, "sddmm")
    if lib.stir_recipe_sddmm(kern.k, lib.stir_sddmm_map_features(feat)) < 0:
        _fail("cannot schedule the SDDMM (%d features)" % feat)
    return kern, 0


def model_pick(csr, feat, n_sms=0):
    """The hybrid candidate the cost model ranks first for stir_csr "csr"
    (a Csr structure) at "feat" features on a GPU of n_sms SMs (0: the
    model's default)."""
    n = lib.stir_spmm_hybrid_n_candidates()
    order = (ctypes.c_int * max(n, 1))()
    got = lib.stir_spmm_hybrid_model_rank(ctypes.byref(csr), feat, n_sms,
                                          order, None)
    if got < 0:
        raise MemoryError("stir: out of memory")
    if got == 0:
        raise ValueError("stir: no hybrid SpMM candidate applies at %d "
                         "features" % feat)
    return order[0]


class HostFormat(object):
    """The hybrid format of a candidate built from a CSR on the host: its
    bindings (arrays and sizes, suffix _hyb) and description."""

    def __init__(self, csr, cand):
        p = lib.stir_spmm_hybrid_get_candidate(cand).contents
        self.b = lib.stir_bindings_alloc()
        if not self.b:
            raise MemoryError("stir: out of memory")
        self.f = lib.stir_csr_to_hybrid_flags(
            _ctx(), ctypes.byref(csr), p.c, p.nb, p.buckets, STIR_I32,
            STIR_F32, b"_hyb",
            lib.stir_spmm_hybrid_params_format_flags(ctypes.byref(p)),
            self.b)
        if not self.f:
            _fail("cannot build the hybrid format (candidate %d)" % cand)

    def __del__(self):
        if getattr(self, "f", None):
            lib.stir_host_format_free(self.f)
            self.f = None
        if getattr(self, "b", None):
            lib.stir_bindings_free(self.b)
            self.b = None

    def sizes(self):
        """{name: value} of the format's sizes (rows_hyb_0_0, ...)."""
        out = {}
        v = ctypes.c_int64()
        for i in range(lib.stir_bindings_n_sizes(self.b)):
            name = lib.stir_bindings_get_size_name(self.b, i)
            if lib.stir_bindings_get_size(self.b, name, ctypes.byref(v)):
                out[name.decode()] = v.value
        return out

    def arrays(self):
        """{name: stir_array pointer} of the format's arrays."""
        out = {}
        for i in range(lib.stir_bindings_n_arrays(self.b)):
            name = lib.stir_bindings_get_array_name(self.b, i)
            out[name.decode()] = lib.stir_bindings_get_array(self.b, name)
        return out


def describe(cand):
    """A short text of hybrid candidate "cand" ("c=1 [1,2,4] g4 ...", as
    bench_spmm prints it)."""
    p = lib.stir_spmm_hybrid_get_candidate(cand).contents
    s = "#%d c=%d [%s]" % (cand, p.c, ",".join(str(p.buckets[i])
                                               for i in range(p.nb)))
    if p.group > 1:
        s += " g%d" % p.group
    if p.threads != 256:
        s += " %dt" % p.threads
    if p.locality:
        s += " lo"
    if p.warp_cache:
        s += " wc"
    if p.serial_lanes:
        s += " s%d" % p.serial_lanes
    if p.min_blocks:
        s += " mb%d" % p.min_blocks
    return s


def _set_sizes(b, sizes):
    """Bind the sizes of dict "sizes" into bindings b."""
    for name, v in sizes.items():
        if lib.stir_bindings_set_size(b, name.encode(), int(v)) < 0:
            raise MemoryError("stir: out of memory")


class HybridSpmm(object):
    """The model's pick of the hybrid SpMM for one CSR and feature size on
    the host: candidate, format and stage III kernel; interpret(B) runs
    it on the interpreter (the test of the preparation without a GPU)."""

    def __init__(self, csr, feat, n_sms=0):
        self.shape = (csr.nrows, csr.ncols)
        self.feat = int(feat)
        self.candidate = model_pick(csr, self.feat, n_sms)
        self.format = HostFormat(csr, self.candidate)
        self.kernel, self.min_blocks = _spmm_kernel(self.candidate, self.feat)
        self.taken = _host_taken(self.kernel.k)

    @classmethod
    def of_scipy(cls, A, feat, n_sms=0):
        """The HybridSpmm of SciPy CSR matrix A."""
        import numpy as np
        ip = np.ascontiguousarray(A.indptr, dtype=np.int64)
        ix = np.ascontiguousarray(A.indices, dtype=np.int64)
        v = np.ascontiguousarray(A.data, dtype=np.float64)
        csr = Csr(A.shape[0], A.shape[1], len(ix),
                  ip.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                  ix.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                  v.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
        return cls(csr, feat, n_sms)

    def interpret(self, B):
        """self's matrix @ B (a NumPy (n, feat) matrix) by the scheduled
        kernel on the host interpreter; a float32 NumPy matrix."""
        import numpy as np
        from . import _raise_from
        m, n = self.shape
        B = np.ascontiguousarray(B, dtype=np.float32)
        if B.shape != (n, self.feat):
            raise ValueError("stir: B has shape %s, not (%d, %d)"
                             % (B.shape, n, self.feat))
        b = lib.stir_bindings_copy(self.format.b)
        if not b:
            raise MemoryError("stir: out of memory")
        ctx = _ctx()
        try:
            _set_sizes(b, {"m": m, "n": n, "feat": self.feat})
            shape = (ctypes.c_int64 * 2)(n, self.feat)
            arr = lib.stir_array_alloc(ctx, STIR_F32, 2, shape)
            if not arr:
                _raise_from(ctx, "out of memory")
            if B.nbytes:
                ctypes.memmove(lib.stir_array_get_data(arr), B.ctypes.data,
                               B.nbytes)
            if lib.stir_kernel_bind_array(self.kernel.k, b, b"B", arr) < 0 \
                    or lib.stir_kernel_bind_outputs(self.kernel.k, b) < 0 \
                    or lib.stir_kernel_interpret(self.kernel.k, b) < 0:
                _raise_from(ctx, "the hybrid SpMM failed")
            c = lib.stir_bindings_get_array(b, b"C")
            out = np.empty((m, self.feat), dtype=np.float32)
            if out.nbytes:
                ctypes.memmove(out.ctypes.data, lib.stir_array_get_data(c),
                               out.nbytes)
            return out
        finally:
            lib.stir_bindings_free(b)


# ---- on the GPU (torch) -----------------------------------------------

def _device(index):
    """The stir_device of CUDA device "index" (opened once)."""
    dev = _DEVICES.get(index)
    if dev is None:
        dev = lib.stir_device_alloc(_ctx(), index)
        if not dev:
            _fail("cannot open CUDA device %d" % index)
        _DEVICES[index] = dev
    return dev


class _Compiled(object):
    """A scheduled kernel compiled for one device (kept for the session:
    every graph of that candidate and feature size shares it)."""

    def __init__(self, kern, min_blocks, index):
        self.kernel = kern
        self.dev = _device(index)
        opts = CompileOptions()
        opts.device = self.dev
        opts.min_blocks_per_sm = min_blocks
        self.gk = lib.stir_gpu_kernel_compile(kern.k, ctypes.byref(opts))
        if not self.gk:
            _fail("cannot compile %s" % lib.stir_kernel_get_name(
                kern.k).decode())
        self.taken = _taken(lib.stir_gpu_kernel_get_plan(self.gk))


def _compiled(which, cand, feat, index):
    """The shared _Compiled of kernel "which" ("spmm": hybrid candidate
    cand; "sddmm") at feat features on device index."""
    key = (which, cand, feat, index)
    c = _COMPILED.get(key)
    if c is None:
        kern, mb = _spmm_kernel(cand, feat) if which == "spmm" else \
            _sddmm_kernel(feat)
        c = _Compiled(kern, mb, index)
        _COMPILED[key] = c
    return c


_RAW_STREAM = None


def _current_stream(index):
    """The handle of torch's current stream on device index (an int)."""
    global _RAW_STREAM
    import torch
    if _RAW_STREAM is None:
        _RAW_STREAM = getattr(torch._C, "_cuda_getCurrentRawStream", False)
    if _RAW_STREAM:
        return _RAW_STREAM(index)
    return torch.cuda.current_stream(index).cuda_stream


class Launch(object):
    """A compiled kernel bound to one graph's arrays on the GPU: "fixed"
    {name: tensor} (kept alive here), then per call the tensors of
    "inputs" (names, in the order call takes them) and a new output
    tensor "output" of shape out_shape.  The externs arrays and the size
    bindings are made here once; the first call binds every array with
    the sizes (stir_gpu_run_bind_device), the next ones only rebind the
    inputs and the output (stir_gpu_run_rebind_device: nothing evaluated
    again), and queue the launches on torch's current stream."""

    def __init__(self, comp, sizes_b, fixed, inputs, output, out_shape,
                 device):
        import torch
        self.comp = comp
        self.device = device
        self.index = device.index
        self.out_shape = tuple(int(s) for s in out_shape)
        self.fixed = fixed
        self.sizes = sizes_b
        self.run = None
        self._torch_empty = torch.empty
        self._f32 = torch.float32
        names = [n for n, local in comp.taken if not local]
        missing = [n for n in names if n not in fixed and n not in inputs
                   and n != output]
        if missing:
            raise ValueError("stir: the prepared kernel takes %s, which is "
                             "not bound" % ", ".join(missing))
        order = [n for n in names if n in fixed] + list(inputs) + [output]
        self.n = len(order)
        self.ext = (Extern * self.n)()
        self._keep = [n.encode() for n in order]
        for i, n in enumerate(order):
            self.ext[i].name = self._keep[i]
            if n in fixed:
                t = fixed[n]
                self.ext[i].ptr = t.data_ptr()
                self.ext[i].bytes = t.numel() * t.element_size()
                self.ext[i].dtype = STIR_I32 if t.dtype == torch.int32 \
                    else STIR_F32
            else:
                self.ext[i].dtype = STIR_F32
        k = len(order) - len(inputs) - 1
        # the arrays of a call: the first binds them all with the
        # sizes, the next ones rebind these (stir_gpu_run_rebind_device)
        self.n_var = len(inputs) + 1
        self.var = (Extern * self.n_var)()
        for j in range(self.n_var):
            self.var[j].name = self._keep[k + j]
            self.var[j].dtype = STIR_F32
        self._in = [self.var[j] for j in range(len(inputs))]
        self._out = self.var[self.n_var - 1]
        self._out.bytes = 4 * _prod(self.out_shape)
        self.bound = False
        self.syncs = any(local for _, local in comp.taken)
        self.run = lib.stir_gpu_run_alloc(comp.gk, comp.dev)
        if not self.run:
            _fail("cannot load the kernel")
        self._stream = None
        self._streams = {}

    def __del__(self):
        if getattr(self, "run", None):
            lib.stir_gpu_run_free(self.run)
            self.run = None
        for st in getattr(self, "_streams", {}).values():
            lib.stir_stream_free(st)
        self._streams = {}
        if getattr(self, "sizes", None):
            lib.stir_bindings_free(self.sizes)
            self.sizes = None

    def bind(self, *inputs):
        """Bind the input tensors (float32, contiguous, 16-byte aligned,
        of the sizes the kernel needs: the caller checks) and a new output
        tensor, on torch's current stream; returns the output."""
        out = self._torch_empty(self.out_shape, dtype=self._f32,
                                device=self.device)
        for e, t in zip(self._in, inputs):
            e.ptr = t.data_ptr()
            e.bytes = 4 * t.numel()
        self._out.ptr = out.data_ptr()
        if self.bound:
            if lib.stir_gpu_run_rebind_device(self.run, self.n_var,
                                              self.var) < 0:
                self.bound = False
                _fail("cannot bind the device arrays")
        else:
            k = self.n - self.n_var
            for j in range(self.n_var):
                self.ext[k + j] = self.var[j]
            if lib.stir_gpu_run_bind_device(self.run, self.sizes, self.n,
                                            self.ext) < 0:
                _fail("cannot bind the device arrays")
            self.bound = True
        cs = _current_stream(self.index)
        if cs != self._stream:
            st = self._streams.get(cs)
            if st is None:
                st = lib.stir_stream_wrap(self.comp.dev, ctypes.c_void_p(cs))
                if not st:
                    _fail("out of memory")
                self._streams[cs] = st
            lib.stir_gpu_run_set_stream(self.run, st)
            self._stream = cs
        return out

    def __call__(self, *inputs):
        """bind, then queue the launches without waiting; the output."""
        out = self.bind(*inputs)
        if lib.stir_gpu_run_launch(self.run, STIR_GPU_RUN_ASYNC) < 0:
            _fail("the launch failed")
        return out

    def time(self, *inputs, warmups=10, reps=50):
        """stir_gpu_run_time of the bound run (the C benchmark's method:
        L2 flushed before each, CUDA events, the median) on these inputs:
        (median, min, max) in milliseconds."""
        import torch
        self.bind(*inputs)
        torch.cuda.synchronize(self.device)
        t = GpuTiming()
        if lib.stir_gpu_run_time(self.run, warmups, reps,
                                 ctypes.byref(t)) < 0:
            _fail("cannot time the kernel")
        return t.median_ms, t.min_ms, t.max_ms


def _prod(shape):
    """The product of the integers of "shape"."""
    p = 1
    for s in shape:
        p *= int(s)
    return p


def _host_csr(indptr, indices, values, shape):
    """(Csr structure, the arrays it points into) for CPU torch tensors
    (converted to int64 / float64)."""
    import torch
    ip = indptr.to("cpu", torch.int64).contiguous()
    ix = indices.to("cpu", torch.int64).contiguous()
    v = values.to("cpu", torch.float64).contiguous()
    csr = Csr(int(shape[0]), int(shape[1]), int(ix.numel()),
              ctypes.cast(ip.data_ptr(), ctypes.POINTER(ctypes.c_int64)),
              ctypes.cast(ix.data_ptr(), ctypes.POINTER(ctypes.c_int64)),
              ctypes.cast(v.data_ptr(), ctypes.POINTER(ctypes.c_double)))
    return csr, (ip, ix, v)


def _format_tensors(fmt, names, device):
    """{name: CUDA tensor} of the format arrays "names" of HostFormat
    fmt, copied to the device once."""
    import torch
    arrays = fmt.arrays()
    out = {}
    for name in names:
        arr = arrays[name]
        dt = lib.stir_array_get_dtype(arr)
        if dt not in (STIR_I32, STIR_F32):
            raise TypeError("stir: format array %s has element type %d"
                            % (name, dt))
        n = lib.stir_array_get_len(arr)
        t = torch.empty(max(n, 1), dtype=torch.int32 if dt == STIR_I32
                        else torch.float32)
        if n:
            ctypes.memmove(t.data_ptr(), lib.stir_array_get_data(arr),
                           4 * n)
        out[name] = t.to(device)
    return out


class GpuSpmm(object):
    """The hybrid SpMM of a TorchGraph at one feature size, prepared on
    its device: the model's candidate, the format's arrays on the device,
    the compiled kernel and its Launch.  Call with B (float32,
    contiguous, (n, feat)): a new (m, feat) tensor."""

    def __init__(self, g, feat):
        import torch
        dev = g.indices.device
        index = dev.index if dev.index is not None else \
            torch.cuda.current_device()
        csr, keep = _host_csr(g.indptr, g.indices, g.values, g.shape)
        n_sms = torch.cuda.get_device_properties(index).multi_processor_count
        self.feat = int(feat)
        self.candidate = model_pick(csr, self.feat, n_sms)
        fmt = HostFormat(csr, self.candidate)
        comp = _compiled("spmm", self.candidate, self.feat, index)
        taken = [n for n, local in comp.taken if not local]
        fixed = _format_tensors(fmt, [n for n in taken
                                      if n not in ("B", "C")],
                                torch.device("cuda", index))
        # the sizes only (the format's host arrays are not kept)
        sizes = lib.stir_bindings_alloc()
        if not sizes:
            raise MemoryError("stir: out of memory")
        _set_sizes(sizes, fmt.sizes())
        _set_sizes(sizes, {"m": g.shape[0], "n": g.shape[1],
                           "feat": self.feat, "nnz": g.nnz})
        del keep
        self.launch = Launch(comp, sizes, fixed, ["B"], "C",
                             (g.shape[0], self.feat),
                             torch.device("cuda", index))
        self.describe = describe(self.candidate)

    def __call__(self, B):
        return self.launch(B)


class GpuSddmm(object):
    """stir_recipe_sddmm on a TorchGraph's CSR at one feature size: call
    with X (m, feat) and Y (n, feat), float32 contiguous; a new tensor of
    the nnz values in the graph's order."""

    def __init__(self, g, feat):
        import torch
        dev = g.indices.device
        index = dev.index if dev.index is not None else \
            torch.cuda.current_device()
        self.feat = int(feat)
        comp = _compiled("sddmm", 0, self.feat, index)
        sizes = lib.stir_bindings_alloc()
        if not sizes:
            raise MemoryError("stir: out of memory")
        _set_sizes(sizes, {"m": g.shape[0], "n": g.shape[1],
                           "feat": self.feat, "nnz": g.nnz})
        fixed = {name: t.clone() if t.data_ptr() % 16 else t
                 for name, t in (("J.indptr", g.indptr),
                                 ("J.indices", g.indices))}
        self.launch = Launch(comp, sizes, fixed, ["X", "Y"], "S", (g.nnz,),
                             torch.device("cuda", index))

    def __call__(self, X, Y):
        return self.launch(X, Y)
