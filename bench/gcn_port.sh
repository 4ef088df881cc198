#!/bin/bash
# gcn_port.sh - the GCN SGPR-broadcast design's CUDA port (DLGEMM_SGEMM_KERNEL=sgpr)
# against the SIMT kernel and cuBLAS, at M = N from 1024 to 8192 with the
# design's K = 640 and with K = N (GPU machine; cuBLAS runs in the same
# process as each dlgemm kernel, so every ratio is from one run).
#
# usage: bench/gcn_port.sh <build-dir> [reps]
set -u
build=$1 reps=${2:-10}
printf "%-6s %-6s %10s %10s %10s %8s %8s %9s\n" "M=N" "K" "sgpr" "simt" "cuBLAS" "sgpr/cB" "simt/cB" "sgpr err"
for n in 1024 2048 4096 8192; do
  for k in 640 $n; do
    # bench_sgemm's last line for one shape: kind op m n k dlgemm T cuBLAS T ratio err
    sgpr=$(DLGEMM_SGEMM_KERNEL=sgpr "$build/bench/bench_sgemm" "$reps" $n $n $k | awk '$3 ~ /^[0-9]+$/ {print $6, $8, $11}')
    simt=$("$build/bench/bench_sgemm" "$reps" $n $n $k | awk '$3 ~ /^[0-9]+$/ {print $6, $8}')
    set -- $sgpr $simt
    awk -v n=$n -v k=$k -v s=$1 -v cb1=$2 -v e=$3 -v t=$4 -v cb2=$5 'BEGIN {
      cb = (cb1 + cb2) / 2
      printf "%-6d %-6d %8.2f T %8.2f T %8.2f T %8.3f %8.3f %9s\n", n, k, s, t, cb, s / cb1, t / cb2, e }'
  done
done
echo "TFLOP/s: medians of $reps event-timed runs; each ratio against cuBLAS in the same process"
