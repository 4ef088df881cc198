"""python_overhead.py - what one dlgemm.matmul call costs from Python, against
the framework's own matmul on the same arrays, in the same process.

  CPU (NumPy, float32 8 x 8, with and without out=): per-call time of
      numpy.matmul and dlgemm.matmul, and their difference in microseconds.
  GPU (torch, float32 and bfloat16, 64^3 and 1024^3, with and without out=):
      per-call time of N back-to-back calls ending in one synchronisation
      (what a framework loop sees: host overhead, or the kernel where the
      kernel is longer), torch.matmul against dlgemm.matmul and against
      torch.matmul with dlgemm.torch enabled, and the ratios (dlgemm / torch:
      below 1 dlgemm is faster).

Each figure is the median of `reps` measurements, dlgemm and the framework
measured alternately; on the CPU also the best of them (timeit's advice for
per-call costs on a shared machine: the noise only ever adds).

usage: python_overhead.py [cpu|gpu|all] [reps]
"""
import os
import statistics
import sys
import time
import timeit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import dlgemm  # noqa: E402


def per_call_cpu(stmt, env, number):
    return timeit.timeit(stmt, globals=env, number=number) / number * 1e6


def cpu(reps):
    import numpy as np
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((8, 8), np.float32), rng.standard_normal((8, 8), np.float32)
    c = np.empty((8, 8), np.float32)
    env = {"np": np, "dlgemm": dlgemm, "a": a, "b": b, "c": c}
    assert np.allclose(dlgemm.matmul(a, b), a @ b, rtol=1e-5, atol=1e-5)
    print("CPU, NumPy %s, float32 8 x 8, per call (median of %d):" % (np.__version__, reps))
    for label, theirs, ours in (("no out", "np.matmul(a, b)", "dlgemm.matmul(a, b)"),
                                ("out=", "np.matmul(a, b, out=c)",
                                 "dlgemm.matmul(a, b, out=c)")):
        t, d = [], []
        for _ in range(reps):
            t.append(per_call_cpu(theirs, env, 20000))
            d.append(per_call_cpu(ours, env, 20000))
        print("  %-7s numpy.matmul %.2f us, dlgemm.matmul %.2f us, difference %+.2f us "
              "(best of %d: %.2f, %.2f, %+.2f)"
              % (label, statistics.median(t), statistics.median(d),
                 statistics.median(d) - statistics.median(t), reps, min(t), min(d),
                 min(d) - min(t)))


def gpu(reps):
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("no CUDA device")
    except ImportError as e:
        print("GPU: skipped (%s)" % e)
        return
    import dlgemm.torch as dt
    torch.backends.cuda.matmul.allow_tf32 = False

    def per_call(fn, n):
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) / n * 1e6

    print("GPU, torch %s, %s, per call of back-to-back calls (median of %d):"
          % (torch.__version__, torch.cuda.get_device_name(), reps))
    for dtype in (torch.float32, torch.bfloat16):
        for size in (64, 1024):
            a = torch.randn(size, size, device="cuda", dtype=dtype)
            b = torch.randn(size, size, device="cuda", dtype=dtype)
            c = torch.empty(size, size, device="cuda", dtype=dtype)
            n = 2000 if size == 64 else 500
            for label, theirs, ours in (
                    ("no out", lambda: torch.matmul(a, b), lambda: dlgemm.matmul(a, b)),
                    ("out=", lambda: torch.matmul(a, b, out=c),
                     lambda: dlgemm.matmul(a, b, out=c))):
                t, d, r = [], [], []
                for _ in range(reps):
                    t.append(per_call(theirs, n))
                    d.append(per_call(ours, n))
                    if label == "no out":
                        dt.enable()
                        r.append(per_call(theirs, n))
                        dt.disable()
                t, d = statistics.median(t), statistics.median(d)
                line = "  %-8s %4d^3 %-6s torch.matmul %6.1f us, dlgemm.matmul %6.1f us (%.2fx)" \
                    % (str(dtype).replace("torch.", ""), size, label, t, d, d / t)
                if r:
                    r = statistics.median(r)
                    line += ", torch.matmul on dlgemm.torch %6.1f us (%.2fx)" % (r, r / t)
                print(line)


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    print("dlgemm %s from %s" % (dlgemm.library().dlgemm_version().decode(),
                                 dlgemm.library()._name))
    if what in ("cpu", "all"):
        cpu(reps)
    if what in ("gpu", "all"):
        gpu(reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
