# The next session's first call (session 47 had no GPU lent after its first refusals): the complex
# narrow kernels (complex64 / complex128 with a side of C at most 16 / 8 on the real narrow kernels,
# X expanded as it is staged; DLGEMM_NARROW_COMPLEX=on, off by default until this measures it):
# test_narrow's complex mode (split as picked, whole k, 13 splits) and its real mode; then the
# complex narrow cells 1-16 wide (every layout, beta 0 and 1: scripts/complex_narrow.cells) with
# the route on and off, alternating twice; then complex128's odd squares, auto against the
# embedding pinned (the DMMA bands landed in session 47 from session 46's pinned runs).  Carry
# .devdeps and build-carry.tar.xz (tools/pack-build.sh of this tree); the second call is session
# 46's c.sh (add s46lib).
source tools/device-carry-env.sh && O=$OUT
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $O/gpu.log
T=build/conformance/test_narrow
tn() { local tag=$1 n=$2 mode=$3; shift 3; env "$@" timeout $(cap 90) $T $n $mode > $O/test_narrow_$tag.log 2>&1
  echo "test_narrow $tag rc=$?: $(tail -1 $O/test_narrow_$tag.log)"; }
tn complex 80 complex X=1; tn cx_whole 30 complex DLGEMM_NARROW_SPLITS=1; tn cx_13 30 complex DLGEMM_NARROW_SPLITS=13
tn real 60 "" X=1
C=bench/results/session47/scripts/complex_narrow.cells
cw() { local tag=$1; shift; env "$@" timeout $(cap 100) $S --rerun $C --below 9 > $O/cx_$tag.log 2>&1; echo "cx $tag: $(grep -E '^(sweep|type)' $O/cx_$tag.log | tr '\n' ' ')"; }
cw on_1 DLGEMM_NARROW_COMPLEX=on; cw off_1 DLGEMM_NARROW_COMPLEX=off; cw on_2 DLGEMM_NARROW_COMPLEX=on; cw off_2 DLGEMM_NARROW_COMPLEX=off
# complex128's odd squares: this build's routing (the DMMA kernels at 192-320 and 2000-3100)
# against the embedding pinned (what they took before), alternating twice
ow() { local tag=$1; shift; env "$@" timeout $(cap 60) $S --only c128 --family odd > $O/c128odd_$tag.log 2>&1; echo "c128 odd $tag: $(grep '^sweep' $O/c128odd_$tag.log)"; }
ow auto_1 X=1; ow embed_1 DLGEMM_CGEMM_WAY=embed; ow auto_2 X=1; ow embed_2 DLGEMM_CGEMM_WAY=embed
cd $O && tar czf d.tgz *.log
