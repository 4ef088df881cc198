#!/bin/bash
# sweep.sh - the benchmark once per SIMT tile pinned with DLGEMM_SGEMM_TILE
# and once as routed, so a change to a kernel or to route_pick_kernel's cost
# model is judged on every tile in one run (GPU machine).
#
# usage: bench/sweep.sh <build-dir> [reps] [tiles...]   (tiles default: all)
set -u
build=$1 reps=${2:-10}
shift $(( $# < 2 ? $# : 2 ))
tiles=${*:-auto 128x256 256x128 128x128 64x256 256x64 64x64}
for tile in $tiles; do
  echo "== DLGEMM_SGEMM_TILE=$tile"
  DLGEMM_SGEMM_TILE=$tile "$build/bench/bench_sgemm" "$reps"
done
