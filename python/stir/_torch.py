"""stir.spmm / stir.sddmm / stir.Graph on torch CUDA tensors, and their
torch.autograd.Function wrappers.  A stir.Graph's graph is "prepared":
its SpMM is the hybrid ELL kernel of the tuning record or the library's
cost model and its SDDMM the SDDMM model's pick, each made once per
feature size (_fast.py), for A and, in the backward, for A's transpose;
values other than the graph's own are gathered into the hybrid format on
the device.  A sparse CSR tensor passed directly takes the same kernels
through a Graph cached on the tensor (sparse_graph); a COO one, the CSR
programs of _kernels.py under the default GPU schedule (docs/python.md)."""
import weakref

import torch

from ._kernels import SPMM_SOURCE, SDDMM_SOURCE

_KERNELS = {}
_F32 = torch.float32
_CSR = torch.sparse_csr


def _kernel(which):
    """The shared Kernel of "spmm" or "sddmm" (loaded once)."""
    k = _KERNELS.get(which)
    if k is None:
        from . import loads
        k = loads(SPMM_SOURCE if which == "spmm" else SDDMM_SOURCE,
                  "<stir.%s>" % which)
        _KERNELS[which] = k
    return k


class TorchGraph(object):
    """A sparse matrix on the GPU in the form the kernels take: int32
    indptr and indices, float32 values; its transpose made on first use
    (for SpMM's backward), with the permutation of the values."""

    def __init__(self, indptr, indices, values, shape, prepared=False,
                 tune=False, src=None):
        self.indptr = indptr.to(torch.int32).contiguous()
        self.indices = indices.to(torch.int32).contiguous()
        self.values = values.to(torch.float32).contiguous()
        self.shape = (int(shape[0]), int(shape[1]))
        self.nnz = int(self.indices.numel())
        self._t = None
        self._perm = None
        # for a transpose: its values are the parent's values[src]
        self.src = src
        self.tune = tune
        # for a graph cached on a sparse tensor (sparse_graph): a weak
        # reference to it, the owner of the values each call passes
        self.anchor = None
        # a stir.Graph's: the fast kernels, per feature size (_fast.py)
        self.prepared = prepared and self.nnz > 0 and \
            self.shape[0] > 0 and self.shape[1] > 0
        self.index = self.indices.get_device()
        self._fast_spmm = {}
        self._fast_sddmm = {}
        # {feat: the call of the prepared SpMM} while it holds the graph's
        # own values (GpuSpmm keeps it): graph_call's way in; _fast1g the
        # same for B requiring grad (GpuSpmm.fast_apply)
        self._fast1 = {}
        self._fast1g = {}
        self._n = self.shape[1]

    @classmethod
    def from_torch(cls, A, prepared=False, tune=False):
        """From a torch.sparse_csr_tensor (or a sparse COO one) on the
        GPU; "prepared" for a stir.Graph (the fast kernels), "tune" for
        the measured search of each SpMM it prepares."""
        if A.layout == torch.sparse_coo:
            A = A.coalesce().to_sparse_csr()
        if A.layout != torch.sparse_csr:
            raise TypeError("stir: a sparse CSR (or COO) tensor is needed")
        if not A.is_cuda:
            raise TypeError("stir: the tensor must be on a CUDA device")
        return cls(A.crow_indices(), A.col_indices(), A.values(), A.shape,
                   prepared, tune)

    def transpose(self):
        """(A^T as a TorchGraph, perm): A^T's values are
        A.values[perm]."""
        if self._t is None:
            m, n = self.shape
            rows = torch.repeat_interleave(
                torch.arange(m, device=self.indices.device, dtype=torch.int64),
                (self.indptr[1:] - self.indptr[:-1]).to(torch.int64))
            cols = self.indices.to(torch.int64)
            key = cols * m + rows
            perm = torch.argsort(key, stable=True)
            counts = torch.bincount(cols, minlength=n)
            indptr = torch.zeros(n + 1, dtype=torch.int64,
                                 device=self.indices.device)
            indptr[1:] = torch.cumsum(counts, 0)
            self._perm = perm
            self._t = TorchGraph(indptr, rows[perm], self.values[perm],
                                 (n, m), self.prepared, self.tune, perm)
            self._t.anchor = self.anchor
        return self._t, self._perm

    def spmm(self, B, values=None, order_src=False, owner=None):
        """self @ B (B a float32 CUDA tensor of self.shape[1] rows), with
        self's values or "values" (a tensor of nnz values in self's CSR
        order, or for a transpose with order_src, in its parent's; "owner"
        a weak reference to what keeps their memory, when not values
        itself: _fast.GpuSpmm.set_values)."""
        s = B.shape
        if self.prepared and len(s) == 2:
            fast = self._fast_spmm.get(s[1])
            if fast is not None and s[0] == self._n and \
                    B.dtype is _F32 and B.is_contiguous() and \
                    B.get_device() == self.index:
                p = B.data_ptr()
                if not p % 16:
                    if values is None and not fast.dirty:
                        return fast.call1(B, p)
                    return fast(B, values, order_src, owner)
        if B.dim() != 2 or B.shape[0] != self.shape[1]:
            raise ValueError("stir.spmm: B has shape %s; a (%d, F) matrix "
                             "is needed" % (tuple(B.shape), self.shape[1]))
        if not B.is_cuda or B.get_device() != self.index:
            raise ValueError("stir.spmm: B is on %s, the graph on cuda:%d"
                             % (B.device, self.index))
        if values is not None and (values.numel() != self.nnz or
                                   not values.is_cuda or
                                   values.get_device() != self.index):
            raise ValueError("stir.spmm: values: %d on %s; the graph's %d "
                             "non-zeros on cuda:%d are needed"
                             % (values.numel(), values.device, self.nnz,
                                self.index))
        B = B.to(torch.float32).contiguous()
        if self.prepared and B.shape[1] > 0:
            if B.data_ptr() % 16:
                B = B.clone()
            fast = self._fast_spmm.get(B.shape[1])
            if fast is None:
                from ._fast import GpuSpmm
                fast = GpuSpmm(self, B.shape[1], self.tune, self.src)
                self._fast_spmm[B.shape[1]] = fast
            return fast(B, values, order_src, owner)
        if values is None:
            v = self.values
        else:
            v = values.detach().reshape(-1).to(torch.float32)
            v = (v[self.src] if order_src else v).contiguous()
        out = _kernel("spmm").run(
            backend="cuda",
            sizes={"m": self.shape[0], "n": self.shape[1],
                   "feat": int(B.shape[1]), "nnz": self.nnz},
            **{"J.indptr": self.indptr, "J.indices": self.indices,
               "A": v, "B": B})
        return out["C"]

    def kernel_info(self):
        """{feat: description} of the kernels prepared so far: "spmm",
        "spmm_t" (the transpose's) and "sddmm", each {F: {"candidate",
        "describe", "how"}}."""
        def spmm_info(g):
            return {f: {"candidate": k.candidate, "describe": k.describe,
                        "how": k.how} for f, k in
                    sorted(g._fast_spmm.items())}
        out = {"spmm": spmm_info(self),
               "spmm_t": spmm_info(self._t) if self._t is not None else {},
               "sddmm": {f: {"candidate": k.candidate,
                             "describe": k.describe,
                             "how": k.how}
                         for f, k in sorted(self._fast_sddmm.items())}}
        return out

    def prepare(self, feat, transpose=False):
        """Prepare the SpMM at "feat" features now (and the transpose's,
        when "transpose"): with self.tune, the measured search runs here
        for what the record lacks."""
        from ._fast import GpuSpmm
        graphs = [self] + ([self.transpose()[0]] if transpose else [])
        for g in graphs:
            if g.prepared and feat > 0 and feat not in g._fast_spmm:
                g._fast_spmm[feat] = GpuSpmm(g, feat, g.tune, g.src)

    def sddmm(self, X, Y):
        """The values of X Y^T at self's non-zeros (a float32 tensor of
        nnz entries, in self's order)."""
        if X.dim() != 2 or Y.dim() != 2 or X.shape[0] != self.shape[0] or \
                Y.shape[0] != self.shape[1] or X.shape[1] != Y.shape[1]:
            raise ValueError("stir.sddmm: X %s and Y %s do not fit a %s "
                             "matrix" % (tuple(X.shape), tuple(Y.shape),
                                         self.shape))
        for name, T in (("X", X), ("Y", Y)):
            if not T.is_cuda or T.get_device() != self.index:
                raise ValueError("stir.sddmm: %s is on %s, the graph on "
                                 "cuda:%d" % (name, T.device, self.index))
        feat = int(X.shape[1])
        if self.prepared and feat > 0:
            X = X.to(torch.float32).contiguous()
            Y = Y.to(torch.float32).contiguous()
            X = X.clone() if X.data_ptr() % 16 else X
            Y = Y.clone() if Y.data_ptr() % 16 else Y
            fast = self._fast_sddmm.get(feat)
            if fast is None:
                from ._fast import GpuSddmm
                fast = GpuSddmm(self, feat, self.tune)
                self._fast_sddmm[feat] = fast
            return fast(X, Y)
        out = _kernel("sddmm").run(
            backend="cuda",
            sizes={"m": self.shape[0], "n": self.shape[1],
                   "feat": int(X.shape[1]), "nnz": self.nnz},
            **{"J.indptr": self.indptr, "J.indices": self.indices,
               "X": X.to(torch.float32).contiguous(),
               "Y": Y.to(torch.float32).contiguous()})
        return out["S"]


# the prepared graphs of sparse CSR tensors passed to stir.spmm and
# stir.sddmm directly: {id(A): (weak reference to A, A's version and
# structure signature when last looked at, TorchGraph, its graph_call,
# (address, version) of A's values when the TorchGraph was made from
# them)}; an entry goes when its tensor does
_SPARSE_GRAPHS = {}


def _forget(key, ref):
    """The weak reference callback of _SPARSE_GRAPHS: drop entry "key"
    when it is still the one of that reference."""
    ent = _SPARSE_GRAPHS.get(key)
    if ent is not None and ent[0] is ref:
        del _SPARSE_GRAPHS[key]


def sparse_graph(A):
    """The TorchGraph of a torch sparse tensor A passed to stir.spmm or
    stir.sddmm itself (no stir.Graph).  A CSR tensor's is prepared (the
    fast kernels of a stir.Graph) and cached on A's identity: made on the
    first call, taken again while A lives and its structure is the one it
    was made from (the addresses of its crow and col indices, nnz and
    shape, looked at again only when A's version changed); A's values are
    not part of it: each call passes them, gathered into the format only
    when they changed.  The entry holds A by a weak reference and keeps
    nothing of A's (its arrays are copies), so it and its device memory
    go with A.  So a loop calling stir.spmm with the same A builds the
    format and compiles once.  A COO tensor is converted to CSR on each
    call and takes the CSR programs under the default GPU schedule."""
    if A.layout != torch.sparse_csr:
        return TorchGraph.from_torch(A)
    return _sparse_entry(A)[3]


def _sparse_entry(A):
    """The _SPARSE_GRAPHS entry of sparse CSR tensor A (sparse_graph),
    made or taken again."""
    key = id(A)
    ent = _SPARSE_GRAPHS.get(key)
    try:
        version = A._version
    except (RuntimeError, NotImplementedError, AttributeError):
        # a torch without versions of sparse tensors: the structure is
        # looked at on every call
        version = None
    if ent is not None and version is not None and ent[0]() is A and \
            ent[1] == version:
        return ent
    crow = A.crow_indices()
    col = A.col_indices()
    if not A.is_cuda:
        raise TypeError("stir: the tensor must be on a CUDA device")
    sig = (crow.data_ptr(), col.data_ptr(), int(col.numel()), tuple(A.shape))
    if ent is not None and ent[0]() is A and ent[2] == sig:
        ent = (ent[0], version, sig) + ent[3:]
        _SPARSE_GRAPHS[key] = ent
        return ent
    v = A.values()
    g = TorchGraph(crow.to(torch.int32, copy=True),
                   col.to(torch.int32, copy=True),
                   v.detach().to(torch.float32, copy=True),
                   A.shape, prepared=True)
    ref = weakref.ref(A, lambda r, key=key: _forget(key, r))
    g.anchor = ref
    ent = (ref, version, sig, g, graph_call(g), (v.data_ptr(), v._version))
    _SPARSE_GRAPHS[key] = ent
    return ent


def sparse_spmm(A, B):
    """stir.spmm(A, B) for a torch sparse tensor A: on sparse_graph(A)
    with A's values (differentiable in them and in B).  While A's values
    are those its graph was made from (same memory, same version: not
    changed in place) and need no gradient, they are the graph's own:
    the call of a stir.Graph (graph_call, no gather; through the
    kernel's autograd call when B needs a gradient)."""
    if A.layout is _CSR:
        ent = _sparse_entry(A)
        v = A.values()
        made = ent[5]
        if not v.requires_grad and v._version == made[1] and \
                v.data_ptr() == made[0]:
            return ent[4](B)
        g = ent[3]
    else:
        g = TorchGraph.from_torch(A)
        v = A.values()
    if _grad_enabled() and (B.requires_grad or v.requires_grad):
        if _functorch_active():
            return SpMM.apply(g, v, B, g.anchor)
        return _spmm_apply(g, v, B, g.anchor)
    return g.spmm(B, v, owner=g.anchor)


def graph_call(g):
    """stir.spmm(G, B) of a stir.Graph G with its own values, as a
    closure over its TorchGraph g's fields (the Graph keeps it: fewer
    lookups a call): for a B the prepared kernel takes as it is (float32,
    2-D of g's column count rows and a feature size prepared, contiguous,
    on g's device, 16-byte aligned), the kernel's call at once
    (GpuSpmm.call1, found in g._fast1), through the kernel's autograd
    call when B needs a gradient (GpuSpmm.fast_apply, found in
    g._fast1g, made on the first such call); any other B, or under a
    functorch transform, through graph_spmm (which converts, prepares or
    refuses it)."""
    n, index, get, f32 = g._n, g.index, g._fast1.get, _F32
    getg, kernels = g._fast1g.get, g._fast_spmm

    def call(B):
        s = B.shape
        if len(s) == 2 and s[0] == n and B.dtype is f32:
            f = get(s[1])
            if f is not None and B.is_contiguous() and \
                    B.get_device() == index:
                p = B.data_ptr()
                if not p % 16:
                    if not B.requires_grad or not _grad_enabled():
                        return f(B, p)
                    if not _functorch_active():
                        a = getg(s[1])
                        if a is None:
                            a = kernels[s[1]].fast_apply()
                        return a(B, p)
        return graph_spmm(g, B)
    return call


def graph_spmm(g, B, values=None):
    """stir.spmm of a stir.Graph's TorchGraph g, with its values or
    "values" (nnz, in g's CSR order): the prepared kernel, through
    GraphSpMM when B needs a gradient, SpMM when values do."""
    if values is None:
        if B.requires_grad and _grad_enabled():
            if _functorch_active():
                return GraphSpMM.apply(g, B)
            return _graph_spmm_apply(g, B)
        return g.spmm(B)
    if _grad_enabled() and (B.requires_grad or values.requires_grad):
        if _functorch_active():
            return SpMM.apply(g, values, B, None)
        return _spmm_apply(g, values, B, None)
    return g.spmm(B, values)


class GraphSpMM(torch.autograd.Function):
    """C = A B on a prepared graph g (its values are constants): backward
    dB = A^T dC, the prepared SpMM of g's transpose."""

    @staticmethod
    def forward(ctx, g, B):
        ctx.g = g
        return g.spmm(B)

    @staticmethod
    def backward(ctx, dC):
        return None, ctx.g.transpose()[0].spmm(dC.contiguous())


def _raw_apply(cls):
    """cls.apply without the Python layer of torch.autograd.Function.apply
    (what it adds is for functorch transforms, which the caller checks
    first with _functorch_active, and for setup_context, which these
    Functions do not define): torch._C._FunctionBase.apply bound to cls;
    cls.apply where this torch has no such method."""
    base = getattr(torch._C, "_FunctionBase", None)
    raw = base.__dict__.get("apply") if base is not None else None
    if raw is None or not hasattr(raw, "__get__") or \
            "setup_context" in cls.__dict__:
        return cls.apply
    return raw.__get__(None, cls)


def fast_function(g, kernel):
    """GraphSpMM for "kernel", a prepared kernel (_fast.GpuSpmm) of graph
    g, as torch's C apply of a Function class made for it: apply(B, p),
    B and its address p checked by graph_call.  Its forward is the
    kernel's call itself (Launch.fast1(forward=True)), which keeps on ctx
    what the backward needs: the transpose's call (graph_call of g's
    transpose, made here: the first gradient needs it anyway; under
    create_graph it is differentiable), so that a pending backward keeps
    the transpose alive and nothing else does.  A class per kernel, so
    that apply takes two arguments and the forward is one Python frame.
    A class lives in a reference cycle (freed by the cyclic collector,
    not at once): when the kernel goes, its forward is replaced
    (_kernel_gone), so that the class no longer keeps the kernel's
    memory or the transpose."""
    tcall = graph_call(g.transpose()[0])

    class GraphSpMMKernel(torch.autograd.Function):
        """C = A B on one prepared kernel of a graph (fast_function)."""
        forward = staticmethod(kernel.launch.fast1(forward=True,
                                                   keep=tcall))
        backward = staticmethod(_kernel_backward)
    weakref.finalize(kernel, _kernel_gone, GraphSpMMKernel).atexit = False
    return _raw_apply(GraphSpMMKernel)


def _kernel_backward(ctx, dC):
    """The backward of fast_function's classes: dB = A^T dC by the
    transpose's call the forward kept (ctx.k)."""
    return ctx.k(dC), None


def _kernel_gone(cls):
    """Drop the forward of fast_function's class "cls" (its kernel is
    gone): what it kept goes with it."""
    cls.forward = staticmethod(_gone_forward)


def _gone_forward(ctx, B, p):
    """The forward of a fast_function class whose kernel is gone (no call
    reaches it: the graph held the only way in)."""
    raise RuntimeError("stir.spmm: the kernel of this call is gone")


_grad_enabled = torch.is_grad_enabled
_functorch_active = getattr(torch._C, "_are_functorch_transforms_active",
                            lambda: False)
_graph_spmm_apply = _raw_apply(GraphSpMM)


class SpMM(torch.autograd.Function):
    """C = A B with A's values "values" on graph g ("owner": a weak
    reference to what keeps the values' memory, or None; TorchGraph.spmm):
    backward gives dB = A^T dC (SpMM on the transpose) and d values =
    SDDMM(A, dC, B)."""

    @staticmethod
    def forward(ctx, g, values, B, owner):
        ctx.g = g
        ctx.owner = owner
        ctx.save_for_backward(values, B)
        return g.spmm(B, values, owner=owner)

    @staticmethod
    def backward(ctx, dC):
        values, B = ctx.saved_tensors
        g = ctx.g
        dC = dC.contiguous()
        dvalues = dB = None
        if ctx.needs_input_grad[2]:
            t, _ = g.transpose()
            dB = t.spmm(dC, values, order_src=True, owner=ctx.owner)
        if ctx.needs_input_grad[1]:
            dvalues = g.sddmm(dC, B)
        return None, dvalues, dB, None


_spmm_apply = _raw_apply(SpMM)


class SDDMM(torch.autograd.Function):
    """s = (X Y^T) at graph g's non-zeros: ds -> dX = S dY... as SpMMs with
    S's values ds: dX = S Y, dY = S^T X."""

    @staticmethod
    def forward(ctx, g, X, Y):
        ctx.g = g
        ctx.save_for_backward(X, Y)
        return g.sddmm(X, Y)

    @staticmethod
    def backward(ctx, ds):
        X, Y = ctx.saved_tensors
        g = ctx.g
        ds = ds.contiguous()
        dX = dY = None
        if ctx.needs_input_grad[1]:
            dX = g.spmm(Y, ds)
        if ctx.needs_input_grad[2]:
            t, _ = g.transpose()
            dY = t.spmm(X, ds, order_src=True)
        return None, dX, dY
