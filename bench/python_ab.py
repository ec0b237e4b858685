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

import torch

from python_probes import FLOOR, SPARSE_MM, SPARSE_MM_GRAD, Kept, Lean, \
    host_us, tiny, torch_rows

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


def rows_of(tag, st):
    """The rows of package st (a loaded module) named "tag"."""
    Ts, B, Bg = tiny()
    T = st.Graph(Ts)
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
    return [("ref", name, fn) for name, fn in torch_rows(*tiny())]


def breakdown(med):
    """Print what stir adds, per build, from the medians "med" ({(tag,
    name): us})."""
    floor = med[("ref", FLOOR)]
    print("breakdown (medians, us): torch's autograd floor (empty "
          "Function) %.2f; torch.sparse.mm %.2f, with grad %.2f"
          % (floor, med[("ref", SPARSE_MM)], med[("ref", SPARSE_MM_GRAD)]))
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
            res.setdefault((tag, name), []).append(host_us(fn, N))
    med = {}
    for tag, name, fn in rows:
        v = sorted(res[(tag, name)])
        med[(tag, name)] = v[len(v) // 2]
        print("%-4s %-50s min %6.2f us  median %6.2f us"
              % (tag, name, v[0], v[len(v) // 2]))
    breakdown(med)


if __name__ == "__main__":
    main(sys.argv[1:])
