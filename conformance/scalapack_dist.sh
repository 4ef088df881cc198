#!/bin/bash
# scalapack_dist.sh - ScaLAPACK's testers with dlgemm taking their
# factorizations (plugin/dist): the Cholesky testers (xdllt, xsllt, lower
# and upper) under DLGEMM_SCALAPACK=host (dlgemm's own distributed
# algorithm, each rank's local matrix resident in a host store: CI checks
# the blocks, messages and ranks), resident (the same on the GPUs) or gpu
# (cuSOLVERMp where it loads; the upper case resident), and under gpu the
# LU and QR testers too (xdlu, xslu, xdqr, xsqr: cuSOLVERMp's PxGETRF and
# PxGEQRF) and PBLAS's level-3 testers (dpb3tst, spb3tst: cuBLASMp's
# PxGEMM where the router takes the call, pblas() below).  N from 2 to 97, NB from 1 to 16, every process grid of RANKS
# ranks and fewer; each run must pass exactly as many residual checks as
# the plain run (and fail none), every call must have been taken (its
# rank's verbose line, none sent to the next ScaLAPACK), and on each rank
# of the largest grid; with EXPECT_MP=1 (gpu, cuSOLVERMp on the library
# path) every call but the upper Cholesky's by cuSOLVERMp.  Without a GPU
# the GPU modes must send every call on, as plain.
#
# usage: scalapack_dist.sh LIBDLGEMM TESTDIR host|resident|gpu RANKS [PROGRAM...]
#   TESTDIR  the testers' directory (.../scalapack/openmpi-tests)
#   MPIRUN   (environment) the launcher, default mpirun
# The testers' own condition-estimate and refinement tests are off in the
# input: with them on, xdllt on a 1 x 2 grid hung in 3 of 4 plain runs on
# the 2-core CI machine, dlgemm not loaded (session 27).
set -u
lib=$1 dir=$2 mode=$3 ranks=$4
shift 4
progs=${*:-xdllt xsllt}
# gpu: the LU and QR testers too (cuSOLVERMp's PxGETRF, PxGEQRF; nothing
# else takes them), and PBLAS's level-3 testers (cuBLASMp's PxGEMM)
[ $# -eq 0 ] && [ "$mode" = gpu ] && progs="xdllt xsllt xdlu xslu xdqr xsqr dpb3tst spb3tst"
mpirun=${MPIRUN:-mpirun}
[ -e "$mpirun" ] && mpirun=$(readlink -f "$mpirun")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Without a GPU (CI) the GPU modes must give every call to the next
# ScaLAPACK, each with its reason, and the testers' verdicts as plain
nogpu=0
if [ "$mode" != host ] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "scalapack_dist.sh: no NVIDIA GPU: DLGEMM_SCALAPACK=$mode must send every call on"
  nogpu=1
fi
if [ "$(nproc)" -lt "$ranks" ]; then
  echo "SKIP: scalapack_dist.sh: $ranks ranks on $(nproc) cores"
  exit 77
fi
case $ranks in
  2) ps="1 2 1" qs="2 1 1" ;;
  *) ps="2 1 4 1" qs="2 4 1 1" ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
status=0
grids="$(echo "$ps" | wc -w)                       number of process grids (ordered pairs P & Q)
$ps                     values of P
$qs                     values of Q"
# The LU and Cholesky testers' inputs end alike: one right-hand side, the
# grids, no condition estimates
solve="1                       number of NRHS's
3                       values of NRHS
1                       number of NBRHS's
2                       values of NBRHS
$grids
3.0                     threshold
F                       (T or F) Test Cond. Est. and Iter. Ref. Routines"
# The LU and QR testers' inputs: square blocks only (MB = NB, what dlgemm
# takes), QR alone of the orthogonal factorizations
cat >LU.dat <<EOF
'ScaLAPACK, LU factorization input file'
'MPI Machine'
'LU.out'                output file name (if any)
6                       device out
6                       number of problems sizes
4 10 17 13 23 64        values of M
4 12 13 13 23 40        values of N
4                       number of NB's
1 2 5 16                values of NB
$solve
EOF
cat >QR.dat <<EOF
'ScaLAPACK, Orthogonal factorizations input file'
'MPI machine'
'QR.out'                output file name (if any)
6                       device out
1                       number of factorizations
'QR'                    factorizations: QR, QL, LQ, RQ, QP, TZ
6                       number of problems sizes
2 5 13 15 26 64         values of M
2 7 8 17 20 40          values of N
4                       number of blocking sizes
1 3 5 16                values of MB
1 3 5 16                values of NB
$grids
5.0                     threshold
EOF
# PBLAS's level-3 tester PROG (its own input: PDGEMM and the rest with
# sub-matrices at IA = 1 and inside, blocks 1 to 6, error exits): its
# summary as plain's, and its PxGEMM calls taken by cuBLASMp where the
# router takes them (EXPECT_MP=1: some on rank 0), the rest sent on
pblas() {
  local prog=$1 t r log taken forwarded line
  t=$(echo "${prog:0:1}" | tr a-z A-Z)
  cp "$dir/PBLAS/P${t}BLAS3TST.dat" . || { status=1; return; }
  summary() { grep -iE "passed|failed|skipped|finished|illegal" "$1" | grep -vE "^ *dlgemm:"; }
  timeout 600 "$mpirun" --oversubscribe -np "$ranks" "$dir/PBLAS/$prog" >plain.txt 2>&1 ||
    { echo "FAIL: $prog: plain run exited $?"; tail -5 plain.txt; status=1; return; }
  timeout 600 "$mpirun" --oversubscribe -np "$ranks" -x LD_PRELOAD="$lib" \
    -x DLGEMM_SCALAPACK="$mode" -x DLGEMM_SCALAPACK_MIN=1 -x DLGEMM_VERBOSE=1 \
    --output-filename "$work/ranks" "$dir/PBLAS/$prog" >dist.txt 2>&1 ||
    { echo "FAIL: $prog: run with dlgemm exited $?"; tail -5 dist.txt; status=1; return; }
  cat "$work"/ranks/*/rank.*/stdout >out.txt 2>/dev/null
  if [ -z "$(summary plain.txt)" ] || [ "$(summary plain.txt)" != "$(summary out.txt)" ]; then
    echo "FAIL: $prog: its summary differs from the plain run's:"
    diff <(summary plain.txt) <(summary out.txt) | head -10
    status=1
  fi
  line="$prog: $(summary plain.txt | grep -c .) summary lines as plain"
  for r in $(seq 0 $((ranks - 1))); do
    log=$(find "$work/ranks" -path "*/rank.$r/stderr" | head -1)
    taken=$(grep -cE "^dlgemm: p${prog:0:1}gemm_ .*-> cublasmp" "$log" 2>/dev/null)
    forwarded=$(grep -cE "^dlgemm: p${prog:0:1}gemm_ -> next ScaLAPACK" "$log" 2>/dev/null)
    if [ $nogpu = 1 ] && { [ "${taken:-0}" -ne 0 ] || [ "${forwarded:-0}" -eq 0 ]; }; then
      echo "FAIL: $prog: rank $r took ${taken:-0} calls without a GPU, sent ${forwarded:-0} on"
      status=1
    fi
    if [ "${EXPECT_MP:-0}" = 1 ] && [ $nogpu = 0 ] && [ "$r" = 0 ] && [ "${taken:-0}" -eq 0 ]; then
      echo "FAIL: $prog: no call by cuBLASMp on rank 0"
      grep -m3 -E "^dlgemm: p${prog:0:1}gemm_" "$log"
      status=1
    fi
    line="$line; rank $r: ${taken:-0} by cuBLASMp, ${forwarded:-0} sent on"
  done
  echo "$line"
  grep -hE "^dlgemm: p${prog:0:1}gemm_ -> next ScaLAPACK \(" "$work"/ranks/*/rank.0/stderr |
    sed -E 's/.*next ScaLAPACK \((.*)\)$/\1/; s/^[NTC]{2} m=[0-9]+ n=[0-9]+ k=[0-9]+ nb=[0-9]+: //' |
    sort | uniq -c | sort -rn | head -6 | sed 's/^/  rank 0 sent on: /'
  rm -rf "$work/ranks"
}

for prog in $progs; do
  case $prog in *pb3tst) pblas "$prog"; continue ;; esac
  case $prog in
    *llt) uplos="L U" routine="p[sd]potrf_" ;;
    *lu) uplos="-" routine="p[sd]getrf_" ;;
    *) uplos="-" routine="p[sd]geqrf_" ;;
  esac
  for uplo in $uplos; do
    cat >LLT.dat <<EOF
'ScaLAPACK, LLt factorization input file'
'MPI machine'
'LLT.out'               output file name (if any)
6                       device out
'$uplo'                 define Lower or Upper
7                       number of problems sizes
4 10 17 13 23 64 97     values of N
5                       number of NB's
1 2 3 5 16              values of NB
$solve
EOF
    timeout 600 "$mpirun" --oversubscribe -np "$ranks" "$dir/$prog" >plain.txt 2>&1 ||
      { echo "FAIL: $prog $uplo: plain run exited $?"; tail -5 plain.txt; status=1; continue; }
    timeout 600 "$mpirun" --oversubscribe -np "$ranks" -x LD_PRELOAD="$lib" \
      -x DLGEMM_SCALAPACK="$mode" -x DLGEMM_SCALAPACK_MIN=1 -x DLGEMM_VERBOSE=1 \
      --output-filename "$work/ranks" \
      "$dir/$prog" >dist.txt 2>&1 ||
      { echo "FAIL: $prog $uplo: run with dlgemm exited $?"; tail -5 dist.txt; status=1; continue; }
    cat "$work"/ranks/*/rank.*/stdout >out.txt 2>/dev/null
    passed=$(grep -hE "tests completed and passed" plain.txt)
    if [ -z "$passed" ] || [ "$(grep -hE "tests completed and passed" out.txt)" != "$passed" ] ||
       ! grep -qE "^ +0 tests completed and failed" out.txt; then
      echo "FAIL: $prog $uplo: residual checks differ from the plain run's ($passed):"
      grep -hE "tests completed" out.txt
      status=1
    fi
    line="$prog $uplo: $(echo "$passed" | awk '{print $1}') residual checks passed, as plain"
    for r in $(seq 0 $((ranks - 1))); do
      log=$(find "$work/ranks" -path "*/rank.$r/stderr" | head -1)
      taken=$(grep -cE "^dlgemm: $routine .*-> ((host|cuda:[0-9]+), resident|cusolvermp)" \
        "$log" 2>/dev/null)
      mp=$(grep -cE "^dlgemm: $routine .*-> cusolvermp" "$log" 2>/dev/null)
      forwarded=$(grep -cE "^dlgemm: $routine -> next ScaLAPACK" "$log" 2>/dev/null)
      if [ "${EXPECT_MP:-0}" = 1 ] && [ "$uplo" != U ] && [ "${mp:-0}" -ne "${taken:-0}" ]; then
        echo "FAIL: $prog $uplo: rank $r: ${mp:-0} of ${taken:-0} calls by cuSOLVERMp"
        grep -m3 -E "^dlgemm: $routine .*resident" "$log"
        status=1
      fi
      if [ $nogpu = 1 ]; then
        if [ "${taken:-0}" -ne 0 ] || [ "${forwarded:-0}" -eq 0 ]; then
          echo "FAIL: $prog $uplo: rank $r took ${taken:-0} calls without a GPU"
          status=1
        fi
      elif [ "${taken:-0}" -eq 0 ] || [ "${forwarded:-0}" -ne 0 ]; then
        echo "FAIL: $prog $uplo: rank $r took ${taken:-0} calls and forwarded ${forwarded:-0}"
        grep -m3 -E "^dlgemm: $routine" "$log"
        status=1
      fi
      line="$line; rank $r: ${taken:-0} taken (${mp:-0} by cuSOLVERMp), ${forwarded:-0} sent on"
    done
    echo "$line"
    rm -rf "$work/ranks"
  done
done
exit $status
