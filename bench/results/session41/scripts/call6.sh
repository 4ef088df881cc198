# session 41, call 6: what auto plans for TF32 thin products (verbose), against 4 chunks pinned
source tools/device-carry-env.sh && B=build && O=$OUT
for c in "tf32 NN 4096 16 4096" "tf32 TT 4096 32 4096" "tf32 NT 4096 48 4096"; do
  for pin in "" 4; do echo "== $c splits ${pin:-auto}"; DLGEMM_VERBOSE=1 DLGEMM_WGMMA_SPLITS=$pin timeout $(cap 20) $B/bench/bench_shapes 3 "$c" 2>&1 | grep -v "^  *$" | sort | uniq -c | sort -rn | head -6; done
done > $O/tf32_verbose.log 2>&1; cat $O/tf32_verbose.log
