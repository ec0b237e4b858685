"""Host-time probes shared by bench/python_ab.py and bench/python_spmm.py:
a graph on which a kernel costs nothing, the host time per call of calls
queued back to back, and the autograd Functions and torch calls that
measure what torch costs on the host (the floor stir's calls stand on)."""
import time

import torch

# Calls of a probe before it is timed.
WARM = 20


def tiny():
    """A 2 x 2 sparse CSR tensor with two entries on the GPU (a graph on
    which the kernel costs nothing: a call's time is the host's), and its
    features B (2 x 4 ones), as given and requiring grad: (Ts, B, Bg)."""
    Ts = torch.sparse_csr_tensor(torch.tensor([0, 1, 2]),
                                 torch.tensor([1, 0]), torch.ones(2),
                                 (2, 2)).cuda()
    B = torch.ones(2, 4, device="cuda")
    return Ts, B, B.clone().requires_grad_()


def host_us(fn, n):
    """Host microseconds per call of n calls of fn() queued back to back,
    after WARM calls and a synchronization; the synchronization after
    them is not timed (the GPU catches up afterwards)."""
    for _ in range(WARM):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter_ns()
    for _ in range(n):
        fn()
    t1 = time.perf_counter_ns()
    torch.cuda.synchronize()
    return (t1 - t0) / n / 1e3


def c_apply(cls):
    """torch's C apply (torch._C._FunctionBase.apply) bound to Function
    cls, without the Python layer of Function.apply; cls.apply where this
    torch has none."""
    base = getattr(torch._C, "_FunctionBase", None)
    raw = base.__dict__.get("apply") if base is not None else None
    if raw is None or not hasattr(raw, "__get__"):
        return cls.apply
    return raw.__get__(None, cls)


class Kept(torch.autograd.Function):
    """A Function whose forward returns a view of a tensor it is given
    (kept): what torch's C apply costs with no allocation."""

    @staticmethod
    def forward(ctx, kept, B):
        return kept.view_as(kept)

    @staticmethod
    def backward(ctx, dC):
        return None, dC


class KeptCtx(torch.autograd.Function):
    """Kept with one attribute set on ctx, as stir's forward keeps the
    transpose's call there: KeptCtx less Kept is the ctx bookkeeping."""

    @staticmethod
    def forward(ctx, kept, B):
        ctx.k = kept
        return kept.view_as(kept)

    @staticmethod
    def backward(ctx, dC):
        return None, dC


def nothing(*args):
    """A Python function that does nothing: the cost of a call, to take
    off rows that time a piece of a call inside a function."""
    return None


class Empty(torch.autograd.Function):
    """An empty custom Function: its forward returns a view of its input
    (what torch's apply costs with no work at all)."""

    @staticmethod
    def forward(ctx, B):
        return B.view_as(B)

    @staticmethod
    def backward(ctx, dC):
        return dC


class Lean(torch.autograd.Function):
    """A Function whose forward is the Graph's kernel call alone (f:
    GpuSpmm.call1, no checks)."""

    @staticmethod
    def forward(ctx, f, B):
        return f(B, B.data_ptr())

    @staticmethod
    def backward(ctx, dC):
        return None, dC


# The names of torch_rows' rows that the breakdowns use.
SPARSE_MM = "torch.sparse.mm(A, B)"
SPARSE_MM_GRAD = "torch.sparse.mm(A, B), B requires grad"
FLOOR = "empty Function, torch's C apply"


def torch_rows(Ts, B, Bg):
    """The probes of torch alone on sparse tensor Ts and features B (Bg:
    B requiring grad), as (name, fn): torch.sparse.mm without and with
    grad, and the empty Function through Function.apply and through
    torch's C apply (FLOOR: what any autograd op costs on this host)."""
    torch.sparse.mm(Ts, Bg).sum().backward()
    ea = c_apply(Empty)
    return [(SPARSE_MM, lambda: torch.sparse.mm(Ts, B)),
            (SPARSE_MM_GRAD, lambda: torch.sparse.mm(Ts, Bg)),
            ("empty Function, Function.apply (Python)",
             lambda: Empty.apply(Bg)),
            (FLOOR, lambda: ea(Bg))]
