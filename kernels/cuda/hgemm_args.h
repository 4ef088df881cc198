/*
 * hgemm_args.h - kernel parameters and tile constants of the tensor-core
 * GEMMs (hgemm_mma.cu, hgemm_wgmma.cu) and of the TF32 packing pass
 * (tf32_pack.cu), shared with the host launchers (plugin/cuda/device/hgemm.c,
 * plugin/cuda/device/tf32.c, plain C) so the two sides cannot disagree.
 */
#ifndef DLG_HGEMM_ARGS_H
#define DLG_HGEMM_ARGS_H

/* The kernels' input kinds.  TF32 operands (FP32 bit patterns, the tensor
 * cores reading the top 19 bits) travel as pairs of 16-bit halves: the host
 * passes k, leading dimensions and batch strides in 16-bit units.  In a
 * k-contiguous tile the bytes a fragment holds are then float16's: an
 * m16n8k8 TF32 fragment is the m16n8k16 one (8 rows of 16 bytes per
 * register), a k8 wgmma step the 32 bytes of a k16 one; so the TF32 kernels
 * are the float16 kernels' k-contiguous variant with the instruction
 * changed.  TF32 has no transposed form: both operands must be
 * k-contiguous (the host packs those that are not), except the first
 * operand of the sm_90a rk kernels, read through registers.  TF32X3 is TF32 for
 * the 3xTF32 policy: the wgmma kernel adds each k-tile's products into
 * IEEE FP32 sums (hgemm_wgmma.cu says why); mma.sync runs it as TF32. */
enum { DLG_TC_F16 = 0, DLG_TC_BF16 = 1, DLG_TC_TF32 = 2, DLG_TC_TF32X3 = 3, DLG_TC_KINDS = 4 };

/* C's element type, read by the epilogue (a runtime choice: the epilogue is
 * not the hot loop, and it saves three copies of every kernel). */
enum { DLG_HOUT_F32 = 0, DLG_HOUT_F16 = 1, DLG_HOUT_BF16 = 2 };

typedef struct dlg_hgemm_args {
  int m, n, k;
  float alpha, beta;
  const void *a; /* float16, bfloat16, or float for TF32 (see DLG_TC_TF32) */
  const void *b;
  void *c;
  long long lda, ldb, ldc;
  long long sa, sb, sc; /* batch strides (elements); 0 broadcasts */
  int vec_a, vec_b;     /* 16-byte copies are legal for this operand */
  int c_type;           /* DLG_HOUT_* */
  int batch;            /* the wgmma kernels' persistent walk covers the batch */
  int c_trans;          /* wgmma: the kernel computes C^T, element (i, j) at c[i * ldc + j] */
  int c_pair;           /* wgmma: c and ldc allow stores of two adjacent elements */
  int c_tma;            /* wgmma: C leaves through the staging area and TMA stores, by
                           the kernel's tensor map of C (and, beta != 0, comes in by
                           TMA loads the same way) */
  int walk_rows;        /* wgmma: tile-rows per group of the persistent walk */
  int splits, kchunk;   /* wgmma: k cut into `splits` chunks of kchunk (a multiple of
                           DLG_WGMMA_BK), each chunk's product to its own entry of C
                           (a workspace): entry b * splits + s for batch entry b */
} dlg_hgemm_args;

/* mma.sync kernels (hgemm_mma.cu): a BM x BN tile of C per block of four
 * warps (2 x 2, each BM / 2 x BN / 2), k in steps of 32 through cp.async
 * stages.  Three tiles, by index: dlg_hgemm_mma_* (128 x 128, four stages),
 * dlg_hgemm_mma64_* (64 x 64, three) and dlg_hgemm_mma32_* (32 x 32, two):
 * the small ones for products and batches of them that a 128 x 128 tile
 * would leave mostly padding, or that make too few of its tiles to fill
 * the SMs (hgemm.c picks). */
#define DLG_HMMA_TILES 3
#define DLG_HMMA_BM(i) ((i) == 0 ? 128 : (i) == 1 ? 64 : 32)
#define DLG_HMMA_BN(i) DLG_HMMA_BM(i)
#define DLG_HMMA_BK 32
#define DLG_HMMA_STAGES(i) (4 - (i))
#define DLG_HMMA_THREADS 128
#define DLG_HMMA_SMEM(i) (DLG_HMMA_STAGES(i) * (DLG_HMMA_BM(i) + DLG_HMMA_BN(i)) * DLG_HMMA_BK * 2)

/* wgmma kernels (hgemm_wgmma.cu, sm_90a): a BM x BN tile of C (128 x 256,
 * 128 x 192, 128 x 128, 192 x 192, or the narrow 128 x 16 below) per block
 * of 1 + BM / 64 warpgroups (a TMA producer and a consumer of 64 x BN for
 * each 64 rows), k in steps of 64 (16-bit elements) through four TMA
 * stages (the narrow tile ten); one block per SM.  (Six stages for BN 128
 * were measured slower: bench/NOTES.md.)  Shared memory: the stages, 1 KB
 * to align them to the swizzle's period, C's staging area (8 KB buffers of
 * 64 x 64 16-bit or 32 x 64 FP32 values, two per consumer, one in the
 * 192-row tile so that its four stages fit), the mbarriers (full and empty
 * per stage, and loaded and free per staging buffer when C is read through
 * it). */
/* The wgmma tiles, by index: kernels dlg_hgemm_wgmma_* (128 x 256),
 * dlg_hgemm_wgmma128_* (128 x 128), dlg_hgemm_wgmma192_* (128 x 192),
 * dlg_hgemm_wgmma192x192_* (16-bit kinds only) and dlg_hgemm_wgmma64_*
 * (128 x 64: products 17-64 wide, which stream their wide operand; its
 * stages are a third of the 256-wide tile's, so it keeps eight of them in
 * flight). */
#define DLG_WGMMA_TILES 5
#define DLG_WGMMA_BN(i) ((i) == 0 ? 256 : (i) == 1 ? 128 : (i) == 4 ? 64 : 192)
#define DLG_WGMMA_BM(i) ((i) == 3 ? 192 : 128)
#define DLG_WGMMA_BK 64
/* The narrow tile (kernels dlg_hgemm_wgmma16_<f16|bf16>_<rk|kk>): 128 x 16,
 * for products 16 or fewer wide on a k-contiguous operand (decode steps),
 * its 18 KB stages ten deep: the product streams the wide operand, and the
 * stages are what it has in flight. */
#define DLG_WGMMA_NARROW_BN 16
#define DLG_WGMMA_STAGES_FOR(BN) ((BN) == DLG_WGMMA_NARROW_BN ? 10 : (BN) == 64 ? 8 : 4)
#define DLG_WGMMA_THREADS(BM) (128 * (1 + (BM) / 64))
#define DLG_WGMMA_C_BUFS(BM) ((BM) > 128 ? 1 : 2)
#define DLG_WGMMA_C_STAGE(BM) ((BM) / 64 * DLG_WGMMA_C_BUFS(BM) * 64 * 64 * 2)
#define DLG_WGMMA_SMEM(BM, BN)                                                              \
  (DLG_WGMMA_STAGES_FOR(BN) * ((BM) + (BN)) * DLG_WGMMA_BK * 2 + 1024 +                     \
   DLG_WGMMA_C_STAGE(BM) +                                                                  \
   (2 * DLG_WGMMA_STAGES_FOR(BN) + 2 * DLG_WGMMA_C_BUFS(BM) * (BM) / 64) * 8)

/* The TF32 packing pass (tf32_pack.cu): rows x k FP32 operand, element
 * (i, l) of batch z at src[z * bs + i * rs + l * ks], written k-contiguous
 * as segs segments of k: dst[z * dbs + i * ld + s * k + l] is element (i, l)
 * rounded to TF32 (its "high part"), or, where bit s of lo_mask is set, the
 * rounding error of that, rounded to TF32 again (its "low part").  A tile
 * of 32 x 32 per block of 32 x 8 threads, through shared memory, so that
 * reads and writes are both coalesced whichever dimension is contiguous. */
typedef struct dlg_tf32_pack_args {
  const float *src;
  long long rs, ks, bs;
  float *dst;
  long long ld, dbs;
  int rows, k, segs, lo_mask;
} dlg_tf32_pack_args;
#define DLG_TF32_PACK_TILE 32
#define DLG_TF32_PACK_ROWS 8

/* The 16-bit padding copy (tf32_pack.cu, dlg_pad16): a len x cols matrix
 * of 16-bit elements, element (i, j) of batch z at src[z * sbs + j * sld +
 * i], to dst[z * dbs + j * dld + i], dld and dbs multiples of 8 (16 bytes),
 * the row's tail up to a multiple of 8 zeroed.  Eight elements a thread. */
typedef struct dlg_pad16_args {
  const unsigned short *src;
  long long sld, sbs;
  unsigned short *dst;
  long long dld, dbs;
  long long len, cols, batch;
} dlg_pad16_args;
#define DLG_PAD16_THREADS 256

#endif
