#!/bin/bash
# sweep_ways.sh - issue 51's "routing table, measured, not guessed" for the
# complex products: the sweep's complex cells once under each embedding
# pinned (DLGEMM_CGEMM_WAY: expand, split, expand_t, split_t, native: the
# complex DMMA kernels, embed: the embedding's own choice) and once as
# the model picks (auto), then, cell by cell, the model's pick against the
# fastest way: the cells where it loses by more than 5%, and the geometric
# means (against cuBLAS) of the model's choice and of the best way per cell.
# A pinned way that cannot take a call (split needs its F interleaved)
# leaves it to the model, so its cell is the model's.
#
# usage: bench/sweep_ways.sh BUILD OUT [TYPE...]   (default c64 c128)
#   SAMPLE (default 4): the sweep's --sample
set -u
build=$1 out=$2
shift 2
types=${*:-c64 c128}
mkdir -p "$out"
for t in $types; do
  for way in auto expand split expand_t split_t native embed; do
    DLGEMM_CGEMM_WAY=$way "$build/bench/sweep" --only "$t" --sample "${SAMPLE:-4}" \
      >"$out/sweep_${t}_$way.log" 2>&1
    echo "$t $way: $(grep -E '^sweep ' "$out/sweep_${t}_$way.log")"
  done
done
python3 - "$out" $types <<'PY'
import math, sys
out, types = sys.argv[1], sys.argv[2:]
ways = ["auto", "expand", "split", "expand_t", "split_t", "native", "embed"]
def cells(path):
    # type op family cell... m n k batch b dlgemm cuBLAS ratio C-differs
    r = {}
    for line in open(path):
        f = line.split()
        if len(f) < 13 or f[0] not in types:
            continue
        try:
            rate, ratio = float(f[-4]), float(f[-2])
        except ValueError:
            continue
        r[tuple(f[:-4])] = (rate, ratio)
    return r
for t in types:
    runs = {w: cells(f"{out}/sweep_{t}_{w}.log") for w in ways}
    keys = [k for k in runs["auto"] if k[0] == t and all(k in runs[w] for w in ways)]
    losses, la, lb = [], [], []
    for k in keys:
        best = max(ways, key=lambda w: runs[w][k][0])
        a, b = runs["auto"][k], runs[best][k]
        la.append(math.log(a[1])); lb.append(math.log(b[1]))
        if b[0] > 1.05 * a[0]:
            losses.append((a[0] / b[0], best, " ".join(k[1:])))
    if not keys:
        print(f"{t}: no cells"); continue
    print(f"{t}: {len(keys)} cells; against cuBLAS, the model's choice {math.exp(sum(la)/len(la)):.3f},"
          f" the best way per cell {math.exp(sum(lb)/len(lb)):.3f}; the model more than 5% behind"
          f" the best way in {len(losses)} cells")
    for r, w, k in sorted(losses)[:15]:
        print(f"  {r:.2f} of {w:8} {k}")
PY
