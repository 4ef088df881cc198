"""_dlgemm_autoload.py - at interpreter start, put dlgemm in front of the
program's cuBLAS (torch) and of XLA's dot (JAX) when the autoload is on,
before the program imports either.

For torch: on when DLGEMM_TORCH is set to anything but 0; off when it is 0;
unset, whatever `python -m dlgemm autoload on|off` last wrote in
$XDG_CONFIG_HOME/dlgemm/autoload (else ~/.config/dlgemm/autoload).  For
JAX: on only when DLGEMM_JAX is set to anything but 0, never by the switch,
because its measured rule compares dlgemm with cuBLAS and not with XLA's
own, fused path: a jitted training step ran at 0.965x plain JAX with it
(bench/NOTES.md), and the switch must not make a program slower.
Reached from the wheel's dlgemm-autoload.pth and from the source tree's
python/autoload/sitecustomize.py.  Costs an environment lookup and a stat
when off: it is imported by every interpreter of its environment.

On, for torch, it loads libdlgemm.so with RTLD_GLOBAL and sets
DLGEMM_CUBLAS=auto (unless set), so that the cuBLAS names a framework
links resolve to dlgemm's (shims/cublas): each class of products is
measured against cuBLAS once, on the caller's stream, and stays with
cuBLAS unless dlgemm wins it.  It is LD_PRELOAD=libdlgemm.so
DLGEMM_CUBLAS=auto without a wrapper script.

For JAX it waits, at no cost, for the program to import jax, and then
registers dlgemm.jax's lowering rule for dot_general (dlgemm.jax.route()):
XLA links its cuBLAS privately, so no name of the process can stand in
front of it; the handler measures each class against the program's cuBLAS.
"""
import os
import sys


def switch_path():
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "dlgemm", "autoload")


def switched_on(variable="DLGEMM_TORCH"):
    v = os.environ.get(variable)
    if v is not None and v != "":
        return v != "0"
    if variable != "DLGEMM_TORCH":  # the switch is torch's alone (see above)
        return False
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


def route_jax():
    # DLGEMM_CUBLAS: dlgemm.jax.route() sets auto (unless set) when jax is imported
    try:
        import dlgemm  # noqa: F401  now, while a source tree's python/ is on the path
    except ImportError as e:
        print("dlgemm: the autoload is on but the dlgemm package does not import (%s): "
              "products stay on XLA's" % e, file=sys.stderr)
        return
    if "jax" in sys.modules:
        return _jax_imported()
    sys.meta_path.insert(0, _AfterJax())


def _jax_imported():
    try:
        import dlgemm.jax
        dlgemm.jax.route("cuda")
    except Exception as e:  # noqa: BLE001 - the program must run on without dlgemm
        print("dlgemm: the autoload is on but its JAX lowering was not registered (%s): "
              "products stay on XLA's" % e, file=sys.stderr)


class _AfterJax:
    """A finder on sys.meta_path that answers nothing itself: it lets the
    others find jax, and runs _jax_imported once jax's module has run."""
    busy = False

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "jax" or self.busy:
            return None
        import importlib.util
        self.busy = True
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self.busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            _jax_imported()
        spec.loader.exec_module = exec_module
        return spec


if switched_on():
    route_cublas()
if switched_on("DLGEMM_JAX"):
    route_jax()
