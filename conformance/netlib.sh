#!/bin/bash
# netlib.sh - run one of netlib's BLAS test programs with libdlgemm.so
# LD_PRELOAD'ed, and prove both that it passed and that dlgemm answered.
#
# usage: netlib.sh LIBDLGEMM TESTDIR PROGRAM INPUT GEMM_NAME [EXPECT_BACKEND]
#   PROGRAM    xblat3s, xblat3d (Fortran interface) or xscblat3, xdcblat3 (CBLAS)
#   INPUT      its input deck (sblat3.in, dblat3.in, sin3, din3)
#   GEMM_NAME  how the program prints the GEMM routine (SGEMM, cblas_sgemm, ...)
#   EXPECT_BACKEND  if given, every computing GEMM call must be logged with it
#
# Passing means: exit status 0; every routine's PASSED lines present (error
# exits and computational tests); no FAIL, "******" or ERROR in the report; and
# dlgemm's DLGEMM_VERBOSE log holds exactly as many GEMM calls as the program
# says it made, with the error-exit calls among them marked "rejected".
set -u
lib=$1 dir=$2 prog=$3 input=$4 gemm=$5 expect=${6:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
case $gemm in
  cblas_*) origin=$gemm ;;
  *) origin=$(echo "$gemm" | tr 'A-Z' 'a-z')_ ;;
esac

LD_PRELOAD=$lib DLGEMM_VERBOSE=1 "$dir/$prog" <"$dir/$input" >stdout.txt 2>calls.log
status=$?
report=stdout.txt
for f in sblat3.out dblat3.out; do [ -s "$f" ] && report="$f"; done
fail() { echo "FAIL: $prog: $*"; echo "--- report"; cat "$report"; echo "--- last calls"; tail -5 calls.log; exit 1; }

[ $status -eq 0 ] || fail "exit status $status"
grep -E 'FAIL|\*\*\*\*\*\*|ERROR' "$report" | grep -v 'ERROR-EXITS' && fail "failures in the report"
grep -q "^ $gemm *PASSED THE TESTS OF ERROR-EXITS" "$report" || fail "no error-exit PASSED line for $gemm"
passed=$(grep -c 'PASSED THE' "$report")
# Six level-3 routines: error exits and computations (both layouts for CBLAS).
case $prog in xs*|xd*|xc*|xz*) want=18 ;; *) want=12 ;; esac
[ "$passed" -ge "$want" ] || fail "$passed PASSED lines, expected $want"

made=$(grep "^ $gemm *PASSED THE .*COMPUTATIONAL TESTS" "$report" |
       sed 's/.*( *\([0-9]*\) CALLS).*/\1/' | awk '{s += $1} END {if (NR) print s}')
logged=$(grep "^dlgemm: $origin " calls.log | grep -vc -- '-> rejected')
rejected=$(grep "^dlgemm: $origin " calls.log | grep -c -- '-> rejected')
[ -n "$made" ] || fail "no computational PASSED line for $gemm"
[ "$logged" -eq "$made" ] ||
  fail "$prog made $made $gemm calls but dlgemm logged $logged: the plugin did not answer them all"
[ "$rejected" -gt 0 ] || fail "no $gemm error-exit call went through dlgemm's argument checks"
if [ -n "$expect" ]; then
  other=$(grep "^dlgemm: $origin " calls.log | grep -v -e '-> rejected' -e '-> quick-return' |
          grep -vc -- "-> $expect ")
  [ "$other" -eq 0 ] || fail "$other computing $gemm calls did not run on $expect"
fi
backends=$(grep "^dlgemm: $origin " calls.log | sed 's/.* -> \([^ ]*\) .*/\1/' | sort | uniq -c |
           awk '{printf "%s%s=%s", sep, $2, $1; sep=", "}')
echo "PASS: $prog: $passed PASSED lines; dlgemm answered all $made $gemm calls ($backends)"
