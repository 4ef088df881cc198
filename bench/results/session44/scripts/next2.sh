# session 45's second call: bench/attempts/narrow-two-blocks.patch (the axpy narrow kernels of 64
# accumulator registers at two blocks an SM, float32's 16 columns at 2 rows a lane) against HEAD on the
# sweep's narrow cells of 5-16 wide, alternating, twice; then session 43's `low` runs (its call2.sh's, for the classes left under 0.95).
# Carry .devdeps, build-carry.tar.xz and s45lib (s45lib/narrow2.so.0.xz: HEAD 456adad + the patch).
source tools/device-carry-env.sh && O=$OUT
mkdir -p /tmp/n2 && xz -dc s45lib/narrow2.so.0.xz > /tmp/n2/libdlgemm.so.0 && chmod +x /tmp/n2/libdlgemm.so.0
python3 bench/sweep_cells.py fp32,3xtf32,bf16,f16 NN,NT,TN,TT narrow 8,16 > /tmp/narrow.cells
for i in 1 2; do
  timeout $(cap 60) $S --rerun /tmp/narrow.cells --below 9 > $O/narrow_head_$i.log 2>&1; echo "head $i: $(grep '^sweep' $O/narrow_head_$i.log)"
  LD_LIBRARY_PATH=/tmp/n2 timeout $(cap 60) $S --rerun /tmp/narrow.cells --below 9 > $O/narrow_two_$i.log 2>&1; echo "two $i: $(grep '^sweep' $O/narrow_two_$i.log)"
done
L=bench/results/session41/sweep/sweep_sample4_after_2.log
low() { local t=$1 tag=$2; shift 2; env "$@" timeout $(cap 30) $S --rerun $L --below 0.95 --only $t > $O/low_${t}_$tag.log 2>&1; echo "$t $tag: $(grep '^sweep' $O/low_${t}_$tag.log)"; }
low tf32 auto X=1; low tf32 mma DLGEMM_HGEMM_KERNEL=mma; low tf32 n32 DLGEMM_NARROW32=on
low fp32 auto X=1; low fp32 n32 DLGEMM_NARROW32=on; low 3xtf32 auto X=1; low 3xtf32 n32 DLGEMM_NARROW32=on
# complex single products, where session 44's change did not reach: odd squares and narrow, each way pinned
cw() { local t=$1 f=$2 tag=$3; shift 3; env "$@" timeout $(cap 40) $S --only $t --family $f --sample 2 > $O/cw_${t}_${f}_$tag.log 2>&1; echo "$t $f $tag: $(grep '^sweep' $O/cw_${t}_${f}_$tag.log)"; }
for f in odd narrow; do cw c128 $f auto X=1; cw c128 $f native DLGEMM_CGEMM_WAY=native; cw c128 $f native32 DLGEMM_CGEMM_WAY=native DLGEMM_ZGEMM_TILE=32x32
  cw c64 $f auto X=1; cw c64 $f simt DLGEMM_CGEMM_WAY=simt; done
cd $O && tar czf n2.tgz *.log
