#!/bin/bash
# netlib.sh - run one of netlib's level-3 BLAS test programs with
# libdlgemm.so LD_PRELOAD'ed, and prove both that it passed and that dlgemm
# answered every call of every routine.
#
# usage: netlib.sh LIBDLGEMM TESTDIR PROGRAM INPUT ROUTINES [EXPECT_BACKEND]
#   PROGRAM    xblat3s, xblat3d, xblat3c, xblat3z (Fortran interface) or
#              xscblat3, xdcblat3, xccblat3, xzcblat3 (CBLAS)
#   INPUT      its input deck (sblat3.in ... zblat3.in, sin3 ... zin3)
#   ROUTINES   how many routines it tests: 6 (real), 9 (complex)
#   EXPECT_BACKEND  if given, every computing call must be logged with it
#
# Passing means: exit status 0; each routine's PASSED lines present (error
# exits and computational tests, both layouts for CBLAS); no FAIL, "******"
# or ERROR in the report; and for each routine, dlgemm's DLGEMM_VERBOSE log
# holds exactly as many calls as the program says it made, with its
# error-exit calls among them marked "rejected".
set -u
lib=$1 dir=$2 prog=$3 input=$4 routines=$5 expect=${6:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

LD_PRELOAD=$lib DLGEMM_VERBOSE=1 "$dir/$prog" <"$dir/$input" >stdout.txt 2>calls.log
status=$?
report=stdout.txt
for f in [sdcz]blat3.out; do [ -s "$f" ] && report="$f"; done
fail() { echo "FAIL: $prog: $*"; echo "--- report"; cat "$report"; echo "--- last calls"; tail -5 calls.log; exit 1; }

[ $status -eq 0 ] || fail "exit status $status"
grep -E 'FAIL|\*\*\*\*\*\*|ERROR' "$report" | grep -v 'ERROR-EXITS' && fail "failures in the report"
names=$(grep 'PASSED THE .*COMPUTATIONAL TESTS' "$report" | awk '{print $1}' | sort -u)
[ "$(echo "$names" | grep -c .)" -eq "$routines" ] ||
  fail "computational PASSED lines for $(echo $names), expected $routines routines"
# error exits and computations, the latter in both layouts for CBLAS
case $prog in xs*|xd*|xc*|xz*) want=$((3 * routines)) ;; *) want=$((2 * routines)) ;; esac
passed=$(grep -c 'PASSED THE' "$report")
[ "$passed" -ge "$want" ] || fail "$passed PASSED lines, expected $want"

summary=""
for name in $names; do
  case $name in
    cblas_*) origin=$name ;;
    *) origin=$(echo "$name" | tr 'A-Z' 'a-z')_ ;;
  esac
  grep -q "^ $name *PASSED THE TESTS OF ERROR-EXITS" "$report" || fail "no error-exit PASSED line for $name"
  made=$(grep "^ $name *PASSED THE .*COMPUTATIONAL TESTS" "$report" |
         sed 's/.*( *\([0-9]*\) CALLS).*/\1/' | awk '{s += $1} END {print s + 0}')
  grep "^dlgemm: $origin " calls.log >calls_one.log
  logged=$(grep -vc -- '-> rejected' calls_one.log)
  rejected=$(grep -c -- '-> rejected' calls_one.log)
  [ "$logged" -eq "$made" ] ||
    fail "$prog made $made $name calls but dlgemm logged $logged: the plugin did not answer them all"
  [ "$rejected" -gt 0 ] || fail "no $name error-exit call went through dlgemm's argument checks"
  if [ -n "$expect" ]; then
    other=$(grep -v -e '-> rejected' -e '-> quick-return' calls_one.log | grep -vc -- "-> $expect[: ]")
    [ "$other" -eq 0 ] || fail "$other computing $name calls did not run on $expect"
  fi
  backends=$(sed 's/.* -> \([^ ]*\) .*/\1/' calls_one.log | sort | uniq -c |
             awk '{printf "%s%s=%s", sep, $2, $1; sep=" "}')
  summary="$summary $name: $made ($backends);"
done
echo "PASS: $prog: $passed PASSED lines; dlgemm answered every call:$summary"
