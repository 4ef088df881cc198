# session 41, call 2: a forwarded call's cost, plain vs routed models on pinned CPUs (5 rounds), the sampled sweep on the H100
source tools/device-carry-env.sh && B=build && O=$OUT
nvidia-smi --query-gpu=name,clocks.sm --format=csv; nproc; python3 -c "import os; print(sorted(os.sched_getaffinity(0)))"
timeout $(cap 30) $B/bench/bench_overhead 64 > $O/overhead.log 2>&1; tail -12 $O/overhead.log
mkdir -p /tmp/cache_models
XDG_CACHE_HOME=/tmp/cache_models timeout $(cap 320) python3 bench/torch_models.py --rounds 5 --out /tmp/models > $O/torch_models.log 2>&1; echo "rc $?" >> $O/torch_models.log
tail -16 $O/torch_models.log
timeout $(cap 200) $S --sample 4 > $O/sweep_sample4.log 2>&1; echo "rc $?" >> $O/sweep_sample4.log
tail -40 $O/sweep_sample4.log
cd $O && tar czf children.tgz -C /tmp models 2>/dev/null; ls -la $O
