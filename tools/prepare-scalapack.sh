#!/bin/bash
# prepare-scalapack.sh - on the CPU machine, before a GPU run of the
# ScaLAPACK testers (conformance/scalapack.sh): the device tool's prepare
# with Open MPI and ScaLAPACK's Open MPI testers (Debian names, with the
# libraries they load, which prepare does not resolve), then the testers'
# .dat inputs, which live under usr/share (prepare drops that tree).  The
# MPICH build of the testers is removed: the carry is 64 MiB.  With
# libopenblas0-pthread added (bench/scalapack_bench.sh's OpenBLAS runs) the
# folder is 90 MB: tools/pack-devdeps.sh packs it into a 19 MB tarball.
# On the GPU machine: source .devdeps/env.sh, then
#   R=$PWD/.devdeps/root; export OPAL_PREFIX=$R/usr PATH=$R/usr/bin:$PATH
#   export DEVDEPS_SCALAPACK_TESTS=$R/usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests
set -euo pipefail
top=$(git rev-parse --show-toplevel)
"$top/../shared/device/prepare" liblapack3 libnl-3-200 libnl-route-3-200 libibverbs1 \
  libevent-2.1-7 libevent-core-2.1-7 libevent-pthreads-2.1-7 libpsm2-2 librdmacm1 libfabric1 \
  libhwloc15 libucx0 libmunge2 libpmix2 libopenmpi3 openmpi-common openmpi-bin \
  libscalapack-openmpi2.2 scalapack-mpi-test "$@"
root=$top/.devdeps/root
rm -rf "$root/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -qq scalapack-test-common 2>&1 | grep -v unsandboxed || true)
dpkg -x "$tmp"/scalapack-test-common_*.deb "$tmp/x"
mkdir -p "$root/usr/share"
cp -r "$tmp/x/usr/share/scalapack" "$root/usr/share/"
du -sh "$top/.devdeps"
