#!/bin/bash
# pack-devdeps.sh - .devdeps (the Debian packages shared/device/prepare
# unpacks for the GPU machine) as one xz tarball, .devdeps.tar.xz, for runs
# whose packages pass the 64 MiB a device call carries: Open MPI, ScaLAPACK
# and OpenBLAS together (tools/prepare-scalapack.sh libopenblas0-pthread)
# are 90 MB unpacked, 19 MB packed.
# On the GPU machine: carry [".devdeps.tar.xz"] and begin with
#   (tar -xJf .devdeps.tar.xz || python3 -m tarfile -e .devdeps.tar.xz .) && source .devdeps/env.sh
set -euo pipefail
top=$(git rev-parse --show-toplevel)
cd "$top"
[ -d .devdeps ] || { echo "pack-devdeps: no .devdeps here: run ../shared/device/prepare first" >&2; exit 1; }
grep -qx '/.devdeps.tar.xz' .git/info/exclude 2>/dev/null || echo '/.devdeps.tar.xz' >>.git/info/exclude
tar -cf - .devdeps | xz -T0 -6 >.devdeps.tar.xz
du -h .devdeps.tar.xz
