"""test_torch_dispatch.py - dlgemm.torch: torch's CUDA mm, bmm, addmm and
baddbmm on dlgemm, against torch's own kernels and an FP64 product.

usage: test_torch_dispatch.py [calls]

Checks, for float32 (TF32 off and on), float16 and bfloat16: each operator
and what decomposes into them (torch.matmul with batches and broadcasting,
nn.Linear with and without a bias, F.linear on 3-D input), transposed and
sliced operands, alpha and beta (beta = 0 over NaN), that dlgemm took the
calls it should and gave back the others (float64, strides it refuses,
stream capture for a CUDA graph) with torch's answer; autograd through the
registered kernels; a product on a side stream; disable() restoring torch;
`calls` calls with device memory and resident memory flat.
Exit 77 (skip) without torch or a GPU.
"""
import sys

from checks import SKIP, check, close_to_fp64, rss_bytes, torch_cuda, verdict  # noqa: E402


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    torch = torch_cuda()
    if torch is None:
        return SKIP
    import dlgemm.torch as dt
    F = torch.nn.functional
    torch.manual_seed(20261124)
    dev = "cuda"
    close = close_to_fp64

    def took(name, before, more=1):
        return dt.stats()[name][0] - before[name][0] >= more

    dt.enable()
    dt.enable()  # idempotent
    check(dt.enabled(), "enable() did not enable")
    for kind in ("float32", "tf32", "float16", "bfloat16"):
        dtype = torch.float32 if kind in ("float32", "tf32") else getattr(torch, kind)
        torch.backends.cuda.matmul.allow_tf32 = kind == "tf32"
        for m, n, k in ((1, 1, 1), (7, 5, 3), (129, 67, 33), (300, 200, 509), (1024, 512, 256)):
            a = torch.randn(m, k, device=dev, dtype=dtype)
            b = torch.randn(k, n, device=dev, dtype=dtype)
            s = dt.stats()
            close(torch.mm(a, b), a, b, kind, what="mm %dx%dx%d" % (m, n, k))
            check(took("mm", s), "mm %s %dx%dx%d was not taken" % (kind, m, n, k))
            close(torch.mm(a.t().contiguous().t(), b.t().contiguous().t()), a, b, kind,
                  what="mm of transposed layouts %dx%dx%d" % (m, n, k))
            bias = torch.randn(n, device=dev, dtype=dtype)
            close(torch.addmm(bias, a, b), a, b, kind, bias=bias, what="addmm bias vector")
            c0 = torch.randn(m, n, device=dev, dtype=dtype)
            close(torch.addmm(c0, a, b, beta=0.5, alpha=-2.0), a, b, kind, bias=c0, alpha=-2.0,
                  beta=0.5, what="addmm alpha -2 beta 0.5")
            nan = torch.full((m, n), float("nan"), device=dev, dtype=dtype)
            close(torch.addmm(nan, a, b, beta=0), a, b, kind, what="addmm beta 0 over NaN")
        # Batches: bmm, baddbmm, matmul's decompositions, nn.Linear.
        a = torch.randn(6, 33, 17, device=dev, dtype=dtype)
        b = torch.randn(6, 17, 29, device=dev, dtype=dtype)
        s = dt.stats()
        close(torch.bmm(a, b), a, b, kind, what="bmm")
        check(took("bmm", s), "bmm %s was not taken" % kind)
        c0 = torch.randn(6, 33, 29, device=dev, dtype=dtype)
        close(torch.baddbmm(c0, a, b, beta=2.0, alpha=0.5), a, b, kind, bias=c0, alpha=0.5,
              beta=2.0, what="baddbmm")
        close(torch.matmul(a, b[0]), a, b[0], kind, what="matmul 3-D x 2-D")
        close(torch.matmul(a[:1], b), a[:1], b, kind, what="matmul broadcast batch")
        close(torch.matmul(a, b.transpose(1, 2).contiguous().transpose(1, 2)), a, b, kind,
              what="matmul of a transposed batch")
        lin = torch.nn.Linear(17, 40, device=dev, dtype=dtype)
        x = torch.randn(5, 9, 17, device=dev, dtype=dtype)
        with torch.no_grad():
            s = dt.stats()
            close(lin(x), x, lin.weight.t(), kind, bias=lin.bias, what="nn.Linear 3-D input")
            close(lin(x[0]), x[0], lin.weight.t(), kind, bias=lin.bias, what="nn.Linear 2-D")
            close(F.linear(x, lin.weight), x, lin.weight.t(), kind, what="F.linear, no bias")
        check(took("addmm", s, 2) and took("mm", s), "nn.Linear %s did not reach dlgemm" % kind)
    torch.backends.cuda.matmul.allow_tf32 = False

    # Given back to torch, with torch's answer.
    a64, b64 = torch.randn(40, 30, device=dev, dtype=torch.float64), \
        torch.randn(30, 20, device=dev, dtype=torch.float64)
    s = dt.stats()
    check(torch.allclose(torch.mm(a64, b64), (a64.cpu() @ b64.cpu()).to(dev)),
          "float64 mm given back: wrong answer")
    check(dt.stats()["mm"][1] - s["mm"][1] == 1, "float64 mm was not given back")
    big = torch.randn(64, 80, device=dev)
    a, b = big[:, ::2], torch.randn(40, 24, device=dev)  # no unit stride: refused by dlgemm
    s = dt.stats()
    got = torch.mm(a, b)
    check(dt.stats()["mm"][1] - s["mm"][1] == 1, "a doubly strided mm was not given back")
    close(got, a, b, "float32", what="mm of a doubly strided view")
    # Stream capture: given back, and the graph replays torch's kernel.
    a, b = torch.randn(64, 64, device=dev), torch.randn(64, 64, device=dev)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.mm(a, b)  # warm-up outside capture
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    s = dt.stats()
    with torch.cuda.graph(g):
        out = torch.mm(a, b)
    check(dt.stats()["mm"][1] - s["mm"][1] == 1, "mm under stream capture was not given back")
    g.replay()
    torch.cuda.synchronize()
    close(out, a, b, "float32", what="mm replayed from a CUDA graph")

    # Autograd through the registered kernels.
    a = torch.randn(33, 17, device=dev, requires_grad=True)
    b = torch.randn(17, 29, device=dev, requires_grad=True)
    s = dt.stats()
    (torch.mm(a, b) ** 2).sum().backward()
    ad, bd = a.detach().double(), b.detach().double()
    ga = 2 * (ad @ bd) @ bd.t()
    gb = ad.t() @ (2 * (ad @ bd))
    check(torch.allclose(a.grad.double(), ga, rtol=1e-4, atol=1e-4) and
          torch.allclose(b.grad.double(), gb, rtol=1e-4, atol=1e-4), "gradients through mm")
    check(took("mm", s, 3), "the backward products did not reach dlgemm")

    # A side stream: the product follows the work queued there.
    a, b = torch.randn(512, 512, device=dev), torch.randn(512, 512, device=dev)
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        torch.cuda._sleep(20_000_000)
        a2 = a * 3
        c = torch.mm(a2, b)
    side.synchronize()
    close(c, a * 3, b, "float32", what="mm on a side stream after queued work")

    # Many calls: nothing grows.
    a, b = torch.randn(16, 16, device=dev), torch.randn(16, 16, device=dev)
    for _ in range(200):
        torch.mm(a, b)
    torch.cuda.synchronize()
    mem0, rss0 = torch.cuda.memory_allocated(), rss_bytes()
    for _ in range(calls):
        r = torch.mm(a, b)
    del r
    torch.cuda.synchronize()
    grown_dev, grown = torch.cuda.memory_allocated() - mem0, rss_bytes() - rss0
    print("%d calls: device memory %+d bytes, RSS %+.1f MB" % (calls, grown_dev, grown / 2 ** 20))
    check(grown_dev == 0 and grown < 16 * 2 ** 20, "memory grew over %d calls" % calls)

    dt.disable()
    s = dt.stats()
    torch.mm(a, b)
    check(not dt.enabled() and dt.stats() == s, "disable() did not give torch its kernels back")
    print("stats:", s)
    return verdict("torch dispatch")


if __name__ == "__main__":
    sys.exit(main())
