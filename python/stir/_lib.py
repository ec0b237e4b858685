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
    "stir_dtype_size": (ctypes.c_size_t, [c_int]),
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
    "stir_kernel_check_bindings": (c_int, [c_void_p, c_void_p]),
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
    "stir_gpu_run_set_stream": (c_int, [c_void_p, c_void_p]),
    "stir_gpu_run_launch": (c_int, [c_void_p, ctypes.c_uint]),
    "stir_stream_wrap": (c_void_p, [c_void_p, c_void_p]),
    "stir_stream_free": (None, [c_void_p]),
}

for _name, (_res, _args) in _PROTOS.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args
