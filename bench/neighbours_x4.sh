#!/bin/bash
# neighbours_x4.sh - issue 53's long runs on a machine of four GPUs, side by
# side, in one hold: the soak with faults at random on GPU 1 (SOAK_S, default
# 1260 s), 8 then 2 processes of 16 threads sharing GPU 2 and 4 sharing GPU 3
# (SHARE_S each, default 600 s), every answer checked (conformance/soak).
# On a machine of two or three GPUs only GPU 1's runs are made, one after
# the other: for each count in $SHARE_PROCS (default 2; "8 4" takes two
# SHARE_S in turn) that many processes of 16 threads for SHARE_S.
# A device call lasts 10 minutes at most, so `start` leaves them running in
# their own sessions (setsid: they outlive the call, not the machine) and
# returns; later calls run other work on GPU 0 and `wait` collects.  The
# runs are pinned to all cores but the last 20 (12 of 16-40), which GPU 0's work gets
# (`taskset -c $(bench/neighbours_x4.sh cores)`), so that timings there see
# a quieter host.
#
# usage: neighbours_x4.sh start BUILD | wait [SECONDS] | cores
#   start: needs BUILD/conformance/soak; logs in $NEIGHBOURS_DIR (/tmp/neighbours)
#   wait:  until every run has ended or SECONDS (default 540) passed; prints
#          each run's summary; copies the logs to $OUT/neighbours.tgz
set -u
dir=${NEIGHBOURS_DIR:-/tmp/neighbours}
cores=$(nproc)
keep=$((cores > 40 ? 20 : cores >= 16 ? 12 : 0)) # cores left to GPU 0's work
background="0-$((cores - keep - 1))"
case ${1:-} in
cores)
  echo "$((keep > 0 ? cores - keep : 0))-$((cores - 1))"
  ;;
start)
  soak=$(realpath "${2:?usage: neighbours_x4.sh start BUILD}")/conformance/soak
  [ -x "$soak" ] || { echo "neighbours_x4.sh: no $soak"; exit 1; }
  gpus=$(nvidia-smi -L | wc -l)
  [ "$gpus" -ge 2 ] || { echo "neighbours_x4.sh: fewer than 2 GPUs"; exit 1; }
  mkdir -p "$dir"
  run() { # name, GPU, injected faults ("" for none), the soak's arguments; pid in $dir/name.pid
    local name=$1 gpu=$2 fault=$3
    shift 3
    # shellcheck disable=SC2016 # expanded by the inner shell
    setsid bash -c 'echo $$ > "$1.pid"; shift; exec "$@"' _ "$dir/$name" \
      env CUDA_VISIBLE_DEVICES="$gpu" ${fault:+DLGEMM_INJECT_FAULT=$fault} \
      taskset -c "$background" "$soak" run "$@" >"$dir/$name.log" 2>&1 </dev/null &
  }
  if [ "$gpus" -lt 4 ]; then
    # shellcheck disable=SC2016 # expanded by the inner shell
    setsid bash -c 'echo $$ > "$1/share_gpu1.pid"; dir=$1 cores=$2 soak=$3 s=$4; shift 4
      for p in "$@"; do
        env CUDA_VISIBLE_DEVICES=1 taskset -c "$cores" "$soak" run "$s" "$p" 16 >"$dir/share_$p.log" 2>&1
      done' _ "$dir" "$background" "$soak" "${SHARE_S:-600}" ${SHARE_PROCS:-2} \
      </dev/null >/dev/null 2>&1 &
    sleep 3
    date +%s >"$dir/started"
    echo "started: ${SHARE_PROCS:-2} processes (in turn) on GPU 1 for ${SHARE_S:-600} s each," \
      "on cores $background"
    exit 0
  fi
  run faults 1 random:40 "${SOAK_S:-1260}" 4 16
  run share_4 3 "" "${SHARE_S:-600}" 4 16
  # 8 processes, then 2, on GPU 2, one after the other
  # shellcheck disable=SC2016 # expanded by the inner shell
  setsid bash -c 'echo $$ > "$1/share_8_2.pid"
    env CUDA_VISIBLE_DEVICES=2 taskset -c "$2" "$3" run "$4" 8 16 > "$1/share_8.log" 2>&1
    env CUDA_VISIBLE_DEVICES=2 taskset -c "$2" "$3" run "$4" 2 16 > "$1/share_2.log" 2>&1' \
    _ "$dir" "$background" "$soak" "${SHARE_S:-600}" </dev/null >/dev/null 2>&1 &
  sleep 3
  date +%s >"$dir/started"
  echo "started: faults on GPU 1 for ${SOAK_S:-1260} s, 8 then 2 processes on GPU 2 and 4 on GPU 3" \
       "for ${SHARE_S:-600} s each, on cores $background; logs in $dir"
  ;;
wait)
  until=$((SECONDS + ${2:-540}))
  running() {
    local p
    for p in "$dir"/*.pid; do kill -0 "$(cat "$p")" 2>/dev/null && return 0; done
    return 1
  }
  while running && [ $SECONDS -lt $until ]; do sleep 3; done
  running && echo "still running, $(($(date +%s) - $(cat "$dir/started"))) s after the start"
  for log in "$dir"/*.log; do
    echo "== $(basename "$log" .log)"
    grep -E "^(soak|process|GPU memory|host-model|FAIL)|WRONG|incomplete" "$log" | cut -c1-220
  done
  [ -n "${OUT:-}" ] && tar czf "$OUT/neighbours.tgz" -C "$dir" .
  ;;
*)
  sed -n '2,/^set -u/p' "$0" | sed '$d'
  exit 2
  ;;
esac
