#!/bin/bash
# fetch-mp-wheels.sh - on the CPU machine, before a GPU run of the
# ScaLAPACK engines (DLGEMM_SCALAPACK=gpu): NVIDIA's cuSOLVERMp and
# cuBLASMp wheels from the package index into .whl/ (30 MB; git-excluded),
# the versions that run on the GPU machine's torch NCCL 2.28 and NVSHMEM
# 3.4 (bench/NOTES.md, "ScaLAPACK on two GPUs").  Carry ".whl" with
# .devdeps.tar.xz (tools/pack-devdeps.sh); tools/device-mp-env.sh unpacks
# them there.
set -euo pipefail
top=$(git rev-parse --show-toplevel)
cd "$top"
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >>.git/info/exclude
mkdir -p .whl
for w in nvidia-cusolvermp-cu13==0.8.0.3126 nvidia-cublasmp-cu13==0.7.0.125; do
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 312 \
    --platform manylinux_2_28_x86_64 -d .whl "$w"
done
du -sh .whl
