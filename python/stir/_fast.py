"""The fast kernels of a stir.Graph: the library's recipes
(include/stir/recipes.h) prepared once per (graph, feature size).

- SpMM: the hybrid ELL format and schedule of the candidate the tuning
  record holds for the matrix, the feature size and the GPU (the key
  'stirc run' looks up: spmm_pick), else of the one the cost model ranks
  first (stir_spmm_hybrid_model_rank), then stir_csr_to_hybrid_flags and
  stir_recipe_spmm_hybrid, as bench/bench_spmm.c builds them; the format
  is built on the host from the CSR once and kept in device memory, its
  values in one buffer that a gather from new CSR values refills
  (slot_positions: where each CSR value lies in the format).
  tune_spmm runs the library's tuner (stir_tune: the measured search)
  that fills the record.
- SDDMM: the candidate of the record's measured entries for the graph,
  the feature size and the GPU (sddmm_choice), else the one the SDDMM
  cost model ranks first (stir_sddmm_model_rank: stir_recipe_sddmm, fused
  over the non-zeros, or stir_recipe_sddmm_rows, row by row), on the CSR
  arrays as they are.  tune_sddmm runs the library's tuner on both SDDMM
  programs.

A compiled kernel depends on the candidate and the feature size only, so
it is shared by every graph (_compiled); each prepared graph has its own
run (stir_gpu_run) bound to its arrays.  A call binds the caller's input
and a new output tensor (stir_gpu_run_bind_device: nothing copied) and
queues the launches on torch's current stream without waiting
(STIR_GPU_RUN_ASYNC); the ctypes argument arrays and the size bindings
are made once, and the SpMM's call after the first is a closure
(Launch.fast1) that allocates the output and makes one foreign call.
HybridSpmm.interpret runs the same stage III kernel on the
host interpreter (make check tests the preparation there)."""
import ctypes
import weakref

from ._lib import lib, Csr, CompileOptions, Extern, GpuTiming, \
    TuneEntry, TuneOptions, TuneResult, relaunch_raw
from ._kernels import SPMM_SOURCE, SDDMM_SOURCE, SDDMM_ROWS_SOURCE, \
    GATHER_SOURCE

STIR_I32 = 2
STIR_F32 = 6
STIR_F64 = 7
STIR_TUNE_SPMM = 1
STIR_TUNE_SDDMM = 2
STIR_TUNE_SDDMM_ROWS = 3
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


def _sddmm_kernel(cand, feat):
    """The SDDMM of candidate "cand" (stir_sddmm_get_candidate) at "feat"
    features, stage III: sddmm (examples/sddmm.stir), or sddmm_rows for a
    row candidate, scheduled by stir_tune_apply_candidate (the tuner's
    own: stir_recipe_sddmm or stir_recipe_sddmm_rows with
    stir_sddmm_candidate_map's mapping)."""
    p = lib.stir_sddmm_get_candidate(cand)
    if not p:
        raise ValueError("stir: no SDDMM candidate %d" % cand)
    which = "sddmm_rows" if p.contents.rows else "sddmm"
    kern = _Kernel(_SOURCES[which], which)
    if lib.stir_tune_apply_candidate(kern.k, feat, cand) < 0:
        _fail("cannot schedule the SDDMM (candidate %d, %d features)"
              % (cand, feat))
    return kern, 0


def sddmm_pick(csr, feat, n_sms=0):
    """The SDDMM candidate the cost model ranks first for stir_csr "csr"
    (the mask) at "feat" features on n_sms SMs (0: the model's
    default)."""
    n = lib.stir_sddmm_n_candidates()
    order = (ctypes.c_int * max(n, 1))()
    got = lib.stir_sddmm_model_rank(ctypes.byref(csr), feat, n_sms, order,
                                    None)
    if got < 0:
        raise MemoryError("stir: out of memory")
    if got == 0:
        raise ValueError("stir: no SDDMM candidate applies at %d features"
                         % feat)
    return order[0]


def sddmm_choice(csr, feat, n_sms=0, device=None, record=True):
    """The SDDMM candidate for mask "csr" at "feat" features on GPU
    "device" (its name; None: none) of n_sms SMs: the fastest of the
    tuning record's measured entries for this GPU of the two SDDMM
    programs (examples/sddmm.stir, fused, and examples/sddmm_rows.stir,
    by rows; 'stirc tune' or stir_tune stores them; keys as
    stir_kernel_get_tune_key), else the SDDMM model's pick over both
    (sddmm_pick; the record's model entries are the model's pick within
    one program, so they add nothing).  (cand, how): how is "measured
    0.0123 ms on NAME" or "SDDMM cost model"."""
    best = None
    for which in ("sddmm", "sddmm_rows") if record and device else ():
        e = _record_find(record_key(csr, feat, device, which))
        p = lib.stir_sddmm_get_candidate(e.cand) if e is not None else None
        if not p or e.time_ms < 0 or \
                bool(p.contents.rows) != (which == "sddmm_rows"):
            continue
        if best is None or e.time_ms < best.time_ms:
            best = e
    if best is not None:
        return best.cand, "measured %.4f ms on %s" % (best.time_ms,
                                                     best.device.decode())
    return sddmm_pick(csr, feat, n_sms), "SDDMM cost model"


def describe_sddmm(cand):
    """A short text of SDDMM candidate "cand" ("#5 rows l8 128t"; "xg":
    X's row read from global memory; "t8": 8 rows a thread block)."""
    p = lib.stir_sddmm_get_candidate(cand).contents
    return "#%d %s l%d %dt%s%s%s" % (cand, "rows" if p.rows else "fused",
                                     p.max_lanes, p.threads or 256,
                                     " xg" if p.x_global else "",
                                     " c%d" % p.chunks if p.chunks > 1 else "",
                                     " t%d" % p.row_tile if p.row_tile else "")


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


_SOURCES = {"spmm": SPMM_SOURCE, "sddmm": SDDMM_SOURCE,
            "sddmm_rows": SDDMM_ROWS_SOURCE}
_PROGRAMS = {}


def _program(which):
    """The stage I kernel of program "which" ("spmm", "sddmm",
    "sddmm_rows": _SOURCES, the texts of examples/csrmm.stir,
    sddmm.stir and sddmm_rows.stir), read once and never scheduled: what
    stir_tune and stir_kernel_get_tune_key take."""
    p = _PROGRAMS.get(which)
    if p is None:
        p = _PROGRAMS[which] = _Kernel(_SOURCES[which], which)
    return p


def _tune_options(which, feat, n_sms=0):
    """stir_tune_options for program "which" at "feat" features on n_sms
    SMs (< 1: the model's default): the program's text keys the record,
    as 'stirc tune' passes the file's text."""
    opt = TuneOptions()
    opt.feat = int(feat)
    opt.sms = int(n_sms)
    opt.program_text = _SOURCES[which].encode()
    return opt


def record_key(csr, feat, device, which="spmm"):
    """The tuning record's key of program "which" ("spmm": csrmm of
    examples/csrmm.stir; "sddmm", "sddmm_rows") on stir_csr "csr" at
    "feat" features, made by stir_kernel_get_tune_key: on GPU "device"
    (its name as stir_device_get_name gives it, which
    stir_kernel_get_tune_key writes with spaces as underscores; the GPU
    need not be here) or, for an int, the cost model's entry on that many
    SMs ("model-smsN")."""
    opt = _tune_options(which, feat, device if isinstance(device, int)
                        else 0)
    key = TuneEntry()
    if lib.stir_kernel_get_tune_key(_program(which).k, ctypes.byref(csr),
                                    ctypes.byref(opt), None,
                                    ctypes.byref(key)) < 0:
        raise MemoryError("stir: out of memory")
    if not isinstance(device, int):
        key.device = "".join("_" if ch.isspace() else ch
                             for ch in device).encode()[:63]
    return key


def _record_find(key):
    """The tuning record's entry of exactly "key" (a TuneEntry), or
    None."""
    e = TuneEntry()
    hit = lib.stir_tune_record_find(_ctx(), None, ctypes.byref(key), 0.0,
                                    ctypes.byref(e))
    lib.stir_ctx_clear_diagnostics(_ctx())
    return e if hit == 1 else None


def _how(e):
    """What a record entry says of its choice ("measured 0.0178 ms on
    NAME" or "record: model")."""
    if e.time_ms >= 0:
        return "measured %.4f ms on %s" % (e.time_ms, e.device.decode())
    return "record: %s" % e.how.decode()


def spmm_pick(csr, feat, n_sms=0, device=None, record=True):
    """The hybrid candidate for stir_csr "csr" at "feat" features on GPU
    "device" (its name; None: none) of n_sms SMs, as 'stirc run' takes it:
    the tuning record's entry for this GPU (a measured one), else its
    entry for the cost model on n_sms SMs, else the model's pick
    (model_pick); record=False skips the record.  (cand, how): how is
    "measured 0.0123 ms on NAME", "record: model" or "cost model"."""
    n = lib.stir_spmm_hybrid_n_candidates()
    keys = []
    if record and device is not None:
        keys.append(record_key(csr, feat, device))
    if record:
        keys.append(record_key(csr, feat, int(n_sms)))
    for key in keys:
        e = _record_find(key)
        if e is not None and 0 <= e.cand < n:
            return e.cand, _how(e)
    return model_pick(csr, feat, n_sms), "cost model"


def _tune(which, csr, feat, device_index, budget_s, n_sms, model_only):
    """stir_tune of program "which" (_SOURCES) for stir_csr "csr" at
    "feat" features (see tune_spmm): the TuneResult's (cand, time_ms,
    device name); a StirError when it fails (a ValueError for a csr
    without values, which stir_csr has and the search reads)."""
    if csr.nnz and not csr.values:
        raise ValueError("stir: the tuner needs the matrix's values "
                         "(stir_csr.values is NULL)")
    opt = _tune_options(which, feat, n_sms)
    opt.model_only = bool(model_only)
    opt.budget_s = float(budget_s) if budget_s else 0.0
    if not model_only:
        opt.device = _device(device_index)
        # the name _Kernel read the text under: the search then schedules
        # its candidates in parallel, each on the program read again
        opt.program_file = ("<stir.%s>" % which).encode()
    res = TuneResult()
    rc = lib.stir_tune(_ctx(), _program(which).k, ctypes.byref(csr),
                       ctypes.byref(opt), ctypes.byref(res))
    try:
        if rc < 0:
            _fail("the measured search failed")
        lib.stir_ctx_clear_diagnostics(_ctx())
        return res.cand, res.time_ms, res.key.device.decode()
    finally:
        lib.stir_tune_result_clear(ctypes.byref(res))


def tune_spmm(csr, feat, device_index=0, budget_s=None, n_sms=0,
              model_only=False):
    """The library's tuner (stir_tune) on the hybrid SpMM (csrmm of
    examples/csrmm.stir) for stir_csr "csr" at "feat" features: the
    record's entry for CUDA device device_index when it has one, else the
    measured search on that device (budget_s seconds of timing; None:
    the library's default), whose pick it stores in the tuning record
    ($STIR_CACHE_DIR or ~/.cache/stir), where spmm_pick and every later
    Graph of the graph find it; with model_only, the cost model's pick
    on n_sms SMs, stored as the model's entry (no GPU).  (cand, how) as
    spmm_pick gives them; a StirError with the library's diagnostics when
    it fails (no GPU, say)."""
    cand, ms, dev = _tune("spmm", csr, feat, device_index, budget_s, n_sms,
                          model_only)
    if ms >= 0:
        return cand, "measured %.4f ms on %s" % (ms, dev)
    return cand, "record: model"


def _sddmm_applies(recipe, csr, feat, n_sms):
    """Whether some SDDMM candidate of "recipe" (STIR_TUNE_SDDMM, fused,
    or STIR_TUNE_SDDMM_ROWS) applies to mask "csr" at "feat" features
    (stir_sddmm_rank)."""
    order = (ctypes.c_int * max(lib.stir_sddmm_n_candidates(), 1))()
    got = lib.stir_sddmm_rank(recipe, ctypes.byref(csr), feat, n_sms, order,
                              None)
    if got < 0:
        raise MemoryError("stir: out of memory")
    return got > 0


def tune_sddmm(csr, feat, device_index=0, budget_s=None, n_sms=0,
               model_only=False):
    """The library's tuner (stir_tune) on both SDDMM programs (sddmm of
    examples/sddmm.stir, fused over the non-zeros, and sddmm_rows of
    examples/sddmm_rows.stir, by rows) for mask "csr" at "feat" features,
    each as tune_spmm runs it (budget_s shared between them; None: the
    library's default each), each storing its pick in the tuning record,
    where sddmm_choice and every later Graph of the graph find them; a
    program none of whose candidates applies at "feat" is left out (a
    ValueError when neither applies; a StirError when a search fails: no
    GPU, say).  (cand, how):
    the faster of the two measured picks, how "measured T ms on NAME" as
    sddmm_choice says it; with model_only (no GPU), each program's model
    entry stored and the SDDMM model's pick over both (sddmm_pick), how
    "SDDMM cost model"."""
    progs = [w for w, r in (("sddmm", STIR_TUNE_SDDMM),
                            ("sddmm_rows", STIR_TUNE_SDDMM_ROWS))
             if _sddmm_applies(r, csr, feat, n_sms)]
    if not progs:
        raise ValueError("stir: no SDDMM candidate applies at %d features"
                         % feat)
    budget = float(budget_s) / len(progs) if budget_s else None
    best = None
    for which in progs:
        got = _tune(which, csr, feat, device_index, budget, n_sms,
                    model_only)
        if best is None or (got[1] >= 0 and
                            (best[1] < 0 or got[1] < best[1])):
            best = got
    if model_only:
        return sddmm_pick(csr, feat, n_sms), "SDDMM cost model"
    if best[1] < 0:
        return best[0], "record: model"
    return best[0], "measured %.4f ms on %s" % (best[1], best[2])


def _gather_kernel(gpu):
    """GATHER_SOURCE's kernel (F[q] = V[P[q]], 0 where P[q] is -1): for
    the GPU under the default GPU schedule (one thread a slot), else
    stage I for the interpreter."""
    kern = _Kernel(GATHER_SOURCE, "gather")
    if gpu and lib.stir_kernel_prepare_for_gpu(kern.k) < 0:
        _fail("cannot prepare the gather for the GPU")
    return kern


_HOST_GATHER = []


def gather_host(pos, values):
    """GATHER_SOURCE run on the host interpreter: values[pos] (NumPy) with
    0 where pos is -1, as float32 (the gather a GPU Graph runs for new
    values, made testable without a GPU)."""
    import numpy as np
    from . import _raise_from
    if not _HOST_GATHER:
        _HOST_GATHER.append(_gather_kernel(False))
    k = _HOST_GATHER[0].k
    ctx = _ctx()
    b = lib.stir_bindings_alloc()
    if not b:
        raise MemoryError("stir: out of memory")
    try:
        pos = np.ascontiguousarray(pos, dtype=np.int32)
        vals = np.ascontiguousarray(values, dtype=np.float32)
        _set_sizes(b, {"s": len(pos), "nnz": len(vals)})
        for name, a, dt in (("P", pos, STIR_I32), ("V", vals, STIR_F32)):
            bind_numpy(ctx, k, b, name, a, dt)
        if lib.stir_kernel_bind_outputs(k, b) < 0 or \
                lib.stir_kernel_interpret(k, b) < 0:
            _raise_from(ctx, "the gather failed")
        out = np.empty(len(pos), dtype=np.float32)
        if out.nbytes:
            ctypes.memmove(out.ctypes.data, lib.stir_array_get_data(
                lib.stir_bindings_get_array(b, b"F")), out.nbytes)
        return out
    finally:
        lib.stir_bindings_free(b)


class HostFormat(object):
    """The hybrid format of a candidate built from a CSR on the host: its
    bindings (arrays and sizes, suffix _hyb) and description."""

    def __init__(self, csr, cand, value_type=STIR_F32):
        p = lib.stir_spmm_hybrid_get_candidate(cand).contents
        self.b = lib.stir_bindings_alloc()
        if not self.b:
            raise MemoryError("stir: out of memory")
        self.f = lib.stir_csr_to_hybrid_flags(
            _ctx(), ctypes.byref(csr), p.c, p.nb, p.buckets, STIR_I32,
            value_type, b"_hyb",
            lib.stir_spmm_hybrid_candidate_format_flags(ctypes.byref(p)),
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


def slot_positions(indptr, indices, shape, cand):
    """Where each value of a CSR matrix (NumPy int64 indptr, indices;
    "shape") lies in the hybrid format of candidate "cand": {value array
    name (A_hyb_q_t): NumPy int64 array of its slots, each the position of
    its value in the CSR arrays, -1 for padding}.  The format's layout
    depends on the structure only, so the format is built once more here
    with the positions (+1) as float64 values (exact below 2^53)."""
    import numpy as np
    nnz = len(indices)
    ids = np.arange(1, nnz + 1, dtype=np.float64)
    ip = np.ascontiguousarray(indptr, dtype=np.int64)
    ix = np.ascontiguousarray(indices, dtype=np.int64)
    csr = Csr(int(shape[0]), int(shape[1]), nnz,
              ip.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
              ix.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
              ids.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
    fmt = HostFormat(csr, cand, STIR_F64)
    out = {}
    for name, arr in fmt.arrays().items():
        if lib.stir_array_get_dtype(arr) != STIR_F64:
            continue
        n = lib.stir_array_get_len(arr)
        v = np.empty(n, dtype=np.float64)
        if n:
            ctypes.memmove(v.ctypes.data, lib.stir_array_get_data(arr),
                           8 * n)
        out[name] = v.astype(np.int64) - 1
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


def bind_numpy(ctx, k, b, name, a, dt):
    """Bind NumPy array "a" (C-contiguous, its elements of stir type dt)
    as array "name" of kernel k in bindings b: copied into a new array of
    context ctx; stir's diagnostic raised when that fails."""
    from . import _raise_from
    shape = (ctypes.c_int64 * a.ndim)(*a.shape)
    arr = lib.stir_array_alloc(ctx, dt, a.ndim, shape)
    if not arr:
        _raise_from(ctx, "out of memory for array %s" % name)
    if a.nbytes:
        ctypes.memmove(lib.stir_array_get_data(arr), a.ctypes.data, a.nbytes)
    if lib.stir_kernel_bind_array(k, b, name.encode(), arr) < 0:
        _raise_from(ctx, "cannot bind %s" % name)


def _set_sizes(b, sizes):
    """Bind the sizes of dict "sizes" into bindings b."""
    for name, v in sizes.items():
        if lib.stir_bindings_set_size(b, name.encode(), int(v)) < 0:
            raise MemoryError("stir: out of memory")


class HybridSpmm(object):
    """The hybrid SpMM for one CSR and feature size on the host, as a
    Graph prepares it for the GPU: the candidate (spmm_pick: the tuning
    record's for GPU "device", else the cost model's; .how says which),
    format and stage III kernel; interpret(B, values) runs it on the host
    interpreter (the test of the preparation without a GPU)."""

    def __init__(self, csr, feat, n_sms=0, device=None, record=True,
                 structure=None):
        self.shape = (csr.nrows, csr.ncols)
        self.feat = int(feat)
        self.candidate, self.how = spmm_pick(csr, self.feat, n_sms, device,
                                             record)
        self.format = HostFormat(csr, self.candidate)
        self.kernel, self.min_blocks = _spmm_kernel(self.candidate, self.feat)
        self.taken = _host_taken(self.kernel.k)
        # (indptr, indices) as NumPy int64, for slot_positions
        self._structure = structure
        self._slots = None

    @classmethod
    def of_scipy(cls, A, feat, n_sms=0, device=None, record=True):
        """The HybridSpmm of SciPy CSR matrix A."""
        import numpy as np
        ip = np.ascontiguousarray(A.indptr, dtype=np.int64)
        ix = np.ascontiguousarray(A.indices, dtype=np.int64)
        v = np.ascontiguousarray(A.data, dtype=np.float64)
        csr = Csr(A.shape[0], A.shape[1], len(ix),
                  ip.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                  ix.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                  v.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
        return cls(csr, feat, n_sms, device, record, (ip, ix))

    def format_nnz(self):
        """The non-zeros of the matrix."""
        return len(self._structure[1]) if self._structure is not None \
            else -1

    def slots(self):
        """slot_positions of the matrix in self's format (made once)."""
        if self._slots is None:
            if self._structure is None:
                raise ValueError("stir: no CSR structure kept (of_scipy "
                                 "keeps it)")
            self._slots = slot_positions(self._structure[0],
                                         self._structure[1], self.shape,
                                         self.candidate)
        return self._slots

    def interpret(self, B, values=None):
        """self's matrix @ B (a NumPy (n, feat) matrix) by the scheduled
        kernel on the host interpreter, with the matrix's own values or
        "values" (nnz of them, in the CSR's order: gathered into the
        format's slots as the GPU does); a float32 NumPy matrix."""
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
            if values is not None:
                vals = np.asarray(values, dtype=np.float32)
                if vals.shape != (self.format_nnz(),):
                    raise ValueError("stir: %s values for %d non-zeros"
                                     % (vals.shape, self.format_nnz()))
                for name, pos in self.slots().items():
                    arr = lib.stir_bindings_get_array(b, name.encode())
                    got = gather_host(pos, vals)
                    if got.nbytes:
                        ctypes.memmove(lib.stir_array_get_data(arr),
                                       got.ctypes.data, got.nbytes)
            _set_sizes(b, {"m": m, "n": n, "feat": self.feat})
            bind_numpy(ctx, self.kernel.k, b, "B", B, STIR_F32)
            if lib.stir_kernel_bind_outputs(self.kernel.k, b) < 0 \
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


class HostSddmm(object):
    """The SDDMM a Graph prepares for one CSR mask and feature size, on the
    host: the candidate (sddmm_choice for a GPU named "device": the
    record's measured entry, else the SDDMM model's pick; or "cand"; .how
    says which) and its stage III kernel; interpret(X, Y) runs it on the
    interpreter (the test of the preparation without a GPU)."""

    def __init__(self, A, feat, n_sms=0, cand=None, device=None):
        import numpy as np
        self.A = A
        self.feat = int(feat)
        ip = np.ascontiguousarray(A.indptr, dtype=np.int64)
        ix = np.ascontiguousarray(A.indices, dtype=np.int64)
        v = np.ones(len(ix), dtype=np.float64)
        csr = Csr(A.shape[0], A.shape[1], len(ix),
                  ip.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                  ix.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                  v.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
        self.candidate, self.how = sddmm_choice(csr, self.feat, n_sms,
                                                device) if cand is None \
            else (cand, "given")
        self.kernel, _ = _sddmm_kernel(self.candidate, self.feat)
        self.taken = _host_taken(self.kernel.k)

    def interpret(self, X, Y):
        """The values of X Y^T at the mask's non-zeros (float32 NumPy, in
        the CSR's order) by the scheduled kernel on the interpreter."""
        import numpy as np
        from . import _raise_from
        A = self.A
        ctx = _ctx()
        b = lib.stir_bindings_alloc()
        if not b:
            raise MemoryError("stir: out of memory")
        try:
            _set_sizes(b, {"m": A.shape[0], "n": A.shape[1],
                           "feat": self.feat, "nnz": A.nnz})
            for name, a, dt in (("J.indptr", A.indptr, STIR_I32),
                                ("J.indices", A.indices, STIR_I32),
                                ("X", X, STIR_F32), ("Y", Y, STIR_F32)):
                a = np.ascontiguousarray(a, dtype=np.int32 if dt == STIR_I32
                                         else np.float32)
                bind_numpy(ctx, self.kernel.k, b, name, a, dt)
            if lib.stir_kernel_bind_outputs(self.kernel.k, b) < 0 or \
                    lib.stir_kernel_interpret(self.kernel.k, b) < 0:
                _raise_from(ctx, "the SDDMM failed")
            c = lib.stir_bindings_get_array(b, b"S")
            out = np.empty(A.nnz, dtype=np.float32)
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
    cand; "sddmm": SDDMM candidate cand; "gather": the gather of new
    values, cand and feat 0) at feat features on device index."""
    key = (which, cand, feat, index)
    c = _COMPILED.get(key)
    if c is None:
        if which == "gather":
            kern, mb = _gather_kernel(True), 0
        else:
            kern, mb = _spmm_kernel(cand, feat) if which == "spmm" else \
                _sddmm_kernel(cand, feat)
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
    tensor "output" of shape out_shape (or always out_tensor, when
    given).  The externs arrays and the size
    bindings are made here once; the first call binds every array with
    the sizes (stir_gpu_run_bind_device), the next ones only rebind the
    inputs and the output (stir_gpu_run_rebind_device: nothing evaluated
    again), and queue the launches on torch's current stream."""

    def __init__(self, comp, sizes_b, fixed, inputs, output, out_shape,
                 device, out_tensor=None):
        import torch
        self.comp = comp
        # the output: a new tensor each call, or this one (kept)
        self.out_tensor = out_tensor
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
        # for fast1: [the stream handle bound, or None while nothing is
        # bound], shared with the closures it makes
        self._st = [None]
        _current_stream(self.index)
        self._raw_stream = _RAW_STREAM or _current_stream

    def __del__(self):
        if lib is None:     # at the interpreter's exit: the module is gone
            return
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
        tensor (or out_tensor), on torch's current stream; returns the
        output."""
        out = self.out_tensor
        if out is None:
            out = self._torch_empty(self.out_shape, dtype=self._f32,
                                    device=self.device)
        for e, t in zip(self._in, inputs):
            e.ptr = t.data_ptr()
            e.bytes = 4 * t.numel()
        self._out.ptr = out.data_ptr()
        self._st[0] = None
        if self.bound:
            if lib.stir_gpu_run_rebind_device(self.run, self.n_var,
                                              self.var) < 0:
                self.bound = False
                _fail("cannot bind the device arrays")
        else:
            k = self.n - self.n_var
            for j in range(self.n_var):
                self.ext[k + j] = self.var[j]
            # then the call's arrays rebound, so that the run keeps them
            # for stir_gpu_run_relaunch (fast1)
            if lib.stir_gpu_run_bind_device(self.run, self.sizes, self.n,
                                            self.ext) < 0 or \
                    lib.stir_gpu_run_rebind_device(self.run, self.n_var,
                                                   self.var) < 0:
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
        self._st[0] = cs
        return out

    def __call__(self, *inputs):
        """bind, then queue the launches without waiting; the output."""
        out = self.bind(*inputs)
        if lib.stir_gpu_run_launch(self.run, STIR_GPU_RUN_ASYNC) < 0:
            _fail("the launch failed")
        return out

    def fast1(self, forward=False, keep=None):
        """The call of a kernel of one input B, as a closure: call(B, p)
        with B a float32 tensor on the run's device, contiguous, of the
        shape bound before and p its address, a multiple of 16 (the
        caller checks all of it: B's byte count is not set again), does
        self(B) with the work of a call cut to what changes: the output's
        allocation (torch.empty_like of a template of the output's shape
        that holds no memory: _output_template), the two addresses
        written into the stir_gpu_extern array that the run keeps from
        its last rebind (bind: its first call binds everything, then
        rebinds these), and one foreign call of two arguments that
        checks them and launches (stir_gpu_run_relaunch: 0 or not
        aligned is refused), through relaunch_raw with its arguments
        made here once.  The first
        call, a change of torch's current stream and a call after a
        failed one go through self (bind).  With "forward", the same
        closure as a torch.autograd.Function's forward, call(ctx, B, p),
        which first sets ctx.k = keep (what the backward needs:
        _torch.fast_function; one Python frame less than a forward that
        calls the other).  The closure keeps self (and so the run) alive;
        self does not keep it."""
        import torch
        raw, index, st = self._raw_stream, self.index, self._st
        fn, n = relaunch_raw, self.n_var
        run = ctypes.c_void_p(self.run)
        # the extern array as 64-bit words: the address fields
        size, off = ctypes.sizeof(Extern), Extern.ptr.offset
        words = (ctypes.c_uint64 * (n * size // 8)).from_buffer(self.var)
        w_in, w_out = off // 8, ((n - 1) * size + off) // 8
        empty_like, tmpl = torch.empty_like, self._output_template()
        me = self

        # the two closures have the same body (a Function's forward takes
        # ctx first; a shared body would cost a call more)
        def call(B, p):
            if raw(index) != st[0]:
                return me(B)
            out = empty_like(tmpl)
            words[w_in] = p
            words[w_out] = out.data_ptr()
            if fn(run, 4):
                me.failed()
            return out

        def call_fwd(ctx, B, p):
            ctx.k = keep
            if raw(index) != st[0]:
                return me(B)
            out = empty_like(tmpl)
            words[w_in] = p
            words[w_out] = out.data_ptr()
            if fn(run, 4):
                me.failed()
            return out
        return call_fwd if forward else call

    def _output_template(self):
        """A tensor that torch.empty_like turns into a new contiguous
        float32 output of out_shape on the device: a one-element tensor
        expanded to that shape (no memory of its own), where this torch
        makes a contiguous tensor of it, else a tensor of that shape."""
        import torch
        t = torch.empty((1,), dtype=self._f32, device=self.device)
        t = t.expand(self.out_shape)
        o = torch.empty_like(t)
        if o.shape == t.shape and o.is_contiguous() and \
                o.dtype == self._f32 and o.device == t.device:
            return t
        return torch.empty(self.out_shape, dtype=self._f32,
                           device=self.device)

    def failed(self):
        """After a failed foreign call of fast1's closure: the next call
        binds everything again; raise the library's error."""
        self.bound = False
        self._st[0] = None
        _fail("cannot bind the device arrays or launch")

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
    its device: the candidate (spmm_pick: the tuning record's, else the
    cost model's; with "tune" (True, or the search's budget in seconds),
    the measured search first when the record has no measured entry for
    this GPU), the format's arrays on the
    device (the values in one buffer, "flat", each array a 16-byte
    aligned view of it), the compiled kernel and its Launch.  Call with B
    (float32, contiguous, (n, feat)) and optionally new values (the CSR's
    nnz, in the graph's order, or in the order of "src" when order_src):
    a new (m, feat) tensor."""

    def __init__(self, g, feat, tune=False, src=None):
        import torch
        dev = g.indices.device
        index = dev.index if dev.index is not None else \
            torch.cuda.current_device()
        device = torch.device("cuda", index)
        csr, keep = _host_csr(g.indptr, g.indices, g.values, g.shape)
        n_sms = torch.cuda.get_device_properties(index).multi_processor_count
        name = lib.stir_device_get_name(_device(index)).decode()
        self.feat = int(feat)
        self.candidate, self.how = spmm_pick(csr, self.feat, n_sms, name)
        if tune and not self.how.startswith("measured"):
            budget = None if tune is True else float(tune)
            self.candidate, self.how = tune_spmm(csr, self.feat, index,
                                                 budget, n_sms)
        fmt = HostFormat(csr, self.candidate)
        comp = _compiled("spmm", self.candidate, self.feat, index)
        taken = [n for n, local in comp.taken if not local]
        arrays = fmt.arrays()
        self.vnames = [n for n in taken if n not in ("B", "C") and
                       lib.stir_array_get_dtype(arrays[n]) == STIR_F32]
        fixed = _format_tensors(fmt, [n for n in taken if n not in
                                      ("B", "C") and n not in self.vnames],
                                device)
        # the value arrays as views of one buffer (segments of a multiple
        # of 4 floats: each view 16-byte aligned)
        offs, total = [], 0
        for n in self.vnames:
            ln = lib.stir_array_get_len(arrays[n])
            offs.append((total, ln))
            total += max((ln + 3) // 4 * 4, 4)
        host = torch.zeros(max(total, 4), dtype=torch.float32)
        for n, (o, ln) in zip(self.vnames, offs):
            if ln:
                ctypes.memmove(host.data_ptr() + 4 * o,
                               lib.stir_array_get_data(arrays[n]), 4 * ln)
        self.flat = host.to(device)
        for n, (o, ln) in zip(self.vnames, offs):
            fixed[n] = self.flat[o:o + max(ln, 1)]
        self._offs = offs
        # the sizes only (the format's host arrays are not kept)
        sizes = lib.stir_bindings_alloc()
        if not sizes:
            raise MemoryError("stir: out of memory")
        _set_sizes(sizes, fmt.sizes())
        _set_sizes(sizes, {"m": g.shape[0], "n": g.shape[1],
                           "feat": self.feat, "nnz": g.nnz})
        del fmt
        self.launch = Launch(comp, sizes, fixed, ["B"], "C",
                             (g.shape[0], self.feat), device)
        self.describe = describe(self.candidate)
        self.device = device
        self.nnz = g.nnz
        self.shape = g.shape
        # for the gather of new values: the host structure (until the
        # slot positions are made), the positions per order, the values
        # now in "flat" (the graph's own first) and their version
        self._structure = (keep[0], keep[1])
        self._src = src
        self._pos = {}
        self._gathers = {}
        self._f32 = torch.float32
        self.index = index
        self._own = g.values
        # what "flat" holds: (a weak reference to the owner of its memory,
        # its address, version, order, element type); the owner is the
        # values tensor itself, or the sparse tensor whose values they
        # are, for a graph cached on it (set_values' "owner")
        self._cur = (weakref.ref(g.values), g.values.data_ptr(),
                     g.values._version, False, g.values.dtype)
        # whether "flat" holds other values than the graph's own
        self.dirty = False
        # the call of the kernel (Launch.fast1), and the graph's {feat:
        # call1} of its kernels that hold its own values, which
        # _torch.graph_call takes without looking at "dirty": this one's
        # entry is there while it is not dirty; the same for the autograd
        # call (fast_apply: made on the first call with B requiring
        # grad) in the graph's _fast1g
        self.call1 = self.launch.fast1()
        self._apply1 = None
        self._graph = weakref.ref(g)
        self._calls = g._fast1
        self._applies = g._fast1g
        self._calls[self.feat] = self.call1

    def fast_apply(self):
        """The autograd call of this kernel with the graph's own values,
        apply(B, p) (_torch.fast_function over Launch.fast1's forward
        closure: the caller has checked B as for call1), made on the
        first call and entered in the graph's _fast1g while the format
        holds its own values; None when the graph is gone."""
        if self._apply1 is None:
            g = self._graph()
            if g is None:
                return None
            from ._torch import fast_function
            self._apply1 = fast_function(g, self)
        if not self.dirty:
            self._applies[self.feat] = self._apply1
        return self._apply1

    def positions(self, order_src=False):
        """The device tensor (int32, flat's length) of the value index of
        each slot of "flat": positions in the graph's CSR (in src's order:
        src[position], when order_src), -1 for padding."""
        p = self._pos.get(order_src)
        if p is None:
            import torch
            import numpy as np
            ip, ix = self._structure
            slots = slot_positions(ip.numpy(), ix.numpy(), self.shape,
                                   self.candidate)
            host = np.full(self.flat.numel(), -1, dtype=np.int32)
            for n, (o, ln) in zip(self.vnames, self._offs):
                host[o:o + ln] = slots[n]
            p = torch.from_numpy(host).to(self.device)
            if order_src:
                src = self._src.to(torch.int32)
                p = torch.where(p >= 0, src[p.clamp(min=0).to(torch.int64)],
                                p)
            p = p.contiguous()
            self._pos[order_src] = p
        return p

    def _gather(self, order_src):
        """The Launch of the gather (GATHER_SOURCE, one kernel: flat[q] =
        values[positions[q]], 0 for padding) for positions of "order_src",
        writing "flat" (made once per order)."""
        g = self._gathers.get(order_src)
        if g is None:
            comp = _compiled("gather", 0, 0, self.index)
            sizes = lib.stir_bindings_alloc()
            if not sizes:
                raise MemoryError("stir: out of memory")
            _set_sizes(sizes, {"s": self.flat.numel(), "nnz": self.nnz})
            g = Launch(comp, sizes, {"P": self.positions(order_src)}, ["V"],
                       "F", (self.flat.numel(),), self.device,
                       out_tensor=self.flat)
            self._gathers[order_src] = g
        return g

    def set_values(self, values, order_src=False, owner=None):
        """Gather "values" (a 1-D tensor of nnz values on the device, in
        the graph's CSR order, or in src's when order_src) into the
        format's slots, on torch's current stream: one launch of the
        gather kernel (GATHER_SOURCE: no copy of the values, where they
        are float32, contiguous and 16-byte aligned) into "flat" through
        the slot positions; nothing done when they are the values
        gathered last and unchanged since: the same memory (address,
        element type, size) while its owner lives (the tensor gathered
        last, or "owner", a weak reference to what keeps the values'
        memory: the sparse tensor A of a graph cached on it, whose
        A.values() is a new alias each call), at the same version and
        order.  Nothing of it is recorded by autograd."""
        cur = self._cur
        if cur[1] == values.data_ptr() and cur[2] == values._version and \
                cur[3] == order_src and cur[4] == values.dtype and \
                cur[0]() is not None and values.numel() == self.nnz:
            return
        if values.numel() != self.nnz or values.dim() != 1 or \
                values.get_device() != self.index:
            raise ValueError("stir.spmm: values: shape %s on %s; the "
                             "graph's %d non-zeros (1-D) on %s are needed"
                             % (tuple(values.shape), values.device,
                                self.nnz, self.device))
        g = self._gathers.get(order_src)
        if g is None:
            g = self._gather(order_src)
        v = values.detach() if values.requires_grad else values
        if v.dtype is not self._f32 or not v.is_contiguous() or \
                v.data_ptr() % 16:
            import torch
            v = v.to(torch.float32).contiguous()
            v = v.clone() if v.data_ptr() % 16 else v
        g(v)
        self._cur = (owner or weakref.ref(values), values.data_ptr(),
                     values._version, order_src, values.dtype)
        self.dirty = values is not self._own or order_src
        if self.dirty:
            self._calls.pop(self.feat, None)
            self._applies.pop(self.feat, None)
        else:
            self._calls[self.feat] = self.call1
            if self._apply1 is not None:
                self._applies[self.feat] = self._apply1

    def __call__(self, B, values=None, order_src=False, owner=None):
        """self's matrix @ B (float32, contiguous, (n, feat), on the
        device: the caller checks) with its own values or "values" (see
        set_values, which takes "owner"); a new tensor."""
        if values is not None:
            self.set_values(values, order_src, owner)
        elif self.dirty:
            self.set_values(self._own)
        p = B.data_ptr()
        return self.call1(B, p) if not p % 16 else self.launch(B)


class GpuSddmm(object):
    """The SDDMM on a TorchGraph's CSR at one feature size: the candidate
    of the record's measured entries for this GPU, else the one the SDDMM
    cost model ranks first (sddmm_choice; .how says which; with "tune"
    (True, or the search's budget in seconds), the measured search of
    both SDDMM programs first when the record has no measured entry for
    this GPU: tune_sddmm), on the CSR arrays as they are.  Call with X (m, feat) and Y (n, feat), float32
    contiguous; a new tensor of the nnz values in the graph's order."""

    def __init__(self, g, feat, tune=False):
        import torch
        dev = g.indices.device
        index = dev.index if dev.index is not None else \
            torch.cuda.current_device()
        self.feat = int(feat)
        csr, keep = _host_csr(g.indptr, g.indices, g.values, g.shape)
        n_sms = torch.cuda.get_device_properties(index).multi_processor_count
        name = lib.stir_device_get_name(_device(index)).decode()
        self.candidate, self.how = sddmm_choice(csr, self.feat, n_sms, name)
        if tune and not self.how.startswith("measured"):
            budget = None if tune is True else float(tune)
            self.candidate, self.how = tune_sddmm(csr, self.feat, index,
                                                  budget, n_sms)
        del keep
        self.describe = describe_sddmm(self.candidate)
        comp = _compiled("sddmm", self.candidate, self.feat, index)
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
