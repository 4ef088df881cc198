# session 44's first call (written in session 43): lu_panel under netlib's LAPACK testers with every xGETRF on the GPU and
# under compute-sanitizer; then session 41's cells under 0.95 with each other kernel family pinned (the routing table's
# evidence) and ncu of the FP32 narrow kernels.  Carry .devdeps (prepare liblapack3 liblapack-test libtmglib3) and
# build-carry.tar.xz; run: bash bench/results/session43/scripts/call3.sh
source tools/device-carry-env.sh && B=build && O=$OUT
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
for p in "xlintstd dtest.in d" "xlintsts stest.in s"; do set -- $p
  DLGEMM_FORCE=gpu timeout $(cap 200) conformance/lapack_testers.sh $PWD/$B/libdlgemm.so.0 "$DEVDEPS_LAPACK_TESTS" $1 $2 $3 cuda > $O/testers_$1.log 2>&1; tail -4 $O/testers_$1.log; done
for t in memcheck racecheck; do timeout $(cap 90) compute-sanitizer --tool $t --error-exitcode 9 $B/conformance/test_lapack gpu > $O/sanitizer_${t}_lapack.log 2>&1; echo "$t rc=$?"; grep -E "SUMMARY" $O/sanitizer_${t}_lapack.log; done
L=bench/results/session41/sweep/sweep_sample4_after_2.log
low() { local t=$1 tag=$2; shift 2; env "$@" timeout $(cap 30) $S --rerun $L --below 0.95 --only $t > $O/low_${t}_$tag.log 2>&1; echo "$t $tag: $(grep '^sweep' $O/low_${t}_$tag.log)"; }
low c128 auto X=1; low c128 native DLGEMM_CGEMM_WAY=native
low c64 auto X=1; low c64 native DLGEMM_CGEMM_WAY=native; low c64 simt DLGEMM_CGEMM_WAY=simt
low tf32 auto X=1; low tf32 mma DLGEMM_HGEMM_KERNEL=mma; low tf32 n32 DLGEMM_NARROW32=on
low fp32 auto X=1; low fp32 n32 DLGEMM_NARROW32=on; low 3xtf32 auto X=1; low 3xtf32 n32 DLGEMM_NARROW32=on
for c in "fp32 NN 4096 16 4096" "fp32 NT 4096 32 4096"; do echo "=== $c"
  timeout $(cap 40) ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats -k regex:dlg -c 2 $B/bench/bench_shapes 1 "$c" 2>&1 | grep -vE "^==PROF==|^    -{5}" | head -120; done > $O/narrow_ncu.log 2>&1
cd $O && tar czf c3.tgz *.log && ls -la
