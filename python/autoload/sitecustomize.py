"""sitecustomize.py - the autoload from a source tree, with no install:

    PYTHONPATH=<dlgemm>/python/autoload DLGEMM_TORCH=1 python3 model.py

Python imports sitecustomize at start-up, before the program imports torch.
This one runs python/_dlgemm_autoload.py (what the wheel's .pth file runs:
it says what the autoload does), then the next sitecustomize on the path,
if any, so that a distribution's own still does.
"""
import importlib.machinery
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(_here))
try:
    import _dlgemm_autoload  # noqa: F401  (it acts on import)
finally:
    sys.path.remove(os.path.dirname(_here))

_next = importlib.machinery.PathFinder.find_spec(
    "sitecustomize", [p for p in sys.path if os.path.abspath(p or ".") != _here])
if _next is not None and _next.loader is not None:
    _next.loader.exec_module(importlib.util.module_from_spec(_next))
