"""checks.py - what the Python tests share: the dlgemm package on the path,
the skip code ctest reads, a failure record that does not stop the run, the
resident memory that the many-calls checks hold flat, and for the torch
tests, torch with a GPU or the reason to skip, and a product's check
against FP64 within the dot-product bound."""
import os
import sys

# the source tree's package, unless the test is of an installed one (test_wheel.sh)
if os.environ.get("DLGEMM_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
else:
    import dlgemm
    print("installed package: %s" % dlgemm.__file__)

SKIP = 77
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def verdict(name):
    """Print the closing line and return the exit status."""
    print("%s: %s" % (name, "FAILED (%d)" % len(failures) if failures else "all checks passed"))
    return 1 if failures else 0


def torch_cuda():
    """torch, when it imports and sees a CUDA device; else None, with the
    SKIP line printed."""
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("torch sees no CUDA device")
        return torch
    except ImportError as e:
        print("SKIP: torch with CUDA is not usable here: %s" % e)
        return None


# Unit roundoff of the inputs' rounding (tf32: 10 bits kept of each factor)
# and of the result's dtype.
UNITS = {"float32": (2.0 ** -24, 2.0 ** -24), "tf32": (2.0 ** -11, 2.0 ** -24),
         "float16": (2.0 ** -24, 2.0 ** -11), "bfloat16": (2.0 ** -24, 2.0 ** -8),
         "float64": (2.0 ** -53, 2.0 ** -53)}


def close_to_fp64(got, a, b, kind, bias=None, alpha=1.0, beta=1.0, what=""):
    """Check got against alpha a b (+ beta bias) in FP64, within the
    dot-product bound of kind's rounding (UNITS) and FP32 accumulation
    (FP64 for float64)."""
    import torch
    per_input, out_u = UNITS[kind]
    acc_u = 2.0 ** -53 if kind == "float64" else 2.0 ** -24
    ha, hb = a.double(), b.double()
    ref = alpha * torch.matmul(ha, hb)
    mag = abs(alpha) * torch.matmul(ha.abs(), hb.abs())
    if bias is not None and beta != 0:
        ref = ref + beta * bias.double()
        mag = mag + abs(beta) * bias.double().abs()
    tol = (2 * a.shape[-1] * acc_u + 2 * per_input + out_u) * mag + 1e-30
    err = (got.double() - ref).abs()
    ok = got.shape == ref.shape and bool((err <= tol).all())
    check(ok, "%s %s: error %.3g over the bound (shape %s)"
          % (what, kind, float((err / tol).max()) if got.shape == ref.shape else -1,
             tuple(got.shape)))
