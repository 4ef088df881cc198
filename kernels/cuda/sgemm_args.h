/*
 * sgemm_args.h - the one kernel parameter of the SIMT SGEMM kernels and the
 * table of their tile shapes, shared by the CUDA source and the host code
 * that launches them (plain C), so the two can never disagree.
 */
#ifndef DLG_SGEMM_ARGS_H
#define DLG_SGEMM_ARGS_H

typedef struct dlg_sgemm_args {
  int m, n, k;
  float alpha, beta;
  const float *a;
  const float *b;
  float *c;
  long long lda, ldb, ldc;
  long long sa, sb, sc;      /* batch strides (elements); 0 broadcasts */
  int splits, kchunk;        /* split-K: blockIdx.z = batch * splits + split */
  int vec_a, vec_b, vec_c;   /* 16-byte accesses are legal for this operand */
  /* Stream-K (dlg_sgemm_streamk_*; one matrix, no split-K): the first sk_dp blocks
   * take tiles 0..sk_dp-1 whole; the next sk_ctas share sk_units = (tiles -
   * sk_dp) * sk_iters units of BK-deep work of the tiles from sk_dp on
   * evenly; partial tiles go to sk_work, two tiles per block, and are
   * summed by whichever block brings the tile's sk_count (zeroed before the
   * launch, one per stream-K tile) to its number of parts. */
  int sk_ctas, sk_iters, sk_dp;
  long long sk_units;
  float *sk_work;
  int *sk_count;
  /* The complex64 kernels (dlg_csimt_*): m, n, k count complex elements,
   * leading dimensions and batch strides floats; alpha is (alpha,
   * alpha_im), beta real (callers scale C by a complex one first); conj_c
   * conjugates the product before alpha (sgemm_simt.cu says why). */
  float alpha_im;
  int conj_c;
} dlg_sgemm_args;

#define DLG_SGEMM_THREADS 256

/* Floats added to each row of a shared-memory tile (sgemm_simt.cu says why). */
#define DLG_SGEMM_PAD 4

/* The block tiles: X(id, BM, BN, BK, STAGES, MINB, ORDER, SK) is a BM x BN
 * tile of C stepping BK through k with STAGES shared-memory stages, its
 * register budget set for MINB blocks per SM, its FFMAs issued in ORDER (see
 * ffma_block in sgemm_simt.cu), with stream-K twins if SK.  The skinny
 * tiles (64 x 256, 256 x 64: a side of 64 against n or m in the thousands)
 * run split-K; their stream-K twins would never be picked, and spill on
 * sm_80.  Kernels are dlg_sgemm_<BM>x<BN>_<ab>;
 * sgemm_simt.cu instantiates this list and the host builds its table and
 * the dynamic shared memory sizes from it, so they cannot disagree.  The
 * values are the best measured on the H100 (bench/NOTES.md); the macros let
 * a tuning run (cmake -DDLGEMM_CUDA_TUNE=...) try others without edits. */
#ifndef DLG_SGEMM_BIG_BK
#define DLG_SGEMM_BIG_BK 8
#endif
#ifndef DLG_SGEMM_BIG_STAGES
#define DLG_SGEMM_BIG_STAGES 4
#endif
#ifndef DLG_SGEMM_BIG_ORDER
#define DLG_SGEMM_BIG_ORDER 1
#endif
#ifndef DLG_SGEMM_MID_BK
#define DLG_SGEMM_MID_BK 16
#endif
#ifndef DLG_SGEMM_MID_STAGES
#define DLG_SGEMM_MID_STAGES 3
#endif
#ifndef DLG_SGEMM_MID_ORDER
#define DLG_SGEMM_MID_ORDER 3
#endif
#define DLG_SGEMM_TILE_LIST(X)                                                                \
  X(DLG_TILE_128x256, 128, 256, DLG_SGEMM_BIG_BK, DLG_SGEMM_BIG_STAGES, 1, DLG_SGEMM_BIG_ORDER, 1) \
  X(DLG_TILE_256x128, 256, 128, DLG_SGEMM_BIG_BK, DLG_SGEMM_BIG_STAGES, 1, DLG_SGEMM_BIG_ORDER, 1) \
  X(DLG_TILE_128x128, 128, 128, DLG_SGEMM_MID_BK, DLG_SGEMM_MID_STAGES, 2, DLG_SGEMM_MID_ORDER, 1) \
  X(DLG_TILE_64x256, 64, 256, DLG_SGEMM_MID_BK, DLG_SGEMM_MID_STAGES, 2, 3, 0)              \
  X(DLG_TILE_256x64, 256, 64, DLG_SGEMM_MID_BK, DLG_SGEMM_MID_STAGES, 2, 1, 0)              \
  X(DLG_TILE_64x64, 64, 64, 8, 4, 2, 3, 1)

/* The complex64 tiles (dlg_csimt_<BM>x<BN>_<ab>[_x]): X(id, BM, BN, BK,
 * STAGES, MINB) is a BM x BN tile of complex C, k in steps of BK, run by
 * the real tile of twice its rows and columns (sgemm_simt.cu), so that a
 * thread's accumulators are half the real tile's for the same FFMAs per
 * fragment load.  plugin/cuda/level3/csimt.c picks among them.  The real
 * big tiles' geometry (64 x 128, 128 x 64 complex) ran 4-15% slower than
 * 64 x 64 at 4096^2-8192^2 at two blocks an SM (128 registers; H200,
 * session 38) and spilled on some layouts: the 64 x 64 tile is the
 * products', the 32 x 32 one the small products'. */
#define DLG_CSIMT_TILE_LIST(X)            \
  X(DLG_CTILE_64x64, 64, 64, 16, 3, 2)    \
  X(DLG_CTILE_32x32, 32, 32, 8, 4, 2)

/* Shared memory of one block of a tile, in bytes. */
#define DLG_SGEMM_SMEM(BM, BN, BK, STAGES) \
  ((STAGES) * (BK) * ((BM) + (BN) + 2 * DLG_SGEMM_PAD) * 4)

#define DLG_TILE_ENUM(id, bm, bn, bk, stages, minb, order, sk) id,
enum { DLG_SGEMM_TILE_LIST(DLG_TILE_ENUM) DLG_TILES };
#undef DLG_TILE_ENUM
#define DLG_CTILE_ENUM(id, bm, bn, bk, stages, minb) id,
enum { DLG_CSIMT_TILE_LIST(DLG_CTILE_ENUM) DLG_CTILES };
#undef DLG_CTILE_ENUM

#endif
