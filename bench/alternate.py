"""alternate.py - what the framework benchmarks share (torch_models.py,
jax_models.py, torch_ddp.py): a program run as child processes in several
modes (plain, with dlgemm), round after round, the order reversed every
other round so that a drift of the host falls on every mode alike; each
child prints one line `RESULT {json}`; and the table of medians and
ratios against the plain mode.

A ratio between processes is all these measure: on a shared host the
plain runs alone move by tens of percent between rounds (bench/NOTES.md),
so read the per-round column before the medians.
"""
import json
import os
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
AUTOLOAD = os.path.join(HERE, "..", "python", "autoload")


def env_with_autoload(variable, extra=None):
    """This environment with the source tree's autoload on PYTHONPATH and
    `variable` (DLGEMM_TORCH, DLGEMM_JAX) set to 1, plus `extra`."""
    env = dict(os.environ)
    env.update({variable: "1", "PYTHONPATH": AUTOLOAD + os.pathsep + env.get("PYTHONPATH", "")})
    env.update(extra or {})
    return env


def child_result(cmd, env, log=None, label="", timeout=1200):
    """Run cmd; its RESULT line's object, or None (its stderr's tail printed)."""
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if log:
        log.write("=== %s exit %d\n%s\n%s\n" % (label, r.returncode, r.stdout, r.stderr[-20000:]))
        log.flush()
    line = [l for l in r.stdout.splitlines() if l.startswith("RESULT ")]
    if r.returncode or not line:
        print("%s failed:\n%s" % (label, r.stderr[-3000:]))
        return None
    return json.loads(line[0][7:])


def alternating(modes, rounds, run):
    """Yield (round, {mode: result}) for each round; run(mode, round) gives a
    mode's result, or None, which ends the rounds (a failed child)."""
    for rnd in range(rounds):
        got = {}
        for mode in modes if rnd % 2 == 0 else modes[::-1]:
            got[mode] = run(mode, rnd)
            if got[mode] is None:
                return
        yield rnd, got


def rel_diff(plain, other):
    """The largest relative difference between two lists of checks."""
    return max([0.0] + [abs(x - y) / max(abs(x), 1e-30) for x, y in zip(plain, other)])


def ratio_row(label, plain_rates, rates, diff, fmt="%.1f"):
    """A markdown row: label, the medians, their ratio, the per-round ratios,
    the outputs' largest relative difference."""
    p, d = statistics.median(plain_rates), statistics.median(rates)
    per = ", ".join("%.3f" % (x / y) for x, y in zip(rates, plain_rates))
    return ("| %s | " + fmt + " | " + fmt + " | **%.3f** | %s | %.2g |") % (
        label, p, d, d / p, per, diff)


def workloads(names, rounds, cmd, variable, log=None):
    """The models' driver: cmd's children plain and with `variable`=1 (the
    autoload) alternating, each reporting {name: {rate, unit, check}};
    prints each round's ratios and the table; 0, or 1 when a child failed."""
    rates = {n: {"plain": [], "dlgemm": []} for n in names}
    checks = {n: [] for n in names}

    def run(mode, rnd):
        env = env_with_autoload(variable) if mode == "dlgemm" else dict(os.environ)
        if mode == "plain":
            env.pop(variable, None)
        return child_result(cmd, env, log, "round %d %s" % (rnd, mode))
    done = 0
    for rnd, got in alternating(["plain", "dlgemm"], rounds, run):
        for n in names:
            for mode in got:
                rates[n][mode].append(got[mode][n]["rate"])
            checks[n].append(rel_diff(got["plain"][n]["check"], got["dlgemm"][n]["check"]))
        print("round %d: %s" % (rnd, ", ".join(
            "%s %.3f" % (n, rates[n]["dlgemm"][-1] / rates[n]["plain"][-1]) for n in names)),
            flush=True)
        done += 1
    if done < rounds:
        return 1
    print("\n| workload | plain | with %s=1 | ratio (medians) | per round | output rel. diff |"
          % variable)
    print("|---|---|---|---|---|---|")
    for n in names:
        print(ratio_row(n, rates[n]["plain"], rates[n]["dlgemm"], max(checks[n])))
    return 0
