#!/bin/bash
# cold_start.sh - process start to first result, side by side (issue 53):
# a cuBLAS program's context, handle, copies and first DGEMM against an
# unmodified BLAS program's first dgemm_ with libdlgemm.so preloaded (as
# routed, and forced onto the GPU), and its first dgetrf_, plain and
# preloaded; and a Python program's first dlgemm.matmul of two NumPy arrays
# (bench/cold_start.py: the interpreter and numpy's import counted, as a
# Python user waits for them); ROUNDS rounds, the programs alternating within each, medians
# at the end.  Each run is a fresh process (bench/cold_start.c says what it
# counts).  DLGEMM_CACHE_DIR is left as the user has it: with a calibration
# cache the model is read, not measured, as on a user's second run.
#
# usage: cold_start.sh BUILD [N] [ROUNDS] [LU_N]   (defaults 1024, 3, 4096; $PYTHON: the
# interpreter, python3 by default)
set -u
build=$1 n=${2:-1024} rounds=${3:-3} lu=${4:-4096}
prog=$build/bench/cold_start lib=$(realpath "$build/libdlgemm.so") here=$(dirname "$(realpath "$0")")
[ -x "$prog" ] || { echo "cold_start.sh: no $prog (built with -llapack -lblas)"; exit 1; }
runs=(
  "cublas|cublas $n|"
  "dgemm_plain|dgemm $n|"
  "dgemm_dlgemm|dgemm $n|LD_PRELOAD=$lib"
  "dgemm_dlgemm_gpu|dgemm $n|LD_PRELOAD=$lib DLGEMM_FORCE=gpu"
  "dgetrf_plain|dgetrf $lu|"
  "dgetrf_dlgemm|dgetrf $lu|LD_PRELOAD=$lib"
  "matmul_dlgemm|matmul $n|DLGEMM_LIBRARY=$lib PYTHONPATH=$here/../python"
)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for r in $(seq 1 "$rounds"); do
  for run in "${runs[@]}"; do
    IFS='|' read -r name args envs <<<"$run"
    # shellcheck disable=SC2086 # args and envs are words
    cmd=$prog
    [ "${args%% *}" = matmul ] && cmd="${PYTHON:-python3} $here/cold_start.py" args=${args#matmul }
    line=$(env $envs COLD_T0="$(date +%s%N)" $cmd $args 2>"$out/err")
    rc=$?
    if [ $rc -eq 77 ]; then echo "round $r $name: skipped ($(head -1 "$out/err"))"; continue; fi
    [ $rc -eq 0 ] || { echo "round $r $name: FAILED ($rc): $line $(head -3 "$out/err")"; status=1; continue; }
    echo "round $r $name: $line"
    echo "$line" | sed -E 's/.*after ([0-9.]+) ms.*/\1/' >>"$out/$name"
  done
done
echo "medians of $rounds rounds, process start to first result:"
for run in "${runs[@]}"; do
  name=${run%%|*}
  [ -s "$out/$name" ] || continue
  printf "  %-18s %8.1f ms\n" "$name" "$(sort -g "$out/$name" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')"
done
# Where a preloaded program's first call spends its time: one more run of
# each, verbose (the driver, context, modules, kernels, pool, the engine's
# page-locked chunks, the host model), not timed.
for name in dgemm_dlgemm dgetrf_dlgemm; do
  for run in "${runs[@]}"; do
    [ "${run%%|*}" = "$name" ] || continue
    IFS='|' read -r name args envs <<<"$run"
    echo "$name, verbose:"
    # shellcheck disable=SC2086
    env $envs DLGEMM_VERBOSE=1 "$prog" $args 2>&1 | grep -E "^dlgemm: (cuda:|host-array|host model|[sd]ge)" |
      head -6 | cut -c1-240 | sed 's/^/  /'
  done
done
exit $status
