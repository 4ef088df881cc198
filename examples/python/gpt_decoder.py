"""gpt_decoder.py - an unmodified torch.nn model on dlgemm: a GPT-2-sized
decoder (12 layers, 768 wide, 12 heads, vocabulary 50304, random weights
with GPT-2's initialisation), run on plain torch and with dlgemm.torch
enabled, in the same process, alternately.

Prints, for prefill (the whole prompt in one forward pass, every position's
logits) and for decode (a greedy token-by-token loop with a KV cache):
tokens per second on plain torch and on dlgemm and their ratio; how many
products dlgemm took and gave back; and how far each run's prefill logits
are from an FP32 run of the same model: dlgemm's distance must stay within
twice torch's own (--dtype float32: both are FP32 runs, so within the dot
product's bound; the check is then against torch's FP32 result).

usage: gpt_decoder.py [--dtype bfloat16|float16|float32] [--batch 8] [--prompt 1024]
                      [--new 64] [--layers 12] [--dim 768] [--heads 12] [--bias] [--reps 5]
"""
import argparse
import math
import os
import statistics
import sys

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import dlgemm.torch as dt  # noqa: E402


class Block(nn.Module):
    def __init__(self, dim, heads, bias):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=bias)
        self.proj = nn.Linear(dim, dim, bias=bias)
        self.fc = nn.Linear(dim, 4 * dim, bias=bias)
        self.out = nn.Linear(4 * dim, dim, bias=bias)

    def forward(self, x, cache, pos):
        B, T, C = x.shape
        hd = C // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.heads, hd).transpose(1, 2) for t in (q, k, v))
        kc, vc = cache
        kc[:, :, pos:pos + T] = k
        vc[:, :, pos:pos + T] = v
        y = F.scaled_dot_product_attention(q, kc[:, :, :pos + T], vc[:, :, :pos + T],
                                           is_causal=T > 1)
        x = x + self.proj(y.transpose(1, 2).reshape(B, T, C))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class Decoder(nn.Module):
    def __init__(self, layers, dim, heads, vocab, context, bias):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, dim), nn.Embedding(context, dim)
        self.blocks = nn.ModuleList(Block(dim, heads, bias) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)
        self.heads, self.context = heads, context
        for name, p in self.named_parameters():  # GPT-2's initialisation
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * layers) if name.endswith(("proj.weight", "out.weight")) \
                    else 0.02
                nn.init.normal_(p, 0.0, std)
            elif name.endswith("bias"):
                nn.init.zeros_(p)

    def new_cache(self, batch):
        hd = self.wte.weight.shape[1] // self.heads
        shape = (batch, self.heads, self.context, hd)
        w = self.wte.weight
        return [(w.new_empty(shape), w.new_empty(shape)) for _ in self.blocks]

    def forward(self, idx, cache, pos):
        T = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(pos, pos + T, device=idx.device))
        for blk, c in zip(self.blocks, cache):
            x = blk(x, c, pos)
        return F.linear(self.ln_f(x), self.wte.weight)  # tied output head, as GPT-2


def timed(fn, reps):
    """Median seconds of fn() over reps runs, by CUDA events."""
    times = []
    for _ in range(reps):
        t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0.record()
        fn()
        t1.record()
        t1.synchronize()
        times.append(t0.elapsed_time(t1) / 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--prompt", type=int, default=1024)
    p.add_argument("--new", type=int, default=64)
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--dim", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--vocab", type=int, default=50304)
    p.add_argument("--bias", action="store_true", help="nn.Linear layers with a bias (addmm)")
    p.add_argument("--reps", type=int, default=5)
    args = p.parse_args()
    if not torch.cuda.is_available():
        print("SKIP: the demo needs a CUDA GPU")
        return 77
    torch.manual_seed(1234)
    dtype = getattr(torch, args.dtype)
    torch.backends.cuda.matmul.allow_tf32 = False
    ref_model = Decoder(args.layers, args.dim, args.heads, args.vocab,
                        args.prompt + args.new, args.bias).cuda().eval()
    model = Decoder(args.layers, args.dim, args.heads, args.vocab, args.prompt + args.new,
                    args.bias).cuda().eval()
    model.load_state_dict(ref_model.state_dict())
    model.to(dtype)
    idx = torch.randint(0, args.vocab, (args.batch, args.prompt), device="cuda")
    print("model: %d layers, dim %d, %d heads, vocabulary %d, %.0fM parameters, %s; batch %d, "
          "prompt %d, %d new tokens; %s" % (args.layers, args.dim, args.heads, args.vocab,
                                            sum(p.numel() for p in model.parameters()) / 1e6,
                                            args.dtype, args.batch, args.prompt, args.new,
                                            torch.cuda.get_device_name()))

    with torch.inference_mode():
        ref = ref_model(idx, ref_model.new_cache(args.batch), 0).double()
        del ref_model
        cache = model.new_cache(args.batch)

        def prefill():
            return model(idx, cache, 0)

        def generate():
            logits = model(idx, cache, 0)[:, -1]
            out = []
            for i in range(args.new):
                tok = logits.argmax(-1, keepdim=True)
                out.append(tok)
                logits = model(tok, cache, args.prompt + i)[:, -1]
            return torch.cat(out, 1)

        results = {}
        for run in ("torch", "dlgemm"):
            (dt.enable if run == "dlgemm" else dt.disable)()
            logits = prefill().double()
            torch.cuda.synchronize()
            results[run] = {"err": float((logits - ref).abs().max()),
                            "tokens": generate(), "prefill": [], "decode": []}
        scale = float(ref.abs().max())
        # Timed alternately, so that clocks and heat treat both alike.
        dt.reset_stats()
        for _ in range(args.reps):
            for run in ("torch", "dlgemm"):
                (dt.enable if run == "dlgemm" else dt.disable)()
                prefill()
                results[run]["prefill"].append(timed(prefill, 1))
                t_prefill = timed(prefill, 1)
                results[run]["decode"].append(max(timed(generate, 1) - t_prefill, 1e-9))
        stats = dt.stats()
        dt.disable()

    ok = True
    same = float((results["torch"]["tokens"] == results["dlgemm"]["tokens"]).float().mean())
    print("prefill logits, max |x - fp32 model| (max |logit| %.3g): torch %.3g, dlgemm %.3g"
          % (scale, results["torch"]["err"], results["dlgemm"]["err"]))
    tol = 2 * results["torch"]["err"] + 1e-5 * scale
    if results["dlgemm"]["err"] > tol:
        print("FAIL: dlgemm's logits are further from the fp32 model than twice torch's (%.3g)"
              % tol)
        ok = False
    print("greedy tokens identical to torch's: %.1f%%" % (100 * same))
    for phase, tokens in (("prefill", args.batch * args.prompt), ("decode", args.batch * args.new)):
        t = {r: statistics.median(results[r][phase]) for r in results}
        print("%-7s tokens/s: torch %.0f, dlgemm %.0f, ratio %.3f (median of %d, alternating)"
              % (phase, tokens / t["torch"], tokens / t["dlgemm"], t["torch"] / t["dlgemm"],
                 args.reps))
    print("products taken by dlgemm / given back to torch:",
          ", ".join("%s %d/%d" % (k, v[0], v[1]) for k, v in stats.items()))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
