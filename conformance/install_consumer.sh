#!/bin/bash
# install_consumer.sh - install dlgemm into a scratch prefix, then build a
# consumer against it twice: with find_package(dlgemm) and with pkg-config.
# usage: install_consumer.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1 src=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S "$src/conformance/consumer" -B "$prefix/cm" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/cm" >/dev/null
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$prefix/cm/consumer"
pc=$(ls -d "$prefix"/lib*/pkgconfig | head -1)
# No sysroot: the scratch prefix is a real path (the GPU machine sets one for .devdeps).
flags=$(PKG_CONFIG_SYSROOT_DIR= PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs dlgemm)
cc -o "$prefix/pc_consumer" "$src/conformance/consumer/main.c" $flags ${CPATH:+-I$CPATH}
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$prefix/pc_consumer"
echo "PASS: find_package(dlgemm) and pkg-config dlgemm both build and run a consumer"
