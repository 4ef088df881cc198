"""test_cublas_route.py - an unmodified torch program's cuBLAS products on
dlgemm (shims/cublas, plugin/api/rival.c), against an FP64 product.

usage: test_cublas_route.py [--child]

The parent runs this file again as an unmodified program three ways: with
DLGEMM_CUBLAS=on through the autoload (dlopen RTLD_GLOBAL; every product
dlgemm can take is taken), the same under LD_PRELOAD (the RTLD_NEXT path),
and DLGEMM_CUBLAS=auto (each class measured against cuBLAS).  The child
checks, for float32 (TF32 off and on), float16, bfloat16 and float64: mm,
addmm with a bias vector (cuBLASLt's fused bias: left to cuBLASLt), with a
full C, alpha and beta, beta 0 over NaN, bmm and baddbmm, in every
transpose (torch hands cuBLAS transposed operands for .t() views), odd
sizes and 1; autograd through nn.Linear; a CUDA graph captured and
replayed twice, the second time on new inputs (a square product, and a
narrow one with a long k that dlgemm splits along k through a workspace,
which the capture must record as the graph's own allocation), each replay
against FP64; in the first run, a torch.compile'd function, whose product
must reach dlgemm.  The parent counts the products that dlgemm took
(DLGEMM_VERBOSE names the cuBLAS routine and a cuda device) and requires
some in `on` mode, the captured ones among them (auto: a class first met
during capture is cuBLAS's there, nothing being measured), and every
child's checks passed.
Exit 77 (skip) without torch or a GPU.
"""
import os
import subprocess
import sys
import tempfile

from checks import SKIP, check, close_to_fp64, torch_cuda, verdict  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def child():
    import torch
    dev = "cuda"
    torch.manual_seed(20261127)
    close = close_to_fp64

    for kind in ("float32", "tf32", "float16", "bfloat16", "float64"):
        dtype = torch.float32 if kind == "tf32" else getattr(torch, kind)
        torch.backends.cuda.matmul.allow_tf32 = kind == "tf32"
        for m, n, k in ((1, 1, 1), (7, 5, 3), (129, 67, 33), (300, 200, 509), (1024, 512, 256),
                        (61, 1031, 97)):
            for ta in (False, True):
                for tb in (False, True):
                    a = torch.randn(k, m, device=dev, dtype=dtype).t() if ta else \
                        torch.randn(m, k, device=dev, dtype=dtype)
                    b = torch.randn(n, k, device=dev, dtype=dtype).t() if tb else \
                        torch.randn(k, n, device=dev, dtype=dtype)
                    w = "%dx%dx%d %s%s" % (m, n, k, "T" if ta else "N", "T" if tb else "N")
                    close(torch.mm(a, b), a, b, kind, what="mm " + w)
                    bias = torch.randn(n, device=dev, dtype=dtype)
                    close(torch.addmm(bias, a, b), a, b, kind, bias=bias, what="addmm bias " + w)
                    c0 = torch.randn(m, n, device=dev, dtype=dtype)
                    close(torch.addmm(c0, a, b, beta=0.5, alpha=-2.0), a, b, kind, bias=c0,
                          alpha=-2.0, beta=0.5, what="addmm alpha -2 beta 0.5 " + w)
                    nan = torch.full((m, n), float("nan"), device=dev, dtype=dtype)
                    close(torch.addmm(nan, a, b, beta=0), a, b, kind, what="beta 0 over NaN " + w)
        a = torch.randn(6, 33, 17, device=dev, dtype=dtype)
        b = torch.randn(6, 17, 29, device=dev, dtype=dtype)
        close(torch.bmm(a, b), a, b, kind, what="bmm")
        close(torch.bmm(a.transpose(1, 2).contiguous().transpose(1, 2), b), a, b, kind,
              what="bmm transposed A")
        c0 = torch.randn(6, 33, 29, device=dev, dtype=dtype)
        close(torch.baddbmm(c0, a, b, beta=2.0, alpha=0.5), a, b, kind, bias=c0, alpha=0.5,
              beta=2.0, what="baddbmm")
        close(torch.matmul(a, b[0]), a, b[0], kind, what="matmul 3-D x 2-D")
        # autograd: the backward products are cuBLAS calls too
        lin = torch.nn.Linear(64, 48, device=dev, dtype=dtype)
        x = torch.randn(40, 64, device=dev, dtype=dtype, requires_grad=True)
        lin(x).square().sum().backward()
        gw = lin.weight.grad.clone()
        xd, ld = x.detach().double().requires_grad_(), lin.weight.detach().double()
        (xd @ ld.t() + lin.bias.detach().double()).square().sum().backward()
        tol = 0.05 if kind in ("float16", "bfloat16", "tf32") else 1e-4
        err = float((x.grad.double() - xd.grad).abs().max() / xd.grad.abs().max())
        check(err < tol, "autograd %s: input gradient off by %.3g" % (kind, err))
        check(bool(torch.isfinite(gw).all()), "autograd %s: weight gradient not finite" % kind)
    torch.backends.cuda.matmul.allow_tf32 = False
    # a CUDA graph: dlgemm's launches (and a split-K workspace) captured, replayed on new inputs
    a = torch.randn(256, 128, device=dev)
    b = torch.randn(128, 192, device=dev)
    p = torch.randn(24, 8192, device=dev)
    q = torch.randn(8192, 40, device=dev)
    out = torch.mm(a, b)
    torch.mm(p, q)
    torch.cuda.synchronize()
    print("CAPTURE BEGIN", file=sys.stderr, flush=True)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        captured = torch.mm(a, b)
        captured_narrow = torch.mm(p, q)
    torch.cuda.synchronize()
    print("CAPTURE END", file=sys.stderr, flush=True)
    for replay in range(2):
        if replay:
            for t in (a, b, p, q):
                t.copy_(torch.randn_like(t))
            out = torch.mm(a, b)
        captured.fill_(float("nan"))
        captured_narrow.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        check(bool((captured - out).abs().max() <= 1e-4 * out.abs().max()),
              "graph replay %d differs" % replay)
        close(captured_narrow.clone(), p, q, "float32", what="graph replay %d, narrow" % replay)
    if os.environ.get("ROUTE_TEST_COMPILE"):
        # torch.compile's generated code calls the same cuBLAS (inductor's extern mm)
        f = torch.compile(lambda p, q: torch.relu(p @ q) * 2)
        f(a, b)
        torch.cuda.synchronize()
        print("COMPILED BEGIN", file=sys.stderr, flush=True)
        got = f(a, b)
        torch.cuda.synchronize()
        print("COMPILED END", file=sys.stderr, flush=True)
        check(bool((got - torch.relu(out) * 2).abs().max() <= 1e-4 * out.abs().max()),
              "torch.compile's product differs")
    return verdict("cublas route child")


def taken(stderr, marker="CAPTURE"):
    """(products dlgemm took, of them between marker's BEGIN and END lines)
    from DLGEMM_VERBOSE's lines."""
    lines = stderr.splitlines()
    took = [i for i, l in enumerate(lines) if l.startswith("dlgemm: cublas") and "-> cuda" in l]
    begin = next((i for i, l in enumerate(lines) if l == marker + " BEGIN"), len(lines))
    end = next((i for i, l in enumerate(lines) if l == marker + " END"), len(lines))
    return len(took), sum(1 for i in took if begin < i < end)


def main():
    if "--child" in sys.argv:
        return child()
    if torch_cuda() is None:
        return SKIP
    lib = os.environ.get("DLGEMM_LIBRARY")
    if not lib:
        print("SKIP: DLGEMM_LIBRARY does not name the library")
        return SKIP
    me = os.path.abspath(__file__)
    runs = (("on, autoload", {"DLGEMM_TORCH": "1", "DLGEMM_CUBLAS": "on", "ROUTE_TEST_COMPILE": "1",
                              "PYTHONPATH": os.path.join(ROOT, "python", "autoload")}),
            ("on, LD_PRELOAD", {"LD_PRELOAD": lib, "DLGEMM_CUBLAS": "on"}),
            # a cache of its own: verdicts of earlier runs would leave nothing to measure
            ("auto, autoload", {"DLGEMM_TORCH": "1", "XDG_CACHE_HOME": tempfile.mkdtemp(),
                                "PYTHONPATH": os.path.join(ROOT, "python", "autoload")}))
    for name, extra in runs:
        env = dict(os.environ, DLGEMM_VERBOSE="1", **extra)
        if "DLGEMM_CUBLAS" not in extra:
            env.pop("DLGEMM_CUBLAS", None)  # the autoload's default, auto
        r = subprocess.run([sys.executable, me, "--child"], env=env, capture_output=True,
                           text=True, timeout=900)
        n, in_capture = taken(r.stderr)
        measured = [l for l in r.stderr.splitlines() if " class of " in l]
        print("%s: exit %d, %d products on dlgemm (%d during capture), %d classes measured"
              % (name, r.returncode, n, in_capture, len(measured)))
        for l in measured[:12]:
            print("  " + l)
        fails = [l for l in r.stdout.splitlines() if l.startswith("FAIL")]
        for l in fails[:20]:
            print("  " + l)
        check(r.returncode == 0, "%s: the child failed (%d checks)" % (name, len(fails)))
        if r.returncode != 0 and not fails:
            print(r.stderr[-3000:])
        if name.startswith("on"):
            check(n > 500, "%s: dlgemm took only %d products" % (name, n))
            check(in_capture >= 2, "%s: dlgemm took %d of the 2 captured products"
                  % (name, in_capture))
        else:
            check(len(measured) > 0, "%s: no class was measured" % name)
        if "ROUTE_TEST_COMPILE" in extra:
            compiled = taken(r.stderr, "COMPILED")[1]
            print("%s: %d product(s) of torch.compile's code on dlgemm" % (name, compiled))
            check(compiled >= 1, "%s: torch.compile's product did not reach dlgemm" % name)
    return verdict("cublas route")


if __name__ == "__main__":
    sys.exit(main())
