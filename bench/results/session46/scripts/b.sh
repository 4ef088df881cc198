# session 46's second call, ran (logs in ../b/): session 44's next2.sh and next3.sh, but for the
# narrow A/B (a.sh's), most wanted first:
# (1) ncu of GEMV cells (FP32 and complex64, ours and cuBLAS's); (2)
# bench/attempts/sgemm-128x64-tiles.patch: test_cuda with each new tile pinned, then FP32 and 3xTF32
# attention and batched cells: HEAD, the patch auto, each tile pinned; (3) session 43's `low` runs
# (session 41's cells under 0.95, TF32 / FP32 / 3xTF32, pinned); (4) complex odd / narrow single
# products with each way pinned.  Carry .devdeps, build-carry.tar.xz and s45lib.
source tools/device-carry-env.sh && O=$OUT
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.log
mkdir -p /tmp/t2 && xz -dc s45lib/tiles128x64.so.0.xz > /tmp/t2/libdlgemm.so.0
nc() { echo "=== $*"; timeout $(cap 40) ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis -k regex:"dlg|gemv|gemm|dot" -c 4 build/bench/bench_shapes 1 "$*" 2>&1 | grep -vE "^==PROF==|^    -{5}"; }
{ nc fp32 NN 1 4096 4096; nc c64 NN 1 4096 4096; nc c64 NT 4096 1 4096; } > $O/gemv_ncu.log 2>&1
grep -E "^===|^  [a-z_0-9]+.*\(|Duration|DRAM Throughput|Registers Per|Grid Size|Achieved Occupancy" $O/gemv_ncu.log | head -40
for tile in 128x64 64x128; do LD_LIBRARY_PATH=/tmp/t2 DLGEMM_SGEMM_TILE=$tile timeout $(cap 40) build/conformance/test_cuda 40 > $O/test_cuda_$tile.log 2>&1
  echo "test_cuda pinned $tile rc=$?"; tail -1 $O/test_cuda_$tile.log; done
tw() { local t=$1 f=$2 tag=$3; shift 3; env "$@" timeout $(cap 40) $S --only $t --family $f > $O/tw_${t}_${f}_$tag.log 2>&1; echo "$t $f $tag: $(grep '^sweep' $O/tw_${t}_${f}_$tag.log)"; }
for t in fp32 3xtf32; do for f in attention batched; do
  tw $t $f head X=1; tw $t $f tiles LD_LIBRARY_PATH=/tmp/t2
  tw $t $f pin128x64 LD_LIBRARY_PATH=/tmp/t2 DLGEMM_SGEMM_TILE=128x64; tw $t $f pin64x128 LD_LIBRARY_PATH=/tmp/t2 DLGEMM_SGEMM_TILE=64x128
done; done
L=bench/results/session41/sweep/sweep_sample4_after_2.log
low() { local t=$1 tag=$2; shift 2; env "$@" timeout $(cap 30) $S --rerun $L --below 0.95 --only $t > $O/low_${t}_$tag.log 2>&1; echo "$t $tag: $(grep '^sweep' $O/low_${t}_$tag.log)"; }
low tf32 auto X=1; low tf32 mma DLGEMM_HGEMM_KERNEL=mma; low tf32 n32 DLGEMM_NARROW32=on
low fp32 auto X=1; low fp32 n32 DLGEMM_NARROW32=on; low 3xtf32 auto X=1; low 3xtf32 n32 DLGEMM_NARROW32=on
cw() { local t=$1 f=$2 tag=$3; shift 3; env "$@" timeout $(cap 30) $S --only $t --family $f --sample 2 > $O/cw_${t}_${f}_$tag.log 2>&1; echo "$t $f $tag: $(grep '^sweep' $O/cw_${t}_${f}_$tag.log)"; }
for f in odd narrow; do cw c128 $f auto X=1; cw c128 $f native DLGEMM_CGEMM_WAY=native; cw c128 $f native32 DLGEMM_CGEMM_WAY=native DLGEMM_ZGEMM_TILE=32x32
  cw c64 $f auto X=1; cw c64 $f simt DLGEMM_CGEMM_WAY=simt; done
cd $O && tar czf b.tgz *.log
