# session 41, call 5: the stream floor for TF32 too? (variant library vs the 16-bit one, alternating); TF32 thin cells with 3 and 4 chunks pinned; bench_shapes (no regression)
source tools/device-carry-env.sh && B=build && O=$OUT
mkdir -p /tmp/v && xz -dc s41/tf32floor/libdlgemm.so.0.xz > /tmp/v/libdlgemm.so.0
nvidia-smi --query-gpu=name,clocks.sm --format=csv
run() { local tag=$1; shift; echo "=== $tag"; env "$@" timeout $(cap 40) $S --rerun s41/tf32thin.log --below 9 | grep -v "^class\|^type\|^family\|^type   op" ; }
{ run auto X=1; run s3 DLGEMM_WGMMA_SPLITS=3; run s4 DLGEMM_WGMMA_SPLITS=4; run variant LD_LIBRARY_PATH=/tmp/v; run auto2 X=1; run variant2 LD_LIBRARY_PATH=/tmp/v; } > $O/tf32thin_pins.log 2>&1
grep "^sweep\|^===" $O/tf32thin_pins.log
for i in 1 2; do
  timeout $(cap 40) $S --sample 4 --only tf32 > $O/tf32_cur_$i.log 2>&1
  LD_LIBRARY_PATH=/tmp/v timeout $(cap 40) $S --sample 4 --only tf32 > $O/tf32_var_$i.log 2>&1
done
grep "^sweep\|^class" $O/tf32_*.log
timeout $(cap 200) $B/bench/bench_shapes 10 > $O/bench_shapes.log 2>&1; tail -14 $O/bench_shapes.log
ls -la $O
