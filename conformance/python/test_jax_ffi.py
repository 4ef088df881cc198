"""test_jax_ffi.py - dlgemm as an XLA custom call (dlgemm.jax) inside jitted
JAX functions, against an FP64 product, on every platform JAX has here (cpu;
and gpu on the GPU machine).

usage: test_jax_ffi.py [calls]

Checks: float32 (strict and tf32), float64, bfloat16 and float16 with a
16-bit or a float32 result; sizes 1 to 509 (primes, non-multiples of every
tile); batches and a broadcast 2-D operand; alpha, and beta through the
aliased c; products inside a larger jitted function (ordered on XLA's
stream with the work around them); refused calls raising dlgemm's message;
`calls` calls of one jitted function with resident memory flat.
Exit 77 (skip) without jax.
"""
import os
import sys

import numpy as np

from checks import SKIP, check, rss_bytes, verdict  # noqa: E402


def bound(ha, hb, unit_acc, unit_out, hc=None, beta=0.0):
    k = ha.shape[-1]
    mag = np.matmul(np.abs(ha), np.abs(hb))
    return (2 * max(k, 1) * unit_acc + unit_out) * mag + \
        (2 * unit_out * np.abs(beta * hc) if hc is not None else 0) + 1e-300


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as e:
        print("SKIP: jax is not installed here: %s" % e)
        return SKIP
    jax.config.update("jax_enable_x64", True)
    import dlgemm.jax as dj
    rng = np.random.default_rng(20261124)
    print("jax %s, platforms: %s" % (jax.__version__,
                                     sorted({d.platform for d in jax.devices()} | {"cpu"})))
    platforms = ["cpu"] + (["gpu"] if any(d.platform == "gpu" for d in jax.devices()) else [])
    dtypes = (("float32", "float32", 2.0 ** -24, 2.0 ** -24, "strict"),
              ("float32", "float32", 2.0 ** -24, 2.0 ** -9, "tf32"),
              ("float64", "float64", 2.0 ** -53, 2.0 ** -53, "strict"),
              ("bfloat16", "bfloat16", 2.0 ** -24, 2.0 ** -8, "strict"),
              ("bfloat16", "float32", 2.0 ** -24, 2.0 ** -24, "strict"),
              ("float16", "float16", 2.0 ** -24, 2.0 ** -11, "strict"))
    for platform in platforms:
        dev = jax.devices(platform)[0]
        for dt, out_dt, u_acc, u_out, precision in dtypes:
            f = jax.jit(lambda a, b, out_dt=out_dt, precision=precision:
                        dj.matmul(a, b, precision=precision, out_dtype=out_dt))
            for m, n, k in ((1, 1, 1), (7, 5, 3), (129, 67, 33), (300, 200, 509)):
                ha = rng.standard_normal((m, k)).astype(dt if dt != "bfloat16" else "float32")
                hb = rng.standard_normal((k, n)).astype(dt if dt != "bfloat16" else "float32")
                a = jax.device_put(jnp.asarray(ha, dt), dev)
                b = jax.device_put(jnp.asarray(hb, dt), dev)
                ha, hb = np.asarray(a, np.float64), np.asarray(b, np.float64)
                got = f(a, b)
                check(got.dtype == np.dtype(jnp.dtype(out_dt)) and got.shape == (m, n),
                      "%s %s->%s %dx%dx%d: result %s %s" % (platform, dt, out_dt, m, n, k,
                                                            got.dtype, got.shape))
                err = np.abs(np.asarray(got, np.float64) - ha @ hb)
                check(np.all(err <= bound(ha, hb, u_acc, u_out)),
                      "%s %s->%s %s %dx%dx%d: error %.3g over the bound"
                      % (platform, dt, out_dt, precision, m, n, k, err.max()))
        # Batches, a broadcast operand, alpha and beta through the aliased c.
        a = jax.device_put(jnp.asarray(rng.standard_normal((4, 33, 17)), jnp.float32), dev)
        b = jax.device_put(jnp.asarray(rng.standard_normal((17, 29)), jnp.float32), dev)
        c = jax.device_put(jnp.asarray(rng.standard_normal((4, 33, 29)), jnp.float32), dev)
        ha, hb, hc = (np.asarray(x, np.float64) for x in (a, b, c))
        got = jax.jit(lambda a, b, c: dj.matmul(a, b, c, alpha=-2.0, beta=0.5))(a, b, c)
        ref = -2.0 * (ha @ hb) + 0.5 * hc
        check(np.all(np.abs(np.asarray(got, np.float64) - ref) <=
                     2 * bound(ha, hb, 2.0 ** -24, 2.0 ** -24, hc, 0.5)),
              "%s batch x 2-D, alpha -2 beta 0.5" % platform)
        # Inside a larger function: ordered with the work before and after it.
        g = jax.jit(lambda a, b: jnp.sum(dj.matmul(a * 2.0, b) + 1.0, axis=-1))
        got = np.asarray(g(a, b), np.float64)
        check(np.allclose(got, np.sum(2 * (ha @ hb) + 1.0, axis=-1), rtol=1e-5, atol=1e-4),
              "%s: the custom call inside a jitted function" % platform)
        # Refused: the shapes disagree; an unknown attribute.
        bad = jax.device_put(jnp.ones((16, 29), jnp.float32), dev)
        try:
            np.asarray(jax.jit(lambda a, b: dj.matmul(a, b))(a, bad))
            check(False, "%s: a shape mismatch was accepted" % platform)
        except Exception as e:  # noqa: BLE001 - XLA raises its runtime error type
            check("dlgemm" in str(e) and "shape" in str(e).lower(),
                  "%s: shape mismatch message: %s" % (platform, e))
        try:
            call = jax.ffi.ffi_call(dj.TARGET, jax.ShapeDtypeStruct((33, 29), jnp.float32))
            np.asarray(jax.jit(lambda a, b: call(a, b, gamma=np.float64(1)))(a[0], b))
            check(False, "%s: an unknown attribute was accepted" % platform)
        except Exception as e:  # noqa: BLE001
            check("attribute 'gamma'" in str(e), "%s: unknown attribute message: %s"
                  % (platform, e))
        # Many calls: memory flat.
        a2 = jax.device_put(jnp.ones((16, 16), jnp.float32), dev)
        h = jax.jit(lambda a: dj.matmul(a, a))
        for _ in range(200):
            h(a2).block_until_ready()
        rss0 = rss_bytes()
        for _ in range(calls):
            r = h(a2)
        r.block_until_ready()
        grown = rss_bytes() - rss0
        print("%s: %d calls, RSS %+.1f MB" % (platform, calls, grown / 2 ** 20))
        check(grown < 16 * 2 ** 20, "%s: RSS grew by %.1f MB" % (platform, grown / 2 ** 20))
        check(float(np.asarray(r)[0, 0]) == 16.0, "%s: 16 x 16 of ones" % platform)
    return verdict("jax ffi")


if __name__ == "__main__":
    sys.exit(main())
