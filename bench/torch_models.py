"""torch_models.py - unmodified PyTorch programs, plain and with DLGEMM_TORCH=1.

usage: torch_models.py [--rounds 3] [--only NAME,...] [--out DIR] [--toggle | --classes]
       torch_models.py --child NAME,...   (one program run: what the driver times)

The programs import nothing of dlgemm: the driver runs this file again as
a child process, alternately plain and with DLGEMM_TORCH=1 (python/autoload
on PYTHONPATH), `rounds` times each, and prints each workload's median rate
on both and the ratio (dlgemm / plain), and how far each dlgemm output is
from the plain one of the same round (the same seeds: the same inputs and
weights).  Workloads:
  encoder_train   nn.TransformerEncoder, 6 layers, d 1024, 16 heads, ff 4096,
                  8 x 512 tokens, bf16 autocast, AdamW: steps/s
  encoder_infer   the same model's forward, eval, no_grad: passes/s
  encoder_graph   that forward captured in a CUDA graph and replayed
  gpt_prefill     a GPT-2-sized decoder (12 x 768, 12 heads, vocab 50304, bf16):
                  8 x 1024 prompt tokens a forward pass: tokens/s
  gpt_decode      greedy decoding with a KV cache, batch 8: tokens/s
  gpt_decode_graph  one decode step captured in a CUDA graph, replayed
  gpt_train       one training step (bf16 weights... autocast, AdamW) on 8 x 1024: steps/s
Each child warms up (every product class is met before timing, so the
measured routing decisions are made outside the timed loops) and then times
with CUDA events over several iterations, median of 5 repetitions.

--toggle: every child runs with DLGEMM_TORCH=1 and times each workload
with dlgemm's routing on and off by turns inside the one process
(dlgemm_route_cublas; pairs in the order on-off, off-on, ... so that a
drift falls on both), and reports the median of the pairs' ratios.  Between
processes the host moved bit-identical forwarded work by 0.5-1.7x
(bench/NOTES.md); within one it cannot.  Off is DLGEMM_CUBLAS=off's path:
every product through dlgemm's cuBLAS names to the program's cuBLAS, which
plain torch calls directly (what that forward costs is measured apart).
A captured graph replays what was captured, so its ratio is 1 by design.

--classes: one child with DLGEMM_TORCH=1 and DLGEMM_VERBOSE=1 in a fresh
cache directory, so that every class of product the workloads make is
measured in it: each class's shape, dlgemm's and the rival's time as the
measurement saw them (the larger of GPU and host time, medians of three)
and the verdict, the classes given to dlgemm first, largest gain first.
What a workload loses or gains with the routing on is then to be found
among the classes given to dlgemm.
"""
import argparse
import json
import os
import statistics
import sys
import time

import alternate

ALL = ("encoder_train", "encoder_infer", "encoder_graph", "gpt_prefill", "gpt_decode",
       "gpt_decode_graph", "gpt_train")


def child(names):
    import torch
    import torch.nn.functional as F
    from torch import nn
    dev = "cuda"

    route = route_switch()
    toggled = []  # --toggle: each workload's routed-over-off speed, in the order timed

    def once(fn, iters):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) / iters

    def timed(fn, iters, reps=5):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        if route is None:
            return statistics.median(once(fn, iters) for _ in range(reps))
        on, ratios = [], []
        for pair in range(2 * reps):
            t = {}
            for mode in ((1, 0) if pair % 2 == 0 else (0, 1)):
                route(mode)
                t[mode] = once(fn, iters)
            route(1)
            on.append(t[1])
            ratios.append(t[0] / t[1])
        toggled.append(statistics.median(ratios))
        return statistics.median(on)

    class Block(nn.Module):
        def __init__(self, dim, heads):
            super().__init__()
            self.heads = heads
            self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
            self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
            self.fc, self.out = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

        def forward(self, x, cache=None, pos=0):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
            if cache is not None:
                cache[0][:, :, pos:pos + T] = k
                cache[1][:, :, pos:pos + T] = v
                k, v = cache[0][:, :, :pos + T], cache[1][:, :, :pos + T]
            y = F.scaled_dot_product_attention(q, k, v, is_causal=T > 1)
            x = x + self.proj(y.transpose(1, 2).reshape(B, T, C))
            return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(self, layers=12, dim=768, heads=12, vocab=50304, context=1152):
            super().__init__()
            self.heads, self.dim = heads, dim
            self.wte, self.wpe = nn.Embedding(vocab, dim), nn.Embedding(context, dim)
            self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
            self.ln_f, self.head = nn.LayerNorm(dim), nn.Linear(dim, vocab, bias=False)

        def forward(self, idx, caches=None, pos=0):
            x = self.wte(idx) + self.wpe(torch.arange(pos, pos + idx.shape[1], device=idx.device))
            for i, blk in enumerate(self.blocks):
                x = blk(x, None if caches is None else caches[i], pos)
            return self.head(self.ln_f(x))

    results = {}
    for name in names:
        torch.manual_seed(1234)
        if name.startswith("encoder"):
            layer = nn.TransformerEncoderLayer(1024, 16, 4096, batch_first=True)
            model = nn.TransformerEncoder(layer, 6, enable_nested_tensor=False).to(dev)
            x = torch.randn(8, 512, 1024, device=dev)
            if name == "encoder_train":
                opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
                losses = []

                def step():
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        loss = model(x).float().square().mean()
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                    losses.append(loss.detach())
                model.train()
                s = timed(step, 5)
                results[name] = {"rate": 1 / s, "unit": "steps/s",
                                 "check": [float(v) for v in losses[:3]]}
            else:
                model.eval()
                xb = x.to(torch.bfloat16)
                model = model.to(torch.bfloat16)
                with torch.no_grad():
                    if name == "encoder_graph":
                        static = xb.clone()
                        for _ in range(3):
                            model(static)
                        torch.cuda.synchronize()
                        g = torch.cuda.CUDAGraph()
                        with torch.cuda.graph(g):
                            y = model(static)
                        s = timed(g.replay, 20)
                    else:
                        s = timed(lambda: model(xb), 20)
                        y = model(xb)
                results[name] = {"rate": 1 / s, "unit": "passes/s",
                                 "check": [float(y.float().square().mean())]}
        else:
            model = GPT().to(dev)
            idx = torch.randint(0, 50304, (8, 1024), device=dev)
            if name == "gpt_train":
                opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
                losses = []

                def step():
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        logits = model(idx[:, :-1])
                        loss = F.cross_entropy(logits.float().view(-1, 50304), idx[:, 1:].reshape(-1))
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                    losses.append(loss.detach())
                s = timed(step, 3)
                results[name] = {"rate": 1 / s, "unit": "steps/s",
                                 "check": [float(v) for v in losses[:3]]}
                continue
            model = model.to(torch.bfloat16).eval()
            with torch.no_grad():
                if name == "gpt_prefill":
                    s = timed(lambda: model(idx), 5)
                    y = model(idx)
                    results[name] = {"rate": 8 * 1024 / s, "unit": "tokens/s",
                                     "check": [float(y[:, -1].float().square().mean())]}
                    continue
                hd = 768 // 12
                caches = [(torch.zeros(8, 12, 1152, hd, device=dev, dtype=torch.bfloat16),
                           torch.zeros(8, 12, 1152, hd, device=dev, dtype=torch.bfloat16))
                          for _ in range(12)]
                prompt = idx[:, :128]
                model(prompt, caches, 0)
                tok = torch.zeros(8, 1, dtype=torch.long, device=dev)
                new = 64
                if name == "gpt_decode_graph":
                    pos = 128
                    # one step at a fixed position: the graph's work is a decode step's
                    for _ in range(3):
                        model(tok, caches, pos)
                    torch.cuda.synchronize()
                    g = torch.cuda.CUDAGraph()
                    with torch.cuda.graph(g):
                        y = model(tok, caches, pos)
                    s = timed(g.replay, new)
                    results[name] = {"rate": 8 / s, "unit": "tokens/s",
                                     "check": [float(y.float().square().mean())]}
                    continue

                def generate():
                    t = tok
                    for i in range(new):
                        t = model(t, caches, 128 + i)[:, -1:].argmax(-1)
                    return t
                s = timed(generate, 1)
                y = model(tok, caches, 128)
                results[name] = {"rate": 8 * new / s, "unit": "tokens/s",
                                 "check": [float(y.float().square().mean())]}
    for name, ratio in zip(names if route else [], toggled):
        results[name]["toggle"] = ratio
    print("RESULT " + json.dumps(results), flush=True)
    return 0


def route_switch():
    """The switch of the library the autoload loaded (dlgemm_route_cublas),
    under --toggle (DLGEMM_TOGGLE=1); else None."""
    if os.environ.get("DLGEMM_TOGGLE") != "1":
        return None
    import ctypes
    from dlgemm import _lib
    f = _lib.library().dlgemm_route_cublas
    f.argtypes, f.restype = [ctypes.c_int], ctypes.c_int
    return f


def toggled(names, rounds, cmd, log=None):
    """--toggle's driver: `rounds` children, each with the routing switched
    on and off by turns; per workload the median over rounds of each
    child's median ratio; 0, or 1 when a child failed."""
    env = alternate.env_with_autoload("DLGEMM_TORCH", {"DLGEMM_TOGGLE": "1"})
    per = {n: [] for n in names}
    for rnd in range(rounds):
        got = alternate.child_result(cmd, env, log, "round %d toggled" % rnd)
        if got is None:
            return 1
        for n in names:
            per[n].append(got[n]["toggle"])
        print("round %d: %s" % (rnd, ", ".join("%s %.3f" % (n, per[n][-1]) for n in names)),
              flush=True)
    print("\n| workload | routed / off, inside one process (median of rounds) | per round |")
    print("|---|---|---|")
    for n in names:
        print("| %s | **%.3f** | %s |" % (n, statistics.median(per[n]),
                                         ", ".join("%.3f" % v for v in per[n])))
    return 0


def classes(names, cmd, log=None):
    """--classes' driver (above); 0, or 1 when the child failed."""
    import re
    import subprocess
    import tempfile
    pattern = re.compile(r"dlgemm: (\S+) class of m=(\d+) n=(\d+) k=(\d+) batch=(\d+) measured: "
                         r"dlgemm ([\d.]+) us \(GPU ([\d.]+), host ([\d.]+)\), the rival ([\d.]+) us "
                         r"\(GPU ([\d.]+), host ([\d.]+)\) -> (dlgemm|the rival)")
    with tempfile.TemporaryDirectory() as cache:
        env = alternate.env_with_autoload("DLGEMM_TORCH", {"DLGEMM_VERBOSE": "1",
                                                           "XDG_CACHE_HOME": cache})
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1200)
    if log:
        log.write("=== classes exit %d\n%s\n" % (r.returncode, r.stderr[-20000:]))
    rows = [m.groups() for m in map(pattern.search, r.stderr.splitlines()) if m]
    if r.returncode or not rows:
        print("the classes child failed or measured nothing:\n" + r.stderr[-3000:])
        return 1
    rows.sort(key=lambda g: (g[11] != "dlgemm", float(g[5]) - float(g[8])))
    taken = sum(g[11] == "dlgemm" for g in rows)
    print("%d classes measured in %s: %d given to dlgemm, %d to the rival"
          % (len(rows), ",".join(names), taken, len(rows) - taken))
    print("\n| routine | m | n | k | batch | dlgemm us (GPU, host) | rival us (GPU, host) | to |")
    print("|---|---|---|---|---|---|---|---|")
    for g in rows:
        print("| %s | %s | %s | %s | %s | %s (%s, %s) | %s (%s, %s) | %s |" % g)
    return 0


def driver(args):
    names = args.only.split(",") if args.only else list(ALL)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    log = open(os.path.join(args.out, "torch_models_children.log"), "w") if args.out else None
    cmd = [sys.executable, os.path.abspath(__file__), "--child", ",".join(names)]
    if args.toggle:
        return toggled(names, args.rounds, cmd, log)
    if args.classes:
        return classes(names, cmd, log)
    return alternate.workloads(names, args.rounds, cmd, "DLGEMM_TORCH", log)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only")
    ap.add_argument("--out")
    ap.add_argument("--toggle", action="store_true")
    ap.add_argument("--classes", action="store_true")
    args = ap.parse_args()
    return child(args.child.split(",")) if args.child else driver(args)


if __name__ == "__main__":
    sys.exit(main())
