"""sitecustomize.py - DLGEMM_TORCH=1 routes an unmodified program's cuBLAS
products (PyTorch's mm, bmm, addmm, linear, matmul, their backward
products, under torch.compile and DDP alike) to dlgemm where dlgemm is
measured to finish them sooner, with no change to its code:

    PYTHONPATH=<dlgemm>/python/autoload DLGEMM_TORCH=1 python3 model.py

Python imports sitecustomize at start-up, before the program imports torch.
This one loads libdlgemm.so with RTLD_GLOBAL and sets DLGEMM_CUBLAS=auto
(unless the environment says otherwise), so that the cuBLAS names torch
links resolve to dlgemm's (shims/cublas): each class of calls is measured
against cuBLAS once, on the caller's stream, and stays with cuBLAS unless
dlgemm wins it (plugin/api/rival.c); the others cost torch a table lookup.
It is what LD_PRELOAD=libdlgemm.so DLGEMM_CUBLAS=auto does, without a
wrapper script.  Nothing else is imported: a program that never uses
cuBLAS pays a library load.  Then the next sitecustomize on the path runs,
if any, so that a distribution's own still does.
"""
import importlib.machinery
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))


def _route_cublas():
    if "torch" in sys.modules:  # its cuBLAS names are bound already
        print("dlgemm: DLGEMM_TORCH=1 but torch was imported before sitecustomize ran: "
              "its products stay on cuBLAS", file=sys.stderr)
        return
    os.environ.setdefault("DLGEMM_CUBLAS", "auto")
    sys.path.insert(0, os.path.dirname(_here))
    try:
        import ctypes
        from dlgemm import _lib
        _lib.library(ctypes.RTLD_GLOBAL)
    except OSError as e:
        print("dlgemm: DLGEMM_TORCH=1 but libdlgemm.so did not load (%s): products stay on "
              "cuBLAS" % e, file=sys.stderr)
    finally:
        sys.path.remove(os.path.dirname(_here))


if os.environ.get("DLGEMM_TORCH", "") not in ("", "0"):
    _route_cublas()

_next = importlib.machinery.PathFinder.find_spec(
    "sitecustomize", [p for p in sys.path if os.path.abspath(p or ".") != _here])
if _next is not None and _next.loader is not None:
    _next.loader.exec_module(importlib.util.module_from_spec(_next))
