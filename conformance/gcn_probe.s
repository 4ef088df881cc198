// gcn_probe.s - kernels that each break one property gcn_check.py enforces,
// so the test (gcn_checks.sh) can show every check fails when it should.
//   dlg_probe_lds    reads LDS and waits at a barrier (the design has neither)
//   dlg_probe_vgpr   uses 128 VGPRs (over the 84 that let 3 waves share a SIMD)
//   dlg_probe_lgkm   counts on scalar loads returning in order (lgkmcnt(1))
//   dlg_probe_vfma   a main loop of v_fma_f32 with no SGPR operand
.amdgcn_target "amdgcn-amd-amdhsa--gfx906"

.macro PROBE name, vgprs, lds, body
.text
.globl \name
.p2align 8
.type \name,@function
\name:
  s_load_dwordx2 s[8:9], s[0:1], 0x0
  s_mov_b32 s10, 64
  s_waitcnt lgkmcnt(0)
.Lloop_\name:
  \body
  s_sub_u32 s10, s10, 1
  s_cmp_eq_u32 s10, 0
  s_cbranch_scc0 .Lloop_\name
  s_endpgm
.Lend_\name:
.size \name, .Lend_\name-\name
.rodata
.p2align 6
.amdhsa_kernel \name
  .amdhsa_group_segment_fixed_size \lds
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr \vgprs
  .amdhsa_next_free_sgpr 24
.end_amdhsa_kernel
.endm

.macro BODY_LDS
  ds_read_b32 v1, v0
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_fma_f32 v2, s12, v1, v2
.endm
.macro BODY_VGPR
  v_fma_f32 v2, s12, v1, v2
  v_fma_f32 v127, s12, v1, v127
.endm
.macro BODY_LGKM
  s_load_dwordx2 s[12:13], s[8:9], 0x0
  s_load_dwordx2 s[14:15], s[8:9], 0x8
  s_waitcnt lgkmcnt(1)
  v_fma_f32 v2, s12, v1, v2
  s_waitcnt lgkmcnt(0)
.endm
.macro BODY_VFMA
  v_fma_f32 v2, v3, v1, v2
  v_fma_f32 v4, v3, v1, v4
.endm

PROBE dlg_probe_lds, 8, 256, BODY_LDS
PROBE dlg_probe_vgpr, 128, 0, BODY_VGPR
PROBE dlg_probe_lgkm, 8, 0, BODY_LGKM
PROBE dlg_probe_vfma, 8, 0, BODY_VFMA

.amdgpu_metadata
---
amdhsa.version: [ 1, 1 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx906
amdhsa.kernels:
  - { .name: dlg_probe_lds, .symbol: dlg_probe_lds.kd, .kernarg_segment_size: 8, .kernarg_segment_align: 8, .group_segment_fixed_size: 256, .private_segment_fixed_size: 0, .max_flat_workgroup_size: 64, .wavefront_size: 64, .sgpr_count: 28, .vgpr_count: 8, .sgpr_spill_count: 0, .vgpr_spill_count: 0 }
  - { .name: dlg_probe_vgpr, .symbol: dlg_probe_vgpr.kd, .kernarg_segment_size: 8, .kernarg_segment_align: 8, .group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .max_flat_workgroup_size: 64, .wavefront_size: 64, .sgpr_count: 28, .vgpr_count: 128, .sgpr_spill_count: 0, .vgpr_spill_count: 0 }
  - { .name: dlg_probe_lgkm, .symbol: dlg_probe_lgkm.kd, .kernarg_segment_size: 8, .kernarg_segment_align: 8, .group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .max_flat_workgroup_size: 64, .wavefront_size: 64, .sgpr_count: 28, .vgpr_count: 8, .sgpr_spill_count: 0, .vgpr_spill_count: 0 }
  - { .name: dlg_probe_vfma, .symbol: dlg_probe_vfma.kd, .kernarg_segment_size: 8, .kernarg_segment_align: 8, .group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .max_flat_workgroup_size: 64, .wavefront_size: 64, .sgpr_count: 28, .vgpr_count: 8, .sgpr_spill_count: 0, .vgpr_spill_count: 0 }
...
.end_amdgpu_metadata
