# session 41, call 4: the thin tile's stream floor (hgemm.c): old and new library alternating over the sampled 16-bit cells; the half/TF32 GPU tests; the whole sampled sweep twice
source tools/device-carry-env.sh && B=build && O=$OUT
mkdir -p /tmp/old && xz -dc s41/old/libdlgemm.so.0.xz > /tmp/old/libdlgemm.so.0
nvidia-smi --query-gpu=name,clocks.sm --format=csv
for t in bf16 f16; do
  timeout $(cap 60) $S --sample 4 --only $t > $O/${t}_new.log 2>&1
  LD_LIBRARY_PATH=/tmp/old timeout $(cap 60) $S --sample 4 --only $t > $O/${t}_old.log 2>&1
  grep "^sweep\|below" $O/${t}_new.log $O/${t}_old.log
done
(cd $B && timeout $(cap 150) ctest -R "half_cuda|tf32_cuda|narrow" --output-on-failure > $O/ctest_half.log 2>&1); tail -5 $O/ctest_half.log
timeout $(cap 170) $S --sample 4 > $O/sweep_sample4_1.log 2>&1; tail -16 $O/sweep_sample4_1.log
timeout $(cap 170) $S --sample 4 > $O/sweep_sample4_2.log 2>&1; tail -3 $O/sweep_sample4_2.log
ls -la $O
