"""Host time per call of two builds of the Python package, measured in one
process and interleaved (the host of the GPU machines is noisy, up to 2x
between runs: compare rows of one run only, and two builds only within
one process):

    python3 bench/python_ab.py BASE_DIR NEW_DIR [ROUNDS]

Each DIR holds python/stir (the package) and lib/libstir.so (its
library); they are loaded as stir_base and stir_new.  On a 2-node graph
(where the kernel costs nothing), every row is timed once per round (500
calls queued back to back, the synchronization after them outside the
timing), ROUNDS rounds (61), the process pinned to one core; per row the
minimum and the median over rounds.  Rows of both builds: stir.spmm on a
stir.Graph and on the sparse tensor itself, without and with B requiring
grad, and the bare launch; rows of a build with GpuSpmm.call1 (this
package since it has one): that call alone, its foreign call with
declared ctypes types and through _lib.rebind_launch_raw, the
allocations, torch's C apply with a trivial forward and with call1 as
forward, torch's current-stream query.  Rows of torch alone ("ref"),
what any autograd op costs on this host: torch.sparse.mm on the same
sparse tensor without and with B requiring grad, and an empty custom
autograd Function (its forward returns a view of its input) through
torch's C apply and through Function.apply.  Last, the breakdown per
build (medians): the autograd call less the empty Function's C apply
(stir's own share of it), the plain call less its foreign call and
allocation (the Python of stir's call), and new less base."""
import ctypes
import importlib.util
import os
import sys
import time

import torch

N = 500


def load(name, d):
    """The package of directory d as module "name", on d's library."""
    os.environ["STIR_LIBRARY"] = os.path.join(d, "lib", "libstir.so")
    path = os.path.join(d, "python", "stir", "__init__.py")
    spec = importlib.util.spec_from_file_location(
        name, path, submodule_search_locations=[os.path.dirname(path)])
    m = importlib.util.module_from_spec(spec)
    sys.modules[name] = m
    spec.loader.exec_module(m)
    return m


class Kept(torch.autograd.Function):
    """A Function whose forward returns a view of a kept tensor: the floor
    of torch's C apply."""

    @staticmethod
    def forward(ctx, kept, B):
        return kept.view_as(kept)

    @staticmethod
    def backward(ctx, dC):
        return None, dC


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
    """A Function whose forward is GpuSpmm.call1 alone."""

    @staticmethod
    def forward(ctx, f, B):
        return f(B, B.data_ptr())

    @staticmethod
    def backward(ctx, dC):
        return None, dC


def rows_of(tag, st):
    """The rows of package st (a loaded module) named "tag"."""
    Ts = torch.sparse_csr_tensor(torch.tensor([0, 1, 2]),
                                 torch.tensor([1, 0]), torch.ones(2),
                                 (2, 2)).cuda()
    T = st.Graph(Ts)
    B = torch.ones(2, 4, device="cuda")
    Bg = B.clone().requires_grad_()
    st.spmm(T, B)
    st.spmm(T, Bg).sum().backward()
    st.spmm(Ts, B)
    st.spmm(Ts, Bg).sum().backward()
    lib = sys.modules[st.__name__ + "._lib"]
    fast = T._torch._fast_spmm[4]
    L = fast.launch
    rows = [(tag, "stir.spmm(G, B)", lambda: st.spmm(T, B)),
            (tag, "stir.spmm(G, B), B requires grad", lambda: st.spmm(T, Bg)),
            (tag, "stir.spmm(sparse tensor, B)", lambda: st.spmm(Ts, B)),
            (tag, "stir.spmm(sparse tensor, B), B requires grad",
             lambda: st.spmm(Ts, Bg)),
            (tag, "stir_gpu_run_launch alone (declared ctypes)",
             lambda: lib.lib.stir_gpu_run_launch(L.run, 4))]
    f = getattr(fast, "call1", None)
    if f is None or not hasattr(lib, "rebind_launch_raw"):
        return rows
    raw_launch = lib.rebind_launch_raw
    rp = ctypes.c_void_p(L.run)
    vp = ctypes.c_void_p(ctypes.addressof(L.var))
    raw = sys.modules[st.__name__ + "._torch"]._raw_apply
    tmpl_x = torch.empty((1,), device="cuda").expand(2, 4)
    tmpl = torch.empty((2, 4), device="cuda")
    return rows + [
        (tag, "GpuSpmm.call1 alone", lambda: f(B, B.data_ptr())),
        (tag, "stir_gpu_run_rebind_launch, declared ctypes",
         lambda: lib.lib.stir_gpu_run_rebind_launch(L.run, L.n_var, L.var,
                                                    4)),
        (tag, "stir_gpu_run_rebind_launch, rebind_launch_raw",
         lambda: raw_launch(rp, 2, vp, 4)),
        (tag, "torch.empty_like(expanded template)",
         lambda: torch.empty_like(tmpl_x)),
        (tag, "torch.empty_like(real template)",
         lambda: torch.empty_like(tmpl)),
        (tag, "B.new_empty(shape)", lambda: B.new_empty((2, 4))),
        (tag, "C apply floor (forward: a view)", lambda: raw(Kept)(tmpl, Bg)),
        (tag, "C apply, forward = call1 alone", lambda: raw(Lean)(f, Bg)),
        (tag, "torch current raw stream",
         lambda: torch._C._cuda_getCurrentRawStream(0)),
    ]


def ref_rows():
    """Rows of torch alone: torch.sparse.mm and an empty Function."""
    Ts = torch.sparse_csr_tensor(torch.tensor([0, 1, 2]),
                                 torch.tensor([1, 0]), torch.ones(2),
                                 (2, 2)).cuda()
    B = torch.ones(2, 4, device="cuda")
    Bg = B.clone().requires_grad_()
    torch.sparse.mm(Ts, Bg).sum().backward()
    base = getattr(torch._C, "_FunctionBase", None)
    raw = base.__dict__.get("apply") if base is not None else None
    rows = [("ref", "torch.sparse.mm(A, B)", lambda: torch.sparse.mm(Ts, B)),
            ("ref", "torch.sparse.mm(A, B), B requires grad",
             lambda: torch.sparse.mm(Ts, Bg)),
            ("ref", "empty Function, Function.apply (Python)",
             lambda: Empty.apply(Bg))]
    if raw is not None and hasattr(raw, "__get__"):
        ea = raw.__get__(None, Empty)
        rows.append(("ref", "empty Function, torch's C apply",
                     lambda: ea(Bg)))
    return rows


def breakdown(med):
    """Print what stir adds, per build, from the medians "med" ({(tag,
    name): us})."""
    floor = med.get(("ref", "empty Function, torch's C apply"),
                    med.get(("ref", "empty Function, Function.apply "
                                    "(Python)")))
    print("breakdown (medians, us): torch's autograd floor (empty "
          "Function) %.2f; torch.sparse.mm %.2f, with grad %.2f"
          % (floor, med[("ref", "torch.sparse.mm(A, B)")],
             med[("ref", "torch.sparse.mm(A, B), B requires grad")]))
    for tag in ("base", "new"):
        plain = med[(tag, "stir.spmm(G, B)")]
        grad = med[(tag, "stir.spmm(G, B), B requires grad")]
        line = "%-4s stir.spmm(G, B) %.2f, with grad %.2f = floor %.2f + " \
            "stir's own %.2f" % (tag, plain, grad, floor, grad - floor)
        launch = med.get((tag, "stir_gpu_run_rebind_launch, "
                               "rebind_launch_raw"))
        alloc = med.get((tag, "torch.empty_like(expanded template)"))
        if launch is not None and alloc is not None:
            line += "; plain = foreign call %.2f + allocation %.2f + " \
                "Python %.2f" % (launch, alloc, plain - launch - alloc)
        print(line)
    for name in ("stir.spmm(G, B)", "stir.spmm(G, B), B requires grad",
                 "stir.spmm(sparse tensor, B)",
                 "stir.spmm(sparse tensor, B), B requires grad"):
        print("new - base  %-45s %+6.2f us" % (
            name, med[("new", name)] - med[("base", name)]))


def main(argv):
    """Load both builds, time their rows interleaved, print the table."""
    if len(argv) < 2:
        sys.exit("usage: python_ab.py BASE_DIR NEW_DIR [ROUNDS]")
    rounds = int(argv[2]) if len(argv) > 2 else 61
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    rows = rows_of("base", load("stir_base", argv[0])) + \
        rows_of("new", load("stir_new", argv[1])) + ref_rows()
    res = {}
    for _ in range(rounds):
        for tag, name, fn in rows:
            for _ in range(20):
                fn()
            torch.cuda.synchronize()
            t0 = time.perf_counter_ns()
            for _ in range(N):
                fn()
            t1 = time.perf_counter_ns()
            torch.cuda.synchronize()
            res.setdefault((tag, name), []).append((t1 - t0) / N / 1e3)
    med = {}
    for tag, name, fn in rows:
        v = sorted(res[(tag, name)])
        med[(tag, name)] = v[len(v) // 2]
        print("%-4s %-50s min %6.2f us  median %6.2f us"
              % (tag, name, v[0], v[len(v) // 2]))
    breakdown(med)


if __name__ == "__main__":
    main(sys.argv[1:])
