#!/bin/bash
# lapack.sh - the same unmodified reference-LAPACK program (bench_lapack:
# xGETRF, xPOTRF, xGEQRF, xORMQR on malloc'ed matrices, each with its solve and
# residual) four ways in one job on the GPU machine: plain (reference
# LAPACK on netlib BLAS, one core), dlgemm LD_PRELOAD'ed, NVBLAS
# LD_PRELOAD'ed (netlib as its CPU BLAS), and OpenBLAS's own LAPACK and BLAS
# on every core (its liblapack.so.3 and libblas.so.3 found first).  Prints
# GFLOP/s side by side with the ratios and every residual.
#
# usage: bench/lapack.sh BUILD OUT [ROUTINES] [SIZES] [PLAIN_LIMIT_SECONDS]
#   OPENBLAS_DIR (default $DEVDEPS_OPENBLAS): the folder of OpenBLAS's
#   liblapack.so.3; RUNS (default "plain dlgemm openblas nvblas"); RUN_LIMIT
#   (seconds, default 1800): each run is stopped after it, keeping its lines;
#   SIZES_<run> (e.g. SIZES_nvblas): that run's sizes instead of SIZES;
#   SMALL_SIZES, ROUNDS (default 3): those sizes once more, plain and dlgemm
#   alternately, the best of each round kept
set -u
build=$1 out=$2
routines=${3:-dgetrf,dpotrf,dgeqrf,sgetrf,spotrf}
all_sizes=${4:-64,128,256,384,512,1024,2048,4096,8192,16384}
limit=${5:-60}
runs=${RUNS:-plain dlgemm openblas nvblas}
run_limit=${RUN_LIMIT:-1800}
bin=$build/bench/bench_lapack lib=$build/libdlgemm.so
mkdir -p "$out"
netlib=$(ldd "$bin" | awk '/libblas/ {print $3}')
nvblas=${NVBLAS_LIB:-$(ls /usr/local/cuda/lib64/libnvblas.so* 2>/dev/null | head -1)}
openblas=${OPENBLAS_DIR:-${DEVDEPS_OPENBLAS:-}}
echo "program: $bin; LAPACK: $(ldd "$bin" | awk '/liblapack/ {print $3}'); BLAS: $netlib"
echo "NVBLAS: ${nvblas:-not found}; OpenBLAS: ${openblas:-not found}; cores: $(nproc)"
for run in $runs; do
  eval "sizes=\${SIZES_$run:-$all_sizes}"
  case $run in
    none) continue ;; # RUNS=none: only the small-size rounds
    plain) timeout "$run_limit" "$bin" "$routines" "$sizes" "$limit" ;;
    dlgemm) # timed quietly; then DLGEMM_VERBOSE's account of two sizes
      LD_PRELOAD=$lib timeout "$run_limit" "$bin" "$routines" "$sizes"
      DLGEMM_VERBOSE=1 LD_PRELOAD=$lib "$bin" "$routines" 256,4096 2>"$out/lapack_dlgemm.log" >&2 ;;
    nvblas)
      [ -n "$nvblas" ] || continue
      printf 'NVBLAS_LOGFILE %s\nNVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL\nNVBLAS_AUTOPIN_MEM_ENABLED\n' \
        "$out/nvblas.log" "$netlib" >"$out/nvblas.conf"
      NVBLAS_CONFIG_FILE=$out/nvblas.conf LD_PRELOAD=$nvblas timeout "$run_limit" "$bin" "$routines" "$sizes" ;;
    openblas)
      [ -n "$openblas" ] || continue
      LD_LIBRARY_PATH=$openblas:${LD_LIBRARY_PATH:-} timeout "$run_limit" "$bin" "$routines" "$sizes" ;;
  esac >"$out/lapack_$run.txt"
  echo "$run done"
done
# Small sizes again, plain and dlgemm alternately ROUNDS times (best of each
# kept): timings of a few milliseconds differ by more than dlgemm's overhead
# from one process to the next on this machine.  They also depend on where
# the stack starts, which moves with the size of the environment: netlib's
# spotrf at n = 64 ran at 1.3 or 2.9 GFLOP/s, the same binary without dlgemm,
# as one variable grew by 16 bytes; and on where the heap's matrices lie
# against it, which dlgemm's own allocations move.  So both runs get
# environments of one size (PAD stands in for LD_PRELOAD in the plain run),
# and each round moves both stacks by 16 more bytes and both heaps by 592
# (HEAP_SHIFT, held by bench_lapack before its matrices).
if [ -n "${SMALL_SIZES:-}" ]; then
  preload="LD_PRELOAD=$lib"
  stand_in=$(printf "%$((${#preload} - 4))s" "" | tr ' ' x) # PAD= and as many bytes
  for round in $(seq "${ROUNDS:-3}"); do
    shift_=$(printf "%$((round * 16))s" "" | tr ' ' x)
    heap=$((round * 592 % 4096))
    env SHIFT="$shift_" HEAP_SHIFT=$heap PAD="$stand_in" "$bin" "$routines" "$SMALL_SIZES" \
      >"$out/lapack_plain.small$round.txt"
    env SHIFT="$shift_" HEAP_SHIFT=$heap "$preload" "$bin" "$routines" "$SMALL_SIZES" \
      >"$out/lapack_dlgemm.small$round.txt"
  done
  echo "small sizes: ${ROUNDS:-3} rounds of plain and dlgemm, alternately, stack and heap moved each round"
fi
# The summary of the dlgemm log: where each factorization call went.
grep -E "^dlgemm: [sd](getrf|potrf|geqrf|ormqr)_" "$out/lapack_dlgemm.log" 2>/dev/null |
  sed 's/^dlgemm: \([a-z]*_\) .* -> \([a-z-]*\)[: ].*/\1 \2/' | sort | uniq -c

python3 - "$out" $runs <<'PY'
import glob, re, sys
out, runs = sys.argv[1], [r for r in sys.argv[2:] if r != "none"] or ["plain", "dlgemm"]
res = {}
for run in runs:  # lapack_<run>.txt and its rounds lapack_<run>.small<i>.txt: the best
    for name in glob.glob(f"{out}/lapack_{run}.txt") + glob.glob(f"{out}/lapack_{run}.small*.txt"):
        for line in open(name):
            m = re.match(r"(\w+) n=(\d+) seconds=(\S+) gflops=(\S+) residual=(\S+) info=(\S+)", line)
            if m:
                d = res.setdefault((m[1], int(m[2])), {})
                if run not in d or float(m[4]) > d[run][0]:
                    d[run] = (float(m[4]), float(m[5]), int(m[6]))
head = "".join(f"{r:>10}" for r in runs)
print(f"{'routine':>8} {'n':>6}{head} {'dl/openblas':>12} {'dl/plain':>9} {'dl/nvblas':>10}  residuals (GFLOP/s)")
def ratio(d, a, b):
    return f"{d[a][0] / d[b][0]:.2f}" if a in d and b in d and d[b][0] > 0 else "-"
for (rt, n) in sorted(res, key=lambda k: (k[0], k[1])):
    d = res[(rt, n)]
    cols = "".join(f"{d[r][0]:>10.1f}" if r in d else f"{'-':>10}" for r in runs)
    resid = " ".join(f"{r}={d[r][1]:.2g}" + (f"(info {d[r][2]})" if d[r][2] else "") for r in runs if r in d)
    print(f"{rt:>8} {n:>6}{cols} {ratio(d, 'dlgemm', 'openblas'):>12} {ratio(d, 'dlgemm', 'plain'):>9} "
          f"{ratio(d, 'dlgemm', 'nvblas'):>10}  {resid}")
PY
