/*
 * dgemm_args.h - the kernel parameter and tile constants of the FP64
 * tensor-core GEMM (dgemm_dmma.cu), shared with the host code that launches
 * it (plain C), so the two cannot disagree.
 */
#ifndef DLG_DGEMM_ARGS_H
#define DLG_DGEMM_ARGS_H

typedef struct dlg_dgemm_args {
  int m, n, k;
  double alpha, beta;
  const double *a;
  const double *b;
  double *c;
  long long lda, ldb, ldc;
  long long sa, sb, sc; /* batch strides (elements); 0 broadcasts */
  int vec_a, vec_b;     /* 16-byte copies are legal for this operand */
} dlg_dgemm_args;

/* A 128 x 128 tile of C per block of 256 threads, k in steps of 16, three
 * shared-memory stages (dgemm_dmma.cu says why). */
#define DLG_DGEMM_BM 128
#define DLG_DGEMM_BN 128
#define DLG_DGEMM_BK 16
#define DLG_DGEMM_STAGES 3
#define DLG_DGEMM_THREADS 256
/* A stage holds a BM x BK and a BK x BN tile, each either as [k][row] with
 * rows padded to BM + 4 or as [row][k] with k padded to BK + 4; the larger. */
#define DLG_DGEMM_TILE_DOUBLES \
  ((DLG_DGEMM_BM * (DLG_DGEMM_BK + 4)) > (DLG_DGEMM_BK * (DLG_DGEMM_BM + 4)) \
       ? (DLG_DGEMM_BM * (DLG_DGEMM_BK + 4))                                 \
       : (DLG_DGEMM_BK * (DLG_DGEMM_BM + 4)))
#define DLG_DGEMM_SMEM (DLG_DGEMM_STAGES * 2 * DLG_DGEMM_TILE_DOUBLES * 8)

#endif
