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
  /* Split-K's chunks are a batch strided along k (dgemm.c): the last
   * entry's k when it is shorter than the others' (0: every entry's is k) */
  int k_last;
  /* The TMA kernel's row-contiguous operands: 1 when its tensor map is
   * the 4-D view that brings a stage's rows in one box, else 0 (a box of
   * 16 rows at a time; dgemm.c) */
  int whole_a, whole_b;
  /* The TMA kernel writes C by TMA stores (beta 0, C addressable: its map,
   * dgemm.c's c_map) */
  int c_tma;
  /* The last wave split along k (dlg_dgemm_tail_*; one matrix, no
   * split-K): blocks below tail_dp take tiles 0..tail_dp-1 whole; block
   * tail_dp + j takes chunk j % tail_splits (tail_chunk k-steps of BK, the
   * last shorter) of tile tail_dp + j / tail_splits, its part to entry j of
   * tail_work (BM x BN each); the block that brings the tile's tail_count
   * (zeroed before the launch) to tail_splits - 1 adds the parts into C. */
  int tail_dp, tail_splits, tail_chunk;
  double *tail_work;
  int *tail_count;
} dlg_dgemm_args;

/* A 128 x 64 tile of C per block of 128 threads, two blocks per SM, k in
 * steps of 16, three shared-memory stages (dgemm_dmma.cu says why).  The
 * grid is one-dimensional over C's tiles (the kernel orders them in bands,
 * DLG_DGEMM_BAND tile columns wide), blockIdx.z the batch. */
#define DLG_DGEMM_BM 128
#define DLG_DGEMM_BN 64
#define DLG_DGEMM_BK 16
#define DLG_DGEMM_STAGES 3
#define DLG_DGEMM_THREADS 128
#define DLG_DGEMM_BLOCKS_PER_SM 2
#define DLG_DGEMM_BAND 8
/* A ROWS x BK tile is stored either as [k][row] with rows padded to
 * ROWS + 4 or as [row][k] with k padded to BK + 4: room for the larger. */
#define DLG_DGEMM_TILE(ROWS) \
  ((ROWS) * (DLG_DGEMM_BK + 4) > DLG_DGEMM_BK * ((ROWS) + 4) ? (ROWS) * (DLG_DGEMM_BK + 4) \
                                                              : DLG_DGEMM_BK * ((ROWS) + 4))
#define DLG_DGEMM_STAGE_DOUBLES (DLG_DGEMM_TILE(DLG_DGEMM_BM) + DLG_DGEMM_TILE(DLG_DGEMM_BN))
#define DLG_DGEMM_SMEM (DLG_DGEMM_STAGES * DLG_DGEMM_STAGE_DOUBLES * 8)
/* The thin tiles (dgemm_dmma.cu's thin kernels, cp.async only): C 32
 * rows by 128 columns (dlg_dgemm_thin_m_*) or 128 by 32 (_thin_n_*), each
 * of the four warps a 32 x 32 block of C, for products with a side of a
 * few dozen, which the 128 x 64 tile would mostly leave empty (dgemm.c
 * says when). */
#define DLG_DGEMM_THIN 32
#define DLG_DGEMM_THICK 128
#define DLG_DGEMM_THIN_SMEM \
  (DLG_DGEMM_STAGES * (DLG_DGEMM_TILE(DLG_DGEMM_THIN) + DLG_DGEMM_TILE(DLG_DGEMM_THICK)) * 8)
/* The flat tile (dlg_dgemm_flat_*, cp.async only): the wide tile on its
 * side, C 64 rows by 128 columns, each of the four warps 32 x 64 (as many
 * accumulators and fragment reads a DMMA as the wide tile's 64 x 32), the
 * same shared memory.  For products 33-64 (or 129-192) rows tall: one
 * row of tiles reads B once, where the thin tiles' two (or six) read it
 * two (six) times (dgemm.c says when). */
#define DLG_DGEMM_FLAT_BM DLG_DGEMM_BN
#define DLG_DGEMM_FLAT_BN DLG_DGEMM_BM
/* The TMA kernel (dgemm_tma.cu, sm_90): four stages of dense, swizzled
 * tiles, two mbarriers a stage, the boxes' coordinates, and room to put
 * the stages on a 1024-byte boundary; two blocks still fit an SM (2 x 99
 * KB of 228). */
#define DLG_DGEMM_TMA_STAGES 4
/* its block: the tile's 128 threads and a producer warpgroup */
#define DLG_DGEMM_TMA_THREADS 256
#define DLG_DGEMM_TMA_SMEM                                                        \
  (DLG_DGEMM_TMA_STAGES * (DLG_DGEMM_BM + DLG_DGEMM_BN) * DLG_DGEMM_BK * 8 +     \
   16 * DLG_DGEMM_TMA_STAGES + 16 + 1024)

#endif
