#!/bin/bash
# pack-build.sh - a build made here, for a GPU run that needs no build there
# (the device's own build of everything takes minutes of its 30): BUILD's
# tree without objects, generated sources and SASS listings, its ELF files
# stripped, as one xz tarball (10 MB; build-carry.tar.xz in the working
# tree's root, git-excluded).  Carry it and, on the GPU machine, begin with
#   tar xJf build-carry.tar.xz && mkdir -p /work && ln -sfn "$PWD" /work/main
# (ctest's files name this machine's paths: the link makes them true there
# when the tree is /work/main here).
#
# usage: tools/pack-build.sh [BUILD]   (default build)
set -euo pipefail
top=$(git rev-parse --show-toplevel)
cd "$top"
build=${1:-build}
grep -qx '/build-carry.tar.xz' .git/info/exclude 2>/dev/null ||
  echo '/build-carry.tar.xz' >>.git/info/exclude
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# nested build trees (tools/sanitize.sh's) stay behind
nested=$(find "$build" -mindepth 2 -name CMakeCache.txt -printf '%h\n')
find "$build" -path '*/CMakeFiles' -prune -o \( -type f -o -type l \) -print |
  grep -vE '\.(o|c|co|a|sass|log)$' | grep -v '/Testing/' |
  grep -vF "${nested:-/nothing nested/}" | tar cf - -T - | tar xf - -C "$stage"
find "$stage" -type f -exec sh -c 'file -b "$1" | grep -q "^ELF" && strip "$1"' _ {} \; 2>/dev/null
tar cf - -C "$stage" "$build" | xz -T0 -6 >build-carry.tar.xz
du -h build-carry.tar.xz
