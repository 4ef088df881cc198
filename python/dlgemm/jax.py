"""dlgemm.jax - dlgemm as an XLA custom call, for jitted JAX functions.

    import dlgemm.jax
    f = jax.jit(lambda a, b: dlgemm.jax.matmul(a, b))

The handlers are C functions of libdlgemm.so (plugin/api/xla.c, XLA's FFI C
ABI), registered here once through jax.ffi for the "CUDA" and "cpu"
platforms; the product runs on the stream XLA gives the call, inside the
compiled program, with no exchange through Python at run time.
"""
import jax
import jax.numpy as jnp
import numpy as np

from ._direct import _result_shape
from ._lib import PRECISIONS, library

TARGET = "dlgemm_matmul"
_registered = []


def register():
    """Register the custom-call target (idempotent)."""
    if _registered:
        return
    lib = library()
    for platform, symbol in (("CUDA", "dlgemm_xla_matmul_cuda"), ("cpu", "dlgemm_xla_matmul_cpu")):
        fn = getattr(lib, symbol)
        jax.ffi.register_ffi_target(TARGET, jax.ffi.pycapsule(fn), platform=platform)
    _registered.append(True)


def matmul(a, b, c=None, alpha=1.0, beta=0.0, precision="strict", out_dtype=None):
    """alpha * a @ b + beta * c as an XLA custom call on dlgemm.

    a: (batch,) m x k, b: (batch,) k x n, as for dlgemm.matmul; c (needed
    when beta != 0) has the result's shape and dtype, and is donated to it
    inside the computation.  out_dtype: float32 for float16/bfloat16 inputs
    accumulated into an FP32 result; by default a's dtype."""
    register()
    a, b = jnp.asarray(a), jnp.asarray(b)
    dtype = np.dtype(out_dtype) if out_dtype is not None else a.dtype
    out = jax.ShapeDtypeStruct(_result_shape(a.shape, b.shape), dtype)
    attrs = dict(alpha=np.float64(alpha), beta=np.float64(beta),
                 precision=np.int32(PRECISIONS[precision]))
    if beta != 0:
        if c is None:
            raise ValueError("dlgemm.jax.matmul: beta != 0 needs c")
        call = jax.ffi.ffi_call(TARGET, out, input_output_aliases={2: 0})
        return call(a, b, jnp.asarray(c, dtype), **attrs)
    return jax.ffi.ffi_call(TARGET, out)(a, b, **attrs)


__all__ = ["matmul", "register", "TARGET"]
