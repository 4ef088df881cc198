# session 42, call A: the floor restructured (one chunk or the split only): bf16/f16 sampled cells against HEAD's library, alternating;
# auto plans at 4096 wide (new vs HEAD) and 1-4 chunks pinned; TF32 thin auto vs SPLITS=4 (reps, ncu); reference LAPACK, old dgemm plan vs new
source tools/device-carry-env.sh && B=build && O=$OUT
mkdir -p /tmp/head /tmp/o38 && xz -dc s42/oldhead.so.0.xz > /tmp/head/libdlgemm.so.0 && xz -dc s42/old38.so.0.xz > /tmp/o38/libdlgemm.so.0
nvidia-smi --query-gpu=name,clocks.sm --format=csv; which nsys ncu
for t in bf16 f16; do
  timeout $(cap 50) $S --sample 4 --only $t > $O/${t}_new.log 2>&1
  LD_LIBRARY_PATH=/tmp/head timeout $(cap 50) $S --sample 4 --only $t > $O/${t}_head.log 2>&1
  grep "^sweep\|below" $O/${t}_new.log $O/${t}_head.log
done
one() { local tag=$1 c=$2; shift 2; echo "== $c | $tag"; env "$@" DLGEMM_VERBOSE=1 timeout $(cap 15) $B/bench/bench_shapes 10 "$c" 2>&1 | grep -E "^shape  |chunk" | sed 's/ [0-9.]* ms .*//' | sort | uniq -c | head -3; }
for c in "bf16 NN 4096 32 4096" "bf16 NN 32 4096 4096" "bf16 TT 4096 32 4096" "bf16 NT 4096 64 4096" "f16 TN 64 4096 4096"; do
  one new "$c" X=1; one head "$c" LD_LIBRARY_PATH=/tmp/head
  for p in 1 2 3 4; do one s$p "$c" DLGEMM_WGMMA_SPLITS=$p; done
done > $O/w4096.log 2>&1; grep -c "==" $O/w4096.log
for c in "tf32 NN 4096 16 4096" "tf32 TT 4096 32 4096"; do
  for r in 1 2 3; do for p in "" 4; do echo "== $c splits ${p:-auto} round $r"; DLGEMM_WGMMA_SPLITS=$p timeout $(cap 10) $B/bench/bench_shapes 20 "$c" | grep "^shape  "; done; done
  for p in "" 4; do echo "== ncu $c splits ${p:-auto}"; DLGEMM_WGMMA_SPLITS=$p timeout $(cap 40) ncu --metrics gpu__time_duration.sum -k regex:dlg $B/bench/bench_shapes 3 "$c" > $O/ncu_${c// /_}_${p:-auto}.log 2>&1; grep -E "^  [a-z_]|gpu__time" $O/ncu_${c// /_}_${p:-auto}.log | sed 's/(.*//' | paste - - | awk '{print $1, $NF}' | tail -10; done
done > $O/tf32.log 2>&1; cat $O/tf32.log | head -40
for r in 1 2; do
  for lib in new o38; do
    L=$PWD/build/libdlgemm.so.0; [ $lib = o38 ] && L=/tmp/o38/libdlgemm.so.0
    echo "== $lib round $r"; LD_PRELOAD=$L timeout $(cap 90) $B/bench/bench_lapack dgetrf,dpotrf,dgeqrf 1024,2048,4096,8192,16384
  done
done > $O/lapack_ab.log 2>&1; cat $O/lapack_ab.log
cd $O && tar czf a.tgz *.log && ls -la
