"""_dlgemm_autoload.py - at interpreter start, put dlgemm in front of the
program's cuBLAS when the autoload is on, before the program imports torch.

On when DLGEMM_TORCH is set to anything but 0; off when it is 0; unset,
whatever `python -m dlgemm autoload on|off` last wrote in
$XDG_CONFIG_HOME/dlgemm/autoload (else ~/.config/dlgemm/autoload).
Reached from the wheel's dlgemm-autoload.pth and from the source tree's
python/autoload/sitecustomize.py.  Costs an environment lookup and a stat
when off: it is imported by every interpreter of its environment.

On, it loads libdlgemm.so with RTLD_GLOBAL and sets DLGEMM_CUBLAS=auto
(unless set), so that the cuBLAS names a framework links resolve to
dlgemm's (shims/cublas): each class of products is measured against cuBLAS
once, on the caller's stream, and stays with cuBLAS unless dlgemm wins it.
It is LD_PRELOAD=libdlgemm.so DLGEMM_CUBLAS=auto without a wrapper script.
"""
import os
import sys


def switch_path():
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "dlgemm", "autoload")


def switched_on():
    v = os.environ.get("DLGEMM_TORCH")
    if v is not None and v != "":
        return v != "0"
    try:
        with open(switch_path()) as f:
            return f.read().strip() == "on"
    except OSError:
        return False


def route_cublas():
    if "torch" in sys.modules:  # its cuBLAS names are bound already
        print("dlgemm: the autoload is on but torch was imported before it ran: its products "
              "stay on cuBLAS", file=sys.stderr)
        return
    os.environ.setdefault("DLGEMM_CUBLAS", "auto")
    try:
        import ctypes
        from dlgemm import _lib
        _lib.library(ctypes.RTLD_GLOBAL)
    except OSError as e:
        print("dlgemm: the autoload is on but libdlgemm.so did not load (%s): products stay on "
              "cuBLAS" % e, file=sys.stderr)


if switched_on():
    route_cublas()
