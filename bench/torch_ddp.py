"""torch_ddp.py - an unmodified DDP training program on N GPUs, plain and with DLGEMM_TORCH=1.

usage: torch_ddp.py [--gpus 2] [--rounds 3] [--steps 20] [--out DIR]
                    [--variant NAME:VAR=VALUE,...] [--no-placement]
       (torchrun runs this file again as the program: --child)

The program is what a user writes: torch.distributed with NCCL, one process
a GPU (torchrun --nproc_per_node=N), the 6-layer TransformerEncoder of
torch_models.py (d 1024, 16 heads, ff 4096) under DistributedDataParallel,
bf16 autocast, AdamW, each rank its own 8 x 512 tokens a step.  It imports
nothing of dlgemm.  The driver launches it alternately plain and with
DLGEMM_TORCH=1 (python/autoload on PYTHONPATH: every rank loads dlgemm in
front of its cuBLAS), `rounds` times each, and prints the steps/s of each
(rank 0's clock, all ranks synchronized), the ratio of the medians, and
the largest difference between the two runs' losses (same seeds, same
data).  A first, untimed run with DLGEMM_CUBLAS=on (dlgemm takes all it
can) and DLGEMM_VERBOSE, each rank's output in its own file (torchrun
--redirects), counts on which device each rank's products ran: all of rank
r's must be on cuda:r.  --variant adds a third program run each round:
DLGEMM_TORCH=1 with the variables given (a setting's effect, measured in
the same rounds).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

import alternate


def child(steps):
    import torch
    import torch.distributed as dist
    from torch import nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    torch.manual_seed(1234)  # the same weights on every rank, as DDP expects
    layer = nn.TransformerEncoderLayer(1024, 16, 4096, batch_first=True)
    model = DDP(nn.TransformerEncoder(layer, 6, enable_nested_tensor=False).cuda(),
                device_ids=[local])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    gen = torch.Generator(device="cuda").manual_seed(100 + rank)
    data = [torch.randn(8, 512, 1024, device="cuda", generator=gen) for _ in range(4)]
    losses = []

    def step(i):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(data[i % len(data)]).float().square().mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.detach())

    for i in range(3):
        step(i)
    torch.cuda.synchronize()
    dist.barrier()
    t0 = time.perf_counter()
    for i in range(steps):
        step(i)
    torch.cuda.synchronize()
    dist.barrier()
    rate = steps / (time.perf_counter() - t0)
    mine = torch.stack(losses).float()
    every = [torch.zeros_like(mine) for _ in range(dist.get_world_size())]
    dist.all_gather(every, mine)
    if rank == 0:
        print("RESULT " + json.dumps({"rate": rate,
                                      "losses": [[float(v) for v in t] for t in every]}), flush=True)
    dist.destroy_process_group()
    return 0


def command(args, mode, log_dir=None, steps=None):
    """(torchrun's command line, its environment) for one run of the program."""
    env = dict(os.environ)
    if mode != "plain":
        extra = {}
        if mode != "dlgemm":  # the variant
            extra = dict(kv.split("=", 1) for kv in args.variant.split(":", 1)[1].split(","))
        env = alternate.env_with_autoload("DLGEMM_TORCH", extra)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone",
           "--nproc_per_node=%d" % args.gpus]
    if log_dir:
        env.update(DLGEMM_VERBOSE="1", DLGEMM_CUBLAS="on")
        cmd += ["--log-dir", log_dir, "--redirects", "3"]
    cmd += [os.path.abspath(__file__), "--child", "--steps", str(steps or args.steps)]
    return cmd, env


def per_rank_devices(log_dir):
    """{rank: {cuda:N: products dlgemm took there}} from each rank's
    DLGEMM_VERBOSE lines (torchrun writes .../attempt_0/<rank>/stderr.log)."""
    out = {}
    for path in glob.glob(os.path.join(log_dir, "**", "stderr.log"), recursive=True):
        rank = int(os.path.basename(os.path.dirname(path)))
        with open(path) as f:
            text = f.read()
        seen = out.setdefault(rank, {})
        for dev in re.findall(r"^dlgemm: cublas\S* .* -> (cuda:\d+)", text, re.M):
            seen[dev] = seen.get(dev, 0) + 1
    return out


def driver(args):
    import tempfile
    log = open(os.path.join(args.out, "torch_ddp_%dgpu.log" % args.gpus), "w") if args.out else None
    placed = True
    if not args.no_placement:
        with tempfile.TemporaryDirectory() as tmp:
            cmd, env = command(args, "dlgemm", log_dir=tmp, steps=2)
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1200)
            seen = per_rank_devices(tmp)
        if log:
            log.write("=== DLGEMM_CUBLAS=on verbose run exit %d\n%s\n%s\n"
                      % (r.returncode, r.stdout, r.stderr[-20000:]))
        print("DLGEMM_CUBLAS=on run, 2 steps: exit %d; products dlgemm took, by rank and device: "
              "%s" % (r.returncode, json.dumps(seen, sort_keys=True)))
        placed = r.returncode == 0 and sorted(seen) == list(range(args.gpus)) and all(
            list(seen[g]) == ["cuda:%d" % g] for g in seen)
    modes = ["plain", "dlgemm"] + ([args.variant.split(":", 1)[0]] if args.variant else [])
    rates = {m: [] for m in modes}
    worst, done = 0.0, 0

    def run(mode, rnd):
        return alternate.child_result(*command(args, mode), log=log,
                                      label="round %d %s" % (rnd, mode))
    for rnd, got in alternate.alternating(modes, args.rounds, run):
        for m in modes:
            rates[m].append(got[m]["rate"])
            for p, d in zip(got["plain"]["losses"], got[m]["losses"]):
                worst = max(worst, alternate.rel_diff(p, d))
        print("round %d: plain %.3f steps/s, %s" % (rnd, rates["plain"][-1], ", ".join(
            "%s %.3f (%.3f)" % (m, rates[m][-1], rates[m][-1] / rates["plain"][-1])
            for m in modes[1:])), flush=True)
        done += 1
    if done < args.rounds:
        return 1
    print("\n| GPUs: run | plain steps/s | with dlgemm | ratio (medians) | per round | "
          "losses' largest rel. diff |")
    print("|---|---|---|---|---|---|")
    for m in modes[1:]:
        label = "%d: %s" % (args.gpus, "DLGEMM_TORCH=1" if m == "dlgemm" else args.variant)
        print(alternate.ratio_row(label, rates["plain"], rates[m], worst, fmt="%.3f"))
    ok = placed and worst < 2e-2
    if not ok:
        print("FAIL: a rank without products on its own device, or losses apart")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--gpus", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--out")
    ap.add_argument("--variant")
    ap.add_argument("--no-placement", action="store_true")
    args = ap.parse_args()
    return child(args.steps) if args.child else driver(args)


if __name__ == "__main__":
    sys.exit(main())
