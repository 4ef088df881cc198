#!/bin/bash
# install-deps.sh - the Debian packages dlgemm's build and tests need.
# Safe to run repeatedly; installs only what is missing.  CUDA is optional
# (the toolkit is detected by CMake, and never needed at run time).
set -euo pipefail
pkgs=(build-essential cmake pkg-config gfortran check libsubunit-dev libdlpack-dev
      libblas3 libblas-dev libblas-test libblas64-3 liblapack3 liblapack-dev liblapack-test libtmglib3 python3 python3-numpy python3-matplotlib python3-pip python3-setuptools python3-wheel python3-venv hipcc
      clang libclang-rt-dev openmpi-bin libscalapack-openmpi2.2 scalapack-mpi-test)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# cuobjdump (and nvdisasm, which its -sass runs), for dlgemm-sass and the
# SASS gates: part of a full CUDA toolkit, missing from a compiler-only one;
# NVIDIA publishes both on PyPI.
# It goes to .deps/ in the checkout (CMake looks there), not the system.
root=$(cd "$(dirname "$0")/.." && pwd)
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  if ! command -v cuobjdump >/dev/null && [ ! -x /usr/local/cuda/bin/cuobjdump ] &&
     [ ! -x "$root/.deps/cuda-tools/nvidia/cu13/bin/nvdisasm" ]; then
    python3 -m pip --version >/dev/null 2>&1 ||
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-pip
    echo "install-deps: installing cuobjdump into $root/.deps/cuda-tools"
    python3 -m pip install -q --disable-pip-version-check --target "$root/.deps/cuda-tools" \
      "nvidia-cuda-cuobjdump==13.*" "nvidia-cuda-nvdisasm==13.*"
  fi
fi

# JAX on the CPU, for the XLA custom-call test (conformance/python/test_jax_ffi.py):
# from PyPI into .deps/jax (CMake points that test's PYTHONPATH there), for
# Debian's python3, which runs the Python tests.
if [ ! -d "$root/.deps/jax/jaxlib" ]; then
  echo "install-deps: installing jax (CPU) into $root/.deps/jax"
  /usr/bin/python3 -m pip install -q --disable-pip-version-check --target "$root/.deps/jax" \
    "jax[cpu]>=0.4.36,<0.11" || echo "install-deps: jax not installed; its test will skip"
fi
