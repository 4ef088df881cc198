# session 44's second call: complex batches chunked by the way they take (complex_gemm.c), not by the
# embedding's workspace.  The sweep's complex attention and batched cells with this library (new), with
# HEAD's (old: oldlib/libdlgemm.so.0.xz, git-excluded, carried), and with each way pinned on the new one.
# Carry .devdeps, build-carry.tar.xz and oldlib.
source tools/device-carry-env.sh && O=$OUT
mkdir -p /tmp/old && xz -dc oldlib/libdlgemm.so.0.xz > /tmp/old/libdlgemm.so.0 && chmod +x /tmp/old/libdlgemm.so.0
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.log
timeout $(cap 60) build/conformance/test_complex cuda > $O/test_complex.log 2>&1; echo "test_complex rc=$?"; tail -2 $O/test_complex.log
sw() { local tag=$1; shift; env "$@" timeout $(cap 45) $S --only $T --family $F > $O/sw_${T}_${F}_$tag.log 2>&1; echo "$T $F $tag: $(grep -E '^sweep' $O/sw_${T}_${F}_$tag.log)"; }
for T in c128 c64; do for F in attention batched; do
  sw new X=1; sw old LD_LIBRARY_PATH=/tmp/old; sw native DLGEMM_CGEMM_WAY=native; sw embed DLGEMM_CGEMM_WAY=embed
  [ $T = c64 ] && sw simt DLGEMM_CGEMM_WAY=simt
done; done
cd $O && tar czf b.tgz *.log && ls -la | tail -3
