"""test_jax_route.py - an unmodified jitted JAX program's dot_general on
dlgemm (dlgemm.jax.route(): a lowering rule in front of XLA's), against XLA's
own products and an FP64 one.

usage: test_jax_route.py [--child OUT.npz]

In this process, on the CPU platform (CI: the JAX of tools/install-deps.sh),
the rule is registered for "cpu" and checked: every operand orientation,
batched and multi-dimensional contractions (attention's two products),
float32, float64, bfloat16 and float16 (with a float32 result too), odd
sizes and 1, gradients; which forms lower to the custom call and which keep
XLA's dot (two contracting dimensions, HIGH precision, mixed types, an
automatically sharded jit).

With a GPU, the parent runs the child program (which imports nothing of
dlgemm) three ways: plain, DLGEMM_JAX=1 with DLGEMM_CUBLAS=on (dlgemm takes
every product the rule hands it) and DLGEMM_JAX=1 alone (each class
measured against the program's cuBLAS), and requires the same outputs as the
plain run within each dtype's tolerance, products on dlgemm in `on` mode
(DLGEMM_VERBOSE names them xla_dot) on every device, and classes measured
in the third.  The child's work: the products above, a small MLP's training
steps, and with two GPUs or more a data-parallel training step under
shard_map over every GPU (its per-device products on dlgemm) and a jit over
the same mesh with automatic sharding (XLA keeps those dots).
Exit 77 (skip) without jax.
"""
import os
import re
import subprocess
import sys

import numpy as np

if "--child" not in sys.argv:  # the child is the unmodified program: no source tree on its path
    from checks import SKIP, check, verdict  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
# max |x - plain| / max |plain| allowed, by result dtype (float32 products
# may be TF32 on the GPU: XLA's default precision)
TOL = {"float64": 1e-12, "float32": 2e-2, "bfloat16": 4e-2, "float16": 8e-3}


def workload(jax, jnp, lax):
    """{name: result} of an ordinary program's products."""
    rng = np.random.default_rng(20261127)
    out = {}

    def arr(shape, dt):
        return jnp.asarray(rng.standard_normal(shape), dt)

    m, n, k = 257, 129, 511
    for dt in ("float32", "float64", "bfloat16", "float16"):
        a, b, at, bt = arr((m, k), dt), arr((k, n), dt), arr((k, m), dt), arr((n, k), dt)
        out[dt + " NN"] = jax.jit(lambda a, b: a @ b)(a, b)
        out[dt + " TN"] = jax.jit(lambda a, b: a.T @ b)(at, b)
        out[dt + " NT"] = jax.jit(lambda a, b: a @ b.T)(a, bt)
        out[dt + " TT"] = jax.jit(lambda a, b: a.T @ b.T)(at, bt)
        out[dt + " 1"] = jax.jit(lambda a, b: a[:1, :1] @ b[:1, :1])(a, b)
        if dt in ("bfloat16", "float16"):
            out[dt + " ->f32"] = jax.jit(lambda a, b: lax.dot_general(
                a, b, (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32))(a, b)
    a, b = arr((m, k), "float32"), arr((k, n), "float32")
    out["float32 HIGHEST"] = jax.jit(lambda a, b: jnp.matmul(a, b, precision="highest"))(a, b)
    q, kk, v = (arr((2, 4, 97, 64), "bfloat16") for _ in range(3))
    att = jax.jit(lambda q, k: jnp.einsum("bhqd,bhkd->bhqk", q, k))(q, kk)
    out["attention scores"] = att
    out["attention values"] = jax.jit(lambda p, v: jnp.einsum("bhqk,bhkd->bhqd", p, v))(att, v)
    x3 = arr((4, 33, 65), "float32")
    out["3-D x 2-D"] = jax.jit(lambda x, w: x @ w)(x3, arr((65, 17), "float32"))

    # a small MLP trained a few steps: forward, backward (both transposes), update
    w1, w2 = arr((64, 256), "float32") * 0.1, arr((256, 10), "float32") * 0.1
    xs, ys = arr((512, 64), "float32"), arr((512, 10), "float32")

    def loss(p, x, y):
        return jnp.mean((jnp.tanh(x @ p[0]) @ p[1] - y) ** 2)

    @jax.jit
    def step(p, x, y):
        val, g = jax.value_and_grad(loss)(p, x, y)
        return [w - 0.1 * gw for w, gw in zip(p, g)], val

    def train(fn):
        p, losses = [w1, w2], []
        for _ in range(5):
            p, val = fn(p, xs, ys)
            losses.append(val)
        return jnp.stack(losses), p[0]

    out["mlp losses"], out["mlp w1"] = train(step)

    devs = jax.devices()
    if len(devs) >= 2:
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
        shard_map = getattr(jax, "shard_map", None)
        if shard_map is None:
            from jax.experimental.shard_map import shard_map
        mesh = Mesh(np.array(devs), ("d",))

        def local_step(p, x, y):
            val, g = jax.value_and_grad(loss)(p, x, y)
            g = jax.lax.pmean(g, "d")
            return [w - 0.1 * gw for w, gw in zip(p, g)], jax.lax.pmean(val, "d")

        dp = jax.jit(shard_map(local_step, mesh=mesh, in_specs=(P(), P("d"), P("d")),
                               out_specs=(P(), P())))
        out["sharded mlp losses"], out["sharded mlp w1"] = train(dp)
        xsh = jax.device_put(xs, NamedSharding(mesh, P("d")))
        out["auto-sharded product"] = jax.jit(lambda x, w: jnp.tanh(x @ w))(xsh, w1)
    return {name: np.asarray(jnp.asarray(v, jnp.float64 if v.dtype == jnp.float64
                                         else jnp.float32)) for name, v in out.items()}, \
        {name: str(v.dtype) for name, v in out.items()}


def child(path):
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    import jax
    import jax.numpy as jnp
    from jax import lax
    jax.config.update("jax_enable_x64", True)
    values, dtypes = workload(jax, jnp, lax)
    with open("/proc/self/maps") as f:
        cublas = "libcublas" in f.read()
    print("devices %d; a cuBLAS loaded: %s" % (len(jax.devices()), cublas), file=sys.stderr)
    np.savez(path, **values, __dtypes=np.array([dtypes[n] for n in values]),
             __names=np.array(list(values)))
    return 0


def cpu_rule_checks():
    """The rule on the CPU platform, in this process."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    jax.config.update("jax_enable_x64", True)
    import dlgemm.jax as dj
    rng = np.random.default_rng(7)
    cases = []

    def lowered(f, *xs):
        return "dlgemm_matmul" in jax.jit(f).lower(*xs).as_text()

    def same(f, xs, dt, what, routed=True):
        """Check f(xs) routed against XLA's own product in FP64 (run first, with
        XLA's rule still in place)."""
        cases.append((f, xs, dt, what, routed,
                      np.asarray(jax.jit(f)(*[jnp.asarray(x, jnp.float64) for x in xs]))))

    for dt in ("float32", "float64", "bfloat16", "float16"):
        for m, n, k in ((1, 1, 1), (7, 5, 3), (37, 29, 131)):
            a = jnp.asarray(rng.standard_normal((m, k)), dt)
            b = jnp.asarray(rng.standard_normal((k, n)), dt)
            at, bt = a.T.copy(), b.T.copy()
            shape = "%dx%dx%d" % (m, n, k)
            same(lambda a, b: a @ b, (a, b), dt, "NN " + shape)
            same(lambda a, b: a.T @ b, (at, b), dt, "TN " + shape)
            same(lambda a, b: a @ b.T, (a, bt), dt, "NT " + shape)
            same(lambda a, b: a.T @ b.T, (at, bt), dt, "TT " + shape)
        x = jnp.asarray(rng.standard_normal((2, 3, 5, 4)), dt)
        w = jnp.asarray(rng.standard_normal((4, 6)), dt)
        same(lambda x, w: x @ w, (x, w), dt, "4-D x 2-D")
        w5 = jnp.asarray(rng.standard_normal((5, 6)), dt)
        same(lambda x, w: lax.dot_general(x[0], w[:3], (((0,), (0,)), ((), ()))), (x, w5), dt,
             "contraction before two free dimensions")
        same(lambda x, w: lax.dot_general(x, w, (((2,), (0,)), ((), ()))), (x, w5), dt,
             "contraction between free dimensions", routed=False)
        same(lambda q, k: jnp.einsum("bhqd,bhkd->bhqk", q, k), (x, x), dt, "attention scores")
        same(lambda p, v: jnp.einsum("bhqk,bhkd->bhqd", p, v), (jnp.swapaxes(x, 2, 3), x), dt,
             "attention values")
        same(lambda x, y: jnp.einsum("abij,abjk->abik", x, y), (x, jnp.swapaxes(x, 2, 3)), dt,
             "two batch dimensions")
        same(lambda x, y: jnp.einsum("ijk,ijl->kl", x, y), (x[0], x[1]), dt,
             "two contracting dimensions", routed=False)
    a = jnp.asarray(rng.standard_normal((9, 7)), "bfloat16")
    same(lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())),
                                      preferred_element_type=jnp.float32),
         (a, a.T.copy()), "bfloat16", "bf16 -> float32 result")
    f32 = jnp.asarray(rng.standard_normal((9, 7)), "float32")
    same(lambda a, b: jnp.matmul(a, b, precision="highest"), (f32, f32.T.copy()), "float32",
         "HIGHEST")
    same(lambda a, b: a @ b, (f32, jnp.asarray(f32.T, "float64")), "float32",
         "float32 x float64", routed=False)
    g = jax.grad(lambda w: jnp.sum(jnp.tanh(f32 @ w) ** 2))
    same(g, (jnp.asarray(rng.standard_normal((7, 3)), "float32"),), "float32", "gradient")
    # two host devices (XLA_FLAGS, set by main): shard_map's per-device code
    # is routed, an automatically sharded jit's dot is not
    cpus = jax.devices("cpu")
    if len(cpus) >= 2:
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
        shard_map = getattr(jax, "shard_map", None)
        if shard_map is None:
            from jax.experimental.shard_map import shard_map
        mesh = Mesh(np.array(cpus[:2]), ("d",))
        x = jnp.asarray(rng.standard_normal((64, 31)), "float32")
        w = jnp.asarray(rng.standard_normal((31, 9)), "float32")
        per_device = shard_map(lambda x, w: jax.lax.psum(x.T @ x @ w, "d"), mesh=mesh,
                               in_specs=(P("d"), P()), out_specs=P())
        same(per_device, (x, w), "float32", "shard_map over 2 devices")
        xs = jax.device_put(x, NamedSharding(mesh, P("d")))
        same(lambda x, w: x @ w, (xs, w), "float32", "jit sharded automatically over 2 devices",
             routed=False)
    else:
        check(False, "cpu: XLA_FLAGS gave %d host devices, not 2" % len(cpus))

    dj.route("cpu")
    jax.clear_caches()
    for f, xs, dt, what, routed, ref in cases:
        got = np.asarray(jnp.asarray(jax.jit(f)(*xs), jnp.float64))
        tol = {"float64": 1e-13, "float32": 1e-5, "bfloat16": 2e-2, "float16": 4e-3}[dt]
        err = np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-30)
        check(got.shape == ref.shape and err <= tol, "cpu %s %s: rel. error %.3g (shape %s)"
              % (dt, what, err, got.shape))
        check(lowered(f, *xs) == routed, "cpu %s %s: %s the custom call" % (
            dt, what, "not lowered to" if routed else "lowered to"))
    print("cpu: %d products checked against XLA's in FP64, %d of them lowered to dlgemm"
          % (len(cases), sum(c[4] for c in cases)))


def autoload_check():
    """DLGEMM_JAX=1 from a source tree (python/autoload on PYTHONPATH): the
    rule is registered once the program imports jax, with nothing else of
    dlgemm's on the program's path."""
    env = dict(os.environ, DLGEMM_JAX="1")
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(ROOT, "python", "autoload")] +
        [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    probe = ("import sys; import jax; m = sys.modules.get('dlgemm.jax'); "
             "print('ROUTES', sorted(m._routes) if m else None)")
    r = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                       timeout=300, cwd="/")
    line = [l for l in r.stdout.splitlines() if l.startswith("ROUTES")]
    print("autoload: %s%s" % (line[0] if line else "no answer", (" " + r.stderr.strip()[-300:])
                              if r.stderr.strip() else ""))
    check(r.returncode == 0 and line == ["ROUTES ['cuda']"],
          "DLGEMM_JAX=1 did not register the lowering for cuda when jax was imported")


def gpu_runs():
    me = os.path.abspath(__file__)
    auto = os.path.join(ROOT, "python", "autoload")
    import tempfile
    tmp = tempfile.mkdtemp()
    results = {}
    runs = (("plain", {}),
            ("on", {"DLGEMM_JAX": "1", "DLGEMM_CUBLAS": "on", "DLGEMM_VERBOSE": "1"}),
            # a cache of its own: verdicts of earlier runs would leave nothing to measure
            ("auto", {"DLGEMM_JAX": "1", "DLGEMM_VERBOSE": "1",
                      "XDG_CACHE_HOME": tempfile.mkdtemp()}))
    for name, extra in runs:
        env = dict(os.environ, **extra)
        env.pop("PYTHONPATH", None)  # the machine's own jax, not CI's CPU one
        if name != "plain":
            env["PYTHONPATH"] = auto
        else:
            env.pop("DLGEMM_JAX", None)
        env.pop("DLGEMM_TORCH", None)
        if "DLGEMM_CUBLAS" not in extra:
            env.pop("DLGEMM_CUBLAS", None)
        path = os.path.join(tmp, name + ".npz")
        r = subprocess.run([sys.executable, me, "--child", path], env=env, capture_output=True,
                           text=True, timeout=900)
        took = re.findall(r"^dlgemm: xla_dot \S+ .* -> (cuda:\d+)", r.stderr, re.M)
        per_dev = {d: took.count(d) for d in sorted(set(took))}
        measured = [l for l in r.stderr.splitlines() if "xla_dot class of" in l]
        info = [l for l in r.stderr.splitlines() if l.startswith("devices ")]
        print("%s: exit %d; %s; products on dlgemm by device %s; %d classes measured"
              % (name, r.returncode, info[0] if info else "?", per_dev, len(measured)))
        for l in measured[:10]:
            print("  " + l)
        check(r.returncode == 0, "%s: the child failed" % name)
        if r.returncode:
            print(r.stderr[-4000:])
            continue
        with np.load(path) as z:
            results[name] = {n: z[n] for n in z["__names"]}
            dtypes = dict(zip(z["__names"], z["__dtypes"]))
        if name == "on":
            ndev = int(info[0].split()[1].rstrip(";")) if info else 1
            check(len(took) > 50, "on: dlgemm took only %d products" % len(took))
            check(sorted(per_dev) == ["cuda:%d" % d for d in range(ndev)],
                  "on: products on devices %s, of %d" % (per_dev, ndev))
        if name == "auto":
            check(len(measured) > 0 or "cuBLAS loaded: False" in (info[0] if info else ""),
                  "auto: no class was measured")
    if "plain" in results:
        for name in ("on", "auto"):
            for key, plain in results["plain"].items():
                got = results.get(name, {}).get(key)
                if got is None:
                    continue
                err = np.abs(got.astype(np.float64) - plain).max() / max(np.abs(plain).max(), 1e-30)
                check(got.shape == plain.shape and err <= TOL[str(dtypes[key])],
                      "%s: %s (%s) differs from plain JAX's by %.3g" % (name, key, dtypes[key], err))
            print("%s: %d outputs compared with plain JAX's" % (name, len(results["plain"])))


def main():
    if "--child" in sys.argv:
        return child(sys.argv[sys.argv.index("--child") + 1])
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_force_host_platform_device_count=2").strip()
    try:
        import jax
    except ImportError as e:
        print("SKIP: jax is not installed here: %s" % e)
        return SKIP
    with jax.default_device(jax.devices("cpu")[0]):
        cpu_rule_checks()
    autoload_check()
    if any(d.platform == "gpu" for d in jax.devices()):
        gpu_runs()
    else:
        print("note: no GPU for JAX here: the routed program runs on the GPU machine only")
    return verdict("jax route")


if __name__ == "__main__":
    sys.exit(main())
