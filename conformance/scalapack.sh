#!/bin/bash
# scalapack.sh - ScaLAPACK's testers (Debian scalapack-mpi-test, Open MPI
# build) run over MPI ranks plain and with libdlgemm.so LD_PRELOAD'ed in
# every rank, and proof that they pass exactly as they pass plain, that each
# rank's BLAS calls reached dlgemm, and that each rank took the GPU of its
# node-local rank (plugin/gpu/devices.c) rather than all of them GPU 0.
#
# usage: scalapack.sh LIBDLGEMM TESTDIR RANKS PROGRAM...
#   TESTDIR  the testers' directory (.../scalapack/openmpi-tests); PBLAS
#            programs (dpb3tst...) run in its PBLAS/, the others in it, each
#            reading its .dat file from there
#   MPIRUN   (environment) the launcher, default mpirun
#   GPUS     (environment) GPUs on the node, default those visible (visible_gpus.sh): rank r must log
#            "host arrays on CUDA device r mod GPUS (node-local rank ...)"
# Each rank runs with DLGEMM_FORCE=gpu, so every call dlgemm takes is on
# the GPU; its DLGEMM_VERBOSE lines go to its own file (--output-filename).
# "Exactly as plain": every summary line (tests passed, failed, skipped) is
# the same both ways; the LU / Cholesky testers' per-case lines carry their
# timings, so only their totals ("N tests completed and passed residual
# checks") are compared.
# Where no NVIDIA GPU is present (CI) the same testers run with dlgemm
# preloaded and no GPU path to take (issue 52: the program's answer as
# without dlgemm): every call must reach dlgemm and go to the next BLAS
# ("-> cpu"), each rank must say once why no GPU backend is usable, and
# every per-case line must be the same as plain's but for its timing
# columns (the verdicts of the same cases in the same order).
set -u
lib=$1 dir=$2 ranks=$3
shift 3
# shellcheck source=conformance/visible_gpus.sh
. "$(dirname "$0")/visible_gpus.sh"
mpirun=${MPIRUN:-mpirun} gpus=${GPUS:-$(visible_gpus)}
# Open MPI takes its prefix from the path it was started by: /bin/x (a
# merged /usr) would make it "/", which it refuses
[ -e "$mpirun" ] && mpirun=$(readlink -f "$mpirun")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # CI and GPU machines run as root
status=0

summary() { grep -iE "passed|failed|skipped|finished|illegal" "$1" | grep -vE "^ *(dlgemm:|WALL|CPU) "; }

# per-case lines without their timing and rate columns (fields 9 to 11 of
# the LU / Cholesky testers' "WALL" and "CPU" lines)
cases() { awk '$1 == "WALL" || $1 == "CPU" { $9 = $10 = $11 = ""; print }' "$1"; }

gpu=1
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || gpu=0
if [ $gpu -eq 0 ]; then
  # Open MPI's ranks spin while they wait: more ranks than cores take minutes a tester
  if [ "$(nproc)" -lt "$ranks" ]; then
    echo "SKIP: scalapack.sh: no NVIDIA GPU, and $ranks ranks on $(nproc) cores (the CPU-path check runs where ranks <= cores)"
    exit 77
  fi
  echo "scalapack.sh: no NVIDIA GPU here: the testers run with dlgemm preloaded and its calls on the next BLAS"
fi
[ "$gpus" -gt 0 ] 2>/dev/null || gpus=1
force=gpu
[ $gpu -eq 1 ] || force=auto

for prog in "$@"; do
  case $prog in *pb[123]tst) cd "$dir/PBLAS" ;; *) cd "$dir" ;; esac || exit 1
  out=$work/$prog
  mkdir -p "$out"
  timeout 300 "$mpirun" --oversubscribe -np "$ranks" "./$prog" >"$out/plain.txt" 2>&1 ||
    { echo "FAIL: $prog: plain run exited $?"; tail -5 "$out/plain.txt"; status=1; continue; }
  timeout 300 "$mpirun" --oversubscribe -np "$ranks" -x LD_PRELOAD="$lib" -x DLGEMM_FORCE=$force \
    -x DLGEMM_VERBOSE=1 --output-filename "$out/ranks" "./$prog" >"$out/preloaded.txt" 2>&1 ||
    { echo "FAIL: $prog: preloaded run exited $?"; tail -5 "$out/preloaded.txt"; status=1; continue; }
  # stdout of every rank, as --output-filename left it, is the preloaded run's output
  cat "$out"/ranks/*/rank.*/stdout >"$out/stdout.txt" 2>/dev/null
  summary "$out/plain.txt" >"$out/plain.sum"
  summary "$out/stdout.txt" >"$out/preloaded.sum"
  if [ ! -s "$out/plain.sum" ]; then
    echo "FAIL: $prog: no summary lines in the plain run"; tail -5 "$out/plain.txt"; status=1; continue
  fi
  if ! diff "$out/plain.sum" "$out/preloaded.sum" >"$out/diff.txt"; then
    echo "FAIL: $prog: summaries differ from the plain run"; head -20 "$out/diff.txt"; status=1; continue
  fi
  line="$prog, $ranks ranks: $(grep -c . "$out/preloaded.sum") summary lines as plain"
  active=0
  if [ $gpu -eq 0 ]; then
    if ! diff <(cases "$out/plain.txt") <(cases "$out/stdout.txt") >"$out/cases.txt"; then
      echo "FAIL: $prog: per-case lines differ from the plain run"; head -20 "$out/cases.txt"; status=1; continue
    fi
    line="$line, $(cases "$out/plain.txt" | grep -c .) per-case lines as plain"
    for r in $(seq 0 $((ranks - 1))); do
      log=$(ls "$out"/ranks/*/rank.$r/stderr 2>/dev/null | head -1)
      calls=$(grep -cE "^dlgemm: [a-z_0-9]+ .*-> " "$log" 2>/dev/null)
      if [ "${calls:-0}" -eq 0 ]; then line="$line; rank $r: no call"; continue; fi
      active=$((active + 1))
      cpu=$(grep -cE "^dlgemm: [a-z_0-9]+ .*-> cpu" "$log")
      # pilaenv_ is ScaLAPACK's own, forwarded to it (shims/fortran/pilaenv.c)
      other=$(grep -E "^dlgemm: [a-z_0-9]+ .*-> " "$log" | grep -v "^dlgemm: pilaenv_ " |
        grep -vE -- "-> (cpu|rejected|quick-return)" | head -1)
      [ -z "$other" ] || { echo "FAIL: $prog: rank $r: a call not on the CPU: $other"; status=1; }
      # a call that asked for a GPU (not one below the size worth a trip) says once why none
      if grep -qE "^dlgemm: [a-z_0-9]+ .*-> cpu.*no usable GPU backend" "$log" &&
         ! grep -q "no GPU backend is usable" "$log"; then
        echo "FAIL: $prog: rank $r did not say why no GPU backend is usable"; status=1
      fi
      line="$line; rank $r: $cpu of $calls calls on the next BLAS"
    done
    [ $active -gt 0 ] || { echo "FAIL: $prog: no rank made a call through dlgemm"; status=1; }
    echo "$line"
    continue
  fi
  for r in $(seq 0 $((ranks - 1))); do
    log=$(ls "$out"/ranks/*/rank.$r/stderr 2>/dev/null | head -1)
    want=$((r % gpus))
    calls=$(grep -cE "^dlgemm: [a-z_0-9]+ .*-> " "$log" 2>/dev/null)
    # a rank that no process grid of the tester's input used makes no call
    if [ "${calls:-0}" -eq 0 ]; then line="$line; rank $r: no call (idle in this tester's grids)"; continue; fi
    active=$((active + 1))
    cuda=$(grep -cE "^dlgemm: [a-z_0-9]+ .*-> cuda:$want " "$log")
    other=$(grep -E "^dlgemm: [a-z_0-9]+ .*-> " "$log" |
      grep -vE -- "-> (cuda:$want |rejected|quick-return|cpu.*(illegal|empty))" | head -1)
    if ! grep -q "host arrays on CUDA device $want (node-local rank" "$log"; then
      echo "FAIL: $prog: rank $r did not choose device $want by its node-local rank:"
      grep "host arrays on" "$log" | head -2; status=1
    fi
    [ -z "$other" ] || { echo "FAIL: $prog: rank $r: a call not on cuda:$want: $other"; status=1; }
    line="$line; rank $r: $cuda of $calls calls on cuda:$want"
  done
  [ $active -gt 0 ] || { echo "FAIL: $prog: no rank made a call through dlgemm"; status=1; }
  echo "$line"
  grep -h "host arrays on" "$out"/ranks/*/rank.*/stderr | sed 's/^dlgemm: /  /' | sort | uniq -c
  grep -hoE "^dlgemm: [a-z]+[0-9]*_" "$out"/ranks/*/rank.*/stderr | sort | uniq -c | sort -rn |
    head -8 | awk '{printf "  %s %s\n", $1, $3}'
done
[ $status -eq 0 ] && echo "ScaLAPACK: $* passed with dlgemm in each of $ranks ranks ($([ $gpu -eq 1 ] && echo "every call on its GPU" || echo "no GPU: every call on the next BLAS"))"
exit $status
