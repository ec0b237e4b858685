"""Finding and declaring libstir (ctypes).

The library is looked for, in order: at $STIR_LIBRARY; in the build tree
this package sits in (python/stir -> ../../build/.libs/libstir.so); then by
the system's loader (ctypes.util.find_library("stir")).
"""
import ctypes
import ctypes.util
import os

c_void_p = ctypes.c_void_p
c_char_p = ctypes.c_char_p
c_int = ctypes.c_int
c_int64 = ctypes.c_int64


class Loc(ctypes.Structure):
    """stir_loc: a source location (file, line, col)."""
    _fields_ = [("file", c_char_p), ("line", c_int), ("col", c_int)]


class Csr(ctypes.Structure):
    """stir_csr: a CSR matrix with 64-bit structure and double values."""
    _fields_ = [("nrows", c_int64), ("ncols", c_int64), ("nnz", c_int64),
                ("indptr", ctypes.POINTER(c_int64)),
                ("indices", ctypes.POINTER(c_int64)),
                ("values", ctypes.POINTER(ctypes.c_double))]


class CompileOptions(ctypes.Structure):
    """stir_compile_options (include/stir/runtime.h)."""
    _fields_ = [("arch", c_char_p), ("device", c_void_p),
                ("n_extra", c_int), ("extra", c_void_p),
                ("flags", ctypes.c_uint), ("cache_dir", c_char_p),
                ("min_blocks_per_sm", c_int)]


class Extern(ctypes.Structure):
    """stir_gpu_extern: an array in the caller's device memory."""
    _fields_ = [("name", c_char_p), ("ptr", ctypes.c_uint64),
                ("bytes", ctypes.c_size_t), ("dtype", c_int)]


class SpmmMap(ctypes.Structure):
    """stir_spmm_map (include/stir/recipes.h)."""
    _fields_ = [("feat", c_int64), ("lanes", c_int64), ("vec", c_int64),
                ("chunks", c_int64), ("rows", c_int64), ("group", c_int64),
                ("warp_cache", ctypes.c_bool), ("serial", ctypes.c_bool)]


class HybridCandidate(ctypes.Structure):
    """stir_spmm_hybrid_candidate: a candidate of the hybrid SpMM."""
    _fields_ = [("c", c_int), ("nb", c_int), ("buckets", c_int64 * 8),
                ("threads", c_int), ("min_blocks", c_int), ("group", c_int),
                ("locality", ctypes.c_bool), ("warp_cache", ctypes.c_bool),
                ("serial_lanes", c_int)]


class SddmmMap(ctypes.Structure):
    """stir_sddmm_map (include/stir/recipes.h)."""
    _fields_ = [("feat", c_int64), ("lanes", c_int64), ("vec", c_int64),
                ("nnz", c_int64), ("chunks", c_int64), ("row_tile", c_int64)]


class SddmmCandidate(ctypes.Structure):
    """stir_sddmm_candidate: a candidate of the SDDMM."""
    _fields_ = [("rows", ctypes.c_bool), ("max_lanes", c_int64),
                ("threads", c_int64), ("x_global", ctypes.c_bool),
                ("chunks", c_int64), ("row_tile", c_int64)]


class MatrixSig(ctypes.Structure):
    """stir_matrix_sig: a matrix's shape and row-length histogram."""
    _fields_ = [("rows", c_int64), ("cols", c_int64), ("nnz", c_int64),
                ("hist", c_int64 * 40), ("rels", c_int64)]


class TuneEntry(ctypes.Structure):
    """stir_tune_entry: a key or entry of the tuning record."""
    _fields_ = [("program", ctypes.c_char * 65), ("recipe", c_int),
                ("device", ctypes.c_char * 64), ("feat", c_int64),
                ("sig", MatrixSig), ("cand", c_int),
                ("how", ctypes.c_char * 16), ("cost", ctypes.c_double),
                ("time_ms", ctypes.c_double)]


class TuneOptions(ctypes.Structure):
    """stir_tune_options (include/stir/tune.h)."""
    _fields_ = [("feat", c_int64), ("model_only", ctypes.c_bool),
                ("no_record", ctypes.c_bool), ("tf32", ctypes.c_bool),
                ("budget_s", ctypes.c_double),
                ("top", c_int), ("sms", c_int), ("cache_dir", c_char_p),
                ("program_text", c_char_p), ("program_file", c_char_p),
                ("matrix_name", c_char_p), ("device", c_void_p)]


class TuneResult(ctypes.Structure):
    """stir_tune_result (include/stir/tune.h); its arrays are freed by
    stir_tune_result_clear."""
    _fields_ = [("schedule", c_void_p), ("schedule_len", ctypes.c_size_t),
                ("cand", c_int), ("cost", ctypes.c_double),
                ("time_ms", ctypes.c_double), ("source", c_int),
                ("key", TuneEntry), ("similar", ctypes.c_bool),
                ("similar_entry", TuneEntry), ("n_compiled", c_int),
                ("n_timed", c_int), ("timed_cand", ctypes.POINTER(c_int)),
                ("timed_ms", ctypes.POINTER(ctypes.c_double)),
                ("schedule_s", ctypes.c_double),
                ("compile_s", ctypes.c_double),
                ("time_s", ctypes.c_double), ("n_nvrtc", c_int),
                ("n_dropped", c_int), ("search_cand", c_int),
                ("n_finalists", c_int),
                # STIR_TUNE_FINALISTS of each
                ("finalist_cand", c_int * 4),
                ("finalist_ms", ctypes.c_double * 4)]


class GpuTiming(ctypes.Structure):
    """stir_gpu_timing (include/stir/codegen.h)."""
    _fields_ = [("warmups", c_int), ("reps", c_int),
                ("median_ms", ctypes.c_double), ("min_ms", ctypes.c_double),
                ("max_ms", ctypes.c_double)]


def _candidates():
    env = os.environ.get("STIR_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    for up in ("../..", ".."):
        yield os.path.normpath(os.path.join(here, up, "build", ".libs",
                                            "libstir.so"))
    found = ctypes.util.find_library("stir")
    if found:
        yield found


def _open():
    tried = []
    for path in _candidates():
        if "/" in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("stir: libstir not found (set STIR_LIBRARY to the "
                      "path of libstir.so); tried: " + ", ".join(tried))


lib = _open()
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.free.argtypes = [c_void_p]
libc.free.restype = None

_PROTOS = {
    "stir_ctx_alloc": (c_void_p, []),
    "stir_ctx_free": (None, [c_void_p]),
    "stir_ctx_n_diagnostics": (c_int, [c_void_p]),
    "stir_ctx_n_errors": (c_int, [c_void_p]),
    "stir_ctx_get_diagnostic": (c_void_p, [c_void_p, c_int]),
    "stir_ctx_clear_diagnostics": (None, [c_void_p]),
    "stir_ctx_diagnostics_to_str": (c_void_p, [c_void_p]),
    "stir_diag_get_severity": (c_int, [c_void_p]),
    "stir_diag_get_loc": (Loc, [c_void_p]),
    "stir_diag_get_message": (c_char_p, [c_void_p]),
    "stir_module_read_from_file": (c_void_p, [c_void_p, c_char_p]),
    "stir_module_read_from_mem": (c_void_p,
                                  [c_void_p, c_char_p, c_char_p,
                                   ctypes.c_size_t]),
    "stir_module_free": (None, [c_void_p]),
    "stir_module_n_kernels": (c_int, [c_void_p]),
    "stir_module_get_kernel": (c_void_p, [c_void_p, c_int]),
    "stir_module_find_kernel": (c_void_p, [c_void_p, c_char_p]),
    "stir_kernel_get_name": (c_char_p, [c_void_p]),
    "stir_kernel_get_stage": (c_int, [c_void_p]),
    "stir_schedule_read_from_file": (c_void_p, [c_void_p, c_char_p]),
    "stir_schedule_free": (None, [c_void_p]),
    "stir_schedule_get_kernel_name": (c_char_p, [c_void_p]),
    "stir_schedule_find_kernel": (c_void_p, [c_void_p, c_void_p]),
    "stir_schedule_get_last_stage": (c_int, [c_void_p]),
    "stir_schedule_apply": (c_int, [c_void_p, c_void_p, c_int]),
    "stir_schedule_bind_sizes": (c_int, [c_void_p, c_void_p]),
    "stir_schedule_bind_formats": (c_int, [c_void_p, c_void_p, c_void_p]),
    "stir_array_alloc": (c_void_p, [c_void_p, c_int, c_int,
                                    ctypes.POINTER(c_int64)]),
    "stir_array_free": (None, [c_void_p]),
    "stir_array_get_dtype": (c_int, [c_void_p]),
    "stir_array_get_len": (c_int64, [c_void_p]),
    "stir_array_get_data": (c_void_p, [c_void_p]),
    "stir_dtype_get_size": (ctypes.c_size_t, [c_int]),
    "stir_bindings_alloc": (c_void_p, []),
    "stir_bindings_free": (None, [c_void_p]),
    "stir_bindings_set_size": (c_int, [c_void_p, c_char_p, c_int64]),
    "stir_bindings_get_array": (c_void_p, [c_void_p, c_char_p]),
    "stir_bindings_n_arrays": (c_int, [c_void_p]),
    "stir_bindings_get_array_name": (c_char_p, [c_void_p, c_int]),
    "stir_kernel_bind_array": (c_int, [c_void_p, c_void_p, c_char_p,
                                       c_void_p]),
    "stir_kernel_bind_csr": (c_int, [c_void_p, c_void_p, c_char_p,
                                     ctypes.POINTER(Csr)]),
    "stir_kernel_bind_outputs": (c_int, [c_void_p, c_void_p]),
    "stir_kernel_verify_bindings": (c_int, [c_void_p, c_void_p]),
    "stir_kernel_interpret": (c_int, [c_void_p, c_void_p]),
    "stir_kernel_get_array_shape": (c_int, [c_void_p, c_void_p, c_char_p,
                                            ctypes.POINTER(c_int),
                                            ctypes.POINTER(c_int64)]),
    "stir_kernel_get_array_names": (c_int, [c_void_p, c_int,
                                            ctypes.POINTER(c_char_p)]),
    "stir_kernel_copy": (c_void_p, [c_void_p, ctypes.POINTER(c_void_p)]),
    "stir_kernel_prepare_for_gpu": (c_int, [c_void_p]),
    "stir_schedule_prepare_for_gpu": (c_int, [c_void_p, c_void_p]),
    "stir_device_alloc": (c_void_p, [c_void_p, c_int]),
    "stir_device_free": (None, [c_void_p]),
    "stir_gpu_kernel_compile": (c_void_p, [c_void_p,
                                           ctypes.POINTER(CompileOptions)]),
    "stir_gpu_kernel_free": (None, [c_void_p]),
    "stir_gpu_run_alloc": (c_void_p, [c_void_p, c_void_p]),
    "stir_gpu_run_free": (None, [c_void_p]),
    "stir_gpu_run_bind_device": (c_int, [c_void_p, c_void_p, c_int,
                                         ctypes.POINTER(Extern)]),
    "stir_gpu_run_rebind_device": (c_int, [c_void_p, c_int,
                                           ctypes.POINTER(Extern)]),
    "stir_gpu_run_rebind_launch": (c_int, [c_void_p, c_int,
                                           ctypes.POINTER(Extern),
                                           ctypes.c_uint]),
    "stir_gpu_run_set_stream": (c_int, [c_void_p, c_void_p]),
    "stir_gpu_run_launch": (c_int, [c_void_p, ctypes.c_uint]),
    "stir_gpu_run_relaunch": (c_int, [c_void_p, ctypes.c_uint]),
    "stir_stream_wrap": (c_void_p, [c_void_p, c_void_p]),
    "stir_stream_free": (None, [c_void_p]),
    # the recipes and what python/stir/_fast.py prepares with them
    "stir_bindings_copy": (c_void_p, [c_void_p]),
    "stir_bindings_n_sizes": (c_int, [c_void_p]),
    "stir_bindings_get_size_name": (c_char_p, [c_void_p, c_int]),
    "stir_bindings_get_size": (ctypes.c_bool, [c_void_p, c_char_p,
                                               ctypes.POINTER(c_int64)]),
    "stir_spmm_hybrid_n_candidates": (c_int, []),
    "stir_spmm_hybrid_get_candidate": (ctypes.POINTER(HybridCandidate),
                                       [c_int]),
    "stir_spmm_hybrid_map": (SpmmMap, [ctypes.POINTER(HybridCandidate),
                                       c_int64]),
    "stir_spmm_hybrid_candidate_format_flags": (
        ctypes.c_uint, [ctypes.POINTER(HybridCandidate)]),
    "stir_spmm_hybrid_model_rank": (c_int, [
        ctypes.POINTER(Csr), c_int64, c_int, ctypes.POINTER(c_int),
        ctypes.POINTER(ctypes.c_double)]),
    "stir_recipe_spmm_hybrid": (c_int, [c_void_p, c_int, c_int,
                                        ctypes.POINTER(c_int64), SpmmMap]),
    "stir_sddmm_map_features": (SddmmMap, [c_int64]),
    "stir_recipe_sddmm": (c_int, [c_void_p, SddmmMap]),
    "stir_recipe_sddmm_rows": (c_int, [c_void_p, SddmmMap]),
    "stir_sddmm_n_candidates": (c_int, []),
    "stir_sddmm_get_candidate": (ctypes.POINTER(SddmmCandidate), [c_int]),
    "stir_sddmm_candidate_map": (SddmmMap, [ctypes.POINTER(SddmmCandidate),
                                         c_int64]),
    "stir_sddmm_model_rank": (c_int, [
        ctypes.POINTER(Csr), c_int64, c_int, ctypes.POINTER(c_int),
        ctypes.POINTER(ctypes.c_double)]),
    "stir_sddmm_rank": (c_int, [
        c_int, ctypes.POINTER(Csr), c_int64, c_int, ctypes.POINTER(c_int),
        ctypes.POINTER(ctypes.c_double)]),
    # the tuning record (include/stir/recipes.h)
    "stir_csr_get_sig": (None, [ctypes.POINTER(Csr),
                                  ctypes.POINTER(MatrixSig)]),
    "stir_tune_program_hash": (None, [c_char_p, ctypes.c_char * 65]),
    "stir_tune_record_find": (c_int, [
        c_void_p, c_char_p, ctypes.POINTER(TuneEntry), ctypes.c_double,
        ctypes.POINTER(TuneEntry)]),
    "stir_tune_record_store": (c_int, [c_void_p, c_char_p,
                                       ctypes.POINTER(TuneEntry)]),
    "stir_device_get_name": (c_char_p, [c_void_p]),
    # the tuner in one call (include/stir/tune.h)
    "stir_tune": (c_int, [c_void_p, c_void_p, ctypes.POINTER(Csr),
                          ctypes.POINTER(TuneOptions),
                          ctypes.POINTER(TuneResult)]),
    "stir_tune_result_clear": (None, [ctypes.POINTER(TuneResult)]),
    "stir_kernel_get_tune_key": (c_int, [c_void_p, ctypes.POINTER(Csr),
                              ctypes.POINTER(TuneOptions), c_void_p,
                              ctypes.POINTER(TuneEntry)]),
    "stir_tune_apply_candidate": (c_int, [c_void_p, c_int64, c_int]),
    "stir_csr_to_hybrid_flags": (c_void_p, [
        c_void_p, ctypes.POINTER(Csr), c_int, c_int, ctypes.POINTER(c_int64),
        c_int, c_int, c_char_p, ctypes.c_uint, c_void_p]),
    "stir_host_format_free": (None, [c_void_p]),
    "stir_cuda_plan_alloc": (c_void_p, [c_void_p, ctypes.c_uint]),
    "stir_cuda_plan_free": (None, [c_void_p]),
    "stir_cuda_plan_n_launches": (c_int, [c_void_p]),
    "stir_cuda_plan_get_launch_dims": (c_int, [
        c_void_p, c_int, c_void_p, ctypes.c_uint * 3, ctypes.c_uint * 3]),
    "stir_cuda_plan_n_args": (c_int, [c_void_p, c_int]),
    "stir_cuda_plan_get_arg_buffer": (c_void_p, [c_void_p, c_int, c_int]),
    "stir_buffer_get_array_name": (c_char_p, [c_void_p]),
    "stir_buffer_get_kind": (c_int, [c_void_p]),
    "stir_gpu_kernel_get_plan": (c_void_p, [c_void_p]),
    "stir_gpu_run_time": (c_int, [c_void_p, c_int, c_int,
                                  ctypes.POINTER(GpuTiming)]),
}

for _name, (_res, _args) in _PROTOS.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

# stir_gpu_run_relaunch without declared argument types, for the one
# foreign call of a prepared kernel's call (_fast.Launch.fast1): its
# caller passes a c_void_p object made once for the run and a Python int
# that fits a C int for the flags, so ctypes converts nothing per call
# (the declared form checks each argument's type); the new addresses are
# written into the stir_gpu_extern array the run borrowed at its last
# rebind.  PYFUNCTYPE keeps the GIL (the function calls no Python), which
# saves releasing and taking it again.
relaunch_raw = ctypes.PYFUNCTYPE(c_int)(("stir_gpu_run_relaunch", lib))
