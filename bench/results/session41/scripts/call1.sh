# session 41, call 1: capture patch's route test, plain vs routed models (3 rounds), the toggle (3 rounds), GPT-2 wgrad pins
source tools/device-carry-env.sh && B=build && O=$OUT
nvidia-smi --query-gpu=name,clocks.sm,power.limit --format=csv
XDG_CACHE_HOME=/tmp/cache_rt timeout $(cap 150) python3 conformance/python/test_cublas_route.py > $O/cublas_route.log 2>&1; echo "rc $?" >> $O/cublas_route.log
tail -14 $O/cublas_route.log
mkdir -p /tmp/cache_models
XDG_CACHE_HOME=/tmp/cache_models timeout $(cap 290) python3 bench/torch_models.py --rounds 3 --out /tmp/models > $O/torch_models.log 2>&1; echo "rc $?" >> $O/torch_models.log
tail -14 $O/torch_models.log
mkdir -p /tmp/cache_auto
XDG_CACHE_HOME=/tmp/cache_auto timeout $(cap 110) python3 bench/torch_models.py --toggle --rounds 3 \
  --only gpt_train,encoder_train --out /tmp/tog_auto > $O/toggle_auto.log 2>&1; echo "rc $?" >> $O/toggle_auto.log
for f in /tmp/cache_auto/dlgemm/rival-* /tmp/cache_models/dlgemm/rival-*; do echo "== $f"; python3 s41/rival_keys.py "$f"; done > $O/verdicts.log 2>&1
tail -8 $O/toggle_auto.log
for c in "bf16 NT 768 3072 8184" "bf16 NT 1024 1024 4096"; do
  for pin in "" 1 2 4 8; do
    echo "== $c | splits ${pin:-auto}"; DLGEMM_WGMMA_SPLITS=$pin timeout $(cap 15) $B/bench/bench_shapes 10 "$c" | tail -2
  done
done > $O/gpt_pins.log 2>&1
cat $O/gpt_pins.log | tail -30
cd $O && tar czf children.tgz -C /tmp models tog_auto 2>/dev/null; ls -la $O
