"""dlgemm.jax - dlgemm as an XLA custom call, for jitted JAX functions.

    import dlgemm.jax
    f = jax.jit(lambda a, b: dlgemm.jax.matmul(a, b))     # by name: always dlgemm
    dlgemm.jax.route()                                    # every dot_general: measured

The handlers are C functions of libdlgemm.so (shims/xla/xla.c, XLA's FFI C
ABI), registered here once through jax.ffi for the "CUDA" and "cpu"
platforms; the product runs on the stream XLA gives the call, inside the
compiled program, with no exchange through Python at run time.

route() puts a lowering rule in front of XLA's own for dot_general, so that
an unmodified jitted program's products reach the handler (the autoload
does it with DLGEMM_JAX=1).  The rule takes a product whose operands lie as
a (batched) matrix product, either operand transposed, and hands them over
as they lie; there each class of products is measured against the
program's cuBLAS on its first call and kept by the faster (DLGEMM_CUBLAS,
as for torch).  What it does not take keeps XLA's rule: a precision or
algorithm dlgemm does not compute the same way, mixed types, empty or
non-matrix contractions, and products that XLA's SPMD partitioner must see
as dots (a jit over several devices with automatic sharding; the per-device
code of shard_map and pmap is taken).
"""
import os

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


def _plan(lhs, rhs, out, dimension_numbers, precision, platform):
    """How a dot_general lies as dlgemm's product, or None (XLA keeps it).

    Returns (a_shape, trans_a, b_shape, trans_b, c_shape, precision name):
    the operands reshaped (free, contiguous reshapes) to (batch,) rows x cols
    as stored, whether each is read transposed, and the result's shape."""
    from jax import lax
    (lc, rc), (lb, rb) = dimension_numbers
    nb = len(lb)
    kinds = {"float16", "bfloat16", "float32", "float64"}
    if (len(lc) != 1 or len(rc) != 1 or tuple(lb) != tuple(range(nb)) or
            tuple(rb) != tuple(range(nb)) or lhs.dtype != rhs.dtype or
            lhs.dtype.name not in kinds or out.dtype.name not in kinds or
            (out.dtype != lhs.dtype and
             (out.dtype.name != "float32" or lhs.dtype.itemsize != 2)) or
            0 in lhs.shape or 0 in rhs.shape):
        return None
    same = isinstance(precision, tuple) and precision[0] == precision[1]
    if precision is not None and not same:
        return None  # an algorithm preset, or two precisions: XLA's own arithmetic
    if lhs.dtype.name != "float32" or platform == "cpu":
        name = "strict"  # XLA's CPU dots are FP32 at every precision
    elif precision is None or precision[0] == lax.Precision.DEFAULT:
        name = "tf32"  # what XLA's GPU dots do at the default precision
    elif precision[0] == lax.Precision.HIGHEST:
        name = "strict"
    else:
        return None  # HIGH: no arithmetic of dlgemm's is XLA's
    lc, rc = lc[0], rc[0]
    batch = int(np.prod(lhs.shape[:nb], dtype=np.int64))
    k = lhs.shape[lc]
    m = int(np.prod([d for i, d in enumerate(lhs.shape) if i >= nb and i != lc], dtype=np.int64))
    n = int(np.prod([d for i, d in enumerate(rhs.shape) if i >= nb and i != rc], dtype=np.int64))
    if lc == lhs.ndim - 1:
        a_shape, ta = (m, k), 0
    elif lc == nb:
        a_shape, ta = (k, m), 1
    else:
        return None
    if rc == nb:
        b_shape, tb = (k, n), 0
    elif rc == rhs.ndim - 1:
        b_shape, tb = (n, k), 1
    else:
        return None
    lead = (batch,) if nb else ()
    return lead + a_shape, ta, lead + b_shape, tb, lead + (m, n), name


def _per_device(ctx):
    """Whether the module being lowered is one device's code (XLA's SPMD
    partitioner will not split a custom call: a sharded jit's dots stay dots)."""
    axis = ctx.module_context.axis_context
    kind = type(axis).__name__
    if kind == "ShardingContext":
        return axis.num_devices == 1
    if kind == "SPMDAxisContext":
        return set(axis.manual_axes) == set(axis.mesh.axis_names)
    return True


_routes = {}


def route(platform="cuda"):
    """Lower dot_general through dlgemm on `platform` ("cuda"; "cpu" runs
    the same rule on the CPU handler, for tests).  Idempotent.  Returns the
    rule XLA had, which still lowers whatever dlgemm does not take.  The
    handler measures each class against cuBLAS under DLGEMM_CUBLAS, set to
    auto here unless set (off: cuBLAS makes every routed product; on:
    dlgemm makes every one it can); it must be set before the library's
    first call reads the settings."""
    if platform in _routes:
        return _routes[platform]
    os.environ.setdefault("DLGEMM_CUBLAS", "auto")
    from jax import lax
    from jax.interpreters import mlir
    from jax._src.interpreters import mlir as mlir_impl
    register()
    prim = lax.dot_general_p
    entry = mlir_impl._platform_specific_lowerings[platform].get(prim) or mlir_impl._lowerings[prim]
    theirs = entry.rule

    def rule(ctx, lhs, rhs, *, dimension_numbers, precision, preferred_element_type, **params):
        plan = None
        if _per_device(ctx):
            plan = _plan(ctx.avals_in[0], ctx.avals_in[1], ctx.avals_out[0],
                         dimension_numbers, precision, platform)
        if plan is None:
            return theirs(ctx, lhs, rhs, dimension_numbers=dimension_numbers, precision=precision,
                          preferred_element_type=preferred_element_type, **params)
        a_shape, ta, b_shape, tb, c_shape, name = plan
        out = ctx.avals_out[0]
        call = jax.ffi.ffi_call(TARGET, jax.ShapeDtypeStruct(c_shape, out.dtype))

        def product(x, y):
            z = call(x.reshape(a_shape), y.reshape(b_shape), precision=np.int32(PRECISIONS[name]),
                     trans_a=np.int32(ta), trans_b=np.int32(tb), route=np.int32(1))
            return z.reshape(out.shape)
        return mlir.lower_fun(product, multiple_results=False)(ctx, lhs, rhs)

    mlir.register_lowering(prim, rule, platform=platform)
    _routes[platform] = theirs
    return theirs


__all__ = ["matmul", "register", "route", "TARGET"]
