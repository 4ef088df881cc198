# lastwave.sh LIB_XZ - sourced by c.sh and session 47's d.sh after tools/device-carry-env.sh (O, S,
# cap): sgemm-last-wave.patch's library (LIB_XZ: HEAD + the patch, xz) against the build's on
# FP32's odd squares (alternating twice) and on lastwave_shapes.txt (30 random FP32 shapes whose
# plan the patch changes by a host replica of the model), each shape on both in turn.
mkdir -p /tmp/lw && xz -dc "$1" > /tmp/lw/libdlgemm.so.0
grep -E '^fp32 +.. odd' bench/results/session41/sweep/sweep_sample4_after_2.log > /tmp/odd.cells
ow() { local tag=$1; shift; env "$@" timeout $(cap 12) $S --rerun /tmp/odd.cells --below 9 > $O/odd_$tag.log 2>&1; echo "odd $tag: $(grep '^sweep' $O/odd_$tag.log)"; }
base=$LD_LIBRARY_PATH # .devdeps' libraries, kept behind each library under test
ow head_1 X=1; ow lastwave_1 LD_LIBRARY_PATH=/tmp/lw:$base; ow head_2 X=1; ow lastwave_2 LD_LIBRARY_PATH=/tmp/lw:$base
while read -r t op m n k; do for lib in head lw; do
  p=$base; [ $lib = lw ] && p=/tmp/lw:$base
  LD_LIBRARY_PATH=$p timeout $(cap 8) build/bench/bench_shapes 10 "$t $op $m $n $k" | grep '^shape' | sed "s/^/$lib /"
done; done < bench/results/session46/scripts/lastwave_shapes.txt > $O/random.log 2>&1
awk '{r[$1]+=log($(NF-1)); c[$1]++} END {for (l in r) print l, "geomean", exp(r[l]/c[l]), "over", c[l]}' $O/random.log
