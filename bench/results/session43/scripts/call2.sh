# session 43, call 2 (call 1 never started): the LU panel kernel (build = HEAD + lu_panel, "lup") checked (ctest's LAPACK
# tests, netlib's xlintstd / xlintsts under LD_PRELOAD), then the reference LAPACK program under LD_PRELOAD with lup / ext (FP64 chunk
# counts to 64) / old38 (session 38's dgemm.c) / cur (HEAD), two rounds in opposite orders; the sampled FP64 sweep cur / ext;
# session 41's cells under 0.95 again, auto and with each other kernel family pinned; ncu of the narrow FP32 and low complex cells
CALL_CAP=${CALL_CAP:-450} && source tools/device-carry-env.sh && B=build && O=$OUT
for l in cur ext old38; do mkdir -p /tmp/$l && xz -dc s43/$l.so.0.xz > /tmp/$l/libdlgemm.so.0; done
mkdir -p /tmp/lup && cp $B/libdlgemm.so.0.1.0 /tmp/lup/libdlgemm.so.0
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
(cd $B && timeout $(cap 150) ctest -R "lapack_gpu|lapack_xlintst" --timeout 140 --output-on-failure > $O/ctest_lapack.log 2>&1); tail -12 $O/ctest_lapack.log
lap() { echo "== $1 $2"; LD_PRELOAD=/tmp/$1/libdlgemm.so.0 timeout $(cap 60) $B/bench/bench_lapack dgetrf,dgeqrf 1024,4096,8192,16384; }
for l in ext old38 cur lup; do lap $l 1; done > $O/lapack_1.log 2>&1; grep -E "==|16384|8192" $O/lapack_1.log
LD_LIBRARY_PATH=/tmp/cur timeout $(cap 45) $S --sample 4 --only fp64 > $O/fp64_cur.log 2>&1
LD_LIBRARY_PATH=/tmp/ext timeout $(cap 45) $S --sample 4 --only fp64 > $O/fp64_ext.log 2>&1
grep "^sweep\|below" $O/fp64_*.log
for l in lup cur ext old38; do lap $l 2; done > $O/lapack_2.log 2>&1; grep -E "==|16384|8192" $O/lapack_2.log
L=bench/results/session41/sweep/sweep_sample4_after_2.log
low() { local t=$1 tag=$2; shift 2; env "$@" timeout $(cap 30) $S --rerun $L --below 0.95 --only $t > $O/low_${t}_$tag.log 2>&1; echo "$t $tag: $(grep '^sweep' $O/low_${t}_$tag.log)"; }
low c128 auto X=1; low c128 native DLGEMM_CGEMM_WAY=native
low c64 auto X=1; low c64 native DLGEMM_CGEMM_WAY=native; low c64 simt DLGEMM_CGEMM_WAY=simt
low tf32 auto X=1; low tf32 mma DLGEMM_HGEMM_KERNEL=mma; low tf32 n32 DLGEMM_NARROW32=on
low fp32 auto X=1; low fp32 n32 DLGEMM_NARROW32=on; low 3xtf32 auto X=1; low 3xtf32 n32 DLGEMM_NARROW32=on
for c in "fp32 NN 4096 16 4096" "fp32 NT 4096 32 4096"; do echo "=== $c"; DLGEMM_VERBOSE=1 timeout $(cap 10) $B/bench/bench_shapes 5 "$c" 2>&1 | grep -E "^shape  |dlgemm:" | sort | uniq -c | head -3
  timeout $(cap 40) ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats -k regex:dlg -c 2 $B/bench/bench_shapes 1 "$c" 2>&1 | grep -vE "^==PROF==|^    -{5}" | head -120; done > $O/narrow_ncu.log 2>&1; grep -E "===|Duration|DRAM Through|Achieved Occ|Registers Per|Grid Size" $O/narrow_ncu.log | head -30
cd $O && tar czf c2.tgz *.log && ls -la
