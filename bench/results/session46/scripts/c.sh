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
mkdir -p /tmp/lw && xz -dc s46lib/lastwave.so.0.xz > /tmp/lw/libdlgemm.so.0
grep -E '^fp32 +.. odd' bench/results/session41/sweep/sweep_sample4_after_2.log > /tmp/odd.cells
ow() { local tag=$1; shift; env "$@" timeout $(cap 12) $S --rerun /tmp/odd.cells --below 9 > $O/odd_$tag.log 2>&1; echo "odd $tag: $(grep '^sweep' $O/odd_$tag.log)"; }
base=$LD_LIBRARY_PATH # .devdeps' libraries, kept behind each library under test
ow head_1 X=1; ow lastwave_1 LD_LIBRARY_PATH=/tmp/lw:$base; ow head_2 X=1; ow lastwave_2 LD_LIBRARY_PATH=/tmp/lw:$base
while read -r t op m n k; do for lib in head lw; do
  p=$base; [ $lib = lw ] && p=/tmp/lw:$base
  LD_LIBRARY_PATH=$p timeout $(cap 8) build/bench/bench_shapes 10 "$t $op $m $n $k" | grep '^shape' | sed "s/^/$lib /"
done; done < bench/results/session46/scripts/lastwave_shapes.txt > $O/random.log 2>&1
awk '{r[$1]+=log($(NF-1)); c[$1]++} END {for (l in r) print l, "geomean", exp(r[l]/c[l]), "over", c[l]}' $O/random.log
mkdir -p /tmp/t2 && xz -dc s46lib/tiles128x64.so.0.xz > /tmp/t2/libdlgemm.so.0
for tile in 128x64 64x128; do LD_LIBRARY_PATH=/tmp/t2:$base DLGEMM_SGEMM_TILE=$tile timeout $(cap 40) build/conformance/test_cuda > $O/test_cuda_$tile.log 2>&1
  echo "test_cuda pinned $tile rc=$?"; tail -1 $O/test_cuda_$tile.log; done
tw() { local t=$1 f=$2 tag=$3; shift 3; env "$@" timeout $(cap 40) $S --only $t --family $f > $O/tw_${t}_${f}_$tag.log 2>&1; echo "$t $f $tag: $(grep '^sweep' $O/tw_${t}_${f}_$tag.log)"; }
for t in fp32 3xtf32; do for f in attention batched; do
  tw $t $f head X=1; tw $t $f tiles LD_LIBRARY_PATH=/tmp/t2:$base
done; done
cd $O && tar czf c.tgz *.log
