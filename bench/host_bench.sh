#!/bin/bash
# host_bench.sh - the same unmodified BLAS program (host_bench: sgemm_ and
# dgemm_ on malloc'ed arrays, n = 64..16384) three ways in one job on the
# GPU machine: the next BLAS alone (netlib), dlgemm LD_PRELOAD'ed, NVBLAS
# LD_PRELOAD'ed (the toolkit's libnvblas.so, netlib as its CPU BLAS, pinning
# on).  Prints TFLOP/s, the ratios, and dlgemm's fraction of the bound
# max(bytes moved / 43 GB/s, flops / kernel rate).
#
# usage: bench/host_bench.sh <build-dir> <out-dir> [n...]
set -u
build=$1 out=$2
shift 2
sizes=${*:-64 128 256 512 1024 2048 4096 8192 16384}
bin=$build/bench/host_bench lib=$build/libdlgemm.so
mkdir -p "$out"
netlib=$(ldd "$bin" | awk '/libblas/ {print $3}')
nvblas=${NVBLAS_LIB:-$(ls /usr/local/cuda/lib64/libnvblas.so* 2>/dev/null | head -1)}
echo "program: $bin; its BLAS: $netlib; NVBLAS: ${nvblas:-not found}"

# The next BLAS alone: netlib at ~1-2 GFLOP/s, so large sizes are skipped
# after their time is predicted (30 s a call).
"$bin" 30 $sizes | tee "$out/host_netlib.txt"
# dlgemm: its model is measured into a fresh cache first (printed).
export XDG_CACHE_HOME=$out/cache
DLGEMM_VERBOSE=1 LD_PRELOAD=$lib "$bin" 30 64 2>&1 >/dev/null | grep "host model"
LD_PRELOAD=$lib "$bin" 60 $sizes | tee "$out/host_dlgemm.txt"
if [ -n "$nvblas" ]; then
  cat >"$out/nvblas.conf" <<CONF
NVBLAS_LOGFILE $out/nvblas.log
NVBLAS_CPU_BLAS_LIB $netlib
NVBLAS_GPU_LIST ALL
NVBLAS_AUTOPIN_MEM_ENABLED
CONF
  NVBLAS_CONFIG_FILE=$out/nvblas.conf LD_PRELOAD=$nvblas "$bin" 60 $sizes |
    tee "$out/host_nvblas.txt"
fi

# Side by side.  kernel rates for the bound: dlgemm's measured model.
model=$(ls "$XDG_CACHE_HOME"/dlgemm/host-model-*.txt 2>/dev/null | head -1)
k32=$(awk '$1 == "kernel[0]" {print $2}' "$model" 2>/dev/null)
k64=$(awk '$1 == "kernel[1]" {print $2}' "$model" 2>/dev/null)
python3 - "$out" "$(dirname "$0")" "${k32:-5e13}" "${k64:-5e13}" <<'PY'
import sys
out, k32, k64 = sys.argv[1], float(sys.argv[3]), float(sys.argv[4])
sys.path.insert(0, sys.argv[2])
import rates
def read(name): # {(s or d, n): TFLOP/s}
    return {(r[0], n): v[0] for (r, n), v in rates.read(f"{out}/host_{name}.txt").items()}
net, dl, nv = read("netlib"), read("dlgemm"), read("nvblas")
print(f"{'call':>6} {'n':>6} {'netlib':>9} {'dlgemm':>9} {'NVBLAS':>9} {'dl/netlib':>9} "
      f"{'dl/NVBLAS':>9} {'of bound':>8}   (TFLOP/s)")
for key in sorted(dl):
    t, n = key
    es = 8 if t == "d" else 4
    bound = max(3 * n * n * es / 43e9, 2 * n**3 / (k64 if t == "d" else k32))
    frac = 2 * n**3 / bound * 1e-12 / dl[key]
    f = lambda d: f"{d[key]:9.4f}" if key in d else f"{'-':>9}"
    r = lambda d: f"{dl[key] / d[key]:9.2f}" if key in d else f"{'-':>9}"
    print(f"{t}gemm_ {n:6d} {f(net)} {f(dl)} {f(nv)} {r(net)} {r(nv)} {1 / frac:8.2f}")
PY
