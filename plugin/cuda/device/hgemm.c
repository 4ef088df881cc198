/*
 * hgemm.c - launches of the tensor-core kernels: float16 / bfloat16
 * dlg_gemms on device memory, and the TF32 products tf32.c prepares.
 *
 * Two families: on compute capability 9.0, the sm_90a kernels
 * (kernels/cuda/hgemm_wgmma.cu: TMA + wgmma, persistent) take what TMA can
 * address - 16-byte aligned operands and leading dimensions, m and n of at
 * least a tile's worth - and the mma.sync kernels (hgemm_mma.cu) take the
 * rest and everything on other chips (a large product with an operand TMA
 * cannot address reaches the wgmma kernels through a padded copy: pad.c).
 * Products 16 or fewer wide on a k-contiguous operand (decode steps, from
 * narrow.c) take the wgmma kernels' narrow 128 x 16 tile.
 * Both are picked by input kind and orientation (orient.h); C's type is a
 * kernel argument.
 * DLGEMM_HGEMM_KERNEL=mma|wgmma pins the family where it applies.
 */
#include <stdint.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/device/hgemm.h"
#include "cuda/device/kernels.h"
#include "cuda/device/narrow.h"
#include "cuda/device/orient.h"

/* Whether an operand's rows all start on 128-byte lines (its base, leading
 * dimension and batch stride; ld and bs in 16-bit units). */
static int on_lines(const dlg_operand *o)
{
  return (uintptr_t)o->data % 128 == 0 && o->ld * 2 % 128 == 0 && o->bs * 2 % 128 == 0;
}

/* TMA's view of one matrix (an operand, or C): a 3-D tensor (contiguous dimension, the other
 * one, batch) cut into boxes of inner x outer elements, 128-byte swizzled.
 * A broadcast operand (batch stride 0) has a batch extent of 1.  L2 fetches
 * 256 bytes around each miss when the rows start on 128-byte lines, 128
 * otherwise: a box row then straddles two lines, and the wider fetch cost
 * bfloat16 3000^3 (leading dimension 3000, not copied) 13% (H100: 0.58 of
 * cuBLAS, 0.66 with 128 or less). */
static CUresult tensor_map(const dlg_cuda_api *cu, CUtensorMap *map, int kind, const dlg_operand *o,
                           uint64_t inner, uint64_t outer, int64_t batch, uint32_t box_inner,
                           uint32_t box_outer)
{
  const cuuint64_t dims[3] = {inner, outer, o->bs ? (cuuint64_t)batch : 1};
  const uint64_t row = (uint64_t)o->ld * 2;
  const cuuint64_t strides[2] = {row, o->bs ? (cuuint64_t)o->bs * 2 : ((row * outer + 15) & ~15ull)};
  const cuuint32_t box[3] = {box_inner, box_outer, 1}, step[3] = {1, 1, 1};
  /* TF32 kinds are 16-bit halves to TMA (hgemm_args.h): only copied */
  const CUtensorMapDataType type = kind == DLG_TC_F16    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                   : kind == DLG_TC_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                         : CU_TENSOR_MAP_DATA_TYPE_UINT16;
  const int lines = on_lines(o);
  return cu->TensorMapEncodeTiled(map, type, 3, (void *)o->data, dims, strides, box, step,
                                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                  lines ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                        : CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

/* TMA's view of C for the wgmma epilogue's stores: the kernel's rows x cols
 * product, C's contiguous dimension inner (cols when c_trans), swizzled as
 * the staging buffers are: 64 x 64 boxes of a 16-bit C; of FP32, which TMA
 * copies as pairs of 16-bit halves (as TF32 operands), 32 x 64 (c_trans)
 * or 32 x 32.  Nonzero when TMA cannot address C (alignment), or when C's
 * contiguous extent is not a whole number of 16-byte units: a TMA store
 * writes the last unit of a row whole, past C's edge into its leading
 * dimension's padding (H100: m = 521 FP32 wrote rows 521-523 of ld 524,
 * m = 13 bfloat16 rows 13-15 of ld 16), so such a C leaves through the
 * element stores. */
static CUresult c_tensor_map(const dlg_cuda_api *cu, CUtensorMap *map, const dlg_hgemm_args *t)
{
  const int f32 = t->c_type == DLG_HOUT_F32, per16 = f32 ? 4 : 8;
  const long long entries = (long long)t->batch * t->splits, sc = entries > 1 ? t->sc : 0;
  const long long inner = t->c_trans ? t->n : t->m;
  const dlg_operand c = {t->c, t->ldc << f32, sc << f32, 0,
                         (uintptr_t)t->c % 16 == 0 && t->ldc % per16 == 0 && sc % per16 == 0 &&
                             inner % per16 == 0};
  if (!c.vec) return CUDA_ERROR_INVALID_VALUE;
  return tensor_map(cu, map,
                    f32 ? DLG_TC_TF32 : t->c_type == DLG_HOUT_F16 ? DLG_TC_F16 : DLG_TC_BF16, &c,
                    (uint64_t)inner << f32,
                    (uint64_t)(t->c_trans ? t->m : t->n), entries, 64,
                    f32 && !t->c_trans ? 32 : 64);
}

/* C's tiles for tile w (DLG_WGMMA_BM / _BN index) over the batch. */
static long long tile_count(int w, long long rows, long long cols, long long batch)
{
  const int bm = DLG_WGMMA_BM(w), bn = DLG_WGMMA_BN(w);
  return (rows + bm - 1) / bm * ((cols + bn - 1) / bn) * batch;
}

/* The wgmma tile (DLG_WGMMA_BM / _BN index) for a rows x cols product:
 * among the tiles with a kernel in f, the one whose waves over the SMs cost
 * least, each tile's area counted at its measured rate relative to the 128
 * x 256 tile's (smaller tiles read their operands more often per flop; the
 * 192 x 192 tile ran bfloat16 8192^3 at 0.97-0.99 of the 128 x 256 one,
 * and takes 3000^3, 2 waves where 128 x 192 makes 3: 0.90 -> 1.00 of
 * cuBLAS; bench/NOTES.md).  DLGEMM_WGMMA_WIDTH pins one that has a kernel.
 * The 128 x 64 tile (index 4, "thin") is for products 5-64 wide that
 * stream their wide operand, and only with the narrow side as its 64 columns
 * (thin_side below): there bfloat16 / float16 8192 x 24..64 x 8192 ran at
 * 0.79-0.97 of cuBLAS in every layout against 0.55-0.80 on the 128 x 256
 * tile split along k, while the same tile with the narrow side as its 128
 * rows ran at 0.50-0.65 (H200, session 33, bench/NOTES.md).  Its rate is a
 * guess that only split-K's estimate reads. */
enum { WGMMA_THIN = 4 };
static const double wgmma_rate[DLG_WGMMA_TILES] = {1.0, 0.9, 0.97, 0.98, 0.8};

static int pick_tile(const dlg_cuda_device *dev, int kind, int v, int thin,
                     long long rows, long long cols, long long batch)
{
  const int sms = dev->sms;
  const int pin = dlg_config_get()->wgmma_tile;
  double best = 0;
  int w, pick = -1;
  if (thin) return WGMMA_THIN; /* the launch found its kernel for v */
  for (w = 0; w < DLG_WGMMA_TILES; w++) {
    const long long waves = (tile_count(w, rows, cols, batch) + sms - 1) / sms;
    const double cost = (double)waves * DLG_WGMMA_BM(w) * DLG_WGMMA_BN(w) / wgmma_rate[w];
    if (!dev->hgemm_wgmma[w][kind][v]) continue;
    if (pin == w + 1) return w;
    if (w == WGMMA_THIN) continue;
    if (pick < 0 || cost < best) best = cost, pick = w;
  }
  return pick;
}

/* Whether a (not on the narrow tile) is a thin tile's product: a side of
 * 64 or fewer against 128 or more of the other side and of k.  Against
 * 1024 or more that is the stream the tile was built for, including 16-bit
 * products 5-16 wide whose narrow operand is not k-contiguous (narrow.c
 * hands them here): bf16 / f16 8192 x 8 x 8192 NN, NT, TT and 16 x 8192 x
 * 8192 NT ran at 0.85-1.01 of cuBLAS on it against 0.71-0.90 on the 128 x
 * 256 tile (H200, session 33).  Against 128-512 it is attention's second
 * product (seq x 64 x seq a head), which the tile fills whole where the
 * mma.sync tile left half of it padding: bf16 / f16 seq 128-512 0.96-1.25
 * of cuBLAS in every layout against 0.30-0.56, TF32 0.45-1.15 against
 * 0.18-0.53 (H200, session 34).  Pinned (DLGEMM_WGMMA_WIDTH=64), any
 * product with a side of 128 or more puts its narrow side on the tile's
 * columns, for measurements: 16-bit products 96-256 wide lost so (0.68
 * of cuBLAS against 0.80 by default, session 34), as d = 128 heads did.
 * A side of 65-128 against 1024 or more of the other side and of k goes on
 * the tile's 128 rows instead, the wide operand streamed once in 64-column
 * tiles, a wave of them at 8192 (cuBLAS streams a 192-wide product so, on
 * a 192 x 64 tile): bfloat16 8192 x 128 x 8192 in every layout ran at
 * 0.98-1.05 of cuBLAS so against 0.83-0.87 on the 128 x 256 tile, 96 wide
 * 0.78-0.98 against 0.81-0.90 (geometric means 0.87 / 0.84), and 192-256
 * wide lost (0.48-0.72 against 0.73-1.17: H200, session 37).  Pinned as
 * `64r`, any product with a side of 128 or more does so (measurements).
 * The result: 0 (not a thin tile's product), THIN_COLS or THIN_ROWS. */
enum { THIN_COLS = 1, THIN_ROWS = 2, PIN_THIN_ROWS = DLG_WGMMA_TILES + 1 };
static int thin_side(const dlg_hgemm_args *a)
{
  const int pin = dlg_config_get()->wgmma_tile;
  const int lo = a->m < a->n ? a->m : a->n, hi = a->m < a->n ? a->n : a->m;
  if (pin == WGMMA_THIN + 1) return hi >= 128 ? THIN_COLS : 0;
  if (pin == PIN_THIN_ROWS) return hi >= 128 ? THIN_ROWS : 0;
  if (pin) return 0;
  if (lo > DLG_WGMMA_BN(WGMMA_THIN))
    return lo <= DLG_WGMMA_BM(WGMMA_THIN) && hi >= 1024 && a->k >= 1024 ? THIN_ROWS : 0;
  return hi >= 128 && a->k >= 128 ? THIN_COLS : 0;
}

/* Split-K, for products of fewer tiles than SMs (a decode step's 4096 x
 * 128 x 4096 is 32 tiles of 128 x 128 for 132 SMs): k cut into s chunks of
 * whole k-tiles, each chunk's product an entry of an FP32 workspace (the
 * kernel's walk takes the chunks as it takes batch entries), then added in
 * chunk order into C with alpha and beta (dlg_cuda_splits_reduce, launched
 * early: bfloat16 4096 x 128 x 4096 0.85 -> 0.89 of cuBLAS, 16 columns
 * level; bench/NOTES.md, which also tells of a sum in the kernel that did
 * not pay).  s is
 * the cheapest by an estimate in microseconds on the H100: a k-tile of the
 * 256-wide tile takes an SM 0.69 us (128 x 256 x 64 at 800 TFLOP/s over
 * 132 SMs; a TF32 k-tile, 32 of k, as long), narrower tiles their share at
 * their rate, each tile pays about FILL k-tiles to fill the pipeline and
 * store C, and the reduce a launch and its bytes (the partials written and
 * read, C read and written) at HBM speed.  DLGEMM_WGMMA_SPLITS pins s
 * (tests: any product the wgmma kernels take). */
enum { FILL_KTILES = 3 };
static const double KTILE_US = 0.69, REDUCE_LAUNCH_US = 3, HBM_BYTES_PER_US = 2.5e6;

/* A thin tile's product (thin_side) streams its wide operand, so its time
 * is at least that stream's: the operands and C at HBM speed once its
 * blocks occupy half the SMs, at their share of it below that.  A block of
 * the 128 x 64 tile streamed 36-37 KB a microsecond whatever the type
 * (bfloat16 8192 x 32 x 8192, 64 blocks in 57 us: 2.35 TB/s; TF32 4096 x
 * 16 x 4096, 32 blocks in 58 us; H100, session 41), so past half the SMs
 * more chunks of k buy little but the reduce.  The compute estimate alone
 * cut the 8192-wide bfloat16 / float16 products into chunks, 0.84-0.90 of
 * cuBLAS, where one chunk ran at 0.93-1.02 (8 to 64 wide, every layout,
 * each split pinned).  The floor decides only that, one chunk or the
 * split the compute estimate chose (plan_wgmma): as a term of every
 * estimate it moved the 4096-wide plans from four chunks to three, never
 * measured.  16-bit only: TF32's thin products were measured at one, two
 * and four chunks, and the floor was worse there (0.938 against 0.970);
 * 3xTF32's three products are not in the compute estimate. */
static double stream_us(const dlg_cuda_device *dev, long long rows, long long cols,
                        const dlg_hgemm_args *a, long long batch, long long blocks, int s)
{
  const double es = 2, ces = a->c_type == DLG_HOUT_F32 ? 4 : 2;
  const double share = 2.0 * (double)blocks / dev->sms;
  /* C's bytes here only for one chunk: the reduce's estimate has them */
  const double c_bytes = s > 1 ? 0 : (double)rows * cols * ces * (a->beta != 0 ? 2 : 1);
  return ((double)(rows + cols) * (double)a->k * es + c_bytes) * (double)batch /
         (HBM_BYTES_PER_US * (share < 1 ? share : 1));
}

/* w: the tile (-1: no kernel), tiles: of C over the batch (the launch
 * walks splits times as many) */
typedef struct wgmma_plan { int w, splits, kchunk; long long tiles; } wgmma_plan;

/* The plan for s chunks of k (s realizable: ceil(ktiles / s) k-tiles each
 * leave no chunk empty), and its estimated time. */
static wgmma_plan split_plan(const dlg_cuda_device *dev, int kind, int v, int thin, long long rows,
                             long long cols, const dlg_hgemm_args *a, long long batch,
                             long long ktiles, int s, int floored, double *us)
{
  const long long chunk = (ktiles + s - 1) / s;
  const int w = pick_tile(dev, kind, v, thin, rows, cols, batch * s);
  const long long tiles = w < 0 ? 0 : tile_count(w, rows, cols, batch);
  const double ces = a->c_type == DLG_HOUT_F32 ? 4 : 2, mn = (double)a->m * a->n * batch;
  const wgmma_plan pl = {w, s, (int)(chunk * DLG_WGMMA_BK), tiles};
  if (w < 0) return pl;
  *us = (double)((tiles * s + dev->sms - 1) / dev->sms) * (double)(chunk + FILL_KTILES) *
        KTILE_US * DLG_WGMMA_BM(w) * DLG_WGMMA_BN(w) / (128 * 256) / wgmma_rate[w];
  if (floored) {
    const double floor_us = stream_us(dev, rows, cols, a, batch, tiles * s, s);
    if (floor_us > *us) *us = floor_us;
  }
  if (s > 1)
    *us += REDUCE_LAUNCH_US + mn * (8.0 * s + ces * (a->beta != 0 ? 2 : 1)) / HBM_BYTES_PER_US;
  return pl;
}

/* Two chunks of k, whatever the estimate says, for a single product whose
 * narrow side, 129-192, is a tile and a half or one 192-row tile against
 * 1024 or more of the other side and of k: the estimate kept one chunk on
 * the 128 x 128 tile (one wave), which ran bfloat16 192 x 8192 x 8192 and
 * 8192 x 192 x 8192 at 0.69-1.03 of cuBLAS in the four layouts against
 * 0.82-1.10 with two (each split pinned, H200, session 37; at 256 wide two
 * chunks were level, at 96 and 128 the thin tile's rows win). */
static int two_chunks(const dlg_hgemm_args *a, long long batch)
{
  const int lo = a->m < a->n ? a->m : a->n, hi = a->m < a->n ? a->n : a->m;
  return batch == 1 && lo > DLG_WGMMA_BM(WGMMA_THIN) && lo <= 192 && hi >= 1024 && a->k >= 1024;
}

static wgmma_plan plan_wgmma(const dlg_cuda_device *dev, int kind, int v, int thin, long long rows,
                             long long cols, const dlg_hgemm_args *a, long long batch)
{
  const int pin = dlg_config_get()->wgmma_splits ? dlg_config_get()->wgmma_splits
                  : two_chunks(a, batch)         ? 2
                                                 : 0;
  const long long ktiles = (a->k + DLG_WGMMA_BK - 1) / DLG_WGMMA_BK;
  double us, best_us;
  wgmma_plan best;
  long long tiles1;
  int s;
  if (ktiles == 0) return (wgmma_plan){-1, 1, 0, 0};
  best = split_plan(dev, kind, v, thin, rows, cols, a, batch, ktiles, 1, 0, &best_us);
  tiles1 = best.tiles;
  if (best.w < 0 || !dev->narrow_reduce[0] || tiles1 * (pin ? pin : 2) > INT32_MAX) return best;
  if (pin) { /* the largest count at or below the pin that leaves no chunk empty */
    const long long chunk = (ktiles + (pin < ktiles ? pin : ktiles) - 1) / (pin < ktiles ? pin : ktiles);
    return split_plan(dev, kind, v, thin, rows, cols, a, batch, ktiles, (int)((ktiles + chunk - 1) / chunk), 0, &us);
  }
  /* by choice, only products of fewer tiles than SMs, in chunks of 4
   * k-tiles or more (an estimate is trusted only where it was measured) */
  for (s = 2; tiles1 < dev->sms && s <= 64 && (ktiles + s - 1) / s >= 4; s++) {
    const long long chunk = (ktiles + s - 1) / s;
    const wgmma_plan pl = split_plan(dev, kind, v, thin, rows, cols, a, batch, ktiles, s, 0, &us);
    if ((ktiles + chunk - 1) / chunk == s && us < best_us) best = pl, best_us = us;
  }
  if (best.splits > 1 && thin && kind <= DLG_TC_BF16) { /* stream_us: one chunk, or this split */
    double one_us, split_us;
    const wgmma_plan one = split_plan(dev, kind, v, thin, rows, cols, a, batch, ktiles, 1, 1, &one_us);
    split_plan(dev, kind, v, thin, rows, cols, a, batch, ktiles, best.splits, 1, &split_us);
    if (one_us <= split_us) best = one;
  }
  return best;
}

/* The narrow tile's plan (128 x 16: a product whose narrow side, 16 or
 * fewer, is the k-contiguous operand): a stream of the wide operand, so k
 * is cut into as many chunks as fill the SMs once - a second wave part full
 * would cost a whole one - each of 4 k-tiles or more; DLGEMM_WGMMA_SPLITS
 * pins the count as for the other tiles.  (Its w is not a width index:
 * the narrow tile has one kernel per kind and layout, dev->hgemm_wgmma16.) */
static wgmma_plan plan_narrow(const dlg_cuda_device *dev, long long rows, const dlg_hgemm_args *a,
                              long long batch)
{
  const long long ktiles = (a->k + DLG_WGMMA_BK - 1) / DLG_WGMMA_BK;
  const long long tiles = (rows + 127) / 128 * batch; /* 128 x 16 */
  const int pin = dlg_config_get()->wgmma_splits;
  long long s = pin ? pin : dev->sms / (tiles > 0 ? tiles : 1), chunk;
  if (ktiles == 0) return (wgmma_plan){0, 1, 0, tiles}; /* k = 0: nothing launched */
  if (!pin && s > ktiles / 4) s = ktiles / 4;
  if (s > ktiles) s = ktiles;
  if (s < 1 || tiles * s > INT32_MAX) s = 1;
  chunk = (ktiles + s - 1) / s;
  return (wgmma_plan){0, (int)((ktiles + chunk - 1) / chunk), (int)(chunk * DLG_WGMMA_BK), tiles};
}

/* Pairs (hgemm.h): clusters of two blocks on the tiles of rows 2i and
 * 2i + 1, side by side, each loading half of their common tile of B into
 * both (multicast), so that each SM asks L2 for half of B's boxes.  That
 * pays where B's rows straddle 128-byte lines: bfloat16 3000^3 (leading
 * dimension 3000) 0.87-0.94 of cuBLAS against 0.83-0.89 with B copied to
 * lines first (pad.c) and 0.66-0.70 with neither.  With an odd number of
 * tile-rows the last pair's second tile lies below C: TMA reads it as
 * zeros and its stores are clipped, so it costs that tile's time, where
 * the copy costs B's size in memory traffic (13 us of 108 at 3000^3).
 * Where B is on lines pairs cost: a stage is refilled only once both
 * blocks are done with it, and the slower SM paces the pair (bf16 8192^3
 * 0.997-0.998 against 1.006-1.007, TF32 8192^3 TN 0.985-0.988 against
 * 0.999-1.003; H100, bench/NOTES.md).  The TF32 kernels that read A
 * through registers (NN) gain nothing even with B straddling (TF32
 * 3000^3 NN 287-289 T against 290-291; TN, both operands from shared
 * memory, 317 against 299), so auto leaves them alone.
 * DLGEMM_WGMMA_PAIRS=on pairs every product, for tests. */
int dlg_cuda_wgmma_pairs(const dlg_cuda_device *dev, int second_on_lines, int a_in_registers)
{
  const int mode = dlg_config_get()->wgmma_pairs;
  return mode && dev->wgmma_pairs > 0 && (mode == 2 || (!second_on_lines && !a_in_registers));
}

/* dlg_cuda_wgmma_launch (hgemm.h).
 *
 * Which operand is the kernel's first (its 128 rows, two consumers of 64)
 * and which its second (the BN-wide side): measured on the H100, an m- or
 * n-contiguous second operand costs a quarter of the speed at 4096^3 (its
 * 256 columns come as four boxes that wgmma reads transposed), so the
 * k-contiguous operand goes second when only one of them is.  Otherwise
 * the kernel computes C^T = op2^T op1^T, whose rows are C's columns: each
 * thread's accumulator pairs are then adjacent in C and leave as one store.
 * A product 16 or fewer wide whose narrow operand is k-contiguous takes the
 * narrow tile, that operand second (bf16 4096 x 16 x 4096: 112 of the
 * 128-row tile's rows were TMA's zeros, and the pipeline held 4 k-tiles of
 * the wide operand where the narrow tile holds 10).  A product 64 or fewer
 * wide that streams its wide operand otherwise takes the thin tile with
 * its narrow side second, whatever that operand's layout (thin_side). */
int dlg_cuda_wgmma_launch(dlg_cuda_device *dev, int kind, int64_t batch, const dlg_operand *op1,
                          const dlg_operand *op2, const dlg_hgemm_args *a, CUstream stream,
                          CUresult *r)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  const int want = dlg_config_get()->hgemm_kernel;
  /* the narrow tile: 2 when n is its side, 1 when m is (C^T computed) */
  const int narrow = kind > DLG_TC_BF16 || !dev->hgemm_wgmma16[kind][0] ? 0
                     : a->n <= DLG_WGMMA_NARROW_BN && op2->kc       ? 2
                     : a->m <= DLG_WGMMA_NARROW_BN && op1->kc       ? 1
                                                                    : 0;
  /* the thin tile: the narrow side as its 64 columns, whichever operand
   * that makes second, or as its rows, that operand first (a kernel for that
   * layout permitting) */
  const int side = narrow ? 0 : thin_side(a);
  const int tswap = side == THIN_ROWS ? a->m > a->n : a->m < a->n;
  const int thin = side &&
                   dev->hgemm_wgmma[WGMMA_THIN][kind][(tswap ? op2 : op1)->kc * 2 +
                                                      (tswap ? op1 : op2)->kc];
  const int swap = narrow ? narrow == 1 : thin ? tswap : !(op2->kc && !op1->kc);
  const dlg_operand *first = swap ? op2 : op1, *second = swap ? op1 : op2;
  const int rows = swap ? a->n : a->m, cols = swap ? a->m : a->n;
  const int v = first->kc * 2 + second->kc;
  wgmma_plan pl = narrow ? plan_narrow(dev, rows, a, batch)
                         : plan_wgmma(dev, kind, v, thin, rows, cols, a, batch);
  /* w < 0: no kernel, nothing launched */
  const int bm = narrow || pl.w < 0 ? 128 : DLG_WGMMA_BM(pl.w);
  const int bn = narrow ? DLG_WGMMA_NARROW_BN : pl.w < 0 ? 1 : DLG_WGMMA_BN(pl.w);
  CUfunction f = narrow ? dev->hgemm_wgmma16[kind][first->kc]
                 : pl.w < 0 ? NULL : dev->hgemm_wgmma[pl.w][kind][v];
  long long tiles = pl.tiles;
  CUdeviceptr work = 0;
  dlg_hgemm_args t = *a;
  CUtensorMap ma, mb, mc;
  void *params[] = {&t, &ma, &mb, &mc};
  /* An m-contiguous TF32 operand (the rk kernels' A, read through
   * registers) is rows of 32 TF32 values by 32 k to TMA: 64 halves (k real) */
  const int tf = kind >= DLG_TC_TF32;
  if (!cu || !f || want == 1 || !op1->vec || !op2->vec || a->k == 0 || tiles > INT32_MAX) return 0;
  /* below a 128 x 128 product, half the tile or more would be padding -
   * except where the product streams a wide operand (16 columns or fewer
   * from narrow.c, or a narrow side under 128 against 1024 or more of the
   * other side and of k): that is bound by memory, not flops, and the
   * padding rows are TMA's zeros, never read.  The mma.sync kernels, with
   * no split of k, ran bfloat16 8192 x 24..96 x 8192 at 0.21-0.30 of
   * cuBLAS and TF32 at 0.11-0.26 (H100, the sweep, bench/NOTES.md). */
  if (want != 2 && !thin && (a->m < 128 || a->n < 128) && a->m > DLG_NARROW_MAX_NN &&
      a->n > DLG_NARROW_MAX_NN && !((a->m >= 1024 || a->n >= 1024) && a->k >= 1024))
    return 0;
  /* paired: each block's share of a k-contiguous B is one box of bn / 2 rows */
  const int pairs = !narrow && dlg_cuda_wgmma_pairs(dev, on_lines(second), tf && !first->kc);
  if (tensor_map(cu, &ma, kind, first, first->kc ? (uint64_t)a->k : (uint64_t)rows << tf,
                 (uint64_t)(first->kc ? rows : a->k >> tf), batch, 64,
                 (uint32_t)(first->kc ? bm : DLG_WGMMA_BK >> tf)) ||
      tensor_map(cu, &mb, kind, second, second->kc ? a->k : cols, second->kc ? cols : a->k,
                 batch, 64, second->kc ? (uint32_t)bn >> pairs : DLG_WGMMA_BK))
    return 0; /* TMA cannot address this operand (e.g. a batch stride it refuses) */
  t.m = rows, t.n = cols;
  if (swap) {
    t.a = a->b, t.lda = a->ldb, t.sa = a->sb;
    t.b = a->a, t.ldb = a->lda, t.sb = a->sa;
  }
  t.batch = (int)batch;
  t.walk_rows = dlg_config_get()->wgmma_walk_rows;
  t.c_trans = swap;
  t.splits = 1, t.kchunk = a->k;
  /* split: the chunks' products, alpha 1 and no C, to an FP32 workspace laid
   * out as narrow_args.h's (column-major m x n entries; the kernel's c_trans
   * makes that the same memory in its frame) - none to be had, no split */
  if (pl.splits > 1 &&
      !cu->MemAllocFromPoolAsync(&work, (size_t)(batch * pl.splits) * a->m * a->n * 4, dev->pool,
                                 stream)) {
    t.splits = pl.splits, t.kchunk = pl.kchunk, tiles *= pl.splits;
    t.c = (void *)(uintptr_t)work, t.ldc = a->m, t.sc = (long long)a->m * a->n;
    t.c_type = DLG_HOUT_F32, t.alpha = 1.f, t.beta = 0.f;
  }
  t.c_pair = (uintptr_t)t.c % (t.c_type == DLG_HOUT_F32 ? 8 : 4) == 0 && t.ldc % 2 == 0 &&
             t.sc % 2 == 0;
  /* C goes out through TMA stores, and comes in by TMA loads when beta != 0
   * (hgemm_wgmma.cu), wherever TMA can address it */
  memset(&mc, 0, sizeof mc);
  t.c_tma = !narrow && c_tensor_map(cu, &mc, &t) == CUDA_SUCCESS; /* narrow: element stores */
  if (pairs) { /* the tile-rows rounded up to pairs */
    const long long tiles_m = (rows + bm - 1) / bm;
    const long long slots = tiles / tiles_m * ((tiles_m + 1) & ~1LL), fit = 2LL * dev->wgmma_pairs;
    const unsigned grid[3] = {(unsigned)(slots < fit ? slots : fit), 1, 1};
    const unsigned block[3] = {(unsigned)DLG_WGMMA_THREADS(bm), 1, 1};
    *r = dlg_cuda_launch_cluster(cu, f, grid, block, (unsigned)DLG_WGMMA_SMEM(bm, bn), stream,
                                 params, 2);
  } else
    *r = cu->LaunchKernel(f, (unsigned)(tiles < dev->sms ? tiles : dev->sms), 1, 1,
                          (unsigned)DLG_WGMMA_THREADS(bm), 1, 1, (unsigned)DLG_WGMMA_SMEM(bm, bn),
                          stream, params, NULL);
  if (!*r && work) {
    dlg_narrow_args red;
    memset(&red, 0, sizeof red);
    red.c = a->c, red.work = (void *)(uintptr_t)work;
    red.crs = 1, red.ccs = a->ldc, red.sc = a->sc;
    red.alpha = a->alpha, red.beta = a->beta, red.c_type = a->c_type;
    red.rows = a->m, red.nn = a->n, red.splits = t.splits;
    *r = dlg_cuda_splits_reduce(cu, dev, 0, &red, (int)batch, 1, stream);
  }
  if (work) cu->MemFreeAsync(work, stream);
  if (dlg_config_get()->verbose) /* the DLGEMM_VERBOSE line names the kernel */
    dlg_note("wgmma %dx%d tile, k in %d chunk(s)%s", bm, bn, t.splits,
             pairs ? ", blocks in pairs sharing B" : "");
  return *r ? -1 : 1;
}

dlgemm_status dlg_cuda_tc_kernels(dlg_cuda_device *dev)
{
  const dlgemm_status st = dlg_cuda_kernels(dev, DLG_KERNELS_MMA);
  /* optional, never a failure: the wgmma kernels, and the narrow set's
   * reduce that their split plans use */
  if (!st) {
    dlg_cuda_kernels(dev, DLG_KERNELS_WGMMA);
    dlg_cuda_kernels(dev, DLG_KERNELS_NARROW);
  }
  return st;
}

/* The mma.sync tile (DLG_HMMA_BM index) for a product over its batch:
 * the one whose waves cost least.  A wave is every SM holding as many
 * blocks of the tile as fit (dev->hmma_occ), each taking its k-tiles plus
 * FILL_KTILES to load its first stage and store C, at the tile's rate
 * relative to the 128 x 128 tile's (hmma_rate: a small block does less
 * work a shared-memory load, and its warps wait more).  The rates are
 * estimates, checked rather than fitted: over the batched 16-bit / TF32
 * cells of 24^3-96^3 the choice came within a few per cent of the best
 * pinned tile (0.907 against 0.925 for the 32 x 32 tile everywhere, and
 * ahead of it at 48^3; H200, session 37).  A product that leaves most of
 * the big tile padding, or too few of its tiles for the SMs, goes to a
 * small one.  DLGEMM_HMMA_TILE pins one. */
static const double hmma_rate[DLG_HMMA_TILES] = {1.0, 0.8, 0.5};

static int pick_mma_tile(const dlg_cuda_device *dev, int kind, int v, const dlg_hgemm_args *a,
                         long long batch)
{
  const int pin = dlg_config_get()->hmma_tile;
  const long long ktiles = (a->k + DLG_HMMA_BK - 1) / DLG_HMMA_BK;
  double best = 0;
  int t, pick = -1;
  for (t = 0; t < DLG_HMMA_TILES; t++) {
    const int bm = DLG_HMMA_BM(t), bn = DLG_HMMA_BN(t);
    const long long tiles = (a->m + bm - 1) / bm * ((a->n + bn - 1) / bn) * batch;
    const long long slots = (long long)dev->sms * dev->hmma_occ[t];
    const double cost = (double)((tiles + slots - 1) / slots) * dev->hmma_occ[t] * bm * bn *
                        (double)(ktiles + FILL_KTILES) / hmma_rate[t];
    if (!dev->hgemm_mma[t][kind][v]) continue;
    if (pin == t + 1) return t;
    if (pick < 0 || cost < best) best = cost, pick = t;
  }
  return pick;
}

dlgemm_status dlg_cuda_tc_run(dlg_cuda_device *dev, int kind, int64_t batch,
                              const dlg_operand *op1, const dlg_operand *op2,
                              const dlg_hgemm_args *a, CUstream stream)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  const long long zmax = 65535;
  const size_t ces = a->c_type == DLG_HOUT_F32 ? 4 : 2;
  const dlgemm_status st = dlg_cuda_tc_kernels(dev);
  const int v = op1->kc * 2 + op2->kc;
  int t;
  CUfunction f;
  long long b0;
  CUresult r = CUDA_SUCCESS;

  if (st) return st;
  if (a->m == 0 || a->n == 0 || batch == 0) return DLGEMM_OK;
  switch (dlg_cuda_wgmma_launch(dev, kind, batch, op1, op2, a, stream, &r)) {
  case 1: return DLGEMM_OK;
  case -1:
    return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed: %s", dlg_cuda_error(r));
  }
  t = pick_mma_tile(dev, kind, v, a, batch);
  f = t < 0 ? NULL : dev->hgemm_mma[t][kind][v];
  if (!f) return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "no tensor-core kernel for this layout");
  for (b0 = 0; b0 < batch && !r; b0 += zmax) {
    dlg_hgemm_args p = *a;
    void *params[] = {&p};
    const long long nb = batch - b0 < zmax ? batch - b0 : zmax;
    p.a = (const char *)p.a + b0 * p.sa * 2;
    p.b = (const char *)p.b + b0 * p.sb * 2;
    p.c = (char *)p.c + b0 * p.sc * (long long)ces;
    r = cu->LaunchKernel(f, (unsigned)((p.m + DLG_HMMA_BM(t) - 1) / DLG_HMMA_BM(t)),
                         (unsigned)((p.n + DLG_HMMA_BN(t) - 1) / DLG_HMMA_BN(t)), (unsigned)nb,
                         DLG_HMMA_THREADS, 1, 1, DLG_HMMA_SMEM(t), stream, params, NULL);
  }
  if (r)
    return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed: %s", dlg_cuda_error(r));
  if (dlg_config_get()->verbose)
    dlg_note("mma.sync %dx%d tile", DLG_HMMA_BM(t), DLG_HMMA_BN(t));
  return DLGEMM_OK;
}

dlgemm_status dlg_cuda_hgemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream)
{
  dlg_operand op1, op2;
  dlg_hgemm_args a;
  int64_t m, n;

  if (g->m > INT32_MAX || g->n > INT32_MAX || g->k > INT32_MAX)
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "m, n and k must each fit in 32 bits");
  memset(&a, 0, sizeof a);
  dlg_orient(g, &op1, &op2, &m, &n);
  a.m = (int)m, a.n = (int)n, a.k = (int)g->k;
  if (g->alpha == 0) a.k = 0; /* C = beta * C, A and B not read (BLAS semantics) */
  a.alpha = (float)g->alpha, a.beta = (float)g->beta;
  a.a = op1.data, a.lda = op1.ld, a.sa = op1.bs, a.vec_a = op1.vec;
  a.b = op2.data, a.ldb = op2.ld, a.sb = op2.bs, a.vec_b = op2.vec;
  a.c = g->c.data, a.ldc = dlg_ld(&g->c), a.sc = g->c.bs;
  a.c_type = g->dtype == DLG_F32 ? DLG_HOUT_F32 : g->dtype == DLG_F16 ? DLG_HOUT_F16 : DLG_HOUT_BF16;
  return dlg_cuda_tc_run(dev, g->dtype_in == DLG_BF16 ? DLG_TC_BF16 : DLG_TC_F16, g->batch, &op1,
                         &op2, &a, stream);
}
