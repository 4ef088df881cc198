# session 41, call 3: pins over the fp32/3xTF32 narrow cells and the 16-bit/TF32 narrow and attention cells below 0.9 (H100 sweep of call 2), and the GPT-2/encoder wgrads
source tools/device-carry-env.sh && B=build && O=$OUT
nvidia-smi --query-gpu=name,clocks.sm --format=csv
run() { local tag=$1; shift; echo "=== $tag"; env "$@" timeout $(cap 60) $S --rerun $F --below 9 | grep -v "^class\|^type\|^family\|^sweep\|^type   op" ; }
F=s41/f32n.log
{ run auto X=1; run n32on DLGEMM_NARROW32=on; run skon DLGEMM_SGEMM_STREAMK=on; run skoff DLGEMM_SGEMM_STREAMK=off
  run t64x64 DLGEMM_SGEMM_TILE=64x64; run t256x64 DLGEMM_SGEMM_TILE=256x64; run t64x256 DLGEMM_SGEMM_TILE=64x256; run t128 DLGEMM_SGEMM_TILE=128x128; } > $O/f32n_pins.log 2>&1
tail -3 $O/f32n_pins.log
F=s41/h16n.log
{ run auto X=1; for w in 256 128 192 192x192 64 64r; do run w$w DLGEMM_WGMMA_WIDTH=$w; done
  for s in 1 2 4; do run s$s DLGEMM_WGMMA_SPLITS=$s; done; run w64s2 DLGEMM_WGMMA_WIDTH=64 DLGEMM_WGMMA_SPLITS=2; run w64rs2 DLGEMM_WGMMA_WIDTH=64r DLGEMM_WGMMA_SPLITS=2; } > $O/h16n_pins.log 2>&1
tail -3 $O/h16n_pins.log
for c in "bf16 NT 768 3072 8184" "bf16 NT 1024 1024 4096" "bf16 NT 3072 768 8184" "bf16 NN 1024 4096 1024"; do
  for w in auto 256 128 192 192x192; do for pin in "" 1 2 4; do
    r=$(DLGEMM_WGMMA_WIDTH=$w DLGEMM_WGMMA_SPLITS=$pin timeout $(cap 15) $B/bench/bench_shapes 10 "$c" | grep "^geometric" | awk '{print $6}')
    echo "$c | width $w splits ${pin:-auto} | $r"
  done; done
done > $O/wgrad_pins.log 2>&1
cat $O/wgrad_pins.log | head -80
ls -la $O
