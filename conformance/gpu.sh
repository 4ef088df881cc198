#!/bin/bash
# gpu.sh - everything that needs the GPU machine, in one job: build, the
# whole ctest suite (GPU tests included), netlib's testers with every GEMM
# forced onto the GPU, compute-sanitizer (memcheck, racecheck), the SASS
# facts of the embedded kernels, and the benchmark against cuBLAS.
#
# usage (on the GPU machine, from the repository root):
#   source .devdeps/env.sh && conformance/gpu.sh [bench-reps]
# GPU_STEPS picks parts (default all): build ctest python frameworks netlib
# lapack scalapack sanitizer sass ncu bench tcbench shapes sweep hostbench lapackbench coldstart
# neighbours gcnport load several scalapackbench; GPU_CMAKE_ARGS
# adds configure options.
# Logs go to $OUT (or ./gpu-out); the last lines printed are the summary.
set -u
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
reps=${1:-20}
build=build-gpu
summary=()
note() { summary+=("$1"); echo "== $1"; }
steps=" ${GPU_STEPS:-build ctest python frameworks netlib lapack scalapack sanitizer sass ncu bench tcbench shapes sweep hostbench lapackbench coldstart neighbours gcnport load several scalapackbench} "
want() { [[ $steps == *" $1 "* ]]; }
step() { # name, command...
  local name=$1; shift
  if "$@" >"$out/$name.log" 2>&1; then note "PASS $name"; else note "FAIL $name (see $name.log)"; tail -30 "$out/$name.log"; fi
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
if want build; then
  t0=$SECONDS
  step build bash -c "cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release ${GPU_CMAKE_ARGS:-} && cmake --build $build -j$(nproc)"
  note "build took $((SECONDS - t0)) s on $(nproc) cores"
fi
if want ctest; then
  step ctest ctest --test-dir $build --output-on-failure -E '^python_'
  grep -E "tests passed|Skipped|Failed" "$out/ctest.log" | head -20
fi
# The Python example with each framework, verbose: their figures go in the notes.
if want python; then
  export XLA_PYTHON_CLIENT_PREALLOCATE=false
  step python ctest --test-dir $build -V -R '^python_'
  grep -E "^[0-9]+: (dlgemm|stream|[0-9]+ calls|note|SKIP|FAIL|numpy:|torch:|cupy:|jax:|jax ffi:|torch dispatch:|stats:|cpu:|gpu:)" "$out/python.log"
fi
# Frameworks (issue 25): the per-call cost against numpy/torch, the GPT-2-sized
# decoder on plain torch and on dlgemm.torch, and DLGEMM_TORCH=1 with no code change.
if want frameworks; then
  export DLGEMM_LIBRARY=$PWD/$build/libdlgemm.so
  python3 bench/python_overhead.py all 7 2>&1 | tee "$out/python_overhead.log"
  for run in "bfloat16 8" "bfloat16 16" "float32 8"; do
    set -- $run
    step "gpt_decoder_$1_b$2" python3 examples/python/gpt_decoder.py --dtype $1 --batch $2
    tail -6 "$out/gpt_decoder_$1_b$2.log"
  done
  # DLGEMM_TORCH=1: torch's cuBLAS calls through shims/cublas, checked, then the
  # unmodified models plain and routed, alternating (bench/torch_models.py)
  step torch_autoload python3 conformance/python/test_cublas_route.py
  grep -E "products on dlgemm|FAIL|cublas route" "$out/torch_autoload.log"
  step torch_models python3 bench/torch_models.py --rounds 3 --out "$out"
  tail -12 "$out/torch_models.log"
  # the same with the routing switched on and off inside each process (no host drift)
  step torch_models_toggle python3 bench/torch_models.py --toggle --rounds 3
  tail -10 "$out/torch_models_toggle.log"
  # DLGEMM_JAX=1: an unmodified jitted program's dot_general (and, with two GPUs
  # or more, a shard_map over all of them); then DDP with torchrun on 2 and 4 GPUs
  step jax_route python3 conformance/python/test_jax_route.py
  grep -E "^(plain|on|auto|cpu):|FAIL|jax route" "$out/jax_route.log"
  step jax_models python3 bench/jax_models.py --rounds 3 --out "$out"
  tail -4 "$out/jax_models.log"
  gpus=$(nvidia-smi -L | wc -l)
  for n in 2 4; do
    [ "$gpus" -ge $n ] || { note "SKIP torch_ddp_$n: $gpus GPU(s) here"; continue; }
    step "torch_ddp_$n" python3 bench/torch_ddp.py --gpus $n --rounds 3 --out "$out"
    tail -4 "$out/torch_ddp_$n.log"
  done
fi

lib=$PWD/$build/libdlgemm.so
want netlib && for spec in "xblat3s sblat3.in 6" "xscblat3 sin3 6" "xblat3d dblat3.in 6" \
                          "xdcblat3 din3 6" "xblat3c cblat3.in 9" "xccblat3 cin3 9" \
                          "xblat3z zblat3.in 9" "xzcblat3 zin3 9"; do
  set -- $spec
  step "netlib_gpu_$1" env DLGEMM_FORCE=gpu conformance/netlib.sh "$lib" "$DEVDEPS_BLAS_TESTS" "$1" "$2" "$3" cuda
  grep -E "PASS:|FAIL:" "$out/netlib_gpu_$1.log"
done
# Every complex GEMM on the complex DMMA kernels, then every one of k <= 8
# on csmallk (conjugated operands, every level-3 routine's inner products)
# through netlib's testers.
for spec in "xblat3c cblat3.in 9" "xblat3z zblat3.in 9"; do
  set -- $spec
  for way in native smallk; do
    want netlib && step "netlib_gpu_$1_$way" env DLGEMM_FORCE=gpu DLGEMM_CGEMM_WAY=$way \
      conformance/netlib.sh "$lib" "$DEVDEPS_BLAS_TESTS" "$1" "$2" "$3" cuda
  done
done
# SGEMM under the 3xTF32 policy (FP32-accurate on the tensor cores) through netlib's tester.
want netlib && step netlib_gpu_xblat3s_3xtf32 env DLGEMM_FORCE=gpu DLGEMM_FP32_MODE=3xtf32 \
  conformance/netlib.sh "$lib" "$DEVDEPS_BLAS_TESTS" xblat3s sblat3.in 6 cuda
# LAPACK's linear-equation testers (prepare liblapack3 liblapack-test libtmglib3) with every
# computable xGETRF / xPOTRF on the GPU.
want lapack && [ -n "${DEVDEPS_LAPACK_TESTS:-}" ] &&
  for spec in "xlintstd dtest.in d" "xlintsts stest.in s"; do
    set -- $spec
    step "lapack_gpu_$1" env DLGEMM_FORCE=gpu conformance/lapack_testers.sh "$lib" \
      "$DEVDEPS_LAPACK_TESTS" "$1" "$2" "$3" cuda
    grep -E "PASS:|FAIL:" "$out/lapack_gpu_$1.log"
  done
# ScaLAPACK's testers over 2 and 4 ranks, dlgemm preloaded in each (tools/prepare-scalapack.sh
# says how they travel; OPAL_PREFIX names the unpacked Open MPI).
want scalapack && [ -n "${DEVDEPS_SCALAPACK_TESTS:-}" ] && [ -n "${OPAL_PREFIX:-}" ] &&
  for ranks in 2 4; do
    step "scalapack_${ranks}ranks" env MPIRUN="$OPAL_PREFIX/bin/mpirun.openmpi" conformance/scalapack.sh \
      "$lib" "$DEVDEPS_SCALAPACK_TESTS" $ranks xdlu xdllt dpb3tst spb3tst
    grep -E "ranks:|FAIL:|passed with" "$out/scalapack_${ranks}ranks.log"
  done
if want netlib; then
  step differential_gpu_300 env DLGEMM_FORCE=gpu $build/conformance/test_differential 300
  tail -1 "$out/differential_gpu_300.log"
  # stream-K (its in-kernel sums of split tiles) on every single product
  step differential_gpu_300_streamk env DLGEMM_FORCE=gpu DLGEMM_SGEMM_STREAMK=on \
    $build/conformance/test_differential 300
  tail -1 "$out/differential_gpu_300_streamk.log"
fi

want sanitizer && for tool in memcheck racecheck; do
  for streamk in auto on; do
    step "sanitizer_${tool}_streamk_$streamk" env DLGEMM_SGEMM_STREAMK=$streamk compute-sanitizer \
      --tool $tool --error-exitcode 9 $build/conformance/test_cuda 12
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" "$out/sanitizer_${tool}_streamk_$streamk.log"
  done
done
# the factorizations' kernels (lapack.cu: lu_panel's grid barrier, the leaves), every test_lapack shape;
# racecheck on lapack.cu's kernels alone (over every kernel it ran past 330 s on an H100, session 44;
# memcheck of everything took under two minutes)
lapack_kernels='kns=dlg_(lu_|laswp|potrf_leaf|tri_add|trsm_leaf|unit_lower|householder|larft)'
want sanitizer && for tool in memcheck racecheck; do
  only=(); [ $tool = racecheck ] && only=(--kernel-regex "$lapack_kernels")
  step "sanitizer_${tool}_lapack" compute-sanitizer --tool $tool "${only[@]}" --error-exitcode 9 \
    $build/conformance/test_lapack gpu
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed|FAIL" "$out/sanitizer_${tool}_lapack.log" | tail -3
done
want sanitizer && step sanitizer_memcheck_host env DLGEMM_FORCE=gpu compute-sanitizer --tool memcheck \
  --error-exitcode 9 $build/conformance/test_differential 12
want sanitizer && for kernel in mma wgmma; do
  step "sanitizer_memcheck_half_$kernel" env DLGEMM_HGEMM_KERNEL=$kernel compute-sanitizer \
    --tool memcheck --error-exitcode 9 $build/conformance/test_half cuda 16
  grep -E "ERROR SUMMARY|passed" "$out/sanitizer_memcheck_half_$kernel.log"
done
# the small mma.sync tiles (64 x 64, 32 x 32) for every product the mma.sync
# kernels take, the tiny kernels off so that small products reach them too
want sanitizer && for tool in memcheck racecheck; do
  for tile in 64 32; do
    step "sanitizer_${tool}_hmma_$tile" env DLGEMM_HGEMM_KERNEL=mma DLGEMM_HMMA_TILE=$tile \
      DLGEMM_TINY=off compute-sanitizer --tool $tool --error-exitcode 9 \
      $build/conformance/test_half cuda 12
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" "$out/sanitizer_${tool}_hmma_$tile.log"
  done
done
want sanitizer && for policy in tf32 3xtf32; do
  step "sanitizer_memcheck_$policy" compute-sanitizer --tool memcheck --error-exitcode 9 \
    $build/conformance/test_half cuda 16 $policy
  grep -E "ERROR SUMMARY|passed" "$out/sanitizer_memcheck_$policy.log"
done
# the narrow kernels: their shared X and the warps' sums, k split and whole
want sanitizer && for tool in memcheck racecheck; do
  for splits in 0 1; do
    step "sanitizer_${tool}_narrow_$splits" env DLGEMM_NARROW_SPLITS=$splits compute-sanitizer \
      --tool $tool --error-exitcode 9 $build/conformance/test_narrow 10
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" "$out/sanitizer_${tool}_narrow_$splits.log"
  done
done
# the tiny kernels: products side by side in a block's shared memory, k in chunks
want sanitizer && for tool in memcheck racecheck; do
  step "sanitizer_${tool}_tiny" compute-sanitizer --tool $tool --error-exitcode 9 \
    $build/conformance/test_narrow 12 tiny
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" "$out/sanitizer_${tool}_tiny.log"
done
# the FP64 kernels on their thin (32 x 128, 128 x 32) and flat (64 x 128)
# tiles for every float64 product
want sanitizer && for tool in memcheck racecheck; do
  for tile in thin flat; do
    step "sanitizer_${tool}_f64_$tile" env DLGEMM_DGEMM_TILE=$tile compute-sanitizer --tool $tool \
      --error-exitcode 9 $build/conformance/test_cuda 12 f64
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" "$out/sanitizer_${tool}_f64_$tile.log"
  done
done
want sanitizer && step sanitizer_memcheck_offload env DLGEMM_FORCE=gpu compute-sanitizer \
  --tool memcheck --error-exitcode 9 $build/conformance/test_offload shapes
# one call's two parts on one GPU sharing A's or B's panels (DLGEMM_PEER): device-to-device
# copies from buffers the other part frees once told
want sanitizer && step sanitizer_memcheck_spread_peer env DLGEMM_FORCE=gpu DLGEMM_DEVICES=0,0 \
  DLGEMM_PEER=on DLGEMM_VERBOSE=1 compute-sanitizer --tool memcheck --error-exitcode 9 \
  $build/conformance/test_spread shapes
# each complex tile on every complex product it can take: complex64's FFMA
# tiles (csimt: dlg_csimt_*, pinned by DLGEMM_SGEMM_TILE) and the complex
# DMMA kernels' (zdmma: zgemm_dmma.cu, DLGEMM_ZGEMM_TILE)
want sanitizer && for tool in memcheck racecheck; do
  for pin in csimt:simt:SGEMM:64x64 csimt:simt:SGEMM:32x32 zdmma:native:ZGEMM:64x64 \
             zdmma:native:ZGEMM:32x32; do
    IFS=: read -r name way var tile <<< "$pin"
    step "sanitizer_${tool}_${name}_$tile" env DLGEMM_CGEMM_WAY=$way DLGEMM_${var}_TILE=$tile \
      compute-sanitizer --tool $tool --error-exitcode 9 $build/conformance/test_complex cuda 12
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" "$out/sanitizer_${tool}_${name}_$tile.log"
  done
done
# complex64 / complex128: kDLCUDA tensors, and host arrays' level-3 trip
want sanitizer && step sanitizer_memcheck_complex_cuda compute-sanitizer --tool memcheck \
  --error-exitcode 9 $build/conformance/test_complex cuda 12
want sanitizer && step sanitizer_memcheck_complex_host env DLGEMM_FORCE=gpu compute-sanitizer \
  --tool memcheck --error-exitcode 9 $build/conformance/test_complex host 12
# the refusals of lying device pointers launch nothing and leave no driver error behind
want sanitizer && step sanitizer_memcheck_pointers compute-sanitizer --tool memcheck \
  --error-exitcode 9 $build/conformance/test_cuda_pointers

# (the build's own listing, read in place: at 460 MB it does not travel)
want sass && awk '/Function : /{f=$3} /LDL|STL/{bad[f]++} /LDS.128/{lds[f]++} /FFMA/{ffma[f]++}
     END{for (f in ffma) printf "sass %-28s FFMA %5d LDS.128 %3d LDL/STL %d\n", f, ffma[f], lds[f], bad[f]+0}' \
  $build/kernels/dlgemm.sass | sort | tee "$out/sass_summary.txt"

# Where the main kernel's time goes: one 128x128 launch (the 2048^3 case).
want ncu && ncu --kernel-name regex:dlg_sgemm_128x128 --launch-count 1 --section SpeedOfLight \
  --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
  $build/bench/bench_sgemm 1 >"$out/ncu.txt" 2>&1 &&
  grep -E "Throughput|Issued Ipc|Stall|Warp Cycles|Eligible|Active Warps|Pipe" "$out/ncu.txt" | head -40

if want bench && [ -x $build/bench/bench_sgemm ]; then
  $build/bench/bench_sgemm "$reps" 2>&1 | tee "$out/bench.log"
  # the other operand layouts (each a different copy path in the kernel)
  for op in tn nt tt; do $build/bench/bench_sgemm "$reps" 4096 4096 4096 $op | grep '^given'; done |
    tee -a "$out/bench.log"
fi
# Tensor cores (issue 6): bf16 and fp16 against cublasGemmEx, TF32 against
# cuBLAS's TF32 and 3xTF32 against its strict SGEMM, both layouts for FP32.
if want tcbench && [ -x $build/bench/bench_tc ]; then
  for t in "bf16 nn" "f16 nn" "tf32 nn" "tf32 tn" "3xtf32 nn" "3xtf32 tn"; do
    $build/bench/bench_tc $t "$reps" 2>&1 | tee "$out/bench_tc_${t% *}_${t#* }.log"
  done
fi
# Every shape class against cuBLAS (issue 22's suite), geometric means per class.
if want shapes && [ -x $build/bench/bench_shapes ]; then
  $build/bench/bench_shapes 10 2>&1 | tee "$out/bench_shapes.log"
fi
# The grid of issue 51 (bench/sweep.c), every 4th cell of each class and family by
# default (about 7 minutes on the H100); SWEEP_ARGS picks e.g. --sample 1 or --only bf16.
if want sweep && [ -x $build/bench/sweep ]; then
  mkdir -p "$out/sweep"
  step sweep bash -c "$build/bench/sweep ${SWEEP_ARGS:---sample 4} > '$out/sweep/sweep.log'"
  grep -E "^(class|type|family|sweep) |cells below" "$out/sweep/sweep.log" | tail -50
fi
# Host arrays: netlib alone, dlgemm and NVBLAS LD_PRELOAD'ed (issue 5).
# Reference LAPACK four ways (OpenBLAS from OPENBLAS_DIR or prepare's libopenblas0-pthread).
if want lapackbench && [ -x $build/bench/bench_lapack ]; then
  SMALL_SIZES=${LAPACK_SMALL_SIZES:-64,128,256,384,512,1024} RUN_LIMIT=${LAPACK_RUN_LIMIT:-600} \
    bench/lapack.sh $build "$out/lapackbench" dgetrf,dpotrf,sgetrf,dgeqrf,dormqr 2>&1 | tee "$out/lapackbench.log"
fi
# Process start to first result: a cuBLAS program against dgemm_ / dgetrf_ through dlgemm
# and a Python program's first dlgemm.matmul (issue 53).
if want coldstart && [ -x $build/bench/cold_start ]; then
  bench/cold_start.sh $build ${COLD_N:-1024} ${COLD_ROUNDS:-3} 2>&1 | tee "$out/cold_start.log"
fi
# Neighbours (issue 53, conformance/soak): a process holding the GPU's memory,
# signals, then 2, 4 and 8 processes of 16 threads sharing the GPU for
# SOAK_SHARE_S seconds each (the issue's 600 in a job of its own), and the
# soak with faults at random for SOAK_S seconds (its 1800, likewise; on four
# GPUs bench/neighbours_x4.sh runs the long ones side by side, in the background).
if want neighbours && [ -x $build/conformance/soak ]; then
  step soak_pressure $build/conformance/soak pressure
  step soak_pressure_first $build/conformance/soak pressure 1536 first
  step soak_signals $build/conformance/soak signals
  for p in 2 4 8; do
    step "soak_share_$p" $build/conformance/soak run "${SOAK_SHARE_S:-60}" $p 16
  done
  step soak_faults env DLGEMM_INJECT_FAULT=random:40 $build/conformance/soak run "${SOAK_S:-120}" 4 16
  grep -hE "^(process|GPU memory|host-model|soak|pressure|signals|after it left|SIG|Interrupt|Terminated|the program|exit)" \
    "$out"/soak_*.log | cut -c1-200
fi
if want hostbench && [ -x $build/bench/host_bench ]; then
  bench/host_bench.sh $build "$out/hostbench" ${HOSTBENCH_SIZES:-} 2>&1 | tee "$out/hostbench.log"
fi
# Several GPUs (issue 26): one host-array call on all of them against one and
# against NVBLAS; ScaLAPACK's PDGEMM / PDGETRF over 2 ranks on OpenBLAS, on one
# GPU and on a GPU per rank (SCALAPACK_N, default 32768).
if want several && [ -x $build/bench/host_bench ]; then
  bench/several_gpus.sh $build "$out/several" ${SEVERAL_SIZES:-} 2>&1 | tee "$out/several.log"
fi
if want scalapackbench && [ -n "${OPAL_PREFIX:-}" ]; then
  MPIRUN="$OPAL_PREFIX/bin/mpirun.openmpi" bench/scalapack_bench.sh $build "$out/scalapackbench" \
    ${SCALAPACK_N:-32768} 2>&1 | tee "$out/scalapackbench.log"
fi
# Under load (issue 27): 64 threads of device-tensor and host-array calls for
# LOAD_SECONDS (default 180), memory flat; and a shorter run under memcheck.
if want load && [ -x $build/conformance/test_load ]; then
  step load env DLGEMM_FORCE=gpu $build/conformance/test_load "${LOAD_SECONDS:-180}" 64
  tail -1 "$out/load.log"
  step load_memcheck env DLGEMM_FORCE=gpu compute-sanitizer --tool memcheck --error-exitcode 9 \
    $build/conformance/test_load 30 64
  grep -E "test_load:|ERROR SUMMARY" "$out/load_memcheck.log"
fi
# The GCN design's CUDA port against the SIMT kernel and cuBLAS (issue 8).
if want gcnport && [ -x $build/bench/bench_sgemm ]; then
  bench/gcn_port.sh $build "$reps" 2>&1 | tee "$out/gcn_port.log"
fi
echo "---- summary"
printf '%s\n' "${summary[@]}"
