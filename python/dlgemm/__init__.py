"""dlgemm - C = alpha * A @ B + beta * C on any DLPack tensor, with ctypes only.

Loads libdlgemm.so (``$DLGEMM_LIBRARY``, else the copy an installed wheel
holds, else ``libdlgemm.so.0`` on the loader's path: _lib.path()) and
multiplies objects that speak the Python DLPack protocol
(``__dlpack__`` / ``__dlpack_device__``): NumPy, PyTorch, CuPy, JAX...
Nothing is compiled on the Python side.

    import dlgemm
    c = dlgemm.matmul(a, b)                      # a tensor of a's framework
    dlgemm.matmul(a, b, out=c, alpha=2, beta=1)  # in place, returns c

    import dlgemm.torch; dlgemm.torch.enable()   # torch's CUDA mm/bmm/addmm/matmul
    import dlgemm.jax; dlgemm.jax.matmul(a, b)   # an XLA custom call, jit-able

Two paths give the same product: torch CUDA tensors on the current device
and stream, and NumPy arrays, are described to the library directly
(_direct.py says why that keeps the protocol's guarantees); everything else
goes through the DLPack capsule exchange (_dlpack.py).
"""
from . import _direct
from ._dlpack import live_exports, matmul_dlpack
from ._lib import DlgemmError, library

__all__ = ["matmul", "DlgemmError", "library", "live_exports"]


def matmul(a, b, out=None, alpha=1.0, beta=0.0, precision="strict", stream=None):
    """out = alpha * a @ b + beta * out (out is not read when beta == 0).

    a: m x k or batch x m x k, b: k x n or batch x k x n (a batch of one, or
    a 2-D operand, is broadcast); float32 or float64 (float16 and bfloat16
    where the framework has them), on the host or one GPU.
    Returns out, or a new tensor of a's framework when out is None.
    precision: "strict" (IEEE FP32), "tf32" or "3xtf32" for float32 inputs.
    stream: the CUDA stream to queue the product on (an int handle, or a
    torch/cupy stream); by default the framework's current stream.
    """
    direct = _direct_for(type(a), _DECLINED)
    if direct is _DECLINED:
        direct = _direct_by_type[type(a)] = _direct.adapter(type(a))
        _direct.bind()
    if direct is not None:
        r = direct(a, b, out, alpha, beta, precision, stream)
        if r is not _DECLINED:
            return r
    return matmul_dlpack(a, b, out, alpha, beta, precision, stream)


_DECLINED = _direct.DECLINED
_direct_by_type = {}  # type of a -> the direct path's matmul for it, or None
_direct_for = _direct_by_type.get
