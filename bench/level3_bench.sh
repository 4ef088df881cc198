#!/bin/bash
# level3_bench.sh - the same unmodified BLAS program (level3_bench: the
# level-3 routines besides real GEMM on malloc'ed arrays) three ways in one
# job on the GPU machine: the next BLAS alone, dlgemm LD_PRELOAD'ed, NVBLAS
# LD_PRELOAD'ed (the toolkit's libnvblas.so with the same next BLAS as its
# CPU BLAS, pinning on).  Prints TFLOP/s side by side with the ratios.
#
# usage: bench/level3_bench.sh <build-dir> <out-dir> <routines> [n...]
#   routines: comma-separated (dtrsm,dsyrk,zgemm,ztrsm); the next BLAS is the
#   program's (netlib), or $NEXT_BLAS (a libblas.so.3, e.g. OpenBLAS's) in
#   front of it.
set -u
build=$1 out=$2 routines=$3
shift 3
sizes=${*:-64 128 256 512 1024 2048 4096 8192}
bin=$build/bench/level3_bench lib=$build/libdlgemm.so
mkdir -p "$out"
next=${NEXT_BLAS:-$(ldd "$bin" | awk '/libblas/ {print $3}')}
nvblas=${NVBLAS_LIB:-$(ls /usr/local/cuda/lib64/libnvblas.so* 2>/dev/null | head -1)}
echo "program: $bin; next BLAS: $next; NVBLAS: ${nvblas:-not found}"
pre=${NEXT_BLAS:+$NEXT_BLAS:}

LD_PRELOAD=${NEXT_BLAS:-} "$bin" ${NEXT_LIMIT:-10} "$routines" $sizes | tee "$out/l3_next.txt"
export XDG_CACHE_HOME=$out/cache
LD_PRELOAD=$lib:${NEXT_BLAS:-} "$bin" 60 "$routines" $sizes | tee "$out/l3_dlgemm.txt"
if [ -n "$nvblas" ] && [ "$nvblas" != none ]; then
  cat >"$out/nvblas.conf" <<CONF
NVBLAS_LOGFILE $out/nvblas.log
NVBLAS_CPU_BLAS_LIB $next
NVBLAS_GPU_LIST ALL
NVBLAS_AUTOPIN_MEM_ENABLED
CONF
  NVBLAS_CONFIG_FILE=$out/nvblas.conf LD_PRELOAD=$nvblas:${NEXT_BLAS:-} "$bin" 60 "$routines" $sizes |
    tee "$out/l3_nvblas.txt"
fi
python3 - "$out" "$(dirname "$0")" <<'PY'
import sys
out = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import rates
def read(name): # {(routine, n): TFLOP/s}
    return {key: v[0] for key, v in rates.read(f"{out}/l3_{name}.txt").items()}
nx, dl, nv = read("next"), read("dlgemm"), read("nvblas")
print(f"{'routine':>8} {'n':>6} {'next':>9} {'dlgemm':>9} {'NVBLAS':>9} {'dl/next':>8} {'dl/NVBLAS':>9}   (TFLOP/s)")
for key in sorted(dl, key=lambda k: (k[0], k[1])):
    r, n = key
    f = lambda d: f"{d[key]:9.4f}" if key in d else f"{'-':>9}"
    q = lambda d: f"{dl[key] / d[key]:8.2f}x" if key in d and d[key] > 0 else f"{'-':>9}"
    print(f"{r:>8} {n:6d} {f(nx)} {f(dl)} {f(nv)} {q(nx)} {q(nv)}")
PY
