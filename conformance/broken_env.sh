#!/bin/bash
# broken_env.sh - dlgemm in the broken environments of a shared machine,
# with a stand-in NVIDIA driver (fake_cuda.c) on the loader's path: an
# unmodified BLAS program (examples/sgemm_demo) under LD_PRELOAD must give
# right answers on the CPU and print, with DLGEMM_VERBOSE, one line saying
# why no GPU was used, naming the cause.
# usage: broken_env.sh LIBDLGEMM DEMO FAKE_DRIVER_DIR FAKE_PRE12_DRIVER_DIR
set -u
lib=$1 demo=$2 driver=$3 old_driver=$4
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# scenario name, the loader path, what the line must name, then the environment
scenario() {
  local name=$1 path=$2 cause=$3; shift 3
  for force in "" gpu; do
    env "$@" LD_LIBRARY_PATH="$path" LD_PRELOAD="$lib" DLGEMM_VERBOSE=1 DLGEMM_FORCE=$force \
      "$demo" > "$tmp/out" 2>&1
    local st=$? why calls cpu
    why=$(grep -c "^dlgemm: no GPU backend is usable (" "$tmp/out")
    calls=$(grep -c "^dlgemm: [sd]gemm_ " "$tmp/out")
    cpu=$(grep -c "^dlgemm: [sd]gemm_ .* -> cpu-blas (no usable GPU backend)" "$tmp/out")
    if [ $st -eq 0 ] && grep -q "all products correct" "$tmp/out" && [ "$why" -eq 1 ] &&
       grep -q "^dlgemm: no GPU backend is usable (cuda: .*$cause" "$tmp/out" &&
       [ "$calls" -gt 0 ] && [ "$calls" -eq "$cpu" ]; then
      passed=$((passed + 1))
      echo "ok: $name${force:+ (DLGEMM_FORCE=$force)}: $(grep "^dlgemm: no GPU" "$tmp/out")"
    else
      failed=$((failed + 1))
      echo "FAIL: $name${force:+ (DLGEMM_FORCE=$force)}: exit $st, $why explanation line(s)," \
           "$cpu of $calls calls on the CPU"
      cat "$tmp/out"
    fi
  done
}

scenario 'CUDA_VISIBLE_DEVICES=""' "$driver" "cuInit failed: no CUDA-capable device" \
  CUDA_VISIBLE_DEVICES=
scenario "a driver with no device" "$driver" "cuInit failed: no CUDA-capable device" \
  FAKE_CUDA=nodevice
scenario "a driver that counts no device" "$driver" "no CUDA device (count is 0)" FAKE_CUDA=zero
scenario "a driver older than the kernels" "$driver" "older than CUDA [0-9.]*, which they were built" \
  FAKE_CUDA=old
scenario "a driver from before CUDA 12" "$old_driver" "libcuda.so.1 lacks cu[A-Za-z]* (too old)" \
  FAKE_CUDA=old
scenario "HOME and XDG_CACHE_HOME unset" "$driver" "no CUDA device" -u HOME -u XDG_CACHE_HOME \
  FAKE_CUDA=zero
mkdir -p "$tmp/ro" && chmod 555 "$tmp/ro"
scenario "a read-only cache directory" "$driver" "older than CUDA" XDG_CACHE_HOME="$tmp/ro" \
  FAKE_CUDA=old
echo "broken environments: $passed passed, $failed failed"
[ $failed -eq 0 ]
