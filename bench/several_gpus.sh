#!/bin/bash
# several_gpus.sh - one host-array sgemm_ / dgemm_ on every GPU of the node
# against one GPU and against NVBLAS, in one job (issue 26): the unmodified
# BLAS program host_bench (linked with netlib) run
#   one     dlgemm LD_PRELOAD'ed, DLGEMM_DEVICES=0
#   all     dlgemm LD_PRELOAD'ed, every GPU (the default: the operand every
#           GPU reads crosses from the host once, in panels, and goes on
#           between GPUs)
#   host    the same with DLGEMM_PEER=off: every GPU's panels from the host
#   nvblas  the toolkit's libnvblas.so LD_PRELOAD'ed, NVBLAS_GPU_LIST ALL,
#           netlib as its CPU BLAS, pinning on
# RUNS picks dlgemm's (default "one all"); they alternate ROUNDS times
# (default 2; the host's copies vary from one process to the next), NVBLAS
# runs once (steady, and slow; NVBLAS=0 skips it).  Prints TFLOP/s, all/one
# (the issue asks >= 1.8) and all/NVBLAS (>= 5) from the medians, host/one
# where host ran, and one verbose call of each at each size: the split, the
# devices, the copies between them and each part's engine timeline.
#
# usage: bench/several_gpus.sh BUILD OUT [n...]   (default 16384 32768)
set -u
build=$(cd "$1" && pwd) out=$2
shift 2
sizes=${*:-16384 32768}
rounds=${ROUNDS:-2} runs=${RUNS:-one all}
bin=$build/bench/host_bench lib=$build/libdlgemm.so
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$gpus" -ge 2 ] || { echo "SKIP: several_gpus.sh needs two GPUs or more ($gpus here)"; exit 77; }
mkdir -p "$out"
rm -f "$out"/several_*.txt
netlib=$(ldd "$bin" | awk '/libblas/ {print $3}')
nvblas=${NVBLAS_LIB:-$(ls /usr/local/cuda/lib64/libnvblas.so* 2>/dev/null | head -1)}
echo "program: $bin; its BLAS: $netlib; NVBLAS: ${nvblas:-not found}; $gpus GPUs, $(nproc) cores"
# Each device's host model, measured by a process alone on it.
export XDG_CACHE_HOME=$out/cache
rm -rf "$XDG_CACHE_HOME"
for d in $(seq 0 $((gpus - 1))); do
  DLGEMM_DEVICES=$d DLGEMM_VERBOSE=1 LD_PRELOAD=$lib "$bin" 30 64 2>&1 >/dev/null | grep -m1 "host model"
done
for r in $(seq 1 "$rounds"); do
  for run in $runs; do
    case $run in one) env=(DLGEMM_DEVICES=0) ;; all) env=() ;; host) env=(DLGEMM_PEER=off) ;;
                 *) echo "unknown run $run"; continue ;; esac
    env "${env[@]}" LD_PRELOAD=$lib "$bin" 120 $sizes | sed "s/^/round=$r /" |
      tee -a "$out/several_$run.txt"
  done
done
if [ -n "$nvblas" ] && [ "${NVBLAS:-1}" != 0 ]; then
  printf 'NVBLAS_LOGFILE %s\nNVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL\nNVBLAS_AUTOPIN_MEM_ENABLED\n' \
    "$out/nvblas.log" "$netlib" >"$out/nvblas.conf"
  NVBLAS_CONFIG_FILE=$out/nvblas.conf LD_PRELOAD=$nvblas "$bin" 240 $sizes | sed "s/^/round=1 /" |
    tee "$out/several_nvblas.txt"
fi
# One call each, verbose (a limit below the call's time: the warm-up and one more).
for n in $sizes; do
  DLGEMM_VERBOSE=1 LD_PRELOAD=$lib "$bin" 0.001 "$n" 2>&1 >/dev/null |
    grep -E "gemm_ .*-> " | awk '{last[$2] = $0} END {for (r in last) print last[r]}'
done

python3 - "$out" "$(dirname "$0")" <<'PY'
import statistics, sys
out = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import rates
def read(name): # {(s or d, n): [TFLOP/s of each round]}
    return {(r[0], n): v for (r, n), v in rates.read(f"{out}/several_{name}.txt").items()}
one, all_, host, nv = read("one"), read("all"), read("host"), read("nvblas")
print(f"{'call':>6} {'n':>6} {'one GPU':>12} {'all GPUs':>12} {'all, host':>12} {'NVBLAS':>7} "
      f"{'all/one':>7} {'host/one':>8} {'all/NV':>7}"
      "   (TFLOP/s, each round; ratios of the medians)")
for key in sorted(set(one) | set(all_) | set(host)):
    t, n = key
    o, a, h, v = (d.get(key, []) for d in (one, all_, host, nv))
    med = lambda x: statistics.median(x)
    cell = lambda x: ",".join(f"{r:.1f}" for r in x) or "-"
    ratio = lambda x, y: f"{med(x) / med(y):.2f}" if x and y else "-"
    print(f"{t}gemm_ {n:6d} {cell(o):>12} {cell(a):>12} {cell(h):>12} {cell(v):>7} "
          f"{ratio(a, o):>7} {ratio(h, o):>8} {ratio(a, v):>7}")
PY
