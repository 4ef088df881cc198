/*
 * zgemm_args.h - the kernel parameter and tile constants of the complex
 * tensor-core GEMM (zgemm_dmma.cu: complex128 and complex64 on FP64 DMMA),
 * shared with the host code that launches it (plain C,
 * plugin/cuda/level3/zdmma.c).
 */
#ifndef DLG_ZGEMM_ARGS_H
#define DLG_ZGEMM_ARGS_H

/* C = alpha op(A)' op(B)' + beta C, column-major, in complex elements
 * (each two doubles or two floats, real part first); op(X)' is
 * conj(op(X)) where conj_x.  Strides and batch strides count complex
 * elements. */
typedef struct dlg_zgemm_args {
  int m, n, k;
  double alpha_re, alpha_im, beta; /* beta real: the callers scale C by a complex one first */
  const void *a;
  const void *b;
  void *c;
  long long lda, ldb, ldc;
  long long sa, sb, sc; /* batch strides (elements); 0 broadcasts */
  int conj_a, conj_b;
  /* Split-K's chunks are a batch strided along k (zdmma.c): the last
   * entry's k when it is shorter than the others' (0: every entry's is k) */
  int k_last;
} dlg_zgemm_args;

/* A 64 x 64 complex tile of C per block of 128 threads (the real kernel's
 * 128 x 64, its rows C's real and imaginary parts), two blocks per SM,
 * k in steps of 8 complex elements, three cp.async stages. */
#define DLG_ZGEMM_BM 64
#define DLG_ZGEMM_BN 64
#define DLG_ZGEMM_BK 8
#define DLG_ZGEMM_STAGES 3
#define DLG_ZGEMM_THREADS 128
#define DLG_ZGEMM_BLOCKS_PER_SM 2
/* A ROWS x BK tile of complex elements, stored [k][row] with rows padded
 * to ROWS + 4 or [row][k] with k padded to BK + 2 (zgemm_dmma.cu says
 * why): room for the larger, in doubles. */
#define DLG_ZGEMM_TILE(ROWS)                                                                  \
  (2 * ((ROWS) * (DLG_ZGEMM_BK + 2) > DLG_ZGEMM_BK * ((ROWS) + 4) ? (ROWS) * (DLG_ZGEMM_BK + 2) \
                                                                   : DLG_ZGEMM_BK * ((ROWS) + 4)))
#define DLG_ZGEMM_STAGE_DOUBLES (DLG_ZGEMM_TILE(DLG_ZGEMM_BM) + DLG_ZGEMM_TILE(DLG_ZGEMM_BN))
#define DLG_ZGEMM_SMEM (DLG_ZGEMM_STAGES * DLG_ZGEMM_STAGE_DOUBLES * 8)
/* The small tile (dlg_<z|c>gemm_dmma32_*): 32 x 32 complex elements of C a
 * block (the real 64 x 32; each warp 16 complex rows by 16 columns, 16
 * accumulators a lane), four blocks an SM, for products with a side of a
 * few dozen, which the 64 x 64 tile leaves mostly empty: cuBLAS's ZGEMM
 * runs 24 x 4096 x 4096 on a complex 32 x 32 tile, k in 2 (H200 ncu,
 * session 39). */
#define DLG_ZGEMM_SMALL 32
#define DLG_ZGEMM_SMALL_BLOCKS_PER_SM 4
#define DLG_ZGEMM_SMALL_SMEM (DLG_ZGEMM_STAGES * 2 * DLG_ZGEMM_TILE(DLG_ZGEMM_SMALL) * 8)
/* A kernel's shared memory, for the loader and the launches alike: the
 * stages of the 64 x 64 tile or of the small one, complex64's the same
 * tiles of floats (half the bytes). */
#define DLG_ZGEMM_SMEM_OF(c64, small) \
  (((small) ? DLG_ZGEMM_SMALL_SMEM : DLG_ZGEMM_SMEM) / ((c64) ? 2 : 1))

#endif
