#!/usr/bin/env python3
"""fit_plan.py - the FP64 plan's constants (plugin/cuda/device/dgemm.c,
plan_for) against the pinned measurements in pins/: f_<tile>_<splits>.log
is bench/sweep over cells/fp64n_b0.cells with DLGEMM_DGEMM_TILE=<tile> and
DLGEMM_DGEMM_SPLITS=<splits> (0: the plan of session 38).  For a set of
constants it prints, per cell, the plan the model takes and its own
TFLOP/s against the best pinned one's; then the geometric mean of that
share over the grid of constants, by each constant's value (the plateau).

With --changes, instead: the factorization-shaped products (m x n x k of
256-16384 with a side or k of 32-512) whose plan differs from session 38's
(its shape estimate and one-wave split-K, emulated), to measure first.

usage: fit_plan.py [PINS_DIR] | fit_plan.py --changes"""
import collections, glob, itertools, math, os, sys

changes = sys.argv[1:] == ['--changes']
pins = sys.argv[1] if len(sys.argv) > 1 and not changes else os.path.join(os.path.dirname(__file__), 'pins')
data, dims = collections.defaultdict(dict), {}
for f in glob.glob(os.path.join(pins, 'f_*.log')):
    cfg = os.path.basename(f)[2:-4]
    for line in open(f):
        w = line.split()
        if len(w) > 12 and w[2] == 'narrow':
            data[(w[1], w[3])][cfg] = float(w[-4])  # dlgemm TFLOP/s
            dims[(w[1], w[3])] = (int(w[4]), int(w[5]), int(w[6]))

SMS = 132
SHAPES = {'wide': (128, 64, 2), 'thinm': (32, 128, 3), 'thinn': (128, 32, 3), 'flat': (64, 128, 2)}


def tiles(m, n, sh):
    bm, bn, _ = SHAPES[sh]
    return -(-m // bm) * -(-n // bn)


def thin_of(m, n):
    fill = lambda sh: m * n / (tiles(m, n, sh) * SHAPES[sh][0] * SHAPES[sh][1])
    return 'thinm' if fill('thinm') >= fill('thinn') else 'thinn'


def plan_time(m, n, k, sh, s, lone_wide, lone_thin, bw):
    bm, bn, resident = SHAPES[sh]
    kc = (-(-k // s) + 15) // 16 * 16
    parts = (k - 1) // kc + 1
    q = -(-tiles(m, n, sh) * parts // SMS)
    rem = q % resident
    thin = resident == 3
    cost = 1.1 + 0.4 * (256 / kc if kc > 256 else 1) if thin else 1
    block = 2 * bm * bn * kc / 0.45e12
    t = q // resident * resident * block * cost
    if rem:
        t += max(block / (lone_thin if thin else lone_wide), rem * block * cost)
    if parts > 1:
        t += (parts + 1) * m * n * 8 / bw + 5e-6
    return t


def plan(m, n, k, c):
    lone_wide, lone_thin, new_plan, bw = c
    whole = plan_time(m, n, k, 'wide', 1, lone_wide, lone_thin, bw)
    best = (whole, 'wide', 1)
    for sh in ('wide', 'flat', thin_of(m, n)):  # dgemm.c's order: the first of equals wins
        for s in (1, 2, 3, 4, 6, 8):
            t = plan_time(m, n, k, sh, s, lone_wide, lone_thin, bw)
            if (s == 1 or k // s >= 256) and t < best[0]:
                best = (t, sh, s)
    return best[1:] if best[0] < new_plan * whole else ('wide', 1)


def share(c, show=False):
    logs = 0
    for key in sorted(data):
        sh, s = plan(*dims[key], c)
        got = data[key]['%s_%d' % ('thin' if sh.startswith('thin') else sh, s)]
        best = max(data[key].values())
        logs += math.log(got / best)
        if show:
            print('%s %-6s %s_%d %5.1f of %5.1f TFLOP/s (plan of session 38: %5.1f)'
                  % (key[0], key[1], sh, s, got, best, data[key]['auto_0']))
    return math.exp(logs / len(data))


committed = (0.9, 0.7, 0.85, 3e12)


def plan38(m, n, k):
    """Session 38's choice: each shape's mean share of blocks times its work, one-wave split-K."""
    def splits(sh):
        t = tiles(m, n, sh)
        if k < 1024 or 2 * t > 2 * SMS:
            return 1
        s = min(2 * SMS // t, k // 256)
        return s if s >= 2 else 1

    def estimate(sh):
        s = splits(sh)
        blocks = tiles(m, n, sh) * s
        kc = k / s
        thin = SHAPES[sh][2] == 3
        cost = 1.1 + 0.4 * (256 / kc if kc > 256 else 1) if thin else 1
        return max(blocks / SMS, 1) * SHAPES[sh][0] * SHAPES[sh][1] * cost * kc

    best = 'wide'
    if estimate('flat') < 0.9 * estimate('wide'):
        best = 'flat'
    if estimate(thin_of(m, n)) < 0.9 * estimate(best):
        best = thin_of(m, n)
    return best, splits(best)


if changes:
    seen = 0
    for nb in (32, 64, 128, 256, 512):
        for n in range(256, 16385, 256):
            for mnk in ((n, n, nb), (n, nb, n), (nb, n, n), (n, nb, nb), (n, n - nb, nb)):
                if min(mnk) > 0 and plan38(*mnk) != plan(*mnk, committed):
                    seen += 1
                    print(mnk, 'session 38', plan38(*mnk), 'now', plan(*mnk, committed))
    print(seen, 'products change plan')
    sys.exit(0)
print('committed constants', committed, 'share of the best pinned time %.3f' % share(committed, True))
grid = ((0.7, 0.8, 0.85, 0.9, 0.95, 1.0), (0.3, 0.4, 0.5, 0.7, 1.0), (0.8, 0.85, 0.9, 0.95), (1.5e12, 3e12, 5e12))
res = [(share(c), c) for c in itertools.product(*grid)]
for i, name in enumerate(('lone wide/flat', 'lone thin', 'new plan', 'reduce B/s')):
    print(name, ' '.join('%g:%.3f' % (v, max(r for r, c in res if c[i] == v)) for v in grid[i]))
