/*
 * csimt.c - a batch of complex64 products on sgemm_simt.cu's complex tiles
 * (csimt.h): the orientation (C column-major, or the transposed problem
 * C^T = op(B)^T op(A)^T where C is row-major), each operand's contiguous
 * dimension, which of the two sign patterns conj asks for, the tile and
 * the split of k by a count of each SM's work, and grids of at most 65535
 * batch entries.  The kernels count complex elements in m, n, k and floats
 * in leading dimensions and strides.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/device.h"
#include "cuda/device/driver.h"
#include "cuda/device/kernels.h"
#include "cuda/device/tiles.h"
#include "cuda/level3/csimt.h"
#include "cuda/level3/launch.h"

/* Each tile's FFMA rate relative to the chip's: the 64 x 64 complex tile
 * as the real 128 x 128 one it runs (sgemm.c's 0.76), the 32 x 32 one as
 * the real 64 x 64 (0.35); only the ratio matters.  SM cycles: a wave's
 * pipeline fill and epilogue, a launch, and the bytes a cycle the split-K
 * partials move. */
static const double tile_efficiency[DLG_CTILES] = {[DLG_CTILE_64x64] = 0.76,
                                                   [DLG_CTILE_32x32] = 0.35};
enum { WAVE_CYCLES = 3000, LAUNCH_CYCLES = 4000, BYTES_PER_CYCLE = 1500 };

static double ceil_div(double a, double b) { return ceil(a / b); }

/* An SM's cycles for tile t with k in `splits` chunks: the busiest SM's
 * blocks (not its slots: a block alone on an SM is not charged as a full
 * SM's), each bm * bn * kc complex FMAs of 4 FFMA, plus a fill per wave,
 * and the partials' pass. */
static double plan_cost(const dlg_cuda_device *dev, int t, double m, double n, double k,
                        double batch, int splits)
{
  const dlg_sgemm_tile *c = &dlg_csimt_tiles[t];
  const double kc = ceil_div(ceil_div(k, splits), c->bk) * c->bk;
  const double blocks = ceil_div(m, c->bm) * ceil_div(n, c->bn) * batch * splits;
  double cost = ceil_div(blocks, dev->sms) * c->bm * c->bn * 4 * (kc > 8 ? kc : 8) /
                    (128 * tile_efficiency[t]) +
                ceil_div(blocks, dev->sms * dev->csimt_occ[t]) * WAVE_CYCLES;
  if (splits > 1) /* partials written and read once more, C written */
    cost += m * n * batch * (splits * 16.0 + 16) / BYTES_PER_CYCLE + LAUNCH_CYCLES;
  return cost;
}

/* The tile DLGEMM_SGEMM_TILE names in complex elements, or -1. */
static int pinned_tile(void)
{
  const dlg_config *cfg = dlg_config_get();
  int t;
  for (t = 0; cfg->tile_bm && t < DLG_CTILES; t++)
    if (dlg_csimt_tiles[t].bm == cfg->tile_bm && dlg_csimt_tiles[t].bn == cfg->tile_bn) return t;
  return -1;
}

/* C's two rows of a thread are one float4 store where this holds. */
static int aligned(dlg_dview v, int64_t stride, int64_t batch)
{
  return v.p % 16 == 0 && (v.rs == 1 ? v.cs : v.rs) % 2 == 0 && (batch == 1 || stride % 2 == 0);
}

/* v's leading dimension in reach of the copiers' 32-bit steps (16 k of
 * floats at a time). */
static int in_reach(dlg_dview v)
{
  v = dlg_l3_settled(v);
  return (v.rs == 1 ? v.cs : v.rs) <= INT32_MAX / 32;
}

int dlg_cuda_csimt_takes(dlg_factor_run *r, dlg_dview a, dlg_dview b, dlg_dview c)
{
  return !r->status && dlg_l3_readable(a, 8) && dlg_l3_readable(b, 8) && dlg_l3_readable(c, 8) &&
         in_reach(a) && in_reach(b) && in_reach(c) && a.rows <= INT32_MAX &&
         a.cols <= INT32_MAX && b.cols <= INT32_MAX && dlg_cuda_csimt_ready(r->dev, r->dtype);
}

int dlg_cuda_csimt_ready(dlg_cuda_device *dev, dlg_dtype t)
{
  /* the split-K reduce is the SIMT set's */
  return t == DLG_C64 && !dlg_cuda_kernels(dev, DLG_KERNELS_SIMT) &&
         !dlg_cuda_kernels(dev, DLG_KERNELS_CSIMT) && dev->csimt[0][0];
}

void dlg_cuda_csimt(dlg_factor_run *r, const double alpha[2], dlg_dview a, int64_t sa, int ca,
                    dlg_dview b, int64_t sb, int cb, double beta, dlg_dview c, int64_t sc,
                    int64_t batch)
{
  const int64_t zmax = 65535;
  const int pin = pinned_tile(), lean = dlg_cuda_lean();
  const dlg_l3_product x = dlg_l3_column_major(a, sa, ca, b, sb, cb, c);
  const dlg_dview f = x.f, g = x.g, o = x.o;
  dlg_sgemm_args p;
  double best = HUGE_VAL;
  int a_kc, b_kc, t, s, tile = 0, splits = 1;
  CUdeviceptr work = 0;
  int64_t b0;
  if (r->status || !o.rows || !o.cols || !batch) return;
  sa = x.sf, sb = x.sg, ca = x.cf, cb = x.cg;
  memset(&p, 0, sizeof p);
  a_kc = f.rs != 1, b_kc = g.rs == 1;
  p.m = (int)o.rows, p.n = (int)o.cols, p.k = (int)f.cols;
  p.alpha = (float)alpha[0], p.alpha_im = (float)alpha[1], p.beta = (float)beta;
  if (alpha[0] == 0 && alpha[1] == 0) p.k = 0; /* A and B not read */
  /* conj(x) y = conj(x conj(y)), conj(x) conj(y) = conj(x y) */
  p.conj_c = ca != 0;
  p.a = (const float *)(uintptr_t)f.p, p.lda = 2 * (a_kc ? f.rs : f.cs), p.sa = 2 * sa;
  p.b = (const float *)(uintptr_t)g.p, p.ldb = 2 * (b_kc ? g.cs : g.rs), p.sb = 2 * sb;
  p.c = (float *)(uintptr_t)o.p, p.ldc = 2 * o.cs, p.sc = 2 * sc;
  p.vec_c = aligned(o, sc, batch); /* the copiers move whole elements: A and B need no more */
  for (t = 0; t < DLG_CTILES; t++) {
    if (pin >= 0 && t != pin) continue;
    for (s = 1; s <= (lean ? 1 : 64) && (s == 1 || p.k / s >= 256); s *= 2) {
      const double cost = plan_cost(r->dev, t, p.m, p.n, p.k, (double)batch, s);
      if (cost < best) best = cost, tile = t, splits = s;
    }
  }
  /* each split a multiple of 16 of k; recounted so that none is empty */
  p.kchunk = (int)(((p.k + splits - 1) / splits + 15) / 16 * 16);
  p.splits = p.kchunk ? (int)((p.k + p.kchunk - 1) / p.kchunk) : 1;
  if (!p.kchunk) p.kchunk = 16;
  if (p.splits > 1) {
    const int64_t most = batch < zmax / p.splits ? batch : zmax / p.splits;
    if (!(work = dlg_l3_scratch(r, (size_t)p.m * p.n * 8 * p.splits * (size_t)most))) return;
  }
  for (b0 = 0; b0 < batch && !r->status;) {
    const dlg_sgemm_tile *tl = &dlg_csimt_tiles[tile];
    dlg_sgemm_args q = p;
    void *params[] = {&q};
    int64_t nb = batch - b0;
    if (nb > zmax / p.splits) nb = zmax / p.splits;
    q.a += b0 * q.sa, q.b += b0 * q.sb, q.c += b0 * q.sc;
    if (p.splits > 1) q.c = (float *)(uintptr_t)work;
    dlg_l3_run_kernel(r, r->dev->csimt[tile][(a_kc * 2 + b_kc) * 2 + (ca != cb)],
                      (unsigned)((q.m + tl->bm - 1) / tl->bm), (unsigned)((q.n + tl->bn - 1) / tl->bn),
                      (unsigned)(nb * p.splits), DLG_SGEMM_THREADS, (unsigned)tl->smem, params, 1);
    if (!r->status && p.splits > 1) { /* the partials' sum as a real 2m x n matrix */
      const float *w = (const float *)(uintptr_t)work;
      float *cc = p.c + b0 * p.sc;
      int m2 = 2 * p.m, batches = (int)nb;
      long long total = (long long)m2 * p.n * nb;
      const unsigned blocks = (unsigned)((total + 255) / 256 < 4096 ? (total + 255) / 256 : 4096);
      void *rp[] = {&w, &cc, &m2, &p.n, &batches, &p.splits, &p.ldc, &p.sc, &p.beta};
      dlg_l3_run_kernel(r, r->dev->splitk_reduce, blocks, 1, 1, 256, 0, rp, 0);
    }
    b0 += nb;
  }
  if (work) dlg_l3_release(r, work);
  if (!r->status && dlg_config_get()->verbose)
    dlg_note("complex SIMT %dx%d tile%s, k in %d split(s)", dlg_csimt_tiles[tile].bm,
             dlg_csimt_tiles[tile].bn, pin >= 0 ? " (pinned)" : "", p.splits);
}
