#!/bin/bash
# bench_plot.sh - bench/plot redraws every chart of the README from the
# committed logs (bench/results): each of docs/'s PNGs comes out, as a PNG,
# into a scratch folder; and a folder without logs is an error, not three
# empty pictures.
# usage: bench_plot.sh SOURCE-DIR
set -u
src=$1
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  echo "SKIP: bench/plot needs python3-matplotlib (tools/install-deps.sh installs it)"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export MPLCONFIGDIR=$out/mpl
"$src/bench/plot" "$src/bench/results" "$out" || { echo "FAIL: bench/plot exited $?"; exit 1; }
fail=0
for png in "$src"/docs/*.png; do
  name=$(basename "$png")
  if [ "$(head -c 8 "$out/$name" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    echo "ok: $name redrawn"
  else
    echo "FAIL: $name (in docs/) was not redrawn from bench/results"; fail=1
  fi
done
mkdir "$out/empty"
if "$src/bench/plot" "$out/empty" "$out/empty" >/dev/null; then
  echo "FAIL: bench/plot succeeded without any log"; fail=1
else
  echo "ok: no logs, no charts, exit status 1"
fi
exit $fail
