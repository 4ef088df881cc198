"""sitecustomize.py - DLGEMM_TORCH=1 sends an unmodified program's torch
products to dlgemm (dlgemm.torch.enable()), with no change to its code:

    PYTHONPATH=<dlgemm>/python/autoload DLGEMM_TORCH=1 python3 model.py

Python imports sitecustomize at start-up.  This one waits for the program's
own `import torch` (an import hook: a program that never imports torch pays
nothing, and torch is not imported earlier than the program asks), enables
dlgemm.torch once torch has finished importing, and then runs the next
sitecustomize on the path, if any, so that a distribution's own still runs.
"""
import importlib.machinery
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))


class _EnableAfterTorch:
    """A meta-path finder that finds nothing itself: it wraps torch's loader."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_enable(module):
            exec_module(module)
            sys.path.insert(0, os.path.dirname(_here))
            import dlgemm.torch
            if module.cuda.is_available():
                dlgemm.torch.enable()
            else:
                print("dlgemm: DLGEMM_TORCH=1 but torch sees no CUDA device: not enabled",
                      file=sys.stderr)
        spec.loader.exec_module = exec_then_enable
        return spec


if os.environ.get("DLGEMM_TORCH", "") not in ("", "0"):
    if "torch" in sys.modules:
        sys.path.insert(0, os.path.dirname(_here))
        import dlgemm.torch
        dlgemm.torch.enable()
    else:
        sys.meta_path.insert(0, _EnableAfterTorch())

_next = importlib.machinery.PathFinder.find_spec(
    "sitecustomize", [p for p in sys.path if os.path.abspath(p or ".") != _here])
if _next is not None and _next.loader is not None:
    _next.loader.exec_module(importlib.util.module_from_spec(_next))
