#!/bin/bash
# model_cache.sh - the host-array cost model's cache file, corrupted every
# way we could think of (issue 27): truncated, random bytes, NaN, infinite
# and huge numbers, a field twice, a symlink to a FIFO and to /dev/urandom,
# an unwritable cache directory.  Each run must finish (no hang: timeout),
# say it measured (the file not trusted), and route as a sound model does:
# n = 8 to the CPU BLAS, n = 3072 to the GPU (on the H100 the GPU already
# wins at 64 against netlib).  Then two processes
# calibrate at once into one directory, and a third must find their file
# whole ("cached").  Skips (77) where there is no usable GPU.
# usage: model_cache.sh LIBDLGEMM HOST_BENCH
set -u
lib=$1 bench=$2
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
run() { # cache-home -> its verbose log in $tmp/log
  XDG_CACHE_HOME=$1 LD_PRELOAD=$lib DLGEMM_VERBOSE=1 timeout 120 "$bench" 5 3072 8 \
    >"$tmp/log" 2>&1
}
# a GPU at all? (n = 8 alone: without one, 3072 would run on the CPU BLAS)
XDG_CACHE_HOME=$tmp/probe LD_PRELOAD=$lib DLGEMM_VERBOSE=1 timeout 120 "$bench" 1 8 >"$tmp/log" 2>&1
if ! grep -q "host model (measured" "$tmp/log"; then
  echo "SKIP: no host model was measured (no usable GPU?):"; grep -m3 dlgemm "$tmp/log"; exit 77
fi
run "$tmp/good"
if ! grep -q "host model (measured" "$tmp/log"; then
  echo "SKIP: no host model was measured (no usable GPU?):"; grep -m3 dlgemm "$tmp/log"; exit 77
fi
# the line: "host model (measured in PATH, 495.8 ms) of cuda:0: ..."
file=$(sed -n 's/.*host model (measured in \([^,)]*\)[,)].*/\1/p' "$tmp/log" | head -1)
name=${file#"$tmp/good/"}
[ -f "$file" ] || { echo "FAIL: no cache file at $file"; exit 1; }
fail=0
check() { # what, expectation of the source ("measured" or "cached")
  local what=$1 source=$2 rc=$3
  if [ "$rc" -ne 0 ]; then echo "FAIL: $what: exit status $rc"; tail -3 "$tmp/log"; fail=1; return; fi
  if ! grep -q "host model ($source" "$tmp/log"; then
    echo "FAIL: $what: the model was not $source:"; grep -m1 "host model" "$tmp/log"; fail=1; return
  fi
  if ! grep -q "m=8 .*-> cpu-blas" "$tmp/log" || ! grep -q "m=3072 .*-> cuda" "$tmp/log"; then
    echo "FAIL: $what: misrouted:"; grep -E "m=(8|3072) " "$tmp/log" | sort -u | head -4; fail=1; return
  fi
  echo "ok: $what: $source, routed soundly"
}
corrupt() { # name, then a command that writes the bad file into $1
  local what=$1 home=$tmp/case$((++n))
  shift
  mkdir -p "$(dirname "$home/$name")"
  "$@" "$home/$name"
  run "$home"; check "$what" measured $?
}
n=0
run "$tmp/good"; check "a sound cache" cached $?
corrupt "truncated" sh -c 'head -c 40 "$0" > "$1"' "$file"
corrupt "random bytes" sh -c 'head -c 600 /dev/urandom > "$0"'
corrupt "NaN" sh -c 'sed "s/^to_device .*/to_device nan/" "$0" > "$1"' "$file"
corrupt "infinite bandwidth" sh -c 'sed "s/^to_device .*/to_device inf/" "$0" > "$1"' "$file"
corrupt "huge kernel rate" sh -c 'sed "s/^kernel\[0\] .*/kernel[0] 1e300/" "$0" > "$1"' "$file"
corrupt "a field twice, one missing" sh -c 'sed "s/^to_host /to_device /" "$0" > "$1"' "$file"
corrupt "symlink to a FIFO" sh -c 'mkfifo "$0.fifo" && ln -s "$0.fifo" "$0"'
corrupt "symlink to /dev/urandom" ln -s /dev/urandom
# an unwritable directory: measured each time, nothing written, no error
mkdir -p "$tmp/ro/dlgemm" && chmod a-w "$tmp/ro/dlgemm"
run "$tmp/ro"; check "unwritable cache directory" measured $?
# two processes calibrating at once, then a third reads their file
(XDG_CACHE_HOME=$tmp/two DLGEMM_CALIBRATE=1 LD_PRELOAD=$lib timeout 120 "$bench" 1 8 >/dev/null 2>&1 &
 XDG_CACHE_HOME=$tmp/two DLGEMM_CALIBRATE=1 LD_PRELOAD=$lib timeout 120 "$bench" 1 8 >/dev/null 2>&1; wait)
run "$tmp/two"; check "after two processes calibrated at once" cached $?
exit $fail
