"""_lib.py - libdlgemm.so through ctypes: loaded once, its entry points typed,
and a failed status turned into DlgemmError with the library's message."""
import ctypes
import os

PRECISIONS = {"strict": 0, "tf32": 1, "3xtf32": 2}


class DlgemmError(RuntimeError):
    """A failed call: status is the dlgemm_status code."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class Options(ctypes.Structure):  # dlgemm_options
    _fields_ = [("struct_size", ctypes.c_size_t), ("precision", ctypes.c_int),
                ("backend", ctypes.c_int), ("stream", ctypes.c_void_p)]


_lib = None


def path():
    """Where the library is taken from: ``$DLGEMM_LIBRARY``, else the copy an
    installed wheel holds beside this file, else ``libdlgemm.so.0`` on the
    loader's path."""
    packaged = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libdlgemm.so.0")
    return os.environ.get("DLGEMM_LIBRARY") or (
        packaged if os.path.exists(packaged) else "libdlgemm.so.0")


def library(mode=ctypes.DEFAULT_MODE):
    """libdlgemm.so (path()), loaded once, with its ABI version 2 entry points
    typed.  mode: dlopen's flags for the first load (ctypes.RTLD_GLOBAL puts
    its cuBLAS names ahead of the libraries loaded after it: the autoload)."""
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(path(), mode=mode)
        args = [ctypes.c_void_p] * 3 + [ctypes.c_double] * 2 + [ctypes.c_void_p]
        for fn in (lib.dlgemm_matmul, lib.dlgemm_matmul_versioned, lib.dlgemm_matmul_managed):
            fn.argtypes, fn.restype = args, ctypes.c_int
        lib.dlgemm_last_error.restype = ctypes.c_char_p
        lib.dlgemm_status_string.restype = ctypes.c_char_p
        lib.dlgemm_status_string.argtypes = [ctypes.c_int]
        lib.dlgemm_version.restype = ctypes.c_char_p
        _lib = lib
    return _lib


def error(status):
    """The DlgemmError of a failed call, with this thread's last message."""
    lib = library()
    return DlgemmError(status, "dlgemm: %s: %s" % (lib.dlgemm_status_string(status).decode(),
                                                   lib.dlgemm_last_error().decode()))
