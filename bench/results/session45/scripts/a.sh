# session 45's first call: the whole sampled sweep twice on HEAD (issue 51's acceptance: every class
# >= 0.95, no cell < 0.85, in two runs), then bench/attempts/narrow-two-blocks.patch and
# narrow-dot-r2.patch against HEAD on the narrow cells 8 and 16 wide (alternating, twice), then
# racecheck of the factorizations' kernels with what is left.  Carry .devdeps (prepare liblapack3
# liblapack-test libtmglib3), build-carry.tar.xz (tools/pack-build.sh) and s45lib (narrow2.so.0.xz,
# dotr2.so.0.xz: HEAD + each patch).
source tools/device-carry-env.sh && O=$OUT
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.log
for i in 1 2; do timeout $(cap 200) $S --sample 4 > $O/sweep_$i.log 2>&1; grep -E '^class|^sweep|below' $O/sweep_$i.log | awk '$5+0 < 0.95 || /^sweep|below/'; done
for v in narrow2:n2 dotr2:d2; do mkdir -p /tmp/${v#*:} && xz -dc s45lib/${v%:*}.so.0.xz > /tmp/${v#*:}/libdlgemm.so.0; done
python3 bench/sweep_cells.py fp32,3xtf32,bf16,f16 NN,NT,TN,TT narrow 8,16 > /tmp/narrow.cells
for i in 1 2; do
  timeout $(cap 40) $S --rerun /tmp/narrow.cells --below 9 > $O/narrow_head_$i.log 2>&1; echo "head $i: $(grep '^sweep' $O/narrow_head_$i.log)"
  LD_LIBRARY_PATH=/tmp/n2 timeout $(cap 40) $S --rerun /tmp/narrow.cells --below 9 > $O/narrow_two_$i.log 2>&1; echo "two $i: $(grep '^sweep' $O/narrow_two_$i.log)"
  LD_LIBRARY_PATH=/tmp/d2 timeout $(cap 40) $S --rerun /tmp/narrow.cells --below 9 > $O/narrow_dotr2_$i.log 2>&1; echo "dotr2 $i: $(grep '^sweep' $O/narrow_dotr2_$i.log)"
done
timeout $(cap 150) compute-sanitizer --tool racecheck --error-exitcode 9 \
  --kernel-regex 'kns=dlg_(lu_|laswp|potrf_leaf|tri_add|trsm_leaf|unit_lower|householder|larft)' \
  build/conformance/test_lapack gpu > $O/racecheck_lapack.log 2>&1; echo "racecheck rc=$?"; tail -3 $O/racecheck_lapack.log
cd $O && tar czf a.tgz *.log
