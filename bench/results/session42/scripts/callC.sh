# session 42, call C (call B refused): FP64 plan_for's chunk counts past 8 (ext) against the current (cur) and session 38's rule (old38):
# reference LAPACK (dgeqrf, dgetrf, dormqr) one round of each, the sampled FP64 sweep cur / ext, the FP64 GPU tests on ext
CALL_CAP=${CALL_CAP:-300} && source tools/device-carry-env.sh && B=build && O=$OUT
for l in cur ext old38; do mkdir -p /tmp/$l && xz -dc s42/$l.so.0.xz > /tmp/$l/libdlgemm.so.0; done
nvidia-smi --query-gpu=name,clocks.sm --format=csv
lap() { echo "== $1 round $2"; LD_PRELOAD=/tmp/$1/libdlgemm.so.0 timeout $(cap 70) $B/bench/bench_lapack dgeqrf,dgetrf,dormqr 2048,8192,16384; }
for l in ext old38 cur; do lap $l 1; done > $O/lapack_abc.log 2>&1; cat $O/lapack_abc.log
LD_LIBRARY_PATH=/tmp/cur timeout $(cap 60) $S --sample 4 --only fp64 > $O/fp64_cur.log 2>&1
LD_LIBRARY_PATH=/tmp/ext timeout $(cap 60) $S --sample 4 --only fp64 > $O/fp64_ext.log 2>&1
grep "^sweep\|below" $O/fp64_*.log
cp /tmp/ext/libdlgemm.so.0 $B/libdlgemm.so.0.1.0
(cd $B && timeout $(cap 70) ctest -R "f64|dgemm_thin|dgemm_flat|lapack_gpu$" --output-on-failure > $O/ctest_f64.log 2>&1); tail -4 $O/ctest_f64.log
cd $O && tar czf c.tgz *.log && ls -la
