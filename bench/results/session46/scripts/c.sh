# the next session's first call (session 46 had too little device time left to start one):
# bench/attempts/sgemm-last-wave.patch (any count of splits, the last wave charged by its fullest
# SM) against HEAD on FP32's odd squares, alternating twice, then on lastwave_shapes.txt (30 random
# FP32 shapes, 17-6000 a side, whose plan the patch changes by a host replica of the model), each
# shape on both libraries in turn; then bench/attempts/sgemm-128x64-tiles.patch rebuilt in full
# (session 46's failures came from a library built by a partial rebuild, it seems: the patch
# changes DLG_TILES and with it struct dlg_cuda_device): test_cuda with each new tile pinned, then
# FP32 and 3xTF32 attention and batched cells, HEAD and the patch alternating.  Carry .devdeps,
# build-carry.tar.xz (tools/pack-build.sh from HEAD) and s46lib (lastwave.so.0.xz and
# tiles128x64.so.0.xz: HEAD + each patch).
source tools/device-carry-env.sh && O=$OUT
source bench/results/session46/scripts/lastwave.sh s46lib/lastwave.so.0.xz # sets base
mkdir -p /tmp/t2 && xz -dc s46lib/tiles128x64.so.0.xz > /tmp/t2/libdlgemm.so.0
for tile in 128x64 64x128; do LD_LIBRARY_PATH=/tmp/t2:$base DLGEMM_SGEMM_TILE=$tile timeout $(cap 40) build/conformance/test_cuda > $O/test_cuda_$tile.log 2>&1
  echo "test_cuda pinned $tile rc=$?"; tail -1 $O/test_cuda_$tile.log; done
tw() { local t=$1 f=$2 tag=$3; shift 3; env "$@" timeout $(cap 40) $S --only $t --family $f > $O/tw_${t}_${f}_$tag.log 2>&1; echo "$t $f $tag: $(grep '^sweep' $O/tw_${t}_${f}_$tag.log)"; }
for t in fp32 3xtf32; do for f in attention batched; do
  tw $t $f head X=1; tw $t $f tiles LD_LIBRARY_PATH=/tmp/t2:$base
done; done
cd $O && tar czf c.tgz *.log
