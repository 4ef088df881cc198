# session 43, call 1: QR/LU under LD_PRELOAD, ext (FP64 chunk counts to 64) / old38 / cur, two rounds (order ext, old38, cur);
# sampled FP64 sweep cur / ext; session 41's cells under 0.95 again, auto and with each other kernel family pinned (complex native / FFMA, TF32 mma, FP32 32-column bucket);
# the low complex / TF32 cells: plans and ncu kernels (ours and cuBLAS's)
source tools/device-carry-env.sh && B=build && O=$OUT
for l in cur ext old38; do mkdir -p /tmp/$l && xz -dc s43/$l.so.0.xz > /tmp/$l/libdlgemm.so.0; done
nvidia-smi --query-gpu=name,clocks.sm --format=csv
for r in 1 2; do for l in ext old38 cur; do echo "== $l round $r"; LD_PRELOAD=/tmp/$l/libdlgemm.so.0 timeout $(cap 75) $B/bench/bench_lapack dgeqrf,dgetrf 1024,2048,4096,8192,16384; done; done > $O/lapack_abc.log 2>&1; grep -E "==|16384|8192" $O/lapack_abc.log
LD_LIBRARY_PATH=/tmp/cur timeout $(cap 45) $S --sample 4 --only fp64 > $O/fp64_cur.log 2>&1
LD_LIBRARY_PATH=/tmp/ext timeout $(cap 45) $S --sample 4 --only fp64 > $O/fp64_ext.log 2>&1
grep "^sweep\|below" $O/fp64_*.log
L=bench/results/session41/sweep/sweep_sample4_after_2.log
low() { local t=$1 tag=$2; shift 2; env "$@" timeout $(cap 30) $S --rerun $L --below 0.95 --only $t > $O/low_${t}_$tag.log 2>&1; echo "$t $tag: $(grep '^sweep' $O/low_${t}_$tag.log)"; }
low c128 auto X=1; low c128 native DLGEMM_CGEMM_WAY=native
low c64 auto X=1; low c64 native DLGEMM_CGEMM_WAY=native; low c64 simt DLGEMM_CGEMM_WAY=simt
low tf32 auto X=1; low tf32 mma DLGEMM_HGEMM_KERNEL=mma; low tf32 n32 DLGEMM_NARROW32=on
low fp32 auto X=1; low fp32 n32 DLGEMM_NARROW32=on; low 3xtf32 auto X=1; low 3xtf32 n32 DLGEMM_NARROW32=on
for c in "fp32 NN 4096 16 4096" "fp32 NT 4096 32 4096"; do echo "=== $c"; DLGEMM_VERBOSE=1 timeout $(cap 10) $B/bench/bench_shapes 5 "$c" 2>&1 | grep -E "^shape  |dlgemm:" | sort | uniq -c | head -3
  timeout $(cap 40) ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats -k regex:dlg -c 2 $B/bench/bench_shapes 1 "$c" 2>&1 | grep -vE "^==PROF==|^    -{5}" | head -120; done > $O/narrow_ncu.log 2>&1; grep -E "===|Duration|DRAM Through|Achieved Occ|Registers Per|Block Size|Grid Size" $O/narrow_ncu.log | head -40
for c in "c128 TT 2048 128 2048 16 0" "c128 NT 1024 64 1024 64 0" "c128 TT 24 4096 4096 1 1" "c64 NT 16 4096 4096 1 1" "tf32 NT 256 128 256 1024 0"; do
  echo "=== $c"; DLGEMM_VERBOSE=1 timeout $(cap 15) $B/bench/bench_shapes 10 "$c" 2>&1 | grep -E "^shape  |dlgemm:" | sort | uniq -c | head -4
  timeout $(cap 30) ncu --metrics gpu__time_duration.sum $B/bench/bench_shapes 2 "$c" 2>&1 | grep -E "^  [A-Za-z_]|gpu__time" | sed 's/(.*//' | paste - - | awk '{print $1, $NF}' | sort | uniq -c | head -8
done > $O/cells.log 2>&1; head -c 5000 $O/cells.log
cd $O && tar czf c1.tgz *.log && ls -la
