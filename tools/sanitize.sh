#!/bin/bash
# sanitize.sh - the CPU test suite again, on a build of the library made
# with a sanitizer (issue 27): asan (AddressSanitizer + UndefinedBehavior-
# Sanitizer), tsan (ThreadSanitizer, the thread and fork tests) or fuzz
# (clang + libFuzzer: the two fuzzers of conformance/fuzz, for a bounded
# number of runs).  Each mode configures its own CPU-only build of this
# source tree under BUILD-ROOT/sanitize/MODE (no CUDA or HIP: the GPU code
# runs under compute-sanitizer on the GPU machine instead) and runs there.
#
# usage: tools/sanitize.sh asan|tsan|fuzz BUILD-ROOT [fuzz-runs-dlpack fuzz-runs-blas]
set -euo pipefail
mode=$1 root=$2
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/sanitize/$mode
cc=gcc
case $mode in
  asan) flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
        # not fork_during_calls: GCC 12's ASan runtime holds its allocator's lock across
        # fork() without an atfork handler, so its child can hang in malloc (seen on
        # the 16-core machine); TSan's runtime locks around fork, and runs that test
        tests='^(test_validate|test_route|test_cpu_ref|test_shim|differential|differential_cpu_bitwise|threads_mixed_calls|example_dlopen)$' ;;
  tsan) flags="-fsanitize=thread"
        tests='^(test_validate|threads_mixed_calls|fork_during_calls)$' ;;
  fuzz) cc=clang
        flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
        if ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n){return 0;}' |
             clang -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
          echo "SKIP: the fuzzers need clang with libFuzzer (tools/install-deps.sh installs clang and libclang-rt-dev)"
          exit 77
        fi ;;
  *) echo "usage: $0 asan|tsan|fuzz BUILD-ROOT" >&2; exit 2 ;;
esac
t0=$SECONDS
mkdir -p "$dir"
cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=$cc \
  -DCMAKE_C_FLAGS="$flags" -DDLGEMM_WITH_CUDA=OFF -DDLGEMM_WITH_HIP=OFF \
  -DDLGEMM_FUZZ=$([ $mode = fuzz ] && echo ON || echo OFF) >"$dir.configure.log" 2>&1 ||
  { cat "$dir.configure.log"; exit 1; }
if [ $mode = fuzz ]; then
  cmake --build "$dir" -j"$(nproc)" --target fuzz_dlpack fuzz_blas >"$dir.build.log" 2>&1 ||
    { tail -40 "$dir.build.log"; exit 1; }
else
  cmake --build "$dir" -j"$(nproc)" >"$dir.build.log" 2>&1 || { tail -40 "$dir.build.log"; exit 1; }
fi
echo "sanitize $mode: built in $((SECONDS - t0)) s"
case $mode in
  asan) export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
        ctest --test-dir "$dir" -R "$tests" --output-on-failure
        # float16 / bfloat16 / TF32 on host tensors: fewer cases than ctest's (ASan is ~10x slower)
        for policy in "" tf32; do "$dir/conformance/test_half" host 12 $policy | tail -1; done
        # complex64 / complex128 host tensors against netlib's cgemm_ / zgemm_
        DLGEMM_FORCE=cpu "$dir/conformance/test_complex" host 40 | tail -1 ;;
  tsan) export TSAN_OPTIONS="halt_on_error=1:die_after_fork=0:second_deadlock_stack=1"
        ctest --test-dir "$dir" -R "$tests" --output-on-failure ;;
  fuzz) export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
        # fuzz_dlpack's runs are split over the cores, one process each (its own scratch
        # folder and seed; the kept corpus read by all): a million take ~2 minutes on one
        runs=${3:-1000000} jobs=$(nproc)
        for j in $(seq 1 "$jobs"); do
          mkdir -p "$dir/corpus-dlpack-$j"
          "$dir/conformance/fuzz/fuzz_dlpack" -runs=$(( (runs + jobs - 1) / jobs )) -seed=$j \
            -max_len=512 -print_final_stats=1 -artifact_prefix="$dir/" "$dir/corpus-dlpack-$j" \
            "$src/conformance/fuzz/corpus/dlpack" 2>"$dir/fuzz_dlpack.$j.log" &
        done
        status=0
        for j in $(seq 1 "$jobs"); do wait -n || status=1; done
        for j in $(seq 1 "$jobs"); do
          [ $status = 0 ] || tail -40 "$dir/fuzz_dlpack.$j.log"
          grep -E "Done [0-9]+ runs|fuzz_dlpack: [0-9]+ calls" "$dir/fuzz_dlpack.$j.log" | sed "s/^/fuzz_dlpack.$j: /"
        done
        [ $status = 0 ] || exit 1
        mkdir -p "$dir/corpus-blas"
        "$dir/conformance/fuzz/fuzz_blas" -runs="${4:-100000}" -max_len=512 -print_final_stats=1 \
          -artifact_prefix="$dir/" "$dir/corpus-blas" "$src/conformance/fuzz/corpus/blas" \
          2>"$dir/fuzz_blas.log" || { tail -60 "$dir/fuzz_blas.log"; exit 1; }
        grep -E "Done [0-9]+ runs" "$dir/fuzz_blas.log" | sed "s/^/fuzz_blas: /" ;;
esac
