"""cold_start.py - process start to the first result of dlgemm.matmul (issue 53):
the Python side of bench/cold_start.sh, which passes COLD_T0 (the shell's clock
before it started the interpreter, in ns) and the library (DLGEMM_LIBRARY).

    python3 bench/cold_start.py N

Imports numpy and dlgemm, makes two N x N float64 arrays, and times the
first dlgemm.matmul of them on the host arrays (the router decides where it
runs, as for a program's first call); prints one line as cold_start.c does:

    matmul n N: first result after T ms (in main T ms), check OK
"""
import os
import sys
import time

entry = time.monotonic()
try:  # the imports are part of what is timed
    import numpy as np
    import dlgemm
except ImportError as e:
    print("SKIP: cold_start.py: %s" % e, file=sys.stderr)
    sys.exit(77)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    rng = np.random.default_rng(1)
    a = np.asfortranarray(rng.uniform(-1, 1, (n, n)))
    b = np.asfortranarray(rng.uniform(-1, 1, (n, n)))
    c = dlgemm.matmul(a, b)
    done = time.monotonic()
    t0 = os.environ.get("COLD_T0")
    wall = (time.time() - int(t0) * 1e-9) * 1e3 if t0 else float("nan")
    ref = a @ b
    # the dot-product bound: k terms of magnitude at most 1, in FP64
    ok = bool(np.abs(c - ref).max() <= 4 * n * n * np.finfo(np.float64).eps)
    print("matmul n %d: first result after %.1f ms (in main %.1f ms), check %s"
          % (n, wall, (done - entry) * 1e3, "OK" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
