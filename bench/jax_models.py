"""jax_models.py - an unmodified jitted JAX program, plain and with DLGEMM_JAX=1.

usage: jax_models.py [--rounds 3] [--out DIR]
       jax_models.py --child   (one program run: what the driver times)

The program imports nothing of dlgemm: a GPT-2-sized decoder written in
plain jax.numpy (12 x 768, 12 heads, vocab 50304, bfloat16 weights and
activations, float32 loss), its jitted training step (jax.value_and_grad
and SGD) on 8 x 1024 tokens, and its jitted forward pass.  The driver runs
this file again as a child, alternately plain and with DLGEMM_JAX=1
(python/autoload on PYTHONPATH: every dot_general lowered through
dlgemm.jax.route(), each class measured against the program's cuBLAS on
its first call), and prints the median steps/s and tokens/s of each, the
ratio, and how far the dlgemm losses are from the plain ones (same seeds).
"""
import argparse
import json
import os
import statistics
import sys
import time

import alternate


def child():
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    import jax
    import jax.numpy as jnp
    L, D, H, V, T, B = 12, 768, 12, 50304, 1024, 8
    key = jax.random.PRNGKey(0)
    ks = iter(jax.random.split(key, 8 * L + 4))

    def w(shape, scale=0.02):
        return (jax.random.normal(next(ks), shape, jnp.float32) * scale).astype(jnp.bfloat16)

    params = {"wte": w((V, D)), "wpe": w((T, D)),
              "blocks": [{"qkv": w((D, 3 * D)), "proj": w((D, D)), "fc": w((D, 4 * D)),
                          "out": w((4 * D, D))} for _ in range(L)]}

    def norm(x):
        x32 = x.astype(jnp.float32)
        x32 = (x32 - x32.mean(-1, keepdims=True)) * jax.lax.rsqrt(x32.var(-1, keepdims=True) + 1e-5)
        return x32.astype(x.dtype)

    def forward(p, idx):
        x = p["wte"][idx] + p["wpe"][: idx.shape[1]]
        mask = jnp.tril(jnp.ones((T, T), bool))
        for blk in p["blocks"]:
            q, k, v = jnp.split(norm(x) @ blk["qkv"], 3, axis=-1)
            q, k, v = (t.reshape(B, T, H, D // H).transpose(0, 2, 1, 3) for t in (q, k, v))
            s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(D // H).astype(q.dtype)
            s = jnp.where(mask, s.astype(jnp.float32), -1e9)
            a = jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, -1).astype(v.dtype), v)
            x = x + a.transpose(0, 2, 1, 3).reshape(B, T, D) @ blk["proj"]
            x = x + jax.nn.gelu(norm(x) @ blk["fc"]) @ blk["out"]
        return norm(x) @ p["wte"].T

    def loss(p, idx):
        logits = forward(p, idx[:, :-1]).astype(jnp.float32)
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), idx[:, 1:, None], -1))

    @jax.jit
    def train_step(p, idx):
        val, g = jax.value_and_grad(loss)(p, idx)
        return jax.tree_util.tree_map(lambda a, b: a - 1e-3 * b.astype(a.dtype), p, g), val

    infer = jax.jit(forward)
    idx = jax.random.randint(next(ks), (B, T + 1), 0, V)

    def timed(fn, iters, reps=5):
        out = []
        for _ in range(reps):
            t0 = time.perf_counter()
            for _ in range(iters):
                r = fn()
            jax.block_until_ready(r)
            out.append((time.perf_counter() - t0) / iters)
        return statistics.median(out)

    p, losses = params, []
    for _ in range(3):
        p, val = train_step(p, idx)
        losses.append(float(val))
    state = {"p": p}

    def step():
        state["p"], val = train_step(state["p"], idx)
        return val
    s_train = timed(step, 5)
    jax.block_until_ready(infer(params, idx[:, :T]))
    s_infer = timed(lambda: infer(params, idx[:, :T]), 10)
    logits = infer(params, idx[:, :T])
    print("RESULT " + json.dumps({
        "gpt_train": {"rate": 1 / s_train, "unit": "steps/s", "check": losses},
        "gpt_prefill": {"rate": B * T / s_infer, "unit": "tokens/s",
                        "check": [float(jnp.mean(jnp.square(logits[:, -1].astype(jnp.float32))))]}}),
          flush=True)
    return 0


def driver(args):
    names = ["gpt_train", "gpt_prefill"]
    log = open(os.path.join(args.out, "jax_models_children.log"), "w") if args.out else None
    cmd = [sys.executable, os.path.abspath(__file__), "--child"]
    return alternate.workloads(names, args.rounds, cmd, "DLGEMM_JAX", log)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args()
    return child() if args.child else driver(args)


if __name__ == "__main__":
    sys.exit(main())
