/*
 * zdmma.c - a batch of complex products on zgemm_dmma.cu (zdmma.h):
 * the orientation (C column-major, or the transposed problem C^T = op(B)^T
 * op(A)^T where C is row-major), each operand's contiguous dimension, the
 * tile (64 x 64 or 32 x 32: tile_for), k split across blocks where C's
 * tiles leave the chip idle, and grids of at most 65535 batch entries.
 */
#include <stdint.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/device.h"
#include "cuda/device/dgemm.h"
#include "cuda/device/driver.h"
#include "cuda/device/kernels.h"
#include "cuda/level3/launch.h"
#include "cuda/level3/zdmma.h"

/* [0] complex128, [1] complex64: the kernels' index, the element's bytes */
static int type_of(const dlg_factor_run *r) { return r->dtype == DLG_C64; }

int dlg_cuda_zdmma_ready(dlg_cuda_device *dev, dlg_dtype t)
{
  /* complex128's split-K reduce is the DMMA set's */
  return dlg_is_complex(t) && !dlg_cuda_kernels(dev, DLG_KERNELS_ZDMMA) &&
         dev->zgemm[t == DLG_C64][0][0] &&
         (t == DLG_C64 || !dlg_cuda_kernels(dev, DLG_KERNELS_DMMA));
}

int dlg_cuda_zdmma_takes(dlg_factor_run *r, dlg_dview a, dlg_dview b, dlg_dview c)
{
  const unsigned bytes = type_of(r) ? 8 : 16;
  return !r->status && dlg_l3_readable(a, bytes) && dlg_l3_readable(b, bytes) &&
         dlg_l3_readable(c, bytes) &&
         a.rows <= INT32_MAX && a.cols <= INT32_MAX && b.cols <= INT32_MAX &&
         dlg_cuda_zdmma_ready(r->dev, r->dtype);
}

/* The tiles, square, by their index in dev->zgemm: 64 x 64 and 32 x 32
 * complex elements (zgemm_args.h). */
static const int side[2] = {DLG_ZGEMM_BM, DLG_ZGEMM_SMALL};

static long long tiles_of(const dlg_zgemm_args *p, int tile)
{
  return (long long)((p->m + side[tile] - 1) / side[tile]) * ((p->n + side[tile] - 1) / side[tile]);
}

/* The tile: for complex128 the 32 x 32 one where C fills it a quarter
 * better than the 64 x 64 (tiles_of times the area: 1.25x the smaller
 * one's), else the 64 x 64, whose blocks do more with each fragment;
 * complex64 keeps the 64 x 64 (its batches of such sides go to the FFMA
 * tiles; the 32 tile is unmeasured there); DLGEMM_ZGEMM_TILE pins one.
 * Measured with each pinned over batched complex128 products (H200,
 * session 39): 24^3 0.72-0.80 of cuBLAS on the 64 tile's tiny-kernel
 * alternative -> 1.22-1.24 on the 32 tile, 32^3 0.36-0.40 -> 0.94-1.00,
 * 96^3 (three 32-row tiles, two 64-row ones half empty) 0.69-0.76 on the
 * 64 tile -> 1.02-1.11; where both fill alike (48^3, 64^3) the 64 tile
 * ran 5-10% faster (1.02-1.13 against 0.93-1.04), and single narrow
 * products (8-384 wide x 4096 x 4096) lost on the 32 tile: 0.70 of
 * cuBLAS against the embedding's 0.88.  And complex128 takes the 32 tile
 * where C is 320 or less a side and the 64 tile's blocks would not reach
 * half the SMs: a single 255^3 product ran at 0.44-0.51 of cuBLAS on the
 * 64 tile (16 blocks, split along k) and 0.89-1.06 on the 32 tile (64), in
 * every layout (H100, session 46: bench/results/session46/b/cw_c128_odd_*). */
static int tile_for(const dlg_factor_run *r, const dlg_zgemm_args *p, int64_t batch)
{
  const int pin = dlg_config_get()->zgemm_tile;
  const double small = (double)tiles_of(p, 1) * side[1] * side[1],
               large = (double)tiles_of(p, 0) * side[0] * side[0];
  const int idle = p->m <= 320 && p->n <= 320 && 2 * tiles_of(p, 0) * batch < r->dev->sms;
  return pin ? pin == 2 : !type_of(r) && (1.25 * small <= large || idle);
}

static void launch(dlg_factor_run *r, int tile, int kernel, dlg_zgemm_args p, int64_t batch)
{
  const int64_t zmax = 65535;
  int64_t b0;
  for (b0 = 0; b0 < batch && !r->status; b0 += zmax) {
    const size_t bytes = type_of(r) ? 8 : 16; /* an element */
    dlg_zgemm_args q = p;
    void *params[] = {&q};
    q.a = (const char *)q.a + (size_t)(b0 * q.sa) * bytes;
    q.b = (const char *)q.b + (size_t)(b0 * q.sb) * bytes;
    q.c = (char *)q.c + (size_t)(b0 * q.sc) * bytes;
    dlg_l3_run_kernel(r, r->dev->zgemm[type_of(r)][tile][kernel], (unsigned)tiles_of(&p, tile), 1,
                      (unsigned)(batch - b0 < zmax ? batch - b0 : zmax), DLG_ZGEMM_THREADS,
                      DLG_ZGEMM_SMEM_OF(type_of(r), tile), params, 1);
  }
}

/* The chunks of k as one batch strided along k into pooled partial
 * products (alpha applied, beta 0), then C = their sum + beta C, C seen as
 * the real matrix of twice its rows. */
static void launch_split(dlg_factor_run *r, int tile, int kernel, const dlg_zgemm_args *a,
                         int a_kc, int b_kc, int splits)
{
  const long long kchunk =
      ((a->k + splits - 1) / splits + DLG_ZGEMM_BK - 1) / DLG_ZGEMM_BK * DLG_ZGEMM_BK;
  const long long mn = (long long)a->m * a->n, last = (a->k - 1) / kchunk;
  const CUdeviceptr work = dlg_l3_scratch(r, (size_t)(mn * (last + 1)) * (type_of(r) ? 8 : 16));
  dlg_zgemm_args p = *a;
  void *w = (void *)(uintptr_t)work;
  int m2 = 2 * a->m, n = a->n, parts = (int)last + 1;
  long long ldc2 = 2 * a->ldc;
  double beta = a->beta;
  if (!work) return;
  p.k = (int)kchunk, p.beta = 0.0, p.c = w, p.ldc = a->m, p.sc = mn;
  p.k_last = a->k - last * kchunk < kchunk ? (int)(a->k - last * kchunk) : 0;
  p.sa = a_kc ? kchunk : kchunk * a->lda;
  p.sb = b_kc ? kchunk : kchunk * a->ldb;
  launch(r, tile, kernel, p, parts);
  if (!r->status) {
    void *rp[] = {&w, (void *)&a->c, &m2, &n, &parts, &ldc2, &beta};
    const long long blocks = (2 * mn + 255) / 256 < 4096 ? (2 * mn + 255) / 256 : 4096;
    const CUfunction f = type_of(r) ? r->dev->cgemm_reduce : r->dev->dgemm_splitk_reduce;
    dlg_l3_run_kernel(r, f, (unsigned)blocks, 1, 1, 256, 0, rp, 0);
  }
  dlg_l3_release(r, work);
}

void dlg_cuda_zdmma(dlg_factor_run *r, const double alpha[2], dlg_dview a, int64_t sa, int ca,
                    dlg_dview b, int64_t sb, int cb, double beta, dlg_dview c, int64_t sc,
                    int64_t batch)
{
  const dlg_l3_product x = dlg_l3_column_major(a, sa, ca, b, sb, cb, c);
  const dlg_dview f = x.f, g = x.g, o = x.o;
  dlg_zgemm_args p;
  int a_kc, b_kc, splits, tile;
  if (r->status || !o.rows || !o.cols || !batch) return;
  sa = x.sf, sb = x.sg, ca = x.cf, cb = x.cg;
  memset(&p, 0, sizeof p);
  a_kc = f.rs != 1; /* op(A)'s rows along k */
  b_kc = g.rs == 1; /* op(B)'s columns along k */
  p.m = (int)o.rows, p.n = (int)o.cols, p.k = (int)f.cols;
  p.alpha_re = alpha[0], p.alpha_im = alpha[1], p.beta = beta;
  if (alpha[0] == 0 && alpha[1] == 0) p.k = 0; /* A and B not read */
  p.a = (const void *)(uintptr_t)f.p, p.lda = a_kc ? f.rs : f.cs, p.sa = sa;
  p.b = (const void *)(uintptr_t)g.p, p.ldb = b_kc ? g.cs : g.rs, p.sb = sb;
  p.c = (void *)(uintptr_t)o.p, p.ldc = o.cs, p.sc = sc;
  p.conj_a = ca != 0, p.conj_b = cb != 0;
  tile = tile_for(r, &p, batch);
  splits = dlg_cuda_dmma_splits(r->dev, tiles_of(&p, tile), p.k, batch);
  if (splits > 1) launch_split(r, tile, a_kc * 2 + b_kc, &p, a_kc, b_kc, splits);
  else launch(r, tile, a_kc * 2 + b_kc, p, batch);
  if (!r->status && dlg_config_get()->verbose)
    dlg_note("complex DMMA %dx%d tile, k in %d split(s)", side[tile], side[tile], splits);
}
