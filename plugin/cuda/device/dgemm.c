/*
 * dgemm.c - from a dlg_gemm of doubles on device memory to launches of
 * the FP64 tensor-core kernels: kernels/cuda/dgemm_tma.cu on sm_90, fed by
 * TMA, wherever TMA can address both operands; kernels/cuda/dgemm_dmma.cu,
 * fed by cp.async, for the rest (other chips, misaligned operands,
 * split-K).
 *
 * A 128 x 64 tile, two thin ones and a flat one for products with a side
 * of a few dozen (plan_for): the kernels exist for the host-array engine's large
 * tiles, float64 tensors and the factorizations; what they need to know is
 * the orientation (orient.h), which operands allow 16-byte copies, whether
 * k is long enough against C's tiles to be split, and whether the grid's
 * last wave is partial enough to be split along k (both kernels have a
 * twin for that).  The TMA kernel took the FP64 squares from 0.93 to
 * 0.97-1.01 of cuBLAS DGEMM and 3000^3 TN from 0.87 to 0.98-1.01 (H100,
 * bench/NOTES.md).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/device/dgemm.h"
#include "cuda/device/kernels.h"
#include "cuda/device/orient.h"

/* The tiles: the 128 x 64 one of both kernels, and the cp.async kernel's
 * others (dgemm_args.h), thin 32 x 128 and 128 x 32, flat 64 x 128, in
 * the order of dev->dgemm_shaped. */
enum { WIDE, THIN_M, THIN_N, FLAT, SHAPES };
static const struct { int bm, bn, smem; } shapes[SHAPES] = {
    {DLG_DGEMM_BM, DLG_DGEMM_BN, DLG_DGEMM_SMEM},
    {DLG_DGEMM_THIN, DLG_DGEMM_THICK, DLG_DGEMM_THIN_SMEM},
    {DLG_DGEMM_THICK, DLG_DGEMM_THIN, DLG_DGEMM_THIN_SMEM},
    {DLG_DGEMM_FLAT_BM, DLG_DGEMM_FLAT_BN, DLG_DGEMM_SMEM}};

/* C's tiles of a shape: the kernel's grid is one-dimensional over them. */
static long long tiles_in(const dlg_dgemm_args *a, int sh)
{
  const int bm = shapes[sh].bm, bn = shapes[sh].bn;
  return (long long)((a->m + bm - 1) / bm) * ((a->n + bn - 1) / bn);
}

/* The share of a shape's tiles that C fills. */
static double filled(const dlg_dgemm_args *a, int sh)
{
  return (double)a->m * a->n / ((double)tiles_in(a, sh) * shapes[sh].bm * shapes[sh].bn);
}

/* DLGEMM_DGEMM_SPLITS, in chunks of 64 of k or more (0: not pinned). */
static int pinned_splits(long long k)
{
  const long long pin = dlg_config_get()->dgemm_splits, most = k / 64 < 64 ? k / 64 : 64;
  if (pin <= 0) return 0;
  return (int)(pin < most ? pin : most > 1 ? most : 1);
}

/* Split-K for the complex DMMA kernels (zgemm_dmma.cu, zdmma.c): a grid
 * of C's tiles that leaves most of the chip idle while each block walks a
 * long k is cut along k instead, into chunks that fill about one wave
 * (DLG_DGEMM_BLOCKS_PER_SM blocks per SM), each at least 256 of k.  The
 * real kernels plan theirs with their tile (plan_for, below). */
int dlg_cuda_dmma_splits(const dlg_cuda_device *dev, long long tiles, long long k,
                         long long batch)
{
  const long long wave = (long long)dev->sms * DLG_DGEMM_BLOCKS_PER_SM;
  long long s;
  if (batch != 1 || dlg_cuda_lean()) return 1;
  if ((s = pinned_splits(k))) return (int)s;
  if (k < 1024 || 2 * tiles > wave) return 1;
  s = wave / tiles;
  if (s > k / 256) s = k / 256;
  return s < 2 ? 1 : (int)s;
}

/* The plan: a tile shape and split-K's chunks of k, from the time each
 * would keep the busiest SM busy.  One 128 x 64 tile for every product
 * left most of it empty where a side is a few dozen (m = 16-64 with n = k
 * = 4096 at 0.27-0.38 of cuBLAS, H200, session 30): hence the thin tiles
 * (32 x 128, 128 x 32) and the flat one (64 x 128, the wide one on its
 * side: 33-64 or 129-192 rows tall in one row of tiles, reading B once).
 * And a grid of few tiles leaves SMs idle or alone: split-K cuts k into
 * chunks (a batch strided along k, then a reduce).
 *
 * The busiest SM gets q = ceil(blocks / SMs) blocks and runs them in
 * rounds of its `resident` blocks (the kernel's occupancy) at the SM's
 * DMMA rate; a partial last round of j blocks takes the longer of j
 * blocks' work at that rate and one block's at LONE of it: a block alone
 * does not keep the DMMA pipe busy.  Its time is that plus the reduce's
 * (the parts written and read, C written: REDUCE_BYTES_PER_S,
 * REDUCE_LAUNCH_S).  A block's work is its tile's area times its chunk of
 * k, a thin tile's thin_cost times that where SMs are full (its warps read
 * a third more from shared memory a DMMA; 1.5 at short k: batched 96^3 ran
 * 12% slower on thin tiles a third better filled, session 31).  Each shape
 * takes chunks of 1-4, 6, 8, 12, 16, 24, 32, 48 or 64 (each 256 of k or
 * more; single products only: the chunks are a batch), and the least time
 * wins if it is under NEW_PLAN of the wide tile's whole-k time, the
 * incumbent (TMA-fed, its last wave split: tail_splits).
 *
 * Fitted with every shape and chunk count pinned (DLGEMM_DGEMM_TILE,
 * DLGEMM_DGEMM_SPLITS) over the 32 cells 48-384 wide x 4096 x 4096, every
 * layout (H200, session 39; bench/results/session39/fit_plan.py): LONE
 * 0.9-0.95 for the wide and flat tiles and 0.3-1 for the thin ones,
 * NEW_PLAN 0.85-0.95 and a reduce of 3-5 TB/s take 0.988 of the best
 * pinned time (geometric mean; the estimate of one wave of tiles an SM
 * each that it replaces, 0.862): 96 wide on thin tiles in 4 chunks (384 blocks, three
 * an SM: 29 -> 37 TFLOP/s), 192 on flat or wide ones in 4 (34 -> 42), 256
 * whole (0.93-0.97 -> 1.03-1.09 of cuBLAS), 384 in 2 (43 -> 48).  The thin
 * tiles' LONE, 0.7, is 255^3's: 16 thin blocks, each alone on an SM, ran
 * it 1.3x faster than 8 wide ones (0.4 put it on those).  1000^3 (one
 * wide tile an SM against two thin ones: 1.5x slower on the thin, session
 * 31) and the squares keep the wide tile whole.  DLGEMM_DGEMM_TILE=thin
 * puts every product on the better-filled thin tile, =flat on the flat
 * one, =wide on the wide one, DLGEMM_DGEMM_SPLITS=n cuts k in n chunks
 * (tests, measurements).  The counts past 8 are for a tile or a few of C
 * against a long k, QR's panel products (V1^T A2: 32 x 32 x 16384, one
 * tile), which session 38's rule cut in up to 64 chunks: with 8 at most
 * the reference LAPACK program's dgeqrf ran 1.72x slower at 16384 (2.59 s
 * against 1.50; H100, session 42); with them 2.58-2.63 s -> 1.55-1.57
 * (session 38's 1.54), 8192 0.79-0.81 -> 0.61-0.62 (H100, session 43), and
 * no sweep cell's plan moves (bench/results/session42/plan_table.txt; the
 * sampled FP64 cells 1.046 of cuBLAS both ways). */
static const double LONE[SHAPES] = {0.9, 0.7, 0.7, 0.9};
#define DMMA_FLOPS_PER_SM_S 0.45e12 /* H100 / H200: 60 TFLOP/s of 132 SMs */
#define REDUCE_BYTES_PER_S 3e12
#define REDUCE_LAUNCH_S 5e-6
#define NEW_PLAN 0.85

typedef struct dmma_plan {
  int shape, splits;
} dmma_plan;

static double thin_cost(double kchunk)
{
  return 1.1 + 0.4 * (kchunk > 256 ? 256 / kchunk : 1);
}

/* k in `splits` chunks as launch_split cuts it: the chunk, and in *parts
 * how many there are. */
static long long chunk_of(long long k, int splits, int *parts)
{
  const long long kchunk = ((k + splits - 1) / splits + 15) / 16 * 16;
  *parts = k ? (int)((k - 1) / kchunk + 1) : 1;
  return kchunk;
}

static double plan_time(const dlg_cuda_device *dev, const dlg_dgemm_args *a, long long batch,
                        dmma_plan p)
{
  int parts;
  const long long kchunk = chunk_of(a->k, p.splits, &parts);
  const long long blocks = tiles_in(a, p.shape) * batch * parts;
  const long long q = (blocks + dev->sms - 1) / dev->sms;
  const int resident = dev->dgemm_occ[p.shape]; /* >= 1: kernels.c's load_dmma */
  const long long rem = q % resident;
  const double cost = p.shape == THIN_M || p.shape == THIN_N ? thin_cost((double)kchunk) : 1;
  const double block =
      2.0 * shapes[p.shape].bm * shapes[p.shape].bn * (double)kchunk / DMMA_FLOPS_PER_SM_S;
  double t = (double)(q / resident * resident) * block * cost;
  if (rem) t += fmax(block / LONE[p.shape], (double)rem * block * cost);
  if (parts > 1)
    t += (parts + 1) * (double)a->m * a->n * 8 / REDUCE_BYTES_PER_S + REDUCE_LAUNCH_S;
  return t;
}

static dmma_plan plan_for(const dlg_cuda_device *dev, const dlg_dgemm_args *a, long long batch)
{
  static const int chunks[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
  const int mode = dlg_config_get()->dgemm_tile; /* DLGEMM_DGEMM_TILE */
  const int thin = filled(a, THIN_M) >= filled(a, THIN_N) ? THIN_M : THIN_N;
  const int candidates[3] = {WIDE, FLAT, thin};
  const int pinned_shape = mode == 1 ? thin : mode == 2 ? FLAT : WIDE;
  const int can_split = batch == 1 && a->k > 0 && !dlg_cuda_lean();
  const int pinned = can_split ? pinned_splits(a->k) : 0;
  const dmma_plan whole = {WIDE, 1};
  dmma_plan best = whole;
  double t, least = INFINITY;
  size_t i, c;
  for (i = 0; i < 3; i++) {
    const int sh = candidates[i];
    if ((mode >= 0 && sh != pinned_shape) ||
        (sh != WIDE && (a->k == 0 || tiles_in(a, sh) > INT32_MAX)))
      continue;
    for (c = 0; c < sizeof chunks / sizeof *chunks; c++) {
      const dmma_plan p = {sh, pinned ? pinned : chunks[c]};
      if (!pinned && p.splits > 1 && (!can_split || a->k / p.splits < 256)) continue;
      if ((t = plan_time(dev, a, batch, p)) < least) least = t, best = p;
      if (pinned) break;
    }
  }
  /* a pin takes its plan; auto leaves the incumbent only for a margin */
  return mode >= 0 || pinned || least < NEW_PLAN * plan_time(dev, a, batch, whole) ? best : whole;
}

/* The last wave split along k (dgemm_dmma.cu, gemm_tail): the grid's full
 * waves of whole tiles, then the r tiles of a partial last wave each cut
 * into s chunks of k, so that the slots of that wave have work: s = the
 * slots over r, at most 16 (one block adds a tile's parts: 16 is 1 MB).
 * By choice (auto) only where that wave is nearly empty - s of 8 or more,
 * products of a full wave or more (fewer tiles are split-K's, above), each
 * chunk 8 k-steps or more - because a partial wave costs less than a whole
 * one: its blocks have an SM each, where a full wave's share one two by
 * two.  Measured on the H100 (bench/NOTES.md): 8192^3 (8 tiles in the 32nd
 * wave, s = 16) 0.93 -> 0.94-0.95 of cuBLAS; 3000^3 (72 tiles, s = 3)
 * 0.87 -> 0.83.  DLGEMM_DGEMM_TAIL=on takes every single product of two
 * k-steps or more (tests: every tile of a product under a wave is then
 * split), off none.
 * A last wave of more than half the slots pairs its blocks on SMs as a
 * full wave does, so its chunks run in rounds of the slots at the full
 * wave's rate: there s (2 to 8) is the count whose chunks fill their last
 * round best - the least rounds(s) / s - where that cuts the wave by more
 * than a tenth.  4096^3 (200 tiles for 264 slots): 5 chunks a tile, 4
 * rounds, 0.8 of the wave; per clock (ncu) 4.336 -> 4.295 M cycles
 * (cuBLAS 4.300), 1.000-1.002 -> 1.008-1.041 of cuBLAS.  Returns s (0: no
 * split) and the whole tiles in *dp. */
enum { TAIL_MAX_SPLITS = 16, TAIL_MIN_SPLITS = 8, TAIL_MIN_STEPS = 8, TAIL_MAX_PAIRED = 8 };
static int tail_splits(const dlg_cuda_device *dev, const dlg_dgemm_args *a, long long batch,
                       long long *dp)
{
  const int mode = dlg_config_get()->dgemm_tail;
  const long long tiles = tiles_in(a, WIDE), slots = (long long)dev->sms * DLG_DGEMM_BLOCKS_PER_SM;
  const long long iters = (a->k + DLG_DGEMM_BK - 1) / DLG_DGEMM_BK, r = tiles % slots;
  const long long steps = mode > 0 ? 1 : TAIL_MIN_STEPS;
  long long s, chunk;
  *dp = tiles - r;
  if (mode == 0 || batch != 1 || r == 0 || iters < 2 || dlg_cuda_lean() ||
      (mode < 0 && (tiles < slots || iters < 32)))
    return 0;
  if (2 * r > slots) { /* rounds(q) / q below 0.9, compared as integers */
    long long q, best_num = 9, best_den = 10;
    for (s = 0, q = 2; q <= TAIL_MAX_PAIRED && q <= iters / steps; q++) {
      const long long rounds = (r * q + slots - 1) / slots;
      if (rounds * best_den < best_num * q) s = q, best_num = rounds, best_den = q;
    }
    if (s < 2) return 0;
  } else {
    s = slots / r < TAIL_MAX_SPLITS ? slots / r : TAIL_MAX_SPLITS;
    if (s > iters / steps) s = iters / steps;
    if (s < (mode > 0 ? 2 : TAIL_MIN_SPLITS)) return 0;
  }
  chunk = (iters + s - 1) / s; /* s realizable: no chunk empty */
  return (int)((iters + chunk - 1) / chunk);
}

/* The grid of whole tiles dp and r tiles in s chunks each, the parts in a
 * pooled workspace with one zeroed counter a split tile behind it: f is a
 * tail kernel, the cp.async one (maps NULL) or the TMA one (its maps),
 * whose blocks and shared memory follow from which. */
static CUresult launch_tail(const dlg_cuda_api *cu, const dlg_cuda_device *dev, CUfunction f,
                            const dlg_dgemm_args *a, const CUtensorMap *ma, const CUtensorMap *mb,
                            const CUtensorMap *mc, long long dp, int s, CUstream stream)
{
  const long long r = tiles_in(a, WIDE) - dp, iters = (a->k + DLG_DGEMM_BK - 1) / DLG_DGEMM_BK;
  const unsigned threads = ma ? DLG_DGEMM_TMA_THREADS : DLG_DGEMM_THREADS;
  const unsigned smem = ma ? DLG_DGEMM_TMA_SMEM : DLG_DGEMM_SMEM;
  dlg_dgemm_args p = *a;
  void *params[] = {&p, (void *)ma, (void *)mb, (void *)mc};
  CUdeviceptr work, count;
  CUresult rc;
  if ((rc = dlg_cuda_counted_work(cu, dev, (size_t)(r * s) * DLG_DGEMM_BM * DLG_DGEMM_BN * 8,
                                  (size_t)r, stream, &work, &count)))
    return rc;
  p.tail_dp = (int)dp, p.tail_splits = s, p.tail_chunk = (int)((iters + s - 1) / s);
  p.tail_work = (double *)(uintptr_t)work, p.tail_count = (int *)(uintptr_t)count;
  rc = cu->LaunchKernel(f, (unsigned)(dp + r * s), 1, 1, threads, 1, 1, smem, stream, params,
                        NULL);
  cu->MemFreeAsync(work, stream);
  return rc;
}

static CUresult launch(const dlg_cuda_api *cu, const dlg_cuda_device *dev, int sh, int kernel,
                       dlg_dgemm_args p, long long batch, CUstream stream)
{
  void *params[] = {&p};
  return cu->LaunchKernel(sh == WIDE ? dev->dgemm[kernel] : dev->dgemm_shaped[sh - 1][kernel],
                          (unsigned)tiles_in(&p, sh), 1, (unsigned)batch, DLG_DGEMM_THREADS, 1,
                          1, shapes[sh].smem, stream, params, NULL);
}

/* TMA's view of one operand of the TMA kernel (dgemm_tma.cu), 128-byte
 * swizzled: k-contiguous, a 3-D tensor (k, rows, batch) in boxes of 16 k
 * x the tile's rows; row-contiguous, boxes of 16 rows x 16 k, which a
 * stage needs tile_rows / 16 of - unless the rows are whole 16s, when the
 * 4-D view (16 rows, k, rows / 16, batch) brings them in one box (*whole):
 * fewer TMA instructions between the DMMAs. */
static CUresult operand_map(const dlg_cuda_api *cu, CUtensorMap *map, const dlg_operand *o,
                            long long rows, long long k, long long batch, unsigned tile_rows,
                            int *whole)
{
  const cuuint64_t zs = (cuuint64_t)(o->bs ? o->bs : o->ld) * 8, zn = o->bs ? (cuuint64_t)batch : 1;
  const cuuint64_t ld = (cuuint64_t)o->ld * 8;
  const cuuint32_t step[4] = {1, 1, 1, 1};
  /* the 4-D view first where it applies, else (or refused) the 3-D one */
  for (*whole = !o->kc && rows % 16 == 0;; *whole = 0) {
    const cuuint64_t dims[4] = {*whole ? 16 : (cuuint64_t)(o->kc ? k : rows),
                                *whole ? (cuuint64_t)k : (cuuint64_t)(o->kc ? rows : k),
                                *whole ? (cuuint64_t)rows / 16 : zn, zn};
    const cuuint64_t strides[3] = {ld, *whole ? 128 : zs, zs};
    const cuuint32_t box[4] = {16, *whole ? 16 : o->kc ? tile_rows : 16,
                               *whole ? tile_rows / 16 : 1, 1};
    const CUresult r = cu->TensorMapEncodeTiled(
        map, CU_TENSOR_MAP_DATA_TYPE_FLOAT64, *whole ? 4 : 3, (void *)o->data, dims, strides, box,
        step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (!r || !*whole) return r;
  }
}

/* TMA's view of C for the TMA kernel's stores (beta 0): (m, n, batch) in
 * boxes of 16 rows x the tile's columns, 128-byte swizzled as the kernel
 * stages them (dgemm_tma.cu).  Nonzero where TMA cannot address C (16-byte
 * alignment), where C is one matrix for a batch (its batch stride 0), and
 * where m is odd: a TMA store writes the last 16 bytes of a column whole,
 * past C's edge (hgemm.c's c_tensor_map measured it). */
static CUresult c_map(const dlg_cuda_api *cu, CUtensorMap *map, const dlg_dgemm_args *a,
                      long long batch)
{
  const cuuint64_t dims[3] = {(cuuint64_t)a->m, (cuuint64_t)a->n, (cuuint64_t)batch};
  const cuuint64_t strides[2] = {(cuuint64_t)a->ldc * 8,
                                 (cuuint64_t)(batch > 1 ? a->sc : a->ldc * a->n) * 8};
  const cuuint32_t box[3] = {16, DLG_DGEMM_BN, 1}, step[3] = {1, 1, 1};
  if ((uintptr_t)a->c % 16 || a->ldc % 2 || a->m % 2 || (batch > 1 && (a->sc % 2 || !a->sc)))
    return CUDA_ERROR_INVALID_VALUE;
  return cu->TensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 3, a->c, dims, strides,
                                  box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

/* The TMA kernel, where it is loaded (sm_90) and TMA can address both
 * operands (16-byte aligned, a batch the grid holds), its tail twin when
 * the last wave is split (tail > 1 chunks a tile, dp whole tiles); 0: not
 * taken.  With beta 0 C goes out by TMA stores where TMA can address it. */
static int launch_tma(const dlg_cuda_api *cu, const dlg_cuda_device *dev, int kernel,
                      const dlg_dgemm_args *a, const dlg_operand *op1, const dlg_operand *op2,
                      long long batch, int tail, long long dp, CUstream stream, CUresult *r)
{
  dlg_dgemm_args p = *a;
  CUtensorMap ma, mb, mc;
  void *params[] = {&p, &ma, &mb, &mc};
  if (!dev->dgemm_tma[kernel] || !dlg_config_get()->dgemm_tma || !op1->vec || !op2->vec ||
      a->k == 0 || batch > 65535 ||
      operand_map(cu, &ma, op1, a->m, a->k, batch, DLG_DGEMM_BM, &p.whole_a) ||
      operand_map(cu, &mb, op2, a->n, a->k, batch, DLG_DGEMM_BN, &p.whole_b))
    return 0;
  memset(&mc, 0, sizeof mc);
  p.c_tma = a->beta == 0 && !c_map(cu, &mc, a, batch);
  *r = tail > 1 ? launch_tail(cu, dev, dev->dgemm_tma_tail[kernel], &p, &ma, &mb, &mc, dp, tail,
                              stream)
                 : cu->LaunchKernel(dev->dgemm_tma[kernel], (unsigned)tiles_in(a, WIDE), 1,
                                    (unsigned)batch, DLG_DGEMM_TMA_THREADS, 1, 1,
                                    DLG_DGEMM_TMA_SMEM, stream, params, NULL);
  return 1;
}

/* The chunks of k as one batch of products (strided along k, not across
 * matrices; the last chunk shorter, k_last) into pooled partial sums, then
 * C.  One launch: the last chunk launched apart from the others ran after
 * them, a second wave of a fraction of the chip (m = 128, n = k = 4096: 4
 * chunks, 192 blocks and then 64, 27 TFLOP/s on an H200 where cuBLAS did
 * 44; bench/NOTES.md, session 31). */
static CUresult launch_split(const dlg_cuda_api *cu, dlg_cuda_device *dev, int sh, int kernel,
                             const dlg_dgemm_args *a, const dlg_operand *op1,
                             const dlg_operand *op2, int splits, CUstream stream)
{
  int parts, m = a->m, n = a->n;
  const long long kchunk = chunk_of(a->k, splits, &parts);
  const long long mn = (long long)a->m * a->n, last = parts - 1;
  dlg_dgemm_args p = *a;
  CUdeviceptr work;
  CUresult r;
  double *w;
  unsigned blocks = (unsigned)((mn + 255) / 256 < 4096 ? (mn + 255) / 256 : 4096);
  if ((r = dlg_cuda_workspace(cu, dev, (size_t)(mn * parts) * 8, stream, &work))) return r;
  w = (double *)(uintptr_t)work;
  p.k = (int)kchunk, p.beta = 0.0, p.c = w, p.ldc = m, p.sc = mn;
  p.k_last = a->k - last * kchunk < kchunk ? (int)(a->k - last * kchunk) : 0;
  p.sa = op1->kc ? kchunk : kchunk * op1->ld;
  p.sb = op2->kc ? kchunk : kchunk * op2->ld;
  r = launch(cu, dev, sh, kernel, p, parts, stream);
  if (!r) {
    void *rp[] = {&w, (void *)&a->c, &m, &n, &parts, (void *)&a->ldc, (void *)&a->beta};
    r = cu->LaunchKernel(dev->dgemm_splitk_reduce, blocks, 1, 1, 256, 1, 1, 0, stream, rp, NULL);
  }
  cu->MemFreeAsync(work, stream);
  return r;
}

dlgemm_status dlg_cuda_dgemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  const long long zmax = 65535;
  dlg_operand op1, op2;
  dlg_dgemm_args a;
  int64_t m, n;
  long long b0;
  int kernel, splits, tail = 0, tma = 0, sh;
  dmma_plan plan;
  long long dp = 0;
  CUresult r = CUDA_SUCCESS;
  dlgemm_status st;

  if (g->m > INT32_MAX || g->n > INT32_MAX || g->k > INT32_MAX)
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "m, n and k must each fit in 32 bits");
  if ((st = dlg_cuda_kernels(dev, DLG_KERNELS_DMMA))) return st;
  memset(&a, 0, sizeof a); /* no tail fields by accident */
  dlg_orient(g, &op1, &op2, &m, &n);
  a.m = (int)m, a.n = (int)n, a.k = (int)g->k;
  if (tiles_in(&a, WIDE) > INT32_MAX)
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "%lld x %lld is more than 2^31 tiles of %d x %d",
                    (long long)m, (long long)n, DLG_DGEMM_BM, DLG_DGEMM_BN);
  /* alpha = 0 or k = 0: C = beta * C without reading A or B (BLAS semantics). */
  if (g->alpha == 0) a.k = 0;
  a.alpha = g->alpha, a.beta = g->beta;
  a.a = (const double *)op1.data, a.lda = op1.ld, a.sa = op1.bs, a.vec_a = op1.vec;
  a.b = (const double *)op2.data, a.ldb = op2.ld, a.sb = op2.bs, a.vec_b = op2.vec;
  a.c = (double *)g->c.data, a.ldc = dlg_ld(&g->c), a.sc = g->c.bs;
  kernel = op1.kc * 2 + op2.kc;
  plan = plan_for(dev, &a, g->batch);
  sh = plan.shape, splits = plan.splits;
  if (splits == 1 && sh == WIDE) tail = tail_splits(dev, &a, g->batch, &dp);
  if (splits > 1) {
    r = launch_split(cu, dev, sh, kernel, &a, &op1, &op2, splits, stream);
  } else if (sh == WIDE && (tma = launch_tma(cu, dev, kernel, &a, &op1, &op2, g->batch, tail,
                                             dp, stream, &r))) {
    /* launched */
  } else if (tail > 1) {
    r = launch_tail(cu, dev, dev->dgemm_tail[kernel], &a, NULL, NULL, NULL, dp, tail, stream);
  } else {
    for (b0 = 0; b0 < g->batch && !r; b0 += zmax) {
      dlg_dgemm_args p = a;
      p.a += b0 * p.sa, p.b += b0 * p.sb, p.c += b0 * p.sc;
      r = launch(cu, dev, sh, kernel, p, g->batch - b0 < zmax ? g->batch - b0 : zmax, stream);
    }
  }
  if (r)
    return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed: %s", dlg_cuda_error(r));
  if (dlg_config_get()->verbose) /* the DLGEMM_VERBOSE line names the kernel */
    dlg_note("DMMA %dx%d tile%s, k in %d split(s)%s", shapes[sh].bm, shapes[sh].bn,
             tma ? " through TMA" : "", splits, tail ? ", the last wave's tiles in chunks of k" : "");
  return DLGEMM_OK;
}
