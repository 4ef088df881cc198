# visible_gpus.sh - sourced by the multi-rank tests: visible_gpus prints how
# many GPUs a process here can use, nvidia-smi's count narrowed by
# CUDA_VISIBLE_DEVICES where it is set (one visible GPU puts every rank on
# it, and the tests must expect that, not one GPU a rank).
visible_gpus() {
  local n v
  n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
    v=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
    [ "$v" -lt "$n" ] && n=$v
  fi
  echo "$n"
}
