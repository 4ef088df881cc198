/*
 * hgemm_args.h - kernel parameters and tile constants of the tensor-core
 * GEMMs (hgemm_mma.cu, hgemm_wgmma.cu), shared with the host launcher
 * (plugin/cuda_hgemm.c, plain C) so the two cannot disagree.
 */
#ifndef DLG_HGEMM_ARGS_H
#define DLG_HGEMM_ARGS_H

/* C's element type, read by the epilogue (a runtime choice: the epilogue is
 * not the hot loop, and it saves three copies of every kernel). */
enum { DLG_HOUT_F32 = 0, DLG_HOUT_F16 = 1, DLG_HOUT_BF16 = 2 };

typedef struct dlg_hgemm_args {
  int m, n, k;
  float alpha, beta;
  const void *a; /* float16 or bfloat16 (or float for the TF32 modes) */
  const void *b;
  void *c;
  long long lda, ldb, ldc;
  long long sa, sb, sc; /* batch strides (elements); 0 broadcasts */
  int vec_a, vec_b;     /* 16-byte copies are legal for this operand */
  int c_type;           /* DLG_HOUT_* */
  int batch;            /* the wgmma kernels' persistent walk covers the batch */
  int c_trans;          /* wgmma: the kernel computes C^T, element (i, j) at c[i * ldc + j] */
  int c_pair;           /* wgmma: c and ldc allow stores of two adjacent elements */
} dlg_hgemm_args;

/* mma.sync kernels (hgemm_mma.cu): a 128 x 128 tile of C per block of four
 * warps (each 64 x 64), k in steps of 32 through four cp.async stages. */
#define DLG_HMMA_BM 128
#define DLG_HMMA_BN 128
#define DLG_HMMA_BK 32
#define DLG_HMMA_STAGES 4
#define DLG_HMMA_THREADS 128
#define DLG_HMMA_SMEM (DLG_HMMA_STAGES * (DLG_HMMA_BM + DLG_HMMA_BN) * DLG_HMMA_BK * 2)

/* wgmma kernels (hgemm_wgmma.cu, sm_90a): a 128 x BN tile of C (BN 256 or
 * 128) per block of three warpgroups (a TMA producer and two consumers of
 * 64 x BN), k in steps of 64 through four TMA stages; one block per SM.
 * Shared memory: the stages, 1 KB to align them to the swizzle's period,
 * the mbarriers. */
#define DLG_WGMMA_BM 128
#define DLG_WGMMA_BK 64
#define DLG_WGMMA_STAGES 4
#define DLG_WGMMA_THREADS 384
#define DLG_WGMMA_SMEM(BN) \
  (DLG_WGMMA_STAGES * (DLG_WGMMA_BM + (BN)) * DLG_WGMMA_BK * 2 + 1024 + DLG_WGMMA_STAGES * 16)

#endif
