"""test_frameworks.py - python/dlgemm (the ctypes package) against each framework's own matmul.

usage: test_frameworks.py numpy|torch|cupy|jax [calls]

Runs the same checks on tensors of one framework: sizes from 1 to a few
hundred (primes, non-multiples of every tile), every transpose, sliced views
whose leading dimension exceeds the rows, batches with a broadcast operand,
out= with alpha and beta (beta = 0 over a NaN-filled out), refused calls
that leave out untouched, the capsule protocol over `calls` calls (deleters
balanced, no memory growth), and on GPUs the stream contract and a second
device.  Exit 77 (skip) when the framework or its GPU is missing.

Tolerance: every element within 2 * k * u * (|A| |B|)_ij + 2 * u * |beta C|_ij
of an FP64 product (u = 2^-24 for float32, 2^-53 for float64), and the
framework's own matmul within the same bound, so the two agree to twice it.
"""
import gc
import os
import sys
import time

import numpy as np

from checks import SKIP, check, rss_bytes, verdict  # noqa: E402 (and dlgemm on the path)
import dlgemm  # noqa: E402

rng = np.random.default_rng(int(os.environ.get("DLGEMM_TEST_SEED", "20261122")))


# --- one adapter per framework: make tensors, read them back, its own matmul ----
class Numpy:
    gpu, mutable, dtypes = False, True, ("float32", "float64")

    def tensor(self, host):
        return np.array(host)

    def host(self, x):
        return np.asarray(x, dtype=np.float64)

    def mm(self, a, b):
        return np.matmul(a, b)

    def t(self, x):
        return np.swapaxes(x, -1, -2)

    def read_only(self, x):
        x.flags.writeable = False
        return x


class Torch:
    gpu, mutable, dtypes = True, True, ("float32",)

    def __init__(self):
        import torch
        if not torch.cuda.is_available():
            raise ImportError("no CUDA device for torch")
        torch.backends.cuda.matmul.allow_tf32 = False
        self.torch, self.dev = torch, "cuda:0"

    def tensor(self, host):
        return self.torch.from_numpy(np.ascontiguousarray(host)).to(self.dev)

    def host(self, x):
        return x.detach().cpu().double().numpy()

    def mm(self, a, b):
        return self.torch.matmul(a, b)

    def t(self, x):
        return x.transpose(-1, -2)

    def sync(self):
        self.torch.cuda.synchronize()


class Cupy:
    gpu, mutable, dtypes = True, True, ("float32",)

    def __init__(self):
        import cupy
        cupy.cuda.runtime.getDeviceCount()
        self.cp = cupy

    def tensor(self, host):
        return self.cp.asarray(host)

    def host(self, x):
        return self.cp.asnumpy(x).astype(np.float64)

    def mm(self, a, b):
        return self.cp.matmul(a, b)

    def t(self, x):
        return self.cp.swapaxes(x, -1, -2)

    def sync(self):
        self.cp.cuda.runtime.deviceSynchronize()


class Jax:
    gpu, mutable, dtypes = True, False, ("float32",)  # JAX arrays are immutable: no out=

    def __init__(self):
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        import jax
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp
        self.device = jax.devices("gpu")[0]

    def tensor(self, host):
        return self.jax.device_put(self.jnp.asarray(host), self.device)

    def host(self, x):
        return np.asarray(x, dtype=np.float64)

    def mm(self, a, b):
        return self.jnp.matmul(a, b, precision=self.jax.lax.Precision.HIGHEST)

    def t(self, x):
        return self.jnp.swapaxes(x, -1, -2)

    def sync(self):
        pass


# --- helpers ------------------------------------------------------------------------
def unit(dtype):
    return 2.0 ** -53 if dtype == "float64" else 2.0 ** -24


def bound(ha, hb, hc0, beta, dtype):
    """The dot-product bound; "tf32" (float32 under the TF32 policy) adds
    each product's input rounding, 10 mantissa bits kept of each factor."""
    k = ha.shape[-1]
    per_product = 2.0 ** -9 if dtype == "tf32" else 0.0
    return (2 * max(k, 1) * unit(dtype) + per_product) * np.matmul(np.abs(ha), np.abs(hb)) + \
        2 * unit(dtype) * np.abs(beta * hc0) + 1e-300


def compare(fw, what, a, b, got, alpha=1.0, beta=0.0, c0=None, dtype="float32"):
    ha, hb, hg = fw.host(a), fw.host(b), fw.host(got)
    hc0 = np.zeros_like(hg) if c0 is None else c0
    ref = alpha * np.matmul(ha, hb) + (beta * hc0 if beta else 0)
    tol = abs(alpha) * bound(ha, hb, hc0, beta, dtype)
    check(hg.shape == ref.shape, "%s: shape %s, expected %s" % (what, hg.shape, ref.shape))
    if hg.shape != ref.shape:
        return
    err = np.abs(hg - ref)
    check(np.all(err <= tol), "%s: max error %.3g over bound (worst ratio %.3g)"
          % (what, err.max(), (err / tol).max()))
    theirs = alpha * fw.host(fw.mm(a, b)) + (beta * hc0 if beta else 0)
    check(np.all(np.abs(hg - theirs) <= 2 * tol),
          "%s: differs from the framework's matmul by %.3g" % (what, np.abs(hg - theirs).max()))


def rand(shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


# --- the checks -----------------------------------------------------------------------
def products(fw):
    for dtype in fw.dtypes:
        for m, n, k in ((1, 1, 1), (7, 5, 3), (64, 64, 64), (129, 67, 33), (300, 200, 509)):
            for ta in (False, True):
                for tb in (False, True):
                    a = fw.tensor(rand((k, m) if ta else (m, k), dtype))
                    b = fw.tensor(rand((n, k) if tb else (k, n), dtype))
                    a, b = (fw.t(a) if ta else a), (fw.t(b) if tb else b)
                    compare(fw, "%s %dx%dx%d %s%s" % (dtype, m, n, k, "T" if ta else "N",
                                                     "T" if tb else "N"),
                            a, b, dlgemm.matmul(a, b), dtype=dtype)
        # Views into larger tensors: leading dimension above the rows, an offset.
        big_a, big_b = fw.tensor(rand((90, 70), dtype)), fw.tensor(rand((80, 60), dtype))
        a, b = big_a[3:60, 5:49], big_b[7:51, 2:41]
        compare(fw, dtype + " sliced views", a, b, dlgemm.matmul(a, b), dtype=dtype)
        a = fw.t(big_a[3:47, 5:60])
        compare(fw, dtype + " transposed sliced view", a, b, dlgemm.matmul(a, b), dtype=dtype)
        # Batches, with a 2-D operand and with a batch of one broadcast.
        a, b = fw.tensor(rand((4, 33, 17), dtype)), fw.tensor(rand((17, 29), dtype))
        compare(fw, dtype + " batch x 2-D", a, b, dlgemm.matmul(a, b), dtype=dtype)
        a, b = fw.tensor(rand((1, 33, 17), dtype)), fw.tensor(rand((5, 17, 29), dtype))
        compare(fw, dtype + " batch of one x batch", a, b, dlgemm.matmul(a, b), dtype=dtype)
        b = fw.t(fw.tensor(rand((5, 29, 17), dtype)))
        compare(fw, dtype + " batch of transposes", a, b, dlgemm.matmul(a, b), dtype=dtype)
        a = fw.tensor(rand((40, 30), dtype))
        b = fw.tensor(rand((30, 20), dtype))
        compare(fw, dtype + " tf32 policy", a, b, dlgemm.matmul(a, b, precision="tf32"),
                dtype="tf32" if dtype == "float32" else dtype)
        compare(fw, dtype + " 3xtf32 policy", a, b, dlgemm.matmul(a, b, precision="3xtf32"),
                dtype=dtype)


def with_out(fw):
    if not fw.mutable:
        print("note: out= is not checked: %s arrays are immutable" % type(fw).__name__)
        return
    for dtype in fw.dtypes:
        a, b = fw.tensor(rand((37, 23), dtype)), fw.tensor(rand((23, 41), dtype))
        c0 = rand((37, 41), dtype)
        out = fw.tensor(c0)
        r = dlgemm.matmul(a, b, out=out, alpha=2.0, beta=0.5)
        check(r is out, "out= returns out")
        compare(fw, dtype + " alpha 2 beta 0.5 into out", a, b, out, 2.0, 0.5,
                c0.astype(np.float64), dtype)
        out = fw.tensor(np.full((37, 41), np.nan, dtype))
        dlgemm.matmul(a, b, out=out, alpha=-1.0, beta=0.0)
        compare(fw, dtype + " beta 0 over NaN", a, b, out, -1.0, dtype=dtype)
        # Refused: the shapes disagree; out keeps its bits.
        out = fw.tensor(c0[:36])
        try:
            dlgemm.matmul(a, b, out=out)
            check(False, "a shape mismatch was accepted")
        except dlgemm.DlgemmError as e:
            check(e.status == 4 and "C is 36x41" in str(e), "shape mismatch message: %s" % e)
        check(np.array_equal(fw.host(out), c0[:36].astype(np.float64)), "refused call wrote out")
        # A read-only out (where the framework can mark one).
        if hasattr(fw, "read_only"):
            out = fw.read_only(fw.tensor(c0))
            try:
                dlgemm.matmul(a, b, out=out)
                check(False, "a read-only out was written")
            except dlgemm.DlgemmError as e:  # DLPack 1.x: the flag reaches dlgemm
                check(e.status == 16 and "read-only" in str(e), "read-only message: %s" % e)
            except BufferError as e:  # older producers refuse to export it at all
                print("note: %s refuses to export a read-only array: %s" % (type(fw).__name__, e))
            check(np.array_equal(fw.host(out), c0.astype(np.float64)), "read-only out changed")


def capsules_balanced(fw, calls):
    """calls products, half of them allocating their result: the inputs' reference
    counts come back (their deleters ran exactly once), every export of ours was
    deleted, and memory does not grow."""
    a, b = fw.tensor(rand((16, 16), "float32")), fw.tensor(rand((16, 16), "float32"))
    out = fw.tensor(rand((16, 16), "float32")) if fw.mutable else None
    for _ in range(200):  # warm-up: caches, first-use allocations
        dlgemm.matmul(a, b)
    gc.collect()
    refs = (sys.getrefcount(a), sys.getrefcount(b))
    rss0 = rss_bytes()
    for i in range(calls):
        r = dlgemm.matmul(a, b, out=out if i % 2 and out is not None else None)
        del r
    if fw.gpu:
        fw.sync()
    gc.collect()
    grown = rss_bytes() - rss0
    print("%d calls: reference counts %s -> %s, exports alive %d, RSS %+.1f MB"
          % (calls, refs, (sys.getrefcount(a), sys.getrefcount(b)), dlgemm.live_exports(),
             grown / 2 ** 20))
    check((sys.getrefcount(a), sys.getrefcount(b)) == refs,
          "input reference counts changed: deleters unbalanced")
    check(dlgemm.live_exports() == 0, "%d exported results were never deleted"
          % dlgemm.live_exports())
    check(grown < 16 * 2 ** 20, "RSS grew by %.1f MB over %d calls" % (grown / 2 ** 20, calls))


def torch_streams(fw):
    """The product runs on the stream named, after the work queued there, and
    waits for no other stream."""
    torch = fw.torch
    n = 1024
    a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    a2 = torch.randn(n, n, device="cuda")
    c = torch.empty(n, n, device="cuda")
    dlgemm.matmul(a, b, out=c)  # first use: module loading is not part of the check
    torch.cuda.synchronize()
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    # GPU cycles of 0.3 s: time a known sleep with events.
    t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0.record()
    torch.cuda._sleep(10 ** 7)
    t1.record()
    t1.synchronize()
    cycles = int(10 ** 7 * 300 / max(t0.elapsed_time(t1), 1e-3))
    with torch.cuda.stream(s1):
        torch.cuda._sleep(cycles)
        a.copy_(a2)  # queued on s1 behind the sleep
    dlgemm.matmul(a, b, out=c, stream=s1)
    check(not s1.query(), "matmul on s1 did not return before s1's queued work finished")
    s1.synchronize()
    ref = torch.matmul(a2.double(), b.double())
    check(torch.allclose(c.double(), ref, rtol=1e-4, atol=1e-3),
          "the product on s1 did not see the copy queued before it on s1")
    # Another stream busy for ~2 s: the product on s1 must not wait for it.
    with torch.cuda.stream(s2):
        torch.cuda._sleep(cycles * 7)
    t0 = time.perf_counter()
    dlgemm.matmul(a2, b, out=c, stream=s1)
    s1.synchronize()
    took = time.perf_counter() - t0
    busy = not s2.query()
    print("stream: product on s1 done in %.1f ms while s2 still busy: %s" % (took * 1e3, busy))
    check(busy, "the product on s1 waited for s2 (serialised)")
    s2.synchronize()
    # Default stream of the framework (stream=None): torch's current stream.
    with torch.cuda.stream(s1):
        torch.cuda._sleep(cycles)
        a.copy_(a2 * 2)
        dlgemm.matmul(a, b, out=c)
    s1.synchronize()
    check(torch.allclose(c.double(), 2 * ref, rtol=1e-4, atol=2e-3),
          "stream=None did not follow torch's current stream")


def torch_second_device(fw):
    torch = fw.torch
    if torch.cuda.device_count() < 2:
        print("SKIP (device 1): this machine has one GPU")
        return
    torch.cuda.set_device(0)
    a, b = torch.randn(65, 33, device="cuda:1"), torch.randn(33, 47, device="cuda:1")
    c = dlgemm.matmul(a, b)
    check(c.device == a.device, "result of a cuda:1 product is on %s" % c.device)
    check(torch.cuda.current_device() == 0, "current device changed by the call")
    compare(fw, "tensors on cuda:1", a, b, c)
    print("device 1: product of cuda:1 tensors on %s, current device afterwards %d"
          % (c.device, torch.cuda.current_device()))


def cupy_streams(fw):
    cp = fw.cp
    n = 512
    a, b = cp.random.standard_normal((n, n), dtype=cp.float32), \
        cp.random.standard_normal((n, n), dtype=cp.float32)
    c = cp.empty((n, n), cp.float32)
    s1 = cp.cuda.Stream(non_blocking=True)
    with s1:
        a2 = a * 3  # queued on s1
        dlgemm.matmul(a2, b, out=c)  # stream=None: cupy's current stream, s1
    s1.synchronize()
    check(cp.allclose(c, cp.matmul(a2, b), rtol=1e-4, atol=1e-3),
          "cupy: the product did not follow work on the current stream")


def refused_dtypes(fw):
    if not fw.gpu:
        return
    host = rand((8, 8), "float32").astype(np.float16)
    a = fw.tensor(host)
    try:
        dlgemm.matmul(a, a)
        print("note: float16 is taken")
    except dlgemm.DlgemmError as e:
        print("note: float16 refused until the tensor-core kernels land: %s" % e)
        check(e.status in (2, 11), "float16 refusal status %d" % e.status)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    name, calls = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    try:
        fw = {"numpy": Numpy, "torch": Torch, "cupy": Cupy, "jax": Jax}[name]()
    except Exception as e:  # noqa: BLE001 - any import or device failure is a skip
        print("SKIP: %s is not usable here: %s" % (name, e))
        return SKIP
    lib = dlgemm.library()
    print("dlgemm %s from %s, %s %s" % (lib.dlgemm_version().decode(), lib._name, name,
                                         sys.modules[name.split(".")[0]].__version__))
    products(fw)
    with_out(fw)
    refused_dtypes(fw)
    if name == "torch":
        torch_streams(fw)
        torch_second_device(fw)
    if name == "cupy":
        cupy_streams(fw)
    capsules_balanced(fw, calls)
    return verdict(name)


if __name__ == "__main__":
    sys.exit(main())
