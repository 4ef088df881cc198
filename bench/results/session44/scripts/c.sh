# session 44's third call: complex128 batches on the native DMMA kernels at any size (cgemm.c's rule
# after b.sh): the attention cells twice, then complex128's and complex64's sampled sweep.
source tools/device-carry-env.sh && O=$OUT
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.log
timeout $(cap 40) build/conformance/test_complex cuda > $O/test_complex.log 2>&1; echo "test_complex rc=$?"; tail -1 $O/test_complex.log
for i in 1 2; do timeout $(cap 40) $S --only c128 --family attention > $O/att_$i.log 2>&1; grep '^sweep' $O/att_$i.log; done
for T in c128 c64; do timeout $(cap 90) $S --only $T --sample 4 > $O/s4_$T.log 2>&1; grep -E '^class|^sweep' $O/s4_$T.log; done
cd $O && tar czf c.tgz *.log
