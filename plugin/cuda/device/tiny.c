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
 * DLGEMM_TINY_R=2|4 pins the piece of C a thread owns for every size;
 * auto is piece() below.
 */
#include <stdint.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "cuda/device/driver.h"
#include "cuda/device/kernels.h"
#include "cuda/device/orient.h"
#include "cuda/device/tiny.h"

/* The largest of m, n and k these kernels take, by type and policy: where
 * they were measured to win against the other kernels (the sweep's
 * batches of s^3 products, batch * s^3 = 2^28, every layout, DLGEMM_TINY=on
 * against auto, H200, session 34, with 16-byte accesses and piece()'s 4 x
 * 4; bench/NOTES.md).  float32 (strict and 3xTF32) to 32^3 (0.73-0.78 of
 * cuBLAS against 0.43-0.49 on the tile kernels; 48^3 0.79-0.85 against
 * 0.98-1.07 there), float64 to 24^3 (32^3 0.43-0.47 against 0.51-0.55).
 * The 16-bit types to 16^3: from 24^3 the small mma.sync tiles
 * (hgemm_mma.cu, session 37) ran 1.5-1.7 of cuBLAS at 24^3-32^3 and
 * 1.1-1.35 at 48^3, against 0.54-1.19 here.  TF32 to 64^3, except where
 * neither operand needs TF32's packing pass (both k-contiguous and
 * 16-byte aligned): there those tiles ran 1.34-1.63 at 24^3-32^3 and
 * 0.86-0.96 at 48^3-64^3 against 0.47-0.96, and with the pass 0.26-0.70.
 * Complex products to 64^3, less the batches of 48 or more a side that
 * complex_gemm.c hands to the complex DMMA kernels (session 35). */
static int largest(const dlg_gemm *g)
{
  dlg_operand op1, op2;
  int64_t m, n;
  if (dlg_is_complex(g->dtype)) return DLG_TINY_MAX;
  if (dlg_is_half(g->dtype_in)) return 16;
  if (g->dtype == DLG_F64) return 24;
  if (g->precision != DLGEMM_PRECISION_TF32) return 32;
  dlg_orient(g, &op1, &op2, &m, &n);
  return op1.kc && op1.vec && op2.kc && op2.vec ? 16 : 64;
}

/* The piece of C a thread owns, r x r: 4 x 4 (4-7 products a block of 256
 * threads from 24^3 to 32^3, where 2 x 2 left one product a block and its
 * loads' latency uncovered) wherever it was measured to win, 2 x 2 where
 * the smallest products need more threads for their few elements
 * (session 34, H200, batches of s^3 as largest()): 16-bit 8^3-32^3
 * 1.5-1.8x with 4 x 4 (4^3 8% slower), float32 under every policy 1.03x at
 * 4^3 to 1.45x at 24^3, float64 from 16^3 (1.07x; 4^3 25% slower),
 * complex64 from 24^3 (1.06-1.08x; 4^3 22% slower), complex128 only past
 * 32 (4^3-32^3 0.5-0.9x with 4 x 4: its 16 accumulators take 170
 * registers, one block an SM). */
static int piece(const dlg_gemm *g, int m, int n)
{
  const int most = m > n ? m : n;
  if (dlg_is_half(g->dtype_in)) return most > 4 ? 4 : 2;
  switch (g->dtype) {
  case DLG_F64: return most > 8 ? 4 : 2;
  case DLG_C64: return most > 16 ? 4 : 2;
  case DLG_C128: return most > 32 ? 4 : 2;
  default: return 4;
  }
}

int dlg_cuda_tiny_takes(dlg_cuda_device *dev, const dlg_gemm *g)
{
  const int mode = dlg_config_get()->tiny;
  const int64_t most = mode == 2 ? DLG_TINY_MAX : largest(g);
  return mode && g->m >= 1 && g->n >= 1 && g->k >= 0 && g->m <= most && g->n <= most &&
         g->k <= most && !dlg_cuda_kernels(dev, DLG_KERNELS_TINY) && dev->tiny[0][0];
}

/* DLG_TINY_VEC_* (tiny_args.h): whether a batch of rows x cols operands
 * at p (element strides rs and cs, batch stride bs, es bytes an element)
 * can move 16 bytes an access: its stride-1 dimension whole runs of 16
 * bytes (in every chunk of k too where that dimension is k: the chunks,
 * DLG_TINY_KC, are a multiple of every run's length), its other strides
 * and its base on 16 bytes.  complex128's elements are 16 bytes already. */
static int whole_runs(const void *p, int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                      int64_t bs, int64_t batch, size_t es)
{
  const int64_t v = (int64_t)(16 / es);
  const int64_t fast = rs == 1 ? rows : cols, slow = rs == 1 ? cs : rs;
  const int64_t slow_n = rs == 1 ? cols : rows;
  if (es >= 16 || (uintptr_t)p % 16 || (rs != 1 && cs != 1) || fast % v) return 0;
  return (slow_n == 1 || slow % v == 0) && (batch == 1 || bs % v == 0);
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
  const size_t ein = dlg_elem_size(g->dtype_in), eout = dlg_elem_size(g->dtype);
  const int pin = dlg_config_get()->tiny_r;
  const int rr = pin == 4 || (pin == 2 && m <= 32 && n <= 32) ? pin : piece(g, m, n);
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
  a.vec = (whole_runs(g->a.data, m, k, g->a.rs, g->a.cs, g->a.bs, g->batch, ein) ? DLG_TINY_VEC_A : 0) |
          (whole_runs(g->b.data, k, n, g->b.rs, g->b.cs, g->b.bs, g->batch, ein) ? DLG_TINY_VEC_B : 0) |
          (whole_runs(g->c.data, m, n, g->c.rs, g->c.cs, g->c.bs, g->batch, eout) ? DLG_TINY_VEC_C : 0);
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
    dlg_note("tiny kernel, %d x %d a thread, %d product(s) a block of %d threads, 16-byte "
             "accesses to%s%s%s%s", rr, rr, count, threads, a.vec & DLG_TINY_VEC_A ? " A" : "",
             a.vec & DLG_TINY_VEC_B ? " B" : "", a.vec & DLG_TINY_VEC_C ? " C" : "",
             a.vec ? "" : " none");
  return DLGEMM_OK;
}
