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
package since it has one): that call alone, its foreign call (through
_lib.relaunch_raw, stir_gpu_run_relaunch, where the package has it, else
_lib.rebind_launch_raw), the output's allocation, the packing of the
two addresses (timed inside a function, beside a function doing
nothing), torch's C apply with a trivial forward, with one attribute set
on ctx (the ctx bookkeeping) and with call1 as forward, torch's
current-stream query.  Rows of torch alone ("ref"),
what any autograd op costs on this host: torch.sparse.mm on the same
sparse tensor without and with B requiring grad, and an empty custom
autograd Function (its forward returns a view of its input) through
torch's C apply and through Function.apply.  Last, the breakdown per
build (medians): the autograd call = torch's floor (the empty
Function's C apply) + stir's own share, with the ctx bookkeeping; the
plain call = the foreign call + the allocation + the packing + the rest
of stir's Python (dispatch, B's checks, the stream query); and new less
base."""
import ctypes
import importlib.util
import os
import sys

import torch

from python_probes import FLOOR, SPARSE_MM, SPARSE_MM_GRAD, Kept, KeptCtx, \
    Lean, host_us, nothing, tiny, torch_rows

N = 500
# The row of call1's foreign call (which one, rows_of says).
FOREIGN = "call1's foreign call"


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
    if f is None:
        return rows
    # call1's foreign call: stir_gpu_run_relaunch (two arguments) where
    # the package has it, else stir_gpu_run_rebind_launch (four)
    rp = ctypes.c_void_p(L.run)
    if hasattr(lib, "relaunch_raw"):
        relaunch = lib.relaunch_raw
        foreign = ("stir_gpu_run_relaunch, relaunch_raw",
                   lambda: relaunch(rp, 4))
    else:
        rebind = lib.rebind_launch_raw
        vp = ctypes.c_void_p(ctypes.addressof(L.var))
        foreign = ("stir_gpu_run_rebind_launch, rebind_launch_raw",
                   lambda: rebind(rp, 2, vp, 4))
    print("%s: %s is %s" % (tag, FOREIGN, foreign[0]))
    raw = sys.modules[st.__name__ + "._torch"]._raw_apply
    tmpl_x = torch.empty((1,), device="cuda").expand(2, 4)
    size, off = ctypes.sizeof(L.var[0]), type(L.var[0]).ptr.offset
    words = (ctypes.c_uint64 * (2 * size // 8)).from_buffer(L.var)
    p = B.data_ptr()
    # the output address the packing row writes: a tensor kept alive
    kept = torch.empty((2, 4), device="cuda")
    return rows + [
        (tag, "GpuSpmm.call1 alone", lambda: f(B, p)),
        (tag, FOREIGN, foreign[1]),
        (tag, "torch.empty_like(expanded template)",
         lambda: torch.empty_like(tmpl_x)),
        (tag, "packing: two addresses written (in a function)",
         lambda: pack(words, off // 8, (size + off) // 8, p, kept)),
        (tag, "a Python function doing nothing", lambda: nothing(words, 0,
                                                                 1, p,
                                                                 kept)),
        (tag, "C apply floor (forward: a view)", lambda: raw(Kept)(B, Bg)),
        (tag, "C apply, forward sets ctx.k (ctx bookkeeping)",
         lambda: raw(KeptCtx)(B, Bg)),
        (tag, "C apply, forward = call1 alone", lambda: raw(Lean)(f, Bg)),
        (tag, "torch current raw stream",
         lambda: torch._C._cuda_getCurrentRawStream(0)),
    ]


def pack(words, w_in, w_out, p, out):
    """What call1 does between the allocation and the foreign call: two
    addresses written into the stir_gpu_extern array's words (B's, p, and
    the output's)."""
    words[w_in] = p
    words[w_out] = out.data_ptr()


def ref_rows():
    """Rows of torch alone: torch.sparse.mm and an empty Function."""
    return [("ref", name, fn) for name, fn in torch_rows(*tiny())]


def breakdown(med):
    """Print what stir adds, per build, from the medians "med" ({(tag,
    name): us}): the autograd call = torch's floor + the ctx bookkeeping
    + the plain call, and the plain call = the foreign call + the
    allocation + the packing of the two addresses + the rest of stir's
    Python (dispatch, B's checks, the stream query)."""
    floor = med[("ref", FLOOR)]
    print("breakdown (medians, us): torch's autograd floor (empty "
          "Function) %.2f; torch.sparse.mm %.2f, with grad %.2f"
          % (floor, med[("ref", SPARSE_MM)], med[("ref", SPARSE_MM_GRAD)]))
    for tag in ("base", "new"):
        plain = med[(tag, "stir.spmm(G, B)")]
        grad = med[(tag, "stir.spmm(G, B), B requires grad")]
        line = "%-4s stir.spmm(G, B) %.2f, with grad %.2f = floor %.2f + " \
            "stir's own %.2f" % (tag, plain, grad, floor, grad - floor)
        launch = med.get((tag, FOREIGN))
        alloc = med.get((tag, "torch.empty_like(expanded template)"))
        if launch is not None and alloc is not None:
            ctx = med[(tag, "C apply, forward sets ctx.k (ctx bookkeeping)")] \
                - med[(tag, "C apply floor (forward: a view)")]
            packing = med[(tag, "packing: two addresses written (in a "
                                "function)")] - \
                med[(tag, "a Python function doing nothing")]
            line += " (ctx bookkeeping %.2f); plain = foreign call %.2f + " \
                "allocation %.2f + packing %.2f + the rest of the Python " \
                "%.2f" % (ctx, launch, alloc, packing,
                          plain - launch - alloc - packing)
        print(line)
    for name in ("stir.spmm(G, B)", "stir.spmm(G, B), B requires grad",
                 "stir.spmm(sparse tensor, B)",
                 "stir.spmm(sparse tensor, B), B requires grad",
                 "GpuSpmm.call1 alone", FOREIGN):
        if ("new", name) in med and ("base", name) in med:
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
