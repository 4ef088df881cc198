# session 42, call B: FP64 plan_for's chunk counts past 8 (ext) against the current (cur) and session 38's rule (o38):
# reference LAPACK (dgetrf, dpotrf, dgeqrf, dormqr) alternating, two rounds; the sampled FP64 sweep cur / ext alternating
source tools/device-carry-env.sh && B=build && O=$OUT
for l in cur ext old38; do mkdir -p /tmp/$l && xz -dc s42/$l.so.0.xz > /tmp/$l/libdlgemm.so.0; done
nvidia-smi --query-gpu=name,clocks.sm --format=csv
for r in 1 2; do
  for l in ext cur old38; do
    echo "== $l round $r"; LD_PRELOAD=/tmp/$l/libdlgemm.so.0 timeout $(cap 60) $B/bench/bench_lapack dgetrf,dpotrf,dgeqrf,dormqr 1024,2048,4096,8192,16384
  done
done > $O/lapack_abc.log 2>&1
python3 - $O/lapack_abc.log <<'PY'
import sys, re, collections
t = collections.defaultdict(list)
lib = None
for line in open(sys.argv[1]):
    if line.startswith("=="): lib = line.split()[1]; continue
    m = re.match(r"(\w+) n=(\d+) seconds=([\d.]+)", line)
    if m: t[(m[1], int(m[2]), lib)].append(float(m[3]))
keys = sorted({(r, n) for r, n, _ in t})
print("routine n  cur/ext  o38/ext (seconds ratio: >1 ext faster)")
for r, n in keys:
    e = min(t[(r, n, "ext")] or [0]); c = min(t[(r, n, "cur")] or [0]); o = min(t[(r, n, "old38")] or [0])
    if e: print(f"{r} {n} ext {e:.4f} cur {c:.4f} o38 {o:.4f}  {c/e:.3f} {o/e:.3f}")
PY
for r in 1 2; do
  LD_LIBRARY_PATH=/tmp/cur timeout $(cap 60) $S --sample 4 --only fp64 > $O/fp64_cur_$r.log 2>&1
  LD_LIBRARY_PATH=/tmp/ext timeout $(cap 60) $S --sample 4 --only fp64 > $O/fp64_ext_$r.log 2>&1
done
grep "^sweep\|below" $O/fp64_*.log
cd $O && tar czf b.tgz *.log && ls -la
