# session 44's first call: lu_panel under netlib's LAPACK testers with every xGETRF on the GPU and
# under compute-sanitizer (the first half of session 43's call3.sh, which this replaces), then ncu of the complex128 native DMMA
# kernel against cuBLAS's ZGEMM on full tiles (what limits it: 0.78-0.83 of cuBLAS), and of the FP32
# narrow kernels.  Carry .devdeps (prepare liblapack3 liblapack-test libtmglib3) and build-carry.tar.xz.
source tools/device-carry-env.sh && B=build && O=$OUT
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader | tee $O/gpu.log
for p in "xlintstd dtest.in d" "xlintsts stest.in s"; do set -- $p
  DLGEMM_FORCE=gpu timeout $(cap 200) conformance/lapack_testers.sh $PWD/$B/libdlgemm.so.0 "$DEVDEPS_LAPACK_TESTS" $1 $2 $3 cuda > $O/testers_$1.log 2>&1; echo "$1 rc=$?"; tail -4 $O/testers_$1.log; done
for t in memcheck racecheck; do timeout $(cap 90) compute-sanitizer --tool $t --error-exitcode 9 $B/conformance/test_lapack gpu > $O/sanitizer_${t}_lapack.log 2>&1; echo "$t rc=$?"; grep -E "SUMMARY" $O/sanitizer_${t}_lapack.log; done
ncuz() { echo "=== $*"; env "$@" timeout $(cap 60) ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis -k regex:gemm -c 6 $B/bench/bench_shapes 1 "$CASE" 2>&1 | grep -vE "^==PROF==|^    -{5}"; }
{ CASE="c128 NT 1024 1024 1024 16" ncuz DLGEMM_CGEMM_WAY=native; CASE="c128 TT 2048 128 2048 16" ncuz X=1; CASE="c128 TT 2048 128 2048 16" ncuz DLGEMM_CGEMM_WAY=native; } > $O/complex_ncu.log 2>&1
grep -E "^===|^  [a-z_0-9]+.*\(|Duration|DRAM Throughput|Compute \(SM\)|Registers Per|Block Size|Grid Size|Shared Memory Config|Achieved Occupancy" $O/complex_ncu.log | head -80
for c in "fp32 NN 4096 16 4096" "fp32 NT 4096 32 4096"; do echo "=== $c"
  timeout $(cap 40) ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats -k regex:dlg -c 2 $B/bench/bench_shapes 1 "$c" 2>&1 | grep -vE "^==PROF==|^    -{5}" | head -120; done > $O/narrow_ncu.log 2>&1
cd $O && tar czf a.tgz *.log && ls -la
