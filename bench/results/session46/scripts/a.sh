# session 46's first call, the attempts first (each can land): bench/attempts/narrow-two-blocks.patch
# and narrow-dot-r2.patch against HEAD on the narrow cells 8 and 16 wide (alternating, twice); FP32's
# odd squares (session 41: NT 1025 ld+3 0.47, TN 1025 0.67, 1023-2047 0.81) with
# bench/attempts/sgemm-any-splits.patch (split-K in any count, not only powers of two), each SIMT
# tile, stream-K and the pad copies pinned, and the patch on the sampled FP32 class against HEAD;
# then the whole sampled sweep on HEAD (once: with ~130 cells under 0.85 in session 41 the
# acceptance's two clean runs are not yet in reach, and one run places every class); then racecheck
# of the factorizations' kernels with what is left.  Carry .devdeps (prepare liblapack3
# liblapack-test libtmglib3), build-carry.tar.xz
# (tools/pack-build.sh), s45lib (narrow2.so.0.xz, dotr2.so.0.xz: HEAD + each patch) and s46lib
# (splits.so.0.xz).  Ran in session 46 (logs in ../a/); since then narrow-dot-r2 is landed and
# sgemm-any-splits.patch and its library are gone, folded into sgemm-last-wave.patch (c.sh).
source tools/device-carry-env.sh && O=$OUT
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.log
for v in s45lib/narrow2:n2 s45lib/dotr2:d2 s46lib/splits:sp; do mkdir -p /tmp/${v#*:} && xz -dc ${v%:*}.so.0.xz > /tmp/${v#*:}/libdlgemm.so.0; done
python3 bench/sweep_cells.py fp32,3xtf32,bf16,f16 NN,NT,TN,TT narrow 8,16 > /tmp/narrow.cells
nw() { local tag=$1 i=$2; shift 2; env "$@" timeout $(cap 40) $S --rerun /tmp/narrow.cells --below 9 > $O/narrow_${tag}_$i.log 2>&1; echo "$tag $i: $(grep '^sweep' $O/narrow_${tag}_$i.log)"; }
for i in 1 2; do nw head $i X=1; nw two $i LD_LIBRARY_PATH=/tmp/n2; nw dotr2 $i LD_LIBRARY_PATH=/tmp/d2; done
grep -E '^fp32 +.. odd' bench/results/session41/sweep/sweep_sample4_after_2.log > /tmp/odd.cells
ow() { local tag=$1; shift; env "$@" timeout $(cap 25) $S --rerun /tmp/odd.cells --below 9 > $O/odd_$tag.log 2>&1; echo "odd $tag: $(grep '^sweep' $O/odd_$tag.log)"; }
ow auto X=1; ow splits LD_LIBRARY_PATH=/tmp/sp; ow sk_on DLGEMM_SGEMM_STREAMK=on; ow sk_off DLGEMM_SGEMM_STREAMK=off
ow pad_off DLGEMM_PAD=off; ow pad_always DLGEMM_PAD=always
for t in 128x128 256x128 128x256 64x256 256x64 64x64; do ow $t DLGEMM_SGEMM_TILE=$t DLGEMM_SGEMM_STREAMK=off; done
ow auto2 X=1; ow splits2 LD_LIBRARY_PATH=/tmp/sp
fw() { local tag=$1; shift; env "$@" timeout $(cap 40) $S --only fp32 --sample 4 > $O/fp32_$tag.log 2>&1; echo "fp32 $tag: $(grep '^sweep' $O/fp32_$tag.log)"; grep '^class' $O/fp32_$tag.log | tr '\n' ' '; echo; }
fw splits_1 LD_LIBRARY_PATH=/tmp/sp; fw head_1 X=1; fw splits_2 LD_LIBRARY_PATH=/tmp/sp; fw head_2 X=1
timeout $(cap 200) $S --sample 4 > $O/sweep.log 2>&1; grep -E '^class|^sweep|below' $O/sweep.log | awk '$6+0 < 0.95 || /^sweep|below/'
timeout $(cap 150) compute-sanitizer --tool racecheck --error-exitcode 9 \
  --kernel-regex 'kns=dlg_(lu_|laswp|potrf_leaf|tri_add|trsm_leaf|unit_lower|householder|larft)' \
  build/conformance/test_lapack gpu > $O/racecheck_lapack.log 2>&1; echo "racecheck rc=$?"; tail -3 $O/racecheck_lapack.log
cd $O && tar czf a.tgz *.log
