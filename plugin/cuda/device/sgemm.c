/*
 * sgemm.c - from a dlg_gemm on device memory to kernel launches.
 *
 * This is the framework half of the BLIS split: it turns any layout into the
 * column-major problem the kernels compute (a row-major C is computed as
 * C^T = B^T A^T), decides which operand dimension is contiguous, picks the
 * tile and the split of k, and launches.  The kernels know only tiles.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/device/kernels.h"
#include "cuda/device/orient.h"
#include "cuda/device/sgemm.h"
#include "cuda/device/tiles.h"

typedef struct plan {
  dlg_sgemm_args args;
  int tile, variant;
  int streamk; /* blocks of a stream-K launch, 0 for data-parallel */
  long long batch;
} plan;

/* The cost model behind route_pick_kernel, in SM cycles.  A block of tile t
 * computes bm*bn*kc FMAs; an SM holds blocks_per_sm[t] of them and issues
 * 128 FMA lanes per cycle at the tile's main-loop efficiency; blocks run in
 * waves of sms * blocks_per_sm.  Each wave also pays the pipeline fill and
 * the epilogue, and split-K pays a pass over the partial sums and a launch.
 * The efficiencies are the measured ratios of the kernels' FFMA rates on
 * the H100 (bench/NOTES.md); only their ratios matter. */
static const double tile_efficiency[DLG_TILES] = {
    [DLG_TILE_128x256] = 0.68, [DLG_TILE_256x128] = 0.72,
    [DLG_TILE_128x128] = 0.76, [DLG_TILE_64x256] = 0.66, [DLG_TILE_256x64] = 0.66,
    [DLG_TILE_64x64] = 0.35};
enum { WAVE_CYCLES = 3000, LAUNCH_CYCLES = 4000, BYTES_PER_CYCLE = 1500 };

static double ceil_div(double a, double b) { return ceil(a / b); }

static double plan_cost(const dlg_cuda_device *dev, int t, double m, double n, double k,
                        double batch, int splits)
{
  const double bm = dlg_sgemm_tiles[t].bm, bn = dlg_sgemm_tiles[t].bn;
  const double occ = dev->blocks_per_sm[t];
  const double kc = ceil_div(ceil_div(k, splits), 8) * 8;
  double blocks = ceil_div(m, bm) * ceil_div(n, bn) * batch * splits;
  double cost = ceil_div(blocks, dev->sms * occ) *
                (occ * bm * bn * (kc > 8 ? kc : 8) / (128 * tile_efficiency[t]) + WAVE_CYCLES);
  if (splits > 1) /* partials written and read once more, C written */
    cost += m * n * batch * (splits * 8.0 + 8) / BYTES_PER_CYCLE + LAUNCH_CYCLES;
  return cost;
}

/* Data-parallel waves before the stream-K part of a launch over `tiles`:
 * all full waves but one, so that stream-K spreads between one and two
 * waves' tiles over every slot, and the blocks running at any time work on
 * neighbouring tiles (stream-K over the whole matrix would have them cover
 * all of it at once, and lose in L2 what it gains in balance). */
static long long streamk_dp_tiles(long long tiles, long long slots)
{
  return tiles / slots >= 2 ? (tiles / slots - 1) * slots : 0;
}

/* Stream-K's cost: the data-parallel waves, then the remaining tiles'
 * FMAs evenly over every slot, with a pipeline fill for each block's (about
 * two) segments, and the split tiles' parts - two workspace tiles per
 * block, written and read once - which the blocks add up as they finish. */
static double streamk_cost(const dlg_cuda_device *dev, int t, double m, double n, double k)
{
  const double bm = dlg_sgemm_tiles[t].bm, bn = dlg_sgemm_tiles[t].bn;
  const double occ = dev->blocks_per_sm[t], slots = dev->sms * occ;
  const double kpad = ceil_div(k, dlg_sgemm_tiles[t].bk) * dlg_sgemm_tiles[t].bk;
  const double tiles = ceil_div(m, bm) * ceil_div(n, bn);
  const double dp = (double)streamk_dp_tiles((long long)tiles, (long long)slots);
  const double wave = occ * bm * bn * kpad / (128 * tile_efficiency[t]);
  return dp / slots * (wave + WAVE_CYCLES) + (tiles - dp) / slots * wave + 2 * WAVE_CYCLES +
         slots * bm * bn * 4 * 3 / BYTES_PER_CYCLE;
}

/* Stream-K's blocks for tile t, or 0 where it does not apply: one matrix,
 * at least two units of BK-deep work per block (so every block's range is
 * non-empty, which the part counts rely on), and fewer than 2^31 units in
 * all (the kernel numbers them in 32 bits).  By choice (the cost model's
 * regime) also at least a wave of tiles: fewer are the skinny shapes, for
 * which split-K is the better answer.  Forced (tests), stream-K takes any
 * shape, with fewer blocks where the units are few. */
static int streamk_blocks(const dlg_cuda_device *dev, int t, const dlg_gemm *g, int64_t m,
                          int64_t n, int k, int forced)
{
  const long long slots = (long long)dev->sms * dev->blocks_per_sm[t];
  const long long tiles = ((m + dlg_sgemm_tiles[t].bm - 1) / dlg_sgemm_tiles[t].bm) *
                          ((n + dlg_sgemm_tiles[t].bn - 1) / dlg_sgemm_tiles[t].bn);
  const long long iters = (k + dlg_sgemm_tiles[t].bk - 1) / dlg_sgemm_tiles[t].bk;
  const long long units = tiles * iters;
  if (!dlg_sgemm_tiles[t].streamk || g->batch != 1 || iters < 2 || units >= INT32_MAX ||
      (!forced && tiles < slots))
    return 0;
  return (int)(units / 2 < slots ? units / 2 : slots);
}

/* The tile DLGEMM_SGEMM_TILE pins, or -1 (none, or no such kernel). */
static int pinned_tile(void)
{
  const dlg_config *cfg = dlg_config_get();
  int t;
  if (!cfg->tile_bm) return -1;
  for (t = 0; t < DLG_TILES; t++)
    if (dlg_sgemm_tiles[t].bm == cfg->tile_bm && dlg_sgemm_tiles[t].bn == cfg->tile_bn) return t;
  return -1;
}

/* The tile a narrow side of 192 takes whatever the model says (-1: none):
 * 64 rows or columns of it, so that three tiles cover it with no padding,
 * where the 128-wide tiles leave a quarter of theirs empty.  The model
 * charges that quarter and still preferred the 128 x 128 tile split along
 * k, which ran float32 192 x 4096 x 4096 at 0.72-0.86 of cuBLAS in the four
 * layouts against 0.90-1.10 on the 64 x 256 tile, and 4096 x 192 x 4096 at
 * 0.68-0.84 against 0.88-1.02 on the 256 x 64 one (each tile pinned, H200,
 * session 37; at 96 and 48 wide the 64-row tiles lost). */
static int narrow_192_tile(int64_t m, int64_t n, int64_t k)
{
  const int64_t lo = m < n ? m : n, hi = m < n ? n : m;
  if (lo % 128 != 64 || lo <= 128 || lo > 256 || hi < 1024 || k < 1024) return -1;
  return m < n ? DLG_TILE_64x256 : DLG_TILE_256x64;
}

/* route_pick_kernel: the kernel variant, tile and split-K for g. */
static void route_pick_kernel(const dlg_cuda_device *dev, const dlg_gemm *g, plan *pl)
{
  dlg_sgemm_args *a = &pl->args;
  const dlg_config *cfg = dlg_config_get();
  dlg_operand op1, op2;
  int t, splits, pin = pinned_tile();
  const int lean = dlg_cuda_lean(); /* no memory for parts: neither split-K nor stream-K */
  int64_t m, n;
  double best = HUGE_VAL;

  memset(pl, 0, sizeof *pl); /* no stream-K fields by accident */
  dlg_orient(g, &op1, &op2, &m, &n);
  if (pin < 0) pin = narrow_192_tile(m, n, g->k);
  a->a = (const float *)op1.data, a->lda = op1.ld, a->sa = op1.bs, a->vec_a = op1.vec;
  a->b = (const float *)op2.data, a->ldb = op2.ld, a->sb = op2.bs, a->vec_b = op2.vec;
  a->c = (float *)g->c.data;
  a->ldc = dlg_ld(&g->c);
  a->sc = g->c.bs;
  a->vec_c = ((uintptr_t)a->c % 16 == 0) && a->ldc % 4 == 0 && a->sc % 4 == 0;
  a->m = (int)m, a->n = (int)n, a->k = (int)g->k;
  a->alpha = (float)g->alpha, a->beta = (float)g->beta;

  /* alpha = 0 or k = 0: C = beta * C, and A and B are not read (BLAS reads
   * neither, so an Inf or NaN there must not reach C through 0 * Inf). */
  if (g->alpha == 0 || g->k == 0) a->k = 0;

  /* The cheapest (tile, split or stream-K) by the model; each split keeps at
   * least 256 of k, so a split's work outweighs its share of the reduction.
   * DLGEMM_SGEMM_STREAMK=on takes stream-K wherever it applies (tests). */
  pl->tile = DLG_TILE_128x128, splits = 1, pl->streamk = 0;
  for (t = 0; t < DLG_TILES; t++) {
    const int sk =
        cfg->streamk && !lean ? streamk_blocks(dev, t, g, m, n, a->k, cfg->streamk == 1) : 0;
    int s;
    if (pin >= 0 && t != pin) continue;
    for (s = 1; s <= (lean ? 1 : 64) && (s == 1 || a->k / s >= 256); s *= 2) {
      double c = plan_cost(dev, t, (double)m, (double)n, (double)a->k, (double)g->batch, s);
      if (c < best && !(cfg->streamk == 1 && pl->streamk))
        best = c, pl->tile = t, splits = s, pl->streamk = 0;
    }
    if (sk) {
      double c = streamk_cost(dev, t, (double)m, (double)n, (double)a->k);
      /* forced: the cheapest stream-K plan, whatever the others cost */
      if (cfg->streamk == 1 && !pl->streamk) best = HUGE_VAL;
      if (c < best) best = c, pl->tile = t, splits = 1, pl->streamk = sk;
    }
  }
  /* Each split gets a multiple of 16 of k (whole tiles of every BK);
   * recount so no split is empty.  k = 0 leaves one split of nothing. */
  a->kchunk = (int)(((a->k + splits - 1) / splits + 15) / 16 * 16);
  a->splits = a->kchunk ? (int)((a->k + a->kchunk - 1) / a->kchunk) : 1;
  if (!a->kchunk) a->kchunk = 8;
  pl->variant = op1.kc * 2 + op2.kc;
  pl->batch = g->batch;
}

static dlgemm_status launched(CUresult r, const char *what)
{
  if (r == CUDA_SUCCESS) return DLGEMM_OK;
  return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA %s failed: %s", what, dlg_cuda_error(r));
}

/* The GCN design's port (sgemm_sgpr.cu), asked for by DLGEMM_SGEMM_KERNEL=sgpr
 * and taking only its native case (variant rk: A column-major, B
 * k-contiguous): the whole 64-row blocks of aligned operands on the fast
 * kernel, the rest of the rows (or everything, unaligned) on the guarded one. */
static CUresult launch_sgpr(const dlg_cuda_api *cu, const dlg_cuda_device *dev, const plan *pl,
                            CUstream stream)
{
  const long long zmax = 65535;
  const int m64 = pl->args.vec_a && pl->args.vec_b ? pl->args.m / 64 * 64 : 0;
  CUresult r = CUDA_SUCCESS;
  long long b0;
  int part;
  for (b0 = 0; b0 < pl->batch && !r; b0 += zmax) {
    for (part = 0; part < 2 && !r; part++) {
      dlg_sgemm_args a = pl->args;
      void *params[] = {&a};
      long long nb = pl->batch - b0 < zmax ? pl->batch - b0 : zmax;
      a.a += b0 * a.sa, a.b += b0 * a.sb, a.c += b0 * a.sc;
      a.splits = 1, a.kchunk = a.k;
      if (part == 1) a.a += m64, a.c += m64;
      a.m = part == 0 ? m64 : a.m - m64;
      if (!a.m) continue;
      r = cu->LaunchKernel(part == 0 ? dev->sgpr : dev->sgpr_edge, (unsigned)((a.n + 127) / 128),
                           (unsigned)((a.m + 63) / 64), (unsigned)nb, 128, 1, 1, 0, stream,
                           params, NULL);
    }
  }
  return r;
}

/* Stream-K: one launch of the data-parallel blocks (a whole tile each) and,
 * behind them, pl->streamk blocks over the remaining tiles' k-units (one
 * launch, so no wave drains between the two), with their parts in a pooled
 * workspace of two tiles per block and, behind it, one zeroed counter per
 * stream-K tile. */
static CUresult launch_streamk(const dlg_cuda_api *cu, const dlg_cuda_device *dev,
                               const plan *pl, CUstream stream)
{
  const dlg_sgemm_tile *tile = &dlg_sgemm_tiles[pl->tile];
  dlg_sgemm_args a = pl->args;
  void *params[] = {&a};
  const int bm = tile->bm, bn = tile->bn;
  const long long tiles = (long long)((a.m + bm - 1) / bm) * ((a.n + bn - 1) / bn);
  const long long dp = streamk_dp_tiles(tiles, pl->streamk);
  CUdeviceptr work, count;
  CUresult r;
  a.sk_iters = (a.k + tile->bk - 1) / tile->bk;
  a.sk_ctas = pl->streamk, a.sk_dp = (int)dp, a.sk_units = (tiles - dp) * a.sk_iters;
  if ((r = dlg_cuda_counted_work(cu, dev, (size_t)a.sk_ctas * 2 * bm * bn * 4,
                                 (size_t)(tiles - dp), stream, &work, &count)))
    return r;
  a.sk_work = (float *)(uintptr_t)work;
  a.sk_count = (int *)(uintptr_t)count;
  r = cu->LaunchKernel(dev->sgemm_streamk[pl->tile][pl->variant], (unsigned)(dp + a.sk_ctas), 1,
                       1, DLG_SGEMM_THREADS, 1, 1, (unsigned)tile->smem, stream, params, NULL);
  cu->MemFreeAsync(work, stream);
  return r;
}

dlgemm_status dlg_cuda_sgemm(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  plan pl;
  const dlg_sgemm_tile *tile;
  CUdeviceptr work = 0;
  CUresult r = CUDA_SUCCESS;
  long long b0;
  const long long zmax = 65535;
  dlgemm_status st;

  if (g->m > INT32_MAX || g->n > INT32_MAX || g->k > INT32_MAX)
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "m, n and k must each fit in 32 bits");
  if ((st = dlg_cuda_kernels(dev, DLG_KERNELS_SIMT))) return st;
  route_pick_kernel(dev, g, &pl);
  if (dlg_config_get()->sgemm_sgpr && pl.variant == 1)
    return launched(launch_sgpr(cu, dev, &pl, stream), "kernel launch");
  tile = &dlg_sgemm_tiles[pl.tile];
  /* The kernels step through A and B in 32-bit strides of 8 leading dimensions. */
  if (pl.args.lda > INT32_MAX / 8 || pl.args.ldb > INT32_MAX / 8)
    return dlg_fail(DLGEMM_ERR_TOO_LARGE, "leading dimension above 2^28 elements");
  if (dlg_config_get()->verbose) /* the DLGEMM_VERBOSE line names the kernel */
    dlg_note("SIMT %dx%d tile%s, %s", tile->bm, tile->bn, pinned_tile() >= 0 ? " (pinned)" : "",
             pl.streamk ? "stream-K" : pl.args.splits > 1 ? "split-K" : "a block per tile");
  if (pl.streamk) return launched(launch_streamk(cu, dev, &pl, stream), "kernel launch");
  if (pl.args.splits > 1) {
    size_t bytes = (size_t)pl.args.m * pl.args.n * pl.args.splits * 4 *
                   (size_t)(pl.batch < zmax / pl.args.splits ? pl.batch : zmax / pl.args.splits);
    if ((r = dlg_cuda_workspace(cu, dev, bytes, stream, &work)))
      return launched(r, "workspace allocation");
  }
  /* grid.z = batch * splits must stay under 65536: launch in batch chunks. */
  for (b0 = 0; b0 < pl.batch && !r; ) {
    dlg_sgemm_args a = pl.args;
    long long nb = pl.batch - b0, per = zmax / a.splits;
    void *params[] = {&a};
    if (nb > per) nb = per;
    a.a += b0 * a.sa, a.b += b0 * a.sb, a.c += b0 * a.sc;
    if (a.splits > 1) a.c = (float *)(uintptr_t)work;
    r = cu->LaunchKernel(dev->sgemm[pl.tile][pl.variant], (unsigned)((a.m + tile->bm - 1) / tile->bm),
                         (unsigned)((a.n + tile->bn - 1) / tile->bn), (unsigned)(nb * a.splits),
                         DLG_SGEMM_THREADS, 1, 1, (unsigned)tile->smem, stream, params, NULL);
    if (!r && a.splits > 1) {
      const float *w = (const float *)(uintptr_t)work;
      float *c = pl.args.c + b0 * pl.args.sc;
      int batches = (int)nb;
      long long total = (long long)a.m * a.n * nb;
      unsigned blocks = (unsigned)((total + 255) / 256 < 4096 ? (total + 255) / 256 : 4096);
      void *rp[] = {&w, &c, &a.m, &a.n, &batches, &a.splits, &pl.args.ldc, &pl.args.sc,
                    &pl.args.beta};
      r = cu->LaunchKernel(dev->splitk_reduce, blocks, 1, 1, 256, 1, 1, 0, stream, rp, NULL);
    }
    b0 += nb;
  }
  if (work) cu->MemFreeAsync(work, stream);
  return launched(r, "kernel launch");
}
