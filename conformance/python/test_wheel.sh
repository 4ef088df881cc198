#!/bin/bash
# test_wheel.sh - the wheel as a user gets it: built with no network from
# the library CMake built (python/pyproject.toml), installed into a fresh
# venv, and used from there: the package and its library come from the
# venv, `python -m dlgemm` reports, the autoload switch loads the library
# at start-up (and off does not), and the framework test runs on the
# installed package.
# usage: test_wheel.sh BUILD_DIR [PYTHON]   (exit 77: skipped, reason printed)
set -u
build=$1
py=${2:-python3}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$root/python/build" "$root"/python/*.egg-info' EXIT
passed=0 failed=0
ok() { if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $*"; fi; }

"$py" -c "import setuptools, wheel" 2>/dev/null ||
  { echo "SKIP: $py lacks setuptools or wheel (tools/install-deps.sh: python3-setuptools python3-wheel)"; exit 77; }
"$py" -m venv "$tmp/probe" >/dev/null 2>&1 ||
  { echo "SKIP: $py cannot make a venv (tools/install-deps.sh: python3-venv)"; exit 77; }

DLGEMM_BUILD_DIR=$build "$py" -m pip wheel -q --no-build-isolation --no-index --no-deps \
  "$root/python" -w "$tmp/dist" || { echo "FAIL: the wheel did not build"; exit 1; }
whl=$(ls "$tmp"/dist/dlgemm-*.whl)
echo "built $(basename "$whl") ($(du -k "$whl" | cut -f1) KB)"
"$py" -m venv "$tmp/venv"
venv=$tmp/venv/bin/python
"$venv" -m pip install -q --no-index --no-deps "$whl" || { echo "FAIL: pip install"; exit 1; }
# numpy (and whatever sits beside it: torch on the GPU machine) for the
# framework test, from $py's environment, after the venv's own packages
numpy_dir=$("$py" -c "import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))" 2>/dev/null)
[ -n "$numpy_dir" ] && echo "$numpy_dir" > "$("$venv" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/zz-numpy.pth"

cd "$tmp"  # away from the source tree
unset DLGEMM_LIBRARY DLGEMM_TORCH DLGEMM_JAX DLGEMM_CUBLAS PYTHONPATH
export XDG_CONFIG_HOME=$tmp/config
where=$("$venv" -c "import dlgemm, dlgemm._lib as l; print(dlgemm.__file__); print(l.path())")
echo "$where"
ok test "$(echo "$where" | grep -c "^$tmp/venv/")" -eq 2

"$venv" -m dlgemm > report.txt
cat report.txt
ok grep -q "^dlgemm [0-9.]*, $tmp/venv/.*/dlgemm/libdlgemm.so.0$" report.txt
ok grep -q "^autoload for torch: off" report.txt
ok grep -q "^autoload for JAX: off" report.txt

# the routing table from a verdict file as rival_cache.c writes it: a bfloat16 NT class of
# 768 x 3072 x 8184 (rival.c's key: m, n, k, batch quantized, then device, types, precision,
# orientations, flags) to dlgemm, the same class with beta 0 to cuBLAS, a torn line skipped
mkdir -p "$tmp/cache/dlgemm"
printf '%s\n' "4e005e00670001000004100410001903 o" "4e005e00670001000004100410001902 t" "4e005e0067" \
  > "$tmp/cache/dlgemm/rival-test.txt"
XDG_CACHE_HOME=$tmp/cache "$venv" -m dlgemm routes > routes.txt
cat routes.txt
ok test "$(grep -c '^  dlgemm    bfloat16 -> bfloat16 NT .*m 768-895 .*n 3072-3583 .*k 7168-8191 .*batch 1 .*beta != 0$' routes.txt)" -eq 1
ok test "$(grep -c '^  cuBLAS    bfloat16 -> bfloat16 NT .*k 7168-8191 .*beta 0$' routes.txt)" -eq 1
ok test "$(grep -c '^  ' routes.txt)" -eq 2
XDG_CACHE_HOME=$tmp/cache "$venv" -m dlgemm | grep -q "2 classes of cuBLAS calls measured: 1 to dlgemm, 1 left to cuBLAS"
ok test $? -eq 0

loaded='import sys; print(any("libdlgemm" in l for l in open("/proc/self/maps")))'
ok test "$("$venv" -c "$loaded")" = False
waiting='import sys; print(any(type(f).__name__ == "_AfterJax" for f in sys.meta_path))'
ok test "$("$venv" -c "$waiting")" = False
"$venv" -m dlgemm autoload on
ok test "$("$venv" -c "$loaded")" = True
ok test "$("$venv" -c "$waiting")" = False  # JAX's route is DLGEMM_JAX=1's alone
ok test "$("$venv" -c 'import os; print(os.environ.get("DLGEMM_CUBLAS"))')" = auto
ok test "$(DLGEMM_TORCH=0 "$venv" -c "$loaded")" = False
"$venv" -m dlgemm autoload off
ok test "$("$venv" -c "$loaded")" = False
ok test "$(DLGEMM_TORCH=1 "$venv" -c "$loaded")" = True
ok test "$(DLGEMM_JAX=1 "$venv" -c "$waiting")" = True

# the Python tests on the installed package (checks.py leaves the source tree off the path)
if [ -n "$numpy_dir" ]; then
  DLGEMM_TEST_INSTALLED=1 "$venv" "$root/conformance/python/test_frameworks.py" numpy 2000 > fw.txt 2>&1
  st=$?
  tail -3 fw.txt
  ok test $st -eq 0
  ok grep -q "installed package: $tmp/venv/" fw.txt
else
  echo "note: $py has no numpy: the framework test on the installed package did not run"
fi

echo "wheel: $passed passed, $failed failed"
[ $failed -eq 0 ]
