// sgemm_sgpr.S - the SGPR-broadcast, no-LDS SGEMM for Vega (gfx906; gfx908, gfx90a).
//
// C = alpha * A * B + beta * C, all column-major: A m x k (lda), B k x n
// (ldb), C m x n (ldc).  BUILT AND STATICALLY CHECKED ONLY: no AMD GPU exists
// where this project is developed, so this code has never been executed.
//
// The design.  Each work-item owns one column j of a 64-row strip of C and
// keeps its 64 sums in v0..v63.  For every k all lanes need the same 64
// values A(i0..i0+63, k) - contiguous in a column-major A - so they are read
// once per wave with scalar loads (s_load_dwordx8) into SGPRs, and each
// v_fma_f32 takes its A value straight from an SGPR: the scalar unit is the
// broadcast network, and there is no LDS and no barrier anywhere.  B(k, j)
// is private to the lane and contiguous in k, so it streams in with one
// global_load_dwordx4 per 4 k, double-buffered.  Work-groups of 64, 128 or
// 256 lanes make the 64x64, 64x128 and 64x256 macro tiles; their waves are
// independent (they just share A through the scalar cache).
//
// Why the registers are where they are:
//   v0..v63    the 64 sums of this lane's column.  v0 arrives holding the
//              work-item id: it is consumed (into v76) before v0 is zeroed.
//   v64..v67   B(k..k+3, j), v68..v71 B(k+4..k+7, j): one is read by the FMAs
//              while the other is in flight.  VMEM loads return in order, so
//              "s_waitcnt vmcnt(1)" means "all but the newest have landed".
//              The epilogue reuses them for 8 rows of C.
//   v72        j * ldb * 4: the lane's byte offset into B (global_load with an
//              SGPR base takes a 32-bit lane offset; the router guarantees the
//              whole of B fits in 4 GiB).  j is the column clamped to n - 1, so
//              idle lanes of the last block read a real column.
//   v74:v75    address of C(i0, col); v76 col; v77 j.
//   78 VGPRs, allocated in fours as 80: floor(256 / 80) = 3 waves per SIMD.
//
//   s[0:1] kernarg pointer; s2, s3, s4 work-group ids (column block, row
//              block, batch matrix).
//   s[6:7]     address of A(i0, k) for the column being fetched.
//   s[8:9]     B batch base + 4 * k: the SGPR half of the B address.
//   s10 lda*4, s11 loop counter, s12 k, s13 n, s14 ldb*4, s15 ldc*4,
//   s16 alpha, s17 beta, s[18:19] C batch base + 4 * i0, s20 A step,
//   s21 A steps left (the last column is never stepped past), s5 and
//   s[24:31] scratch.
//   s[32:63]   SA0: A(i0..i0+31, k)    s[64:95]  SA1: A(i0+32..i0+63, k)
//              While the FMAs of one half read one buffer the scalar loads
//              fill the other: 32 FMAs (128 cycles of a wave64 on a SIMD16,
//              times the 3 waves sharing it) cover the scalar-cache latency.
//              Scalar loads may return OUT OF ORDER, so lgkmcnt can only be
//              trusted at 0: every half starts with s_waitcnt lgkmcnt(0),
//              placed after the previous half's FMAs have been issued, and
//              only then are the next loads issued.  Kernel arguments arrive
//              through s[32:51] before the buffers are in use.
//   96 SGPRs plus VCC and XNACK_MASK: under gfx9's 102.
//
// What the router guarantees (plugin/hip/sgemm.c): m a multiple of 64 (the
// rows past it go to the generic kernel), k >= 1, alpha != 0, column-major
// operands, and 4 * ((n - 1) * ldb + k) < 2^32.  Kernel argument layout:
// struct dlg_gcn_args in kernels/gcn/gcn_args.h.

// The target comes from clang's -mcpu (gfx906, gfx908, gfx90a): the code is
// the same; gfx90a's descriptor also needs the split of its unified register
// file (all 80 VGPRs architectural, no AGPRs).

// 32 FMAs: v[acc..acc+31] += s[sa..sa+31] * vb.
.macro FMA32 acc, sa, vb
  .set r, 0
  .rept 32
    v_fma_f32 v[\acc+r], s[\sa+r], \vb, v[\acc+r]
    .set r, r+1
  .endr
.endm

// One k: both halves of the strip, with the next half's A in flight.
.macro KSTEP vb
  s_waitcnt lgkmcnt(0)                    // SA0 = A(i0..i0+31, k)
  s_load_dwordx8 s[64:71], s[6:7], 0x80   // SA1 <- A(i0+32..i0+63, k)
  s_load_dwordx8 s[72:79], s[6:7], 0xa0
  s_load_dwordx8 s[80:87], s[6:7], 0xc0
  s_load_dwordx8 s[88:95], s[6:7], 0xe0
  FMA32 0, 32, \vb
  s_min_u32 s20, s21, 1                   // step to column k+1 unless k is the last
  s_sub_u32 s21, s21, s20
  s_mul_i32 s20, s20, s10
  s_waitcnt lgkmcnt(0)                    // SA1 = A(i0+32..i0+63, k)
  s_add_u32 s6, s6, s20
  s_addc_u32 s7, s7, 0
  s_load_dwordx8 s[32:39], s[6:7], 0x00   // SA0 <- A(i0..i0+31, k+1)
  s_load_dwordx8 s[40:47], s[6:7], 0x20
  s_load_dwordx8 s[48:55], s[6:7], 0x40
  s_load_dwordx8 s[56:63], s[6:7], 0x60
  FMA32 32, 64, \vb
.endm

// dst (64-bit SGPR pair) = base + 4 * (batch * stride + rows), stride 64-bit.
.macro BATCH_BASE dlo, dhi, blo, bhi, slo, shi, rows
  s_mul_i32 s24, s4, \slo
  s_mul_hi_u32 s25, s4, \slo
  s_mul_i32 s26, s4, \shi
  s_add_u32 s25, s25, s26
  s_add_u32 s24, s24, \rows
  s_addc_u32 s25, s25, 0
  s_lshl_b64 s[24:25], s[24:25], 2
  s_add_u32 \dlo, \blo, s24
  s_addc_u32 \dhi, \bhi, s25
.endm

.macro SGEMM_KERNEL name, wg, log2wg
.text
.globl \name
.p2align 8
.type \name,@function
\name:
  // Arguments (struct dlg_gcn_args) into s[32:51].
  s_load_dwordx16 s[32:47], s[0:1], 0x0   // a b c sa sb sc m n k lda
  s_load_dwordx4 s[48:51], s[0:1], 0x40   // ldb ldc alpha beta
  s_lshl_b32 s24, s2, \log2wg             // first column of this block
  v_add_u32 v76, s24, v0                  // col
  s_waitcnt lgkmcnt(0)
  s_lshl_b32 s27, s3, 6                   // i0 = 64 * row block
  BATCH_BASE s6, s7, s32, s33, s38, s39, s27     // A(i0, 0)
  BATCH_BASE s8, s9, s34, s35, s40, s41, 0       // B(0, 0)
  BATCH_BASE s18, s19, s36, s37, s42, s43, s27   // C(i0, 0)
  s_lshl_b32 s10, s47, 2
  s_mov_b32 s12, s46
  s_mov_b32 s13, s45
  s_lshl_b32 s14, s48, 2
  s_lshl_b32 s15, s49, 2
  s_mov_b32 s16, s50
  s_mov_b32 s17, s51
  s_sub_u32 s21, s12, 1                   // A steps left: k - 1
  s_sub_u32 s5, s13, 1
  v_min_u32 v77, s5, v76                  // j: idle lanes read column n - 1
  v_mul_lo_u32 v72, v77, s14              // j * ldb * 4
  v_mov_b32 v74, s18
  v_mov_b32 v75, s19
  v_mad_u64_u32 v[74:75], s[24:25], v76, s15, v[74:75]
  .set r, 0
  .rept 64
    v_mov_b32 v[r], 0
    .set r, r+1
  .endr
  s_load_dwordx8 s[32:39], s[6:7], 0x00   // SA0 <- A(i0..i0+31, 0)
  s_load_dwordx8 s[40:47], s[6:7], 0x20
  s_load_dwordx8 s[48:55], s[6:7], 0x40
  s_load_dwordx8 s[56:63], s[6:7], 0x60
  s_lshr_b32 s11, s12, 3                  // iterations of 8 k
  s_cmp_eq_u32 s11, 0
  s_cbranch_scc1 .Ltail_\name
  global_load_dwordx4 v[64:67], v72, s[8:9]          // B(0..3, j)
.Lmain_\name:
  global_load_dwordx4 v[68:71], v72, s[8:9] offset:16 // B(k+4..k+7, j)
  s_waitcnt vmcnt(1)                                  // B(k..k+3, j) landed
  KSTEP v64
  KSTEP v65
  KSTEP v66
  KSTEP v67
  s_add_u32 s8, s8, 32
  s_addc_u32 s9, s9, 0
  s_sub_u32 s11, s11, 1
  // B(k+8..k+11, j) for the next iteration; after the last one, B(k+4..k+7)
  // again, so no load ever leaves column j.
  s_cmp_eq_u32 s11, 0
  s_cselect_b32 s5, 16, 0
  s_sub_u32 s24, s8, s5
  s_subb_u32 s25, s9, 0
  global_load_dwordx4 v[64:67], v72, s[24:25]
  s_waitcnt vmcnt(1)                                  // B(k+4..k+7, j) landed
  KSTEP v68
  KSTEP v69
  KSTEP v70
  KSTEP v71
  s_cmp_eq_u32 s11, 0
  s_cbranch_scc0 .Lmain_\name
.Ltail_\name:                                         // k mod 8 more, one at a time
  s_and_b32 s11, s12, 7
  s_cmp_eq_u32 s11, 0
  s_cbranch_scc1 .Lepilogue_\name
.Ltail_loop_\name:
  global_load_dword v64, v72, s[8:9]
  s_waitcnt vmcnt(0)
  KSTEP v64
  s_add_u32 s8, s8, 4
  s_addc_u32 s9, s9, 0
  s_sub_u32 s11, s11, 1
  s_cmp_eq_u32 s11, 0
  s_cbranch_scc0 .Ltail_loop_\name
.Lepilogue_\name:
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_cmp_gt_u32 vcc, s13, v76              // only lanes whose column exists store
  s_and_saveexec_b64 s[24:25], vcc
  s_cbranch_execz .Ldone_\name
  s_and_b32 s5, s17, 0x7fffffff           // beta == +-0: C is not read
  s_cmp_eq_u32 s5, 0
  s_cbranch_scc1 .Lbeta0_\name
  .set c, 0
  .rept 8                                 // 8 rows at a time through v64..v71
    .set t, 0
    .rept 8
      global_load_dword v[64+t], v[74:75], off offset:(8*c+t)*4
      .set t, t+1
    .endr
    s_waitcnt vmcnt(0)
    .set t, 0
    .rept 8
      v_mul_f32 v[8*c+t], s16, v[8*c+t]
      v_fma_f32 v[8*c+t], s17, v[64+t], v[8*c+t]
      global_store_dword v[74:75], v[8*c+t], off offset:(8*c+t)*4
      .set t, t+1
    .endr
    .set c, c+1
  .endr
  s_branch .Ldone_\name
.Lbeta0_\name:
  .set r, 0
  .rept 64
    v_mul_f32 v[r], s16, v[r]
    .set r, r+1
  .endr
  .set q, 0
  .rept 16
    global_store_dwordx4 v[74:75], v[4*q:4*q+3], off offset:16*q
    .set q, q+1
  .endr
.Ldone_\name:
  s_endpgm
.Lend_\name:
.size \name, .Lend_\name-\name

.rodata
.p2align 6
.amdhsa_kernel \name
  .amdhsa_group_segment_fixed_size 0
  .amdhsa_private_segment_fixed_size 0
  .amdhsa_kernarg_size 80
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_system_sgpr_workgroup_id_y 1
  .amdhsa_system_sgpr_workgroup_id_z 1
  .amdhsa_system_vgpr_workitem_id 0
  .amdhsa_next_free_vgpr 78
  .amdhsa_next_free_sgpr 96
  .amdhsa_reserve_vcc 1
  .amdhsa_reserve_flat_scratch 0
  .amdhsa_float_denorm_mode_32 3
  .amdhsa_float_denorm_mode_16_64 3
  .amdhsa_ieee_mode 1
  .amdhsa_dx10_clamp 1
#ifdef __gfx90a__
  .amdhsa_accum_offset 80
#endif
.end_amdhsa_kernel
.endm

SGEMM_KERNEL dlg_gcn_sgemm_64x64, 64, 6
SGEMM_KERNEL dlg_gcn_sgemm_64x128, 128, 7
SGEMM_KERNEL dlg_gcn_sgemm_64x256, 256, 8

.amdgpu_metadata
---
amdhsa.version: [ 1, 1 ]
amdhsa.kernels:
  - { .name: dlg_gcn_sgemm_64x64, .symbol: dlg_gcn_sgemm_64x64.kd, .max_flat_workgroup_size: 64,
      .kernarg_segment_size: 80, .kernarg_segment_align: 8, .wavefront_size: 64,
      .group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .sgpr_count: 100,
      .vgpr_count: 78, .sgpr_spill_count: 0, .vgpr_spill_count: 0,
      .args: [ { .name: p, .offset: 0, .size: 80, .value_kind: by_value } ] }
  - { .name: dlg_gcn_sgemm_64x128, .symbol: dlg_gcn_sgemm_64x128.kd, .max_flat_workgroup_size: 128,
      .kernarg_segment_size: 80, .kernarg_segment_align: 8, .wavefront_size: 64,
      .group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .sgpr_count: 100,
      .vgpr_count: 78, .sgpr_spill_count: 0, .vgpr_spill_count: 0,
      .args: [ { .name: p, .offset: 0, .size: 80, .value_kind: by_value } ] }
  - { .name: dlg_gcn_sgemm_64x256, .symbol: dlg_gcn_sgemm_64x256.kd, .max_flat_workgroup_size: 256,
      .kernarg_segment_size: 80, .kernarg_segment_align: 8, .wavefront_size: 64,
      .group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .sgpr_count: 100,
      .vgpr_count: 78, .sgpr_spill_count: 0, .vgpr_spill_count: 0,
      .args: [ { .name: p, .offset: 0, .size: 80, .value_kind: by_value } ] }
...
.end_amdgpu_metadata
