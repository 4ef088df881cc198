#!/bin/bash
# run-tests.sh - run the whole ctest suite of a build directory, then print
# why each skipped test skipped (ctest itself only says "Skipped").
# usage: tools/run-tests.sh [build-dir]
set -u
build=${1:-build}
ctest --test-dir "$build" --output-on-failure
status=$?
reasons=$(grep -h "^SKIP" "$build/Testing/Temporary/LastTest.log" 2>/dev/null | sort -u)
[ -n "$reasons" ] && printf 'Skipped tests said:\n%s\n' "$reasons"
exit $status
