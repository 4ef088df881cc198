#!/bin/bash
# scalapack_bench.sh - the same ScaLAPACK program (pdbench: PDGEMM, PDGETRF,
# PDPOTRF, PDGEQRF, the solvers, each with its residual) over MPI ranks, five ways in one job on the GPU
# machine, every rank on OpenBLAS (its libblas.so.3 and liblapack.so.3 found
# first, the cores shared out among the ranks):
#   openblas     OpenBLAS alone
#   dlgemm_1gpu  dlgemm LD_PRELOAD'ed in every rank, every rank on GPU 0
#                (DLGEMM_DEVICES=0)
#   dlgemm       dlgemm LD_PRELOAD'ed, each rank on the GPU of its node-local
#                rank (the default)
#   dlgemm_pblas the same with DLGEMM_PBLAS_BLOCK=$PBLAS_BLOCK (default 1024):
#                PBLAS's local products with that k instead of ScaLAPACK's 32
#   dlgemm_resident  dlgemm preloaded with DLGEMM_SCALAPACK=resident: the
#                routines plugin/dist takes (PxPOTRF) by dlgemm's own
#                algorithm on each rank's GPU, its local matrix resident there
#   dlgemm_mp    dlgemm preloaded with DLGEMM_SCALAPACK=gpu and NVIDIA's
#                cuSOLVERMp, cuBLASMp and NCCL on MP_LIBS (a colon list: the
#                cusolvermp and cublasmp wheels' lib, torch's nvidia/*/lib):
#                the factorizations by cuSOLVERMp, PDGEMM by cuBLASMp, each
#                rank's arrays to its GPU and back (plugin/dist/mp*.c)
# Prints each run's lines and seconds side by side with the ratios.
#
# usage: bench/scalapack_bench.sh BUILD OUT [N] [NB] [REPS]
#   (defaults 32768, 512, 1); RANKS (default 2); RUNS (default all four);
#   MPIRUN (default mpirun); OPENBLAS_DIR (default $DEVDEPS_OPENBLAS);
#   ROUTINES (default pdgemm,pdgetrf,pdpotrf,pdgeqrf; pdgesv, pdposv too); RUN_LIMIT (seconds a run, default 900);
#   OPENBLAS_CORETYPE (default: the fastest of OpenBLAS's own choice,
#   Haswell, SkylakeX and Cooperlake on this CPU); PROWS: the grid's process
#   rows (pdbench's default: 1 x 2 for 2 ranks, 2 x 2 for 4); DLGEMM_VERBOSE=1:
#   the timed dlgemm runs say where each call's time went on each rank
# Each dlgemm device's host model is measured first, by one rank alone on
# it, into a fresh cache, outside the timed runs (their ranks would find
# it measured, or measure one at a time behind the cache's lock).
set -u
build=$1 out=$2 n=${3:-32768} nb=${4:-512} reps=${5:-1}
ranks=${RANKS:-2} runs=${RUNS:-openblas dlgemm_1gpu dlgemm dlgemm_pblas dlgemm_resident}
routines=${ROUTINES:-pdgemm,pdgetrf,pdpotrf,pdgeqrf} limit=${RUN_LIMIT:-900}
mpirun=${MPIRUN:-mpirun} openblas=${OPENBLAS_DIR:-${DEVDEPS_OPENBLAS:-}}
build=$(cd "$build" && pwd)
bin=$build/bench/pdbench lib=$build/libdlgemm.so
[ -x "$bin" ] || { echo "SKIP: $bin not built (ScaLAPACK's Open MPI build not found)"; exit 77; }
[ -n "$openblas" ] && [ -e "$openblas/libblas.so.3" ] ||
  { echo "SKIP: no OpenBLAS (OPENBLAS_DIR, or prepare's libopenblas0-pthread)"; exit 77; }
mkdir -p "$out"
rm -rf "$out"/pdbench_*.txt "$out/verbose"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 XDG_CACHE_HOME=$out/cache
rm -rf "$XDG_CACHE_HOME"
cores=$(nproc) gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
threads=$((cores / ranks > 0 ? cores / ranks : 1))
echo "pdbench: $ranks ranks, $cores cores ($threads OpenBLAS threads a rank), $gpus GPU(s);" \
  "n=$n nb=$nb reps=$reps; OpenBLAS: $openblas"
# OpenBLAS picks its kernels by the CPU it recognises, and a VM's CPU it does
# not know gets generic ones: on the H200 machine's "Intel(R) Xeon(R)
# Processor" it took Prescott's, 0.24 TFLOP/s of DGEMM against 1.22 with
# OPENBLAS_CORETYPE=Cooperlake.  Unless OPENBLAS_CORETYPE is set, the core
# type whose DGEMM over all cores is fastest is used; its choice and its
# DGEMM, from host_bench, first.
echo "CPU:$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2-);" \
  "$(grep -m1 '^flags' /proc/cpuinfo | grep -o -w -E 'avx2|fma|avx512f' | tr '\n' ' ')"
openblas_dgemm() { # n, then VAR=value...: host_bench's line for one DGEMM on OpenBLAS
  local n=$1; shift
  env "$@" OPENBLAS_VERBOSE=2 OPENBLAS_NUM_THREADS=$cores \
    LD_LIBRARY_PATH="$openblas:${LD_LIBRARY_PATH:-}" timeout 60 "$build/bench/host_bench" 10 $n 2>&1 |
    grep -E "Core:|dgemm"
}
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  best=0
  for type in "" Haswell SkylakeX Cooperlake; do
    rate=$(openblas_dgemm 4096 ${type:+OPENBLAS_CORETYPE=$type} | grep -o 'tflops=[0-9.]*' | cut -d= -f2)
    echo "OpenBLAS core type ${type:-(its own choice)}: ${rate:-no result} TFLOP/s (DGEMM n=4096)"
    if [ -n "$rate" ] && awk -v a="$rate" -v b="$best" 'BEGIN {exit !(a > b)}'; then
      best=$rate OPENBLAS_CORETYPE=$type
    fi
  done
fi
openblas_dgemm 8192 ${OPENBLAS_CORETYPE:+OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE} | sed 's/^/OpenBLAS alone: /'
[ -n "${OPENBLAS_CORETYPE:-}" ] && export OPENBLAS_CORETYPE && coretype=(-x OPENBLAS_CORETYPE) ||
  coretype=()
# Open MPI binds 2 ranks to a core each unless told: OpenBLAS's threads and
# dlgemm's copy threads need the rank's share of the machine.
run() { # extra mpirun options..., then the program's arguments
  timeout "$limit" "$mpirun" --oversubscribe --bind-to none -np "$ranks" \
    -x LD_LIBRARY_PATH="$openblas:${mp_libs:+$mp_libs:}${LD_LIBRARY_PATH:-}" \
    -x OPENBLAS_NUM_THREADS=$threads \
    "${coretype[@]}" -x XDG_CACHE_HOME "$@"
}
for run in $runs; do
  case $run in openblas | dlgemm_1gpu | dlgemm | dlgemm_pblas | dlgemm_resident | dlgemm_mp) ;;
    *) echo "unknown run $run"; continue ;;
  esac
  [ $run = openblas ] || [ "$gpus" -gt 0 ] || { echo "$run: no GPU, skipped"; continue; }
  devs=0 extra=(-x DLGEMM_DEVICES=0)
  [ $run != dlgemm_1gpu ] && devs=$(seq -s ' ' 0 $((gpus - 1))) extra=()
  [ $run = dlgemm_pblas ] && extra=(-x "DLGEMM_PBLAS_BLOCK=${PBLAS_BLOCK:-1024}")
  [ $run = dlgemm_resident ] && extra=(-x DLGEMM_SCALAPACK=resident)
  mp_libs= # the libraries of dlgemm_mp's cuSOLVERMp, after OpenBLAS's
  [ $run = dlgemm_mp ] && extra=(-x DLGEMM_SCALAPACK=gpu -x NCCL_NVLS_ENABLE=0) mp_libs=${MP_LIBS:-}
  {
    if [ $run = openblas ]; then
      run "$bin" "$routines" "$n" "$nb" "$reps" ${PROWS:+"$PROWS"}
    else
      for d in $devs; do # each device's model, one rank alone on it
        ranks=1 run -x LD_PRELOAD="$lib" -x DLGEMM_DEVICES=$d -x DLGEMM_VERBOSE=1 \
          "$bin" pdgemm 2048 "$nb" 1 2>&1 | grep -m1 "host model"
      done
      run -x LD_PRELOAD="$lib" ${DLGEMM_VERBOSE:+-x DLGEMM_VERBOSE} "${extra[@]}" "$bin" \
        "$routines" "$n" "$nb" "$reps" ${PROWS:+"$PROWS"}
    fi
  } 2>&1 | tee "$out/pdbench_$run.txt"
done
# Each dlgemm rank's calls at a small size, verbose, with the last run's
# settings: which device took them.
if [ "$gpus" -gt 0 ]; then
  [ $run = openblas ] && extra=()
  run -x LD_PRELOAD="$lib" -x DLGEMM_VERBOSE=1 "${extra[@]}" --output-filename "$out/verbose" \
    "$bin" pdgemm 4096 "$nb" 1 >/dev/null 2>&1
  for f in "$out"/verbose/*/rank.*/stderr; do
    [ -e "$f" ] || continue
    echo "$(basename "$(dirname "$f")"): $(grep -m1 "host arrays on" "$f" | sed 's/^dlgemm: //')"
    grep -oE "^dlgemm: dgemm_ .* -> [a-z-]+(:[0-9+]+)?" "$f" | awk '{print "  " $NF}' | sort | uniq -c
  done
fi

python3 - "$out" $runs <<'PY'
import re, sys
out, runs = sys.argv[1], sys.argv[2:]
t = {}
for run in runs:
    try:
        for line in open(f"{out}/pdbench_{run}.txt"):
            m = re.match(r"(\w+) n=(\d+) .*seconds=(\S+) tflops=(\S+) .*residual=(\S+) (\w+)", line)
            if m: t[(run, m[1], int(m[2]))] = (float(m[3]), float(m[4]), m[5], m[6])
    except FileNotFoundError:
        pass
keys = sorted({(r, n) for (_, r, n) in t})
print(f"{'routine':>8} {'n':>6} " + " ".join(f"{r + ' s':>14}" for r in runs) +
      " " + " ".join(f"{'openblas/' + r:>20}" for r in runs if r != "openblas"))
for r, n in keys:
    row = [t.get((run, r, n)) for run in runs]
    cells = " ".join(f"{x[0]:14.3f}" if x else f"{'-':>14}" for x in row)
    base = t.get(("openblas", r, n))
    ratios = " ".join(f"{base[0] / x[0]:20.2f}" if base and x and x[0] > 0 else f"{'-':>20}"
                      for run, x in zip(runs, row) if run != "openblas")
    bad = [run for run, x in zip(runs, row) if x and x[3] != "ok"]
    print(f"{r:>8} {n:6d} {cells} {ratios}" + (f"  RESIDUAL FAILED: {bad}" if bad else ""))
PY
