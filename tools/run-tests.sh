#!/bin/bash
# run-tests.sh - run the whole ctest suite of a build directory, print why
# each skipped test skipped (ctest itself only says "Skipped"), and close with
# one summary line: "ctest: N passed, N failed, N skipped".
# usage: tools/run-tests.sh [build-dir]
set -u
build=${1:-build}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
ctest --test-dir "$build" --output-on-failure 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
reasons=$(grep -h "^SKIP" "$build/Testing/Temporary/LastTest.log" 2>/dev/null | sort -u)
[ -n "$reasons" ] && printf '\nSkipped tests said:\n%s\n' "$reasons"
total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -1)
failed=$(sed -n 's/.*, \([0-9]*\) tests failed out of.*/\1/p' "$log" | tail -1)
skipped=$(grep -c '\*\*\*Skipped' "$log")
[ -n "$total" ] && echo "ctest: $((total - ${failed:-0} - skipped)) passed, ${failed:-0} failed, $skipped skipped"
exit "$status"
