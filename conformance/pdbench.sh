#!/bin/bash
# pdbench.sh - the ScaLAPACK benchmark program (bench/pdbench.c) as a test:
# PDGEMM, PDGETRF, PDPOTRF, PDGEQRF, PDGESV and PDPOSV over 2 ranks at a small size, plain and with
# libdlgemm.so LD_PRELOAD'ed in each rank; both runs' residuals must pass,
# and each rank's dgemm_ calls must have reached dlgemm; a third run sets
# DLGEMM_PBLAS_BLOCK, whose block must be PBLAS's k.  Without a GPU
# every call goes on to the next BLAS with the caller's arguments, so the
# two runs must print the same residuals to the last digit; with one, the
# calls are forced onto it and rank r must be on GPU r mod GPUs.
#
# usage: pdbench.sh PDBENCH LIBDLGEMM [MPIRUN]
set -u
bin=$1 lib=$2 mpirun=${3:-mpirun}
# Open MPI takes its prefix from the path it was started by: /bin/x (a
# merged /usr) would make it "/", which it refuses
[ -e "$mpirun" ] && mpirun=$(readlink -f "$mpirun")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # CI and GPU machines run as root
# shellcheck source=conformance/visible_gpus.sh
. "$(dirname "$0")/visible_gpus.sh"
gpus=$(visible_gpus)
force=auto
[ "$gpus" -gt 0 ] && force=gpu
# shellcheck disable=SC2054 # the first argument is pdbench's comma list
args=(pdgemm,pdgetrf,pdpotrf,pdgeqrf,pdgesv,pdposv 700 64 1)
routines=6
run() { timeout 300 "$mpirun" --oversubscribe -np 2 "$@"; }
status=0
# A run with dlgemm preloaded and verbose, its ranks' output in $work/NAME
# (--output-filename; rank 0 prints the lines): prints them prefixed with
# NAME, and both residuals must pass.  $pre: rank 0's lines.
preloaded() { # NAME, then extra mpirun options
  local name=$1; shift
  run -x LD_PRELOAD="$lib" -x DLGEMM_VERBOSE=1 -x DLGEMM_FORCE=$force "$@" \
    --output-filename "$work/$name" "$bin" "${args[@]}" >"$work/$name.txt" 2>&1 ||
    { echo "FAIL: $name run exited $?"; cat "$work/$name.txt"; exit 1; }
  pre=$(cat "$work/$name"/*/rank.0/stdout 2>/dev/null)
  echo "$pre" | sed "s/^/$name: /"
  [ "$(echo "$pre" | grep -c ' ok$')" -eq $routines ] || { echo "FAIL: $name residuals"; status=1; }
}

run "$bin" "${args[@]}" >"$work/plain.txt" 2>&1 ||
  { echo "FAIL: plain run exited $?"; cat "$work/plain.txt"; exit 1; }
cat "$work/plain.txt"
[ "$(grep -c ' ok$' "$work/plain.txt")" -eq $routines ] || { echo "FAIL: plain residuals"; status=1; }
preloaded ranks
if [ "$gpus" -eq 0 ]; then
  a=$(grep -oE "residual=\S+" "$work/plain.txt") b=$(echo "$pre" | grep -oE "residual=\S+")
  [ "$a" = "$b" ] || { echo "FAIL: residuals differ from the plain run's: $a / $b"; status=1; }
fi
for r in 0 1; do
  log=$(ls "$work"/ranks/*/rank.$r/stderr 2>/dev/null | head -1)
  want=cpu-blas
  [ "$gpus" -gt 0 ] && want=cuda:$((r % gpus))
  # computing calls: not the quick returns and empty products BLAS leaves alone
  calls=$(grep -E "^dlgemm: dgemm_ .*-> " "$log" 2>/dev/null |
    grep -cvE -- "-> (rejected|quick-return|cpu.*(illegal|empty))")
  on=$(grep -cE "^dlgemm: dgemm_ .*-> ${want}[ (]" "$log" 2>/dev/null)
  echo "rank $r: $on of ${calls:-0} dgemm_ calls on $want"
  [ "${calls:-0}" -gt 0 ] || { echo "FAIL: rank $r: no dgemm_ call reached dlgemm"; status=1; }
  [ "$gpus" -eq 0 ] || [ "$on" -eq "$calls" ] || { echo "FAIL: rank $r: calls off $want"; status=1; }
done
# DLGEMM_SCALAPACK=gpu: the four routines by cuSOLVERMp and cuBLASMp where
# they load (EXPECT_MP=1: they must; their libraries on MP_LIBS), else each
# sent on to the program's ScaLAPACK (without a GPU: the plain residuals)
LD_LIBRARY_PATH=${MP_LIBS:+$MP_LIBS:}${LD_LIBRARY_PATH:-} preloaded mp -x LD_LIBRARY_PATH \
  -x DLGEMM_SCALAPACK=gpu -x DLGEMM_SCALAPACK_MIN=1 -x NCCL_NVLS_ENABLE=0
for routine in pdgemm pdgetrf pdpotrf pdgeqrf; do
  line=$(grep -hm1 -E "^dlgemm: ${routine}_ " "$work"/mp/*/rank.0/stderr)
  echo "mp: $routine: ${line:-(no line)}"
  case $line in
    *"-> cusolvermp"* | *"-> cublasmp"*) ;;
    *"-> next ScaLAPACK"*) [ "${EXPECT_MP:-0}" = 1 ] && { echo "FAIL: $routine not taken"; status=1; } ;;
    *) echo "FAIL: no verbose line for $routine"; status=1 ;;
  esac
done
# PDGESV and PDPOSV call ScaLAPACK's PDGETRF and PDPOTRF through the dynamic
# linker: theirs must be taken too (a warm-up and a timed call each, twice)
if [ "${EXPECT_MP:-0}" = 1 ]; then
  for routine in pdgetrf pdpotrf; do
    n=$(grep -cE "^dlgemm: ${routine}_ .*-> cusolvermp" "$work"/mp/*/rank.0/stderr)
    echo "mp: ${routine}_ calls by cuSOLVERMp, the solver's among them: $n"
    [ "$n" -ge 4 ] || { echo "FAIL: the solver's ${routine}_ not taken"; status=1; }
  done
fi
if [ "$gpus" -eq 0 ]; then
  a=$(grep -oE "residual=\S+" "$work/plain.txt") b=$(echo "$pre" | grep -oE "residual=\S+")
  [ "$a" = "$b" ] || { echo "FAIL: mp: residuals differ from the plain run's: $a / $b"; status=1; }
fi
# One rank's setup failing (a workspace failure injected on rank 1 alone):
# the grid must vote and send both ranks on, not leave rank 0 waiting in
# cuSOLVERMp's collective (xdllt hung so on the H200s, session 29)
if [ "$gpus" -gt 0 ] && [ "${EXPECT_MP:-0}" = 1 ]; then
  mp=(-x LD_PRELOAD="$lib" -x DLGEMM_VERBOSE=1 -x DLGEMM_FORCE=gpu -x LD_LIBRARY_PATH
    -x DLGEMM_SCALAPACK=gpu -x DLGEMM_SCALAPACK_MIN=1 -x NCCL_NVLS_ENABLE=0)
  LD_LIBRARY_PATH=${MP_LIBS:+$MP_LIBS:}${LD_LIBRARY_PATH:-} timeout 120 "$mpirun" --oversubscribe \
    --output-filename "$work/fault" -np 1 "${mp[@]}" "$bin" pdgetrf 700 64 1 : \
    -np 1 "${mp[@]}" -x DLGEMM_INJECT_FAULT=workspace:1 "$bin" pdgetrf 700 64 1 \
    >"$work/fault.txt" 2>&1 || { echo "FAIL: the fault run exited $?"; tail -5 "$work/fault.txt"; status=1; }
  line=$(grep -hm1 -E "^dlgemm: pdgetrf_ " "$work"/fault/*/rank.0/stderr)
  echo "fault on rank 1: rank 0: ${line:-(no line)}"
  case $line in *"on another rank"*) ;; *) echo "FAIL: rank 0 was not told of rank 1's failure"; status=1 ;; esac
  grep -q ' ok$' "$work"/fault/*/rank.0/stdout || { echo "FAIL: the fault run's residual"; status=1; }
fi
# DLGEMM_PBLAS_BLOCK: ScaLAPACK's PILAENV answers it, and PBLAS cuts its
# local products by it: k = 128 (and twice that) instead of 32
preloaded block -x DLGEMM_PBLAS_BLOCK=128
ks() { cat "$@" 2>/dev/null | grep -oE "^dlgemm: dgemm_ .* k=[0-9]+ " | grep -oE "k=[0-9]+" | sort | uniq -c | sort -rn | tr '\n' ' '; }
echo "local k, ScaLAPACK's block: $(ks "$work"/ranks/*/rank.*/stderr)"
echo "local k, DLGEMM_PBLAS_BLOCK=128: $(ks "$work"/block/*/rank.*/stderr)"
grep -q "pilaenv_ -> 128 (DLGEMM_PBLAS_BLOCK)" "$work"/block/*/rank.0/stderr ||
  { echo "FAIL: no verbose line for PILAENV"; status=1; }
ks "$work"/ranks/*/rank.*/stderr | grep -q " k=32 " ||
  { echo "FAIL: ScaLAPACK's own block made no k = 32 call"; status=1; }
ks "$work"/block/*/rank.*/stderr | grep -q " k=32 " &&
  { echo "FAIL: a k = 32 call with DLGEMM_PBLAS_BLOCK=128"; status=1; }
ks "$work"/block/*/rank.*/stderr | grep -q " k=128 " ||
  { echo "FAIL: no k = 128 call with DLGEMM_PBLAS_BLOCK=128"; status=1; }
[ $status -eq 0 ] && echo "pdbench: PDGEMM, PDGETRF, PDPOTRF, PDGEQRF, PDGESV, PDPOSV over 2 ranks pass, plain and with dlgemm"
exit $status
