#!/bin/bash
# abi_exports.sh - libdlgemm.so must export exactly the names in abi/exports.txt.
# usage: abi_exports.sh LIBDLGEMM EXPORTS_TXT
set -u
actual=$(nm -D --defined-only "$1" | awk '$2 ~ /^[TDBRVWiu]$/ {print $3}' | sort)
expected=$(sort "$2")
if [ "$actual" != "$expected" ]; then
  echo "FAIL: exported symbols differ from $2 (< expected, > exported):"
  diff <(echo "$expected") <(echo "$actual")
  exit 1
fi
echo "PASS: $(echo "$actual" | wc -l) exported symbols, all public: $(echo $actual)"
