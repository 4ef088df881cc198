#!/bin/bash
# install-deps.sh - the Debian packages dlgemm's build and tests need.
# Safe to run repeatedly; installs only what is missing.  CUDA is optional
# (the toolkit is detected by CMake, and never needed at run time).
set -euo pipefail
pkgs=(build-essential cmake pkg-config gfortran check libsubunit-dev libdlpack-dev
      libblas3 libblas-dev libblas-test)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
