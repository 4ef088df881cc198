# session 42, call D (calls B, C refused; 300 s left): QR's products with FP64 chunk counts past 8 (ext) against HEAD (cur) and session 38's rule (old38); the sampled FP64 sweep cur / ext
CALL_CAP=${CALL_CAP:-200} && source tools/device-carry-env.sh && B=build && O=$OUT
for l in cur ext old38; do mkdir -p /tmp/$l && xz -dc s42/$l.so.0.xz > /tmp/$l/libdlgemm.so.0; done
nvidia-smi --query-gpu=name,clocks.sm --format=csv
for l in ext old38 cur; do echo "== $l"; LD_PRELOAD=/tmp/$l/libdlgemm.so.0 timeout $(cap 40) $B/bench/bench_lapack dgeqrf,dgetrf 8192,16384; done > $O/lapack_abc.log 2>&1; cat $O/lapack_abc.log
LD_LIBRARY_PATH=/tmp/cur timeout $(cap 45) $S --sample 4 --only fp64 > $O/fp64_cur.log 2>&1
LD_LIBRARY_PATH=/tmp/ext timeout $(cap 45) $S --sample 4 --only fp64 > $O/fp64_ext.log 2>&1
grep "^sweep\|below" $O/fp64_*.log
cd $O && tar czf d.tgz *.log && ls -la
