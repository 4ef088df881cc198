# session 45's first call (written in session 44): racecheck of the factorizations' kernels, then the
# whole sampled sweep twice on HEAD (issue 51's acceptance: every class >= 0.95, no cell < 0.85).
# Carry .devdeps (prepare liblapack3 liblapack-test libtmglib3) and build-carry.tar.xz (tools/pack-build.sh).
source tools/device-carry-env.sh && O=$OUT
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.log
timeout $(cap 120) compute-sanitizer --tool racecheck --error-exitcode 9 \
  --kernel-regex 'kns=dlg_(lu_|laswp|potrf_leaf|tri_add|trsm_leaf|unit_lower|householder|larft)' \
  build/conformance/test_lapack gpu > $O/racecheck_lapack.log 2>&1; echo "racecheck rc=$?"; tail -3 $O/racecheck_lapack.log
for i in 1 2; do timeout $(cap 200) $S --sample 4 > $O/sweep_$i.log 2>&1; grep -E '^class|^sweep|below' $O/sweep_$i.log | awk '$5+0 < 0.95 || /^sweep|below/'; done
cd $O && tar czf n1.tgz *.log
