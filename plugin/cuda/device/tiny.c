/*
 * tiny.c - from a dlg_gemm whose m, n and k are all 64 or less, on device
 * memory, to launches of the tiny kernels (kernels/cuda/tiny.cu): every
 * type, float32 under every precision policy (full FP32 FMAs are at least
 * as accurate, and a stream of memory gains nothing from the tensor
 * cores).
 *
 * Such a product is a few microseconds of one tile on any kernel; what
 * matters is a batch of them, where the tile kernels give each product a
 * block of 64 x 64 or more and compute mostly padding (the sweep on the
 * H100: 4^3 at 0.03-0.3 of cuBLAS, 16^3 at 0.1-0.4).  The tiny kernels put
 * as many whole products in a block as its threads cover, 2 x 2 of C a
 * thread up to 32 x 32 and 4 x 4 above, within 96 KB of shared memory
 * (tiny_args.h), so that a block's loads are one run of memory.
 * DLGEMM_TINY=off turns the route off, =on takes every product up to
 * DLG_TINY_MAX (tests), auto (default) where measured to win (largest()).
 * DLGEMM_TINY_R=4 pins 4 x 4 a thread for every size (2 x 2 leaves a
 * 24^3 product's 144 threads alone in a block of 256, and a 32^3 one's
 * 256: one product a block, its loads' latency uncovered; whether 4 x 4,
 * with 4-7 products a block, wins there is to be measured).
 */
#include <stdint.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/device/kernels.h"
#include "cuda/device/tiny.h"

/* The largest of m, n and k these kernels take, by type and policy: where
 * they were measured to win against the other kernels (the sweep's
 * batches of s^3 products, batch * s^3 = 2^28, every layout, with and
 * without DLGEMM_TINY=0, H100; bench/NOTES.md).  Up to 24^3 they win in
 * every type (4^3: 4-18x the tile kernels' speed, 24^3: 1.3-4x).  From
 * 32^3 the FP32 and FP64 tile kernels are as fast or faster (32^3 TN FP32
 * 0.44 of cuBLAS here against 0.60 there; 48^3 0.65-0.71 against
 * 0.94-1.14), the 16-bit ones from 48^3 (0.31-0.36 against 0.30-0.35),
 * TF32's from 64^3 (TN 0.37 against 0.42).  Complex products stay here to
 * 64^3: the level-3 path runs a batch one entry at a time (0.01-0.02 of
 * cuBLAS at 96^3). */
static int largest(const dlg_gemm *g)
{
  if (dlg_is_complex(g->dtype)) return DLG_TINY_MAX;
  if (dlg_is_half(g->dtype_in)) return 32;
  if (g->dtype == DLG_F32 && g->precision == DLGEMM_PRECISION_TF32) return 48;
  return 24;
}

int dlg_cuda_tiny_takes(dlg_cuda_device *dev, const dlg_gemm *g)
{
  const int mode = dlg_config_get()->tiny;
  const int64_t most = mode == 2 ? DLG_TINY_MAX : largest(g);
  return mode && g->m >= 1 && g->n >= 1 && g->k >= 0 && g->m <= most && g->n <= most &&
         g->k <= most && !dlg_cuda_kernels(dev, DLG_KERNELS_TINY) && dev->tiny[0][0];
}

static int tiny_type(dlg_dtype t)
{
  switch (t) {
  case DLG_F64: return DLG_TINY_F64;
  case DLG_F16: return DLG_TINY_F16;
  case DLG_BF16: return DLG_TINY_BF16;
  case DLG_C64: return DLG_TINY_C64;
  case DLG_C128: return DLG_TINY_C128;
  default: return DLG_TINY_F32;
  }
}

dlgemm_status dlg_cuda_tiny(dlg_cuda_device *dev, const dlg_gemm *g, CUstream stream)
{
  char why[160];
  const dlg_cuda_api *cu = dlg_cuda_api_get(why, sizeof why);
  const int type = tiny_type(g->dtype_in);
  /* the accumulators: FP32 for the 16-bit inputs */
  const size_t acc = type == DLG_TINY_C128 ? 16 : type == DLG_TINY_F64 || type == DLG_TINY_C64 ? 8 : 4;
  const int m = (int)g->m, n = (int)g->n, k = g->alpha == 0 ? 0 : (int)g->k;
  const int pin = dlg_config_get()->tiny_r;
  const int rr = pin == 4 || (pin == 2 && m <= 32 && n <= 32) ? pin : DLG_TINY_R(m, n);
  const int kc = k < DLG_TINY_KC ? k : DLG_TINY_KC;
  const int per = DLG_TINY_THREADS_PER(m, n, rr);
  const size_t slot = (size_t)DLG_TINY_SLOT(m, n, kc, rr) * acc;
  const long long most = 1LL << 30; /* blocks a launch, well under the grid's x limit */
  dlg_tiny_args a;
  int count = DLG_TINY_THREADS / per, threads;
  long long z0, blocks;
  CUresult r = CUDA_SUCCESS;

  if (!cu) return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "%s", why);
  if (g->batch == 0) return DLGEMM_OK;
  if ((size_t)count * slot > DLG_TINY_SMEM_CAP) count = (int)(DLG_TINY_SMEM_CAP / slot);
  if (count < 1) count = 1; /* DLG_TINY_MAX keeps one product's slot under the cap */
  if (count > g->batch) count = (int)g->batch;
  threads = (count * per + 31) / 32 * 32;
  memset(&a, 0, sizeof a);
  a.ars = g->a.rs, a.acs = g->a.cs, a.sa = g->a.bs;
  a.brs = g->b.rs, a.bcs = g->b.cs, a.sb = g->b.bs;
  a.crs = g->c.rs, a.ccs = g->c.cs, a.sc = g->c.bs;
  a.alpha = g->alpha, a.beta = g->beta;
  a.m = m, a.n = n, a.k = k, a.per_block = count;
  a.c_type = g->dtype == DLG_F16 ? DLG_HOUT_F16 : g->dtype == DLG_BF16 ? DLG_HOUT_BF16 : DLG_HOUT_F32;
  for (z0 = 0; z0 < g->batch && !r; z0 += blocks * count) {
    void *params[] = {&a};
    blocks = (g->batch - z0 + count - 1) / count;
    if (blocks > most) blocks = most;
    a.a = dlg_batch_at(&g->a, z0, dlg_elem_size(g->dtype_in));
    a.b = dlg_batch_at(&g->b, z0, dlg_elem_size(g->dtype_in));
    a.c = dlg_batch_at(&g->c, z0, dlg_elem_size(g->dtype));
    a.batch = g->batch - z0 < blocks * count ? g->batch - z0 : blocks * count;
    r = cu->LaunchKernel(dev->tiny[rr == 4][type], (unsigned)blocks, 1, 1, (unsigned)threads, 1, 1,
                         (unsigned)((size_t)count * slot), stream, params, NULL);
  }
  if (r)
    return dlg_fail(DLGEMM_ERR_BACKEND_FAILED, "CUDA kernel launch failed: %s", dlg_cuda_error(r));
  if (dlg_config_get()->verbose) /* the DLGEMM_VERBOSE line says which kernel (tests look) */
    dlg_note("tiny kernel, %d x %d a thread, %d product(s) a block of %d threads", rr, rr, count,
             threads);
  return DLGEMM_OK;
}
