# session 45's third call: bench/attempts/sgemm-128x64-tiles.patch (SIMT tiles of 128 x 64 and 64 x 128,
# 32 accumulators a thread, two blocks an SM; ptxas: no spill; their model efficiency a provisional
# 0.55) against HEAD on FP32 / 3xTF32 attention and batched cells: HEAD auto, the patch auto, and each
# new tile pinned.  Carry .devdeps, build-carry.tar.xz and s45lib (tiles128x64.so.0.xz: HEAD + the patch).
source tools/device-carry-env.sh && O=$OUT
mkdir -p /tmp/t2 && xz -dc s45lib/tiles128x64.so.0.xz > /tmp/t2/libdlgemm.so.0 && chmod +x /tmp/t2/libdlgemm.so.0
for tile in 128x64 64x128; do LD_LIBRARY_PATH=/tmp/t2 DLGEMM_SGEMM_TILE=$tile timeout $(cap 60) build/conformance/test_cuda 40 > $O/test_cuda_$tile.log 2>&1
  echo "test_cuda pinned $tile rc=$?"; tail -1 $O/test_cuda_$tile.log; done
tw() { local t=$1 f=$2 tag=$3; shift 3; env "$@" timeout $(cap 45) $S --only $t --family $f > $O/tw_${t}_${f}_$tag.log 2>&1; echo "$t $f $tag: $(grep '^sweep' $O/tw_${t}_${f}_$tag.log)"; }
for t in fp32 3xtf32; do for f in attention batched; do
  tw $t $f head X=1; tw $t $f tiles LD_LIBRARY_PATH=/tmp/t2
  tw $t $f pin128x64 LD_LIBRARY_PATH=/tmp/t2 DLGEMM_SGEMM_TILE=128x64; tw $t $f pin64x128 LD_LIBRARY_PATH=/tmp/t2 DLGEMM_SGEMM_TILE=64x128
done; done
cd $O && tar czf n3.tgz *.log
