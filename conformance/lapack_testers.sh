#!/bin/bash
# lapack_testers.sh - one of LAPACK's linear-equation testers (xlintsts,
# xlintstd) run plain and with libdlgemm.so LD_PRELOAD'ed, and proof that it
# passes exactly as it passes plain and that dlgemm answered.
#
# usage: lapack_testers.sh LIBDLGEMM TESTDIR PROGRAM INPUT PREFIX [EXPECT_BACKEND]
#   PROGRAM  xlintsts or xlintstd (Debian liblapack-test), INPUT stest.in / dtest.in
#   PREFIX   s or d: the routines counted are <prefix>getrf_, potrf_, geqrf_
#            and ormqr_
#   EXPECT_BACKEND  if given, every computable call must have run on it: logged
#            "-> cuda:<device>", or handed to the next LAPACK after the GPU found
#            the matrix not positive definite (the reference writes that answer)
#
# "Exactly as plain": every summary line (tests run, passed or failed the
# threshold, error exits) is the same both ways.
set -u
lib=$1 dir=$2 prog=$3 input=$4 p=$5 expect=${6:-}
# a build configured on one machine and run on another (the GPU machine's
# carried build): the testers where that machine unpacked them
if ! [ -x "$dir/$prog" -a -f "$dir/$input" ] && [ -x "${DEVDEPS_LAPACK_TESTS:-/nonexistent}/$prog" ]; then
  dir=$DEVDEPS_LAPACK_TESTS
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail() { echo "FAIL: $prog: $*"; tail -20 "$work/preloaded.txt"; exit 1; }

summary() { grep -E "threshold|failed|error exits|tests run|ILLEGAL|NOT passed" "$1"; }
"$dir/$prog" <"$dir/$input" >plain.txt 2>&1 || fail "plain run: exit status $?"
LD_PRELOAD=$lib DLGEMM_VERBOSE=1 "$dir/$prog" <"$dir/$input" >preloaded.txt 2>calls.log ||
  fail "preloaded run: exit status $?"
summary plain.txt >plain.sum
summary preloaded.txt >preloaded.sum
[ -s plain.sum ] || fail "no summary lines in the plain run"
diff plain.sum preloaded.sum >diff.txt || { cat diff.txt; fail "summaries differ from the plain run"; }
grep -q "failed" preloaded.sum && echo "note: the plain run has failures too (same lines both ways)"

calls=$(grep -E "^dlgemm: ${p}(getrf|potrf|geqrf|ormqr)_ " calls.log)
n_all=$(echo "$calls" | grep -c .)
n_forwarded=$(echo "$calls" | grep -c -- "illegal, empty")
n_cuda=$(echo "$calls" | grep -c -- "-> cuda[: ]")
n_notpd=$(echo "$calls" | grep -c -- "-> cpu-lapack (fallback after cuda failed: INFO=")
[ "$n_all" -gt 0 ] || fail "no ${p}getrf_ / potrf_ / geqrf_ / ormqr_ call went through dlgemm"
if [ -n "$expect" ]; then
  other=$((n_all - n_forwarded - n_cuda - n_notpd))
  [ "$other" -eq 0 ] || {
    echo "$calls" | grep -v -e "illegal, empty" -e "-> cuda[: ]" -e "INFO=" | head -5
    fail "$other computable calls did not run on $expect"
  }
fi
per=$(echo "$calls" | awk '{print $2}' | sort | uniq -c | awk '{printf "%s%s %s", sep, $2, $1; sep=", "}')
echo "PASS: $prog: $(grep -c . plain.sum) summary lines as plain; $n_all calls ($per):" \
     "$n_cuda on cuda, $n_notpd not positive definite (reference writes them)," \
     "$n_forwarded illegal, empty or queries (forwarded)"
