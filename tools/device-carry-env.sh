# shellcheck shell=bash
# device-carry-env.sh - sourced first in a GPU-machine call that carries a
# build made here (tools/pack-build.sh: build-carry.tar.xz) and .devdeps:
# unpacks the build once, links /work/main to this tree (ctest's files name
# that path), exports DLGEMM_LIBRARY and S (the sweep), and defines
#   cap N   the seconds a step may take: min(N, what is left of CALL_CAP,
#           default 570, counted from the first source), so that a step's
#           `timeout $(cap N)` never outlives the call
# usage, in a run's command: source tools/device-carry-env.sh && ...
cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1
# shellcheck source=/dev/null
source .devdeps/env.sh
[ -d build ] || tar -xJf build-carry.tar.xz
mkdir -p /work && ln -sfn "$PWD" /work/main
export DLGEMM_LIBRARY=$PWD/build/libdlgemm.so S=$PWD/build/bench/sweep
CALL_CAP=${CALL_CAP:-570}
T0=${T0:-$(date +%s)}
cap() {
  local left=$((CALL_CAP - ($(date +%s) - T0)))
  if [ "$1" -lt "$left" ]; then echo "$1"; else echo $((left > 1 ? left : 1)); fi
}
