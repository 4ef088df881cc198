# shellcheck shell=bash
# device-mp-env.sh - sourced on the GPU machine, in the working tree's
# root, for ScaLAPACK over MPI with NVIDIA's distributed libraries: unpacks
# what tools/pack-devdeps.sh and tools/fetch-mp-wheels.sh left to carry
# (.devdeps.tar.xz, .whl/) once, and sets
#   MPIRUN, OPAL_PREFIX, PATH   Open MPI from .devdeps (run as root)
#   TESTERS                     ScaLAPACK's Open MPI testers' folder
#   MP_LIBS                     every folder of a lib*.so* in the wheels
#                               (.mp/) and in torch's nvidia/ (NCCL, NVSHMEM,
#                               the CUDA 13 runtime): what the engines dlopen
# The tests and benchmarks take MP_LIBS themselves (pdbench.sh,
# scalapack_bench.sh); scalapack_dist.sh wants it on LD_LIBRARY_PATH.
[ -f .devdeps/env.sh ] || tar -xJf .devdeps.tar.xz || python3 -m tarfile -e .devdeps.tar.xz .
# shellcheck source=/dev/null
source .devdeps/env.sh
_root=$PWD/.devdeps/root
export OPAL_PREFIX=$_root/usr PATH=$_root/usr/bin:$PATH MPIRUN=$_root/usr/bin/mpirun.openmpi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PMIX_MCA_pcompress_base_silence_warning=1
export TESTERS=$_root/usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests
if [ ! -d .mp ] && ls .whl/*.whl >/dev/null 2>&1; then
  mkdir .mp
  for _w in .whl/*.whl; do (cd .mp && python3 -m zipfile -e "../$_w" .); done
fi
_sp=$(python3 -c "import os, nvidia; print(os.path.dirname(list(nvidia.__path__)[0]))" 2>/dev/null)
MP_LIBS=$(find "$PWD/.mp" ${_sp:+"$_sp/nvidia"} -name 'lib*.so*' -printf '%h\n' 2>/dev/null |
  sort -u | paste -sd:)
export MP_LIBS
unset _root _w _sp
