"""stir from Python: load stir programs and run them on NumPy arrays and
SciPy CSR matrices through libstir (ctypes; nothing to compile).

    import stir
    k = stir.load("examples/csrmm.stir")
    out = k.run(A=csr, B=dense)          # {"C": ndarray}
    C = stir.spmm(csr, dense)            # A @ B
    S = stir.sddmm(csr, X, Y)            # (X Y^T) masked by csr's pattern

See docs/python.md.  Errors of the library are raised as stir.StirError,
whose .diagnostics hold (file, line, col, severity, message) tuples.
"""
import ctypes
import os

from ._lib import lib, libc, Csr
from ._kernels import SPMM_SOURCE, SDDMM_SOURCE

__all__ = ["StirError", "Diagnostic", "Kernel", "load", "loads", "spmm",
           "sddmm", "Graph"]

_SEVERITY = {0: "note", 1: "warning", 2: "error"}

# stir_dtype values (include/stir/array.h) and their NumPy names
_DTYPES = {1: "int8", 2: "int32", 3: "int64", 4: "float16", 6: "float32",
           7: "float64"}
_FROM_NUMPY = {v: k for k, v in _DTYPES.items()}


class Diagnostic(tuple):
    """One diagnostic of the library: (file, line, col, severity, message);
    file is None and line/col 0 where it names no place in a file."""
    __slots__ = ()

    file = property(lambda self: self[0])
    line = property(lambda self: self[1])
    col = property(lambda self: self[2])
    severity = property(lambda self: self[3])
    message = property(lambda self: self[4])

    def __str__(self):
        where = ""
        if self[0]:
            where = "%s:%d:%d: " % (self[0], self[1], self[2]) if self[1] \
                else "%s: " % self[0]
        return "%s%s: %s" % (where, self[3], self[4])


class StirError(Exception):
    """An error reported by libstir.  str() is the library's gcc-style text
    (FILE:LINE:COL: error: MESSAGE, with the source line and a caret);
    .diagnostics is the list of Diagnostic tuples."""

    def __init__(self, text, diagnostics):
        Exception.__init__(self, text)
        self.diagnostics = diagnostics


def _raise_from(ctx, fallback):
    """Raise a StirError holding (and clearing) the diagnostics of ctx;
    fallback is the message when the context holds none."""
    diags = []
    for i in range(lib.stir_ctx_n_diagnostics(ctx)):
        d = lib.stir_ctx_get_diagnostic(ctx, i)
        loc = lib.stir_diag_get_loc(d)
        diags.append(Diagnostic((
            loc.file.decode() if loc.file else None, loc.line, loc.col,
            _SEVERITY.get(lib.stir_diag_get_severity(d), "error"),
            lib.stir_diag_get_message(d).decode())))
    text = fallback
    p = lib.stir_ctx_diagnostics_to_str(ctx)
    if p:
        s = ctypes.string_at(p).decode(errors="replace").rstrip("\n")
        libc.free(p)
        if s:
            text = s
    lib.stir_ctx_clear_diagnostics(ctx)
    raise StirError(text, diags)


def _numpy():
    import numpy
    return numpy


def _is_csr(x):
    """Whether x is a SciPy CSR matrix or array."""
    fmt = getattr(x, "format", None)
    return fmt == "csr" and hasattr(x, "indptr") and hasattr(x, "indices")


class Kernel(object):
    """A kernel of a stir program, with the module and context it lives
    in.  Made by stir.load or stir.loads."""

    def __init__(self, ctx, module, kernel, schedule, base, base_module):
        self._ctx = ctx
        self._module = module
        self._k = kernel
        self._schedule = schedule
        # the kernel as read (before the schedule): what arrays bind to
        self._base = base
        self._base_module = base_module
        self._gpu = None
        self.name = lib.stir_kernel_get_name(kernel).decode()

    def __del__(self):
        if getattr(self, "_gpu", None):
            self._gpu.close()
            self._gpu = None
        if getattr(self, "_base_module", None):
            lib.stir_module_free(self._base_module)
            self._base_module = None
        if getattr(self, "_schedule", None):
            lib.stir_schedule_free(self._schedule)
            self._schedule = None
        if getattr(self, "_module", None):
            lib.stir_module_free(self._module)
            self._module = None
        if getattr(self, "_ctx", None):
            lib.stir_ctx_free(self._ctx)
            self._ctx = None

    @property
    def stage(self):
        """The kernel's stage (1, 2 or 3)."""
        return lib.stir_kernel_get_stage(self._k)

    @property
    def array_names(self):
        """The names of every array the kernel takes, in argument order:
        axis structure arrays ("J.indptr", "J.indices"), then tensors."""
        n = lib.stir_kernel_get_array_names(self._k, 0, None)
        names = (ctypes.c_char_p * max(n, 1))()
        lib.stir_kernel_get_array_names(self._k, n, names)
        return [names[i].decode() for i in range(n)]

    def _bind(self, b, name, value):
        """Bind the NumPy array or SciPy CSR matrix "value" to array or
        tensor "name" of bindings b (a copy, converted to the kernel's
        type by the library)."""
        np = _numpy()
        if _is_csr(value):
            indptr = np.ascontiguousarray(value.indptr, dtype=np.int64)
            indices = np.ascontiguousarray(value.indices, dtype=np.int64)
            data = np.ascontiguousarray(value.data, dtype=np.float64)
            csr = Csr(value.shape[0], value.shape[1], len(indices),
                      indptr.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                      indices.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                      data.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
            if lib.stir_kernel_bind_csr(self._base, b, name.encode(),
                                        ctypes.byref(csr)) < 0:
                _raise_from(self._ctx, "cannot bind %s" % name)
            return
        if hasattr(value, "__cuda_array_interface__") or \
                type(value).__module__.startswith("torch"):
            raise TypeError("stir: array %s: torch and device arrays are "
                            "not taken by the host backend (pass NumPy "
                            "arrays)" % name)
        a = np.asarray(value)
        if a.dtype.name not in _FROM_NUMPY:
            raise TypeError("stir: array %s: element type %s is not one of "
                            "stir's (%s)" % (name, a.dtype.name,
                                             ", ".join(_DTYPES.values())))
        if a.ndim < 1 or a.ndim > 8:
            raise ValueError("stir: array %s: %d dimensions (1 to 8 taken)"
                             % (name, a.ndim))
        from ._fast import bind_numpy
        bind_numpy(self._ctx, self._base, b, name, np.ascontiguousarray(a),
                   _FROM_NUMPY[a.dtype.name])

    def _fetch(self, b, name):
        """The array "name" of bindings b as a new NumPy array of its
        natural shape."""
        np = _numpy()
        arr = lib.stir_bindings_get_array(b, name.encode())
        dt = _DTYPES.get(lib.stir_array_get_dtype(arr))
        if dt is None:
            raise TypeError("stir: array %s: its element type has no NumPy "
                            "counterpart" % name)
        n = lib.stir_array_get_len(arr)
        out = np.empty(n, dtype=dt)
        if n:
            ctypes.memmove(out.ctypes.data, lib.stir_array_get_data(arr),
                           out.nbytes)
        ndim = ctypes.c_int(0)
        shape = (ctypes.c_int64 * 8)()
        if lib.stir_kernel_get_array_shape(self._base, b, name.encode(),
                                           ctypes.byref(ndim), shape) == 0:
            dims = tuple(shape[i] for i in range(ndim.value))
            if int(np.prod(dims)) == n:
                out = out.reshape(dims)
        return out

    def run(self, backend="interp", sizes=None, **arrays):
        """Run the kernel on the host arrays given by name (NumPy arrays;
        a SciPy CSR matrix for a sparse matrix tensor binds its structure
        and values).  Arrays whose name is not an identifier ("J.indptr")
        are passed with **{"J.indptr": ...}.  sizes: a dict of size
        parameters not implied by the arrays.  Returns a dict name ->
        NumPy array of the arrays the kernel writes that were not passed
        (zero-filled first, as in stirc run); a writable C-contiguous
        NumPy array or CSR matrix passed for an array the kernel writes
        receives the result in place when its element type is the
        kernel's.  backend: "interp" (the reference interpreter) or
        "cuda": torch CUDA tensors, every size in "sizes" (see
        docs/python.md); the results are new torch tensors."""
        if backend == "cuda":
            from . import _cuda
            if self._gpu is None:
                self._gpu = _cuda.GpuKernel(self)
            return self._gpu.run(sizes or {}, arrays)
        if backend != "interp":
            raise ValueError("stir: backend %r: 'interp' or 'cuda'"
                             % (backend,))
        np = _numpy()
        b = lib.stir_bindings_alloc()
        if not b:
            raise MemoryError("stir: out of memory")
        try:
            for name, v in (sizes or {}).items():
                if lib.stir_bindings_set_size(b, name.encode(),
                                              int(v)) < 0:
                    raise MemoryError("stir: out of memory")
            if self._schedule and \
                    lib.stir_schedule_bind_sizes(self._schedule, b) < 0:
                _raise_from(self._ctx, "cannot bind the schedule's sizes")
            for name, v in arrays.items():
                self._bind(b, name, v)
            given = set(lib.stir_bindings_get_array_name(b, i).decode()
                        for i in range(lib.stir_bindings_n_arrays(b)))
            if lib.stir_kernel_bind_outputs(self._base, b) < 0:
                _raise_from(self._ctx, "cannot bind the outputs")
            if self._schedule and lib.stir_schedule_bind_formats(
                    self._schedule, self._base, b) < 0:
                _raise_from(self._ctx, "cannot build the formats")
            if lib.stir_kernel_interpret(self._k, b) < 0:
                _raise_from(self._ctx, "the run failed")
            out = {}
            names = self.array_names
            for i in range(lib.stir_bindings_n_arrays(b)):
                name = lib.stir_bindings_get_array_name(b, i).decode()
                if name not in names:
                    continue
                if name not in given:
                    out[name] = self._fetch(b, name)
                    continue
                v = arrays.get(name)
                if _is_csr(v):
                    v = v.data
                if isinstance(v, np.ndarray) and v.flags.writeable and \
                        v.flags.c_contiguous:
                    r = self._fetch(b, name)
                    if r.dtype == v.dtype and r.size == v.size:
                        v.reshape(-1)[...] = r.reshape(-1)
            return out
        finally:
            lib.stir_bindings_free(b)


def _load(ctx, module, schedule, kernel, what):
    """The Kernel of module (read from "what"): "kernel" by name, the
    schedule file's kernel, or the only one; schedule applied."""
    s = None
    base, base_module = None, None
    try:
        if schedule is not None:
            s = lib.stir_schedule_read_from_file(
                ctx, os.fsencode(schedule))
            if not s:
                _raise_from(ctx, "cannot read %s" % schedule)
            k = lib.stir_schedule_find_kernel(s, module)
            if not k:
                _raise_from(ctx, "%s: no kernel of the schedule" % what)
            if kernel is not None and kernel != \
                    lib.stir_kernel_get_name(k).decode():
                raise ValueError("stir: kernel %r, but %s schedules "
                                 "kernel %r" % (kernel, schedule,
                                 lib.stir_kernel_get_name(k).decode()))
            owner = ctypes.c_void_p()
            base = lib.stir_kernel_copy(k, ctypes.byref(owner))
            if not base:
                _raise_from(ctx, "out of memory")
            base_module = owner.value
            stage = max(lib.stir_schedule_get_last_stage(s),
                        lib.stir_kernel_get_stage(k))
            if lib.stir_schedule_apply(s, k, stage) < 0:
                _raise_from(ctx, "cannot apply %s" % schedule)
        elif kernel is not None:
            k = lib.stir_module_find_kernel(module, kernel.encode())
            if not k:
                raise ValueError("stir: %s has no kernel %r" % (what,
                                                                kernel))
        else:
            n = lib.stir_module_n_kernels(module)
            if n != 1:
                raise ValueError("stir: %s has %d kernels: name one with "
                                 "kernel=" % (what, n))
            k = lib.stir_module_get_kernel(module, 0)
    except BaseException:
        if base_module:
            lib.stir_module_free(base_module)
        if s:
            lib.stir_schedule_free(s)
        lib.stir_module_free(module)
        lib.stir_ctx_free(ctx)
        raise
    return Kernel(ctx, module, k, s, base or k, base_module)


def load(path, schedule=None, kernel=None):
    """Read the stir program at "path" and return its kernel (the one named
    "kernel", the one schedule file "schedule" is for, or the only one),
    with the schedule's steps applied.  Raises StirError with the
    program's diagnostics (file:line:col) when it does not read."""
    ctx = lib.stir_ctx_alloc()
    if not ctx:
        raise MemoryError("stir: out of memory")
    m = lib.stir_module_read_from_file(ctx, os.fsencode(path))
    if not m:
        try:
            _raise_from(ctx, "cannot read %s" % path)
        finally:
            lib.stir_ctx_free(ctx)
    return _load(ctx, m, schedule, kernel, str(path))


def loads(text, name="<string>", kernel=None):
    """As load, for a program given as text; "name" names it in
    diagnostics."""
    ctx = lib.stir_ctx_alloc()
    if not ctx:
        raise MemoryError("stir: out of memory")
    data = text.encode()
    m = lib.stir_module_read_from_mem(ctx, name.encode(), data, len(data))
    if not m:
        try:
            _raise_from(ctx, "cannot read %s" % name)
        finally:
            lib.stir_ctx_free(ctx)
    return _load(ctx, m, None, kernel, name)


class Graph(object):
    """A sparse matrix prepared for repeated stir.spmm / stir.sddmm calls:
    it keeps the matrix (float32 values; on the GPU int32 structure, and
    its transpose once a backward needs it) and the kernels chosen for
    it.  On the GPU (a torch tensor) these are the library's recipes,
    prepared once per feature size (python/stir/_fast.py): the hybrid ELL
    SpMM of the tuning record's entry for the graph, the feature size and
    the GPU (as 'stirc run' takes it) or else the cost model's pick, with
    its format built once, for A and for A's transpose, and the SDDMM the
    SDDMM cost model picks.  tune=True (or a number: the search's budget
    in seconds, 'stirc tune --budget-s') runs the measured search ('stirc
    tune', which stores its pick in the record) for each SpMM and SDDMM
    the record has no measured entry for, when it is prepared (its first
    call at a feature size, or prepare() for the SpMM; the SDDMM's search
    covers both SDDMM programs, the budget shared).  kernel_info() says
    what runs.  The
    graph's own values are constants; stir.spmm(graph, B, values=v) runs
    the same kernel with other values (gathered into the format on the
    device), differentiable in v.  For a SciPy matrix, the CSR kernels of
    python/stir/_kernels.py run on the interpreter (docs/python.md)."""

    def __init__(self, A, tune=False):
        if not (tune is True or tune is False or
                (isinstance(tune, (int, float)) and tune > 0)):
            raise ValueError("stir.Graph: tune=%r: True, False or a budget "
                             "in seconds (> 0)" % (tune,))
        self._torch = None
        self._call = None
        self._spmm = None
        self._sddmm = None
        if _is_torch(A):
            from . import _torch
            self._torch = _torch.TorchGraph.from_torch(A, prepared=True,
                                                       tune=tune)
            self._graph_spmm = _torch.graph_spmm
            self._call = _torch.graph_call(self._torch)
            self.shape = self._torch.shape
            self.csr = None
            return
        np = _numpy()
        if isinstance(A, Graph):
            A = A.csr
        if not _is_csr(A):
            raise TypeError("stir: a Graph is made from a SciPy CSR matrix "
                            "or a torch sparse CSR tensor")
        self.csr = A.astype(np.float32)
        self.shape = A.shape

    @property
    def values(self):
        """The graph's values in its CSR order (a CUDA tensor; NumPy for a
        SciPy graph): the order values= takes."""
        return self._torch.values if self._torch is not None else \
            self.csr.data

    def prepare(self, feat, transpose=False):
        """Prepare the GPU SpMM at "feat" features now, and its
        transpose's (the backward's) when "transpose": with tune=True,
        the measured search runs here for what the record lacks."""
        if self._torch is None:
            raise ValueError("stir: prepare is for a Graph of a torch "
                             "tensor")
        self._torch.prepare(int(feat), transpose)

    def kernel_info(self):
        """What a Graph of a torch tensor runs, for the kernels prepared so
        far: {"spmm": {F: {"candidate", "describe", "how"}}, "spmm_t":
        (the transpose's, for the backward), "sddmm": ...}; "how" is
        "measured T ms on GPU" (the tuning record's measured entry),
        "record: model" or "cost model"."""
        if self._torch is None:
            return {"spmm": {}, "spmm_t": {}, "sddmm": {}}
        return self._torch.kernel_info()

    def spmm(self, B):
        """self @ B for a dense NumPy matrix B (float32 result); for a
        Graph of a torch tensor, stir.spmm(self, B)."""
        if self._torch is not None:
            return spmm(self, B)
        np = _numpy()
        B = np.asarray(B)
        if B.ndim != 2 or B.shape[0] != self.shape[1]:
            raise ValueError("stir.spmm: B has shape %s; a (%d, F) matrix "
                             "is needed" % (B.shape, self.shape[1]))
        if self._spmm is None:
            self._spmm = loads(SPMM_SOURCE, "<stir.spmm>")
        return self._spmm.run(A=self.csr, B=B.astype(np.float32),
                              sizes={"n": self.shape[1]})["C"]

    def sddmm(self, X, Y):
        """(X Y^T) sampled at self's non-zeros, as a CSR matrix of self's
        pattern (float32 values); for a Graph of a torch tensor,
        stir.sddmm(self, X, Y)."""
        if self._torch is not None:
            return sddmm(self, X, Y)
        np = _numpy()
        X = np.asarray(X)
        Y = np.asarray(Y)
        if X.ndim != 2 or Y.ndim != 2 or X.shape[0] != self.shape[0] or \
                Y.shape[0] != self.shape[1] or X.shape[1] != Y.shape[1]:
            raise ValueError("stir.sddmm: X %s and Y %s do not fit a %s "
                             "matrix" % (X.shape, Y.shape, self.shape))
        if self._sddmm is None:
            self._sddmm = loads(SDDMM_SOURCE, "<stir.sddmm>")
        S = self.csr.copy()
        S.data = np.zeros_like(S.data)
        self._sddmm.run(S=S, X=X.astype(np.float32), Y=Y.astype(np.float32))
        return S


def _is_torch(x):
    """Whether x is a torch tensor (without importing torch)."""
    return type(x).__module__.startswith("torch")


def spmm(A, B, values=None):
    """A @ B.  On the host: A a SciPy CSR matrix (or a stir.Graph of one),
    B a dense NumPy matrix; a float32 NumPy matrix.  On the GPU: A a
    torch.sparse_csr_tensor (or a stir.Graph of one), B a CUDA tensor; a
    float32 CUDA tensor, differentiable in B and in A's values (for a
    Graph: in B, and in "values" when given: A's structure with these
    nnz values in the Graph's CSR order, e.g. stir.sddmm's output).  A
    sparse CSR tensor gets a Graph's fast kernels through a Graph cached
    on it (made on its first call, gone with the tensor)."""
    if type(A) is Graph and values is None:
        call = A._call
        if call is not None:
            # a stir.Graph on the GPU: _torch.graph_call, its fewest steps
            return call(B)
    if isinstance(A, Graph):
        if A._torch is not None:
            if values is None:
                return A._graph_spmm(A._torch, B)
            return A._graph_spmm(A._torch, B, values)
        if values is not None:
            g = Graph(A.csr.copy())
            g.csr.data = _numpy().asarray(values, dtype="float32").copy()
            if g.csr.data.shape != A.csr.data.shape:
                raise ValueError("stir.spmm: %d values for %d non-zeros"
                                 % (g.csr.data.size, A.csr.nnz))
            return g.spmm(B)
        return A.spmm(B)
    if values is not None:
        raise ValueError("stir.spmm: values= is for a stir.Graph")
    if _is_torch(A):
        from . import _torch
        return _torch.sparse_spmm(A, B)
    return Graph(A).spmm(B)


def sddmm(A, X, Y):
    """SDDMM: the values of (X Y^T) at A's non-zeros.  On the host (A a
    SciPy CSR matrix or a Graph of one): a float32 CSR matrix with A's
    pattern.  On the GPU (A a torch sparse CSR tensor or a Graph of one):
    a float32 tensor of A's nnz values in A's order, differentiable in X
    and Y."""
    if isinstance(A, Graph) and A._torch is None:
        return A.sddmm(X, Y)
    if not _is_torch(A) and not isinstance(A, Graph):
        return Graph(A).sddmm(X, Y)
    from . import _torch
    g = A._torch if isinstance(A, Graph) else _torch.sparse_graph(A)
    return _torch.SDDMM.apply(g, X, Y)
