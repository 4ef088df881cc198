#!/bin/bash
# sass_gates.sh - the kernel quality gates, on the library just built, and
# proof that they bite: a planted local-memory kernel and a diluted loop
# (sass_probe.cu) must each fail the gate that guards against them.
#
# usage: sass_gates.sh DLGEMM-SASS KERNEL-LISTING PROBE-LISTING
# (KERNEL-LISTING: the build's cuobjdump -sass of every embedded fatbin; the
# per-family listings NAME.sass beside it serve the family gates, so that
# each gate reads its own kernels rather than all 460 MB of them)
set -u
tool=$1 lib=$2 probes=$3
dir=$(dirname "$lib")
fail=0
gate() { # description, expected exit status, arguments...
  local what=$1 want=$2 out rc
  shift 2
  out=$("$tool" "$@" 2>&1); rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: $what: dlgemm-sass $* exited $rc, expected $want"
    echo "$out" | grep -E "GATE FAIL|kernel|no SASS" | head -20
    fail=1
  else
    echo "ok: $what"
    echo "$out" | grep "GATE FAIL" | head -3
  fi
}
# The architectures the build made SASS for (a build for one, as on a GPU
# machine with DLGEMM_CUDA_ARCHS=90, is gated on that one and says so).
archs=$(grep -o "arch = sm_[0-9]*$" "$dir/sgemm_simt.sass" | sed 's/arch = //' | sort -u | tr '\n' ' ')
for arch in sm_80 sm_90; do
  case " $archs " in *" $arch "*) ;; *) echo "SKIP: no $arch SASS in this build (built for: $archs)" ;; esac
done
# Every embedded kernel, every architecture: no local memory, no stack.
gate "no spills or stack frames in libdlgemm's kernels" 0 --gate-clean "$lib"
# The SIMT kernels' main loops, every operand layout (rr, rk, kr, kk): an
# FFMA fraction of at least 0.90 and 128-bit fragment loads.  The 64x64
# tile, for small problems, steps k by 8 with 4 x 4 per thread and is not
# held to it (bench/NOTES.md).
# Their stream-K twins (dlg_sgemm_streamk_*, the last one or two waves of
# large products) at 0.895: the segment loop around the same main loop
# costs the 128 x 128 tile its uniform stage offsets on three layouts
# (0.898-0.899; bench/NOTES.md v7).
for arch in $archs; do
  for tile in 128x128 256x128 128x256; do
    gate "dlg_sgemm_$tile $arch main loop: FFMA >= 0.90, LDS.128" 0 \
      --gate-loop 0.90 --gate-op LDS.128 --kernel "dlg_sgemm_${tile}_" --arch $arch "$dir/sgemm_simt.sass"
    gate "dlg_sgemm_streamk_$tile $arch main loop: FFMA >= 0.895, LDS.128" 0 \
      --gate-loop 0.895 --gate-op LDS.128 --kernel "dlg_sgemm_streamk_${tile}_" --arch $arch "$dir/sgemm_simt.sass"
  done
  # The skinny tiles (64 x 256, 256 x 64) hold 4 x 16 per thread: 5
  # fragment loads per 64 FFMA rather than 4, so 0.875 (0.880-0.891
  # measured).  They run split-K, not stream-K, and are gated once.
  for tile in 64x256 256x64; do
    gate "dlg_sgemm_$tile $arch main loop: FFMA >= 0.875, LDS.128" 0 \
      --gate-loop 0.875 --gate-op LDS.128 --kernel "dlg_sgemm_${tile}_" --arch $arch "$dir/sgemm_simt.sass"
  done
  # The complex64 64 x 64 tile (dlg_csimt_*, both sign patterns): the real
  # 128 x 128 tile's loop with 4 FFMA a pair of complex fragment elements
  # (0.91 measured); the 32 x 32 one, for small products, as the real
  # 64 x 64 is not held to it.
  gate "dlg_csimt_64x64 $arch main loop: FFMA >= 0.90, LDS.128" 0 \
    --gate-loop 0.90 --gate-op LDS.128 --kernel "dlg_csimt_64x64_" --arch $arch "$dir/sgemm_simt.sass"
done
# The tensor-core kernels contain the matrix instruction they were written
# for: HMMA from mma.sync on sm_80 and sm_90, HGMMA from wgmma on sm_90a
# (that fatbin exists when sm_90 is among the build's architectures).
# The mma.sync tiles one by one (the 128 x 128 tile's names are a prefix
# of none of the others': dlg_hgemm_mma_, dlg_hgemm_mma64_, dlg_hgemm_mma32_).
for arch in sm_80 sm_90; do
  for tile in mma mma64 mma32; do
    if "$tool" --kernel dlg_hgemm_${tile}_ --arch $arch "$dir/hgemm_mma.sass" >/dev/null 2>&1; then
      gate "dlg_hgemm_${tile}_* $arch: HMMA" 0 --gate-has HMMA --kernel dlg_hgemm_${tile}_ \
        --arch $arch "$dir/hgemm_mma.sass"
    fi
  done
done
# The FP64 kernels, their split-last-wave, thin- and flat-tile twins: DMMA on sm_80 and sm_90.
for arch in sm_80 sm_90; do
  for k in dmma tail thin flat; do
    if "$tool" --kernel dlg_dgemm_${k}_ --arch $arch "$dir/dgemm_dmma.sass" >/dev/null 2>&1; then
      gate "dlg_dgemm_${k}_* $arch: DMMA" 0 --gate-has DMMA --kernel dlg_dgemm_${k}_ --arch $arch \
        "$dir/dgemm_dmma.sass"
    fi
  done
done
# The complex DMMA kernels on both tiles (dmma_: 64 x 64, dmma32_: 32 x
# 32): DMMA, and each element one cp.async copy (LDGSTS of 16 bytes for
# complex128, 8 for complex64).
for arch in $archs; do
  for t in dmma dmma32; do
    gate "dlg_zgemm_${t}_* $arch: DMMA, LDGSTS 16 bytes" 0 --gate-has DMMA \
      --gate-has LDGSTS.E.BYPASS.LTC128B.128 --kernel dlg_zgemm_${t}_ --arch $arch "$dir/zgemm_dmma.sass"
    gate "dlg_cgemm_${t}_* $arch: DMMA, LDGSTS 8 bytes" 0 --gate-has DMMA \
      --gate-has LDGSTS.E.LTC128B.64 --kernel dlg_cgemm_${t}_ --arch $arch "$dir/zgemm_dmma.sass"
  done
done
# The FP64 kernels fed by TMA and their split-last-wave twins (sm_90a
# image): DMMA, the operands through UTMALDG, not element copies, C (beta
# 0) through UTMASTG, and the producer's registers handed to the consumers
# (USETMAXREG; at their 232 a spill is the first thing to look for).
if [ -f "$dir/dgemm_tma.sass" ]; then
  gate "dlg_dgemm_tma_* sm_90a: DMMA, UTMALDG, UTMASTG, USETMAXREG, no local memory" 0 \
    --gate-clean --gate-has DMMA --gate-has UTMALDG --gate-has UTMASTG --gate-has USETMAXREG \
    --kernel dlg_dgemm_tma_ --arch sm_90a "$dir/dgemm_tma.sass"
fi
for tile in 256 192 128 64 16 192x192; do
  w=$dir/hgemm_wgmma$tile.sass
  [ -f "$w" ] || continue
  gate "dlg_hgemm_wgmma* sm_90a, tile $tile, every type: HGMMA, B multicast to pairs, no local memory" 0 \
    --gate-clean --gate-has HGMMA --gate-has UTMALDG.3D.MULTICAST --kernel dlg_hgemm_wgmma \
    --arch sm_90a "$w"
done
# The narrow kernels stream W in 16-byte loads where it is aligned: every
# dot kernel, and the axpy kernels of 4- and 8-byte types (16-bit ones load
# 8 bytes a lane at 16 columns, to hold their accumulators, and float32's
# 32-column bucket 2 rows a lane: 8 bytes); the 16-bit tensor-core dot
# kernels run HMMA.  (--kernel matches a substring: f32_1 is 1 and 16.)
for arch in $archs; do
  gate "dlg_narrow_tc_* $arch: HMMA, LDG.E.128" 0 --gate-has HMMA --gate-has LDG.E.128 \
    --kernel dlg_narrow_tc_ --arch $arch "$dir/narrow.sass"
done
for arch in $archs; do
  for k in dot_ axpy_f32_1 axpy_f32_2 axpy_f32_4 axpy_f32_8 axpy_f64_; do
    gate "dlg_narrow_$k* $arch: LDG.E.128" 0 --gate-has LDG.E.128 --kernel "dlg_narrow_$k" \
      --arch $arch "$dir/narrow.sass"
  done
  gate "dlg_narrow_axpy_f32_32 $arch: LDG.E.64" 0 --gate-has LDG.E.64 \
    --kernel dlg_narrow_axpy_f32_32 --arch $arch "$dir/narrow.sass"
done
# The tiny kernels move operands in whole 16-byte runs in and out where
# their layouts allow (tiny.cu: stage and leave, 16 bytes an access).
for arch in $archs; do
  gate "dlg_tiny* $arch: LDG.E.128, STG.E.128" 0 --gate-has LDG.E.128 --gate-has STG.E.128 \
    --kernel dlg_tiny --arch $arch "$dir/tiny.sass"
done
# The gates bite.
gate "a kernel without the matrix instruction fails the has gate" 1 --gate-has HMMA \
  --kernel probe_dense "$probes"
gate "a kernel that uses local memory fails the clean gate" 1 --gate-clean --kernel probe_spill "$probes"
gate "a diluted FFMA loop fails the loop gate" 1 --gate-loop 0.90 --kernel probe_diluted "$probes"
gate "the dense probe passes every gate" 0 --gate-clean --gate-loop 0.90 --gate-op LDS.128 \
  --kernel probe_dense "$probes"
exit $fail
